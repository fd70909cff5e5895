// Copyright neardup authors. Licensed under Apache-2.0.
//
// Small HTML helpers for the benchmark builder (internal to apps/synth): a
// forgiving tag scanner that reports byte ranges (so pages can be edited in
// place, keeping every other byte), paragraph extraction, visible text, and
// the edits copies need (links, markup). They follow the conventions of the
// tokenizer (src/text/tokenizer.h) where the two must agree: formatting tags
// (a, b, i, span, ...) do not separate words, other markup does; script,
// style, noscript, template, iframe, svg, noembed and noframes hold no
// visible text; comments separate words.
#ifndef NEARDUP_SYNTH_HTML_EDIT_H_
#define NEARDUP_SYNTH_HTML_EDIT_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace neardup::synth_internal {

struct HtmlAttr {
  std::string name;  // lower-case
  // Raw value bytes (quotes excluded, character references not decoded);
  // an empty range at the end of the name when the attribute has no value.
  size_t value_begin = 0, value_end = 0;
  bool has_value = false;
};

struct HtmlToken {
  enum class Type {
    kText,  // character data between markup
    kStartTag,
    kEndTag,
    kComment,      // <!-- ... -->
    kDeclaration,  // <!DOCTYPE>, <?xml?>, CDATA, bogus comments
    kRawText,      // contents of script, style, title, textarea, ... (`name`)
  };
  Type type = Type::kText;
  size_t begin = 0, end = 0;            // byte range in the document
  std::string name;                     // lower-case tag name (tags, kRawText)
  size_t name_begin = 0, name_end = 0;  // the tag name as written (tags)
  std::vector<HtmlAttr> attrs;          // start tags
  bool self_closing = false;
};

// Splits a document into tokens covering every byte, in order. Never fails:
// a '<' that starts no markup is text, an unterminated tag or comment runs to
// the end. After the start tag of a raw-text element the element's content
// up to its end tag is one kRawText token.
class HtmlScanner {
 public:
  explicit HtmlScanner(std::string_view html) : s_(html) {}
  bool Next(HtmlToken* t);

 private:
  void ParseTag(HtmlToken* t, bool end_tag);
  std::string_view s_;
  size_t pos_ = 0;
  std::string raw_until_;  // element whose raw content comes next
};

// True for the formatting tags the tokenizer ignores (they join words).
bool IsInlineTag(std::string_view lower_name);
// True for elements whose content is never visible text.
bool IsHiddenElement(std::string_view lower_name);

// Visible text: text outside hidden elements and comments, with markup as
// the tokenizer reads it (formatting tags join, others separate), white
// space collapsed to one space, trimmed. Character references are kept as
// written.
std::string VisibleText(std::string_view html);

// A page with its <p> elements taken out.
struct ParagraphSplit {
  std::string without_paragraphs;  // the page minus every <p> element
  // Offset in `without_paragraphs` where the first <p> element was;
  // std::string::npos when the page had none.
  size_t first_paragraph_pos = std::string::npos;
  // Visible text of each <p> element, in document order (empty ones too).
  std::vector<std::string> paragraphs;
};
// A <p> element runs from its start tag to its end tag, or to the first
// start or end tag of an element that closes a paragraph (HTML's "p element
// end tag may be omitted" list: div, table, ul, h1..h6, ... and the end tags
// of their containers). <p> inside hidden elements is left alone.
ParagraphSplit RemoveParagraphs(std::string_view html);

// White-space separated words of `text`.
std::vector<std::string_view> SplitWords(std::string_view text);

// Words folded for comparing paragraphs: ASCII letters lower-cased, ASCII
// punctuation dropped, bytes >= 0x80 kept; empty words skipped.
std::vector<std::string> FoldedWords(std::string_view text);

// Byte-range replacements applied in one pass. REQUIRES: sorted by begin,
// non-overlapping (insertions have begin == end; several may share a
// position and are applied in order).
struct Edit {
  size_t begin = 0, end = 0;
  std::string text;
};
std::string ApplyEdits(std::string_view s, std::vector<Edit> edits);

// The parts of an attribute URL that the link edits need, on the raw value
// (leading/trailing white space ignored). Offsets are into `value`.
struct RawUrl {
  bool has_scheme = false;              // "http:", "mailto:", "javascript:", ...
  bool web_scheme = false;              // http or https
  bool has_authority = false;           // "//host..." (with or without scheme)
  std::string host;                     // lower-case, without port or userinfo
  size_t trim_begin = 0, trim_end = 0;  // the value without outer spaces
  size_t host_begin = 0;                // start of the scheme (or "//") ...
  size_t host_end = 0;                  // ... to the end of the authority
  size_t path_end = 0;                  // where '?' or '#' starts (or trim_end)
  size_t fragment_begin = 0;            // where '#' starts (or trim_end)
  bool has_query = false;
};
RawUrl ParseRawUrl(std::string_view value);

// True for the attributes that hold a URL the link edits touch: href, src
// and action.
bool IsUrlAttribute(std::string_view lower_name);

// Appends a session id to every same-host link of the page: the href of a
// and area, the src of frame and iframe, the action of form (the links the
// tokenizer collects, and the search form). Same host: a relative reference,
// or an http(s) or scheme-relative URL whose host is `host`. Empty and
// fragment-only references are left as they are: they resolve to the page's
// own URL, which carries the id. With `path_parameter` the id goes in the
// path (";name=id" before the query, Java servlets' jsessionid), else in the
// query ("?name=id" or "&amp;name=id").
std::string AddSessionToLinks(std::string_view html, std::string_view host, std::string_view name,
                              std::string_view id, bool path_parameter);

// Rewrites every href, src and action whose host satisfies `match` to
// `scheme`://`new_host` (scheme-relative URLs stay scheme-relative), keeping
// path, query and fragment. The rest of the page is unchanged.
std::string RewriteHosts(std::string_view html, const std::function<bool(std::string_view)>& match,
                         std::string_view scheme, std::string_view new_host);

// Markup-only changes that leave the token sequence, the links and the
// images of the page as they were (Henzinger: "the difference is invisible
// to the visitors"): some of upper-cased tag names, added data-* attributes,
// added class names, comments after block-level tags, re-indented white
// space between tags (outside pre, listing and textarea). Text, raw-text
// elements and URLs are never touched. `seed` picks which and where; the
// result always differs from `html` when it has a start tag.
std::string MutateMarkup(std::string_view html, uint64_t seed);

}  // namespace neardup::synth_internal

#endif  // NEARDUP_SYNTH_HTML_EDIT_H_
