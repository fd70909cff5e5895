// Copyright neardup authors. Licensed under Apache-2.0.
//
// Tests of the connected/disconnected study (Pereira, Baeza-Yates and
// Ziviani) on a hand-made 6-page web:
//   0 http://a.test/         -> 1, 2, 3
//   1 http://a.test/x        -> 0
//   2 http://a.test/y        -> 4
//   3 http://b.test/         -> 0, 4
//   4 http://b.test/z        -> (none)
//   5 http://c.test/orphan   -> 0      (no page links it)
// Clusters: {1, 5} (same page), {2, 4} (same text); 0 and 3 unique.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "crawls/crawls_internal.h"
#include "crawls/crawls.h"
#include "test_util.h"

namespace neardup {
namespace {

crawls_internal::LinkGraph SixPages() {
  crawls_internal::LinkGraph g;
  g.urls = {"http://a.test/", "http://a.test/x", "http://a.test/y",
            "http://b.test/", "http://b.test/z", "http://c.test/orphan"};
  g.out = {{1, 2, 3}, {0}, {4}, {0, 4}, {}, {0}};
  return g;
}

TEST(ConnectedTest, BreadthFirstDepthsAndDefaultSeed) {
  const auto g = SixPages();
  // a.test/ is linked from b.test and c.test (2 hosts), b.test/ from a.test
  // only: the default seed is page 0.
  EXPECT_EQ(crawls_internal::DefaultSeed(g), 0u);
  EXPECT_EQ(crawls_internal::BreadthFirstDepths(g, {0}),
            (std::vector<int64_t>{0, 1, 1, 1, 2, -1}));
  // From the orphan everything is reached, one link further.
  EXPECT_EQ(crawls_internal::BreadthFirstDepths(g, {5}),
            (std::vector<int64_t>{1, 2, 2, 2, 3, 0}));
  EXPECT_EQ(crawls_internal::BreadthFirstDepths(g, {}),
            (std::vector<int64_t>(6, -1)));
}

TEST(ConnectedTest, TablesFourToSixByHand) {
  const std::vector<uint64_t> cluster = {0, 1, 2, 3, 2, 1};
  const std::vector<bool> connected = {true, true, true, true, true, false};
  const auto t = crawls_internal::CountParts(cluster, connected);
  // Complete: 6 documents, clusters {1,5} {2,4}: 4 in clusters, 2 duplicates
  // (33.3%), unique 0 and 3, useful 2 + 2 = 4.
  EXPECT_EQ(t.complete.documents, 6u);
  EXPECT_EQ(t.complete.clusters, 2u);
  EXPECT_EQ(t.complete.documents_in_clusters, 4u);
  EXPECT_EQ(t.complete.duplicates, 2u);
  EXPECT_NEAR(t.complete.duplicate_percentage, 100.0 / 3, 1e-9);
  EXPECT_EQ(t.complete.unique, 2u);
  EXPECT_EQ(t.complete.useful, 4u);
  // Connected (0-4): {1,5} loses 5, so 1 is unique there; {2,4} stays.
  // 5 documents, 1 cluster, 1 duplicate (20%), unique 0, 1, 3: useful 4.
  EXPECT_EQ(t.connected.documents, 5u);
  EXPECT_EQ(t.connected.clusters, 1u);
  EXPECT_EQ(t.connected.duplicates, 1u);
  EXPECT_NEAR(t.connected.duplicate_percentage, 20.0, 1e-9);
  EXPECT_EQ(t.connected.unique, 3u);
  EXPECT_EQ(t.connected.useful, 4u);
  // Disconnected (5): one unique document.
  EXPECT_EQ(t.disconnected.documents, 1u);
  EXPECT_EQ(t.disconnected.clusters, 0u);
  EXPECT_EQ(t.disconnected.duplicates, 0u);
  EXPECT_EQ(t.disconnected.unique, 1u);
  // Table 5: both complete clusters have a connected page; Table 6: both
  // unique pages (0, 3) are connected; useful found: 2 + 2 = 4 of 4.
  EXPECT_EQ(t.clusters_with_connected_document, 2u);
  EXPECT_EQ(t.unique_in_connected, 2u);
  EXPECT_EQ(t.useful_in_connected, 4u);
}

std::string Page(const std::vector<std::string>& links, const std::string& text) {
  std::string html = "<html><body><p>" + text + "</p>";
  for (const std::string& l : links) html += "<a href=\"" + l + "\"></a>";
  return html + "</body></html>";
}

TEST(ConnectedTest, RunConnectedOnTheSixPages) {
  const std::string dir = testing::MakeTempDir("crawls-connected");
  // Relative and absolute links; pages 1 and 5 are byte-identical, 2 and 4
  // hold the same terms (their links carry no text).
  const std::string same = "the same page about rivers and stones and gardens and windows";
  const std::string jsonl =
      testing::JsonLine("http://a.test/", "html", Page({"/x", "y", "http://B.test:80/"}, "home of a with its own words")) +
      testing::JsonLine("http://a.test/x", "html", Page({"http://a.test/"}, same)) +
      testing::JsonLine("http://a.test/y", "html", Page({"http://b.test/z#top"}, "twin text of y and z here")) +
      testing::JsonLine("http://b.test/", "html", Page({"http://a.test/", "/z", "http://elsewhere.test/"}, "home of b entirely different")) +
      testing::JsonLine("http://b.test/z", "html", Page({}, "twin text of y and z here")) +
      testing::JsonLine("http://c.test/orphan", "html", Page({"http://a.test/"}, same));
  testing::WriteFileOrDie(dir + "/crawl.jsonl", jsonl);
  ConnectedOptions o;
  o.inputs = {dir + "/crawl.jsonl"};
  o.out_dir = dir + "/out";
  o.dedup.method = "exact";
  auto r = RunConnected(o, nullptr, nullptr, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const ConnectedSummary& s = r.value();
  EXPECT_EQ(s.seed_urls, (std::vector<std::string>{"http://a.test/"}));
  EXPECT_EQ(s.documents, 6u);
  EXPECT_EQ(s.links, 8u);          // the eight edges of the graph above
  EXPECT_EQ(s.links_outside, 1u);  // elsewhere.test
  EXPECT_EQ(s.max_depth, 2u);
  EXPECT_EQ(s.complete.duplicates, 2u);
  EXPECT_EQ(s.connected.duplicates, 1u);
  EXPECT_EQ(s.disconnected.documents, 1u);
  EXPECT_EQ(s.clusters_with_connected_document, 2u);
  EXPECT_EQ(s.unique_in_connected, 2u);
  const auto rows = testing::ReadTsvRows(s.tsv_path);
  ASSERT_EQ(rows.size(), 7u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"url", "connected", "depth", "cluster"}));
  const std::vector<std::string> depth = {"0", "1", "1", "1", "2", "-1"};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(rows[i + 1][1], i == 5 ? "0" : "1") << rows[i + 1][0];
    EXPECT_EQ(rows[i + 1][2], depth[i]) << rows[i + 1][0];
  }
  EXPECT_EQ(rows[2][3], rows[6][3]);  // x and the orphan: one cluster
  EXPECT_EQ(rows[3][3], rows[5][3]);  // y and z
  EXPECT_NE(rows[1][3], rows[4][3]);
  EXPECT_NE(testing::ReadFileOrEmpty(s.html_path).find("Table 4"), std::string::npos);

