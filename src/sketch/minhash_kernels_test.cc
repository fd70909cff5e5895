#include "sketch/minhash_kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

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
