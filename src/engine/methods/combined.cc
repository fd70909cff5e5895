// `combined`: Henzinger's combined algorithm (§3.5) with the refinement she
// proposes at its end: pairs on one site (Henzinger's site: the host minus
// its first label when it has two or more dots) must be B-similar with a
// C-similarity of at least same-site-t (355); pairs on different sites are
// taken from simhash at t.
#include <xxhash.h>

#include <algorithm>

#include "index/megashingle_tables.h"
#include "engine/method_options.h"
#include "engine/methods/methods.h"
#include "engine/methods/simhash_keys.h"
#include "index/simhash_index.h"
#include "text/site.h"
#include "sketch/broder.h"
#include "sketch/simhash.h"

namespace neardup {

PairDecision DecideSimhash(const uint64_t* a, const uint64_t* b, uint32_t bits, uint32_t threshold);

Status ParseCombinedSpec(std::string_view items, BroderMethodOptions* broder, SimhashMethodOptions* simhash) {
  if (items.empty()) return Status::OK();
  const size_t semi = items.find(';');
  std::string_view b = items.substr(0, semi);
  std::string_view s = semi == std::string_view::npos ? std::string_view() : items.substr(semi + 1);
  if (b.substr(0, 7) != "broder:" || (!s.empty() && s.substr(0, 8) != "simhash:")) {
    return Status::InvalidArgument(
        "combined: the spec is combined:broder:KEYS;simhash:KEYS,same-site-t=N (e.g. " +
        ("combined:" + BroderMethodOptions().Spec() + ";" + SimhashMethodOptions().Spec() + ",same-site-t=355") +
        ")");
  }
  NEARDUP_RETURN_IF_ERROR(ParseBroderSpec(b.substr(7), broder));
  if (!s.empty()) NEARDUP_RETURN_IF_ERROR(ParseSimhashSpec(s.substr(8), simhash));
  return Status::OK();
}

namespace {

class CombinedScratch final : public SignScratch {
 public:
  SketchScratch sketch;
  SimhashScratch simhash;
};

struct CombinedLayout {
  uint32_t m_prime, sim_words;
  size_t words() const { return m_prime + sim_words + 1; }
  size_t site() const { return m_prime + sim_words; }
};

PairDecision DecideCombined(const uint64_t* a, const uint64_t* b, const CombinedLayout& l,
                            const SimhashMethodOptions& so, uint32_t need) {
  const uint32_t bits = so.bits;
  const uint32_t c = static_cast<uint32_t>(CSimilarity(a + l.m_prime, b + l.m_prime, bits));
  PairDecision d;
  d.similarity = static_cast<double>(c) / bits;
  if (a[l.site()] == b[l.site()]) {
    const uint32_t bs = static_cast<uint32_t>(BSimilarity(a, b, l.m_prime));
    d.duplicate = bs >= need && c >= so.combined_threshold;
    d.reason = "same site: " + std::to_string(bs) + " of " + std::to_string(l.m_prime) +
               " supershingles agree (at least " + std::to_string(need) + " needed) and " + std::to_string(c) +
               " of " + std::to_string(bits) + " bits (at least " + std::to_string(so.combined_threshold) + ")";
    return d;
  }
  d.duplicate = c >= so.threshold;
  d.reason = "different sites: " + std::to_string(c) + " of " + std::to_string(bits) + " bits agree (at least " +
             std::to_string(so.threshold) + " needed)";
  return d;
}

class CombinedRun final : public ListedPairsRun<NearPair> {
 public:
  CombinedRun(MethodCollection c, const BroderMethodOptions& bo, const SimhashMethodOptions& so, CombinedLayout l)
      : c_(std::move(c)), bo_(bo), so_(so), l_(l) {
    // Deinterleave into the stages' layouts.
    sigs_.resize(size_t{c_.n} * l_.m_prime);
    sims_.resize(size_t{c_.n} * l_.sim_words);
    sites_.resize(c_.n);
    c_.DrainPages(l_.words(), [&](uint32_t p, const uint64_t* w) {
      std::copy(w, w + l_.m_prime, sigs_.begin() + size_t{p} * l_.m_prime);
      std::copy(w + l_.m_prime, w + l_.m_prime + l_.sim_words, sims_.begin() + size_t{p} * l_.sim_words);
      sites_[p] = w[l_.site()];
    });
  }

