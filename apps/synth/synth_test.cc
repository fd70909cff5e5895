// Copyright neardup authors. Licensed under Apache-2.0.
//
// The benchmark builder end to end on the repository's sample crawl: the
// crawl and its truth agree, output is a function of the seed, each kind of
// copy differs from its page only as its kind says, hard negatives share a
// template but no text of their items, paragraphs are never reused.
#include "synth/synth.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "neardup/document.h"
#include "neardup/source.h"
#include "synth/html_edit.h"
#include "synth/slots.h"
#include "test_util.h"
#include "text/tokenizer.h"
#include "text/url.h"

namespace neardup {
namespace {

namespace fs = std::filesystem;
using synth_internal::FoldedWords;
using synth_internal::RemoveParagraphs;
using synth_internal::SplitWords;
using testing::MakeTempDir;
using testing::ReadFileOrEmpty;
using testing::ReadTsvRows;
using testing::RepoTestDataDir;
using testing::WriteFileOrDie;

std::string SampleCrawl() { return RepoTestDataDir() + "/sample/sample-crawl.warc.gz"; }

struct Page {
  std::string url, group, kind, body, content_type;
  int status = 0;
};

struct Crawl {
  SynthSummary summary;
  std::vector<Page> pages;                 // in crawl order
  std::map<std::string, size_t> by_url;    // url -> index
  std::map<std::string, size_t> original;  // group -> index of its original
  std::vector<std::vector<std::string>> truth_rows;
  uint64_t warc_documents = 0;

  const Page& OriginalOf(const Page& p) const { return pages[original.at(p.group)]; }
  std::vector<const Page*> OfKind(const std::string& kind) const {
    std::vector<const Page*> out;
    for (const Page& p : pages) {
      if (p.kind == kind) out.push_back(&p);
    }
    return out;
  }
};

// Builds a crawl and reads it back with the public reader.
Crawl BuildAndRead(const SynthOptions& options) {
  Crawl c;
  auto r = BuildSyntheticCrawl(options, nullptr);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return c;
  c.summary = r.value();
  c.truth_rows = ReadTsvRows(options.out_truth);
  std::map<std::string, std::pair<std::string, std::string>> truth;
  for (size_t i = 1; i < c.truth_rows.size(); ++i) {
    const auto& row = c.truth_rows[i];
    EXPECT_EQ(row.size(), 3u);
    if (row.size() != 3) continue;
    EXPECT_TRUE(truth.emplace(row[0], std::make_pair(row[1], row[2])).second)
        << "repeated url " << row[0];
  }
  auto source = OpenDocumentSource({options.out_warc}, SourceOptions(), nullptr, nullptr);
  EXPECT_TRUE(source.ok());
  if (!source.ok()) return c;
  Document d;
  while (source.value()->Next(&d)) {
    ++c.warc_documents;
    Page p;
    p.url = d.url;
    p.body = d.body;
    p.status = d.http_status;
    p.content_type = d.content_type;
    auto it = truth.find(d.url);
    EXPECT_NE(it, truth.end()) << "crawl page not in the truth: " << d.url;
    if (it == truth.end()) continue;
    p.group = it->second.first;
    p.kind = it->second.second;
    EXPECT_TRUE(c.by_url.emplace(p.url, c.pages.size()).second)
        << "url twice in the crawl: " << p.url;
    if (p.kind == "original") {
      EXPECT_TRUE(c.original.emplace(p.group, c.pages.size()).second) << p.group;
    }
    c.pages.push_back(std::move(p));
  }
  EXPECT_EQ(source.value()->stats().skipped.count("truncated"), 0u);
  return c;
}

// One crawl from the sample, shared by the tests: the first seed whose
// crawl holds every kind of copy (a small pool gives few copies per seed).
class SynthTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(MakeTempDir("synth"));
    crawl_ = new Crawl();
    for (uint64_t seed = 1; seed <= 24; ++seed) {
      SynthOptions o = Options(seed);
      *crawl_ = BuildAndRead(o);
      bool all = true;
      for (const char* k :
           {"original", "session-id", "alias", "markup", "mirror", "sentence-edit", "parked"}) {
        all = all && crawl_->summary.pages_by_kind.count(k) > 0;
      }
      if (all && crawl_->summary.hard_negative_pages > 0) {
        seed_ = seed;
        return;
      }
    }
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
    delete crawl_;
  }
  static SynthOptions Options(uint64_t seed, const std::string& name = "crawl") {
    SynthOptions o;
    o.inputs = {SampleCrawl()};
    o.out_warc = *dir_ + "/" + name + ".warc.gz";
    o.out_truth = *dir_ + "/" + name + ".tsv";
    o.sites = 21;
    o.parked_registrars = 3;
    o.seed = seed;
    return o;
  }
  static std::string* dir_;
  static Crawl* crawl_;
  static uint64_t seed_;
};
std::string* SynthTest::dir_ = nullptr;
Crawl* SynthTest::crawl_ = nullptr;
uint64_t SynthTest::seed_ = 0;

