#!/usr/bin/env python3
"""Checks a `neardup dedup` output against labeled near-duplicate pairs.

    bench/labeled_pairs.py PAIRS.jsonl DEDUP_OUT_DIR

PAIRS.jsonl is the labeled set of shared/data/labeled/<name>/ (lines with
`label` 1 = near duplicate, 0 = not, and page_a/page_b `html_path`); the
dedup run must have read that folder's raw_html/ (so clusters.tsv urls are
file paths ending in the html_path plus ".gz"). Prints, per variant type and
overall, how many labeled pairs landed in the same cluster.
"""
import collections
import json
import sys


def main():
    pairs_path, out_dir = sys.argv[1], sys.argv[2]
    cluster = {}
    with open(f"{out_dir}/clusters.tsv", encoding="utf-8") as f:
        next(f)
        for line in f:
            url, cid = line.rstrip("\n").split("\t")[:2]
            cluster[url] = cid

    def find(html_path):
        for url, cid in cluster.items():
            if url.endswith(html_path + ".gz") or url.endswith(html_path):
                return cid
        return None

    by_type = collections.defaultdict(lambda: [0, 0])  # [same cluster, total]
    tp = fp = fn = tn = 0
    for line in open(pairs_path, encoding="utf-8"):
        p = json.loads(line)
        a, b = find(p["page_a"]["html_path"]), find(p["page_b"]["html_path"])
        same = a is not None and a == b
        key = (p["variant_type"], p["label"])
        by_type[key][0] += same
        by_type[key][1] += 1
        if p["label"] == 1:
            tp += same
            fn += not same
        else:
            fp += same
            tn += not same
    print("variant_type\tlabel\tsame_cluster\tpairs")
    for (vt, label), (same, total) in sorted(by_type.items()):
        print(f"{vt}\t{label}\t{same}\t{total}")
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    print(f"pairs: {tp} true positives, {fp} false positives, {fn} missed; "
          f"precision {precision:.3f}, recall {recall:.3f}")


if __name__ == "__main__":
    main()
