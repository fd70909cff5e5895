// Copyright neardup authors. Licensed under Apache-2.0.
//
// The engine side of a Method (include/neardup/method.h): what the Deduper
// asks of every method while signing documents and while clustering. Each
// method lives in its own file under src/engine/methods/ and has one entry
// in the factory (methods/factory.cc); nothing outside those files knows a
// method by name.
#ifndef NEARDUP_ENGINE_METHOD_IMPL_H_
#define NEARDUP_ENGINE_METHOD_IMPL_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/union_find.h"
#include "engine/exact_grouper.h"
#include "engine/exchanger.h"
#include "neardup/engine.h"
#include "neardup/env.h"
#include "neardup/executor.h"
#include "neardup/method.h"
#include "output/pairs_file.h"
#include "text/tokenizer.h"

namespace neardup {

// Per-thread scratch of a method's signing (sketch buffers), reused across
// documents. Not thread-safe; one per worker.
class SignScratch {
 public:
  virtual ~SignScratch() = default;
};

// A signature's units (what a batch-only method's SignTokens appended) as
// values of type T; none for a page without units.
template <typename T>
std::vector<T> UnitsOf(const Signature& signature) {
  std::vector<T> out(signature.units.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), signature.units.data(), out.size() * sizeof(T));
  return out;
}

// The live documents of one Cluster() call, numbered 0..n-1 in Add order,
// handed to the method's batch stage. The run owns it.
struct MethodCollection {
  uint32_t n = 0;
  // The pages' signature words, n * signature_words(), page p's at
  // [p * W, (p + 1) * W): in `words`, or, when the Deduper hands its own
  // column over (Finish()), in `pending_words` until Materialize() or
  // DrainPages() takes them (so that a run that splits the words into its
  // own columns never holds two copies).
  std::vector<uint64_t> words;
  ChunkedVector<uint64_t> pending_words;
  // Or, when the Deduper spilled them (DeduperImpl::SpillSignatures), the
  // words mapped from its spill file, page p's at the same place; then
  // `words` and `pending_words` are empty. Only methods that read the
  // mapping (MethodImpl::reads_mapped_words) are given one.
  std::shared_ptr<const MappedFile> mapped_words;
  std::vector<uint8_t> eligible;      // the page has something to compare
  std::vector<uint32_t> exact_root;   // earliest page of p's exact identity set
  // Batch-only methods: the spill file of units, in document order, written
  // with AppendUnitRecord; its folder is the place for further temporary files.
  Env* env = nullptr;
  std::string units_path;
  std::string temp_dir;
  uint64_t memory_budget = 0;         // bytes the stage's tables may take
  // The whole run's budget (DedupOptions::memory_bytes) and the caller's
  // probe of the process's resident memory (may be empty): MemoryLeft().
  uint64_t memory_limit = 0;
  std::function<void(uint64_t* resident_bytes, uint64_t* peak_resident_bytes)> memory_probe;
  bool temp_files = false;            // the run may write temporary files in temp_dir (a batch job)
  bool collect_pairs = false;         // list the pairs for pairs.tsv
  uint32_t max_bucket_pages = 1000;   // DedupOptions::broder.max_bucket_pages
  // The Deduper's executor (null: none): a stage may run its work on its
  // threads too, with the same result as on one.
  Executor* executor = nullptr;
  const uint64_t* word_at(uint32_t p, size_t w) const { return words.data() + size_t{p} * w; }
  // Bytes the budget leaves now: memory_limit less what the probe reads
  // resident; without a probe, memory_budget (the same, as the stage began).
  uint64_t MemoryLeft() const {
    if (!memory_probe) return memory_budget;
    uint64_t resident = 0, peak = 0;
    memory_probe(&resident, &peak);
    return memory_limit > resident ? memory_limit - resident : 0;
  }
  // Makes `words` hold every page's words.
  void Materialize() {
    if (pending_words.size() > 0) words = pending_words.MoveToVector();
  }
  // Calls fn(p, page p's w words) for p = 0..n-1 in order, releasing the
  // words as it goes; `words` is empty afterwards.
  template <typename F>
  void DrainPages(size_t w, F&& fn) {
    if (pending_words.size() == 0) {
      for (uint32_t p = 0; p < n; ++p) fn(p, words.data() + size_t{p} * w);
      std::vector<uint64_t>().swap(words);
      return;
    }
    std::vector<uint64_t> page(w);
    size_t filled = 0;
    uint32_t p = 0;
    pending_words.Drain([&](const uint64_t* data, size_t count) {
      for (size_t i = 0; i < count;) {
        const size_t take = std::min(w - filled, count - i);
        std::copy(data + i, data + i + take, page.begin() + static_cast<std::ptrdiff_t>(filled));
        filled += take;
        i += take;
        if (filled == w) {
          fn(p++, page.data());
          filled = 0;
        }
      }
    });
  }
};

