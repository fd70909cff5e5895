// Copyright neardup authors. Licensed under Apache-2.0.
//
// Deduper: the living core of neardup. It takes documents and removals, and
// clusters on request: exact identity sets first (Shivakumar and
// Garcia-Molina; Henzinger), then the method's near duplicates among one
// page per identity set, a kept page per cluster by the keeper rules (Zhu
// et al. §5), and every near-duplicate member verified against its kept
// page with the method's rule (Zhu et al. §5.2). `neardup dedup`, the
// service, the MPI driver and the Python module are layers over it.
//
//   neardup::DedupOptions options;            // options.method: a name or a spec
//   auto d = neardup::Deduper::Create(options);
//   neardup::Result<neardup::DocId> id = (*d)->Add(document);
//   neardup::Status s = (*d)->Remove(*id);
//   neardup::Result<neardup::Clustering> c = (*d)->Cluster();
//   c->cluster_of(id); c->keeper_of(id);
//
// Contracts:
//   - Ids are 0, 1, 2, ... in Add order, never reused.
//   - Cluster() after Remove(id) equals Cluster() of a Deduper that never
//     saw the removed documents (ids aside): every decision is made over
//     the live documents only, so a removed kept page lets the rules elect
//     a new one among the rest, and the boilerplate robust learns comes
//     from live pages only.
//   - Output never depends on the executor's thread count.
//   - Cluster() may be called again after more Add/Remove.
//
// Memory: per document the exact keys (20 bytes), keeper features (24
// bytes), the method's signature words and, with the in-links keeper rule,
// its distinct link keys (8 bytes a link); no URL or body is kept (the
// caller has them). A removed document's columns stay until the Deduper is
// destroyed (Remove marks it). Cluster() copies the live columns for the
// run; the batch job's last clustering hands them over instead. Batch-only
// methods spill their units to a temporary file under
// DedupOptions::temp_dir.
//
// Thread safety: a Deduper is not thread-safe; call it from one thread. Add
// of a batch runs the signing on the executor's threads and on the calling
// thread, which signs the pages no worker has taken (of the batch it waits
// for, then of the others) instead of waiting: an executor of T - 1 workers
// (NewExecutorForThreads) keeps T cores busy. AddFrom reads on into one
// more batch for each worker while a worker signs a long page of the
// oldest batch.
#ifndef NEARDUP_DEDUPER_H_
#define NEARDUP_DEDUPER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "neardup/document.h"
#include "neardup/engine.h"
#include "neardup/method.h"
#include "neardup/status.h"

namespace neardup {

class DocumentSource;
class Env;
class Executor;

using DocId = uint64_t;

// A document's place in a clustering.
enum class DocRole : uint8_t {
  kSingle,     // alone in its cluster
  kKeep,       // the page its cluster keeps
  kDuplicate,  // a duplicate of its cluster's kept page
  kRemoved     // removed before the clustering was made
};
const char* DocRoleName(DocRole role);  // "single", "keep", "duplicate", "removed"

// The result of Deduper::Cluster(): one entry per id added so far.
class Clustering {
 public:
  Clustering() = default;

  // Ids covered: every id added before Cluster() was called.
  size_t size() const { return d_->keeper_.size(); }
  bool removed(DocId id) const { return d_->role_[id] == DocRole::kRemoved; }

  // Stable cluster ids: the smallest id among the cluster's members (a
  // page alone is its own cluster). The id stays the same across Cluster()
  // calls as long as that member is not removed and the cluster does not
  // merge with one holding a smaller id. REQUIRES: id < size().
  // kNoCluster for a removed id.
  static constexpr uint64_t kNoCluster = UINT64_MAX;
  uint64_t cluster_of(DocId id) const { return d_->cluster_[id] == kNone ? kNoCluster : d_->cluster_[id]; }
  // The page id's cluster keeps (id itself when alone or kept). A removed
  // id keeps itself.
  DocId keeper_of(DocId id) const { return d_->keeper_[id]; }
  DocRole role_of(DocId id) const { return d_->role_[id]; }
  // What put the page in its cluster: "single", "exact" (an exact copy of
  // the kept page, or a kept page whose cluster holds exact copies only),
  // the method's name, or "redirect" (an HTTP redirect whose chain of
  // redirects ends at a page of the cluster, or a kept page whose cluster
  // holds such redirects only).
  const char* method_of(DocId id) const;
  // The method's similarity to the kept page (PairDecision::similarity; 1
  // for exact copies and single pages).
  double similarity_of(DocId id) const { return d_->similarity_[id]; }
  // The keeper rule that set the cluster's kept page apart from the
  // runner-up ("status", "shorter-url", ..., "input-order"; "single" alone).
  const std::string& keeper_reason_of(DocId id) const { return d_->reason_names_[d_->reason_[id]]; }
  // Members of id's cluster, id's included (1 for a page alone).
  uint64_t cluster_size(DocId id) const {
    return d_->role_[id] == DocRole::kRemoved ? 0 : d_->size_[d_->keeper_[id]];
  }

