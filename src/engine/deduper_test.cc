// The Deduper's contracts (include/neardup/deduper.h): ids in Add order,
// Remove equals never-added, output independent of the thread count, stable
// cluster ids, the batch job's partition; and the factory's spec strings.
#include "neardup/deduper.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <iterator>
#include <map>
#include <random>
#include <set>

#include "neardup/compare.h"
#include "neardup/executor.h"
#include "neardup/method.h"
#include "neardup/source.h"
#include "test_util.h"

namespace neardup {
namespace {

const char* const kMethods[] = {"exact", "broder", "simhash", "combined", "robust", "paragraphs", "chunks"};

std::vector<Document> ReadAll(const std::string& path) {
  auto source = OpenDocumentSource({path});
  EXPECT_TRUE(source.ok()) << source.status().ToString();
  std::vector<Document> docs;
  Document d;
  while ((*source)->Next(&d)) docs.push_back(d);
  return docs;
}

// The sample crawl, and a synth crawl built from it (template sites, hard
// negatives, mirrors, edited copies): made once for the whole suite.
const std::vector<Document>& SampleDocs() {
  static const std::vector<Document> docs = ReadAll(testing::RepoTestDataDir() + "/sample/sample-crawl.warc.gz");
  return docs;
}

const std::vector<Document>& SynthDocs() {
  static const std::vector<Document> docs = [] {
    const std::string dir = testing::MakeTempDir("deduper-synth");
    std::string log;
    const int rc = testing::RunCommand(testing::Q(testing::CliPath()) + " synth " +
                                           testing::Q(testing::RepoTestDataDir() + "/sample/sample-crawl.warc.gz") +
                                           " --out " + testing::Q(dir + "/crawl.warc.gz") + " --truth " +
                                           testing::Q(dir + "/truth.tsv") + " --sites 20 --seed 5",
                                       &log);
    EXPECT_EQ(rc, 0) << log;
    return ReadAll(dir + "/crawl.warc.gz");
  }();
  return docs;
}

std::unique_ptr<Deduper> MakeDeduper(const std::string& method, Executor* executor = nullptr) {
  DedupOptions o;
  o.method = method;
  o.temp_dir = testing::MakeTempDir("deduper");
  auto d = Deduper::Create(o, executor);
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  return std::move(d).value();
}

// Everything a clustering says of a document, with ids mapped to URLs.
struct Row {
  std::string keeper_url, method, reason, role;
  double similarity = 0;
  std::set<std::string> cluster;  // URLs of its cluster
  bool operator==(const Row&) const = default;
};

std::map<std::string, Row> Rows(const Clustering& c, const std::vector<const Document*>& docs) {
  std::map<uint64_t, std::set<std::string>> members;
  for (size_t id = 0; id < docs.size(); ++id) {
    if (!c.removed(id)) members[c.cluster_of(id)].insert(docs[id]->url + "#" + std::to_string(docs[id]->source_offset));
  }
  std::map<std::string, Row> rows;
  for (size_t id = 0; id < docs.size(); ++id) {
    if (c.removed(id)) continue;
    Row r;
    const Document& k = *docs[c.keeper_of(id)];
    r.keeper_url = k.url + "#" + std::to_string(k.source_offset);
    r.method = c.method_of(id);
    r.reason = c.keeper_reason_of(id);
    r.role = DocRoleName(c.role_of(id));
    r.similarity = c.similarity_of(id);
    r.cluster = members[c.cluster_of(id)];
    rows[docs[id]->url + "#" + std::to_string(docs[id]->source_offset)] = r;
  }
  return rows;
}

std::vector<const Document*> Pointers(const std::vector<Document>& docs) {
  std::vector<const Document*> ptrs;
  for (const Document& d : docs) ptrs.push_back(&d);
  return ptrs;
}

// What `robust` on the calling thread alone makes of `docs`.
std::map<std::string, Row> RowsOnOneThread(const std::vector<Document>& docs) {
  auto alone = MakeDeduper("robust");
  EXPECT_TRUE(alone->Add(std::span<const Document>(docs)).ok());
  auto clustering = alone->Cluster();
  EXPECT_TRUE(clustering.ok());
  return clustering.ok() ? Rows(*clustering, Pointers(docs)) : std::map<std::string, Row>();
}

TEST(DeduperTest, IdsAreGivenInAddOrder) {
  auto d = MakeDeduper("robust");
  const auto& docs = SampleDocs();
  for (size_t i = 0; i < 3; ++i) {
    auto id = d->Add(docs[i]);
    ASSERT_TRUE(id.ok());
    EXPECT_EQ(*id, i);
  }
  auto ids = d->Add(std::span<const Document>(docs).subspan(3, 4));
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(*ids, (std::vector<DocId>{3, 4, 5, 6}));
  EXPECT_EQ(d->size(), 7u);
}

TEST(DeduperTest, RemoveEqualsNeverAdded) {
  const auto& docs = SynthDocs();
  ASSERT_GT(docs.size(), 100u);
  for (const char* method : {"exact", "broder", "simhash", "combined", "robust"}) {
    SCOPED_TRACE(method);
    auto full = MakeDeduper(method);
    ASSERT_TRUE(full->Add(std::span<const Document>(docs)).ok());
    auto first = full->Cluster();
    ASSERT_TRUE(first.ok());
    // Remove every kept page of a cluster (new keepers must be elected) and
    // every seventh page.
    std::set<DocId> gone;
    for (DocId id = 0; id < docs.size(); ++id) {
      if ((first->role_of(id) == DocRole::kKeep && id % 2 == 0) || id % 7 == 3) gone.insert(id);
    }
    ASSERT_GT(gone.size(), 10u);
    for (DocId id : gone) ASSERT_TRUE(full->Remove(id).ok());
    EXPECT_TRUE(full->Remove(*gone.begin()).IsNotFound());
    auto after = full->Cluster();
    ASSERT_TRUE(after.ok());

    auto fresh = MakeDeduper(method);
    std::vector<const Document*> kept_docs, all_docs;
    for (DocId id = 0; id < docs.size(); ++id) {
      all_docs.push_back(&docs[id]);
      if (gone.count(id)) continue;
      ASSERT_TRUE(fresh->Add(docs[id]).ok());
      kept_docs.push_back(&docs[id]);
    }
    auto never = fresh->Cluster();
    ASSERT_TRUE(never.ok());
    const auto a = Rows(*after, all_docs), b = Rows(*never, kept_docs);
    ASSERT_EQ(a.size(), b.size());
    size_t differing = 0;
    for (const auto& [url, row] : b) differing += !(a.at(url) == row);
    EXPECT_EQ(differing, 0u);
    EXPECT_EQ(after->num_clusters(), never->num_clusters());
    EXPECT_EQ(full->summary().duplicates, fresh->summary().duplicates);
    for (DocId id : gone) {
      EXPECT_TRUE(after->removed(id));
      EXPECT_EQ(after->cluster_of(id), Clustering::kNoCluster);
    }
  }
}

TEST(DeduperTest, OutputDoesNotDependOnTheThreadCount) {
  const auto& docs = SynthDocs();
  std::vector<const Document*> ptrs;
  for (const Document& d : docs) ptrs.push_back(&d);
  for (const char* method : {"broder", "robust", "paragraphs"}) {
    SCOPED_TRACE(method);
    auto one = MakeDeduper(method);
    ASSERT_TRUE(one->Add(std::span<const Document>(docs)).ok());
    auto executor = NewThreadPoolExecutor(2);
    auto two = MakeDeduper(method, executor.get());
    ASSERT_TRUE(two->Add(std::span<const Document>(docs)).ok());
    auto a = one->Cluster();
    auto b = two->Cluster();
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_GT(a->num_clusters(), 0u);
    EXPECT_TRUE(Rows(*a, ptrs) == Rows(*b, ptrs));
  }
}

// An aggregator that copies one page of each of many sites is not their
// mirror: the sites keep their own templates, and the only change its
// copies make is to join their originals' clusters. Joined into one site
// group through it, no site would hold the share of the group's pages its
// template needs to be learned, and the items of a template whose long
// paragraphs read as main text would all read as one text.
TEST(DeduperTest, AnAggregatorOfOnePageASiteJoinsNoSites) {
  std::mt19937_64 rng(11);
  auto words = [&](int n) {  // of letters only: numbers are volatile terms
    std::string w;
    for (int i = 0; i < n; ++i) {
      for (int k = 0, len = 3 + static_cast<int>(rng() % 6); k < len; ++k) w += static_cast<char>('a' + rng() % 26);
      w += ' ';
    }
    return w;
  };
  constexpr int kSites = 30, kPages = 8;
  std::vector<Document> docs;
  for (int site = 0; site < kSites; ++site) {
    const std::string about = "<p>" + words(200) + "</p><p>" + words(200) + "</p>";
    const std::string nav = "<ul><li>" + words(4) + "</li><li>" + words(4) + "</li></ul>";
    for (int page = 0; page < kPages; ++page) {
      Document d;
      d.url = d.source = "http://www.site" + std::to_string(site) + ".com/story/" + std::to_string(page) + ".html";
      d.body = "<html><body>" + nav + "<h1>" + words(6) + "</h1><p>" + words(10) + "</p>" + about + "</body></html>";
      docs.push_back(d);
    }
  }
  std::vector<Document> with_copies = docs;
  std::vector<size_t> copied;
  for (int site = 0; site < kSites; ++site) {
    Document copy = docs[static_cast<size_t>(site) * kPages + site % kPages];
    copy.url = copy.source = "http://www.daily-digest-aggregator.com/item/" + std::to_string(site);
    with_copies.push_back(copy);
    copied.push_back(static_cast<size_t>(site) * kPages + site % kPages);
  }
  auto alone = MakeDeduper("robust");
  auto joined = MakeDeduper("robust");
  ASSERT_TRUE(alone->Add(std::span<const Document>(docs)).ok());
  ASSERT_TRUE(joined->Add(std::span<const Document>(with_copies)).ok());
  auto a = alone->Cluster();
  auto b = joined->Cluster();
  ASSERT_TRUE(a.ok() && b.ok());
  size_t merged_alone = 0, merged_joined = 0;
  for (DocId i = 0; i < docs.size(); ++i) {
    for (DocId j = i + 1; j < docs.size(); ++j) {
      merged_alone += a->cluster_of(i) == a->cluster_of(j);
      merged_joined += b->cluster_of(i) == b->cluster_of(j);
    }
  }
  EXPECT_EQ(merged_alone, 0u) << "two stories of one site merged, without the aggregator";
  EXPECT_EQ(merged_joined, 0u) << "two stories of one site merged beside the aggregator's copies";
  for (size_t k = 0; k < copied.size(); ++k) {
    EXPECT_EQ(b->cluster_of(docs.size() + k), b->cluster_of(copied[k])) << with_copies[docs.size() + k].url;
  }
}

// An executor whose worker is always busy: it runs the tasks it was given
// only when Release() is called.
class HeldExecutor final : public Executor {
 public:
  void Schedule(std::function<void()> task) override { held_.push_back(std::move(task)); }
  int num_threads() const override { return 1; }
  size_t held() const { return held_.size(); }
  void Release() {
    for (auto& task : held_) task();
    held_.clear();
  }

