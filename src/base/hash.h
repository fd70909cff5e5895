// Copyright neardup authors. Licensed under Apache-2.0.
//
// The small 64-bit mixing functions shared by every module: SplitMix64 (as a
// stream and as a hash of one value), its output function, MurmurHash3's
// finalizer and its inverse, and FNV-1a. Header-only and constexpr-friendly.
//
// Every value these produce may be part of a persisted signature (Broder and
// simhash sketch names, overlap seeds, synthetic crawls): the constants and
// shifts below must never change. Thread-safe (pure functions).
#ifndef NEARDUP_BASE_HASH_H_
#define NEARDUP_BASE_HASH_H_

#include <cstdint>
#include <string_view>

namespace neardup {

// The golden-ratio increment of SplitMix64's state (Steele, Lea and Flood,
// "Fast Splittable Pseudorandom Number Generators").
inline constexpr uint64_t kSplitMix64Gamma = 0x9e3779b97f4a7c15ULL;
// Stafford's Mix13 multipliers, SplitMix64's output function.
inline constexpr uint64_t kMix13Mul1 = 0xbf58476d1ce4e5b9ULL;
inline constexpr uint64_t kMix13Mul2 = 0x94d049bb133111ebULL;

// SplitMix64's output function (Stafford's Mix13): a bijection on 64-bit
// values with full avalanche. No increment is added.
constexpr uint64_t Mix13(uint64_t z) {
  z = (z ^ (z >> 30)) * kMix13Mul1;
  z = (z ^ (z >> 27)) * kMix13Mul2;
  return z ^ (z >> 31);
}

// Stream form: advances *state by the gamma and returns the next output.
// A state seeded with s yields SplitMix64(s), SplitMix64(s + gamma), ...
constexpr uint64_t SplitMix64Next(uint64_t* state) {
  *state += kSplitMix64Gamma;
  return Mix13(*state);
}

// Value form: the one output of a stream seeded with x, i.e. a hash of x.
// Equal to SplitMix64Next(&s) with s == x.
constexpr uint64_t SplitMix64(uint64_t x) { return Mix13(x + kSplitMix64Gamma); }

// MurmurHash3's 64-bit finalizer (Appleby). A bijection: the xor-shifts by
// 33 >= 32 are involutions and the multipliers are odd.
inline constexpr uint64_t kFmixMul1 = 0xff51afd7ed558ccdULL;
inline constexpr uint64_t kFmixMul2 = 0xc4ceb9fe1a85ec53ULL;

// a^-1 mod 2^64. REQUIRES: a is odd. (Newton: each step doubles the correct
// low bits, starting from 3 since a * a = 1 mod 8.)
constexpr uint64_t InverseMod64(uint64_t a) {
  uint64_t x = a;
  for (int i = 0; i < 5; ++i) x *= 2 - a * x;
  return x;
}

constexpr uint64_t Fmix64(uint64_t x) {
  x ^= x >> 33;
  x *= kFmixMul1;
  x ^= x >> 33;
  x *= kFmixMul2;
  x ^= x >> 33;
  return x;
}

// Fmix64Inverse(Fmix64(x)) == x for every x.
constexpr uint64_t Fmix64Inverse(uint64_t x) {
  constexpr uint64_t kInv1 = InverseMod64(kFmixMul1);
  constexpr uint64_t kInv2 = InverseMod64(kFmixMul2);
  x ^= x >> 33;
  x *= kInv2;
  x ^= x >> 33;
  x *= kInv1;
  x ^= x >> 33;
  return x;
}

// 64-bit FNV-1a (Fowler, Noll and Vo) of `bytes`, starting from `basis`
// (the standard offset basis unless a caller keeps its own for old outputs).
inline constexpr uint64_t kFnv64OffsetBasis = 14695981039346656037ULL;
inline constexpr uint64_t kFnv64Prime = 1099511628211ULL;
constexpr uint64_t Fnv1a64(std::string_view bytes, uint64_t basis = kFnv64OffsetBasis) {
  uint64_t h = basis;
  for (unsigned char c : bytes) h = (h ^ c) * kFnv64Prime;
  return h;
}

}  // namespace neardup

#endif  // NEARDUP_BASE_HASH_H_
