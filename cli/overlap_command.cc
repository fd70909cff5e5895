// neardup overlap: Shivakumar and Garcia-Molina's Overlap table of a crawl
// ("Finding near-replicas of documents on the web", §2): the pairs of
// documents sharing at least T chunk fingerprints, computed by the
// sort-based or the coarse-counting algorithm within a memory budget.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cli_util.h"
#include "commands.h"
#include "neardup/engine.h"
#include "neardup/executor.h"

namespace neardup_cli {

namespace {

struct OverlapArgs {
  std::vector<std::string> inputs;
  std::string out;
  std::string summary;
  std::string chunk = neardup::ChunkMethodOptions().chunking;
  uint32_t threshold = neardup::ChunkMethodOptions().threshold;
  std::string algorithm = neardup::ChunkMethodOptions().algorithm;
  uint32_t coarse_hashes = neardup::ChunkMethodOptions().coarse_hash_functions;
  std::string memory = "2G";
  int threads = 0;
  bool quiet = false;
};

int RunOverlap(const OverlapArgs& a) {
  neardup::DedupOptions options;
  options.method = "chunks";
  options.chunks.chunking = a.chunk;
  options.chunks.threshold = a.threshold;
  options.chunks.algorithm = a.algorithm;
  options.chunks.coarse_hash_functions = a.coarse_hashes;
  options.write_pairs = true;
  if (!ParseSize(a.memory, &options.memory_bytes)) {
    std::fprintf(stderr, "neardup: error: --memory: cannot read '%s' as a size (e.g. 2G)\n", a.memory.c_str());
    return kExitUsage;
  }
  if (neardup::Status s = options.Validate(); !s.ok()) {
    std::fprintf(stderr, "neardup: error: %s\n", s.message().c_str());
    return kExitUsage;
  }
  int threads = a.threads;
  if (threads <= 0) threads = neardup::UsableCpus();
  std::unique_ptr<neardup::Executor> executor;
  if (threads > 1) executor = neardup::NewThreadPoolExecutor(threads);
  // The run's files (clusters, spilled sorted runs) go to a folder beside
  // the table, removed when done.
  const std::string work = a.out + ".work";
  StderrObserver observer(a.quiet, 100);
  options.memory_probe = ProcessMemory;
  auto result = neardup::RunDedup(a.inputs, work, options, executor.get(), nullptr, &observer, nullptr);
  if (!result.ok()) {
    std::error_code ec;
    std::filesystem::remove_all(work, ec);
    std::fprintf(stderr, "neardup: error: %s\n", result.status().message().c_str());
    return kExitNoData;
  }
  const neardup::DedupSummary& s = result.value();
  std::error_code ec;
  std::filesystem::rename(s.pairs_path, a.out, ec);
  if (ec) {
    std::fprintf(stderr, "neardup: error: cannot write %s: %s\n", a.out.c_str(), ec.message().c_str());
    return kExitNoData;
  }
  if (!a.summary.empty()) {
    std::filesystem::rename(s.summary_path, a.summary, ec);
    if (ec) std::filesystem::copy_file(s.summary_path, a.summary, std::filesystem::copy_options::overwrite_existing, ec);
    if (ec) {
      std::fprintf(stderr, "neardup: error: cannot write %s: %s\n", a.summary.c_str(), ec.message().c_str());
      return kExitNoData;
    }
  }
  std::filesystem::remove_all(work, ec);
  if (s.documents == 0) {
    // The run's folder (with its warnings.tsv) is gone: the line names
    // the files and why, without pointing there.
    std::fprintf(stderr, "neardup: error: %s\n",
                 neardup::NothingReadLine(s.inputs, observer.first_warnings(), s.read, options.source).c_str());
    return kExitNoData;
  }
  if (!a.quiet) {
    const neardup::ChunkOverlapStats& c = s.chunk_overlap;
    std::fprintf(stderr,
                 "neardup overlap: %s documents, %s exact copies removed, %s FPrint-DocID records (%s), "
                 "%s pairs generated, %s pairs with F >= %u written to %s\n",
                 WithCommas(s.documents).c_str(), WithCommas(c.copies_removed).c_str(),
                 WithCommas(c.records).c_str(), HumanBytes(static_cast<double>(c.fingerprint_bytes)).c_str(),
                 WithCommas(c.pairs_generated).c_str(), WithCommas(c.result_pairs).c_str(), a.threshold,
                 a.out.c_str());
    std::fprintf(stderr, "  %s: sort %.2f s, overlap %.2f s, %s sorted runs spilled, %u pass%s, buffers %s of %s; "
                         "peak memory %s; %.2f s in all\n",
                 c.algorithm.c_str(), c.sort_seconds, c.overlap_seconds, WithCommas(c.spill_runs).c_str(), c.passes,
                 c.passes == 1 ? "" : "es", HumanBytes(static_cast<double>(c.peak_buffer_bytes)).c_str(),
                 HumanBytes(static_cast<double>(c.buffer_budget_bytes)).c_str(),
                 HumanBytes(static_cast<double>(s.peak_rss_bytes)).c_str(), s.seconds);
    for (const neardup::ReplicaHistogram& h : s.replica_histograms) {
      std::string line;
      for (const auto& [label, pages] : h.pages) line += (line.empty() ? "" : ", ") + label + ": " + WithCommas(pages);
      std::fprintf(stderr, "  pages by replicas (%s): %s\n", h.chunking.c_str(), line.c_str());
    }
  }
  return kExitOk;
}

}  // namespace

Command AddOverlapCommand(CLI::App* app) {
  auto args = std::make_shared<OverlapArgs>();
  Command c;
  c.app = app->add_subcommand(
      "overlap",
      "Shivakumar and Garcia-Molina's Overlap table: cut every document into chunks (--chunk), "
      "hash each to a 32-bit fingerprint (FPrint-DocID records), remove exact copies (the central "
      "document of a set is the earliest), and write the pairs of documents sharing at least T "
      "distinct fingerprints as TSV: url_a, url_b, F (url_a < url_b). The sort-based and the "
      "coarse-counting algorithms give the same table; both stay within --memory by spilling "
      "sorted runs or counting in more passes.");
  c.app->add_option("INPUT", args->inputs, "Anything dedup reads: WARC/ARC files, folders of HTML/text files, JSON Lines")
      ->required();
  c.app->add_option("--out,-o", args->out, "The Overlap table to write (TSV: url_a, url_b, F)")->required();
  c.app->add_option("--chunk", args->chunk, "whole, lines:N, words:N or sentences")->capture_default_str();
  c.app->add_option("--threshold,-T", args->threshold, "T: pairs sharing at least T distinct fingerprints")
      ->check(CLI::Range(1u, 1000000u))
      ->capture_default_str();
  c.app->add_option("--algorithm", args->algorithm, "sort (sort-based) or coarse (probabilistic coarse counting)")
      ->check(CLI::IsMember({"sort", "coarse"}))
      ->capture_default_str();
  c.app->add_option("--coarse-hashes", args->coarse_hashes, "coarse: hash functions (counter arrays)")
      ->check(CLI::Range(1, 8))
      ->capture_default_str();
  c.app->add_option("--memory", args->memory, "Memory budget of the whole run, e.g. 256M or 2G (at least 16M)")
      ->capture_default_str();
  c.app->add_option("--summary", args->summary,
                    "Also write the run summary (JSON: overlap figures, replica histograms) here");
  c.app->add_option("--threads,-t", args->threads, "Worker threads; 0 = every CPU this process may run on")->check(CLI::Range(0, 1024));
  c.app->add_flag("--quiet,-q", args->quiet, "Errors only");
  c.run = [args] { return RunOverlap(*args); };
  return c;
}

}  // namespace neardup_cli
