// `paragraphs`: shingle paragraphs as Pereira, Baeza-Yates and Ziviani
// compare documents ("Where and How Duplicates Occur in the Web", §2-4):
// runs of 3 sentences hashed, documents over 450 characters compared by the
// m-pass algorithm within the memory budget. Batch-only: the algorithm is
// defined over a whole collection spilled to disk.
#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/methods/methods.h"
#include "engine/paragraph_stage.h"
#include "engine/text_units.h"

namespace neardup {

std::string ParagraphMethodOptions::Spec() const {
  return "paragraphs:sentences=" + std::to_string(sentences_per_paragraph) +
         ",min-chars=" + std::to_string(min_text_chars) + ",min-shared=" + std::to_string(min_shared_percent);
}

Status ParseParagraphSpec(std::string_view items, ParagraphMethodOptions* o) {
  for (const SpecItem& it : SplitSpecItems(items)) {
    uint64_t v = 0;
    if (it.key == "sentences") {
      NEARDUP_RETURN_IF_ERROR(ParseSpecUint("paragraphs", it, 1, 100, &v));
      o->sentences_per_paragraph = static_cast<uint32_t>(v);
    } else if (it.key == "min-chars") {
      NEARDUP_RETURN_IF_ERROR(ParseSpecUint("paragraphs", it, 0, UINT32_MAX, &v));
      o->min_text_chars = static_cast<uint32_t>(v);
    } else if (it.key == "min-shared") {
      NEARDUP_RETURN_IF_ERROR(ParseSpecUint("paragraphs", it, 1, 100, &v));
      o->min_shared_percent = static_cast<uint32_t>(v);
    } else {
      return UnknownSpecKey("paragraphs", it, "sentences=N, min-chars=N, min-shared=N");
    }
  }
  return Status::OK();
}

Status ValidateParagraphs(const ParagraphMethodOptions& o) {
  if (o.sentences_per_paragraph < 1 || o.sentences_per_paragraph > 100) {
    return Status::InvalidArgument("paragraphs: sentences_per_paragraph must be in 1..100");
  }
  if (o.min_shared_percent < 1 || o.min_shared_percent > 100) {
    return Status::InvalidArgument("paragraphs: min_shared_percent must be in 1..100");
  }
  return Status::OK();
}

namespace {

class ParagraphScratch final : public SignScratch {
 public:
  std::vector<uint64_t> paragraphs;
};

// f(A->B), f(B->A) and the multiset intersection of two sorted lists.
PairDecision DecideSorted(const uint64_t* a, size_t na, const uint64_t* b, size_t nb, uint32_t min_shared) {
  uint64_t from_a = 0, from_b = 0, common = 0;
  size_t i = 0, j = 0;
  while (i < na && j < nb) {
    if (a[i] < b[j]) {
      ++i;
    } else if (b[j] < a[i]) {
      ++j;
    } else {
      size_t ei = i, ej = j;
      while (ei < na && a[ei] == a[i]) ++ei;
      while (ej < nb && b[ej] == b[j]) ++ej;
      from_a += ei - i;
      from_b += ej - j;
      common += std::min(ei - i, ej - j);
      i = ei;
      j = ej;
    }
  }
  return ParagraphDecide(from_a, from_b, common, static_cast<uint32_t>(na), static_cast<uint32_t>(nb), min_shared);
}

class ParagraphRun final : public ListedPairsRun<NearPair> {
 public:
  ParagraphRun(MethodCollection c, const ParagraphMethodOptions& o) : c_(std::move(c)), o_(o) { c_.Materialize(); }

