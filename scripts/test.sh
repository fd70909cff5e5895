#!/usr/bin/env bash
# The second README command (and what CI runs): installs the Debian
# packages, builds, and runs the whole test suite twice: a Release build,
# then an AddressSanitizer + UndefinedBehaviorSanitizer build. Also checks
# the module dependency graph of #include edges.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

bash scripts/install-deps.sh
bash scripts/check-includes.sh

echo "== Release build and tests"
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j"$jobs" --timeout 900

echo "== AddressSanitizer + UndefinedBehaviorSanitizer build and tests"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNEARDUP_SANITIZE=ON \
  -DNEARDUP_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs" --timeout 1800