// ---- helpers over pages ---------------------------------------------------

std::string LowerAscii(std::string s) {
  for (char& c : s) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
  return s;
}

// The page without its volatile slots (the <div> elements named in
// synth/slots.h, which markup copies may write in upper case or with more
// classes).
std::string WithoutVolatileSlots(const std::string& html) {
  std::string out = html;
  for (const char* name : synth_internal::kVolatileSlotClasses) {
    const std::string quoted = "class=\"" + std::string(name);
    for (;;) {
      const std::string lower = LowerAscii(out);
      const size_t k = lower.find(quoted);
      if (k == std::string::npos) break;
      const size_t open = lower.rfind("<div", k);
      const size_t close = lower.find("</div>", k);
      if (open == std::string::npos || close == std::string::npos) break;
      out.erase(open, close + 6 - open);
    }
  }
  return out;
}

// The page without its item (the builder writes each paragraph as
// "<p>...</p>\n"), volatile slots and title text: what hard negatives of one
// site share.
std::string TemplateOf(const std::string& html) {
  std::string t = WithoutVolatileSlots(html);
  for (size_t k = t.find("<p>"); k != std::string::npos; k = t.find("<p>", k)) {
    const size_t end = t.find("</p>\n", k);
    if (end == std::string::npos) break;
    t.erase(k, end + 5 - k);
  }
  const std::string lower = LowerAscii(t);
  const size_t open = lower.find('>', lower.find("<title"));
  const size_t close = lower.find("</title");
  if (open != std::string::npos && close != std::string::npos && close > open)
    t.erase(open + 1, close - open - 1);
  return t;
}

// The section of a site path: its first segment ("/news/x-3.html" -> news),
// after /db/ or /cgi-bin/ ("/cgi-bin/places.pl?acc=X" -> places).
std::string SectionOf(std::string path) {
  for (const char* prefix : {"/db/", "/cgi-bin/"}) {
    if (path.rfind(prefix, 0) == 0) path = path.substr(std::string(prefix).size() - 1);
  }
  const size_t end = path.find_first_of("/.?", 1);
  return path.substr(1, end == std::string::npos ? std::string::npos : end - 1);
}

std::vector<std::string> Paragraphs(const std::string& html) {
  return RemoveParagraphs(html).paragraphs;
}

std::vector<std::string> Terms(const std::string& html, const std::string& url) {
  Tokenizer tokenizer;
  TokenizedDocument d;
  tokenizer.Tokenize(html, ContentKind::kHtml, "utf-8", url, &d);
  std::vector<std::string> t;
  for (size_t i = 0; i < d.num_terms(); ++i) t.emplace_back(d.term(i));
  return t;
}

std::string PathAndQuery(const std::string& url) {
  const UrlParts p = SplitUrl(url);
  return std::string(p.path) + (p.has_query ? "?" + std::string(p.query) : "");
}

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t k = s.find(what); k != std::string::npos; k = s.find(what, k + 1)) ++n;
  return n;
}

