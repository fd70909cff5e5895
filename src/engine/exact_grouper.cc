#include "engine/exact_grouper.h"

#include <algorithm>

#include "engine/parallel.h"
#include "neardup/status.h"

namespace neardup {

void ExactGrouper::Add(bool has_tokens, uint64_t token_fp, uint64_t byte_fp) {
  NEARDUP_CHECK(count_ < UINT32_MAX);
  const uint32_t doc = count_++;
  if (has_tokens) {
    token_keys_.push_back(
        Key{static_cast<uint32_t>(token_fp >> 32), static_cast<uint32_t>(token_fp), doc});
  }
  if (byte_fp == kNoByteKey) return;
  byte_keys_.push_back(Key{static_cast<uint32_t>(byte_fp >> 32), static_cast<uint32_t>(byte_fp), doc});
}

template <typename F>
void ExactGrouper::ForEachRun(std::vector<Key>& keys, Executor* executor, F&& on_run) {
  SortOnThreads(&keys, executor);
  size_t i = 0;
  while (i < keys.size()) {
    size_t j = i + 1;
    while (j < keys.size() && keys[j].fp_hi == keys[i].fp_hi && keys[j].fp_lo == keys[i].fp_lo) ++j;
    if (j - i >= 2) on_run(keys.data() + i, keys.data() + j);
    i = j;
  }
}

ExactStats ExactGrouper::Finish(Executor* executor) {
  ExactStats stats;
  UnionFind uf(count_);
  {
    std::vector<Key> keys = token_keys_.MoveToVector();
    ForEachRun(keys, executor, [&](const Key* first, const Key* last) {
      ++stats.token_identity_sets;
      for (const Key* k = first + 1; k != last; ++k) uf.Union(first->doc, k->doc);
    });
  }
  {
    std::vector<Key> keys = byte_keys_.MoveToVector();
    ForEachRun(keys, executor, [&](const Key* first, const Key* last) {
      ++stats.byte_identity_sets;
      for (const Key* k = first + 1; k != last; ++k) uf.Union(first->doc, k->doc);
    });
  }
  map_ = ClusterMap::Build(&uf);
  for (uint32_t i = 0; i < count_; ++i) {
    if (map_.keeper[i] == i && map_.size[i] >= 2) {
      ++stats.clusters;
      stats.documents_in_clusters += map_.size[i];
      stats.largest_cluster = std::max<uint64_t>(stats.largest_cluster, map_.size[i]);
    }
  }
  std::vector<uint32_t>().swap(map_.size);
  return stats;
}

}  // namespace neardup
