#!/usr/bin/env python3
"""Adds servers' common pages to a labelled crawl: for every host of a
truth file (neardup synth --truth, bench/labeled_crawl.py pack), the same
error pages a web server answers on any host (a missing page, and with
--pages 2 a forbidden one too), the host's name in them. A crawl of real
hosts holds such pages; they are not in the truth, so `neardup eval`
leaves them out, and the figures show what they do to the rest.

    bench/common_pages.py TRUTH.tsv OUT.jsonl [--pages 1|2]
    neardup dedup CRAWL OUT.jsonl --out RUN && neardup eval RUN --truth TRUTH.tsv
"""
import argparse
import csv
import json
import sys
import urllib.parse

PAGES = [
    ("missing.html", "404 Not Found", "Not Found", "The requested URL was not found on this server."),
    ("private/", "403 Forbidden", "Forbidden", "You don't have permission to access this resource."),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("truth")
    ap.add_argument("out")
    ap.add_argument("--pages", type=int, choices=(1, 2), default=1)
    args = ap.parse_args()
    hosts = set()
    with open(args.truth, newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            u = urllib.parse.urlsplit(row["url"])
            if u.netloc:
                hosts.add((u.scheme or "http", u.netloc))
    if not hosts:
        print(f"{args.truth}: no host in its url column", file=sys.stderr)
        return 1
    with open(args.out, "w") as out:
        for scheme, host in sorted(hosts):
            for path, title, heading, text in PAGES[: args.pages]:
                html = (f"<html><head><title>{title}</title></head><body><h1>{heading}</h1><p>{text}</p><hr>"
                        f"<address>Apache/2.4.57 (Debian) Server at {host} Port 80</address></body></html>")
                out.write(json.dumps({"url": f"{scheme}://{host}/{path}", "html": html}) + "\n")
    print(f"{len(hosts)} hosts, {len(hosts) * args.pages} pages", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
