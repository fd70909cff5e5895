// Copyright neardup authors. Licensed under Apache-2.0.
//
// RunConnected: Pereira, Baeza-Yates and Ziviani, "Where and How Duplicates
// Occur in the Web", §4.1: "a simple algorithm to simulate a Web crawler
// following links (navigational and external links). Every document reached
// from our crawl simulator algorithm belongs to a connected component of the
// Web graph. Documents that are not reached from the algorithm are
// classified as disconnected." Tables 4-6 count duplicates, clusters and
// useful documents ("the union of the unique documents with the original
// duplicated document from each cluster") in each part.
#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/tsv.h"
#include "analysis/files.h"
#include "crawls/crawls_internal.h"
#include "crawls/report_html.h"
#include "crawls/crawls.h"
#include "neardup/env.h"
#include "text/url.h"

namespace neardup {
namespace crawls_internal {

std::vector<int64_t> BreadthFirstDepths(const LinkGraph& graph, const std::vector<uint32_t>& seeds) {
  std::vector<int64_t> depth(graph.urls.size(), -1);
  std::deque<uint32_t> queue;
  for (uint32_t s : seeds) {
    if (s < depth.size() && depth[s] < 0) {
      depth[s] = 0;
      queue.push_back(s);
    }
  }
  while (!queue.empty()) {
    const uint32_t d = queue.front();
    queue.pop_front();
    for (uint32_t to : graph.out[d]) {
      if (to < depth.size() && depth[to] < 0) {
        depth[to] = depth[d] + 1;
        queue.push_back(to);
      }
    }
  }
  return depth;
}

uint32_t DefaultSeed(const LinkGraph& graph) {
  std::vector<std::string> host(graph.urls.size());
  std::vector<bool> home(graph.urls.size());
  for (size_t i = 0; i < graph.urls.size(); ++i) {
    host[i] = UrlHost(graph.urls[i]);
    const UrlParts parts = SplitUrl(graph.urls[i]);
    home[i] = parts.has_authority && parts.path == "/" && !parts.has_query;
  }
  std::map<uint32_t, std::set<std::string>> linking_hosts;  // home page -> other hosts linking it
  for (size_t i = 0; i < graph.out.size(); ++i) {
    for (uint32_t to : graph.out[i]) {
      if (to < home.size() && home[to] && host[to] != host[i]) linking_hosts[to].insert(host[i]);
    }
  }
  uint32_t best = 0;
  size_t best_count = 0;
  for (const auto& [page, hosts] : linking_hosts) {  // ascending page: ties keep the first
    if (hosts.size() > best_count) {
      best = page;
      best_count = hosts.size();
    }
  }
  return best;
}

namespace {

PartCounts Count(const std::vector<uint64_t>& cluster, const std::vector<bool>* part, bool want) {
  std::unordered_map<uint64_t, uint64_t> size;
  PartCounts p;
  for (size_t i = 0; i < cluster.size(); ++i) {
    if (part && (*part)[i] != want) continue;
    ++p.documents;
    ++size[cluster[i]];
  }
  for (const auto& [label, n] : size) {
    if (n < 2) continue;
    ++p.clusters;
    p.documents_in_clusters += n;
  }
  p.duplicates = p.documents_in_clusters - p.clusters;
  p.unique = p.documents - p.documents_in_clusters;
  p.useful = p.unique + p.clusters;
  p.duplicate_percentage =
      p.documents ? 100.0 * static_cast<double>(p.duplicates) / static_cast<double>(p.documents) : 0.0;
  return p;
}

}  // namespace

ConnectedTables CountParts(const std::vector<uint64_t>& cluster, const std::vector<bool>& connected) {
  ConnectedTables t;
  t.complete = Count(cluster, nullptr, true);
  t.connected = Count(cluster, &connected, true);
  t.disconnected = Count(cluster, &connected, false);
  std::unordered_map<uint64_t, uint64_t> size;
  for (uint64_t c : cluster) ++size[c];
  std::set<uint64_t> reached;  // clusters of the complete crawl with a connected page
  for (size_t i = 0; i < cluster.size(); ++i) {
    if (!connected[i]) continue;
    if (size[cluster[i]] >= 2) {
      reached.insert(cluster[i]);
    } else {
      ++t.unique_in_connected;
    }
  }
  t.clusters_with_connected_document = reached.size();
  t.useful_in_connected = t.clusters_with_connected_document + t.unique_in_connected;
  return t;
}

}  // namespace crawls_internal

Status ConnectedOptions::Validate() const {
  if (inputs.empty()) return Status::InvalidArgument("ConnectedOptions.inputs: give the crawl to read");
  if (out_dir.empty()) return Status::InvalidArgument("ConnectedOptions.out_dir: the output folder is empty");
  return dedup.Validate();
}

namespace {

nlohmann::json PartJson(const PartCounts& p) {
  return {{"documents", p.documents},
          {"clusters", p.clusters},
          {"documents_in_clusters", p.documents_in_clusters},
          {"duplicates", p.duplicates},
          {"duplicate_percentage", p.duplicate_percentage},
          {"unique", p.unique},
          {"useful", p.useful}};
}

}  // namespace

Result<ConnectedSummary> RunConnected(const ConnectedOptions& options, Executor* executor, Env* env,
                                      ReadObserver* observer) {
  NEARDUP_RETURN_IF_ERROR(options.Validate());
  if (env == nullptr) env = Env::Default();
  if (Status s = env->CreateDirs(options.out_dir); !s.ok()) {
    return Status::IOError("cannot create " + options.out_dir + ": " + s.message());
  }
  ConnectedSummary summary;

  // ---- the crawl's pages and links ----
  // Warnings of the read go to the observer once: here when the clusters
  // come from dedup_dir, else from RunDedup's own read.
  FirstWarnings warnings(options.dedup_dir.empty() ? nullptr : observer);
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<DocumentSource> source,
                           OpenDocumentSource(options.inputs, options.dedup.source, env, &warnings));
  TokenizeOptions tokenize_options;
  tokenize_options.collect_links = true;
  tokenize_options.keep_term_text = false;
  Tokenizer tokenizer(tokenize_options);
  TokenizedDocument tokens;
  crawls_internal::LinkGraph graph;
  std::vector<std::string> raw_urls;
  std::vector<uint64_t> record_of;  // a document's number among the crawl's records, as dedup lists them
  std::vector<bool> is_revisit;
  std::vector<std::vector<std::string>> links;
  Document doc;
  for (uint64_t record = 0; source->Next(&doc); ++record) {
    raw_urls.push_back(doc.url);
    record_of.push_back(record);
    is_revisit.push_back(!doc.revisit_of.empty() && doc.redirect_target.empty());
    graph.urls.push_back(NormalizeUrl(doc.url));
    tokenizer.Tokenize(doc, &tokens);
    std::vector<std::string> out;
    out.reserve(tokens.links.size());
    for (const std::string& l : tokens.links) out.push_back(NormalizeUrl(l));
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    links.push_back(std::move(out));
  }
  // A revisit of a URL the crawl holds another record of is that document
  // captured again, not a document of the web: it leaves the study (the
  // first of a URL's records stays when all are revisits).
  {
    std::unordered_map<std::string_view, size_t> first_capture;  // URL -> its first record that is no revisit
    for (size_t i = 0; i < graph.urls.size(); ++i) {
      if (!is_revisit[i]) first_capture.emplace(graph.urls[i], i);
    }
    std::unordered_map<std::string_view, size_t> first_record;
    for (size_t i = 0; i < graph.urls.size(); ++i) first_record.emplace(graph.urls[i], i);
    std::vector<size_t> keep;
    for (size_t i = 0; i < graph.urls.size(); ++i) {
      const bool recaptured = is_revisit[i] && (first_capture.count(graph.urls[i]) || first_record.at(graph.urls[i]) != i);
      if (recaptured) {
        ++summary.revisits_left_out;
      } else {
        keep.push_back(i);
      }
    }
    if (keep.size() < graph.urls.size()) {
      for (size_t k = 0; k < keep.size(); ++k) {
        const size_t i = keep[k];
        if (i == k) continue;
        raw_urls[k] = std::move(raw_urls[i]);
        record_of[k] = record_of[i];
        graph.urls[k] = std::move(graph.urls[i]);
        links[k] = std::move(links[i]);
      }
      raw_urls.resize(keep.size());
      record_of.resize(keep.size());
      graph.urls.resize(keep.size());
      links.resize(keep.size());
    }
  }
  summary.documents = raw_urls.size();
  if (summary.documents == 0) {
    return Status::NotFound(NothingReadLine(options.inputs, warnings, source->stats(), options.dedup.source));
  }
  std::unordered_map<std::string, std::vector<uint32_t>> docs_of_url;
  for (uint32_t i = 0; i < graph.urls.size(); ++i) docs_of_url[graph.urls[i]].push_back(i);
  graph.out.resize(graph.urls.size());
  for (size_t i = 0; i < links.size(); ++i) {
    for (const std::string& l : links[i]) {
      auto it = docs_of_url.find(l);
      if (it == docs_of_url.end()) {
        ++summary.links_outside;
        continue;
      }
      for (uint32_t to : it->second) graph.out[i].push_back(to);
      summary.links += it->second.size();
    }
  }
  links.clear();
  links.shrink_to_fit();

