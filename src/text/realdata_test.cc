// Copyright neardup authors. Licensed under Apache-2.0.
//
// The tokenizer on real pages: the few copied into tests/data/html (always
// run) and every page of the shared real-data folder (skipped when absent).
#include <gtest/gtest.h>
#include <xxhash.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "test_util.h"
#include "text/charset.h"
#include "text/tokenizer.h"

namespace neardup {
namespace {

namespace fs = std::filesystem;
using testing::GunzipFileOrDie;
using testing::ReadFileOrEmpty;
using testing::RepoTestDataDir;

std::vector<std::string> Terms(const TokenizedDocument& d) {
  std::vector<std::string> t;
  for (size_t i = 0; i < d.num_terms(); ++i) t.emplace_back(d.term(i));
  return t;
}

bool Has(const std::vector<std::string>& terms, std::string_view t) {
  return std::find(terms.begin(), terms.end(), t) != terms.end();
}

// The output contract of TokenizedDocument.
void CheckInvariants(const TokenizedDocument& d, const std::string& what) {
  const size_t n = d.num_terms();
  ASSERT_EQ(d.term_offsets.size(), n + 1) << what;
  ASSERT_EQ(d.term_offsets.front(), 0u) << what;
  ASSERT_EQ(d.term_offsets.back(), d.term_bytes.size()) << what;
  for (size_t i = 0; i < n; ++i) {
    ASSERT_LT(d.term_offsets[i], d.term_offsets[i + 1]) << what << " term " << i;
    std::string_view t = d.term(i);
    ASSERT_EQ(d.term_hashes[i], XXH3_64bits(t.data(), t.size())) << what;
  }
  ASSERT_TRUE(ScanUtf8(d.term_bytes).valid) << what;
  for (const auto* ends : {&d.sentence_ends, &d.line_ends}) {
    ASSERT_TRUE(std::is_sorted(ends->begin(), ends->end())) << what;
    if (n > 0) {
      ASSERT_FALSE(ends->empty()) << what;
      ASSERT_EQ(ends->back(), n) << what;
    } else {
      ASSERT_TRUE(ends->empty()) << what;
    }
  }
  for (const std::string& link : d.links) {
    ASSERT_TRUE(link.starts_with("http://") || link.starts_with("https://") ||
                link.starts_with("ftp://") || link.starts_with("file:"))
        << what << ": " << link;
  }
}

TokenizedDocument TokenizeFile(Tokenizer* tokenizer, const std::string& body,
                               std::string_view url = "") {
  TokenizedDocument d;
  tokenizer->Tokenize(body, ContentKind::kHtml, "", url, &d);
  return d;
}

// --- Pages in the repository --------------------------------------------

TEST(RealPagesTest, JapanesePageDeclaringShiftJisIsUtf8) {
  std::string body = ReadFileOrEmpty(RepoTestDataDir() + "/html/jvndb.jvn.jp.html");
  ASSERT_FALSE(body.empty());
  Tokenizer tokenizer;
  TokenizedDocument d = TokenizeFile(&tokenizer, body, "https://jvndb.jvn.jp/ja/contents/x.html");
  CheckInvariants(d, "jvndb");
  EXPECT_EQ(d.charset, "utf-8");
  EXPECT_TRUE(d.charset_fallback);
  EXPECT_FALSE(d.had_invalid_bytes);
  std::vector<std::string> t = Terms(d);
  EXPECT_TRUE(Has(t, "jvndb"));
  EXPECT_TRUE(Has(t, "ipedia"));
  EXPECT_TRUE(Has(t, "脆"));
  EXPECT_TRUE(Has(t, "logo.gif"));  // own-host IMG: file name only
  EXPECT_GT(d.sentence_ends.size(), 3u);
}

TEST(RealPagesTest, ArabicWindows1256) {
  std::string body = ReadFileOrEmpty(RepoTestDataDir() + "/html/arabic_newspapers.html");
  ASSERT_FALSE(body.empty());
  Tokenizer tokenizer;
  TokenizedDocument d = TokenizeFile(&tokenizer, body, "http://arabic-media.com/arabicnews.htm");
  CheckInvariants(d, "arabic");
  EXPECT_EQ(d.charset, "windows-1256");
  EXPECT_FALSE(d.charset_fallback);
  std::vector<std::string> t = Terms(d);
  EXPECT_TRUE(Has(t, "الصحف"));
  EXPECT_TRUE(Has(t, "newspapers"));
  EXPECT_FALSE(Has(t, "ip")) << "<?php ... ?> must be dropped";
  EXPECT_GT(d.links.size(), 100u);
}

TEST(RealPagesTest, ChineseGb2312) {
  std::string body = ReadFileOrEmpty(RepoTestDataDir() + "/html/cnr-gb2312.html");
  ASSERT_FALSE(body.empty());
  Tokenizer tokenizer;
  TokenizedDocument d = TokenizeFile(&tokenizer, body, "http://www.cnr.cn/news/x.html");
  CheckInvariants(d, "cnr");
  EXPECT_EQ(d.charset, "gbk");
  std::vector<std::string> t = Terms(d);
  // Title: 中央军委主席习近平签署命令 ..._央广网
  const std::vector<std::string> title = {"中", "央", "军", "委", "主", "席", "习", "近", "平"};
  auto it = std::search(t.begin(), t.end(), title.begin(), title.end());
  EXPECT_NE(it, t.end());
}

TEST(RealPagesTest, HackerNewsLinksAndLines) {
  std::string body = ReadFileOrEmpty(RepoTestDataDir() + "/html/hacker_news.html");
  ASSERT_FALSE(body.empty());
  Tokenizer tokenizer;
  TokenizedDocument d = TokenizeFile(&tokenizer, body, "https://news.ycombinator.com/");
  CheckInvariants(d, "hn");
  std::vector<std::string> t = Terms(d);
  EXPECT_TRUE(Has(t, "hacker"));
  EXPECT_TRUE(Has(t, "news"));
  EXPECT_GT(d.links.size(), 50u);
  EXPECT_GT(d.line_ends.size(), 30u);
  EXPECT_TRUE(std::any_of(d.links.begin(), d.links.end(), [](const std::string& l) {
    return l.starts_with("https://news.ycombinator.com/item?id=");
  }));
}

// --- Shared real data -----------------------------------------------------

TEST(SharedDataTest, EveryHtmlPageTokenizes) {
  NEARDUP_REQUIRE_SHARED_DATA(dir);
  Tokenizer tokenizer;
  TokenizedDocument d;
  size_t pages = 0, empty = 0, fallback = 0, invalid = 0;
  uint64_t bytes = 0, terms = 0;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(dir) / "html")) {
    const fs::path& p = e.path();
    if (!e.is_regular_file() || p.extension() != ".gz") continue;
    if (p.parent_path().filename() == "gold") continue;  // extracted text, not pages
    std::string body = GunzipFileOrDie(p.string());
    tokenizer.Tokenize(body, ContentKind::kHtml, "", "http://example.org/page.html", &d);
    CheckInvariants(d, p.string());
    ++pages;
    bytes += body.size();
    terms += d.num_terms();
    if (d.num_terms() == 0) ++empty;
    if (d.charset_fallback) ++fallback;
    if (d.had_invalid_bytes) ++invalid;
    // Plausibility: a page with visible text has terms, and not more terms
    // than bytes.
    ASSERT_LE(d.num_terms(), body.size()) << p;
    ASSERT_LE(d.text_chars, body.size()) << p;
  }
  std::printf("[ shared ] %zu pages, %.1f MB, %.1f M terms, %zu without terms, %zu charset "
              "fallbacks, %zu with invalid bytes\n",
              pages, bytes / 1e6, terms / 1e6, empty, fallback, invalid);
  EXPECT_GT(pages, 5000u);
  EXPECT_LT(empty * 100, pages) << "more than 1% of pages gave no terms";
  EXPECT_GT(terms / pages, 200u);
}

