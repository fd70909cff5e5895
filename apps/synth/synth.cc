// Copyright neardup authors. Licensed under Apache-2.0.
//
// The benchmark builder behind apps/synth/synth.h. Stages:
//   1. Pool (ReadPool): the inputs' HTML pages, byte-identical ones dropped.
//      Each page gives paragraphs (the visible text of its <p> elements) and,
//      when its text outside <p> is new, a template candidate.
//   2. Plan (Planner): sites with their templates and page counts, the items
//      of their distinct pages, the copies of each distinct page, parked
//      domains; one Record per page to write.
//   3. Write (WriteCrawl): records in a seeded shuffled order, each rendered
//      on the fly (memory holds the pool's sampled templates and its
//      paragraphs, never the crawl), to the WARC and the truth file.
//
// Distributions (each a constant below, so a reader can check them):
//   - Distinct pages per site: discrete Pareto, P(n >= k) = 1/k, capped at
//     min(200, max(3, sites)): 50% of sites have 1 page, 75% at most 3, 10%
//     at least 10, 1% at least 100 (about 5.9 pages per site at the cap).
//   - Items: 1-6 paragraphs with weights 45/25/12/8/5/5 %; on database sites
//     (20% of sites) one paragraph cut to 12-40 words (Henzinger's NIH
//     Nucleotide pages: 200-400 tokens differing in 10-30; Historic
//     Herefordshire: 1000-2000 tokens differing in about 20).
//   - Dynamic sites: 50%. Volatile slots a site shows (each independently):
//     timestamp 80%, execution time 50%, visitor count 35%, server name 40%,
//     message/request id 40%, version string 35% (header and footer), the
//     page's own URL 30%; a dynamic site shows at least one; 30% of static
//     sites show none.
//   - Copies of a distinct page besides its mirror copy: P(c >= k) =
//     0.25 k^-1.5 for k >= 1 (75% of pages have none); all its copies,
//     mirror included, capped at max_copies. These copies are alias 30%,
//     session-id 25%, markup 15%, sentence-edit 30% (alias when the item has
//     no plain word to edit).
//   - Mirrors: 1 site in 8 with at least 2 distinct pages is mirrored on its
//     own host: the whole site (60%), or when it has several sections all
//     pages of one section (40%).
//   - Sentence-edit copies go to scraper hosts: a new host 40% of the time,
//     else the host of an earlier scraped copy drawn uniformly (so hosts with
//     many scraped pages attract more: a heavy tail). A scraper republishes
//     a page once: when the host drawn already holds a copy of this page, a
//     new host takes the copy.
//   - Parked domains: per registrar, P(n >= k) = 2/k for k >= 2, 2..100;
//     pages of 55-80 words naming their domain 2-4 times.
//   - Fetch dates: uniform over the 28 days from 2026-11-02; static pages
//     were last modified up to 900 days earlier.
//
// Renderings: a dynamic site fills its volatile slots anew for every page
// written (original or copy), at its fetch time; a static site fills them
// once per distinct page, so its copies repeat them. The URL shown in the
// text is the fetched one on dynamic sites and on mirrors, else the page's
// own. What each copy changes besides: session-id, the id in its URL, in
// every same-host link and in a hidden form field; alias and markup, the URL
// (same host), markup also invisible markup; mirror, the host of the URL and
// of the links to the site; sentence-edit, the host (links stay as scraped)
// and 1-3 words of one sentence of the item.
#include "synth/synth.h"

#include <xxhash.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "base/digits.h"
#include "base/path.h"
#include "io/warc_writer.h"
#include "neardup/document.h"
#include "neardup/source.h"
#include "synth/html_edit.h"
#include "synth/random.h"
#include "synth/slots.h"
#include "text/charset.h"

