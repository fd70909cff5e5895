// Copyright neardup authors. Licensed under Apache-2.0.
//
// The FPrint-DocID file of Shivakumar and Garcia-Molina ("Finding
// near-replicas of documents on the web", §2): one record per chunk of a
// document, a 32-bit chunk fingerprint `fprint` and a 32-bit document id
// `doc`. On disk: 8 bytes per record, fprint then doc, each little-endian,
// no header; a file whose size is not a multiple of 8 is Corruption.
#ifndef NEARDUP_OVERLAP_RECORD_FILE_H_
#define NEARDUP_OVERLAP_RECORD_FILE_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "neardup/env.h"
#include "neardup/status.h"

namespace neardup {

// One FPrint-DocID record (the paper's §2).
struct FprintDocId {
  uint32_t fprint;  // the chunk's 32-bit fingerprint
  uint32_t doc;     // the document's id
  friend bool operator==(const FprintDocId&, const FprintDocId&) = default;
};
static_assert(sizeof(FprintDocId) == 8);

inline constexpr size_t kFprintDocIdBytes = 8;

// Appends records to a new file through `Env`'s WritableFile, gathering them
// in a block of block_bytes before each Append. Close() must return OK for
// the file to be complete; a writer destroyed without Close() leaves a
// partial file (whole records only). Not thread-safe.
class FprintDocIdWriter {
 public:
  // Creates (truncates) `path`. block_bytes >= 8.
  static Result<std::unique_ptr<FprintDocIdWriter>> Open(Env* env, const std::string& path,
                                                         size_t block_bytes = 1 << 20);
  ~FprintDocIdWriter();

  Status Append(const FprintDocId& record);
  Status Append(std::span<const FprintDocId> records);
  // Writes the block and closes the file.
  Status Close();
  uint64_t records() const { return records_; }

 private:
  FprintDocIdWriter(std::unique_ptr<WritableFile> file, std::string path, size_t block_bytes);
  Status FlushBlock();

  std::unique_ptr<WritableFile> file_;
  std::string path_;
  std::vector<char> block_;  // capacity fixed at Open
  size_t used_ = 0;
  uint64_t records_ = 0;
  bool closed_ = false;
};

// Reads the records of a file in order. Open() checks the size (Corruption
// "<path>: size N is not a multiple of 8"); reading stops with Corruption if
// the file ends inside a record anyway (it changed while read). Not
// thread-safe.
class FprintDocIdReader {
 public:
  static Result<std::unique_ptr<FprintDocIdReader>> Open(Env* env, const std::string& path);

  // Reads up to out.size() records into `out`; *count = 0 at end of file.
  // Reads straight into `out` (no internal buffer): pass a large span.
  Status Read(std::span<FprintDocId> out, size_t* count);
  // The file's size in bytes, as checked at Open.
  uint64_t file_bytes() const { return file_bytes_; }

 private:
  FprintDocIdReader(std::unique_ptr<SequentialFile> file, std::string path, uint64_t bytes)
      : file_(std::move(file)), path_(std::move(path)), file_bytes_(bytes) {}
  std::unique_ptr<SequentialFile> file_;
  std::string path_;
  uint64_t file_bytes_;
};

// Checks that `path` exists and its size is a multiple of 8; returns the size.
Result<uint64_t> CheckFprintDocIdFile(Env* env, const std::string& path);

// Writes `records` to `path` (convenience for tests and small inputs).
Status WriteFprintDocIdFile(Env* env, const std::string& path,
                            std::span<const FprintDocId> records);
// Reads every record of `path` (convenience for tests and small inputs).
Result<std::vector<FprintDocId>> ReadFprintDocIdFile(Env* env, const std::string& path);

}  // namespace neardup

#endif  // NEARDUP_OVERLAP_RECORD_FILE_H_
