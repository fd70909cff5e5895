// Copyright neardup authors. Licensed under Apache-2.0.
//
// AVX2 simhash counting kernel; this file alone is compiled with -mavx2 and
// runs only when the CPU supports it.
//
// Bit-to-byte expansion: each 32-bit half of a projection word is broadcast,
// vpshufb copies byte j/8 of it into byte j, and a compare against
// 1 << (j % 8) turns bit j into a byte of 0xff (-1) or 0, which is
// subtracted from 32 uint8 counters (one ymm per 32 dimensions, at most 16
// ymm for b = 512). The byte counters are widened into `counts` every 255
// terms, before they can overflow. Projection words are computed with
// scalar multiplies (AVX2 has no 64-bit low multiply).
#include <immintrin.h>

#include <algorithm>

#include "sketch/simhash_kernels.h"

namespace neardup {
namespace sketch_internal {
namespace {

inline void AddBytes(__m128i bytes, uint32_t* counts) {
  const __m256i lo = _mm256_cvtepu8_epi32(bytes);
  const __m256i hi = _mm256_cvtepu8_epi32(_mm_srli_si128(bytes, 8));
  __m256i* p = reinterpret_cast<__m256i*>(counts);
  _mm256_storeu_si256(p, _mm256_add_epi32(_mm256_loadu_si256(p), lo));
  _mm256_storeu_si256(p + 1, _mm256_add_epi32(_mm256_loadu_si256(p + 1), hi));
}

template <int W>
void Count(const uint64_t* hashes, size_t n, const uint64_t* keys, uint32_t* counts) {
  // Byte j of the broadcast 32-bit value's byte j / 8 (vpshufb works per
  // 128-bit lane; both lanes hold the same 4 bytes).
  const __m256i shuf = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,  //
                                        2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
  const __m256i bitsel = _mm256_set1_epi64x(static_cast<long long>(0x8040201008040201ULL));
  __m256i acc[2 * W];
  size_t s = 0;
  while (s < n) {
    const size_t end = std::min(n, s + 255);
    for (int v = 0; v < 2 * W; ++v) acc[v] = _mm256_setzero_si256();
    for (; s < end; ++s) {
      const uint64_t h = hashes[s];
      for (int w = 0; w < W; ++w) {
        const uint64_t r = ProjectionWord(h, keys[w]);
        for (int half = 0; half < 2; ++half) {
          const __m256i b = _mm256_shuffle_epi8(
              _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(r >> (32 * half)))), shuf);
          const __m256i set = _mm256_cmpeq_epi8(_mm256_and_si256(b, bitsel), bitsel);
          acc[2 * w + half] = _mm256_sub_epi8(acc[2 * w + half], set);
        }
      }
    }
    for (int v = 0; v < 2 * W; ++v) {
      AddBytes(_mm256_castsi256_si128(acc[v]), counts + 32 * v);
      AddBytes(_mm256_extracti128_si256(acc[v], 1), counts + 32 * v + 16);
    }
  }
}

using CountFn = void (*)(const uint64_t*, size_t, const uint64_t*, uint32_t*);
constexpr CountFn kCount[kMaxSimhashWords] = {&Count<1>, &Count<2>, &Count<3>, &Count<4>,
                                               &Count<5>, &Count<6>, &Count<7>, &Count<8>};

}  // namespace

void SimhashCountAvx2(const uint64_t* hashes, size_t n, const uint64_t* keys, uint32_t words,
                      uint32_t* counts) {
  kCount[words - 1](hashes, n, keys, counts);
}

}  // namespace sketch_internal
}  // namespace neardup
