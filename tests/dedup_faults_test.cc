// Whole RunDedup runs over a fault-injecting MemEnv (include/neardup/env.h)
// holding the sample crawl.
//
// Input faults: the reader turns a failed open or read into a warning naming
// the file ("unreadable-file", "read-error") and the run goes on with what
// was read. Output faults: the run returns an IOError naming the injected
// fault. In both cases the final outputs clusters.tsv, pairs.tsv and
// summary.json appear only complete (written as NAME.tmp, then renamed):
// each is either absent or byte-identical to the fault-free run's
// (summary.json: whole, parseable JSON), and so is warnings.tsv. A failed
// run removes its temporary files (NAME.tmp, the hidden spill files) unless
// the fault was on that very removal.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "neardup/engine.h"
#include "neardup/env.h"
#include "test_util.h"

namespace neardup {
namespace {

const char kInput[] = "in/sample-crawl.warc.gz";
const char kOut[] = "out";

class Collector : public ReadObserver {
 public:
  void OnWarning(const ReadWarning& w) override { warnings.push_back(w); }
  std::vector<ReadWarning> warnings;
};

struct RunOutcome {
  Result<DedupSummary> result = Status::IOError("not run");
  std::vector<ReadWarning> warnings;
  std::vector<std::string> files;  // every file left in the env
  uint64_t faults = 0;
};

class DedupFaultsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    input_ = new std::string(
        testing::ReadFileOrEmpty(testing::RepoTestDataDir() + "/sample/sample-crawl.warc.gz"));
  }
  static void TearDownTestSuite() {
    delete input_;
    input_ = nullptr;
  }

  // A fresh MemEnv with the input, `faults` injected, one RunDedup.
  RunOutcome RunWith(MemEnv* env, const std::vector<FaultRule>& faults) {
    env->AddFile(kInput, *input_);
    env->SetMaxReadChunk(16 << 10);  // about 47 reads of the input
    for (const FaultRule& f : faults) env->InjectFault(f);
    DedupOptions options;  // the default method
    options.write_pairs = true;
    Collector collector;
    RunOutcome run;
    run.result = RunDedup({kInput}, kOut, options, nullptr, env, &collector, nullptr);
    run.warnings = collector.warnings;
    run.files = env->AllFiles();
    run.faults = env->faults_injected();
    return run;
  }

  // The fault-free run's final outputs.
  const std::map<std::string, std::string>& Baseline() {
    if (baseline_.empty()) {
      MemEnv env;
      RunOutcome run = RunWith(&env, {});
      EXPECT_TRUE(run.result.ok()) << run.result.status().ToString();
      for (const char* name : {"clusters.tsv", "pairs.tsv", "summary.json"}) {
        const std::string path = std::string(kOut) + "/" + name;
        baseline_[path] = env.GetContents(path).value();
      }
    }
    return baseline_;
  }

  // Every file under out/ is a complete final output, warnings.tsv, or a
  // .tmp or spill file left only after an error.
  void ExpectOnlyCompleteOutputs(MemEnv* env, const RunOutcome& run, const std::string& what) {
    const std::map<std::string, std::string>& baseline = Baseline();
    for (const std::string& path : run.files) {
      if (path == kInput) continue;
      ASSERT_EQ(path.rfind(std::string(kOut) + "/", 0), 0u) << what << ": " << path;
      const std::string name = path.substr(std::string(kOut).size() + 1);
      if (name == "warnings.tsv") continue;  // its rows depend on the faults; written whole too
      const bool leftover = name.ends_with(".tmp") || (name[0] == '.' && name.ends_with(".spill"));
      if (leftover) {
        EXPECT_FALSE(run.result.ok()) << what << ": " << path << " left after a successful run";
        continue;
      }
      auto it = baseline.find(path);
      ASSERT_NE(it, baseline.end()) << what << ": unexpected file " << path;
      const std::string contents = env->GetContents(path).value();
      if (name == "summary.json") {
        const auto j = nlohmann::json::parse(contents, nullptr, /*allow_exceptions=*/false);
        EXPECT_FALSE(j.is_discarded()) << what << ": summary.json is not whole JSON";
      } else if (run.result.ok() && run.faults == 0) {
        EXPECT_EQ(contents, it->second) << what << ": " << path;
      } else if (!run.result.ok()) {
        // Output faults do not change what is written, only whether it is.
        EXPECT_EQ(contents, it->second) << what << ": " << path << " incomplete";
      }
    }
  }

  static std::string* input_;
  std::map<std::string, std::string> baseline_;
};

std::string* DedupFaultsTest::input_ = nullptr;

TEST_F(DedupFaultsTest, FaultFreeRunWritesEveryOutput) {
  ASSERT_GT(input_->size(), 100000u);
  MemEnv env;
  RunOutcome run = RunWith(&env, {});
  ASSERT_TRUE(run.result.ok()) << run.result.status().ToString();
  EXPECT_GT(run.result->documents, 30u);
  EXPECT_EQ(run.faults, 0u);
  for (const char* name : {"clusters.tsv", "pairs.tsv", "summary.json", "warnings.tsv"}) {
    EXPECT_TRUE(env.FileExists(std::string(kOut) + "/" + name)) << name;
  }
  // A successful run leaves no .tmp or spill file.
  for (const std::string& path : run.files) {
    EXPECT_FALSE(path.ends_with(".tmp") || path.ends_with(".spill")) << path;
  }
  ExpectOnlyCompleteOutputs(&env, run, "no fault");
}

