// Copyright neardup authors. Licensed under Apache-2.0.
//
// Memory-bounded external sorting of fixed-size records (the sort steps of
// Shivakumar and Garcia-Molina, "Finding near-replicas of documents on the
// web", §2.1), reusable for any spill file of trivially-copyable records.
//
//   MemoryBudget       one algorithm's memory accounting (limit, used, peak)
//   BudgetedBuffer<T>  a fixed-capacity array charged to a MemoryBudget
//   RecordFileReader<T> sequential block reader of a file of raw T records
//   ExternalSorter<T>  Add() records, Finish(), then Next() them in order:
//                      sorted runs of at most the budget are spilled to
//                      temp_dir and k-way merged (several merge levels when
//                      the runs outnumber the merge fan-in the budget allows)
//   ExternalSort<T>()  file -> sorted file
//
// Records are stored in host byte order (little-endian on every supported
// platform). Spill files get unique names under temp_dir and are removed by
// the destructor of the object that created them, also on error paths.
// Thread safety: none of these objects may be used from two threads at once.
#ifndef NEARDUP_OVERLAP_EXTERNAL_SORT_H_
#define NEARDUP_OVERLAP_EXTERNAL_SORT_H_

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/stopwatch.h"
#include "neardup/env.h"
#include "neardup/status.h"

namespace neardup {

// Accounting of the bytes an algorithm holds in its buffers. Every
// BudgetedBuffer reserves its capacity here before allocating, so `peak()` is
// the largest memory held at once. Reserving past the limit is a programming
// error (NEARDUP_CHECK): callers size their buffers from `available()`.
class MemoryBudget {
 public:
  explicit MemoryBudget(uint64_t limit_bytes) : limit_(limit_bytes) {}
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  uint64_t limit() const { return limit_; }
  uint64_t used() const { return used_; }
  uint64_t peak() const { return peak_; }
  uint64_t available() const { return limit_ - used_; }

  void Reserve(uint64_t bytes) {
    NEARDUP_CHECK(bytes <= limit_ - used_);
    used_ += bytes;
    peak_ = std::max(peak_, used_);
  }
  void Release(uint64_t bytes) {
    NEARDUP_CHECK(bytes <= used_);
    used_ -= bytes;
  }

 private:
  uint64_t limit_;
  uint64_t used_ = 0;
  uint64_t peak_ = 0;
};

// An uninitialized array of `capacity` T whose bytes are charged to a
// MemoryBudget for its lifetime. It never grows: the owner allocates a new
// one. Move-only.
template <typename T>
class BudgetedBuffer {
 public:
  BudgetedBuffer() = default;
  BudgetedBuffer(MemoryBudget* budget, size_t capacity) { Allocate(budget, capacity); }
  ~BudgetedBuffer() { Reset(); }
  BudgetedBuffer(BudgetedBuffer&& other) noexcept { *this = std::move(other); }
  BudgetedBuffer& operator=(BudgetedBuffer&& other) noexcept {
    if (this != &other) {
      Reset();
      budget_ = std::exchange(other.budget_, nullptr);
      data_ = std::move(other.data_);
      capacity_ = std::exchange(other.capacity_, 0);
    }
    return *this;
  }

  // Frees the current array, then reserves and allocates `capacity` T.
  void Allocate(MemoryBudget* budget, size_t capacity) {
    Reset();
    budget->Reserve(static_cast<uint64_t>(capacity) * sizeof(T));
    budget_ = budget;
    data_ = std::make_unique_for_overwrite<T[]>(capacity);
    capacity_ = capacity;
  }
  // Frees the array and returns its bytes to the budget.
  void Reset() {
    if (budget_ != nullptr) budget_->Release(static_cast<uint64_t>(capacity_) * sizeof(T));
    budget_ = nullptr;
    data_.reset();
    capacity_ = 0;
  }

  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  size_t capacity() const { return capacity_; }
  size_t bytes() const { return capacity_ * sizeof(T); }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }

 private:
  MemoryBudget* budget_ = nullptr;
  std::unique_ptr<T[]> data_;
  size_t capacity_ = 0;
};

