// Copyright neardup authors. Licensed under Apache-2.0.
//
// Temporary tables of fixed-size records, written in one pass and read back
// one table at a time: what a stage that would otherwise hold (or re-read)
// every page's keys at once files instead.
#ifndef NEARDUP_ENGINE_TEMP_TABLES_H_
#define NEARDUP_ENGINE_TEMP_TABLES_H_

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "base/path.h"
#include "neardup/env.h"
#include "neardup/status.h"

namespace neardup {

// Where a stage keeps its large temporary tables: in memory (no env), or in
// temporary files in `dir`, read back one table at a time.
struct TempTableFiles {
  Env* env = nullptr;
  std::string dir;
  std::string suffix;  // after each file's name: the processes of a divided run share a folder
};

// Tables of fixed-size records (T, trivially copyable), filled in one pass
// and handed back one table at a time: in memory, or in one temporary file
// per table named `prefix`N in TempTableFiles::dir, removed when taken
// back (TakeAppend) or dropped (Drop), or when the object goes. The robust stage's candidate tables and a large
// site's columns of min-hash values; a divided run's band keys.
template <typename T>
class TempTables {
 public:
  static constexpr size_t kBufferBytes = size_t{32} << 10;

  TempTables(size_t tables, const TempTableFiles& files, std::string prefix)
      : files_(files), prefix_(std::move(prefix)) {
    if (files_.env == nullptr) {
      memory_.resize(tables);
    } else {
      paths_.resize(tables);
      out_.resize(tables);
      buffers_.resize(tables);
    }
  }
  ~TempTables() {
    for (size_t k = 0; k < paths_.size(); ++k) {
      if (!paths_[k].empty()) {
        out_[k].reset();
        (void)files_.env->RemoveFile(paths_[k]);
      }
    }
  }
  // Creates the tables' files (none in memory).
  Status Open() {
    for (size_t k = 0; k < paths_.size(); ++k) {
      paths_[k] = JoinPath(files_.dir, prefix_ + std::to_string(k) + files_.suffix);
      auto f = files_.env->NewWritableFile(paths_[k]);
      if (!f.ok()) {
        paths_[k].clear();
        return Status::IOError("cannot write a temporary table: " + f.status().message());
      }
      out_[k] = std::move(f).value();
    }
    return Status::OK();
  }
  Status Add(size_t table, const T& record) {
    if (files_.env == nullptr) {
      memory_[table].push_back(record);
      return Status::OK();
    }
    std::string& b = buffers_[table];
    // Exactly one buffer's room (appending would double the capacity past
    // it): a stage holds one buffer a table, up to a few hundred tables.
    if (b.capacity() < kBufferBytes) b.reserve(kBufferBytes);
    b.append(reinterpret_cast<const char*>(&record), sizeof record);
    if (b.size() + sizeof record > kBufferBytes) return Flush(table);
    return Status::OK();
  }
  // Adds records[0, count) to table `table`, in order: the same as
  // `count` calls of Add, a buffer's room at a time.
  Status AddMany(size_t table, const T* records, size_t count) {
    if (files_.env == nullptr) {
      memory_[table].insert(memory_[table].end(), records, records + count);
      return Status::OK();
    }
    std::string& b = buffers_[table];
    if (b.capacity() < kBufferBytes) b.reserve(kBufferBytes);
    while (count > 0) {
      const size_t take = std::min(count, (kBufferBytes - b.size()) / sizeof(T));
      b.append(reinterpret_cast<const char*>(records), take * sizeof(T));
      records += take;
      count -= take;
      if (b.size() + sizeof(T) > kBufferBytes) NEARDUP_RETURN_IF_ERROR(Flush(table));
    }
    return Status::OK();
  }
  // After the last Add: closes the files (none in memory).
  Status Close() {
    for (size_t k = 0; k < out_.size(); ++k) {
      NEARDUP_RETURN_IF_ERROR(Flush(k));
      if (Status s = out_[k]->Close(); !s.ok()) return Status::IOError("cannot write a temporary table: " + s.message());
      out_[k].reset();
      std::string().swap(buffers_[k]);
    }
    return Status::OK();
  }
  // Table `table`'s records, kept, handed to fn(records, count) in the order
  // they were added, a buffer at a time (nothing is held beside the buffer).
  template <typename Fn>
  Status ForEachChunk(size_t table, const Fn& fn) const {
    if (files_.env == nullptr) {
      fn(memory_[table].data(), memory_[table].size());
      return Status::OK();
    }
    auto f = files_.env->NewSequentialFile(paths_[table]);
    if (!f.ok()) return Status::IOError("cannot read a temporary table: " + f.status().message());
    std::vector<T> buf(kBufferBytes / sizeof(T));
    char* bytes = reinterpret_cast<char*>(buf.data());
    size_t have = 0;  // bytes in buf
    for (;;) {
      size_t got = 0;
      if (Status s = (*f)->Read(buf.size() * sizeof(T) - have, bytes + have, &got); !s.ok()) {
        return Status::IOError("cannot read a temporary table: " + s.message());
      }
      have += got;
      const size_t whole = have / sizeof(T);
      if (whole > 0) fn(buf.data(), whole);
      std::memmove(bytes, bytes + whole * sizeof(T), have - whole * sizeof(T));
      have -= whole * sizeof(T);
      if (got == 0) break;
    }
    if (have != 0) return Status::Corruption("a temporary table ends inside a record: " + paths_[table]);
    return Status::OK();
  }
  // The records of table `table` after Close() (0 when its file's size
  // cannot be read).
  uint64_t Records(size_t table) const {
    if (files_.env == nullptr) return memory_[table].size();
    auto size = files_.env->GetFileSize(paths_[table]);
    return size.ok() ? *size / sizeof(T) : 0;
  }
  // Table `table`'s records appended to *records, in the order they were
  // added; the table is gone afterwards.
  Status TakeAppend(size_t table, std::vector<T>* records) {
    if (files_.env == nullptr) {
      if (records->empty()) {
        records->swap(memory_[table]);
      } else {
        records->insert(records->end(), memory_[table].begin(), memory_[table].end());
      }
      std::vector<T>().swap(memory_[table]);
      return Status::OK();
    }
    records->reserve(records->size() + Records(table));  // exactly: no doubling while reading
    NEARDUP_RETURN_IF_ERROR(
        ForEachChunk(table, [&](const T* chunk, size_t count) { records->insert(records->end(), chunk, chunk + count); }));
    (void)files_.env->RemoveFile(paths_[table]);
    paths_[table].clear();
    return Status::OK();
  }

