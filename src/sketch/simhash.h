// Copyright neardup authors. Licensed under Apache-2.0.
//
// Charikar's simhash ("Similarity Estimation Techniques from Rounding
// Algorithms", STOC 2002, random hyperplane rounding) as Henzinger ran it:
// Algorithm C of "Finding Near-Duplicate Web Pages: A Large-Scale Evaluation
// of Algorithms" (SIGIR 2006), §2.
//
// For a page with term hashes h_0 .. h_{n-1} (TokenizedDocument::
// term_hashes, in any order):
//
//  1. Projection: every term is projected to b dimensions by a pseudo-random
//     vector r(h) in {-1, +1}^b, the same for all pages: word w of r(h) is
//     ProjectionWord(h, key_w) (sketch/simhash_kernels.h: SplitMix64's
//     output function of h + key_w, key_w drawn from the seed), bit 1 -> +1,
//     bit 0 -> -1.
//  2. Sum: S = sum over the term *sequence* of r(h_s), so a term occurring f
//     times counts f times (Henzinger: "adding the projections of all the
//     tokens in its token sequence"); term order is ignored.
//  3. Sign: sketch bit i (bit i % 64 of word i / 64) is 1 iff S_i > 0
//     ("every positive entry ... to 1 and every non-positive entry to 0").
//
// For two pages whose term-frequency vectors make the angle theta, each bit
// agrees with probability 1 - theta / pi (Charikar, after Goemans and
// Williamson), so the number of agreeing bits, Henzinger's C-similarity,
// estimates the cosine similarity. Henzinger: b = 384 (48 bytes, as for
// Algorithm B's six supershingles), C-similar iff C-similarity >= t = 372
// (§3.3). Candidate pairs: index/simhash_index.h.
//
// Counting is done by SIMD kernels chosen at run time (KernelName()); every
// kernel gives identical sketches.
#ifndef NEARDUP_SKETCH_SIMHASH_H_
#define NEARDUP_SKETCH_SIMHASH_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "neardup/status.h"

namespace neardup {

namespace sketch_internal {
struct SimhashKernel;
}  // namespace sketch_internal

struct SimhashOptions {
  // --- Behaviour: every field here shapes the signature (see Name()).

  // b, bits (dimensions) of the sketch: a multiple of 64 from 64 to 512
  // (Henzinger's Algorithm C: 384).
  uint32_t bits = 384;
  // Draws the key of every projection word, hence the +-1 projection of
  // every term.
  uint64_t seed = 1234;

  // --- Performance: no effect on the signature.

  // The counting kernel: "" (the process default, KernelName()),
  // "portable", "avx2" or "avx512". All give identical sketches; tests and
  // benchmarks pin one.
  std::string kernel;

  // InvalidArgument unless bits is a multiple of 64 in 64..512;
  // NotSupported when `kernel` names a kernel this build or CPU lacks.
  Status Validate() const;

  // The scheme's name for logs, reports and store headers (STYLE §7), e.g.
  // "simhash:b=384,seed=1234". Two option sets with the same name give
  // identical sketches; the name changes whenever the encoding does.
  std::string Name() const;

  // W, 64-bit words per sketch.
  uint32_t words() const { return bits / 64; }
};

// Reusable buffers for Sketch(); one per thread, not thread-safe.
struct SimhashScratch {
  std::vector<uint32_t> counts;  // per dimension: terms with a +1 there
};

// Computes simhash sketches. Immutable after construction and safe to share
// between threads (each thread brings its own SimhashScratch).
class SimhashSketcher {
 public:
  // REQUIRES: options.Validate().ok() (checked: aborts otherwise).
  explicit SimhashSketcher(const SimhashOptions& options);
  SimhashSketcher(const SimhashSketcher&) = delete;
  SimhashSketcher& operator=(const SimhashSketcher&) = delete;

  const SimhashOptions& options() const { return options_; }

  // Writes the b-bit sketch of the term sequence as bits / 64 words to
  // out[0 .. bits/64). Returns false, leaving out untouched, when
  // term_hashes is empty. REQUIRES: term_hashes.size() < 2^32.
  // O(n * b / 64) with small constants (see the kernels).
  bool Sketch(std::span<const uint64_t> term_hashes, SimhashScratch* scratch,
              uint64_t* out) const;

  // The counting kernel in use: "avx512", "avx2" or "portable", chosen once
  // per process from the CPU; the environment variable
  // NEARDUP_SIMD=portable|avx2|avx512 picks a lower one (a kernel the CPU
  // lacks, or an unknown value, is ignored).
  static const char* KernelName();
  // The kernel this sketcher uses (options().kernel, or KernelName()).
  const char* kernel_name() const;

  // Word w of the projection r(term_hash) (bit j: +1 in dimension 64w + j).
  // For tests and tools. REQUIRES: w < bits / 64.
  uint64_t TEST_ProjectionWord(uint64_t term_hash, uint32_t w) const;

 private:
  SimhashOptions options_;
  const sketch_internal::SimhashKernel* kernel_;
  std::vector<uint64_t> keys_;  // key_w, w < bits / 64
};

// Henzinger's C-similarity: the number of agreeing bits of two b-bit
// sketches (b minus their Hamming distance), 0 .. bits.
// REQUIRES: bits % 64 == 0; a and b hold bits / 64 words.
int CSimilarity(const uint64_t* a, const uint64_t* b, uint32_t bits);

}  // namespace neardup

#endif  // NEARDUP_SKETCH_SIMHASH_H_
