#include "engine/robust_stage.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "test_util.h"

namespace neardup {
namespace {

std::vector<uint64_t> Normalized(const std::string& html, const std::string& url,
                                 RobustMethodOptions o = RobustMethodOptions()) {
  Tokenizer tokenizer;
  TokenizedDocument doc;
  tokenizer.Tokenize(html, ContentKind::kHtml, "utf-8", url, &doc);
  std::vector<uint64_t> out;
  NormalizeVolatileTerms(doc, url, o, &out);
  return out;
}

TEST(RobustNormalizeTest, HenzingersVolatileDifferencesVanish) {
  const std::string body = "<p>Plumbers and electricians near you, reviewed by neighbours.</p>";
  const auto a = Normalized("<html><body>" + body +
                                "<p>Last updated Sat, 21 Nov 2026 13:45:12 GMT. Page generated in "
                                "0.0421 seconds by web07. You are visitor 999. v3.2.17</p></body></html>",
                            "http://www.example.com/a");
  const auto b = Normalized("<html><body>" + body +
                                "<p>Last updated Mon, 3 Mar 2025 01:02:03 GMT. Page generated in "
                                "1.5 seconds by web12. You are visitor 1,234,567. v3.10.2</p></body></html>",
                            "http://www.example.com/a");
  EXPECT_EQ(a, b);
  // Content words stay: a different product is a different sequence.
  const auto c = Normalized("<html><body><p>Roofers and electricians near you, reviewed by "
                            "neighbours.</p></body></html>",
                            "http://www.example.com/a");
  EXPECT_NE(Normalized("<html><body>" + body + "</body></html>", "http://www.example.com/a"), c);
}

TEST(RobustNormalizeTest, MonthNamesAreVolatileOnlyNextToNumbers) {
  // "may" in prose is content; "21 May 2026" is a date.
  const auto prose1 = Normalized("<p>You may go now.</p>", "http://x.example.org/");
  const auto prose2 = Normalized("<p>You can go now.</p>", "http://x.example.org/");
  EXPECT_NE(prose1, prose2);
  const auto d1 = Normalized("<p>Posted 21 May 2026 by Ann.</p>", "http://x.example.org/");
  const auto d2 = Normalized("<p>Posted 3 June 2025 by Ann.</p>", "http://x.example.org/");
  EXPECT_EQ(d1, d2);
  // Along a chain of date words: "Monday, November 9" and "Friday, June 27".
  EXPECT_EQ(Normalized("<p>Today is Monday, November 9 at 8:06 am. Hello.</p>", "http://x.example.org/"),
            Normalized("<p>Today is Friday, June 27 at 3:00 pm. Hello.</p>", "http://x.example.org/"));
  // Hex chunks of an id, a chunk without digits included.
  EXPECT_EQ(Normalized("<p>Request 1d89e540-8ffb-bfac done.</p>", "http://x.example.org/"),
            Normalized("<p>Request 6b644d72-9ec1-03e8 done.</p>", "http://x.example.org/"));
  // ...but a word that happens to be hex is content away from an id.
  EXPECT_NE(Normalized("<p>A cafe here.</p>", "http://x.example.org/"),
            Normalized("<p>A shop here.</p>", "http://x.example.org/"));
}

TEST(RobustNormalizeTest, OwnUrlInTextIsOneClassTerm) {
  // Parked domains: the same page naming its own domain.
  auto parked = [](const std::string& domain) {
    return Normalized("<html><title>" + domain + " is for sale</title><body><h1>" + domain +
                          "</h1><p>The domain " + domain +
                          " may be for sale. Buy this domain today.</p></body></html>",
                      "http://" + domain + "/");
  };
  EXPECT_EQ(parked("bestcars-online.com"), parked("cheap-flights.net"));
  EXPECT_NE(parked("bestcars-online.com"), Normalized("<html><title>bestcars-online.com is for sale</title>"
                                                       "<body><h1>bestcars-online.com</h1><p>The domain "
                                                       "bestcars-online.com may be for sale. Buy this "
                                                       "domain today.</p></body></html>",
                                                       "http://cheap-flights.net/"));
  // A permalink: the whole URL, path included, is one class term.
  const auto p1 = Normalized("<p>Permalink: http://www.news.example.com/world/story-one.html</p><p>Text.</p>",
                             "http://www.news.example.com/world/story-one.html");
  const auto p2 = Normalized("<p>Permalink: http://mirror.example.net/world/story-one.html</p><p>Text.</p>",
                             "http://mirror.example.net/world/story-one.html");
  EXPECT_EQ(p1, p2);
  // Switched off, the URLs differ.
  RobustMethodOptions off;
  off.normalize_own_url = false;
  EXPECT_NE(Normalized("<p>Permalink: http://www.news.example.com/a</p>", "http://www.news.example.com/a", off),
            Normalized("<p>Permalink: http://mirror.example.net/a</p>", "http://mirror.example.net/a", off));
}

TEST(RobustNormalizeTest, NumbersSwitchedOffStayContent) {
  RobustMethodOptions off;
  off.normalize_numbers = false;
  EXPECT_NE(Normalized("<p>Call 555-0100 today.</p>", "http://a.example.com/", off),
            Normalized("<p>Call 555-0199 today.</p>", "http://a.example.com/", off));
  EXPECT_EQ(Normalized("<p>Call 555-0100 today.</p>", "http://a.example.com/"),
            Normalized("<p>Call 555-0199 today.</p>", "http://a.example.com/"));
}

// Sketches of synthetic pages: a template of `template_terms` shared terms
// and an item of `item_terms` terms of its own.
struct Sketches {
  RobustMethodOptions options;
  BroderSketcher sketcher{RobustSketchOptions(RobustMethodOptions())};
  std::vector<uint32_t> mins;
  std::vector<uint64_t> sites;
  void Add(const std::vector<uint64_t>& terms, uint64_t site) {
    SketchScratch scratch;
    sketcher.Shingles(terms, &scratch.shingles);
    std::vector<uint64_t> pre(options.num_minhashes);
    ASSERT_TRUE(sketcher.MinHashes(scratch.shingles, pre.data()));
    for (uint64_t v : pre) mins.push_back(static_cast<uint32_t>(v));
    sites.push_back(site);
  }
  const uint32_t* Of(uint32_t i) const { return mins.data() + static_cast<size_t>(i) * options.num_minhashes; }
};

std::vector<uint64_t> Terms(std::mt19937_64& rng, size_t n) {
  std::vector<uint64_t> t(n);
  for (auto& x : t) x = rng();
  return t;
}

// Adds `pages` pages of one site to *s: the template with an item of
// `item_terms` fresh terms inserted at `at`. Returns the items.
std::vector<std::vector<uint64_t>> AddItemPages(std::mt19937_64& rng, const std::vector<uint64_t>& site_template,
                                                int pages, size_t item_terms, size_t at, uint64_t site,
                                                Sketches* s) {
  std::vector<std::vector<uint64_t>> items;
  for (int p = 0; p < pages; ++p) {
    items.push_back(Terms(rng, item_terms));
    auto page = site_template;
    page.insert(page.begin() + static_cast<std::ptrdiff_t>(at), items.back().begin(), items.back().end());
    s->Add(page, site);
  }
  return items;
}

TEST(RobustTemplateTest, TemplatePagesOfOneSiteAreNotSimilarButCopiesAre) {
  std::mt19937_64 rng(7);
  const auto site_template = Terms(rng, 600);
  Sketches s;
  // Pages 0..9: one site, same template, items of 40 terms each.
  const auto items = AddItemPages(rng, site_template, 10, 40, 300, /*site=*/1, &s);
  // Page 10: a copy of page 0 on another site with two terms of its item edited.
  auto copy = site_template;
  auto edited = items[0];
  edited[20] = rng();
  copy.insert(copy.begin() + 300, edited.begin(), edited.end());
  s.Add(copy, /*site=*/2);
  std::vector<uint8_t> candidate(s.sites.size(), 1);
  UnionFind uf(static_cast<uint32_t>(s.sites.size()));
  SiteTemplates templates;
  const RobustStageResult r =
      RunRobustStage(s.mins, s.sites, {}, candidate, s.options, 1000, true, &templates, &uf);
  EXPECT_GT(r.template_values, 0u);
  // Full-page resemblance of two template pages is high (Broder would merge
  // them); on what is not boilerplate they share nothing.
  for (uint32_t a = 0; a < 10; ++a) {
    for (uint32_t b = a + 1; b < 10; ++b) {
      EXPECT_NE(uf.Find(a), uf.Find(b)) << a << " " << b;
      EXPECT_LT(templates.Compare(s.Of(a), s.Of(b), 84).similarity(), 0.2);
    }
  }
  EXPECT_EQ(uf.Find(0), uf.Find(10));
  EXPECT_GE(templates.Compare(s.Of(0), s.Of(10), 84).similarity(), 0.5);
  // Without template knowledge (a site of fewer than template_min_pages
  // pages) the same pair of template pages would look alike.
  SiteTemplates none;
  EXPECT_GT(none.Compare(s.Of(1), s.Of(2), 84).similarity(), 0.5);
}

TEST(RobustTemplateTest, BoilerplateLearnedOnOneSiteAppliesToItsMirror) {
  std::mt19937_64 rng(11);
  const auto site_template = Terms(rng, 500);
  Sketches s;
  std::vector<std::vector<uint64_t>> pages;
  for (int p = 0; p < 5; ++p) {
    auto page = site_template;
    const auto item = Terms(rng, 30);
    page.insert(page.end(), item.begin(), item.end());
    pages.push_back(page);
    s.Add(page, 1);
  }
  // Two pages of the site mirrored on a host of their own.
  s.Add(pages[0], 2);
  s.Add(pages[1], 2);
  std::vector<uint8_t> candidate(s.sites.size(), 1);
  UnionFind uf(static_cast<uint32_t>(s.sites.size()));
  SiteTemplates templates;
  RunRobustStage(s.mins, s.sites, {}, candidate, s.options, 1000, false, &templates, &uf);
  EXPECT_EQ(uf.Find(0), uf.Find(5));
  EXPECT_EQ(uf.Find(1), uf.Find(6));
  EXPECT_NE(uf.Find(5), uf.Find(6));  // the mirror's two pages differ in their items
}

TEST(RobustTemplateTest, AllBoilerplatePagesAreDuplicates) {
  std::mt19937_64 rng(3);
  const auto page = Terms(rng, 200);
  Sketches s;
  for (int p = 0; p < 4; ++p) s.Add(page, 1);
  RobustMethodOptions o = s.options;
  o.template_min_pages = 3;
  SiteTemplates templates(s.mins, s.sites, std::vector<uint8_t>(4, 1), o);
  const auto m = templates.Compare(s.Of(0), s.Of(1), 84);
  EXPECT_EQ(m.positions, 0u);
  EXPECT_EQ(m.template_shared, 84u);
  EXPECT_EQ(m.similarity(), 1.0);
}

// A page copied twice on its own large host, once with an ad block of 24
// terms injected and once with a block of its template replaced: the item
// the three share is not the host's boilerplate (3 of 62 pages, below
// template_site_fraction), so the copies are compared on it and joined,
// while the host's distinct items stay apart. Counting any two pages as
// enough (fraction 0, the rule before) learns the item as boilerplate and
// loses the copies.
TEST(RobustTemplateTest, ACopiedPageOnALargeHostKeepsItsItemAsContent) {
  std::mt19937_64 rng(21);
  const auto site_template = Terms(rng, 300);
  Sketches s;
  const auto items = AddItemPages(rng, site_template, 60, 400, 150, /*site=*/1, &s);
  auto with_ad = site_template;
  with_ad.insert(with_ad.begin() + 150, items[0].begin(), items[0].end());
  const auto ad = Terms(rng, 24);
  with_ad.insert(with_ad.begin() + 350, ad.begin(), ad.end());
  s.Add(with_ad, 1);  // page 60
  auto other_template = Terms(rng, 120);
  other_template.insert(other_template.end(), site_template.begin() + 120, site_template.end());
  other_template.insert(other_template.begin() + 150, items[0].begin(), items[0].end());
  s.Add(other_template, 1);  // page 61
  EXPECT_EQ(SiteTemplates::TemplateHolders(62, s.options), 4u);
  for (double fraction : {0.05, 0.0}) {
    RobustMethodOptions o = s.options;
    o.template_site_fraction = fraction;
    std::vector<uint8_t> candidate(s.sites.size(), 1);
    UnionFind uf(static_cast<uint32_t>(s.sites.size()));
    SiteTemplates templates;
    RunRobustStage(s.mins, s.sites, {}, candidate, o, 1000, false, &templates, &uf);
    EXPECT_GT(templates.size(), 0u);
    for (uint32_t a = 0; a < 60; ++a) {
      for (uint32_t b = a + 1; b < 60; ++b) ASSERT_NE(uf.Find(a), uf.Find(b)) << a << " " << b;
    }
    if (fraction > 0) {
      EXPECT_EQ(uf.Find(0), uf.Find(60));
      EXPECT_EQ(uf.Find(0), uf.Find(61));
    } else {
      EXPECT_NE(uf.Find(0), uf.Find(60));
      EXPECT_NE(uf.Find(0), uf.Find(61));
    }
  }
}

// A sidebar that 3 of 80 distinct items of a host show (fewer than the 5%
// of the host's pages that make its common boilerplate) is boilerplate
// still: the three items agree on little else, so they are not copies of one
// item, and they are compared on their own text. (A block shared by a few
// pages that outweighs what else they hold is taken as their common text:
// then they are copies with an edit, by the rule of kCopyContentSimilarity.)
TEST(RobustTemplateTest, ASidebarOfAFewDistinctItemsIsBoilerplate) {
  std::mt19937_64 rng(23);
  const auto site_template = Terms(rng, 300);
  const auto sidebar = Terms(rng, 80);
  Sketches s;
  for (int p = 0; p < 80; ++p) {
    auto page = site_template;
    const auto item = Terms(rng, 120);
    page.insert(page.begin() + 150, item.begin(), item.end());
    if (p < 3) page.insert(page.end(), sidebar.begin(), sidebar.end());
    s.Add(page, /*site=*/1);
  }
  ASSERT_GT(SiteTemplates::TemplateHolders(80, s.options), 3u);
  std::vector<uint8_t> candidate(s.sites.size(), 1);
  UnionFind uf(static_cast<uint32_t>(s.sites.size()));
  SiteTemplates templates;
  RunRobustStage(s.mins, s.sites, {}, candidate, s.options, 1000, false, &templates, &uf);
  for (uint32_t a = 0; a < 3; ++a) {
    for (uint32_t b = a + 1; b < 3; ++b) {
      EXPECT_NE(uf.Find(a), uf.Find(b));
      EXPECT_LT(templates.Compare(s.Of(a), s.Of(b), 84).similarity(), 0.2);
    }
  }
  // Without the sidebar's values the three would look alike.
  EXPECT_GT(SiteTemplates().Compare(s.Of(0), s.Of(1), 84).similarity(), 0.5);
}

// The candidate tables kept in temporary files (one table held at a time)
// find the same pairs as tables in memory, and leave no file behind.
TEST(RobustStageTest, TablesInFilesFindThePairsOfTablesInMemory) {
  std::mt19937_64 rng(19);
  Sketches s;
  const auto site_template = Terms(rng, 400);
  const auto items = AddItemPages(rng, site_template, 30, 60, 200, /*site=*/1, &s);
  for (int c = 0; c < 12; ++c) {  // copies of items on other sites, a term edited
    auto copy = site_template;
    auto edited = items[c];
    edited[c] = rng();
    copy.insert(copy.begin() + 200, edited.begin(), edited.end());
    s.Add(copy, /*site=*/2 + c % 3);
  }
  const uint32_t n = static_cast<uint32_t>(s.sites.size());
  std::vector<uint8_t> candidate(n, 1);
  UnionFind in_memory(n), in_files(n);
  SiteTemplates t1, t2;
  const RobustStageResult a =
      RunRobustStage(s.mins, s.sites, {}, candidate, s.options, 1000, true, &t1, &in_memory);
  RobustPages pages;
  pages.n = n;
  pages.m = s.options.num_minhashes;
  pages.mins = s.mins.data();
  pages.mins_stride = pages.m;
  pages.site = s.sites;
  const std::string dir = testing::MakeTempDir("robust-tables");
  auto b = RunRobustStage(pages, candidate, s.options, 1000, true, RobustStageFiles{Env::Default(), dir}, &t2,
                          &in_files);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_GT(a.pairs, 10u);
  EXPECT_EQ(a.candidate_pairs, b->candidate_pairs);
  EXPECT_EQ(a.pairs, b->pairs);
  EXPECT_EQ(a.template_values, b->template_values);
  ASSERT_EQ(a.pairs_found.size(), b->pairs_found.size());
  for (size_t i = 0; i < a.pairs_found.size(); ++i) {
    EXPECT_EQ(a.pairs_found[i].a, b->pairs_found[i].a);
    EXPECT_EQ(a.pairs_found[i].b, b->pairs_found[i].b);
  }
  for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(in_memory.Find(i) == in_memory.Find(0), in_files.Find(i) == in_files.Find(0));
  EXPECT_TRUE(Env::Default()->ListFilesRecursive(dir).value().empty());
  // A folder that cannot be written is an error, not a wrong answer.
  UnionFind uf(n);
  SiteTemplates t3;
  auto c = RunRobustStage(pages, candidate, s.options, 1000, false,
                          RobustStageFiles{Env::Default(), dir + "/missing/folder"}, &t3, &uf);
  EXPECT_FALSE(c.ok());
}

// A site too large for one block of columns (over 4 MiB of values) learns
// the same boilerplate from column files as from blocks re-read from its
// pages, and leaves no file behind.
TEST(RobustStageTest, ALargeSitesColumnFilesGiveTheTemplateOfBlocks) {
  std::mt19937_64 rng(23);
  const uint32_t m = 84, n = 16000;
  std::vector<uint32_t> mins(size_t{n} * m);
  std::vector<uint64_t> sites(n);
  std::vector<uint32_t> pool(400);
  for (uint32_t& v : pool) v = static_cast<uint32_t>(rng());
  for (uint32_t p = 0; p < n; ++p) {
    sites[p] = p % 5 == 4 ? 2 : 1;  // site 1: 12,800 pages in page order; site 2 sparse
    for (uint32_t j = 0; j < m; ++j) {
      const uint64_t r = rng() % 100;
      uint32_t v = static_cast<uint32_t>(rng());
      if (r < 30) v = 1000 + j;                          // the template
      else if (r < 40) v = pool[rng() % pool.size()];    // values a few pages share
      mins[size_t{p} * m + j] = v;
    }
  }
  RobustMethodOptions o;
  RobustPages pages;
  pages.n = n;
  pages.m = m;
  pages.mins = mins.data();
  pages.mins_stride = m;
  pages.site = sites;
  const std::vector<uint8_t> candidate(n, 1);
  const std::string dir = testing::MakeTempDir("robust-columns");
  const SiteTemplates in_blocks(pages, candidate, o);
  const SiteTemplates in_files(pages, candidate, o, RobustStageFiles{Env::Default(), dir});
  std::set<uint64_t> a, b;
  in_blocks.values().ForEach([&](uint64_t v) { a.insert(v); });
  in_files.values().ForEach([&](uint64_t v) { b.insert(v); });
  EXPECT_GT(a.size(), static_cast<size_t>(m));  // the template, and some rare values
  EXPECT_EQ(a, b);
  EXPECT_TRUE(in_files.KnowsTemplateOf(1));
  EXPECT_TRUE(in_files.KnowsTemplateOf(2));
  EXPECT_TRUE(Env::Default()->ListFilesRecursive(dir).value().empty());
}

}  // namespace
}  // namespace neardup

