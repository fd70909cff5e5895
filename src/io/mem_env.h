// Copyright neardup authors. Licensed under Apache-2.0.
//
// MemEnv: an Env whose files live in memory, for tests and fuzzers, with
// fault-injection hooks (leveldb's fault-injecting Env): reads that fail
// after N bytes, short reads, writes that fail after N bytes.
//
// Paths are plain strings; folders exist implicitly as prefixes of file paths
// ("a/b/c.html" makes "a" and "a/b" folders) or through CreateDirs(). The
// path "-" is an ordinary file name here, so tests can stand in for stdin.
//
// Thread-safe: every method takes an internal lock. Files returned by
// NewSequentialFile keep a reference to the contents at open time.
#ifndef NEARDUP_IO_MEM_ENV_H_
#define NEARDUP_IO_MEM_ENV_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "neardup/env.h"

namespace neardup::io {

class MemEnv final : public Env {
 public:
  MemEnv() = default;

  // Creates or replaces a file.
  void AddFile(const std::string& path, std::string contents);
  // The current contents of a file (NotFound if missing).
  Result<std::string> GetContents(const std::string& path);

  // Fault injection. Reads of `path` fail with `error` once `bytes` bytes of
  // that file have been returned by this open file (bytes == 0: the first
  // read fails). Applies to files opened after the call.
  void FailReadsAfter(const std::string& path, uint64_t bytes,
                      Status error = Status::IOError("injected read error"));
  // Every Read returns at most `n` bytes (0 = no limit), to exercise callers
  // that must loop on short reads.
  void SetMaxReadChunk(size_t n);
  // Appends to `path` fail once the file would exceed `bytes` bytes.
  void FailWritesAfter(const std::string& path, uint64_t bytes);
  void ClearFaults();

  Result<std::unique_ptr<SequentialFile>> NewSequentialFile(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override;
  bool FileExists(const std::string& path) override;
  bool IsDirectory(const std::string& path) override;
  Result<uint64_t> GetFileSize(const std::string& path) override;
  Result<std::vector<std::string>> ListFilesRecursive(const std::string& dir) override;
  Status CreateDirs(const std::string& dir) override;
  Status RemoveFile(const std::string& path) override;
  Status RenameFile(const std::string& from, const std::string& to) override;

 private:
  struct ReadFault {
    uint64_t after = 0;
    Status error;
  };
  friend class MemWritableFile;
  Status AppendTo(const std::string& path, const char* data, size_t n);

  std::mutex mu_;
  std::map<std::string, std::shared_ptr<std::string>> files_;
  std::set<std::string> dirs_;
  std::map<std::string, ReadFault> read_faults_;
  std::map<std::string, uint64_t> write_limits_;
  size_t max_read_chunk_ = 0;
};

}  // namespace neardup::io

#endif  // NEARDUP_IO_MEM_ENV_H_
