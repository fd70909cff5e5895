// Copyright neardup authors. Licensed under Apache-2.0.
//
// SortByEvenKey: sorts entries into the order of their operator<, for
// entries whose sort key (the first thing operator< compares) is a hash or
// a min-hash value's low bits, spread evenly over `key_bits` bits, and
// whose operator< is a total order (no two entries equal: a candidate
// table holds a page once), so that the result is the one std::sort gives.
// In place, as American flag sort (McIlroy, Bostic and McIlroy,
// "Engineering Radix Sort"): one pass counts the entries by the top bits
// of their keys, one pass of swaps moves each into its bucket, and
// std::sort orders each bucket of a few entries. About three times faster
// than std::sort on a candidate table, with no copy of the entries (a
// table is the robust stage's largest buffer); keys that are not even
// only make the buckets larger (never a wrong order).
#ifndef NEARDUP_BASE_EVEN_KEY_SORT_H_
#define NEARDUP_BASE_EVEN_KEY_SORT_H_

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace neardup {

// REQUIRES: key_of(e) < 2^key_bits for every entry; 8 <= key_bits <= 64;
// fewer than 2^32 entries.
template <typename Entry, typename KeyOf>
void SortByEvenKey(std::vector<Entry>* v, int key_bits, KeyOf key_of) {
  const size_t n = v->size();
  if (n < 4096) {
    std::sort(v->begin(), v->end());
    return;
  }
  // Buckets of about four entries, at most 2^16 of them (512 KB of counts).
  const int bits = std::clamp(static_cast<int>(std::bit_width(n / 4)), 8, std::min(16, key_bits));
  const int shift = key_bits - bits;
  const size_t buckets = size_t{1} << bits;
  auto bucket_of = [&](const Entry& e) { return static_cast<size_t>(key_of(e) >> shift); };
  std::vector<uint32_t> start(buckets + 1, 0);
  for (const Entry& e : *v) ++start[bucket_of(e) + 1];
  for (size_t b = 1; b <= buckets; ++b) start[b] += start[b - 1];
  std::vector<uint32_t> next(start.begin(), start.end() - 1);  // the next slot to fill in each bucket
  Entry* data = v->data();
  for (size_t b = 0; b < buckets; ++b) {
    while (next[b] < start[b + 1]) {
      // Swap the entry at the bucket's next slot to where it belongs until
      // one that belongs here arrives.
      Entry e = data[next[b]];
      for (size_t home = bucket_of(e); home != b; home = bucket_of(e)) std::swap(e, data[next[home]++]);
      data[next[b]++] = e;
    }
  }
  for (size_t b = 0; b < buckets; ++b) {
    Entry* first = data + start[b];
    Entry* last = data + start[b + 1];
    if (last - first > 1) std::sort(first, last);
  }
}

}  // namespace neardup

#endif  // NEARDUP_BASE_EVEN_KEY_SORT_H_
