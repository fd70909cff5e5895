// Copyright neardup authors. Licensed under Apache-2.0.
//
// Multidimensional length partitioning after Zhu, Potapova, Alabduljalil,
// Liu and Yang, "Clustering and Load Balancing Optimization for Redundant
// Content Removal" (WWW 2012), §4.1-4.3, and the study behind
// `neardup partition-plan` (their §6.1, Figures 4 and 5, and the recall
// lost by the interval enlarging factor ρ of §4.2).
//
// The scheme, in the paper's names:
//  - The dictionary is split into N disjoint subsets by a hash of the term
//    (TermDimension: its own seed, independent of every other hash of the
//    project), so a page is split into N subdocuments A_1 .. A_N.
//  - L(A_i) is the length of subdocument i: as in the paper, "the summation
//    of frequencies of all words appearing in this subdocument", i.e. terms
//    are counted with repetition, not distinct terms (LengthVector).
//  - Each dimension is sliced into fine intervals with left bounds p_1 <
//    p_2 < ... and p_i / p_{i+1} < τ (the SpotSigs bound), a fixed sequence
//    that depends on τ only (FineIntervals): any process computes a page's
//    fine interval without global knowledge.
//  - Fine intervals are merged into S coarse intervals of about M/S pages
//    each (M = pages mapped), and partitions are products of coarse
//    intervals, one per dimension. Where the paper merges every dimension by
//    its own marginal, the dimensions of real pages are strongly correlated
//    (every L(A_i) is about L(A)/N), so a global grid leaves most of its
//    cells empty. Here dimension i is merged by the distribution of pages
//    inside each coarse range of the dimensions before it (a k-d split by
//    the same 1D rule): every partition is still a product of intervals, a
//    box, and each holds about M/P pages. With N = 1 it is the paper's 1D
//    mapping exactly. The counts travel as histograms that can be summed
//    (PartitionPlanBuilder: one round per dimension, so ranks of an MPI job
//    all-reduce each round's counts and build the same plan).
//  - Partitions are mapped to machines (the paper's "we can evenly map
//    partitions to machines"): largest first onto the least loaded machine.
//  - A page with length vector L is hosted in the one partition whose box
//    holds L, and compared in every partition whose box meets the bounding
//    space of the paper's Expression (1), (L_i·τ/ρ, L_i·ρ/τ) in every
//    dimension i; here the closed box [L_i·τ/ρ, L_i·ρ/τ], so pages exactly
//    on the bound are kept.
//
// Why that finds duplicates (§4.2): if Sim(A,B) ≥ τ for the Jaccard
// similarity of the pages' k-gram shingle sets, and every page satisfies
// (1-ε) ≤ |A^k| / L(A) ≤ (1+ε) and |L(A) / (N·L(A_i)) - 1| ≤ δ, then with
// ρ ≥ (1+δ)(1+ε) / ((1-δ)(1-ε)) every dimension satisfies
// L(B_i) / L(A_i) ∈ [τ/ρ, ρ/τ], so B's host partition is among A's compare
// partitions. For unigram sets of distinct terms (k = 1, ε = 0) the bound is
// exact; the tests check it on such pages.
//
// Thread safety: a built PartitionPlan is immutable and safe to share;
// PartitionPlanBuilder is not thread-safe. Nothing here does process I/O
// except RunPartitionStudy and WritePartitionStudyJson, which go through
// the given Env.
#ifndef NEARDUP_PARTITION_H_
#define NEARDUP_PARTITION_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "neardup/env.h"
#include "neardup/source.h"
#include "neardup/status.h"

