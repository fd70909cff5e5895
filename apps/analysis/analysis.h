// Copyright neardup authors. Licensed under Apache-2.0.
//
// Analysis of a `neardup dedup` run, and the self-contained HTML/SVG report
// writer that every report of the project uses.
//
// Two layers:
//  1. Plot / RenderSvg / HtmlReport: a small writer of one self-contained
//     HTML page (inline CSS, inline SVG; nothing fetched, no script). Pure
//     functions of their inputs, deterministic, thread-compatible.
//  2. The studies of a dedup output folder: cluster-size distribution with a
//     power-law fit and the largest clusters (Fetterly, Manasse and Najork,
//     "On the Evolution of Clusters of Near-Duplicate Web Pages", §3;
//     Pereira, Baeza-Yates and Ziviani, "Where and How Duplicates Occur in
//     the Web", §4), duplicates per site, the similarity graph's degree
//     distribution and the B-/C-similarity tables (Henzinger, "Finding
//     Near-Duplicate Web Pages: A Large-Scale Evaluation of Algorithms",
//     Figures 1 and 3, Tables 9-10), and mirrored host pairs (Fetterly et
//     al., §2 and §4). doc/report.md describes every definition.
#ifndef NEARDUP_ANALYSIS_H_
#define NEARDUP_ANALYSIS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "neardup/env.h"
#include "neardup/status.h"

namespace neardup {

// ---------------------------------------------------------------------------
// Plots and the HTML page.
// ---------------------------------------------------------------------------

// One named set of (x, y) points; drawn in one colour, listed in the legend.
struct PlotSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;
};

struct Plot {
  // kScatter: one <circle> per point. kLine: a polyline through the points
  // (in the given order) plus one small <circle> per point. kBars: one <rect>
  // per point; the point's x is the index into x_categories (several series
  // are drawn side by side within each category).
  enum class Kind { kScatter, kLine, kBars } kind = Kind::kScatter;
  std::string title, x_label, y_label;
  // Logarithmic axes with ticks at powers of ten. Points with a non-positive
  // coordinate on a log axis are skipped, and the number skipped is written in
  // a note under the plot. Ignored for kBars' x axis.
  bool log_x = false, log_y = false;
  std::vector<PlotSeries> series;
  std::vector<std::string> x_categories;  // kBars: labels of the bars
  // Drawn on log-log plots (dashed): y = exp(intercept) * x^slope, given as
  // {slope, intercept} (natural logarithms), over the plotted x range.
  std::optional<std::pair<double, double>> fit_line;
};

// A complete inline <svg> element (viewBox, so it scales with the page):
// axes, ticks with labels, a light grid, axis labels, title, legend. Every
// data point is one element (<circle> or <rect>) with class "point" and
// attributes data-x / data-y (the data values, not pixel positions) and a
// <title> tooltip. All text is XML-escaped. An empty plot renders axes and a
// "no data" note.
std::string RenderSvg(const Plot& plot);

// Escapes &, <, >, " and ' for HTML text and attribute values.
std::string HtmlEscape(const std::string& text);

// One self-contained HTML page built from sections, tables, plots and
// key-value lists, rendered in the order added. Nothing is fetched from
// anywhere: inline CSS and SVG only, no script, no external font or image.
class HtmlReport {
 public:
  explicit HtmlReport(std::string title);

  // A new <h2> section with an introductory paragraph (may be empty).
  void AddSection(std::string heading, std::string intro_text);
  // A table; rows shorter than the header are padded with empty cells.
  // Cells that parse as numbers are right-aligned.
  void AddTable(std::vector<std::string> header, std::vector<std::vector<std::string>> rows,
                std::string caption = "");
  void AddPlot(const Plot& plot, std::string caption = "");
  void AddKeyValues(std::vector<std::pair<std::string, std::string>> rows);
  // A plain paragraph.
  void AddParagraph(std::string text);

  // The whole HTML document (UTF-8, every text escaped).
  std::string Render() const;