namespace neardup {
namespace {

using synth_internal::ApplyEdits;
using synth_internal::Edit;
using synth_internal::FoldedWords;
using synth_internal::HtmlScanner;
using synth_internal::HtmlToken;
using synth_internal::ParagraphSplit;
using synth_internal::ParseRawUrl;
using synth_internal::Random;
using synth_internal::RawUrl;
using synth_internal::RemoveParagraphs;
using synth_internal::SplitWords;
using synth_internal::VisibleText;

// ---- Constants (see the file comment) -------------------------------------

// A main item is prose: paragraphs of fewer words are metadata lines ("Posted
// by NAME at DATE"), not items (Henzinger's incorrect pairs differ in an item
// of 10-30 tokens or more).
constexpr size_t kMinParagraphWords = 12;
// Longer "paragraphs" are whole pages wrapped in one <p>; not items.
constexpr size_t kMaxParagraphWords = 400;
// Paragraphs sharing a run of this many folded words with an earlier one are
// dropped, so no two items share text (near-copies of one article in the
// pool would otherwise become "different" items).
constexpr size_t kShingleWords = 8;
// ...and paragraphs sharing two runs of this many words with earlier ones
// (boilerplate such as "You are commenting using your Google account" and
// its Facebook twin: one word apart, no 8-word run in common).
constexpr size_t kShortRunWords = 4;
// Bits of the filter of short runs seen (a one-hash Bloom filter, 16 MiB).
constexpr uint64_t kShortRunFilterBits = uint64_t{1} << 27;
// Template candidates: a page with a <body>, at most this big.
constexpr size_t kMaxTemplateBytes = 1u << 20;
// "Rich" templates, preferred for sites with several pages: this much text
// outside <p> (the boilerplate the pages share).
constexpr size_t kRichTemplateMinWords = 80;
constexpr size_t kRichTemplateMaxWords = 2000;
// A template whose 8-word shingles are at least this much contained in the
// templates seen before is a near duplicate of them (one real site's pages).
constexpr double kTemplateContainment = 0.5;

constexpr uint32_t kMaxPagesPerSite = 200;
constexpr double kSitePagesAlpha = 1.0;
constexpr double kDatabaseShare = 0.2;
constexpr uint64_t kDatabaseMinWords = 12, kDatabaseMaxWords = 40;
constexpr double kDynamicShare = 0.5;
constexpr double kMirroredShare = 1.0 / 8;
constexpr double kMirrorSectionShare = 0.4;
constexpr double kPageHasCopies = 0.25;
constexpr double kCopiesAlpha = 1.5;
constexpr double kNewScraperHost = 0.4;
constexpr uint32_t kMaxParkedDomains = 100;
// Parked wordings: registrar r = a + 7b uses variant (a + b j) mod 7 in slot
// j, so two registrars share at most one of the six slots' sentences.
constexpr uint32_t kParkedVariants = 7;
constexpr uint32_t kMaxRegistrars = kParkedVariants * kParkedVariants;

const std::vector<double> kItemParagraphWeights = {45, 25, 12, 8, 5, 5};

// 2026-11-02T00:00:00Z and 28 days on.
constexpr int64_t kCrawlStart = 1793577600;
constexpr int64_t kCrawlSeconds = 28 * 86400;
// Counters count from here (2023-01-01).
constexpr int64_t kCounterEpoch = 1672531200;

// Streams of Random (any distinct constants).
enum Stream : uint64_t {
  kStreamPriority = 1,
  kStreamSites,
  kStreamItems,
  kStreamCopies,
  kStreamParked,
  kStreamOrder,
  kStreamVolatile,
  kStreamEdit,
};

enum class Kind { kOriginal, kSessionId, kAlias, kMarkup, kMirror, kSentenceEdit, kParked };

const char* KindName(Kind k) {
  switch (k) {
    case Kind::kOriginal: return "original";
    case Kind::kSessionId: return "session-id";
    case Kind::kAlias: return "alias";
    case Kind::kMarkup: return "markup";
    case Kind::kMirror: return "mirror";
    case Kind::kSentenceEdit: return "sentence-edit";
    case Kind::kParked: return "parked";
  }
  return "?";
}

// ---- Words ----------------------------------------------------------------

const char* const kHostWords[] = {
    "acorn",    "alpine",  "amber",    "anchor",  "apex",    "arbor",     "atlas",   "aurora",
    "beacon",   "birch",   "bluebird", "boulder", "bramble", "brook",     "cascade", "cedar",
    "citadel",  "clover",  "cobalt",   "comet",   "compass", "coral",     "cove",    "crescent",
    "crimson",  "cypress", "delta",    "dune",    "ember",   "evergreen", "falcon",  "fern",
    "fjord",    "flint",   "forge",    "fox",     "garnet",  "glacier",   "granite", "harbor",
    "hawk",     "heather", "hollow",   "horizon", "indigo",  "iris",      "ivy",     "jade",
    "juniper",  "kestrel", "lagoon",   "lantern", "laurel",  "linden",    "lotus",   "lumen",
    "magnolia", "maple",   "marble",   "meadow",  "mesa",    "monarch",   "nimbus",  "north",
    "oak",      "onyx",    "orchid",   "osprey",  "pebble",  "pine",      "pioneer", "prairie",
    "quartz",   "quill",   "raven",    "redwood", "ridge",   "river",     "saffron", "sage",
    "sequoia",  "sierra",  "silver",   "sparrow", "spruce",  "summit",    "thistle", "thunder",
    "timber",   "topaz",   "tundra",   "valley",  "velvet",  "vista",     "willow",  "winter",
    "zenith",   "harvest", "copper",   "beech",   "heron",   "otter",     "badger",  "lark"};

const char* const kSections[] = {"news",    "articles", "reviews", "blog",     "archive",
                                 "docs",    "sports",   "tech",    "business", "travel",
                                 "health",  "science",  "local",   "opinion",  "products",
                                 "catalog", "events",   "guides",  "features", "library"};
const char* const kDatabaseSections[] = {"nucleotide", "records", "entries",     "gene",
                                         "specimens",  "parish",  "collections", "objects",
                                         "people",     "places",  "sites",       "catalogue"};
// Words put in place of edited ones (sentence-edit copies).
const char* const kEditWords[] = {
    "local",   "recent",  "major",   "several", "quickly", "early",   "simple",  "modern",
    "public",  "private", "strong",  "small",   "large",   "common",  "final",   "annual",
    "central", "popular", "special", "basic",   "daily",   "global",  "rapid",   "formal",
    "typical", "various", "natural", "current", "certain", "similar", "regular", "primary",
    "direct",  "likely",  "entire",  "nearly",  "mostly",  "clearly", "often",   "later",
    "report",  "company", "program", "market",  "system",  "service", "result",  "process",
    "history", "project", "region",  "season",  "policy",  "effort",  "change",  "growth"};
const char* const kRefWords[] = {"home",    "rss",    "twitter", "newsletter", "feed",    "sidebar",
                                 "related", "footer", "search",  "email",      "partner", "mobile"};

// ---- Small helpers --------------------------------------------------------

std::string Hex(Random& r, size_t n, bool upper) {
  static const char kLower[] = "0123456789abcdef";
  static const char kUpper[] = "0123456789ABCDEF";
  std::string s;
  for (size_t i = 0; i < n; ++i) s.push_back((upper ? kUpper : kLower)[r.Below(16)]);
  return s;
}

std::string Capitalized(std::string s) {
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 32);
  return s;
}

uint64_t Hash(std::string_view s) { return XXH3_64bits(s.data(), s.size()); }

// Sorted distinct hashes of the runs of `run` (default kShingleWords) words.
std::vector<uint64_t> Shingles(const std::vector<std::string>& words, size_t run = kShingleWords) {
  std::vector<uint64_t> out;
  if (words.size() < run) return out;
  std::string buf;
  for (size_t i = 0; i + run <= words.size(); ++i) {
    buf.clear();
    for (size_t j = 0; j < run; ++j) {
      buf += words[i + j];
      buf.push_back('\x1f');
    }
    out.push_back(Hash(buf));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// ---- Dates (proleptic Gregorian, UTC; H. Hinnant's civil algorithms) -------

struct DateTime {
  int year;
  unsigned month, day, hour, minute, second, weekday;  // weekday: 0 = Sunday
};

DateTime ToDateTime(int64_t t) {
  int64_t days = t >= 0 ? t / 86400 : (t - 86399) / 86400;
  const int64_t secs = t - days * 86400;
  DateTime d{};
  d.weekday = static_cast<unsigned>(((days % 7) + 11) % 7);  // 1970-01-01 was a Thursday
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const auto doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d.day = doy - (153 * mp + 2) / 5 + 1;
  d.month = mp < 10 ? mp + 3 : mp - 9;
  d.year = static_cast<int>(yoe + era * 400 + (d.month <= 2 ? 1 : 0));
  d.hour = static_cast<unsigned>(secs / 3600);
  d.minute = static_cast<unsigned>(secs / 60 % 60);
  d.second = static_cast<unsigned>(secs % 60);
  return d;
}

const char* const kMonths[] = {"January",   "February", "March",    "April",
                               "May",       "June",     "July",     "August",
                               "September", "October",  "November", "December"};
const char* const kWeekdays[] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                 "Thursday", "Friday", "Saturday"};

constexpr uint32_t kTimeFormats = 6;
constexpr uint32_t kFormatIso = 5;
constexpr uint32_t kFormatHttp = 1;

// 0 "2026-11-21 13:45:12", 1 "Sat, 21 Nov 2026 13:45:12 GMT",
// 2 "November 21, 2026", 3 "21/11/2026 13:45",
// 4 "Saturday, November 21, 2026 1:45 PM", 5 "2026-11-21T13:45:12Z".
std::string FormatTime(int64_t t, uint32_t format) {
  const DateTime d = ToDateTime(t);
  char buf[96];
  const char* month = kMonths[d.month - 1];
  const char* weekday = kWeekdays[d.weekday];
  switch (format) {
    case 0:
      std::snprintf(buf, sizeof buf, "%04d-%02u-%02u %02u:%02u:%02u", d.year, d.month, d.day,
                    d.hour, d.minute, d.second);
      break;
    case 1:
      std::snprintf(buf, sizeof buf, "%.3s, %02u %.3s %04d %02u:%02u:%02u GMT", weekday, d.day,
                    month, d.year, d.hour, d.minute, d.second);
      break;
    case 2: std::snprintf(buf, sizeof buf, "%s %u, %04d", month, d.day, d.year); break;
    case 3:
      std::snprintf(buf, sizeof buf, "%02u/%02u/%04d %02u:%02u", d.day, d.month, d.year, d.hour,
                    d.minute);
      break;
    case 4:
      std::snprintf(buf, sizeof buf, "%s, %s %u, %04d %u:%02u %s", weekday, month, d.day, d.year,
                    d.hour % 12 == 0 ? 12 : d.hour % 12, d.minute, d.hour < 12 ? "AM" : "PM");
      break;
    default:
      std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02u:%02u:%02uZ", d.year, d.month, d.day,
                    d.hour, d.minute, d.second);
  }
  return buf;
}

// ---- 1. Pool --------------------------------------------------------------

struct PoolParagraph {
  std::string text;  // visible text, white space collapsed
  uint32_t doc = 0;  // pool page it came from
  uint32_t words = 0;
};

struct TemplateCandidate {
  uint64_t priority = 0;  // seeded hash of its text: the draw order
  std::string html;       // the page without its <p> elements
  size_t item_pos = 0;    // where the first <p> was (or after <body>)
  std::string url;        // the pool page's URL
  uint32_t words = 0;     // words of its visible text
};

struct ByPriority {
  bool operator()(const TemplateCandidate& a, const TemplateCandidate& b) const {
    return a.priority < b.priority;
  }
};

struct Pool {
  std::vector<PoolParagraph> paragraphs;
  // Max-heaps on priority holding the `capacity` lowest-priority candidates
  // of each class: a seeded uniform sample, whatever the pool's size.
  std::vector<TemplateCandidate> rich, poor;
  size_t capacity = 0;
  uint64_t documents = 0, pages = 0, templates = 0;
};

void Offer(std::vector<TemplateCandidate>* heap, size_t capacity, TemplateCandidate&& c) {
  if (heap->size() >= capacity) {
    if (heap->empty() || !(c.priority < heap->front().priority)) return;
    std::pop_heap(heap->begin(), heap->end(), ByPriority());
    heap->pop_back();
  }
  heap->push_back(std::move(c));
  std::push_heap(heap->begin(), heap->end(), ByPriority());
}

// Position just after the first <body ...> start tag; npos when none.
size_t BodyOpenEnd(std::string_view html) {
  HtmlScanner scanner(html);
  HtmlToken t;
  while (scanner.Next(&t)) {
    if (t.type == HtmlToken::Type::kStartTag && t.name == "body") return t.end;
  }
  return std::string::npos;
}

Status ReadPool(const SynthOptions& options, Env* env, Pool* pool) {
  SourceOptions source_options;
  source_options.keep_non_2xx = false;
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<DocumentSource> source,
                           OpenDocumentSource(options.inputs, source_options, env, nullptr));
  pool->capacity = options.sites;
  std::unordered_set<uint64_t> page_hashes, paragraph_shingles, template_hashes, template_shingles;
  std::vector<uint64_t> short_run_filter(kShortRunFilterBits / 64, 0);
  CharsetConverter converter;
  Document doc;
  while (source->Next(&doc)) {
    ++pool->documents;
    if (doc.kind != ContentKind::kHtml || doc.body.empty()) continue;
    if (doc.http_status != 0 && (doc.http_status < 200 || doc.http_status > 299)) continue;
    if (!page_hashes.insert(Hash(doc.body)).second) continue;  // byte-identical
    CharsetDecision decision;
    bool invalid = false;
    const std::string html(
        converter.ToUtf8(doc.body, doc.declared_charset, /*html=*/true, 4096, &decision, &invalid));
    const auto doc_index = static_cast<uint32_t>(pool->pages++);
    ParagraphSplit split = RemoveParagraphs(html);

    for (std::string& p : split.paragraphs) {
      const size_t words = SplitWords(p).size();
      if (words < kMinParagraphWords || words > kMaxParagraphWords) continue;
      const std::vector<std::string> folded = FoldedWords(p);
      const std::vector<uint64_t> shingles = Shingles(folded);
      if (shingles.empty()) continue;
      bool seen = false;
      for (uint64_t h : shingles) seen = seen || paragraph_shingles.count(h) > 0;
      if (seen) continue;
      const std::vector<uint64_t> short_runs = Shingles(folded, kShortRunWords);
      int short_seen = 0;
      for (uint64_t h : short_runs) {
        const uint64_t bit = h % kShortRunFilterBits;
        short_seen += (short_run_filter[bit / 64] >> (bit % 64)) & 1;
      }
      if (short_seen >= 2) continue;
      for (uint64_t h : short_runs) {
        const uint64_t bit = h % kShortRunFilterBits;
        short_run_filter[bit / 64] |= uint64_t{1} << (bit % 64);
      }
      paragraph_shingles.insert(shingles.begin(), shingles.end());
      pool->paragraphs.push_back({std::move(p), doc_index, static_cast<uint32_t>(words)});
    }

    // Template candidate: a real page body, its text outside <p> not seen
    // before (exactly or nearly).
    if (html.size() > kMaxTemplateBytes) continue;
    const size_t body_end = BodyOpenEnd(split.without_paragraphs);
    if (body_end == std::string::npos) continue;
    const std::vector<std::string> words = FoldedWords(VisibleText(split.without_paragraphs));
    std::string joined;
    for (const std::string& w : words) joined += w + " ";
    if (!template_hashes.insert(Hash(joined)).second) continue;
    const std::vector<uint64_t> shingles = Shingles(words);
    size_t contained = 0;
    for (uint64_t h : shingles) contained += template_shingles.count(h);
    if (!shingles.empty() && static_cast<double>(contained) >=
                                 kTemplateContainment * static_cast<double>(shingles.size())) {
      continue;
    }
    template_shingles.insert(shingles.begin(), shingles.end());
    ++pool->templates;
    TemplateCandidate c;
    c.priority = synth_internal::SplitMix64(
        Hash(joined) ^ synth_internal::SplitMix64(options.seed ^ kStreamPriority));
    c.item_pos =
        split.first_paragraph_pos == std::string::npos ? body_end : split.first_paragraph_pos;
    c.url = doc.url;
    c.words = static_cast<uint32_t>(words.size());
    const bool rich =
        words.size() >= kRichTemplateMinWords && words.size() <= kRichTemplateMaxWords;
    std::vector<TemplateCandidate>* heap = rich ? &pool->rich : &pool->poor;
    if (heap->size() >= pool->capacity && !heap->empty() &&
        !(c.priority < heap->front().priority)) {
      continue;  // would not be kept: skip the copy
    }
    c.html = std::move(split.without_paragraphs);
    Offer(heap, pool->capacity, std::move(c));
  }
  if (pool->pages == 0) {
    return Status::NotFound("no usable pool page: none of the " + std::to_string(pool->documents) +
                            " documents read from the " + std::to_string(options.inputs.size()) +
                            " input" + (options.inputs.size() == 1 ? "" : "s") +
                            " is an HTML page with a 2xx status");
  }
  if (pool->paragraphs.empty()) {
    return Status::NotFound("the " + std::to_string(pool->pages) +
                            " HTML pages of the pool hold no <p> paragraph of at least " +
                            std::to_string(kMinParagraphWords) + " words to make items from");
  }
  if (pool->templates == 0) {
    return Status::NotFound("no pool page has a <body> to serve as a site template");
  }
  std::sort(pool->rich.begin(), pool->rich.end(), ByPriority());
  std::sort(pool->poor.begin(), pool->poor.end(), ByPriority());
  return Status::OK();
}

