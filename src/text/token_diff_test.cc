// Copyright neardup authors. Licensed under Apache-2.0.
#include "text/token_diff.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace neardup {
namespace {

using Kind = DiffRun::Kind;
using Terms = std::vector<uint64_t>;

uint64_t BruteLcs(const Terms& a, const Terms& b) {
  std::vector<std::vector<uint64_t>> t(a.size() + 1, std::vector<uint64_t>(b.size() + 1, 0));
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      t[i][j] = a[i - 1] == b[j - 1] ? t[i - 1][j - 1] + 1 : std::max(t[i - 1][j], t[i][j - 1]);
    }
  }
  return t[a.size()][b.size()];
}

// The TokenDiff contract of the header: complete, ordered, non-empty runs,
// equal runs really equal, canonical form, term_difference = edited terms.
void ExpectWellFormed(const Terms& a, const Terms& b, const TokenDiff& d) {
  uint32_t ai = 0, bi = 0;
  uint64_t edited = 0;
  for (size_t r = 0; r < d.runs.size(); ++r) {
    const DiffRun& run = d.runs[r];
    ASSERT_EQ(run.a_begin, ai);
    ASSERT_EQ(run.b_begin, bi);
    ASSERT_LE(run.a_begin, run.a_end);
    ASSERT_LE(run.b_begin, run.b_end);
    ASSERT_LE(run.a_end, a.size());
    ASSERT_LE(run.b_end, b.size());
    const uint32_t alen = run.a_end - run.a_begin, blen = run.b_end - run.b_begin;
    switch (run.kind) {
      case Kind::kEqual:
        ASSERT_EQ(alen, blen);
        ASSERT_GT(alen, 0u);
        for (uint32_t k = 0; k < alen; ++k) ASSERT_EQ(a[run.a_begin + k], b[run.b_begin + k]);
        if (r > 0) {
          ASSERT_NE(d.runs[r - 1].kind, Kind::kEqual);
        }
        break;
      case Kind::kDelete:
        ASSERT_EQ(blen, 0u);
        ASSERT_GT(alen, 0u);
        if (r > 0) {
          ASSERT_EQ(d.runs[r - 1].kind, Kind::kEqual);
        }
        edited += alen;
        break;
      case Kind::kInsert:
        ASSERT_EQ(alen, 0u);
        ASSERT_GT(blen, 0u);
        if (r > 0) {
          ASSERT_NE(d.runs[r - 1].kind, Kind::kInsert);
        }
        edited += blen;
        break;
    }
    ai = run.a_end;
    bi = run.b_end;
  }
  EXPECT_EQ(ai, a.size());
  EXPECT_EQ(bi, b.size());
  EXPECT_EQ(d.term_difference, edited);
}

Terms RandomTerms(std::mt19937_64& rng, size_t max_len, uint64_t alphabet) {
  Terms t(rng() % (max_len + 1));
  // Hash-like values: equal symbols give equal 64-bit terms.
  for (auto& x : t) x = (rng() % alphabet) * 0x9E3779B97F4A7C15ull;
  return t;
}

TEST(TokenDiffTest, MinimalOnRandomSequences) {
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 2000; ++trial) {
    const uint64_t alphabet = 1 + rng() % 6;
    Terms a = RandomTerms(rng, 30, alphabet);
    Terms b;
    if (trial % 2 == 0) {
      b = RandomTerms(rng, 30, alphabet);
    } else {  // a few edits of a, the near-duplicate case
      b = a;
      const int edits = static_cast<int>(rng() % 5);
      for (int e = 0; e < edits; ++e) {
        const size_t pos = b.empty() ? 0 : rng() % (b.size() + 1);
        if (rng() % 2 && pos < b.size()) {
          b.erase(b.begin() + static_cast<std::ptrdiff_t>(pos));
        } else {
          b.insert(b.begin() + static_cast<std::ptrdiff_t>(pos), rng() % alphabet);
        }
      }
    }
    SCOPED_TRACE("trial " + std::to_string(trial));
    const TokenDiff d = DiffTerms(a, b);
    ExpectWellFormed(a, b, d);
    EXPECT_EQ(d.term_difference, a.size() + b.size() - 2 * BruteLcs(a, b));
  }
}

