// Copyright neardup authors. Licensed under Apache-2.0.
//
// The SVG and HTML writer: one element per point with its data, escaping,
// log axes that skip non-positive values, and a page that fetches nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "analysis/analysis.h"

namespace neardup {
namespace {

size_t Count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = haystack.find(needle); pos != std::string::npos; pos = haystack.find(needle, pos + 1)) ++n;
  return n;
}

TEST(RenderSvgTest, OneElementPerPointWithItsData) {
  Plot p;
  p.title = "t";
  p.series = {{"first", {{1, 2}, {3, 4}}}, {"second", {{5, 6}}}};
  const std::string svg = RenderSvg(p);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("viewBox="), std::string::npos);
  EXPECT_EQ(svg.substr(svg.size() - 6), "</svg>");
  EXPECT_EQ(Count(svg, "<circle class=\"point\""), 3u);
  EXPECT_NE(svg.find("data-x=\"3\" data-y=\"4\""), std::string::npos);
  EXPECT_NE(svg.find("data-x=\"5\" data-y=\"6\""), std::string::npos);
  EXPECT_NE(svg.find(">first<"), std::string::npos);  // legend
  EXPECT_NE(svg.find(">second<"), std::string::npos);
}

TEST(RenderSvgTest, BarsAreRectsWithCategoryLabels) {
  Plot p;
  p.kind = Plot::Kind::kBars;
  p.x_categories = {"alpha", "beta"};
  p.series = {{"n", {{0, 7}, {1, 3}}}};
  const std::string svg = RenderSvg(p);
  EXPECT_EQ(Count(svg, "<rect class=\"point\""), 2u);
  EXPECT_NE(svg.find("data-x=\"1\" data-y=\"3\""), std::string::npos);
  EXPECT_NE(svg.find(">alpha<"), std::string::npos);
  EXPECT_NE(svg.find(">beta<"), std::string::npos);
}

TEST(RenderSvgTest, LogAxesSkipNonPositiveValuesAndSayHowMany) {
  Plot p;
  p.log_x = p.log_y = true;
  p.series = {{"s", {{1, 100}, {10, 10}, {100, 1}, {0, 5}, {5, -1}}}};
  p.fit_line = std::make_pair(-1.0, std::log(100.0));
  const std::string svg = RenderSvg(p);
  EXPECT_EQ(Count(svg, "class=\"point\""), 3u);
  EXPECT_NE(svg.find("2 non-positive value(s)"), std::string::npos);
  EXPECT_NE(svg.find("class=\"fit\""), std::string::npos);
  // Decade ticks 1, 10, 100 on both axes.
  EXPECT_GE(Count(svg, ">100</text>"), 2u);
  EXPECT_GE(Count(svg, ">10</text>"), 2u);
}

TEST(RenderSvgTest, EscapesTextAndDrawsEmptyPlots) {
  Plot p;
  p.title = "<script>alert('x')</script> & co";
  p.x_label = "\"x\"";
  const std::string svg = RenderSvg(p);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_NE(svg.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; co"), std::string::npos);
  EXPECT_NE(svg.find("&quot;x&quot;"), std::string::npos);
  EXPECT_NE(svg.find("no data"), std::string::npos);
  EXPECT_EQ(Count(svg, "class=\"point\""), 0u);
}

TEST(HtmlReportTest, SelfContainedPageInOrder) {
  HtmlReport page("Title <1>");
  page.AddKeyValues({{"documents", "35"}});
  page.AddSection("Sizes", "intro & more");
  Plot p;
  p.series = {{"s", {{1, 1}}}};
  page.AddPlot(p, "caption");
  page.AddTable({"a", "b"}, {{"x", "12"}, {"y"}}, "cap");
  const std::string html = page.Render();
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<meta charset=\"utf-8\">"), std::string::npos);
  EXPECT_NE(html.find("<title>Title &lt;1&gt;</title>"), std::string::npos);
  EXPECT_NE(html.find("intro &amp; more"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\">12</td>"), std::string::npos);
  EXPECT_EQ(Count(html, "<tr>"), 3u);  // header + 2 rows; the short row is padded
  EXPECT_LT(html.find("documents"), html.find("Sizes"));
  EXPECT_LT(html.find("<svg"), html.find("<table"));
  // Nothing fetched: no script, stylesheet link, image, or src/href URL.
  for (const char* banned : {"<script", "<link", "<img", "src=", "href=", "@import", "url("}) {
    EXPECT_EQ(html.find(banned), std::string::npos) << banned;
  }
}

}  // namespace
}  // namespace neardup
