// Quality regression (tests/regression/quality.csv): every method's scores on
// two benchmarks built in the test from the real pages of the sample crawl:
//  - sample-variants: copies that differ only as Henzinger's correct
//    near-duplicates do (a timestamp, a visitor count, a server name and
//    execution time, the page served from a mirror host, white space) and
//    hard negatives (a page of the same site sharing the template, its text
//    replaced); the crawl's pages that are one page (equal bytes, or two
//    captures with the same canonical URL and title) are one group;
//  - synth-sample: the crawl `neardup synth` builds from the sample crawl
//    (template sites with hard negatives, session ids, aliases, markup
//    changes, mirrored subtrees, edited scraped copies, parked domains).
// The figures must equal the file's: a change that moves them must update the
// file explicitly. The default method must also meet the targets on
// synth-sample: pairwise precision >= 0.995, recall >= 0.9, and no wrongly
// merged pair of pages of one site (the two items alone on a site of two
// pages included, which the default would take for one text, their whole
// pages and main texts alike, but that their titles name apart).
//
// With the shared real data present (skipped otherwise), the labelled pairs
// of stia-near-duplicates under their real URLs (bench/labeled_crawl.py):
// the default reaches labelled-pair precision >= 0.99 and recall >= 0.85,
// merges no page with its body-swapped variant, and has an F1 at least that
// of broder, simhash and combined. On the real page pairs this project
// judged (bench/labels/real-pairs.tsv over shared/data/html,
// bench/real_pairs.py), the default merges no two different articles of one
// site's template (sister sites of one newspaper group included) and has an
// F1 at least that of broder, simhash and combined.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "neardup/engine.h"
#include "neardup/env.h"
#include "neardup/evaluation.h"
#include "neardup/source.h"
#include "synth/synth.h"
#include "test_util.h"

