// Copyright neardup authors. Licensed under Apache-2.0.
//
// The partitioning of Zhu, Potapova, Alabduljalil, Liu and Yang,
// "Clustering and Load Balancing Optimization for Redundant Content
// Removal": the paper's own examples (§4.3), the bound of §4.2 on pages
// whose similarity is known, and the plan's invariants.
#include "partition/partition.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <set>

namespace neardup {
namespace {

std::vector<uint64_t> RandomTerms(std::mt19937_64& rng, size_t n) {
  std::vector<uint64_t> t(n);
  for (uint64_t& x : t) x = rng();
  return t;
}

// Pages with a skewed length distribution (a spike, as in the paper's
// Figure 1, plus a long tail) as length vectors of `dims` dimensions.
std::vector<std::vector<uint32_t>> SkewedPages(uint32_t dims, size_t pages, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> tail(5.5, 1.0);
  std::vector<std::vector<uint32_t>> out;
  for (size_t i = 0; i < pages; ++i) {
    const size_t n = i % 3 == 0 ? 237 : static_cast<size_t>(tail(rng));
    out.push_back(LengthVector(RandomTerms(rng, n), dims));
  }
  return out;
}

TEST(FineIntervalsTest, PaperExampleForTauPoint8) {
  // §4.3: sizes 1..10 with τ = 0.8 give [1,2), [2,3), [3,4), [4,6), [6,8), [8,10].
  FineIntervals f(0.8);
  const std::vector<uint64_t> expected = {0, 1, 2, 3, 4, 6, 8, 11};
  for (uint32_t j = 0; j < expected.size(); ++j) EXPECT_EQ(f.lower(j), expected[j]) << j;
  EXPECT_EQ(f.Index(0), 0u);
  EXPECT_EQ(f.Index(5), 4u);
  EXPECT_EQ(f.Index(10), 6u);  // [8, 11)
  EXPECT_EQ(f.Index(11), 7u);
  EXPECT_EQ(FineIntervalIndex(7, 0.8), 5u);
}

TEST(FineIntervalsTest, SpotSigsBoundAndMinimalityForEveryInterval) {
  for (double tau : {0.5, 0.8, 0.9, 0.95}) {
    FineIntervals f(tau);
    EXPECT_EQ(f.lower(f.count()), uint64_t{1} << 32);
    for (uint32_t j = 1; j + 1 < f.count(); ++j) {
      const double p = static_cast<double>(f.lower(j)), q = static_cast<double>(f.lower(j + 1));
      EXPECT_LT(p / q, tau) << "tau " << tau << " j " << j;
      // The next bound is the smallest that keeps the bound: one less breaks it.
      if (q - 1 > p) {
        EXPECT_GE(p / (q - 1), tau) << "tau " << tau << " j " << j;
      }
    }
    std::mt19937_64 rng(7);
    for (int i = 0; i < 2000; ++i) {
      const uint32_t len = static_cast<uint32_t>(rng() >> (rng() % 64));
      const uint32_t j = f.Index(len);
      EXPECT_LE(f.lower(j), len);
      EXPECT_LT(len, f.lower(j + 1));
    }
  }
  EXPECT_LT(FineIntervals(0.9).count(), 260u);
}

std::vector<uint64_t> IntervalSums(const std::vector<uint64_t>& counts, const std::vector<uint32_t>& cuts) {
  std::vector<uint64_t> sums;
  for (size_t c = 0; c < cuts.size(); ++c) {
    const size_t end = c + 1 < cuts.size() ? cuts[c + 1] : counts.size();
    sums.push_back(std::accumulate(counts.begin() + cuts[c], counts.begin() + end, uint64_t{0}));
  }
  return sums;
}

TEST(MergeFineIntervalsTest, PaperExamples) {
  // §4.3: 2,3,4,5,2,1 into 4 intervals -> 5,4,5,3; 2,3,4,10,2,1 -> 5,4,10,3.
  const std::vector<uint64_t> a = {2, 3, 4, 5, 2, 1};
  EXPECT_EQ(IntervalSums(a, MergeFineIntervals(a, 4)), (std::vector<uint64_t>{5, 4, 5, 3}));
  const std::vector<uint64_t> b = {2, 3, 4, 10, 2, 1};
  EXPECT_EQ(IntervalSums(b, MergeFineIntervals(b, 4)), (std::vector<uint64_t>{5, 4, 10, 3}));
}

TEST(MergeFineIntervalsTest, NoEmptyIntervalAtMostSAndCutsInEmptyRunsMiddle) {
  const std::vector<uint64_t> zero(10, 0);
  EXPECT_EQ(MergeFineIntervals(zero, 5), (std::vector<uint32_t>{0}));
  const std::vector<uint64_t> gap = {0, 4, 0, 0, 0, 0, 4, 0};
  // Cut between the two occupied intervals, in the middle of the empty run 2..6.
  EXPECT_EQ(MergeFineIntervals(gap, 2), (std::vector<uint32_t>{0, 4}));
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<uint64_t> counts(1 + rng() % 60);
    for (uint64_t& c : counts) c = rng() % 4 == 0 ? rng() % 1000 : 0;
    const uint32_t s = 1 + static_cast<uint32_t>(rng() % 12);
    const std::vector<uint32_t> cuts = MergeFineIntervals(counts, s);
    ASSERT_GE(cuts.size(), 1u);
    EXPECT_LE(cuts.size(), s);
    EXPECT_EQ(cuts[0], 0u);
    EXPECT_TRUE(std::is_sorted(cuts.begin(), cuts.end()));
    const uint64_t total = std::accumulate(counts.begin(), counts.end(), uint64_t{0});
    if (total > 0) {
      for (uint64_t sum : IntervalSums(counts, cuts)) EXPECT_GT(sum, 0u);
    }
  }
}

TEST(LengthVectorTest, CountsTermsWithRepetitionInDisjointDimensions) {
  std::mt19937_64 rng(3);
  std::vector<uint64_t> terms = RandomTerms(rng, 300);
  std::vector<uint64_t> doubled = terms;
  doubled.insert(doubled.end(), terms.begin(), terms.end());
  for (uint32_t dims : {1u, 2u, 3u, 5u}) {
    const std::vector<uint32_t> l = LengthVector(terms, dims);
    ASSERT_EQ(l.size(), dims);
    EXPECT_EQ(std::accumulate(l.begin(), l.end(), 0u), 300u);
    const std::vector<uint32_t> l2 = LengthVector(doubled, dims);
    for (uint32_t i = 0; i < dims; ++i) EXPECT_EQ(l2[i], 2 * l[i]);  // sum of frequencies
  }
  // The split is about even (the paper's δ is small for long pages).
  const std::vector<uint32_t> big = LengthVector(RandomTerms(rng, 30000), 3);
  for (uint32_t x : big) EXPECT_NEAR(x, 10000.0, 600.0);
  // Its own seed: not the low bits of the term hash.
  uint32_t differs = 0;
  for (uint64_t t : terms) differs += TermDimension(t, 2) != (t & 1);
  EXPECT_GT(differs, 100u);
}

TEST(IntervalsPerDimensionTest, FactorsMachinesLargestFirst) {
  auto s = [](uint32_t machines, uint32_t dims, uint32_t per = 1) {
    PartitionOptions o;
    o.machines = machines;
    o.dims = dims;
    o.partitions_per_machine = per;
    return IntervalsPerDimension(o);
  };
  EXPECT_EQ(s(64, 3), (std::vector<uint32_t>{4, 4, 4}));
  EXPECT_EQ(s(32, 3), (std::vector<uint32_t>{4, 4, 2}));
  EXPECT_EQ(s(2, 3), (std::vector<uint32_t>{2, 1, 1}));
  EXPECT_EQ(s(7, 2), (std::vector<uint32_t>{7, 1}));
  EXPECT_EQ(s(12, 2), (std::vector<uint32_t>{4, 3}));
  EXPECT_EQ(s(8, 1, 4), (std::vector<uint32_t>{32}));
}

TEST(PartitionOptionsTest, ValidateRejectsOutOfRange) {
  PartitionOptions o;
  EXPECT_TRUE(o.Validate().ok());
  o.tau = 1.0;
  EXPECT_FALSE(o.Validate().ok());
  o = PartitionOptions();
  o.dims = 0;
  EXPECT_FALSE(o.Validate().ok());
  o = PartitionOptions();
  o.machines = 0;
  EXPECT_FALSE(o.Validate().ok());
}

TEST(PartitionPlanTest, EveryPageLivesInItsHostBoxAndIsComparedThere) {
  for (uint32_t dims : {1u, 2u, 3u}) {
    const auto pages = SkewedPages(dims, 1500, 100 + dims);
    for (uint32_t machines : {2u, 5u, 16u, 64u}) {
      PartitionOptions o;
      o.dims = dims;
      o.machines = machines;
      const PartitionPlan plan = BuildPartitionPlan(pages, o);
      ASSERT_GE(plan.partitions(), 1u);
      EXPECT_LE(plan.partitions(), machines);
      std::vector<uint64_t> hosted(plan.partitions(), 0);
      for (const auto& v : pages) {
        const uint32_t host = plan.HostPartition(v);
        ASSERT_LT(host, plan.partitions());
        ++hosted[host];
        const std::vector<LengthRange> box = plan.Box(host);
        for (uint32_t i = 0; i < dims; ++i) {
          EXPECT_LE(box[i].lo, v[i]);
          EXPECT_LT(v[i], box[i].hi);
        }
        for (double rho : {1.0, 1.1, 1.3}) {
          const auto cmp = plan.ComparePartitions(v, rho);
          EXPECT_TRUE(std::binary_search(cmp.begin(), cmp.end(), host)) << "rho " << rho;
        }
      }
      // The builder's counts are the pages HostPartition puts there.
      for (uint32_t p = 0; p < plan.partitions(); ++p) {
        EXPECT_EQ(plan.PagesCounted(p), hosted[p]);
        EXPECT_LT(plan.MachineOf(p), machines);
      }
    }
  }
}

TEST(PartitionPlanTest, ComparePartitionsIsExactlyTheBoxesMeetingExpressionOne) {
  const uint32_t dims = 3;
  const auto pages = SkewedPages(dims, 2000, 5);
  PartitionOptions o;
  o.dims = dims;
  o.machines = 32;
  o.tau = 0.85;
  const PartitionPlan plan = BuildPartitionPlan(pages, o);
  std::vector<std::vector<LengthRange>> boxes;
  for (uint32_t p = 0; p < plan.partitions(); ++p) boxes.push_back(plan.Box(p));
  std::mt19937_64 rng(9);
  for (int trial = 0; trial < 400; ++trial) {
    const auto& v = pages[rng() % pages.size()];
    const double rho = 1.0 + (rng() % 40) / 100.0;
    std::vector<uint32_t> expected;
    for (uint32_t p = 0; p < plan.partitions(); ++p) {
      bool meets = true;
      for (uint32_t i = 0; i < dims; ++i) {
        // Integer lengths in [L·τ/ρ, L·ρ/τ] (computed here in long double).
        const long double lo = std::ceil(static_cast<long double>(v[i]) * 0.85L / rho - 1e-9L);
        const long double hi = std::floor(static_cast<long double>(v[i]) * rho / 0.85L + 1e-9L);
        if (static_cast<long double>(boxes[p][i].lo) > hi || static_cast<long double>(boxes[p][i].hi) <= lo) {
          meets = false;
        }
      }
      if (meets) expected.push_back(p);
    }
    EXPECT_EQ(plan.ComparePartitions(v, rho), expected);
  }
}

// §4.2 on pages whose similarity is known: unigram sets of distinct terms
// (k = 1, so ε = 0 and L(A) = |A|). Whenever Jaccard(A, B) ≥ τ and
// ρ ≥ (1+δ)/(1−δ) for the δ both pages meet, B's host is among A's compare
// partitions.
TEST(PartitionPlanTest, PairsAboveTauAreFoundWhenRhoCoversTheSplit) {
  std::mt19937_64 rng(2024);
  for (uint32_t dims : {1u, 2u, 3u}) {
    const double tau = 0.9;
    PartitionOptions o;
    o.dims = dims;
    o.machines = 64;
    o.tau = tau;
    const PartitionPlan plan = BuildPartitionPlan(SkewedPages(dims, 3000, 77 + dims), o);
    int tested = 0;
    for (int trial = 0; trial < 3000; ++trial) {
      const size_t shared = 30 + rng() % 3000;
      // At most (1−τ)/τ · shared extra terms in all: Jaccard ≥ τ.
      const size_t extra_max = static_cast<size_t>(shared * (1 - tau) / tau);
      const size_t a_only = extra_max ? rng() % (extra_max + 1) : 0;
      const size_t b_only = extra_max - a_only > 0 ? rng() % (extra_max - a_only + 1) : 0;
      std::vector<uint64_t> common = RandomTerms(rng, shared);
      std::vector<uint64_t> a = common, b = common;
      for (uint64_t t : RandomTerms(rng, a_only)) a.push_back(t);
      for (uint64_t t : RandomTerms(rng, b_only)) b.push_back(t);
      const double jaccard = static_cast<double>(shared) / static_cast<double>(shared + a_only + b_only);
      ASSERT_GE(jaccard, tau);
      const auto la = LengthVector(a, dims), lb = LengthVector(b, dims);
      double delta = 0;
      bool empty_dim = false;
      for (const auto* l : {&la, &lb}) {
        const double total = std::accumulate(l->begin(), l->end(), 0.0);
        for (uint32_t x : *l) {
          if (x == 0) empty_dim = true;
          else delta = std::max(delta, std::abs(total / (dims * static_cast<double>(x)) - 1));
        }
      }
      if (empty_dim || delta >= 1) continue;
      const double rho = std::max(1.0, (1 + delta) / (1 - delta));
      const auto cmp = plan.ComparePartitions(la, rho);
      EXPECT_TRUE(std::binary_search(cmp.begin(), cmp.end(), plan.HostPartition(lb)))
          << "dims " << dims << " shared " << shared << " delta " << delta;
      const auto cmp_b = plan.ComparePartitions(lb, rho);
      EXPECT_TRUE(std::binary_search(cmp_b.begin(), cmp_b.end(), plan.HostPartition(la)));
      ++tested;
    }
    EXPECT_GT(tested, 2500) << "dims " << dims;
  }
}

TEST(PartitionPlanBuilderTest, SameCountsSplitAcrossRanksGiveTheSamePlan) {
  for (uint32_t dims : {1u, 2u, 3u}) {
    const auto pages = SkewedPages(dims, 2500, 31 * dims);
    PartitionOptions o;
    o.dims = dims;
    o.machines = 24;
    o.partitions_per_machine = 2;
    const PartitionPlan single = BuildPartitionPlan(pages, o);
    for (int ranks : {2, 3, 7}) {
      std::mt19937_64 rng(ranks);
      std::vector<int> rank_of(pages.size());
      for (int& r : rank_of) r = static_cast<int>(rng() % ranks);
      // Each rank builds its own builder from the summed counts, as after
      // MPI_Allreduce.
      std::vector<PartitionPlanBuilder> builders(ranks, PartitionPlanBuilder(o));
      while (!builders[0].done()) {
        std::vector<std::vector<uint64_t>> local(ranks, std::vector<uint64_t>(builders[0].round_size(), 0));
        for (size_t i = 0; i < pages.size(); ++i) builders[rank_of[i]].Count(pages[i], local[rank_of[i]]);
        std::vector<uint64_t> sum(builders[0].round_size(), 0);
        for (const auto& l : local) {
          for (size_t j = 0; j < sum.size(); ++j) sum[j] += l[j];
        }
        for (auto& b : builders) b.AddRound(sum);
      }
      for (auto& b : builders) EXPECT_TRUE(std::move(b).Finish() == single) << "dims " << dims << " ranks " << ranks;
    }
    // Order of the pages does not matter either.
    auto shuffled = pages;
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(5));
    EXPECT_TRUE(BuildPartitionPlan(shuffled, o) == single);
    // A different machine count gives a different plan (the test can fail).
    o.machines = 23;
    EXPECT_FALSE(BuildPartitionPlan(pages, o) == single);
  }
}

