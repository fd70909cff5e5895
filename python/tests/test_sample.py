# Copyright neardup authors. Licensed under Apache-2.0.
"""The module on the sample crawl against `neardup dedup` and `neardup
compare`: the same documents, the same partition, the same verdicts."""
import json
import subprocess
import sys

import pytest

import neardup
from conftest import REPO, SAMPLE, partition, read_clusters_tsv


def docs_as_dicts(docs):
    """The documents as a Python program would give them: dicts."""
    out = []
    for doc in docs:
        d = {"url": doc.url, doc.kind: doc.body, "status": doc.status, "redirect": doc.redirect,
             "fetched": doc.fetched, "content_type": doc.content_type, "charset": doc.charset}
        out.append(d)
    return out


@pytest.fixture(scope="module")
def dedup_run(cli, sample, tmp_path_factory):
    """`neardup dedup SAMPLE --out DIR` by the command: clusters.tsv's rows."""
    out = tmp_path_factory.mktemp("cli-dedup")
    subprocess.run([cli, "dedup", sample, "--out", str(out), "--quiet"], check=True)
    return read_clusters_tsv(out / "clusters.tsv")


def test_read_yields_every_document(sample):
    reader = neardup.read(sample)
    docs = list(reader)
    assert len(docs) > 20
    assert reader.stats["documents"] == len(docs)
    assert reader.stats["skipped"].get("type:request", 0) >= 1  # crawl furniture is skipped
    assert all(doc.url.startswith("http") for doc in docs)
    assert all((doc.html is None) != (doc.text is None) for doc in docs)
    assert {doc.status for doc in docs} >= {200, 301, 404}
    redirect = next(doc for doc in docs if doc.status == 301)
    assert redirect.redirect
    assert all(doc.source == sample for doc in docs) and docs[1].offset > docs[0].offset
    assert list(reader) == []  # exhausted


def test_partition_equals_neardup_dedup(sample, dedup_run):
    d = neardup.Deduper(threads=2)
    ids = d.add_many(neardup.read(sample))
    c = d.cluster()
    assert ids == list(range(len(dedup_run)))
    # Ids are positions in input order, as clusters.tsv's rows are.
    urls = [doc.url for doc in neardup.read(sample)]
    assert urls == [row["url"] for row in dedup_run]
    assert partition(c.labels) == partition(row["cluster"] for row in dedup_run)
    assert len(partition(c.labels)) < len(urls)  # the sample holds duplicates
    for i, row in enumerate(dedup_run):
        assert c.role_of(i) == row["role"] or (row["role"] == "keep" and c.role_of(i) == "single")
        assert c.method_of(i) == row["method"]
        assert urls[c.keeper_of(i)] == next(r["url"] for r in dedup_run if r["cluster"] == row["cluster"]
                                            and r["role"] == "keep")


def test_partition_from_dicts_equals_partition_from_reader(sample):
    docs = list(neardup.read(sample))
    from_reader = neardup.Deduper(threads=1)
    from_reader.add_many(neardup.read(sample))
    from_dicts = neardup.Deduper(threads=1)
    from_dicts.add_many(docs_as_dicts(docs))
    from_documents = neardup.Deduper(threads=1)
    from_documents.add_many(docs)
    one = from_reader.cluster()
    for other in (from_dicts.cluster(), from_documents.cluster()):
        assert one.labels.tolist() == other.labels.tolist()
        assert one.keepers.tolist() == other.keepers.tolist()


@pytest.mark.parametrize("method", ["robust", "broder", "paragraphs"])
def test_two_threads_give_what_one_gives(sample, method):
    docs = docs_as_dicts(neardup.read(sample))
    results = []
    for threads in (1, 2):
        # Small batches: several in flight at once on two threads.
        d = neardup.Deduper(method, threads=threads, batch_documents=2)
        assert d.threads == threads
        d.add_many(iter(docs))
        c = d.cluster()
        results.append((c.labels.tolist(), c.keepers.tolist(), [c.similarity_of(i) for i in range(len(c))]))
    assert results[0] == results[1]


