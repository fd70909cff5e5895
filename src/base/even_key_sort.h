// Copyright neardup authors. Licensed under Apache-2.0.
//
// SortByEvenKey: sorts entries into the order of their operator<, as
// std::sort leaves them, for entries whose sort key (the first thing
// operator< compares) is a hash or a min-hash value's low bits, spread evenly
// over `key_bits` bits. One pass counts and one stable pass scatters the
// entries by the top bits of their keys into buckets of about four entries;
// std::sort then orders each bucket that is not in order already. About
// three times faster than std::sort on a candidate table; keys that are not
// even only make the buckets larger (never a wrong order). Needs a scratch vector of the
// entries' size.
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
void SortByEvenKey(std::vector<Entry>* v, std::vector<Entry>* scratch, int key_bits, KeyOf key_of) {
  const size_t n = v->size();
  if (n < 4096) {
    std::sort(v->begin(), v->end());
    return;
  }
  const int bits = std::clamp(static_cast<int>(std::bit_width(n / 4)), 8, std::min(20, key_bits));
  const int shift = key_bits - bits;
  std::vector<uint32_t> start((size_t{1} << bits) + 1, 0);
  for (const Entry& e : *v) ++start[static_cast<size_t>(key_of(e) >> shift) + 1];
  for (size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
  scratch->resize(n);
  std::vector<uint32_t> at(start.begin(), start.end() - 1);
  for (const Entry& e : *v) (*scratch)[at[static_cast<size_t>(key_of(e) >> shift)]++] = e;
  for (size_t b = 0; b + 1 < start.size(); ++b) {
    const auto first = scratch->begin() + start[b], last = scratch->begin() + start[b + 1];
    // A bucket of one frequent key (a template's value on most of a site)
    // often arrives in order already: the scatter keeps the input's order.
    if (last - first > 1 && !std::is_sorted(first, last)) std::sort(first, last);
  }
  v->swap(*scratch);
}

}  // namespace neardup

#endif  // NEARDUP_BASE_EVEN_KEY_SORT_H_
