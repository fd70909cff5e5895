// Copyright neardup authors. Licensed under Apache-2.0.
//
// neardup._neardup: the Python module, a thin layer over include/neardup as
// the CLI is. Documents, the Deduper and its Clustering, the reader of every
// input `dedup` reads, `compare`, and `dedup` itself (whose Python wrapper in
// neardup/__init__.py loads the summary it writes). Every long call releases
// the GIL; Deduper.add_many hands a Python iterable to Deduper::AddFrom, so
// the library's threads sign one batch while this thread converts the next
// (and signs batches itself where it would wait: `threads` counts it).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "documents.h"
#include "errors.h"
#include "neardup/compare.h"
#include "neardup/deduper.h"
#include "neardup/engine.h"
#include "neardup/executor.h"
#include "neardup/kept_pages.h"
#include "neardup/method.h"
#include "neardup/source.h"
#include "options.h"

namespace neardup_py {

namespace {

// How often a long call wakes to look for Ctrl-C and call a progress
// callback, in seconds.
constexpr double kProgressInterval = 0.2;

// ---- progress and signals ----

py::dict ProgressToDict(const neardup::DedupProgress& p) {
  py::dict d;
  d["documents"] = p.documents;
  d["input_bytes_consumed"] = p.input_bytes_consumed;
  d["input_bytes_total"] = p.input_bytes_total;
  d["payload_bytes"] = p.payload_bytes;
  d["seconds"] = p.seconds;
  return d;
}

// A DedupProgressCallback for a call that runs with the GIL released: takes
// the GIL, stops the run on a signal (Ctrl-C) or an exception of the
// callback, and calls `callback` (may be None) with the progress as a dict;
// the callback returns False to cancel. Made and destroyed with the GIL.
class ProgressRelay {
 public:
  explicit ProgressRelay(py::object callback = py::none()) : callback_(std::move(callback)) {}

  neardup::DedupProgressCallback Callback() {
    return [this](const neardup::DedupProgress& p) {
      py::gil_scoped_acquire gil;
      try {
        if (PyErr_CheckSignals() != 0) throw py::error_already_set();
        if (!callback_.is_none()) {
          py::object r = callback_(ProgressToDict(p));
          if (r.ptr() == Py_False) return false;
        }
      } catch (py::error_already_set& e) {
        error_ = std::move(e);
        return false;
      } catch (py::builtin_exception& e) {  // nothing may escape into the library
        e.set_error();
        error_ = py::error_already_set();
        return false;
      } catch (const std::exception& e) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
        error_ = py::error_already_set();
        return false;
      }
      return true;
    };
  }

  // Raises the exception that stopped the run, if one did. REQUIRES: GIL.
  void RaiseIfStopped() {
    if (error_) throw std::move(*error_);
  }

 private:
  py::object callback_;
  std::optional<py::error_already_set> error_;
};

// ---- arguments ----

std::vector<std::string> Inputs(py::handle inputs, const char* caller) {
  std::vector<std::string> out;
  auto one = [&](py::handle v) {
    py::object p = py::reinterpret_steal<py::object>(PyOS_FSPath(v.ptr()));
    if (!p || !PyUnicode_Check(p.ptr())) {
      PyErr_Clear();
      RaiseInvalidArgument(std::string(caller) + ": an input is a str or os.PathLike, not " +
                           Py_TYPE(v.ptr())->tp_name);
    }
    out.push_back(Bytes(p));
  };
  if (PyUnicode_Check(inputs.ptr()) || PyObject_HasAttrString(inputs.ptr(), "__fspath__")) {
    one(inputs);
  } else {
    py::object it = py::reinterpret_steal<py::object>(PyObject_GetIter(inputs.ptr()));
    if (!it) {
      PyErr_Clear();
      RaiseInvalidArgument(std::string(caller) + ": inputs are a path or a list of paths");
    }
    for (py::handle v : inputs) one(v);
  }
  if (out.empty()) RaiseInvalidArgument(std::string(caller) + ": no input given");
  return out;
}

neardup::DedupOptions OptionsFrom(const py::dict& kwargs, const char* caller) {
  neardup::DedupOptions options;
  ApplyDedupOptions(kwargs, caller, &options);
  // memory_bytes bounds what the run adds to the interpreter: what the
  // process held when the options were made does not count (the peak
  // reported is the process's).
  uint64_t before = 0, peak = 0;
  ProcessMemory(&before, &peak);
  options.memory_probe = [before](uint64_t* resident_bytes, uint64_t* peak_resident_bytes) {
    ProcessMemory(resident_bytes, peak_resident_bytes);
    *resident_bytes = *resident_bytes > before ? *resident_bytes - before : 0;
  };
  return options;
}

int ThreadsFrom(int threads) {
  if (threads < 0) RaiseInvalidArgument("threads: 0 (every core) or more, not " + std::to_string(threads));
  if (threads == 0) threads = neardup::UsableCpus();
  return threads;
}

// One thread: everything on the calling thread (as the CLI does).
std::unique_ptr<neardup::Executor> ExecutorFor(int threads) {
  return neardup::NewExecutorForThreads(threads);
}

// ---- Deduper ----

class PyDeduper {
 public:
  PyDeduper(const std::string& method, int threads, const py::dict& kwargs) {
    py::dict all;  // the options, method included (kwargs left as given)
    for (auto [key, value] : kwargs) all[key] = value;
    if (all.contains("method")) RaiseInvalidArgument("Deduper: method given twice");
    all["method"] = method;
    options_ = OptionsFrom(all, "Deduper");
    threads_ = ThreadsFrom(threads);
    executor_ = ExecutorFor(threads_);
    auto d = neardup::Deduper::Create(options_, executor_.get());
    if (!d.ok()) Raise(d.status());
    deduper_ = std::move(*d);
  }

