// The living Deduper (include/neardup/deduper.h): signing on the
// executor's threads, per-document columns, and clustering the live
// documents on request.
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <limits>
#include <mutex>
#include <unordered_map>

#include "base/flat_set.h"
#include "base/path.h"
#include "base/stopwatch.h"
#include "cluster/union_find.h"
#include "engine/deduper_impl.h"
#include "engine/parallel.h"
#include "engine/redirects.h"
#include "neardup/dedup_job.h"
#include "neardup/env.h"
#include "neardup/executor.h"
#include "neardup/source.h"
#include "text/url.h"

namespace neardup {

namespace {

using Clock = std::chrono::steady_clock;

// Page buffers larger than this are released after their batch is done
// (handed back to the source: DocumentSource::Recycle; the sources grow a
// small page's buffer to this size at most).
constexpr size_t kKeepBodyCapacity = 256 << 10;

// Ids are page numbers of 32 bits inside the engine.
constexpr uint64_t kMaxDocuments = UINT32_MAX - 1;
// Pages a task of verification takes (RunTasks; methods whose rule may run
// on several threads, MethodRun::decides_concurrently).
constexpr size_t kVerifyPagesPerTask = 256;
// Pages whose spilled keeper features are read at a time (1.5 MiB).
constexpr uint32_t kFeaturesPerRead = uint32_t{1} << 16;

}  // namespace

const char* DocRoleName(DocRole role) {
  switch (role) {
    case DocRole::kSingle: return "single";
    case DocRole::kKeep: return "keep";
    case DocRole::kDuplicate: return "duplicate";
    case DocRole::kRemoved: return "removed";
  }
  return "single";
}

const char* Clustering::method_of(DocId id) const {
  switch (d_->method_[id]) {
    case 1: return "exact";
    case 2: return method_name_.c_str();
    case 3: return "redirect";
    case 4: return "revisit";
    default: return d_->role_[id] == DocRole::kRemoved ? "removed" : "single";
  }
}

BufferedWriter::BufferedWriter(std::unique_ptr<WritableFile> file) : file_(std::move(file)) {
  buf_.reserve(kBlock + 4096);
}

Status BufferedWriter::MaybeFlush() {
  if (buf_.size() < kBlock) return Status::OK();
  return FlushBuffer();
}

Status BufferedWriter::Close() {
  NEARDUP_RETURN_IF_ERROR(FlushBuffer());
  return file_->Close();
}

Status BufferedWriter::FlushBuffer() {
  if (buf_.empty()) return Status::OK();
  NEARDUP_RETURN_IF_ERROR(file_->Append(buf_.data(), buf_.size()));
  written_ += buf_.size();
  buf_.clear();
  return Status::OK();
}

// What a worker computes of one document besides the method's words.
struct DocKeys {
  uint64_t token_fp = 0;
  uint64_t byte_fp = 0;
  uint32_t terms = 0;
  uint8_t eligible = 0;
  uint8_t revisit = 0;      // IsRevisit (with redirect_key)
  uint64_t url_key = 0;     // in-links: key of the page's normalized URL
  uint32_t link_count = 0;  // in-links: distinct link keys in SignBatch::link_keys
  uint32_t units_end = 0;   // end of the page's units in SignBatch::units
  uint64_t redirect_key = kNoRedirect;  // RedirectKey
};

// Who signs which documents of a scheduled batch: a fresh one each time the
// batch is scheduled, shared by the worker's task and the calling thread
// (SignWhileWaiting). A signer takes `step` documents at a time from `next`;
// once `next` passes `count` nothing is left, and a signer that took none
// must not touch the batch, which may be committed, freed or scheduled
// again by then. One that took some keeps the batch alive: it is not done
// until every document is signed.
struct SignClaims {
  SignClaims(uint32_t n, uint32_t s) : count(n), step(s) {}
  std::atomic<uint32_t> next{0};
  const uint32_t count;
  const uint32_t step;  // 1: the documents are shared; count: one signer takes all
};

// A batch of documents travelling through the pipeline. In AddFrom the
// batches are a ring of slots that own their documents (strings keep their
// capacity); in Add(span) they point into the caller's span.
struct SignBatch {
  std::vector<Document> owned;
  const Document* docs = nullptr;
  size_t count = 0;
  std::vector<DocKeys> keys;
  std::vector<uint64_t> words;      // count * W
  std::vector<uint64_t> link_keys;  // in-links: every document's distinct link keys, in order
  std::vector<uint32_t> lengths;    // Zhu et al.'s length vectors: count * length dimensions
  std::string units;                // batch-only methods: every document's units, in order
  std::mutex mu;
  std::condition_variable cv;
  double work_seconds = 0;  // guarded by mu: the signers' time, summed
  size_t signed_docs = 0;   // guarded by mu
  bool done = true;         // guarded by mu
  // Shared with the worker's task (see SignClaims).
  std::shared_ptr<SignClaims> claims;

  bool IsDone() {
    std::lock_guard<std::mutex> lock(mu);
    return done;
  }
  // A signer's share is signed: `docs` documents in `seconds`. The last
  // signer notifies under the lock: once it lets go, the batch may be
  // committed and freed.
  void Signed(size_t docs, double seconds) {
    std::lock_guard<std::mutex> lock(mu);
    work_seconds += seconds;
    signed_docs += docs;
    if (signed_docs == count) {
      done = true;
      cv.notify_all();
    }
  }

  void Resize(size_t n, size_t words_per_doc) {
    keys.resize(n);
    words.resize(n * words_per_doc);
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [this] { return done; });
  }
};

// A sign context is kept for the next page only while its page had at most
// kKeptContextTerms terms and kKeptContextBodyBytes of body (SignUnclaimed):
// a text of millions of terms needs tens of bytes a term of scratch.
constexpr size_t kKeptContextTerms = size_t{1} << 18;
constexpr size_t kKeptContextBodyBytes = size_t{16} << 20;

// Per-thread work context: tokenizer and the method's scratch, reused.
struct SignContext {
  SignContext(const TokenizeOptions& to, std::unique_ptr<SignScratch> s) : tokenizer(to), scratch(std::move(s)) {}
  Tokenizer tokenizer;
  TokenizedDocument tokens;
  std::unique_ptr<SignScratch> scratch;
  std::vector<uint64_t> links;
};

class SignContextPool {
 public:
  SignContextPool(const MethodImpl* method, bool count_in_links, uint32_t length_dims)
      : method_(method), count_in_links_(count_in_links), length_dims_(length_dims) {
    options_.collect_links = count_in_links;  // only the in-links keeper rule needs links
    options_.keep_term_text = method->needs_term_text();
  }
  std::unique_ptr<SignContext> Acquire() { return contexts_.Acquire(); }
  void Release(std::unique_ptr<SignContext> c) { contexts_.Release(std::move(c)); }
  bool count_in_links() const { return count_in_links_; }
  uint32_t length_dims() const { return length_dims_; }
  const MethodImpl& method() const { return *method_; }

 private:
  const MethodImpl* method_;
  bool count_in_links_;
  uint32_t length_dims_;
  TokenizeOptions options_;
  WorkPool<SignContext> contexts_{[this] { return std::make_unique<SignContext>(options_, method_->NewScratch()); }};
};

