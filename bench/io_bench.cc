// Copyright neardup authors. Licensed under Apache-2.0.
//
// io micro-benchmarks. Input: a per-record-gzip WARC built in memory with
// WarcWriter from real pages (shared/data/html beside the repository when
// present, else synthetic HTML). Throughput is reported as bytes/s of
// uncompressed payload (Document::body bytes, or inflated bytes for the
// gunzip benchmarks).
//
//   BM_GunzipLibdeflate  whole members with libdeflate_gzip_decompress_ex
//   BM_GunzipZlib        the same members with zlib inflate (15+16)
//   BM_ReadWarcGz        OpenDocumentSource over the .warc.gz -> Documents
//   BM_ReadWarcPlain     the same records uncompressed
//   BM_ReadLongPages     pages of 2 MiB (the pages above joined), read into
//                        batches of 32 Documents as Deduper::AddFrom does;
//                        after each batch the buffers over 256 KiB are
//                        freed (/0) or handed back to the source (/1,
//                        DocumentSource::Recycle, as AddFrom does). Blocks
//                        of 1 MiB or more are mapped on their own and
//                        returned when freed, as in the neardup CLI (its
//                        jemalloc returns freed pages at once; with glibc it
//                        sets this threshold), so a freed buffer's next
//                        page is faulted in anew.
//   BM_ReadHugePages     8 pages of 12 MiB, each larger than the first
//                        output guess for a gzip member
#include <benchmark/benchmark.h>
#include <libdeflate.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <zlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "bench_util.h"
#include "io/warc_writer.h"
#include "neardup/env.h"
#include "neardup/source.h"

namespace {

namespace fs = std::filesystem;
using neardup::MemEnv;


// About 48 MB of pages.
std::vector<std::string> LoadPages() {
  std::vector<std::string> pages;
  size_t total = 0;
  const size_t kWant = 48u << 20;
  const std::string shared = neardup::bench::SharedDataDir();
  fs::path html = shared.empty() ? fs::path() : fs::path(shared) / "html";
  if (!shared.empty() && fs::is_directory(html)) {
    std::vector<std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(html)) {
      std::string p = e.path().string();
      if (e.is_regular_file() && p.size() > 3 && p.compare(p.size() - 3, 3, ".gz") == 0 &&
          p.find("/gold/") == std::string::npos) {
        files.push_back(p);
      }
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      if (total >= kWant) break;
      std::string page = neardup::bench::GunzipFile(f);
      if (page.empty()) continue;
      total += page.size();
      pages.push_back(std::move(page));
    }
  }
  uint64_t x = 42;
  while (total < kWant) {  // synthetic fallback
    std::string page = "<html><head><title>page</title></head><body>";
    for (int i = 0; i < 400; ++i) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      page += "<p>word" + std::to_string(x >> 50) + " text " + std::to_string((x >> 20) & 1023) +
              " lorem ipsum dolor</p>\n";
    }
    page += "</body></html>";
    total += page.size();
    pages.push_back(std::move(page));
  }
  return pages;
}

struct Corpus {
  MemEnv env;
  std::vector<std::string> members;  // one gzip member per record
  uint64_t record_bytes = 0;         // uncompressed WARC bytes
  uint64_t payload_bytes = 0;

  Corpus() {
    std::vector<std::string> pages = LoadPages();
    for (bool gzip : {true, false}) {
      auto file = env.NewWritableFile(gzip ? "crawl.warc.gz" : "crawl.warc");
      neardup::io::WarcWriterOptions o;
      o.gzip = gzip;
      neardup::io::WarcWriter w(file.value().get(), o);
      for (size_t i = 0; i < pages.size(); ++i) {
        neardup::io::WarcResponse r;
        r.url = "http://bench.example/" + std::to_string(i);
        r.content_type = "text/html; charset=utf-8";
        r.body = pages[i];
        (void)w.WriteResponse(r);
      }
      (void)w.Close();
    }
    for (const auto& p : pages) payload_bytes += p.size();
    // Split the .warc.gz into members (each record was written as one).
    std::string gz = env.GetContents("crawl.warc.gz").value();
    libdeflate_decompressor* d = libdeflate_alloc_decompressor();
    std::string out(64u << 20, '\0');
    size_t pos = 0;
    while (pos < gz.size()) {
      size_t in_used = 0, out_used = 0;
      if (libdeflate_gzip_decompress_ex(d, gz.data() + pos, gz.size() - pos, out.data(), out.size(),
                                        &in_used, &out_used) != LIBDEFLATE_SUCCESS) {
        break;
      }
      members.push_back(gz.substr(pos, in_used));
      record_bytes += out_used;
      pos += in_used;
    }
    libdeflate_free_decompressor(d);
  }
};

Corpus& GetCorpus() {
  static Corpus* c = new Corpus();
  return *c;
}

void BM_GunzipLibdeflate(benchmark::State& state) {
  Corpus& c = GetCorpus();
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  std::string out(64u << 20, '\0');
  for (auto _ : state) {
    for (const auto& m : c.members) {
      size_t in_used = 0, out_used = 0;
      libdeflate_gzip_decompress_ex(d, m.data(), m.size(), out.data(), out.size(), &in_used, &out_used);
      benchmark::DoNotOptimize(out_used);
    }
  }
  libdeflate_free_decompressor(d);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * c.record_bytes));
}
BENCHMARK(BM_GunzipLibdeflate)->Unit(benchmark::kMillisecond);

