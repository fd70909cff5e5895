// Copyright neardup authors. Licensed under Apache-2.0.
#include "engine/chunk_stage.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "engine/text_units.h"
#include "overlap/external_sort.h"
#include "overlap/overlap.h"
#include "overlap/record_file.h"

namespace neardup {
namespace {

constexpr const char* kBuckets[] = {"1", "2", "3-10", "11-100", "101-1000", "1001+"};

std::vector<std::pair<std::string, uint64_t>> Histogram(const std::vector<uint64_t>& replicas) {
  std::vector<std::pair<std::string, uint64_t>> h;
  for (const char* b : kBuckets) h.emplace_back(b, 0);
  for (uint64_t r : replicas) {
    const char* b = ReplicaBucket(r);
    for (auto& [label, count] : h) {
      if (label == b) ++count;
    }
  }
  return h;
}

}  // namespace

const char* ReplicaBucket(uint64_t replicas) {
  if (replicas <= 1) return kBuckets[0];
  if (replicas == 2) return kBuckets[1];
  if (replicas <= 10) return kBuckets[2];
  if (replicas <= 100) return kBuckets[3];
  if (replicas <= 1000) return kBuckets[4];
  return kBuckets[5];
}

void AppendChunkRecords(uint32_t doc, const std::vector<uint32_t>& distinct_fingerprints, std::string* out) {
  for (uint32_t fp : distinct_fingerprints) {
    const FprintDocId r{fp, doc};
    out->append(reinterpret_cast<const char*>(&r), sizeof r);
  }
}

Status ReadChunkPairs(Env* env, const std::string& path, const std::function<Status(const NearPair&)>& fn) {
  MemoryBudget budget(1 << 20);
  RecordFileReader<ChunkPairRecord> reader;
  NEARDUP_RETURN_IF_ERROR(reader.Open(env, path, &budget, (1 << 20) / sizeof(ChunkPairRecord)));
  ChunkPairRecord r;
  while (reader.Next(&r)) NEARDUP_RETURN_IF_ERROR(fn(NearPair{r.a, r.b, r.shared, 0}));
  return reader.status();
}

Result<ChunkStageResult> RunChunkStage(Env* env, const std::string& records_path, const std::string& temp_dir,
                                       const std::vector<uint32_t>& central,
                                       const std::vector<uint32_t>& chunk_count,
                                       const ChunkMethodOptions& options, uint64_t buffer_budget_bytes,
                                       bool collect_pairs, UnionFind* uf) {
  ChunkStageResult result;
  const uint32_t n = static_cast<uint32_t>(central.size());
  result.best_share.assign(n, 0.0f);
  result.stats.algorithm = options.algorithm;
  result.stats.buffer_budget_bytes = buffer_budget_bytes;

  // ---- FPrint-DocID-Chunk': the records of central documents only ----
  const std::string central_path = records_path + ".central";
  {
    NEARDUP_ASSIGN_OR_RETURN(auto in, FprintDocIdReader::Open(env, records_path));
    NEARDUP_ASSIGN_OR_RETURN(auto out, FprintDocIdWriter::Open(env, central_path));
    std::vector<FprintDocId> block(1 << 17);
    for (;;) {
      size_t got = 0;
      NEARDUP_RETURN_IF_ERROR(in->Read(block, &got));
      if (got == 0) break;
      for (size_t k = 0; k < got; ++k) {
        const FprintDocId& r = block[k];
        if (r.doc < n && central[r.doc] == r.doc) NEARDUP_RETURN_IF_ERROR(out->Append(r));
      }
    }
    NEARDUP_RETURN_IF_ERROR(out->Close());
    result.stats.records = out->records();
  }
  (void)env->RemoveFile(records_path);
  result.stats.fingerprint_bytes = result.stats.records * sizeof(FprintDocId);
  for (uint32_t d = 0; d < n; ++d) result.stats.copies_removed += central[d] != d;

  // ---- the Overlap table ----
  OverlapOptions oo;
  oo.threshold = options.threshold;
  oo.memory_bytes = std::max<uint64_t>(buffer_budget_bytes, uint64_t{1} << 20);
  oo.temp_dir = temp_dir;
  oo.coarse_hash_functions = options.coarse_hash_functions;
  oo.seed = options.seed;
  std::unique_ptr<WritableFile> pairs_file;
  std::string pairs_buffer;
  if (collect_pairs) {
    result.pairs_path = temp_dir.empty() ? records_path + ".pairs" : temp_dir + "/.chunks.pairs";
    auto f = env->NewWritableFile(result.pairs_path);
    if (!f.ok()) return Status::IOError("cannot write " + result.pairs_path + ": " + f.status().message());
    pairs_file = std::move(f).value();
    result.pair_member.assign(n, 0);
  }
  std::vector<uint64_t> neighbour_copies(n, 0);  // replicas among other central documents' sets
  std::vector<uint32_t> set_size(n, 0);
  for (uint32_t d = 0; d < n; ++d) ++set_size[central[d]];
  auto sink = [&](const OverlapPair& p) -> Status {
    uf->Union(p.a, p.b);
    const uint32_t smaller = std::max<uint32_t>(1, std::min(chunk_count[p.a], chunk_count[p.b]));
    const float share = std::min(1.0f, static_cast<float>(p.shared) / static_cast<float>(smaller));
    result.best_share[p.a] = std::max(result.best_share[p.a], share);
    result.best_share[p.b] = std::max(result.best_share[p.b], share);
    neighbour_copies[p.a] += set_size[p.b];
    neighbour_copies[p.b] += set_size[p.a];
    if (pairs_file) {
      const ChunkPairRecord rec{p.a, p.b, p.shared};
      pairs_buffer.append(reinterpret_cast<const char*>(&rec), sizeof rec);
      result.pair_member[p.a] = result.pair_member[p.b] = 1;
      if (pairs_buffer.size() >= (1 << 20)) {
        NEARDUP_RETURN_IF_ERROR(pairs_file->Append(pairs_buffer.data(), pairs_buffer.size()));
        pairs_buffer.clear();
      }
    }
    return Status::OK();
  };
  Result<OverlapStats> stats = options.algorithm == "sort"
                                   ? SortBasedOverlap(env, central_path, oo, sink)
                                   : CoarseCountingOverlap(env, central_path, oo, sink);
  (void)env->RemoveFile(central_path);
  if (pairs_file) {
    Status st = stats.ok() ? pairs_file->Append(pairs_buffer.data(), pairs_buffer.size()) : Status::OK();
    if (st.ok()) st = pairs_file->Close();
    if (!stats.ok() || !st.ok()) (void)env->RemoveFile(result.pairs_path);
    if (!st.ok()) return Status::IOError("cannot write " + result.pairs_path + ": " + st.message());
  }
  if (!stats.ok()) return stats.status();
  const OverlapStats& s = stats.value();
  result.stats.pairs_generated = s.pairs_generated;
  result.stats.candidate_pairs = s.candidate_pairs;
  result.stats.false_candidates = s.false_candidates;
  result.stats.result_pairs = s.result_pairs;
  result.stats.spill_runs = s.spill_runs;
  result.stats.spill_bytes = s.spill_bytes;
  result.stats.passes = s.passes;
  result.stats.peak_buffer_bytes = s.peak_buffer_bytes;
  result.stats.sort_seconds = s.sort_seconds;
  result.stats.overlap_seconds = s.overlap_seconds;

  // ---- replicas per page (Figure 1) ----
  // whole: the page's identity set; the chunking: also the identity sets of
  // the central documents it overlaps with at F >= T.
  std::vector<uint64_t> whole(n), chunked(n);
  for (uint32_t d = 0; d < n; ++d) {
    whole[d] = set_size[central[d]];
    chunked[d] = whole[d] + neighbour_copies[central[d]];
  }
  result.histograms.push_back({"whole", Histogram(whole)});
  Result<Chunking> c = Chunking::Parse(options.chunking);
  result.histograms.push_back({c.ok() ? c.value().Name() : options.chunking, Histogram(chunked)});
  return result;
}

}  // namespace neardup
