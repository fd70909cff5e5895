// Copyright neardup authors. Licensed under Apache-2.0.
#include "options.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <limits>
#include <vector>

#include "errors.h"

namespace neardup_py {

namespace {

std::string TypeName(py::handle v) { return Py_TYPE(v.ptr())->tp_name; }

// ---- one converter per field type; `path` names the field in errors ----

uint64_t ToUnsigned(py::handle v, const std::string& path, uint64_t max) {
  if (PyBool_Check(v.ptr()) || !PyIndex_Check(v.ptr())) {
    RaiseInvalidArgument(path + ": expected an int, got " + TypeName(v));
  }
  py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(v.ptr()));
  if (!i) throw py::error_already_set();
  const bool negative = PyObject_RichCompareBool(i.ptr(), py::int_(0).ptr(), Py_LT) == 1;
  const bool too_large = PyObject_RichCompareBool(i.ptr(), py::int_(max).ptr(), Py_GT) == 1;
  if (negative || too_large) {
    RaiseInvalidArgument(path + ": " + py::str(i).cast<std::string>() + " is out of range (0.." +
                         std::to_string(max) + ")");
  }
  return PyLong_AsUnsignedLongLong(i.ptr());
}

template <class T>
T Convert(py::handle v, const std::string& path);

template <>
uint32_t Convert<uint32_t>(py::handle v, const std::string& path) {
  return static_cast<uint32_t>(ToUnsigned(v, path, std::numeric_limits<uint32_t>::max()));
}

template <>
uint64_t Convert<uint64_t>(py::handle v, const std::string& path) {
  return ToUnsigned(v, path, std::numeric_limits<uint64_t>::max());
}

template <>
double Convert<double>(py::handle v, const std::string& path) {
  if (PyBool_Check(v.ptr()) || !(PyFloat_Check(v.ptr()) || PyIndex_Check(v.ptr()))) {
    RaiseInvalidArgument(path + ": expected a float, got " + TypeName(v));
  }
  const double d = PyFloat_AsDouble(v.ptr());
  if (d == -1.0 && PyErr_Occurred()) throw py::error_already_set();
  return d;
}

template <>
bool Convert<bool>(py::handle v, const std::string& path) {
  if (!PyBool_Check(v.ptr())) RaiseInvalidArgument(path + ": expected True or False, got " + TypeName(v));
  return v.ptr() == Py_True;
}

template <>
std::string Convert<std::string>(py::handle v, const std::string& path) {
  if (!PyUnicode_Check(v.ptr())) RaiseInvalidArgument(path + ": expected a str, got " + TypeName(v));
  return Bytes(v);
}

template <>
std::vector<std::string> Convert<std::vector<std::string>>(py::handle v, const std::string& path) {
  if (PyUnicode_Check(v.ptr()) || !(PyList_Check(v.ptr()) || PyTuple_Check(v.ptr()))) {
    RaiseInvalidArgument(path + ": expected a list of str, got " + TypeName(v));
  }
  std::vector<std::string> out;
  for (py::handle item : v) out.push_back(Convert<std::string>(item, path + "[]"));
  return out;
}

// A str or an os.PathLike (temp_dir).
std::string ConvertPath(py::handle v, const std::string& path) {
  py::object p = py::reinterpret_steal<py::object>(PyOS_FSPath(v.ptr()));
  if (!p || !PyUnicode_Check(p.ptr())) {
    PyErr_Clear();
    RaiseInvalidArgument(path + ": expected a str or os.PathLike, got " + TypeName(v));
  }
  return Bytes(p);
}

// ---- field tables ----

template <class S>
struct Field {
  const char* name;
  std::function<void(S*, py::handle, const std::string&)> set;
  std::function<py::object(const S&)> get;
};

template <class S>
using Fields = std::vector<Field<S>>;

template <class S, class T>
Field<S> Member(const char* name, T S::*member) {
  return {name, [member](S* s, py::handle v, const std::string& path) { s->*member = Convert<T>(v, path); },
          [member](const S& s) { return py::cast(s.*member); }};
}

std::string Names(const std::vector<const char*>& names) {
  std::string out;
  for (const char* n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

// Sets the fields of *s named in `mapping`; `prefix` is "" at the top
// level, else "robust." and so on.
template <class S>
void Apply(py::handle mapping, const Fields<S>& fields, const char* caller, const std::string& prefix, S* s) {
  if (!PyDict_Check(mapping.ptr())) {
    RaiseInvalidArgument(std::string(caller) + ": " + prefix.substr(0, prefix.size() - 1) +
                         ": expected a dict of options, got " + TypeName(mapping));
  }
  for (auto [key, value] : py::reinterpret_borrow<py::dict>(mapping)) {
    const std::string name = py::str(key);
    const Field<S>* field = nullptr;
    for (const Field<S>& f : fields) {
      if (name == f.name) field = &f;
    }
    if (field == nullptr) {
      std::vector<const char*> valid;
      for (const Field<S>& f : fields) valid.push_back(f.name);
      RaiseInvalidArgument(std::string(caller) + ": unknown option " + prefix + name + " (valid " +
                           (prefix.empty() ? std::string("options") : "keys of " + prefix.substr(0, prefix.size() - 1)) +
                           ": " + Names(valid) + ")");
    }
    field->set(s, value, std::string(caller) + ": " + prefix + name);
  }
}

template <class S>
py::dict ToDict(const Fields<S>& fields, const S& s) {
  py::dict d;
  for (const Field<S>& f : fields) d[f.name] = f.get(s);
  return d;
}

// A nested option struct, set from a dict (only the keys given change).
template <class S, class N>
Field<S> Nested(const char* name, N S::*member, const Fields<N>* fields) {
  return {name,
          [name, member, fields](S* s, py::handle v, const std::string& path) {
            const std::string caller = path.substr(0, path.find(": "));
            Apply(v, *fields, caller.c_str(), std::string(name) + ".", &(s->*member));
          },
          [member, fields](const S& s) -> py::object { return ToDict(*fields, s.*member); }};
}

const Fields<neardup::BroderMethodOptions>& BroderFields() {
  using O = neardup::BroderMethodOptions;
  static const Fields<O> fields = {
      Member("shingle_size", &O::shingle_size),
      {"wrap",
       [](O* o, py::handle v, const std::string& path) {
         // None: automatic (-1); True, False; or -1, 0, 1 as in C++.
         if (v.is_none()) {
           o->wrap = -1;
         } else if (PyBool_Check(v.ptr())) {
           o->wrap = v.ptr() == Py_True ? 1 : 0;
         } else {
           if (!PyLong_Check(v.ptr())) RaiseInvalidArgument(path + ": expected None, a bool or -1, 0, 1");
           const long w = PyLong_AsLong(v.ptr());
           if (w < -1 || w > 1) RaiseInvalidArgument(path + ": expected None, a bool or -1, 0, 1");
           o->wrap = static_cast<int>(w);
         }
       },
       [](const O& o) -> py::object { return o.wrap < 0 ? py::object(py::none()) : py::bool_(o.wrap != 0); }},
      Member("num_minhashes", &O::num_minhashes),
      Member("supershingle_size", &O::supershingle_size),
      Member("rabin_family", &O::rabin_family),
      Member("seed", &O::seed),
      {"level",
       [](O* o, py::handle v, const std::string& path) {
         const std::string level = Convert<std::string>(v, path);
         if (level == "very-similar") {
           o->level = neardup::NearLevel::kVerySimilar;
         } else if (level == "virtually-identical") {
           o->level = neardup::NearLevel::kVirtuallyIdentical;
         } else {
           RaiseInvalidArgument(path + ": '" + level + "' is not a level (valid: very-similar, virtually-identical)");
         }
       },
       [](const O& o) -> py::object {
         return py::str(o.level == neardup::NearLevel::kVerySimilar ? "very-similar" : "virtually-identical");
       }},
      Member("max_bucket_pages", &O::max_bucket_pages),
  };
  return fields;
}

const Fields<neardup::SimhashMethodOptions>& SimhashFields() {
  using O = neardup::SimhashMethodOptions;
  static const Fields<O> fields = {
      Member("bits", &O::bits),
      Member("threshold", &O::threshold),
      Member("seed", &O::seed),
      Member("combined_threshold", &O::combined_threshold),
  };
  return fields;
}

const Fields<neardup::RobustMethodOptions>& RobustFields() {
  using O = neardup::RobustMethodOptions;
  static const Fields<O> fields = {
      Member("shingle_size", &O::shingle_size),
      Member("num_minhashes", &O::num_minhashes),
      Member("band_rows", &O::band_rows),
      Member("template_min_pages", &O::template_min_pages),
      Member("template_site_fraction", &O::template_site_fraction),
      Member("min_content_similarity", &O::min_content_similarity),
      Member("min_similarity_without_template", &O::min_similarity_without_template),
      Member("max_edit_shingles", &O::max_edit_shingles),
      Member("max_same_site_edit_shingles", &O::max_same_site_edit_shingles),
      Member("main_minhashes", &O::main_minhashes),
      Member("main_band_rows", &O::main_band_rows),
      Member("main_line_terms", &O::main_line_terms),
      Member("main_min_terms", &O::main_min_terms),
      Member("min_main_similarity", &O::min_main_similarity),
      Member("min_main_containment", &O::min_main_containment),
      Member("minhash_bits", &O::minhash_bits),
      Member("normalize_numbers", &O::normalize_numbers),
      Member("normalize_own_url", &O::normalize_own_url),
      Member("normalize_text_urls", &O::normalize_text_urls),
      Member("image_file_names", &O::image_file_names),
      Member("compare_titles", &O::compare_titles),
      Member("title_numbers", &O::title_numbers),
      Member("title_function_words", &O::title_function_words),
      Member("titles_decide", &O::titles_decide),
      Member("seed", &O::seed),
  };
  return fields;
}

const Fields<neardup::ParagraphMethodOptions>& ParagraphFields() {
  using O = neardup::ParagraphMethodOptions;
  static const Fields<O> fields = {
      Member("sentences_per_paragraph", &O::sentences_per_paragraph),
      Member("min_text_chars", &O::min_text_chars),
      Member("min_shared_percent", &O::min_shared_percent),
  };
  return fields;
}

const Fields<neardup::ChunkMethodOptions>& ChunkFields() {
  using O = neardup::ChunkMethodOptions;
  static const Fields<O> fields = {
      Member("chunking", &O::chunking),
      Member("threshold", &O::threshold),
      Member("algorithm", &O::algorithm),
      Member("coarse_hash_functions", &O::coarse_hash_functions),
      Member("seed", &O::seed),
  };
  return fields;
}

const Fields<neardup::SourceOptions>& SourceFields() {
  using O = neardup::SourceOptions;
  static const Fields<O> fields = {
      Member("max_record_bytes", &O::max_record_bytes),
      Member("keep_non_2xx", &O::keep_non_2xx),
      Member("folder_extensions", &O::folder_extensions),
  };
  return fields;
}

const Fields<neardup::DedupOptions>& DedupFields() {
  using O = neardup::DedupOptions;
  static const Fields<O> fields = {
      Member("method", &O::method),
      Nested("broder", &O::broder, &BroderFields()),
      Nested("simhash", &O::simhash, &SimhashFields()),
      Nested("robust", &O::robust, &RobustFields()),
      Nested("paragraphs", &O::paragraphs, &ParagraphFields()),
      Nested("chunks", &O::chunks, &ChunkFields()),
      Member("memory_bytes", &O::memory_bytes),
      Member("write_pairs", &O::write_pairs),
      Member("keeper", &O::keeper),
      Member("verify", &O::verify),
      Nested("source", &O::source, &SourceFields()),
      {"temp_dir", [](O* o, py::handle v, const std::string& path) { o->temp_dir = ConvertPath(v, path); },
       [](const O& o) -> py::object { return py::str(o.temp_dir); }},
      Member("batch_documents", &O::batch_documents),
      Member("in_flight_per_thread", &O::in_flight_per_thread),
  };
  return fields;
}

}  // namespace

void ApplyDedupOptions(const py::dict& kwargs, const char* caller, neardup::DedupOptions* options) {
  Apply(kwargs, DedupFields(), caller, "", options);
}

void ApplySourceOptions(const py::dict& kwargs, const char* caller, neardup::SourceOptions* options) {
  Apply(kwargs, SourceFields(), caller, "", options);
}

py::dict DedupOptionsToDict(const neardup::DedupOptions& options) { return ToDict(DedupFields(), options); }

void ProcessMemory(uint64_t* resident_bytes, uint64_t* peak_resident_bytes) {
  *resident_bytes = 0;
  *peak_resident_bytes = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    unsigned long long pages_total = 0, pages_resident = 0;
    if (std::fscanf(f, "%llu %llu", &pages_total, &pages_resident) == 2) {
      *resident_bytes = pages_resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    }
    std::fclose(f);
  }
  struct rusage ru {};
  if (getrusage(RUSAGE_SELF, &ru) == 0) *peak_resident_bytes = static_cast<uint64_t>(ru.ru_maxrss) * 1024;
}

}  // namespace neardup_py
