// Copyright neardup authors. Licensed under Apache-2.0.
#include "base/flat_set.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace neardup {
namespace {

// The set agrees with std::set under random inserts, through growth, with
// the table's own empty marker as a key, and after Clear.
TEST(FlatU64SetTest, AgreesWithStdSet) {
  std::mt19937_64 rng(42);
  FlatU64Set flat;
  std::set<uint64_t> ref;
  for (int i = 0; i < 20000; ++i) {
    const uint64_t key = i % 3 == 0 ? rng() % 5000 : rng();
    EXPECT_EQ(flat.Insert(key), ref.insert(key).second);
  }
  EXPECT_EQ(flat.Insert(~uint64_t{0}), true);
  EXPECT_EQ(flat.Insert(~uint64_t{0}), false);
  ref.insert(~uint64_t{0});
  EXPECT_EQ(flat.size(), ref.size());
  for (uint64_t k : ref) EXPECT_TRUE(flat.Contains(k));
  for (int i = 0; i < 1000; ++i) {
    const uint64_t k = rng();
    EXPECT_EQ(flat.Contains(k), ref.count(k) != 0);
  }
  std::set<uint64_t> seen;
  flat.ForEach([&](uint64_t k) { EXPECT_TRUE(seen.insert(k).second); });
  EXPECT_EQ(seen, ref);
  flat.Clear();
  EXPECT_TRUE(flat.empty());
  EXPECT_FALSE(flat.Contains(*ref.begin()));
  EXPECT_FALSE(flat.Contains(~uint64_t{0}));
  EXPECT_TRUE(flat.Insert(7));
  EXPECT_TRUE(flat.Contains(7));
}

// Reserve(n) makes room for n keys at once: inserting them grows nothing,
// and the keys held before stay.
TEST(FlatU64SetTest, ReserveMakesRoomOnceAndKeepsTheKeys) {
  std::mt19937_64 rng(7);
  FlatU64Set flat;
  std::set<uint64_t> ref;
  for (int i = 0; i < 300; ++i) {
    const uint64_t k = rng();
    flat.Insert(k);
    ref.insert(k);
  }
  flat.Reserve(ref.size() + 10000);
  const size_t room = flat.capacity();
  EXPECT_GE(room, ref.size() + 10000);
  EXPECT_LT(room, 4 * (ref.size() + 10000));  // the smallest power of two that fits, not more
  for (uint64_t k : ref) EXPECT_TRUE(flat.Contains(k));
  for (int i = 0; i < 10000; ++i) {
    const uint64_t k = rng();
    EXPECT_EQ(flat.Insert(k), ref.insert(k).second);
  }
  EXPECT_EQ(flat.capacity(), room);
  EXPECT_EQ(flat.size(), ref.size());
  for (uint64_t k : ref) EXPECT_TRUE(flat.Contains(k));
  flat.Reserve(10);  // never shrinks
  EXPECT_EQ(flat.capacity(), room);
}


// A set allowed to fill its table to 75% agrees with std::set too, and
// holds the same keys in a table half the size of the default's where the
// default's would be at most 37.5% full.
TEST(FlatU64SetTest, FullerTableAgreesAndIsHalfTheSize) {
  std::mt19937_64 rng(9);
  FlatU64Set half, fuller(75);
  std::set<uint64_t> ref;
  for (int i = 0; i < 3000; ++i) {  // 3000 keys: 8192 slots at most half full, 4096 at 75%
    const uint64_t key = i % 4 == 0 ? rng() % 1000 : rng();
    const bool added = ref.insert(key).second;
    EXPECT_EQ(half.Insert(key), added);
    EXPECT_EQ(fuller.Insert(key), added);
  }
  for (uint64_t k : ref) EXPECT_TRUE(fuller.Contains(k));
  for (int i = 0; i < 2000; ++i) {
    const uint64_t k = rng();
    EXPECT_EQ(fuller.Contains(k), ref.count(k) != 0);
  }
  EXPECT_EQ(fuller.size(), ref.size());
  EXPECT_EQ(half.capacity(), 8192 / 2 - 1);
  EXPECT_EQ(fuller.capacity(), 8192 * 3 / 8 - 1);  // 4096 slots at 75%
  EXPECT_GE(fuller.capacity(), ref.size());
  fuller.Reserve(3100);  // past 3071: one doubling
  EXPECT_EQ(fuller.capacity(), 8192 * 3 / 4 - 1);
}

}  // namespace
}  // namespace neardup
