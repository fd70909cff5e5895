// Copyright neardup authors. Licensed under Apache-2.0.
#include "text/charset.h"

#include <unicode/ucnv.h>
#include <unicode/ucnv_cb.h>
#include <unicode/ucsdet.h>

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <utility>
#include <vector>

#include "text/html_lex.h"

namespace neardup {
namespace {

using text_internal::EqualsIgnoreCase;
using text_internal::IsHtmlSpace;
using text_internal::ToLowerAscii;

// WHATWG Encoding Standard labels (https://encoding.spec.whatwg.org/#names-and-labels),
// plus a few common non-WHATWG aliases seen in crawls (cp932, cp949, ...).
struct LabelRow {
  const char* label;
  const char* canonical;
};
constexpr LabelRow kLabels[] = {
    {"unicode-1-1-utf-8", "utf-8"}, {"unicode11utf8", "utf-8"}, {"unicode20utf8", "utf-8"},
    {"utf-8", "utf-8"}, {"utf8", "utf-8"}, {"x-unicode20utf8", "utf-8"},
    {"866", "ibm866"}, {"cp866", "ibm866"}, {"csibm866", "ibm866"}, {"ibm866", "ibm866"},
    {"csisolatin2", "iso-8859-2"}, {"iso-8859-2", "iso-8859-2"}, {"iso-ir-101", "iso-8859-2"},
    {"iso8859-2", "iso-8859-2"}, {"iso88592", "iso-8859-2"}, {"iso_8859-2", "iso-8859-2"},
    {"iso_8859-2:1987", "iso-8859-2"}, {"l2", "iso-8859-2"}, {"latin2", "iso-8859-2"},
    {"csisolatin3", "iso-8859-3"}, {"iso-8859-3", "iso-8859-3"}, {"iso-ir-109", "iso-8859-3"},
    {"iso8859-3", "iso-8859-3"}, {"iso88593", "iso-8859-3"}, {"iso_8859-3", "iso-8859-3"},
    {"iso_8859-3:1988", "iso-8859-3"}, {"l3", "iso-8859-3"}, {"latin3", "iso-8859-3"},
    {"csisolatin4", "iso-8859-4"}, {"iso-8859-4", "iso-8859-4"}, {"iso-ir-110", "iso-8859-4"},
    {"iso8859-4", "iso-8859-4"}, {"iso88594", "iso-8859-4"}, {"iso_8859-4", "iso-8859-4"},
    {"iso_8859-4:1988", "iso-8859-4"}, {"l4", "iso-8859-4"}, {"latin4", "iso-8859-4"},
    {"csisolatincyrillic", "iso-8859-5"}, {"cyrillic", "iso-8859-5"},
    {"iso-8859-5", "iso-8859-5"}, {"iso-ir-144", "iso-8859-5"}, {"iso8859-5", "iso-8859-5"},
    {"iso88595", "iso-8859-5"}, {"iso_8859-5", "iso-8859-5"}, {"iso_8859-5:1988", "iso-8859-5"},
    {"arabic", "iso-8859-6"}, {"asmo-708", "iso-8859-6"}, {"csiso88596e", "iso-8859-6"},
    {"csiso88596i", "iso-8859-6"}, {"csisolatinarabic", "iso-8859-6"}, {"ecma-114", "iso-8859-6"},
    {"iso-8859-6", "iso-8859-6"}, {"iso-8859-6-e", "iso-8859-6"}, {"iso-8859-6-i", "iso-8859-6"},
    {"iso-ir-127", "iso-8859-6"}, {"iso8859-6", "iso-8859-6"}, {"iso88596", "iso-8859-6"},
    {"iso_8859-6", "iso-8859-6"}, {"iso_8859-6:1987", "iso-8859-6"},
    {"csisolatingreek", "iso-8859-7"}, {"ecma-118", "iso-8859-7"}, {"elot_928", "iso-8859-7"},
    {"greek", "iso-8859-7"}, {"greek8", "iso-8859-7"}, {"iso-8859-7", "iso-8859-7"},
    {"iso-ir-126", "iso-8859-7"}, {"iso8859-7", "iso-8859-7"}, {"iso88597", "iso-8859-7"},
    {"iso_8859-7", "iso-8859-7"}, {"iso_8859-7:1987", "iso-8859-7"}, {"sun_eu_greek", "iso-8859-7"},
    {"csiso88598e", "iso-8859-8"}, {"csisolatinhebrew", "iso-8859-8"}, {"hebrew", "iso-8859-8"},
    {"iso-8859-8", "iso-8859-8"}, {"iso-8859-8-e", "iso-8859-8"}, {"iso-ir-138", "iso-8859-8"},
    {"iso8859-8", "iso-8859-8"}, {"iso88598", "iso-8859-8"}, {"iso_8859-8", "iso-8859-8"},
    {"iso_8859-8:1988", "iso-8859-8"}, {"visual", "iso-8859-8"},
    {"csiso88598i", "iso-8859-8-i"}, {"iso-8859-8-i", "iso-8859-8-i"}, {"logical", "iso-8859-8-i"},
    {"csisolatin6", "iso-8859-10"}, {"iso-8859-10", "iso-8859-10"}, {"iso-ir-157", "iso-8859-10"},
    {"iso8859-10", "iso-8859-10"}, {"iso885910", "iso-8859-10"}, {"l6", "iso-8859-10"},
    {"latin6", "iso-8859-10"},
    {"iso-8859-13", "iso-8859-13"}, {"iso8859-13", "iso-8859-13"}, {"iso885913", "iso-8859-13"},
    {"iso-8859-14", "iso-8859-14"}, {"iso8859-14", "iso-8859-14"}, {"iso885914", "iso-8859-14"},
    {"csisolatin9", "iso-8859-15"}, {"iso-8859-15", "iso-8859-15"}, {"iso8859-15", "iso-8859-15"},
    {"iso885915", "iso-8859-15"}, {"iso_8859-15", "iso-8859-15"}, {"l9", "iso-8859-15"},
    {"iso-8859-16", "iso-8859-16"},
    {"cskoi8r", "koi8-r"}, {"koi", "koi8-r"}, {"koi8", "koi8-r"}, {"koi8-r", "koi8-r"},
    {"koi8_r", "koi8-r"}, {"koi8-ru", "koi8-u"}, {"koi8-u", "koi8-u"},
    {"csmacintosh", "macintosh"}, {"mac", "macintosh"}, {"macintosh", "macintosh"},
    {"x-mac-roman", "macintosh"},
    {"dos-874", "windows-874"}, {"iso-8859-11", "windows-874"}, {"iso8859-11", "windows-874"},
    {"iso885911", "windows-874"}, {"tis-620", "windows-874"}, {"windows-874", "windows-874"},
    {"cp1250", "windows-1250"}, {"windows-1250", "windows-1250"}, {"x-cp1250", "windows-1250"},
    {"cp1251", "windows-1251"}, {"windows-1251", "windows-1251"}, {"x-cp1251", "windows-1251"},
    {"ansi_x3.4-1968", "windows-1252"}, {"ascii", "windows-1252"}, {"cp1252", "windows-1252"},
    {"cp819", "windows-1252"}, {"csisolatin1", "windows-1252"}, {"ibm819", "windows-1252"},
    {"iso-8859-1", "windows-1252"}, {"iso-ir-100", "windows-1252"}, {"iso8859-1", "windows-1252"},
    {"iso88591", "windows-1252"}, {"iso_8859-1", "windows-1252"},
    {"iso_8859-1:1987", "windows-1252"}, {"l1", "windows-1252"}, {"latin1", "windows-1252"},
    {"us-ascii", "windows-1252"}, {"windows-1252", "windows-1252"}, {"x-cp1252", "windows-1252"},
    {"cp1253", "windows-1253"}, {"windows-1253", "windows-1253"}, {"x-cp1253", "windows-1253"},
    {"cp1254", "windows-1254"}, {"csisolatin5", "windows-1254"}, {"iso-8859-9", "windows-1254"},
    {"iso-ir-148", "windows-1254"}, {"iso8859-9", "windows-1254"}, {"iso88599", "windows-1254"},
    {"iso_8859-9", "windows-1254"}, {"iso_8859-9:1989", "windows-1254"}, {"l5", "windows-1254"},
    {"latin5", "windows-1254"}, {"windows-1254", "windows-1254"}, {"x-cp1254", "windows-1254"},
    {"cp1255", "windows-1255"}, {"windows-1255", "windows-1255"}, {"x-cp1255", "windows-1255"},
    {"cp1256", "windows-1256"}, {"windows-1256", "windows-1256"}, {"x-cp1256", "windows-1256"},
    {"cp1257", "windows-1257"}, {"windows-1257", "windows-1257"}, {"x-cp1257", "windows-1257"},
    {"cp1258", "windows-1258"}, {"windows-1258", "windows-1258"}, {"x-cp1258", "windows-1258"},
    {"x-mac-cyrillic", "x-mac-cyrillic"}, {"x-mac-ukrainian", "x-mac-cyrillic"},
    {"maccyrillic", "x-mac-cyrillic"},
    {"chinese", "gbk"}, {"csgb2312", "gbk"}, {"csiso58gb231280", "gbk"}, {"gb2312", "gbk"},
    {"gb_2312", "gbk"}, {"gb_2312-80", "gbk"}, {"gbk", "gbk"}, {"iso-ir-58", "gbk"},
    {"x-gbk", "gbk"}, {"cp936", "gbk"}, {"euc-cn", "gbk"}, {"gb18030", "gb18030"},
    {"big5", "big5"}, {"big5-hkscs", "big5"}, {"cn-big5", "big5"}, {"csbig5", "big5"},
    {"x-x-big5", "big5"}, {"cp950", "big5"},
    {"cseucpkdfmtjapanese", "euc-jp"}, {"euc-jp", "euc-jp"}, {"x-euc-jp", "euc-jp"},
    {"csiso2022jp", "iso-2022-jp"}, {"iso-2022-jp", "iso-2022-jp"},
    {"csshiftjis", "shift_jis"}, {"ms932", "shift_jis"}, {"ms_kanji", "shift_jis"},
    {"shift-jis", "shift_jis"}, {"shift_jis", "shift_jis"}, {"sjis", "shift_jis"},
    {"windows-31j", "shift_jis"}, {"x-sjis", "shift_jis"}, {"cp932", "shift_jis"},
    {"cseuckr", "euc-kr"}, {"csksc56011987", "euc-kr"}, {"euc-kr", "euc-kr"},
    {"iso-ir-149", "euc-kr"}, {"korean", "euc-kr"}, {"ks_c_5601-1987", "euc-kr"},
    {"ks_c_5601-1989", "euc-kr"}, {"ksc5601", "euc-kr"}, {"ksc_5601", "euc-kr"},
    {"windows-949", "euc-kr"}, {"cp949", "euc-kr"},
    {"unicodefffe", "utf-16be"}, {"utf-16be", "utf-16be"},
    {"csunicode", "utf-16le"}, {"iso-10646-ucs-2", "utf-16le"}, {"ucs-2", "utf-16le"},
    {"unicode", "utf-16le"}, {"unicodefeff", "utf-16le"}, {"utf-16", "utf-16le"},
    {"utf-16le", "utf-16le"},
    {"utf-32", "utf-32le"}, {"utf-32le", "utf-32le"}, {"utf-32be", "utf-32be"},
    {"x-user-defined", "windows-1252"},
};

// Canonical name -> ICU converter name, and whether ASCII bytes mean ASCII
// (then a pure-ASCII body needs no conversion).
struct CanonRow {
  const char* canonical;
  const char* icu;
  bool ascii_compatible;
};
constexpr CanonRow kCanon[] = {
    {"utf-8", "UTF-8", true},           {"ibm866", "ibm866", true},
    {"iso-8859-2", "ISO-8859-2", true}, {"iso-8859-3", "ISO-8859-3", true},
    {"iso-8859-4", "ISO-8859-4", true}, {"iso-8859-5", "ISO-8859-5", true},
    {"iso-8859-6", "ISO-8859-6", true}, {"iso-8859-7", "ISO-8859-7", true},
    {"iso-8859-8", "ISO-8859-8", true}, {"iso-8859-8-i", "ISO-8859-8", true},
    {"iso-8859-10", "ISO-8859-10", true}, {"iso-8859-13", "ISO-8859-13", true},
    {"iso-8859-14", "ISO-8859-14", true}, {"iso-8859-15", "ISO-8859-15", true},
    {"iso-8859-16", "ISO-8859-16", true}, {"koi8-r", "KOI8-R", true},
    {"koi8-u", "KOI8-U", true},         {"macintosh", "macintosh", true},
    {"windows-874", "windows-874", true}, {"windows-1250", "windows-1250", true},
    {"windows-1251", "windows-1251", true}, {"windows-1252", "windows-1252", true},
    {"windows-1253", "windows-1253", true}, {"windows-1254", "windows-1254", true},
    {"windows-1255", "windows-1255", true}, {"windows-1256", "windows-1256", true},
    {"windows-1257", "windows-1257", true}, {"windows-1258", "windows-1258", true},
    {"x-mac-cyrillic", "x-mac-cyrillic", true}, {"gbk", "GBK", true},
    {"gb18030", "gb18030", true},       {"big5", "windows-950", true},
    {"euc-jp", "EUC-JP", true},         {"iso-2022-jp", "ISO-2022-JP", false},
    {"shift_jis", "Shift_JIS", true},   {"euc-kr", "windows-949", true},
    {"utf-16be", "UTF-16BE", false},    {"utf-16le", "UTF-16LE", false},
    {"utf-32be", "UTF-32BE", false},    {"utf-32le", "UTF-32LE", false},
};

const CanonRow* FindCanon(std::string_view canonical) {
  for (const CanonRow& row : kCanon) {
    if (canonical == row.canonical) return &row;
  }
  return nullptr;
}

bool IsUtf16Or32(std::string_view c) { return c.starts_with("utf-16") || c.starts_with("utf-32"); }

const std::unordered_map<std::string_view, const char*>& LabelMap() {
  static const auto* map = [] {
    auto* m = new std::unordered_map<std::string_view, const char*>();
    for (const LabelRow& row : kLabels) m->emplace(row.label, row.canonical);
    return m;
  }();
  return *map;
}

// ICU's to-Unicode callback: substitute U+FFFD and note that it happened.
void FlagAndSubstitute(const void* context, UConverterToUnicodeArgs* args, const char* units,
                       int32_t length, UConverterCallbackReason reason, UErrorCode* err) {
  if (reason == UCNV_UNASSIGNED || reason == UCNV_ILLEGAL || reason == UCNV_IRREGULAR) {
    *static_cast<bool*>(const_cast<void*>(context)) = true;
  }
  UCNV_TO_U_CALLBACK_SUBSTITUTE(nullptr, args, units, length, reason, err);
}

// The value of "charset=" in a Content-Type-like string (WHATWG "algorithm
// for extracting a character encoding from a meta element").
std::string_view ExtractCharsetFromContent(std::string_view s) {
  size_t i = 0;
  while (i + 7 <= s.size()) {
    if (!EqualsIgnoreCase(s.data() + i, "charset", 7)) {
      ++i;
      continue;
    }
    size_t j = i + 7;
    while (j < s.size() && IsHtmlSpace(s[j])) ++j;
    if (j >= s.size() || s[j] != '=') {
      i = j;
      continue;
    }
    ++j;
    while (j < s.size() && IsHtmlSpace(s[j])) ++j;
    if (j >= s.size()) return {};
    if (s[j] == '"' || s[j] == '\'') {
      size_t close = s.find(s[j], j + 1);
      if (close == std::string_view::npos) return {};
      return s.substr(j + 1, close - j - 1);
    }
    size_t k = j;
    while (k < s.size() && !IsHtmlSpace(s[k]) && s[k] != ';') ++k;
    return s.substr(j, k - j);
  }
  return {};
}

}  // namespace

std::string CanonicalCharsetName(std::string_view label) {
  while (!label.empty() && (IsHtmlSpace(label.front()) || label.front() == '"' ||
                            label.front() == '\'')) {
    label.remove_prefix(1);
  }
  while (!label.empty() && (IsHtmlSpace(label.back()) || label.back() == '"' ||
                            label.back() == '\'')) {
    label.remove_suffix(1);
  }
  if (label.empty() || label.size() > 64) return {};
  std::string lower(label);
  for (char& c : lower) c = ToLowerAscii(c);
  const auto& map = LabelMap();
  if (auto it = map.find(lower); it != map.end()) return it->second;
  // Not a WHATWG label: accept what ICU's alias table knows.
  for (char c : lower) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
              c == '.' || c == ':';
    if (!ok) return {};
  }
  UErrorCode err = U_ZERO_ERROR;
  const char* icu_name = ucnv_getAlias(lower.c_str(), 0, &err);  // alias 0: ICU's own name
  if (U_FAILURE(err) || icu_name == nullptr) return {};
  // ICU's alias table names converters whose data may be absent
  // ("big5_solaris"): only a converter that opens counts.
  UConverter* probe = ucnv_open(icu_name, &err);
  if (U_FAILURE(err) || probe == nullptr) return {};
  ucnv_close(probe);
  const char* standard = nullptr;
  for (const char* std_name : {"IANA", "MIME"}) {
    err = U_ZERO_ERROR;
    standard = ucnv_getStandardName(icu_name, std_name, &err);
    if (U_SUCCESS(err) && standard != nullptr) break;
    standard = nullptr;
  }
  std::string out = standard ? std::string(standard) : lower;
  for (char& c : out) c = ToLowerAscii(c);
  // An IANA name may itself be a WHATWG label ("ibm866", "big5").
  if (auto it = map.find(out); it != map.end()) return it->second;
  return out;
}

