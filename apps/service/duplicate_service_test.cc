// The incremental service's contracts (service.h): Zhu et al. §5.1's three
// cases, tier 1 and tier 2, redirect chains and loops, removal of a winner,
// verification and repair, dry runs, durability across reopening, and the
// partition against the batch job's on the same pages.
#include "service/service.h"
#include "service/store.h"
#include "service/wire.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <thread>

#include "neardup/deduper.h"
#include "neardup/executor.h"
#include "neardup/source.h"
#include "test_util.h"

namespace neardup {
namespace {

// An article of `n` words drawn from a fixed vocabulary (seeded).
std::string Article(uint32_t seed, int n = 400) {
  static const char* const kWords[] = {
      "river", "stone", "market", "garden", "engine", "winter", "silver", "harbor", "candle", "forest",
      "ladder", "mirror", "planet", "rocket", "saddle", "tunnel", "violin", "wallet", "yellow", "zebra",
      "anchor", "bridge", "castle", "dragon", "eagle",  "falcon", "glacier", "hammer", "island", "jungle",
      "kettle", "lantern", "meadow", "needle", "orange", "pepper", "quartz", "ribbon", "shadow", "timber"};
  std::mt19937 rng(seed);
  std::string s;
  for (int i = 0; i < n; ++i) {
    s += kWords[rng() % 40];
    s += (i % 12 == 11) ? ". " : " ";
  }
  return s;
}

// The article with words `at`, `at`+50, ... replaced (a small edit).
std::string Edited(const std::string& text, int edits) {
  std::string out = text;
  size_t pos = 0;
  for (int e = 0; e < edits; ++e) {
    for (int skip = 0; skip < 60 && pos != std::string::npos; ++skip) pos = out.find(' ', pos + 1);
    if (pos == std::string::npos) break;
    out.insert(pos + 1, "inserted" + std::to_string(e) + " ");
  }
  return out;
}

PageInput Page(const std::string& url, const std::string& text, int status = 200) {
  PageInput p;
  p.url = url;
  p.body = "<html><body><p>" + text + "</p></body></html>";
  p.status = status;
  p.fetched = "2026-01-01T00:00:00Z";
  return p;
}

PageInput Redirect(const std::string& url, const std::string& target) {
  PageInput p;
  p.url = url;
  p.status = 301;
  p.redirect = target;
  return p;
}

// Writes DIR/crawl.warc.gz and DIR/truth.tsv with `neardup synth` from the
// sample crawl.
void SynthCrawl(const std::string& dir, int sites, int seed) {
  std::string log;
  ASSERT_EQ(testing::RunCommand(testing::Q(testing::CliPath()) + " synth " +
                                    testing::Q(testing::RepoTestDataDir() + "/sample/sample-crawl.warc.gz") +
                                    " --out " + testing::Q(dir + "/crawl.warc.gz") + " --truth " +
                                    testing::Q(dir + "/truth.tsv") + " --sites " + std::to_string(sites) +
                                    " --seed " + std::to_string(seed),
                                &log),
            0)
      << log;
}

class ServiceTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeTempDir("service") + "/store"; Open(); }
  void Open(const std::string& method = "robust") {
    service_.reset();
    ServiceOptions o;
    o.method = method;
    o.sync = false;
    auto s = DuplicateService::Open(dir_, o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    service_ = std::move(s).value();
  }
  PageAnswer One(const PageInput& p, bool dry_run = false) {
    auto r = service_->Apply({p}, dry_run);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->at(0) : PageAnswer{};
  }
  PageAnswer Get(const std::string& url) {
    auto r = service_->Lookup(url);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : PageAnswer{};
  }
  std::string dir_;
  std::unique_ptr<DuplicateService> service_;
};

TEST_F(ServiceTest, NewPageJoinsTheGroupOfItsDuplicate) {  // case 2
  const std::string a = Article(1);
  PageAnswer first = One(Page("https://a.example/long/path/page.html", a));
  EXPECT_EQ(first.role, "keep");
  EXPECT_EQ(first.tier, 2);
  PageAnswer copy = One(Page("https://b.example/x.html", Edited(a, 2)));
  // The shorter URL wins: the copy becomes the winner, the first a duplicate.
  EXPECT_EQ(copy.group, first.group);
  EXPECT_EQ(copy.role, "keep");
  PageAnswer again = Get("https://a.example/long/path/page.html");
  EXPECT_EQ(again.role, "duplicate");
  EXPECT_EQ(again.winner, "https://b.example/x.html");
  EXPECT_GT(again.similarity, 0.5);
  EXPECT_LT(again.similarity, 1.0);
  PageAnswer other = One(Page("https://c.example/y.html", Article(2)));
  EXPECT_NE(other.group, first.group);
  EXPECT_EQ(other.role, "keep");
  auto g = service_->Group(first.group);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->winner, "https://b.example/x.html");
  EXPECT_EQ(g->members.size(), 2u);
}

// As in dedup, a page without content of its own (an empty body, a 3xx
// without a Location) is matched by nothing: empty pages of different URLs
// are not each other's copies. Pages with content still match by bytes.
TEST_F(ServiceTest, PagesWithoutContentOfTheirOwnJoinNoGroup) {
  PageInput empty = Page("https://a.example/empty", "");
  empty.body.clear();
  PageInput empty_again = empty;
  empty_again.url = "https://b.example/empty";
  PageAnswer a = One(empty);
  PageAnswer b = One(empty_again);
  PageInput moved = Page("https://c.example/moved", "Moved Permanently", 302);  // no Location
  PageInput moved_again = moved;
  moved_again.url = "https://d.example/moved";
  PageAnswer c = One(moved);
  PageAnswer d = One(moved_again);
  for (const PageAnswer* x : {&a, &b, &c, &d}) EXPECT_EQ(x->role, "keep") << x->url;
  EXPECT_NE(a.group, b.group);
  EXPECT_NE(c.group, d.group);
  EXPECT_NE(a.group, c.group);
  const std::string text = Article(3);
  PageAnswer e = One(Page("https://e.example/p", text));
  PageAnswer f = One(Page("https://f.example/p", text));
  EXPECT_EQ(e.group, f.group);
}

