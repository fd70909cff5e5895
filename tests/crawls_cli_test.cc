// Tests of `neardup synth-web`, `neardup evolve` and `neardup connected` on
// the command line: usage errors, a small synthetic web whose truth file
// says what the studies must find, and a real pair of crawls of one site
// taken 11 minutes apart.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace neardup {
namespace {

namespace fs = std::filesystem;
using testing::CliPath;
using testing::MakeTempDir;
using testing::Q;
using testing::ReadFileOrEmpty;
using testing::ReadTsvRows;
using testing::RepoTestDataDir;
using testing::RunCommand;

TEST(CrawlsCliTest, UsageErrorsExitTwo) {
  const std::string dir = MakeTempDir("crawls-cli-usage");
  std::string out;
  EXPECT_EQ(RunCommand(Q(CliPath()) + " evolve", &out), 2);
  EXPECT_EQ(RunCommand(Q(CliPath()) + " connected", &out), 2);
  EXPECT_EQ(RunCommand(Q(CliPath()) + " synth-web", &out), 2);
  // One crawl is not an evolution.
  EXPECT_EQ(RunCommand(Q(CliPath()) + " evolve a.warc.gz --out " + Q(dir + "/e"), &out), 2);
  EXPECT_NE(out.find("at least two crawls"), std::string::npos) << out;
  EXPECT_EQ(RunCommand(Q(CliPath()) + " synth-web x --out " + Q(dir) + " --hosts 1", &out), 2);
  EXPECT_NE(out.find("hosts"), std::string::npos) << out;
  // Missing crawls: exit 1 with a message, no crash.
  EXPECT_EQ(RunCommand(Q(CliPath()) + " evolve " + Q(dir + "/no1") + " " + Q(dir + "/no2") +
                           " --out " + Q(dir + "/e"),
                       &out),
            1);
  EXPECT_NE(out.find("not found"), std::string::npos) << out;
  EXPECT_EQ(RunCommand(Q(CliPath()) + " connected " + Q(dir + "/no.warc.gz") + " --out " + Q(dir + "/c"), &out), 1);
  fs::remove_all(dir);
}

// crawl -> url -> truth row (crawl, url, group, reachable, change, kind).
using Truth = std::map<std::string, std::map<std::string, std::vector<std::string>>>;

Truth ReadTruth(const std::string& path) {
  Truth truth;
  const auto rows = ReadTsvRows(path);
  for (size_t i = 1; i < rows.size(); ++i) {
    if (rows[i].size() == 6) truth[rows[i][0]][rows[i][1]] = rows[i];
  }
  return truth;
}

TEST(CrawlsCliTest, SyntheticWebThroughEvolveAndConnected) {
  const std::string dir = MakeTempDir("crawls-cli");
  const std::string web = dir + "/web";
  std::string out;
  ASSERT_EQ(RunCommand(Q(CliPath()) + " synth-web " +
                           Q(RepoTestDataDir() + "/sample/sample-crawl.warc.gz") + " --out " +
                           Q(web) + " --crawls 3 --hosts 6 --seed 5",
                       &out),
            0)
      << out;
  EXPECT_NE(out.find("neardup synth-web: wrote 3 crawls of 6 hosts"), std::string::npos) << out;
  Truth truth = ReadTruth(web + "/truth.tsv");
  ASSERT_EQ(truth.size(), 3u);

  // ---- evolve ----
  ASSERT_EQ(RunCommand(Q(CliPath()) + " evolve " + Q(web + "/crawl-1.warc.gz") + " " +
                           Q(web + "/crawl-2.warc.gz") + " " + Q(web + "/crawl-3.warc.gz") +
                           " --out " + Q(dir + "/evolve") + " -t 1",
                       &out),
            0)
      << out;
  for (const char* f : {"crawl-1/clusters.tsv", "crawl-3/summary.json", "report.html"}) {
    EXPECT_FALSE(ReadFileOrEmpty(dir + "/evolve/" + f).empty()) << f;
  }
  const auto j = nlohmann::json::parse(ReadFileOrEmpty(dir + "/evolve/evolve.json"));
  ASSERT_EQ(j["crawls"].size(), 3u);
  ASSERT_EQ(j["changes"].size(), 2u);
  // Against the truth: URLs in both crawls, those gone and new ones.
  for (int to = 2; to <= 3; ++to) {
    const auto& before = truth[std::to_string(to - 1)];
    const auto& after = truth[std::to_string(to)];
    uint64_t common = 0, unchanged = 0, markup = 0;
    for (const auto& [url, row] : after) {
      common += before.count(url);
      unchanged += row[4] == "unchanged";
      markup += row[4] == "markup";
    }
    const auto& c = j["changes"][to - 2];
    EXPECT_EQ(c["common_urls"].get<uint64_t>(), common);
    EXPECT_EQ(c["appeared"].get<uint64_t>(), after.size() - common);
    EXPECT_EQ(c["disappeared"].get<uint64_t>(), before.size() - common);
    // Identical bytes are 85, nothing else is.
    EXPECT_EQ(c["by_amount"][85].get<uint64_t>(), unchanged);
    // Markup-only changes keep every term: 84 (other changes may reach 84
    // too when no changed shingle was a minimum).
    EXPECT_GE(c["by_amount"][84].get<uint64_t>(), markup);
  }
  // Per URL (changes.tsv): the truth's change kinds by amount.
  const auto changes = ReadTsvRows(dir + "/evolve/changes.tsv");
  ASSERT_GT(changes.size(), 1u);
  EXPECT_EQ(changes[0], (std::vector<std::string>{"from", "to", "url", "amount", "cluster_size"}));
  std::map<std::string, int> seen_kinds;
  for (size_t i = 1; i < changes.size(); ++i) {
    const auto& row = truth[changes[i][1]][changes[i][2]];
    ASSERT_EQ(row.size(), 6u) << changes[i][2];
    const int amount = std::stoi(changes[i][3]);
    const std::string& change = row[4];
    ++seen_kinds[change];
    if (change == "unchanged") {
      EXPECT_EQ(amount, 85) << changes[i][2];
    }
    if (change == "markup") {
      EXPECT_EQ(amount, 84) << changes[i][2];
    }
    // A few words or a link list: most features stay.
    if (change == "small") {
      EXPECT_GE(amount, 29) << changes[i][2];
      EXPECT_LE(amount, 84) << changes[i][2];
    }
    // A new text under the same navigation and footer: few stay.
    if (change == "large") {
      EXPECT_LE(amount, 28) << changes[i][2];
    }
  }
  EXPECT_GT(seen_kinds["unchanged"], 0);
  EXPECT_GT(seen_kinds["small"], 0);
  EXPECT_GT(seen_kinds["large"], 0);
  // Size class 1 keeps containment 1 in every crawl (Fetterly et al.: "a
  // straight line at 1").
  for (double v : j["size_classes"][0]["containment"]) EXPECT_DOUBLE_EQ(v, 1.0);

  // ---- connected ----
  ASSERT_EQ(RunCommand(Q(CliPath()) + " connected " + Q(web + "/crawl-2.warc.gz") + " --out " +
                           Q(dir + "/connected") + " -t 1",
                       &out),
            0)
      << out;
  const auto c = nlohmann::json::parse(ReadFileOrEmpty(dir + "/connected/connected.json"));
  // The default seed is the hub, the truth's seed.
  EXPECT_EQ(c["seed_urls"], nlohmann::json::array({"http://www.site0.example/"}));
  const auto& crawl2 = truth["2"];
  uint64_t reachable = 0;
  for (const auto& [url, row] : crawl2) reachable += row[3] == "1";
  EXPECT_EQ(c["complete"]["documents"].get<uint64_t>(), crawl2.size());
  EXPECT_EQ(c["connected"]["documents"].get<uint64_t>(), reachable);
  const auto rows = ReadTsvRows(dir + "/connected/connected.tsv");
  ASSERT_EQ(rows.size(), crawl2.size() + 1);
  std::map<std::string, std::string> cluster_of;
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto& row = crawl2.at(rows[i][0]);
    // Connected exactly where the truth says links reach the page.
    EXPECT_EQ(rows[i][1], row[3]) << rows[i][0];
    EXPECT_EQ(rows[i][2] == "-1", row[3] == "0") << rows[i][0];
    cluster_of[rows[i][0]] = rows[i][3];
  }
  // Aliases serve the www host's bytes: one cluster.
  int aliases = 0;
  for (const auto& [url, row] : crawl2) {
    if (row[5] != "alias") continue;
    ++aliases;
    const std::string www = "http://www." + url.substr(7);
    EXPECT_EQ(cluster_of.at(url), cluster_of.at(www)) << url;
  }
  EXPECT_GT(aliases, 0);
  // Each part's duplicates (Pereira et al.'s Table 5: pages less distinct
  // pages, of the part's pages) as the truth's groups count them, within a
  // pair missed or joined. (Whether the disconnected part is the denser
  // depends on the draw: with this seed the truth has 36.1% connected and
  // 31.4% disconnected, so the construction does not decide it.)
  for (const char* part : {"complete", "connected", "disconnected"}) {
    std::set<std::string> groups;
    uint64_t pages = 0;
    for (const auto& [url, row] : crawl2) {
      if (std::string(part) == "connected" && row[3] != "1") continue;
      if (std::string(part) == "disconnected" && row[3] != "0") continue;
      ++pages;
      groups.insert(row[2]);
    }
    ASSERT_GT(pages, 0u) << part;
    const double truth_percentage = 100.0 * static_cast<double>(pages - groups.size()) / static_cast<double>(pages);
    EXPECT_NEAR(c[part]["duplicate_percentage"].get<double>(), truth_percentage, 2.5) << part;
  }
  EXPECT_NE(ReadFileOrEmpty(dir + "/connected/report.html").find("Table 5"), std::string::npos);
  fs::remove_all(dir);
}

