#include "cluster/union_find.h"

#include <utility>

namespace neardup {

void UnionFind::Reset(uint32_t n) {
  parent_.resize(n);
  size_.assign(n, 1);
  for (uint32_t i = 0; i < n; ++i) parent_[i] = i;
}

uint32_t UnionFind::Find(uint32_t x) {
  while (parent_[x] != x) {
    parent_[x] = parent_[parent_[x]];  // path halving
    x = parent_[x];
  }
  return x;
}

bool UnionFind::Union(uint32_t a, uint32_t b) {
  a = Find(a);
  b = Find(b);
  if (a == b) return false;
  if (size_[a] < size_[b]) std::swap(a, b);  // union by size
  parent_[b] = a;
  size_[a] += size_[b];
  return true;
}

ClusterMap ClusterMap::Build(UnionFind* uf) {
  const uint32_t n = uf->size();
  ClusterMap map;
  map.keeper.assign(n, UINT32_MAX);
  map.size.resize(n);
  // keeper of a root = smallest member; elements are visited in increasing
  // order, so the first member seen of each root is its smallest.
  std::vector<uint32_t>& first_of_root = map.size;  // reused as scratch
  for (uint32_t i = 0; i < n; ++i) first_of_root[i] = UINT32_MAX;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t r = uf->Find(i);
    if (first_of_root[r] == UINT32_MAX) first_of_root[r] = i;
    map.keeper[i] = first_of_root[r];
  }
  for (uint32_t i = 0; i < n; ++i) map.size[i] = uf->SetSize(i);
  return map;
}

}  // namespace neardup
