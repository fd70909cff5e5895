// End-to-end tests of RunDedup: identity sets, output files and columns,
// determinism across thread counts, and bad inputs.
#include <gtest/gtest.h>

#include <filesystem>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <map>
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

using testing::JsonLine;

std::vector<std::vector<std::string>> ReadTsv(const std::string& path) {
  return testing::ReadTsvRows(path);
}

class Collector : public ReadObserver {
 public:
  void OnWarning(const ReadWarning& w) override { warnings.push_back(w); }
  std::vector<ReadWarning> warnings;
};

TEST(DedupTest, ExactClustersColumnsAndSummary) {
  const std::string dir = MakeTempDir("dedup");
  std::string jsonl;
  jsonl += JsonLine("http://a.example/1", "html", "<p>The quick brown fox</p><p>jumps over</p>");
  jsonl += JsonLine("http://b.example/2", "html",
                    "<div>The <b>quick</b> brown fox</div>\n<div>jumps   over</div>");  // same tokens
  jsonl += JsonLine("http://c.example/3", "html", "<p>Something else entirely</p>");
  jsonl += JsonLine("http://d.example/4", "html", "<p>Something else entirely</p>");  // same bytes
  jsonl += JsonLine("http://e.example/5", "text", "THE QUICK brown fox, jumps over!");  // same tokens
  jsonl += JsonLine("http://f.example/6", "html", "<img src=x.png>");  // no terms? img is a term
  jsonl += JsonLine("http://g.example/7", "html", "<p>   </p>");       // empty
  jsonl += JsonLine("http://h.example/8", "html", "<p> </p> ");        // empty, other bytes
  WriteFileOrDie(dir + "/in.jsonl", jsonl);

  DedupOptions options;
  options.method = "exact";
  options.keeper = "status,static-url,shorter-url,earlier-fetch,input-order";
  auto result = RunDedup({dir + "/in.jsonl"}, dir + "/out", options, nullptr, nullptr, nullptr,
                         nullptr);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  const DedupSummary& s = result.value();
  EXPECT_EQ(s.documents, 8u);
  EXPECT_EQ(s.clusters, 2u);
  EXPECT_EQ(s.documents_in_clusters, 5u);
  EXPECT_EQ(s.duplicates, 3u);
  EXPECT_DOUBLE_EQ(s.duplicate_percentage, 100.0 * 3 / 8);
  EXPECT_EQ(s.token_identity_sets, 2u);  // {1,2,5} and {3,4}
  EXPECT_EQ(s.byte_identity_sets, 1u);   // {3,4}
  EXPECT_EQ(s.empty_documents, 2u);

  auto rows = ReadTsv(dir + "/out/clusters.tsv");
  ASSERT_EQ(rows.size(), 9u);
  const std::vector<std::string> header = {"url", "cluster", "role", "method", "similarity",
                                           "source", "offset", "reason"};
  EXPECT_EQ(rows[0], header);
  // Row i+1 is document i, in input order.
  EXPECT_EQ(rows[1][0], "http://a.example/1");
  EXPECT_EQ(rows[1][1], "0");
  EXPECT_EQ(rows[1][2], "keep");
  EXPECT_EQ(rows[1][3], "exact");
  EXPECT_EQ(rows[1][4], "1");
  EXPECT_EQ(rows[2][1], "0");
  EXPECT_EQ(rows[2][2], "duplicate");
  EXPECT_EQ(rows[5][1], "0");
  EXPECT_EQ(rows[5][2], "duplicate");
  EXPECT_EQ(rows[3][1], "2");
  EXPECT_EQ(rows[3][2], "keep");
  EXPECT_EQ(rows[4][1], "2");
  EXPECT_EQ(rows[4][2], "duplicate");
  for (int r : {6, 7, 8}) {
    EXPECT_EQ(rows[r][1], std::to_string(r - 1));
    EXPECT_EQ(rows[r][2], "keep");
    EXPECT_EQ(rows[r][3], "single");
    EXPECT_EQ(rows[r][7], "single");
  }
  // Cluster {0, 1, 4}: same status, static URLs of one length, no dates:
  // input order decides. Likewise {2, 3}.
  EXPECT_EQ(rows[1][7], "input-order");
  EXPECT_EQ(rows[4][7], "input-order");
  for (const auto& row : rows) EXPECT_EQ(row.size(), header.size());

  auto j = nlohmann::json::parse(ReadFileOrEmpty(dir + "/out/summary.json"));
  EXPECT_EQ(j["documents_read"], 8);
  EXPECT_EQ(j["clusters"], 2);
  EXPECT_EQ(j["documents_in_clusters"], 5);
  EXPECT_EQ(j["duplicates"], 3);
  EXPECT_DOUBLE_EQ(j["duplicate_percentage"].get<double>(), 37.5);
  EXPECT_EQ(j["identity_sets"]["token_sequence"], 2);
  EXPECT_EQ(j["identity_sets"]["bytes"], 1);
  EXPECT_EQ(j["options"]["method"], "exact");
  EXPECT_EQ(j["neardup_version"], Version());
  ASSERT_TRUE(j["stages"].is_array());
  std::vector<std::string> stage_names;
  for (const auto& st : j["stages"]) stage_names.push_back(st["name"]);
  EXPECT_EQ(stage_names, (std::vector<std::string>{"read", "tokenize", "exact", "keepers", "clusters", "write"}));
  EXPECT_FALSE(fs::exists(dir + "/out/.clusters.tsv.spill"));
  fs::remove_all(dir);
}

