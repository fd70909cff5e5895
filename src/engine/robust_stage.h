// Copyright neardup authors. Licensed under Apache-2.0.
//
// The `robust` method: near duplicates as Henzinger defines *correct* ones
// ("Finding Near-Duplicate Web Pages: A Large-Scale Evaluation of
// Algorithms", §3.1: pages whose text differs only by a session id, a
// timestamp, an execution time, a message id, a visitor count, a server name
// and/or their URL shown in the text), without her typical false positive:
// pages of one site that share boilerplate and differ in their main item.
//
// 1. Volatile terms (per page, on the worker threads). A term with a digit
//    (timestamps, counters, execution times, session and message ids, server
//    names such as web07, version strings) becomes one class term, and so
//    does a month or weekday name or a time zone next to such a term ("Sat,
//    21 Nov 2026"); a run of class terms collapses to one (a visitor count of
//    999 and of 1,234 are alike). The page's own URL or host name shown in
//    its text (parked domains, permalinks) becomes another class term.
// 2. The normalized sequence gets an identity key (pages equal after step 1
//    are correct near duplicates by Henzinger's definition and are joined
//    directly) and m min-hash values of its k-term shingles (Broder): of
//    32-bit functions (hash=32, BroderSketcher::MinValues32), or of old
//    specs the low 32 bits of each 64-bit function's pre-image (hash=64).
// 3. Sites and their templates. Sites (Henzinger §1) that hold pages equal
//    after normalization (a mirror, a site served under two names) are one
//    site here. Over one page per normalized identity set, a min-hash value
//    that `template_min_pages` or more distinct pages of one site share at
//    the same position is that site's boilerplate; a site with that many
//    distinct pages has a known template. The set of boilerplate values is
//    global, so a page copied to another site carries its template's marks.
//    Values that few pages hold are boilerplate unless their holders are
//    copies of one item, and so are values up to kMaxItemVersions pages
//    hold unless their holders are versions of one item (SiteTemplates).
// 2b. Main text: the page's text blocks that are long and not mostly link
//    text (RobustMethodOptions::main_minhashes) get min-hash values of
//    their own, after the m of the whole page; boilerplate is learned on
//    them as on the rest.
// 4. Candidates: pages sharing a band of r consecutive min-hash values of
//    which at least one is not boilerplate (bands made only of boilerplate
//    would pair every page of a template-heavy site).
// 5. The rule (candidate pairs, except those whose two pages already have
//    near duplicates and are joined by the pairs before them, which could
//    change no cluster; and every member against its cluster's kept
//    page): over the m positions, leave out those where both pages hold the
//    same boilerplate value; the pair is similar when the pages agree on at
//    least `min_content_similarity` of the rest (an estimate of the Jaccard
//    resemblance of their non-boilerplate shingles), or when nothing is left
//    (both pages are just the template). Two pages of one site that are not
//    equal after normalization must moreover be on a site with a known
//    template: by Henzinger's definition pages of one site that differ in
//    more than volatile terms are not correct near duplicates unless what
//    differs is shown to be outside their shared boilerplate, and without
//    the template that cannot be told. Main text (RobustDecideMatched):
//    pages on different sites, or on one site whose template is known,
//    whose main texts agree on min_main_similarity of their positions
//    outside the boilerplate (those whose least value over both main texts
//    is not boilerplate: Match::main_similarity) are similar; pages on
//    different sites, or on
//    one site whose template is known, whose main texts agree on less are
//    not, whatever the rest. Containment
//    (RobustMethodOptions::min_main_containment): the same pages are
//    similar when the smaller main text is largely contained in the larger
//    (EstimateMainContainment), where the estimate is sure enough and the
//    whole pages agree no more than their main texts, or the two are of
//    one site whose template shows around their main texts and not in
//    them (ContainmentJudged in robust_stage.cc). Edits: pages whose
//    difference digests differ in max_edit_shingles or fewer (across sites,
//    up to a share of a long page: kEditShareOfPage) are similar whatever
//    else; and two large pages alike at nearly every position, boilerplate
//    or not, are similar (kLargePageShingles).
#ifndef NEARDUP_ENGINE_ROBUST_STAGE_H_
#define NEARDUP_ENGINE_ROBUST_STAGE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/flat_set.h"
#include "base/word_filter.h"
#include "cluster/union_find.h"
#include "engine/temp_tables.h"
#include "neardup/engine.h"
#include "neardup/env.h"
#include "neardup/executor.h"
#include "neardup/method.h"
#include "sketch/broder.h"
#include "text/tokenizer.h"

