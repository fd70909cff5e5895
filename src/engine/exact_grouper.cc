#include "engine/exact_grouper.h"

#include <algorithm>

#include "neardup/status.h"

namespace neardup {

void ExactGrouper::Add(bool has_tokens, uint64_t token_fp, uint64_t byte_fp) {
  NEARDUP_CHECK(count_ < UINT32_MAX);
  const uint32_t doc = count_++;
  if (has_tokens) {
    token_keys_.push_back(
        Key{static_cast<uint32_t>(token_fp >> 32), static_cast<uint32_t>(token_fp), doc});
  }
  byte_keys_.push_back(Key{static_cast<uint32_t>(byte_fp >> 32), static_cast<uint32_t>(byte_fp), doc});
}

uint32_t ExactGrouper::Find(uint32_t x) {
  while (parent_[x] != x) {
    parent_[x] = parent_[parent_[x]];  // path halving
    x = parent_[x];
  }
  return x;
}

void ExactGrouper::Union(uint32_t a, uint32_t b) {
  a = Find(a);
  b = Find(b);
  if (a == b) return;
  // The smaller index (earlier in input order) stays the root: it is the
  // kept document.
  if (a < b) {
    parent_[b] = a;
  } else {
    parent_[a] = b;
  }
}

template <typename F>
void ExactGrouper::ForEachRun(std::vector<Key>& keys, F&& on_run) {
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    if (a.fp_hi != b.fp_hi) return a.fp_hi < b.fp_hi;
    if (a.fp_lo != b.fp_lo) return a.fp_lo < b.fp_lo;
    return a.doc < b.doc;
  });
  size_t i = 0;
  while (i < keys.size()) {
    size_t j = i + 1;
    while (j < keys.size() && keys[j].fp_hi == keys[i].fp_hi && keys[j].fp_lo == keys[i].fp_lo) ++j;
    if (j - i >= 2) on_run(keys.data() + i, keys.data() + j);
    i = j;
  }
}

ExactStats ExactGrouper::Finish() {
  ExactStats stats;
  parent_.resize(count_);
  for (uint32_t i = 0; i < count_; ++i) parent_[i] = i;
  {
    std::vector<Key> keys = token_keys_.MoveToVector();
    ForEachRun(keys, [&](const Key* first, const Key* last) {
      ++stats.token_identity_sets;
      for (const Key* k = first + 1; k != last; ++k) Union(first->doc, k->doc);
    });
  }
  {
    std::vector<Key> keys = byte_keys_.MoveToVector();
    ForEachRun(keys, [&](const Key* first, const Key* last) {
      ++stats.byte_identity_sets;
      for (const Key* k = first + 1; k != last; ++k) Union(first->doc, k->doc);
    });
  }
  for (uint32_t i = 0; i < count_; ++i) parent_[i] = Find(i);
  size_of_root_.assign(count_, 0);
  for (uint32_t i = 0; i < count_; ++i) ++size_of_root_[parent_[i]];
  for (uint32_t i = 0; i < count_; ++i) {
    if (parent_[i] == i && size_of_root_[i] >= 2) {
      ++stats.clusters;
      stats.documents_in_clusters += size_of_root_[i];
      stats.largest_cluster = std::max<uint64_t>(stats.largest_cluster, size_of_root_[i]);
    }
  }
  return stats;
}

}  // namespace neardup
