#include "index/megashingle_tables.h"

#include <algorithm>

#include "neardup/status.h"
#include "sketch/broder.h"

namespace neardup {
namespace {

struct MegaKey {  // 12 bytes, 4-byte aligned
  uint32_t hi, lo, page;
};

// Agreeing positions of two supershingle vectors: count, first and second.
struct Agreement {
  uint32_t count = 0;
  int first = -1, second = -1;
};

Agreement Agree(const uint64_t* a, const uint64_t* b, uint32_t m) {
  Agreement g;
  for (uint32_t t = 0; t < m; ++t) {
    if (a[t] != b[t]) continue;
    if (g.first < 0) {
      g.first = static_cast<int>(t);
    } else if (g.second < 0) {
      g.second = static_cast<int>(t);
    }
    ++g.count;
  }
  return g;
}

}  // namespace

BroderStageResult RunBroderStage(const std::vector<uint64_t>& supershingles,
                                 const std::vector<uint8_t>& is_candidate,
                                 const BroderStageOptions& options, UnionFind* uf) {
  const uint32_t m = options.num_supershingles;
  const uint32_t n = static_cast<uint32_t>(is_candidate.size());
  NEARDUP_CHECK(m >= 2 && m <= 16);
  NEARDUP_CHECK(supershingles.size() == static_cast<size_t>(n) * m);
  BroderStageResult result;
  std::vector<uint8_t> has_pair(n, 0);
  std::vector<MegaKey> keys;
  for (uint32_t p = 0; p < n; ++p) result.candidates += is_candidate[p] != 0;
  keys.reserve(result.candidates);
  auto sig = [&](uint32_t p) { return supershingles.data() + static_cast<size_t>(p) * m; };

  // The tables: (i, j) for every i < j, or one table of all m' for
  // virtually identical pages.
  std::vector<std::pair<int, int>> tables;
  if (options.virtually_identical) {
    tables.emplace_back(-1, -1);
  } else {
    for (uint32_t i = 0; i < m; ++i)
      for (uint32_t j = i + 1; j < m; ++j) tables.emplace_back(i, j);
  }

  for (const auto& [ti, tj] : tables) {
    keys.clear();
    for (uint32_t p = 0; p < n; ++p) {
      if (!is_candidate[p]) continue;
      const uint64_t* s = sig(p);
      uint64_t key;
      if (ti < 0) {
        key = s[0];
        for (uint32_t t = 1; t < m; ++t) key = Megashingle(key, s[t]);
      } else {
        key = Megashingle(s[ti], s[tj]);
      }
      keys.push_back(MegaKey{static_cast<uint32_t>(key >> 32), static_cast<uint32_t>(key), p});
    }
    std::sort(keys.begin(), keys.end(), [](const MegaKey& a, const MegaKey& b) {
      if (a.hi != b.hi) return a.hi < b.hi;
      if (a.lo != b.lo) return a.lo < b.lo;
      return a.page < b.page;
    });
    size_t r = 0;
    while (r < keys.size()) {
      size_t e = r + 1;
      while (e < keys.size() && keys[e].hi == keys[r].hi && keys[e].lo == keys[r].lo) ++e;
      const size_t bucket = e - r;
      if (bucket >= 2 && bucket <= options.max_bucket_pages) {
        for (size_t x = r; x < e; ++x) {
          for (size_t y = x + 1; y < e; ++y) {
            const uint32_t a = keys[x].page, b = keys[y].page;
            const Agreement g = Agree(sig(a), sig(b), m);
            const bool match = ti < 0 ? g.count == m : (g.first == ti && g.second == tj);
            if (!match) {
              // Either reported by an earlier table, or a fingerprint
              // collision (fewer than 2 agree / not all agree).
              if (ti < 0 ? g.count != m : g.count < 2) ++result.megashingle_collisions;
              continue;
            }
            if (options.accept && !options.accept(a, b)) continue;
            ++result.pairs;
            ++result.pairs_by_b_similarity[g.count];
            has_pair[a] = has_pair[b] = 1;
            uf->Union(a, b);
            if (options.collect_pairs) result.pairs_found.push_back(NearPair{a, b, g.count, 0});
          }
        }
      } else if (bucket > options.max_bucket_pages) {
        // Too many pages to list every pair: join them as a chain of verified
        // neighbours and count the pairs instead.
        ++result.large_buckets;
        result.pairs_not_listed += static_cast<uint64_t>(bucket) * (bucket - 1) / 2;
        for (size_t x = r + 1; x < e; ++x) {
          const uint32_t a = keys[r].page, b = keys[x].page;
          const Agreement g = Agree(sig(a), sig(b), m);
          const bool ok = ti < 0 ? g.count == m : (sig(a)[ti] == sig(b)[ti] && sig(a)[tj] == sig(b)[tj]);
          if (!ok || (options.accept && !options.accept(a, b))) continue;
          has_pair[a] = has_pair[b] = 1;
          uf->Union(a, b);
        }
      }
      r = e;
    }
  }
  for (uint32_t p = 0; p < n; ++p) result.pages_with_near_duplicate += has_pair[p];
  if (options.collect_pairs) {
    std::sort(result.pairs_found.begin(), result.pairs_found.end(),
              [](const NearPair& x, const NearPair& y) { return x.a != y.a ? x.a < y.a : x.b < y.b; });
  }
  return result;
}

}  // namespace neardup
