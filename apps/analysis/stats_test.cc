// Copyright neardup authors. Licensed under Apache-2.0.
//
// Power-law fits, degree distribution and B-/C-similarity tables on inputs
// small enough to check by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis.h"

namespace neardup {
namespace {

TEST(FitLogLogTest, RecoversTheExponentOfAnExactPowerLaw) {
  // y = 1e6 / x^2 at sizes dividing 1000, so every count is an integer and
  // ln y = ln(1e6) - 2 ln x holds exactly: slope -2, intercept ln 1e6.
  std::vector<std::pair<double, double>> points;
  for (double x : {1.0, 2.0, 4.0, 5.0, 8.0, 10.0}) points.push_back({x, 1e6 / (x * x)});
  points.push_back({0.0, 5.0});   // not on a log axis: ignored
  points.push_back({3.0, 0.0});   // ditto
  const LogLogFit fit = FitLogLog(points);
  EXPECT_EQ(fit.points, 6u);
  EXPECT_NEAR(fit.slope, -2.0, 1e-12);
  EXPECT_NEAR(fit.intercept, std::log(1e6), 1e-9);
  EXPECT_NEAR(fit.r_squared, 1.0, 1e-12);
}

TEST(FitLogLogTest, TwoPointsGiveTheLineThroughThem) {
  // (1, 8) and (4, 1): slope = ln(1/8) / ln 4 = -3 ln2 / 2 ln2 = -1.5.
  const LogLogFit fit = FitLogLog({{1, 8}, {4, 1}});
  EXPECT_NEAR(fit.slope, -1.5, 1e-12);
  EXPECT_NEAR(fit.intercept, std::log(8.0), 1e-12);
  EXPECT_EQ(FitLogLog({{2, 3}}).points, 1u);
  EXPECT_EQ(FitLogLog({{2, 3}, {2, 5}}).slope, 0.0);  // no spread in x: no slope
}

TEST(DiscretePowerLawMleTest, RecoversTheExponentOfAZetaHistogram) {
  // Counts proportional to s^-2.5 (a discrete power law with alpha 2.5,
  // x_min 1), rounded; the rounding cuts the tail above s ~ 2000, which
  // moves the estimate by far less than the tolerance.
  std::map<uint64_t, uint64_t> h;
  for (uint64_t s = 1; s <= 100000; ++s) {
    const double c = std::round(1e8 * std::pow(static_cast<double>(s), -2.5));
    if (c > 0) h[s] = static_cast<uint64_t>(c);
  }
  const auto alpha = DiscretePowerLawMle(h, 1);
  ASSERT_TRUE(alpha.has_value());
  EXPECT_NEAR(*alpha, 2.5, 0.02);
  // Same law for alpha 2.0 (counts 1e8 / s^2).
  std::map<uint64_t, uint64_t> h2;
  for (uint64_t s = 1; s <= 10000; ++s) h2[s] = static_cast<uint64_t>(std::round(1e8 / static_cast<double>(s * s)));
  const auto alpha2 = DiscretePowerLawMle(h2, 1);
  ASSERT_TRUE(alpha2.has_value());
  EXPECT_NEAR(*alpha2, 2.0, 0.02);
}

TEST(DiscretePowerLawMleTest, UndefinedWithoutSpread) {
  EXPECT_FALSE(DiscretePowerLawMle({}, 1).has_value());
  EXPECT_FALSE(DiscretePowerLawMle({{1, 50}}, 1).has_value());   // all at x_min
  EXPECT_FALSE(DiscretePowerLawMle({{5, 1}}, 1).has_value());    // one value
  EXPECT_FALSE(DiscretePowerLawMle({{1, 3}, {2, 4}}, 3).has_value());  // nothing >= x_min
}

TEST(DegreeStatsTest, FiveEdgeGraph) {
  // Edges a-b, a-c, a-d, b-c, d-e; b-a repeats a-b and e-e is a self-pair:
  // both ignored. Degrees: a 3, b 2, c 2, d 2, e 1 -> {1: 1, 2: 3, 3: 1}.
  std::vector<PairRow> pairs;
  for (auto [x, y] : std::vector<std::pair<const char*, const char*>>{
           {"a", "b"}, {"a", "c"}, {"a", "d"}, {"b", "c"}, {"d", "e"}, {"b", "a"}, {"e", "e"}}) {
    pairs.push_back(PairRow{std::string(x), std::string(y), std::nullopt, std::nullopt, std::nullopt});
  }
  const DegreeStats d = ComputeDegreeStats(pairs);
  EXPECT_EQ(d.edges, 5u);
  EXPECT_EQ(d.pages_with_edges, 5u);
  EXPECT_EQ(d.degree_histogram, (std::map<uint64_t, uint64_t>{{1, 1}, {2, 3}, {3, 1}}));
  EXPECT_EQ(d.least_squares.points, 3u);
}

PairRow Pair(std::optional<double> b, std::optional<double> c) {
  return PairRow{std::string("x"), std::string("y"), b, c, std::nullopt};
}

TEST(SimilarityTablesTest, ByBAndByC) {
  // (B, C): (2, 370), (2, 374), (3, 380), (3, 384), (4, 383); one pair with
  // only B (counted in the B distribution, not in the tables).
  const std::vector<PairRow> pairs = {Pair(2, 370), Pair(2, 374), Pair(3, 380),
                                      Pair(3, 384), Pair(4, 383), Pair(5, std::nullopt)};
  const SimilarityTables t = ComputeSimilarityTables(pairs, 2);
  EXPECT_EQ(t.b_distribution, (std::map<double, uint64_t>{{2, 2}, {3, 2}, {4, 1}, {5, 1}}));
  EXPECT_EQ(t.c_distribution.size(), 5u);
  ASSERT_EQ(t.by_b.size(), 3u);
  EXPECT_EQ(t.by_b[0].label, "2");
  EXPECT_EQ(t.by_b[0].pairs, 2u);
  EXPECT_DOUBLE_EQ(t.by_b[0].average_other, 372.0);  // (370 + 374) / 2
  EXPECT_DOUBLE_EQ(t.by_b[1].average_other, 382.0);  // (380 + 384) / 2
  EXPECT_DOUBLE_EQ(t.by_b[2].average_other, 383.0);
  EXPECT_EQ(t.by_b[1].other_distribution, (std::map<double, uint64_t>{{380, 1}, {384, 1}}));
  // C from 370 to 384 is 15 values; 2 ranges of width ceil(15 / 2) = 8:
  // 370-377 holds 370, 374 (B 2, 2); 378-385 holds 380, 384, 383 (B 3, 3, 4).
  ASSERT_EQ(t.by_c.size(), 2u);
  EXPECT_EQ(t.by_c[0].label, "370-377");
  EXPECT_EQ(t.by_c[0].pairs, 2u);
  EXPECT_DOUBLE_EQ(t.by_c[0].average_other, 2.0);
  EXPECT_EQ(t.by_c[1].label, "378-385");
  EXPECT_EQ(t.by_c[1].pairs, 3u);
  EXPECT_NEAR(t.by_c[1].average_other, 10.0 / 3.0, 1e-12);
  EXPECT_EQ(t.by_c[1].other_distribution, (std::map<double, uint64_t>{{3, 2}, {4, 1}}));
}

TEST(SimilarityTablesTest, OnlyOneColumnGivesOnlyItsDistribution) {
  const SimilarityTables t = ComputeSimilarityTables({Pair(std::nullopt, 380), Pair(std::nullopt, 380)}, 4);
  EXPECT_TRUE(t.by_b.empty());
  EXPECT_TRUE(t.by_c.empty());
  EXPECT_TRUE(t.b_distribution.empty());
  EXPECT_EQ(t.c_distribution, (std::map<double, uint64_t>{{380, 2}}));
}

}  // namespace
}  // namespace neardup
