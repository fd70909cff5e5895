// Copyright neardup authors. Licensed under Apache-2.0.
//
// Shivakumar and Garcia-Molina, "Finding near-replicas of documents on the
// web", §2.1 (sort-based) and §2.2 (coarse counting). Records are handled as
// one uint64 key fprint << 32 | doc, pairs as a << 32 | b, so every sort is a
// sort of integers and (fprint, doc) / (a, b) order is integer order.
#include "overlap/overlap.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <filesystem>
#include <limits>
#include <map>

#include "base/hash.h"
#include "base/stopwatch.h"
#include "overlap/external_sort.h"

namespace neardup {
namespace {

constexpr uint64_t kMiB = 1 << 20;
// Counter bytes (all k arrays) that stay in a core's cache (L2 plus a
// share of L3 on current x86 servers).
constexpr uint64_t kCacheCounterBytes = uint64_t{8} << 20;
constexpr uint64_t kNoKey = std::numeric_limits<uint64_t>::max();  // never a pair (a < b)
constexpr size_t kSampleKeys = 1024;

inline uint64_t Key(uint32_t hi, uint32_t lo) { return (static_cast<uint64_t>(hi) << 32) | lo; }
inline uint32_t Hi(uint64_t key) { return static_cast<uint32_t>(key >> 32); }
inline uint32_t Lo(uint64_t key) { return static_cast<uint32_t>(key); }

// Maps a 64-bit hash onto [0, n) (Lemire's multiply-shift range reduction).
inline uint64_t Reduce(uint64_t hash, uint64_t n) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(hash) * n) >> 64);
}

// The read/write block of the records file and of the sorted spill file.
uint64_t IoBlockBytes(uint64_t memory) { return std::min<uint64_t>(kMiB, memory / 16); }
// One fingerprint's document list while merging (8 bytes per document).
uint64_t GroupBytes(uint64_t memory) { return memory / 8; }

std::string TempDirFor(const OverlapOptions& options, const std::string& records_path) {
  if (!options.temp_dir.empty()) return options.temp_dir;
  return std::filesystem::path(records_path).parent_path().string();
}

// Phase (1): reads the records file into `sorter` (keys fprint << 32 | doc)
// through one block of io_bytes, then sorts.
Status ReadAndSort(Env* env, const std::string& path, MemoryBudget* budget, uint64_t io_bytes,
                   ExternalSorter<uint64_t>* sorter, OverlapStats* stats) {
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<FprintDocIdReader> reader,
                           FprintDocIdReader::Open(env, path));
  stats->fingerprint_bytes = reader->file_bytes();
  {
    BudgetedBuffer<FprintDocId> block(budget, io_bytes / sizeof(FprintDocId));
    for (;;) {
      size_t n = 0;
      NEARDUP_RETURN_IF_ERROR(reader->Read({block.data(), block.capacity()}, &n));
      if (n == 0) break;
      for (size_t i = 0; i < n; ++i) {
        NEARDUP_RETURN_IF_ERROR(sorter->Add(Key(block[i].fprint, block[i].doc)));
      }
      stats->records += n;
    }
  }
  return sorter->Finish();
}

// Removes repeated keys from an in-memory sorted sorter; returns the count.
uint64_t DedupInMemory(ExternalSorter<uint64_t>* sorter) {
  std::span<uint64_t> keys = sorter->sorted_in_memory();
  const size_t n = static_cast<size_t>(std::unique(keys.begin(), keys.end()) - keys.begin());
  sorter->TruncateInMemory(n);
  return n;
}

// Calls fn(span of keys with one fingerprint, docs increasing) for each
// fingerprint of sorted, de-duplicated in-memory keys.
template <typename Fn>
Status ForEachGroupInMemory(std::span<const uint64_t> keys, Fn&& fn) {
  size_t i = 0;
  while (i < keys.size()) {
    size_t j = i + 1;
    const uint32_t fprint = Hi(keys[i]);
    while (j < keys.size() && Hi(keys[j]) == fprint) ++j;
    NEARDUP_RETURN_IF_ERROR(fn(keys.subspan(i, j - i)));
    i = j;
  }
  return Status::OK();
}

