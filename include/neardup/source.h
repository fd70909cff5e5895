// Copyright neardup authors. Licensed under Apache-2.0.
//
// DocumentSource: a streaming reader over the inputs of a run (WARC/ARC files,
// folders of HTML/text files, JSON Lines files, or "-" for JSON Lines on
// standard input). Memory is bounded by the largest record accepted
// (SourceOptions::max_record_bytes), never by the size of an input.
//
// Bad input never aborts a run: what cannot be read is skipped, reported to
// the ReadObserver with the file, byte offset and reason, and counted in
// ReadStats::skipped under a stable reason key.
#ifndef NEARDUP_SOURCE_H_
#define NEARDUP_SOURCE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "neardup/document.h"
#include "neardup/status.h"

namespace neardup {

class Env;

struct SourceOptions {
  // Records (after decompression) larger than this are skipped with reason
  // "record-too-large"; their bytes are read past without being buffered.
  uint64_t max_record_bytes = 64ull << 20;
  // Responses whose HTTP status is not 2xx still become documents when true
  // (their status is kept in Document::http_status); when false they are
  // skipped with reason "http-status".
  bool keep_non_2xx = true;
  // File extensions (lower case, with dot) taken from folders.
  std::vector<std::string> folder_extensions = {".html", ".htm", ".txt"};

  // Returns InvalidArgument with a readable message when a field is out of range.
  Status Validate() const;
};

// One problem met while reading. `offset` is a byte offset in `file` (in the
// compressed file for per-record gzip members; in the decompressed stream for
// whole-file compression, with `in_decompressed_stream` set).
struct ReadWarning {
  std::string file;
  uint64_t offset = 0;
  bool in_decompressed_stream = false;
  std::string reason_key;  // stable key counted in ReadStats::skipped
  std::string message;     // human readable detail
};

// Receives warnings as they happen. Called from the thread that calls Next().
class ReadObserver {
 public:
  virtual ~ReadObserver() = default;
  virtual void OnWarning(const ReadWarning& warning) = 0;
};

struct ReadStats {
  uint64_t inputs_opened = 0;      // files that could be opened
  uint64_t documents = 0;          // documents returned by Next()
  uint64_t records = 0;            // WARC/ARC records or JSON lines seen
  uint64_t input_bytes = 0;        // bytes consumed from files (compressed)
  uint64_t payload_bytes = 0;      // sum of Document::body sizes returned
  // Records not turned into documents, by reason key. Record types that are
  // skipped by design use "type:<warc-type>" in lower case (type:request,
  // type:metadata, type:revisit, type:warcinfo, type:continuation, an unknown
  // type under its own name; type:filedesc for ARC headers); payloads skipped
  // by design use "non-text" and "http-status" (no warning). Every warning
  // adds one under its key: "truncated", "truncated-gzip", "corrupt-gzip",
  // "truncated-zstd", "corrupt-zstd", "corrupt-header", "bad-length",
  // "garbage", "record-too-large", "unreadable-file", "read-error",
  // "empty-file", "unknown-format", "bad-json", "bad-http".
  std::map<std::string, uint64_t> skipped;
};

class DocumentSource {
 public:
  virtual ~DocumentSource() = default;
  // Reads the next document into *doc (cleared first). Returns false at the
  // end of all inputs. Never fails: problems go to the observer and stats.
  virtual bool Next(Document* doc) = 0;
  virtual const ReadStats& stats() const = 0;
  // Progress: bytes consumed and total bytes of all input files (total is 0
  // when unknown, e.g. standard input).
  virtual uint64_t bytes_consumed() const = 0;
  virtual uint64_t bytes_total() const = 0;
};

// Opens `inputs` in order. Each input is a file (format sniffed from its
// bytes, not its name: WARC, ARC, gzip/zstd of either, JSON Lines), a folder
// (searched recursively, files sorted by path), or "-" (JSON Lines on stdin).
// Inputs that do not exist are reported as warnings ("unreadable-file") when
// the source reaches them. `env` may be nullptr for the default POSIX Env;
// `observer` may be nullptr. Returns InvalidArgument for bad options only.
Result<std::unique_ptr<DocumentSource>> OpenDocumentSource(
    const std::vector<std::string>& inputs, const SourceOptions& options = SourceOptions(),
    Env* env = nullptr, ReadObserver* observer = nullptr);

}  // namespace neardup

#endif  // NEARDUP_SOURCE_H_
