// Copyright neardup authors. Licensed under Apache-2.0.
//
// Charset decision and conversion to UTF-8 for crawled pages.
//
// Order (WHATWG HTML "Determining the character encoding", with the prescan
// window widened and a content check added):
//   1. A byte order mark: UTF-8, UTF-16LE/BE, UTF-32LE/BE (the BOM is removed).
//      Without a BOM, a body starting "<\0" / "\0<" / "<\0\0\0" / "\0\0\0<"
//      is read as UTF-16/32 (XML 1.0 Appendix F autodetection).
//   2. The HTTP Content-Type charset, if the label is known (a UTF-16/32 label
//      only when the bytes hold NULs as such text does).
//   3. For HTML: <meta charset>, <meta http-equiv=content-type content=...>
//      or <?xml ... encoding=...?> in the first `prescan_bytes` bytes
//      (comments skipped; a UTF-16/32 label there means UTF-8, as in HTML).
//   4. Content check: a declared non-UTF-8 charset is overruled when the body
//      is valid UTF-8 and holds non-ASCII bytes (pages re-saved as UTF-8 keep
//      stale "iso-8859-1"/"shift_jis" declarations; legacy-encoded text is
//      almost never valid UTF-8). Undeclared bodies that are valid UTF-8 are
//      UTF-8; otherwise ICU's charset detector (ucsdet) picks one when it is
//      at least 10% confident, else windows-1252.
// Labels are resolved by the WHATWG Encoding Standard's label table
// ("latin1", "iso-8859-1", "ascii" mean windows-1252; "gb2312" means GBK;
// "tis-620" means windows-874; ...), then by ICU's alias table (IBM855,
// MacCyrillic, UTF-32, ...). Unknown labels ("iso-1252", "0", "big5_solaris")
// count as no declaration.
//
// Internal to src/text (the tokenizer's first step); not thread-safe.
#ifndef NEARDUP_TEXT_CHARSET_H_
#define NEARDUP_TEXT_CHARSET_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace neardup {

// Canonical lower-case name of a charset label ("Latin1" -> "windows-1252",
// "x-sjis" -> "shift_jis", "IBM855" -> "ibm855"); "" when unknown. Leading and
// trailing white space and quotes are ignored.
std::string CanonicalCharsetName(std::string_view label);

// The charset label declared by a <meta> tag or an XML declaration in
// head (raw bytes, ASCII-compatible); "" when none. Not resolved.
std::string PrescanCharsetLabel(std::string_view head);

struct Utf8Stats {
  bool valid = true;           // well-formed UTF-8 (Unicode Table 3-7)
  bool has_non_ascii = false;  // some byte >= 0x80
};
// Leading ASCII sixteen bytes at a time; from the first byte >= 0x80 on,
// simdjson's SIMD validator (its kernel chosen at run time).
Utf8Stats ScanUtf8(std::string_view s);

// Copies `s` to *out (replacing its content) with every maximal ill-formed
// subsequence replaced by U+FFFD (Unicode §3.9 "substitution of maximal
// subparts", as WHATWG's UTF-8 decoder). Returns the number of replacements.
size_t SanitizeUtf8(std::string_view s, std::string* out);

// How the charset was chosen.
enum class CharsetSource : uint8_t {
  kBom,           // byte order mark (or XML autodetection of UTF-16/32)
  kHeader,        // HTTP Content-Type charset
  kMeta,          // <meta> or <?xml encoding?>
  kUtf8Content,   // bytes are valid UTF-8 (declaration absent or overruled)
  kDetector,      // ICU ucsdet
  kDefault,       // windows-1252 fallback
};

struct CharsetDecision {
  std::string charset;        // canonical lower-case name
  CharsetSource source = CharsetSource::kDefault;
  size_t bom_length = 0;      // bytes of BOM to skip
  bool fallback = false;      // a declaration was present but overruled
};

// Decides charsets and converts bodies to UTF-8, caching one ICU converter
// per charset name (reset, not reopened, between documents) and the ICU
// detector. One per thread.
class CharsetConverter {
 public:
  CharsetConverter();
  ~CharsetConverter();
  CharsetConverter(const CharsetConverter&) = delete;
  CharsetConverter& operator=(const CharsetConverter&) = delete;

  // Decides the charset of `body` (see the file comment). `html` enables the
  // <meta> prescan over the first `prescan_bytes` bytes.
  CharsetDecision Decide(std::string_view body, std::string_view declared_charset, bool html,
                         size_t prescan_bytes);

  // Decides and converts. Returns `body` itself (minus a BOM) when it is
  // already valid UTF-8, or pure ASCII in an ASCII-compatible charset (no
  // ICU call); otherwise the UTF-8 text in an internal buffer, valid until
  // the next call. *had_invalid is set when bytes had to be replaced by U+FFFD.
  std::string_view ToUtf8(std::string_view body, std::string_view declared_charset, bool html,
                          size_t prescan_bytes, CharsetDecision* decision, bool* had_invalid);

  // Converts `bytes` from the charset with canonical name `charset` into
  // *out (replaced). Returns false when ICU has no converter for it.
  bool Convert(std::string_view bytes, const std::string& charset, std::string* out,
               bool* had_invalid);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace neardup

#endif  // NEARDUP_TEXT_CHARSET_H_
