#!/usr/bin/env python3
"""The labelled set of real page pairs (bench/labels/real-pairs.tsv): how its
candidates were pooled, the crawl its pages make, and a run's score on it.

    bench/real_pairs.py pool HTML_DIR CANDIDATES.tsv [--show FILE]
    bench/real_pairs.py pack HTML_DIR OUT.warc
    neardup dedup OUT.warc --out RUN
    bench/real_pairs.py score HTML_DIR RUN [--labels FILE] [--json]

HTML_DIR is shared/data/html. The pages are those of its folders in
SOURCES below (1,823 pages of 50 words or more): real news, blog, shop and
documentation pages, nearly all under the real URL their MANIFEST.tsv
names, so pages of one site share a host as they did when crawled. Nothing in them was edited: the near
duplicates are real copies (wire stories syndicated by several papers, one
page captured twice, a post republished on another blog) and the hard
negatives are real pages that share a site's or a CMS's template.

`pool` finds every candidate pair without comparing all pairs: pages are
split into lower-cased word 5-grams (tags, scripts and styles removed); a
pair that shares a 5-gram held by at most 25 pages is a candidate when it
shares 25 or more 5-grams, or 15 or more that are at least a quarter of the
smaller page's. For
each candidate it measures, with difflib, the words shared in runs of 8 or
more and the longest such run. Candidates sharing a fifth of the shorter
page's words in such runs, or a run of 80 words, were judged by reading
(`--show` writes what the judges read: titles, URLs, the shared runs and
the runs only one page has); the rest share only scattered phrases and are
different pages. Pairs outside the pool share fewer than 15 rare 5-grams:
they are counted as different pages too.

Grades (bench/labels/README.md has the whole rubric): 3 the same main
content, 2 the same main content with small real changes (a headline
rewritten, a sentence added, a syndicated copy with nearly all of the
article), 1 one largely contains the other (a shortened wire story, an
excerpt), 0 different main content. A pair is a near duplicate at grade 2
or more; grade-1 pairs count neither way in precision and recall and are
reported apart.

`score` reads RUN/clusters.tsv (of a run over the packed crawl) and prints
precision, recall and F1 over the judged pairs, the recall of each kind of
copy, the wrongly merged pairs of each kind of negative, and the merged
pairs nobody judged (pairs outside the pool or below the judging bar: all
different pages), which count as false positives in the all-pairs
precision.
"""
import collections
import csv
import difflib
import gzip
import html
import itertools
import json
import os
import re
import sys

# One WARC record a page, and a run's clusters by URL, as for STIA.
from labeled_crawl import read_clusters, write_record

SOURCES = ("article-extraction-benchmark", "l3s-gn1",
           "trafilatura-eval", "wceb-2026-sample")
LABELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "labels", "real-pairs.tsv")

_TAGS = re.compile(r"<(script|style|noscript|template)\b.*?</\1\s*>|<!--.*?-->|<[^>]*>", re.S | re.I)
_WORD = re.compile(r"\w+", re.U)


def pages(html_dir):
    """(key, url, path) of every page, in a fixed order; key is FOLDER/FILE.
    A page the manifest gives no URL is file:///FOLDER/FILE (no host: a site
    of its own); a URL met twice gets `#2`, `#3`... so every page has one."""
    seen = collections.Counter()
    out = []
    for source in SOURCES:
        manifest = os.path.join(html_dir, source, "MANIFEST.tsv")
        if not os.path.exists(manifest):
            continue
        with open(manifest, encoding="utf-8") as f:
            for row in csv.DictReader(f, delimiter="\t"):
                url, name = (row.get("url") or "").strip(), row["file"]
                if "/" in name or not name.endswith(".gz"):
                    continue
                url = url or f"file:///{source}/{name}"
                seen[url] += 1
                if seen[url] > 1:
                    url = f"{url}#{seen[url]}"
                out.append((f"{source}/{name}", url, os.path.join(html_dir, source, name)))
    return out


