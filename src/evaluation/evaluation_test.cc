// Copyright neardup authors. Licensed under Apache-2.0.
#include "evaluation/evaluation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "test_util.h"

namespace neardup {
namespace {

using Strings = std::vector<std::string>;

// ---- brute force: every unordered pair, O(n^2) ----

struct Brute {
  uint64_t tp = 0, fp = 0, fn = 0, tp_s = 0, fp_s = 0, fn_s = 0;
  double ari = 0, bp = 0, br = 0;
};

Brute BruteForce(const Strings& c, const Strings& g, const Strings& s) {
  Brute b;
  const size_t n = c.size();
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      const bool pc = c[i] == c[j], tg = g[i] == g[j], ss = s[i] == s[j];
      b.tp += pc && tg;
      b.fp += pc && !tg;
      b.fn += !pc && tg;
      b.tp_s += pc && tg && ss;
      b.fp_s += pc && !tg && ss;
      b.fn_s += !pc && tg && ss;
    }
  }
  // ARI from the pair confusion matrix (the form of Steinley 2004 / sklearn),
  // an independent route to Hubert and Arabie's value.
  const long double all = n * (n - 1) / 2.0L;
  const long double tp = b.tp, fp = b.fp, fn = b.fn, tn = all - tp - fp - fn;
  const long double den = (tp + fn) * (fn + tn) + (tp + fp) * (fp + tn);
  b.ari = den == 0 ? 1.0 : static_cast<double>(2 * (tp * tn - fn * fp) / den);
  if (n == 0) {
    b.bp = b.br = 1.0;
  } else {
    for (size_t i = 0; i < n; ++i) {
      double both = 0, cluster = 0, group = 0;
      for (size_t j = 0; j < n; ++j) {
        both += c[i] == c[j] && g[i] == g[j];
        cluster += c[i] == c[j];
        group += g[i] == g[j];
      }
      b.bp += both / cluster;
      b.br += both / group;
    }
    b.bp /= n;
    b.br /= n;
  }
  return b;
}

TEST(EvaluationTest, MatchesBruteForceOnRandomLabelings) {
  std::mt19937_64 rng(1234);
  for (int trial = 0; trial < 600; ++trial) {
    const size_t n = rng() % 41;
    const uint64_t clusters = 1 + rng() % (n + 1), groups = 1 + rng() % (n + 1);
    const uint64_t sites = 1 + rng() % 4;
    Strings c(n), g(n), s(n);
    for (size_t i = 0; i < n; ++i) {
      c[i] = std::string("c").append(std::to_string(rng() % clusters));
      // Truth correlated with the prediction half the time, so TP > 0 often.
      g[i] = std::string("g").append(rng() % 2 ? c[i] : std::to_string(rng() % groups));
      s[i] = "site" + std::to_string(rng() % sites);
    }
    SCOPED_TRACE("trial " + std::to_string(trial) + ", n " + std::to_string(n));
    const EvaluationResult r = Evaluate(c, g, s);
    const Brute b = BruteForce(c, g, s);
    EXPECT_EQ(r.items, n);
    EXPECT_EQ(r.all.true_positive, b.tp);
    EXPECT_EQ(r.all.false_positive, b.fp);
    EXPECT_EQ(r.all.false_negative, b.fn);
    EXPECT_EQ(r.same_site.true_positive, b.tp_s);
    EXPECT_EQ(r.same_site.false_positive, b.fp_s);
    EXPECT_EQ(r.same_site.false_negative, b.fn_s);
    EXPECT_EQ(r.different_site.true_positive, b.tp - b.tp_s);
    EXPECT_EQ(r.different_site.false_positive, b.fp - b.fp_s);
    EXPECT_EQ(r.different_site.false_negative, b.fn - b.fn_s);
    EXPECT_EQ(r.wrong_same_site_merges, b.fp_s);
    EXPECT_NEAR(r.adjusted_rand_index, b.ari, 1e-12);
    EXPECT_NEAR(r.bcubed_precision, b.bp, 1e-12);
    EXPECT_NEAR(r.bcubed_recall, b.br, 1e-12);
    const double bf = b.bp + b.br == 0 ? 0 : 2 * b.bp * b.br / (b.bp + b.br);
    EXPECT_NEAR(r.bcubed_f1, bf, 1e-12);
    // Labels are only compared: renaming them changes nothing.
    Strings c2 = c;
    for (auto& x : c2) x = "renamed-" + x;
    const EvaluationResult r2 = Evaluate(c2, g, s);
    EXPECT_EQ(r2.all.true_positive, r.all.true_positive);
    EXPECT_EQ(r2.adjusted_rand_index, r.adjusted_rand_index);
  }
}