// A page matching the winners of two groups whose winners do not match
// each other joins one of them; the other group is left as it was (a merge
// would move its members in, fail them against the new winner and place
// each again).
TEST_F(ServiceTest, APageBridgingTwoGroupsLeavesAGroupWhoseWinnerDiffers) {
  service_.reset();
  std::filesystem::remove_all(dir_);
  Open("simhash");
  auto method = NewMethod("simhash");
  ASSERT_TRUE(method.ok());
  auto sign = [&](const PageInput& p) {
    Document d;
    d.url = p.url;
    d.body = p.body;
    d.kind = ContentKind::kHtml;
    return (*method)->Sign(d);
  };
  // Find an article and a share of its words to replace where the two ends
  // differ and the page between them matches both (the simhash rule: at
  // most t differing bits).
  auto replaced = [](const std::string& text, size_t words) {
    std::string out;
    size_t i = 0, pos = 0;
    while (pos < text.size()) {
      size_t end = text.find(' ', pos);
      if (end == std::string::npos) end = text.size();
      out += i < words ? "other" + std::to_string(i) : text.substr(pos, end - pos);
      out += ' ';
      pos = end + 1;
      ++i;
    }
    return out;
  };
  for (uint32_t seed = 1; seed < 100; ++seed) {
    const std::string base = Article(seed, 600);
    for (size_t far = 6; far <= 120; far += 6) {
      const PageInput a = Page("https://a.example/a.html", base);
      const PageInput b = Page("https://b.example/b.html", replaced(base, far));
      const PageInput mid = Page("https://m.example/long/path/m.html", replaced(base, far / 2));
      const Signature sa = sign(a), sb = sign(b), sm = sign(mid);
      if ((*method)->Compare(sa, sb).duplicate || !(*method)->Compare(sa, sm).duplicate ||
          !(*method)->Compare(sb, sm).duplicate) {
        continue;
      }
      const PageAnswer first = One(a), second = One(b);
      ASSERT_NE(first.group, second.group);
      const PageAnswer bridge = One(mid);
      EXPECT_TRUE(bridge.group == first.group || bridge.group == second.group);
      EXPECT_EQ(bridge.role, "duplicate");
      // Both ends stay where they were, each its group's winner, and no
      // verification failed.
      const PageAnswer a_after = Get(a.url), b_after = Get(b.url);
      EXPECT_EQ(a_after.group, first.group);
      EXPECT_EQ(b_after.group, second.group);
      EXPECT_EQ(a_after.role, "keep");
      EXPECT_EQ(b_after.role, "keep");
      auto stats = service_->Stats();
      ASSERT_TRUE(stats.ok());
      EXPECT_EQ(stats->verifications_failed, 0u);
      EXPECT_EQ(stats->groups, 2u);
      return;
    }
  }
  FAIL() << "no article with a page between two differing copies";
}

TEST_F(ServiceTest, RecrawlWithLittleChangeIsDecidedByTierOne) {
  const std::string a = Article(3);
  One(Page("https://a.example/p", a));
  PageAnswer dup = One(Page("https://b.example/longer/p", a));
  EXPECT_EQ(dup.role, "duplicate");
  PageAnswer same = One(Page("https://b.example/longer/p", a));
  EXPECT_EQ(same.tier, 1);
  EXPECT_FALSE(same.moved);
  PageAnswer edited = One(Page("https://b.example/longer/p", Edited(a, 1)));
  EXPECT_EQ(edited.tier, 1);
  EXPECT_EQ(edited.role, "duplicate");
  EXPECT_EQ(edited.group, dup.group);
  auto stats = service_->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->recrawled, 2u);
  EXPECT_EQ(stats->tier1_decided, 2u);
  EXPECT_DOUBLE_EQ(stats->tier1_share(), 1.0);
}

TEST_F(ServiceTest, UpdatedPageLeavesItsGroupWithItsRedirects) {  // case 1
  const std::string a = Article(4), b = Article(5);
  PageAnswer w = One(Page("https://a.example/p", a));
  PageAnswer q = One(Page("https://b.example/longer/q", a));
  PageAnswer r = One(Redirect("https://c.example/old-q", "https://b.example/longer/q"));
  EXPECT_EQ(q.group, w.group);
  EXPECT_EQ(r.role, "redirect");
  EXPECT_EQ(r.group, w.group);
  PageAnswer other = One(Page("https://d.example/o", b));
  // q's content changes to a copy of `other`: it moves there, r follows.
  PageAnswer moved = One(Page("https://b.example/longer/q", b));
  EXPECT_TRUE(moved.moved);
  EXPECT_EQ(moved.tier, 2);
  EXPECT_EQ(moved.group, other.group);
  EXPECT_EQ(moved.role, "duplicate");
  EXPECT_EQ(Get("https://c.example/old-q").group, other.group);
  EXPECT_EQ(Get("https://a.example/p").role, "keep");
  // Content unlike anything: a group of its own, with r still following.
  PageAnswer alone = One(Page("https://b.example/longer/q", Article(6)));
  EXPECT_TRUE(alone.moved);
  EXPECT_EQ(alone.role, "keep");
  EXPECT_NE(alone.group, other.group);
  EXPECT_EQ(Get("https://c.example/old-q").group, alone.group);
}