// ---- 2. Plan --------------------------------------------------------------

enum class Slot { kNone, kTitle, kHeader, kItem, kFooter };

// A template as literal text with slots between: segment i is `literal`
// followed by the content of `slot`.
struct Segment {
  std::string literal;
  Slot slot = Slot::kNone;
};

struct Site {
  uint32_t id = 0;
  std::string scheme, host, label, brand;
  bool dynamic = false, database = false;
  std::vector<Segment> segments;
  bool declares_charset = false;  // the template's <meta> says utf-8
  // Volatile slots shown and their wording.
  bool show_time = false, show_gen = false, show_visitors = false, show_server = false,
       show_request = false, show_version = false, show_url = false;
  uint32_t time_format = 0, time_label = 0, gen_format = 0, visitors_format = 0, server_format = 0,
           request_format = 0, version_format = 0, url_format = 0, separator = 0, header_class = 0,
           footer_class = 0;
  uint32_t servers = 1;
  uint64_t visitors_base = 0, visitors_daily = 1;
  uint32_t version_major = 1, version_minor = 0, version_patch = 0, deploy_days = 7;
  // Session ids: 0 ";jsessionid=" (32 upper-case hex), 1 "?sid=" (32 hex),
  // 2 "?PHPSESSID=" (26 of [0-9a-v]).
  uint32_t session_style = 0;
  std::string server_software;
  // URLs: styles 0-2 for ordinary sites, 3-5 for database sites.
  uint32_t path_style = 0;
  uint64_t id_base = 1;
  std::string accession_prefix;
  std::vector<std::string> sections;
  uint32_t planned_pages = 0;
  std::vector<uint32_t> pages;  // indices into Plan::pages, page number order
  // Mirror: host (empty when not mirrored) and the mirrored section (-1: all).
  std::string mirror_scheme, mirror_host;
  int mirror_section = -1;
};

struct Page {
  uint32_t site = 0, number = 0;
  int section = -1;  // -1: the home page
  std::string path, url, title;
  std::vector<std::string> item;  // paragraph texts
  uint64_t seed = 0;              // static renderings draw from it
  int64_t modified = 0;           // static pages' last change
};

struct Registrar {
  uint32_t id = 0;
  std::string brand, email, phone, price, server_software;
  uint32_t time_format = 0;
  std::vector<std::string> domains;
};

struct Record {
  Kind kind = Kind::kOriginal;
  uint32_t owner = 0;   // page, or registrar for parked pages
  uint32_t domain = 0;  // parked: index of the domain
  std::string url;
  int64_t fetch_time = 0;
  uint64_t seed = 0;
  std::string session_id;  // session-id copies
};

struct Plan {
  std::vector<Site> sites;
  std::vector<Page> pages;
  std::vector<Registrar> registrars;
  std::vector<Record> records;
  uint64_t mirror_hosts = 0, scraper_hosts = 0, sites_not_built = 0, pages_not_built = 0,
           paragraphs_used = 0;
};

// Unique host names and URLs across the crawl.
class NameSet {
 public:
  bool Take(const std::string& s) { return taken_.insert(s).second; }

 private:
  std::unordered_set<std::string> taken_;
};

std::string Tld(Random& r) {
  const size_t i = r.Weighted({55, 15, 15, 15});
  static const char* const kTlds[] = {"com", "org", "net", "co.uk"};
  return kTlds[i];
}

// Word + number labels ("falcon42"): hosts of sites look like
// www.falcon42.com.
std::string NewLabel(Random& r) {
  return std::string(r.Pick(kHostWords)) + std::to_string(r.Between(1, 999));
}

// ASCII slug from the first words of an item: "senate-passes-the-budget".
std::string Slug(const std::vector<std::string>& item, Random& r) {
  std::string slug;
  size_t taken = 0;
  const size_t want = r.Between(3, 6);
  for (const std::string& p : item) {
    // Character references ("Let&apos;s") are dropped, not spelled out.
    std::string text;
    for (size_t i = 0; i < p.size(); ++i) {
      if (p[i] == '&') {
        const size_t semi = p.find(';', i);
        if (semi != std::string::npos && semi - i <= 10) {
          i = semi;
          continue;
        }
      }
      text.push_back(p[i]);
    }
    for (const std::string& w : FoldedWords(text)) {
      bool ascii = true;
      for (char c : w) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
      if (!ascii) continue;
      if (!slug.empty()) slug.push_back('-');
      slug += w;
      if (++taken == want || slug.size() > 48) return slug;
    }
  }
  return slug.empty() ? "page" : slug;
}

// The title of a page: its item's first words and the site's brand, or on
// database sites the record's name (Henzinger's database pages differ only
// in their record).
std::string PageTitle(const Site& site, const Page& page, uint64_t number) {
  if (site.database) {
    const std::string& sec =
        page.section < 0 ? "home" : site.sections[static_cast<size_t>(page.section)];
    return site.brand + ": " + sec + " record " + site.accession_prefix + std::to_string(number);
  }
  std::string head;
  size_t n = 0;
  for (std::string_view w : SplitWords(page.item.front())) {
    if (n++ == 8) break;
    if (!head.empty()) head.push_back(' ');
    head.append(w);
  }
  while (!head.empty() && std::string_view(".,;:").find(head.back()) != std::string_view::npos)
    head.pop_back();
  return head + " | " + site.brand;
}

// The host of the pool page a template comes from: its URL's, else the
// host most absolute <a href> links go to (at least two).
std::string OriginalHost(const TemplateCandidate& c) {
  const RawUrl u = ParseRawUrl(c.url);
  if (u.web_scheme && u.has_authority && !u.host.empty()) return u.host;
  std::map<std::string, int> counts;
  HtmlScanner scanner(c.html);
  HtmlToken t;
  while (scanner.Next(&t)) {
    if (t.type != HtmlToken::Type::kStartTag || t.name != "a") continue;
    for (const auto& a : t.attrs) {
      if (a.name != "href") continue;
      const RawUrl h =
          ParseRawUrl(std::string_view(c.html).substr(a.value_begin, a.value_end - a.value_begin));
      if (h.web_scheme && h.has_authority && !h.host.empty()) ++counts[h.host];
      break;
    }
  }
  std::string best;
  int best_count = 1;
  for (const auto& [host, n] : counts) {
    if (n > best_count) {
      best = host;
      best_count = n;
    }
  }
  return best;
}

bool SameHostModuloWww(std::string_view a, std::string_view b) {
  if (a.empty() || b.empty()) return false;
  auto strip = [](std::string_view h) { return h.substr(0, 4) == "www." ? h.substr(4) : h; };
  return strip(a) == strip(b);
}

