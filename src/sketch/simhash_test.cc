#include "sketch/simhash.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace neardup {
namespace {

std::vector<uint64_t> RandomTerms(std::mt19937_64* rng, size_t n, size_t vocab) {
  std::vector<uint64_t> v(vocab);
  for (auto& x : v) x = (*rng)();
  std::vector<uint64_t> terms(n);
  for (auto& t : terms) t = v[(*rng)() % vocab];
  return terms;
}

std::vector<uint64_t> SketchOf(const SimhashSketcher& sk, const std::vector<uint64_t>& terms) {
  SimhashScratch scratch;
  std::vector<uint64_t> out(sk.options().words());
  EXPECT_TRUE(sk.Sketch(terms, &scratch, out.data()));
  return out;
}

TEST(SimhashOptionsTest, Validate) {
  SimhashOptions o;
  EXPECT_TRUE(o.Validate().ok());
  EXPECT_EQ(o.words(), 6u);
  for (uint32_t bits : {0u, 32u, 100u, 576u, 1024u}) {
    o.bits = bits;
    EXPECT_EQ(o.Validate().code(), Status::Code::kInvalidArgument) << bits;
  }
  for (uint32_t bits = 64; bits <= 512; bits += 64) {
    o.bits = bits;
    EXPECT_TRUE(o.Validate().ok()) << bits;
  }
  o = SimhashOptions();
  o.kernel = "sse9";
  const Status st = o.Validate();
  EXPECT_EQ(st.code(), Status::Code::kNotSupported);
  EXPECT_NE(st.ToString().find("portable"), std::string::npos) << st.ToString();
}

TEST(SimhashOptionsTest, Name) {
  SimhashOptions o;
  EXPECT_EQ(o.Name(), "simhash:b=384,seed=1234");
  o.bits = 64;
  o.seed = 7;
  o.kernel = "portable";  // performance only: not in the name
  EXPECT_EQ(o.Name(), "simhash:b=64,seed=7");
}

TEST(SimhashTest, EmptyDocumentLeavesOutputUntouched) {
  SimhashSketcher sk{SimhashOptions()};
  SimhashScratch scratch;
  std::vector<uint64_t> out(6, 0xabcdef);
  EXPECT_FALSE(sk.Sketch({}, &scratch, out.data()));
  EXPECT_EQ(out, std::vector<uint64_t>(6, 0xabcdef));
}

TEST(SimhashTest, DeterministicAndIndependentOfScratchHistory) {
  std::mt19937_64 rng(1);
  const auto terms = RandomTerms(&rng, 1000, 300);
  SimhashSketcher a{SimhashOptions()}, b{SimhashOptions()};
  SimhashScratch scratch;
  std::vector<uint64_t> first(6), again(6);
  ASSERT_TRUE(a.Sketch(terms, &scratch, first.data()));
  const auto other = RandomTerms(&rng, 5000, 50);
  std::vector<uint64_t> tmp(6);
  ASSERT_TRUE(a.Sketch(other, &scratch, tmp.data()));
  ASSERT_TRUE(b.Sketch(terms, &scratch, again.data()));
  EXPECT_EQ(first, again);
  // A copy of the token sequence gives the same sketch.
  std::vector<uint64_t> copy(terms.begin(), terms.end());
  EXPECT_EQ(SketchOf(a, copy), first);
}

TEST(SimhashTest, SeedChangesTheProjection) {
  std::mt19937_64 rng(2);
  const auto terms = RandomTerms(&rng, 1000, 300);
  SimhashOptions o;
  const auto s1 = SketchOf(SimhashSketcher(o), terms);
  o.seed = 99;
  const auto s2 = SketchOf(SimhashSketcher(o), terms);
  // Independent projections agree on about half the bits.
  const int c = CSimilarity(s1.data(), s2.data(), 384);
  EXPECT_GT(c, 140);
  EXPECT_LT(c, 244);
}

TEST(SimhashTest, CSimilarity) {
  uint64_t a[6] = {0, 0, 0, 0, 0, 0};
  uint64_t b[6] = {0, 0, 0, 0, 0, 0};
  EXPECT_EQ(CSimilarity(a, b, 384), 384);
  b[0] = 0b1011;
  b[5] = uint64_t{1} << 63;
  EXPECT_EQ(CSimilarity(a, b, 384), 380);
  EXPECT_EQ(CSimilarity(a, b, 64), 61);
  for (auto& w : b) w = ~uint64_t{0};
  EXPECT_EQ(CSimilarity(a, b, 384), 0);
}

TEST(SimhashTest, SelfSimilarityAndOrderIgnored) {
  std::mt19937_64 rng(3);
  for (uint32_t bits : {64u, 384u, 512u}) {
    SimhashOptions o;
    o.bits = bits;
    SimhashSketcher sk(o);
    auto terms = RandomTerms(&rng, 777, 200);
    const auto s = SketchOf(sk, terms);
    EXPECT_EQ(CSimilarity(s.data(), s.data(), bits), static_cast<int>(bits));
    std::shuffle(terms.begin(), terms.end(), rng);
    const auto p = SketchOf(sk, terms);
    EXPECT_EQ(CSimilarity(s.data(), p.data(), bits), static_cast<int>(bits)) << bits;
    std::sort(terms.begin(), terms.end());
    EXPECT_EQ(SketchOf(sk, terms), s);
  }
}

TEST(SimhashTest, FrequencyCounts) {
  // The same term set with different frequencies: Algorithm C counts every
  // occurrence, so the sketches differ.
  SimhashSketcher sk{SimhashOptions()};
  std::mt19937_64 rng(4);
  std::vector<uint64_t> set(40);
  for (auto& t : set) t = rng();
  std::vector<uint64_t> a = set, b = set;
  for (int i = 0; i < 200; ++i) b.push_back(set[0]);  // one term dominates b
  const auto sa = SketchOf(sk, a), sb = SketchOf(sk, b);
  EXPECT_LT(CSimilarity(sa.data(), sb.data(), 384), 330);
  // With one dominating term the sketch is that term's projection.
  for (uint32_t w = 0; w < 6; ++w) EXPECT_EQ(sb[w], sk.TEST_ProjectionWord(set[0], w));
}

TEST(SimhashTest, SumIsTheDefinition) {
  // Bit i is 1 iff the +-1 sum is positive; ties (sum 0) give 0.
  SimhashOptions o;
  o.bits = 128;
  SimhashSketcher sk(o);
  std::mt19937_64 rng(5);
  for (int doc = 0; doc < 50; ++doc) {
    const auto terms = RandomTerms(&rng, 1 + rng() % 40, 1 + rng() % 30);
    std::vector<int64_t> sum(128, 0);
    for (uint64_t t : terms) {
      for (uint32_t i = 0; i < 128; ++i) {
        sum[i] += ((sk.TEST_ProjectionWord(t, i / 64) >> (i % 64)) & 1) ? 1 : -1;
      }
    }
    const auto s = SketchOf(sk, terms);
    for (uint32_t i = 0; i < 128; ++i) {
      ASSERT_EQ((s[i / 64] >> (i % 64)) & 1, sum[i] > 0 ? 1u : 0u) << "doc " << doc << " bit " << i;
    }
  }
  // Two distinct terms once each: every dimension sums to +2, 0 or -2.
  const std::vector<uint64_t> two{1, 2};
  const auto s = SketchOf(sk, two);
  for (uint32_t w = 0; w < 2; ++w) {
    EXPECT_EQ(s[w], sk.TEST_ProjectionWord(1, w) & sk.TEST_ProjectionWord(2, w));
  }
}

TEST(SimhashTest, OneRareTermChangesFewBits) {
  SimhashSketcher sk{SimhashOptions()};
  std::mt19937_64 rng(6);
  int total_changed = 0;
  for (int doc = 0; doc < 20; ++doc) {
    auto terms = RandomTerms(&rng, 2000, 600);
    const auto before = SketchOf(sk, terms);
    terms.insert(terms.begin() + static_cast<long>(rng() % terms.size()), rng());
    const auto after = SketchOf(sk, terms);
    const int changed = 384 - CSimilarity(before.data(), after.data(), 384);
    EXPECT_LE(changed, 20);
    total_changed += changed;
  }
  // About 384 * P(|S_i| <= 1) ~ 384 * 0.8 / sqrt(2000 * pi / 2) / 2 per page.
  EXPECT_LE(total_changed, 20 * 12);
}

}  // namespace
}  // namespace neardup
