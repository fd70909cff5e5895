#!/usr/bin/env python3
"""Builds a probe of installed and mirrored documentation: real manual pages
and copies of them on other hosts, each copy carrying the changes a server
makes to its own copy, with the truth of which page each copy is.

    bench/mirror_probe.py DOC_DIR OUT.jsonl TRUTH.tsv [--layout mirrors|single] [--seed 7]
    neardup dedup OUT.jsonl --out RUN
    neardup eval RUN --truth TRUTH.tsv

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

The truth groups an original with its copies, and originals with the same
bytes (one file installed under two package names) together. Its blind
spot: originals that are one text in two renderings or sections (libxslt's
`html/` and `gtk-doc/` references, a page that contains another) are
different groups here though a reader would call many of them near
duplicates, so precision reads low where a method joins them. Read its
recall, and the missed groups `neardup eval` lists.
"""
import argparse
import hashlib
import json
import os
import random
import re
import sys

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
    ap.add_argument("out")
    ap.add_argument("truth")
    ap.add_argument("--layout", choices=["mirrors", "single"], default="mirrors")
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    mirrors = []
    for k in range(150):
        mirrors.append(dict(host=f"www.mirror{k}-{rng.randrange(10**6)}.{rng.choice(['net', 'org', 'com', 'de', 'fr'])}",
                            share=rng.choice([0.02, 0.1, 0.3]), signature=rng.random() < 0.5,
                            banner=rng.random() < 0.3, release=rng.randrange(4),
                            year=rng.choice([None, 2019, 2021, 2023])))
    group_of_bytes = {}
    pages = copies = 0
    with open(a.out, "w") as out, open(a.truth, "w") as truth:
        def write(url, html, group):
            out.write(json.dumps({"url": url, "html": html}) + "\n")
            truth.write(f"{url}\t{group}\n")

        for number, (rel, path) in enumerate(originals(a.doc_dir)):
            html = open(path, encoding="utf-8", errors="replace").read()
            group = group_of_bytes.setdefault(hashlib.sha1(html.encode()).hexdigest(), number)
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
