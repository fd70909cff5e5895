// Copyright neardup authors. Licensed under Apache-2.0.
//
// pairs.tsv (`neardup dedup --pairs`): the near-duplicate pairs found, one
// per row. The header is `url_a  url_b` followed by the method's value
// columns, which are numbers:
//
//   broder      supershingles_shared
//   simhash     bits_agreeing
//   combined    supershingles_shared  bits_agreeing
//   robust      content_similarity  content_positions
//   paragraphs  shared_percentage  paragraphs_of_both
//   chunks      F   (the Overlap table; url_a < url_b)
//
// The writer is told the value columns; the reader keeps whatever value
// columns the header names, by name, so it reads every method's file. Not
// thread-safe; one object per file.
#ifndef NEARDUP_OUTPUT_PAIRS_FILE_H_
#define NEARDUP_OUTPUT_PAIRS_FILE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
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

// A value column of pairs.tsv: its header name and how many digits follow
// the decimal point when written ("%.*f"; 0 for counts, written as integers).
struct PairColumn {
  std::string name;
  int decimals = 0;
};

// One row. The urls point into the caller's strings (writer) or into the
// reader's buffer, valid until its next Next(). values[i] belongs to value
// column i.
struct PairRecord {
  std::string_view url_a, url_b;
  std::vector<double> values;
};

class PairsWriter {
 public:
  // Starts PATH.tmp with the header `url_a url_b <columns>`; Finish() renames
  // it to `path`. Errors: IOError "cannot write PATH: reason".
  // REQUIRES: env != nullptr; column names hold no tab, CR or LF.
  static Result<std::unique_ptr<PairsWriter>> Create(Env* env, const std::string& path,
                                                      std::vector<PairColumn> columns);
  // An unfinished writer removes PATH.tmp: no partial file is left behind.
  ~PairsWriter();

  // Appends one row; urls are escaped (base/tsv.h), values written with
  // their column's decimals. InvalidArgument naming the file when
  // values.size() differs from the number of value columns (nothing is
  // written; the writer stays usable).
  Status Add(std::string_view url_a, std::string_view url_b, std::span<const double> values);
  // Flushes, closes and renames. After any error, every call returns it.
  Status Finish();

  const std::vector<PairColumn>& columns() const { return columns_; }
  uint64_t rows() const;
  uint64_t bytes_written() const;  // header included

 private:
  PairsWriter(std::unique_ptr<output_internal::TsvTableWriter> table, std::vector<PairColumn> columns);
  std::unique_ptr<output_internal::TsvTableWriter> table_;
  std::vector<PairColumn> columns_;
  std::string number_;
};

class PairsReader {
 public:
  // Opens `path` and checks its header: it must name url_a and url_b (in any
  // position); every other column is a value column, in file order.
  // Errors: NotFound / IOError "cannot read PATH: reason"; Corruption
  // "PATH: line 1: ..." for an empty file or a header without url_a/url_b.
  // REQUIRES: env != nullptr.
  static Result<std::unique_ptr<PairsReader>> Open(Env* env, const std::string& path);
  ~PairsReader();

  // The value columns' names, in file order.
  const std::vector<std::string>& value_columns() const { return value_names_; }
  // Index into PairRecord::values of the column called `name`, or nullopt.
  std::optional<size_t> ValueIndex(std::string_view name) const;

  // Reads the next row: true, or false at end of file. A malformed row
  // returns Corruption "PATH: line N: what" and is skipped (the next call
  // reads the line after it). Malformed: fewer fields than the header, an
  // empty url, a value that is not a finite number.
  Result<bool> Next(PairRecord* record);

  uint64_t line_number() const;
  const std::string& path() const;

 private:
  explicit PairsReader(std::unique_ptr<output_internal::TsvTableReader> table);
  std::unique_ptr<output_internal::TsvTableReader> table_;
  size_t url_a_ = 0, url_b_ = 0;
  std::vector<size_t> value_fields_;  // header index of each value column
  std::vector<std::string> value_names_;
  std::vector<std::string_view> fields_;
};

}  // namespace neardup

#endif  // NEARDUP_OUTPUT_PAIRS_FILE_H_
