// Copyright neardup authors. Licensed under Apache-2.0.
//
// Exchanger: fixed-size records between the processes of a divided run
// (DedupJob::FinishTogether), over a ProcessGroup's all-to-all, and the
// owners of page ids and keys. Process p holds the pages of whole-run ids
// [first_of(p), first_of(p + 1)); a key is owned by a process chosen from
// its mixed bits. Every call that exchanges is collective: every process
// makes the same calls in the same order, with its own records.
#ifndef NEARDUP_ENGINE_EXCHANGER_H_
#define NEARDUP_ENGINE_EXCHANGER_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "neardup/dedup_job.h"
#include "neardup/status.h"

namespace neardup {

// MurmurHash3's 64-bit finalizer: key owners that do not follow the key's
// own bit patterns.
inline uint64_t MixKey(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

// A key and a page id, or an edge between two page ids (key < id).
struct KeyAndId {
  uint64_t key, id;
};

class Exchanger {
 public:
  explicit Exchanger(ProcessGroup* group) : group_(group), size_(group->size()), rank_(group->rank()) {}

  int size() const { return size_; }
  int rank() const { return rank_; }
  uint64_t sent() const { return sent_; }  // bytes this process sent the others

  // Learns every process's page count: ids are then whole-run ids.
  Status SetCounts(uint64_t mine);
  uint64_t base() const { return bounds_[rank_]; }
  uint64_t total() const { return bounds_.back(); }
  uint64_t first_of(int r) const { return bounds_[r]; }
  int OwnerOfId(uint64_t id) const {
    return static_cast<int>(std::upper_bound(bounds_.begin(), bounds_.end(), id) - bounds_.begin()) - 1;
  }
  int OwnerOfKey(uint64_t key) const {
    return static_cast<int>((static_cast<unsigned __int128>(MixKey(key)) * static_cast<uint64_t>(size_)) >> 64);
  }

  // Sends out[r] to process r; returns what each process sent this one.
  // Passed with std::move, each of out's buffers is freed as soon as it is
  // copied on (large exchanges: about two copies of the records at once).
  template <typename T>
  Result<std::vector<std::vector<T>>> Exchange(const std::vector<std::vector<T>>& out) {
    return Received<T>(ExchangeBytes<T>(out, nullptr));
  }
  template <typename T>
  Result<std::vector<std::vector<T>>> Exchange(std::vector<std::vector<T>>&& out) {
    return Received<T>(ExchangeBytes<T>(out, &out));
  }
  // Exchange, then every record received in one list (by sender, in order).
  template <typename T>
  Result<std::vector<T>> ExchangeFlat(const std::vector<std::vector<T>>& out) {
    return ReceivedFlat<T>(ExchangeBytes<T>(out, nullptr));
  }
  template <typename T>
  Result<std::vector<T>> ExchangeFlat(std::vector<std::vector<T>>&& out) {
    return ReceivedFlat<T>(ExchangeBytes<T>(out, &out));
  }

  Result<uint64_t> Sum(uint64_t value);
  Result<uint64_t> Max(uint64_t value);

  // Asks the owners of `ids` (by id, or by key when by_key) for `width`
  // words each, which answer(id, words) fills at the owner; returns the
  // answers in the order of `ids`, width words each.
  Result<std::vector<uint64_t>> Ask(const std::vector<uint64_t>& ids, size_t width, bool by_key,
                                    const std::function<void(uint64_t id, uint64_t* words)>& answer);

  // Connected components of `edges` (whole-run ids; any process may hold
  // any edge) over this process's pages: hook and jump in the manner of
  // Shiloach and Vishkin. Every edge between two different trees hooks the
  // root with the larger id onto the smaller one; then pointer jumping
  // flattens every tree to a star. The trees with an edge leaving them at
  // least halve each round, so O(log n) rounds. Returns each local page's
  // label: the smallest id of its component.
  Result<std::vector<uint64_t>> Components(std::vector<KeyAndId> edges);

 private:
  // The all-to-all of out's records as bytes; with `release` (out itself),
  // each of its buffers is freed once copied.
  template <typename T>
  Result<std::vector<std::string>> ExchangeBytes(const std::vector<std::vector<T>>& out,
                                                 std::vector<std::vector<T>>* release) {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<std::string> bytes(static_cast<size_t>(size_));
    for (int r = 0; r < size_; ++r) {
      bytes[r].assign(reinterpret_cast<const char*>(out[r].data()), out[r].size() * sizeof(T));
      if (r != rank_) sent_ += bytes[r].size();
      if (release != nullptr) std::vector<T>().swap((*release)[r]);
    }
    NEARDUP_ASSIGN_OR_RETURN(std::vector<std::string> in, group_->AllToAll(std::move(bytes)));
    if (in.size() != static_cast<size_t>(size_)) {
      return Status::Corruption("the process group answered for too few processes");
    }
    return in;
  }
  // What each process sent, as records; each buffer freed once copied.
  template <typename T>
  static Result<std::vector<std::vector<T>>> Received(Result<std::vector<std::string>> bytes) {
    NEARDUP_ASSIGN_OR_RETURN(std::vector<std::string> in, std::move(bytes));
    std::vector<std::vector<T>> result(in.size());
    for (size_t r = 0; r < in.size(); ++r) {
      if (in[r].size() % sizeof(T) != 0) return Status::Corruption("a record was cut short between processes");
      result[r].resize(in[r].size() / sizeof(T));
      if (!in[r].empty()) std::memcpy(result[r].data(), in[r].data(), in[r].size());
      std::string().swap(in[r]);
    }
    return result;
  }
  // The same in one list, by sender, in order.
  template <typename T>
  static Result<std::vector<T>> ReceivedFlat(Result<std::vector<std::string>> bytes) {
    NEARDUP_ASSIGN_OR_RETURN(std::vector<std::string> in, std::move(bytes));
    size_t total = 0;
    for (const std::string& from : in) {
      if (from.size() % sizeof(T) != 0) return Status::Corruption("a record was cut short between processes");
      total += from.size() / sizeof(T);
    }
    std::vector<T> all(total);
    size_t at = 0;
    for (std::string& from : in) {
      if (!from.empty()) std::memcpy(reinterpret_cast<char*>(all.data()) + at, from.data(), from.size());
      at += from.size();
      std::string().swap(from);
    }
    return all;
  }

  ProcessGroup* group_;
  int size_, rank_;
  std::vector<uint64_t> bounds_;
  uint64_t sent_ = 0;
};

}  // namespace neardup

#endif  // NEARDUP_ENGINE_EXCHANGER_H_
