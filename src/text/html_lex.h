// Copyright neardup authors. Licensed under Apache-2.0.
//
// Small lexical helpers shared by the charset prescan and the tokenizer
// (internal to src/text): the attribute part of a start tag, following the
// WHATWG HTML tokenizer states "before attribute name" to "after attribute
// value (quoted)". Quotes open a value only after '=', so a stray quote in a
// name cannot swallow the rest of the page; a '>' inside a quoted value does
// not end the tag; an unterminated quoted value runs to the end of input.
#ifndef NEARDUP_TEXT_HTML_LEX_H_
#define NEARDUP_TEXT_HTML_LEX_H_

#include <cstddef>
#include <cstring>
#include <string_view>

namespace neardup::text_internal {

// HTML white space: TAB, LF, FF, CR, SPACE.
inline bool IsHtmlSpace(char c) {
  // One compare for most bytes: white space is at most ' '.
  return static_cast<unsigned char>(c) <= ' ' &&
         (c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f');
}

inline bool IsAsciiAlpha(char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }

inline char ToLowerAscii(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
}

// True when s[0, n) equals lower-case `lower` ignoring ASCII case.
inline bool EqualsIgnoreCase(const char* s, const char* lower, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (ToLowerAscii(s[i]) != lower[i]) return false;
  }
  return true;
}

inline bool EqualsIgnoreCase(std::string_view s, std::string_view lower) {
  return s.size() == lower.size() && EqualsIgnoreCase(s.data(), lower.data(), s.size());
}

// Byte tables for the attribute loops: bit 1 ends an attribute name (white
// space, '/', '>', '='), bit 2 ends an unquoted value (white space, '>').
struct AttrStopTable {
  unsigned char bits[256] = {};
  constexpr AttrStopTable() {
    for (unsigned char c : {' ', '\n', '\t', '\r', '\f'}) bits[c] = 3;
    bits[static_cast<unsigned char>('/')] = 1;
    bits[static_cast<unsigned char>('=')] = 1;
    bits[static_cast<unsigned char>('>')] = 3;
  }
};
inline constexpr AttrStopTable kAttrStop;

// Parses attributes from p (just after the tag name) to the closing '>'.
// Calls on_attr(name, raw_value) for each attribute (value without quotes,
// character references not decoded; "" for a bare attribute). Returns the
// position after '>', or nullptr when the input ends inside the tag. Sets
// *self_closing when the tag ends with "/>".
template <typename OnAttr>
const char* ParseAttributes(const char* p, const char* end, bool* self_closing, OnAttr&& on_attr) {
  *self_closing = false;
  while (p < end) {
    char c = *p;
    if (c == '>') return p + 1;
    if (IsHtmlSpace(c)) {
      ++p;
      continue;
    }
    if (c == '/') {
      ++p;
      if (p < end && *p == '>') {
        *self_closing = true;
        return p + 1;
      }
      continue;
    }
    const char* name = p++;  // the first character may be '=' (HTML5)
    while (p < end && !(kAttrStop.bits[static_cast<unsigned char>(*p)] & 1)) ++p;
    std::string_view name_view(name, static_cast<size_t>(p - name));
    while (p < end && IsHtmlSpace(*p)) ++p;
    if (p >= end || *p != '=') {
      on_attr(name_view, std::string_view());
      continue;
    }
    ++p;
    while (p < end && IsHtmlSpace(*p)) ++p;
    if (p >= end) return nullptr;
    if (*p == '"' || *p == '\'') {
      const char* vs = p + 1;
      const char* ve =
          static_cast<const char*>(std::memchr(vs, *p, static_cast<size_t>(end - vs)));
      if (ve == nullptr) return nullptr;
      on_attr(name_view, std::string_view(vs, static_cast<size_t>(ve - vs)));
      p = ve + 1;
    } else if (*p == '>') {
      on_attr(name_view, std::string_view());
      return p + 1;
    } else {
      const char* vs = p;
      while (p < end && !(kAttrStop.bits[static_cast<unsigned char>(*p)] & 2)) ++p;
      on_attr(name_view, std::string_view(vs, static_cast<size_t>(p - vs)));
    }
  }
  return nullptr;
}

// Position of the first '>' at or after p, plus one; `end` if none.
inline const char* SkipPastGt(const char* p, const char* end) {
  const char* gt = static_cast<const char*>(std::memchr(p, '>', static_cast<size_t>(end - p)));
  return gt ? gt + 1 : end;
}

}  // namespace neardup::text_internal

#endif  // NEARDUP_TEXT_HTML_LEX_H_
