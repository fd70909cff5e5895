// Copyright neardup authors. Licensed under Apache-2.0.
//
// The Deduper behind include/neardup/deduper.h, and what RunDedup (the
// batch job) needs of it beyond the public interface: the method's sections
// of summary.json and the stage timings.
#ifndef NEARDUP_ENGINE_DEDUPER_IMPL_H_
#define NEARDUP_ENGINE_DEDUPER_IMPL_H_

#include <functional>
#include <memory>
#include <span>
#include <utility>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/exact_grouper.h"
#include "engine/keeper.h"
#include "engine/method_impl.h"
#include "engine/redirects.h"
#include "neardup/deduper.h"

namespace neardup {

class BufferedWriter;
class ProcessGroup;
struct SignBatch;
class SignContextPool;

class DeduperImpl final : public Deduper {
 public:
  DeduperImpl(const DedupOptions& options, std::unique_ptr<MethodImpl> method, Executor* executor, Env* env);
  ~DeduperImpl() override;

  const Method& method() const override { return *method_; }
  Result<DocId> Add(const Document& document) override;
  Result<std::vector<DocId>> Add(std::span<const Document> documents) override;
  Status AddFrom(DocumentSource* source, const DocumentCallback& on_document, const DedupProgressCallback& progress,
                 double progress_interval) override;
  Status Remove(DocId id) override;
  Result<Clustering> Cluster() override;
  uint64_t size() const override { return count_; }
  uint64_t live() const override { return count_ - removed_count_; }
  const DedupSummary& summary() const override { return summary_; }
  Result<PairDecision> Explain(DocId a, DocId b) const override;
  std::vector<std::string> pair_columns() const override;
  Status ForEachPair(const std::function<Status(DocId a, DocId b, std::span<const double> values)>& fn) override;
  // The pair columns with their decimals (pairs.tsv's writer).
  std::vector<PairColumn> PairColumns() const;

  // As Cluster(), releasing the signatures as it goes (the batch job's last
  // step: one copy of them at the peak). No call but the ones below may follow.
  Result<Clustering> Finish();
  // After Cluster()/Finish(): whether pairs.tsv rows are ordered by URL,
  // and the method's sections of summary.json.
  bool pairs_ordered_by_url() const;
  bool has_pairs() const;
  void MarkPairMembers(std::vector<uint8_t>* member) const;  // by id
  void WriteMethodSummary(const DedupOptions& options, nlohmann::ordered_json* root) const;
  // Moving signed pages between processes (DedupJob's shares, for
  // neardup-mpi): appends to *out the records of ids [first, end), what Add
  // kept of each page (no body). NotSupported for the batch-only methods,
  // whose units are spilled, not kept. With in-links, *link_cursor (if not
  // null) is where page `first`'s link keys start, advanced past `end`'s
  // predecessor: consecutive calls then cost nothing to find their start.
  Status ExportSigned(DocId first, DocId end, std::string* out, size_t* link_cursor = nullptr) const;
  // Adds `count` pages from records ExportSigned wrote (a Deduper with the
  // same options), advancing *in past them; ids continue from size().
  // Corruption when the records are cut short.
  Status ImportSigned(std::string_view* in, size_t count);
  // Keeps the signature words of the pages added from now on in a spill
  // file in DedupOptions::temp_dir instead of in memory, when the method
  // reads them mapped (MethodImpl::reads_mapped_words; a no-op for the
  // others): the batch job's memory then grows by what the core keeps of a
  // page, not by its signature. REQUIRES: no page added yet. Afterwards
  // ExportSigned, ImportSigned, ForEachSigned, ClusterTogether and a
  // clustering after Remove are FailedPrecondition, and no page can be
  // added after a clustering.
  Status SpillSignatures();
  bool signatures_spilled() const { return words_spill_ != nullptr || mapped_words_ != nullptr; }
  // Appended to the names of the spill files (OpenSpill), so that the
  // processes of a divided run that share a folder keep theirs apart.
  void SetSpillSuffix(std::string suffix) { spill_suffix_ = std::move(suffix); }
  // Bytes of the per-page columns' values now (the batch job's memory
  // check: their growth a page).
  uint64_t column_bytes() const;
  const MethodImpl& method_impl() const { return *method_; }
  // Zhu et al.'s length vector of each page signed from now on: its terms
  // counted in `dims` dictionary subsets (LengthDimension); 0: none.
  void SetLengthDimensions(uint32_t dims);
  uint32_t length_dimensions() const { return length_dims_; }
  // Cluster() joins these near-duplicate pairs (page ids; every document
  // live) instead of running the method's candidate stage: pairs found by
  // processes that hold the pages of some length partitions (neardup-mpi
  // --partition). NotSupported for methods whose pairs depend on the whole
  // collection (robust's site templates, the batch-only methods).
  Status SetExternalPairs(std::vector<std::pair<uint32_t, uint32_t>> pairs);
  // Calls fn for every live page in id order: its token-sequence identity
  // key, whether it is eligible, its signature words and its length vector
  // (length_dimensions() values).
  void ForEachSigned(const std::function<void(DocId id, uint64_t identity, bool eligible, const uint64_t* words,
                                              const uint32_t* lengths)>& fn) const;
  // The batch clustering divided among the processes of `group`
  // (DedupJob::FinishTogether), each holding the pages of a contiguous
  // range of ids of the whole run, in rank order: this Deduper's pages are
  // ids [base, base + size()) where base counts the pages of the processes
  // before it. Every process calls it; `near_pairs` are whole-run ids of
  // pairs it found (ignored when the method finds no near duplicates;
  // none when it finds its own together: its DividedRun finds them).
  // Fills summary() with the whole run's counts (on every process) and
  // returns this process's rows of clusters.tsv in order. REQUIRES: no
  // page removed. *bytes_sent: what this process sent to the others.
  struct TogetherRow {
    uint64_t keeper = 0;      // whole-run id of the page the cluster keeps
    double similarity = 1.0;  // to the kept page (near-duplicate members)
    DocRole role = DocRole::kSingle;
    uint8_t method = 0;       // 0: single, 1: exact, 2: the near-duplicate method, 3: redirect, 4: revisit
    uint8_t reason = kReasonSingle;  // the keeper rule (keeper.h's codes)
  };
  Result<std::vector<TogetherRow>> ClusterTogether(ProcessGroup* group,
                                                   std::span<const std::pair<uint64_t, uint64_t>> near_pairs,
                                                   uint64_t* bytes_sent);
  const KeeperOptions& keeper_options() const { return keeper_options_; }
  // Seconds spent reading (in AddFrom) and signing (summed over workers).
  double read_seconds() const { return read_seconds_; }
  double sign_seconds() const { return sign_seconds_; }
  void AddSeconds(double read, double sign) {
    read_seconds_ += read;
    sign_seconds_ += sign;
  }

