// Copyright neardup authors. Licensed under Apache-2.0.
//
// Studies across crawls and of one crawl's link graph:
//
//  - RunEvolve (`neardup evolve`): Fetterly, Manasse and Najork, "On the
//    Evolution of Clusters of Near-Duplicate Web Pages", §3: how the clusters
//    of a first crawl hold together in later crawls (cluster containment Φ
//    and similarity Ψ, their Figures 4, 5 and 7), how much each URL changes
//    between successive crawls (min-hash features in common, Figures 8-10),
//    and how the number of clusters a host appears in changes (Figure 6).
//  - RunConnected (`neardup connected`): Pereira, Baeza-Yates and Ziviani,
//    "Where and How Duplicates Occur in the Web", §4.1: a crawl simulator
//    that follows links from seed pages splits a crawl into its connected
//    and disconnected parts; duplicates, clusters and useful documents are
//    counted in each (their Tables 4-6).
//
// Both cluster each crawl with RunDedup (include/neardup/engine.h) and write
// a JSON file and an HTML report; definitions in doc/crawls.md.
#ifndef NEARDUP_CRAWLS_H_
#define NEARDUP_CRAWLS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "neardup/engine.h"
#include "neardup/source.h"
#include "neardup/status.h"

namespace neardup {

class Env;
class Executor;

// ---------------------------------------------------------------- evolve

// Cluster containment and similarity, Fetterly et al. §3. C_n(u) is the
// cluster of URL u in crawl n (every URL is in a cluster; a page with no
// near duplicate is a cluster of one). A URL of crawl 1 that crawl n does
// not hold is, in crawl n, in one "could not download" cluster made of all
// such URLs (as the paper's failed downloads).
//   containment  Φ_n^m(u) = |C_m(u) ∩ C_n(u)| / |C_n(u)|
//   similarity   Ψ_n^m(u) = |C_m(u) ∩ C_n(u)| / |C_m(u) ∪ C_n(u)|
// U^i_j = {u : i <= |C_1(u)| <= j}, the URLs of crawl 1 in clusters of size
// i..j. Each curve averages over U^i_j, for crawls n = 1..N:
//   containment[n-1]         = avg Φ_1^n(u)  (Figure 4: what part of u's
//                              crawl-1 cluster is still with u in crawl n)
//   similarity[n-1]          = avg Ψ_1^n(u)  (Figure 5)
//   reverse_containment[n-1] = avg Φ_n^1(u)  (Figure 7: what part of u's
//                              crawl-n cluster was with u in crawl 1)
struct SizeClassCurve {
  std::string label;  // "1", "2-10", ..., "100001+"
  uint64_t min_size = 0, max_size = 0;  // max_size 0: no upper bound
  uint64_t urls = 0;                    // |U^i_j|
  std::vector<double> containment, similarity, reverse_containment;  // empty when urls == 0
};

// Change amount between two successive crawls (Fetterly et al. Figures
// 8-10): for a URL in both, the number of the m = 84 min-hash values of
// 5-term shingles that agree (0..84), and 85 when the two bodies are
// byte-identical. A page with no terms agrees with another such page in all
// 84 (same, empty, text) and in none with a page that has terms.
inline constexpr int kChangeBuckets = 86;  // 0..85
// Fetterly et al.'s Figure 10 groups: complete (0), large (1-28), medium
// (29-56), small (57-83), no text change (84), no change (85).
inline constexpr int kChangeGroups = 6;
const char* ChangeGroupName(int group);
int ChangeGroup(int amount);

struct CrawlPairChange {
  uint32_t from = 0, to = 0;  // crawl numbers (1-based), to = from + 1
  uint64_t common_urls = 0;   // URLs in both crawls
  uint64_t disappeared = 0;   // URLs of `from` not in `to`
  uint64_t appeared = 0;      // URLs of `to` not in `from`
  std::vector<uint64_t> by_amount;  // kChangeBuckets: URLs by change amount
  // Per size class of the URL's cluster in crawl `from` (the classes of
  // EvolveSummary::size_classes, same order): URLs by change amount
  // (Figure 8-9) and by change group (Figure 10).
  std::vector<std::vector<uint64_t>> by_class_amount;
  std::vector<std::vector<uint64_t>> by_class_group;
};

// Figure 6: for every host of crawl 1 or crawl n, the number of distinct
// clusters of two or more pages that hold a page of the host, in each crawl;
// `histogram` counts hosts by (clusters in crawl n) - (clusters in crawl 1).
struct HostClusterChange {
  uint32_t crawl = 0;  // n
  uint64_t hosts = 0;
  uint64_t unchanged_hosts = 0;  // hosts with a change of 0
  std::map<int64_t, uint64_t> histogram;
};

struct EvolveOptions {
  // ---- behaviour ----
  // The crawls in time order: each a file (WARC, ARC, JSON Lines) or a
  // folder; a folder's crawl files (IsCrawlFileName: .warc, .arc, .wet,
  // .jsonl, .ndjson, optionally .gz/.zst) are the crawl, or, when it has
  // none, the folder itself is read as HTML files.
  std::vector<std::string> crawls;
  std::string out_dir;
  // How each crawl is clustered (RunDedup; method as `neardup dedup`).
  DedupOptions dedup;
  // The change amount's sketch (Fetterly et al. §2): k-term shingles, m
  // min-hash functions drawn from `seed`.
  uint32_t shingle_size = 5;
  uint32_t num_minhashes = 84;
  uint64_t seed = 1234;
  // InvalidArgument naming the field: fewer than 2 crawls, empty out_dir,
  // shingle_size outside 1..64, num_minhashes other than 84 (the 85 "same
  // bytes" bucket follows the 84 features), bad dedup options.
  Status Validate() const;
};

struct EvolveCrawl {
  std::string input;               // as given
  std::vector<std::string> files;  // what RunDedup read
  std::string dedup_dir;           // out_dir/crawl-<n>
  uint64_t documents = 0;
  uint64_t urls = 0;      // distinct URLs (the first page of a URL counts)
  uint64_t clusters = 0;  // of two or more URLs
  uint64_t duplicates = 0;
  // Revisit records of pages of the previous crawl (their content is that
  // capture's), and those of them that joined a cluster of two or more URLs
  // (crawls_internal::JoinRevisitsOfPreviousCrawl): clusters and duplicates
  // above count them so.
  uint64_t revisits_of_previous_crawl = 0;
  uint64_t revisits_joined = 0;
};

struct EvolveSummary {
  std::vector<EvolveCrawl> crawls;
  std::vector<SizeClassCurve> size_classes;  // the paper's seven, all listed
  // Per crawl n: URLs of crawl 1 not in crawl n (the "could not download"
  // cluster's size).
  std::vector<uint64_t> unavailable;
  std::vector<CrawlPairChange> changes;        // crawl n-1 -> n, n = 2..N
  std::vector<HostClusterChange> host_changes;  // crawl 1 -> n, n = 2..N
  // evolve.json, report.html, and changes.tsv: one line per URL in two
  // successive crawls (from, to, url, amount 0..85, cluster_size: of the
  // URL's cluster in crawl `from`), sorted by from, then url.
  std::string json_path, html_path, changes_path;
};

// Memory: the min-hash values of every URL of two successive crawls (about
// 700 bytes a URL) besides RunDedup's own. The change-amount pass reads
// each crawl a second time, on the calling thread.
// Clusters every crawl into out_dir/crawl-<n>/ (RunDedup's clusters.tsv,
// summary.json, warnings.tsv), computes the above and writes
// out_dir/evolve.json, out_dir/changes.tsv and out_dir/report.html. Errors: InvalidArgument for
// bad options; NotFound when a crawl holds no document (naming its files
// and why: NothingReadLine); IOError when an
// output cannot be written; RunDedup's errors. `env` nullptr:
// Env::Default(); `executor` may be nullptr; `observer` gets read warnings.
Result<EvolveSummary> RunEvolve(const EvolveOptions& options, Executor* executor = nullptr, Env* env = nullptr,
                                ReadObserver* observer = nullptr);

// ------------------------------------------------------------- connected

// Duplicates in one part of a crawl (Pereira et al. Table 4), with the
// clusters restricted to the part: a cluster of the whole crawl with k >= 2
// pages in the part is a cluster of k there; with one it is a unique page.
struct PartCounts {
  uint64_t documents = 0;
  uint64_t clusters = 0;               // of two or more documents
  uint64_t documents_in_clusters = 0;
  uint64_t duplicates = 0;             // documents_in_clusters - clusters
  double duplicate_percentage = 0;     // 100 * duplicates / documents
  uint64_t unique = 0;                 // documents in no cluster
  uint64_t useful = 0;                 // unique + clusters = documents - duplicates
};

struct ConnectedOptions {
  // ---- behaviour ----
  std::vector<std::string> inputs;  // one crawl (files or folders, as RunDedup)
  std::string out_dir;
  // Where the simulated crawl starts (URLs, normalized before matching).
  // Empty: the home page ("/") of the host whose home page is linked from
  // the most other hosts (ties: the first in crawl order); when no home page
  // is linked from another host, the first page of the crawl.
  std::vector<std::string> seed_urls;
  // Clusters from an existing `neardup dedup` output folder (its
  // clusters.tsv, matched by URL) instead of running RunDedup into
  // out_dir/dedup.
  std::string dedup_dir;
  DedupOptions dedup;
  // InvalidArgument naming the field: no inputs, empty out_dir, bad dedup
  // options.
  Status Validate() const;
};

struct ConnectedSummary {
  uint64_t documents = 0;
  // WARC revisit records of a URL that the crawl holds another record of
  // (its capture, or an earlier revisit): the same document recaptured,
  // left out of `documents` and of every count (a revisit of another URL's
  // payload is a document of its own, in its capture's cluster).
  uint64_t revisits_left_out = 0;
  uint64_t links = 0;            // links between pages of the crawl (edges)
  uint64_t links_outside = 0;    // links to URLs the crawl does not hold
  std::vector<std::string> seed_urls;  // the seeds used (normalized)
  uint64_t seeds_not_found = 0;  // given seeds that are no page of the crawl
  uint64_t max_depth = 0;        // largest link distance from a seed
  // Documents of the crawl not matched to a row of the clusters table
  // (with dedup_dir); counted as unique.
  uint64_t unmatched_documents = 0;
  PartCounts complete, connected, disconnected;  // Table 4
  // Table 5: clusters of the complete crawl with at least one document in
  // the connected part.
  uint64_t clusters_with_connected_document = 0;
  // Table 6: unique documents of the complete crawl in the connected part.
  uint64_t unique_in_connected = 0;
  // Useful documents of the complete crawl that the connected part holds
  // (Table 5's clusters + Table 6's unique documents; the paper's 62.6% ..
  // 73.6%).
  uint64_t useful_in_connected = 0;
  std::string dedup_dir, json_path, tsv_path, html_path;
};

// Reads the crawl and its links, marks every page connected or not, clusters
// (or reads the clusters) and writes out_dir/connected.json,
// out_dir/connected.tsv (url, connected 1/0, depth: links from the nearest
// seed or -1, cluster: the cluster's kept page's row number in the clusters
// table) and out_dir/report.html. Errors: InvalidArgument for bad options;
// NotFound when the crawl holds no document (naming its files and why:
// NothingReadLine) or dedup_dir has no
// clusters.tsv; IOError when an output cannot be written.
Result<ConnectedSummary> RunConnected(const ConnectedOptions& options, Executor* executor = nullptr,
                                      Env* env = nullptr, ReadObserver* observer = nullptr);

}  // namespace neardup

#endif  // NEARDUP_CRAWLS_H_
