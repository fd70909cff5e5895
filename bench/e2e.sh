#!/usr/bin/env bash
# End-to-end benchmark of `neardup dedup`.
#
#   bench/e2e.sh [PAGES] [HTML_DIR]
#
# Builds (once, cached in build/bench-data/) a per-record-gzip .warc.gz crawl
# of PAGES pages (default 20000) and one of 4 x PAGES, made by bench/crawlgen
# from the real pages in HTML_DIR (default: shared/data/html beside the
# repository) with exact copies, markup-only copies and small edits mixed in.
# Runs `neardup dedup --threads 1` on each (per-core figures) and once with
# all cores, and prints a Markdown table row per run: pages/s and MB/s of
# uncompressed HTML, peak RSS, and the memory growth per document between
# the two crawl sizes. Append the rows to bench/RESULTS.md by hand after a
# change to a hot path, with the machine line this script prints.
set -euo pipefail
cd "$(dirname "$0")/.."
pages=${1:-20000}
html_dir=${2:-../shared/data/html}
if [ ! -d "$html_dir" ]; then
  echo "e2e: $html_dir not found: pass a folder of real HTML pages (.html or .html.gz)" >&2
  exit 2
fi
bash scripts/build.sh >/dev/null
mkdir -p build/bench-data
small=build/bench-data/crawl-$pages.warc.gz
large=build/bench-data/crawl-$((pages * 4)).warc.gz
[ -f "$small" ] || ./build/bench/crawlgen --html-dir "$html_dir" --pages "$pages" --seed 1 --out "$small"
[ -f "$large" ] || ./build/bench/crawlgen --html-dir "$html_dir" --pages $((pages * 4)) --seed 1 --out "$large"

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
echo "machine: $cpu, $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; $(date -u +%Y-%m-%d)"
echo
echo "| crawl | pages | threads | seconds | pages/s | MB/s HTML | MB/s per core | peak RSS MB | command |"
echo "|---|---|---|---|---|---|---|---|---|"
declare -A rss
run() {  # crawl threads
  local crawl=$1 threads=$2 out=build/bench-out
  rm -rf "$out"
  local tfile
  tfile=$(mktemp)
  /usr/bin/time -v ./build/neardup dedup "$crawl" --out "$out" --threads "$threads" -q 2>"$tfile"
  local kb
  kb=$(awk -F: '/Maximum resident set size/{gsub(/ /,"",$2); print $2}' "$tfile")
  rm -f "$tfile"
  python3 - "$out/summary.json" "$crawl" "$threads" "$kb" "$(nproc)" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
crawl, threads, kb, ncores = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
docs, secs, payload = s["documents_read"], s["seconds"], s["payload_bytes"]
mbs = payload / 1e6 / secs
cores = min(threads if threads > 0 else ncores, ncores)
print(f"| {crawl.split('/')[-1]} | {docs} | {threads} | {secs:.2f} | {docs/secs:,.0f} | {mbs:.0f} | "
      f"{mbs/ (1 if threads == 1 else cores):.0f} | {kb/1024:.0f} | `neardup dedup {crawl.split('/')[-1]} --threads {threads} -q` |")
PY
  rss[$crawl.$threads]=$kb
}
run "$small" 1
run "$large" 1
run "$large" 0
growth=$(( (rss[$large.1] - rss[$small.1]) * 1024 / (pages * 3) ))
echo
echo "memory growth per document (peak RSS, ${pages} -> $((pages * 4)) pages, 1 thread): ${growth} bytes"
