// Copyright neardup authors. Licensed under Apache-2.0.
//
// Comparing two pages the way each method sees them, so that a reader can
// tell why a pair was or was not matched: their terms, Henzinger's
// B-similarity (supershingles shared) and C-similarity (simhash bits that
// agree), the Jaccard resemblance of their shingle sets (what B-similarity
// estimates), and the term difference as Henzinger measured it (a diff of the
// two token sequences) with the differing runs.
#ifndef NEARDUP_COMPARE_H_
#define NEARDUP_COMPARE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "neardup/engine.h"
#include "neardup/env.h"
#include "neardup/status.h"

namespace neardup {

struct ComparedPage {
  std::string source;   // the input it came from
  std::string url;
  uint64_t terms = 0;
  std::string charset;
};

// One run of the diff: terms only in A (`deleted`), only in B (`inserted`),
// or both; term indices are half-open ranges.
struct CompareRun {
  enum class Kind { kEqual, kOnlyInA, kOnlyInB } kind = Kind::kEqual;
  uint32_t a_begin = 0, a_end = 0, b_begin = 0, b_end = 0;
  std::string text;     // the run's terms joined by spaces (cut at 300 characters)
};

struct Comparison {
  ComparedPage a, b;
  bool exact_same_tokens = false;
  bool exact_same_bytes = false;
  int b_similarity = 0;          // of m' supershingles (Broder options given)
  uint32_t num_supershingles = 0;
  bool b_similar = false;        // >= 2 agreeing (Henzinger's B-similar)
  int c_similarity = 0;          // of b bits (simhash options given)
  uint32_t simhash_bits = 0;
  bool c_similar = false;        // >= t (Henzinger's C-similar)
  bool same_site = false;        // Henzinger's site
  double jaccard = 0;            // resemblance of the k-shingle sets
  uint64_t term_difference = 0;  // terms deleted plus inserted by the diff
  std::vector<CompareRun> runs;  // the differing runs, with equal runs between
};

// Reads the first document of each input (a file of any input format, as
// `dedup` reads it) and compares them with `options`' Broder and simhash
// parameters. NotFound when an input yields no document.
Result<Comparison> ComparePages(const std::string& input_a, const std::string& input_b,
                                const DedupOptions& options, Env* env);

}  // namespace neardup

#endif  // NEARDUP_COMPARE_H_