// One pair of pages a run lists for pairs.tsv: the page numbers and the
// values of the method's columns (MethodRun::PairColumns).
using PairVisitor = std::function<Status(uint32_t a, uint32_t b, std::span<const double> values)>;

// A method's state over one collection: the pairs it found and what its rule
// learned (robust's site templates). Made by MethodImpl::NewRun.
class MethodRun {
 public:
  virtual ~MethodRun() = default;
  // Joins the near-duplicate pairs of the collection in *uf (its exact
  // identity sets are joined already) and fills the method's counters of
  // *summary. Called once.
  virtual Status FindPairs(UnionFind* uf, DedupSummary* summary) = 0;
  // Whether every near-duplicate member is checked against its kept page
  // (false for the methods whose clusters are the connected components of
  // their pairs: paragraphs, chunks).
  virtual bool verifies() const { return true; }
  // The page a member leaves its cluster with when verification splits it
  // off (its exact identity set, or robust's normalized one): a page number.
  virtual uint32_t SplitRoot(uint32_t p) const = 0;
  // The method's one pair rule between pages a and b of the collection,
  // with what the run learned. REQUIRES: verifies(); the batch-only
  // methods' rule runs inside their stage (and in Method::Compare).
  virtual PairDecision Decide(uint32_t a, uint32_t b) const {
    (void)a, (void)b;
    return PairDecision{false, 0, "decided inside the method's batch stage"};
  }
  // Decide for several pairs: decisions[i] holds Decide(pairs[i].first,
  // pairs[i].second)'s duplicate and similarity (its reason may be left
  // out). A run that reads its pages from a file reads them together. The
  // default calls Decide for each.
  virtual void DecideMany(std::span<const std::pair<uint32_t, uint32_t>> pairs, PairDecision* decisions) const {
    for (size_t i = 0; i < pairs.size(); ++i) decisions[i] = Decide(pairs[i].first, pairs[i].second);
  }
  // Whether the method's candidate tables made pages a and b a candidate
  // pair (PairDecision::candidacy), in words; "" when the method does not
  // say. REQUIRES: FindPairs ran.
  virtual std::string Candidacy(uint32_t a, uint32_t b) const {
    (void)a, (void)b;
    return {};
  }
  // The similarity column of clusters.tsv for `page`, a near-duplicate
  // member, against its cluster's kept page. Where verifies(), it is
  // Decide(page, kept).similarity (the Deduper takes it from verification's
  // decision of the pair when there was one); a method may say it without
  // the decision's reason.
  virtual double Similarity(uint32_t page, uint32_t kept) const { return Decide(page, kept).similarity; }
  // Whether Decide and Similarity may be called from several threads at
  // once (the Deduper then verifies on its executor's threads too).
  virtual bool decides_concurrently() const { return false; }
  // pairs.tsv: the method's columns after url_a and url_b, whether
  // url_a < url_b in every row (as in Shivakumar and Garcia-Molina's Overlap
  // table), and the pairs listed (a < b, in order).
  virtual std::vector<PairColumn> PairColumns() const = 0;
  virtual bool PairsOrderedByUrl() const { return false; }
  virtual bool HasPairs() const = 0;                 // some pair is listed
  virtual void MarkPairMembers(std::vector<uint8_t>* member) const = 0;
  virtual Status ForEachPair(const PairVisitor& visit) = 0;
  // Adds the method's sections to summary.json (the "near_duplicates"
  // object exists and holds the common fields).
  virtual void WriteSummary(const DedupSummary& summary, const DedupOptions& options,
                            nlohmann::ordered_json* root) const = 0;
};