  // Runs fn(deduper) with the GIL released and the Deduper locked (one call
  // at a time: a Deduper is not thread-safe). REQUIRES: the GIL is held.
  template <class Fn>
  auto Locked(Fn&& fn) {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mu_);
    return fn(*deduper_);
  }

  const neardup::DedupOptions& options() const { return options_; }
  int threads() const { return threads_; }
  // For a caller that holds mu() itself, with the GIL released.
  std::mutex& mu() { return mu_; }
  neardup::Deduper& unlocked() { return *deduper_; }

 private:
  neardup::DedupOptions options_;
  int threads_ = 1;
  std::unique_ptr<neardup::Executor> executor_;  // outlives deduper_
  std::unique_ptr<neardup::Deduper> deduper_;
  std::mutex mu_;
};

std::vector<uint64_t> IdRange(uint64_t first, uint64_t end) {
  std::vector<uint64_t> ids(end - first);
  for (uint64_t i = first; i < end; ++i) ids[i - first] = i;
  return ids;
}

std::vector<uint64_t> AddMany(PyDeduper& self, py::iterable documents) {
  uint64_t first = 0, end = 0;
  ProgressRelay relay;
  neardup::Status status;
  if (py::isinstance<Reader>(documents)) {
    // Straight from the reader's source: no Python per page.
    Reader& reader = documents.cast<Reader&>();
    status = reader.WithSource([&](neardup::DocumentSource* source) {
      std::lock_guard<std::mutex> lock(self.mu());
      first = self.unlocked().size();
      neardup::Status s = self.unlocked().AddFrom(source, {}, relay.Callback(), kProgressInterval);
      end = self.unlocked().size();
      return s;
    });
    relay.RaiseIfStopped();
    if (!status.ok()) Raise(status);
    reader.EndOfInput();
  } else {
    IterableSource source(documents);
    status = self.Locked([&](neardup::Deduper& d) {
      first = d.size();
      neardup::Status s = d.AddFrom(&source, {}, relay.Callback(), kProgressInterval);
      end = d.size();
      return s;
    });
    if (source.error()) throw py::error_already_set(*source.error());
    relay.RaiseIfStopped();
    if (!status.ok()) Raise(status);
  }
  return IdRange(first, end);
}

// ---- Clustering ----

struct PyClustering {
  neardup::Clustering c;
  py::object labels, keepers;  // made on first use, read-only
};

neardup::DocId CheckId(const neardup::Clustering& c, int64_t id) {
  if (id < 0 || static_cast<uint64_t>(id) >= c.size()) {
    throw py::index_error("id " + std::to_string(id) + " is not in the clustering (it holds ids 0.." +
                          std::to_string(static_cast<int64_t>(c.size()) - 1) + ")");
  }
  return static_cast<neardup::DocId>(id);
}

int64_t ClusterOf(const neardup::Clustering& c, neardup::DocId id) {
  return c.removed(id) ? -1 : static_cast<int64_t>(c.cluster_of(id));
}

int64_t KeeperOf(const neardup::Clustering& c, neardup::DocId id) {
  return c.removed(id) ? -1 : static_cast<int64_t>(c.keeper_of(id));
}

template <int64_t (*Of)(const neardup::Clustering&, neardup::DocId)>
py::object Column(PyClustering& self, py::object* cache) {
  if (!*cache) {
    py::array_t<int64_t> a(static_cast<py::ssize_t>(self.c.size()));
    int64_t* out = a.mutable_data();
    for (neardup::DocId id = 0; id < self.c.size(); ++id) out[id] = Of(self.c, id);
    a.attr("flags").attr("writeable") = false;
    *cache = a;
  }
  return *cache;
}

// ---- compare ----