TEST(SharedDataTest, DeclaredIso88591ButUtf8PagesDecodeAsUtf8) {
  NEARDUP_REQUIRE_SHARED_DATA(dir);
  struct Case {
    const char* file;
    const char* word;
  } cases[] = {
      {"01ccc7c5-a1d1-46e1-a5f7-43310df16575.html.gz", "rücker"},
      {"02e622bc-00a7-4b0e-85ef-5a663ef6233c.html.gz", "zurück"},
  };
  Tokenizer tokenizer;
  for (const Case& c : cases) {
    std::string body = GunzipFileOrDie(dir + "/html/l3s-gn1/" + c.file);
    std::string head = body.substr(0, 4096);
    for (char& ch : head) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    ASSERT_NE(head.find("charset=iso-8859-1"), std::string::npos) << c.file;
    TokenizedDocument d = TokenizeFile(&tokenizer, body);
    EXPECT_EQ(d.charset, "utf-8") << c.file;
    EXPECT_TRUE(d.charset_fallback) << c.file;
    EXPECT_TRUE(Has(Terms(d), c.word)) << c.file;
  }
}

TEST(SharedDataTest, JapanesePagesWithStaleDeclarations) {
  NEARDUP_REQUIRE_SHARED_DATA(dir);
  Tokenizer tokenizer;
  // (www.jnsa.org also declares Shift_JIS but is pure ASCII: nothing to overrule.)
  for (const char* f : {"www.itmedia.co.jp.html.gz", "takagi-hiromitsu.jp.html.gz",
                        "www.elecom.co.jp.html.gz"}) {
    std::string body = GunzipFileOrDie(dir + "/html/postlight-parser/" + f);
    TokenizedDocument d = TokenizeFile(&tokenizer, body);
    EXPECT_EQ(d.charset, "utf-8") << f;
    EXPECT_FALSE(d.had_invalid_bytes) << f;
  }
}

