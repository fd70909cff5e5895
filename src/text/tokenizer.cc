// Copyright neardup authors. Licensed under Apache-2.0.
//
// One pass over the UTF-8 text: a byte-class table drives the text loop
// (ASCII letters and digits are appended and lower-cased in runs; '<' and
// '&' leave the loop), tags are recognised by a small hash table over their
// lower-cased names, and raw-text elements are skipped with memchr for '<'.
// Terms are appended to one reused buffer and hashed with XXH3 when they end.
#include "text/tokenizer.h"

#define XXH_INLINE_ALL  // XXH3 inlined: most terms are a few bytes
#include <xxhash.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

#include "text/charset.h"
#include "text/entities.h"
#include "text/html_lex.h"
#include "text/unicode_class.h"
#include "text/url.h"

namespace neardup {

using text_internal::AppendAttributeDecoded;
using text_internal::AppendFoldedCodePoint;
using text_internal::AppendFoldedUtf8;
using text_internal::CharClass;
using text_internal::ClassifyCodePoint;
using text_internal::DecodeCharRef;
using text_internal::DecodeValidUtf8;
using text_internal::EqualsIgnoreCase;
using text_internal::IsAsciiAlpha;
using text_internal::IsHtmlSpace;
using text_internal::kAsciiLower;
using text_internal::ParseAttributes;
using text_internal::SkipPastGt;
using text_internal::ToLowerAscii;

namespace {

// ---------------------------------------------------------------------------
// Byte classes of the text loop.
enum ByteClass : uint8_t {
  kBytePunct = 0,  // other ASCII: ends a term, one visible character
  kByteAlnum,      // [0-9A-Za-z]
  kByteSpace,      // white space and other C0 controls, DEL
  kByteNewline,    // '\n': white space, and a line end in <pre> and plain text
  kBytePeriod,     // '.'
  kByteLt,         // '<'
  kByteAmp,        // '&'
  kByteHigh,       // >= 0x80: first byte of a UTF-8 sequence
};

struct ByteClassTable {
  ByteClass cls[256];
  constexpr ByteClassTable() : cls() {
    for (int c = 0; c < 256; ++c) {
      ByteClass b = kBytePunct;
      if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
        b = kByteAlnum;
      } else if (c < 0x20 || c == ' ' || c == 0x7F) {
        b = kByteSpace;
      } else if (c >= 0x80) {
        b = kByteHigh;
      }
      cls[c] = b;
    }
    cls[static_cast<int>('\n')] = kByteNewline;
    cls[static_cast<int>('.')] = kBytePeriod;
    cls[static_cast<int>('<')] = kByteLt;
    cls[static_cast<int>('&')] = kByteAmp;
  }
};
constexpr ByteClassTable kBytes;

// The first byte at or after p that is not of kByteSpace (nor '\n' when
// `with_newline`), or end; 16 bytes a step with SSE2, as SkipAsciiAlnum.
inline const char* SkipAsciiSpace(const char* p, const char* end, bool with_newline) {
#if defined(__SSE2__)
  const __m128i k_space = _mm_set1_epi8(0x20), k_del = _mm_set1_epi8(0x7f), k_newline = _mm_set1_epi8('\n');
  const __m128i newline_out = with_newline ? _mm_setzero_si128() : _mm_set1_epi8(-1);
  while (end - p >= 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i low = _mm_cmpeq_epi8(_mm_min_epu8(x, k_space), x);  // x <= 0x20
    const __m128i newline = _mm_and_si128(_mm_cmpeq_epi8(x, k_newline), newline_out);
    const __m128i space = _mm_andnot_si128(newline, _mm_or_si128(low, _mm_cmpeq_epi8(x, k_del)));
    const unsigned other = ~static_cast<unsigned>(_mm_movemask_epi8(space)) & 0xffffu;
    if (other != 0) return p + std::countr_zero(other);
    p += 16;
  }
#endif
  while (p < end) {
    const ByteClass c = kBytes.cls[static_cast<unsigned char>(*p)];
    if (c != kByteSpace && !(c == kByteNewline && with_newline)) break;
    ++p;
  }
  return p;
}

// The first byte at or after p that is not [0-9A-Za-z], or end. SSE2 (in
// every x86-64) tests 16 bytes a step; elsewhere the class table a byte.
inline const char* SkipAsciiAlnum(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i k_case = _mm_set1_epi8(0x20), k_a = _mm_set1_epi8('a'), k_0 = _mm_set1_epi8('0');
  const __m128i k_25 = _mm_set1_epi8(25), k_9 = _mm_set1_epi8(9);
  while (end - p >= 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    // Unsigned v <= k as min(v, k) == v.
    const __m128i letter = _mm_sub_epi8(_mm_or_si128(x, k_case), k_a);
    const __m128i digit = _mm_sub_epi8(x, k_0);
    const __m128i alnum = _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(letter, k_25), letter),
                                       _mm_cmpeq_epi8(_mm_min_epu8(digit, k_9), digit));
    const unsigned other = ~static_cast<unsigned>(_mm_movemask_epi8(alnum)) & 0xffffu;
    if (other != 0) return p + std::countr_zero(other);
    p += 16;
  }
#endif
  while (p < end && kBytes.cls[static_cast<unsigned char>(*p)] == kByteAlnum) ++p;
  return p;
}

// Term bytes as they are written: a std::string kept longer than its
// logical size, so that a run of ASCII letters is lower-cased with 16-byte
// stores and no capacity check a byte, and so that stores of term bytes
// (which may alias anything) do not make the tokenizer reload its state.
// size() is the logical size; Finish() trims the string to it.
class TermWriter {
 public:
  // Bytes of room beyond any Reserve(n): a 16-byte store at the logical end
  // always fits.
  static constexpr size_t kSlack = 16;

  // Writes from the start of *s, which keeps its bytes until they are
  // written over: a string that already has room for `expect` bytes is
  // not filled again.
  void Start(std::string* s, size_t expect) {
    s_ = s;
    len_ = 0;
    if (s_->size() < expect + kSlack) Grow(expect);
  }
  size_t size() const { return len_; }
  const char* data() const { return s_->data(); }
  // Where the next n bytes go; kSlack bytes more may be stored past them.
  char* Reserve(size_t n) {
    if (s_->size() - len_ < n + kSlack) Grow(n);
    return s_->data() + len_;
  }
  void Commit(size_t n) { len_ += n; }
  void Truncate(size_t n) { len_ = n; }
  void Append(std::string_view bytes) {
    std::memcpy(Reserve(bytes.size()), bytes.data(), bytes.size());
    len_ += bytes.size();
  }
  void Finish() { s_->resize(len_); }

