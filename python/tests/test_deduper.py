# Copyright neardup authors. Licensed under Apache-2.0.
"""The Deduper and its Clustering from Python: ids, remove, the numpy
columns, options and errors."""
import numpy as np
import pytest

import neardup

ARTICLE = (
    "<html><head><title>Harbour news</title></head><body><nav>Home | News | Contact</nav>"
    "<p>The harbour authority said on Monday that the old pier will close for repairs after "
    "divers found cracks in three of its concrete pillars, and that ferries will use the new "
    "terminal on the east side of the bay until the work is finished next spring.</p>"
    "<p>Local fishermen asked for a temporary landing place near the market hall.</p></body></html>"
)
OTHER = (
    "<html><body><p>A completely different page about mountain hiking trails, alpine huts, "
    "weather forecasts for the northern ridge and the best season to see the glaciers.</p></body></html>"
)


def test_ids_count_from_zero_in_add_order():
    d = neardup.Deduper(threads=1)
    assert d.add(url="https://a.example/1", html=ARTICLE) == 0
    assert d.add({"url": "https://b.example/1", "html": ARTICLE}) == 1
    assert d.add(neardup.Document(url="https://c.example/1", text="plain text page")) == 2
    assert d.add_many([{"url": f"https://d.example/{i}", "html": OTHER} for i in range(3)]) == [3, 4, 5]
    assert d.add_many([]) == []
    assert len(d) == 6 and d.live == 6


def test_copies_cluster_and_keep_one_page():
    d = neardup.Deduper(threads=1)
    a = d.add(url="https://a.example/story", html=ARTICLE)
    b = d.add(url="https://mirror.example/story?session=42", html=ARTICLE)
    c = d.add(url="https://other.example/hike", html=OTHER)
    cl = d.cluster()
    assert cl.cluster_of(a) == cl.cluster_of(b) == a  # a cluster's id: its smallest member
    assert cl.keeper_of(b) == a  # static URL beats a query string
    assert cl.role_of(a) == "keep" and cl.role_of(b) == "duplicate" and cl.role_of(c) == "single"
    assert cl.method_of(b) == "exact" and cl.similarity_of(b) == 1.0
    assert cl.keeper_reason_of(a) == "static-url"
    assert cl.cluster_size(a) == 2 and cl.cluster_size(c) == 1
    assert cl.clusters() == [[a, b]] and cl.clusters(min_size=1) == [[a, b], [c]]
    assert cl.num_clusters == 1 and cl.documents_in_clusters == 2 and len(cl) == 3


def test_redirects_and_empty_bodies_are_matched_by_nothing():
    # A redirect's body is its server's notice, an empty body holds nothing:
    # neither is a copy of another page, as in `neardup dedup`.
    notice = "<html><body><h1>Moved Permanently</h1><p>The document has moved here.</p></body></html>"
    d = neardup.Deduper(threads=1)
    r1 = d.add(url="http://a.example/old", html=notice, status=301, redirect="https://a.example/new")
    r2 = d.add(url="http://b.example/old", html=notice, status=302, redirect="/")
    e1 = d.add(url="https://c.example/empty", html="")
    e2 = d.add(url="https://d.example/empty", html="")
    p1 = d.add(url="https://e.example/notice", html=notice)
    p2 = d.add(url="https://f.example/notice", html=notice)
    cl = d.cluster()
    assert [cl.role_of(i) for i in (r1, r2, e1, e2)] == ["single"] * 4
    assert cl.cluster_of(p1) == cl.cluster_of(p2)
    assert "no content of its own" in d.explain(r1, r2)["reason"]


def test_a_redirect_joins_the_cluster_of_the_page_it_leads_to():
    # Zhu et al.'s redirection-based duplicates: the chain r2 -> r1 -> page
    # ends at a page of the run; the page is kept, whatever the URL rules say.
    d = neardup.Deduper(threads=1, keeper="shorter-url,input-order")
    page = d.add(url="https://news.example/a/long/path/to/the/story", html=ARTICLE)
    r1 = d.add(url="http://n.example/s", html="", status=301, redirect="https://news.example/a/long/path/to/the/story")
    r2 = d.add(url="http://n.example/t", html="", status=302, redirect="s")
    lost = d.add(url="http://n.example/u", html="", status=301, redirect="https://elsewhere.example/")
    cl = d.cluster()
    assert cl.keeper_of(r1) == page and cl.keeper_of(r2) == page and cl.role_of(page) == "keep"
    assert cl.method_of(r1) == "redirect" and cl.method_of(page) == "redirect"
    assert cl.keeper_reason_of(page) == "redirect-target"
    assert cl.role_of(lost) == "single"
    d.remove(page)
    cl = d.cluster()
    assert cl.role_of(r1) == "single" and cl.role_of(r2) == "single"


