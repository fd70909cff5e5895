// Copyright neardup authors. Licensed under Apache-2.0.
//
// Evaluating a dedup run against a truth: pairwise precision, recall and F1
// (also split into pairs on the same site and on different sites, by
// Henzinger's definition of a site), the adjusted Rand index, B-cubed
// precision and recall, and the wrongly merged pairs of same-site pages.
// Everything is counted from contingency tables, never by enumerating pairs,
// so large clusters are cheap.
#ifndef NEARDUP_EVALUATION_H_
#define NEARDUP_EVALUATION_H_

#include <cstdint>
#include <string>

#include "neardup/env.h"
#include "neardup/status.h"

namespace neardup {

struct PairCounts {
  uint64_t true_positive = 0;
  uint64_t false_positive = 0;
  uint64_t false_negative = 0;

  // TP / (TP + FP); 1 when TP + FP == 0.
  double precision() const;
  // TP / (TP + FN); 1 when TP + FN == 0.
  double recall() const;
  // 2PR / (P + R); 0 when P + R == 0.
  double f1() const;
};

struct EvaluationResult {
  // Items in both the truth and the prediction (Evaluate: all its items).
  uint64_t items = 0;
  // Truth items with no prediction (EvaluateFiles only; Evaluate leaves 0).
  // They are not part of any measure below.
  uint64_t missing_from_prediction = 0;

  // Pairwise counts, from contingency tables. `same_site` counts only pairs
  // whose two items have equal site strings ("" equals ""), and
  // `different_site` = `all` - `same_site`, field by field.
  PairCounts all, same_site, different_site;

  // Hubert and Arabie's adjusted Rand index, in [-1, 1] (1: identical).
  double adjusted_rand_index = 0;

  // Bagga and Baldwin's B-cubed measures (see above).
  double bcubed_precision = 0, bcubed_recall = 0, bcubed_f1 = 0;

  // Pairs predicted together, on the same site, in different truth groups:
  // Henzinger's typical failure (boilerplate-heavy pages of one site).
  // Equal to same_site.false_positive; kept as its own field for reports.
  uint64_t wrong_same_site_merges = 0;

  // Per kind of page (the truth's `kind` column, when it has one), over the
  // pages of truth groups of two or more: how many, their mean B-cubed
  // recall, and how many the prediction left without any page of their
  // group. In order of kind name.
  struct KindRecall {
    std::string kind;
    uint64_t pages = 0;
    double bcubed_recall = 0;
    uint64_t pages_alone = 0;
  };
  std::vector<KindRecall> kinds;

  // The worst clusters: the truth groups with the most true pairs the
  // prediction missed (with the number of clusters their pages fell into),
  // and the predicted clusters with the most pairs from different groups
  // (with the number of groups they hold); kWorstClusters of each, worst
  // first. A few large clusters dominate pairwise figures; these say which.
  struct ClusterError {
    std::string label;   // the group's label, or the cluster's
    uint64_t size = 0;   // its pages
    uint64_t pairs = 0;  // missed (groups) or wrongly merged (clusters) pairs
    uint64_t parts = 0;  // clusters of a group's pages, groups of a cluster's
  };
  static constexpr size_t kWorstClusters = 5;
  std::vector<ClusterError> worst_split_groups, worst_merged_clusters;
};

// Reads a truth file (`url<TAB>group` per line; optional header line
// `url<TAB>group[<TAB>...]`, and when it names a column `kind`, that column
// gives each page's kind (EvaluationResult::kinds); other columns are
// ignored; blank and '#' lines skipped) and the clusters.tsv of a
// `neardup dedup` output folder, joins them by url, and evaluates. Urls of
// clusters.tsv without truth are ignored and counted in *urls_not_in_truth.
// `env` is the file system to read through (Env::Default() for the real one).
Result<EvaluationResult> EvaluateFiles(const std::string& truth_path, const std::string& dedup_dir,
                                       Env* env = nullptr, uint64_t* urls_not_in_truth = nullptr);

}  // namespace neardup

#endif  // NEARDUP_EVALUATION_H_