namespace neardup {

// The main-text rule decides a pair when at least 1 / kMainTextMinShare of
// the main-text positions are not shared boilerplate.
inline constexpr uint32_t kMainTextMinShare = 4;

// At most this many min-hash values a page (options.positions()).
inline constexpr uint32_t kMaxRobustPositions = 2048;

// Cells of a page's difference digest (max_edit_shingles > 0).
inline constexpr uint32_t kRobustDigestCells = 72;

// A page's title as the rule keeps it (RobustMethodOptions::compare_titles):
// the terms of its first <title> (TokenizedDocument::title_begin), each as
// 16 bits of its hash (never 0), in order, 0 after the last; a title of
// more terms keeps its first and its last kRobustTitleTerms / 2, where a
// site's name stands. kRobustTitleWords words a page. With `numbers`
// (RobustMethodOptions::title_numbers) a term's lowest bit says whether it
// is a number (kTitleNumberDigits digits or more: an id, a year), in place
// of that bit of its hash.
inline constexpr uint32_t kRobustTitleTerms = 16;
inline constexpr size_t kRobustTitleWords = kRobustTitleTerms / 4;
inline constexpr uint32_t kTitleNumberDigits = 4;
void PackRobustTitle(const TokenizedDocument& doc, bool numbers, uint64_t* out);

// Whether two titles (PackRobustTitle) name two items: past the terms they
// share at their start and at their end (a site's name, a section's), each
// holds more terms of its own than those, and no term of one's own part is
// in the other's. An article and its revision with a headline rewritten
// keep some of its words, or share more than they differ; two items of one
// template are named apart. With `numbers` (titles packed with numbers
// marked) also when each own part holds a number and none of one's numbers
// is the other's: a record, a bug, a thread, a year's report named by its
// number ("home record 173815", "people record 173816"), where a revision
// keeps its item's number. False when either page has no title.
bool TitlesNameTwoItems(const uint64_t* a, const uint64_t* b, bool numbers, bool function_words);
// The rule of numbers alone (titles packed with numbers marked).
bool TitlesNameTwoNumbers(const uint64_t* a, const uint64_t* b);

// Whole-page bands (RunRobustStage): pages sharing one of m / 14 bands of
// consecutive values are candidates even where every value is boilerplate;
// a bucket of more than 64 pages pairs its first page with the others only.
inline constexpr uint32_t kRobustWholeBandRows = 14;
inline constexpr uint32_t kRobustWholeBandBucket = 64;

// Pages holding one value that fewer than SiteTemplates::TemplateHolders
// pages of their site hold are copies of one item when they agree on at
// least this fraction of the positions where they do not share one of the
// site's common boilerplate values; their shared value is then content.
inline constexpr double kCopyContentSimilarity = 0.5;

// Versions of one item on its site: a value that the site's template
// share of its pages (SiteTemplates::TemplateHolders, three at least) to
// kMaxItemVersions pages hold, and not every page of the site, is
// boilerplate unless its holders are one item by the stricter rule (one
// item in one or two templates, or where no template is seen), their
// agreement counted outside the common values more pages hold: a page
// with its print and mobile versions or recrawls on a small site (three of
// ten pages, where the site's share alone would make them its template)
// teaches the site nothing. A value more pages hold, or every page of the
// site, is boilerplate by its share. Fixed beforehand, not tuned: an
// original, its print, mobile and AMP forms and a few recrawls or
// revisions.
inline constexpr uint32_t kMaxItemVersions = 8;

// An edit (RobustDecideMatched) is max_edit_shingles across sites and
// max_same_site_edit_shingles on one site, or one kEditShareOfPage-th of
// the smaller page's distinct shingles where that is more
// (RobustPageView::shingles): a mirror's banner and a sentence of an older
// release (30 to 40 shingles) in a manual page of 9,000 terms, or a
// sentence rewritten in a page and its revision on a small site whose
// template wins no position. The digests count at most about 58 differing
// shingles (kRobustDigestCells over 1.23, the peeling bound of three hash
// functions), so the share moves the limit on pages of 4,000 (one site) or
// 6,000 (across sites) to about 12,000 shingles. On one site Henzinger's
// database pages of one template differ in 10-30 consecutive tokens (28 to
// 68 shingles): the share passes that only on pages of 5,600 distinct
// shingles or more, where it is a sentence in a long text. Past
// max_edit_shingles, pages on different sites whose main texts differ
// (RobustMethodOptions::min_main_similarity) are not an edit apart: two
// sister sites' long template around short items.
inline constexpr uint32_t kEditShareOfPage = 200;

// Large pages (RobustDecideMatched): where both pages hold at least
// kLargePageShingles distinct shingles and their whole sketches agree at
// kLargePageAgreement of the m positions, boilerplate or not, they are near
// duplicates whatever their site's template. A page that holds other pages
// of its site (a manual on one page beside its chapters, a print version)
// shares all its min-hash values with them, so every value reads as
// boilerplate, and its copies differ in more than the digests can count
// (kRobustDigestCells); at this length an item that differs and wins no
// position is under a twentieth of the page (Broder's resemblance of such
// a pair is about 0.9 or more), not a different main item in a template.
inline constexpr uint32_t kLargePageShingles = 50000;
inline constexpr double kLargePageAgreement = 0.95;

// Class terms standing for volatile terms and for the page's own URL.
inline constexpr uint64_t kVolatileTermHash = 0x766f6c6174696c65ULL;  // "volatile"
inline constexpr uint64_t kOwnUrlTermHash = 0x6f776e2d75726c00ULL;    // "own-url"

// Step 1: the normalized term-hash sequence of `doc` (which must have been
// tokenized with keep_term_text) into *out. `page_url` names the page's own
// URL. Counts of replaced terms go to *volatile_terms and *own_url_terms
// (either may be null).
// When main_out is not null it receives the same normalization of the
// page's main text alone: of HTML, the lines MainTextLine takes
// (doc.line_link_terms must be filled, as the tokenizer does); all of a
// plain-text page.
void NormalizeVolatileTerms(const TokenizedDocument& doc, std::string_view page_url,
                            const RobustMethodOptions& options, std::vector<uint64_t>* out,
                            uint32_t* volatile_terms = nullptr, uint32_t* own_url_terms = nullptr,
                            std::vector<uint64_t>* main_out = nullptr);

// Whether a line (a text block) of `terms` terms, `link_terms` of them link
// text, is main text: at least options.main_line_terms terms, at most a
// third of them link text (RobustMethodOptions::main_line_terms).
bool MainTextLine(uint32_t terms, uint32_t link_terms, const RobustMethodOptions& options);

// The main-text positions (options.num_minhashes onward) of a page with
// less than options.main_min_terms terms of main text hold this value: the
// page takes no part in the main-text rule, its main-text bands are not
// keys, and the value is never boilerplate. (A page's first main-text
// value equal to it, one page in 2^32, is stored as kNoMainText - 1.)
inline constexpr uint32_t kNoMainText = 0xffffffffu;

// Whether the page with these min-hash values has main text.
inline bool HasMainText(const uint32_t* mins, const RobustMethodOptions& options) {
  return options.main_minhashes > 0 && mins[options.num_minhashes] != kNoMainText;
}

// Step 4's bands: r consecutive values of the whole page (m / r bands), then
// main-r of the main text (main_minhashes / main-r more, for a page that
// has main text); no band holds values of both. Band b's key is the XXH3
// of its values seeded with b + 1.
inline uint32_t RobustBandCount(const RobustMethodOptions& options, bool with_main) {
  return options.num_minhashes / options.band_rows +
         (with_main ? options.main_minhashes / options.main_band_rows : 0);
}
inline uint32_t RobustBandFirst(const RobustMethodOptions& options, uint32_t band) {
  const uint32_t whole = options.num_minhashes / options.band_rows;
  return band < whole ? band * options.band_rows : options.num_minhashes + (band - whole) * options.main_band_rows;
}
// The number of values band `band` holds: r of the whole page, main-r
// (RobustMethodOptions::main_band_rows) of the main text.
inline uint32_t RobustBandRows(const RobustMethodOptions& options, uint32_t band) {
  return band < options.num_minhashes / options.band_rows ? options.band_rows : options.main_band_rows;
}
// The whole-page bands of kRobustWholeBandRows values after them: m / 14
// where the difference digests are kept (an edit limit is on), else none.
inline uint32_t RobustWholeBandCount(const RobustMethodOptions& options) {
  return options.max_edit_shingles > 0 || options.max_same_site_edit_shingles > 0
             ? options.num_minhashes / kRobustWholeBandRows
             : 0;
}

// A page's site as the method sees it: its host's registrable domain
// (RegistrableDomainOfHost: the hosts of one organisation, such as a
// newspaper group's local editions, share a template; owners under one
// public suffix do not). A page without a host (a file, a JSON Lines record
// without a URL) takes the host of the URL it names for itself
// (`canonical_url`, TokenizedDocument::canonical_url: a saved page keeps
// its canonical link), so that saved pages of one site learn its template;
// a page that names none is a site of its own: such files share no
// template. Sites that hold pages equal after normalization are joined
// later, by the stage.
std::string RobustSiteOf(std::string_view url, std::string_view canonical_url = {});

// The min-hash sketcher of the method (k, wrap, m; supershingles unused).
BroderOptions RobustSketchOptions(const RobustMethodOptions& options);
// The main text's: main_minhashes functions drawn from another seed.
// REQUIRES: options.main_minhashes > 0.
BroderOptions RobustMainSketchOptions(const RobustMethodOptions& options);

// What a worker computes per page.
struct RobustSignature {
  bool has_sketch = false;       // the normalized sequence has a non-class term
  uint64_t identity = 0;         // key of the normalized sequence
  uint32_t volatile_terms = 0;   // terms replaced by the volatile class
  uint32_t own_url_terms = 0;    // terms replaced as the page's own URL
  uint32_t main_terms = 0;       // normalized terms of the main text (0 without main_sketcher)
  // Distinct shingles of the main text, when it has main_min_terms terms and
  // options.keeps_main_shingles() (else 0).
  uint32_t main_shingles = 0;
  // Distinct shingles of the whole normalized page, when its difference
  // digest is built and options.keeps_main_shingles() (the record keeps the
  // two counts in one word; else 0).
  uint32_t shingles = 0;
};

// The method's two sketchers: the whole page's and the main text's (none
// when main_minhashes is 0).
struct RobustSketchers {
  explicit RobustSketchers(const RobustMethodOptions& options);
  BroderSketcher whole;
  std::optional<BroderSketcher> main;
  const BroderSketcher* main_or_null() const { return main ? &*main : nullptr; }
};

// Steps 1-2 for one tokenized page: writes options.positions() 32-bit
// min-hash values (RobustMethodOptions::minhash_bits) into mins_out: m of the
// whole page (`sketcher`), then main_minhashes of its main text
// (`main_sketcher`, which may be null when main_minhashes is 0; all
// kNoMainText when the page has less than main_min_terms terms of it); and
// when digest_out is not null the difference digest of its distinct
// shingles (kRobustDigestCells cells), and returns the signature. Pages
// with no term other than class terms get no sketch.
RobustSignature ComputeRobustSignature(const TokenizedDocument& doc, std::string_view page_url,
                                       const RobustMethodOptions& options,
                                       const BroderSketcher& sketcher, const BroderSketcher* main_sketcher,
                                       SketchScratch* scratch, std::vector<uint64_t>* normalized,
                                       uint32_t* mins_out, uint64_t* digest_out);

// One page as step 5's rule sees it: m min-hash values, its site key, and
// its difference digest (kRobustDigestCells cells; nullptr when the method
// keeps none).
struct RobustPageView {
  const uint32_t* mins = nullptr;
  uint64_t site = 0;
  const uint64_t* digest = nullptr;
  // Distinct shingles of the main text (RobustSignature::main_shingles); 0
  // when unknown: the containment rule then stays out.
  uint32_t main_shingles = 0;
  // Distinct shingles of the whole page (RobustSignature::shingles); 0 when
  // unknown: the large-page rule then stays out.
  uint32_t shingles = 0;
  // The page's title (kRobustTitleWords words, PackRobustTitle); nullptr
  // when titles are not kept: the rule of thin evidence then stays out.
  const uint64_t* title = nullptr;
};

// The record word that keeps a page's two shingle counts: the main text's
// in the low 32 bits, the whole page's in the high 32 bits.
inline uint64_t PackShingleCounts(const RobustSignature& sig) {
  return uint64_t{sig.shingles} << 32 | sig.main_shingles;
}
inline void UnpackShingleCounts(uint64_t word, RobustPageView* v) {
  v->main_shingles = static_cast<uint32_t>(word);
  v->shingles = static_cast<uint32_t>(word >> 32);
}

// The pages a stage reads (steps 3-5): page p's m min-hash values, its site
// key and its difference digest, each at a fixed stride from one base, so
// that a run reads them where its signature words are (in memory, or mapped
// from a spill file) without copying them into columns of their own.
struct RobustPages {
  uint32_t n = 0;                   // pages 0 .. n - 1
  uint32_t m = 0;                   // min-hash values a page
  const uint32_t* mins = nullptr;   // page p's at mins + p * mins_stride
  size_t mins_stride = 0;
  const uint64_t* digests = nullptr;  // page p's kRobustDigestCells at digests + p * digest_stride; nullptr: none
  size_t digest_stride = 0;
  std::span<const uint64_t> site;   // n site keys
  // Where the pages are mapped from a file: passes over many pages let its
  // read pages go from resident memory every so often (MappedFile), and
  // reads out of order copy a page's record of record_words words (at byte
  // p * record_words * 8; its min-hash values from word mins_word, its
  // digest from word digest_word) instead of touching the mapping (Fetch).
  const MappedFile* file = nullptr;
  size_t record_words = 0, mins_word = 0, digest_word = 0;
  // Page p's main-text shingle count in the low half of the word at
  // main_shingles + p * record_words (word main_shingles_word of its
  // record); nullptr: not kept.
  const uint64_t* main_shingles = nullptr;
  size_t main_shingles_word = 0;
  // Page p's title (kRobustTitleWords words, PackRobustTitle) at titles +
  // p * titles_stride (word title_word of its record); nullptr: not kept.
  const uint64_t* titles = nullptr;
  size_t titles_stride = 0, title_word = 0;

