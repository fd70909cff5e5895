// Copyright neardup authors. Licensed under Apache-2.0.
#include "text/charset.h"

#include <gtest/gtest.h>
#include <unicode/ucnv.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "text/tokenizer.h"

namespace neardup {
namespace {

// `utf8` converted to the ICU charset `to` (test data only).
std::string Encode(const std::string& utf8, const char* to) {
  std::string out(utf8.size() * 4 + 16, '\0');
  UErrorCode err = U_ZERO_ERROR;
  int32_t n = ucnv_convert(to, "UTF-8", out.data(), static_cast<int32_t>(out.size()), utf8.data(),
                           static_cast<int32_t>(utf8.size()), &err);
  EXPECT_TRUE(U_SUCCESS(err)) << to << ": " << u_errorName(err);
  out.resize(static_cast<size_t>(n));
  return out;
}

std::vector<std::string> Terms(const TokenizedDocument& d) {
  std::vector<std::string> t;
  for (size_t i = 0; i < d.num_terms(); ++i) t.emplace_back(d.term(i));
  return t;
}

TokenizedDocument Tok(std::string_view body, std::string_view header = "",
                      ContentKind kind = ContentKind::kHtml) {
  Tokenizer tokenizer;
  TokenizedDocument d;
  tokenizer.Tokenize(body, kind, header, "", &d);
  return d;
}

TEST(CharsetTest, CanonicalNamesFollowWhatwgLabels) {
  EXPECT_EQ(CanonicalCharsetName("ISO-8859-1"), "windows-1252");
  EXPECT_EQ(CanonicalCharsetName("latin1"), "windows-1252");
  EXPECT_EQ(CanonicalCharsetName("US-ASCII"), "windows-1252");
  EXPECT_EQ(CanonicalCharsetName("ascii"), "windows-1252");
  EXPECT_EQ(CanonicalCharsetName("gb2312"), "gbk");
  EXPECT_EQ(CanonicalCharsetName("x-sjis"), "shift_jis");
  EXPECT_EQ(CanonicalCharsetName("Shift_JIS"), "shift_jis");
  EXPECT_EQ(CanonicalCharsetName(" \"UTF8\" "), "utf-8");
  EXPECT_EQ(CanonicalCharsetName("tis-620"), "windows-874");
  EXPECT_EQ(CanonicalCharsetName("ks_c_5601-1987"), "euc-kr");
  EXPECT_EQ(CanonicalCharsetName("iso-8859-9"), "windows-1254");
  EXPECT_EQ(CanonicalCharsetName("utf-16"), "utf-16le");
  EXPECT_EQ(CanonicalCharsetName("UTF-32"), "utf-32le");
  // Labels outside WHATWG that ICU knows.
  EXPECT_EQ(CanonicalCharsetName("IBM855"), "ibm855");
  EXPECT_EQ(CanonicalCharsetName("MacCyrillic"), "x-mac-cyrillic");
  // Odd labels are unknown, not errors.
  EXPECT_EQ(CanonicalCharsetName("iso-1252"), "");
  EXPECT_EQ(CanonicalCharsetName("0"), "");
  EXPECT_EQ(CanonicalCharsetName("big5_solaris"), "");
  EXPECT_EQ(CanonicalCharsetName(""), "");
  EXPECT_EQ(CanonicalCharsetName("utf-8; foo"), "");
}

TEST(CharsetTest, PrescanFindsMetaAndXmlDeclarations) {
  EXPECT_EQ(PrescanCharsetLabel("<html><head><meta charset=\"koi8-r\">"), "koi8-r");
  EXPECT_EQ(PrescanCharsetLabel("<META HTTP-EQUIV='Content-Type' "
                                "CONTENT='text/html; charset=Shift_JIS'>"),
            "Shift_JIS");
  EXPECT_EQ(PrescanCharsetLabel("<meta content=\"text/html;charset = 'euc-jp'\" "
                                "http-equiv=content-type>"),
            "euc-jp");
  EXPECT_EQ(PrescanCharsetLabel("<?xml version=\"1.0\" encoding=\"windows-1251\"?><rss>"),
            "windows-1251");
  EXPECT_EQ(PrescanCharsetLabel("<!-- <meta charset=big5> --><meta charset=gbk>"), "gbk");
  // content= without http-equiv is not a declaration.
  EXPECT_EQ(PrescanCharsetLabel("<meta content='text/html; charset=big5'>"), "");
  EXPECT_EQ(PrescanCharsetLabel("<metadata charset=x>"), "");
  EXPECT_EQ(PrescanCharsetLabel("<meta charset='unterminated"), "");
}

TEST(CharsetTest, Utf8ScanAndSanitize) {
  EXPECT_TRUE(ScanUtf8("plain ascii text, long enough to use the fast path").valid);
  EXPECT_FALSE(ScanUtf8("plain").has_non_ascii);
  Utf8Stats s = ScanUtf8("caf\xC3\xA9 \xF0\x9F\x98\x80");
  EXPECT_TRUE(s.valid);
  EXPECT_TRUE(s.has_non_ascii);
  EXPECT_FALSE(ScanUtf8("caf\xE9").valid);
  EXPECT_FALSE(ScanUtf8("\xC0\xAF").valid);          // overlong
  EXPECT_FALSE(ScanUtf8("\xED\xA0\x80").valid);      // surrogate
  EXPECT_FALSE(ScanUtf8("\xF4\x90\x80\x80").valid);  // above U+10FFFF
  EXPECT_FALSE(ScanUtf8("abc\xE2\x82").valid);       // truncated
  std::string out;
  EXPECT_EQ(SanitizeUtf8("a\xC0\xAF" "b", &out), 2u);
  EXPECT_EQ(out, "a\xEF\xBF\xBD\xEF\xBF\xBD" "b");
  EXPECT_EQ(SanitizeUtf8("\xED\xA0\x80", &out), 3u);
  EXPECT_EQ(SanitizeUtf8("x\xE2\x82", &out), 1u);
  EXPECT_EQ(out, "x\xEF\xBF\xBD");
  EXPECT_EQ(SanitizeUtf8("ok \xE2\x82\xAC", &out), 0u);
  EXPECT_EQ(out, "ok \xE2\x82\xAC");
}


// ASCII is always well formed and ends any sequence: sanitizing ASCII
// followed by random bytes gives the ASCII followed by the random bytes
// sanitized alone, at every length around the 16-byte fast path, and
// the output is valid UTF-8.
TEST(CharsetTest, SanitizeAfterAsciiRunsOfEveryLength) {
  std::mt19937_64 rng(3);
  for (size_t ascii = 0; ascii <= 40; ++ascii) {
    for (int round = 0; round < 20; ++round) {
      std::string tail(rng() % 24, '\0');
      for (char& c : tail) c = static_cast<char>(rng() % 3 == 0 ? 'a' + rng() % 26 : 0x80 + rng() % 0x80);
      const std::string prefix(ascii, 'x');
      std::string whole, alone;
      const size_t replaced = SanitizeUtf8(prefix + tail, &whole);
      EXPECT_EQ(replaced, SanitizeUtf8(tail, &alone));
      EXPECT_EQ(whole, prefix + alone);
      EXPECT_TRUE(ScanUtf8(whole).valid);
    }
  }
}

// ScanUtf8 against SanitizeUtf8, written apart from it (WHATWG's decoder,
// byte by byte): a string is well formed exactly when sanitizing replaces
// nothing, and holds a byte >= 0x80 exactly when some byte is one. Random
// strings of well-formed characters of every length, stray continuation
// and lead bytes, surrogates, overlongs and cuts, after ASCII runs of
// every length around the 16-byte step.
TEST(CharsetTest, ScanUtf8AgreesWithTheByteDecoder) {
  std::mt19937_64 rng(11);
  const char* const pieces[] = {"a", "Z", " ", "<p>", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80",
                                "\xED\x9F\xBF", "\xEE\x80\x80", "\xF4\x8F\xBF\xBF",
                                "\x80", "\xBF", "\xC0\xAF", "\xC1\xBF", "\xE0\x80\x80", "\xED\xA0\x80",
                                "\xF0\x80\x80\x80", "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xFF",
                                "\xE2\x82", "\xF0\x9F\x98", "\xC3"};
  size_t invalid = 0, valid_non_ascii = 0;
  for (int round = 0; round < 4000; ++round) {
    std::string s(rng() % 70, 'x');
    const int count = static_cast<int>(rng() % 6);
    for (int k = 0; k < count; ++k) {
      // Mostly well-formed pieces: one bad piece in about three strings.
      const size_t pick = rng() % 3 == 0 ? rng() % std::size(pieces) : rng() % 10;
      s += pieces[pick];
      s.append(rng() % 20, 'y');
    }
    std::string sanitized;
    const bool well_formed = SanitizeUtf8(s, &sanitized) == 0;
    const bool high = std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
    const Utf8Stats st = ScanUtf8(s);
    ASSERT_EQ(st.valid, well_formed) << round;
    ASSERT_EQ(st.has_non_ascii, high) << round;
    invalid += !well_formed;
    valid_non_ascii += well_formed && high;
  }
  EXPECT_GT(invalid, 500u);  // both kinds were drawn often
  EXPECT_GT(valid_non_ascii, 500u);
}

// SanitizeUtf8 against ICU's UTF-8 converter, which replaces each maximal
// ill-formed subpart with one U+FFFD as SanitizeUtf8 promises: strings of
// a few kilobytes of ASCII (even rounds) or multi-byte characters, with a
// few bad pieces anywhere, sanitize to ICU's output.
TEST(CharsetTest, SanitizeUtf8AgreesWithIcu) {
  std::mt19937_64 rng(29);
  const char* const good[] = {"a", " ", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xE4\xB8\xAD"};
  const char* const bad[] = {"\x80", "\xBF\xBF\xBF\xBF", "\xC0\xAF", "\xE0\x80\x80", "\xED\xA0\x80",
                             "\xF4\x90\x80\x80", "\xFF", "\xE2\x82", "\xF0\x9F\x98", "\xC3"};
  UErrorCode err = U_ZERO_ERROR;
  UConverter* utf8 = ucnv_open("UTF-8", &err);
  ucnv_setSubstString(utf8, u"\uFFFD", 1, &err);  // ICU's substitute: U+FFFD
  ASSERT_TRUE(U_SUCCESS(err));
  size_t replaced_total = 0;
  for (int round = 0; round < 300; ++round) {
    std::string s;
    const size_t length = 900 + rng() % 4000;
    while (s.size() < length) {
      s += rng() % 200 == 0 ? bad[rng() % std::size(bad)] : good[rng() % (round % 2 == 0 ? 2 : std::size(good))];
    }
    std::string sanitized;
    const size_t replaced = SanitizeUtf8(s, &sanitized);
    replaced_total += replaced;
    // ICU: UTF-8 to UTF-8 through its pivot.
    std::string want(s.size() * 3 + 16, '\0');
    char* target = want.data();
    const char* source = s.data();
    err = U_ZERO_ERROR;
    ucnv_reset(utf8);
    ucnv_convertEx(utf8, utf8, &target, want.data() + want.size(), &source, s.data() + s.size(), nullptr, nullptr,
                   nullptr, nullptr, true, true, &err);
    ASSERT_TRUE(U_SUCCESS(err)) << u_errorName(err);
    want.resize(static_cast<size_t>(target - want.data()));
    ASSERT_EQ(sanitized, want) << round;
    ASSERT_TRUE(ScanUtf8(sanitized).valid);
  }
  ucnv_close(utf8);
  EXPECT_GT(replaced_total, 300u);  // bad pieces were drawn
}

TEST(CharsetTest, ByteOrderMarkWins) {
  TokenizedDocument d = Tok("\xEF\xBB\xBFh\xC3\xA9llo", "iso-8859-1");
  EXPECT_EQ(d.charset, "utf-8");
  EXPECT_EQ(Terms(d), std::vector<std::string>{"héllo"});
  const std::string text = "Grüße aus Köln 中文";
  const std::vector<std::string> want = {"grüsse", "aus", "köln", "中", "文"};
  struct Case {
    const char* icu;
    const char* bom;
    size_t bom_len;
    const char* name;
  } cases[] = {
      {"UTF-16LE", "\xFF\xFE", 2, "utf-16le"},
      {"UTF-16BE", "\xFE\xFF", 2, "utf-16be"},
      {"UTF-32LE", "\xFF\xFE\x00\x00", 4, "utf-32le"},
      {"UTF-32BE", "\x00\x00\xFE\xFF", 4, "utf-32be"},
  };
  for (const Case& c : cases) {
    std::string body = std::string(c.bom, c.bom_len) + Encode("<p>" + text + "</p>", c.icu);
    d = Tok(body, "windows-1252");
    EXPECT_EQ(d.charset, c.name);
    EXPECT_EQ(Terms(d), want) << c.name;
    EXPECT_FALSE(d.had_invalid_bytes);
    // Without a BOM, "<" followed by NULs is recognised too.
    d = Tok(Encode("<p>" + text + "</p>", c.icu));
    EXPECT_EQ(d.charset, c.name);
    EXPECT_EQ(Terms(d), want) << c.name << " without BOM";
  }
}

TEST(CharsetTest, HeaderThenMetaThenDefault) {
  TokenizedDocument d = Tok("caf\xE9 cr\xE8me", "iso-8859-1");
  EXPECT_EQ(d.charset, "windows-1252");
  EXPECT_EQ(Terms(d), (std::vector<std::string>{"café", "crème"}));
  EXPECT_FALSE(d.charset_fallback);
  // Meta.
  d = Tok("<meta charset=\"windows-1251\"><p>\xCF\xF0\xE8\xE2\xE5\xF2</p>");
  EXPECT_EQ(d.charset, "windows-1251");
  EXPECT_EQ(Terms(d), std::vector<std::string>{"привет"});
  // The header beats the meta.
  d = Tok("<meta charset=\"windows-1251\"><p>\xF0\xD2\xC9\xD7\xC5\xD4</p>", "koi8-r");
  EXPECT_EQ(d.charset, "koi8-r");
  EXPECT_EQ(Terms(d), std::vector<std::string>{"привет"});
  // An unknown header label falls through to the meta.
  d = Tok("<meta charset=\"koi8-r\"><p>\xF0\xD2\xC9\xD7\xC5\xD4</p>", "iso-1252");
  EXPECT_EQ(d.charset, "koi8-r");
  // Pure ASCII in a declared ASCII-compatible charset: no conversion needed.
  d = Tok("<meta charset=shift_jis><p>hello</p>");
  EXPECT_EQ(d.charset, "shift_jis");
  EXPECT_EQ(Terms(d), std::vector<std::string>{"hello"});
  // No declaration, valid UTF-8 (or ASCII): UTF-8.
  d = Tok("<p>plain</p>");
  EXPECT_EQ(d.charset, "utf-8");
  // Plain text ignores <meta>.
  d = Tok("<meta charset=koi8-r> \xC3\xA9t\xC3\xA9", "", ContentKind::kText);
  EXPECT_EQ(d.charset, "utf-8");
}

TEST(CharsetTest, LyingDeclarationFallsBackToUtf8) {
  TokenizedDocument d = Tok(
      "<meta http-equiv=Content-Type content='text/html; charset=iso-8859-1'><p>Rücker café</p>");
  EXPECT_EQ(d.charset, "utf-8");
  EXPECT_TRUE(d.charset_fallback);
  EXPECT_EQ(Terms(d), (std::vector<std::string>{"rücker", "café"}));
  d = Tok("<p>日本語</p>", "Shift_JIS");
  EXPECT_EQ(d.charset, "utf-8");
  EXPECT_TRUE(d.charset_fallback);
  EXPECT_EQ(Terms(d), (std::vector<std::string>{"日", "本", "語"}));
  // A meta saying UTF-16 in an ASCII-readable page means UTF-8.
  d = Tok("<meta charset=utf-16><p>\xC3\xA9t\xC3\xA9</p>");
  EXPECT_EQ(d.charset, "utf-8");
  EXPECT_EQ(Terms(d), std::vector<std::string>{"été"});
  // A header saying UTF-16 for a body without NULs is ignored.
  d = Tok("<p>abc</p>", "utf-16");
  EXPECT_EQ(d.charset, "utf-8");
  EXPECT_TRUE(d.charset_fallback);
  EXPECT_EQ(Terms(d), std::vector<std::string>{"abc"});
}

TEST(CharsetTest, UndeclaredInvalidUtf8UsesDetector) {
  std::string latin1 =
      "<html><body><p>Le caf\xE9 de la gare est ferm\xE9 depuis l'\xE9t\xE9 dernier. "
      "La cr\xE8me br\xFBl\xE9" "e \xE9tait d\xE9licieuse et le g\xE2teau tr\xE8s "
      "appr\xE9" "ci\xE9 par les habitu\xE9" "s du quartier.</p></body></html>";
  TokenizedDocument d = Tok(latin1);
  EXPECT_FALSE(d.had_invalid_bytes);
  EXPECT_NE(d.charset, "utf-8");
  std::vector<std::string> t = Terms(d);
  EXPECT_NE(std::find(t.begin(), t.end(), "café"), t.end()) << d.charset;
  // Japanese in Shift_JIS without a declaration.
  std::string sjis = Encode(
      "<html><body><p>日本語のテキストです。これは文字コードの自動判定のための文章です。"
      "東京都の天気は晴れでしょう。明日も良い天気になるといいですね。</p></body></html>",
      "Shift_JIS");
  d = Tok(sjis);
  EXPECT_EQ(d.charset, "shift_jis");
  t = Terms(d);
  EXPECT_NE(std::find(t.begin(), t.end(), "東"), t.end());
}

TEST(CharsetTest, InvalidBytesReplacedAndFlagged) {
  TokenizedDocument d = Tok("abc\xFF\xFE" "def", "utf-8");
  EXPECT_TRUE(d.had_invalid_bytes);
  EXPECT_EQ(d.charset, "utf-8");
  EXPECT_EQ(Terms(d), (std::vector<std::string>{"abc", "def"}));
  d = Tok("<meta charset=shift_jis>abc\x81", "");
  EXPECT_EQ(d.charset, "shift_jis");
  EXPECT_TRUE(d.had_invalid_bytes);
  EXPECT_EQ(Terms(d), std::vector<std::string>{"abc"});
  d = Tok("\xFF\xFE" "a");  // odd-length UTF-16LE
  EXPECT_EQ(d.charset, "utf-16le");
  EXPECT_TRUE(d.had_invalid_bytes);
}

// The same text in many charsets, declared by header and by meta, gives the
// same terms as its UTF-8 form.
TEST(CharsetTest, SameTextSameTermsAcrossCharsets) {
  struct Case {
    const char* icu;     // ICU converter to produce the bytes
    const char* label;   // label to declare
    const char* text;
  } cases[] = {
      {"windows-1252", "iso-8859-1", "Déjà vu: Ærøskøbing, naïve façade, ÉCOLE — “quotes” €5."},
      {"ISO-8859-2", "iso-8859-2", "Zażółć gęślą jaźń. Příliš žluťoučký kůň úpěl."},
      {"windows-1250", "windows-1250", "Zażółć gęślą jaźń. Příliš žluťoučký kůň úpěl."},
      {"ISO-8859-5", "iso-8859-5", "Съешь же ещё этих мягких французских булок."},
      {"windows-1251", "cp1251", "Съешь же ещё этих мягких французских булок."},
      {"KOI8-R", "koi8-r", "Съешь же ещё этих мягких французских булок."},
      {"ibm-866", "866", "Съешь же ещё этих мягких французских булок."},
      {"ISO-8859-7", "iso-8859-7", "Ξεσκεπάζω την ψυχοφθόρα βδελυγμία."},
      {"windows-1253", "windows-1253", "Ξεσκεπάζω την ψυχοφθόρα βδελυγμία."},
      {"windows-1255", "windows-1255", "עטלף אבק נס דרך מזגן שהתפוצץ כי חם."},
      {"windows-1256", "windows-1256", "نص حكيم له سر قاطع وذو شأن عظيم."},
      {"windows-874", "tis-620", "เป็นมนุษย์สุดประเสริฐเลิศคุณค่า"},
      {"Shift_JIS", "shift_jis", "いろはにほへと　ちりぬるを。日本語の文章、カタカナ。"},
      {"EUC-JP", "euc-jp", "いろはにほへと　ちりぬるを。日本語の文章、カタカナ。"},
      {"ISO-2022-JP", "iso-2022-jp", "いろはにほへと　ちりぬるを。日本語の文章、カタカナ。"},
      {"GBK", "gb2312", "我能吞下玻璃而不伤身体。中文网页的编码。"},
      {"gb18030", "gb18030", "我能吞下玻璃而不伤身体。中文网页的编码。"},
      {"windows-950", "big5", "我能吞下玻璃而不傷身體。中文網頁的編碼。"},
      {"windows-949", "euc-kr", "다람쥐 헌 쳇바퀴에 타고파. 한국어 웹 페이지."},
      {"UTF-16LE", "utf-16le", "Grüße 中文 Съешь ещё."},
      {"UTF-16BE", "utf-16be", "Grüße 中文 Съешь ещё."},
  };
  for (const Case& c : cases) {
    const std::string html_utf8 = std::string("<html><body><p>") + c.text + "</p></body></html>";
    TokenizedDocument want = Tok(html_utf8);
    ASSERT_GT(want.num_terms(), 3u) << c.icu;
    // Declared by the HTTP header.
    TokenizedDocument by_header = Tok(Encode(html_utf8, c.icu), c.label);
    EXPECT_EQ(Terms(by_header), Terms(want)) << c.icu << " (header)";
    EXPECT_EQ(by_header.term_hashes, want.term_hashes) << c.icu;
    EXPECT_EQ(by_header.sentence_ends, want.sentence_ends) << c.icu;
    EXPECT_EQ(by_header.text_chars, want.text_chars) << c.icu;
    EXPECT_EQ(by_header.charset, CanonicalCharsetName(c.label)) << c.icu;
    EXPECT_FALSE(by_header.had_invalid_bytes) << c.icu;
    // Declared by a meta tag (ASCII-compatible charsets only).
    std::string_view label = c.label;
    if (label.starts_with("utf-16") || label == "iso-2022-jp") continue;
    const std::string meta = std::string("<meta charset=\"") + c.label + "\">";
    TokenizedDocument by_meta = Tok(meta + Encode(html_utf8, c.icu));
    TokenizedDocument want_meta = Tok(meta + html_utf8);
    EXPECT_EQ(Terms(by_meta), Terms(want_meta)) << c.icu << " (meta)";
    EXPECT_EQ(by_meta.charset, CanonicalCharsetName(c.label)) << c.icu;
  }
}

TEST(CharsetTest, ConverterCacheIsReused) {
  CharsetConverter conv;
  std::string out;
  bool invalid = false;
  ASSERT_TRUE(conv.Convert("\xE9", "windows-1252", &out, &invalid));
  EXPECT_EQ(out, "é");
  ASSERT_TRUE(conv.Convert("\xC3", "koi8-r", &out, &invalid));
  EXPECT_EQ(out, "ц");
  ASSERT_TRUE(conv.Convert("\xE9\xE9", "windows-1252", &out, &invalid));
  EXPECT_EQ(out, "éé");
  EXPECT_FALSE(invalid);
  EXPECT_FALSE(conv.Convert("x", "no-such-charset", &out, &invalid));
}

}  // namespace
}  // namespace neardup
