// The sample crawl kept in the repository: every copy that pages.tsv makes
// of a page lands in that page's cluster, the real upstream duplicates are
// found, and nothing else is clustered.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "neardup/engine.h"
#include "test_util.h"

namespace neardup {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> Split(const std::string& line) {
  std::vector<std::string> f;
  std::stringstream ss(line);
  std::string x;
  while (std::getline(ss, x, '\t')) f.push_back(x);
  return f;
}

TEST(SampleCrawlTest, CopiesClusterWithTheirOriginals) {
  const std::string sample = testing::RepoTestDataDir() + "/sample";
  const std::string out = testing::MakeTempDir("sample");
  auto r = RunDedup({sample + "/sample-crawl.warc.gz"}, out, DedupOptions(), nullptr, nullptr,
                    nullptr, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().ToString();

  // url -> cluster from clusters.tsv.
  std::map<std::string, std::string> cluster_of;
  std::ifstream tsv(out + "/clusters.tsv");
  std::string line;
  std::getline(tsv, line);
  while (std::getline(tsv, line)) {
    auto f = Split(line);
    ASSERT_GE(f.size(), 5u);
    cluster_of[f[0]] = f[1];
  }

  // Expected groups from the construction: urls made from the same file.
  std::map<std::string, std::vector<std::string>> by_file;
  std::set<std::string> documents;
  std::vector<std::pair<std::string, std::string>> redirects;  // (url, Location)
  std::ifstream pages(sample + "/pages.tsv");
  while (std::getline(pages, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto f = Split(line);
    const std::string& kind = f[2];
    if (kind == "page" || kind == "reformat" || kind == "notfound") by_file[f[1]].push_back(f[0]);
    if (kind != "request" && kind != "image") documents.insert(f[0]);
    if (kind == "redirect") redirects.emplace_back(f[0], f[3]);
  }
  EXPECT_EQ(r.value().documents, documents.size());
  EXPECT_EQ(cluster_of.size(), documents.size());
  // Known real duplicates upstream (SOURCES.md of the shared data): same text.
  std::vector<std::vector<std::string>> groups = {
      {"https://coolhunting.com/design/1", "https://coolhunting.com/design/2"},
      {"https://goose.example/articlebody/attribute", "https://goose.example/articlebody/itemprop",
       "https://goose.example/articlebody/tag"},
      // One BBC Chinese article captured twice, by newspaper's and by
      // python-goose's test suites (the same title and main text in two
      // versions of the site's template).
      {"https://news.example.cn/article", "https://bbc.co.uk/zhongwen/article"},
      // One CNN Arabic article captured twice, by the same two suites (the
      // same title and main text; the dates and "related stories" apart):
      // two of the three pages of their site, one item as titled.
      {"https://arabic.cnn.com/article", "https://arabic.cnn.com/middle-east/article"},
      // One Lifehacker article captured twice by mozilla/readability's test
      // suite, once with its comments loaded: the two pages of their site,
      // one text (the same title and article, comments and counters apart).
      {"https://lifehacker.com/post?comments=load", "https://lifehacker.com/post"}};
  for (const auto& [file, urls] : by_file) {
    if (urls.size() >= 2) groups.push_back(urls);
  }
  // A redirect to a page of the crawl is in that page's cluster (Zhu et
  // al.'s redirection-based duplicates); the sample's Locations are absolute.
  for (const auto& [url, target] : redirects) {
    if (!documents.count(target)) continue;
    bool placed = false;
    for (auto& g : groups) {
      if (std::find(g.begin(), g.end(), target) != g.end()) {
        g.push_back(url);
        placed = true;
        break;
      }
    }
    if (!placed) groups.push_back({target, url});
  }
  ASSERT_FALSE(redirects.empty()) << "the sample crawl holds a redirect to one of its pages";
  std::set<std::string> clustered;
  for (const auto& g : groups) {
    for (const auto& u : g) {
      ASSERT_TRUE(cluster_of.count(u)) << u;
      EXPECT_EQ(cluster_of[u], cluster_of[g[0]]) << u << " vs " << g[0];
      clustered.insert(u);
    }
  }
  EXPECT_EQ(r.value().clusters, groups.size());
  EXPECT_EQ(r.value().documents_in_clusters, clustered.size());
  // Skipped by design: warcinfo, request, the PNG.
  EXPECT_EQ(r.value().read.skipped.at("type:warcinfo"), 1u);
  EXPECT_EQ(r.value().read.skipped.at("type:request"), 1u);
  EXPECT_EQ(r.value().read.skipped.at("non-text"), 1u);
  EXPECT_EQ(r.value().warnings, 0u);
  fs::remove_all(out);
}

}  // namespace
}  // namespace neardup