  const uint32_t* Mins(uint32_t p) const { return mins + p * mins_stride; }
  const uint64_t* Digest(uint32_t p) const { return digests ? digests + p * digest_stride : nullptr; }
  RobustPageView View(uint32_t p) const;
  // View(p) for a read out of order: with a file, page p's record copied
  // into scratch (record_words words), which the view then points into.
  RobustPageView Fetch(uint32_t p, uint64_t* scratch) const;
  // Fetch for several pages read together (MappedFile::ReadMany: few system
  // calls for many records): page ps[i]'s record into scratch + i *
  // record_words, its view into views[i].
  void FetchMany(std::span<const uint32_t> ps, uint64_t* scratch, RobustPageView* views) const;
  // The view of page p whose record (record_words words) is at `record`.
  RobustPageView RecordView(uint32_t p, const uint64_t* record) const;
  // Fetch(p, scratch).mins, reading only the record's min-hash words (half
  // the record's bytes: a template's copy checks read nothing else).
  const uint32_t* FetchMins(uint32_t p, uint64_t* scratch) const;
  // FetchMins for several pages read together (MappedFile::ReadMany): page
  // ps[i]'s values into scratch + i * MinsWords(), their address into
  // mins[i].
  void FetchManyMins(std::span<const uint32_t> ps, uint64_t* scratch, const uint32_t** mins) const;
  size_t MinsWords() const { return (size_t{m} + 1) / 2; }  // two values a word
  // Words [first_word, first_word + words) of page ps[i]'s record into
  // scratch + i * words, with one MappedFile::ReadMany. REQUIRES: file.
  bool ReadRecordWords(std::span<const uint32_t> ps, size_t first_word, size_t words, uint64_t* scratch) const;
  // Page p's two shingle counts (RobustPageView::main_shingles and
  // shingles) into *v, reading only the record's word that keeps them;
  // both 0 when they are not kept.
  void FetchShingleCounts(uint32_t p, RobustPageView* v) const;
  // Page p's title words (kRobustTitleWords), read into scratch with a
  // file; nullptr when titles are not kept.
  const uint64_t* FetchTitle(uint32_t p, uint64_t* scratch) const;
  void ReleaseResident() const {
    if (file) file->ReleaseResident();
  }
};

// The min-hash values of pages read in ascending order: with a file, a
// chunk of records at a time (one read for many pages, which makes
// nothing resident: threads reading ranges of their own do not fault the
// mapping in page by page nor release each other's pages); else from
// memory. A chunk that cannot be read is read through the mapping.
class InOrderMins {
 public:
  static constexpr size_t kChunkBytes = size_t{1} << 20;

