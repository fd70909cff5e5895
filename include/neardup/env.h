// Copyright neardup authors. Licensed under Apache-2.0.
//
// Env: the library reaches files only through this interface (leveldb's Env),
// so tests can inject faults and the service/MPI driver can substitute their
// own. Env::Default() is the POSIX implementation and is thread-safe.
#ifndef NEARDUP_ENV_H_
#define NEARDUP_ENV_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "neardup/status.h"

namespace neardup {

// A file read from start to end. Not thread-safe; one reader per object.
class SequentialFile {
 public:
  virtual ~SequentialFile() = default;
  // Reads up to n bytes into scratch; *bytes_read = 0 means end of file.
  virtual Status Read(size_t n, char* scratch, size_t* bytes_read) = 0;
};

// A file written from start to end.
class WritableFile {
 public:
  virtual ~WritableFile() = default;
  virtual Status Append(const char* data, size_t n) = 0;
  Status Append(const std::string& s) { return Append(s.data(), s.size()); }
  virtual Status Flush() = 0;
  // Flushes and closes; the file is complete only after Close() returns OK.
  virtual Status Close() = 0;
};

class Env {
 public:
  virtual ~Env() = default;
  static Env* Default();

  // "-" opens standard input.
  virtual Result<std::unique_ptr<SequentialFile>> NewSequentialFile(const std::string& path) = 0;
  virtual Result<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) = 0;
  virtual bool FileExists(const std::string& path) = 0;
  virtual bool IsDirectory(const std::string& path) = 0;
  virtual Result<uint64_t> GetFileSize(const std::string& path) = 0;
  // Regular files below `dir`, recursively, sorted by path (byte order).
  virtual Result<std::vector<std::string>> ListFilesRecursive(const std::string& dir) = 0;
  // Creates `dir` and its parents when missing.
  virtual Status CreateDirs(const std::string& dir) = 0;
  virtual Status RemoveFile(const std::string& path) = 0;
  // Atomically replaces `to` with `from` (rename(2)).
  virtual Status RenameFile(const std::string& from, const std::string& to) = 0;
};

}  // namespace neardup

#endif  // NEARDUP_ENV_H_
