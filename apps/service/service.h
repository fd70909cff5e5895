// Copyright neardup authors. Licensed under Apache-2.0.
//
// The incremental duplicate service of Zhu, Potapova, Alabduljalil, Liu and
// Yang, "Clustering and Load Balancing Optimization for Redundant Content
// Removal" (§3, §5): as pages are crawled, recrawled, redirected and
// removed, it answers "is this page a duplicate, and of which kept page
// (the group's winner)?" and keeps the duplicate groups current without
// recomputing the collection.
//
//  - Tier 1 (§5.1): a page already in a group whose new content still
//    matches the group's representative signature (its winner's) by the
//    method's rule stays there without any other comparison.
//  - Tier 2: pages tier 1 cannot decide (new pages, pages whose content
//    moved away from their group) are compared many-to-all with every stored
//    page through the method's candidate postings (Method::CandidateKeys),
//    one request's pages at a time, and join the group whose winner their
//    duplicate verifies against, or form a group of their own.
//  - §5.1's three cases: an updated page that leaves its group takes the
//    pages redirecting to it along; a new page joins the group of the page
//    it duplicates; a redirecting page (directly or through a chain; cycles
//    are detected and counted) is in its final target's group.
//  - Verification and repair (§5.2): every membership is verified against
//    the group's winner with the method's one rule (Method::Compare); a
//    group whose failed verifications pass a threshold is repaired: its
//    winner is chosen again and every member verified anew.
//
// State lives in RocksDB (doc/formats/store.md). A request's changes are
// written as one WriteBatch per 1,000 pages with the WAL on, and the WAL is
// synced before the answer is returned: an acknowledged change survives
// kill -9 and power loss, and a batch is applied wholly or not at all. The HTTP layer (RunServer) and the client (RunIngest) are in
// http_server.cc and ingest.cc; `neardup serve|ingest|export` call them.
#ifndef NEARDUP_SERVICE_H_
#define NEARDUP_SERVICE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "neardup/document.h"
#include "neardup/engine.h"
#include "neardup/executor.h"
#include "neardup/status.h"

