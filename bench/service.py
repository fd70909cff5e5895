#!/usr/bin/env python3
"""Measures the incremental service (`neardup serve`) against the batch job,
as Zhu et al. measure their two-tier scheme, and prints Markdown for
bench/RESULTS.md:

  1. accuracy of the incremental path (their Table 1): successive crawls of
     `neardup synth-web` ingested one after the other, pages missing from the
     last crawl deleted, the store exported, and its near-duplicate pairs
     compared with `neardup dedup` on the last crawl: relative error in
     precision and in recall;
  2. tier 1's share (their Figure 8): recrawled pages decided without tier 2;
  3. throughput: pages/s ingested in batches of 1,000 from several
     concurrent clients (a bounded load: each chunk's pages once), against
     `dedup --threads 1` on the same pages, and the server's peak memory;
     and `neardup ingest` end to end from the first chunk's WARC;
  4. incremental vs from scratch (their Figure 7): time per added page as the
     store grows, against re-running `dedup` on everything so far;
  5. latency: p50/p99 of single-page checks and lookups from several
     concurrent clients at the final store size;
  6. crash safety: tests/service_crash.py with --kills kills.

    bench/service.py --pages 100000 [--chunks 4] [--html-dir DIR] [--kills 20]

Only 127.0.0.1 is contacted, every load is a fixed number of requests, and
everything stops by itself.
"""
import argparse
import glob
import gzip
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise SystemExit(f"service bench: {' '.join(cmd)} failed:\n{r.stderr[-2000:]}")
    return r


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(port, method, path, body=None, timeout=600):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body, method=method,
                                 headers={"Content-Type": "application/x-ndjson"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.read().decode()


class Server:
    def __init__(self, cli, store, log, method="simhash"):
        self.port = free_port()
        self.proc = subprocess.Popen([cli, "serve", "--store", store, "--listen", f"127.0.0.1:{self.port}",
                                      "--method", method], stdout=log, stderr=log)
        for _ in range(600):
            try:
                http(self.port, "GET", "/healthz", timeout=2)
                return
            except OSError:
                if self.proc.poll() is not None:
                    raise SystemExit("service bench: neardup serve did not start")
                time.sleep(0.05)
        raise SystemExit("service bench: neardup serve did not answer")

    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def stats(self):
        return json.loads(http(self.port, "GET", "/v1/stats"))

    def peak_rss_mb(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        return 0

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=120)


def ingest(cli, server, inputs, batch=1000):
    t0 = time.time()
    run([cli, "ingest", *inputs, "--server", server.url(), "--batch", str(batch), "-q"])
    return time.time() - t0


def load(server, ndjson, clients=2, batch=1000):
    """Sends the NDJSON file's lines as POST /v1/pages requests of `batch`
    lines from `clients` concurrent connections (a fixed number of requests;
    stops by itself). Returns the seconds from the first request to the last
    answer."""
    import http.client
    import queue
    with open(ndjson, "rb") as f:
        lines = [l for l in f.read().split(b"\n") if l]
    batches = queue.Queue()
    for i in range(0, len(lines), batch):
        batches.put(b"\n".join(lines[i:i + batch]) + b"\n")
    del lines
    failures = []

    def client():
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=600)
        while not failures:
            try:
                body = batches.get_nowait()
            except queue.Empty:
                return
            conn.request("POST", "/v1/pages", body=body, headers={"Content-Type": "application/x-ndjson"})
            r = conn.getresponse()
            answer = r.read()
            if r.status != 200 or answer.count(b"\n") != body.count(b"\n"):
                failures.append(f"status {r.status}: {answer[:200]!r}")

    t0 = time.time()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        raise SystemExit(f"service bench: a load request failed: {failures[0]}")
    return time.time() - t0


def dedup(cli, inputs, out, threads=1, extra=(), method="simhash"):
    shutil.rmtree(out, ignore_errors=True)
    run([cli, "dedup", *inputs, "--out", out, "--threads", str(threads), "-q", "--method", method, *extra])
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def pairs_of(clusters_tsv):
    groups = {}
    with open(clusters_tsv) as f:
        header = f.readline().rstrip("\n").split("\t")
        ui, ci = header.index("url"), header.index("cluster")
        for line in f:
            cols = line.rstrip("\n").split("\t")
            groups.setdefault(cols[ci], set()).add(cols[ui])
    out = set()
    for members in groups.values():
        m = sorted(members)
        for i in range(len(m)):
            for j in range(i + 1, len(m)):
                out.add((m[i], m[j]))
    return out