 private:
  std::vector<std::function<void()>> held_;
};

// The calling thread is one of a run's threads: it signs the batches no
// worker started rather than wait for them, and a worker that gets to such
// a batch later leaves it alone (the batch may be gone by then).
TEST(DeduperTest, TheCallingThreadSignsWhatNoWorkerStarted) {
  const auto& docs = SynthDocs();
  const std::vector<const Document*> ptrs = Pointers(docs);
  const auto expected = RowsOnOneThread(docs);
  ASSERT_FALSE(expected.empty());

  HeldExecutor held;
  auto with_span = MakeDeduper("robust", &held);
  ASSERT_TRUE(with_span->Add(std::span<const Document>(docs)).ok());  // would wait forever for the worker
  EXPECT_GT(held.held(), 1u);
  held.Release();  // the tasks find their batches taken
  auto got = with_span->Cluster();
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(expected == Rows(*got, ptrs));

  auto with_source = MakeDeduper("robust", &held);
  auto source = OpenDocumentSource({testing::RepoTestDataDir() + "/sample/sample-crawl.warc.gz"});
  ASSERT_TRUE(source.ok());
  ASSERT_TRUE(with_source->AddFrom(source->get()).ok());
  EXPECT_EQ(with_source->size(), SampleDocs().size());
  EXPECT_GT(held.held(), 1u);
  held.Release();
  auto b = with_source->Cluster();
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(RowsOnOneThread(SampleDocs()) == Rows(*b, Pointers(SampleDocs())));
}

// Documents from memory, in order.
class VectorSource final : public DocumentSource {
 public:
  explicit VectorSource(const std::vector<Document>& docs) : docs_(docs) {}
  bool Next(Document* doc) override {
    if (next_ == docs_.size()) return false;
    *doc = docs_[next_++];
    return true;
  }
  const ReadStats& stats() const override { return stats_; }
  uint64_t bytes_consumed() const override { return 0; }
  uint64_t bytes_total() const override { return 0; }

