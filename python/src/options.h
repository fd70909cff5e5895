// Copyright neardup authors. Licensed under Apache-2.0.
//
// Keyword options of the Python module: DedupOptions and SourceOptions
// (include/neardup/engine.h, source.h) set from keyword arguments named
// like their fields, the nested structs as dicts:
//
//   Deduper(method="broder", keeper="status,url-hash,input-order",
//           broder={"shingle_size": 8, "level": "virtually-identical"},
//           source={"keep_non_2xx": False})
//
// Values are checked for their type here (an int for an integer field, a
// bool for a flag, a str for a string) and for their range by
// DedupOptions::Validate(). REQUIRES for every function here: the GIL is
// held.
#ifndef NEARDUP_PYTHON_OPTIONS_H_
#define NEARDUP_PYTHON_OPTIONS_H_

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "neardup/engine.h"
#include "neardup/source.h"

namespace neardup_py {

namespace py = pybind11;

// Sets the fields named in `kwargs` on *options, over what it holds.
// Raises InvalidArgumentError naming `caller` and the valid names for an
// unknown name, and the field and the expected type for a value of the
// wrong type. Fields the library does not take from a caller
// (memory_probe) are not accepted.
void ApplyDedupOptions(const py::dict& kwargs, const char* caller, neardup::DedupOptions* options);

// The same for SourceOptions (neardup.read's keywords).
void ApplySourceOptions(const py::dict& kwargs, const char* caller, neardup::SourceOptions* options);

// Every field of `options` as ApplyDedupOptions takes them (nested dicts).
py::dict DedupOptionsToDict(const neardup::DedupOptions& options);

// A front end's measure of the process's memory for
// DedupOptions::memory_probe (the library reads no process state): the
// resident set now and at its peak, from /proc/self/statm and getrusage.
void ProcessMemory(uint64_t* resident_bytes, uint64_t* peak_resident_bytes);

}  // namespace neardup_py

#endif  // NEARDUP_PYTHON_OPTIONS_H_