  // Clusters of two or more pages, and the pages in them.
  uint64_t num_clusters() const { return clusters_; }
  uint64_t documents_in_clusters() const { return documents_in_clusters_; }
  // The method name and spec the clustering was made with.
  const std::string& method_name() const { return method_name_; }

 private:
  friend class DeduperImpl;
  static constexpr uint32_t kNone = UINT32_MAX;
  // The columns, one entry per id (23 bytes), shared by the copies of a
  // clustering: it never changes once made, and a Deduper keeps the last
  // one it made beside the caller's.
  struct Data {
    std::vector<uint32_t> cluster_;     // smallest member id, kNone when removed
    std::vector<uint32_t> keeper_;
    std::vector<uint32_t> size_;        // cluster size, indexed by the kept id
    std::vector<double> similarity_;
    std::vector<DocRole> role_;
    std::vector<uint8_t> method_;       // 0 single, 1 exact, 2 the method, 3 redirect
    std::vector<uint8_t> reason_;       // index into reason_names_
    std::vector<std::string> reason_names_;
  };
  std::shared_ptr<Data> d_ = std::make_shared<Data>();
  std::string method_name_;
  uint64_t clusters_ = 0, documents_in_clusters_ = 0;
};

// Called once per document, in Add order, on the thread that calls Add or
// AddFrom, after the document is signed (the CLI spills its URL here).
using DocumentCallback = std::function<Status(DocId id, const Document& document)>;

class Deduper {
 public:
  // `executor` (may be nullptr: everything on the calling thread) signs
  // batches; `env` (nullptr: Env::Default()) holds the batch-only methods'
  // spill files. Both must outlive the Deduper.
  // Errors: InvalidArgument for bad options (DedupOptions::Validate()).
  static Result<std::unique_ptr<Deduper>> Create(const DedupOptions& options, Executor* executor = nullptr,
                                                 Env* env = nullptr);
  virtual ~Deduper() = default;

  // The method the options chose.
  virtual const Method& method() const = 0;

  // Adds one document; returns its id. Errors: ResourceExhausted past 2^32 - 2
  // documents; IOError when a batch-only method's spill cannot be written.
  virtual Result<DocId> Add(const Document& document) = 0;
  // Adds a batch, signed on the executor's threads; ids are consecutive in
  // the span's order. Output never depends on the thread count.
  virtual Result<std::vector<DocId>> Add(std::span<const Document> documents) = 0;
  // Reads every document of `source` and adds it, reading the next batch
  // while the executor signs the last (the batch pipeline of `neardup
  // dedup`). `on_document` (may be empty) sees each document in order.
  // `progress` (may be empty) is called at most every `progress_interval`
  // seconds; returning false stops the reading with Status::Cancelled.
  virtual Status AddFrom(DocumentSource* source, const DocumentCallback& on_document = {},
                         const DedupProgressCallback& progress = {}, double progress_interval = 0.5) = 0;

  // As if `id` had never been added. NotFound for an unknown or already
  // removed id; NotSupported for the batch-only methods.
  virtual Status Remove(DocId id) = 0;

  // Clusters the live documents (see the file comment).
  virtual Result<Clustering> Cluster() = 0;

  // Ids added so far (removed ones included) and live documents.
  virtual uint64_t size() const = 0;
  virtual uint64_t live() const = 0;

  // After Cluster(): its counters and the method's figures (what
  // summary.json reports), and the near-duplicate pairs it listed when
  // DedupOptions::write_pairs is set: each pair is (id_a, id_b, the values
  // of the method's pair columns, named by pair_columns(): pairs.tsv's
  // columns after url_a and url_b).
  virtual const DedupSummary& summary() const = 0;

  // After Cluster(): the decision on documents a and b that the clustering
  // took, with what it learned from the whole collection (the robust
  // method's site templates, sites joined as mirrors): documents of one
  // identity set are exact duplicates; otherwise the method's one pair
  // rule (Method::Compare, applied by the near stage and by verification),
  // its similarity and its reason in words. Whether the two ended in one
  // cluster is Clustering::cluster_of's answer (a pair the rule rejects
  // may share a cluster through other members). Errors:
  // FailedPrecondition before Cluster(), or after Finish(); NotFound for an
  // unknown or removed id.
  virtual Result<PairDecision> Explain(DocId a, DocId b) const = 0;
  virtual std::vector<std::string> pair_columns() const = 0;
  virtual Status ForEachPair(const std::function<Status(DocId a, DocId b, std::span<const double> values)>& fn) = 0;
};

}  // namespace neardup

#endif  // NEARDUP_DEDUPER_H_