 private:
  std::string title_;
  std::string body_;
};

// ---------------------------------------------------------------------------
// Statistics.
// ---------------------------------------------------------------------------

// Least-squares line through (ln x, ln y) for the points with x > 0 and
// y > 0: ln y = intercept + slope * ln x. For a power law y ~ x^-alpha the
// exponent is alpha = -slope (Fetterly et al. Figures 1-3 fit this way).
struct LogLogFit {
  double slope = 0;
  double intercept = 0;
  double r_squared = 0;  // coefficient of determination on the log-log points
  uint64_t points = 0;   // points used; the fit is meaningful only when >= 2
};
LogLogFit FitLogLog(const std::vector<std::pair<double, double>>& points);

// Discrete maximum-likelihood exponent alpha of a power law
// p(x) = x^-alpha / zeta(alpha, x_min) for x >= x_min, from a histogram
// {value -> count} (values < x_min ignored). Maximises the exact discrete
// log-likelihood (Clauset, Shalizi and Newman, "Power-law distributions in
// empirical data", eq. 3.5) over alpha in (1, 10] with the Hurwitz zeta
// function; returns nullopt when fewer than 2 values >= x_min exist or all
// are equal to x_min (the likelihood then has no finite maximum).
std::optional<double> DiscretePowerLawMle(const std::map<uint64_t, uint64_t>& histogram,
                                          uint64_t x_min = 1);

// ---------------------------------------------------------------------------
// A dedup output folder.
// ---------------------------------------------------------------------------

// One row of clusters.tsv.
struct ClusterRow {
  uint64_t id = 0;  // document id: the row's 0-based index in clusters.tsv
                    // (malformed rows are skipped but keep their number)
  std::string url;
  uint64_t cluster = 0;  // document id (row index) of the cluster's kept page
  bool keep = false;     // role == "keep"
  std::string method;
};

// One row of pairs.tsv. b_similarity: supershingles shared (broder, combined);
// c_similarity: simhash bits agreeing (simhash, combined); for method robust
// neither is set (content_similarity goes to `other_similarity`).
struct PairRow {
  std::string url_a, url_b;
  std::optional<double> b_similarity;
  std::optional<double> c_similarity;
  std::optional<double> other_similarity;
};

struct DedupRun {
  std::vector<ClusterRow> clusters;  // the valid rows, in input order
  uint64_t malformed_cluster_rows = 0;
  // summary.json's fields (empty / 0 when summary.json is missing or bad).
  bool has_summary = false;
  std::string method, method_spec;
  uint64_t summary_documents = 0, summary_clusters = 0, summary_duplicates = 0;
  // pairs.tsv (only when it exists).
  bool has_pairs = false;
  std::vector<std::string> pair_columns;  // the header's similarity columns
  std::vector<PairRow> pairs;
  uint64_t malformed_pair_rows = 0;
  // summary.json of a paragraphs run: the m-pass passes (Pereira et al.
  // Figure 5): pass, documents loaded, clusters, duplicates, estimated final
  // duplicates. Of a chunks run: pages by number of replicas per chunking
  // (Shivakumar and Garcia-Molina Figure 1), buckets in order.
  struct PassRow {
    uint64_t pass = 0, documents_loaded = 0, clusters = 0, duplicates = 0;
    double estimated_final_duplicates = 0;
  };
  std::vector<PassRow> paragraph_passes;
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, uint64_t>>>> replica_histograms;
  // mirrors.tsv's rows as read, when it exists (header first).
  bool has_mirrors = false;
  std::vector<std::vector<std::string>> mirror_rows;
  // One line per problem that was counted, not fatal (malformed rows etc.).
  std::vector<std::string> warnings;
};

