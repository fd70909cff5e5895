#include "sketch/simhash_kernels.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "sketch/simhash.h"

namespace neardup::sketch_internal {
namespace {

// The definition of SimhashCountFn, one bit at a time.
std::vector<uint32_t> ReferenceCounts(const std::vector<uint64_t>& hashes,
                                      const std::vector<uint64_t>& keys) {
  std::vector<uint32_t> counts(64 * keys.size(), 0);
  for (uint64_t h : hashes) {
    for (size_t w = 0; w < keys.size(); ++w) {
      const uint64_t r = ProjectionWord(h, keys[w]);
      for (int j = 0; j < 64; ++j) counts[64 * w + j] += (r >> j) & 1;
    }
  }
  return counts;
}

TEST(SimhashKernelsTest, PortableIsTheDefinition) {
  std::mt19937_64 rng(1);
  for (uint32_t words : {1u, 3u, 6u, 8u}) {
    for (size_t n : {0, 1, 254, 255, 256, 600}) {
      std::vector<uint64_t> hashes(n), keys(words);
      for (auto& h : hashes) h = rng();
      for (auto& k : keys) k = rng();
      std::vector<uint32_t> got(64 * words, 7);  // counts are added to
      SimhashCountPortable(hashes.data(), n, keys.data(), words, got.data());
      std::vector<uint32_t> want = ReferenceCounts(hashes, keys);
      for (auto& c : want) c += 7;
      ASSERT_EQ(got, want) << "words=" << words << " n=" << n;
    }
  }
}

TEST(SimhashKernelsTest, EveryKernelMatchesPortable) {
  const std::vector<const SimhashKernel*> kernels = SimhashKernels().Supported();
  ASSERT_FALSE(kernels.empty());
  EXPECT_STREQ(kernels.front()->name, "portable");
#if defined(NEARDUP_SKETCH_X86)
  EXPECT_STREQ(kernels.back()->name, CpuLevelName(DetectedCpuLevel()));
#endif
  std::mt19937_64 rng(2);
  // Sizes around the 8-term blocks and the 248 / 255-term flush periods,
  // and past 65535 terms (a byte or int16 counter that was never flushed
  // would wrap).
  for (uint32_t words = 1; words <= kMaxSimhashWords; ++words) {
    for (size_t n : {0, 1, 2, 7, 8, 9, 63, 247, 248, 249, 254, 255, 256, 496, 511, 1000, 70001}) {
      if (n == 70001 && words != 6) continue;
      std::vector<uint64_t> hashes(n), keys(words);
      for (auto& h : hashes) h = rng();
      // Repeated terms and extreme values.
      if (n > 8) {
        hashes[0] = 0;
        hashes[1] = UINT64_MAX;
        hashes[2] = hashes[3] = hashes[4] = rng();
      }
      if (n == 70001) {
        for (size_t s = 0; s < n; s += 2) hashes[s] = 42;  // one term 35001 times
      }
      for (auto& k : keys) k = rng();
      std::vector<uint32_t> want(64 * words, 0);
      SimhashCountPortable(hashes.data(), n, keys.data(), words, want.data());
      for (const SimhashKernel* k : kernels) {
        std::vector<uint32_t> got(64 * words, 0);
        k->count(hashes.data(), n, keys.data(), words, got.data());
        ASSERT_EQ(got, want) << k->name << " words=" << words << " n=" << n;
      }
    }
  }
}

TEST(SimhashKernelsTest, FindKernel) {
  EXPECT_NE(SimhashKernels().Find("portable"), nullptr);
  EXPECT_EQ(SimhashKernels().Find("sse9"), nullptr);
  EXPECT_NE(SimhashKernels().Find(SimhashKernels().Active().name), nullptr);
}

TEST(SimhashKernelsTest, SketchesIdenticalAcrossKernels) {
  std::mt19937_64 rng(3);
  std::vector<uint64_t> vocab(500);
  for (auto& v : vocab) v = rng();
  for (uint32_t bits : {64u, 128u, 384u, 512u}) {
    for (int doc = 0; doc < 20; ++doc) {
      std::vector<uint64_t> terms(1 + rng() % 3000);
      for (auto& t : terms) t = vocab[rng() % vocab.size()];
      std::vector<uint64_t> want(bits / 64);
      SimhashScratch scratch;
      for (const SimhashKernel* k : SimhashKernels().Supported()) {
        SimhashOptions o;
        o.bits = bits;
        o.kernel = k->name;
        ASSERT_TRUE(o.Validate().ok());
        SimhashSketcher sk(o);
        std::vector<uint64_t> got(bits / 64);
        ASSERT_TRUE(sk.Sketch(terms, &scratch, got.data()));
        if (k == SimhashKernels().Supported().front()) {
          want = got;
        } else {
          ASSERT_EQ(got, want) << k->name << " bits=" << bits;
        }
      }
    }
  }
}

}  // namespace
}  // namespace neardup::sketch_internal
