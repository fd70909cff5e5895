// Copyright neardup authors. Licensed under Apache-2.0.
#include "crawls/report_html.h"

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "analysis/analysis.h"

namespace neardup::crawls_internal {
namespace {

std::string Fixed(double v, int digits = 3) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string Pct(uint64_t part, uint64_t whole) {
  return whole ? Fixed(100.0 * static_cast<double>(part) / static_cast<double>(whole), 1) + "%" : "-";
}

// One line per size class over crawls 1..N.
Plot CurvePlot(const EvolveSummary& s, const char* title, const char* y_label,
               std::vector<double> SizeClassCurve::*values) {
  Plot plot;
  plot.kind = Plot::Kind::kLine;
  plot.title = title;
  plot.x_label = "crawl n";
  plot.y_label = y_label;
  for (const SizeClassCurve& c : s.size_classes) {
    if (c.urls == 0) continue;
    PlotSeries series;
    series.name = "size " + c.label;
    const std::vector<double>& v = c.*values;
    for (size_t n = 0; n < v.size(); ++n) series.points.push_back({static_cast<double>(n + 1), v[n]});
    plot.series.push_back(std::move(series));
  }
  return plot;
}

}  // namespace

std::string EvolveHtml(const EvolveSummary& s) {
  HtmlReport report("neardup evolve: clusters across successive crawls");
  report.AddSection("Crawls",
                    "Each crawl clustered on its own (Fetterly, Manasse and Najork, \"On the "
                    "Evolution of Clusters of Near-Duplicate Web Pages\"); a revisit record of the "
                    "previous crawl's page joins the cluster of its page's cluster-mates.");
  std::vector<std::vector<std::string>> rows;
  for (size_t n = 0; n < s.crawls.size(); ++n) {
    const EvolveCrawl& c = s.crawls[n];
    rows.push_back({std::to_string(n + 1), c.input, std::to_string(c.documents), std::to_string(c.urls),
                    std::to_string(c.clusters), std::to_string(c.duplicates),
                    std::to_string(c.revisits_of_previous_crawl) + " (" + std::to_string(c.revisits_joined) + ")",
                    std::to_string(s.unavailable[n])});
  }
  report.AddTable({"crawl", "input", "documents", "URLs", "clusters", "duplicates",
                   "revisits of the previous crawl's pages (joined)", "URLs of crawl 1 missing"},
                  rows);

  report.AddSection("Cluster containment and similarity",
                    "C_n(u): the cluster of URL u in crawl n; URLs of crawl 1 missing in crawl n "
                    "form one 'could not download' cluster. Curves average over the URLs whose "
                    "crawl-1 cluster size is in the class.");
  rows.clear();
  for (const SizeClassCurve& c : s.size_classes) {
    std::vector<std::string> row = {c.label, std::to_string(c.urls)};
    for (size_t n = 0; n < s.crawls.size(); ++n) {
      row.push_back(c.urls ? Fixed(c.containment[n]) + " / " + Fixed(c.similarity[n]) + " / " +
                                 Fixed(c.reverse_containment[n])
                           : "-");
    }
    rows.push_back(std::move(row));
  }
  std::vector<std::string> header = {"crawl-1 cluster size", "URLs"};
  for (size_t n = 0; n < s.crawls.size(); ++n) header.push_back("crawl " + std::to_string(n + 1));
  report.AddTable(header, rows, "Each cell: Φ_1^n / Ψ_1^n / Φ_n^1 averaged over the class");
  report.AddPlot(CurvePlot(s, "Containment of crawl n clusters in crawl 1 clusters (Figure 4)",
                           "avg Φ_1^n", &SizeClassCurve::containment));
  report.AddPlot(CurvePlot(s, "Similarity of crawl 1 and crawl n clusters (Figure 5)", "avg Ψ_1^n",
                           &SizeClassCurve::similarity));
  report.AddPlot(CurvePlot(s, "Containment of crawl 1 clusters in crawl n clusters (Figure 7)",
                           "avg Φ_n^1", &SizeClassCurve::reverse_containment));

  report.AddSection("Change amount between successive crawls",
                    "Min-hash features (m = 84, 5-term shingles) a URL's two pages have in "
                    "common; 85: identical bytes (Figures 8-10).");
  for (const CrawlPairChange& c : s.changes) {
    Plot plot;
    plot.kind = Plot::Kind::kBars;
    plot.title = "URLs by change amount, crawl " + std::to_string(c.from) + " to " + std::to_string(c.to);
    plot.x_label = "features in common";
    plot.y_label = "URLs";
    PlotSeries series;
    series.name = "URLs";
    for (int a = 0; a < kChangeBuckets; ++a) {
      plot.x_categories.push_back(std::to_string(a));
      series.points.push_back({static_cast<double>(a), static_cast<double>(c.by_amount[a])});
    }
    plot.series.push_back(std::move(series));
    report.AddPlot(plot);
    rows.clear();
    for (size_t k = 0; k < s.size_classes.size(); ++k) {
      uint64_t total = 0;
      for (uint64_t v : c.by_class_group[k]) total += v;
      if (total == 0) continue;
      std::vector<std::string> row = {s.size_classes[k].label, std::to_string(total)};
      for (int g = 0; g < kChangeGroups; ++g) row.push_back(Pct(c.by_class_group[k][g], total));
      rows.push_back(std::move(row));
    }
    std::vector<std::string> h = {"cluster size", "URLs"};
    for (int g = 0; g < kChangeGroups; ++g) h.push_back(ChangeGroupName(g));
    report.AddTable(h, rows,
                    "Crawl " + std::to_string(c.from) + " to " + std::to_string(c.to) + ": " +
                        std::to_string(c.common_urls) + " URLs in both, " +
                        std::to_string(c.disappeared) + " gone, " + std::to_string(c.appeared) +
                        " new (Figure 10)");
  }

  report.AddSection("Clusters per host",
                    "Change in the number of distinct clusters (of two or more URLs) a host's "
                    "pages are in, crawl 1 to crawl n (Figure 6).");
  rows.clear();
  for (const HostClusterChange& h : s.host_changes) {
    std::string hist;
    for (const auto& [delta, count] : h.histogram) {
      hist += (hist.empty() ? "" : ", ") + std::to_string(delta) + ": " + std::to_string(count);
    }
    rows.push_back({"1 to " + std::to_string(h.crawl), std::to_string(h.hosts),
                    Pct(h.unchanged_hosts, h.hosts), hist});
  }
  report.AddTable({"crawls", "hosts", "same number", "hosts by change"}, rows);
  return report.Render();
}

std::string ConnectedHtml(const ConnectedSummary& s) {
  HtmlReport report("neardup connected: duplicates in the connected and disconnected parts");
  report.AddSection("Simulated crawl",
                    "A crawler following navigational and external links breadth first from the "
                    "seeds marks pages connected; the others are disconnected (Pereira, "
                    "Baeza-Yates and Ziviani, \"Where and How Duplicates Occur in the Web\", §4.1).");
  std::string seeds;
  for (const std::string& u : s.seed_urls) seeds += (seeds.empty() ? "" : " ") + u;
  report.AddKeyValues({{"documents", std::to_string(s.documents)},
                       {"seeds", seeds.empty() ? "(none found)" : seeds},
                       {"links inside the crawl", std::to_string(s.links)},
                       {"links leaving the crawl", std::to_string(s.links_outside)},
                       {"deepest page (links from a seed)", std::to_string(s.max_depth)},
                       {"clusters from", s.dedup_dir}});
  auto part_row = [](const char* name, const PartCounts& p, uint64_t all) {
    return std::vector<std::string>{name,
                                    std::to_string(p.documents),
                                    Pct(p.documents, all),
                                    std::to_string(p.duplicates),
                                    Fixed(p.duplicate_percentage, 1) + "%",
                                    std::to_string(p.clusters),
                                    std::to_string(p.unique),
                                    std::to_string(p.useful)};
  };
  report.AddSection("Duplicates by part (Table 4)",
                    "Each part clustered on its own: a cluster's pages restricted to the part.");
  report.AddTable({"part", "documents", "% of crawl", "duplicates", "% duplicates", "clusters",
                   "unique", "useful"},
                  {part_row("complete", s.complete, s.documents),
                   part_row("connected", s.connected, s.documents),
                   part_row("disconnected", s.disconnected, s.documents)});
  report.AddSection("Useful documents in the connected part (Tables 5 and 6)", "");
  report.AddTable({"", "in the complete crawl", "with a document in the connected part", "%"},
                  {{"clusters (Table 5)", std::to_string(s.complete.clusters),
                    std::to_string(s.clusters_with_connected_document),
                    Pct(s.clusters_with_connected_document, s.complete.clusters)},
                   {"unique documents (Table 6)", std::to_string(s.complete.unique),
                    std::to_string(s.unique_in_connected),
                    Pct(s.unique_in_connected, s.complete.unique)},
                   {"useful documents", std::to_string(s.complete.useful),
                    std::to_string(s.useful_in_connected),
                    Pct(s.useful_in_connected, s.complete.useful)}});
  return report.Render();
}

}  // namespace neardup::crawls_internal
