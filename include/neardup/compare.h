// Copyright neardup authors. Licensed under Apache-2.0.
//
// Comparing two pages the way each method sees them, so that a reader can
// tell why a pair was or was not matched: their terms, Henzinger's
// B-similarity (supershingles shared) and C-similarity (simhash bits that
// agree), the Jaccard resemblance of their shingle sets (what B-similarity
// estimates), and the term difference as Henzinger measured it (a diff of the
// two token sequences) with the differing runs; and the `robust` method's
// view: what normalization replaced, whether the pages are equal after it,
// how many shingles they differ in, and, with the crawl they come from, the
// agreement on what is not their sites' boilerplate.
#ifndef NEARDUP_COMPARE_H_
#define NEARDUP_COMPARE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "neardup/document.h"
#include "neardup/engine.h"
#include "neardup/env.h"
#include "neardup/method.h"
#include "neardup/status.h"

namespace neardup {

struct ComparedPage {
  std::string source;   // the input it came from
  std::string url;
  uint64_t terms = 0;
  std::string charset;
  // Whether the page has content of its own: an HTTP redirect (3xx) or an
  // empty body has none, and no method matches it (its terms are then 0);
  // its status and Location (as sent) say which. dedup puts a redirect in
  // the cluster of the page its chain of redirects ends at, when that page
  // is in the same run (Comparison::redirect).
  bool own_content = true;
  int http_status = 0;
  std::string redirect_target;
  // For a revisit (a WARC revisit record): the URL and date of the capture
  // whose content it is, as the record names them (Document::revisit_of).
  std::string revisit_of;
  std::string revisit_of_date;
};

// One run of the diff: terms only in A (`deleted`), only in B (`inserted`),
// or both; term indices are half-open ranges.
struct CompareRun {
  enum class Kind { kEqual, kOnlyInA, kOnlyInB } kind = Kind::kEqual;
  uint32_t a_begin = 0, a_end = 0, b_begin = 0, b_end = 0;
  std::string text;     // the run's terms joined by spaces (cut at 300 bytes, at a character boundary)
};

struct Comparison {
  ComparedPage a, b;
  bool exact_same_tokens = false;
  bool exact_same_bytes = false;
  int b_similarity = 0;          // of m' supershingles (Broder options given)
  uint32_t num_supershingles = 0;
  bool b_similar = false;        // >= 2 agreeing (Henzinger's B-similar)
  int c_similarity = 0;          // of b bits (simhash options given)
  uint32_t simhash_bits = 0;
  bool c_similar = false;        // >= t (Henzinger's C-similar)
  bool same_site = false;        // Henzinger's site
  // One page is a redirect whose Location, resolved against its URL, is the
  // other's URL, and the other is a page a chain of redirects ends at (a
  // success or a page not read over HTTP): dedup puts the two in one
  // cluster, the other kept. 'a' or 'b' for the redirect, else 0.
  char redirect = 0;
  // One page is a revisit of the other: the capture it names (its URL, and
  // its fetch date when the revisit gives one) is the other page, which has
  // content. dedup puts the two in one cluster, the other kept. 'a' or 'b'
  // for the revisit, else 0.
  char revisit = 0;
  double jaccard = 0;            // resemblance of the k-shingle sets
  uint64_t term_difference = 0;  // terms deleted plus inserted by the diff
  std::vector<CompareRun> runs;  // the differing runs, with equal runs between

