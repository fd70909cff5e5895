// DedupJob (include/neardup/dedup_job.h): a run divided into shares read by
// separate jobs, handed to one job in order, writes what RunDedup writes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "neardup/dedup_job.h"
#include "neardup/engine.h"
#include "neardup/source.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::MakeTempDir;
using testing::ReadFileOrEmpty;

// Summary figures that depend on the run (time, memory, paths) left out.
nlohmann::json Figures(const std::string& dir) {
  nlohmann::json j = nlohmann::json::parse(ReadFileOrEmpty(dir + "/summary.json"));
  for (const char* key : {"stages", "seconds", "peak_rss_bytes", "outputs"}) j.erase(key);
  return j;
}

// Reads the inputs in 2 and 3 shares by separate jobs, hands them to the
// first in small chunks, and expects RunDedup's outputs.
void ExpectSharesGiveRunDedupsOutputs(const DedupOptions& options) {
  const std::string data = testing::RepoTestDataDir();
  const std::vector<std::string> inputs = {data + "/html", data + "/sample/sample-crawl.warc.gz",
                                           data + "/warc/example.warc.gz", data + "/warc/redirect.warc"};
  const std::string single = MakeTempDir("job-single");
  ASSERT_TRUE(RunDedup(inputs, single, options).ok());

  for (int parts : {2, 3}) {
    const std::string out = MakeTempDir("job-shares");
    const std::vector<InputShare> shares = PlanInputShares(ListInputFiles(inputs), parts);
    ASSERT_EQ(shares.size(), static_cast<size_t>(parts));
    std::vector<std::unique_ptr<DedupJob>> jobs;
    uint64_t documents = 0;
    for (int p = 0; p < parts; ++p) {
      DedupJobOptions job_options;
      job_options.part = p;
      auto job = DedupJob::Create(inputs, out, options, job_options);
      ASSERT_TRUE(job.ok()) << job.status().ToString();
      ASSERT_TRUE((*job)->Read(shares[p]).ok());
      documents += (*job)->documents();
      jobs.push_back(std::move(job).value());
    }
    for (int p = 1; p < parts; ++p) {
      // Small chunks: a share crosses in many.
      std::vector<std::string> chunks;
      ASSERT_TRUE(jobs[p]->ExportShare(300, [&](std::string_view c) {
        chunks.emplace_back(c);
        return Status::OK();
      }).ok());
      EXPECT_GT(chunks.size(), 1u);
      for (size_t c = 0; c < chunks.size(); ++c) {
        auto last = jobs[0]->ImportShare(chunks[c]);
        ASSERT_TRUE(last.ok()) << last.status().ToString();
        EXPECT_EQ(*last, c + 1 == chunks.size());
      }
    }
    EXPECT_EQ(jobs[0]->documents(), documents);
    auto summary = jobs[0]->Finish();
    ASSERT_TRUE(summary.ok()) << summary.status().ToString();
    for (const char* name : {"clusters.tsv", "pairs.tsv", "warnings.tsv"}) {
      EXPECT_EQ(ReadFileOrEmpty(out + "/" + name), ReadFileOrEmpty(single + "/" + name)) << name << " parts " << parts;
    }
    EXPECT_EQ(Figures(out), Figures(single)) << "parts " << parts;
  }
}

class DedupJobTest : public ::testing::TestWithParam<const char*> {};

TEST_P(DedupJobTest, SharesHandedOverInOrderGiveRunDedupsOutputs) {
  DedupOptions options;
  options.method = GetParam();
  options.write_pairs = std::string(GetParam()) != "exact";
  ExpectSharesGiveRunDedupsOutputs(options);
}

// The in-links keeper rule: each page's link keys travel with its record.
TEST(DedupJobInLinksTest, LinkKeysTravelWithTheirPages) {
  DedupOptions options;
  options.method = "broder";
  options.keeper = "status,in-links,shorter-url,earlier-fetch,url-hash,input-order";
  ExpectSharesGiveRunDedupsOutputs(options);
}