def test_dedup_writes_what_the_command_writes(sample, dedup_run, tmp_path):
    summary = neardup.dedup([sample], out=tmp_path / "out", method="robust", threads=0)
    assert summary["documents_read"] == len(dedup_run)
    assert summary["method_spec"].startswith("robust:")
    assert summary == json.loads((tmp_path / "out" / "summary.json").read_text())
    rows = read_clusters_tsv(tmp_path / "out" / "clusters.tsv")
    assert [(r["url"], r["cluster"], r["role"]) for r in rows] == [(r["url"], r["cluster"], r["role"])
                                                                   for r in dedup_run]


def test_dedup_progress(sample, tmp_path):
    seen = []
    neardup.dedup(sample, out=tmp_path / "a", progress=lambda p: seen.append(p["documents"]))
    assert seen and seen[-1] > 0
    assert seen[-1] == neardup.dedup(sample, out=tmp_path / "b")["documents_read"]

    def fails(p):
        raise KeyError("from the callback")

    with pytest.raises(KeyError, match="from the callback"):
        neardup.dedup(sample, out=tmp_path / "c", progress=fails)


def test_dedup_within_its_memory_budget(sample, tmp_path):
    # The budget counts what the run adds to this process: a run on one
    # thread needs more than 4 MiB before it reads a page, and the sample
    # fits in the default.
    with pytest.raises(neardup.InvalidArgumentError, match="cannot hold this run") as e:
        neardup.dedup(sample, out=tmp_path / "small", memory_bytes=4 << 20, threads=1)
    assert "before it reads a page" in str(e.value)
    assert not (tmp_path / "small" / "clusters.tsv").exists()
    summary = neardup.dedup(sample, out=tmp_path / "fits", threads=1)
    assert summary["options"]["memory_bytes"] == 2 << 30


def test_file_errors_are_os_errors(tmp_path):
    missing = str(tmp_path / "missing.warc.gz")
    with pytest.raises(neardup.FileError) as e:
        list(neardup.read(missing))
    assert isinstance(e.value, OSError) and isinstance(e.value, neardup.Error)
    assert "no usable document" in str(e.value) and missing in str(e.value)
    with pytest.raises(neardup.FileError):
        neardup.Deduper().add_many(neardup.read(missing))
    with pytest.raises(neardup.FileError, match="no usable document"):
        neardup.dedup([missing], out=tmp_path / "out")
    with pytest.raises(neardup.FileError):
        neardup.compare_files(missing, missing)
    with pytest.raises(neardup.InvalidArgumentError, match="unknown option max_record"):
        neardup.read(missing, max_record=5)


def cli_verdicts(cli, a, b):
    """`neardup compare A B`'s "each method's rule" lines: method -> (duplicate, reason)."""
    out = subprocess.run([cli, "compare", a, b], check=True, capture_output=True, text=True).stdout
    lines = out.split("each method's rule, as dedup applies it:\n")[1].splitlines()
    verdicts = {}
    for line in lines:
        if not line.startswith("  "):
            break
        method, rest = line.strip().split(None, 1)
        decision, reason = rest.split(": ", 1)
        verdicts[method] = (decision == "near duplicates", reason)
    return verdicts


