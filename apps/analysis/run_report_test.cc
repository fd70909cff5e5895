// Copyright neardup authors. Licensed under Apache-2.0.
//
// LoadDedupRun, the report and the mirrors files on a hand-written dedup
// output folder whose figures are counted by hand in the comments.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "analysis/analysis.h"
#include "neardup/env.h"

namespace neardup {
namespace {

constexpr char kDir[] = "run";

// Document ids (row numbers) and clusters:
//   0 x.com/1 keep (cluster 0), 1 y.com/1 dup of 0, 2 x.com/2 single,
//   3 z.com/1 dup of 0, 4 malformed, 5 x.com/3 keep (cluster 5),
//   6 x.com/4 dup of 5, 7 y.com/2 pointing at row 99 (taken as a single).
// Valid documents 7; malformed 2 (row 4, row 7's cluster); clusters
// {0,1,3} {2} {5,6} {7} = 4; duplicates rows 1, 3, 6 = 3; size histogram
// {1: 2, 2: 1, 3: 1}. Hosts: x.com 4 docs 1 dup, y.com 2/1, z.com 1/1.
void WriteRun(MemEnv* env) {
  env->AddFile("run/clusters.tsv", "url\tcluster\trole\tmethod\tsimilarity\tsource\toffset\treason\n"
                 "http://x.com/1\t0\tkeep\tcombined\t1\ts\t0\tr\n"
                 "http://y.com/1\t0\tduplicate\tcombined\t0.9\ts\t1\tr\n"
                 "http://x.com/2\t2\tkeep\tsingle\t1\ts\t2\tsingle\n"
                 "http://z.com/1\t0\tduplicate\texact\t1\ts\t3\tr\n"
                 "garbage without tabs\n"
                 "http://x.com/3\t5\tkeep\texact\t1\ts\t5\tr\n"
                 "http://x.com/4\t5\tduplicate\texact\t1\ts\t6\tr\n"
                 "http://y.com/2\t99\tkeep\tsingle\t1\ts\t7\tsingle\n");
  env->AddFile("run/summary.json", R"({"options": {"method": "combined"}, "documents_read": 8, "clusters": 4,
                     "duplicates": 3, "method_spec": "spec<x>"})");
  // Edges x1-y1, x1-z1 (degrees x1 2, y1 1, z1 1); one malformed row.
  env->AddFile("run/pairs.tsv", "url_a\turl_b\tsupershingles_shared\tbits_agreeing\n"
                 "http://x.com/1\thttp://y.com/1\t3\t380\n"
                 "http://x.com/1\thttp://z.com/1\t2\t375\n"
                 "http://x.com/1\thttp://z.com/1\tfoo\t375\n");
}

TEST(RunReportTest, HandCountedFolder) {
  MemEnv env;
  WriteRun(&env);
  auto run = LoadDedupRun(kDir, &env);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->clusters.size(), 7u);
  EXPECT_EQ(run->malformed_cluster_rows, 2u);
  EXPECT_EQ(run->malformed_pair_rows, 1u);
  EXPECT_EQ(run->pairs.size(), 2u);
  EXPECT_EQ(run->method, "combined");
  EXPECT_EQ(run->method_spec, "spec<x>");
  EXPECT_EQ(run->clusters[4].id, 5u);  // ids keep the row numbers past the bad row

