// Helpers shared by the micro-benchmarks: where the real pages are, and how
// to load them.
#ifndef NEARDUP_BENCH_BENCH_UTIL_H_
#define NEARDUP_BENCH_BENCH_UTIL_H_

#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace neardup::bench {

// The shared real-data folder (`shared/data` beside the repository, or
// $NEARDUP_SHARED_DATA); empty when absent (benches then use synthetic pages).
inline std::string SharedDataDir() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("NEARDUP_SHARED_DATA"); env && *env) return env;
  fs::path p = fs::path(NEARDUP_SOURCE_DIR).parent_path() / "shared" / "data";
  return fs::is_directory(p) ? p.string() : std::string();
}

// The bytes of a .gz file (a plain file is returned as it is); "" on error.
inline std::string GunzipFile(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) return {};
  std::string out;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  gzclose(f);
  return out;
}

// Up to `max_pages` HTML files (".html", ".htm", by path order) under
// `dir`, recursively: another kind of page to measure on (on Debian,
// /usr/share/doc holds tag-dense manuals). Empty when there is none.
inline std::vector<std::string> LoadHtmlFolder(const std::string& dir, size_t max_pages) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    const std::string ext = it->path().extension().string();
    if (it->is_regular_file(ec) && (ext == ".html" || ext == ".htm")) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> pages;
  for (const auto& f : files) {
    if (pages.size() >= max_pages) break;
    std::string page = GunzipFile(f.string());
    if (!page.empty()) pages.push_back(std::move(page));
  }
  return pages;
}

// 200 real pages: the first 20 (by name) of each of ten sources of
// shared/data/html, a mix of languages, charsets and page styles. Empty when
// the shared folder is absent.
inline std::vector<std::string> LoadBenchPages() {
  namespace fs = std::filesystem;
  std::vector<std::string> pages;
  const std::string dir = SharedDataDir();
  if (dir.empty()) return pages;
  for (const char* source :
       {"trafilatura-eval", "article-extraction-benchmark", "mozilla-readability",
        "postlight-parser", "dragnet", "cleaneval/final", "l3s-gn1", "wceb-2026-sample",
        "newspaper", "chinese-wce"}) {
    fs::path folder = fs::path(dir) / "html" / source;
    if (!fs::is_directory(folder)) continue;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(folder)) {
      if (e.is_regular_file() && e.path().extension() == ".gz") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    if (files.size() > 20) files.resize(20);
    for (const auto& f : files) pages.push_back(GunzipFile(f.string()));
  }
  return pages;
}

}  // namespace neardup::bench

#endif  // NEARDUP_BENCH_BENCH_UTIL_H_
