// Copyright neardup authors. Licensed under Apache-2.0.
//
// The service's candidate postings in memory: for each key (one of the
// method's candidate keys, Method::CandidateKeys, or a body hash), the ids
// of the content pages filed under it, in increasing order. Tier 2 reads a
// new page's candidates here, and filing a page writes here, so that a page
// costs no store reads or writes for its postings. The table is rebuilt
// from the store's page records (their signatures give the keys) when a
// store opens; the store keeps which keys became large buckets, which the
// pages alone cannot tell (doc/formats/store.md).
//
// Keys are held as 32-bit fingerprints (the high half of a 64-bit mix of
// the key) in an open-addressed table with linear probing, a slot's home
// position being the fingerprint's top bits. Two keys with the same
// fingerprint (about one chance in four billion for a pair) share one list:
// their pages become candidates of each other, which the method's rule then
// decides; nothing is missed. Memory: 8 bytes a slot (at most 70% full),
// and for a key held by two pages or more, a list of 8-byte ids.
#ifndef NEARDUP_SERVICE_POSTING_TABLE_H_
#define NEARDUP_SERVICE_POSTING_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace neardup {
namespace service {

class PostingTable {
 public:
  // Lists hold at most `max_ids` ids (>= 1). With `mark_large`, a list that
  // would pass that becomes a large bucket: it lists nothing from then on,
  // whatever is removed (dedup's candidate tables pair no pages of a bucket
  // that large). Without it, a full list keeps its first `max_ids` ids.
  PostingTable(size_t max_ids, bool mark_large);

  enum class Added {
    kAdded,        // id is now listed
    kPresent,      // id was listed already
    kFull,         // a full list (without mark_large): not listed
    kLarge,        // the key is a large bucket: not listed
    kBecameLarge,  // the list passed max_ids and is now a large bucket
  };
  // On kBecameLarge, *dropped (when given) receives the ids the list held,
  // for Restore.
  Added Add(uint64_t key, uint64_t id, std::vector<uint64_t>* dropped = nullptr);
  // Takes id off the key's list; false when it was not listed (or the key
  // is a large bucket).
  bool Remove(uint64_t key, uint64_t id);
  // Appends the ids listed under key to *ids (none for a large bucket).
  void Append(uint64_t key, std::vector<uint64_t>* ids) const;
  // Asks the processor to fetch key's slot, so that a page's keys, all
  // asked for first, are then added or read without waiting on memory for
  // each in turn. Changes nothing.
  void Prefetch(uint64_t key) const { __builtin_prefetch(&slots_[Home(Fingerprint(key))]); }
  bool IsLarge(uint64_t key) const;
  // Makes key a large bucket (a store's mark, when it opens).
  void SetLarge(uint64_t key);
  // Undoes kBecameLarge: the key lists `ids` again and is no large bucket.
  // REQUIRES: ids increasing, at most max_ids of them.
  void Restore(uint64_t key, std::span<const uint64_t> ids);

  size_t keys() const { return used_; }
  // Bytes the table holds (slots and lists).
  size_t memory_bytes() const;

 private:
  struct Slot {
    uint32_t fingerprint = 0;
    uint32_t value = 0;  // kEmpty, kLargeValue, id + 1, or kListBit | list index
  };
  static constexpr uint32_t kEmpty = 0;
  static constexpr uint32_t kLargeValue = ~uint32_t{0};
  static constexpr uint32_t kListBit = uint32_t{1} << 31;

  static uint32_t Fingerprint(uint64_t key);
  size_t Home(uint32_t fingerprint) const { return fingerprint >> (32 - bits_); }
  // The slot holding fingerprint, or the empty slot where it would go.
  size_t Probe(uint32_t fingerprint) const;
  void Grow();
  // Empties slot i and shifts the run after it back (no tombstones).
  void Erase(size_t i);
  uint32_t NewList(std::vector<uint64_t> ids);
  void FreeList(uint32_t index);

  size_t max_ids_;
  bool mark_large_;
  int bits_ = 10;
  std::vector<Slot> slots_;
  size_t used_ = 0;
  std::vector<std::vector<uint64_t>> lists_;
  std::vector<uint32_t> free_lists_;
  size_t list_ids_ = 0;  // ids held in lists, for memory_bytes()
};

}  // namespace service
}  // namespace neardup

#endif  // NEARDUP_SERVICE_POSTING_TABLE_H_
