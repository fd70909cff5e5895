// Copyright neardup authors. Licensed under Apache-2.0.
#include "text/html_lex.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace neardup::text_internal {
namespace {

// A quoted value ends at its closing quote whatever its length, and a '>'
// inside it does not end the tag; an unterminated value runs to the end of
// input; SkipPastGt stops after the first '>' or at the end.
TEST(HtmlLexTest, QuotedValuesEndAtTheirQuoteAtAnyLength) {
  for (size_t n = 0; n <= 40; ++n) {
    const std::string value = std::string(n / 2, 'v') + (n % 2 ? ">" : "") + std::string(n - n / 2 - n % 2, 'w');
    const std::string tag = " class=\"" + value + "\" id='x'>after";
    std::vector<std::pair<std::string, std::string>> attrs;
    bool self_closing = true;
    const char* after = ParseAttributes(tag.data(), tag.data() + tag.size(), &self_closing,
                                        [&](std::string_view a, std::string_view v) { attrs.emplace_back(a, v); });
    ASSERT_NE(after, nullptr) << n;
    EXPECT_EQ(std::string(after), "after") << n;
    EXPECT_FALSE(self_closing);
    ASSERT_EQ(attrs.size(), 2u) << n;
    EXPECT_EQ(attrs[0].first, "class");
    EXPECT_EQ(attrs[0].second, value) << n;
    EXPECT_EQ(attrs[1].second, "x");
    const std::string cut = " class=\"" + value;  // never closed
    EXPECT_EQ(ParseAttributes(cut.data(), cut.data() + cut.size(), &self_closing,
                              [](std::string_view, std::string_view) {}),
              nullptr)
        << n;
  }
  const std::string tags = "<!DOCTYPE html><b>";
  EXPECT_EQ(std::string(SkipPastGt(tags.data(), tags.data() + tags.size())), "<b>");
  EXPECT_EQ(SkipPastGt(tags.data(), tags.data() + 5), tags.data() + 5);
}

// The WHATWG states where a quote is not a value's: a quote inside a name
// is part of it (it cannot swallow the rest of the page), '=' may begin a
// name, an unquoted value runs to white space or '>' (a '/' in it is its
// own, so "b/>" is not self-closing), and "/>" after a quoted value is.
TEST(HtmlLexTest, QuotesOpenValuesOnlyAfterEquals) {
  struct Case {
    const char* tag;
    const char* after;
    bool self_closing;
    std::vector<std::pair<std::string, std::string>> attrs;
  };
  const Case cases[] = {
      {" a\"b c=\"d\">rest", "rest", false, {{"a\"b", ""}, {"c", "d"}}},
      {" =\"x>\">rest", "\">rest", false, {{"=\"x", ""}}},
      {" a=b/>rest", "rest", false, {{"a", "b/"}}},
      {" a=\"b\"/>rest", "rest", true, {{"a", "b"}}},
      {" a = 'b>c' d>rest", "rest", false, {{"a", "b>c"}, {"d", ""}}},
  };
  for (const Case& c : cases) {
    const std::string tag = c.tag;
    std::vector<std::pair<std::string, std::string>> attrs;
    bool self_closing = !c.self_closing;
    const char* after = ParseAttributes(tag.data(), tag.data() + tag.size(), &self_closing,
                                        [&](std::string_view a, std::string_view v) { attrs.emplace_back(a, v); });
    ASSERT_NE(after, nullptr) << c.tag;
    EXPECT_EQ(std::string(after), c.after) << c.tag;
    EXPECT_EQ(self_closing, c.self_closing) << c.tag;
    EXPECT_EQ(attrs, c.attrs) << c.tag;
  }
}

}  // namespace
}  // namespace neardup::text_internal