TEST_F(DedupFaultsTest, InputReadFaultsAreWarningsNamingTheFile) {
  const uint64_t all_documents = [&] {
    MemEnv env;
    return RunWith(&env, {}).result->documents;
  }();
  struct Case {
    FaultRule fault;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {{FileOp::kOpenRead, "in/", 0, 0}, "unreadable-file"},
      {{FileOp::kRead, "in/", 0, 1}, "read-error"},
      {{FileOp::kRead, "in/", 1, 1}, "read-error"},
      {{FileOp::kRead, "in/", 3, 0}, "read-error"},
      {{FileOp::kRead, "in/", 8, 0}, "read-error"},
      {{FileOp::kRead, "in/", 30, 0}, "read-error"},
  };
  for (const Case& c : cases) {
    const std::string what = std::string(FileOpName(c.fault.op)) + " skip " +
                             std::to_string(c.fault.skip);
    MemEnv env;
    RunOutcome run = RunWith(&env, {c.fault});
    ASSERT_TRUE(run.result.ok()) << what << ": " << run.result.status().ToString();
    EXPECT_GT(run.faults, 0u) << what;
    bool named = false;
    for (const ReadWarning& w : run.warnings) {
      if (w.file == kInput && w.reason_key == c.reason &&
          w.message.find("injected") != std::string::npos) {
        named = true;
      }
    }
    EXPECT_TRUE(named) << what << ": no " << c.reason << " warning naming " << kInput;
    EXPECT_LE(run.result->documents, all_documents) << what;
    if (c.fault.count == 0) {
      EXPECT_LT(run.result->documents, all_documents) << what;
    }
    EXPECT_EQ(run.result->warnings, run.warnings.size()) << what;
    // The run finished: every final output is there, whole.
    for (const char* name : {"clusters.tsv", "pairs.tsv", "summary.json"}) {
      EXPECT_TRUE(env.FileExists(std::string(kOut) + "/" + name)) << what << ": " << name;
    }
    const std::string clusters = env.GetContents(std::string(kOut) + "/clusters.tsv").value();
    EXPECT_EQ(static_cast<uint64_t>(std::count(clusters.begin(), clusters.end(), '\n')),
              run.result->documents + 1)
        << what;
    ExpectOnlyCompleteOutputs(&env, run, what);
  }
}

TEST_F(DedupFaultsTest, OutputWriteFaultsFailTheRunAndLeaveNoPartialOutput) {
  // Operations under out/ failed at each point in turn: the files are
  // opened, appended to (in large buffered blocks) and closed in the order
  // spill, warnings.tsv, clusters.tsv.tmp, pairs.tsv.tmp, summary.json.tmp,
  // then renamed.
  std::vector<FaultRule> faults;
  for (uint64_t skip : {0, 1, 2, 3, 4}) {
    faults.push_back({FileOp::kOpenWrite, "out/", skip, 1});
    faults.push_back({FileOp::kAppend, "out/", skip, 1});
    faults.push_back({FileOp::kClose, "out/", skip, 1});
  }
  for (uint64_t skip : {0, 1, 2}) faults.push_back({FileOp::kRename, "out/", skip, 1});
  faults.push_back({FileOp::kAppend, "out/clusters.tsv.tmp", 0, 0});
  faults.push_back({FileOp::kAppend, "out/pairs.tsv.tmp", 0, 0});
  faults.push_back({FileOp::kOpenWrite, "out/summary.json", 0, 0});
  faults.push_back({FileOp::kRename, "out/summary.json", 0, 0});
  for (const FaultRule& fault : faults) {
    const std::string what = std::string(FileOpName(fault.op)) + " " + fault.path_prefix +
                             " skip " + std::to_string(fault.skip);
    MemEnv env;
    RunOutcome run = RunWith(&env, {fault});
    ASSERT_GT(run.faults, 0u) << what << ": the fault never fired";
    ASSERT_FALSE(run.result.ok()) << what << ": the injected fault was not reported";
    EXPECT_TRUE(run.result.status().IsIOError()) << what << ": " << run.result.status().ToString();
    EXPECT_NE(run.result.status().message().find(std::string("injected ") + FileOpName(fault.op) +
                                                 " fault"),
              std::string::npos)
        << what << ": " << run.result.status().ToString();
    // The output writers remove their .tmp file when they cannot finish it
    // (src/output): a failed run leaves no temporary output behind.
    EXPECT_FALSE(std::any_of(run.files.begin(), run.files.end(),
                             [](const std::string& p) { return p.ends_with(".tmp"); }))
        << what;
    ExpectOnlyCompleteOutputs(&env, run, what);
  }
}

}  // namespace
}  // namespace neardup