// Spill files of one algorithm run: unique names under `dir` (created when
// missing, on the first NewPath()), all removed by Remove() or the
// destructor, errors ignored.
class TempFiles {
 public:
  // An empty `dir` means the current directory.
  TempFiles(Env* env, std::string dir) : env_(env), dir_(std::move(dir)) {}
  ~TempFiles();
  TempFiles(const TempFiles&) = delete;
  TempFiles& operator=(const TempFiles&) = delete;

  // "<dir>/neardup-<tag>-<process nonce>-<n>.tmp", registered for removal.
  Result<std::string> NewPath(std::string_view tag);
  // Removes one registered file now.
  void Remove(const std::string& path);
  Env* env() const { return env_; }

 private:
  Env* env_;
  std::string dir_;
  bool dir_checked_ = false;
  std::vector<std::string> paths_;
};

// What an external sort did.
struct ExternalSortStats {
  uint64_t records = 0;            // records added
  uint64_t runs = 0;               // run files written (initial and merged); 0 when in memory
  uint64_t merge_levels = 0;       // intermediate merge passes (0: one final merge or none)
  uint64_t spill_bytes = 0;        // bytes written to run files
  uint64_t peak_buffer_bytes = 0;  // peak of the sorter's MemoryBudget (see ExternalSorter)
  double seconds = 0;              // wall time inside the sort calls
};

// Options of one ExternalSorter.
struct ExternalSortOptions {
  // The most bytes the sorter reserves at once from its MemoryBudget: the run
  // buffer (and, when stable, its merge-sort scratch), then the per-run read
  // blocks of the merge. >= 64 KiB.
  uint64_t memory_bytes = 64ull << 20;
  // Folder of the run files (empty: the current directory).
  std::string temp_dir;
  // Stable: records equal under `less` come out in the order they were added
  // (runs merge-sorted with a scratch array, so a run holds half as many
  // records). Unstable: std::sort, twice as many records per run.
  bool stable = true;
  // Pre-sizes the run buffer when the record count is known (0: grow by
  // doubling, then use the whole budget after the first spill).
  uint64_t expected_records = 0;
};

namespace internal {

// Reads all of `n` records (or fewer at end of file) into `out` from `file`,
// looping over short reads; a trailing partial record is Corruption naming
// `path`. *count receives the records read.
Status ReadRecords(SequentialFile* file, const std::string& path, size_t record_size, char* out,
                   size_t n, size_t* count);

// Writes `bytes` bytes from `data` to `file` in chunks.
Status AppendAll(WritableFile* file, const char* data, uint64_t bytes);

// Stable bottom-up merge sort of data[0, n) using scratch[0, n).
template <typename T, typename Less>
void StableSortWithScratch(T* data, T* scratch, size_t n, const Less& less) {
  constexpr size_t kInsertionBlock = 24;
  for (size_t lo = 0; lo < n; lo += kInsertionBlock) {
    const size_t hi = std::min(n, lo + kInsertionBlock);
    for (size_t i = lo + 1; i < hi; ++i) {
      T v = data[i];
      size_t j = i;
      for (; j > lo && less(v, data[j - 1]); --j) data[j] = data[j - 1];
      data[j] = v;
    }
  }
  T* from = data;
  T* to = scratch;
  for (size_t width = kInsertionBlock; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      const size_t mid = std::min(n, lo + width);
      const size_t hi = std::min(n, lo + 2 * width);
      std::merge(from + lo, from + mid, from + mid, from + hi, to + lo, less);
    }
    std::swap(from, to);
  }
  if (from != data) std::copy(from, from + n, data);
}

}  // namespace internal

// Sequential reader of a file of raw T records through one budgeted block.
template <typename T>
class RecordFileReader {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  // Opens `path` with a block of `block_records` records charged to `budget`.
  Status Open(Env* env, const std::string& path, MemoryBudget* budget, size_t block_records) {
    path_ = path;
    NEARDUP_ASSIGN_OR_RETURN(file_, env->NewSequentialFile(path));
    block_.Allocate(budget, std::max<size_t>(1, block_records));
    pos_ = size_ = 0;
    eof_ = false;
    return Status::OK();
  }
  // Next record into *out; false at end of file or on error (see status()).
  bool Next(T* out) {
    if (pos_ == size_ && !Refill()) return false;
    *out = block_[pos_++];
    return true;
  }
  // Peek without consuming; false at end or on error.
  bool Peek(T* out) {
    if (pos_ == size_ && !Refill()) return false;
    *out = block_[pos_];
    return true;
  }
  const Status& status() const { return status_; }
  // Frees the block and closes the file.
  void Close() {
    block_.Reset();
    file_.reset();
  }