def test_a_revisit_joins_the_cluster_of_the_capture_it_names():
    # A WARC revisit record's content is an earlier capture's: of the URL's
    # two captures, the one of the date it names.
    d = neardup.Deduper(threads=1)
    first, second, revisit, lost = d.add_many([
        {"url": "https://a.example/p", "html": ARTICLE, "fetched": "2024-01-01T00:00:00Z"},
        {"url": "https://a.example/p", "html": OTHER, "fetched": "2024-02-01T00:00:00Z"},
        {"url": "https://a.example/p", "revisit_of": "https://a.example/p", "revisit_of_date": "2024-02-01T00:00:00Z"},
        {"url": "https://b.example/q", "revisit_of": "https://b.example/q"},
    ])
    cl = d.cluster()
    assert cl.keeper_of(revisit) == second and cl.method_of(revisit) == "revisit"
    assert cl.keeper_reason_of(second) == "revisited"
    assert cl.role_of(first) == "single" and cl.role_of(lost) == "single"
    assert "revisit" in d.explain(revisit, second)["reason"]
    c = neardup.compare({"url": "https://a.example/p", "revisit_of": "https://a.example/p"},
                        {"url": "https://a.example/p", "html": ARTICLE})
    assert c["revisit"] == "a" and c["redirect"] is None
    assert not c["a"]["own_content"] and c["a"]["revisit_of"] == "https://a.example/p"


def test_labels_and_keepers_are_int64_arrays_and_removed_ids_hold_minus_one():
    d = neardup.Deduper(threads=1)
    d.add_many([{"url": "https://a.example/1", "html": ARTICLE}, {"url": "https://b.example/2", "html": OTHER},
                {"url": "https://c.example/3", "html": ARTICLE}])
    d.remove(0)
    c = d.cluster()
    for column in (c.labels, c.keepers):
        assert isinstance(column, np.ndarray) and column.dtype == np.int64 and column.shape == (3,)
        assert not column.flags.writeable
    assert c.labels.tolist() == [-1, 1, 2] and c.keepers.tolist() == [-1, 1, 2]
    assert c.cluster_of(0) == -1 and c.keeper_of(0) == -1 and c.role_of(0) == "removed" and c.removed(0)
    assert c.cluster_size(0) == 0
    with pytest.raises(IndexError):
        c.cluster_of(3)
    with pytest.raises(IndexError):
        c.keeper_of(-1)


def test_remove_then_cluster_equals_never_added(sample):
    docs = list(neardup.read(sample))
    removed = {1, 4, 7}
    d = neardup.Deduper(threads=1)
    d.add_many(docs)
    for i in removed:
        d.remove(i)
    with_removals = d.cluster()
    kept = [i for i in range(len(docs)) if i not in removed]
    fresh = neardup.Deduper(threads=1)
    fresh.add_many(docs[i] for i in kept)
    never_added = fresh.cluster()
    # The same partition and kept pages, ids mapped back.
    for new_id, old_id in enumerate(kept):
        assert with_removals.keeper_of(old_id) == kept[never_added.keeper_of(new_id)]
        assert with_removals.role_of(old_id) == never_added.role_of(new_id)
    assert with_removals.num_clusters == never_added.num_clusters
    with pytest.raises(neardup.NotFoundError) as e:
        d.remove(1)
    assert isinstance(e.value, LookupError) and "removed already" in str(e.value) and e.value.code == "NotFound"
    with pytest.raises(neardup.NotFoundError):
        d.remove(len(docs))


def test_cluster_again_after_more_adds():
    d = neardup.Deduper(threads=1)
    d.add(url="https://a.example/1", html=ARTICLE)
    assert d.cluster().num_clusters == 0
    d.add(url="https://b.example/1", html=ARTICLE)
    c = d.cluster()
    assert c.num_clusters == 1 and len(c) == 2


