#include "fingerprint/rabin.h"

#include <array>
#include <bit>
#include <cstring>

#include "base/hash.h"
#include "fingerprint/rabin_kernels.h"

namespace neardup {
namespace gf2 {

uint64_t MulMod(uint64_t a, uint64_t b, uint64_t p_low) {
  // Shift-and-add: walk b's bits from the top, doubling the accumulator
  // (multiply by x) and reducing x^64 to p_low.
  uint64_t acc = 0;
  for (int i = 63; i >= 0; --i) {
    const uint64_t carry = acc >> 63;
    acc = (acc << 1) ^ (carry ? p_low : 0);
    if ((b >> i) & 1) acc ^= a;
  }
  return acc;
}

uint64_t XPow2kMod(unsigned k, uint64_t p_low) {
  uint64_t r = 2;  // x
  for (unsigned i = 0; i < k; ++i) r = MulMod(r, r, p_low);
  return r;
}

namespace {

using u128 = unsigned __int128;

// The degree of v as a polynomial over GF(2); -1 for 0.
constexpr int Degree(u128 v) {
  const uint64_t hi = static_cast<uint64_t>(v >> 64), lo = static_cast<uint64_t>(v);
  return hi != 0 ? 127 - std::countl_zero(hi) : lo != 0 ? 63 - std::countl_zero(lo) : -1;
}

constexpr u128 PolyMod(u128 a, u128 m) {
  const int dm = Degree(m);
  for (int da = Degree(a); da >= dm; da = Degree(a)) a ^= m << (da - dm);
  return a;
}

u128 PolyGcd(u128 a, u128 b) {
  while (b != 0) {
    u128 r = PolyMod(a, b);
    a = b;
    b = r;
  }
  return a;
}

// The irreducible polynomials of degree 2 to kSieveDegree (bit i the
// coefficient of x^i, the leading bit included), found by trial division
// by those of lower degree.
constexpr int kSieveDegree = 5;
constexpr size_t kSievePolynomials = 1 + 2 + 3 + 6;  // degrees 2, 3, 4 and 5

constexpr std::array<uint32_t, kSievePolynomials> kSieve = [] {
  std::array<uint32_t, kSievePolynomials> found{};
  size_t n = 0;
  for (int d = 2; d <= kSieveDegree; ++d) {
    for (uint32_t q = (1u << d) | 1; q < (2u << d); q += 2) {  // constant term 1: x does not divide it
      if (std::popcount(q) % 2 == 0) continue;                  // x + 1 divides it
      bool irreducible = true;
      for (size_t k = 0; k < n && irreducible; ++k) irreducible = PolyMod(q, found[k]) != 0;
      if (irreducible) found[n++] = q;
    }
  }
  return found;
}();
static_assert(kSieve.back() != 0, "kSievePolynomials counts the irreducibles of degree 2 to kSieveDegree");

// x^64 + p_low modulo the irreducible q of degree d: q divides
// x^(2^d - 1) - 1, so the exponents fold modulo 2^d - 1 into a polynomial
// of degree below it, then reduced by q.
uint32_t RemainderBySmall(uint64_t p_low, uint32_t q) {
  const int d = std::bit_width(q) - 1;
  const int period = (1 << d) - 1;
  const uint64_t mask = (uint64_t{1} << period) - 1;
  uint64_t folded = uint64_t{1} << (64 % period);  // the x^64 term
  for (int e = 0; e < 64; e += period) folded ^= (p_low >> e) & mask;
  return static_cast<uint32_t>(PolyMod(folded, q));
}

}  // namespace

bool IsIrreducible(uint64_t p_low) {
  if ((p_low & 1) == 0) return false;  // divisible by x
  // Small factors first, which most candidates have (about four in five
  // have one of degree 5 or less): P(1) = 0, x + 1 dividing P, when P has
  // an even number of terms; then trial division by the irreducibles of
  // degree 2 to kSieveDegree. Rabin's test below rejects all of these
  // too; the sieve only gives the answer sooner.
  if (std::popcount(p_low) % 2 == 1) return false;
  for (uint32_t q : kSieve) {
    if (RemainderBySmall(p_low, q) == 0) return false;
  }
  // gcd(x^(2^32) - x, P) must be 1 and x^(2^64) mod P must equal x; the
  // second is the first's power squared 32 more times.
  const uint64_t x_2_32 = XPow2kMod(32, p_low);
  uint64_t x_2_64 = x_2_32;
  for (int i = 0; i < 32; ++i) x_2_64 = MulMod(x_2_64, x_2_64, p_low);
  if (x_2_64 != 2) return false;
  const u128 p = (u128(1) << 64) | p_low;
  const u128 h = x_2_32 ^ 2;
  if (h == 0) return false;
  return PolyGcd(p, h) == 1;
}

}  // namespace gf2

namespace {

inline uint64_t LoadBigEndian64(const unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return __builtin_bswap64(v);
}

}  // namespace

uint64_t DrawIrreduciblePolynomial(uint64_t seed) {
  uint64_t state = seed;
  for (;;) {
    const uint64_t candidate = SplitMix64Next(&state) | 1;
    if (gf2::IsIrreducible(candidate)) return candidate;
  }
}

RabinFingerprinter::RabinFingerprinter(uint64_t p_low) : p_low_(p_low) {
  // table_[0][i] = i(x) * x^64 mod P, built bit by bit; table_[k] from
  // table_[k-1] by 8 more multiplications by x.
  for (uint64_t i = 0; i < 256; ++i) {
    uint64_t v = i << 56;  // i(x) * x^56, degree < 64
    for (int bit = 0; bit < 8; ++bit) {
      v = (v << 1) ^ ((v >> 63) ? p_low_ : 0);
    }
    table_[0][i] = v;  // i(x) * x^64 mod P
  }
  for (int k = 1; k < 8; ++k) {
    for (int i = 0; i < 256; ++i) {
      const uint64_t prev = table_[k - 1][i];
      // multiply by x^8: shift out the top byte through table_[0].
      table_[k][i] = (prev << 8) ^ table_[0][prev >> 56];
    }
  }
}

uint64_t RabinFingerprinter::Extend(uint64_t state, const void* data, size_t n) const {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  // Eight bytes per step: (state xor W) * x^64 mod P, split into bytes.
  while (n >= 8) {
    const uint64_t w = state ^ LoadBigEndian64(p);
    state = table_[7][w >> 56] ^ table_[6][(w >> 48) & 0xff] ^ table_[5][(w >> 40) & 0xff] ^
            table_[4][(w >> 32) & 0xff] ^ table_[3][(w >> 24) & 0xff] ^
            table_[2][(w >> 16) & 0xff] ^ table_[1][(w >> 8) & 0xff] ^ table_[0][w & 0xff];
    p += 8;
    n -= 8;
  }
  while (n > 0) {
    state = (state << 8) ^ table_[0][(state >> 56) ^ *p];
    ++p;
    --n;
  }
  return state;
}

uint64_t RabinFingerprinter::MapU64(uint64_t v) const {
  return table_[7][v >> 56] ^ table_[6][(v >> 48) & 0xff] ^ table_[5][(v >> 40) & 0xff] ^
         table_[4][(v >> 32) & 0xff] ^ table_[3][(v >> 24) & 0xff] ^
         table_[2][(v >> 16) & 0xff] ^ table_[1][(v >> 8) & 0xff] ^ table_[0][v & 0xff];
}

namespace fingerprint_internal {
namespace {

// Best last (base/cpu.h).
constexpr RabinFoldKernel kFoldKernels[] = {
    {"portable", CpuLevel::kPortable, nullptr},
#if defined(NEARDUP_FINGERPRINT_X86)
    {"avx2", CpuLevel::kAvx2, &RabinFoldClmul},
#endif
};

}  // namespace

const KernelRegistry<RabinFoldKernel>& RabinFoldKernels() {
  static const KernelRegistry<RabinFoldKernel> registry(kFoldKernels);
  return registry;
}

}  // namespace fingerprint_internal

InterleavedRabinFingerprinter::InterleavedRabinFingerprinter(uint64_t p_low, std::string_view kernel)
    : chain_(p_low) {
  const auto& registry = fingerprint_internal::RabinFoldKernels();
  const fingerprint_internal::RabinFoldKernel* k = kernel.empty() ? nullptr : registry.Find(kernel);
  if (k == nullptr) k = &registry.Active();
  fold_ = k->fold;
  kernel_name_ = k->name;
  x_pow_[0] = 1;
  for (size_t i = 1; i < x_pow_.size(); ++i) x_pow_[i] = chain_.MapU64(x_pow_[i - 1]);
  // i(x) * x^(8k) times x^256: four multiplications by x^64 (MapU64).
  for (int k = 0; k < 8; ++k) {
    for (int i = 0; i < 256; ++i) {
      uint64_t v = uint64_t(i) << (8 * k);
      for (int step = 0; step < 4; ++step) v = chain_.MapU64(v);
      lane_[k][i] = v;
    }
  }
}

inline uint64_t InterleavedRabinFingerprinter::Times256(uint64_t v) const {
  return lane_[7][v >> 56] ^ lane_[6][(v >> 48) & 0xff] ^ lane_[5][(v >> 40) & 0xff] ^
         lane_[4][(v >> 32) & 0xff] ^ lane_[3][(v >> 24) & 0xff] ^ lane_[2][(v >> 16) & 0xff] ^
         lane_[1][(v >> 8) & 0xff] ^ lane_[0][v & 0xff];
}

uint64_t InterleavedRabinFingerprinter::Extend(uint64_t state, const void* data, size_t n) const {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  if (fold_ != nullptr && n >= 64) {
    // T = M mod P up to a multiple of P (rabin_kernels.h); R_P = T x^64 mod P.
    const size_t groups = n / 64;
    uint64_t t[2];
    fold_(x_pow_, p, groups, state, t);
    return chain_.Extend(chain_.MapU64(chain_.MapU64(t[1]) ^ t[0]), p + 64 * groups, n - 64 * groups);
  }
  const size_t rounds = n / 32;  // four words a round
  if (rounds < 2) return chain_.Extend(state, data, n);
  // The chain computes S = state * x^(64N) + sum_i W_i * x^(64(N - i)) over
  // the N = 4 * rounds words W_i. Lane j holds, by Horner's rule,
  // L_j = sum_t W_(4t+j) * x^(256(rounds - 1 - t)), so that
  // S = sum_j L_j * x^(64(4 - j)), with the state xored into W_0 as the
  // chain's first step does.
  uint64_t l0 = state ^ LoadBigEndian64(p), l1 = LoadBigEndian64(p + 8), l2 = LoadBigEndian64(p + 16),
           l3 = LoadBigEndian64(p + 24);
  for (size_t t = 1; t < rounds; ++t) {
    p += 32;
    l0 = Times256(l0) ^ LoadBigEndian64(p);
    l1 = Times256(l1) ^ LoadBigEndian64(p + 8);
    l2 = Times256(l2) ^ LoadBigEndian64(p + 16);
    l3 = Times256(l3) ^ LoadBigEndian64(p + 24);
  }
  p += 32;
  const uint64_t s = Times256(l0) ^ chain_.MapU64(chain_.MapU64(chain_.MapU64(l1))) ^
                     chain_.MapU64(chain_.MapU64(l2)) ^ chain_.MapU64(l3);
  return chain_.Extend(s, p, n - 32 * rounds);
}

}  // namespace neardup
