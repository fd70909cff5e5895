// Quality regression (tests/regression/quality.csv): every method's scores on
// a benchmark built in the test from the real pages of the sample crawl, with
// copies that differ only as Henzinger's correct near-duplicates do (a
// timestamp, a visitor count, a server name and execution time, the page
// served from a mirror host, white space) and hard negatives (a page of the
// same site sharing the template, its text replaced). The figures must equal
// the file's: a change that moves them must update the file explicitly.
#include <gtest/gtest.h>

#include <cstdio>
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
  auto r = RunDedup({dir + "/originals.jsonl"}, dir + "/originals", exact, nullptr, nullptr, nullptr, nullptr);
  NEARDUP_CHECK(r.ok());
  std::map<std::string, std::string> group_of;  // original url -> its exact cluster
  for (const auto& row : testing::ReadTsvRows(dir + "/originals/clusters.tsv")) {
    if (row[0] != "url") group_of[row[0]] = "g" + row[1];
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
    rows[method] = r;
  }
  return rows;
}

TEST(QualityRegressionTest, MethodsScoreAsRecorded) {
  const std::string dir = testing::MakeTempDir("quality");
  const Corpus corpus = BuildCorpus(dir);
  testing::WriteFileOrDie(dir + "/corpus.jsonl", corpus.jsonl);
  testing::WriteFileOrDie(dir + "/truth.tsv", corpus.truth);
  const std::string file = std::string(NEARDUP_SOURCE_DIR) + "/tests/regression/quality.csv";
  const auto expected = ReadRegressionFile(file);
  std::string measured = "corpus,method,precision,recall,bcubed_precision,bcubed_recall,wrong_same_site_merges\n";
  for (const char* method : {"exact", "broder", "simhash", "combined"}) {
    DedupOptions o;
    o.method = method;
    auto r = RunDedup({dir + "/corpus.jsonl"}, dir + "/" + method, o, nullptr, nullptr, nullptr, nullptr);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    auto e = EvaluateFiles(dir + "/truth.tsv", dir + "/" + method, Env::Default());
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    char line[256];
    std::snprintf(line, sizeof line, "sample-variants,%s,%.4f,%.4f,%.4f,%.4f,%llu\n", method,
                  e.value().all.precision(), e.value().all.recall(), e.value().bcubed_precision,
                  e.value().bcubed_recall, static_cast<unsigned long long>(e.value().wrong_same_site_merges));
    measured += line;
    if (!expected.count(method)) {
      ADD_FAILURE() << "no row for " << method << " in " << file;
      continue;
    }
    const Row& x = expected.at(method);
    EXPECT_NEAR(e.value().all.precision(), x.precision, 5e-5) << method;
    EXPECT_NEAR(e.value().all.recall(), x.recall, 5e-5) << method;
    EXPECT_NEAR(e.value().bcubed_precision, x.bcubed_precision, 5e-5) << method;
    EXPECT_NEAR(e.value().bcubed_recall, x.bcubed_recall, 5e-5) << method;
    EXPECT_EQ(e.value().wrong_same_site_merges, x.wrong_same_site_merges) << method;
  }
  std::printf("[ quality ] measured (update %s when a change moves these):\n%s", file.c_str(),
              measured.c_str());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace neardup