namespace {

// The key under which links and pages meet for the in-links rule.
uint64_t UrlKey(std::string_view url) {
  const std::string normalized = NormalizeUrl(url);
  return XXH3_64bits(normalized.data(), normalized.size());
}

// Signs document i of the batch with the thread's context.
void SignDocument(SignBatch* batch, size_t i, SignContext* ctx, SignContextPool* pool) {
  const MethodImpl& method = pool->method();
  const size_t w = method.signature_words();
  const uint32_t dims = pool->length_dims();
  const Document& doc = batch->docs[i];
  TokenizeOwnContent(&ctx->tokenizer, doc, &ctx->tokens);
  DocKeys& k = batch->keys[i];
  k.terms = static_cast<uint32_t>(ctx->tokens.num_terms());
  k.token_fp = TokenSequenceKey(ctx->tokens);
  k.byte_fp = ByteKey(doc);
  k.redirect_key = RedirectKey(doc);
  k.revisit = IsRevisit(doc) ? 1 : 0;
  bool eligible = false;
  method.SignTokens(doc, ctx->tokens, ctx->scratch.get(), batch->words.data() + i * w, &eligible, &batch->units);
  k.eligible = eligible ? 1 : 0;
  k.units_end = static_cast<uint32_t>(batch->units.size());
  if (dims > 0) {
    uint32_t* lengths = batch->lengths.data() + i * dims;
    for (uint64_t term : ctx->tokens.term_hashes) ++lengths[LengthDimension(term, dims)];
  }
  if (pool->count_in_links()) {
    // Each page counts once per target; links to itself do not count.
    k.url_key = UrlKey(doc.url);
    ctx->links.clear();
    // The tokenizer's links are already normalized (NormalizeUrl).
    for (const std::string& link : ctx->tokens.links) ctx->links.push_back(XXH3_64bits(link.data(), link.size()));
    std::sort(ctx->links.begin(), ctx->links.end());
    ctx->links.erase(std::unique(ctx->links.begin(), ctx->links.end()), ctx->links.end());
    k.link_count = 0;
    for (uint64_t key : ctx->links) {
      if (key == k.url_key) continue;
      batch->link_keys.push_back(key);
      ++k.link_count;
    }
  }
}

// Makes the batch ready for its signers and hands out its documents: one at
// a time when signers may share it, or all to the first when documents
// append to the batch in order (the in-links rule's link keys, a
// batch-only method's units).
void PrepareToSign(SignBatch* b, SignContextPool* pool) {
  b->link_keys.clear();
  b->units.clear();
  b->lengths.assign(b->count * pool->length_dims(), 0);
  {
    std::lock_guard<std::mutex> lock(b->mu);
    b->work_seconds = 0;
    b->signed_docs = 0;
    b->done = b->count == 0;
  }
  const bool shared = !pool->count_in_links() && !pool->method().batch_only();
  const uint32_t n = static_cast<uint32_t>(b->count);
  b->claims = std::make_shared<SignClaims>(n, shared ? 1u : std::max(n, 1u));
}

// Signs the documents of `b` that no other thread took, `claims`' step at
// a time. True when this call signed at least one (it then reported them
// with SignBatch::Signed); false when none was left, and then `b` was not
// touched.
bool SignUnclaimed(SignBatch* b, const std::shared_ptr<SignClaims>& claims, SignContextPool* pool) {
  if (claims == nullptr) return false;
  uint32_t first = claims->next.fetch_add(claims->step, std::memory_order_acq_rel);
  if (first >= claims->count) return false;
  const auto t0 = Clock::now();
  auto ctx = pool->Acquire();
  size_t signed_here = 0;
  while (first < claims->count) {
    const uint32_t end = std::min(claims->count, first + claims->step);
    for (uint32_t i = first; i < end; ++i) {
      SignDocument(b, i, ctx.get(), pool);
      // A context that grew for a very long page (its tokens, the
      // tokenizer's and the method's scratch) is let go, and the next page
      // gets another: kept, it would hold that page's room for the rest of
      // the run, against the memory budget.
      if (ctx->tokens.term_hashes.capacity() > kKeptContextTerms || b->docs[i].body.size() > kKeptContextBodyBytes) {
        ctx = pool->Acquire();
      }
    }
    signed_here += end - first;
    first = claims->next.fetch_add(claims->step, std::memory_order_acq_rel);
  }
  pool->Release(std::move(ctx));
  b->Signed(signed_here, SecondsSince(t0));
  return true;
}

// Signs every document of the batch on this thread.
void SignDocuments(SignBatch* b, SignContextPool* pool) {
  PrepareToSign(b, pool);
  if (b->count > 0) SignUnclaimed(b, b->claims, pool);
}

void Schedule(Executor* executor, SignBatch* b, SignContextPool* pool) {
  if (executor == nullptr) {
    SignDocuments(b, pool);
    return;
  }
  PrepareToSign(b, pool);
  if (b->count == 0) return;
  executor->Schedule([b, pool, claims = b->claims] { SignUnclaimed(b, claims, pool); });
}

// The calling thread is one of the run's threads: until `wait_for` is
// signed it signs the documents of it that no worker took, then those of a
// batch of `others` that no worker started, taken from the back (the
// workers take batches from the front): others[*cursor - 1] first, and
// *cursor moves down past every batch looked at. Returns when `wait_for`
// is done or none is left to take; the caller then waits for it (for at
// most the documents a worker is signing).
void SignWhileWaiting(SignBatch* wait_for, std::span<SignBatch* const> others, size_t* cursor,
                      SignContextPool* pool) {
  while (!wait_for->IsDone() && !SignUnclaimed(wait_for, wait_for->claims, pool)) {
    bool helped = false;
    while (*cursor > 0 && !helped) {
      SignBatch* other = others[--*cursor];
      helped = other != wait_for && other->count > 0 && SignUnclaimed(other, other->claims, pool);
    }
    if (!helped) return;
  }
}

}  // namespace

// Per-document columns, appended in Add order.

Result<std::unique_ptr<Deduper>> Deduper::Create(const DedupOptions& options, Executor* executor, Env* env) {
  NEARDUP_RETURN_IF_ERROR(options.Validate());
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<MethodImpl> method, NewMethodImpl(options));
  if (env == nullptr) env = Env::Default();
  auto d = std::make_unique<DeduperImpl>(options, std::move(method), executor, env);
  return std::unique_ptr<Deduper>(std::move(d));
}

DeduperImpl::DeduperImpl(const DedupOptions& options, std::unique_ptr<MethodImpl> method, Executor* executor,
                         Env* env)
    : options_(options),
      method_(std::move(method)),
      executor_(executor),
      env_(env),
      keeper_options_(KeeperOptions::Parse(options.keeper).value()),
      columns_(std::make_unique<Columns>()) {
  count_in_links_ = keeper_options_.uses(KeeperRule::kInLinks);
  words_per_doc_ = method_->signature_words();
  contexts_ = std::make_unique<SignContextPool>(method_.get(), count_in_links_, 0);
  summary_.method_spec = method_->Spec();
  summary_.kernel = method_->kernel();
  summary_.threads = executor ? executor->num_threads() + 1 : 1;  // and the calling thread
}

DeduperImpl::~DeduperImpl() {
  run_.reset();
  if (units_spill_) (void)units_spill_->Close();
  if (!units_path_.empty()) (void)env_->RemoveFile(units_path_);
  mapped_words_.reset();
  if (words_spill_) (void)words_spill_->Close();
  if (!words_path_.empty()) (void)env_->RemoveFile(words_path_);
  if (features_spill_) (void)features_spill_->Close();
  if (!features_path_.empty()) (void)env_->RemoveFile(features_path_);
}

Status DeduperImpl::SpillSignatures() {
  if (count_ != 0) return Status::FailedPrecondition("SpillSignatures: pages were added already");
  if (!method_->reads_mapped_words() || words_per_doc_ == 0 || signatures_spilled()) return Status::OK();
  NEARDUP_RETURN_IF_ERROR(OpenSpill(".signatures", &words_path_, &words_spill_));
  // The keeper rules' features wait on disk too: the keeper stage reads
  // them after the near-duplicate stage, a block at a time.
  return OpenSpill(".features", &features_path_, &features_spill_);
}

Result<std::unique_ptr<MappedFile>> DeduperImpl::MapSpill(const std::string& path,
                                                          std::unique_ptr<BufferedWriter>* writer, uint64_t bytes,
                                                          const char* what) {
  if (*writer) {
    if (Status st = (*writer)->Close(); !st.ok()) return Status::IOError("cannot write " + path + ": " + st.message());
    writer->reset();
  }
  auto mapped = env_->MapFile(path);
  if (!mapped.ok()) return Status::IOError("cannot read " + path + ": " + mapped.status().message());
  if ((*mapped)->data().size() != bytes) {
    return Status::Corruption(path + ": the " + what + " spill does not hold every page");
  }
  return std::move(mapped).value();
}