  Status FindPairs(UnionFind* uf, DedupSummary* summary) override {
    const uint32_t n = c_.n;
    std::vector<uint32_t> counts(n);
    std::vector<uint64_t> keys(n);
    for (uint32_t i = 0; i < n; ++i) {
      keys[i] = c_.words[size_t{i} * 2];
      counts[i] = static_cast<uint32_t>(c_.words[size_t{i} * 2 + 1]);
      summary->short_documents += counts[i] == 0;
    }
    ParagraphStageOptions po;
    po.min_shared_percent = o_.min_shared_percent;
    po.table_budget_bytes = c_.memory_budget;
    po.collect_pairs = c_.collect_pairs;
    summary->paragraph_table_budget_bytes = c_.memory_budget;
    NEARDUP_ASSIGN_OR_RETURN(ParagraphStageResult r, RunParagraphStage(c_.env, c_.units_path, counts, keys, po, uf));
    summary->near_candidates = r.eligible_documents;
    summary->near_pairs = r.pairs;
    summary->near_candidate_pairs = r.comparisons;
    summary->paragraph_passes = r.passes;
    if (!r.passes.empty()) {
      const size_t m = r.passes.size();
      const double final_dups = static_cast<double>(r.passes.back().duplicates);
      auto at = [&](double share, double* estimate, double* error) {
        const size_t k = std::max<size_t>(1, static_cast<size_t>(std::ceil(share * m))) - 1;
        *estimate = r.passes[k].estimated_final_duplicates;
        *error = final_dups > 0 ? (*estimate - final_dups) / final_dups : 0.0;
      };
      at(0.2, &summary->estimate_at_20_percent, &summary->estimate_error_at_20_percent);
      at(0.5, &summary->estimate_at_50_percent, &summary->estimate_error_at_50_percent);
    }
    pairs_ = std::move(r.pairs_found);
    share_ = std::move(r.best_share);
    summary->pages_with_near_duplicate = static_cast<uint64_t>(
        std::count_if(share_.begin(), share_.end(), [](float v) { return v > 0; }));
    return Status::OK();
  }
  bool verifies() const override { return false; }
  uint32_t SplitRoot(uint32_t p) const override { return c_.exact_root[p]; }
  // The clusters are the connected components of the pairs (no
  // verification), so the column holds the page's best pair share.
  double Similarity(uint32_t page, uint32_t) const override { return share_[page]; }
  std::vector<PairColumn> PairColumns() const override {
    return {{"shared_percentage", 2}, {"paragraphs_of_both", 0}};
  }
  void PairValues(const NearPair& p, double* v) const override {
    v[0] = p.content_positions ? 100.0 * p.content_agreeing / p.content_positions : 100.0;
    v[1] = p.content_positions;
  }
  void WriteSummary(const DedupSummary& s, const DedupOptions& o, nlohmann::ordered_json* root) const override {
    (*root)["near_duplicates"]["comparisons"] = s.near_candidate_pairs;
    nlohmann::ordered_json passes = nlohmann::ordered_json::array();
    for (const ParagraphPass& p : s.paragraph_passes) {
      passes.push_back({{"pass", p.pass},
                        {"first_document", p.first_document},
                        {"end_document", p.end_document},
                        {"documents_loaded", p.documents_loaded},
                        {"paragraphs_loaded", p.paragraphs_loaded},
                        {"clusters", p.clusters},
                        {"duplicates", p.duplicates},
                        {"estimated_final_duplicates", p.estimated_final_duplicates},
                        {"seconds", p.seconds}});
    }
    const uint64_t final_dups = s.paragraph_passes.empty() ? 0 : s.paragraph_passes.back().duplicates;
    (*root)["paragraphs"] = {
        {"min_text_chars", o_.min_text_chars},
        {"short_documents", s.short_documents},
        {"eligible_documents", s.near_candidates},
        {"min_shared_percent", o_.min_shared_percent},
        {"memory_bytes", o.memory_bytes},
        {"table_budget_bytes", s.paragraph_table_budget_bytes},
        {"passes", passes},
        {"final_duplicates", final_dups},
        {"estimate",
         {{"method", "Horvitz-Thompson over the clusters found: (s - 1) / (1 - (1 - loaded)^s)"},
          {"at_20_percent_of_passes", s.estimate_at_20_percent},
          {"relative_error_at_20_percent", s.estimate_error_at_20_percent},
          {"at_50_percent_of_passes", s.estimate_at_50_percent},
          {"relative_error_at_50_percent", s.estimate_error_at_50_percent}}},
    };
  }

 private:
  MethodCollection c_;
  ParagraphMethodOptions o_;
  std::vector<float> share_;
};

class ParagraphMethod final : public MethodImpl {
 public:
  explicit ParagraphMethod(const ParagraphMethodOptions& o) : o_(o) {}
  std::string name() const override { return "paragraphs"; }
  std::string Spec() const override { return o_.Spec(); }
  bool batch_only() const override { return true; }
  // [hash of the sorted paragraph list, number of paragraphs (0: left out)]
  size_t signature_words() const override { return 2; }
  std::unique_ptr<SignScratch> NewScratch() const override { return std::make_unique<ParagraphScratch>(); }
  void SignTokens(const Document&, const TokenizedDocument& tokens, SignScratch* scratch, uint64_t* words,
                  bool* eligible, std::string* units) const override {
    auto* s = static_cast<ParagraphScratch*>(scratch);
    words[0] = words[1] = 0;
    *eligible = false;
    if (tokens.text_chars <= o_.min_text_chars) return;  // Pereira et al. §4: over 450 characters
    ShingleParagraphs(tokens, o_.sentences_per_paragraph, &s->paragraphs);
    std::sort(s->paragraphs.begin(), s->paragraphs.end());
    words[0] = XXH3_64bits(s->paragraphs.data(), s->paragraphs.size() * sizeof(uint64_t));
    words[1] = s->paragraphs.size();
    *eligible = !s->paragraphs.empty();
    units->append(reinterpret_cast<const char*>(s->paragraphs.data()), s->paragraphs.size() * sizeof(uint64_t));
  }
  // The m-pass spill record: page, count, sorted hashes (paragraph_stage.h).
  void AppendUnitRecord(uint32_t page, std::string_view units, std::string* spill) const override {
    if (units.empty()) return;
    const uint32_t head[2] = {page, static_cast<uint32_t>(units.size() / sizeof(uint64_t))};
    spill->append(reinterpret_cast<const char*>(head), sizeof head);
    spill->append(units);
  }
  PairDecision Compare(const Signature& a, const Signature& b) const override {
    if (!a.eligible || !b.eligible) {
      return PairDecision{false, 0, "a page has " + std::to_string(o_.min_text_chars) +
                                        " characters of text or fewer and is left out (Pereira et al. §4)"};
    }
    const std::vector<uint64_t> x = UnitsOf<uint64_t>(a), y = UnitsOf<uint64_t>(b);
    return DecideSorted(x.data(), x.size(), y.data(), y.size(), o_.min_shared_percent);
  }
  void TableKeys(const Signature&, std::vector<uint64_t>* keys) const override { keys->clear(); }
  std::unique_ptr<MethodRun> NewRun(MethodCollection c) const override {
    return std::make_unique<ParagraphRun>(std::move(c), o_);
  }

 private:
  ParagraphMethodOptions o_;
};

}  // namespace

std::unique_ptr<MethodImpl> NewParagraphMethod(const ParagraphMethodOptions& options) {
  return std::make_unique<ParagraphMethod>(options);
}

}  // namespace neardup