  auto report = ComputeRunReport(*run, ReportOptions{});
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->documents, 7u);
  EXPECT_EQ(report->clusters, 4u);
  EXPECT_EQ(report->duplicates, 3u);
  EXPECT_EQ(report->duplicates_by_method, (std::map<std::string, uint64_t>{{"combined", 1}, {"exact", 2}}));
  EXPECT_EQ(report->cluster_sizes.size_histogram, (std::map<uint64_t, uint64_t>{{1, 2}, {2, 1}, {3, 1}}));
  ASSERT_GE(report->largest_clusters.size(), 2u);
  EXPECT_EQ(report->largest_clusters[0].cluster, 0u);
  EXPECT_EQ(report->largest_clusters[0].size, 3u);
  EXPECT_EQ(report->largest_clusters[0].distinct_hosts, 3u);
  EXPECT_EQ(report->largest_clusters[0].representative_url, "http://x.com/1");
  EXPECT_EQ(report->largest_clusters[1].cluster, 5u);
  EXPECT_EQ(report->largest_clusters[1].distinct_hosts, 1u);
  ASSERT_EQ(report->sites.size(), 3u);
  EXPECT_EQ(report->sites[0].host, "x.com");
  EXPECT_EQ(report->sites[0].documents, 4u);
  EXPECT_EQ(report->sites[0].duplicates, 1u);
  EXPECT_EQ(report->sites[1].host, "y.com");
  EXPECT_EQ(report->sites[2].host, "z.com");
  ASSERT_TRUE(report->degrees.has_value());
  EXPECT_EQ(report->degrees->degree_histogram, (std::map<uint64_t, uint64_t>{{1, 2}, {2, 1}}));
  ASSERT_TRUE(report->similarity.has_value());
  EXPECT_EQ(report->similarity->by_b.size(), 2u);

  ReportOptions top1;
  top1.top_clusters = 1;
  DedupRun loaded;
  auto written = WriteRunReport(kDir, top1, &env, &loaded);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  const auto j = nlohmann::json::parse(env.GetContents("run/report.json").value());
  EXPECT_EQ(j["summary"]["documents"], 7);
  EXPECT_EQ(j["summary"]["clusters"], 4);
  EXPECT_EQ(j["summary"]["duplicates"], 3);
  EXPECT_EQ(j["summary"]["duplicates_by_method"]["exact"], 2);
  EXPECT_NE(env.GetContents("run/report.html").value().find("exact 2, combined 1"), std::string::npos);
  EXPECT_EQ(j["summary"]["summary_json"]["documents_read"], 8);
  EXPECT_EQ(j["malformed_rows"]["clusters_tsv"], 2);
  EXPECT_EQ(j["largest_clusters"].size(), 1u);
  EXPECT_EQ(j["cluster_sizes"]["histogram"][2]["size"], 3);
  EXPECT_TRUE(j["cluster_sizes"]["power_law"]["least_squares"]["exponent"].is_number());
  EXPECT_TRUE(j["cluster_sizes"]["power_law"]["discrete_mle"]["alpha"].is_number());
  EXPECT_EQ(j["degree_distribution"]["edges"], 2);
  EXPECT_FALSE(j.contains("mirrors"));
  const std::string html = env.GetContents("run/report.html").value();
  EXPECT_NE(html.find("spec&lt;x&gt;"), std::string::npos);
  EXPECT_NE(html.find("Henzinger Table 9"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);

  // Mirrors at thresholds 1/1: cluster 0 holds x.com, y.com, z.com pages with
  // the same last arc "1": pairs x-y, x-z, y-z, each 1 common, 1 confirmed.
  MirrorOptions m;
  m.min_host_pages = 1;
  m.min_common_pages = 1;
  auto mirrors = WriteMirrors(kDir, m, ReportOptions{}, &env);
  ASSERT_TRUE(mirrors.ok()) << mirrors.status().ToString();
  ASSERT_EQ(mirrors->pairs.size(), 3u);
  for (const auto& p : mirrors->pairs) {
    EXPECT_EQ(p.common_pages, 1u);
    EXPECT_EQ(p.confirmed_pages, 1u);
  }
  const auto j2 = nlohmann::json::parse(env.GetContents("run/report.json").value());
  EXPECT_EQ(j2["mirrors"]["host_pairs"], 3);
  EXPECT_EQ(j2["mirrors"]["size_distribution"][0]["common_pages"], 1);
  EXPECT_EQ(j2["mirrors"]["size_distribution"][0]["host_pairs"], 3);
  EXPECT_NE(env.GetContents("run/report.html").value().find("Mirror size distribution"), std::string::npos);
  EXPECT_EQ(env.GetContents("run/mirrors.tsv").value().substr(0, 13), "host_a\thost_b");
}

