#if defined(__linux__)
#include <sched.h>
#endif

#include <algorithm>
#include <atomic>
#include <gtest/gtest.h>
#include <thread>

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

// The default thread count follows the CPUs the process may run on, not
// the machine's: bound to one CPU (as mpirun binds a rank to a core), one.
TEST(UsableCpusTest, FollowsTheAffinityMask) {
  const int all = UsableCpus();
  EXPECT_GE(all, 1);
  EXPECT_LE(all, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
#if defined(__linux__)
  cpu_set_t before;
  CPU_ZERO(&before);
  ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
  int first = -1;
  for (int c = 0; c < CPU_SETSIZE && first < 0; ++c) {
    if (CPU_ISSET(c, &before)) first = c;
  }
  ASSERT_GE(first, 0);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  EXPECT_EQ(UsableCpus(), 1);
  ASSERT_EQ(sched_setaffinity(0, sizeof before, &before), 0);
  EXPECT_EQ(UsableCpus(), all);
#endif
}

}  // namespace
}  // namespace neardup