// A revisit (a WARC revisit record) of another URL is a capture with the
// stored content of the page it names, as dedup reads it: it joins that
// page's group, keeps the content when that page changes, and is matched by
// later copies of it. A revisit of its own URL changes nothing; one of a URL
// the store does not hold is an error and stores nothing.
TEST_F(ServiceTest, RevisitOfAnotherUrlTakesThatPagesContent) {
  const std::string a = Article(7), b = Article(8);
  auto revisit = [](const std::string& url, const std::string& of) {
    PageInput p;
    p.url = url;
    p.status = 304;  // a server-not-modified revisit
    p.revisit_of = of;
    return p;
  };
  PageAnswer original = One(Page("https://a.example/p", a));
  PageAnswer agnostic = One(revisit("https://mirror.example/copy/of/p", "https://a.example/p"));
  EXPECT_EQ(agnostic.role, "duplicate");
  EXPECT_EQ(agnostic.group, original.group);
  EXPECT_EQ(agnostic.winner, "https://a.example/p");
  EXPECT_DOUBLE_EQ(agnostic.similarity, 1.0);
  auto g = service_->Group(original.group);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->members.size(), 2u);
  // Its own URL: unchanged, answered as the page stands.
  PageAnswer same = One(revisit("https://a.example/p", "https://a.example/p"));
  EXPECT_EQ(same.role, "keep");
  EXPECT_EQ(same.group, original.group);
  // A URL the store does not hold: an error, nothing stored.
  PageAnswer unknown = One(revisit("https://c.example/q", "https://none.example/"));
  EXPECT_EQ(unknown.role, "error");
  EXPECT_NE(unknown.error.find("https://none.example/"), std::string::npos);
  EXPECT_FALSE(service_->Lookup("https://c.example/q").ok());
  // The named page changes: the revisit keeps the content it had, and a
  // later copy of that content still finds it.
  PageAnswer changed = One(Page("https://a.example/p", b));
  EXPECT_TRUE(changed.moved);
  EXPECT_NE(Get("https://mirror.example/copy/of/p").group, changed.group);
  EXPECT_EQ(Get("https://mirror.example/copy/of/p").role, "keep");
  PageAnswer copy = One(Page("https://d.example/a-much-longer/path/than/the-revisits", a));
  EXPECT_EQ(copy.role, "duplicate");
  EXPECT_EQ(copy.winner, "https://mirror.example/copy/of/p");
  // A revisit of a redirect is a redirect to the same target.
  PageAnswer r = One(Redirect("https://e.example/old", "https://a.example/p"));
  PageAnswer rr = One(revisit("https://f.example/old", "https://e.example/old"));
  EXPECT_EQ(rr.role, "redirect");
  EXPECT_EQ(rr.group, r.group);
  EXPECT_EQ(rr.group, changed.group);
}

TEST_F(ServiceTest, RedirectChainsEndInTheFinalTargetsGroup) {  // case 3
  // The chain arrives from its far end first: r2 -> r1 -> t.
  PageAnswer r2 = One(Redirect("https://x.example/r2", "/r1"));  // relative Location
  EXPECT_EQ(r2.role, "redirect");
  EXPECT_EQ(r2.tier, 0);
  One(Redirect("https://x.example/r1", "https://x.example/t"));
  PageAnswer t = One(Page("https://x.example/t", Article(7)));
  EXPECT_EQ(Get("https://x.example/r1").group, t.group);
  EXPECT_EQ(Get("https://x.example/r2").group, t.group);
  EXPECT_EQ(Get("https://x.example/r2").winner, "https://x.example/t");
  // A loop is detected and reported.
  One(Redirect("https://y.example/a", "https://y.example/b"));
  PageAnswer loop = One(Redirect("https://y.example/b", "https://y.example/a"));
  EXPECT_TRUE(loop.redirect_cycle);
  auto stats = service_->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_GE(stats->redirect_cycles, 1u);
  EXPECT_EQ(stats->redirect_pages, 4u);
  // The export writes a row per page, redirects too, as dedup does: those
  // whose chain ends at t in t's cluster, the loop's alone.
  const std::string out = dir_ + "-export";
  ASSERT_TRUE(service_->Export(out).ok());
  const auto rows = testing::ReadTsvRows(out + "/clusters.tsv");
  ASSERT_EQ(rows.size(), 6u);  // the header and five pages
  std::map<std::string, std::vector<std::string>> by_url;
  for (size_t r = 1; r < rows.size(); ++r) by_url[rows[r][0]] = rows[r];
  ASSERT_EQ(by_url.size(), 5u);
  const auto& kept = by_url["https://x.example/t"];
  EXPECT_EQ(kept[2], "keep");
  EXPECT_EQ(kept[3], "redirect");
  EXPECT_EQ(kept[7], "redirect-target");
  for (const char* url : {"https://x.example/r1", "https://x.example/r2"}) {
    EXPECT_EQ(by_url[url][1], kept[1]) << url;
    EXPECT_EQ(by_url[url][2], "duplicate") << url;
    EXPECT_EQ(by_url[url][3], "redirect") << url;
  }
  for (const char* url : {"https://y.example/a", "https://y.example/b"}) {
    EXPECT_EQ(by_url[url][3], "single") << url;
    EXPECT_NE(by_url[url][1], by_url["https://y.example/a" == std::string(url) ? "https://y.example/b"
                                                                                 : "https://y.example/a"][1]);
  }
}

TEST_F(ServiceTest, RemovedWinnerIsReplacedByTheBestRemainingMember) {
  const std::string a = Article(8);
  One(Page("https://a.example/p", a));
  One(Page("https://bb.example/pp", a));
  One(Page("https://ccc.example/ppp", a));
  PageAnswer w = Get("https://a.example/p");
  ASSERT_EQ(w.role, "keep");
  auto removed = service_->Remove("https://a.example/p");
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(removed->role, "removed");
  EXPECT_EQ(removed->winner, "https://a.example/p");
  PageAnswer next = Get("https://bb.example/pp");
  EXPECT_EQ(next.role, "keep");
  EXPECT_EQ(Get("https://ccc.example/ppp").winner, "https://bb.example/pp");
  // A 404 fetch removes too, and says which winner the page duplicated.
  PageAnswer gone = One(Page("https://ccc.example/ppp", "", 404));
  EXPECT_EQ(gone.role, "removed");
  EXPECT_EQ(gone.winner, "https://bb.example/pp");
  EXPECT_EQ(Get("https://ccc.example/ppp").role, "removed");
  EXPECT_FALSE(service_->Remove("https://nowhere.example/").ok());
  // A failed fetch (5xx, 403, 429) changes nothing: the page keeps its place.
  PageAnswer failed = One(Page("https://bb.example/pp", "Service Unavailable", 503));
  EXPECT_EQ(failed.role, "keep");
  EXPECT_EQ(failed.tier, 0);
  EXPECT_EQ(Get("https://bb.example/pp").role, "keep");
  EXPECT_EQ(One(Page("https://new.example/", "Forbidden", 403)).role, "error");
  auto stats = service_->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->content_pages, 1u);
  EXPECT_EQ(stats->removed_pages, 2u);
}

