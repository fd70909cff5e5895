"""What the probes built on the judged real pages share
(bench/news_revision_probe.py, bench/excerpt_probe.py): reading a page of
shared/data/html, their command line, and packing the crawl once and
running `neardup dedup --method M --threads 1` over it."""
import argparse
import gzip
import os
import random
import re
import subprocess
import sys
import tempfile

from real_pairs import pages, text_words

# The news sources whose articles the probes draw.
SOURCES = ("l3s-gn1", "article-extraction-benchmark")


def load(path):
    """A gzipped page's text: UTF-8, else Latin-1."""
    data = gzip.open(path).read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def draw_articles(html_dir, seed, enough):
    """The real pages bench/real_pairs.py packs ((key, url, path), in order),
    their texts by key, the articles of SOURCES with a real URL, 250 words
    or more and enough(html) as (key, url) shuffled by a generator of `seed`,
    and the generator."""
    rng = random.Random(seed)
    all_pages = pages(html_dir)
    texts = {key: load(path) for key, _, path in all_pages}
    candidates = [(key, url) for key, url, _ in all_pages
                  if key.split("/")[0] in SOURCES and url.startswith("http")
                  and enough(texts[key]) and len(text_words(texts[key])) >= 250]
    rng.shuffle(candidates)
    return all_pages, texts, candidates, rng


def probe_args(doc):
    """The probes' command line: HTML_DIR [--neardup BIN] [--method M]
    [--work DIR] [--seed S] [--articles N]."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("html_dir")
    ap.add_argument("--neardup", default=os.path.join(os.path.dirname(__file__), "..", "build", "neardup"))
    ap.add_argument("--method", default="robust")
    ap.add_argument("--work", default=None, help="folder for the crawl and the run (default: a temporary one)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--articles", type=int, default=120)
    return ap.parse_args()


def packed_run(args, name, pack):
    """Packs NAME-SEED.warc and its pairs NAME-SEED.tsv in the work folder
    with pack(html_dir, warc, tsv, seed, articles) unless they are there,
    runs dedup over the crawl; returns (the pairs' path, the run's folder)."""
    if not os.path.isdir(os.path.join(args.html_dir, "l3s-gn1")):
        sys.exit(f"{name} probe: {args.html_dir} has no l3s-gn1 folder (shared/data/html is needed)")
    work = args.work or tempfile.mkdtemp(prefix=name + "-")
    os.makedirs(work, exist_ok=True)
    warc = os.path.join(work, f"{name}-{args.seed}.warc")
    pairs = os.path.join(work, f"{name}-{args.seed}.tsv")
    if not (os.path.exists(warc) and os.path.exists(pairs)):
        pack(args.html_dir, warc, pairs, args.seed, args.articles)
    run = os.path.join(work, "run-" + re.sub(r"[^A-Za-z0-9]+", "-", args.method))
    subprocess.run([args.neardup, "dedup", warc, "--out", run, "--method", args.method, "--threads", "1", "-q"],
                   check=True)
    return pairs, run
