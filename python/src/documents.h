// Copyright neardup authors. Licensed under Apache-2.0.
//
// Documents in the Python module: neardup.Document (a neardup::Document
// held by Python), documents made from dicts and keywords, the reader that
// neardup.read() returns, and a DocumentSource over a Python iterable (what
// Deduper.add_many hands to Deduper::AddFrom, so that the library's workers
// sign one batch while the calling thread converts the next).
#ifndef NEARDUP_PYTHON_DOCUMENTS_H_
#define NEARDUP_PYTHON_DOCUMENTS_H_

#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "neardup/document.h"
#include "neardup/source.h"

namespace neardup_py {

namespace py = pybind11;

// neardup.Document: one page, as read or as given.
struct PyDocument {
  neardup::Document doc;
};

// The keys a document dict may hold (and the keywords of Deduper.add and
// neardup.Document): url, html, text, status, redirect, fetched,
// content_type, charset. html and text are str (taken as UTF-8) or bytes
// (the page's own bytes, decoded by its charset as dedup does).
// Fills *doc (cleared first) from a dict, a neardup.Document, or a str or
// bytes of HTML (`allow_body` only: compare's pages). Raises
// InvalidArgumentError for an unknown key, a value of the wrong type, both
// or neither of html and text; TypeError for another kind of object.
// REQUIRES: the GIL is held.
// `where` names the document in messages ("add_many: document 7").
struct DocumentName {
  const char* prefix;
  int64_t index = -1;  // -1: none
  std::string str() const;
};
void ToDocument(py::handle item, bool allow_body, const DocumentName& where, neardup::Document* doc);

// Keeps every warning a reader reports (up to kKept of them) and the
// first one of each of the first files (neardup::FirstWarnings), for the
// message of "no usable document". Called on the thread that reads; no
// Python.
class WarningCollector final : public neardup::ReadObserver {
 public:
  static constexpr size_t kKept = 1000;
  void OnWarning(const neardup::ReadWarning& warning) override;
  uint64_t seen() const { return first_.seen(); }
  const std::vector<neardup::ReadWarning>& kept() const { return kept_; }
  // "no usable document could be read: FILE: cannot open (why); FILE: reason
  // (message); N more warnings", as `neardup dedup` says it
  // (neardup::NothingReadLine).
  std::string NothingReadMessage(const std::vector<std::string>& inputs, const neardup::ReadStats& stats,
                                 const neardup::SourceOptions& options = neardup::SourceOptions()) const;

 private:
  neardup::FirstWarnings first_;
  std::vector<neardup::ReadWarning> kept_;
};

// ReadWarning as a dict: file, offset, in_decompressed_stream, reason,
// message. REQUIRES: the GIL is held.
py::dict WarningToDict(const neardup::ReadWarning& w);

// What neardup.read() returns: an iterator of neardup.Document over a
// DocumentSource. Reading releases the GIL. One thread at a time reads
// (the others wait).
class Reader {
 public:
  Reader(std::vector<std::string> inputs, std::unique_ptr<WarningCollector> warnings,
         std::unique_ptr<neardup::DocumentSource> source)
      : inputs_(std::move(inputs)), warnings_(std::move(warnings)), source_(std::move(source)) {}

  // The next document, or nullopt at the end. Raises FileError at the end
  // when no document at all could be read. REQUIRES: the GIL is held.
  std::optional<PyDocument> Next();

  // Runs fn(source) with the reader locked and the GIL released, and
  // returns what it returns (the Deduper's fast path: AddFrom straight from
  // the reader's source). REQUIRES: the GIL is held.
  template <class Fn>
  auto WithSource(Fn&& fn) {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mu_);
    return fn(source_.get());
  }
  // Marks the source read to its end (after WithSource read it all) and
  // raises FileError when not a single document could be read from it.
  // REQUIRES: the GIL is held.
  void EndOfInput();

  const std::vector<std::string>& inputs() const { return inputs_; }
  const neardup::ReadStats& stats() const { return source_->stats(); }
  const WarningCollector& warnings() const { return *warnings_; }
  uint64_t bytes_consumed() const { return source_->bytes_consumed(); }
  uint64_t bytes_total() const { return source_->bytes_total(); }

 private:
  std::vector<std::string> inputs_;
  std::unique_ptr<WarningCollector> warnings_;  // outlives source_
  std::unique_ptr<neardup::DocumentSource> source_;
  std::mutex mu_;
  bool ended_ = false;
};

// A DocumentSource over a Python iterable of dicts or neardup.Documents,
// for Deduper::AddFrom on the calling thread. Next() takes the GIL once per
// chunk of up to kChunkDocuments documents (or kChunkBytes of bodies),
// converts them, and lets it go. An error of the iterable or of a document
// ends the source; the caller raises it after AddFrom (error()).
// REQUIRES: made and destroyed with the GIL held; Next() called without it.
class IterableSource final : public neardup::DocumentSource {
 public:
  static constexpr size_t kChunkDocuments = 512;
  static constexpr size_t kChunkBytes = 8 << 20;

  explicit IterableSource(py::handle iterable);
  ~IterableSource() override;

  bool Next(neardup::Document* doc) override;
  const neardup::ReadStats& stats() const override { return stats_; }
  uint64_t bytes_consumed() const override { return stats_.payload_bytes; }
  uint64_t bytes_total() const override { return 0; }

  // The error that ended the source, if one did. REQUIRES: the GIL is held.
  const std::optional<py::error_already_set>& error() const { return error_; }

 private:
  void Refill();

  py::object it_;
  std::vector<neardup::Document> chunk_;
  size_t filled_ = 0, next_ = 0;
  uint64_t items_ = 0;  // items taken from the iterable
  bool end_ = false;
  std::optional<py::error_already_set> error_;
  neardup::ReadStats stats_;
};

}  // namespace neardup_py

#endif  // NEARDUP_PYTHON_DOCUMENTS_H_
