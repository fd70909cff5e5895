#!/usr/bin/env python3
"""Builds a probe of installed and mirrored documentation: real manual pages
and copies of them on other hosts, each copy carrying the changes a server
makes to its own copy, with the truth of which page each copy is.

    bench/mirror_probe.py DOC_DIR OUT.jsonl TRUTH.tsv [--layout mirrors|single] [--seed 7]
                          [--judged FILE|none]
    neardup dedup OUT.jsonl --out RUN
    neardup eval RUN --truth TRUTH.tsv
    bench/mirror_probe.py DOC_DIR --pool CANDIDATES.tsv

DOC_DIR is a folder of HTML documentation (on Debian, /usr/share/doc holds a
few hundred pages of the installed packages' manuals: libxslt's two API
references, libffi's, expat's, node's API, GCC's release notes). Every page
of 3,000 bytes or more is an original at https://docs.example.org/PATH.
Copies go to other hosts with, each at random, a server signature line
(`Apache/2.4.x (Debian) Server at HOST Port 80`), the copyright year
changed, a sentence an older release carries, and a mirror banner naming
the host:

  --layout mirrors  150 mirror hosts, each holding a random share (2%, 10% or
                    30%) of the manual with its own signature, banner, year
                    and release; the sentence of a release is the same on
                    every mirror of that release.
  --layout single   every copy on a host of its own (a manual page installed
                    on many servers, one page crawled from each), 0 to 60
                    copies of a page, each with its own changes.

The truth groups an original with its copies, originals with the same
bytes (one file installed under two package names) together, and
originals judged to be one text (bench/labels/mirror-originals.tsv, grade
2 or 3: libxslt's `html/` and `gtk-doc/` renderings of one module's API
reference, libxslt's and libexslt's help pages; bench/labels/README.md
says how they were pooled and judged); `--judged none` leaves the judged
pairs apart, as the probe's truth was before. Pages of which one holds
another (grade 1: a manual on one page and its chapters) stay apart.

`--pool` writes the candidate pairs of originals the judged file was
made from: word 5-grams shared as bench/real_pairs.py pools them, and the
words the two share in runs of 8 or more (difflib) as a share of the
shorter and of the longer page; pairs whose shared words are half of the
longer page or more were judged.
"""
import argparse
import csv
import difflib
import hashlib
import json
import os
import random
import re
import sys

# The pool of candidate pairs, as the real page pairs were pooled.
from real_pairs import rare_gram_pairs, text_words

JUDGED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "labels", "mirror-originals.tsv")

SENTENCES = [
    "Note: this behaviour changed in release 1.1.{v}.",
    "This function is deprecated and will be removed in a future release.",
    "See the release notes of version 2.{v} for details.",
    "Thread safety: this call is not reentrant before version 3.{v}.",
]


def originals(doc_dir):
    for root, _, names in os.walk(doc_dir):
        for name in sorted(names):
            path = os.path.join(root, name)
            if name.endswith(".html") and os.path.isfile(path) and os.path.getsize(path) >= 3000:
                yield os.path.relpath(path, doc_dir), path


def pool(doc_dir, out_tsv):
    """The candidate pairs of originals (see --pool), one row a pair."""
    docs = []
    for rel, path in originals(doc_dir):
        with open(path, encoding="utf-8", errors="replace") as f:
            w = text_words(f.read())
        docs.append((rel, w, {" ".join(w[i:i + 5]) for i in range(len(w) - 4)}))
    rows = []
    for i, j in rare_gram_pairs([d[2] for d in docs]):
        a, b = docs[i], docs[j]
        short, long_ = sorted((len(a[1]), len(b[1])))
        if short < 0.5 * long_:
            continue  # a page under half the other's size cannot share half of it
        inter = len(a[2] & b[2])
        if not ((inter >= 15 and inter >= 0.25 * min(len(a[2]), len(b[2]))) or inter >= 25):
            continue
        sm = difflib.SequenceMatcher(None, a[1], b[1], autojunk=False)
        matched = sum(m.size for m in sm.get_matching_blocks() if m.size >= 8)
        rows.append((a[0], b[0], matched / short, matched / long_))
    with open(out_tsv, "w") as f:
        f.write("page_a\tpage_b\tshare_of_shorter\tshare_of_longer\tjudged\n")
        for a, b, ss, sl in sorted(rows, key=lambda r: -r[2]):
            f.write(f"{a}\t{b}\t{ss:.2f}\t{sl:.2f}\t{int(sl >= 0.5)}\n")
    print(f"mirror_probe: {len(docs)} originals, {len(rows)} candidate pairs, "
          f"{sum(r[3] >= 0.5 for r in rows)} to judge, in {out_tsv}", file=sys.stderr)


def judged_unions(path):
    """Pairs of originals (relative paths) judged one text (grade 2 or 3)."""
    if path == "none" or (path == JUDGED and not os.path.exists(path)):
        return []
    if not os.path.exists(path):
        sys.exit(f"mirror_probe: no judged pairs at {path}")
    with open(path) as f:
        return [(r["page_a"], r["page_b"]) for r in csv.DictReader(f, delimiter="\t") if int(r["grade"]) >= 2]


