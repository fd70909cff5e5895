// `simhash`: Charikar's simhash as Henzinger's Algorithm C runs it: b bits
// per page; pages are C-similar when at least t bits agree; candidates come
// from an index of sketch pieces that finds every pair within b - t
// differing bits (src/index/simhash_index.h).
#include <algorithm>

#include "engine/method_options.h"
#include "engine/methods/methods.h"
#include "engine/methods/simhash_keys.h"
#include "index/simhash_index.h"
#include "sketch/simhash.h"

namespace neardup {

std::string SimhashMethodOptions::Spec() const {
  return "simhash:b=" + std::to_string(bits) + ",t=" + std::to_string(threshold) + ",seed=" + std::to_string(seed);
}

Status ParseSimhashSpec(std::string_view items, SimhashMethodOptions* o) {
  for (const SpecItem& it : SplitSpecItems(items)) {
    uint64_t v = 0;
    if (it.key == "b") {
      NEARDUP_RETURN_IF_ERROR(ParseSpecUint("simhash", it, 64, 512, &v));
      o->bits = static_cast<uint32_t>(v);
    } else if (it.key == "t") {
      NEARDUP_RETURN_IF_ERROR(ParseSpecUint("simhash", it, 1, 512, &v));
      o->threshold = static_cast<uint32_t>(v);
    } else if (it.key == "seed") {
      NEARDUP_RETURN_IF_ERROR(ParseSpecUint("simhash", it, 0, UINT64_MAX, &o->seed));
    } else if (it.key == "same-site-t") {
      NEARDUP_RETURN_IF_ERROR(ParseSpecUint("simhash", it, 1, 512, &v));
      o->combined_threshold = static_cast<uint32_t>(v);
    } else {
      return UnknownSpecKey("simhash", it, "b=N, t=N, seed=N (combined also same-site-t=N)");
    }
  }
  return Status::OK();
}

Status ValidateSimhash(const SimhashMethodOptions& o, bool combined) {
  Status s = ToSimhashOptions(o).Validate();
  if (!s.ok()) return Status::InvalidArgument("simhash: " + s.message());
  if (o.threshold > o.bits || (combined && o.combined_threshold > o.bits)) {
    return Status::InvalidArgument("simhash: thresholds must be at most the number of bits");
  }
  return Status::OK();
}

PairDecision DecideSimhash(const uint64_t* a, const uint64_t* b, uint32_t bits, uint32_t threshold) {
  PairDecision d;
  const uint32_t agreeing = static_cast<uint32_t>(CSimilarity(a, b, bits));
  d.similarity = static_cast<double>(agreeing) / bits;
  d.duplicate = agreeing >= threshold;
  d.reason = std::to_string(agreeing) + " of " + std::to_string(bits) + " bits agree (C-similarity; " +
             (d.duplicate ? "at least " : "fewer than ") + std::to_string(threshold) + " needed)";
  return d;
}

namespace {

class SimhashScratchBox final : public SignScratch {
 public:
  SimhashScratch scratch;
};

class SimhashRun final : public ListedPairsRun<SimhashPair> {
 public:
  SimhashRun(MethodCollection c, const SimhashMethodOptions& o) : c_(std::move(c)), o_(o), words_(o.bits / 64) {
    c_.Materialize();
  }

  Status FindPairs(UnionFind* uf, DedupSummary* summary) override {
    std::vector<uint8_t> candidate(c_.n);
    uint64_t candidates = 0;
    for (uint32_t i = 0; i < c_.n; ++i) {
      candidate[i] = c_.exact_root[i] == i && c_.eligible[i];
      candidates += candidate[i];
    }
    SimhashIndexOptions io;
    io.bits = o_.bits;
    io.min_agreeing = o_.threshold;
    io.max_bucket_pages = c_.max_bucket_pages;
    SimhashIndexResult found = FindSimhashPairs(c_.words, candidate, io);
    summary->simhash_complete = found.complete;
    std::vector<uint8_t> has_pair(c_.n, 0);
    for (const SimhashPair& p : found.pairs) {
      uf->Union(p.a, p.b);
      has_pair[p.a] = has_pair[p.b] = 1;
    }
    summary->near_candidates = candidates;
    summary->near_pairs = found.pairs.size();
    summary->pages_with_near_duplicate = static_cast<uint64_t>(std::count(has_pair.begin(), has_pair.end(), 1));
    if (c_.collect_pairs) pairs_ = std::move(found.pairs);
    return Status::OK();
  }
  uint32_t SplitRoot(uint32_t p) const override { return c_.exact_root[p]; }
  PairDecision Decide(uint32_t a, uint32_t b) const override {
    return DecideSimhash(c_.word_at(a, words_), c_.word_at(b, words_), o_.bits, o_.threshold);
  }
  std::vector<PairColumn> PairColumns() const override { return {{"bits_agreeing", 0}}; }
  void PairValues(const SimhashPair& p, double* v) const override { v[0] = p.c_similarity; }
  void WriteSummary(const DedupSummary& s, const DedupOptions&, nlohmann::ordered_json* root) const override {
    WriteTableStageFigures(s, root);
  }

 private:
  MethodCollection c_;
  SimhashMethodOptions o_;
  uint32_t words_;
};

class SimhashMethod final : public MethodImpl {
 public:
  explicit SimhashMethod(const SimhashMethodOptions& o) : o_(o), sketcher_(ToSimhashOptions(o)) {}
  std::string name() const override { return "simhash"; }
  uint64_t clustering_bytes(uint64_t pages) const override { return (uint64_t{4} << 20) + 32 * pages; }
  std::string Spec() const override { return o_.Spec(); }
  size_t signature_words() const override { return o_.bits / 64; }
  std::string kernel() const override { return SimhashSketcher::KernelName(); }
  std::unique_ptr<SignScratch> NewScratch() const override { return std::make_unique<SimhashScratchBox>(); }
  void SignTokens(const Document&, const TokenizedDocument& tokens, SignScratch* scratch, uint64_t* words,
                  bool* eligible, std::string*) const override {
    *eligible = sketcher_.Sketch(tokens.term_hashes, &static_cast<SimhashScratchBox*>(scratch)->scratch, words);
    if (!*eligible) std::fill(words, words + signature_words(), 0);
  }
  PairDecision Compare(const Signature& a, const Signature& b) const override {
    if (!a.eligible || !b.eligible) return PairDecision{false, 0, "a page has no term"};
    return DecideSimhash(a.words.data(), b.words.data(), o_.bits, o_.threshold);
  }
  void TableKeys(const Signature& s, std::vector<uint64_t>* keys) const override {
    keys->clear();
    SimhashPieceKeys(s.words.data(), o_.bits, o_.threshold, 0, keys);
  }
  std::unique_ptr<MethodRun> NewRun(MethodCollection c) const override {
    return std::make_unique<SimhashRun>(std::move(c), o_);
  }

 private:
  SimhashMethodOptions o_;
  SimhashSketcher sketcher_;
};

}  // namespace

std::unique_ptr<MethodImpl> NewSimhashMethod(const SimhashMethodOptions& options) {
  return std::make_unique<SimhashMethod>(options);
}

}  // namespace neardup