namespace neardup {

// ---------------------------------------------------------------------------
// Length vectors.
// ---------------------------------------------------------------------------

// The seed of the dictionary split (the paper's N disjoint subsets). Part of
// the plan's contract: every process must use the same one. Never change it
// without changing kPartitionSchemeName.
inline constexpr uint64_t kTermDimensionSeed = 0x7a68755f6c656e73ULL;  // "zhu_lens"
// Names the length and slicing rules below; an MPI job or a saved plan can
// check it.
inline constexpr const char* kPartitionSchemeName = "zhu-lengths-v1";

// The dimension (subset of the dictionary), in [0, dims), of a term given by
// its 64-bit hash (TokenizedDocument::term_hashes). REQUIRES: dims ≥ 1.
uint32_t TermDimension(uint64_t term_hash, uint32_t dims);

// The page's N-dimensional length vector (L(A_1), ..., L(A_N)), N = dims:
// L(A_i) counts the page's terms whose dimension is i, with repetition (the
// paper's sum of frequencies). Lengths saturate at UINT32_MAX.
// REQUIRES: dims ≥ 1.
std::vector<uint32_t> LengthVector(std::span<const uint64_t> term_hashes, uint32_t dims);

// ---------------------------------------------------------------------------
// Fine intervals (§4.3).
// ---------------------------------------------------------------------------

// The fine-grain slicing of one dimension for threshold τ: interval 0 is
// [0, 1) (empty subdocuments), interval j ≥ 1 is [p_j, p_{j+1}) with p_1 = 1
// and p_{j+1} the smallest integer with p_j / p_{j+1} < τ, i.e.
// floor(p_j / τ) + 1. For τ = 0.8 the intervals from 1 on are [1,2), [2,3),
// [3,4), [4,6), [6,8), [8,11), ... as in the paper's example. The last
// interval ends at 2^32, so every uint32 length has an index. A fixed
// sequence of τ alone: about 220 intervals for τ = 0.9.
class FineIntervals {
 public:
  // REQUIRES: 0 < tau < 1 (checked).
  explicit FineIntervals(double tau);

  // The index j of the interval holding `length`. O(log count()).
  uint32_t Index(uint32_t length) const;
  // Number of intervals.
  uint32_t count() const { return static_cast<uint32_t>(lower_.size()); }
  // Left bound of interval j (lower(0) = 0); lower(count()) = 2^32, the end.
  // REQUIRES: j ≤ count().
  uint64_t lower(uint32_t j) const { return j < lower_.size() ? lower_[j] : (uint64_t{1} << 32); }
  double tau() const { return tau_; }

 private:
  double tau_;
  std::vector<uint64_t> lower_;
};

// Index of `length` among the fine intervals of τ (builds the table: keep a
// FineIntervals for repeated calls). REQUIRES: 0 < tau < 1.
uint32_t FineIntervalIndex(uint32_t length, double tau);

// The paper's merge of consecutive fine intervals into at most S coarse
// intervals of about M/S pages each (M = the sum of `counts`): cut j
// (j = 1 .. S-1) goes where the running count is closest to j·M/S (ties: the
// earlier count), cuts that would leave an interval without pages are
// dropped, and within a run of empty fine intervals the cut goes to the
// middle. Returns the first fine index of each coarse interval, ascending,
// starting with 0; interval c is [cuts[c], cuts[c+1]) and the last ends at
// counts.size(). All counts zero: one interval. For the paper's example
// counts 2,3,4,5,2,1 and S = 4 the intervals hold 5, 4, 5, 3 pages; for
// 2,3,4,10,2,1 they hold 5, 4, 10, 3. REQUIRES: S ≥ 1, counts not empty.
std::vector<uint32_t> MergeFineIntervals(std::span<const uint64_t> counts, uint32_t S);

// ---------------------------------------------------------------------------
// The plan.
// ---------------------------------------------------------------------------

struct PartitionOptions {
  // τ: the similarity threshold of the comparisons the plan serves; the
  // fine intervals and the bounding box follow from it. Default: the paper's
  // example value (Figure 2).
  double tau = 0.9;
  // N: dimensions (dictionary subsets).
  uint32_t dims = 3;
  // Machines the partitions are mapped to (the paper gives them no symbol;
  // its M counts pages).
  uint32_t machines = 16;
  // Partitions wanted per machine: P = machines · partitions_per_machine
  // boxes are aimed at (fewer when the pages cannot be split that finely).
  // P is factored into S_1 ≥ S_2 ≥ ... ≥ S_N coarse intervals per dimension
  // (prime factors, largest first, each onto the dimension with the fewest
  // intervals so far). 1 is the paper's "each machine hosts one partition".
  uint32_t partitions_per_machine = 1;