// Six items (cluster, group, site):
//   0 (c1,g1,s1)  1 (c1,g1,s1)  2 (c1,g2,s1)  3 (c2,g2,s2)  4 (c2,g2,s1)  5 (c3,g3,s2)
// Clusters 3,2,1 -> predicted pairs C(3,2)+C(2,2) = 4: (0,1) (0,2) (1,2) (3,4).
// Groups 2,3,1 -> true pairs 1+3 = 4: (0,1) (2,3) (2,4) (3,4).
// Cells (c1,g1)=2 (c1,g2)=1 (c2,g2)=2 (c3,g3)=1 -> TP = 1+1 = 2: (0,1) (3,4).
//   FP = 4-2 = 2, FN = 4-2 = 2; P = R = F1 = 0.5.
// Same site: (c,s) cells (c1,s1)=3 (c2,s2)=1 (c2,s1)=1 (c3,s2)=1 -> 3 pairs;
//   (g,s) cells (g1,s1)=2 (g2,s1)=2 (g2,s2)=1 (g3,s2)=1 -> 2 pairs;
//   (c,g,s) cells (c1,g1,s1)=2, the rest 1 -> 1 pair. TP 1, FP 2, FN 1.
//   Different site: TP 2-1 = 1 (3,4), FP 0, FN 1 (2,3).
//   Wrong same-site merges 3-1 = 2: (0,2) and (1,2).
// ARI: C(6,2) = 15, expected = 4*4/15 = 16/15, max = (4+4)/2 = 4,
//   (2 - 16/15) / (4 - 16/15) = (14/15) / (44/15) = 7/22.
// B-cubed precision, cell/cluster per item: 2/3 2/3 1/3 1 1 1 -> (14/3)/6 = 7/9.
// B-cubed recall, cell/group per item: 1 1 1/3 2/3 2/3 1 -> (14/3)/6 = 7/9; F1 7/9.
TEST(EvaluationTest, HandComputedExample) {
  const Strings c = {"c1", "c1", "c1", "c2", "c2", "c3"};
  const Strings g = {"g1", "g1", "g2", "g2", "g2", "g3"};
  const Strings s = {"s1", "s1", "s1", "s2", "s1", "s2"};
  const EvaluationResult r = Evaluate(c, g, s);
  EXPECT_EQ(r.items, 6u);
  EXPECT_EQ(r.all.true_positive, 2u);
  EXPECT_EQ(r.all.false_positive, 2u);
  EXPECT_EQ(r.all.false_negative, 2u);
  EXPECT_DOUBLE_EQ(r.all.precision(), 0.5);
  EXPECT_DOUBLE_EQ(r.all.recall(), 0.5);
  EXPECT_DOUBLE_EQ(r.all.f1(), 0.5);
  EXPECT_EQ(r.same_site.true_positive, 1u);
  EXPECT_EQ(r.same_site.false_positive, 2u);
  EXPECT_EQ(r.same_site.false_negative, 1u);
  EXPECT_EQ(r.different_site.true_positive, 1u);
  EXPECT_EQ(r.different_site.false_positive, 0u);
  EXPECT_EQ(r.different_site.false_negative, 1u);
  EXPECT_DOUBLE_EQ(r.different_site.precision(), 1.0);
  EXPECT_DOUBLE_EQ(r.different_site.recall(), 0.5);
  EXPECT_EQ(r.wrong_same_site_merges, 2u);
  EXPECT_DOUBLE_EQ(r.adjusted_rand_index, 7.0 / 22.0);
  EXPECT_DOUBLE_EQ(r.bcubed_precision, 7.0 / 9.0);
  EXPECT_DOUBLE_EQ(r.bcubed_recall, 7.0 / 9.0);
  EXPECT_DOUBLE_EQ(r.bcubed_f1, 7.0 / 9.0);
}

TEST(EvaluationTest, EmptyInput) {
  const EvaluationResult r = Evaluate({}, {}, {});
  EXPECT_EQ(r.items, 0u);
  EXPECT_EQ(r.all.true_positive + r.all.false_positive + r.all.false_negative, 0u);
  // Nothing to get wrong: every measure is 1.
  EXPECT_EQ(r.all.precision(), 1.0);
  EXPECT_EQ(r.all.recall(), 1.0);
  EXPECT_EQ(r.all.f1(), 1.0);
  EXPECT_EQ(r.adjusted_rand_index, 1.0);
  EXPECT_EQ(r.bcubed_precision, 1.0);
  EXPECT_EQ(r.bcubed_recall, 1.0);
  EXPECT_EQ(r.bcubed_f1, 1.0);
}

