// Copyright neardup authors. Licensed under Apache-2.0.
#include <gtest/gtest.h>
#include <zstd.h>

#include <string>

#include "io/io_test_util.h"
#include "neardup/env.h"

namespace neardup::io {
namespace {

using testing::GzipMember;
using testing::ReadAll;
using testing::ReadResult;

const char kLines[] =
    "{\"url\": \"http://a/\", \"html\": \"<p>caf\\u00e9 \\\"quoted\\\"</p>\", \"date\": \"2024-01-02\", \"status\": 200}\n"
    "\n"
    "{\"url\": \"http://b/\", \"text\": \"plain words\", \"fetch_date\": \"2023-03-04T00:00:00Z\"}\r\n"
    "not json at all\n"
    "{\"url\": \"http://c/\"}\n"
    "[1, 2, 3]\n"
    "{\"url\": 5, \"html\": \"x\"}\n"
    "{\"url\": \"http://d/\", \"html\": \"last line without newline\"}";

TEST(JsonlReaderTest, PlainGzipZstdAndStdin) {
  std::string plain = kLines;
  std::string z(ZSTD_compressBound(plain.size()), '\0');
  z.resize(ZSTD_compress(z.data(), z.size(), plain.data(), plain.size(), 3));
  MemEnv env;
  env.AddFile("p.jsonl", plain);
  env.AddFile("g.jsonl.gz", GzipMember(plain));
  env.AddFile("z.jsonl.zst", z);
  env.AddFile("-", plain);  // stands in for standard input
  for (const char* name : {"p.jsonl", "g.jsonl.gz", "z.jsonl.zst", "-"}) {
    SCOPED_TRACE(name);
    ReadResult r = ReadAll({name}, &env);
    ASSERT_EQ(r.docs.size(), 3u) << r.observer.Dump();
    EXPECT_EQ(r.docs[0].url, "http://a/");
    EXPECT_EQ(r.docs[0].body, "<p>caf\xc3\xa9 \"quoted\"</p>");
    EXPECT_EQ(r.docs[0].kind, ContentKind::kHtml);
    EXPECT_EQ(r.docs[0].fetch_date, "2024-01-02");
    EXPECT_EQ(r.docs[0].http_status, 200);
    EXPECT_EQ(r.docs[1].kind, ContentKind::kText);
    EXPECT_EQ(r.docs[1].body, "plain words");
    EXPECT_EQ(r.docs[1].fetch_date, "2023-03-04T00:00:00Z");
    EXPECT_EQ(r.docs[2].body, "last line without newline");
    EXPECT_EQ(r.skipped("bad-json"), 4u);
    ASSERT_EQ(r.observer.warnings.size(), 4u);
    // Offsets are those of the bad lines (in the decompressed stream when
    // the file is compressed).
    const uint64_t bad_line = plain.find("not json");
    EXPECT_EQ(r.observer.warnings[0].offset, bad_line);
    EXPECT_EQ(r.observer.warnings[0].in_decompressed_stream, std::string(name) != "p.jsonl" && std::string(name) != "-");
    EXPECT_EQ(r.observer.warnings[1].offset, plain.find("{\"url\": \"http://c/\"}"));
    EXPECT_EQ(r.stats.records, 7u);
  }
}

TEST(JsonlReaderTest, OverlongLineIsSkipped) {
  SourceOptions options;
  options.max_record_bytes = 1000;
  std::string data = "{\"url\": \"u1\", \"html\": \"" + std::string(5000, 'x') + "\"}\n" +
                     "{\"url\": \"u2\", \"html\": \"short\"}\n";
  MemEnv env;
  env.AddFile("long.jsonl", data);
  ReadResult r = ReadAll({"long.jsonl"}, &env, options);
  ASSERT_EQ(r.docs.size(), 1u) << r.observer.Dump();
  EXPECT_EQ(r.docs[0].url, "u2");
  ASSERT_NE(r.observer.Find("record-too-large"), nullptr);
  EXPECT_EQ(r.observer.Find("record-too-large")->offset, 0u);
}

TEST(JsonlReaderTest, RedirectsNeedA3xxStatusAndNoBody) {
  const std::string data =
      "{\"url\": \"http://a/old\", \"status\": 301, \"redirect\": \"/new\"}\n"
      "{\"url\": \"http://a/moved\", \"status\": 302, \"redirect\": \"http://b/\", \"html\": \"<p>Found</p>\"}\n"
      "{\"url\": \"http://a/wrong\", \"redirect\": \"/x\", \"html\": \"<p>a page</p>\"}\n"
      "{\"url\": \"http://a/bare\", \"status\": 301}\n";
  MemEnv env;
  env.AddFile("r.jsonl", data);
  ReadResult r = ReadAll({"r.jsonl"}, &env);
  ASSERT_EQ(r.docs.size(), 2u) << r.observer.Dump();
  EXPECT_EQ(r.docs[0].http_status, 301);
  EXPECT_EQ(r.docs[0].redirect_target, "/new");
  EXPECT_TRUE(r.docs[0].body.empty());
  EXPECT_EQ(r.docs[1].redirect_target, "http://b/");
  EXPECT_EQ(r.docs[1].body, "<p>Found</p>");
  // A Location without a 3xx status, and a 3xx without Location or body.
  EXPECT_EQ(r.skipped("bad-json"), 2u);
  ASSERT_EQ(r.observer.warnings.size(), 2u);
  EXPECT_NE(r.observer.warnings[0].message.find("3xx"), std::string::npos) << r.observer.Dump();
  EXPECT_EQ(r.observer.warnings[0].offset, data.find("{\"url\": \"http://a/wrong\""));
}

TEST(JsonlReaderTest, RevisitsNameACaptureAndHaveNoBody) {
  const std::string data =
      "{\"url\": \"http://a/p\", \"revisit_of\": \"http://a/p\", \"revisit_of_date\": \"2024-02-01T00:00:00Z\"}\n"
      "{\"url\": \"http://a/q\", \"revisit_of\": \"http://a/p\"}\n"
      "{\"url\": \"http://a/r\", \"revisit_of\": \"http://a/p\", \"html\": \"<p>a page</p>\"}\n"
      "{\"url\": \"http://a/s\", \"revisit_of_date\": \"2024-02-01T00:00:00Z\", \"html\": \"<p>a page</p>\"}\n";
  MemEnv env;
  env.AddFile("v.jsonl", data);
  ReadResult r = ReadAll({"v.jsonl"}, &env);
  ASSERT_EQ(r.docs.size(), 2u) << r.observer.Dump();
  EXPECT_EQ(r.docs[0].revisit_of, "http://a/p");
  EXPECT_EQ(r.docs[0].revisit_of_date, "2024-02-01T00:00:00Z");
  EXPECT_TRUE(r.docs[0].body.empty());
  EXPECT_EQ(r.docs[1].revisit_of, "http://a/p");
  EXPECT_TRUE(r.docs[1].revisit_of_date.empty());
  // A revisit with a body of its own, and a date without the capture's URL.
  EXPECT_EQ(r.skipped("bad-json"), 2u);
  ASSERT_EQ(r.observer.warnings.size(), 2u);
  EXPECT_NE(r.observer.warnings[0].message.find("no \"html\""), std::string::npos) << r.observer.Dump();
  EXPECT_EQ(r.observer.warnings[1].offset, data.find("{\"url\": \"http://a/s\""));
}

}  // namespace
}  // namespace neardup::io
