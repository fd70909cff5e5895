// Copyright neardup authors. Licensed under Apache-2.0.
//
// Method: one way of telling near duplicates apart, the faiss `Index` of this
// project. A method
//   - signs a tokenized document (a fixed number of 64-bit words, plus, for
//     the batch-only methods, variable-length units that are spilled);
//   - keeps a candidate index that takes inserts and removals and answers
//     queries (CandidateIndex), so that pairs are found without comparing
//     all pairs;
//   - has one pair rule, Compare(): a decision, a similarity and a reason.
//     The batch stage, the verification of cluster members against their
//     kept page, `neardup compare` and the incremental service all call
//     that rule; nothing restates it.
//
// Methods come from one factory, NewMethod(spec), whose spec strings are
// exactly what Spec() prints (faiss's index_factory):
//
//   exact
//   broder:k=5,wrap,m=84,l=14,family=fast,seed=1234,level=very-similar
//   simhash:b=384,t=372,seed=1234
//   combined:broder:k=8,...;simhash:b=384,...,same-site-t=355
//   robust:k=5,m=84,r=3,template=2,content=0.2,no-template=0.8,edit=30,
//          same-site-edit=20,main-m=42,main-r=2,...,numbers,own-url,text-urls,image-names,titles,title-numbers,hash=32,seed=1234
//   paragraphs:sentences=3,min-chars=450,min-shared=90
//   chunks:lines:4,T=15,coarse,h=2,seed=1234
//
// A name alone ("broder") gives that method's defaults; keys left out keep
// their defaults (a whole robust spec, as a store or summary holds it,
// keeps the meaning it was written with: RobustMethodOptions::Parse); an
// unknown method or key is InvalidArgument listing the valid choices.
// doc/spec.md holds the grammar.
//
// `paragraphs` and `chunks`, whose papers (Pereira et al.; Shivakumar and
// Garcia-Molina) define external-memory batch algorithms over a whole
// collection, are batch-only: they have no CandidateIndex, and a Deduper
// with them cannot Remove.
//
// Thread safety: a Method is immutable after NewMethod; every const member
// may be called from any thread at once. A CandidateIndex is not
// thread-safe.
#ifndef NEARDUP_METHOD_H_
#define NEARDUP_METHOD_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "neardup/document.h"
#include "neardup/status.h"

namespace neardup {

struct DedupOptions;

// What a method's pair rule says of two pages.
struct PairDecision {
  PairDecision() = default;
  PairDecision(bool duplicate_, double similarity_, std::string reason_, std::string candidacy_ = {})
      : duplicate(duplicate_), similarity(similarity_), reason(std::move(reason_)), candidacy(std::move(candidacy_)) {}

  bool duplicate = false;
  // The method's own measure in [0, 1]: broder, the share of supershingles
  // agreeing; simhash and combined, the share of sketch bits agreeing;
  // robust, the share of min-hash positions outside the boilerplate that
  // agree (1 for pages equal after normalization); paragraphs, the share of
  // shingle paragraphs shared (Pereira et al., Definition 5); chunks, the
  // share of the smaller page's chunks shared; exact, 1 or 0.
  double similarity = 0;
  std::string reason;  // the rule that decided, in words
  // Deduper::Explain, where the method says (robust): whether its candidate
  // tables made the two a candidate pair, so that the clustering decided
  // the pair itself, or the two were only ever compared with other pages;
  // in words. Empty otherwise.
  std::string candidacy;
};

// A document's signature under one method. Words are the method's fixed
// part (Method::signature_words() of them); `eligible` is false when the
// document has nothing the method can compare (no term, or only volatile
// terms), and such a document matches only its exact copies. `units` holds
// the batch-only methods' variable part (shingle paragraphs, chunk
// fingerprints); it is empty for the others.
struct Signature {
  std::vector<uint64_t> words;
  std::string units;
  bool eligible = false;
};

// Candidate pairs without comparing all pairs: the method's band tables,
// megashingle tables or sketch-piece tables, kept current under inserts and
// removals. Query returns every stored id that the method's batch stage
// would have paired with the signature's page (a superset of those its rule
// accepts; the caller applies Method::Compare).
class CandidateIndex {
 public:
  virtual ~CandidateIndex() = default;
  // REQUIRES: `id` not stored. Ineligible signatures are not stored.
  virtual void Insert(uint64_t id, const Signature& signature) = 0;
  // Removes `id` (NotFound when it is not stored).
  virtual Status Remove(uint64_t id) = 0;
  // Appends to *ids the stored ids sharing a table key with `signature`,
  // each once, in increasing order.
  virtual void Query(const Signature& signature, std::vector<uint64_t>* ids) const = 0;
  virtual size_t size() const = 0;
};

class Method {
 public:
  virtual ~Method() = default;