  // ---- the simulated crawl ----
  std::vector<uint32_t> seeds;
  if (options.seed_urls.empty()) {
    seeds.push_back(crawls_internal::DefaultSeed(graph));
  } else {
    for (const std::string& s : options.seed_urls) {
      auto it = docs_of_url.find(NormalizeUrl(s));
      if (it == docs_of_url.end()) {
        ++summary.seeds_not_found;
        continue;
      }
      seeds.insert(seeds.end(), it->second.begin(), it->second.end());
    }
  }
  std::set<std::string> seed_names;
  for (uint32_t s : seeds) seed_names.insert(graph.urls[s]);
  summary.seed_urls.assign(seed_names.begin(), seed_names.end());
  // All pages of a seed URL start the crawl.
  std::vector<uint32_t> start;
  for (const std::string& s : summary.seed_urls) {
    const auto& d = docs_of_url[s];
    start.insert(start.end(), d.begin(), d.end());
  }
  const std::vector<int64_t> depth = crawls_internal::BreadthFirstDepths(graph, start);
  std::vector<bool> connected(depth.size());
  for (size_t i = 0; i < depth.size(); ++i) {
    connected[i] = depth[i] >= 0;
    if (depth[i] > 0) summary.max_depth = std::max<uint64_t>(summary.max_depth, depth[i]);
  }

