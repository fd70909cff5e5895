// Copyright neardup authors. Licensed under Apache-2.0.
#include "output/summary_file.h"

#include <gtest/gtest.h>

#include <string>

#include "neardup/env.h"

namespace neardup {
namespace {

constexpr char kPath[] = "out/summary.json";

TEST(SummaryFileTest, RoundTrip) {
  MemEnv env;
  nlohmann::ordered_json j;
  j["command"] = "dedup";
  j["documents_read"] = 8;
  j["options"] = {{"method", "broder"}};
  ASSERT_TRUE(WriteSummaryJson(&env, kPath, j).ok());
  EXPECT_EQ(env.GetContents(kPath).value(), j.dump(2) + "\n");
  EXPECT_FALSE(env.FileExists(std::string(kPath) + ".tmp"));
  auto back = ReadSummaryJson(&env, kPath);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ((*back)["documents_read"], 8);
  EXPECT_EQ((*back)["options"]["method"], "broder");
}

TEST(SummaryFileTest, ReadErrorsNameTheFile) {
  MemEnv env;
  Status missing = ReadSummaryJson(&env, kPath).status();
  EXPECT_TRUE(missing.IsNotFound());
  EXPECT_NE(missing.message().find(kPath), std::string::npos);

  env.AddFile(kPath, "{not json");
  Status bad = ReadSummaryJson(&env, kPath).status();
  EXPECT_TRUE(bad.IsCorruption());
  EXPECT_EQ(bad.message().rfind(std::string(kPath) + ": not valid JSON: ", 0), 0u) << bad.ToString();

  env.AddFile(kPath, "[1, 2]");
  Status array = ReadSummaryJson(&env, kPath).status();
  EXPECT_TRUE(array.IsCorruption());
  EXPECT_EQ(array.message(), std::string(kPath) + ": not a JSON object");

  env.AddFile(kPath, "{}");
  env.FailReadsAfter(kPath, 0);
  Status io = ReadSummaryJson(&env, kPath).status();
  EXPECT_TRUE(io.IsIOError());
  EXPECT_NE(io.message().find(std::string("cannot read ") + kPath), std::string::npos);
}

TEST(SummaryFileTest, WriteErrorLeavesNoFile) {
  MemEnv env;
  env.FailWritesAfter(std::string(kPath) + ".tmp", 4);
  nlohmann::ordered_json j;
  j["documents_read"] = 8;
  Status s = WriteSummaryJson(&env, kPath, j);
  EXPECT_TRUE(s.IsIOError());
  EXPECT_NE(s.message().find(std::string("cannot write ") + kPath), std::string::npos);
  EXPECT_FALSE(env.FileExists(kPath));
  EXPECT_FALSE(env.FileExists(std::string(kPath) + ".tmp"));
}

}  // namespace
}  // namespace neardup
