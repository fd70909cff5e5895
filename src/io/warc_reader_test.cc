// Copyright neardup authors. Licensed under Apache-2.0.
//
// WARC/ARC reading on the real files copied to tests/data/warc (always
// present) and on damaged inputs generated from them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "io/input_stream.h"
#include "io/io_test_util.h"
#include "io/record_reader.h"
#include "neardup/env.h"
#include "test_util.h"

namespace neardup::io {
namespace {

using testing::GzipMember;
using testing::MakeResponseRecord;
using testing::ReadAll;
using testing::ReadResult;
using testing::SplitWarcRecords;

std::string DataDir() { return neardup::testing::RepoTestDataDir() + "/warc"; }
std::string DataFile(const std::string& name) {
  return neardup::testing::ReadFileOrEmpty(DataDir() + "/" + name);
}

// The 50-record WARC/1.1 file from gowarc, decompressed, as a base for
// damage tests: record i is a response for https://test-site-<i%5>.example.com/page/<i>.
std::string GoodWarc() {
  return neardup::testing::GunzipFileOrDie(DataDir() + "/good.warc.gz.open");
}
std::string PageUrl(int i) {
  return "https://test-site-" + std::to_string(i % 5) + ".example.com/page/" + std::to_string(i);
}
// The same records, each as its own gzip member. *offsets gets member starts.
std::string PerRecordGzip(const std::vector<std::string>& records, std::vector<uint64_t>* offsets) {
  std::string out;
  for (const auto& r : records) {
    if (offsets != nullptr) offsets->push_back(out.size());
    out += GzipMember(r);
  }
  return out;
}

// ---------------------------------------------------------------------------
// Real files. Expected numbers were counted without neardup: a Python script
// using only the standard library's gzip module walks records by
// Content-Length and applies the media-type rules of http_response.cc; for
// the types, `zcat -f FILE | grep -a -c '^WARC-Type: <type>'` agrees.

TEST(WarcReaderTest, RealCopiesCountsMatchIndependentCount) {
  struct Expect {
    const char* file;
    uint64_t docs, records;
    std::map<std::string, uint64_t> skipped;
  };
  const std::vector<Expect> expect = {
      // Its revisit record (uri-agnostic identical payload) is a document.
      {"example.warc.gz", 2, 6, {{"type:request", 2}, {"type:warcinfo", 2}}},
      {"example-iana.org-chunked.warc", 1, 3, {{"type:request", 1}, {"type:warcinfo", 1}}},
      {"example.arc.gz", 1, 2, {{"type:filedesc", 1}}},
      {"redirect.warc", 1, 2, {{"type:request", 1}}},
      {"cc.warc.gz", 1, 1, {}},
      {"good.warc.gz.open", 50, 50, {}},
      {"whirlwind.warc.wet.gz", 1, 2, {{"type:warcinfo", 1}}},
  };
  for (const auto& e : expect) {
    ReadResult r = ReadAll({DataDir() + "/" + e.file}, nullptr);
    EXPECT_EQ(r.stats.documents, e.docs) << e.file;
    EXPECT_EQ(r.docs.size(), e.docs) << e.file;
    EXPECT_EQ(r.stats.records, e.records) << e.file;
    EXPECT_EQ(r.stats.skipped, e.skipped) << e.file << "\n" << r.observer.Dump();
    EXPECT_TRUE(r.observer.warnings.empty()) << r.observer.Dump();
    EXPECT_EQ(r.stats.inputs_opened, 1u);
    EXPECT_EQ(r.bytes_consumed, r.bytes_total) << e.file;
  }
}

TEST(WarcReaderTest, DocumentFields) {
  ReadResult r = ReadAll({DataDir() + "/redirect.warc", DataDir() + "/example-iana.org-chunked.warc",
                          DataDir() + "/whirlwind.warc.wet.gz", DataDir() + "/example.arc.gz",
                          DataDir() + "/example.warc.gz"},
                         nullptr);
  ASSERT_EQ(r.docs.size(), 6u) << r.observer.Dump();
  const Document& redirect = r.docs[0];
  EXPECT_EQ(redirect.url, "https://www.iana.org/domains/example");
  EXPECT_EQ(redirect.http_status, 301);
  EXPECT_EQ(redirect.redirect_target, "https://www.iana.org/domains/reserved");
  EXPECT_EQ(redirect.content_type, "text/html");
  EXPECT_EQ(redirect.declared_charset, "iso-8859-1");
  EXPECT_EQ(redirect.input_index, 0u);
  EXPECT_EQ(redirect.source, DataDir() + "/redirect.warc");
  EXPECT_FALSE(redirect.fetch_date.empty());

  const Document& chunked = r.docs[1];
  EXPECT_EQ(chunked.url, "http://www.iana.org/");
  EXPECT_EQ(chunked.http_status, 200);
  EXPECT_EQ(chunked.kind, ContentKind::kHtml);
  EXPECT_EQ(chunked.body.substr(0, 15), "<!doctype html>");  // chunk sizes removed
  EXPECT_NE(chunked.body.find("</html>"), std::string::npos);
  EXPECT_EQ(chunked.body.find("\r\n0\r\n"), std::string::npos);
  EXPECT_EQ(chunked.input_index, 1u);
  // Uncompressed file: the offset is that of the response record itself.
  std::string raw = DataFile("example-iana.org-chunked.warc");
  EXPECT_EQ(raw.compare(chunked.source_offset, 9, "WARC/1.0\r"), 0);

  const Document& wet = r.docs[2];
  EXPECT_EQ(wet.kind, ContentKind::kText);
  EXPECT_EQ(wet.content_type, "text/plain");
  EXPECT_EQ(wet.http_status, 0);

  const Document& arc = r.docs[3];
  EXPECT_EQ(arc.url, "http://example.com/");
  EXPECT_EQ(arc.fetch_date, "2014-02-16T05:02:21Z");
  EXPECT_EQ(arc.http_status, 200);
  EXPECT_NE(arc.body.find("Example Domain"), std::string::npos);

  const Document& gz = r.docs[4];
  EXPECT_EQ(gz.url, "http://example.com/");
  EXPECT_EQ(gz.fetch_date, "2017-03-06T04:02:06Z");
  // Per-record gzip: the offset names the gzip member in the .gz file.
  std::string file = DataFile("example.warc.gz");
  ASSERT_LT(gz.source_offset + 3, file.size());
  EXPECT_EQ(static_cast<unsigned char>(file[gz.source_offset]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(file[gz.source_offset + 1]), 0x8b);

  // The revisit of that capture: no body, the capture named by URL and date.
  const Document& revisit = r.docs[5];
  EXPECT_EQ(revisit.url, "http://example.com/");
  EXPECT_EQ(revisit.fetch_date, "2017-03-06T04:03:48Z");
  EXPECT_EQ(revisit.revisit_of, "http://example.com/");
  EXPECT_EQ(revisit.revisit_of_date, gz.fetch_date);
  EXPECT_EQ(revisit.http_status, 200);
  EXPECT_TRUE(revisit.body.empty());
  EXPECT_TRUE(gz.revisit_of.empty());
}

TEST(WarcReaderTest, GzipAndPlainGiveTheSameDocuments) {
  MemEnv env;
  std::string plain = GoodWarc();
  std::vector<std::string> records = SplitWarcRecords(plain);
  ASSERT_EQ(records.size(), 50u);
  std::vector<uint64_t> offsets;
  env.AddFile("plain.warc", plain);
  env.AddFile("per-record.warc.gz", PerRecordGzip(records, &offsets));
  env.AddFile("whole.warc.gz", GzipMember(plain));
  ReadResult r = ReadAll({"plain.warc", "per-record.warc.gz", "whole.warc.gz"}, &env);
  ASSERT_EQ(r.docs.size(), 150u) << r.observer.Dump();
  uint64_t plain_offset = 0;
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(r.docs[i].url, PageUrl(i));
    EXPECT_EQ(r.docs[i].body, r.docs[i + 50].body);
    EXPECT_EQ(r.docs[i].body, r.docs[i + 100].body);
    EXPECT_EQ(r.docs[i].source_offset, plain_offset);
    EXPECT_EQ(r.docs[i + 50].source_offset, offsets[i]);       // gzip member
    EXPECT_EQ(r.docs[i + 100].source_offset, plain_offset);    // decompressed
    EXPECT_EQ(r.docs[i + 100].input_index, 2u);
    plain_offset += records[i].size();
  }
  EXPECT_TRUE(r.observer.warnings.empty()) << r.observer.Dump();
}

TEST(WarcReaderTest, ToleratesQuirks) {
  const std::string body = "<html><body>quirky</body></html>";
  const std::string http = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n";
  const std::string block = http + "\r\n" + body;
  std::string data;
  // Lower-case version line, LF-only headers, single CRLF after the record.
  data += "warc/1.0\nWARC-Type: response\nWARC-Target-URI: <http://a.example/>\nContent-Length: " +
          std::to_string(block.size()) + "\n\n" + block + "\r\n";
  // Folded header values; WARC/0.18.
  data += "WARC/0.18\r\nWARC-Type:\r\n  response\r\nWARC-Target-URI: http://b.example/\r\n"
          "Content-Length:\r\n\t" + std::to_string(block.size()) + "\r\n\r\n" + block + "\r\n\r\n";
  // No trailer at all before the next record; unknown record type.
  data += "WARC/1.1\r\nWARC-Type: Monkeys\r\nContent-Length: 3\r\n\r\nabc";
  data += "WARC/1.1\r\nWARC-Type: resource\r\nWARC-Target-URI: http://c.example/x.txt\r\n"
          "Content-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello\r\n\r\n\r\n\r\n";
  // A conversion record and a revisit.
  data += "WARC/1.0\r\nWARC-Type: conversion\r\nWARC-Target-URI: http://d.example/\r\n"
          "Content-Length: 4\r\n\r\ntext\r\n\r\n";
  data += "WARC/1.0\r\nWARC-Type: revisit\r\nContent-Length: 0\r\n\r\n\r\n\r\n";
  MemEnv env;
  env.AddFile("q.warc", data);
  ReadResult r = ReadAll({"q.warc"}, &env);
  EXPECT_TRUE(r.observer.warnings.empty()) << r.observer.Dump();
  ASSERT_EQ(r.docs.size(), 4u);
  EXPECT_EQ(r.docs[0].url, "http://a.example/");
  EXPECT_EQ(r.docs[0].body, body);
  EXPECT_EQ(r.docs[1].url, "http://b.example/");
  EXPECT_EQ(r.docs[1].body, body);
  EXPECT_EQ(r.docs[2].url, "http://c.example/x.txt");
  EXPECT_EQ(r.docs[2].kind, ContentKind::kText);
  EXPECT_EQ(r.docs[2].body, "hello");
  EXPECT_EQ(r.docs[3].kind, ContentKind::kText);
  EXPECT_EQ(r.skipped("type:monkeys"), 1u);
  EXPECT_EQ(r.skipped("type:revisit"), 1u);
  EXPECT_EQ(r.stats.records, 6u);
}

TEST(WarcReaderTest, RevisitsOfAnEarlierCaptureAreReadWithoutABody) {
  const std::string head = "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n";
  auto revisit = [](const std::string& profile, const std::string& extra, const std::string& block) {
    return "WARC/1.1\r\nWARC-Type: revisit\r\nWARC-Target-URI: <http://a.example/p>\r\n"
           "WARC-Date: 2024-03-01T00:00:00Z\r\nWARC-Profile: " + profile + "\r\n" + extra +
           "Content-Type: application/http; msgtype=response\r\nContent-Length: " + std::to_string(block.size()) +
           "\r\n\r\n" + block + "\r\n\r\n";
  };
  std::string data;
  // Identical payload, naming the capture by URL and date.
  data += revisit("http://netpreserve.org/warc/1.1/revisit/identical-payload-digest",
                  "WARC-Refers-To-Target-URI: http://a.example/p\r\nWARC-Refers-To-Date: 2024-02-01T00:00:00Z\r\n",
                  head);
  // Not modified, naming nothing: its own URL; the 304 is not skipped.
  data += revisit("http://netpreserve.org/warc/1.0/revisit/server-not-modified", "",
                  "HTTP/1.1 304 Not Modified\r\n\r\n");
  // Another URL's payload (uri-agnostic), of a 3xx: read as that redirect.
  data += revisit("http://netpreserve.org/warc/1.0/revisit/uri-agnostic-identical-payload-digest",
                  "WARC-Refers-To-Target-URI: http://b.example/\r\n",
                  "HTTP/1.1 301 Moved\r\nLocation: /q\r\n\r\n");
  // Of non-text media: skipped as such; of an unknown profile: skipped.
  data += revisit("http://netpreserve.org/warc/1.1/revisit/identical-payload-digest", "",
                  "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n");
  data += revisit("http://example.org/profiles/other", "", head);
  MemEnv env;
  env.AddFile("r.warc", data);
  ReadResult r = ReadAll({"r.warc"}, &env);
  EXPECT_TRUE(r.observer.warnings.empty()) << r.observer.Dump();
  ASSERT_EQ(r.docs.size(), 3u);
  EXPECT_EQ(r.docs[0].url, "http://a.example/p");
  EXPECT_EQ(r.docs[0].fetch_date, "2024-03-01T00:00:00Z");
  EXPECT_EQ(r.docs[0].revisit_of, "http://a.example/p");
  EXPECT_EQ(r.docs[0].revisit_of_date, "2024-02-01T00:00:00Z");
  EXPECT_EQ(r.docs[0].http_status, 200);
  EXPECT_EQ(r.docs[0].content_type, "text/html");
  EXPECT_TRUE(r.docs[0].body.empty());
  EXPECT_EQ(r.docs[1].revisit_of, "http://a.example/p");
  EXPECT_TRUE(r.docs[1].revisit_of_date.empty());
  EXPECT_EQ(r.docs[1].http_status, 304);
  EXPECT_EQ(r.docs[2].revisit_of, "http://b.example/");
  EXPECT_EQ(r.docs[2].http_status, 301);
  EXPECT_EQ(r.docs[2].redirect_target, "/q");
  EXPECT_EQ(r.skipped("non-text"), 1u);
  EXPECT_EQ(r.skipped("type:revisit"), 1u);
}

TEST(WarcReaderTest, HttpBodiesAreDecoded) {
  const std::string html = "<html><body><p>" + std::string(5000, 'w') + "</p></body></html>";
  std::string chunked;
  for (size_t i = 0; i < html.size(); i += 1000) {
    std::string part = html.substr(i, 1000);
    char hex[16];
    std::snprintf(hex, sizeof hex, "%zx", part.size());
    chunked += std::string(hex) + "\r\n" + part + "\r\n";
  }
  chunked += "0\r\n\r\n";
  std::string gz = GzipMember(html);
  std::string gz_chunked = "10\r\n" + gz.substr(0, 16) + "\r\n" +
                           [&] { char h[16]; std::snprintf(h, sizeof h, "%zx", gz.size() - 16); return std::string(h); }() +
                           "\r\n" + gz.substr(16) + "\r\n0\r\n\r\n";
  static const char kBrotli[] =
      "\x1b\x47\x00\x00\x44\x37\x97\xea\xe8\xa2\xa1\xc8\xb2\x25\x9b\x14\x04\xe5\x1c\x36\xe0\xc0"
      "\x25\x7b\xa2\x41\x07\x19\x78\xf0\x90\x95\x62\x68\xf2\x41\x49\x30\x49\x0f\xa1\x1f\x63\xbb"
      "\x85\x7c\xfb\xa7\xe1\xf9\x82\xd2\x47\xef\x8e\x12\x94\xb5\x00";
  const std::string br(kBrotli, sizeof kBrotli - 1);
  std::string data;
  data += MakeResponseRecord("http://e/chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n", chunked);
  data += MakeResponseRecord("http://e/gzip", "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n", gz);
  data += MakeResponseRecord("http://e/xgzip-chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: x-gzip\r\n", gz_chunked);
  data += MakeResponseRecord("http://e/deflate", "HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\n", testing::Deflate(html, false));
  data += MakeResponseRecord("http://e/rawdeflate", "HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\n", testing::Deflate(html, true));
  data += MakeResponseRecord("http://e/br", "HTTP/1.1 200 OK\r\nContent-Encoding: br\r\n", br);
  // Declared gzip but stored decoded (common in crawls): raw body kept.
  data += MakeResponseRecord("http://e/stored-decoded", "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n", html);
  // Declared chunked but stored de-chunked: raw body kept.
  data += MakeResponseRecord("http://e/dechunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n", html);
  // Binary body with a failing coding: skipped as bad-http.
  data += MakeResponseRecord("http://e/broken-br", "HTTP/1.1 200 OK\r\nContent-Encoding: br\r\n",
                             std::string("\x00\x01\x02\x03\xff\xfe\x00\x10\x11\x12", 10));
  data += MakeResponseRecord("http://e/moved", "HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Type: text/html; charset=Shift_JIS\r\n", "");
  data += MakeResponseRecord("http://e/missing", "HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\n", "gone");
  data += MakeResponseRecord("http://e/img", "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n", "\x89PNG");
  data += MakeResponseRecord("http://e/plain", "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\n", "just text");
  MemEnv env;
  env.AddFile("h.warc", data);
  ReadResult r = ReadAll({"h.warc"}, &env);
  ASSERT_EQ(r.docs.size(), 11u) << r.observer.Dump();
  for (int i = 0; i < 6; ++i) {
    if (r.docs[i].url == "http://e/br") {
      EXPECT_EQ(r.docs[i].body, "<html><body><p>Hello brotli world, hello brotli world.</p></body></html>");
    } else {
      EXPECT_EQ(r.docs[i].body, html) << r.docs[i].url;
    }
  }
  EXPECT_EQ(r.docs[6].body, html);
  EXPECT_EQ(r.docs[7].body, html);
  EXPECT_EQ(r.docs[8].url, "http://e/moved");
  EXPECT_EQ(r.docs[8].http_status, 302);
  EXPECT_EQ(r.docs[8].redirect_target, "/elsewhere");
  EXPECT_EQ(r.docs[8].declared_charset, "shift_jis");
  EXPECT_EQ(r.docs[9].http_status, 404);
  EXPECT_EQ(r.docs[10].kind, ContentKind::kText);
  EXPECT_EQ(r.skipped("non-text"), 1u);
  EXPECT_EQ(r.skipped("bad-http"), 1u);
  const ReadWarning* w = r.observer.Find("bad-http");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->file, "h.warc");
  EXPECT_EQ(data.compare(w->offset, 8, "WARC/1.0"), 0);

