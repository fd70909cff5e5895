#!/usr/bin/env bash
# The first README command: installs the Debian packages, builds neardup, and
# runs `neardup dedup` on the sample crawl kept in the repository, then
# writes the pages it kept with `neardup keep`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
rm -rf out/sample out/sample-kept.jsonl.gz
./build/neardup dedup tests/data/sample/sample-crawl.warc.gz --out out/sample
echo
echo "First rows of out/sample/clusters.tsv (duplicates first):"
{ head -n 1 out/sample/clusters.tsv; awk -F'\t' 'NR>1 && $4!="single"' out/sample/clusters.tsv | sort -t$'\t' -k2,2n -k3,3r | head -n 12; } | column -t -s$'\t' | cut -c1-160
echo
./build/neardup keep out/sample --out out/sample-kept.jsonl.gz
