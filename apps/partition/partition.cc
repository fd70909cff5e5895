// Copyright neardup authors. Licensed under Apache-2.0.
//
// Length vectors, fine intervals, the coarse merge, the plan and its load
// (Zhu, Potapova, Alabduljalil, Liu and Yang, "Clustering and Load Balancing
// Optimization for Redundant Content Removal", §4.1-4.3 and §6.1). The
// contracts are in partition.h.
#include "partition/partition.h"

#include "neardup/dedup_job.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

#include "base/hash.h"

namespace neardup {

namespace {

constexpr uint64_t kLengthEnd = uint64_t{1} << 32;

// The lengths of Expression (1)'s closed bounding space [L·τ/ρ, L·ρ/τ] as
// integers, widened by a relative 1e-12 so that rounding of the products
// never drops a length exactly on the bound (a superset is always safe).
std::pair<uint64_t, uint64_t> BoundingLengths(uint32_t length, double tau, double rho) {
  const double l = static_cast<double>(length);
  const double lo = std::ceil(l * tau / rho * (1 - 1e-12));
  const double hi = std::floor(l * rho / tau * (1 + 1e-12));
  return {static_cast<uint64_t>(std::max(0.0, lo)),
          static_cast<uint64_t>(std::min(hi, static_cast<double>(kLengthEnd - 1)))};
}

// Index j with lower[j] ≤ length < lower[j+1] (lower[0] = 0).
uint32_t FineIndexIn(const std::vector<uint64_t>& lower, uint32_t length) {
  auto it = std::upper_bound(lower.begin(), lower.end(), static_cast<uint64_t>(length));
  return static_cast<uint32_t>(it - lower.begin()) - 1;
}

// Coarse interval c of `cuts` holding fine index f.
uint32_t CoarseIndex(const std::vector<uint32_t>& cuts, uint32_t f) {
  return static_cast<uint32_t>(std::upper_bound(cuts.begin(), cuts.end(), f) - cuts.begin()) - 1;
}

}  // namespace

uint32_t TermDimension(uint64_t term_hash, uint32_t dims) {
  NEARDUP_CHECK(dims >= 1);
  return LengthDimension(term_hash, dims);  // the split every process shares (dedup_job.h)
}

std::vector<uint32_t> LengthVector(std::span<const uint64_t> term_hashes, uint32_t dims) {
  NEARDUP_CHECK(dims >= 1);
  std::vector<uint32_t> lengths(dims, 0);
  for (uint64_t t : term_hashes) {
    uint32_t& l = lengths[TermDimension(t, dims)];
    if (l != std::numeric_limits<uint32_t>::max()) ++l;
  }
  return lengths;
}

FineIntervals::FineIntervals(double tau) : tau_(tau) {
  NEARDUP_CHECK(tau > 0 && tau < 1);
  lower_.push_back(0);
  uint64_t p = 1;
  while (p < kLengthEnd) {
    lower_.push_back(p);
    // The smallest integer q with p / q < τ, i.e. p < τ·q.
    uint64_t q = static_cast<uint64_t>(std::floor(static_cast<double>(p) / tau)) + 1;
    while (!(static_cast<double>(p) < tau * static_cast<double>(q))) ++q;
    while (q - 1 > p && static_cast<double>(p) < tau * static_cast<double>(q - 1)) --q;
    p = q;
  }
}

uint32_t FineIntervals::Index(uint32_t length) const { return FineIndexIn(lower_, length); }

uint32_t FineIntervalIndex(uint32_t length, double tau) { return FineIntervals(tau).Index(length); }

std::vector<uint32_t> MergeFineIntervals(std::span<const uint64_t> counts, uint32_t S) {
  NEARDUP_CHECK(S >= 1 && !counts.empty());
  const size_t k = counts.size();
  // cum[q] = pages in fine intervals [0, q); a cut at q starts a coarse
  // interval at fine index q (1 ≤ q ≤ k − 1).
  std::vector<uint64_t> cum(k + 1, 0);
  for (size_t i = 0; i < k; ++i) cum[i + 1] = cum[i] + counts[i];
  const uint64_t total = cum[k];
  std::vector<uint32_t> cuts = {0};
  if (total == 0) return cuts;
  uint64_t last = 0;  // pages before the last cut
  for (uint32_t j = 1; j < S; ++j) {
    // Target j·M/S, compared exactly as S·cum against j·M.
    const unsigned __int128 target = static_cast<unsigned __int128>(total) * j;
    size_t best = 0;
    unsigned __int128 best_err = 0;
    for (size_t q = 1; q < k; ++q) {
      const unsigned __int128 v = static_cast<unsigned __int128>(cum[q]) * S;
      const unsigned __int128 err = v > target ? v - target : target - v;
      if (best == 0 || err < best_err) {
        best = q;
        best_err = err;
      }
    }
    if (best == 0) break;
    const uint64_t before = cum[best];
    if (before <= last || before >= total) continue;  // an interval without pages
    // The run of cut positions with the same running count (empty fine
    // intervals between two occupied ones): cut in its middle.
    size_t first = best, end = best;
    while (first > 1 && cum[first - 1] == before) --first;
    while (end + 1 < k && cum[end + 1] == before) ++end;
    cuts.push_back(static_cast<uint32_t>((first + end) / 2));
    last = before;
  }
  return cuts;
}

Status PartitionOptions::Validate() const {
  if (!(tau > 0 && tau < 1)) return Status::InvalidArgument("tau (τ) must be in (0, 1)");
  if (dims < 1 || dims > 8) return Status::InvalidArgument("dims (N) must be in 1..8");
  if (machines < 1 || machines > 65536) return Status::InvalidArgument("machines must be in 1..65536");
  if (partitions_per_machine < 1) return Status::InvalidArgument("partitions_per_machine must be at least 1");
  if (static_cast<uint64_t>(machines) * partitions_per_machine > (uint64_t{1} << 20)) {
    return Status::InvalidArgument("machines × partitions_per_machine must be at most 2^20");
  }
  return Status::OK();
}

std::vector<uint32_t> IntervalsPerDimension(const PartitionOptions& options) {
  NEARDUP_CHECK(options.Validate().ok());
  uint32_t p = options.machines * options.partitions_per_machine;
  std::vector<uint32_t> primes;
  for (uint32_t f = 2; static_cast<uint64_t>(f) * f <= p; ++f) {
    while (p % f == 0) {
      primes.push_back(f);
      p /= f;
    }
  }
  if (p > 1) primes.push_back(p);
  std::sort(primes.rbegin(), primes.rend());
  std::vector<uint32_t> s(options.dims, 1);
  for (uint32_t f : primes) *std::min_element(s.begin(), s.end()) *= f;
  std::sort(s.rbegin(), s.rend());
  return s;
}

// ---- PartitionPlan ----

uint32_t PartitionPlan::HostPartition(std::span<const uint32_t> lengths) const {
  NEARDUP_CHECK(lengths.size() == dims_);
  uint32_t n = 0;
  for (;;) {
    const Node& node = nodes_[n];
    const uint32_t c = CoarseIndex(node.cuts, FineIndexIn(fine_lower_, lengths[node.dim]));
    if (node.dim + 1 == dims_) return node.child[c];
    n = node.child[c];
  }
}

void PartitionPlan::Collect(uint32_t n, const std::vector<uint64_t>& lo, const std::vector<uint64_t>& hi,
                            std::vector<uint32_t>* out) const {
  const Node& node = nodes_[n];
  const size_t fine_count = fine_lower_.size() - 1;  // the last entry is the end, 2^32
  for (size_t c = 0; c < node.cuts.size(); ++c) {
    const uint64_t range_lo = fine_lower_[node.cuts[c]];
    const uint64_t range_hi = fine_lower_[c + 1 < node.cuts.size() ? node.cuts[c + 1] : fine_count];
    if (range_lo > hi[node.dim] || range_hi <= lo[node.dim]) continue;
    if (node.dim + 1 == dims_) {
      out->push_back(node.child[c]);
    } else {
      Collect(node.child[c], lo, hi, out);
    }
  }
}

std::vector<uint32_t> PartitionPlan::ComparePartitions(std::span<const uint32_t> lengths, double rho) const {
  NEARDUP_CHECK(lengths.size() == dims_ && rho >= 1);
  std::vector<uint64_t> lo(dims_), hi(dims_);
  for (uint32_t i = 0; i < dims_; ++i) std::tie(lo[i], hi[i]) = BoundingLengths(lengths[i], tau_, rho);
  std::vector<uint32_t> out;
  Collect(0, lo, hi, &out);
  std::sort(out.begin(), out.end());  // depth-first order already; kept explicit
  return out;
}

std::vector<uint32_t> PartitionPlan::CompareMachines(std::span<const uint32_t> lengths, double rho) const {
  std::vector<uint32_t> out;
  for (uint32_t p : ComparePartitions(lengths, rho)) out.push_back(machine_of_[p]);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<LengthRange> PartitionPlan::Box(uint32_t partition) const {
  NEARDUP_CHECK(partition < partitions());
  std::vector<LengthRange> box(dims_);
  const size_t fine_count = fine_lower_.size() - 1;
  // Depth-first search for the path to the leaf (plans are small: at most
  // 2^20 partitions, and this is not on a hot path).
  struct Frame {
    uint32_t node;
    size_t c;
  };
  std::vector<Frame> stack = {{0, 0}};
  while (!stack.empty()) {
    Frame& f = stack.back();
    const Node& node = nodes_[f.node];
    if (f.c == node.cuts.size()) {
      stack.pop_back();
      continue;
    }
    const size_t c = f.c++;
    box[node.dim] = {fine_lower_[node.cuts[c]],
                     fine_lower_[c + 1 < node.cuts.size() ? node.cuts[c + 1] : fine_count]};
    if (node.dim + 1 == dims_) {
      if (node.child[c] == partition) return box;
    } else {
      stack.push_back({node.child[c], 0});
    }
  }
  NEARDUP_CHECK(false);
  return box;
}

// ---- PartitionPlanBuilder ----

PartitionPlanBuilder::PartitionPlanBuilder(const PartitionOptions& options)
    : options_(options), fine_(options.tau) {
  NEARDUP_CHECK(options.Validate().ok());
  intervals_ = IntervalsPerDimension(options);
  plan_.dims_ = options.dims;
  plan_.machines_ = options.machines;
  plan_.tau_ = options.tau;
  for (uint32_t j = 0; j <= fine_.count(); ++j) plan_.fine_lower_.push_back(fine_.lower(j));
}

size_t PartitionPlanBuilder::round_size() const {
  return std::max<size_t>(1, boxes_.size()) * fine_.count();
}

void PartitionPlanBuilder::Count(std::span<const uint32_t> lengths, std::span<uint64_t> counts) const {
  NEARDUP_CHECK(!done() && lengths.size() == options_.dims && counts.size() == round_size());
  // Descend the splits of dimensions 0 .. round−1; the children of the
  // last level are box indices while the round is open.
  uint32_t box = 0;
  if (round_ > 0) {
    uint32_t n = 0;
    for (;;) {
      const PartitionPlan::Node& node = plan_.nodes_[n];
      const uint32_t c = CoarseIndex(node.cuts, fine_.Index(lengths[node.dim]));
      if (node.dim + 1 == round_) {
        box = node.child[c];
        break;
      }
      n = node.child[c];
    }
  }
  ++counts[static_cast<size_t>(box) * fine_.count() + fine_.Index(lengths[round_])];
}

void PartitionPlanBuilder::AddRound(std::span<const uint64_t> counts) {
  NEARDUP_CHECK(!done() && counts.size() == round_size());
  const size_t k = fine_.count();
  const size_t boxes = std::max<size_t>(1, boxes_.size());
  std::vector<std::pair<uint32_t, uint32_t>> next_boxes;
  std::vector<uint64_t> next_pages;
  for (size_t b = 0; b < boxes; ++b) {
    std::span<const uint64_t> slice = counts.subspan(b * k, k);
    PartitionPlan::Node node;
    node.dim = round_;
    node.cuts = MergeFineIntervals(slice, intervals_[round_]);
    const uint32_t index = static_cast<uint32_t>(plan_.nodes_.size());
    for (size_t c = 0; c < node.cuts.size(); ++c) {
      const size_t end = c + 1 < node.cuts.size() ? node.cuts[c + 1] : k;
      uint64_t pages = 0;
      for (size_t f = node.cuts[c]; f < end; ++f) pages += slice[f];
      node.child.push_back(static_cast<uint32_t>(next_boxes.size()));
      next_boxes.emplace_back(index, static_cast<uint32_t>(c));
      next_pages.push_back(pages);
    }
    if (round_ > 0) plan_.nodes_[boxes_[b].first].child[boxes_[b].second] = index;
    plan_.nodes_.push_back(std::move(node));
  }
  boxes_ = std::move(next_boxes);
  box_pages_ = std::move(next_pages);
  ++round_;
}

PartitionPlan PartitionPlanBuilder::Finish() && {
  NEARDUP_CHECK(done());
  plan_.partition_pages_ = box_pages_;
  // The paper maps partitions evenly to machines: largest partition first
  // (ties: lower id) onto the machine hosting the fewest pages so far (ties:
  // lower machine), the LPT rule. With no more partitions than machines each
  // partition gets a machine of its own.
  const uint32_t parts = plan_.partitions();
  std::vector<uint32_t> order(parts);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return plan_.partition_pages_[a] > plan_.partition_pages_[b];
  });
  std::vector<uint64_t> load(options_.machines, 0);
  std::vector<uint32_t> hosted(options_.machines, 0);
  plan_.machine_of_.assign(parts, 0);
  for (uint32_t p : order) {
    uint32_t best = 0;
    for (uint32_t m = 1; m < options_.machines; ++m) {
      if (load[m] < load[best] || (load[m] == load[best] && hosted[m] < hosted[best])) best = m;
    }
    plan_.machine_of_[p] = best;
    load[best] += plan_.partition_pages_[p];
    ++hosted[best];
  }
  return std::move(plan_);
}

