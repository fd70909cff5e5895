// neardup-mpi: `neardup dedup` divided among MPI ranks.
//
//   mpirun -np N neardup-mpi dedup INPUT... --out DIR [every flag of neardup dedup]
//
// The run's files (ListInputFiles: folders expanded, in reading order) are
// cut into N contiguous shares of about equal bytes, large per-record-gzip
// WARC files at record boundaries (PlanShares); rank r reads and signs
// share r on its own threads (--threads per rank), the work that grows with
// the bytes of the crawl. Ranks 1..N-1 then hand rank 0 what a Deduper keeps
// of each page (signature words, exact keys, keeper features: no body) with
// the pages' URLs and the read warnings, in chunks of at most 64 MiB
// (DedupJob::ExportShare), in rank order; rank 0 clusters and writes the
// outputs. Because the shares are contiguous and imported in order, the
// outputs are those of `neardup dedup` on the same inputs: clusters.tsv,
// pairs.tsv and warnings.tsv byte for byte, and every count of
// summary.json (include/neardup/dedup_job.h). summary.json gains an "mpi"
// object: per rank its files, bytes, documents, bytes sent, seconds reading,
// signing and exchanging, and peak memory.
//
// Memory: rank 0 holds every page's signature, as one `neardup dedup`
// process does; the other ranks hold their share's until it is sent.
// The batch-only methods (paragraphs, chunks) run in one process: for them
// neardup-mpi says so and exits 2.
//
// Exit codes as neardup's: 0 done, 1 nothing usable or an output not
// written, 2 bad usage; every rank exits with rank 0's code.
#include <mpi.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cli_util.h"
#include "dedup_command.h"
#include "neardup/dedup_job.h"
#include "neardup/executor.h"
#include "neardup/method.h"
#include "neardup/source.h"