// A run whose listed pairs are held in memory (a < b, in order): it lists
// them with PairValues, the values of the method's pair columns.
template <typename Pair>
class ListedPairsRun : public MethodRun {
 public:
  bool HasPairs() const override { return !pairs_.empty(); }
  void MarkPairMembers(std::vector<uint8_t>* member) const override {
    for (const Pair& p : pairs_) (*member)[p.a] = (*member)[p.b] = 1;
  }
  Status ForEachPair(const PairVisitor& visit) override {
    std::vector<double> values(PairColumns().size());
    for (const Pair& p : pairs_) {
      PairValues(p, values.data());
      NEARDUP_RETURN_IF_ERROR(visit(p.a, p.b, values));
    }
    return Status::OK();
  }

 protected:
  virtual void PairValues(const Pair& pair, double* values) const = 0;
  std::vector<Pair> pairs_;
};

// The signature words of a divided run's pages: the Deduper's column in
// memory, or its spill file (DeduperImpl::SpillSignatures) read with pread,
// so that the pages stay out of resident memory (the mapping is read where
// a pread fails). Page() serves passes in page order a block of
// kPagesPerBlock pages a read; Read() copies one page with a read of its
// own (reads out of order). One caller at a time.
class PageWords {
 public:
  static constexpr uint64_t kPagesPerBlock = 256;
  PageWords() = default;
  PageWords(const ChunkedVector<uint64_t>* column, size_t words_per_page) : column_(column), w_(words_per_page) {}
  PageWords(std::shared_ptr<const MappedFile> file, uint64_t pages, size_t words_per_page)
      : file_(std::move(file)), pages_(pages), w_(words_per_page) {}

  // Page p's words, valid until the next call.
  const uint64_t* Page(uint64_t p) const {
    if (p >= block_from_ && p < block_to_) return block_.data() + (p - block_from_) * w_;
    if (column_ != nullptr) {
      block_.resize(w_);
      for (size_t t = 0; t < w_; ++t) block_[t] = (*column_)[p * w_ + t];
      block_from_ = p;
      block_to_ = p + 1;
      return block_.data();
    }
    block_from_ = p;
    block_to_ = std::min(pages_, p + kPagesPerBlock);
    block_.resize((block_to_ - block_from_) * w_);
    const size_t bytes = block_.size() * sizeof(uint64_t);
    if (!file_->ReadAt(p * w_ * sizeof(uint64_t), bytes, reinterpret_cast<char*>(block_.data())).ok()) {
      std::memcpy(block_.data(), file_->data().data() + p * w_ * sizeof(uint64_t), bytes);
    }
    return block_.data();
  }
  uint64_t Word(uint64_t p, size_t t) const { return Page(p)[t]; }
  // Copies page p's words into out (words_per_page of them).
  void Read(uint64_t p, uint64_t* out) const {
    if (column_ != nullptr || (p >= block_from_ && p < block_to_)) {
      std::copy_n(Page(p), w_, out);
      return;
    }
    const size_t bytes = w_ * sizeof(uint64_t);
    if (!file_->ReadAt(p * bytes, bytes, reinterpret_cast<char*>(out)).ok()) {
      std::memcpy(out, file_->data().data() + p * bytes, bytes);
    }
  }

 private:
  const ChunkedVector<uint64_t>* column_ = nullptr;
  std::shared_ptr<const MappedFile> file_;
  uint64_t pages_ = 0;
  size_t w_ = 0;
  mutable std::vector<uint64_t> block_;
  mutable uint64_t block_from_ = 0, block_to_ = 0;
};

