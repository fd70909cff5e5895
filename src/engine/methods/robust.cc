// `robust`, the default method (src/engine/robust_stage.h has the whole
// description): Henzinger's correct near duplicates after volatile terms
// are normalized, and pages of one site compared on what is not the site's
// boilerplate.
#include <xxhash.h>

#include <cstring>
#include <unordered_map>

#include "engine/methods/methods.h"
#include "engine/robust_stage.h"

namespace neardup {

Status ParseRobustSpec(std::string_view items, RobustMethodOptions* o) {
  for (const SpecItem& it : SplitSpecItems(items)) {
    uint64_t v = 0;
    auto as_u32 = [&](uint64_t lo, uint64_t hi, uint32_t* out) {
      NEARDUP_RETURN_IF_ERROR(ParseSpecUint("robust", it, lo, hi, &v));
      *out = static_cast<uint32_t>(v);
      return Status::OK();
    };
    Status s;
    if (it.key == "k") {
      s = as_u32(1, 64, &o->shingle_size);
    } else if (it.key == "m") {
      s = as_u32(1, 1024, &o->num_minhashes);
    } else if (it.key == "r") {
      s = as_u32(1, 1024, &o->band_rows);
    } else if (it.key == "template") {
      s = as_u32(2, 1u << 30, &o->template_min_pages);
    } else if (it.key == "content") {
      s = ParseSpecDouble("robust", it, 0, 1, &o->min_content_similarity);
    } else if (it.key == "no-template") {
      s = ParseSpecDouble("robust", it, 0, 1, &o->min_similarity_without_template);
    } else if (it.key == "edit") {
      s = as_u32(0, 40, &o->max_edit_shingles);
    } else if (it.key == "same-site-edit") {
      s = as_u32(0, 40, &o->max_same_site_edit_shingles);
    } else if ((it.key == "numbers" || it.key == "no-numbers") && !it.has_value) {
      o->normalize_numbers = it.key == "numbers";
    } else if ((it.key == "own-url" || it.key == "no-own-url") && !it.has_value) {
      o->normalize_own_url = it.key == "own-url";
    } else if (it.key == "seed") {
      s = ParseSpecUint("robust", it, 0, UINT64_MAX, &o->seed);
    } else {
      return UnknownSpecKey("robust", it,
                            "k=N, m=N, r=N, template=N, content=X, no-template=X, edit=N, same-site-edit=N, "
                            "numbers, no-numbers, own-url, no-own-url, seed=N");
    }
    NEARDUP_RETURN_IF_ERROR(s);
  }
  return Status::OK();
}

Status ValidateRobust(const RobustMethodOptions& o) {
  Status s = RobustSketchOptions(o).Validate();
  if (!s.ok()) return Status::InvalidArgument("robust: " + s.message());
  if (o.band_rows < 1 || o.band_rows > o.num_minhashes) {
    return Status::InvalidArgument("robust: band_rows must be in 1..num_minhashes");
  }
  if (o.max_edit_shingles > 40 || o.max_same_site_edit_shingles > 40) {
    return Status::InvalidArgument(
        "robust: max_edit_shingles and max_same_site_edit_shingles must be at most 40 (what 72 digest cells decode)");
  }
  if (o.template_min_pages < 2) return Status::InvalidArgument("robust: template_min_pages must be at least 2");
  if (!(o.min_content_similarity >= 0 && o.min_content_similarity <= 1) ||
      !(o.min_similarity_without_template >= 0 && o.min_similarity_without_template <= 1)) {
    return Status::InvalidArgument("robust: min_content_similarity must be in [0, 1]");
  }
  return Status::OK();
}

namespace {

// Signature words: [site][normalized identity][m min-hash values, two per
// word][kRobustDigestCells digest cells, when edits are looked for].
struct RobustLayout {
  uint32_t m = 0;
  bool digests = false;
  size_t min_words() const { return (m + 1) / 2; }
  size_t words() const { return 2 + min_words() + (digests ? kRobustDigestCells : 0); }
  size_t digest_at() const { return 2 + min_words(); }
};

uint64_t RobustSiteKey(std::string_view url) {
  const std::string site = RobustSiteOf(url);
  return XXH3_64bits(site.data(), site.size());
}

const char kEqualAfterNormalization[] =
    "equal after volatile terms and the own URL are normalized (Henzinger's correct near duplicates)";

class RobustScratch final : public SignScratch {
 public:
  SketchScratch sketch;
  std::vector<uint64_t> normalized;
  std::vector<uint32_t> mins;
};

class RobustRun final : public ListedPairsRun<RobustPair> {
 public:
  RobustRun(MethodCollection c, const RobustMethodOptions& o, RobustLayout l) : c_(std::move(c)), o_(o), l_(l) {
    const uint32_t n = c_.n;
    mins_.resize(size_t{n} * l_.m);
    sites_.resize(n);
    identity_.resize(n);
    if (l_.digests) digests_.resize(size_t{n} * kRobustDigestCells);
    c_.DrainPages(l_.words(), [&](uint32_t p, const uint64_t* w) {
      sites_[p] = w[0];
      identity_[p] = w[1];
      std::memcpy(mins_.data() + size_t{p} * l_.m, w + 2, l_.m * sizeof(uint32_t));
      if (l_.digests) {
        std::copy(w + l_.digest_at(), w + l_.digest_at() + kRobustDigestCells,
                  digests_.begin() + size_t{p} * kRobustDigestCells);
      }
    });
  }

