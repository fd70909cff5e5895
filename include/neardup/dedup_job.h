// Copyright neardup authors. Licensed under Apache-2.0.
//
// DedupJob: the dedup job (RunDedup, include/neardup/engine.h) in its
// phases, so that a run can be divided among processes, as neardup-mpi
// divides it among MPI ranks:
//
//   every process:            job = DedupJob::Create(inputs, out, options, ...)
//                             job->Read(share)                  // its share
//   every process but one:    job->ExportShare(send)            // in chunks
//   the clustering process:   job->ImportShare(chunk) ...       // in input order
//                             job->Finish()                     // writes out/
//
// Reading and signing, the work that grows with the bytes of the crawl, is
// divided; each process keeps only what a Deduper keeps of a page (its
// signature words, exact keys and keeper features, no body) and hands
// those, with its pages' URLs and its read warnings, to the clustering
// process. When the shares are imported in the order of their files, the
// outputs equal RunDedup's over the same inputs byte for byte (clusters.tsv,
// pairs.tsv, warnings.tsv) and every count of summary.json is the same.
// One process reading every file and calling Finish() is RunDedup.
//
// The batch-only methods (paragraphs, chunks) run in one process: their
// ExportShare is NotSupported.
#ifndef NEARDUP_DEDUP_JOB_H_
#define NEARDUP_DEDUP_JOB_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/engine.h"
#include "neardup/method.h"
#include "neardup/source.h"
#include "neardup/status.h"

namespace neardup {

class Env;
class Executor;

// The dictionary split of Zhu, Potapova, Alabduljalil, Liu and Yang
// ("Clustering and Load Balancing Optimization for Redundant Content
// Removal", §4.1): the subset, of N = `dims`, that a term (its 64-bit term
// hash) belongs to. A page's length vector counts its terms in each subset.
// Part of the partition plan's contract (apps/partition uses it): every
// process must split the same way. REQUIRES: dims >= 1.
inline uint32_t LengthDimension(uint64_t term_hash, uint32_t dims) {
  uint64_t h = term_hash ^ 0x7a68755f6c656e73ULL;  // the split's own seed, "zhu_lens"
  h ^= h >> 33;  // MurmurHash3's 64-bit finalizer
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return static_cast<uint32_t>((static_cast<unsigned __int128>(h) * dims) >> 64);
}

// The processes of one divided run, as DedupJob::FinishTogether needs
// them: MPI's world in neardup-mpi, threads in tests. Every process calls
// the collective operations in the same order.
class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  virtual int rank() const = 0;  // 0 .. size() - 1
  virtual int size() const = 0;
  // Collective: process p receives out[p] of every process; returns, by
  // rank, what each process sent this one. out.size() == size(). Any
  // amount is allowed (an implementation splits what its transport cannot
  // carry at once).
  virtual Result<std::vector<std::string>> AllToAll(std::vector<std::string> out) = 0;
};

struct DedupJobOptions {
  // Names this process's temporary files (beside the outputs, or in
  // DedupOptions::temp_dir) so that processes sharing an output folder do
  // not collide; 0 is the clustering process.
  int part = 0;
  // Zhu et al.'s N-dimensional length vector of each page read, computed
  // while signing (LengthDimension); 0: none. ForEachPage hands it out.
  uint32_t length_dimensions = 0;
  // Keep the pages' signature words in a spill file beside the outputs (or
  // in DedupOptions::temp_dir), mapped when clustering, instead of in
  // memory, for the methods that read them so (the default, robust): the
  // run's memory then grows by what the core keeps of a page. For a run
  // that calls Finish() or FinishTogether: ExportShare, and ImportShare of
  // a share with pages, are then FailedPrecondition. RunDedup sets it, and
  // neardup-mpi where its processes cluster together.
  bool spill_signatures = false;
};

class DedupJob {
 public:
  // As RunDedup: `inputs` are all of the run's inputs (each process names
  // the same ones); `out_dir` is created by the clustering process (part 0).
  // Errors: InvalidArgument for bad options, IOError when a temporary file
  // cannot be written.
  static Result<std::unique_ptr<DedupJob>> Create(const std::vector<std::string>& inputs,
                                                  const std::string& out_dir, const DedupOptions& options,
                                                  const DedupJobOptions& job_options = DedupJobOptions(),
                                                  Executor* executor = nullptr, Env* env = nullptr,
                                                  ReadObserver* observer = nullptr);
  virtual ~DedupJob() = default;

  virtual const Method& method() const = 0;

