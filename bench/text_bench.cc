// Copyright neardup authors. Licensed under Apache-2.0.
//
// Tokenizer throughput on real pages: 20 pages from each of ten sources of
// the shared real-data folder (`shared/data` beside the repository, or
// $NEARDUP_SHARED_DATA), decompressed once up front; a synthetic page when
// the folder is absent. With $NEARDUP_BENCH_HTML_DIR set, the first 300
// HTML files under that folder instead (tag-dense manuals under
// /usr/share/doc, the end-to-end benchmark's long pages). Bytes processed
// are the raw HTML bytes.
//
// BM_TermFloor is the least work a tokenizer that yields these terms does
// (markup skipped, runs of letters and digits hashed): a floor to read the
// tokenizer against.
//
//   build/text_bench --benchmark_filter=Tokenize
//   build/text_bench --benchmark_filter='TermFloor|TokenizeForDedup$'
//   NEARDUP_BENCH_HTML_DIR=/usr/share/doc build/text_bench --benchmark_filter=TokenizeForDedup
#include <benchmark/benchmark.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <xxhash.h>

#include "bench_util.h"
#include "engine/robust_stage.h"
#include "sketch/broder.h"
#include "text/charset.h"
#include "text/tokenizer.h"

namespace {

namespace fs = std::filesystem;

std::string SyntheticPage() {
  std::string page =
      "<!DOCTYPE html><html><head><meta charset=utf-8><title>Synthetic page</title>"
      "<style>body { font-family: sans-serif; } .x { color: #333; }</style>"
      "<script>var config = {a: 1, b: [1, 2, 3]}; function f(x) { return x < 2; }</script>"
      "</head><body><div class=\"nav\"><ul>";
  for (int i = 0; i < 20; ++i) {
    page += "<li><a href=\"/section/" + std::to_string(i) + "\">Section " + std::to_string(i) +
            "</a></li>";
  }
  page += "</ul></div><article>";
  for (int i = 0; i < 60; ++i) {
    page +=
        "<p>The quick brown fox jumps over the <b>lazy</b> dog near the river bank. "
        "Near-duplicate detection finds pages that differ only in <a href=\"/x\">boilerplate"
        "</a>, timestamps &amp; session ids &mdash; see http://example.com/path.</p>\n";
  }
  page += "</article><img src=\"/img/logo.png\"></body></html>";
  return page;
}

const std::vector<std::string>& Pages() {
  static const std::vector<std::string>* pages = [] {
    const char* dir = std::getenv("NEARDUP_BENCH_HTML_DIR");
    auto* v = new std::vector<std::string>(dir && *dir ? neardup::bench::LoadHtmlFolder(dir, 300)
                                                       : neardup::bench::LoadBenchPages());
    if (v->empty()) {
      std::fprintf(stderr, "text_bench: shared real-data folder not found; synthetic page\n");
      v->push_back(SyntheticPage());
    }
    return v;
  }();
  return *pages;
}

// The pages as the end-to-end crawls hold them (`bench/crawlgen
// --max-page-bytes 8192`): about 8 KB from the start of the body, cut at a
// tag, under a head that declares UTF-8.
const std::vector<std::string>& BodyStarts() {
  static const std::vector<std::string>* starts = [] {
    auto* v = new std::vector<std::string>();
    for (const std::string& p : Pages()) {
      size_t start = std::min(p.find("<body"), p.find("<BODY"));
      if (start == std::string::npos) start = 0;
      size_t end = std::min(p.size(), start + 8192);
      const size_t lt = p.rfind('<', end);
      if (lt != std::string::npos && lt > start) end = lt;
      v->push_back("<html><head><meta charset=\"utf-8\"></head>" + p.substr(start, end - start) + "</body></html>");
    }
    return v;
  }();
  return *starts;
}

void RunTokenize(benchmark::State& state, const neardup::TokenizeOptions& options,
                 const std::vector<std::string>& pages = Pages()) {
  size_t bytes = 0;
  for (const auto& p : pages) bytes += p.size();
  neardup::Tokenizer tokenizer(options);
  neardup::TokenizedDocument doc;
  uint64_t terms = 0;
  for (auto _ : state) {
    for (const auto& p : pages) {
      tokenizer.Tokenize(p, neardup::ContentKind::kHtml, "", "http://www.example.com/a/b.html",
                         &doc);
      terms += doc.num_terms();
      benchmark::DoNotOptimize(doc.term_hashes.data());
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["pages"] = static_cast<double>(pages.size());
  state.counters["terms_per_page"] =
      static_cast<double>(terms) / static_cast<double>(state.iterations() * pages.size());
}

void BM_Tokenize(benchmark::State& state) { RunTokenize(state, neardup::TokenizeOptions()); }
BENCHMARK(BM_Tokenize)->Unit(benchmark::kMillisecond);

void BM_TokenizeHashesOnly(benchmark::State& state) {
  neardup::TokenizeOptions o;
  o.keep_term_text = false;
  o.collect_links = false;
  RunTokenize(state, o);
}
BENCHMARK(BM_TokenizeHashesOnly)->Unit(benchmark::kMillisecond);

// As `neardup dedup` tokenizes for the default method: term text kept (the
// volatile-term rule reads it), no links (only the in-links keeper wants them).
void BM_TokenizeForDedup(benchmark::State& state) {
  neardup::TokenizeOptions o;
  o.collect_links = false;
  RunTokenize(state, o);
}
BENCHMARK(BM_TokenizeForDedup)->Unit(benchmark::kMillisecond);

void BM_TokenizeBodyStartsForDedup(benchmark::State& state) {
  neardup::TokenizeOptions o;
  o.collect_links = false;
  RunTokenize(state, o, BodyStarts());
}
BENCHMARK(BM_TokenizeBodyStartsForDedup)->Unit(benchmark::kMillisecond);

// The least work a tokenizer that yields the tokenizer's terms does: a
// floor to read BM_TokenizeForDedup against (bench/RESULTS.md). Markup is
// skipped from '<' to the next '>', each run of ASCII letters and digits is
// lower-cased into a term buffer and hashed with XXH3 as the tokenizer
// hashes its terms, and its hash and end offset are appended. Runs are found
// in the classes of 64 bytes at a time (bit masks, SSE2 on x86-64), term
// ends by counting bits, with no other state: no entities, no UTF-8, no
// sentences, lines, links or URL spans, no tag names. Terms of bytes past
// ASCII are not found, so the pages' terms counted here are fewer.
uint64_t TermFloorMask(const char* p, uint64_t* lt, uint64_t* gt) {
  uint64_t alnum = 0, l = 0, g = 0;
#if defined(__SSE2__)
  for (int k = 0; k < 4; ++k) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    const __m128i letter = _mm_sub_epi8(_mm_or_si128(x, _mm_set1_epi8(0x20)), _mm_set1_epi8('a'));
    const __m128i digit = _mm_sub_epi8(x, _mm_set1_epi8('0'));
    const __m128i is_alnum = _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(letter, _mm_set1_epi8(25)), letter),
                                          _mm_cmpeq_epi8(_mm_min_epu8(digit, _mm_set1_epi8(9)), digit));
    alnum |= uint64_t{static_cast<uint16_t>(_mm_movemask_epi8(is_alnum))} << (16 * k);
    l |= uint64_t{static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('<'))))} << (16 * k);
    g |= uint64_t{static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('>'))))} << (16 * k);
  }
