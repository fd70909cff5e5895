#include "engine/robust_stage.h"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "engine/parallel.h"
#include "neardup/executor.h"
#include "sketch/difference_digest.h"
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

// A copy on another host that keeps the original's "URL: ..." line reads
// as the original, which names its own URL; without text-urls the copy's
// line stays literal and the two differ.
TEST(RobustNormalizeTest, UrlsWrittenInTextAreOneClassWhoeverTheyName) {
  const std::string page =
      "<p>A story about the harbour and its boats.</p>"
      "<div>URL: http://www.river.example.co.uk/sports/story-1307/</div>";
  const auto original = Normalized(page, "http://www.river.example.co.uk/sports/story-1307/");
  const auto copy = Normalized(page, "https://feed.example.net/2026/11/story.html");
  EXPECT_EQ(original, copy);
  RobustMethodOptions off;
  off.normalize_text_urls = false;
  EXPECT_NE(Normalized(page, "http://www.river.example.co.uk/sports/story-1307/", off),
            Normalized(page, "https://feed.example.net/2026/11/story.html", off));
  // Words around the URL stay content; a URL ends at white space or markup.
  EXPECT_NE(Normalized("<p>See http://a.example.org/x now.</p>", "http://b.example.org/"),
            Normalized("<p>See http://a.example.org/x later.</p>", "http://b.example.org/"));
  EXPECT_EQ(Normalized("<p>See http://a.example.org/x now.</p>", "http://b.example.org/"),
            Normalized("<p>See https://c.example.com/y/z?q=1 now.</p>", "http://b.example.org/"));
}

// An image counts by its file name wherever it is: a copy on another host
// that links the original's images by their whole URL reads as the
// original, whose own relative references give the names alone, even
// where the image host's name or path holds digits (i0.wp.com, /2024/05/).
// A digit in the name itself is volatile in both.
TEST(RobustNormalizeTest, AnImageCountsByItsFileNameWhateverItsHost) {
  auto page = [](const std::string& front, const std::string& pool) {
    return "<p>Our guest house by the sea, rooms and garden.</p><img src=\"" + front + "\"><img src=\"" + pool +
           "\"><p>Book a room today.</p>";
  };
  const auto original = Normalized(page("front.jpg", "pool11.jpg"), "http://www.guesthouse.example.com/rooms.php");
  const auto copy =
      Normalized(page("http://www.guesthouse.example.com/media/2024/05/front.jpg",
                      "http://i0.wp.com/www.guesthouse.example.com/media/2024/05/pool11.jpg"),
                 "http://scraper.example.net/2026/11/rooms.html");
  EXPECT_EQ(original, copy);
  // Judged by the whole URL (no-image-names, as specs before it), the
  // copy's image URLs, digits in their paths, are volatile where the
  // original's names are content.
  RobustMethodOptions whole_url;
  whole_url.image_file_names = false;
  EXPECT_NE(Normalized(page("front.jpg", "pool11.jpg"), "http://www.guesthouse.example.com/rooms.php", whole_url),
            Normalized(page("http://www.guesthouse.example.com/media/2024/05/front.jpg",
                            "http://i0.wp.com/www.guesthouse.example.com/media/2024/05/pool11.jpg"),
                       "http://scraper.example.net/2026/11/rooms.html", whole_url));
  // Different pictures are different pages, whatever the host.
  const auto other =
      Normalized(page("http://www.guesthouse.example.com/media/2024/05/garden.jpg",
                      "http://i0.wp.com/www.guesthouse.example.com/media/2024/05/pool11.jpg"),
                 "http://scraper.example.net/2026/11/rooms.html");
  EXPECT_NE(original, other);
}

TEST(RobustNormalizeTest, FiguresInTableCellsAreContent) {
  // Two nutrient tables in one template: their figures are what they are.
  auto table = [](const std::string& a, const std::string& b) {
    return "<html><body><h1>Nutrition facts per 100 g</h1><table><tr><th>Energy</th><td>" + a +
           "</td></tr><tr><th>Protein</th><td>" + b + "</td></tr></table>"
           "<p>Last updated 21 Nov 2026 13:45 by web07. You are visitor 999.</p></body></html>";
  };
  EXPECT_NE(Normalized(table("52", "0.3"), "http://food.example/apple"),
            Normalized(table("89", "1.1"), "http://food.example/banana"));
  // The volatile fields among words stay one class: a recrawl of one table.
  std::string recrawl = table("52", "0.3");
  recrawl.replace(recrawl.find("21 Nov 2026 13:45 by web07"), 26, "3 Dec 2026 08:10 by web12");
  recrawl.replace(recrawl.find("999"), 3, "1,234");
  EXPECT_EQ(Normalized(table("52", "0.3"), "http://food.example/apple"),
            Normalized(recrawl, "http://food.example/apple"));
  // Figures with their unit or label beside them, one word in the cell.
  EXPECT_NE(Normalized(table("52 kcal", "0.3 g"), "http://food.example/apple"),
            Normalized(table("89 kcal", "1.1 g"), "http://food.example/banana"));
  // A cell with a date, a time, an id or two words or more is not a figure.
  auto cell = [](const std::string& text) {
    return Normalized("<table><tr><td>Posted</td><td>" + text + "</td></tr></table>", "http://x.example/");
  };
  EXPECT_EQ(cell("21 Nov 2026"), cell("3 Dec 2025"));
  EXPECT_EQ(cell("10:45 am"), cell("8:05 pm"));
  EXPECT_EQ(cell("web07"), cell("web12"));
  EXPECT_EQ(cell("3 hours ago"), cell("5 hours ago"));
  EXPECT_EQ(cell("12 votes and 3 abstentions"), cell("14 votes and 1 abstentions"));
  EXPECT_NE(cell("2026"), cell("2025"));
  EXPECT_NE(cell("1,234 votes"), cell("987 votes"));
  EXPECT_NE(cell("Total: 1,234"), cell("Total: 987"));
  // Outside a cell, figures beside one word stay volatile.
  EXPECT_EQ(Normalized("<p>1,234 votes</p>", "http://x.example/"), Normalized("<p>987 votes</p>", "http://x.example/"));
}

TEST(RobustNormalizeTest, NumbersSwitchedOffStayContent) {
  RobustMethodOptions off;
  off.normalize_numbers = false;
  EXPECT_NE(Normalized("<p>Call 555-0100 today.</p>", "http://a.example.com/", off),
            Normalized("<p>Call 555-0199 today.</p>", "http://a.example.com/", off));
  EXPECT_EQ(Normalized("<p>Call 555-0100 today.</p>", "http://a.example.com/"),
            Normalized("<p>Call 555-0199 today.</p>", "http://a.example.com/"));
}

// The volatile-term rule stated plainly, against random texts: a term with
// a digit is volatile; a date word next to a volatile term is volatile,
// and so is a hex word of 4 or more bytes next to a volatile hex word (of
// any length), and so on along the text in both directions; a run of
// volatile terms is one class term. Terms are tested one word per term of the vocabulary, whose
// kinds are known here, not computed by the code under test.
TEST(RobustNormalizeTest, VolatileRunsFollowTheRuleOnRandomTexts) {
  struct Word {
    const char* text;
    bool digit, date, hex, hex4;  // hex: 0-9a-f only; hex4: and 4 bytes or more
  };
  const Word kWords[] = {
      {"plumber", false, false, false, false}, {"the", false, false, false, false},
      {"zebra", false, false, false, false},   {"monday", false, true, false, false},
      {"nov", false, true, false, false},      {"gmt", false, true, false, false},
      {"cafe", false, false, true, true},      {"beef", false, false, true, true},
      {"dead", false, false, true, true},      {"abc", false, false, true, false},
      {"12", true, false, true, false},        {"2026", true, false, true, true},
      {"1d89e540", true, false, true, true},   {"v3", true, false, false, false},
      {"8ffb", true, false, true, true},
      // Long terms: a digit past a term's first 56 bytes, or none in 60.
      {"zyxwvutsrqponmlkjihgzyxwvutsrqponmlkjihgzyxwvutsrqponmlkjihg", false, false, false, false},
      {"zyxwvutsrqponmlkjihgzyxwvutsrqponmlkjihgzyxwvutsrqponmlk9jihg", true, false, false, false},
      {"zyxwvutsrqponmlkjihgzyxwvutsrqponmlkjihgzyxwvutsrqponmlkjihg7", true, false, false, false},
  };
  const size_t kinds = sizeof(kWords) / sizeof(kWords[0]);
  std::mt19937_64 rng(20261126);
  RobustMethodOptions o;
  for (int round = 0; round < 300; ++round) {
    const size_t n = 1 + rng() % 40;
    std::vector<size_t> pick(n);
    std::string text;
    for (size_t i = 0; i < n; ++i) {
      // Plain words most of the time, as in real text.
      pick[i] = rng() % 3 == 0 ? rng() % kinds : rng() % 3;
      text += kWords[pick[i]].text;
      text += ' ';
    }
    Tokenizer tokenizer;
    TokenizedDocument doc;
    tokenizer.Tokenize(text, ContentKind::kText, "utf-8", "", &doc);
    ASSERT_EQ(doc.num_terms(), n) << text;
    std::vector<bool> vol(n);
    for (size_t i = 0; i < n; ++i) vol[i] = kWords[pick[i]].digit;
    auto spreads = [&](size_t to, size_t from) {
      return kWords[pick[to]].date || (kWords[pick[to]].hex4 && kWords[pick[from]].hex);
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t i = 0; i < n; ++i) {
        if (vol[i]) continue;
        if ((i > 0 && vol[i - 1] && spreads(i, i - 1)) || (i + 1 < n && vol[i + 1] && spreads(i, i + 1))) {
          vol[i] = true;
          changed = true;
        }
      }
    }
    std::vector<uint64_t> expected;
    for (size_t i = 0; i < n; ++i) {
      if (!vol[i]) {
        expected.push_back(doc.term_hashes[i]);
      } else if (i == 0 || !vol[i - 1]) {
        expected.push_back(kVolatileTermHash);
      }
    }
    std::vector<uint64_t> out;
    uint32_t volatile_terms = 0;
    NormalizeVolatileTerms(doc, "", o, &out, &volatile_terms);
    EXPECT_EQ(out, expected) << text;
    EXPECT_EQ(volatile_terms, static_cast<uint32_t>(std::count(vol.begin(), vol.end(), true))) << text;
  }
}
// Sketches of synthetic pages: a template of `template_terms` shared terms
// and an item of `item_terms` terms of its own.
// Whole-page values only: the template rule's tests.
RobustMethodOptions WholePageOnly() {
  RobustMethodOptions o;
  o.main_minhashes = 0;
  return o;
}

struct Sketches {
  RobustMethodOptions options = WholePageOnly();
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
  // The pages as the stage reads them: contiguous, no file.
  RobustPages Pages() const {
    RobustPages pages;
    pages.n = static_cast<uint32_t>(sites.size());
    pages.m = options.num_minhashes;
    pages.mins = mins.data();
    pages.mins_stride = pages.m;
    pages.site = sites;
    return pages;
  }
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
      EXPECT_LT(templates.Compare(s.Of(a), s.Of(b), s.options).similarity(), 0.2);
    }
  }
  EXPECT_EQ(uf.Find(0), uf.Find(10));
  EXPECT_GE(templates.Compare(s.Of(0), s.Of(10), s.options).similarity(), 0.5);
  // Without template knowledge (a site of fewer than template_min_pages
  // pages) the same pair of template pages would look alike.
  SiteTemplates none;
  EXPECT_GT(none.Compare(s.Of(1), s.Of(2), s.options).similarity(), 0.5);
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
  const auto m = templates.Compare(s.Of(0), s.Of(1), s.options);
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
      EXPECT_LT(templates.Compare(s.Of(a), s.Of(b), s.options).similarity(), 0.2);
    }
  }
  // Without the sidebar's values the three would look alike.
  EXPECT_GT(SiteTemplates().Compare(s.Of(0), s.Of(1), s.options).similarity(), 0.5);
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
  const RobustPages pages = s.Pages();
  const std::string dir = testing::MakeTempDir("robust-tables");
  auto b = RunRobustStage(pages, candidate, s.options, 1000, true, RobustStageFiles{Env::Default(), dir, ""}, &t2,
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
                          RobustStageFiles{Env::Default(), dir + "/missing/folder", ""}, &t3, &uf);
  EXPECT_FALSE(c.ok());
}

// The rule over the candidate pairs on an executor's threads (tasks of
// consecutive pairs) decides as one thread does: the same pairs, in the
// same order, and the same components.
// `copies` copies of one page of 300 terms on sites of their own, 0 to 16
// terms edited: many candidate pairs, some of which fail the rule.
void AddCopiesOnSitesOfTheirOwn(uint64_t seed, int copies, Sketches* s) {
  std::mt19937_64 rng(seed);
  const auto page = Terms(rng, 300);
  for (int c = 0; c < copies; ++c) {
    auto copy = page;
    for (int e = 0; e < (c % 5) * 4; ++e) copy[rng() % copy.size()] = rng();
    s->Add(copy, /*site=*/10 + c);
  }
}

// Two runs of the stage over the same pages found the same candidates and
// pairs, in the same order, and the same components.
void ExpectTheSameStage(const RobustStageResult& a, const RobustStageResult& b, UnionFind* uf_a, UnionFind* uf_b) {
  EXPECT_EQ(a.candidates, b.candidates);
  EXPECT_EQ(a.candidate_pairs, b.candidate_pairs);
  EXPECT_EQ(a.template_bands_skipped, b.template_bands_skipped);
  EXPECT_EQ(a.pairs, b.pairs);
  ASSERT_EQ(a.pairs_found.size(), b.pairs_found.size());
  for (size_t i = 0; i < a.pairs_found.size(); ++i) {
    EXPECT_EQ(a.pairs_found[i].a, b.pairs_found[i].a);
    EXPECT_EQ(a.pairs_found[i].b, b.pairs_found[i].b);
    EXPECT_EQ(a.pairs_found[i].match.agreeing, b.pairs_found[i].match.agreeing);
  }
  ASSERT_EQ(uf_a->size(), uf_b->size());
  for (uint32_t i = 0; i < uf_a->size(); ++i) EXPECT_EQ(uf_a->Find(i), uf_b->Find(i));
}

TEST(RobustStageTest, PairsDecidedOnAnExecutorAreThePairsOfOneThread) {
  Sketches s;
  AddCopiesOnSitesOfTheirOwn(29, 250, &s);
  const uint32_t n = static_cast<uint32_t>(s.sites.size());
  std::vector<uint8_t> candidate(n, 1);
  const RobustPages pages = s.Pages();
  std::unique_ptr<Executor> executor = NewThreadPoolExecutor(3);
  UnionFind alone(n);
  SiteTemplates t1;
  auto a = RunRobustStage(pages, candidate, s.options, 1000, true, RobustStageFiles(), &t1, &alone);
  ASSERT_TRUE(a.ok());
  EXPECT_GT(a->candidate_pairs, 3 * 4096u);  // several tasks
  EXPECT_GT(a->pairs, 1000u);
  EXPECT_LT(a->pairs, a->candidate_pairs);  // some pairs fail the rule
  // Each pair found is one the rule accepts on its own two pages, with the
  // same match (the rule reads a group of pairs' pages together: each pair
  // is decided on its own).
  for (const RobustPair& p : a->pairs_found) {
    SiteTemplates::Match m;
    ASSERT_TRUE(RobustDecide(t1, pages.View(p.a), pages.View(p.b), s.options, &m, false).duplicate) << p.a << " " << p.b;
    EXPECT_EQ(m.agreeing, p.match.agreeing);
    EXPECT_EQ(m.positions, p.match.positions);
  }
  // On threads, with the candidate tables in memory and in files (one set
  // of tables a range of pages).
  const std::string dir = testing::MakeTempDir("robust-threads");
  for (const RobustStageFiles& files : {RobustStageFiles(), RobustStageFiles{Env::Default(), dir, ""}}) {
    UnionFind together(n);
    SiteTemplates t2;
    auto b = RunRobustStage(pages, candidate, s.options, 1000, true, files, &t2, &together, executor.get());
    ASSERT_TRUE(b.ok());
    ExpectTheSameStage(*a, *b, &alone, &together);
  }
  EXPECT_TRUE(Env::Default()->ListFilesRecursive(dir).value().empty());  // every table file removed
}

// The band tables sorted a round at a time take as many tables as the
// memory budget holds: at the budget of one table, one at a time, with the
// same pairs; below it the stage says so instead of running over it.
TEST(RobustStageTest, TheTablesSortedAtOnceFitTheMemoryBudget) {
  Sketches s;
  AddCopiesOnSitesOfTheirOwn(31, 200, &s);
  const uint32_t n = static_cast<uint32_t>(s.sites.size());
  std::vector<uint8_t> candidate(n, 1);
  const RobustPages pages = s.Pages();
  std::unique_ptr<Executor> executor = NewThreadPoolExecutor(3);  // four tables at once when they fit
  const std::string dir = testing::MakeTempDir("robust-budget");
  const RobustStageFiles files{Env::Default(), dir, ""};
  UnionFind wide(n), narrow(n), none(n);
  SiteTemplates t1, t2, t3;
  auto a = RunRobustStage(pages, candidate, s.options, 1000, true, files, &t1, &wide, executor.get());
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->tables_at_once, 4u);
  const uint64_t one_table = uint64_t{n} * kRobustTableSlotBytes;  // every page files every band here
  auto b = RunRobustStage(pages, candidate, s.options, 1000, true, files, &t2, &narrow, executor.get(),
                          one_table + one_table / 2);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->tables_at_once, 1u);
  ExpectTheSameStage(*a, *b, &wide, &narrow);
  auto c = RunRobustStage(pages, candidate, s.options, 1000, true, files, &t3, &none, executor.get(), one_table / 2);
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(c.status().IsResourceExhausted()) << c.status().ToString();
  EXPECT_NE(c.status().message().find("memory budget"), std::string::npos);
  EXPECT_TRUE(Env::Default()->ListFilesRecursive(dir).value().empty());  // every table file removed
}

