// Tests of `neardup synth` on the command line: help, exit codes, the
// summary paragraph, and a crawl that dedup reads and eval scores against
// the truth written with it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "test_util.h"

namespace neardup {
namespace {

namespace fs = std::filesystem;
using testing::CliPath;
using testing::MakeTempDir;
using testing::ReadFileOrEmpty;
using testing::RepoTestDataDir;
using testing::RunCommand;

using testing::Q;

TEST(SynthCliTest, HelpExplainsWhatIsBuilt) {
  std::string out;
  EXPECT_EQ(RunCommand(Q(CliPath()) + " synth --help", &out), 0);
  for (const char* flag : {"--out", "--truth", "--sites", "--parked-registrars", "--seed",
                           "--max-copies", "session", "mirror", "parked", "hard negatives"}) {
    EXPECT_NE(out.find(flag), std::string::npos) << flag;
  }
}

TEST(SynthCliTest, BadUsageExitsTwoAndNoPoolExitsOne) {
  const std::string dir = MakeTempDir("synth-cli-usage");
  std::string out;
  EXPECT_EQ(RunCommand(Q(CliPath()) + " synth", &out), 2);
  EXPECT_EQ(RunCommand(Q(CliPath()) + " synth in --out " + Q(dir + "/c.warc.gz"), &out), 2);
  EXPECT_NE(out.find("--truth"), std::string::npos) << out;
  EXPECT_EQ(RunCommand(Q(CliPath()) + " synth in --out a --truth b --sites 0", &out), 2);
  EXPECT_EQ(RunCommand(Q(CliPath()) + " synth in --out a --truth a", &out), 2);
  EXPECT_NE(out.find("out_truth"), std::string::npos) << out;
  // Nothing usable in the inputs: exit 1 with one line.
  EXPECT_EQ(RunCommand(Q(CliPath()) + " synth " + Q(dir + "/missing.warc.gz") + " --out " +
                           Q(dir + "/c.warc.gz") + " --truth " + Q(dir + "/t.tsv"),
                       &out),
            1);
  EXPECT_NE(out.find("no usable pool page"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  fs::remove_all(dir);
}

TEST(SynthCliTest, BuildsACrawlThatDedupReadsAndEvalScores) {
  const std::string dir = MakeTempDir("synth-cli-run");
  const std::string crawl = dir + "/bench.warc.gz", truth = dir + "/bench.tsv";
  std::string out;
  ASSERT_EQ(
      RunCommand(Q(CliPath()) + " synth " + Q(RepoTestDataDir() + "/sample/sample-crawl.warc.gz") +
                     " --out " + Q(crawl) + " --truth " + Q(truth) +
                     " --sites 8 --parked-registrars 2 --seed 3",
                 &out),
      0)
      << out;
  EXPECT_NE(out.find("neardup synth: wrote "), std::string::npos) << out;
  for (const char* part :
       {"truth groups", "hard negatives", "Pages by kind:", "original", "parked"}) {
    EXPECT_NE(out.find(part), std::string::npos) << part << " in " << out;
  }
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;  // one paragraph
  const std::string tsv = ReadFileOrEmpty(truth);
  ASSERT_EQ(tsv.rfind("url\tgroup\tkind\n", 0), 0u) << tsv.substr(0, 80);
  const auto lines = static_cast<size_t>(std::count(tsv.begin(), tsv.end(), '\n'));
  EXPECT_NE(out.find("wrote " + std::to_string(lines - 1) + " pages"), std::string::npos) << out;

  ASSERT_EQ(
      RunCommand(Q(CliPath()) + " dedup " + Q(crawl) + " --out " + Q(dir + "/dedup") + " -q", &out),
      0)
      << out;
  ASSERT_EQ(RunCommand(Q(CliPath()) + " eval --truth " + Q(truth) + " " + Q(dir + "/dedup"), &out),
            0)
      << out;
  EXPECT_NE(out.find("pages evaluated: " + std::to_string(lines - 1) +
                     " (truth pages missing from the output: 0; output pages without truth: 0)"),
            std::string::npos)
      << out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace neardup