  // Pages below `end` may be asked for.
  InOrderMins(const RobustPages& pages, uint32_t end);
  // Page p's m values, valid until the next call; p ascending.
  const uint32_t* Mins(uint32_t p);

 private:
  const RobustPages& pages_;
  uint32_t end_;
  uint32_t first_ = 0, last_ = 0;  // the chunk holds pages [first_, last_)
  size_t per_chunk_ = 1;
  std::vector<uint64_t> chunk_;
};

// Where a stage keeps its large temporary tables (the candidate tables, a
// large site's columns of values): in memory (no env), or in temporary
// files in `dir`, read back one table a thread at a time, so that the stage
// holds one table (16 bytes a candidate page; 4 bytes a page of the site) a
// thread at a time.
using RobustStageFiles = TempTableFiles;

// Which of two pages' main-text values at a position is the least over
// both main texts: each value's image under the position's function
// (BroderSketcher::Image32 of the main text's sketcher,
// RobustMainSketchOptions), which MinValues32 minimized. Only for 32-bit
// values (minhash_bits 32): a 64-bit value's low half does not give its
// image.
class MainTextOrder {
 public:
  // REQUIRES: options.minhash_bits == 32 and options.main_minhashes > 0.
  explicit MainTextOrder(const RobustMethodOptions& options);
  // Whether MainTextOrder applies to values signed with `options`.
  static bool AppliesTo(const RobustMethodOptions& options) {
    return options.minhash_bits == 32 && options.main_minhashes > 0;
  }
  // Of the values a != b at main-text position k (0 .. main_minhashes - 1),
  // the one whose image is smaller (images of distinct values differ).
  uint32_t Least(uint32_t k, uint32_t a, uint32_t b) const {
    return sketcher_.Image32(k, a) < sketcher_.Image32(k, b) ? a : b;
  }

