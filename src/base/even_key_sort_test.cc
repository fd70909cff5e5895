// Copyright neardup authors. Licensed under Apache-2.0.
#include "base/even_key_sort.h"

#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

namespace neardup {
namespace {

using Pair = std::pair<uint32_t, uint32_t>;

// The same order as std::sort: even keys, keys crowded into a few values
// (a template's value held by half a site), and keys all in the low bits
// (uneven: one big bucket), at sizes on both sides of the small-input cut.
TEST(SortByEvenKeyTest, AgreesWithStdSort) {
  std::mt19937_64 rng(7);
  for (size_t n : {0, 1, 100, 4095, 4096, 50000, 200000}) {
    for (int shape = 0; shape < 3; ++shape) {
      std::vector<Pair> v(n);
      for (size_t i = 0; i < n; ++i) {
        uint32_t key = static_cast<uint32_t>(rng());
        if (shape == 1 && rng() % 2 == 0) key = 12345;
        if (shape == 2) key %= 1000;
        v[i] = {key, static_cast<uint32_t>(rng() % 1000)};
      }
      std::vector<Pair> expected = v;
      std::sort(expected.begin(), expected.end());
      SortByEvenKey(&v, 32, [](const Pair& p) { return p.first; });
      EXPECT_EQ(v, expected) << "n " << n << " shape " << shape;
    }
  }
}

TEST(SortByEvenKeyTest, SixtyFourBitKeys) {
  std::mt19937_64 rng(11);
  std::vector<std::pair<uint64_t, uint32_t>> v(100000);
  for (auto& e : v) e = {rng() % 3 == 0 ? uint64_t{42} : rng(), static_cast<uint32_t>(rng())};
  auto expected = v;
  std::sort(expected.begin(), expected.end());
  SortByEvenKey(&v, 64, [](const std::pair<uint64_t, uint32_t>& e) { return e.first; });
  EXPECT_EQ(v, expected);
}

}  // namespace
}  // namespace neardup
