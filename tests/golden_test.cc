// Pins the outputs of `neardup dedup` for every method on the sample crawl
// and on a `neardup synth` crawl built from it: clusters.tsv and pairs.tsv
// byte for byte, and every figure of summary.json that does not depend on
// the machine or the clock. The pinned files are tests/golden/<crawl>/,
// written by tests/golden/make-golden.sh; a change that is meant to move a
// cluster, a kept page or a figure regenerates them and says so.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "test_util.h"

namespace neardup {
namespace {

using testing::CliPath;
using testing::MakeTempDir;
using testing::Q;
using testing::ReadFileOrEmpty;
using testing::RunCommand;

const char* const kMethods[] = {"exact", "broder", "simhash", "combined", "robust", "paragraphs", "chunks"};

std::string GoldenDir() { return std::string(NEARDUP_SOURCE_DIR) + "/tests/golden"; }

// The same filter as tests/golden/figures.py.
nlohmann::json FiguresOf(const nlohmann::json& node) {
  static const std::set<std::string> kVolatile = {
      "seconds", "peak_rss_bytes", "stages", "outputs", "inputs", "threads", "kernel",
      "table_budget_bytes", "sort_seconds", "overlap_seconds", "peak_buffer_bytes", "buffer_budget_bytes",
      "neardup_version"};
  if (node.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (!kVolatile.count(it.key())) out[it.key()] = FiguresOf(it.value());
    }
    return out;
  }
  if (node.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& v : node) out.push_back(FiguresOf(v));
    return out;
  }
  return node;
}

// Reports every path where the figures differ (numbers within 1e-9).
void ExpectSameFigures(const nlohmann::json& want, const nlohmann::json& got, const std::string& path) {
  if (want.is_number() && got.is_number()) {
    const double a = want.get<double>(), b = got.get<double>();
    EXPECT_NEAR(a, b, 1e-9 * std::max(1.0, std::abs(a))) << path;
    return;
  }
  if (want.is_object() && got.is_object()) {
    for (auto it = want.begin(); it != want.end(); ++it) {
      if (!got.contains(it.key())) {
        ADD_FAILURE() << path << "/" << it.key() << " is missing";
        continue;
      }
      ExpectSameFigures(it.value(), got[it.key()], path + "/" + it.key());
    }
    for (auto it = got.begin(); it != got.end(); ++it) {
      if (!want.contains(it.key())) ADD_FAILURE() << path << "/" << it.key() << " is new";
    }
    return;
  }
  if (want.is_array() && got.is_array() && want.size() == got.size()) {
    for (size_t i = 0; i < want.size(); ++i) ExpectSameFigures(want[i], got[i], path + "/" + std::to_string(i));
    return;
  }
  EXPECT_EQ(want, got) << path;
}

// Reports the first line where two TSV texts differ.
void ExpectSameTable(const std::string& want, const std::string& got, const std::string& what) {
  if (want == got) return;
  size_t line = 1, i = 0;
  while (i < want.size() && i < got.size() && want[i] == got[i]) line += want[i++] == '\n';
  auto line_at = [](const std::string& s, size_t pos) {
    const size_t b = s.rfind('\n', pos == 0 ? 0 : pos - 1);
    const size_t start = b == std::string::npos || pos == 0 ? 0 : b + 1;
    return s.substr(start, s.find('\n', start) - start);
  };
  ADD_FAILURE() << what << " differs from the pinned file at line " << line << "\n  pinned: " << line_at(want, i)
                << "\n  now:    " << line_at(got, i);
}

// Runs dedup in `dir` on its crawl.warc.gz (so the source column holds no path).
void CheckRun(const std::string& crawl, const std::string& dir, const std::string& method, int threads) {
  SCOPED_TRACE(crawl + " " + method + " threads=" + std::to_string(threads));
  const std::string name = method + "-" + std::to_string(threads);
  const std::string out = dir + "/" + name;
  const std::string cmd = "cd " + Q(dir) + " && " + Q(CliPath()) + " dedup crawl.warc.gz --method " + method +
                          " --out " + name +
                          (std::string(method) == "exact" ? "" : " --pairs") + " --threads " +
                          std::to_string(threads) + " --quiet";
  std::string log;
  ASSERT_EQ(RunCommand(cmd, &log), 0) << log;
  const std::string golden = GoldenDir() + "/" + crawl + "/" + method;
  ExpectSameTable(ReadFileOrEmpty(golden + ".clusters.tsv"), ReadFileOrEmpty(out + "/clusters.tsv"),
                  "clusters.tsv");
  const std::string pinned_pairs = golden + ".pairs.tsv.gz";
  if (!ReadFileOrEmpty(pinned_pairs).empty()) {
    ExpectSameTable(testing::GunzipFileOrDie(pinned_pairs), ReadFileOrEmpty(out + "/pairs.tsv"), "pairs.tsv");
  }
  const nlohmann::json want = nlohmann::json::parse(ReadFileOrEmpty(golden + ".summary.json"));
  const nlohmann::json got = FiguresOf(nlohmann::json::parse(ReadFileOrEmpty(out + "/summary.json")));
  ExpectSameFigures(want, got, "summary.json");
}

TEST(GoldenTest, EveryMethodOnTheSampleCrawlIsUnchanged) {
  const std::string work = MakeTempDir("golden-sample");
  testing::WriteFileOrDie(work + "/crawl.warc.gz",
                          ReadFileOrEmpty(testing::RepoTestDataDir() + "/sample/sample-crawl.warc.gz"));
  for (const char* method : kMethods) CheckRun("sample", work, method, 1);
}

TEST(GoldenTest, EveryMethodOnASynthCrawlIsUnchangedOnOneAndTwoThreads) {
  const std::string work = MakeTempDir("golden-synth");
  const std::string crawl = work + "/crawl.warc.gz";
  std::string log;
  ASSERT_EQ(RunCommand(Q(CliPath()) + " synth " + Q(testing::RepoTestDataDir() + "/sample/sample-crawl.warc.gz") +
                           " --out " + Q(crawl) + " --truth " + Q(work + "/truth.tsv") + " --sites 40 --seed 3",
                       &log),
            0)
      << log;
  for (const char* method : kMethods) {
    CheckRun("synth", work, method, 1);
    CheckRun("synth", work, method, 2);
  }
}

}  // namespace
}  // namespace neardup