  SourceOptions only_2xx;
  only_2xx.keep_non_2xx = false;
  ReadResult r2 = ReadAll({"h.warc"}, &env, only_2xx);
  EXPECT_EQ(r2.docs.size(), 9u);
  EXPECT_EQ(r2.skipped("http-status"), 2u);
}

// ---------------------------------------------------------------------------
// Damage. Each case checks: a warning naming file, offset and reason; the
// run goes on; documents after the damage are read.

TEST(WarcDamageTest, TruncatedInTheMiddleOfARecord) {
  std::string plain = GoodWarc();
  std::vector<std::string> records = SplitWarcRecords(plain);
  size_t cut = 0;
  for (int i = 0; i < 20; ++i) cut += records[i].size();
  const uint64_t rec20 = cut;
  cut += records[20].size() / 2;
  std::vector<uint64_t> offsets;
  std::string gz = PerRecordGzip(records, &offsets);
  MemEnv env;
  env.AddFile("t.warc", plain.substr(0, cut));
  env.AddFile("t.warc.gz", gz.substr(0, offsets[20] + (offsets[21] - offsets[20]) / 2));
  env.AddFile("after.warc", records[0]);
  ReadResult r = ReadAll({"t.warc", "t.warc.gz", "after.warc"}, &env);
  ASSERT_EQ(r.docs.size(), 41u) << r.observer.Dump();
  EXPECT_EQ(r.docs[19].url, PageUrl(19));
  EXPECT_EQ(r.docs[39].url, PageUrl(19));
  EXPECT_EQ(r.docs[40].source, "after.warc");
  ASSERT_EQ(r.observer.warnings.size(), 2u) << r.observer.Dump();
  EXPECT_EQ(r.observer.warnings[0].file, "t.warc");
  EXPECT_EQ(r.observer.warnings[0].reason_key, "truncated");
  EXPECT_EQ(r.observer.warnings[0].offset, rec20);
  EXPECT_EQ(r.observer.warnings[1].file, "t.warc.gz");
  EXPECT_EQ(r.observer.warnings[1].reason_key, "truncated-gzip");
  EXPECT_EQ(r.observer.warnings[1].offset, offsets[20]);
}

TEST(WarcDamageTest, CorruptByteInAGzipMember) {
  std::vector<std::string> records = SplitWarcRecords(GoodWarc());
  std::vector<uint64_t> offsets;
  std::string gz = PerRecordGzip(records, &offsets);
  uint64_t mid = (offsets[10] + offsets[11]) / 2;
  gz[mid] = static_cast<char>(gz[mid] ^ 0xA5);
  gz[mid + 1] = static_cast<char>(gz[mid + 1] ^ 0x5A);
  MemEnv env;
  env.AddFile("c.warc.gz", gz);
  ReadResult r = ReadAll({"c.warc.gz"}, &env);
  EXPECT_EQ(r.docs.size(), 49u) << r.observer.Dump();
  EXPECT_FALSE(r.HasUrl(PageUrl(10)));
  EXPECT_TRUE(r.HasUrl(PageUrl(11)));
  EXPECT_TRUE(r.HasUrl(PageUrl(49)));
  ASSERT_EQ(r.observer.warnings.size(), 1u) << r.observer.Dump();
  EXPECT_EQ(r.observer.warnings[0].reason_key, "corrupt-gzip");
  EXPECT_EQ(r.observer.warnings[0].offset, offsets[10]);
  EXPECT_FALSE(r.observer.warnings[0].in_decompressed_stream);
  EXPECT_EQ(r.skipped("corrupt-gzip"), 1u);
}

TEST(WarcDamageTest, CorruptByteInWholeFileGzip) {
  // About 4 MB of records in one gzip member, damaged at three quarters:
  // records decoded well before the damage are returned, records from the
  // last MiB before the failure are dropped as suspect, the run goes on.
  std::vector<std::string> records = SplitWarcRecords(GoodWarc());
  std::string plain;
  int n = 0;
  while (plain.size() < (4u << 20)) plain += records[n++ % 50];
  std::string gz = GzipMember(plain, 1);
  size_t at = gz.size() * 3 / 4;
  for (size_t i = 0; i < 8; ++i) gz[at + i] = static_cast<char>(gz[at + i] ^ 0xFF);
  MemEnv env;
  env.AddFile("w.warc.gz", gz);
  env.AddFile("next.warc", records[7]);
  ReadResult r = ReadAll({"w.warc.gz", "next.warc"}, &env);
  const ReadWarning* w = r.observer.Find("corrupt-gzip");
  ASSERT_NE(w, nullptr) << r.observer.Dump();
  EXPECT_EQ(w->offset, 0u);
  EXPECT_EQ(w->file, "w.warc.gz");
  EXPECT_GT(r.docs.size(), static_cast<size_t>(n / 2));
  EXPECT_LT(r.docs.size(), static_cast<size_t>(n));
  EXPECT_EQ(r.docs[0].url, PageUrl(0));
  EXPECT_EQ(r.docs.back().source, "next.warc");
  for (const auto& d : r.docs) EXPECT_NE(d.body.find("</html>"), std::string::npos) << d.url;
}

TEST(WarcDamageTest, ContentLengthTooLongAndTooShort) {
  std::vector<std::string> records = SplitWarcRecords(GoodWarc());
  auto with_length_delta = [&](int delta) {
    std::string out;
    uint64_t off = 0, damaged = 0;
    for (size_t i = 0; i < records.size(); ++i) {
      std::string rec = records[i];
      if (i == 10) {
        damaged = off;
        size_t p = rec.find("Content-Length: ") + 16;
        size_t e = rec.find("\r\n", p);
        long n = std::stol(rec.substr(p, e - p));
        rec.replace(p, e - p, std::to_string(n + delta));
      }
      off += rec.size();
      out += rec;
    }
    return std::make_pair(out, damaged);
  };
  for (int delta : {+100, -20}) {
    auto [data, damaged] = with_length_delta(delta);
    MemEnv env;
    env.AddFile("l.warc", data);
    std::vector<uint64_t> offsets;
    std::vector<std::string> gz_records = SplitWarcRecords(data);
    ASSERT_EQ(gz_records.size(), 50u);
    env.AddFile("l.warc.gz", PerRecordGzip(gz_records, &offsets));
    for (const char* file : {"l.warc", "l.warc.gz"}) {
      ReadResult r = ReadAll({file}, &env);
      SCOPED_TRACE(std::string(file) + " delta " + std::to_string(delta));
      ASSERT_FALSE(r.observer.warnings.empty());
      const ReadWarning& w = r.observer.warnings[0];
      EXPECT_EQ(w.file, file);
      if (delta > 0) {
        // Runs into the next record: the record is dropped, the next is read.
        EXPECT_EQ(w.reason_key, "bad-length") << r.observer.Dump();
        EXPECT_EQ(w.offset, std::string(file) == "l.warc" ? damaged : offsets[10]);
        EXPECT_FALSE(r.HasUrl(PageUrl(10)));
        EXPECT_EQ(r.docs.size(), 49u);
      } else {
        // Leaves bytes behind: the record is kept (body cut), the rest is
        // reported as garbage at the offset where the declared block ended.
        EXPECT_EQ(w.reason_key, "garbage") << r.observer.Dump();
        EXPECT_TRUE(r.HasUrl(PageUrl(10)));
        EXPECT_EQ(r.docs.size(), 50u);
      }
      EXPECT_TRUE(r.HasUrl(PageUrl(11)));
      EXPECT_TRUE(r.HasUrl(PageUrl(49)));
    }
  }
}

TEST(WarcDamageTest, MissingOrInvalidContentLength) {
  std::vector<std::string> records = SplitWarcRecords(GoodWarc());
  std::string data;
  uint64_t bad_off = 0;
  for (size_t i = 0; i < 5; ++i) {
    std::string rec = records[i];
    if (i == 2) {
      bad_off = data.size();
      size_t p = rec.find("Content-Length: ");
      rec.replace(p, 16, "Content-Length: x");
    }
    data += rec;
  }
  MemEnv env;
  env.AddFile("m.warc", data);
  ReadResult r = ReadAll({"m.warc"}, &env);
  EXPECT_EQ(r.docs.size(), 4u);
  ASSERT_EQ(r.observer.warnings.size(), 1u) << r.observer.Dump();
  EXPECT_EQ(r.observer.warnings[0].reason_key, "bad-length");
  EXPECT_EQ(r.observer.warnings[0].offset, bad_off);
  EXPECT_TRUE(r.HasUrl(PageUrl(3)));
}

TEST(WarcDamageTest, GarbageBetweenRecords) {
  std::vector<std::string> records = SplitWarcRecords(GoodWarc());
  std::string plain, gz;
  uint64_t plain_garbage = 0, gz_garbage = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    if (i == 5) {
      plain_garbage = plain.size();
      gz_garbage = gz.size();
      plain += "this is not a record\r\n\x01\x02\x03 more junk\r\n";
      gz += std::string("\x13\x37junk bytes between members\xff\xfe", 30);
    }
    plain += records[i];
    gz += GzipMember(records[i]);
  }
  MemEnv env;
  env.AddFile("g.warc", plain);
  env.AddFile("g.warc.gz", gz);
  ReadResult r = ReadAll({"g.warc", "g.warc.gz"}, &env);
  EXPECT_EQ(r.docs.size(), 100u) << r.observer.Dump();
  ASSERT_EQ(r.observer.warnings.size(), 2u) << r.observer.Dump();
  EXPECT_EQ(r.observer.warnings[0].file, "g.warc");
  EXPECT_EQ(r.observer.warnings[0].reason_key, "garbage");
  EXPECT_EQ(r.observer.warnings[0].offset, plain_garbage);
  EXPECT_EQ(r.observer.warnings[1].file, "g.warc.gz");
  EXPECT_EQ(r.observer.warnings[1].reason_key, "garbage");
  EXPECT_EQ(r.observer.warnings[1].offset, gz_garbage);
}