 private:
  const std::vector<Document>& docs_;
  size_t next_ = 0;
  ReadStats stats_;
};

// A worker and the calling thread share a batch's documents, and while a
// worker signs a long page the calling thread reads on into more batches:
// the pages still get their ids in input order and the same signatures.
TEST(DeduperTest, AddFromKeepsInputOrderAroundALongPage) {
  std::vector<Document> docs = SynthDocs();
  Document long_page = docs[0];
  long_page.url = "http://long.example.org/manual.html";
  long_page.body.clear();
  for (size_t i = 0; i < 60; ++i) long_page.body += docs[i % docs.size()].body;
  ASSERT_GT(long_page.body.size(), 1u << 20);
  docs.insert(docs.begin() + 5, long_page);
  long_page.url = "http://mirror.example.net/manual.html";  // an exact copy: a cluster of two
  docs.insert(docs.begin() + docs.size() / 2, long_page);
  const std::vector<const Document*> ptrs = Pointers(docs);
  const auto expected = RowsOnOneThread(docs);
  const std::string long_key = docs[5].url + "#" + std::to_string(docs[5].source_offset);
  ASSERT_EQ(expected.count(long_key), 1u);
  EXPECT_EQ(expected.at(long_key).cluster.size(), 2u);

  for (int threads : {1, 3}) {
    for (uint32_t batch : {1u, 4u, 32u}) {
      SCOPED_TRACE(std::to_string(threads) + " workers, batches of " + std::to_string(batch));
      auto executor = NewThreadPoolExecutor(threads);
      DedupOptions o;
      o.method = "robust";
      o.temp_dir = testing::MakeTempDir("deduper");
      o.batch_documents = batch;
      o.in_flight_per_thread = 1;
      auto d = Deduper::Create(o, executor.get());
      ASSERT_TRUE(d.ok()) << d.status().ToString();
      VectorSource source(docs);
      std::vector<std::string> seen;
      ASSERT_TRUE((*d)->AddFrom(&source, [&](DocId id, const Document& doc) {
                       EXPECT_EQ(id, seen.size());
                       seen.push_back(doc.url);
                       return Status::OK();
                     }).ok());
      ASSERT_EQ(seen.size(), docs.size());
      for (size_t i = 0; i < docs.size(); ++i) ASSERT_EQ(seen[i], docs[i].url) << i;
      auto got = (*d)->Cluster();
      ASSERT_TRUE(got.ok());
      EXPECT_TRUE(expected == Rows(*got, ptrs));
    }
  }
}

TEST(DeduperTest, ClusterIdsAreStableAcrossCalls) {
  const auto& docs = SampleDocs();
  auto d = MakeDeduper("robust");
  const size_t half = docs.size() / 2;
  ASSERT_TRUE(d->Add(std::span<const Document>(docs).first(half)).ok());
  auto first = d->Cluster();
  ASSERT_TRUE(first.ok());
  auto again = d->Cluster();
  ASSERT_TRUE(again.ok());
  for (DocId id = 0; id < half; ++id) EXPECT_EQ(first->cluster_of(id), again->cluster_of(id));
  // More documents: a cluster keeps its id (its smallest member) unless it
  // merged with one holding a smaller id, which a later page cannot bring.
  ASSERT_TRUE(d->Add(std::span<const Document>(docs).subspan(half)).ok());
  auto more = d->Cluster();
  ASSERT_TRUE(more.ok());
  for (DocId id = 0; id < half; ++id) {
    if (first->cluster_size(id) >= 2) {
      EXPECT_EQ(more->cluster_of(id), first->cluster_of(id)) << id;
    }
    EXPECT_LE(more->cluster_of(id), id);
  }
  EXPECT_GT(more->num_clusters(), 0u);
}

TEST(DeduperTest, KeeperIsAMemberAndRolesAgree) {
  const auto& docs = SynthDocs();
  auto d = MakeDeduper("robust");
  ASSERT_TRUE(d->Add(std::span<const Document>(docs)).ok());
  auto c = d->Cluster();
  ASSERT_TRUE(c.ok());
  uint64_t keeps = 0;
  for (DocId id = 0; id < docs.size(); ++id) {
    const DocId k = c->keeper_of(id);
    EXPECT_EQ(c->cluster_of(k), c->cluster_of(id));
    EXPECT_EQ(c->role_of(k), c->cluster_size(id) >= 2 ? DocRole::kKeep : DocRole::kSingle);
    keeps += c->role_of(id) == DocRole::kKeep;
    if (c->role_of(id) == DocRole::kDuplicate) {
      EXPECT_NE(std::string(c->method_of(id)), "single");
    }
  }
  EXPECT_EQ(keeps, c->num_clusters());
}

TEST(DeduperTest, BatchOnlyMethodsClusterButDoNotRemove) {
  for (const char* method : {"paragraphs", "chunks"}) {
    SCOPED_TRACE(method);
    auto d = MakeDeduper(method);
    ASSERT_TRUE(d->Add(std::span<const Document>(SynthDocs())).ok());
    EXPECT_EQ(d->Remove(0).code(), Status::Code::kNotSupported);
    auto c = d->Cluster();
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    EXPECT_GT(c->num_clusters(), 0u);
    auto again = d->Cluster();  // the same clustering
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->num_clusters(), c->num_clusters());
    EXPECT_TRUE(d->Add(SynthDocs()[0]).status().IsFailedPrecondition());
  }
}

// A redirect's body is its server's notice and an empty body holds
// nothing: neither is a copy of another page, however alike the bytes
// (Zhu et al.'s redirection-based duplicates are pages that redirect to
// one another, not notices that look alike). Pages with content of their
// own are matched as before.
// A page read over HTTP: its status, body and Location.
Document HttpPage(std::string url, int status, std::string body, std::string location = "") {
  Document d;
  d.url = std::move(url);
  d.http_status = status;
  d.body = std::move(body);
  d.redirect_target = std::move(location);
  return d;
}

TEST(DeduperTest, RedirectsAndEmptyBodiesAreMatchedByNothing) {
  const std::string notice =
      "<html><head><title>301 Moved Permanently</title></head><body><h1>Moved Permanently</h1>"
      "<p>The document has moved <a href=\"https://www.example.org/\">here</a>.</p><hr>"
      "<address>Apache/2.4.57 (Debian) Server Port 80</address></body></html>";
  std::string story = "<html><body><p>";
  for (int i = 0; i < 60; ++i) story += "The council approved the budget for the new library on Tuesday night. ";
  story += "</p></body></html>";
  const std::vector<Document> docs = {
      HttpPage("http://a.example.com/old", 301, notice, "https://a.example.com/new"),  // 0
      HttpPage("http://b.example.net/gone", 301, notice, "https://b.example.net/"),    // 1: the same notice, bytes too
      HttpPage("http://c.example.org/x", 302, ""),                                     // 2: an empty redirect
      HttpPage("http://d.example.org/y", 200, ""),                                     // 3: an empty body
      HttpPage("http://e.example.org/z", 200, ""),                                     // 4: another
      HttpPage("http://f.example.org/story", 200, story),                              // 5
      HttpPage("http://g.example.org/copy", 200, story),                               // 6: a copy of 5
      HttpPage("http://h.example.org/notice", 200, notice),                            // 7: the notice served as a page
      HttpPage("http://i.example.org/notice", 200, notice),                            // 8: and again
  };
  for (const char* method : kMethods) {
    SCOPED_TRACE(method);
    auto d = MakeDeduper(method);
    ASSERT_TRUE(d->Add(std::span<const Document>(docs)).ok());
    auto c = d->Cluster();
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    for (DocId id : {0, 1, 2, 3, 4}) {
      EXPECT_EQ(c->role_of(id), DocRole::kSingle) << id;
      EXPECT_EQ(c->keeper_of(id), id);
    }
    EXPECT_EQ(d->summary().documents_without_content, 5u);
    // Pages with content of their own: the bytes match, whatever the method.
    EXPECT_EQ(c->cluster_of(5), c->cluster_of(6));
    EXPECT_EQ(c->cluster_of(7), c->cluster_of(8));
    EXPECT_NE(c->cluster_of(5), c->cluster_of(7));
    if (std::string(method) != "paragraphs" && std::string(method) != "chunks") {
      for (auto [a, b] : {std::pair<DocId, DocId>{0, 1}, {3, 4}, {0, 7}}) {
        auto e = d->Explain(a, b);
        ASSERT_TRUE(e.ok()) << e.status().ToString();
        EXPECT_FALSE(e->duplicate);
        EXPECT_NE(e->reason.find("no content of its own"), std::string::npos) << e->reason;
      }
    }
  }
}

// Zhu et al.'s redirection-based duplicates: a redirect is in the cluster of
// the page its chain of redirects ends at, never its kept page.
TEST(DeduperTest, RedirectsJoinTheClusterOfThePageTheirChainEndsAt) {
  std::string story = "<html><body><p>";
  for (int i = 0; i < 60; ++i) story += "The council approved the budget for the new library on Tuesday night. ";
  story += "</p></body></html>";
  std::string other = "<html><body><p>";
  for (int i = 0; i < 60; ++i) other += "A storm closed the mountain pass for two days and stranded hikers. ";
  other += "</p></body></html>";
  const std::vector<Document> docs = {
      HttpPage("https://news.example/story", 200, story),                       // 0
      HttpPage("https://copy.example/story", 200, story),                       // 1: a copy of 0
      HttpPage("http://n.example/s", 301, "", "https://news.example/story"),    // 2: to 0
      HttpPage("http://n.example/t", 302, "", "s"),                             // 3: to 2, relative
      HttpPage("https://weather.example/pass", 200, other),                     // 4: alone
      HttpPage("http://w.example/p", 301, "", "https://weather.example/pass"),  // 5: to 4
      HttpPage("http://x.example/a", 301, "", "http://x.example/b"),            // 6: a loop
      HttpPage("http://x.example/b", 301, "", "http://x.example/a"),            // 7
      HttpPage("http://y.example/gone", 301, "", "http://y.example/404"),       // 8: to an error page
      HttpPage("http://y.example/404", 404, "<p>Not Found</p>"),                // 9
      HttpPage("http://z.example/out", 301, "", "https://elsewhere.example/"),  // 10: not in the run
  };
  // The keeper rules would prefer the redirects' shorter URLs: the content
  // is kept all the same.
  for (const char* keeper : {"status,static-url,shorter-url,url-hash,input-order", "shorter-url,input-order"}) {
    for (const char* method : kMethods) {
      SCOPED_TRACE(std::string(method) + " " + keeper);
      DedupOptions o;
      o.method = method;
      o.keeper = keeper;
      o.temp_dir = testing::MakeTempDir("deduper");
      auto created = Deduper::Create(o);
      ASSERT_TRUE(created.ok()) << created.status().ToString();
      auto& d = *created;
      ASSERT_TRUE(d->Add(std::span<const Document>(docs)).ok());
      auto c = d->Cluster();
      ASSERT_TRUE(c.ok()) << c.status().ToString();
      const DocId kept = c->keeper_of(0);
      EXPECT_TRUE(kept == 0 || kept == 1) << kept;
      for (DocId id : {1, 2, 3}) EXPECT_EQ(c->keeper_of(id), kept) << id;
      EXPECT_EQ(c->cluster_size(0), 4u);
      for (DocId id : {2, 3}) {
        EXPECT_EQ(c->role_of(id), DocRole::kDuplicate);
        EXPECT_STREQ(c->method_of(id), "redirect");
        EXPECT_EQ(c->similarity_of(id), 1.0);
      }
      EXPECT_STREQ(c->method_of(kept), "exact");
      // A page alone but for a redirect to it: kept for it.
      EXPECT_EQ(c->keeper_of(5), 4u);
      EXPECT_EQ(c->role_of(4), DocRole::kKeep);
      EXPECT_STREQ(c->method_of(4), "redirect");
      EXPECT_EQ(c->keeper_reason_of(4), "redirect-target");
      EXPECT_EQ(c->keeper_reason_of(5), "redirect-target");
      for (DocId id : {6, 7, 8, 9, 10}) EXPECT_EQ(c->role_of(id), DocRole::kSingle) << id;
      EXPECT_EQ(d->summary().redirects, 7u);
      EXPECT_EQ(d->summary().redirects_joined, 3u);
      EXPECT_EQ(d->summary().redirect_cycles, 2u);
      EXPECT_EQ(d->summary().clusters, 2u);
      EXPECT_EQ(d->summary().documents_in_clusters, 6u);
      // The page a redirect names leaves: the redirect is alone again, and
      // the chain through it ends at nothing (batch-only methods cluster once).
      if (std::string(method) == "paragraphs" || std::string(method) == "chunks") continue;
      ASSERT_TRUE(d->Remove(4).ok());
      ASSERT_TRUE(d->Remove(0).ok());
      c = d->Cluster();
      ASSERT_TRUE(c.ok()) << c.status().ToString();
      EXPECT_EQ(c->role_of(5), DocRole::kSingle);
      for (DocId id : {2, 3}) EXPECT_EQ(c->role_of(id), DocRole::kSingle) << id;
      EXPECT_EQ(c->role_of(1), DocRole::kSingle);
      EXPECT_EQ(d->summary().redirects, 7u);
      EXPECT_EQ(d->summary().redirects_joined, 0u);
    }
  }
}

Document Capture(std::string url, std::string date, std::string body) {
  Document d = HttpPage(std::move(url), 200, std::move(body));
  d.fetch_date = std::move(date);
  return d;
}

Document Revisit(std::string url, std::string date, std::string of, std::string of_date) {
  Document d = HttpPage(std::move(url), 200, "");
  d.fetch_date = std::move(date);
  d.revisit_of = std::move(of);
  d.revisit_of_date = std::move(of_date);
  return d;
}

TEST(DeduperTest, RevisitsJoinTheClusterOfTheCaptureTheyName) {
  auto text = [](const char* sentence) {
    std::string page = "<html><body><p>";
    for (int i = 0; i < 60; ++i) page += sentence;
    return page + "</p></body></html>";
  };
  const std::string v1 = text("The council approved the budget for the new library on Tuesday night. ");
  const std::string v2 = text("A storm closed the mountain pass for two days and stranded the hikers. ");
  const std::vector<Document> docs = {
      Capture("https://a.example/p", "2024-01-01T00:00:00Z", v1),  // 0: the page, first version
      Capture("https://a.example/p", "2024-02-01T00:00:00Z", v2),  // 1: changed
      Revisit("https://a.example/p", "2024-03-01T00:00:00Z", "https://a.example/p",
              "2024-02-01T00:00:00Z"),                                                  // 2: of 1, by its date
      Revisit("https://a.example/p", "2024-04-01T00:00:00Z", "https://a.example/p", ""),  // 3: no date: the first
      Revisit("https://a.example/p", "2024-05-01T00:00:00Z", "https://a.example/p",
              "2023-06-01T00:00:00Z"),                                                  // 4: not in the run
      Revisit("https://b.example/q", "2024-05-01T00:00:00Z", "https://b.example/q", ""),  // 5: nothing at its URL
      Capture("https://c.example/r", "2024-01-01T00:00:00Z", v1),  // 6: a copy of 0 elsewhere
  };
  for (const char* method : kMethods) {
    SCOPED_TRACE(method);
    auto d = MakeDeduper(method);
    ASSERT_TRUE(d->Add(std::span<const Document>(docs)).ok());
    auto c = d->Cluster();
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    // The revisit with a date joins the capture of that date, not the first.
    EXPECT_EQ(c->keeper_of(2), 1u);
    EXPECT_STREQ(c->method_of(2), "revisit");
    EXPECT_EQ(c->similarity_of(2), 1.0);
    EXPECT_EQ(c->role_of(1), DocRole::kKeep);
    EXPECT_STREQ(c->method_of(1), "revisit");
    EXPECT_EQ(c->keeper_reason_of(1), "revisited");
    // Without a date it joins the URL's earliest capture, whose cluster
    // holds the copy too: kept by the keeper rules, not for the revisit.
    const DocId kept = c->keeper_of(0);
    EXPECT_TRUE(kept == 0 || kept == 6) << kept;
    EXPECT_EQ(c->keeper_of(6), kept);
    EXPECT_EQ(c->keeper_of(3), kept);
    EXPECT_STREQ(c->method_of(3), "revisit");
    EXPECT_STREQ(c->method_of(kept), "exact");
    EXPECT_NE(c->keeper_reason_of(kept), "revisited");
    for (DocId id : {4, 5}) EXPECT_EQ(c->role_of(id), DocRole::kSingle) << id;
    EXPECT_EQ(d->summary().revisits, 4u);
    EXPECT_EQ(d->summary().revisits_joined, 2u);
    EXPECT_EQ(d->summary().redirects, 0u);
    EXPECT_EQ(d->summary().redirect_cycles, 0u);
    EXPECT_EQ(d->summary().clusters, 2u);
    EXPECT_EQ(d->summary().documents_in_clusters, 5u);
    if (std::string(method) == "paragraphs" || std::string(method) == "chunks") continue;  // no Explain
    auto why = d->Explain(2, 1);
    ASSERT_TRUE(why.ok()) << why.status().ToString();
    EXPECT_FALSE(why->duplicate);
    EXPECT_NE(why->reason.find("revisit"), std::string::npos) << why->reason;
  }
}

TEST(DeduperTest, BadOptionsAreRejectedAtCreate) {
  DedupOptions o;
  o.method = "minhash";
  auto d = Deduper::Create(o);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("valid methods: exact, broder"), std::string::npos) << d.status().ToString();
}

