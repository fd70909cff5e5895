// Copyright neardup authors. Licensed under Apache-2.0.
//
// Tests of the evolution study (Fetterly, Manasse and Najork): Φ and Ψ on
// hand-made clusterings, the change amount on hand-made pages, hosts'
// cluster counts, crawl folders, and RunEvolve on two tiny crawls.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "crawls/crawls_internal.h"
#include "crawls/crawls.h"
#include "test_util.h"

namespace neardup {
namespace {

using crawls_internal::ChangeAmount;
using crawls_internal::Clustering;
using crawls_internal::PageSketch;

TEST(EvolveTest, SizeClassesAreThePapersSeven) {
  const auto classes = crawls_internal::EmptySizeClasses();
  ASSERT_EQ(classes.size(), 7u);
  EXPECT_EQ(classes[0].label, "1");
  EXPECT_EQ(classes[1].label, "2-10");
  EXPECT_EQ(classes[2].label, "11-100");
  EXPECT_EQ(classes[6].label, "100001+");
  EXPECT_EQ(crawls_internal::SizeClassOf(1), 0u);
  EXPECT_EQ(crawls_internal::SizeClassOf(2), 1u);
  EXPECT_EQ(crawls_internal::SizeClassOf(10), 1u);
  EXPECT_EQ(crawls_internal::SizeClassOf(11), 2u);
  EXPECT_EQ(crawls_internal::SizeClassOf(101), 3u);
  EXPECT_EQ(crawls_internal::SizeClassOf(100000), 5u);
  EXPECT_EQ(crawls_internal::SizeClassOf(100001), 6u);
  EXPECT_EQ(ChangeGroup(0), 0);
  EXPECT_EQ(ChangeGroup(1), 1);
  EXPECT_EQ(ChangeGroup(28), 1);
  EXPECT_EQ(ChangeGroup(29), 2);
  EXPECT_EQ(ChangeGroup(56), 2);
  EXPECT_EQ(ChangeGroup(57), 3);
  EXPECT_EQ(ChangeGroup(83), 3);
  EXPECT_EQ(ChangeGroup(84), 4);
  EXPECT_EQ(ChangeGroup(85), 5);
}

TEST(EvolveTest, ContainmentAndSimilarityByHand) {
  // Crawl 1: {a,b,c} {d} {e,f}. Crawl 2: {a,b} {c,x} {d} {f}; e is gone
  // (the "could not download" cluster {e}).
  Clustering one{{"a", "b", "c", "d", "e", "f"}, {1, 1, 1, 2, 3, 3}};
  Clustering two{{"a", "b", "c", "x", "d", "f"}, {10, 10, 11, 11, 12, 13}};
  std::vector<uint64_t> unavailable;
  const auto classes = crawls_internal::ContainmentCurves({one, two}, &unavailable);
  EXPECT_EQ(unavailable, (std::vector<uint64_t>{0, 1}));
  // Size 1: d alone, kept whole: all 1.
  ASSERT_EQ(classes[0].urls, 1u);
  EXPECT_DOUBLE_EQ(classes[0].containment[1], 1.0);
  EXPECT_DOUBLE_EQ(classes[0].similarity[1], 1.0);
  // Size 2-10: a, b, c, e, f. Per URL (|C1 ∩ C2|, |C1|, |C2|):
  //   a, b: (2, 3, 2): Φ_1^2 = 2/3, Φ_2^1 = 1,   Ψ = 2/3
  //   c:    (1, 3, 2): Φ_1^2 = 1/3, Φ_2^1 = 1/2, Ψ = 1/4
  //   e:    (1, 2, 1): Φ_1^2 = 1/2, Φ_2^1 = 1,   Ψ = 1/2   (e in {e})
  //   f:    (1, 2, 1): the same.
  // Averages: Φ_1^2 = (2/3+2/3+1/3+1/2+1/2)/5 = 8/15; Φ_2^1 = 4.5/5 = 0.9;
  // Ψ = (2/3+2/3+1/4+1/2+1/2)/5 = 31/60.
  ASSERT_EQ(classes[1].urls, 5u);
  EXPECT_DOUBLE_EQ(classes[1].containment[0], 1.0);
  EXPECT_DOUBLE_EQ(classes[1].similarity[0], 1.0);
  EXPECT_NEAR(classes[1].containment[1], 8.0 / 15, 1e-12);
  EXPECT_NEAR(classes[1].reverse_containment[1], 0.9, 1e-12);
  EXPECT_NEAR(classes[1].similarity[1], 31.0 / 60, 1e-12);
  for (size_t k = 2; k < classes.size(); ++k) {
    EXPECT_EQ(classes[k].urls, 0u);
    EXPECT_TRUE(classes[k].containment.empty());
  }
}

TEST(EvolveTest, HostClusterCountsByHand) {
  // Crawl 1: h1 has pages in clusters 1 and 2, h2 in cluster 2: 2 and 1.
  // Crawl 2: cluster 1 split into singletons, so h1 is in cluster 7 only
  // and h2 in cluster 7: 1 and 1. Changes: h1 -1, h2 0.
  Clustering one{{"http://h1.test/a", "http://h1.test/b", "http://h2.test/c", "http://h1.test/d"},
                 {1, 1, 2, 2}};
  Clustering two{{"http://h1.test/a", "http://h1.test/b", "http://h2.test/c", "http://h1.test/d"},
                 {5, 6, 7, 7}};
  const HostClusterChange c = crawls_internal::HostClusterCounts(one, two);
  EXPECT_EQ(c.hosts, 2u);
  EXPECT_EQ(c.unchanged_hosts, 1u);
  EXPECT_EQ(c.histogram, (std::map<int64_t, uint64_t>{{-1, 1}, {0, 1}}));
}

std::string Words(int first, int count) {
  static const char* const kWords[] = {"river", "stone", "garden", "window", "market", "letter",
                                       "summer", "bridge", "silver", "forest", "island", "candle",
                                       "harbor", "meadow", "pencil", "rocket", "violin", "winter"};
  std::string s;
  for (int i = 0; i < count; ++i) {
    if (i) s.push_back(' ');
    s.append(kWords[(first + i * 7) % 18]);
    s.append(std::to_string((first + i) % 97));
  }
  return s;
}

class ChangeAmountTest : public ::testing::Test {
 protected:
  ChangeAmountTest() : sketcher_(crawls_internal::ChangeSketchOptions(5, 84, 1234)) {
    TokenizeOptions o;
    o.collect_links = false;
    o.keep_term_text = false;
    tokenizer_ = std::make_unique<Tokenizer>(o);
  }
  PageSketch Sketch(const std::string& html) {
    return crawls_internal::SketchPage(html, ContentKind::kHtml, "", "http://h.test/", tokenizer_.get(),
                                       sketcher_, &scratch_, &tokens_);
  }
  BroderSketcher sketcher_;
  std::unique_ptr<Tokenizer> tokenizer_;
  SketchScratch scratch_;
  TokenizedDocument tokens_;
};

TEST_F(ChangeAmountTest, IdenticalMarkupOnlyUnrelatedAndSmallEdits) {
  const std::string text = Words(0, 60);
  const std::string a = "<html><body><p>" + text + "</p></body></html>";
  // Same terms, other bytes: tags re-cased, an attribute and white space.
  const std::string b = "<HTML>\n<body class=\"x\">\n  <P>" + text + "</P>\n</BODY></html>";
  // 60 other terms: no shingle in common, so no min-hash value can agree
  // (each kept value is a shingle of its own page).
  const std::string c = "<html><body><p>" + Words(1000, 60) + "</p></body></html>";
  // One term of 60 replaced: 5 of 60 shingles differ on each side, a
  // resemblance of 55/65 = 0.85, so about 71 of 84 values agree.
  const std::string edited = "zebra " + text.substr(text.find(' ') + 1);  // first term replaced
  const std::string d = "<html><body><p>" + edited + "</p></body></html>";

  EXPECT_EQ(ChangeAmount(Sketch(a), Sketch(a)), 85);
  EXPECT_EQ(ChangeAmount(Sketch(a), Sketch(b)), 84);
  EXPECT_EQ(ChangeAmount(Sketch(a), Sketch(c)), 0);
  const int small = ChangeAmount(Sketch(a), Sketch(d));
  EXPECT_GE(small, 50);
  EXPECT_LE(small, 83);
  // Pages without terms: the same (empty) text, unless one has terms.
  EXPECT_EQ(ChangeAmount(Sketch("<html></html>"), Sketch("<html><body></body></html>")), 84);
  EXPECT_EQ(ChangeAmount(Sketch("<html></html>"), Sketch("<html></html>")), 85);
  EXPECT_EQ(ChangeAmount(Sketch("<html></html>"), Sketch(a)), 0);
}

TEST(EvolveTest, CrawlFilesAndClusterTable) {
  const std::string dir = testing::MakeTempDir("crawls-files");
  Env* env = Env::Default();
  std::filesystem::create_directories(dir + "/c/sub");
  testing::WriteFileOrDie(dir + "/c/b.warc.gz", "x");
  testing::WriteFileOrDie(dir + "/c/sub/a.jsonl", "x");
  testing::WriteFileOrDie(dir + "/c/notes.txt", "x");
  testing::WriteFileOrDie(dir + "/c/sub/d.NDJSON", "x");  // the endings of the dedup reader, case aside
  testing::WriteFileOrDie(dir + "/c/e.Arc.Zst", "x");
  auto files = crawls_internal::CrawlFiles(dir + "/c", env);
  ASSERT_TRUE(files.ok());
  EXPECT_EQ(files.value(), (std::vector<std::string>{dir + "/c/b.warc.gz", dir + "/c/e.Arc.Zst",
                                                     dir + "/c/sub/a.jsonl", dir + "/c/sub/d.NDJSON"}));
  std::filesystem::create_directories(dir + "/html");
  testing::WriteFileOrDie(dir + "/html/p.html", "<p>x</p>");
  EXPECT_EQ(crawls_internal::CrawlFiles(dir + "/html", env).value(),
            (std::vector<std::string>{dir + "/html"}));
  EXPECT_TRUE(crawls_internal::CrawlFiles(dir + "/missing", env).status().IsNotFound());

  testing::WriteFileOrDie(dir + "/clusters.tsv",
                          "url\tcluster\trole\nu1\t0\tkeep\nu2\t0\tduplicate\nbad line\nu3\tx\tkeep\nu4\t3\tkeep\n");
  auto table = crawls_internal::ReadClusterTable(dir + "/clusters.tsv", env);
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(table.value().urls, (std::vector<std::string>{"u1", "u2", "u4"}));
  EXPECT_EQ(table.value().cluster, (std::vector<uint64_t>{0, 0, 3}));
  EXPECT_EQ(table.value().malformed_rows, 2u);
  testing::WriteFileOrDie(dir + "/bad.tsv", "a\tb\n");
  EXPECT_FALSE(crawls_internal::ReadClusterTable(dir + "/bad.tsv", env).ok());
  EXPECT_TRUE(crawls_internal::ReadClusterTable(dir + "/none.tsv", env).status().IsNotFound());
  std::filesystem::remove_all(dir);
}

// JoinRevisitsOfPreviousCrawl by hand. Previous crawl: {a, b, c, h} {d, e}
// {f}. This crawl: a revisit of a (label 10), b and h read again alike
// (20 and 22: this crawl's method put them apart), c changed (21), x new
// beside b (20), d and e revisits (30, 31), g a revisit of f (40).
TEST(EvolveTest, RevisitsJoinTheirPagesClusterMates) {
  const std::unordered_map<std::string, uint64_t> previous{{"a", 1}, {"b", 1}, {"c", 1}, {"h", 1},
                                                           {"d", 2}, {"e", 2}, {"f", 3}};
  Clustering crawl{{"a", "b", "c", "h", "x", "d", "e", "g"}, {10, 20, 21, 22, 20, 30, 31, 40}};
  const std::vector<std::pair<std::string, std::string>> revisits{{"a", "a"}, {"d", "d"}, {"e", "e"}, {"g", "f"}};
  const uint64_t joined = crawls_internal::JoinRevisitsOfPreviousCrawl(previous, revisits, {"b", "h"}, &crawl);
  // a joins b's cluster (a tie of read-again pages, 20 and 22: the smaller
  // label); h stays apart from b, as this crawl judged; d and e are one
  // cluster; g, the only page of its cluster, stays alone.
  EXPECT_EQ(crawl.cluster, (std::vector<uint64_t>{20, 20, 21, 22, 20, 30, 30, 40}));
  EXPECT_EQ(joined, 3u);  // a, d, e
  // Without a revisit nothing moves; a revisit of a page the previous
  // crawl lacks is left alone.
  Clustering again{{"b", "h", "y"}, {20, 22, 50}};
  EXPECT_EQ(crawls_internal::JoinRevisitsOfPreviousCrawl(previous, {{"y", "z"}}, {"b", "h"}, &again), 0u);
  EXPECT_EQ(again.cluster, (std::vector<uint64_t>{20, 22, 50}));
}

// A real recrawl by a deduplicating crawler: two WARC files of gov.uk pages
// (from the British Library's warc-indexer tests), the second written with
// revisit records for 47 of its 55 URLs, every URL's page unchanged (48 the
// same bytes, 5 the same text). Its clusters are the first crawl's.
TEST(EvolveTest, ARecrawlOfRevisitsKeepsItsClusters) {
  NEARDUP_REQUIRE_SHARED_DATA(shared);
  const std::string folder = shared + "/warc/ukwa-webarchive-discovery/gov.uk-revisit-warcs_BL-";
  const std::string first = folder + "20140325121225068-00000-32090_opera_8443.warc.gz";
  const std::string second = folder + "20140325122341434-00000-32090_opera_8443.warc.gz";
  if (!std::filesystem::exists(first) || !std::filesystem::exists(second)) {
    GTEST_SKIP() << "the gov.uk revisit WARCs are not in the shared data folder";
  }
  const std::string dir = testing::MakeTempDir("crawls-evolve-revisits");
  EvolveOptions o;
  o.crawls = {first, second};
  o.out_dir = dir + "/out";
  auto result = RunEvolve(o, nullptr, nullptr, nullptr);
  ASSERT_TRUE(result.ok()) << result.status().message();
  const EvolveSummary& s = result.value();
  ASSERT_EQ(s.crawls.size(), 2u);
  EXPECT_GT(s.crawls[1].revisits_of_previous_crawl, 40u);
  EXPECT_GT(s.crawls[1].revisits_joined, 0u);
  EXPECT_GT(s.crawls[0].clusters, 1u);
  EXPECT_EQ(s.crawls[1].clusters, s.crawls[0].clusters);
  EXPECT_EQ(s.crawls[1].duplicates, s.crawls[0].duplicates);
  for (const SizeClassCurve& c : s.size_classes) {
    if (c.urls == 0) continue;
    EXPECT_DOUBLE_EQ(c.containment[1], 1.0) << c.label;
    EXPECT_DOUBLE_EQ(c.similarity[1], 1.0) << c.label;
  }
  std::filesystem::remove_all(dir);
}

TEST(EvolveTest, RunEvolveOnTwoTinyCrawls) {
  // Crawl 1: u1 and u2 the same page P, u3 page Q. Crawl 2: u1 P (same
  // bytes: 85), u2 P with other markup (same text: 84), u3 an unrelated page
  // (0). With the exact method both crawls cluster {u1, u2} and {u3}, so
  // every Φ and Ψ is 1.
  const std::string dir = testing::MakeTempDir("crawls-evolve");
  const std::string p = "<html><body><p>" + Words(0, 40) + "</p></body></html>";
  const std::string p2 = "<html><body class=\"n\"><P>" + Words(0, 40) + "</P></body></html>";
  const std::string q = "<html><body><p>" + Words(500, 40) + "</p></body></html>";
  const std::string r = "<html><body><p>" + Words(900, 40) + "</p></body></html>";
  testing::WriteFileOrDie(dir + "/1.jsonl", testing::JsonLine("http://a.test/1", "html", p) +
                                                testing::JsonLine("http://b.test/2", "html", p) +
                                                testing::JsonLine("http://a.test/3", "html", q));
  testing::WriteFileOrDie(dir + "/2.jsonl", testing::JsonLine("http://a.test/1", "html", p) +
                                                testing::JsonLine("http://b.test/2", "html", p2) +
                                                testing::JsonLine("http://a.test/3", "html", r));
  EvolveOptions o;
  o.crawls = {dir + "/1.jsonl", dir + "/2.jsonl"};
  o.out_dir = dir + "/out";
  o.dedup.method = "exact";
  auto result = RunEvolve(o, nullptr, nullptr, nullptr);
  ASSERT_TRUE(result.ok()) << result.status().message();
  const EvolveSummary& s = result.value();
  ASSERT_EQ(s.crawls.size(), 2u);
  EXPECT_EQ(s.crawls[0].clusters, 1u);
  EXPECT_EQ(s.crawls[1].clusters, 1u);
  ASSERT_EQ(s.changes.size(), 1u);
  EXPECT_EQ(s.changes[0].common_urls, 3u);
  EXPECT_EQ(s.changes[0].by_amount[85], 1u);
  EXPECT_EQ(s.changes[0].by_amount[84], 1u);
  EXPECT_EQ(s.changes[0].by_amount[0], 1u);
  // u3 (size 1) changed completely; u1, u2 (size 2) not at all / not in text.
  EXPECT_EQ(s.changes[0].by_class_group[0][0], 1u);
  EXPECT_EQ(s.changes[0].by_class_group[1][4], 1u);
  EXPECT_EQ(s.changes[0].by_class_group[1][5], 1u);
  EXPECT_DOUBLE_EQ(s.size_classes[1].containment[1], 1.0);
  EXPECT_DOUBLE_EQ(s.size_classes[1].similarity[1], 1.0);
  EXPECT_EQ(s.host_changes[0].unchanged_hosts, 2u);
  for (const char* f : {"evolve.json", "report.html", "crawl-1/clusters.tsv", "crawl-2/summary.json"}) {
    EXPECT_FALSE(testing::ReadFileOrEmpty(dir + "/out/" + f).empty()) << f;
  }
  // A recrawl whose crawler wrote revisits for the pages it found unchanged:
  // u1 as it was (85), not a page gone; a revisit of nothing either crawl
  // holds leaves its URL out; one of a page this crawl read (another URL's
  // payload) is that page, a URL that appeared.
  // Crawl 1 against a second crawl of these JSON Lines.
  auto against_first = [&](const std::string& name, const std::string& second) {
    testing::WriteFileOrDie(dir + "/" + name + ".jsonl", second);
    o.crawls = {dir + "/1.jsonl", dir + "/" + name + ".jsonl"};
    o.out_dir = dir + "/out-" + name;
    return RunEvolve(o, nullptr, nullptr, nullptr);
  };
  auto revisited = against_first("3", R"({"url": "http://a.test/1", "revisit_of": "http://a.test/1"})" "\n"
                                       R"({"url": "http://b.test/2", "revisit_of": "http://b.test/elsewhere"})" "\n" +
                                           testing::JsonLine("http://a.test/3", "html", q) +
                                           testing::JsonLine("http://c.test/11", "html", r) +
                                           R"({"url": "http://c.test/10", "revisit_of": "http://c.test/11"})" "\n");
  ASSERT_TRUE(revisited.ok()) << revisited.status().message();
  ASSERT_EQ(revisited->changes.size(), 1u);
  EXPECT_EQ(revisited->changes[0].common_urls, 2u);
  EXPECT_EQ(revisited->changes[0].disappeared, 1u);
  EXPECT_EQ(revisited->changes[0].by_amount[85], 2u);  // u1 revisited, u3 the same bytes
  EXPECT_EQ(revisited->changes[0].appeared, 2u);       // c.test/11 and its revisit
  EXPECT_EQ(revisited->crawls[1].revisits_of_previous_crawl, 1u);  // a.test/1 (c.test/10's capture is here)
  // A crawl whose crawler found every page unchanged: u1 and u2 revisits,
  // u3 read again. Its own run holds no content for the revisits, yet the
  // cluster {u1, u2} is whole, not fallen apart: Φ and Ψ stay 1.
  auto unchanged = against_first("4", R"({"url": "http://a.test/1", "revisit_of": "http://a.test/1"})" "\n"
                                       R"({"url": "http://b.test/2", "revisit_of": "http://b.test/2"})" "\n" +
                                           testing::JsonLine("http://a.test/3", "html", q));
  ASSERT_TRUE(unchanged.ok()) << unchanged.status().message();
  ASSERT_EQ(unchanged->crawls.size(), 2u);
  EXPECT_EQ(unchanged->crawls[1].revisits_of_previous_crawl, 2u);
  EXPECT_EQ(unchanged->crawls[1].revisits_joined, 2u);
  EXPECT_EQ(unchanged->crawls[1].clusters, 1u);
  EXPECT_EQ(unchanged->crawls[1].duplicates, 1u);
  EXPECT_DOUBLE_EQ(unchanged->size_classes[1].containment[1], 1.0);
  EXPECT_DOUBLE_EQ(unchanged->size_classes[1].similarity[1], 1.0);
  EXPECT_EQ(unchanged->changes[0].by_amount[85], 3u);
  // One revisit, its cluster-mate read again alike: one cluster too.
  auto half = against_first("5", R"({"url": "http://a.test/1", "revisit_of": "http://a.test/1"})" "\n" +
                                     testing::JsonLine("http://b.test/2", "html", p) +
                                     testing::JsonLine("http://a.test/3", "html", q));
  ASSERT_TRUE(half.ok()) << half.status().message();
  EXPECT_EQ(half->crawls[1].clusters, 1u);
  EXPECT_EQ(half->crawls[1].revisits_joined, 1u);
  EXPECT_DOUBLE_EQ(half->size_classes[1].containment[1], 1.0);
  // One crawl is a usage error; a crawl with no page is NotFound.
  o.crawls = {dir + "/1.jsonl"};
  EXPECT_TRUE(RunEvolve(o, nullptr, nullptr, nullptr).status().IsInvalidArgument());
  testing::WriteFileOrDie(dir + "/empty.jsonl", "");
  o.crawls = {dir + "/1.jsonl", dir + "/empty.jsonl"};
  EXPECT_TRUE(RunEvolve(o, nullptr, nullptr, nullptr).status().IsNotFound());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace neardup
