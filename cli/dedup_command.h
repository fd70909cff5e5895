// The `dedup` command's flags, options and reporting, shared by `neardup
// dedup` (main.cc) and `neardup-mpi dedup` (mpi/), which take exactly the
// same arguments and write exactly the same outputs.
#ifndef NEARDUP_CLI_DEDUP_COMMAND_H_
#define NEARDUP_CLI_DEDUP_COMMAND_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "neardup/engine.h"
#include "cli_util.h"

namespace neardup_cli {

// Every flag of `dedup`, with its default.
struct DedupFlags {
  std::vector<std::string> inputs;
  std::string out_dir;
  int threads = 0;
  bool quiet = false;
  std::string method = neardup::DedupOptions().method;
  std::string max_record = "64M";
  bool skip_non_2xx = false;
  uint64_t warning_limit = 100;
  neardup::ParagraphMethodOptions paragraph_defaults;
  neardup::ChunkMethodOptions chunk_defaults;
  uint32_t min_shared = paragraph_defaults.min_shared_percent;
  uint32_t min_chars = paragraph_defaults.min_text_chars;
  std::string chunk_spec = chunk_defaults.chunking, chunk_algorithm = chunk_defaults.algorithm;
  uint32_t coarse_hashes = chunk_defaults.coarse_hash_functions;
  std::string memory = "2G";
  neardup::RobustMethodOptions robust_defaults;
  double min_content = robust_defaults.min_content_similarity;
  uint32_t template_pages = robust_defaults.template_min_pages;
  double template_fraction = robust_defaults.template_site_fraction;
  bool keep_numbers = false, keep_own_url = false, keep_text_urls = false, ignore_titles = false;
  uint32_t edit_shingles = robust_defaults.max_edit_shingles;
  uint32_t same_site_edit_shingles = robust_defaults.max_same_site_edit_shingles;
  uint32_t main_minhashes = robust_defaults.main_minhashes;
  double min_main = robust_defaults.min_main_similarity;
  double min_containment = robust_defaults.min_main_containment;
  uint32_t sim_bits = 384, sim_threshold = 372, combined_threshold = 355;
  std::string level = "very-similar";
  uint32_t shingle = 5;
  bool wrap = false, no_wrap = false, pairs = false;
  std::string family = "fast";
  uint64_t seed = 1234;
  std::string keeper = neardup::DedupOptions().keeper;
  bool no_verify = false;
  CLI::Option* threshold_option = nullptr;

  // Registers INPUT, --out and every flag on `dedup` (the subcommand).
  void Register(CLI::App* dedup);
  // The options the flags give; prints the error and returns kExitUsage for
  // a value that cannot be read, else kExitOk.
  int ToOptions(neardup::DedupOptions* options) const;
};

// The summary lines `neardup dedup` prints on stderr.
void PrintDedupSummary(const neardup::DedupSummary& s);

// A progress line on stderr every 0.5 s (on a terminal) or 5 s (in logs).
neardup::DedupProgressCallback DedupProgressPrinter(bool quiet, StderrObserver* observer);

// What the process's allocator is told as the job moves between its phases
// (main.cc sets both where it links jemalloc; empty: nothing). `reading`
// runs before the input is read: pages and batches come and go there, and
// freed memory kept a while for the next page saves faulting it in anew.
// `clustering` runs when reading ends: from then on freed memory goes back
// to the system at once, so that the run's peak is what its stages hold.
struct AllocatorPhases {
  std::function<void()> reading;
  std::function<void()> clustering;
};

// `neardup dedup`: runs the job, prints progress, warnings and the summary;
// returns the exit code.
int RunDedupCommand(const std::vector<std::string>& inputs, const std::string& out,
                    neardup::DedupOptions options, int threads, bool quiet, uint64_t warning_limit,
                    const AllocatorPhases& allocator = AllocatorPhases());

}  // namespace neardup_cli

#endif  // NEARDUP_CLI_DEDUP_COMMAND_H_