TEST(MethodFactoryTest, EverySpecRoundTrips) {
  std::vector<std::string> specs;
  for (const std::string& name : MethodNames()) specs.push_back(name);
  for (const char* s : {"broder:k=8,no-wrap,m=84,l=14,family=rabin,seed=7,level=virtually-identical",
                        "simhash:b=64,t=61,seed=9", "robust:k=4,m=60,r=4,template=3,template-fraction=0.1,content=0.35,no-template=0.7,"
                        "edit=12,same-site-edit=6,no-numbers,no-own-url,seed=5",
                        "paragraphs:sentences=2,min-chars=100,min-shared=70", "chunks:words:20,T=5,sort",
                        "chunks:sentences,T=3,coarse,h=3,seed=11",
                        "combined:broder:k=5,wrap,m=84,l=14,family=fast,seed=3,level=very-similar;"
                        "simhash:b=128,t=120,seed=3,same-site-t=110"}) {
    specs.push_back(s);
  }
  for (const std::string& spec : specs) {
    SCOPED_TRACE(spec);
    auto m = NewMethod(spec);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    auto again = NewMethod((*m)->Spec());
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    EXPECT_EQ((*again)->Spec(), (*m)->Spec());
    if (spec.find(':') != std::string::npos) {
      EXPECT_EQ((*m)->Spec(), spec);
    }
    EXPECT_EQ((*m)->name(), spec.substr(0, spec.find(':')));
    if (spec.starts_with("robust")) {  // the options alone, as compare takes them
      auto o = RobustMethodOptions::Parse(spec);
      ASSERT_TRUE(o.ok()) << o.status().ToString();
      EXPECT_EQ(o->Spec(), (*m)->Spec());
    }
  }
  EXPECT_FALSE(RobustMethodOptions::Parse("robust:bogus=1").ok());
  EXPECT_FALSE(RobustMethodOptions::Parse("broder:k=5").ok());
  EXPECT_FALSE(RobustMethodOptions::Parse("robust:template-fraction=2").ok());
}

