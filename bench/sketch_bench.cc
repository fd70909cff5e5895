// Copyright neardup authors. Licensed under Apache-2.0.
//
// Broder sketch throughput (src/sketch): shingles + min-hash + supershingles
// per document, k = 5 with wrap, m = 84, l = 14, for the fast family under
// each min-hash kernel the CPU supports and for the Rabin reference family.
//
// Input: term hashes of real pages (20 from each of ten sources of the
// shared real-data folder, `shared/data` beside the repository or
// $NEARDUP_SHARED_DATA) tokenized once up front; synthetic text when the
// folder is absent. Throughput is reported as MB/s of *extracted text*: the
// sum of term lengths plus one separator per term (the tokenizer's output,
// not the HTML), and as shingles per second.
//
//   build/sketch_bench --benchmark_filter=Sketch
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "bench_util.h"
#include "sketch/broder.h"
#include "sketch/difference_digest.h"
#include "text/tokenizer.h"

namespace {

namespace fs = std::filesystem;


struct Corpus {
  std::vector<std::vector<uint64_t>> docs;  // term hashes per document
  uint64_t text_bytes = 0;                  // sum of term lengths + 1 per term
  uint64_t terms = 0;
  bool synthetic = false;
};

// Synthetic fallback: Zipf-ish words from a small vocabulary.
void AddSyntheticDocs(Corpus* c) {
  neardup::Tokenizer tokenizer;
  neardup::TokenizedDocument doc;
  std::mt19937_64 rng(1);
  const char* vocab[] = {"the",   "quick",   "brown",       "fox",       "jumps",   "over",
                         "lazy",  "dog",     "near",        "duplicate", "web",     "page",
                         "crawl", "shingle", "fingerprint", "of",        "and",     "a",
                         "to",    "in",      "is",          "evolution", "cluster", "2004"};
  for (int d = 0; d < 200; ++d) {
    std::string text;
    const int words = 200 + static_cast<int>(rng() % 2000);
    for (int w = 0; w < words; ++w) {
      const size_t r = rng() % 24;
      text += vocab[std::min(r, rng() % 24)];
      text += ' ';
    }
    tokenizer.Tokenize(text, neardup::ContentKind::kText, "", "", &doc);
    c->docs.push_back(doc.term_hashes);
    c->text_bytes += doc.term_bytes.size() + doc.num_terms();
    c->terms += doc.num_terms();
  }
  c->synthetic = true;
}

const Corpus& GetCorpus() {
  static const Corpus* corpus = [] {
    auto* c = new Corpus();
    neardup::Tokenizer tokenizer;
    neardup::TokenizedDocument doc;
    for (const std::string& page : neardup::bench::LoadBenchPages()) {
      tokenizer.Tokenize(page, neardup::ContentKind::kHtml, "", "http://www.example.com/a/b.html",
                         &doc);
      if (doc.num_terms() == 0) continue;
      c->docs.push_back(doc.term_hashes);
      c->text_bytes += doc.term_bytes.size() + doc.num_terms();
      c->terms += doc.num_terms();
    }
    if (c->docs.empty()) {
      std::fprintf(stderr, "sketch_bench: shared real-data folder not found; synthetic text\n");
      AddSyntheticDocs(c);
    }
    return c;
  }();
  return *corpus;
}

void Report(benchmark::State& state, const Corpus& c, uint64_t shingles) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * c.text_bytes));
  state.counters["shingles/s"] =
      benchmark::Counter(static_cast<double>(shingles) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
  state.counters["docs"] = static_cast<double>(c.docs.size());
  state.counters["bytes/term"] = static_cast<double>(c.text_bytes) / static_cast<double>(c.terms);
  state.counters["synthetic"] = c.synthetic ? 1 : 0;
}

// Whole sketch: Shingles -> MinHashes -> Supershingles.
void RunSketch(benchmark::State& state, neardup::MinHashFamily family, const char* kernel) {
  neardup::BroderOptions o;
  o.family = family;
  o.kernel = kernel;
  if (!o.Validate().ok()) {
    state.SkipWithError("kernel not supported by this CPU");
    return;
  }
  const Corpus& c = GetCorpus();
  neardup::BroderSketcher sk(o);
  neardup::SketchScratch scratch;
  uint64_t ss[6], mh[84];
  for (auto _ : state) {
    for (const auto& d : c.docs) {
      sk.Sketch(d, &scratch, ss, mh);
      benchmark::DoNotOptimize(ss);
    }
  }
  Report(state, c, c.terms);  // wrap: one shingle per term
}

void BM_SketchFast(benchmark::State& state, const char* kernel) {
  RunSketch(state, neardup::MinHashFamily::kFast, kernel);
}
BENCHMARK_CAPTURE(BM_SketchFast, portable, "portable")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SketchFast, avx2, "avx2")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SketchFast, avx512, "avx512")->Unit(benchmark::kMillisecond);