// The same over a sorted stream (next(&key) -> bool) that may repeat keys:
// one fingerprint's documents are gathered in a buffer of group_bytes.
// *distinct counts the distinct keys.
template <typename Next, typename Fn>
Status ForEachGroupInStream(Next&& next, MemoryBudget* budget, uint64_t group_bytes,
                            uint64_t* distinct, Fn&& fn) {
  BudgetedBuffer<uint64_t> group(budget, std::max<uint64_t>(1, group_bytes / sizeof(uint64_t)));
  size_t n = 0;
  uint64_t key;
  while (next(&key)) {
    if (n > 0) {
      if (key == group[n - 1]) continue;
      if (Hi(key) != Hi(group[0])) {
        NEARDUP_RETURN_IF_ERROR(fn(std::span<const uint64_t>(group.data(), n)));
        n = 0;
      }
    }
    if (n == group.capacity()) {
      return Status::ResourceExhausted(
          "overlap: fingerprint " + std::to_string(Hi(key)) + " is held by more than " +
          std::to_string(n) + " documents, more than an eighth of memory_bytes holds; raise "
          "memory_bytes or drop such common fingerprints");
    }
    group[n++] = key;
    ++*distinct;
  }
  if (n > 0) NEARDUP_RETURN_IF_ERROR(fn(std::span<const uint64_t>(group.data(), n)));
  return Status::OK();
}

uint64_t PairsOf(uint64_t k) { return k < 2 ? 0 : k * (k - 1) / 2; }

// ---- coarse counting helpers ----

// The open-addressing (linear probing) table of candidate pairs and their
// exact counts, on a budgeted array of slots.
struct Slot {
  uint64_t key;
  uint64_t count;
};

// It starts small and doubles while the budget holds the old and the new
// slot arrays; its load stays <= 1/2.
class CandidateTable {
 public:
  CandidateTable(MemoryBudget* budget, size_t slots) : budget_(budget) {
    buffer_.Allocate(budget, std::max<size_t>(4, slots));
    slots_ = buffer_.data();
    n_ = buffer_.capacity();
    Clear();
  }
  size_t size() const { return size_; }
  bool OverLoaded() const { return size_ > n_ / 2; }
  const Slot* data() const { return slots_; }

  void Clear() {
    for (size_t i = 0; i < n_; ++i) slots_[i].key = kNoKey;
    size_ = 0;
  }
  // Doubles the slots (at most max_slots) if the budget holds both arrays
  // during the rehash; false when it cannot grow.
  bool Grow(uint64_t max_slots) {
    const uint64_t want = std::min<uint64_t>(2 * static_cast<uint64_t>(n_), max_slots);
    if (want <= n_ || want * sizeof(Slot) > budget_->available()) return false;
    BudgetedBuffer<Slot> old = std::move(buffer_);
    const size_t old_n = n_;
    buffer_.Allocate(budget_, want);
    slots_ = buffer_.data();
    n_ = buffer_.capacity();
    Clear();
    for (size_t i = 0; i < old_n; ++i) {
      if (old[i].key == kNoKey) continue;
      size_t j = Home(old[i].key);
      while (slots_[j].key != kNoKey) {
        if (++j == n_) j = 0;
      }
      slots_[j] = old[i];
      ++size_;
    }
    return true;
  }
  void Prefetch(uint64_t key) const { __builtin_prefetch(slots_ + Home(key), 1); }
  void Increment(uint64_t key) {
    size_t i = Home(key);
    for (;;) {
      if (slots_[i].key == key) {
        ++slots_[i].count;
        return;
      }
      if (slots_[i].key == kNoKey) {
        slots_[i] = {key, 1};
        ++size_;
        return;
      }
      if (++i == n_) i = 0;
    }
  }
  // Up to `cap` keys spread over the table (at least 2 when size() >= 2).
  size_t Sample(uint64_t* out, size_t cap) const {
    size_t got = 0;
    const size_t step = std::max<size_t>(1, n_ / (2 * cap));
    for (size_t i = 0; i < n_ && got < cap; i += step) {
      if (slots_[i].key != kNoKey) out[got++] = slots_[i].key;
    }
    if (got < 2) {
      got = 0;
      for (size_t i = 0; i < n_ && got < cap; ++i) {
        if (slots_[i].key != kNoKey) out[got++] = slots_[i].key;
      }
    }
    return got;
  }
  // Removes every key >= limit (backward-shift deletion keeps probing valid).
  void EraseAtLeast(uint64_t limit) {
    size_t i = 0;
    while (i < n_) {
      if (slots_[i].key != kNoKey && slots_[i].key >= limit) {
        EraseSlot(i);  // slot i may now hold a shifted key: look again
      } else {
        ++i;
      }
    }
  }
  // Moves the entries to the front of the slot array sorted by key (the
  // table is unusable afterwards until Clear()); returns their number.
  size_t ExtractSorted() {
    size_t n = 0;
    for (size_t i = 0; i < n_; ++i) {
      if (slots_[i].key != kNoKey) slots_[n++] = slots_[i];
    }
    std::sort(slots_, slots_ + n, [](const Slot& x, const Slot& y) { return x.key < y.key; });
    return n;
  }