  // ---- clusters ----
  summary.dedup_dir = options.dedup_dir.empty() ? options.out_dir + "/dedup" : options.dedup_dir;
  if (options.dedup_dir.empty()) {
    NEARDUP_ASSIGN_OR_RETURN(DedupSummary dedup,
                             RunDedup(options.inputs, summary.dedup_dir, options.dedup, executor, env,
                                      observer, DedupProgressCallback()));
    (void)dedup;
  }
  NEARDUP_ASSIGN_OR_RETURN(crawls_internal::ClusterTable table,
                           crawls_internal::ReadClusterTable(summary.dedup_dir + "/clusters.tsv", env));
  std::unordered_map<std::string_view, uint64_t> first_row;
  for (size_t r = 0; r < table.urls.size(); ++r) first_row.emplace(table.urls[r], table.cluster[r]);
  // A document's row: its record's number when its URL is there (the table
  // lists the crawl's records in order), else the first row of its URL.
  std::vector<uint64_t> cluster(summary.documents);
  std::vector<bool> matched(summary.documents, true);
  // Labels of unmatched documents: past every row number, one each.
  uint64_t next_label = table.urls.size() + 1;
  for (size_t i = 0; i < summary.documents; ++i) {
    if (const uint64_t row = record_of[i]; row < table.urls.size() && table.urls[row] == raw_urls[i]) {
      cluster[i] = table.cluster[row];
    } else if (auto it = first_row.find(raw_urls[i]); it != first_row.end()) {
      cluster[i] = it->second;
    } else {
      cluster[i] = next_label++;
      matched[i] = false;
      ++summary.unmatched_documents;
    }
  }
  const crawls_internal::ConnectedTables t = crawls_internal::CountParts(cluster, connected);
  summary.complete = t.complete;
  summary.connected = t.connected;
  summary.disconnected = t.disconnected;
  summary.clusters_with_connected_document = t.clusters_with_connected_document;
  summary.unique_in_connected = t.unique_in_connected;
  summary.useful_in_connected = t.useful_in_connected;

  // ---- outputs ----
  std::string tsv = "url\tconnected\tdepth\tcluster\n";
  for (size_t i = 0; i < summary.documents; ++i) {
    AppendTsvField(raw_urls[i], &tsv);
    tsv += connected[i] ? "\t1\t" : "\t0\t";
    tsv += std::to_string(depth[i]);
    tsv += '\t';
    tsv += matched[i] ? std::to_string(cluster[i]) : "-";
    tsv += '\n';
  }
  summary.tsv_path = options.out_dir + "/connected.tsv";
  NEARDUP_RETURN_IF_ERROR(WriteWholeFile(summary.tsv_path, tsv, env));

  nlohmann::json j;
  j["inputs"] = options.inputs;
  j["dedup_dir"] = summary.dedup_dir;
  j["method"] = options.dedup_dir.empty() ? options.dedup.method : "from dedup_dir";
  j["seed_urls"] = summary.seed_urls;
  j["seeds_not_found"] = summary.seeds_not_found;
  j["documents"] = summary.documents;
  j["revisits_left_out"] = summary.revisits_left_out;
  j["links"] = summary.links;
  j["links_outside"] = summary.links_outside;
  j["max_depth"] = summary.max_depth;
  j["unmatched_documents"] = summary.unmatched_documents;
  j["complete"] = PartJson(summary.complete);
  j["connected"] = PartJson(summary.connected);
  j["disconnected"] = PartJson(summary.disconnected);
  j["clusters_with_connected_document"] = summary.clusters_with_connected_document;
  j["unique_in_connected"] = summary.unique_in_connected;
  j["useful_in_connected"] = summary.useful_in_connected;
  summary.json_path = options.out_dir + "/connected.json";
  NEARDUP_RETURN_IF_ERROR(WriteWholeFile(summary.json_path, j.dump(2) + "\n", env));
  summary.html_path = options.out_dir + "/report.html";
  NEARDUP_RETURN_IF_ERROR(
      WriteWholeFile(summary.html_path, crawls_internal::ConnectedHtml(summary), env));
  return summary;
}

}  // namespace neardup
