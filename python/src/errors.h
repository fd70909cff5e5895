// Copyright neardup authors. Licensed under Apache-2.0.
//
// The Python module's exceptions: one class per kind of library Status, all
// under neardup.Error, each carrying the library's message; and the
// library's strings as Python str and back.
//
//   neardup.Error(Exception)                     every error; .code names the Status code
//   neardup.InvalidArgumentError(Error, ValueError)  bad options, spec strings, arguments
//   neardup.FileError(Error, OSError)            a file cannot be read or written,
//                                                or nothing usable is in the inputs
//   neardup.NotFoundError(Error, LookupError)    remove() of an id that is not live
//   neardup.NotSupportedError(Error)             remove() with paragraphs or chunks
//
// Cancelled, ResourceExhausted and FailedPrecondition raise neardup.Error
// itself. REQUIRES for every function here: the GIL is held.
#ifndef NEARDUP_PYTHON_ERRORS_H_
#define NEARDUP_PYTHON_ERRORS_H_

#include <pybind11/pybind11.h>

#include <string>

#include "neardup/status.h"

namespace neardup_py {

namespace py = pybind11;

// Creates the exception classes and adds them to module `m`.
void RegisterErrors(py::module_& m);

// Where a Status came from: in kFiles calls (reading inputs, writing
// outputs) NotFound means a page or file that is not there (FileError); in
// kIds calls it means an id (NotFoundError).
enum class ErrorContext { kFiles, kIds };

// Sets the Python exception for `status` and throws py::error_already_set.
// REQUIRES: !status.ok().
[[noreturn]] void Raise(const neardup::Status& status, ErrorContext context = ErrorContext::kFiles);

// Bytes of the library (URLs, file names, messages: UTF-8 as a rule, but a
// crawl's bytes are not checked) as a str; bytes that are not UTF-8 become
// lone surrogates (Python's "surrogateescape"), which a str given back to
// the module turns into the same bytes. REQUIRES: the GIL is held.
py::str Utf8(const std::string& bytes);
// A str as those bytes (the reverse of Utf8). REQUIRES: `str` is a str.
std::string Bytes(py::handle str);

// Raises InvalidArgumentError(message).
[[noreturn]] void RaiseInvalidArgument(const std::string& message);

// Raises FileError(message).
[[noreturn]] void RaiseFileError(const std::string& message);

}  // namespace neardup_py

#endif  // NEARDUP_PYTHON_ERRORS_H_