TEST(CrawlsCliTest, EvolveOnTwoRealCrawlsElevenMinutesApart) {
  // Two Heritrix crawls of the same gov.uk pages, 12:12 and 12:23 on
  // 2014-03-25 (the second mostly revisit records, which are not pages).
  const std::string base = NEARDUP_SOURCE_DIR "/../shared/data/warc/ukwa-webarchive-discovery/";
  const std::string a = base + "gov.uk-revisit-warcs_BL-20140325121225068-00000-32090_opera_8443.warc.gz";
  const std::string b = base + "gov.uk-revisit-warcs_BL-20140325122341434-00000-32090_opera_8443.warc.gz";
  if (!fs::exists(a) || !fs::exists(b)) GTEST_SKIP() << "gov.uk crawl pair not present";
  const std::string dir = MakeTempDir("crawls-cli-govuk");
  std::string out;
  ASSERT_EQ(RunCommand(Q(CliPath()) + " evolve " + Q(a) + " " + Q(b) + " --out " + Q(dir) + " -q", &out), 0)
      << out;
  const auto changes = ReadTsvRows(dir + "/changes.tsv");
  ASSERT_GT(changes.size(), 1u) << "no URL in both crawls";
  // Eleven minutes apart, the pages fetched twice hardly change: every one
  // keeps most features, and most keep all 84 (same text) or are
  // byte-identical.
  size_t same_text = 0;
  for (size_t i = 1; i < changes.size(); ++i) {
    const int amount = std::stoi(changes[i][3]);
    EXPECT_GE(amount, 57) << changes[i][2];
    same_text += amount >= 84;
  }
  EXPECT_GE(2 * same_text, changes.size() - 1);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace neardup
