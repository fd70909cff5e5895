// Copyright neardup authors. Licensed under Apache-2.0.
//
// Token-sequence diff for Henzinger's *term difference* ("Finding
// Near-Duplicate Web Pages: A Large-Scale Evaluation of Algorithms", SIGIR
// 2006, §3): "we executed the Linux diff command over the two token sequences
// and used the number of tokens that were returned", i.e. the terms that
// diff reports as deleted from one page plus those inserted from the other.
// For a minimal diff that is |a| + |b| - 2·LCS(a, b), the D of Myers.
//
// The algorithm is Myers' O(ND) difference algorithm ("An O(ND) Difference
// Algorithm and Its Variations", Algorithmica 1, 1986) in its linear-space
// form (§4b): find the middle snake, recurse on both halves. Terms are
// compared as 64-bit hashes (e.g. Rabin fingerprints of the tokenizer's
// terms), so two different terms with equal hashes count as equal.
//
// Pure functions, thread-safe.
#ifndef NEARDUP_TEXT_TOKEN_DIFF_H_
#define NEARDUP_TEXT_TOKEN_DIFF_H_

#include <cstdint>
#include <span>
#include <vector>

namespace neardup {

// One run of the edit script, over half-open term index ranges
// [a_begin, a_end) of the first sequence and [b_begin, b_end) of the second.
// kEqual: a[a_begin..a_end) == b[b_begin..b_end) (same length).
// kDelete: a[a_begin..a_end) is not in b; b_begin == b_end.
// kInsert: b[b_begin..b_end) is not in a; a_begin == a_end.
struct DiffRun {
  enum class Kind { kEqual, kDelete, kInsert } kind;
  uint32_t a_begin, a_end, b_begin, b_end;
};

struct TokenDiff {
  // Runs cover both sequences completely and in order: the first starts at
  // (0, 0), each starts where the previous ended, the last ends at
  // (|a|, |b|). No run is empty. Canonical form: between two equal runs (or
  // the ends) there is at most one delete run followed by at most one insert
  // run; two equal runs are never adjacent. Empty when both sides are empty.
  std::vector<DiffRun> runs;
  // Henzinger's term difference: deleted + inserted terms.
  uint64_t term_difference = 0;
};

// Diffs term sequences a and b.
//
// The common prefix and suffix of a and b are always found exactly (equal
// runs). Between them, when the minimal number of deleted + inserted terms
// (Myers' D) is at most `max_edit_distance`, the diff is minimal:
// term_difference == |a| + |b| - 2·LCS(a, b). When it is larger, the whole
// middle part is reported as one delete run + one insert run, and
// term_difference is the (larger) size of that middle part: an upper bound
// that still says "more than max_edit_distance". A cap of 0 accepts only
// sequences equal up to that fallback.
//
// Complexity: O((|a| + |b|) · min(D, max_edit_distance)) time,
// O(|a| + |b|) memory; recursion depth O(log D).
// REQUIRES: |a|, |b| < 2^31 (aborts otherwise).
TokenDiff DiffTerms(std::span<const uint64_t> a, std::span<const uint64_t> b,
                    uint32_t max_edit_distance = 20000);

}  // namespace neardup

#endif  // NEARDUP_TEXT_TOKEN_DIFF_H_