std::string ReplaceCharsetLabel(std::string_view content) {
  // "text/html; charset=iso-8859-1" -> "text/html; charset=utf-8"
  std::string lower(content);
  for (char& c : lower) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
  const size_t k = lower.find("charset");
  if (k == std::string::npos) return std::string(content);
  size_t p = k + 7;
  while (p < content.size() && content[p] == ' ') ++p;
  if (p >= content.size() || content[p] != '=') return std::string(content);
  ++p;
  while (p < content.size() && content[p] == ' ') ++p;
  size_t e = p;
  while (e < content.size() && content[e] != ';' && content[e] != ' ' && content[e] != '"' &&
         content[e] != '\'') {
    ++e;
  }
  return std::string(content.substr(0, p)) + "utf-8" + std::string(content.substr(e));
}

// Turns a candidate into the site's template: the title, a header slot
// after <body>, the item slot where the first <p> was, a footer slot before
// </body>; links to the pool page's own host now go to the site's host;
// canonical and og:url declarations of the pool page removed (they would
// name one URL for every page of the site); <meta> charset declarations say
// utf-8 (the pool page was converted).
void PrepareTemplate(const TemplateCandidate& c, Site* site) {
  struct SlotEdit {
    size_t begin, end;
    std::string text;
    Slot slot;
    int order;
  };
  const std::string original = OriginalHost(c);
  const std::string_view html = c.html;
  std::vector<SlotEdit> edits;
  HtmlScanner scanner(html);
  HtmlToken t;
  bool title_open = false, title_done = false, xml_declaration = false, meta_charset = false;
  size_t title_insert = 0, body_open = std::string::npos, body_close = std::string::npos;
  while (scanner.Next(&t)) {
    if (title_open) {
      title_open = false;
      title_done = true;
      if (t.type == HtmlToken::Type::kRawText) {
        edits.push_back({t.begin, t.end, "", Slot::kTitle, 0});
        continue;
      }
      edits.push_back({title_insert, title_insert, "", Slot::kTitle, 0});
    }
    if (t.type == HtmlToken::Type::kDeclaration && html.substr(t.begin, 5) == "<?xml")
      xml_declaration = true;
    if (t.type == HtmlToken::Type::kEndTag && t.name == "body") body_close = t.begin;
    if (t.type != HtmlToken::Type::kStartTag) continue;
    if (t.name == "title" && !title_done) {
      title_open = true;
      title_insert = t.end;
    }
    if (t.name == "body" && body_open == std::string::npos) body_open = t.end;
    auto attr = [&](std::string_view name) -> std::string {
      for (const auto& a : t.attrs) {
        if (a.name == name) {
          std::string v(html.substr(a.value_begin, a.value_end - a.value_begin));
          for (char& ch : v) ch = (ch >= 'A' && ch <= 'Z') ? static_cast<char>(ch + 32) : ch;
          return v;
        }
      }
      return "";
    };
    if ((t.name == "link" && attr("rel").find("canonical") != std::string::npos) ||
        (t.name == "meta" && (attr("property") == "og:url" || attr("name") == "twitter:url"))) {
      edits.push_back({t.begin, t.end, "", Slot::kNone, 0});
      continue;
    }
    if (t.name == "meta") {
      for (const auto& a : t.attrs) {
        if (a.name == "charset" && a.has_value) {
          edits.push_back({a.value_begin, a.value_end, "utf-8", Slot::kNone, 0});
          meta_charset = true;
        } else if (a.name == "content" && a.has_value && attr("http-equiv") == "content-type") {
          const std::string_view v = html.substr(a.value_begin, a.value_end - a.value_begin);
          const std::string replaced = ReplaceCharsetLabel(v);
          if (replaced != v) {
            edits.push_back({a.value_begin, a.value_end, replaced, Slot::kNone, 0});
            meta_charset = true;
          }
        }
      }
      continue;
    }
    if (original.empty()) continue;
    for (const auto& a : t.attrs) {
      if (!a.has_value || !synth_internal::IsUrlAttribute(a.name)) continue;
      const RawUrl u = ParseRawUrl(html.substr(a.value_begin, a.value_end - a.value_begin));
      if (!u.has_authority || (u.has_scheme && !u.web_scheme) ||
          !SameHostModuloWww(u.host, original))
        continue;
      edits.push_back({a.value_begin + u.host_begin, a.value_begin + u.host_end,
                       (u.has_scheme ? site->scheme + "://" : std::string("//")) + site->host,
                       Slot::kNone, 0});
    }
  }
  if (title_open) edits.push_back({title_insert, title_insert, "", Slot::kTitle, 0});
  if (body_open == std::string::npos) body_open = c.item_pos;  // not reached: candidates have one
  edits.push_back({body_open, body_open, "", Slot::kHeader, 1});
  edits.push_back({c.item_pos, c.item_pos, "", Slot::kItem, 2});
  const size_t footer =
      body_close == std::string::npos || body_close < c.item_pos ? html.size() : body_close;
  edits.push_back({footer, footer, "", Slot::kFooter, 3});
  std::stable_sort(edits.begin(), edits.end(), [](const SlotEdit& a, const SlotEdit& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.order < b.order;
  });
  site->segments.clear();
  std::string literal;
  size_t cursor = 0;
  for (const SlotEdit& e : edits) {
    if (e.begin < cursor) continue;  // inside an earlier replaced range
    literal.append(html.substr(cursor, e.begin - cursor));
    literal += e.text;
    cursor = std::max(cursor, e.end);
    if (e.slot != Slot::kNone) {
      site->segments.push_back({std::move(literal), e.slot});
      literal.clear();
    }
  }
  literal.append(html.substr(cursor));
  site->segments.push_back({std::move(literal), Slot::kNone});
  site->declares_charset = meta_charset && !xml_declaration;
}

// Words of an item that a sentence edit may replace: plain ASCII words of 3+
// letters (outer punctuation aside), so one word is one term before and
// after. `sentence` numbers sentences across the item's paragraphs.
struct WordRef {
  size_t paragraph, begin, end, sentence;
};

std::vector<WordRef> EditableWords(const std::vector<std::string>& item) {
  std::vector<WordRef> out;
  size_t sentence = 0;
  for (size_t p = 0; p < item.size(); ++p) {
    const std::string& text = item[p];
    size_t i = 0;
    while (i < text.size()) {
      while (i < text.size() && text[i] == ' ') ++i;
      const size_t wb = i;
      while (i < text.size() && text[i] != ' ') ++i;
      if (i == wb) break;
      size_t b = wb, e = i;
      while (b < e && std::string_view("\"'(").find(text[b]) != std::string_view::npos) ++b;
      size_t core_end = e;
      while (core_end > b &&
             std::string_view(".,;:!?)\"'").find(text[core_end - 1]) != std::string_view::npos) {
        --core_end;
      }
      bool letters = core_end - b >= 3;
      for (size_t k = b; k < core_end && letters; ++k) {
        letters = (text[k] | 0x20) >= 'a' && (text[k] | 0x20) <= 'z';
      }
      if (letters) out.push_back({p, b, core_end, sentence});
      const std::string_view tail = std::string_view(text).substr(core_end, e - core_end);
      if (tail.find_first_of(".!?") != std::string_view::npos) ++sentence;
    }
    ++sentence;  // a paragraph ends a sentence
  }
  return out;
}

// Replaces 1-3 words of one sentence of the item with other words.
// REQUIRES: EditableWords(*item) is not empty.
void EditSentence(std::vector<std::string>* item, Random& r) {
  const std::vector<WordRef> words = EditableWords(*item);
  std::vector<size_t> sentences;
  for (const WordRef& w : words) {
    if (sentences.empty() || sentences.back() != w.sentence) sentences.push_back(w.sentence);
  }
  const size_t sentence = sentences[r.Below(sentences.size())];
  std::vector<WordRef> in;
  for (const WordRef& w : words) {
    if (w.sentence == sentence) in.push_back(w);
  }
  r.Shuffle(&in);
  in.resize(std::min<size_t>(in.size(), r.Between(1, 3)));
  // Right to left within a paragraph keeps earlier offsets valid.
  std::sort(in.begin(), in.end(), [](const WordRef& a, const WordRef& b) {
    return a.paragraph != b.paragraph ? a.paragraph < b.paragraph : a.begin > b.begin;
  });
  for (const WordRef& w : in) {
    std::string& text = (*item)[w.paragraph];
    std::string old = text.substr(w.begin, w.end - w.begin);
    std::string lower = old;
    for (char& c : lower) c = static_cast<char>(c | 0x20);
    std::string word;
    do {
      word = r.Pick(kEditWords);
    } while (word == lower);
    if (old[0] >= 'A' && old[0] <= 'Z') word = Capitalized(word);
    text.replace(w.begin, w.end - w.begin, word);
  }
}

class Planner {
 public:
  Planner(const SynthOptions& options, Pool* pool) : options_(options), pool_(pool) {}

  Plan Build() {
    PlanSites();
    AllocateItems();
    PlanCopies();
    PlanParked();
    return std::move(plan_);
  }

