// Copyright neardup authors. Licensed under Apache-2.0.
//
// A labelled benchmark builder: from a pool of real HTML pages, writes a
// .warc.gz crawl and its truth file (which pages are near duplicates of
// which), for measuring near-duplicate detectors. The labels follow Monika
// Henzinger, "Finding Near-Duplicate Web Pages: A Large-Scale Evaluation of
// Algorithms" (SIGIR 2006), §4: two pages are *correct* near duplicates when
// "their text differs only by: a session id, a timestamp, an execution time,
// a message id, a visitor count, a server name, and/or all or part of their
// URL (which is included in the document text); the difference is invisible
// to the visitors; a combination of these"; they are *incorrect* when "the
// main item(s) of the page was (were) different, e.g. two shopping pages with
// common boilerplate text but a different product in the page center".
//
// What is built (details and shares in apps/synth/synth.cc):
//   - Template sites. Each site takes one pool page with its <p> elements
//     removed as its template (the shared boilerplate) and gives every
//     distinct page its own main item: paragraphs of other pool pages, each
//     paragraph used at most once in the whole crawl. Distinct pages of one
//     site are different truth groups: the hard negatives. About one site
//     in five is a "database" site whose items are one cut paragraph of
//     12-40 words (Henzinger's NIH Nucleotide and Historic Herefordshire
//     cases). About half the sites are dynamic: every rendering fills
//     volatile slots (timestamp, execution time, visitor count, server name,
//     message id, version, the page's own URL) anew.
//   - Copies of distinct pages, each labelled with its kind: session-id,
//     alias, markup, mirror (whole mirrored subtrees on another host) and
//     sentence-edit (a scraped copy on another host with 1-3 words of one
//     sentence of the item replaced). Copies are in the group of their page.
//   - Parked domains: per registrar, pages that differ "usually only by the
//     domain name" (Henzinger), one truth group per registrar.
//
// Output is a pure function of the inputs' bytes, the options and the seed:
// the same call gives byte-identical files.
#ifndef NEARDUP_SYNTH_H_
#define NEARDUP_SYNTH_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "neardup/env.h"
#include "neardup/status.h"

namespace neardup {

struct SynthOptions {
  // Pool of real pages: any inputs OpenDocumentSource reads (WARC/ARC files,
  // folders of .html/.html.gz files, JSON Lines). Only HTML documents with a
  // 2xx status (or no HTTP status, as files have) are used.
  std::vector<std::string> inputs;
  // Where the crawl (gzip-per-record WARC/1.1) and the truth file go.
  std::string out_warc;
  std::string out_truth;
  // Template sites to build (fewer when the pool has fewer distinct
  // templates, or runs out of paragraphs; the summary says how many).
  uint32_t sites = 200;
  // Organizations selling parked domains; 0 builds none.
  uint32_t parked_registrars = 4;
  uint64_t seed = 1;
  // Cap of the heavy tail of copies of one distinct page (mirror copies
  // included); 0 writes no copies at all.
  uint32_t max_copies = 100;

  // InvalidArgument naming the field: no inputs, an empty or shared output
  // path, sites outside 1..100000, parked_registrars above 10000,
  // max_copies above 100000.
  Status Validate() const;
};

struct SynthSummary {
  // Pool: documents read, distinct HTML pages among them (2xx, not
  // byte-identical to an earlier one), templates (pages whose text outside
  // <p> elements was not seen before, nearly or exactly), paragraphs kept
  // (>= 12 words, sharing no run of 8 words and at most one run of 4 words
  // with earlier paragraphs).
  uint64_t documents_read = 0;
  uint64_t pool_pages = 0;
  uint64_t pool_templates = 0;
  uint64_t pool_paragraphs = 0;
  // Paragraphs placed in items.
  uint64_t paragraphs_used = 0;