Status DeduperImpl::ReadFeatureBlocks(const MappedFile& file, uint32_t n, const KeeperFeatureVisitor& fn) {
  std::vector<KeeperFeatures> block;
  for (uint32_t from = 0; from < n; from += kFeaturesPerRead) {
    const uint32_t to = static_cast<uint32_t>(std::min<uint64_t>(n, uint64_t{from} + kFeaturesPerRead));
    block.resize(to - from);
    if (Status st = file.ReadAt(uint64_t{from} * sizeof(KeeperFeatures), block.size() * sizeof(KeeperFeatures),
                                reinterpret_cast<char*>(block.data()));
        !st.ok()) {
      return Status::IOError("cannot read " + features_path_ + ": " + st.message());
    }
    fn(from, to, block.data());
  }
  return Status::OK();
}

Status DeduperImpl::OpenSpill(const std::string& suffix, std::string* path, std::unique_ptr<BufferedWriter>* out) {
  const std::string dir = options_.temp_dir.empty() ? "." : options_.temp_dir;
  *path = JoinPath(dir, "." + method_->name() + suffix + spill_suffix_);
  auto f = env_->NewWritableFile(*path);
  if (!f.ok()) {
    const std::string failed = *path;
    path->clear();
    return Status::IOError("cannot write " + failed + ": " + f.status().message());
  }
  *out = std::make_unique<BufferedWriter>(std::move(f).value());
  return Status::OK();
}

Status DeduperImpl::CheckOpen() const {
  if (mapped_words_) {
    return Status::FailedPrecondition("the signatures are spilled and were clustered: no document can be added");
  }
  if (finished_) {
    return Status::FailedPrecondition(method_->batch_only()
                                          ? "the " + method_->name() +
                                                " method is batch-only: no document can be added after Cluster()"
                                          : "Finish() was called: no document can be added");
  }
  return Status::OK();
}

Status DeduperImpl::StartUnitsSpill() {
  if (!method_->batch_only() || units_spill_) return Status::OK();
  return OpenSpill(".spill", &units_path_, &units_spill_);
}

Status DeduperImpl::CommitBatch(SignBatch* b, const DocumentCallback& on_document) {
  b->Wait();
  sign_seconds_ += b->work_seconds;
  Columns& c = *columns_;
  size_t units_begin = 0, links_at = 0;
  for (size_t i = 0; i < b->count; ++i) {
    const DocKeys& k = b->keys[i];
    const Document& d = b->docs[i];
    const uint32_t id = static_cast<uint32_t>(count_);
    c.token_fp.push_back(k.token_fp);
    c.byte_fp.push_back(k.byte_fp);
    c.terms.push_back(k.terms);
    c.eligible.push_back(k.eligible);
    if (k.redirect_key != kNoRedirect) c.redirects.push_back({id, k.redirect_key, k.revisit});
    const KeeperFeatures features = KeeperFeatures::Of(d);
    if (features_spill_) {
      features_spill_->buffer()->append(reinterpret_cast<const char*>(&features), sizeof features);
    } else {
      c.features.push_back(features);
    }
    const uint64_t* w = b->words.data() + i * words_per_doc_;
    if (words_spill_) {
      words_spill_->buffer()->append(reinterpret_cast<const char*>(w), words_per_doc_ * sizeof(uint64_t));
    } else {
      for (size_t t = 0; t < words_per_doc_; ++t) c.words.push_back(w[t]);
    }
    if (count_in_links_) {
      c.url_keys.push_back(k.url_key);
      c.link_counts.push_back(k.link_count);
      for (uint32_t l = 0; l < k.link_count; ++l) c.link_keys.push_back(b->link_keys[links_at++]);
    }
    if (units_spill_) {
      method_->AppendUnitRecord(id, std::string_view(b->units).substr(units_begin, k.units_end - units_begin),
                                units_spill_->buffer());
    }
    units_begin = k.units_end;
    for (uint32_t t = 0; t < length_dims_; ++t) c.lengths.push_back(b->lengths[i * length_dims_ + t]);
    removed_.push_back(0);
    ++count_;
    if (on_document) NEARDUP_RETURN_IF_ERROR(on_document(id, d));
  }
  b->count = 0;
  if (units_spill_) {
    if (Status s = units_spill_->MaybeFlush(); !s.ok()) return Status::IOError("cannot write " + units_path_ + ": " + s.message());
  }
  if (words_spill_) {
    if (Status s = words_spill_->MaybeFlush(); !s.ok()) return Status::IOError("cannot write " + words_path_ + ": " + s.message());
  }
  if (features_spill_) {
    if (Status s = features_spill_->MaybeFlush(); !s.ok()) {
      return Status::IOError("cannot write " + features_path_ + ": " + s.message());
    }
  }
  return Status::OK();
}

Result<DocId> DeduperImpl::Add(const Document& document) {
  NEARDUP_ASSIGN_OR_RETURN(std::vector<DocId> ids, Add(std::span<const Document>(&document, 1)));
  return ids.front();
}

Result<std::vector<DocId>> DeduperImpl::Add(std::span<const Document> documents) {
  NEARDUP_RETURN_IF_ERROR(CheckOpen());
  if (count_ + documents.size() > kMaxDocuments) {
    return Status::ResourceExhausted("a Deduper holds at most " + std::to_string(kMaxDocuments) + " documents");
  }
  NEARDUP_RETURN_IF_ERROR(StartUnitsSpill());
  const size_t per = options_.batch_documents;
  const size_t batches = (documents.size() + per - 1) / per;
  // One batch is signed on the calling thread: handing a single document to
  // a worker and waiting for it costs more than it saves.
  Executor* executor = batches > 1 ? executor_ : nullptr;
  std::vector<std::unique_ptr<SignBatch>> work(batches);
  for (size_t k = 0; k < batches; ++k) {
    auto b = std::make_unique<SignBatch>();
    b->docs = documents.data() + k * per;
    b->count = std::min(per, documents.size() - k * per);
    b->Resize(b->count, words_per_doc_);
    Schedule(executor, b.get(), contexts_.get());
    work[k] = std::move(b);
  }
  std::vector<DocId> ids;
  ids.reserve(documents.size());
  for (size_t i = 0; i < documents.size(); ++i) ids.push_back(count_ + i);
  std::vector<SignBatch*> batches_in_order;
  if (executor != nullptr) {
    for (auto& b : work) batches_in_order.push_back(b.get());
  }
  size_t cursor = batches_in_order.size();
  Status status;
  for (auto& b : work) {
    if (status.ok()) {
      if (executor != nullptr) SignWhileWaiting(b.get(), batches_in_order, &cursor, contexts_.get());
      status = CommitBatch(b.get(), {});
    } else {
      b->Wait();
    }
  }
  if (!status.ok()) return status;
  return ids;
}

PageRedirect DeduperImpl::RedirectOf(DocId id) const {
  const ChunkedVector<PageRedirect>& r = columns_->redirects;
  const size_t at = RedirectPlace(r, id);
  return at < r.size() ? r[at] : PageRedirect{id, kNoRedirect, 0};
}

std::vector<PageRedirect> DeduperImpl::LiveRedirects() const {
  std::vector<PageRedirect> out;
  const ChunkedVector<PageRedirect>& r = columns_->redirects;
  for (size_t j = 0; j < r.size(); ++j) {
    if (removed_[r[j].id]) continue;
    // run_ids_ holds the live ids in order: a page's number is its place there.
    const auto at = std::lower_bound(run_ids_.begin(), run_ids_.end(), static_cast<uint32_t>(r[j].id));
    out.push_back({static_cast<uint64_t>(at - run_ids_.begin()), r[j].key, r[j].revisit});
  }
  return out;
}

uint64_t DeduperImpl::column_bytes() const {
  if (!columns_) return removed_.size();
  const Columns& c = *columns_;
  return c.token_fp.bytes() + c.byte_fp.bytes() + c.terms.bytes() +
         c.eligible.bytes() + c.features.bytes() + c.words.bytes() +
         c.url_keys.bytes() + c.link_keys.bytes() + c.link_counts.bytes() +
         c.lengths.bytes() + c.redirects.bytes() + removed_.size();
}

