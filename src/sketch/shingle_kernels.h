// Copyright neardup authors. Licensed under Apache-2.0.
//
// Internal to src/sketch: the kernels that roll k-term windows into Rabin
// fingerprints (BroderSketcher::Shingles), and their run-time dispatch.
//
// A window h_0 .. h_{k-1} of 64-bit term hashes has the fingerprint
//     F = x^(64(k+1)) + sum_t h_t x^(64(k-t))  (mod P_s),   P_s = x^64 + p_low,
// built by the chain f <- (f ^ h) * x^64 mod P_s from f = p_low; sliding by
// one term is
//     F' = (F ^ h_in) x^64 + h_out x^(64(k+1)) + x^(64(k+2)) + x^(64(k+1)).
// Every kernel computes exactly these polynomials over GF(2) (no rounding),
// so every kernel gives the same fingerprints; only speed differs:
//   "portable": products by a fixed c(x) from tables of 8 x 256 entries;
//   "avx2":     carry-less multiplication (PCLMULQDQ, which every AVX2 CPU
//               has) with Barrett reduction: x^128 div P_s = x^64 + mu_low,
//               and a 128-bit A = hi x^64 + lo reduces to
//               lo + low64(q p_low), q = hi + high64(hi mu_low).
#ifndef NEARDUP_SKETCH_SHINGLE_KERNELS_H_
#define NEARDUP_SKETCH_SHINGLE_KERNELS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "base/cpu.h"

namespace neardup {
namespace sketch_internal {

// What rolling windows need of one P_s and k.
struct RollingConstants {
  uint32_t k = 5;
  bool wrap = true;
  uint64_t p_low = 0;       // P_s = x^64 + p_low
  uint64_t out_c = 0;       // x^(64(k+1)) mod P_s
  uint64_t roll_const = 0;  // (x^(64(k+2)) + x^(64(k+1))) mod P_s
  uint64_t mu_low = 0;      // x^128 div P_s = x^64 + mu_low
  // t[j][b] = b(x) x^(8j) c(x) mod P_s for c = x^64 and c = out_c.
  const uint64_t (*in_table)[256] = nullptr;
  const uint64_t (*out_table)[256] = nullptr;
};

// x^128 div (x^64 + p_low), less its x^64 term.
uint64_t BarrettMuLow(uint64_t p_low);

// Writes the fingerprints of the count = (wrap ? n : n - k + 1) windows of
// h[0, n) to out[0, count); with wrap, window s takes terms s .. s + k - 1
// modulo n. REQUIRES: n >= 1, and n >= k unless wrap.
using RollShinglesFn = void (*)(const uint64_t* h, size_t n, const RollingConstants& c, uint64_t* out);

struct ShingleKernel {
  const char* name;  // "portable", "avx2"
  CpuLevel level;    // what the CPU must support
  RollShinglesFn roll;
};

// Every kernel compiled in, portable first, best last (base/cpu.h).
const KernelRegistry<ShingleKernel>& ShingleKernels();

void RollShinglesPortable(const uint64_t* h, size_t n, const RollingConstants& c, uint64_t* out);
#if defined(NEARDUP_SKETCH_X86)
void RollShinglesClmul(const uint64_t* h, size_t n, const RollingConstants& c, uint64_t* out);
#endif

// The windows' walk shared by the kernels. Step provides
//   uint64_t Push(uint64_t f, uint64_t h) const;  // (f ^ h) x^64 mod P_s
//   uint64_t Roll(uint64_t f, uint64_t h_in, uint64_t h_out) const;  // F -> F'
template <typename Step>
inline void RollShinglesWith(const Step& step, const uint64_t* h, size_t n, const RollingConstants& c,
                             uint64_t* o) {
  const size_t k = c.k;
  const size_t count = c.wrap ? n : n - k + 1;
  uint64_t f = c.p_low;
  for (size_t t = 0; t < k; ++t) f = step.Push(f, h[t < n ? t : t % n]);
  o[0] = f;
  // Windows entirely inside the document: incoming term s + k - 1 < n.
  const size_t inside = std::min(count, n - std::min(n, k - 1));
  size_t s = 1;
  if (constexpr size_t kChains = 4, kMinRun = 16; inside >= kChains * kMinRun) {
    // Each step's latency is a chain of dependent products; four
    // independent chains over four quarters of the windows overlap them.
    // Chains 1..3 start from a direct fingerprint of their first window.
    const size_t len = inside / kChains;
    uint64_t f1 = c.p_low, f2 = c.p_low, f3 = c.p_low;
    for (size_t t = 0; t < k; ++t) {
      f1 = step.Push(f1, h[len + t]);
      f2 = step.Push(f2, h[2 * len + t]);
      f3 = step.Push(f3, h[3 * len + t]);
    }
    o[len] = f1;
    o[2 * len] = f2;
    o[3 * len] = f3;
    for (size_t i = 1; i < len; ++i) {
      f = step.Roll(f, h[i + k - 1], h[i - 1]);
      f1 = step.Roll(f1, h[len + i + k - 1], h[len + i - 1]);
      f2 = step.Roll(f2, h[2 * len + i + k - 1], h[2 * len + i - 1]);
      f3 = step.Roll(f3, h[3 * len + i + k - 1], h[3 * len + i - 1]);
      o[i] = f;
      o[len + i] = f1;
      o[2 * len + i] = f2;
      o[3 * len + i] = f3;
    }
    f = f3;
    s = 4 * len;
  }
  for (; s < inside; ++s) {
    f = step.Roll(f, h[s + k - 1], h[s - 1]);
    o[s] = f;
  }
  // Wrapped windows (wrap only): terms taken modulo n.
  for (; s < count; ++s) {
    f = step.Roll(f, h[(s + k - 1) % n], h[(s - 1) % n]);
    o[s] = f;
  }
}

}  // namespace sketch_internal
}  // namespace neardup

#endif  // NEARDUP_SKETCH_SHINGLE_KERNELS_H_
