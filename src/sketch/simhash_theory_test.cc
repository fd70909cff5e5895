// Charikar's guarantee for random hyperplane rounding ("Similarity
// Estimation Techniques from Rounding Algorithms", §3): for two pages whose
// term-frequency vectors u, v make the angle theta = arccos(u.v/|u||v|),
// each sketch bit agrees with probability 1 - theta / pi. With +-1
// projections the guarantee holds approximately (the projection of a
// many-term page is near Gaussian); we check the mean agreement over many
// random pairs, per range of theta, and check that the test is sharp enough
// to reject a wrong projection (one that ignores term frequency).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <numbers>
#include <random>
#include <vector>

#include "sketch/simhash.h"

namespace neardup {
namespace {

struct Pair {
  std::vector<uint64_t> a, b;  // term sequences
  double theta;                // angle between the term-frequency vectors
};

// Random term multisets over a fresh vocabulary: b keeps a's frequency of a
// term with probability q (q varies over the pairs, spreading theta over
// (0, pi/2]), else draws a new one, possibly 0; b also gets terms of its
// own. Frequencies are skewed (1 .. 36), so frequency matters.
std::vector<Pair> MakePairs(int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Pair> pairs;
  for (int p = 0; p < count; ++p) {
    const double q = static_cast<double>(p) / count;
    const int vocab = 150;
    std::vector<uint64_t> terms(vocab);
    for (auto& t : terms) t = rng();
    std::vector<int> fa(vocab), fb(vocab);
    auto freq = [&] {
      const int r = static_cast<int>(rng() % 6);
      return 1 + r * r;
    };
    for (int v = 0; v < vocab; ++v) {
      fa[v] = v < 120 ? freq() : 0;
      if (v >= 120) {
        fb[v] = freq();
      } else {
        fb[v] = std::uniform_real_distribution<double>(0, 1)(rng) < q ? fa[v]
                                                                       : static_cast<int>(rng() % 2) * freq();
      }
    }
    double dot = 0, na = 0, nb = 0;
    Pair pair;
    for (int v = 0; v < vocab; ++v) {
      dot += static_cast<double>(fa[v]) * fb[v];
      na += static_cast<double>(fa[v]) * fa[v];
      nb += static_cast<double>(fb[v]) * fb[v];
      pair.a.insert(pair.a.end(), static_cast<size_t>(fa[v]), terms[v]);
      pair.b.insert(pair.b.end(), static_cast<size_t>(fb[v]), terms[v]);
    }
    std::shuffle(pair.a.begin(), pair.a.end(), rng);
    std::shuffle(pair.b.begin(), pair.b.end(), rng);
    pair.theta = std::acos(std::min(1.0, dot / std::sqrt(na * nb)));
    pairs.push_back(std::move(pair));
  }
  return pairs;
}

using SketchFn = std::function<std::vector<uint64_t>(const std::vector<uint64_t>&)>;

// Per range of theta (quarters of [0, pi/2]): measured minus expected mean
// fraction of agreeing bits.
std::map<int, double> AgreementError(const std::vector<Pair>& pairs, const SketchFn& sketch,
                                     uint32_t bits) {
  std::map<int, double> measured, expected;
  std::map<int, int> n;
  for (const Pair& p : pairs) {
    const auto sa = sketch(p.a), sb = sketch(p.b);
    const int bucket = std::min(3, static_cast<int>(p.theta / (std::numbers::pi / 8)));
    measured[bucket] += static_cast<double>(CSimilarity(sa.data(), sb.data(), bits)) / bits;
    expected[bucket] += 1 - p.theta / std::numbers::pi;
    ++n[bucket];
  }
  std::map<int, double> err;
  for (auto& [bucket, count] : n) {
    if (count < 20) continue;  // too few pairs for the tolerance below
    err[bucket] = (measured[bucket] - expected[bucket]) / count;
  }
  return err;
}

class SimhashTheoryTest : public ::testing::TestWithParam<uint32_t> {};

TEST_P(SimhashTheoryTest, AgreementIsOneMinusThetaOverPi) {
  const uint32_t bits = GetParam();
  SimhashOptions o;
  o.bits = bits;
  SimhashSketcher sk(o);
  SimhashScratch scratch;
  const SketchFn right = [&](const std::vector<uint64_t>& terms) {
    std::vector<uint64_t> out(bits / 64);
    EXPECT_TRUE(sk.Sketch(terms, &scratch, out.data()));
    return out;
  };
  // A wrong projection: the page's term *set* (Algorithm C counts every
  // occurrence; this one sketches the distinct terms only).
  const SketchFn set_only = [&](std::vector<uint64_t> terms) {
    std::sort(terms.begin(), terms.end());
    terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
    return right(terms);
  };
  const std::vector<Pair> pairs = MakePairs(24000 / bits * 10, 7);
  // Standard error of a range's mean: about sqrt(0.25 / (pairs * bits))
  // < 0.004 when independent; allow 0.02 (a few hundred pairs per range).
  const double kTolerance = 0.02;
  const std::map<int, double> err = AgreementError(pairs, right, bits);
  ASSERT_GE(err.size(), 3u);
  for (const auto& [bucket, e] : err) {
    EXPECT_LT(std::abs(e), kTolerance) << "theta range " << bucket << " bits " << bits;
  }
  int rejected = 0;
  for (const auto& [bucket, e] : AgreementError(pairs, set_only, bits)) {
    if (std::abs(e) > kTolerance) ++rejected;
  }
  EXPECT_GE(rejected, 2) << "the check cannot tell a frequency-blind projection";
}

INSTANTIATE_TEST_SUITE_P(Bits, SimhashTheoryTest, ::testing::Values(64u, 384u));

}  // namespace
}  // namespace neardup