TEST_F(ServiceTest, CheckAnswersAsIfAppliedAndChangesNothing) {
  const std::string a = Article(9);
  PageAnswer w = One(Page("https://a.example/p", a));
  auto checked = service_->Apply({Page("https://b.example/long/q", a), Page("https://c.example/longer/r", a)}, true);
  ASSERT_TRUE(checked.ok());
  EXPECT_EQ((*checked)[0].role, "duplicate");
  EXPECT_EQ((*checked)[0].group, w.group);
  EXPECT_EQ((*checked)[1].group, w.group);  // sees the line before it
  EXPECT_FALSE(service_->Lookup("https://b.example/long/q").ok());
  auto stats = service_->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->content_pages, 1u);
}

TEST_F(ServiceTest, ErrorLinesAreAnsweredAndTheRestApplied) {
  std::vector<PageInput> pages(3);
  ParsePageLine(R"({"url": "https://a.example/", "html": "<p>one two three</p>"})", 1, 1 << 20, &pages[0]);
  ParsePageLine(R"({"url": "https://b.example/", "html": 5})", 2, 1 << 20, &pages[1]);
  ParsePageLine(R"({"url": "https://c.example/", "html": "<p)", 3, 1 << 20, &pages[2]);
  EXPECT_TRUE(pages[0].error.empty());
  EXPECT_NE(pages[1].error.find("line 2"), std::string::npos);
  EXPECT_NE(pages[2].error.find("not valid JSON"), std::string::npos);
  auto r = service_->Apply(pages, false);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].role, "keep");
  EXPECT_EQ((*r)[1].role, "error");
  EXPECT_EQ((*r)[2].role, "error");
  PageInput p;
  ParsePageLine(R"({"url": "https://a.example/", "status": 302})", 7, 1 << 20, &p);
  EXPECT_NE(p.error.find("redirect"), std::string::npos);
  ParsePageLine(R"({"url": "https://a.example/", "html_b64": "PHA+aGk8L3A+"})", 8, 1 << 20, &p);
  EXPECT_EQ(p.body, "<p>hi</p>");
  ParsePageLine(std::string(100, ' '), 9, 10, &p);
  EXPECT_NE(p.error.find("longer than"), std::string::npos);
}

// Each field of a page line is checked; a good line keeps every field,
// escapes included.
// The client's JSON strings (wire.h): any valid UTF-8 text, control
// characters, quotes and backslashes included, in runs of every length
// around the eight bytes tested at a time, reads back as it was.
TEST(WireJson, StringsReadBackAsTheyWere) {
  std::mt19937 rng(5);
  const std::vector<std::string> pieces = {"a", "\"", "\\", "\n", "\r", "\t", "\x01", "\x1f", " ", "<p class=\"x\">",
                                           "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\x7f", "0123456789"};
  for (int trial = 0; trial < 2000; ++trial) {
    std::string text;
    const int n = static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) text += pieces[rng() % pieces.size()];
    std::string json;
    AppendJsonString(text, &json);
    const nlohmann::json parsed = nlohmann::json::parse(json, nullptr, false);
    ASSERT_TRUE(parsed.is_string()) << json;
    ASSERT_EQ(parsed.get<std::string>(), text) << json;
    // Only what JSON requires is escaped: the other bytes are as they were.
    size_t escapes = 0;
    for (char c : text) escapes += static_cast<unsigned char>(c) < 0x20 || c == '"' || c == '\\';
    EXPECT_LE(json.size(), text.size() + 2 + 5 * escapes);
  }
}

// Base64 of the wire (html_b64, text_b64): every byte string of every
// length reads back from its encoding, in both alphabets, and the decoder
// agrees with a character-at-a-time reference on any input, padding,
// misplaced '=' and characters outside the alphabet included.
TEST(WireBase64, DecodesLikeTheReferenceOnAnyInput) {
  auto reference = [](std::string_view in, std::string* out) {
    out->clear();
    uint32_t acc = 0;
    int bits = 0;
    for (unsigned char c : in) {
      if (c == '=') break;
      int v = -1;
      if (c >= 'A' && c <= 'Z') v = c - 'A';
      if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
      if (c >= '0' && c <= '9') v = c - '0' + 52;
      if (c == '+' || c == '-') v = 62;
      if (c == '/' || c == '_') v = 63;
      if (v < 0) return false;
      acc = (acc << 6) | static_cast<uint32_t>(v);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out->push_back(static_cast<char>((acc >> bits) & 0xff));
      }
    }
    return true;
  };
  std::mt19937 rng(9);
  std::string decoded, expected;
  for (size_t len = 0; len < 70; ++len) {
    std::string bytes(len, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    std::string encoded = Base64Encode(bytes);
    ASSERT_TRUE(Base64Decode(encoded, &decoded));
    EXPECT_EQ(decoded, bytes) << len;
    for (char& c : encoded) c = c == '+' ? '-' : c == '/' ? '_' : c;  // the URL-safe alphabet
    ASSERT_TRUE(Base64Decode(encoded, &decoded));
    EXPECT_EQ(decoded, bytes) << len;
  }
  const std::string alphabet = "AZaz09+/-_=%\n Q";
  for (int trial = 0; trial < 20000; ++trial) {
    std::string in(rng() % 20, 'A');
    for (char& c : in) c = alphabet[rng() % alphabet.size()];
    const bool ok = Base64Decode(in, &decoded);
    ASSERT_EQ(ok, reference(in, &expected)) << in;
    if (ok) { ASSERT_EQ(decoded, expected) << in; }
  }
}

TEST(PageLine, FieldsAreReadAndCheckedOneByOne) {
  PageInput p;
  ParsePageLine(R"({"url": "https://a.example/x?q=\"1\"", "text": "caf\u00e9\nline", "status": 200,)"
                R"( "fetched": "2026-01-02T03:04:05Z", "extra": [1, {"n": null}]})",
                1, 1 << 20, &p);
  ASSERT_TRUE(p.error.empty()) << p.error;
  EXPECT_EQ(p.url, "https://a.example/x?q=\"1\"");
  EXPECT_EQ(p.body, "caf\xc3\xa9\nline");
  EXPECT_EQ(p.kind, ContentKind::kText);
  EXPECT_EQ(p.status, 200);
  EXPECT_EQ(p.fetched, "2026-01-02T03:04:05Z");
  ParsePageLine(R"({"url": "https://a.example/", "status": 301, "redirect": "/b", "html": null})", 2, 1 << 20, &p);
  ASSERT_TRUE(p.error.empty()) << p.error;
  EXPECT_EQ(p.redirect, "/b");
  ParsePageLine(R"({"url": "https://b.example/", "status": 304, "revisit_of": "https://a.example/"})", 3, 1 << 20, &p);
  ASSERT_TRUE(p.error.empty()) << p.error;
  EXPECT_EQ(p.revisit_of, "https://a.example/");
  EXPECT_TRUE(p.body.empty());
  const std::vector<std::pair<std::string, std::string>> bad = {
      {R"([1, 2])", "not a JSON object"},
      {R"({"url": 7, "html": "x"})", "\"url\" must be a string"},
      {R"({"html": "x"})", "\"url\" is missing"},
      {R"({"url": "u", "html": "x", "status": 200.0})", "\"status\""},
      {R"({"url": "u", "html": "x", "status": "200"})", "\"status\""},
      {R"({"url": "u", "html": "x", "status": 99})", "\"status\""},
      {R"({"url": "u", "html": "x", "status": 18446744073709551615})", "\"status\""},
      {R"({"url": "u", "html": "x", "text": "y"})", "not several"},
      {R"({"url": "u", "html_b64": "%%%"})", "not valid base64"},
      {R"({"url": "u"})", "missing"},
      {R"({"url": "u", "fetched": 3, "html": "x"})", "\"fetched\" must be a string"},
      {R"({"url": "u", "revisit_of": "v", "html": "x"})", "\"revisit_of\""},
      {R"({"url": "u", "revisit_of": "v", "status": 410})", "\"revisit_of\""},
      {R"({"url": "u", "revisit_of": 1})", "\"revisit_of\" must be a string"},
      {"{\"url\": \"u\", \"html\": \"\xff\"}", "not valid JSON"},
      {R"({"url": "u", "html": "x"} trailing)", "not valid JSON"},
      {"", "not valid JSON"},
  };
  for (size_t i = 0; i < bad.size(); ++i) {
    ParsePageLine(bad[i].first, 40 + i, 1 << 20, &p);
    EXPECT_NE(p.error.find("line " + std::to_string(40 + i) + ": "), std::string::npos) << bad[i].first;
    EXPECT_NE(p.error.find(bad[i].second), std::string::npos) << bad[i].first << " -> " << p.error;
  }
}

TEST_F(ServiceTest, StateSurvivesReopeningAndTheMethodIsPinned) {
  const std::string a = Article(10);
  PageAnswer w = One(Page("https://a.example/p", a));
  One(Page("https://b.example/long/q", a));
  Open("");  // the store's own method
  EXPECT_EQ(Get("https://b.example/long/q").group, w.group);
  EXPECT_EQ(Get("https://b.example/long/q").winner, "https://a.example/p");
  service_.reset();
  ServiceOptions o;
  o.method = "broder";
  auto other = DuplicateService::Open(dir_, o);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("was made with method"), std::string::npos);
  o.method = "paragraphs";
  auto batch_only = DuplicateService::Open(testing::MakeTempDir("service-p") + "/s", o);
  EXPECT_FALSE(batch_only.ok());
}

TEST_F(ServiceTest, FailedVerificationsRepairTheGroup) {
  // Three members verified against the winner; the winner's content then
  // drifts through tier 1 steps (each close to the last) until members no
  // longer verify against it.
  const std::string a = Article(11);
  One(Page("https://a.example/w", a));
  for (int i = 0; i < 4; ++i) One(Page("https://m" + std::to_string(i) + ".example/member/page", a));
  // Step s: the first 2 s words of another article, then the rest of a;
  // at 90 steps the members' main text agrees with the winner's on about a
  // third of its shingles (below RobustMethodOptions::min_main_similarity).
  const std::string other = Article(12);
  auto prefix_words = [](const std::string& text, int words) {
    size_t pos = 0;
    for (int w = 0; w < words && pos != std::string::npos; ++w) pos = text.find(' ', pos + 1);
    return pos == std::string::npos ? text.size() : pos;
  };
  for (int step = 1; step <= 90; ++step) {
    const std::string drift = other.substr(0, prefix_words(other, 2 * step)) + a.substr(prefix_words(a, 2 * step));
    One(Page("https://a.example/w", drift));
  }
  // The first lookup fails its verification and is not called a duplicate.
  PageAnswer first = Get("https://m0.example/member/page");
  EXPECT_TRUE(first.verification_failed);
  EXPECT_EQ(first.role, "keep");
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 4; ++i) Get("https://m" + std::to_string(i) + ".example/member/page");
  }
  auto stats = service_->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_GT(stats->verifications_failed, 0u);
  EXPECT_GE(stats->repairs, 1u);
  // After the repair every member is verified against its winner.
  for (int i = 0; i < 4; ++i) {
    PageAnswer m = Get("https://m" + std::to_string(i) + ".example/member/page");
    if (m.role == "duplicate") {
      EXPECT_NE(m.winner, "https://a.example/w");
    }
  }
}

// The same pages through the service and through the batch Deduper: the
// near-duplicate pairs of the two partitions agree (Zhu et al. Table 1
// measures the relative error of the two-tier scheme; here on the sample
// crawl and a synth crawl made from it).
// The signature cache is an optimization only: with none, with one of four
// slots (pages share slots and are read back from the store), and with the
// default, reopened half way (the cache refilled from the store) and each
// batch checked (POST /v1/check) before it is applied, every answer is the
// same, through recrawls that change pages.
TEST(ServiceSignatureCache, ChangesNoAnswer) {
  const std::string dir = testing::MakeTempDir("service-cache");
  ASSERT_NO_FATAL_FAILURE(SynthCrawl(dir, 10, 3));
  auto source = OpenDocumentSource({dir + "/crawl.warc.gz"});
  ASSERT_TRUE(source.ok());
  std::vector<PageInput> pages;
  Document d;
  while ((*source)->Next(&d)) {
    PageInput p;
    p.url = d.url;
    p.body = d.body;
    p.kind = d.kind;
    p.status = d.http_status ? d.http_status : 200;
    p.redirect = d.redirect_target;
    p.fetched = d.fetch_date;
    pages.push_back(std::move(p));
  }
  ASSERT_GT(pages.size(), 40u);
  // A recrawl: every third page changed a little, every fifth a lot.
  const size_t first = pages.size();
  for (size_t i = 0; i < first; ++i) {
    PageInput p = pages[i];
    if (i % 5 == 0) p.body = pages[(i * 7 + 1) % first].body;
    else if (i % 3 == 0) p.body += "<p>a correction was appended to this page</p>";
    pages.push_back(std::move(p));
  }
  auto run = [&](const std::string& name, uint64_t cache_pages, bool reopen) {
    std::vector<std::string> answers;
    ServiceOptions so;
    so.sync = false;
    so.signature_cache_pages = cache_pages;
    const std::string store = dir + "/" + name;
    auto service = DuplicateService::Open(store, so);
    EXPECT_TRUE(service.ok()) << service.status().ToString();
    if (!service.ok()) return answers;
    for (size_t at = 0; at < pages.size(); at += 25) {
      if (reopen && at == first / 25 * 25) {
        service->reset();
        service = DuplicateService::Open(store, so);
        EXPECT_TRUE(service.ok()) << service.status().ToString();
        if (!service.ok()) return answers;
      }
      std::vector<PageInput> batch(pages.begin() + at, pages.begin() + std::min(pages.size(), at + 25));
      if (reopen) {
        // A dry run first: what it changed in memory is undone.
        auto dry = (*service)->Apply(batch, /*dry_run=*/true);
        EXPECT_TRUE(dry.ok()) << dry.status().ToString();
      }
      auto r = (*service)->Apply(std::move(batch), false);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      if (!r.ok()) return answers;
      for (const PageAnswer& a : *r) {
        answers.push_back(a.url + " " + a.role + " " + std::to_string(a.group) + " " + a.winner + " " +
                          std::to_string(a.similarity) + " " + std::to_string(a.tier) + " " +
                          std::to_string(a.moved));
      }
    }
    return answers;
  };
  const auto none = run("none", 0, false);
  ASSERT_EQ(none.size(), pages.size());
  EXPECT_EQ(run("tiny", 4, false), none);
  EXPECT_EQ(run("default", ServiceOptions().signature_cache_pages, true), none);
}

// dedup's max_bucket_pages: a candidate key filed under by more pages than
// the limit gives no candidates any more, as dedup pairs no pages of such a
// bucket; byte-identical bodies still find their group.
TEST(ServiceLargeBuckets, AKeyPastTheLimitGivesNoCandidates) {
  ServiceOptions so;
  so.sync = false;
  so.method = "simhash";
  so.max_bucket_pages = 3;
  auto service = DuplicateService::Open(testing::MakeTempDir("service-large") + "/store", so);
  ASSERT_TRUE(service.ok()) << service.status().ToString();
  const std::string text = Article(11);
  // The same words under different markup: one signature, other bytes.
  auto variant = [&](int v) {
    const std::string n = std::to_string(v);
    PageInput p = Page("https://v" + n + ".example/", text);
    p.body = "<html><body><p class=\"v" + n + "\">";
    p.body += text;
    p.body += "</p></body></html>";
    return p;
  };
  std::vector<uint64_t> groups;
  for (int v = 0; v < 5; ++v) {
    auto r = (*service)->Apply({variant(v)}, false);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    groups.push_back(r->at(0).group);
  }
  // Pages 1 and 2 find the first through lists of at most 3 ids; the
  // fourth page filed makes every list of the signature a large bucket
  // (4 pages > 3), so it and the fifth are alone, as dedup pairs none of a
  // bucket that large. The decisions made before stand.
  EXPECT_EQ(groups[1], groups[0]);
  EXPECT_EQ(groups[2], groups[0]);
  EXPECT_NE(groups[3], groups[0]);
  EXPECT_NE(groups[4], groups[0]);
  EXPECT_NE(groups[4], groups[3]);
  for (int v : {3, 4}) {
    auto alone = (*service)->Lookup(variant(v).url);
    ASSERT_TRUE(alone.ok());
    EXPECT_EQ(alone->role, "keep");
  }
  PageInput copy = variant(0);
  copy.url = "https://copy.example/";
  auto r = (*service)->Apply({copy}, false);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->at(0).group, groups[0]);
  EXPECT_EQ(r->at(0).similarity, 1.0);
  // Reopened, the postings are rebuilt from the page records and the large
  // buckets from their marks: a sixth variant is still alone, and a copy of
  // the first's bytes still finds its group.
  const std::string dir = testing::MakeTempDir("service-large") + "/store";
  service->reset();
  service = DuplicateService::Open(dir, so);
  ASSERT_TRUE(service.ok());
  for (int v = 0; v < 6; ++v) ASSERT_TRUE((*service)->Apply({variant(v)}, false).ok());
  service->reset();
  service = DuplicateService::Open(dir, so);
  ASSERT_TRUE(service.ok()) << service.status().ToString();
  r = (*service)->Apply({variant(6)}, false);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->at(0).role, "keep");
  EXPECT_EQ((*service)->Lookup(variant(6).url)->group, r->at(0).group);
  r = (*service)->Apply({copy}, false);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->at(0).group, (*service)->Lookup(variant(0).url)->group);
}

