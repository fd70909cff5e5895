#include "index/megashingle_tables.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace neardup {
namespace {

constexpr uint32_t kM = 6;

// Brute force: every candidate pair with >= 2 (or all) agreeing positions.
std::map<std::pair<uint32_t, uint32_t>, uint32_t> BruteForce(const std::vector<uint64_t>& sigs,
                                                             const std::vector<uint8_t>& cand,
                                                             bool all) {
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> out;
  const uint32_t n = static_cast<uint32_t>(cand.size());
  for (uint32_t a = 0; a < n; ++a)
    for (uint32_t b = a + 1; b < n; ++b) {
      if (!cand[a] || !cand[b]) continue;
      uint32_t agree = 0;
      for (uint32_t t = 0; t < kM; ++t) agree += sigs[a * kM + t] == sigs[b * kM + t];
      if (all ? agree == kM : agree >= 2) out[{a, b}] = agree;
    }
  return out;
}

TEST(BroderStageTest, FindsExactlyThePairsSharingTwoSupershingles) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 20; ++round) {
    const uint32_t n = 50 + rng() % 100;
    std::vector<uint64_t> sigs(n * kM);
    std::vector<uint8_t> cand(n);
    for (uint32_t p = 0; p < n; ++p) {
      cand[p] = rng() % 8 != 0;
      // Small value domain per position: many agreements of every count.
      for (uint32_t t = 0; t < kM; ++t) sigs[p * kM + t] = (rng() % 3) * 1000 + t;
    }
    for (bool all : {false, true}) {
      UnionFind uf(n);
      BroderStageOptions o;
      o.collect_pairs = true;
      o.virtually_identical = all;
      BroderStageResult r = RunBroderStage(sigs, cand, o, &uf);
      auto expected = BruteForce(sigs, cand, all);
      ASSERT_EQ(r.pairs_found.size(), expected.size());
      EXPECT_EQ(r.pairs, expected.size());
      std::array<uint64_t, 17> by_b{};
      for (const NearPair& p : r.pairs_found) {
        auto it = expected.find({p.a, p.b});
        ASSERT_NE(it, expected.end()) << p.a << "," << p.b;
        EXPECT_EQ(p.b_similarity, it->second);
        ++by_b[p.b_similarity];
        EXPECT_EQ(uf.Find(p.a), uf.Find(p.b));
      }
      EXPECT_EQ(r.pairs_by_b_similarity, by_b);
      EXPECT_EQ(r.megashingle_collisions, 0u);
      // Non-candidates are never joined to anything.
      for (uint32_t p = 0; p < n; ++p) {
        if (!cand[p]) {
          EXPECT_EQ(uf.SetSize(p), 1u);
        }
      }
    }
  }
}

TEST(BroderStageTest, LargeBucketsAreClusteredButNotListed) {
  const uint32_t n = 30;
  std::vector<uint64_t> sigs(n * kM);
  std::vector<uint8_t> cand(n, 1);
  for (uint32_t p = 0; p < n; ++p) {
    for (uint32_t t = 0; t < kM; ++t) sigs[p * kM + t] = p * 100 + t;  // all different
    if (p < 12) sigs[p * kM + 0] = 7, sigs[p * kM + 3] = 9;  // 12 pages share positions 0 and 3
  }
  UnionFind uf(n);
  BroderStageOptions o;
  o.collect_pairs = true;
  o.max_bucket_pages = 5;
  BroderStageResult r = RunBroderStage(sigs, cand, o, &uf);
  EXPECT_EQ(r.pairs_found.size(), 0u);
  EXPECT_EQ(r.large_buckets, 1u);
  EXPECT_EQ(r.pairs_not_listed, 12u * 11 / 2);
  EXPECT_EQ(uf.SetSize(0), 12u);
  EXPECT_EQ(r.pages_with_near_duplicate, 12u);
  EXPECT_EQ(uf.SetSize(20), 1u);
}

}  // namespace
}  // namespace neardup
