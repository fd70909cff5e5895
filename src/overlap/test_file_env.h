// Copyright neardup authors. Licensed under Apache-2.0.
//
// Test-only: a plain-files Env (std::FILE and std::filesystem) for the
// overlap module's tests, which cannot link the io module's Env::Default()
// (the module depends only on base). It can fail every write after a given
// number of bytes, to test that spill files are removed on error, and it
// counts the files it created.
#ifndef NEARDUP_OVERLAP_TEST_FILE_ENV_H_
#define NEARDUP_OVERLAP_TEST_FILE_ENV_H_

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "neardup/env.h"

namespace neardup::testing {

class TestFileEnv : public Env {
 public:
  // Writes fail (IOError) once this many bytes were appended in total.
  uint64_t fail_after_bytes = UINT64_MAX;
  uint64_t bytes_written = 0;
  uint64_t files_created = 0;

  Result<std::unique_ptr<SequentialFile>> NewSequentialFile(const std::string& path) override {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) return Status::NotFound(path + ": cannot open");
    return std::unique_ptr<SequentialFile>(std::make_unique<Reader>(f));
  }
  Result<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) return Status::IOError(path + ": cannot create");
    ++files_created;
    return std::unique_ptr<WritableFile>(std::make_unique<Writer>(f, this));
  }
  bool FileExists(const std::string& path) override { return std::filesystem::exists(path); }
  bool IsDirectory(const std::string& path) override {
    return std::filesystem::is_directory(path);
  }
  Result<uint64_t> GetFileSize(const std::string& path) override {
    std::error_code ec;
    const uint64_t size = std::filesystem::file_size(path, ec);
    if (ec) return Status::NotFound(path + ": " + ec.message());
    return size;
  }
  Result<std::vector<std::string>> ListFilesRecursive(const std::string& dir) override {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
      if (e.is_regular_file()) out.push_back(e.path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  Status CreateDirs(const std::string& dir) override {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return Status::IOError(dir + ": " + ec.message());
    return Status::OK();
  }
  Status RemoveFile(const std::string& path) override {
    std::error_code ec;
    if (!std::filesystem::remove(path, ec)) return Status::IOError(path + ": cannot remove");
    return Status::OK();
  }
  Status RenameFile(const std::string& from, const std::string& to) override {
    std::error_code ec;
    std::filesystem::rename(from, to, ec);
    if (ec) return Status::IOError(from + ": " + ec.message());
    return Status::OK();
  }

 private:
  class Reader : public SequentialFile {
   public:
    explicit Reader(std::FILE* f) : f_(f) {}
    ~Reader() override { std::fclose(f_); }
    Status Read(size_t n, char* scratch, size_t* bytes_read) override {
      *bytes_read = std::fread(scratch, 1, n, f_);
      if (*bytes_read == 0 && std::ferror(f_)) return Status::IOError("read failed");
      return Status::OK();
    }

   private:
    std::FILE* f_;
  };
  class Writer : public WritableFile {
   public:
    Writer(std::FILE* f, TestFileEnv* env) : f_(f), env_(env) {}
    ~Writer() override { (void)Close(); }
    Status Append(const char* data, size_t n) override {
      if (f_ == nullptr) return Status::IOError("append to a closed file");
      if (env_->bytes_written + n > env_->fail_after_bytes) {
        return Status::IOError("injected write failure");
      }
      env_->bytes_written += n;
      if (std::fwrite(data, 1, n, f_) != n) return Status::IOError("write failed");
      return Status::OK();
    }
    Status Flush() override { return std::fflush(f_) == 0 ? Status::OK() : Status::IOError("flush"); }
    Status Close() override {
      if (f_ == nullptr) return Status::OK();
      const int rc = std::fclose(f_);
      f_ = nullptr;
      return rc == 0 ? Status::OK() : Status::IOError("close failed");
    }

   private:
    std::FILE* f_;
    TestFileEnv* env_;
  };
};

// Number of regular files directly in `dir`.
inline size_t CountFiles(const std::string& dir) {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) n += e.is_regular_file();
  return n;
}

}  // namespace neardup::testing

#endif  // NEARDUP_OVERLAP_TEST_FILE_ENV_H_