def table1(args, work):
    web = os.path.join(work, "web")
    shutil.rmtree(web, ignore_errors=True)
    run([args.cli, "synth-web", args.pool, "--out", web, "--crawls", str(args.crawls), "--seed", "1",
         "--hosts", str(args.web_hosts)])
    crawls = sorted(glob.glob(os.path.join(web, "crawl-*.warc.gz")), key=lambda p: int(p.split("-")[-1].split(".")[0]))
    store = os.path.join(work, "table1-store")
    shutil.rmtree(store, ignore_errors=True)
    log = open(os.path.join(work, "serve-table1.log"), "w")
    server = Server(args.cli, store, log, args.method)
    rows = []
    for n, crawl in enumerate(crawls, 1):
        before = server.stats()
        secs = ingest(args.cli, server, [crawl])
        s = server.stats()
        recrawled = s["recrawled"] - before["recrawled"]
        tier1 = s["tier1_decided"] - before["tier1_decided"]
        rows.append((n, s["content_pages"], recrawled, tier1, secs))
    # The last crawl's URLs (truth.tsv: crawl, url, ...); delete the others.
    last = str(len(crawls))
    final_urls, all_urls = set(), set()
    with open(os.path.join(web, "truth.tsv")) as f:
        f.readline()
        for line in f:
            cols = line.rstrip("\n").split("\t")
            all_urls.add(cols[1])
            if cols[0] == last:
                final_urls.add(cols[1])
    for url in sorted(all_urls - final_urls):
        try:
            http(server.port, "DELETE", "/v1/pages?url=" + urllib.parse.quote(url, safe=""))
        except urllib.error.HTTPError as e:
            if e.code != 404:
                raise
    server.stop()
    export = os.path.join(work, "table1-export")
    shutil.rmtree(export, ignore_errors=True)
    run([args.cli, "export", "--store", store, "--out", export])
    base = os.path.join(work, "table1-dedup")
    dedup(args.cli, [crawls[-1]], base, threads=0, extra=["--skip-non-2xx"], method=args.method)
    ps, pb = pairs_of(os.path.join(export, "clusters.tsv")), pairs_of(os.path.join(base, "clusters.tsv"))
    common = len(ps & pb)
    p_err = (len(ps) - common) / len(ps) if ps else 0.0
    r_err = (len(pb) - common) / len(pb) if pb else 0.0
    print(f"### Accuracy of the incremental path (Zhu et al. Table 1): synth-web, {len(crawls)} crawls, "
          f"{args.web_hosts} hosts, method {args.method}\n")
    print("| crawl | pages in store | recrawled | decided by tier 1 | tier-1 share | ingest s |")
    print("|---|---|---|---|---|---|")
    for n, pages, rec, t1, secs in rows:
        print(f"| {n} | {pages:,} | {rec:,} | {t1:,} | {t1 / rec if rec else 0:.1%} | {secs:.1f} |")
    print(f"\nAgainst `dedup --skip-non-2xx` on crawl {last} (store after deleting the "
          f"{len(all_urls - final_urls):,} URLs not in it): service pairs {len(ps):,}, dedup pairs {len(pb):,}, "
          f"common {common:,}; relative error in precision {p_err:.2%}, in recall {r_err:.2%}.\n")


def percentile(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))]