std::string PrescanCharsetLabel(std::string_view head) {
  const char* p = head.data();
  const char* end = p + head.size();
  // <?xml version="1.0" encoding="..."?> at the start (after white space).
  const char* s = p;
  while (s < end && IsHtmlSpace(*s)) ++s;
  if (end - s >= 5 && std::memcmp(s, "<?xml", 5) == 0) {
    std::string_view decl(s, static_cast<size_t>(end - s));
    size_t close = decl.find("?>");
    decl = decl.substr(0, close);
    size_t at = decl.find("encoding");
    if (at != std::string_view::npos) {
      size_t j = at + 8;
      while (j < decl.size() && IsHtmlSpace(decl[j])) ++j;
      if (j < decl.size() && decl[j] == '=') {
        ++j;
        while (j < decl.size() && IsHtmlSpace(decl[j])) ++j;
        if (j < decl.size() && (decl[j] == '"' || decl[j] == '\'')) {
          size_t q = decl.find(decl[j], j + 1);
          if (q != std::string_view::npos) return std::string(decl.substr(j + 1, q - j - 1));
        }
      }
    }
  }
  while (p < end) {
    const char* lt = static_cast<const char*>(std::memchr(p, '<', static_cast<size_t>(end - p)));
    if (lt == nullptr) break;
    size_t left = static_cast<size_t>(end - lt);
    if (left >= 4 && std::memcmp(lt, "<!--", 4) == 0) {
      std::string_view rest(lt + 4, left - 4);
      size_t close = rest.find("-->");
      if (close == std::string_view::npos) break;
      p = lt + 4 + close + 3;
      continue;
    }
    if (left >= 6 && EqualsIgnoreCase(lt + 1, "meta", 4) &&
        (IsHtmlSpace(lt[5]) || lt[5] == '/')) {
      std::string_view charset, http_equiv, content;
      bool self_closing = false;
      p = text_internal::ParseAttributes(
          lt + 5, end, &self_closing, [&](std::string_view name, std::string_view value) {
            if (EqualsIgnoreCase(name, "charset")) {
              if (charset.empty()) charset = value;
            } else if (EqualsIgnoreCase(name, "http-equiv")) {
              http_equiv = value;
            } else if (EqualsIgnoreCase(name, "content")) {
              content = value;
            }
          });
      if (p == nullptr) break;
      if (!charset.empty()) return std::string(charset);
      if (EqualsIgnoreCase(http_equiv, "content-type")) {
        std::string_view label = ExtractCharsetFromContent(content);
        if (!label.empty()) return std::string(label);
      }
      continue;
    }
    p = lt + 1;
  }
  return {};
}

