// Copyright neardup authors. Licensed under Apache-2.0.
#include "overlap/external_sort.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "neardup/env.h"
#include "test_util.h"

namespace neardup {
namespace {

// A record whose sort key is `key` only; `seq` is its input position, to
// check stability.
struct Item {
  uint32_t key;
  uint32_t seq;
};
struct ByKey {
  bool operator()(const Item& x, const Item& y) const { return x.key < y.key; }
};

class ExternalSortTest : public ::testing::Test {
 protected:

  void WriteItems(const std::string& path, const std::vector<Item>& items) {
    env_.AddFile(path, std::string(reinterpret_cast<const char*>(items.data()),
                                   items.size() * sizeof(Item)));
  }
  std::vector<Item> ReadItems(const std::string& path) {
    const std::string bytes = env_.GetContents(path).value();
    std::vector<Item> items(bytes.size() / sizeof(Item));
    if (!items.empty()) std::memcpy(items.data(), bytes.data(), items.size() * sizeof(Item));
    return items;
  }
  // Items with keys in [0, distinct): many duplicates.
  static std::vector<Item> RandomItems(size_t n, uint32_t distinct, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<Item> items(n);
    for (size_t i = 0; i < n; ++i) {
      items[i] = {static_cast<uint32_t>(rng() % distinct), static_cast<uint32_t>(i)};
    }
    return items;
  }
  // Sorted by key; equal keys in input order (seq increasing); every input
  // record exactly once (seq is a permutation of 0..n-1).
  static void ExpectStableSorted(const std::vector<Item>& out, const std::vector<Item>& in) {
    ASSERT_EQ(out.size(), in.size());
    std::vector<bool> seen(in.size(), false);
    for (size_t i = 0; i < out.size(); ++i) {
      ASSERT_LT(out[i].seq, in.size());
      ASSERT_FALSE(seen[out[i].seq]);
      seen[out[i].seq] = true;
      ASSERT_EQ(out[i].key, in[out[i].seq].key);
      if (i > 0) {
        ASSERT_LE(out[i - 1].key, out[i].key) << "at " << i;
        if (out[i - 1].key == out[i].key) {
          ASSERT_LT(out[i - 1].seq, out[i].seq) << "at " << i;
        }
      }
    }
  }