namespace neardup {
namespace {

namespace fs = std::filesystem;

std::string InsertInBody(const std::string& html, const std::string& snippet) {
  size_t pos = html.find("<body");
  if (pos != std::string::npos) pos = html.find('>', pos);
  pos = pos == std::string::npos ? 0 : pos + 1;
  return html.substr(0, pos) + snippet + html.substr(pos);
}

// Replaces ~45% of the words outside tags: same template, other text.
std::string ReplaceWords(const std::string& html, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string out;
  bool in_tag = false;
  for (size_t i = 0; i < html.size();) {
    const char c = html[i];
    if (in_tag || c == '<') {
      in_tag = c == '<' ? true : (c != '>');
      if (c == '<') in_tag = true;
      out.push_back(c);
      ++i;
      continue;
    }
    // A word: a run of ASCII letters, or of non-ASCII bytes (UTF-8 text of
    // other scripts, where a run is often a whole phrase).
    auto letter = [](unsigned char x) { return std::isalpha(x) || x >= 0x80; };
    if (letter(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < html.size() && letter(static_cast<unsigned char>(html[j]))) ++j;
      if (rng() % 100 < 45) {
        out += "q" + std::to_string(rng() % 100000);
      } else {
        out.append(html, i, j - i);
      }
      i = j;
      continue;
    }
    out.push_back(c);
    ++i;
  }
  return out;
}

std::string DoubleSpaces(const std::string& html) {
  std::string out;
  for (char c : html) {
    out.push_back(c);
    if (c == ' ') out.push_back(' ');
  }
  return out;
}

struct Corpus {
  std::string jsonl;
  std::string truth;
};

// The page's canonical URL (<link rel="canonical" href=...>) and its title,
// or "" without a canonical link: two captures of one page (its comments or
// counters changed between them) name the same.
std::string CanonicalAndTitle(const std::string& html) {
  std::string lower = html;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const size_t rel = lower.find("rel=\"canonical\"");
  if (rel == std::string::npos) return "";
  const size_t open = lower.rfind('<', rel), close = lower.find('>', rel);
  const size_t href = lower.find("href=\"", open);
  if (open == std::string::npos || close == std::string::npos || href == std::string::npos || href > close) return "";
  const size_t end = html.find('"', href + 6);
  if (end == std::string::npos || end > close) return "";
  std::string key = html.substr(href + 6, end - href - 6);
  const size_t title = lower.find("<title");
  const size_t title_text = title == std::string::npos ? title : lower.find('>', title);
  const size_t title_end = title_text == std::string::npos ? title_text : lower.find("</title>", title_text);
  if (title_end != std::string::npos) key += "\t" + html.substr(title_text + 1, title_end - title_text - 1);
  return key;
}

Corpus BuildCorpus(const std::string& dir) {
  // The sample crawl's real 200 pages.
  auto source = OpenDocumentSource({testing::RepoTestDataDir() + "/sample/sample-crawl.warc.gz"},
                                   SourceOptions(), nullptr, nullptr);
  NEARDUP_CHECK(source.ok());
  std::vector<std::string> pages;
  std::map<std::string, bool> seen;
  Document d;
  while (source.value()->Next(&d)) {
    if (d.http_status == 200 && d.body.size() > 2000 && !seen[d.body]) {
      seen[d.body] = true;
      pages.push_back(d.body);
    }
  }
  // Pages of the crawl that are real copies of each other keep one group:
  // find them with the exact method first.
  std::string originals;
  for (size_t i = 0; i < pages.size(); ++i) {
    originals += testing::JsonLine("http://site" + std::to_string(i) + ".example/page", "html", pages[i]);
  }
  testing::WriteFileOrDie(dir + "/originals.jsonl", originals);
  DedupOptions exact;
  exact.method = "exact";
  auto r = RunDedup({dir + "/originals.jsonl"}, dir + "/originals", exact, nullptr, nullptr, nullptr, nullptr);
  NEARDUP_CHECK(r.ok());
  std::map<std::string, std::string> group_of;  // original url -> its exact cluster
  for (const auto& row : testing::ReadTsvRows(dir + "/originals/clusters.tsv")) {
    if (row[0] != "url") group_of[row[0]] = "g" + row[1];
  }
  // So are two captures of one page: the same canonical URL and title (the
  // crawl holds two captures each of a CNN Arabic and a Lifehacker article,
  // their comments and counters changed, which the exact method keeps apart).
  std::map<std::string, std::string> group_of_page;  // canonical URL and title -> group
  std::map<std::string, std::string> joined;         // group -> the group it joined
  for (size_t i = 0; i < pages.size(); ++i) {
    const std::string key = CanonicalAndTitle(pages[i]);
    if (key.empty()) continue;
    const std::string g = group_of["http://site" + std::to_string(i) + ".example/page"];
    const auto [at, first] = group_of_page.emplace(key, g);
    if (!first && at->second != g) joined[g] = at->second;
  }
  for (auto& [url, g] : group_of) {
    while (joined.count(g)) g = joined[g];
  }
  Corpus c;
  c.truth = "url\tgroup\n";
  auto add = [&](const std::string& url, const std::string& html, const std::string& group) {
    c.jsonl += testing::JsonLine(url, "html", html);
    c.truth += url + "\t" + group + "\n";
  };
  for (size_t i = 0; i < pages.size(); ++i) {
    const std::string site = "http://www.site" + std::to_string(i) + ".example";
    const std::string g = group_of["http://site" + std::to_string(i) + ".example/page"];
    add(site + "/page", pages[i], g);
    add(site + "/page?ts=1", InsertInBody(pages[i], "<p>Last updated 2024-03-1" + std::to_string(i % 10) + " 12:34:56</p>"), g);
    add(site + "/page?v=1", InsertInBody(pages[i], "<p>Visitors: " + std::to_string(1000 + 37 * i) + "</p>"), g);
    add(site + "/page?srv=1", InsertInBody(pages[i], "<p>Served by web-0" + std::to_string(i % 7) + ".example.net in 0.0" + std::to_string(i % 9) + " s</p>"), g);
    add("http://mirror" + std::to_string(i) + ".example.org/page", pages[i], g);
    add(site + "/page?fmt=1", DoubleSpaces(pages[i]), g);
    add(site + "/other", ReplaceWords(pages[i], static_cast<uint32_t>(i)), "n" + std::to_string(i));
  }
  return c;
}

struct Row {
  double precision = 0, recall = 0, bcubed_precision = 0, bcubed_recall = 0;
  uint64_t wrong_same_site_merges = 0;
};

// Rows keyed by "corpus,method".
std::map<std::string, Row> ReadRegressionFile(const std::string& path) {
  std::map<std::string, Row> rows;
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::stringstream ss(line);
    std::string method, corpus, field;
    std::getline(ss, corpus, ',');
    std::getline(ss, method, ',');
    Row r;
    std::getline(ss, field, ',');
    r.precision = std::stod(field);
    std::getline(ss, field, ',');
    r.recall = std::stod(field);
    std::getline(ss, field, ',');
    r.bcubed_precision = std::stod(field);
    std::getline(ss, field, ',');
    r.bcubed_recall = std::stod(field);
    std::getline(ss, field, ',');
    r.wrong_same_site_merges = std::stoull(field);
    rows[corpus + "," + method] = r;
  }
  return rows;
}

constexpr const char* kMethods[] = {"exact", "broder", "simhash", "combined", "robust"};

// Runs every method on `input` and checks the scores against the file's rows
// for `corpus`; returns the measured rows (to print) and each method's result.
std::map<std::string, EvaluationResult> ScoreMethods(const std::string& corpus, const std::string& input,
                                                     const std::string& truth, const std::string& dir,
                                                     std::string* measured) {
  const std::string file = std::string(NEARDUP_SOURCE_DIR) + "/tests/regression/quality.csv";
  const auto expected = ReadRegressionFile(file);
  std::map<std::string, EvaluationResult> results;
  for (const char* method : kMethods) {
    DedupOptions o;
    o.method = method;
    auto r = RunDedup({input}, dir + "/" + corpus + "-" + method, o, nullptr, nullptr, nullptr, nullptr);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) continue;
    auto e = EvaluateFiles(truth, dir + "/" + corpus + "-" + method, Env::Default());
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    if (!e.ok()) continue;
    results[method] = e.value();
    char line[256];
    std::snprintf(line, sizeof line, "%s,%s,%.4f,%.4f,%.4f,%.4f,%llu\n", corpus.c_str(), method,
                  e.value().all.precision(), e.value().all.recall(), e.value().bcubed_precision,
                  e.value().bcubed_recall, static_cast<unsigned long long>(e.value().wrong_same_site_merges));
    *measured += line;
    const std::string key = corpus + "," + method;
    if (!expected.count(key)) {
      ADD_FAILURE() << "no row for " << key << " in " << file;
      continue;
    }
    const Row& x = expected.at(key);
    EXPECT_NEAR(e.value().all.precision(), x.precision, 5e-5) << method;
    EXPECT_NEAR(e.value().all.recall(), x.recall, 5e-5) << method;
    EXPECT_NEAR(e.value().bcubed_precision, x.bcubed_precision, 5e-5) << method;
    EXPECT_NEAR(e.value().bcubed_recall, x.bcubed_recall, 5e-5) << method;
    EXPECT_EQ(e.value().wrong_same_site_merges, x.wrong_same_site_merges) << method;
  }
  return results;
}

