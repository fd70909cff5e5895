// Copyright neardup authors. Licensed under Apache-2.0.
#include "overlap/overlap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "neardup/env.h"
#include "test_util.h"

namespace neardup {
namespace {

using Algorithm = Result<OverlapStats> (*)(Env*, const std::string&, const OverlapOptions&,
                                           const OverlapSink&);

class OverlapTest : public ::testing::Test {
 protected:

  std::string Write(const std::vector<FprintDocId>& records) {
    const std::string path = dir_ + "/records.bin";
    NEARDUP_CHECK(WriteFprintDocIdFile(&env_, path, records).ok());
    return path;
  }
  OverlapOptions Options(uint32_t threshold, uint64_t memory = 64 << 20) {
    OverlapOptions o;
    o.threshold = threshold;
    o.memory_bytes = memory;
    o.temp_dir = temp_;
    return o;
  }
  // Runs `algorithm`, checks the output is in increasing (a, b) order and
  // that no spill file is left behind.
  std::vector<OverlapPair> Run(Algorithm algorithm, const std::string& path,
                               const OverlapOptions& options, OverlapStats* stats = nullptr) {
    std::vector<OverlapPair> out;
    Result<OverlapStats> r = algorithm(&env_, path, options, [&](const OverlapPair& p) {
      out.push_back(p);
      return Status::OK();
    });
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (r.ok() && stats != nullptr) *stats = *r;
    for (size_t i = 1; i < out.size(); ++i) {
      EXPECT_TRUE(out[i - 1].a < out[i].a || (out[i - 1].a == out[i].a && out[i - 1].b < out[i].b))
          << "out of order at " << i;
    }
    EXPECT_EQ(testing::CountFilesBelow(&env_, temp_), 0u);
    if (r.ok()) {
      EXPECT_LE(r->peak_buffer_bytes, options.memory_bytes);
      EXPECT_EQ(r->result_pairs, out.size());
    }
    return out;
  }