#else
  for (int i = 0; i < 64; ++i) {
    const unsigned char c = static_cast<unsigned char>(p[i]);
    alnum |= uint64_t{static_cast<unsigned>((c | 0x20) - 'a') < 26u || static_cast<unsigned>(c - '0') < 10u} << i;
    l |= uint64_t{c == '<'} << i;
    g |= uint64_t{c == '>'} << i;
  }
#endif
  *lt = l;
  *gt = g;
  return alnum;
}

// The page's `size` bytes at `padded`, whose last 64-byte block is padded
// with spaces and 16 bytes more follow (FloorPadded, made before timing).
// REQUIRES: term_bytes->size() >= size + 64.
void TermFloor(const char* padded, size_t size, std::string* term_bytes, std::vector<uint64_t>* hashes,
               std::vector<uint32_t>* offsets) {
  const size_t blocks = (size + 63) / 64;
  hashes->clear();
  offsets->assign(1, 0);
  const char* base = padded;
  char* out = term_bytes->data();
  size_t written = 0;
  bool in_markup = false;
  size_t term_start = 0;
  bool in_term = false;
  for (size_t b = 0; b < blocks; ++b) {
    uint64_t lt, gt;
    uint64_t text = TermFloorMask(base + 64 * b, &lt, &gt);
    // Bytes inside markup are not text: from each '<' outside markup to the
    // next '>'.
    uint64_t markup = 0;
    unsigned from = 0;  // where the open markup begins in this block
    for (uint64_t events = lt | gt; events != 0; events &= events - 1) {
      const unsigned i = static_cast<unsigned>(std::countr_zero(events));
      if (!in_markup && ((lt >> i) & 1)) {
        in_markup = true;
        from = i;
      } else if (in_markup && ((gt >> i) & 1)) {
        const uint64_t through_i = i == 63 ? ~uint64_t{0} : (uint64_t{1} << (i + 1)) - 1;
        markup |= (~uint64_t{0} << from) & through_i;
        in_markup = false;
      }
    }
    if (in_markup) markup |= ~uint64_t{0} << from;
    text &= ~markup;
    // Term starts and ends (an end is the first byte after a term).
    const uint64_t carry = in_term ? 1 : 0;
    uint64_t edges = (text ^ ((text << 1) | carry));
    for (; edges != 0; edges &= edges - 1) {
      const size_t at = 64 * b + static_cast<size_t>(std::countr_zero(edges));
      if (!in_term) {
        term_start = at;
        in_term = true;
        continue;
      }
      in_term = false;
      const size_t n = at - term_start;
      for (size_t i = 0; i < n; i += 16) {
#if defined(__SSE2__)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + written + i),
                         _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(base + term_start + i)),
                                      _mm_set1_epi8(0x20)));
#else
        for (size_t j = i; j < std::min(n, i + 16); ++j) out[written + j] = static_cast<char>(base[term_start + j] | 0x20);
#endif
      }
      hashes->push_back(XXH3_64bits(out + written, n));
      written += n;
      offsets->push_back(static_cast<uint32_t>(written));
    }
  }
}

