// neardup-mpi: `neardup dedup` divided among MPI ranks.
//
//   mpirun -np N neardup-mpi dedup INPUT... --out DIR [every flag of neardup dedup]
//
// The run's files (ListInputFiles: folders expanded, in reading order) are
// cut into N contiguous shares of about equal bytes, large per-record-gzip
// WARC files at record boundaries (PlanInputShares); rank r reads and signs
// share r on its own threads (--threads per rank), the work that grows with
// the bytes of the crawl. Then the clustering, one of two ways:
//
//   - together (robust, the default, and exact; broder, simhash and
//     combined with --partition; not with --pairs): each rank keeps its
//     pages; identity keys, pairs, union-find labels, keeper candidates and
//     the signatures verification needs travel to their owners through
//     MPI all-to-alls (DedupJob::FinishTogether over MpiWorld); no rank
//     gathers every page, and robust's signatures wait in a spill file of
//     each rank's own (DedupJobOptions::spill_signatures), not in memory.
//     summary.json gains "clustered_together".
//   - on rank 0 (broder, simhash, combined without --partition, whose
//     table stages run over the whole collection, and any method with
//     --pairs): ranks 1..N-1
//     hand rank 0 what a Deduper keeps of each page (signature words, exact
//     keys, keeper features: no body) with the pages' URLs and the read
//     warnings, in chunks of at most 64 MiB (DedupJob::ExportShare), in rank
//     order; rank 0 clusters. Memory: rank 0 then holds every page's
//     signature, as one `neardup dedup` process does.
//
// Because the shares are contiguous and taken in order, the outputs are
// those of `neardup dedup` on the same inputs: clusters.tsv, pairs.tsv and
// warnings.tsv byte for byte, and every count of summary.json
// (include/neardup/dedup_job.h). summary.json gains an "mpi" object: per
// rank its files, bytes, documents, bytes sent, seconds reading, signing and
// exchanging, and peak memory.
//
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
#include <cstring>
#include <limits>
#include <span>
#include <cstdio>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <thread>
#include <vector>

#include "cli_util.h"
#include "dedup_command.h"
#include "neardup/dedup_job.h"
#include "neardup/executor.h"
#include "neardup/method.h"
#include "neardup/source.h"
#include "partition/partition.h"

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
  // --partition: pages hosted and received, pairs compared and found, and
  // the seconds of planning, routing and comparing.
  double pages_hosted = 0, pages_received = 0, pairs_compared = 0, pairs_found = 0;
  double routed_bytes = 0, partition_seconds = 0;
};

// --partition length:D with Zhu et al.'s τ and ρ.
struct PartitionFlags {
  std::string spec;  // "length:D"
  uint32_t dims = 0;
  double tau = 0.9, rho = 1.3;
};