TEST(MethodFactoryTest, BadSpecsListTheValidChoices) {
  auto unknown = NewMethod("shingles:k=5");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("exact, broder, simhash, combined, robust, paragraphs, chunks"),
            std::string::npos);
  auto key = NewMethod("broder:q=1");
  ASSERT_FALSE(key.ok());
  EXPECT_NE(key.status().message().find("valid keys: k=N"), std::string::npos) << key.status().ToString();
  auto value = NewMethod("simhash:b=100");
  ASSERT_FALSE(value.ok());
  EXPECT_TRUE(value.status().IsInvalidArgument());
}

TEST(MethodTest, CompareDecidesLikeTheBatchStage) {
  // A page and its copy with one sentence added are near duplicates under
  // every near method; two unrelated pages are not.
  const auto& docs = SampleDocs();
  Document a = docs[0], b = docs[0], other = docs[5];
  b.body.insert(b.body.find("</body>") == std::string::npos ? b.body.size() : b.body.find("</body>"),
                "<p>One more line added at the end of the page.</p>");
  b.url += "?copy";
  for (const char* method : {"broder", "simhash", "combined", "robust"}) {
    SCOPED_TRACE(method);
    auto m = NewMethod(method);
    ASSERT_TRUE(m.ok());
    const Signature sa = (*m)->Sign(a), sb = (*m)->Sign(b), so = (*m)->Sign(other);
    ASSERT_TRUE(sa.eligible && sb.eligible);
    const PairDecision near = (*m)->Compare(sa, sb);
    EXPECT_TRUE(near.duplicate) << near.reason;
    EXPECT_GT(near.similarity, 0.5);
    EXPECT_FALSE(near.reason.empty());
    const PairDecision far = (*m)->Compare(sa, so);
    EXPECT_FALSE(far.duplicate) << far.reason;
    // The candidate index finds the pair and forgets a removed page.
    auto index = (*m)->NewIndex();
    ASSERT_NE(index, nullptr);
    index->Insert(0, sa);
    index->Insert(1, so);
    std::vector<uint64_t> found;
    index->Query(sb, &found);
    EXPECT_NE(std::find(found.begin(), found.end(), 0u), found.end());
    ASSERT_TRUE(index->Remove(0).ok());
    found.clear();
    index->Query(sb, &found);
    EXPECT_EQ(std::find(found.begin(), found.end(), 0u), found.end());
    EXPECT_TRUE(index->Remove(0).IsNotFound());
    EXPECT_EQ(index->size(), 1u);
  }
}

}  // namespace
}  // namespace neardup