 private:
  void Grow(size_t n) { s_->resize(std::max(2 * s_->size(), len_ + n + kSlack)); }

  std::string* s_ = nullptr;
  size_t len_ = 0;
};

// Stores s[0, n) with bit 5 set (lower case of [0-9A-Za-z]) at d, which has
// room for n + 15 bytes; bytes of s are read only up to `end`.
inline void StoreLowerAlnum(const char* s, size_t n, const char* end, char* d) {
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i k_case = _mm_set1_epi8(0x20);
  for (; i < n && end - (s + i) >= 16; i += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i), _mm_or_si128(x, k_case));
  }
#endif
  for (; i < n; ++i) d[i] = static_cast<char>(s[i] | 0x20);
}

// ---------------------------------------------------------------------------
// Tags.
enum TagFlag : uint16_t {
  kFormat = 1,      // formatting tag: ignored, does not separate words
  kBlock = 2,       // ends a line
  kSkip = 4,        // contents dropped up to the end tag
  kRcdata = 8,      // contents are text (character references decoded) up to the end tag
  kRawText = 16,    // contents are text (nothing decoded) up to the end tag
  kPre = 32,        // newlines inside end lines
  kPlaintext = 64,  // the rest of the document is raw text
};
enum TagId : uint8_t { kTagOther = 0, kTagA, kTagArea, kTagImg, kTagBase, kTagFrame, kTagIframe,
                       kTagSvg, kTagCell, kTagLink, kTagMeta };

struct TagInfo {
  const char* name;
  uint16_t flags;
  TagId id;
  uint8_t len = 0;            // filled by TagTable
  uint64_t words[2] = {0, 0};  // filled by TagTable: the name's bytes in order, zero padded
};

constexpr TagInfo kTags[] = {
    // Formatting tags (Henzinger §2: "formatting instructions" are ignored).
    {"a", kFormat, kTagA}, {"abbr", kFormat, kTagOther}, {"acronym", kFormat, kTagOther},
    {"b", kFormat, kTagOther}, {"bdi", kFormat, kTagOther}, {"bdo", kFormat, kTagOther},
    {"big", kFormat, kTagOther}, {"blink", kFormat, kTagOther}, {"cite", kFormat, kTagOther},
    {"code", kFormat, kTagOther}, {"data", kFormat, kTagOther}, {"del", kFormat, kTagOther},
    {"dfn", kFormat, kTagOther}, {"em", kFormat, kTagOther}, {"font", kFormat, kTagOther},
    {"i", kFormat, kTagOther}, {"ins", kFormat, kTagOther}, {"kbd", kFormat, kTagOther},
    {"label", kFormat, kTagOther}, {"mark", kFormat, kTagOther}, {"nobr", kFormat, kTagOther},
    {"q", kFormat, kTagOther}, {"s", kFormat, kTagOther}, {"samp", kFormat, kTagOther},
    {"small", kFormat, kTagOther}, {"span", kFormat, kTagOther}, {"strike", kFormat, kTagOther},
    {"strong", kFormat, kTagOther}, {"sub", kFormat, kTagOther}, {"sup", kFormat, kTagOther},
    {"time", kFormat, kTagOther}, {"tt", kFormat, kTagOther}, {"u", kFormat, kTagOther},
    {"var", kFormat, kTagOther}, {"wbr", kFormat, kTagOther},
    // Block-level: a line break.
    {"address", kBlock, kTagOther}, {"article", kBlock, kTagOther}, {"aside", kBlock, kTagOther},
    {"blockquote", kBlock, kTagOther}, {"body", kBlock, kTagOther}, {"br", kBlock, kTagOther},
    {"caption", kBlock, kTagOther}, {"center", kBlock, kTagOther}, {"col", kBlock, kTagOther},
    {"colgroup", kBlock, kTagOther}, {"dd", kBlock, kTagOther}, {"details", kBlock, kTagOther},
    {"dialog", kBlock, kTagOther}, {"dir", kBlock, kTagOther}, {"div", kBlock, kTagOther},
    {"dl", kBlock, kTagOther}, {"dt", kBlock, kTagOther}, {"fieldset", kBlock, kTagOther},
    {"figcaption", kBlock, kTagOther}, {"figure", kBlock, kTagOther},
    {"footer", kBlock, kTagOther}, {"form", kBlock, kTagOther}, {"frameset", kBlock, kTagOther},
    {"h1", kBlock, kTagOther}, {"h2", kBlock, kTagOther}, {"h3", kBlock, kTagOther},
    {"h4", kBlock, kTagOther}, {"h5", kBlock, kTagOther}, {"h6", kBlock, kTagOther},
    {"head", kBlock, kTagOther}, {"header", kBlock, kTagOther}, {"hgroup", kBlock, kTagOther},
    {"hr", kBlock, kTagOther}, {"html", kBlock, kTagOther}, {"legend", kBlock, kTagOther},
    {"li", kBlock, kTagOther}, {"main", kBlock, kTagOther}, {"menu", kBlock, kTagOther},
    {"nav", kBlock, kTagOther}, {"ol", kBlock, kTagOther}, {"optgroup", kBlock, kTagOther},
    {"option", kBlock, kTagOther}, {"p", kBlock, kTagOther}, {"section", kBlock, kTagOther},
    {"summary", kBlock, kTagOther}, {"table", kBlock, kTagOther}, {"tbody", kBlock, kTagOther},
    {"td", kBlock, kTagCell}, {"tfoot", kBlock, kTagOther}, {"th", kBlock, kTagCell},
    {"thead", kBlock, kTagOther}, {"tr", kBlock, kTagOther}, {"ul", kBlock, kTagOther},
    {"pre", kBlock | kPre, kTagOther}, {"listing", kBlock | kPre, kTagOther},
    {"title", kBlock | kRcdata, kTagOther}, {"textarea", kBlock | kRcdata | kPre, kTagOther},
    {"xmp", kBlock | kRawText | kPre, kTagOther}, {"plaintext", kBlock | kPlaintext, kTagOther},
    // Contents not shown (or not text): dropped.
    {"script", kSkip, kTagOther}, {"style", kSkip, kTagOther}, {"noscript", kSkip, kTagOther},
    {"template", kSkip, kTagOther}, {"noembed", kSkip, kTagOther},
    {"noframes", kSkip, kTagOther}, {"iframe", kSkip, kTagIframe}, {"svg", kSkip, kTagSvg},
    // Tags whose attributes matter.
    {"area", 0, kTagArea}, {"img", 0, kTagImg}, {"base", 0, kTagBase}, {"frame", 0, kTagFrame},
    {"link", 0, kTagLink}, {"meta", 0, kTagMeta},
};