namespace neardup {

// The method of a new store when none is given: simhash (Charikar's
// sketch, Henzinger's Algorithm C), whose rule needs nothing but the two
// signatures. The batch default, robust, learns each site's boilerplate from
// the whole collection; a store can use it (--method robust), but its rule
// then cannot set a site's template apart (Method::learns_from_collection)
// and same-site template pages pair up that `dedup` keeps apart.
inline constexpr char kDefaultServiceMethod[] = "simhash";

struct ServiceOptions {
  // The method (a name or a spec string, as `dedup --method`) and the keeper
  // rules (as `dedup --keeper`). A store remembers its method spec, keeper
  // rules and market rule: opening it with others is InvalidArgument. An
  // empty field takes the store's value (a new store: kDefaultServiceMethod
  // and dedup's keeper rules).
  std::string method;
  std::string keeper;
  // Zhu et al. §5's market rule: among pages of equal HTTP status, a page
  // whose host ends with this suffix (e.g. ".uk") wins over one whose host
  // does not; the keeper rules decide the rest. Empty: the store's (a new
  // store: no preference).
  std::string prefer_host_suffix;
  // Repair (§5.2): a group is repaired once it has seen at least
  // `repair_min_failures` failed verifications and they are at least
  // `repair_failure_share` of its members.
  uint32_t repair_min_failures = 3;
  double repair_failure_share = 0.1;
  // dedup's max_bucket_pages: a candidate key of the method filed under by
  // more pages than this is a large bucket and gives no candidates (as
  // dedup's tables pair no pages of such a bucket); identical bodies are
  // listed up to this many pages.
  uint32_t max_bucket_pages = 1000;
  // RocksDB memory: block cache and the memtable budget.
  uint64_t block_cache_bytes = uint64_t{64} << 20;
  // Pages whose signature (and body hash) tier 2 keeps in memory, so that
  // comparing a page with its candidates reads no record from the store: a
  // direct-mapped cache by page id (the latest pages of a store larger
  // than this share slots with older ones, which are read when needed).
  // 0: none.
  uint64_t signature_cache_pages = uint64_t{1} << 20;
  uint64_t write_buffer_bytes = uint64_t{32} << 20;
  // Sync the WAL before a request's answer is returned (off only for
  // benchmarks of what syncing costs).
  bool sync = true;
  // Limit of one request's body text per page, in bytes.
  uint64_t max_page_bytes = uint64_t{16} << 20;
};

// One page as a client sends it (one NDJSON line of POST /v1/pages).
struct PageInput {
  std::string url;
  std::string body;                     // html or text
  ContentKind kind = ContentKind::kHtml;
  int status = 200;                     // HTTP status of the fetch
  std::string redirect;                 // Location of a 3xx, as sent
  std::string fetched;                  // ISO 8601 fetch date
  // A revisit (a WARC revisit record): the URL of the page whose content
  // this capture repeats, which the store must hold; no body is sent. The
  // page takes that page's stored content (signature and body hash) as its
  // own and is placed as a page with it: for another URL (a URL-agnostic
  // revisit) it joins that page's group, and keeps the content when that
  // page changes later. For its own URL it changes nothing (an unchanged
  // capture). Empty for every other page.
  std::string revisit_of;
  // Set by the parser when the line could not be read; the page is then
  // answered with an error and nothing else is done with it.
  std::string error;
};

// Parses one NDJSON line into *page (page->error says what was wrong).
// `line_number` is 1-based, for the message.
void ParsePageLine(std::string_view line, uint64_t line_number, uint64_t max_page_bytes, PageInput* page);

// What the service says of a page.
struct PageAnswer {
  std::string url;
  // "keep" (the group's winner, or alone), "duplicate" (of `winner`),
  // "redirect" (a 3xx page, in its final target's group), "removed" (a
  // 404/410 fetch or a DELETE), "error".
  std::string role;
  uint64_t group = 0;       // 0: none (a removed page, an error)
  std::string winner;       // the group's winner (the page's former one for "removed")
  double similarity = 0;    // the method's similarity to the winner (1 for the winner)
  int tier = 0;             // 1 or 2: which tier decided; 0 when neither ran
  bool moved = false;       // the page changed group
  bool redirect_cycle = false;  // a redirect chain that loops or is too long
  // GET /v1/pages: the page failed its verification against its group's
  // winner (Zhu et al. §5.2), so it is not reported as its duplicate; the
  // group is repaired once enough of its members fail.
  bool verification_failed = false;
  std::string error;
};
std::string PageAnswerJson(const PageAnswer& answer);

struct GroupInfo {
  uint64_t id = 0;
  std::string winner;
  std::vector<std::string> members;  // winner first, then by page id
  uint64_t failed_verifications = 0;
};

struct ServiceStats {
  uint64_t pages = 0;            // live pages (content and redirects)
  uint64_t content_pages = 0;
  uint64_t redirect_pages = 0;
  uint64_t removed_pages = 0;    // tombstones
  uint64_t groups = 0;           // groups holding a live page
  uint64_t groups_with_duplicates = 0;
  uint64_t recrawled = 0;        // content updates of pages already in a group
  uint64_t tier1_decided = 0;    // of those, decided by tier 1 (Zhu et al. Figure 8)
  uint64_t tier2_decided = 0;    // pages placed by tier 2
  uint64_t comparisons = 0;      // Method::Compare calls
  uint64_t verifications = 0;
  uint64_t verifications_failed = 0;
  uint64_t repairs = 0;
  uint64_t redirect_cycles = 0;
  uint64_t store_bytes = 0;      // RocksDB's files
  uint64_t postings_bytes = 0;   // the candidate postings held in memory
  double tier1_share() const {
    return recrawled ? static_cast<double>(tier1_decided) / static_cast<double>(recrawled) : 0.0;
  }
};
std::string ServiceStatsJson(const ServiceStats& stats, const std::string& method_spec);

class DuplicateService {
 public:
  // Opens (creating when missing) the store in folder `dir`. `executor`
  // (may be nullptr) signs a request's pages in parallel; it must outlive
  // the service. Errors: InvalidArgument for bad options or a store made
  // with another method spec or keeper rules; IOError / Corruption from
  // RocksDB (a store another process holds open says so).
  static Result<std::unique_ptr<DuplicateService>> Open(const std::string& dir, const ServiceOptions& options,
                                                        Executor* executor = nullptr);
  virtual ~DuplicateService() = default;

