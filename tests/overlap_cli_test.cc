// Copyright neardup authors. Licensed under Apache-2.0.
//
// `neardup overlap` and `dedup --method chunks|paragraphs` on folders of
// text files whose lines and sentences are drawn from a small pool, so that
// the expected Overlap table and clusters follow from the definitions,
// computed here directly on the strings (not with the library's code).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>

#include "test_util.h"

namespace neardup {
namespace {

using testing::CliPath;
using testing::MakeTempDir;
using testing::Q;
using testing::ReadFileOrEmpty;
using testing::ReadTsvRows;
using testing::RunCommand;
using testing::WriteFileOrDie;

// A line of 6 distinct words (so it has no period and stays under 150
// characters: one line is one sentence, and one chunk of lines:1).
std::string PoolLine(int i) {
  std::string s;
  for (int w = 0; w < 6; ++w) s += (w ? " " : "") + std::string("w") + std::to_string(i) + "x" + std::to_string(w);
  return s;
}

struct Corpus {
  std::string dir;
  std::vector<std::string> urls;              // as the CLI reports them
  std::vector<std::vector<int>> lines;        // pool indices per document
};

// Documents: random sets of pool lines, plus copies (exact and edited).
Corpus MakeCorpus(const std::string& root, int docs, int pool, uint64_t seed) {
  Corpus c;
  c.dir = root + "/pages";
  std::filesystem::create_directories(c.dir);
  std::mt19937_64 rng(seed);
  for (int d = 0; d < docs; ++d) {
    std::vector<int> l;
    if (d > 0 && rng() % 3 == 0) {
      l = c.lines[rng() % d];
      if (rng() % 2) l[rng() % l.size()] = static_cast<int>(rng() % pool);
    } else {
      const int k = 3 + static_cast<int>(rng() % 20);
      for (int i = 0; i < k; ++i) l.push_back(static_cast<int>(rng() % pool));
    }
    std::string text;
    for (int i : l) text += PoolLine(i) + "\n";
    char name[32];
    std::snprintf(name, sizeof name, "/d%03d.txt", d);
    WriteFileOrDie(c.dir + name, text);
    c.urls.push_back(c.dir + name);
    c.lines.push_back(l);
  }
  return c;
}

// The Overlap table by its definition, over the central documents (the
// first of each set of documents with equal line sequences).
std::map<std::pair<std::string, std::string>, int> ExpectedOverlap(const Corpus& c, int threshold) {
  std::map<std::pair<std::string, std::string>, int> out;
  std::vector<int> central;
  for (size_t d = 0; d < c.lines.size(); ++d) {
    bool copy = false;
    for (size_t e = 0; e < d && !copy; ++e) copy = c.lines[e] == c.lines[d];
    if (!copy) central.push_back(static_cast<int>(d));
  }
  for (size_t x = 0; x < central.size(); ++x) {
    for (size_t y = x + 1; y < central.size(); ++y) {
      const std::set<int> a(c.lines[central[x]].begin(), c.lines[central[x]].end());
      const std::set<int> b(c.lines[central[y]].begin(), c.lines[central[y]].end());
      int f = 0;
      for (int v : a) f += b.count(v);
      if (f < threshold) continue;
      std::string u = c.urls[central[x]], v = c.urls[central[y]];
      if (u > v) std::swap(u, v);
      out[{u, v}] = f;
    }
  }
  return out;
}

TEST(OverlapCliTest, BothAlgorithmsWriteTheOverlapTableOfTheDefinition) {
  const std::string root = MakeTempDir("overlap-cli");
  const Corpus c = MakeCorpus(root, 80, 60, 3);
  for (int threshold : {1, 3, 6}) {
    const auto expected = ExpectedOverlap(c, threshold);
    ASSERT_FALSE(expected.empty());
    for (const char* algorithm : {"sort", "coarse"}) {
      const std::string out = root + "/overlap-" + algorithm + std::to_string(threshold) + ".tsv";
      const std::string summary = out + ".json";
      std::string log;
      ASSERT_EQ(RunCommand(Q(CliPath()) + " overlap " + Q(c.dir) + " --chunk lines:1 --threshold " +
                               std::to_string(threshold) + " --algorithm " + algorithm + " --memory 256M --out " +
                               Q(out) + " --summary " + Q(summary) + " --threads 2",
                           &log),
                0)
          << log;
      const auto rows = ReadTsvRows(out);
      ASSERT_FALSE(rows.empty());
      EXPECT_EQ(rows[0], (std::vector<std::string>{"url_a", "url_b", "F"}));
      std::map<std::pair<std::string, std::string>, int> got;
      for (size_t r = 1; r < rows.size(); ++r) {
        ASSERT_EQ(rows[r].size(), 3u);
        EXPECT_LT(rows[r][0], rows[r][1]);
        got[{rows[r][0], rows[r][1]}] = std::stoi(rows[r][2]);
      }
      EXPECT_EQ(got, expected) << algorithm << " T=" << threshold;
      const auto j = nlohmann::json::parse(ReadFileOrEmpty(summary));
      EXPECT_EQ(j["chunks"]["result_pairs"].get<size_t>(), expected.size());
      EXPECT_EQ(j["chunks"]["algorithm"], algorithm);
      // Figure 1: every page is in exactly one bucket of each histogram.
      for (const auto& [chunking, buckets] : j["chunks"]["replica_histogram"].items()) {
        uint64_t pages = 0;
        for (const auto& [label, n] : buckets.items()) pages += n.get<uint64_t>();
        EXPECT_EQ(pages, c.urls.size()) << chunking;
      }
      EXPECT_FALSE(std::filesystem::exists(out + ".work"));
    }
  }
}

TEST(OverlapCliTest, BadUsageAndNoInput) {
  const std::string root = MakeTempDir("overlap-cli-usage");
  std::string log;
  EXPECT_EQ(RunCommand(Q(CliPath()) + " overlap " + Q(root) + " --out " + Q(root + "/o.tsv") + " --chunk lines:0", &log), 2);
  EXPECT_NE(log.find("lines:N"), std::string::npos) << log;
  EXPECT_EQ(RunCommand(Q(CliPath()) + " overlap " + Q(root) + " --out " + Q(root + "/o.tsv") + " --algorithm hash", &log), 2);
  EXPECT_EQ(RunCommand(Q(CliPath()) + " overlap " + Q(root) + " --out " + Q(root + "/o.tsv") + " --memory 1M", &log), 2);
  EXPECT_EQ(RunCommand(Q(CliPath()) + " overlap " + Q(root + "/missing") + " --out " + Q(root + "/o.tsv"), &log), 1);
}

TEST(ChunksDedupTest, ClustersAreTheComponentsOfTheOverlapPairs) {
  const std::string root = MakeTempDir("chunks-dedup");
  const Corpus c = MakeCorpus(root, 60, 50, 9);
  const int threshold = 4;
  const auto expected = ExpectedOverlap(c, threshold);
  // Union-find over the expected pairs and the exact copies.
  std::vector<int> parent(c.urls.size());
  for (size_t i = 0; i < parent.size(); ++i) parent[i] = static_cast<int>(i);
  std::function<int(int)> find = [&](int x) { return parent[x] == x ? x : parent[x] = find(parent[x]); };
  std::map<std::string, int> index;
  for (size_t i = 0; i < c.urls.size(); ++i) index[c.urls[i]] = static_cast<int>(i);
  for (const auto& [pair, f] : expected) parent[find(index[pair.first])] = find(index[pair.second]);
  for (size_t d = 0; d < c.lines.size(); ++d) {
    for (size_t e = 0; e < d; ++e) {
      if (c.lines[e] == c.lines[d]) parent[find(static_cast<int>(d))] = find(static_cast<int>(e));
    }
  }
  for (const char* algorithm : {"sort", "coarse"}) {
    const std::string out = root + "/out-" + algorithm;
    std::string log;
    ASSERT_EQ(RunCommand(Q(CliPath()) + " dedup " + Q(c.dir) + " --method chunks --chunk lines:1 --threshold " +
                             std::to_string(threshold) + " --algorithm " + algorithm + " --pairs -q --out " + Q(out),
                         &log),
              0)
        << log;
    const auto rows = ReadTsvRows(out + "/clusters.tsv");
    ASSERT_EQ(rows.size(), c.urls.size() + 1);
    std::map<std::string, std::string> cluster_of;
    for (size_t r = 1; r < rows.size(); ++r) cluster_of[rows[r][0]] = rows[r][1];
    for (size_t a = 0; a < c.urls.size(); ++a) {
      for (size_t b = a + 1; b < c.urls.size(); ++b) {
        EXPECT_EQ(find(static_cast<int>(a)) == find(static_cast<int>(b)),
                  cluster_of[c.urls[a]] == cluster_of[c.urls[b]])
            << algorithm << " " << c.urls[a] << " " << c.urls[b];
      }
    }
    EXPECT_EQ(ReadTsvRows(out + "/pairs.tsv").size(), expected.size() + 1);
  }
}

// Sentences from a pool: each line ends with a period, so one pool line is
// one sentence, and documents are long enough (over 450 characters) to be
// compared.
TEST(ParagraphsDedupTest, ClustersFollowTheSharedPercentageOfShingleParagraphs) {
  const std::string root = MakeTempDir("paragraphs-dedup");
  const std::string dir = root + "/pages";
  std::filesystem::create_directories(dir);
  std::mt19937_64 rng(5);
  std::vector<std::vector<int>> docs;
  std::vector<std::string> urls;
  for (int d = 0; d < 50; ++d) {
    std::vector<int> s;
    if (d > 0 && rng() % 2 == 0) {
      s = docs[rng() % d];
      const int edits = static_cast<int>(rng() % 3);
      for (int e = 0; e < edits; ++e) s[rng() % s.size()] = 1000 + static_cast<int>(rng() % 100000);
    } else {
      const int k = 18 + static_cast<int>(rng() % 12);
      for (int i = 0; i < k; ++i) s.push_back(static_cast<int>(rng() % 200));
    }
    std::string text;
    for (int i : s) text += PoolLine(i) + ".\n";
    ASSERT_GT(text.size(), 450u);
    const std::string path = dir + "/p" + std::to_string(100 + d) + ".txt";
    WriteFileOrDie(path, text);
    docs.push_back(s);
    urls.push_back(path);
  }
  // Shingle paragraphs: sentences 3 at a time (the last run may be shorter).
  auto paragraphs = [](const std::vector<int>& s) {
    std::vector<std::vector<int>> p;
    for (size_t i = 0; i < s.size(); i += 3) p.emplace_back(s.begin() + i, s.begin() + std::min(s.size(), i + 3));
    return p;
  };
  auto found = [](const std::vector<std::vector<int>>& x, const std::vector<std::vector<int>>& y) {
    size_t f = 0;
    for (const auto& v : x) f += std::find(y.begin(), y.end(), v) != y.end();
    return f;
  };
  for (int min_shared : {90, 50}) {
    std::vector<int> parent(docs.size());
    for (size_t i = 0; i < parent.size(); ++i) parent[i] = static_cast<int>(i);
    std::function<int(int)> find = [&](int x) { return parent[x] == x ? x : parent[x] = find(parent[x]); };
    for (size_t a = 0; a < docs.size(); ++a) {
      for (size_t b = a + 1; b < docs.size(); ++b) {
        const auto pa = paragraphs(docs[a]), pb = paragraphs(docs[b]);
        const size_t shared = found(pa, pb) + found(pb, pa);
        if (100 * shared >= static_cast<size_t>(min_shared) * (pa.size() + pb.size())) {
          parent[find(static_cast<int>(a))] = find(static_cast<int>(b));
        }
      }
    }
    const std::string out = root + "/out" + std::to_string(min_shared);
    std::string log;
    ASSERT_EQ(RunCommand(Q(CliPath()) + " dedup " + Q(dir) + " --method paragraphs --min-shared " +
                             std::to_string(min_shared) + " --pairs -q --out " + Q(out),
                         &log),
              0)
        << log;
    const auto rows = ReadTsvRows(out + "/clusters.tsv");
    ASSERT_EQ(rows.size(), docs.size() + 1);
    std::map<std::string, std::string> cluster_of;
    for (size_t r = 1; r < rows.size(); ++r) cluster_of[rows[r][0]] = rows[r][1];
    size_t joined = 0;
    for (size_t a = 0; a < docs.size(); ++a) {
      for (size_t b = a + 1; b < docs.size(); ++b) {
        const bool same = find(static_cast<int>(a)) == find(static_cast<int>(b));
        joined += same;
        EXPECT_EQ(same, cluster_of[urls[a]] == cluster_of[urls[b]]) << min_shared << " " << urls[a] << " " << urls[b];
      }
    }
    EXPECT_GT(joined, 0u);
    const auto j = nlohmann::json::parse(ReadFileOrEmpty(out + "/summary.json"));
    EXPECT_EQ(j["paragraphs"]["eligible_documents"].get<size_t>(), docs.size());
    EXPECT_EQ(j["paragraphs"]["short_documents"].get<size_t>(), 0u);
    EXPECT_GE(j["paragraphs"]["passes"].size(), 1u);
  }
}

}  // namespace
}  // namespace neardup
