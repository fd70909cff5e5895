// Copyright neardup authors. Licensed under Apache-2.0.
#include "documents.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "errors.h"

namespace neardup_py {

namespace {

std::string TypeName(py::handle v) { return Py_TYPE(v.ptr())->tp_name; }

// Messages name the field as "WHERE: KEY"; built only on an error.
std::string Field(const DocumentName& where, const char* key) { return where.str() + ": " + key; }

// str (as UTF-8) or bytes-like, into *out.
void SetBytes(py::handle v, const DocumentName& where, const char* key, std::string* out) {
  PyObject* o = v.ptr();
  if (PyUnicode_Check(o)) {
    *out = Bytes(o);
  } else if (PyBytes_Check(o)) {
    out->assign(PyBytes_AS_STRING(o), static_cast<size_t>(PyBytes_GET_SIZE(o)));
  } else if (PyByteArray_Check(o)) {
    out->assign(PyByteArray_AS_STRING(o), static_cast<size_t>(PyByteArray_GET_SIZE(o)));
  } else {
    RaiseInvalidArgument(Field(where, key) + ": expected str or bytes, got " + TypeName(v));
  }
}

void SetString(py::handle v, const DocumentName& where, const char* key, std::string* out) {
  if (!PyUnicode_Check(v.ptr())) RaiseInvalidArgument(Field(where, key) + ": expected a str, got " + TypeName(v));
  *out = Bytes(v);
}

void SetStatus(py::handle v, const DocumentName& where, const char* key, int* out) {
  if (PyBool_Check(v.ptr()) || !PyLong_Check(v.ptr())) {
    RaiseInvalidArgument(Field(where, key) + ": expected an int, got " + TypeName(v));
  }
  const long status = PyLong_AsLong(v.ptr());
  if (status < 0 || status > 999) {
    if (PyErr_Occurred()) PyErr_Clear();
    RaiseInvalidArgument(Field(where, key) + ": an HTTP status is in 0..999");
  }
  *out = static_cast<int>(status);
}

constexpr const char* kKeys = "url, html, text, status, redirect, revisit_of, revisit_of_date, fetched, content_type, charset";

// One key of a document dict; false for an unknown key.
bool SetKey(const char* key, py::handle v, const DocumentName& where, neardup::Document* doc, bool* has_body) {
  if (v.is_none()) return true;  // as if absent
  if (std::strcmp(key, "url") == 0) {
    SetString(v, where, key, &doc->url);
  } else if (std::strcmp(key, "html") == 0 || std::strcmp(key, "text") == 0) {
    if (*has_body) RaiseInvalidArgument(where.str() + ": give html or text, not both");
    *has_body = true;
    doc->kind = key[0] == 'h' ? neardup::ContentKind::kHtml : neardup::ContentKind::kText;
    SetBytes(v, where, key, &doc->body);
  } else if (std::strcmp(key, "status") == 0) {
    SetStatus(v, where, key, &doc->http_status);
  } else if (std::strcmp(key, "redirect") == 0) {
    SetString(v, where, key, &doc->redirect_target);
  } else if (std::strcmp(key, "revisit_of") == 0) {
    SetString(v, where, key, &doc->revisit_of);
  } else if (std::strcmp(key, "revisit_of_date") == 0) {
    SetString(v, where, key, &doc->revisit_of_date);
  } else if (std::strcmp(key, "fetched") == 0) {
    SetString(v, where, key, &doc->fetch_date);
  } else if (std::strcmp(key, "content_type") == 0) {
    SetString(v, where, key, &doc->content_type);
  } else if (std::strcmp(key, "charset") == 0) {
    SetString(v, where, key, &doc->declared_charset);
  } else {
    return false;
  }
  return true;
}

}  // namespace

std::string DocumentName::str() const {
  return index < 0 ? std::string(prefix) : std::string(prefix) + " " + std::to_string(index);
}

void ToDocument(py::handle item, bool allow_body, const DocumentName& where, neardup::Document* doc) {
  PyObject* o = item.ptr();
  if (py::isinstance<PyDocument>(item)) {
    *doc = item.cast<const PyDocument&>().doc;
    return;
  }
  doc->Clear();
  if (allow_body && (PyUnicode_Check(o) || PyBytes_Check(o) || PyByteArray_Check(o))) {
    SetBytes(item, where, "html", &doc->body);
    return;
  }
  if (!PyDict_Check(o)) {
    PyErr_SetString(PyExc_TypeError, (where.str() + ": expected a dict (" + kKeys + ")" +
                                      (allow_body ? ", a str or bytes of HTML" : "") +
                                      " or a neardup.Document, got " + TypeName(item))
                                         .c_str());
    throw py::error_already_set();
  }
  bool has_body = false;
  PyObject* key = nullptr;
  PyObject* value = nullptr;
  Py_ssize_t pos = 0;
  while (PyDict_Next(o, &pos, &key, &value)) {
    const char* name = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : nullptr;
    if (name == nullptr) {
      PyErr_Clear();
      RaiseInvalidArgument(where.str() + ": keys are str (" + kKeys + ")");
    }
    if (!SetKey(name, value, where, doc, &has_body)) {
      RaiseInvalidArgument(where.str() + ": unknown key '" + name + "' (valid: " + kKeys + ")");
    }
  }
  if (!doc->revisit_of.empty()) {
    // A revisit's content is the capture it names.
    if (!doc->body.empty()) RaiseInvalidArgument(where.str() + ": a revisit (revisit_of) has no html or text of its own");
    return;
  }
  if (!doc->revisit_of_date.empty()) RaiseInvalidArgument(where.str() + ": revisit_of_date needs revisit_of");
  if (!has_body) RaiseInvalidArgument(where.str() + ": needs html or text");
}

// ---- warnings ----

void WarningCollector::OnWarning(const neardup::ReadWarning& warning) {
  first_.OnWarning(warning);
  if (kept_.size() < kKept) kept_.push_back(warning);
}

std::string WarningCollector::NothingReadMessage(const std::vector<std::string>& inputs,
                                                 const neardup::ReadStats& stats,
                                                 const neardup::SourceOptions& options) const {
  return neardup::NothingReadLine(inputs, first_, stats, options);
}

py::dict WarningToDict(const neardup::ReadWarning& w) {
  py::dict d;
  d["file"] = Utf8(w.file);
  d["offset"] = w.offset;
  d["in_decompressed_stream"] = w.in_decompressed_stream;
  d["reason"] = w.reason_key;
  d["message"] = Utf8(w.message);
  return d;
}

// ---- Reader ----

std::optional<PyDocument> Reader::Next() {
  PyDocument d;
  bool got = false;
  {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mu_);
    if (!ended_) {
      got = source_->Next(&d.doc);
      ended_ = !got;
    }
  }
  if (!got) {
    EndOfInput();
    return std::nullopt;
  }
  return d;
}