// chardet's test feeds: the same Russian feeds in six encodings, declared by
// <?xml encoding=...?>, decode to the same text (the KOI8-R copies are the
// originals and differ slightly in a few groups, so they are compared only
// where upstream's texts agree).
TEST(SharedDataTest, SameFeedInDifferentEncodingsGivesSameTerms) {
  NEARDUP_REQUIRE_SHARED_DATA(dir);
  const std::string base = dir + "/html/chardet-encodings/";
  struct Group {
    const char* file;
    std::vector<std::pair<const char*, const char*>> folders;  // folder, expected charset
    const char* word;
  };
  const std::vector<std::pair<const char*, const char*>> five = {
      {"IBM855", "ibm855"}, {"IBM866", "ibm866"}, {"MacCyrillic", "x-mac-cyrillic"},
      {"iso-8859-5-russian", "iso-8859-5"}, {"windows-1251-russian", "windows-1251"}};
  auto with_koi8 = five;
  with_koi8.erase(with_koi8.begin() + 2);  // janulalife has no MacCyrillic copy
  with_koi8.push_back({"KOI8-R", "koi8-r"});
  const std::vector<Group> groups = {
      {"aif.ru.health.xml.gz", five, "здоровье"},
      {"blog.mlmaster.com.xml.gz", five, nullptr},
      {"kapranoff.ru.xml.gz", five, nullptr},
      {"newsru.com.xml.gz", five, "россии"},
      {"money.rin.ru.xml.gz", five, nullptr},
      {"janulalife.blogspot.com.xml.gz", with_koi8, nullptr},
  };
  Tokenizer tokenizer;
  for (const Group& g : groups) {
    std::vector<std::string> first;
    for (const auto& [folder, charset] : g.folders) {
      std::string body = GunzipFileOrDie(base + folder + "/" + g.file);
      TokenizedDocument d = TokenizeFile(&tokenizer, body);
      CheckInvariants(d, g.file);
      EXPECT_EQ(d.charset, charset) << folder << "/" << g.file;
      EXPECT_FALSE(d.had_invalid_bytes) << folder << "/" << g.file;
      std::vector<std::string> t = Terms(d);
      ASSERT_GT(t.size(), 20u) << folder << "/" << g.file;
      if (g.word) {
        EXPECT_TRUE(Has(t, g.word)) << folder << "/" << g.file;
      }
      if (first.empty()) {
        first = t;
      } else {
        EXPECT_EQ(t, first) << folder << "/" << g.file << " differs from " << g.folders[0].first;
      }
    }
  }
  // The same page in UTF-16LE/BE and UTF-32LE/BE (supplementary-plane text).
  std::vector<std::string> first;
  for (const char* f : {"UTF-16BE/plane1-utf-16be.html.gz", "UTF-16LE/plane1-utf-16le.html.gz",
                        "UTF-32BE/plane1-utf-32be.html.gz", "UTF-32LE/plane1-utf-32le.html.gz"}) {
    TokenizedDocument d = TokenizeFile(&tokenizer, GunzipFileOrDie(base + f));
    CheckInvariants(d, f);
    EXPECT_FALSE(d.had_invalid_bytes) << f;
    std::vector<std::string> t = Terms(d);
    ASSERT_GT(t.size(), 3u) << f;
    if (first.empty()) {
      first = t;
    } else {
      EXPECT_EQ(t, first) << f;
    }
  }
}

}  // namespace
}  // namespace neardup