def test_compare_gives_the_command_s_verdicts(cli, sample, tmp_path):
    docs = list(neardup.read(sample))
    by_url = {doc.url: doc for doc in docs}
    pairs = [(docs[0], docs[1]), (docs[0], docs[4])]
    # The CNN Arabic article in newspaper and python-goose: near duplicates.
    arabic = [doc for url, doc in by_url.items() if "arabic" in url]
    if len(arabic) >= 2:
        pairs.append((arabic[0], arabic[1]))
    for a, b in pairs:
        fa, fb = tmp_path / "a.html", tmp_path / "b.html"
        fa.write_bytes(a.body)
        fb.write_bytes(b.body)
        expected = cli_verdicts(cli, str(fa), str(fb))
        assert list(expected) == neardup.method_names()
        for result in (neardup.compare_files(fa, fb),
                       neardup.compare({"url": str(fa), "html": a.body}, {"url": str(fb), "html": b.body})):
            got = {m: (v["duplicate"], v["reason"]) for m, v in result["verdicts"].items()}
            assert got == expected


def test_compare_html_strings():
    # 300 distinct words without digits (robust reads terms with digits as one volatile class).
    words = ["".join(chr(97 + (i // 26 ** k) % 26) for k in range(3)) + "x" for i in range(300)]
    page = "<html><body><p>" + " ".join(words) + "</p></body></html>"
    same = neardup.compare(page, page)
    assert same["exact_same_bytes"]
    assert all(same["verdicts"][m]["duplicate"] for m in ("exact", "broder", "simhash", "combined", "robust"))
    edited = neardup.compare(page, page.replace(words[150], "changed"))
    assert edited["term_difference"] == 2 and edited["verdicts"]["robust"]["duplicate"]
    assert any(r["kind"] == "only_in_b" and r["text"] == "changed" for r in edited["runs"])
    other = neardup.compare(page, "<p>nothing alike at all here</p>")
    assert not other["verdicts"]["robust"]["duplicate"] and not other["verdicts"]["exact"]["duplicate"]
    with pytest.raises(neardup.InvalidArgumentError):
        neardup.compare(page, page, robust={"min_content_similarity": 2.0})


def test_the_example_gives_the_command_s_partition(sample, dedup_run):
    out = subprocess.run([sys.executable, str(REPO / "examples" / "cluster_crawl.py"), sample], check=True,
                         capture_output=True, text=True).stdout
    rows = [line.split("\t") for line in out.splitlines()]
    assert [r[0] for r in rows] == [row["url"] for row in dedup_run]
    assert partition(r[1] for r in rows) == partition(row["cluster"] for row in dedup_run)
    bad = subprocess.run([sys.executable, str(REPO / "examples" / "cluster_crawl.py"), "missing.warc.gz"],
                         capture_output=True, text=True)
    assert bad.returncode == 1 and "no usable document" in bad.stderr


def test_compare_files_with_inputs_gives_dedups_clusters_and_verification():
    # One BBC article captured twice (README, "Explaining a pair"): one
    # cluster, the first capture kept, the second verified against it.
    crawl = str(SAMPLE)
    a, b = "https://news.example.cn/article", "https://bbc.co.uk/zhongwen/article"
    r = neardup.compare_files(a, b, inputs=[crawl])["robust"]
    assert r["clustered"] and r["same_cluster"]
    assert r["kept_a"] == r["kept_b"] == a
    assert r["a_with_kept_a"] is None  # A is the kept page
    assert r["b_with_kept_b"]["duplicate"] and r["b_with_kept_b"]["reason"] == r["why"]
    assert r["a_with_kept_b"] is None and r["b_with_kept_a"] is None  # one cluster
    # The pair was one of the candidate tables' pairs: decided itself.
    assert r["candidacy"].startswith("a candidate pair"), r["candidacy"]


def test_compare_files_says_a_redirect_leads_to_the_other_page():
    # The sample crawl's 301 from an old path to a page it holds: dedup puts
    # the two in one cluster, the redirect without verification.
    a, b = "http://coolhunting.com/old-path", "https://coolhunting.com/design/1"
    c = neardup.compare_files(a, b, inputs=[str(SAMPLE)])
    assert c["redirect"] == "a"
    assert c["a"]["status"] == 301 and not c["a"]["own_content"] and c["a"]["redirect"] == b
    assert c["b"]["own_content"] and c["b"]["status"] == 200
    r = c["robust"]
    assert r["same_cluster"]
    assert r["a_with_kept_a"]["duplicate"] and "redirect" in r["a_with_kept_a"]["reason"]
    other = neardup.compare_files("https://coolhunting.com/design/1", "https://coolhunting.com/design/2",
                                  inputs=[str(SAMPLE)])
    assert other["redirect"] is None


def test_compare_files_says_two_pages_alone_on_a_site_are_one_text():
    # The sample crawl's two Lifehacker captures are the two pages of their
    # site and one text: the site learns no template, and dedup joins them.
    a, b = "https://lifehacker.com/post?comments=load", "https://lifehacker.com/post"
    r = neardup.compare_files(a, b, inputs=[str(SAMPLE)])["robust"]
    assert r["one_text_site"] and r["host_pages"] == 2
    assert r["similar"] and r["same_cluster"]
    other = neardup.compare_files("https://goose.example/articlebody/attribute",
                                  "https://goose.example/articlebody/tag", inputs=[str(SAMPLE)])["robust"]
    assert not other["one_text_site"]


def test_compare_files_says_when_titles_name_two_numbers(tmp_path):
    # Two records of a database titled by their numbers name two items;
    # a revision keeps its record's number.
    body = "<p>" + " ".join("word%s" % chr(97 + i % 26) for i in range(80)) + "</p>"
    def page(name, title):
        path = tmp_path / name
        path.write_text("<html><head><title>%s</title></head><body>%s</body></html>" % (title, body))
        return str(path)
    home = page("a.html", "Gene Bank: home record 173815")
    other = page("b.html", "Gene Bank: people record 173816")
    revised = page("c.html", "Gene Bank: home record 173815 (revised)")
    r = neardup.compare_files(home, other)["robust"]
    assert r["titles_name_two_items"] and r["titles_name_two_numbers"]
    r = neardup.compare_files(home, revised)["robust"]
    assert not r["titles_name_two_items"] and not r["titles_name_two_numbers"]


def test_keep_writes_the_kept_pages(sample, dedup_run, tmp_path):
    neardup.dedup(sample, out=tmp_path / "run")
    kept = [r["url"] for r in read_clusters_tsv(tmp_path / "run" / "clusters.tsv") if r["role"] == "keep"]
    got = neardup.keep(tmp_path / "run", tmp_path / "kept.jsonl.gz")
    assert got["rows"] == len(dedup_run) and got["written"] == len(kept) and got["bytes_written"] > 0
    assert [doc.url for doc in neardup.read(tmp_path / "kept.jsonl.gz")] == kept
    dups = neardup.keep(tmp_path / "run", tmp_path / "dups.data", duplicates=True, format="warc")
    assert dups["written"] == len(dedup_run) - len(kept)
    assert sorted(doc.url for doc in neardup.read(tmp_path / "dups.data")) == sorted(
        r["url"] for r in dedup_run if r["role"] == "duplicate")
    notes = neardup.keep(tmp_path / "run", tmp_path / "notes.jsonl", annotate=True)
    assert notes["written"] == len(kept)
    sizes = {}
    for r in read_clusters_tsv(tmp_path / "run" / "clusters.tsv"):
        sizes[r["cluster"]] = sizes.get(r["cluster"], 0) + 1
    for line in (tmp_path / "notes.jsonl").read_text().splitlines():
        note = json.loads(line)["neardup"]
        assert note["cluster_size"] == sizes[str(note["cluster"])]
    with pytest.raises(neardup.FileError, match="input .* not found"):
        neardup.keep(tmp_path / "run", tmp_path / "x.jsonl", inputs=[str(tmp_path / "missing.warc.gz")])
    with pytest.raises(neardup.InvalidArgumentError, match="format"):
        neardup.keep(tmp_path / "run", tmp_path / "x.jsonl", format="csv")
    assert not (tmp_path / "x.jsonl").exists()