TEST(TokenDiffTest, IdenticalAndEmpty) {
  const Terms a = {5, 6, 7, 5, 6};
  TokenDiff d = DiffTerms(a, a);
  EXPECT_EQ(d.term_difference, 0u);
  ASSERT_EQ(d.runs.size(), 1u);
  EXPECT_EQ(d.runs[0].kind, Kind::kEqual);
  EXPECT_EQ(d.runs[0].a_end, 5u);
  EXPECT_EQ(d.runs[0].b_end, 5u);

  d = DiffTerms({}, {});
  EXPECT_TRUE(d.runs.empty());
  EXPECT_EQ(d.term_difference, 0u);

  d = DiffTerms(a, {});
  ASSERT_EQ(d.runs.size(), 1u);
  EXPECT_EQ(d.runs[0].kind, Kind::kDelete);
  EXPECT_EQ(d.term_difference, 5u);

  d = DiffTerms({}, a);
  ASSERT_EQ(d.runs.size(), 1u);
  EXPECT_EQ(d.runs[0].kind, Kind::kInsert);
  EXPECT_EQ(d.term_difference, 5u);

  // Identical even under a zero cap.
  EXPECT_EQ(DiffTerms(a, a, 0).term_difference, 0u);
}

// A changed word in the middle: equal, delete, insert, equal.
TEST(TokenDiffTest, OneReplacement) {
  const Terms a = {1, 2, 3, 4, 5}, b = {1, 2, 9, 4, 5};
  const TokenDiff d = DiffTerms(a, b);
  EXPECT_EQ(d.term_difference, 2u);
  ASSERT_EQ(d.runs.size(), 4u);
  EXPECT_EQ(d.runs[0].kind, Kind::kEqual);
  EXPECT_EQ(d.runs[1].kind, Kind::kDelete);
  EXPECT_EQ(d.runs[1].a_begin, 2u);
  EXPECT_EQ(d.runs[1].a_end, 3u);
  EXPECT_EQ(d.runs[2].kind, Kind::kInsert);
  EXPECT_EQ(d.runs[2].b_begin, 2u);
  EXPECT_EQ(d.runs[2].b_end, 3u);
  EXPECT_EQ(d.runs[3].kind, Kind::kEqual);
}

// Under the cap the diff is minimal; over it, the part between the common
// prefix and suffix is one delete + one insert.
TEST(TokenDiffTest, Cap) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 400; ++trial) {
    const uint64_t alphabet = 1 + rng() % 5;
    const Terms a = RandomTerms(rng, 25, alphabet), b = RandomTerms(rng, 25, alphabet);
    const uint64_t exact = a.size() + b.size() - 2 * BruteLcs(a, b);
    size_t prefix = 0;
    while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
    size_t suffix = 0;
    while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
           a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix]) {
      ++suffix;
    }
    const uint64_t middle = a.size() + b.size() - 2 * (prefix + suffix);
    for (uint32_t cap = 0; cap <= exact + 2; ++cap) {
      SCOPED_TRACE("trial " + std::to_string(trial) + " cap " + std::to_string(cap));
      const TokenDiff d = DiffTerms(a, b, cap);
      ExpectWellFormed(a, b, d);
      if (exact <= cap) {
        EXPECT_EQ(d.term_difference, exact);
      } else {
        EXPECT_EQ(d.term_difference, middle);
        size_t edit_runs = 0;
        for (const DiffRun& run : d.runs) edit_runs += run.kind != Kind::kEqual;
        EXPECT_LE(edit_runs, 2u);
        EXPECT_LE(d.runs.size(), 4u);
      }
    }
  }
}

// Long pages with a few scattered edits: fast (O(ND)), and exact.
TEST(TokenDiffTest, LongSequencesFewEdits) {
  std::mt19937_64 rng(99);
  Terms a(200000);
  for (auto& x : a) x = rng();
  Terms b = a;
  for (int e = 0; e < 50; ++e) b[rng() % b.size()] = rng();  // 50 replacements
  b.erase(b.begin() + 1000, b.begin() + 1010);               // 10 deletions
  const TokenDiff d = DiffTerms(a, b);
  ExpectWellFormed(a, b, d);
  EXPECT_EQ(d.term_difference, 110u);
  // Entirely different pages hit the cap: one delete + one insert.
  Terms c(50000), e(50000);
  for (auto& x : c) x = rng();
  for (auto& x : e) x = rng();
  const TokenDiff far = DiffTerms(c, e, 1000);
  ASSERT_EQ(far.runs.size(), 2u);
  EXPECT_EQ(far.term_difference, 100000u);
}

}  // namespace
}  // namespace neardup