def text_words(text):
    """An HTML page's lower-cased words, tags, scripts, styles and comments removed."""
    return [w.lower() for w in _WORD.findall(html.unescape(_TAGS.sub(" ", text)))]


def words(path):
    data = gzip.open(path).read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return text_words(text)


def title(path):
    text = gzip.open(path).read().decode("utf-8", "replace")
    m = re.search(r"<title[^>]*>(.*?)</title>", text, re.S | re.I)
    return " ".join(html.unescape(m.group(1)).split())[:120] if m else ""


def rare_gram_pairs(gram_sets, max_holders=25):
    """The pairs (i, j), i < j, of gram_sets that share a gram which 2 to
    max_holders of the sets hold: the candidates of a pool, found without
    comparing all pairs."""
    df = collections.Counter()
    for grams in gram_sets:
        df.update(grams)
    postings = collections.defaultdict(list)
    for i, grams in enumerate(gram_sets):
        for g in grams:
            if 1 < df[g] <= max_holders:
                postings[g].append(i)
    pairs = set()
    for ids in postings.values():
        pairs.update(itertools.combinations(ids, 2))
    return sorted(pairs)


def pool(html_dir, out_tsv, show=None):
    docs = []
    for key, url, path in pages(html_dir):
        w = words(path)
        if len(w) >= 50:
            docs.append((key, url, path, w, {" ".join(w[i:i + 5]) for i in range(len(w) - 4)}))
    rows = []
    for i, j in rare_gram_pairs([d[4] for d in docs]):
        a, b = docs[i], docs[j]
        inter = len(a[4] & b[4])
        if not ((inter >= 15 and inter >= 0.25 * min(len(a[4]), len(b[4]))) or inter >= 25):
            continue
        sm = difflib.SequenceMatcher(None, a[3], b[3], autojunk=False)
        blocks = [m for m in sm.get_matching_blocks() if m.size >= 8]
        matched = sum(m.size for m in blocks)
        longest = max((m.size for m in blocks), default=0)
        judged = matched >= 0.2 * min(len(a[3]), len(b[3])) or longest >= 80
        rows.append((a[0], b[0], a[1], b[1], len(a[3]), len(b[3]), matched, longest, int(judged), blocks))
    rows.sort(key=lambda r: (r[0], r[1]))
    with open(out_tsv, "w", encoding="utf-8") as f:
        f.write("page_a\tpage_b\turl_a\turl_b\twords_a\twords_b\tshared_words\tlongest_run\tjudged\n")
        for r in rows:
            f.write("\t".join(map(str, r[:9])) + "\n")
    if show:
        by_key = {d[0]: d for d in docs}
        with open(show, "w", encoding="utf-8") as f:
            for r in rows:
                if r[8]:
                    write_shown(f, by_key[r[0]], by_key[r[1]], r[9])
    print(f"{len(docs)} pages, {len(rows)} candidate pairs, {sum(r[8] for r in rows)} to judge", file=sys.stderr)


def write_shown(f, a, b, blocks):
    mask_a, mask_b = [0] * len(a[3]), [0] * len(b[3])
    for m in blocks:
        mask_a[m.a:m.a + m.size] = [1] * m.size
        mask_b[m.b:m.b + m.size] = [1] * m.size

    def runs(w, mask, value):
        found, start = [], None
        for k in range(len(w) + 1):
            inside = k < len(w) and mask[k] == value
            if inside and start is None:
                start = k
            if not inside and start is not None:
                found.append((k - start, start))
                start = None
        return sorted(found, reverse=True)

    f.write(f"\n## {a[0]} {b[0]}  shared-words {sum(mask_a)}  share-of-A {sum(mask_a) / len(a[3]):.2f}"
            f"  share-of-B {sum(mask_b) / len(b[3]):.2f}\n")
    f.write(f"A: {a[1]}  ({len(a[3])} words)  title: {title(a[2])}\n")
    f.write(f"B: {b[1]}  ({len(b[3])} words)  title: {title(b[2])}\n")
    for name, w, mask, value in (("SHARED", a[3], mask_a, 1), ("ONLY-A", a[3], mask_a, 0), ("ONLY-B", b[3], mask_b, 0)):
        found = runs(w, mask, value)
        f.write(f"{name} ({sum(n for n, _ in found)} words in {len(found)} runs):\n")
        for n, s in sorted(found[:3], key=lambda x: x[1]):
            f.write(f"   [{n}w @{s}] {' '.join(w[s:s + min(n, 35)])}{' ...' if n > 35 else ''}\n")


