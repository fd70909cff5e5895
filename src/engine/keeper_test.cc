#include "engine/keeper.h"

#include <gtest/gtest.h>

#include <random>
#include <tuple>

namespace neardup {
namespace {

TEST(KeeperTest, ParsesFetchTimes) {
  // Expected values computed independently (Python calendar.timegm).
  EXPECT_EQ(ParseFetchTime("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(ParseFetchTime("2024-01-01T00:00:00Z"), 1704067200);
  EXPECT_EQ(ParseFetchTime("1999-12-31T23:59:59.123Z"), 946684799);
  EXPECT_EQ(ParseFetchTime("20080430204825"), 1209588505);  // ARC date
  EXPECT_EQ(ParseFetchTime("2024-01-01"), 1704067200);
  EXPECT_EQ(ParseFetchTime(""), INT64_MAX);
  EXPECT_EQ(ParseFetchTime("yesterday"), INT64_MAX);
  EXPECT_EQ(ParseFetchTime("2024-13-01T00:00:00Z"), INT64_MAX);
}

TEST(KeeperTest, FeaturesOfDocuments) {
  Document d;
  d.url = "http://example.com/a?b=1";
  d.http_status = 404;
  d.fetch_date = "2024-01-01T00:00:00Z";
  KeeperFeatures f = KeeperFeatures::Of(d);
  EXPECT_EQ(f.dynamic_url, 1);
  EXPECT_EQ(f.http_status, 404);
  EXPECT_EQ(f.url_length, d.url.size());
  EXPECT_EQ(f.fetch_time, 1704067200);
  d.url = "http://example.com/page;jsessionid=ABC";
  EXPECT_EQ(KeeperFeatures::Of(d).dynamic_url, 1);
  d.url = "http://example.com/page.html";
  EXPECT_EQ(KeeperFeatures::Of(d).dynamic_url, 0);
}

TEST(KeeperTest, RulesDecideInOrderAndNameTheDecidingRule) {
  KeeperOptions o;
  std::vector<KeeperFeatures> f(4);
  f[0] = {100, 1, 30, 404, 0, 0};  // error page
  f[1] = {200, 2, 40, 200, 1, 0};  // dynamic URL
  f[2] = {300, 3, 35, 200, 0, 0};  // static, longer
  f[3] = {50, 4, 25, 200, 0, 0};   // static, shortest, earliest: the keeper
  std::vector<uint32_t> group = {0, 0, 0, 0}, keeper(4);
  std::vector<uint8_t> reason(4);
  ChooseKeepers(group, f, o, &keeper, &reason);
  for (uint32_t k : keeper) EXPECT_EQ(k, 3u);
  EXPECT_EQ(ReasonName(reason[0], o), "shorter-url");  // runner-up is page 2
  // Without the shorter-url rule the earlier fetch decides.
  f[2].fetch_time = 10;
  auto o2 = KeeperOptions::Parse("status,static-url,earlier-fetch");
  ASSERT_TRUE(o2.ok());
  ChooseKeepers(group, f, o2.value(), &keeper, &reason);
  EXPECT_EQ(keeper[0], 2u);
  EXPECT_EQ(ReasonName(reason[0], o2.value()), "earlier-fetch");
  // Status first: the 2xx page wins over the earlier error page.
  f[0].fetch_time = 1;
  ChooseKeepers(group, f, o2.value(), &keeper, &reason);
  EXPECT_EQ(keeper[0], 2u);
  // A lone page.
  std::vector<uint32_t> lone = {0, kNoGroup, kNoGroup, kNoGroup};
  ChooseKeepers(lone, f, o, &keeper, &reason);
  EXPECT_EQ(keeper[0], 0u);
  EXPECT_EQ(ReasonName(reason[0], o), "single");
}

// Features drawn from few values, so that every rule decides some ties.
KeeperFeatures RandomFeatures(std::mt19937& rng) {
  return {static_cast<int64_t>(rng() % 3), static_cast<uint64_t>(rng() % 3), static_cast<uint32_t>(10 + rng() % 3),
          static_cast<uint16_t>(rng() % 2 ? 200 : 404), static_cast<uint8_t>(rng() % 2), 0};
}

TEST(KeeperTest, MatchesLexicographicMinimumOnRandomGroups) {
  std::mt19937 rng(4);
  KeeperOptions o;
  for (int round = 0; round < 50; ++round) {
    const uint32_t n = 1 + rng() % 60;
    std::vector<KeeperFeatures> f(n);
    std::vector<uint32_t> group(n), keeper(n);
    std::vector<uint8_t> reason(n);
    for (uint32_t i = 0; i < n; ++i) {
      f[i] = RandomFeatures(rng);
      group[i] = rng() % 4;
      if (group[i] >= n) group[i] = 0;
    }
    ChooseKeepers(group, f, o, &keeper, &reason);
    auto key = [&](uint32_t i) {
      return std::make_tuple(f[i].http_status == 200 ? 0 : 2, f[i].dynamic_url, f[i].url_length,
                             f[i].fetch_time, f[i].url_hash, i);
    };
    for (uint32_t i = 0; i < n; ++i) {
      uint32_t best = i;
      for (uint32_t j = 0; j < n; ++j) {
        if (group[j] == group[i] && key(j) < key(best)) best = j;
      }
      ASSERT_EQ(keeper[i], best);
    }
  }
}

// Features read a block at a time (a run whose features are spilled)
// choose what the whole vector chooses, whatever the blocks' size, with
// the same deciding rule; an error reading them is returned.
TEST(KeeperTest, FeaturesInBlocksChooseAsTheWholeVector) {
  std::mt19937 rng(11);
  KeeperOptions o;
  for (int round = 0; round < 40; ++round) {
    const uint32_t n = 1 + rng() % 200;
    std::vector<KeeperFeatures> f(n);
    std::vector<uint32_t> group(n);
    for (uint32_t i = 0; i < n; ++i) {
      f[i] = RandomFeatures(rng);
      // Group ids are members' numbers; some pages in no group.
      group[i] = rng() % 5 == 0 ? kNoGroup : static_cast<uint32_t>(rng() % std::min<uint32_t>(n, 7));
    }
    std::vector<uint32_t> keeper(n, 12345), blocked_keeper(n, 12345);
    std::vector<uint8_t> reason(n, 77), blocked_reason(n, 77);
    ChooseKeepers(group, f, o, &keeper, &reason);
    const uint32_t block = 1 + rng() % 16;
    uint32_t calls = 0;
    const Status st = ChooseKeepers(
        group,
        [&](const KeeperFeatureVisitor& fn) {
          for (uint32_t from = 0; from < n; from += block) {
            const uint32_t to = std::min(n, from + block);
            const std::vector<KeeperFeatures> copy(f.begin() + from, f.begin() + to);  // not the whole vector
            fn(from, to, copy.data());
            ++calls;
          }
          return Status::OK();
        },
        o, &blocked_keeper, &blocked_reason);
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(calls, (n + block - 1) / block);
    EXPECT_EQ(blocked_keeper, keeper);
    EXPECT_EQ(blocked_reason, reason);
  }
  std::vector<uint32_t> group = {0, 0}, keeper(2);
  std::vector<uint8_t> reason(2);
  const Status failed = ChooseKeepers(
      group, [](const KeeperFeatureVisitor&) { return Status::IOError("cannot read the features"); }, o, &keeper,
      &reason);
  EXPECT_FALSE(failed.ok());
}

TEST(KeeperTest, ParseRejectsUnknownRules) {
  auto r = KeeperOptions::Parse("status,biggest");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("shorter-url"), std::string::npos);
  EXPECT_FALSE(KeeperOptions::Parse("status,status").ok());
  EXPECT_EQ(KeeperOptions().Spec(),
            "status,static-url,shorter-url,earlier-fetch,url-hash,input-order");
  EXPECT_FALSE(KeeperOptions().uses(KeeperRule::kInLinks));
  EXPECT_TRUE(KeeperOptions::Parse("in-links,input-order").value().uses(KeeperRule::kInLinks));
  EXPECT_FALSE(KeeperOptions::Parse("status,shorter-url").value().uses(KeeperRule::kInLinks));
}

TEST(KeeperTest, MoreInLinksWinAndNameTheRule) {
  // Three pages, one group; same status, all static, the same URL length.
  std::vector<KeeperFeatures> f(3);
  for (auto& x : f) x.url_length = 20;
  std::vector<uint32_t> group = {0, 0, 0}, keeper(3), in_links = {1, 4, 2};
  std::vector<uint8_t> reason(3);
  const KeeperOptions o = KeeperOptions::Parse("status,static-url,in-links,shorter-url,input-order").value();
  ChooseKeepers(group, f, o, &keeper, &reason, &in_links);
  EXPECT_EQ(keeper, (std::vector<uint32_t>{1, 1, 1}));
  EXPECT_EQ(ReasonName(reason[0], o), "in-links");
  // Without counts the rule is skipped: input order decides.
  ChooseKeepers(group, f, o, &keeper, &reason, nullptr);
  EXPECT_EQ(keeper[0], 0u);
  EXPECT_EQ(ReasonName(reason[0], o), "input-order");
}

}  // namespace
}  // namespace neardup