 private:
  size_t Home(uint64_t key) const { return Reduce(Fmix64(key ^ 0x2545f4914f6cdd1dULL), n_); }
  void EraseSlot(size_t hole) {
    slots_[hole].key = kNoKey;
    --size_;
    size_t j = hole;
    for (;;) {
      if (++j == n_) j = 0;
      if (slots_[j].key == kNoKey) return;
      const size_t home = Home(slots_[j].key);
      // The key at j may fill the hole unless its home lies in (hole, j].
      const bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
      if (!stays) {
        slots_[hole] = slots_[j];
        slots_[j].key = kNoKey;
        hole = j;
      }
    }
  }
  MemoryBudget* budget_;
  BudgetedBuffer<Slot> buffer_;
  Slot* slots_ = nullptr;
  size_t n_ = 0;
  size_t size_ = 0;
};

// Phase (1) shared by both algorithms: validation, the file check, the sort.
struct SortedRecords {
  explicit SortedRecords(uint64_t memory) : budget(memory) {}
  MemoryBudget budget;
  std::unique_ptr<ExternalSorter<uint64_t>> sorter;
};

Status SortRecords(Env* env, const std::string& path, const OverlapOptions& options,
                   const std::string& temp_dir, SortedRecords* out, OverlapStats* stats) {
  NEARDUP_RETURN_IF_ERROR(options.Validate());
  if (env == nullptr) return Status::InvalidArgument("overlap: env is null");
  NEARDUP_ASSIGN_OR_RETURN(uint64_t bytes, CheckFprintDocIdFile(env, path));
  const uint64_t memory = options.memory_bytes;
  const uint64_t io = IoBlockBytes(memory);
  ExternalSortOptions sort_options;
  sort_options.memory_bytes = memory / 2 - io;
  sort_options.temp_dir = temp_dir;
  sort_options.stable = false;  // whole-key order: stability is meaningless
  sort_options.expected_records = bytes / kFprintDocIdBytes;
  out->sorter = std::make_unique<ExternalSorter<uint64_t>>(env, sort_options, &out->budget);
  return ReadAndSort(env, path, &out->budget, io, out->sorter.get(), stats);
}

}  // namespace

Status OverlapOptions::Validate() const {
  if (threshold < 1) return Status::InvalidArgument("overlap: threshold T must be at least 1");
  if (memory_bytes < kMiB) {
    return Status::InvalidArgument("overlap: memory_bytes must be at least 1 MiB (got " +
                                   std::to_string(memory_bytes) + ")");
  }
  if (coarse_hash_functions < 1 || coarse_hash_functions > 16) {
    return Status::InvalidArgument("overlap: coarse_hash_functions must be in 1..16 (got " +
                                   std::to_string(coarse_hash_functions) + ")");
  }
  return Status::OK();
}

