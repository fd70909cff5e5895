#include "sketch/minhash_kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "base/hash.h"
#include "sketch/broder.h"

namespace neardup::sketch_internal {
namespace {

TEST(MinHashKernelsTest, PortableIsTheDefinition) {
  std::mt19937_64 rng(2);
  const size_t m = 16;
  std::vector<uint64_t> ys(37), mul(m), xr(m);
  for (auto& y : ys) y = rng();
  for (size_t i = 0; i < m; ++i) {
    mul[i] = rng() | 1;
    xr[i] = rng();
  }
  std::vector<int64_t> mins(m, INT64_MAX);
  UpdateMinsPortable(ys.data(), ys.size(), mul.data(), xr.data(), m, mins.data());
  for (size_t i = 0; i < m; ++i) {
    int64_t best = INT64_MAX;
    for (uint64_t y : ys) best = std::min(best, static_cast<int64_t>((y ^ xr[i]) * mul[i]));
    EXPECT_EQ(mins[i], best);
  }
}

TEST(MinHashKernelsTest, EveryKernelMatchesPortable) {
  const std::vector<const MinHashKernel*> kernels = MinHashKernels().Supported();
  ASSERT_FALSE(kernels.empty());
  EXPECT_STREQ(kernels.front()->name, "portable");
#if defined(NEARDUP_SKETCH_X86)
  EXPECT_STREQ(kernels.back()->name, CpuLevelName(DetectedCpuLevel()));
#endif
  std::mt19937_64 rng(3);
  for (size_t m : {8, 16, 24, 88, 128, 136, 256}) {
    for (size_t n : {0, 1, 2, 3, 4, 5, 7, 8, 63, 513, 2000}) {
      std::vector<uint64_t> ys(n), mul(m), xr(m);
      for (auto& y : ys) y = rng();
      // Extreme values exercise the signed order and the 32-bit halves.
      if (n > 4) {
        ys[0] = 0;
        ys[1] = UINT64_MAX;
        ys[2] = uint64_t{1} << 63;
        ys[3] = 0xffffffffULL;
      }
      for (size_t i = 0; i < m; ++i) {
        mul[i] = (i % 5 == 0 ? rng() >> (rng() % 64) : rng()) | 1;
        xr[i] = i % 7 == 0 ? 0 : rng();
      }
      std::vector<int64_t> init(m);
      for (auto& v : init) v = rng() % 3 == 0 ? INT64_MAX : static_cast<int64_t>(rng());
      std::vector<int64_t> expected = init;
      UpdateMinsPortable(ys.data(), n, mul.data(), xr.data(), m, expected.data());
      for (const MinHashKernel* k : kernels) {
        std::vector<int64_t> got = init;
        k->update_mins(ys.data(), n, mul.data(), xr.data(), m, got.data());
        ASSERT_EQ(got, expected) << k->name << " m=" << m << " n=" << n;
      }
    }
  }
}

TEST(MinHashKernelsTest, Portable32IsTheDefinition) {
  std::mt19937_64 rng(5);
  const size_t m = 16;
  std::vector<uint64_t> ys(37);
  std::vector<uint32_t> mul(m), xr(m);
  for (auto& y : ys) y = rng();
  for (size_t i = 0; i < m; ++i) {
    mul[i] = static_cast<uint32_t>(rng()) | 1;
    xr[i] = static_cast<uint32_t>(rng());
  }
  std::vector<uint32_t> mins(m, UINT32_MAX);
  UpdateMins32Portable(ys.data(), ys.size(), mul.data(), xr.data(), m, mins.data());
  for (size_t i = 0; i < m; ++i) {
    uint64_t best = UINT32_MAX;
    // The low 32 bits of the 64-bit product of the low halves.
    for (uint64_t y : ys) best = std::min<uint64_t>(best, ((y & 0xffffffffULL) ^ xr[i]) * mul[i] & 0xffffffffULL);
    EXPECT_EQ(mins[i], best);
  }
}

TEST(MinHashKernelsTest, Every32BitKernelMatchesPortable) {
  const std::vector<const MinHashKernel*> kernels = MinHashKernels().Supported();
  std::mt19937_64 rng(6);
  for (size_t m : {16, 32, 48, 96, 112, 192, 208, 256}) {
    for (size_t n : {0, 1, 2, 3, 4, 5, 7, 8, 63, 513, 2000}) {
      std::vector<uint64_t> ys(n);
      std::vector<uint32_t> mul(m), xr(m);
      for (auto& y : ys) y = rng();
      // Extreme values: the high half must be ignored, the order unsigned.
      if (n > 4) {
        ys[0] = 0;
        ys[1] = UINT64_MAX;
        ys[2] = uint64_t{1} << 31;
        ys[3] = 0xffffffff00000000ULL;
      }
      for (size_t i = 0; i < m; ++i) {
        mul[i] = static_cast<uint32_t>(i % 5 == 0 ? rng() >> (rng() % 64) : rng()) | 1;
        xr[i] = i % 7 == 0 ? 0 : static_cast<uint32_t>(rng());
      }
      std::vector<uint32_t> init(m);
      for (auto& v : init) v = rng() % 3 == 0 ? UINT32_MAX : static_cast<uint32_t>(rng());
      std::vector<uint32_t> expected = init;
      UpdateMins32Portable(ys.data(), n, mul.data(), xr.data(), m, expected.data());
      for (const MinHashKernel* k : kernels) {
        std::vector<uint32_t> got = init;
        k->update_mins32(ys.data(), n, mul.data(), xr.data(), m, got.data());
        ASSERT_EQ(got, expected) << k->name << " m=" << m << " n=" << n;
      }
    }
  }
}

TEST(MinHashKernelsTest, MinValues32AreThePreImagesOfTheLeastLow32BitImages) {
  std::mt19937_64 rng(7);
  for (uint32_t m : {84u, 42u, 256u, 1u}) {
    BroderOptions o;
    o.num_minhashes = m;
    o.supershingle_size = m;
    for (const MinHashKernel* k : MinHashKernels().Supported()) {
      o.kernel = k->name;
      BroderSketcher sk(o);
      for (size_t n : {1, 2, 100, 511, 512, 513, 3000}) {
        std::vector<uint64_t> shingles(n);
        for (auto& s : shingles) s = rng();
        std::vector<uint32_t> got(m + 1, 7);
        ASSERT_TRUE(sk.MinValues32(shingles, got.data()));
        EXPECT_EQ(got[m], 7u) << "wrote past m";
        for (uint32_t i = 0; i < m; ++i) {
          uint32_t best = UINT32_MAX;
          uint64_t arg = 0;
          for (uint64_t x : shingles) {
            const uint32_t image = static_cast<uint32_t>(sk.TEST_Image(i, x));
            if (image < best) {
              best = image;
              arg = x;
            }
          }
          ASSERT_EQ(got[i], static_cast<uint32_t>(Fmix64(arg))) << k->name << " m=" << m << " n=" << n << " i=" << i;
          // The value's image is the least image: which of two documents'
          // values is the least over their union can be told from the values.
          ASSERT_EQ(sk.Image32(i, got[i]), best) << k->name << " m=" << m << " n=" << n << " i=" << i;
        }
        // Uniform values (the least images are all below about 2^32 / n):
        // about half of them have the top bit set.
        if (m >= 42 && n >= 100) {
          EXPECT_GE(std::count_if(got.begin(), got.begin() + m, [](uint32_t v) { return v >= (1u << 31); }), m / 4)
              << k->name << " m=" << m << " n=" << n;
        }
      }
      std::vector<uint32_t> untouched(m, 9);
      EXPECT_FALSE(sk.MinValues32({}, untouched.data()));
      EXPECT_EQ(untouched, std::vector<uint32_t>(m, 9));
    }
  }
}

TEST(MinHashKernelsTest, FindKernelAndActiveKernel) {
  EXPECT_NE(MinHashKernels().Find("portable"), nullptr);
  EXPECT_EQ(MinHashKernels().Find("sse9"), nullptr);
  const std::string active = BroderSketcher::KernelName();
  EXPECT_NE(MinHashKernels().Find(active), nullptr);
  const char* forced = ForcedKernelName();
  if (forced != nullptr && MinHashKernels().Find(forced) != nullptr) {
    EXPECT_EQ(active, forced);
  } else {
    EXPECT_EQ(active, MinHashKernels().Supported().back()->name);
  }
}

TEST(MinHashKernelsTest, SketchesAreIdenticalUnderEveryKernel) {
  BroderOptions bad;
  bad.kernel = "sse9";
  EXPECT_EQ(bad.Validate().code(), Status::Code::kNotSupported);
  std::mt19937_64 rng(4);
  for (uint32_t m : {84u, 256u, 16u}) {
    BroderOptions o;
    o.num_minhashes = m;
    o.supershingle_size = m / 4;
    o.kernel = "portable";
    BroderSketcher reference(o);
    EXPECT_STREQ(reference.kernel_name(), "portable");
    for (const MinHashKernel* k : MinHashKernels().Supported()) {
      o.kernel = k->name;
      BroderSketcher sk(o);
      EXPECT_STREQ(sk.kernel_name(), k->name);
      SketchScratch scratch;
      for (size_t n : {1, 5, 100, 511, 512, 513, 5000}) {
        std::vector<uint64_t> terms(n);
        for (auto& t : terms) t = rng();
        std::vector<uint64_t> ss(4), mh(m), ss_ref(4), mh_ref(m);
        ASSERT_TRUE(sk.Sketch(terms, &scratch, ss.data(), mh.data()));
        ASSERT_TRUE(reference.Sketch(terms, &scratch, ss_ref.data(), mh_ref.data()));
        ASSERT_EQ(mh, mh_ref) << k->name << " m=" << m << " n=" << n;
        ASSERT_EQ(ss, ss_ref) << k->name << " m=" << m << " n=" << n;
      }
    }
  }
}

}  // namespace
}  // namespace neardup::sketch_internal
