// Copyright neardup authors. Licensed under Apache-2.0.
//
// The computations behind RunEvolve and RunConnected, on plain in-memory
// inputs so tests can check them on hand-made clusterings and link graphs
// (internal to apps/crawls).
#ifndef NEARDUP_CRAWLS_CRAWLS_INTERNAL_H_
#define NEARDUP_CRAWLS_CRAWLS_INTERNAL_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "crawls/crawls.h"
#include "neardup/document.h"
#include "neardup/env.h"
#include "neardup/status.h"
#include "sketch/broder.h"
#include "text/tokenizer.h"

namespace neardup::crawls_internal {

// One crawl's clustering: urls[i] is in cluster cluster[i] (any label; equal
// labels, one cluster). URLs are distinct.
struct Clustering {
  std::vector<std::string> urls;
  std::vector<uint64_t> cluster;
};

// Fetterly et al.'s seven size classes: 1, 2-10, 11-100, ..., 100001+.
std::vector<SizeClassCurve> EmptySizeClasses();
// Index in EmptySizeClasses() of a cluster size (>= 1).
size_t SizeClassOf(uint64_t size);

// Φ and Ψ curves (see SizeClassCurve) of crawls[0] against every crawl
// (crawls[0] itself included: all 1). *unavailable gets, per crawl, the URLs
// of crawls[0] it lacks.
std::vector<SizeClassCurve> ContainmentCurves(const std::vector<Clustering>& crawls,
                                              std::vector<uint64_t>* unavailable);

// Figure 6 between two clusterings (clusters of >= 2 URLs per host).
HostClusterChange HostClusterCounts(const Clustering& first, const Clustering& later);

// What the change amount needs of one page.
struct PageSketch {
  bool has_terms = false;
  std::vector<uint64_t> minhashes;  // m values when has_terms
  uint64_t bytes_hash = 0;          // two independent hashes of the body
  uint64_t bytes_hash2 = 0;
  uint64_t bytes_size = 0;
};

PageSketch SketchPage(std::string_view body, ContentKind kind, std::string_view charset,
                      std::string_view url, Tokenizer* tokenizer, const BroderSketcher& sketcher,
                      SketchScratch* scratch, TokenizedDocument* tokens);

// 85 for identical bytes, else the agreeing min-hash positions (0..m).
int ChangeAmount(const PageSketch& a, const PageSketch& b);

// Places the revisits of the previous crawl's pages in `crawl`'s
// clustering. A deduplicating crawler (Heritrix, wget --warc-dedup, pywb)
// writes a revisit record, not the page, for a page it found unchanged, and
// the crawl's own run holds no content for it: each is a cluster of its own
// there (with any redirect to it), and a cluster recrawled unchanged would
// read as fallen apart into single pages. `revisits` pairs a revisit's URL
// with the URL of the previous crawl's capture it names; `unchanged` lists
// this crawl's URLs read again with all their features alike
// (ChangeAmount 84 or 85); `previous_cluster` maps the previous crawl's URLs
// to their clusters. The revisits of the pages of one previous cluster hold
// those pages' contents, which the previous crawl's method put together: they
// join one cluster, the one of this crawl holding most of that cluster's
// pages read again alike (the smallest label on a tie), else the cluster of
// the first of them by label. Clusters of pages this crawl read are never
// joined to each other: their contents are this crawl's to judge. Pairs
// whose URLs either crawl lacks are left alone. Returns the revisits now in
// a cluster of two or more URLs.
uint64_t JoinRevisitsOfPreviousCrawl(const std::unordered_map<std::string, uint64_t>& previous_cluster,
                                     const std::vector<std::pair<std::string, std::string>>& revisits,
                                     const std::vector<std::string>& unchanged, Clustering* crawl);

// Options of the change-amount sketcher: k-term shingles with wrap
// (Fetterly), m min-hashes, l = m / 6 (supershingles are not used).
BroderOptions ChangeSketchOptions(uint32_t shingle_size, uint32_t num_minhashes, uint64_t seed);

// ---- link graph ----

struct LinkGraph {
  std::vector<std::string> urls;           // normalized, one per document
  std::vector<std::vector<uint32_t>> out;  // document -> documents it links
};

// Link distance from the nearest seed, -1 when no link path leads there
// (breadth first over `out`). Seeds are document numbers.
std::vector<int64_t> BreadthFirstDepths(const LinkGraph& graph, const std::vector<uint32_t>& seeds);

// The default seed (ConnectedOptions::seed_urls): the home page of the host
// whose home page has in-links from the most other hosts; else document 0.
// REQUIRES: graph has at least one document.
uint32_t DefaultSeed(const LinkGraph& graph);

// Tables 4-6 from each document's cluster label and part.
struct ConnectedTables {
  PartCounts complete, connected, disconnected;
  uint64_t clusters_with_connected_document = 0;
  uint64_t unique_in_connected = 0;
  uint64_t useful_in_connected = 0;
};
ConnectedTables CountParts(const std::vector<uint64_t>& cluster, const std::vector<bool>& connected);

// ---- files ----

// The files of one crawl argument (EvolveOptions::crawls).
Result<std::vector<std::string>> CrawlFiles(const std::string& crawl, Env* env);

// clusters.tsv of a dedup output folder (read with ClustersReader): the
// url and cluster of each row. Malformed rows are counted, not fatal; a
// missing file or header is an error (NotFound / Corruption).
struct ClusterTable {
  std::vector<std::string> urls;     // by row
  std::vector<uint64_t> cluster;     // by row
  uint64_t malformed_rows = 0;
};
Result<ClusterTable> ReadClusterTable(const std::string& path, Env* env);


}  // namespace neardup::crawls_internal

#endif  // NEARDUP_CRAWLS_CRAWLS_INTERNAL_H_