  // InvalidArgument unless 0 < tau < 1, 1 ≤ dims ≤ 8, 1 ≤ machines ≤ 65536,
  // 1 ≤ partitions_per_machine and machines · partitions_per_machine ≤ 2^20.
  Status Validate() const;
};

// The S_i of each dimension for `options` (see partitions_per_machine).
// REQUIRES: options.Validate().ok().
std::vector<uint32_t> IntervalsPerDimension(const PartitionOptions& options);

// A partition's range in one dimension: lengths in [lo, hi); hi = 2^32 is
// unbounded.
struct LengthRange {
  uint64_t lo = 0;
  uint64_t hi = 0;
  bool operator==(const LengthRange&) const = default;
};

class PartitionPlanBuilder;

// An immutable plan: boxes (products of coarse intervals) numbered 0 ..
// partitions()-1 in depth-first order of the split, and their machines.
// Copyable; two plans built from the same counts and options compare equal.
class PartitionPlan {
 public:
  PartitionPlan() = default;

  uint32_t dims() const { return dims_; }
  uint32_t machines() const { return machines_; }
  uint32_t partitions() const { return static_cast<uint32_t>(partition_pages_.size()); }
  double tau() const { return tau_; }

  // The partition whose box holds `lengths`: where the page lives. Every
  // length vector has exactly one. REQUIRES: lengths.size() == dims().
  uint32_t HostPartition(std::span<const uint32_t> lengths) const;

  // Every partition whose box meets [L_i·τ/ρ, L_i·ρ/τ] in every dimension
  // (the paper's Expression (1), closed), ascending. Contains
  // HostPartition(lengths). REQUIRES: lengths.size() == dims(), rho ≥ 1.
  std::vector<uint32_t> ComparePartitions(std::span<const uint32_t> lengths, double rho) const;

  // The machines of ComparePartitions(lengths, rho), ascending, distinct.
  std::vector<uint32_t> CompareMachines(std::span<const uint32_t> lengths, double rho) const;

  // The machine, in [0, machines()), hosting `partition`.
  uint32_t MachineOf(uint32_t partition) const { return machine_of_[partition]; }

  // The box of `partition`: one range per dimension.
  std::vector<LengthRange> Box(uint32_t partition) const;

  // Pages counted in `partition` when the plan was built.
  uint64_t PagesCounted(uint32_t partition) const { return partition_pages_[partition]; }

  bool operator==(const PartitionPlan&) const = default;

 private:
  friend class PartitionPlanBuilder;
  // One split of one dimension inside the box of its parent. Interval c of
  // node n covers fine indices [cuts[c], cuts[c+1]) (the last to the end);
  // child[c] is a node index when the node's dimension is not the last,
  // else a partition id.
  struct Node {
    uint32_t dim = 0;
    std::vector<uint32_t> cuts;
    std::vector<uint32_t> child;
    bool operator==(const Node&) const = default;
  };
  void Collect(uint32_t node, const std::vector<uint64_t>& lo, const std::vector<uint64_t>& hi,
               std::vector<uint32_t>* out) const;

  uint32_t dims_ = 0;
  uint32_t machines_ = 0;
  double tau_ = 0;
  std::vector<uint64_t> fine_lower_;  // FineIntervals(τ).lower(0 .. count())
  std::vector<Node> nodes_;           // nodes_[0] is the root (dimension 0)
  std::vector<uint64_t> partition_pages_;
  std::vector<uint32_t> machine_of_;
};

// Builds a plan from counts that can be summed across processes: one round
// per dimension. In round r every process counts its pages into an array of
// round_size() zeros with Count(), the arrays are summed element-wise
// (MPI_Allreduce with MPI_SUM over uint64), and every process passes the sum
// to AddRound(). After dims rounds, Finish() gives the same plan everywhere:
// the result depends only on the summed counts and the options.
//
// Round r's array holds, for each box of the split of dimensions 0..r-1
// (one box in round 0), the fine-interval histogram of dimension r of the
// pages in that box: round_size() = boxes · FineIntervals(τ).count(), at
// most machines · partitions_per_machine · ~220 for τ = 0.9.
//
//   PartitionPlanBuilder b(options);
//   while (!b.done()) {
//     std::vector<uint64_t> counts(b.round_size());
//     for (const auto& L : my_pages) b.Count(L, counts);
//     MPI_Allreduce(MPI_IN_PLACE, counts.data(), counts.size(), MPI_UINT64_T, MPI_SUM, comm);
//     b.AddRound(counts);
//   }
//   PartitionPlan plan = std::move(b).Finish();
class PartitionPlanBuilder {
 public:
  // REQUIRES: options.Validate().ok() (checked).
  explicit PartitionPlanBuilder(const PartitionOptions& options);

