#!/usr/bin/env python3
"""neardup-mpi dedup gives exactly neardup dedup's outputs.

For every method that runs on several processes (exact, broder, simhash,
combined, robust) and N = 1, 2, 3, 4 ranks, on the sample crawl, on a
`neardup synth` crawl built from it (one per-record-gzip WARC file, so the
ranks split it at record boundaries), on pages copied to many hosts, on
stories alone on their sites with their first pages, on redirects whose
chains cross ranks, and on a mix of
files, folders and damaged inputs (so that warnings come from several
ranks): clusters.tsv,
pairs.tsv and warnings.tsv must be byte for byte those of one process, and
every figure of summary.json but the timings, memory and output paths the
same. With --partition length:1..3 (broder, simhash, combined at 3 ranks)
clusters.tsv and warnings.tsv must be the single process's too, and each rank
must report what it hosted. With exact, with robust (without --pairs) and
with --partition the ranks cluster together: summary.json must show that
each held only its own pages. A batch-only method, standard input ("-") and
--partition with robust must be refused with exit status 2 and a message.

    tests/mpi_identity.py --cli build/neardup --mpi build/neardup-mpi --data tests/data

mpirun runs with --oversubscribe (ranks may outnumber cores), --bind-to none
(a rank's default thread count is then neardup dedup's) and, as root,
--allow-run-as-root. Exit status 0 when every run matched, 1 otherwise.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

# Figures that depend on the run, not on the input: time, memory, paths,
# and what only neardup-mpi reports.
RUN_DEPENDENT = {"stages", "seconds", "peak_rss_bytes", "outputs", "mpi", "clustered_together"}


def mpirun_prefix(ranks):
    # Unbound, a rank may run on every CPU, so its default --threads is
    # neardup dedup's (mpirun binds a rank to a core by default).
    cmd = ["mpirun", "--oversubscribe", "--bind-to", "none", "-np", str(ranks)]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    return cmd


def run(cmd, expect=0):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
    if p.returncode != expect:
        sys.stderr.write(f"command {' '.join(cmd)} exited {p.returncode}, expected {expect}\n{p.stderr[-3000:]}\n")
        raise SystemExit(1)
    return p


def summary_figures(path):
    with open(path) as f:
        summary = json.load(f)
    figures = {k: v for k, v in summary.items() if k not in RUN_DEPENDENT}
    if isinstance(figures.get("near_duplicates"), dict):  # the near stage's steps' wall seconds
        figures["near_duplicates"] = {k: v for k, v in figures["near_duplicates"].items() if k not in RUN_DEPENDENT}
    return figures


def compare(single, multi, label):
    failures = []
    for name in ("clusters.tsv", "pairs.tsv", "warnings.tsv"):
        a, b = os.path.join(single, name), os.path.join(multi, name)
        if os.path.exists(a) != os.path.exists(b):
            failures.append(f"{label}: {name} written by only one of the runs")
            continue
        if os.path.exists(a):
            with open(a, "rb") as fa, open(b, "rb") as fb:
                if fa.read() != fb.read():
                    failures.append(f"{label}: {name} differs")
    sa = summary_figures(os.path.join(single, "summary.json"))
    sb = summary_figures(os.path.join(multi, "summary.json"))
    for key in sorted(set(sa) | set(sb)):
        if sa.get(key) != sb.get(key):
            failures.append(f"{label}: summary.json {key}: {sa.get(key)!r} vs {sb.get(key)!r}")
    return failures


def held_apart(out, ranks, documents, label):
    """The ranks clustered together: each held its own pages, none all."""
    with open(os.path.join(out, "summary.json")) as f:
        together = json.load(f).get("clustered_together")
    if together is None or len(together["per_process"]) != ranks:
        return [f"{label}: summary.json does not report the ranks clustering together"]
    held = [p["pages_held"] for p in together["per_process"]]
    if sum(held) != documents or (ranks > 1 and documents > 1 and max(held) >= documents):
        return [f"{label}: pages held per rank {held} (of {documents}): one rank held every page"]
    return []


def write_copies_corpus(paths):
    """Copies of two pages on many hosts, each copy with a sentence of its
    own inserted: two copies differ about twice as much as each differs from
    its original, and the kept page (the shortest URL) is a copy, so
    verification moves to each cluster's center (VerificationCandidates).
    The pages go round-robin into `paths`, so that every rank holds some."""
    state = [12345]

    def word():
        state[0] = (state[0] * 1103515245 + 12345) % (1 << 31)
        n, letters = state[0], []
        for _ in range(3 + n % 6):
            letters.append("abcdefghijklmnopqrstuvwxyz"[n % 26])
            n //= 26
        return "".join(letters)

    files = [open(p, "w", encoding="utf-8") for p in paths]
    written = 0
    for group in range(2):
        original = [word() for _ in range(150)]
        pages = [(f"http://www.original-project-{group}.example/manual/reference/chapter/section.html", original)]
        for copy in range(24):
            words = list(original)
            at = (copy * 37 + group * 11) % len(words)
            words[at:at] = [word() for _ in range(12)]
            pages.append((f"http://h{copy}-{group}.example/m.html", words))
        for url, words in pages:
            html = "<html><body><p>" + " ".join(words) + "</p></body></html>"
            files[written % len(files)].write(json.dumps({"url": url, "html": html}) + "\n")
            written += 1
    for f in files:
        f.close()


def write_excerpt_corpus(paths):
    """Stories each alone on its site with its first page (the first half of
    its words, under the same template) and copied to a wire site: the two
    pages alone on their site are one text when one holds the other
    (TwoPagesOneText, which reads the pages' shingle counts), so their site
    learns no template and the story stays its copy's near duplicate. The
    pages go round-robin into `paths`."""
    state = [54321]

    def words(n):
        out = []
        for _ in range(n):
            state[0] = (state[0] * 1103515245 + 12345) % (1 << 31)
            k, letters = state[0], []
            for _ in range(3 + k % 6):
                letters.append("abcdefghijklmnopqrstuvwxyz"[k % 26])
                k //= 26
            out.append("".join(letters))
        return out

    def page(menu, text):
        paragraphs = "".join("<p>" + " ".join(text[i:i + 24]) + "</p>" for i in range(0, len(text), 24))
        links = "".join(f"<li><a href='/s{i}'>{w}</a></li>" for i, w in enumerate(menu))
        return f"<html><body><ul>{links}</ul>{paragraphs}<div>{' '.join(menu[:6])}</div></body></html>"

    files = [open(p, "w", encoding="utf-8") for p in paths]
    written = 0
    for group in range(3):
        story, paper, wire = words(600), words(40), words(40)
        pages = [(f"http://www.paper-{group}.example/news/story.html", page(paper, story)),
                 (f"http://www.paper-{group}.example/news/story.html?page=1", page(paper, story[:300])),
                 (f"http://www.wire-{group}.example/story", page(wire, story))]
        for url, html in pages:
            files[written % len(files)].write(json.dumps({"url": url, "html": html}) + "\n")
            written += 1
    for f in files:
        f.close()


def write_redirect_corpus(paths):
    """Redirects whose chains cross ranks (Zhu et al.'s redirection-based
    duplicates): to a page with copies, to a page alone, through a chain of
    two, in a loop, to an error page, and out of the crawl; a URL fetched
    twice (an error first); and revisits (a WARC revisit record's capture
    named by URL and date, by URL alone, and one not in the crawl) of a URL
    captured twice. The records go round-robin into `paths`, the redirects
    and revisits first, so that a chain's pages sit on other ranks."""
    def story(seed):
        words = ["w%d%d" % (seed, i % 97) for i in range(400)]
        return "<html><body><p>" + " ".join(words) + "</p></body></html>"

    records = [
        {"url": "http://r.example/a", "status": 301, "redirect": "https://news.example/story"},
        {"url": "http://r.example/b", "status": 302, "redirect": "a"},
        {"url": "http://r.example/c", "status": 301, "redirect": "https://alone.example/page"},
        {"url": "http://r.example/loop1", "status": 301, "redirect": "http://r.example/loop2"},
        {"url": "http://r.example/loop2", "status": 307, "redirect": "/loop1"},
        {"url": "http://r.example/gone", "status": 301, "redirect": "https://news.example/404"},
        {"url": "http://r.example/out", "status": 301, "redirect": "https://elsewhere.example/"},
        {"url": "http://r.example/twice", "status": 301, "redirect": "https://twice.example/"},
        {"url": "https://twice.example/", "status": 503, "html": "<p>Service Unavailable</p>"},
        {"url": "https://alone.example/page", "date": "2024-03-01T00:00:00Z",
         "revisit_of": "https://alone.example/page", "revisit_of_date": "2024-02-01T00:00:00Z"},
        {"url": "https://news.example/story", "date": "2024-03-01T00:00:00Z", "revisit_of": "https://news.example/story"},
        {"url": "https://gone.example/", "revisit_of": "https://gone.example/", "revisit_of_date": "2024-01-01T00:00:00Z"},
        {"url": "https://news.example/story", "html": story(1)},
        {"url": "https://mirror.example/story", "html": story(1)},
        {"url": "https://alone.example/page", "html": story(2)},
        {"url": "https://news.example/404", "status": 404, "html": "<p>Not Found</p>"},
        {"url": "https://twice.example/", "status": 200, "html": story(3)},
        {"url": "https://other.example/", "html": story(4)},
        {"url": "https://alone.example/page", "date": "2024-02-01T00:00:00Z", "html": story(5)},
    ]
    files = [open(p, "w", encoding="utf-8") for p in paths]
    for at, record in enumerate(records):
        files[at % len(files)].write(json.dumps(record) + "\n")
    for f in files:
        f.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--mpi", required=True)
    ap.add_argument("--data", required=True, help="the repository's tests/data")
    ap.add_argument("--ranks", default="1,2,3,4")
    ap.add_argument("--methods", default="exact,broder,simhash,combined,robust")
    args = ap.parse_args()
    if shutil.which("mpirun") is None:
        print("mpirun not found (Debian: openmpi-bin)")
        return 1
    ranks = [int(r) for r in args.ranks.split(",")]
    methods = args.methods.split(",")
    work = tempfile.mkdtemp(prefix="neardup-mpi-test-")
    try:
        sample = os.path.join(args.data, "sample", "sample-crawl.warc.gz")
        synth = os.path.join(work, "synth.warc.gz")
        run([args.cli, "synth", sample, os.path.join(args.data, "html"), "--out", synth,
             "--truth", os.path.join(work, "truth.tsv"), "--sites", "40", "--seed", "7"])
        # A damaged copy of the sample: its warnings must come out in order.
        damaged = os.path.join(work, "damaged.warc.gz")
        with open(sample, "rb") as f:
            raw = bytearray(f.read())
        for at in range(len(raw) // 3, len(raw) // 3 + 64):
            raw[at] ^= 0x5A
        with open(damaged, "wb") as f:
            f.write(raw[: len(raw) * 5 // 6])  # and truncated
        copies = [os.path.join(work, f"copies-{part}.jsonl") for part in range(4)]
        write_copies_corpus(copies)
        excerpts = [os.path.join(work, f"excerpts-{part}.jsonl") for part in range(3)]
        write_excerpt_corpus(excerpts)
        redirects = [os.path.join(work, f"redirects-{part}.jsonl") for part in range(4)]
        write_redirect_corpus(redirects)
        corpora = {
            "copies": copies,
            "redirects": redirects,
            "excerpts": excerpts,
            "sample": [sample],
            "synth": [synth],
            "mixed": [os.path.join(args.data, "warc"), os.path.join(args.data, "html"), damaged,
                      os.path.join(args.data, "warc", "example.warc.gz"), synth, os.path.join(work, "missing.warc")],
        }
        failures = []
        runs = 0
        for corpus, inputs in corpora.items():
            for method in methods:
                flags = ["--method", method, "--quiet"] + (["--pairs"] if method != "exact" else [])
                single = os.path.join(work, f"{corpus}-{method}-single")
                run([args.cli, "dedup", *inputs, "--out", single, *flags])
                for n in ranks:
                    multi = os.path.join(work, f"{corpus}-{method}-{n}")
                    run(mpirun_prefix(n) + [args.mpi, "dedup", *inputs, "--out", multi, *flags])
                    with open(os.path.join(multi, "summary.json")) as f:
                        mpi = json.load(f)["mpi"]
                    if mpi["ranks"] != n or len(mpi["per_rank"]) != n:
                        failures.append(f"{corpus} {method} N={n}: summary.json mpi reports {mpi['ranks']} ranks")
                    documents = sum(r["documents"] for r in mpi["per_rank"])
                    with open(os.path.join(single, "summary.json")) as f:
                        expected = json.load(f)["documents_read"]
                    if documents != expected:
                        failures.append(f"{corpus} {method} N={n}: ranks read {documents} documents, not {expected}")
                    if corpus == "synth" and n > 1 and min(r["documents"] for r in mpi["per_rank"]) == 0:
                        failures.append(f"{corpus} {method} N={n}: a rank read nothing of the one large file")
                    failures += compare(single, multi, f"{corpus} {method} N={n}")
                    if method == "exact":
                        failures += held_apart(multi, n, expected, f"{corpus} {method} N={n}")
                    runs += 1
            # Without --pairs the ranks find robust's pairs together, each
            # learning its sites' templates with the others: the outputs are
            # still the single process's, and no rank held every page.
            if "robust" in methods:
                single = os.path.join(work, f"{corpus}-robust-single-nopairs")
                run([args.cli, "dedup", *inputs, "--out", single, "--quiet"])
                with open(os.path.join(single, "summary.json")) as f:
                    expected = json.load(f)["documents_read"]
                for n in ranks:
                    multi = os.path.join(work, f"{corpus}-robust-{n}-nopairs")
                    run(mpirun_prefix(n) + [args.mpi, "dedup", *inputs, "--out", multi, "--quiet"])
                    label = f"{corpus} robust (no --pairs) N={n}"
                    failures += compare(single, multi, label)
                    failures += held_apart(multi, n, expected, label)
                    runs += 1
        # --partition length:D: the comparison where Zhu et al.'s length
        # partitions put the pages. On these crawls no similar pair falls
        # outside rho = 1.3 (bench/partition_plan.sh), so the clusters are
        # the single-process run's; each rank reports what it hosted,
        # received and compared.
        for corpus in ("sample", "synth"):
            for method in ("broder", "simhash", "combined"):
                single = os.path.join(work, f"{corpus}-{method}-single")
                for dims in (1, 2, 3):
                    multi = os.path.join(work, f"{corpus}-{method}-length{dims}")
                    run(mpirun_prefix(3) + [args.mpi, "dedup", *corpora[corpus], "--out", multi, "--method", method,
                                            "--quiet", "--partition", f"length:{dims}"])
                    label = f"{corpus} {method} --partition length:{dims}"
                    for name in ("clusters.tsv", "warnings.tsv"):
                        with open(os.path.join(single, name), "rb") as fa, open(os.path.join(multi, name), "rb") as fb:
                            if fa.read() != fb.read():
                                failures.append(f"{label}: {name} differs")
                    with open(os.path.join(multi, "summary.json")) as f:
                        summary = json.load(f)
                    mpi = summary["mpi"]
                    hosted = sum(r["pages_hosted"] for r in mpi["per_rank"])
                    if mpi["partition"] != f"length:{dims}" or mpi["imbalance"] < 1:
                        failures.append(f"{label}: summary.json mpi {mpi['partition']} imbalance {mpi['imbalance']}")
                    failures += held_apart(multi, 3, summary["documents_read"], label)
                    if hosted < summary["near_duplicates"]["candidates"]:
                        failures.append(f"{label}: {hosted} pages hosted, fewer than the "
                                        f"{summary['near_duplicates']['candidates']} the tables would take")
                    runs += 1
        refused = run(mpirun_prefix(2) + [args.mpi, "dedup", sample, "--out", os.path.join(work, "r"),
                                          "--partition", "length:2"], expect=2)
        if "robust" not in refused.stderr:
            failures.append("--partition with robust: the refusal does not name the method: " + refused.stderr[-300:])
        # Batch-only methods need one process: refused, with the reason.
        refused = run(mpirun_prefix(2) + [args.mpi, "dedup", sample, "--out", os.path.join(work, "p"),
                                          "--method", "paragraphs"], expect=2)
        if "one process" not in refused.stderr:
            failures.append("paragraphs: the refusal does not say it needs one process: " + refused.stderr[-300:])
        # Standard input goes to rank 0 only: refused with the reason.
        refused = run(mpirun_prefix(2) + [args.mpi, "dedup", "-", "--out", os.path.join(work, "s")], expect=2)
        if "standard input" not in refused.stderr:
            failures.append("stdin: the refusal does not name standard input: " + refused.stderr[-300:])
        for f in failures:
            print("FAIL", f)
        print(f"{runs} neardup-mpi runs compared with neardup dedup; {len(failures)} differences")
        return 1 if failures else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
