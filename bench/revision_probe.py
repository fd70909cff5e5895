#!/usr/bin/env python3
"""A probe of revisions on small sites: a page and its revision (one sentence
rewritten, a year changed) among a few other pages of the same manual on one
host, as a recrawl or a print version of a page shows it.

    bench/revision_probe.py DOC_DIR [--neardup BIN] [--method M] [--work DIR]
                            [--revisions K] [--sizes 3,5,10,20]

DOC_DIR is a folder of HTML documentation (on Debian, /usr/share/doc). Each
folder under it holding 10 or more HTML pages with two sentences or more is a
manual; for each manual, site size N in 3, 5, 10, 20 (up to its pages) and
seed 1 to 3, one
crawl (JSON Lines) holds N pages of the manual drawn at random under
http://docs.example.org/m/FILE and the revision of the first of them under
http://docs.example.org/m/print/FILE: one sentence of 10 to 25 words replaced
by a sentence of another page of the manual, and the first year (1980-2029)
in the page one later. `neardup dedup --method M --threads 1` runs on each
crawl; the probe counts the revisions found (in the cluster of their page)
and the pages put in a cluster with any other page of the crawl (wrong
merges, since the manual's pages are distinct pages). With --revisions K the
page has K revisions, each its own sentence replaced (under /print/, /v2/,
/v3/...: a page with its print and mobile versions and recrawls on its site),
and a case is found when all K are in the page's cluster.

Its blind spot: the pages of one manual share one template, so it says
nothing of a host whose pages share none (pages of other sites copied to
one host), where a page's template and its item cannot be told apart.
"""
import argparse
import collections
import csv
import glob
import json
import os
import random
import re
import subprocess
import sys
import tempfile

SENTENCE = re.compile(r"[A-Z][^.<>!?]{40,200}\.")
TEXT_NODE = re.compile(r">([^<]{60,})<")
YEAR = re.compile(r"\b(19[89]\d|20[0-2]\d)\b")


def sentences(html):
    """(begin, end, text) of the sentences of 10 to 25 words in text nodes."""
    out = []
    for node in TEXT_NODE.finditer(html):
        for s in SENTENCE.finditer(node.group(1)):
            if 10 <= len(s.group(0).split()) <= 25:
                out.append((node.start(1) + s.start(), node.start(1) + s.end(), s.group(0)))
    return out


def manuals(doc_dir):
    by_dir = collections.defaultdict(list)
    for path in sorted(glob.glob(os.path.join(doc_dir, "**", "*.html"), recursive=True)):
        if not os.path.isfile(path):
            continue
        by_dir[os.path.dirname(path)].append(path)
    for folder, paths in sorted(by_dir.items()):
        pages = []
        for p in paths:
            with open(p, encoding="latin-1") as f:
                html = f.read()
            if len(sentences(html)) >= 2:
                pages.append((os.path.basename(p), html))
        if len(pages) >= 10:
            yield folder, pages


def build_case(pages, n, seed, out_path, revisions=1):
    """Writes the crawl; returns the page's URL and its revisions' URLs."""
    rnd = random.Random(seed)
    chosen = list(pages)
    rnd.shuffle(chosen)
    chosen = chosen[:n]
    name, target = chosen[0]
    revision_urls = []
    with open(out_path, "w") as f:
        for file_name, html in chosen:
            f.write(json.dumps({"url": "http://docs.example.org/m/" + file_name, "html": html}) + "\n")
        for v in range(revisions):
            s = rnd.choice(sentences(target))
            r = rnd.choice(sentences(chosen[1 + v % (n - 1)][1]))
            revised = YEAR.sub(lambda m: str(int(m.group(1)) + 1), target[: s[0]] + r[2] + target[s[1]:], count=1)
            url = "http://docs.example.org/m/" + ("print/" if v == 0 else f"v{v + 1}/") + name
            f.write(json.dumps({"url": url, "html": revised}) + "\n")
            revision_urls.append(url)
    return "http://docs.example.org/m/" + name, revision_urls


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("doc_dir")
    ap.add_argument("--neardup", default=os.path.join(os.path.dirname(__file__), "..", "build", "neardup"))
    ap.add_argument("--method", default="robust")
    ap.add_argument("--work", default=None, help="folder for the crawls and runs (default: a temporary one)")
    ap.add_argument("--revisions", type=int, default=1,
                    help="revisions of the page, each its own sentence replaced (a page with several versions on "
                    "its site: print, mobile, recrawls); a case is found when all are in the page's cluster")
    ap.add_argument("--sizes", default="3,5,10,20", help="pages of the manual on the host, comma-separated")
    args = ap.parse_args()
    scratch = None if args.work else tempfile.TemporaryDirectory(prefix="revision-probe-")
    work = args.work or scratch.name
    os.makedirs(work, exist_ok=True)
    found = cases = wrong = 0
    missed = []
    for folder, pages in manuals(args.doc_dir):
        for n in (int(x) for x in args.sizes.split(",")):
            if n > len(pages) or n < 2:
                continue
            for seed in (1, 2, 3):
                crawl = os.path.join(work, "crawl.jsonl")
                page, revision_urls = build_case(pages, n, seed, crawl, args.revisions)
                run = os.path.join(work, "run")
                subprocess.run([args.neardup, "dedup", crawl, "--out", run, "--method", args.method,
                                "--threads", "1", "--quiet"], check=True)
                with open(os.path.join(run, "clusters.tsv")) as f:
                    cluster = {r["url"]: r["cluster"] for r in csv.DictReader(f, delimiter="\t")}
                cases += 1
                if all(cluster.get(page) == cluster.get(u) for u in revision_urls):
                    found += 1
                else:
                    missed.append(f"{os.path.relpath(folder, args.doc_dir)} N={n} seed={seed}")
                members = collections.Counter(cluster.values())
                wrong += sum(1 for u, c in cluster.items() if members[c] > 1 and u != page and u not in revision_urls)
    print(f"{args.method}: {found} of {cases} revisions found; {wrong} other pages in a cluster")
    for m in missed:
        print(f"  missed: {m}")
    return 0 if cases > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