// Writes a corpus with many exact copies in random places.
std::string RandomCorpus(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::string> bodies;
  std::string out;
  for (int i = 0; i < n; ++i) {
    std::string body;
    if (!bodies.empty() && rng() % 3 == 0) {
      body = bodies[rng() % bodies.size()];
      if (rng() % 2) body = "<div>" + body + "</div>";  // same tokens, other bytes
    } else {
      for (int w = 0; w < 20 + static_cast<int>(rng() % 50); ++w) {
        body += "w" + std::to_string(rng() % 500) + (rng() % 7 == 0 ? ". " : " ");
      }
      bodies.push_back(body);
    }
    out += JsonLine("http://s" + std::to_string(rng() % 50) + ".example/p" + std::to_string(i),
                    "html", body);
  }
  return out;
}

TEST(DedupTest, SameOutputForAnyThreadCount) {
  const std::string dir = MakeTempDir("threads");
  WriteFileOrDie(dir + "/a.jsonl", RandomCorpus(3000, 1));
  WriteFileOrDie(dir + "/b.jsonl", RandomCorpus(1500, 2));
  std::string reference;
  for (int threads : {1, 2, 3, 8}) {
    std::unique_ptr<Executor> ex;
    if (threads > 1) ex = NewThreadPoolExecutor(threads);
    DedupOptions options;
    options.batch_documents = 7;  // many batches in flight, out-of-order completion
    const std::string out = dir + "/out" + std::to_string(threads);
    auto r = RunDedup({dir + "/a.jsonl", dir + "/b.jsonl"}, out, options, ex.get(), nullptr,
                      nullptr, nullptr);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r.value().documents, 4500u);
    EXPECT_GT(r.value().clusters, 100u);
    const std::string tsv = ReadFileOrEmpty(out + "/clusters.tsv");
    if (reference.empty()) {
      reference = tsv;
    } else {
      EXPECT_EQ(tsv, reference) << "threads=" << threads;
    }
  }
  fs::remove_all(dir);
}

