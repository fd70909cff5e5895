// Copyright neardup authors. Licensed under Apache-2.0.
//
// The "avx2" Rabin fold kernel (rabin_kernels.h). This file alone is
// compiled with -mpclmul -msse4.1.
#include <immintrin.h>

#include "fingerprint/rabin_kernels.h"

namespace neardup {
namespace fingerprint_internal {
namespace {

// 16 bytes as the polynomial they spell (first byte highest): byte-reversed
// into a 128-bit integer, bit i the coefficient of x^i.
inline __m128i LoadPolynomial(const unsigned char* p) {
  const __m128i reverse = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  return _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), reverse);
}

// a(x) x^e mod P up to a multiple of P, degree < 128: k holds x^e mod P
// (low) and x^(e+64) mod P (high), a = a_hi x^64 + a_lo.
inline __m128i Shift(__m128i a, __m128i k) {
  return _mm_xor_si128(_mm_clmulepi64_si128(a, k, 0x00), _mm_clmulepi64_si128(a, k, 0x11));
}

inline __m128i Pair(uint64_t high, uint64_t low) {
  return _mm_set_epi64x(static_cast<long long>(high), static_cast<long long>(low));
}

}  // namespace

void RabinFoldClmul(const XPowers& x_pow, const unsigned char* p, size_t groups, uint64_t state, uint64_t t[2]) {
  const __m128i k512 = Pair(x_pow[9], x_pow[8]);
  __m128i a0 = _mm_xor_si128(LoadPolynomial(p), Pair(state, 0));
  __m128i a1 = LoadPolynomial(p + 16);
  __m128i a2 = LoadPolynomial(p + 32);
  __m128i a3 = LoadPolynomial(p + 48);
  for (size_t g = 1; g < groups; ++g) {
    p += 64;
    a0 = _mm_xor_si128(Shift(a0, k512), LoadPolynomial(p));
    a1 = _mm_xor_si128(Shift(a1, k512), LoadPolynomial(p + 16));
    a2 = _mm_xor_si128(Shift(a2, k512), LoadPolynomial(p + 32));
    a3 = _mm_xor_si128(Shift(a3, k512), LoadPolynomial(p + 48));
  }
  // T = a0 x^384 + a1 x^256 + a2 x^128 + a3.
  const __m128i sum = _mm_xor_si128(_mm_xor_si128(Shift(a0, Pair(x_pow[7], x_pow[6])), Shift(a1, Pair(x_pow[5], x_pow[4]))),
                                    _mm_xor_si128(Shift(a2, Pair(x_pow[3], x_pow[2])), a3));
  t[0] = static_cast<uint64_t>(_mm_cvtsi128_si64(sum));
  t[1] = static_cast<uint64_t>(_mm_extract_epi64(sum, 1));
}

}  // namespace fingerprint_internal
}  // namespace neardup
