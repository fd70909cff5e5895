#include "index/simhash_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "sketch/simhash.h"

namespace neardup {
namespace {

// Every candidate pair with C-similarity >= t, sorted by (a, b).
std::vector<SimhashPair> BruteForce(const std::vector<uint64_t>& sketches,
                                    const std::vector<uint8_t>& is_candidate, uint32_t bits,
                                    uint32_t t) {
  const uint32_t words = bits / 64;
  const auto n = static_cast<uint32_t>(sketches.size() / words);
  std::vector<SimhashPair> pairs;
  for (uint32_t a = 0; a < n; ++a) {
    if (!is_candidate.empty() && !is_candidate[a]) continue;
    for (uint32_t b = a + 1; b < n; ++b) {
      if (!is_candidate.empty() && !is_candidate[b]) continue;
      const int c = CSimilarity(&sketches[a * words], &sketches[b * words], bits);
      if (c >= static_cast<int>(t)) pairs.push_back({a, b, static_cast<uint32_t>(c)});
    }
  }
  return pairs;
}

// `groups` random base sketches, each with `per_group` variants at Hamming
// distance 0 .. max_flip from it (so variants of a group are at distance
// up to 2 * max_flip from each other), in shuffled order.
std::vector<uint64_t> ClusteredSketches(uint32_t bits, int groups, int per_group, int max_flip,
                                        uint64_t seed) {
  std::mt19937_64 rng(seed);
  const uint32_t words = bits / 64;
  std::vector<std::vector<uint64_t>> all;
  for (int g = 0; g < groups; ++g) {
    std::vector<uint64_t> base(words);
    for (auto& w : base) w = rng();
    for (int v = 0; v < per_group; ++v) {
      std::vector<uint64_t> s = base;
      const int flips = static_cast<int>(rng() % (max_flip + 1));
      std::vector<uint32_t> positions(bits);
      for (uint32_t i = 0; i < bits; ++i) positions[i] = i;
      std::shuffle(positions.begin(), positions.end(), rng);
      for (int f = 0; f < flips; ++f) s[positions[f] / 64] ^= uint64_t{1} << (positions[f] % 64);
      all.push_back(std::move(s));
    }
  }
  std::shuffle(all.begin(), all.end(), rng);
  std::vector<uint64_t> flat;
  for (const auto& s : all) flat.insert(flat.end(), s.begin(), s.end());
  return flat;
}

void ExpectStrictlyIncreasing(const std::vector<SimhashPair>& pairs) {
  for (size_t i = 0; i < pairs.size(); ++i) {
    ASSERT_LT(pairs[i].a, pairs[i].b);
    if (i > 0) {
      ASSERT_TRUE(pairs[i - 1].a < pairs[i].a ||
                  (pairs[i - 1].a == pairs[i].a && pairs[i - 1].b < pairs[i].b))
          << "pairs out of order or repeated at " << i;
    }
  }
}

struct Case {
  uint32_t bits, t;
  int max_flip;
};

class SimhashIndexBruteForceTest : public ::testing::TestWithParam<Case> {};

TEST_P(SimhashIndexBruteForceTest, EqualsBruteForce) {
  const Case c = GetParam();
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    // 300 sketches: 30 groups of 10.
    const auto sketches = ClusteredSketches(c.bits, 30, 10, c.max_flip, seed);
    SimhashIndexOptions o;
    o.bits = c.bits;
    o.min_agreeing = c.t;
    ASSERT_TRUE(o.Validate().ok());
    const SimhashIndexResult r = FindSimhashPairs(sketches, {}, o);
    const auto want = BruteForce(sketches, {}, c.bits, c.t);
    EXPECT_TRUE(r.complete);
    EXPECT_EQ(r.large_buckets, 0u);
    ExpectStrictlyIncreasing(r.pairs);
    EXPECT_EQ(r.pairs, want) << "bits " << c.bits << " t " << c.t << " seed " << seed;
    EXPECT_GT(want.size(), 50u);  // the case exercises the threshold
    // Pairs just below the threshold exist too (the case is not trivial).
    EXPECT_GT(BruteForce(sketches, {}, c.bits, c.t - 3).size(), want.size());
    EXPECT_GE(r.candidates_compared, r.pairs.size());
    EXPECT_LT(r.candidates_compared, 300u * 299 / 2 / 4);
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, SimhashIndexBruteForceTest,
                         ::testing::Values(Case{384, 372, 8}, Case{384, 373, 8},
                                           Case{384, 380, 3}, Case{128, 120, 5},
                                           Case{512, 500, 8}, Case{64, 61, 3},
                                           Case{64, 62, 2}, Case{64, 64, 1}));

TEST(SimhashIndexTest, Layout) {
  SimhashIndexOptions o;  // 384, 372
  SimhashTableLayout l = SimhashLayout(o);
  EXPECT_TRUE(l.complete);
  ASSERT_EQ(l.tables.size(), 13u);
  uint32_t next = 0;
  for (size_t p = 0; p < l.tables.size(); ++p) {
    ASSERT_EQ(l.tables[p].size(), 1u);
    EXPECT_EQ(l.tables[p][0].start, next);
    EXPECT_EQ(l.tables[p][0].len, p < 7 ? 30u : 29u);
    next += l.tables[p][0].len;
  }
  EXPECT_EQ(next, 384u);
  o.min_agreeing = 373;  // Henzinger's 12 x 32 bits
  l = SimhashLayout(o);
  ASSERT_EQ(l.tables.size(), 12u);
  for (const auto& t : l.tables) EXPECT_EQ(t[0].len, 32u);
  o.min_agreeing = 384;  // pieces stay within 64 bits
  EXPECT_EQ(SimhashLayout(o).tables.size(), 6u);
  o.min_agreeing = 300;
  l = SimhashLayout(o);
  EXPECT_EQ(l.tables.size(), kMaxSimhashPieces);
  EXPECT_FALSE(l.complete);
  o.bits = 64;
  o.min_agreeing = 61;  // Manku et al.: 20 tables of 3 of 6 blocks
  l = SimhashLayout(o);
  EXPECT_TRUE(l.complete);
  ASSERT_EQ(l.tables.size(), 20u);
  for (const auto& t : l.tables) {
    uint32_t len = 0;
    for (const auto& r : t) len += r.len;
    EXPECT_GE(len, 31u);
    EXPECT_LE(len, 33u);
  }
  o.min_agreeing = 60;
  EXPECT_FALSE(SimhashLayout(o).complete);
  EXPECT_EQ(SimhashLayout(o).tables.size(), 20u);
}

TEST(SimhashIndexTest, Validate) {
  SimhashIndexOptions o;
  EXPECT_TRUE(o.Validate().ok());
  o.bits = 100;
  EXPECT_FALSE(o.Validate().ok());
  o = SimhashIndexOptions();
  o.min_agreeing = 385;
  EXPECT_FALSE(o.Validate().ok());
  o = SimhashIndexOptions();
  o.max_bucket_pages = 1;
  EXPECT_FALSE(o.Validate().ok());
}

TEST(SimhashIndexTest, IncompleteSchemeStillFindsWhatItCovers) {
  // t = 340 needs 45 pieces; 24 run, so pairs within 23 bits are certain.
  const auto sketches = ClusteredSketches(384, 20, 8, 20, 9);
  SimhashIndexOptions o;
  o.min_agreeing = 340;
  const SimhashIndexResult r = FindSimhashPairs(sketches, {}, o);
  EXPECT_FALSE(r.complete);
  ExpectStrictlyIncreasing(r.pairs);
  const auto all = BruteForce(sketches, {}, 384, 340);
  const auto certain = BruteForce(sketches, {}, 384, 384 - 23);
  for (const auto& p : r.pairs) {
    EXPECT_TRUE(std::find(all.begin(), all.end(), p) != all.end());
  }
  for (const auto& p : certain) {
    EXPECT_TRUE(std::find(r.pairs.begin(), r.pairs.end(), p) != r.pairs.end());
  }
}

TEST(SimhashIndexTest, NonCandidatesIgnored) {
  const auto sketches = ClusteredSketches(384, 30, 10, 8, 4);
  std::vector<uint8_t> is_candidate(300);
  std::mt19937_64 rng(5);
  for (auto& f : is_candidate) f = rng() % 3 != 0;
  SimhashIndexOptions o;
  const SimhashIndexResult r = FindSimhashPairs(sketches, is_candidate, o);
  EXPECT_EQ(r.pairs, BruteForce(sketches, is_candidate, 384, 372));
  for (const auto& p : r.pairs) {
    EXPECT_TRUE(is_candidate[p.a]);
    EXPECT_TRUE(is_candidate[p.b]);
  }
  const SimhashIndexResult none =
      FindSimhashPairs(sketches, std::vector<uint8_t>(300, 0), o);
  EXPECT_TRUE(none.pairs.empty());
  EXPECT_EQ(none.candidates_compared, 0u);
  EXPECT_TRUE(FindSimhashPairs({}, {}, o).pairs.empty());
}

TEST(SimhashIndexTest, LargeBucketsAreCountedNotEnumerated) {
  SimhashIndexOptions o;
  o.max_bucket_pages = 5;
  // 10 identical sketches: every one of the 13 piece buckets is large.
  std::vector<uint64_t> same;
  for (int i = 0; i < 10; ++i) same.insert(same.end(), {1, 2, 3, 4, 5, 6});
  SimhashIndexResult r = FindSimhashPairs(same, {}, o);
  EXPECT_EQ(r.large_buckets, 13u);
  EXPECT_TRUE(r.pairs.empty());
  EXPECT_EQ(r.candidates_compared, 0u);
  EXPECT_FALSE(r.complete);

  // Pages 0..5 share piece 0 (bits 0..29; a bucket of 6 > 5); only pages 0
  // and 1 agree elsewhere. The pair is found at piece 1, once.
  std::mt19937_64 rng(6);
  std::vector<uint64_t> s;
  const uint64_t low = rng() & ((uint64_t{1} << 30) - 1);
  std::vector<uint64_t> twin(6);
  for (auto& w : twin) w = rng();
  twin[0] = (twin[0] & ~((uint64_t{1} << 30) - 1)) | low;
  for (int i = 0; i < 6; ++i) {
    std::vector<uint64_t> page = twin;
    if (i >= 2) {
      for (auto& w : page) w = rng();
      page[0] = (page[0] & ~((uint64_t{1} << 30) - 1)) | low;
    }
    s.insert(s.end(), page.begin(), page.end());
  }
  r = FindSimhashPairs(s, {}, o);
  EXPECT_EQ(r.large_buckets, 1u);
  EXPECT_FALSE(r.complete);
  ASSERT_EQ(r.pairs.size(), 1u);
  EXPECT_EQ(r.pairs[0], (SimhashPair{0, 1, 384}));
  EXPECT_EQ(r.candidates_compared, 1u);
  // With a larger limit the same pair is found at piece 0.
  o.max_bucket_pages = 6;
  r = FindSimhashPairs(s, {}, o);
  EXPECT_EQ(r.large_buckets, 0u);
  EXPECT_TRUE(r.complete);
  ASSERT_EQ(r.pairs.size(), 1u);
  EXPECT_EQ(r.candidates_compared, 15u);  // the 6-page bucket, each pair once
}

TEST(SimhashIndexTest, RealSketchesOfEditedPages) {
  // End to end with SimhashSketcher: a page and light edits of it are
  // C-similar; unrelated pages are not.
  SimhashSketcher sk{SimhashOptions()};
  SimhashScratch scratch;
  std::mt19937_64 rng(7);
  std::vector<uint64_t> vocab(5000);
  for (auto& v : vocab) v = rng();
  std::vector<uint64_t> sketches;
  for (int page = 0; page < 20; ++page) {
    std::vector<uint64_t> terms(1500);
    for (auto& t : terms) t = vocab[rng() % vocab.size()];
    for (int edit = 0; edit < 3; ++edit) {
      std::vector<uint64_t> e = terms;
      if (edit > 0) e.push_back(rng());  // one new term (a session id)
      std::vector<uint64_t> out(6);
      ASSERT_TRUE(sk.Sketch(e, &scratch, out.data()));
      sketches.insert(sketches.end(), out.begin(), out.end());
    }
  }
  const SimhashIndexResult r = FindSimhashPairs(sketches, {}, SimhashIndexOptions());
  EXPECT_EQ(r.pairs, BruteForce(sketches, {}, 384, 372));
  EXPECT_GE(r.pairs.size(), 50u);  // most of the 20 x 3 same-page pairs
  for (const auto& p : r.pairs) EXPECT_EQ(p.a / 3, p.b / 3);
}

}  // namespace
}  // namespace neardup