TEST(EvaluatePlanLoadTest, ImbalanceAtLeastOneAndTransfersSavedAShare) {
  for (uint32_t dims : {1u, 2u, 3u}) {
    const auto pages = SkewedPages(dims, 3000, 55 + dims);
    for (uint32_t machines : {1u, 2u, 8u, 64u}) {
      PartitionOptions o;
      o.dims = dims;
      o.machines = machines;
      const PartitionPlan plan = BuildPartitionPlan(pages, o);
      for (double rho : {1.0, 1.3}) {
        const PlanLoad load = EvaluatePlanLoad(plan, pages, rho);
        EXPECT_EQ(load.pages, pages.size());
        EXPECT_GE(load.imbalance, 1.0);
        EXPECT_LE(load.imbalance, machines);
        EXPECT_GE(load.comparison_imbalance, 1.0);
        EXPECT_GE(load.transfers_saved, 0.0);
        EXPECT_LE(load.transfers_saved, 1.0);
        EXPECT_EQ(load.transfers_all, pages.size() * (machines - 1));
        EXPECT_NEAR(load.imbalance, load.pages_hosted_max / (3000.0 / machines), 1e-9);
        if (machines == 1) {
          EXPECT_EQ(load.transfers, 0u);
        }
      }
      // A wider ρ never sends fewer pages.
      EXPECT_LE(EvaluatePlanLoad(plan, pages, 1.0).transfers, EvaluatePlanLoad(plan, pages, 1.3).transfers);
    }
  }
  // The paper's motivation: with 64 machines, a length spike unbalances a
  // 1D mapping more than a 3D one.
  PartitionOptions o;
  o.machines = 64;
  o.dims = 1;
  const double one = EvaluatePlanLoad(BuildPartitionPlan(SkewedPages(1, 6000, 1), o), SkewedPages(1, 6000, 1), 1.0)
                         .imbalance;
  o.dims = 3;
  const double three =
      EvaluatePlanLoad(BuildPartitionPlan(SkewedPages(3, 6000, 1), o), SkewedPages(3, 6000, 1), 1.0).imbalance;
  EXPECT_GT(one, three);
}

