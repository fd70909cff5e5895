// Copyright neardup authors. Licensed under Apache-2.0.
//
// MemEnv (include/neardup/env.h): files are shared strings in a map, copied
// on write while an open reader still holds them; every fault rule keeps its
// own count of matching operations.
#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

#include "neardup/env.h"

namespace neardup {

namespace {

std::string StripSlash(std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

const char* FileOpName(FileOp op) {
  switch (op) {
    case FileOp::kOpenRead: return "open-read";
    case FileOp::kRead: return "read";
    case FileOp::kOpenWrite: return "open-write";
    case FileOp::kAppend: return "append";
    case FileOp::kFlush: return "flush";
    case FileOp::kClose: return "close";
    case FileOp::kRename: return "rename";
    case FileOp::kRemove: return "remove";
  }
  return "unknown";
}

struct MemEnv::Rep {
  struct Rule {
    FaultRule rule;
    uint64_t seen = 0;  // matching operations so far
  };
  struct ReadLimit {
    uint64_t after = 0;
    Status error;
  };

  std::mutex mu;
  std::map<std::string, std::shared_ptr<std::string>> files;
  std::set<std::string> dirs;
  std::vector<Rule> rules;
  std::map<std::string, ReadLimit> read_limits;
  std::map<std::string, uint64_t> write_limits;
  size_t max_read_chunk = 0;
  uint64_t faults_injected = 0;

  // OK, or the injected error when a rule fails this operation on `path`
  // (and `other`, a rename's target). REQUIRES: mu held.
  Status Check(FileOp op, const std::string& path, const std::string& other = std::string()) {
    Status result;
    for (Rule& r : rules) {
      if (r.rule.op != op) continue;
      if (!StartsWith(path, r.rule.path_prefix) &&
          (other.empty() || !StartsWith(other, r.rule.path_prefix))) {
        continue;
      }
      const uint64_t n = r.seen++;
      if (result.ok() && n >= r.rule.skip && (r.rule.count == 0 || n - r.rule.skip < r.rule.count)) {
        result = Status::IOError(path + ": injected " + FileOpName(op) + " fault");
      }
    }
    if (!result.ok()) ++faults_injected;
    return result;
  }

  Status CheckLocked(FileOp op, const std::string& path) {
    std::lock_guard<std::mutex> l(mu);
    return Check(op, path);
  }

  Status AppendTo(const std::string& path, const char* data, size_t n) {
    std::lock_guard<std::mutex> l(mu);
    if (Status s = Check(FileOp::kAppend, path); !s.ok()) return s;
    auto it = files.find(path);
    if (it == files.end()) return Status::IOError(path + ": file was removed");
    auto lim = write_limits.find(path);
    if (lim != write_limits.end() && it->second->size() + n > lim->second) {
      ++faults_injected;
      return Status::IOError(path + ": injected write error");
    }
    // Copy-on-write so readers opened earlier keep their snapshot.
    if (it->second.use_count() > 1) it->second = std::make_shared<std::string>(*it->second);
    it->second->append(data, n);
    return Status::OK();
  }
};

namespace {

class MemSequentialFile final : public SequentialFile {
 public:
  MemSequentialFile(MemEnv::Rep* rep, std::string path, std::shared_ptr<const std::string> data,
                    bool limited, uint64_t fail_after, Status error, size_t max_chunk)
      : rep_(rep), path_(std::move(path)), data_(std::move(data)), limited_(limited),
        fail_after_(fail_after), error_(std::move(error)), max_chunk_(max_chunk) {}

  Status Read(size_t n, char* scratch, size_t* bytes_read) override {
    *bytes_read = 0;
    if (Status s = rep_->CheckLocked(FileOp::kRead, path_); !s.ok()) return s;
    if (limited_ && pos_ >= fail_after_) return error_;
    const size_t left = data_->size() - pos_;
    size_t k = std::min(n, left);
    if (max_chunk_ > 0) k = std::min(k, max_chunk_);
    if (limited_) k = static_cast<size_t>(std::min<uint64_t>(k, fail_after_ - pos_));
    if (k > 0) std::memcpy(scratch, data_->data() + pos_, k);
    pos_ += k;
    *bytes_read = k;
    return Status::OK();
  }

 private:
  MemEnv::Rep* rep_;
  std::string path_;
  std::shared_ptr<const std::string> data_;
  size_t pos_ = 0;
  bool limited_;
  uint64_t fail_after_;
  Status error_;
  size_t max_chunk_;
};

// Appends go straight into the env's copy of the file.
class MemWritableFile final : public WritableFile {
 public:
  MemWritableFile(MemEnv::Rep* rep, std::string path) : rep_(rep), path_(std::move(path)) {}
  Status Append(const char* data, size_t n) override {
    if (closed_) return Status::IOError(path_ + ": file is closed");
    return rep_->AppendTo(path_, data, n);
  }
  Status Flush() override {
    if (closed_) return Status::IOError(path_ + ": file is closed");
    return rep_->CheckLocked(FileOp::kFlush, path_);
  }
  Status Close() override {
    if (closed_) return Status::OK();
    closed_ = true;
    return rep_->CheckLocked(FileOp::kClose, path_);
  }

 private:
  MemEnv::Rep* rep_;
  std::string path_;
  bool closed_ = false;
};

}  // namespace

MemEnv::MemEnv() : rep_(std::make_unique<Rep>()) {}
MemEnv::~MemEnv() = default;

void MemEnv::AddFile(const std::string& path, std::string contents) {
  std::lock_guard<std::mutex> l(rep_->mu);
  rep_->files[path] = std::make_shared<std::string>(std::move(contents));
}

Result<std::string> MemEnv::GetContents(const std::string& path) {
  std::lock_guard<std::mutex> l(rep_->mu);
  auto it = rep_->files.find(path);
  if (it == rep_->files.end()) return Status::NotFound(path + ": no such file");
  return std::string(*it->second);
}

std::vector<std::string> MemEnv::AllFiles() {
  std::lock_guard<std::mutex> l(rep_->mu);
  std::vector<std::string> out;
  for (const auto& [path, data] : rep_->files) out.push_back(path);
  return out;
}

void MemEnv::InjectFault(FaultRule rule) {
  std::lock_guard<std::mutex> l(rep_->mu);
  rep_->rules.push_back({std::move(rule), 0});
}

void MemEnv::FailReadsAfter(const std::string& path, uint64_t bytes, Status error) {
  std::lock_guard<std::mutex> l(rep_->mu);
  rep_->read_limits[path] = Rep::ReadLimit{bytes, std::move(error)};
}

void MemEnv::FailWritesAfter(const std::string& path, uint64_t bytes) {
  std::lock_guard<std::mutex> l(rep_->mu);
  rep_->write_limits[path] = bytes;
}

void MemEnv::SetMaxReadChunk(size_t n) {
  std::lock_guard<std::mutex> l(rep_->mu);
  rep_->max_read_chunk = n;
}

void MemEnv::ClearFaults() {
  std::lock_guard<std::mutex> l(rep_->mu);
  rep_->rules.clear();
  rep_->read_limits.clear();
  rep_->write_limits.clear();
  rep_->max_read_chunk = 0;
}

uint64_t MemEnv::faults_injected() {
  std::lock_guard<std::mutex> l(rep_->mu);
  return rep_->faults_injected;
}

Result<std::unique_ptr<SequentialFile>> MemEnv::NewSequentialFile(const std::string& path) {
  std::lock_guard<std::mutex> l(rep_->mu);
  if (Status s = rep_->Check(FileOp::kOpenRead, path); !s.ok()) return s;
  auto it = rep_->files.find(path);
  if (it == rep_->files.end()) {
    if (rep_->dirs.count(StripSlash(path)) > 0) return Status::IOError(path + ": is a directory");
    return Status::NotFound(path + ": no such file");
  }
  auto f = rep_->read_limits.find(path);
  const bool limited = f != rep_->read_limits.end();
  return std::unique_ptr<SequentialFile>(new MemSequentialFile(
      rep_.get(), path, it->second, limited, limited ? f->second.after : 0,
      limited ? f->second.error : Status::OK(), rep_->max_read_chunk));
}

Result<std::unique_ptr<WritableFile>> MemEnv::NewWritableFile(const std::string& path) {
  std::lock_guard<std::mutex> l(rep_->mu);
  if (Status s = rep_->Check(FileOp::kOpenWrite, path); !s.ok()) return s;
  rep_->files[path] = std::make_shared<std::string>();
  return std::unique_ptr<WritableFile>(new MemWritableFile(rep_.get(), path));
}

bool MemEnv::FileExists(const std::string& path) {
  std::lock_guard<std::mutex> l(rep_->mu);
  return rep_->files.count(path) > 0 || rep_->dirs.count(StripSlash(path)) > 0;
}

bool MemEnv::IsDirectory(const std::string& path) {
  std::lock_guard<std::mutex> l(rep_->mu);
  const std::string d = StripSlash(path);
  if (rep_->dirs.count(d) > 0) return true;
  const std::string prefix = d + "/";
  auto it = rep_->files.lower_bound(prefix);
  return it != rep_->files.end() && StartsWith(it->first, prefix);
}

Result<uint64_t> MemEnv::GetFileSize(const std::string& path) {
  std::lock_guard<std::mutex> l(rep_->mu);
  auto it = rep_->files.find(path);
  if (it == rep_->files.end()) return Status::NotFound(path + ": no such file");
  return static_cast<uint64_t>(it->second->size());
}

Result<std::vector<std::string>> MemEnv::ListFilesRecursive(const std::string& dir) {
  std::lock_guard<std::mutex> l(rep_->mu);
  const std::string d = StripSlash(dir);
  const std::string prefix = d + "/";
  std::vector<std::string> out;
  for (auto it = rep_->files.lower_bound(prefix);
       it != rep_->files.end() && StartsWith(it->first, prefix); ++it) {
    out.push_back(it->first);
  }
  if (out.empty() && rep_->dirs.count(d) == 0) return Status::NotFound(dir + ": no such folder");
  return out;  // std::map iterates in byte order
}

Status MemEnv::CreateDirs(const std::string& dir) {
  std::lock_guard<std::mutex> l(rep_->mu);
  const std::string d = StripSlash(dir);
  for (size_t i = 1; i <= d.size(); ++i) {
    if (i == d.size() || d[i] == '/') rep_->dirs.insert(d.substr(0, i));
  }
  return Status::OK();
}

Status MemEnv::RemoveFile(const std::string& path) {
  std::lock_guard<std::mutex> l(rep_->mu);
  if (Status s = rep_->Check(FileOp::kRemove, path); !s.ok()) return s;
  if (rep_->files.erase(path) == 0) return Status::NotFound(path + ": no such file");
  return Status::OK();
}

Status MemEnv::RenameFile(const std::string& from, const std::string& to) {
  std::lock_guard<std::mutex> l(rep_->mu);
  if (Status s = rep_->Check(FileOp::kRename, from, to); !s.ok()) return s;
  auto it = rep_->files.find(from);
  if (it == rep_->files.end()) return Status::NotFound(from + ": no such file");
  auto data = it->second;
  rep_->files.erase(it);
  rep_->files[to] = std::move(data);
  return Status::OK();
}

}  // namespace neardup
