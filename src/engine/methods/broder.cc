// `broder`: Broder shingling as Fetterly, Manasse and Najork ("On the
// Evolution of Clusters of Near-Duplicate Web Pages", §2) and Henzinger's
// Algorithm B run it: m' supershingles per page, pages sharing a
// megashingle (two supershingles at positions i < j) are candidates, and
// the rule is B-similarity (supershingles agreeing) >= 2 ("very similar") or
// = m' ("virtually identical").
#include <xxhash.h>

#include "index/megashingle_tables.h"
#include "engine/method_options.h"
#include "engine/methods/methods.h"
#include "sketch/broder.h"

namespace neardup {

std::string BroderMethodOptions::Spec() const {
  return "broder:k=" + std::to_string(shingle_size) + (effective_wrap() ? ",wrap" : ",no-wrap") +
         ",m=" + std::to_string(num_minhashes) + ",l=" + std::to_string(supershingle_size) +
         ",family=" + (rabin_family ? "rabin" : "fast") + ",seed=" + std::to_string(seed) +
         ",level=" + (level == NearLevel::kVerySimilar ? "very-similar" : "virtually-identical");
}

Status ParseBroderSpec(std::string_view items, BroderMethodOptions* o) {
  for (const SpecItem& it : SplitSpecItems(items)) {
    uint64_t v = 0;
    if (it.key == "k") {
      NEARDUP_RETURN_IF_ERROR(ParseSpecUint("broder", it, 1, 64, &v));
      o->shingle_size = static_cast<uint32_t>(v);
    } else if (it.key == "wrap" && !it.has_value) {
      o->wrap = 1;
    } else if (it.key == "no-wrap" && !it.has_value) {
      o->wrap = 0;
    } else if (it.key == "m") {
      NEARDUP_RETURN_IF_ERROR(ParseSpecUint("broder", it, 1, 1024, &v));
      o->num_minhashes = static_cast<uint32_t>(v);
    } else if (it.key == "l") {
      NEARDUP_RETURN_IF_ERROR(ParseSpecUint("broder", it, 1, 1024, &v));
      o->supershingle_size = static_cast<uint32_t>(v);
    } else if (it.key == "family" && (it.value == "fast" || it.value == "rabin")) {
      o->rabin_family = it.value == "rabin";
    } else if (it.key == "seed") {
      NEARDUP_RETURN_IF_ERROR(ParseSpecUint("broder", it, 0, UINT64_MAX, &o->seed));
    } else if (it.key == "level" && (it.value == "very-similar" || it.value == "virtually-identical")) {
      o->level = it.value == "very-similar" ? NearLevel::kVerySimilar : NearLevel::kVirtuallyIdentical;
    } else {
      return UnknownSpecKey("broder", it,
                            "k=N, wrap, no-wrap, m=N, l=N, family=fast|rabin, seed=N, "
                            "level=very-similar|virtually-identical");
    }
  }
  return Status::OK();
}

Status ValidateBroder(const BroderMethodOptions& o) {
  Status s = ToSketchOptions(o).Validate();
  if (!s.ok()) return Status::InvalidArgument("broder: " + s.message());
  if (o.num_minhashes / o.supershingle_size < 2) {
    return Status::InvalidArgument("broder: m / l must give at least 2 supershingles");
  }
  if (o.num_minhashes / o.supershingle_size > 16) {
    return Status::InvalidArgument("broder: m / l must give at most 16 supershingles");
  }
  return Status::OK();
}

namespace {

class BroderScratch final : public SignScratch {
 public:
  SketchScratch sketch;
};

uint32_t NeedAgreeing(const BroderMethodOptions& o, uint32_t m_prime) {
  return o.level == NearLevel::kVirtuallyIdentical ? m_prime : 2;
}

PairDecision DecideBroder(const uint64_t* a, const uint64_t* b, uint32_t m_prime, uint32_t need) {
  PairDecision d;
  const uint32_t agreeing = static_cast<uint32_t>(BSimilarity(a, b, m_prime));
  d.similarity = static_cast<double>(agreeing) / m_prime;
  d.duplicate = agreeing >= need;
  d.reason = std::to_string(agreeing) + " of " + std::to_string(m_prime) + " supershingles agree (B-similarity; " +
             (d.duplicate ? "at least " : "fewer than ") + std::to_string(need) + " needed)";
  return d;
}

class BroderRun final : public ListedPairsRun<NearPair> {
 public:
  BroderRun(MethodCollection c, const BroderMethodOptions& o, uint32_t m_prime)
      : c_(std::move(c)), o_(o), m_prime_(m_prime) {
    c_.Materialize();
  }

