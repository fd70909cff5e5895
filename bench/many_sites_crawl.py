#!/usr/bin/env python3
"""Builds a crawl of many small sites, for timing what is done site by site
(the robust method's template learning), where the crawls of bench/e2e.sh
are one site group (their exact copies across hosts join every host).

    bench/many_sites_crawl.py HTML_DIR OUT.jsonl [--hosts 1500] [--pages 40]
                              [--max-page-bytes 8192] [--seed 5]
    neardup dedup OUT.jsonl --threads N

HTML_DIR holds real pages (.html or .html.gz, as shared/data/html does).
Each host http://hostH.example/ gets one real page of 3,000 bytes or more,
cut to --max-page-bytes, and --pages versions of it, each with 35% of the
words of its text nodes replaced by words of a random vocabulary: the pages
of a host share its template (the page's markup and the words kept), no
two hosts share anything, and no page is a copy of another.
"""
import argparse
import glob
import gzip
import json
import os
import random
import re
import sys

TEXT_NODE = re.compile(r"(?<=>)([^<]+)(?=<)")


def read_page(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        return f.read().decode("latin-1")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("html_dir")
    ap.add_argument("out")
    ap.add_argument("--hosts", type=int, default=1500)
    ap.add_argument("--pages", type=int, default=40, help="pages a host")
    ap.add_argument("--max-page-bytes", type=int, default=8192)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    files = sorted(glob.glob(os.path.join(args.html_dir, "**", "*.html"), recursive=True) +
                   glob.glob(os.path.join(args.html_dir, "**", "*.html.gz"), recursive=True))
    files = [f for f in files if os.path.getsize(f) >= 3000]
    if not files:
        print(f"many_sites_crawl: no page of 3,000 bytes or more under {args.html_dir}", file=sys.stderr)
        return 1
    vocab = ["".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rnd.randint(3, 9)))
             for _ in range(5000)]

    def replace_words(match):
        return " ".join(rnd.choice(vocab) if rnd.random() < 0.35 else w for w in match.group(1).split(" "))

    with open(args.out, "w") as out:
        for h in range(args.hosts):
            page = read_page(rnd.choice(files))[: args.max_page_bytes]
            for i in range(args.pages):
                html = TEXT_NODE.sub(replace_words, page)
                out.write(json.dumps({"url": f"http://host{h}.example/p/{i}", "html": html}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
