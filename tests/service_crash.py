#!/usr/bin/env python3
"""Crash safety of `neardup serve`: start it on loopback, ingest pages in
batches while killing it with SIGKILL at random moments, restart it, and
check that every page whose answer was received (acknowledged) is present
with a group, and that the store opens cleanly each time.

    tests/service_crash.py --cli build/neardup --kills 20

Only 127.0.0.1 is contacted; the number of requests is bounded (pages per
round x rounds) and the script stops by itself. Exit status 0 when every
acknowledged page survived every kill, 1 otherwise (with what was lost).
"""
import argparse
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

WORDS = ("river stone market garden engine winter silver harbor candle forest ladder mirror planet "
         "rocket saddle tunnel violin wallet yellow zebra anchor bridge castle dragon eagle falcon "
         "glacier hammer island jungle kettle lantern meadow needle orange pepper quartz ribbon").split()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(port, method, path, body=None, timeout=30):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body, method=method)
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status, r.read().decode()


def start(cli, store, port, log):
    proc = subprocess.Popen([cli, "serve", "--store", store, "--listen", f"127.0.0.1:{port}", "--threads", "2"],
                            stdout=log, stderr=log)
    for _ in range(300):
        if proc.poll() is not None:
            raise SystemExit(f"service_crash: neardup serve exited with {proc.returncode} on start (see {log.name})")
        try:
            if request(port, "GET", "/healthz", timeout=2)[0] == 200:
                return proc
        except (urllib.error.URLError, ConnectionError, OSError):
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("service_crash: neardup serve did not answer /healthz within 15 s")


def page(rng, i, texts):
    if texts and rng.random() < 0.3:
        words = rng.choice(texts).split()
        words.insert(rng.randrange(len(words)), "edited")
        text = " ".join(words)
    else:
        text = " ".join(rng.choice(WORDS) for _ in range(200))
    texts.append(text)
    return {"url": f"https://h{i % 17}.example/p/{i}", "html": f"<html><body><p>{text}</p></body></html>",
            "status": 200, "fetched": "2026-01-01T00:00:00Z"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", required=True, help="the neardup binary")
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--batch", type=int, default=40, help="pages per request")
    ap.add_argument("--batches-per-round", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="neardup-crash-")
    store = os.path.join(work, "store")
    log = open(os.path.join(work, "serve.log"), "ab")
    acked = {}  # url -> role answered
    texts = []
    next_page = 0
    port = free_port()
    proc = start(args.cli, store, port, log)
    for kill in range(args.kills):
        stop = threading.Event()
        errors = []
        pages = []
        for _ in range(args.batch * args.batches_per_round):
            pages.append(page(rng, next_page, texts))
            next_page += 1

        def sender():
            for b in range(args.batches_per_round):
                if stop.is_set():
                    return
                chunk = pages[b * args.batch:(b + 1) * args.batch]
                body = "".join(json.dumps(p) + "\n" for p in chunk).encode()
                try:
                    status, text = request(port, "POST", "/v1/pages", body)
                except (urllib.error.URLError, ConnectionError, OSError) as e:
                    errors.append(str(e))
                    return  # the kill came first: nothing of this batch was acknowledged
                if status != 200:
                    return
                for line in text.splitlines():
                    a = json.loads(line)
                    if a["role"] != "error":
                        acked[a["url"]] = a["role"]

        t = threading.Thread(target=sender)
        t.start()
        time.sleep(rng.uniform(0.05, 0.6))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        stop.set()
        t.join()
        if errors:
            print(f"service_crash: kill {kill + 1}: the client saw: {errors[0]}")
        proc = start(args.cli, store, port, log)
        lost = []
        for url in acked:
            try:
                status, text = request(port, "GET", "/v1/pages?url=" + urllib.parse.quote(url, safe=""))
                a = json.loads(text)
                if a["role"] not in ("keep", "duplicate") or a["group"] is None:
                    lost.append(f"{url}: {text}")
            except urllib.error.HTTPError as e:
                lost.append(f"{url}: HTTP {e.code}")
        stats = json.loads(request(port, "GET", "/v1/stats")[1])
        if lost or stats["content_pages"] < len(acked):
            print(f"service_crash: after kill {kill + 1}: {len(lost)} of {len(acked)} acknowledged pages lost; "
                  f"store counts {stats['content_pages']} pages", file=sys.stderr)
            for line in lost[:10]:
                print("  " + line, file=sys.stderr)
            proc.kill()
            return 1
        print(f"service_crash: kill {kill + 1}/{args.kills}: {len(acked)} acknowledged pages all present "
              f"({stats['content_pages']} in the store, {stats['groups']} groups)")
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    if proc.returncode != 0:
        print(f"service_crash: neardup serve exited with {proc.returncode} on SIGTERM", file=sys.stderr)
        return 1
    print(f"service_crash: {args.kills} kills, {len(acked)} acknowledged pages, none lost")
    log.close()
    shutil.rmtree(work, ignore_errors=True)  # a failed run keeps its store and log
    return 0


if __name__ == "__main__":
    sys.exit(main())
