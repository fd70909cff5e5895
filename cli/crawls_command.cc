// neardup evolve, neardup connected, neardup synth-web: studies across
// crawls (Fetterly, Manasse and Najork, "On the Evolution of Clusters of
// Near-Duplicate Web Pages"), of one crawl's link graph (Pereira,
// Baeza-Yates and Ziviani, "Where and How Duplicates Occur in the Web"), and
// the synthetic crawls that test both. Definitions in doc/crawls.md.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cli_util.h"
#include "commands.h"
#include "crawls/crawls.h"
#include "neardup/engine.h"
#include "neardup/executor.h"
#include "synth/synth.h"

namespace neardup_cli {

namespace {

// Flags shared by evolve and connected: how each crawl is clustered.
struct ClusterFlags {
  std::string method = neardup::DedupOptions().method;
  int threads = 0;
  bool quiet = false;

  void Add(CLI::App* app) {
    app->add_option("--method,-m", method,
                    "How each crawl is clustered: any method of `neardup dedup --method`")
        ->capture_default_str();
    app->add_option("--threads,-t", threads, "Threads in all, the main thread included (0: one per CPU this process may run on)");
    app->add_flag("--quiet,-q", quiet, "No warnings or summary on stderr");
  }
  std::unique_ptr<neardup::Executor> Executor() const {
    const int n = threads > 0 ? threads : neardup::UsableCpus();
    return neardup::NewExecutorForThreads(n);
  }
};

int ReportError(const neardup::Status& st) {
  std::fprintf(stderr, "neardup: error: %s\n", st.message().c_str());
  return st.IsInvalidArgument() ? kExitUsage : kExitNoData;
}

struct EvolveArgs {
  std::vector<std::string> crawls;
  std::string out;
  ClusterFlags cluster;
};

int RunEvolveCommand(const EvolveArgs& a) {
  neardup::EvolveOptions options;
  options.crawls = a.crawls;
  options.out_dir = a.out;
  options.dedup.method = a.cluster.method;
  StderrObserver observer(a.cluster.quiet, 10);
  auto executor = a.cluster.Executor();
  auto r = neardup::RunEvolve(options, executor.get(), nullptr, &observer);
  if (!r.ok()) return ReportError(r.status());
  const neardup::EvolveSummary& s = r.value();
  if (a.cluster.quiet) return kExitOk;
  for (size_t n = 0; n < s.crawls.size(); ++n) {
    const auto& c = s.crawls[n];
    std::fprintf(stderr, "neardup evolve: crawl %zu: %s URLs, %s clusters, %s duplicates (%s)\n", n + 1,
                 WithCommas(c.urls).c_str(), WithCommas(c.clusters).c_str(),
                 WithCommas(c.duplicates).c_str(), c.dedup_dir.c_str());
    if (c.revisits_of_previous_crawl > 0) {
      std::fprintf(stderr, "  revisits of crawl %zu's pages: %s, %s in a cluster with their pages' cluster-mates\n", n,
                   WithCommas(c.revisits_of_previous_crawl).c_str(), WithCommas(c.revisits_joined).c_str());
    }
  }
  for (const auto& c : s.changes) {
    const uint64_t same = c.by_amount[neardup::kChangeBuckets - 1];
    std::fprintf(stderr,
                 "  crawl %u -> %u: %s URLs in both, %s identical (85), %s same text (84); %s gone, %s new\n",
                 c.from, c.to, WithCommas(c.common_urls).c_str(), WithCommas(same).c_str(),
                 WithCommas(c.by_amount[neardup::kChangeBuckets - 2]).c_str(),
                 WithCommas(c.disappeared).c_str(), WithCommas(c.appeared).c_str());
  }
  std::fprintf(stderr, "  wrote %s, %s, %s\n", s.json_path.c_str(), s.changes_path.c_str(),
               s.html_path.c_str());
  return kExitOk;
}

struct ConnectedArgs {
  std::vector<std::string> inputs;
  std::string out;
  std::vector<std::string> seeds;
  std::string dedup_dir;
  ClusterFlags cluster;
};

int RunConnectedCommand(const ConnectedArgs& a) {
  neardup::ConnectedOptions options;
  options.inputs = a.inputs;
  options.out_dir = a.out;
  options.seed_urls = a.seeds;
  options.dedup_dir = a.dedup_dir;
  options.dedup.method = a.cluster.method;
  StderrObserver observer(a.cluster.quiet, 10);
  auto executor = a.cluster.Executor();
  auto r = neardup::RunConnected(options, executor.get(), nullptr, &observer);
  if (!r.ok()) return ReportError(r.status());
  const neardup::ConnectedSummary& s = r.value();
  if (s.seeds_not_found > 0) {
    std::fprintf(stderr, "neardup: warning: %s seed URL%s not in the crawl\n",
                 WithCommas(s.seeds_not_found).c_str(), s.seeds_not_found == 1 ? " is" : "s are");
  }
  if (a.cluster.quiet) return kExitOk;
  auto part = [](const char* name, const neardup::PartCounts& p) {
    std::fprintf(stderr, "  %-12s %s documents, %s duplicates (%.1f%%), %s clusters, %s useful\n", name,
                 WithCommas(p.documents).c_str(), WithCommas(p.duplicates).c_str(),
                 p.duplicate_percentage, WithCommas(p.clusters).c_str(), WithCommas(p.useful).c_str());
  };
  std::string seeds;
  for (const auto& u : s.seed_urls) seeds += (seeds.empty() ? "" : " ") + u;
  std::fprintf(stderr, "neardup connected: %s documents, seeds %s, %s links inside the crawl\n",
               WithCommas(s.documents).c_str(), seeds.empty() ? "(none)" : seeds.c_str(),
               WithCommas(s.links).c_str());
  if (s.revisits_left_out > 0) {
    std::fprintf(stderr, "  revisit records of URLs captured in the crawl, left out: %s\n",
                 WithCommas(s.revisits_left_out).c_str());
  }
  part("complete", s.complete);
  part("connected", s.connected);
  part("disconnected", s.disconnected);
  std::fprintf(stderr, "  useful documents found in the connected part: %s of %s\n",
               WithCommas(s.useful_in_connected).c_str(), WithCommas(s.complete.useful).c_str());
  std::fprintf(stderr, "  wrote %s, %s, %s\n", s.json_path.c_str(), s.tsv_path.c_str(), s.html_path.c_str());
  return kExitOk;
}

int RunSynthWebCommand(const neardup::SynthWebOptions& options) {
  auto r = neardup::BuildSyntheticWeb(options, nullptr);
  if (!r.ok()) return ReportError(r.status());
  const neardup::SynthWebSummary& s = r.value();
  std::string pages;
  for (size_t n = 0; n < s.pages.size(); ++n) {
    if (n) pages += ", ";
    pages += WithCommas(s.pages[n]);
    pages += " (" + WithCommas(s.reachable[n]) + " reachable)";
  }
  std::string changes;
  for (const auto& [k, v] : s.changes) {
    if (!changes.empty()) changes += ", ";
    changes += k + " " + WithCommas(v);
  }
  std::string generated;
  if (s.generated_paragraphs) {
    generated = ", ";
    generated += WithCommas(s.generated_paragraphs);
    generated += " more made of pool words";
  }
  std::fprintf(stderr,
               "neardup synth-web: wrote %zu crawls of %s hosts (%s orphan, %s with an alias, %s "
               "mirrors, %s scrapers) to %s with truth %s; pages per crawl: %s; seed %s; changes: "
               "%s. Pool: %s paragraphs from %s documents%s.\n",
               s.crawl_paths.size(), WithCommas(s.hosts).c_str(), WithCommas(s.orphan_hosts).c_str(),
               WithCommas(s.alias_hosts).c_str(), WithCommas(s.mirror_hosts).c_str(),
               WithCommas(s.scraper_hosts).c_str(), options.out_dir.c_str(), s.truth_path.c_str(),
               pages.c_str(), s.seed_url.c_str(), changes.c_str(),
               WithCommas(s.pool_paragraphs).c_str(), WithCommas(s.documents_read).c_str(),
               generated.c_str());
  return kExitOk;
}

}  // namespace

Command AddEvolveCommand(CLI::App* app) {
  auto args = std::make_shared<EvolveArgs>();
  Command c;
  c.app = app->add_subcommand(
      "evolve",
      "Clusters across successive crawls (Fetterly, Manasse and Najork): cluster each crawl "
      "into DIR/crawl-<n>/, then cluster containment and similarity of crawl 1's clusters by "
      "size class in every later crawl, the change amount of each URL between successive crawls "
      "(min-hash features in common, 0..84; 85 for identical bytes), and the change in the "
      "number of clusters each host is in; write DIR/evolve.json, DIR/changes.tsv (from, to, "
      "url, amount, cluster_size) and DIR/report.html.");
  c.app->add_option("CRAWL", args->crawls,
                    "Crawls in time order (at least two): each a file or a folder of WARC/ARC/JSONL "
                    "files (a folder without them is read as HTML files)")
      ->required();
  c.app->add_option("--out,-o", args->out, "Output folder")->required();
  args->cluster.Add(c.app);
  c.run = [args] { return RunEvolveCommand(*args); };
  return c;
}

Command AddConnectedCommand(CLI::App* app) {
  auto args = std::make_shared<ConnectedArgs>();
  Command c;
  c.app = app->add_subcommand(
      "connected",
      "Duplicates in the connected and disconnected parts of a crawl (Pereira, Baeza-Yates and "
      "Ziviani): follow the pages' links breadth first from the seeds, mark each page connected "
      "or not, cluster the crawl, and count duplicates, clusters and useful documents in each "
      "part; write DIR/connected.json, DIR/connected.tsv (url, connected, depth, cluster) and "
      "DIR/report.html.");
  c.app->add_option("INPUT", args->inputs, "The crawl: files or folders, as dedup reads")->required();
  c.app->add_option("--out,-o", args->out, "Output folder")->required();
  c.app->add_option("--seed-url", args->seeds,
                    "Where the simulated crawl starts (repeatable). Default: the home page linked "
                    "from the most other hosts");
  c.app->add_option("--dedup", args->dedup_dir,
                    "Take the clusters from this `neardup dedup` output folder instead of "
                    "clustering into DIR/dedup");
  args->cluster.Add(c.app);
  c.run = [args] { return RunConnectedCommand(*args); };
  return c;
}

Command AddSynthWebCommand(CLI::App* app) {
  auto options = std::make_shared<neardup::SynthWebOptions>();
  Command c;
  c.app = app->add_subcommand(
      "synth-web",
      "Build successive crawls of one synthetic web from a pool of real pages: hosts with "
      "navigational and external links, orphan hosts and pages no link reaches, aliases, "
      "mirrors, printable and scraped copies, and drift between crawls (small and large "
      "changes, pages gone and new); write DIR/crawl-1.warc.gz ... and DIR/truth.tsv (crawl, "
      "url, group, reachable, change, kind).");
  c.app->add_option("INPUT", options->inputs, "Pool of real pages (any input dedup reads)")->required();
  c.app->add_option("--out,-o", options->out_dir, "Output folder")->required();
  c.app->add_option("--crawls", options->crawls, "Crawls to write")->capture_default_str();
  c.app->add_option("--hosts", options->hosts, "www hosts of the web")->capture_default_str();
  c.app->add_option("--seed", options->seed, "Seed of every random choice")->capture_default_str();
  c.run = [options] {
    if (neardup::Status s = options->Validate(); !s.ok()) return ReportError(s);
    return RunSynthWebCommand(*options);
  };
  return c;
}

}  // namespace neardup_cli
