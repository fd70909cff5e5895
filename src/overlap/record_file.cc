// Copyright neardup authors. Licensed under Apache-2.0.
#include "overlap/record_file.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "overlap/external_sort.h"

namespace neardup {
namespace {

// Host <-> little-endian file order, in place.
void ToFileOrder(FprintDocId* records, size_t n) {
  if constexpr (std::endian::native == std::endian::big) {
    for (size_t i = 0; i < n; ++i) {
      records[i].fprint = __builtin_bswap32(records[i].fprint);
      records[i].doc = __builtin_bswap32(records[i].doc);
    }
  }
}

}  // namespace

Result<uint64_t> CheckFprintDocIdFile(Env* env, const std::string& path) {
  if (!env->FileExists(path)) return Status::NotFound(path + ": no such FPrint-DocID file");
  NEARDUP_ASSIGN_OR_RETURN(uint64_t bytes, env->GetFileSize(path));
  if (bytes % kFprintDocIdBytes != 0) {
    return Status::Corruption(path + ": size " + std::to_string(bytes) +
                              " is not a multiple of 8 (FPrint-DocID records are 8 bytes)");
  }
  return bytes;
}

FprintDocIdWriter::FprintDocIdWriter(std::unique_ptr<WritableFile> file, std::string path,
                                     size_t block_bytes)
    : file_(std::move(file)), path_(std::move(path)) {
  block_.resize(std::max<size_t>(kFprintDocIdBytes, block_bytes / kFprintDocIdBytes *
                                                        kFprintDocIdBytes));
}

FprintDocIdWriter::~FprintDocIdWriter() {
  if (!closed_) {
    (void)FlushBlock();
    (void)file_->Close();
  }
}

Result<std::unique_ptr<FprintDocIdWriter>> FprintDocIdWriter::Open(Env* env,
                                                                   const std::string& path,
                                                                   size_t block_bytes) {
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, env->NewWritableFile(path));
  return std::unique_ptr<FprintDocIdWriter>(
      new FprintDocIdWriter(std::move(file), path, block_bytes));
}

Status FprintDocIdWriter::Append(const FprintDocId& record) {
  return Append(std::span<const FprintDocId>(&record, 1));
}

Status FprintDocIdWriter::Append(std::span<const FprintDocId> records) {
  if (closed_) return Status::InvalidArgument(path_ + ": append after Close()");
  size_t i = 0;
  while (i < records.size()) {
    if (used_ == block_.size()) NEARDUP_RETURN_IF_ERROR(FlushBlock());
    const size_t n = std::min(records.size() - i, (block_.size() - used_) / kFprintDocIdBytes);
    auto* dst = reinterpret_cast<FprintDocId*>(block_.data() + used_);
    std::memcpy(static_cast<void*>(dst), records.data() + i, n * kFprintDocIdBytes);
    ToFileOrder(dst, n);
    used_ += n * kFprintDocIdBytes;
    i += n;
  }
  records_ += records.size();
  return Status::OK();
}

Status FprintDocIdWriter::FlushBlock() {
  if (used_ == 0) return Status::OK();
  Status s = file_->Append(block_.data(), used_);
  used_ = 0;
  return s;
}

Status FprintDocIdWriter::Close() {
  if (closed_) return Status::OK();
  closed_ = true;
  Status s = FlushBlock();
  Status c = file_->Close();
  return s.ok() ? c : s;
}

Result<std::unique_ptr<FprintDocIdReader>> FprintDocIdReader::Open(Env* env,
                                                                   const std::string& path) {
  NEARDUP_ASSIGN_OR_RETURN(uint64_t bytes, CheckFprintDocIdFile(env, path));
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<SequentialFile> file, env->NewSequentialFile(path));
  return std::unique_ptr<FprintDocIdReader>(new FprintDocIdReader(std::move(file), path, bytes));
}

Status FprintDocIdReader::Read(std::span<FprintDocId> out, size_t* count) {
  *count = 0;
  if (out.empty()) return Status::OK();
  NEARDUP_RETURN_IF_ERROR(internal::ReadRecords(file_.get(), path_, kFprintDocIdBytes,
                                                reinterpret_cast<char*>(out.data()),
                                                out.size(), count));
  ToFileOrder(out.data(), *count);
  return Status::OK();
}

Status WriteFprintDocIdFile(Env* env, const std::string& path,
                            std::span<const FprintDocId> records) {
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<FprintDocIdWriter> writer,
                           FprintDocIdWriter::Open(env, path));
  NEARDUP_RETURN_IF_ERROR(writer->Append(records));
  return writer->Close();
}

Result<std::vector<FprintDocId>> ReadFprintDocIdFile(Env* env, const std::string& path) {
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<FprintDocIdReader> reader,
                           FprintDocIdReader::Open(env, path));
  std::vector<FprintDocId> all(reader->file_bytes() / kFprintDocIdBytes);
  size_t got = 0;
  while (got < all.size()) {
    size_t n = 0;
    NEARDUP_RETURN_IF_ERROR(reader->Read(std::span(all).subspan(got), &n));
    if (n == 0) break;
    got += n;
  }
  all.resize(got);
  return all;
}

}  // namespace neardup
