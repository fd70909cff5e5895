#!/usr/bin/env bash
# Checks that neardup installs as a library a user can build against:
#   1. builds the library and CLI (in BUILD_DIR, default build; an existing
#      build folder is reused as configured),
#   2. installs it to a temporary prefix and checks that the installed CMake
#      package names no path of this source or build tree,
#   3. builds examples/ (a standalone project: find_package(neardup)) against
#      that prefix alone,
#   4. runs the example and `neardup dedup` on the sample crawl and checks
#      that both split its pages into the same clusters.
# Usage: scripts/check-install.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${1:-build}
jobs=$(nproc 2>/dev/null || echo 2)
crawl=tests/data/sample/sample-crawl.warc.gz

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNEARDUP_BUILD_TESTS=OFF \
    -DNEARDUP_BUILD_BENCHMARKS=OFF -DNEARDUP_BUILD_PYTHON=OFF >/dev/null
fi
cmake --build "$build" -j"$jobs"
build_abs=$(cd "$build" && pwd)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

echo "== check-install: installing to a temporary prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
if [ ! -f "$prefix/lib/cmake/neardup/neardupConfig.cmake" ]; then
  echo "check-install: no lib/cmake/neardup/neardupConfig.cmake in the install" \
    "(was $build configured with -DNEARDUP_INSTALL=OFF?)" >&2
  exit 1
fi
if grep -rlF -e "$root" -e "$build_abs" "$prefix/lib/cmake" >&2; then
  echo "check-install: the installed CMake package above names a source or build path" >&2
  exit 1
fi

echo "== check-install: building examples/ against the installed package"
cmake -S examples -B "$tmp/example-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >/dev/null
cmake --build "$tmp/example-build" -j"$jobs" >/dev/null

echo "== check-install: example vs neardup dedup on $crawl"
"$tmp/example-build/cluster_crawl" "$crawl" >"$tmp/example.tsv"
"$build/neardup" dedup "$crawl" --out "$tmp/dedup" --quiet

# The same partition: the groups of URLs by the example's cluster column
# (url, cluster, kept url) and by clusters.tsv's `cluster` column (url,
# cluster, role, method, similarity, source, offset, reason; with a header).
python3 - "$tmp/example.tsv" "$tmp/dedup/clusters.tsv" <<'PY'
import collections, sys

def groups(path, skip_header):
    by_cluster = collections.defaultdict(list)
    pages = 0
    with open(path, encoding="utf-8") as f:
        if skip_header:
            header = f.readline().rstrip("\n").split("\t")
            assert header[:2] == ["url", "cluster"], f"{path}: unexpected header {header}"
        for line in f:
            url, cluster = line.rstrip("\n").split("\t")[:2]
            by_cluster[cluster].append(url)
            pages += 1
    return pages, collections.Counter(tuple(sorted(urls)) for urls in by_cluster.values())

example_pages, example = groups(sys.argv[1], skip_header=False)
dedup_pages, dedup = groups(sys.argv[2], skip_header=True)
if example_pages == 0 or example != dedup:
    print(f"check-install: MISMATCH: the example made {len(example)} clusters of {example_pages} pages, "
          f"neardup dedup {len(dedup)} clusters of {dedup_pages} pages", file=sys.stderr)
    for g in (example - dedup):
        print("  only in the example:", " ".join(g), file=sys.stderr)
    for g in (dedup - example):
        print("  only in dedup:      ", " ".join(g), file=sys.stderr)
    sys.exit(1)
multi = sum(n for g, n in example.items() if len(g) > 1)
print(f"check-install: same partition: {example_pages} pages, {sum(example.values())} clusters "
      f"({multi} of two or more pages)")
PY
echo "check-install: OK"
