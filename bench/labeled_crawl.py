#!/usr/bin/env python3
"""Packs a labeled near-duplicate set into a crawl under its pages' real URLs,
and scores a dedup run on it per kind of pair.

    bench/labeled_crawl.py pack DATASET_DIR OUT.warc TRUTH.tsv
    neardup dedup OUT.warc --out RUN
    bench/labeled_crawl.py score DATASET_DIR RUN [--json] [--files]
    bench/labeled_crawl.py pack-folder HTML_DIR OUT.warc

DATASET_DIR is a folder of shared/data/labeled (pairs.jsonl: `label` 1 = near
duplicate, 0 = not; page_a/page_b with `url` and `html_path`, pages stored as
html_path + ".gz"). Every page becomes one WARC response record whose
target URI is the page's real URL with `?page=<file name>` appended, so the
pages of one article share a host, as they do on the web, yet each has a
URL of its own (`neardup eval` joins truth and clusters by URL). TRUTH.tsv
groups the pages joined by label-1 pairs; a page whose body was swapped for
another article's (its title names that article) joins that article's
group, as it is a copy of it in the same template.

`pack-folder` packs a folder of shared/data/html (its MANIFEST.tsv names
each file's URL) the same way, without labels, to see what a method makes
of real pages under their real hosts.

`score` reads RUN/clusters.tsv (of a run over the packed crawl; with
--files, of a run over DATASET_DIR/raw_html, pages named by file) and prints precision, recall and F1 over the
labeled pairs (a pair is predicted when the run puts both pages in one
cluster), then per kind of pair (`variant_type`) how many labeled pairs the
run put in one cluster: recall for the kinds labeled 1, wrongly merged pairs
for those labeled 0. Pairs the labels do not name are scored by `neardup
eval` with TRUTH.tsv.
"""
import collections
import gzip
import json
import os
import sys


def page_url(page):
    name = os.path.basename(page["html_path"])
    return f"{page['url']}?page={name}"


def read_pairs(base):
    with open(os.path.join(base, "pairs.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


class Groups:
    """Union-find over page keys: the truth groups of the label-1 pairs."""

    def __init__(self):
        self.parent = {}

    def find(self, x):
        parent = self.parent
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def join(self, a, b):
        self.parent[self.find(a)] = self.find(b)

    @staticmethod
    def of_pairs(pairs, key):
        g = Groups()
        for p in pairs:
            a, b = key(p["page_a"]), key(p["page_b"])
            g.find(a)
            g.find(b)
            if p["label"] == 1:
                g.join(a, b)
        return g


def join_swapped(base, pairs, groups, key):
    """A page whose body was swapped for another article's names that article
    in its title ("[SWAPPED from URL-PREFIX]", written by the set's
    generator): it carries that article's text in the same site template, a
    real copy of it, so the truth puts it in that article's group (the
    labelled pair with its own original stays a negative)."""
    articles = {}  # article URL -> a page of it
    for p in pairs:
        articles.setdefault(p["page_a"]["url"], key(p["page_a"]))
    for p in pairs:
        if p["variant_type"] != "full_content_swap":
            continue
        with gzip.open(os.path.join(base, p["page_b"]["html_path"] + ".gz"), "rb") as f:
            head = f.read(1 << 16).decode("utf-8", "replace")
        at = head.find("[SWAPPED from ")
        if at < 0:
            continue
        prefix = head[at + len("[SWAPPED from "):].split("]", 1)[0].strip()
        sources = [u for u in articles if u.startswith(prefix)] if prefix else []
        if len(sources) == 1:
            groups.join(key(p["page_b"]), articles[sources[0]])


def pack(base, out_warc, out_truth):
    pairs = read_pairs(base)
    pages = {}
    for p in pairs:
        pages[page_url(p["page_a"])] = p["page_a"]["html_path"]
        pages[page_url(p["page_b"])] = p["page_b"]["html_path"]
    groups = Groups.of_pairs(pairs, page_url)
    join_swapped(base, pairs, groups, page_url)
    find = groups.find
    with open(out_warc, "wb") as w:
        for n, url in enumerate(sorted(pages)):
            with gzip.open(os.path.join(base, pages[url] + ".gz"), "rb") as f:
                write_record(w, url, f.read(), n)
    with open(out_truth, "w", encoding="utf-8") as t:
        t.write("url\tgroup\n")
        for url in sorted(pages):
            t.write(f"{url}\t{find(url)}\n")


def pack_folder(folder, out_warc):
    """A folder of shared/data/html (MANIFEST.tsv with `file` and `url`) as
    one WARC under the pages' real URLs; pages without a URL are left out."""
    import csv
    with open(os.path.join(folder, "MANIFEST.tsv"), encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t") if r.get("url")]
    with open(out_warc, "wb") as w:
        for n, r in enumerate(rows):
            with gzip.open(os.path.join(folder, r["file"]), "rb") as f:
                write_record(w, r["url"], f.read(), n)


def write_record(w, url, body, n):
    http = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
            + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    head = (f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {url}\r\n"
            f"WARC-Date: 2026-01-01T00:00:00Z\r\n"
            f"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{n:012d}>\r\n"
            f"Content-Type: application/http; msgtype=response\r\n"
            f"Content-Length: {len(http)}\r\n\r\n").encode()
    w.write(head + http + b"\r\n\r\n")


def read_clusters(run):
    cluster = {}
    with open(os.path.join(run, "clusters.tsv"), encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        iu, ic = header.index("url"), header.index("cluster")
        for line in f:
            row = line.rstrip("\n").split("\t")
            cluster.setdefault(row[iu], row[ic])
    return cluster


def score(base, run, as_json, as_files=False):
    cluster = read_clusters(run)
    counts = collections.defaultdict(lambda: [0, 0, 0])  # label, together, pairs
    if as_files:  # the run read DATASET_DIR/raw_html: pages are named by file
        def key(page):
            return f"{base.rstrip('/')}/{page['html_path']}.gz"
    else:
        key = page_url
    for p in read_pairs(base):
        a, b = key(p["page_a"]), key(p["page_b"])
        c = counts[p["variant_type"]]
        c[0] = p["label"]
        c[2] += 1
        if a in cluster and cluster.get(a) == cluster.get(b):
            c[1] += 1
    result = {kind: {"label": c[0], "pairs": c[2], "together": c[1]} for kind, c in sorted(counts.items())}
    positives = sum(r["pairs"] for r in result.values() if r["label"] == 1)
    tp = sum(r["together"] for r in result.values() if r["label"] == 1)
    fp = sum(r["together"] for r in result.values() if r["label"] == 0)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / positives if positives else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    labeled = {"precision": precision, "recall": recall, "f1": f1}
    if as_json:
        print(json.dumps({"labeled_pairs": labeled, "kinds": result}))
        return
    print(f"labeled pairs: precision {precision:.4f} recall {recall:.4f} F1 {f1:.4f}")
    for kind, r in result.items():
        what = "recall" if r["label"] == 1 else "wrongly merged"
        print(f"{kind:28s} {what:15s} {r['together']:4d} / {r['pairs']:4d}  {r['together'] / r['pairs']:.3f}")


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "pack-folder":
        pack_folder(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 5 and sys.argv[1] == "pack":
        pack(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) >= 4 and sys.argv[1] == "score":
        score(sys.argv[2], sys.argv[3], "--json" in sys.argv[4:], "--files" in sys.argv[4:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