namespace {

// The ASCII fast path of the UTF-8 scans: from i, past every whole block of
// 16 ASCII bytes (the block holding a byte >= 0x80, or the last partial
// one, is left to the byte loop).
size_t SkipAscii16(const unsigned char* s, size_t i, size_t n) {
  while (i + 16 <= n) {
    uint64_t a, b;
    std::memcpy(&a, s + i, 8);
    std::memcpy(&b, s + i + 8, 8);
    if ((a | b) & 0x8080808080808080ULL) break;
    i += 16;
  }
  return i;
}

}  // namespace

Utf8Stats ScanUtf8(std::string_view str) {
  Utf8Stats st;
  const unsigned char* s = reinterpret_cast<const unsigned char*>(str.data());
  const size_t n = str.size();
  size_t i = SkipAscii16(s, 0, n);
  while (i < n && s[i] < 0x80) ++i;
  if (i == n) return st;  // ASCII is well formed
  st.has_non_ascii = true;
  // From the first byte >= 0x80 (a character's start: ASCII precedes it),
  // simdjson's validator (Keiser and Lemire's lookup algorithm, its kernel
  // chosen for the CPU at run time) checks Table 3-7 on the rest.
  st.valid = simdjson::validate_utf8(str.data() + i, n - i);
  return st;
}

