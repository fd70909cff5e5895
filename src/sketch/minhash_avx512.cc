// Copyright neardup authors. Licensed under Apache-2.0.
//
// AVX-512 (F + DQ) kFast kernel; this file alone is compiled with
// -mavx512f -mavx512dq and runs only when the CPU supports both.
//
// The running minima of up to 16 groups of 8 functions stay in zmm
// registers; each shingle is broadcast and, per group, xor-ed with b,
// multiplied by a (vpmullq, the exact low 64 bits) and folded in with a
// signed minimum (vpminsq). Four shingles per iteration share the loads of
// a and b.
//
// The 32-bit functions: 16 lanes a zmm register, vpmulld and vpminud.
#include <immintrin.h>

#include <array>
#include <utility>

#include "sketch/minhash_kernels.h"

namespace neardup {
namespace sketch_internal {
namespace {

// vpminsq. The full-mask form avoids GCC 12's false -Wmaybe-uninitialized
// on _mm512_min_epi64 (its _mm512_undefined_epi32() pass-through operand).
inline __m512i MinS64(__m512i a, __m512i b) { return _mm512_mask_min_epi64(a, 0xff, a, b); }

template <int NV>
void UpdateChunk(const uint64_t* ys, size_t n, const uint64_t* mul, const uint64_t* xr,
                 int64_t* mins) {
  __m512i acc[NV];
  for (int v = 0; v < NV; ++v) acc[v] = _mm512_loadu_si512(mins + 8 * v);
  size_t s = 0;
  for (; s + 4 <= n; s += 4) {
    const __m512i y0 = _mm512_set1_epi64(static_cast<long long>(ys[s]));
    const __m512i y1 = _mm512_set1_epi64(static_cast<long long>(ys[s + 1]));
    const __m512i y2 = _mm512_set1_epi64(static_cast<long long>(ys[s + 2]));
    const __m512i y3 = _mm512_set1_epi64(static_cast<long long>(ys[s + 3]));
    for (int v = 0; v < NV; ++v) {
      const __m512i a = _mm512_loadu_si512(mul + 8 * v);
      const __m512i b = _mm512_loadu_si512(xr + 8 * v);
      const __m512i t0 = _mm512_mullo_epi64(_mm512_xor_si512(y0, b), a);
      const __m512i t1 = _mm512_mullo_epi64(_mm512_xor_si512(y1, b), a);
      const __m512i t2 = _mm512_mullo_epi64(_mm512_xor_si512(y2, b), a);
      const __m512i t3 = _mm512_mullo_epi64(_mm512_xor_si512(y3, b), a);
      acc[v] = MinS64(acc[v], MinS64(MinS64(t0, t1), MinS64(t2, t3)));
    }
  }
  for (; s < n; ++s) {
    const __m512i y = _mm512_set1_epi64(static_cast<long long>(ys[s]));
    for (int v = 0; v < NV; ++v) {
      const __m512i a = _mm512_loadu_si512(mul + 8 * v);
      const __m512i b = _mm512_loadu_si512(xr + 8 * v);
      acc[v] = MinS64(acc[v], _mm512_mullo_epi64(_mm512_xor_si512(y, b), a));
    }
  }
  for (int v = 0; v < NV; ++v) _mm512_storeu_si512(mins + 8 * v, acc[v]);
}

using ChunkFn = void (*)(const uint64_t*, size_t, const uint64_t*, const uint64_t*, int64_t*);

constexpr int kMaxVectors = 16;

template <int... I>
constexpr auto MakeChunkTable(std::integer_sequence<int, I...>) {
  return std::array<ChunkFn, sizeof...(I)>{&UpdateChunk<I + 1>...};
}
constexpr auto kChunks = MakeChunkTable(std::make_integer_sequence<int, kMaxVectors>());

template <int NV>
void UpdateChunk32(const uint64_t* ys, size_t n, const uint32_t* mul, const uint32_t* xr, uint32_t* mins) {
  __m512i acc[NV];
  for (int v = 0; v < NV; ++v) acc[v] = _mm512_loadu_si512(mins + 16 * v);
  auto image = [&](__m512i y, int v) {
    return _mm512_mullo_epi32(_mm512_xor_si512(y, _mm512_loadu_si512(xr + 16 * v)), _mm512_loadu_si512(mul + 16 * v));
  };
  // vpminud, full-mask form as MinS64 above.
  auto min_u32 = [](__m512i a, __m512i b) { return _mm512_mask_min_epu32(a, 0xffff, a, b); };
  size_t s = 0;
  for (; s + 2 <= n; s += 2) {
    const __m512i y0 = _mm512_set1_epi32(static_cast<int>(static_cast<uint32_t>(ys[s])));
    const __m512i y1 = _mm512_set1_epi32(static_cast<int>(static_cast<uint32_t>(ys[s + 1])));
    for (int v = 0; v < NV; ++v) acc[v] = min_u32(acc[v], min_u32(image(y0, v), image(y1, v)));
  }
  for (; s < n; ++s) {
    const __m512i y = _mm512_set1_epi32(static_cast<int>(static_cast<uint32_t>(ys[s])));
    for (int v = 0; v < NV; ++v) acc[v] = min_u32(acc[v], image(y, v));
  }
  for (int v = 0; v < NV; ++v) _mm512_storeu_si512(mins + 16 * v, acc[v]);
}

using Chunk32Fn = void (*)(const uint64_t*, size_t, const uint32_t*, const uint32_t*, uint32_t*);

template <int... I>
constexpr auto MakeChunk32Table(std::integer_sequence<int, I...>) {
  return std::array<Chunk32Fn, sizeof...(I)>{&UpdateChunk32<I + 1>...};
}
constexpr auto kChunks32 = MakeChunk32Table(std::make_integer_sequence<int, kMaxVectors>());

// Splits the m_padded / kLanes vectors into balanced chunks of at most
// chunks.size() (16) vectors, one pass over the shingles each.
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

void UpdateMins32Avx512(const uint64_t* ys, size_t n, const uint32_t* mul, const uint32_t* xr, size_t m_padded,
                        uint32_t* mins) {
  RunBalancedChunks<16>(kChunks32, ys, n, mul, xr, m_padded, mins);
}

void UpdateMinsAvx512(const uint64_t* ys, size_t n, const uint64_t* mul, const uint64_t* xr,
                      size_t m_padded, int64_t* mins) {
  RunBalancedChunks<8>(kChunks, ys, n, mul, xr, m_padded, mins);
}

}  // namespace sketch_internal
}  // namespace neardup
