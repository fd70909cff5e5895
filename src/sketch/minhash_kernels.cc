// Copyright neardup authors. Licensed under Apache-2.0.
//
// The portable kernels (the 64-bit kFast functions and the 32-bit ones) and
// the run-time choice among kernels.
#include "sketch/minhash_kernels.h"

#include <algorithm>

namespace neardup {
namespace sketch_internal {

namespace {

// Four functions at a time (four independent min chains a shingle), for
// both widths: Word the multiply's width (y is ys' low Word bits), Order the
// type whose order the minimum follows (int64_t: kFast's signed order;
// uint32_t: the 32-bit functions' unsigned order). C++20: unsigned ->
// signed conversion is modular (two's complement).
template <typename Word, typename Order>
void UpdateMinsOf(const uint64_t* ys, size_t n, const Word* mul, const Word* xr, size_t m_padded, Order* mins) {
  for (size_t i = 0; i < m_padded; i += 4) {
    Order m0 = mins[i], m1 = mins[i + 1], m2 = mins[i + 2], m3 = mins[i + 3];
    const Word a0 = mul[i], a1 = mul[i + 1], a2 = mul[i + 2], a3 = mul[i + 3];
    const Word b0 = xr[i], b1 = xr[i + 1], b2 = xr[i + 2], b3 = xr[i + 3];
    for (size_t s = 0; s < n; ++s) {
      const Word y = static_cast<Word>(ys[s]);
      m0 = std::min(m0, static_cast<Order>(static_cast<Word>((y ^ b0) * a0)));
      m1 = std::min(m1, static_cast<Order>(static_cast<Word>((y ^ b1) * a1)));
      m2 = std::min(m2, static_cast<Order>(static_cast<Word>((y ^ b2) * a2)));
      m3 = std::min(m3, static_cast<Order>(static_cast<Word>((y ^ b3) * a3)));
    }
    mins[i] = m0;
    mins[i + 1] = m1;
    mins[i + 2] = m2;
    mins[i + 3] = m3;
  }
}

}  // namespace

void UpdateMinsPortable(const uint64_t* ys, size_t n, const uint64_t* mul, const uint64_t* xr,
                        size_t m_padded, int64_t* mins) {
  UpdateMinsOf(ys, n, mul, xr, m_padded, mins);
}

void UpdateMins32Portable(const uint64_t* ys, size_t n, const uint32_t* mul, const uint32_t* xr,
                          size_t m_padded, uint32_t* mins) {
  UpdateMinsOf(ys, n, mul, xr, m_padded, mins);
}

namespace {

// Best last (base/cpu.h).
constexpr MinHashKernel kKernels[] = {
    {"portable", CpuLevel::kPortable, &UpdateMinsPortable, &UpdateMins32Portable},
#if defined(NEARDUP_SKETCH_X86)
    {"avx2", CpuLevel::kAvx2, &UpdateMinsAvx2, &UpdateMins32Avx2},
    {"avx512", CpuLevel::kAvx512, &UpdateMinsAvx512, &UpdateMins32Avx512},
#endif
};

}  // namespace

const KernelRegistry<MinHashKernel>& MinHashKernels() {
  static const KernelRegistry<MinHashKernel> registry(kKernels);
  return registry;
}

}  // namespace sketch_internal
}  // namespace neardup