// A dry run (POST /v1/check) that would make a bucket large leaves the
// postings as they were: a page applied after it still finds its group
// through them.
TEST(ServiceLargeBuckets, ADryRunMarksNoBucketLarge) {
  ServiceOptions so;
  so.sync = false;
  so.method = "simhash";
  so.max_bucket_pages = 3;
  auto service = DuplicateService::Open(testing::MakeTempDir("service-large-dry") + "/store", so);
  ASSERT_TRUE(service.ok()) << service.status().ToString();
  const std::string text = Article(12);
  auto variant = [&](int v) {
    PageInput p = Page("https://w" + std::to_string(v) + ".example/", text);
    p.body.insert(p.body.find("<p>") + 2, " id=\"w" + std::to_string(v) + "\"");
    return p;
  };
  std::vector<uint64_t> groups;
  for (int v = 0; v < 3; ++v) {
    auto r = (*service)->Apply({variant(v)}, false);
    ASSERT_TRUE(r.ok());
    groups.push_back(r->at(0).group);
  }
  ASSERT_EQ(groups[1], groups[0]);
  auto dry = (*service)->Apply({variant(3)}, /*dry_run=*/true);
  ASSERT_TRUE(dry.ok());
  EXPECT_EQ(dry->at(0).role, "keep");  // the fourth makes the buckets large
  ASSERT_TRUE((*service)->Remove(variant(2).url).ok());
  auto r = (*service)->Apply({variant(3)}, false);  // lists of two: room for a third
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->at(0).group, groups[0]);
  EXPECT_EQ(r->at(0).role, "duplicate");
}

