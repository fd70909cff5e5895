// Copyright neardup authors. Licensed under Apache-2.0.
#include "io/warc_writer.h"

#include <gtest/gtest.h>

#include <string>

#include "io/io_test_util.h"
#include "neardup/env.h"

namespace neardup::io {
namespace {

using testing::ReadAll;
using testing::ReadResult;

std::string SampleBody(int i) {
  return "<html><body><h1>Page " + std::to_string(i) + "</h1>" +
         std::string(static_cast<size_t>(100 + 37 * i), static_cast<char>('a' + i % 26)) +
         "</body></html>";
}

std::string WriteSample(MemEnv* env, const std::string& path, const WarcWriterOptions& options) {
  auto file = env->NewWritableFile(path);
  EXPECT_TRUE(file.ok());
  WarcWriter w(file.value().get(), options);
  EXPECT_TRUE(w.WriteWarcinfo("sample.warc.gz", {{"software", "neardup test"}}).ok());
  for (int i = 0; i < 20; ++i) {
    WarcResponse r;
    r.url = "http://site.example/page" + std::to_string(i);
    r.date = "2024-02-0" + std::to_string(1 + i % 9) + "T10:00:00Z";
    r.status = i == 3 ? 301 : (i == 4 ? 404 : 200);
    r.content_type = "text/html; charset=UTF-8";
    if (i == 3) r.headers = {{"Location", "http://site.example/moved"}};
    std::string body = SampleBody(i);
    r.body = body;
    EXPECT_TRUE(w.WriteResponse(r).ok());
  }
  EXPECT_TRUE(w.WriteResource("http://site.example/notes.txt", "", "text/plain", "some notes").ok());
  EXPECT_TRUE(w.WriteRecord("request", "", {{"WARC-Target-URI", "http://site.example/"}}, "GET / HTTP/1.1\r\n\r\n").ok());
  EXPECT_EQ(w.records_written(), 23u);
  EXPECT_TRUE(w.Close().ok());
  EXPECT_FALSE(w.WriteResource("u", "", "text/plain", "x").ok());
  return env->GetContents(path).value();
}

TEST(WarcWriterTest, RoundTripsThroughTheReader) {
  for (bool gzip : {true, false}) {
    SCOPED_TRACE(gzip ? "gzip" : "plain");
    MemEnv env;
    WarcWriterOptions options;
    options.gzip = gzip;
    options.payload_digest = true;
    std::string bytes = WriteSample(&env, "out.warc", options);
    if (gzip) {
      EXPECT_EQ(static_cast<unsigned char>(bytes[0]), 0x1f);
    } else {
      EXPECT_EQ(bytes.substr(0, 8), "WARC/1.1");
    }
    ReadResult r = ReadAll({"out.warc"}, &env);
    EXPECT_TRUE(r.observer.warnings.empty()) << r.observer.Dump();
    ASSERT_EQ(r.docs.size(), 21u);
    EXPECT_EQ(r.stats.records, 23u);
    EXPECT_EQ(r.skipped("type:warcinfo"), 1u);
    EXPECT_EQ(r.skipped("type:request"), 1u);
    for (int i = 0; i < 20; ++i) {
      const Document& d = r.docs[static_cast<size_t>(i)];
      EXPECT_EQ(d.url, "http://site.example/page" + std::to_string(i));
      EXPECT_EQ(d.fetch_date, "2024-02-0" + std::to_string(1 + i % 9) + "T10:00:00Z");
      EXPECT_EQ(d.content_type, "text/html");
      EXPECT_EQ(d.declared_charset, "utf-8");
      EXPECT_EQ(d.body, SampleBody(i));
    }
    EXPECT_EQ(r.docs[3].http_status, 301);
    EXPECT_EQ(r.docs[3].redirect_target, "http://site.example/moved");
    EXPECT_EQ(r.docs[4].http_status, 404);
    EXPECT_EQ(r.docs[20].kind, ContentKind::kText);
    EXPECT_EQ(r.docs[20].body, "some notes");
    EXPECT_EQ(r.docs[20].fetch_date, "2024-01-01T00:00:00Z");
  }
}

TEST(WarcWriterTest, DeterministicIdsAndDigests) {
  MemEnv env;
  WarcWriterOptions options;
  options.payload_digest = true;
  std::string a = WriteSample(&env, "a", options);
  std::string b = WriteSample(&env, "b", options);
  EXPECT_EQ(a, b);
  options.seed = 99;
  EXPECT_NE(WriteSample(&env, "c", options), a);
  EXPECT_EQ(WarcWriter::RecordId(1, 2), WarcWriter::RecordId(1, 2));
  EXPECT_NE(WarcWriter::RecordId(1, 2), WarcWriter::RecordId(1, 3));
  EXPECT_NE(WarcWriter::RecordId(1, 2), WarcWriter::RecordId(2, 2));
  EXPECT_EQ(WarcWriter::RecordId(7, 0).size(), std::string("<urn:uuid:12345678-1234-1234-1234-123456789012>").size());
  // Known SHA-1 values (base32, as WARC digests write them).
  EXPECT_EQ(Sha1Base32("abc"), "VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5");
  EXPECT_EQ(Sha1Base32(""), "3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
  EXPECT_EQ(Sha1Base32(std::string(1000, 'a')), "FEPJU3DGTFEUTNL3UXTFANQ6TD6DNMN2");
  WarcWriterOptions plain;
  plain.gzip = false;
  plain.payload_digest = true;
  std::string text = WriteSample(&env, "d", plain);
  EXPECT_NE(text.find("WARC-Payload-Digest: sha1:"), std::string::npos);
  EXPECT_NE(text.find("WARC-Record-ID: " + WarcWriter::RecordId(1234, 0)), std::string::npos);
}

TEST(WarcWriterTest, OptionsAndWriteErrors) {
  WarcWriterOptions o;
  EXPECT_TRUE(o.Validate().ok());
  o.gzip_level = 0;
  EXPECT_TRUE(o.Validate().IsInvalidArgument());
  MemEnv env;
  env.FailWritesAfter("full", 100);
  auto file = env.NewWritableFile("full");
  WarcWriter w(file.value().get(), WarcWriterOptions());
  WarcResponse r;
  r.url = "http://x/";
  std::string body(5000, 'b');
  r.body = body;
  EXPECT_FALSE(w.WriteResponse(r).ok());
}

}  // namespace
}  // namespace neardup::io