  bool done() const { return round_ == options_.dims; }
  uint32_t round() const { return round_; }
  size_t round_size() const;

  // Adds one page to `counts` (size round_size()). REQUIRES: !done(),
  // lengths.size() == dims, counts.size() == round_size().
  void Count(std::span<const uint32_t> lengths, std::span<uint64_t> counts) const;

  // Ends the round with the counts summed over every page of every process.
  // REQUIRES: !done(), counts.size() == round_size().
  void AddRound(std::span<const uint64_t> counts);

  // REQUIRES: done(). The builder is spent.
  PartitionPlan Finish() &&;

 private:
  PartitionOptions options_;
  FineIntervals fine_;
  std::vector<uint32_t> intervals_;  // S_i per dimension
  uint32_t round_ = 0;
  PartitionPlan plan_;
  // The boxes open after the last round: (node index, interval) of their
  // last split; empty before round 0 (one box: the whole space).
  std::vector<std::pair<uint32_t, uint32_t>> boxes_;
  std::vector<uint64_t> box_pages_;
};

// The builder run in one process over every length vector.
// REQUIRES: options.Validate().ok(), every vector of size options.dims.
PartitionPlan BuildPartitionPlan(const std::vector<std::vector<uint32_t>>& vectors,
                                 const PartitionOptions& options);

// ---------------------------------------------------------------------------
// Evaluation (§6.1 and the recall of §4.2).
// ---------------------------------------------------------------------------

// A plan's load and traffic over a set of pages, each hosted by
// HostPartition and sent for comparison to the other machines of
// CompareMachines(L, ρ).
struct PlanLoad {
  uint64_t pages = 0;
  // Figure 4's load imbalance factor: the most pages hosted by one machine
  // over the mean pages hosted per machine (pages / machines), ≥ 1. As in
  // the paper, "pages hosted" counts only the pages living on the machine,
  // not those received for comparison (those are in comparison_imbalance).
  uint64_t pages_hosted_max = 0;
  double pages_hosted_mean = 0;
  double imbalance = 0;
  // The same with each machine's hosted plus received pages (its
  // comparison work in a many-to-all pass).
  uint64_t pages_handled_max = 0;
  double comparison_imbalance = 0;
  // Figure 5: transfers = Σ over pages of the machines, other than its host,
  // that it is sent to; against sending every page to every other machine,
  // pages · (machines − 1). transfers_saved = 1 − transfers / that, in
  // [0, 1] (0 with one machine).
  uint64_t transfers = 0;
  uint64_t transfers_all = 0;
  double transfers_saved = 0;
};

// REQUIRES: every vector of size plan.dims(), rho ≥ 1.
PlanLoad EvaluatePlanLoad(const PartitionPlan& plan, const std::vector<std::vector<uint32_t>>& vectors,
                          double rho);

// Pairs (indices into `vectors`, first < second) of the exact reference.
// Returns how many of them no partition holds both of: a pair (a, b) is
// found when HostPartition(b) is among ComparePartitions(a, ρ) or
// HostPartition(a) among ComparePartitions(b, ρ) (the page sent is compared
// with the pages hosted where it goes). REQUIRES: rho ≥ 1.
uint64_t CountLostPairs(const PartitionPlan& plan, const std::vector<std::vector<uint32_t>>& vectors,
                        const std::vector<std::pair<uint32_t, uint32_t>>& pairs, double rho);

// The k-gram shingle set of a term sequence as the paper computes it (§4.2,
// after Broder et al.): k − 1 dummy words appended, so there are as many
// shingles as terms; each shingle hashed to 64 bits. Sorted, distinct.
// REQUIRES: k ≥ 1.
std::vector<uint64_t> ShingleSet(std::span<const uint64_t> term_hashes, uint32_t k);

// Every pair (i < j) of `sets` (sorted, distinct) whose Jaccard similarity
// |A∩B| / |A∪B| is ≥ tau, computed exactly (all pairs, skipping only pairs
// whose sizes alone bound the similarity below τ). Empty sets pair with
// nothing. Sorted.
std::vector<std::pair<uint32_t, uint32_t>> ExactSimilarPairs(const std::vector<std::vector<uint64_t>>& sets,
                                                             double tau);

// ---------------------------------------------------------------------------
// The study behind `neardup partition-plan`.
// ---------------------------------------------------------------------------

struct PartitionStudyOptions {
  // The crawl: files, folders or "-", read as `neardup dedup` reads them.
  std::vector<std::string> inputs;
  SourceOptions source;
  // N values and machine counts of the grid (Figures 4 and 5).
  std::vector<uint32_t> dims = {1, 2, 3};
  std::vector<uint32_t> machines = {2, 4, 8, 16, 32, 64};
  // τ (see PartitionOptions::tau).
  double tau = 0.9;
  // ρ for the transfers: the paper tested 1 to 1.3 (§4.2); the default is
  // its largest, which loses the fewest pairs.
  double rho = 1.3;
  // ρ values of the recall table (§4.2's 1 to 1.3).
  std::vector<double> recall_rhos = {1.0, 1.1, 1.2, 1.3};
  uint32_t partitions_per_machine = 1;
  // The exact reference runs on at most this many pages: those with the
  // smallest SplitMix64(sample_seed + page index), so the same inputs in the
  // same order give the same sample. 0: no recall table.
  uint64_t sample = 3000;
  uint64_t sample_seed = 1234;
  // k of the k-gram shingles of the reference similarity.
  uint32_t shingle_k = 5;

