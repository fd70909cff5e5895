// Copyright neardup authors. Licensed under Apache-2.0.
//
// The portable shingle kernel (products from tables), Barrett's constant,
// and the run-time choice among shingle kernels.
#include "sketch/shingle_kernels.h"

namespace neardup {
namespace sketch_internal {
namespace {

// Products by fixed polynomials from RollingConstants' tables.
struct TableStep {
  const uint64_t (*in)[256];
  const uint64_t (*out)[256];
  uint64_t roll_const;

  static uint64_t Mul(const uint64_t (*t)[256], uint64_t v) {
    return t[0][v & 0xff] ^ t[1][(v >> 8) & 0xff] ^ t[2][(v >> 16) & 0xff] ^ t[3][(v >> 24) & 0xff] ^
           t[4][(v >> 32) & 0xff] ^ t[5][(v >> 40) & 0xff] ^ t[6][(v >> 48) & 0xff] ^ t[7][v >> 56];
  }
  uint64_t Push(uint64_t f, uint64_t h) const { return Mul(in, f ^ h); }
  uint64_t Roll(uint64_t f, uint64_t h_in, uint64_t h_out) const {
    return Mul(in, f ^ h_in) ^ Mul(out, h_out) ^ roll_const;
  }
};

// Best last (base/cpu.h).
constexpr ShingleKernel kKernels[] = {
    {"portable", CpuLevel::kPortable, &RollShinglesPortable},
#if defined(NEARDUP_SKETCH_X86)
    {"avx2", CpuLevel::kAvx2, &RollShinglesClmul},
#endif
};

}  // namespace

uint64_t BarrettMuLow(uint64_t p_low) {
  // Long division of x^128 by x^64 + p_low: the quotient's x^64 term leaves
  // the remainder p_low x^64 (bits 64..127 in r_hi, 0..63 in r_lo); then
  // each bit 64 + i still set gives the quotient term x^i.
  uint64_t r_hi = p_low, r_lo = 0, q = 0;
  for (int i = 63; i >= 0; --i) {
    if ((r_hi >> i) & 1) {
      q |= uint64_t{1} << i;
      r_hi ^= uint64_t{1} << i;
      r_lo ^= p_low << i;
      if (i > 0) r_hi ^= p_low >> (64 - i);
    }
  }
  return q;
}

void RollShinglesPortable(const uint64_t* h, size_t n, const RollingConstants& c, uint64_t* out) {
  RollShinglesWith(TableStep{c.in_table, c.out_table, c.roll_const}, h, n, c, out);
}

const KernelRegistry<ShingleKernel>& ShingleKernels() {
  static const KernelRegistry<ShingleKernel> registry(kKernels);
  return registry;
}

}  // namespace sketch_internal
}  // namespace neardup
