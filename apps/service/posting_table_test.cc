// Copyright neardup authors. Licensed under Apache-2.0.
#include "service/posting_table.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

namespace neardup {
namespace service {
namespace {

std::vector<uint64_t> ListOf(const PostingTable& t, uint64_t key) {
  std::vector<uint64_t> ids;
  t.Append(key, &ids);
  return ids;
}

TEST(PostingTableTest, ListsIdsInIncreasingOrder) {
  PostingTable t(10, /*mark_large=*/true);
  EXPECT_TRUE(ListOf(t, 7).empty());
  EXPECT_EQ(t.Add(7, 30), PostingTable::Added::kAdded);
  EXPECT_EQ(t.Add(7, 10), PostingTable::Added::kAdded);
  EXPECT_EQ(t.Add(7, 20), PostingTable::Added::kAdded);
  EXPECT_EQ(t.Add(7, 20), PostingTable::Added::kPresent);
  EXPECT_EQ(ListOf(t, 7), (std::vector<uint64_t>{10, 20, 30}));
  EXPECT_TRUE(t.Remove(7, 20));
  EXPECT_FALSE(t.Remove(7, 20));
  EXPECT_EQ(ListOf(t, 7), (std::vector<uint64_t>{10, 30}));
  EXPECT_TRUE(t.Remove(7, 10));
  EXPECT_TRUE(t.Remove(7, 30));
  EXPECT_TRUE(ListOf(t, 7).empty());
  EXPECT_EQ(t.keys(), 0u);
}

TEST(PostingTableTest, IdsPastThirtyOneBitsAreListed) {
  PostingTable t(4, true);
  const uint64_t big = uint64_t{1} << 40;
  EXPECT_EQ(t.Add(1, big), PostingTable::Added::kAdded);
  EXPECT_EQ(ListOf(t, 1), (std::vector<uint64_t>{big}));
  EXPECT_EQ(t.Add(1, 5), PostingTable::Added::kAdded);
  EXPECT_TRUE(t.Remove(1, 5));
  EXPECT_EQ(ListOf(t, 1), (std::vector<uint64_t>{big}));
  EXPECT_TRUE(t.Remove(1, big));
  EXPECT_EQ(t.keys(), 0u);
}

TEST(PostingTableTest, AListPastTheLimitBecomesALargeBucketAndStaysOne) {
  PostingTable t(3, /*mark_large=*/true);
  for (uint64_t id : {1, 2, 3}) EXPECT_EQ(t.Add(9, id), PostingTable::Added::kAdded);
  std::vector<uint64_t> dropped;
  EXPECT_EQ(t.Add(9, 4, &dropped), PostingTable::Added::kBecameLarge);
  EXPECT_EQ(dropped, (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_TRUE(t.IsLarge(9));
  EXPECT_TRUE(ListOf(t, 9).empty());
  EXPECT_FALSE(t.Remove(9, 1));
  EXPECT_EQ(t.Add(9, 5), PostingTable::Added::kLarge);
  // Undone, the key lists what it listed before.
  t.Restore(9, dropped);
  EXPECT_FALSE(t.IsLarge(9));
  EXPECT_EQ(ListOf(t, 9), (std::vector<uint64_t>{1, 2, 3}));
}

TEST(PostingTableTest, WithoutMarkingAFullListKeepsItsFirstIds) {
  PostingTable t(2, /*mark_large=*/false);
  EXPECT_EQ(t.Add(5, 1), PostingTable::Added::kAdded);
  EXPECT_EQ(t.Add(5, 2), PostingTable::Added::kAdded);
  EXPECT_EQ(t.Add(5, 3), PostingTable::Added::kFull);
  EXPECT_FALSE(t.IsLarge(5));
  EXPECT_EQ(ListOf(t, 5), (std::vector<uint64_t>{1, 2}));
}

TEST(PostingTableTest, SetLargeMarksAKeyNeverSeen) {
  PostingTable t(5, true);
  t.SetLarge(11);
  EXPECT_TRUE(t.IsLarge(11));
  EXPECT_EQ(t.Add(11, 1), PostingTable::Added::kLarge);
  EXPECT_FALSE(t.IsLarge(12));
}

// Against a model (a map of sets) through random adds and removes on many
// keys: the table grows many times and erases from the middle of probe
// runs, and must list exactly what the model lists.
TEST(PostingTableTest, MatchesAModelThroughGrowthAndErasure) {
  for (bool mark_large : {true, false}) {
    const size_t max_ids = 4;
    PostingTable t(max_ids, mark_large);
    std::map<uint64_t, std::set<uint64_t>> model;
    std::set<uint64_t> large;
    std::mt19937_64 rng(mark_large ? 1 : 2);
    for (int step = 0; step < 200000; ++step) {
      const uint64_t key = rng() % 20000 * 0x100000001ULL;  // keys that are not uniform in any bits
      const uint64_t id = rng() % 8;
      if (rng() % 3 != 0) {
        const PostingTable::Added a = t.Add(key, id);
        std::set<uint64_t>& ids = model[key];
        if (large.count(key) != 0) {
          ASSERT_EQ(a, PostingTable::Added::kLarge);
        } else if (ids.count(id) != 0) {
          ASSERT_EQ(a, PostingTable::Added::kPresent);
        } else if (ids.size() >= max_ids) {
          ASSERT_EQ(a, mark_large ? PostingTable::Added::kBecameLarge : PostingTable::Added::kFull);
          if (mark_large) {
            large.insert(key);
            ids.clear();
          }
        } else {
          ASSERT_EQ(a, PostingTable::Added::kAdded);
          ids.insert(id);
        }
      } else {
        const bool listed = large.count(key) == 0 && model[key].erase(id) != 0;
        ASSERT_EQ(t.Remove(key, id), listed) << "step " << step;
      }
    }
    size_t keys = 0;
    for (const auto& [key, ids] : model) {
      ASSERT_EQ(ListOf(t, key), std::vector<uint64_t>(ids.begin(), ids.end()));
      ASSERT_EQ(t.IsLarge(key), large.count(key) != 0);
      keys += !ids.empty() || large.count(key) != 0;
    }
    EXPECT_EQ(t.keys(), keys);
    EXPECT_GT(t.memory_bytes(), keys * 8);
  }
}

}  // namespace
}  // namespace service
}  // namespace neardup
