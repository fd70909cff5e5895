// Copyright neardup authors. Licensed under Apache-2.0.
//
// neardup report DIR: duplication analytics of a dedup output folder, written
// as DIR/report.html (self-contained, inline SVG) and DIR/report.json.
// neardup mirrors DIR: mirrored host pairs (Fetterly, Manasse and Najork),
// written as DIR/mirrors.tsv; the report is rewritten with their section.
// doc/report.md describes every section and definition.
#include <cstdio>
#include <memory>
#include <string>

#include "cli_util.h"
#include "commands.h"
#include "analysis/analysis.h"
#include "neardup/env.h"

namespace neardup_cli {

namespace {

struct ReportArgs {
  std::string dir;
  uint64_t top_clusters = neardup::ReportOptions().top_clusters;
  uint64_t top_sites = neardup::ReportOptions().top_sites;
  uint64_t c_bins = neardup::ReportOptions().c_similarity_bins;
  bool quiet = false;
};

struct MirrorsArgs {
  ReportArgs report;
  uint64_t min_host_pages = neardup::MirrorOptions().min_host_pages;
  uint64_t min_common_pages = neardup::MirrorOptions().min_common_pages;
  uint64_t suffix_arcs = neardup::MirrorOptions().suffix_arcs;
  double confirm_fraction = neardup::MirrorOptions().confirm_fraction;
  uint64_t max_cluster_hosts = neardup::MirrorOptions().max_cluster_hosts;
};

neardup::ReportOptions ToReportOptions(const ReportArgs& a) {
  neardup::ReportOptions o;
  o.top_clusters = a.top_clusters;
  o.top_sites = a.top_sites;
  o.c_similarity_bins = a.c_bins;
  return o;
}

// One line on stderr; exit 1 for a folder without a readable clusters.tsv,
// 2 for invalid options.
int Fail(const neardup::Status& s) {
  std::fprintf(stderr, "neardup: error: %s\n", s.message().c_str());
  return s.code() == neardup::Status::Code::kInvalidArgument ? kExitUsage : kExitNoData;
}

void PrintReadProblems(const neardup::DedupRun& run, bool quiet) {
  if (quiet) return;
  if (run.malformed_cluster_rows > 0 || run.malformed_pair_rows > 0) {
    std::fprintf(stderr, "neardup: warning: malformed rows skipped: clusters.tsv %s, pairs.tsv %s\n",
                 WithCommas(run.malformed_cluster_rows).c_str(), WithCommas(run.malformed_pair_rows).c_str());
  }
  for (size_t i = 0; i < run.warnings.size() && i < 5; ++i) {
    std::fprintf(stderr, "neardup: warning: %s\n", run.warnings[i].c_str());
  }
}

int RunReport(const ReportArgs& a) {
  const neardup::ReportOptions options = ToReportOptions(a);
  if (neardup::Status s = options.Validate(); !s.ok()) return Fail(s);
  neardup::DedupRun run;
  auto report = neardup::WriteRunReport(a.dir, options, neardup::Env::Default(), &run);
  if (!report.ok()) return Fail(report.status());
  PrintReadProblems(run, a.quiet);
  if (!a.quiet) {
    const neardup::RunReport& r = report.value();
    std::string fit = "n/a";
    if (r.cluster_sizes.least_squares.points >= 2) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.2f", -r.cluster_sizes.least_squares.slope);
      fit = buf;
    }
    std::string mle = "n/a";
    if (r.cluster_sizes.mle_alpha) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.2f", *r.cluster_sizes.mle_alpha);
      mle = buf;
    }
    std::string edges;
    if (r.degrees) {
      edges = WithCommas(r.degrees->edges);
      edges.insert(0, "; ");
      edges.append(" similarity edges");
    }
    std::fprintf(stderr,
                 "neardup report: %s documents, %s clusters, %s duplicates; largest cluster %s; "
                 "cluster-size exponent %s (least squares), %s (discrete MLE)%s%s\n",
                 WithCommas(r.documents).c_str(), WithCommas(r.clusters).c_str(), WithCommas(r.duplicates).c_str(),
                 WithCommas(r.largest_clusters.empty() ? 0 : r.largest_clusters[0].size).c_str(), fit.c_str(),
                 mle.c_str(), edges.c_str(), run.has_mirrors ? "; mirrors section included" : "");
    if (r.duplicates > 0) {
      std::fprintf(stderr, "  duplicates by what put them in their cluster: %s\n",
                   neardup::DuplicatesByMethodText(r.duplicates_by_method).c_str());
    }
    const std::string dir = a.dir.empty() || a.dir.back() == '/' ? a.dir : a.dir + "/";
    std::fprintf(stderr, "  wrote %sreport.html, %sreport.json\n", dir.c_str(), dir.c_str());
  }
  return kExitOk;
}

