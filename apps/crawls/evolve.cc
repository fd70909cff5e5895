// Copyright neardup authors. Licensed under Apache-2.0.
//
// RunEvolve: Fetterly, Manasse and Najork, "On the Evolution of Clusters of
// Near-Duplicate Web Pages", §3 (Figures 4-10), over N crawls (their weeks).
#include <algorithm>
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

std::vector<SizeClassCurve> ContainmentCurves(const std::vector<Clustering>& crawls,
                                              std::vector<uint64_t>* unavailable) {
  std::vector<SizeClassCurve> classes = EmptySizeClasses();
  unavailable->clear();
  if (crawls.empty()) return classes;
  const Clustering& first = crawls[0];
  std::unordered_map<uint64_t, uint64_t> size1;
  for (uint64_t c : first.cluster) ++size1[c];
  std::vector<size_t> class_of(first.urls.size());
  for (size_t i = 0; i < first.urls.size(); ++i) {
    class_of[i] = SizeClassOf(size1[first.cluster[i]]);
    ++classes[class_of[i]].urls;
  }
  for (SizeClassCurve& c : classes) {
    if (c.urls == 0) continue;
    c.containment.assign(crawls.size(), 0.0);
    c.similarity.assign(crawls.size(), 0.0);
    c.reverse_containment.assign(crawls.size(), 0.0);
  }
  for (size_t n = 0; n < crawls.size(); ++n) {
    const Clustering& later = crawls[n];
    std::unordered_map<std::string_view, uint64_t> label;  // url -> cluster in crawl n
    std::unordered_map<uint64_t, uint64_t> size_n;
    for (size_t i = 0; i < later.urls.size(); ++i) {
      label.emplace(later.urls[i], later.cluster[i]);
      ++size_n[later.cluster[i]];
    }
    // The cluster of u in crawl n: key 0 is the "could not download" cluster
    // (URLs of crawl 1 that crawl n lacks), label + 1 otherwise.
    std::vector<uint64_t> key(first.urls.size());
    uint64_t missing = 0;
    for (size_t i = 0; i < first.urls.size(); ++i) {
      auto it = label.find(first.urls[i]);
      key[i] = it == label.end() ? 0 : it->second + 1;
      missing += it == label.end();
    }
    unavailable->push_back(missing);
    // |C_1(u) ∩ C_n(u)|: URLs of crawl 1 sharing both u's crawl-1 cluster
    // and u's crawl-n cluster.
    std::map<std::pair<uint64_t, uint64_t>, uint64_t> both;
    for (size_t i = 0; i < first.urls.size(); ++i) ++both[{first.cluster[i], key[i]}];
    for (size_t i = 0; i < first.urls.size(); ++i) {
      const double inter = static_cast<double>(both[{first.cluster[i], key[i]}]);
      const double s1 = static_cast<double>(size1[first.cluster[i]]);
      const double sn = static_cast<double>(key[i] == 0 ? missing : size_n[key[i] - 1]);
      SizeClassCurve& c = classes[class_of[i]];
      c.containment[n] += inter / s1;                   // Φ_1^n(u)
      c.reverse_containment[n] += inter / sn;           // Φ_n^1(u)
      c.similarity[n] += inter / (s1 + sn - inter);     // Ψ_1^n(u)
    }
  }
  for (SizeClassCurve& c : classes) {
    for (auto* v : {&c.containment, &c.similarity, &c.reverse_containment}) {
      for (double& x : *v) x /= static_cast<double>(c.urls);
    }
  }
  return classes;
}

namespace {

// host -> distinct clusters of two or more URLs holding a page of the host.
std::map<std::string, uint64_t> ClustersPerHost(const Clustering& c) {
  std::unordered_map<uint64_t, uint64_t> size;
  for (uint64_t l : c.cluster) ++size[l];
  std::map<std::string, std::set<uint64_t>> sets;
  for (size_t i = 0; i < c.urls.size(); ++i) {
    std::set<uint64_t>& s = sets[UrlHost(c.urls[i])];
    if (size[c.cluster[i]] >= 2) s.insert(c.cluster[i]);
  }
  std::map<std::string, uint64_t> counts;
  for (const auto& [host, s] : sets) counts[host] = s.size();
  return counts;
}

}  // namespace