def load_test(server, bodies, clients=4, per_client=250):
    latencies = {"check": [], "lookup": []}
    urls = [json.loads(b)["url"] for b in bodies]
    lock = threading.Lock()

    def client(seed):
        rng = random.Random(seed)
        mine = {"check": [], "lookup": []}
        for _ in range(per_client):
            body = rng.choice(bodies).encode()
            t0 = time.perf_counter()
            http(server.port, "POST", "/v1/check", body)
            mine["check"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            try:
                http(server.port, "GET", "/v1/pages?url=" + urllib.parse.quote(rng.choice(urls), safe=""))
            except urllib.error.HTTPError:
                pass
            mine["lookup"].append(time.perf_counter() - t0)
        with lock:
            for k in mine:
                latencies[k] += mine[k]

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies


def scale(args, work):
    crawlgen = os.path.join(ROOT, "build", "bench", "crawlgen")
    per = args.pages // args.chunks
    chunks = []
    for c in range(args.chunks):
        path = os.path.join(work, f"chunk-{per}-{c + 1}.warc.gz")
        if not os.path.exists(path):
            run([crawlgen, "--html-dir", args.html_dir, "--pages", str(per), "--seed", str(c + 1),
                 "--max-page-bytes", str(args.max_page_bytes), "--host-tag", f"c{c + 1}-", "--out", path])
        chunks.append(path)
    store = os.path.join(work, "scale-store")
    log = open(os.path.join(work, "serve-scale.log"), "w")
    # End to end: `neardup ingest` reads the first chunk's WARC and sends it
    # (one client on the same cores as the server), into an empty store.
    shutil.rmtree(store, ignore_errors=True)
    server = Server(args.cli, store, log, args.method)
    e2e = ingest(args.cli, server, [chunks[0]])
    server.stop()
    first = dedup(args.cli, chunks[:1], os.path.join(work, "scale-dedup"), threads=1, method=args.method)
    first_rate = first["documents_read"] / first["seconds"]
    print(f"`neardup ingest` of the first chunk's WARC into an empty store (one client, batches of 1,000): "
          f"{e2e:.1f} s, {per / e2e:,.0f} pages/s, {per / e2e / first_rate:.0%} of `dedup --threads 1` "
          f"({first_rate:,.0f} pages/s).\n")
    shutil.rmtree(store, ignore_errors=True)
    server = Server(args.cli, store, log, args.method)
    print(f"### Incremental vs from scratch (Zhu et al. Figure 7), throughput and memory: "
          f"{args.chunks} crawlgen chunks of {per:,} pages\n")
    print(f"Each chunk is sent as NDJSON (`neardup ingest --ndjson-out`, made beforehand) by {args.clients} "
          f"concurrent clients in requests of 1,000 pages.\n")
    print("| store pages after | ingest s (this chunk) | ms per added page | service pages/s | "
          "dedup from scratch s (all so far, 1 thread) | dedup pages/s | service / dedup |")
    print("|---|---|---|---|---|---|---|")
    for c in range(args.chunks):
        ndjson = os.path.join(work, "chunk.ndjson")
        run([args.cli, "ingest", chunks[c], "--ndjson-out", ndjson, "-q"])
        secs = load(server, ndjson, clients=args.clients)
        os.remove(ndjson)
        s = dedup(args.cli, chunks[:c + 1], os.path.join(work, "scale-dedup"), threads=1, method=args.method)
        dedup_rate = s["documents_read"] / s["seconds"]
        rate = per / secs
        print(f"| {server.stats()['content_pages']:,} | {secs:.1f} | {1000 * secs / per:.2f} | {rate:,.0f} | "
              f"{s['seconds']:.1f} | {dedup_rate:,.0f} | {rate / dedup_rate:.0%} |")
    stats = server.stats()
    # Single-page checks and lookups from several clients, at the final size.
    bodies = []
    files = sorted(glob.glob(os.path.join(args.html_dir, "**", "*.htm*"), recursive=True))
    rng = random.Random(1)
    for p in rng.sample(files, min(200, len(files))):
        with (gzip.open(p, "rb") if p.endswith(".gz") else open(p, "rb")) as f:
            html = f.read(64 * 1024).decode("utf-8", "replace")
        bodies.append(json.dumps({"url": "https://check.example/" + os.path.basename(p), "html": html}) + "\n")
    lat = load_test(server, bodies)
    rss = server.peak_rss_mb()
    server.stop()
    print(f"\nServer peak RSS {rss:.0f} MB at {stats['content_pages']:,} pages; candidate postings in memory "
          f"{stats['postings_bytes'] / 1e6:.0f} MB ({stats['postings_bytes'] / max(1, stats['content_pages']):.0f} bytes a page); "
          f"store {stats['store_bytes'] / 1e6:.0f} MB "
          f"({stats['store_bytes'] / max(1, stats['content_pages']):.0f} bytes a page); "
          f"comparisons {stats['comparisons']:,}, verifications {stats['verifications']:,} "
          f"({stats['verifications_failed']:,} failed), repairs {stats['repairs']:,}.\n")
    print(f"Latency at {stats['content_pages']:,} stored pages, 4 clients x 250 requests each: "
          f"POST /v1/check of one real page p50 {1000 * percentile(lat['check'], 0.5):.1f} ms, "
          f"p99 {1000 * percentile(lat['check'], 0.99):.1f} ms; GET /v1/pages p50 "
          f"{1000 * percentile(lat['lookup'], 0.5):.1f} ms, p99 {1000 * percentile(lat['lookup'], 0.99):.1f} ms.\n")


def main():
    ap = argparse.ArgumentParser(description="Benchmarks of neardup serve")
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "neardup"))
    ap.add_argument("--pages", type=int, default=100000, help="pages of the scale run (all chunks)")
    ap.add_argument("--chunks", type=int, default=4)
    ap.add_argument("--max-page-bytes", type=int, default=8000)
    ap.add_argument("--html-dir", default=os.path.join(ROOT, "..", "shared", "data", "html"))
    ap.add_argument("--pool", default=os.path.join(ROOT, "tests", "data", "sample", "sample-crawl.warc.gz"),
                    help="pages synth-web builds its web from")
    ap.add_argument("--crawls", type=int, default=3)
    ap.add_argument("--web-hosts", type=int, default=64, help="www hosts of the synth-web crawls")
    ap.add_argument("--method", default="simhash", help="the method of the store and of dedup (the service's default)")
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--clients", type=int, default=2, help="concurrent clients of the throughput load")
    ap.add_argument("--skip", default="", help="comma-separated: table1,scale,crash")
    args = ap.parse_args()
    if not os.path.isdir(args.html_dir):
        raise SystemExit(f"service bench: {args.html_dir} not found: pass --html-dir with real HTML pages")
    work = os.path.join(ROOT, "build", "bench-service")
    os.makedirs(work, exist_ok=True)
    skip = set(filter(None, args.skip.split(",")))
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print(f"machine: {cpu}, {os.cpu_count()} cores; {time.strftime('%Y-%m-%d', time.gmtime())}; "
          f"`bench/service.py --pages {args.pages} --chunks {args.chunks} --method {args.method}`\n")
    if "table1" not in skip:
        table1(args, work)
    if "scale" not in skip:
        scale(args, work)
    if "crash" not in skip:
        r = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "service_crash.py"), "--cli", args.cli,
                            "--kills", str(args.kills)], capture_output=True, text=True)
        print("### Crash safety\n")
        print(r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.stderr.strip())
        if r.returncode != 0:
            print(r.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
