#include "fingerprint/rabin.h"
#include "fingerprint/rabin_kernels.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

namespace neardup {
namespace {

// Independent reference: bit-serial polynomial division, one bit at a time,
// of (message followed by 64 zero bits) by P, starting from `state`.
uint64_t BitSerialRaw(uint64_t p_low, uint64_t state, const std::string& msg) {
  for (unsigned char c : msg) {
    for (int b = 7; b >= 0; --b) {
      const uint64_t in = (c >> b) & 1;
      const uint64_t top = (state >> 63) ^ in;
      state = (state << 1) ^ (top ? p_low : 0);
    }
  }
  return state;
}

std::string RandomBytes(std::mt19937_64& rng, size_t n) {
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

// Carry-less product of two polynomials of degree < 64 (128-bit result).
unsigned __int128 ClMul(uint64_t a, uint64_t b) {
  unsigned __int128 r = 0;
  for (int i = 0; i < 64; ++i) {
    if ((b >> i) & 1) r ^= static_cast<unsigned __int128>(a) << i;
  }
  return r;
}

// Remainder of a 65-bit polynomial (x^64 + p_low) by a small divisor d.
uint64_t SmallRemainder(uint64_t p_low, uint64_t d) {
  unsigned __int128 a = (static_cast<unsigned __int128>(1) << 64) | p_low;
  const int dd = 63 - __builtin_clzll(d);
  for (int da = 64; da >= dd; --da) {
    if ((a >> da) & 1) a ^= static_cast<unsigned __int128>(d) << (da - dd);
  }
  return static_cast<uint64_t>(a);
}

// Rabin's irreducibility test for x^64 + p_low written out plainly, as a
// reference for gf2::IsIrreducible: x^(2^64) = x mod P and
// gcd(x^(2^32) - x, P) = 1, with products by ClMul and remainders by long
// division a bit at a time, and no shortcut.
unsigned __int128 Remainder128(unsigned __int128 a, unsigned __int128 m) {
  auto degree = [](unsigned __int128 v) {
    const uint64_t hi = static_cast<uint64_t>(v >> 64), lo = static_cast<uint64_t>(v);
    return hi != 0 ? 127 - __builtin_clzll(hi) : lo != 0 ? 63 - __builtin_clzll(lo) : -1;
  };
  const int dm = degree(m);
  for (int da = degree(a); da >= dm; da = degree(a)) a ^= m << (da - dm);
  return a;
}

bool ReferenceIsIrreducible(uint64_t p_low) {
  const unsigned __int128 p = (static_cast<unsigned __int128>(1) << 64) | p_low;
  auto square_mod = [&](uint64_t v) { return static_cast<uint64_t>(Remainder128(ClMul(v, v), p)); };
  uint64_t x_2_32 = 2;
  for (int i = 0; i < 32; ++i) x_2_32 = square_mod(x_2_32);
  uint64_t x_2_64 = 2;
  for (int i = 0; i < 64; ++i) x_2_64 = square_mod(x_2_64);
  if (x_2_64 != 2) return false;
  unsigned __int128 a = p, b = x_2_32 ^ 2;
  while (b != 0) {
    const unsigned __int128 r = Remainder128(a, b);
    a = b;
    b = r;
  }
  return a == 1;
}

// Rank over GF(2) of 64 row vectors (Gaussian elimination).
int Gf2Rank(std::vector<uint64_t> rows) {
  int rank = 0;
  for (int bit = 63; bit >= 0 && rank < static_cast<int>(rows.size()); --bit) {
    int pivot = -1;
    for (int r = rank; r < static_cast<int>(rows.size()); ++r) {
      if ((rows[r] >> bit) & 1) { pivot = r; break; }
    }
    if (pivot < 0) continue;
    std::swap(rows[rank], rows[pivot]);
    for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
      if (r != rank && ((rows[r] >> bit) & 1)) rows[r] ^= rows[rank];
    }
    ++rank;
  }
  return rank;
}

TEST(RabinTest, KnownVectorCrc64Ecma182) {
  // R_P with P = CRC-64/ECMA-182 is that CRC (init 0, no reflection, no
  // final xor); its published check value for "123456789".
  RabinFingerprinter crc(0x42F0E1EBA9EA3693ULL);
  EXPECT_EQ(crc.Raw("123456789", 9), 0x6C40DF5F0B497347ULL);
  EXPECT_EQ(crc.Raw("", 0), 0u);
}

TEST(RabinTest, TableDrivenMatchesBitSerialForAllLengths) {
  std::mt19937_64 rng(7);
  RabinFingerprinter fp = RabinFingerprinter::FromSeed(42);
  for (size_t n = 0; n < 80; ++n) {
    std::string m = RandomBytes(rng, n);
    EXPECT_EQ(fp.Raw(m.data(), m.size()), BitSerialRaw(fp.polynomial(), 0, m)) << n;
    EXPECT_EQ(fp.Fingerprint(m), BitSerialRaw(fp.polynomial(), fp.polynomial(), m)) << n;
  }
}

TEST(RabinTest, ExtendIsIncremental) {
  std::mt19937_64 rng(8);
  RabinFingerprinter fp = RabinFingerprinter::FromSeed(1);
  std::string m = RandomBytes(rng, 1000);
  for (size_t cut : {0, 1, 7, 8, 9, 500, 999, 1000}) {
    uint64_t s = fp.Extend(0, m.data(), cut);
    s = fp.Extend(s, m.data() + cut, m.size() - cut);
    EXPECT_EQ(s, fp.Raw(m.data(), m.size()));
  }
}

TEST(RabinTest, KnownIrreducibleAndReduciblePolynomials) {
  // x^64 + x^4 + x^3 + x + 1 is the standard irreducible for GF(2^64).
  EXPECT_TRUE(gf2::IsIrreducible(0x1B));
  // x^64 + 1 = (x + 1)^64.
  EXPECT_FALSE(gf2::IsIrreducible(0x1));
  // Even constant term: divisible by x.
  EXPECT_FALSE(gf2::IsIrreducible(0x1A));
  // A product of two degree-32 polynomials is reducible even when both are
  // irreducible themselves.
  const uint64_t f = (1ULL << 32) | 0x8D;  // x^32 + x^7 + x^3 + x^2 + 1
  const uint64_t g = (1ULL << 32) | 0xAF;
  const unsigned __int128 prod = ClMul(f, g);
  ASSERT_EQ(static_cast<uint64_t>(prod >> 64), 1u);
  EXPECT_FALSE(gf2::IsIrreducible(static_cast<uint64_t>(prod)));
}

// IsIrreducible's early answers (x + 1 and the irreducibles of degree 2
// to 5 as factors) agree with Rabin's test on every candidate: random odd
// ones (about 1 in 32 irreducible), products with small factors, and the
// drawn polynomials themselves.
TEST(RabinTest, IrreducibilityMatchesRabinsTestWrittenPlainly) {
  std::mt19937_64 rng(11);
  int irreducible = 0;
  for (int i = 0; i < 2000; ++i) {
    const uint64_t p = rng() | 1;
    const bool expected = ReferenceIsIrreducible(p);
    ASSERT_EQ(gf2::IsIrreducible(p), expected) << std::hex << p;
    irreducible += expected;
  }
  EXPECT_GT(irreducible, 30);  // about 2000 / 32 = 62
  EXPECT_LT(irreducible, 125);
  // x^64 + p_low made a multiple of each small irreducible q of the sieve,
  // and of one of degree 6 that only Rabin's test finds: (x^(64-d) + c(x))
  // * q(x) for random c of degree < 64 - d has degree 64.
  for (uint64_t q : {0x7u, 0xBu, 0xDu, 0x13u, 0x19u, 0x1Fu, 0x25u, 0x29u, 0x2Fu, 0x37u, 0x3Bu, 0x3Du, 0x43u}) {
    const int d = 63 - __builtin_clzll(q);
    for (int i = 0; i < 20; ++i) {
      const uint64_t c = (rng() >> (d + 1)) | 1;
      const unsigned __int128 product = ClMul((uint64_t{1} << (64 - d)) ^ c, q);
      ASSERT_EQ(static_cast<uint64_t>(product >> 64), 1u);
      const uint64_t p = static_cast<uint64_t>(product);
      EXPECT_FALSE(gf2::IsIrreducible(p)) << std::hex << p << " = multiple of " << q;
      EXPECT_FALSE(ReferenceIsIrreducible(p));
    }
  }
  for (uint64_t seed = 0; seed < 8; ++seed) EXPECT_TRUE(ReferenceIsIrreducible(DrawIrreduciblePolynomial(seed)));
}

TEST(RabinTest, DrawnPolynomialsAreIrreducibleAndDeterministic) {
  std::unordered_set<uint64_t> seen;
  for (uint64_t seed = 0; seed < 24; ++seed) {
    const uint64_t p = DrawIrreduciblePolynomial(seed);
    EXPECT_EQ(p, DrawIrreduciblePolynomial(seed));
    EXPECT_TRUE(gf2::IsIrreducible(p));
    EXPECT_EQ(gf2::XPow2kMod(64, p), 2u);  // x^(2^64) = x mod P
    // Independent partial check: no factor of degree 1..10 (trial division
    // by every polynomial of those degrees).
    for (uint64_t d = 2; d < (1u << 11); ++d) {
      ASSERT_NE(SmallRemainder(p, d), 0u) << "seed " << seed << " divisor " << d;
    }
    seen.insert(p);
  }
  EXPECT_EQ(seen.size(), 24u);
}

TEST(RabinTest, RawIsLinear) {
  std::mt19937_64 rng(9);
  RabinFingerprinter fp = RabinFingerprinter::FromSeed(3);
  for (int t = 0; t < 200; ++t) {
    const size_t n = rng() % 64;
    std::string a = RandomBytes(rng, n), b = RandomBytes(rng, n), x(n, '\0');
    for (size_t i = 0; i < n; ++i) x[i] = static_cast<char>(a[i] ^ b[i]);
    EXPECT_EQ(fp.Raw(x.data(), n), fp.Raw(a.data(), n) ^ fp.Raw(b.data(), n));
  }
}

TEST(RabinTest, MapU64IsOneToOne) {
  // Linear map on GF(2)^64: one-to-one iff the images of the 64 unit vectors
  // are linearly independent (Gaussian elimination to rank 64).
  for (uint64_t seed : {0ULL, 11ULL, 12345ULL}) {
    RabinFingerprinter fp = RabinFingerprinter::FromSeed(seed);
    std::vector<uint64_t> rows;
    for (int i = 0; i < 64; ++i) rows.push_back(fp.MapU64(1ULL << i));
    const int rank = Gf2Rank(rows);
    EXPECT_EQ(rank, 64) << "seed " << seed;
    // MapU64 agrees with Raw over the big-endian bytes.
    std::mt19937_64 rng(seed);
    for (int t = 0; t < 100; ++t) {
      const uint64_t v = rng();
      unsigned char be[8];
      for (int i = 0; i < 8; ++i) be[i] = static_cast<unsigned char>(v >> (56 - 8 * i));
      EXPECT_EQ(fp.MapU64(v), fp.Raw(be, 8));
    }
  }
}

TEST(RabinTest, ReducibleModulusIsNotOneToOne) {
  // With P = x^64 + x^2 + x = x (x^63 + x + 1), x shares a factor with P, so
  // multiplying by x^64 modulo P is not invertible: the map must lose rank.
  // This is the failure the irreducibility requirement rules out.
  RabinFingerprinter bad(0x6);
  std::vector<uint64_t> rows;
  for (int i = 0; i < 64; ++i) rows.push_back(bad.MapU64(1ULL << i));
  const int rank = Gf2Rank(rows);
  EXPECT_LT(rank, 64);
}

TEST(RabinTest, FingerprintSeesLeadingZeros) {
  RabinFingerprinter fp = RabinFingerprinter::FromSeed(5);
  const std::string a("a"), za("\0a", 2);
  EXPECT_EQ(fp.Raw(a.data(), 1), fp.Raw(za.data(), 2));
  EXPECT_NE(fp.Fingerprint(a), fp.Fingerprint(za));
  EXPECT_NE(fp.Fingerprint(""), fp.Fingerprint(std::string(1, '\0')));
}

TEST(RabinTest, NoCollisionsAmongManyDistinctMessages) {
  std::mt19937_64 rng(10);
  RabinFingerprinter fp = RabinFingerprinter::FromSeed(6);
  std::unordered_set<uint64_t> fps;
  const int kCount = 200000;
  for (int i = 0; i < kCount; ++i) {
    fps.insert(fp.Fingerprint("page-" + std::to_string(i) + "|" + RandomBytes(rng, i % 17)));
  }
  EXPECT_EQ(fps.size(), static_cast<size_t>(kCount));
}

// Every kernel this CPU runs (four table lanes; carry-less folds of 64
// bytes) gives the chain's function: every length from 0 to 300 bytes
// (below, at and past the cut of 64 bytes, every remainder), random states
// (all ones too), random polynomials, and long messages.
TEST(InterleavedRabinTest, EqualsTheChainOnEveryLengthWithEveryKernel) {
  const auto kernels = fingerprint_internal::RabinFoldKernels().Supported();
  ASSERT_FALSE(kernels.empty());
  std::mt19937_64 rng(11);
  for (uint64_t seed : {RabinFingerprinter::kDefaultSeed, uint64_t{7}, uint64_t{0xfeedface}}) {
    const RabinFingerprinter chain = RabinFingerprinter::FromSeed(seed);
    for (const auto* kernel : kernels) {
      const InterleavedRabinFingerprinter lanes = InterleavedRabinFingerprinter::FromSeed(seed, kernel->name);
      ASSERT_STREQ(lanes.kernel_name(), kernel->name);
      ASSERT_EQ(lanes.polynomial(), chain.polynomial());
      for (size_t n = 0; n <= 300; ++n) {
        const std::string data = RandomBytes(rng, n);
        const uint64_t state = n % 3 == 0 ? 0 : (n % 3 == 1 ? ~uint64_t{0} : rng());
        EXPECT_EQ(lanes.Extend(state, data.data(), n), chain.Extend(state, data.data(), n)) << kernel->name << " " << n;
        EXPECT_EQ(lanes.Fingerprint(data.data(), n), chain.Fingerprint(data)) << kernel->name << " " << n;
      }
      for (size_t n : {size_t{4096}, size_t{100003}}) {
        const std::string big = RandomBytes(rng, n);
        EXPECT_EQ(lanes.Fingerprint(big.data(), big.size()), chain.Fingerprint(big)) << kernel->name << " " << n;
      }
      const std::string ones(1000, '\xff');
      EXPECT_EQ(lanes.Extend(~uint64_t{0}, ones.data(), ones.size()), chain.Extend(~uint64_t{0}, ones.data(), ones.size())) << kernel->name;
    }
  }
}

}  // namespace
}  // namespace neardup
