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

}  // namespace
}  // namespace neardup
