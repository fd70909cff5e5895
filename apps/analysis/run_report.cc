// Copyright neardup authors. Licensed under Apache-2.0.
//
// The report of one dedup run: ComputeRunReport, its JSON and HTML forms,
// and WriteRunReport (apps/analysis/analysis.h; doc/report.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>

#include <nlohmann/json.hpp>

#include "analysis/files.h"
#include "analysis/analysis.h"
#include "text/url.h"

namespace neardup {
namespace {

using Json = nlohmann::ordered_json;

std::string HostOf(const std::string& url) {
  std::string host = UrlHost(url);
  return host.empty() ? "(no host)" : host;
}

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string Percent(uint64_t part, uint64_t whole) {
  return whole == 0 ? "0.0%" : Fixed(100.0 * static_cast<double>(part) / static_cast<double>(whole), 1) + "%";
}

std::string NumberLabel(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

Json FitJson(const LogLogFit& fit) {
  Json j;
  j["method"] = "least squares on (ln x, ln y) of the histogram";
  j["points"] = fit.points;
  if (fit.points >= 2) {
    j["slope"] = fit.slope;
    j["intercept"] = fit.intercept;
    j["exponent"] = -fit.slope;
    j["r_squared"] = fit.r_squared;
  } else {
    j["slope"] = nullptr;
    j["exponent"] = nullptr;
  }
  return j;
}

Json HistogramJson(const std::map<uint64_t, uint64_t>& h, const char* key, const char* value) {
  Json a = Json::array();
  for (const auto& [k, v] : h) a.push_back({{key, k}, {value, v}});
  return a;
}

Json DistributionJson(const std::map<double, uint64_t>& h, const char* key) {
  Json a = Json::array();
  for (const auto& [k, v] : h) a.push_back({{key, k}, {"pairs", v}});
  return a;
}

// Mirror size distribution (host pairs by common_pages) from mirrors.tsv rows.
std::map<uint64_t, uint64_t> MirrorSizes(const DedupRun& run) {
  std::map<uint64_t, uint64_t> sizes;
  if (run.mirror_rows.size() < 2) return sizes;
  const auto& header = run.mirror_rows[0];
  const auto it = std::find(header.begin(), header.end(), "common_pages");
  if (it == header.end()) return sizes;
  const size_t column = static_cast<size_t>(it - header.begin());
  for (size_t r = 1; r < run.mirror_rows.size(); ++r) {
    if (column >= run.mirror_rows[r].size()) continue;
    try {
      size_t pos = 0;
      const uint64_t v = std::stoull(run.mirror_rows[r][column], &pos);
      if (pos == run.mirror_rows[r][column].size()) ++sizes[v];
    } catch (...) {
    }
  }
  return sizes;
}

Plot PowerLawPlot(const std::map<uint64_t, uint64_t>& h, const LogLogFit& fit, std::string title,
                  std::string x_label, std::string y_label, std::string series) {
  Plot p;
  p.kind = Plot::Kind::kScatter;
  p.title = std::move(title);
  p.x_label = std::move(x_label);
  p.y_label = std::move(y_label);
  p.log_x = p.log_y = true;
  PlotSeries s;
  s.name = std::move(series);
  for (const auto& [x, y] : h) s.points.push_back({static_cast<double>(x), static_cast<double>(y)});
  p.series.push_back(std::move(s));
  if (fit.points >= 2) p.fit_line = std::make_pair(fit.slope, fit.intercept);
  return p;
}

}  // namespace

Status ReportOptions::Validate() const {
  if (top_clusters == 0) return Status::InvalidArgument("top_clusters must be at least 1");
  if (top_sites == 0) return Status::InvalidArgument("top_sites must be at least 1");
  if (c_similarity_bins == 0 || c_similarity_bins > 1000) {
    return Status::InvalidArgument("c_similarity_bins must be in 1..1000");
  }
  return Status::OK();
}

Result<RunReport> ComputeRunReport(const DedupRun& run, const ReportOptions& options) {
  NEARDUP_RETURN_IF_ERROR(options.Validate());
  RunReport r;
  r.documents = run.clusters.size();
  // Clusters keyed by the kept page's document id.
  struct Members {
    uint64_t size = 0;
    std::set<std::string> hosts;
    std::string representative;
    std::string first_url;
  };
  std::map<uint64_t, Members> clusters;
  std::unordered_map<std::string, SiteDuplicates> sites;
  for (const auto& row : run.clusters) {
    const std::string host = HostOf(row.url);
    Members& m = clusters[row.cluster];
    if (m.size == 0) m.first_url = row.url;
    ++m.size;
    m.hosts.insert(host);
    if (row.id == row.cluster) m.representative = row.url;
    SiteDuplicates& site = sites[host];
    site.host = host;
    ++site.documents;
    if (!row.keep) {
      ++site.duplicates;
      ++r.duplicates;
      ++r.duplicates_by_method[row.method.empty() ? std::string("(none)") : row.method];
    }
  }
  r.clusters = clusters.size();
  for (const auto& [id, m] : clusters) ++r.cluster_sizes.size_histogram[m.size];
  std::vector<std::pair<double, double>> points;
  for (const auto& [size, n] : r.cluster_sizes.size_histogram) {
    points.push_back({static_cast<double>(size), static_cast<double>(n)});
  }
  r.cluster_sizes.least_squares = FitLogLog(points);
  r.cluster_sizes.mle_alpha = DiscretePowerLawMle(r.cluster_sizes.size_histogram, 1);

  for (const auto& [id, m] : clusters) {
    LargeCluster c;
    c.cluster = id;
    c.size = m.size;
    c.distinct_hosts = m.hosts.size();
    c.representative_url = m.representative.empty() ? m.first_url : m.representative;
    r.largest_clusters.push_back(std::move(c));
  }
  std::sort(r.largest_clusters.begin(), r.largest_clusters.end(),
            [](const LargeCluster& a, const LargeCluster& b) {
              return a.size != b.size ? a.size > b.size : a.cluster < b.cluster;
            });
  if (r.largest_clusters.size() > options.top_clusters) r.largest_clusters.resize(options.top_clusters);

  for (auto& [host, s] : sites) r.sites.push_back(std::move(s));
  std::sort(r.sites.begin(), r.sites.end(), [](const SiteDuplicates& a, const SiteDuplicates& b) {
    if (a.duplicates != b.duplicates) return a.duplicates > b.duplicates;
    if (a.documents != b.documents) return a.documents > b.documents;
    return a.host < b.host;
  });

  if (run.has_pairs) {
    r.degrees = ComputeDegreeStats(run.pairs);
    SimilarityTables t = ComputeSimilarityTables(run.pairs, options.c_similarity_bins);
    if (!t.b_distribution.empty() || !t.c_distribution.empty()) r.similarity = std::move(t);
  }
  return r;
}

std::string RunReportJson(const DedupRun& run, const RunReport& r, const ReportOptions& options) {
  Json j;
  j["command"] = "report";
  j["summary"] = {
      {"method", run.method},
      {"method_spec", run.method_spec},
      {"documents", r.documents},
      {"clusters", r.clusters},
      {"duplicates", r.duplicates},
      {"duplicates_by_method", r.duplicates_by_method},
      {"counted_from", "clusters.tsv"},
      {"summary_json",
       run.has_summary ? Json{{"documents_read", run.summary_documents},
                              {"clusters", run.summary_clusters},
                              {"duplicates", run.summary_duplicates}}
                       : Json(nullptr)},
  };
  j["malformed_rows"] = {{"clusters_tsv", run.malformed_cluster_rows},
                         {"pairs_tsv", run.malformed_pair_rows}};
  j["warnings"] = run.warnings;
  if (!run.paragraph_passes.empty()) {
    nlohmann::ordered_json passes = nlohmann::ordered_json::array();
    for (const auto& p : run.paragraph_passes) {
      passes.push_back({{"pass", p.pass},
                        {"documents_loaded", p.documents_loaded},
                        {"clusters", p.clusters},
                        {"duplicates", p.duplicates},
                        {"estimated_final_duplicates", p.estimated_final_duplicates}});
    }
    j["paragraph_passes"] = passes;
  }
  if (!run.replica_histograms.empty()) {
    nlohmann::ordered_json hist = nlohmann::ordered_json::object();
    for (const auto& [chunking, buckets] : run.replica_histograms) {
      nlohmann::ordered_json b = nlohmann::ordered_json::object();
      for (const auto& [label, pages] : buckets) b[label] = pages;
      hist[chunking] = b;
    }
    j["replica_histogram"] = hist;
  }

  Json sizes;
  sizes["histogram"] = HistogramJson(r.cluster_sizes.size_histogram, "size", "clusters");
  sizes["power_law"]["least_squares"] = FitJson(r.cluster_sizes.least_squares);
  sizes["power_law"]["discrete_mle"] = {
      {"method", "discrete maximum likelihood, x_min = 1 (Clauset, Shalizi and Newman eq. 3.5)"},
      {"x_min", 1},
      {"alpha", r.cluster_sizes.mle_alpha ? Json(*r.cluster_sizes.mle_alpha) : Json(nullptr)}};
  j["cluster_sizes"] = sizes;

  Json largest = Json::array();
  for (const auto& c : r.largest_clusters) {
    largest.push_back({{"cluster", c.cluster},
                       {"size", c.size},
                       {"distinct_hosts", c.distinct_hosts},
                       {"representative_url", c.representative_url}});
  }
  j["largest_clusters"] = largest;

  Json sites = Json::array();
  for (size_t i = 0; i < r.sites.size() && i < options.top_sites; ++i) {
    const auto& s = r.sites[i];
    sites.push_back({{"host", s.host},
                     {"documents", s.documents},
                     {"duplicates", s.duplicates},
                     {"share", s.documents ? static_cast<double>(s.duplicates) / static_cast<double>(s.documents) : 0.0}});
  }
  j["sites"] = {{"hosts", r.sites.size()}, {"top", sites}};

  if (r.degrees) {
    j["degree_distribution"] = {
        {"edges", r.degrees->edges},
        {"pages_with_edges", r.degrees->pages_with_edges},
        {"histogram", HistogramJson(r.degrees->degree_histogram, "degree", "pages")},
        {"power_law", FitJson(r.degrees->least_squares)}};
  } else {
    j["degree_distribution"] = nullptr;
  }
  if (r.similarity) {
    Json s;
    s["pair_columns"] = run.pair_columns;
    if (!r.similarity->b_distribution.empty()) {
      s["b_similarity_distribution"] = DistributionJson(r.similarity->b_distribution, "b_similarity");
    }
    if (!r.similarity->c_distribution.empty()) {
      s["c_similarity_distribution"] = DistributionJson(r.similarity->c_distribution, "c_similarity");
    }
    auto rows_json = [](const std::vector<SimilarityRow>& rows, const char* key, const char* avg,
                        const char* other) {
      Json a = Json::array();
      for (const auto& row : rows) {
        a.push_back({{key, row.label},
                     {"pairs", row.pairs},
                     {avg, row.average_other},
                     {"distribution", DistributionJson(row.other_distribution, other)}});
      }
      return a;
    };
    if (!r.similarity->by_b.empty()) {
      s["by_b_similarity"] = rows_json(r.similarity->by_b, "b_similarity", "average_c_similarity", "c_similarity");
      s["by_c_similarity"] = rows_json(r.similarity->by_c, "c_similarity_range", "average_b_similarity", "b_similarity");
    }
    j["similarity"] = s;
  } else {
    j["similarity"] = nullptr;
  }
  if (run.has_mirrors) {
    j["mirrors"] = {{"host_pairs", run.mirror_rows.size() - 1},
                    {"size_distribution", HistogramJson(MirrorSizes(run), "common_pages", "host_pairs")}};
  }
  // URLs and hosts come from the crawl and need not be UTF-8: invalid bytes
  // become U+FFFD instead of failing the dump.
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string DuplicatesByMethodText(const std::map<std::string, uint64_t>& by_method) {
  std::vector<std::pair<uint64_t, std::string>> order;
  for (const auto& [method, n] : by_method) order.push_back({n, method});
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string text;
  for (const auto& [n, method] : order) text += (text.empty() ? "" : ", ") + method + " " + std::to_string(n);
  return text.empty() ? "none" : text;
}

std::string RunReportHtml(const DedupRun& run, const RunReport& r, const ReportOptions& options) {
  HtmlReport page("neardup report: " + (run.method.empty() ? std::string("dedup run") : run.method + " run"));
  std::vector<std::pair<std::string, std::string>> kv = {
      {"documents", std::to_string(r.documents)},
      {"clusters", std::to_string(r.clusters)},
      {"duplicates", std::to_string(r.duplicates) + " (" + Percent(r.duplicates, r.documents) + ")"},
      {"duplicates by what put them in their cluster", DuplicatesByMethodText(r.duplicates_by_method)},
      {"method", run.method.empty() ? "(summary.json missing)" : run.method},
      {"method spec", run.method_spec},
  };
  if (run.malformed_cluster_rows || run.malformed_pair_rows) {
    kv.push_back({"malformed rows skipped", "clusters.tsv " + std::to_string(run.malformed_cluster_rows) +
                                                ", pairs.tsv " + std::to_string(run.malformed_pair_rows)});
  }
  page.AddKeyValues(std::move(kv));

  // Cluster sizes.
  const auto& cs = r.cluster_sizes;
  std::string fit_text = "Least squares on the log-log histogram: ";
  fit_text += cs.least_squares.points >= 2
                  ? "exponent " + Fixed(-cs.least_squares.slope, 3) + " (R\xc2\xb2 " +
                        Fixed(cs.least_squares.r_squared, 3) + ", " + std::to_string(cs.least_squares.points) + " sizes)"
                  : "not enough distinct sizes";
  fit_text += ". Discrete maximum-likelihood exponent (x_min = 1): ";
  fit_text += cs.mle_alpha ? Fixed(*cs.mle_alpha, 3) : std::string("undefined (all clusters of one size)");
  fit_text += ".";
  page.AddSection("Cluster sizes",
                  "Number of clusters of each size (a single page is a cluster of size 1), on log-log "
                  "axes as in Fetterly, Manasse and Najork (Figures 1-3) and Pereira, Baeza-Yates and "
                  "Ziviani (Figures 2-4). The dashed line is the least-squares power-law fit.");
  page.AddPlot(PowerLawPlot(cs.size_histogram, cs.least_squares, "Cluster size distribution",
                            "cluster size (pages)", "number of clusters", "clusters"),
               fit_text);
  {
    std::vector<std::vector<std::string>> rows;
    for (const auto& [size, n] : cs.size_histogram) rows.push_back({std::to_string(size), std::to_string(n)});
    page.AddTable({"size", "clusters"}, rows, "Cluster size histogram");
  }
  {
    std::vector<std::vector<std::string>> rows;
    for (const auto& c : r.largest_clusters) {
      rows.push_back({std::to_string(c.cluster), std::to_string(c.size), std::to_string(c.distinct_hosts),
                      c.representative_url});
    }
    page.AddSection("Largest clusters",
                    "The " + std::to_string(options.top_clusters) +
                        " largest clusters (Fetterly et al. Tables 1-2): number of URLs, distinct hosts, "
                        "and the kept page's URL.");
    page.AddTable({"cluster", "size", "distinct hosts", "representative URL"}, rows);
  }
  {
    std::vector<std::vector<std::string>> rows;
    Plot bars;
    bars.kind = Plot::Kind::kBars;
    bars.title = "Duplicates per host (top hosts)";
    bars.x_label = "host";
    bars.y_label = "pages";
    PlotSeries docs{"documents", {}}, dups{"duplicates", {}};
    for (size_t i = 0; i < r.sites.size() && i < options.top_sites; ++i) {
      const auto& s = r.sites[i];
      rows.push_back({s.host, std::to_string(s.documents), std::to_string(s.duplicates),
                      Percent(s.duplicates, s.documents)});
      if (i < 12) {
        bars.x_categories.push_back(s.host.size() > 16 ? s.host.substr(0, 15) + "\xe2\x80\xa6" : s.host);
        docs.points.push_back({static_cast<double>(i), static_cast<double>(s.documents)});
        dups.points.push_back({static_cast<double>(i), static_cast<double>(s.duplicates)});
      }
    }
    bars.series = {docs, dups};
    page.AddSection("Duplicates per host",
                    std::to_string(r.sites.size()) +
                        " hosts. Duplicates are pages in a cluster that are not its kept page; share = "
                        "duplicates / documents of the host. Hosts with most duplicates first.");
    page.AddPlot(bars);
    page.AddTable({"host", "documents", "duplicates", "share"}, rows);
  }
  if (r.degrees) {
    const auto& d = *r.degrees;
    page.AddSection("Similarity graph degrees",
                    "Pages by number of near-duplicate neighbours in pairs.tsv (Henzinger Figures 1 and 3): " +
                        std::to_string(d.edges) + " distinct edges, " + std::to_string(d.pages_with_edges) +
                        " pages with at least one.");
    std::string caption =
        d.least_squares.points >= 2
            ? "Least-squares power-law exponent " + Fixed(-d.least_squares.slope, 3) + " (R\xc2\xb2 " +
                  Fixed(d.least_squares.r_squared, 3) + ")."
            : "Too few distinct degrees for a fit.";
    page.AddPlot(PowerLawPlot(d.degree_histogram, d.least_squares, "Degree distribution",
                              "degree (near-duplicate neighbours)", "number of pages", "pages"),
                 caption);
  }
  if (r.similarity) {
    const auto& s = *r.similarity;
    page.AddSection("B-similarity and C-similarity",
                    "B-similarity: supershingles shared; C-similarity: simhash bits agreeing (Henzinger "
                    "§3.4.4, Tables 9-10).");
    auto dist_plot = [&page](const std::map<double, uint64_t>& dist, const std::string& what) {
      Plot p;
      p.kind = Plot::Kind::kBars;
      p.title = "Pairs by " + what;
      p.x_label = what;
      p.y_label = "pairs";
      PlotSeries series{"pairs", {}};
      size_t i = 0;
      for (const auto& [v, n] : dist) {
        p.x_categories.push_back(NumberLabel(v));
        series.points.push_back({static_cast<double>(i++), static_cast<double>(n)});
      }
      p.series.push_back(std::move(series));
      page.AddPlot(p);
    };
    if (!s.b_distribution.empty()) dist_plot(s.b_distribution, "B-similarity");
    if (!s.c_distribution.empty()) dist_plot(s.c_distribution, "C-similarity");
    auto table = [&page](const std::vector<SimilarityRow>& rows, const std::string& key,
                         const std::string& avg, const std::string& caption) {
      std::vector<std::vector<std::string>> cells;
      for (const auto& row : rows) {
        std::string dist;
        for (const auto& [v, n] : row.other_distribution) {
          if (!dist.empty()) dist += ", ";
          dist += NumberLabel(v) + ": " + std::to_string(n);
        }
        cells.push_back({row.label, std::to_string(row.pairs), Fixed(row.average_other, 2), dist});
      }
      page.AddTable({key, "pairs", avg, "distribution (value: pairs)"}, cells, caption);
    };
    if (!s.by_b.empty()) {
      table(s.by_b, "B-similarity", "average C-similarity",
            "For each B-similarity, the C-similarity of its pairs (Henzinger Table 9)");
      table(s.by_c, "C-similarity range", "average B-similarity",
            "For each C-similarity range, the B-similarity of its pairs (Henzinger Table 10)");
    }
  }
  if (!run.paragraph_passes.empty()) {
    page.AddSection("Growth per pass",
                    "Clusters and duplicates found after each pass of the m-pass algorithm (Pereira, "
                    "Baeza-Yates and Ziviani, Figure 5), with the estimate of the final number of "
                    "duplicates made after that pass.");
    Plot plot;
    plot.kind = Plot::Kind::kLine;
    plot.title = "Clusters and duplicates by pass";
    plot.x_label = "pass";
    plot.y_label = "documents";
    PlotSeries clusters{"clusters", {}}, duplicates{"duplicates", {}}, estimate{"estimated final duplicates", {}};
    std::vector<std::vector<std::string>> rows;
    for (const auto& p : run.paragraph_passes) {
      const double x = static_cast<double>(p.pass);
      clusters.points.push_back({x, static_cast<double>(p.clusters)});
      duplicates.points.push_back({x, static_cast<double>(p.duplicates)});
      estimate.points.push_back({x, p.estimated_final_duplicates});
      rows.push_back({std::to_string(p.pass), std::to_string(p.documents_loaded), std::to_string(p.clusters),
                      std::to_string(p.duplicates), Fixed(p.estimated_final_duplicates, 0)});
    }
    plot.series = {clusters, duplicates, estimate};
    page.AddPlot(plot);
    page.AddTable({"pass", "documents loaded", "clusters", "duplicates", "estimated final duplicates"}, rows);
  }
  if (!run.replica_histograms.empty()) {
    page.AddSection("Replicas per page",
                    "Pages by number of replicas, themselves included (Shivakumar and Garcia-Molina, "
                    "Figure 1), for exact copies (whole) and for the chunking of the run.");
    Plot plot;
    plot.kind = Plot::Kind::kBars;
    plot.title = "Pages by number of replicas";
    plot.x_label = "replicas";
    plot.y_label = "pages";
    for (const auto& [chunking, buckets] : run.replica_histograms) {
      PlotSeries series{chunking, {}};
      if (plot.x_categories.empty()) {
        for (const auto& b : buckets) plot.x_categories.push_back(b.first);
      }
      for (size_t i = 0; i < buckets.size(); ++i) {
        series.points.push_back({static_cast<double>(i), static_cast<double>(buckets[i].second)});
      }
      plot.series.push_back(std::move(series));
    }
    page.AddPlot(plot);
  }
  if (run.has_mirrors) {
    page.AddSection("Mirrors",
                    "Host pairs from mirrors.tsv (neardup mirrors; Fetterly et al. §4): pages of both hosts in "
                    "the same clusters, confirmed by matching URL suffixes.");
    const auto sizes = MirrorSizes(run);
    page.AddPlot(PowerLawPlot(sizes, FitLogLog({}), "Mirror size distribution", "common pages",
                              "host pairs", "host pairs"));
    std::vector<std::vector<std::string>> rows;
    for (size_t i = 1; i < run.mirror_rows.size() && i <= 50; ++i) rows.push_back(run.mirror_rows[i]);
    page.AddTable(run.mirror_rows[0], rows,
                  run.mirror_rows.size() > 51 ? "The first 50 of " + std::to_string(run.mirror_rows.size() - 1) +
                                                    " host pairs (all are in mirrors.tsv)"
                                              : "");
  }
  if (!run.warnings.empty()) {
    page.AddSection("Warnings", "Problems found while reading the run's files (counted, not fatal).");
    std::vector<std::vector<std::string>> rows;
    for (const auto& w : run.warnings) rows.push_back({w});
    page.AddTable({"warning"}, rows);
  }
  return page.Render();
}

Result<RunReport> WriteRunReport(const std::string& dir, const ReportOptions& options, Env* env,
                                 DedupRun* loaded) {
  if (env == nullptr) env = Env::Default();
  NEARDUP_RETURN_IF_ERROR(options.Validate());
  NEARDUP_ASSIGN_OR_RETURN(DedupRun run, LoadDedupRun(dir, env));
  NEARDUP_ASSIGN_OR_RETURN(RunReport report, ComputeRunReport(run, options));
  NEARDUP_RETURN_IF_ERROR(WriteWholeFile(JoinPath(dir, "report.json"), RunReportJson(run, report, options), env));
  NEARDUP_RETURN_IF_ERROR(WriteWholeFile(JoinPath(dir, "report.html"), RunReportHtml(run, report, options), env));
  if (loaded != nullptr) *loaded = std::move(run);
  return report;
}

}  // namespace neardup
