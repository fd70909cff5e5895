#include "base/cpu.h"

#include <gtest/gtest.h>

#include <string>

namespace neardup {
namespace {

struct FakeKernel {
  const char* name;
  CpuLevel level;
  int id;
};

constexpr FakeKernel kTable[] = {
    {"portable", CpuLevel::kPortable, 0},
    {"avx2", CpuLevel::kAvx2, 1},
    {"avx512", CpuLevel::kAvx512, 2},
};

TEST(CpuTest, LevelNames) {
  EXPECT_STREQ(CpuLevelName(CpuLevel::kPortable), "portable");
  EXPECT_STREQ(CpuLevelName(CpuLevel::kAvx2), "avx2");
  EXPECT_STREQ(CpuLevelName(CpuLevel::kAvx512), "avx512");
  EXPECT_EQ(DetectedCpuLevel(), DetectedCpuLevel());
}

TEST(CpuTest, SupportedFollowsTheLevel) {
  const KernelRegistry<FakeKernel> registry(kTable);
  EXPECT_EQ(registry.Supported(CpuLevel::kPortable).size(), 1u);
  EXPECT_EQ(registry.Supported(CpuLevel::kAvx2).size(), 2u);
  ASSERT_EQ(registry.Supported(CpuLevel::kAvx512).size(), 3u);
  EXPECT_STREQ(registry.Supported(CpuLevel::kAvx512).back()->name, "avx512");
  EXPECT_STREQ(registry.Supported().back()->name, CpuLevelName(DetectedCpuLevel()));
}

TEST(CpuTest, FindOnlyWhatTheCpuRuns) {
  const KernelRegistry<FakeKernel> registry(kTable);
  EXPECT_EQ(registry.Find("avx512", CpuLevel::kAvx2), nullptr);
  ASSERT_NE(registry.Find("avx2", CpuLevel::kAvx2), nullptr);
  EXPECT_EQ(registry.Find("avx2", CpuLevel::kAvx2)->id, 1);
  EXPECT_EQ(registry.Find("sse9", CpuLevel::kAvx512), nullptr);
  EXPECT_NE(registry.Find("portable"), nullptr);
}

TEST(CpuTest, ChooseBestUnlessForced) {
  const KernelRegistry<FakeKernel> registry(kTable);
  EXPECT_EQ(registry.Choose("", CpuLevel::kAvx512).id, 2);
  EXPECT_EQ(registry.Choose("", CpuLevel::kAvx2).id, 1);
  EXPECT_EQ(registry.Choose("", CpuLevel::kPortable).id, 0);
  EXPECT_EQ(registry.Choose("portable", CpuLevel::kAvx512).id, 0);
  EXPECT_EQ(registry.Choose("avx2", CpuLevel::kAvx512).id, 1);
  // Forcing a kernel the CPU lacks, or an unknown one, is ignored.
  EXPECT_EQ(registry.Choose("avx512", CpuLevel::kAvx2).id, 1);
  EXPECT_EQ(registry.Choose("sse9", CpuLevel::kAvx512).id, 2);
}

TEST(CpuTest, ActiveIsFixedAndHonoursTheForcedKernel) {
  const KernelRegistry<FakeKernel> registry(kTable);
  const FakeKernel& active = registry.Active();
  EXPECT_EQ(&active, &registry.Active());
  const char* forced = ForcedKernelName();
  EXPECT_EQ(&active, &registry.Choose(forced == nullptr ? "" : forced, DetectedCpuLevel()));
  // A forced name reaches registries whose Active() has not run yet.
  SetForcedKernelName("portable");
  const KernelRegistry<FakeKernel> later(kTable);
  EXPECT_EQ(later.Active().id, 0);
  SetForcedKernelName(forced);
}

}  // namespace
}  // namespace neardup