 private:
  // Sites with page counts; templates go to the sites with most pages
  // first, rich templates before poor ones; a site without one is dropped.
  void PlanSites() {
    Random r(options_.seed, kStreamSites);
    const uint32_t cap = std::clamp<uint32_t>(options_.sites, 3, kMaxPagesPerSite);
    std::vector<uint32_t> planned(options_.sites);
    for (uint32_t& n : planned) n = static_cast<uint32_t>(r.Pareto(kSitePagesAlpha, cap));
    std::vector<uint32_t> order(options_.sites);
    for (uint32_t i = 0; i < options_.sites; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return planned[a] > planned[b]; });
    std::vector<const TemplateCandidate*> chosen(options_.sites, nullptr);
    size_t next_rich = 0, next_poor = 0;
    for (uint32_t i : order) {
      const TemplateCandidate* c = nullptr;
      const bool want_rich = planned[i] > 1;
      if (want_rich && next_rich < pool_->rich.size()) {
        c = &pool_->rich[next_rich++];
      } else if (next_poor < pool_->poor.size()) {
        c = &pool_->poor[next_poor++];
      } else if (next_rich < pool_->rich.size()) {
        c = &pool_->rich[next_rich++];
      }
      chosen[i] = c;
    }
    for (uint32_t i = 0; i < options_.sites; ++i) {
      if (chosen[i] == nullptr) {
        ++plan_.sites_not_built;
        continue;
      }
      Site site = MakeSite(static_cast<uint32_t>(plan_.sites.size()), planned[i], r);
      PrepareTemplate(*chosen[i], &site);
      plan_.sites.push_back(std::move(site));
    }
  }

  Site MakeSite(uint32_t id, uint32_t planned, Random& r) {
    Site s;
    s.id = id;
    s.planned_pages = planned;
    s.database = r.Chance(kDatabaseShare);
    s.dynamic = r.Chance(kDynamicShare);
    s.scheme = r.Chance(0.4) ? "https" : "http";
    do {
      s.label = NewLabel(r);
      s.host = "www." + s.label + "." + Tld(r);
    } while (!hosts_.Take(s.host));
    s.brand = Capitalized(s.label);
    if (!s.dynamic && r.Chance(0.3)) {
      // A static site without volatile text.
    } else {
      s.show_time = r.Chance(0.8);
      s.show_gen = r.Chance(0.5);
      s.show_visitors = r.Chance(0.35);
      s.show_server = r.Chance(0.4);
      s.show_request = r.Chance(0.4);
      s.show_version = r.Chance(0.35);
      s.show_url = r.Chance(0.3);
      if (!(s.show_time || s.show_gen || s.show_visitors || s.show_server || s.show_request ||
            s.show_version || s.show_url)) {
        s.show_time = true;
      }
    }
    s.time_format = static_cast<uint32_t>(r.Below(kTimeFormats));
    s.time_label = static_cast<uint32_t>(r.Below(5));
    s.gen_format = static_cast<uint32_t>(r.Below(4));
    s.visitors_format = static_cast<uint32_t>(r.Below(3));
    s.server_format = static_cast<uint32_t>(r.Below(3));
    s.request_format = static_cast<uint32_t>(r.Below(4));
    s.version_format = static_cast<uint32_t>(r.Below(3));
    s.url_format = static_cast<uint32_t>(r.Below(3));
    s.separator = static_cast<uint32_t>(r.Below(4));
    s.header_class =
        static_cast<uint32_t>(r.Below(std::size(synth_internal::kVolatileSlotClasses)));
    s.footer_class =
        static_cast<uint32_t>(r.Below(std::size(synth_internal::kVolatileSlotClasses)));
    s.servers = static_cast<uint32_t>(r.Between(2, 24));
    s.visitors_daily = r.Between(20, 20000);
    s.visitors_base = r.Between(1000, 2000000);
    s.version_major = static_cast<uint32_t>(r.Between(1, 9));
    s.version_minor = static_cast<uint32_t>(r.Between(0, 20));
    s.version_patch = static_cast<uint32_t>(r.Between(0, 40));
    s.deploy_days = static_cast<uint32_t>(r.Between(3, 30));
    s.session_style = static_cast<uint32_t>(r.Below(3));
    static const char* const kJava[] = {"Apache-Coyote/1.1", "Apache Tomcat/9.0.83",
                                        "Jetty(9.4.53.v20231009)"};
    static const char* const kOther[] = {"nginx/1.24.0", "Microsoft-IIS/10.0",
                                         "Apache/2.4.58 (Ubuntu)"};
    static const char* const kPhp[] = {"Apache/2.4.57 (Debian)", "nginx/1.22.1", "LiteSpeed"};
    s.server_software = s.session_style == 0   ? r.Pick(kJava)
                        : s.session_style == 1 ? r.Pick(kOther)
                                               : r.Pick(kPhp);
    s.path_style = static_cast<uint32_t>(s.database ? 3 + r.Below(3) : r.Below(3));
    s.id_base = s.database ? r.Between(10000, 900000) : r.Between(1, 5000);
    s.accession_prefix = s.path_style == 5 ? std::string{static_cast<char>('A' + r.Below(26)),
                                                         static_cast<char>('A' + r.Below(26))}
                                           : "";
    const size_t sections = planned <= 3 ? 1 : 2 + r.Below(5);
    std::vector<std::string> pool;
    if (s.database) {
      pool.assign(std::begin(kDatabaseSections), std::end(kDatabaseSections));
    } else {
      pool.assign(std::begin(kSections), std::end(kSections));
    }
    r.Shuffle(&pool);
    s.sections.assign(pool.begin(),
                      pool.begin() + static_cast<std::ptrdiff_t>(std::min(sections, pool.size())));
    return s;
  }

  // Items in rounds (page 0 of every site, then page 1, ...), so a pool
  // that runs short trims the tails of the big sites, not whole sites.
  // Paragraphs are read in a seeded order of pool pages, each page's in
  // document order (an item of several paragraphs is mostly one article's).
  void AllocateItems() {
    Random r(options_.seed, kStreamItems);
    std::vector<uint32_t> doc_order(pool_->pages);
    for (uint32_t i = 0; i < doc_order.size(); ++i) doc_order[i] = i;
    r.Shuffle(&doc_order);
    std::vector<std::vector<uint32_t>> by_doc(pool_->pages);
    for (uint32_t i = 0; i < pool_->paragraphs.size(); ++i)
      by_doc[pool_->paragraphs[i].doc].push_back(i);
    order_.clear();
    for (uint32_t d : doc_order) order_.insert(order_.end(), by_doc[d].begin(), by_doc[d].end());
    used_.assign(pool_->paragraphs.size(), false);

    uint32_t rounds = 0;
    for (const Site& s : plan_.sites) rounds = std::max(rounds, s.planned_pages);
    bool exhausted = false;
    for (uint32_t k = 0; k < rounds; ++k) {
      for (Site& site : plan_.sites) {
        if (k >= site.planned_pages) continue;
        std::vector<std::string> item;
        if (!exhausted) item = site.database ? TakeDatabaseItem(r) : TakeItem(r);
        if (item.empty()) {
          exhausted = true;
          ++plan_.pages_not_built;
          continue;
        }
        AddPage(&site, std::move(item), r);
      }
    }
  }

  std::vector<std::string> TakeItem(Random& r) {
    const size_t want = 1 + r.Weighted(kItemParagraphWeights);
    std::vector<std::string> item;
    while (item.size() < want && next_ < order_.size()) {
      const uint32_t i = order_[next_++];
      if (used_[i]) continue;
      used_[i] = true;
      item.push_back(pool_->paragraphs[i].text);
    }
    plan_.paragraphs_used += item.size();
    return item;
  }

  std::vector<std::string> TakeDatabaseItem(Random& r) {
    while (next_long_ < order_.size()) {
      const uint32_t i = order_[next_long_++];
      if (used_[i] || pool_->paragraphs[i].words < kDatabaseMinWords) continue;
      used_[i] = true;
      ++plan_.paragraphs_used;
      const std::vector<std::string_view> words = SplitWords(pool_->paragraphs[i].text);
      const size_t keep =
          std::min<size_t>(words.size(), r.Between(kDatabaseMinWords, kDatabaseMaxWords));
      std::string cut;
      for (size_t w = 0; w < keep; ++w) {
        if (w) cut.push_back(' ');
        cut.append(words[w]);
      }
      return {cut};
    }
    return {};
  }

  void AddPage(Site* site, std::vector<std::string> item, Random& r) {
    Page page;
    page.site = site->id;
    page.number = static_cast<uint32_t>(site->pages.size());
    page.item = std::move(item);
    page.seed = r.Next();
    page.modified = kCrawlStart - static_cast<int64_t>(r.Between(3600, 900 * 86400));
    const uint64_t n = site->id_base + page.number;
    if (page.number == 0) {
      page.path = "/";
    } else {
      page.section = static_cast<int>(r.Below(site->sections.size()));
      const std::string& sec = site->sections[static_cast<size_t>(page.section)];
      const std::string num = std::to_string(n);
      switch (site->path_style) {
        case 0: page.path = "/" + sec + "/" + Slug(page.item, r) + "-" + num + ".html"; break;
        case 1: page.path = "/" + sec + "/" + Slug(page.item, r) + "-" + num + "/"; break;
        case 2: page.path = "/" + sec + "/article.php?id=" + num; break;
        case 3: page.path = "/" + sec + "/record.php?id=" + num; break;
        case 4: page.path = "/db/" + sec + "/" + num; break;
        default: page.path = "/cgi-bin/" + sec + ".pl?acc=" + site->accession_prefix + num; break;
      }
    }
    page.url = site->scheme + "://" + site->host + page.path;
    urls_.Take(page.url);
    page.title = PageTitle(*site, page, n);
    site->pages.push_back(static_cast<uint32_t>(plan_.pages.size()));
    plan_.pages.push_back(std::move(page));
  }

  Record NewRecord(Kind kind, uint32_t owner, std::string url, Random& r) {
    Record rec;
    rec.kind = kind;
    rec.owner = owner;
    rec.url = std::move(url);
    rec.fetch_time = kCrawlStart + static_cast<int64_t>(r.Below(kCrawlSeconds));
    rec.seed = r.Next();
    return rec;
  }

  // A URL not used yet: `make` is tried a few times, then given a random
  // query parameter.
  std::string UniqueUrl(const std::function<std::string()>& make, Random& r) {
    std::string url;
    for (int attempt = 0; attempt < 8; ++attempt) {
      url = make();
      if (urls_.Take(url)) return url;
    }
    for (;;) {
      std::string u = url + (url.find('?') == std::string::npos ? "?v=" : "&v=") + Hex(r, 6, false);
      if (urls_.Take(u)) return u;
    }
  }

  static std::string WithParameter(const std::string& path, const std::string& param) {
    return path + (path.find('?') == std::string::npos ? "?" : "&") + param;
  }

  // Another URL of the same page on the same host.
  std::string AliasUrl(const Site& site, const Page& page, Random& r) {
    std::string path = page.path;
    std::string scheme = site.scheme;
    const size_t pick = r.Weighted({40, 35, 15, 10});
    if (pick == 0) {
      static const char* const kParams[] = {"ref", "utm_source", "from", "src"};
      std::string param = std::string(r.Pick(kParams)) + "=" + r.Pick(kRefWords);
      if (param.rfind("utm_source", 0) == 0)
        param += std::string("&utm_medium=") + r.Pick(kRefWords);
      path = WithParameter(path, param);
    } else if (pick == 1) {
      if (page.number == 0) {
        static const char* const kIndex[] = {"/index.html", "/index.php", "/index.htm",
                                             "/default.aspx", "/index.jsp"};
        path = r.Pick(kIndex);
      } else if (site.path_style == 0) {
        // Case-insensitive servers: /News/Senate-Passes-3.html
        bool up = true;
        for (char& c : path) {
          if (up && c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
          up = c == '/' || c == '-';
        }
      } else if (site.path_style == 1) {
        path = r.Chance(0.5) ? path.substr(0, path.size() - 1) : path + "index.html";
      } else if (site.path_style == 4) {
        path += "/";
      } else {
        path = WithParameter(path, r.Chance(0.5) ? "lang=en" : "print=0");
      }
    } else if (pick == 2) {
      scheme = scheme == "http" ? "https" : "http";
    } else {
      path = "/" + path;  // http://host//news/...
    }
    return scheme + "://" + site.host + path;
  }

  // The same page with other markup, on the same host.
  std::string MarkupUrl(const Site& site, const Page& page, Random& r) {
    const size_t pick = r.Below(4);
    std::string path;
    if (pick == 0) {
      path = "/m" + page.path;
    } else if (pick == 1) {
      path = "/amp" + page.path;
    } else {
      static const char* const kParams[] = {"view=mobile", "output=amp", "layout=2",
                                            "theme=classic"};
      path = WithParameter(page.path, r.Pick(kParams));
    }
    return site.scheme + "://" + site.host + path;
  }

  std::string SessionId(const Site& site, Random& r) {
    if (site.session_style == 0) return Hex(r, 32, true);
    if (site.session_style == 1) return Hex(r, 32, false);
    static const char kChars[] = "0123456789abcdefghijklmnopqrstuv";
    std::string s;
    for (int i = 0; i < 26; ++i) s.push_back(kChars[r.Below(32)]);
    return s;
  }

  struct Scraper {
    std::string scheme, host;
    uint32_t style = 0;
    uint64_t next = 1;
  };

  uint32_t NewScraper(Random& r) {
    Scraper s;
    s.scheme = r.Chance(0.5) ? "https" : "http";
    do {
      const std::string a = r.Pick(kHostWords), b = r.Pick(kHostWords);
      switch (r.Below(4)) {
        case 0: s.host = "www." + a + b + ".com"; break;
        case 1: s.host = a + "-" + b + "-news.com"; break;
        case 2: s.host = a + b + std::to_string(r.Between(1, 99)) + ".blogspot.com"; break;
        default: s.host = "www." + a + "feed" + std::to_string(r.Between(1, 999)) + ".net"; break;
      }
    } while (!hosts_.Take(s.host));
    s.style = static_cast<uint32_t>(r.Below(4));
    s.next = r.Between(1, 30000);
    scrapers_.push_back(std::move(s));
    ++plan_.scraper_hosts;
    return static_cast<uint32_t>(scrapers_.size() - 1);
  }

  std::string ScrapedUrl(uint32_t scraper, const Page& page, int64_t fetch_time, Random& r) {
    Scraper& s = scrapers_[scraper];
    const uint64_t n = s.next++;
    std::string path;
    const DateTime d = ToDateTime(fetch_time);
    char ym[16];
    std::snprintf(ym, sizeof ym, "%04d/%02u", d.year, d.month);
    switch (s.style) {
      case 0: path = "/" + std::string(ym) + "/" + Slug(page.item, r) + ".html"; break;
      case 1: path = "/?p=" + std::to_string(n); break;
      case 2: path = "/" + Slug(page.item, r) + "-" + std::to_string(n) + "/"; break;
      default: path = "/news/" + std::to_string(n) + ".html"; break;
    }
    return s.scheme + "://" + s.host + path;
  }

  void PlanCopies() {
    Random r(options_.seed, kStreamCopies);
    std::vector<uint32_t> scraped;  // scraper of each sentence-edit copy so far
    for (Site& site : plan_.sites) {
      // Mirrors: whole sites or one section, on their own host.
      if (site.pages.size() >= 2 && options_.max_copies > 0 && r.Chance(kMirroredShare)) {
        std::string host;
        do {
          const std::string w = r.Pick(kHostWords);
          switch (r.Below(3)) {
            case 0: host = "mirror." + site.label + "." + Tld(r); break;
            case 1: host = site.label + ".mirrors." + w + ".net"; break;
            default: host = "www." + site.label + "-archive.org"; break;
          }
        } while (!hosts_.Take(host));
        site.mirror_host = host;
        site.mirror_scheme = "http";
        if (site.sections.size() >= 2 && r.Chance(kMirrorSectionShare)) {
          const uint32_t p = site.pages[1 + r.Below(site.pages.size() - 1)];
          site.mirror_section = plan_.pages[p].section;
        }
        ++plan_.mirror_hosts;
      }
      for (uint32_t pi : site.pages) {
        const Page& page = plan_.pages[pi];
        plan_.records.push_back(NewRecord(Kind::kOriginal, pi, page.url, r));
        uint64_t budget = options_.max_copies;
        if (!site.mirror_host.empty() &&
            (site.mirror_section < 0 || site.mirror_section == page.section)) {
          std::string url = site.mirror_scheme + "://" + site.mirror_host + page.path;
          urls_.Take(url);
          plan_.records.push_back(NewRecord(Kind::kMirror, pi, std::move(url), r));
          --budget;
        }
        uint64_t copies =
            r.Chance(kPageHasCopies) ? r.Pareto(kCopiesAlpha, options_.max_copies) : 0;
        copies = std::min(copies, budget);
        const bool editable = !EditableWords(page.item).empty();
        std::vector<uint32_t> scrapers_of_page;  // a scraper republishes a page once
        for (uint64_t c = 0; c < copies; ++c) {
          Kind kind;
          switch (r.Weighted({30, 25, 15, 30})) {
            case 0: kind = Kind::kAlias; break;
            case 1: kind = Kind::kSessionId; break;
            case 2: kind = Kind::kMarkup; break;
            default: kind = editable ? Kind::kSentenceEdit : Kind::kAlias; break;
          }
          Record rec = NewRecord(kind, pi, "", r);
          switch (kind) {
            case Kind::kAlias:
              rec.url = UniqueUrl([&] { return AliasUrl(site, page, r); }, r);
              break;
            case Kind::kMarkup:
              rec.url = UniqueUrl([&] { return MarkupUrl(site, page, r); }, r);
              break;
            case Kind::kSessionId: {
              rec.session_id = SessionId(site, r);
              std::string path = page.path;
              if (site.session_style == 0) {
                const size_t q = path.find('?');
                path.insert(q == std::string::npos ? path.size() : q,
                            ";jsessionid=" + rec.session_id);
              } else {
                path = WithParameter(
                    path, (site.session_style == 1 ? "sid=" : "PHPSESSID=") + rec.session_id);
              }
              rec.url = site.scheme + "://" + site.host + path;
              urls_.Take(rec.url);
              break;
            }
            default: {
              uint32_t scraper;
              if (scraped.empty() || r.Chance(kNewScraperHost)) {
                scraper = NewScraper(r);
              } else {
                scraper = scraped[r.Below(scraped.size())];
                if (std::find(scrapers_of_page.begin(), scrapers_of_page.end(), scraper) !=
                    scrapers_of_page.end()) {
                  scraper = NewScraper(r);
                }
              }
              scraped.push_back(scraper);
              scrapers_of_page.push_back(scraper);
              rec.url = UniqueUrl([&] { return ScrapedUrl(scraper, page, rec.fetch_time, r); }, r);
              break;
            }
          }
          plan_.records.push_back(std::move(rec));
        }
      }
    }
  }

  void PlanParked() {
    Random r(options_.seed, kStreamParked);
    static const char* const kBrands[] = {
        "DomainMarket Pro",  "NameVault",      "Parkwise Domains", "BrightNames Ltd",
        "Registra Holdings", "AcquireDomains", "Domainora"};
    static const char* const kPrices[] = {"$2,499", "$9,800",  "USD 1,250", "€1.950",
                                          "£995",   "$24,000", "$4,750"};
    static const char* const kServers[] = {"nginx", "Apache", "openresty", "Parking/1.0"};
    for (uint32_t id = 0; id < options_.parked_registrars; ++id) {
      Registrar g;
      g.id = id;
      g.brand = id < std::size(kBrands)
                    ? std::string(kBrands[id])
                    : Capitalized(r.Pick(kHostWords)) + Capitalized(r.Pick(kHostWords)) + " Names";
      std::string mail_domain;
      for (char c : g.brand) {
        if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')
          mail_domain.push_back(static_cast<char>(c | 0x20));
      }
      g.email = "sales@" + mail_domain + ".com";
      char phone[32];
      std::snprintf(phone, sizeof phone, "+1 555 01%02u %04u", static_cast<unsigned>(r.Below(100)),
                    static_cast<unsigned>(r.Below(10000)));
      g.phone = phone;
      g.price = kPrices[id % std::size(kPrices)];
      g.server_software = r.Pick(kServers);
      g.time_format = static_cast<uint32_t>(r.Below(kTimeFormats));
      // P(n >= k) = 2/k for k >= 2.
      const double x = std::floor(2.0 / (1.0 - r.Unit()));
      const uint64_t domains = x >= kMaxParkedDomains
                                   ? kMaxParkedDomains
                                   : std::max<uint64_t>(2, static_cast<uint64_t>(x));
      for (uint64_t d = 0; d < domains; ++d) {
        std::string domain;
        do {
          const std::string a = r.Pick(kHostWords), b = r.Pick(kEditWords);
          switch (r.Below(6)) {
            case 0: domain = a + b + ".com"; break;
            case 1: domain = a + "-" + b + ".net"; break;
            case 2: domain = b + a + std::to_string(r.Between(1, 99)) + ".org"; break;
            case 3: domain = "my" + a + ".info"; break;
            case 4: domain = b + a + ".biz"; break;
            default: domain = "the" + a + b + ".co"; break;
          }
        } while (!hosts_.Take(domain));
        const std::string url = "http://" + domain + "/";
        urls_.Take(url);
        Record rec = NewRecord(Kind::kParked, id, url, r);
        rec.domain = static_cast<uint32_t>(g.domains.size());
        g.domains.push_back(domain);
        plan_.records.push_back(std::move(rec));
      }
      plan_.registrars.push_back(std::move(g));
    }
  }

  const SynthOptions& options_;
  Pool* pool_;
  Plan plan_;
  NameSet hosts_, urls_;
  std::vector<uint32_t> order_;
  std::vector<bool> used_;
  size_t next_ = 0, next_long_ = 0;
  std::vector<Scraper> scrapers_;
};

