// `chunks`: chunk overlap as Shivakumar and Garcia-Molina compute it
// ("Finding near-replicas of documents on the web", §2): documents cut into
// chunks hashed to 32-bit fingerprints, exact copies removed first, and
// pairs sharing at least T distinct fingerprints are near replicas, found by
// the sort-based Overlap (§2.1) or probabilistic coarse counting (§2.2)
// within the memory budget. Batch-only.
#include <algorithm>
#include <cstring>

#include "engine/chunk_stage.h"
#include "engine/methods/methods.h"
#include "engine/text_units.h"

namespace neardup {

std::string ChunkMethodOptions::Spec() const {
  std::string s = "chunks:" + chunking + ",T=" + std::to_string(threshold) + "," + algorithm;
  if (algorithm == "coarse") s += ",h=" + std::to_string(coarse_hash_functions) + ",seed=" + std::to_string(seed);
  return s;
}

Status ParseChunkSpec(std::string_view items, ChunkMethodOptions* o) {
  for (const SpecItem& it : SplitSpecItems(items)) {
    uint64_t v = 0;
    if (!it.has_value && Chunking::Parse(it.key).ok()) {
      o->chunking = it.key;
    } else if (it.key == "T") {
      NEARDUP_RETURN_IF_ERROR(ParseSpecUint("chunks", it, 1, UINT32_MAX, &v));
      o->threshold = static_cast<uint32_t>(v);
    } else if ((it.key == "sort" || it.key == "coarse") && !it.has_value) {
      o->algorithm = it.key;
    } else if (it.key == "h") {
      NEARDUP_RETURN_IF_ERROR(ParseSpecUint("chunks", it, 1, 8, &v));
      o->coarse_hash_functions = static_cast<uint32_t>(v);
    } else if (it.key == "seed") {
      NEARDUP_RETURN_IF_ERROR(ParseSpecUint("chunks", it, 0, UINT64_MAX, &o->seed));
    } else {
      return UnknownSpecKey("chunks", it, "whole, lines:N, words:N, sentences, T=N, sort, coarse, h=N, seed=N");
    }
  }
  return Status::OK();
}

Status ValidateChunks(const ChunkMethodOptions& o) {
  if (auto c = Chunking::Parse(o.chunking); !c.ok()) return c.status();
  if (o.threshold < 1) return Status::InvalidArgument("chunks: threshold T must be at least 1");
  if (o.algorithm != "sort" && o.algorithm != "coarse") {
    return Status::InvalidArgument("chunks: algorithm must be sort or coarse");
  }
  if (o.coarse_hash_functions < 1 || o.coarse_hash_functions > 8) {
    return Status::InvalidArgument("chunks: coarse_hash_functions must be in 1..8");
  }
  return Status::OK();
}

namespace {

class ChunkScratch final : public SignScratch {
 public:
  std::vector<uint32_t> chunks;
};

// The rule: at least T distinct chunk fingerprints shared; the similarity
// is the share of the smaller page's chunks (as the stage reports it).
PairDecision DecideChunks(uint64_t shared, uint64_t chunks_a, uint64_t chunks_b, uint32_t threshold) {
  PairDecision d;
  d.duplicate = shared >= threshold;
  const uint64_t smaller = std::max<uint64_t>(1, std::min(chunks_a, chunks_b));
  d.similarity = std::min(1.0, static_cast<double>(shared) / static_cast<double>(smaller));
  d.reason = std::to_string(shared) + " distinct chunks shared (" + (d.duplicate ? "at least T = " : "below T = ") +
             std::to_string(threshold) + ")";
  return d;
}

class ChunkRun final : public MethodRun {
 public:
  ChunkRun(MethodCollection c, const ChunkMethodOptions& o) : c_(std::move(c)), o_(o) { c_.Materialize(); }