 private:
  bool Refill() {
    if (eof_ || !status_.ok() || file_ == nullptr) return false;
    pos_ = 0;
    status_ = internal::ReadRecords(file_.get(), path_, sizeof(T),
                                    reinterpret_cast<char*>(block_.data()), block_.capacity(),
                                    &size_);
    if (!status_.ok() || size_ == 0) {
      eof_ = true;
      size_ = 0;
      return false;
    }
    return true;
  }

  std::string path_;
  std::unique_ptr<SequentialFile> file_;
  BudgetedBuffer<T> block_;
  size_t pos_ = 0;
  size_t size_ = 0;
  bool eof_ = false;
  Status status_;
};

// External sort of T records under `less` (a strict weak order).
//
// Usage: Add() every record, Finish(), then Next() until it returns false and
// check status(). When every record fit in the run buffer nothing is written
// (in_memory(): the sorted records are also reachable as a span). Otherwise
// sorted runs go to temp files and Next() merges them, after intermediate
// merge levels if their number exceeds the fan-in: the budget divided into
// read blocks of at least 64 KiB.
//
// Memory: at most options.memory_bytes reserved from `budget` at any time
// (the run buffer while adding; the read blocks and the heap while merging).
template <typename T, typename Less = std::less<T>>
class ExternalSorter {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  // REQUIRES: budget->available() >= options.memory_bytes >= 64 KiB for the
  // sorter's whole life (callers carve the budget; this is checked).
  ExternalSorter(Env* env, ExternalSortOptions options, MemoryBudget* budget, Less less = Less())
      : options_(std::move(options)),
        budget_(budget),
        less_(less),
        temp_(env, options_.temp_dir) {
    const uint64_t units = options_.memory_bytes / sizeof(T);
    max_buffer_records_ = std::max<uint64_t>(1, options_.stable ? units / 2 : units);
  }
  ExternalSorter(const ExternalSorter&) = delete;
  ExternalSorter& operator=(const ExternalSorter&) = delete;

  Status Add(const T& record) {
    if (size_ == buffer_.capacity()) NEARDUP_RETURN_IF_ERROR(MakeRoom());
    buffer_[size_++] = record;
    ++stats_.records;
    return Status::OK();
  }
  Status Add(std::span<const T> records) {
    size_t i = 0;
    while (i < records.size()) {
      if (size_ == buffer_.capacity()) NEARDUP_RETURN_IF_ERROR(MakeRoom());
      const size_t n = std::min(records.size() - i, buffer_.capacity() - size_);
      std::memcpy(static_cast<void*>(buffer_.data() + size_), records.data() + i, n * sizeof(T));
      size_ += n;
      i += n;
    }
    stats_.records += records.size();
    return Status::OK();
  }

  // Ends the input: sorts the buffer (in memory) or spills it and prepares
  // the merge. Call once.
  Status Finish() {
    const auto start = std::chrono::steady_clock::now();
    Status s = FinishImpl();
    stats_.seconds += SecondsSince(start);
    return s;
  }

  // True when no run was written: sorted_in_memory() holds every record.
  bool in_memory() const { return run_paths_.empty(); }
  // REQUIRES: Finish() done and in_memory(). Mutable so callers may compact
  // it in place (then TruncateInMemory()).
  std::span<T> sorted_in_memory() { return {buffer_.data(), size_}; }
  void TruncateInMemory(size_t n) { size_ = std::min(size_, n); }

  // The next record in sorted order; false at the end or on error.
  bool Next(T* out) {
    if (in_memory()) {
      if (read_pos_ == size_) return false;
      *out = buffer_[read_pos_++];
      return true;
    }
    return NextMerged(out);
  }
  const Status& status() const { return status_; }