  // Applies the pages in order (each sees the ones before it) and answers
  // each. With `dry_run`, answers as if they were applied and changes
  // nothing. Pages with a parse error are answered with it. On return,
  // every applied page is durable. A store error aborts the request: the
  // pages written so far (whole batches of 1,000) stay applied, and the
  // status says which page failed.
  virtual Result<std::vector<PageAnswer>> Apply(std::vector<PageInput> pages, bool dry_run) = 0;
  // The page's answer now (its membership verified against the winner).
  // NotFound for an unknown URL.
  virtual Result<PageAnswer> Lookup(const std::string& url) = 0;
  // Removes the page (as a 404 fetch would). NotFound for an unknown URL.
  virtual Result<PageAnswer> Remove(const std::string& url) = 0;
  virtual Result<GroupInfo> Group(uint64_t id) = 0;
  virtual Result<ServiceStats> Stats() = 0;
  virtual std::string method_spec() const = 0;

  // Writes OUT/clusters.tsv and OUT/summary.json in `neardup dedup`'s
  // format from the store's state: one row per live content page, in the
  // order the pages were first added (redirect pages and removed pages are
  // left out, as `dedup --skip-non-2xx` leaves them).
  virtual Status Export(const std::string& out_dir) = 0;
};

// ---- HTTP server (http_server.cc) ----
struct ServerOptions {
  std::string store_dir;
  std::string listen = "127.0.0.1:8080";  // host:port; port 0 picks a free one
  // Bearer token file; required when `listen` is not a loopback address.
  std::string token_file;
  uint64_t max_body_bytes = uint64_t{256} << 20;   // 413 above this
  uint64_t max_line_bytes = uint64_t{16} << 20;    // an error line above this
  uint32_t max_lines = 100000;                     // 413 above this
  int threads = 0;                                 // signing threads; 0 = all cores
  ServiceOptions service;
};

class Server {
 public:
  // Opens the store and binds. Errors: InvalidArgument (a non-loopback
  // address without a token, a bad address), the store's errors, IOError
  // when the address cannot be bound.
  static Result<std::unique_ptr<Server>> Start(const ServerOptions& options);
  virtual ~Server() = default;
  virtual int port() const = 0;
  virtual std::string method_spec() const = 0;
  // Serves until Stop() (from another thread or a signal handler's thread).
  virtual Status Serve() = 0;
  virtual void Stop() = 0;
};

// ---- client (ingest.cc) ----
struct IngestOptions {
  std::string server = "http://127.0.0.1:8080";
  std::string token_file;
  uint32_t batch_pages = 1000;
  SourceOptions source;
  bool quiet = false;
  // When set, the request lines are written to this file ("-": stdout)
  // instead of being sent, and no server is contacted: NDJSON for curl or a
  // load test, one page a line, as POST /v1/pages takes it.
  std::string ndjson_out;
};
struct IngestSummary {
  uint64_t pages = 0, errors = 0, duplicates = 0, redirects = 0, removed = 0, batches = 0, warnings = 0;
  // Revisit records (Document::revisit_of, not redirects) of their own URL
  // read and not sent: an unchanged capture of the page the service holds
  // at that URL changes nothing.
  uint64_t revisits = 0;
  // Revisit records of another URL (URL-agnostic revisits) sent as pages
  // with `revisit_of` (counted in `pages` too).
  uint64_t revisits_of_other_urls = 0;
  double seconds = 0;
};
// Streams every document of `inputs` (anything `dedup` reads) to the
// server in batches of options.batch_pages, printing a progress line to
// stderr unless quiet. `on_answer` (may be empty) sees every answer line.
Result<IngestSummary> RunIngest(const std::vector<std::string>& inputs, const IngestOptions& options,
                                const std::function<void(const std::string& line)>& on_answer = {});

}  // namespace neardup

#endif  // NEARDUP_SERVICE_H_