HostClusterChange HostClusterCounts(const Clustering& first, const Clustering& later) {
  const auto a = ClustersPerHost(first), b = ClustersPerHost(later);
  std::set<std::string> hosts;
  for (const auto& [h, n] : a) hosts.insert(h);
  for (const auto& [h, n] : b) hosts.insert(h);
  HostClusterChange change;
  for (const std::string& h : hosts) {
    auto ia = a.find(h), ib = b.find(h);
    const int64_t delta = static_cast<int64_t>(ib == b.end() ? 0 : ib->second) -
                          static_cast<int64_t>(ia == a.end() ? 0 : ia->second);
    ++change.histogram[delta];
    ++change.hosts;
    change.unchanged_hosts += delta == 0;
  }
  return change;
}

uint64_t JoinRevisitsOfPreviousCrawl(const std::unordered_map<std::string, uint64_t>& previous_cluster,
                                     const std::vector<std::pair<std::string, std::string>>& revisits,
                                     const std::vector<std::string>& unchanged, Clustering* crawl) {
  std::unordered_map<std::string_view, uint32_t> index_of;  // URL -> its index in the crawl
  for (size_t i = 0; i < crawl->urls.size(); ++i) index_of.emplace(crawl->urls[i], static_cast<uint32_t>(i));
  auto cluster_before = [&](std::string_view url) -> const uint64_t* {
    const auto it = previous_cluster.find(std::string(url));
    return it == previous_cluster.end() ? nullptr : &it->second;
  };
  // Per cluster of the previous crawl: this crawl's labels of the pages
  // read again alike (with how many), and of the revisits of its pages.
  struct Reached {
    std::map<uint64_t, uint32_t> read_again;
    std::vector<uint64_t> revisits;
  };
  std::unordered_map<uint64_t, Reached> reached;
  for (const std::string& url : unchanged) {
    const auto here = index_of.find(url);
    const uint64_t* before = cluster_before(url);
    if (here != index_of.end() && before != nullptr) ++reached[*before].read_again[crawl->cluster[here->second]];
  }
  for (const auto& [url, capture] : revisits) {
    const auto here = index_of.find(url);
    const uint64_t* before = cluster_before(capture);
    if (here != index_of.end() && before != nullptr) reached[*before].revisits.push_back(crawl->cluster[here->second]);
  }
  // Each revisit's cluster (the revisit and any redirect to it) is moved
  // to its target: the cluster holding most of the pages read again alike
  // (the smallest label on a tie), else the smallest label of the revisits'.
  std::unordered_map<uint64_t, uint64_t> moved;  // a revisit's label -> its target's
  for (auto& [before, r] : reached) {
    if (r.revisits.empty()) continue;
    uint64_t target = *std::min_element(r.revisits.begin(), r.revisits.end());
    uint32_t most = 0;
    for (const auto& [label, count] : r.read_again) {  // ascending labels: a tie keeps the first
      if (count > most) {
        most = count;
        target = label;
      }
    }
    for (uint64_t label : r.revisits) {
      if (label != target) moved.emplace(label, target);
    }
  }
  if (moved.empty()) return 0;
  // A target may itself be moved (a revisit's cluster that another's
  // revisits join): follow to the end, at most once per label.
  auto final_label = [&](uint64_t label) {
    for (size_t steps = 0; steps <= moved.size(); ++steps) {
      const auto it = moved.find(label);
      if (it == moved.end()) break;
      label = it->second;
    }
    return label;
  };
  for (uint64_t& label : crawl->cluster) label = final_label(label);
  std::unordered_map<uint64_t, uint64_t> size;
  for (uint64_t label : crawl->cluster) ++size[label];
  uint64_t joined = 0;
  for (const auto& [url, capture] : revisits) {
    const auto here = index_of.find(url);
    joined += here != index_of.end() && cluster_before(capture) != nullptr && size[crawl->cluster[here->second]] > 1;
  }
  return joined;
}

}  // namespace crawls_internal

using crawls_internal::Clustering;
using crawls_internal::PageSketch;

Status EvolveOptions::Validate() const {
  if (crawls.size() < 2) return Status::InvalidArgument("EvolveOptions.crawls: give at least two crawls");
  if (out_dir.empty()) return Status::InvalidArgument("EvolveOptions.out_dir: the output folder is empty");
  if (shingle_size < 1 || shingle_size > 64)
    return Status::InvalidArgument("EvolveOptions.shingle_size: must be in 1..64");
  if (num_minhashes != 84) {
    return Status::InvalidArgument(
        "EvolveOptions.num_minhashes: must be 84 (Fetterly et al.'s features; 85 means same bytes)");
  }
  if (Status s = dedup.Validate(); !s.ok()) return s;
  return Status::OK();
}

