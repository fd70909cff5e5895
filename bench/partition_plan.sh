#!/usr/bin/env bash
# Zhu et al.'s Figure 4 (load imbalance factor per dimension count and
# machine count), Figure 5 (page transfers saved) and the recall lost by ρ,
# from `neardup partition-plan` on real crawls.
#
#   bench/partition_plan.sh [DATA_DIR] [-- EXTRA FLAGS FOR partition-plan]
#
# Runs on the repository's sample crawl, then, when a real-data folder is
# given (DATA_DIR, else $NEARDUP_SHARED_DATA), on every WARC/ARC file under
# DATA_DIR/warc and on the pages of DATA_DIR/html (a folder input). Without
# a data folder those runs are skipped with a message. Needs build/neardup
# (cmake --build build --target neardup_cli). Paste the tables into
# bench/RESULTS.md with the machine line this prints.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${NEARDUP_SHARED_DATA:-}
if [ $# -gt 0 ] && [ "$1" != "--" ]; then data=$1; shift; fi
[ "${1:-}" = "--" ] && shift
extra=("$@")
bin=build/neardup
if [ ! -x "$bin" ]; then
  echo "partition_plan: $bin not found: build it first (cmake --build build --target neardup_cli)" >&2
  exit 2
fi
echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores," \
     "$(free -g | awk '/Mem:/ {print $2}') GiB RAM; $(date -u +%Y-%m-%d)"

run() {
  local label=$1
  shift
  echo
  echo "### $label"
  echo
  echo "Command: neardup partition-plan INPUTS${extra[*]:+ ${extra[*]}} -q"
  echo '```'
  "$bin" partition-plan "$@" ${extra[@]+"${extra[@]}"} -q
  echo '```'
}

run "the sample crawl (tests/data/sample/sample-crawl.warc.gz)" tests/data/sample/sample-crawl.warc.gz

if [ -z "$data" ] || [ ! -d "$data" ]; then
  echo
  echo "partition_plan: no real-data folder (pass DATA_DIR or set NEARDUP_SHARED_DATA): skipping the WARC files and HTML pages"
  exit 0
fi
if [ -d "$data/warc" ]; then
  mapfile -t warcs < <(find "$data/warc" -type f \( -name '*.warc' -o -name '*.warc.gz' -o -name '*.arc' \
                        -o -name '*.arc.gz' -o -name '*.warc.wet.gz' \) | sort)
  if [ ${#warcs[@]} -gt 0 ]; then
    run "the ${#warcs[@]} WARC/ARC files under DATA_DIR/warc" "${warcs[@]}"
  else
    echo "partition_plan: no WARC file under DATA_DIR/warc: skipped"
  fi
else
  echo "partition_plan: DATA_DIR/warc not found: skipped"
fi
if [ -d "$data/html" ]; then
  run "the pages of DATA_DIR/html (a folder input)" "$data/html"
else
  echo "partition_plan: DATA_DIR/html not found: skipped"
fi
