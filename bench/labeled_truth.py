#!/usr/bin/env python3
"""Writes a truth file for `neardup eval` from a labeled near-duplicate set.

    bench/labeled_truth.py DATASET_DIR > truth.tsv
    neardup dedup DATASET_DIR/raw_html --out out --method broder
    neardup eval --truth truth.tsv out

DATASET_DIR is a folder of shared/data/labeled (pairs.jsonl with `label` 1 =
near duplicate, 0 = not, and page_a/page_b `html_path`; pages stored as
html_path + ".gz"). Pages joined by a label-1 pair form one group (union of
the pairs); every other page is a group of its own. URLs are written as
`neardup dedup` names the files of a folder: DATASET_DIR/<html_path>.gz,
exactly as DATASET_DIR is given here.
"""
import json
import sys


def main():
    base = sys.argv[1].rstrip("/")
    parent = {}

    def find(x):
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for line in open(f"{base}/pairs.jsonl", encoding="utf-8"):
        p = json.loads(line)
        a = f"{base}/{p['page_a']['html_path']}.gz"
        b = f"{base}/{p['page_b']['html_path']}.gz"
        find(a)
        find(b)
        if p["label"] == 1:
            parent[find(a)] = find(b)
    print("url\tgroup")
    for page in sorted(parent):
        print(f"{page}\t{find(page)}")


if __name__ == "__main__":
    main()