TEST(WarcDamageTest, BinaryGarbageEmptyMissingAndUnreadable) {
  std::string random;
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 100000; ++i) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    random.push_back(static_cast<char>(x));
  }
  std::vector<std::string> records = SplitWarcRecords(GoodWarc());
  MemEnv env;
  env.AddFile("random.warc", random);
  env.AddFile("empty.warc", "");
  env.AddFile("mixed.warc", records[0] + random + "\r\n" + records[1]);
  env.AddFile("readerr.warc", records[0] + records[1] + records[2]);
  env.FailReadsAfter("readerr.warc", records[0].size() + 100);
  env.AddFile("last.warc", records[3]);
  ReadResult r = ReadAll({"random.warc", "empty.warc", "no/such/dir", "mixed.warc",
                          "readerr.warc", "last.warc"},
                         &env);
  auto find = [&](const std::string& file, const std::string& key) -> const ReadWarning* {
    for (const auto& w : r.observer.warnings) {
      if (w.file == file && w.reason_key == key) return &w;
    }
    return nullptr;
  };
  EXPECT_NE(find("random.warc", "unknown-format"), nullptr) << r.observer.Dump();
  EXPECT_NE(find("empty.warc", "empty-file"), nullptr);
  EXPECT_NE(find("no/such/dir", "unreadable-file"), nullptr);
  const ReadWarning* g = find("mixed.warc", "garbage");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->offset, records[0].size());
  const ReadWarning* e = find("readerr.warc", "read-error");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->offset, records[0].size() + 100);
  // mixed: records 0 and 1; readerr: record 0; last: record 3.
  ASSERT_EQ(r.docs.size(), 4u) << r.observer.Dump();
  EXPECT_EQ(r.docs[1].url, PageUrl(1));
  EXPECT_EQ(r.docs[2].source, "readerr.warc");
  EXPECT_EQ(r.docs[3].url, PageUrl(3));
  EXPECT_EQ(r.docs[3].input_index, 5u);
}