// More candidate pairs than one batch of the rule holds (the runs of pairs
// are merged and decided a batch at a time): every pair of 760 copies of a
// page is found once, in pair order, the same from tables in memory and
// in files, on one thread and on three.
TEST(RobustStageTest, PairsBeyondOneBatchAreEachDecidedOnceInOrder) {
  std::mt19937_64 rng(31);
  Sketches s;
  const auto page = Terms(rng, 200);
  const uint32_t n = 760;  // 288,420 pairs: more than four batches (65,536)
  for (uint32_t c = 0; c < n; ++c) s.Add(page, /*site=*/10 + c);
  std::vector<uint8_t> candidate(n, 1);
  const RobustPages pages = s.Pages();
  std::unique_ptr<Executor> executor = NewThreadPoolExecutor(3);
  const std::string dir = testing::MakeTempDir("robust-batches");
  for (Executor* e : {static_cast<Executor*>(nullptr), executor.get()}) {
    for (const RobustStageFiles& files : {RobustStageFiles(), RobustStageFiles{Env::Default(), dir, ""}}) {
      UnionFind uf(n);
      SiteTemplates t;
      auto r = RunRobustStage(pages, candidate, s.options, 1000, true, files, &t, &uf, e);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(r->candidate_pairs, uint64_t{n} * (n - 1) / 2);
      EXPECT_EQ(r->pairs, r->candidate_pairs);
      ASSERT_EQ(r->pairs_found.size(), r->pairs);
      for (size_t i = 1; i < r->pairs_found.size(); ++i) {
        const auto& p = r->pairs_found[i - 1];
        const auto& q = r->pairs_found[i];
        ASSERT_TRUE(p.a < q.a || (p.a == q.a && p.b < q.b)) << i;
      }
      EXPECT_EQ(uf.Find(0), uf.Find(n - 1));
    }
  }
  EXPECT_TRUE(Env::Default()->ListFilesRecursive(dir).value().empty());
}

// Without listed pairs, a candidate pair whose pages are already in one
// cluster by an earlier batch is counted, not checked: the clusters and the
// pages with a pair are those of checking every pair, and a group of k
// copies checks far fewer than k²/2 pairs.
TEST(RobustStageTest, PairsOfPagesAlreadyJoinedAreCountedNotCheckedAndClustersStay) {
  std::mt19937_64 rng(37);
  Sketches s;
  const auto first = Terms(rng, 200), second = Terms(rng, 200);
  const uint32_t n = 1130;  // two groups of 550 copies (301,950 pairs, over four batches) and 30 others
  for (uint32_t c = 0; c < n; ++c) {
    if (c % 37 == 36) {
      s.Add(Terms(rng, 200), 10 + c);
    } else {
      s.Add(c % 2 == 0 ? first : second, 10 + c);
    }
  }
  std::vector<uint8_t> candidate(n, 1);
  const RobustPages pages = s.Pages();
  std::unique_ptr<Executor> executor = NewThreadPoolExecutor(2);
  UnionFind all_checked(n), skipping(n);
  SiteTemplates t1, t2;
  auto listed = RunRobustStage(pages, candidate, s.options, 1000, true, RobustStageFiles(), &t1, &all_checked,
                               executor.get());
  auto counted = RunRobustStage(pages, candidate, s.options, 1000, false, RobustStageFiles(), &t2, &skipping,
                                executor.get());
  ASSERT_TRUE(listed.ok() && counted.ok());
  EXPECT_EQ(listed->pairs_already_joined, 0u);
  EXPECT_EQ(listed->pairs, listed->candidate_pairs);
  EXPECT_EQ(counted->candidate_pairs, listed->candidate_pairs);
  EXPECT_GT(counted->pairs_already_joined, 0u);
  EXPECT_LT(counted->pairs + counted->pairs_already_joined, counted->candidate_pairs + 1);
  EXPECT_LT(counted->pairs, listed->pairs);
  EXPECT_EQ(counted->pages_with_pair, listed->pages_with_pair);
  for (uint32_t a = 0; a < n; ++a) {
    for (uint32_t b = a + 1; b < n; b += 7) {
      ASSERT_EQ(all_checked.Find(a) == all_checked.Find(b), skipping.Find(a) == skipping.Find(b)) << a << " " << b;
    }
  }
  EXPECT_EQ(skipping.SetSize(0), all_checked.SetSize(0));
  EXPECT_GE(skipping.SetSize(0), 500u);
}

// RunTasks runs every task once, also when called from a worker of its own
// executor while the executor's other worker is busy.
TEST(RunTasksTest, EveryTaskRunsOnceAndACallFromAWorkerFinishes) {
  std::unique_ptr<Executor> executor = NewThreadPoolExecutor(2);
  std::vector<std::atomic<int>> runs(1000);
  RunTasks(executor.get(), runs.size(), [&](size_t t) { runs[t].fetch_add(1); });
  for (const auto& r : runs) EXPECT_EQ(r.load(), 1);
  std::mutex mu;
  std::condition_variable cv;
  bool release = false, finished = false;
  executor->Schedule([&] {  // keeps one worker busy until the call below has finished
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return release; });
  });
  std::atomic<size_t> sum{0};
  executor->Schedule([&] {
    RunTasks(executor.get(), 100, [&](size_t t) { sum += t; });
    std::lock_guard<std::mutex> lock(mu);
    finished = true;
    cv.notify_all();
  });
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return finished; });
    release = true;
    cv.notify_all();
  }
  EXPECT_EQ(sum.load(), 99u * 100 / 2);
  // Without an executor the tasks run in order on this thread.
  std::vector<size_t> order;
  RunTasks(nullptr, 5, [&](size_t t) { order.push_back(t); });
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4}));
}


// SortOnThreads leaves std::sort's order on any number of threads, at sizes
// below, at and above the point where it starts to split (parts of unequal
// sizes, many equal keys, pairs that differ only in their second half).
TEST(RunTasksTest, SortOnThreadsLeavesStdSortsOrder) {
  std::mt19937_64 rng(5);
  for (int threads : {0, 1, 2, 3, 4}) {
    std::unique_ptr<Executor> executor = threads > 0 ? NewThreadPoolExecutor(threads) : nullptr;
    for (size_t n : {size_t{0}, size_t{1}, kSortOnThreadsFrom - 1, kSortOnThreadsFrom, kSortOnThreadsFrom * 3 + 7}) {
      std::vector<std::pair<uint64_t, uint32_t>> v(n);
      for (size_t i = 0; i < n; ++i) v[i] = {rng() % (n / 4 + 1), static_cast<uint32_t>(rng())};
      std::vector<std::pair<uint64_t, uint32_t>> expected = v;
      std::sort(expected.begin(), expected.end());
      SortOnThreads(&v, executor.get());
      EXPECT_EQ(v, expected) << threads << " threads, " << n << " elements";
    }
  }
}
// Pages whose m min-hash values lie one after another in `mins` (no file).
RobustPages PagesInMemory(const std::vector<uint32_t>& mins, std::span<const uint64_t> sites, uint32_t m) {
  RobustPages pages;
  pages.n = static_cast<uint32_t>(sites.size());
  pages.m = m;
  pages.mins = mins.data();
  pages.mins_stride = m;
  pages.site = sites;
  return pages;
}

// A site too large for one block of columns (over 4 MiB of values) learns
// the same boilerplate from column files as from blocks re-read from its
// pages, and leaves no file behind.
TEST(RobustStageTest, ALargeSitesColumnFilesGiveTheTemplateOfBlocksOnAnyThreads) {
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
  const RobustMethodOptions o = WholePageOnly();
  const RobustPages pages = PagesInMemory(mins, sites, m);
  const std::vector<uint8_t> candidate(n, 1);
  const std::string dir = testing::MakeTempDir("robust-columns");
  const SiteTemplates in_blocks(pages, candidate, o);
  const SiteTemplates in_files(pages, candidate, o, RobustStageFiles{Env::Default(), dir, ""});
  // Site 1 is large enough for its positions to be looked at on threads.
  auto executor = NewThreadPoolExecutor(2);
  const SiteTemplates on_threads(pages, candidate, o, RobustStageFiles{Env::Default(), dir, ""}, executor.get());
  std::set<uint64_t> a, b, c;
  in_blocks.values().ForEach([&](uint64_t v) { a.insert(v); });
  in_files.values().ForEach([&](uint64_t v) { b.insert(v); });
  on_threads.values().ForEach([&](uint64_t v) { c.insert(v); });
  EXPECT_GT(a.size(), static_cast<size_t>(m));  // the template, and some rare values
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
  EXPECT_TRUE(in_files.KnowsTemplateOf(1));
  EXPECT_TRUE(in_files.KnowsTemplateOf(2));
  EXPECT_TRUE(Env::Default()->ListFilesRecursive(dir).value().empty());
}

// SiteTemplates' rule written plainly (whole pages, no main text): per
// site and position, the values TemplateHolders pages hold are common; a
// value fewer hold (template_min_pages or more) is boilerplate unless its
// next, middle and last holders are each copies of its first, that is,
// agree with it on kCopyContentSimilarity of the positions where they do
// not share a common value (nor, for a value two pages hold, one found
// boilerplate among those three or more hold); and a common value that
// few pages hold is not
// boilerplate when its holders are versions of one item (kMaxItemVersions).
// Rows are read whole, as the rule states it.
// With copies_count false, no holders are copies.
std::set<uint64_t> TemplateByTheRule(const std::vector<uint32_t>& mins, const std::vector<uint64_t>& sites,
                                     uint32_t m, const RobustMethodOptions& o, bool copies_count = true) {
  std::set<uint64_t> out;
  std::map<uint64_t, std::vector<uint32_t>> pages_of;
  for (uint32_t p = 0; p < sites.size(); ++p) pages_of[sites[p]].push_back(p);
  for (const auto& [site, pages] : pages_of) {
    if (pages.size() < o.template_min_pages) continue;
    const uint32_t need = SiteTemplates::TemplateHolders(static_cast<uint32_t>(pages.size()), o);
    std::vector<std::map<uint32_t, std::vector<uint32_t>>> holders(m);  // position -> value -> pages, ascending
    for (uint32_t p : pages) {
      for (uint32_t j = 0; j < m; ++j) holders[j][mins[size_t{p} * m + j]].push_back(p);
    }
    std::set<uint64_t> common;
    for (uint32_t j = 0; j < m; ++j) {
      for (const auto& [value, h] : holders[j]) {
        if (h.size() >= need) common.insert((uint64_t{j} << 32) | value);
      }
    }
    // `wider`: for values two pages hold, the boilerplate found among the
    // values more pages hold (left out of the agreement with the common
    // values).
    std::set<uint64_t> wider;
    auto copy = [&](uint32_t a, uint32_t b) {
      if (!copies_count) return false;
      uint32_t agreeing = 0, positions = 0;
      for (uint32_t j = 0; j < m; ++j) {
        const uint32_t va = mins[size_t{a} * m + j], vb = mins[size_t{b} * m + j];
        const uint64_t key = (uint64_t{j} << 32) | va;
        if (va == vb && (common.count(key) || wider.count(key))) continue;
        agreeing += va == vb;
        ++positions;
      }
      return positions == 0 || static_cast<double>(agreeing) / positions >= kCopyContentSimilarity;
    };
    // Versions of one item: a common value that h pages hold, from the
    // site's share (three at least) to kMaxItemVersions and not every page
    // of the site, is content when its next, middle and last holders are
    // each one item with its first: outside the common values more than
    // h pages hold, the two share one such value, at least half the
    // positions are left, and they agree on
    // min_similarity_without_template of those.
    auto one_item = [&](uint32_t a, uint32_t b, size_t h) {
      uint32_t shared = 0, agreeing = 0, positions = 0;
      for (uint32_t j = 0; j < m; ++j) {
        const uint32_t va = mins[size_t{a} * m + j], vb = mins[size_t{b} * m + j];
        if (va == vb && common.count((uint64_t{j} << 32) | va) && holders[j].at(va).size() > h) {
          ++shared;
          continue;
        }
        agreeing += va == vb;
        ++positions;
      }
      return shared > 0 && positions * 2 >= m &&
             static_cast<double>(agreeing) / positions >= o.min_similarity_without_template;
    };
    const size_t versions_from = pages.size() >= 3 ? std::max<size_t>(need, 3) : need;  // kCopyHolders
    for (uint32_t j = 0; j < m; ++j) {
      for (const auto& [value, h] : holders[j]) {
        const size_t k = h.size();
        const bool versions = k >= versions_from && k <= kMaxItemVersions && k < pages.size() &&
                              one_item(h[0], h[1], k) && one_item(h[0], h[k / 2], k) && one_item(h[0], h[k - 1], k);
        if (k >= need && !versions) out.insert((uint64_t{j} << 32) | value);
      }
    }
    if (need <= o.template_min_pages) continue;
    // Values three pages or more hold first, then those two hold, counted
    // outside what the first found too.
    std::set<uint64_t> found;
    for (const bool two : {false, true}) {
      for (uint32_t j = 0; j < m; ++j) {
        for (const auto& [value, h] : holders[j]) {
          if (h.size() >= need || h.size() < o.template_min_pages || (h.size() == 2) != two) continue;
          const size_t k = h.size();
          if (!copy(h[0], h[1]) || !copy(h[0], h[k / 2]) || !copy(h[0], h[k - 1])) {
            found.insert((uint64_t{j} << 32) | value);
          }
        }
      }
      if (!two) wider = found;
    }
    out.insert(found.begin(), found.end());
  }
  return out;
}

