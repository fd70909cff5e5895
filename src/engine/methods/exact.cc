// `exact`: identity sets only (equal token sequences, equal bytes), as
// Shivakumar and Garcia-Molina and Henzinger remove exact copies first. The
// Deduper forms those sets for every method; this method adds nothing.
#include "base/hash.h"
#include "engine/methods/methods.h"

namespace neardup {

namespace {

class ExactRun final : public MethodRun {
 public:
  explicit ExactRun(MethodCollection c) : c_(std::move(c)) { c_.Materialize(); }
  Status FindPairs(UnionFind*, DedupSummary*) override { return Status::OK(); }
  bool verifies() const override { return false; }
  uint32_t SplitRoot(uint32_t p) const override { return c_.exact_root[p]; }
  PairDecision Decide(uint32_t a, uint32_t b) const override {
    PairDecision d;
    d.duplicate = c_.exact_root[a] == c_.exact_root[b];
    d.similarity = d.duplicate ? 1 : 0;
    d.reason = d.duplicate ? "same token sequence or same bytes" : "neither the tokens nor the bytes are equal";
    return d;
  }
  std::vector<PairColumn> PairColumns() const override { return {}; }
  bool HasPairs() const override { return false; }
  void MarkPairMembers(std::vector<uint8_t>*) const override {}
  Status ForEachPair(const PairVisitor&) override { return Status::OK(); }
  void WriteSummary(const DedupSummary&, const DedupOptions&, nlohmann::ordered_json*) const override {}

 private:
  MethodCollection c_;
};

class ExactMethod final : public MethodImpl {
 public:
  std::string name() const override { return "exact"; }
  uint64_t clustering_bytes(uint64_t pages) const override { return (uint64_t{4} << 20) + 28 * pages; }
  std::string Spec() const override { return "exact"; }
  bool finds_near_duplicates() const override { return false; }
  size_t signature_words() const override { return 2; }
  void SignTokens(const Document& document, const TokenizedDocument& tokens, SignScratch*, uint64_t* words,
                  bool* eligible, std::string*) const override {
    words[0] = tokens.num_terms() > 0 ? TokenSequenceKey(tokens) : 0;
    words[1] = ByteKey(document);
    *eligible = true;
  }
  PairDecision Compare(const Signature& a, const Signature& b) const override {
    PairDecision d;
    const bool tokens = a.words[0] != 0 && a.words[0] == b.words[0];
    const bool bytes = a.words[1] == b.words[1];
    d.duplicate = tokens || bytes;
    d.similarity = d.duplicate ? 1 : 0;
    d.reason = bytes ? "same bytes" : tokens ? "same token sequence" : "neither the tokens nor the bytes are equal";
    return d;
  }
  void TableKeys(const Signature& s, std::vector<uint64_t>* keys) const override {
    keys->clear();
    if (s.words[0] != 0) keys->push_back(s.words[0]);
    keys->push_back(s.words[1] ^ kSplitMix64Gamma);  // bytes keys apart from token keys
  }
  std::unique_ptr<MethodRun> NewRun(MethodCollection c) const override {
    return std::make_unique<ExactRun>(std::move(c));
  }
};

}  // namespace

std::unique_ptr<MethodImpl> NewExactMethod() { return std::make_unique<ExactMethod>(); }

}  // namespace neardup
