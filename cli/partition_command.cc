// Copyright neardup authors. Licensed under Apache-2.0.
//
// neardup partition-plan INPUT...: the multidimensional length partitioning
// of Zhu, Potapova, Alabduljalil, Liu and Yang, "Clustering and Load
// Balancing Optimization for Redundant Content Removal", planned on a real
// crawl in one process: the load imbalance factor per dimension count and
// machine count (their Figure 4), the share of page transfers saved against
// sending every page to every machine (Figure 5), and the recall lost for
// the interval enlarging factor ρ against an exact all-pairs reference
// (§4.2). apps/partition/partition.h holds the definitions.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli_util.h"
#include "commands.h"
#include "partition/partition.h"

namespace neardup_cli {

namespace {

struct PartitionArgs {
  neardup::PartitionStudyOptions options;
  std::string json_path;
  bool quiet = false;
};

// One table: a row per N, a column per machine count.
template <typename Cell>
void PrintGrid(const neardup::PartitionStudy& s, const char* title, Cell cell) {
  std::printf("\n%s\n%-16s", title, "dims \\ machines");
  for (uint32_t m : s.options.machines) std::printf(" %7u", m);
  std::printf("\n");
  size_t i = 0;
  for (uint32_t d : s.options.dims) {
    std::printf("%-16s", (std::to_string(d) + "D").c_str());
    for (size_t m = 0; m < s.options.machines.size(); ++m) std::printf(" %7s", cell(s.cells[i++]).c_str());
    std::printf("\n");
  }
}

std::string Fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

int RunPartitionPlan(const PartitionArgs& a) {
  StderrObserver observer(a.quiet, 10);
  auto r = neardup::RunPartitionStudy(a.options, nullptr, &observer);
  if (!r.ok()) {
    std::fprintf(stderr, "neardup: error: %s\n", r.status().message().c_str());
    return r.status().IsInvalidArgument() ? kExitUsage : kExitNoData;
  }
  const neardup::PartitionStudy& s = r.value();
  uint64_t skipped = 0;
  for (const auto& [k, v] : s.read.skipped) skipped += v;
  std::printf("neardup partition-plan: %s pages (%s without a term) from %zu input%s, %s records skipped; "
              "tau %g, rho %g, %u partition%s per machine; %.2f s\n",
              WithCommas(s.documents).c_str(), WithCommas(s.empty_documents).c_str(), s.options.inputs.size(),
              s.options.inputs.size() == 1 ? "" : "s", WithCommas(skipped).c_str(), s.options.tau, s.options.rho,
              s.options.partitions_per_machine, s.options.partitions_per_machine == 1 ? "" : "s", s.seconds);
  PrintGrid(s, "Load imbalance factor: most pages hosted by one machine / mean (Figure 4)",
            [](const neardup::PartitionCell& c) { return Fixed(c.load.imbalance, 2); });
  PrintGrid(s,
            ("Page transfers saved against sending every page to every machine, rho " + Fixed(s.options.rho, 2) +
             " (Figure 5)")
                .c_str(),
            [](const neardup::PartitionCell& c) { return Fixed(100 * c.load.transfers_saved, 1) + "%"; });
  PrintGrid(s, "Comparison load imbalance: most pages hosted + received by one machine / mean",
            [](const neardup::PartitionCell& c) { return Fixed(c.load.comparison_imbalance, 2); });
  if (s.options.sample > 0) {
    std::printf("\nRecall lost against the exact reference (section 4.2): %s pairs with Jaccard >= tau of "
                "%u-gram shingles among %s sampled pages\n",
                WithCommas(s.reference_pairs).c_str(), s.options.shingle_k, WithCommas(s.sampled).c_str());
    std::printf("%-6s %-9s", "dims", "rho \\ M");
    for (uint32_t m : s.options.machines) std::printf(" %7u", m);
    std::printf("\n");
    for (size_t d = 0; d < s.options.dims.size(); ++d) {
      for (size_t r = 0; r < s.options.recall_rhos.size(); ++r) {
        std::printf("%-6s %-9s", (std::to_string(s.options.dims[d]) + "D").c_str(),
                    Fixed(s.options.recall_rhos[r], 1).c_str());
        for (size_t m = 0; m < s.options.machines.size(); ++m) {
          const auto& cell = s.cells[d * s.options.machines.size() + m];
          std::printf(" %7s", (Fixed(100 * cell.recall[r].lost, 1) + "%").c_str());
        }
        std::printf("\n");
      }
    }
  }
  if (!a.json_path.empty()) {
    if (neardup::Status st = neardup::WritePartitionStudyJson(s, a.json_path, nullptr); !st.ok()) {
      std::fprintf(stderr, "neardup: error: cannot write %s: %s\n", a.json_path.c_str(), st.message().c_str());
      return kExitNoData;
    }
    if (!a.quiet) std::fprintf(stderr, "neardup partition-plan: wrote %s\n", a.json_path.c_str());
  }
  return kExitOk;
}

}  // namespace

Command AddPartitionPlanCommand(CLI::App* app) {
  auto args = std::make_shared<PartitionArgs>();
  neardup::PartitionStudyOptions& o = args->options;
  Command c;
  c.app = app->add_subcommand(
      "partition-plan",
      "Plan the multidimensional length partitioning of Zhu, Potapova, Alabduljalil, Liu and Yang "
      "(\"Clustering and Load Balancing Optimization for Redundant Content Removal\", section 4) on "
      "a crawl, in one process: each page's terms are split into N dimensions by a hash of the term, "
      "its length vector (terms counted with repetition) is sliced into fine intervals (p_i/p_{i+1} < "
      "tau) merged into coarse intervals of about equal pages, partitions are boxes of intervals "
      "mapped to machines, and a page is compared in every partition meeting [L_i*tau/rho, "
      "L_i*rho/tau]. Prints, per N and machine count: the load imbalance factor (most pages hosted "
      "by one machine over the mean, Figure 4), the share of page transfers saved against sending "
      "every page to every machine (Figure 5), the comparison load imbalance (hosted + received), "
      "and the share of pairs with Jaccard >= tau (k-gram shingles, exact all pairs on a sample) "
      "that no partition holds both pages of, for rho 1.0, 1.1, 1.2, 1.3.");
  c.app->add_option("INPUT", o.inputs,
                    "The crawl: WARC/ARC files, folders of .html/.htm/.txt, JSON Lines, or - (as dedup reads "
                    "them; damaged input is skipped with a warning)")
      ->required();
  c.app->add_option("--dims", o.dims, "Dimension counts N to plan, comma-separated (each 1..8)")
      ->delimiter(',')
      ->capture_default_str();
  c.app->add_option("--machines", o.machines, "Machine counts to plan for, comma-separated (each 1..65536)")
      ->delimiter(',')
      ->capture_default_str();
  c.app->add_option("--tau", o.tau,
                    "Similarity threshold tau in (0,1): fine intervals have p_i/p_{i+1} < tau, and the "
                    "reference pairs have Jaccard >= tau (the paper's example value)")
      ->capture_default_str();
  c.app->add_option("--rho", o.rho,
                    "Interval enlarging factor rho >= 1 for the transfers and comparison load (the paper "
                    "tested 1 to 1.3; the recall table always shows 1.0, 1.1, 1.2, 1.3)")
      ->capture_default_str();
  c.app->add_option("--sample", o.sample,
                    "Pages in the exact all-pairs reference (a deterministic sample: the same inputs in the "
                    "same order give the same pages); 0 skips the recall table")
      ->capture_default_str();
  c.app->add_option("--shingle", o.shingle_k,
                    "k of the k-gram shingles whose Jaccard similarity defines the reference pairs (1..64)")
      ->capture_default_str();
  c.app->add_option("--partitions-per-machine", o.partitions_per_machine,
                    "Partitions aimed at per machine (1: one partition per machine, as in the paper's "
                    "presentation)")
      ->capture_default_str();
  c.app->add_option("--json", args->json_path,
                    "Also write the grid as a JSON list of {\"dims\", \"machines\", \"imbalance\", "
                    "\"transfers_saved\", ...} objects to FILE");
  c.app->add_flag("--quiet,-q", args->quiet, "No warnings on stderr");
  c.run = [args] { return RunPartitionPlan(*args); };
  return c;
}

}  // namespace neardup_cli