TEST(EvaluationTest, AllSingletonsPrediction) {
  const Strings c = {"0", "1", "2", "3"};
  const Strings s = {"a", "a", "b", "b"};
  // Against a truth with pairs: no predicted pair, precision 1 by convention,
  // recall 0, F1 0.
  EvaluationResult r = Evaluate(c, {"x", "x", "x", "y"}, s);
  EXPECT_EQ(r.all.true_positive, 0u);
  EXPECT_EQ(r.all.false_positive, 0u);
  EXPECT_EQ(r.all.false_negative, 3u);
  EXPECT_EQ(r.all.precision(), 1.0);
  EXPECT_EQ(r.all.recall(), 0.0);
  EXPECT_EQ(r.all.f1(), 0.0);
  EXPECT_EQ(r.same_site.false_negative, 1u);
  EXPECT_EQ(r.different_site.false_negative, 2u);
  EXPECT_EQ(r.bcubed_precision, 1.0);
  EXPECT_DOUBLE_EQ(r.bcubed_recall, (1.0 / 3 * 3 + 1) / 4);
  EXPECT_EQ(r.adjusted_rand_index, 0.0);  // index = expected = 0
  // Against an all-singletons truth: perfect.
  r = Evaluate(c, {"p", "q", "r", "s"}, s);
  EXPECT_EQ(r.all.precision(), 1.0);
  EXPECT_EQ(r.all.recall(), 1.0);
  EXPECT_EQ(r.all.f1(), 1.0);
  EXPECT_EQ(r.adjusted_rand_index, 1.0);
  EXPECT_EQ(r.bcubed_f1, 1.0);
}

TEST(EvaluationTest, OneBlockAndOneItem) {
  const Strings one = {"k", "k", "k"};
  const Strings sites = {"s", "s", "t"};
  EvaluationResult r = Evaluate(one, one, sites);
  EXPECT_EQ(r.all.true_positive, 3u);
  EXPECT_EQ(r.same_site.true_positive, 1u);
  EXPECT_EQ(r.adjusted_rand_index, 1.0);  // both one block: identical, trivial
  r = Evaluate({"a"}, {"b"}, {"s"});
  EXPECT_EQ(r.items, 1u);
  EXPECT_EQ(r.adjusted_rand_index, 1.0);
  EXPECT_EQ(r.bcubed_f1, 1.0);
  // Everything merged against all singletons: precision 0, ARI 0.
  r = Evaluate(one, {"a", "b", "c"}, sites);
  EXPECT_EQ(r.all.precision(), 0.0);
  EXPECT_EQ(r.all.recall(), 1.0);
  EXPECT_EQ(r.adjusted_rand_index, 0.0);
  EXPECT_EQ(r.wrong_same_site_merges, 1u);
}

// ---- EvaluateFiles ----

// A read-only Env over the real file system, enough for EvaluateFiles (the
// report module does not link the io module's Env::Default()).
class ReadOnlyFileEnv : public Env {
 public:
  Result<std::unique_ptr<SequentialFile>> NewSequentialFile(const std::string& path) override {
    auto in = std::make_unique<std::ifstream>(path, std::ios::binary);
    if (!*in) return Status::NotFound(path);
    return std::unique_ptr<SequentialFile>(std::make_unique<File>(std::move(in)));
  }
  Result<std::unique_ptr<WritableFile>> NewWritableFile(const std::string&) override {
    return Status::NotSupported("read-only");
  }
  bool FileExists(const std::string& path) override { return std::filesystem::exists(path); }
  bool IsDirectory(const std::string& path) override {
    return std::filesystem::is_directory(path);
  }
  Result<uint64_t> GetFileSize(const std::string&) override {
    return Status::NotSupported("read-only");
  }
  Result<std::vector<std::string>> ListFilesRecursive(const std::string&) override {
    return Status::NotSupported("read-only");
  }
  Status CreateDirs(const std::string&) override { return Status::NotSupported("read-only"); }
  Status RemoveFile(const std::string&) override { return Status::NotSupported("read-only"); }
  Status RenameFile(const std::string&, const std::string&) override {
    return Status::NotSupported("read-only");
  }

 private:
  class File : public SequentialFile {
   public:
    explicit File(std::unique_ptr<std::ifstream> in) : in_(std::move(in)) {}
    // Small reads, so lines straddle buffer boundaries.
    Status Read(size_t n, char* scratch, size_t* bytes_read) override {
      in_->read(scratch, static_cast<std::streamsize>(std::min<size_t>(n, 7)));
      *bytes_read = static_cast<size_t>(in_->gcount());
      return Status::OK();
    }

