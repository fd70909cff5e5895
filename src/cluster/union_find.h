// Copyright neardup authors. Licensed under Apache-2.0.
//
// Union-find over document numbers 0..n-1 with path halving and union by
// size (Tarjan), as Fetterly, Manasse and Najork cluster pages that share a
// megashingle. 8 bytes per element. Not thread-safe.
#ifndef NEARDUP_CLUSTER_UNION_FIND_H_
#define NEARDUP_CLUSTER_UNION_FIND_H_

#include <cstdint>
#include <vector>

namespace neardup {

class UnionFind {
 public:
  explicit UnionFind(uint32_t n = 0) { Reset(n); }
  void Reset(uint32_t n);
  uint32_t size() const { return static_cast<uint32_t>(parent_.size()); }

  // Root of x's set. Amortized nearly O(1).
  uint32_t Find(uint32_t x);
  // Joins the sets of a and b; returns true when they were apart.
  bool Union(uint32_t a, uint32_t b);
  // Size of x's set.
  uint32_t SetSize(uint32_t x) { return size_[Find(x)]; }

 private:
  std::vector<uint32_t> parent_;
  std::vector<uint32_t> size_;
};

// The cluster map of Fetterly et al.: for every element the cluster's kept
// element (the smallest index in the set, i.e. the earliest page in input
// order) and the cluster's size. Built once from a finished UnionFind.
struct ClusterMap {
  std::vector<uint32_t> keeper;  // per element
  std::vector<uint32_t> size;    // per element: size of its cluster
  static ClusterMap Build(UnionFind* uf);
};

}  // namespace neardup

#endif  // NEARDUP_CLUSTER_UNION_FIND_H_
