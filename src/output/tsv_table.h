// Copyright neardup authors. Licensed under Apache-2.0.
//
// The two pieces every TSV output file of `neardup dedup` is built on
// (internal to src/output; the typed readers and writers in clusters_file.h,
// pairs_file.h and warnings_file.h are the interface).
//
// TsvTableWriter: streams rows to PATH.tmp through a 1 MiB buffer and renames
// it to PATH in Finish(), so a reader never sees a half-written file under
// the final name. Every error is IOError "cannot write PATH: reason".
//
// TsvTableReader: reads the header line and then one row per line through
// LineReader (bounded memory). The header is checked in one way only: it
// names its columns, in any order; each required column must appear (the
// first occurrence of a name counts); other columns are kept by name. A row
// with fewer fields than the header is malformed; fields past the header's
// are ignored. Every error is Corruption "PATH: line N: what was wrong".
//
// Fields are written escaped by AppendTsvField (base/tsv.h, '%' left as it
// is) and read back as written: a field without raw tab, CR or LF round-trips
// unchanged. Neither class is thread-safe.
#ifndef NEARDUP_OUTPUT_TSV_TABLE_H_
#define NEARDUP_OUTPUT_TSV_TABLE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/line_reader.h"
#include "neardup/env.h"
#include "neardup/status.h"

namespace neardup::output_internal {

class TsvTableWriter {
 public:
  // Creates PATH.tmp (replacing any) and buffers `header` (the column names,
  // written unescaped). REQUIRES: env != nullptr; names contain no tab/CR/LF.
  static Result<std::unique_ptr<TsvTableWriter>> Create(Env* env, std::string path,
                                                         std::span<const std::string_view> header);
  // An unfinished writer closes and removes PATH.tmp (best effort).
  ~TsvTableWriter();
  TsvTableWriter(const TsvTableWriter&) = delete;
  TsvTableWriter& operator=(const TsvTableWriter&) = delete;

  // A row is built field by field, then ended by EndRow(), which adds the
  // '\n' and writes the buffer out once it holds kBlock bytes.
  // AppendField escapes `field`; AppendRaw writes text known to hold no tab,
  // CR or LF (numbers). Both put a '\t' before every field but the first.
  void AppendField(std::string_view field);
  void AppendRaw(std::string_view text);
  Status EndRow();

  // Flushes, closes and renames PATH.tmp to PATH. After an error the writer
  // is dead: every call returns the first error.
  Status Finish();

  const std::string& path() const { return path_; }
  uint64_t rows() const { return rows_; }
  uint64_t bytes_written() const { return written_ + buf_.size(); }

 private:
  TsvTableWriter(Env* env, std::string path, std::unique_ptr<WritableFile> file);
  Status Fail(const Status& s);
  Status FlushBuffer();

  static constexpr size_t kBlock = 1 << 20;
  Env* env_;
  std::string path_, tmp_path_;
  std::unique_ptr<WritableFile> file_;
  std::string buf_;
  bool row_started_ = false;
  bool finished_ = false;
  Status error_;
  uint64_t rows_ = 0;
  uint64_t written_ = 0;
};

class TsvTableReader {
 public:
  // Opens `path` and checks its header (see the file comment). `what` names
  // the format in messages ("clusters.tsv"). Errors: NotFound / IOError
  // "cannot read PATH: reason"; Corruption "PATH: line 1: ..." for an empty
  // file or a header without a required column.
  // REQUIRES: env != nullptr.
  static Result<std::unique_ptr<TsvTableReader>> Open(Env* env, const std::string& path,
                                                       std::string_view what,
                                                       std::span<const std::string_view> required);

  // The header's column names, in file order.
  const std::vector<std::string>& columns() const { return columns_; }
  // Index of the first column called `name`, or nullopt.
  std::optional<size_t> Find(std::string_view name) const;

  // Reads the next row into *fields (valid until the next call): true, or
  // false at end of file. A row with fewer fields than the header returns
  // Corruption naming the line; the reader then goes on with the next line.
  // I/O errors are IOError "cannot read PATH: reason".
  Result<bool> Next(std::vector<std::string_view>* fields);

  // 1-based number of the line last read (1 after Open: the header).
  uint64_t line_number() const { return line_; }
  // Corruption "PATH: line N: what" for the line last read.
  Status RowError(std::string_view what) const;
  const std::string& path() const { return path_; }

 private:
  TsvTableReader(std::string path, std::unique_ptr<SequentialFile> file)
      : path_(std::move(path)), lines_(std::move(file)) {}
  Result<bool> NextLine(std::string_view* line);

  std::string path_;
  LineReader lines_;
  std::vector<std::string> columns_;
  uint64_t line_ = 0;
};

// `field` in single quotes for an error message, cut to 40 bytes ("...").
std::string QuoteField(std::string_view field);

// Strict decimal parsers for fields: the whole field must be the number.
bool ParseUint64Field(std::string_view s, uint64_t* out);
// A finite double in std::from_chars' general format.
bool ParseDoubleField(std::string_view s, double* out);

}  // namespace neardup::output_internal

#endif  // NEARDUP_OUTPUT_TSV_TABLE_H_
