// Copyright neardup authors. Licensed under Apache-2.0.
//
// Mirrored host pairs after Fetterly, Manasse and Najork, "On the Evolution
// of Clusters of Near-Duplicate Web Pages", §2 and §4: candidate hosts with
// enough pages in non-singleton clusters, host pairs with enough pages in
// common clusters, auto-mirrors left out, "www." aliases marked, and
// confirmation by URL suffixes through a per-cluster Bloom filter.
//
// URL suffix rule (doc/report.md): a URL's path (query and fragment dropped)
// is split at '/' into arcs ("/a/b/c.html" -> a, b, c.html; an empty path
// or "/" is one empty arc). Page p matches page q when the last
// min(suffix_arcs, arcs(p), arcs(q)) arcs of both are equal. Within a
// cluster, each host's Bloom filter holds, for each of its pages q, the
// hashes of q's suffixes of 1..min(suffix_arcs, arcs(q)) arcs, plus a
// "whole path" hash when arcs(q) < suffix_arcs; page p of the other host
// matches when the filter holds p's suffix of min(suffix_arcs, arcs(p))
// arcs, or the whole-path hash of p's suffix of k arcs for some
// k < min(suffix_arcs, arcs(p)). That is exactly the rule above, up to the
// Bloom filter's false positives.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/files.h"
#include "base/hash.h"
#include "base/tsv.h"
#include "analysis/analysis.h"
#include "text/url.h"

namespace neardup {
namespace {

// FNV-1a from a seeded basis, then Mix13 so nearby strings spread over all
// bits. The basis constant (not FNV's standard one) is kept as it was so
// mirror keys do not change.
uint64_t Fnv1a(std::string_view s, uint64_t seed) {
  return Mix13(Fnv1a64(s, 1469598103934665603ull ^ seed));
}

constexpr uint64_t kSuffixSeed = 0x5u;  // hash of "the last k arcs"
constexpr uint64_t kWholeSeed = 0x9u;   // hash of "the whole path, k < suffix_arcs arcs"

// Arcs of a URL's path, without query and fragment.
std::vector<std::string_view> PathArcs(const UrlParts& parts) {
  std::string_view path = parts.path;
  if (!path.empty() && path.front() == '/') path.remove_prefix(1);
  std::vector<std::string_view> arcs;
  size_t start = 0;
  for (;;) {
    const size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) {
      arcs.push_back(path.substr(start));
      break;
    }
    arcs.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return arcs;
}

// Hash of the last k arcs (k <= arcs.size()), tagged by k and the seed.
uint64_t SuffixHash(const std::vector<std::string_view>& arcs, size_t k, uint64_t seed) {
  std::string joined = std::to_string(k) + ":";
  for (size_t i = arcs.size() - k; i < arcs.size(); ++i) {
    joined.append(arcs[i]);
    joined.push_back('/');
  }
  return Fnv1a(joined, seed);
}

// A Bloom filter (Bloom, "Space/time trade-offs in hash coding with
// allowable errors") with double hashing over one 64-bit hash.
class BloomFilter {
 public:
  BloomFilter(size_t keys, uint64_t bits_per_key, uint64_t probes)
      : bits_(std::max<uint64_t>(64, keys * bits_per_key)), probes_(probes), words_((bits_ + 63) / 64, 0) {}
  void Add(uint64_t h) {
    uint64_t a = h, b = (h >> 33) | 1;
    for (uint64_t i = 0; i < probes_; ++i, a += b) words_[(a % bits_) / 64] |= 1ull << ((a % bits_) % 64);
  }
  bool MayContain(uint64_t h) const {
    uint64_t a = h, b = (h >> 33) | 1;
    for (uint64_t i = 0; i < probes_; ++i, a += b) {
      if (!(words_[(a % bits_) / 64] & (1ull << ((a % bits_) % 64)))) return false;
    }
    return true;
  }

