// Copyright neardup authors. Licensed under Apache-2.0.
//
// 64-bit Rabin fingerprints over GF(2) (M. O. Rabin, "Fingerprinting by
// random polynomials", 1981), as Broder's shingling, Fetterly, Manasse and
// Najork ("On the Evolution of Clusters of Near-Duplicate Web Pages") and
// Henzinger ("Finding Near-Duplicate Web Pages") use them.
//
// A polynomial P(x) = x^64 + p(x) of degree 64 is represented by the 64 low
// coefficients p (bit i = coefficient of x^i). A message A (bytes, most
// significant bit of the first byte first) is the polynomial A(x); the raw
// Rabin function is
//
//     R_P(A) = A(x) * x^64 mod P(x)
//
// which is linear over GF(2) (R(A xor B) = R(A) xor R(B) for equal lengths)
// and, for irreducible P, one-to-one on 64-bit inputs (multiplication by
// x^64 is invertible modulo an irreducible P). For P = the CRC-64/ECMA-182
// polynomial R_P is exactly that CRC (initial value 0, no reflection), which
// gives known test vectors.
//
// Fingerprint() prefixes the message with a single 1 bit before applying R_P
// (the running state after that bit is R_P(1) = x^64 mod P = p_low)
// so that messages differing only in leading zero bytes still differ; two
// distinct messages of total length n bits collide with probability at most
// n / 2^63 over the random choice of an irreducible P.
#ifndef NEARDUP_FINGERPRINT_RABIN_H_
#define NEARDUP_FINGERPRINT_RABIN_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace neardup {

namespace fingerprint_internal {
// x^(64 k) mod P(x) for k = 0..9 (x_pow[0] = 1).
using XPowers = std::array<uint64_t, 10>;
// A fold kernel of InterleavedRabinFingerprinter (rabin_kernels.h has the
// contract): `groups` 64-byte blocks at p into T = (t[0], t[1]).
using RabinFold = void (*)(const XPowers& x_pow, const unsigned char* p, size_t groups, uint64_t state,
                           uint64_t t[2]);
}  // namespace fingerprint_internal

// Arithmetic in GF(2)[x] / P(x) for a degree-64 P given by its low part.
namespace gf2 {
// a(x) * b(x) mod P(x), for a, b of degree < 64.
uint64_t MulMod(uint64_t a, uint64_t b, uint64_t p_low);
// x^(2^k) mod P(x).
uint64_t XPow2kMod(unsigned k, uint64_t p_low);
// True when x^64 + p_low(x) is irreducible over GF(2) (Rabin's test: P of
// degree 64 is irreducible iff x^(2^64) = x mod P and gcd(x^(2^32) - x, P) = 1,
// 2 being the only prime divisor of 64).
bool IsIrreducible(uint64_t p_low);
}  // namespace gf2

// Draws an irreducible polynomial of degree 64 deterministically from `seed`
// (splitmix64 stream; candidates with constant term 1, tested with
// gf2::IsIrreducible). About 1 in 32 candidates qualifies.
uint64_t DrawIrreduciblePolynomial(uint64_t seed);

// Table-driven Rabin fingerprinting with one fixed polynomial. Immutable
// after construction and safe to share between threads. Tables: 8 x 256
// entries (16 KiB), processing 8 bytes per step ("slicing by 8").
class RabinFingerprinter {
 public:
  // The polynomial used when no seed is given: drawn from seed 0x5eed.
  static constexpr uint64_t kDefaultSeed = 0x5eed;

  // REQUIRES: x^64 + p_low is irreducible (not checked here; use
  // FromSeed or gf2::IsIrreducible). A reducible P still gives a function,
  // just not Rabin's collision bound.
  explicit RabinFingerprinter(uint64_t p_low);
  static RabinFingerprinter FromSeed(uint64_t seed) {
    return RabinFingerprinter(DrawIrreduciblePolynomial(seed));
  }

  uint64_t polynomial() const { return p_low_; }

  // R_P(state-prefix . data): extends a running value. Start from 0 for the
  // raw function (CRC-style; leading zero bytes do not change it).
  uint64_t Extend(uint64_t state, const void* data, size_t n) const;
  uint64_t Raw(const void* data, size_t n) const { return Extend(0, data, n); }
  // Fingerprint of a message with the 1-bit prefix (see file comment).
  uint64_t Fingerprint(const void* data, size_t n) const { return Extend(p_low_, data, n); }
  uint64_t Fingerprint(std::string_view s) const { return Fingerprint(s.data(), s.size()); }

  // R_P on one 64-bit value taken as a polynomial of degree < 64: a
  // one-to-one function of v (Fetterly et al.'s min-hash uses 84 of these
  // with different polynomials). Equals Raw() of v's 8 big-endian bytes.
  uint64_t MapU64(uint64_t v) const;

 private:
  uint64_t p_low_;
  // table_[k][i] = i(x) * x^(64 + 8k) mod P(x).
  std::array<std::array<uint64_t, 256>, 8> table_;
};

// The same function as RabinFingerprinter (equal results for every input),
// faster on long messages: RabinFingerprinter's steps form one chain of
// dependent table lookups; here the message is folded in parts (R_P is
// linear, so the message is the parts' sum, each shifted by its offset).
// The portable kernel keeps four lanes that take every fourth 8-byte word,
// each multiplying by x^256 a step with tables, so that the chain's
// latency overlaps four times; on CPUs of the AVX2 level, four 128-bit
// accumulators of carry-less products fold 64 bytes a step
// (rabin_kernels.h). Messages under 64 bytes go through the plain chain.
// Tables: 32 KiB. Immutable after construction; safe to share.
class InterleavedRabinFingerprinter {
 public:
  // `kernel`: "portable" or "avx2" (rabin_kernels.h) when the CPU runs it;
  // empty or any other name: the registry's active kernel.
  explicit InterleavedRabinFingerprinter(uint64_t p_low, std::string_view kernel = {});
  static InterleavedRabinFingerprinter FromSeed(uint64_t seed, std::string_view kernel = {}) {
    return InterleavedRabinFingerprinter(DrawIrreduciblePolynomial(seed), kernel);
  }
  // The kernel Extend uses ("portable" or "avx2").
  const char* kernel_name() const { return kernel_name_; }

  uint64_t polynomial() const { return chain_.polynomial(); }
  // As RabinFingerprinter::Extend and ::Fingerprint.
  uint64_t Extend(uint64_t state, const void* data, size_t n) const;
  uint64_t Fingerprint(const void* data, size_t n) const { return Extend(polynomial(), data, n); }

 private:
  // v(x) * x^256 mod P(x).
  uint64_t Times256(uint64_t v) const;

  RabinFingerprinter chain_;
  // lane_[k][i] = i(x) * x^(256 + 8k) mod P(x).
  std::array<std::array<uint64_t, 256>, 8> lane_;
  // x_pow_[k] = x^(64k) mod P(x), k = 0..9 (the fold kernels' constants).
  fingerprint_internal::XPowers x_pow_;
  // The fold kernel; nullptr: the four table lanes.
  fingerprint_internal::RabinFold fold_ = nullptr;
  const char* kernel_name_ = "portable";
};

}  // namespace neardup

#endif  // NEARDUP_FINGERPRINT_RABIN_H_