void PrintMeasured(const std::string& measured) {
  std::printf("[ quality ] measured (update tests/regression/quality.csv when a change moves these):\n%s",
              measured.c_str());
}

TEST(QualityRegressionTest, MethodsScoreAsRecordedOnSampleVariants) {
  const std::string dir = testing::MakeTempDir("quality");
  const Corpus corpus = BuildCorpus(dir);
  testing::WriteFileOrDie(dir + "/corpus.jsonl", corpus.jsonl);
  testing::WriteFileOrDie(dir + "/truth.tsv", corpus.truth);
  std::string measured;
  ScoreMethods("sample-variants", dir + "/corpus.jsonl", dir + "/truth.tsv", dir, &measured);
  PrintMeasured(measured);
  // NEARDUP_KEEP_QUALITY set: the corpus, its truth and every method's run
  // stay in the temporary folder, to look at what moved a figure.
  if (!std::getenv("NEARDUP_KEEP_QUALITY")) fs::remove_all(dir);
}

TEST(QualityRegressionTest, MethodsScoreAsRecordedOnSynthSample) {
  const std::string dir = testing::MakeTempDir("quality-synth");
  SynthOptions so;
  so.inputs = {testing::RepoTestDataDir() + "/sample/sample-crawl.warc.gz"};
  so.out_warc = dir + "/crawl.warc.gz";
  so.out_truth = dir + "/truth.tsv";
  so.sites = 40;
  so.seed = 1;
  auto built = BuildSyntheticCrawl(so, nullptr);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  ASSERT_GT(built.value().hard_negative_pages, 20u);
  std::string measured;
  const auto results = ScoreMethods("synth-sample", so.out_warc, so.out_truth, dir, &measured);
  PrintMeasured(measured);
  // The default method meets the targets.
  const std::string method = DedupOptions().method;
  ASSERT_TRUE(results.count(method)) << method;
  const EvaluationResult& e = results.at(method);
  // Targets: precision >= 0.995 and no wrongly merged pair of one site's
  // pages, the two items alone on a site of two included (their titles name
  // two items: TitlesNameTwoItems). Recall on this small benchmark is
  // dominated by one page with 38 copies; README "Choosing a method" gives
  // it on the larger ones.
  EXPECT_GE(e.all.precision(), 0.995) << method;
  EXPECT_GE(e.all.recall(), 0.9) << method;
  EXPECT_EQ(e.wrong_same_site_merges, 0u) << method;
  // And it has the best F1 among the methods with precision >= 0.99.
  for (const auto& [other, r] : results) {
    if (r.all.precision() >= 0.99) {
      EXPECT_GE(e.all.f1(), r.all.f1()) << method << " vs " << other;
    }
  }
  fs::remove_all(dir);
}