py::dict ComparisonToDict(const neardup::Comparison& c) {
  auto page = [](const neardup::ComparedPage& p) {
    py::dict d;
    d["source"] = Utf8(p.source);
    d["url"] = Utf8(p.url);
    d["terms"] = p.terms;
    d["charset"] = Utf8(p.charset);
    d["own_content"] = p.own_content;
    d["status"] = p.http_status;
    d["redirect"] = Utf8(p.redirect_target);
    d["revisit_of"] = Utf8(p.revisit_of);
    d["revisit_of_date"] = Utf8(p.revisit_of_date);
    return d;
  };
  py::dict d;
  d["a"] = page(c.a);
  d["b"] = page(c.b);
  d["exact_same_tokens"] = c.exact_same_tokens;
  d["exact_same_bytes"] = c.exact_same_bytes;
  d["same_site"] = c.same_site;
  d["redirect"] = c.redirect ? py::object(py::str(std::string(1, c.redirect))) : py::object(py::none());
  d["revisit"] = c.revisit ? py::object(py::str(std::string(1, c.revisit))) : py::object(py::none());
  d["jaccard"] = c.jaccard;
  d["b_similarity"] = c.b_similarity;
  d["num_supershingles"] = c.num_supershingles;
  d["b_similar"] = c.b_similar;
  d["c_similarity"] = c.c_similarity;
  d["simhash_bits"] = c.simhash_bits;
  d["c_similar"] = c.c_similar;
  d["term_difference"] = c.term_difference;
  py::list runs;
  for (const neardup::CompareRun& r : c.runs) {
    py::dict run;
    run["kind"] = r.kind == neardup::CompareRun::Kind::kEqual     ? "equal"
                  : r.kind == neardup::CompareRun::Kind::kOnlyInA ? "only_in_a"
                                                                  : "only_in_b";
    run["a_begin"] = r.a_begin;
    run["a_end"] = r.a_end;
    run["b_begin"] = r.b_begin;
    run["b_end"] = r.b_end;
    run["text"] = Utf8(r.text);
    runs.append(run);
  }
  d["runs"] = runs;
  const neardup::Comparison::Robust& r = c.robust;
  py::dict robust;
  robust["volatile_terms_a"] = r.volatile_terms_a;
  robust["volatile_terms_b"] = r.volatile_terms_b;
  robust["own_url_terms_a"] = r.own_url_terms_a;
  robust["own_url_terms_b"] = r.own_url_terms_b;
  robust["equal_after_normalization"] = r.equal_after_normalization;
  robust["shingles_differing"] = r.shingles_differing;
  robust["same_host"] = r.same_host;
  robust["edit_limit"] = r.edit_limit;
  robust["host_pages"] = r.host_pages;
  robust["template_known"] = r.template_known;
  robust["one_text_site"] = r.one_text_site;
  robust["two_titles_site"] = r.two_titles_site;
  robust["titles_name_two_items"] = r.titles_name_two_items;
  robust["titles_name_two_numbers"] = r.titles_name_two_numbers;
  robust["content_agreeing"] = r.content_agreeing;
  robust["content_positions"] = r.content_positions;
  robust["template_shared"] = r.template_shared;
  robust["main_terms_a"] = r.main_terms_a;
  robust["main_terms_b"] = r.main_terms_b;
  robust["main_agreeing"] = r.main_agreeing;
  robust["main_positions"] = r.main_positions;
  robust["main_boilerplate_alone"] = r.main_boilerplate_alone;
  robust["similarity"] = r.similarity;
  robust["clustered"] = r.clustered;
  robust["same_cluster"] = r.same_cluster;
  robust["kept_a"] = Utf8(r.kept_a);
  robust["kept_b"] = Utf8(r.kept_b);
  robust["candidacy"] = Utf8(r.candidacy);
  // Verification's decisions (None where the page is that kept page).
  auto decision = [](const std::optional<neardup::PairDecision>& d) -> py::object {
    if (!d) return py::none();
    py::dict v;
    v["duplicate"] = d->duplicate;
    v["similarity"] = d->similarity;
    v["reason"] = Utf8(d->reason);
    return v;
  };
  robust["a_with_kept_a"] = decision(r.a_with_kept_a);
  robust["b_with_kept_b"] = decision(r.b_with_kept_b);
  robust["a_with_kept_b"] = decision(r.a_with_kept_b);
  robust["b_with_kept_a"] = decision(r.b_with_kept_a);
  robust["similar"] = r.similar;
  robust["why"] = Utf8(r.why);
  d["robust"] = robust;
  py::dict verdicts;
  for (const neardup::Comparison::Verdict& v : c.verdicts) {
    py::dict verdict;
    verdict["duplicate"] = v.decision.duplicate;
    verdict["similarity"] = v.decision.similarity;
    verdict["reason"] = Utf8(v.decision.reason);
    verdicts[py::str(v.method)] = verdict;
  }
  d["verdicts"] = verdicts;
  return d;
}

py::dict ReadStatsToDict(const neardup::ReadStats& s) {
  py::dict d;
  d["inputs_opened"] = s.inputs_opened;
  d["documents"] = s.documents;
  d["records"] = s.records;
  d["input_bytes"] = s.input_bytes;
  d["payload_bytes"] = s.payload_bytes;
  d["skipped"] = s.skipped;
  return d;
}

// ---- docstrings ----

constexpr const char* kDocumentDoc = R"doc(One page: read from a crawl by neardup.read(), or made from keywords.

    Document(url="", html=None, text=None, status=0, redirect="", fetched="",
             content_type="", charset="")