  uint32_t csim(uint32_t a, uint32_t b) const {
    return static_cast<uint32_t>(CSimilarity(sims_.data() + size_t{a} * l_.sim_words,
                                             sims_.data() + size_t{b} * l_.sim_words, so_.bits));
  }

  Status FindPairs(UnionFind* uf, DedupSummary* summary) override {
    std::vector<uint8_t> candidate(c_.n);
    for (uint32_t i = 0; i < c_.n; ++i) candidate[i] = c_.exact_root[i] == i && c_.eligible[i];
    std::vector<uint8_t> has_pair(c_.n, 0);
    BroderStageOptions bso;
    bso.num_supershingles = l_.m_prime;
    bso.virtually_identical = bo_.level == NearLevel::kVirtuallyIdentical;
    bso.max_bucket_pages = c_.max_bucket_pages;
    bso.collect_pairs = true;
    // Henzinger §3.5: B-similar pairs kept where C-similarity is high
    // enough; by her proposed refinement only pairs on one site.
    bso.accept = [&](uint32_t a, uint32_t b) { return sites_[a] == sites_[b] && csim(a, b) >= so_.combined_threshold; };
    BroderStageResult near = RunBroderStage(sigs_, candidate, bso, uf);
    summary->near_candidates = near.candidates;
    summary->near_pairs = near.pairs;
    summary->near_pairs_not_listed = near.pairs_not_listed;
    summary->megashingle_collisions = near.megashingle_collisions;
    summary->pairs_by_b_similarity.assign(near.pairs_by_b_similarity.begin(),
                                          near.pairs_by_b_similarity.begin() + l_.m_prime + 1);
    for (NearPair& p : near.pairs_found) {
      p.c_similarity = csim(p.a, p.b);
      has_pair[p.a] = has_pair[p.b] = 1;
    }
    if (c_.collect_pairs) pairs_ = std::move(near.pairs_found);
    // Pairs on different sites: simhash's candidates and rule.
    SimhashIndexOptions io;
    io.bits = so_.bits;
    io.min_agreeing = so_.threshold;
    io.max_bucket_pages = c_.max_bucket_pages;
    SimhashIndexResult found = FindSimhashPairs(sims_, candidate, io);
    summary->simhash_complete = found.complete;
    uint64_t taken = 0;
    for (const SimhashPair& p : found.pairs) {
      if (sites_[p.a] == sites_[p.b]) continue;  // same site: the combined rule
      uf->Union(p.a, p.b);
      has_pair[p.a] = has_pair[p.b] = 1;
      ++taken;
      if (c_.collect_pairs) {
        const uint32_t b_sim = static_cast<uint32_t>(BSimilarity(sigs_.data() + size_t{p.a} * l_.m_prime,
                                                                 sigs_.data() + size_t{p.b} * l_.m_prime, l_.m_prime));
        pairs_.push_back(NearPair{p.a, p.b, b_sim, p.c_similarity});
      }
    }
    summary->near_pairs += taken;
    summary->pages_with_near_duplicate = static_cast<uint64_t>(std::count(has_pair.begin(), has_pair.end(), 1));
    std::sort(pairs_.begin(), pairs_.end(),
              [](const NearPair& x, const NearPair& y) { return x.a != y.a ? x.a < y.a : x.b < y.b; });
    return Status::OK();
  }
  uint32_t SplitRoot(uint32_t p) const override { return c_.exact_root[p]; }
  PairDecision Decide(uint32_t a, uint32_t b) const override {
    // The rule on this run's deinterleaved columns, through one page buffer.
    std::vector<uint64_t> x(l_.words()), y(l_.words());
    auto gather = [&](uint32_t p, std::vector<uint64_t>* w) {
      std::copy(sigs_.begin() + size_t{p} * l_.m_prime, sigs_.begin() + size_t{p + 1} * l_.m_prime, w->begin());
      std::copy(sims_.begin() + size_t{p} * l_.sim_words, sims_.begin() + size_t{p + 1} * l_.sim_words,
                w->begin() + l_.m_prime);
      (*w)[l_.site()] = sites_[p];
    };
    gather(a, &x);
    gather(b, &y);
    return DecideCombined(x.data(), y.data(), l_, so_, bo_.level == NearLevel::kVirtuallyIdentical ? l_.m_prime : 2);
  }
  std::vector<PairColumn> PairColumns() const override {
    return {{"supershingles_shared", 0}, {"bits_agreeing", 0}};
  }
  void PairValues(const NearPair& p, double* v) const override {
    v[0] = p.b_similarity;
    v[1] = p.c_similarity;
  }
  void WriteSummary(const DedupSummary& s, const DedupOptions&, nlohmann::ordered_json* root) const override {
    WriteTableStageFigures(s, root);
  }