TEST(DedupTest, MissingInputsWarnAndTheRunGoesOn) {
  const std::string dir = MakeTempDir("missing");
  WriteFileOrDie(dir + "/good.jsonl", JsonLine("http://x/1", "text", "hello world") +
                                          "{not json\n" + JsonLine("http://x/2", "text", "hello world"));
  Collector warnings;
  auto r = RunDedup({dir + "/does-not-exist", dir + "/good.jsonl"}, dir + "/out", DedupOptions(),
                    nullptr, nullptr, &warnings, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r.value().documents, 2u);
  EXPECT_EQ(r.value().clusters, 1u);
  EXPECT_GE(r.value().warnings, 2u);
  ASSERT_GE(warnings.warnings.size(), 2u);
  bool named_missing = false;
  for (const auto& w : warnings.warnings) {
    EXPECT_FALSE(w.file.empty());
    EXPECT_FALSE(w.reason_key.empty());
    if (w.file.find("does-not-exist") != std::string::npos) named_missing = true;
  }
  EXPECT_TRUE(named_missing);
  // warnings.tsv holds every warning, one line each after the header.
  auto rows = ReadTsv(dir + "/out/warnings.tsv");
  EXPECT_EQ(rows.size(), warnings.warnings.size() + 1);
  fs::remove_all(dir);
}

TEST(DedupTest, NothingReadableGivesZeroDocuments) {
  const std::string dir = MakeTempDir("nothing");
  WriteFileOrDie(dir + "/garbage.warc", std::string(5000, '\x07'));
  auto r = RunDedup({dir + "/garbage.warc", dir + "/nope"}, dir + "/out", DedupOptions(), nullptr,
                    nullptr, nullptr, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r.value().documents, 0u);
  EXPECT_GE(r.value().warnings, 2u);
  fs::remove_all(dir);
}

TEST(DedupTest, BadOptionsAndUnwritableOutput) {
  const std::string dir = MakeTempDir("badopt");
  WriteFileOrDie(dir + "/in.jsonl", JsonLine("http://x/1", "text", "a b c"));
  DedupOptions bad;
  bad.method = "magic";
  auto r = RunDedup({dir + "/in.jsonl"}, dir + "/out", bad, nullptr, nullptr, nullptr, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
  EXPECT_NE(r.status().message().find("exact"), std::string::npos);  // lists valid choices
  // An output "folder" that is a regular file cannot be created.
  WriteFileOrDie(dir + "/file", "x");
  auto w = RunDedup({dir + "/in.jsonl"}, dir + "/file/out", DedupOptions(), nullptr, nullptr,
                    nullptr, nullptr);
  ASSERT_FALSE(w.ok());
  EXPECT_TRUE(w.status().IsIOError()) << w.status().ToString();
  fs::remove_all(dir);
}

TEST(DedupTest, ProgressCallbackCanCancel) {
  const std::string dir = MakeTempDir("cancel");
  WriteFileOrDie(dir + "/a.jsonl", RandomCorpus(2000, 3));
  DedupOptions options;
  options.batch_documents = 10;
  int calls = 0;
  auto r = RunDedup({dir + "/a.jsonl"}, dir + "/out", options, nullptr, nullptr, nullptr,
                    [&](const DedupProgress& p) {
                      ++calls;
                      return p.documents < 100;
                    },
                    0.0);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCancelled()) << r.status().ToString();
  EXPECT_EQ(r.status().message(), "cancelled");
  EXPECT_GE(calls, 1);
  fs::remove_all(dir);
}

// The phase callback hears of reading before the first page is read and of
// clustering once all are read, also when reading was cancelled.
TEST(DedupTest, PhaseCallbackMarksReadingAndClustering) {
  const std::string dir = MakeTempDir("phases");
  WriteFileOrDie(dir + "/a.jsonl", RandomCorpus(300, 5));
  DedupOptions options;
  options.batch_documents = 10;
  std::vector<std::pair<DedupPhase, uint64_t>> phases;  // with the documents read by then
  uint64_t read = 0;
  auto on_progress = [&](const DedupProgress& p) {
    read = p.documents;
    return true;
  };
  auto on_phase = [&](DedupPhase phase) { phases.emplace_back(phase, read); };
  auto r = RunDedup({dir + "/a.jsonl"}, dir + "/out", options, nullptr, nullptr, nullptr, on_progress, 0.0,
                    on_phase);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(phases.size(), 2u);
  EXPECT_EQ(phases[0], std::make_pair(DedupPhase::kReading, uint64_t{0}));
  EXPECT_EQ(phases[1].first, DedupPhase::kClustering);
  EXPECT_GT(phases[1].second, 0u);
  EXPECT_EQ(r.value().documents, 300u);

  phases.clear();
  read = 0;
  auto cancelled = RunDedup({dir + "/a.jsonl"}, dir + "/out2", options, nullptr, nullptr, nullptr,
                            [](const DedupProgress& p) { return p.documents < 50; }, 0.0, on_phase);
  EXPECT_TRUE(cancelled.status().IsCancelled()) << cancelled.status().ToString();
  ASSERT_EQ(phases.size(), 2u);
  EXPECT_EQ(phases[1].first, DedupPhase::kClustering);
  fs::remove_all(dir);
}