  // Crawl: records written (= truth lines) and truth groups.
  uint64_t pages = 0;
  uint64_t groups = 0;
  // Template sites built, of them dynamic, database and mirrored ones.
  uint64_t sites = 0;
  uint64_t dynamic_sites = 0;
  uint64_t database_sites = 0;
  uint64_t mirrored_sites = 0;
  // Distinct pages (one per site group) and, of them, those on a site with
  // at least two distinct pages: each shares its template with a page of
  // another group (the hard negatives).
  uint64_t distinct_pages = 0;
  uint64_t hard_negative_pages = 0;
  // Hosts that hold copies only: mirror hosts and scraper hosts.
  uint64_t mirror_hosts = 0;
  uint64_t scraper_hosts = 0;
  // Parked domains written (one page each) and registrars.
  uint64_t parked_domains = 0;
  uint64_t parked_registrars = 0;
  // What could not be built: sites with no distinct template left in the
  // pool, and planned distinct pages left out because the pool ran out of
  // unused paragraphs (paragraphs are never reused).
  uint64_t sites_not_built = 0;
  uint64_t pages_not_built = 0;
  // kind -> pages written; kinds: original, session-id, alias, markup,
  // mirror, sentence-edit, parked.
  std::map<std::string, uint64_t> pages_by_kind;
  // Uncompressed HTML bytes written (sum of the response bodies).
  uint64_t bytes = 0;
};

// Reads the pool, builds the crawl and writes options.out_warc (WARC/1.1,
// one gzip member per record: a warcinfo record, then one `200` response per
// page in a seeded shuffled order) and options.out_truth (TSV: the header
// line `url<TAB>group<TAB>kind`, then one line per page in crawl order; urls
// are unique; `group` is `s<site>/p<page>` or `parked/<registrar>`).
// Errors: InvalidArgument for bad options; NotFound when the inputs hold no
// usable HTML page or no paragraph of at least 12 words; IOError when an
// output cannot be written. `env` may be nullptr for Env::Default().
Result<SynthSummary> BuildSyntheticCrawl(const SynthOptions& options, Env* env = nullptr);

// ---- Successive crawls of one synthetic web (`neardup synth-web`) ----
//
// A small web of hosts built from the same kind of pool, crawled N times
// with drift in between, for the studies of Fetterly, Manasse and Najork
// ("On the Evolution of Clusters of Near-Duplicate Web Pages": clusters
// across successive crawls) and Pereira, Baeza-Yates and Ziviani ("Where and
// How Duplicates Occur in the Web": connected vs disconnected pages). Details
// in apps/synth/web.cc and doc/crawls.md:
//   - Hosts www.site<N>.example: a home page `/` linking the sections
//     `/s<K>/`, each section linking its articles `/s<K>/p<J>.html`, every
//     page linking back home (navigational links are relative). Host 0 is
//     the hub: its home page links every linked host's home page and each of
//     those links back to it (so it is the page with the most in-links from
//     other hosts, the default seed of `neardup connected`).
//   - Orphan hosts that no other host links; orphan articles that no page
//     links (both in the crawl, as a crawl fed by a URL list has them).
//   - Aliases: the bare name site<N>.example serving the same bytes
//     (unlinked); mirrors: mirror<M>.example serving all of a host's pages
//     with a different footer (near duplicates; some linked from the hub);
//     printable copies `/print/...` of some articles (near duplicates on the
//     same host); scraped copies of single articles on scraper hosts with a
//     few words edited, which do not follow later changes of the original.
//   - Between crawls: articles change a few words (small), their markup only,
//     or get a new text
//     (large), disappear, appear; new scraped copies appear.
struct SynthWebOptions {
  // Pool of real pages, as SynthOptions::inputs: their <p> paragraphs of at
  // least 12 words become the articles' text.
  std::vector<std::string> inputs;
  // Folder that receives crawl-1.warc.gz .. crawl-N.warc.gz and truth.tsv
  // (created if missing).
  std::string out_dir;
  uint32_t crawls = 3;  // N, 1..100
  uint32_t hosts = 8;   // www hosts (hub, linked and orphan ones), 2..10000
  uint64_t seed = 1;

  // InvalidArgument naming the field: no inputs, empty out_dir, crawls or
  // hosts out of range.
  Status Validate() const;
};

struct SynthWebSummary {
  uint64_t documents_read = 0;   // pool documents read
  uint64_t pool_paragraphs = 0;  // distinct pool paragraphs of >= 12 words
  // Paragraphs made of random pool words because the pool ran out.
  uint64_t generated_paragraphs = 0;
  uint64_t hosts = 0;  // www hosts, of them orphan ones
  uint64_t orphan_hosts = 0;
  uint64_t alias_hosts = 0;
  uint64_t mirror_hosts = 0;
  uint64_t scraper_hosts = 0;
  // The reachability seed of the truth: the hub's home page.
  std::string seed_url;
  std::vector<std::string> crawl_paths;  // crawl-1.warc.gz ...
  std::string truth_path;
  // Per crawl: pages written, pages reachable from seed_url.
  std::vector<uint64_t> pages;
  std::vector<uint64_t> reachable;
  // change -> truth lines over all crawls (unchanged, markup, small, large,
  // new).
  std::map<std::string, uint64_t> changes;
  uint64_t bytes = 0;  // HTML bytes written, all crawls
};

// Builds the web and writes options.out_dir/crawl-<n>.warc.gz (one gzip
// member per record: warcinfo, then one `200` response per page in a seeded
// shuffled order) and options.out_dir/truth.tsv: the header
// `crawl<TAB>url<TAB>group<TAB>reachable<TAB>change<TAB>kind`, one line per
// page and crawl; `group` names the page's content lineage (pages of one
// group in one crawl are exact or near duplicates, different groups are
// not); `reachable` is 1 when links (navigational and external) lead to the
// page from seed_url in that crawl; `change` compares the page's bytes with
// the same URL in the previous crawl: unchanged (same bytes), markup (same
// text, other markup), small (a few words or a list of links), large (a new
// text), new (URL absent before; every page of crawl 1); `kind`: home, section, article, orphan, print, alias, mirror,
// scraped. Deterministic given the inputs and options. Errors as
// BuildSyntheticCrawl. `env` may be nullptr for Env::Default().
Result<SynthWebSummary> BuildSyntheticWeb(const SynthWebOptions& options, Env* env = nullptr);

}  // namespace neardup

#endif  // NEARDUP_SYNTH_H_
