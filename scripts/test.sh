#!/usr/bin/env bash
# The second README command (and what CI runs): installs the Debian
# packages, builds, and runs the whole test suite twice: a Release build,
# then an AddressSanitizer + UndefinedBehaviorSanitizer build. Also checks
# the module dependency graph of #include edges, and that the Release build
# installs as a package examples/ builds against (scripts/check-install.sh),
# and that the Python module installs with pip into a fresh virtual
# environment (reusing the Release build: only the module is compiled) and
# passes its pytest tests.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

bash scripts/install-deps.sh --browser
bash scripts/check-includes.sh

echo "== Release build and tests"
# Debian's Python: the one pip installs the module for below (a python3
# earlier on PATH, say pyenv's, would make CMake build it for another).
bash scripts/build.sh -DPython_EXECUTABLE=/usr/bin/python3
ctest --test-dir build --output-on-failure -j"$jobs" --timeout 900

echo "== Python module: pip install into a fresh virtual environment, then pytest"
venv=build/python-venv
rm -rf "$venv"
/usr/bin/python3 -m venv --system-site-packages "$venv"
# --no-index: everything comes from Debian packages, nothing is downloaded.
NEARDUP_CMAKE_BUILD_DIR=build "$venv/bin/python" -m pip install --quiet --no-index --no-build-isolation .
NEARDUP_CLI=build/neardup "$venv/bin/python" -m pytest python/tests -q -p no:cacheprovider

echo "== Install, and the example built against the installed package"
bash scripts/check-install.sh build

echo "== AddressSanitizer + UndefinedBehaviorSanitizer build and tests"
# -O1 -g1 (line tables): sanitizer reports keep their file:line stacks, and
# the build takes a third less time than -O2 -g.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNEARDUP_SANITIZE=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DNEARDUP_BUILD_BENCHMARKS=OFF -DNEARDUP_BUILD_PYTHON=OFF >/dev/null
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs" --timeout 1800

echo "== libFuzzer smoke run (clang): every fuzzer, fixed seed, from its seed corpus"
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DCMAKE_CXX_COMPILER=clang++ -DNEARDUP_BUILD_FUZZERS=ON -DNEARDUP_BUILD_TESTS=OFF \
  -DNEARDUP_BUILD_BENCHMARKS=OFF -DNEARDUP_BUILD_PYTHON=OFF -DNEARDUP_BUILD_SERVICE=OFF >/dev/null
cmake --build build-fuzz -j"$jobs" --target neardup_fuzzers
for fuzzer in build-fuzz/fuzz/*_fuzzer; do
  name=$(basename "$fuzzer" _fuzzer)
  work=$(mktemp -d)
  cp -r "fuzz/corpus/$name/." "$work/"
  "$fuzzer" "$work" -seed=1 -runs=20000 -max_len=65536 -rss_limit_mb=4096 2>"$work.log" ||
    { tail -n 40 "$work.log"; echo "fuzzer $name failed"; exit 1; }
  echo "fuzz $name: $(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' "$work.log" || echo done)"
  rm -rf "$work" "$work.log"
done
echo "all fuzzers ran without a crash"
