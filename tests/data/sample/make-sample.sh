#!/usr/bin/env bash
# Rebuilds sample-crawl.warc.gz from pages.tsv and the real pages in
# shared/data/html (beside the repository). Needs a build with benchmarks
# (scripts/build.sh), which has crawlgen.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
html=${1:-$root/../shared/data/html}
"$root/build/bench/crawlgen" --list "$here/pages.tsv" --html-dir "$html" --seed 2026 \
  --out "$here/sample-crawl.warc.gz"
