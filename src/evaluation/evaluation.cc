// Copyright neardup authors. Licensed under Apache-2.0.
#include "evaluation/evaluation.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "base/line_reader.h"
#include "base/tsv.h"
#include "output/clusters_file.h"
#include "text/site.h"

namespace neardup {

namespace {

uint64_t Choose2(uint64_t n) { return n < 2 ? 0 : n * (n - 1) / 2; }

// Ratio with the "nothing to get wrong" convention of the header.
double RatioOrOne(uint64_t num, uint64_t den) {
  if (den == 0) return 1.0;
  return static_cast<double>(static_cast<long double>(num) / static_cast<long double>(den));
}

double HarmonicMean(long double p, long double r) {
  if (p + r == 0) return 0.0;
  return static_cast<double>(2 * p * r / (p + r));
}

// Dense ids 0.. for byte-equal strings, in order of first appearance.
std::vector<uint32_t> InternLabels(const std::vector<std::string>& labels) {
  std::unordered_map<std::string_view, uint32_t> ids;
  ids.reserve(labels.size());
  std::vector<uint32_t> out(labels.size());
  for (size_t i = 0; i < labels.size(); ++i) {
    auto [it, inserted] = ids.try_emplace(labels[i], static_cast<uint32_t>(ids.size()));
    out[i] = it->second;
  }
  return out;
}

// One contingency table: dense cell ids for the keys (a << 32 | b) of every
// item, and the number of items in each cell.
struct Table {
  std::vector<uint32_t> cell;   // per item
  std::vector<uint64_t> sizes;  // per cell
  uint64_t SumChoose2() const {
    uint64_t s = 0;
    for (uint64_t n : sizes) s += Choose2(n);
    return s;
  }
};

Table Tabulate(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  Table t;
  std::unordered_map<uint64_t, uint32_t> ids;
  ids.reserve(a.size());
  t.cell.resize(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const uint64_t key = (static_cast<uint64_t>(a[i]) << 32) | b[i];
    auto [it, inserted] = ids.try_emplace(key, static_cast<uint32_t>(t.sizes.size()));
    if (inserted) t.sizes.push_back(0);
    ++t.sizes[it->second];
    t.cell[i] = it->second;
  }
  return t;
}

// Sizes of the classes of one labelling (a one-way table).
std::vector<uint64_t> ClassSizes(const std::vector<uint32_t>& ids) {
  std::vector<uint64_t> sizes;
  for (uint32_t id : ids) {
    if (id >= sizes.size()) sizes.resize(id + 1, 0);
    ++sizes[id];
  }
  return sizes;
}

uint64_t SumChoose2(const std::vector<uint64_t>& sizes) {
  uint64_t s = 0;
  for (uint64_t n : sizes) s += Choose2(n);
  return s;
}

PairCounts MakeCounts(uint64_t both, uint64_t predicted, uint64_t truth) {
  PairCounts c;
  c.true_positive = both;
  c.false_positive = predicted - both;
  c.false_negative = truth - both;
  return c;
}



Result<std::unique_ptr<SequentialFile>> Open(Env* env, const std::string& path) {
  auto f = env->NewSequentialFile(path);
  if (!f.ok()) {
    const Status& s = f.status();
    const std::string msg = "cannot read " + path + ": " + s.message();
    return s.IsNotFound() ? Status::NotFound(msg) : Status::IOError(msg);
  }
  return f;
}

// Truth url -> group, plus whether clusters.tsv has listed the url yet.
struct TruthEntry {
  std::string group;
  std::string kind;
  bool seen = false;
};

Result<std::unordered_map<std::string, TruthEntry>> ReadTruth(const std::string& path, Env* env) {
  NEARDUP_ASSIGN_OR_RETURN(auto file, Open(env, path));
  LineReader lines(std::move(file));
  std::unordered_map<std::string, TruthEntry> truth;
  std::vector<std::string_view> fields;
  std::string_view line;
  uint64_t line_no = 0;
  bool first_content_line = true;
  size_t kind_column = 0;  // 0: none
  for (;;) {
    NEARDUP_ASSIGN_OR_RETURN(bool got, lines.Next(&line));
    if (!got) break;
    ++line_no;
    if (line.empty() || line.front() == '#') continue;
    if (first_content_line) {
      first_content_line = false;
      // A header: "url<TAB>group", optionally with more columns.
      if (line == "url\tgroup" || line.starts_with("url\tgroup\t")) {
        SplitTsvLine(line, &fields);
        for (size_t f = 2; f < fields.size(); ++f) {
          if (fields[f] == "kind") kind_column = f;
        }
        continue;
      }
    }
    SplitTsvLine(line, &fields);
    if (fields.size() < 2) {
      return Status::Corruption(path + ":" + std::to_string(line_no) +
                                ": expected url<TAB>group");
    }
    auto [it, inserted] = truth.try_emplace(std::string(fields[0]));
    if (inserted) {
      it->second.group = std::string(fields[1]);
      if (kind_column > 0 && kind_column < fields.size()) it->second.kind = std::string(fields[kind_column]);
    } else if (it->second.group != fields[1]) {
      return Status::InvalidArgument(path + ":" + std::to_string(line_no) + ": url " + it->first +
                                     " has two groups, " + it->second.group + " and " +
                                     std::string(fields[1]));
    }
  }
  return truth;
}

}  // namespace

double PairCounts::precision() const {
  return RatioOrOne(true_positive, true_positive + false_positive);
}

double PairCounts::recall() const {
  return RatioOrOne(true_positive, true_positive + false_negative);
}

double PairCounts::f1() const { return HarmonicMean(precision(), recall()); }

EvaluationResult Evaluate(const std::vector<std::string>& predicted,
                          const std::vector<std::string>& truth,
                          const std::vector<std::string>& site,
                          const std::vector<std::string>* kind) {
  NEARDUP_CHECK(predicted.size() == truth.size() && truth.size() == site.size());
  NEARDUP_CHECK(predicted.size() < (uint64_t{1} << 32));
  const uint64_t n = predicted.size();
  EvaluationResult r;
  r.items = n;

  const std::vector<uint32_t> c = InternLabels(predicted);
  const std::vector<uint32_t> g = InternLabels(truth);
  const std::vector<uint32_t> s = InternLabels(site);

  // Marginals and cells; the same-site tables add the site to every key.
  const std::vector<uint64_t> cluster_sizes = ClassSizes(c);
  const std::vector<uint64_t> group_sizes = ClassSizes(g);
  const Table cg = Tabulate(c, g);
  const Table cs = Tabulate(c, s);
  const Table gs = Tabulate(g, s);
  const Table cgs = Tabulate(cg.cell, s);

  const uint64_t predicted_pairs = SumChoose2(cluster_sizes);
  const uint64_t true_pairs = SumChoose2(group_sizes);
  const uint64_t both = cg.SumChoose2();
  r.all = MakeCounts(both, predicted_pairs, true_pairs);
  r.same_site = MakeCounts(cgs.SumChoose2(), cs.SumChoose2(), gs.SumChoose2());
  r.different_site.true_positive = r.all.true_positive - r.same_site.true_positive;
  r.different_site.false_positive = r.all.false_positive - r.same_site.false_positive;
  r.different_site.false_negative = r.all.false_negative - r.same_site.false_negative;
  r.wrong_same_site_merges = r.same_site.false_positive;

  // Hubert and Arabie: (index - expected) / (max - expected), where index =
  // sum over cells, expected = (sum over clusters)(sum over groups)/C(n,2)
  // and max = the mean of the two marginal sums. The denominator is 0 exactly
  // when both partitions are all singletons or both one block (or n < 2).
  const uint64_t all_pairs = Choose2(n);
  if ((predicted_pairs == 0 && true_pairs == 0) ||
      (predicted_pairs == all_pairs && true_pairs == all_pairs)) {
    r.adjusted_rand_index = 1.0;
  } else {
    const long double a = predicted_pairs, b = true_pairs, index = both;
    const long double expected = a * b / static_cast<long double>(all_pairs);
    const long double max_index = (a + b) / 2;
    r.adjusted_rand_index = static_cast<double>((index - expected) / (max_index - expected));
  }

  // B-cubed: per item, its cell's size over its cluster's / group's size,
  // summed in item order (deterministic rounding).
  if (n == 0) {
    r.bcubed_precision = r.bcubed_recall = r.bcubed_f1 = 1.0;
  } else {
    long double p = 0, rec = 0;
    for (uint64_t i = 0; i < n; ++i) {
      const long double cell = cg.sizes[cg.cell[i]];
      p += cell / cluster_sizes[c[i]];
      rec += cell / group_sizes[g[i]];
    }
    p /= n;
    rec /= n;
    r.bcubed_precision = static_cast<double>(p);
    r.bcubed_recall = static_cast<double>(rec);
    r.bcubed_f1 = HarmonicMean(p, rec);
  }

  // Per kind, over the items of groups of two or more.
  if (kind != nullptr && !kind->empty()) {
    NEARDUP_CHECK(kind->size() == n);
    std::map<std::string, std::pair<EvaluationResult::KindRecall, long double>> by_kind;
    for (uint64_t i = 0; i < n; ++i) {
      if (group_sizes[g[i]] < 2) continue;
      auto& [k, recall_sum] = by_kind[(*kind)[i]];
      k.kind = (*kind)[i];
      ++k.pages;
      recall_sum += static_cast<long double>(cg.sizes[cg.cell[i]]) / group_sizes[g[i]];
      k.pages_alone += cg.sizes[cg.cell[i]] == 1;
    }
    for (auto& [name, entry] : by_kind) {
      entry.first.bcubed_recall = static_cast<double>(entry.second / entry.first.pages);
      r.kinds.push_back(entry.first);
    }
  }

  // The worst groups and clusters: each one's pairs less its cells' pairs.
  {
    std::vector<uint64_t> group_kept(group_sizes.size(), 0), cluster_right(cluster_sizes.size(), 0);
    std::vector<uint64_t> group_parts(group_sizes.size(), 0), cluster_parts(cluster_sizes.size(), 0);
    std::vector<uint8_t> cell_seen(cg.sizes.size(), 0);
    std::vector<uint64_t> first_of_group(group_sizes.size(), UINT64_MAX), first_of_cluster(cluster_sizes.size(), UINT64_MAX);
    for (uint64_t i = 0; i < n; ++i) {
      if (first_of_group[g[i]] == UINT64_MAX) first_of_group[g[i]] = i;
      if (first_of_cluster[c[i]] == UINT64_MAX) first_of_cluster[c[i]] = i;
      if (cell_seen[cg.cell[i]]) continue;
      cell_seen[cg.cell[i]] = 1;
      const uint64_t pairs = Choose2(cg.sizes[cg.cell[i]]);
      group_kept[g[i]] += pairs;
      cluster_right[c[i]] += pairs;
      ++group_parts[g[i]];
      ++cluster_parts[c[i]];
    }
    auto worst = [](std::vector<EvaluationResult::ClusterError> all) {
      std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
        return a.pairs != b.pairs ? a.pairs > b.pairs : a.label < b.label;
      });
      if (all.size() > EvaluationResult::kWorstClusters) all.resize(EvaluationResult::kWorstClusters);
      return all;
    };
    std::vector<EvaluationResult::ClusterError> split, merged;
    for (size_t k = 0; k < group_sizes.size(); ++k) {
      const uint64_t missed = Choose2(group_sizes[k]) - group_kept[k];
      if (missed > 0) split.push_back({truth[first_of_group[k]], group_sizes[k], missed, group_parts[k]});
    }
    for (size_t k = 0; k < cluster_sizes.size(); ++k) {
      const uint64_t wrong = Choose2(cluster_sizes[k]) - cluster_right[k];
      if (wrong > 0) merged.push_back({predicted[first_of_cluster[k]], cluster_sizes[k], wrong, cluster_parts[k]});
    }
    r.worst_split_groups = worst(std::move(split));
    r.worst_merged_clusters = worst(std::move(merged));
  }
  return r;
}