constexpr size_t kMaxTagName = 16;
static_assert(kMaxTagName == 2 * sizeof(uint64_t));  // TagTable::Find's two words

uint32_t TagHash(const char* s, size_t n) {
  return (static_cast<uint32_t>(n) * 7u + static_cast<unsigned char>(s[0]) * 31u +
          static_cast<unsigned char>(s[n - 1]) * 17u + static_cast<unsigned char>(s[n / 2]) * 5u) &
         255u;
}

constexpr size_t ConstLength(const char* s) {
  size_t n = 0;
  while (s[n] != 0) ++n;
  return n;
}

// Open addressing over 256 slots, built at compile time.
struct TagTable {
  TagInfo slots[256] = {};
  constexpr TagTable() {
    for (const TagInfo& t : kTags) {
      size_t n = ConstLength(t.name);
      uint32_t h = (static_cast<uint32_t>(n) * 7u + static_cast<unsigned char>(t.name[0]) * 31u +
                    static_cast<unsigned char>(t.name[n - 1]) * 17u +
                    static_cast<unsigned char>(t.name[n / 2]) * 5u) & 255u;
      while (slots[h].name != nullptr) h = (h + 1) & 255u;
      slots[h] = t;
      slots[h].len = static_cast<uint8_t>(n);
      for (size_t i = 0; i < n; ++i) {
        slots[h].words[i / 8] |= uint64_t{static_cast<unsigned char>(t.name[i])} << (8 * (i % 8));
      }
    }
  }
  // REQUIRES: lower[0, kMaxTagName) holds the name zero padded; 0 < n <=
  // kMaxTagName. Two word compares instead of a call to memcmp.
  const TagInfo* Find(const char* lower, size_t n) const {
    uint64_t w[2];
    std::memcpy(w, lower, sizeof w);
    if constexpr (std::endian::native == std::endian::big) {
      w[0] = __builtin_bswap64(w[0]);
      w[1] = __builtin_bswap64(w[1]);
    }
    uint32_t h = TagHash(lower, n);
    while (slots[h].name != nullptr) {
      const TagInfo* t = &slots[h];
      if (t->words[0] == w[0] && t->words[1] == w[1] && t->len == n) return t;
      h = (h + 1) & 255u;
    }
    return nullptr;
  }
};
constexpr TagTable kTagTable;

const TagTable& Tags() { return kTagTable; }

// Position of "</name" (followed by white space, '/', '>' or the end) at or
// after p; `end` when absent (the element runs to the end of input).
const char* FindEndTag(const char* p, const char* end, const char* lower, size_t n) {
  while (p < end) {
    const char* lt = static_cast<const char*>(std::memchr(p, '<', static_cast<size_t>(end - p)));
    if (lt == nullptr) return end;
    if (static_cast<size_t>(end - lt) >= 2 + n && lt[1] == '/' &&
        EqualsIgnoreCase(lt + 2, lower, n)) {
      const char* after = lt + 2 + n;
      if (after == end || IsHtmlSpace(*after) || *after == '/' || *after == '>') return lt;
    }
    p = lt + 1;
  }
  return end;
}

// Trims an attribute URL the way browsers do (leading/trailing C0 and
// spaces; TAB, CR, LF removed anywhere; '\' read as '/').
void CleanUrl(std::string* s) {
  // Most URLs have nothing to clean: one pass says so, 16 bytes a step
  // with SSE2 (every x86-64).
  if (!s->empty() && static_cast<unsigned char>(s->front()) > 0x20 &&
      static_cast<unsigned char>(s->back()) > 0x20) {
    const char* p = s->data();
    const char* const end = p + s->size();
    bool dirty = false;
#if defined(__SSE2__)
    const __m128i tab = _mm_set1_epi8('\t'), lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
    const __m128i backslash = _mm_set1_epi8('\\');
    for (; end - p >= 16 && !dirty; p += 16) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      const __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, tab), _mm_cmpeq_epi8(x, lf)),
                                       _mm_or_si128(_mm_cmpeq_epi8(x, cr), _mm_cmpeq_epi8(x, backslash)));
      dirty = _mm_movemask_epi8(hit) != 0;
    }
#endif
    for (; p < end; ++p) dirty |= (*p == '\t') | (*p == '\n') | (*p == '\r') | (*p == '\\');
    if (!dirty) return;
  }
  size_t w = 0;
  for (char c : *s) {
    if (c == '\t' || c == '\n' || c == '\r') continue;
    (*s)[w++] = (c == '\\') ? '/' : c;
  }
  s->resize(w);
  size_t b = 0;
  while (b < s->size() && static_cast<unsigned char>((*s)[b]) <= 0x20) ++b;
  size_t e = s->size();
  while (e > b && static_cast<unsigned char>((*s)[e - 1]) <= 0x20) --e;
  if (b > 0 || e < s->size()) *s = s->substr(b, e - b);
}

bool SchemeIs(std::string_view scheme, std::string_view lower) {
  return EqualsIgnoreCase(scheme, lower);
}

// Whether `list` (white-space-separated tokens, as a rel attribute holds)
// holds `token`, in any case.
bool HasSpaceSeparatedToken(std::string_view list, std::string_view token) {
  size_t i = 0;
  while (i < list.size()) {
    while (i < list.size() && static_cast<unsigned char>(list[i]) <= 0x20) ++i;
    const size_t begin = i;
    while (i < list.size() && static_cast<unsigned char>(list[i]) > 0x20) ++i;
    if (i > begin && EqualsIgnoreCase(list.substr(begin, i - begin), token)) return true;
  }
  return false;
}

bool IsLinkScheme(std::string_view scheme) {
  return SchemeIs(scheme, "http") || SchemeIs(scheme, "https") || SchemeIs(scheme, "ftp") ||
         SchemeIs(scheme, "file");
}

bool SameSchemeIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (ToLowerAscii(a[i]) != ToLowerAscii(b[i])) return false;
  }
  return true;
}