Result<OverlapStats> SortBasedOverlap(Env* env, const std::string& records_path,
                                      const OverlapOptions& options, const OverlapSink& sink) {
  const auto start = std::chrono::steady_clock::now();
  OverlapStats stats;
  const std::string temp_dir = TempDirFor(options, records_path);
  SortedRecords records(options.memory_bytes);
  NEARDUP_RETURN_IF_ERROR(SortRecords(env, records_path, options, temp_dir, &records, &stats));
  stats.sort_seconds = SecondsSince(start);
  const auto overlap_start = std::chrono::steady_clock::now();

  // Step (2): the DocID-DocID records, into their own external sort.
  const uint64_t memory = options.memory_bytes;
  ExternalSortOptions pair_options;
  pair_options.memory_bytes = memory - memory / 2 - GroupBytes(memory);
  pair_options.temp_dir = temp_dir;
  pair_options.stable = false;
  ExternalSorter<uint64_t> pairs(env, pair_options, &records.budget);
  auto emit_pairs = [&](std::span<const uint64_t> group) -> Status {
    for (size_t i = 0; i < group.size(); ++i) {
      const uint32_t a = Lo(group[i]);
      for (size_t j = i + 1; j < group.size(); ++j) {
        NEARDUP_RETURN_IF_ERROR(pairs.Add(Key(a, Lo(group[j]))));
      }
    }
    stats.pairs_generated += PairsOf(group.size());
    return Status::OK();
  };
  ExternalSorter<uint64_t>& sorted = *records.sorter;
  if (sorted.in_memory()) {
    stats.distinct_records = DedupInMemory(&sorted);
    NEARDUP_RETURN_IF_ERROR(ForEachGroupInMemory(sorted.sorted_in_memory(), emit_pairs));
  } else {
    NEARDUP_RETURN_IF_ERROR(ForEachGroupInStream([&](uint64_t* k) { return sorted.Next(k); },
                                                 &records.budget, GroupBytes(memory),
                                                 &stats.distinct_records, emit_pairs));
    NEARDUP_RETURN_IF_ERROR(sorted.status());
  }
  const ExternalSortStats record_sort = sorted.stats();
  sorted.Clear();

  // Steps (3) and (4): sort the pairs, count runs of equal pairs.
  NEARDUP_RETURN_IF_ERROR(pairs.Finish());
  uint64_t key = 0;
  uint64_t current = 0;
  uint64_t count = 0;
  auto flush = [&]() -> Status {
    if (count < options.threshold) return Status::OK();
    ++stats.result_pairs;
    return sink(OverlapPair{Hi(current), Lo(current), static_cast<uint32_t>(count)});
  };
  while (pairs.Next(&key)) {
    if (count > 0 && key == current) {
      ++count;
      continue;
    }
    if (count > 0) NEARDUP_RETURN_IF_ERROR(flush());
    current = key;
    count = 1;
  }
  NEARDUP_RETURN_IF_ERROR(pairs.status());
  if (count > 0) NEARDUP_RETURN_IF_ERROR(flush());

  stats.spill_runs = record_sort.runs + pairs.stats().runs;
  stats.spill_bytes = record_sort.spill_bytes + pairs.stats().spill_bytes;
  pairs.Clear();
  stats.peak_buffer_bytes = records.budget.peak();
  stats.overlap_seconds = SecondsSince(overlap_start);
  return stats;
}

