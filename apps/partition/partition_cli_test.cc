// Copyright neardup authors. Licensed under Apache-2.0.
//
// `neardup partition-plan` on the repository's sample crawl: exit codes,
// the tables on stdout, and the --json list's shape and value ranges.
#include <gtest/gtest.h>

#include <filesystem>
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
using testing::RepoTestDataDir;
using testing::RunCommand;

std::string SampleCrawl() { return RepoTestDataDir() + "/sample/sample-crawl.warc.gz"; }

TEST(PartitionPlanCliTest, JsonListOfDimsByMachinesWithShares) {
  const std::string dir = MakeTempDir("partition_cli");
  const std::string json_path = dir + "/plan.json";
  std::string out;
  ASSERT_EQ(RunCommand(Q(CliPath()) + " partition-plan " + Q(SampleCrawl()) + " --json " + Q(json_path), &out), 0)
      << out;
  EXPECT_NE(out.find("imbalance"), std::string::npos) << out;
  EXPECT_NE(out.find("Recall lost"), std::string::npos) << out;
  const nlohmann::json j = nlohmann::json::parse(ReadFileOrEmpty(json_path));
  ASSERT_TRUE(j.is_array());
  // Defaults: --dims 1,2,3 --machines 2,4,8,16,32,64.
  ASSERT_EQ(j.size(), 18u);
  std::set<std::pair<int, int>> cells;
  for (const auto& c : j) {
    ASSERT_TRUE(c.contains("dims") && c.contains("machines") && c.contains("imbalance") &&
                c.contains("transfers_saved"))
        << c.dump();
    const int dims = c["dims"].get<int>(), machines = c["machines"].get<int>();
    cells.insert({dims, machines});
    EXPECT_GE(c["imbalance"].get<double>(), 1.0) << c.dump();
    EXPECT_LE(c["imbalance"].get<double>(), static_cast<double>(machines)) << c.dump();
    EXPECT_GE(c["transfers_saved"].get<double>(), 0.0) << c.dump();
    EXPECT_LE(c["transfers_saved"].get<double>(), 1.0) << c.dump();
    EXPECT_EQ(c["rho"].get<double>(), 1.3);
    EXPECT_EQ(c["tau"].get<double>(), 0.9);
    EXPECT_GT(c["pages"].get<int>(), 20);
    EXPECT_LE(c["partitions"].get<int>(), machines);
    ASSERT_EQ(c["recall_lost"].size(), 4u);
    double previous = 1.0;
    for (size_t r = 0; r < 4; ++r) {
      const auto& rl = c["recall_lost"][r];
      EXPECT_NEAR(rl["rho"].get<double>(), 1.0 + 0.1 * r, 1e-9);
      const double lost = rl["lost"].get<double>();
      EXPECT_GE(lost, 0.0);
      EXPECT_LE(lost, previous + 1e-12);  // a wider ρ loses no more
      previous = lost;
      // The sample crawl holds real duplicates (SOURCES.md): a reference exists.
      EXPECT_GT(rl["reference_pairs"].get<int>(), 0);
    }
  }
  EXPECT_EQ(cells.size(), 18u);
  EXPECT_TRUE(cells.count({3, 64}) && cells.count({1, 2}));
  std::filesystem::remove_all(dir);
}

TEST(PartitionPlanCliTest, FlagsBadInputsAndUsage) {
  const std::string dir = MakeTempDir("partition_cli_flags");
  std::string out;
  // A missing input next to a good one: a warning, and the run goes on.
  ASSERT_EQ(RunCommand(Q(CliPath()) + " partition-plan " + Q(SampleCrawl()) + " " + Q(dir + "/missing.warc") +
                           " --dims 2 --machines 3,5 --tau 0.8 --rho 1.1 --sample 10 --json " + Q(dir + "/p.json"),
                       &out),
            0)
      << out;
  EXPECT_NE(out.find("missing.warc"), std::string::npos) << out;
  const nlohmann::json j = nlohmann::json::parse(ReadFileOrEmpty(dir + "/p.json"));
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["dims"], 2);
  EXPECT_EQ(j[0]["machines"], 3);
  EXPECT_EQ(j[1]["machines"], 5);
  EXPECT_EQ(j[0]["tau"].get<double>(), 0.8);
  EXPECT_EQ(j[0]["rho"].get<double>(), 1.1);
  EXPECT_EQ(j[0]["recall_lost"][0]["sampled"], 10);
  // Nothing readable: 1. Bad flags: 2.
  EXPECT_EQ(RunCommand(Q(CliPath()) + " partition-plan " + Q(dir + "/missing.warc"), &out), 1) << out;
  EXPECT_EQ(RunCommand(Q(CliPath()) + " partition-plan " + Q(SampleCrawl()) + " --dims 0", &out), 2) << out;
  EXPECT_EQ(RunCommand(Q(CliPath()) + " partition-plan " + Q(SampleCrawl()) + " --rho 0.9", &out), 2) << out;
  EXPECT_EQ(RunCommand(Q(CliPath()) + " partition-plan", &out), 2) << out;
  EXPECT_EQ(RunCommand(Q(CliPath()) + " partition-plan --help", &out), 0) << out;
  EXPECT_NE(out.find("--machines"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace neardup
