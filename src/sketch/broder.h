// Copyright neardup authors. Licensed under Apache-2.0.
//
// Broder's shingling with min-hash pre-images, supershingles and megashingles,
// as Fetterly, Manasse and Najork ran it ("On the Evolution of Clusters of
// Near-Duplicate Web Pages", §2) and as Henzinger's Algorithm B ("Finding
// Near-Duplicate Web Pages: A Large-Scale Evaluation of Algorithms", §2).
//
// Pipeline for one document, given its term hashes h_0 .. h_{n-1}
// (TokenizedDocument::term_hashes, XXH3-64 of each case-folded term):
//
//  1. Shingles ("pre-images"): every window of k consecutive terms is
//     fingerprinted with a 64-bit Rabin fingerprint of the window's bytes,
//     each term hash contributing its 8 big-endian bytes:
//         shingle = RabinFingerprinter(P_s).Fingerprint(BE(h_s) .. BE(h_{s+k-1})).
//     With wrap (Fetterly) the window wraps around the end so every term
//     starts exactly one shingle: n shingles. Without wrap (Henzinger)
//     there are n - k + 1.
//  2. Min-hash: m one-to-one functions f_i on 64-bit values; for each i the
//     pre-image (the shingle itself) whose image f_i(shingle) is smallest is
//     kept ("we retained the pre-image which results in the numerically
//     smallest image", Fetterly). Two documents with shingle sets A and B
//     agree at position i with probability |A∩B| / |A∪B| (the resemblance).
//  3. Supershingles: m' = m / l Rabin fingerprints, supershingle j of the
//     bytes of pre-images j*l .. j*l + l - 1 (Henzinger's minvalue runs).
//     Each agrees with probability p^l; with m = 84, l = 14, m' = 6 two
//     documents of resemblance 0.95 share at least two supershingles with
//     probability about 0.88, at 0.80 about 0.026 (Fetterly: "almost 90%",
//     2.6%).
//  4. Megashingles (Fetterly): one per pair i < j of supershingles, the
//     fingerprint of the pair; documents sharing one share two supershingles.
//
// Two min-hash families:
//  - MinHashFamily::kRabin (reference, Fetterly): f_i = R_{P_i}, the raw Rabin
//    function v -> v(x) * x^64 mod P_i on 64-bit values, with m distinct
//    irreducible P_i drawn from the seed. Images are compared as unsigned
//    integers. Linear over GF(2), so not min-wise on structured (affine) sets
//    of pre-images; the paper accepts this because pre-images are Rabin
//    fingerprints and look random. Scalar, about m * 8 table lookups per
//    shingle.
//  - MinHashFamily::kFast (default): f_i(x) = ((M(x) xor b_i) * a_i) mod 2^64,
//    the image compared as a *signed* 64-bit integer, where M is the
//    MurmurHash3 64-bit finalizer (fmix64) shared by all i, a_i odd and b_i
//    drawn from the seed. Every step is a bijection of 64-bit values (xor-
//    shifts by >= 32 bits, multiplication by an odd number, xor with a
//    constant), so each f_i is one-to-one and the kept pre-image is recovered
//    exactly from the minimum image by inverting f_i. M makes the family
//    min-wise in practice on structured inputs too (consecutive or strided
//    values), where a bare multiply is not; the signed order lets AVX2
//    compare with vpcmpgtq. Computed by SIMD kernels chosen at run time
//    (KernelName()); every kernel gives identical results.
#ifndef NEARDUP_SKETCH_BRODER_H_
#define NEARDUP_SKETCH_BRODER_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fingerprint/rabin.h"
#include "neardup/status.h"
#include "sketch/shingle_kernels.h"

namespace neardup {

namespace sketch_internal {
struct MinHashKernel;
}  // namespace sketch_internal

enum class MinHashFamily {
  kFast,   // ((fmix64(x) ^ b_i) * a_i), signed order; SIMD (see file comment)
  kRabin,  // R_{P_i}(x), unsigned order; Fetterly's functions, scalar reference
};

struct BroderOptions {
  // --- Behaviour: every field here shapes the signature (see Name()).

  // k, terms per shingle (Fetterly: 5 with wrap; Henzinger: 8 without).
  uint32_t shingle_size = 5;
  // Wrap the window around the end of the document so every term starts
  // exactly one shingle (Fetterly). False: n - k + 1 shingles (Henzinger).
  bool wrap = true;
  // m, min-hash functions (84 in both papers).
  uint32_t num_minhashes = 84;
  // l, min-hash pre-images per supershingle (14); m' = m / l supershingles.
  uint32_t supershingle_size = 14;
  MinHashFamily family = MinHashFamily::kFast;
  // Draws the shingle, supershingle and min-hash Rabin polynomials and the
  // kFast multipliers a_i and masks b_i.
  uint64_t seed = 1234;