// A store of format version 1 kept every posting list; opened, it is brought
// to version 2: the lists are dropped (they are rebuilt from the page
// records), the large-bucket marks kept, and its answers stay the same.
TEST(ServiceStoreFormat, VersionOneIsUpgradedWhenOpened) {
  const std::string dir = testing::MakeTempDir("service-v1") + "/store";
  ServiceOptions so;
  so.sync = false;
  so.method = "simhash";
  const std::string text = Article(13);
  {
    auto service = DuplicateService::Open(dir, so);
    ASSERT_TRUE(service.ok());
    ASSERT_TRUE((*service)->Apply({Page("https://a.example/", text)}, false).ok());
  }
  {
    auto db = service::OpenStoreDb(dir, service::StoreOptions{});
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    std::string header;
    ASSERT_TRUE((*db)->Get(rocksdb::ReadOptions(), service::kHeaderKey, &header).ok());
    const size_t at = header.find("\"format_version\":2");
    ASSERT_NE(at, std::string::npos) << header;
    header.replace(at, 18, "\"format_version\":1");
    rocksdb::WriteBatch b;
    b.Put(service::kHeaderKey, header);
    b.Put(service::PostingKey(service::kPostingPrefix, 42), std::string(16, '\1'));  // a list of two ids
    b.Put(service::PostingKey(service::kPostingPrefix, 43), service::LargeBucketMark());
    b.Put(service::PostingKey(service::kExactPrefix, 44), std::string(8, '\0'));
    ASSERT_TRUE((*db)->Write(rocksdb::WriteOptions(), &b).ok());
  }
  {
    auto service = DuplicateService::Open(dir, so);
    ASSERT_TRUE(service.ok()) << service.status().ToString();
    auto r = (*service)->Apply({Page("https://b.example/", Edited(text, 1))}, false);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->at(0).role, "duplicate");
    EXPECT_EQ(r->at(0).winner, "https://a.example/");
  }
  auto db = service::OpenStoreDb(dir, service::StoreOptions{});
  ASSERT_TRUE(db.ok());
  std::string v;
  ASSERT_TRUE((*db)->Get(rocksdb::ReadOptions(), service::kHeaderKey, &v).ok());
  EXPECT_NE(v.find("\"format_version\":2"), std::string::npos) << v;
  EXPECT_TRUE((*db)->Get(rocksdb::ReadOptions(), service::PostingKey(service::kPostingPrefix, 42), &v).IsNotFound());
  EXPECT_TRUE((*db)->Get(rocksdb::ReadOptions(), service::PostingKey(service::kExactPrefix, 44), &v).IsNotFound());
  ASSERT_TRUE((*db)->Get(rocksdb::ReadOptions(), service::PostingKey(service::kPostingPrefix, 43), &v).ok());
  EXPECT_TRUE(service::IsLargeBucket(v));
}

