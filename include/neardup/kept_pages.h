// Copyright neardup authors. Licensed under Apache-2.0.
//
// WriteKeptPages: the pages a dedup run keeps, one for each cluster and
// every page in none, written out as a crawl of their own: the
// deduplicated collection, for the reader that wants the pages themselves
// and not only clusters.tsv (`neardup keep`). Or, with kDuplicates, the
// pages the run set aside, to read what was removed.
//
// A dedup output folder names its pages by URL and by where they lie in
// the inputs (clusters.tsv's source and offset columns), not by their
// bytes, so the inputs are read again: those that summary.json names (paths
// as the run was given them, relative to the folder it ran in) or others
// given in their place, with the run's reading options (record size limit,
// non-2xx responses, folder extensions). clusters.tsv holds one row for
// each document the run read, in input order; the documents read again
// must be the same, row for row (URL and offset), or nothing is written:
// an input changed or moved since the run would otherwise give another
// page under a row's role. A file of a folder is named by its path under
// the input as given; under an input given in place of the run's (same
// place in the list), its path is compared as if under the run's, and
// written as it now is. Memory holds one page at a time.
//
// Formats:
//   kJsonLines  one JSON object a line. A page read from JSON Lines is its
//               line as read, byte for byte, every field of it kept; any
//               other page is {"url", "html" or "text" (its body in UTF-8,
//               converted from its charset as the tokenizer decides it),
//               "date", "status", "redirect", "revisit_of",
//               "revisit_of_date" where it has them}, the JSON Lines that
//               `neardup dedup` reads.
//   kWarc       WARC/1.1: a warcinfo record, then for each page a response
//               record (its URL, fetch date, HTTP status, Content-Type with
//               the charset declared, a 3xx's Location, and its payload as
//               read, after transfer and content decoding) or, for a
//               capture that repeats an earlier one, a revisit record
//               naming it.
// The output is compressed by its name: gzip for ".gz" (one member a
// record for WARC, the usual .warc.gz layout), zstd for ".zst". It is
// written to OUT.tmp and renamed: it exists under its name only complete.
// Its folder is created when missing.
#ifndef NEARDUP_KEPT_PAGES_H_
#define NEARDUP_KEPT_PAGES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "neardup/source.h"
#include "neardup/status.h"

namespace neardup {

class Env;

struct KeptPagesOptions {
  enum class Pages { kKept, kDuplicates };
  enum class Format { kJsonLines, kWarc };
  // Which pages: the rows of role `keep` (default) or `duplicate`.
  Pages pages = Pages::kKept;
  Format format = Format::kJsonLines;
  // The inputs to read again, in the run's order; empty: summary.json's.
  std::vector<std::string> inputs;
  // Each page written names its cluster: the cluster's id (clusters.tsv's
  // `cluster`, the row number of its kept page) and its size in pages. In
  // JSON Lines a field "neardup": {"cluster": ID, "cluster_size": N} ends
  // the object (added at the end of a line read from JSON Lines); in WARC
  // the record's headers WARC-Neardup-Cluster and WARC-Neardup-Cluster-Size.
  // Costs a first pass over clusters.tsv and 4 bytes a row.
  bool annotate = false;
};

// kWarc for a name ending in ".warc", ".warc.gz" or ".warc.zst" (case
// aside), else kJsonLines.
KeptPagesOptions::Format KeptPagesFormatOfName(const std::string& path);
// The format named "jsonl" or "warc"; InvalidArgument for another name.
Result<KeptPagesOptions::Format> ParseKeptPagesFormat(const std::string& name);

struct KeptPagesResult {
  uint64_t rows = 0;           // rows of clusters.tsv (documents of the run)
  uint64_t written = 0;        // pages written: the rows of the role asked for
  uint64_t from_json_lines = 0;  // of them, written as the line read (kJsonLines)
  uint64_t bytes_written = 0;  // bytes of the output file
  ReadStats read;              // the inputs read again
};

// Writes the pages of run_dir (clusters.tsv, summary.json) chosen by
// `options` to out_path. Warnings met reading the inputs go to `observer`
// (may be nullptr), as a run reports them. Errors: NotFound / Corruption
// for run_dir's files; NotFound for an input that is not there;
// InvalidArgument when summary.json names no inputs and none are given, or
// an input is standard input ("-", read once);
// FailedPrecondition "the inputs differ from the run's: ..." naming the
// first row that does not match; IOError when the output cannot be
// written. No output file is left behind after an error. `env` may be
// nullptr for Env::Default().
Result<KeptPagesResult> WriteKeptPages(const std::string& run_dir, const std::string& out_path,
                                       const KeptPagesOptions& options, Env* env = nullptr,
                                       ReadObserver* observer = nullptr);

}  // namespace neardup

#endif  // NEARDUP_KEPT_PAGES_H_