 private:
  uint64_t bits_, probes_;
  std::vector<uint64_t> words_;
};

struct PageKeys {
  std::vector<uint64_t> inserted;  // what goes into the host's filter
  std::vector<uint64_t> queries;   // any of these found => the page matches
};

PageKeys KeysOf(const std::string& url, uint64_t suffix_arcs) {
  const std::vector<std::string_view> arcs = PathArcs(SplitUrl(url));
  const size_t m = std::min<size_t>(suffix_arcs, arcs.size());
  PageKeys keys;
  for (size_t k = 1; k <= m; ++k) keys.inserted.push_back(SuffixHash(arcs, k, kSuffixSeed));
  if (arcs.size() < suffix_arcs) keys.inserted.push_back(SuffixHash(arcs, arcs.size(), kWholeSeed));
  keys.queries.push_back(SuffixHash(arcs, m, kSuffixSeed));
  for (size_t k = 1; k < m; ++k) keys.queries.push_back(SuffixHash(arcs, k, kWholeSeed));
  return keys;
}

std::string WithoutWww(const std::string& host) {
  return host.rfind("www.", 0) == 0 ? host.substr(4) : host;
}

}  // namespace

Status MirrorOptions::Validate() const {
  if (min_host_pages == 0) return Status::InvalidArgument("min_host_pages must be at least 1");
  if (min_common_pages == 0) return Status::InvalidArgument("min_common_pages must be at least 1");
  if (suffix_arcs == 0 || suffix_arcs > 64) return Status::InvalidArgument("suffix_arcs must be in 1..64");
  if (bloom_bits_per_key == 0 || bloom_bits_per_key > 64) {
    return Status::InvalidArgument("bloom_bits_per_key must be in 1..64");
  }
  if (bloom_probes == 0 || bloom_probes > 16) return Status::InvalidArgument("bloom_probes must be in 1..16");
  if (max_cluster_hosts < 2) return Status::InvalidArgument("max_cluster_hosts must be at least 2");
  if (!(confirm_fraction >= 0 && confirm_fraction <= 1)) {
    return Status::InvalidArgument("confirm_fraction must be in [0, 1]");
  }
  return Status::OK();
}

MirrorResult FindMirrors(const std::vector<ClusterRow>& rows, const MirrorOptions& options) {
  MirrorResult result;
  // Pass 1 (Fetterly et al. §4): pages per host in clusters of size > 1.
  std::unordered_map<uint64_t, uint64_t> cluster_size;
  for (const auto& row : rows) ++cluster_size[row.cluster];
  std::vector<std::string> hosts(rows.size());
  std::unordered_map<std::string, uint64_t> clustered_pages;
  for (size_t i = 0; i < rows.size(); ++i) {
    hosts[i] = UrlHost(rows[i].url);
    if (cluster_size[rows[i].cluster] > 1 && !hosts[i].empty()) ++clustered_pages[hosts[i]];
  }
  for (const auto& [host, n] : clustered_pages) result.candidate_hosts += n >= options.min_host_pages;

  // Pass 2: per cluster, the candidate hosts' pages.
  std::map<uint64_t, std::map<std::string, std::vector<size_t>>> by_cluster;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (cluster_size[rows[i].cluster] < 2 || hosts[i].empty()) continue;
    if (clustered_pages[hosts[i]] < options.min_host_pages) continue;
    by_cluster[rows[i].cluster][hosts[i]].push_back(i);
  }
  std::map<std::pair<std::string, std::string>, MirrorPair> pairs;
  for (const auto& [cluster, members] : by_cluster) {
    if (members.size() < 2) continue;  // one host only: an auto-mirror, left out
    if (members.size() > options.max_cluster_hosts) {
      ++result.clusters_skipped;
      continue;
    }
    // The cluster's Bloom filters, one per host, and each page's keys.
    std::map<std::string, BloomFilter> filters;
    std::map<std::string, std::vector<PageKeys>> keys;
    for (const auto& [host, pages] : members) {
      std::vector<PageKeys>& host_keys = keys[host];
      size_t inserted = 0;
      for (size_t i : pages) {
        host_keys.push_back(KeysOf(rows[i].url, options.suffix_arcs));
        inserted += host_keys.back().inserted.size();
      }
      BloomFilter filter(inserted, options.bloom_bits_per_key, options.bloom_probes);
      for (const auto& k : host_keys) {
        for (uint64_t h : k.inserted) filter.Add(h);
      }
      filters.emplace(host, std::move(filter));
    }
    auto matched = [&](const std::string& from, const std::string& to) {
      const BloomFilter& filter = filters.at(to);
      uint64_t n = 0;
      for (const auto& k : keys.at(from)) {
        n += std::any_of(k.queries.begin(), k.queries.end(), [&](uint64_t h) { return filter.MayContain(h); });
      }
      return n;
    };
    for (auto a = members.begin(); a != members.end(); ++a) {
      for (auto b = std::next(a); b != members.end(); ++b) {  // map order: a->first < b->first
        MirrorPair& p = pairs[{a->first, b->first}];
        p.common_pages += std::min(a->second.size(), b->second.size());
        p.confirmed_pages += std::min(matched(a->first, b->first), matched(b->first, a->first));
        ++p.common_clusters;
      }
    }
  }
  for (auto& [names, p] : pairs) {
    if (p.common_pages < options.min_common_pages) continue;
    p.host_a = names.first;
    p.host_b = names.second;
    p.confirmed = static_cast<double>(p.confirmed_pages) >=
                  options.confirm_fraction * static_cast<double>(p.common_pages);
    p.alias = WithoutWww(p.host_a) == WithoutWww(p.host_b) ? "www" : "";
    ++result.size_distribution[p.common_pages];
    result.pairs.push_back(std::move(p));
  }
  std::sort(result.pairs.begin(), result.pairs.end(), [](const MirrorPair& x, const MirrorPair& y) {
    if (x.common_pages != y.common_pages) return x.common_pages > y.common_pages;
    if (x.host_a != y.host_a) return x.host_a < y.host_a;
    return x.host_b < y.host_b;
  });
  return result;
}

std::string MirrorsTsv(const MirrorResult& result) {
  std::string out = "host_a\thost_b\tcommon_pages\tconfirmed_pages\tconfirmed\talias\tcommon_clusters\n";
  for (const auto& p : result.pairs) {
    AppendTsvField(p.host_a, &out, true);
    out.push_back('\t');
    AppendTsvField(p.host_b, &out, true);
    for (const std::string& field :
         {std::to_string(p.common_pages), std::to_string(p.confirmed_pages), std::string(p.confirmed ? "yes" : "no"),
          p.alias.empty() ? std::string("-") : p.alias, std::to_string(p.common_clusters)}) {
      out.push_back('\t');
      out += field;
    }
    out.push_back('\n');
  }
  return out;
}

Result<MirrorResult> WriteMirrors(const std::string& dir, const MirrorOptions& options,
                                  const ReportOptions& report_options, Env* env) {
  if (env == nullptr) env = Env::Default();
  NEARDUP_RETURN_IF_ERROR(options.Validate());
  NEARDUP_RETURN_IF_ERROR(report_options.Validate());
  NEARDUP_ASSIGN_OR_RETURN(DedupRun run, LoadDedupRun(dir, env));
  MirrorResult result = FindMirrors(run.clusters, options);
  NEARDUP_RETURN_IF_ERROR(WriteWholeFile(JoinPath(dir, "mirrors.tsv"), MirrorsTsv(result), env));
  NEARDUP_ASSIGN_OR_RETURN(RunReport report, WriteRunReport(dir, report_options, env));
  (void)report;
  return result;
}

}  // namespace neardup