  // Frees every buffer and removes the run files (the sorter is then empty).
  void Clear() {
    sources_.clear();
    heap_.Reset();
    buffer_.Reset();
    scratch_.Reset();
    for (const std::string& p : run_paths_) temp_.Remove(p);
    run_paths_.clear();
    size_ = read_pos_ = 0;
  }

  const ExternalSortStats& stats() const { return stats_; }

 private:
  struct HeapEntry {
    T value;
    size_t source;
  };
  static constexpr size_t kMinBlockBytes = 64 << 10;

  // The buffer is full: grow it while the budget allows, else spill a run.
  Status MakeRoom() {
    const uint64_t cap = buffer_.capacity();
    if (cap == 0) {
      uint64_t want = options_.expected_records > 0 ? options_.expected_records : (64u << 10);
      buffer_.Allocate(budget_, std::clamp<uint64_t>(want, 1, max_buffer_records_));
      return Status::OK();
    }
    const uint64_t units = options_.memory_bytes / sizeof(T);
    const uint64_t grown = std::min({2 * cap, max_buffer_records_, units > cap ? units - cap : 0});
    if (run_paths_.empty() && grown > cap) {
      BudgetedBuffer<T> bigger(budget_, grown);  // old + new <= memory_bytes
      std::memcpy(static_cast<void*>(bigger.data()), buffer_.data(), size_ * sizeof(T));
      buffer_ = std::move(bigger);
      return Status::OK();
    }
    NEARDUP_RETURN_IF_ERROR(SpillRun());
    if (cap < max_buffer_records_) {  // empty now: take the whole budget
      buffer_.Reset();
      buffer_.Allocate(budget_, max_buffer_records_);
    }
    return Status::OK();
  }

  void SortBuffer() {
    if (options_.stable) {
      scratch_.Allocate(budget_, std::max<size_t>(1, size_));
      internal::StableSortWithScratch(buffer_.data(), scratch_.data(), size_, less_);
      scratch_.Reset();
    } else {
      std::sort(buffer_.data(), buffer_.data() + size_, less_);
    }
  }

  Status SpillRun() {
    const auto start = std::chrono::steady_clock::now();
    SortBuffer();
    NEARDUP_ASSIGN_OR_RETURN(std::string path, temp_.NewPath("run"));
    run_paths_.push_back(path);
    NEARDUP_RETURN_IF_ERROR(
        WriteFile(path, reinterpret_cast<const char*>(buffer_.data()), size_ * sizeof(T)));
    size_ = 0;
    stats_.seconds += SecondsSince(start);
    return Status::OK();
  }

