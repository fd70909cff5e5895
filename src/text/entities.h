// Copyright neardup authors. Licensed under Apache-2.0.
//
// HTML character references (WHATWG HTML, "Character reference state"):
// named (all 2,231 HTML5 names, which include the full HTML 4 set; the 106
// legacy names such as "&amp" and "&eacute" also without the semicolon),
// decimal "&#233;" and hexadecimal "&#xE9;" (semicolon optional). Internal to
// src/text.
#ifndef NEARDUP_TEXT_ENTITIES_H_
#define NEARDUP_TEXT_ENTITIES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace neardup::text_internal {

// Decodes the character reference starting at p[0] == '&'. On success returns
// the number of bytes consumed (including '&' and any ';') and sets cps[0..*n)
// (1 or 2 code points); returns 0 when the text is not a reference (the '&'
// is then an ordinary character). Numeric references follow the HTML rules:
// 0, surrogates and values above U+10FFFF become U+FFFD, 0x80-0x9F are read
// as windows-1252. In an attribute value (`in_attribute`), a legacy name
// without ';' followed by '=' or an alphanumeric is not decoded ("?a=1&copy=2").
// REQUIRES: p < end, *p == '&'.
size_t DecodeCharRef(const char* p, const char* end, bool in_attribute, uint32_t cps[2], int* n);

// Appends `raw` (an attribute value as written) to *out with its character
// references decoded (as UTF-8).
void AppendAttributeDecoded(std::string_view raw, std::string* out);

}  // namespace neardup::text_internal

#endif  // NEARDUP_TEXT_ENTITIES_H_
