// Copyright neardup authors. Licensed under Apache-2.0.
//
// `neardup report` and `neardup mirrors` on the command line, run on a dedup
// output of the sample crawl; the figures are checked against clusters.tsv
// counted here, independently of the analysis module.
#include <gtest/gtest.h>

#include <algorithm>
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

// "http://User@Host:80/path" -> "host" (enough for the sample's URLs).
std::string HostOf(const std::string& url) {
  size_t start = url.find("://");
  start = start == std::string::npos ? 0 : start + 3;
  std::string host = url.substr(start, url.find_first_of("/?#", start) - start);
  if (const size_t at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
  if (const size_t colon = host.rfind(':'); colon != std::string::npos) host = host.substr(0, colon);
  std::transform(host.begin(), host.end(), host.begin(), [](unsigned char c) { return std::tolower(c); });
  return host;
}

// Runs dedup --pairs on the sample crawl into dir/run.
std::string DedupSample(const std::string& dir, const std::string& method) {
  const std::string run = dir + "/run";
  std::string out;
  EXPECT_EQ(RunCommand(Q(CliPath()) + " dedup " + Q(RepoTestDataDir() + "/sample/sample-crawl.warc.gz") +
                           " --out " + Q(run) + " --pairs --method " + method + " --threads 1",
                       &out),
            0)
      << out;
  return run;
}

TEST(ReportCliTest, HelpNamesTheFlags) {
  std::string out;
  EXPECT_EQ(RunCommand(Q(CliPath()) + " report --help", &out), 0);
  for (const char* s : {"--top-clusters", "--top-sites", "--c-bins", "report.html", "report.json"}) {
    EXPECT_NE(out.find(s), std::string::npos) << s;
  }
  EXPECT_EQ(RunCommand(Q(CliPath()) + " mirrors --help", &out), 0);
  for (const char* s : {"--min-host-pages", "--min-common-pages", "--suffix-arcs", "mirrors.tsv", "alias"}) {
    EXPECT_NE(out.find(s), std::string::npos) << s;
  }
}

TEST(ReportCliTest, NoClustersFileIsOneLineAndExitOne) {
  const std::string dir = MakeTempDir("report-cli-empty");
  for (const char* command : {" report ", " mirrors "}) {
    std::string out;
    EXPECT_EQ(RunCommand(Q(CliPath()) + command + Q(dir), &out), 1) << out;
    EXPECT_NE(out.find("clusters.tsv"), std::string::npos) << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  }
  std::string out;
  EXPECT_EQ(RunCommand(Q(CliPath()) + " report", &out), 2);  // DIR missing
  EXPECT_EQ(RunCommand(Q(CliPath()) + " mirrors " + Q(dir) + " --min-host-pages 0", &out), 2);
  fs::remove_all(dir);
}

TEST(ReportCliTest, SampleRunFiguresMatchClustersTsv) {
  const std::string dir = MakeTempDir("report-cli-sample");
  const std::string run = DedupSample(dir, "combined");
  // Count clusters.tsv here: documents, clusters (distinct cluster ids),
  // duplicates (role duplicate), sizes, hosts.
  const auto rows = ReadTsvRows(run + "/clusters.tsv");
  ASSERT_GE(rows.size(), 2u);
  ASSERT_EQ(rows[0][1], "cluster");
  std::map<std::string, uint64_t> cluster_size;
  std::map<std::string, std::set<std::string>> cluster_hosts;
  uint64_t duplicates = 0;
  std::map<std::string, uint64_t> by_method;
  for (size_t i = 1; i < rows.size(); ++i) {
    ++cluster_size[rows[i][1]];
    cluster_hosts[rows[i][1]].insert(HostOf(rows[i][0]));
    duplicates += rows[i][2] == "duplicate";
    if (rows[i][2] == "duplicate") ++by_method[rows[i][3]];
  }
  std::map<uint64_t, uint64_t> histogram;
  uint64_t largest = 0;
  for (const auto& [id, n] : cluster_size) {
    ++histogram[n];
    largest = std::max(largest, n);
  }

  std::string out;
  ASSERT_EQ(RunCommand(Q(CliPath()) + " report " + Q(run) + " --top-clusters 3", &out), 0) << out;
  EXPECT_NE(out.find("neardup report: " + std::to_string(rows.size() - 1) + " documents"), std::string::npos) << out;
  const auto j = nlohmann::json::parse(ReadFileOrEmpty(run + "/report.json"));
  EXPECT_EQ(j["summary"]["documents"], rows.size() - 1);
  EXPECT_EQ(j["summary"]["clusters"], cluster_size.size());
  EXPECT_EQ(j["summary"]["duplicates"], duplicates);
  using ByMethod = std::map<std::string, uint64_t>;
  EXPECT_EQ(j["summary"]["duplicates_by_method"].get<ByMethod>(), by_method);
  EXPECT_NE(out.find("duplicates by what put them in their cluster: "), std::string::npos) << out;
  EXPECT_EQ(j["summary"]["method"], "combined");
  // dedup's own summary agrees with the count.
  EXPECT_EQ(j["summary"]["summary_json"]["duplicates"], duplicates);
  std::map<uint64_t, uint64_t> reported;
  for (const auto& h : j["cluster_sizes"]["histogram"]) reported[h["size"]] = h["clusters"];
  EXPECT_EQ(reported, histogram);
  ASSERT_EQ(j["largest_clusters"].size(), std::min<size_t>(3, cluster_size.size()));
  EXPECT_EQ(j["largest_clusters"][0]["size"], largest);
  const std::string top = std::to_string(j["largest_clusters"][0]["cluster"].get<uint64_t>());
  EXPECT_EQ(j["largest_clusters"][0]["distinct_hosts"], cluster_hosts[top].size());
  // The representative is the kept page: the row whose index is the cluster id.
  EXPECT_EQ(j["largest_clusters"][0]["representative_url"], rows[std::stoul(top) + 1][0]);
  EXPECT_EQ(rows[std::stoul(top) + 1][2], "keep");
  // pairs.tsv exists (--pairs): the degree section is there, with as many
  // edges as distinct pairs listed.
  const auto pairs = ReadTsvRows(run + "/pairs.tsv");
  std::set<std::pair<std::string, std::string>> edges;
  for (size_t i = 1; i < pairs.size(); ++i) {
    edges.insert({std::min(pairs[i][0], pairs[i][1]), std::max(pairs[i][0], pairs[i][1])});
  }
  ASSERT_TRUE(j["degree_distribution"].is_object());
  EXPECT_EQ(j["degree_distribution"]["edges"], edges.size());
  const std::string html = ReadFileOrEmpty(run + "/report.html");
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("class=\"point\""), std::string::npos);
  EXPECT_FALSE(j.contains("mirrors"));

  // Mirrors at 1/1: every pair of distinct hosts sharing a cluster, with
  // common pages = sum over clusters of min(pages of A, pages of B).
  std::map<std::pair<std::string, std::string>, uint64_t> common;
  std::map<std::string, std::map<std::string, uint64_t>> per_cluster;
  for (size_t i = 1; i < rows.size(); ++i) ++per_cluster[rows[i][1]][HostOf(rows[i][0])];
  for (const auto& [id, hosts] : per_cluster) {
    for (auto a = hosts.begin(); a != hosts.end(); ++a) {
      for (auto b = std::next(a); b != hosts.end(); ++b) common[{a->first, b->first}] += std::min(a->second, b->second);
    }
  }
  ASSERT_EQ(RunCommand(Q(CliPath()) + " mirrors " + Q(run) + " --min-host-pages 1 --min-common-pages 1", &out), 0)
      << out;
  const auto mirrors = ReadTsvRows(run + "/mirrors.tsv");
  ASSERT_GE(mirrors.size(), 1u);
  EXPECT_EQ(mirrors[0], (std::vector<std::string>{"host_a", "host_b", "common_pages", "confirmed_pages", "confirmed",
                                                  "alias", "common_clusters"}));
  EXPECT_EQ(mirrors.size() - 1, common.size());
  for (size_t i = 1; i < mirrors.size(); ++i) {
    EXPECT_LT(mirrors[i][0], mirrors[i][1]);
    const auto key = std::make_pair(mirrors[i][0], mirrors[i][1]);
    EXPECT_EQ(std::stoull(mirrors[i][2]), common[key]) << mirrors[i][0] << " " << mirrors[i][1];
    EXPECT_LE(std::stoull(mirrors[i][3]), std::stoull(mirrors[i][2]));
  }
  const auto j2 = nlohmann::json::parse(ReadFileOrEmpty(run + "/report.json"));
  ASSERT_TRUE(j2.contains("mirrors"));
  EXPECT_EQ(j2["mirrors"]["host_pairs"], common.size());
  EXPECT_NE(ReadFileOrEmpty(run + "/report.html").find("Mirror size distribution"), std::string::npos);
  fs::remove_all(dir);
}

TEST(ReportCliTest, MalformedRowsAreCountedNotFatal) {
  const std::string dir = MakeTempDir("report-cli-malformed");
  testing::WriteFileOrDie(dir + "/clusters.tsv",
                          "url\tcluster\trole\tmethod\n"
                          "http://a.com/x\t0\tkeep\texact\n"
                          "not a row\n"
                          "http://b.com/x\t0\tduplicate\texact\n");
  std::string out;
  ASSERT_EQ(RunCommand(Q(CliPath()) + " report " + Q(dir), &out), 0) << out;
  EXPECT_NE(out.find("malformed rows skipped: clusters.tsv 1"), std::string::npos) << out;
  const auto j = nlohmann::json::parse(ReadFileOrEmpty(dir + "/report.json"));
  EXPECT_EQ(j["summary"]["documents"], 2);
  EXPECT_EQ(j["summary"]["duplicates"], 1);
  EXPECT_EQ(j["malformed_rows"]["clusters_tsv"], 1);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace neardup