  const std::string dir_ = "overlap";
  const std::string temp_ = dir_ + "/spill";
  MemEnv env_;
};

// Four documents (fprints; doc 4 repeats (40, 4) and (60, 4)):
//   doc 1: 10 20 30 40      doc 2: 10 20 30 50
//   doc 3: 10 60            doc 4: 20 30 40 60
// Shared by hand: (1,2) {10,20,30} = 3, (1,3) {10} = 1, (1,4) {20,30,40} = 3,
// (2,3) {10} = 1, (2,4) {20,30} = 2, (3,4) {60} = 1.
// Cross product per fingerprint: 10 -> 3 pairs, 20 -> 3, 30 -> 3, 40 -> 1,
// 50 -> 0, 60 -> 1: 11 pairs generated (= the sum of F above).
std::vector<FprintDocId> HandRecords() {
  return {{10, 1}, {20, 1}, {30, 1}, {40, 1}, {50, 2}, {10, 2}, {20, 2}, {30, 2},
          {60, 3}, {10, 3}, {20, 4}, {30, 4}, {40, 4}, {60, 4}, {40, 4}, {60, 4}};
}

TEST_F(OverlapTest, HandComputedCase) {
  const std::string path = Write(HandRecords());
  const std::vector<OverlapPair> t2 = {{1, 2, 3}, {1, 4, 3}, {2, 4, 2}};
  const std::vector<OverlapPair> t3 = {{1, 2, 3}, {1, 4, 3}};
  const std::vector<OverlapPair> t1 = {{1, 2, 3}, {1, 3, 1}, {1, 4, 3},
                                       {2, 3, 1}, {2, 4, 2}, {3, 4, 1}};
  EXPECT_EQ(BruteForceOverlap(HandRecords(), 2), t2);
  EXPECT_EQ(BruteForceOverlap(HandRecords(), 3), t3);
  EXPECT_EQ(BruteForceOverlap(HandRecords(), 1), t1);
  EXPECT_TRUE(BruteForceOverlap(HandRecords(), 4).empty());
  for (Algorithm algorithm : {&SortBasedOverlap, &CoarseCountingOverlap}) {
    OverlapStats stats;
    EXPECT_EQ(Run(algorithm, path, Options(2), &stats), t2);
    EXPECT_EQ(stats.records, 16u);
    EXPECT_EQ(stats.distinct_records, 14u);
    EXPECT_EQ(stats.fingerprint_bytes, 128u);
    EXPECT_EQ(stats.pairs_generated, 11u);
    EXPECT_EQ(stats.result_pairs, 3u);
    EXPECT_EQ(stats.spill_runs, 0u);
    EXPECT_EQ(Run(algorithm, path, Options(3)), t3);
    EXPECT_EQ(Run(algorithm, path, Options(1)), t1);
    EXPECT_TRUE(Run(algorithm, path, Options(4)).empty());
  }
}

TEST_F(OverlapTest, EdgeCases) {
  // Empty input.
  std::string path = Write({});
  for (Algorithm algorithm : {&SortBasedOverlap, &CoarseCountingOverlap}) {
    OverlapStats stats;
    EXPECT_TRUE(Run(algorithm, path, Options(1), &stats).empty());
    EXPECT_EQ(stats.records, 0u);
    EXPECT_EQ(stats.pairs_generated, 0u);
  }
  // Documents with a single fingerprint each, all different: no pair.
  path = Write({{1, 1}, {2, 2}, {3, 3}});
  for (Algorithm algorithm : {&SortBasedOverlap, &CoarseCountingOverlap}) {
    EXPECT_TRUE(Run(algorithm, path, Options(1)).empty());
  }
  // Every document holds the same single fingerprint (twice): each pair of
  // the 40 documents shares exactly 1, so T = 1 gives all 40*39/2 = 780
  // pairs with F = 1 and T = 2 gives none.
  std::vector<FprintDocId> same;
  for (uint32_t d = 0; d < 40; ++d) same.insert(same.end(), {{7, d * 3}, {7, d * 3}});
  path = Write(same);
  for (Algorithm algorithm : {&SortBasedOverlap, &CoarseCountingOverlap}) {
    OverlapStats stats;
    const std::vector<OverlapPair> out = Run(algorithm, path, Options(1), &stats);
    ASSERT_EQ(out.size(), 780u);
    EXPECT_EQ(out.front(), (OverlapPair{0, 3, 1}));
    EXPECT_EQ(out.back(), (OverlapPair{114, 117, 1}));
    EXPECT_EQ(stats.pairs_generated, 780u);
    EXPECT_EQ(stats.distinct_records, 40u);
    EXPECT_TRUE(Run(algorithm, path, Options(2)).empty());
  }
  // 300 documents sharing one fingerprint, 1 MiB: the 300*299/2 = 44850
  // candidate pairs (T = 1) exceed the candidate table the budget allows
  // (about 3 * 10^4 entries), so coarse counting takes several passes.
  same.clear();
  for (uint32_t d = 0; d < 300; ++d) same.push_back({5, d});
  path = Write(same);
  for (Algorithm algorithm : {&SortBasedOverlap, &CoarseCountingOverlap}) {
    OverlapStats stats;
    const std::vector<OverlapPair> out = Run(algorithm, path, Options(1, 1 << 20), &stats);
    ASSERT_EQ(out.size(), 44850u);
    EXPECT_EQ(out[299], (OverlapPair{1, 2, 1}));  // after (0,1) .. (0,299)
    if (algorithm == &CoarseCountingOverlap) {
      EXPECT_GT(stats.passes, 1u);
    }
  }
  // Extreme document ids and fingerprints (0 and 2^32 - 1).
  path = Write({{0, 0}, {0xFFFFFFFFu, 0}, {0, 0xFFFFFFFFu}, {0xFFFFFFFFu, 0xFFFFFFFFu}});
  for (Algorithm algorithm : {&SortBasedOverlap, &CoarseCountingOverlap}) {
    EXPECT_EQ(Run(algorithm, path, Options(2)),
              (std::vector<OverlapPair>{{0, 0xFFFFFFFFu, 2}}));
  }
}

TEST_F(OverlapTest, ErrorCases) {
  const OverlapSink ignore = [](const OverlapPair&) { return Status::OK(); };
  env_.AddFile(dir_ + "/bad.bin", std::string(20, 'x'));
  for (Algorithm algorithm : {&SortBasedOverlap, &CoarseCountingOverlap}) {
    Result<OverlapStats> r = algorithm(&env_, dir_ + "/bad.bin", Options(2), ignore);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.status().IsCorruption());
    EXPECT_NE(r.status().message().find(dir_ + "/bad.bin"), std::string::npos);
    EXPECT_NE(r.status().message().find("size 20"), std::string::npos);

    r = algorithm(&env_, dir_ + "/missing.bin", Options(2), ignore);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.status().IsNotFound());

    const std::string path = Write(HandRecords());
    OverlapOptions o = Options(0);
    EXPECT_TRUE(algorithm(&env_, path, o, ignore).status().IsInvalidArgument());
    o = Options(2, (1 << 20) - 1);
    EXPECT_TRUE(algorithm(&env_, path, o, ignore).status().IsInvalidArgument());
    o = Options(2);
    o.coarse_hash_functions = 0;
    EXPECT_TRUE(algorithm(&env_, path, o, ignore).status().IsInvalidArgument());
    o.coarse_hash_functions = 17;
    EXPECT_TRUE(algorithm(&env_, path, o, ignore).status().IsInvalidArgument());

