// Copyright neardup authors. Licensed under Apache-2.0.
//
// The HTML helpers of the benchmark builder: paragraph extraction, visible
// text, and the edits of copies, which must keep what they promise to keep
// as the tokenizer reads it (checked on the repository's real pages).
#include "synth/html_edit.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "neardup/document.h"
#include "neardup/source.h"
#include "test_util.h"
#include "text/tokenizer.h"

namespace neardup::synth_internal {
namespace {

std::vector<std::string> Terms(std::string_view html, std::string_view url) {
  Tokenizer tokenizer;
  TokenizedDocument d;
  tokenizer.Tokenize(html, ContentKind::kHtml, "utf-8", url, &d);
  std::vector<std::string> t;
  for (size_t i = 0; i < d.num_terms(); ++i) t.emplace_back(d.term(i));
  return t;
}

std::vector<std::string> Links(std::string_view html, std::string_view url) {
  Tokenizer tokenizer;
  TokenizedDocument d;
  tokenizer.Tokenize(html, ContentKind::kHtml, "utf-8", url, &d);
  return d.links;
}

// Real pages: the repository's sample crawl (HTML documents).
std::vector<Document> SamplePages() {
  std::vector<Document> docs;
  auto source =
      OpenDocumentSource({neardup::testing::RepoTestDataDir() + "/sample/sample-crawl.warc.gz"},
                         SourceOptions(), nullptr, nullptr);
  EXPECT_TRUE(source.ok());
  if (!source.ok()) return docs;
  Document d;
  while (source.value()->Next(&d)) {
    if (d.kind == ContentKind::kHtml && d.http_status == 200) docs.push_back(d);
  }
  return docs;
}

TEST(SynthHtmlTest, ScannerCoversEveryByteAndReadsAttributes) {
  const std::string html =
      "<!DOCTYPE html><A HREF='x.html' class=big>a < b</a><!-- c --><script>if (a<b) {}</script>"
      "<img src=\"i.png\"/>";
  HtmlScanner scanner(html);
  HtmlToken t;
  size_t covered = 0;
  std::vector<std::string> names;
  while (scanner.Next(&t)) {
    EXPECT_EQ(t.begin, covered);
    covered = t.end;
    if (t.type == HtmlToken::Type::kStartTag) {
      names.push_back(t.name);
      if (t.name == "a") {
        ASSERT_EQ(t.attrs.size(), 2u);
        EXPECT_EQ(t.attrs[0].name, "href");
        EXPECT_EQ(
            html.substr(t.attrs[0].value_begin, t.attrs[0].value_end - t.attrs[0].value_begin),
            "x.html");
        EXPECT_EQ(html.substr(t.name_begin, t.name_end - t.name_begin), "A");
      }
      if (t.name == "img") {
        EXPECT_TRUE(t.self_closing);
      }
    }
    if (t.type == HtmlToken::Type::kRawText) {
      EXPECT_EQ(t.name, "script");
    }
  }
  EXPECT_EQ(covered, html.size());
  EXPECT_EQ(names, (std::vector<std::string>{"a", "script", "img"}));
}

TEST(SynthHtmlTest, RemoveParagraphsClosesImplicitlyAndKeepsTheRest) {
  const std::string html =
      "<body><h1>Head</h1><p class=x>One <b>bo</b>ld  word.</p><P>Two<div>Box</div>"
      "<noscript><p>hidden</p></noscript><p>Three<br>lines</body>";
  const ParagraphSplit s = RemoveParagraphs(html);
  EXPECT_EQ(s.paragraphs, (std::vector<std::string>{"One bold word.", "Two", "Three lines"}));
  EXPECT_EQ(s.without_paragraphs,
            "<body><h1>Head</h1>\n\n<div>Box</div><noscript><p>hidden</p></noscript>\n</body>");
  EXPECT_EQ(s.first_paragraph_pos, std::string("<body><h1>Head</h1>").size());
  EXPECT_EQ(RemoveParagraphs("<body>no paragraphs</body>").first_paragraph_pos, std::string::npos);
}

TEST(SynthHtmlTest, VisibleTextJoinsInlineTagsAndDropsHiddenOnes) {
  EXPECT_EQ(VisibleText("<title>T</title><style>x{}</style><div>a<b>b</b></div><div>c &amp; d</div>"
                        "<script>var s='<p>';</script><!--x-->e"),
            "T ab c &amp; d e");
  EXPECT_EQ(FoldedWords("It's 2 B&B's, Ünïcode!"),
            (std::vector<std::string>{"its", "2", "bbs", "Ünïcode"}));
}

TEST(SynthHtmlTest, ParseRawUrl) {
  RawUrl u = ParseRawUrl("  HTTP://User@WWW.Example.COM:8080/a/b?q=1#f ");
  EXPECT_TRUE(u.has_scheme && u.web_scheme && u.has_authority);
  EXPECT_EQ(u.host, "www.example.com");
  EXPECT_TRUE(u.has_query);
  u = ParseRawUrl("//cdn.example.org/x.png");
  EXPECT_TRUE(!u.has_scheme && u.has_authority);
  EXPECT_EQ(u.host, "cdn.example.org");
  u = ParseRawUrl("mailto:a@b.c");
  EXPECT_TRUE(u.has_scheme && !u.web_scheme && !u.has_authority);
  u = ParseRawUrl("../x.html#top");
  EXPECT_TRUE(!u.has_scheme && !u.has_authority && !u.has_query);
  EXPECT_EQ(u.path_end, 9u);
}

TEST(SynthHtmlTest, SessionIdGoesIntoEverySameHostLink) {
  const std::string html =
      "<a href=\"/a\">1</a><a href='b.html?x=1#k'>2</a><a href=http://www.s.com/c>3</a>"
      "<a href=\"http://other.com/d\">4</a><a href=\"#top\">5</a><a href=\"mailto:x@s.com\">6</a>"
      "<form action=\"/search\"></form><link href=\"/style.css\">";
  EXPECT_EQ(AddSessionToLinks(html, "www.s.com", "jsessionid", "ABC", true),
            "<a href=\"/a;jsessionid=ABC\">1</a><a href='b.html;jsessionid=ABC?x=1#k'>2</a>"
            "<a href=http://www.s.com/c;jsessionid=ABC>3</a><a href=\"http://other.com/d\">4</a>"
            "<a href=\"#top\">5</a><a href=\"mailto:x@s.com\">6</a>"
            "<form action=\"/search;jsessionid=ABC\"></form><link href=\"/style.css\">");
  EXPECT_EQ(AddSessionToLinks("<a href='b.html?x=1#k'>2</a><a href=\"/\">", "www.s.com", "sid",
                              "f0", false),
            "<a href='b.html?x=1&amp;sid=f0#k'>2</a><a href=\"/?sid=f0\">");
}

TEST(SynthHtmlTest, RewriteHostsKeepsPathsAndOtherHosts) {
  const std::string html =
      "<a href=\"https://www.s.com/x?y#z\">a</a><img src=\"//www.s.com/i.png\">"
      "<a href=\"http://other.com/www.s.com\">b</a><a href=\"/rel\">c</a>";
  EXPECT_EQ(RewriteHosts(
                html, [](std::string_view h) { return h == "www.s.com"; }, "http", "m.s.org"),
            "<a href=\"http://m.s.org/x?y#z\">a</a><img src=\"//m.s.org/i.png\">"
            "<a href=\"http://other.com/www.s.com\">b</a><a href=\"/rel\">c</a>");
}

// Markup changes are invisible: same terms, same links, on real pages and
// many seeds; and they do change the bytes.
TEST(SynthHtmlTest, MarkupChangesKeepTermsAndLinksOfRealPages) {
  const std::vector<Document> pages = SamplePages();
  ASSERT_GE(pages.size(), 20u);
  size_t checked = 0;
  for (size_t i = 0; i < pages.size(); ++i) {
    const Document& d = pages[i];
    const std::vector<std::string> terms = Terms(d.body, d.url);
    const std::vector<std::string> links = Links(d.body, d.url);
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      const std::string changed = MutateMarkup(d.body, seed * 1000 + i);
      EXPECT_NE(changed, d.body) << d.url;
      EXPECT_EQ(Terms(changed, d.url), terms) << d.url << " seed " << seed;
      EXPECT_EQ(Links(changed, d.url), links) << d.url << " seed " << seed;
      ++checked;
    }
  }
  EXPECT_GE(checked, 60u);
}

// Taking the <p> elements out keeps every other term: the template's terms
// and the paragraphs' terms add up to the page's (images inside paragraphs,
// which make a term each, aside).
TEST(SynthHtmlTest, TemplateAndParagraphsAddUpToTheRealPage) {
  for (const Document& d : SamplePages()) {
    const ParagraphSplit s = RemoveParagraphs(d.body);
    size_t split_terms = Terms(s.without_paragraphs, d.url).size();
    for (const std::string& p : s.paragraphs) split_terms += Terms(p, d.url).size();
    const size_t all = Terms(d.body, d.url).size();
    EXPECT_LE(split_terms, all) << d.url;
    EXPECT_GE(static_cast<double>(split_terms), 0.97 * static_cast<double>(all)) << d.url;
  }
}

}  // namespace
}  // namespace neardup::synth_internal