  Status WriteFile(const std::string& path, const char* data, uint64_t bytes) {
    NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file,
                             temp_.env()->NewWritableFile(path));
    NEARDUP_RETURN_IF_ERROR(internal::AppendAll(file.get(), data, bytes));
    NEARDUP_RETURN_IF_ERROR(file->Close());
    ++stats_.runs;
    stats_.spill_bytes += bytes;
    return Status::OK();
  }

  size_t MaxFanIn() const {
    return std::max<size_t>(2, options_.memory_bytes / kMinBlockBytes - 1);
  }

  Status FinishImpl() {
    if (run_paths_.empty()) {
      SortBuffer();
      stats_.peak_buffer_bytes = budget_->peak();
      return Status::OK();
    }
    if (size_ > 0) NEARDUP_RETURN_IF_ERROR(SpillRun());
    buffer_.Reset();
    // Intermediate levels: merge consecutive groups of runs into one run,
    // keeping run order (so equal records keep their input order).
    const size_t fan_in = MaxFanIn();
    while (run_paths_.size() > fan_in) {
      ++stats_.merge_levels;
      std::vector<std::string> next;
      for (size_t i = 0; i < run_paths_.size(); i += fan_in) {
        const size_t n = std::min(fan_in, run_paths_.size() - i);
        std::vector<std::string> group(run_paths_.begin() + i, run_paths_.begin() + i + n);
        if (n == 1) {
          next.push_back(group[0]);
          continue;
        }
        NEARDUP_ASSIGN_OR_RETURN(std::string merged, temp_.NewPath("run"));
        NEARDUP_RETURN_IF_ERROR(MergeToFile(group, merged));
        for (const std::string& p : group) temp_.Remove(p);
        next.push_back(merged);
      }
      run_paths_ = std::move(next);
    }
    NEARDUP_RETURN_IF_ERROR(OpenMerge(run_paths_, /*extra_blocks=*/0));
    stats_.peak_buffer_bytes = budget_->peak();
    return Status::OK();
  }

  // Opens one reader per run and fills the heap. The budget is split into
  // runs + extra_blocks blocks (an output block when merging to a file).
  Status OpenMerge(const std::vector<std::string>& paths, size_t extra_blocks) {
    sources_.clear();
    heap_.Reset();
    heap_size_ = 0;
    heap_.Allocate(budget_, paths.size());
    const uint64_t left = options_.memory_bytes - heap_.bytes();
    const size_t block_records =
        std::max<size_t>(1, left / (paths.size() + extra_blocks) / sizeof(T));
    sources_.resize(paths.size());
    for (size_t i = 0; i < paths.size(); ++i) {
      sources_[i] = std::make_unique<RecordFileReader<T>>();
      NEARDUP_RETURN_IF_ERROR(sources_[i]->Open(temp_.env(), paths[i], budget_, block_records));
      T v;
      if (sources_[i]->Next(&v)) {
        HeapPush({v, i});
      } else {
        NEARDUP_RETURN_IF_ERROR(sources_[i]->status());
      }
    }
    return Status::OK();
  }

  bool NextMerged(T* out) {
    if (heap_size_ == 0 || !status_.ok()) return false;
    const HeapEntry top = heap_[0];
    *out = top.value;
    T v;
    if (sources_[top.source]->Next(&v)) {
      heap_[0] = {v, top.source};
      SiftDown(0);
    } else {
      status_ = sources_[top.source]->status();
      if (!status_.ok()) return false;
      heap_[0] = heap_[--heap_size_];
      if (heap_size_ > 0) SiftDown(0);
    }
    return true;
  }

  Status MergeToFile(const std::vector<std::string>& group, const std::string& out_path) {
    NEARDUP_RETURN_IF_ERROR(OpenMerge(group, /*extra_blocks=*/1));
    const size_t out_records = std::max<size_t>(
        1, (options_.memory_bytes - heap_.bytes()) / (group.size() + 1) / sizeof(T));
    BudgetedBuffer<T> out(budget_, out_records);
    NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file,
                             temp_.env()->NewWritableFile(out_path));
    uint64_t written = 0;
    size_t n = 0;
    T v;
    while (NextMerged(&v)) {
      out[n++] = v;
      if (n == out.capacity()) {
        NEARDUP_RETURN_IF_ERROR(
            internal::AppendAll(file.get(), reinterpret_cast<const char*>(out.data()), n * sizeof(T)));
        written += n * sizeof(T);
        n = 0;
      }
    }
    NEARDUP_RETURN_IF_ERROR(status_);
    NEARDUP_RETURN_IF_ERROR(
        internal::AppendAll(file.get(), reinterpret_cast<const char*>(out.data()), n * sizeof(T)));
    written += n * sizeof(T);
    NEARDUP_RETURN_IF_ERROR(file->Close());
    ++stats_.runs;
    stats_.spill_bytes += written;
    sources_.clear();
    heap_.Reset();
    heap_size_ = 0;
    return Status::OK();
  }

  // Min-heap on (value, source): ties go to the earlier run (stability).
  bool HeapLess(const HeapEntry& a, const HeapEntry& b) const {
    if (less_(a.value, b.value)) return true;
    if (less_(b.value, a.value)) return false;
    return a.source < b.source;
  }
  void HeapPush(HeapEntry e) {
    size_t i = heap_size_++;
    heap_[i] = e;
    while (i > 0) {
      const size_t parent = (i - 1) / 2;
      if (!HeapLess(heap_[i], heap_[parent])) break;
      std::swap(heap_[i], heap_[parent]);
      i = parent;
    }
  }
  void SiftDown(size_t i) {
    for (;;) {
      const size_t l = 2 * i + 1;
      if (l >= heap_size_) return;
      size_t m = l;
      if (l + 1 < heap_size_ && HeapLess(heap_[l + 1], heap_[l])) m = l + 1;
      if (!HeapLess(heap_[m], heap_[i])) return;
      std::swap(heap_[i], heap_[m]);
      i = m;
    }
  }

  ExternalSortOptions options_;
  MemoryBudget* budget_;
  Less less_;
  TempFiles temp_;
  uint64_t max_buffer_records_ = 1;
  BudgetedBuffer<T> buffer_;
  BudgetedBuffer<T> scratch_;
  size_t size_ = 0;
  size_t read_pos_ = 0;
  std::vector<std::string> run_paths_;
  std::vector<std::unique_ptr<RecordFileReader<T>>> sources_;
  BudgetedBuffer<HeapEntry> heap_;
  size_t heap_size_ = 0;
  Status status_;
  ExternalSortStats stats_;
};

