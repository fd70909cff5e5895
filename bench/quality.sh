#!/usr/bin/env bash
# The methods' quality table (README "Choosing a method"): every method on the
# benchmark `neardup synth` builds from real pages, and on the labeled pairs of
# real pages in shared/data/labeled/stia-near-duplicates, read as files (no
# URLs) and under their real URLs (bench/labeled_crawl.py: labelled-pair
# precision and recall, and recall per kind of change); and on the real page
# pairs this project judged (bench/real_pairs.py, bench/labels/real-pairs.tsv:
# real copies and real template-sharing pages of shared/data/html under their
# real URLs).
#
#   bench/quality.sh [--pool DIR] [--sites N] [--seed S] [--labeled DIR] [--real-pages DIR]
#
# --pool: real HTML pages for synth (default: shared/data/html beside the
# repository; the repository's sample crawl when that is absent). Prints a
# Markdown table: pairwise precision, recall and F1, B-cubed precision and
# recall, wrongly merged same-site pairs, and the run's speed (MB/s of HTML on
# one thread); a table per labelled set; and last one table of every
# method's pairwise F1 on every set of the run (README "Choosing a method").
set -euo pipefail
cd "$(dirname "$0")/.."
pool=../shared/data/html sites=300 seed=2 labeled=../shared/data/labeled/stia-near-duplicates
real_pages=../shared/data/html
while [ $# -gt 0 ]; do
  case $1 in
    --pool) pool=$2; shift 2 ;;
    --sites) sites=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --labeled) labeled=$2; shift 2 ;;
    --real-pages) real_pages=$2; shift 2 ;;
    *) echo "quality: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -e "$pool" ] || pool=tests/data/sample/sample-crawl.warc.gz
bash scripts/build.sh >/dev/null
work=build/quality
rm -rf "$work" && mkdir -p "$work"
: >"$work/f1.tsv"  # set, method, F1: the summary table at the end
./build/neardup synth "$pool" --out "$work/crawl.warc.gz" --truth "$work/truth.tsv" \
    --sites "$sites" --seed "$seed" 2>"$work/synth.log"
echo "benchmark: neardup synth $pool --sites $sites --seed $seed"
tail -n +1 "$work/synth.log" | sed 's/^/  /'
table() {  # input truth label
  local input=$1 truth=$2 label=$3
  echo
  echo "| $label | precision | recall | F1 | B-cubed P | B-cubed R | wrong same-site merges | MB/s (1 thread) |"
  echo "|---|---|---|---|---|---|---|---|"
  for method in exact broder simhash combined robust; do
    ./build/neardup dedup $input --out "$work/$method" --method "$method" --threads 1 -q
    ./build/neardup eval --truth "$truth" "$work/$method" --json >"$work/$method.eval.json"
    python3 - "$method" "$work/$method.eval.json" "$work/$method/summary.json" <<'PY'
import json, sys
method, ev, summ = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
a = ev["pairs"]
mbs = summ["payload_bytes"] / 1e6 / summ["seconds"]
print(f"| {method} | {a['precision']:.4f} | {a['recall']:.4f} | {a['f1']:.4f} | "
      f"{ev['bcubed_precision']:.4f} | {ev['bcubed_recall']:.4f} | "
      f"{ev['wrong_same_site_merges']} | {mbs:.0f} |")
PY
    python3 -c "import json,sys; print(sys.argv[1], sys.argv[2], json.load(open(sys.argv[3]))['pairs']['f1'], sep='\t')" \
        "$label" "$method" "$work/$method.eval.json" >>"$work/f1.tsv"
  done
}
table "$work/crawl.warc.gz" "$work/truth.tsv" "synth"
echo
echo "robust on synth, by kind of page, and its worst groups and clusters (neardup eval):"
echo '```'
./build/neardup eval --truth "$work/truth.tsv" "$work/robust" | sed -n '/^by kind/,$p'
echo '```'
if [ -d "$labeled" ]; then
  python3 bench/labeled_truth.py "$labeled" >"$work/labeled-truth.tsv"
  table "$labeled/raw_html" "$work/labeled-truth.tsv" "stia labeled"
  echo
  echo "| stia as files, labelled pairs | precision | recall | F1 | body swapped (merged) |"
  echo "|---|---|---|---|---|"
  for method in exact broder simhash combined robust; do
    python3 bench/labeled_crawl.py score "$labeled" "$work/$method" --json --files | python3 -c "
