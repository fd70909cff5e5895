// Copyright neardup authors. Licensed under Apache-2.0.
#include "io/compressed_writer.h"

#include <libdeflate.h>
#include <zstd.h>

#include <algorithm>
#include <string>

#include "base/path.h"

namespace neardup::io {

namespace {

// Bytes of input a member or frame holds: large enough that the members'
// headers and the restarts of the compressor's window cost little.
constexpr size_t kBlockBytes = size_t{1} << 20;
constexpr int kGzipLevel = 6;  // libdeflate's default
constexpr int kZstdLevel = 3;  // zstd's default

class CompressedFile final : public WritableFile {
 public:
  CompressedFile(std::unique_ptr<WritableFile> file, OutputCompression compression)
      : file_(std::move(file)), compression_(compression) {
    pending_.reserve(kBlockBytes);
  }
  ~CompressedFile() override {
    if (deflater_) libdeflate_free_compressor(deflater_);
  }

  Status Append(const char* data, size_t n) override {
    while (n > 0) {
      const size_t take = std::min(n, kBlockBytes - pending_.size());
      pending_.append(data, take);
      data += take;
      n -= take;
      if (pending_.size() == kBlockBytes) {
        if (Status s = WriteBlock(); !s.ok()) return s;
      }
    }
    return Status::OK();
  }

  Status Flush() override {
    if (Status s = WriteBlock(); !s.ok()) return s;
    return file_->Flush();
  }

  Status Close() override {
    if (Status s = WriteBlock(); !s.ok()) return s;
    return file_->Close();
  }

 private:
  // Compresses pending_ into one member or frame and appends it.
  Status WriteBlock() {
    if (pending_.empty()) return Status::OK();
    size_t written = 0;
    if (compression_ == OutputCompression::kGzip) {
      if (deflater_ == nullptr) deflater_ = libdeflate_alloc_compressor(kGzipLevel);
      if (deflater_ == nullptr) return Status::IOError("cannot allocate a gzip compressor");
      out_.resize(libdeflate_gzip_compress_bound(deflater_, pending_.size()));
      written = libdeflate_gzip_compress(deflater_, pending_.data(), pending_.size(), out_.data(), out_.size());
      if (written == 0) return Status::IOError("gzip compression failed");
    } else {
      out_.resize(ZSTD_compressBound(pending_.size()));
      written = ZSTD_compress(out_.data(), out_.size(), pending_.data(), pending_.size(), kZstdLevel);
      if (ZSTD_isError(written)) {
        return Status::IOError(std::string("zstd compression failed: ") + ZSTD_getErrorName(written));
      }
    }
    pending_.clear();
    return file_->Append(out_.data(), written);
  }

  std::unique_ptr<WritableFile> file_;
  OutputCompression compression_;
  libdeflate_compressor* deflater_ = nullptr;
  std::string pending_, out_;
};

}  // namespace

OutputCompression CompressionOfName(std::string_view path) {
  if (NameEndsWith(path, ".gz")) return OutputCompression::kGzip;
  if (NameEndsWith(path, ".zst")) return OutputCompression::kZstd;
  return OutputCompression::kNone;
}

std::unique_ptr<WritableFile> NewCompressedWritableFile(std::unique_ptr<WritableFile> file,
                                                        OutputCompression compression) {
  if (compression == OutputCompression::kNone) return file;
  return std::make_unique<CompressedFile>(std::move(file), compression);
}

}  // namespace neardup::io