// A page of a million and a half terms takes about a hundred megabytes of
// scratch to sign (its tokens, shingles, the distinct-shingle set, the
// normalized terms). That room is let go after the page (SignUnclaimed,
// ReleaseIfLarge): once reading ends the run holds what its ordinary pages
// need, and the memory budget is left to the stages after it. Counted in
// glibc malloc's bytes in use, all arenas (mallinfo2), on two threads.
TEST(DedupTest, ScratchOfAVeryLongPageIsLetGoAfterIt) {
#if !defined(__GLIBC__) || defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "counts glibc malloc's bytes in use";
#else
  const std::string dir = MakeTempDir("long-page");
  std::string long_text;
  std::mt19937 rng(7);
  for (int i = 0; i < 1500000; ++i) long_text += "w" + std::to_string(rng() % 200000) + " ";
  std::string jsonl = RandomCorpus(40, 3);
  jsonl += JsonLine("http://long.example.org/all.txt", "text", long_text);
  jsonl += RandomCorpus(40, 4);
  WriteFileOrDie(dir + "/a.jsonl", jsonl);
  long_text.clear();
  long_text.shrink_to_fit();
  auto in_use = [] {
    const struct mallinfo2 m = mallinfo2();
    return static_cast<int64_t>(m.uordblks + m.hblkhd);
  };
  const int64_t before = in_use();
  int64_t at_clustering = 0;
  auto on_phase = [&](DedupPhase phase) {
    if (phase == DedupPhase::kClustering) at_clustering = in_use();
  };
  auto executor = NewThreadPoolExecutor(1);
  auto r = RunDedup({dir + "/a.jsonl"}, dir + "/out", DedupOptions(), executor.get(), nullptr, nullptr, nullptr, 0.0,
                    on_phase);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r.value().documents, 81u);
  EXPECT_LT(at_clustering - before, int64_t{24} << 20) << "bytes in use once reading ended";
  fs::remove_all(dir);
#endif
}

}  // namespace
}  // namespace neardup

