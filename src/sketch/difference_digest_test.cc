#include "sketch/difference_digest.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

namespace neardup {
namespace {

std::vector<uint64_t> Digest(const std::vector<uint32_t>& keys, uint32_t cells) {
  std::vector<uint64_t> d(cells);
  DifferenceDigest::Build(keys, cells, d.data());
  return d;
}

TEST(DifferenceDigestTest, DecodesSmallDifferencesExactlyOrNotAtAll) {
  // Peeling can fail when keys share cells (a 2-core): rarely for small
  // differences, more often near the capacity. A decode is never wrong.
  std::mt19937 rng(5);
  int failed = 0, trials = 0;
  for (int trial = 0; trial < 1000; ++trial) {
    std::set<uint32_t> common;
    while (common.size() < 500) common.insert(rng());
    std::vector<uint32_t> a(common.begin(), common.end()), b = a;
    const int only_a = static_cast<int>(rng() % 9), only_b = static_cast<int>(rng() % 9);
    for (int i = 0; i < only_a; ++i) a.push_back(rng());
    for (int i = 0; i < only_b; ++i) b.push_back(rng());
    const auto da = Digest(a, 72), db = Digest(b, 72);
    const int d = DifferenceDigest::DifferenceSize(da.data(), db.data(), 72, 100);
    EXPECT_EQ(d, DifferenceDigest::DifferenceSize(db.data(), da.data(), 72, 100));
    ++trials;
    if (d < 0) {
      ++failed;
    } else {
      EXPECT_EQ(d, only_a + only_b);
    }
  }
  EXPECT_LT(failed, trials / 100);  // under 1% for differences of up to 16
}

TEST(DifferenceDigestTest, EqualSetsInAnyOrderDifferByZero) {
  std::vector<uint32_t> a = {1, 2, 3, 99, 123456789}, b = {123456789, 3, 99, 1, 2};
  const auto da = Digest(a, 30), db = Digest(b, 30);
  EXPECT_EQ(da, db);
  EXPECT_EQ(DifferenceDigest::DifferenceSize(da.data(), db.data(), 30, 10), 0);
}

TEST(DifferenceDigestTest, LargeDifferencesFailOrExceedTheLimit) {
  std::mt19937 rng(9);
  int failed = 0;
  for (int trial = 0; trial < 100; ++trial) {
    std::vector<uint32_t> a, b;
    for (int i = 0; i < 500; ++i) a.push_back(rng());
    for (int i = 0; i < 500; ++i) b.push_back(rng());
    const auto da = Digest(a, 72), db = Digest(b, 72);
    failed += DifferenceDigest::DifferenceSize(da.data(), db.data(), 72, 40) == -1;
  }
  EXPECT_EQ(failed, 100);
  // A difference that decodes but is over the limit.
  std::vector<uint32_t> a = {10, 20, 30}, b = {};
  const auto da = Digest(a, 30), db = Digest(b, 30);
  EXPECT_EQ(DifferenceDigest::DifferenceSize(da.data(), db.data(), 30, 2), -1);
  EXPECT_EQ(DifferenceDigest::DifferenceSize(da.data(), db.data(), 30, 3), 3);
}

}  // namespace
}  // namespace neardup