 private:
  BroderSketcher sketcher_;
};

// Step 3's result and step 5's rule.
class SiteTemplates {
 public:
  SiteTemplates() = default;
  // Learns the boilerplate values from the pages with candidate[i] set.
  // mins: n * m values (m = options.positions()); site[i]: page i's site
  // key. A value is boilerplate when TemplateHolders(pages of the site)
  // distinct pages of the site hold it at one position; or when at least
  // template_min_pages do and they are not all copies of one item (the
  // first holder and one of the next, middle and last agree on fewer than
  // kCopyContentSimilarity of the positions outside that common
  // boilerplate; for a value two pages hold, outside the boilerplate
  // found among the values more pages hold too, which is learned first):
  // a sidebar or a section's template shared by a few distinct items is
  // boilerplate, the text a page shares with its own copies is not, and
  // two items that share a section's sidebar are not one item for it.
  // On a site of 3 pages or more, a value only two of its
  // pages hold is checked too, though the site's share would make it
  // boilerplate: it is boilerplate unless the two are one item (in one
  // template: they share some of the site's common boilerplate, agree on
  // min_similarity_without_template of the other positions, at least half
  // of them, and their main texts are alike; where no template is seen:
  // they share none of it, agree at kLargePageAgreement of the whole-page
  // positions and their difference digests decode; or, on a site of 6
  // pages or more, in two templates: their main texts alike, the rest
  // less). A value that TemplateHolders (three at least) to
  // kMaxItemVersions pages hold, not all the site's, is boilerplate
  // unless its first holder and each of the next, middle and last are one
  // item by those rules, their positions counted outside the common values
  // that more pages hold. Two pages alone on a site hold their template
  // and nothing else in common, unless they are one text: whole pages
  // alike at min_similarity_without_template and main texts (both have
  // one) at min_main_similarity, or one holding the other (the smaller
  // main text at most min_main_containment of the larger's size, it and
  // the smaller whole page contained in the other's at
  // min_main_containment); such a site learns no boilerplate (a
  // template is learned from distinct items, never from a near-duplicate
  // pair), unless their titles name two items (TitlesNameTwoItems, with
  // compare_titles). With compare_titles, two pages of a site of fewer
  // than 6 pages are one item too when they are alike as two pages alone
  // (the boilerplate they share counted, most of their main texts outside
  // it) and both titled, their titles not naming two items. digests: n * kRobustDigestCells cells, or
  // empty (the rule where no template is seen then stays out); titles: n *
  // kRobustTitleWords words, or empty (titles are then not compared).
  SiteTemplates(std::span<const uint32_t> mins, std::span<const uint64_t> site,
                std::span<const uint8_t> candidate, const RobustMethodOptions& options,
                std::span<const uint64_t> digests = {}, std::span<const uint64_t> titles = {});
  // The same over strided pages (RobustPages). A small site's values are
  // read in one pass; a site whose values pass 4 MiB goes to one temporary
  // file per position (`files`; without an env, in blocks of positions that
  // keep its buffer near 4 MiB, a pass over the site's pages each).
  // A large site's positions are looked at on `executor`'s threads and the
  // calling thread, smaller sites several at once, one a thread (the same
  // values as on one thread, in any order: a site's template depends only
  // on its own pages). The copy checks
  // read no page on its own (but the two records of a pair that passes
  // the agreement where no template is seen, for their digests): the
  // pairs the values' runs ask about are
  // gathered over the positions and their agreement counted over the
  // positions' values (two passes over the columns that sort them and one
  // or two that count; memory for the distinct first checks, 12 bytes
  // each, 16 for pages of more than 255 positions; a run's later samples
  // are asked for only when its first is a copy).
  SiteTemplates(const RobustPages& pages, std::span<const uint8_t> candidate, const RobustMethodOptions& options,
                const RobustStageFiles& files = RobustStageFiles(), Executor* executor = nullptr);