namespace {

nlohmann::json CurvesJson(const std::vector<SizeClassCurve>& classes) {
  nlohmann::json out = nlohmann::json::array();
  for (const SizeClassCurve& c : classes) {
    out.push_back({{"sizes", c.label},
                   {"min_size", c.min_size},
                   {"max_size", c.max_size},
                   {"urls", c.urls},
                   {"containment", c.containment},
                   {"similarity", c.similarity},
                   {"reverse_containment", c.reverse_containment}});
  }
  return out;
}

}  // namespace

Result<EvolveSummary> RunEvolve(const EvolveOptions& options, Executor* executor, Env* env,
                                ReadObserver* observer) {
  NEARDUP_RETURN_IF_ERROR(options.Validate());
  if (env == nullptr) env = Env::Default();
  if (Status s = env->CreateDirs(options.out_dir); !s.ok()) {
    return Status::IOError("cannot create " + options.out_dir + ": " + s.message());
  }
  EvolveSummary summary;
  const auto classes_template = crawls_internal::EmptySizeClasses();
  TokenizeOptions tokenize_options;
  tokenize_options.collect_links = false;
  tokenize_options.keep_term_text = false;
  Tokenizer tokenizer(tokenize_options);
  const BroderSketcher sketcher(crawls_internal::ChangeSketchOptions(
      options.shingle_size, options.num_minhashes, options.seed));
  SketchScratch scratch;
  TokenizedDocument tokens;

  std::vector<Clustering> clusterings;
  std::string changes_tsv = "from\tto\turl\tamount\tcluster_size\n";
  std::unordered_map<std::string, PageSketch> previous;
  std::unordered_map<std::string, uint64_t> previous_size;     // url -> its cluster's size
  std::unordered_map<std::string, uint64_t> previous_cluster;  // url -> its cluster
  for (size_t n = 0; n < options.crawls.size(); ++n) {
    EvolveCrawl crawl;
    crawl.input = options.crawls[n];
    NEARDUP_ASSIGN_OR_RETURN(crawl.files, crawls_internal::CrawlFiles(crawl.input, env));
    crawl.dedup_dir = options.out_dir + "/crawl-" + std::to_string(n + 1);
    FirstWarnings warnings(observer);
    NEARDUP_ASSIGN_OR_RETURN(DedupSummary dedup,
                             RunDedup(crawl.files, crawl.dedup_dir, options.dedup, executor, env,
                                      &warnings, DedupProgressCallback()));
    if (dedup.documents == 0) {
      return Status::NotFound("crawl " + std::to_string(n + 1) + " (" + crawl.input + "): " +
                              NothingReadLine(crawl.files, warnings, dedup.read, options.dedup.source,
                                              dedup.warnings_path));
    }
    crawl.documents = dedup.documents;
    NEARDUP_ASSIGN_OR_RETURN(crawls_internal::ClusterTable table,
                             crawls_internal::ReadClusterTable(dedup.clusters_path, env));
    // One page per URL: the first, as the crawl's clusters table lists it.
    Clustering clustering;
    std::unordered_map<std::string, uint64_t> seen;
    for (size_t i = 0; i < table.urls.size(); ++i) {
      if (!seen.emplace(table.urls[i], table.cluster[i]).second) continue;
      clustering.urls.push_back(table.urls[i]);
      clustering.cluster.push_back(table.cluster[i]);
    }
    // The change amount needs each URL's page again: read the crawl.
    NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<DocumentSource> source,
                             OpenDocumentSource(crawl.files, options.dedup.source, env, nullptr));
    std::unordered_map<std::string, PageSketch> current;
    std::vector<std::pair<std::string, std::string>> revisits_of_previous;  // (URL, the capture's URL)
    std::vector<std::string> read_here;  // URLs whose page this crawl read (not a revisit)
    Document doc;
    while (source->Next(&doc)) {
      if (current.count(doc.url)) continue;
      if (!doc.revisit_of.empty() && doc.redirect_target.empty()) {
        // A revisit: its content is the capture it names, this crawl's page
        // of that URL when it read one, else the previous crawl's (a page
        // revisited at its own URL is then unchanged); when neither holds
        // it, its content is unknown here and the URL is left out.
        if (const auto now = current.find(doc.revisit_of); now != current.end()) {
          const PageSketch same = now->second;
          current.emplace(doc.url, same);
        } else if (const auto before = previous.find(doc.revisit_of); before != previous.end()) {
          current.emplace(doc.url, before->second);
          revisits_of_previous.emplace_back(doc.url, doc.revisit_of);
        }
        continue;
      }
      current.emplace(doc.url, crawls_internal::SketchPage(doc.body, doc.kind, doc.declared_charset,
                                                          doc.url, &tokenizer, sketcher, &scratch,
                                                          &tokens));
      read_here.push_back(doc.url);
    }
    // The crawl's own run holds no content for a revisit of the previous
    // crawl's page: it joins the cluster of this crawl where that page's
    // cluster-mates are (JoinRevisitsOfPreviousCrawl).
    crawl.revisits_of_previous_crawl = revisits_of_previous.size();
    constexpr int kAllFeaturesAlike = 84;  // a change amount of 84: every feature alike (85: the same bytes)
    if (!revisits_of_previous.empty()) {
      std::vector<std::string> unchanged;  // in input order
      for (const std::string& url : read_here) {
        const auto before = previous.find(url);
        if (before != previous.end() &&
            crawls_internal::ChangeAmount(before->second, current.at(url)) >= kAllFeaturesAlike) {
          unchanged.push_back(url);
        }
      }
      crawl.revisits_joined = crawls_internal::JoinRevisitsOfPreviousCrawl(previous_cluster, revisits_of_previous,
                                                                            unchanged, &clustering);
    }
    std::unordered_map<uint64_t, uint64_t> size;
    for (uint64_t c : clustering.cluster) ++size[c];
    crawl.urls = clustering.urls.size();
    for (const auto& [label, s] : size) {
      if (s >= 2) {
        ++crawl.clusters;
        crawl.duplicates += s - 1;
      }
    }
    if (n > 0) {
      CrawlPairChange change;
      change.from = static_cast<uint32_t>(n);
      change.to = static_cast<uint32_t>(n + 1);
      change.by_amount.assign(kChangeBuckets, 0);
      change.by_class_amount.assign(classes_template.size(), std::vector<uint64_t>(kChangeBuckets, 0));
      change.by_class_group.assign(classes_template.size(), std::vector<uint64_t>(kChangeGroups, 0));
      std::vector<std::pair<std::string_view, std::pair<int, uint64_t>>> rows;  // url, amount, size
      for (const auto& [url, before] : previous) {
        auto it = current.find(url);
        if (it == current.end()) {
          ++change.disappeared;
          continue;
        }
        ++change.common_urls;
        const int amount = crawls_internal::ChangeAmount(before, it->second);
        auto ps = previous_size.find(url);
        const size_t cls = crawls_internal::SizeClassOf(ps == previous_size.end() ? 1 : ps->second);
        ++change.by_amount[amount];
        ++change.by_class_amount[cls][amount];
        ++change.by_class_group[cls][ChangeGroup(amount)];
        rows.push_back({url, {amount, ps == previous_size.end() ? 1 : ps->second}});
      }
      std::sort(rows.begin(), rows.end());
      std::string prefix = std::to_string(n);
      prefix += '\t';
      prefix += std::to_string(n + 1);
      prefix += '\t';
      for (const auto& [url, v] : rows) {
        changes_tsv += prefix;
        AppendTsvField(url, &changes_tsv);
        changes_tsv += '\t';
        changes_tsv += std::to_string(v.first);
        changes_tsv += '\t';
        changes_tsv += std::to_string(v.second);
        changes_tsv += '\n';
      }
      for (const auto& [url, after] : current) change.appeared += previous.count(url) == 0;
      summary.changes.push_back(std::move(change));
    }
    previous = std::move(current);
    previous_size.clear();
    previous_cluster.clear();
    for (size_t i = 0; i < clustering.urls.size(); ++i) {
      previous_size[clustering.urls[i]] = size[clustering.cluster[i]];
      previous_cluster[clustering.urls[i]] = clustering.cluster[i];
    }
    clusterings.push_back(std::move(clustering));
    summary.crawls.push_back(std::move(crawl));
  }
  summary.size_classes = crawls_internal::ContainmentCurves(clusterings, &summary.unavailable);
  for (size_t n = 1; n < clusterings.size(); ++n) {
    HostClusterChange h = crawls_internal::HostClusterCounts(clusterings[0], clusterings[n]);
    h.crawl = static_cast<uint32_t>(n + 1);
    summary.host_changes.push_back(std::move(h));
  }

  // ---- evolve.json ----
  nlohmann::json j;
  j["definitions"] = {
      {"containment", "avg over URLs u of crawl 1 in the size class of Phi_1^n(u) = |C_1(u) & C_n(u)| / |C_1(u)| (Fetterly et al. Figure 4)"},
      {"similarity", "avg of Psi_1^n(u) = |C_1(u) & C_n(u)| / |C_1(u) | C_n(u)| (Figure 5)"},
      {"reverse_containment", "avg of Phi_n^1(u) = |C_1(u) & C_n(u)| / |C_n(u)| (Figure 7)"},
      {"unavailable", "URLs of crawl 1 missing in crawl n form one 'could not download' cluster"},
      {"revisits_of_previous_crawl", "revisit records of crawl n naming a page of crawl n-1: the revisits of one crawl-(n-1) cluster's pages join the crawl-n cluster holding most of its pages read again with all 84 features alike, else one of their own (revisits_joined: those now in a cluster of 2 or more URLs)"},
      {"change_amount", "min-hash features in common between successive crawls of a URL (0..84, m = 84 of 5-term shingles); 85: identical bytes (Figures 8-10)"},
      {"host_changes", "per host, clusters of >= 2 URLs holding its pages in crawl n minus in crawl 1 (Figure 6)"}};
  j["method"] = options.dedup.method;
  j["change_sketch"] = sketcher.options().Name();
  nlohmann::json crawls = nlohmann::json::array();
  for (size_t n = 0; n < summary.crawls.size(); ++n) {
    const EvolveCrawl& c = summary.crawls[n];
    crawls.push_back({{"crawl", n + 1},
                      {"input", c.input},
                      {"files", c.files},
                      {"dedup_dir", c.dedup_dir},
                      {"documents", c.documents},
                      {"urls", c.urls},
                      {"clusters", c.clusters},
                      {"duplicates", c.duplicates},
                      {"revisits_of_previous_crawl", c.revisits_of_previous_crawl},
                      {"revisits_joined", c.revisits_joined},
                      {"unavailable_from_crawl_1", summary.unavailable[n]}});
  }
  j["crawls"] = crawls;
  j["size_classes"] = CurvesJson(summary.size_classes);
  nlohmann::json changes = nlohmann::json::array();
  for (const CrawlPairChange& c : summary.changes) {
    nlohmann::json by_class = nlohmann::json::array();
    for (size_t k = 0; k < summary.size_classes.size(); ++k) {
      nlohmann::json groups = nlohmann::json::object();
      for (int g = 0; g < kChangeGroups; ++g) groups[ChangeGroupName(g)] = c.by_class_group[k][g];
      by_class.push_back({{"sizes", summary.size_classes[k].label},
                          {"by_amount", c.by_class_amount[k]},
                          {"by_group", groups}});
    }
    changes.push_back({{"from", c.from},
                       {"to", c.to},
                       {"common_urls", c.common_urls},
                       {"disappeared", c.disappeared},
                       {"appeared", c.appeared},
                       {"by_amount", c.by_amount},
                       {"by_size_class", by_class}});
  }
  j["changes"] = changes;
  nlohmann::json hosts = nlohmann::json::array();
  for (const HostClusterChange& h : summary.host_changes) {
    nlohmann::json hist = nlohmann::json::object();
    for (const auto& [delta, count] : h.histogram) hist[std::to_string(delta)] = count;
    hosts.push_back({{"from", 1},
                     {"to", h.crawl},
                     {"hosts", h.hosts},
                     {"unchanged_hosts", h.unchanged_hosts},
                     {"histogram", hist}});
  }
  j["host_changes"] = hosts;
  summary.json_path = options.out_dir + "/evolve.json";
  NEARDUP_RETURN_IF_ERROR(WriteWholeFile(summary.json_path, j.dump(2) + "\n", env));
  summary.changes_path = options.out_dir + "/changes.tsv";
  NEARDUP_RETURN_IF_ERROR(WriteWholeFile(summary.changes_path, changes_tsv, env));
  summary.html_path = options.out_dir + "/report.html";
  NEARDUP_RETURN_IF_ERROR(
      WriteWholeFile(summary.html_path, crawls_internal::EvolveHtml(summary), env));
  return summary;
}

}  // namespace neardup
