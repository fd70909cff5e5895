// Copyright neardup authors. Licensed under Apache-2.0.
//
// The portable simhash counting kernel and the run-time choice among
// kernels.
#include "sketch/simhash_kernels.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>

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

constexpr SimhashKernel kPortable{"portable", &SimhashCountPortable};
#if defined(NEARDUP_SKETCH_X86)
constexpr SimhashKernel kAvx2{"avx2", &SimhashCountAvx2};
constexpr SimhashKernel kAvx512{"avx512", &SimhashCountAvx512};

bool CpuHasAvx2() {
  __builtin_cpu_init();  // may run before libgcc's own initializer
  return __builtin_cpu_supports("avx2");
}
bool CpuHasAvx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512dq");
}
#endif

const SimhashKernel* ChooseKernel() {
  const std::vector<const SimhashKernel*> supported = SupportedSimhashKernels();
  if (const char* env = std::getenv("NEARDUP_SIMD"); env != nullptr) {
    for (const SimhashKernel* k : supported) {
      if (std::string_view(k->name) == env) return k;
    }
  }
  return supported.back();
}

}  // namespace

std::vector<const SimhashKernel*> SupportedSimhashKernels() {
  std::vector<const SimhashKernel*> kernels{&kPortable};
#if defined(NEARDUP_SKETCH_X86)
  if (CpuHasAvx2()) kernels.push_back(&kAvx2);
  if (CpuHasAvx512()) kernels.push_back(&kAvx512);
#endif
  return kernels;
}

const SimhashKernel* FindSimhashKernel(std::string_view name) {
  for (const SimhashKernel* k : SupportedSimhashKernels()) {
    if (name == k->name) return k;
  }
  return nullptr;
}

const SimhashKernel& ActiveSimhashKernel() {
  static const SimhashKernel* const kernel = ChooseKernel();
  return *kernel;
}

}  // namespace sketch_internal
}  // namespace neardup