  // How many distinct pages of a site of `site_pages` must hold a value for
  // it to be boilerplate: template_min_pages, and template_site_fraction of
  // the site's pages. Boilerplate is what many items of a site share; a page
  // copied a few times on its own large host (an ad block injected, its
  // template replaced, a word edited) keeps its main item as content.
  static uint32_t TemplateHolders(uint32_t site_pages, const RobustMethodOptions& options);

  // Whether the site has at least template_min_pages distinct candidate pages.
  bool KnowsTemplateOf(uint64_t site) const { return known_sites_.Contains(site); }
  // Whether `site` is two pages alone that are one text (TwoPagesOneText):
  // its template is known to be nothing.
  bool OneTextSite(uint64_t site) const { return one_text_sites_.Contains(site); }
  // Whether `site` is two pages alone that would be one text but whose
  // titles name two items (TitlesNameTwoItems): it learned its template
  // from them.
  bool TwoTitlesSite(uint64_t site) const { return two_titles_sites_.Contains(site); }

  bool IsTemplate(uint32_t position, uint32_t value) const {
    const uint64_t key = (uint64_t{position} << 32) | value;
    return filter_.MayContain(key) && values_.Contains(key);
  }
  size_t size() const { return values_.size(); }
  // The boilerplate values, as (position << 32 | value).
  const FlatU64Set& values() const { return values_; }