void BM_GunzipZlib(benchmark::State& state) {
  Corpus& c = GetCorpus();
  z_stream zs{};
  inflateInit2(&zs, 15 + 16);
  std::string out(64u << 20, '\0');
  for (auto _ : state) {
    for (const auto& m : c.members) {
      inflateReset(&zs);
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(m.data()));
      zs.avail_in = static_cast<uInt>(m.size());
      zs.next_out = reinterpret_cast<Bytef*>(out.data());
      zs.avail_out = static_cast<uInt>(out.size());
      inflate(&zs, Z_FINISH);
      benchmark::DoNotOptimize(zs.total_out);
    }
  }
  inflateEnd(&zs);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * c.record_bytes));
}
BENCHMARK(BM_GunzipZlib)->Unit(benchmark::kMillisecond);

void ReadAll(benchmark::State& state, const char* path) {
  Corpus& c = GetCorpus();
  uint64_t payload = 0;
  for (auto _ : state) {
    auto src = neardup::OpenDocumentSource({path}, neardup::SourceOptions(), &c.env, nullptr);
    neardup::Document doc;
    while (src.value()->Next(&doc)) benchmark::DoNotOptimize(doc.body.data());
    payload = src.value()->stats().payload_bytes;
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * payload));
  state.counters["records"] = static_cast<double>(c.members.size());
}

void BM_ReadWarcGz(benchmark::State& state) { ReadAll(state, "crawl.warc.gz"); }
BENCHMARK(BM_ReadWarcGz)->Unit(benchmark::kMillisecond);

void BM_ReadWarcPlain(benchmark::State& state) { ReadAll(state, "crawl.warc"); }
BENCHMARK(BM_ReadWarcPlain)->Unit(benchmark::kMillisecond);

// `count` pages of `page_bytes` (the pages above joined) in a per-record
// gzip WARC, as crawls are.
MemEnv* PagesEnv(size_t count, size_t page_bytes) {
  auto* e = new MemEnv();
  const std::vector<std::string> pages = LoadPages();
  std::string joined;
  for (const std::string& p : pages) joined += p;
  auto file = e->NewWritableFile("long.warc.gz");
  neardup::io::WarcWriterOptions o;
  o.gzip = true;
  neardup::io::WarcWriter w(file.value().get(), o);
  for (size_t i = 0; i < count; ++i) {
    neardup::io::WarcResponse r;
    r.url = "http://long.example/" + std::to_string(i);
    r.content_type = "text/html; charset=utf-8";
    const size_t at = (i * 7919 * 4096) % (joined.size() - page_bytes);
    const std::string body = joined.substr(at, page_bytes - (i % 5) * 4096);  // sizes differ a little, as pages do
    r.body = body;
    (void)w.WriteResponse(r);
  }
  (void)w.Close();
  return e;
}

MemEnv& LongPagesEnv() {
  static MemEnv* env = PagesEnv(64, size_t{2} << 20);
  return *env;
}

void BM_ReadLongPages(benchmark::State& state) {
  const bool recycle = state.range(0) != 0;
  MemEnv& env = LongPagesEnv();
  std::vector<neardup::Document> batch(32);
  uint64_t payload = 0;
  for (auto _ : state) {
    auto src = neardup::OpenDocumentSource({"long.warc.gz"}, neardup::SourceOptions(), &env, nullptr);
    neardup::DocumentSource& source = *src.value();
    bool more = true;
    while (more) {
      size_t count = 0;
      while (count < batch.size() && (more = source.Next(&batch[count]))) ++count;
      for (size_t k = 0; k < count; ++k) benchmark::DoNotOptimize(batch[k].body.data());
      for (neardup::Document& d : batch) {  // AddFrom's rule for buffers over 256 KiB
        if (d.body.capacity() <= (size_t{256} << 10)) continue;
        if (recycle) source.Recycle(&d.body);
        if (d.body.capacity() > (size_t{256} << 10)) std::string().swap(d.body);
      }
    }
    payload = source.stats().payload_bytes;
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * payload));
}
BENCHMARK(BM_ReadLongPages)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// 8 pages of 12 MiB: each member's output exceeds the stream's first guess
// (4 MiB), so each is inflated again at the size its trailer states.
void BM_ReadHugePages(benchmark::State& state) {
  static MemEnv* env = PagesEnv(8, size_t{12} << 20);
  uint64_t payload = 0;
  for (auto _ : state) {
    auto src = neardup::OpenDocumentSource({"long.warc.gz"}, neardup::SourceOptions(), env, nullptr);
    neardup::Document doc;
    while (src.value()->Next(&doc)) benchmark::DoNotOptimize(doc.body.data());
    payload = src.value()->stats().payload_bytes;
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * payload));
}
BENCHMARK(BM_ReadHugePages)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 1 << 20);  // as the CLI does (see BM_ReadLongPages)
#endif
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