// RFC 3986 resolution, with the WHATWG URL Standard's reading of a special
// scheme without "//" that pages write by mistake: "http:foo.com/x" is
// relative when the base has the same scheme, else "http://foo.com/x".
// Writes into *out; false when no absolute URL results. *scheme and
// *has_authority describe the result.
bool ResolveWebUrl(const UrlParts& base, std::string_view ref, std::string* out,
                   std::string* scratch, std::string_view* scheme, bool* has_authority) {
  UrlParts r = SplitUrl(ref);
  if (r.has_scheme && !r.has_authority &&
      (SchemeIs(r.scheme, "http") || SchemeIs(r.scheme, "https") || SchemeIs(r.scheme, "ftp") ||
       SchemeIs(r.scheme, "ws") || SchemeIs(r.scheme, "wss"))) {
    std::string_view rest = ref.substr(r.scheme.size() + 1);
    if (base.has_scheme && SameSchemeIgnoreCase(base.scheme, r.scheme)) {
      r = SplitUrl(rest);
    } else {
      size_t k = rest.find_first_not_of('/');
      rest = k == std::string_view::npos ? std::string_view() : rest.substr(k);
      scratch->assign(r.scheme);
      scratch->append("://");
      scratch->append(rest);
      r = SplitUrl(*scratch);
    }
  }
  if (!ResolveUrlTo(base, r, out)) return false;
  *scheme = r.has_scheme ? r.scheme : base.scheme;
  *has_authority = r.has_authority || (!r.has_scheme && base.has_authority);
  return true;
}

}  // namespace

// ---------------------------------------------------------------------------

Status TokenizeOptions::Validate() const {
  if (sentence_max_chars == 0) {
    return Status::InvalidArgument("TokenizeOptions.sentence_max_chars must be at least 1");
  }
  if (charset_prescan_bytes > (1u << 20)) {
    return Status::InvalidArgument("TokenizeOptions.charset_prescan_bytes must be at most 1 MiB");
  }
  return Status::OK();
}

void TokenizedDocument::Clear() {
  term_bytes.clear();
  term_offsets.clear();
  term_hashes.clear();
  sentence_ends.clear();
  line_ends.clear();
  line_link_terms.clear();
  line_is_cell.clear();
  url_spans.clear();
  links.clear();
  canonical_url.clear();
  title_begin = title_end = 0;
  text_chars = 0;
  charset.clear();
  charset_fallback = false;
  had_invalid_bytes = false;
  html = false;
}

struct Tokenizer::Impl {
  enum Mode { kHtml, kRcdataMode, kRawMode, kPlainMode };

  explicit Impl(const TokenizeOptions& o) : options(o) {}

  TokenizeOptions options;
  CharsetConverter charset;
  std::string scratch_terms;  // term bytes when keep_term_text is false
  std::string fold_buf;       // one code point case-folded
  std::string attr_buf;
  std::string url_buf;
  std::string scratch_url;
  std::string base_url;  // page URL, or the first <base href> resolved against it
  UrlParts base_parts;   // SplitUrl(base_url), views into base_url
  std::string page_host;
  bool base_seen = false;
  bool canonical_seen = false;  // out->canonical_url came from <link rel="canonical">
  bool title_seen = false;      // out->title_begin and title_end are the first <title>'s
  bool url_has_host = false;    // the page URL given has a host: canonical_url is not looked for
  bool base_on_page_host = false;  // base_parts has a scheme and the host page_host names (ImgTerm)

  // Per-document state.
  TokenizedDocument* out = nullptr;
  TermWriter terms;           // where term bytes go
  bool keep = true;
  bool in_term = false;
  bool term_split = false;    // the open term is one no-space-script letter
  bool pending_space = false; // white space seen since the last visible character
  bool cut_pending = false;   // a 150-character cut fell inside the open term
  size_t term_start = 0;
  uint64_t pos = 0;           // visible characters so far (= text_chars)
  uint64_t sent_start = 0;    // position where the current sentence started
  uint64_t max_chars = 150;
  int pre_depth = 0;
  bool in_link = false;          // inside <a href>: terms that start here are link text
  bool term_in_link = false;     // the open term started inside a link
  uint32_t line_link_terms = 0;  // link-text terms of the open line
  bool line_cell = false;        // the open line began at a table cell (<td>, <th>)
  bool in_url = false;           // inside a URL written in the text (url_spans)
  uint32_t url_start = 0;
  // An element whose end tag never comes (ElementEnd): the latest names
  // searched for in vain, each with the range searched (a later search for
  // the name within it fails too, so that many unclosed elements of a name
  // cost one pass over their range, not one each), kUnclosedSlots of them
  // taken in turn (about 15 names can be unclosed; ranges other than the
  // page's are CDATA sections, one after another); and where the page's
  // last "</body" or "</html" begins (nullptr: not looked for yet;
  // text_end: none).
  struct Unclosed {
    std::array<char, kMaxTagName> name{};
    const char* from = nullptr;
    const char* end = nullptr;
  };
  static constexpr size_t kUnclosedSlots = 32;
  std::array<Unclosed, kUnclosedSlots> unclosed;
  size_t unclosed_added = 0;
  const char* page_close = nullptr;
  const char* text_begin = nullptr;  // the page's text (UTF-8), as Scan reads it
  const char* text_end = nullptr;

  // --- Terms, sentences, lines -------------------------------------------
  void StartTerm() {
    if (!in_term) {
      in_term = true;
      term_in_link = in_link;
      term_start = terms.size();
    }
  }

  // Most calls find no term open (markup after white space): that test
  // inline, the term's end out of line.
  [[gnu::always_inline]] void EndTerm() {
    if (in_term) FinishTerm();
  }

  [[gnu::noinline]] void FinishTerm() {
    in_term = false;
    term_split = false;
    const size_t len = terms.size() - term_start;
    out->term_hashes.push_back(XXH3_64bits(terms.data() + term_start, len));
    if (term_in_link) ++line_link_terms;
    if (keep) {
      out->term_offsets.push_back(static_cast<uint32_t>(terms.size()));
    } else {
      terms.Truncate(term_start);
    }
    if (cut_pending) {
      cut_pending = false;
      CloseSentence();
    }
  }

  void CloseSentence() {
    cut_pending = false;
    const uint32_t n = static_cast<uint32_t>(out->term_hashes.size());
    if (n > (out->sentence_ends.empty() ? 0u : out->sentence_ends.back())) {
      out->sentence_ends.push_back(n);
    }
  }

  void LineEnd() {
    EndTerm();
    pending_space = true;
    if (in_url) CloseUrl();
    CloseLine();
  }