def add_sentence(html, sentence):
    ends = [m.end() for m in re.finditer(r"</p>", html)]
    if not ends:
        return html.replace("<body>", "<body><p>" + sentence + "</p>", 1)
    at = random.Random(sentence).choice(ends)
    return html[:at] + "<p>" + sentence + "</p>" + html[at:]


def server_changes(html, host, release, year, signature, banner, sentence):
    if sentence:
        html = add_sentence(html, sentence)
    if year:
        html = re.sub(r"(19|20)\d\d", str(year), html, count=2)
    if signature:
        line = f"<hr><address>Apache/2.4.{release + 50} (Debian) Server at {host} Port 80</address>"
        html = html.replace("</body>", line + "</body>", 1) if "</body>" in html else html + line
    if banner:
        note = f'<div class="mirror">This is a mirror of docs.example.org, updated daily. Mirror hosted by {host}.</div>'
        html = re.sub(r"(<body[^>]*>)", lambda m: m.group(1) + note, html, count=1)
    return html


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("doc_dir")
    ap.add_argument("out", nargs="?")
    ap.add_argument("truth", nargs="?")
    ap.add_argument("--layout", choices=["mirrors", "single"], default="mirrors")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--judged", default=JUDGED,
                    help="pairs of originals judged one text, joined in the truth (default: %(default)s); none: apart")
    ap.add_argument("--pool", metavar="CANDIDATES.tsv", help="write the candidate pairs of originals and stop")
    a = ap.parse_args()
    if a.pool:
        pool(a.doc_dir, a.pool)
        return
    if not a.out or not a.truth:
        ap.error("OUT.jsonl and TRUTH.tsv are required (or --pool)")
    # An original's group: the number of the first original of its set,
    # the sets joined by equal bytes and by the judged pairs (union-find
    # over "bytes:HASH" and "page:PATH" nodes).
    parent = {}

    def find(x):
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    def union(x, y):
        rx, ry = find(x), find(y)
        if rx != ry:
            parent[rx] = ry

    listed = list(originals(a.doc_dir))
    for rel, path in listed:
        with open(path, encoding="utf-8", errors="replace") as f:
            union("page:" + rel, "bytes:" + hashlib.sha1(f.read().encode()).hexdigest())
    for x, y in judged_unions(a.judged):
        union("page:" + x, "page:" + y)
    group_of_set = {}
    for number, (rel, _) in enumerate(listed):
        group_of_set.setdefault(find("page:" + rel), number)
    rng = random.Random(a.seed)
    mirrors = []
    for k in range(150):
        mirrors.append(dict(host=f"www.mirror{k}-{rng.randrange(10**6)}.{rng.choice(['net', 'org', 'com', 'de', 'fr'])}",
                            share=rng.choice([0.02, 0.1, 0.3]), signature=rng.random() < 0.5,
                            banner=rng.random() < 0.3, release=rng.randrange(4),
                            year=rng.choice([None, 2019, 2021, 2023])))
    pages = copies = 0
    with open(a.out, "w") as out, open(a.truth, "w") as truth:
        def write(url, html, group):
            out.write(json.dumps({"url": url, "html": html}) + "\n")
            truth.write(f"{url}\t{group}\n")

        for number, (rel, path) in enumerate(originals(a.doc_dir)):
            html = open(path, encoding="utf-8", errors="replace").read()
            group = group_of_set[find("page:" + rel)]
            write("https://docs.example.org/" + rel, html, group)
            pages += 1
            if a.layout == "mirrors":
                for m in mirrors:
                    if rng.random() >= m["share"]:
                        continue
                    sentence = None
                    if m["release"] > 0:  # an older release: the same sentence on each of its mirrors
                        r = random.Random(number * 10 + m["release"])
                        if r.random() < 0.5:
                            sentence = r.choice(SENTENCES).format(v=r.randrange(40))
                    copy = server_changes(html, m["host"], m["release"], m["year"], m["signature"], m["banner"], sentence)
                    write(f"http://{m['host']}/doc/{rel}", copy, group)
                    copies += 1
            else:
                n = rng.choice([0, 1, 2, 3, 5, 8, 20, 60]) if rng.random() < 0.7 else 0
                for _ in range(n):
                    host = f"mirror{rng.randrange(200)}.site{rng.randrange(100000)}.net"
                    sentence = rng.choice(SENTENCES).format(v=rng.randrange(40)) if rng.random() < 0.4 else None
                    copy = server_changes(html, host, rng.randrange(4), rng.randrange(1998, 2026) if rng.random() < 0.4 else None,
                                          rng.random() < 0.5, rng.random() < 0.3, sentence)
                    write(f"http://{host}/doc/{rel}", copy, group)
                    copies += 1
    if pages == 0:
        sys.exit(f"mirror_probe: no HTML page of 3,000 bytes or more under {a.doc_dir}")
    print(f"mirror_probe: {pages} originals, {copies} copies ({a.layout}) in {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