namespace {

using namespace neardup_cli;  // NOLINT: exit codes and helpers shared with neardup
using Clock = std::chrono::steady_clock;

constexpr int kTagChunk = 1;  // a chunk of a share (DedupJob::ExportShare)
constexpr int kTagError = 2;  // a share that could not be sent: the message
constexpr int kTagEnd = 3;    // the rank has sent all it will send
// Chunks stay far below MPI's int element counts (OpenMPI 4.1).
constexpr size_t kChunkBytes = size_t{64} << 20;

double SecondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// What each rank did, gathered on rank 0 for summary.json.
struct RankFigures {
  double files = 0, input_bytes = 0, documents = 0, bytes_sent = 0;
  double read_seconds = 0, exchange_seconds = 0, peak_rss_bytes = 0;
};

// Contiguous shares of about equal bytes over the run's file list: share r
// runs from cuts[r] to cuts[r + 1]. A share boundary falling inside a large
// per-record-gzip WARC file moves to the next record's gzip member
// (NextRecordMember); inside any other file, to the start of the next file.
std::vector<neardup::InputShare> PlanShares(const std::vector<neardup::InputFile>& files, int ranks) {
  struct Cut {
    uint64_t file = 0, offset = 0;
    bool operator<(const Cut& o) const { return file != o.file ? file < o.file : offset < o.offset; }
  };
  uint64_t total = 0;
  for (const auto& f : files) total += f.size;
  std::vector<Cut> cuts(static_cast<size_t>(ranks) + 1);
  cuts.back() = Cut{UINT64_MAX, 0};  // the last share also takes what was not listed (stdin)
  uint64_t before = 0;  // bytes of the files before file i
  size_t i = 0;
  for (int r = 1; r < ranks; ++r) {
    const uint64_t target = total * static_cast<uint64_t>(r) / static_cast<uint64_t>(ranks);
    while (i < files.size() && before + files[i].size <= target) before += files[i++].size;
    Cut cut{i, 0};
    if (i < files.size() && target > before) {
      auto member = neardup::NextRecordMember(files[i].path, target - before);
      if (member.ok() && *member < files[i].size) {
        cut.offset = *member;
      } else {
        cut.file = i + 1;
      }
    }
    cuts[static_cast<size_t>(r)] = std::max(cut, cuts[static_cast<size_t>(r) - 1]);
  }
  std::vector<neardup::InputShare> shares(static_cast<size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    shares[r].first_file = cuts[r].file;
    shares[r].first_offset = cuts[r].offset;
    shares[r].end_file = cuts[r + 1].file;
    shares[r].end_offset = cuts[r + 1].offset;
  }
  return shares;
}

// The bytes of `files` in `share`.
uint64_t ShareBytes(const std::vector<neardup::InputFile>& files, const neardup::InputShare& share) {
  uint64_t bytes = 0;
  for (uint64_t f = share.first_file; f < files.size() && f <= share.end_file; ++f) {
    const uint64_t from = f == share.first_file ? share.first_offset : 0;
    const uint64_t to = f == share.end_file ? share.end_offset : files[f].size;
    if (to > from) bytes += to - from;
  }
  return bytes;
}

// Every rank: whether any rank failed (a collective: all must call it).
bool AnyFailed(bool failed) {
  int mine = failed ? 1 : 0, any = 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any != 0;
}

int Finalize(int code) {
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return code;
}

int RunMpiDedup(const DedupFlags& flags, neardup::DedupOptions options, int rank, int ranks) {
  const bool root = rank == 0;
  const bool quiet = flags.quiet;
  auto error = [&](const std::string& message) {
    std::fprintf(stderr, "neardup-mpi: rank %d: error: %s\n", rank, message.c_str());
  };
  {
    auto method = neardup::NewMethod(options);
    if (method.ok() && (*method)->batch_only()) {
      if (root) {
        error("the " + (*method)->name() +
              " method is batch-only (its paper's algorithm runs over a whole collection): it runs in one "
              "process; use neardup dedup");
      }
      return Finalize(kExitUsage);
    }
  }
  for (const std::string& input : flags.inputs) {
    if (input == "-") {
      if (root) error("standard input cannot be divided among ranks (mpirun gives it to rank 0 only): use neardup dedup");
      return Finalize(kExitUsage);
    }
  }
  // The shares, computed on rank 0 and sent to all (ranks may see the files
  // through different mounts; the sizes only balance the shares).
  std::vector<neardup::InputShare> shares(static_cast<size_t>(ranks));
  std::vector<neardup::InputFile> files;
  if (root) {
    files = neardup::ListInputFiles(flags.inputs, options.source);
    shares = PlanShares(files, ranks);
  }
  static_assert(sizeof(neardup::InputShare) == 4 * sizeof(uint64_t));
  MPI_Bcast(shares.data(), 4 * ranks, MPI_UINT64_T, 0, MPI_COMM_WORLD);

  int threads = flags.threads;
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::unique_ptr<neardup::Executor> executor;
  if (threads > 1) executor = neardup::NewThreadPoolExecutor(threads);
  options.memory_probe = ProcessMemory;

  // Rank 0 prints every warning (its own as it reads, the others' as it
  // imports their shares, in input order) as `neardup dedup` does.
  StderrObserver observer(quiet, flags.warning_limit);
  neardup::DedupJobOptions job_options;
  job_options.part = rank;
  auto created = neardup::DedupJob::Create(flags.inputs, flags.out_dir, options, job_options, executor.get(),
                                           nullptr, root ? &observer : nullptr);
  if (!created.ok()) error(created.status().message());
  if (AnyFailed(!created.ok())) {
    return Finalize(created.ok() || !created.status().IsInvalidArgument() ? kExitNoData : kExitUsage);
  }
  std::unique_ptr<neardup::DedupJob> job = std::move(created).value();

  // ---- read and sign this rank's share ----
  RankFigures mine;
  const auto t_read = Clock::now();
  auto progress = root ? DedupProgressPrinter(quiet, &observer) : neardup::DedupProgressCallback();
  neardup::Status read = job->Read(shares[static_cast<size_t>(rank)], progress, 0.5);
  if (root && !quiet && isatty(STDERR_FILENO)) std::fprintf(stderr, "\n");
  mine.read_seconds = SecondsSince(t_read);
  mine.documents = static_cast<double>(job->documents());
  if (!read.ok()) error(read.message());
  if (AnyFailed(!read.ok())) return Finalize(read.ok() || !read.IsInvalidArgument() ? kExitNoData : kExitUsage);

  // ---- the shares go to rank 0, in rank order ----
  const auto t_exchange = Clock::now();
  neardup::Status exchanged;
  if (root) {
    // Every rank's messages are received to its end marker, even after a
    // failure (a sender is never left blocked); the chunks are imported
    // while nothing has failed.
    std::vector<char> buffer;
    for (int from = 1; from < ranks; ++from) {
      for (;;) {
        MPI_Status status;
        MPI_Probe(from, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
        int bytes = 0;
        MPI_Get_count(&status, MPI_CHAR, &bytes);
        buffer.resize(static_cast<size_t>(bytes));
        MPI_Recv(buffer.data(), bytes, MPI_CHAR, from, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (status.MPI_TAG == kTagEnd) break;
        const std::string_view chunk(buffer.data(), buffer.size());
        if (status.MPI_TAG == kTagError) {
          if (exchanged.ok()) exchanged = neardup::Status::IOError("rank " + std::to_string(from) + ": " + std::string(chunk));
          continue;
        }
        if (!exchanged.ok()) continue;
        auto imported = job->ImportShare(chunk);
        if (!imported.ok()) exchanged = imported.status();
      }
    }
  } else {
    neardup::Status sent = job->ExportShare(kChunkBytes, [&](std::string_view chunk) {
      MPI_Send(chunk.data(), static_cast<int>(chunk.size()), MPI_CHAR, 0, kTagChunk, MPI_COMM_WORLD);
      mine.bytes_sent += static_cast<double>(chunk.size());
      return neardup::Status::OK();
    });
    if (!sent.ok()) {
      const std::string message = sent.message();
      MPI_Send(message.data(), static_cast<int>(message.size()), MPI_CHAR, 0, kTagError, MPI_COMM_WORLD);
    }
    MPI_Send(nullptr, 0, MPI_CHAR, 0, kTagEnd, MPI_COMM_WORLD);
    job.reset();  // this rank's pages are rank 0's now
  }
  mine.exchange_seconds = SecondsSince(t_exchange);
  uint64_t resident = 0, peak = 0;
  ProcessMemory(&resident, &peak);
  mine.peak_rss_bytes = static_cast<double>(peak);

  std::vector<RankFigures> all(static_cast<size_t>(ranks));
  MPI_Gather(&mine, sizeof(RankFigures) / sizeof(double), MPI_DOUBLE, all.data(), sizeof(RankFigures) / sizeof(double),
             MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (!root) return Finalize(kExitOk);

  if (!exchanged.ok()) {
    error(exchanged.message());
    return Finalize(kExitNoData);
  }
  std::string mpi = "{\"mpi\":{\"ranks\":" + std::to_string(ranks) +
                    ",\"shares\":\"contiguous bytes of the inputs, cut at files and at records of per-record-gzip "
                    "WARC files\",\"per_rank\":[";
  for (int r = 0; r < ranks; ++r) {
    // Files and bytes of rank r's share, known to rank 0 from the shares.
    RankFigures& f = all[static_cast<size_t>(r)];
    const neardup::InputShare& share = shares[static_cast<size_t>(r)];
    f.input_bytes = static_cast<double>(ShareBytes(files, share));
    f.files = 0;
    for (uint64_t i = share.first_file; i < files.size() && i <= share.end_file; ++i) {
      f.files += i < share.end_file || share.end_offset > 0 ? 1 : 0;
    }
    char row[512];
    std::snprintf(row, sizeof row,
                  "%s{\"rank\":%d,\"files\":%.0f,\"input_bytes\":%.0f,\"documents\":%.0f,\"bytes_sent\":%.0f,"
                  "\"bytes_sent_per_document\":%.1f,\"read_and_sign_seconds\":%.3f,\"exchange_seconds\":%.3f,"
                  "\"peak_rss_bytes\":%.0f}",
                  r ? "," : "", r, f.files, f.input_bytes, f.documents, f.bytes_sent,
                  f.documents > 0 ? f.bytes_sent / f.documents : 0.0, f.read_seconds, f.exchange_seconds,
                  f.peak_rss_bytes);
    mpi += row;
  }
  mpi += "]}}";
  if (neardup::Status s = job->AddToSummary(mpi); !s.ok()) {
    error(s.message());
    return Finalize(kExitNoData);
  }

  // ---- rank 0 clusters and writes ----
  auto result = job->Finish();
  if (!result.ok()) {
    error(result.status().message());
    return Finalize(result.status().IsInvalidArgument() ? kExitUsage : kExitNoData);
  }
  const neardup::DedupSummary& s = result.value();
  if (s.documents == 0) {
    std::fprintf(stderr, "neardup-mpi: error: %s\n", NothingUsableLine(s, observer).c_str());
    return Finalize(kExitNoData);
  }
  if (!quiet) {
    PrintDedupSummary(s);
    std::fprintf(stderr, "  mpi: %d ranks; documents per rank:", ranks);
    for (const RankFigures& f : all) std::fprintf(stderr, " %.0f", f.documents);
    std::fprintf(stderr, "\n");
  }
  return Finalize(kExitOk);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (const char* simd = std::getenv("NEARDUP_SIMD"); simd != nullptr && *simd != '\0') {
    (void)neardup::SetSimdKernel(simd);
  }

  CLI::App app{
      "neardup-mpi: neardup dedup divided among MPI ranks (mpirun -np N neardup-mpi dedup INPUT... --out DIR). "
      "Each rank reads and signs a contiguous share of the input files of about equal bytes; rank 0 "
      "gathers the signatures, clusters and writes DIR exactly as neardup dedup does on the same inputs."};
  app.set_version_flag("--version", std::string("neardup-mpi ") + neardup::Version());
  app.require_subcommand(1);
  CLI::App* dedup = app.add_subcommand(
      "dedup",
      "As neardup dedup, with the same arguments and the same outputs (DIR/clusters.tsv, summary.json, "
      "warnings.tsv, pairs.tsv); --threads counts threads per rank. summary.json also reports each rank "
      "under \"mpi\". The batch-only methods (paragraphs, chunks) need one process.");
  DedupFlags flags;
  flags.Register(dedup);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = kExitOk;
    if (rank == 0) {
      code = app.exit(e) == 0 ? kExitOk : kExitUsage;
    } else {
      code = e.get_exit_code() == 0 ? kExitOk : kExitUsage;
    }
    MPI_Finalize();
    return code;
  }
  neardup::DedupOptions options;
  int rc = kExitOk;
  // Every rank reads the same flags; what is wrong with one is printed by each
  // (mpirun shows it once per rank).
  rc = flags.ToOptions(&options);
  if (rc != kExitOk) {
    MPI_Finalize();
    return rc;
  }
  return RunMpiDedup(flags, options, rank, ranks);
}