size_t SanitizeUtf8(std::string_view str, std::string* out) {
  out->clear();
  out->reserve(str.size() + 16);
  const unsigned char* s = reinterpret_cast<const unsigned char*>(str.data());
  const size_t n = str.size();
  size_t replaced = 0;
  size_t i = 0;
  size_t copied = 0;  // s[copied, i) is valid and not yet copied
  auto flush_valid = [&]() {
    out->append(str.data() + copied, i - copied);
  };
  while (i < n) {
    i = SkipAscii16(s, i, n);
    if (i >= n) break;
    unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    }
    // Length of the maximal well-formed prefix starting at i.
    size_t good = 0;
    if (len > 0) {
      good = 1;
      for (size_t k = 1; k < len && i + k < n; ++k) {
        unsigned char lo_k = (k == 1) ? lo : 0x80;
        unsigned char hi_k = (k == 1) ? hi : 0xBF;
        if (s[i + k] < lo_k || s[i + k] > hi_k) break;
        ++good;
      }
    }
    if (len > 0 && good == len) {
      i += len;
      continue;
    }
    flush_valid();
    out->append("\xEF\xBF\xBD");
    ++replaced;
    i += (good > 0 ? good : 1);
    copied = i;
  }
  flush_valid();
  return replaced;
}

struct CharsetConverter::Impl {
  std::vector<std::pair<std::string, UConverter*>> converters;  // canonical -> open converter
  UConverter* utf8 = nullptr;
  UCharsetDetector* detector = nullptr;
  bool invalid_flag = false;
  Utf8Stats stats;
  bool stats_valid = false;
  std::string buffer;
  UChar pivot[2048];