// The pages one process of a divided run holds (DedupJob::FinishTogether,
// DeduperImpl::ClusterTogether): whole-run ids [base, base + n), in input
// order, with their signature words and exact identity sets. The columns
// belong to the Deduper and outlive the run.
struct DividedCollection {
  uint64_t n = 0, base = 0;
  size_t words_per_page = 0;
  PageWords words;  // n pages of words_per_page words
  // Where a method may keep large temporary tables (robust: a large site's
  // columns of values); no env: in memory.
  Env* env = nullptr;
  std::string temp_dir;
  const ChunkedVector<uint8_t>* eligible = nullptr;
  std::vector<uint64_t> exact_root;  // per page: its exact set's earliest page, a whole-run id
  uint32_t max_bucket_pages = 1000;  // DedupOptions::broder.max_bucket_pages
  // The process's executor (null: none): a step's local work may run on
  // its threads too (`neardup-mpi --threads`; robust learns its site
  // groups' templates on them), with the same result as on one;
  // collective calls stay on the calling thread.
  Executor* executor = nullptr;
};

// A method's state over the pages one process of a divided run holds: the
// pairs it finds together with the other processes, and the rule that
// verification applies to two pages' records. Made by
// MethodImpl::NewDividedRun; every call named collective is made by every
// process in the same order.
class DividedRun {
 public:
  virtual ~DividedRun() = default;
  // Collective. The near-duplicate pairs of the whole run, as edges
  // between whole-run ids (key < id; any process may report any pair, a
  // pair may be reported twice): into *pairs those counted as the method's
  // pairs, into *joins those that join pages without being counted
  // (robust's pages equal after normalization). `given`: the pairs this
  // process was handed (found where Zhu et al.'s length partitions put the
  // pages); empty for methods that find their own (finds_pairs_together).
  // Fills the method's figures of *summary (the caller counts the pairs).
  virtual Status FindPairs(Exchanger* x, std::span<const std::pair<uint64_t, uint64_t>> given,
                           std::vector<KeyAndId>* pairs, std::vector<KeyAndId>* joins, DedupSummary* summary) = 0;
  // Words of a page's record: what Decide and Similarity read of a page.
  virtual size_t record_words() const = 0;
  // The record of local page p (0 .. n - 1) into out[0 .. record_words()).
  // Valid after FindPairs.
  virtual void Record(uint64_t p, uint64_t* out) const = 0;
  // The method's one pair rule between a member and its cluster's kept
  // page, with what the run learned: MethodRun::Decide's decision.
  virtual PairDecision Decide(const uint64_t* page, const uint64_t* kept) const = 0;
  // The similarity column of clusters.tsv (MethodRun::Similarity):
  // Decide(page, kept).similarity.
  virtual double Similarity(const uint64_t* page, const uint64_t* kept) const {
    return Decide(page, kept).similarity;
  }
  // The page local page p leaves its cluster with when verification splits
  // it off (MethodRun::SplitRoot), a whole-run id.
  virtual uint64_t SplitRoot(uint64_t p) const = 0;
};

// The records (DividedRun::Record, `width` words) of whole-run pages
// `ids`, asked of their holders, each distinct page once. Collective:
// every process builds one, with ids of its own or none.
class PageRecords {
 public:
  PageRecords(Exchanger* x, const DividedRun& run, size_t width, std::vector<uint64_t> ids);
  const Status& status() const { return status_; }
  // REQUIRES: status().ok() and id one of the ids asked.
  const uint64_t* Of(uint64_t id) const {
    const size_t at = static_cast<size_t>(std::lower_bound(ids_.begin(), ids_.end(), id) - ids_.begin());
    return records_.data() + at * width_;
  }

 private:
  std::vector<uint64_t> ids_;
  size_t width_;
  std::vector<uint64_t> records_;
  Status status_;
};

