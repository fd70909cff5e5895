// Copyright neardup authors. Licensed under Apache-2.0.
//
// Handmade cases for every tokenization rule: Henzinger §2 (markup, terms,
// URLs in text, IMG terms), Pereira et al. (sentences), lines, links.
#include "text/tokenizer.h"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <cctype>
#include <random>
#include <string>
#include <vector>

#include "text/url.h"

namespace neardup {
namespace {

using Terms = std::vector<std::string>;

Terms TermsOf(const TokenizedDocument& doc) {
  Terms t;
  for (size_t i = 0; i < doc.num_terms(); ++i) t.emplace_back(doc.term(i));
  return t;
}

TokenizedDocument Tok(std::string_view html, std::string_view url = "",
                      ContentKind kind = ContentKind::kHtml, std::string_view charset = "",
                      const TokenizeOptions& options = TokenizeOptions()) {
  Tokenizer tokenizer(options);
  TokenizedDocument doc;
  tokenizer.Tokenize(html, kind, charset, url, &doc);
  return doc;
}

Terms T(std::string_view html, std::string_view url = "") { return TermsOf(Tok(html, url)); }

TEST(TokenizerTest, OptionsValidate) {
  TokenizeOptions o;
  EXPECT_TRUE(o.Validate().ok());
  o.sentence_max_chars = 0;
  EXPECT_TRUE(o.Validate().IsInvalidArgument());
  o.sentence_max_chars = 150;
  o.charset_prescan_bytes = 2u << 20;
  EXPECT_TRUE(o.Validate().IsInvalidArgument());
}

TEST(TokenizerTest, TermsAreMaximalAlphanumericRunsCaseFolded) {
  EXPECT_EQ(T("Hello, World! foo_bar x2y 3.14"),
            (Terms{"hello", "world", "foo", "bar", "x2y", "3", "14"}));
  EXPECT_EQ(T(""), Terms{});
  EXPECT_EQ(T("  \n\t "), Terms{});
}

// URLs written in the text: from "http://" or "https://" (any case) to
// white space or markup, as term ranges; "http" without "://" is a word.
TEST(TokenizerTest, UrlSpansInText) {
  Tokenizer tokenizer;
  TokenizedDocument doc;
  tokenizer.Tokenize("<p>See HTTP://www.a.example/x?y=1 and https://b.example now. Not http: here"
                     "<a href=\"/\">http://c.example</a>after</p>",
                     ContentKind::kHtml, "utf-8", "", &doc);
  // see http www a example x y 1 and https b example now not http herehttp c exampleafter
  // 0   1    2   3 4       5 6 7 8   9     10 11     12  13  14
  // <a> is a formatting tag, no break: "here" and the last "http" are one
  // term, glued, and no URL opens there.
  EXPECT_EQ(doc.url_spans, (std::vector<uint32_t>{1, 8, 9, 12}));
  tokenizer.Tokenize("http://only.example", ContentKind::kText, "", "", &doc);
  EXPECT_EQ(doc.url_spans, (std::vector<uint32_t>{0, 3}));
  // White space that is not ASCII (a no-break space, written or as a
  // character reference) ends a URL too.
  tokenizer.Tokenize("<p>See http://a.example/x&nbsp;now and http://b.exampleÂ then</p>", ContentKind::kHtml,
                     "utf-8", "", &doc);
  // see http a example x now and http b example then
  // 0   1    2 3       4 5   6   7    8 9       10
  EXPECT_EQ(doc.url_spans, (std::vector<uint32_t>{1, 5, 7, 10}));
  // Glued to a word before it, "http" is part of that word (the terms are as
  // before URLs were marked) and opens no URL.
  tokenizer.Tokenize("\xd1\x81\xd0\xb0\xd0\xb9\xd1\x82http://x.example", ContentKind::kText, "utf-8", "", &doc);
  EXPECT_EQ(doc.num_terms(), 3u);
  EXPECT_TRUE(doc.url_spans.empty());
}

TEST(TokenizerTest, FullUnicodeCaseFolding) {
  EXPECT_EQ(T("Straße STRASSE ÀÉÎ ΣΊΣΥΦΟΣ Ǆemal"),
            (Terms{"strasse", "strasse", "àéî", "σίσυφοσ", "ǆemal"}));
  // Combining marks continue a term (decomposed é).
  EXPECT_EQ(T("E\xCC\x81" "cole"), (Terms{"e\xCC\x81" "cole"}));
  // Digits of other scripts and letter-like numbers are term characters.
  EXPECT_EQ(T("٣٤ Ⅻ"), (Terms{"٣٤", "ⅻ"}));
}

TEST(TokenizerTest, FormattingTagsDoNotSeparateWords) {
  EXPECT_EQ(T("con<b>cat</b>enate"), Terms{"concatenate"});
  EXPECT_EQ(T("<span>a</span><i>b</i><font color=red>c</font><a href='x'>d</a>"),
            Terms{"abcd"});
  EXPECT_EQ(T("super<wbr>cali<EM>fragil</EM>istic"), Terms{"supercalifragilistic"});
  EXPECT_EQ(T("x<abbr title='t'>y</abbr><sup>2</sup>"), Terms{"xy2"});
}

TEST(TokenizerTest, OtherMarkupIsWhiteSpace) {
  EXPECT_EQ(T("foo<p>bar"), (Terms{"foo", "bar"}));
  EXPECT_EQ(T("foo<br/>bar"), (Terms{"foo", "bar"}));
  EXPECT_EQ(T("foo<td>bar</td>baz"), (Terms{"foo", "bar", "baz"}));
  EXPECT_EQ(T("foo<custom-element>bar</custom-element>"), (Terms{"foo", "bar"}));
  EXPECT_EQ(T("foo<input value=x>bar"), (Terms{"foo", "bar"}));
  EXPECT_EQ(T("foo<!-- c -->bar"), (Terms{"foo", "bar"}));
}

TEST(TokenizerTest, ScriptStyleCommentsAndHiddenElementsDropped) {
  EXPECT_EQ(T("a<script>var x = '<b>y</b>'; if (a<b) z();</script>b"), (Terms{"a", "b"}));
  EXPECT_EQ(T("a<SCRIPT type=text/javascript>x</ScRiPt >b"), (Terms{"a", "b"}));
  EXPECT_EQ(T("a<style>p { color: red }</style>b"), (Terms{"a", "b"}));
  EXPECT_EQ(T("a<!-- hidden <p> text -->b<!---->c<!-->d<!--->e"),
            (Terms{"a", "b", "c", "d", "e"}));
  EXPECT_EQ(T("a<noscript><img src=pixel.gif>enable js</noscript>b"), (Terms{"a", "b"}));
  EXPECT_EQ(T("a<template><p>t</p></template>b"), (Terms{"a", "b"}));
  EXPECT_EQ(T("a<svg><title>icon</title><text>x</text></svg>b<svg/>c"),
            (Terms{"a", "b", "c"}));
  EXPECT_EQ(T("a<iframe src=f.html>fallback</iframe>b"), (Terms{"a", "b"}));
  // An unclosed script runs to the end.
  EXPECT_EQ(T("a<script>never closed b c"), Terms{"a"});
}

TEST(TokenizerTest, DoctypeProcessingInstructionsCdata) {
  EXPECT_EQ(T("<!DOCTYPE html><html><head></head><body>x</body></html>"), Terms{"x"});
  EXPECT_EQ(T("<?xml version=\"1.0\"?><rss><title>y</title></rss>"), Terms{"y"});
  // CDATA holds HTML in feeds: tokenized as HTML.
  EXPECT_EQ(T("<description><![CDATA[Hello <b>Wo</b>rld & co]]></description>"),
            (Terms{"hello", "world", "co"}));
  EXPECT_EQ(T("<![CDATA[unterminated"), Terms{"unterminated"});
}

TEST(TokenizerTest, CharacterReferences) {
  EXPECT_EQ(T("caf&eacute; &amp; &lt;b&gt; &#233;t&#xE9; &#X45;"),
            (Terms{"café", "b", "été", "e"}));
  EXPECT_EQ(T("x&nbsp;y&hellip;z&mdash;w it&rsquo;s &apos;q&apos;"),
            (Terms{"x", "y", "z", "w", "it", "s", "q"}));
  // Legacy names without ';' (HTML 4 set).
  EXPECT_EQ(T("&eacutecole &Agrave &amp"), (Terms{"école", "à"}));
  EXPECT_EQ(T("&notin; &notit;"), (Terms{"it"}));
  EXPECT_EQ(T("&unknown; &; & x"), (Terms{"unknown", "x"}));
  // Numeric edge cases: NUL and out-of-range become U+FFFD, C1 read as cp1252.
  EXPECT_EQ(T("a&#0;b&#x110000;c&#150;d&#x1F600;e"), (Terms{"a", "b", "c", "d", "e"}));
  EXPECT_EQ(T("A&#66;C"), Terms{"abc"});
  // Soft hyphen is ignorable inside a word.
  EXPECT_EQ(T("hy&shy;phen"), Terms{"hyphen"});
  // Two-code-point references.
  EXPECT_EQ(T("&NotEqualTilde;"), Terms{});
}

TEST(TokenizerTest, LegacyReferenceWithoutSemicolon) {
  EXPECT_EQ(T("&eacutex"), Terms{"éx"});
  EXPECT_EQ(T("&copy2008"), Terms{"2008"});
}

TEST(TokenizerTest, UrlsInTextBreakAtSlashesAndDots) {
  EXPECT_EQ(T("see http://www.Example.com/path/to/file.html?q=1 now"),
            (Terms{"see", "http", "www", "example", "com", "path", "to", "file", "html", "q",
                   "1", "now"}));
}

TEST(TokenizerTest, ScriptsWithoutSpacesSplitPerCharacter) {
  EXPECT_EQ(T("中文分词"), (Terms{"中", "文", "分", "词"}));
  EXPECT_EQ(T("日本語のテキスト、ー"),
            (Terms{"日", "本", "語", "の", "テ", "キ", "ス", "ト", "ー"}));
  EXPECT_EQ(T("abc中文def 2008年"), (Terms{"abc", "中", "文", "def", "2008", "年"}));
  // Thai: each letter a term, its combining vowel and tone marks attached.
  EXPECT_EQ(T("สวัสดี"), (Terms{"ส", "วั", "ส", "ดี"}));
  // Korean uses spaces: Hangul words stay whole.
  EXPECT_EQ(T("한국어 단어"), (Terms{"한국어", "단어"}));
}

TEST(TokenizerTest, ImgSrcIsOneTerm) {
  const std::string page = "http://www.example.com/dir/page.html";
  // Own host: only the file name.
  EXPECT_EQ(T("a<img src=\"/images/Logo.PNG\">b", page), (Terms{"a", "logo.png", "b"}));
  EXPECT_EQ(T("<img src='pic.jpg?v=2'>", page), Terms{"pic.jpg"});
  EXPECT_EQ(T("<img src='HTTP://WWW.EXAMPLE.COM/x/y.gif'>", page), Terms{"y.gif"});
  // Other host: the whole URL, case-folded.
  EXPECT_EQ(T("<img src='http://cdn.Other.com/a/B.gif'>", page),
            Terms{"http://cdn.other.com/a/b.gif"});
  EXPECT_EQ(T("<img src='//cdn.other.com/c.gif'>", page), Terms{"http://cdn.other.com/c.gif"});
  // A <base> on another host makes relative images other-host.
  EXPECT_EQ(T("<base href='http://static.example.org/s/'><img src='a.gif'>", page),
            Terms{"http://static.example.org/s/a.gif"});
  // Entities in the attribute, white space trimmed; alt text is not counted.
  EXPECT_EQ(T("<img alt='hello world' src=' /i/a&amp;b.gif '>", page), Terms{"a&b.gif"});
  // data: URIs, empty src, and a directory URL give no term.
  EXPECT_EQ(T("<img src='data:image/png;base64,AAAA'><img src=''><img src='/dir/'>", page),
            Terms{});
  // TAB, CR and LF are dropped and '\' read as '/' anywhere in the URL
  // (browsers' reading), past its first 16 bytes too.
  EXPECT_EQ(T("<img src='/a/very/long/directory/name\\Logo.PNG'>", page), Terms{"logo.png"});
  EXPECT_EQ(T("<img src='/images/abcdefghijklmnop/lo\tgo.gif'>", page), Terms{"logo.gif"});
  EXPECT_EQ(T("<img src='/i/x\r\n.gif'>", page), Terms{"x.gif"});
  // No page URL: relative src counts as own host.
  EXPECT_EQ(T("<img src='../img/x.png'>"), Terms{"x.png"});
  // An IMG separates words.
  EXPECT_EQ(T("foo<img src=x.gif>bar", page), (Terms{"foo", "x.gif", "bar"}));
}

// An image on the page's own host is named by the last segment of its
// resolved path (ImgTerm finds it without resolving): the term must be the
// one resolution gives, for every kind of relative reference.
TEST(TokenizerTest, OwnHostImgTermIsTheResolvedPathsFileName) {
  const std::vector<std::string> refs = {
      "a.gif", "x/y/../Z.png", "x/..", "x/.", ".", "..", "?q=1", "#f", "./a.png", "../../../b.png",
      "/c/d.gif?x#y", "a/b/", "%41.gif", "..gif", "...", "./", "/", "a/./b.gif", "../x/../y.gif"};
  for (const std::string page : {"http://www.example.com/dir/page.html", "http://www.example.com/dir/",
                                 "http://www.example.com", "https://WWW.Example.com:8443/a/b/c.php?id=3"}) {
    for (const std::string& ref : refs) {
      Result<std::string> resolved = ResolveUrl(page, ref);
      ASSERT_TRUE(resolved.ok()) << page << " " << ref;
      const std::string_view path = SplitUrl(*resolved).path;
      const size_t slash = path.rfind('/');
      std::string file(slash == std::string_view::npos ? path : path.substr(slash + 1));
      for (char& c : file) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      const Terms want = file.empty() ? Terms{} : Terms{file};
      EXPECT_EQ(T("<img src='" + ref + "'>", page), want) << page << " + " << ref << " = " << *resolved;
    }
  }
}

TEST(TokenizerTest, MirroredPageGivesSameTerms) {
  const std::string html =
      "<p>Same text</p><img src='/logo.gif'><img src='http://ads.example.net/b.gif'>";
  EXPECT_EQ(T(html, "http://www.site-a.com/x.html"), T(html, "http://mirror.site-b.org/y/z.html"));
}

TEST(TokenizerTest, AttributesWithGtInsideQuotes) {
  EXPECT_EQ(T("<a title=\"a>b\" href=\"x\">text</a>"), Terms{"text"});
  EXPECT_EQ(T("<img alt='x > y' src=z.gif>"), Terms{"z.gif"});
  // A quote inside an attribute name does not open a value.
  EXPECT_EQ(T("<div \"foo>bar</div>"), Terms{"bar"});
}

TEST(TokenizerTest, UnclosedMarkupAtEndOfInput) {
  EXPECT_EQ(T("abc<!-- never closed def"), Terms{"abc"});
  EXPECT_EQ(T("abc<div class='x def"), Terms{"abc"});
  EXPECT_EQ(T("abc<div"), Terms{"abc"});
  EXPECT_EQ(T("abc <"), Terms{"abc"});
  EXPECT_EQ(T("a < b and c<3"), (Terms{"a", "b", "and", "c", "3"}));
  EXPECT_EQ(T("abc</"), Terms{"abc"});
  EXPECT_EQ(T("abc<!DOCTYPE"), Terms{"abc"});
}

// A title, textarea, script, style or iframe never closed: where the page
// stops inside it (a capture cut in a script) the rest is the element's, as
// in HTML5; where the page goes on to its "</body>" or "</html>" (a head
// spliced or cut, as in some captures of L3S-GN1), the element reads as
// empty and the rest as HTML, not as one title of the whole page's markup.
TEST(TokenizerTest, ElementsNeverClosedInAPageThatGoesOn) {
  EXPECT_EQ(T("<title>BBC SPORT library-->\n<script src=a.js></script><body><p>Story <b>text</b></p></body></html>"),
            (Terms{"bbc", "sport", "library", "story", "text"}));
  EXPECT_EQ(T("<html><script>var a = 1;<p>Story text</p></BODY>"), (Terms{"var", "a", "1", "story", "text"}));
  EXPECT_EQ(T("<textarea>a<p>b</p></html>"), (Terms{"a", "b"}));
  EXPECT_EQ(T("<iframe src=x.html><p>after</p></html>"), Terms{"after"});
  EXPECT_EQ(T("<style>p { color: red }<p>after</p></body>"), (Terms{"p", "color", "red", "after"}));
  // No page end after it: the HTML5 rule.
  EXPECT_EQ(T("<title>a <p>b</p>"), (Terms{"a", "p", "b", "p"}));
  EXPECT_EQ(T("a<iframe><p>b</p>"), Terms{"a"});
  // A page end before the element does not count.
  EXPECT_EQ(T("a</body><script>b <p>c</p>"), Terms{"a"});
  // Closed elements are as before, whatever follows.
  EXPECT_EQ(T("<title>t</title><script>s</script><p>x</p></html>"), (Terms{"t", "x"}));
  // Text of an unclosed element is seen once: many unclosed elements of one
  // name each read as empty (and their search is one pass, not one a tag).
  std::string many;
  for (int i = 0; i < 20000; ++i) many += "<iframe>w ";
  many += "</html>";
  const TokenizedDocument d = Tok(many);
  ASSERT_EQ(d.num_terms(), 20000u);
  EXPECT_EQ(d.term(19999), "w");
  // The same within CDATA sections (each its own range), many of them.
  std::string sections;
  for (int i = 0; i < 2000; ++i) sections += "<![CDATA[" + std::string(50, ' ') + "<iframe>c<iframe>c ]]>";
  sections += "<![CDATA[";
  for (int i = 0; i < 20000; ++i) sections += "<title>c ";
  sections += "]]></html>";
  EXPECT_EQ(Tok(sections).num_terms(), 24000u);
  // An element closed inside CDATA content only: the search there does not
  // hide the end tag after the CDATA section.
  EXPECT_EQ(T("<![CDATA[<iframe>x]]>y<iframe>z</iframe>w</html>"), (Terms{"x", "y", "w"}));
}

TEST(TokenizerTest, TextElements) {
  TokenizedDocument d = Tok("<title>A &amp; B</title>c");
  EXPECT_EQ(TermsOf(d), (Terms{"a", "b", "c"}));
  EXPECT_EQ(d.line_ends, (std::vector<uint32_t>{2, 3}));
  // textarea is RCDATA: tags inside are text.
  EXPECT_EQ(T("<textarea><b>x</b></textarea>y"), (Terms{"b", "x", "b", "y"}));
  EXPECT_EQ(T("<plaintext><b>x</b>&amp;"), (Terms{"b", "x", "b", "amp"}));
  EXPECT_EQ(T("<xmp><i>y</i></xmp>z"), (Terms{"i", "y", "i", "z"}));
}

TEST(TokenizerTest, LinkTextIsCountedPerLine) {
  // Line 1: a menu of three links; line 2: a paragraph with one linked
  // word; line 3: an anchor without href is not a link.
  TokenizedDocument d = Tok(
      "<ul><li><a href='/a'>home page</a> <a href='/b'>news</a></li></ul>"
      "<p>Read <a href=\"/c\">this</a> story about rivers.</p>"
      "<p><a name='top'>top of</a> the page</p>",
      "http://example.com/");
  EXPECT_EQ(d.line_ends, (std::vector<uint32_t>{3, 8, 12}));
  EXPECT_EQ(d.line_link_terms, (std::vector<uint32_t>{3, 1, 0}));
  // A link left open ends with the document; a block does not close it.
  d = Tok("<a href='/x'>one<p>two three</p>");
  EXPECT_EQ(d.line_link_terms, (std::vector<uint32_t>{1, 2}));
  // Plain text has lines and no links.
  d = Tok("a b\nc", "", ContentKind::kText);
  EXPECT_EQ(d.line_link_terms, (std::vector<uint32_t>{0, 0}));
}

TEST(TokenizerTest, TableCellLinesAreMarked) {
  TokenizedDocument d = Tok("<p>head</p><table><tr><th>name</th><td>52 <b>g</b></td></tr></table><div>tail</div>");
  EXPECT_EQ(d.line_ends, (std::vector<uint32_t>{1, 2, 4, 5}));
  EXPECT_EQ(d.line_is_cell, (std::vector<uint8_t>{0, 1, 1, 0}));
  // A block inside a cell ends the cell's line: its own is no cell's.
  d = Tok("<table><tr><td>a<div>b</div>c</td></tr></table>");
  EXPECT_EQ(d.line_is_cell, (std::vector<uint8_t>{1, 0, 0}));
}

TEST(TokenizerTest, PlainTextSkipsHtml) {
  TokenizedDocument d = Tok("<b>not markup</b> &amp;\nnext line", "", ContentKind::kText);
  EXPECT_EQ(TermsOf(d), (Terms{"b", "not", "markup", "b", "amp", "next", "line"}));
  EXPECT_EQ(d.line_ends, (std::vector<uint32_t>{5, 7}));
}

TEST(TokenizerTest, SentencesEndAtPeriods) {
  TokenizedDocument d = Tok("One two. Three four. Five");
  EXPECT_EQ(d.sentence_ends, (std::vector<uint32_t>{2, 4, 5}));
  // Empty sentences ("...") are not recorded; ideographic full stop ends one.
  d = Tok("a... b。c．d");
  EXPECT_EQ(d.sentence_ends, (std::vector<uint32_t>{1, 2, 3, 4}));
  // Markup does not end sentences.
  d = Tok("<p>a b</p><p>c.</p>");
  EXPECT_EQ(d.sentence_ends, (std::vector<uint32_t>{3}));
  EXPECT_TRUE(Tok("").sentence_ends.empty());
}

TEST(TokenizerTest, SentencesCutAfter150Characters) {
  // "a a a ... a": 100 terms, term i at position 2i; the 151st character
  // (position 150) is the 76th term, which starts the second sentence.
  std::string text;
  for (int i = 0; i < 100; ++i) text += (i ? " a" : "a");
  TokenizedDocument d = Tok(text);
  EXPECT_EQ(d.text_chars, 199u);
  EXPECT_EQ(d.sentence_ends, (std::vector<uint32_t>{75, 100}));
  // A term crossing the boundary stays in the earlier sentence.
  d = Tok(std::string(160, 'x') + " bb");
  EXPECT_EQ(d.sentence_ends, (std::vector<uint32_t>{1, 2}));
  // The cut position counts from the start of the sentence.
  TokenizeOptions o;
  o.sentence_max_chars = 10;
  d = Tok("abc def ghi jkl. mn", "", ContentKind::kHtml, "", o);
  EXPECT_EQ(d.sentence_ends, (std::vector<uint32_t>{3, 4, 5}));
  // A period resets the count.
  d = Tok("abcdefgh. ijklmnop qr", "", ContentKind::kHtml, "", o);
  EXPECT_EQ(d.sentence_ends, (std::vector<uint32_t>{1, 2, 3}));
}

TEST(TokenizerTest, TextCharsCountsCollapsedVisibleText) {
  EXPECT_EQ(Tok("  Hello,   world!  ").text_chars, 13u);
  EXPECT_EQ(Tok("<p>a</p><p>b</p>").text_chars, 3u);
  EXPECT_EQ(Tok("con<b>cat</b>").text_chars, 6u);
  EXPECT_EQ(Tok("<script>xxxx</script>é &amp; 中").text_chars, 5u);
  EXPECT_EQ(Tok("<img src=a.gif>").text_chars, 0u);
}

TEST(TokenizerTest, LinesEndAtBlockTagsAndPreNewlines) {
  TokenizedDocument d = Tok("<p>a b</p><p>c</p>d<br>e<span>f</span>");
  EXPECT_EQ(d.line_ends, (std::vector<uint32_t>{2, 3, 4, 5}));
  d = Tok("<pre>a\nb\n\nc</pre>d\ne");
  EXPECT_EQ(d.line_ends, (std::vector<uint32_t>{1, 2, 3, 5}));
  d = Tok("<h1>T</h1><ul><li>x<li>y</ul><table><tr><td>1<td>2</table>");
  EXPECT_EQ(d.line_ends, (std::vector<uint32_t>{1, 2, 3, 4, 5}));
}

TEST(TokenizerTest, LinksResolvedAgainstPageAndBase) {
  const std::string page = "http://Example.com/a/b.html";
  TokenizedDocument d = Tok(
      "<a href='../c.html#x'>1</a><a href='javascript:void(0)'>2</a>"
      "<a href='mailto:x@y.z'>3</a><a href='#top'>4</a><area href='/d'>"
      "<iframe src='//other.org/f'></iframe><frame src='g.html'>"
      "<a href='HTTP://Example.COM:80/%7Euser/'>5</a><a href=' /sp ace '>6</a>"
      "<a href='data:text/html,x'>7</a><a>8</a><link rel=stylesheet href=s.css>",
      page);
  EXPECT_EQ(d.links, (std::vector<std::string>{
                         "http://example.com/c.html", "http://example.com/d",
                         "http://other.org/f", "http://example.com/a/g.html",
                         "http://example.com/~user/", "http://example.com/sp ace"}));
  d = Tok("<base href='http://cdn.net/x/'><a href='y'>1</a><base href='http://z/'><a href='w'>",
          page);
  EXPECT_EQ(d.links, (std::vector<std::string>{"http://cdn.net/x/y", "http://cdn.net/x/w"}));
  // Without a page URL only absolute links are kept.
  d = Tok("<a href='rel.html'>1</a><a href='https://h.org/abs'>2</a>");
  EXPECT_EQ(d.links, (std::vector<std::string>{"https://h.org/abs"}));
  TokenizeOptions o;
  o.collect_links = false;
  EXPECT_TRUE(Tok("<a href='https://h.org/abs'>2</a>", page, ContentKind::kHtml, "", o)
                  .links.empty());
}

TEST(TokenizerTest, CanonicalUrlIsTheUrlThePageNamesForItself) {
  // A canonical link, resolved against <base>; it wins over og:url wherever
  // it stands.
  TokenizedDocument d = Tok("<base href='http://www.example.com/news/'><meta property='og:url' "
                            "content='https://og.example/a'><p>x</p><LINK REL='Canonical' HREF='1?x=2'>",
                            "saved/page.html");
  EXPECT_EQ(d.canonical_url, "http://www.example.com/news/1?x=2");
  // A page whose URL has a host names its site by it: not looked for.
  EXPECT_EQ(Tok("<link rel=canonical href='https://a.example/p'>", "http://b.example/q").canonical_url, "");
  // og:url (property or name) when no canonical link; the first one.
  d = Tok("<meta name=og:url content='https://og.example/a'><meta property='og:url' content='https://b.example/'>");
  EXPECT_EQ(d.canonical_url, "https://og.example/a");
  // A rel list holding the token; other links are not the page's own.
  d = Tok("<link rel='stylesheet' href='https://cdn.example/s.css'><link rel='alternate canonical' "
          "href='https://www.blog.example/p'>");
  EXPECT_EQ(d.canonical_url, "https://www.blog.example/p");
  // Without a page URL a relative link names no host: none; not http(s): none.
  EXPECT_EQ(Tok("<link rel=canonical href='/p/1'>").canonical_url, "");
  EXPECT_EQ(Tok("<link rel=canonical href='ftp://files.example/p'>").canonical_url, "");
  EXPECT_EQ(Tok("<link rel=canonical href='https://a.example/p'>", "", ContentKind::kText).canonical_url, "");
  // Read as markup, the link makes no term.
  EXPECT_EQ(Tok("a<link rel=canonical href='https://a.example/p'>b").num_terms(), 2u);
}

TEST(TokenizerTest, TitleIsTheFirstTitleElementsTerms) {
  auto title = [](const TokenizedDocument& d) {
    std::string t;
    for (uint32_t i = d.title_begin; i < d.title_end; ++i) t += std::string(d.term(i)) + " ";
    return t;
  };
  TokenizedDocument d = Tok("<html><head><TITLE>Coroner &amp; Office | Fox</TITLE></head><body><p>one two</p>"
                            "<svg><title>icon</title></svg><title>second</title></body></html>");
  EXPECT_EQ(title(d), "coroner office fox ");
  EXPECT_EQ(d.term(d.title_end), "one");  // the title's terms are the page's too
  // Not the first <title> in a skipped <svg>; a later one when none before.
  d = Tok("<p>words before</p><svg><title>icon</title></svg><title>the name</title>");
  EXPECT_EQ(title(d), "the name ");
  // None: no <title>, an empty one, plain text, a <textarea>.
  EXPECT_EQ(Tok("<p>no title here</p>").title_end, 0u);
  d = Tok("<title> </title><p>x</p>");
  EXPECT_EQ(d.title_begin, d.title_end);
  d = Tok("<title>a b</title>", "", ContentKind::kText);
  EXPECT_EQ(d.title_begin, d.title_end);
  EXPECT_EQ(Tok("<textarea>not a title</textarea>").title_end, 0u);
  // A title never closed in a page that goes on reads as empty (ElementEnd).
  d = Tok("<html><head><title>cut</head><body><p>the page</p></body></html>");
  EXPECT_EQ(d.title_begin, d.title_end);
}

TEST(TokenizerTest, HashesAndTermText) {
  TokenizedDocument d = Tok("Alpha beta Γάμμα 中");
  ASSERT_EQ(d.num_terms(), 4u);
  ASSERT_EQ(d.term_offsets.size(), 5u);
  EXPECT_EQ(d.term_offsets.front(), 0u);
  EXPECT_EQ(d.term_offsets.back(), d.term_bytes.size());
  for (size_t i = 0; i < d.num_terms(); ++i) {
    std::string_view t = d.term(i);
    EXPECT_EQ(d.term_hashes[i], XXH3_64bits(t.data(), t.size()));
  }
  TokenizeOptions o;
  o.keep_term_text = false;
  TokenizedDocument h = Tok("Alpha beta Γάμμα 中", "", ContentKind::kHtml, "", o);
  EXPECT_EQ(h.term_hashes, d.term_hashes);
  EXPECT_TRUE(h.term_bytes.empty());
  EXPECT_TRUE(h.term_offsets.empty());
  EXPECT_EQ(h.sentence_ends, d.sentence_ends);
}

// A term's hash is XXH3 of its bytes at every length (the hashes signatures
// and stores are made of), ASCII or not, with or without its text kept.
TEST(TokenizerTest, TermHashesAreXxh3AtEveryLength) {
  std::mt19937 rng(5);
  std::string page;
  for (size_t n = 1; n <= 40; ++n) {
    for (int copy = 0; copy < 3; ++copy) {
      for (size_t k = 0; k < n; ++k) page.push_back(static_cast<char>('a' + rng() % 26));
      page += copy == 1 ? " \xc3\xa9 " : " ";  // an accented letter alone: a two-byte term
    }
  }
  page += "end";
  const TokenizedDocument with_text = Tok(page);
  ASSERT_EQ(with_text.num_terms(), 40u * 4 + 1);
  for (bool keep : {true, false}) {
    TokenizeOptions o;
    o.keep_term_text = keep;
    const TokenizedDocument d = Tok(page, "", ContentKind::kHtml, "", o);
    ASSERT_EQ(d.term_hashes.size(), with_text.num_terms());
    for (size_t i = 0; i < with_text.num_terms(); ++i) {
      const std::string_view t = with_text.term(i);
      EXPECT_EQ(d.term_hashes[i], XXH3_64bits(t.data(), t.size())) << t;
    }
  }
}

// A tag name is read 16 bytes at a time where 16 bytes are left, and a
// byte at a time near the end of the input: both read the same. Each page
// holds a tag and a term right at its end (the byte loop), then the same
// with white space after it (the 16-byte load), which adds nothing.
TEST(TokenizerTest, TagNamesReadTheSameNearTheEnd) {
  const std::vector<std::string> tags = {
      "<DIV>", "<Div class=x>", "<BR/>", "<TD>", "<Th >", "<P\n>", "<H1\tid=a>", "<H2\fx>", "<SPAN>",
      "<sPaN/>", "<IMG src=a.png>", "<a href=b>", "<TiTle>", "<LI\r>", "<ABCDEFGHIJKL>", "</DIV>", "</A>",
      "</Td >", "<ABCDEFGHIJKLMNOPQ x>"};
  for (const std::string& tag : tags) {
    const std::string near_end = "w " + tag + "x";
    const TokenizedDocument a = Tok(near_end, "http://h.example/p");
    const TokenizedDocument b = Tok(near_end + std::string(20, ' '), "http://h.example/p");
    EXPECT_EQ(TermsOf(a), TermsOf(b)) << tag;
    EXPECT_EQ(a.term_hashes, b.term_hashes) << tag;
    EXPECT_EQ(a.line_ends, b.line_ends) << tag;
    EXPECT_EQ(a.line_is_cell, b.line_is_cell) << tag;
    EXPECT_EQ(a.line_link_terms, b.line_link_terms) << tag;
    EXPECT_EQ(a.sentence_ends, b.sentence_ends) << tag;
    EXPECT_EQ(a.text_chars, b.text_chars) << tag;
  }
  // And what the names mean: a block tag in capitals ends a line, a cell
  // is marked, a formatting tag joins the words around it.
  EXPECT_EQ(Tok("w <DIV>x").line_ends, (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(Tok("w <TD>x").line_is_cell, (std::vector<uint8_t>{0, 1}));
  EXPECT_EQ(T("w<SPAN>x"), (Terms{"wx"}));
  EXPECT_EQ(T("w<H1\tid=a>x"), (Terms{"w", "x"}));
}

// Runs of ASCII letters and digits are lower-cased 16 bytes at a time where
// 16 bytes of input are left, and a byte at a time near the end: a run of
// every length at every distance from the end reads the same, and the term
// buffer grows past its first guess (half the text) without losing bytes.
TEST(TokenizerTest, AsciiRunsReadTheSameAtAnyLengthAndPlace) {
  const std::string letters = "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789ZyXwVuTsRqPoNmLkJiHgFeDcBa";
  for (size_t len = 1; len <= letters.size(); len += 7) {
    const std::string run = letters.substr(0, len);
    std::string lower = run;
    for (char& c : lower) c = static_cast<char>(c | 0x20);
    for (size_t tail = 0; tail <= 17; ++tail) {
      const std::string text = "x " + run + std::string(tail, ' ');
      EXPECT_EQ(T(text), (Terms{"x", lower})) << len << " " << tail;
    }
  }
  // Terms longer than half the text (one long run with little else) and
  // many runs: the buffer grows.
  std::string one(5000, 'Q');
  EXPECT_EQ(T(one), Terms{std::string(5000, 'q')});
  std::string many;
  Terms expected;
  for (int i = 0; i < 3000; ++i) {
    many += "Ab" + std::to_string(i) + "<b>Cd</b>,";
    expected.push_back("ab" + std::to_string(i) + "cd");
  }
  EXPECT_EQ(T(many), expected);
  // A sentence cut inside a run (the byte-at-a-time path) keeps the run.
  TokenizeOptions o;
  o.sentence_max_chars = 10;
  TokenizedDocument cut = Tok("abc " + letters, "", ContentKind::kHtml, "", o);
  std::string lower = letters;
  for (char& c : lower) c = static_cast<char>(c | 0x20);
  EXPECT_EQ(TermsOf(cut), (Terms{"abc", lower}));
}

// One tokenizer reused from page to page gives an absolute image URL the
// term of each page's host: its file name on the image's own host, the
// whole URL elsewhere, whichever page came first; hundreds of images on a
// page, then the same on the host of one of them.
TEST(TokenizerTest, AbsoluteImageTermsFollowEachPagesHost) {
  Tokenizer tokenizer;
  auto terms = [&](std::string_view html, std::string_view url) {
    TokenizedDocument d;
    tokenizer.Tokenize(html, ContentKind::kHtml, "", url, &d);
    return TermsOf(d);
  };
  const std::string img = "<p>x <img src='http://cdn.Example.com/a/Logo.png'> y</p>";
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(terms(img, "http://cdn.example.com/index.html"), (Terms{"x", "logo.png", "y"})) << round;
    EXPECT_EQ(terms(img, "http://www.other.org/p.html"), (Terms{"x", "http://cdn.example.com/a/logo.png", "y"}))
        << round;
    EXPECT_EQ(terms(img, ""), (Terms{"x", "http://cdn.example.com/a/logo.png", "y"})) << round;
    EXPECT_EQ(terms("<img src='http://cdn.example.com/a/Logo.png2'>", "http://www.other.org/"),
              Terms{"http://cdn.example.com/a/logo.png2"});
    EXPECT_EQ(terms("<img src='http://cdn.example.com/a/'><img src='HTTPS://cdn.example.com/%7e/q.gif'>",
                    "http://cdn.example.com/"),
              Terms{"q.gif"});
    EXPECT_EQ(terms("<img src='/a/Logo.png'>", "http://cdn.example.com/b/"), Terms{"logo.png"});
  }
  // Hundreds of distinct images on one page, then that page on the host
  // of one of them.
  std::string many;
  Terms want;
  for (int i = 0; i < 300; ++i) {
    many += "<img src='http://i" + std::to_string(i) + ".example.net/p.gif'>";
    want.push_back("http://i" + std::to_string(i) + ".example.net/p.gif");
  }
  EXPECT_EQ(terms(many, "http://www.other.org/"), want);
  EXPECT_EQ(terms(many, "http://i7.example.net/"), [&] {
    Terms w = want;
    w[7] = "p.gif";
    return w;
  }());
}

TEST(TokenizerTest, ReuseGivesSameResults) {
  Tokenizer tokenizer;
  TokenizedDocument a1, b, a2;
  const std::string page_a = "<title>A</title><p>Text one. <img src=x.gif></p>";
  const std::string page_b = "<meta charset=koi8-r><p>\xF0\xD2\xC9\xD7\xC5\xD4</p><a href=q>";
  tokenizer.Tokenize(page_a, ContentKind::kHtml, "", "http://h/", &a1);
  tokenizer.Tokenize(page_b, ContentKind::kHtml, "", "http://h/", &b);
  tokenizer.Tokenize(page_a, ContentKind::kHtml, "", "http://h/", &a2);
  EXPECT_EQ(TermsOf(a1), TermsOf(a2));
  EXPECT_EQ(a1.term_hashes, a2.term_hashes);
  EXPECT_EQ(a1.sentence_ends, a2.sentence_ends);
  EXPECT_EQ(a1.line_ends, a2.line_ends);
  EXPECT_EQ(a1.links, a2.links);
  EXPECT_EQ(TermsOf(b), Terms{"привет"});
  EXPECT_EQ(b.charset, "koi8-r");
  // The Document overload.
  Document doc;
  doc.url = "http://h/";
  doc.body = page_a;
  TokenizedDocument a3;
  tokenizer.Tokenize(doc, &a3);
  EXPECT_EQ(a3.term_hashes, a1.term_hashes);
}

}  // namespace
}  // namespace neardup