int RunMirrors(const MirrorsArgs& a) {
  neardup::MirrorOptions options;
  options.min_host_pages = a.min_host_pages;
  options.min_common_pages = a.min_common_pages;
  options.suffix_arcs = a.suffix_arcs;
  options.confirm_fraction = a.confirm_fraction;
  options.max_cluster_hosts = a.max_cluster_hosts;
  if (neardup::Status s = options.Validate(); !s.ok()) return Fail(s);
  const neardup::ReportOptions report_options = ToReportOptions(a.report);
  if (neardup::Status s = report_options.Validate(); !s.ok()) return Fail(s);
  auto result = neardup::WriteMirrors(a.report.dir, options, report_options, neardup::Env::Default());
  if (!result.ok()) return Fail(result.status());
  if (!a.report.quiet) {
    const neardup::MirrorResult& m = result.value();
    uint64_t confirmed = 0, aliases = 0;
    for (const auto& p : m.pairs) {
      confirmed += p.confirmed;
      aliases += !p.alias.empty();
    }
    std::fprintf(stderr,
                 "neardup mirrors: %s candidate hosts (>= %s pages in clusters of size > 1); %s host pairs with "
                 ">= %s common pages, %s confirmed by URL suffixes, %s www. aliases\n",
                 WithCommas(m.candidate_hosts).c_str(), WithCommas(a.min_host_pages).c_str(),
                 WithCommas(m.pairs.size()).c_str(), WithCommas(a.min_common_pages).c_str(),
                 WithCommas(confirmed).c_str(), WithCommas(aliases).c_str());
    if (m.clusters_skipped > 0) {
      std::fprintf(stderr, "  %s clusters spanning more than %s candidate hosts skipped (--max-cluster-hosts)\n",
                   WithCommas(m.clusters_skipped).c_str(), WithCommas(a.max_cluster_hosts).c_str());
    }
    const std::string dir = a.report.dir.empty() || a.report.dir.back() == '/' ? a.report.dir : a.report.dir + "/";
    std::fprintf(stderr, "  wrote %smirrors.tsv, %sreport.html, %sreport.json\n", dir.c_str(), dir.c_str(),
                 dir.c_str());
  }
  return kExitOk;
}

void AddReportOptions(CLI::App* app, ReportArgs* a) {
  app->add_option("DIR", a->dir, "A `neardup dedup` output folder (clusters.tsv; summary.json, pairs.tsv if present)")
      ->required();
  app->add_option("--top-clusters", a->top_clusters, "Rows in the largest-clusters table")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1000000}))
      ->capture_default_str();
  app->add_option("--top-sites", a->top_sites, "Rows in the duplicates-per-host table")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1000000}))
      ->capture_default_str();
  app->add_option("--c-bins", a->c_bins,
                  "C-similarity ranges in the table of average B-similarity by C-similarity (Henzinger Table 10)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1000}))
      ->capture_default_str();
  app->add_flag("--quiet,-q", a->quiet, "Errors only");
}

}  // namespace

Command AddReportCommand(CLI::App* app) {
  auto args = std::make_shared<ReportArgs>();
  Command c;
  c.app = app->add_subcommand(
      "report",
      "Duplication analytics of a dedup output folder DIR, written to DIR/report.html (one self-contained "
      "page with inline SVG plots; open it in a browser) and DIR/report.json: run summary; cluster-size "
      "distribution on log-log axes with the power-law exponent (least squares and discrete maximum "
      "likelihood); largest clusters (size, distinct hosts, kept URL); duplicates per host; with pairs.tsv "
      "(dedup --pairs) the similarity graph's degree distribution and the B-/C-similarity tables; with "
      "mirrors.tsv (neardup mirrors) the mirrors section. See doc/report.md.");
  AddReportOptions(c.app, args.get());
  c.run = [args] { return RunReport(*args); };
  return c;
}

Command AddMirrorsCommand(CLI::App* app) {
  auto args = std::make_shared<MirrorsArgs>();
  Command c;
  c.app = app->add_subcommand(
      "mirrors",
      "Mirrored host pairs of a dedup output folder DIR (Fetterly, Manasse and Najork): hosts with at least "
      "--min-host-pages pages in clusters of size > 1; host pairs with at least --min-common-pages pages in "
      "common clusters (per cluster min(pages of A, pages of B)); a host with itself (auto-mirror) left out; "
      "www. aliases marked; confirmed when enough common pages have matching URL suffixes (query dropped, "
      "last 4 path arcs, per-cluster Bloom filter). Writes DIR/mirrors.tsv (host_a, host_b, common_pages, "
      "confirmed_pages, confirmed, alias, common_clusters) and rewrites DIR/report.html and report.json "
      "with a mirrors section. See doc/report.md.");
  AddReportOptions(c.app, &args->report);
  c.app->add_option("--min-host-pages", args->min_host_pages,
                    "A host takes part with at least this many pages in clusters of size > 1")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40))
      ->capture_default_str();
  c.app->add_option("--min-common-pages", args->min_common_pages,
                    "A host pair is listed with at least this many common pages")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40))
      ->capture_default_str();
  c.app->add_option("--suffix-arcs", args->suffix_arcs, "Last path arcs compared to confirm a pair")
      ->check(CLI::Range(uint64_t{1}, uint64_t{64}))
      ->capture_default_str();
  c.app->add_option("--confirm-fraction", args->confirm_fraction,
                    "A pair is confirmed when confirmed_pages >= this fraction of common_pages")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  c.app->add_option("--max-cluster-hosts", args->max_cluster_hosts,
                    "Skip (and count) clusters spanning more candidate hosts than this")
      ->check(CLI::Range(uint64_t{2}, uint64_t{1} << 40))
      ->capture_default_str();
  c.run = [args] { return RunMirrors(*args); };
  return c;
}

}  // namespace neardup_cli