  ~Impl() {
    for (auto& [name, cnv] : converters) {
      if (cnv) ucnv_close(cnv);
    }
    if (utf8) ucnv_close(utf8);
    if (detector) ucsdet_close(detector);
  }

  // Cached converter for a canonical name; nullptr when ICU has none.
  UConverter* Get(const std::string& canonical) {
    for (auto& [name, cnv] : converters) {
      if (name == canonical) return cnv;
    }
    const CanonRow* row = FindCanon(canonical);
    UErrorCode err = U_ZERO_ERROR;
    UConverter* cnv = ucnv_open(row ? row->icu : canonical.c_str(), &err);
    if (U_FAILURE(err)) cnv = nullptr;
    if (cnv) {
      err = U_ZERO_ERROR;
      ucnv_setToUCallBack(cnv, FlagAndSubstitute, &invalid_flag, nullptr, nullptr, &err);
    }
    converters.emplace_back(canonical, cnv);
    return cnv;
  }

  std::string Detect(std::string_view body, bool html) {
    UErrorCode err = U_ZERO_ERROR;
    if (detector == nullptr) {
      detector = ucsdet_open(&err);
      if (U_FAILURE(err)) {
        detector = nullptr;
        return {};
      }
    }
    ucsdet_enableInputFilter(detector, html);
    int32_t len = static_cast<int32_t>(std::min<size_t>(body.size(), 8192));
    ucsdet_setText(detector, body.data(), len, &err);
    int32_t count = 0;
    const UCharsetMatch** matches = ucsdet_detectAll(detector, &count, &err);
    if (U_FAILURE(err) || matches == nullptr) return {};
    for (int32_t i = 0; i < count; ++i) {
      UErrorCode e2 = U_ZERO_ERROR;
      int32_t confidence = ucsdet_getConfidence(matches[i], &e2);
      const char* name = ucsdet_getName(matches[i], &e2);
      if (U_FAILURE(e2) || name == nullptr || confidence < 10) break;
      std::string canonical = CanonicalCharsetName(name);
      if (canonical.empty() || canonical == "utf-8" || IsUtf16Or32(canonical)) continue;
      if (Get(canonical) != nullptr) return canonical;
    }
    return {};
  }
};

