// The parts every method shares: signing a whole document and the keyed
// candidate index.
#include "engine/method_impl.h"

#include <algorithm>
#include <cstdio>
#include <unordered_map>
#include <xxhash.h>

#include "base/cpu.h"
#include "fingerprint/rabin.h"

namespace neardup {

PageRecords::PageRecords(Exchanger* x, const DividedRun& run, size_t width, std::vector<uint64_t> ids)
    : ids_(std::move(ids)), width_(width) {
  std::sort(ids_.begin(), ids_.end());
  ids_.erase(std::unique(ids_.begin(), ids_.end()), ids_.end());
  const uint64_t base = x->base();
  auto asked = x->Ask(ids_, width, false, [&](uint64_t id, uint64_t* o) { run.Record(id - base, o); });
  if (asked.ok()) {
    records_ = std::move(asked).value();
  } else {
    status_ = asked.status();
  }
}

Signature MethodImpl::Sign(const Document& document) const {
  TokenizeOptions to;
  to.collect_links = false;
  to.keep_term_text = needs_term_text();
  Tokenizer tokenizer(to);
  TokenizedDocument tokens;
  TokenizeOwnContent(&tokenizer, document, &tokens);
  Signature s;
  s.words.assign(signature_words(), 0);
  std::unique_ptr<SignScratch> scratch = NewScratch();
  SignTokens(document, tokens, scratch.get(), s.words.data(), &s.eligible, &s.units);
  return s;
}

namespace {

// Ids filed under the method's table keys (TableKeys): two pages are
// candidates when they share a key. Memory: about 16 bytes per (key, id)
// plus the hash tables' overhead.
class KeyedCandidateIndex final : public CandidateIndex {
 public:
  explicit KeyedCandidateIndex(const MethodImpl* method) : method_(method) {}

  void Insert(uint64_t id, const Signature& signature) override {
    if (!signature.eligible) return;
    std::vector<uint64_t> keys;
    method_->TableKeys(signature, &keys);
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    for (uint64_t k : keys) tables_[k].push_back(id);
    keys_of_.emplace(id, std::move(keys));
  }

  Status Remove(uint64_t id) override {
    auto it = keys_of_.find(id);
    if (it == keys_of_.end()) return Status::NotFound("id " + std::to_string(id) + " is not in the index");
    for (uint64_t k : it->second) {
      auto t = tables_.find(k);
      std::vector<uint64_t>& ids = t->second;
      ids.erase(std::remove(ids.begin(), ids.end(), id), ids.end());
      if (ids.empty()) tables_.erase(t);
    }
    keys_of_.erase(it);
    return Status::OK();
  }

  void Query(const Signature& signature, std::vector<uint64_t>* ids) const override {
    if (!signature.eligible) return;
    std::vector<uint64_t> keys;
    method_->TableKeys(signature, &keys);
    const size_t first = ids->size();
    for (uint64_t k : keys) {
      auto t = tables_.find(k);
      if (t != tables_.end()) ids->insert(ids->end(), t->second.begin(), t->second.end());
    }
    std::sort(ids->begin() + static_cast<std::ptrdiff_t>(first), ids->end());
    ids->erase(std::unique(ids->begin() + static_cast<std::ptrdiff_t>(first), ids->end()), ids->end());
  }

  size_t size() const override { return keys_of_.size(); }