    // The sink's error stops the run and is returned.
    r = algorithm(&env_, path, Options(1), [](const OverlapPair&) {
      return Status::IOError("sink full");
    });
    EXPECT_TRUE(r.status().IsIOError());
  }
  EXPECT_TRUE(Options(15).Validate().ok());
  // Counters that cannot fit the budget.
  OverlapOptions o = Options(2, 1 << 20);
  o.coarse_buckets = 1ull << 30;
  EXPECT_TRUE(CoarseCountingOverlap(&env_, Write(HandRecords()), o, ignore)
                  .status()
                  .IsResourceExhausted());
}

// Random FPrint-DocID records: families of near-copies (each copy keeps a
// member of its family's fingerprints with probability 0.8), rare
// fingerprints of one document, common fingerprints held by many documents,
// repeated records; sparse document ids; shuffled.
std::vector<FprintDocId> RandomRecords(std::mt19937_64& rng, uint32_t docs, uint32_t common,
                                       uint32_t family_size) {
  std::vector<FprintDocId> records;
  const uint32_t families = std::max<uint32_t>(1, docs / family_size);
  std::vector<std::vector<uint32_t>> family_fprints(families);
  for (auto& f : family_fprints) {
    const size_t n = 5 + rng() % 36;
    for (size_t i = 0; i < n; ++i) f.push_back(1000 + static_cast<uint32_t>(rng() % 50000000));
  }
  for (uint32_t d = 0; d < docs; ++d) {
    const uint32_t doc = d * 7919 + static_cast<uint32_t>(rng() % 7919);
    for (uint32_t f : family_fprints[rng() % families]) {
      if (rng() % 10 < 8) records.push_back({f, doc});
    }
    const size_t rare = rng() % 10;
    for (size_t i = 0; i < rare; ++i) records.push_back({static_cast<uint32_t>(rng()), doc});
    if (common > 0) {
      const size_t c = rng() % 4;
      for (size_t i = 0; i < c; ++i) records.push_back({static_cast<uint32_t>(rng() % common), doc});
    }
  }
  const size_t repeats = records.size() / 20;
  for (size_t i = 0; i < repeats; ++i) records.push_back(records[rng() % records.size()]);
  std::shuffle(records.begin(), records.end(), rng);
  return records;
}

TEST_F(OverlapTest, RandomAgreementWithBruteForce) {
  std::mt19937_64 rng(20240601);
  for (int round = 0; round < 24; ++round) {
    const uint32_t docs = 2 + static_cast<uint32_t>(rng() % (round < 12 ? 30 : 400));
    const uint32_t common = static_cast<uint32_t>(rng() % 30);
    const uint32_t family = 1 + static_cast<uint32_t>(rng() % 6);
    const std::vector<FprintDocId> records = RandomRecords(rng, docs, common, family);
    const std::string path = Write(records);
    for (uint32_t t : {1u, 2u, 5u, 15u}) {
      const std::vector<OverlapPair> expected = BruteForceOverlap(records, t);
      for (uint64_t memory : {uint64_t{1} << 20, uint64_t{256} << 20}) {
        SCOPED_TRACE("round " + std::to_string(round) + " T=" + std::to_string(t) +
                     " memory=" + std::to_string(memory));
        OverlapStats stats;
        EXPECT_EQ(Run(&SortBasedOverlap, path, Options(t, memory), &stats), expected);
        EXPECT_EQ(stats.spill_runs, 0u);  // small inputs fit even in 1 MiB
        OverlapOptions coarse = Options(t, memory);
        coarse.coarse_hash_functions = 1 + round % 3;
        EXPECT_EQ(Run(&CoarseCountingOverlap, path, coarse, &stats), expected);
        EXPECT_EQ(stats.candidate_pairs - stats.false_candidates, expected.size());
      }
    }
  }
}

