#!/usr/bin/env bash
# Writes the pinned outputs that tests/golden_test.cc compares against: every
# method of `neardup dedup` on the sample crawl and on a `neardup synth` crawl
# built from it (40 sites, seed 3), each read as `crawl.warc.gz` from the
# current folder so that the source column holds no path. Run it only with a
# change that is meant to move a cluster, a kept page or a figure of
# summary.json, and say so in the commit.
#
#   bash tests/golden/make-golden.sh [path/to/neardup]
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
neardup=$(realpath "${1:-build/neardup}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/sample" "$work/synth"
cp tests/data/sample/sample-crawl.warc.gz "$work/sample/crawl.warc.gz"
"$neardup" synth tests/data/sample/sample-crawl.warc.gz --out "$work/synth/crawl.warc.gz" \
  --truth "$work/truth.tsv" --sites 40 --seed 3 >/dev/null 2>&1
for crawl in sample synth; do
  for method in exact broder simhash combined robust paragraphs chunks; do
    pairs=--pairs
    [ "$method" = exact ] && pairs=
    (cd "$work/$crawl" && "$neardup" dedup crawl.warc.gz --method "$method" --out "$method" $pairs --threads 1 --quiet)
    out="$work/$crawl/$method"
    dest="$repo/tests/golden/$crawl"
    mkdir -p "$dest"
    cp "$out/clusters.tsv" "$dest/$method.clusters.tsv"
    if [ -f "$out/pairs.tsv" ]; then gzip -9n < "$out/pairs.tsv" > "$dest/$method.pairs.tsv.gz"; fi
    python3 tests/golden/figures.py "$out/summary.json" > "$dest/$method.summary.json"
  done
done
echo "golden outputs written under tests/golden/"
