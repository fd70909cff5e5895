#include <atomic>
#include <gtest/gtest.h>

#include "neardup/executor.h"

namespace neardup {
namespace {

TEST(ThreadPoolTest, RunsEveryTaskBeforeDestruction) {
  std::atomic<int> sum{0};
  {
    auto pool = NewThreadPoolExecutor(3);
    EXPECT_EQ(pool->num_threads(), 3);
    for (int i = 1; i <= 1000; ++i) pool->Schedule([&sum, i] { sum += i; });
  }
  EXPECT_EQ(sum.load(), 500500);
}

TEST(ThreadPoolTest, ClampsToOneThread) {
  auto pool = NewThreadPoolExecutor(0);
  EXPECT_EQ(pool->num_threads(), 1);
}

}  // namespace
}  // namespace neardup
