#!/usr/bin/env python3
# Copyright neardup authors. Licensed under Apache-2.0.
"""Pages per second through the Python module against `neardup dedup`.

    python bench/python_throughput.py [--crawl CRAWL] [--pages 20000]
        [--method robust] [--threads 1,2] [--repeat 3] [--cli build/neardup]
        [--html-dir ../shared/data/html]

Runs, on the same crawl, for each thread count T, each --repeat times (the
best time is kept; runs of one kind alternate with the others):

  cli        neardup dedup CRAWL --out DIR --method M --threads T -q
             (read, sign, cluster, and write clusters.tsv, summary.json)
  reader     d = neardup.Deduper(M, threads=T); d.add_many(neardup.read(CRAWL));
             d.cluster()   (the reader's documents go straight to the library)
  dicts      the same, from a generator that turns every page read into a
             dict {"url", "html", "status", ...} in Python: what a program
             holding its pages as Python objects pays per page
  in-memory  add_many + cluster() on a list of those dicts made before the
             clock starts (no reading, no gunzip: the binding's conversion
             and the signing alone)

and prints a Markdown row per run: pages, seconds, pages/s, MB/s of HTML and
the share of the CLI's pages/s. Without --crawl, builds (once, cached in
build/bench-data/, as bench/e2e.sh does) a crawl of --pages pages with
build/bench/crawlgen from the real pages in --html-dir. Needs the module
installed (pip install --no-build-isolation .) and a Release build of the
CLI.
"""
import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import neardup

REPO = Path(__file__).resolve().parents[1]


def machine():
    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{cpu}, {os.cpu_count()} cores, {mem:.0f} GiB RAM; Python {platform.python_version()}"


def build_crawl(pages, html_dir):
    crawl = REPO / "build" / "bench-data" / f"crawl-{pages}-0.warc.gz"
    if crawl.is_file():
        return crawl
    gen = REPO / "build" / "bench" / "crawlgen"
    if not gen.is_file():
        sys.exit(f"python_throughput: no {gen}: build with scripts/build.sh, or pass --crawl")
    if not Path(html_dir).is_dir():
        sys.exit(f"python_throughput: {html_dir} not found: pass --html-dir with real HTML pages, or --crawl")
    crawl.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(gen), "--html-dir", str(html_dir), "--pages", str(pages), "--seed", "1",
                    "--max-page-bytes", "0", "--out", str(crawl)], check=True, stderr=subprocess.DEVNULL)
    return crawl


def as_dict(doc):
    return {"url": doc.url, doc.kind: doc.body, "status": doc.status, "redirect": doc.redirect,
            "fetched": doc.fetched, "content_type": doc.content_type, "charset": doc.charset}


def run_cli(cli, crawl, method, threads):
    out = tempfile.mkdtemp(prefix="neardup-bench-")
    try:
        t0 = time.perf_counter()
        subprocess.run([cli, "dedup", str(crawl), "--out", out, "--method", method, "--threads", str(threads),
                        "-q"], check=True)
        seconds = time.perf_counter() - t0
        with open(os.path.join(out, "summary.json")) as f:
            s = json.load(f)
        return s["documents_read"], seconds, s["payload_bytes"]
    finally:
        shutil.rmtree(out, ignore_errors=True)


def run_python(kind, crawl, method, threads, in_memory):
    d = neardup.Deduper(method, threads=threads)
    t0 = time.perf_counter()
    if kind == "reader":
        reader = neardup.read(str(crawl))
        d.add_many(reader)
        payload = reader.stats["payload_bytes"]
    elif kind == "dicts":
        reader = neardup.read(str(crawl))
        d.add_many(as_dict(doc) for doc in reader)
        payload = reader.stats["payload_bytes"]
    else:
        d.add_many(in_memory)
        payload = sum(len(x.get("html") or x.get("text")) for x in in_memory)
    c = d.cluster()
    seconds = time.perf_counter() - t0
    return len(c), seconds, payload


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--crawl", help="the crawl to run on (default: a crawlgen crawl of --pages pages)")
    p.add_argument("--pages", type=int, default=20000)
    p.add_argument("--html-dir", default=str(REPO.parent / "shared" / "data" / "html"))
    p.add_argument("--method", default="robust")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--cli", default=str(REPO / "build" / "neardup"))
    p.add_argument("--kinds", default="cli,reader,dicts,in-memory")
    args = p.parse_args()

    crawl = Path(args.crawl) if args.crawl else build_crawl(args.pages, args.html_dir)
    kinds = args.kinds.split(",")
    in_memory = [as_dict(doc) for doc in neardup.read(str(crawl))] if "in-memory" in kinds else None
    print(f"machine: {machine()}; neardup {neardup.__version__}; {time.strftime('%Y-%m-%d')}")
    print(f"crawl: {crawl.name}; method {args.method}; best of {args.repeat}")
    print()
    print("| path | threads | pages | seconds | pages/s | MB/s HTML | of the CLI's pages/s |")
    print("|---|---|---|---|---|---|---|")
    for threads in (int(t) for t in args.threads.split(",")):
        best = {}
        for _ in range(args.repeat):
            for kind in kinds:
                if kind == "cli":
                    r = run_cli(args.cli, crawl, args.method, threads)
                else:
                    r = run_python(kind, crawl, args.method, threads, in_memory)
                if kind not in best or r[1] < best[kind][1]:
                    best[kind] = r
        cli_rate = best["cli"][0] / best["cli"][1] if "cli" in best else None
        for kind in kinds:
            pages, seconds, payload = best[kind]
            rate = pages / seconds
            share = f"{100 * rate / cli_rate:.0f}%" if cli_rate else "-"
            print(f"| {kind} | {threads} | {pages:,} | {seconds:.2f} | {rate:,.0f} | {payload / 1e6 / seconds:.0f} | "
                  f"{share} |", flush=True)


if __name__ == "__main__":
    main()
