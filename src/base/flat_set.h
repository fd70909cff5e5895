// Copyright neardup authors. Licensed under Apache-2.0.
//
// FlatU64Set: a set of 64-bit keys in one open-addressing table (linear
// probing, a power-of-two table at most half full unless the set is made
// to fill it further, keys mixed with Mix13): 16 to 32 bytes a key (at
// most half full) instead of the 40 or more of std::unordered_set's
// nodes, and a lookup is one probe run in one array. Not thread-safe for
// writes; const members may be called concurrently.
#ifndef NEARDUP_BASE_FLAT_SET_H_
#define NEARDUP_BASE_FLAT_SET_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/hash.h"

namespace neardup {

class FlatU64Set {
 public:
  // The table grows past `max_load_percent` percent full (50 to 90): at 50
  // a lookup of an absent key probes 2.5 slots on average (linear
  // probing); at 75, which a large set looked up mostly behind a filter
  // may take, 8.5, in a table half the size.
  explicit FlatU64Set(unsigned max_load_percent = 50)
      : max_load_percent_(std::clamp(max_load_percent, 50u, 90u)) {}

  // True when `key` was not in the set.
  bool Insert(uint64_t key) {
    if (key == kEmpty) {
      const bool added = !has_empty_key_;
      has_empty_key_ = true;
      size_ += added;
      return added;
    }
    if (Over(size_ + 1, table_.size())) Grow();
    const size_t mask = table_.size() - 1;
    for (size_t at = Mix13(key) & mask;; at = (at + 1) & mask) {
      if (table_[at] == key) return false;
      if (table_[at] == kEmpty) {
        table_[at] = key;
        ++size_;
        return true;
      }
    }
  }
  bool Contains(uint64_t key) const {
    if (key == kEmpty) return has_empty_key_;
    if (table_.empty()) return false;
    const size_t mask = table_.size() - 1;
    for (size_t at = Mix13(key) & mask;; at = (at + 1) & mask) {
      if (table_[at] == key) return true;
      if (table_[at] == kEmpty) return false;
    }
  }
  // Makes room for `n` keys in all, so that inserting up to that many
  // grows the table at most here (one rehash, not a doubling at a time:
  // the old and new tables are held together only once).
  void Reserve(size_t n) {
    size_t slots = table_.empty() ? 64 : table_.size();
    while (Over(n + 1, slots)) slots *= 2;
    if (slots > table_.size()) Rehash(slots);
  }
  size_t size() const { return size_; }
  // Keys the set can hold before its table grows.
  size_t capacity() const {
    const size_t fit = table_.size() * max_load_percent_ / 100;
    return fit > 0 ? fit - 1 : 0;
  }
  bool empty() const { return size_ == 0; }
  // Empties the set, keeping its table.
  void Clear() {
    std::fill(table_.begin(), table_.end(), kEmpty);
    size_ = 0;
    has_empty_key_ = false;
  }
  // Calls fn(key) for every key, in no particular order.
  template <typename F>
  void ForEach(F&& fn) const {
    if (has_empty_key_) fn(kEmpty);
    for (uint64_t k : table_) {
      if (k != kEmpty) fn(k);
    }
  }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  // Whether `keys` keys would fill `slots` past the load allowed.
  bool Over(size_t keys, size_t slots) const { return keys * 100 > slots * max_load_percent_; }
  void Grow() { Rehash(table_.empty() ? 64 : 2 * table_.size()); }
  void Rehash(size_t slots) {
    std::vector<uint64_t> old;
    old.swap(table_);
    table_.assign(slots, kEmpty);
    const size_t mask = table_.size() - 1;
    for (uint64_t k : old) {
      if (k == kEmpty) continue;
      size_t at = Mix13(k) & mask;
      while (table_[at] != kEmpty) at = (at + 1) & mask;
      table_[at] = k;
    }
  }
  std::vector<uint64_t> table_;
  size_t size_ = 0;
  bool has_empty_key_ = false;
  unsigned max_load_percent_;
};

}  // namespace neardup

#endif  // NEARDUP_BASE_FLAT_SET_H_