 private:
  const MethodImpl* method_;
  std::unordered_map<uint64_t, std::vector<uint64_t>> tables_;
  std::unordered_map<uint64_t, std::vector<uint64_t>> keys_of_;
};

}  // namespace

std::unique_ptr<CandidateIndex> MethodImpl::NewIndex() const {
  if (batch_only()) return nullptr;
  return std::make_unique<KeyedCandidateIndex>(this);
}

namespace {

// The pairs given to the process (found where the length partitions put
// the pages), decided by Compare() on two signatures: what a method that
// learns nothing from the collection decides anywhere.
class GivenPairsRun final : public DividedRun {
 public:
  GivenPairsRun(const MethodImpl* method, DividedCollection c) : method_(method), c_(std::move(c)) {}
  Status FindPairs(Exchanger*, std::span<const std::pair<uint64_t, uint64_t>> given, std::vector<KeyAndId>* pairs,
                   std::vector<KeyAndId>*, DedupSummary*) override {
    if (!method_->finds_near_duplicates()) return Status::OK();
    for (const auto& [a, b] : given) {
      if (a != b) pairs->push_back({std::min(a, b), std::max(a, b)});
    }
    return Status::OK();
  }
  // The signature words, then whether the page is eligible.
  size_t record_words() const override { return c_.words_per_page + 1; }
  void Record(uint64_t p, uint64_t* out) const override {
    c_.words.Read(p, out);
    out[c_.words_per_page] = (*c_.eligible)[p];
  }
  PairDecision Decide(const uint64_t* page, const uint64_t* kept) const override {
    const size_t w = c_.words_per_page;
    a_.words.assign(page, page + w);
    a_.eligible = page[w] != 0;
    b_.words.assign(kept, kept + w);
    b_.eligible = kept[w] != 0;
    return method_->Compare(a_, b_);
  }
  uint64_t SplitRoot(uint64_t p) const override { return c_.exact_root[p]; }

 private:
  const MethodImpl* method_;
  DividedCollection c_;
  mutable Signature a_, b_;  // reused by Decide (one caller at a time)
};

}  // namespace

Result<std::unique_ptr<DividedRun>> MethodImpl::NewDividedRun(DividedCollection collection) const {
  if (batch_only() || learns_from_collection()) {
    return Status::NotSupported("the " + name() +
                                " method clusters over the whole collection: it cannot cluster divided among processes");
  }
  return std::unique_ptr<DividedRun>(std::make_unique<GivenPairsRun>(this, std::move(collection)));
}

uint64_t TokenSequenceKey(const TokenizedDocument& tokens) {
  static const InterleavedRabinFingerprinter fp =
      InterleavedRabinFingerprinter::FromSeed(RabinFingerprinter::kDefaultSeed);
  return fp.Fingerprint(tokens.term_hashes.data(), tokens.term_hashes.size() * sizeof(uint64_t));
}

bool HasOwnContent(const Document& document) {
  const bool redirect = document.http_status >= 300 && document.http_status < 400;
  return !redirect && document.revisit_of.empty() && !document.body.empty();
}

void TokenizeOwnContent(Tokenizer* tokenizer, const Document& document, TokenizedDocument* out) {
  const std::string_view body = HasOwnContent(document) ? std::string_view(document.body) : std::string_view();
  tokenizer->Tokenize(body, document.kind, document.declared_charset, document.url, out);
}

uint64_t ByteKey(const Document& document) {
  if (!HasOwnContent(document)) return kNoByteKey;
  const uint64_t key = XXH3_64bits(document.body.data(), document.body.size());
  return key == kNoByteKey ? kNoByteKey + 1 : key;  // one value in 2^64 shares its key with its neighbour
}

void WriteTableStageFigures(const DedupSummary& s, nlohmann::ordered_json* root) {
  nlohmann::ordered_json& near = (*root)["near_duplicates"];
  near["pairs_not_listed_upper_bound"] = s.near_pairs_not_listed;
  near["megashingle_collisions"] = s.megashingle_collisions;
  near["simhash_index_complete"] = s.simhash_complete;
}

Status SetSimdKernel(std::string_view level) {
  for (const char* name : {"portable", "avx2", "avx512"}) {
    if (level == name) {
      SetForcedKernelName(name);
      return Status::OK();
    }
  }
  return Status::InvalidArgument("unknown SIMD kernel '" + std::string(level) + "'; valid: portable, avx2, avx512");
}

std::string FormatSimilarity(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", value);
  return buf;
}

}  // namespace neardup
