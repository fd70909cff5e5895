// End-to-end tests of `dedup --method broder`: near duplicates cluster,
// unrelated pages do not, pairs.tsv and the summary's Table 1 agree, and the
// output does not depend on the thread count.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "neardup/engine.h"
#include "neardup/executor.h"
#include "test_util.h"

namespace neardup {
namespace {

namespace fs = std::filesystem;
using testing::MakeTempDir;
using testing::ReadFileOrEmpty;
using testing::WriteFileOrDie;

std::string Words(std::mt19937& rng, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += "w" + std::to_string(rng() % 100000) + " ";
  return s;
}

std::string Line(const std::string& url, const std::string& text) {
  return testing::JsonLine(url, "text", text);
}

std::vector<std::vector<std::string>> Rows(const std::string& path) {
  return testing::ReadTsvRows(path);
}

TEST(BroderDedupTest, NearDuplicatesClusterAndPairsAreListed) {
  const std::string dir = MakeTempDir("broder");
  std::mt19937 rng(21);
  const std::string base = Words(rng, 1500);
  std::string jsonl;
  jsonl += Line("http://a.example/orig", base);
  jsonl += Line("http://b.example/edit", base + " Updated 12:31");    // near duplicate
  jsonl += Line("http://c.example/copy", base);                        // exact copy of 0
  jsonl += Line("http://d.example/other", Words(rng, 1500));           // unrelated
  jsonl += Line("http://e.example/edit2", "Visitors 4711 " + base);    // near duplicate
  WriteFileOrDie(dir + "/in.jsonl", jsonl);

  DedupOptions exact;
  auto r0 = RunDedup({dir + "/in.jsonl"}, dir + "/exact", exact, nullptr, nullptr, nullptr, nullptr);
  ASSERT_TRUE(r0.ok());
  EXPECT_EQ(r0.value().clusters, 1u);
  EXPECT_EQ(r0.value().documents_in_clusters, 2u);

  DedupOptions options;
  options.method = "broder";
  options.write_pairs = true;
  options.keeper = "input-order";
  auto r = RunDedup({dir + "/in.jsonl"}, dir + "/out", options, nullptr, nullptr, nullptr, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const DedupSummary& s = r.value();
  EXPECT_EQ(s.clusters, 1u);
  EXPECT_EQ(s.documents_in_clusters, 4u);
  EXPECT_EQ(s.duplicates, 3u);
  EXPECT_EQ(s.near_candidates, 4u);  // the exact copy stays out of the tables
  EXPECT_EQ(s.near_pairs, 3u);       // {0,1}, {0,4}, {1,4}

  auto rows = Rows(dir + "/out/clusters.tsv");
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[1][2], "keep");
  EXPECT_EQ(rows[1][3], "broder");
  EXPECT_EQ(rows[2][1], "0");
  EXPECT_EQ(rows[2][3], "broder");
  const double sim = std::stod(rows[2][4]);
  EXPECT_GE(sim, 2.0 / 6);
  EXPECT_LT(sim, 1.0 + 1e-9);
  EXPECT_EQ(rows[3][3], "exact");
  EXPECT_EQ(rows[3][4], "1");
  EXPECT_EQ(rows[4][3], "single");
  EXPECT_EQ(rows[5][1], "0");

  auto pairs = Rows(dir + "/out/pairs.tsv");
  ASSERT_EQ(pairs.size(), 4u);
  EXPECT_EQ(pairs[0], (std::vector<std::string>{"url_a", "url_b", "supershingles_shared"}));
  uint64_t by_b_total = 0;
  for (size_t i = 1; i < pairs.size(); ++i) {
    const int b = std::stoi(pairs[i][2]);
    EXPECT_GE(b, 2);
    EXPECT_LE(b, 6);
    EXPECT_NE(pairs[i][0], pairs[i][1]);
  }
  auto j = nlohmann::json::parse(ReadFileOrEmpty(dir + "/out/summary.json"));
  for (const auto& row : j["near_duplicates"]["pairs_by_b_similarity"]) {
    by_b_total += row["pairs"].get<uint64_t>();
  }
  EXPECT_EQ(by_b_total, 3u);
  EXPECT_EQ(j["near_duplicates"]["pages_with_near_duplicate"], 3);
  EXPECT_EQ(j["options"]["method"], "broder");
  EXPECT_NE(j["method_spec"].get<std::string>().find("k=5,wrap,m=84,l=14"), std::string::npos);
  fs::remove_all(dir);
}

TEST(BroderDedupTest, VirtuallyIdenticalIsStricter) {
  const std::string dir = MakeTempDir("broder-vi");
  std::mt19937 rng(5);
  const std::string base = Words(rng, 300);
  std::string jsonl = Line("u0", base) + Line("u1", base + " extra words here now") +
                      Line("u2", Words(rng, 300));
  WriteFileOrDie(dir + "/in.jsonl", jsonl);
  DedupOptions vs;
  vs.method = "broder";
  auto a = RunDedup({dir + "/in.jsonl"}, dir + "/a", vs, nullptr, nullptr, nullptr, nullptr);
  DedupOptions vi = vs;
  vi.broder.level = NearLevel::kVirtuallyIdentical;
  auto b = RunDedup({dir + "/in.jsonl"}, dir + "/b", vi, nullptr, nullptr, nullptr, nullptr);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_LE(b.value().documents_in_clusters, a.value().documents_in_clusters);
  // Pages agreeing on all six supershingles also agree on two.
  EXPECT_GE(a.value().near_pairs, b.value().near_pairs);
  fs::remove_all(dir);
}

TEST(BroderDedupTest, SameClustersForAnyThreadCountAndShardOrder) {
  const std::string dir = MakeTempDir("broder-threads");
  std::mt19937 rng(9);
  std::vector<std::string> bases;
  for (int i = 0; i < 40; ++i) bases.push_back(Words(rng, 200 + rng() % 300));
  std::string shard_a, shard_b;
  for (int i = 0; i < 600; ++i) {
    std::string text = bases[rng() % bases.size()];
    if (rng() % 2) text += " edit " + std::to_string(rng() % 1000);
    if (rng() % 5 == 0) text = Words(rng, 250);
    (i % 2 ? shard_a : shard_b) += Line("http://h" + std::to_string(i % 17) + "/p" + std::to_string(i), text);
  }
  WriteFileOrDie(dir + "/a.jsonl", shard_a);
  WriteFileOrDie(dir + "/b.jsonl", shard_b);
  std::string reference;
  std::map<std::string, std::set<std::string>> reference_groups;
  for (int threads : {1, 2, 5}) {
    for (bool reversed : {false, true}) {
      std::unique_ptr<Executor> ex;
      if (threads > 1) ex = NewThreadPoolExecutor(threads);
      DedupOptions o;
      o.method = "broder";
      o.batch_documents = 9;
      const std::string out = dir + "/o" + std::to_string(threads) + (reversed ? "r" : "");
      std::vector<std::string> inputs = {dir + "/a.jsonl", dir + "/b.jsonl"};
      if (reversed) std::swap(inputs[0], inputs[1]);
      auto r = RunDedup(inputs, out, o, ex.get(), nullptr, nullptr, nullptr);
      ASSERT_TRUE(r.ok());
      EXPECT_GT(r.value().clusters, 10u);
      // Clusters as sets of URLs are the same whatever the shard order.
      std::map<std::string, std::set<std::string>> groups;
      std::map<std::string, std::string> cluster_of;
      auto rows = Rows(out + "/clusters.tsv");
      for (size_t i = 1; i < rows.size(); ++i) cluster_of[rows[i][0]] = rows[i][1];
      std::map<std::string, std::set<std::string>> by_id;
      for (const auto& [url, id] : cluster_of) by_id[id].insert(url);
      for (const auto& [id, members] : by_id) groups[*members.begin()] = members;
      if (reference_groups.empty()) {
        reference_groups = groups;
      } else {
        EXPECT_EQ(groups, reference_groups) << "threads=" << threads << " reversed=" << reversed;
      }
      if (!reversed) {
        const std::string tsv = ReadFileOrEmpty(out + "/clusters.tsv");
        if (reference.empty()) reference = tsv;
        EXPECT_EQ(tsv, reference) << "threads=" << threads;
      }
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace neardup

namespace neardup {
namespace {

// A chain of pages, each a small edit of the one before: neighbours are near
// duplicates, far ends are not. Union-find alone joins the chain;
// verification splits off every member that shares 2 supershingles neither
// with the kept page nor with the cluster's center, a member that does with
// the kept page (VerificationCandidates): the chain's far end leaves, and
// is verified again as a cluster of its own (group repair), so its pages
// are not left alone.
TEST(BroderDedupTest, VerificationSplitsOffChainedMembers) {
  const std::string dir = testing::MakeTempDir("broder-verify");
  std::mt19937 rng(17);
  std::vector<std::string> words;
  for (int i = 0; i < 1000; ++i) words.push_back("w" + std::to_string(rng() % 1000000));
  std::string jsonl;
  for (int step = 0; step < 30; ++step) {
    std::string text;
    for (const auto& w : words) text += w + " ";
    jsonl += testing::JsonLine("http://chain.example/p" + std::to_string(100 + step), "text", text);
    for (int e = 0; e < 6; ++e) words[rng() % words.size()] = "x" + std::to_string(rng() % 1000000);
  }
  testing::WriteFileOrDie(dir + "/in.jsonl", jsonl);
  DedupOptions plain;
  plain.method = "broder";
  plain.verify = false;
  auto a = RunDedup({dir + "/in.jsonl"}, dir + "/plain", plain, nullptr, nullptr, nullptr, nullptr);
  DedupOptions verified = plain;
  verified.verify = true;
  auto b = RunDedup({dir + "/in.jsonl"}, dir + "/verified", verified, nullptr, nullptr, nullptr, nullptr);
  ASSERT_TRUE(a.ok() && b.ok());
  auto failing = [](const std::vector<std::vector<std::string>>& rows) {
    uint64_t n = 0;
    for (size_t i = 1; i < rows.size(); ++i) {
      if (rows[i][3] == "broder" && rows[i][2] == "duplicate" && std::stod(rows[i][4]) < 0.3) ++n;  // below 2/6 (printed as 0.3333)
    }
    return n;
  };
  const auto plain_rows = Rows(dir + "/plain/clusters.tsv");
  const uint64_t weak = failing(plain_rows);
  ASSERT_GT(weak, 0u) << "the chain should reach pages unlike the kept page";
  // Every weak member leaves, or stays through the center.
  const uint64_t kept_through_center = failing(Rows(dir + "/verified/clusters.tsv"));
  EXPECT_EQ(b.value().verification_split_off + kept_through_center, weak);
  EXPECT_GT(b.value().verification_split_off, kept_through_center);
  if (kept_through_center > 0) {
    EXPECT_GT(b.value().verification_recentered, 0u);
  }
  EXPECT_EQ(a.value().verification_split_off, 0u);
  EXPECT_LT(b.value().largest_cluster, a.value().largest_cluster);
  // Group repair: the far end is a verified cluster of its own.
  EXPECT_GT(b.value().verification_repaired, 0u);
  EXPECT_LE(b.value().verification_repaired, b.value().verification_split_off);
  std::map<std::string, int> members;
  for (const auto& row : Rows(dir + "/verified/clusters.tsv")) {
    if (row.size() > 2 && row[2] != "role" && row[2] != "single") ++members[row[1]];
  }
  EXPECT_GE(members.size(), 2u) << "the chain's far end should form a cluster of its own";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace neardup

namespace neardup {
namespace {

// Simhash (Henzinger's Algorithm C) and the combined method end to end.
TEST(SimhashDedupTest, SimhashAndCombinedFindNearDuplicates) {
  const std::string dir = testing::MakeTempDir("simhash");
  std::mt19937 rng(33);
  std::string base;
  for (int i = 0; i < 2000; ++i) base += "w" + std::to_string(rng() % 100000) + " ";
  std::string other;
  for (int i = 0; i < 2000; ++i) other += "v" + std::to_string(rng() % 100000) + " ";
  const std::string jsonl =
      testing::JsonLine("http://www.site.example/a", "text", base) +
      testing::JsonLine("http://www.site.example/b", "text", base + "visitor count 4711") +      // same site
      testing::JsonLine("http://mirror.example.org/a", "text", "served by mirror " + base) +  // other site
      testing::JsonLine("http://www.site.example/c", "text", other);
  testing::WriteFileOrDie(dir + "/in.jsonl", jsonl);
  for (const char* method : {"simhash", "combined"}) {
    DedupOptions o;
    o.method = method;
    o.write_pairs = true;
    auto r = RunDedup({dir + "/in.jsonl"}, dir + "/" + method, o, nullptr, nullptr, nullptr, nullptr);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r.value().clusters, 1u) << method;
    EXPECT_EQ(r.value().documents_in_clusters, 3u) << method;
    EXPECT_EQ(r.value().near_pairs, 3u) << method;
    EXPECT_TRUE(r.value().simhash_complete);
    auto rows = testing::ReadTsvRows(dir + "/" + method + "/clusters.tsv");
    ASSERT_EQ(rows.size(), 5u);
    EXPECT_EQ(rows[4][3], "single");
    int near_rows = 0;
    for (int i = 1; i <= 3; ++i) {
      if (rows[i][2] == "duplicate") {
        EXPECT_EQ(rows[i][3], method);
        EXPECT_GE(std::stod(rows[i][4]), 372.0 / 384 - 1e-3);
        ++near_rows;
      }
    }
    EXPECT_EQ(near_rows, 2);
    auto pairs = testing::ReadTsvRows(dir + "/" + method + "/pairs.tsv");
    ASSERT_EQ(pairs.size(), 4u);
    EXPECT_EQ(pairs[0].back(), "bits_agreeing");
    for (size_t i = 1; i < pairs.size(); ++i) EXPECT_GE(std::stoi(pairs[i].back()), 372);
    if (std::string(method) == "combined") {
      EXPECT_EQ(pairs[0], (std::vector<std::string>{"url_a", "url_b", "supershingles_shared", "bits_agreeing"}));
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace neardup