namespace {

// Steps 1-3 of coarse counting with Counter-wide saturating counters.
// pair_count: the pairs the scan enumerates (sum over fingerprints of
// k(k-1)/2), known from the sort.
template <typename Counter, typename Scan>
Status CoarseCount(const OverlapOptions& options, MemoryBudget* budget, uint64_t scan_reserve,
                   uint64_t pair_count, Scan&& scan, const OverlapSink& sink,
                   OverlapStats* stats) {
  const uint32_t k = options.coarse_hash_functions;
  const uint64_t threshold = options.threshold;
  constexpr Counter kMax = std::numeric_limits<Counter>::max();
  const uint64_t sample_bytes = kSampleKeys * sizeof(uint64_t);
  const uint64_t table_minimum = 4 * sizeof(Slot);
  const uint64_t reserved = budget->used() + scan_reserve + sample_bytes + table_minimum;
  if (reserved > budget->limit()) {
    return Status::ResourceExhausted("coarse counting: memory_bytes leaves no room for counters");
  }
  const uint64_t avail = budget->limit() - reserved;
  // Counters and bitmaps coexist while the bitmaps are built: m buckets cost
  // k * (m * sizeof(Counter) + m / 8) bytes.
  // Sized to the budget, but no more than half the pairs to count: larger
  // arrays cost cache misses for few fewer false candidates.
  uint64_t m = options.coarse_buckets;
  if (m == 0) {
    const uint64_t slack = 8 * static_cast<uint64_t>(k);  // bitmap word rounding
    m = avail > slack
            ? (avail - slack) * 8 / (static_cast<uint64_t>(k) * (8 * sizeof(Counter) + 1))
            : 0;
    m = std::min(m, std::max<uint64_t>(64, pair_count / 2));
    // And no more than the cache holds: every enumerated pair updates k
    // random counters, so counters that miss the cache cost more than the
    // false candidates that fewer buckets let through.
    m = std::min<uint64_t>(m, std::max<uint64_t>(64, kCacheCounterBytes / (k * sizeof(Counter))));
  }
  const uint64_t words = (m + 63) / 64;
  if (m == 0 || k * (m * sizeof(Counter) + words * 8) > avail) {
    return Status::ResourceExhausted("coarse counting: " + std::to_string(m) +
                                     " buckets per hash function do not fit memory_bytes");
  }
  std::vector<uint64_t> seeds(k);
  uint64_t state = options.seed;
  for (uint64_t& s : seeds) s = SplitMix64Next(&state);

  // 1. Hashing scan: A_h[h(a, b)] += 1, saturating.
  std::vector<BudgetedBuffer<Counter>> counters(k);
  for (auto& c : counters) {
    c.Allocate(budget, m);
    std::fill(c.data(), c.data() + m, Counter{0});
  }
  // Bucket indices are computed a block ahead and prefetched, so the
  // increments do not wait on memory one at a time.
  constexpr size_t kBlock = 32;
  std::vector<uint64_t> pending;  // bucket index per (pair, hash function), h fastest
  pending.reserve(kBlock * k);
  auto flush = [&] {
    for (size_t p = 0; p < pending.size(); ++p) {
      Counter& c = counters[p % k][pending[p]];
      if (c != kMax) ++c;
    }
    pending.clear();
  };
  NEARDUP_RETURN_IF_ERROR(scan([&](std::span<const uint64_t> group) -> Status {
    for (size_t i = 0; i < group.size(); ++i) {
      const uint32_t a = Lo(group[i]);
      for (size_t j = i + 1; j < group.size(); ++j) {
        const uint64_t key = Key(a, Lo(group[j]));
        for (uint32_t h = 0; h < k; ++h) {
          const uint64_t index = Reduce(Fmix64(key ^ seeds[h]), m);
          __builtin_prefetch(counters[h].data() + index, 1);
          pending.push_back(index);
        }
        if (pending.size() >= kBlock * k) flush();
      }
    }
    stats->pairs_generated += PairsOf(group.size());
    return Status::OK();
  }));
  flush();

  // 2. BITMAP_h[i] = A_h[i] >= T; each counter array freed after its bitmap.
  std::vector<BudgetedBuffer<uint64_t>> bitmaps(k);
  for (uint32_t h = 0; h < k; ++h) {
    bitmaps[h].Allocate(budget, words);
    std::fill(bitmaps[h].data(), bitmaps[h].data() + words, uint64_t{0});
    const Counter* a = counters[h].data();
    for (uint64_t i = 0; i < m; ++i) {
      if (a[i] >= threshold) bitmaps[h][i >> 6] |= uint64_t{1} << (i & 63);
    }
    for (uint64_t w = 0; w < words; ++w) stats->heavy_buckets += std::popcount(bitmaps[h][w]);
    counters[h].Reset();
  }
  auto all_heavy = [&](uint64_t key) {
    for (uint32_t h = 0; h < k; ++h) {
      const uint64_t i = Reduce(Fmix64(key ^ seeds[h]), m);
      if (((bitmaps[h][i >> 6] >> (i & 63)) & 1) == 0) return false;
    }
    return true;
  };

  // 3. Candidate scans: each pass counts the candidates of keys [lo, hi)
  //    exactly; hi shrinks when the table fills up.
  BudgetedBuffer<uint64_t> sample(budget, kSampleKeys);
  // At most pair_count distinct candidates, at load <= 1/2: the table never
  // needs more than max_slots. It grows from 64 Ki slots (1 MiB) on demand.
  const uint64_t max_slots = 2 * pair_count + 4;
  const uint64_t table_bytes = budget->available() - scan_reserve;
  CandidateTable table(budget, std::min<uint64_t>(
                                   {table_bytes / sizeof(Slot), max_slots, uint64_t{1} << 16}));
  uint64_t lo = 0;
  uint64_t hi = kNoKey;
  // Candidates wait in a small block whose table slots are prefetched, so
  // the counts do not wait on memory one at a time.
  constexpr size_t kCandidateBlock = 16;
  uint64_t candidates[kCandidateBlock];
  size_t waiting = 0;
  auto count_waiting = [&] {
    for (size_t c = 0; c < waiting; ++c) {
      const uint64_t key = candidates[c];
      if (key >= hi) continue;  // the range shrank: a later pass counts it
      table.Increment(key);
      if (table.OverLoaded() && !table.Grow(max_slots)) {
        const size_t got = table.Sample(sample.data(), kSampleKeys);
        std::nth_element(sample.data(), sample.data() + got / 2, sample.data() + got);
        hi = sample[got / 2];
        table.EraseAtLeast(hi);
      }
    }
    waiting = 0;
  };
  do {
    ++stats->passes;
    table.Clear();
    hi = kNoKey;
    NEARDUP_RETURN_IF_ERROR(scan([&](std::span<const uint64_t> group) -> Status {
      const uint32_t last = Lo(group.back());
      for (size_t i = 0; i + 1 < group.size(); ++i) {
        const uint32_t a = Lo(group[i]);
        if (Key(a, last) < lo) continue;
        if (Key(a, 0) >= hi) break;  // keys grow with a
        for (size_t j = i + 1; j < group.size(); ++j) {
          const uint64_t key = Key(a, Lo(group[j]));
          if (key < lo) continue;
          if (key >= hi) break;
          if (!all_heavy(key)) continue;
          table.Prefetch(key);
          candidates[waiting++] = key;
          if (waiting == kCandidateBlock) count_waiting();
        }
      }
      return Status::OK();
    }));
    count_waiting();
    const size_t found = table.ExtractSorted();
    for (size_t i = 0; i < found; ++i) {
      const Slot& s = table.data()[i];
      ++stats->candidate_pairs;
      if (s.count < threshold) {
        ++stats->false_candidates;
        continue;
      }
      ++stats->result_pairs;
      NEARDUP_RETURN_IF_ERROR(sink(OverlapPair{Hi(s.key), Lo(s.key), static_cast<uint32_t>(s.count)}));
    }
    lo = hi;
  } while (hi != kNoKey);
  return Status::OK();
}

}  // namespace

