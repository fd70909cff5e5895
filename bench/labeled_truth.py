#!/usr/bin/env python3
"""Writes a truth file for `neardup eval` from a labeled near-duplicate set.

    bench/labeled_truth.py DATASET_DIR > truth.tsv
    neardup dedup DATASET_DIR/raw_html --out out --method broder
    neardup eval --truth truth.tsv out

DATASET_DIR is a folder of shared/data/labeled (pairs.jsonl with `label` 1 =
near duplicate, 0 = not, and page_a/page_b `html_path`; pages stored as
html_path + ".gz"). Pages joined by a label-1 pair form one group (union of
the pairs); a page whose body was swapped for another article's joins that
article's group (labeled_crawl.join_swapped: its title names the article);
every other page is a group of its own. URLs are written as
`neardup dedup` names the files of a folder: DATASET_DIR/<html_path>.gz,
exactly as DATASET_DIR is given here.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from labeled_crawl import Groups, join_swapped, read_pairs  # noqa: E402


def main():
    base = sys.argv[1].rstrip("/")

    def key(page):
        return f"{base}/{page['html_path']}.gz"

    pairs = read_pairs(base)
    groups = Groups.of_pairs(pairs, key)
    join_swapped(base, pairs, groups, key)
    print("url\tgroup")
    for page in sorted(groups.parent):
        print(f"{page}\t{groups.find(page)}")


if __name__ == "__main__":
    main()