CharsetConverter::CharsetConverter() : impl_(std::make_unique<Impl>()) {}
CharsetConverter::~CharsetConverter() = default;

CharsetDecision CharsetConverter::Decide(std::string_view body, std::string_view declared_charset,
                                         bool html, size_t prescan_bytes) {
  CharsetDecision d;
  Impl& m = *impl_;
  m.stats_valid = false;
  const unsigned char* b = reinterpret_cast<const unsigned char*>(body.data());
  const size_t n = body.size();
  // 1. BOM, then XML-style autodetection of UTF-16/32 without a BOM.
  auto set_bom = [&](const char* name, size_t len) {
    d.charset = name;
    d.source = CharsetSource::kBom;
    d.bom_length = len;
  };
  if (n >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF) {
    set_bom("utf-8", 3);
  } else if (n >= 4 && b[0] == 0xFF && b[1] == 0xFE && b[2] == 0 && b[3] == 0) {
    set_bom("utf-32le", 4);
  } else if (n >= 4 && b[0] == 0 && b[1] == 0 && b[2] == 0xFE && b[3] == 0xFF) {
    set_bom("utf-32be", 4);
  } else if (n >= 2 && b[0] == 0xFF && b[1] == 0xFE) {
    set_bom("utf-16le", 2);
  } else if (n >= 2 && b[0] == 0xFE && b[1] == 0xFF) {
    set_bom("utf-16be", 2);
  } else if (n >= 4 && b[0] == '<' && b[1] == 0 && b[2] == 0 && b[3] == 0) {
    set_bom("utf-32le", 0);
  } else if (n >= 4 && b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] == '<') {
    set_bom("utf-32be", 0);
  } else if (n >= 4 && b[0] == '<' && b[1] == 0 && b[2] != 0 && b[3] == 0) {
    set_bom("utf-16le", 0);
  } else if (n >= 4 && b[0] == 0 && b[1] == '<' && b[2] == 0 && b[3] != 0) {
    set_bom("utf-16be", 0);
  }
  if (!d.charset.empty()) {
    if (d.charset == "utf-8") {
      m.stats = ScanUtf8(body.substr(3));
      m.stats_valid = true;
    }
    return d;
  }
  // 2. HTTP header; 3. meta prescan.
  bool declared = false;
  std::string canonical = CanonicalCharsetName(declared_charset);
  if (!canonical.empty() && IsUtf16Or32(canonical)) {
    // A UTF-16/32 body has NULs in its first bytes; else the header lies.
    bool nul = std::memchr(body.data(), 0, std::min<size_t>(n, 64)) != nullptr;
    if (!nul) {
      canonical.clear();
      d.fallback = true;
    }
  }
  if (!canonical.empty()) {
    declared = true;
    d.source = CharsetSource::kHeader;
  } else if (html && prescan_bytes > 0) {
    canonical = CanonicalCharsetName(PrescanCharsetLabel(body.substr(0, prescan_bytes)));
    if (!canonical.empty()) {
      // HTML: a meta that could be read as ASCII cannot be UTF-16/32.
      if (IsUtf16Or32(canonical)) canonical = "utf-8";
      declared = true;
      d.source = CharsetSource::kMeta;
    }
  }
  if (declared && IsUtf16Or32(canonical)) {
    d.charset = canonical;
    return d;
  }
  // 4. Content check.
  m.stats = ScanUtf8(body);
  m.stats_valid = true;
  if (declared && canonical != "utf-8" && m.Get(canonical) == nullptr) {
    declared = false;  // ICU lacks the charset (iso-8859-16): as if undeclared
    d.fallback = true;
  }
  if (declared) {
    if (canonical != "utf-8" && m.stats.valid && m.stats.has_non_ascii) {
      d.charset = "utf-8";
      d.source = CharsetSource::kUtf8Content;
      d.fallback = true;
    } else {
      d.charset = canonical;
    }
    return d;
  }
  if (m.stats.valid) {
    d.charset = "utf-8";
    d.source = CharsetSource::kUtf8Content;
    return d;
  }
  std::string detected = m.Detect(body, html);
  if (!detected.empty()) {
    d.charset = detected;
    d.source = CharsetSource::kDetector;
  } else {
    d.charset = "windows-1252";
    d.source = CharsetSource::kDefault;
  }
  return d;
}