// ---- 3. Render and write --------------------------------------------------

// The volatile slots of one rendering: drawn from `r` at time `t`.
struct Volatile {
  std::string header, footer;
};

Volatile RenderVolatile(const Site& s, Random& r, int64_t t, const std::string& shown_url) {
  static const char* const kSeparators[] = {" | ", " \xC2\xB7 ", " - ", "<br>\n"};
  static const char* const kTimeLabels[] = {"Last updated: ", "Generated ", "Updated ", "",
                                            "As of "};
  std::vector<std::string> head, foot;
  if (s.show_time) head.push_back(kTimeLabels[s.time_label] + FormatTime(t, s.time_format));
  std::string version;
  if (s.show_version) {
    const int64_t since = t - kCrawlStart;
    const uint32_t patch =
        s.version_patch + (since > 0 ? static_cast<uint32_t>(since / (s.deploy_days * 86400)) : 0);
    char buf[48];
    static const char* const kVersion[] = {"v%u.%u.%u", "Version %u.%u.%u", "build %u.%u.%u"};
    std::snprintf(buf, sizeof buf, kVersion[s.version_format], s.version_major, s.version_minor,
                  patch);
    version = buf;
    head.push_back(version);
  }
  char buf[160];
  if (s.show_gen) {
    const double secs = 0.004 + r.Unit() * 1.2;
    switch (s.gen_format) {
      case 0: std::snprintf(buf, sizeof buf, "Page generated in %.4f seconds", secs); break;
      case 1:
        std::snprintf(buf, sizeof buf, "Rendered in %d ms", static_cast<int>(secs * 1000));
        break;
      case 2: std::snprintf(buf, sizeof buf, "Execution time: %.3fs", secs); break;
      default: std::snprintf(buf, sizeof buf, "Processed in %.2f sec.", secs); break;
    }
    foot.emplace_back(buf);
  }
  if (s.show_visitors) {
    const uint64_t days = static_cast<uint64_t>(std::max<int64_t>(0, t - kCounterEpoch) / 86400);
    const uint64_t v =
        s.visitors_base + days * s.visitors_daily + r.Below(s.visitors_daily / 4 + 1);
    switch (s.visitors_format) {
      case 0: foot.push_back("You are visitor number " + WithCommas(v)); break;
      case 1: foot.push_back("Visitors: " + std::to_string(v)); break;
      default: foot.push_back("Hits: " + WithCommas(v)); break;
    }
  }
  if (s.show_server) {
    const auto n = static_cast<unsigned>(r.Between(1, s.servers));
    switch (s.server_format) {
      case 0: std::snprintf(buf, sizeof buf, "Served by web%02u", n); break;
      case 1: std::snprintf(buf, sizeof buf, "Server: app-%02u", n); break;
      default: std::snprintf(buf, sizeof buf, "node www%u", n); break;
    }
    foot.emplace_back(buf);
  }
  if (s.show_request) {
    switch (s.request_format) {
      case 0: foot.push_back("Request ID: " + Hex(r, 32, false)); break;
      case 1: foot.push_back("Message-ID: " + Hex(r, 16, false)); break;
      case 2: foot.push_back("ref #" + Hex(r, 12, true)); break;
      default:
        foot.push_back("Trace " + Hex(r, 8, false) + "-" + Hex(r, 4, false) + "-" +
                       Hex(r, 4, false));
        break;
    }
  }
  if (s.show_version) foot.push_back(version);
  if (s.show_url) {
    static const char* const kUrlLabels[] = {"Permalink: ", "You are here: ", "URL: "};
    foot.push_back(kUrlLabels[s.url_format] + shown_url);
  }
  auto join = [&](const std::vector<std::string>& parts) {
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i) out += kSeparators[s.separator];
      out += parts[i];
    }
    return out;
  };
  Volatile v;
  if (!head.empty()) {
    v.header = std::string("<div class=\"") + synth_internal::kVolatileSlotClasses[s.header_class] +
               "\">" + join(head) + "</div>\n";
  }
  if (!foot.empty()) {
    v.footer = std::string("\n<div class=\"") +
               synth_internal::kVolatileSlotClasses[s.footer_class] + "\">" + join(foot) +
               "</div>\n";
  }
  return v;
}