TEST(ServiceVsBatch, PartitionsAgreeOnASynthCrawl) {
  const std::string dir = testing::MakeTempDir("service-synth");
  ASSERT_NO_FATAL_FAILURE(SynthCrawl(dir, 20, 7));
  auto source = OpenDocumentSource({dir + "/crawl.warc.gz"});
  ASSERT_TRUE(source.ok());
  std::vector<Document> docs;
  std::set<std::string> urls;
  Document d;
  while ((*source)->Next(&d)) {
    const bool content = !(d.http_status >= 300 && d.http_status < 400 && !d.redirect_target.empty()) &&
                         d.http_status != 404 && d.http_status != 410;
    if (content && urls.insert(d.url).second) docs.push_back(d);
  }
  ASSERT_GT(docs.size(), 80u);
  DedupOptions options;
  options.method = kDefaultServiceMethod;  // the service's default, whose rule needs no collection
  auto deduper = Deduper::Create(options);
  ASSERT_TRUE(deduper.ok());
  for (const Document& doc : docs) ASSERT_TRUE((*deduper)->Add(doc).ok());
  auto clustering = (*deduper)->Cluster();
  ASSERT_TRUE(clustering.ok());

  ServiceOptions so;
  so.sync = false;
  auto service = DuplicateService::Open(dir + "/store", so);
  ASSERT_TRUE(service.ok()) << service.status().ToString();
  std::vector<PageInput> batch;
  std::vector<uint64_t> group(docs.size());
  size_t next = 0;
  for (size_t i = 0; i < docs.size(); ++i) {
    PageInput p;
    p.url = docs[i].url;
    p.body = docs[i].body;
    p.kind = docs[i].kind;
    p.status = docs[i].http_status ? docs[i].http_status : 200;
    p.fetched = docs[i].fetch_date;
    batch.push_back(std::move(p));
    if (batch.size() == 100 || i + 1 == docs.size()) {
      auto r = (*service)->Apply(std::move(batch), false);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      batch.clear();
      next += r->size();
    }
  }
  ASSERT_EQ(next, docs.size());
  for (size_t i = 0; i < docs.size(); ++i) {
    auto a = (*service)->Lookup(docs[i].url);
    ASSERT_TRUE(a.ok());
    group[i] = a->group;
  }
  // Pairs in the same cluster, by each.
  std::map<uint64_t, std::vector<size_t>> by_batch, by_service;
  for (size_t i = 0; i < docs.size(); ++i) {
    by_batch[(*clustering).cluster_of(i)].push_back(i);
    by_service[group[i]].push_back(i);
  }
  auto pairs = [](const std::map<uint64_t, std::vector<size_t>>& m) {
    std::set<std::pair<size_t, size_t>> out;
    for (const auto& [k, v] : m) {
      for (size_t x = 0; x < v.size(); ++x) {
        for (size_t y = x + 1; y < v.size(); ++y) out.insert({v[x], v[y]});
      }
    }
    return out;
  };
  const auto pb = pairs(by_batch), ps = pairs(by_service);
  ASSERT_GT(pb.size(), 20u);
  size_t common = 0;
  for (const auto& p : ps) common += pb.count(p);
  const double precision = ps.empty() ? 0 : static_cast<double>(common) / ps.size();
  const double recall = static_cast<double>(common) / pb.size();
  // Zhu et al. Table 1 reports relative errors of about 1%; the sample is
  // small, so a few pairs either way are allowed. The batch run also keeps
  // members that pass a verified center of their cluster
  // (VerificationCandidates) where the service verifies against its group's
  // winner only: it may hold a few more pairs (2 of 44 here).
  EXPECT_GE(precision, 0.97) << common << " of " << ps.size();
  EXPECT_GE(recall, 0.95) << common << " of " << pb.size();

  // Export writes dedup's format over the same pages.
  ASSERT_TRUE((*service)->Export(dir + "/export").ok());
  const auto rows = testing::ReadTsvRows(dir + "/export/clusters.tsv");
  ASSERT_EQ(rows.size(), docs.size() + 1);
  EXPECT_EQ(rows[0][0], "url");
  EXPECT_EQ(rows[1][0], docs[0].url);
}

}  // namespace
}  // namespace neardup

