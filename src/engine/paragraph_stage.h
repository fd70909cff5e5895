// Copyright neardup authors. Licensed under Apache-2.0.
//
// The `paragraphs` method's comparison step: the m-pass algorithm of
// Pereira, Baeza-Yates and Ziviani ("Where and How Duplicates Occur in the
// Web", §3), under a memory budget.
//
// The collection C of eligible documents (more than 450 characters of text,
// Pereira et al. §4) is split into m subcollections S_0..S_{m-1} of
// consecutive documents, each as large as the budget lets its shingle
// paragraphs be held in a hash table. Pass i loads S_i's paragraphs, then
// searches the paragraphs of every document of C (documents of S_i against
// earlier ones of S_i only), and drops S_i (C <- C - S_i). Pairs found are
// joined by union-find, so clusters grow from pass to pass (the paper's
// Figure 5).
//
// Shared percentage (Definition 5, "related to the number of shingle
// paragraphs of both documents"): the paragraphs of A found in B plus the
// paragraphs of B found in A, over the paragraphs of both, counted with
// repeats: 100 (f(A->B) + f(B->A)) / (|A| + |B|).
//
// Exact clusters (Definition 2, min_shared_percent = 100) need the same
// paragraphs the same number of times. The paper's own test, "the same
// number of shingle paragraphs, each found in the other", has false matches
// (§3): a document whose sentences are e e e d d d e e e d d d has the
// paragraphs E D E D, each of which is found in a document E D F G of four
// paragraphs too. neardup compares the paragraph multisets instead (their
// sorted lists are equal), so that pair is no exact match; its shared
// percentage is (4 + 2) / 8 = 75.
//
// Documents with the same paragraph multiset are grouped first (one hash
// per document); only the first of each group enters the table and the
// searches, and its group joins its cluster in the pass that loads it, as
// the paper's algorithm finds a whole cluster when its first document is
// loaded.
#ifndef NEARDUP_ENGINE_PARAGRAPH_STAGE_H_
#define NEARDUP_ENGINE_PARAGRAPH_STAGE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cluster/union_find.h"
#include "index/megashingle_tables.h"
#include "neardup/engine.h"
#include "neardup/method.h"
#include "neardup/env.h"

namespace neardup {

// Appends one document's record to a paragraph spill buffer: doc (u32),
// count (u32), then the count paragraph hashes (u64), sorted.
void AppendParagraphRecord(uint32_t doc, const std::vector<uint64_t>& sorted_hashes, std::string* out);

// The paragraphs method's rule (Pereira et al.): documents A and B, of
// size_a and size_b shingle paragraphs, where from_a paragraphs of A occur
// in B and from_b of B occur in A (repeats counted) and `common` is the
// multiset intersection, are near duplicates when they share at least
// min_shared_percent of their paragraphs over both (Definition 5:
// 100 (f(A->B) + f(B->A)) / (|A| + |B|)); at 100, only when their paragraph
// multisets are equal (Definition 2's exact clusters).
inline bool ParagraphsSimilar(uint64_t from_a, uint64_t from_b, uint64_t common, uint32_t size_a, uint32_t size_b,
                              uint32_t min_shared_percent) {
  const uint64_t both = uint64_t{size_a} + size_b;
  if (min_shared_percent >= 100) return size_a == size_b && common == size_a;
  return 100 * (from_a + from_b) >= uint64_t{min_shared_percent} * both;
}
// The same rule with its similarity ((f(A->B) + f(B->A)) / (|A| + |B|)) and reason.
PairDecision ParagraphDecide(uint64_t from_a, uint64_t from_b, uint64_t common, uint32_t size_a, uint32_t size_b,
                             uint32_t min_shared_percent);

struct ParagraphStageOptions {
  uint32_t min_shared_percent = 90;   // Definition 5; 100: exact clusters only
  uint64_t table_budget_bytes = 64 << 20;  // hash table and per-pass arrays
  bool collect_pairs = false;          // keep every pair found (pairs.tsv)
};

struct ParagraphStageResult {
  std::vector<ParagraphPass> passes;   // one per subcollection
  uint64_t eligible_documents = 0;     // in C
  uint64_t multiset_groups = 0;        // groups of 2+ documents with equal paragraph multisets
  uint64_t pairs = 0;                  // pairs at or above the percentage (besides groups)
  uint64_t comparisons = 0;            // document pairs sharing a paragraph that were scored
  uint64_t table_peak_bytes = 0;       // largest table held
  std::vector<NearPair> pairs_found;   // collect_pairs: content_agreeing = f(A->B)+f(B->A), content_positions = |A|+|B|
  std::vector<float> best_share;       // per document: best shared fraction of a pair it is in (0 if none)
};

// `paragraph_count[d]` is the number of paragraphs of document d, 0 when d
// is not eligible; `multiset_key[d]` the hash of its sorted paragraphs.
// Reads `spill_path` (records of eligible documents in increasing doc
// order) once per pass. Joins pairs in `uf`.
Result<ParagraphStageResult> RunParagraphStage(Env* env, const std::string& spill_path,
                                               const std::vector<uint32_t>& paragraph_count,
                                               const std::vector<uint64_t>& multiset_key,
                                               const ParagraphStageOptions& options, UnionFind* uf);

// Horvitz-Thompson estimate of the final number of duplicates from the
// clusters found after a share `loaded` of the collection was loaded: a
// cluster of s documents placed at random is found by then with probability
// 1 - (1 - loaded)^s, so each found cluster counts (s - 1) / that.
double EstimateFinalDuplicates(const std::vector<uint32_t>& cluster_sizes, double loaded);

}  // namespace neardup

#endif  // NEARDUP_ENGINE_PARAGRAPH_STAGE_H_