import json, sys
d = json.load(sys.stdin); l = d['labeled_pairs']; k = d['kinds'].get('full_content_swap', {})
print(f\"| $method | {l['precision']:.4f} | {l['recall']:.4f} | {l['f1']:.4f} | {k.get('together', 0)}/{k.get('pairs', 0)} |\")
print(f\"stia as files (labelled pairs)\t$method\t{l['f1']}\", file=open('$work/f1.tsv', 'a'))"
  done
  # The same pages under their real URLs (the pages of one article share a
  # host, as on the web), scored over the labelled pairs and per kind.
  python3 bench/labeled_crawl.py pack "$labeled" "$work/stia-urls.warc" "$work/stia-urls-truth.tsv"
  echo
  echo "| stia under real URLs | labelled-pair precision | recall | F1 | ad block | boilerplate replaced | minor edit | timestamp | URL only | body swapped (merged, must be 0) | pairwise P (all pages) | pairwise R |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
  for method in exact broder simhash combined robust; do
    ./build/neardup dedup "$work/stia-urls.warc" --out "$work/urls-$method" --method "$method" --threads 1 -q
    ./build/neardup eval --truth "$work/stia-urls-truth.tsv" "$work/urls-$method" --json >"$work/urls-$method.eval.json"
    python3 bench/labeled_crawl.py score "$labeled" "$work/urls-$method" --json >"$work/urls-$method.kinds.json"
    python3 - "$method" "$work/urls-$method.kinds.json" "$work/urls-$method.eval.json" "$work/f1.tsv" <<'PY'
import json, sys
method, kinds, ev = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
l, k = kinds["labeled_pairs"], kinds["kinds"]
def frac(name):
    return f"{k[name]['together']}/{k[name]['pairs']}" if name in k else "-"
print(f"| {method} | {l['precision']:.4f} | {l['recall']:.4f} | {l['f1']:.4f} | {frac('ad_block_injection')} | "
      f"{frac('boilerplate_only_diff')} | {frac('minor_content_edit')} | {frac('timestamp_swap')} | "
      f"{frac('url_difference_only')} | {frac('full_content_swap')} | {ev['pairs']['precision']:.4f} | {ev['pairs']['recall']:.4f} |")
print(f"stia under real URLs (labelled pairs)\t{method}\t{l['f1']}", file=open(sys.argv[4], "a"))
PY
  done
fi
if [ -d "$real_pages/l3s-gn1" ]; then
  # Real copies and real hard negatives, judged by reading (bench/labels/README.md).
  python3 bench/real_pairs.py pack "$real_pages" "$work/real.warc"
  echo
  echo "| real pairs (judged) | precision | recall | F1 | copies found | wrong merges (judged) | merged pairs nobody judged | grade-1 pairs together | P / R, grade 1 counted as copies | MB/s (1 thread) |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for method in exact broder simhash combined robust; do
    ./build/neardup dedup "$work/real.warc" --out "$work/real-$method" --method "$method" --threads 1 -q
    python3 bench/real_pairs.py score "$real_pages" "$work/real-$method" --json >"$work/real-$method.json"
    python3 - "$method" "$work/real-$method.json" "$work/real-$method/summary.json" "$work/f1.tsv" <<'PY'
import json, sys
method, r, summ = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
j = r["judged_pairs"]
mbs = summ["payload_bytes"] / 1e6 / summ["seconds"]
print(f"| {method} | {j['precision']:.4f} | {j['recall']:.4f} | {j['f1']:.4f} | {j['true_positives']}/{j['positives']} | "
      f"{j['false_positives']} | {r['unjudged_merged_pairs']} | {r['grade1']['together']}/{r['grade1']['pairs']} | "
      f"{r['grade1_positive']['precision']:.4f} / {r['grade1_positive']['recall']:.4f} | {mbs:.0f} |")
print(f"real pairs (judged)\t{method}\t{j['f1']}", file=open(sys.argv[4], "a"))
print(f"real pairs (judged, grade 1 counted as copies)\t{method}\t{r['grade1_positive']['f1']}", file=open(sys.argv[4], "a"))
PY
  done
  echo
  echo "robust on the real pairs, by kind:"
  python3 bench/real_pairs.py score "$real_pages" "$work/real-robust" | sed 's/^/  /'
fi
# One table: F1 of every method on every set of this run, the best in bold.
echo
python3 - "$work/f1.tsv" "$seed" <<'PY'
import collections, sys
f1 = collections.OrderedDict()
for line in open(sys.argv[1]):
    label, method, value = line.rstrip("\n").split("\t")
    if label == "synth":
        label = f"synth seed {sys.argv[2]}"
    elif label == "stia labeled":
        label = "stia as files (all pairs)"
    f1.setdefault(label, {})[method] = float(value)
methods = ["exact", "broder", "simhash", "combined", "robust"]
print("| pairwise F1 | " + " | ".join(methods) + " |")
print("|---" * (len(methods) + 1) + "|")
for label, row in f1.items():
    best = max(row.values())
    cells = [(f"**{row[m]:.4f}**" if row[m] == best else f"{row[m]:.4f}") if m in row else "-" for m in methods]
    print(f"| {label} | " + " | ".join(cells) + " |")
PY