Give html= (a page, through Henzinger's HTML-to-token rules) or text=
(plain text, which skips the HTML step), as str (taken as UTF-8) or bytes
(the page's own bytes in their charset, detected as `neardup dedup` does).
A Document can go wherever a document dict goes (Deduper.add, add_many,
compare).

Attributes (read-only): url; html and text (the body as bytes: one is
None); body and kind ("html" or "text"); status (HTTP status, 0 when not
HTTP); redirect (Location of a 3xx); revisit_of and revisit_of_date (for
a WARC revisit record: the URL and date of the earlier capture whose
content it is; a document dict takes them as keys too); fetched (WARC-Date, ISO 8601);
content_type; charset (declared); source and offset (the input file and
the record's byte offset, as clusters.tsv shows them); input_index.)doc";

constexpr const char* kDeduperDoc = R"doc(Finds exact and near-duplicate documents: add pages, remove them, cluster.

    d = neardup.Deduper(method="robust", threads=0, **options)
    i = d.add(url="https://a.example/x", html="<p>...</p>")  # 0, 1, 2, ...
    ids = d.add_many(docs)          # dicts, neardup.Documents, or neardup.read(...)
    d.remove(i)
    c = d.cluster()                 # a neardup.Clustering

method: a name ("robust", the default; "exact", "broder", "simhash",
"combined", "paragraphs", "chunks"; neardup.method_names()) or a spec
string such as "broder:k=8,no-wrap,level=virtually-identical".
threads: worker threads that sign pages in add_many (0: every core; 1: all
on the calling thread). The clusters never depend on it.

options: the fields of the library's DedupOptions, by name, with their
defaults:
  keeper="status,static-url,shorter-url,earlier-fetch,url-hash,input-order"
      rules that choose each cluster's kept page, in order
  verify=True         split off members failing the method's rule against
                      their cluster's kept page
  write_pairs=False   list near-duplicate pairs (Deduper.pairs())
  memory_bytes=2 GiB  memory budget of dedup(), every method: what the run
                      adds to the process; one that cannot fit raises
                      InvalidArgumentError before reading, or Error (code
                      "ResourceExhausted") while reading
  temp_dir=""         folder for their temporary files ("" the current one)
  batch_documents=32, in_flight_per_thread=2   batches of add_many
  broder={"shingle_size": 5, "wrap": None, "num_minhashes": 84,
          "supershingle_size": 14, "rabin_family": False, "seed": 1234,
          "level": "very-similar", "max_bucket_pages": 1000}
  simhash={"bits": 384, "threshold": 372, "seed": 1234,
           "combined_threshold": 355}
  robust={"shingle_size": 5, "num_minhashes": 84, "band_rows": 3,
          "template_min_pages": 2, "template_site_fraction": 0.05,
          "min_content_similarity": 0.2,
          "min_similarity_without_template": 0.8, "max_edit_shingles": 30,
          "max_same_site_edit_shingles": 20, "main_minhashes": 42,
          "main_band_rows": 2, "main_line_terms": 10, "main_min_terms": 50,
          "min_main_similarity": 0.5, "min_main_containment": 0.8,
          "minhash_bits": 32, "normalize_numbers": True,
          "normalize_own_url": True, "normalize_text_urls": True,
          "image_file_names": True, "compare_titles": True,
          "title_numbers": True, "title_function_words": True,
          "titles_decide": True, "seed": 1234}
  paragraphs={"sentences_per_paragraph": 3, "min_text_chars": 450,
              "min_shared_percent": 90}
  chunks={"chunking": "lines:4", "threshold": 15, "algorithm": "coarse",
          "coarse_hash_functions": 2, "seed": 1234}
A nested dict changes only the keys it names. An unknown name, or a value
of the wrong type or out of range, raises neardup.InvalidArgumentError.

Contracts (the library's): ids are 0, 1, 2, ... in add order, never reused;
cluster() after remove(i) equals cluster() of a Deduper that never saw i;
the clusters do not depend on the thread count; cluster() may be called
again after more adds and removals (paragraphs and chunks: once, and no
remove). A Deduper keeps no URL or body (about 1 kB per page with robust).
Calls from several Python threads take turns.)doc";

constexpr const char* kClusteringDoc = R"doc(The clusters of every id added before Deduper.cluster() was called.

A cluster's id is its smallest member id (a page alone is its own
cluster); each cluster keeps one page, chosen by the keeper rules. A
removed id has no cluster: -1 in cluster_of, keeper_of, labels and
keepers, and role "removed".

    c.labels     numpy int64 array: the cluster id of every id (-1 removed)
    c.keepers    numpy int64 array: the kept page of every id's cluster
    c.clusters() the clusters of two or more pages, as lists of ids

Ids out of range raise IndexError.)doc";

constexpr const char* kReaderDoc = R"doc(An iterator of neardup.Document over inputs (from neardup.read()).

Damaged records are skipped, as `neardup dedup` skips them: `warnings`
lists them (the first 1,000) and `stats` counts them. When the inputs end
without a single document, the iterator raises neardup.FileError naming
the files and why. Deduper.add_many(reader) reads it with no Python code
per page.)doc";

// The keyword arguments of Document(...) and Deduper.add(...) as the dict
// ToDocument reads.
py::dict DocumentKeywords(py::object url, py::object html, py::object text, py::object status, py::object redirect,
                          py::object fetched, py::object content_type, py::object charset) {
  py::dict d;
  d["url"] = url;
  d["html"] = html;
  d["text"] = text;
  d["status"] = status;
  d["redirect"] = redirect;
  d["fetched"] = fetched;
  d["content_type"] = content_type;
  d["charset"] = charset;
  return d;
}

}  // namespace

}  // namespace neardup_py

