// Copyright neardup authors. Licensed under Apache-2.0.
//
// Near-duplicate candidates and clusters from supershingles, as Fetterly,
// Manasse and Najork ("On the Evolution of Clusters of Near-Duplicate Web
// Pages", §2) run it: pages that share a megashingle (a pair of supershingles
// at positions i < j, looked up only in table (i, j): a match across tables
// means nothing) share at least 2 supershingles and are "very similar";
// pages agreeing on all m' supershingles are "virtually identical". Pairs are
// joined in a union-find forest.
//
// Execution: one table at a time, as a sorted run of (megashingle, page)
// records (12 bytes per page), so memory is 12 bytes per page on top of the
// supershingles. A pair is reported once: by the table (i, j) of its first two
// agreeing positions. Its B-similarity (Henzinger: the number of agreeing
// supershingles) is counted from the supershingles themselves, so a
// megashingle fingerprint collision is detected and dropped.
#ifndef NEARDUP_INDEX_MEGASHINGLE_TABLES_H_
#define NEARDUP_INDEX_MEGASHINGLE_TABLES_H_

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "cluster/union_find.h"

namespace neardup {

struct NearPair {
  uint32_t a = 0, b = 0;  // page numbers, a < b
  uint32_t b_similarity = 0;  // agreeing supershingles (0 when not computed)
  uint32_t c_similarity = 0;  // agreeing simhash bits (0 when not computed)
  // robust: content positions agreeing, out of content positions.
  uint32_t content_agreeing = 0, content_positions = 0;
};

struct BroderStageOptions {
  uint32_t num_supershingles = 6;  // m'
  // false: very similar (>= 2 agreeing, 15 megashingle tables);
  // true: virtually identical (all m' agree, one table).
  bool virtually_identical = false;
  // Pages sharing one megashingle are all paired when there are at most this
  // many; a larger bucket is joined as a chain (its pages still cluster) and
  // its pairs are counted in pairs_not_listed instead of being listed.
  uint32_t max_bucket_pages = 1000;
  // Keep the pairs found (for pairs.tsv). Counting happens either way.
  bool collect_pairs = false;
  // When set, a B-similar pair is taken (counted, joined, listed) only if
  // accept(a, b) is true: Henzinger's combined algorithm filters the pairs by
  // C-similarity this way.
  std::function<bool(uint32_t, uint32_t)> accept;
};

struct BroderStageResult {
  std::array<uint64_t, 17> pairs_by_b_similarity{};  // index = B-similarity
  uint64_t pairs = 0;                 // near-duplicate pairs found and listed
  uint64_t pairs_not_listed = 0;      // pairs inside buckets too large to list
  uint64_t large_buckets = 0;
  uint64_t pages_with_near_duplicate = 0;  // candidates incident to a pair
  uint64_t candidates = 0;            // pages that entered the tables
  uint64_t megashingle_collisions = 0;
  std::vector<NearPair> pairs_found;  // sorted by (a, b) when collected
};

// `supershingles`: n * m' values, page p's at [p * m', (p+1) * m').
// `is_candidate[p]`: page p enters the tables (one page per identity set,
// with a signature). Unions every near-duplicate pair in `uf` (size n).
BroderStageResult RunBroderStage(const std::vector<uint64_t>& supershingles,
                                 const std::vector<uint8_t>& is_candidate,
                                 const BroderStageOptions& options, UnionFind* uf);

}  // namespace neardup

#endif  // NEARDUP_INDEX_MEGASHINGLE_TABLES_H_
