// Copyright neardup authors. Licensed under Apache-2.0.
//
// Env::Default(): POSIX files. Stateless apart from the file objects it
// hands out, hence thread-safe; each returned file is for one thread.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef NEARDUP_WITH_URING
#include <liburing.h>
#endif

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "neardup/env.h"

namespace neardup {

Status SequentialFile::Skip(uint64_t n) {
  char scratch[1 << 16];
  while (n > 0) {
    size_t got = 0;
    NEARDUP_RETURN_IF_ERROR(Read(static_cast<size_t>(std::min<uint64_t>(n, sizeof scratch)), scratch, &got));
    if (got == 0) break;
    n -= got;
  }
  return Status::OK();
}

namespace {

// A file read into memory: the default Env::MapFile.
class ReadMappedFile final : public MappedFile {
 public:
  explicit ReadMappedFile(std::string bytes) : bytes_(std::move(bytes)) {}
  std::string_view data() const override { return bytes_; }

 private:
  std::string bytes_;
};

}  // namespace

Result<std::string> ReadFileToString(Env* env, const std::string& path) {
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<SequentialFile> file, env->NewSequentialFile(path));
  std::string bytes;
  char buf[1 << 16];
  for (;;) {
    size_t got = 0;
    NEARDUP_RETURN_IF_ERROR(file->Read(sizeof buf, buf, &got));
    if (got == 0) break;
    bytes.append(buf, got);
  }
  return bytes;
}

Status MappedFile::ReadAt(uint64_t offset, size_t n, char* scratch) const {
  const std::string_view bytes = data();
  if (offset > bytes.size() || n > bytes.size() - offset) return Status::InvalidArgument("read past the end of a file");
  if (n > 0) std::memcpy(scratch, bytes.data() + offset, n);
  return Status::OK();
}

Status MappedFile::ReadMany(std::span<const ReadRequest> requests) const {
  for (const ReadRequest& r : requests) NEARDUP_RETURN_IF_ERROR(ReadAt(r.offset, r.n, r.scratch));
  return Status::OK();
}

Result<std::unique_ptr<MappedFile>> Env::MapFile(const std::string& path) {
  NEARDUP_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(this, path));
  return std::unique_ptr<MappedFile>(new ReadMappedFile(std::move(bytes)));
}

namespace {

// A file mapped read-only and shared: its pages are the page cache's, so
// ReleaseResident (MADV_DONTNEED) drops them from this process only. The
// descriptor stays open for ReadAt (pread).
class PosixMappedFile final : public MappedFile {
 public:
  PosixMappedFile(std::string path, int fd, void* base, size_t size)
      : path_(std::move(path)), fd_(fd), base_(base), size_(size) {}
  ~PosixMappedFile() override {
    if (base_ != nullptr) ::munmap(base_, size_);
    ::close(fd_);
  }
  std::string_view data() const override {
    return base_ ? std::string_view(static_cast<const char*>(base_), size_) : std::string_view();
  }
  void ReleaseResident() const override {
    if (base_ != nullptr) (void)::madvise(base_, size_, MADV_DONTNEED);
  }
  Status ReadAt(uint64_t offset, size_t n, char* scratch) const override;
  Status ReadMany(std::span<const ReadRequest> requests) const override;

 private:
  std::string path_;
  int fd_;
  void* base_;
  size_t size_;
};

Status PosixError(const std::string& context, int err) {
  std::string msg = context + ": " + std::strerror(err);
  if (err == ENOENT) return Status::NotFound(msg);
  return Status::IOError(msg);
}

class PosixSequentialFile final : public SequentialFile {
 public:
  PosixSequentialFile(std::string path, int fd, bool owned)
      : path_(std::move(path)), fd_(fd), owned_(owned) {}
  ~PosixSequentialFile() override {
    if (owned_) ::close(fd_);
  }
  Status Read(size_t n, char* scratch, size_t* bytes_read) override {
    *bytes_read = 0;
    for (;;) {
      ssize_t r = ::read(fd_, scratch, n);
      if (r < 0) {
        if (errno == EINTR) continue;
        return PosixError(path_, errno);
      }
      *bytes_read = static_cast<size_t>(r);
      return Status::OK();
    }
  }
  Status Skip(uint64_t n) override {
    if (n == 0) return Status::OK();
    if (::lseek(fd_, static_cast<off_t>(n), SEEK_CUR) >= 0) return Status::OK();
    return SequentialFile::Skip(n);  // a pipe: read past
  }

 private:
  std::string path_;
  int fd_;
  bool owned_;
};

class PosixWritableFile final : public WritableFile {
 public:
  PosixWritableFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixWritableFile() override {
    if (fd_ >= 0) (void)Close();
  }
  Status Append(const char* data, size_t n) override {
    // Small appends are gathered; large ones (a caller's own buffer) go
    // straight to the kernel, without a copy held here.
    if (n < kDirectBytes && buf_.size() + n <= kBufferSize) {
      buf_.append(data, n);
      return Status::OK();
    }
    NEARDUP_RETURN_IF_ERROR(FlushBuffer());
    if (n >= kDirectBytes) return WriteRaw(data, n);
    buf_.append(data, n);
    return Status::OK();
  }
  Status Flush() override { return FlushBuffer(); }
  Status Close() override {
    if (fd_ < 0) return Status::OK();
    Status s = FlushBuffer();
    if (::close(fd_) != 0 && s.ok()) s = PosixError(path_, errno);
    fd_ = -1;
    return s;
  }

