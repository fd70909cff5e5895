// Copyright neardup authors. Licensed under Apache-2.0.
//
// cluster_crawl: the neardup library in one page. Reads crawls (WARC/ARC,
// folders of HTML files, JSON Lines: whatever `neardup dedup` reads), finds
// exact and near-duplicate pages with the default method, and prints one
// line per page:
//
//   url <TAB> cluster <TAB> url of the page its cluster keeps
//
// Usage: cluster_crawl INPUT...
//
// Build it against an installed neardup with examples/CMakeLists.txt.
#include <cstdio>
#include <string>
#include <vector>

#include <neardup/neardup.h>  // the whole public API

namespace {

// Every neardup call that can fail returns a Status or a Result<T>; this
// example gives up on the first error.
int Fail(const neardup::Status& status) {
  std::fprintf(stderr, "cluster_crawl: %s\n", status.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s INPUT...\n", argv[0]);
    return 1;
  }
  const std::vector<std::string> inputs(argv + 1, argv + argc);

  // A streaming reader over every input, in order (default SourceOptions;
  // pages that cannot be read are skipped, never fatal).
  auto source = neardup::OpenDocumentSource(inputs);
  if (!source.ok()) return Fail(source.status());

  // The deduper with default options: the default method ("robust").
  neardup::DedupOptions options;
  auto deduper = neardup::Deduper::Create(options);
  if (!deduper.ok()) return Fail(deduper.status());

  // Add every page. Ids are 0, 1, 2, ... in Add order, and the deduper keeps
  // no URL or body, so the URLs are kept here, indexed by id.
  std::vector<std::string> urls;
  neardup::Document document;
  while ((*source)->Next(&document)) {
    neardup::Result<neardup::DocId> id = (*deduper)->Add(document);
    if (!id.ok()) return Fail(id.status());
    urls.push_back(document.url);  // urls[*id]
  }

  // Cluster the pages: each id gets a cluster (the smallest id among its
  // members) and the id of the page its cluster keeps.
  neardup::Result<neardup::Clustering> clustering = (*deduper)->Cluster();
  if (!clustering.ok()) return Fail(clustering.status());

  for (neardup::DocId id = 0; id < urls.size(); ++id) {
    std::printf("%s\t%llu\t%s\n", urls[id].c_str(),
                static_cast<unsigned long long>(clustering->cluster_of(id)),
                urls[clustering->keeper_of(id)].c_str());
  }
  return 0;
}
