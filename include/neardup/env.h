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
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/status.h"

namespace neardup {

// A file read from start to end. Not thread-safe; one reader per object.
class SequentialFile {
 public:
  virtual ~SequentialFile() = default;
  // Reads up to n bytes into scratch; *bytes_read = 0 means end of file.
  virtual Status Read(size_t n, char* scratch, size_t* bytes_read) = 0;
  // Moves n bytes ahead (fewer at the end of the file); the default reads
  // and drops them.
  virtual Status Skip(uint64_t n);
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

// A whole file, read-only, for random access: mapped into memory
// (Env::Default()) or read into it (the default MapFile). data() stays valid
// for the object's life. Thread-safe.
class MappedFile {
 public:
  virtual ~MappedFile() = default;
  virtual std::string_view data() const = 0;
  // Lets the system take the pages read so far out of the process's resident
  // memory; they are read again (from the page cache or the file) on the
  // next access, and data() stays valid. A pass over a file larger than the
  // memory it may take calls this every few megabytes. The default does
  // nothing (a file read into memory stays there).
  virtual void ReleaseResident() const {}
  // Copies the n bytes at `offset` into scratch without mapping them (the
  // POSIX file reads them with pread), so that reads out of order do not
  // make their neighbourhood resident. The default copies from data().
  // InvalidArgument when the range passes the end.
  virtual Status ReadAt(uint64_t offset, size_t n, char* scratch) const;
  // One read of ReadMany: the n bytes at `offset` into `scratch`.
  struct ReadRequest {
    uint64_t offset = 0;
    size_t n = 0;
    char* scratch = nullptr;
  };
  // Every request's bytes, as ReadAt reads them, for reads out of order
  // known together (a batch of pairs' records). The POSIX file hands them
  // to the kernel in few calls where it can (io_uring, when the build and
  // the system have it), else reads each with pread. The default calls
  // ReadAt for each. The first error is returned; requests after it may be
  // unread.
  virtual Status ReadMany(std::span<const ReadRequest> requests) const;
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
  // The whole file for random access. The default reads it through
  // NewSequentialFile into memory; Env::Default() maps it.
  virtual Result<std::unique_ptr<MappedFile>> MapFile(const std::string& path);
};

// The whole content of `path`, read through env->NewSequentialFile (leveldb's
// ReadFileToString). Errors as the file's: NotFound when it is missing.
Result<std::string> ReadFileToString(Env* env, const std::string& path);

// ---------------------------------------------------------------------------
// MemEnv: an Env whose files live in memory, for tests, fuzzers and
// benchmarks, with fault injection (leveldb's fault-injecting test Env).
//
// Paths are plain strings; folders exist implicitly as prefixes of file paths
// ("a/b/c.html" makes "a" and "a/b" folders) or through CreateDirs(). The
// path "-" is an ordinary file name here, so tests can stand in for stdin.
// NewWritableFile creates (or truncates) the file at once, so a file being
// written is visible under its name, as on a real file system.
//
// Thread-safe: every method takes an internal lock. A SequentialFile keeps
// the contents it was opened on (later appends and removals do not change
// what it reads). REQUIRES: the MemEnv outlives every file it returned.

// The operations a fault can be injected into.
enum class FileOp : unsigned char {
  kOpenRead,   // NewSequentialFile
  kRead,       // SequentialFile::Read
  kOpenWrite,  // NewWritableFile
  kAppend,     // WritableFile::Append
  kFlush,      // WritableFile::Flush
  kClose,      // WritableFile::Close (the file then counts as closed)
  kRename,     // RenameFile (nothing is renamed)
  kRemove,     // RemoveFile (nothing is removed)
};
// "open-read", "read", "open-write", "append", "flush", "close", "rename",
// "remove".
const char* FileOpName(FileOp op);

// Which operations fail. A fault fails the operation with
//   IOError("<path>: injected <op> fault")
// and has no other effect (an append that fails appends nothing).
struct FaultRule {
  FileOp op = FileOp::kRead;
  // Only operations on paths starting with this count ("" = every path). A
  // rename counts when its source or its target matches.
  std::string path_prefix;
  // The first `skip` matching operations succeed, then the next `count`
  // fail; count == 0: every later one fails. {op, p, n - 1, 1} fails the
  // n-th matching operation, {op, p, 0, 0} all of them.
  uint64_t skip = 0;
  uint64_t count = 1;
};

class MemEnv final : public Env {
 public:
  MemEnv();
  ~MemEnv() override;
  MemEnv(const MemEnv&) = delete;
  MemEnv& operator=(const MemEnv&) = delete;

  // Creates or replaces a file (not subject to faults).
  void AddFile(const std::string& path, std::string contents);
  // The current contents of a file (NotFound if missing; not subject to
  // faults).
  Result<std::string> GetContents(const std::string& path);
  // Every file, sorted by path (byte order).
  std::vector<std::string> AllFiles();

  // --- Fault injection. Rules apply to operations after the call.

  // Adds a rule; every rule is checked on every operation, in order, and
  // each counts its own matching operations.
  void InjectFault(FaultRule rule);
  // Reads of `path` fail with `error` once `bytes` bytes of that file have
  // been returned by the open file (bytes == 0: the first read fails).
  // Applies to files opened after the call.
  void FailReadsAfter(const std::string& path, uint64_t bytes,
                      Status error = Status::IOError("injected read error"));
  // Appends to `path` fail once the file would exceed `bytes` bytes.
  void FailWritesAfter(const std::string& path, uint64_t bytes);
  // Every Read returns at most `n` bytes (0 = no limit), to exercise callers
  // that must loop on short reads.
  void SetMaxReadChunk(size_t n);
  // Removes every fault (rules, read and write limits, the read chunk).
  void ClearFaults();
  // Operations failed by injected faults so far (ClearFaults keeps it).
  uint64_t faults_injected();

  Result<std::unique_ptr<SequentialFile>> NewSequentialFile(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override;
  bool FileExists(const std::string& path) override;
  bool IsDirectory(const std::string& path) override;
  Result<uint64_t> GetFileSize(const std::string& path) override;
  Result<std::vector<std::string>> ListFilesRecursive(const std::string& dir) override;
  Status CreateDirs(const std::string& dir) override;
  Status RemoveFile(const std::string& path) override;
  Status RenameFile(const std::string& from, const std::string& to) override;

  struct Rep;  // the state shared with open files (src/io/mem_env.cc)

 private:
  std::unique_ptr<Rep> rep_;
};

}  // namespace neardup

#endif  // NEARDUP_ENV_H_
