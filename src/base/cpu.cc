// Copyright neardup authors. Licensed under Apache-2.0.
#include "base/cpu.h"

#include <atomic>

namespace neardup {

namespace {

CpuLevel Detect() {
#if defined(__x86_64__) || defined(__i386__)
  // libgcc's checks include the OS's XSAVE state (XCR0) for AVX and AVX-512.
  __builtin_cpu_init();  // may run before libgcc's own initializer
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")) {
    return CpuLevel::kAvx512;
  }
  if (__builtin_cpu_supports("avx2")) return CpuLevel::kAvx2;
#endif
  return CpuLevel::kPortable;
}

}  // namespace

const char* CpuLevelName(CpuLevel level) {
  switch (level) {
    case CpuLevel::kPortable: return "portable";
    case CpuLevel::kAvx2: return "avx2";
    case CpuLevel::kAvx512: return "avx512";
  }
  return "portable";
}

CpuLevel DetectedCpuLevel() {
  static const CpuLevel level = Detect();
  return level;
}

namespace {
std::atomic<const char*> g_forced_kernel{nullptr};
}  // namespace

void SetForcedKernelName(const char* name) { g_forced_kernel.store(name, std::memory_order_release); }

const char* ForcedKernelName() { return g_forced_kernel.load(std::memory_order_acquire); }

}  // namespace neardup