  // Seeded at the orphan, all six are connected; a seed the crawl lacks is
  // counted. Clusters read back from the first run's dedup folder.
  o.seed_urls = {"http://c.test/orphan", "http://nowhere.test/"};
  o.dedup_dir = dir + "/out/dedup";
  o.out_dir = dir + "/out2";
  auto r2 = RunConnected(o, nullptr, nullptr, nullptr);
  ASSERT_TRUE(r2.ok()) << r2.status().message();
  EXPECT_EQ(r2.value().connected.documents, 6u);
  EXPECT_EQ(r2.value().seeds_not_found, 1u);
  EXPECT_EQ(r2.value().complete.duplicates, 2u);
  EXPECT_EQ(r2.value().unmatched_documents, 0u);
  // The crawl again, as a deduplicating crawler wrote it: a revisit record
  // of y right after it (y captured again: left out) and one at another
  // URL naming z's payload (a document of its own, in z's cluster).
  std::string with_revisits;
  for (size_t start = 0, line = 0; start < jsonl.size(); ++line) {
    const size_t end = jsonl.find('\n', start) + 1;
    with_revisits += jsonl.substr(start, end - start);
    if (line == 2) with_revisits += R"({"url": "http://a.test/y", "revisit_of": "http://a.test/y"})" "\n";
    start = end;
  }
  with_revisits += R"({"url": "http://d.test/copy", "revisit_of": "http://b.test/z"})" "\n";
  testing::WriteFileOrDie(dir + "/revisits.jsonl", with_revisits);
  o.inputs = {dir + "/revisits.jsonl"};
  o.seed_urls.clear();
  o.dedup_dir.clear();
  o.out_dir = dir + "/out3";
  auto r3 = RunConnected(o, nullptr, nullptr, nullptr);
  ASSERT_TRUE(r3.ok()) << r3.status().message();
  const ConnectedSummary& s3 = r3.value();
  EXPECT_EQ(s3.revisits_left_out, 1u);
  EXPECT_EQ(s3.documents, 7u);
  EXPECT_EQ(s3.unmatched_documents, 0u);
  EXPECT_EQ(s3.complete.duplicates, 3u);  // d.test/copy beside y and z
  const auto rows3 = testing::ReadTsvRows(s3.tsv_path);
  ASSERT_EQ(rows3.size(), 8u);
  EXPECT_EQ(rows3[4][0], "http://b.test/");  // the revisit of y is not listed
  EXPECT_NE(rows3[4][3], rows3[3][3]);       // b's home is its own cluster, not y's
  EXPECT_EQ(rows3[7][0], "http://d.test/copy");
  EXPECT_EQ(rows3[7][3], rows3[5][3]);  // in z's cluster
  // A dedup folder without clusters.tsv is NotFound.
  o.dedup_dir = dir + "/nothing";
  EXPECT_TRUE(RunConnected(o, nullptr, nullptr, nullptr).status().IsNotFound());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace neardup
