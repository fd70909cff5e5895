// Micro-benchmarks of Rabin fingerprinting (src/fingerprint).
#include <benchmark/benchmark.h>

#include <random>
#include <string>

#include "fingerprint/rabin.h"

namespace neardup {
namespace {

void BM_RabinFingerprint(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  std::string data(n, '\0');
  std::mt19937_64 rng(1);
  for (auto& c : data) c = static_cast<char>(rng());
  RabinFingerprinter fp = RabinFingerprinter::FromSeed(RabinFingerprinter::kDefaultSeed);
  for (auto _ : state) benchmark::DoNotOptimize(fp.Fingerprint(data));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n));
}
BENCHMARK(BM_RabinFingerprint)->Arg(64)->Arg(4096)->Arg(1 << 20);

// The same function folded in parts (the token-sequence key of every
// page): the active kernel (carry-less products on CPUs of the AVX2 level),
// and the portable one (four lanes of table lookups).
void InterleavedRabin(benchmark::State& state, const char* kernel) {
  const size_t n = static_cast<size_t>(state.range(0));
  std::string data(n, '\0');
  std::mt19937_64 rng(1);
  for (auto& c : data) c = static_cast<char>(rng());
  const InterleavedRabinFingerprinter fp =
      InterleavedRabinFingerprinter::FromSeed(RabinFingerprinter::kDefaultSeed, kernel);
  for (auto _ : state) benchmark::DoNotOptimize(fp.Fingerprint(data.data(), data.size()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n));
  state.SetLabel(fp.kernel_name());
}
void BM_InterleavedRabinFingerprint(benchmark::State& state) { InterleavedRabin(state, ""); }
BENCHMARK(BM_InterleavedRabinFingerprint)->Arg(64)->Arg(4096)->Arg(1 << 20);
void BM_InterleavedRabinFingerprintPortable(benchmark::State& state) { InterleavedRabin(state, "portable"); }
BENCHMARK(BM_InterleavedRabinFingerprintPortable)->Arg(64)->Arg(4096)->Arg(1 << 20);

void BM_RabinMapU64(benchmark::State& state) {
  RabinFingerprinter fp = RabinFingerprinter::FromSeed(7);
  uint64_t v = 12345;
  for (auto _ : state) {
    v = fp.MapU64(v);
    benchmark::DoNotOptimize(v);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RabinMapU64);

void BM_DrawIrreduciblePolynomial(benchmark::State& state) {
  uint64_t seed = 0;
  for (auto _ : state) benchmark::DoNotOptimize(DrawIrreduciblePolynomial(seed++));
}
BENCHMARK(BM_DrawIrreduciblePolynomial);

}  // namespace
}  // namespace neardup

BENCHMARK_MAIN();
