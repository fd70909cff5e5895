// Copyright neardup authors. Licensed under Apache-2.0.
#include "engine/chunk_stage.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

namespace neardup {
namespace {

// Five documents; document 1 is an exact copy of document 0.
//   0: {1, 2, 3}   1: {1, 2, 3} (copy of 0)   2: {2, 3, 4}   3: {9}   4: {3, 9}
// Central documents 0, 2, 3, 4 share: (0,2) 2 fingerprints, (0,4) 1,
// (2,4) 1, (3,4) 1.
struct Fixture {
  std::vector<std::vector<uint32_t>> fps{{1, 2, 3}, {1, 2, 3}, {2, 3, 4}, {9}, {3, 9}};
  std::vector<uint32_t> central{0, 0, 2, 3, 4};
  std::vector<uint32_t> counts{3, 3, 3, 1, 2};
};

Result<ChunkStageResult> RunStage(const Fixture& f, uint32_t threshold, const std::string& algorithm, UnionFind* uf,
                                  std::vector<NearPair>* pairs) {
  const std::string dir = ::testing::TempDir() + "/chunk_stage_" + algorithm + std::to_string(threshold);
  std::filesystem::create_directories(dir);
  std::string records;
  for (uint32_t d = 0; d < f.fps.size(); ++d) AppendChunkRecords(d, f.fps[d], &records);
  const std::string path = dir + "/records";
  auto file = Env::Default()->NewWritableFile(path);
  EXPECT_TRUE(file.ok());
  EXPECT_TRUE(file.value()->Append(records.data(), records.size()).ok());
  EXPECT_TRUE(file.value()->Close().ok());
  ChunkMethodOptions o;
  o.chunking = "lines:4";
  o.threshold = threshold;
  o.algorithm = algorithm;
  auto r = RunChunkStage(Env::Default(), path, dir, f.central, f.counts, o, 8 << 20, true, uf);
  EXPECT_FALSE(std::filesystem::exists(path));  // the records file is consumed
  if (r.ok()) {  // the streamed pairs, read back (a, b, F per 12 bytes)
    EXPECT_TRUE(ReadChunkPairs(Env::Default(), r.value().pairs_path, [&](const NearPair& p) {
                  pairs->push_back(p);
                  return Status::OK();
                }).ok());
  }
  std::filesystem::remove_all(dir);
  return r;
}

std::map<std::string, uint64_t> AsMap(const ReplicaHistogram& h) {
  std::map<std::string, uint64_t> m;
  for (const auto& [label, pages] : h.pages) {
    if (pages) m[label] = pages;
  }
  return m;
}

TEST(ChunkStageTest, CentralDocumentsOnlyAndTheReplicaHistogram) {
  for (const char* algorithm : {"sort", "coarse"}) {
    Fixture f;
    UnionFind uf(5);
    std::vector<NearPair> pairs;
    auto r = RunStage(f, 2, algorithm, &uf, &pairs);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r.value().stats.copies_removed, 1u);
    EXPECT_EQ(r.value().stats.records, 9u);  // 3 + 3 + 1 + 2: document 1's records removed
    ASSERT_EQ(pairs.size(), 1u);
    EXPECT_EQ(pairs[0].a, 0u);
    EXPECT_EQ(pairs[0].b, 2u);
    EXPECT_EQ(pairs[0].b_similarity, 2u);
    EXPECT_EQ(r.value().pair_member, (std::vector<uint8_t>{1, 0, 1, 0, 0}));
    EXPECT_EQ(uf.Find(0), uf.Find(2));
    EXPECT_NE(uf.Find(0), uf.Find(4));
    // F / min(chunks) = 2 / 3 for both pages of the pair.
    EXPECT_FLOAT_EQ(r.value().best_share[0], 2.0f / 3.0f);
    EXPECT_FLOAT_EQ(r.value().best_share[4], 0.0f);
    // Replicas (themselves included). whole: 0 and 1 have 2, the rest 1.
    // lines: 0, 1 and 2 have 3 (the set of 0 plus 2); 3 and 4 have 1.
    ASSERT_EQ(r.value().histograms.size(), 2u);
    EXPECT_EQ(r.value().histograms[0].chunking, "whole");
    EXPECT_EQ(AsMap(r.value().histograms[0]), (std::map<std::string, uint64_t>{{"1", 3}, {"2", 2}}));
    EXPECT_EQ(r.value().histograms[1].chunking, "lines:4");
    EXPECT_EQ(AsMap(r.value().histograms[1]), (std::map<std::string, uint64_t>{{"1", 2}, {"3-10", 3}}));
  }
}

TEST(ChunkStageTest, ThresholdOneJoinsEveryDocumentSharingAFingerprint) {
  Fixture f;
  UnionFind uf(5);
  std::vector<NearPair> pairs;
  auto r = RunStage(f, 1, "coarse", &uf, &pairs);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(pairs.size(), 4u);  // (0,2) (0,4) (2,4) (3,4)
  for (uint32_t d : {2u, 3u, 4u}) EXPECT_EQ(uf.Find(0), uf.Find(d));
  // Replicas: 0 -> 2 + 1 (doc 2) + 1 (doc 4) = 4, and 1 as its copy; 2 -> 1 + 2 + 1 = 4;
  // 3 -> 1 + 1 = 2; 4 -> 1 + 2 + 1 + 1 = 5.
  EXPECT_EQ(AsMap(r.value().histograms[1]), (std::map<std::string, uint64_t>{{"2", 1}, {"3-10", 4}}));
}

TEST(ChunkStageTest, BucketsOfFigureOne) {
  EXPECT_STREQ(ReplicaBucket(1), "1");
  EXPECT_STREQ(ReplicaBucket(2), "2");
  EXPECT_STREQ(ReplicaBucket(10), "3-10");
  EXPECT_STREQ(ReplicaBucket(11), "11-100");
  EXPECT_STREQ(ReplicaBucket(1000), "101-1000");
  EXPECT_STREQ(ReplicaBucket(1001), "1001+");
}

}  // namespace
}  // namespace neardup