 private:
  MethodCollection c_;
  BroderMethodOptions bo_;
  SimhashMethodOptions so_;
  CombinedLayout l_;
  std::vector<uint64_t> sigs_, sims_, sites_;
};

class CombinedMethod final : public MethodImpl {
 public:
  CombinedMethod(const BroderMethodOptions& bo, const SimhashMethodOptions& so)
      : bo_(bo), so_(so), broder_(ToSketchOptions(bo)), simhash_(ToSimhashOptions(so)) {
    l_.m_prime = broder_.options().num_supershingles();
    l_.sim_words = simhash_.options().words();
  }
  std::string name() const override { return "combined"; }
  uint64_t clustering_bytes(uint64_t pages) const override { return (uint64_t{4} << 20) + 112 * pages; }
  std::string Spec() const override {
    return "combined:" + bo_.Spec() + ";" + so_.Spec() + ",same-site-t=" + std::to_string(so_.combined_threshold);
  }
  size_t signature_words() const override { return l_.words(); }
  std::string kernel() const override {
    return std::string(BroderSketcher::KernelName()) + "+" + SimhashSketcher::KernelName();
  }
  std::unique_ptr<SignScratch> NewScratch() const override { return std::make_unique<CombinedScratch>(); }
  void SignTokens(const Document& doc, const TokenizedDocument& tokens, SignScratch* scratch, uint64_t* words,
                  bool* eligible, std::string*) const override {
    auto* s = static_cast<CombinedScratch*>(scratch);
    const bool has_b = broder_.Sketch(tokens.term_hashes, &s->sketch, words);
    if (!has_b) std::fill(words, words + l_.m_prime, 0);
    const bool has_c = simhash_.Sketch(tokens.term_hashes, &s->simhash, words + l_.m_prime);
    if (!has_c) std::fill(words + l_.m_prime, words + l_.m_prime + l_.sim_words, 0);
    const std::string site = SiteOfUrl(doc.url);
    words[l_.site()] = XXH3_64bits(site.data(), site.size());
    *eligible = has_b && has_c;
  }
  PairDecision Compare(const Signature& a, const Signature& b) const override {
    if (!a.eligible || !b.eligible) return PairDecision{false, 0, "a page has no shingle"};
    return DecideCombined(a.words.data(), b.words.data(), l_, so_,
                          bo_.level == NearLevel::kVirtuallyIdentical ? l_.m_prime : 2);
  }
  void TableKeys(const Signature& s, std::vector<uint64_t>* keys) const override {
    keys->clear();
    for (uint32_t i = 0; i < l_.m_prime; ++i) {
      for (uint32_t j = i + 1; j < l_.m_prime; ++j) {
        const uint64_t pair[3] = {s.words[i], s.words[j], (uint64_t{i} << 32) | j};
        keys->push_back(XXH3_64bits(pair, sizeof pair));
      }
    }
    SimhashPieceKeys(s.words.data() + l_.m_prime, so_.bits, so_.threshold, 1, keys);
  }
  std::unique_ptr<MethodRun> NewRun(MethodCollection c) const override {
    return std::make_unique<CombinedRun>(std::move(c), bo_, so_, l_);
  }

 private:
  BroderMethodOptions bo_;
  SimhashMethodOptions so_;
  BroderSketcher broder_;
  SimhashSketcher simhash_;
  CombinedLayout l_;
};

}  // namespace

std::unique_ptr<MethodImpl> NewCombinedMethod(const BroderMethodOptions& broder, const SimhashMethodOptions& simhash) {
  return std::make_unique<CombinedMethod>(broder, simhash);
}

}  // namespace neardup