std::string SessionParameter(const Site& s) {
  return s.session_style == 0 ? "jsessionid" : s.session_style == 1 ? "sid" : "PHPSESSID";
}

std::string RenderSitePage(const Plan& plan, const Record& rec) {
  const Page& page = plan.pages[rec.owner];
  const Site& site = plan.sites[page.site];
  // Dynamic sites render every fetch anew; static ones once per page.
  Random vr(site.dynamic ? rec.seed : page.seed, kStreamVolatile);
  const int64_t t =
      site.dynamic ? rec.fetch_time - static_cast<int64_t>(vr.Below(4)) : page.modified;
  const std::string& shown_url = site.dynamic || rec.kind == Kind::kMirror ? rec.url : page.url;
  const Volatile v = RenderVolatile(site, vr, t, shown_url);

  std::vector<std::string> edited;
  const std::vector<std::string>* item = &page.item;
  if (rec.kind == Kind::kSentenceEdit) {
    edited = page.item;
    Random er(rec.seed, kStreamEdit);
    EditSentence(&edited, er);
    item = &edited;
  }
  std::string html;
  for (const Segment& seg : site.segments) {
    html += seg.literal;
    switch (seg.slot) {
      case Slot::kTitle: html += page.title; break;
      case Slot::kHeader:
        html += "\n<form class=\"site-search\" action=\"/search\" method=\"get\">";
        if (rec.kind == Kind::kSessionId) {
          html += "<input type=\"hidden\" name=\"" + SessionParameter(site) + "\" value=\"" +
                  rec.session_id + "\">";
        }
        html += "<input type=\"text\" name=\"q\" size=\"24\"></form>\n" + v.header;
        break;
      case Slot::kItem:
        for (const std::string& p : *item) html += "<p>" + p + "</p>\n";
        break;
      case Slot::kFooter: html += v.footer; break;
      case Slot::kNone: break;
    }
  }
  switch (rec.kind) {
    case Kind::kSessionId:
      return synth_internal::AddSessionToLinks(html, site.host, SessionParameter(site),
                                               rec.session_id, site.session_style == 0);
    case Kind::kMirror:
      return synth_internal::RewriteHosts(
          html, [&](std::string_view h) { return h == site.host; }, site.mirror_scheme,
          site.mirror_host);
    case Kind::kMarkup: return synth_internal::MutateMarkup(html, rec.seed);
    default: return html;
  }
}