  // Over the whole page's positions, and apart over the main text's.
  struct Match {
    uint32_t agreeing = 0;   // content positions where the pages agree
    uint32_t positions = 0;  // positions not shared as boilerplate
    uint32_t template_shared = 0;
    // Main-text positions (0 when either page has no main text);
    // main_template_shared: those left out because both pages hold one
    // boilerplate value there.
    uint32_t main_agreeing = 0, main_positions = 0, main_template_shared = 0;
    // Of main_positions, those where the pages differ and the value of the
    // least image over both main texts (MainTextOrder) is boilerplate: one
    // page's template won the position, which then says nothing of the
    // items (0 without a MainTextOrder).
    uint32_t main_boilerplate_alone = 0;
    double similarity() const {
      return positions == 0 ? 1.0 : static_cast<double>(agreeing) / positions;
    }
    // The main texts' resemblance outside the boilerplate (Broder's
    // estimate over the positions whose least value over both main texts
    // is not boilerplate, held by both or by one): a mirror's banner or a
    // sister site's sidebar in one main text counts for neither agreement
    // nor disagreement. 0 when no such position is left.
    double main_similarity() const {
      const uint32_t items = main_positions - main_boilerplate_alone;
      return items == 0 ? 0.0 : static_cast<double>(main_agreeing) / items;
    }
  };
  // a, b: options.positions() values each (m whole-page, then main text).
  Match Compare(const uint32_t* a, const uint32_t* b, const RobustMethodOptions& options) const;
  // Compare() from the pages' template masks: bit j of a_mask (64
  // positions a word) is IsTemplate(j, a[j]), of b_mask IsTemplate(j,
  // b[j]); main_order as this object's (MainTextOrder(options)), or null
  // where the run's values are 64-bit.
  static Match CompareMasked(const uint32_t* a, const uint32_t* b, const uint64_t* a_mask, const uint64_t* b_mask,
                             const MainTextOrder* main_order, const RobustMethodOptions& options);

