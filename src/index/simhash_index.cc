// Copyright neardup authors. Licensed under Apache-2.0.
#include "index/simhash_index.h"

#include <algorithm>
#include <string>
#include <utility>

#include "sketch/simhash.h"

namespace neardup {

namespace {

// Manku et al.'s tables key on 3 of B = d + 3 blocks.
constexpr uint32_t kKeyBlocks64 = 3;
constexpr uint32_t kMaxDiffering64 = 3;

// Bits [start, start + len) of a sketch, bit i being bit i % 64 of word
// i / 64. REQUIRES: 1 <= len <= 64, start + len <= bits.
inline uint64_t GetBits(const uint64_t* s, uint32_t start, uint32_t len) {
  const uint32_t w = start / 64, off = start % 64;
  uint64_t v = s[w] >> off;
  if (off + len > 64) v |= s[w + 1] << (64 - off);
  return len == 64 ? v : v & ((uint64_t{1} << len) - 1);
}

inline uint64_t Key(const std::vector<SimhashTableLayout::Range>& table, const uint64_t* s) {
  uint64_t key = 0;
  for (const auto& r : table) key = (r.len == 64 ? 0 : key << r.len) | GetBits(s, r.start, r.len);
  return key;
}

// `count` consecutive blocks covering [0, bits), the first bits % count one
// bit longer.
std::vector<SimhashTableLayout::Range> Blocks(uint32_t bits, uint32_t count) {
  std::vector<SimhashTableLayout::Range> blocks;
  uint32_t start = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t len = bits / count + (i < bits % count ? 1 : 0);
    blocks.push_back({start, len});
    start += len;
  }
  return blocks;
}

}  // namespace

Status SimhashIndexOptions::Validate() const {
  if (bits < 64 || bits > 512 || bits % 64 != 0) {
    return Status::InvalidArgument(
        "simhash index: bits (b) must be a multiple of 64 from 64 to 512, got " +
        std::to_string(bits));
  }
  if (min_agreeing > bits) {
    return Status::InvalidArgument("simhash index: min_agreeing (t) must be at most bits = " +
                                   std::to_string(bits) + ", got " +
                                   std::to_string(min_agreeing));
  }
  if (max_bucket_pages < 2) {
    return Status::InvalidArgument("simhash index: max_bucket_pages must be at least 2");
  }
  return Status::OK();
}

SimhashTableLayout SimhashLayout(const SimhashIndexOptions& options) {
  NEARDUP_CHECK(options.Validate().ok());
  SimhashTableLayout layout;
  const uint32_t d = options.bits - options.min_agreeing;
  if (options.bits >= 128) {
    uint32_t pieces = std::max(d + 1, options.bits / 64);
    if (pieces > kMaxSimhashPieces) {
      pieces = kMaxSimhashPieces;
      layout.complete = false;
    }
    for (const auto& r : Blocks(options.bits, pieces)) layout.tables.push_back({r});
    return layout;
  }
  // b = 64: every choice of 3 of d + 3 blocks, in lexicographic order.
  const uint32_t dd = std::min(d, kMaxDiffering64);
  layout.complete = d <= kMaxDiffering64;
  const auto blocks = Blocks(64, dd + kKeyBlocks64);
  const uint32_t nb = static_cast<uint32_t>(blocks.size());
  for (uint32_t i = 0; i < nb; ++i) {
    for (uint32_t j = i + 1; j < nb; ++j) {
      for (uint32_t k = j + 1; k < nb; ++k) {
        layout.tables.push_back({blocks[i], blocks[j], blocks[k]});
      }
    }
  }
  return layout;
}

SimhashIndexResult FindSimhashPairs(const std::vector<uint64_t>& sketches,
                                    const std::vector<uint8_t>& is_candidate,
                                    const SimhashIndexOptions& options) {
  NEARDUP_CHECK(options.Validate().ok());
  const uint32_t words = options.bits / 64;
  NEARDUP_CHECK(sketches.size() % words == 0);
  const size_t n = sketches.size() / words;
  NEARDUP_CHECK(n < (uint64_t{1} << 32));
  NEARDUP_CHECK(is_candidate.empty() || is_candidate.size() == n);
  const SimhashTableLayout layout = SimhashLayout(options);
  const size_t num_tables = layout.tables.size();

  SimhashIndexResult result;
  result.complete = layout.complete;
  auto sketch = [&](uint32_t i) { return sketches.data() + size_t{i} * words; };

  // large[q][i]: page i's bucket in table q was skipped (empty when table q
  // had no large bucket).
  std::vector<std::vector<uint8_t>> large(num_tables);
  // Whether a and b were already compared at an earlier table: they share
  // an enumerated bucket there (same key; a bucket is skipped for both or
  // neither).
  auto compared_before = [&](uint32_t a, uint32_t b, size_t p) {
    for (size_t q = 0; q < p; ++q) {
      if (Key(layout.tables[q], sketch(a)) == Key(layout.tables[q], sketch(b)) &&
          (large[q].empty() || !large[q][a])) {
        return true;
      }
    }
    return false;
  };

  std::vector<std::pair<uint64_t, uint32_t>> entries;  // (key, page)
  for (size_t p = 0; p < num_tables; ++p) {
    entries.clear();
    for (size_t i = 0; i < n; ++i) {
      if (!is_candidate.empty() && !is_candidate[i]) continue;
      const auto page = static_cast<uint32_t>(i);
      entries.emplace_back(Key(layout.tables[p], sketch(page)), page);
    }
    std::sort(entries.begin(), entries.end());
    for (size_t g0 = 0, g1; g0 < entries.size(); g0 = g1) {
      g1 = g0 + 1;
      while (g1 < entries.size() && entries[g1].first == entries[g0].first) ++g1;
      const size_t size = g1 - g0;
      if (size < 2) continue;
      if (size > options.max_bucket_pages) {
        ++result.large_buckets;
        if (large[p].empty()) large[p].assign(n, 0);
        for (size_t x = g0; x < g1; ++x) large[p][entries[x].second] = 1;
        continue;
      }
      // Pages within a bucket are in increasing order, so a < b.
      for (size_t x = g0; x < g1; ++x) {
        const uint32_t a = entries[x].second;
        for (size_t y = x + 1; y < g1; ++y) {
          const uint32_t b = entries[y].second;
          if (p > 0 && compared_before(a, b, p)) continue;
          ++result.candidates_compared;
          const int c = CSimilarity(sketch(a), sketch(b), options.bits);
          if (c >= static_cast<int>(options.min_agreeing)) {
            result.pairs.push_back({a, b, static_cast<uint32_t>(c)});
          }
        }
      }
    }
  }
  if (result.large_buckets > 0) result.complete = false;
  std::sort(result.pairs.begin(), result.pairs.end(),
            [](const SimhashPair& x, const SimhashPair& y) {
              return x.a != y.a ? x.a < y.a : x.b < y.b;
            });
  return result;
}

}  // namespace neardup