def pack(html_dir, out_warc):
    with open(out_warc, "wb") as w:
        for n, (_, url, path) in enumerate(pages(html_dir)):
            write_record(w, url, gzip.open(path).read(), n)


def read_labels(path):
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def score(html_dir, run, labels_path, as_json):
    url_of = {key: url for key, url, _ in pages(html_dir)}
    cluster = read_clusters(run)
    members = collections.Counter(cluster.values())
    merged_pairs = sum(n * (n - 1) // 2 for n in members.values())
    kinds = collections.defaultdict(lambda: {"pairs": 0, "together": 0})
    tp = fp = positives = grade1_together = grade1 = judged_together = 0
    for row in read_labels(labels_path):
        a, b = url_of.get(row["page_a"]), url_of.get(row["page_b"])
        grade = int(row["grade"])
        together = a in cluster and b in cluster and cluster[a] == cluster[b]
        judged_together += together
        if grade == 1:
            grade1 += 1
            grade1_together += together
            continue
        k = kinds[("copy " if grade >= 2 else "different ") + row["kind"]]
        k["pairs"] += 1
        k["together"] += together
        if grade >= 2:
            positives += 1
            tp += together
        else:
            fp += together
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / positives if positives else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    unjudged = merged_pairs - judged_together
    all_precision = tp / (tp + fp + unjudged) if tp + fp + unjudged else 1.0
    # Graded sets that count every grade >= 1 as a positive (one page
    # largely containing the other is a near duplicate there).
    tp1, positives1 = tp + grade1_together, positives + grade1
    precision1 = tp1 / (tp1 + fp) if tp1 + fp else 1.0
    recall1 = tp1 / positives1 if positives1 else 1.0
    f1_1 = 2 * precision1 * recall1 / (precision1 + recall1) if precision1 + recall1 else 0.0
    result = {"judged_pairs": {"precision": precision, "recall": recall, "f1": f1, "positives": positives,
                               "true_positives": tp, "false_positives": fp},
              "grade1": {"pairs": grade1, "together": grade1_together},
              "grade1_positive": {"precision": precision1, "recall": recall1, "f1": f1_1},
              "unjudged_merged_pairs": unjudged, "all_pairs_precision": all_precision,
              "kinds": dict(sorted(kinds.items()))}
    if as_json:
        print(json.dumps(result))
        return
    print(f"judged pairs: precision {precision:.4f} recall {recall:.4f} F1 {f1:.4f} "
          f"({tp} of {positives} copies, {fp} wrong merges)")
    print(f"merged pairs nobody judged (different pages): {unjudged}; all-pairs precision {all_precision:.4f}")
    print(f"grade 1 (one largely contains the other): {grade1_together} of {grade1} together; "
          f"counted as copies (positive at grade >= 1): precision {precision1:.4f} recall {recall1:.4f} "
          f"F1 {f1_1:.4f}")
    for kind, k in result["kinds"].items():
        print(f"  {kind:34s} together {k['together']:4d} / {k['pairs']:4d}")


def main():
    args = sys.argv[1:]
    if len(args) >= 3 and args[0] == "pool":
        show = args[args.index("--show") + 1] if "--show" in args else None
        pool(args[1], args[2], show)
    elif len(args) >= 3 and args[0] == "pack":
        pack(args[1], args[2])
    elif len(args) >= 3 and args[0] == "score":
        labels = args[args.index("--labels") + 1] if "--labels" in args else LABELS
        score(args[1], args[2], labels, "--json" in args)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