namespace neardup {
namespace {

// The sample crawl's two Lifehacker captures (with and without the
// comments) are the two pages of their site and one text: compare says the
// site learned no template from them and decides as dedup does; a pair of a
// site with more pages has its template known and is no such site.
TEST(CompareVerdictsTest, TwoPagesAloneOnASiteAreOneTextAsDedupSays) {
  const std::string crawl = testing::RepoTestDataDir() + "/sample/sample-crawl.warc.gz";
  auto c = ComparePages("https://lifehacker.com/post?comments=load", "https://lifehacker.com/post", DedupOptions(),
                        nullptr, {crawl});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->robust.same_host);
  EXPECT_EQ(c->robust.host_pages, 2u);
  EXPECT_TRUE(c->robust.one_text_site);
  EXPECT_EQ(c->robust.template_shared, 0u);  // no boilerplate: the pages compared whole
  EXPECT_TRUE(c->robust.similar) << c->robust.why;
  EXPECT_TRUE(c->robust.same_cluster);
  auto other = ComparePages("https://goose.example/articlebody/attribute", "https://goose.example/articlebody/tag",
                            DedupOptions(), nullptr, {crawl});
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  EXPECT_GT(other->robust.host_pages, 2u);
  EXPECT_FALSE(other->robust.one_text_site);
}

// Two pages alone on their site whose template holds most of their text
// in long blocks that read as main text (a home page and one article): as
// alike as an article and its revision, but their titles name two items,
// so compare says the site learned its template from them and dedup keeps
// them apart; without titles (`no-titles`) they are one text and one
// cluster.
TEST(CompareVerdictsTest, TwoItemsAloneOnASiteAreToldApartByTheirTitles) {
  std::mt19937_64 rng(11);
  auto words = [&](int n) {  // letters only: terms with digits are one class
    std::string w;
    for (int i = 0; i < n; ++i) {
      if (i) w += ' ';
      for (uint64_t x = rng() % 200000 + 26 * 26; x > 0; x /= 26) w += static_cast<char>('a' + x % 26);
    }
    return w;
  };
  std::string blocks;
  for (int i = 0; i < 30; ++i) blocks += "<div>" + words(30) + "</div>";
  auto page = [&](const std::string& url, const std::string& title) {
    const std::string html = "<html><head><title>" + title + " | Tiny Site</title></head><body>" + blocks + "<p>" +
                             words(25) + "</p><p>" + words(25) + "</p></body></html>";
    return "{\"url\": \"" + url + "\", \"html\": \"" + html + "\"}\n";
  };
  const std::string dir = testing::MakeTempDir("two-titles");
  const std::string crawl = dir + "/crawl.jsonl";
  const std::string a = "http://www.tiny-site.example/", b = "http://www.tiny-site.example/reviews/tool-box";
  testing::WriteFileOrDie(crawl, page(a, "Coroner confirms two victims of the shooting") +
                                     page(b, "Old tool box holds rare coins"));
  auto c = ComparePages(a, b, DedupOptions(), nullptr, {crawl});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->robust.host_pages, 2u);
  EXPECT_TRUE(c->robust.titles_name_two_items);
  EXPECT_TRUE(c->robust.two_titles_site);
  EXPECT_FALSE(c->robust.one_text_site);
  EXPECT_FALSE(c->robust.similar) << c->robust.why;
  EXPECT_FALSE(c->robust.same_cluster);
  DedupOptions off;
  off.robust.compare_titles = false;
  auto joined = ComparePages(a, b, off, nullptr, {crawl});
  ASSERT_TRUE(joined.ok()) << joined.status().ToString();
  EXPECT_TRUE(joined->robust.one_text_site);
  EXPECT_FALSE(joined->robust.two_titles_site);
  EXPECT_TRUE(joined->robust.similar) << joined->robust.why;
  EXPECT_TRUE(joined->robust.same_cluster);
  EXPECT_FALSE(c->robust.titles_name_two_numbers);
  // Two records of a database, titled by their numbers: "record" is in
  // both titles' own parts, so only the numbers tell them apart
  // (title_numbers); without them the two are one text.
  const std::string records = dir + "/records.jsonl";
  testing::WriteFileOrDie(records, page(a, "home record 173815") + page(b, "people record 173816"));
  auto numbered = ComparePages(a, b, DedupOptions(), nullptr, {records});
  ASSERT_TRUE(numbered.ok()) << numbered.status().ToString();
  EXPECT_TRUE(numbered->robust.titles_name_two_numbers);
  EXPECT_TRUE(numbered->robust.two_titles_site);
  EXPECT_FALSE(numbered->robust.same_cluster);
  DedupOptions words_only;
  words_only.robust.title_numbers = false;
  auto unnumbered = ComparePages(a, b, words_only, nullptr, {records});
  ASSERT_TRUE(unnumbered.ok()) << unnumbered.status().ToString();
  EXPECT_FALSE(unnumbered->robust.titles_name_two_items);
  EXPECT_TRUE(unnumbered->robust.one_text_site);
  EXPECT_TRUE(unnumbered->robust.same_cluster);
  std::filesystem::remove_all(dir);
}

// Saved pages of one blog, read as files (no host of their own): each
// names its URL in a canonical link, so they are one site and its template
// is learned; different posts are not merged even where the template's
// long blocks read as main text, and a second capture of one post is.
std::string SavedBlogPost(int post, const std::string& words, bool canonical, const std::string& date) {
  std::string html = "<html><head><title>Post " + std::to_string(post) + " - The Garden Log</title>";
  if (canonical) html += "<link rel='canonical' href='https://www.garden-log.example/posts/" + std::to_string(post) + "'>";
  html += "</head><body><nav><a href='/'>Home</a> <a href='/about'>About</a></nav>";
  html += "<p>The Garden Log is written by a small group of allotment holders who share what grows, what fails and "
          "what the slugs ate this week, with notes on soil, seed varieties, compost heaps and the weather that "
          "ruled each season in our corner of the valley since the first plots were dug.</p>";
  html += "<p>" + date + "</p><article><p>" + words + "</p></article>";
  html += "<p>Comments are moderated by the editors before they appear; please keep them on the subject of the post, "
          "be kind to beginners, and do not post advertising, links to shops or personal details of other readers, "
          "which will be removed without notice by the volunteers who keep this site running.</p>";
  html += "<footer><p>All photographs and text on this site are the work of the contributors and may be shared for "
          "non commercial use with credit to the author and a link back to the original post on the Garden Log, "
          "as described on our licence page, together with the date of the post you quote.</p></footer>";
  return html + "</body></html>";
}

TEST(DeduperTest, SavedPagesTakeTheirSiteFromTheirCanonicalLink) {
  std::mt19937_64 rng(5);
  const char* vocabulary[] = {"tomato", "blight", "bean", "trellis", "leek", "frost", "mulch", "onion", "carrot",
                              "fly", "netting", "squash", "pumpkin", "rhubarb", "forcing", "jar", "potato",
                              "earthing", "up", "pea", "stick", "sowing", "indoors", "kale", "caterpillar", "water",
                              "butt", "rain", "drought", "hose", "spade", "fork", "barrow", "hedge", "pruning"};
  auto post_words = [&](int n) {
    std::string w;
    for (int i = 0; i < n; ++i) w += std::string(vocabulary[rng() % std::size(vocabulary)]) + " ";
    return w;
  };
  for (bool canonical : {true, false}) {
    std::vector<Document> docs;
    std::string third;
    for (int post = 0; post < 8; ++post) {
      Document d;
      d.url = d.source = "saved/post-" + std::to_string(post) + ".html";
      const std::string words = post_words(30);
      if (post == 3) third = words;
      d.body = SavedBlogPost(post, words, canonical, "Posted on 3 May 2021");
      docs.push_back(d);
    }
    Document again;  // the third post captured again, its date line changed
    again.url = again.source = "saved/post-3-again.html";
    again.body = SavedBlogPost(3, third, canonical, "Posted on 4 May 2021");
    docs.push_back(again);
    auto deduper = MakeDeduper("robust");
    ASSERT_TRUE(deduper->Add(std::span<const Document>(docs)).ok());
    auto clustering = deduper->Cluster();
    ASSERT_TRUE(clustering.ok()) << clustering.status().ToString();
    if (canonical) {
      EXPECT_EQ(clustering->cluster_of(3), clustering->cluster_of(8)) << "a post captured twice";
      std::set<uint64_t> clusters;
      for (DocId id = 0; id < 8; ++id) clusters.insert(clustering->cluster_of(id));
      EXPECT_EQ(clusters.size(), 8u) << "different posts of one site merged";
      auto c = CompareDocuments(docs[0], docs[1], DedupOptions());
      ASSERT_TRUE(c.ok()) << c.status().ToString();
      EXPECT_TRUE(c->robust.same_host);
      // compare over the saved folder finds the site's pages by their links
      // and explains what dedup made of them.
      const std::string dir = testing::MakeTempDir("saved-blog");
      for (Document& d : docs) {
        d.url = d.source = dir + "/" + std::filesystem::path(d.url).filename().string();
        testing::WriteFileOrDie(d.url, d.body);
      }
      auto apart = ComparePages(docs[0].url, docs[1].url, DedupOptions(), nullptr, {dir});
      ASSERT_TRUE(apart.ok()) << apart.status().ToString();
      EXPECT_TRUE(apart->robust.same_host);
      EXPECT_EQ(apart->robust.host_pages, docs.size());
      EXPECT_FALSE(apart->robust.same_cluster);
      auto together = ComparePages(docs[3].url, docs[8].url, DedupOptions(), nullptr, {dir});
      ASSERT_TRUE(together.ok()) << together.status().ToString();
      EXPECT_TRUE(together->robust.same_cluster);
    } else {
      // Without the link each file is a site of its own, and the pages are
      // compared as pages of different sites (the case the link resolves).
      auto c = CompareDocuments(docs[0], docs[1], DedupOptions());
      ASSERT_TRUE(c.ok()) << c.status().ToString();
      EXPECT_FALSE(c->robust.same_host);
    }
  }
}