  Status FindPairs(UnionFind* uf, DedupSummary* summary) override {
    const uint32_t n = c_.n;
    std::vector<uint8_t> candidate(n);
    for (uint32_t i = 0; i < n; ++i) candidate[i] = c_.exact_root[i] == i && c_.eligible[i];
    // Pages equal after normalization are correct near duplicates by
    // Henzinger's definition: joined directly; one page per such set goes on.
    std::unordered_map<uint64_t, uint32_t> first_with_identity;
    // Sites holding pages equal after normalization become one site.
    std::unordered_map<uint64_t, uint32_t> site_index;
    for (uint32_t i = 0; i < n; ++i) site_index.try_emplace(sites_[i], static_cast<uint32_t>(site_index.size()));
    UnionFind site_groups(static_cast<uint32_t>(site_index.size()));
    normalized_root_.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      normalized_root_[i] = c_.exact_root[i];
      if (!c_.eligible[i]) continue;
      auto [it, inserted] = first_with_identity.try_emplace(identity_[i], i);
      normalized_root_[i] = it->second;
      if (inserted) continue;
      // Every page equal to another (exact copies too) links the sites.
      site_groups.Union(site_index[sites_[it->second]], site_index[sites_[i]]);
      if (!candidate[i]) continue;
      if (!candidate[it->second]) {  // the first page was an exact copy: i goes on
        it->second = i;
        continue;
      }
      uf->Union(it->second, i);
      candidate[i] = 0;
      ++summary->normalized_identity_members;
    }
    for (uint32_t i = 0; i < n; ++i) sites_[i] = site_groups.Find(site_index[sites_[i]]);
    RobustStageResult found = RunRobustStage(mins_, sites_, digests_, candidate, o_, c_.max_bucket_pages,
                                             c_.collect_pairs, &templates_, uf);
    summary->near_candidates = found.candidates;
    summary->near_candidate_pairs = found.candidate_pairs;
    summary->near_pairs = found.pairs;
    summary->template_values = found.template_values;
    summary->pages_with_near_duplicate = found.pages_with_pair;
    pairs_ = std::move(found.pairs_found);
    return Status::OK();
  }
  uint32_t SplitRoot(uint32_t p) const override { return normalized_root_[p]; }
  RobustPageView View(uint32_t p) const {
    RobustPageView v;
    v.mins = mins_.data() + size_t{p} * l_.m;
    v.site = sites_[p];
    v.digest = l_.digests ? digests_.data() + size_t{p} * kRobustDigestCells : nullptr;
    return v;
  }
  PairDecision Decide(uint32_t a, uint32_t b) const override {
    if (identity_[a] != 0 && identity_[a] == identity_[b]) return PairDecision{true, 1.0, kEqualAfterNormalization};
    return RobustDecide(templates_, View(a), View(b), o_);
  }
  double Similarity(uint32_t page, uint32_t kept) const override {
    if (identity_[page] == identity_[kept]) return 1.0;
    return templates_.Compare(View(page).mins, View(kept).mins, l_.m).similarity();
  }
  std::vector<PairColumn> PairColumns() const override {
    return {{"content_similarity", 4}, {"content_positions", 0}};
  }
  void PairValues(const RobustPair& p, double* v) const override {
    v[0] = p.match.positions ? static_cast<double>(p.match.agreeing) / p.match.positions : 1.0;
    v[1] = p.match.positions;
  }
  void WriteSummary(const DedupSummary& s, const DedupOptions&, nlohmann::ordered_json* root) const override {
    nlohmann::ordered_json& near = (*root)["near_duplicates"];
    near["normalized_identity_members"] = s.normalized_identity_members;
    near["template_values"] = s.template_values;
    near["candidate_pairs"] = s.near_candidate_pairs;
  }

