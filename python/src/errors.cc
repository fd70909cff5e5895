// Copyright neardup authors. Licensed under Apache-2.0.
#include "errors.h"

namespace neardup_py {

namespace {

// The classes live as long as the interpreter: held by the module and by
// these (never released) references.
PyObject* g_error = nullptr;
PyObject* g_invalid_argument = nullptr;
PyObject* g_file = nullptr;
PyObject* g_not_found = nullptr;
PyObject* g_not_supported = nullptr;

PyObject* NewClass(py::module_& m, const char* name, const char* doc, py::tuple bases) {
  const std::string qualified = std::string("neardup.") + name;
  PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr);
  if (cls == nullptr) throw py::error_already_set();
  m.attr(name) = py::reinterpret_borrow<py::object>(cls);
  return cls;
}

const char* CodeName(neardup::Status::Code code) {
  using Code = neardup::Status::Code;
  switch (code) {
    case Code::kOk: return "OK";
    case Code::kNotFound: return "NotFound";
    case Code::kCorruption: return "Corruption";
    case Code::kInvalidArgument: return "InvalidArgument";
    case Code::kIOError: return "IOError";
    case Code::kNotSupported: return "NotSupported";
    case Code::kResourceExhausted: return "ResourceExhausted";
    case Code::kFailedPrecondition: return "FailedPrecondition";
    case Code::kCancelled: return "Cancelled";
  }
  return "Unknown";
}

[[noreturn]] void RaiseClass(PyObject* cls, const std::string& message, const char* code) {
  py::object error = py::reinterpret_borrow<py::object>(cls)(Utf8(message));
  error.attr("code") = code;
  PyErr_SetObject(cls, error.ptr());
  throw py::error_already_set();
}

}  // namespace

py::str Utf8(const std::string& bytes) {
  PyObject* s = PyUnicode_DecodeUTF8(bytes.data(), static_cast<Py_ssize_t>(bytes.size()), "surrogateescape");
  if (s == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(s);
}

std::string Bytes(py::handle str) {
  Py_ssize_t n = 0;
  if (const char* p = PyUnicode_AsUTF8AndSize(str.ptr(), &n)) return std::string(p, static_cast<size_t>(n));
  PyErr_Clear();
  py::object b = py::reinterpret_steal<py::object>(PyUnicode_AsEncodedString(str.ptr(), "utf-8", "surrogateescape"));
  if (!b) throw py::error_already_set();
  return std::string(PyBytes_AS_STRING(b.ptr()), static_cast<size_t>(PyBytes_GET_SIZE(b.ptr())));
}

void RegisterErrors(py::module_& m) {
  g_error = NewClass(m, "Error",
                     "Base class of every error neardup raises. str(e) is the library's message;\n"
                     "e.code names the library's status code (\"InvalidArgument\", \"IOError\",\n"
                     "\"NotFound\", \"Corruption\", \"NotSupported\", \"ResourceExhausted\",\n"
                     "\"FailedPrecondition\", \"Cancelled\").",
                     py::make_tuple(py::handle(PyExc_Exception)));
  g_invalid_argument = NewClass(m, "InvalidArgumentError",
                                "Bad options, spec strings or arguments (an unknown keyword, a value of\n"
                                "the wrong type or out of range, a document without html or text).\n"
                                "Also a ValueError.",
                                py::make_tuple(py::handle(g_error), py::handle(PyExc_ValueError)));
  g_file = NewClass(m, "FileError",
                    "An input or output file that cannot be read or written, a page that is\n"
                    "not in the inputs, or inputs in which no usable document could be read.\n"
                    "Also an OSError (errno is None).",
                    py::make_tuple(py::handle(g_error), py::handle(PyExc_OSError)));
  g_not_found = NewClass(m, "NotFoundError",
                         "Deduper.remove() of an id that was never added or is already removed.\n"
                         "Also a LookupError.",
                         py::make_tuple(py::handle(g_error), py::handle(PyExc_LookupError)));
  g_not_supported = NewClass(m, "NotSupportedError",
                             "A call the Deduper's method cannot serve: remove() with the batch-only\n"
                             "methods paragraphs and chunks.",
                             py::make_tuple(py::handle(g_error)));
}

void Raise(const neardup::Status& status, ErrorContext context) {
  using Code = neardup::Status::Code;
  PyObject* cls = g_error;
  switch (status.code()) {
    case Code::kInvalidArgument: cls = g_invalid_argument; break;
    case Code::kIOError:
    case Code::kCorruption: cls = g_file; break;
    case Code::kNotFound: cls = context == ErrorContext::kIds ? g_not_found : g_file; break;
    case Code::kNotSupported: cls = g_not_supported; break;
    default: break;
  }
  RaiseClass(cls, status.message(), CodeName(status.code()));
}

void RaiseInvalidArgument(const std::string& message) {
  RaiseClass(g_invalid_argument, message, CodeName(neardup::Status::Code::kInvalidArgument));
}

void RaiseFileError(const std::string& message) {
  RaiseClass(g_file, message, CodeName(neardup::Status::Code::kIOError));
}

}  // namespace neardup_py