PartitionPlan BuildPartitionPlan(const std::vector<std::vector<uint32_t>>& vectors,
                                 const PartitionOptions& options) {
  PartitionPlanBuilder builder(options);
  while (!builder.done()) {
    std::vector<uint64_t> counts(builder.round_size(), 0);
    for (const std::vector<uint32_t>& v : vectors) builder.Count(v, counts);
    builder.AddRound(counts);
  }
  return std::move(builder).Finish();
}

// ---- Evaluation ----

PlanLoad EvaluatePlanLoad(const PartitionPlan& plan, const std::vector<std::vector<uint32_t>>& vectors,
                          double rho) {
  PlanLoad load;
  const uint32_t machines = plan.machines();
  std::vector<uint64_t> hosted(machines, 0), handled(machines, 0);
  for (const std::vector<uint32_t>& v : vectors) {
    const uint32_t host = plan.MachineOf(plan.HostPartition(v));
    ++hosted[host];
    for (uint32_t m : plan.CompareMachines(v, rho)) {
      ++handled[m];
      if (m != host) ++load.transfers;
    }
  }
  load.pages = vectors.size();
  load.pages_hosted_max = *std::max_element(hosted.begin(), hosted.end());
  load.pages_handled_max = *std::max_element(handled.begin(), handled.end());
  load.pages_hosted_mean = static_cast<double>(load.pages) / machines;
  load.imbalance = load.pages > 0 ? load.pages_hosted_max / load.pages_hosted_mean : 1.0;
  uint64_t handled_total = 0;
  for (uint64_t h : handled) handled_total += h;
  load.comparison_imbalance =
      handled_total > 0 ? load.pages_handled_max / (static_cast<double>(handled_total) / machines) : 1.0;
  load.transfers_all = load.pages * (machines - 1);
  load.transfers_saved =
      load.transfers_all > 0 ? 1.0 - static_cast<double>(load.transfers) / load.transfers_all : 0.0;
  return load;
}