  const std::string dir_ = "overlap_xsort";
  const std::string temp_ = dir_ + "/tmp";
  MemEnv env_;
};

TEST_F(ExternalSortTest, InMemoryWhenItFits) {
  const std::vector<Item> in = RandomItems(5000, 100, 1);
  WriteItems(dir_ + "/in", in);
  ExternalSortStats stats;
  ASSERT_TRUE(ExternalSort<Item>(&env_, dir_ + "/in", dir_ + "/out", ByKey(), 64 << 20, temp_,
                                 &stats)
                  .ok());
  ExpectStableSorted(ReadItems(dir_ + "/out"), in);
  EXPECT_EQ(stats.records, 5000u);
  EXPECT_EQ(stats.runs, 0u);
  EXPECT_EQ(stats.spill_bytes, 0u);
  EXPECT_LE(stats.peak_buffer_bytes, 64u << 20);
}

TEST_F(ExternalSortTest, ManyRunsAndMergeLevelsStayStable) {
  // 1 MiB budget: the run buffer holds under 64 Ki items (half the budget
  // less the I/O block, stable scratch), so 1.2 M items make about 20 runs,
  // more than the fan-in of about 14 64-KiB blocks: one intermediate level.
  const std::vector<Item> in = RandomItems(1200000, 5000, 2);
  WriteItems(dir_ + "/in", in);
  ExternalSortStats stats;
  Status s = ExternalSort<Item>(&env_, dir_ + "/in", dir_ + "/out", ByKey(), 1 << 20, temp_,
                                &stats);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectStableSorted(ReadItems(dir_ + "/out"), in);
  EXPECT_GT(stats.runs, 14u);
  EXPECT_GE(stats.merge_levels, 1u);
  EXPECT_GT(stats.spill_bytes, in.size() * sizeof(Item));
  EXPECT_LE(stats.peak_buffer_bytes, 1u << 20);
  EXPECT_EQ(testing::CountFilesBelow(&env_, temp_), 0u);  // runs removed
}

TEST_F(ExternalSortTest, SortsInPlaceAndHandlesEmptyInput) {
  std::vector<Item> in = RandomItems(200000, 7, 3);
  WriteItems(dir_ + "/in", in);
  ASSERT_TRUE(
      ExternalSort<Item>(&env_, dir_ + "/in", dir_ + "/in", ByKey(), 1 << 20, temp_, nullptr).ok());
  ExpectStableSorted(ReadItems(dir_ + "/in"), in);

  WriteItems(dir_ + "/empty", {});
  ExternalSortStats stats;
  ASSERT_TRUE(ExternalSort<Item>(&env_, dir_ + "/empty", dir_ + "/out", ByKey(), 1 << 20, temp_,
                                 &stats)
                  .ok());
  EXPECT_TRUE(ReadItems(dir_ + "/out").empty());
  EXPECT_EQ(stats.records, 0u);
}

TEST_F(ExternalSortTest, Errors) {
  env_.AddFile(dir_ + "/odd", std::string(12, 'x'));  // 1.5 items of 8 bytes
  Status s = ExternalSort<Item>(&env_, dir_ + "/odd", dir_ + "/out", ByKey(), 1 << 20, temp_, nullptr);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("size 12"), std::string::npos);
  EXPECT_NE(s.message().find(dir_ + "/odd"), std::string::npos);
  EXPECT_FALSE(ExternalSort<Item>(&env_, dir_ + "/missing", dir_ + "/out", ByKey(), 1 << 20, temp_,
                                  nullptr)
                   .ok());
  EXPECT_TRUE(ExternalSort<Item>(&env_, dir_ + "/odd", dir_ + "/out", ByKey(), 1000, temp_, nullptr)
                  .IsInvalidArgument());
}

TEST_F(ExternalSortTest, WriteFailureRemovesRuns) {
  const std::vector<Item> in = RandomItems(300000, 1000, 4);
  WriteItems(dir_ + "/in", in);
  // The second spill append and every later one fail (a run already on
  // disk); then a second run that cannot be created, then one whose close
  // fails.
  for (const FaultRule& fault : {FaultRule{FileOp::kAppend, temp_ + "/", 1, 0},
                                 FaultRule{FileOp::kOpenWrite, temp_ + "/", 1, 1},
                                 FaultRule{FileOp::kClose, temp_ + "/", 1, 1}}) {
    env_.InjectFault(fault);
    Status s =
        ExternalSort<Item>(&env_, dir_ + "/in", dir_ + "/out", ByKey(), 1 << 20, temp_, nullptr);
    EXPECT_TRUE(s.IsIOError()) << FileOpName(fault.op) << ": " << s.ToString();
    EXPECT_NE(s.message().find(std::string("injected ") + FileOpName(fault.op)), std::string::npos)
        << s.ToString();
    EXPECT_EQ(testing::CountFilesBelow(&env_, temp_), 0u) << FileOpName(fault.op);
    env_.ClearFaults();
  }
}

TEST_F(ExternalSortTest, UnstableSorterGrowsThenSpills) {
  // uint64 keys through the streaming API: the buffer starts small, grows
  // by doubling while the budget allows, then spills runs.
  MemoryBudget budget(1 << 20);
  ExternalSortOptions options;
  options.memory_bytes = 1 << 20;
  options.temp_dir = temp_;
  options.stable = false;
  std::vector<uint64_t> in(400000);
  std::mt19937_64 rng(5);
  for (uint64_t& v : in) v = rng() % 100000;
  {
    ExternalSorter<uint64_t> sorter(&env_, options, &budget);
    ASSERT_TRUE(sorter.Add(std::span<const uint64_t>(in).first(1000)).ok());
    for (size_t i = 1000; i < in.size(); ++i) ASSERT_TRUE(sorter.Add(in[i]).ok());
    ASSERT_TRUE(sorter.Finish().ok());
    EXPECT_FALSE(sorter.in_memory());
    std::vector<uint64_t> out;
    uint64_t v;
    while (sorter.Next(&v)) out.push_back(v);
    ASSERT_TRUE(sorter.status().ok());
    std::sort(in.begin(), in.end());
    EXPECT_EQ(out, in);
    // 400000 keys * 8 bytes = 3.2 MB over runs of at most 1 MiB.
    EXPECT_GE(sorter.stats().runs, 4u);
    EXPECT_LE(budget.peak(), 1u << 20);
  }
  EXPECT_EQ(budget.used(), 0u);
  EXPECT_EQ(testing::CountFilesBelow(&env_, temp_), 0u);
}

TEST(StableSortWithScratchTest, MatchesStdStableSort) {
  std::mt19937_64 rng(6);
  for (size_t n : {0, 1, 2, 23, 24, 25, 100, 1000, 4097}) {
    std::vector<Item> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = {static_cast<uint32_t>(rng() % 10), static_cast<uint32_t>(i)};
    std::vector<Item> expected = v;
    std::stable_sort(expected.begin(), expected.end(), ByKey());
    std::vector<Item> scratch(n);
    internal::StableSortWithScratch(v.data(), scratch.data(), n, ByKey());
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(v[i].key, expected[i].key);
      ASSERT_EQ(v[i].seq, expected[i].seq);
    }
  }
}

}  // namespace
}  // namespace neardup
