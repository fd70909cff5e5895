// Copyright neardup authors. Licensed under Apache-2.0.
//
// Internal to src/sketch: the SIMD kernels of the kFast min-hash family
// (broder.h) and their run-time dispatch.
//
// A kernel folds a block of mixed shingles y (y = Fmix64(shingle)) into the
// running minima of the m functions g_i(y) = (y ^ b_i) * a_i mod 2^64,
// ordered as signed 64-bit integers:
//
//     mins[i] = min(mins[i], (int64_t)((y ^ xr[i]) * mul[i]))  for all y, i
//
// Every kernel computes exactly this (integer arithmetic, no rounding), so
// results are identical across kernels; only speed differs.
//
// A kernel also folds the same mixed shingles into the minima of m 32-bit
// functions (BroderSketcher::MinValues32), the low 32 bits of y xor-ed and
// multiplied mod 2^32, ordered as unsigned 32-bit integers:
//
//     mins[i] = min(mins[i], (uint32_t)((lo32(y) ^ xr[i]) * mul[i]))
//
// AVX2 multiplies 8 such lanes in one instruction (vpmulld) where a 64-bit
// product takes three 32 x 32 -> 64 multiplies for 4 lanes.
#ifndef NEARDUP_SKETCH_MINHASH_KERNELS_H_
#define NEARDUP_SKETCH_MINHASH_KERNELS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "base/cpu.h"

namespace neardup {
namespace sketch_internal {

// Functions are processed in groups of 8 (one zmm register); callers pad
// mul/xr/mins to a multiple of kLanePad entries.
inline constexpr size_t kLanePad = 8;

// REQUIRES: m_padded % kLanePad == 0; mul, xr, mins hold m_padded entries.
// ys holds n values (n may be 0).
using UpdateMinsFn = void (*)(const uint64_t* ys, size_t n, const uint64_t* mul, const uint64_t* xr,
                              size_t m_padded, int64_t* mins);

// The 32-bit functions come in groups of 16 (one zmm register).
inline constexpr size_t kLanePad32 = 16;

// REQUIRES: m_padded % kLanePad32 == 0; mul, xr, mins hold m_padded entries.
using UpdateMins32Fn = void (*)(const uint64_t* ys, size_t n, const uint32_t* mul, const uint32_t* xr,
                                size_t m_padded, uint32_t* mins);

struct MinHashKernel {
  const char* name;  // "portable", "avx2", "avx512"
  CpuLevel level;    // what the CPU must support
  UpdateMinsFn update_mins;
  UpdateMins32Fn update_mins32;
};

// Every kernel compiled in, portable first, best last (base/cpu.h):
// Active() is the one chosen once per process (BroderSketcher::KernelName()),
// Supported() those this CPU runs, Find(name) one of them by name or null.
const KernelRegistry<MinHashKernel>& MinHashKernels();

// Kernels; the SIMD ones exist only on x86-64 and may be called only when
// the CPU supports them.
void UpdateMinsPortable(const uint64_t* ys, size_t n, const uint64_t* mul, const uint64_t* xr,
                        size_t m_padded, int64_t* mins);
void UpdateMins32Portable(const uint64_t* ys, size_t n, const uint32_t* mul, const uint32_t* xr,
                          size_t m_padded, uint32_t* mins);
#if defined(NEARDUP_SKETCH_X86)
void UpdateMinsAvx2(const uint64_t* ys, size_t n, const uint64_t* mul, const uint64_t* xr,
                    size_t m_padded, int64_t* mins);
void UpdateMins32Avx2(const uint64_t* ys, size_t n, const uint32_t* mul, const uint32_t* xr,
                      size_t m_padded, uint32_t* mins);
void UpdateMinsAvx512(const uint64_t* ys, size_t n, const uint64_t* mul, const uint64_t* xr,
                      size_t m_padded, int64_t* mins);
void UpdateMins32Avx512(const uint64_t* ys, size_t n, const uint32_t* mul, const uint32_t* xr,
                        size_t m_padded, uint32_t* mins);
#endif

}  // namespace sketch_internal
}  // namespace neardup

#endif  // NEARDUP_SKETCH_MINHASH_KERNELS_H_
