// Statistical tests of the theory behind Broder's sketch (Fetterly et al.
// §2, Henzinger §2): for shingle sets A, B of resemblance
// p = |A∩B| / |A∪B|,
//   (i)   each min-hash pre-image agrees with probability p,
//   (ii)  each supershingle (l = 14 pre-images) with probability q = p^14,
//   (iii) at least 2 of m' = 6 agree with probability
//         1 - (1-q)^6 - 6 q (1-q)^5   (0.88 at p = 0.95, 0.026 at p = 0.80).
// The sets are built directly as pre-images (not from text) so p is exact.
// Each rate is checked to within 4 standard deviations of its binomial
// estimate; the trial counts are chosen so that plausible bugs land far
// outside (a family without the fmix64 pre-mix on strided sets, the same
// function repeated, runs of 13 or 15 pre-images per supershingle: see
// the comments at kFastTrials).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "sketch/broder.h"

namespace neardup {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitizerBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
constexpr bool kSanitizerBuild = true;
#else
constexpr bool kSanitizerBuild = false;
#endif
#else
constexpr bool kSanitizerBuild = false;
#endif

// Pairs per resemblance level. Fast family, release: 3000 pairs give
// sd(q) ~ 0.0038 at p = 0.9 where p^13 - p^14 = 0.025 (6.6 sd) and
// sd(P[>=2]) ~ 0.006 at p = 0.95. Under sanitizers a quarter, which still
// separates a repeated function (q = p instead of p^14) or a bare multiply
// on strided sets by far more than 4 sd.
constexpr int kFastTrials = kSanitizerBuild ? 750 : 3000;
// The Rabin family costs m table-driven MapU64 calls per element.
constexpr int kRabinTrials = kSanitizerBuild ? 250 : 1000;

// How the union A∪B is laid out as 64-bit values.
enum class Layout {
  kRandom,      // independent random values (what Rabin pre-images look like)
  kStrided,     // base + j * 2^20: arithmetic progression, low bits constant
  kConsecutive  // base + j
};

const char* LayoutName(Layout l) {
  switch (l) {
    case Layout::kRandom:
      return "random";
    case Layout::kStrided:
      return "strided";
    case Layout::kConsecutive:
      return "consecutive";
  }
  return "?";
}

// A, B with |A∪B| = union_size and |A∩B| = round(p * union_size): element
// j of the union is in both for j < inter, only in A for the next half of
// the rest, only in B after. Returns the exact resemblance.
double MakePair(std::mt19937_64& rng, size_t union_size, double p, Layout layout,
                std::vector<uint64_t>* a, std::vector<uint64_t>* b) {
  const size_t inter = static_cast<size_t>(std::llround(p * static_cast<double>(union_size)));
  const size_t only_a = (union_size - inter) / 2;
  a->clear();
  b->clear();
  const uint64_t base = rng() & ~((uint64_t{1} << 40) - 1);
  for (size_t j = 0; j < union_size; ++j) {
    uint64_t v;
    switch (layout) {
      case Layout::kRandom:
        v = rng();
        break;
      case Layout::kStrided:
        v = base + (uint64_t{j} << 20);
        break;
      default:
        v = base + j;
        break;
    }
    if (j < inter + only_a) a->push_back(v);
    if (j < inter || j >= inter + only_a) b->push_back(v);
  }
  return static_cast<double>(inter) / static_cast<double>(union_size);
}

struct Rates {
  double minhash = 0, supershingle = 0, at_least_two = 0;
};

Rates Measure(const BroderSketcher& sk, Layout layout, double p, int trials, size_t min_union,
              size_t max_union, uint64_t rng_seed) {
  std::mt19937_64 rng(rng_seed);
  const uint32_t m = sk.options().num_minhashes, mp = sk.options().num_supershingles();
  std::vector<uint64_t> a, b, mha(m), mhb(m), ssa(mp), ssb(mp);
  long minhash_agree = 0, ss_agree = 0, two = 0;
  for (int t = 0; t < trials; ++t) {
    // Union sizes that are multiples of 20 keep p * |A∪B| integral for the
    // levels below.
    const size_t u = 20 * (min_union / 20 + rng() % ((max_union - min_union) / 20 + 1));
    const double exact = MakePair(rng, u, p, layout, &a, &b);
    EXPECT_DOUBLE_EQ(exact, p);
    EXPECT_TRUE(sk.MinHashes(a, mha.data()));
    EXPECT_TRUE(sk.MinHashes(b, mhb.data()));
    sk.Supershingles(mha.data(), ssa.data());
    sk.Supershingles(mhb.data(), ssb.data());
    for (uint32_t i = 0; i < m; ++i) minhash_agree += mha[i] == mhb[i];
    const int bsim = BSimilarity(ssa.data(), ssb.data(), mp);
    ss_agree += bsim;
    two += bsim >= 2;
  }
  Rates r;
  r.minhash = static_cast<double>(minhash_agree) / (static_cast<double>(trials) * m);
  r.supershingle = static_cast<double>(ss_agree) / (static_cast<double>(trials) * mp);
  r.at_least_two = static_cast<double>(two) / trials;
  return r;
}

// |observed - expected| <= 4 binomial standard deviations over n trials.
void ExpectRate(const char* what, double observed, double expected, double n,
                const std::string& context) {
  const double sd = std::sqrt(expected * (1 - expected) / n);
  EXPECT_LE(std::fabs(observed - expected), 4 * sd)
      << what << ": observed " << observed << ", expected " << expected << " (sd " << sd << ", z "
      << (observed - expected) / sd << ") " << context;
}

double AtLeastTwoOfSix(double q) { return 1 - std::pow(1 - q, 6) - 6 * q * std::pow(1 - q, 5); }

struct TheoryCase {
  MinHashFamily family;
  Layout layout;
};

class BroderTheoryTest : public ::testing::TestWithParam<TheoryCase> {};

TEST_P(BroderTheoryTest, AgreementRatesFollowResemblance) {
  const TheoryCase c = GetParam();
  BroderOptions o;
  o.family = c.family;
  BroderSketcher sk(o);
  const bool fast = c.family == MinHashFamily::kFast;
  const int trials = fast ? kFastTrials : kRabinTrials;
  const size_t min_union = fast ? 200 : 200, max_union = fast ? 1000 : 400;
  uint64_t seed = 100 + static_cast<uint64_t>(c.layout);
  for (double p : {0.5, 0.8, 0.9, 0.95}) {
    const Rates r = Measure(sk, c.layout, p, trials, min_union, max_union, seed++);
    const double q = std::pow(p, 14);
    const std::string context = std::string(fast ? "fast" : "rabin") + " " + LayoutName(c.layout) +
                                " p=" + std::to_string(p);
    ExpectRate("(i) min-hash agreement", r.minhash, p, trials * 84.0, context);
    ExpectRate("(ii) supershingle agreement", r.supershingle, q, trials * 6.0, context);
    ExpectRate("(iii) >= 2 of 6 supershingles", r.at_least_two, AtLeastTwoOfSix(q), trials,
               context);
    if (p == 0.95 && !kSanitizerBuild) {
      // Fetterly: "almost 90%" at 95% similarity.
      EXPECT_NEAR(r.at_least_two, 0.88, 0.03) << context;
    }
    if (p == 0.8 && !kSanitizerBuild) {
      EXPECT_LT(r.at_least_two, 0.045) << context;  // Fetterly: 2.6%
    }
  }
}

TEST(BroderTheoryFormulaTest, FetterlysFigures) {
  EXPECT_NEAR(std::pow(0.95, 14), 0.49, 0.005);  // "each supershingle matches ... 49%"
  EXPECT_NEAR(AtLeastTwoOfSix(std::pow(0.95, 14)), 0.879, 0.001);
  EXPECT_NEAR(AtLeastTwoOfSix(std::pow(0.80, 14)), 0.026, 0.001);
}

// The 32-bit values (BroderSketcher::MinValues32) keep property (i), and
// their m functions agree independently: the number of agreeing positions
// of a pair is binomial, Bin(m, p), so its variance over pairs is
// m p (1 - p) (functions that agreed together, say repeated ones, would
// make it up to m times larger). Over 3000 pairs the sample variance has
// a relative sd of about 2.6%; the bound below is 15% (30% under
// sanitizers' 750 pairs, whose sd is 5.2%): about 6 sd.
class MinValues32TheoryTest : public ::testing::TestWithParam<Layout> {};

TEST_P(MinValues32TheoryTest, AgreementFollowsResemblanceIndependently) {
  BroderOptions o;
  BroderSketcher sk(o);
  const uint32_t m = o.num_minhashes;
  const int trials = kFastTrials;
  std::mt19937_64 rng(300 + static_cast<uint64_t>(GetParam()));
  std::vector<uint64_t> a, b;
  std::vector<uint32_t> va(m), vb(m);
  for (double p : {0.3, 0.5, 0.8, 0.95}) {
    double sum = 0, sum_sq = 0;
    for (int t = 0; t < trials; ++t) {
      const size_t u = 20 * (10 + rng() % 41);  // 200..1000
      MakePair(rng, u, p, GetParam(), &a, &b);
      ASSERT_TRUE(sk.MinValues32(a, va.data()));
      ASSERT_TRUE(sk.MinValues32(b, vb.data()));
      int agree = 0;
      for (uint32_t i = 0; i < m; ++i) agree += va[i] == vb[i];
      sum += agree;
      sum_sq += static_cast<double>(agree) * agree;
    }
    const std::string context = std::string("32-bit ") + LayoutName(GetParam()) + " p=" + std::to_string(p);
    const double mean = sum / trials;
    ExpectRate("(i) 32-bit min-hash agreement", mean / m, p, trials * static_cast<double>(m), context);
    const double variance = sum_sq / trials - mean * mean;
    const double binomial = m * p * (1 - p);
    EXPECT_NEAR(variance / binomial, 1.0, kSanitizerBuild ? 0.3 : 0.15) << "agreement count variance " << variance
                                                                        << ", binomial " << binomial << " "
                                                                        << context;
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, MinValues32TheoryTest,
                         ::testing::Values(Layout::kRandom, Layout::kStrided, Layout::kConsecutive),
                         [](const ::testing::TestParamInfo<Layout>& info) { return LayoutName(info.param); });

// The Rabin family is linear over GF(2), so it is only claimed (and only
// tested) on random-looking pre-images, which Rabin shingles are.
INSTANTIATE_TEST_SUITE_P(Families, BroderTheoryTest,
                         ::testing::Values(TheoryCase{MinHashFamily::kFast, Layout::kRandom},
                                           TheoryCase{MinHashFamily::kFast, Layout::kStrided},
                                           TheoryCase{MinHashFamily::kFast, Layout::kConsecutive},
                                           TheoryCase{MinHashFamily::kRabin, Layout::kRandom}),
                         [](const ::testing::TestParamInfo<TheoryCase>& info) {
                           return std::string(info.param.family == MinHashFamily::kFast ? "Fast"
                                                                                        : "Rabin") +
                                  "_" + LayoutName(info.param.layout);
                         });

}  // namespace
}  // namespace neardup
