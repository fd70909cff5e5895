// Copyright neardup authors. Licensed under Apache-2.0.
#include "base/word_filter.h"

#include <gtest/gtest.h>

#include <random>
#include <unordered_set>

namespace neardup {
namespace {

// Every key added passes; few absent keys do; an empty filter passes all.
TEST(WordFilterTest, NoFalseNegativesAndFewFalsePositives) {
  EXPECT_TRUE(WordFilter().MayContain(42));
  std::mt19937_64 rng(11);
  for (size_t n : {size_t{1}, size_t{7}, size_t{100}, size_t{10000}, size_t{300000}}) {
    WordFilter filter(n);
    std::unordered_set<uint64_t> keys;
    while (keys.size() < n) {
      // Keys shaped like (position << 32 | value), as the templates use them.
      const uint64_t key = ((rng() % 126) << 32) | (rng() & 0xffffffff);
      if (keys.insert(key).second) filter.Add(key);
    }
    for (uint64_t key : keys) ASSERT_TRUE(filter.MayContain(key)) << n;
    size_t passed = 0, tried = 0;
    while (tried < 100000) {
      const uint64_t key = ((rng() % 126) << 32) | (rng() & 0xffffffff);
      if (keys.count(key)) continue;
      ++tried;
      passed += filter.MayContain(key);
    }
    EXPECT_LT(passed, tried / 10) << n;  // about 4% at 8 bits a key
    EXPECT_LE(filter.bytes(), 2 * n + 8) << n;
  }
}

}  // namespace
}  // namespace neardup