// Every function below that reads or writes files does so through `env`
// (REQUIRES: env != nullptr; the CLI passes Env::Default()).
//
// Reads DIR/clusters.tsv (required: error NotFound / Corruption when missing,
// unreadable, or without a valid header), and summary.json, pairs.tsv and
// mirrors.tsv when present. Malformed rows are counted and skipped.
Result<DedupRun> LoadDedupRun(const std::string& dir, Env* env = nullptr);

// ---------------------------------------------------------------------------
// The report.
// ---------------------------------------------------------------------------

struct ReportOptions {
  uint64_t top_clusters = 20;  // rows in the largest-clusters table (Fetterly et al. Tables 1-2)
  uint64_t top_sites = 20;     // rows in the duplicates-per-site table
  // Number of C-similarity ranges in the table of average B-similarity by
  // C-similarity (Henzinger Table 10 uses 4 ranges over 372..384).
  uint64_t c_similarity_bins = 6;
  Status Validate() const;
};

struct ClusterSizeStats {
  std::map<uint64_t, uint64_t> size_histogram;  // cluster size -> number of clusters
  LogLogFit least_squares;                      // on the histogram, all sizes
  std::optional<double> mle_alpha;              // DiscretePowerLawMle(x_min = 1)
};

struct LargeCluster {
  uint64_t cluster = 0;  // kept page's document id
  uint64_t size = 0;     // number of URLs
  uint64_t distinct_hosts = 0;
  std::string representative_url;  // the kept page's URL
};

struct SiteDuplicates {
  std::string host;
  uint64_t documents = 0;
  uint64_t duplicates = 0;  // pages of this host whose role is duplicate
};

// Degree of a page in the similarity graph: the number of distinct other
// pages it shares a pairs.tsv edge with (edges de-duplicated, self-pairs
// ignored). Histogram over pages with degree >= 1 (Henzinger Figures 1, 3).
struct DegreeStats {
  std::map<uint64_t, uint64_t> degree_histogram;  // degree -> number of pages
  uint64_t edges = 0;                             // distinct undirected edges
  uint64_t pages_with_edges = 0;
  LogLogFit least_squares;
};
DegreeStats ComputeDegreeStats(const std::vector<PairRow>& pairs);

// Henzinger Tables 9-10 over the pairs that carry the similarity in question.
struct SimilarityRow {
  std::string label;       // the B value, or a C range "lo-hi"
  uint64_t pairs = 0;
  double average_other = 0;  // average C-similarity (by B) or B-similarity (by C)
  std::map<double, uint64_t> other_distribution;  // other similarity -> pairs
};
struct SimilarityTables {
  std::vector<SimilarityRow> by_b;  // one row per distinct B-similarity (needs both columns)
  std::vector<SimilarityRow> by_c;  // one row per C range (needs both columns)
  std::map<double, uint64_t> b_distribution;  // B-similarity -> pairs (when B present)
  std::map<double, uint64_t> c_distribution;  // C-similarity -> pairs (when C present)
};
SimilarityTables ComputeSimilarityTables(const std::vector<PairRow>& pairs, uint64_t c_bins);

struct RunReport {
  uint64_t documents = 0, clusters = 0, duplicates = 0;  // counted from clusters.tsv
  // The duplicates by what put them in their cluster (clusters.tsv's
  // `method`: `exact` copies, the near method's name, `redirect`,
  // `revisit`): where a crawl's duplication comes from.
  std::map<std::string, uint64_t> duplicates_by_method;
  ClusterSizeStats cluster_sizes;
  std::vector<LargeCluster> largest_clusters;
  std::vector<SiteDuplicates> sites;  // all hosts, most duplicates first
  std::optional<DegreeStats> degrees;             // when pairs.tsv exists
  std::optional<SimilarityTables> similarity;     // when pairs.tsv has B or C
};

// RunReport::duplicates_by_method as text, most first: "revisit 42,
// redirect 4" ("none" when empty).
std::string DuplicatesByMethodText(const std::map<std::string, uint64_t>& by_method);

