// Copyright neardup authors. Licensed under Apache-2.0.
//
// `neardup keep` on the command line: the kept pages of a dedup run of the
// sample crawl written out and read again by dedup, checked against the
// run's clusters.tsv.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "neardup/source.h"
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

std::string SampleCrawl() { return RepoTestDataDir() + "/sample/sample-crawl.warc.gz"; }

// The URLs of clusters.tsv's rows of `role` ("" for all), in order.
std::vector<std::string> RowUrls(const std::string& run, const std::string& role) {
  std::vector<std::string> urls;
  const auto rows = ReadTsvRows(run + "/clusters.tsv");
  for (size_t i = 1; i < rows.size(); ++i) {
    if (role.empty() || rows[i][2] == role) urls.push_back(rows[i][0]);
  }
  return urls;
}

std::vector<std::string> DocumentUrls(const std::string& path) {
  std::vector<std::string> urls;
  auto source = OpenDocumentSource({path});
  EXPECT_TRUE(source.ok());
  Document doc;
  while (source.value()->Next(&doc)) urls.push_back(doc.url);
  return urls;
}

nlohmann::json Summary(const std::string& run) {
  return nlohmann::json::parse(ReadFileOrEmpty(run + "/summary.json"));
}

TEST(KeepCliTest, HelpNamesTheFlags) {
  std::string out;
  EXPECT_EQ(RunCommand(Q(CliPath()) + " keep --help", &out), 0);
  for (const char* s : {"--out", "--format", "--duplicates", "--annotate", "--input", "--quiet", "JSON Lines", "WARC"}) {
    EXPECT_NE(out.find(s), std::string::npos) << s;
  }
  EXPECT_EQ(RunCommand(Q(CliPath()) + " keep", &out), 2);
}

// Every format: the kept pages are the rows of role keep, in order, and
// with the duplicates they are every page of the run; dedup of the kept
// pages finds no exact copies among them.
TEST(KeepCliTest, TheKeptPagesAreTheRunsKeepRows) {
  const std::string dir = MakeTempDir("keep-cli");
  const std::string run = dir + "/run";
  std::string out;
  ASSERT_EQ(RunCommand(Q(CliPath()) + " dedup " + Q(SampleCrawl()) + " --out " + Q(run) + " --threads 1 -q", &out),
            0)
      << out;
  const std::vector<std::string> kept = RowUrls(run, "keep");
  const std::vector<std::string> duplicates = RowUrls(run, "duplicate");
  ASSERT_GT(duplicates.size(), 0u);
  ASSERT_EQ(kept.size(), Summary(run)["documents_read"].get<size_t>() - Summary(run)["duplicates"].get<size_t>());
  for (const char* name : {"kept.jsonl", "kept.jsonl.gz", "kept.jsonl.zst", "kept.warc", "kept.warc.gz"}) {
    SCOPED_TRACE(name);
    const std::string file = dir + "/" + name;
    ASSERT_EQ(RunCommand(Q(CliPath()) + " keep " + Q(run) + " --out " + Q(file), &out), 0) << out;
    EXPECT_NE(out.find("wrote " + std::to_string(kept.size()) + " kept pages"), std::string::npos) << out;
    EXPECT_EQ(DocumentUrls(file), kept);
    const std::string again = dir + "/again-" + name;
    ASSERT_EQ(RunCommand(Q(CliPath()) + " dedup " + Q(file) + " --out " + Q(again) + " --method exact -q", &out), 0)
        << out;
    EXPECT_EQ(Summary(again)["documents_read"].get<size_t>(), kept.size());
    EXPECT_EQ(Summary(again)["duplicates"].get<size_t>(), 0u);
  }
  const std::string dups = dir + "/dups.jsonl";
  ASSERT_EQ(RunCommand(Q(CliPath()) + " keep " + Q(run) + " --duplicates -o " + Q(dups) + " -q", &out), 0) << out;
  EXPECT_TRUE(out.empty()) << out;
  EXPECT_EQ(DocumentUrls(dups), duplicates);
  // --format over the name.
  const std::string warc = dir + "/kept.data";
  ASSERT_EQ(RunCommand(Q(CliPath()) + " keep " + Q(run) + " --format warc -o " + Q(warc) + " -q", &out), 0) << out;
  EXPECT_EQ(ReadFileOrEmpty(warc).substr(0, 8), "WARC/1.1");
  fs::remove_all(dir);
}