// On sites of items with copies (a few positions changed), sidebars that a
// few distinct items share and a template, SiteTemplates learns what the
// rule says, in blocks, in column files and on threads: its copy checks
// count agreement over the columns instead of reading pages. Site 1 is
// over a block (its columns go to files and to threads) and has more runs
// to check than pass 1 keeps for pass 2 (kCheckedRunsKept: pass 2 groups
// its positions again), site 2 one block and sparse (its runs kept).
// Items have 1 to 8 copies; a copy changes each position with probability
// 0.1 to 0.7, so that some copies pass the rule and some do not.
void ExpectTheCopyRule(uint32_t m, const std::vector<uint32_t>& site_pages) {
  std::mt19937_64 rng(41);
  std::vector<uint32_t> mins;
  std::vector<uint64_t> sites;
  std::vector<uint32_t> sidebars(60);
  for (uint32_t& v : sidebars) v = static_cast<uint32_t>(rng());
  for (uint64_t site = 1; site <= site_pages.size(); ++site) {
    const uint32_t total = site_pages[site - 1];
    uint32_t made = 0;
    while (made < total) {
      std::vector<uint32_t> item(m);
      for (uint32_t j = 0; j < m; ++j) {
        const uint64_t r = rng() % 100;
        item[j] = r < 25 ? 7000 + j : r < 35 ? sidebars[rng() % sidebars.size()] : static_cast<uint32_t>(rng());
      }
      const uint32_t copies = 1 + static_cast<uint32_t>(rng() % 8);
      const double change = 0.1 + 0.1 * static_cast<double>(rng() % 7);
      for (uint32_t c = 0; c < copies && made < total; ++c, ++made) {
        for (uint32_t j = 0; j < m; ++j) {
          const bool changed = c > 0 && std::uniform_real_distribution<double>(0, 1)(rng) < change;
          mins.push_back(changed ? static_cast<uint32_t>(rng()) : item[j]);
        }
        sites.push_back(site);
      }
    }
  }
  // Interleave the sites' pages so that site 2 is sparse.
  const uint32_t n = static_cast<uint32_t>(sites.size());
  std::vector<uint32_t> order(n);
  for (uint32_t i = 0; i < n; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<uint32_t> shuffled(size_t{n} * m);
  std::vector<uint64_t> shuffled_sites(n);
  for (uint32_t i = 0; i < n; ++i) {
    std::copy_n(mins.begin() + size_t{order[i]} * m, m, shuffled.begin() + size_t{i} * m);
    shuffled_sites[i] = sites[order[i]];
  }
  RobustMethodOptions o = WholePageOnly();
  o.num_minhashes = m;
  const std::set<uint64_t> expected = TemplateByTheRule(shuffled, shuffled_sites, m, o);
  const RobustPages pages = PagesInMemory(shuffled, shuffled_sites, m);
  const std::vector<uint8_t> candidate(n, 1);
  const std::string dir = testing::MakeTempDir("robust-copy-rule");
  auto executor = NewThreadPoolExecutor(2);
  const SiteTemplates in_blocks(pages, candidate, o);
  const SiteTemplates in_files(pages, candidate, o, RobustStageFiles{Env::Default(), dir, ""});
  const SiteTemplates on_threads(pages, candidate, o, RobustStageFiles{Env::Default(), dir, ""}, executor.get());
  size_t rare = 0;  // boilerplate that fewer than TemplateHolders pages hold
  for (uint64_t v : expected) rare += (v & 0xffffffffu) < 7000 || (v & 0xffffffffu) >= 7000 + m;
  EXPECT_GT(rare, 100u);
  // Copies keep many rare values as content.
  EXPECT_GT(TemplateByTheRule(shuffled, shuffled_sites, m, o, false).size(), expected.size() + 1000);
  for (const SiteTemplates* t : {&in_blocks, &in_files, &on_threads}) {
    std::set<uint64_t> got;
    t->values().ForEach([&](uint64_t v) { got.insert(v); });
    EXPECT_EQ(got, expected);
  }
}

TEST(RobustTemplateTest, TheBoilerplateLearnedIsWhatTheCopyRuleSays) { ExpectTheCopyRule(84, {12000, 900}); }

// A section of a large site (8 of its 400 pages, too few for the site's
// share) carries a sidebar. Two of its pages are little more than the
// sidebar (a documentation index and a stub page): where their own text
// is too short to win a position, the sidebar's values they hold are
// theirs alone. Counted with the sidebar the two agree on most positions
// outside the site's template and would read as copies of one item, and
// what only they hold as their content; counted outside the sidebar's
// boilerplate they are two items. A page and its copy with a word edited
// stay copies.
TEST(RobustTemplateTest, TwoPagesSharingASectionsSidebarAreNotOneItem) {
  const RobustMethodOptions o = WholePageOnly();
  const uint32_t m = o.num_minhashes, n = 400;
  std::mt19937_64 rng(7);
  std::vector<uint32_t> mins(size_t{n} * m);
  std::vector<uint64_t> sites(n, 1);
  for (uint32_t p = 0; p < n; ++p) {
    for (uint32_t j = 0; j < m; ++j) {
      mins[size_t{p} * m + j] = j < 20 ? 5000 + j : static_cast<uint32_t>(rng());  // the site's template
    }
  }
  // Section pages 10..17: the sidebar at positions 20..49.
  for (uint32_t p = 10; p < 18; ++p) {
    for (uint32_t j = 20; j < 50; ++j) mins[size_t{p} * m + j] = 9000 + j;
  }
  // The two thin pages, 10 and 11: sidebar values at positions 50..64
  // that no other page holds (15 of the 34 positions outside the
  // template and the sidebar: with the sidebar, 45 of 64).
  for (uint32_t j = 50; j < 65; ++j) mins[10 * m + j] = mins[11 * m + j] = 11000 + j;
  // Page 300 and its copy 301: the same but for 3 positions.
  for (uint32_t j = 20; j < m; ++j) mins[301 * m + j] = j % 25 == 0 ? static_cast<uint32_t>(rng()) : mins[300 * m + j];
  const RobustPages pages = PagesInMemory(mins, sites, m);
  const SiteTemplates t(pages, std::vector<uint8_t>(n, 1), o);
  for (uint32_t j = 20; j < 50; ++j) EXPECT_TRUE(t.IsTemplate(j, 9000 + j)) << j;
  for (uint32_t j = 50; j < 65; ++j) EXPECT_TRUE(t.IsTemplate(j, 11000 + j)) << j;
  RobustPageView a{&mins[10 * m], 1, nullptr}, b{&mins[11 * m], 1, nullptr};
  EXPECT_FALSE(RobustDecide(t, a, b, o).duplicate) << RobustDecide(t, a, b, o).reason;
  RobustPageView c{&mins[300 * m], 1, nullptr}, d{&mins[301 * m], 1, nullptr};
  EXPECT_TRUE(RobustDecide(t, c, d, o).duplicate) << RobustDecide(t, c, d, o).reason;
  for (uint32_t j = 20; j < m; ++j) {
    if (mins[300 * m + j] == mins[301 * m + j]) EXPECT_FALSE(t.IsTemplate(j, mins[300 * m + j])) << j;
  }
}

// Pages of more than 255 positions count their agreement in wider words.
TEST(RobustTemplateTest, TheCopyRuleHoldsForPagesOfManyPositions) { ExpectTheCopyRule(300, {4000, 300}); }

// Small sites are learned several at once on the executor's threads (runs
// of about 4,096 pages a task), beside a large one learned alone: the same
// boilerplate as one site after another.
TEST(RobustTemplateTest, SmallSitesLearnedAtOnceFollowTheCopyRule) {
  std::vector<uint32_t> site_pages = {9000};
  for (uint32_t k = 0; k < 60; ++k) site_pages.push_back(20 + (k * 37) % 400);
  ExpectTheCopyRule(84, site_pages);
}


}  // namespace
}  // namespace neardup

