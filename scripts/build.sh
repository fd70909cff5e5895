#!/usr/bin/env bash
# Configures and builds neardup in ./build (Release). Extra arguments go to
# CMake's configure step, e.g. scripts/build.sh -DNEARDUP_BUILD_BENCHMARKS=OFF
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j"$jobs"