def test_options_by_keyword_and_nested_dict():
    d = neardup.Deduper("broder", threads=1, keeper="url-hash,input-order",
                        broder={"shingle_size": 8, "level": "virtually-identical"}, verify=False)
    o = d.options
    assert o["method"] == "broder" and o["keeper"] == "url-hash,input-order" and o["verify"] is False
    assert o["broder"]["shingle_size"] == 8 and o["broder"]["level"] == "virtually-identical"
    assert o["broder"]["num_minhashes"] == 84  # untouched keys keep their defaults
    assert d.method.startswith("broder:k=8,no-wrap,")
    # The robust method's main-text options, as its spec names them.
    r = neardup.Deduper("robust", threads=1, robust={"main_band_rows": 6, "min_main_containment": 0.5})
    assert r.options["robust"]["main_band_rows"] == 6 and r.options["robust"]["main_minhashes"] == 42
    assert ",main-m=42,main-r=6," in r.method and ",contain=0.5," in r.method
    assert ",main-r=" not in neardup.Deduper("robust", threads=1, robust={"main_band_rows": 3}).method  # = r
    # Titles read by default; off, the spec says nothing of them.
    assert r.options["robust"]["compare_titles"] is True and ",titles," in r.method
    untitled = neardup.Deduper("robust", threads=1, robust={"compare_titles": False, "normalize_text_urls": False})
    assert ",titles," not in untitled.method and ",text-urls," not in untitled.method
    assert r.options["robust"]["image_file_names"] is True and ",image-names," in r.method
    assert r.options["robust"]["title_numbers"] is True and ",titles,title-numbers," in r.method
    assert ",title-numbers," not in neardup.Deduper("robust", threads=1, robust={"title_numbers": False}).method
    assert r.options["robust"]["title_function_words"] is True and ",title-numbers,title-function-words," in r.method
    plain = neardup.Deduper("robust", threads=1, robust={"title_function_words": False}).method
    assert ",title-function-words," not in plain and ",title-numbers," in plain
    assert r.options["robust"]["titles_decide"] is True and ",title-function-words,titles-decide," in r.method
    assert ",titles-decide," not in neardup.Deduper("robust", threads=1, robust={"titles_decide": False}).method
    assert ",image-names," not in neardup.Deduper("robust", threads=1, robust={"image_file_names": False}).method
    spec = neardup.Deduper("simhash:b=128,t=120", threads=1)
    assert spec.method.startswith("simhash:b=128,t=120")
    assert set(neardup.method_names()) == {"exact", "broder", "simhash", "combined", "robust", "paragraphs", "chunks"}


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"method": "no-such-method"}, ["no-such-method"]),
        ({"bogus": 1}, ["unknown option bogus", "keeper"]),
        ({"robust": {"sed": 1}}, ["unknown option robust.sed", "seed"]),
        ({"robust": {"seed": "x"}}, ["robust.seed", "expected an int"]),
        ({"robust": {"min_content_similarity": "high"}}, ["robust.min_content_similarity"]),
        ({"verify": 1}, ["verify", "True or False"]),
        ({"simhash": {"bits": -64}}, ["simhash.bits", "out of range"]),
        ({"method": "simhash", "simhash": {"bits": 100}}, ["bits"]),  # DedupOptions::Validate()
        ({"keeper": "status,charm"}, ["charm"]),
        ({"robust": 5}, ["robust", "dict"]),
        ({"threads": -1}, ["threads"]),
    ],
)
def test_bad_options_raise_invalid_argument(kwargs, words):
    with pytest.raises(neardup.InvalidArgumentError) as e:
        neardup.Deduper(**kwargs)
    assert isinstance(e.value, ValueError) and isinstance(e.value, neardup.Error)
    assert e.value.code == "InvalidArgument"
    for w in words:
        assert w in str(e.value)


def test_bad_documents():
    d = neardup.Deduper(threads=1)
    with pytest.raises(neardup.InvalidArgumentError, match="needs html or text"):
        d.add(url="https://a.example/")
    with pytest.raises(neardup.InvalidArgumentError, match="not both"):
        d.add(url="https://a.example/", html="<p>a</p>", text="a")
    with pytest.raises(neardup.InvalidArgumentError, match="html: expected str or bytes"):
        d.add(html=3)
    with pytest.raises(neardup.InvalidArgumentError, match="unknown key 'htm'"):
        d.add({"htm": "<p>a</p>"})
    with pytest.raises(neardup.InvalidArgumentError, match="status"):
        d.add(html="<p>a</p>", status=1000)
    with pytest.raises(TypeError):
        d.add_many([1])
    assert len(d) == 0
    # In add_many the documents before a bad one stay added.
    with pytest.raises(neardup.InvalidArgumentError, match="add_many: document 2: unknown key 'x'"):
        d.add_many([{"html": "<p>a</p>"}, {"text": "b"}, {"x": 1}])
    assert len(d) == 2

    def failing():
        yield {"html": "<p>c</p>"}
        raise RuntimeError("from the iterable")

    with pytest.raises(RuntimeError, match="from the iterable"):
        d.add_many(failing())
    assert len(d) == 3


