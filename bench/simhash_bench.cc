// Copyright neardup authors. Licensed under Apache-2.0.
//
// Simhash (Charikar; Henzinger's Algorithm C, b = 384) throughput
// (src/sketch) under each counting kernel the CPU supports, and the
// candidate index (src/index) on 1M random sketches.
//
// Sketch input: term hashes of real pages (20 from each of ten sources of
// the shared real-data folder, `shared/data` beside the repository or
// $NEARDUP_SHARED_DATA) tokenized once up front; synthetic text when the
// folder is absent. Throughput is reported as MB/s of *extracted text*: the
// sum of term lengths plus one separator per term (the tokenizer's output,
// not the HTML), and as terms per second.
//
// Index input: 1M sketches, 1% of them near copies (1 .. 12 flipped bits)
// of another, the rest uniformly random; t = 372 (13 pieces) and t = 373
// (Henzinger's 12 x 32 bits).
//
//   build/simhash_bench --benchmark_filter=Simhash
#include <benchmark/benchmark.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench_util.h"
#include "index/simhash_index.h"
#include "sketch/simhash.h"
#include "text/tokenizer.h"

namespace {

struct Corpus {
  std::vector<std::vector<uint64_t>> docs;  // term hashes per document
  uint64_t text_bytes = 0;                  // sum of term lengths + 1 per term
  uint64_t terms = 0;
  bool synthetic = false;
};

const Corpus& GetCorpus() {
  static const Corpus* corpus = [] {
    auto* c = new Corpus();
    neardup::Tokenizer tokenizer;
    neardup::TokenizedDocument doc;
    auto add = [&] {
      c->docs.push_back(doc.term_hashes);
      c->text_bytes += doc.term_bytes.size() + doc.num_terms();
      c->terms += doc.num_terms();
    };
    for (const std::string& page : neardup::bench::LoadBenchPages()) {
      tokenizer.Tokenize(page, neardup::ContentKind::kHtml, "", "http://www.example.com/a/b.html",
                         &doc);
      if (doc.num_terms() > 0) add();
    }
    if (c->docs.empty()) {
      std::fprintf(stderr, "simhash_bench: shared real-data folder not found; synthetic text\n");
      std::mt19937_64 rng(1);
      const char* vocab[] = {"the", "quick", "brown", "fox",  "jumps",       "over", "lazy",
                             "dog", "near",  "web",   "page", "fingerprint", "of",   "2006"};
      for (int d = 0; d < 200; ++d) {
        std::string text;
        const int words = 200 + static_cast<int>(rng() % 2000);
        for (int w = 0; w < words; ++w) text += std::string(vocab[rng() % 14]) + " ";
        tokenizer.Tokenize(text, neardup::ContentKind::kText, "", "", &doc);
        add();
      }
      c->synthetic = true;
    }
    return c;
  }();
  return *corpus;
}

void BM_SimhashSketch(benchmark::State& state, const char* kernel) {
  neardup::SimhashOptions o;
  o.bits = static_cast<uint32_t>(state.range(0));
  o.kernel = kernel;
  if (!o.Validate().ok()) {
    state.SkipWithError("kernel not supported by this CPU");
    return;
  }
  const Corpus& c = GetCorpus();
  neardup::SimhashSketcher sk(o);
  neardup::SimhashScratch scratch;
  uint64_t out[8];
  for (auto _ : state) {
    for (const auto& d : c.docs) {
      sk.Sketch(d, &scratch, out);
      benchmark::DoNotOptimize(out);
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * c.text_bytes));
  state.counters["terms/s"] = benchmark::Counter(
      static_cast<double>(c.terms) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
  state.counters["docs"] = static_cast<double>(c.docs.size());
  state.counters["bytes/term"] = static_cast<double>(c.text_bytes) / static_cast<double>(c.terms);
  state.counters["synthetic"] = c.synthetic ? 1 : 0;
}
BENCHMARK_CAPTURE(BM_SimhashSketch, portable, "portable")->Arg(384)->Arg(64)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SimhashSketch, avx2, "avx2")->Arg(384)->Arg(64)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SimhashSketch, avx512, "avx512")->Arg(384)->Arg(64)->Unit(benchmark::kMillisecond);

const std::vector<uint64_t>& IndexSketches() {
  static const std::vector<uint64_t>* sketches = [] {
    constexpr size_t kPages = 1'000'000, kWords = 6;
    auto* s = new std::vector<uint64_t>(kPages * kWords);
    std::mt19937_64 rng(2);
    for (auto& w : *s) w = rng();
    for (size_t i = 1; i < kPages; ++i) {
      if (rng() % 100 != 0) continue;
      const size_t src = rng() % i;
      for (size_t w = 0; w < kWords; ++w) (*s)[i * kWords + w] = (*s)[src * kWords + w];
      const int flips = 1 + static_cast<int>(rng() % 12);
      for (int f = 0; f < flips; ++f) {
        const uint64_t bit = rng() % 384;
        (*s)[i * kWords + bit / 64] ^= uint64_t{1} << (bit % 64);
      }
    }
    return s;
  }();
  return *sketches;
}

void BM_SimhashIndex(benchmark::State& state) {
  const std::vector<uint64_t>& sketches = IndexSketches();
  const std::vector<uint8_t> all(sketches.size() / 6, 1);
  neardup::SimhashIndexOptions o;
  o.min_agreeing = static_cast<uint32_t>(state.range(0));
  neardup::SimhashIndexResult r;
  for (auto _ : state) {
    r = neardup::FindSimhashPairs(sketches, all, o);
    benchmark::DoNotOptimize(r.pairs.data());
  }
  state.counters["pages"] = static_cast<double>(all.size());
  state.counters["pages/s"] = benchmark::Counter(
      static_cast<double>(all.size()) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
  state.counters["pairs"] = static_cast<double>(r.pairs.size());
  state.counters["compared"] = static_cast<double>(r.candidates_compared);
  state.counters["tables"] =
      static_cast<double>(neardup::SimhashLayout(o).tables.size());
}
BENCHMARK(BM_SimhashIndex)->Arg(372)->Arg(373)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