TEST(CompareVerdictsTest, EveryMethodsRuleIsReported) {
  const auto& docs = SampleDocs();
  const std::string crawl = testing::RepoTestDataDir() + "/sample/sample-crawl.warc.gz";
  DedupOptions options;
  for (size_t j : {size_t{1}, size_t{4}}) {
    auto c = ComparePages(docs[0].url, docs[j].url, options, nullptr, {crawl});
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    ASSERT_EQ(c->verdicts.size(), MethodNames().size());
    for (size_t i = 0; i < c->verdicts.size(); ++i) {
      const Comparison::Verdict& v = c->verdicts[i];
      EXPECT_EQ(v.method, MethodNames()[i]);
      EXPECT_FALSE(v.decision.reason.empty()) << v.method;
      bool expected = v.decision.duplicate;
      if (v.method == "broder") expected = c->b_similarity >= 2;
      if (v.method == "simhash") expected = c->c_similar;
      if (v.method == "robust") expected = c->robust.similar;
      if (v.method == "exact") expected = c->exact_same_bytes || c->exact_same_tokens;
      EXPECT_EQ(v.decision.duplicate, expected) << v.method;
    }
  }
}

}  // namespace
}  // namespace neardup

namespace neardup {
namespace {

// CompareDocuments on documents in memory says what ComparePages says of
// the same pages read from files.
TEST(CompareVerdictsTest, DocumentsInMemoryCompareAsTheirFiles) {
  const auto& docs = SampleDocs();
  const std::string dir = testing::MakeTempDir("compare-documents");
  DedupOptions options;
  for (size_t j : {size_t{1}, size_t{4}}) {
    Document a, b;
    a.url = a.source = dir + "/a.html";
    b.url = b.source = dir + "/b.html";
    a.body = docs[0].body;
    b.body = docs[j].body;
    testing::WriteFileOrDie(a.url, a.body);
    testing::WriteFileOrDie(b.url, b.body);
    auto files = ComparePages(a.url, b.url, options);
    ASSERT_TRUE(files.ok()) << files.status().ToString();
    auto memory = CompareDocuments(a, b, options);
    ASSERT_TRUE(memory.ok()) << memory.status().ToString();
    EXPECT_EQ(memory->a.source, files->a.source);
    EXPECT_EQ(memory->a.terms, files->a.terms);
    EXPECT_EQ(memory->b.charset, files->b.charset);
    EXPECT_EQ(memory->b_similarity, files->b_similarity);
    EXPECT_EQ(memory->c_similarity, files->c_similarity);
    EXPECT_EQ(memory->jaccard, files->jaccard);
    EXPECT_EQ(memory->term_difference, files->term_difference);
    EXPECT_EQ(memory->robust.why, files->robust.why);
    ASSERT_EQ(memory->verdicts.size(), files->verdicts.size());
    for (size_t i = 0; i < files->verdicts.size(); ++i) {
      EXPECT_EQ(memory->verdicts[i].method, files->verdicts[i].method);
      EXPECT_EQ(memory->verdicts[i].decision.duplicate, files->verdicts[i].decision.duplicate);
      EXPECT_EQ(memory->verdicts[i].decision.similarity, files->verdicts[i].decision.similarity);
      EXPECT_EQ(memory->verdicts[i].decision.reason, files->verdicts[i].decision.reason);
    }
  }
  // Runs of terms in a script of several bytes a character are cut at a
  // character boundary.
  Document x, y;
  for (int i = 0; i < 400; ++i) x.body += "\xd9\x85\xd8\xb1\xd8\xad\xd8\xa8\xd8\xa7 ";  // an Arabic word
  y.body = "<p>other</p>" + x.body;
  auto arabic = CompareDocuments(x, y, options);
  ASSERT_TRUE(arabic.ok()) << arabic.status().ToString();
  ASSERT_FALSE(arabic->runs.empty());
  // Whole characters: every lead byte has its continuation bytes.
  auto whole_characters = [](const std::string& t) {
    for (size_t i = 0; i < t.size();) {
      const unsigned char c = static_cast<unsigned char>(t[i]);
      const size_t n = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
      if (i + n > t.size()) return false;
      for (size_t k = 1; k < n; ++k) {
        if ((static_cast<unsigned char>(t[i + k]) & 0xC0) != 0x80) return false;
      }
      i += n;
    }
    return true;
  };
  for (const CompareRun& run : arabic->runs) {
    EXPECT_LE(run.text.size(), 300u);
    EXPECT_TRUE(whole_characters(run.text)) << run.text.size();
  }
  DedupOptions bad;
  bad.method = "no-such-method";
  EXPECT_TRUE(CompareDocuments(Document(), Document(), bad).status().IsInvalidArgument());
}

}  // namespace
}  // namespace neardup

