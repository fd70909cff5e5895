// Copyright neardup authors. Licensed under Apache-2.0.
//
// Kernels of InterleavedRabinFingerprinter (rabin.h): the long-message part
// of R_P, chosen at run time (base/cpu.h). Every kernel gives the same value.
//
// A kernel folds `groups` blocks of 64 bytes at p, the first 8-byte word
// xored with `state`, into T(x) of degree < 128 with
//
//     T(x) = M(x) mod P(x)  up to a multiple of P: T = M + Q P,
//
// M being those bytes read as one polynomial (most significant bit of the
// first byte first). The caller finishes R_P(state . message) as
// MapU64(MapU64(T_hi) ^ T_lo) = T(x) x^64 mod P(x).
#ifndef NEARDUP_FINGERPRINT_RABIN_KERNELS_H_
#define NEARDUP_FINGERPRINT_RABIN_KERNELS_H_

#include <cstddef>
#include <cstdint>

#include "base/cpu.h"
#include "fingerprint/rabin.h"

namespace neardup {
namespace fingerprint_internal {

struct RabinFoldKernel {
  const char* name;
  CpuLevel level;
  // REQUIRES: groups >= 1. Writes T_lo to t[0], T_hi to t[1]; nullptr for
  // the portable entry (the caller's own four lanes of table lookups).
  RabinFold fold;
};

// Carry-less products (PCLMULQDQ): four 128-bit accumulators, each
// multiplied by x^512 a group (two products, no reduction), summed at the
// end with their offsets. Compiled with -mpclmul; runs on CPUs of the AVX2
// level, all of which have PCLMULQDQ.
void RabinFoldClmul(const XPowers& x_pow, const unsigned char* p, size_t groups, uint64_t state, uint64_t t[2]);

const KernelRegistry<RabinFoldKernel>& RabinFoldKernels();

}  // namespace fingerprint_internal
}  // namespace neardup

#endif  // NEARDUP_FINGERPRINT_RABIN_KERNELS_H_
