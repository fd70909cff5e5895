#include "sketch/difference_digest.h"

#include <vector>

namespace neardup {

namespace {

// One 64-bit mix of the key gives its cell in each sub-table (21 bits each,
// mapped to the sub-table by multiply-shift) and, from a second multiply,
// its 16-bit check.
uint64_t KeyHash(uint32_t key) {
  uint64_t x = (key + 0x9e3779b97f4a7c15ull) * 0xbf58476d1ce4e5b9ull;
  x ^= x >> 31;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 29;
  return x;
}

uint16_t Check(uint32_t key) {
  return static_cast<uint16_t>((uint64_t{key} * 0xd6e8feb86659fd93ull) >> 48);
}

uint32_t CellOf(uint64_t hash, uint32_t h, uint32_t per_table) {
  const uint64_t part = (hash >> (21 * h)) & 0x1fffff;
  return h * per_table + static_cast<uint32_t>((part * per_table) >> 21);
}

uint16_t CountOf(uint64_t cell) { return static_cast<uint16_t>(cell >> 48); }
uint16_t CheckOf(uint64_t cell) { return static_cast<uint16_t>(cell >> 32); }
uint32_t KeyOf(uint64_t cell) { return static_cast<uint32_t>(cell); }
uint64_t Pack(uint16_t count, uint16_t check, uint32_t key) {
  return (uint64_t{count} << 48) | (uint64_t{check} << 32) | key;
}

// Adds (sign +1) or removes (sign -1) `key` in the cell.
uint64_t Toggle(uint64_t cell, uint32_t key, int sign) {
  return Pack(static_cast<uint16_t>(CountOf(cell) + sign), static_cast<uint16_t>(CheckOf(cell) ^ Check(key)),
              KeyOf(cell) ^ key);
}

}  // namespace

void DifferenceDigest::Build(std::span<const uint32_t> keys, uint32_t num_cells, uint64_t* cells) {
  const uint32_t per_table = num_cells / kHashes;
  for (uint32_t c = 0; c < num_cells; ++c) cells[c] = 0;
  for (uint32_t key : keys) {
    const uint64_t hash = KeyHash(key);
    const uint64_t check_and_key = (uint64_t{Check(key)} << 32) | key;
    for (uint32_t h = 0; h < kHashes; ++h) {
      uint64_t& cell = cells[CellOf(hash, h, per_table)];
      // Check and key xor-ed in; count + 1 in the top 16 bits, whose carry
      // out of bit 63 is dropped (the count wraps in its 16 bits).
      cell = (cell ^ check_and_key) + (uint64_t{1} << 48);
    }
  }
}


int DifferenceDigest::DifferenceSize(const uint64_t* a, const uint64_t* b, uint32_t num_cells,
                                     int max_keys) {
  const uint32_t per_table = num_cells / kHashes;
  std::vector<uint64_t> d(num_cells);
  for (uint32_t c = 0; c < num_cells; ++c) {
    d[c] = Pack(static_cast<uint16_t>(CountOf(a[c]) - CountOf(b[c])),
                static_cast<uint16_t>(CheckOf(a[c]) ^ CheckOf(b[c])), KeyOf(a[c]) ^ KeyOf(b[c]));
  }
  auto pure = [&](uint64_t cell) {
    const uint16_t count = CountOf(cell);
    return (count == 1 || count == 0xffff) && CheckOf(cell) == Check(KeyOf(cell));
  };
  int decoded = 0;
  bool progress = true;
  while (progress) {
    progress = false;
    for (uint32_t c = 0; c < num_cells; ++c) {
      if (!pure(d[c])) continue;
      const uint32_t key = KeyOf(d[c]);
      const int sign = CountOf(d[c]) == 1 ? 1 : -1;
      const uint64_t hash = KeyHash(key);
      for (uint32_t h = 0; h < kHashes; ++h) {
        uint64_t& cell = d[CellOf(hash, h, per_table)];
        cell = Toggle(cell, key, -sign);
      }
      if (++decoded > max_keys) return -1;
      progress = true;
    }
  }
  for (uint64_t cell : d) {
    if (cell != 0) return -1;
  }
  return decoded;
}

}  // namespace neardup
