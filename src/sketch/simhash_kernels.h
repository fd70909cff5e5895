// Copyright neardup authors. Licensed under Apache-2.0.
//
// Internal to src/sketch: the counting kernels of Charikar's simhash
// (simhash.h) and their run-time dispatch, in the style of
// minhash_kernels.h.
//
// Word w (0 <= w < W = b/64) of the random projection of a term with hash h
// is ProjectionWord(h, keys[w]); bit j of that word is the sign of the
// term's entry in dimension 64w + j (1 -> +1, 0 -> -1). A kernel counts, for
// each dimension, how many of the n terms (each occurrence separately) have
// a 1 there:
//
//     counts[64w + j] += #{ s < n : bit j of ProjectionWord(hashes[s], keys[w]) }
//
// The page's sum in dimension i is then 2 * counts[i] - n, so page bit i is
// 1 iff 2 * counts[i] > n. Every kernel computes exactly this (integer
// counting, no rounding), so sketches are identical across kernels; only
// speed differs.
#ifndef NEARDUP_SKETCH_SIMHASH_KERNELS_H_
#define NEARDUP_SKETCH_SIMHASH_KERNELS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "base/cpu.h"
#include "base/hash.h"

namespace neardup {
namespace sketch_internal {

// W, 64-bit words of a sketch: 1 .. kMaxSimhashWords (b = 64 .. 512).
inline constexpr uint32_t kMaxSimhashWords = 8;

// The projection of one term, one 64-bit word at a time: SplitMix64's
// output function (Steele, Lea and Flood, "Fast Splittable Pseudorandom
// Number Generators"; Stafford's Mix13 constants) applied to h + key_w.
// A bijection of h for each key, so distinct terms get distinct words, and
// its avalanche makes the 64 bits look independent and balanced.
// Part of the signature (SimhashOptions::Name()).
inline uint64_t ProjectionWord(uint64_t term_hash, uint64_t key) {
  return Mix13(term_hash + key);
}

// REQUIRES: 1 <= words <= kMaxSimhashWords; keys holds `words` values;
// counts holds 64 * words entries (added to, not cleared); hashes holds n
// values (n may be 0) and n < 2^32.
using SimhashCountFn = void (*)(const uint64_t* hashes, size_t n, const uint64_t* keys,
                                uint32_t words, uint32_t* counts);

struct SimhashKernel {
  const char* name;  // "portable", "avx2", "avx512"
  CpuLevel level;    // what the CPU must support
  SimhashCountFn count;
};

// Every kernel compiled in, portable first, best last (base/cpu.h):
// Active() is the one chosen once per process (SimhashSketcher::KernelName();
// NEARDUP_SIMD picks a lower supported one), Supported() those this CPU
// runs, Find(name) one of them by name or null.
const KernelRegistry<SimhashKernel>& SimhashKernels();

// Kernels; the SIMD ones exist only on x86-64 and may be called only when
// the CPU supports them (AVX2; AVX-512 F + BW + DQ).
void SimhashCountPortable(const uint64_t* hashes, size_t n, const uint64_t* keys, uint32_t words,
                          uint32_t* counts);
#if defined(NEARDUP_SKETCH_X86)
void SimhashCountAvx2(const uint64_t* hashes, size_t n, const uint64_t* keys, uint32_t words,
                      uint32_t* counts);
void SimhashCountAvx512(const uint64_t* hashes, size_t n, const uint64_t* keys, uint32_t words,
                        uint32_t* counts);
#endif

}  // namespace sketch_internal
}  // namespace neardup

#endif  // NEARDUP_SKETCH_SIMHASH_KERNELS_H_
