// Copyright neardup authors. Licensed under Apache-2.0.
//
// AVX-512 (F + BW + DQ) simhash counting kernel; this file alone is
// compiled with -mavx512f -mavx512bw -mavx512dq -mavx512vl and runs only
// when the CPU supports F, BW and DQ.
//
// One zmm of 64 uint8 counters per projection word (6 zmm for b = 384):
// a word is itself the 64-bit mask of a masked byte add (vpaddb with a
// k-register loaded straight from memory), so a term costs one masked add
// per 64 dimensions. Projection words are computed eight terms at a time
// with vpmullq, stored to a small buffer and loaded as masks. The byte
// counters are widened into `counts` every 248 terms (the largest multiple
// of the 8-term block below 256), before they can overflow. This is the
// int16 masked-add idea with byte counters: one add covers 64 dimensions
// instead of 32, at the price of a flush every 248 terms instead of every
// 16384 (amortized: under 0.5 instruction per term).
#include <immintrin.h>

#include <algorithm>

#include "sketch/simhash_kernels.h"

namespace neardup {
namespace sketch_internal {
namespace {

// Full-mask forms of vpsrlq and vpmovzxbd: GCC 12 warns falsely
// (-Wmaybe-uninitialized) on the plain intrinsics' undefined pass-through
// operand, as in minhash_avx512.cc.
inline __m512i Srli64(__m512i a, unsigned n) { return _mm512_maskz_srli_epi64(0xff, a, n); }
inline __m512i WidenU8(__m128i a) { return _mm512_maskz_cvtepu8_epi32(0xffff, a); }

// ProjectionWord on 8 lanes (bit-exact: same shifts, exact low 64 bits of
// the products).
inline __m512i ProjectionWord8(__m512i h, __m512i key) {
  const __m512i m1 = _mm512_set1_epi64(static_cast<long long>(kMix13Mul1));
  const __m512i m2 = _mm512_set1_epi64(static_cast<long long>(kMix13Mul2));
  __m512i z = _mm512_add_epi64(h, key);
  z = _mm512_mullo_epi64(_mm512_xor_si512(z, Srli64(z, 30)), m1);
  z = _mm512_mullo_epi64(_mm512_xor_si512(z, Srli64(z, 27)), m2);
  return _mm512_xor_si512(z, Srli64(z, 31));
}

// counts[0 .. 64) += the 64 byte counters of acc (a rare step: through
// memory rather than vextracti32x4, which GCC 12 also warns on).
inline void Flush(__m512i acc, uint32_t* counts) {
  alignas(64) uint8_t bytes[64];
  _mm512_store_si512(bytes, acc);
  __m512i* p = reinterpret_cast<__m512i*>(counts);
  for (int k = 0; k < 4; ++k) {
    const __m512i wide = WidenU8(_mm_load_si128(reinterpret_cast<const __m128i*>(bytes + 16 * k)));
    _mm512_storeu_si512(p + k, _mm512_add_epi32(_mm512_loadu_si512(p + k), wide));
  }
}

template <int W>
void Count(const uint64_t* hashes, size_t n, const uint64_t* keys, uint32_t* counts) {
  const __m512i one = _mm512_set1_epi8(1);
  __m512i key[W];
  for (int w = 0; w < W; ++w) key[w] = _mm512_set1_epi64(static_cast<long long>(keys[w]));
  alignas(64) uint64_t words[W][8];  // words[w][t]: word w of term t of the block
  __m512i acc[W];
  size_t s = 0;
  while (s < n) {
    const size_t end = std::min(n, s + 248);
    for (int w = 0; w < W; ++w) acc[w] = _mm512_setzero_si512();
    while (s < end) {
      const size_t block = std::min<size_t>(8, end - s);
      const __m512i h = block == 8
                            ? _mm512_loadu_si512(hashes + s)
                            : _mm512_maskz_loadu_epi64(static_cast<__mmask8>((1u << block) - 1),
                                                       hashes + s);
      for (int w = 0; w < W; ++w) _mm512_store_si512(words[w], ProjectionWord8(h, key[w]));
      for (size_t t = 0; t < block; ++t) {
        for (int w = 0; w < W; ++w) {
          const __mmask64 m = _load_mask64(reinterpret_cast<__mmask64*>(&words[w][t]));
          acc[w] = _mm512_mask_add_epi8(acc[w], m, acc[w], one);
        }
      }
      s += block;
    }
    for (int w = 0; w < W; ++w) Flush(acc[w], counts + 64 * w);
  }
}

using CountFn = void (*)(const uint64_t*, size_t, const uint64_t*, uint32_t*);
constexpr CountFn kCount[kMaxSimhashWords] = {&Count<1>, &Count<2>, &Count<3>, &Count<4>,
                                               &Count<5>, &Count<6>, &Count<7>, &Count<8>};

}  // namespace

void SimhashCountAvx512(const uint64_t* hashes, size_t n, const uint64_t* keys, uint32_t words,
                        uint32_t* counts) {
  kCount[words - 1](hashes, n, keys, counts);
}

}  // namespace sketch_internal
}  // namespace neardup