  void CloseLine() {
    const uint32_t n = static_cast<uint32_t>(out->term_hashes.size());
    if (n > (out->line_ends.empty() ? 0u : out->line_ends.back())) {
      out->line_ends.push_back(n);
      out->line_link_terms.push_back(line_link_terms);
      out->line_is_cell.push_back(line_cell ? 1 : 0);
    }
    line_link_terms = 0;
  }

  // White space, or markup replaced by white space: it ends the open term
  // and a URL written in the text.
  void Break() {
    EndTerm();
    pending_space = true;
    if (in_url) CloseUrl();
  }

  void CloseUrl() {
    in_url = false;
    const uint32_t n = static_cast<uint32_t>(out->term_hashes.size());
    if (n > url_start) {
      out->url_spans.push_back(url_start);
      out->url_spans.push_back(n);
    }
  }

  // One visible character at position `pos` (Pereira et al.: a sentence
  // ends after sentence_max_chars characters without a period; the next
  // starts at the following character).
  void CountOne() {
    if (pos - sent_start >= max_chars) {
      sent_start = pos;
      if (in_term) {
        cut_pending = true;  // the cut falls after the term that crosses it
      } else {
        CloseSentence();
      }
    }
    ++pos;
  }

  // A visible non-space character, preceded by one collapsed space if white
  // space came before it (not at the start of the text).
  void CountChar() {
    if (pending_space) {
      pending_space = false;
      if (pos > 0) CountOne();
    }
    CountOne();
  }

  void Other() {
    EndTerm();
    CountChar();
  }

  void Period() {
    EndTerm();
    CountChar();
    CloseSentence();
    sent_start = pos;
  }

  // A run [s, s + n) of [0-9A-Za-z]; bytes up to `end` may be read.
  void AsciiRun(const char* s, size_t n, const char* end) {
    if (term_split) EndTerm();
    // "http://" or "https://" (any case) starting a term opens a URL
    // written in the text (url_spans); glued to a term before it, it is
    // that term's end, not a URL.
    if ((n == 4 || n == 5) && !in_url && !in_term && end - (s + n) >= 3 && s[n] == ':' && s[n + 1] == '/' &&
        s[n + 2] == '/' && (s[0] | 0x20) == 'h' && (s[1] | 0x20) == 't' && (s[2] | 0x20) == 't' &&
        (s[3] | 0x20) == 'p' && (n == 4 || (s[4] | 0x20) == 's')) {
      in_url = true;
      url_start = static_cast<uint32_t>(out->term_hashes.size());
    }
    if (pending_space) {
      pending_space = false;
      if (pos > 0) CountOne();
    }
    if (pos + n - sent_start <= max_chars) {
      StartTerm();
      StoreLowerAlnum(s, n, end, terms.Reserve(n));
      terms.Commit(n);
      pos += n;
      return;
    }
    for (size_t i = 0; i < n; ++i) {  // a sentence cut falls inside the run
      CountOne();
      StartTerm();
      *terms.Reserve(1) = static_cast<char>(kAsciiLower[static_cast<unsigned char>(s[i])]);
      terms.Commit(1);
    }
  }

  // Appends code point cp, case-folded, to the open term.
  void AppendFolded(uint32_t cp) {
    fold_buf.clear();
    AppendFoldedCodePoint(cp, &fold_buf);
    terms.Append(fold_buf);
  }

  void CodePoint(uint32_t cp) {
    CharClass cls;
    if (cp < 0x80) {
      switch (kBytes.cls[cp]) {
        case kByteAlnum: cls = text_internal::kClassAlnum; break;
        case kByteSpace:
        case kByteNewline: cls = text_internal::kClassSpace; break;
        case kBytePeriod: cls = text_internal::kClassPeriod; break;
        default: cls = text_internal::kClassOther; break;
      }
    } else {
      cls = ClassifyCodePoint(cp);
    }
    switch (cls) {
      case text_internal::kClassAlnum:
        if (term_split) EndTerm();
        CountChar();
        StartTerm();
        AppendFolded(cp);
        break;
      case text_internal::kClassSplit:
        EndTerm();
        CountChar();
        StartTerm();
        term_split = true;
        AppendFolded(cp);
        break;
      case text_internal::kClassMark:
        CountChar();
        if (in_term) AppendFolded(cp);
        break;
      case text_internal::kClassSpace:  // &nbsp;, U+3000 and the like
        Break();
        break;
      case text_internal::kClassIgnore:
        break;
      case text_internal::kClassPeriod:
        Period();
        break;
      default:
        Other();
        break;
    }
  }

  // A whole term that is not visible text (an IMG URL).
  void EmitTerm(std::string_view utf8) {
    EndTerm();
    StartTerm();
    fold_buf.clear();
    AppendFoldedUtf8(utf8, &fold_buf);
    terms.Append(fold_buf);
    if (terms.size() == term_start) {  // nothing to fold into: no term
      in_term = false;
      return;
    }
    EndTerm();
  }

  // --- Text loop --------------------------------------------------------
  void Scan(const char* p, const char* end, Mode mode) {
    while (p < end) {
      // The three classes that make most of a page first, as branches the
      // predictor learns better than the switch's one indirect jump.
      const ByteClass c = static_cast<ByteClass>(kBytes.cls[static_cast<unsigned char>(*p)]);
      if (c == kByteAlnum) {
        const char* s = p++;
        p = SkipAsciiAlnum(p, end);
        AsciiRun(s, static_cast<size_t>(p - s), end);
        continue;
      }
      // Outside <pre> and plain text a newline is white space like any
      // other (indentation between tags: "\n    <div>").
      const bool newline_is_space = mode != kPlainMode && pre_depth == 0;
      if (c == kByteSpace || (c == kByteNewline && newline_is_space)) {
        Break();
        p = SkipAsciiSpace(p + 1, end, newline_is_space);
        continue;
      }
      if (c == kByteLt && mode == kHtml) {
        p = Markup(p, end);
        continue;
      }
      switch (c) {
        case kByteAlnum:
        case kByteSpace:
          break;  // taken above
        case kByteNewline:  // in <pre> or plain text: a line end
          EndTerm();
          pending_space = true;
          LineEnd();
          ++p;
          break;
        case kBytePeriod:
          Period();
          ++p;
          break;
        case kBytePunct:
          Other();
          ++p;
          break;
        case kByteLt:  // not markup outside HTML mode (markup is taken above)
          Other();
          ++p;
          break;
        case kByteAmp:
          if (mode == kHtml || mode == kRcdataMode) {
            p = CharRef(p, end);
          } else {
            Other();
            ++p;
          }
          break;
        case kByteHigh:
          CodePoint(DecodeValidUtf8(&p));
          break;
      }
    }
  }