def test_batch_only_methods_cannot_remove():
    d = neardup.Deduper("chunks", threads=1)
    d.add(html=ARTICLE)
    with pytest.raises(neardup.NotSupportedError) as e:
        d.remove(0)
    assert isinstance(e.value, neardup.Error) and "batch-only" in str(e.value)


def test_pairs_with_write_pairs():
    d = neardup.Deduper("robust", threads=1, write_pairs=True)
    d.add(url="https://a.example/1", html=ARTICLE)
    d.add(url="https://b.example/1", html=ARTICLE.replace("Monday", "Tuesday"))
    d.add(url="https://c.example/1", html=OTHER)
    with pytest.raises(neardup.Error):
        d.pairs()  # before cluster()
    c = d.cluster()
    pairs = d.pairs()
    assert [(a, b) for a, b, _ in pairs] == [(0, 1)] and c.cluster_of(1) == 0
    assert set(pairs[0][2]) == {"content_similarity", "content_positions"}


def test_explain_gives_the_clusterings_decision():
    d = neardup.Deduper("robust", threads=1)
    d.add(url="https://a.example/1", html=ARTICLE)
    d.add(url="https://b.example/1", html=ARTICLE.replace("Monday", "Tuesday"))
    d.add(url="https://c.example/1", html=OTHER)
    d.add(url="https://d.example/1", html=ARTICLE)
    with pytest.raises(neardup.Error):
        d.explain(0, 1)  # before cluster()
    d.cluster()
    near = d.explain(0, 1)
    assert near["duplicate"] and near["similarity"] > 0.5 and near["reason"]
    assert not d.explain(0, 2)["duplicate"]
    assert "exact duplicates" in d.explain(0, 3)["reason"]
    with pytest.raises(neardup.NotFoundError):
        d.explain(0, 9)


def test_document_attributes():
    doc = neardup.Document(url="https://a.example/", html="<p>é</p>", status=301, redirect="/b",
                           fetched="2024-05-01T00:00:00Z", charset="utf-8")
    assert doc.url == "https://a.example/" and doc.html == "<p>é</p>".encode() and doc.text is None
    assert doc.kind == "html" and doc.status == 301 and doc.redirect == "/b" and doc.charset == "utf-8"
    assert doc.fetched == "2024-05-01T00:00:00Z" and doc.body == doc.html
    text = neardup.Document(text=b"raw bytes")
    assert text.text == b"raw bytes" and text.html is None and text.kind == "text"
    assert "9 bytes" in repr(text)


def test_help_reads_well():
    import pydoc

    page = pydoc.render_doc(neardup.Deduper, renderer=pydoc.plaintext)
    assert "class Deduper" in page and "add_many(" in page and "remove(" in page
    assert "neardup._neardup" not in page
    for name in ("Clustering", "Document", "Reader", "read", "dedup", "compare"):
        assert getattr(neardup, name).__doc__


def test_calls_from_two_python_threads_take_turns():
    import threading

    d = neardup.Deduper(threads=2)
    docs = [{"url": f"https://t.example/{i}", "html": ARTICLE if i % 2 else OTHER} for i in range(200)]

    def add(part):
        d.add_many(part)

    workers = [threading.Thread(target=add, args=(docs[k::2],)) for k in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert len(d) == 200 and len(d.cluster().clusters()) == 2


def test_bytes_that_are_not_utf8_round_trip():
    url = b"https://a.example/caf\xe9".decode("utf-8", "surrogateescape")
    doc = neardup.Document(url=url, html=b"<p>caf\xe9</p>", charset="iso-8859-1")
    assert doc.url == url and doc.html == b"<p>caf\xe9</p>"
    d = neardup.Deduper(threads=1)
    assert d.add(doc) == 0 and d.add(url=url, html="<p>café</p>") == 1


def test_read_json_lines_and_folders(tmp_path):
    import json

    lines = [{"url": "https://j.example/1", "text": "plain words here"},
             {"url": "https://j.example/2", "html": "<p>plain words here</p>"}]
    (tmp_path / "pages.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "a.html").write_text("<p>plain words here</p>")
    docs = list(neardup.read([tmp_path / "pages.jsonl", str(tmp_path / "site")]))
    assert [(x.url, x.kind, x.input_index) for x in docs] == [
        ("https://j.example/1", "text", 0), ("https://j.example/2", "html", 0),
        (str(tmp_path / "site" / "a.html"), "html", 1)]
    assert docs[0].text == b"plain words here"
    c = neardup.Deduper(threads=1)
    c.add_many(docs)
    assert c.cluster().clusters() == [[0, 1, 2]]  # the same token sequence