// Computes every section from the loaded run.
Result<RunReport> ComputeRunReport(const DedupRun& run, const ReportOptions& options);
// report.json's content (pretty-printed JSON) and report.html's content.
std::string RunReportJson(const DedupRun& run, const RunReport& report,
                          const ReportOptions& options);
std::string RunReportHtml(const DedupRun& run, const RunReport& report,
                          const ReportOptions& options);
// Loads DIR, computes, writes DIR/report.html and DIR/report.json.
Result<RunReport> WriteRunReport(const std::string& dir, const ReportOptions& options = ReportOptions(),
                                 Env* env = nullptr, DedupRun* loaded = nullptr);

// ---------------------------------------------------------------------------
// Mirrors (Fetterly, Manasse and Najork, §2 and §4).
// ---------------------------------------------------------------------------

struct MirrorOptions {
  // Fetterly et al. §4: a host takes part only with at least this many pages
  // in clusters of size > 1.
  uint64_t min_host_pages = 10;
  // A host pair is reported when it has at least this many common pages.
  uint64_t min_common_pages = 10;
  // Last path arcs whose suffixes are hashed (Fetterly et al.: the last four).
  uint64_t suffix_arcs = 4;
  // Per-cluster Bloom filter: bits per inserted suffix hash and probes.
  uint64_t bloom_bits_per_key = 16;
  uint64_t bloom_probes = 4;
  // A pair is confirmed when confirmed_pages >= this fraction of common_pages.
  double confirm_fraction = 0.5;
  // Performance: a cluster spanning more candidate hosts than this (e.g.
  // empty or boilerplate pages on thousands of hosts) is skipped and counted
  // in MirrorResult::clusters_skipped, since it costs hosts^2 pair updates.
  uint64_t max_cluster_hosts = 1000;
  Status Validate() const;
};

// One mirrored host pair. Definitions (doc/report.md, "Mirrors"):
//  - common_pages: over every cluster holding pages of both hosts, the sum of
//    min(pages of A in it, pages of B in it): the number of page pairs that
//    can be matched one-to-one between the two hosts within clusters.
//  - confirmed_pages: the same sum, counting in each cluster only pages whose
//    URL suffix (query and fragment dropped, the last suffix_arcs path arcs)
//    is also found, through the cluster's Bloom filter over the other host's
//    suffixes, on the other host: min(matched A pages, matched B pages).
//  - confirmed: confirmed_pages >= confirm_fraction * common_pages.
//  - alias: "www" when the names are equal after removing one leading
//    "www."; "" otherwise. (A dedup output holds no DNS or redirect data, so
//    no other aliasing can be seen.)
struct MirrorPair {
  std::string host_a, host_b;  // host_a < host_b
  uint64_t common_pages = 0;
  uint64_t confirmed_pages = 0;
  uint64_t common_clusters = 0;
  bool confirmed = false;
  std::string alias;
};

struct MirrorResult {
  uint64_t candidate_hosts = 0;  // hosts with >= min_host_pages clustered pages
  uint64_t clusters_skipped = 0;  // clusters over max_cluster_hosts candidate hosts
  std::vector<MirrorPair> pairs;  // common_pages descending, then names
  std::map<uint64_t, uint64_t> size_distribution;  // common_pages -> host pairs
};

MirrorResult FindMirrors(const std::vector<ClusterRow>& clusters, const MirrorOptions& options);
// mirrors.tsv: header `host_a host_b common_pages confirmed_pages confirmed
// alias common_clusters`, one row per pair.
std::string MirrorsTsv(const MirrorResult& result);
// Loads DIR, finds mirrors, writes DIR/mirrors.tsv, then rewrites the report
// (DIR/report.html, DIR/report.json) so it includes the mirrors section.
Result<MirrorResult> WriteMirrors(const std::string& dir, const MirrorOptions& options = MirrorOptions(),
                                  const ReportOptions& report_options = ReportOptions(), Env* env = nullptr);

}  // namespace neardup

#endif  // NEARDUP_ANALYSIS_H_
