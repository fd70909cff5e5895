// Copyright neardup authors. Licensed under Apache-2.0.
//
// warnings.tsv of `neardup dedup`: every problem met while reading the
// input (ReadWarning, include/neardup/source.h), one per row, under the
// header
//
//   file  offset  reason  message
//
// `offset` is the byte offset of the record in `file`, or "u:<n>" for an
// offset in the decompressed stream of a compressed file; `reason` is the
// warning's stable key, `message` the text for people. Not thread-safe; one
// object per file.
#ifndef NEARDUP_OUTPUT_WARNINGS_FILE_H_
#define NEARDUP_OUTPUT_WARNINGS_FILE_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/env.h"
#include "neardup/status.h"

namespace neardup {

namespace output_internal {
class TsvTableReader;
class TsvTableWriter;
}  // namespace output_internal

inline constexpr std::array<std::string_view, 4> kWarningColumnNames = {"file", "offset", "reason",
                                                                        "message"};

// One row. The string_views point into the caller's strings (writer) or into
// the reader's buffer, valid until its next Next().
struct WarningRecord {
  std::string_view file;
  uint64_t offset = 0;
  bool in_decompressed_stream = false;  // offset written as "u:<offset>"
  std::string_view reason;
  std::string_view message;
};

class WarningsWriter {
 public:
  // Starts PATH.tmp with the header; Finish() renames it to `path`.
  // Errors: IOError "cannot write PATH: reason". REQUIRES: env != nullptr.
  static Result<std::unique_ptr<WarningsWriter>> Create(Env* env, const std::string& path);
  // An unfinished writer removes PATH.tmp: no partial file is left behind.
  ~WarningsWriter();

  // Appends one row (buffered); text fields are escaped (base/tsv.h).
  Status Add(const WarningRecord& record);
  // Flushes, closes and renames. After any error, every call returns it.
  Status Finish();

  uint64_t rows() const;

 private:
  explicit WarningsWriter(std::unique_ptr<output_internal::TsvTableWriter> table);
  std::unique_ptr<output_internal::TsvTableWriter> table_;
};

class WarningsReader {
 public:
  // Opens `path` and checks its header, which must name file, offset, reason
  // and message (in any order; other columns are ignored). Errors: NotFound
  // / IOError "cannot read PATH: reason"; Corruption "PATH: line 1: ..." for
  // an empty file or a header lacking a column. REQUIRES: env != nullptr.
  static Result<std::unique_ptr<WarningsReader>> Open(Env* env, const std::string& path);
  ~WarningsReader();

  // Reads the next row: true, or false at end of file. A malformed row
  // returns Corruption "PATH: line N: what" and is skipped (the next call
  // reads the line after it). Malformed: fewer fields than the header, an
  // offset that is neither <n> nor u:<n>.
  Result<bool> Next(WarningRecord* record);

  uint64_t line_number() const;
  const std::string& path() const;

 private:
  explicit WarningsReader(std::unique_ptr<output_internal::TsvTableReader> table);
  std::unique_ptr<output_internal::TsvTableReader> table_;
  std::array<size_t, kWarningColumnNames.size()> index_{};
  std::vector<std::string_view> fields_;
};

}  // namespace neardup

#endif  // NEARDUP_OUTPUT_WARNINGS_FILE_H_