Status DeduperImpl::AddFrom(DocumentSource* source, const DocumentCallback& on_document,
                            const DedupProgressCallback& progress, double progress_interval) {
  NEARDUP_RETURN_IF_ERROR(CheckOpen());
  NEARDUP_RETURN_IF_ERROR(StartUnitsSpill());
  const auto t_start = Clock::now();
  auto last_progress = t_start;
  auto report = [&](bool force) {
    if (!progress) return true;
    if (!force && SecondsSince(last_progress) < progress_interval) return true;
    last_progress = Clock::now();
    DedupProgress p;
    p.documents = count_;
    p.input_bytes_consumed = source->bytes_consumed();
    p.input_bytes_total = source->bytes_total();
    p.payload_bytes = source->stats().payload_bytes;
    p.seconds = SecondsSince(t_start);
    return progress(p);
  };
  // The calling thread reads batches and signs too (SignWhileWaiting): it
  // counts as a thread. Batches are committed in input order. The slots are
  // reused; when none is free and the oldest batch is still being signed by
  // a worker (a long page) with nothing left here to sign, one more slot
  // lets this thread read on rather than wait: one more for each worker,
  // which may each be held by a long page.
  const size_t ring_slots =
      executor_ ? static_cast<size_t>(executor_->num_threads() + 1) * options_.in_flight_per_thread + 1 : 1;
  const size_t max_slots = executor_ ? ring_slots + static_cast<size_t>(executor_->num_threads()) : 1;
  std::vector<std::unique_ptr<SignBatch>> slots;
  std::vector<SignBatch*> free_slots;
  std::deque<SignBatch*> pending;  // scheduled, oldest first
  auto new_slot = [&] {
    auto b = std::make_unique<SignBatch>();
    b->owned.resize(options_.batch_documents);
    b->docs = b->owned.data();
    b->Resize(options_.batch_documents, words_per_doc_);
    slots.push_back(std::move(b));
    return slots.back().get();
  };
  for (size_t k = 0; k < ring_slots; ++k) free_slots.push_back(new_slot());
  // Signs what no worker took (the newest batches first) until the oldest
  // batch is signed or nothing is left to take.
  auto help_oldest = [&] {
    if (executor_ == nullptr || pending.empty()) return;
    std::vector<SignBatch*> others(pending.begin() + 1, pending.end());
    size_t cursor = others.size();
    SignWhileWaiting(pending.front(), others, &cursor, contexts_.get());
  };
  auto commit_oldest = [&]() -> Status {
    help_oldest();
    SignBatch* b = pending.front();
    pending.pop_front();
    free_slots.push_back(b);
    NEARDUP_RETURN_IF_ERROR(CommitBatch(b, on_document));
    // A slot keeps its buffers between batches, but not those grown by an
    // unusually large page: memory stays bounded by the batch. Those go
    // back to the source, which may keep them for its next large pages.
    for (Document& d : b->owned) {
      if (d.body.capacity() <= kKeepBodyCapacity) continue;
      source->Recycle(&d.body);
      if (d.body.capacity() > kKeepBodyCapacity) std::string().swap(d.body);
    }
    return Status::OK();
  };
  // A slot to read the next batch into.
  auto take_slot = [&]() -> Result<SignBatch*> {
    while (!pending.empty() && pending.front()->IsDone()) NEARDUP_RETURN_IF_ERROR(commit_oldest());
    if (free_slots.empty()) {
      help_oldest();
      if (pending.front()->IsDone() || slots.size() >= max_slots) {
        NEARDUP_RETURN_IF_ERROR(commit_oldest());
      } else {
        free_slots.push_back(new_slot());
      }
    }
    SignBatch* b = free_slots.back();
    free_slots.pop_back();
    return b;
  };
  Status status;
  bool cancelled = false;
  bool end_of_input = false;
  while (!end_of_input && !cancelled && status.ok()) {
    Result<SignBatch*> slot = take_slot();
    if (!slot.ok()) {
      status = slot.status();
      break;
    }
    SignBatch* b = slot.value();
    const auto t_read = Clock::now();
    while (b->count < options_.batch_documents) {
      if (count_ + b->count >= kMaxDocuments) {
        status = Status::ResourceExhausted("a Deduper holds at most " + std::to_string(kMaxDocuments) + " documents");
        break;
      }
      if (!source->Next(&b->owned[b->count])) {
        end_of_input = true;
        break;
      }
      ++b->count;
    }
    read_seconds_ += SecondsSince(t_read);
    if (b->count == 0) {
      free_slots.push_back(b);
      break;
    }
    Schedule(executor_, b, contexts_.get());
    pending.push_back(b);
    if (!executor_) status = commit_oldest();
    if (!report(false)) cancelled = true;
  }
  // Commit the rest in order; on an error wait for each (every scheduled
  // batch must finish before the slots are freed).
  while (!pending.empty()) {
    if (status.ok() && !cancelled) {
      status = commit_oldest();
    } else {
      pending.front()->Wait();
      pending.pop_front();
    }
  }
  if (!status.ok()) return status;
  if (cancelled) return Status::Cancelled("cancelled");
  (void)report(true);
  return Status::OK();
}

namespace {

template <typename T>
void AppendRaw(const T& v, std::string* out) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(T));
}

template <typename T>
bool TakeRaw(std::string_view* in, T* v) {
  if (in->size() < sizeof(T)) return false;
  std::memcpy(v, in->data(), sizeof(T));
  in->remove_prefix(sizeof(T));
  return true;
}

}  // namespace

Status DeduperImpl::ExportSigned(DocId first, DocId end, std::string* out, size_t* link_cursor) const {
  if (signatures_spilled()) {
    return Status::FailedPrecondition("the signatures are spilled (SpillSignatures): pages cannot be moved between processes");
  }
  if (method_->batch_only()) {
    return Status::NotSupported("the " + method_->name() +
                                " method is batch-only: its pages cannot be moved between processes");
  }
  if (first > end || end > count_) return Status::InvalidArgument("ExportSigned: id range out of bounds");
  const Columns& c = *columns_;
  // Link keys of the pages before `first` are skipped.
  size_t link_at = 0;
  if (link_cursor != nullptr) {
    link_at = *link_cursor;
  } else if (count_in_links_) {
    for (DocId id = 0; id < first; ++id) link_at += c.link_counts[id];
  }
  for (DocId id = first; id < end; ++id) {
    AppendRaw(c.token_fp[id], out);
    AppendRaw(c.byte_fp[id], out);
    AppendRaw(c.terms[id], out);
    AppendRaw(c.eligible[id], out);
    AppendRaw(removed_[id], out);
    AppendRaw(c.features[id], out);
    const PageRedirect redirect = RedirectOf(id);
    AppendRaw(redirect.key, out);
    AppendRaw(redirect.revisit, out);
    for (size_t t = 0; t < words_per_doc_; ++t) AppendRaw(c.words[id * words_per_doc_ + t], out);
    if (count_in_links_) {
      AppendRaw(c.url_keys[id], out);
      const uint32_t links = c.link_counts[id];
      AppendRaw(links, out);
      for (uint32_t l = 0; l < links; ++l) AppendRaw(c.link_keys[link_at++], out);
    }
  }
  if (link_cursor != nullptr) *link_cursor = link_at;
  return Status::OK();
}

