// Copyright neardup authors. Licensed under Apache-2.0.
//
// All-pairs overlap (src/overlap; Shivakumar and Garcia-Molina, "Finding
// near-replicas of documents on the web"): the sort-based approach (§2.1)
// against probabilistic coarse counting (§2.2) on one synthetic
// FPrint-DocID file, with a budget that holds everything and one that
// forces spilled sort runs and several candidate passes.
//
// Synthetic records: documents in families of near-copies (each copy keeps
// a family fingerprint with probability 0.8, so copies share ~20-30 of
// them), ~20 rare fingerprints of their own, and ~3 common fingerprints
// drawn from a small pool (each held by ~1% of the documents: the cross
// product the paper warns about). T = 15 as the paper's four-line chunks.
//
//   build/overlap_bench --benchmark_filter=Overlap
#include <benchmark/benchmark.h>

#include <filesystem>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

#include "neardup/env.h"
#include "overlap/overlap.h"

namespace {

namespace fs = std::filesystem;

struct Workload {
  std::string dir;
  std::string path;
  uint64_t records = 0;
};

// One records file per document count, written once per process.
const Workload& GetWorkload(uint32_t docs) {
  static std::vector<std::pair<uint32_t, Workload>> cache;
  for (const auto& [n, w] : cache) {
    if (n == docs) return w;
  }
  Workload w;
  w.dir = (fs::temp_directory_path() /
           ("neardup-overlap-bench-" + std::to_string(::getpid()) + "-" + std::to_string(docs)))
              .string();
  fs::create_directories(w.dir);
  w.path = w.dir + "/records.bin";
  std::mt19937_64 rng(docs);
  std::vector<neardup::FprintDocId> records;
  const uint32_t family_size = 4;
  std::vector<uint32_t> family(35);
  const uint32_t common_pool = 300;
  for (uint32_t d = 0; d < docs; ++d) {
    if (d % family_size == 0) {
      for (uint32_t& f : family) f = static_cast<uint32_t>(rng());
    }
    for (uint32_t f : family) {
      if (rng() % 10 < 8) records.push_back({f, d});
    }
    for (int i = 0; i < 20; ++i) records.push_back({static_cast<uint32_t>(rng()), d});
    for (int i = 0; i < 3; ++i) {
      records.push_back({static_cast<uint32_t>(rng() % common_pool), d});
    }
  }
  std::shuffle(records.begin(), records.end(), rng);
  if (!neardup::WriteFprintDocIdFile(neardup::Env::Default(), w.path, records).ok()) {
    std::fprintf(stderr, "overlap_bench: cannot write %s\n", w.path.c_str());
    std::exit(1);
  }
  w.records = records.size();
  cache.emplace_back(docs, w);
  return cache.back().second;
}

struct Cleanup {
  ~Cleanup() {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(fs::temp_directory_path(), ec)) {
      const std::string name = e.path().filename().string();
      if (name.rfind("neardup-overlap-bench-" + std::to_string(::getpid()) + "-", 0) == 0) {
        fs::remove_all(e.path(), ec);
      }
    }
  }
} cleanup;

template <bool kCoarse>
void BM_Overlap(benchmark::State& state) {
  const Workload& w = GetWorkload(static_cast<uint32_t>(state.range(0)));
  neardup::OverlapOptions options;
  options.threshold = 15;
  options.memory_bytes = static_cast<uint64_t>(state.range(1)) << 20;
  options.temp_dir = w.dir + "/spill";
  neardup::OverlapStats stats;
  uint64_t results = 0;
  for (auto _ : state) {
    auto sink = [&](const neardup::OverlapPair&) {
      ++results;
      return neardup::Status::OK();
    };
    neardup::Result<neardup::OverlapStats> r =
        kCoarse ? neardup::CoarseCountingOverlap(neardup::Env::Default(), w.path, options, sink)
                : neardup::SortBasedOverlap(neardup::Env::Default(), w.path, options, sink);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      return;
    }
    stats = *r;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * w.records));
  state.counters["records"] = static_cast<double>(stats.records);
  state.counters["pairs_generated"] = static_cast<double>(stats.pairs_generated);
  state.counters["result_pairs"] = static_cast<double>(stats.result_pairs);
  state.counters["spill_runs"] = static_cast<double>(stats.spill_runs);
  state.counters["spill_MB"] = static_cast<double>(stats.spill_bytes) / 1e6;
  state.counters["peak_MB"] = static_cast<double>(stats.peak_buffer_bytes) / 1e6;
  state.counters["sort_s"] = stats.sort_seconds;
  state.counters["overlap_s"] = stats.overlap_seconds;
  if (kCoarse) {
    state.counters["candidates"] = static_cast<double>(stats.candidate_pairs);
    state.counters["false_cand"] = static_cast<double>(stats.false_candidates);
    state.counters["passes"] = static_cast<double>(stats.passes);
  }
}

// Args: documents, memory budget in MiB.
void Args(benchmark::internal::Benchmark* b) {
  b->Args({20000, 256})->Args({20000, 2})->Args({50000, 256})->Args({50000, 8});
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK(BM_Overlap<false>)->Name("Overlap/SortBased")->Apply(Args);
BENCHMARK(BM_Overlap<true>)->Name("Overlap/CoarseCounting")->Apply(Args);

}  // namespace

BENCHMARK_MAIN();
