// Copyright neardup authors. Licensed under Apache-2.0.
//
// Candidate keys of a simhash sketch for the incremental index: the b bits
// cut into d + 1 pieces (d = b - t), each piece a key. Two sketches within
// d differing bits agree on at least one piece (pigeonhole), so every pair
// the rule accepts shares a key (Manku, Jain and Das Sarma's argument; the
// batch index in src/index uses fewer, permuted tables).
#ifndef NEARDUP_ENGINE_METHODS_SIMHASH_KEYS_H_
#define NEARDUP_ENGINE_METHODS_SIMHASH_KEYS_H_

#include <xxhash.h>

#include <cstdint>
#include <vector>

namespace neardup {

inline void SimhashPieceKeys(const uint64_t* sketch, uint32_t bits, uint32_t threshold, uint64_t tag,
                             std::vector<uint64_t>* keys) {
  const uint32_t pieces = bits - threshold + 1;
  for (uint32_t p = 0; p < pieces; ++p) {
    const uint32_t begin = static_cast<uint32_t>(uint64_t{p} * bits / pieces);
    const uint32_t end = static_cast<uint32_t>(uint64_t{p + 1} * bits / pieces);
    uint64_t h = XXH3_64bits_withSeed(&p, sizeof p, tag);
    uint64_t chunk = 0;
    uint32_t in_chunk = 0;
    for (uint32_t bit = begin; bit < end; ++bit) {
      chunk = (chunk << 1) | ((sketch[bit / 64] >> (bit % 64)) & 1);
      if (++in_chunk == 64 || bit + 1 == end) {
        h = XXH3_64bits_withSeed(&chunk, sizeof chunk, h);
        chunk = 0;
        in_chunk = 0;
      }
    }
    keys->push_back(h);
  }
}

}  // namespace neardup

#endif  // NEARDUP_ENGINE_METHODS_SIMHASH_KEYS_H_