  // InvalidArgument with a readable message for empty or out-of-range
  // lists (dims in 1..8, machines in 1..65536), τ outside (0,1), ρ < 1,
  // shingle_k outside 1..64.
  Status Validate() const;
};

// ρ and the pairs it loses.
struct RecallLost {
  double rho = 0;
  uint64_t lost_pairs = 0;
  double lost = 0;  // lost_pairs / reference pairs (0 when there are none)
};

// One cell of the grid: a plan for (dims, machines) built from every page.
struct PartitionCell {
  uint32_t dims = 0;
  uint32_t machines = 0;
  uint32_t partitions = 0;
  PlanLoad load;                     // with PartitionStudyOptions::rho
  std::vector<RecallLost> recall;    // one per recall_rhos, on the sample
};

struct PartitionStudy {
  uint64_t documents = 0;            // pages read (empty pages included)
  uint64_t empty_documents = 0;      // pages without a term
  ReadStats read;
  uint64_t sampled = 0;              // pages in the reference sample
  uint64_t reference_pairs = 0;      // pairs with Sim ≥ τ in the sample
  double seconds = 0;
  PartitionStudyOptions options;     // as run (inputs included)
  std::vector<PartitionCell> cells;  // dims-major, in the options' order
};

// Reads the inputs, computes every page's length vector for each N, builds
// each plan, measures its load and transfers over every page and the recall
// lost on the sample. `env` may be nullptr (the default Env); warnings go to
// `observer` (may be nullptr). NotFound when no page could be read.
Result<PartitionStudy> RunPartitionStudy(const PartitionStudyOptions& options, Env* env,
                                         ReadObserver* observer);

// The study as JSON: a list with one object per cell,
//   {"dims": D, "machines": M, "imbalance": max/mean pages hosted,
//    "transfers_saved": share, "partitions", "pages", "pages_hosted_max",
//    "pages_hosted_mean", "comparison_imbalance", "transfers",
//    "transfers_all", "rho", "tau", "recall_lost": [{"rho", "lost_pairs",
//    "lost", "reference_pairs", "sampled"}]}.
std::string PartitionStudyJson(const PartitionStudy& study);

// Writes PartitionStudyJson(study) to `path` through `env` (nullptr: the
// default Env).
Status WritePartitionStudyJson(const PartitionStudy& study, const std::string& path, Env* env);

}  // namespace neardup

#endif  // NEARDUP_PARTITION_H_
