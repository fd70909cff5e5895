// Copyright neardup authors. Licensed under Apache-2.0.
//
// AVX2 kFast kernel; this file alone is compiled with -mavx2 and runs only
// when the CPU supports it.
//
// AVX2 has neither a 64-bit low multiply nor a 64-bit minimum. The product
// is assembled from three 32 x 32 -> 64 multiplies (vpmuludq):
//     x * a mod 2^64 = lo(x) lo(a) + ((hi(x) lo(a) + lo(x) hi(a)) << 32),
// and because the kFast order is signed, the minimum is one signed compare
// (vpcmpgtq) and a blend. Up to 6 groups of 4 functions per pass over the
// shingles, two shingles per iteration.
//
// The 32-bit functions take one multiply (vpmulld) and an unsigned minimum
// (vpminud) for 8 lanes: up to 12 groups of 8 per pass, so that 84 or 96
// functions take one pass, two shingles per iteration.
#include <immintrin.h>

#include <array>
#include <utility>

#include "sketch/minhash_kernels.h"

namespace neardup {
namespace sketch_internal {
namespace {

inline __m256i MulLo64(__m256i x, __m256i a, __m256i a_hi) {
  const __m256i x_hi = _mm256_srli_epi64(x, 32);
  const __m256i lo = _mm256_mul_epu32(x, a);
  const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(x_hi, a), _mm256_mul_epu32(x, a_hi));
  return _mm256_add_epi64(lo, _mm256_slli_epi64(cross, 32));
}

inline __m256i MinS64(__m256i a, __m256i b) {
  return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b));
}

template <int NV>
void UpdateChunk(const uint64_t* ys, size_t n, const uint64_t* mul, const uint64_t* xr,
                 int64_t* mins) {
  __m256i acc[NV];
  for (int v = 0; v < NV; ++v) {
    acc[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(mins + 4 * v));
  }
  size_t s = 0;
  for (; s + 2 <= n; s += 2) {
    const __m256i y0 = _mm256_set1_epi64x(static_cast<long long>(ys[s]));
    const __m256i y1 = _mm256_set1_epi64x(static_cast<long long>(ys[s + 1]));
    for (int v = 0; v < NV; ++v) {
      const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(mul + 4 * v));
      const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xr + 4 * v));
      const __m256i a_hi = _mm256_srli_epi64(a, 32);
      const __m256i t0 = MulLo64(_mm256_xor_si256(y0, b), a, a_hi);
      const __m256i t1 = MulLo64(_mm256_xor_si256(y1, b), a, a_hi);
      acc[v] = MinS64(acc[v], MinS64(t0, t1));
    }
  }
  for (; s < n; ++s) {
    const __m256i y = _mm256_set1_epi64x(static_cast<long long>(ys[s]));
    for (int v = 0; v < NV; ++v) {
      const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(mul + 4 * v));
      const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xr + 4 * v));
      acc[v] = MinS64(acc[v], MulLo64(_mm256_xor_si256(y, b), a, _mm256_srli_epi64(a, 32)));
    }
  }
  for (int v = 0; v < NV; ++v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(mins + 4 * v), acc[v]);
  }
}

using ChunkFn = void (*)(const uint64_t*, size_t, const uint64_t*, const uint64_t*, int64_t*);

constexpr int kMaxVectors = 6;

template <int... I>
constexpr auto MakeChunkTable(std::integer_sequence<int, I...>) {
  return std::array<ChunkFn, sizeof...(I)>{&UpdateChunk<I + 1>...};
}
constexpr auto kChunks = MakeChunkTable(std::make_integer_sequence<int, kMaxVectors>());

template <int NV>
void UpdateChunk32(const uint64_t* ys, size_t n, const uint32_t* mul, const uint32_t* xr, uint32_t* mins) {
  __m256i acc[NV];
  for (int v = 0; v < NV; ++v) {
    acc[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(mins + 8 * v));
  }
  auto image = [&](__m256i y, int v) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(mul + 8 * v));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xr + 8 * v));
    return _mm256_mullo_epi32(_mm256_xor_si256(y, b), a);
  };
  size_t s = 0;
  for (; s + 2 <= n; s += 2) {
    // _mm256_set1_epi32 of the low 32 bits (the cast truncates).
    const __m256i y0 = _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(ys[s])));
    const __m256i y1 = _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(ys[s + 1])));
    for (int v = 0; v < NV; ++v) acc[v] = _mm256_min_epu32(acc[v], _mm256_min_epu32(image(y0, v), image(y1, v)));
  }
  for (; s < n; ++s) {
    const __m256i y = _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(ys[s])));
    for (int v = 0; v < NV; ++v) acc[v] = _mm256_min_epu32(acc[v], image(y, v));
  }
  for (int v = 0; v < NV; ++v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(mins + 8 * v), acc[v]);
  }
}

using Chunk32Fn = void (*)(const uint64_t*, size_t, const uint32_t*, const uint32_t*, uint32_t*);

constexpr int kMaxVectors32 = 12;

template <int... I>
constexpr auto MakeChunk32Table(std::integer_sequence<int, I...>) {
  return std::array<Chunk32Fn, sizeof...(I)>{&UpdateChunk32<I + 1>...};
}
constexpr auto kChunks32 = MakeChunk32Table(std::make_integer_sequence<int, kMaxVectors32>());

// Splits the m_padded / kLanes vectors into balanced chunks of at most
// chunks.size() vectors, one pass over the shingles each.
template <size_t kLanes, typename Table, typename Word, typename Min>
void RunBalancedChunks(const Table& chunks, const uint64_t* ys, size_t n, const Word* mul, const Word* xr,
                       size_t m_padded, Min* mins) {
  const size_t vectors = m_padded / kLanes;
  const size_t count = (vectors + chunks.size() - 1) / chunks.size();
  size_t done = 0;
  for (size_t c = 0; c < count; ++c) {
    const size_t nv = (vectors - done) / (count - c);
    chunks[nv - 1](ys, n, mul + kLanes * done, xr + kLanes * done, mins + kLanes * done);
    done += nv;
  }
}

}  // namespace

void UpdateMins32Avx2(const uint64_t* ys, size_t n, const uint32_t* mul, const uint32_t* xr, size_t m_padded,
                      uint32_t* mins) {
  RunBalancedChunks<8>(kChunks32, ys, n, mul, xr, m_padded, mins);
}

void UpdateMinsAvx2(const uint64_t* ys, size_t n, const uint64_t* mul, const uint64_t* xr,
                    size_t m_padded, int64_t* mins) {
  RunBalancedChunks<4>(kChunks, ys, n, mul, xr, m_padded, mins);
}

}  // namespace sketch_internal
}  // namespace neardup