// Runs the default and the textbook methods on `crawl` (packed by `script`
// from `data`) into dir/METHOD, and reads `script score data dir/METHOD
// --json` for each into (*scores)[METHOD], printing its `summary_key`.
void ScoreLabeledRuns(const std::string& script, const std::string& data, const std::string& crawl,
                      const std::string& dir, const char* label, const char* summary_key,
                      std::map<std::string, nlohmann::json>* scores) {
  std::string out;
  for (const char* method : {"robust", "broder", "simhash", "combined"}) {
    DedupOptions o;
    o.method = method;
    auto r = RunDedup({crawl}, dir + "/" + method, o, nullptr, nullptr, nullptr, nullptr);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(testing::RunCommand("python3 " + testing::Q(script) + " score " + testing::Q(data) + " " +
                                      testing::Q(dir + "/" + method) + " --json",
                                  &out),
              0)
        << out;
    (*scores)[method] = nlohmann::json::parse(out);
    std::printf("%s, %s: %s\n", label, method, (*scores)[method][summary_key].dump().c_str());
  }
}

TEST(QualityRegressionTest, DefaultHoldsOnStiaUnderRealUrls) {
  const std::string shared = testing::SharedDataDir();
  if (shared.empty()) GTEST_SKIP() << testing::SharedDataSkipMessage();
  const std::string labeled = shared + "/labeled/stia-near-duplicates";
  if (!fs::is_directory(labeled)) GTEST_SKIP() << "no " << labeled;
  const std::string dir = testing::MakeTempDir("quality-stia");
  const std::string script = std::string(NEARDUP_SOURCE_DIR) + "/bench/labeled_crawl.py";
  std::string out;
  ASSERT_EQ(testing::RunCommand("python3 " + testing::Q(script) + " pack " + testing::Q(labeled) + " " +
                                    testing::Q(dir + "/stia.warc") + " " + testing::Q(dir + "/truth.tsv"),
                                &out),
            0)
      << out;
  std::map<std::string, nlohmann::json> scores;
  ScoreLabeledRuns(script, labeled, dir + "/stia.warc", dir, "stia under real URLs", "labeled_pairs", &scores);
  if (HasFatalFailure()) return;
  const nlohmann::json& robust = scores["robust"]["labeled_pairs"];
  EXPECT_GE(robust["precision"].get<double>(), 0.99);
  EXPECT_GE(robust["recall"].get<double>(), 0.85);
  EXPECT_EQ(scores["robust"]["kinds"]["full_content_swap"]["together"].get<int>(), 0);
  for (const char* other : {"broder", "simhash", "combined"}) {
    EXPECT_GE(robust["f1"].get<double>(), scores[other]["labeled_pairs"]["f1"].get<double>()) << other;
  }
  fs::remove_all(dir);
}

TEST(QualityRegressionTest, DefaultHoldsOnJudgedRealPairs) {
  const std::string shared = testing::SharedDataDir();
  if (shared.empty()) GTEST_SKIP() << testing::SharedDataSkipMessage();
  const std::string html = shared + "/html";
  if (!fs::is_directory(html + "/l3s-gn1")) GTEST_SKIP() << "no " << html << "/l3s-gn1";
  const std::string dir = testing::MakeTempDir("quality-real-pairs");
  const std::string script = std::string(NEARDUP_SOURCE_DIR) + "/bench/real_pairs.py";
  std::string out;
  ASSERT_EQ(testing::RunCommand("python3 " + testing::Q(script) + " pack " + testing::Q(html) + " " +
                                    testing::Q(dir + "/real.warc"),
                                &out),
            0)
      << out;
  std::map<std::string, nlohmann::json> scores;
  ScoreLabeledRuns(script, html, dir + "/real.warc", dir, "judged real pairs", "judged_pairs", &scores);
  if (HasFatalFailure()) return;
  const nlohmann::json& robust = scores["robust"];
  EXPECT_EQ(robust["kinds"]["different same-site-template"]["together"].get<int>(), 0);
  EXPECT_GE(robust["judged_pairs"]["true_positives"].get<int>(), 1);
  for (const char* other : {"broder", "simhash", "combined"}) {
    EXPECT_GE(robust["judged_pairs"]["f1"].get<double>(), scores[other]["judged_pairs"]["f1"].get<double>())
        << other;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace neardup