void BM_SketchRabin(benchmark::State& state) {
  RunSketch(state, neardup::MinHashFamily::kRabin, "");
}
BENCHMARK(BM_SketchRabin)->Unit(benchmark::kMillisecond);

// The stages alone.
void BM_Shingles(benchmark::State& state) {
  const Corpus& c = GetCorpus();
  neardup::BroderSketcher sk(neardup::BroderOptions{});
  std::vector<uint64_t> shingles;
  for (auto _ : state) {
    for (const auto& d : c.docs) {
      sk.Shingles(d, &shingles);
      benchmark::DoNotOptimize(shingles.data());
    }
  }
  Report(state, c, c.terms);
}
BENCHMARK(BM_Shingles)->Unit(benchmark::kMillisecond);

// The rolling fingerprints under each shingle kernel (portable tables,
// carry-less products).
void BM_ShinglesKernel(benchmark::State& state, const char* kernel_name) {
  const neardup::sketch_internal::ShingleKernel* kernel =
      neardup::sketch_internal::ShingleKernels().Find(kernel_name);
  if (kernel == nullptr) {
    state.SkipWithError("kernel not supported by this CPU");
    return;
  }
  const Corpus& c = GetCorpus();
  neardup::BroderSketcher sk(neardup::BroderOptions{});
  std::vector<uint64_t> shingles;
  for (auto _ : state) {
    for (const auto& d : c.docs) {
      sk.ShinglesWith(*kernel, d, &shingles);
      benchmark::DoNotOptimize(shingles.data());
    }
  }
  Report(state, c, c.terms);
}
BENCHMARK_CAPTURE(BM_ShinglesKernel, portable, "portable")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ShinglesKernel, avx2, "avx2")->Unit(benchmark::kMillisecond);

// 84 min-hash values of every page's shingles: `sketch` is MinHashes (64-bit
// pre-images) or MinValues32 (the 32-bit values `robust` keeps).
template <typename Value, typename Sketch>
void RunMinHashes(benchmark::State& state, const char* kernel, Sketch sketch) {
  neardup::BroderOptions o;
  o.kernel = kernel;
  if (!o.Validate().ok()) {
    state.SkipWithError("kernel not supported by this CPU");
    return;
  }
  const Corpus& c = GetCorpus();
  neardup::BroderSketcher sk(o);
  std::vector<std::vector<uint64_t>> shingles(c.docs.size());
  for (size_t i = 0; i < c.docs.size(); ++i) sk.Shingles(c.docs[i], &shingles[i]);
  Value values[84];
  for (auto _ : state) {
    for (const auto& s : shingles) {
      sketch(sk, s, values);
      benchmark::DoNotOptimize(values);
    }
  }
  Report(state, c, c.terms);
}

void BM_MinHashesFast(benchmark::State& state, const char* kernel) {
  RunMinHashes<uint64_t>(state, kernel, [](const auto& sk, const auto& s, uint64_t* v) { sk.MinHashes(s, v); });
}
BENCHMARK_CAPTURE(BM_MinHashesFast, portable, "portable")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MinHashesFast, avx2, "avx2")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MinHashesFast, avx512, "avx512")->Unit(benchmark::kMillisecond);

void BM_MinValues32(benchmark::State& state, const char* kernel) {
  RunMinHashes<uint32_t>(state, kernel, [](const auto& sk, const auto& s, uint32_t* v) { sk.MinValues32(s, v); });
}
BENCHMARK_CAPTURE(BM_MinValues32, portable, "portable")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MinValues32, avx2, "avx2")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MinValues32, avx512, "avx512")->Unit(benchmark::kMillisecond);

}  // namespace

// Difference digests (the robust method): building one from a page's
// distinct shingles, and decoding the difference of two (72 cells).
void BM_DifferenceDigestBuild(benchmark::State& state) {
  std::mt19937 rng(1);
  std::vector<uint32_t> keys(2000);
  for (auto& k : keys) k = rng();
  std::vector<uint64_t> cells(72);
  for (auto _ : state) {
    neardup::DifferenceDigest::Build(keys, 72, cells.data());
    benchmark::DoNotOptimize(cells.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(keys.size()));
}
BENCHMARK(BM_DifferenceDigestBuild);

void BM_DifferenceDigestDecode(benchmark::State& state) {
  std::mt19937 rng(2);
  std::vector<uint32_t> a(2000);
  for (auto& k : a) k = rng();
  std::vector<uint32_t> b = a;
  for (int i = 0; i < state.range(0); ++i) b[static_cast<size_t>(i)] = rng();
  std::vector<uint64_t> da(72), db(72);
  neardup::DifferenceDigest::Build(a, 72, da.data());
  neardup::DifferenceDigest::Build(b, 72, db.data());
  for (auto _ : state) {
    benchmark::DoNotOptimize(neardup::DifferenceDigest::DifferenceSize(da.data(), db.data(), 72, 40));
  }
}
BENCHMARK(BM_DifferenceDigestDecode)->Arg(5)->Arg(15)->Arg(200);

BENCHMARK_MAIN();