  // --- Performance: no effect on the signature.

  // The kFast min-hash kernel: "" (the process default, KernelName()),
  // "portable", "avx2" or "avx512". All give identical results; tests and
  // benchmarks pin one.
  std::string kernel;

  // InvalidArgument unless 1 <= k <= 64, 1 <= m <= 256, 1 <= l <= m,
  // m % l == 0, 1 <= m' <= 16 and family is a known value; NotSupported
  // when `kernel` names a kernel this build or CPU lacks.
  Status Validate() const;

  // m' = m / l.
  uint32_t num_supershingles() const { return num_minhashes / supershingle_size; }

  // The scheme's name for logs, reports and store headers (STYLE §7), e.g.
  // "broder:k=5,wrap,m=84,l=14,fast,seed=1234" ("nowrap", "rabin"). Two
  // option sets with the same name give identical signatures; the name
  // changes whenever the encoding does.
  std::string Name() const;
  // Parses Name()'s format back (fields in any order, all required;
  // performance fields keep their defaults).
  // InvalidArgument naming the offending field and the valid choices.
  static Result<BroderOptions> FromName(std::string_view name);
};

// Reusable buffers for Sketch(); one per thread, not thread-safe. Holding one
// across documents avoids allocation after the largest document.
struct SketchScratch {
  std::vector<uint64_t> shingles;
  std::vector<uint64_t> minhashes;
  std::vector<uint32_t> keys;  // callers' scratch (e.g. distinct shingle keys)
  // Callers' scratch: an open-addressing set of 32-bit keys, 0 an empty
  // slot (callers clear the slots they use and keep key 0 apart).
  std::vector<uint32_t> key_set;
};

// Computes shingles, min-hash pre-images and supershingles. Immutable after
// construction and safe to share between threads. Construction draws m + 2
// irreducible polynomials for kRabin (tens of milliseconds), 2 for kFast.
class BroderSketcher {
 public:
  // REQUIRES: options.Validate().ok() (checked: aborts otherwise).
  explicit BroderSketcher(const BroderOptions& options);
  ~BroderSketcher();
  BroderSketcher(const BroderSketcher&) = delete;
  BroderSketcher& operator=(const BroderSketcher&) = delete;

  const BroderOptions& options() const { return options_; }

  // The pre-images: one 64-bit Rabin fingerprint (polynomial P_s, see
  // shingle_fingerprinter()) per k-term window of term_hashes, in window
  // order, replacing *out's contents. n = term_hashes.size():
  //  - n == 0: no shingles.
  //  - wrap: n shingles; shingle s covers terms s, s+1, ... mod n, so a
  //    document shorter than k repeats its terms to fill the window.
  //  - no wrap, n >= k: n - k + 1 shingles; n < k: one shingle of all n
  //    terms (a window of n terms).
  // O(1) table lookups per shingle (rolling: Rabin is linear, so the
  // outgoing term's contribution is removed with a table for x^(64(k+1))).
  void Shingles(std::span<const uint64_t> term_hashes, std::vector<uint64_t>* out) const;

  // m min-hash pre-images into out[0..m): for function i, the element of
  // `shingles` whose image under f_i is smallest. Duplicates in `shingles`
  // do not matter (a set is sketched). Returns false, leaving out
  // untouched, when shingles is empty. O(m) per shingle.
  bool MinHashes(std::span<const uint64_t> shingles, uint64_t* out) const;

  // m 32-bit min-hash values into out[0..m): for function i, the shingle x
  // whose image lo32(f_i(x)) = (lo32(M(x)) ^ lo32(b_i)) * lo32(a_i) mod 2^32
  // (the low 32 bits of the kFast image) is least as an unsigned integer,
  // given as lo32(M(x)), recovered by inverting that bijection. Two
  // documents agree at i with probability their resemblance, plus the
  // chance that two different shingles share lo32(M(x)) (2^-32 a pair,
  // the same for any two documents' values). Not the 64-bit family's
  // pre-image: Supershingles() does not take it. On AVX2 a quarter of
  // MinHashes()'s work (one multiply for 8 lanes). Returns false, leaving
  // out untouched, when shingles is empty.
  // REQUIRES: options().family == MinHashFamily::kFast (checked).
  bool MinValues32(std::span<const uint64_t> shingles, uint32_t* out) const;
  // The image under function i of a value MinValues32 returns: of two
  // documents' values at i, the one with the smaller image is the least
  // over their union (MinValues32 keeps the least image's pre-image).
  // REQUIRES: options().family == MinHashFamily::kFast; i < m.
  uint32_t Image32(uint32_t i, uint32_t value) const { return (value ^ xor32_[i]) * mul32_[i]; }

