// Copyright neardup authors. Licensed under Apache-2.0.
//
// LineReader: a file read through Env one line at a time, in bounded memory
// (a 64 KiB read buffer plus the longest line). Not thread-safe.
#ifndef NEARDUP_BASE_LINE_READER_H_
#define NEARDUP_BASE_LINE_READER_H_

#include <memory>
#include <string>
#include <string_view>

#include "neardup/env.h"
#include "neardup/status.h"

namespace neardup {

// Lines are returned without their '\n' and without a final '\r'.
class LineReader {
 public:
  explicit LineReader(std::unique_ptr<SequentialFile> file) : file_(std::move(file)) {}

  // Sets *line (valid until the next call) and returns true, or returns false
  // at end of file.
  Result<bool> Next(std::string_view* line) {
    for (;;) {
      const size_t nl = buf_.find('\n', pos_);
      if (nl != std::string::npos || eof_) {
        if (pos_ >= buf_.size() && nl == std::string::npos) return false;
        const size_t end = nl == std::string::npos ? buf_.size() : nl;
        *line = std::string_view(buf_).substr(pos_, end - pos_);
        if (!line->empty() && line->back() == '\r') line->remove_suffix(1);
        pos_ = nl == std::string::npos ? buf_.size() : nl + 1;
        return true;
      }
      buf_.erase(0, pos_);
      pos_ = 0;
      const size_t old = buf_.size();
      buf_.resize(old + kChunk);
      size_t got = 0;
      Status s = file_->Read(kChunk, buf_.data() + old, &got);
      buf_.resize(old + got);
      if (!s.ok()) return s;
      if (got == 0) eof_ = true;
    }
  }

 private:
  static constexpr size_t kChunk = 1 << 16;
  std::unique_ptr<SequentialFile> file_;
  std::string buf_;
  size_t pos_ = 0;
  bool eof_ = false;
};

}  // namespace neardup

#endif  // NEARDUP_BASE_LINE_READER_H_
