// Copyright neardup authors. Licensed under Apache-2.0.
//
// HTML (or plain text) to a token sequence, by the rules of Henzinger,
// "Finding Near-Duplicate Web Pages: A Large-Scale Evaluation of Algorithms",
// §2: markup becomes white space except formatting tags that do not separate
// words (b, i, em, span, font, a, ...), which are ignored; script, style and
// comments are dropped; character references are decoded; terms are maximal
// runs of Unicode letters and digits, case-folded; URLs in the text are broken
// at slashes and dots into terms; an IMG tag's URL is one term (the whole URL
// when it points to another host, only the file name on the page's own host).
//
// The text is first converted to UTF-8 from the charset given by the HTTP
// header, a BOM, or a meta tag, with a fallback when the declaration lies.
//
// Besides terms it records sentence boundaries (a period, or at most 150
// characters without one: Pereira, Baeza-Yates and Ziviani, "Where and How
// Duplicates Occur in the Web"), line boundaries, and the page's links as
// absolute URLs, for the methods that need them.
#ifndef NEARDUP_TEXT_TOKENIZER_H_
#define NEARDUP_TEXT_TOKENIZER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/document.h"
#include "neardup/status.h"

namespace neardup {

struct TokenizeOptions {
  // Pereira et al.'s sentence cut: a sentence ends at a period, or after this
  // many characters of text when no period came.
  uint32_t sentence_max_chars = 150;
  // Collect links (a href, area href, frame/iframe src) as absolute URLs.
  bool collect_links = true;
  // Keep the case-folded term bytes (TokenizedDocument::term_bytes). When
  // false only term hashes are produced (faster; enough for signatures).
  bool keep_term_text = true;
  // How many leading bytes of an HTML body are searched for a <meta> charset
  // or <?xml encoding?> declaration (HTML's prescan reads 1024; pages with
  // large inline scripts before the meta need more). 0 disables the prescan.
  uint32_t charset_prescan_bytes = 4096;

  // InvalidArgument when sentence_max_chars is 0 or charset_prescan_bytes
  // exceeds 1 MiB.
  Status Validate() const;
};

// Output of one document. Reused across calls (Clear() keeps capacity).
struct TokenizedDocument {
  // Case-folded UTF-8 terms, concatenated; term i is
  // term_bytes[term_offsets[i], term_offsets[i+1]). term_offsets has
  // num_terms()+1 entries. Empty when keep_term_text is false.
  std::string term_bytes;
  std::vector<uint32_t> term_offsets;
  // 64-bit hash of each term's case-folded UTF-8 bytes (XXH3-64, seed 0);
  // always filled, one per term.
  std::vector<uint64_t> term_hashes;
  // Sentence boundaries as exclusive term indices: sentence j covers terms
  // [sentence_ends[j-1], sentence_ends[j]). The last entry equals num_terms().
  std::vector<uint32_t> sentence_ends;
  // Line boundaries (block-level breaks in HTML, '\n' in text), same convention.
  std::vector<uint32_t> line_ends;
  // Per line (parallel to line_ends), how many of its terms are link text
  // (inside <a href>): the link density of a text block, by which
  // Kohlschuetter, Fankhauser and Nejdl ("Boilerplate Detection using
  // Shallow Text Features") tell navigation from main text.
  std::vector<uint32_t> line_link_terms;
  // Per line, 1 when it is a table cell's text (it began at <td> or <th>).
  std::vector<uint8_t> line_is_cell;
  // URLs written in the visible text ("http://" or "https://" up to white
  // space or markup): [begin, end) term ranges, two entries a URL.
  std::vector<uint32_t> url_spans;
  // Links found in the page, absolute, in document order (duplicates kept).
  std::vector<std::string> links;
  // For a page whose URL has no host (a file, a record without a URL):
  // the URL it names for itself, its <link rel="canonical"> href, or else
  // its first <meta property="og:url"> (or name="og:url") content;
  // absolute http(s) only, resolved against <base>. Empty when it names
  // none, and for a page whose URL has a host (not looked for). It names
  // the site of a saved page (RobustSiteOf).
  std::string canonical_url;
  // The terms of the page's first <title> element (the document's name,
  // HTML's document.title): terms [title_begin, title_end). Empty
  // (title_begin == title_end) for a page without one and for plain text.
  uint32_t title_begin = 0, title_end = 0;
  // Characters of visible text after markup removal, white space collapsed
  // (Pereira et al. leave out documents of 450 characters or fewer).
  uint64_t text_chars = 0;
  // Charset the body was decoded from (lower-case canonical name, e.g.
  // "utf-8", "windows-1252", "shift_jis").
  std::string charset;
  // True when the declared charset was rejected by the fallback.
  bool charset_fallback = false;
  // True when invalid byte sequences had to be replaced.
  bool had_invalid_bytes = false;
  // True when the body was read as HTML (lines are its blocks), false for
  // plain text (lines are its lines).
  bool html = false;

  size_t num_terms() const { return term_hashes.size(); }
  std::string_view term(size_t i) const {
    return std::string_view(term_bytes).substr(term_offsets[i],
                                               term_offsets[i + 1] - term_offsets[i]);
  }
  void Clear();
};

// A reusable tokenizer context; one per thread (not thread-safe). Holds ICU
// converters and scratch buffers so repeated calls do not allocate.
class Tokenizer {
 public:
  // REQUIRES: options.Validate().ok() (checked: aborts otherwise).
  explicit Tokenizer(const TokenizeOptions& options = TokenizeOptions());
  ~Tokenizer();
  Tokenizer(const Tokenizer&) = delete;
  Tokenizer& operator=(const Tokenizer&) = delete;

  // Tokenizes `body` (raw bytes in their original charset). `declared_charset`
  // is the HTTP header's charset ("" if none); `page_url` resolves relative
  // links and decides the IMG own-host rule. kind == kText skips HTML.
  // Never fails on bad bytes: they are replaced and flagged.
  void Tokenize(std::string_view body, ContentKind kind, std::string_view declared_charset,
                std::string_view page_url, TokenizedDocument* out);

  // Convenience for a Document.
  void Tokenize(const Document& doc, TokenizedDocument* out) {
    Tokenize(doc.body, doc.kind, doc.declared_charset, doc.url, out);
  }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace neardup

#endif  // NEARDUP_TEXT_TOKENIZER_H_