bool CharsetConverter::Convert(std::string_view bytes, const std::string& charset,
                               std::string* out, bool* had_invalid) {
  Impl& m = *impl_;
  UConverter* src = m.Get(charset);
  if (src == nullptr) return false;
  UErrorCode err = U_ZERO_ERROR;
  if (m.utf8 == nullptr) {
    m.utf8 = ucnv_open("UTF-8", &err);
    if (U_FAILURE(err)) {
      m.utf8 = nullptr;
      return false;
    }
  }
  ucnv_reset(src);
  ucnv_reset(m.utf8);
  m.invalid_flag = false;
  // Any charset's UTF-8 form is at most 3 bytes per input byte (U+FFFD for a
  // single bad byte is the worst case); retry larger on overflow anyway.
  size_t cap = bytes.size() * 3 + 16;
  for (int attempt = 0; attempt < 3; ++attempt) {
    out->resize(cap);
    char* target = out->data();
    const char* source = bytes.data();
    UChar* pivot_source = m.pivot;
    UChar* pivot_target = m.pivot;
    err = U_ZERO_ERROR;
    ucnv_convertEx(m.utf8, src, &target, out->data() + out->size(), &source,
                   bytes.data() + bytes.size(), m.pivot, &pivot_source, &pivot_target,
                   m.pivot + sizeof(m.pivot) / sizeof(m.pivot[0]), /*reset=*/true,
                   /*flush=*/true, &err);
    if (err == U_BUFFER_OVERFLOW_ERROR) {
      cap *= 2;
      ucnv_reset(src);
      ucnv_reset(m.utf8);
      continue;
    }
    if (U_FAILURE(err)) {
      out->clear();
      *had_invalid = true;
      return true;
    }
    out->resize(static_cast<size_t>(target - out->data()));
    if (m.invalid_flag) *had_invalid = true;
    return true;
  }
  out->clear();
  *had_invalid = true;
  return true;
}

