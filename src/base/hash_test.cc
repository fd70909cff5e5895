#include "base/hash.h"

#include <gtest/gtest.h>

#include <random>

namespace neardup {
namespace {

// Reference outputs of SplitMix64 seeded with 0 (Vigna's splitmix64.c).
TEST(HashTest, SplitMix64MatchesTheReferenceStream) {
  uint64_t state = 0;
  EXPECT_EQ(SplitMix64Next(&state), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(SplitMix64Next(&state), 0x6e789e6aa1b965f4ULL);
  EXPECT_EQ(SplitMix64Next(&state), 0x06c45d188009454fULL);
  EXPECT_EQ(state, 3 * kSplitMix64Gamma);
}

TEST(HashTest, ValueFormIsOneStepOfTheStream) {
  std::mt19937_64 rng(7);
  for (int t = 0; t < 1000; ++t) {
    const uint64_t x = rng();
    uint64_t state = x;
    EXPECT_EQ(SplitMix64(x), SplitMix64Next(&state));
    EXPECT_EQ(SplitMix64(x), Mix13(x + kSplitMix64Gamma));
  }
}

TEST(HashTest, FmixInversesAreExact) {
  std::mt19937_64 rng(1);
  for (int t = 0; t < 10000; ++t) {
    const uint64_t x = rng();
    EXPECT_EQ(Fmix64Inverse(Fmix64(x)), x);
    EXPECT_EQ(Fmix64(Fmix64Inverse(x)), x);
    const uint64_t a = x | 1;
    EXPECT_EQ(a * InverseMod64(a), 1u);
  }
  EXPECT_EQ(Fmix64(0), 0u);  // a fixed point; callers xor a key first
}

TEST(HashTest, Fnv1a64MatchesPublishedValues) {
  EXPECT_EQ(Fnv1a64(""), kFnv64OffsetBasis);
  EXPECT_EQ(Fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(Fnv1a64("foobar"), 0x85944171f73967e8ULL);
}

}  // namespace
}  // namespace neardup