Status DeduperImpl::ImportSigned(std::string_view* in, size_t count) {
  NEARDUP_RETURN_IF_ERROR(CheckOpen());
  if (signatures_spilled() && count > 0) {
    return Status::FailedPrecondition("the signatures are spilled (SpillSignatures): pages cannot be moved between processes");
  }
  if (method_->batch_only()) {
    return Status::NotSupported("the " + method_->name() +
                                " method is batch-only: its pages cannot be moved between processes");
  }
  if (count_ + count > kMaxDocuments) {
    return Status::ResourceExhausted("a Deduper holds at most " + std::to_string(kMaxDocuments) + " documents");
  }
  Columns& c = *columns_;
  const Status cut = Status::Corruption("signed page records cut short");
  for (size_t i = 0; i < count; ++i) {
    uint64_t token_fp = 0, byte_fp = 0;
    uint32_t terms = 0;
    uint8_t eligible = 0, removed = 0;
    KeeperFeatures features;
    uint64_t redirect_key = kNoRedirect;
    uint8_t revisit = 0;
    if (!TakeRaw(in, &token_fp) || !TakeRaw(in, &byte_fp) || !TakeRaw(in, &terms) || !TakeRaw(in, &eligible) ||
        !TakeRaw(in, &removed) || !TakeRaw(in, &features) || !TakeRaw(in, &redirect_key) || !TakeRaw(in, &revisit) ||
        in->size() < words_per_doc_ * sizeof(uint64_t)) {
      return cut;
    }
    if (redirect_key != kNoRedirect) c.redirects.push_back({count_, redirect_key, revisit});
    c.token_fp.push_back(token_fp);
    c.byte_fp.push_back(byte_fp);
    c.terms.push_back(terms);
    c.eligible.push_back(eligible);
    c.features.push_back(features);
    for (size_t t = 0; t < words_per_doc_; ++t) {
      uint64_t w = 0;
      (void)TakeRaw(in, &w);
      c.words.push_back(w);
    }
    if (count_in_links_) {
      uint64_t url_key = 0;
      uint32_t links = 0;
      if (!TakeRaw(in, &url_key) || !TakeRaw(in, &links) || in->size() < size_t{links} * sizeof(uint64_t)) return cut;
      c.url_keys.push_back(url_key);
      c.link_counts.push_back(links);
      for (uint32_t l = 0; l < links; ++l) {
        uint64_t key = 0;
        (void)TakeRaw(in, &key);
        c.link_keys.push_back(key);
      }
    }
    for (uint32_t t = 0; t < length_dims_; ++t) c.lengths.push_back(0);  // not carried: read where it was signed
    removed_.push_back(removed ? 1 : 0);
    removed_count_ += removed ? 1 : 0;
    ++count_;
  }
  return Status::OK();
}

void DeduperImpl::SetLengthDimensions(uint32_t dims) {
  length_dims_ = dims;
  contexts_ = std::make_unique<SignContextPool>(method_.get(), count_in_links_, dims);
}

Status DeduperImpl::SetExternalPairs(std::vector<std::pair<uint32_t, uint32_t>> pairs) {
  if (method_->batch_only() || method_->learns_from_collection()) {
    return Status::NotSupported("the " + method_->name() +
                                " method finds its pairs over the whole collection: they cannot be found elsewhere");
  }
  external_pairs_mode_ = true;
  external_pairs_ = std::move(pairs);
  return Status::OK();
}

void DeduperImpl::ForEachSigned(const std::function<void(DocId id, uint64_t identity, bool eligible,
                                                         const uint64_t* words, const uint32_t* lengths)>& fn) const {
  if (signatures_spilled()) return;  // REQUIRES: not spilled (deduper_impl.h)
  const Columns& c = *columns_;
  std::vector<uint64_t> words(words_per_doc_);
  std::vector<uint32_t> lengths(length_dims_);
  for (DocId id = 0; id < count_; ++id) {
    if (removed_[id]) continue;
    for (size_t t = 0; t < words_per_doc_; ++t) words[t] = c.words[id * words_per_doc_ + t];
    for (uint32_t t = 0; t < length_dims_; ++t) lengths[t] = c.lengths[id * length_dims_ + t];
    fn(id, c.token_fp[id], c.eligible[id] != 0, words.data(), lengths.data());
  }
}

Status DeduperImpl::Remove(DocId id) {
  if (method_->batch_only()) {
    return Status::NotSupported("the " + method_->name() +
                                " method is batch-only (its paper's algorithm runs over a whole collection): "
                                "documents cannot be removed");
  }
  NEARDUP_RETURN_IF_ERROR(CheckOpen());
  if (id >= count_ || removed_[id]) {
    return Status::NotFound("no document with id " + std::to_string(id) +
                            (id < count_ ? " (removed already)" : ""));
  }
  removed_[id] = 1;
  ++removed_count_;
  return Status::OK();
}

Result<Clustering> DeduperImpl::Cluster() {
  // Batch-only methods: the spilled units were consumed by the first
  // clustering, and nothing can change since (no Add, no Remove): it stands.
  if (last_clustering_) return *last_clustering_;
  if (finished_) return Status::FailedPrecondition("Finish() was called: Cluster() cannot follow");
  return ClusterLive(/*release=*/method_->batch_only());
}

Result<Clustering> DeduperImpl::Finish() {
  if (last_clustering_) return *last_clustering_;
  if (finished_) return Status::FailedPrecondition("Finish() was called already");
  return ClusterLive(/*release=*/true);
}

void DeduperImpl::ResetSummary() {
  DedupSummary fresh;
  fresh.method_spec = std::move(summary_.method_spec);
  fresh.kernel = std::move(summary_.kernel);
  fresh.threads = summary_.threads;
  summary_ = std::move(fresh);
}

