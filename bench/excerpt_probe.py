#!/usr/bin/env python3
"""A probe of excerpts: real news articles of shared/data/html under their
real URLs, each of a sample beside a page that holds part of its text, as a
paginated story, a second part or a wire story's first page on another
paper shows it.

    bench/excerpt_probe.py HTML_DIR [--neardup BIN] [--method M]
                           [--work DIR] [--seed S] [--articles N]

HTML_DIR is shared/data/html. The crawl holds every page that
bench/real_pairs.py packs (1,823 real pages of news, blog, shop and
documentation sites under the URLs their manifests name) and, for N articles
drawn with seed S from those of l3s-gn1 and article-extraction-benchmark
with a real URL, 250 words or more and six paragraphs of eight words or
more in <p> elements, one excerpt of one of three kinds (in turn):

  - first part: the page with only its first paragraphs, those that hold
    40-70% of the paragraphs' words (drawn), at HOST/page/1/PATH;
  - last part: the page with only its last paragraphs, holding 40-70% of
    the words, at HOST/page/2/PATH;
  - elsewhere: the first paragraphs (40-70% of the words) in place of the
    paragraphs of another such article on another host (one whose <p>
    elements hold three quarters of its words or more; each lends its
    template once), under that page's template and the article's
    headline, at OTHER-HOST/wire/PATH.

Each excerpt is largely contained in its article, which also holds what
the excerpt lacks: a page Broder would call contained, and a pair graded 1
(one largely contains the other) by bench/labels/README.md. The run is
`neardup dedup --method M --threads 1`; an excerpt is found when it is in
its article's cluster, and wrongly merged when its cluster holds any other
page of the crawl but its article, the article's judged copies
(bench/labels/real-pairs.tsv, grade 1 or more) and their excerpts.
Printed: excerpts found by kind, excerpts wrongly merged, and the pairs of
the real pages in one cluster (as bench/news_revision_probe.py counts
them), which the excerpts must not add to.

The excerpts are constructed, not real: the probe measures one kind of
pair (containment across paragraph boundaries) on real pages and real
templates.
"""
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from labeled_crawl import read_clusters, write_record  # noqa: E402
from news_probe import draw_articles, packed_run, probe_args  # noqa: E402
from real_pairs import pages, text_words  # noqa: E402

PARAGRAPH = re.compile(r"<p(?:\s[^>]*)?>(.*?)</p>", re.S | re.I)
TAG = re.compile(r"<[^>]+>")
TITLE = re.compile(r"(<title[^>]*>)(.*?)(</title>)", re.S | re.I)
KINDS = ("first part", "last part", "elsewhere")


def paragraphs(html):
    """(start, end, words) of the page's <p> elements of 8 words or more."""
    out = []
    for m in PARAGRAPH.finditer(html):
        words = len(TAG.sub(" ", m.group(1)).split())
        if words >= 8:
            out.append((m.start(), m.end(), words))
    return out


def cut(paras, share, first):
    """The paragraphs, from the first (or back from the last), that hold
    `share` of their words, one at least and one fewer than all."""
    total = sum(w for _, _, w in paras)
    order = paras if first else paras[::-1]
    kept, words = [], 0
    for p in order:
        if kept and words >= share * total:
            break
        kept.append(p)
        words += p[2]
    if len(kept) == len(paras):
        kept.pop()
    return sorted(kept)


def keep_only(html, paras, kept):
    """The page without the paragraphs of `paras` not in `kept`."""
    drop = [p for p in paras if p not in kept]
    for start, end, _ in reversed(drop):
        html = html[:start] + html[end:]
    return html


def transplant(article, kept, host_html):
    """host_html with its paragraphs replaced by the article's kept ones and
    the article's headline."""
    host_paras = paragraphs(host_html)
    block = "\n".join(article[s:e] for s, e, _ in kept)
    at = host_paras[0][0]
    for start, end, _ in reversed(host_paras):
        host_html = host_html[:start] + host_html[end:]
    host_html = host_html[:at] + block + host_html[at:]
    title = TITLE.search(article)
    m = TITLE.search(host_html)
    if title and m:
        host_html = host_html[:m.start(2)] + title.group(2) + host_html[m.end(2):]
    return host_html


def host_of(url):
    return re.match(r"^https?://([^/]+)", url).group(1)