// ---- tests ------------------------------------------------------------------

TEST_F(SynthTest, CrawlAndTruthAgree) {
  ASSERT_NE(seed_, 0u) << "no seed in 1..24 gives every kind of copy on the sample";
  const Crawl& c = *crawl_;
  const SynthSummary& s = c.summary;
  // Every truth url is in the crawl exactly once, and every crawl page is in the truth.
  ASSERT_FALSE(c.truth_rows.empty());
  EXPECT_EQ(c.truth_rows[0], (std::vector<std::string>{"url", "group", "kind"}));
  EXPECT_EQ(c.truth_rows.size() - 1, c.pages.size());
  EXPECT_EQ(c.warc_documents, c.pages.size());
  EXPECT_EQ(s.pages, c.pages.size());
  std::map<std::string, uint64_t> kinds;
  std::set<std::string> groups;
  for (const Page& p : c.pages) {
    ++kinds[p.kind];
    groups.insert(p.group);
    EXPECT_EQ(p.status, 200) << p.url;
    EXPECT_EQ(p.content_type, "text/html") << p.url;
  }
  EXPECT_EQ(kinds, s.pages_by_kind);
  EXPECT_EQ(groups.size(), s.groups);
  EXPECT_EQ(kinds["original"], s.distinct_pages);
  EXPECT_EQ(kinds["parked"], s.parked_domains);
  // Every site group has its original; parked groups have none.
  for (const Page& p : c.pages) {
    if (p.kind != "parked") {
      EXPECT_EQ(c.original.count(p.group), 1u) << p.group;
    }
  }
  EXPECT_GT(s.pool_pages, 20u);
  EXPECT_GT(s.pool_paragraphs, 100u);
  EXPECT_LE(s.sites, 21u);
  EXPECT_EQ(s.parked_registrars, 3u);
}

TEST_F(SynthTest, SameSeedSameBytesOtherSeedOtherCrawl) {
  ASSERT_NE(seed_, 0u);
  // Same file names (the warcinfo record names them), another folder.
  fs::create_directories(*dir_ + "/again");
  SynthOptions o = Options(seed_, "again/crawl");
  ASSERT_TRUE(BuildSyntheticCrawl(o, nullptr).ok());
  const std::string warc = ReadFileOrEmpty(Options(seed_).out_warc);
  const std::string truth = ReadFileOrEmpty(Options(seed_).out_truth);
  ASSERT_FALSE(warc.empty());
  EXPECT_TRUE(ReadFileOrEmpty(o.out_warc) == warc);
  EXPECT_EQ(ReadFileOrEmpty(o.out_truth), truth);
  fs::create_directories(*dir_ + "/other");
  o = Options(seed_ + 1000, "other/crawl");
  ASSERT_TRUE(BuildSyntheticCrawl(o, nullptr).ok());
  EXPECT_FALSE(ReadFileOrEmpty(o.out_warc) == warc);
  EXPECT_NE(ReadFileOrEmpty(o.out_truth), truth);
}

TEST_F(SynthTest, SessionIdCopiesCarryTheIdInUrlLinksAndForm) {
  const auto copies = crawl_->OfKind("session-id");
  ASSERT_FALSE(copies.empty());
  for (const Page* p : copies) {
    const Page& o = crawl_->OriginalOf(*p);
    EXPECT_EQ(UrlHost(p->url), UrlHost(o.url));
    std::string id;
    for (const char* name : {";jsessionid=", "sid=", "PHPSESSID="}) {
      const size_t k = p->url.find(name);
      if (k != std::string::npos) {
        id = p->url.substr(k + std::string(name).size());
        id = id.substr(0, id.find_first_of("?&#;"));
      }
    }
    ASSERT_GE(id.size(), 26u) << p->url;
    EXPECT_EQ(o.url.find(id), std::string::npos);
    EXPECT_NE(p->body.find("type=\"hidden\""), std::string::npos) << p->url;
    EXPECT_NE(p->body.find("value=\"" + id + "\""), std::string::npos) << p->url;
    Tokenizer tokenizer;
    TokenizedDocument d;
    tokenizer.Tokenize(p->body, ContentKind::kHtml, "utf-8", p->url, &d);
    size_t same_host = 0;
    for (const std::string& link : d.links) {
      if (UrlHost(link) != UrlHost(p->url)) continue;
      ++same_host;
      EXPECT_NE(link.find(id), std::string::npos) << p->url << " links to " << link;
    }
    EXPECT_GT(same_host, 0u) << p->url;
  }
}

