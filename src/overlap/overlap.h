// Copyright neardup authors. Licensed under Apache-2.0.
//
// All-pairs document overlap of Shivakumar and Garcia-Molina, "Finding
// near-replicas of documents on the web" (§2): from an FPrint-DocID file
// (record_file.h), the Overlap table of triplets <d_i, d_j, F> where F is the
// number of distinct fingerprints documents d_i and d_j share, kept when
// F >= T. Two memory-bounded algorithms and a brute-force reference:
//
//   SortBasedOverlap       §2.1: sort FPrint-DocID, emit the cross product of
//                          documents per fingerprint as DocID-DocID records,
//                          sort them, count runs of equal pairs.
//   CoarseCountingOverlap  §2.2 (iceberg queries): the same sort, then hashed
//                          counters instead of the DocID-DocID file, bitmaps
//                          of heavy buckets, an exact count of the candidates.
//   BruteForceOverlap      set intersection of every document pair.
//
// Every algorithm emits exactly the pairs with F >= T, each once, with a < b,
// in increasing (a, b) order, so the three agree exactly.
//
// Cost: both memory-bounded algorithms enumerate, for each fingerprint held
// by k documents, its k(k-1)/2 document pairs (the paper's point: a common
// fingerprint makes step (2) quadratic; coarse counting avoids storing the
// pairs, not enumerating them). No cap is applied.
#ifndef NEARDUP_OVERLAP_OVERLAP_H_
#define NEARDUP_OVERLAP_OVERLAP_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "neardup/env.h"
#include "neardup/status.h"
#include "overlap/record_file.h"

namespace neardup {

struct OverlapOptions {
  // --- behaviour ---
  // T: keep pairs sharing at least T distinct fingerprints (the paper uses
  // T = 15 for four-line and T = 25 for two-line chunks). >= 1.
  uint32_t threshold = 15;

  // --- performance ---
  // Budget of every buffer the algorithm holds at once (sort buffers and
  // merge blocks, the per-fingerprint document list, counters, bitmaps, the
  // candidate table). >= 1 MiB. The buffers of Env's files are not counted.
  uint64_t memory_bytes = 256 << 20;
  // Folder of the spill files (created when missing); every file created
  // there is removed on return, also on error. Empty: the folder holding the
  // records file.
  std::string temp_dir;
  // Coarse counting: k independent hash functions h_1..h_k, each with its
  // own counter array A_k and bitmap BITMAP_k; a pair is a candidate only if
  // its bucket is heavy in every bitmap. 1..16.
  uint32_t coarse_hash_functions = 2;
  // Coarse counting: m, the buckets of each counter array. 0: as many as the
  // budget allows (the usual choice); a value that does not fit the budget
  // is ResourceExhausted.
  uint64_t coarse_buckets = 0;
  // Draws the coarse-counting hash functions.
  uint64_t seed = 1234;

  Status Validate() const;
};

// One row of the Overlap table: documents a < b share `shared` = F distinct
// fingerprints.
struct OverlapPair {
  uint32_t a;
  uint32_t b;
  uint32_t shared;
  friend bool operator==(const OverlapPair&, const OverlapPair&) = default;
};

// What a run did (reported by the Table-1 benchmark and summary.json).
struct OverlapStats {
  uint64_t records = 0;            // records read
  uint64_t distinct_records = 0;   // after removing repeated (fprint, doc)
  uint64_t fingerprint_bytes = 0;  // size of the records file
  uint64_t pairs_generated = 0;    // document pairs of step (2): the cross product per fingerprint
  uint64_t candidate_pairs = 0;    // coarse: distinct pairs passing every bitmap
  uint64_t false_candidates = 0;   // coarse: candidates whose exact count was < T
  uint64_t heavy_buckets = 0;      // coarse: set bits over all bitmaps
  uint64_t result_pairs = 0;       // pairs with F >= T
  uint64_t spill_runs = 0;         // external-sort runs written (0 when everything fit)
  uint64_t spill_bytes = 0;        // bytes written to temporary files
  uint32_t passes = 0;             // coarse: candidate-counting passes over the records
  uint64_t peak_buffer_bytes = 0;  // largest memory the algorithm held at once (own accounting)
  double sort_seconds = 0;         // reading and sorting FPrint-DocID
  double overlap_seconds = 0;      // everything after the sort
};

// Called once per result pair, in increasing (a, b) order; a non-OK Status
// stops the algorithm and is returned.
using OverlapSink = std::function<Status(const OverlapPair&)>;

// Sort-based approach (§2.1): external sort of the records by (fprint, doc)
// within the budget (sorted runs spilled to temp_dir, k-way merge), repeated
// (fprint, doc) removed; the scan emits, for each fingerprint, every pair of
// its documents as an 8-byte DocID-DocID record into a second external sort;
// the scan of the sorted pairs counts runs of equal pairs and emits F >= T.
//
// Memory: half the budget sorts the records, an eighth holds one
// fingerprint's document list while merging, the rest sorts the pairs.
// Errors: NotFound (no file), Corruption (size not a multiple of 8),
// InvalidArgument (options), ResourceExhausted (one fingerprint held by more
// documents than an eighth of the budget holds at 8 bytes each, only when the
// records did not fit in memory), IOError (spill files).
Result<OverlapStats> SortBasedOverlap(Env* env, const std::string& records_path,
                                      const OverlapOptions& options, const OverlapSink& sink);

// Probabilistic coarse counting (§2.2): the same sort by (fprint, doc)
// (kept in memory when it fits, else one sorted de-duplicated spill file),
// then
//  1. hashing scan: for each pair sharing a fingerprint, A_k[h_k(a,b)] += 1
//     in saturating counters (8-bit when T <= 255, 16-bit when T <= 65535,
//     else 32-bit); m buckets per function, as many as the budget allows but
//     at most half the number of pairs (known from the sort; larger arrays
//     cost cache misses for little gain), unless coarse_buckets sets m;
//  2. BITMAP_k[i] = (A_k[i] >= T) (a bucket holding a pair with F >= T has
//     at least T increments); the counters are freed;
//  3. candidate scan(s): the pairs heavy in every bitmap are counted exactly
//     in an open-addressing table. When the table fills up, the pairs with
//     the largest keys are dropped from it (split at the median of a sample
//     of its keys) and left to the next pass, which counts the key range
//     above: each pass finishes one range [lo, hi) of keys a << 32 | b
//     exactly, so the result is exact and comes out in order (passes > 1
//     when the candidates do not fit).
// Memory and errors as SortBasedOverlap.
Result<OverlapStats> CoarseCountingOverlap(Env* env, const std::string& records_path,
                                           const OverlapOptions& options,
                                           const OverlapSink& sink);

// Reference for tests and small inputs: F = |fprints(a) ∩ fprints(b)| by set
// intersection of every document pair; pairs with F >= threshold in
// increasing (a, b) order. O(documents^2) time; everything in memory.
std::vector<OverlapPair> BruteForceOverlap(std::span<const FprintDocId> records,
                                           uint32_t threshold);

}  // namespace neardup

#endif  // NEARDUP_OVERLAP_OVERLAP_H_
