// Copyright neardup authors. Licensed under Apache-2.0.
#include "text/entities.h"

#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <vector>

#include "text/unicode_class.h"

namespace neardup::text_internal {
namespace {

struct Entity {
  const char* name;
  uint32_t cp1;
  uint32_t cp2;
};

constexpr Entity kEntities[] = {
#include "text/entities_table.inc"
};
constexpr size_t kNumEntities = sizeof(kEntities) / sizeof(kEntities[0]);
constexpr size_t kMaxNameLength = 32;  // "CounterClockwiseContourIntegral;"
constexpr size_t kMaxLegacyLength = 6;  // "curren", "middot", "frac12", ...

// The names in an open-addressing table (linear probing; its size the
// smallest power of two at least twice their number), built once: a lookup
// hashes the name and compares one or two rows instead of a binary
// search's eleven string compares.
class EntityTable {
 public:
  EntityTable() {
    size_t capacity = 1;
    while (capacity < 2 * kNumEntities) capacity *= 2;
    slots_.assign(capacity, kEmpty);
    lengths_.resize(kNumEntities);
    for (size_t i = 0; i < kNumEntities; ++i) {
      const std::string_view name = kEntities[i].name;
      lengths_[i] = static_cast<uint8_t>(name.size());
      size_t slot = Hash(name) & (capacity - 1);
      while (slots_[slot] != kEmpty) slot = (slot + 1) & (capacity - 1);
      slots_[slot] = static_cast<uint16_t>(i);
    }
  }

  const Entity* Find(std::string_view name) const {
    const size_t mask = slots_.size() - 1;
    for (size_t slot = Hash(name) & mask; slots_[slot] != kEmpty; slot = (slot + 1) & mask) {
      const uint16_t i = slots_[slot];
      if (lengths_[i] == name.size() && std::memcmp(kEntities[i].name, name.data(), name.size()) == 0) {
        return &kEntities[i];
      }
    }
    return nullptr;
  }

 private:
  static constexpr uint16_t kEmpty = 0xffff;
  static_assert(kNumEntities < kEmpty);
  static size_t Hash(std::string_view s) { return XXH3_64bits(s.data(), s.size()); }
  std::vector<uint16_t> slots_;
  std::vector<uint8_t> lengths_;
};

const Entity* FindEntity(std::string_view name) {
  static const EntityTable table;
  return table.Find(name);
}

bool IsAsciiAlnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// HTML's replacements for numeric references to C1 control code points.
constexpr uint16_t kWindows1252C1[32] = {
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178};

}  // namespace

size_t DecodeCharRef(const char* p, const char* end, bool in_attribute, uint32_t cps[2], int* n) {
  const char* q = p + 1;
  if (q >= end) return 0;
  if (*q == '#') {
    ++q;
    bool hex = false;
    if (q < end && (*q == 'x' || *q == 'X')) {
      hex = true;
      ++q;
    }
    const char* digits = q;
    uint32_t value = 0;
    while (q < end) {
      char c = *q;
      int d;
      if (c >= '0' && c <= '9') {
        d = c - '0';
      } else if (hex && c >= 'a' && c <= 'f') {
        d = c - 'a' + 10;
      } else if (hex && c >= 'A' && c <= 'F') {
        d = c - 'A' + 10;
      } else {
        break;
      }
      value = value * (hex ? 16 : 10) + static_cast<uint32_t>(d);
      if (value > 0x10FFFF) value = 0x110000;  // saturate: stays out of range
      ++q;
    }
    if (q == digits) return 0;
    if (q < end && *q == ';') ++q;
    if (value == 0 || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) {
      value = 0xFFFD;
    } else if (value >= 0x80 && value <= 0x9F) {
      value = kWindows1252C1[value - 0x80];
    }
    cps[0] = value;
    *n = 1;
    return static_cast<size_t>(q - p);
  }
  // Named: the alphanumeric run after '&'.
  char name[kMaxNameLength + 1];
  size_t len = 0;
  while (q + len < end && len < kMaxNameLength && IsAsciiAlnum(q[len])) {
    name[len] = q[len];
    ++len;
  }
  if (len == 0) return 0;
  if (q + len < end && q[len] == ';' && len < kMaxNameLength) {
    name[len] = ';';
    if (const Entity* e = FindEntity(std::string_view(name, len + 1))) {
      cps[0] = e->cp1;
      cps[1] = e->cp2;
      *n = e->cp2 ? 2 : 1;
      return len + 2;
    }
  }
  // Longest legacy name (no semicolon) that prefixes the run.
  for (size_t k = std::min(len, kMaxLegacyLength); k >= 2; --k) {
    const Entity* e = FindEntity(std::string_view(name, k));
    if (e == nullptr) continue;
    if (in_attribute && q + k < end && (q[k] == '=' || IsAsciiAlnum(q[k]))) return 0;
    cps[0] = e->cp1;
    cps[1] = e->cp2;
    *n = e->cp2 ? 2 : 1;
    return k + 1 + ((q + k < end && q[k] == ';') ? 1 : 0);
  }
  return 0;
}

void AppendAttributeDecoded(std::string_view raw, std::string* out) {
  const char* p = raw.data();
  const char* end = p + raw.size();
  while (p < end) {
    const char* amp = static_cast<const char*>(std::memchr(p, '&', static_cast<size_t>(end - p)));
    if (amp == nullptr) {
      out->append(p, static_cast<size_t>(end - p));
      return;
    }
    out->append(p, static_cast<size_t>(amp - p));
    uint32_t cps[2];
    int n = 0;
    size_t used = DecodeCharRef(amp, end, /*in_attribute=*/true, cps, &n);
    if (used == 0) {
      out->push_back('&');
      p = amp + 1;
      continue;
    }
    for (int i = 0; i < n; ++i) AppendUtf8(cps[i], out);
    p = amp + used;
  }
}

}  // namespace neardup::text_internal