// The page in 64-byte blocks, the last padded with spaces, and 16 bytes
// more (the term copy's 16-byte loads).
std::string FloorPadded(const std::string& page) {
  std::string padded = page;
  padded.resize((page.size() + 63) / 64 * 64 + 16, ' ');
  return padded;
}

void BM_TermFloor(benchmark::State& state) {
  const std::vector<std::string>& pages = Pages();
  size_t bytes = 0, largest = 0;
  std::vector<std::string> padded;
  for (const auto& p : pages) {
    bytes += p.size();
    largest = std::max(largest, p.size());
    padded.push_back(FloorPadded(p));
  }
  std::string term_bytes(largest + 64, '\0');  // a page's term bytes never exceed its bytes
  std::vector<uint64_t> hashes;
  std::vector<uint32_t> offsets;
  uint64_t terms = 0;
  for (auto _ : state) {
    for (size_t k = 0; k < pages.size(); ++k) {
      TermFloor(padded[k].data(), pages[k].size(), &term_bytes, &hashes, &offsets);
      terms += hashes.size();
      benchmark::DoNotOptimize(hashes.data());
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["pages"] = static_cast<double>(pages.size());
  state.counters["terms_per_page"] =
      static_cast<double>(terms) / static_cast<double>(state.iterations() * pages.size());
}
BENCHMARK(BM_TermFloor)->Unit(benchmark::kMillisecond);

void BM_TokenizeSynthetic(benchmark::State& state) {
  const std::string page = SyntheticPage();
  neardup::Tokenizer tokenizer;
  neardup::TokenizedDocument doc;
  for (auto _ : state) {
    tokenizer.Tokenize(page, neardup::ContentKind::kHtml, "", "http://www.example.com/", &doc);
    benchmark::DoNotOptimize(doc.term_hashes.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * page.size()));
}
BENCHMARK(BM_TokenizeSynthetic)->Unit(benchmark::kMicrosecond);

// The UTF-8 check a page declared or detected as UTF-8 goes through before
// it is tokenized (charset.h): whether it is well-formed and whether any
// byte is above ASCII. Arg 0: the real pages as they are; 1: each with a
// stray byte 0xFF at its end, so that the check reads the whole page and
// then fails.
void BM_ScanUtf8(benchmark::State& state) {
  std::vector<std::string> pages = Pages();
  if (state.range(0) == 1) {
    for (std::string& p : pages) p.push_back('\xFF');
  }
  size_t bytes = 0, valid = 0;
  for (const auto& p : pages) bytes += p.size();
  for (auto _ : state) {
    valid = 0;
    for (const auto& p : pages) valid += neardup::ScanUtf8(p).valid;
    benchmark::DoNotOptimize(valid);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["valid_pages"] = static_cast<double>(valid);
}
BENCHMARK(BM_ScanUtf8)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// What a page that fails that check costs to make well-formed
// (SanitizeUtf8): the real pages each cut inside a character at its end,
// as a record cut at a length limit ends (Arg 0), or with a stray byte
// 0xFF after every 200 bytes (Arg 1: text of another charset declared as
// UTF-8, bad all through).
void BM_SanitizeUtf8(benchmark::State& state) {
  std::vector<std::string> pages = Pages();
  for (std::string& p : pages) {
    if (state.range(0) == 0) {
      p.append("\xE2\x82");
    } else {
      for (size_t i = 200; i < p.size(); i += 201) p.insert(p.begin() + static_cast<std::ptrdiff_t>(i), '\xFF');
    }
  }
  size_t bytes = 0, replaced = 0;
  for (const auto& p : pages) bytes += p.size();
  std::string out;
  for (auto _ : state) {
    replaced = 0;
    for (const auto& p : pages) replaced += neardup::SanitizeUtf8(p, &out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["replaced_per_page"] = static_cast<double>(replaced) / static_cast<double>(pages.size());
}
BENCHMARK(BM_SanitizeUtf8)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// The default method's signing after tokenization (robust_stage.h):
// normalization of volatile terms alone, and the whole signature
// (normalization, identity, min-hash, difference digest). Bytes are the
// raw HTML bytes, as for the tokenizer.
std::vector<neardup::TokenizedDocument> TokenizedPages(size_t* bytes) {
  neardup::TokenizeOptions o;
  o.keep_term_text = true;
  neardup::Tokenizer tokenizer(o);
  std::vector<neardup::TokenizedDocument> docs(Pages().size());
  *bytes = 0;
  for (size_t i = 0; i < docs.size(); ++i) {
    tokenizer.Tokenize(Pages()[i], neardup::ContentKind::kHtml, "", "http://www.example.com/a/b.html", &docs[i]);
    *bytes += Pages()[i].size();
  }
  return docs;
}

// Arg: 1 with the main text's sequence too (what the default method asks),
// 0 the whole page's alone.
void BM_RobustNormalize(benchmark::State& state) {
  size_t bytes = 0;
  const auto docs = TokenizedPages(&bytes);
  const neardup::RobustMethodOptions options;
  std::vector<uint64_t> normalized, main_text;
  std::vector<uint64_t>* main_out = state.range(0) == 1 ? &main_text : nullptr;
  for (auto _ : state) {
    for (const auto& d : docs) {
      neardup::NormalizeVolatileTerms(d, "http://www.example.com/a/b.html", options, &normalized, nullptr, nullptr,
                                      main_out);
      benchmark::DoNotOptimize(normalized.data());
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_RobustNormalize)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// Arg: 1 with the main text's min-hash values (the default), 0 without.
void BM_RobustSignature(benchmark::State& state) {
  size_t bytes = 0;
  const auto docs = TokenizedPages(&bytes);
  neardup::RobustMethodOptions options;
  if (state.range(0) == 0) options.main_minhashes = 0;
  const neardup::RobustSketchers sketchers(options);
  neardup::SketchScratch scratch;
  std::vector<uint64_t> normalized;
  std::vector<uint32_t> mins(options.positions());
  std::vector<uint64_t> digest(neardup::kRobustDigestCells);
  for (auto _ : state) {
    for (const auto& d : docs) {
      auto sig = neardup::ComputeRobustSignature(d, "http://www.example.com/a/b.html", options, sketchers.whole,
                                                 sketchers.main_or_null(), &scratch, &normalized, mins.data(),
                                                 digest.data());
      benchmark::DoNotOptimize(sig.identity);
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_RobustSignature)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