  // "exact", "broder", "simhash", "combined", "robust", "paragraphs", "chunks".
  virtual std::string name() const = 0;
  // Every parameter that shapes a signature or a decision; NewMethod(Spec())
  // gives a method that signs and decides exactly as this one.
  virtual std::string Spec() const = 0;
  // true for paragraphs and chunks (see above).
  virtual bool batch_only() const { return false; }
  // false for exact: the method adds nothing to the identity sets.
  virtual bool finds_near_duplicates() const { return true; }
  // true when the batch stage's rule uses what it learns from the whole
  // collection (robust: each site's boilerplate), so that Compare() on two
  // signatures alone, as an incremental store calls it, is a weaker rule
  // than the batch job's (it cannot set a site's template apart).
  virtual bool learns_from_collection() const { return false; }
  // true when processes that cluster together (DedupJob::FinishTogether)
  // find the method's pairs themselves, learning what it learns from the
  // collection together (robust: each site's boilerplate): no pairs are
  // given to them, and the clusters are a single process's.
  virtual bool finds_pairs_together() const { return false; }
  // 64-bit words of Signature::words.
  virtual size_t signature_words() const = 0;
  // The SIMD kernel the method's sketches run on ("avx512", "avx2",
  // "portable"; empty when it uses none).
  virtual std::string kernel() const { return {}; }

  // Tokenizes `document` by Henzinger's rules and signs it. Deterministic:
  // the same document always gets the same signature.
  virtual Signature Sign(const Document& document) const = 0;

  // The one pair rule, on two signatures alone. Methods whose rule depends
  // on the collection (robust's site boilerplate, learned from the pages of
  // each site) decide here as if neither site's template were known, as
  // `neardup compare` does without --input; the batch stage and the
  // Deduper pass the learned templates to the same rule.
  virtual PairDecision Compare(const Signature& a, const Signature& b) const = 0;

  // A new, empty candidate index; nullptr for batch-only methods.
  virtual std::unique_ptr<CandidateIndex> NewIndex() const = 0;

  // The keys of the candidate tables `signature` is filed under: pages
  // sharing a key are candidates (CandidateIndex is a map from these keys to
  // ids). For stores that keep their own postings, as the incremental
  // service keeps them in RocksDB. Deterministic; may repeat a key. Empty
  // for batch-only methods and ineligible signatures.
  virtual void CandidateKeys(const Signature& signature, std::vector<uint64_t>* keys) const = 0;
};

// The method a spec string describes (see the file comment).
// InvalidArgument naming the valid methods or keys when it cannot be parsed.
Result<std::unique_ptr<Method>> NewMethod(std::string_view spec);

// The method `options` chooses: options.method is a name (its parameters then
// come from options.broder, .simhash, .robust, .paragraphs, .chunks) or a
// spec string (parsed over those fields).
Result<std::unique_ptr<Method>> NewMethod(const DedupOptions& options);

// The names NewMethod knows, in the order the README lists them.
std::vector<std::string> MethodNames();

// Caps the SIMD kernels of the sketches at "portable", "avx2" or "avx512"
// (the best this CPU supports is used by default; a level above it is
// ignored). Process-wide; call it before the first signature (the CLI does,
// from its NEARDUP_SIMD environment variable). InvalidArgument for another
// name.
Status SetSimdKernel(std::string_view level);

}  // namespace neardup

#endif  // NEARDUP_METHOD_H_