Result<OverlapStats> CoarseCountingOverlap(Env* env, const std::string& records_path,
                                           const OverlapOptions& options,
                                           const OverlapSink& sink) {
  const auto start = std::chrono::steady_clock::now();
  OverlapStats stats;
  const std::string temp_dir = TempDirFor(options, records_path);
  SortedRecords records(options.memory_bytes);
  NEARDUP_RETURN_IF_ERROR(SortRecords(env, records_path, options, temp_dir, &records, &stats));
  stats.sort_seconds = SecondsSince(start);
  const auto overlap_start = std::chrono::steady_clock::now();
  const uint64_t memory = options.memory_bytes;
  const uint64_t io = IoBlockBytes(memory);
  MemoryBudget* budget = &records.budget;
  ExternalSorter<uint64_t>& sorted = *records.sorter;

  // The sorted, de-duplicated records are scanned several times: kept in
  // memory when they fit, else merged once into a spill file.
  TempFiles temp(env, temp_dir);
  std::string sorted_path;
  std::span<const uint64_t> in_memory;
  uint64_t scan_reserve = 0;  // bytes a file scan holds (block + group)
  uint64_t pair_count = 0;
  if (sorted.in_memory()) {
    stats.distinct_records = DedupInMemory(&sorted);
    in_memory = sorted.sorted_in_memory();
    NEARDUP_RETURN_IF_ERROR(ForEachGroupInMemory(in_memory, [&](std::span<const uint64_t> g) {
      pair_count += PairsOf(g.size());
      return Status::OK();
    }));
  } else {
    NEARDUP_ASSIGN_OR_RETURN(sorted_path, temp.NewPath("sorted"));
    NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, env->NewWritableFile(sorted_path));
    BudgetedBuffer<uint64_t> block(budget, io / sizeof(uint64_t));
    size_t n = 0;
    uint64_t key = 0;
    uint64_t previous = kNoKey;
    uint64_t group_size = 0;
    while (sorted.Next(&key)) {
      if (key == previous) continue;
      if (previous != kNoKey && Hi(previous) != Hi(key)) {
        pair_count += PairsOf(group_size);
        group_size = 0;
      }
      ++group_size;
      previous = key;
      ++stats.distinct_records;
      block[n++] = key;
      if (n == block.capacity()) {
        NEARDUP_RETURN_IF_ERROR(internal::AppendAll(
            file.get(), reinterpret_cast<const char*>(block.data()), n * sizeof(uint64_t)));
        n = 0;
      }
    }
    NEARDUP_RETURN_IF_ERROR(sorted.status());
    pair_count += PairsOf(group_size);
    NEARDUP_RETURN_IF_ERROR(internal::AppendAll(
        file.get(), reinterpret_cast<const char*>(block.data()), n * sizeof(uint64_t)));
    NEARDUP_RETURN_IF_ERROR(file->Close());
    stats.spill_bytes += stats.distinct_records * sizeof(uint64_t);
    stats.spill_runs += sorted.stats().runs;
    stats.spill_bytes += sorted.stats().spill_bytes;
    sorted.Clear();
    scan_reserve = io + GroupBytes(memory);
  }
  auto scan = [&](auto&& fn) -> Status {
    if (sorted_path.empty()) return ForEachGroupInMemory(in_memory, fn);
    RecordFileReader<uint64_t> reader;
    NEARDUP_RETURN_IF_ERROR(reader.Open(env, sorted_path, budget, io / sizeof(uint64_t)));
    uint64_t distinct = 0;
    NEARDUP_RETURN_IF_ERROR(ForEachGroupInStream([&](uint64_t* k) { return reader.Next(k); },
                                                 budget, GroupBytes(memory), &distinct, fn));
    return reader.status();
  };

  Status s;
  if (options.threshold <= std::numeric_limits<uint8_t>::max()) {
    s = CoarseCount<uint8_t>(options, budget, scan_reserve, pair_count, scan, sink, &stats);
  } else if (options.threshold <= std::numeric_limits<uint16_t>::max()) {
    s = CoarseCount<uint16_t>(options, budget, scan_reserve, pair_count, scan, sink, &stats);
  } else {
    s = CoarseCount<uint32_t>(options, budget, scan_reserve, pair_count, scan, sink, &stats);
  }
  NEARDUP_RETURN_IF_ERROR(s);
  stats.peak_buffer_bytes = budget->peak();
  stats.overlap_seconds = SecondsSince(overlap_start);
  return stats;
}