  // Frees table `table`: its file is removed (its records in memory freed).
  void Drop(size_t table) {
    if (files_.env == nullptr) {
      std::vector<T>().swap(memory_[table]);
      return;
    }
    if (paths_[table].empty()) return;
    (void)files_.env->RemoveFile(paths_[table]);
    paths_[table].clear();
  }

  // Table `table`'s records one at a time, in the order they were added,
  // through one buffer (after Close()). Next() is false at the end or on an
  // error; status() tells which.
  class Cursor {
   public:
    Cursor(const TempTables& tables, size_t table) : tables_(tables), table_(table) {
      if (tables_.files_.env == nullptr) return;  // read memory_ in place
      auto f = tables_.files_.env->NewSequentialFile(tables_.paths_[table]);
      if (!f.ok()) {
        status_ = Status::IOError("cannot read a temporary table: " + f.status().message());
        return;
      }
      file_ = std::move(f).value();
      buffer_.resize(kBufferBytes / sizeof(T));
    }
    bool Next(T* record) {
      if (tables_.files_.env == nullptr) {
        const std::vector<T>& v = tables_.memory_[table_];
        if (at_ >= v.size()) return false;
        *record = v[at_++];
        return true;
      }
      while (at_ == count_) {
        if (!status_.ok() || file_ == nullptr) return false;
        // Keep a record cut by the last read at the buffer's start.
        char* bytes = reinterpret_cast<char*>(buffer_.data());
        const size_t used = count_ * sizeof(T);
        std::memmove(bytes, bytes + used, have_ - used);
        have_ -= used;
        at_ = count_ = 0;
        if (end_) {
          if (have_ != 0) status_ = Status::Corruption("a temporary table ends inside a record: " + tables_.paths_[table_]);
          return false;
        }
        size_t got = 0;
        if (Status s = file_->Read(buffer_.size() * sizeof(T) - have_, bytes + have_, &got); !s.ok()) {
          status_ = Status::IOError("cannot read a temporary table: " + s.message());
          return false;
        }
        end_ = got == 0;
        have_ += got;
        count_ = have_ / sizeof(T);
      }
      *record = buffer_[at_++];
      return true;
    }
    const Status& status() const { return status_; }

   private:
    const TempTables& tables_;
    size_t table_;
    Status status_;
    std::unique_ptr<SequentialFile> file_;
    std::vector<T> buffer_;
    size_t at_ = 0, count_ = 0;  // records: next, in the buffer
    size_t have_ = 0;            // bytes in the buffer
    bool end_ = false;
  };

 private:
  Status Flush(size_t table) {
    std::string& b = buffers_[table];
    if (b.empty()) return Status::OK();
    if (Status s = out_[table]->Append(b.data(), b.size()); !s.ok()) {
      return Status::IOError("cannot write a temporary table: " + s.message());
    }
    b.clear();
    return Status::OK();
  }
  TempTableFiles files_;
  std::string prefix_;
  std::vector<std::vector<T>> memory_;
  std::vector<std::string> paths_;
  std::vector<std::unique_ptr<WritableFile>> out_;
  std::vector<std::string> buffers_;
};

}  // namespace neardup

#endif  // NEARDUP_ENGINE_TEMP_TABLES_H_