TEST_F(OverlapTest, RandomAgreementUnderSmallBudgetsSpillsAndMakesPasses) {
  // ~3000 documents, ~100 K records: more than the record sort buffer of a
  // 1 MiB budget (under 64 Ki records), so runs spill; the pair sort spills
  // too, and at T = 1 every pair is a candidate (~10^5 distinct), far more
  // than the candidate table of a 1 MiB budget (~2.5 * 10^4), so coarse
  // counting needs several passes.
  std::mt19937_64 rng(77);
  const std::vector<FprintDocId> records = RandomRecords(rng, 3000, 40, 3);
  ASSERT_GT(records.size(), 60000u);
  const std::string path = Write(records);
  const std::vector<OverlapPair> all = BruteForceOverlap(records, 1);
  for (uint32_t t : {1u, 3u, 10u}) {
    SCOPED_TRACE("T=" + std::to_string(t));
    std::vector<OverlapPair> expected;
    std::copy_if(all.begin(), all.end(), std::back_inserter(expected),
                 [&](const OverlapPair& p) { return p.shared >= t; });
    ASSERT_FALSE(expected.empty());
    OverlapStats stats;
    EXPECT_EQ(Run(&SortBasedOverlap, path, Options(t, 1 << 20), &stats), expected);
    EXPECT_GT(stats.spill_runs, 1u);
    EXPECT_GT(stats.spill_bytes, records.size() * 8);
    EXPECT_LE(stats.peak_buffer_bytes, 1u << 20);
    const uint64_t generated = stats.pairs_generated;

    EXPECT_EQ(Run(&CoarseCountingOverlap, path, Options(t, 1 << 20), &stats), expected);
    EXPECT_GT(stats.spill_runs, 1u);
    EXPECT_EQ(stats.pairs_generated, generated);
    EXPECT_EQ(stats.candidate_pairs - stats.false_candidates, expected.size());
    if (t == 1) {
      EXPECT_GT(stats.passes, 1u);
    }

    // A large budget: nothing spills, one pass.
    EXPECT_EQ(Run(&SortBasedOverlap, path, Options(t, 256 << 20), &stats), expected);
    EXPECT_EQ(stats.spill_runs, 0u);
    EXPECT_EQ(stats.spill_bytes, 0u);
    EXPECT_EQ(Run(&CoarseCountingOverlap, path, Options(t, 256 << 20), &stats), expected);
    EXPECT_EQ(stats.spill_runs, 0u);
    EXPECT_EQ(stats.passes, 1u);
  }
}

TEST_F(OverlapTest, CoarseCountingFalseCandidatesAreRemoved) {
  std::mt19937_64 rng(5);
  const std::vector<FprintDocId> records = RandomRecords(rng, 300, 20, 3);
  const std::string path = Write(records);
  const uint32_t t = 5;
  const std::vector<OverlapPair> expected = BruteForceOverlap(records, t);
  ASSERT_FALSE(expected.empty());
  // One hash function over 16 buckets: the thousands of pairs sharing a
  // common fingerprint make nearly every bucket heavy, so many pairs with
  // F < T become candidates; the exact count removes them.
  OverlapOptions o = Options(t);
  o.coarse_hash_functions = 1;
  o.coarse_buckets = 16;
  OverlapStats one;
  EXPECT_EQ(Run(&CoarseCountingOverlap, path, o, &one), expected);
  EXPECT_GT(one.false_candidates, 0u);
  EXPECT_EQ(one.candidate_pairs, expected.size() + one.false_candidates);
  EXPECT_LE(one.heavy_buckets, 16u);
  // h_1 is the same function for every k (the seeds are drawn in order), so
  // adding functions can only remove candidates.
  uint64_t previous = one.candidate_pairs;
  for (uint32_t k = 2; k <= 4; ++k) {
    o.coarse_hash_functions = k;
    OverlapStats stats;
    EXPECT_EQ(Run(&CoarseCountingOverlap, path, o, &stats), expected);
    EXPECT_LE(stats.candidate_pairs, previous) << "k=" << k;
    EXPECT_LE(stats.heavy_buckets, 16u * k);
    previous = stats.candidate_pairs;
  }
  // With the budget-sized counter arrays false candidates are rare.
  o.coarse_buckets = 0;
  o.coarse_hash_functions = 2;
  OverlapStats sized;
  EXPECT_EQ(Run(&CoarseCountingOverlap, path, o, &sized), expected);
  EXPECT_LT(sized.false_candidates, one.false_candidates);
}

TEST_F(OverlapTest, SpillFilesRemovedOnWriteError) {
  std::mt19937_64 rng(9);
  const std::string path = Write(RandomRecords(rng, 3000, 40, 3));
  for (Algorithm algorithm : {&SortBasedOverlap, &CoarseCountingOverlap}) {
    // Appends of 64 KiB blocks: the 10th spill append is past the first run.
    env_.InjectFault({FileOp::kAppend, temp_ + "/", 9, 0});
    const uint64_t before = env_.faults_injected();
    Result<OverlapStats> r = algorithm(&env_, path, Options(1, 1 << 20),
                                       [](const OverlapPair&) { return Status::OK(); });
    EXPECT_TRUE(r.status().IsIOError()) << r.status().ToString();
    EXPECT_NE(r.status().message().find("injected append fault"), std::string::npos);
    EXPECT_GT(env_.faults_injected(), before);
    EXPECT_EQ(testing::CountFilesBelow(&env_, temp_), 0u);
    env_.ClearFaults();
  }
}

TEST_F(OverlapTest, EmptyTempDirMeansTheRecordsFolder) {
  const std::string path = Write(HandRecords());
  OverlapOptions o = Options(2);
  o.temp_dir.clear();
  EXPECT_EQ(Run(&SortBasedOverlap, path, o).size(), 3u);
  EXPECT_EQ(testing::CountFilesBelow(&env_, dir_), 1u);  // the records file only
}

}  // namespace
}  // namespace neardup
