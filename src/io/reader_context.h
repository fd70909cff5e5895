// Copyright neardup authors. Licensed under Apache-2.0.
//
// ReaderContext: what every per-file reader shares with the DocumentSource
// that drives it: options, stats, observer and the name of the file being
// read. Internal to src/io.
#ifndef NEARDUP_IO_READER_CONTEXT_H_
#define NEARDUP_IO_READER_CONTEXT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "io/body_buffers.h"
#include "neardup/source.h"

namespace neardup::io {

// Reason keys used in ReadWarning::reason_key and ReadStats::skipped. Stable:
// reports and tests match on them.
namespace reason {
inline constexpr std::string_view kTruncated = "truncated";          // record cut by end of input
inline constexpr std::string_view kTruncatedGzip = "truncated-gzip"; // gzip member cut by end of file
inline constexpr std::string_view kCorruptGzip = "corrupt-gzip";     // inflate error in a member
inline constexpr std::string_view kTruncatedZstd = "truncated-zstd";
inline constexpr std::string_view kCorruptZstd = "corrupt-zstd";
inline constexpr std::string_view kCorruptHeader = "corrupt-header"; // WARC/ARC header unusable
inline constexpr std::string_view kBadLength = "bad-length";         // Content-Length missing/wrong
inline constexpr std::string_view kGarbage = "garbage";              // bytes that are no record
inline constexpr std::string_view kRecordTooLarge = "record-too-large";
inline constexpr std::string_view kUnreadableFile = "unreadable-file";
inline constexpr std::string_view kReadError = "read-error";         // I/O error after open
inline constexpr std::string_view kEmptyFile = "empty-file";
inline constexpr std::string_view kEmptyFolder = "empty-folder";     // a folder holding no file at all
inline constexpr std::string_view kUnknownFormat = "unknown-format";
inline constexpr std::string_view kBadJson = "bad-json";
inline constexpr std::string_view kBadHttp = "bad-http";
inline constexpr std::string_view kNonText = "non-text";             // by design, no warning
inline constexpr std::string_view kHttpStatus = "http-status";       // by design, no warning
inline constexpr std::string_view kFolderFileLeftOut = "folder-file-left-out";  // no warning
}  // namespace reason

// Not thread-safe; one per DocumentSource. The pointers are borrowed and must
// outlive the readers using this context.
struct ReaderContext {
  const SourceOptions* options = nullptr;
  ReadStats* stats = nullptr;
  ReadObserver* observer = nullptr;  // may be null
  std::string file;                  // path of the input being read
  BodyBuffers* body_buffers = nullptr;  // the source's, when it keeps large buffers
  uint32_t input_index = 0;

  // Reports damage: counts stats->skipped[key] once and tells the observer.
  void Warn(uint64_t offset, bool in_decompressed_stream, std::string_view key,
            std::string message) {
    ++stats->skipped[std::string(key)];
    if (observer != nullptr) {
      ReadWarning w;
      w.file = file;
      w.offset = offset;
      w.in_decompressed_stream = in_decompressed_stream;
      w.reason_key = std::string(key);
      w.message = std::move(message);
      observer->OnWarning(w);
    }
  }
  // Counts a record skipped by design (no warning).
  void CountSkip(std::string_view key) { ++stats->skipped[std::string(key)]; }
  // Gives doc->body room for `size` bytes when it has less (call before
  // filling the body): a large page a kept buffer with room, a small page
  // its own buffer grown (BodyBuffers::Fit).
  void FitBody(size_t size, Document* doc) {
    if (body_buffers != nullptr) body_buffers->Fit(size, &doc->body);
  }
};

}  // namespace neardup::io

#endif  // NEARDUP_IO_READER_CONTEXT_H_