  // m' supershingles into out[0..m'): out[j] = RabinFingerprinter(P_ss).
  // Fingerprint of the big-endian bytes of minhashes[j*l .. j*l + l - 1].
  // REQUIRES: minhashes holds m values.
  void Supershingles(const uint64_t* minhashes, uint64_t* out) const;

  // Shingles -> MinHashes -> Supershingles. Writes m' supershingles and,
  // when minhashes_out is not null, the m pre-images. Returns false (outputs
  // untouched) for a document with no terms.
  bool Sketch(std::span<const uint64_t> term_hashes, SketchScratch* scratch,
              uint64_t* supershingles_out, uint64_t* minhashes_out = nullptr) const;

  // The min-hash kernel in use: "avx512", "avx2" or "portable", chosen once
  // per process from the CPU; the environment variable
  // NEARDUP_SIMD=portable|avx2|avx512 picks a lower one (a kernel the CPU
  // lacks, or an unknown value, is ignored). Only kFast uses it.
  static const char* KernelName();
  // The kernel this sketcher uses (options().kernel, or KernelName()).
  const char* kernel_name() const;

  // The fingerprinters of steps 1 and 3 (polynomials drawn from the seed).
  const RabinFingerprinter& shingle_fingerprinter() const { return shingle_fp_; }
  const RabinFingerprinter& supershingle_fingerprinter() const { return super_fp_; }

  // f_i(x) as this sketcher orders images: for kFast the image reinterpreted
  // with its sign bit flipped, so that for both families the smallest
  // unsigned value is the minimum. For tests and tools. REQUIRES: i < m.
  uint64_t TEST_Image(uint32_t i, uint64_t x) const;
  // Shingles() through a given shingle kernel (sketch_internal::
  // ShingleKernels(); Shingles() uses the process's Active() one): every
  // kernel gives the same values; for tests and benchmarks of the kernels.
  void ShinglesWith(const sketch_internal::ShingleKernel& kernel, std::span<const uint64_t> term_hashes,
                         std::vector<uint64_t>* out) const;

 private:
  // Multiplication by a fixed c(x) modulo P_s, 8 bits at a time:
  // t[j][b] = (b(x) * x^(8j)) * c(x) mod P_s.
  struct alignas(64) MulTable {
    uint64_t t[8][256];
  };

  void MinHashesFast(std::span<const uint64_t> shingles, uint64_t* out) const;
  void MinHashesRabin(std::span<const uint64_t> shingles, uint64_t* out) const;

  BroderOptions options_;
  const sketch_internal::MinHashKernel* kernel_;
  RabinFingerprinter shingle_fp_;
  RabinFingerprinter super_fp_;
  // Rolling shingles: in_ multiplies by x^64 (= MapU64 of shingle_fp_),
  // out_ by x^(64(k+1)); roll_const_ = (x^(64(k+2)) + x^(64(k+1))) mod P_s.
  std::unique_ptr<MulTable> in_;
  std::unique_ptr<MulTable> out_;
  uint64_t roll_const_ = 0;
  // The same constants for the shingle kernels, and the kernel chosen
  // (sketch_internal::ShingleKernels().Active()).
  sketch_internal::RollingConstants rolling_;
  const sketch_internal::ShingleKernel* shingle_kernel_;
  // kFast: a_i, b_i and a_i^-1 mod 2^64, padded to a multiple of 8 entries.
  std::vector<uint64_t> mul_, xor_, mul_inv_;
  // kFast: the low 32 bits of a_i and b_i, padded to a multiple of 16.
  std::vector<uint32_t> mul32_, xor32_;
  // kRabin: the m functions R_{P_i}.
  std::vector<RabinFingerprinter> rabin_;
};

// Megashingle of supershingles number i < j (Fetterly's 15 megashingles for
// m' = 6): the Rabin fingerprint (fixed polynomial drawn from
// kMegashingleSeed) of the 16 big-endian bytes of supershingle_i then
// supershingle_j. Order matters; callers keep one table per pair (i, j), so
// equal values from different pairs are never compared.
inline constexpr uint64_t kMegashingleSeed = 0x6d656761;  // "mega"
uint64_t Megashingle(uint64_t supershingle_i, uint64_t supershingle_j);

// Henzinger's B-similarity: the number of positions j < num_supershingles
// where a[j] == b[j]. B-similar (near-duplicates of Algorithm B) iff >= 2.
int BSimilarity(const uint64_t* a, const uint64_t* b, uint32_t num_supershingles);

}  // namespace neardup

#endif  // NEARDUP_SKETCH_BRODER_H_