 private:
  MethodCollection c_;
  RobustMethodOptions o_;
  RobustLayout l_;
  std::vector<uint32_t> mins_;
  std::vector<uint64_t> sites_, identity_, digests_;
  std::vector<uint32_t> normalized_root_;
  SiteTemplates templates_;
};

class RobustMethod final : public MethodImpl {
 public:
  explicit RobustMethod(const RobustMethodOptions& o) : o_(o), sketcher_(RobustSketchOptions(o)) {
    l_.m = o.num_minhashes;
    l_.digests = o.max_edit_shingles > 0 || o.max_same_site_edit_shingles > 0;
  }
  std::string name() const override { return "robust"; }
  std::string Spec() const override { return o_.Spec(); }
  size_t signature_words() const override { return l_.words(); }
  std::string kernel() const override { return BroderSketcher::KernelName(); }
  bool learns_from_collection() const override { return true; }
  bool needs_term_text() const override { return true; }
  std::unique_ptr<SignScratch> NewScratch() const override { return std::make_unique<RobustScratch>(); }
  void SignTokens(const Document& doc, const TokenizedDocument& tokens, SignScratch* scratch, uint64_t* words,
                  bool* eligible, std::string*) const override {
    auto* s = static_cast<RobustScratch*>(scratch);
    s->mins.assign(l_.m, 0);
    std::fill(words, words + l_.words(), 0);
    const RobustSignature sig =
        ComputeRobustSignature(tokens, doc.url, o_, sketcher_, &s->sketch, &s->normalized, s->mins.data(),
                               l_.digests ? words + l_.digest_at() : nullptr);
    *eligible = sig.has_sketch;
    words[0] = RobustSiteKey(doc.url);
    words[1] = sig.identity;
    if (sig.has_sketch) {
      std::memcpy(words + 2, s->mins.data(), l_.m * sizeof(uint32_t));
    } else if (l_.digests) {
      std::fill(words + l_.digest_at(), words + l_.words(), 0);
    }
  }
  PairDecision Compare(const Signature& a, const Signature& b) const override {
    if (!a.eligible || !b.eligible) {
      return PairDecision{false, 0, "a page has no term but volatile ones: only exact copies are matched"};
    }
    if (a.words[1] == b.words[1]) return PairDecision{true, 1.0, kEqualAfterNormalization};
    std::vector<uint32_t> ma(l_.m), mb(l_.m);
    std::memcpy(ma.data(), a.words.data() + 2, l_.m * sizeof(uint32_t));
    std::memcpy(mb.data(), b.words.data() + 2, l_.m * sizeof(uint32_t));
    RobustPageView va{ma.data(), a.words[0], l_.digests ? a.words.data() + l_.digest_at() : nullptr};
    RobustPageView vb{mb.data(), b.words[0], l_.digests ? b.words.data() + l_.digest_at() : nullptr};
    return RobustDecide(SiteTemplates(), va, vb, o_);
  }
  // Bands of r consecutive min-hash values (no boilerplate is known to the
  // incremental index, so every band is a key), and the normalized identity.
  void TableKeys(const Signature& s, std::vector<uint64_t>* keys) const override {
    keys->clear();
    keys->push_back(s.words[1]);
    std::vector<uint32_t> mins(l_.m);
    std::memcpy(mins.data(), s.words.data() + 2, l_.m * sizeof(uint32_t));
    for (uint32_t b = 0; b + o_.band_rows <= l_.m; b += o_.band_rows) {
      keys->push_back(XXH3_64bits_withSeed(mins.data() + b, o_.band_rows * sizeof(uint32_t), b + 1));
    }
  }
  std::unique_ptr<MethodRun> NewRun(MethodCollection c) const override {
    return std::make_unique<RobustRun>(std::move(c), o_, l_);
  }

 private:
  RobustMethodOptions o_;
  BroderSketcher sketcher_;
  RobustLayout l_;
};

}  // namespace

std::unique_ptr<MethodImpl> NewRobustMethod(const RobustMethodOptions& options) {
  return std::make_unique<RobustMethod>(options);
}

}  // namespace neardup
