// Copyright neardup authors. Licensed under Apache-2.0.
#include "text/unicode_class.h"

#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>

#include <memory>

namespace neardup::text_internal {
namespace {

bool IsSplitScript(UChar32 c) {
  // Kana punctuation-like letters (U+30FC prolonged sound mark, iteration
  // marks) are script Common or Inherited; treat the CJK symbol and kana
  // blocks and half-width katakana as split by position.
  if ((c >= 0x3000 && c <= 0x30FF) || (c >= 0x31F0 && c <= 0x31FF) ||
      (c >= 0xFF66 && c <= 0xFF9F)) {
    return true;
  }
  UErrorCode err = U_ZERO_ERROR;
  UScriptCode s = uscript_getScript(c, &err);
  if (U_FAILURE(err)) return false;
  switch (s) {
    case USCRIPT_HAN:
    case USCRIPT_HIRAGANA:
    case USCRIPT_KATAKANA:
    case USCRIPT_KATAKANA_OR_HIRAGANA:
    case USCRIPT_THAI:
    case USCRIPT_LAO:
    case USCRIPT_KHMER:
    case USCRIPT_MYANMAR:
      return true;
    default:
      return false;
  }
}

CharClass ComputeClass(UChar32 c) {
  if (c == '.' || c == 0x3002 || c == 0xFF0E || c == 0xFF61) return kClassPeriod;
  if (c < 0x20 || c == 0x7F || c == 0x85 || c == 0x200B) return kClassSpace;
  uint32_t mask = U_GET_GC_MASK(c);
  if (mask & (U_GC_ZS_MASK | U_GC_ZL_MASK | U_GC_ZP_MASK)) return kClassSpace;
  if (mask & (U_GC_L_MASK | U_GC_N_MASK)) {
    return IsSplitScript(c) ? kClassSplit : kClassAlnum;
  }
  if (mask & (U_GC_MN_MASK | U_GC_MC_MASK | U_GC_ME_MASK)) return kClassMark;
  if (mask & U_GC_CF_MASK) return kClassIgnore;
  if (c >= 0x80 && c < 0xA0) return kClassSpace;  // C1 controls
  return kClassOther;
}

// Full case folding of one code point into UTF-16 (at most 3 units).
int32_t FoldToUtf16(UChar32 c, UChar* dst, int32_t cap) {
  UChar src[2];
  int32_t n = 0;
  U16_APPEND_UNSAFE(src, n, c);
  UErrorCode err = U_ZERO_ERROR;
  int32_t len = u_strFoldCase(dst, cap, src, n, U_FOLD_CASE_DEFAULT, &err);
  if (U_FAILURE(err) || len <= 0 || len > cap) {
    int32_t m = 0;
    U16_APPEND_UNSAFE(dst, m, c);
    return m;
  }
  return len;
}

struct BmpTables {
  CharClass cls[0x10000];
  // Folded BMP code point, or 0 when the folding is not one BMP code point
  // (ß -> "ss", ligatures, ...): such code points take the ICU path.
  uint16_t fold[0x10000];

  BmpTables() {
    for (UChar32 c = 0; c < 0x10000; ++c) {
      if (c >= 0xD800 && c <= 0xDFFF) {
        cls[c] = kClassOther;
        fold[c] = static_cast<uint16_t>(c);
        continue;
      }
      cls[c] = ComputeClass(c);
      UChar buf[8];
      int32_t len = FoldToUtf16(c, buf, 8);
      if (len == 1 && !U16_IS_SURROGATE(buf[0])) {
        fold[c] = buf[0];
      } else {
        fold[c] = 0;
      }
    }
  }
};

const BmpTables& Tables() {
  static const BmpTables* tables = new BmpTables();  // never destroyed
  return *tables;
}

}  // namespace

const unsigned char kAsciiLower[256] = {
#define R(b) b, b + 1, b + 2, b + 3, b + 4, b + 5, b + 6, b + 7
    R(0x00), R(0x08), R(0x10), R(0x18), R(0x20), R(0x28), R(0x30), R(0x38),
    0x40, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o',
    'p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z', 0x5B, 0x5C, 0x5D, 0x5E, 0x5F,
    R(0x60), R(0x68), R(0x70), R(0x78), R(0x80), R(0x88), R(0x90), R(0x98),
    R(0xA0), R(0xA8), R(0xB0), R(0xB8), R(0xC0), R(0xC8), R(0xD0), R(0xD8),
    R(0xE0), R(0xE8), R(0xF0), R(0xF8)
#undef R
};

CharClass ClassifyCodePoint(uint32_t c) {
  if (c < 0x10000) return Tables().cls[c];
  return ComputeClass(static_cast<UChar32>(c));
}

void AppendFoldedCodePoint(uint32_t c, std::string* out) {
  if (c < 0x80) {
    out->push_back(static_cast<char>(kAsciiLower[c]));
    return;
  }
  if (c < 0x10000) {
    uint16_t f = Tables().fold[c];
    if (f != 0) {
      AppendUtf8(f, out);
      return;
    }
  }
  UChar buf[8];
  int32_t len = FoldToUtf16(static_cast<UChar32>(c), buf, 8);
  for (int32_t i = 0; i < len;) {
    UChar32 d;
    U16_NEXT_UNSAFE(buf, i, d);
    AppendUtf8(static_cast<uint32_t>(d), out);
  }
}

void AppendFoldedUtf8(std::string_view s, std::string* out) {
  const char* p = s.data();
  const char* end = p + s.size();
  while (p < end) {
    const char* run = p;  // a run of ASCII: folding is lower-casing, stored at once
    while (p < end && static_cast<unsigned char>(*p) < 0x80) ++p;
    if (p > run) {
      const size_t at = out->size();
      out->resize(at + static_cast<size_t>(p - run));
      char* d = out->data() + at;
      for (const char* q = run; q < p; ++q) {
        const unsigned char c = static_cast<unsigned char>(*q);
        *d++ = static_cast<char>(c | (static_cast<unsigned>(c - 'A') < 26u ? 0x20 : 0));
      }
      continue;
    }
    uint32_t c = DecodeValidUtf8(&p);
    AppendFoldedCodePoint(c, out);
  }
}

}  // namespace neardup::text_internal
