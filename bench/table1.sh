#!/usr/bin/env bash
# The storage and time costs of the memory-bounded overlap methods in the
# form of Shivakumar and Garcia-Molina's Table 1 ("Finding near-replicas of
# documents on the web"), plus Pereira et al.'s m-pass shingle-paragraph
# method, on a crawl larger than the memory budget.
#
#   bench/table1.sh [--crawl FILE] [--pages N] [--max-page-bytes B] [--memory 256M]
#                   [--html-dir DIR] [--threads T]
#
# Without --crawl, builds (cached in build/bench-data/) a crawl of N pages
# from real pages with bench/crawlgen, as bench/e2e.sh does. Then, with
# `--threads T` (default 1, per-core figures):
#   1. `neardup dedup --method exact`: the time to read the crawl once
#      (read, decompress, tokenize, exact fingerprints);
#   2. `neardup overlap` with the sort-based and the coarse-counting
#      algorithm, for the paper's chunkings: four lines with T = 15 and two
#      lines with T = 25;
#   3. `neardup dedup --method paragraphs --min-shared 90` (m-pass).
# Prints one Markdown row per run: fingerprint space, sort time, overlap
# time, total time (and its ratio to the read-once time), peak RSS against
# the budget, sorted runs spilled, passes.
set -euo pipefail
cd "$(dirname "$0")/.."
crawl="" pages=100000 max_page_bytes=16384 memory=256M html_dir=../shared/data/html threads=1
while [ $# -gt 0 ]; do
  case $1 in
    --crawl) crawl=$2; shift 2 ;;
    --pages) pages=$2; shift 2 ;;
    --max-page-bytes) max_page_bytes=$2; shift 2 ;;
    --memory) memory=$2; shift 2 ;;
    --html-dir) html_dir=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    *) echo "table1: unknown argument $1" >&2; exit 2 ;;
  esac
done
bash scripts/build.sh >/dev/null
mkdir -p build/bench-data build/bench-out
if [ -z "$crawl" ]; then
  if [ ! -d "$html_dir" ]; then
    echo "table1: $html_dir not found: pass --crawl FILE or --html-dir with real HTML pages" >&2
    exit 2
  fi
  crawl=build/bench-data/crawl-$pages-$max_page_bytes.warc.gz
  [ -f "$crawl" ] || ./build/bench/crawlgen --html-dir "$html_dir" --pages "$pages" --seed 1 \
      --max-page-bytes "$max_page_bytes" --out "$crawl" 2>/dev/null
fi
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
echo "machine: $cpu, $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB RAM; $(date -u +%Y-%m-%d)"
echo "crawl: $crawl ($(du -h "$crawl" | cut -f1) compressed); memory budget $memory; threads $threads"
echo
echo "| run | pages | HTML MB | fingerprints | sort s | overlap s | total s | x read-once | peak RSS MB | budget MB | runs spilled | passes | pairs |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
read_once=""
timed() {  # label json-path command...
  local label=$1 json=$2; shift 2
  local tfile
  tfile=$(mktemp)
  /usr/bin/time -v "$@" 2>"$tfile" >/dev/null || { tail -5 "$tfile"; rm -f "$tfile"; exit 1; }
  local kb
  kb=$(awk -F: '/Maximum resident set size/{gsub(/ /,"",$2); print $2}' "$tfile")
  rm -f "$tfile"
  read_once=$(python3 - "$label" "$json" "$kb" "$memory" "${read_once:-0}" <<'PY'
import json, sys
label, path, kb, memory, read_once = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], float(sys.argv[5])
s = json.load(open(path))
units = {"K": 2**10, "M": 2**20, "G": 2**30}
budget = int(memory[:-1]) * units[memory[-1].upper()] if memory[-1].upper() in units else int(memory)
secs, docs, html = s["seconds"], s["documents_read"], s["payload_bytes"] / 1e6
fp = sort = ovl = runs = passes = pairs = "-"
if "chunks" in s:
    c = s["chunks"]
    fp = f'{c["fingerprint_bytes"]/1e6:.1f} MB'
    sort, ovl = f'{c["sort_seconds"]:.2f}', f'{c["overlap_seconds"]:.2f}'
    runs, passes, pairs = c["spill_runs"], c["passes"], f'{c["result_pairs"]:,}'
if "paragraphs" in s:
    p = s["paragraphs"]
    fp = f'{sum(x["paragraphs_loaded"] for x in p["passes"]) * 8 / 1e6:.1f} MB'
    ovl = f'{sum(x["seconds"] for x in p["passes"]):.2f}'
    passes, pairs = len(p["passes"]), f'{s["near_duplicates"]["pairs"]:,}'
if read_once == 0:
    read_once = secs
ratio = secs / read_once
print(f"| {label} | {docs:,} | {html:,.0f} | {fp} | {sort} | {ovl} | {secs:.2f} | {ratio:.2f} | {kb/1024:.0f} | "
      f"{budget/2**20:.0f} | {runs} | {passes} | {pairs} |", file=sys.stderr)
print(read_once)
PY
)
}
out=build/bench-out
rm -rf "$out/exact"
timed "read once (dedup --method exact)" "$out/exact/summary.json" \
  ./build/neardup dedup "$crawl" --method exact --threads "$threads" -q --out "$out/exact"
for spec in "lines:4 15" "lines:2 25"; do
  set -- $spec
  for algorithm in sort coarse; do
    timed "overlap --chunk $1 -T $2 --algorithm $algorithm" "$out/overlap.json" \
      ./build/neardup overlap "$crawl" --chunk "$1" --threshold "$2" --algorithm "$algorithm" \
        --memory "$memory" --threads "$threads" -q --out "$out/overlap.tsv" --summary "$out/overlap.json"
  done
done
rm -rf "$out/paragraphs"
timed "dedup --method paragraphs --min-shared 90" "$out/paragraphs/summary.json" \
  ./build/neardup dedup "$crawl" --method paragraphs --min-shared 90 --memory "$memory" --threads "$threads" \
    -q --out "$out/paragraphs"
