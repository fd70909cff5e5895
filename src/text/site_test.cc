// Copyright neardup authors. Licensed under Apache-2.0.
#include "text/site.h"

#include <gtest/gtest.h>

namespace neardup {
namespace {

// Henzinger §1: at most one dot -> the host; else drop up to the first dot.
TEST(SiteTest, PaperExamples) {
  EXPECT_EQ(SiteOfHost("www.cs.berkeley.edu"), "cs.berkeley.edu");
  EXPECT_EQ(SiteOfHost("berkeley.edu"), "berkeley.edu");
  EXPECT_EQ(SiteOfHost("cs.berkeley.edu"), "berkeley.edu");
  EXPECT_EQ(SiteOfHost("a.b.c.d.com"), "b.c.d.com");
  EXPECT_EQ(SiteOfUrl("http://www.cs.berkeley.edu/index.html"), "cs.berkeley.edu");
}

TEST(SiteTest, Exceptions) {
  EXPECT_EQ(SiteOfHost("127.0.0.1"), "127.0.0.1");
  EXPECT_EQ(SiteOfHost("127.1"), "127.1");
  EXPECT_EQ(SiteOfHost("::1"), "::1");
  EXPECT_EQ(SiteOfHost("localhost"), "localhost");
  EXPECT_EQ(SiteOfHost(""), "");
  EXPECT_EQ(SiteOfHost("WWW.Example.COM."), "example.com");
  EXPECT_EQ(SiteOfUrl("http://127.0.0.1:8080/x"), "127.0.0.1");
  EXPECT_EQ(SiteOfUrl("http://[2001:db8::1]/x"), "2001:db8::1");
  EXPECT_EQ(SiteOfUrl("http://localhost/"), "localhost");
  EXPECT_EQ(SiteOfUrl("https://User@Shop.Example.co.uk:443/a?b"), "example.co.uk");
  EXPECT_EQ(SiteOfUrl("/relative/path"), "");
  EXPECT_EQ(SiteOfUrl("mailto:a@b.com"), "");
  EXPECT_EQ(SiteOfUrl(""), "");
}

// The public suffix list: one organisation's hosts share a domain, owners
// under one public suffix (com.au, co.uk, blogspot.com) do not.
TEST(SiteTest, RegistrableDomain) {
  EXPECT_EQ(RegistrableDomainOfHost("blacktown.yourguide.com.au"), "yourguide.com.au");
  EXPECT_EQ(RegistrableDomainOfHost("canberra.yourguide.com.au"), "yourguide.com.au");
  EXPECT_EQ(RegistrableDomainOfHost("www.news.com.au"), "news.com.au");
  EXPECT_EQ(RegistrableDomainOfHost("smh.com.au"), "smh.com.au");
  EXPECT_EQ(RegistrableDomainOfHost("News.BBC.co.UK."), "bbc.co.uk");
  EXPECT_EQ(RegistrableDomainOfHost("icscotland.icnetwork.co.uk"), "icnetwork.co.uk");
  EXPECT_EQ(RegistrableDomainOfHost("someone.blogspot.com"), "someone.blogspot.com");
  EXPECT_EQ(RegistrableDomainOfHost("www.cs.berkeley.edu"), "berkeley.edu");
  // No registrable domain: the host itself.
  EXPECT_EQ(RegistrableDomainOfHost("co.uk"), "co.uk");
  EXPECT_EQ(RegistrableDomainOfHost("localhost"), "localhost");
  EXPECT_EQ(RegistrableDomainOfHost("10.0.0.1"), "10.0.0.1");
  EXPECT_EQ(RegistrableDomainOfHost("::1"), "::1");
  EXPECT_EQ(RegistrableDomainOfHost(""), "");
}

}  // namespace
}  // namespace neardup
