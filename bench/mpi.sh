#!/usr/bin/env bash
# neardup-mpi dedup at N ranks against neardup dedup, on one crawl built from
# real pages (bench/crawlgen, as bench/e2e.sh builds it: one per-record-gzip
# .warc.gz, so the ranks split it at record members).
#
#   bench/mpi.sh [--method robust] [--pages 20000] [--ranks 1,2,4] [--html-dir DIR]
#                [--partition length:D] [--max-page-bytes B]
#
# With --partition (broder, simhash, combined) the comparison runs where Zhu
# et al.'s length partitions put the pages, and a second table gives per
# rank the pages hosted and received, the pairs compared and found, and the
# load imbalance factor (most pages hosted over the mean). With --partition
# and with --method exact the ranks cluster together, and a third table
# gives per rank the pages it held, the bytes it sent per page while
# clustering, its clustering seconds (and their split: exact identity and
# components, keepers, verification, final clusters; then writing) and its
# peak RSS.
# Every rank runs with --threads 1. Prints a Markdown row per run: ranks,
# wall seconds, pages, and per rank the pages it read, its seconds reading
# and signing, its seconds handing its share over, the bytes it sent per
# page and its peak RSS; rank 0's clustering and writing seconds; and
# whether clusters.tsv equals the single-process run's. On a machine with
# fewer cores than ranks the ranks share cores: read the work per rank, not
# the speed-up. Paste the rows into bench/RESULTS.md with the machine line.
set -euo pipefail
cd "$(dirname "$0")/.."
method=robust pages=20000 ranks=1,2,4 html_dir=../shared/data/html partition= max_page_bytes=0
while [ $# -gt 0 ]; do
  case $1 in
    --method) method=$2; shift 2 ;;
    --pages) pages=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --html-dir) html_dir=$2; shift 2 ;;
    --partition) partition=$2; shift 2 ;;
    --max-page-bytes) max_page_bytes=$2; shift 2 ;;
    *) echo "mpi: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ ! -d "$html_dir" ]; then
  echo "mpi: $html_dir not found: pass --html-dir with real HTML pages (.html or .html.gz)" >&2
  exit 2
fi
[ -x build/neardup-mpi ] || { echo "mpi: build/neardup-mpi not built (needs OpenMPI)" >&2; exit 2; }
mkdir -p build/bench-data
# --max-page-bytes cuts every page (0: whole pages), for crawls of many small pages.
crawl=build/bench-data/crawl-$pages-$max_page_bytes.warc.gz
cut=()
[ "$max_page_bytes" != 0 ] && cut=(--max-page-bytes "$max_page_bytes")
[ -f "$crawl" ] || ./build/bench/crawlgen --html-dir "$html_dir" --pages "$pages" --seed 1 "${cut[@]}" --out "$crawl" 2>/dev/null
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
out=build/bench-mpi
rm -rf "$out"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; crawl $crawl ($(du -h "$crawl" | cut -f1)), --method $method"
start=$(date +%s.%N)
./build/neardup dedup "$crawl" --out "$out/single" --method "$method" --threads 1 --quiet
single_seconds=$(echo "$(date +%s.%N) - $start" | bc)
echo
echo "| ranks | wall s | pages | per rank: pages | read+sign s | hand-over s | bytes sent/page | peak RSS MB | rank 0 cluster+write s | clusters.tsv = dedup's |"
echo "|---|---|---|---|---|---|---|---|---|---|"
python3 - "$out/single/summary.json" "$single_seconds" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
st = {x["name"]: x["seconds"] for x in s["stages"]}
after = sum(v for k, v in st.items() if k not in ("read", "tokenize"))
print(f"| dedup (1 process) | {float(sys.argv[2]):.1f} | {s['documents_read']} | {s['documents_read']} | "
      f"{st['read'] + st['tokenize']:.1f} | - | - | {s['peak_rss_bytes'] / 1e6:.0f} | {after:.1f} | - |")
PY
IFS=, read -ra rank_list <<<"$ranks"
for n in "${rank_list[@]}"; do
  start=$(date +%s.%N)
  mpirun "${root[@]}" --oversubscribe -np "$n" ./build/neardup-mpi dedup "$crawl" --out "$out/mpi$n" \
    --method "$method" --threads 1 --quiet ${partition:+--partition "$partition"}
  wall=$(echo "$(date +%s.%N) - $start" | bc)
  same=no
  cmp -s "$out/single/clusters.tsv" "$out/mpi$n/clusters.tsv" && same=yes
  python3 - "$out/mpi$n/summary.json" "$wall" "$n" "$same" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
ranks = s["mpi"]["per_rank"]
st = {x["name"]: x["seconds"] for x in s["stages"]}
after = sum(v for k, v in st.items() if k not in ("read", "tokenize"))
def col(key, fmt):
    return " / ".join(format(r[key], fmt) for r in ranks)
mb = [r["peak_rss_bytes"] / 1e6 for r in ranks]
print(f"| {sys.argv[3]} | {float(sys.argv[2]):.1f} | {s['documents_read']} | {col('documents', '.0f')} | "
      f"{col('read_and_sign_seconds', '.1f')} | {col('exchange_seconds', '.2f')} | "
      f"{col('bytes_sent_per_document', '.0f')} | {' / '.join(format(m, '.0f') for m in mb)} | "
      f"{after:.1f} | {sys.argv[4]} |")
PY
done
if [ -f "$out/mpi${rank_list[0]}/summary.json" ] && grep -q clustered_together "$out/mpi${rank_list[0]}/summary.json"; then
  echo
  echo "Clustering together (each rank keeps its pages; keys, pairs, labels and keeper candidates meet at their owners):"
  echo
  echo "| ranks | per rank: pages held | bytes sent/page | cluster s | exact+near s | keepers s | verify s | clusters s | write s | peak RSS MB |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for n in "${rank_list[@]}"; do
    python3 - "$out/mpi$n/summary.json" "$n" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["clustered_together"]["per_process"]
def col(key, fmt, scale=1):
    return " / ".join(format(p[key] / scale, fmt) for p in t)
def stage(*names):
    return " / ".join(format(sum(p["stage_seconds"][n] for n in names), ".2f") for p in t)
print(f"| {sys.argv[2]} | {col('pages_held', '.0f')} | {col('bytes_sent_per_page', '.0f')} | "
      f"{col('cluster_seconds', '.2f')} | {stage('exact', 'near')} | {stage('keepers')} | {stage('verify')} | "
      f"{stage('clusters')} | {stage('write')} | {col('peak_rss_bytes', '.0f', 1e6)} |")
PY
  done
fi
if [ -n "$partition" ]; then
  echo
  echo "--partition $partition:"
  echo
  echo "| ranks | partitions | imbalance | per rank: hosted | received | pairs compared | pairs found | MB routed | seconds |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for n in "${rank_list[@]}"; do
    python3 - "$out/mpi$n/summary.json" "$n" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["mpi"]
ranks = m["per_rank"]
def col(key, fmt, scale=1):
    return " / ".join(format(r[key] / scale, fmt) for r in ranks)
print(f"| {sys.argv[2]} | {m['partitions']} | {m['imbalance']:.2f} | {col('pages_hosted', '.0f')} | "
      f"{col('pages_received', '.0f')} | {col('pairs_compared', '.0f')} | {col('pairs_found', '.0f')} | "
      f"{col('bytes_routed', '.1f', 1e6)} | {col('partition_seconds', '.2f')} |")
PY
  done
fi