 private:
  // A million pages' templates hold about a million values: 16 MB at 75%
  // full where at most half full took 32 (and, growing, 48 at once).
  // Lookups of absent values mostly stop at the filter.
  FlatU64Set values_{75};
  WordFilter filter_;  // of values_, in front of it: most values looked up are not boilerplate
  FlatU64Set known_sites_;
  FlatU64Set one_text_sites_;  // OneTextSite
  FlatU64Set two_titles_sites_;  // TwoTitlesSite
  std::shared_ptr<const MainTextOrder> main_order_;  // Compare's; null: 64-bit values or no main text
};

// The containment of the smaller of two main texts in the larger (Broder,
// "On the resemblance and containment of documents"), outside the
// boilerplate both hold, estimated from the main-text comparison `r` and
// the main texts' distinct shingles s <= l. Over all M = main_positions +
// main_template_shared positions, k = main_agreeing / M estimates the share
// of the union A u B that both hold outside the boilerplate and t =
// main_template_shared / M the share that is boilerplate both hold; with
// |A u B| = (s + l) / (1 + k + t), the smaller text's own part (s less the
// shared boilerplate) is contained at c = k (s + l) / (s + k s - t l), at
// most 1. Without shared boilerplate (t = 0) this is Broder's estimate
// from the resemblance J = k: c = J (s + l) / ((1 + J) s). A page whose
// text is its template's long blocks and a short item of its own is then
// judged by its item, not by the template the other page holds too.
// `error` is the estimate's standard error: k's and t's multinomial
// errors over the M positions through dc/dk and dc/dt (at t = 0, J's
// binomial error through dc/dJ). Unknown (value -1) without main-text
// positions or counts, or when the smaller text has nothing outside the
// shared boilerplate.
struct MainContainment {
  double value = -1;
  double error = 0;
  bool known() const { return value >= 0; }
};
MainContainment EstimateMainContainment(const SiteTemplates::Match& r, uint32_t a_shingles, uint32_t b_shingles);
// The same estimate from counts over any positions: `agreeing` of
// `positions` outside the boilerplate agree, `template_shared` more hold
// boilerplate both pages hold, and the two sets have a_shingles and
// b_shingles distinct shingles (EstimateMainContainment passes the main
// texts'; two whole pages pass theirs).
MainContainment EstimateContainment(uint32_t agreeing, uint32_t positions, uint32_t template_shared,
                                    uint32_t a_shingles, uint32_t b_shingles);

// Makes each value's (value, page) pairs in *v contiguous, keeping their
// order (a site's column holds its pages ascending: each run of one value
// then holds its pages ascending); the runs come in no particular order.
// `scratch` and `counts` are buffers the caller keeps between calls.
void GroupByValue(std::vector<std::pair<uint32_t, uint32_t>>* v, std::vector<std::pair<uint32_t, uint32_t>>* scratch,
                  std::vector<uint32_t>* counts);

// The containment rule decides only where its estimate's standard error is
// at most this: at 42 main-text positions a pair whose smaller main text is
// 40% contained in a larger one of 2.5 times its size is then more than
// three standard errors below a bar of 0.8, and a smaller text under about
// two fifths of the larger's size is not judged (its estimate is too loose).
inline constexpr double kMaxContainmentError = 0.15;

// Whether an estimate shows the smaller set contained in the larger at
// `bar`: known, at the bar, and within kMaxContainmentError.
inline bool ContainmentPasses(const MainContainment& c, double bar) {
  return c.known() && c.value >= bar && c.error <= kMaxContainmentError;
}

// Whether band `band` of a page's values `mins` is made only of its site's
// boilerplate (step 4: such a band is no key).
inline bool RobustBandIsBoilerplate(const SiteTemplates& templates, const RobustMethodOptions& options,
                                    const uint32_t* mins, uint32_t band) {
  const uint32_t first = RobustBandFirst(options, band), rows = RobustBandRows(options, band);
  for (uint32_t k = 0; k < rows; ++k) {
    if (!templates.IsTemplate(first + k, mins[first + k])) return false;
  }
  return true;
}

// Step 5's rule, the one the stage, verification and `neardup compare`
// call: pages a and b, not equal after normalization, with the boilerplate
// `templates` learned from the collection (empty: no site's template is
// known). Returns the decision, the similarity of the min-hash comparison
// (PairDecision::similarity) and the reason in words (left empty without
// `with_reason`: a stage that needs the verdict alone formats nothing);
// *match (if not null) receives the comparison.
PairDecision RobustDecide(const SiteTemplates& templates, const RobustPageView& a, const RobustPageView& b,
                          const RobustMethodOptions& options, SiteTemplates::Match* match = nullptr,
                          bool with_reason = true);

// RobustDecide from the min-hash comparison `r` of a and b
// (SiteTemplates::Compare or CompareMasked) and whether a's site has a
// known template (SiteTemplates::KnowsTemplateOf): the form in which
// processes of a divided run decide, each page carrying what the run
// learned of it.
PairDecision RobustDecideMatched(const SiteTemplates::Match& r, const RobustPageView& a, const RobustPageView& b,
                                 bool site_template_known, const RobustMethodOptions& options, bool with_reason = true);

struct RobustPair {
  uint32_t a = 0, b = 0;  // a < b
  SiteTemplates::Match match;
};

struct RobustStageResult {
  uint64_t candidates = 0;          // pages that entered the band tables
  uint64_t candidate_pairs = 0;     // distinct pairs sharing a band
  uint64_t pairs = 0;               // candidate pairs checked that passed the rule
  uint64_t pairs_already_joined = 0;  // candidate pairs not checked: both pages in one cluster
  uint64_t pages_with_pair = 0;     // candidates in at least one such pair
  uint64_t template_values = 0;     // boilerplate (position, value) pairs
  uint64_t template_bands_skipped = 0;
  uint32_t tables_at_once = 0;      // band tables sorted in one round (the memory budget's choice)
  // Wall seconds of the steps: learning the templates (step 3), filing
  // and sorting the band tables into runs of pairs (step 4), merging the
  // runs and checking the pairs (step 5).
  double templates_seconds = 0, tables_seconds = 0, pairs_seconds = 0;
  std::vector<RobustPair> pairs_found;  // when collect_pairs
};


// Steps 3-5 over the pages with candidate[i] set; similar pairs are joined
// in *uf. `templates` receives the learned boilerplate. With an executor,
// the rule runs over the candidate pairs on its threads too (the result is
// the same). The band tables are sorted a round at a time, one table a
// thread; a round holds about kRobustTableSlotBytes a candidate per table,
// and takes as many tables as `tables_memory_bytes` holds beside one more
// table's bytes for the pairs merged across tables (one at least).
// Errors: IOError when a table's temporary file cannot be written or read;
// ResourceExhausted when one table does not fit in tables_memory_bytes.
Result<RobustStageResult> RunRobustStage(const RobustPages& pages, std::span<const uint8_t> candidate,
                                         const RobustMethodOptions& options, uint32_t max_bucket_pages,
                                         bool collect_pairs, const RobustStageFiles& files, SiteTemplates* templates,
                                         UnionFind* uf, Executor* executor = nullptr,
                                         uint64_t tables_memory_bytes = UINT64_MAX);

// Bytes a band table holds a candidate page while it is sorted and paired:
// its 12-byte entry, the two bit sets of KeepSharedKeys (up to 8 bytes),
// and a few bytes of pairs.
inline constexpr uint64_t kRobustTableSlotBytes = 24;

// The same over contiguous columns, tables in memory.
// digests: n * kRobustDigestCells cells, or empty.
RobustStageResult RunRobustStage(std::span<const uint32_t> mins, std::span<const uint64_t> site,
                                 std::span<const uint64_t> digests, std::span<const uint8_t> candidate,
                                 const RobustMethodOptions& options, uint32_t max_bucket_pages,
                                 bool collect_pairs, SiteTemplates* templates, UnionFind* uf);

}  // namespace neardup

#endif  // NEARDUP_ENGINE_ROBUST_STAGE_H_