std::string_view CharsetConverter::ToUtf8(std::string_view body, std::string_view declared_charset,
                                          bool html, size_t prescan_bytes,
                                          CharsetDecision* decision, bool* had_invalid) {
  Impl& m = *impl_;
  *decision = Decide(body, declared_charset, html, prescan_bytes);
  std::string_view bytes = body.substr(decision->bom_length);
  if (decision->charset == "utf-8") {
    if (m.stats_valid && m.stats.valid) return bytes;
    if (!m.stats_valid && ScanUtf8(bytes).valid) return bytes;
    SanitizeUtf8(bytes, &m.buffer);
    *had_invalid = true;
    return m.buffer;
  }
  if (m.stats_valid && !m.stats.has_non_ascii) {
    const CanonRow* row = FindCanon(decision->charset);
    if (row != nullptr && row->ascii_compatible) return bytes;  // pure ASCII: no ICU
  }
  if (!Convert(bytes, decision->charset, &m.buffer, had_invalid)) {
    // No converter after all: read as windows-1252, which ICU always has.
    decision->charset = "windows-1252";
    decision->fallback = true;
    if (!Convert(bytes, decision->charset, &m.buffer, had_invalid)) {
      SanitizeUtf8(bytes, &m.buffer);
      *had_invalid = true;
    }
  }
  // ICU's output is well-formed; keep the tokenizer's precondition regardless.
  return m.buffer;
}

}  // namespace neardup