TEST_F(SynthTest, MirrorsAreWholeSubtreesOnAnotherHost) {
  const auto copies = crawl_->OfKind("mirror");
  ASSERT_FALSE(copies.empty());
  std::map<std::string, std::set<std::string>> mirrored;  // mirror host -> paths
  std::map<std::string, std::string> site_of;             // mirror host -> site host
  for (const Page* p : copies) {
    const Page& o = crawl_->OriginalOf(*p);
    EXPECT_NE(UrlHost(p->url), UrlHost(o.url));
    EXPECT_EQ(PathAndQuery(p->url), PathAndQuery(o.url));
    mirrored[UrlHost(p->url)].insert(PathAndQuery(p->url));
    site_of[UrlHost(p->url)] = UrlHost(o.url);
    // Links to the site now go to the mirror.
    EXPECT_EQ(p->body.find("//" + UrlHost(o.url) + "/"), std::string::npos) << p->url;
  }
  for (const auto& [mirror, paths] : mirrored) {
    // The originals of the mirrored site: all of them, or all under one section.
    std::set<std::string> all;
    std::map<std::string, std::set<std::string>> by_section;
    for (const Page& o : crawl_->pages) {
      if (o.kind != "original" || UrlHost(o.url) != site_of[mirror]) continue;
      const std::string path = PathAndQuery(o.url);
      all.insert(path);
      if (path != "/") by_section[SectionOf(path)].insert(path);
    }
    bool subtree = paths == all;
    for (const auto& [section, in_section] : by_section) subtree = subtree || paths == in_section;
    EXPECT_TRUE(subtree) << mirror << " mirrors " << paths.size() << " of " << all.size()
                         << " pages";
    EXPECT_GE(paths.size(), 1u);
  }
}

TEST_F(SynthTest, SentenceEditsChangeOneToThreeWordsOfTheItem) {
  const auto copies = crawl_->OfKind("sentence-edit");
  ASSERT_FALSE(copies.empty());
  for (const Page* p : copies) {
    const Page& o = crawl_->OriginalOf(*p);
    EXPECT_NE(UrlHost(p->url), UrlHost(o.url));
    // Read at the original's URL (images keep their own-host terms) and
    // without the volatile slots: only the edited words differ.
    const std::vector<std::string> a = Terms(WithoutVolatileSlots(o.body), o.url);
    const std::vector<std::string> b = Terms(WithoutVolatileSlots(p->body), o.url);
    ASSERT_EQ(a.size(), b.size()) << p->url;
    size_t differ = 0;
    for (size_t i = 0; i < a.size(); ++i) differ += a[i] != b[i];
    EXPECT_GE(differ, 1u) << p->url;
    EXPECT_LE(differ, 3u) << p->url;
    // ... and they are in the item.
    const std::vector<std::string> pa = Paragraphs(o.body), pb = Paragraphs(p->body);
    ASSERT_EQ(pa.size(), pb.size());
    size_t edited = 0;
    for (size_t i = 0; i < pa.size(); ++i) edited += pa[i] != pb[i];
    EXPECT_GE(edited, 1u);
    EXPECT_EQ(TemplateOf(o.body), TemplateOf(p->body)) << p->url;
  }
}

