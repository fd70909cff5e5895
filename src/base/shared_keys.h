// Copyright neardup authors. Licensed under Apache-2.0.
//
// KeepSharedKeys: drops the entries of a table whose key no other entry
// holds, before the table is sorted to group equal keys (a key held once
// groups nothing, and most band keys of a crawl are held once).
#ifndef NEARDUP_BASE_SHARED_KEYS_H_
#define NEARDUP_BASE_SHARED_KEYS_H_

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

namespace neardup {

// Keeps, in their order, every entry of *table whose key_of(entry) another
// entry holds too, and drops most of the others (about 6%, hashed together
// with another key, stay). Two bit sets over the key's low bits (seen, seen
// again), about 16 bits a key each, tell them in two passes over the
// table. REQUIRES: the keys' low bits are uniform (hash values such as
// XXH3's). `bits` is scratch, reused across calls.
template <typename T, typename KeyOf>
void KeepSharedKeys(std::vector<T>* table, const KeyOf& key_of, std::vector<uint64_t>* bits) {
  if (table->size() < 2) {
    table->clear();
    return;
  }
  const int log_bits = std::max(12, static_cast<int>(std::bit_width(table->size())) + 4);
  const uint64_t mask = (uint64_t{1} << log_bits) - 1;
  const size_t words = size_t{1} << (log_bits - 6);
  bits->assign(2 * words, 0);
  uint64_t* once = bits->data();
  uint64_t* twice = once + words;
  for (const T& e : *table) {
    const uint64_t bit = key_of(e) & mask, word = bit >> 6, flag = uint64_t{1} << (bit & 63);
    twice[word] |= once[word] & flag;
    once[word] |= flag;
  }
  size_t kept = 0;
  for (const T& e : *table) {
    const uint64_t bit = key_of(e) & mask;
    if ((twice[bit >> 6] >> (bit & 63)) & 1) (*table)[kept++] = e;
  }
  table->resize(kept);
}

}  // namespace neardup

#endif  // NEARDUP_BASE_SHARED_KEYS_H_