TEST(RunReportTest, PassesAndReplicaHistogramsFromTheSummary) {
  MemEnv env;
  WriteRun(&env);
  // A paragraphs run's passes and a chunks run's histograms (both kinds in
  // one summary here), buckets out of order as a JSON object may hold them.
  env.AddFile("run/summary.json", R"({"options": {"method": "chunks"},
      "paragraphs": {"passes": [{"pass": 1, "documents_loaded": 4, "clusters": 1, "duplicates": 2,
                                 "estimated_final_duplicates": 2.5},
                                {"pass": 2, "documents_loaded": 7, "clusters": 2, "duplicates": 3,
                                 "estimated_final_duplicates": 3}]},
      "chunks": {"replica_histogram": {"lines:4": {"3-10": 3, "1": 2, "2": 2, "11-100": 0},
                                       "whole": {"2": 2, "1": 5}}}})");
  auto run = LoadDedupRun(kDir, &env);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  ASSERT_EQ(run->paragraph_passes.size(), 2u);
  EXPECT_EQ(run->paragraph_passes[1].documents_loaded, 7u);
  EXPECT_EQ(run->paragraph_passes[0].estimated_final_duplicates, 2.5);
  ASSERT_EQ(run->replica_histograms.size(), 2u);
  EXPECT_EQ(run->replica_histograms[0].first, "whole");
  const auto& lines = run->replica_histograms[1].second;
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], (std::pair<std::string, uint64_t>{"1", 2}));
  EXPECT_EQ(lines[1], (std::pair<std::string, uint64_t>{"2", 2}));
  EXPECT_EQ(lines[2], (std::pair<std::string, uint64_t>{"3-10", 3}));
  EXPECT_EQ(lines[3], (std::pair<std::string, uint64_t>{"11-100", 0}));
  auto report = ComputeRunReport(*run, ReportOptions());
  ASSERT_TRUE(report.ok());
  const std::string html = RunReportHtml(*run, *report, ReportOptions());
  EXPECT_NE(html.find("Growth per pass"), std::string::npos);
  EXPECT_NE(html.find("Pages by number of replicas"), std::string::npos);
  const auto j = nlohmann::json::parse(RunReportJson(*run, *report, ReportOptions()));
  EXPECT_EQ(j["paragraph_passes"].size(), 2u);
  EXPECT_EQ(j["replica_histogram"]["lines:4"]["3-10"], 3);
}

TEST(RunReportTest, MissingOrBadClustersIsAnError) {
  MemEnv env;
  auto missing = LoadDedupRun("nowhere", &env);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Status::Code::kNotFound);
  env.AddFile("run/clusters.tsv", "");
  EXPECT_EQ(LoadDedupRun(kDir, &env).status().code(), Status::Code::kCorruption);
  env.AddFile("run/clusters.tsv", "a\tb\n1\t2\n");
  EXPECT_EQ(LoadDedupRun(kDir, &env).status().code(), Status::Code::kCorruption);
  // A header only: an empty run still reports (zero everywhere).
  env.AddFile("run/clusters.tsv", "url\tcluster\trole\tmethod\n");
  env.AddFile("run/summary.json", "{not json");
  env.AddFile("run/pairs.tsv", "url_a\turl_b\n\n\t\n");  // two malformed rows
  auto empty = WriteRunReport(kDir, ReportOptions{}, &env);
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty->documents, 0u);
  EXPECT_FALSE(empty->cluster_sizes.mle_alpha.has_value());
  EXPECT_NE(env.GetContents("run/report.json").value().find("\"pairs_tsv\": 2"), std::string::npos);
  EXPECT_NE(env.GetContents("run/report.html").value().find("<svg"), std::string::npos);
  EXPECT_FALSE(ReportOptions{0}.Validate().ok());
  EXPECT_FALSE(LoadDedupRun(kDir, nullptr).ok());
}

TEST(RunReportTest, GarbageRowsNeverCrash) {
  // Deterministic junk (a linear congruential generator) after valid headers:
  // every file parses to some counted rows and the report still renders.
  MemEnv env;
  std::string junk;
  uint32_t state = 12345;
  for (int i = 0; i < 20000; ++i) {
    state = state * 1103515245u + 12345u;
    const char c = static_cast<char>((state >> 16) & 0xff);
    junk.push_back(c == '\0' ? '\t' : c);
  }
  env.AddFile("run/clusters.tsv", "url\tcluster\trole\tmethod\n" + junk + "\nhttp://a/\t0\tkeep\texact\n"
                                 "http://\xff\xfe.com/\xc3\t0\tduplicate\texact\n");  // not UTF-8
  env.AddFile("run/pairs.tsv", "url_a\turl_b\tsupershingles_shared\tbits_agreeing\n" + junk);
  env.AddFile("run/mirrors.tsv", "host_a\thost_b\tcommon_pages\n" + junk);
  env.AddFile("run/summary.json", junk);
  auto report = WriteRunReport(kDir, ReportOptions{}, &env);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_GE(report->documents, 1u);
  EXPECT_NE(env.GetContents("run/report.html").value().find("</html>"), std::string::npos);
  EXPECT_NE(env.GetContents("run/report.json").value().find("\"documents\""), std::string::npos);
  MirrorOptions m;
  m.min_host_pages = 1;
  m.min_common_pages = 1;
  EXPECT_TRUE(WriteMirrors(kDir, m, ReportOptions{}, &env).ok());
}

}  // namespace
}  // namespace neardup