std::vector<OverlapPair> BruteForceOverlap(std::span<const FprintDocId> records,
                                           uint32_t threshold) {
  std::map<uint32_t, std::vector<uint32_t>> fprints;  // doc -> sorted distinct fprints
  for (const FprintDocId& r : records) fprints[r.doc].push_back(r.fprint);
  std::vector<std::pair<uint32_t, std::vector<uint32_t>>> docs;
  for (auto& [doc, f] : fprints) {
    std::sort(f.begin(), f.end());
    f.erase(std::unique(f.begin(), f.end()), f.end());
    docs.emplace_back(doc, std::move(f));
  }
  std::vector<OverlapPair> out;
  for (size_t i = 0; i < docs.size(); ++i) {
    for (size_t j = i + 1; j < docs.size(); ++j) {
      const std::vector<uint32_t>& x = docs[i].second;
      const std::vector<uint32_t>& y = docs[j].second;
      uint32_t shared = 0;
      for (size_t p = 0, q = 0; p < x.size() && q < y.size();) {
        if (x[p] < y[q]) {
          ++p;
        } else if (y[q] < x[p]) {
          ++q;
        } else {
          ++shared;
          ++p;
          ++q;
        }
      }
      if (shared >= threshold && shared > 0) out.push_back({docs[i].first, docs[j].first, shared});
    }
  }
  return out;
}

}  // namespace neardup