Result<Clustering> DeduperImpl::ClusterLive(bool release) {
  Columns& col = *columns_;
  run_.reset();  // the last clustering's run: its columns go before new ones are made
  // Live documents, numbered 0..n-1 in Add order.
  run_ids_.clear();
  for (uint64_t id = 0; id < count_; ++id) {
    if (!removed_[id]) run_ids_.push_back(static_cast<uint32_t>(id));
  }
  const uint32_t n = static_cast<uint32_t>(run_ids_.size());
  const bool all_live = n == count_;
  // Takes column `c` of the live documents: moved out when releasing with
  // nothing removed, else copied.
  auto live_column = [&](auto& c, size_t width) {
    using T = typename std::decay_t<decltype(c.MoveToVector())>::value_type;
    if (release && all_live) return c.MoveToVector();
    std::vector<T> out;
    out.reserve(size_t{n} * width);
    for (uint32_t id : run_ids_) {
      for (size_t t = 0; t < width; ++t) out.push_back(c[size_t{id} * width + t]);
    }
    return out;
  };
  if (release) finished_ = true;

  ResetSummary();
  DedupSummary& s = summary_;

  // ---- exact identity sets ----
  const auto t_exact = Clock::now();
  ExactGrouper grouper;
  {
    const std::vector<uint64_t> token_fp = live_column(col.token_fp, 1);
    const std::vector<uint64_t> byte_fp = live_column(col.byte_fp, 1);
    const std::vector<uint32_t> terms = live_column(col.terms, 1);
    for (uint32_t i = 0; i < n; ++i) {
      grouper.Add(terms[i] > 0, token_fp[i], byte_fp[i]);
      s.empty_documents += terms[i] == 0;
      s.documents_without_content += byte_fp[i] == kNoByteKey;
      s.terms += terms[i];
    }
  }
  const ExactStats exact = grouper.Finish(executor_);
  s.documents = n;
  s.token_identity_sets = exact.token_identity_sets;
  s.byte_identity_sets = exact.byte_identity_sets;
  s.stages.push_back({"exact", SecondsSince(t_exact), uint64_t{n} * 28});

  // ---- near duplicates (one page per identity set enters the tables) ----
  UnionFind uf(n);
  for (uint32_t i = 0; i < n; ++i) uf.Union(i, grouper.Root(i));
  const bool near_method = method_->finds_near_duplicates();
  {
    const auto t_near = Clock::now();
    MethodCollection mc;
    mc.n = n;
    if (signatures_spilled()) {
      if (!all_live) return Status::FailedPrecondition("the signatures are spilled: pages cannot be clustered after Remove");
      if (words_spill_) {
        NEARDUP_ASSIGN_OR_RETURN(
            std::unique_ptr<MappedFile> mapped,
            MapSpill(words_path_, &words_spill_, uint64_t{n} * words_per_doc_ * sizeof(uint64_t), "signature"));
        mapped_words_ = std::move(mapped);
      }
      mc.mapped_words = mapped_words_;
    } else if (release && all_live) {
      mc.pending_words = std::move(col.words);
    } else {
      mc.words = live_column(col.words, words_per_doc_);
    }
    mc.eligible = live_column(col.eligible, 1);
    mc.exact_root.resize(n);
    for (uint32_t i = 0; i < n; ++i) mc.exact_root[i] = grouper.Root(i);
    mc.env = env_;
    mc.temp_dir = options_.temp_dir.empty() ? "." : options_.temp_dir;
    mc.temp_files = !options_.temp_dir.empty();
    mc.collect_pairs = options_.write_pairs;
    mc.max_bucket_pages = options_.broder.max_bucket_pages;
    mc.executor = executor_;
    if (units_spill_) {
      if (Status st = units_spill_->Close(); !st.ok()) {
        return Status::IOError("cannot write " + units_path_ + ": " + st.message());
      }
      units_spill_.reset();
      mc.units_path = units_path_;
      units_path_.clear();  // the stage consumes it
    }
    // The stage's tables get what the budget leaves beside the memory the
    // process already holds (DedupOptions::memory_probe).
    uint64_t resident = 0, peak = 0;
    if (options_.memory_probe) options_.memory_probe(&resident, &peak);
    const uint64_t floor = uint64_t{4} << 20;
    mc.memory_budget = options_.memory_bytes > resident + floor ? options_.memory_bytes - resident : floor;
    mc.memory_limit = options_.memory_bytes;
    mc.memory_probe = options_.memory_probe;
    const std::string consumed_units = mc.units_path;
    uint64_t eligible_representatives = 0;  // the pages the method's tables would take
    for (uint32_t i = 0; i < n; ++i) eligible_representatives += mc.exact_root[i] == i && mc.eligible[i];
    run_ = method_->NewRun(std::move(mc));
    if (near_method && external_pairs_mode_) {
      // The pairs were found elsewhere (SetExternalPairs): where Zhu et
      // al.'s length partitions put the pages.
      if (!all_live) return Status::FailedPrecondition("external near-duplicate pairs need every document live");
      std::vector<uint8_t> has_pair(n, 0);
      for (const auto& [a, b] : external_pairs_) {
        if (a >= n || b >= n) return Status::InvalidArgument("a near-duplicate pair names an unknown page");
        uf.Union(a, b);
        has_pair[a] = has_pair[b] = 1;
      }
      s.near_pairs = external_pairs_.size();
      s.near_candidates = eligible_representatives;
      for (uint32_t i = 0; i < n; ++i) s.pages_with_near_duplicate += has_pair[i];
      s.stages.push_back({"near", SecondsSince(t_near), external_pairs_.size() * 8});
    } else if (near_method) {
      Status st = run_->FindPairs(&uf, &s);
      if (!consumed_units.empty()) (void)env_->RemoveFile(consumed_units);
      NEARDUP_RETURN_IF_ERROR(st);
      s.stages.push_back({"near", SecondsSince(t_near), s.near_candidates * words_per_doc_ * 8});
    }
  }
  const auto t_keep = Clock::now();
  ClusterMap components = ClusterMap::Build(&uf);
  uf.Reset(0);

  // ---- keepers, and verification against them ----
  // Each cluster keeps the page its rules prefer (Zhu et al. §5). With a
  // near-duplicate method every member is then checked against the kept page
  // with the method's own rule (Zhu et al. §5.2), or, where it fails, against
  // a verified member central to the cluster (VerificationCandidates): a
  // member that fails both leaves the cluster, together with its exact
  // copies, so that chains of pairwise matches cannot pull unrelated pages
  // into one cluster.
  // The keeper rules' features: read from their spill a block at a time
  // (all live: the signatures are spilled too), else the column's.
  std::vector<KeeperFeatures> features;
  std::unique_ptr<MappedFile> features_file;
  if (!features_path_.empty()) {
    NEARDUP_ASSIGN_OR_RETURN(features_file, MapSpill(features_path_, &features_spill_,
                                                     uint64_t{n} * sizeof(KeeperFeatures), "features"));
  } else {
    features = live_column(col.features, 1);
  }
  const KeeperFeatureBlocks feature_blocks = [&](const KeeperFeatureVisitor& fn) -> Status {
    if (features_file) return ReadFeatureBlocks(*features_file, n, fn);
    if (n > 0) fn(0, n, features.data());
    return Status::OK();
  };
  std::vector<uint32_t> group(n), keeper(n);
  std::vector<uint8_t> reason(n, kReasonSingle);
  for (uint32_t i = 0; i < n; ++i) {
    group[i] = components.size[i] >= 2 ? components.keeper[i] : kNoGroup;
    keeper[i] = i;
  }
  components = ClusterMap();
  std::vector<uint32_t> in_links;
  if (count_in_links_) {
    // Count, for the pages in clusters only, the distinct live pages linking to them.
    std::unordered_map<uint64_t, uint32_t> count;
    for (uint32_t i = 0; i < n; ++i) {
      if (group[i] != kNoGroup) count.emplace(col.url_keys[run_ids_[i]], 0);
    }
    size_t at = 0;
    for (uint64_t id = 0; id < count_; ++id) {
      const uint32_t links = col.link_counts[id];
      if (!removed_[id]) {
        for (uint32_t l = 0; l < links; ++l) {
          if (auto it = count.find(col.link_keys[at + l]); it != count.end()) ++it->second;
        }
      }
      at += links;
    }
    in_links.assign(n, 0);
    for (uint32_t i = 0; i < n; ++i) {
      if (group[i] != kNoGroup) in_links[i] = count[col.url_keys[run_ids_[i]]];
    }
  }
  const std::vector<uint32_t>* in_links_ptr = count_in_links_ ? &in_links : nullptr;
  NEARDUP_RETURN_IF_ERROR(ChooseKeepers(group, feature_blocks, keeper_options_, &keeper, &reason, in_links_ptr));
  s.stages.push_back({"keepers", SecondsSince(t_keep), uint64_t{n} * sizeof(KeeperFeatures)});
  // The clustering's similarity column, by id, filled here with each
  // verified member's decision against its kept page (MethodRun::Similarity
  // is the decision's): the clustering takes it instead of reading the two
  // pages again. A member split off from its kept page is marked
  // kDecideAgain (a later round decides it against its new one, or the
  // clustering does); the column is this vector, moved, so it costs no
  // memory the clustering does not hold anyway.
  const double kDecideAgain = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> similarity_by_id;
  if (near_method && run_->verifies() && options_.verify) {
    const auto t_verify = Clock::now();
    similarity_by_id.assign(count_, 1.0);
    // Every member against the kept page; in a cluster where some fail, a
    // member that passes the cluster's center stays too
    // (VerificationCandidates). The members that fail both are a cluster
    // of their own, verified the same way against the page they keep
    // (group repair), for at most kVerificationRounds rounds; what fails
    // the last round leaves with its exact copies.
    std::vector<uint8_t> in_play(n, 1), next_play(n, 0), passes_kept(n, 1), failing(n, 0);  // failing: per kept page
    Executor* verifiers = run_->decides_concurrently() ? executor_ : nullptr;
    for (size_t round = 0; round < kVerificationRounds; ++round) {
      const bool last_round = round + 1 == kVerificationRounds;
      RunTasks(verifiers, (n + kVerifyPagesPerTask - 1) / kVerifyPagesPerTask, [&](size_t task) {
        const uint32_t end = static_cast<uint32_t>(std::min<uint64_t>(n, (task + 1) * kVerifyPagesPerTask));
        // The task's pairs are decided together (MethodRun::DecideMany).
        std::vector<std::pair<uint32_t, uint32_t>> pairs;
        for (uint32_t i = static_cast<uint32_t>(task * kVerifyPagesPerTask); i < end; ++i) {
          passes_kept[i] = 1;
          if (!in_play[i]) continue;
          const uint32_t k = keeper[i];
          if (k == i || grouper.Root(i) == grouper.Root(k)) continue;
          pairs.emplace_back(i, k);
        }
        std::vector<PairDecision> decisions(pairs.size());
        run_->DecideMany(pairs, decisions.data());
        for (size_t j = 0; j < pairs.size(); ++j) {
          const uint32_t i = pairs[j].first;
          passes_kept[i] = decisions[j].duplicate;
          similarity_by_id[run_ids_[i]] = decisions[j].similarity;
        }
      });
      bool any_failing = false;
      std::fill(failing.begin(), failing.end(), 0);
      for (uint32_t i = 0; i < n; ++i) {
        if (passes_kept[i]) {
          s.verification_repaired += round > 0 && in_play[i] && keeper[i] != i;  // passes its new kept page
          continue;
        }
        failing[keeper[i]] = 1;
        any_failing = true;
      }
      if (!any_failing) break;
      for (uint32_t i = 0; i < n; ++i) group[i] = kNoGroup;
      // Members of each such cluster, in input order, keyed by kept page.
      std::unordered_map<uint32_t, std::vector<uint32_t>> members;
      for (uint32_t i = 0; i < n; ++i) {
        if (in_play[i] && failing[keeper[i]]) members[keeper[i]].push_back(i);
      }
      std::fill(next_play.begin(), next_play.end(), 0);
      for (uint32_t k = 0; k < n; ++k) {
        if (!failing[k]) continue;
        const std::vector<uint32_t>& m = members[k];
        std::vector<uint64_t> roots(m.size());
        for (size_t j = 0; j < m.size(); ++j) roots[j] = grouper.Root(m[j]);
        const std::vector<uint64_t> candidates = VerificationCandidates(k, grouper.Root(k), roots);
        auto passes = [&](size_t j, uint32_t c) {
          const uint32_t i = m[j];
          if (grouper.Root(i) == grouper.Root(c)) return true;
          if (c == k) return passes_kept[i] != 0;
          return run_->Decide(i, c).duplicate;
        };
        // A candidate is a center only when it is a verified member itself.
        uint32_t center = k;
        size_t best = 0;
        size_t kept_count = 0;
        for (uint64_t c : candidates) {
          if (c != k && (!in_play[c] || !passes_kept[c])) continue;
          size_t count = 0;
          for (size_t j = 0; j < m.size(); ++j) count += passes_kept[m[j]] || passes(j, static_cast<uint32_t>(c));
          if (c == k) kept_count = count;
          if (count > best) {
            best = count;
            center = static_cast<uint32_t>(c);
          }
        }
        if (!CenterGathers(m.size(), kept_count, best)) center = k;
        for (size_t j = 0; j < m.size(); ++j) {
          const uint32_t i = m[j];
          if (passes_kept[i] || passes(j, center)) {
            s.verification_repaired += round > 0 && !passes_kept[i];  // through the center
            continue;
          }
          keeper[i] = i;
          reason[i] = kReasonSingle;
          similarity_by_id[run_ids_[i]] = kDecideAgain;
          s.verification_split_off += round == 0;
          if (last_round) {
            // Leaves with its exact copies (robust: with the pages equal
            // to it after normalization).
            group[i] = run_->SplitRoot(i);
          } else {
            group[i] = k;  // the cluster's failed members, kept apart
            next_play[i] = 1;
          }
        }
        s.verification_recentered += center != k;
      }
      NEARDUP_RETURN_IF_ERROR(ChooseKeepers(group, feature_blocks, keeper_options_, &keeper, &reason, in_links_ptr));
      in_play.swap(next_play);
    }
    s.stages.push_back({"verify", SecondsSince(t_verify), uint64_t{n} * words_per_doc_ * 8});
  }

  // ---- redirects join the cluster of the page their chain ends at ----
  // (engine/redirects.h), and revisits that of the capture they name. Such
  // a page is alone until here: it has no content of its own to match.
  // Memory: the target keys (16 to 32 bytes each), a record per page that
  // one names, and a byte a page.
  enum : uint8_t { kJoinedRedirect = 1, kJoinedRevisit = 2 };
  std::vector<uint8_t> joined;  // by page number, when the run holds redirects or revisits
  {
    const std::vector<PageRedirect> redirects = LiveRedirects();
    bool captures = false;  // some revisit names a capture by its date
    for (const PageRedirect& r : redirects) {
      s.revisits += r.revisit;
      captures |= r.revisit != 0;
    }
    s.redirects = redirects.size() - s.revisits;
    if (!redirects.empty()) {
      FlatU64Set targets;
      targets.Reserve(redirects.size());
      for (const PageRedirect& r : redirects) targets.Insert(r.key);
      std::vector<UrlHolder> holders;
      NEARDUP_RETURN_IF_ERROR(feature_blocks([&](uint32_t from, uint32_t to, const KeeperFeatures* block) {
        for (uint32_t i = from; i < to; ++i) {
          const KeeperFeatures& f = block[i - from];
          EachNameOf(f, captures, [&](uint64_t key) {
            if (!targets.Contains(key) || RevisitIn(redirects, i)) return;
            UrlHolder h = HolderOf(i, f, RedirectKeyIn(redirects, i), key);
            h.keeper = keeper[i];
            h.reason = reason[i];
            holders.push_back(h);
          });
        }
      }));
      const RedirectChains chains(holders);
      joined.assign(n, 0);
      for (const PageRedirect& r : redirects) {
        bool cycle = false;
        const UrlHolder* end = chains.End(r.key, &cycle);
        s.redirect_cycles += cycle;
        if (end == nullptr) continue;
        const uint32_t i = static_cast<uint32_t>(r.id);
        keeper[i] = static_cast<uint32_t>(end->keeper);
        reason[i] = end->reason;
        joined[i] = r.revisit ? kJoinedRevisit : kJoinedRedirect;
        ++(r.revisit ? s.revisits_joined : s.redirects_joined);
      }
    }
  }
  auto is_joined = [&](uint32_t i) { return !joined.empty() && joined[i] != 0; };

  // The keeper rules are done with: their columns (24 bytes a page when
  // not spilled) and the keeper groups (4 bytes a page) go before the
  // clustering's columns are made.
  std::vector<KeeperFeatures>().swap(features);
  features_file.reset();
  std::vector<uint32_t>().swap(in_links);
  std::vector<uint32_t>().swap(group);

  // ---- the clustering ----
  const auto t_clusters = Clock::now();
  // The result's own columns hold what is counted per kept page first (by
  // the kept page's id): size_ its cluster's size, cluster_ its smallest
  // member's id, method_ 2 when a member joined it as a near duplicate.
  // A kept page is its own keeper, and no other page's: a member's slots
  // are its own.
  Clustering c;
  c.method_name_ = method_->name();
  const size_t total = count_;
  c.d_->cluster_.assign(total, Clustering::kNone);
  c.d_->keeper_.resize(total);
  c.d_->size_.assign(total, 0);
  // Verification's decisions, by id: near members keep theirs below.
  const bool verified = similarity_by_id.size() == total;
  if (verified) {
    c.d_->similarity_ = std::move(similarity_by_id);
  } else {
    c.d_->similarity_.assign(total, 1.0);
  }
  c.d_->role_.assign(total, DocRole::kRemoved);
  c.d_->method_.assign(total, 0);
  c.d_->reason_.assign(total, 0);
  std::vector<uint32_t>& size = c.d_->size_;
  std::vector<uint32_t>& cluster = c.d_->cluster_;
  auto& method = c.d_->method_;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t kept_id = run_ids_[keeper[i]];
    ++size[kept_id];
    cluster[kept_id] = std::min(cluster[kept_id], run_ids_[i]);  // ids grow with page numbers
  }
  // Redirects and revisits joined to each kept page (by id): a cluster
  // whose other members are all such pages is kept for them (method
  // "redirect", reason "redirect-target"; "revisit" and "revisited" when
  // they are all revisits).
  std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> joined_to;  // (joined, of them revisits)
  for (uint32_t i = 0; i < joined.size(); ++i) {
    if (joined[i] == 0) continue;
    auto& [all, revisits] = joined_to[run_ids_[keeper[i]]];
    ++all;
    revisits += joined[i] == kJoinedRevisit;
  }
  // 0: the cluster holds a page with content besides its kept page (or is
  // none); kJoinedRedirect or kJoinedRevisit: the others are all joined.
  auto only_joined = [&](uint32_t kept_id) -> uint8_t {
    const auto it = joined_to.find(kept_id);
    if (it == joined_to.end() || it->second.first + 1 != size[kept_id]) return 0;
    return it->second.second == it->second.first ? kJoinedRevisit : kJoinedRedirect;
  };
  auto kept_reason = [&](uint32_t kept_id, uint8_t rule) -> uint8_t {
    const uint8_t only = only_joined(kept_id);
    return only == kJoinedRevisit ? kReasonRevisited : only == kJoinedRedirect ? kReasonRedirectTarget : rule;
  };
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t k = keeper[i];
    const uint32_t kept_id = run_ids_[k];
    if (size[kept_id] < 2) {
      reason[i] = kReasonSingle;
      continue;
    }
    if (near_method && grouper.Root(i) != grouper.Root(k) && !is_joined(i)) {
      method[kept_id] = 2;
      ++s.near_duplicate_members;
    }
    ++s.documents_in_clusters;
    if (k == i) {
      ++s.clusters;
      s.largest_cluster = std::max<uint64_t>(s.largest_cluster, size[kept_id]);
    }
  }
  s.duplicates = s.documents_in_clusters - s.clusters;
  s.duplicate_percentage = n ? 100.0 * static_cast<double>(s.duplicates) / n : 0.0;
  c.clusters_ = s.clusters;
  c.documents_in_clusters_ = s.documents_in_clusters;
  // reason names: index 0 "single", then the rules, then "input-order".
  for (uint8_t r : {kReasonSingle}) c.d_->reason_names_.push_back(ReasonName(r, keeper_options_));
  std::vector<uint8_t> reason_slot(256, 0);
  for (size_t r = 0; r < keeper_options_.rules.size(); ++r) {
    reason_slot[r] = static_cast<uint8_t>(c.d_->reason_names_.size());
    c.d_->reason_names_.push_back(ReasonName(static_cast<uint8_t>(r), keeper_options_));
  }
  reason_slot[kReasonInputOrder] = static_cast<uint8_t>(c.d_->reason_names_.size());
  c.d_->reason_names_.push_back(ReasonName(kReasonInputOrder, keeper_options_));
  for (uint8_t r : {kReasonRedirectTarget, kReasonRevisited}) {
    reason_slot[r] = static_cast<uint8_t>(c.d_->reason_names_.size());
    c.d_->reason_names_.push_back(ReasonName(r, keeper_options_));
  }
  reason_slot[kReasonSingle] = 0;
  for (uint64_t id = 0; id < total; ++id) c.d_->keeper_[id] = static_cast<uint32_t>(id);
  std::vector<uint32_t> similar_members;  // near-duplicate members (page numbers)
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t id = run_ids_[i];
    const uint32_t k = keeper[i];
    const uint32_t kept_id = run_ids_[k];
    const bool clustered = size[kept_id] >= 2;
    c.d_->keeper_[id] = kept_id;
    // 1.0 but for a near-duplicate member, which keeps verification's decision.
    const double decided = c.d_->similarity_[id];
    c.d_->similarity_[id] = 1.0;
    if (k != i) cluster[id] = cluster[kept_id];
    c.d_->reason_[id] = reason_slot[kept_reason(kept_id, reason[i])];
    if (!clustered) {
      c.d_->role_[id] = DocRole::kSingle;
      continue;
    }
    c.d_->role_[id] = k == i ? DocRole::kKeep : DocRole::kDuplicate;
    // method: what put the page in its cluster; similarity: to the kept page.
    if (k == i) {
      const uint8_t only = only_joined(id);
      method[id] = method[id] == 2 ? 2 : only == kJoinedRevisit ? 4 : only == kJoinedRedirect ? 3 : 1;
    } else if (is_joined(i)) {
      method[id] = joined[i] == kJoinedRevisit ? 4 : 3;
    } else if (grouper.Root(i) == grouper.Root(k)) {
      method[id] = 1;
    } else {
      method[id] = 2;
      c.d_->similarity_[id] = decided;
      similar_members.push_back(i);
    }
  }
  // The method's similarity of each near-duplicate member to its kept page.
  RunTasks(run_->decides_concurrently() ? executor_ : nullptr,
           (similar_members.size() + kVerifyPagesPerTask - 1) / kVerifyPagesPerTask, [&](size_t task) {
             const size_t end = std::min(similar_members.size(), (task + 1) * kVerifyPagesPerTask);
             for (size_t t = task * kVerifyPagesPerTask; t < end; ++t) {
               const uint32_t i = similar_members[t];
               double& similarity = c.d_->similarity_[run_ids_[i]];
               if (!verified || std::isnan(similarity)) similarity = run_->Similarity(i, keeper[i]);
             }
           });
  s.stages.push_back({"clusters", SecondsSince(t_clusters), uint64_t{total} * 16});
  if (method_->batch_only()) last_clustering_ = std::make_unique<Clustering>(c);
  return c;
}