TEST_F(SynthTest, AliasAndMarkupCopiesKeepTheTermsOfTheirPage) {
  for (const char* kind : {"alias", "markup"}) {
    const auto copies = crawl_->OfKind(kind);
    ASSERT_FALSE(copies.empty()) << kind;
    for (const Page* p : copies) {
      const Page& o = crawl_->OriginalOf(*p);
      EXPECT_EQ(UrlHost(p->url), UrlHost(o.url)) << kind;
      EXPECT_NE(p->url, o.url);
      EXPECT_EQ(Terms(WithoutVolatileSlots(p->body), o.url),
                Terms(WithoutVolatileSlots(o.body), o.url))
          << kind << " " << p->url;
      if (std::string(kind) == "markup") {
        EXPECT_NE(p->body, o.body);
      }
    }
  }
}

TEST_F(SynthTest, HardNegativesShareTheTemplateNotTheItem) {
  std::map<std::string, std::vector<const Page*>> by_host;
  for (const Page& p : crawl_->pages) {
    if (p.kind == "original") by_host[UrlHost(p.url)].push_back(&p);
  }
  size_t pairs = 0;
  for (const auto& [host, pages] : by_host) {
    for (size_t i = 0; i + 1 < pages.size(); ++i) {
      const Page& a = *pages[i];
      const Page& b = *pages[i + 1];
      ASSERT_NE(a.group, b.group);
      EXPECT_EQ(TemplateOf(a.body), TemplateOf(b.body)) << a.url << " vs " << b.url;
      const std::vector<std::string> pa = Paragraphs(a.body), pb = Paragraphs(b.body);
      ASSERT_FALSE(pa.empty());
      ASSERT_FALSE(pb.empty());
      for (const std::string& x : pa) {
        EXPECT_EQ(std::count(pb.begin(), pb.end(), x), 0)
            << a.url << " and " << b.url << " share: " << x;
      }
      ++pairs;
    }
  }
  EXPECT_GT(pairs, 0u);
  uint64_t expected = 0;
  for (const auto& [host, pages] : by_host) {
    if (pages.size() >= 2) expected += pages.size();
  }
  EXPECT_EQ(expected, crawl_->summary.hard_negative_pages);
}

// Paragraphs are never reused: no run of 8 words of one group's item
// appears in another group's item (originals; copies edit their own).
TEST_F(SynthTest, ItemsOfDifferentGroupsShareNoText) {
  std::map<std::string, std::string> owner;  // 8-word run -> group
  size_t runs = 0;
  for (const Page& p : crawl_->pages) {
    if (p.kind != "original") continue;
    for (const std::string& para : Paragraphs(p.body)) {
      const std::vector<std::string> w = FoldedWords(para);
      for (size_t i = 0; i + 8 <= w.size(); ++i) {
        std::string run;
        for (size_t j = i; j < i + 8; ++j) run += w[j] + " ";
        auto [it, inserted] = owner.emplace(run, p.group);
        EXPECT_TRUE(inserted || it->second == p.group)
            << "'" << run << "' in " << it->second << " and " << p.group;
        ++runs;
      }
    }
  }
  EXPECT_GT(runs, 100u);
  EXPECT_LE(crawl_->summary.paragraphs_used, crawl_->summary.pool_paragraphs);
}

TEST_F(SynthTest, ParkedPagesNameTheirDomainAndShareOneGroupPerRegistrar) {
  const auto parked = crawl_->OfKind("parked");
  ASSERT_FALSE(parked.empty());
  std::map<std::string, size_t> per_group;
  for (const Page* p : parked) {
    ++per_group[p->group];
    const std::string host = UrlHost(p->url);
    EXPECT_EQ(p->url, "http://" + host + "/");
    const size_t named = Count(p->body, host);
    EXPECT_GE(named, 2u) << p->url;
    EXPECT_LE(named, 4u) << p->url;
    const size_t words = SplitWords(synth_internal::VisibleText(p->body)).size();
    EXPECT_GE(words, 40u) << p->url;
    EXPECT_LE(words, 90u) << p->url;
  }
  EXPECT_EQ(per_group.size(), 3u);
  for (const auto& [group, n] : per_group) {
    EXPECT_GE(n, 2u) << group;
    EXPECT_LE(n, 100u) << group;
  }
}

