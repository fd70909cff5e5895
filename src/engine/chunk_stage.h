// Copyright neardup authors. Licensed under Apache-2.0.
//
// The `chunks` method's overlap step (Shivakumar and Garcia-Molina,
// "Finding near-replicas of documents on the web", §2): the FPrint-DocID
// records of every document (written while the crawl is read), the records
// of non-central documents removed (each identity set keeps its document
// with the smallest id, the paper's "central" document), the Overlap table
// computed by the sort-based or the coarse-counting algorithm within a
// buffer budget, and pairs with F >= T joined by union-find. Also the
// replica histogram of the paper's Figure 1.
#ifndef NEARDUP_ENGINE_CHUNK_STAGE_H_
#define NEARDUP_ENGINE_CHUNK_STAGE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cluster/union_find.h"
#include "index/megashingle_tables.h"
#include "neardup/engine.h"
#include "neardup/env.h"

namespace neardup {

// Appends a document's records (distinct fingerprints, 8 bytes each: the
// fingerprint, then the document id, little-endian) to `out`.
void AppendChunkRecords(uint32_t doc, const std::vector<uint32_t>& distinct_fingerprints, std::string* out);

// One pair of the Overlap table on disk: 12 bytes, host byte order.
struct ChunkPairRecord {
  uint32_t a, b, shared;  // a < b, shared = F
};

// Calls fn for every pair of a file written by RunChunkStage, in order;
// Corruption when the file ends inside a record.
Status ReadChunkPairs(Env* env, const std::string& path, const std::function<Status(const NearPair&)>& fn);

struct ChunkStageResult {
  ChunkOverlapStats stats;
  // collect_pairs: the pairs with F >= T are streamed to `pairs_path` as
  // ChunkPairRecords in (a, b) order (the table can be far larger than
  // memory; ReadChunkPairs reads it back). pair_member[d] is 1 for documents
  // in a pair.
  std::string pairs_path;
  std::vector<uint8_t> pair_member;
  std::vector<float> best_share;      // per document: best F / min(chunks of the two) of its pairs
  std::vector<ReplicaHistogram> histograms;  // "whole", then the chunking
};

// `central[d]`: the smallest document id of d's identity set (d itself when
// central); `chunk_count[d]`: d's distinct fingerprints. Reads and removes
// `records_path`; temporary files go to `temp_dir`.
Result<ChunkStageResult> RunChunkStage(Env* env, const std::string& records_path, const std::string& temp_dir,
                                       const std::vector<uint32_t>& central,
                                       const std::vector<uint32_t>& chunk_count,
                                       const ChunkMethodOptions& options, uint64_t buffer_budget_bytes,
                                       bool collect_pairs, UnionFind* uf);

// Bucket of Figure 1 for a page with `replicas` replicas (itself included).
const char* ReplicaBucket(uint64_t replicas);

}  // namespace neardup

#endif  // NEARDUP_ENGINE_CHUNK_STAGE_H_