def pack(html_dir, out_warc, out_pairs, seed, articles):
    all_pages, texts, candidates, rng = draw_articles(html_dir, seed, lambda html: len(paragraphs(html)) >= 6)
    chosen = candidates[:articles]
    # Pages whose <p> elements hold most of their text (three quarters of
    # its words or more) lend their template to another's excerpt, each
    # once: what stays of their own text is template, not a second story.
    lenders = [(key, url) for key, url in candidates
               if sum(w for _, _, w in paragraphs(texts[key])) >= 0.75 * len(text_words(texts[key]))]
    with open(out_warc, "wb") as w, open(out_pairs, "w", encoding="utf-8") as pairs:
        n = 0
        for key, url, _ in all_pages:
            write_record(w, url, texts[key].encode("utf-8"), n)
            n += 1
        lent = set()  # each page lends its template once
        for i, (key, url) in enumerate(chosen):
            kind = KINDS[i % len(KINDS)]
            others = [(k, u) for k, u in lenders if host_of(u) != host_of(url) and k not in lent]
            if kind == "elsewhere" and not others:
                kind = "first part"
            html = texts[key]
            paras = paragraphs(html)
            share = rng.uniform(0.4, 0.7)
            kept = cut(paras, share, first=kind != "last part")
            if kind == "elsewhere":
                other_key, other_url = rng.choice(others)
                lent.add(other_key)
                body = transplant(html, kept, texts[other_key])
                excerpt_url = re.sub(r"^(https?://[^/]+)", r"\1/wire", other_url, count=1)
                excerpt_url += "?story=" + str(i)
            else:
                body = keep_only(html, paras, kept)
                page = "1" if kind == "first part" else "2"
                excerpt_url = re.sub(r"^(https?://[^/]+)", r"\1/page/" + page, url, count=1)
            write_record(w, excerpt_url, body.encode("utf-8"), n)
            n += 1
            pairs.write(f"{url}\t{excerpt_url}\t{kind}\n")
    return len(chosen)


def score(pairs_tsv, run, copies):
    cluster = read_clusters(run)
    rows = [line.rstrip("\n").split("\t") for line in open(pairs_tsv, encoding="utf-8")]
    excerpts = {b for _, b, _ in rows}
    members = collections.defaultdict(list)
    for url, c in cluster.items():
        members[c].append(url)
    found = collections.Counter()
    total = collections.Counter()
    wrong = 0
    excerpts_of = collections.defaultdict(set)
    for a, b, _ in rows:
        excerpts_of[a].add(b)
    for a, b, kind in rows:
        total[kind] += 1
        c = cluster.get(b)
        if c is not None and c == cluster.get(a):
            found[kind] += 1
        # Its article, the article's judged copies and their excerpts.
        allowed = {a} | copies.get(a, set())
        allowed |= {e for page in allowed for e in excerpts_of[page]}
        if c is not None and any(u not in allowed for u in members[c]):
            wrong += 1
    real_members = collections.defaultdict(list)
    for url, c in cluster.items():
        if url not in excerpts:
            real_members[c].append(url)
    real_merged = sum(len(m) * (len(m) - 1) // 2 for m in real_members.values())
    return found, total, wrong, real_merged


def judged_copies(html_dir):
    """URL -> URLs of the pages bench/labels/real-pairs.tsv grades 1 or more
    against it (a cluster holding them is no wrong merge)."""
    url = {key: u for key, u, _ in pages(html_dir)}
    labels = os.path.join(os.path.dirname(os.path.abspath(__file__)), "labels", "real-pairs.tsv")
    out = collections.defaultdict(set)
    with open(labels, encoding="utf-8") as f:
        next(f)
        for line in f:
            _, a, b, grade = line.rstrip("\n").split("\t")[:4]
            if int(grade) >= 1 and a in url and b in url:
                out[url[a]].add(url[b])
                out[url[b]].add(url[a])
    return out


def main():
    args = probe_args(__doc__)
    pairs, run = packed_run(args, "excerpts", pack)
    found, total, wrong, real_merged = score(pairs, run, judged_copies(args.html_dir))
    by_kind = ", ".join(f"{kind} {found[kind]} of {total[kind]}" for kind in KINDS)
    print(f"{args.method}: {sum(found.values())} of {sum(total.values())} excerpts found ({by_kind}); "
          f"{wrong} excerpts wrongly merged; {real_merged} pairs of the real pages in one cluster")


if __name__ == "__main__":
    main()
