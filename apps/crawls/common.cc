// Copyright neardup authors. Licensed under Apache-2.0.
//
// Shared pieces of apps/crawls: Fetterly et al.'s size classes, the change
// amount of a URL between two crawls, crawl folders and clusters.tsv.
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "base/hash.h"
#include "crawls/crawls_internal.h"
#include "neardup/source.h"
#include "output/clusters_file.h"

namespace neardup {

const char* ChangeGroupName(int group) {
  static const char* const kNames[kChangeGroups] = {"complete change", "large change",
                                                    "medium change", "small change",
                                                    "no text change", "no change"};
  return group >= 0 && group < kChangeGroups ? kNames[group] : "?";
}

int ChangeGroup(int amount) {
  if (amount <= 0) return 0;
  if (amount <= 28) return 1;
  if (amount <= 56) return 2;
  if (amount <= 83) return 3;
  return amount == 84 ? 4 : 5;
}

namespace crawls_internal {

std::vector<SizeClassCurve> EmptySizeClasses() {
  // Fetterly et al. Figures 4, 5, 7, 8: 1, 2-10, 11-100, ..., > 100,000.
  std::vector<SizeClassCurve> classes;
  uint64_t lo = 1, hi = 1;
  for (int i = 0; i < 7; ++i) {
    SizeClassCurve c;
    c.min_size = lo;
    c.max_size = i == 6 ? 0 : hi;
    c.label = i == 0 ? "1" : i == 6 ? std::to_string(lo) + "+" : std::to_string(lo) + "-" + std::to_string(hi);
    classes.push_back(c);
    lo = hi + 1;
    hi = hi == 1 ? 10 : hi * 10;
  }
  return classes;
}

size_t SizeClassOf(uint64_t size) {
  size_t c = 0;
  for (uint64_t bound = 1; size > bound && c < 6; bound = bound == 1 ? 10 : bound * 10) ++c;
  return c;
}

BroderOptions ChangeSketchOptions(uint32_t shingle_size, uint32_t num_minhashes, uint64_t seed) {
  BroderOptions o;
  o.shingle_size = shingle_size;
  o.wrap = true;
  o.num_minhashes = num_minhashes;
  o.supershingle_size = num_minhashes % 6 == 0 ? num_minhashes / 6 : num_minhashes;
  o.seed = seed;
  return o;
}

PageSketch SketchPage(std::string_view body, ContentKind kind, std::string_view charset,
                      std::string_view url, Tokenizer* tokenizer, const BroderSketcher& sketcher,
                      SketchScratch* scratch, TokenizedDocument* tokens) {
  PageSketch p;
  p.bytes_size = body.size();
  p.bytes_hash = std::hash<std::string_view>()(body);
  p.bytes_hash2 = Fnv1a64(body);
  tokenizer->Tokenize(body, kind, charset, url, tokens);
  if (tokens->num_terms() == 0) return p;
  sketcher.Shingles(tokens->term_hashes, &scratch->shingles);
  p.minhashes.resize(sketcher.options().num_minhashes);
  p.has_terms = sketcher.MinHashes(scratch->shingles, p.minhashes.data());
  if (!p.has_terms) p.minhashes.clear();
  return p;
}

int ChangeAmount(const PageSketch& a, const PageSketch& b) {
  // 85 (Fetterly et al.: "bitwise identical, including the HTML markup").
  if (a.bytes_size == b.bytes_size && a.bytes_hash == b.bytes_hash && a.bytes_hash2 == b.bytes_hash2) {
    return kChangeBuckets - 1;
  }
  if (!a.has_terms || !b.has_terms) {
    // Two pages without terms have the same (empty) text.
    return !a.has_terms && !b.has_terms ? kChangeBuckets - 2 : 0;
  }
  int same = 0;
  const size_t m = std::min(a.minhashes.size(), b.minhashes.size());
  for (size_t i = 0; i < m; ++i) same += a.minhashes[i] == b.minhashes[i];
  return same;
}

Result<std::vector<std::string>> CrawlFiles(const std::string& crawl, Env* env) {
  if (env->IsDirectory(crawl)) {
    NEARDUP_ASSIGN_OR_RETURN(std::vector<std::string> all, env->ListFilesRecursive(crawl));
    std::vector<std::string> files;
    for (const std::string& f : all) {
      if (IsCrawlFileName(f)) files.push_back(f);
    }
    if (files.empty()) files.push_back(crawl);  // a folder of HTML files
    return files;
  }
  if (!env->FileExists(crawl)) return Status::NotFound("crawl not found: " + crawl);
  return std::vector<std::string>{crawl};
}

Result<ClusterTable> ReadClusterTable(const std::string& path, Env* env) {
  NEARDUP_ASSIGN_OR_RETURN(auto reader, ClustersReader::Open(env, path));
  ClusterTable table;
  ClusterRecord row;
  for (;;) {
    Result<bool> got = reader->Next(&row);
    if (!got.ok()) {
      if (!got.status().IsCorruption()) return got.status();
      ++table.malformed_rows;  // the reader has skipped the row
      continue;
    }
    if (!*got) break;
    table.urls.emplace_back(row.url);
    table.cluster.push_back(row.cluster);
  }
  return table;
}

}  // namespace crawls_internal
}  // namespace neardup
