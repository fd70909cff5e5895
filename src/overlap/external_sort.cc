// Copyright neardup authors. Licensed under Apache-2.0.
#include "overlap/external_sort.h"

#include <atomic>
#include <cstdio>
#include <random>

namespace neardup {
namespace {

// One random nonce per process, so concurrent processes sharing a temp_dir
// do not collide; a counter makes names unique within the process.
uint64_t ProcessNonce() {
  static const uint64_t nonce = [] {
    std::random_device rd;
    return (static_cast<uint64_t>(rd()) << 32) ^ rd() ^
           static_cast<uint64_t>(
               std::chrono::steady_clock::now().time_since_epoch().count());
  }();
  return nonce;
}

std::atomic<uint64_t> g_temp_counter{0};

}  // namespace

TempFiles::~TempFiles() {
  for (const std::string& p : paths_) (void)env_->RemoveFile(p);
}

Result<std::string> TempFiles::NewPath(std::string_view tag) {
  if (!dir_checked_ && !dir_.empty()) {
    if (!env_->IsDirectory(dir_)) NEARDUP_RETURN_IF_ERROR(env_->CreateDirs(dir_));
    dir_checked_ = true;
  }
  char nonce[17];
  std::snprintf(nonce, sizeof nonce, "%016llx", static_cast<unsigned long long>(ProcessNonce()));
  for (;;) {
    std::string path = (dir_.empty() ? std::string() : dir_ + "/") + "neardup-" +
                       std::string(tag) + "-" + nonce + "-" +
                       std::to_string(g_temp_counter.fetch_add(1)) + ".tmp";
    if (env_->FileExists(path)) continue;
    paths_.push_back(path);
    return path;
  }
}

void TempFiles::Remove(const std::string& path) {
  auto it = std::find(paths_.begin(), paths_.end(), path);
  if (it == paths_.end()) return;
  (void)env_->RemoveFile(path);
  paths_.erase(it);
}

namespace internal {

Status ReadRecords(SequentialFile* file, const std::string& path, size_t record_size, char* out,
                   size_t n, size_t* count) {
  const size_t want = n * record_size;
  size_t got = 0;
  while (got < want) {
    size_t r = 0;
    NEARDUP_RETURN_IF_ERROR(file->Read(want - got, out + got, &r));
    if (r == 0) break;
    got += r;
  }
  if (got % record_size != 0) {
    return Status::Corruption(path + ": ends inside a record (truncated file, records of " +
                              std::to_string(record_size) + " bytes)");
  }
  *count = got / record_size;
  return Status::OK();
}

Status AppendAll(WritableFile* file, const char* data, uint64_t bytes) {
  constexpr uint64_t kChunk = 64ull << 20;
  while (bytes > 0) {
    const uint64_t n = std::min(bytes, kChunk);
    NEARDUP_RETURN_IF_ERROR(file->Append(data, static_cast<size_t>(n)));
    data += n;
    bytes -= n;
  }
  return Status::OK();
}

}  // namespace internal
}  // namespace neardup
