#!/usr/bin/env python3
# Copyright neardup authors. Licensed under Apache-2.0.
"""cluster_crawl.py: the neardup Python module in one page (the twin of
cluster_crawl.cc). Reads crawls (WARC/ARC, folders of HTML files, JSON
Lines: whatever `neardup dedup` reads), finds exact and near-duplicate pages
with the default method, and prints one line per page:

    url <TAB> cluster <TAB> url of the page its cluster keeps

Usage: python examples/cluster_crawl.py INPUT...   (after pip install .)
"""
import sys

import neardup


def main(inputs):
    # The Deduper keeps no URL or body: keep the URLs here, indexed by id
    # (ids are 0, 1, 2, ... in the order the pages are added).
    urls = []

    def pages():
        for doc in neardup.read(inputs):  # doc.url, doc.html or doc.text, doc.status, ...
            urls.append(doc.url)
            yield doc

    d = neardup.Deduper(method="robust")  # every core signs pages
    d.add_many(pages())
    c = d.cluster()
    for i, url in enumerate(urls):
        print(f"{url}\t{c.cluster_of(i)}\t{urls[c.keeper_of(i)]}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(f"usage: {sys.argv[0]} INPUT...")
    try:
        main(sys.argv[1:])
    except neardup.Error as e:  # e.g. neardup.FileError: nothing could be read
        sys.exit(f"cluster_crawl: {e}")