 private:
  // Per-document columns, in Add order.
  struct Columns {
    ChunkedVector<uint64_t> token_fp, byte_fp;
    ChunkedVector<uint32_t> terms;
    ChunkedVector<uint8_t> eligible;
    ChunkedVector<KeeperFeatures> features;  // 24 bytes per document
    ChunkedVector<uint64_t> words;           // W per document
    ChunkedVector<uint64_t> url_keys;        // in-links
    ChunkedVector<uint64_t> link_keys;       // in-links: every page's distinct link keys
    ChunkedVector<uint32_t> link_counts;     // in-links: per page
    ChunkedVector<uint32_t> lengths;         // SetLengthDimensions: dims per page
    ChunkedVector<PageRedirect> redirects;   // the redirects and revisits only (RedirectKey), by id
  };
  // Page `id` as a redirect or revisit (key kNoRedirect when it is neither).
  PageRedirect RedirectOf(DocId id) const;
  // The live redirects and revisits of ClusterLive's run (page numbers by run_ids_), in order.
  std::vector<PageRedirect> LiveRedirects() const;
  Status StartUnitsSpill();
  // Creates the temporary file "." + method name + suffix in temp_dir (the
  // current folder when none): its path into *path, its writer into *out.
  Status OpenSpill(const std::string& suffix, std::string* path, std::unique_ptr<BufferedWriter>* out);
  Status CommitBatch(SignBatch* batch, const DocumentCallback& on_document);
  Status CheckOpen() const;
  // Clears summary() for a new clustering, keeping what signing set (the
  // method spec, the SIMD kernel, the threads).
  void ResetSummary();
  Result<Clustering> ClusterLive(bool release);

  DedupOptions options_;
  std::unique_ptr<MethodImpl> method_;
  Executor* executor_;
  Env* env_;
  KeeperOptions keeper_options_;
  bool count_in_links_ = false;
  size_t words_per_doc_ = 0;
  std::unique_ptr<SignContextPool> contexts_;
  std::unique_ptr<Columns> columns_;
  uint64_t count_ = 0, removed_count_ = 0;
  std::vector<uint8_t> removed_;
  // Batch-only methods: the units spill.
  std::string units_path_;
  std::unique_ptr<BufferedWriter> units_spill_;
  // SpillSignatures: the words' spill file while pages are added, then its
  // mapping.
  std::string words_path_;
  std::unique_ptr<BufferedWriter> words_spill_;
  // ... and the pages' KeeperFeatures, read back by the keeper stage a
  // block at a time (ClusterLive, ClusterTogether: ReadFeatureBlocks).
  std::string features_path_;
  std::unique_ptr<BufferedWriter> features_spill_;
  // Closes a spill's writer (when still open) and maps its file, which must
  // hold `bytes` (Corruption naming the `what` spill otherwise).
  Result<std::unique_ptr<MappedFile>> MapSpill(const std::string& path, std::unique_ptr<BufferedWriter>* writer,
                                               uint64_t bytes, const char* what);
  // The spilled features of pages [0, n) (all live, `file` their mapped
  // spill), kFeaturesPerRead pages at a time: fn(from, to, their features)
  // for consecutive blocks. Read, not seen through the mapping, whose pages
  // would stay resident: a run holds one block, not 24 bytes a page.
  Status ReadFeatureBlocks(const MappedFile& file, uint32_t n, const KeeperFeatureVisitor& fn);
  std::shared_ptr<const MappedFile> mapped_words_;
  std::string spill_suffix_;
  bool finished_ = false;       // Finish() ran, or a batch-only method clustered
  std::unique_ptr<Clustering> last_clustering_;  // batch-only methods: the one clustering
  DedupSummary summary_;
  std::unique_ptr<MethodRun> run_;
  std::vector<uint32_t> run_ids_;  // page number of the last run -> id
  double read_seconds_ = 0, sign_seconds_ = 0;
  uint32_t length_dims_ = 0;
  bool external_pairs_mode_ = false;
  std::vector<std::pair<uint32_t, uint32_t>> external_pairs_;
};

// Buffers appends to a WritableFile in large blocks.
class BufferedWriter {
 public:
  explicit BufferedWriter(std::unique_ptr<WritableFile> file);
  std::string* buffer() { return &buf_; }
  Status MaybeFlush();
  Status Close();
  uint64_t bytes_written() const { return written_ + buf_.size(); }

 private:
  static constexpr size_t kBlock = 1 << 20;
  Status FlushBuffer();
  std::unique_ptr<WritableFile> file_;
  std::string buf_;
  uint64_t written_ = 0;
};

}  // namespace neardup

#endif  // NEARDUP_ENGINE_DEDUPER_IMPL_H_
