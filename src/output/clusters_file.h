// Copyright neardup authors. Licensed under Apache-2.0.
//
// clusters.tsv, the main output of `neardup dedup`: a header line
//
//   url  cluster  role  method  similarity  source  offset  reason
//
// then one row per input page, in input order (row i, 0-based, is document
// i). `cluster` is the document id of the page kept for the page's cluster;
// `role` is "keep" for that page and "duplicate" for the others; `method`
// names what put the page in its cluster ("single", "exact", or the near-
// duplicate method); `similarity` is to the kept page (4 significant
// digits); `source` and `offset` locate the page in the input; `reason` says
// why the kept page was chosen (README.md, "Output files").
//
// ClustersWriter writes the file; ClustersReader is the one reader every
// module uses. Neither is thread-safe; one object per file.
#ifndef NEARDUP_OUTPUT_CLUSTERS_FILE_H_
#define NEARDUP_OUTPUT_CLUSTERS_FILE_H_

#include <array>
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

// The columns, in the order the writer puts them.
enum class ClusterColumn { kUrl, kCluster, kRole, kMethod, kSimilarity, kSource, kOffset, kReason };
inline constexpr std::array<std::string_view, 8> kClusterColumnNames = {
    "url", "cluster", "role", "method", "similarity", "source", "offset", "reason"};

enum class ClusterRole { kKeep, kDuplicate };

// One row. The string_views point into the caller's strings (writer) or into
// the reader's buffer, valid until its next Next().
struct ClusterRecord {
  std::string_view url;
  uint64_t cluster = 0;  // document id (row index) of the cluster's kept page
  ClusterRole role = ClusterRole::kKeep;
  std::string_view method;
  double similarity = 1;  // written with 4 significant digits ("%.4g")
  std::string_view source;
  uint64_t offset = 0;
  std::string_view reason;
};

class ClustersWriter {
 public:
  // Starts PATH.tmp with the header; Finish() renames it to `path`.
  // Errors: IOError "cannot write PATH: reason". REQUIRES: env != nullptr.
  static Result<std::unique_ptr<ClustersWriter>> Create(Env* env, const std::string& path);
  // An unfinished writer removes PATH.tmp: no partial file is left behind.
  ~ClustersWriter();

  // Appends one row (buffered; written out in 1 MiB blocks). Text fields are
  // escaped (base/tsv.h).
  Status Add(const ClusterRecord& record);
  // Flushes, closes and renames. The file exists under `path` only after
  // Finish() returns OK. After any error, every call returns that error.
  Status Finish();

  uint64_t rows() const;
  uint64_t bytes_written() const;  // header included

 private:
  explicit ClustersWriter(std::unique_ptr<output_internal::TsvTableWriter> table);
  std::unique_ptr<output_internal::TsvTableWriter> table_;
};

class ClustersReader {
 public:
  // Opens `path` and checks its header: it names its columns, in any order,
  // and must have `url`, `cluster` and every column of `also_required`;
  // other columns are ignored, missing optional ones read as the
  // ClusterRecord defaults. Errors: NotFound / IOError "cannot read PATH:
  // reason"; Corruption "PATH: line 1: ..." for an empty file or a header
  // lacking a required column. REQUIRES: env != nullptr.
  static Result<std::unique_ptr<ClustersReader>> Open(Env* env, const std::string& path,
                                                       std::span<const ClusterColumn> also_required = {});
  ~ClustersReader();

  // Reads the next row: true, or false at end of file. A malformed row
  // returns Corruption "PATH: line N: what" and is skipped: the next call
  // reads the line after it, so a caller may count bad rows and go on.
  // Malformed: fewer fields than the header; `cluster` or `offset` not a
  // decimal integer; `role` neither keep nor duplicate; `similarity` not a
  // finite number (checks apply to the columns present).
  Result<bool> Next(ClusterRecord* record);

  bool Has(ClusterColumn column) const { return index_[static_cast<size_t>(column)].has_value(); }
  // 1-based line number of the row last read; the row's document id is
  // line_number() - 2 (blank and malformed lines count as rows).
  uint64_t line_number() const;
  const std::string& path() const;

 private:
  explicit ClustersReader(std::unique_ptr<output_internal::TsvTableReader> table);
  std::unique_ptr<output_internal::TsvTableReader> table_;
  std::array<std::optional<size_t>, kClusterColumnNames.size()> index_;
  std::vector<std::string_view> fields_;
};

}  // namespace neardup

#endif  // NEARDUP_OUTPUT_CLUSTERS_FILE_H_