namespace neardup {
namespace {

// Requests from several threads at once: each is applied while others'
// batches are still being written (and read from their overlays); every
// page is then in the store, reopened, in a group that lists it.
TEST(ServiceConcurrency, ConcurrentRequestsAreAllApplied) {
  const std::string dir = testing::MakeTempDir("service-concurrent") + "/store";
  ServiceOptions so;
  so.method = "simhash";
  auto executor = NewThreadPoolExecutor(2);
  const int kThreads = 4, kRequests = 6, kPages = 20;
  {
    auto service = DuplicateService::Open(dir, so, executor.get());
    ASSERT_TRUE(service.ok()) << service.status().ToString();
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int r = 0; r < kRequests; ++r) {
          std::vector<PageInput> pages;
          for (int p = 0; p < kPages; ++p) {
            // Ten articles, each copied across threads and requests.
            const uint32_t article = static_cast<uint32_t>((t * 7 + r * 3 + p) % 10);
            pages.push_back(Page("https://t" + std::to_string(t) + ".example/" + std::to_string(r) + "/" +
                                     std::to_string(p),
                                 Edited(Article(100 + article), p % 3)));
          }
          auto answers = (*service)->Apply(std::move(pages), false);
          if (!answers.ok() || answers->size() != kPages) ++failures;
        }
      });
    }
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(failures.load(), 0);
  }
  auto service = DuplicateService::Open(dir, so);
  ASSERT_TRUE(service.ok()) << service.status().ToString();
  auto stats = (*service)->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->content_pages, static_cast<uint64_t>(kThreads * kRequests * kPages));
  EXPECT_LE(stats->groups, 30u);  // ten articles, a few edits each
  for (int t = 0; t < kThreads; ++t) {
    const std::string url = "https://t" + std::to_string(t) + ".example/0/0";
    auto a = (*service)->Lookup(url);
    ASSERT_TRUE(a.ok()) << url;
    auto g = (*service)->Group(a->group);
    ASSERT_TRUE(g.ok());
    EXPECT_NE(std::find(g->members.begin(), g->members.end(), url), g->members.end());
  }
}

}  // namespace
}  // namespace neardup

namespace neardup {
namespace {

// Zhu et al. §5's market rule: among duplicates of equal status, a page whose
// host ends with the suffix wins, whichever came first; a new page that
// ranks lower joins without displacing it.
TEST(ServiceMarketRule, APageOfTheMarketWins) {
  for (bool uk_first : {false, true}) {
    ServiceOptions so;
    so.sync = false;
    so.method = "simhash";
    so.prefer_host_suffix = ".uk";
    auto service = DuplicateService::Open(testing::MakeTempDir("service-market") + "/store", so);
    ASSERT_TRUE(service.ok()) << service.status().ToString();
    const std::string text = Article(21);
    const PageInput uk = Page("https://bb.co.uk/x", text), com = Page("https://aaaa.com/x", Edited(text, 1));
    ASSERT_TRUE((*service)->Apply({uk_first ? uk : com}, false).ok());
    auto r = (*service)->Apply({uk_first ? com : uk}, false);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->at(0).winner, "https://bb.co.uk/x") << "uk first: " << uk_first;
    EXPECT_EQ(r->at(0).role, uk_first ? "duplicate" : "keep");
    auto other = (*service)->Lookup("https://aaaa.com/x");
    ASSERT_TRUE(other.ok());
    EXPECT_EQ(other->role, "duplicate");
    EXPECT_EQ(other->winner, "https://bb.co.uk/x");
  }
}

}  // namespace
}  // namespace neardup
