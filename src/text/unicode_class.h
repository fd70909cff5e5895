// Copyright neardup authors. Licensed under Apache-2.0.
//
// Per-code-point classes and case folding for the tokenizer (internal to
// src/text). A term is a maximal run of letters and digits (Unicode general
// categories L* and N*), combining marks (Mn, Mc, Me) continuing a term;
// letters of scripts written without spaces between words (Han, Hiragana,
// Katakana, Thai, Lao, Khmer, Myanmar) are each a term of their own, so that
// shingles over Chinese or Japanese text see characters rather than whole
// paragraphs (the usual character-unigram choice of CJK retrieval).
//
// Folding is Unicode full case folding (CaseFolding.txt C+F, ICU
// u_strFoldCase with U_FOLD_CASE_DEFAULT): "Straße" and "STRASSE" give the
// same term. No normalisation (NFC/NFKC) is applied.
//
// BMP code points are answered from tables built once per process (thread-safe
// lazy init, about 192 KiB); other planes call ICU.
#ifndef NEARDUP_TEXT_UNICODE_CLASS_H_
#define NEARDUP_TEXT_UNICODE_CLASS_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace neardup::text_internal {

enum CharClass : uint8_t {
  kClassOther = 0,  // punctuation, symbols, controls that are visible: ends a term
  kClassSpace,      // white space (Z*, C0 controls, U+0085, U+200B): ends a term
  kClassAlnum,      // L*, N*: part of a term
  kClassMark,       // Mn, Mc, Me: continues a term, else an ordinary character
  kClassSplit,      // a letter of a script without word spaces: a term alone
  kClassIgnore,     // default-ignorable format characters (soft hyphen, ZWJ,
                    // ZWNJ, word joiner, BOM, bidi marks): no effect at all
  kClassPeriod,     // '.', U+3002 '。', U+FF0E '．', U+FF61 '｡': ends a sentence
};

// Class of a code point (c <= 0x10FFFF, not a surrogate).
CharClass ClassifyCodePoint(uint32_t c);

// Appends the full case folding of `c` to *out as UTF-8.
void AppendFoldedCodePoint(uint32_t c, std::string* out);

// Appends the full case folding of valid UTF-8 `s` to *out.
void AppendFoldedUtf8(std::string_view s, std::string* out);

// Appends `c` as UTF-8 (REQUIRES: c <= 0x10FFFF).
inline void AppendUtf8(uint32_t c, std::string* out) {
  char b[4];
  size_t n;
  if (c < 0x80) {
    b[0] = static_cast<char>(c);
    n = 1;
  } else if (c < 0x800) {
    b[0] = static_cast<char>(0xC0 | (c >> 6));
    b[1] = static_cast<char>(0x80 | (c & 0x3F));
    n = 2;
  } else if (c < 0x10000) {
    b[0] = static_cast<char>(0xE0 | (c >> 12));
    b[1] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    b[2] = static_cast<char>(0x80 | (c & 0x3F));
    n = 3;
  } else {
    b[0] = static_cast<char>(0xF0 | (c >> 18));
    b[1] = static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    b[2] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    b[3] = static_cast<char>(0x80 | (c & 0x3F));
    n = 4;
  }
  out->append(b, n);
}

// Decodes one code point of VALID UTF-8 at *p (REQUIRES: *p < end and the
// sequence is complete and well-formed) and advances *p.
inline uint32_t DecodeValidUtf8(const char** p) {
  const unsigned char* s = reinterpret_cast<const unsigned char*>(*p);
  uint32_t c = s[0];
  if (c < 0x80) {
    *p += 1;
    return c;
  }
  if (c < 0xE0) {
    *p += 2;
    return ((c & 0x1F) << 6) | (s[1] & 0x3F);
  }
  if (c < 0xF0) {
    *p += 3;
    return ((c & 0x0F) << 12) | ((s[1] & 0x3F) << 6) | (s[2] & 0x3F);
  }
  *p += 4;
  return ((c & 0x07) << 18) | ((s[1] & 0x3F) << 12) | ((s[2] & 0x3F) << 6) | (s[3] & 0x3F);
}

// ASCII lower-case table (bytes >= 0x80 map to themselves).
extern const unsigned char kAsciiLower[256];

}  // namespace neardup::text_internal

#endif  // NEARDUP_TEXT_UNICODE_CLASS_H_