  const char* CharRef(const char* p, const char* end) {
    uint32_t cps[2];
    int n = 0;
    size_t used = DecodeCharRef(p, end, /*in_attribute=*/false, cps, &n);
    if (used == 0) {
      Other();
      return p + 1;
    }
    for (int i = 0; i < n; ++i) CodePoint(cps[i]);
    return p + used;
  }

  // --- Markup -----------------------------------------------------------
  // REQUIRES: *p == '<'. Returns the position after the markup.
  const char* Markup(const char* p, const char* end) {
    const char* q = p + 1;
    if (q >= end) {
      Other();
      return end;
    }
    const char c = *q;
    if (IsAsciiAlpha(c)) return StartTag(q, end);
    if (c == '/') {
      if (q + 1 < end && IsAsciiAlpha(q[1])) return EndTag(q + 1, end);
      if (q + 1 < end && q[1] == '>') return q + 2;  // "</>" is dropped
      Break();
      return SkipPastGt(q, end);  // bogus comment
    }
    if (c == '!') {
      const size_t left = static_cast<size_t>(end - p);
      if (left >= 4 && q[1] == '-' && q[2] == '-') return Comment(p + 4, end);
      if (left >= 9 && std::memcmp(p, "<![CDATA[", 9) == 0) {
        // CDATA: feeds carry escaped-free HTML in it (RSS <description>),
        // which readers render; tokenize it as HTML up to "]]>".
        std::string_view rest(p + 9, left - 9);
        size_t close = rest.find("]]>");
        const char* content_end = close == std::string_view::npos ? end : p + 9 + close;
        Break();
        Scan(p + 9, content_end, kHtml);
        Break();
        return content_end == end ? end : content_end + 3;
      }
      Break();
      return SkipPastGt(q, end);  // <!DOCTYPE ...>, other declarations
    }
    if (c == '?') {
      Break();
      return SkipPastGt(q, end);  // <?xml ...?>, processing instructions
    }
    Other();  // '<' not starting markup is text
    return q;
  }

  // p is just after "<!--". HTML comment rules: "<!-->" and "<!--->" are
  // empty comments; the comment ends at "-->" or "--!>", or at the end.
  const char* Comment(const char* p, const char* end) {
    Break();
    if (p < end && *p == '>') return p + 1;
    if (end - p >= 2 && p[0] == '-' && p[1] == '>') return p + 2;
    const char* s = p;
    while (s < end) {
      const char* gt = static_cast<const char*>(std::memchr(s, '>', static_cast<size_t>(end - s)));
      if (gt == nullptr) return end;
      if (gt - p >= 2 && gt[-1] == '-' && gt[-2] == '-') return gt + 1;
      if (gt - p >= 3 && gt[-1] == '!' && gt[-2] == '-' && gt[-3] == '-') return gt + 1;
      s = gt + 1;
    }
    return end;
  }

  // Reads a tag name at p; lower-cases up to kMaxTagName bytes into lower.
  static const char* ReadTagName(const char* p, const char* end, char* lower, size_t* len) {
#if defined(__SSE2__)
    // Most names end within 16 bytes: one load finds the end (HTML white
    // space, '/', '>') and lower-cases the name, zero padded.
    static_assert(kMaxTagName == 16);
    if (end - p >= 16) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      auto eq = [&](char c) { return _mm_cmpeq_epi8(x, _mm_set1_epi8(c)); };
      const __m128i stop = _mm_or_si128(_mm_or_si128(_mm_or_si128(eq(' '), eq('\n')), _mm_or_si128(eq('\t'), eq('\r'))),
                                        _mm_or_si128(eq('\f'), _mm_or_si128(eq('/'), eq('>'))));
      const unsigned bits = static_cast<unsigned>(_mm_movemask_epi8(stop));
      if (bits != 0) {
        const unsigned n = static_cast<unsigned>(std::countr_zero(bits));
        // Bytes 'A'..'Z' get bit 5: (x - 'A') as unsigned is at most 25.
        const __m128i from_a = _mm_sub_epi8(x, _mm_set1_epi8('A'));
        const __m128i upper = _mm_cmpeq_epi8(_mm_min_epu8(from_a, _mm_set1_epi8(25)), from_a);
        const __m128i folded = _mm_or_si128(x, _mm_and_si128(upper, _mm_set1_epi8(0x20)));
        // Keep bytes [0, n): byte i of the index vector is i.
        const __m128i index = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        const __m128i keep = _mm_cmplt_epi8(index, _mm_set1_epi8(static_cast<char>(n)));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(lower), _mm_and_si128(folded, keep));
        *len = n;
        return p + n;
      }
    }
