// Copyright neardup authors. Licensed under Apache-2.0.
//
// Tests of BuildSyntheticWeb: the link-graph walk on a hand-made graph, the
// date format, and the truth of a small web built from the sample crawl
// checked against the crawls' own records.
#include "synth/web.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "neardup/source.h"
#include "synth/synth.h"
#include "test_util.h"

namespace neardup {
namespace {

using synth_internal::IsoTime;
using synth_internal::ReachableFrom;

TEST(SynthWebTest, ReachableFromFollowsLinksBreadthFirst) {
  // a -> b -> c; d -> a (nothing links d); e links to a page not in the
  // crawl. From a: {a, b, c}; d and e are unreachable.
  const std::map<std::string, std::vector<std::string>> links = {
      {"a", {"b"}}, {"b", {"c", "a"}}, {"c", {}}, {"d", {"a"}}, {"e", {"zz"}}};
  EXPECT_EQ(ReachableFrom(links, {"a"}), (std::set<std::string>{"a", "b", "c"}));
  EXPECT_EQ(ReachableFrom(links, {"d", "e"}), (std::set<std::string>{"a", "b", "c", "d", "e"}));
  EXPECT_TRUE(ReachableFrom(links, {"missing"}).empty());
}

TEST(SynthWebTest, IsoTime) {
  EXPECT_EQ(IsoTime(0), "1970-01-01T00:00:00Z");
  // 2026-01-05 is day 20458 since the epoch (56 years, 14 leap days: 20454
  // days to 2026-01-01, plus 4).
  EXPECT_EQ(IsoTime(20458LL * 86400 + 3661), "2026-01-05T01:01:01Z");
  EXPECT_EQ(IsoTime(951782400), "2000-02-29T00:00:00Z");
}

TEST(SynthWebTest, ValidateNamesTheField) {
  SynthWebOptions o;
  EXPECT_NE(o.Validate().message().find("inputs"), std::string::npos);
  o.inputs = {"x"};
  EXPECT_NE(o.Validate().message().find("out_dir"), std::string::npos);
  o.out_dir = "d";
  o.crawls = 0;
  EXPECT_NE(o.Validate().message().find("crawls"), std::string::npos);
  o.crawls = 2;
  o.hosts = 1;
  EXPECT_NE(o.Validate().message().find("hosts"), std::string::npos);
  o.hosts = 4;
  EXPECT_TRUE(o.Validate().ok());
}

TEST(SynthWebTest, NoPoolIsNotFound) {
  const std::string dir = testing::MakeTempDir("synth-web-nopool");
  SynthWebOptions o;
  o.inputs = {dir + "/missing.warc.gz"};
  o.out_dir = dir + "/out";
  auto r = BuildSyntheticWeb(o, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNotFound()) << r.status().message();
  std::filesystem::remove_all(dir);
}

TEST(SynthWebTest, TruthMatchesTheCrawlsAndIsDeterministic) {
  const std::string dir = testing::MakeTempDir("synth-web");
  SynthWebOptions o;
  o.inputs = {testing::RepoTestDataDir() + "/sample/sample-crawl.warc.gz"};
  o.out_dir = dir + "/a";
  o.crawls = 3;
  o.hosts = 6;
  o.seed = 7;
  auto r = BuildSyntheticWeb(o, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const SynthWebSummary& s = r.value();
  ASSERT_EQ(s.crawl_paths.size(), 3u);
  EXPECT_EQ(s.seed_url, "http://www.site0.example/");
  EXPECT_GE(s.orphan_hosts, 1u);
  EXPECT_GE(s.alias_hosts, 1u);
  EXPECT_GE(s.mirror_hosts, 1u);

  // Every truth line names a record of its crawl, and nothing else is there.
  const auto rows = testing::ReadTsvRows(s.truth_path);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows[0], (std::vector<std::string>{"crawl", "url", "group", "reachable", "change", "kind"}));
  std::map<std::string, std::map<std::string, std::vector<std::string>>> truth;  // crawl -> url -> row
  for (size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), 6u);
    EXPECT_TRUE(truth[rows[i][0]].emplace(rows[i][1], rows[i]).second) << "duplicate url " << rows[i][1];
  }
  std::map<std::string, std::string> bytes_by_url_crawl1;
  for (uint32_t c = 1; c <= 3; ++c) {
    auto source = OpenDocumentSource({s.crawl_paths[c - 1]}, SourceOptions(), nullptr, nullptr);
    ASSERT_TRUE(source.ok());
    Document doc;
    std::set<std::string> urls;
    while (source.value()->Next(&doc)) {
      urls.insert(doc.url);
      if (c == 1) bytes_by_url_crawl1[doc.url] = doc.body;
    }
    EXPECT_EQ(urls.size(), truth[std::to_string(c)].size());
    EXPECT_EQ(urls.size(), s.pages[c - 1]);
    for (const auto& [url, row] : truth[std::to_string(c)]) EXPECT_TRUE(urls.count(url)) << url;
  }
  // Hand-checkable facts of the plan: the hub is reachable, host 1 is an
  // orphan host (nothing links it), aliases serve the same bytes as their
  // www host, and every page of crawl 1 is new.
  const auto& first = truth["1"];
  EXPECT_EQ(first.at("http://www.site0.example/")[3], "1");
  EXPECT_EQ(first.at("http://www.site1.example/")[3], "0");
  EXPECT_EQ(first.at("http://site1.example/")[5], "alias");
  EXPECT_EQ(bytes_by_url_crawl1.at("http://site1.example/"),
            bytes_by_url_crawl1.at("http://www.site1.example/"));
  size_t orphans = 0;
  for (const auto& [url, row] : first) {
    EXPECT_EQ(row[4], "new");
    if (row[5] == "orphan") {
      ++orphans;
      EXPECT_EQ(row[3], "0") << url;  // no link reaches an orphan page
    }
  }
  EXPECT_GE(orphans, 1u);
  EXPECT_LT(s.reachable[0], s.pages[0]);
  // Drift: later crawls hold changed, unchanged and new pages.
  EXPECT_GT(s.changes.at("unchanged"), 0u);
  EXPECT_GT(s.changes.at("small") + s.changes.at("large"), 0u);

  // Same options, same bytes.
  o.out_dir = dir + "/b";
  ASSERT_TRUE(BuildSyntheticWeb(o, nullptr).ok());
  for (const char* f : {"crawl-1.warc.gz", "crawl-3.warc.gz", "truth.tsv"}) {
    EXPECT_EQ(testing::ReadFileOrEmpty(dir + "/a/" + f), testing::ReadFileOrEmpty(dir + "/b/" + f)) << f;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace neardup
