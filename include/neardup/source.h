// Copyright neardup authors. Licensed under Apache-2.0.
//
// DocumentSource: a streaming reader over the inputs of a run (WARC/ARC files,
// folders of HTML/text files and of crawl files, JSON Lines files, or "-"
// for JSON Lines on standard input). Memory is bounded by the largest record accepted
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
#include <string_view>
#include <vector>

#include "neardup/document.h"
#include "neardup/status.h"

namespace neardup {

class Env;

// A share of a run, for a run divided among processes (neardup-mpi): what
// lies from byte first_offset of file first_file up to byte end_offset of
// file end_file (end_offset 0: up to the start of end_file). Files are
// counted in the run's file list (ListInputFiles: folders expanded, in
// reading order). An offset inside a file must be a record's gzip member
// (NextRecordMember) of a per-record-gzip file: the file is then read from
// that member, up to its last member starting before end_offset, with the
// offsets of the whole file. A folder that cannot be listed is reported by
// the share holding its place; a file is counted in inputs_opened (and an
// unreadable one reported) by the share holding its first byte.
struct InputShare {
  uint64_t first_file = 0, first_offset = 0;
  uint64_t end_file = UINT64_MAX, end_offset = 0;
};

struct SourceOptions {
  // Records (after decompression) larger than this are skipped with reason
  // "record-too-large"; their bytes are read past without being buffered.
  uint64_t max_record_bytes = 64ull << 20;
  // Responses whose HTTP status is not 2xx still become documents when true
  // (their status is kept in Document::http_status); when false they are
  // skipped with reason "http-status".
  bool keep_non_2xx = true;
  // File extensions (lower case, with dot) taken from folders as one
  // document a file (also with .gz). Besides them a folder's crawl files
  // (named .warc, .arc, .wet, .jsonl or .ndjson, also .gz or .zst) are read
  // record by record; its other files are counted in ReadStats::skipped as
  // "folder-file-left-out", without a warning.
  std::vector<std::string> folder_extensions = {".html", ".htm", ".txt"};
  // Only this share of the run is read (InputShare; the default: all).
  InputShare share;
  // Each document read from JSON Lines keeps its line in
  // Document::json_line (a copy of the record's bytes; off by default).
  bool keep_json_lines = false;

  // Returns InvalidArgument with a readable message when a field is out of range.
  Status Validate() const;
};

// The endings (lower case, with dot) of the crawl files a folder's reader
// takes record by record: WARC, ARC, WET and JSON Lines. A name ending in
// one of them, case aside, optionally followed by ".gz" or ".zst", is a
// crawl file (IsCrawlFileName).
const std::vector<std::string>& CrawlFileEndings();
bool IsCrawlFileName(const std::string& path);

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

// Why a warning was raised, without the file name: "cannot open (No such
// file or directory)" for an input that could not be opened, else
// "<reason key> (<message>)".
std::string DescribeWarning(const ReadWarning& warning);

// Keeps what the one error line of a run that read nothing usable names:
// the first warning of each of the first kNamedFiles files that had one,
// and how many warnings came. Passes every warning on to `next` (may be
// nullptr), so that it can stand between a source and the observer that
// prints or stores warnings. Every front end (the CLI's commands, the
// service's ingest, the Python module) says it with NothingReadLine.
class FirstWarnings final : public ReadObserver {
 public:
  static constexpr size_t kNamedFiles = 3;
  explicit FirstWarnings(ReadObserver* next = nullptr) : next_(next) {}
  void OnWarning(const ReadWarning& warning) override;
  uint64_t seen() const { return seen_; }
  const std::vector<ReadWarning>& first_per_file() const { return first_per_file_; }

 private:
  ReadObserver* next_;
  uint64_t seen_ = 0;
  std::vector<ReadWarning> first_per_file_;
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
  // "empty-file", "empty-folder", "unknown-format", "bad-json", "bad-http".
  std::map<std::string, uint64_t> skipped;
};

// "no usable document could be read: FILE: why; FILE: why; N more warnings,
// see WHERE" when inputs had warnings (WHERE, e.g. a warnings.tsv, left out
// when empty); when none had, "no usable document could be read from the N
// inputs" and what was passed over by design ("records and files skipped:
// 1 type:warcinfo, 2 folder-file-left-out (a folder's files are read when
// named ...)"), or the inputs' names where nothing was. One line, no
// newline.
std::string NothingReadLine(const std::vector<std::string>& inputs, const FirstWarnings& warnings,
                            const ReadStats& stats, const SourceOptions& options,
                            std::string_view warnings_where = {});

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
  // Hands back the buffer of a page's body the caller is done with. The
  // source may keep a large one to read a later large page into, so that
  // it is not allocated and faulted in anew; *body is then empty, or holds
  // the smaller buffer that a large one replaced in an earlier Next. The
  // sources of OpenDocumentSource keep up to 32 MiB of buffers of 256 KiB
  // or more. Default: keeps nothing.
  virtual void Recycle(std::string* body) { (void)body; }
};

// Opens `inputs` in order. Each input is a file (format sniffed from its
// bytes, not its name: WARC, ARC, gzip/zstd of either, JSON Lines), a folder
// (searched recursively, files sorted by path), or "-" (JSON Lines on stdin).
// Inputs that do not exist are reported as warnings ("unreadable-file") when
// the source reaches them. `env` may be nullptr for the default POSIX Env;
// `observer` may be nullptr. Returns InvalidArgument for bad options only.
// One file a run over some inputs reads: a file named on the command line
// or a member of a folder, in the order OpenDocumentSource reads them, with
// its size in bytes (0 when it cannot be read, or for "-").
struct InputFile {
  std::string path;
  uint64_t size = 0;
};

// The files OpenDocumentSource(inputs, options) reads, in order: the
// positions SourceOptions::first_file and end_file count. A folder that
// cannot be listed holds one position (its reader reports it).
std::vector<InputFile> ListInputFiles(const std::vector<std::string>& inputs,
                                      const SourceOptions& options = SourceOptions(), Env* env = nullptr);

// The offset of the first gzip member at or after `offset` of the
// per-record-gzip WARC file `path` that inflates to the start of a WARC
// record ("WARC/"), looking at most `max_scan` bytes ahead; the file's size
// when there is none (a plain, whole-file-compressed or zstd file, or no
// record start within reach). Where a share of a large file may begin.
Result<uint64_t> NextRecordMember(const std::string& path, uint64_t offset, Env* env = nullptr,
                                  uint64_t max_scan = uint64_t{64} << 20);

// The run's files (ListInputFiles) cut into `parts` contiguous shares of
// about equal bytes, in order (share r ends where share r + 1 begins; the
// last runs to the end). A cut falling inside a per-record-gzip WARC file
// moves to its next record member (NextRecordMember), one inside any other
// file to the start of the next file; a share may be empty. How neardup-mpi
// divides a run among its ranks.
std::vector<InputShare> PlanInputShares(const std::vector<InputFile>& files, uint32_t parts, Env* env = nullptr);

Result<std::unique_ptr<DocumentSource>> OpenDocumentSource(
    const std::vector<std::string>& inputs, const SourceOptions& options = SourceOptions(),
    Env* env = nullptr, ReadObserver* observer = nullptr);

}  // namespace neardup

#endif  // NEARDUP_SOURCE_H_