TEST(WarcDamageTest, InvalidUtf8InHeadersIsCarriedNotFatal) {
  // Header bytes are taken as they are: the URL keeps its raw bytes, a
  // garbled header line is ignored, and the following record is read.
  std::string block = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-\xff\xfe: \xc3\x28\r\n\r\n<p>x</p>";
  std::string data = "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://ex\xe9mple.org/\xff\r\n"
                     "\xfe\xfe\xfe\r\nContent-Length: " + std::to_string(block.size()) + "\r\n\r\n" +
                     block + "\r\n\r\n";
  data += SplitWarcRecords(GoodWarc())[4];
  MemEnv env;
  env.AddFile("u.warc", data);
  ReadResult r = ReadAll({"u.warc"}, &env);
  ASSERT_EQ(r.docs.size(), 2u) << r.observer.Dump();
  EXPECT_EQ(r.docs[0].url, "http://ex\xe9mple.org/\xff");
  EXPECT_EQ(r.docs[0].body, "<p>x</p>");
  EXPECT_EQ(r.docs[1].url, PageUrl(4));
}

// A 200 MB record between two normal ones: skipped as record-too-large while
// the reader holds no more than its read window; the next record is read.
TEST(WarcDamageTest, HugeRecordIsStreamedPast) {
  std::string dir = neardup::testing::MakeTempDir("huge-record");
  std::vector<std::string> records = SplitWarcRecords(GoodWarc());
  const uint64_t kHuge = 200ull << 20;
  const std::string plain_path = dir + "/huge.warc";
  const std::string gz_path = dir + "/huge.warc.gz";
  {
    std::ofstream out(plain_path, std::ios::binary);
    std::ofstream gz(gz_path, std::ios::binary);
    out << records[0];
    gz << GzipMember(records[0]);
    std::string head = "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://huge/\r\n"
                       "Content-Type: application/http; msgtype=response\r\nContent-Length: " +
                       std::to_string(kHuge) + "\r\n\r\n";
    out << head;
    // The gzip copy streams the same record through one deflate stream.
    z_stream zs{};
    deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    std::string zbuf(1 << 20, '\0');
    auto zput = [&](const std::string& piece, int flush) {
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(piece.data()));
      zs.avail_in = static_cast<uInt>(piece.size());
      do {
        zs.next_out = reinterpret_cast<Bytef*>(zbuf.data());
        zs.avail_out = static_cast<uInt>(zbuf.size());
        deflate(&zs, flush);
        gz.write(zbuf.data(), static_cast<std::streamsize>(zbuf.size() - zs.avail_out));
      } while (zs.avail_out == 0);
    };
    zput(head, Z_NO_FLUSH);
    std::string chunk(1 << 20, 'h');
    for (uint64_t done = 0; done < kHuge; done += chunk.size()) {
      out << chunk;
      zput(chunk, Z_NO_FLUSH);
    }
    out << "\r\n\r\n" << records[1];
    zput("\r\n\r\n", Z_FINISH);
    deflateEnd(&zs);
    gz << GzipMember(records[1]);
  }
  for (const std::string& path : {plain_path, gz_path}) {
    SCOPED_TRACE(path);
    SourceOptions options;  // max_record_bytes = 64 MiB
    ReadStats stats;
    testing::CollectingObserver observer;
    ReaderContext ctx{&options, &stats, &observer, path, 0};
    auto file = Env::Default()->NewSequentialFile(path);
    ASSERT_TRUE(file.ok());
    InputStream in(file.value().get(), &ctx);
    in.Init();
    auto reader = NewWarcReader(&in, &ctx);
    std::vector<std::string> urls;
    Document d;
    while (reader->Next(&d)) urls.push_back(d.url);
    EXPECT_EQ(urls, (std::vector<std::string>{PageUrl(0), PageUrl(1)}));
    ASSERT_EQ(observer.warnings.size(), 1u) << observer.Dump();
    EXPECT_EQ(observer.warnings[0].reason_key, "record-too-large");
    EXPECT_EQ(observer.warnings[0].file, path);
    // Plain: the window never grows past the read chunk. Gzip: one 200 MB
    // member streams through zlib after libdeflate gave up at 64 MiB.
    EXPECT_LE(in.peak_buffer_capacity(), 100u << 20);
    if (path == plain_path) {
      EXPECT_LE(in.peak_buffer_capacity(), 16u << 20);
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(ArcReaderTest, ParsesV1Records) {
  std::string http = "HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<html>arc page</html>";
  const std::string version_block =
      "1 0 InternetArchive\nURL IP-address Archive-date Content-type Archive-length\n";
  std::string data = "filedesc://x.arc 0.0.0.0 20080430204825 text/plain " +
                     std::to_string(version_block.size()) + "\n" + version_block + "\n" +
                     "http://a.example/with space 1.2.3.4 20080430204826 text/html " +
                     std::to_string(http.size()) + "\n" + http + "\n" +
                     "dns:a.example 1.2.3.4 20080430204826 text/dns 9\n1.2.3.4\r\n\n" +
                     "http://b.example/ 1.2.3.4 20080430204827 text/plain 5\nhello\n";
  MemEnv env;
  env.AddFile("a.arc", data);
  ReadResult r = ReadAll({"a.arc"}, &env);
  EXPECT_TRUE(r.observer.warnings.empty()) << r.observer.Dump();
  ASSERT_EQ(r.docs.size(), 2u);
  EXPECT_EQ(r.docs[0].url, "http://a.example/with space");
  EXPECT_EQ(r.docs[0].body, "<html>arc page</html>");
  EXPECT_EQ(r.docs[0].fetch_date, "2008-04-30T20:48:26Z");
  EXPECT_EQ(r.docs[1].kind, ContentKind::kText);
  EXPECT_EQ(r.docs[1].body, "hello");
  EXPECT_EQ(r.skipped("type:filedesc"), 1u);
  EXPECT_EQ(r.skipped("non-text"), 1u);
}

}  // namespace
}  // namespace neardup::io
