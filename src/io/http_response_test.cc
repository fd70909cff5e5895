// Copyright neardup authors. Licensed under Apache-2.0.
#include "io/http_response.h"

#include <gtest/gtest.h>

#include <string>

#include "io/io_test_util.h"

namespace neardup::io {
namespace {

using testing::Deflate;
using testing::GzipMember;

TEST(HttpHeadTest, ParsesStatusAndHeaders) {
  std::string block =
      "HTTP/1.1 301 Moved Permanently\r\nContent-Type: text/html; charset=\"ISO-8859-1\"\r\n"
      "location: https://example.org/new\r\nTransfer-Encoding: chunked\r\n"
      "Content-Encoding: gzip\r\n\r\nBODY";
  HttpHead h;
  ASSERT_TRUE(ParseHttpHead(block, &h));
  EXPECT_EQ(h.status, 301);
  EXPECT_EQ(h.content_type, "text/html; charset=\"ISO-8859-1\"");
  EXPECT_EQ(h.location, "https://example.org/new");
  EXPECT_EQ(h.transfer_encoding, "chunked");
  EXPECT_EQ(h.content_encoding, "gzip");
  EXPECT_EQ(block.substr(h.body_offset), "BODY");
}

TEST(HttpHeadTest, ToleratesMissingReasonAndOddLineEnds) {
  HttpHead h;
  // pywb's missing-status-text.warc: no reason phrase, CR CR LF line ends.
  std::string crcrlf = "HTTP/1.0 302 \r\r\nLocation: http://www.iana.org/badst\r\r\n\r\r\nX";
  ASSERT_TRUE(ParseHttpHead(crcrlf, &h));
  EXPECT_EQ(h.status, 302);
  EXPECT_EQ(h.location, "http://www.iana.org/badst");
  EXPECT_EQ(crcrlf.substr(h.body_offset), "X");

  std::string lf = "HTTP/1.1 200\nContent-Type: text/plain\n\nhello";
  ASSERT_TRUE(ParseHttpHead(lf, &h));
  EXPECT_EQ(h.status, 200);
  EXPECT_EQ(lf.substr(h.body_offset), "hello");

  std::string no_blank = "HTTP/1.1 204 No Content\r\nServer: x\r\n";
  ASSERT_TRUE(ParseHttpHead(no_blank, &h));
  EXPECT_EQ(h.body_offset, no_blank.size());
}

TEST(HttpHeadTest, RejectsNonHttp) {
  HttpHead h;
  EXPECT_FALSE(ParseHttpHead("HTTPX/1.1 200 OK\r\n\r\n", &h));
  EXPECT_FALSE(ParseHttpHead("<html>", &h));
  EXPECT_FALSE(ParseHttpHead("HTTP/1.1 2x0 OK\r\n\r\n", &h));
  EXPECT_FALSE(ParseHttpHead("HTTP/1.1\r\n\r\n", &h));
  EXPECT_FALSE(ParseHttpHead("", &h));
}

TEST(ContentTypeTest, SplitsMediaTypeAndCharset) {
  std::string mt, cs;
  ParseContentType("Text/HTML; Charset=\"UTF-8\"", &mt, &cs);
  EXPECT_EQ(mt, "text/html");
  EXPECT_EQ(cs, "utf-8");
  ParseContentType("text/plain;format=flowed; charset=windows-1252 ", &mt, &cs);
  EXPECT_EQ(mt, "text/plain");
  EXPECT_EQ(cs, "windows-1252");
  ParseContentType("", &mt, &cs);
  EXPECT_EQ(mt, "");
  EXPECT_EQ(cs, "");
}

TEST(ContentTypeTest, Classification) {
  EXPECT_EQ(ClassifyMediaType(""), MediaClass::kHtml);
  EXPECT_EQ(ClassifyMediaType("text/html"), MediaClass::kHtml);
  EXPECT_EQ(ClassifyMediaType("application/xhtml+xml"), MediaClass::kHtml);
  EXPECT_EQ(ClassifyMediaType("text/xml"), MediaClass::kHtml);
  EXPECT_EQ(ClassifyMediaType("application/xml"), MediaClass::kHtml);
  EXPECT_EQ(ClassifyMediaType("application/rss+xml"), MediaClass::kHtml);
  EXPECT_EQ(ClassifyMediaType("text/plain"), MediaClass::kText);
  EXPECT_EQ(ClassifyMediaType("application/json"), MediaClass::kText);
  for (const char* t : {"image/png", "image/svg+xml", "video/mp4", "audio/mpeg", "font/woff2",
                        "application/pdf", "application/octet-stream", "application/zip",
                        "application/x-font-ttf", "application/vnd.ms-fontobject", "text/dns"}) {
    EXPECT_EQ(ClassifyMediaType(t), MediaClass::kNonText) << t;
  }
}

TEST(ChunkedTest, DecodesAndDetectsDamage) {
  std::string out;
  EXPECT_EQ(DecodeChunked("5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n", &out, 1 << 20),
            DecodeResult::kOk);
  EXPECT_EQ(out, "hello world");
  EXPECT_EQ(DecodeChunked("5\nhello\nA\n0123456789\n0\n", &out, 1 << 20), DecodeResult::kOk);
  EXPECT_EQ(out, "hello0123456789");
  EXPECT_EQ(DecodeChunked("5\r\nhel", &out, 1 << 20), DecodeResult::kTruncated);
  EXPECT_EQ(out, "hel");
  EXPECT_EQ(DecodeChunked("<html>not chunked</html>", &out, 1 << 20), DecodeResult::kFailed);
  EXPECT_EQ(DecodeChunked("3\r\nabcXY\r\n0\r\n", &out, 1 << 20), DecodeResult::kFailed);
  EXPECT_EQ(DecodeChunked("ffff\r\n", &out, 100), DecodeResult::kTooLarge);
  EXPECT_EQ(DecodeChunked("ffffffffffffffffff\r\n", &out, 100), DecodeResult::kFailed);
}

TEST(ContentEncodingTest, GzipDeflateBrotli) {
  const std::string html = "<html><body><p>" + std::string(3000, 'q') + "</p></body></html>";
  std::string out;
  EXPECT_EQ(DecodeContent("gzip", GzipMember(html), &out, 1 << 20), DecodeResult::kOk);
  EXPECT_EQ(out, html);
  EXPECT_EQ(DecodeContent("X-GZIP", GzipMember(html), &out, 1 << 20), DecodeResult::kOk);
  EXPECT_EQ(out, html);
  EXPECT_EQ(DecodeContent("deflate", Deflate(html, false), &out, 1 << 20), DecodeResult::kOk);
  EXPECT_EQ(out, html);
  EXPECT_EQ(DecodeContent("deflate", Deflate(html, true), &out, 1 << 20), DecodeResult::kOk);
  EXPECT_EQ(out, html);
  // Made with BrotliEncoderCompress(quality 5) from the text below.
  static const char kBrotli[] =
      "\x1b\x47\x00\x00\x44\x37\x97\xea\xe8\xa2\xa1\xc8\xb2\x25\x9b\x14\x04\xe5\x1c\x36\xe0\xc0"
      "\x25\x7b\xa2\x41\x07\x19\x78\xf0\x90\x95\x62\x68\xf2\x41\x49\x30\x49\x0f\xa1\x1f\x63\xbb"
      "\x85\x7c\xfb\xa7\xe1\xf9\x82\xd2\x47\xef\x8e\x12\x94\xb5\x00";
  EXPECT_EQ(DecodeContent("br", std::string_view(kBrotli, sizeof kBrotli - 1), &out, 1 << 20),
            DecodeResult::kOk);
  EXPECT_EQ(out, "<html><body><p>Hello brotli world, hello brotli world.</p></body></html>");

  // Truncated gzip keeps what inflated; garbage fails; the bound is kept.
  std::string gz = GzipMember(html);
  EXPECT_EQ(DecodeContent("gzip", gz.substr(0, gz.size() / 2), &out, 1 << 20),
            DecodeResult::kTruncated);
  EXPECT_FALSE(out.empty());
  EXPECT_EQ(DecodeContent("gzip", "<html>plain</html>", &out, 1 << 20), DecodeResult::kFailed);
  EXPECT_EQ(DecodeContent("br", "<html>plain</html>", &out, 1 << 20), DecodeResult::kFailed);
  EXPECT_EQ(DecodeContent("compress", gz, &out, 1 << 20), DecodeResult::kFailed);
  EXPECT_EQ(DecodeContent("gzip", gz, &out, 100), DecodeResult::kTooLarge);
}

TEST(LooksLikeTextTest, Heuristic) {
  EXPECT_TRUE(LooksLikeText("<html>\n\t<body>caf\xc3\xa9</body></html>"));
  EXPECT_FALSE(LooksLikeText(std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10)));
  EXPECT_FALSE(LooksLikeText(""));
}

}  // namespace
}  // namespace neardup::io
