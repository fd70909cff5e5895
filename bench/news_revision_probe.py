#!/usr/bin/env python3
"""A probe of revised news articles on their own host: real articles of
shared/data/html under their real URLs, each of a sample beside its revision
at another URL of the same host, as a site that updates a story shows it.

    bench/news_revision_probe.py HTML_DIR [--neardup BIN] [--method M]
                                 [--work DIR] [--seed S] [--articles N]

HTML_DIR is shared/data/html. The crawl holds every page that
bench/real_pairs.py packs (1,823 real pages of news, blog, shop and
documentation sites under the URLs their manifests name) and, for N articles
drawn with seed S from those of l3s-gn1 and article-extraction-benchmark
with a real URL, 250 words or more and four sentences or more in plain <p>
elements, a revision under http(s)://HOST/updated/PATH:

  - the headline rewritten: each word of the <title> kept or, with even
    odds, replaced by a word of another article's sentence;
  - one sentence of 10-30 words in a <p> replaced by another article's;
  - a correction appended after the page's last </p>: "Correction: " and
    another article's sentence, then "An earlier version of this story
    misstated it."

Most of these hosts have one page in the crawl, so the article and its
revision are the only two pages of their site: the case where a site's
template and its item cannot be told apart from the site alone. The run is
`neardup dedup --method M --threads 1`; a revision is found when it is in its
article's cluster. Printed: revisions found, and the merges among the real
pages themselves (pairs of different real pages in one cluster, beside the
real copies bench/labels/real-pairs.tsv lists), which the revisions must not
add to.

The revisions are constructed, not real: the probe measures one kind of
change (Henzinger would not call it a correct near duplicate: the headline
and the correction are visible) on real pages and real templates, and no
parameter was chosen on it.
"""
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from labeled_crawl import read_clusters, write_record  # noqa: E402
from news_probe import draw_articles, packed_run, probe_args  # noqa: E402
SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
PARAGRAPH = re.compile(r"<p[^>]*>(.*?)</p>", re.S | re.I)
TITLE = re.compile(r"(<title[^>]*>)(.*?)(</title>)", re.S | re.I)


def sentences(html):
    """The sentences of 10 to 30 words of the page's plain <p> elements."""
    out = []
    for m in PARAGRAPH.finditer(html):
        if "<" in m.group(1):
            continue
        out.extend(s for s in SENTENCE_BREAK.split(m.group(1)) if 10 <= len(s.split()) <= 30)
    return out


def revise(html, other_sentences, rng):
    m = TITLE.search(html)
    if m:
        borrowed = rng.choice(other_sentences).split()
        words = [w if rng.random() < 0.5 else rng.choice(borrowed) for w in m.group(2).split()]
        html = html[:m.start(2)] + " ".join(words) + html[m.end(2):]
    html = html.replace(rng.choice(sentences(html)), rng.choice(other_sentences), 1)
    ends = [m.end() for m in re.finditer(r"</p>", html, re.I)]
    at = ends[-1] if ends else max(html.find("</body>"), 0)
    correction = ("<p>Correction: " + rng.choice(other_sentences) +
                  " An earlier version of this story misstated it.</p>")
    return html[:at] + correction + html[at:]


def pack(html_dir, out_warc, out_pairs, seed, articles):
    all_pages, texts, candidates, rng = draw_articles(html_dir, seed, lambda html: len(sentences(html)) >= 4)
    chosen = candidates[:articles]
    pool = [s for key, _ in candidates for s in sentences(texts[key])]
    with open(out_warc, "wb") as w, open(out_pairs, "w", encoding="utf-8") as pairs:
        n = 0
        for key, url, _ in all_pages:
            write_record(w, url, texts[key].encode("utf-8"), n)
            n += 1
        for key, url in chosen:
            revised_url = re.sub(r"^(https?://[^/]+)", r"\1/updated", url, count=1)
            write_record(w, revised_url, revise(texts[key], pool, rng).encode("utf-8"), n)
            n += 1
            pairs.write(f"{url}\t{revised_url}\n")
    return len(chosen)


def score(pairs_tsv, run):
    cluster = read_clusters(run)
    pairs = [line.rstrip("\n").split("\t") for line in open(pairs_tsv, encoding="utf-8")]
    found = sum(1 for a, b in pairs if cluster.get(a) is not None and cluster.get(a) == cluster.get(b))
    revised = {b for _, b in pairs}
    members = collections.defaultdict(list)
    for url, c in cluster.items():
        if url not in revised:
            members[c].append(url)
    real_merged = sum(len(m) * (len(m) - 1) // 2 for m in members.values())
    return found, len(pairs), real_merged


def main():
    args = probe_args(__doc__)
    pairs, run = packed_run(args, "news-revisions", pack)
    found, total, real_merged = score(pairs, run)
    print(f"{args.method}: {found} of {total} revisions found; "
          f"{real_merged} pairs of the real pages in one cluster")


if __name__ == "__main__":
    main()