uint64_t CountLostPairs(const PartitionPlan& plan, const std::vector<std::vector<uint32_t>>& vectors,
                        const std::vector<std::pair<uint32_t, uint32_t>>& pairs, double rho) {
  std::vector<uint32_t> host(vectors.size());
  std::vector<std::vector<uint32_t>> compare(vectors.size());
  std::vector<bool> done(vectors.size(), false);
  auto prepare = [&](uint32_t i) {
    if (done[i]) return;
    host[i] = plan.HostPartition(vectors[i]);
    compare[i] = plan.ComparePartitions(vectors[i], rho);
    done[i] = true;
  };
  uint64_t lost = 0;
  for (const auto& [a, b] : pairs) {
    prepare(a);
    prepare(b);
    const bool found = std::binary_search(compare[a].begin(), compare[a].end(), host[b]) ||
                       std::binary_search(compare[b].begin(), compare[b].end(), host[a]);
    if (!found) ++lost;
  }
  return lost;
}

std::vector<uint64_t> ShingleSet(std::span<const uint64_t> term_hashes, uint32_t k) {
  NEARDUP_CHECK(k >= 1);
  // The k − 1 dummy words appended after the last term.
  constexpr uint64_t kDummyWord = 0x64756d6d79776f72ULL;
  const size_t n = term_hashes.size();
  std::vector<uint64_t> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t h = kTermDimensionSeed;
    for (uint32_t j = 0; j < k; ++j) {
      const uint64_t t = i + j < n ? term_hashes[i + j] : kDummyWord;
      h = Fmix64((h ^ t) * kSplitMix64Gamma + j);
    }
    out.push_back(h);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::pair<uint32_t, uint32_t>> ExactSimilarPairs(const std::vector<std::vector<uint64_t>>& sets,
                                                             double tau) {
  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < sets.size(); ++i) {
    if (!sets[i].empty()) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return sets[a].size() < sets[b].size(); });
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  for (size_t x = 0; x < order.size(); ++x) {
    const std::vector<uint64_t>& a = sets[order[x]];
    for (size_t y = x + 1; y < order.size(); ++y) {
      const std::vector<uint64_t>& b = sets[order[y]];
      // |A∩B| / |A∪B| ≤ |A| / |B| for |A| ≤ |B|: nothing further can reach τ.
      if (static_cast<double>(a.size()) < tau * static_cast<double>(b.size())) break;
      size_t i = 0, j = 0, common = 0;
      while (i < a.size() && j < b.size()) {
        if (a[i] < b[j]) {
          ++i;
        } else if (b[j] < a[i]) {
          ++j;
        } else {
          ++common;
          ++i;
          ++j;
        }
      }
      const double uni = static_cast<double>(a.size() + b.size() - common);
      if (static_cast<double>(common) >= tau * uni) {
        pairs.emplace_back(std::min(order[x], order[y]), std::max(order[x], order[y]));
      }
    }
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

}  // namespace neardup