  Status FindPairs(UnionFind* uf, DedupSummary* summary) override {
    const uint32_t n = c_.n;
    std::vector<uint32_t> counts(n);
    uint64_t central_with_chunks = 0;
    for (uint32_t i = 0; i < n; ++i) {
      counts[i] = static_cast<uint32_t>(c_.words[i]);
      central_with_chunks += c_.exact_root[i] == i && counts[i] > 0;
    }
    NEARDUP_ASSIGN_OR_RETURN(ChunkStageResult r, RunChunkStage(c_.env, c_.units_path, c_.temp_dir, c_.exact_root,
                                                               counts, o_, c_.memory_budget, c_.collect_pairs, uf));
    summary->chunk_overlap = r.stats;
    summary->replica_histograms = std::move(r.histograms);
    summary->near_pairs = r.stats.result_pairs;
    summary->near_candidates = central_with_chunks;
    pairs_path_ = r.pairs_path;
    pair_member_ = std::move(r.pair_member);
    share_ = std::move(r.best_share);
    summary->pages_with_near_duplicate = static_cast<uint64_t>(
        std::count_if(share_.begin(), share_.end(), [](float v) { return v > 0; }));
    return Status::OK();
  }
  ~ChunkRun() override {
    if (!pairs_path_.empty()) (void)c_.env->RemoveFile(pairs_path_);
  }
  bool verifies() const override { return false; }
  uint32_t SplitRoot(uint32_t p) const override { return c_.exact_root[p]; }
  double Similarity(uint32_t page, uint32_t) const override { return share_[page]; }
  std::vector<PairColumn> PairColumns() const override { return {{"F", 0}}; }
  bool PairsOrderedByUrl() const override { return true; }
  bool HasPairs() const override { return !pairs_path_.empty(); }
  void MarkPairMembers(std::vector<uint8_t>* member) const override {
    for (size_t i = 0; i < pair_member_.size(); ++i) (*member)[i] |= pair_member_[i];
  }
  // The Overlap table streamed from the stage's pairs file.
  Status ForEachPair(const PairVisitor& visit) override {
    if (pairs_path_.empty()) return Status::OK();
    return ReadChunkPairs(c_.env, pairs_path_,
                          [&](const NearPair& p) {
                            const double v[1] = {static_cast<double>(p.b_similarity)};
                            return visit(p.a, p.b, v);
                          });
  }
  void WriteSummary(const DedupSummary& s, const DedupOptions& o, nlohmann::ordered_json* root) const override {
    (*root)["near_duplicates"]["comparisons"] = s.near_candidate_pairs;
    const ChunkOverlapStats& c = s.chunk_overlap;
    nlohmann::ordered_json hist = nlohmann::ordered_json::object();
    for (const ReplicaHistogram& h : s.replica_histograms) {
      nlohmann::ordered_json buckets = nlohmann::ordered_json::object();
      for (const auto& [label, pages] : h.pages) buckets[label] = pages;
      hist[h.chunking] = buckets;
    }
    (*root)["chunks"] = {
        {"chunking", o_.chunking},
        {"threshold", o_.threshold},
        {"algorithm", c.algorithm},
        {"memory_bytes", o.memory_bytes},
        {"buffer_budget_bytes", c.buffer_budget_bytes},
        {"peak_buffer_bytes", c.peak_buffer_bytes},
        {"records", c.records},
        {"fingerprint_bytes", c.fingerprint_bytes},
        {"copies_removed", c.copies_removed},
        {"pairs_generated", c.pairs_generated},
        {"candidate_pairs", c.candidate_pairs},
        {"false_candidates", c.false_candidates},
        {"result_pairs", c.result_pairs},
        {"spill_runs", c.spill_runs},
        {"spill_bytes", c.spill_bytes},
        {"passes", c.passes},
        {"sort_seconds", c.sort_seconds},
        {"overlap_seconds", c.overlap_seconds},
        {"replica_histogram", hist},
    };
  }

 private:
  MethodCollection c_;
  ChunkMethodOptions o_;
  std::string pairs_path_;
  std::vector<uint8_t> pair_member_;
  std::vector<float> share_;
};

class ChunkMethod final : public MethodImpl {
 public:
  explicit ChunkMethod(const ChunkMethodOptions& o) : o_(o), chunking_(Chunking::Parse(o.chunking).value()) {}
  std::string name() const override { return "chunks"; }
  std::string Spec() const override { return o_.Spec(); }
  bool batch_only() const override { return true; }
  size_t signature_words() const override { return 1; }  // distinct fingerprints
  std::unique_ptr<SignScratch> NewScratch() const override { return std::make_unique<ChunkScratch>(); }
  void SignTokens(const Document&, const TokenizedDocument& tokens, SignScratch* scratch, uint64_t* words,
                  bool* eligible, std::string* units) const override {
    auto* s = static_cast<ChunkScratch*>(scratch);
    ChunkFingerprints(tokens, chunking_, &s->chunks);
    std::sort(s->chunks.begin(), s->chunks.end());
    s->chunks.erase(std::unique(s->chunks.begin(), s->chunks.end()), s->chunks.end());
    words[0] = s->chunks.size();
    *eligible = !s->chunks.empty();
    units->append(reinterpret_cast<const char*>(s->chunks.data()), s->chunks.size() * sizeof(uint32_t));
  }
  // FPrint-DocID records: (fingerprint, page) per distinct chunk.
  void AppendUnitRecord(uint32_t page, std::string_view units, std::string* spill) const override {
    for (size_t k = 0; k + 4 <= units.size(); k += 4) {
      spill->append(units.data() + k, 4);
      spill->append(reinterpret_cast<const char*>(&page), 4);
    }
  }
  PairDecision Compare(const Signature& a, const Signature& b) const override {
    const std::vector<uint32_t> x = UnitsOf<uint32_t>(a), y = UnitsOf<uint32_t>(b);
    std::vector<uint32_t> both;
    std::set_intersection(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(both));
    return DecideChunks(both.size(), x.size(), y.size(), o_.threshold);
  }
  void TableKeys(const Signature&, std::vector<uint64_t>* keys) const override { keys->clear(); }
  std::unique_ptr<MethodRun> NewRun(MethodCollection c) const override {
    return std::make_unique<ChunkRun>(std::move(c), o_);
  }

 private:
  ChunkMethodOptions o_;
  Chunking chunking_;
};

}  // namespace

std::unique_ptr<MethodImpl> NewChunkMethod(const ChunkMethodOptions& options) {
  return std::make_unique<ChunkMethod>(options);
}

}  // namespace neardup