namespace neardup {
namespace {

// The similarity column of a near-duplicate member is the method's
// decision on it against its kept page, as Explain gives it: the Deduper
// takes it from verification's decision of the pair where the kept page is
// still the one verified against (after repair rounds too).
TEST(DeduperExplainTest, SimilarityIsTheDecisionAgainstTheKeptPage) {
  // The golden synth crawl (golden_test.cc): clusters recentered there.
  const std::string dir = testing::MakeTempDir("deduper-similarity-crawl");
  std::string log;
  ASSERT_EQ(testing::RunCommand(testing::Q(testing::CliPath()) + " synth " +
                                    testing::Q(testing::RepoTestDataDir() + "/sample/sample-crawl.warc.gz") +
                                    " --out " + testing::Q(dir + "/crawl.warc.gz") + " --truth " +
                                    testing::Q(dir + "/truth.tsv") + " --sites 40 --seed 3",
                                &log),
            0)
      << log;
  const std::vector<Document> docs = ReadAll(dir + "/crawl.warc.gz");
  for (const char* method : {"robust", "broder", "combined"}) {
    DedupOptions options;
    options.method = method;
    options.temp_dir = testing::MakeTempDir("deduper-similarity");
    auto deduper = Deduper::Create(options);
    ASSERT_TRUE(deduper.ok());
    ASSERT_TRUE((*deduper)->Add(docs).ok());
    auto clustering = (*deduper)->Cluster();
    ASSERT_TRUE(clustering.ok());
    size_t near_members = 0, below_one = 0;
    for (DocId id = 0; id < docs.size(); ++id) {
      const DocId k = clustering->keeper_of(id);
      if (k == id || std::string(clustering->method_of(id)) != method) continue;
      auto d = (*deduper)->Explain(id, k);
      ASSERT_TRUE(d.ok());
      // (A member may stay through its cluster's center, failing the kept page.)
      EXPECT_EQ(clustering->similarity_of(id), d->similarity) << method << " " << docs[id].url;
      ++near_members;
      below_one += d->similarity < 1.0;
    }
    EXPECT_GT(near_members, 10u) << method;
    EXPECT_GT(below_one, 0u) << method;  // not only pages equal after normalization
  }
}

// Explain gives the decision the clustering took on a pair: every pair the
// near stage listed is a near duplicate by it, exact copies are exact, and
// `compare` with the crawl reports that decision and the clusters.
TEST(DeduperExplainTest, ExplainGivesTheDecisionsOfTheClustering) {
  DedupOptions options;
  options.write_pairs = true;
  auto deduper = Deduper::Create(options);
  ASSERT_TRUE(deduper.ok());
  EXPECT_TRUE((*deduper)->Explain(0, 1).status().IsFailedPrecondition());  // before Cluster()
  const auto& docs = SynthDocs();
  ASSERT_TRUE((*deduper)->Add(docs).ok());
  auto clustering = (*deduper)->Cluster();
  ASSERT_TRUE(clustering.ok());
  std::vector<std::pair<DocId, DocId>> listed;
  ASSERT_TRUE((*deduper)
                  ->ForEachPair([&](DocId a, DocId b, std::span<const double>) {
                    listed.emplace_back(a, b);
                    return Status::OK();
                  })
                  .ok());
  ASSERT_GE(listed.size(), 3u);
  for (const auto& [a, b] : listed) {
    auto d = (*deduper)->Explain(a, b);
    ASSERT_TRUE(d.ok());
    EXPECT_TRUE(d->duplicate) << docs[a].url << " " << docs[b].url << ": " << d->reason;
    EXPECT_EQ(clustering->cluster_of(a), clustering->cluster_of(b));
    // A listed pair came out of the candidate tables (or was joined as
    // equal after normalization).
    EXPECT_TRUE(d->candidacy.starts_with("a candidate pair") ||
                d->candidacy.starts_with("equal after normalization"))
        << docs[a].url << " " << docs[b].url << ": " << d->candidacy;
  }
  // Exact copies, and pages of different clusters.
  size_t exact = 0, apart = 0, not_candidates = 0;
  for (DocId id = 1; id < docs.size(); ++id) {
    const DocId k = clustering->keeper_of(id);
    if (k != id && std::string(clustering->method_of(id)) == "exact") {
      auto d = (*deduper)->Explain(id, k);
      ASSERT_TRUE(d.ok());
      EXPECT_TRUE(d->duplicate);
      EXPECT_NE(d->reason.find("exact duplicates"), std::string::npos) << d->reason;
      ++exact;
    }
    if (clustering->cluster_of(id) != clustering->cluster_of(0) && apart < 20) {
      auto d = (*deduper)->Explain(0, id);
      ASSERT_TRUE(d.ok());
      EXPECT_FALSE(d->reason.empty());
      EXPECT_FALSE(d->candidacy.empty());
      not_candidates += d->candidacy.starts_with("not a candidate pair");
      ++apart;
    }
  }
  EXPECT_GT(exact, 0u);
  EXPECT_GT(not_candidates, 0u);  // different pages share no band
  EXPECT_TRUE((*deduper)->Explain(0, static_cast<DocId>(docs.size())).status().IsNotFound());
  // `compare` over the same crawl: the robust view is this decision.
  const std::string dir = testing::MakeTempDir("explain-compare");
  std::string jsonl;
  for (const Document& d : docs) jsonl += testing::JsonLine(d.url, "html", d.body);
  testing::WriteFileOrDie(dir + "/crawl.jsonl", jsonl);
  for (size_t t = 0; t < 3 && t < listed.size(); ++t) {
    const auto [a, b] = listed[t * listed.size() / 3];
    auto c = ComparePages(docs[a].url, docs[b].url, DedupOptions(), nullptr, {dir + "/crawl.jsonl"});
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    const PairDecision d = (*deduper)->Explain(a, b).value();
    EXPECT_TRUE(c->robust.clustered);
    EXPECT_EQ(c->robust.similar, d.duplicate);
    EXPECT_EQ(c->robust.why, d.reason);
    EXPECT_EQ(c->robust.candidacy, d.candidacy);
    EXPECT_TRUE(c->robust.same_cluster);
    EXPECT_EQ(c->robust.kept_a, docs[clustering->keeper_of(a)].url);
    // Verification's decision on each page against its kept page.
    const DocId kept = clustering->keeper_of(a);
    ASSERT_EQ(c->robust.a_with_kept_a.has_value(), kept != a);
    if (kept != a) { EXPECT_EQ(c->robust.a_with_kept_a->reason, (*deduper)->Explain(a, kept)->reason); }
    EXPECT_EQ(c->robust.b_with_kept_b.has_value(), clustering->keeper_of(b) != b);
    EXPECT_FALSE(c->robust.a_with_kept_b.has_value());  // one cluster
  }
  // Pages of two clusters: each against the other's kept page too.
  for (DocId id = 1; id < docs.size(); ++id) {
    if (clustering->cluster_of(id) == clustering->cluster_of(0)) continue;
    auto c = ComparePages(docs[0].url, docs[id].url, DedupOptions(), nullptr, {dir + "/crawl.jsonl"});
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    EXPECT_FALSE(c->robust.same_cluster);
    // The kept pages of compare's run, by URL (read from the file, the
    // pages' fetch dates and charsets may choose other keepers).
    auto id_of = [&](const std::string& url) {
      DocId found = 0;
      while (found < docs.size() && docs[found].url != url) ++found;
      return found;
    };
    const DocId kept_a = id_of(c->robust.kept_a), kept_b = id_of(c->robust.kept_b);
    ASSERT_LT(kept_a, docs.size());
    ASSERT_LT(kept_b, docs.size());
    ASSERT_EQ(c->robust.a_with_kept_b.has_value(), kept_b != id);
    ASSERT_EQ(c->robust.b_with_kept_a.has_value(), kept_a != 0);
    if (kept_b != id) { EXPECT_EQ(c->robust.a_with_kept_b->reason, (*deduper)->Explain(0, kept_b)->reason); }
    if (kept_a != 0) { EXPECT_EQ(c->robust.b_with_kept_a->reason, (*deduper)->Explain(id, kept_a)->reason); }
    break;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace neardup
