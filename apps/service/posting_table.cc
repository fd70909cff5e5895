// Copyright neardup authors. Licensed under Apache-2.0.
#include "service/posting_table.h"

#include <algorithm>

namespace neardup {
namespace service {

PostingTable::PostingTable(size_t max_ids, bool mark_large)
    : max_ids_(std::max<size_t>(max_ids, 1)), mark_large_(mark_large), slots_(size_t{1} << bits_) {}

uint32_t PostingTable::Fingerprint(uint64_t key) {
  // splitmix64's finalizer: candidate keys need not be uniform in any bits.
  uint64_t z = key + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<uint32_t>(z >> 32);
}

size_t PostingTable::Probe(uint32_t fingerprint) const {
  const size_t mask = slots_.size() - 1;
  size_t i = Home(fingerprint);
  while (slots_[i].value != kEmpty && slots_[i].fingerprint != fingerprint) i = (i + 1) & mask;
  return i;
}

void PostingTable::Grow() {
  std::vector<Slot> old = std::move(slots_);
  ++bits_;
  slots_.assign(size_t{1} << bits_, Slot());
  const size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.value == kEmpty) continue;
    size_t i = Home(s.fingerprint);
    while (slots_[i].value != kEmpty) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

void PostingTable::Erase(size_t i) {
  const size_t mask = slots_.size() - 1;
  size_t hole = i;
  for (size_t j = (i + 1) & mask; slots_[j].value != kEmpty; j = (j + 1) & mask) {
    // The entry at j may fill the hole unless its home lies in (hole, j].
    const size_t home = Home(slots_[j].fingerprint);
    const bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!stays) {
      slots_[hole] = slots_[j];
      hole = j;
    }
  }
  slots_[hole] = Slot();
  --used_;
}

uint32_t PostingTable::NewList(std::vector<uint64_t> ids) {
  list_ids_ += ids.size();
  if (!free_lists_.empty()) {
    const uint32_t index = free_lists_.back();
    free_lists_.pop_back();
    lists_[index] = std::move(ids);
    return kListBit | index;
  }
  lists_.push_back(std::move(ids));
  return kListBit | static_cast<uint32_t>(lists_.size() - 1);
}

void PostingTable::FreeList(uint32_t index) {
  list_ids_ -= lists_[index].size();
  std::vector<uint64_t>().swap(lists_[index]);
  free_lists_.push_back(index);
}

PostingTable::Added PostingTable::Add(uint64_t key, uint64_t id, std::vector<uint64_t>* dropped) {
  if ((used_ + 1) * 10 > slots_.size() * 7) Grow();
  const uint32_t fp = Fingerprint(key);
  Slot& s = slots_[Probe(fp)];
  if (s.value == kEmpty) {
    s.fingerprint = fp;
    s.value = id + 1 < kListBit ? static_cast<uint32_t>(id + 1) : NewList({id});
    ++used_;
    return Added::kAdded;
  }
  if (s.value == kLargeValue) return Added::kLarge;
  if ((s.value & kListBit) == 0) {
    const uint64_t other = s.value - 1;
    if (other == id) return Added::kPresent;
    if (max_ids_ <= 1) {
      if (!mark_large_) return Added::kFull;
      if (dropped != nullptr) *dropped = {other};
      s.value = kLargeValue;
      return Added::kBecameLarge;
    }
    s.value = NewList(other < id ? std::vector<uint64_t>{other, id} : std::vector<uint64_t>{id, other});
    return Added::kAdded;
  }
  const uint32_t index = s.value & ~kListBit;
  std::vector<uint64_t>& list = lists_[index];
  const auto at = std::lower_bound(list.begin(), list.end(), id);
  if (at != list.end() && *at == id) return Added::kPresent;
  if (list.size() >= max_ids_) {
    if (!mark_large_) return Added::kFull;
    if (dropped != nullptr) *dropped = list;
    FreeList(index);
    s.value = kLargeValue;
    return Added::kBecameLarge;
  }
  list.insert(at, id);
  ++list_ids_;
  return Added::kAdded;
}

bool PostingTable::Remove(uint64_t key, uint64_t id) {
  const size_t i = Probe(Fingerprint(key));
  Slot& s = slots_[i];
  if (s.value == kEmpty || s.value == kLargeValue) return false;
  if ((s.value & kListBit) == 0) {
    if (s.value - 1 != id) return false;
    Erase(i);
    return true;
  }
  const uint32_t index = s.value & ~kListBit;
  std::vector<uint64_t>& list = lists_[index];
  const auto at = std::lower_bound(list.begin(), list.end(), id);
  if (at == list.end() || *at != id) return false;
  list.erase(at);
  --list_ids_;
  if (list.empty()) {
    FreeList(index);
    Erase(i);
  } else if (list.size() == 1 && list[0] + 1 < kListBit) {
    const uint64_t last = list[0];
    FreeList(index);
    s.value = static_cast<uint32_t>(last + 1);
  }
  return true;
}

void PostingTable::Append(uint64_t key, std::vector<uint64_t>* ids) const {
  const Slot& s = slots_[Probe(Fingerprint(key))];
  if (s.value == kEmpty || s.value == kLargeValue) return;
  if ((s.value & kListBit) == 0) {
    ids->push_back(s.value - 1);
    return;
  }
  const std::vector<uint64_t>& list = lists_[s.value & ~kListBit];
  ids->insert(ids->end(), list.begin(), list.end());
}

bool PostingTable::IsLarge(uint64_t key) const { return slots_[Probe(Fingerprint(key))].value == kLargeValue; }

void PostingTable::SetLarge(uint64_t key) {
  if ((used_ + 1) * 10 > slots_.size() * 7) Grow();
  const uint32_t fp = Fingerprint(key);
  Slot& s = slots_[Probe(fp)];
  if (s.value == kEmpty) {
    s.fingerprint = fp;
    ++used_;
  } else if (s.value != kLargeValue && (s.value & kListBit) != 0) {
    FreeList(s.value & ~kListBit);
  }
  s.value = kLargeValue;
}

void PostingTable::Restore(uint64_t key, std::span<const uint64_t> ids) {
  const uint32_t fp = Fingerprint(key);
  const size_t i = Probe(fp);
  Slot& s = slots_[i];
  if (s.value == kEmpty) {
    if (ids.empty()) return;
    if ((used_ + 1) * 10 > slots_.size() * 7) {
      Grow();
      return Restore(key, ids);
    }
    s.fingerprint = fp;
    ++used_;
  } else if (s.value != kLargeValue && (s.value & kListBit) != 0) {
    FreeList(s.value & ~kListBit);
  }
  if (ids.empty()) {
    Erase(i);
  } else if (ids.size() == 1 && ids[0] + 1 < kListBit) {
    s.value = static_cast<uint32_t>(ids[0] + 1);
  } else {
    s.value = NewList(std::vector<uint64_t>(ids.begin(), ids.end()));
  }
}

size_t PostingTable::memory_bytes() const {
  return slots_.capacity() * sizeof(Slot) + lists_.capacity() * sizeof(std::vector<uint64_t>) +
         list_ids_ * sizeof(uint64_t) + free_lists_.capacity() * sizeof(uint32_t);
}

}  // namespace service
}  // namespace neardup
