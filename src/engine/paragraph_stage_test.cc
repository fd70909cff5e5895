// Copyright neardup authors. Licensed under Apache-2.0.
#include "engine/paragraph_stage.h"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>

namespace neardup {
namespace {

struct Collection {
  std::vector<std::vector<uint64_t>> docs;  // paragraphs per document (empty: not eligible)
};

// Writes the spill file and the per-document arrays as the dedup pipeline does.
Result<ParagraphStageResult> RunStage(const Collection& c, uint32_t min_shared, uint64_t budget, UnionFind* uf,
                                 const std::string& name) {
  const std::string path = ::testing::TempDir() + "/" + name + ".paragraphs";
  std::vector<uint32_t> counts;
  std::vector<uint64_t> keys;
  std::string records;
  for (uint32_t d = 0; d < c.docs.size(); ++d) {
    std::vector<uint64_t> sorted = c.docs[d];
    std::sort(sorted.begin(), sorted.end());
    counts.push_back(static_cast<uint32_t>(sorted.size()));
    keys.push_back(XXH3_64bits(sorted.data(), sorted.size() * 8));
    if (!sorted.empty()) AppendParagraphRecord(d, sorted, &records);
  }
  auto f = Env::Default()->NewWritableFile(path);
  EXPECT_TRUE(f.ok());
  EXPECT_TRUE(f.value()->Append(records.data(), records.size()).ok());
  EXPECT_TRUE(f.value()->Close().ok());
  ParagraphStageOptions o;
  o.min_shared_percent = min_shared;
  o.table_budget_bytes = budget;
  o.collect_pairs = true;
  auto r = RunParagraphStage(Env::Default(), path, counts, keys, o, uf);
  std::filesystem::remove(path);
  return r;
}

// Shared percentage by its definition, counting repeats.
double SharedPercent(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  auto found = [](const std::vector<uint64_t>& x, const std::vector<uint64_t>& y) {
    size_t f = 0;
    for (uint64_t v : x) f += std::find(y.begin(), y.end(), v) != y.end();
    return f;
  };
  return 100.0 * static_cast<double>(found(a, b) + found(b, a)) / static_cast<double>(a.size() + b.size());
}

TEST(ParagraphStageTest, ThePapersFalseMatchIsNotAnExactCluster) {
  // Pereira et al. §3: a document of sentences e e e d d d e e e d d d has
  // the paragraphs E D E D; every one is found in E D F G, and both have 4.
  const uint64_t E = 11, D = 12, F = 13, G = 14;
  Collection c{{{E, D, F, G}, {E, D, E, D}, {D, E, D, E}}};
  UnionFind exact(3);
  auto r = RunStage(c, 100, 1 << 20, &exact, "false_match");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NE(exact.Find(0), exact.Find(1));  // not an exact cluster
  EXPECT_EQ(exact.Find(1), exact.Find(2));  // equal multisets are
  EXPECT_EQ(r.value().multiset_groups, 1u);
  // Their shared percentage is (4 + 2) / 8 = 75: near duplicates at 70, not at 90.
  EXPECT_DOUBLE_EQ(SharedPercent(c.docs[0], c.docs[1]), 75.0);
  UnionFind at70(3), at90(3);
  ASSERT_TRUE(RunStage(c, 70, 1 << 20, &at70, "at70").ok());
  ASSERT_TRUE(RunStage(c, 90, 1 << 20, &at90, "at90").ok());
  EXPECT_EQ(at70.Find(0), at70.Find(1));
  EXPECT_NE(at90.Find(0), at90.Find(1));
}

TEST(ParagraphStageTest, SmallBudgetGivesManyPassesAndTheSameClustersAsAllPairs) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 6; ++trial) {
    Collection c;
    const int n = 60 + trial * 20;
    for (int d = 0; d < n; ++d) {
      std::vector<uint64_t> p;
      if (rng() % 10 == 0) {  // too short: not eligible
        c.docs.push_back(p);
        continue;
      }
      if (d > 0 && rng() % 3 == 0) {  // an edited copy of an earlier document
        p = c.docs[rng() % d];
        if (!p.empty() && rng() % 2) p[rng() % p.size()] = rng() % 40;
        if (rng() % 3 == 0) p.push_back(rng() % 40);
      }
      if (p.empty()) {
        const int k = 1 + rng() % 8;
        for (int i = 0; i < k; ++i) p.push_back(rng() % 40);  // small alphabet: repeats and overlaps
      }
      c.docs.push_back(p);
    }
    for (uint32_t min_shared : {50u, 70u, 90u, 100u}) {
      UnionFind expected(n);
      for (int a = 0; a < n; ++a) {
        for (int b = a + 1; b < n; ++b) {
          if (c.docs[a].empty() || c.docs[b].empty()) continue;
          std::vector<uint64_t> sa = c.docs[a], sb = c.docs[b];
          std::sort(sa.begin(), sa.end());
          std::sort(sb.begin(), sb.end());
          const bool join = min_shared == 100 ? sa == sb : SharedPercent(sa, sb) >= min_shared;
          if (join) expected.Union(a, b);
        }
      }
      for (uint64_t budget : {uint64_t{400}, uint64_t{1} << 20}) {
        UnionFind got(n);
        auto r = RunStage(c, min_shared, budget, &got, "random");
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        if (budget < 1000) {
          EXPECT_GT(r.value().passes.size(), 3u);
        } else {
          EXPECT_EQ(r.value().passes.size(), 1u);
        }
        for (int a = 0; a < n; ++a) {
          for (int b = a + 1; b < n; ++b) {
            ASSERT_EQ(expected.Find(a) == expected.Find(b), got.Find(a) == got.Find(b))
                << "trial " << trial << " min_shared " << min_shared << " budget " << budget << " pair " << a
                << "," << b;
          }
        }
        // Per-pass figures grow, and the last pass sees the final clusters.
        const auto& passes = r.value().passes;
        for (size_t k = 1; k < passes.size(); ++k) {
          EXPECT_GE(passes[k].duplicates, passes[k - 1].duplicates);
          EXPECT_GE(passes[k].documents_loaded, passes[k - 1].documents_loaded);
        }
        std::map<uint32_t, uint32_t> sizes;
        uint64_t eligible = 0;
        for (int d = 0; d < n; ++d) {
          if (c.docs[d].empty()) continue;
          ++eligible;
          ++sizes[expected.Find(d)];
        }
        uint64_t dups = 0;
        for (auto [root, s] : sizes) dups += s - 1;
        EXPECT_EQ(passes.back().duplicates, dups);
        EXPECT_EQ(passes.back().documents_loaded, eligible);
        EXPECT_DOUBLE_EQ(passes.back().estimated_final_duplicates, static_cast<double>(dups));
      }
    }
  }
}

TEST(ParagraphStageTest, EstimateWeighsClustersByTheChanceOfFindingThem) {
  // Half the collection loaded: a pair is found with probability
  // 1 - 0.5^2 = 0.75, a cluster of 4 with 1 - 0.5^4 = 0.9375.
  EXPECT_NEAR(EstimateFinalDuplicates({2}, 0.5), 1 / 0.75, 1e-12);
  EXPECT_NEAR(EstimateFinalDuplicates({2, 4}, 0.5), 1 / 0.75 + 3 / 0.9375, 1e-12);
  EXPECT_DOUBLE_EQ(EstimateFinalDuplicates({2, 4}, 1.0), 4.0);
  EXPECT_DOUBLE_EQ(EstimateFinalDuplicates({}, 0.3), 0.0);
}

}  // namespace
}  // namespace neardup