TEST(SynthOptionsTest, BadUsage) {
  SynthOptions o;
  o.out_warc = "x.warc.gz";
  o.out_truth = "x.tsv";
  auto r = BuildSyntheticCrawl(o, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
  EXPECT_NE(r.status().message().find("inputs"), std::string::npos);
  o.inputs = {"in"};
  o.sites = 0;
  EXPECT_NE(o.Validate().message().find("sites"), std::string::npos);
  o.sites = 5;
  o.out_truth = o.out_warc;
  EXPECT_TRUE(o.Validate().IsInvalidArgument());
  o.out_truth = "x.tsv";
  o.parked_registrars = 50;
  EXPECT_NE(o.Validate().message().find("parked_registrars"), std::string::npos);
  o.parked_registrars = 4;
  EXPECT_TRUE(o.Validate().ok());
}

TEST(SynthOptionsTest, InputsWithoutUsableHtmlAreAnError) {
  const std::string dir = MakeTempDir("synth-nohtml");
  WriteFileOrDie(dir + "/text.jsonl",
                 testing::JsonLine("http://a/1", "text", "only plain text here"));
  WriteFileOrDie(
      dir + "/bare.jsonl",
      testing::JsonLine("http://a/2", "html", "<html><body><h1>No paragraphs</h1></body></html>"));
  SynthOptions o;
  o.out_warc = dir + "/out.warc.gz";
  o.out_truth = dir + "/out.tsv";
  for (const std::string& input :
       {dir + "/text.jsonl", dir + "/missing.warc.gz", dir + "/bare.jsonl"}) {
    o.inputs = {input};
    auto r = BuildSyntheticCrawl(o, nullptr);
    ASSERT_FALSE(r.ok()) << input;
    EXPECT_FALSE(r.status().IsInvalidArgument()) << r.status().ToString();
    EXPECT_NE(r.status().message().find(input.ends_with("bare.jsonl") ? "paragraph"
                                                                      : "no usable pool page"),
              std::string::npos)
        << r.status().ToString();
  }
  fs::remove_all(dir);
}

// A pool too small for the sites asked for: fewer pages, said so, and
// still no paragraph twice.
TEST(SynthOptionsTest, ShortPoolBuildsFewerPagesAndSaysSo) {
  const std::string dir = MakeTempDir("synth-short");
  std::string lines;
  for (int page = 0; page < 3; ++page) {
    std::string html =
        "<html><head><title>Page " + std::to_string(page) + "</title></head><body><nav>";
    for (int k = 0; k < 12; ++k)
      html += "<a href=\"/s" + std::to_string(k) + "\">section " + std::to_string(page * 100 + k) +
              "</a> ";
    html += "</nav>";
    for (int p = 0; p < 3; ++p) {
      html += "<p>Story";
      for (int w = 0; w < 14; ++w) html += " w" + std::to_string(page * 1000 + p * 100 + w);
      html += ".</p>";
    }
    html += "</body></html>";
    lines += testing::JsonLine("http://pool.example/" + std::to_string(page), "html", html);
  }
  WriteFileOrDie(dir + "/pool.jsonl", lines);
  SynthOptions o;
  o.inputs = {dir + "/pool.jsonl"};
  o.out_warc = dir + "/out.warc.gz";
  o.out_truth = dir + "/out.tsv";
  o.sites = 40;
  o.parked_registrars = 0;
  auto r = BuildSyntheticCrawl(o, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->pool_paragraphs, 9u);
  EXPECT_EQ(r->sites, 3u);
  EXPECT_EQ(r->sites_not_built, 37u);
  EXPECT_LE(r->paragraphs_used, 9u);
  EXPECT_LE(r->distinct_pages, 9u);
  EXPECT_GT(r->pages_not_built, 0u);
  const auto rows = ReadTsvRows(o.out_truth);
  EXPECT_EQ(rows.size() - 1, r->pages);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace neardup
