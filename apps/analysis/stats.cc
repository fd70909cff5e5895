// Copyright neardup authors. Licensed under Apache-2.0.
//
// Power-law fits, the similarity graph's degree distribution and Henzinger's
// B-/C-similarity tables (apps/analysis/analysis.h).
#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>

#include "analysis/analysis.h"

namespace neardup {
namespace {

// Hurwitz zeta zeta(s, q) = sum_{k>=0} (q + k)^-s for s > 1, q > 0: a direct
// sum of the first kTerms terms plus the Euler-Maclaurin tail (three
// correction terms), accurate to far better than 1e-9 for s in (1, 10].
double HurwitzZeta(double s, double q) {
  constexpr int kTerms = 32;
  double sum = 0;
  for (int k = 0; k < kTerms; ++k) sum += std::pow(q + k, -s);
  const double a = q + kTerms;
  sum += std::pow(a, 1 - s) / (s - 1);
  sum += 0.5 * std::pow(a, -s);
  sum += s * std::pow(a, -s - 1) / 12.0;                          // B2 / 2!
  sum -= s * (s + 1) * (s + 2) * std::pow(a, -s - 3) / 720.0;     // B4 / 4!
  return sum;
}

}  // namespace

LogLogFit FitLogLog(const std::vector<std::pair<double, double>>& points) {
  LogLogFit fit;
  double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
  uint64_t n = 0;
  for (const auto& [x, y] : points) {
    if (!(x > 0) || !(y > 0) || !std::isfinite(x) || !std::isfinite(y)) continue;
    const double lx = std::log(x), ly = std::log(y);
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
    syy += ly * ly;
    ++n;
  }
  fit.points = n;
  if (n < 2) return fit;
  const double nn = static_cast<double>(n);
  const double vx = sxx - sx * sx / nn;
  if (!(vx > 1e-300)) return fit;  // all x equal: no slope
  fit.slope = (sxy - sx * sy / nn) / vx;
  fit.intercept = (sy - fit.slope * sx) / nn;
  const double vy = syy - sy * sy / nn;
  const double explained = fit.slope * (sxy - sx * sy / nn);
  fit.r_squared = vy > 1e-300 ? std::clamp(explained / vy, 0.0, 1.0) : 1.0;
  return fit;
}

std::optional<double> DiscretePowerLawMle(const std::map<uint64_t, uint64_t>& histogram,
                                          uint64_t x_min) {
  if (x_min == 0) x_min = 1;
  double n = 0, sum_log = 0;
  bool above_min = false;
  for (const auto& [x, count] : histogram) {
    if (x < x_min || count == 0) continue;
    n += static_cast<double>(count);
    sum_log += static_cast<double>(count) * std::log(static_cast<double>(x));
    if (x > x_min) above_min = true;
  }
  if (n < 2 || !above_min) return std::nullopt;
  const double q = static_cast<double>(x_min);
  // log-likelihood: -n ln zeta(alpha, x_min) - alpha sum ln x; concave in
  // alpha (an exponential family), so a golden-section search finds the max.
  auto log_likelihood = [&](double alpha) { return -n * std::log(HurwitzZeta(alpha, q)) - alpha * sum_log; };
  double lo = 1.0 + 1e-6, hi = 10.0;
  const double phi = (std::sqrt(5.0) - 1) / 2;
  double a = hi - phi * (hi - lo), b = lo + phi * (hi - lo);
  double fa = log_likelihood(a), fb = log_likelihood(b);
  for (int i = 0; i < 200 && hi - lo > 1e-9; ++i) {
    if (fa < fb) {
      lo = a;
      a = b;
      fa = fb;
      b = lo + phi * (hi - lo);
      fb = log_likelihood(b);
    } else {
      hi = b;
      b = a;
      fb = fa;
      a = hi - phi * (hi - lo);
      fa = log_likelihood(a);
    }
  }
  return (lo + hi) / 2;
}

DegreeStats ComputeDegreeStats(const std::vector<PairRow>& pairs) {
  DegreeStats stats;
  std::unordered_map<std::string, uint64_t> ids;
  auto id_of = [&ids](const std::string& url) {
    return ids.emplace(url, ids.size()).first->second;
  };
  std::set<std::pair<uint64_t, uint64_t>> edges;
  for (const auto& p : pairs) {
    if (p.url_a == p.url_b) continue;  // a page is not its own neighbour
    const uint64_t a = id_of(p.url_a), b = id_of(p.url_b);
    edges.insert({std::min(a, b), std::max(a, b)});
  }
  std::vector<uint64_t> degree(ids.size(), 0);
  for (const auto& [a, b] : edges) {
    ++degree[a];
    ++degree[b];
  }
  stats.edges = edges.size();
  for (uint64_t d : degree) {
    if (d == 0) continue;
    ++stats.degree_histogram[d];
    ++stats.pages_with_edges;
  }
  std::vector<std::pair<double, double>> points;
  for (const auto& [d, n] : stats.degree_histogram) {
    points.push_back({static_cast<double>(d), static_cast<double>(n)});
  }
  stats.least_squares = FitLogLog(points);
  return stats;
}

SimilarityTables ComputeSimilarityTables(const std::vector<PairRow>& pairs, uint64_t c_bins) {
  SimilarityTables t;
  std::map<double, SimilarityRow> by_b;
  double c_min = 0, c_max = 0;
  bool any_both = false;
  for (const auto& p : pairs) {
    if (p.b_similarity) ++t.b_distribution[*p.b_similarity];
    if (p.c_similarity) ++t.c_distribution[*p.c_similarity];
    if (!p.b_similarity || !p.c_similarity) continue;
    SimilarityRow& row = by_b[*p.b_similarity];
    ++row.pairs;
    row.average_other += *p.c_similarity;  // a sum until divided below
    ++row.other_distribution[*p.c_similarity];
    c_min = any_both ? std::min(c_min, *p.c_similarity) : *p.c_similarity;
    c_max = any_both ? std::max(c_max, *p.c_similarity) : *p.c_similarity;
    any_both = true;
  }
  for (auto& [b, row] : by_b) {
    char label[32];
    std::snprintf(label, sizeof label, "%g", b);
    row.label = label;
    row.average_other /= static_cast<double>(row.pairs);
    t.by_b.push_back(std::move(row));
  }
  if (!any_both) return t;
  // C ranges: c_bins ranges of equal integer width over [c_min, c_max].
  if (c_bins == 0) c_bins = 1;
  const double lo = std::floor(c_min), hi = std::floor(c_max);
  const double width = std::max(1.0, std::ceil((hi - lo + 1) / static_cast<double>(c_bins)));
  std::map<int64_t, SimilarityRow> by_c;
  for (const auto& p : pairs) {
    if (!p.b_similarity || !p.c_similarity) continue;
    const int64_t bin = static_cast<int64_t>((std::floor(*p.c_similarity) - lo) / width);
    SimilarityRow& row = by_c[bin];
    ++row.pairs;
    row.average_other += *p.b_similarity;
    ++row.other_distribution[*p.b_similarity];
  }
  for (auto& [bin, row] : by_c) {
    const double first = lo + static_cast<double>(bin) * width;
    const double last = first + width - 1;
    char label[64];
    if (last > first) {
      std::snprintf(label, sizeof label, "%g-%g", first, last);
    } else {
      std::snprintf(label, sizeof label, "%g", first);
    }
    row.label = label;
    row.average_other /= static_cast<double>(row.pairs);
    t.by_c.push_back(std::move(row));
  }
  return t;
}

}  // namespace neardup