namespace neardup {
namespace {

// The verdict of the one rule does not depend on whether its reason is
// formatted (the near stage asks for none).
TEST(RobustDecideTest, TheVerdictIsTheSameWithoutTheReason) {
  RobustMethodOptions options;
  const uint32_t m = options.num_minhashes, positions = options.positions();
  std::mt19937 rng(3);
  int duplicates = 0, others = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<uint32_t> a(positions), b(positions);
    const uint32_t agree = rng() % (m + 1), main_agree = rng() % (positions - m + 1);
    for (uint32_t j = 0; j < positions; ++j) {
      a[j] = static_cast<uint32_t>(rng() % kNoMainText);
      b[j] = (j < m ? j < agree : j - m < main_agree) ? a[j] : static_cast<uint32_t>(rng() % kNoMainText);
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

namespace neardup {
namespace {

// Main text (RobustMethodOptions::main_minhashes): pages built as a site's
// template (a menu of links, short header and footer lines) around an
// article in paragraphs.
std::string Words(std::mt19937_64& rng, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) {
    for (int c = 3 + static_cast<int>(rng() % 5); c > 0; --c) s.push_back(static_cast<char>('a' + rng() % 26));
    s += (i % 12 == 11) ? ". " : " ";
  }
  return s;
}

struct SiteTemplateHtml {
  std::string head, tail;
};

// A template of `links` menu entries and short lines, the site's own words.
SiteTemplateHtml MakeTemplate(std::mt19937_64& rng, int links) {
  SiteTemplateHtml t;
  t.head = "<html><body><div>" + Words(rng, 4) + "</div><ul>";
  for (int i = 0; i < links; ++i) t.head += "<li><a href='/s" + std::to_string(i) + "'>" + Words(rng, 3) + "</a></li>";
  t.head += "</ul><h1>" + Words(rng, 5) + "</h1>";
  t.tail = "<div>" + Words(rng, 6) + "</div><div>" + Words(rng, 7) + "</div></body></html>";
  return t;
}

std::string Paragraphs(const std::string& text) {
  // Paragraphs of 24 words.
  std::string html = "<p>";
  int words = 0;
  for (char c : text) {
    html.push_back(c);
    if (c == ' ' && ++words % 24 == 0) html += "</p><p>";
  }
  return html + "</p>";
}

// `text` with its first sentence after byte `from` rewritten as 12 new words.
std::string WithOneSentenceRewritten(std::mt19937_64& rng, std::string text, size_t from) {
  const size_t at = text.find(". ", from) + 2;
  text.replace(at, text.find(". ", at) - at, Words(rng, 12));
  return text;
}

struct SignedPage {
  RobustSignature sig;
  std::vector<uint32_t> mins;
  std::vector<uint64_t> digest;
  uint64_t site = 0;
  std::array<uint64_t, kRobustTitleWords> title{};  // PackRobustTitle
  RobustPageView View() const {
    return RobustPageView{mins.data(), site, digest.data(), sig.main_shingles, sig.shingles, title.data()};
  }
};

SignedPage Sign(const std::string& html, const std::string& url, const RobustMethodOptions& o) {
  Tokenizer tokenizer;
  TokenizedDocument doc;
  tokenizer.Tokenize(html, ContentKind::kHtml, "utf-8", url, &doc);
  const RobustSketchers sketchers(o);
  SketchScratch scratch;
  std::vector<uint64_t> normalized;
  SignedPage p;
  p.mins.assign(o.positions(), 0);
  p.digest.assign(kRobustDigestCells, 0);
  p.sig = ComputeRobustSignature(doc, url, o, sketchers.whole, sketchers.main_or_null(), &scratch, &normalized,
                                 p.mins.data(), p.digest.data());
  PackRobustTitle(doc, o.title_numbers, p.title.data());
  const std::string site = RobustSiteOf(url);
  p.site = XXH3_64bits(site.data(), site.size());
  return p;
}

// The site templates learned from `pages`, every one a candidate; with
// their difference digests as a run learns them, or without.
SiteTemplates TemplatesOf(const std::vector<SignedPage>& pages, const RobustMethodOptions& o,
                          bool with_digests = false) {
  std::vector<uint32_t> mins;
  std::vector<uint64_t> sites, digests, titles;
  for (const SignedPage& p : pages) {
    mins.insert(mins.end(), p.mins.begin(), p.mins.end());
    sites.push_back(p.site);
    if (with_digests) digests.insert(digests.end(), p.digest.begin(), p.digest.end());
    titles.insert(titles.end(), p.title.begin(), p.title.end());
  }
  return SiteTemplates(mins, sites, std::vector<uint8_t>(pages.size(), 1), o, digests, titles);
}

// The signature counts each distinct shingle once and builds its
// difference digest from exactly those keys, whatever the page repeats:
// checked against a std::set of the same shingles, on pages from a few
// shingles to several thousand (the key set grows, its slots collide).
TEST(RobustSignatureTest, CountsAndDigestsEachDistinctShingleOnce) {
  std::mt19937_64 rng(17);
  const RobustMethodOptions o;
  ASSERT_TRUE(o.keeps_main_shingles());
  const RobustSketchers sketchers(o);
  for (int unique_words : {8, 300, 5000}) {
    const std::string repeated = Words(rng, 150);
    std::string text = repeated + " " + Words(rng, unique_words) + " " + repeated + " " + repeated;
    const std::string html = "<html><body><nav>home news about</nav>" + Paragraphs(text) + "</body></html>";
    Tokenizer tokenizer;
    TokenizedDocument doc;
    tokenizer.Tokenize(html, ContentKind::kHtml, "utf-8", "http://site.example/a", &doc);
    SketchScratch scratch;
    std::vector<uint64_t> normalized;
    std::vector<uint32_t> mins(o.positions());
    std::vector<uint64_t> digest(kRobustDigestCells);
    const RobustSignature sig = ComputeRobustSignature(doc, "http://site.example/a", o, sketchers.whole,
                                                       sketchers.main_or_null(), &scratch, &normalized,
                                                       mins.data(), digest.data());
    std::vector<uint64_t> shingles;
    sketchers.whole.Shingles(normalized, &shingles);
    std::set<uint32_t> distinct;
    for (uint64_t sh : shingles) distinct.insert(static_cast<uint32_t>(sh));
    ASSERT_GT(shingles.size(), distinct.size() + 100) << "the page repeats shingles";
    EXPECT_EQ(sig.shingles, distinct.size()) << unique_words;
    std::vector<uint64_t> expected(kRobustDigestCells);
    const std::vector<uint32_t> keys(distinct.begin(), distinct.end());
    DifferenceDigest::Build(keys, kRobustDigestCells, expected.data());
    EXPECT_EQ(digest, expected) << unique_words;
  }
}

TEST(RobustMainTextTest, MainTextLeavesOutMenusAndShortLines) {
  std::mt19937_64 rng(41);
  const SiteTemplateHtml t = MakeTemplate(rng, 40);
  const std::string article = Words(rng, 120);
  Tokenizer tokenizer;
  TokenizedDocument doc;
  const std::string url = "http://news.example.com/a";
  tokenizer.Tokenize(t.head + Paragraphs(article) + t.tail, ContentKind::kHtml, "utf-8", url, &doc);
  RobustMethodOptions o;
  std::vector<uint64_t> whole, main_text, article_alone;
  NormalizeVolatileTerms(doc, url, o, &whole, nullptr, nullptr, &main_text);
  tokenizer.Tokenize(Paragraphs(article), ContentKind::kHtml, "utf-8", url, &doc);
  NormalizeVolatileTerms(doc, url, o, &article_alone);
  EXPECT_GT(whole.size(), main_text.size() + 100);  // the menu and the short lines are left out
  EXPECT_EQ(main_text, article_alone);
  // Plain text has no navigation: every line is main text, short or not.
  tokenizer.Tokenize("Short line.\nAnother line with a few more words in it than that.\n", ContentKind::kText,
                     "utf-8", url, &doc);
  NormalizeVolatileTerms(doc, url, o, &whole, nullptr, nullptr, &main_text);
  EXPECT_EQ(main_text, whole);
  // A line of 10 terms, 3 of them linked, is main text; 4 of 10 linked, or
  // a line of 9 terms, is not.
  EXPECT_TRUE(MainTextLine(10, 3, o));
  EXPECT_FALSE(MainTextLine(10, 4, o));
  EXPECT_FALSE(MainTextLine(9, 0, o));
}

TEST(RobustMainTextTest, OneArticleInTwoSitesTemplatesIsANearDuplicate) {
  std::mt19937_64 rng(43);
  const SiteTemplateHtml a = MakeTemplate(rng, 60), b = MakeTemplate(rng, 60);
  const std::string article = Words(rng, 150);
  const RobustMethodOptions o;
  const SignedPage pa = Sign(a.head + Paragraphs(article) + a.tail, "http://www.paper-one.example/story/1", o);
  // The copy: a headline of its own and one sentence rewritten.
  std::string edited = article;
  edited.replace(edited.find(' ', 300), 1, " " + Words(rng, 8));
  const SignedPage pb = Sign(b.head + Paragraphs(edited) + b.tail, "http://news.paper-two.example/wire/77", o);
  ASSERT_TRUE(HasMainText(pa.mins.data(), o));
  ASSERT_TRUE(HasMainText(pb.mins.data(), o));
  SiteTemplates::Match match;
  const PairDecision d = RobustDecide(SiteTemplates(), pa.View(), pb.View(), o, &match);
  EXPECT_LT(match.similarity(), o.min_similarity_without_template);  // the whole pages are not alike
  EXPECT_TRUE(d.duplicate) << d.reason;
  EXPECT_NE(d.reason.find("the same main text"), std::string::npos) << d.reason;
  EXPECT_GE(d.similarity, o.min_main_similarity);
  // Without main text the whole-page rule decides, and says no.
  RobustMethodOptions off = o;
  off.main_minhashes = 0;
  const SignedPage qa = Sign(a.head + Paragraphs(article) + a.tail, "http://www.paper-one.example/story/1", off);
  const SignedPage qb = Sign(b.head + Paragraphs(edited) + b.tail, "http://news.paper-two.example/wire/77", off);
  EXPECT_FALSE(RobustDecide(SiteTemplates(), qa.View(), qb.View(), off).duplicate);
  // On one site (one registrable domain) with no template known, the main
  // text does not decide: the site rule stands.
  const SignedPage pc = Sign(b.head + Paragraphs(edited) + b.tail, "http://sport.paper-one.example/wire/77", o);
  EXPECT_FALSE(RobustDecide(SiteTemplates(), pa.View(), pc.View(), o).duplicate);
}

// Main-text positions that one page's boilerplate wins are left out of the
// main texts' resemblance, so that it estimates the resemblance of the
// items (Broder's estimate over the positions whose least value over both
// main texts is an item's): a mirror that adds its own paragraph to every
// page (learned as its template) neither raises nor lowers it. Over random
// articles, the estimate for an article and its mirrored copy with the
// paragraph matches the estimate without it, where counting those
// positions as disagreeing reads the copy as about half as alike. The
// masked comparison of a divided run gives the same counts. With 64-bit
// values nothing is left out.
TEST(RobustMainTextTest, OnePagesBoilerplateInItsMainTextIsLeftOut) {
  std::mt19937_64 rng(53);
  const RobustMethodOptions o;
  ASSERT_TRUE(MainTextOrder::AppliesTo(o));
  auto page = [](const std::string& body) { return "<html><body>" + body + "</body></html>"; };
  const std::string banner = Paragraphs(Words(rng, 150));  // the mirror's own paragraph, as long as an article
  constexpr int kSitePages = 12, kTrials = 30;
  // Each site's own pages under `dir`: the origin's, and the mirror's with
  // its banner.
  auto site_pages = [&](const std::string& dir, const RobustMethodOptions& options) {
    std::vector<SignedPage> pages;
    for (int i = 0; i < kSitePages; ++i) {
      const std::string path = std::string(dir).append("/").append(std::to_string(i));
      pages.push_back(
          Sign(page(Paragraphs(Words(rng, 150))), std::string("http://www.origin.example/").append(path), options));
      pages.push_back(Sign(page(banner + Paragraphs(Words(rng, 150))),
                           std::string("http://www.mirror.example/").append(path), options));
    }
    return pages;
  };
  double with_banner = 0, without_banner = 0, counted_against = 0;
  uint32_t left_out = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    std::vector<SignedPage> pages = site_pages(std::to_string(trial), o);
    const std::string article = Words(rng, 150);
    const std::string copy = WithOneSentenceRewritten(rng, article, article.size() / 2);
    pages.push_back(Sign(page(Paragraphs(article)), "http://www.origin.example/story", o));
    pages.push_back(Sign(page(banner + Paragraphs(copy)), "http://www.mirror.example/story", o));
    pages.push_back(Sign(page(Paragraphs(copy)), "http://www.plain.example/story", o));
    const SiteTemplates templates = TemplatesOf(pages, o);
    const SignedPage& a = pages[pages.size() - 3];
    const SignedPage& mirrored = pages[pages.size() - 2];
    const SignedPage& plain = pages[pages.size() - 1];
    const SiteTemplates::Match m = templates.Compare(a.mins.data(), mirrored.mins.data(), o);
    const SiteTemplates::Match p = templates.Compare(a.mins.data(), plain.mins.data(), o);
    ASSERT_GT(m.main_positions, 0u);
    ASSERT_GT(p.main_positions, 0u);
    EXPECT_EQ(p.main_boilerplate_alone, 0u) << "no boilerplate in either main text";
    with_banner += m.main_similarity();
    without_banner += p.main_similarity();
    counted_against += static_cast<double>(m.main_agreeing) / m.main_positions;
    left_out += m.main_boilerplate_alone;
    // A divided run's masks give the same counts.
    std::vector<uint64_t> mask_a((o.positions() + 63) / 64), mask_b(mask_a.size());
    for (uint32_t j = 0; j < o.positions(); ++j) {
      if (templates.IsTemplate(j, a.mins[j])) mask_a[j / 64] |= uint64_t{1} << (j % 64);
      if (templates.IsTemplate(j, mirrored.mins[j])) mask_b[j / 64] |= uint64_t{1} << (j % 64);
    }
    const MainTextOrder order(o);
    const SiteTemplates::Match masked =
        SiteTemplates::CompareMasked(a.mins.data(), mirrored.mins.data(), mask_a.data(), mask_b.data(), &order, o);
    EXPECT_EQ(std::tie(masked.agreeing, masked.positions, masked.template_shared, masked.main_agreeing,
                       masked.main_positions, masked.main_template_shared, masked.main_boilerplate_alone),
              std::tie(m.agreeing, m.positions, m.template_shared, m.main_agreeing, m.main_positions,
                       m.main_template_shared, m.main_boilerplate_alone));
  }
  with_banner /= kTrials;
  without_banner /= kTrials;
  counted_against /= kTrials;
  EXPECT_GT(left_out, kTrials * o.main_minhashes / 4) << "the banner wins about half the main-text positions";
  EXPECT_NEAR(with_banner, without_banner, 0.05);
  EXPECT_LT(counted_against, without_banner - 0.2) << "counted as disagreeing, the banner reads the copy as another text";
  // With 64-bit values the order is unknown (a value's low half does not
  // give its image) and nothing is left out: the banner's positions count
  // as disagreeing, as before the order was used.
  RobustMethodOptions wide = o;
  wide.minhash_bits = 64;
  EXPECT_FALSE(MainTextOrder::AppliesTo(wide));
  std::vector<SignedPage> pages = site_pages("wide", wide);
  const std::string article = Words(rng, 150);
  pages.push_back(Sign(page(Paragraphs(article)), "http://www.origin.example/story", wide));
  pages.push_back(Sign(page(banner + Paragraphs(article)), "http://www.mirror.example/story", wide));
  const SiteTemplates::Match m =
      TemplatesOf(pages, wide).Compare(pages[pages.size() - 2].mins.data(), pages.back().mins.data(), wide);
  ASSERT_GT(m.main_positions, 0u);
  EXPECT_EQ(m.main_boilerplate_alone, 0u);
  EXPECT_LT(m.main_similarity(), 0.8) << "the banner's positions count against the copy";
}

TEST(RobustMainTextTest, DifferentArticlesInOneTemplateAreNotEvenWhenTheWholePagesAgree) {
  // Sister sites: one large template, two short different articles. The
  // whole pages agree beyond the bar for pages with no template known; the
  // main texts do not, and they decide.
  std::mt19937_64 rng(47);
  const SiteTemplateHtml t = MakeTemplate(rng, 300);
  const RobustMethodOptions o;
  const SignedPage pa = Sign(t.head + Paragraphs(Words(rng, 70)) + t.tail, "http://www.town-one.example/n/1", o);
  const SignedPage pb = Sign(t.head + Paragraphs(Words(rng, 70)) + t.tail, "http://www.town-two.example/n/2", o);
  SiteTemplates::Match match;
  const PairDecision d = RobustDecide(SiteTemplates(), pa.View(), pb.View(), o, &match);
  EXPECT_GE(match.similarity(), o.min_similarity_without_template);
  EXPECT_LT(match.main_similarity(), o.min_main_similarity);
  EXPECT_FALSE(d.duplicate);
  EXPECT_NE(d.reason.find("main texts differ"), std::string::npos) << d.reason;
  // Without main text, the whole-page rule merges them (the false positive
  // the main text removes).
  RobustMethodOptions off = o;
  off.main_minhashes = 0;
  std::mt19937_64 again(47);
  const SiteTemplateHtml t2 = MakeTemplate(again, 300);
  const SignedPage qa = Sign(t2.head + Paragraphs(Words(again, 70)) + t2.tail, "http://www.town-one.example/n/1", off);
  const SignedPage qb = Sign(t2.head + Paragraphs(Words(again, 70)) + t2.tail, "http://www.town-two.example/n/2", off);
  EXPECT_TRUE(RobustDecide(SiteTemplates(), qa.View(), qb.View(), off).duplicate);
}

// Two editions of one newspaper group (one registrable domain, two hosts,
// two templates) carry one story: the values its two pages share are not
// learned as the site's template (they are checked by main text), and the
// pair is a near duplicate. Without main text the story is template.
TEST(RobustMainTextTest, OneStoryInTwoEditionsOfOneSiteIsNotItsTemplate) {
  auto run = [](const RobustMethodOptions& o) {
    std::mt19937_64 rng(59);
    const SiteTemplateHtml t1 = MakeTemplate(rng, 40), t2 = MakeTemplate(rng, 40);
    const std::string story = Words(rng, 150);
    std::string edited = story;
    edited.replace(edited.find(' ', 200), 1, " " + Words(rng, 6));
    std::vector<SignedPage> pages;
    for (int i = 0; i < 4; ++i) {
      pages.push_back(Sign(t1.head + Paragraphs(Words(rng, 150)) + t1.tail,
                           "http://east.group.example/n/" + std::to_string(i), o));
      pages.push_back(Sign(t2.head + Paragraphs(Words(rng, 150)) + t2.tail,
                           "http://west.group.example/n/" + std::to_string(i), o));
    }
    pages.push_back(Sign(t1.head + Paragraphs(story) + t1.tail, "http://east.group.example/story", o));
    pages.push_back(Sign(t2.head + Paragraphs(edited) + t2.tail, "http://west.group.example/wire/story", o));
    EXPECT_EQ(pages.front().site, pages.back().site);  // one site
    const SiteTemplates templates = TemplatesOf(pages, o);
    EXPECT_TRUE(templates.KnowsTemplateOf(pages.front().site));
    return RobustDecide(templates, pages[8].View(), pages[9].View(), o);
  };
  const PairDecision with_main = run(RobustMethodOptions());
  EXPECT_TRUE(with_main.duplicate) << with_main.reason;
  RobustMethodOptions off;
  off.main_minhashes = 0;
  const PairDecision without = run(off);
  EXPECT_FALSE(without.duplicate) << without.reason;
}

// A page and its revision on one small site (one sentence rewritten, a
// year changed): the values only the two hold are not learned as the
// site's template, since the two are one item in one template, and the
// pair is a near duplicate. Two different articles of the site that share
// a sidebar no other page carries stay apart (their main texts differ).
// The two alone on their site are one text too (TwoPagesOneText): whole
// pages alike as pages with no template known, main texts alike; two
// different articles alone on a site of a heavy template, alike as whole
// pages, are not (their main texts differ: what they share is the template).
TEST(RobustTemplateTest, APageAndItsRevisionOnASmallSiteAreNotItsTemplate) {
  std::mt19937_64 rng(67);
  const SiteTemplateHtml t = MakeTemplate(rng, 30);
  const std::string story = Words(rng, 300);
  const std::string revised = WithOneSentenceRewritten(rng, story, 600);
  const std::string sidebar = "<div>" + Words(rng, 40) + "</div>";
  const RobustMethodOptions o;
  auto page = [&](const std::string& text, const std::string& extra, const std::string& year) {
    return t.head + Paragraphs(text) + extra + "<p>Updated " + year + " by the newsroom.</p>" + t.tail;
  };
  auto run = [&](int others, bool with_sidebar_pair) {
    std::vector<SignedPage> pages;
    pages.push_back(Sign(page(story, "", "2023"), "http://www.small-paper.example/2023/story", o));
    pages.push_back(Sign(page(revised, "", "2024"), "http://www.small-paper.example/print/story", o));
    for (int i = 0; i < others; ++i) {
      pages.push_back(Sign(page(Words(rng, 300), "", "2024"), "http://www.small-paper.example/n/" + std::to_string(i), o));
    }
    if (with_sidebar_pair) {
      pages.push_back(Sign(page(Words(rng, 300), sidebar, "2024"), "http://www.small-paper.example/s/1", o));
      pages.push_back(Sign(page(Words(rng, 300), sidebar, "2024"), "http://www.small-paper.example/s/2", o));
    }
    const SiteTemplates templates = TemplatesOf(pages, o);
    EXPECT_TRUE(templates.KnowsTemplateOf(pages.front().site));
    const PairDecision revision = RobustDecide(templates, pages[0].View(), pages[1].View(), o);
    const PairDecision sidebar_pair =
        with_sidebar_pair ? RobustDecide(templates, pages[pages.size() - 2].View(), pages.back().View(), o)
                          : PairDecision();
    return std::make_pair(revision, sidebar_pair);
  };
  for (int others : {1, 4, 20}) {
    const auto [revision, sidebar_pair] = run(others, true);
    EXPECT_TRUE(revision.duplicate) << others << " other pages: " << revision.reason;
    EXPECT_FALSE(sidebar_pair.duplicate) << others << " other pages: " << sidebar_pair.reason;
  }
  const PairDecision alone = run(0, false).first;
  EXPECT_TRUE(alone.duplicate) << alone.reason;
  const SiteTemplateHtml heavy = MakeTemplate(rng, 300);
  std::vector<SignedPage> two;
  for (int i = 0; i < 2; ++i) {
    two.push_back(Sign(heavy.head + Paragraphs(Words(rng, 60)) + heavy.tail,
                       "http://www.shop.example/item/" + std::to_string(i), o));
  }
  const SiteTemplates two_templates = TemplatesOf(two, o);
  uint32_t whole_agreeing = 0;
  for (uint32_t j = 0; j < o.num_minhashes; ++j) whole_agreeing += two[0].mins[j] == two[1].mins[j];
  ASSERT_GE(whole_agreeing, o.min_similarity_without_template * o.num_minhashes);  // alike as whole pages
  const PairDecision items = RobustDecide(two_templates, two[0].View(), two[1].View(), o);
  EXPECT_FALSE(items.duplicate) << items.reason;
}

// The site templates learned from `pages` read as a run reads them: one
// record a page with its min-hash values, its two shingle counts and its
// difference digest (the counts are what the containment tests need).
SiteTemplates TemplatesWithCounts(const std::vector<SignedPage>& pages, const RobustMethodOptions& o) {
  const size_t mins_words = (o.positions() + 1) / 2, counts_word = mins_words, digest_word = mins_words + 1;
  const size_t title_word = digest_word + kRobustDigestCells, record_words = title_word + kRobustTitleWords;
  std::vector<uint64_t> records(pages.size() * record_words, 0), sites;
  for (size_t p = 0; p < pages.size(); ++p) {
    uint64_t* record = records.data() + p * record_words;
    std::memcpy(record, pages[p].mins.data(), pages[p].mins.size() * sizeof(uint32_t));
    record[counts_word] = PackShingleCounts(pages[p].sig);
    std::copy(pages[p].digest.begin(), pages[p].digest.end(), record + digest_word);
    std::copy(pages[p].title.begin(), pages[p].title.end(), record + title_word);
    sites.push_back(pages[p].site);
  }
  RobustPages view;
  view.n = static_cast<uint32_t>(pages.size());
  view.m = o.positions();
  view.mins = reinterpret_cast<const uint32_t*>(records.data());
  view.mins_stride = record_words * 2;
  view.digests = records.data() + digest_word;
  view.digest_stride = record_words;
  view.site = sites;
  view.record_words = record_words;
  view.digest_word = digest_word;
  view.main_shingles = records.data() + counts_word;
  view.main_shingles_word = counts_word;
  view.titles = records.data() + title_word;
  view.titles_stride = record_words;
  view.title_word = title_word;
  return SiteTemplates(view, std::vector<uint8_t>(pages.size(), 1), o);
}

// A title as the rule keeps it (PackRobustTitle), from a page's <title>.
std::array<uint64_t, kRobustTitleWords> TitleOf(const std::string& title, bool numbers = false) {
  Tokenizer tokenizer;
  TokenizedDocument doc;
  tokenizer.Tokenize("<title>" + title + "</title><p>body</p>", ContentKind::kHtml, "utf-8", "", &doc);
  std::array<uint64_t, kRobustTitleWords> out{};
  PackRobustTitle(doc, numbers, out.data());
  return out;
}

bool NameTwoItems(const std::string& a, const std::string& b, bool numbers = false, bool function_words = true) {
  return TitlesNameTwoItems(TitleOf(a, numbers).data(), TitleOf(b, numbers).data(), numbers, function_words);
}

// Function words (title_function_words) are no word in common: headlines
// that share only "the", "of", "für", "den" name two items; a content word
// in common still makes one item, whatever else the titles share.
TEST(RobustTitleTest, TitlesSharingOnlyFunctionWordsNameTwoItems) {
  const std::string monster = "I often use the metaphor of a monster";
  const std::string rabies = "How do you get it? The most common way";
  EXPECT_TRUE(NameTwoItems(monster, rabies));
  EXPECT_FALSE(NameTwoItems(monster, rabies, false, /*function_words=*/false));
  EXPECT_TRUE(NameTwoItems(monster + " | Iris649", rabies + " | Iris649", true));
  EXPECT_TRUE(NameTwoItems("Tipps f\xc3\xbcr den Garten", "Rezepte f\xc3\xbcr den Winter"));
  EXPECT_FALSE(NameTwoItems("Tipps f\xc3\xbcr den Garten", "Rezepte f\xc3\xbcr den Winter", false, false));
  EXPECT_TRUE(NameTwoItems("La maison de la culture", "Le prix du pain et de la farine"));
  // A headline rewritten around one of its content words names one item.
  EXPECT_FALSE(NameTwoItems("The mayor of Springfield resigns", "Springfield's mayor quits after the vote"));
  EXPECT_FALSE(NameTwoItems("How to grow tomatoes", "Growing tomatoes: how to start"));
  // A word some other language uses as a function word but English as a
  // content word is a word in common ("war", "die").
  EXPECT_FALSE(NameTwoItems("War in the north", "The war ends"));
}

// Titles that name their items by number (title_numbers): each own part
// holds a number of four digits or more and none of one's is the other's.
TEST(RobustTitleTest, TitlesNamingTwoNumbersNameTwoItems) {
  // Two records of a database site: "record" is in both own parts, so
  // without numbers the titles are not told apart.
  EXPECT_FALSE(NameTwoItems("Bluebird945: home record 173815", "Bluebird945: people record 173816"));
  EXPECT_TRUE(NameTwoItems("Bluebird945: home record 173815", "Bluebird945: people record 173816", true));
  EXPECT_TRUE(NameTwoItems("Bug 1234567 - crash on start", "Bug 1234602 - crash on exit", true));
  EXPECT_TRUE(NameTwoItems("Annual report 2023", "Annual report 2024", true));
  // A revision keeps its item's number; short figures (a toll, a score)
  // are not numbers that name an item.
  EXPECT_FALSE(NameTwoItems("Bug 1234567 - crash on start", "Bug 1234567 - crash on start (fixed)", true));
  EXPECT_FALSE(NameTwoItems("5 killed in blast", "7 killed in blast", true));
  EXPECT_FALSE(NameTwoItems("Dow falls 300 points", "Dow falls 350 points as banks slide", true));
  // Only one own part with a number: the rule of words decides.
  EXPECT_FALSE(NameTwoItems("Olympics 2008: swimmer wins gold", "Olympics: swimmer wins gold", true));
  // A number shared by the own parts is one item's.
  EXPECT_FALSE(NameTwoItems("Storm 2024 hits coast", "Coast 2024 storm damage 2025", true));
  // Marking numbers keeps what the words rule says of titles without them.
  EXPECT_EQ(NameTwoItems("Mubarak backs Mideast pact - AP", "Egypt's leader backs the pact - AP", true),
            NameTwoItems("Mubarak backs Mideast pact - AP", "Egypt's leader backs the pact - AP"));
  EXPECT_TRUE(NameTwoItems("Camping gear", "Cycling shoes", true));
}

TEST(RobustTitleTest, TitlesNameTwoItemsPastWhatTheyShareAtTheirEnds) {
  // Two items of one site: the site's name shared at the end, the rest
  // their own and nothing in common.
  EXPECT_TRUE(NameTwoItems("There are other things sometimes left in tool boxes | Fox683",
                           "The Arapahoe County coroner's office confirmed that two | Fox683"));
  EXPECT_TRUE(NameTwoItems("Fox683 - Old tool box holds coins", "Fox683 - Coroner confirms two victims"));
  EXPECT_TRUE(NameTwoItems("Camping gear", "Cycling shoes"));  // nothing shared at all
  // An article and its revision: one word replaced in the middle, a
  // headline partly rewritten (a word in common past the ends), or one
  // title the other's beginning.
  EXPECT_FALSE(NameTwoItems("Gaborik, Garon, Hartnell are the NHL's three stars",
                            "Gaborik, Backstrom, Hartnell are the NHL's three stars"));
  EXPECT_FALSE(NameTwoItems("Mubarak backs Mideast pact - AP", "Egypt's leader backs the pact - AP"));
  EXPECT_FALSE(NameTwoItems("Storm hits coast", "Storm hits coast, three dead"));
  EXPECT_FALSE(NameTwoItems("Same title", "Same title"));
  // Own parts no longer than what the two share: "Home" and "Contact" of
  // "Home | Shop" and "Contact | Shop" say too little.
  EXPECT_FALSE(NameTwoItems("Home | Shop", "Contact | Shop"));
  EXPECT_TRUE(NameTwoItems("Home page | Shop", "Contact us | Shop"));
  // Case and punctuation are not words.
  EXPECT_FALSE(NameTwoItems("STORM HITS COAST!", "storm, hits: coast"));
  // A page without a title names nothing.
  const std::array<uint64_t, kRobustTitleWords> none{};
  EXPECT_FALSE(TitlesNameTwoItems(none.data(), TitleOf("Camping gear").data(), false, true));
  EXPECT_FALSE(TitlesNameTwoItems(none.data(), none.data(), true, true));
  // A long title keeps its first and last 8 terms: two that differ only
  // past those are kept alike; the site's name at the end still counts.
  const std::string head = "one two three four five six seven eight ", tail = " nine ten eleven twelve thirteen fourteen fifteen sixteen";
  EXPECT_EQ(TitleOf(head + "alpha beta" + tail), TitleOf(head + "gamma delta" + tail));
  EXPECT_TRUE(NameTwoItems("a b c d e f g h i j k l m n o p q r | Site", "s t u v w x y z aa bb cc dd ee ff gg | Site"));
}

// Two pages alone on a site whose template holds most of their text in
// long blocks that read as main text (a home page and one article under
// it): their whole pages and their main texts are as alike as an article
// and its revision. Their titles name two items, so they are not one text
// (TwoPagesOneText): the site learns its template from them and they stay
// apart. Titled as an article and its revision, or without
// compare_titles, they are one text and near duplicates.
TEST(RobustTitleTest, TwoItemsAloneOnASiteAreToldApartByTheirTitles) {
  std::mt19937_64 rng(131);
  std::string blocks;
  for (int i = 0; i < 30; ++i) blocks += "<div>" + Words(rng, 30) + "</div>";
  const std::string item_a = Words(rng, 50), item_b = Words(rng, 50);
  auto page = [&](const std::string& title, const std::string& item) {
    return "<html><head><title>" + title + " | Tiny Site</title></head><body>" + blocks + Paragraphs(item) +
           "</body></html>";
  };
  auto run = [&](const RobustMethodOptions& o, const std::string& title_a, const std::string& title_b) {
    std::vector<SignedPage> pages;
    pages.push_back(Sign(page(title_a, item_a), "http://www.tiny-site.example/", o));
    pages.push_back(Sign(page(title_b, item_b), "http://www.tiny-site.example/reviews/tool-box", o));
    uint32_t whole = 0, main = 0;
    for (uint32_t j = 0; j < o.num_minhashes; ++j) whole += pages[0].mins[j] == pages[1].mins[j];
    for (uint32_t j = o.num_minhashes; j < o.positions(); ++j) main += pages[0].mins[j] == pages[1].mins[j];
    EXPECT_GE(whole, o.min_similarity_without_template * o.num_minhashes);  // alike as whole pages
    EXPECT_GE(main, o.min_main_similarity * o.main_minhashes);             // and as main texts
    const SiteTemplates templates = TemplatesWithCounts(pages, o);
    const PairDecision d = RobustDecide(templates, pages[0].View(), pages[1].View(), o);
    return std::make_tuple(templates.OneTextSite(pages[0].site), templates.TwoTitlesSite(pages[0].site),
                           templates.size(), d);
  };
  const RobustMethodOptions o;
  const auto [one_text, two_titles, learned, d] =
      run(o, "Coroner confirms two victims of the shooting", "Old tool box holds rare coins");
  EXPECT_FALSE(one_text);
  EXPECT_TRUE(two_titles);
  EXPECT_GT(learned, 0u);
  EXPECT_FALSE(d.duplicate) << d.reason;
  const auto [revision, revision_titles, revision_learned, revision_d] =
      run(o, "Coroner confirms two victims of the shooting", "Coroner now confirms three victims of the shooting");
  EXPECT_TRUE(revision);
  EXPECT_FALSE(revision_titles);
  EXPECT_EQ(revision_learned, 0u);
  EXPECT_TRUE(revision_d.duplicate) << revision_d.reason;
  RobustMethodOptions off = o;
  off.compare_titles = false;
  const auto [off_one_text, off_titles, off_learned, off_d] =
      run(off, "Coroner confirms two victims of the shooting", "Old tool box holds rare coins");
  EXPECT_TRUE(off_one_text);
  EXPECT_FALSE(off_titles);
  EXPECT_TRUE(off_d.duplicate) << off_d.reason;
}

// A story and its revision on a site of four pages (a headline made
// longer, two sentences rewritten, a correction appended): outside the
// site's template they agree below the one-template rule's 0.8, but as
// whole pages (the template counted) and as main texts they are as alike
// as two pages alone on a site must be, and their titles name one item:
// on a site of fewer than kMainCopySitePages pages that makes them one
// item, and the pair near duplicates. Without titles (compare_titles off),
// or titled as two items, they stay apart.
TEST(RobustTitleTest, ARevisionOnASmallSiteIsOneItemWhenTitledAsOne) {
  std::mt19937_64 rng(59);
  const SiteTemplateHtml t = MakeTemplate(rng, 150);
  const std::string story = Words(rng, 300);
  const std::string revised =
      WithOneSentenceRewritten(rng, WithOneSentenceRewritten(rng, story, 200), 900) + " Correction: " + Words(rng, 25);
  auto page = [&](const std::string& title, const std::string& text) {
    return "<html><head><title>" + title + " | Small Paper</title></head>" + t.head.substr(6) + Paragraphs(text) +
           t.tail;
  };
  auto run = [&](const RobustMethodOptions& o, const std::string& revision_title) {
    std::vector<SignedPage> pages;
    pages.push_back(Sign(page("Storm hits the coast", story), "http://www.small-paper.example/storm", o));
    pages.push_back(Sign(page(revision_title, revised), "http://www.small-paper.example/updated/storm", o));
    pages.push_back(Sign(page("Council votes on the new budget", Words(rng, 300)), "http://www.small-paper.example/a", o));
    pages.push_back(Sign(page("Harbour festival draws crowds", Words(rng, 300)), "http://www.small-paper.example/b", o));
    const SiteTemplates templates = TemplatesWithCounts(pages, o);
    return RobustDecide(templates, pages[0].View(), pages[1].View(), o);
  };
  const RobustMethodOptions o;
  const PairDecision revision = run(o, "Storm hits the coast, thousands without power");
  EXPECT_TRUE(revision.duplicate) << revision.reason;
  RobustMethodOptions off = o;
  off.compare_titles = false;
  const PairDecision without = run(off, "Storm hits the coast, thousands without power");
  EXPECT_FALSE(without.duplicate) << without.reason;
  const PairDecision two_items = run(o, "Ferry service resumes after repairs");
  EXPECT_FALSE(two_items.duplicate) << two_items.reason;
}

// A story and its first page alone on their site (the first 300 of its
// 600 words under the same template): one holds the other, so the two are
// one text (TwoPagesOneText) and their site learns no template from them;
// the story's syndicated copy on another site stays its near duplicate.
// Without the rule (no containment) the story's text would be the site's
// template, boilerplate wherever it is held. A story alone on its site
// with another of half its length is no such pair: what the two share is
// their template.
TEST(RobustTemplateTest, AStoryAndItsFirstPageAloneOnASiteAreOneText) {
  std::mt19937_64 rng(97);
  const SiteTemplateHtml paper = MakeTemplate(rng, 30), wire = MakeTemplate(rng, 30);
  const std::string story = Words(rng, 600);
  const std::string first_page = story.substr(0, story.find(' ', story.size() / 2));
  auto run = [&](const RobustMethodOptions& o, const std::string& other) {
    std::vector<SignedPage> pages;
    pages.push_back(Sign(paper.head + Paragraphs(story) + paper.tail, "http://www.one-paper.example/2024/story", o));
    pages.push_back(Sign(paper.head + Paragraphs(other) + paper.tail, "http://www.one-paper.example/2024/story?p=1", o));
    pages.push_back(Sign(wire.head + Paragraphs(story) + wire.tail, "http://www.wire-service.example/story", o));
    const SiteTemplates templates = TemplatesWithCounts(pages, o);
    const PairDecision copy = RobustDecide(templates, pages[0].View(), pages[2].View(), o);
    return std::make_tuple(templates.OneTextSite(pages[0].site), templates.size(), copy);
  };
  const RobustMethodOptions o;
  const auto [one_text, learned, copy] = run(o, first_page);
  EXPECT_TRUE(one_text);
  EXPECT_EQ(learned, 0u);
  EXPECT_TRUE(copy.duplicate) << copy.reason;
  RobustMethodOptions off = o;
  off.min_main_containment = 0;
  const auto [one_text_off, learned_off, copy_off] = run(off, first_page);
  EXPECT_FALSE(one_text_off);
  EXPECT_GT(learned_off, 0u);
  const auto [two_stories, learned_two, copy_two] = run(o, Words(rng, 300));
  EXPECT_FALSE(two_stories);
  EXPECT_GT(learned_two, 0u);
  EXPECT_TRUE(copy_two.duplicate) << copy_two.reason;
}

// A story and its first page on a site with other stories: the values
// the two alone hold are too few holders to be the site's template by its
// share and are held by one text twice (the first page holds half the
// story: contained), so they stay the story's own and its syndicated copy
// on another site stays its near duplicate, as does its first page beside
// it. Without containment what the story and its first page share is the
// site's template. A story beside another of half its length is no such
// pair: they share only their template.
TEST(RobustTemplateTest, AStoryAndItsFirstPageOnALargerSiteStayItsText) {
  std::mt19937_64 rng(101);
  const SiteTemplateHtml paper = MakeTemplate(rng, 30), wire = MakeTemplate(rng, 30);
  const std::string story = Words(rng, 600);
  const std::string first_page = story.substr(0, story.find(' ', story.size() / 2));
  auto run = [&](const RobustMethodOptions& o, const std::string& beside) {
    std::vector<SignedPage> pages;
    pages.push_back(Sign(paper.head + Paragraphs(story) + paper.tail, "http://www.one-paper.example/2024/story", o));
    pages.push_back(Sign(paper.head + Paragraphs(beside) + paper.tail, "http://www.one-paper.example/2024/story?p=1", o));
    for (int i = 0; i < 3; ++i) {
      pages.push_back(Sign(paper.head + Paragraphs(Words(rng, 500)) + paper.tail,
                           "http://www.one-paper.example/2024/other-" + std::to_string(i), o));
    }
    pages.push_back(Sign(wire.head + Paragraphs(story) + wire.tail, "http://www.wire-service.example/story", o));
    const SiteTemplates templates = TemplatesWithCounts(pages, o);
    // Positions where the story and the page beside it alone of their
    // site hold one value: learned as boilerplate, or left their own.
    uint32_t shared_own = 0, shared_learned = 0;
    for (uint32_t j = 0; j < o.positions(); ++j) {
      const uint32_t v = pages[0].mins[j];
      if (pages[1].mins[j] != v) continue;
      bool others = false;
      for (size_t p = 2; p + 1 < pages.size(); ++p) others = others || pages[p].mins[j] == v;
      if (!others) (templates.IsTemplate(j, v) ? shared_learned : shared_own) += 1;
    }
    const PairDecision copy = RobustDecide(templates, pages[0].View(), pages.back().View(), o);
    const PairDecision beside_story = RobustDecide(templates, pages[0].View(), pages[1].View(), o);
    return std::make_tuple(shared_own, shared_learned, copy, beside_story);
  };
  const RobustMethodOptions o;
  const auto [own, learned, copy, first] = run(o, first_page);
  EXPECT_GT(own, 10u);
  EXPECT_EQ(learned, 0u);
  EXPECT_TRUE(copy.duplicate) << copy.reason;
  EXPECT_TRUE(first.duplicate) << first.reason;
  RobustMethodOptions off = o;
  off.min_main_containment = 0;
  const auto [own_off, learned_off, copy_off, first_off] = run(off, first_page);
  EXPECT_GT(learned_off, 10u) << "without containment the two teach their site the story's text";
  EXPECT_EQ(own_off, 0u);
  EXPECT_FALSE(first_off.duplicate) << first_off.reason;
  const auto [own_two, learned_two, copy_two, two_stories] = run(o, Words(rng, 300));
  EXPECT_FALSE(two_stories.duplicate) << two_stories.reason;
  EXPECT_TRUE(copy_two.duplicate) << copy_two.reason;
}

// A story and its first page on a site with other pages, both carrying
// the story's headline, byline and its own links (lines too short or too
// linked to be main text): their whole pages then agree more than their
// main texts, which the containment rules take as a sign of a template
// whose long blocks read as main text, unless the site's template shows
// around the main texts and none of it in them. So it is here: the pair
// stays the story's text (not learned as its site's template) and is
// judged contained. Two stories under one such headline block are still
// two items: their main texts share nothing.
TEST(RobustTemplateTest, AStoryAndItsFirstPageWithItsHeadlineAreContainedOnTheirSite) {
  std::mt19937_64 rng(103);
  const SiteTemplateHtml paper = MakeTemplate(rng, 30);
  const std::string story = Words(rng, 600);
  const std::string first_page = story.substr(0, story.find(' ', story.size() / 2));
  std::string around = "<h2>" + Words(rng, 9) + "</h2><div>By " + Words(rng, 3) + "</div><ul>";
  for (int i = 0; i < 40; ++i) around += "<li><a href='/r" + std::to_string(i) + "'>" + Words(rng, 6) + "</a></li>";
  around += "</ul>";
  auto run = [&](const std::string& beside) {
    const RobustMethodOptions o;
    std::vector<SignedPage> pages;
    pages.push_back(Sign(paper.head + around + Paragraphs(story) + paper.tail, "http://www.one-paper.example/a/story", o));
    pages.push_back(
        Sign(paper.head + around + Paragraphs(beside) + paper.tail, "http://www.one-paper.example/a/story?p=1", o));
    for (int i = 0; i < 4; ++i) {
      pages.push_back(Sign(paper.head + Paragraphs(Words(rng, 500)) + paper.tail,
                           "http://www.one-paper.example/a/other-" + std::to_string(i), o));
    }
    const SiteTemplates templates = TemplatesWithCounts(pages, o);
    SiteTemplates::Match match;
    const PairDecision d = RobustDecide(templates, pages[0].View(), pages[1].View(), o, &match);
    return std::make_pair(match, d);
  };
  const auto [match, first] = run(first_page);
  ASSERT_GT(match.main_positions, 0u);
  EXPECT_GT(match.similarity(), match.main_similarity()) << "the whole pages agree more than the main texts";
  EXPECT_GT(match.template_shared, 0u) << "the site's template shows on the whole pages";
  EXPECT_EQ(match.main_template_shared, 0u) << "and none of it in the main texts";
  EXPECT_TRUE(first.duplicate) << first.reason;
  EXPECT_NE(first.reason.find("contained"), std::string::npos) << first.reason;
  const auto [match_two, two_stories] = run(Words(rng, 300));
  EXPECT_FALSE(two_stories.duplicate) << two_stories.reason;
}

// A page with several versions on its small site (print, mobile, a
// revision: each its own sentence rewritten): the values the versions
// alone hold are held by three to five of the site's pages, its template's
// share or more, and are still not its template, since the versions are
// one item outside the values more pages hold. A sidebar that as many
// different articles carry stays boilerplate (they are not one item), and
// so do values most of the site holds.
TEST(RobustTemplateTest, APageWithSeveralVersionsOnASmallSiteIsNotItsTemplate) {
  std::mt19937_64 rng(79);
  const SiteTemplateHtml t = MakeTemplate(rng, 30);
  const std::string story = Words(rng, 300);
  const std::string sidebar = "<div>" + Words(rng, 60) + "</div>";
  const RobustMethodOptions o;
  auto page = [&](const std::string& text, const std::string& extra, const std::string& year) {
    return t.head + Paragraphs(text) + extra + "<p>Updated " + year + " by the newsroom.</p>" + t.tail;
  };
  for (int versions : {3, 4, 5}) {
    std::vector<SignedPage> pages;
    pages.push_back(Sign(page(story, "", "2023"), "http://www.small-paper.example/2023/story", o));
    for (int v = 1; v < versions; ++v) {
      pages.push_back(Sign(page(WithOneSentenceRewritten(rng, story, 300 * v), "", "202" + std::to_string(3 + v)),
                           "http://www.small-paper.example/v" + std::to_string(v) + "/story", o));
    }
    for (int i = 0; i < 6; ++i) {
      pages.push_back(Sign(page(Words(rng, 300), "", "2024"), "http://www.small-paper.example/n/" + std::to_string(i), o));
    }
    const size_t with_sidebar = pages.size();
    for (int i = 0; i < versions; ++i) {
      pages.push_back(Sign(page(Words(rng, 60), sidebar, "2024"), "http://www.small-paper.example/s/" + std::to_string(i), o));
    }
    ASSERT_GE(static_cast<uint32_t>(versions), std::max(SiteTemplates::TemplateHolders(pages.size(), o), 3u))
        << "the versions hold their values at the site's template share";
    const SiteTemplates templates = TemplatesOf(pages, o);
    ASSERT_TRUE(templates.KnowsTemplateOf(pages.front().site));
    for (int a = 0; a < versions; ++a) {
      for (int b = a + 1; b < versions; ++b) {
        const PairDecision d = RobustDecide(templates, pages[a].View(), pages[b].View(), o);
        EXPECT_TRUE(d.duplicate) << versions << " versions, " << a << " and " << b << ": " << d.reason;
      }
    }
    EXPECT_FALSE(RobustDecide(templates, pages[0].View(), pages[versions].View(), o).duplicate);
    for (size_t a = with_sidebar; a < pages.size(); ++a) {
      for (size_t b = a + 1; b < pages.size(); ++b) {
        const PairDecision d = RobustDecide(templates, pages[a].View(), pages[b].View(), o);
        EXPECT_FALSE(d.duplicate) << versions << " articles with the sidebar: " << d.reason;
      }
    }
  }
}

// A scraper's host: two items of `source` (five short lines of
// `words` words each: no main text) and one item of each of four other
// sources' templates of 200 links, under one host.
std::vector<SignedPage> ScraperHost(std::mt19937_64& rng, const SiteTemplateHtml& source, int words,
                                    const RobustMethodOptions& o) {
  auto item = [&](const SiteTemplateHtml& t) {
    std::string lines;
    for (int i = 0; i < 5; ++i) lines += "<div>" + Words(rng, words) + "</div>";
    return t.head + lines + t.tail;
  };
  std::vector<SignedPage> pages;
  pages.push_back(Sign(item(source), "http://scraper.example/copied/1", o));
  pages.push_back(Sign(item(source), "http://scraper.example/copied/2", o));
  for (int i = 0; i < 4; ++i) {  // one page of each of four other sources
    pages.push_back(Sign(item(MakeTemplate(rng, 200)), "http://scraper.example/other/" + std::to_string(i), o));
  }
  return pages;
}

// A scraper's host: pages copied from other sites, each in its source's
// template, with nothing of the host's own. Two items of one source
// template there (short lines, no main text) agree on about 90% of the
// min-hash positions, above the bar of one item in one template, yet
// share none of the host's template: what they share is a template the
// host does not show, and it must stay boilerplate (the rule of one item
// asks that the two share some of the site's own template).
TEST(RobustTemplateTest, TwoItemsOfAForeignTemplateOnAHostWithoutItsOwnAreNotOneItem) {
  std::mt19937_64 rng(71);
  const RobustMethodOptions o;
  const SiteTemplateHtml source = MakeTemplate(rng, 200);
  const std::vector<SignedPage> pages = ScraperHost(rng, source, 6, o);
  ASSERT_EQ(pages[0].sig.main_shingles, 0u);  // no main text: the main-text veto cannot decide
  ASSERT_EQ(pages[1].sig.main_shingles, 0u);
  const SiteTemplates none;
  const SiteTemplates::Match all = none.Compare(pages[0].mins.data(), pages[1].mins.data(), o);
  ASSERT_GE(all.similarity(), o.min_similarity_without_template) << "the two must look like one item as wholes";
  const SiteTemplates templates = TemplatesOf(pages, o);
  ASSERT_TRUE(templates.KnowsTemplateOf(pages[0].site));
  const SiteTemplates::Match outside = templates.Compare(pages[0].mins.data(), pages[1].mins.data(), o);
  EXPECT_LT(outside.positions, all.positions / 2) << "the source's template is learned as boilerplate";
  const PairDecision pair = RobustDecide(templates, pages[0].View(), pages[1].View(), o);
  EXPECT_FALSE(pair.duplicate) << pair.reason;
}

// A page of 3000 words and its revision (a sentence rewritten, a year changed) on a
// site of three pages whose template is too small to win a min-hash
// position: the two share none of the site's template, so the rule of one
// item in one template cannot vouch for them, and without digests what
// they share is learned as the site's template. Their whole pages agree
// at nearly every position and their digests decode their difference (an
// edit): one item. Two different items of a large foreign template on a
// scraper's host agree as closely, but differ in more than the digests
// decode: their shared template stays boilerplate.
TEST(RobustTemplateTest, APageAndItsRevisionWhereNoTemplateIsSeenAreOneItemByTheirDigests) {
  std::mt19937_64 rng(73);
  const RobustMethodOptions o;
  const SiteTemplateHtml t = MakeTemplate(rng, 0);
  // 3000 words: the revision's resemblance is about 0.99, so its expected
  // agreement (83 of 84) is well above kLargePageAgreement (80 of 84); at
  // 1000 words it would be 0.97, and below the bar one time in four.
  const std::string story = Words(rng, 3000);
  const std::string revised = WithOneSentenceRewritten(rng, story, 3000);
  auto page = [&](const std::string& text, const std::string& year) {
    return t.head + Paragraphs(text) + "<p>Updated " + year + " by the authors.</p>" + t.tail;
  };
  std::vector<SignedPage> site;
  site.push_back(Sign(page(story, "2023"), "http://docs.example.org/m/intro.html", o));
  site.push_back(Sign(page(revised, "2024"), "http://docs.example.org/m/print/intro.html", o));
  site.push_back(Sign(page(Words(rng, 1000), "2024"), "http://docs.example.org/m/usage.html", o));
  const int apart = DifferenceDigest::DifferenceSize(site[0].digest.data(), site[1].digest.data(), kRobustDigestCells,
                                                     static_cast<int>(kRobustDigestCells));
  ASSERT_GT(apart, static_cast<int>(o.max_same_site_edit_shingles)) << "more than an edit on one site";
  const SiteTemplates without_digests = TemplatesOf(site, o);
  EXPECT_FALSE(RobustDecide(without_digests, site[0].View(), site[1].View(), o).duplicate)
      << "without digests the text the two share is the site's template";
  const SiteTemplates templates = TemplatesOf(site, o, /*with_digests=*/true);
  const PairDecision revision = RobustDecide(templates, site[0].View(), site[1].View(), o);
  EXPECT_TRUE(revision.duplicate) << revision.reason;
  EXPECT_FALSE(RobustDecide(templates, site[0].View(), site[2].View(), o).duplicate);

  // The scraper's host: two items of 40 words each in one large foreign
  // template (no main text: short lines and links), four pages of others.
  const std::vector<SignedPage> host = ScraperHost(rng, MakeTemplate(rng, 2000), 8, o);
  const SiteTemplates::Match whole = SiteTemplates().Compare(host[0].mins.data(), host[1].mins.data(), o);
  ASSERT_GE(whole.agreeing, kLargePageAgreement * o.num_minhashes) << "the two agree as a revision does";
  ASSERT_EQ(DifferenceDigest::DifferenceSize(host[0].digest.data(), host[1].digest.data(), kRobustDigestCells,
                                             static_cast<int>(kRobustDigestCells)),
            -1)
      << "two items are more than the digests decode apart";
  const SiteTemplates host_templates = TemplatesOf(host, o, /*with_digests=*/true);
  const PairDecision items = RobustDecide(host_templates, host[0].View(), host[1].View(), o);
  EXPECT_FALSE(items.duplicate) << items.reason;
}

// Henzinger's kind of correct near duplicate on a short page: about 500
// terms, one sentence rewritten and a year changed, on two sites: more
// shingles apart than an edit (32 for the sentence), and a near duplicate
// by its main text. (On one site, the rule of one item decides whether the
// text the two share is its template:
// RobustTemplateTest.APageAndItsRevisionOnASmallSiteAreNotItsTemplate.)
TEST(RobustMainTextTest, AShortPageWithOneSentenceAndAYearChangedIsANearDuplicate) {
  std::mt19937_64 rng(61);
  const SiteTemplateHtml t = MakeTemplate(rng, 30);
  const std::string body = Words(rng, 480);
  const std::string changed = WithOneSentenceRewritten(rng, body, 1500);
  auto page = [&](const std::string& text, const std::string& year) {
    return t.head + Paragraphs(text) + "<p>Copyright " + year + " the authors of this page and its sources.</p>" + t.tail;
  };
  RobustMethodOptions o;
  const SignedPage a = Sign(page(body, "2019"), "http://docs.first.example/guide/intro", o);
  const SignedPage b = Sign(page(changed, "2024"), "http://mirror.second.example/guide/intro", o);
  const PairDecision d = RobustDecide(SiteTemplates(), a.View(), b.View(), o);
  EXPECT_TRUE(d.duplicate) << d.reason;
  // Not an edit: the digests alone do not find it.
  o.main_minhashes = 0;
  o.min_similarity_without_template = 1;
  const SignedPage a0 = Sign(page(body, "2019"), "http://docs.first.example/guide/intro", o);
  const SignedPage b0 = Sign(page(changed, "2024"), "http://mirror.second.example/guide/intro", o);
  EXPECT_FALSE(RobustDecide(SiteTemplates(), a0.View(), b0.View(), o).duplicate);
}

// Figures with their units in a table's cells are the page's content
// (KeepTableFigures): two foods' nutrient pages of one template are apart,
// while a recrawl of one, whose view counter in a cell and timestamp
// changed, is still a near duplicate (by its few shingles of difference).
TEST(RobustDecideTest, NutrientTablesWithUnitsAreApartAndARecrawlIsNot) {
  std::mt19937_64 rng(62);
  const SiteTemplateHtml t = MakeTemplate(rng, 8);
  const char* kNutrients[] = {"Energy", "Fat", "Saturates", "Carbohydrate", "Sugars", "Fibre", "Protein",
                              "Salt", "Calcium", "Iron", "Potassium", "Magnesium", "Vitamin C", "Vitamin B6"};
  auto page = [&](uint64_t seed, const std::string& views, const std::string& stamp) {
    std::mt19937_64 r(seed);
    std::string html = t.head + "<p>Nutrition facts per 100 g, as sold. Updated " + stamp + ".</p><table>";
    for (size_t k = 0; k < std::size(kNutrients); ++k) {  // each nutrient's unit the same on every page
      html += std::string("<tr><th>") + kNutrients[k] + "</th><td>" + std::to_string(1 + r() % 400) + "." +
              std::to_string(r() % 10) + (k % 3 == 0 ? " mg" : " g") + "</td></tr>";
    }
    return html + "<tr><th>Page views</th><td>Views " + views + "</td></tr></table>" + t.tail;
  };
  RobustMethodOptions o;
  const SignedPage apple = Sign(page(1, "1234", "21 Nov 2026 13:45"), "http://food.example/apple", o);
  const SignedPage banana = Sign(page(2, "1234", "21 Nov 2026 13:45"), "http://food.example/banana", o);
  const SignedPage recrawl = Sign(page(1, "1240", "3 Dec 2026 08:10"), "http://food.example/apple", o);
  const PairDecision foods = RobustDecide(SiteTemplates(), apple.View(), banana.View(), o);
  EXPECT_FALSE(foods.duplicate) << foods.reason;
  EXPECT_NE(apple.sig.identity, recrawl.sig.identity);  // the counter is content now
  const PairDecision again = RobustDecide(SiteTemplates(), apple.View(), recrawl.View(), o);
  EXPECT_TRUE(again.duplicate) << again.reason;
}

TEST(RobustMainTextTest, APageWithLittleMainTextTakesNoPartInTheMainTextRule) {
  std::mt19937_64 rng(53);
  const SiteTemplateHtml t = MakeTemplate(rng, 50);
  const RobustMethodOptions o;
  const SignedPage p = Sign(t.head + Paragraphs(Words(rng, o.main_min_terms - 10)) + t.tail, "http://a.example/", o);
  EXPECT_TRUE(p.sig.has_sketch);
  EXPECT_LT(p.sig.main_terms, o.main_min_terms);
  EXPECT_FALSE(HasMainText(p.mins.data(), o));
  for (uint32_t j = o.num_minhashes; j < o.positions(); ++j) EXPECT_EQ(p.mins[j], kNoMainText);
  // Two such pages never agree on main text, whatever their marks.
  const SiteTemplates::Match m = SiteTemplates().Compare(p.mins.data(), p.mins.data(), o);
  EXPECT_EQ(m.main_positions, 0u);
  EXPECT_EQ(RobustBandCount(o, false), o.num_minhashes / o.band_rows);
  const uint32_t whole = o.num_minhashes / o.band_rows;
  EXPECT_EQ(RobustBandCount(o, true), whole + o.main_minhashes / o.main_band_rows);
  // The bands tile the positions: r values each of the whole page, then
  // main-r each of the main text.
  uint32_t next = 0;
  for (uint32_t band = 0; band < RobustBandCount(o, true); ++band) {
    EXPECT_EQ(RobustBandFirst(o, band), next) << band;
    EXPECT_EQ(RobustBandRows(o, band), band < whole ? o.band_rows : o.main_band_rows) << band;
    next += RobustBandRows(o, band);
  }
  EXPECT_EQ(next, o.positions());
}

// Broder's containment estimated from min-hash agreement and set sizes, on
// random sets: the smaller set A (s elements, `shared` of them in B) and B
// (l elements), 42 main-text functions. Returns how often the rule would
// judge the pair contained, and the mean estimate.
struct ContainmentTrials {
  double pass_rate = 0, mean = 0;
};
ContainmentTrials RunContainmentTrials(uint32_t s, uint32_t l, uint32_t shared, uint64_t seed) {
  const RobustMethodOptions o;
  const BroderSketcher sketcher(RobustMainSketchOptions(o));
  std::mt19937_64 rng(seed);
  const int trials = 300;
  ContainmentTrials t;
  std::vector<uint64_t> a(s), b(l), ma(o.main_minhashes), mb(o.main_minhashes);
  for (int trial = 0; trial < trials; ++trial) {
    for (uint64_t& v : a) v = rng();
    for (uint32_t i = 0; i < l; ++i) b[i] = i < shared ? a[i] : rng();
    EXPECT_TRUE(sketcher.MinHashes(a, ma.data()));
    EXPECT_TRUE(sketcher.MinHashes(b, mb.data()));
    SiteTemplates::Match r;
    r.main_positions = o.main_minhashes;
    for (uint32_t j = 0; j < o.main_minhashes; ++j) r.main_agreeing += ma[j] == mb[j];
    const MainContainment c = EstimateMainContainment(r, s, l);
    EXPECT_TRUE(c.known());
    EXPECT_LE(c.value, 1.0);
    t.mean += c.value / trials;
    if (c.value >= o.min_main_containment && c.error <= kMaxContainmentError) t.pass_rate += 1.0 / trials;
  }
  return t;
}

// How often two main texts of resemblance J share a main-text band (all
// main-r values of one band equal), on random sets with the main text's own
// 32-bit functions: Broder's S-curve 1 - (1 - J^r)^b, b = main-m / main-r.
double MainBandCandidateRate(const RobustMethodOptions& o, uint32_t n, uint32_t shared, uint64_t seed, int trials) {
  const BroderSketcher sketcher(RobustMainSketchOptions(o));
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> a(n), b(n);
  std::vector<uint32_t> ma(o.main_minhashes), mb(o.main_minhashes);
  int candidates = 0;
  for (int trial = 0; trial < trials; ++trial) {
    for (uint64_t& v : a) v = rng();
    for (uint32_t i = 0; i < n; ++i) b[i] = i < shared ? a[i] : rng();
    EXPECT_TRUE(sketcher.MinValues32(a, ma.data()));
    EXPECT_TRUE(sketcher.MinValues32(b, mb.data()));
    bool shares = false;
    const uint32_t whole = o.num_minhashes / o.band_rows;
    for (uint32_t band = whole; band < RobustBandCount(o, true) && !shares; ++band) {
      const uint32_t first = RobustBandFirst(o, band) - o.num_minhashes;
      shares = std::equal(ma.begin() + first, ma.begin() + first + RobustBandRows(o, band), mb.begin() + first);
    }
    candidates += shares;
  }
  return static_cast<double>(candidates) / trials;
}

TEST(RobustBandTest, MainTextCandidatesFollowBrodersSCurve) {
  const int trials = 400;
  // Sets of 400 elements sharing `shared`: J = shared / (800 - shared).
  for (const uint32_t rows : {2u, 3u}) {
    RobustMethodOptions o;
    o.main_band_rows = rows;
    const double bands = static_cast<double>(o.main_minhashes / rows);
    for (const uint32_t shared : {185u, 267u, 400u}) {  // J = 0.30, 0.50, 1.0
      const double j = static_cast<double>(shared) / (800.0 - shared);
      const double expected = 1.0 - std::pow(1.0 - std::pow(j, rows), bands);
      const double sd = std::sqrt(std::max(expected * (1 - expected), 1e-4) / trials);
      const double rate = MainBandCandidateRate(o, 400, shared, 60 + shared + rows, trials);
      EXPECT_NEAR(rate, expected, 4 * sd + 0.01) << "r " << rows << " J " << j;
    }
  }
  // The default puts pairs at the main-text rules' lowest resemblance
  // (containment: about 0.3) among the candidates most of the time.
  EXPECT_GE(MainBandCandidateRate(RobustMethodOptions(), 400, 185, 7, trials), 0.75);
}

TEST(RobustContainmentTest, TheEstimateFollowsBroderOnRandomSets) {
  // A wholly inside a B of 2.25 times its size (J = 0.44): judged contained.
  const ContainmentTrials inside = RunContainmentTrials(400, 900, 400, 1);
  EXPECT_GE(inside.pass_rate, 0.85);
  EXPECT_GT(inside.mean, 0.85);
  // 60% of A in B (sizes 500 and 833): the estimate is about right, and
  // rarely passes the bar.
  const ContainmentTrials part = RunContainmentTrials(500, 833, 300, 2);
  EXPECT_NEAR(part.mean, 0.6, 0.06);
  EXPECT_LT(part.pass_rate, 0.1);
  // 40% of A in a B of 2.5 times its size: three standard errors below the
  // bar (kMaxContainmentError), never passes here.
  EXPECT_LT(RunContainmentTrials(400, 1000, 160, 3).pass_rate, 0.01);
  // A wholly inside a B of 5 times its size: the estimate is too loose to
  // judge (its error above kMaxContainmentError), whatever it says.
  EXPECT_EQ(RunContainmentTrials(200, 1000, 200, 4).pass_rate, 0.0);
  // Unknown without counts.
  SiteTemplates::Match r;
  r.main_positions = 42;
  r.main_agreeing = 20;
  EXPECT_FALSE(EstimateMainContainment(r, 0, 500).known());
}

// Containment outside the boilerplate both pages hold: random sets of a
// template T (boilerplate of the site: a position where both pages hold
// one of its values is left out, as SiteTemplates::Compare leaves it) and
// each page's own text. A page whose own text lies wholly inside the
// other's is contained, however much template the two share; two pages
// whose own texts differ are not, though most of each is the template.
// Without shared boilerplate the estimate is Broder's from the resemblance.
TEST(RobustContainmentTest, TheSmallerOwnTextIsJudgedOutsideSharedBoilerplate) {
  const RobustMethodOptions o;
  const BroderSketcher sketcher(RobustMainSketchOptions(o));
  std::mt19937_64 rng(91);
  const uint32_t template_size = 300;
  auto trials = [&](uint32_t own_a, uint32_t own_b, bool a_inside_b) {
    ContainmentTrials t;
    const int n = 200;
    std::vector<uint64_t> tpl(template_size), a, b;
    std::vector<uint64_t> mt(o.main_minhashes), ma(o.main_minhashes), mb(o.main_minhashes);
    for (int trial = 0; trial < n; ++trial) {
      for (uint64_t& v : tpl) v = rng();
      a = tpl;
      b = tpl;
      for (uint32_t i = 0; i < own_b; ++i) b.push_back(rng());
      for (uint32_t i = 0; i < own_a; ++i) a.push_back(a_inside_b ? b[template_size + i] : rng());
      EXPECT_TRUE(sketcher.MinHashes(tpl, mt.data()));
      EXPECT_TRUE(sketcher.MinHashes(a, ma.data()));
      EXPECT_TRUE(sketcher.MinHashes(b, mb.data()));
      SiteTemplates::Match r;
      for (uint32_t j = 0; j < o.main_minhashes; ++j) {
        if (ma[j] == mb[j] && ma[j] == mt[j]) {
          ++r.main_template_shared;  // both hold the template's value
          continue;
        }
        r.main_agreeing += ma[j] == mb[j];
        ++r.main_positions;
      }
      const MainContainment c = EstimateMainContainment(r, static_cast<uint32_t>(a.size()),
                                                        static_cast<uint32_t>(b.size()));
      if (!c.known()) continue;
      t.mean += c.value / n;
      if (c.value >= o.min_main_containment && c.error <= kMaxContainmentError) t.pass_rate += 1.0 / n;
    }
    return t;
  };
  // An excerpt of 300 of the other's 600 own shingles, in a template of
  // 300: the whole sets are 600 and 900, the own texts' resemblance 0.5.
  const ContainmentTrials excerpt = trials(300, 600, true);
  EXPECT_GT(excerpt.mean, 0.9);
  EXPECT_GE(excerpt.pass_rate, 0.6);
  // Two items of 300 and 600 own shingles in the same template.
  const ContainmentTrials items = trials(300, 600, false);
  EXPECT_LT(items.mean, 0.2);
  EXPECT_EQ(items.pass_rate, 0.0);
  // No shared boilerplate: Broder's c = J (s + l) / ((1 + J) s).
  SiteTemplates::Match r;
  r.main_positions = 42;
  r.main_agreeing = 18;
  const double j = 18.0 / 42, s = 300, l = 700;
  const MainContainment broder = EstimateMainContainment(r, 300, 700);
  EXPECT_NEAR(broder.value, j * (s + l) / ((1 + j) * s), 1e-12);
  EXPECT_NEAR(broder.error, (s + l) / (s * (1 + j) * (1 + j)) * std::sqrt(j * (1 - j) / 42), 1e-12);
  // A smaller text that is all shared boilerplate has no own text to judge.
  r.main_positions = 2;
  r.main_agreeing = 0;
  r.main_template_shared = 40;
  EXPECT_FALSE(EstimateMainContainment(r, 300, 700).known());
}

// An excerpt on another site (the first part of a wire story, a press
// release's second part) is a near duplicate by containment; two stories
// that quote one passage are not.
TEST(RobustContainmentTest, AnExcerptOnAnotherSiteIsANearDuplicate) {
  std::mt19937_64 rng(73);
  const SiteTemplateHtml a = MakeTemplate(rng, 60), b = MakeTemplate(rng, 60);
  const std::string story = Words(rng, 600);
  // Its first 240 words (two fifths: resemblance 0.4, below the main-text bar).
  const std::string first_half = story.substr(0, story.find(' ', story.size() * 2 / 5));
  const RobustMethodOptions o;
  const SignedPage full = Sign(a.head + Paragraphs(story) + a.tail, "http://www.wire-one.example/story/1", o);
  const SignedPage excerpt =
      Sign(b.head + Paragraphs(first_half) + b.tail, "http://news.paper-two.example/wire/77", o);
  EXPECT_GT(excerpt.sig.main_shingles, 200u);
  EXPECT_GT(2 * full.sig.main_shingles, 5 * excerpt.sig.main_shingles - 40);
  SiteTemplates::Match match;
  const PairDecision d = RobustDecide(SiteTemplates(), full.View(), excerpt.View(), o, &match);
  EXPECT_TRUE(d.duplicate) << d.reason;
  EXPECT_NE(d.reason.find("contained in the larger"), std::string::npos) << d.reason;
  EXPECT_GE(d.similarity, o.min_main_containment);
  // Without the counts (containment off) the main-text rule alone decides.
  RobustMethodOptions off = o;
  off.min_main_containment = 0;
  const SignedPage full0 = Sign(a.head + Paragraphs(story) + a.tail, "http://www.wire-one.example/story/1", off);
  const SignedPage excerpt0 =
      Sign(b.head + Paragraphs(first_half) + b.tail, "http://news.paper-two.example/wire/77", off);
  EXPECT_EQ(excerpt0.sig.main_shingles, 0u);
  EXPECT_EQ(RobustDecide(SiteTemplates(), full0.View(), excerpt0.View(), off).duplicate,
            match.main_similarity() >= o.min_main_similarity);
  // Two stories of 400 words that share a quoted passage of 120.
  const std::string quote = Words(rng, 120);
  const SignedPage one = Sign(a.head + Paragraphs(Words(rng, 280) + " " + quote) + a.tail,
                              "http://www.wire-one.example/story/2", o);
  const SignedPage two = Sign(b.head + Paragraphs(quote + " " + Words(rng, 280)) + b.tail,
                              "http://news.paper-two.example/wire/78", o);
  const PairDecision q = RobustDecide(SiteTemplates(), one.View(), two.View(), o);
  EXPECT_FALSE(q.duplicate) << q.reason;
}

// A manual on one page beside its chapters, on its site and on a mirror
// whose copy carries a banner, a sentence and a server line: every value of
// the one-page manual is one of a chapter's, so all read as boilerplate, and
// the copy differs in more than the digests count; as large pages alike at
// every position they are near duplicates (kLargePageShingles). A one-page
// manual with half its chapters other is not.
TEST(RobustLargePageTest, AOnePageManualAndItsMirroredCopyAreNearDuplicates) {
  std::mt19937_64 rng(79);
  const SiteTemplateHtml docs = MakeTemplate(rng, 20), mirror = MakeTemplate(rng, 20);
  std::vector<std::string> chapters;
  for (int c = 0; c < 6; ++c) chapters.push_back(Paragraphs(Words(rng, 9000)));
  std::string manual, other;
  for (int c = 0; c < 6; ++c) {
    manual += chapters[c];
    other += c % 2 == 0 ? chapters[c] : Paragraphs(Words(rng, 9000));
  }
  const std::string copy = "<div>" + Words(rng, 18) + "</div>" + manual.substr(0, manual.size() / 2) + "<p>" +
                           Words(rng, 20) + "</p>" + manual.substr(manual.size() / 2) + "<address>" + Words(rng, 12) +
                           "</address>";
  const RobustMethodOptions o;
  std::vector<SignedPage> pages;
  for (int c = 0; c < 6; ++c) {
    pages.push_back(Sign(docs.head + chapters[c] + docs.tail, "http://docs.first.example/ch" + std::to_string(c), o));
    pages.push_back(Sign(mirror.head + chapters[c] + mirror.tail, "http://mirror.second.example/ch" + std::to_string(c), o));
  }
  pages.push_back(Sign(docs.head + manual + docs.tail, "http://docs.first.example/all", o));
  pages.push_back(Sign(mirror.head + copy + mirror.tail, "http://mirror.second.example/all", o));
  pages.push_back(Sign(docs.head + other + docs.tail, "http://docs.first.example/other", o));
  const SiteTemplates templates = TemplatesOf(pages, o);
  const SignedPage& all = pages[12];
  const SignedPage& all_copy = pages[13];
  EXPECT_GE(std::min(all.sig.shingles, all_copy.sig.shingles), kLargePageShingles);
  SiteTemplates::Match match;
  const PairDecision d = RobustDecide(templates, all.View(), all_copy.View(), o, &match);
  EXPECT_TRUE(d.duplicate) << d.reason;
  EXPECT_NE(d.reason.find("large pages"), std::string::npos) << d.reason;
  // Without the whole-page count (as a record written before it), no other
  // rule takes the pair: its values read as boilerplate.
  RobustPageView a = all.View(), b = all_copy.View();
  a.shingles = b.shingles = 0;
  const PairDecision without = RobustDecide(templates, a, b, o);
  EXPECT_FALSE(without.duplicate) << without.reason;
  const PairDecision half = RobustDecide(templates, all.View(), pages[14].View(), o);
  EXPECT_FALSE(half.duplicate) << half.reason;
}

// A long page and its copy with a banner and a sentence added: more
// shingles apart than max_edit_shingles, fewer than half a percent of the
// page (kEditShareOfPage). Where every value the two share reads as
// boilerplate (copies joined into one site's template, or a page and its
// revision alone with a small template on a small site), the digests
// decide: an edit across sites and on one site, not without the page's
// shingle count, nor across sites where the main texts differ.
TEST(RobustEditTest, AnEditGrowsWithTheLengthOfThePage) {
  std::mt19937_64 rng(83);
  const std::string text = Paragraphs(Words(rng, 11000));
  const std::string copy = "<div>" + Words(rng, 18) + "</div>" + text.substr(0, text.size() / 2) + "<p>" +
                           Words(rng, 12) + "</p>" + text.substr(text.size() / 2);
  const RobustMethodOptions o;
  const SignedPage a = Sign("<html><body>" + text + "</body></html>", "http://docs.first.example/ref", o);
  const SignedPage b = Sign("<html><body>" + copy + "</body></html>", "http://mirror.second.example/ref", o);
  ASSERT_GT(std::min(a.sig.shingles, b.sig.shingles) / kEditShareOfPage, o.max_edit_shingles);
  const int differing = DifferenceDigest::DifferenceSize(a.digest.data(), b.digest.data(), kRobustDigestCells, 1000);
  ASSERT_GT(differing, static_cast<int>(o.max_edit_shingles));
  ASSERT_LE(static_cast<uint32_t>(differing), std::min(a.sig.shingles, b.sig.shingles) / kEditShareOfPage);
  SiteTemplates::Match all_boilerplate;
  all_boilerplate.template_shared = o.num_minhashes - 1;  // one position differs: not a large page's agreement
  const PairDecision d = RobustDecideMatched(all_boilerplate, a.View(), b.View(), true, o, true);
  EXPECT_TRUE(d.duplicate) << d.reason;
  EXPECT_NE(d.reason.find("an edit"), std::string::npos) << d.reason;
  RobustPageView va = a.View(), vb = b.View();
  va.shingles = vb.shingles = 0;
  EXPECT_FALSE(RobustDecideMatched(all_boilerplate, va, vb, true, o, true).duplicate);
  vb = b.View();
  vb.site = a.site;  // one site
  ASSERT_GT(static_cast<uint32_t>(differing), o.max_same_site_edit_shingles);
  const PairDecision one_site = RobustDecideMatched(all_boilerplate, a.View(), vb, true, o, true);
  EXPECT_TRUE(one_site.duplicate) << one_site.reason;
  EXPECT_NE(one_site.reason.find("on one site"), std::string::npos) << one_site.reason;
  va = a.View();
  va.shingles = vb.shingles = 0;
  EXPECT_FALSE(RobustDecideMatched(all_boilerplate, va, vb, true, o, true).duplicate);
  // Main texts that show two items: past the fixed limit, not an edit.
  SiteTemplates::Match two_items = all_boilerplate;
  two_items.main_positions = o.main_minhashes;
  two_items.main_agreeing = o.main_minhashes / 10;
  const PairDecision two = RobustDecideMatched(two_items, a.View(), b.View(), true, o, true);
  EXPECT_FALSE(two.duplicate) << two.reason;
  // Pages agreeing only on boilerplate are not judged by containment, and
  // the reason says so rather than giving an estimate it did not use.
  ASSERT_GT(a.View().main_shingles, 0u);
  ASSERT_GT(b.View().main_shingles, 0u);
  EXPECT_NE(two.reason.find("containment is not judged where the pages agree only on boilerplate"), std::string::npos)
      << two.reason;
  EXPECT_EQ(two.reason.find("needed at"), std::string::npos) << two.reason;
}

// On one site whose template is known, as across sites, main texts that
// differ show two items even where the whole pages' positions outside the
// learned boilerplate agree at the `content` bar (the template's long
// blocks on a short page, which its values did not win there): two bug
// pages of two libraries of one manual, one a shortened other's, were one
// such pair.
TEST(RobustMainTextTest, OnOneSiteMainTextsThatDifferShowTwoItems) {
  std::mt19937_64 rng(29);
  const RobustMethodOptions o;
  const SignedPage a = Sign("<html><body>" + Paragraphs(Words(rng, 400)) + "</body></html>", "http://docs.example/a", o);
  const SignedPage b = Sign("<html><body>" + Paragraphs(Words(rng, 400)) + "</body></html>", "http://docs.example/b", o);
  ASSERT_EQ(a.site, b.site);
  SiteTemplates::Match m;
  m.template_shared = 40;
  m.positions = o.num_minhashes - m.template_shared;
  m.agreeing = m.positions / 2;  // at the content bar and over
  m.main_positions = o.main_minhashes;
  m.main_agreeing = o.main_minhashes / 6;  // under the main bar
  ASSERT_GE(m.similarity(), o.min_content_similarity);
  ASSERT_LT(m.main_similarity(), o.min_main_similarity);
  const PairDecision two_items = RobustDecideMatched(m, a.View(), b.View(), true, o, true);
  EXPECT_FALSE(two_items.duplicate) << two_items.reason;
  EXPECT_NE(two_items.reason.find("main texts differ"), std::string::npos) << two_items.reason;
  // Main texts alike: one item; no main text to tell: the whole pages decide.
  SiteTemplates::Match alike = m;
  alike.main_agreeing = o.main_minhashes * 3 / 4;
  EXPECT_TRUE(RobustDecideMatched(alike, a.View(), b.View(), true, o, true).duplicate);
  SiteTemplates::Match no_main = m;
  no_main.main_positions = no_main.main_agreeing = 0;
  EXPECT_TRUE(RobustDecideMatched(no_main, a.View(), b.View(), true, o, true).duplicate);
}

// A page titled `title` around 300 random words at `url`, signed.
SignedPage TitledPage(std::mt19937_64& rng, const std::string& title, const std::string& url,
                      const RobustMethodOptions& o) {
  return Sign("<html><head><title>" + title + "</title></head><body>" + Paragraphs(Words(rng, 300)) + "</body></html>",
              url, o);
}

// Thin evidence: a home page and the copy of an article under it, on
// another host with a sentence edited, both in one template that holds
// nearly all their text. Outside the boilerplate they agree at 2 of 7
// positions (the edit let a template value the site never saw win) and
// their main texts are too short to judge: their titles decide. Titled
// as one item, or where the positions outside the boilerplate are enough
// to tell, the whole pages' content bar decides as before.
TEST(RobustTitleTest, TitlesDecideWhereTheTemplateLeavesTooLittleToTell) {
  std::mt19937_64 rng(37);
  const RobustMethodOptions o;
  auto page = [&](const std::string& title, const std::string& url) { return TitledPage(rng, title, url, o); };
  const SignedPage home = page("Selling is capitalism and it is better | Iris912", "http://www.iris912.example/");
  const SignedPage copy = page("Overall these landscapes declined by a tenth | Iris912",
                               "http://www.willowsummit.example/2026/11/overall-these-landscapes.html");
  const SignedPage revision = page("Overall, landscapes declined by a tenth | Iris912",
                                   "http://www.willowsummit.example/2026/11/overall-landscapes.html");
  ASSERT_NE(home.site, copy.site);
  SiteTemplates::Match thin;
  thin.template_shared = o.num_minhashes - 7;
  thin.positions = 7;
  thin.agreeing = 2;
  thin.main_positions = 4;  // fewer than main_minhashes / kMainTextMinShare: main text not judged
  ASSERT_GE(thin.similarity(), o.min_content_similarity);
  ASSERT_LT(thin.main_positions * kMainTextMinShare, o.main_minhashes);
  const PairDecision two = RobustDecideMatched(thin, home.View(), copy.View(), true, o, true);
  EXPECT_FALSE(two.duplicate) << two.reason;
  EXPECT_NE(two.reason.find("titles name two items"), std::string::npos) << two.reason;
  // Titled as one item: the content bar, as before.
  const PairDecision one = RobustDecideMatched(thin, revision.View(), copy.View(), true, o, true);
  EXPECT_TRUE(one.duplicate) << one.reason;
  // Without titles compared, or without a title kept, the same.
  RobustMethodOptions untitled = o;
  untitled.compare_titles = false;
  EXPECT_TRUE(RobustDecideMatched(thin, home.View(), copy.View(), true, untitled, true).duplicate);
  RobustMethodOptions bar_alone = o;
  bar_alone.titles_decide = false;
  EXPECT_TRUE(RobustDecideMatched(thin, home.View(), copy.View(), true, bar_alone, true).duplicate);
  RobustPageView no_title = copy.View();
  no_title.title = nullptr;
  EXPECT_TRUE(RobustDecideMatched(thin, home.View(), no_title, true, o, true).duplicate);
  // A quarter of the positions outside the boilerplate or more, passing
  // the content bar by more than a standard error there: the content bar
  // decides whatever the titles.
  SiteTemplates::Match enough = thin;
  enough.positions = o.num_minhashes / kMainTextMinShare;
  enough.template_shared = o.num_minhashes - enough.positions;
  enough.agreeing = enough.positions / 3;
  ASSERT_GE(enough.similarity(), o.min_content_similarity);
  EXPECT_TRUE(RobustDecideMatched(enough, home.View(), copy.View(), true, o, true).duplicate);
  // No boilerplate known: whole pages compared at their own bar, titles aside.
  SiteTemplates::Match whole = thin;
  whole.template_shared = 0;
  whole.positions = o.num_minhashes;
  whole.agreeing = o.num_minhashes;
  EXPECT_TRUE(RobustDecideMatched(whole, home.View(), copy.View(), true, o, true).duplicate);
}

// Too close to call: pages of one known template whose titles name two
// items, passing a rule within one standard error of its bar (the
// content bar over 30 positions, the main-text bar over 16), are two
// items; passing by more, one. A rule passed clearly decides whatever
// the others.
TEST(RobustTitleTest, TitlesDecideWhereTheValuesPassTooCloseToTheBar) {
  std::mt19937_64 rng(41);
  const RobustMethodOptions o;
  auto page = [&](const std::string& title, const std::string& url) { return TitledPage(rng, title, url, o); };
  const SignedPage a = page("Das Institut hat | Kestrel353", "http://www.kestrel353.example/health/das-institut-2148/");
  const SignedPage b = page("Just signed up for your bootcamp | Kestrel353",
                            "http://www.kestrel353.example/tech/just-signed-up-2147/");
  ASSERT_EQ(a.site, b.site);
  SiteTemplates::Match content;
  content.positions = 30;
  content.template_shared = o.num_minhashes - content.positions;
  content.agreeing = 7;  // 0.23: over 0.2 by less than sqrt(0.2 * 0.8 / 30) = 0.073
  const PairDecision close = RobustDecideMatched(content, a.View(), b.View(), true, o, true);
  EXPECT_FALSE(close.duplicate) << close.reason;
  EXPECT_NE(close.reason.find("within one standard error of its bar"), std::string::npos) << close.reason;
  RobustMethodOptions values_alone = o;
  values_alone.titles_decide = false;
  EXPECT_TRUE(RobustDecideMatched(content, a.View(), b.View(), true, values_alone, true).duplicate);
  SiteTemplates::Match clear = content;
  clear.agreeing = 12;  // 0.40
  EXPECT_TRUE(RobustDecideMatched(clear, a.View(), b.View(), true, o, true).duplicate);
  // The main-text rule alone passes, within its standard error
  // (sqrt(0.5 * 0.5 / 16) = 0.125) or clearly.
  SiteTemplates::Match main = content;
  main.agreeing = 3;  // under the content bar
  main.main_positions = 16;
  main.main_agreeing = 9;  // 0.56
  ASSERT_GE(main.main_positions * kMainTextMinShare, o.main_minhashes);
  EXPECT_FALSE(RobustDecideMatched(main, a.View(), b.View(), true, o, true).duplicate);
  EXPECT_TRUE(RobustDecideMatched(main, a.View(), b.View(), true, values_alone, true).duplicate);
  main.main_agreeing = 14;  // 0.88
  EXPECT_TRUE(RobustDecideMatched(main, a.View(), b.View(), true, o, true).duplicate);
}

// Two records of a database site a few shingles apart (the site's template
// holds nearly all their text): their titles name two items by their
// numbers, so the digests' edit does not make them one; the same record
// titled alike is one edited.
TEST(RobustTitleTest, RecordsNamedByTwoNumbersAreNoEdit) {
  std::mt19937_64 rng(43);
  const RobustMethodOptions o;
  const std::string body = Paragraphs(Words(rng, 600));
  auto record = [&](const std::string& title, const std::string& field, const std::string& url) {
    return Sign("<html><head><title>" + title + "</title></head><body>" + body + "<p>" + field + "</p></body></html>",
                url, o);
  };
  const SignedPage home = record("Bluebird945: home record 173815", "born 1901 in Leeds",
                                 "http://www.bluebird945.example/db/people/173815");
  const SignedPage people = record("Bluebird945: people record 173816", "born 1907 in York",
                                   "http://www.copy.example/db/people/173816");
  const SignedPage again = record("Bluebird945: home record 173815", "born 1907 in York",
                                  "http://www.copy.example/db/people/173815");
  const int differing =
      DifferenceDigest::DifferenceSize(home.digest.data(), people.digest.data(), kRobustDigestCells, 1000);
  ASSERT_GT(differing, 0);
  ASSERT_LE(static_cast<uint32_t>(differing), o.max_edit_shingles);
  SiteTemplates::Match all_boilerplate;
  all_boilerplate.template_shared = o.num_minhashes - 1;
  const PairDecision two = RobustDecideMatched(all_boilerplate, home.View(), people.View(), true, o, true);
  EXPECT_FALSE(two.duplicate) << two.reason;
  EXPECT_NE(two.reason.find("an edit's worth, but their titles name two items by their numbers"), std::string::npos)
      << two.reason;
  EXPECT_FALSE(RobustDecideMatched(all_boilerplate, home.View(), people.View(), true, o, false).duplicate);
  RobustMethodOptions values_alone = o;
  values_alone.titles_decide = false;
  EXPECT_TRUE(RobustDecideMatched(all_boilerplate, home.View(), people.View(), true, values_alone, true).duplicate);
  const PairDecision one = RobustDecideMatched(all_boilerplate, home.View(), again.View(), true, o, true);
  EXPECT_TRUE(one.duplicate) << one.reason;
  EXPECT_NE(one.reason.find("an edit"), std::string::npos) << one.reason;
}

TEST(RobustMainTextTest, SpecsRoundTripAndSpecsWrittenBeforeMainTextKeepTheirMeaning) {
  const RobustMethodOptions o;
  const std::string spec = o.Spec();
  EXPECT_NE(spec.find(",main-m=42,main-r=2,main-line=10,main-min=50,main=0.5,contain=0.8,"), std::string::npos) << spec;
  auto parsed = RobustMethodOptions::Parse(spec);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->Spec(), spec);
  EXPECT_EQ(parsed->main_minhashes, 42u);
  // A whole spec of a store or a summary.json written before main text.
  const std::string before =
      "robust:k=5,m=84,r=3,template=2,template-fraction=0.05,content=0.2,no-template=0.8,edit=30,"
      "same-site-edit=20,numbers,own-url,seed=1234";
  auto old = RobustMethodOptions::Parse(before);
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->main_minhashes, 0u);
  EXPECT_EQ(old->Spec(), before);
  // Whole specs written before URLs in the text were one class: only the
  // page's own was; today's spec says text-urls.
  EXPECT_FALSE(old->normalize_text_urls);
  EXPECT_TRUE(o.normalize_text_urls);
  EXPECT_NE(spec.find(",own-url,text-urls,"), std::string::npos) << spec;
  EXPECT_TRUE(parsed->normalize_text_urls);
  EXPECT_FALSE(RobustMethodOptions::Parse("robust:no-text-urls")->normalize_text_urls);
  // ... and before titles were compared: none; today's spec says titles.
  EXPECT_FALSE(old->compare_titles);
  EXPECT_NE(spec.find(",text-urls,image-names,titles,"), std::string::npos) << spec;
  EXPECT_TRUE(parsed->compare_titles);
  EXPECT_FALSE(RobustMethodOptions::Parse("robust:no-titles")->compare_titles);
  EXPECT_EQ(RobustMethodOptions::Parse("robust:no-titles")->Spec().find("titles"), std::string::npos);
  // ... and before a title's numbers were marked: none; today's spec says
  // title-numbers, which acts through titles and without them is not
  // written.
  EXPECT_FALSE(old->title_numbers);
  EXPECT_NE(spec.find(",titles,title-numbers,"), std::string::npos) << spec;
  EXPECT_TRUE(parsed->title_numbers);
  EXPECT_FALSE(RobustMethodOptions::Parse("robust:no-title-numbers")->title_numbers);
  EXPECT_EQ(RobustMethodOptions::Parse("robust:no-titles")->Spec().find("title-numbers"), std::string::npos);
  // ... and before function words were no word in common: every word
  // counted; today's spec says title-function-words, through titles too.
  EXPECT_FALSE(old->title_function_words);
  EXPECT_NE(spec.find(",title-numbers,title-function-words,"), std::string::npos) << spec;
  EXPECT_TRUE(parsed->title_function_words);
  EXPECT_FALSE(RobustMethodOptions::Parse("robust:no-title-function-words")->title_function_words);
  EXPECT_EQ(RobustMethodOptions::Parse("robust:no-titles")->Spec().find("function-words"), std::string::npos);
  // ... and before titles decided where the values cannot: the values
  // alone did; today's spec says titles-decide, through titles too.
  EXPECT_FALSE(old->titles_decide);
  EXPECT_NE(spec.find(",title-function-words,titles-decide,"), std::string::npos) << spec;
  EXPECT_TRUE(parsed->titles_decide);
  EXPECT_FALSE(RobustMethodOptions::Parse("robust:no-titles-decide")->titles_decide);
  EXPECT_EQ(RobustMethodOptions::Parse("robust:no-titles")->Spec().find("titles-decide"), std::string::npos);
  // ... and before an image was volatile by its file name alone: by its
  // whole URL; today's spec says image-names.
  EXPECT_FALSE(old->image_file_names);
  EXPECT_TRUE(parsed->image_file_names);
  EXPECT_FALSE(RobustMethodOptions::Parse("robust:no-image-names")->image_file_names);
  const std::string no_numbers = RobustMethodOptions::Parse("robust:no-numbers")->Spec();
  EXPECT_EQ(no_numbers.find("image-names"), std::string::npos) << no_numbers;
  EXPECT_EQ(RobustMethodOptions::Parse(no_numbers)->Spec(), no_numbers);
  // Without own-url, text-urls changes nothing and is not written: the
  // spec round-trips to the same string.
  const std::string no_own = RobustMethodOptions::Parse("robust:no-own-url")->Spec();
  EXPECT_EQ(no_own.find("text-urls"), std::string::npos) << no_own;
  EXPECT_EQ(RobustMethodOptions::Parse(no_own)->Spec(), no_own);
  // ... and one written with main text, before containment.
  const std::string before_containment =
      "robust:k=5,m=84,r=3,template=2,template-fraction=0.05,content=0.2,no-template=0.8,edit=30,"
      "same-site-edit=20,main-m=42,main-line=10,main-min=50,main=0.5,numbers,own-url,seed=1234";
  auto main_only = RobustMethodOptions::Parse(before_containment);
  ASSERT_TRUE(main_only.ok());
  EXPECT_EQ(main_only->main_minhashes, 42u);
  EXPECT_EQ(main_only->min_main_containment, 0.0);
  EXPECT_FALSE(main_only->keeps_main_shingles());
  EXPECT_EQ(main_only->Spec(), before_containment);
  // Both band main text as the whole page, as their stores' keys were made.
  EXPECT_EQ(main_only->main_band_rows, 3u);
  EXPECT_EQ(old->main_band_rows, 3u);
  EXPECT_EQ(o.main_band_rows, 2u);
  EXPECT_EQ(parsed->main_band_rows, 2u);
  // main-r equal to r is not written, and reads back as r.
  auto same_rows = RobustMethodOptions::Parse("robust:r=2");
  ASSERT_TRUE(same_rows.ok());
  EXPECT_EQ(same_rows->Spec().find("main-r="), std::string::npos) << same_rows->Spec();
  EXPECT_EQ(RobustMethodOptions::Parse(same_rows->Spec())->main_band_rows, 2u);
  // A partial spec that names the seed is not a whole one: it takes
  // today's defaults (main text, containment, 32-bit values, main-r).
  auto seeded = RobustMethodOptions::Parse("robust:seed=7");
  ASSERT_TRUE(seeded.ok());
  EXPECT_EQ(seeded->seed, 7u);
  EXPECT_EQ(seeded->main_minhashes, 42u);
  EXPECT_EQ(seeded->min_main_containment, 0.8);
  EXPECT_EQ(seeded->minhash_bits, 32u);
  EXPECT_EQ(seeded->main_band_rows, 2u);
  auto other_rows = RobustMethodOptions::Parse("robust:main-r=6");
  ASSERT_TRUE(other_rows.ok());
  EXPECT_EQ(RobustMethodOptions::Parse(other_rows->Spec())->main_band_rows, 6u);
  EXPECT_EQ(main_only->minhash_bits, 64u);
  EXPECT_EQ(old->minhash_bits, 64u);
  // Specs written before 32-bit values describe 64-bit ones and keep their
  // text; a written spec says hash=32, a partial one gets it by default.
  EXPECT_EQ(o.minhash_bits, 32u);
  EXPECT_NE(spec.find(",hash=32,seed="), std::string::npos) << spec;
  EXPECT_EQ(parsed->minhash_bits, 32u);
  auto wide = RobustMethodOptions::Parse("robust:hash=64");
  ASSERT_TRUE(wide.ok());
  EXPECT_EQ(wide->minhash_bits, 64u);
  EXPECT_EQ(RobustMethodOptions::Parse(wide->Spec())->minhash_bits, 64u);
  EXPECT_FALSE(RobustMethodOptions::Parse("robust:hash=48").ok());
  // A partial spec keeps the defaults, main text and containment included.
  auto partial = RobustMethodOptions::Parse("robust:no-template=0.7");
  ASSERT_TRUE(partial.ok());
  EXPECT_EQ(partial->main_minhashes, 42u);
  EXPECT_EQ(partial->min_main_containment, 0.8);
  EXPECT_FALSE(RobustMethodOptions::Parse("robust:contain=1.2").ok());
  EXPECT_FALSE(RobustMethodOptions::Parse("robust:main-m=2,main-r=3").ok());  // fewer than main-r
  EXPECT_FALSE(RobustMethodOptions::Parse("robust:main-r=0").ok());
  EXPECT_FALSE(RobustMethodOptions::Parse("robust:main=1.5").ok());
}

}  // namespace
// GroupByValue, the templates step's grouping of a site's column: every
// pair kept, each value's pairs together in their first order, for columns
// of a few pages (insertion sort), of a small site (hash buckets) and of a
// large one (radix sort), with values repeated as a template's are.
TEST(GroupByValueTest, EachValuesPairsTogetherInTheirOrder) {
  std::mt19937_64 rng(17);
  std::vector<std::pair<uint32_t, uint32_t>> scratch;
  std::vector<uint32_t> counts;
  for (size_t n : {size_t{0}, size_t{1}, size_t{5}, size_t{15}, size_t{16}, size_t{17}, size_t{100}, size_t{1000},
                   size_t{70000}}) {
    for (uint32_t distinct : {1u, 3u, 50u, 1u << 30}) {
      std::vector<std::pair<uint32_t, uint32_t>> column(n);
      for (uint32_t q = 0; q < n; ++q) {
        // Min-hash-like values: small ones far more often, and a few held by many pages.
        const uint32_t value = rng() % 4 == 0 ? static_cast<uint32_t>(rng() % 3) * 0x9E3779B1u
                                              : static_cast<uint32_t>(rng() % distinct) >> (rng() % 8);
        column[q] = {value, q};
      }
      std::vector<std::pair<uint32_t, uint32_t>> grouped = column;
      GroupByValue(&grouped, &scratch, &counts);
      ASSERT_EQ(grouped.size(), n);
      std::vector<std::pair<uint32_t, uint32_t>> a = column, b = grouped;
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      EXPECT_EQ(a, b) << n << " " << distinct;
      std::set<uint32_t> done;  // values whose run has ended
      for (size_t k = 0; k < n; ++k) {
        if (k > 0 && grouped[k].first == grouped[k - 1].first) {
          EXPECT_LT(grouped[k - 1].second, grouped[k].second) << "pages ascending within a value, n " << n;
        } else {
          EXPECT_TRUE(done.insert(grouped[k].first).second) << "a value in two runs, n " << n;
        }
      }
    }
  }
}

}  // namespace neardup
