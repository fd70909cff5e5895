// Copyright neardup authors. Licensed under Apache-2.0.
//
// The "avx2" shingle kernel: carry-less products (PCLMULQDQ) and Barrett
// reduction (shingle_kernels.h). This file alone is compiled with -mpclmul;
// it runs only on CPUs of the AVX2 level, all of which have PCLMULQDQ.
#include <immintrin.h>

#include "sketch/shingle_kernels.h"

namespace neardup {
namespace sketch_internal {
namespace {

inline __m128i Clmul(uint64_t a, __m128i b) {
  return _mm_clmulepi64_si128(_mm_cvtsi64_si128(static_cast<long long>(a)), b, 0x00);
}
inline uint64_t Low(__m128i v) { return static_cast<uint64_t>(_mm_cvtsi128_si64(v)); }
inline uint64_t High(__m128i v) { return static_cast<uint64_t>(_mm_extract_epi64(v, 1)); }

struct ClmulStep {
  __m128i p_low, mu_low, out_c;
  uint64_t roll_const;

  // (hi x^64 + lo) mod P_s.
  uint64_t Reduce(uint64_t hi, uint64_t lo) const {
    const uint64_t q = hi ^ High(Clmul(hi, mu_low));
    return lo ^ Low(Clmul(q, p_low));
  }
  uint64_t Push(uint64_t f, uint64_t h) const { return Reduce(f ^ h, 0); }
  uint64_t Roll(uint64_t f, uint64_t h_in, uint64_t h_out) const {
    // (F ^ h_in) x^64 and h_out x^(64(k+1)) summed before one reduction.
    const __m128i outgoing = Clmul(h_out, out_c);
    return Reduce(f ^ h_in ^ High(outgoing), Low(outgoing)) ^ roll_const;
  }
};

}  // namespace

void RollShinglesClmul(const uint64_t* h, size_t n, const RollingConstants& c, uint64_t* out) {
  const ClmulStep step{_mm_cvtsi64_si128(static_cast<long long>(c.p_low)),
                       _mm_cvtsi64_si128(static_cast<long long>(c.mu_low)),
                       _mm_cvtsi64_si128(static_cast<long long>(c.out_c)), c.roll_const};
  RollShinglesWith(step, h, n, c, out);
}

}  // namespace sketch_internal
}  // namespace neardup