   private:
    std::unique_ptr<std::ifstream> in_;
  };
};

class EvaluateFilesTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeTempDir("report_eval"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
  ReadOnlyFileEnv env_;
};

constexpr char kClustersHeader[] = "url\tcluster\trole\tmethod\tsimilarity\tsource\toffset\n";

TEST_F(EvaluateFilesTest, JoinsByUrl) {
  testing::WriteFileOrDie(dir_ + "/truth.tsv",
                          "# hand-made truth\n"
                          "url\tgroup\tkind\n"  // a header with more columns
                          "http://www.a.com/1\tA\r\n"
                          "http://www.a.com/2\tA\n"
                          "\n"
                          "http://b.a.com/3\tB\n"
                          "http://x.org/4\tA\textra column\n"
                          "http://www.a.com/2\tA\n"  // repeated, same group
                          "http://missing.org/5\tC\n");
  testing::WriteFileOrDie(dir_ + "/clusters.tsv",
                          std::string(kClustersHeader) +
                              "http://www.a.com/1\t0\tkeep\texact\t1\tf\t0\n"
                              "http://www.a.com/2\t0\tduplicate\texact\t1\tf\t1\n"
                              "http://notruth.com/6\t4\tkeep\tsingle\t1\tf\t2\n"
                              "http://b.a.com/3\t0\tduplicate\tbroder\t0.9\tf\t3\n"
                              "http://x.org/4\t3\tkeep\tsingle\t1\tf\t4\n"
                              "http://www.a.com/1\t5\tkeep\tsingle\t1\tf\t5\n"
                              "http://notruth.com/6\t4\tkeep\tsingle\t1\tf\t6\n"
                              "http://notruth.com/7\t6\tkeep\tsingle\t1\tf\t7");
  uint64_t not_in_truth = 99;
  Result<EvaluationResult> r = EvaluateFiles(dir_ + "/truth.tsv", dir_, &env_, &not_in_truth);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->items, 4u);
  EXPECT_EQ(r->missing_from_prediction, 1u);
  EXPECT_EQ(not_in_truth, 2u);
  // Predicted {1,2,3} {4}; truth A={1,2,4} B={3}; sites a.com a.com a.com x.org.
  EXPECT_EQ(r->all.true_positive, 1u);   // (1,2)
  EXPECT_EQ(r->all.false_positive, 2u);  // (1,3) (2,3)
  EXPECT_EQ(r->all.false_negative, 2u);  // (1,4) (2,4)
  EXPECT_EQ(r->same_site.true_positive, 1u);
  EXPECT_EQ(r->same_site.false_positive, 2u);
  EXPECT_EQ(r->same_site.false_negative, 0u);
  EXPECT_EQ(r->different_site.false_negative, 2u);
  EXPECT_EQ(r->wrong_same_site_merges, 2u);
  const EvaluationResult direct =
      Evaluate({"0", "0", "0", "3"}, {"A", "A", "B", "A"}, {"a.com", "a.com", "a.com", "x.org"});
  EXPECT_EQ(r->adjusted_rand_index, direct.adjusted_rand_index);
  EXPECT_EQ(r->bcubed_precision, direct.bcubed_precision);
  EXPECT_EQ(r->bcubed_recall, direct.bcubed_recall);

  // Trailing slash on the folder, no counter.
  r = EvaluateFiles(dir_ + "/truth.tsv", dir_ + "/", &env_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->items, 4u);
}

TEST_F(EvaluateFilesTest, HeaderlessTruthAndReorderedColumns) {
  testing::WriteFileOrDie(dir_ + "/truth.tsv", "http://h/1\tg\nhttp://h/2\tg\n");
  testing::WriteFileOrDie(dir_ + "/clusters.tsv", "cluster\turl\n7\thttp://h/1\n7\thttp://h/2\n");
  Result<EvaluationResult> r = EvaluateFiles(dir_ + "/truth.tsv", dir_, &env_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->items, 2u);
  EXPECT_EQ(r->all.true_positive, 1u);
  EXPECT_EQ(r->same_site.true_positive, 1u);
}