Result<EvaluationResult> EvaluateFiles(const std::string& truth_path, const std::string& dedup_dir,
                                       Env* env, uint64_t* urls_not_in_truth) {
  if (env == nullptr) env = Env::Default();
  NEARDUP_ASSIGN_OR_RETURN(auto truth, ReadTruth(truth_path, env));

  std::string clusters_path = dedup_dir;
  if (!clusters_path.empty() && clusters_path.back() != '/') clusters_path.push_back('/');
  clusters_path += "clusters.tsv";
  NEARDUP_ASSIGN_OR_RETURN(auto clusters, ClustersReader::Open(env, clusters_path));

  std::vector<std::string> predicted, groups, sites, kinds;
  bool any_kind = false;
  for (const auto& [url, entry] : truth) any_kind |= !entry.kind.empty();
  std::unordered_set<std::string> unknown_urls;
  ClusterRecord row;
  for (;;) {
    NEARDUP_ASSIGN_OR_RETURN(bool got, clusters->Next(&row));
    if (!got) break;
    const std::string url(row.url);
    auto it = truth.find(url);
    if (it == truth.end()) {
      unknown_urls.insert(url);
      continue;
    }
    if (it->second.seen) continue;  // a repeated url: the first row wins
    it->second.seen = true;
    predicted.push_back(std::to_string(row.cluster));
    groups.push_back(it->second.group);
    sites.push_back(SiteOfUrl(url));
    if (any_kind) kinds.push_back(it->second.kind);
  }

  EvaluationResult r = Evaluate(predicted, groups, sites, any_kind ? &kinds : nullptr);
  r.missing_from_prediction = truth.size() - predicted.size();
  if (urls_not_in_truth != nullptr) *urls_not_in_truth = unknown_urls.size();
  return r;
}

}  // namespace neardup
