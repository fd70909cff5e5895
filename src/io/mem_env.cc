// Copyright neardup authors. Licensed under Apache-2.0.
#include "io/mem_env.h"

#include <algorithm>
#include <cstring>

namespace neardup::io {

namespace {

std::string StripSlash(std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

class MemSequentialFile final : public SequentialFile {
 public:
  MemSequentialFile(std::shared_ptr<const std::string> data, bool fail, uint64_t fail_after,
                    Status error, size_t max_chunk)
      : data_(std::move(data)), fail_(fail), fail_after_(fail_after),
        error_(std::move(error)), max_chunk_(max_chunk) {}

  Status Read(size_t n, char* scratch, size_t* bytes_read) override {
    *bytes_read = 0;
    if (fail_ && pos_ >= fail_after_) return error_;
    size_t left = data_->size() - pos_;
    size_t k = std::min(n, left);
    if (max_chunk_ > 0) k = std::min(k, max_chunk_);
    if (fail_) k = static_cast<size_t>(std::min<uint64_t>(k, fail_after_ - pos_));
    if (k > 0) std::memcpy(scratch, data_->data() + pos_, k);
    pos_ += k;
    *bytes_read = k;
    return Status::OK();
  }

 private:
  std::shared_ptr<const std::string> data_;
  size_t pos_ = 0;
  bool fail_;
  uint64_t fail_after_;
  Status error_;
  size_t max_chunk_;
};

}  // namespace

// Appends go straight into the env's copy of the file (copied first when an
// open reader still shares it).
class MemWritableFile final : public WritableFile {
 public:
  MemWritableFile(MemEnv* env, std::string path) : env_(env), path_(std::move(path)) {}
  Status Append(const char* data, size_t n) override {
    if (closed_) return Status::IOError(path_ + ": file is closed");
    return env_->AppendTo(path_, data, n);
  }
  Status Flush() override { return Status::OK(); }
  Status Close() override {
    closed_ = true;
    return Status::OK();
  }

 private:
  MemEnv* env_;
  std::string path_;
  bool closed_ = false;
};

void MemEnv::AddFile(const std::string& path, std::string contents) {
  std::lock_guard<std::mutex> l(mu_);
  files_[path] = std::make_shared<std::string>(std::move(contents));
}

Result<std::string> MemEnv::GetContents(const std::string& path) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = files_.find(path);
  if (it == files_.end()) return Status::NotFound(path);
  return std::string(*it->second);
}

void MemEnv::FailReadsAfter(const std::string& path, uint64_t bytes, Status error) {
  std::lock_guard<std::mutex> l(mu_);
  read_faults_[path] = ReadFault{bytes, std::move(error)};
}

void MemEnv::SetMaxReadChunk(size_t n) {
  std::lock_guard<std::mutex> l(mu_);
  max_read_chunk_ = n;
}

void MemEnv::FailWritesAfter(const std::string& path, uint64_t bytes) {
  std::lock_guard<std::mutex> l(mu_);
  write_limits_[path] = bytes;
}

void MemEnv::ClearFaults() {
  std::lock_guard<std::mutex> l(mu_);
  read_faults_.clear();
  write_limits_.clear();
  max_read_chunk_ = 0;
}

Status MemEnv::AppendTo(const std::string& path, const char* data, size_t n) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = files_.find(path);
  if (it == files_.end()) return Status::IOError(path + ": file was removed");
  auto lim = write_limits_.find(path);
  if (lim != write_limits_.end() && it->second->size() + n > lim->second) {
    return Status::IOError(path + ": injected write error");
  }
  // Copy-on-write so readers opened earlier keep their snapshot.
  if (it->second.use_count() > 1) {
    it->second = std::make_shared<std::string>(*it->second);
  }
  it->second->append(data, n);
  return Status::OK();
}

Result<std::unique_ptr<SequentialFile>> MemEnv::NewSequentialFile(const std::string& path) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = files_.find(path);
  if (it == files_.end()) {
    if (dirs_.count(StripSlash(path)) > 0) return Status::IOError(path + ": is a directory");
    return Status::NotFound(path + ": no such file");
  }
  auto f = read_faults_.find(path);
  bool fail = f != read_faults_.end();
  return std::unique_ptr<SequentialFile>(new MemSequentialFile(
      it->second, fail, fail ? f->second.after : 0, fail ? f->second.error : Status::OK(),
      max_read_chunk_));
}

Result<std::unique_ptr<WritableFile>> MemEnv::NewWritableFile(const std::string& path) {
  {
    std::lock_guard<std::mutex> l(mu_);
    files_[path] = std::make_shared<std::string>();
  }
  return std::unique_ptr<WritableFile>(new MemWritableFile(this, path));
}

bool MemEnv::FileExists(const std::string& path) {
  std::lock_guard<std::mutex> l(mu_);
  return files_.count(path) > 0 || dirs_.count(StripSlash(path)) > 0;
}

bool MemEnv::IsDirectory(const std::string& path) {
  std::lock_guard<std::mutex> l(mu_);
  std::string d = StripSlash(path);
  if (dirs_.count(d) > 0) return true;
  std::string prefix = d + "/";
  auto it = files_.lower_bound(prefix);
  return it != files_.end() && it->first.compare(0, prefix.size(), prefix) == 0;
}

Result<uint64_t> MemEnv::GetFileSize(const std::string& path) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = files_.find(path);
  if (it == files_.end()) return Status::NotFound(path + ": no such file");
  return static_cast<uint64_t>(it->second->size());
}

Result<std::vector<std::string>> MemEnv::ListFilesRecursive(const std::string& dir) {
  std::lock_guard<std::mutex> l(mu_);
  std::string d = StripSlash(dir);
  std::string prefix = d + "/";
  std::vector<std::string> out;
  for (auto it = files_.lower_bound(prefix);
       it != files_.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    out.push_back(it->first);
  }
  if (out.empty() && dirs_.count(d) == 0) return Status::NotFound(dir + ": no such folder");
  return out;  // std::map iterates in byte order
}

Status MemEnv::CreateDirs(const std::string& dir) {
  std::lock_guard<std::mutex> l(mu_);
  std::string d = StripSlash(dir);
  for (size_t i = 1; i <= d.size(); ++i) {
    if (i == d.size() || d[i] == '/') dirs_.insert(d.substr(0, i));
  }
  return Status::OK();
}

Status MemEnv::RemoveFile(const std::string& path) {
  std::lock_guard<std::mutex> l(mu_);
  if (files_.erase(path) == 0) return Status::NotFound(path + ": no such file");
  return Status::OK();
}

Status MemEnv::RenameFile(const std::string& from, const std::string& to) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = files_.find(from);
  if (it == files_.end()) return Status::NotFound(from + ": no such file");
  auto data = it->second;
  files_.erase(it);
  files_[to] = std::move(data);
  return Status::OK();
}

}  // namespace neardup::io