TEST(ExactSimilarPairsTest, MatchesBruteForceJaccard) {
  std::mt19937_64 rng(8);
  std::vector<std::vector<uint64_t>> sets;
  for (int i = 0; i < 120; ++i) {
    if (i > 0 && rng() % 2) {
      std::vector<uint64_t> s = sets[rng() % sets.size()];
      for (size_t e = 0, n = rng() % 4; e < n && !s.empty(); ++e) s[rng() % s.size()] = rng() % 500;
      if (rng() % 2) s.push_back(rng() % 500);
      std::sort(s.begin(), s.end());
      s.erase(std::unique(s.begin(), s.end()), s.end());
      sets.push_back(s);
    } else {
      std::set<uint64_t> s;
      for (size_t n = rng() % 30; s.size() < n;) s.insert(rng() % 500);
      sets.emplace_back(s.begin(), s.end());
    }
  }
  for (double tau : {0.5, 0.8, 0.9}) {
    std::vector<std::pair<uint32_t, uint32_t>> expected;
    for (uint32_t i = 0; i < sets.size(); ++i) {
      for (uint32_t j = i + 1; j < sets.size(); ++j) {
        if (sets[i].empty() || sets[j].empty()) continue;
        std::vector<uint64_t> inter;
        std::set_intersection(sets[i].begin(), sets[i].end(), sets[j].begin(), sets[j].end(),
                              std::back_inserter(inter));
        const double uni = static_cast<double>(sets[i].size() + sets[j].size() - inter.size());
        if (inter.size() / uni >= tau - 1e-12) expected.emplace_back(i, j);
      }
    }
    EXPECT_EQ(ExactSimilarPairs(sets, tau), expected) << tau;
    if (tau == 0.8) {
      EXPECT_GT(expected.size(), 10u);
    }
  }
}

