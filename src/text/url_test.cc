// Copyright neardup authors. Licensed under Apache-2.0.
#include "text/url.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace neardup {
namespace {

TEST(UrlTest, SplitAppendixB) {
  UrlParts p = SplitUrl("http://www.ics.uci.edu/pub/ietf/uri/?q=1#Related");
  EXPECT_EQ(p.scheme, "http");
  EXPECT_EQ(p.authority, "www.ics.uci.edu");
  EXPECT_EQ(p.path, "/pub/ietf/uri/");
  EXPECT_EQ(p.query, "q=1");
  EXPECT_EQ(p.fragment, "Related");
  p = SplitUrl("../x?");
  EXPECT_FALSE(p.has_scheme);
  EXPECT_FALSE(p.has_authority);
  EXPECT_EQ(p.path, "../x");
  EXPECT_TRUE(p.has_query);
  EXPECT_TRUE(p.query.empty());
  EXPECT_FALSE(SplitUrl("1a:b").has_scheme);
  EXPECT_TRUE(SplitUrl("a+b.c-d:e").has_scheme);
}

TEST(UrlTest, RemoveDotSegments) {
  EXPECT_EQ(RemoveDotSegments("/a/b/c/./../../g"), "/a/g");
  EXPECT_EQ(RemoveDotSegments("mid/content=5/../6"), "mid/6");
  EXPECT_EQ(RemoveDotSegments("/.."), "/");
  EXPECT_EQ(RemoveDotSegments(""), "");
}

// RFC 3986 §5.4.1 and §5.4.2, base "http://a/b/c/d;p?q".
TEST(UrlTest, ResolveRfc3986Examples) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"g:h", "g:h"}, {"g", "http://a/b/c/g"}, {"./g", "http://a/b/c/g"},
      {"g/", "http://a/b/c/g/"}, {"/g", "http://a/g"}, {"//g", "http://g"},
      {"?y", "http://a/b/c/d;p?y"}, {"g?y", "http://a/b/c/g?y"},
      {"#s", "http://a/b/c/d;p?q#s"}, {"g#s", "http://a/b/c/g#s"},
      {"g?y#s", "http://a/b/c/g?y#s"}, {";x", "http://a/b/c/;x"},
      {"g;x", "http://a/b/c/g;x"}, {"g;x?y#s", "http://a/b/c/g;x?y#s"},
      {"", "http://a/b/c/d;p?q"}, {".", "http://a/b/c/"}, {"./", "http://a/b/c/"},
      {"..", "http://a/b/"}, {"../", "http://a/b/"}, {"../g", "http://a/b/g"},
      {"../..", "http://a/"}, {"../../", "http://a/"}, {"../../g", "http://a/g"},
      // Abnormal examples.
      {"../../../g", "http://a/g"}, {"../../../../g", "http://a/g"}, {"/./g", "http://a/g"},
      {"/../g", "http://a/g"}, {"g.", "http://a/b/c/g."}, {".g", "http://a/b/c/.g"},
      {"g..", "http://a/b/c/g.."}, {"..g", "http://a/b/c/..g"}, {"./../g", "http://a/b/g"},
      {"./g/.", "http://a/b/c/g/"}, {"g/./h", "http://a/b/c/g/h"}, {"g/../h", "http://a/b/c/h"},
      {"g;x=1/./y", "http://a/b/c/g;x=1/y"}, {"g;x=1/../y", "http://a/b/c/y"},
      {"g?y/./x", "http://a/b/c/g?y/./x"}, {"g?y/../x", "http://a/b/c/g?y/../x"},
      {"g#s/./x", "http://a/b/c/g#s/./x"}, {"g#s/../x", "http://a/b/c/g#s/../x"},
      {"http:g", "http:g"},
  };
  for (const auto& [ref, want] : cases) {
    Result<std::string> got = ResolveUrl("http://a/b/c/d;p?q", ref);
    ASSERT_TRUE(got.ok()) << ref;
    EXPECT_EQ(*got, want) << "ref " << ref;
  }
}

TEST(UrlTest, ResolveEdgeCases) {
  EXPECT_EQ(ResolveUrl("http://h", "x").value(), "http://h/x");  // empty base path
  EXPECT_EQ(ResolveUrl("file:///tmp/a/b.html", "../c.png").value(), "file:///tmp/c.png");
  EXPECT_FALSE(ResolveUrl("", "x").ok());
  EXPECT_FALSE(ResolveUrl("relative/base", "x").ok());
  EXPECT_EQ(ResolveUrl("", "https://abs/x").value(), "https://abs/x");
  std::string out = "stale";
  EXPECT_TRUE(ResolveUrlTo("http://a/b", "c", &out));
  EXPECT_EQ(out, "http://a/c");
}

TEST(UrlTest, Host) {
  EXPECT_EQ(UrlHost("http://User:pw@WWW.Example.com:8080/x"), "www.example.com");
  EXPECT_EQ(UrlHost("https://[::1]:443/"), "::1");
  EXPECT_EQ(UrlHost("http://example.com./"), "example.com");
  EXPECT_EQ(UrlHost("http://h?q"), "h");
  EXPECT_EQ(UrlHost("mailto:a@b"), "");
  // UrlHostIs agrees with UrlHost.
  for (const char* url : {"http://User:pw@WWW.Example.com:8080/x", "https://[::1]:443/", "http://example.com./",
                          "http://h?q", "mailto:a@b", "//Example.COM/a", "http://example.co/"}) {
    for (const char* host : {"www.example.com", "::1", "example.com", "h", "", "example.co"}) {
      EXPECT_EQ(UrlHostIs(SplitUrl(url), host), UrlHost(url) == host) << url << " " << host;
    }
  }
  EXPECT_EQ(UrlHost("/relative"), "");
}

TEST(UrlTest, Normalize) {
  EXPECT_EQ(NormalizeUrl("HTTP://Example.COM:80/%7euser/./a/../b?%7e=%2f#frag"),
            "http://example.com/~user/b?~=%2F");
  EXPECT_EQ(NormalizeUrl("https://h:443"), "https://h/");
  EXPECT_EQ(NormalizeUrl("https://h:8443/x"), "https://h:8443/x");
  EXPECT_EQ(NormalizeUrl("http://h:/x"), "http://h/x");
  EXPECT_EQ(NormalizeUrl("ftp://u@H:21/"), "ftp://u@h/");
  EXPECT_EQ(NormalizeUrl("http://h/%41%zz"), "http://h/A%25zz");
  // Found by url_resolve_fuzzer: decoding must not create a new escape.
  EXPECT_EQ(NormalizeUrl("http://h/?%%41af"), "http://h/?%25Aaf");
  EXPECT_EQ(NormalizeUrl("http://h/?%25Aaf"), "http://h/?%25Aaf");
  EXPECT_EQ(NormalizeUrl(NormalizeUrl("HTTP://A/b/../c")), NormalizeUrl("HTTP://A/b/../c"));
}

}  // namespace
}  // namespace neardup
