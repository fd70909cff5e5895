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

struct DedupJobOptions {
  // Names this process's temporary files (beside the outputs, or in
  // DedupOptions::temp_dir) so that processes sharing an output folder do
  // not collide; 0 is the clustering process.
  int part = 0;
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

  // Members added to summary.json's top-level object by Finish() (the MPI
  // driver reports its ranks there): the text of a JSON object.
  // InvalidArgument when it is not one.
  virtual Status AddToSummary(std::string_view json_object) = 0;

  // Clusters everything read or imported and writes the outputs, as
  // RunDedup does; returns the summary. May be called once.
  virtual Result<DedupSummary> Finish() = 0;
};

}  // namespace neardup

#endif  // NEARDUP_DEDUP_JOB_H_
