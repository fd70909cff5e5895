// Copyright neardup authors. Licensed under Apache-2.0.
//
// Seeded randomness for the benchmark builder (internal to apps/synth). Every
// draw goes through std::mt19937_64, whose output sequence the C++ standard
// fixes, and through the helpers below rather than the <random>
// distributions (whose algorithms differ between standard libraries), so a
// seed gives the same crawl with any compiler.
#ifndef NEARDUP_SYNTH_RANDOM_H_
#define NEARDUP_SYNTH_RANDOM_H_

#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "base/hash.h"

namespace neardup::synth_internal {

using neardup::SplitMix64;

class Random {
 public:
  // One independent stream per (seed, stream) pair.
  Random(uint64_t seed, uint64_t stream) : g_(SplitMix64(seed ^ SplitMix64(stream))) {}

  uint64_t Next() { return g_(); }
  // Uniform in [0, n). REQUIRES: n > 0.
  uint64_t Below(uint64_t n) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do {
      x = g_();
    } while (x >= limit);
    return x % n;
  }
  // Uniform in [lo, hi]. REQUIRES: lo <= hi.
  uint64_t Between(uint64_t lo, uint64_t hi) { return lo + Below(hi - lo + 1); }
  // Uniform in [0, 1).
  double Unit() { return static_cast<double>(g_() >> 11) * 0x1.0p-53; }
  bool Chance(double p) { return Unit() < p; }
  // A discrete Pareto variable: P(X >= k) = k^-alpha for k >= 1, capped.
  uint64_t Pareto(double alpha, uint64_t cap) {
    const double x = std::floor(std::pow(1.0 - Unit(), -1.0 / alpha));
    if (!(x < static_cast<double>(cap))) return cap;
    return x < 1 ? 1 : static_cast<uint64_t>(x);
  }
  // Index drawn with the given weights (need not sum to 1).
  size_t Weighted(const std::vector<double>& weights) {
    double total = 0;
    for (double w : weights) total += w;
    double u = Unit() * total;
    for (size_t i = 0; i < weights.size(); ++i) {
      if (u < weights[i]) return i;
      u -= weights[i];
    }
    return weights.size() - 1;
  }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[Below(v.size())];
  }
  template <size_t N>
  const char* Pick(const char* const (&v)[N]) {
    return v[Below(N)];
  }
  // Fisher-Yates.
  template <typename T>
  void Shuffle(std::vector<T>* v) {
    for (size_t i = v->size(); i > 1; --i) std::swap((*v)[i - 1], (*v)[Below(i)]);
  }

 private:
  std::mt19937_64 g_;
};

}  // namespace neardup::synth_internal

#endif  // NEARDUP_SYNTH_RANDOM_H_