// Parked pages (Henzinger: "Pages of domains for sale by the same
// organization differ usually only by the domain name"): six slots (title,
// heading, lead, offer, contact, statistics), seven wordings each; {D}
// domain (named 2-4 times: title, heading, and some leads and contacts), {B}
// brand, {P} price, {E} e-mail, {T} phone, {S} timestamp, {C} counter. Each
// page has 55-80 words.
const char* const kParkedSlots[6][kParkedVariants] = {
    {"{D} is for sale", "{D} - Buy this domain", "Welcome to {D}", "{D} | Domain parked by {B}",
     "Inquire about {D}", "{D}: premium domain name", "The domain name {D}"},
    {"{D}", "Interested in {D}?", "{D} is parked", "Make {D} yours today",
     "Premium domain {D} for sale", "{D} may be for sale", "Own {D} today"},
    {"The domain {D} is for sale! This premium name is offered by {B}, and secure transfer with "
     "escrow is included with every purchase.",
     "This domain name is available for purchase. {B} represents the owner and handles all "
     "inquiries about the name quickly and confidentially.",
     "{D} has been registered and parked with {B}. The owner is open to offers from serious buyers "
     "who want a memorable address.",
     "Looking for a short and brandable web address? The name {D} could be the start of your next "
     "business, blog or online store.",
     "You have reached a parked page. The owner of this name works with {B} to find the right "
     "buyer for it.",
     "Great names sell fast. This one is listed on the {B} marketplace together with thousands of "
     "other carefully chosen domains.",
     "Start your online presence with a name people remember. {D} is currently listed for sale "
     "through our brokerage service."},
    {"Buy it now for {P}, or make an offer.",
     "Asking price: {P}. Payment plans are available on request.",
     "Listed at {P}; lower offers will be considered.",
     "Minimum offer {P}. Financing is possible for qualified buyers.",
     "Price {P} including transfer fees and support.",
     "Make an offer above {P} and our team will respond within one business day.",
     "The current price is {P}. Ask about lease to own."},
    {"To make an offer, contact our brokers at {E} or call {T}.",
     "Send us your best offer today through our inquiry form or email {E}.",
     "Questions? Write to {E} and mention {D} in your message.",
     "Call {T} or email {E}; a broker will get back to you.",
     "Contact {B} at {E} to discuss the purchase.",
     "Phone {T}, Monday to Friday, or reach us at {E}.",
     "Reply to {E} with your offer and your phone number."},
    {"Listed since {S}. This page has been viewed {C} times.", "Updated {S} | Visitors {C}",
     "Last checked {S}. Visits this month: {C}.", "Page generated {S}, {C} views.",
     "{C} people looked at this domain. Status as of {S}.",
     "Offer page refreshed on {S}; counter {C}.", "Statistics: {C} visits, last update {S}."},
};

std::string RenderParkedPage(const Plan& plan, const Record& rec) {
  const Registrar& g = plan.registrars[rec.owner];
  const std::string& domain = g.domains[rec.domain];
  Random r(rec.seed, kStreamVolatile);
  const std::string stamp = FormatTime(rec.fetch_time, g.time_format);
  const std::string counter = WithCommas(r.Between(100, 999999));
  const uint32_t a = g.id % kParkedVariants, b = g.id / kParkedVariants;
  auto slot = [&](uint32_t j) {
    std::string s = kParkedSlots[j][(a + b * j) % kParkedVariants];
    const std::pair<const char*, const std::string*> vars[] = {
        {"{D}", &domain},  {"{B}", &g.brand}, {"{P}", &g.price}, {"{E}", &g.email},
        {"{T}", &g.phone}, {"{S}", &stamp},   {"{C}", &counter}};
    for (const auto& [key, value] : vars) {
      for (size_t k = s.find(key); k != std::string::npos; k = s.find(key, k + value->size())) {
        s.replace(k, 3, *value);
      }
    }
    return s;
  };
  const DateTime d = ToDateTime(rec.fetch_time);
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
         slot(0) +
         "</title>\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<style>body{font-family:Arial,sans-serif;margin:0}.wrap{max-width:720px;margin:40px auto}"
         ".offer{font-weight:bold}</style>\n</head>\n<body>\n<div class=\"wrap\">\n<h1>" +
         slot(1) + "</h1>\n<div class=\"lead\">" + slot(2) + "</div>\n<div class=\"offer\">" +
         slot(3) + "</div>\n<div class=\"contact\">" + slot(4) + "</div>\n<div class=\"stats\">" +
         slot(5) + "</div>\n</div>\n<div class=\"footer\">&copy; " + std::to_string(d.year) + " " +
         g.brand + "</div>\n</body>\n</html>\n";
}

std::string GroupOf(const Plan& plan, const Record& rec) {
  if (rec.kind == Kind::kParked) return "parked/" + std::to_string(rec.owner);
  const Page& page = plan.pages[rec.owner];
  return "s" + std::to_string(page.site) + "/p" + std::to_string(page.number);
}

Status WriteCrawl(const SynthOptions& options, Env* env, Plan* plan, SynthSummary* summary) {
  Random r(options.seed, kStreamOrder);
  r.Shuffle(&plan->records);

  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> warc_file,
                           env->NewWritableFile(options.out_warc));
  io::WarcWriterOptions warc_options;
  warc_options.seed = options.seed;
  warc_options.default_date = FormatTime(kCrawlStart, kFormatIso);
  io::WarcWriter writer(warc_file.get(), warc_options);
  NEARDUP_RETURN_IF_ERROR(writer.WriteWarcinfo(
      Basename(options.out_warc),
      {{"software", "neardup synth"},
       {"format", "WARC File Format 1.1"},
       {"description",
        "Synthetic labelled near-duplicate benchmark built from real pages; truth in " +
            Basename(options.out_truth)},
       {"neardup-seed", std::to_string(options.seed)}}));
  std::string truth = "url\tgroup\tkind\n";
  for (const Record& rec : plan->records) {
    std::string body;
    io::WarcResponse response;
    if (rec.kind == Kind::kParked) {
      body = RenderParkedPage(*plan, rec);
      response.content_type = "text/html";
      response.headers = {{"Date", FormatTime(rec.fetch_time, kFormatHttp)},
                          {"Server", plan->registrars[rec.owner].server_software}};
    } else {
      body = RenderSitePage(*plan, rec);
      const Site& site = plan->sites[plan->pages[rec.owner].site];
      response.content_type = site.declares_charset ? "text/html" : "text/html; charset=utf-8";
      response.headers = {{"Date", FormatTime(rec.fetch_time, kFormatHttp)},
                          {"Server", site.server_software}};
    }
    response.url = rec.url;
    response.date = FormatTime(rec.fetch_time, kFormatIso);
    response.status = 200;
    response.body = body;
    NEARDUP_RETURN_IF_ERROR(writer.WriteResponse(response));
    summary->bytes += body.size();
    ++summary->pages;
    ++summary->pages_by_kind[KindName(rec.kind)];
    truth += rec.url + "\t" + GroupOf(*plan, rec) + "\t" + KindName(rec.kind) + "\n";
  }
  NEARDUP_RETURN_IF_ERROR(writer.Close());
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> truth_file,
                           env->NewWritableFile(options.out_truth));
  NEARDUP_RETURN_IF_ERROR(truth_file->Append(truth));
  return truth_file->Close();
}

}  // namespace

Status SynthOptions::Validate() const {
  if (inputs.empty())
    return Status::InvalidArgument("SynthOptions.inputs: give at least one input of pool pages");
  if (out_warc.empty())
    return Status::InvalidArgument("SynthOptions.out_warc: the crawl's path is empty");
  if (out_truth.empty())
    return Status::InvalidArgument("SynthOptions.out_truth: the truth file's path is empty");
  if (out_warc == out_truth) {
    return Status::InvalidArgument("SynthOptions.out_truth: must differ from out_warc (" +
                                   out_warc + ")");
  }
  if (sites < 1 || sites > 100000)
    return Status::InvalidArgument("SynthOptions.sites: must be in 1..100000");
  if (parked_registrars > kMaxRegistrars) {
    return Status::InvalidArgument("SynthOptions.parked_registrars: must be at most " +
                                   std::to_string(kMaxRegistrars) + " (distinct wordings)");
  }
  if (max_copies > 100000)
    return Status::InvalidArgument("SynthOptions.max_copies: must be at most 100000");
  return Status::OK();
}

Result<SynthSummary> BuildSyntheticCrawl(const SynthOptions& options, Env* env) {
  NEARDUP_RETURN_IF_ERROR(options.Validate());
  if (env == nullptr) env = Env::Default();
  Pool pool;
  NEARDUP_RETURN_IF_ERROR(ReadPool(options, env, &pool));
  Plan plan = Planner(options, &pool).Build();
  if (plan.pages.empty()) {
    return Status::NotFound("no site could be built from the pool (" +
                            std::to_string(pool.templates) + " templates, " +
                            std::to_string(pool.paragraphs.size()) + " paragraphs)");
  }
  SynthSummary s;
  s.documents_read = pool.documents;
  s.pool_pages = pool.pages;
  s.pool_templates = pool.templates;
  s.pool_paragraphs = pool.paragraphs.size();
  s.paragraphs_used = plan.paragraphs_used;
  s.sites_not_built = plan.sites_not_built;
  s.pages_not_built = plan.pages_not_built;
  s.mirror_hosts = plan.mirror_hosts;
  s.scraper_hosts = plan.scraper_hosts;
  s.parked_registrars = plan.registrars.size();
  for (const Registrar& g : plan.registrars) s.parked_domains += g.domains.size();
  for (const Site& site : plan.sites) {
    if (site.pages.empty()) {
      ++s.sites_not_built;  // the pool ran out of paragraphs before its first page
      continue;
    }
    ++s.sites;
    s.dynamic_sites += site.dynamic;
    s.database_sites += site.database;
    s.mirrored_sites += !site.mirror_host.empty();
    s.distinct_pages += site.pages.size();
    if (site.pages.size() >= 2) s.hard_negative_pages += site.pages.size();
  }
  s.groups = s.distinct_pages + s.parked_registrars;
  NEARDUP_RETURN_IF_ERROR(WriteCrawl(options, env, &plan, &s));
  return s;
}

}  // namespace neardup
