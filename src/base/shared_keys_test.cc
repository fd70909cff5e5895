// Copyright neardup authors. Licensed under Apache-2.0.
#include "base/shared_keys.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <utility>
#include <vector>

namespace neardup {
namespace {

using Entry = std::pair<uint64_t, uint32_t>;  // (key, page)

// On random tables with planted shared keys: every entry whose key another
// holds stays, in order, and few lone keys do.
TEST(SharedKeysTest, KeepsEveryEntryOfASharedKeyInOrderAndFewLoneOnes) {
  std::mt19937_64 rng(5);
  std::vector<uint64_t> bits;
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{17}, size_t{1000}, size_t{100000}}) {
    std::vector<Entry> table;
    for (size_t i = 0; i < n; ++i) {
      // A third of the entries repeat an earlier key.
      const bool repeat = !table.empty() && rng() % 3 == 0;
      table.emplace_back(repeat ? table[rng() % table.size()].first : rng(), static_cast<uint32_t>(i));
    }
    std::map<uint64_t, int> holders;
    for (const Entry& e : table) ++holders[e.first];
    std::vector<Entry> shared, lone;
    for (const Entry& e : table) (holders[e.first] > 1 ? shared : lone).push_back(e);
    std::vector<Entry> kept = table;
    KeepSharedKeys(&kept, [](const Entry& e) { return e.first; }, &bits);
    // The shared entries are a subsequence of what is kept, and the rest kept is lone.
    size_t s = 0, lone_kept = 0;
    for (const Entry& e : kept) {
      if (s < shared.size() && e == shared[s]) {
        ++s;
      } else {
        ASSERT_EQ(holders[e.first], 1) << n;
        ++lone_kept;
      }
    }
    EXPECT_EQ(s, shared.size()) << n;
    EXPECT_LE(lone_kept, lone.size() / 8 + 2) << n;
    for (size_t i = 1; i < kept.size(); ++i) ASSERT_LT(kept[i - 1].second, kept[i].second) << n;
  }
}

}  // namespace
}  // namespace neardup
