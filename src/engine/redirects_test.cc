#include "engine/redirects.h"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <algorithm>
#include <string>
#include <vector>

namespace neardup {
namespace {

uint64_t KeyOf(const std::string& url) { return UrlKeyOfHash(XXH3_64bits(url.data(), url.size())); }

Document Redirect(const std::string& url, const std::string& location, int status = 301) {
  Document d;
  d.url = url;
  d.http_status = status;
  d.redirect_target = location;
  return d;
}

// A holder for page `id` at `url`: a redirect to `to` when given, else a
// page with `status`.
UrlHolder Holder(uint64_t id, const std::string& url, const std::string& to = "", uint16_t status = 200) {
  UrlHolder h;
  h.url_key = KeyOf(url);
  h.id = id;
  h.redirect_key = to.empty() ? kNoRedirect : KeyOf(to);
  h.ends = to.empty() && EndsRedirects(status);
  h.keeper = id;
  return h;
}

TEST(RedirectsTest, KeyIsTheResolvedLocationsUrlHash) {
  // A relative Location resolves against the redirect's own URL.
  EXPECT_EQ(RedirectKey(Redirect("https://a.example/old/page", "../new")), KeyOf("https://a.example/new"));
  EXPECT_EQ(RedirectKey(Redirect("http://a.example/", "https://a.example/")), KeyOf("https://a.example/"));
  // Not redirects: a 3xx without Location, a 200 with one, a 304.
  EXPECT_EQ(RedirectKey(Redirect("http://a.example/", "")), kNoRedirect);
  EXPECT_EQ(RedirectKey(Redirect("http://a.example/", "/x", 200)), kNoRedirect);
  EXPECT_FALSE(IsRedirect(Redirect("http://a.example/", "", 304)));
  EXPECT_TRUE(IsRedirect(Redirect("http://a.example/", "/x", 308)));
}

TEST(RedirectsTest, TargetsAreResolvedWithoutFragmentAndWithARootPath) {
  EXPECT_EQ(RedirectTargetUrl("http://archive.org/index.php", "https://archive.org"), "https://archive.org/");
  EXPECT_EQ(RedirectTargetUrl("http://a.example/x", "https://b.example?q=1#top"), "https://b.example/?q=1");
  EXPECT_EQ(RedirectTargetUrl("http://a.example/d/x", "y#part"), "http://a.example/d/y");
  EXPECT_EQ(RedirectTargetUrl("http://a.example/d/x", "/Y?a=%7e"), "http://a.example/Y?a=%7e");  // as sent
  EXPECT_EQ(RedirectTargetUrl("", "relative/only"), "relative/only");  // no absolute URL: as sent
  // The key is the target's.
  EXPECT_EQ(RedirectKey(Redirect("http://archive.org/index.php", "https://archive.org")), KeyOf("https://archive.org/"));
}

TEST(RedirectsTest, ChainsEndAtThePageTheyReach) {
  // u1 -> u2 -> u3 (a page); u4 -> u5 (a 404); u6 -> u7 -> u6 (a loop);
  // u8 -> u9 (not in the run).
  const std::vector<UrlHolder> holders = {
      Holder(1, "u1", "u2"), Holder(2, "u2", "u3"), Holder(3, "u3"), Holder(5, "u5", "", 404),
      Holder(6, "u6", "u7"), Holder(7, "u7", "u6"),
  };
  const RedirectChains chains(holders);
  bool cycle = true;
  const UrlHolder* end = chains.End(KeyOf("u2"), &cycle);
  ASSERT_NE(end, nullptr);
  EXPECT_EQ(end->id, 3u);
  EXPECT_FALSE(cycle);
  EXPECT_EQ(chains.End(KeyOf("u3"), &cycle)->id, 3u);
  EXPECT_EQ(chains.End(KeyOf("u5"), &cycle), nullptr);
  EXPECT_FALSE(cycle);
  EXPECT_EQ(chains.End(KeyOf("u9"), &cycle), nullptr);
  EXPECT_FALSE(cycle);
  EXPECT_EQ(chains.End(KeyOf("u7"), &cycle), nullptr);
  EXPECT_TRUE(cycle);
}

TEST(RedirectsTest, ChainsLongerThanTheBoundAreCycles) {
  std::vector<UrlHolder> holders;
  const int pages = kMaxRedirectHops + 1;
  for (int i = 0; i < pages; ++i) holders.push_back(Holder(i, "u" + std::to_string(i), "u" + std::to_string(i + 1)));
  holders.push_back(Holder(pages, "u" + std::to_string(pages)));
  const RedirectChains chains(holders);
  bool cycle = false;
  EXPECT_EQ(chains.End(KeyOf("u0"), &cycle), nullptr);
  EXPECT_TRUE(cycle);
  // Within the bound the same chain ends at its page.
  const UrlHolder* end = chains.End(KeyOf("u2"), &cycle);
  ASSERT_NE(end, nullptr);
  EXPECT_EQ(end->id, static_cast<uint64_t>(pages));
  EXPECT_FALSE(cycle);
}

TEST(RedirectsTest, AUrlFetchedTwiceEndsAtItsEarliestPageWithContent) {
  // Whatever order the holders come in.
  for (bool reversed : {false, true}) {
    std::vector<UrlHolder> holders = {Holder(4, "u", "", 500), Holder(7, "u"), Holder(9, "u")};
    if (reversed) std::reverse(holders.begin(), holders.end());
    const RedirectChains chains(holders);
    bool cycle = false;
    ASSERT_NE(chains.End(KeyOf("u"), &cycle), nullptr);
    EXPECT_EQ(chains.End(KeyOf("u"), &cycle)->id, 7u);
  }
}

TEST(RedirectsTest, HoldersAndKeysAreFoundByIdAndByUrl) {
  const std::vector<PageRedirect> redirects = {{2, 20}, {5, 50}, {9, 90}};
  for (uint64_t id = 0; id < 12; ++id) {
    const uint64_t expected = id == 2 ? 20 : id == 5 ? 50 : id == 9 ? 90 : kNoRedirect;
    EXPECT_EQ(RedirectKeyIn(redirects, id), expected) << id;
  }
  KeeperFeatures page;
  const std::string url = "https://a.example/";
  page.url_hash = XXH3_64bits(url.data(), url.size());
  page.http_status = 200;
  const UrlHolder h = HolderOf(7, page, kNoRedirect);
  EXPECT_EQ(h.url_key, KeyOf(url));
  EXPECT_TRUE(h.ends);
  page.http_status = 301;
  EXPECT_FALSE(HolderOf(7, page, KeyOf("https://b.example/")).ends);
  page.http_status = 0;  // not read over HTTP
  EXPECT_TRUE(HolderOf(7, page, kNoRedirect).ends);
  const RedirectChains chains({h});
  ASSERT_NE(chains.Holder(KeyOf(url)), nullptr);
  EXPECT_EQ(chains.Holder(KeyOf(url))->id, 7u);
  EXPECT_EQ(chains.Holder(KeyOf("https://c.example/")), nullptr);
}

TEST(RedirectsTest, ARevisitNamesTheCaptureOfItsDateElseItsUrl) {
  Document r;
  r.url = "https://a.example/p";
  r.http_status = 200;
  r.revisit_of = "https://a.example/p";
  EXPECT_TRUE(IsRevisit(r));
  EXPECT_EQ(RedirectKey(r), KeyOf("https://a.example/p"));  // no date: the URL
  r.revisit_of_date = "2024-02-01T00:00:00Z";
  // With a date: the capture of that URL whose keeper features hold it.
  Document capture;
  capture.url = "https://a.example/p";
  capture.http_status = 200;
  capture.body = "<p>text</p>";
  capture.fetch_date = "2024-02-01T00:00:00Z";
  const KeeperFeatures features = KeeperFeatures::Of(capture);
  std::vector<uint64_t> names;
  EachNameOf(features, true, [&](uint64_t key) { names.push_back(key); });
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0], KeyOf(capture.url));
  EXPECT_EQ(RedirectKey(r), names[1]);
  EXPECT_NE(RedirectKey(r), names[0]);
  capture.fetch_date = "2024-02-01T00:00:01Z";  // another capture
  names.clear();
  EachNameOf(KeeperFeatures::Of(capture), true, [&](uint64_t key) { names.push_back(key); });
  EXPECT_NE(RedirectKey(r), names[1]);
  names.clear();
  EachNameOf(features, false, [&](uint64_t key) { names.push_back(key); });  // no revisit in the run
  EXPECT_EQ(names.size(), 1u);
  // A date that does not read as a time names the URL.
  r.revisit_of_date = "yesterday";
  EXPECT_EQ(RedirectKey(r), KeyOf("https://a.example/p"));
  // A revisit of a 3xx response is that redirect.
  r.http_status = 301;
  r.redirect_target = "/q";
  EXPECT_FALSE(IsRevisit(r));
  EXPECT_EQ(RedirectKey(r), KeyOf("https://a.example/q"));
  // Which of the two a page is, by id.
  const std::vector<PageRedirect> redirects = {{2, 20, 0}, {5, 50, 1}};
  EXPECT_FALSE(RevisitIn(redirects, 2));
  EXPECT_TRUE(RevisitIn(redirects, 5));
  EXPECT_FALSE(RevisitIn(redirects, 4));
}

}  // namespace
}  // namespace neardup
