// Copyright neardup authors. Licensed under Apache-2.0.
//
// The portable kFast kernel and the run-time choice among kernels.
#include "sketch/minhash_kernels.h"

#include <algorithm>

namespace neardup {
namespace sketch_internal {

void UpdateMinsPortable(const uint64_t* ys, size_t n, const uint64_t* mul, const uint64_t* xr,
                        size_t m_padded, int64_t* mins) {
  // Four functions at a time: four independent min chains per shingle.
  for (size_t i = 0; i < m_padded; i += 4) {
    int64_t m0 = mins[i], m1 = mins[i + 1], m2 = mins[i + 2], m3 = mins[i + 3];
    const uint64_t a0 = mul[i], a1 = mul[i + 1], a2 = mul[i + 2], a3 = mul[i + 3];
    const uint64_t b0 = xr[i], b1 = xr[i + 1], b2 = xr[i + 2], b3 = xr[i + 3];
    for (size_t s = 0; s < n; ++s) {
      const uint64_t y = ys[s];
      // C++20: unsigned -> signed conversion is modular (two's complement).
      m0 = std::min(m0, static_cast<int64_t>((y ^ b0) * a0));
      m1 = std::min(m1, static_cast<int64_t>((y ^ b1) * a1));
      m2 = std::min(m2, static_cast<int64_t>((y ^ b2) * a2));
      m3 = std::min(m3, static_cast<int64_t>((y ^ b3) * a3));
    }
    mins[i] = m0;
    mins[i + 1] = m1;
    mins[i + 2] = m2;
    mins[i + 3] = m3;
  }
}

void UpdateMins32Portable(const uint64_t* ys, size_t n, const uint32_t* mul, const uint32_t* xr,
                          size_t m_padded, uint32_t* mins) {
  for (size_t i = 0; i < m_padded; i += 4) {
    uint32_t m0 = mins[i], m1 = mins[i + 1], m2 = mins[i + 2], m3 = mins[i + 3];
    const uint32_t a0 = mul[i], a1 = mul[i + 1], a2 = mul[i + 2], a3 = mul[i + 3];
    const uint32_t b0 = xr[i], b1 = xr[i + 1], b2 = xr[i + 2], b3 = xr[i + 3];
    for (size_t s = 0; s < n; ++s) {
      const uint32_t y = static_cast<uint32_t>(ys[s]);
      m0 = std::min(m0, (y ^ b0) * a0);
      m1 = std::min(m1, (y ^ b1) * a1);
      m2 = std::min(m2, (y ^ b2) * a2);
      m3 = std::min(m3, (y ^ b3) * a3);
    }
    mins[i] = m0;
    mins[i + 1] = m1;
    mins[i + 2] = m2;
    mins[i + 3] = m3;
  }
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