  // The robust method (RobustMethodOptions of the options given).
  struct Robust {
    uint32_t volatile_terms_a = 0, volatile_terms_b = 0;  // replaced by the volatile class
    uint32_t own_url_terms_a = 0, own_url_terms_b = 0;    // replaced as the page's own URL
    bool equal_after_normalization = false;
    uint64_t shingles_differing = 0;  // distinct normalized shingles in one page only
    bool same_host = false;           // one robust site: the hosts' registrable domains are equal
    uint32_t edit_limit = 0;          // max_edit_shingles or max_same_site_edit_shingles
    // Site templates learned from the pages of the two sites (registrable
    // domains) in the inputs (none without inputs): pages read and whether a
    // template is known; one_text_site: the two pages are alone on their
    // site and one text, so the site learned no template (its template is
    // known to be nothing: the pages are compared whole);
    // two_titles_site: the two are alone on their site and alike, but their
    // titles name two items (RobustMethodOptions::compare_titles), so the
    // site learned its template from them. titles_name_two_items: whether
    // the two pages' titles name two items (whatever their sites);
    // titles_name_two_numbers: they do by their numbers (each own part names
    // a number of four digits or more, none of one's the other's:
    // RobustMethodOptions::title_numbers).
    uint64_t host_pages = 0;
    bool template_known = false;
    bool one_text_site = false;
    bool two_titles_site = false;
    bool titles_name_two_items = false;
    bool titles_name_two_numbers = false;
    uint32_t content_agreeing = 0, content_positions = 0, template_shared = 0;
    // Main text (the long text blocks that are not mostly links): terms of
    // each page, and main-text positions outside the boilerplate and those
    // of them that agree (0, 0 when either page has too little main text);
    // main_boilerplate_alone: those of main_positions where the pages
    // differ and the least of their two values is one page's boilerplate,
    // left out of the main texts' resemblance.
    uint64_t main_terms_a = 0, main_terms_b = 0;
    uint32_t main_agreeing = 0, main_positions = 0, main_boilerplate_alone = 0;
    double similarity = 0;            // as the rule reports it (PairDecision::similarity)
    bool similar = false;
    std::string why;                  // the rule that decided, in words
    // With inputs: the robust method was run over every page of them, as
    // `neardup dedup` runs it, and similar, similarity and why are its
    // decision on the pair (Deduper::Explain: templates learned from the
    // whole crawl, sites joined as mirrors); the counts above are from the
    // two sites' pages alone. same_cluster: whether the run put the two in
    // one cluster (through other members too); kept_a, kept_b: the URLs of
    // their clusters' kept pages.
    bool clustered = false;
    bool same_cluster = false;
    std::string kept_a, kept_b;
    // With inputs: whether dedup's candidate tables made the two a
    // candidate pair (PairDecision::candidacy), in words: a pair that is
    // none was never decided itself, and its pages can be in one cluster
    // only through other pages.
    std::string candidacy;
    // With inputs, the verification decisions (the same rule) that put the
    // two together or apart: each page against its own cluster's kept page
    // and, when the clusters differ, against the other's. Empty where the
    // page is that kept page, or where that kept page is the other page
    // (the decision above is then the pair's own). A member that fails its
    // kept page stays through a center of its cluster (README "Choices
    // worth knowing").
    std::optional<PairDecision> a_with_kept_a, b_with_kept_b, a_with_kept_b, b_with_kept_a;
  } robust;

  // Every method's one pair rule (Method::Compare, the rule dedup applies)
  // on the two pages: exact, broder, simhash, combined, then robust with
  // the templates learned from the inputs; paragraphs and chunks.
  struct Verdict {
    std::string method;
    PairDecision decision;
  };
  std::vector<Verdict> verdicts;
};

// Compares two pages with `options`' Broder, simhash and robust parameters.
// Without `inputs`, reads the first document of `a` and of `b` (files of any
// input format, as `dedup` reads them). With `inputs`, `a` and `b` are URLs of
// documents in those inputs (the first document of each URL), and the
// robust view learns the two hosts' templates from the inputs' pages.
// NotFound when a page cannot be found.
Result<Comparison> ComparePages(const std::string& a, const std::string& b, const DedupOptions& options,
                                Env* env = nullptr, const std::vector<std::string>& inputs = {});

// The same comparison of two documents the caller holds (the Python
// module's compare(), pages that are in no file). ComparedPage::source is
// Document::source (empty for a page made in memory); the robust view has
// no crawl to learn templates from, as ComparePages without `inputs`.
// InvalidArgument for bad options.
Result<Comparison> CompareDocuments(const Document& a, const Document& b, const DedupOptions& options);

}  // namespace neardup

#endif  // NEARDUP_COMPARE_H_