#endif
    size_t n = 0;
    while (p < end && !IsHtmlSpace(*p) && *p != '/' && *p != '>') {
      if (n < kMaxTagName) lower[n] = ToLowerAscii(*p);
      ++n;
      ++p;
    }
    *len = n;
    return p;
  }

  const char* StartTag(const char* name, const char* end) {
    char lower[kMaxTagName] = {};  // zero padded: TagTable::Find
    size_t len = 0;
    const char* q = ReadTagName(name, end, lower, &len);
    const TagInfo* tag = len <= kMaxTagName ? Tags().Find(lower, len) : nullptr;
    const uint16_t flags = tag ? tag->flags : 0;
    const TagId id = tag ? tag->id : kTagOther;
    bool self_closing = false;
    std::string_view url;  // href or src, as written
    const char* after;
    if (id == kTagOther || id == kTagSvg || id == kTagCell || ((id == kTagLink || id == kTagMeta) && url_has_host)) {
      after = ParseAttributes(q, end, &self_closing, [](std::string_view, std::string_view) {});
    } else if (id == kTagLink || id == kTagMeta) {
      // <link rel="canonical" href>, <meta property="og:url" content>
      // (or name="og:url"): the URL a page without a host names for itself.
      std::string_view kind, target;
      after = ParseAttributes(q, end, &self_closing, [&](std::string_view attr, std::string_view value) {
        if (id == kTagLink ? EqualsIgnoreCase(attr, "rel")
                           : EqualsIgnoreCase(attr, "property") || EqualsIgnoreCase(attr, "name")) {
          kind = value;
        } else if (EqualsIgnoreCase(attr, id == kTagLink ? "href" : "content")) {
          target = value;
        }
      });
      if (after != nullptr) CanonicalUrl(id == kTagLink, kind, target);
    } else {
      const bool want_src = id == kTagImg || id == kTagFrame || id == kTagIframe;
      bool found = false;
      after = ParseAttributes(q, end, &self_closing,
                              [&](std::string_view attr, std::string_view value) {
                                if (found) return;
                                if (EqualsIgnoreCase(attr, want_src ? "src" : "href")) {
                                  url = value;
                                  found = true;
                                }
                              });
    }
    if (after == nullptr) return end;  // a tag cut by the end of input is dropped (HTML5)
    if (!(flags & kFormat)) {
      if (flags & kBlock) {
        LineEnd();
        line_cell = id == kTagCell;
      } else {
        Break();
      }
    }
    switch (id) {
      case kTagImg: ImgTerm(url); break;
      case kTagA:
        if (!url.empty()) in_link = true;
        Link(url);
        break;
      case kTagArea:
      case kTagFrame:
      case kTagIframe: Link(url); break;
      case kTagBase: SetBase(url); break;
      default: break;
    }
    if (flags & kSkip) {
      if (id == kTagSvg && self_closing) return after;
      const char* close = ElementEnd(after, end, lower, len);
      Break();
      if (close == nullptr) return after;  // never closed, the page goes on: read on
      return close == end ? end : SkipPastGt(close + 2, end);
    }
    if (flags & (kRcdata | kRawText)) {
      const char* close = ElementEnd(after, end, lower, len);
      if (close == nullptr) {  // never closed, the page goes on: read on
        LineEnd();
        return after;
      }
      // The first <title>'s terms are the document's name (title_begin).
      const bool first_title = !title_seen && len == 5 && std::memcmp(lower, "title", 5) == 0;
      if (first_title) title_seen = true;
      const uint32_t terms_before = static_cast<uint32_t>(out->term_hashes.size());
      if (flags & kPre) ++pre_depth;
      Scan(after, close, (flags & kRcdata) ? kRcdataMode : kRawMode);
      if (flags & kPre) --pre_depth;
      LineEnd();
      if (first_title) {
        out->title_begin = terms_before;
        out->title_end = static_cast<uint32_t>(out->term_hashes.size());
      }
      return close == end ? end : SkipPastGt(close + 2, end);
    }
    if (flags & kPlaintext) {
      ++pre_depth;
      Scan(after, end, kRawMode);
      --pre_depth;
      return end;
    }
    if (flags & kPre) ++pre_depth;
    return after;
  }

  // Where the element whose contents begin at `after` ends: its end tag
  // "</name" (FindEndTag), or `end` when it has none and the page stops
  // there too (a page cut inside a script: the HTML5 rule, the rest is the
  // element's). nullptr when it has none but the page's "</body" or
  // "</html" comes after it: a title or a script never closed in a page
  // that goes on (a capture spliced or cut in its head) would otherwise
  // make all the rest one title, or drop it, and the page's text with it;
  // the caller reads on after the start tag as if the element were empty.
  const char* ElementEnd(const char* after, const char* end, const char* lower, size_t n) {
    std::array<char, kMaxTagName> name{};
    std::memcpy(name.data(), lower, std::min(n, kMaxTagName));
    bool known_unclosed = false;
    for (size_t k = 0; k < std::min(unclosed_added, kUnclosedSlots); ++k) {
      const Unclosed& u = unclosed[k];
      if (u.name == name && after >= u.from && end <= u.end) known_unclosed = true;
    }
    if (!known_unclosed) {
      const char* close = FindEndTag(after, end, lower, n);
      if (close != end) return close;
      unclosed[unclosed_added++ % kUnclosedSlots] = Unclosed{name, after, end};
    }
    if (page_close == nullptr) page_close = LastPageClose();
    return page_close != text_end && page_close >= after ? nullptr : end;
  }

  // Where the last "</body" or "</html" (any case) of the page begins;
  // text_end when there is none.
  const char* LastPageClose() const {
    for (const char* p = text_end; p - text_begin >= 1;) {
      --p;
      if (*p == '<' && text_end - p >= 6 && p[1] == '/' &&
          (EqualsIgnoreCase(p + 2, "body", 4) || EqualsIgnoreCase(p + 2, "html", 4))) {
        return p;
      }
    }
    return text_end;
  }

  const char* EndTag(const char* name, const char* end) {
    char lower[kMaxTagName] = {};  // zero padded: TagTable::Find
    size_t len = 0;
    const char* q = ReadTagName(name, end, lower, &len);
    const TagInfo* tag = len <= kMaxTagName ? Tags().Find(lower, len) : nullptr;
    const uint16_t flags = tag ? tag->flags : 0;
    bool self_closing = false;
    const char* after =
        ParseAttributes(q, end, &self_closing, [](std::string_view, std::string_view) {});
    if (after == nullptr) return end;
    if (tag != nullptr && tag->id == kTagA) in_link = false;
    if (flags & kFormat) return after;
    if (flags & kBlock) {
      LineEnd();
      line_cell = false;
    } else {
      Break();
    }
    if ((flags & kPre) && !(flags & (kRcdata | kRawText)) && pre_depth > 0) --pre_depth;
    return after;
  }

  // --- URLs -------------------------------------------------------------
  // Decodes and cleans an attribute URL into attr_buf; false when empty.
  bool LoadUrl(std::string_view raw) {
    // data: and javascript: URLs never make terms or links; they can be
    // long (inline base64 images), so reject them before copying.
    size_t b = 0;
    while (b < raw.size() && static_cast<unsigned char>(raw[b]) <= 0x20) ++b;
    std::string_view head = raw.substr(b, 11);
    if ((head.size() >= 5 && EqualsIgnoreCase(head.substr(0, 5), "data:")) ||
        (head.size() >= 11 && EqualsIgnoreCase(head, "javascript:"))) {
      return false;
    }
    attr_buf.clear();
    AppendAttributeDecoded(raw, &attr_buf);
    CleanUrl(&attr_buf);
    return !attr_buf.empty();
  }

  // Henzinger §2 exception (2): the IMG URL is one term; the whole URL when
  // it points to another host, only the file name on the page's own host.
  void ImgTerm(std::string_view raw) {
    if (!LoadUrl(raw)) return;
    if (base_on_page_host) {
      // A reference with neither scheme nor authority resolves onto the
      // base's host, the page's own: its term is the resolved path's last
      // segment, which resolution (RFC 3986 §5.2) leaves as the reference
      // wrote it, or empty where that is "." or ".." (remove_dot_segments
      // ends the path with '/'), or the base path's when the reference has
      // no path. The same term as resolving, without building the URL.
      const UrlParts ref = SplitUrl(attr_buf);
      if (!ref.has_scheme && !ref.has_authority) {
        const std::string_view path = ref.path.empty() ? base_parts.path : ref.path;
        const size_t slash = path.rfind('/');
        const std::string_view file = slash == std::string_view::npos ? path : path.substr(slash + 1);
        const bool dots = !ref.path.empty() && (file == "." || file == "..");
        if (!file.empty() && !dots) EmitTerm(file);
        return;
      }
    }
    std::string_view target = attr_buf;
    std::string_view scheme;
    bool has_authority = false;
    if (ResolveWebUrl(base_parts, attr_buf, &url_buf, &scratch_url, &scheme, &has_authority)) {
      target = url_buf;
    }
    const UrlParts parts = SplitUrl(target);
    bool own_host = true;
    if (parts.has_authority) own_host = !page_host.empty() && UrlHostIs(parts, page_host);
    if (own_host) {
      std::string_view path = parts.path;
      size_t slash = path.rfind('/');
      std::string_view file = slash == std::string_view::npos ? path : path.substr(slash + 1);
      if (!file.empty()) EmitTerm(file);
    } else {
      EmitTerm(NormalizeUrl(target));
    }
  }

  void Link(std::string_view raw) {
    if (!options.collect_links || !LoadUrl(raw)) return;
    if (attr_buf[0] == '#') return;  // same-document fragment

    // Relative with no absolute base to resolve it against: dropped.
    std::string_view scheme;
    bool has_authority = false;
    if (!ResolveWebUrl(base_parts, attr_buf, &url_buf, &scratch_url, &scheme, &has_authority)) {
      return;
    }
    if (!IsLinkScheme(scheme)) return;
    if (!has_authority && !SchemeIs(scheme, "file")) return;
    out->links.push_back(NormalizeUrl(url_buf));
  }

  // Records the URL a page names for itself (TokenizedDocument::
  // canonical_url): a canonical link's, else the first og:url's.
  void CanonicalUrl(bool link, std::string_view kind, std::string_view raw) {
    if (canonical_seen || (!link && !out->canonical_url.empty())) return;
    if (link ? !HasSpaceSeparatedToken(kind, "canonical") : !HasSpaceSeparatedToken(kind, "og:url")) {
      return;
    }
    if (!LoadUrl(raw)) return;
    std::string_view scheme;
    bool has_authority = false;
    if (!ResolveWebUrl(base_parts, attr_buf, &url_buf, &scratch_url, &scheme, &has_authority)) return;
    if (!has_authority || !(SchemeIs(scheme, "http") || SchemeIs(scheme, "https"))) return;
    out->canonical_url = url_buf;
    canonical_seen = link;
  }

  void SetBase(std::string_view raw) {
    if (base_seen || !LoadUrl(raw)) return;
    base_seen = true;
    std::string_view scheme;
    bool has_authority = false;
    if (!ResolveWebUrl(base_parts, attr_buf, &url_buf, &scratch_url, &scheme, &has_authority)) {
      return;
    }
    base_url = url_buf;
    base_parts = SplitUrl(base_url);
    if (page_host.empty()) page_host = UrlHost(base_url);
    NoteBaseHost();
  }

  void NoteBaseHost() {
    base_on_page_host = base_parts.has_scheme && base_parts.has_authority && !page_host.empty() &&
                        UrlHostIs(base_parts, page_host);
  }

  // --- Driver -------------------------------------------------------------
  void Run(std::string_view body, ContentKind kind, std::string_view declared,
           std::string_view page_url, TokenizedDocument* o) {
    o->Clear();
    out = o;
    keep = options.keep_term_text;
    if (keep) o->term_offsets.push_back(0);
    in_term = term_split = pending_space = cut_pending = false;
    term_start = 0;
    pos = sent_start = 0;
    max_chars = options.sentence_max_chars;
    pre_depth = 0;
    in_link = false;
    in_url = false;
    line_link_terms = 0;
    line_cell = false;
    base_seen = false;
    canonical_seen = false;
    title_seen = false;
    base_url.assign(page_url);
    CleanUrl(&base_url);
    base_parts = SplitUrl(base_url);
    if (!base_parts.has_scheme) {
      base_url.clear();
      base_parts = UrlParts();
    }
    page_host = UrlHost(base_url);
    url_has_host = !page_host.empty();
    NoteBaseHost();

    CharsetDecision decision;
    bool had_invalid = false;
    const bool html = kind == ContentKind::kHtml;
    std::string_view text = charset.ToUtf8(body, declared, html, options.charset_prescan_bytes,
                                           &decision, &had_invalid);
    o->html = html;
    o->charset = decision.charset;
    o->charset_fallback = decision.fallback;
    o->had_invalid_bytes = had_invalid;
    // Most pages hold fewer term bytes than half their text. Terms not
    // kept are written over one another (EndTerm truncates): their scratch
    // keeps its room from page to page.
    terms.Start(keep ? &o->term_bytes : &scratch_terms, keep ? text.size() / 2 : 0);

    text_begin = text.data();
    text_end = text.data() + text.size();
    page_close = nullptr;
    unclosed_added = 0;
    Scan(text.data(), text.data() + text.size(), html ? kHtml : kPlainMode);

    EndTerm();
    if (in_url) CloseUrl();
    if (keep) terms.Finish();
    const uint32_t n = static_cast<uint32_t>(o->term_hashes.size());
    if (n > (o->sentence_ends.empty() ? 0u : o->sentence_ends.back())) o->sentence_ends.push_back(n);
    CloseLine();
    o->text_chars = pos;
    out = nullptr;
  }
};

Tokenizer::Tokenizer(const TokenizeOptions& options) : impl_(std::make_unique<Impl>(options)) {
  NEARDUP_CHECK(options.Validate().ok());
}

Tokenizer::~Tokenizer() = default;

void Tokenizer::Tokenize(std::string_view body, ContentKind kind,
                         std::string_view declared_charset, std::string_view page_url,
                         TokenizedDocument* out) {
  impl_->Run(body, kind, declared_charset, page_url, out);
}

}  // namespace neardup