  // Reads and signs this process's share of the inputs (InputShare, in
  // source.h; the default: everything); may be called once. Errors as
  // RunDedup's reading: Cancelled when `progress` returned false.
  virtual Status Read(const InputShare& share, const DedupProgressCallback& progress = {},
                      double progress_interval_seconds = 0.5) = 0;

  // Documents this process holds (its own share, and the shares it imported).
  virtual uint64_t documents() const = 0;

  // Hands what this process read to another's ImportShare: calls `send`
  // with chunks of at most about max_chunk_bytes each (a page's record is
  // never split), in order; the last chunk says it is the last. The job
  // holds nothing of its pages afterwards and can only be destroyed.
  // NotSupported for the batch-only methods.
  virtual Status ExportShare(size_t max_chunk_bytes, const std::function<Status(std::string_view chunk)>& send) = 0;

  // Takes one chunk of another process's ExportShare (every chunk of one
  // share in order, the shares in the order of their files); the share's
  // read warnings go to this job's observer and warnings.tsv as if read
  // here. Returns true
  // after the share's last chunk. InvalidArgument when the chunk comes from
  // a job with another method spec or keeper rules; Corruption when it is
  // damaged.
  virtual Result<bool> ImportShare(std::string_view chunk) = 0;

  // After Read(), before ExportShare(): calls fn for every page this process
  // read, in order (index 0, 1, ... within its share): its exact-identity
  // key (the fingerprint of its token sequence: pages the method can
  // compare that share it are exact copies, and the method's candidate
  // stage takes only the first of them in input order), its signature
  // (Signature::eligible: whether the method can compare it) and its length
  // vector (DedupJobOptions::length_dimensions values).
  virtual Status ForEachPage(const std::function<void(uint64_t index, uint64_t identity, const Signature& signature,
                                                      std::span<const uint32_t> lengths)>& fn) const = 0;

  // Near-duplicate pairs found by other processes where the pages' length
  // partitions are (neardup-mpi --partition): page ids of the whole run
  // (input order). Finish() joins these instead of running the method's
  // candidate stage, then chooses keepers and verifies members with the
  // method's rule as usual; pairs.tsv is not written. May be called more
  // than once (the pairs add up). NotSupported for methods whose pairs
  // depend on the whole collection (robust's site templates; paragraphs,
  // chunks).
  virtual Status AddNearPairs(std::span<const std::pair<uint64_t, uint64_t>> pairs) = 0;

  // Members added to summary.json's top-level object by Finish() (the MPI
  // driver reports its ranks there): the text of a JSON object.
  // InvalidArgument when it is not one.
  virtual Status AddToSummary(std::string_view json_object) = 0;

  // Clusters everything read or imported and writes the outputs, as
  // RunDedup does; returns the summary. May be called once.
  virtual Result<DedupSummary> Finish() = 0;

  // Every process of `group` calls this instead of ExportShare, ImportShare
  // and Finish, after Read() of its share (process p reads share p; the
  // shares are contiguous, in the order of their files): the processes
  // cluster together and no process gathers the others' pages. Each keeps
  // its own pages' records; identity keys, near-duplicate pairs, union-find
  // labels, keeper candidates and the signatures that verification needs
  // travel to the process that owns them (by key hash or page range), as
  // in Zhu et al.'s distributed design. `near_pairs` are the pairs this
  // process found (page ids of the whole run, in input order; the same
  // pair may come from several processes), as AddNearPairs takes them;
  // none for methods that find no near duplicates, and none for methods
  // whose pairs the processes find together (Method::finds_pairs_together:
  // robust learns its site templates and finds its pairs divided).
  //
  // Process 0 writes the outputs: they equal Finish()'s after
  // AddNearPairs(every process's pairs) on one process holding every
  // share (for robust: Finish()'s of that one process): clusters.tsv and
  // warnings.tsv byte for byte, the counts of summary.json. Process 0 holds one chunk of another process's rows at a
  // time. summary.json gains "clustered_together": per process the pages it
  // held, the bytes it sent, its clustering seconds and its peak memory
  // (via DedupOptions::memory_probe). Returns the summary on every process.
  //
  // NotSupported, on every process alike, for the batch-only methods
  // (paragraphs, chunks); InvalidArgument for a pair naming an unknown
  // page, for pairs given to a method that finds its own, and with
  // DedupOptions::write_pairs for a method that finds near duplicates.
  virtual Result<DedupSummary> FinishTogether(ProcessGroup* group,
                                              std::span<const std::pair<uint64_t, uint64_t>> near_pairs) = 0;
};

}  // namespace neardup

#endif  // NEARDUP_DEDUP_JOB_H_
