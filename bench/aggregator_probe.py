#!/usr/bin/env python3
"""Adds an aggregator host to a labelled crawl: one exact copy of a page of
each of many sites, the way news aggregators, scrapers and archive hosts copy
single stories from many sources.

    python3 bench/aggregator_probe.py CRAWL.warc.gz TRUTH.tsv OUT.warc.gz OUT.tsv \
        [--sites 150] [--seed 7] [--host www.daily-digest-aggregator.com]

CRAWL.warc.gz and TRUTH.tsv are a `neardup synth` crawl and its truth (url,
group, kind; a group is SITE/PAGE). The output holds every record of the
crawl, then one copy of an `original` page of each of --sites sites drawn at
random, at http://HOST/item/N. Its truth is the input's with each copy in its
original's group (kind `aggregated`): a copy is a correct near duplicate of
its original and of nothing else. A method that holds on it makes the same
clusters of the crawl's own pages as without the copies, and adds each copy
to its original's cluster; its precision should be that of the crawl alone.

    neardup dedup OUT.warc.gz --out run && neardup eval --truth OUT.tsv run
"""
import argparse
import collections
import gzip
import random
import sys


def read_records(path):
    """(version line, header lines, block) of each WARC record, in order."""
    records = []
    with gzip.open(path, "rb") as f:
        while True:
            line = f.readline()
            if not line:
                return records
            if not line.strip():
                continue
            if not line.startswith(b"WARC/"):
                sys.exit(f"{path}: not a WARC record at '{line[:40]!r}'")
            headers = []
            while True:
                h = f.readline()
                if h in (b"\r\n", b"\n", b""):
                    break
                headers.append(h)
            length = [h for h in headers if h.lower().startswith(b"content-length:")]
            if not length:
                sys.exit(f"{path}: a record without Content-Length")
            block = f.read(int(length[0].split(b":", 1)[1]))
            records.append((line, headers, block))


def header(headers, name):
    for h in headers:
        key, _, value = h.partition(b":")
        if key.strip().lower() == name.lower():
            return value.strip().decode("utf-8", "replace")
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("crawl")
    ap.add_argument("truth")
    ap.add_argument("out")
    ap.add_argument("out_truth")
    ap.add_argument("--sites", type=int, default=150, help="sites the aggregator copies one page of")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--host", default="www.daily-digest-aggregator.com")
    args = ap.parse_args()

    with open(args.truth, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f][1:]
    truth = {row[0]: (row[1], row[2]) for row in rows}
    records = read_records(args.crawl)
    originals = collections.defaultdict(list)  # site -> its original pages' records
    for record in records:
        url = header(record[1], b"WARC-Target-URI")
        if url in truth and truth[url][1] == "original":
            originals[truth[url][0].split("/")[0]].append((url, record))
    rng = random.Random(args.seed)
    sites = sorted(originals)
    rng.shuffle(sites)
    chosen = sites[: args.sites]
    if not chosen:
        sys.exit(f"{args.truth}: no page of kind 'original' in the crawl")

    with gzip.open(args.out, "wb") as out, open(args.out_truth, "w", encoding="utf-8") as out_truth:
        for line, headers, block in records:
            out.write(line + b"".join(headers) + b"\r\n" + block + b"\r\n\r\n")
        out_truth.write("url\tgroup\tkind\n")
        for row in rows:
            out_truth.write("\t".join(row) + "\n")
        for n, site in enumerate(chosen):
            url, (line, headers, block) = rng.choice(originals[site])
            copy_url = f"http://{args.host}/item/{n}"
            copied = []
            for h in headers:
                key = h.partition(b":")[0].strip().lower()
                if key == b"warc-target-uri":
                    h = b"WARC-Target-URI: " + copy_url.encode() + b"\r\n"
                elif key == b"warc-record-id":
                    h = b"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-%012d>\r\n" % n
                copied.append(h)
            out.write(line + b"".join(copied) + b"\r\n" + block + b"\r\n\r\n")
            out_truth.write(f"{copy_url}\t{truth[url][0]}\taggregated\n")
    print(f"{len(records)} records; {len(sites)} sites with originals; copies of {len(chosen)} on {args.host}")


if __name__ == "__main__":
    main()