 private:
  static constexpr size_t kBufferSize = 1 << 16;
  static constexpr size_t kDirectBytes = 1 << 14;  // appends this large are not copied
  Status FlushBuffer() {
    Status s = WriteRaw(buf_.data(), buf_.size());
    buf_.clear();
    return s;
  }
  Status WriteRaw(const char* p, size_t n) {
    if (fd_ < 0) return Status::IOError(path_ + ": file is closed");
    while (n > 0) {
      ssize_t w = ::write(fd_, p, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        return PosixError(path_, errno);
      }
      p += w;
      n -= static_cast<size_t>(w);
    }
    return Status::OK();
  }
  std::string path_;
  int fd_;
  std::string buf_;
};

Status PosixMappedFile::ReadAt(uint64_t offset, size_t n, char* scratch) const {
  if (offset > size_ || n > size_ - offset) return Status::InvalidArgument(path_ + ": read past the end");
  while (n > 0) {
    const ssize_t got = ::pread(fd_, scratch, n, static_cast<off_t>(offset));
    if (got < 0) {
      if (errno == EINTR) continue;
      return PosixError(path_, errno);
    }
    if (got == 0) return Status::IOError(path_ + ": the file ended early");
    scratch += got;
    offset += static_cast<uint64_t>(got);
    n -= static_cast<size_t>(got);
  }
  return Status::OK();
}

#ifdef NEARDUP_WITH_URING
// The calling thread's io_uring, made on its first batch of reads: a
// system call is dear where the kernel runs virtualized, and one submission
// of kUringEntries reads of pages in the page cache costs about what one
// pread does (bench/RESULTS.md). nullptr where the system refuses one (an
// old kernel, a seccomp filter, io_uring_disabled) or after it failed
// once: reads then use pread.
constexpr unsigned kUringEntries = 64;
struct ThreadUring {
  io_uring ring;
  bool ok = false;
  ThreadUring() { ok = io_uring_queue_init(kUringEntries, &ring, 0) == 0; }
  ~ThreadUring() { Close(); }
  void Close() {
    if (ok) io_uring_queue_exit(&ring);
    ok = false;
  }
};
ThreadUring& CallingThreadsUring() {
  thread_local ThreadUring uring;
  return uring;
}

// Reads requests[first, first + count) through the ring (count <=
// kUringEntries). false when the ring failed before any read was submitted
// (the ring is then closed and the reads are left to pread); a read cut
// short or failed is finished by ReadAt, whose error is returned.
bool UringReads(ThreadUring* uring, int fd, std::span<const MappedFile::ReadRequest> requests,
                const MappedFile& file, Status* status) {
  io_uring* ring = &uring->ring;
  for (size_t k = 0; k < requests.size(); ++k) {
    io_uring_sqe* sqe = io_uring_get_sqe(ring);  // free: every earlier batch was taken and reaped
    if (sqe == nullptr) {
      uring->Close();  // nothing was submitted: closing drops the queued entries
      return false;
    }
    const MappedFile::ReadRequest& r = requests[k];
    io_uring_prep_read(sqe, fd, r.scratch, static_cast<unsigned>(r.n), r.offset);
    io_uring_sqe_set_data64(sqe, k);
  }
  int submitted;
  do {
    submitted = io_uring_submit_and_wait(ring, static_cast<unsigned>(requests.size()));
  } while (submitted == -EINTR);
  if (submitted < 0) {
    uring->Close();  // nothing was submitted: closing drops the queued entries
    return false;
  }
  // Every submitted read is reaped before returning, so that none writes
  // into a caller's buffer later.
  for (size_t seen = 0; seen < static_cast<size_t>(submitted);) {
    io_uring_cqe* cqe = nullptr;
    if (io_uring_wait_cqe(ring, &cqe) < 0) continue;  // interrupted: wait again
    const MappedFile::ReadRequest& r = requests[io_uring_cqe_get_data64(cqe)];
    const int res = cqe->res;
    io_uring_cqe_seen(ring, cqe);
    ++seen;
    const size_t done = res > 0 ? static_cast<size_t>(res) : 0;
    if (done < r.n && status->ok()) *status = file.ReadAt(r.offset + done, r.n - done, r.scratch + done);
  }
  if (static_cast<size_t>(submitted) < requests.size()) {
    // Entries the kernel did not take stay queued: closing the ring drops
    // them (a later batch would submit them into buffers gone by then),
    // and pread reads them.
    uring->Close();
    for (size_t k = static_cast<size_t>(submitted); k < requests.size() && status->ok(); ++k) {
      *status = file.ReadAt(requests[k].offset, requests[k].n, requests[k].scratch);
    }
  }
  return true;
}
#endif

Status PosixMappedFile::ReadMany(std::span<const ReadRequest> requests) const {
  bool large = false;
  for (const ReadRequest& r : requests) {
    if (r.offset > size_ || r.n > size_ - r.offset) return Status::InvalidArgument(path_ + ": read past the end");
    large |= r.n > (size_t{1} << 30);
  }
  size_t first = 0;
#ifdef NEARDUP_WITH_URING
  ThreadUring& uring = CallingThreadsUring();
  if (requests.size() > 1 && !large) {
    for (; uring.ok && first < requests.size(); first += kUringEntries) {
      const size_t count = std::min<size_t>(kUringEntries, requests.size() - first);
      Status status;
      if (!UringReads(&uring, fd_, requests.subspan(first, count), *this, &status)) break;
      NEARDUP_RETURN_IF_ERROR(status);
    }
  }
#else
  (void)large;
#endif
  for (; first < requests.size(); ++first) {
    NEARDUP_RETURN_IF_ERROR(ReadAt(requests[first].offset, requests[first].n, requests[first].scratch));
  }
  return Status::OK();
}

class PosixEnv final : public Env {
 public:
  Result<std::unique_ptr<SequentialFile>> NewSequentialFile(const std::string& path) override {
    if (path == "-") {
      return std::unique_ptr<SequentialFile>(new PosixSequentialFile("<stdin>", 0, false));
    }
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return PosixError(path, errno);
    struct stat st;
    if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
      ::close(fd);
      return Status::IOError(path + ": is a directory");
    }
#ifdef POSIX_FADV_SEQUENTIAL
    (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    return std::unique_ptr<SequentialFile>(new PosixSequentialFile(path, fd, true));
  }