TEST_F(EvaluateFilesTest, Errors) {
  const std::string truth = dir_ + "/truth.tsv";
  testing::WriteFileOrDie(dir_ + "/clusters.tsv", std::string(kClustersHeader));
  EXPECT_TRUE(EvaluateFiles(dir_ + "/nope.tsv", dir_, &env_).status().IsNotFound());
  testing::WriteFileOrDie(truth, "http://h/1\tg\n");
  EXPECT_TRUE(EvaluateFiles(truth, dir_ + "/nodir", &env_).status().IsNotFound());

  testing::WriteFileOrDie(truth, "http://h/1 without a tab\n");
  EXPECT_TRUE(EvaluateFiles(truth, dir_, &env_).status().IsCorruption());
  testing::WriteFileOrDie(truth, "http://h/1\tg\nhttp://h/1\tother\n");
  EXPECT_TRUE(EvaluateFiles(truth, dir_, &env_).status().IsInvalidArgument());

  testing::WriteFileOrDie(truth, "http://h/1\tg\n");
  testing::WriteFileOrDie(dir_ + "/clusters.tsv", "http://h/1\t0\n");
  EXPECT_TRUE(EvaluateFiles(truth, dir_, &env_).status().IsCorruption());
  testing::WriteFileOrDie(dir_ + "/clusters.tsv", "");
  EXPECT_TRUE(EvaluateFiles(truth, dir_, &env_).status().IsCorruption());
  testing::WriteFileOrDie(dir_ + "/clusters.tsv", "url\tcluster\nhttp://h/1\n");
  EXPECT_TRUE(EvaluateFiles(truth, dir_, &env_).status().IsCorruption());

  // Empty prediction: every truth url is missing.
  testing::WriteFileOrDie(dir_ + "/clusters.tsv", std::string(kClustersHeader));
  Result<EvaluationResult> r = EvaluateFiles(truth, dir_, &env_);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->items, 0u);
  EXPECT_EQ(r->missing_from_prediction, 1u);
}

// Kinds and the worst clusters, computed by hand. Truth groups: g1 = {0, 1,
// 2, 3}, g2 = {4, 5}, g3 = {6}. Prediction: {0, 1}, {2}, {3, 4, 5, 6}.
TEST(EvaluationTest, KindsAndWorstClusters) {
  const std::vector<std::string> predicted = {"a", "a", "b", "c", "c", "c", "c"};
  const std::vector<std::string> truth = {"g1", "g1", "g1", "g1", "g2", "g2", "g3"};
  const std::vector<std::string> site(7, "s");
  const std::vector<std::string> kind = {"original", "copy", "copy", "edit", "original", "copy", "original"};
  const EvaluationResult r = Evaluate(predicted, truth, site, &kind);
  // Pages of groups of two or more: original {0, 4}, copy {1, 2, 5}, edit {3}.
  ASSERT_EQ(r.kinds.size(), 3u);
  EXPECT_EQ(r.kinds[0].kind, "copy");
  EXPECT_EQ(r.kinds[0].pages, 3u);
  // Recalls: page 1 2/4, page 2 1/4, page 5 2/2.
  EXPECT_NEAR(r.kinds[0].bcubed_recall, (0.5 + 0.25 + 1.0) / 3, 1e-12);
  EXPECT_EQ(r.kinds[0].pages_alone, 1u);  // page 2
  EXPECT_EQ(r.kinds[1].kind, "edit");
  EXPECT_NEAR(r.kinds[1].bcubed_recall, 0.25, 1e-12);
  EXPECT_EQ(r.kinds[1].pages_alone, 1u);
  EXPECT_EQ(r.kinds[2].kind, "original");
  EXPECT_EQ(r.kinds[2].pages, 2u);  // page 6 is alone in its group: not counted
  EXPECT_NEAR(r.kinds[2].bcubed_recall, (0.5 + 1.0) / 2, 1e-12);
  // g1 keeps 1 of its 6 pairs, in 3 clusters; g2 keeps its pair.
  ASSERT_EQ(r.worst_split_groups.size(), 1u);
  EXPECT_EQ(r.worst_split_groups[0].label, "g1");
  EXPECT_EQ(r.worst_split_groups[0].size, 4u);
  EXPECT_EQ(r.worst_split_groups[0].pairs, 5u);
  EXPECT_EQ(r.worst_split_groups[0].parts, 3u);
  // Cluster c holds 6 pairs, 1 right (4-5): 5 wrong, 3 groups.
  ASSERT_EQ(r.worst_merged_clusters.size(), 1u);
  EXPECT_EQ(r.worst_merged_clusters[0].label, "c");
  EXPECT_EQ(r.worst_merged_clusters[0].pairs, 5u);
  EXPECT_EQ(r.worst_merged_clusters[0].parts, 3u);
  // Without kinds, none are reported.
  EXPECT_TRUE(Evaluate(predicted, truth, site).kinds.empty());
}

}  // namespace
}  // namespace neardup