std::vector<PairColumn> DeduperImpl::PairColumns() const {
  return run_ ? run_->PairColumns() : std::vector<PairColumn>();
}

std::vector<std::string> DeduperImpl::pair_columns() const {
  std::vector<std::string> names;
  for (const PairColumn& c : PairColumns()) names.push_back(c.name);
  return names;
}

Result<PairDecision> DeduperImpl::Explain(DocId a, DocId b) const {
  if (!run_) return Status::FailedPrecondition("Explain: Cluster() has not run");
  if (finished_) return Status::FailedPrecondition("Explain: Finish() released the documents' columns");
  auto index_of = [&](DocId id) -> Result<uint32_t> {
    const auto it = std::lower_bound(run_ids_.begin(), run_ids_.end(), id);
    if (it == run_ids_.end() || *it != id) {
      return Status::NotFound("Explain: document " + std::to_string(id) + " is not in the last clustering");
    }
    return static_cast<uint32_t>(it - run_ids_.begin());
  };
  NEARDUP_ASSIGN_OR_RETURN(const uint32_t ia, index_of(a));
  NEARDUP_ASSIGN_OR_RETURN(const uint32_t ib, index_of(b));
  const Columns& col = *columns_;
  if (a == b) return PairDecision{true, 1.0, "the same document"};
  if (col.terms[a] > 0 && col.terms[b] > 0 && col.token_fp[a] == col.token_fp[b]) {
    return PairDecision{true, 1.0, "the same token sequence: exact duplicates"};
  }
  if (col.byte_fp[a] == kNoByteKey || col.byte_fp[b] == kNoByteKey) {
    return PairDecision{false, 0,
                        "a page has no content of its own (an HTTP redirect, whose content is its target's, a "
                        "revisit, whose content is an earlier capture's, or an empty body): no method matches it; a "
                        "redirect is in the cluster of the page its chain of redirects ends at, and a revisit in "
                        "that of the capture it names, when that page is in the run"};
  }
  if (col.byte_fp[a] == col.byte_fp[b]) return PairDecision{true, 1.0, "the same bytes: exact duplicates"};
  if (!method_->finds_near_duplicates()) {
    return PairDecision{false, 0, "neither the tokens nor the bytes are equal (exact duplicates only)"};
  }
  if (!col.eligible[a] || !col.eligible[b]) {
    return PairDecision{false, 0, "a page takes no part in the method's tables: only exact copies are matched"};
  }
  PairDecision decision = run_->Decide(ia, ib);
  decision.candidacy = run_->Candidacy(ia, ib);
  return decision;
}

bool DeduperImpl::pairs_ordered_by_url() const { return run_ && run_->PairsOrderedByUrl(); }

bool DeduperImpl::has_pairs() const { return run_ && run_->HasPairs(); }

void DeduperImpl::MarkPairMembers(std::vector<uint8_t>* member) const {
  if (!run_) return;
  std::vector<uint8_t> by_page(run_ids_.size(), 0);
  run_->MarkPairMembers(&by_page);
  member->assign(count_, 0);
  for (size_t p = 0; p < by_page.size(); ++p) (*member)[run_ids_[p]] = by_page[p];
}

Status DeduperImpl::ForEachPair(const std::function<Status(DocId a, DocId b, std::span<const double> values)>& fn) {
  if (!run_) return Status::FailedPrecondition("Cluster() has not run");
  return run_->ForEachPair(
      [&](uint32_t a, uint32_t b, std::span<const double> values) { return fn(run_ids_[a], run_ids_[b], values); });
}

void DeduperImpl::WriteMethodSummary(const DedupOptions& options, nlohmann::ordered_json* root) const {
  if (run_) run_->WriteSummary(summary_, options, root);
}

}  // namespace neardup