namespace neardup {
namespace {

// The verdict of the one rule does not depend on whether its reason is
// formatted (the near stage asks for none).
TEST(RobustDecideTest, TheVerdictIsTheSameWithoutTheReason) {
  RobustMethodOptions options;
  const uint32_t m = options.num_minhashes;
  std::mt19937 rng(3);
  int duplicates = 0, others = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<uint32_t> a(m), b(m);
    const uint32_t agree = rng() % (m + 1);
    for (uint32_t j = 0; j < m; ++j) {
      a[j] = static_cast<uint32_t>(rng());
      b[j] = j < agree ? a[j] : static_cast<uint32_t>(rng());
    }
    RobustPageView va{a.data(), 1, nullptr}, vb{b.data(), trial % 2 == 0 ? 1u : 2u, nullptr};
    const SiteTemplates none;
    const PairDecision with = RobustDecide(none, va, vb, options);
    const PairDecision without = RobustDecide(none, va, vb, options, nullptr, /*with_reason=*/false);
    EXPECT_EQ(with.duplicate, without.duplicate);
    EXPECT_EQ(with.similarity, without.similarity);
    EXPECT_FALSE(with.reason.empty());
    EXPECT_TRUE(without.reason.empty());
    (with.duplicate ? duplicates : others)++;
  }
  EXPECT_GT(duplicates, 0);
  EXPECT_GT(others, 0);
}

}  // namespace
}  // namespace neardup