// Every rank sends out[d] to rank d and receives what every rank sent it,
// by rank; in rounds that keep MPI's int counts and displacements below
// 2^31 however much is sent.
// Frees each of out's buffers once sent, and the send and receive buffers
// after each round: about two copies of the bytes at once.
std::vector<std::string> AllToAll(std::vector<std::string> out, int ranks) {
  const size_t round_bytes = std::min<size_t>(size_t{256} << 20, (size_t{1} << 30) / static_cast<size_t>(ranks));
  std::vector<size_t> sent(static_cast<size_t>(ranks), 0);
  std::vector<std::string> from(static_cast<size_t>(ranks));
  std::vector<int> scount(ranks), rcount(ranks), sdispl(ranks), rdispl(ranks);
  std::string sendbuf, recvbuf;
  for (;;) {
    uint64_t left = 0;
    for (int d = 0; d < ranks; ++d) left += out[d].size() - sent[d];
    uint64_t any = 0;
    MPI_Allreduce(&left, &any, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (any == 0) break;
    sendbuf.clear();
    for (int d = 0; d < ranks; ++d) {
      const size_t n = std::min(round_bytes, out[d].size() - sent[d]);
      sdispl[d] = static_cast<int>(sendbuf.size());
      scount[d] = static_cast<int>(n);
      sendbuf.append(out[d], sent[d], n);
      sent[d] += n;
      if (sent[d] == out[d].size()) {
        std::string().swap(out[d]);
        sent[d] = 0;
      }
    }
    MPI_Alltoall(scount.data(), 1, MPI_INT, rcount.data(), 1, MPI_INT, MPI_COMM_WORLD);
    size_t total = 0;
    for (int r = 0; r < ranks; ++r) {
      rdispl[r] = static_cast<int>(total);
      total += static_cast<size_t>(rcount[r]);
    }
    recvbuf.resize(total);
    MPI_Alltoallv(sendbuf.data(), scount.data(), sdispl.data(), MPI_CHAR, recvbuf.data(), rcount.data(),
                  rdispl.data(), MPI_CHAR, MPI_COMM_WORLD);
    std::string().swap(sendbuf);
    for (int r = 0; r < ranks; ++r) from[r].append(recvbuf, static_cast<size_t>(rdispl[r]), static_cast<size_t>(rcount[r]));
    std::string().swap(recvbuf);
  }
  return from;
}

std::string Concatenated(const std::vector<std::string>& parts) {
  std::string all;
  for (const std::string& p : parts) all += p;
  return all;
}

// MPI's world as the library's ProcessGroup (DedupJob::FinishTogether).
class MpiWorld final : public neardup::ProcessGroup {
 public:
  MpiWorld(int rank, int ranks) : rank_(rank), ranks_(ranks) {}
  int rank() const override { return rank_; }
  int size() const override { return ranks_; }
  neardup::Result<std::vector<std::string>> AllToAll(std::vector<std::string> out) override {
    if (out.size() != static_cast<size_t>(ranks_)) return neardup::Status::InvalidArgument("one buffer per rank");
    return ::AllToAll(std::move(out), ranks_);
  }

 private:
  int rank_, ranks_;
};

// Zhu et al.'s many-to-all comparison over length partitions (§4): the
// ranks build one plan from their pages' length vectors (one all-reduce
// per dimension), each eligible page goes to the machine of its host
// partition and of every partition meeting [L_i·τ/ρ, L_i·ρ/τ], and each
// rank compares the pages it hosts against every page it holds, through
// the method's candidate index and its one pair rule. The pairs found
// stay with the rank that found them, for the divided clustering.
neardup::Status ComparePartitions(neardup::DedupJob* job, const PartitionFlags& partition, int rank, int ranks,
                                  RankFigures* mine, std::string* plan_summary,
                                  std::vector<std::pair<uint64_t, uint64_t>>* pairs_out) {
  const auto t0 = Clock::now();
  const neardup::Method& method = job->method();
  const size_t words = method.signature_words();
  uint64_t my_documents = job->documents(), offset = 0;
  std::vector<uint64_t> documents(static_cast<size_t>(ranks));
  MPI_Allgather(&my_documents, 1, MPI_UINT64_T, documents.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  for (int r = 0; r < rank; ++r) offset += documents[r];

  // This rank's eligible pages: global ids, identity keys, length vectors,
  // signature words.
  const uint32_t dims = partition.dims;
  std::vector<uint64_t> ids, identities, page_words;
  std::vector<uint32_t> lengths;
  NEARDUP_RETURN_IF_ERROR(job->ForEachPage([&](uint64_t index, uint64_t identity,
                                               const neardup::Signature& signature, std::span<const uint32_t> l) {
    if (!signature.eligible) return;
    ids.push_back(offset + index);
    identities.push_back(identity);
    lengths.insert(lengths.end(), l.begin(), l.end());
    page_words.insert(page_words.end(), signature.words.begin(), signature.words.end());
  }));

  // As the method's candidate stage, only the first page of each exact
  // identity set (in input order) is compared: the owner of each identity
  // key (by hash) tells every page whether it is the first.
  {
    std::vector<std::string> out(static_cast<size_t>(ranks));
    for (size_t p = 0; p < ids.size(); ++p) {
      std::string& o = out[identities[p] % static_cast<uint64_t>(ranks)];
      o.append(reinterpret_cast<const char*>(&identities[p]), sizeof(uint64_t));
      o.append(reinterpret_cast<const char*>(&ids[p]), sizeof(uint64_t));
    }
    const std::string keys = Concatenated(AllToAll(out, ranks));
    std::unordered_map<uint64_t, uint64_t> first;  // identity -> smallest id
    for (size_t at = 0; at + 16 <= keys.size(); at += 16) {
      uint64_t identity = 0, id = 0;
      std::memcpy(&identity, keys.data() + at, 8);
      std::memcpy(&id, keys.data() + at + 8, 8);
      auto [it, inserted] = first.try_emplace(identity, id);
      if (!inserted) it->second = std::min(it->second, id);
    }
    // Answer each asking rank with the firsts of the keys it sent: the
    // smallest ids, routed back to the rank whose id range holds them.
    std::vector<uint64_t> bounds(static_cast<size_t>(ranks) + 1, 0);
    for (int r = 0; r < ranks; ++r) bounds[r + 1] = bounds[r] + documents[r];
    for (std::string& o : out) o.clear();
    for (const auto& [identity, id] : first) {
      const int owner = static_cast<int>(std::upper_bound(bounds.begin(), bounds.end(), id) - bounds.begin()) - 1;
      out[owner].append(reinterpret_cast<const char*>(&id), sizeof(uint64_t));
    }
    const std::string firsts = Concatenated(AllToAll(out, ranks));
    std::unordered_set<uint64_t> is_first;
    for (size_t at = 0; at + 8 <= firsts.size(); at += 8) {
      uint64_t id = 0;
      std::memcpy(&id, firsts.data() + at, 8);
      is_first.insert(id);
    }
    size_t kept = 0;
    for (size_t p = 0; p < ids.size(); ++p) {
      if (!is_first.count(ids[p])) continue;
      ids[kept] = ids[p];
      std::copy_n(lengths.begin() + static_cast<std::ptrdiff_t>(p * dims), dims,
                  lengths.begin() + static_cast<std::ptrdiff_t>(kept * dims));
      std::copy_n(page_words.begin() + static_cast<std::ptrdiff_t>(p * words), words,
                  page_words.begin() + static_cast<std::ptrdiff_t>(kept * words));
      ++kept;
    }
    ids.resize(kept);
    lengths.resize(kept * dims);
    page_words.resize(kept * words);
  }

  neardup::PartitionOptions plan_options;
  plan_options.tau = partition.tau;
  plan_options.dims = dims;
  plan_options.machines = static_cast<uint32_t>(ranks);
  NEARDUP_RETURN_IF_ERROR(plan_options.Validate());
  neardup::PartitionPlanBuilder builder(plan_options);
  while (!builder.done()) {
    std::vector<uint64_t> counts(builder.round_size(), 0);
    for (size_t p = 0; p < ids.size(); ++p) builder.Count({lengths.data() + p * dims, dims}, counts);
    MPI_Allreduce(MPI_IN_PLACE, counts.data(), static_cast<int>(counts.size()), MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    builder.AddRound(counts);
  }
  const neardup::PartitionPlan plan = std::move(builder).Finish();

  // Route: (id, hosted here?, words) to every machine the page meets.
  std::vector<std::string> out(static_cast<size_t>(ranks));
  for (size_t p = 0; p < ids.size(); ++p) {
    const std::span<const uint32_t> l(lengths.data() + p * dims, dims);
    const uint32_t host = plan.MachineOf(plan.HostPartition(l));
    for (uint32_t m : plan.CompareMachines(l, partition.rho)) {
      std::string& o = out[m];
      o.append(reinterpret_cast<const char*>(&ids[p]), sizeof(uint64_t));
      o.push_back(m == host ? 1 : 0);
      o.append(reinterpret_cast<const char*>(page_words.data() + p * words), words * sizeof(uint64_t));
      if (m != static_cast<uint32_t>(rank)) mine->routed_bytes += static_cast<double>(sizeof(uint64_t) + 1 + words * 8);
    }
  }
  std::vector<uint64_t>().swap(page_words);
  std::vector<std::string> received = AllToAll(out, ranks);
  out.clear();

  // What this rank holds: ids, whether hosted here, signature words (flat).
  const size_t record = sizeof(uint64_t) + 1 + words * sizeof(uint64_t);
  size_t held = 0;
  for (const std::string& from : received) held += from.size() / record;
  std::vector<uint64_t> held_ids(held), held_words(held * words);
  std::vector<uint8_t> hosted(held);
  {
    size_t k = 0;
    for (std::string& from : received) {
      for (size_t at = 0; at + record <= from.size(); at += record, ++k) {
        const char* r = from.data() + at;
        std::memcpy(&held_ids[k], r, sizeof(uint64_t));
        hosted[k] = static_cast<uint8_t>(r[sizeof(uint64_t)]);
        std::memcpy(held_words.data() + k * words, r + sizeof(uint64_t) + 1, words * sizeof(uint64_t));
        mine->pages_hosted += hosted[k];
        mine->pages_received += 1 - hosted[k];
      }
      std::string().swap(from);
    }
  }

  // Compare what this rank hosts against everything it holds. Pages sharing
  // a candidate key (Method::CandidateKeys, the method's tables) meet in a
  // sorted run of (key, page) records; the key space is taken a share per
  // pass so that the records stay within kKeysPerPass, and each candidate
  // pair (two hosted pages, or a hosted and a received one) is compared
  // once, with the method's one rule.
  neardup::Signature sig_a, sig_b;
  sig_a.words.resize(words);
  sig_b.words.resize(words);
  sig_a.eligible = sig_b.eligible = true;
  auto load = [&](size_t k, neardup::Signature* s) {
    std::copy_n(held_words.data() + k * words, words, s->words.begin());
  };
  std::vector<uint64_t> keys;
  auto keys_of = [&](size_t k) {
    load(k, &sig_a);
    method.CandidateKeys(sig_a, &keys);
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  };
  constexpr uint64_t kKeysPerPass = uint64_t{8} << 20;  // 128 MiB of records
  struct KeyPage {
    uint64_t key;
    uint64_t page;
  };
  // The first pass keeps every page's records while they fit, and counts
  // them; only a rank whose records do not fit computes the keys again,
  // once per share of the key space.
  std::vector<KeyPage> records;
  uint64_t total_keys = 0;
  for (size_t k = 0; k < held; ++k) {
    keys_of(k);
    total_keys += keys.size();
    if (total_keys > kKeysPerPass) {
      std::vector<KeyPage>().swap(records);
      continue;
    }
    for (uint64_t key : keys) records.push_back({key, k});
  }
  const uint64_t passes = std::max<uint64_t>(1, (total_keys + kKeysPerPass - 1) / kKeysPerPass);
  std::vector<std::pair<uint32_t, uint32_t>> candidates;  // held indices, a < b
  for (uint64_t pass = 0; pass < passes; ++pass) {
    if (passes > 1) {
      records.clear();
      for (size_t k = 0; k < held; ++k) {
        keys_of(k);
        for (uint64_t key : keys) {
          if ((key >> 32) % passes == pass) records.push_back({key, k});
        }
      }
    }
    std::sort(records.begin(), records.end(),
              [](const KeyPage& x, const KeyPage& y) { return x.key != y.key ? x.key < y.key : x.page < y.page; });
    for (size_t r = 0; r < records.size();) {
      size_t e = r + 1;
      while (e < records.size() && records[e].key == records[r].key) ++e;
      for (size_t x = r; x < e; ++x) {
        for (size_t y = x + 1; y < e; ++y) {
          const size_t pa = records[x].page, pb = records[y].page;
          if (hosted[pa] || hosted[pb]) candidates.emplace_back(static_cast<uint32_t>(pa), static_cast<uint32_t>(pb));
        }
      }
      r = e;
    }
  }
  std::vector<KeyPage>().swap(records);
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  std::vector<uint64_t> pairs;  // a, b (global ids, a < b), flattened
  for (const auto& [pa, pb] : candidates) {
    mine->pairs_compared += 1;
    load(pa, &sig_a);
    load(pb, &sig_b);
    if (!method.Compare(sig_a, sig_b).duplicate) continue;
    pairs.push_back(std::min(held_ids[pa], held_ids[pb]));
    pairs.push_back(std::max(held_ids[pa], held_ids[pb]));
  }
  mine->pairs_found = static_cast<double>(pairs.size() / 2);

  // The pairs stay here: the clustering, divided too, routes them to the
  // holders of their pages (DedupJob::FinishTogether).
  pairs_out->reserve(pairs.size() / 2);
  for (size_t i = 0; i < pairs.size(); i += 2) pairs_out->emplace_back(pairs[i], pairs[i + 1]);
  char text[256];
  std::snprintf(text, sizeof text, "\"partition\":\"length:%u\",\"tau\":%g,\"rho\":%g,\"partitions\":%u,", dims,
                partition.tau, partition.rho, plan.partitions());
  *plan_summary = text;
  mine->partition_seconds = SecondsSince(t0);
  return neardup::Status::OK();
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

std::string MpiSummary(std::vector<RankFigures>& all, const std::vector<neardup::InputShare>& shares,
                       const std::vector<neardup::InputFile>& files, int ranks, const PartitionFlags& partition,
                       const std::string& plan_summary, bool together);
int Report(const neardup::DedupSummary& s, const std::vector<RankFigures>& all, int ranks, bool quiet,
           const StderrObserver& observer, const neardup::SourceOptions& source);

int RunMpiDedup(const DedupFlags& flags, const PartitionFlags& partition, neardup::DedupOptions options, int rank,
                int ranks) {
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
    if (method.ok() && partition.dims > 0 &&
        ((*method)->learns_from_collection() || !(*method)->finds_near_duplicates() || flags.pairs)) {
      if (root) {
        error(flags.pairs ? std::string("--partition cannot write pairs.tsv (it lists the method's own candidate stage's pairs)")
                          : "--partition compares pages by the method's rule on two signatures alone; the " +
                                (*method)->name() + " method " +
                                ((*method)->finds_near_duplicates()
                                     ? "learns each site's template from the whole collection (without "
                                       "--partition the ranks learn it and find its pairs together)"
                                     : "finds no near duplicates") +
                                ": use broder, simhash or combined, or leave --partition out");
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
    shares = neardup::PlanInputShares(files, static_cast<uint32_t>(ranks));
  }
  static_assert(sizeof(neardup::InputShare) == 4 * sizeof(uint64_t));
  MPI_Bcast(shares.data(), 4 * ranks, MPI_UINT64_T, 0, MPI_COMM_WORLD);

  // mpirun binds each rank to a core (two ranks or fewer) or to a socket by
  // default: threads past the CPUs a rank may run on only share them.
  const int usable = neardup::UsableCpus();
  const int threads = flags.threads > 0 ? flags.threads : usable;
  {
    int fewest = threads > usable ? usable : std::numeric_limits<int>::max();
    MPI_Allreduce(MPI_IN_PLACE, &fewest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (root && !quiet && fewest != std::numeric_limits<int>::max()) {
      std::fprintf(stderr,
                   "neardup-mpi: warning: %d threads a rank, but a rank may run on %d CPU%s (mpirun binds each rank "
                   "to a core or a socket unless told otherwise): give mpirun --bind-to none, or --map-by "
                   "slot:PE=%d\n",
                   threads, fewest, fewest == 1 ? "" : "s", threads);
    }
  }
  std::unique_ptr<neardup::Executor> executor = neardup::NewExecutorForThreads(threads);
  options.memory_probe = ProcessMemory;

  // Rank 0 prints every warning (its own as it reads, the others' as it
  // imports their shares, in input order) as `neardup dedup` does.
  StderrObserver observer(quiet, flags.warning_limit);
  neardup::DedupJobOptions job_options;
  job_options.part = rank;
  job_options.length_dimensions = partition.dims;
  // Where the ranks find the method's pairs together (robust), each keeps
  // its pages' signatures in a spill file of its own, read without making
  // them resident, as `neardup dedup` does.
  if (auto planned = neardup::NewMethod(options);
      planned.ok() && partition.dims == 0 && (*planned)->finds_pairs_together() && !flags.pairs) {
    job_options.spill_signatures = true;
  }
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

  // ---- --partition: the comparison where the length partitions are ----
  std::string plan_summary;
  std::vector<std::pair<uint64_t, uint64_t>> pairs;
  if (partition.dims > 0) {
    neardup::Status compared = ComparePartitions(job.get(), partition, rank, ranks, &mine, &plan_summary, &pairs);
    if (!compared.ok()) error(compared.message());
    if (AnyFailed(!compared.ok())) return Finalize(kExitNoData);
  }
  // The ranks cluster together (no rank gathers every page) when the pairs
  // are found where the partitions are, when the method finds none, or
  // when the ranks find the method's pairs together (robust; not with
  // --pairs, whose rows rank 0 lists from the method's own stage); else
  // rank 0 runs the method's candidate stage over every page.
  const neardup::Method& method = job->method();
  const bool together = partition.dims > 0 || !method.finds_near_duplicates() ||
                        (method.finds_pairs_together() && !flags.pairs);

  // ---- without --partition: the shares go to rank 0, in rank order ----
  const auto t_exchange = Clock::now();
  neardup::Status exchanged;
  if (together) {
    // Each rank keeps its pages.
  } else if (root) {
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
  if (together) {
    // ---- every rank clusters its pages with the others ----
    if (root) (void)job->AddToSummary(MpiSummary(all, shares, files, ranks, partition, plan_summary, together));
    MpiWorld world(rank, ranks);
    auto result = job->FinishTogether(&world, pairs);
    if (!result.ok()) {
      error(result.status().message());
      return Finalize(result.status().IsInvalidArgument() ? kExitUsage : kExitNoData);
    }
    return Finalize(root ? Report(result.value(), all, ranks, quiet, observer, options.source) : kExitOk);
  }
  if (!root) return Finalize(kExitOk);

  if (!exchanged.ok()) {
    error(exchanged.message());
    return Finalize(kExitNoData);
  }
  if (neardup::Status s = job->AddToSummary(MpiSummary(all, shares, files, ranks, partition, plan_summary, together));
      !s.ok()) {
    error(s.message());
    return Finalize(kExitNoData);
  }

  // ---- rank 0 clusters and writes ----
  auto result = job->Finish();
  if (!result.ok()) {
    error(result.status().message());
    return Finalize(result.status().IsInvalidArgument() ? kExitUsage : kExitNoData);
  }
  return Finalize(Report(result.value(), all, ranks, quiet, observer, options.source));
}

// summary.json's "mpi" object (rank 0): the shares and each rank's figures.
std::string MpiSummary(std::vector<RankFigures>& all, const std::vector<neardup::InputShare>& shares,
                       const std::vector<neardup::InputFile>& files, int ranks, const PartitionFlags& partition,
                       const std::string& plan_summary, bool together) {
  std::string mpi = "{\"mpi\":{\"ranks\":" + std::to_string(ranks) +
                    ",\"shares\":\"contiguous bytes of the inputs, cut at files and at records of per-record-gzip "
                    "WARC files\",\"clustering\":\"" +
                    (together ? "together: each rank keeps its pages (see clustered_together)"
                              : "on rank 0: the ranks hand it their pages' signatures") + "\"," + plan_summary;
  if (partition.dims > 0) {
    double most = 0, sum = 0;
    for (const RankFigures& f : all) {
      most = std::max(most, f.pages_hosted);
      sum += f.pages_hosted;
    }
    char text[64];
    std::snprintf(text, sizeof text, "\"imbalance\":%.3f,", sum > 0 ? most / (sum / ranks) : 1.0);
    mpi += text;
  }
  mpi += "\"per_rank\":[";
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
    if (partition.dims > 0) {
      mpi.pop_back();  // the row's closing brace
      std::snprintf(row, sizeof row,
                    ",\"pages_hosted\":%.0f,\"pages_received\":%.0f,\"pairs_compared\":%.0f,\"pairs_found\":%.0f,"
                    "\"bytes_routed\":%.0f,\"partition_seconds\":%.3f}",
                    f.pages_hosted, f.pages_received, f.pairs_compared, f.pairs_found, f.routed_bytes,
                    f.partition_seconds);
      mpi += row;
    }
  }
  mpi += "]}}";
  return mpi;
}

// Rank 0's last words: the summary, or the line saying nothing was usable.
int Report(const neardup::DedupSummary& s, const std::vector<RankFigures>& all, int ranks, bool quiet,
           const StderrObserver& observer, const neardup::SourceOptions& source) {
  if (s.documents == 0) {
    std::fprintf(stderr, "neardup-mpi: error: %s\n",
                 neardup::NothingReadLine(s.inputs, observer.first_warnings(), s.read, source, s.warnings_path).c_str());
    return kExitNoData;
  }
  if (!quiet) {
    PrintDedupSummary(s);
    std::fprintf(stderr, "  mpi: %d ranks; documents per rank:", ranks);
    for (const RankFigures& f : all) std::fprintf(stderr, " %.0f", f.documents);
    std::fprintf(stderr, "\n");
  }
  return kExitOk;
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
      "Each rank reads and signs a contiguous share of the input files of about equal bytes; the ranks "
      "cluster together (robust, the default, and exact; broder, simhash, combined with --partition; not with --pairs) "
      "or rank 0 gathers the signatures and clusters; "
      "rank 0 writes DIR exactly as neardup dedup does on the same inputs."};
  app.set_version_flag("--version", std::string("neardup-mpi ") + neardup::Version());
  app.require_subcommand(1);
  CLI::App* dedup = app.add_subcommand(
      "dedup",
      "As neardup dedup, with the same arguments and the same outputs (DIR/clusters.tsv, summary.json, "
      "warnings.tsv, pairs.tsv); --threads counts threads per rank. summary.json also reports each rank "
      "under \"mpi\". The batch-only methods (paragraphs, chunks) need one process.");
  DedupFlags flags;
  flags.Register(dedup);
  PartitionFlags partition;
  dedup->add_option("--partition", partition.spec,
                    "length:D (D = 1, 2, 3): compare pages where Zhu et al.'s D-dimensional length partitions put "
                    "them (each rank hosts one partition's pages and receives those whose length range meets it) "
                    "instead of on rank 0, then cluster together (no rank gathers every page); for broder, simhash "
                    "and combined; clusters then hold the pairs those comparisons find (a pair whose lengths fall "
                    "outside --rho is not compared)")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            return v == "length:1" || v == "length:2" || v == "length:3" ? std::string()
                                                                         : "expected length:1, length:2 or length:3";
          },
          "length:D", "partition"));
  dedup->add_option("--tau", partition.tau,
                    "--partition: the similarity threshold tau of the length bound (Zhu et al.; default 0.9)")
      ->check(CLI::Range(0.01, 0.99));
  dedup->add_option("--rho", partition.rho,
                    "--partition: the interval enlarging factor rho >= 1 (Zhu et al. test 1 to 1.3; default 1.3)")
      ->check(CLI::Range(1.0, 4.0));
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
  if (!partition.spec.empty()) partition.dims = static_cast<uint32_t>(partition.spec.back() - '0');
  return RunMpiDedup(flags, partition, options, rank, ranks);
}
