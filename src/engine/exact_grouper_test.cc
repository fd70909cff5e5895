#include "engine/exact_grouper.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

namespace neardup {
namespace {

TEST(ExactGrouperTest, JoinsTokenAndByteIdentity) {
  ExactGrouper g;
  g.Add(true, 100, 1);   // 0
  g.Add(true, 200, 2);   // 1
  g.Add(true, 100, 3);   // 2: same tokens as 0
  g.Add(true, 300, 2);   // 3: same bytes as 1 (tokens differ, e.g. IMG host rule)
  g.Add(true, 400, 4);   // 4: alone
  g.Add(false, 0, 5);    // 5: empty page
  g.Add(false, 0, 6);    // 6: another empty page with other bytes: not a copy
  g.Add(false, 0, 5);    // 7: same bytes as 5
  ExactStats s = g.Finish();
  EXPECT_EQ(s.token_identity_sets, 1u);
  EXPECT_EQ(s.byte_identity_sets, 2u);
  EXPECT_EQ(s.clusters, 3u);
  EXPECT_EQ(s.documents_in_clusters, 6u);
  EXPECT_EQ(s.largest_cluster, 2u);
  EXPECT_EQ(g.Root(2), 0u);
  EXPECT_EQ(g.Root(3), 1u);
  EXPECT_EQ(g.Root(7), 5u);
  EXPECT_EQ(g.Root(6), 6u);
  // Sizes by root: 0 and 2 together, 4 and 6 alone.
  std::map<uint32_t, int> size;
  for (uint32_t i = 0; i < g.size(); ++i) ++size[g.Root(i)];
  EXPECT_EQ(size[6], 1);
  EXPECT_EQ(size[4], 1);
  EXPECT_EQ(size[0], 2);
}

TEST(ExactGrouperTest, PagesWithoutContentOfTheirOwnHaveNoIdentity) {
  ExactGrouper g;
  g.Add(false, 0, kNoByteKey);  // 0: a redirect
  g.Add(false, 0, kNoByteKey);  // 1: another: not its copy
  g.Add(false, 0, 7);           // 2: a page without terms
  g.Add(false, 0, 7);           // 3: its copy by bytes
  ExactStats s = g.Finish();
  EXPECT_EQ(s.byte_identity_sets, 1u);
  EXPECT_EQ(s.clusters, 1u);
  EXPECT_EQ(g.Root(1), 1u);
  EXPECT_EQ(g.Root(0), 0u);
  EXPECT_EQ(g.Root(3), 2u);
}

TEST(ExactGrouperTest, TransitiveChainsKeepEarliest) {
  // 3 ~tokens~ 1 ~bytes~ 4 ~tokens~ 0: one cluster kept at 0.
  ExactGrouper g;
  g.Add(true, 9, 90);  // 0
  g.Add(true, 7, 70);  // 1
  g.Add(true, 8, 80);  // 2
  g.Add(true, 7, 71);  // 3
  g.Add(true, 9, 70);  // 4
  ExactStats s = g.Finish();
  EXPECT_EQ(s.clusters, 1u);
  for (uint32_t d : {0u, 1u, 3u, 4u}) EXPECT_EQ(g.Root(d), 0u);
  EXPECT_EQ(g.Root(2), 2u);
}

TEST(ExactGrouperTest, MatchesBruteForceOnRandomKeys) {
  std::mt19937 rng(5);
  for (int round = 0; round < 20; ++round) {
    const int n = 1 + static_cast<int>(rng() % 300);
    std::vector<uint64_t> tok(n), byt(n);
    std::vector<bool> has(n);
    ExactGrouper g;
    for (int i = 0; i < n; ++i) {
      tok[i] = rng() % 40;
      byt[i] = rng() % 60;  // small domain: many equal keys; kNoByteKey (0) among them
      has[i] = rng() % 10 != 0;
      g.Add(has[i], tok[i], byt[i]);
    }
    g.Finish();
    // Brute force: repeated relaxation of min labels over all pairs.
    std::vector<int> label(n);
    for (int i = 0; i < n; ++i) label[i] = i;
    bool changed = true;
    while (changed) {
      changed = false;
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          const bool same =
              (has[i] && has[j] && tok[i] == tok[j]) || (byt[i] == byt[j] && byt[i] != kNoByteKey);
          if (same && label[j] < label[i]) {
            label[i] = label[j];
            changed = true;
          }
        }
    }
    for (int i = 0; i < n; ++i) ASSERT_EQ(g.Root(i), static_cast<uint32_t>(label[i])) << i;
  }
}

TEST(ExactGrouperTest, ChunkedVectorMovesAcrossChunks) {
  ChunkedVector<uint32_t> v;
  const size_t n = ChunkedVector<uint32_t>::kChunk * 2 + 17;
  for (size_t i = 0; i < n; ++i) v.push_back(static_cast<uint32_t>(i * 3));
  EXPECT_EQ(v.size(), n);
  std::vector<uint32_t> out = v.MoveToVector();
  ASSERT_EQ(out.size(), n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], i * 3);
  EXPECT_EQ(v.size(), 0u);
}

}  // namespace
}  // namespace neardup
