// Copyright neardup authors. Licensed under Apache-2.0.
#include "sketch/shingle_kernels.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "fingerprint/rabin.h"
#include "sketch/broder.h"

namespace neardup {
namespace {

using sketch_internal::ShingleKernel;
using sketch_internal::ShingleKernels;

// Polynomial long division of x^128 by x^64 + p_low, bit by bit on three
// words: an independent statement of Barrett's constant.
uint64_t QuotientOfX128(uint64_t p_low) {
  uint64_t r[3] = {0, 0, 1};  // bits 0-63, 64-127, 128
  uint64_t q[2] = {0, 0};
  for (int bit = 128; bit >= 64; --bit) {
    if (!((r[bit / 64] >> (bit % 64)) & 1)) continue;
    const int shift = bit - 64;  // subtract (x^64 + p_low) x^shift
    q[shift / 64] |= uint64_t{1} << (shift % 64);
    r[bit / 64] ^= uint64_t{1} << (bit % 64);
    r[shift / 64] ^= p_low << (shift % 64);
    if (shift % 64 != 0) r[shift / 64 + 1] ^= p_low >> (64 - shift % 64);
  }
  EXPECT_EQ(q[1], 1u);  // the x^64 term
  return q[0];
}

TEST(ShingleKernelsTest, BarrettConstantIsTheQuotient) {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 200; ++i) {
    const uint64_t p = i < 100 ? DrawIrreduciblePolynomial(rng()) : rng();
    EXPECT_EQ(sketch_internal::BarrettMuLow(p), QuotientOfX128(p)) << std::hex << p;
  }
}

TEST(ShingleKernelsTest, PortableIsFirstAndAvx2IsThereOnX86) {
  const auto all = ShingleKernels().Supported(CpuLevel::kAvx512);
  ASSERT_FALSE(all.empty());
  EXPECT_STREQ(all.front()->name, "portable");
#if defined(NEARDUP_SKETCH_X86)
  EXPECT_NE(ShingleKernels().Find("avx2", CpuLevel::kAvx2), nullptr);
  EXPECT_EQ(ShingleKernels().Find("avx2", CpuLevel::kPortable), nullptr);
#endif
}

// Every kernel this CPU runs gives the portable kernel's fingerprints, bit
// for bit, for every k, wrap or not, and lengths around the four-chain
// split, over many polynomials.
TEST(ShingleKernelsTest, EveryKernelGivesThePortableFingerprints) {
  const auto kernels = ShingleKernels().Supported();
  const ShingleKernel& portable = *kernels.front();
  std::mt19937_64 rng(11);
  std::vector<uint64_t> expected, got;
  for (uint32_t k : {1u, 2u, 3u, 5u, 8u, 17u, 64u}) {
    for (bool wrap : {true, false}) {
      for (uint64_t seed = 0; seed < 6; ++seed) {
        BroderOptions o;
        o.shingle_size = k;
        o.wrap = wrap;
        o.seed = seed * 1000 + k;
        const BroderSketcher sk(o);
        for (size_t n = 0; n <= 300; n += (n < 80 ? 1 : 37)) {
          std::vector<uint64_t> terms(n);
          for (uint64_t& t : terms) t = rng();
          if (n % 7 == 3 && n > 0) terms[n / 2] = 0;  // zero and all-ones terms too
          if (n % 11 == 5 && n > 0) terms[0] = ~uint64_t{0};
          sk.ShinglesWith(portable, terms, &expected);
          for (const ShingleKernel* kernel : kernels) {
            sk.ShinglesWith(*kernel, terms, &got);
            ASSERT_EQ(got, expected) << kernel->name << " k=" << k << " wrap=" << wrap << " n=" << n;
          }
        }
      }
    }
  }
}

// Shingles() runs the process's kernel; it matches every kernel too.
TEST(ShingleKernelsTest, ShinglesRunsTheActiveKernel) {
  const BroderSketcher sk{BroderOptions{}};
  std::mt19937_64 rng(5);
  std::vector<uint64_t> terms(1000);
  for (uint64_t& t : terms) t = rng();
  std::vector<uint64_t> a, b;
  sk.Shingles(terms, &a);
  sk.ShinglesWith(ShingleKernels().Active(), terms, &b);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.size(), terms.size());
}

}  // namespace
}  // namespace neardup