PYBIND11_MODULE(_neardup, m) {
  using namespace neardup_py;  // NOLINT: the module's own layer
  m.doc() = "neardup's compiled core; import neardup, not this module.";
  RegisterErrors(m);
  // Classes print as neardup.X (help(), reprs): they are named while the
  // module calls itself "neardup", where neardup/__init__.py exports them.
  py::object own_name = m.attr("__name__");
  m.attr("__name__") = "neardup";

  py::class_<PyDocument>(m, "Document", kDocumentDoc)
      .def(py::init([](py::object url, py::object html, py::object text, py::object status, py::object redirect,
                       py::object fetched, py::object content_type, py::object charset) {
             PyDocument doc;
             ToDocument(DocumentKeywords(url, html, text, status, redirect, fetched, content_type, charset), false,
                        DocumentName{"Document"}, &doc.doc);
             return doc;
           }),
           py::kw_only(), py::arg("url") = py::none(), py::arg("html") = py::none(), py::arg("text") = py::none(),
           py::arg("status") = py::none(), py::arg("redirect") = py::none(), py::arg("fetched") = py::none(),
           py::arg("content_type") = py::none(), py::arg("charset") = py::none())
      .def_property_readonly("url", [](const PyDocument& d) { return Utf8(d.doc.url); })
      .def_property_readonly("html",
                             [](const PyDocument& d) -> py::object {
                               if (d.doc.kind != neardup::ContentKind::kHtml) return py::none();
                               return py::bytes(d.doc.body);
                             })
      .def_property_readonly("text",
                             [](const PyDocument& d) -> py::object {
                               if (d.doc.kind != neardup::ContentKind::kText) return py::none();
                               return py::bytes(d.doc.body);
                             })
      .def_property_readonly("body", [](const PyDocument& d) { return py::bytes(d.doc.body); })
      .def_property_readonly(
          "kind", [](const PyDocument& d) { return d.doc.kind == neardup::ContentKind::kHtml ? "html" : "text"; })
      .def_property_readonly("status", [](const PyDocument& d) { return d.doc.http_status; })
      .def_property_readonly("redirect", [](const PyDocument& d) { return Utf8(d.doc.redirect_target); })
      .def_property_readonly("revisit_of", [](const PyDocument& d) { return Utf8(d.doc.revisit_of); })
      .def_property_readonly("revisit_of_date", [](const PyDocument& d) { return Utf8(d.doc.revisit_of_date); })
      .def_property_readonly("fetched", [](const PyDocument& d) { return Utf8(d.doc.fetch_date); })
      .def_property_readonly("content_type", [](const PyDocument& d) { return Utf8(d.doc.content_type); })
      .def_property_readonly("charset", [](const PyDocument& d) { return Utf8(d.doc.declared_charset); })
      .def_property_readonly("source", [](const PyDocument& d) { return Utf8(d.doc.source); })
      .def_property_readonly("offset", [](const PyDocument& d) { return d.doc.source_offset; })
      .def_property_readonly("input_index", [](const PyDocument& d) { return d.doc.input_index; })
      .def("__repr__", [](const PyDocument& d) {
        return "<neardup.Document " + py::repr(Utf8(d.doc.url)).cast<std::string>() + " " +
               (d.doc.kind == neardup::ContentKind::kHtml ? "html" : "text") + ", " +
               std::to_string(d.doc.body.size()) + " bytes" +
               (d.doc.http_status ? ", status " + std::to_string(d.doc.http_status) : "") + ">";
      });

  py::class_<Reader>(m, "Reader", kReaderDoc)
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__",
           [](Reader& r) {
             std::optional<PyDocument> d = r.Next();
             if (!d) throw py::stop_iteration();
             return std::move(*d);
           })
      .def_property_readonly(
          "stats",
          [](Reader& r) {
            neardup::ReadStats s = r.WithSource([](neardup::DocumentSource* src) { return src->stats(); });
            return ReadStatsToDict(s);
          },
          "Counts so far: inputs_opened, documents, records, input_bytes, payload_bytes, and skipped\n"
          "(records not turned into documents, by reason: type:request, non-text, truncated, ...).")
      .def_property_readonly(
          "warnings",
          [](Reader& r) {
            std::vector<neardup::ReadWarning> kept =
                r.WithSource([&](neardup::DocumentSource*) { return r.warnings().kept(); });
            py::list out;
            for (const neardup::ReadWarning& w : kept) out.append(WarningToDict(w));
            return out;
          },
          "The first 1,000 warnings so far, as dicts: file, offset, in_decompressed_stream, reason,\n"
          "message (what `neardup dedup` writes to warnings.tsv).")
      .def_property_readonly(
          "inputs",
          [](const Reader& r) {
            py::list out;
            for (const std::string& input : r.inputs()) out.append(Utf8(input));
            return out;
          },
          "The inputs, as given.");

  py::class_<PyClustering>(m, "Clustering", kClusteringDoc)
      .def("__len__", [](const PyClustering& self) { return self.c.size(); })
      .def_property_readonly("labels", [](PyClustering& self) { return Column<ClusterOf>(self, &self.labels); },
                             "Cluster id of every id, as a read-only numpy int64 array (-1: removed).")
      .def_property_readonly("keepers", [](PyClustering& self) { return Column<KeeperOf>(self, &self.keepers); },
                             "Id of the page every id's cluster keeps, as a read-only numpy int64 array\n"
                             "(an id alone keeps itself; -1: removed).")
      .def(
          "cluster_of", [](const PyClustering& self, int64_t id) { return ClusterOf(self.c, CheckId(self.c, id)); },
          py::arg("id"), "The cluster id of `id`: the smallest id among its members; -1 when removed.")
      .def(
          "keeper_of", [](const PyClustering& self, int64_t id) { return KeeperOf(self.c, CheckId(self.c, id)); },
          py::arg("id"), "The id of the page `id`'s cluster keeps (`id` itself when alone); -1 when removed.")
      .def(
          "role_of", [](const PyClustering& self, int64_t id) { return neardup::DocRoleName(self.c.role_of(CheckId(self.c, id))); },
          py::arg("id"), "\"single\", \"keep\", \"duplicate\" or \"removed\".")
      .def(
          "method_of", [](const PyClustering& self, int64_t id) { return std::string(self.c.method_of(CheckId(self.c, id))); },
          py::arg("id"),
          "What put the page in its cluster: \"single\", \"exact\" (an exact copy of the kept page,\n"
          "or a kept page whose cluster holds exact copies only), the method's name, or \"removed\".")
      .def(
          "similarity_of", [](const PyClustering& self, int64_t id) { return self.c.similarity_of(CheckId(self.c, id)); },
          py::arg("id"), "The method's similarity to the kept page (1 for exact copies and single pages).")
      .def(
          "keeper_reason_of",
          [](const PyClustering& self, int64_t id) { return self.c.keeper_reason_of(CheckId(self.c, id)); },
          py::arg("id"),
          "The keeper rule that set the cluster's kept page apart from the runner-up (\"status\",\n"
          "\"shorter-url\", ..., \"input-order\"); \"single\" for a page alone.")
      .def(
          "cluster_size", [](const PyClustering& self, int64_t id) { return self.c.cluster_size(CheckId(self.c, id)); },
          py::arg("id"), "Members of `id`'s cluster, `id` included (1 alone, 0 removed).")
      .def(
          "removed", [](const PyClustering& self, int64_t id) { return self.c.removed(CheckId(self.c, id)); },
          py::arg("id"), "Whether `id` was removed before the clustering was made.")
      .def(
          "clusters",
          [](const PyClustering& self, uint64_t min_size) {
            // Members grouped by cluster id, clusters in order of their ids.
            std::vector<std::vector<int64_t>> by_cluster(self.c.size());
            for (neardup::DocId id = 0; id < self.c.size(); ++id) {
              if (!self.c.removed(id)) by_cluster[self.c.cluster_of(id)].push_back(static_cast<int64_t>(id));
            }
            py::list out;
            for (const auto& members : by_cluster) {
              if (!members.empty() && members.size() >= min_size) out.append(py::cast(members));
            }
            return out;
          },
          py::arg("min_size") = 2,
          "The clusters of at least `min_size` pages (1: every live page), each a list of ids in\n"
          "increasing order, in order of their cluster ids.")
      .def_property_readonly("num_clusters", [](const PyClustering& self) { return self.c.num_clusters(); },
                             "Clusters of two or more pages.")
      .def_property_readonly("documents_in_clusters",
                             [](const PyClustering& self) { return self.c.documents_in_clusters(); },
                             "Pages in clusters of two or more.")
      .def_property_readonly("method", [](const PyClustering& self) { return self.c.method_name(); },
                             "The method the clustering was made with.")
      .def("__repr__", [](const PyClustering& self) {
        return "<neardup.Clustering " + std::to_string(self.c.size()) + " ids, " +
               std::to_string(self.c.num_clusters()) + " clusters of two or more holding " +
               std::to_string(self.c.documents_in_clusters()) + " pages>";
      });

  py::class_<PyDeduper>(m, "Deduper", kDeduperDoc)
      .def(py::init<const std::string&, int, const py::kwargs&>(), py::arg("method") = "robust", py::kw_only(),
           py::arg("threads") = 0)
      .def(
          "add",
          [](PyDeduper& self, py::object document, py::object url, py::object html, py::object text,
             py::object status, py::object redirect, py::object fetched, py::object content_type,
             py::object charset) -> uint64_t {
            neardup::Document doc;
            if (!document.is_none()) {
              for (py::handle v : {url, html, text, status, redirect, fetched, content_type, charset}) {
                if (!v.is_none()) RaiseInvalidArgument("add: give a document or keywords, not both");
              }
              ToDocument(document, false, DocumentName{"add: document"}, &doc);
            } else {
              ToDocument(DocumentKeywords(url, html, text, status, redirect, fetched, content_type, charset), false,
                         DocumentName{"add"}, &doc);
            }
            neardup::Result<neardup::DocId> id = self.Locked([&](neardup::Deduper& d) { return d.Add(doc); });
            if (!id.ok()) Raise(id.status());
            return *id;
          },
          py::arg("document") = py::none(), py::kw_only(), py::arg("url") = py::none(), py::arg("html") = py::none(),
          py::arg("text") = py::none(), py::arg("status") = py::none(), py::arg("redirect") = py::none(),
          py::arg("fetched") = py::none(), py::arg("content_type") = py::none(), py::arg("charset") = py::none(),
          R"doc(Adds one page and returns its id (0, 1, 2, ... in add order).

Either keywords, add(url=..., html=... or text=..., status=200,
redirect="...", fetched="2024-05-01T12:00:00Z", content_type="text/html",
charset="utf-8"), or one document: a dict with those keys or a
neardup.Document. html and text are str or bytes. Signs the page on the
calling thread, without the GIL.)doc")
      .def("add_many", &AddMany, py::arg("documents"),
           R"doc(Adds every document of an iterable and returns their ids (a list).

documents: dicts with add()'s keys, neardup.Documents, or a reader from
neardup.read() (read straight from its files, no Python code per page).
The GIL is released while the Deduper's threads sign the pages; this
thread takes it only to convert the next chunk of documents. If the
iterable raises or a document is invalid, the documents before it stay
added (len(d) tells how many) and the error is raised.)doc")
      .def(
          "remove",
          [](PyDeduper& self, int64_t id) {
            if (id < 0) Raise(neardup::Status::NotFound("no document with id " + std::to_string(id)), ErrorContext::kIds);
            neardup::Status s = self.Locked([&](neardup::Deduper& d) { return d.Remove(static_cast<neardup::DocId>(id)); });
            if (!s.ok()) Raise(s, ErrorContext::kIds);
          },
          py::arg("id"),
          R"doc(Removes a page: the next cluster() is that of a Deduper that never saw it.

Raises neardup.NotFoundError for an id never added or already removed, and
neardup.NotSupportedError with the batch-only methods (paragraphs, chunks).)doc")
      .def(
          "cluster",
          [](PyDeduper& self) {
            neardup::Result<neardup::Clustering> c = self.Locked([](neardup::Deduper& d) { return d.Cluster(); });
            if (!c.ok()) Raise(c.status());
            return PyClustering{std::move(c).value(), py::object(), py::object()};
          },
          R"doc(Clusters the live pages and returns a neardup.Clustering (without the GIL).)doc")
      .def(
          "pairs",
          [](PyDeduper& self) {
            struct Pair {
              neardup::DocId a, b;
              std::vector<double> values;
            };
            std::vector<Pair> pairs;
            std::vector<std::string> columns;
            neardup::Status s = self.Locked([&](neardup::Deduper& d) {
              columns = d.pair_columns();
              return d.ForEachPair([&](neardup::DocId a, neardup::DocId b, std::span<const double> v) {
                pairs.push_back({a, b, std::vector<double>(v.begin(), v.end())});
                return neardup::Status::OK();
              });
            });
            if (!s.ok()) Raise(s);
            py::list out;
            for (const Pair& p : pairs) {
              py::dict values;
              for (size_t i = 0; i < columns.size() && i < p.values.size(); ++i) values[py::str(columns[i])] = p.values[i];
              out.append(py::make_tuple(p.a, p.b, values));
            }
            return out;
          },
          R"doc(The near-duplicate pairs the last cluster() listed (with write_pairs=True).

A list of (id_a, id_b, values): values maps the method's pair columns
(pairs.tsv's columns after url_a and url_b, e.g. supershingles_shared) to
their values. Raises neardup.Error before the first cluster().)doc")
      .def(
          "explain",
          [](PyDeduper& self, int64_t a, int64_t b) {
            if (a < 0 || b < 0) Raise(neardup::Status::NotFound("no document with a negative id"), ErrorContext::kIds);
            neardup::Result<neardup::PairDecision> d = self.Locked([&](neardup::Deduper& dd) {
              return dd.Explain(static_cast<neardup::DocId>(a), static_cast<neardup::DocId>(b));
            });
            if (!d.ok()) Raise(d.status(), ErrorContext::kIds);
            py::dict out;
            out["duplicate"] = d->duplicate;
            out["similarity"] = d->similarity;
            out["reason"] = Utf8(d->reason);
            return out;
          },
          py::arg("a"), py::arg("b"),
          R"doc(The decision the last cluster() took on pages a and b (Deduper::Explain).

A dict {'duplicate': bool, 'similarity': float, 'reason': str}: exact
duplicates, or the method's one pair rule with what the clustering learned
from every page (the robust method's site templates). Raises neardup.Error
before the first cluster(), neardup.NotFoundError for an unknown or
removed id.)doc")
      .def("__len__", [](PyDeduper& self) { return self.Locked([](neardup::Deduper& d) { return d.size(); }); },
           "Ids added so far, removed ones included (the length of a new clustering's labels).")
      .def_property_readonly(
          "live", [](PyDeduper& self) { return self.Locked([](neardup::Deduper& d) { return d.live(); }); },
          "Pages added and not removed.")
      .def_property_readonly("threads", &PyDeduper::threads, "Threads that sign pages, the calling thread included.")
      .def_property_readonly(
          "method", [](PyDeduper& self) { return self.Locked([](neardup::Deduper& d) { return d.method().Spec(); }); },
          "The method's spec string, every parameter included (e.g. robust:k=5,m=84,...).")
      .def_property_readonly(
          "options", [](const PyDeduper& self) { return DedupOptionsToDict(self.options()); },
          "The options the Deduper was made with, as Deduper() takes them.")
      .def("__repr__", [](PyDeduper& self) {
        uint64_t size = 0, live = 0;
        std::string spec;
        self.Locked([&](neardup::Deduper& d) {
          size = d.size();
          live = d.live();
          spec = d.method().Spec();
        });
        return "<neardup.Deduper " + spec + ": " + std::to_string(size) + " ids, " + std::to_string(live) +
               " live; " + std::to_string(self.threads()) + " thread" + (self.threads() == 1 ? "" : "s") + ">";
      });

  m.attr("__name__") = own_name;

  m.def(
      "read",
      [](py::object inputs, const py::kwargs& kwargs) {
        std::vector<std::string> paths = Inputs(inputs, "read");
        neardup::SourceOptions options;
        ApplySourceOptions(kwargs, "read", &options);
        auto warnings = std::make_unique<WarningCollector>();
        auto source = neardup::OpenDocumentSource(paths, options, nullptr, warnings.get());
        if (!source.ok()) Raise(source.status());
        return std::make_unique<Reader>(std::move(paths), std::move(warnings), std::move(*source));
      },
      py::arg("inputs"),
      R"doc(read(inputs, **options) -> neardup.Reader

Reads every document of `inputs`, as `neardup dedup` reads them: a path or
a list of paths of WARC/ARC files (plain, per-record gzip, whole-file gzip
or zstd), folders of .html/.htm/.txt files (recursive, also .gz) and of
crawl files (named .warc, .arc, .wet, .jsonl or .ndjson, also .gz or .zst),
JSON Lines files with url and html or text fields (and optional status, date
and redirect, a 3xx's Location), or "-" (JSON Lines on standard input). Returns an iterator of neardup.Document (see neardup.Reader).

options: max_record_bytes=64 MiB (larger records are skipped),
keep_non_2xx=True (False skips HTTP responses whose status is not 2xx),
folder_extensions=[".html", ".htm", ".txt"].)doc");

  m.def(
      "compare",
      [](py::object a, py::object b, const py::kwargs& kwargs) {
        neardup::DedupOptions options = OptionsFrom(kwargs, "compare");
        neardup::Document da, db;
        ToDocument(a, true, DocumentName{"compare: a"}, &da);
        ToDocument(b, true, DocumentName{"compare: b"}, &db);
        neardup::Result<neardup::Comparison> c = [&] {
          py::gil_scoped_release release;
          return neardup::CompareDocuments(da, db, options);
        }();
        if (!c.ok()) Raise(c.status());
        return ComparisonToDict(*c);
      },
      py::arg("a"), py::arg("b"),
      R"doc(compare(a, b, **options) -> dict

Explains one pair as `neardup compare` does: every method's rule with its
decision and reason, and what each method sees. a and b are pages: a str or
bytes of HTML, a dict with Deduper.add's keys (a url= lets robust tell the
page's site and own URL), or a neardup.Document. options as Deduper's
(broder=, simhash=, robust=, ...).

The dict: "verdicts" maps each method ("exact", "broder", "simhash",
"combined", "robust", "paragraphs", "chunks") to {"duplicate", "similarity",
"reason"}, the decision `neardup dedup` would reach on the pair; then "a"
and "b" (source, url, terms, charset, own_content, status, redirect: the
Location as sent; revisit_of and revisit_of_date: the capture a revisit
names), exact_same_bytes, exact_same_tokens, same_site,
redirect ("a" or "b" when that page redirects to the other, so that
`neardup dedup` puts the two in one cluster; else None), revisit ("a" or
"b" when that page is a revisit of the other; else None), jaccard (resemblance of the shingle sets), b_similarity of
num_supershingles, b_similar, c_similarity of simhash_bits, c_similar,
term_difference and "runs" (the diff of the two token sequences: kind
"equal", "only_in_a" or "only_in_b", term ranges, text), and "robust" (terms
normalized, shingles differing, the template, the decision and why).)doc");

  m.def(
      "compare_files",
      [](py::object a, py::object b, py::object inputs, const py::kwargs& kwargs) {
        neardup::DedupOptions options = OptionsFrom(kwargs, "compare_files");
        const std::string pa = Inputs(a, "compare_files")[0], pb = Inputs(b, "compare_files")[0];
        std::vector<std::string> in;
        if (!inputs.is_none()) in = Inputs(inputs, "compare_files");
        neardup::Result<neardup::Comparison> c = [&] {
          py::gil_scoped_release release;
          return neardup::ComparePages(pa, pb, options, nullptr, in);
        }();
        if (!c.ok()) Raise(c.status());
        return ComparisonToDict(*c);
      },
      py::arg("a"), py::arg("b"), py::kw_only(), py::arg("inputs") = py::none(),
      R"doc(compare_files(a, b, *, inputs=None, **options) -> dict

`neardup compare A B [--input CRAWL...]`: without inputs, a and b are files
(the first document of any input `dedup` reads); with inputs (a path or a
list), they are URLs of pages in those crawls, whose pages of the two hosts
teach robust their templates. Returns the dict compare() returns; raises
neardup.FileError when a page cannot be found.)doc");

  m.def(
      "_dedup",
      [](py::object inputs, py::object out_dir, int threads, py::object progress, const py::dict& kwargs) {
        std::vector<std::string> paths = Inputs(inputs, "dedup");
        const std::string out = Inputs(out_dir, "dedup: out")[0];
        neardup::DedupOptions options = OptionsFrom(kwargs, "dedup");
        threads = ThreadsFrom(threads);
        std::unique_ptr<neardup::Executor> executor = ExecutorFor(threads);
        WarningCollector warnings;
        ProgressRelay relay(progress);
        neardup::Result<neardup::DedupSummary> r = [&] {
          py::gil_scoped_release release;
          return neardup::RunDedup(paths, out, options, executor.get(), nullptr, &warnings, relay.Callback(),
                                   kProgressInterval);
        }();
        relay.RaiseIfStopped();
        if (!r.ok()) Raise(r.status());
        if (r->documents == 0) RaiseFileError(warnings.NothingReadMessage(paths, r->read, options.source));
        return r->summary_path;
      },
      py::arg("inputs"), py::arg("out"), py::arg("threads"), py::arg("progress"), py::arg("options"),
      "RunDedup; returns the path of summary.json. Use neardup.dedup().");

  m.def(
      "_keep",
      [](py::object run_dir, py::object out, bool duplicates, py::object format, py::object inputs, bool annotate) {
        const std::string dir = Inputs(run_dir, "keep: run")[0];
        const std::string path = Inputs(out, "keep: out")[0];
        neardup::KeptPagesOptions options;
        options.pages = duplicates ? neardup::KeptPagesOptions::Pages::kDuplicates
                                   : neardup::KeptPagesOptions::Pages::kKept;
        if (format.is_none()) {
          options.format = neardup::KeptPagesFormatOfName(path);
        } else {
          neardup::Result<neardup::KeptPagesOptions::Format> f =
              neardup::ParseKeptPagesFormat(format.cast<std::string>());
          if (!f.ok()) Raise(f.status());
          options.format = *f;
        }
        if (!inputs.is_none()) options.inputs = Inputs(inputs, "keep: inputs");
        options.annotate = annotate;
        WarningCollector warnings;
        neardup::Result<neardup::KeptPagesResult> r = [&] {
          py::gil_scoped_release release;
          return neardup::WriteKeptPages(dir, path, options, nullptr, &warnings);
        }();
        if (!r.ok()) Raise(r.status());
        py::dict d;
        d["rows"] = r->rows;
        d["written"] = r->written;
        d["from_json_lines"] = r->from_json_lines;
        d["bytes_written"] = r->bytes_written;
        py::list warning_list;
        for (const neardup::ReadWarning& w : warnings.kept()) warning_list.append(WarningToDict(w));
        d["warnings"] = warning_list;
        return d;
      },
      py::arg("run"), py::arg("out"), py::arg("duplicates"), py::arg("format"), py::arg("inputs"), py::arg("annotate"),
      "WriteKeptPages. Use neardup.keep().");

  m.def("method_names", &neardup::MethodNames, "The method names Deduper(method=...) knows, in the README's order.");

  m.def(
      "set_simd_kernel",
      [](const std::string& level) {
        neardup::Status s = neardup::SetSimdKernel(level);
        if (!s.ok()) Raise(s);
      },
      py::arg("level"),
      R"doc(Caps the SIMD kernels of the sketches at "portable", "avx2" or "avx512".

Process-wide; call it before the first page is signed (importing neardup
calls it with $NEARDUP_SIMD when set, as the CLI does). The best kernel the
CPU supports is the default.)doc");

  m.attr("__version__") = neardup::Version();
}
