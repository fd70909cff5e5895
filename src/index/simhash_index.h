// Copyright neardup authors. Licensed under Apache-2.0.
//
// All C-similar pairs of simhash sketches (sketch/simhash.h) without
// comparing all pairs: Henzinger, "Finding Near-Duplicate Web Pages: A
// Large-Scale Evaluation of Algorithms", §3.3, and for 64-bit sketches the
// permuted tables of Manku, Jain and Das Sarma, "Detecting Near-Duplicates
// for Web Crawling" (WWW 2007), §3.
//
// Two b-bit sketches are C-similar iff they agree on at least t bits, i.e.
// differ in at most d = b - t bits. Both schemes rest on the pigeonhole
// principle: split the b bits into blocks; a pair differing in at most d
// bits has all of its differences in at most d blocks, so it agrees exactly
// on every other block. Pages are bucketed on exact block values (one table
// per block choice) and only pages sharing a bucket are compared.
//
//  - b >= 128 (pieces, Henzinger): P = max(d + 1, b / 64) non-overlapping
//    pieces of consecutive bits, sizes b / P or b / P + 1 (the larger ones
//    first), one table per piece position. d + 1 pieces leave at least one
//    piece free of differences; b / 64 keeps pieces within 64 bits (more
//    pieces are still complete, just less selective). For b = 384:
//      t = 372 (d = 12): 13 pieces, 7 of 30 bits then 6 of 29;
//      t = 373 (d = 11): 12 pieces of 32 bits, exactly Henzinger's 12
//      four-byte pieces ("guaranteed to find all pairs of pages with
//      difference up to 11").
//    Henzinger ran 12 pieces with t = 372 and accepted missing some pairs
//    at difference 12; here the piece count always follows t, so every
//    pair at or above t is found.
//  - b = 64 (permuted tables, Manku et al.): B = d + 3 blocks (sizes 64 / B
//    or one more); one table for every choice of 3 blocks, keyed by their
//    concatenated bits (the "leading bits" of one permutation). For d = 3:
//    6 blocks, C(6, 3) = 20 tables with 31- to 33-bit keys, Manku et al.'s
//    configuration for k = 3 on 64-bit fingerprints; d = 0, 1, 2: 1, 4, 10
//    tables. Supported up to d = 3.
//  - When completeness would need more than kMaxSimhashPieces = 24 pieces
//    (b >= 128) or d > 3 (b = 64), the largest scheme runs (24 pieces, or
//    the d = 3 tables) and the result is marked incomplete.
//
// Each candidate pair is compared once, at the first table in which the two
// pages share an enumerated bucket. Buckets larger than max_bucket_pages
// (one boilerplate piece shared by many pages) are counted, not enumerated,
// as in the Broder stage; their pairs may still be found through another
// table.
#ifndef NEARDUP_INDEX_SIMHASH_INDEX_H_
#define NEARDUP_INDEX_SIMHASH_INDEX_H_

#include <cstdint>
#include <vector>

#include "neardup/status.h"

namespace neardup {

// A C-similar pair of pages (indices into the sketch array), a < b.
struct SimhashPair {
  uint32_t a, b;
  uint32_t c_similarity;  // agreeing bits, >= min_agreeing
};

inline bool operator==(const SimhashPair& x, const SimhashPair& y) {
  return x.a == y.a && x.b == y.b && x.c_similarity == y.c_similarity;
}

// The most piece tables run for b >= 128 (see the file comment).
inline constexpr uint32_t kMaxSimhashPieces = 24;

struct SimhashIndexOptions {
  // b, bits per sketch: a multiple of 64 from 64 to 512 (384: Algorithm C).
  uint32_t bits = 384;
  // t, least C-similarity (agreeing bits) of a reported pair (Henzinger:
  // 372). At most bits.
  uint32_t min_agreeing = 372;
  // Buckets with more pages than this are counted in large_buckets and not
  // enumerated (at most max^2 / 2 comparisons per bucket). At least 2.
  uint32_t max_bucket_pages = 1000;

  // InvalidArgument naming the offending field.
  Status Validate() const;
};

struct SimhashIndexResult {
  // Every pair found with C-similarity >= min_agreeing, each once, sorted
  // by (a, b).
  std::vector<SimhashPair> pairs;
  // CSimilarity() evaluations (distinct candidate pairs compared).
  uint64_t candidates_compared = 0;
  // Buckets skipped for having more than max_bucket_pages pages (summed
  // over tables).
  uint64_t large_buckets = 0;
  // True iff `pairs` is provably every candidate pair with C-similarity >=
  // min_agreeing: the scheme covers d = bits - min_agreeing and no bucket
  // was skipped.
  bool complete = true;
};

// The block layout FindSimhashPairs uses for (bits, min_agreeing): each
// table is a list of (first bit, bit count) ranges whose bits, concatenated,
// form the bucket key (at most 64 bits). `complete` is false when the
// layout does not cover d = bits - min_agreeing differing bits.
// REQUIRES: options.Validate().ok().
struct SimhashTableLayout {
  struct Range {
    uint32_t start, len;
  };
  std::vector<std::vector<Range>> tables;
  bool complete = true;
};
SimhashTableLayout SimhashLayout(const SimhashIndexOptions& options);

// All pairs of candidate pages with C-similarity >= options.min_agreeing,
// each once, sorted by (a, b) (see the file comment for the scheme).
// sketches: n sketches of bits / 64 words each, page i at
// sketches[i * bits/64 ..]. is_candidate: n flags; pages with 0 are neither
// indexed nor reported (empty: every page is a candidate).
// REQUIRES: options.Validate().ok(), sketches.size() % (bits / 64) == 0,
// n < 2^32, is_candidate empty or of size n (checked: aborts otherwise).
// Time O(T * n log n + compared pairs * T) for T tables; memory O(n + pairs).
// Single-threaded; no shared state.
SimhashIndexResult FindSimhashPairs(const std::vector<uint64_t>& sketches,
                                    const std::vector<uint8_t>& is_candidate,
                                    const SimhashIndexOptions& options);

}  // namespace neardup

#endif  // NEARDUP_INDEX_SIMHASH_INDEX_H_
