#!/usr/bin/env bash
# Installs every Debian 12 package that neardup's build, tests, fuzzers and
# benchmarks need. Safe to run again; uses sudo when not root.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  clang libclang-rt-14-dev           # libFuzzer and sanitizer runtimes
  zlib1g-dev libdeflate-dev libzstd-dev libbrotli-dev   # gzip, zstd, brotli
  libxxhash-dev libicu-dev                               # hashing, charsets
  libsimdjson-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libhwy-dev                                             # runtime SIMD dispatch
  libgtest-dev libgmock-dev libbenchmark-dev
  time python3                                           # bench scripts: peak RSS, JSON
  bsdextrautils                                          # column, for the sample script
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
