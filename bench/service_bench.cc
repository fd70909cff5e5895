// Copyright neardup authors. Licensed under Apache-2.0.
//
// The service's candidate postings in memory (apps/service/posting_table.h):
// filing pages under 13 keys each (simhash's pieces at its default
// threshold), listing a page's candidates, and taking pages off, on tables
// of up to a million pages. One page in ten shares its keys with an earlier
// page (a near copy), the rest have keys of their own, as tier 2 sees a
// crawl with some duplication. Reports keys a second and the table's bytes
// a page. And decoding a body sent as base64.
//
//   build/bench/service_bench
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "service/posting_table.h"
#include "service/wire.h"

namespace {

constexpr int kKeysPerPage = 13;

// Page p's keys: those of an earlier page for one page in ten.
std::vector<uint64_t> KeysOf(uint64_t pages, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> keys(pages * kKeysPerPage);
  for (uint64_t p = 0; p < pages; ++p) {
    const bool copy = p > 0 && rng() % 10 == 0;
    const uint64_t of = copy ? rng() % p : p;
    for (int k = 0; k < kKeysPerPage; ++k) {
      keys[p * kKeysPerPage + k] = copy ? keys[of * kKeysPerPage + k] : (rng() & ~uint64_t{0xf}) | k;
    }
  }
  return keys;
}

void BM_PostingTableAdd(benchmark::State& state) {
  const uint64_t pages = static_cast<uint64_t>(state.range(0));
  const std::vector<uint64_t> keys = KeysOf(pages, 1);
  size_t bytes = 0;
  for (auto _ : state) {
    neardup::service::PostingTable table(1000, true);
    for (uint64_t p = 0; p < pages; ++p) {
      for (int k = 0; k < kKeysPerPage; ++k) table.Add(keys[p * kKeysPerPage + k], p);
    }
    bytes = table.memory_bytes();
    benchmark::DoNotOptimize(bytes);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * pages * kKeysPerPage));
  state.counters["bytes_per_page"] = static_cast<double>(bytes) / static_cast<double>(pages);
}
BENCHMARK(BM_PostingTableAdd)->Arg(1 << 16)->Arg(1 << 20)->Unit(benchmark::kMillisecond);

void BM_PostingTableAppend(benchmark::State& state) {
  const uint64_t pages = static_cast<uint64_t>(state.range(0));
  const std::vector<uint64_t> keys = KeysOf(pages, 2);
  neardup::service::PostingTable table(1000, true);
  for (uint64_t p = 0; p < pages; ++p) {
    for (int k = 0; k < kKeysPerPage; ++k) table.Add(keys[p * kKeysPerPage + k], p);
  }
  // Queries: the keys of stored pages, in a random order of pages.
  std::mt19937_64 rng(3);
  std::vector<uint64_t> ids;
  uint64_t listed = 0;
  for (auto _ : state) {
    const uint64_t p = rng() % pages;
    ids.clear();
    for (int k = 0; k < kKeysPerPage; ++k) table.Append(keys[p * kKeysPerPage + k], &ids);
    listed += ids.size();
  }
  benchmark::DoNotOptimize(listed);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kKeysPerPage));
}
BENCHMARK(BM_PostingTableAppend)->Arg(1 << 16)->Arg(1 << 20);

void BM_PostingTableRemove(benchmark::State& state) {
  const uint64_t pages = static_cast<uint64_t>(state.range(0));
  const std::vector<uint64_t> keys = KeysOf(pages, 4);
  for (auto _ : state) {
    state.PauseTiming();
    neardup::service::PostingTable table(1000, true);
    for (uint64_t p = 0; p < pages; ++p) {
      for (int k = 0; k < kKeysPerPage; ++k) table.Add(keys[p * kKeysPerPage + k], p);
    }
    state.ResumeTiming();
    for (uint64_t p = 0; p < pages; ++p) {
      for (int k = 0; k < kKeysPerPage; ++k) table.Remove(keys[p * kKeysPerPage + k], p);
    }
    benchmark::DoNotOptimize(table.keys());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * pages * kKeysPerPage));
}
BENCHMARK(BM_PostingTableRemove)->Arg(1 << 16)->Unit(benchmark::kMillisecond);

// Decoding a page body sent as html_b64 (bytes that are not UTF-8), as the
// request's lines are parsed: bytes of the decoded body a second.
void BM_Base64Decode(benchmark::State& state) {
  std::mt19937_64 rng(3);
  std::string body(static_cast<size_t>(state.range(0)), '\0');
  for (char& c : body) c = static_cast<char>(rng());
  const std::string encoded = neardup::Base64Encode(body);
  std::string out;
  for (auto _ : state) {
    if (!neardup::Base64Decode(encoded, &out)) state.SkipWithError("not valid base64");
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_Base64Decode)->Arg(64 << 10);

}  // namespace

BENCHMARK_MAIN();