class MethodImpl : public Method {
 public:
  // What the tokenizer must keep for this method.
  virtual bool needs_term_text() const { return false; }
  virtual std::unique_ptr<SignScratch> NewScratch() const { return std::make_unique<SignScratch>(); }
  // Signs one tokenized document: writes signature_words() words, sets
  // *eligible, and (batch-only methods) appends the units to *units.
  // Thread-safe; `scratch` is the calling thread's.
  virtual void SignTokens(const Document& document, const TokenizedDocument& tokens, SignScratch* scratch,
                          uint64_t* words, bool* eligible, std::string* units) const = 0;
  // Whether the method's run reads MethodCollection::mapped_words where it
  // is given them, so that the batch job may keep the signature words in a
  // spill file instead of in memory.
  virtual bool reads_mapped_words() const { return false; }
  // Bytes the batch clustering of `pages` pages holds at its peak beyond
  // what the Deduper held when reading ended (the method's run with its
  // tables at their leanest, the keepers, verification): a base and bytes a
  // page, fitted a little above what crawls of 250,000 and 1,000,000 pages
  // of bench/crawlgen took on one thread (bench/RESULTS.md, "--memory").
  // The batch job stops a run whose pages would not fit in
  // DedupOptions::memory_bytes with it (DedupJob::Read). 0: the method
  // sizes its tables to what the budget leaves (paragraphs, chunks).
  virtual uint64_t clustering_bytes(uint64_t pages) const {
    (void)pages;
    return 0;
  }
  // Batch-only methods: appends page `page`'s units (as SignTokens made
  // them) to the spill buffer, in the stage's record format.
  virtual void AppendUnitRecord(uint32_t page, std::string_view units, std::string* spill) const {
    (void)page, (void)units, (void)spill;
  }
  // Keys of the candidate tables a signature is filed under (CandidateIndex):
  // pages sharing a key are candidates.
  virtual void TableKeys(const Signature& signature, std::vector<uint64_t>* keys) const = 0;
  // The method's state over a collection.
  virtual std::unique_ptr<MethodRun> NewRun(MethodCollection collection) const = 0;
  // The method's state over one process's pages of a divided run. The
  // default takes the pairs given (or none: exact) and decides with
  // Compare() on the two signatures; NotSupported for batch-only methods
  // and for those that learn from the collection and do not learn it
  // together (finds_pairs_together()).
  virtual Result<std::unique_ptr<DividedRun>> NewDividedRun(DividedCollection collection) const;

  // Method
  Signature Sign(const Document& document) const override;
  std::unique_ptr<CandidateIndex> NewIndex() const override;
  void CandidateKeys(const Signature& signature, std::vector<uint64_t>* keys) const override {
    keys->clear();
    if (signature.eligible && !batch_only()) TableKeys(signature, keys);
  }
};

// Compact text of a double for TSV columns ("%.4g").
std::string FormatSimilarity(double value);

// The figures of the table-based candidate stages (broder, simhash,
// combined) in summary.json's "near_duplicates": pairs in buckets too large
// to list, megashingle fingerprint collisions, and whether the simhash
// index provably found every pair.
void WriteTableStageFigures(const DedupSummary& summary, nlohmann::ordered_json* root);

// The token-sequence identity key of Shivakumar and Garcia-Molina's and
// Henzinger's exact copies: a Rabin fingerprint (the default polynomial) of
// the sequence of 64-bit term hashes.
uint64_t TokenSequenceKey(const TokenizedDocument& tokens);

// Whether a page has content of its own to compare. An HTTP redirect
// (status 3xx) has none: its body is the server's notice ("Moved
// Permanently", often empty), and its content is its target's (Zhu et al.,
// "Clustering and Load Balancing Optimization for Redundant Content
// Removal", §2: redirection-based duplicates are pages that redirect to one
// another, not pages whose notices look alike). Nor has a page whose body is
// empty (a HEAD answer, a 204, a capture whose payload was not kept). Such
// a page is matched by no method: no token or byte identity, no part in any
// method's tables; it is a cluster of its own, but for a redirect whose
// chain ends at a page of the run (engine/redirects.h).
bool HasOwnContent(const Document& document);

// Tokenizes the content the methods read: the body when the page has
// content of its own, else nothing (no terms, no links).
void TokenizeOwnContent(Tokenizer* tokenizer, const Document& document, TokenizedDocument* out);

// The byte identity key: XXH3-64 of the body, never kNoByteKey; kNoByteKey
// (engine/exact_grouper.h) for a page without content of its own.
uint64_t ByteKey(const Document& document);

// The factory's method for `options` (methods/factory.cc).
Result<std::unique_ptr<MethodImpl>> NewMethodImpl(const DedupOptions& options);

}  // namespace neardup

#endif  // NEARDUP_ENGINE_METHOD_IMPL_H_