// Pairs handed in from outside are joined as the method's own would be:
// the pairs broder's candidate stage finds, given back, give its clusters.
TEST(DedupJobPairsTest, PairsFoundElsewhereAreClusteredAsTheMethodsOwn) {
  const std::string data = testing::RepoTestDataDir();
  const std::vector<std::string> inputs = {data + "/sample/sample-crawl.warc.gz", data + "/html"};
  DedupOptions options;
  options.method = "simhash";
  const std::string single = MakeTempDir("job-own");
  ASSERT_TRUE(RunDedup(inputs, single, options).ok());
  // Every pair of pages the method's rule accepts, found by comparing all
  // representatives (the first page of each token sequence) through
  // ForEachPage: what any partitioning that loses nothing hands over.
  const std::string out = MakeTempDir("job-outside");
  auto job = DedupJob::Create(inputs, out, options);
  ASSERT_TRUE(job.ok());
  ASSERT_TRUE((*job)->Read(InputShare()).ok());
  std::vector<std::pair<uint64_t, Signature>> firsts;
  std::set<uint64_t> seen;
  ASSERT_TRUE((*job)->ForEachPage([&](uint64_t id, uint64_t identity, const Signature& s, std::span<const uint32_t>) {
    if (s.eligible && seen.insert(identity).second) firsts.emplace_back(id, s);
  }).ok());
  ASSERT_GT(firsts.size(), 10u);
  std::vector<std::pair<uint64_t, uint64_t>> pairs;
  for (size_t a = 0; a < firsts.size(); ++a) {
    for (size_t b = a + 1; b < firsts.size(); ++b) {
      if ((*job)->method().Compare(firsts[a].second, firsts[b].second).duplicate) {
        pairs.emplace_back(firsts[a].first, firsts[b].first);
      }
    }
  }
  ASSERT_FALSE(pairs.empty());
  ASSERT_TRUE((*job)->AddNearPairs(pairs).ok());
  ASSERT_TRUE((*job)->Finish().ok());
  EXPECT_EQ(ReadFileOrEmpty(out + "/clusters.tsv"), ReadFileOrEmpty(single + "/clusters.tsv"));
}

INSTANTIATE_TEST_SUITE_P(Methods, DedupJobTest, ::testing::Values("exact", "broder", "simhash", "combined", "robust"));

TEST(DedupJobErrorsTest, ChunksOfAnotherMethodOrDamagedAreRefused) {
  const std::string data = testing::RepoTestDataDir();
  const std::vector<std::string> inputs = {data + "/sample/sample-crawl.warc.gz"};
  const std::string out = MakeTempDir("job-errors");
  DedupOptions broder;
  broder.method = "broder";
  DedupOptions simhash;
  simhash.method = "simhash";
  auto a = DedupJob::Create(inputs, out, broder);
  auto b = DedupJob::Create(inputs, out, simhash, DedupJobOptions{1});
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE((*b)->Read(InputShare()).ok());
  std::vector<std::string> chunks;
  ASSERT_TRUE((*b)->ExportShare(1 << 20, [&](std::string_view c) {
    chunks.emplace_back(c);
    return Status::OK();
  }).ok());
  ASSERT_EQ(chunks.size(), 1u);
  auto refused = (*a)->ImportShare(chunks[0]);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(refused.status().IsInvalidArgument());
  EXPECT_NE(refused.status().message().find("simhash"), std::string::npos);
  std::string cut = chunks[0].substr(0, chunks[0].size() / 2);
  auto damaged = (*a)->ImportShare(cut);
  ASSERT_FALSE(damaged.ok());
  EXPECT_TRUE(damaged.status().IsCorruption());
  EXPECT_TRUE((*a)->ImportShare("not a chunk").status().IsCorruption());
  EXPECT_TRUE((*a)->AddToSummary("[1]").IsInvalidArgument());

  // Pairs found elsewhere: not for robust (its pairs need every site's
  // template); with them pairs.tsv cannot be written.
  DedupOptions robust;
  auto r = DedupJob::Create(inputs, out, robust, DedupJobOptions{3});
  ASSERT_TRUE(r.ok());
  const std::pair<uint64_t, uint64_t> pair{0, 1};
  EXPECT_EQ((*r)->AddNearPairs({&pair, 1}).code(), Status::Code::kNotSupported);
  DedupOptions listed;
  listed.method = "broder";
  listed.write_pairs = true;
  auto l = DedupJob::Create(inputs, MakeTempDir("job-pairs"), listed);
  ASSERT_TRUE(l.ok());
  ASSERT_TRUE((*l)->Read(InputShare()).ok());
  ASSERT_TRUE((*l)->AddNearPairs({&pair, 1}).ok());
  EXPECT_TRUE((*l)->Finish().status().IsInvalidArgument());

  DedupOptions paragraphs;
  paragraphs.method = "paragraphs";
  auto p = DedupJob::Create(inputs, out, paragraphs, DedupJobOptions{2});
  ASSERT_TRUE(p.ok());
  ASSERT_TRUE((*p)->Read(InputShare()).ok());
  EXPECT_EQ((*p)->ExportShare(1 << 20, [](std::string_view) { return Status::OK(); }).code(),
            Status::Code::kNotSupported);
}

}  // namespace
}  // namespace neardup