TEST(ShingleSetTest, AsManyShinglesAsTermsWithDummyWords) {
  std::mt19937_64 rng(4);
  const std::vector<uint64_t> terms = RandomTerms(rng, 50);
  EXPECT_EQ(ShingleSet(terms, 5).size(), 50u);
  EXPECT_EQ(ShingleSet(terms, 1).size(), 50u);
  EXPECT_TRUE(ShingleSet({}, 5).empty());
  // A repeated run of terms repeats its shingles: fewer distinct (the ε of §4.2).
  std::vector<uint64_t> twice = terms;
  twice.insert(twice.end(), terms.begin(), terms.end());
  EXPECT_LT(ShingleSet(twice, 5).size(), 100u);
  EXPECT_GE(ShingleSet(twice, 5).size(), 54u);
  // Order matters for k > 1, not for k = 1.
  std::vector<uint64_t> reversed(terms.rbegin(), terms.rend());
  EXPECT_EQ(ShingleSet(reversed, 1), ShingleSet(terms, 1));
  EXPECT_NE(ShingleSet(reversed, 3), ShingleSet(terms, 3));
}

TEST(CountLostPairsTest, CopiesNeverLostAndWideRhoLosesNothing) {
  const uint32_t dims = 3;
  std::mt19937_64 rng(12);
  std::vector<std::vector<uint32_t>> pages;
  std::vector<std::pair<uint32_t, uint32_t>> copies, any;
  for (uint32_t i = 0; i < 400; ++i) {
    pages.push_back(LengthVector(RandomTerms(rng, 20 + rng() % 2000), dims));
    pages.push_back(pages.back());
    copies.emplace_back(2 * i, 2 * i + 1);
    any.emplace_back(2 * i, static_cast<uint32_t>(rng() % (2 * i + 1)) + (rng() % 2));
  }
  for (auto& p : any) {
    if (p.first > p.second) std::swap(p.first, p.second);
  }
  any.erase(std::remove_if(any.begin(), any.end(), [](const auto& p) { return p.first == p.second; }), any.end());
  PartitionOptions o;
  o.dims = dims;
  o.machines = 64;
  const PartitionPlan plan = BuildPartitionPlan(pages, o);
  EXPECT_EQ(CountLostPairs(plan, pages, copies, 1.0), 0u);
  // Random pairs of unrelated lengths: most lost at ρ = 1, none at a huge ρ.
  EXPECT_GT(CountLostPairs(plan, pages, any, 1.0), any.size() / 2);
  EXPECT_EQ(CountLostPairs(plan, pages, any, 1e6), 0u);
}

}  // namespace
}  // namespace neardup