namespace neardup {
namespace {

TEST(DedupTest, KeeperRulesChooseTheKeptPage) {
  const std::string dir = testing::MakeTempDir("keeper");
  const std::string body = "<p>The same article text on every copy of this page</p>";
  std::string jsonl = testing::JsonLine("http://mirror.example.org/a/long/path/page.html", "html", body) +
                      testing::JsonLine("http://example.org/page.html?session=1", "html", body) +
                      testing::JsonLine("http://example.org/page.html", "html", body);
  testing::WriteFileOrDie(dir + "/in.jsonl", jsonl);
  auto r = RunDedup({dir + "/in.jsonl"}, dir + "/out", DedupOptions(), nullptr, nullptr, nullptr,
                    nullptr);
  ASSERT_TRUE(r.ok());
  auto rows = testing::ReadTsvRows(dir + "/out/clusters.tsv");
  ASSERT_EQ(rows.size(), 4u);
  // The static URL wins over the dynamic one, then the shorter static URL.
  for (int i = 1; i <= 3; ++i) EXPECT_EQ(rows[i][1], "2");
  EXPECT_EQ(rows[3][2], "keep");
  EXPECT_EQ(rows[3][7], "shorter-url");
  // Only input order: the first page.
  DedupOptions o;
  o.keeper = "input-order";
  auto r2 = RunDedup({dir + "/in.jsonl"}, dir + "/out2", o, nullptr, nullptr, nullptr, nullptr);
  ASSERT_TRUE(r2.ok());
  rows = testing::ReadTsvRows(dir + "/out2/clusters.tsv");
  EXPECT_EQ(rows[3][1], "0");
  // in-links: of two static URLs of the same length, the one that more
  // pages of the crawl link to (a page's links to itself do not count).
  const std::string linked = "http://example.org/b.html";
  std::string jsonl2 = testing::JsonLine("http://example.org/a.html", "html", body + "<a href=a.html></a>") +
                       testing::JsonLine(linked, "html", body);
  for (int i = 0; i < 3; ++i) {
    jsonl2 += testing::JsonLine("http://other" + std::to_string(i) + ".example/", "html",
                                "<p>Page " + std::string(1, static_cast<char>('x' + i)) +
                                " links <a href=\"" + linked + "\">b</a> <a href=\"" + linked + "#top\">again</a></p>");
  }
  testing::WriteFileOrDie(dir + "/links.jsonl", jsonl2);
  DedupOptions with_links;
  with_links.keeper = "status,static-url,in-links,shorter-url,earlier-fetch,url-hash,input-order";
  auto r3 = RunDedup({dir + "/links.jsonl"}, dir + "/out4", with_links, nullptr, nullptr, nullptr, nullptr);
  ASSERT_TRUE(r3.ok()) << r3.status().ToString();
  rows = testing::ReadTsvRows(dir + "/out4/clusters.tsv");
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[1][1], "1");
  EXPECT_EQ(rows[2][2], "keep");
  EXPECT_EQ(rows[2][7], "in-links");
  EXPECT_FALSE(std::filesystem::exists(dir + "/out4/.links.spill"));
  o.keeper = "largest";
  EXPECT_TRUE(RunDedup({dir + "/in.jsonl"}, dir + "/out3", o, nullptr, nullptr, nullptr, nullptr)
                  .status()
                  .IsInvalidArgument());
  std::filesystem::remove_all(dir);
}

// Copies of one page on 24 hosts, each with a 12-word sentence of its own
// inserted: each copy is an edit of the original (robust: 20 shingles or so
// apart), two copies are twice that apart and below the whole-page bar. The
// kept page, by the shorter-URL rule, is a copy, against which most other
// copies fail; verification must move to the cluster's center (the
// original, which every copy passes) and keep the cluster whole, as
// --no-verify does, instead of splitting the copies off.
TEST(DedupTest, VerificationMovesToTheCenterOfCopiesAroundAnOriginal) {
  const std::string dir = MakeTempDir("dedup-center");
  std::mt19937 rng(17);
  auto word = [&] {
    std::string w;
    for (int c = 3 + static_cast<int>(rng() % 6); c > 0; --c) w.push_back(static_cast<char>('a' + rng() % 26));
    return w;
  };
  auto html = [](const std::vector<std::string>& words) {
    std::string h = "<html><body><p>";
    for (const std::string& w : words) h += w + " ";
    return h + "</p></body></html>";
  };
  std::vector<std::string> original;
  for (int i = 0; i < 150; ++i) original.push_back(word());
  std::string jsonl = JsonLine("http://www.original-project.example/manual/reference/chapter/section.html", "html",
                               html(original));
  for (int copy = 0; copy < 24; ++copy) {
    std::vector<std::string> words = original;
    std::vector<std::string> sentence;
    for (int i = 0; i < 12; ++i) sentence.push_back(word());
    words.insert(words.begin() + (copy * 37) % 150, sentence.begin(), sentence.end());
    jsonl += JsonLine("http://h" + std::to_string(copy) + ".example/m.html", "html", html(words));
  }
  WriteFileOrDie(dir + "/in.jsonl", jsonl);
  for (bool verify : {true, false}) {
    DedupOptions options;
    options.verify = verify;
    // Main text off: with it, copies this alike pass against each other
    // directly (their main texts agree on over half their shingles), and
    // the center is not needed.
    options.robust.main_minhashes = 0;
    auto result = RunDedup({dir + "/in.jsonl"}, dir + (verify ? "/out" : "/out-no-verify"), options, nullptr,
                           nullptr, nullptr, nullptr);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    const DedupSummary& s = result.value();
    EXPECT_EQ(s.clusters, 1u) << verify;
    EXPECT_EQ(s.documents_in_clusters, 25u) << verify;
    EXPECT_EQ(s.verification_split_off, 0u) << verify;
    EXPECT_EQ(s.verification_recentered, verify ? 1u : 0u);
    // Every step of the run is timed; verification only where it ran.
    std::vector<std::string> stage_names;
    for (const auto& st : s.stages) stage_names.push_back(st.name);
    std::vector<std::string> expected{"read", "tokenize", "exact", "near", "keepers", "verify", "clusters", "write"};
    if (!verify) expected.erase(expected.begin() + 5);
    EXPECT_EQ(stage_names, expected) << verify;
  }
  // The kept page is chosen by its rules among the members (a copy with a
  // short URL), not the center.
  int kept = 0;
  for (const auto& row : ReadTsv(dir + "/out/clusters.tsv")) {
    if (row.size() > 2 && row[2] == "keep") {
      ++kept;
      EXPECT_EQ(row[0].rfind("http://h", 0), 0u) << row[0];
    }
  }
  EXPECT_EQ(kept, 1);
  std::filesystem::remove_all(dir);
}

// Servers' default pages: every host of a crawl answers a missing page and
// a forbidden one with the same two pages (equal after normalization, the
// host's name in them normalized away). Pages that many sites hold are
// common pages, not mirrors: they must not make the hosts one site, whose
// template would then be learned at 5% of all their pages, so that no
// host's own template is boilerplate and its articles read alike. Each
// host's articles (a long shared template around a short text of their
// own) stay apart; the default pages are one cluster each.
TEST(DedupTest, DefaultPagesOnEveryHostJoinNoSitesAndLeaveTheirTemplatesBoilerplate) {
  const std::string dir = MakeTempDir("dedup-default-pages");
  std::mt19937 rng(29);
  auto words = [&](int n) {
    std::string s;
    for (int i = 0; i < n; ++i) {
      for (int c = 3 + static_cast<int>(rng() % 6); c > 0; --c) s.push_back(static_cast<char>('a' + rng() % 26));
      s += (i % 11 == 10) ? ". " : " ";
    }
    return s;
  };
  constexpr int kHosts = 40, kArticles = 5;
  std::string jsonl;
  for (int h = 0; h < kHosts; ++h) {
    const std::string host = "www.host" + std::to_string(h) + ".example";
    std::string head = "<html><body><div>" + words(6) + "</div><ul>";
    for (int l = 0; l < 60; ++l) head += "<li><a href='/s" + std::to_string(l) + "'>" + words(3) + "</a></li>";
    head += "</ul>";
    const std::string tail = "<div>" + words(30) + "</div><div>" + words(20) + "</div></body></html>";
    for (int a = 0; a < kArticles; ++a) {
      jsonl += JsonLine("http://" + host + "/news/" + std::to_string(a) + ".html", "html",
                        head + "<p>" + words(40) + "</p>" + tail);
    }
    jsonl += JsonLine("http://" + host + "/missing.html", "html",
                      "<html><body><h1>Not Found</h1><p>The requested URL was not found on this server.</p>"
                      "<address>Apache Server at " + host + " Port 80</address></body></html>");
    jsonl += JsonLine("http://" + host + "/private/", "html",
                      "<html><body><h1>Forbidden</h1><p>You don't have permission to access this resource.</p>"
                      "<address>Apache Server at " + host + " Port 80</address></body></html>");
  }
  WriteFileOrDie(dir + "/in.jsonl", jsonl);
  auto result = RunDedup({dir + "/in.jsonl"}, dir + "/out", DedupOptions(), nullptr, nullptr, nullptr, nullptr);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  std::map<std::string, std::vector<std::string>> clusters;
  for (const auto& row : ReadTsv(dir + "/out/clusters.tsv")) {
    if (row.size() > 1 && row[0] != "url") clusters[row[1]].push_back(row[0]);
  }
  int default_clusters = 0;
  for (const auto& [cluster, urls] : clusters) {
    int articles = 0;
    for (const std::string& url : urls) articles += url.find("/news/") != std::string::npos;
    EXPECT_LE(articles, 1) << "articles of one template merged in cluster " << cluster << ", e.g. " << urls[0];
    if (articles == 0) {
      ++default_clusters;
      EXPECT_EQ(urls.size(), size_t{kHosts}) << urls[0];
    }
  }
  EXPECT_EQ(default_clusters, 2);
  EXPECT_EQ(clusters.size(), size_t{kHosts * kArticles + 2});
  std::filesystem::remove_all(dir);
}

// A small news site of ten articles, one of them in four versions (the
// article, its print and mobile pages and a later capture, each with its
// own sentence rewritten and the year changed): the versions are one
// cluster through the whole run (bands, the rule, verification against the
// kept page), though their text is held by the site's template share of its
// pages; every other article stays alone. Before the rule of versions of
// one item, their text was learned as the site's template and each version
// stayed alone.
TEST(DedupTest, APageWithSeveralVersionsOnItsSmallSiteIsOneCluster) {
  const std::string dir = MakeTempDir("dedup-versions");
  std::mt19937 rng(31);
  auto words = [&](int n) {
    std::string s;
    for (int i = 0; i < n; ++i) {
      for (int c = 3 + static_cast<int>(rng() % 6); c > 0; --c) s.push_back(static_cast<char>('a' + rng() % 26));
      s += (i % 12 == 11) ? ". " : " ";
    }
    return s;
  };
  std::string head = "<html><body><div>" + words(6) + "</div><ul>";
  for (int l = 0; l < 30; ++l) head += "<li><a href='/s" + std::to_string(l) + "'>" + words(3) + "</a></li>";
  head += "</ul>";
  const std::string tail = "<div>" + words(20) + "</div></body></html>";
  auto page = [&](const std::string& text, int year) {
    std::string html = head;
    html += "<p>";  // paragraphs of 24 words
    int spaces = 0;
    for (char c : text) {
      html.push_back(c);
      if (c == ' ' && ++spaces % 24 == 0) html += "</p><p>";
    }
    return html + "</p>" + "<p>Updated " + std::to_string(year) + " by the newsroom.</p>" + tail;
  };
  const std::string story = words(400);
  std::string jsonl = JsonLine("http://www.small-paper.example/2023/story.html", "html", page(story, 2023));
  const char* const kVersions[] = {"print/story.html", "m/story.html", "2024/story.html"};
  for (int v = 0; v < 3; ++v) {
    std::string text = story;
    const size_t at = text.find(". ", 400 * (v + 1)) + 2;
    text.replace(at, text.find(". ", at) - at, words(12));
    jsonl += JsonLine(std::string("http://www.small-paper.example/") + kVersions[v], "html", page(text, 2024 + v));
  }
  for (int a = 0; a < 9; ++a) {
    jsonl += JsonLine("http://www.small-paper.example/news/" + std::to_string(a) + ".html", "html",
                      page(words(400), 2024));
  }
  WriteFileOrDie(dir + "/in.jsonl", jsonl);
  auto result = RunDedup({dir + "/in.jsonl"}, dir + "/out", DedupOptions(), nullptr, nullptr, nullptr, nullptr);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  std::map<std::string, std::vector<std::string>> clusters;
  std::string story_cluster;
  for (const auto& row : ReadTsv(dir + "/out/clusters.tsv")) {
    if (row.size() < 2 || row[0] == "url") continue;
    clusters[row[1]].push_back(row[0]);
    if (row[0].find("story.html") != std::string::npos) {
      if (story_cluster.empty()) story_cluster = row[1];
      EXPECT_EQ(row[1], story_cluster) << row[0] << " is not with the other versions";
    }
  }
  EXPECT_EQ(clusters[story_cluster].size(), 4u);
  EXPECT_EQ(clusters.size(), 10u) << "the nine other articles alone";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace neardup
