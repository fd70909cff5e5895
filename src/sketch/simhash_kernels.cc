// Copyright neardup authors. Licensed under Apache-2.0.
//
// The portable simhash counting kernel and the run-time choice among
// kernels.
#include "sketch/simhash_kernels.h"

#include <algorithm>

namespace neardup {
namespace sketch_internal {

// SWAR: for each word, eight 64-bit accumulators c[k] hold eight byte
// counters each; byte b of c[k] counts bit 8b + k. Bytes are flushed into
// `counts` every 255 terms, before they can overflow.
void SimhashCountPortable(const uint64_t* hashes, size_t n, const uint64_t* keys, uint32_t words,
                          uint32_t* counts) {
  constexpr uint64_t kLowBytes = 0x0101010101010101ULL;
  uint64_t acc[kMaxSimhashWords][8];
  size_t s = 0;
  while (s < n) {
    const size_t end = std::min(n, s + 255);
    for (uint32_t w = 0; w < words; ++w) {
      for (int k = 0; k < 8; ++k) acc[w][k] = 0;
    }
    for (; s < end; ++s) {
      const uint64_t h = hashes[s];
      for (uint32_t w = 0; w < words; ++w) {
        const uint64_t r = ProjectionWord(h, keys[w]);
        for (int k = 0; k < 8; ++k) acc[w][k] += (r >> k) & kLowBytes;
      }
    }
    for (uint32_t w = 0; w < words; ++w) {
      for (int k = 0; k < 8; ++k) {
        for (int b = 0; b < 8; ++b) {
          counts[64 * w + 8 * b + k] += static_cast<uint32_t>((acc[w][k] >> (8 * b)) & 0xff);
        }
      }
    }
  }
}

namespace {

// Best last (base/cpu.h).
constexpr SimhashKernel kKernels[] = {
    {"portable", CpuLevel::kPortable, &SimhashCountPortable},
#if defined(NEARDUP_SKETCH_X86)
    {"avx2", CpuLevel::kAvx2, &SimhashCountAvx2},
    {"avx512", CpuLevel::kAvx512, &SimhashCountAvx512},
#endif
};

}  // namespace

const KernelRegistry<SimhashKernel>& SimhashKernels() {
  static const KernelRegistry<SimhashKernel> registry(kKernels);
  return registry;
}

}  // namespace sketch_internal
}  // namespace neardup
