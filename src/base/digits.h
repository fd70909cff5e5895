// Copyright neardup authors. Licensed under Apache-2.0.
//
// Numbers as people read them in messages and generated pages.
#ifndef NEARDUP_BASE_DIGITS_H_
#define NEARDUP_BASE_DIGITS_H_

#include <cstdint>
#include <string>

namespace neardup {

// v in decimal with a comma between groups of three digits: "1,234,567".
inline std::string WithCommas(uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

}  // namespace neardup

#endif  // NEARDUP_BASE_DIGITS_H_
