#include "cluster/union_find.h"

#include <gtest/gtest.h>

#include <random>

namespace neardup {
namespace {

TEST(UnionFindTest, JoinsAndCounts) {
  UnionFind uf(6);
  EXPECT_TRUE(uf.Union(4, 2));
  EXPECT_TRUE(uf.Union(2, 5));
  EXPECT_FALSE(uf.Union(5, 4));
  EXPECT_EQ(uf.Find(4), uf.Find(5));
  EXPECT_NE(uf.Find(0), uf.Find(2));
  EXPECT_EQ(uf.SetSize(5), 3u);
  ClusterMap m = ClusterMap::Build(&uf);
  EXPECT_EQ(m.keeper[5], 2u);
  EXPECT_EQ(m.keeper[4], 2u);
  EXPECT_EQ(m.keeper[0], 0u);
  EXPECT_EQ(m.size[4], 3u);
  EXPECT_EQ(m.size[1], 1u);
}

TEST(UnionFindTest, MatchesLabelPropagationOnRandomGraphs) {
  std::mt19937 rng(3);
  for (int round = 0; round < 30; ++round) {
    const uint32_t n = 1 + rng() % 200;
    UnionFind uf(n);
    std::vector<std::pair<uint32_t, uint32_t>> edges;
    for (uint32_t e = 0; e < n / 2; ++e) {
      edges.emplace_back(rng() % n, rng() % n);
      uf.Union(edges.back().first, edges.back().second);
    }
    std::vector<uint32_t> label(n);
    for (uint32_t i = 0; i < n; ++i) label[i] = i;
    for (bool changed = true; changed;) {
      changed = false;
      for (auto [a, b] : edges) {
        const uint32_t m = std::min(label[a], label[b]);
        if (label[a] != m || label[b] != m) {
          label[a] = label[b] = m;
          changed = true;
        }
      }
    }
    ClusterMap map = ClusterMap::Build(&uf);
    for (uint32_t i = 0; i < n; ++i) {
      ASSERT_EQ(map.keeper[i], label[i]);
      uint32_t count = 0;
      for (uint32_t j = 0; j < n; ++j) count += label[j] == label[i];
      ASSERT_EQ(map.size[i], count);
    }
  }
}

}  // namespace
}  // namespace neardup
