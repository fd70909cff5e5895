#!/usr/bin/env bash
# Installs every Debian 12 package that neardup's build, tests, fuzzers and
# benchmarks need. Safe to run again; uses sudo when not root.
#
#   --browser  also install the optional browser group (chromium), used by
#              tests/report_browser_test.cc to render report.html headless;
#              that test skips itself without it. A failure to install the
#              browser only prints a message: it never fails this script.
set -euo pipefail

WITH_BROWSER=0
for arg in "$@"; do
  case "$arg" in
    --browser) WITH_BROWSER=1 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "install-deps: unknown option $arg (known: --browser)" >&2; exit 2 ;;
  esac
done
BROWSER_PACKAGES=(chromium)

PACKAGES=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  clang libclang-rt-14-dev           # libFuzzer and sanitizer runtimes
  zlib1g-dev libdeflate-dev libzstd-dev libbrotli-dev   # gzip, zstd, brotli
  libxxhash-dev libicu-dev                               # hashing, charsets
  libpsl-dev                                             # registrable domains (the public suffix list)
  libsimdjson-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libhwy-dev                                             # runtime SIMD dispatch
  libgtest-dev libgmock-dev libbenchmark-dev
  time python3                                           # bench scripts: peak RSS, JSON
  bsdextrautils                                          # column, for the sample script
  librocksdb-dev libcpp-httplib-dev                      # the service's store and HTTP
  libjemalloc-dev                                        # the CLI's memory allocator
  liburing-dev                                           # batched out-of-order reads (io_uring)
  openmpi-bin libopenmpi-dev                             # neardup-mpi
  pybind11-dev python3-dev python3-numpy                 # the Python module
  python3-venv python3-pip python3-setuptools python3-wheel python3-pytest
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

# The optional browser group: best effort, never fatal.
install_browser() {
  local want=()
  for p in "${BROWSER_PACKAGES[@]}"; do installed "$p" || want+=("$p"); done
  if [ ${#want[@]} -eq 0 ]; then
    echo "install-deps: browser group present (${BROWSER_PACKAGES[*]})"
    return 0
  fi
  echo "install-deps: installing the browser group: ${want[*]}"
  if ! { $SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive \
           $SUDO apt-get install -y -q --no-install-recommends "${want[@]}"; }; then
    echo "install-deps: could not install ${want[*]}; the browser test of the report will be skipped"
  fi
  return 0
}

missing=()
for p in "${PACKAGES[@]}"; do
  installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
else
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
if [ "$WITH_BROWSER" -eq 1 ]; then install_browser || true; fi