// A run over JSON Lines: each kept line comes back as it was read.
TEST(KeepCliTest, JsonLinesComeBackAsTheirLines) {
  const std::string dir = MakeTempDir("keep-cli-jsonl");
  std::string lines;
  const std::string body = "<html><body><p>" + std::string(40, 'w') + " one page of text repeated</p></body></html>";
  for (int i = 0; i < 6; ++i) {
    nlohmann::ordered_json j;
    j["id"] = "doc-" + std::to_string(i);
    j["url"] = "http://site" + std::to_string(i) + ".example/page";
    j["html"] = i % 2 == 0 ? body : body + " " + std::to_string(i) + " other words of its own here";
    j["source"] = {{"shard", i / 3}};
    lines += j.dump() + "\n";
  }
  // A damaged line: the run skipped it with a warning, and so does keep.
  const std::string with_damage = lines.substr(0, lines.find('\n') + 1) + "{\"url\": \"cut short\n" +
                                  lines.substr(lines.find('\n') + 1);
  fs::create_directories(dir + "/in");
  testing::WriteFileOrDie(dir + "/in/pages.jsonl", with_damage);
  std::string out;
  ASSERT_EQ(RunCommand("cd " + Q(dir) + " && " + Q(CliPath()) + " dedup in/pages.jsonl -o run --method exact -q", &out),
            0)
      << out;
  ASSERT_EQ(RunCommand("cd " + Q(dir) + " && " + Q(CliPath()) + " keep run -o kept.jsonl", &out), 0) << out;
  EXPECT_NE(out.find("in/pages.jsonl: offset " + std::to_string(lines.find('\n') + 1) + ": bad-json"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("wrote 4 kept pages of 6 pages"), std::string::npos) << out;
  EXPECT_NE(out.find("1 warnings reading the inputs"), std::string::npos) << out;
  // Pages 0, 2 and 4 are one copy; the kept one and the three others.
  const std::string kept = ReadFileOrEmpty(dir + "/kept.jsonl");
  EXPECT_EQ(std::count(kept.begin(), kept.end(), '\n'), 4);
  size_t at = 0;
  for (size_t i = 0; i < 6; ++i) {
    const size_t end = lines.find('\n', at);
    const std::string line = lines.substr(at, end - at + 1);
    at = end + 1;
    if (i % 2 == 1) EXPECT_NE(kept.find(line), std::string::npos) << line;
  }
  // From another folder the run's relative inputs are not found; --input
  // gives them.
  EXPECT_EQ(RunCommand(Q(CliPath()) + " keep " + Q(dir + "/run") + " -o " + Q(dir + "/elsewhere.jsonl"), &out), 1)
      << out;
  EXPECT_NE(out.find("input in/pages.jsonl not found"), std::string::npos) << out;
  EXPECT_NE(out.find("--input"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_FALSE(fs::exists(dir + "/elsewhere.jsonl"));
  ASSERT_EQ(RunCommand(Q(CliPath()) + " keep " + Q(dir + "/run") + " -o " + Q(dir + "/elsewhere.jsonl") + " --input " +
                           Q(dir + "/in/pages.jsonl") + " -q",
                       &out),
            0)
      << out;
  EXPECT_EQ(ReadFileOrEmpty(dir + "/elsewhere.jsonl"), kept);
  // Inputs changed since the run: one line, exit 1, nothing written.
  testing::WriteFileOrDie(dir + "/in/pages.jsonl", with_damage + lines);
  EXPECT_EQ(RunCommand("cd " + Q(dir) + " && " + Q(CliPath()) + " keep run -o changed.jsonl -q", &out), 1) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_NE(out.find("more pages than"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir + "/changed.jsonl"));
  EXPECT_FALSE(fs::exists(dir + "/changed.jsonl.tmp"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace neardup