  Status FindPairs(UnionFind* uf, DedupSummary* summary) override {
    std::vector<uint8_t> candidate(c_.n);
    for (uint32_t i = 0; i < c_.n; ++i) candidate[i] = c_.exact_root[i] == i && c_.eligible[i];
    BroderStageOptions so;
    so.num_supershingles = m_prime_;
    so.virtually_identical = o_.level == NearLevel::kVirtuallyIdentical;
    so.max_bucket_pages = c_.max_bucket_pages;
    so.collect_pairs = c_.collect_pairs;
    BroderStageResult near = RunBroderStage(c_.words, candidate, so, uf);
    summary->near_candidates = near.candidates;
    summary->near_pairs = near.pairs;
    summary->near_pairs_not_listed = near.pairs_not_listed;
    summary->pages_with_near_duplicate = near.pages_with_near_duplicate;
    summary->megashingle_collisions = near.megashingle_collisions;
    summary->pairs_by_b_similarity.assign(near.pairs_by_b_similarity.begin(),
                                          near.pairs_by_b_similarity.begin() + m_prime_ + 1);
    pairs_ = std::move(near.pairs_found);
    return Status::OK();
  }
  uint32_t SplitRoot(uint32_t p) const override { return c_.exact_root[p]; }
  PairDecision Decide(uint32_t a, uint32_t b) const override {
    return DecideBroder(c_.word_at(a, m_prime_), c_.word_at(b, m_prime_), m_prime_, NeedAgreeing(o_, m_prime_));
  }
  std::vector<PairColumn> PairColumns() const override { return {{"supershingles_shared", 0}}; }
  void PairValues(const NearPair& p, double* v) const override { v[0] = p.b_similarity; }
  void WriteSummary(const DedupSummary& s, const DedupOptions&, nlohmann::ordered_json* root) const override {
    WriteTableStageFigures(s, root);
  }

 private:
  MethodCollection c_;
  BroderMethodOptions o_;
  uint32_t m_prime_;
};

class BroderMethod final : public MethodImpl {
 public:
  explicit BroderMethod(const BroderMethodOptions& o)
      : o_(o), sketcher_(ToSketchOptions(o)), m_prime_(sketcher_.options().num_supershingles()) {}
  std::string name() const override { return "broder"; }
  uint64_t clustering_bytes(uint64_t pages) const override { return (uint64_t{4} << 20) + 28 * pages; }
  std::string Spec() const override { return o_.Spec(); }
  size_t signature_words() const override { return m_prime_; }
  std::string kernel() const override { return BroderSketcher::KernelName(); }
  std::unique_ptr<SignScratch> NewScratch() const override { return std::make_unique<BroderScratch>(); }
  void SignTokens(const Document&, const TokenizedDocument& tokens, SignScratch* scratch, uint64_t* words,
                  bool* eligible, std::string*) const override {
    *eligible = sketcher_.Sketch(tokens.term_hashes, &static_cast<BroderScratch*>(scratch)->sketch, words);
    if (!*eligible) std::fill(words, words + m_prime_, 0);
  }
  PairDecision Compare(const Signature& a, const Signature& b) const override {
    if (!a.eligible || !b.eligible) return PairDecision{false, 0, "a page has no shingle"};
    return DecideBroder(a.words.data(), b.words.data(), m_prime_, NeedAgreeing(o_, m_prime_));
  }
  // Megashingles: every pair (i, j) of supershingles, keyed by its table.
  void TableKeys(const Signature& s, std::vector<uint64_t>* keys) const override {
    keys->clear();
    if (o_.level == NearLevel::kVirtuallyIdentical) {
      keys->push_back(XXH3_64bits(s.words.data(), m_prime_ * sizeof(uint64_t)));
      return;
    }
    for (uint32_t i = 0; i < m_prime_; ++i) {
      for (uint32_t j = i + 1; j < m_prime_; ++j) {
        const uint64_t pair[3] = {s.words[i], s.words[j], (uint64_t{i} << 32) | j};
        keys->push_back(XXH3_64bits(pair, sizeof pair));
      }
    }
  }
  std::unique_ptr<MethodRun> NewRun(MethodCollection c) const override {
    return std::make_unique<BroderRun>(std::move(c), o_, m_prime_);
  }

 private:
  BroderMethodOptions o_;
  BroderSketcher sketcher_;
  uint32_t m_prime_;
};

}  // namespace

std::unique_ptr<MethodImpl> NewBroderMethod(const BroderMethodOptions& options) {
  return std::make_unique<BroderMethod>(options);
}

}  // namespace neardup