void Reader::EndOfInput() {
  const std::string nothing_read = WithSource([this](neardup::DocumentSource* source) {
    ended_ = true;
    return source->stats().documents == 0 ? warnings_->NothingReadMessage(inputs_, source->stats()) : std::string();
  });
  if (!nothing_read.empty()) RaiseFileError(nothing_read);
}

// ---- IterableSource ----

IterableSource::IterableSource(py::handle iterable) {
  it_ = py::reinterpret_steal<py::object>(PyObject_GetIter(iterable.ptr()));
  if (!it_) throw py::error_already_set();
}

IterableSource::~IterableSource() = default;

bool IterableSource::Next(neardup::Document* doc) {
  if (next_ == filled_) {
    if (end_) return false;
    Refill();
    if (filled_ == 0) return false;
  }
  std::swap(*doc, chunk_[next_++]);
  ++stats_.documents;
  stats_.payload_bytes += doc->body.size();
  return true;
}

void IterableSource::Refill() {
  py::gil_scoped_acquire gil;
  if (chunk_.size() < kChunkDocuments) chunk_.resize(kChunkDocuments);
  filled_ = next_ = 0;
  size_t bytes = 0;
  try {
    while (filled_ < kChunkDocuments && bytes < kChunkBytes) {
      py::object item = py::reinterpret_steal<py::object>(PyIter_Next(it_.ptr()));
      if (!item) {
        if (PyErr_Occurred()) throw py::error_already_set();
        end_ = true;
        break;
      }
      ToDocument(item, false, DocumentName{"add_many: document", static_cast<int64_t>(items_)}, &chunk_[filled_]);
      bytes += chunk_[filled_].body.size();
      ++filled_;
      ++items_;
    }
  } catch (py::error_already_set& e) {
    error_ = std::move(e);
    end_ = true;
  } catch (py::builtin_exception& e) {  // nothing may escape into the library
    e.set_error();
    error_ = py::error_already_set();
    end_ = true;
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
    error_ = py::error_already_set();
    end_ = true;
  }
}

}  // namespace neardup_py