// Sorts the records of `in_path` (a file of raw T, its size a multiple of
// sizeof(T), else Corruption naming the file and its size) into `out_path`
// (may equal in_path: the input is read completely first) within
// memory_bytes (>= 1 MiB) of buffers, spilling runs under temp_dir. Stable.
// `stats` may be null.
template <typename T, typename Less = std::less<T>>
Status ExternalSort(Env* env, const std::string& in_path, const std::string& out_path, Less less,
                    uint64_t memory_bytes, const std::string& temp_dir,
                    ExternalSortStats* stats) {
  if (memory_bytes < (1u << 20)) {
    return Status::InvalidArgument("external sort: memory_bytes must be at least 1 MiB");
  }
  const auto start = std::chrono::steady_clock::now();
  NEARDUP_ASSIGN_OR_RETURN(uint64_t file_bytes, env->GetFileSize(in_path));
  if (file_bytes % sizeof(T) != 0) {
    return Status::Corruption(in_path + ": size " + std::to_string(file_bytes) +
                              " is not a multiple of the record size " +
                              std::to_string(sizeof(T)));
  }
  MemoryBudget budget(memory_bytes);
  const size_t io_records = std::max<size_t>(1, std::min<uint64_t>(1 << 20, memory_bytes / 16) / sizeof(T));
  ExternalSortOptions sort_options;
  sort_options.memory_bytes = memory_bytes - io_records * sizeof(T);
  sort_options.temp_dir = temp_dir;
  sort_options.stable = true;
  sort_options.expected_records = file_bytes / sizeof(T);
  ExternalSorter<T, Less> sorter(env, sort_options, &budget, less);
  {
    RecordFileReader<T> reader;
    NEARDUP_RETURN_IF_ERROR(reader.Open(env, in_path, &budget, io_records));
    T v;
    while (reader.Next(&v)) NEARDUP_RETURN_IF_ERROR(sorter.Add(v));
    NEARDUP_RETURN_IF_ERROR(reader.status());
  }
  NEARDUP_RETURN_IF_ERROR(sorter.Finish());
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> out, env->NewWritableFile(out_path));
  if (sorter.in_memory()) {
    std::span<T> all = sorter.sorted_in_memory();
    NEARDUP_RETURN_IF_ERROR(internal::AppendAll(
        out.get(), reinterpret_cast<const char*>(all.data()), all.size() * sizeof(T)));
  } else {
    BudgetedBuffer<T> block(&budget, io_records);
    size_t n = 0;
    T v;
    while (sorter.Next(&v)) {
      block[n++] = v;
      if (n == block.capacity()) {
        NEARDUP_RETURN_IF_ERROR(internal::AppendAll(
            out.get(), reinterpret_cast<const char*>(block.data()), n * sizeof(T)));
        n = 0;
      }
    }
    NEARDUP_RETURN_IF_ERROR(sorter.status());
    NEARDUP_RETURN_IF_ERROR(internal::AppendAll(
        out.get(), reinterpret_cast<const char*>(block.data()), n * sizeof(T)));
  }
  NEARDUP_RETURN_IF_ERROR(out->Close());
  if (stats != nullptr) {
    *stats = sorter.stats();
    stats->peak_buffer_bytes = budget.peak();
    stats->seconds = SecondsSince(start);
  }
  return Status::OK();
}

}  // namespace neardup

#endif  // NEARDUP_OVERLAP_EXTERNAL_SORT_H_
