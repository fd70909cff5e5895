// Copyright neardup authors. Licensed under Apache-2.0.
//
// Run-time choice among SIMD kernels: the instruction-set level of this CPU,
// detected once per process, and KernelRegistry, a table of kernels of one
// kind (portable first, best last) from which the best supported one is
// picked. Every module with SIMD kernels (src/sketch: min-hash and simhash)
// declares its table and goes through one registry; no other code calls
// __builtin_cpu_supports.
//
// Forcing a kernel: options that name a kernel (BroderOptions::kernel,
// SimhashOptions::kernel) use Find(); SetForcedKernelName() (the CLI calls it
// with its NEARDUP_SIMD=portable|avx2|avx512 environment variable; the
// library reads no environment) makes Active() pick that one when the CPU
// supports it (an unsupported name is ignored); tests call Choose() with a
// level below the detected one to play a lesser CPU.
#ifndef NEARDUP_BASE_CPU_H_
#define NEARDUP_BASE_CPU_H_

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string_view>
#include <vector>

namespace neardup {

// Instruction-set levels a kernel may need, in increasing order: a CPU at
// one level runs the kernels of every lower level.
//   kAvx2:   AVX2.
//   kAvx512: AVX-512 F, BW, DQ and VL (every AVX-512 server CPU since
//            Skylake-SP; Xeon Phi lacks BW/DQ/VL and gets kAvx2).
enum class CpuLevel : uint8_t { kPortable = 0, kAvx2 = 1, kAvx512 = 2 };

// "portable", "avx2" or "avx512".
const char* CpuLevelName(CpuLevel level);

// The highest level this CPU and OS support (always kPortable off x86-64).
// Detected on the first call, then cached. Thread-safe.
CpuLevel DetectedCpuLevel();

// The kernel name every registry's Active() prefers ("portable", "avx2",
// "avx512"; nullptr: the best supported). Takes effect for registries whose
// Active() has not run yet: call it before the first signature.
// REQUIRES: `name` is a string literal (kept, not copied).
void SetForcedKernelName(const char* name);
const char* ForcedKernelName();

// A table of kernels of one kind. K is a struct with at least
//   const char* name;  CpuLevel level;
// and the kernel's function pointer(s). The table is static storage.
// REQUIRES: table non-empty; table[0].level == kPortable; levels do not
// decrease along the table. Thread-safe.
template <typename K>
class KernelRegistry {
 public:
  constexpr explicit KernelRegistry(std::span<const K> table) : table_(table) {}

  KernelRegistry(const KernelRegistry&) = delete;
  KernelRegistry& operator=(const KernelRegistry&) = delete;

  // The kernels a CPU at level `max` runs, in table order (portable first,
  // best last).
  std::vector<const K*> Supported(CpuLevel max = DetectedCpuLevel()) const {
    std::vector<const K*> out;
    for (const K& k : table_) {
      if (k.level <= max) out.push_back(&k);
    }
    return out;
  }

  // The kernel named `name` if a CPU at level `max` runs it, else null.
  const K* Find(std::string_view name, CpuLevel max = DetectedCpuLevel()) const {
    for (const K& k : table_) {
      if (k.level <= max && name == k.name) return &k;
    }
    return nullptr;
  }

  // The kernel named `forced` when a CPU at level `max` runs it, otherwise
  // the best kernel it runs (an empty, unknown or unsupported name is
  // ignored).
  const K& Choose(std::string_view forced, CpuLevel max) const {
    if (!forced.empty()) {
      if (const K* k = Find(forced, max)) return *k;
    }
    const K* best = &table_.front();
    for (const K& k : table_) {
      if (k.level <= max) best = &k;
    }
    return *best;
  }

  // Choose(ForcedKernelName(), DetectedCpuLevel()), computed on the first
  // call and then fixed for the life of the process.
  const K& Active() const {
    const K* k = active_.load(std::memory_order_acquire);
    if (k == nullptr) {
      const char* forced = ForcedKernelName();
      k = &Choose(forced == nullptr ? std::string_view() : std::string_view(forced), DetectedCpuLevel());
      active_.store(k, std::memory_order_release);  // racing callers store the same value
    }
    return *k;
  }

 private:
  const std::span<const K> table_;
  mutable std::atomic<const K*> active_{nullptr};
};

}  // namespace neardup

#endif  // NEARDUP_BASE_CPU_H_
