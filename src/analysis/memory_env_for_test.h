// Copyright neardup authors. Licensed under Apache-2.0.
//
// TEST_MemoryEnv: an Env whose files are strings in a map, for the analysis
// module's unit tests (the module does not link the io module, which holds
// Env::Default()). Only what the analysis code uses is supported; the rest
// returns NotSupported. Not thread-safe.
#ifndef NEARDUP_ANALYSIS_MEMORY_ENV_FOR_TEST_H_
#define NEARDUP_ANALYSIS_MEMORY_ENV_FOR_TEST_H_

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "neardup/env.h"

namespace neardup {

class TEST_MemoryEnv final : public Env {
 public:
  std::map<std::string, std::string> files;

  Result<std::unique_ptr<SequentialFile>> NewSequentialFile(const std::string& path) override {
    auto it = files.find(path);
    if (it == files.end()) return Status::NotFound(path + ": no such file");
    return std::unique_ptr<SequentialFile>(new Reader(it->second));
  }
  Result<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override {
    files[path].clear();
    return std::unique_ptr<WritableFile>(new Writer(&files[path]));
  }
  bool FileExists(const std::string& path) override { return files.count(path) > 0; }
  bool IsDirectory(const std::string&) override { return false; }
  Result<uint64_t> GetFileSize(const std::string& path) override {
    auto it = files.find(path);
    if (it == files.end()) return Status::NotFound(path);
    return static_cast<uint64_t>(it->second.size());
  }
  Result<std::vector<std::string>> ListFilesRecursive(const std::string&) override {
    return Status::NotSupported("TEST_MemoryEnv");
  }
  Status CreateDirs(const std::string&) override { return Status::OK(); }
  Status RemoveFile(const std::string& path) override {
    files.erase(path);
    return Status::OK();
  }
  Status RenameFile(const std::string&, const std::string&) override {
    return Status::NotSupported("TEST_MemoryEnv");
  }

 private:
  class Reader final : public SequentialFile {
   public:
    explicit Reader(std::string data) : data_(std::move(data)) {}
    Status Read(size_t n, char* scratch, size_t* bytes_read) override {
      *bytes_read = std::min(n, data_.size() - pos_);
      if (*bytes_read > 0) std::memcpy(scratch, data_.data() + pos_, *bytes_read);
      pos_ += *bytes_read;
      return Status::OK();
    }

   private:
    std::string data_;
    size_t pos_ = 0;
  };
  class Writer final : public WritableFile {
   public:
    explicit Writer(std::string* out) : out_(out) {}
    Status Append(const char* data, size_t n) override {
      out_->append(data, n);
      return Status::OK();
    }
    Status Flush() override { return Status::OK(); }
    Status Close() override { return Status::OK(); }

   private:
    std::string* out_;
  };
};

}  // namespace neardup

#endif  // NEARDUP_ANALYSIS_MEMORY_ENV_FOR_TEST_H_