  Result<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return PosixError(path, errno);
    return std::unique_ptr<WritableFile>(new PosixWritableFile(path, fd));
  }

  bool FileExists(const std::string& path) override { return ::access(path.c_str(), F_OK) == 0; }

  bool IsDirectory(const std::string& path) override {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  }

  Result<uint64_t> GetFileSize(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return PosixError(path, errno);
    return static_cast<uint64_t>(st.st_size);
  }

  Result<std::vector<std::string>> ListFilesRecursive(const std::string& dir) override {
    std::vector<std::string> out;
    NEARDUP_RETURN_IF_ERROR(Walk(dir, &out, 0));
    std::sort(out.begin(), out.end());
    return out;
  }

  Status CreateDirs(const std::string& dir) override {
    if (dir.empty() || IsDirectory(dir)) return Status::OK();
    size_t slash = dir.find_last_of('/');
    if (slash != std::string::npos && slash > 0) {
      NEARDUP_RETURN_IF_ERROR(CreateDirs(dir.substr(0, slash)));
    }
    if (::mkdir(dir.c_str(), 0755) != 0) {
      // EEXIST: another process made it meanwhile, or a file holds the name.
      if (errno != EEXIST) return PosixError(dir, errno);
      if (!IsDirectory(dir)) return PosixError(dir, ENOTDIR);
    }
    return Status::OK();
  }

  Status RemoveFile(const std::string& path) override {
    if (::unlink(path.c_str()) != 0) return PosixError(path, errno);
    return Status::OK();
  }

  Status RenameFile(const std::string& from, const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) return PosixError(from, errno);
    return Status::OK();
  }

  Result<std::unique_ptr<MappedFile>> MapFile(const std::string& path) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return PosixError(path, errno);
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      const int err = errno;
      ::close(fd);
      return PosixError(path, err);
    }
    const size_t size = static_cast<size_t>(st.st_size);
    void* base = nullptr;
    if (size > 0) {
      base = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
      if (base == MAP_FAILED) {
        const int err = errno;
        ::close(fd);
        return PosixError(path, err);
      }
    }
    return std::unique_ptr<MappedFile>(new PosixMappedFile(path, fd, base, size));
  }

 private:
  // Collects regular files below `dir` (symlinks to files are followed,
  // symlinked directories are not, so cycles cannot occur).
  Status Walk(const std::string& dir, std::vector<std::string>* out, int depth) {
    if (depth > 64) return Status::OK();
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) {
      // An unreadable sub-folder is left out; only the top folder must open.
      return depth == 0 ? PosixError(dir, errno) : Status::OK();
    }
    std::string prefix = dir;
    if (prefix.empty() || prefix.back() != '/') prefix.push_back('/');
    while (struct dirent* e = ::readdir(d)) {
      if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
      std::string path = prefix + e->d_name;
      struct stat lst;
      if (::lstat(path.c_str(), &lst) != 0) continue;
      if (S_ISDIR(lst.st_mode)) {
        (void)Walk(path, out, depth + 1);
      } else if (S_ISREG(lst.st_mode)) {
        out->push_back(std::move(path));
      } else if (S_ISLNK(lst.st_mode)) {
        struct stat st;
        if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) out->push_back(std::move(path));
      }
    }
    ::closedir(d);
    return Status::OK();
  }
};

}  // namespace

Env* Env::Default() {
  static PosixEnv* env = new PosixEnv();
  return env;
}

}  // namespace neardup
