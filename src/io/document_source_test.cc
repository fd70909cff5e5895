// Copyright neardup authors. Licensed under Apache-2.0.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "io/io_test_util.h"
#include "neardup/env.h"
#include "neardup/source.h"
#include "test_util.h"

namespace neardup::io {
namespace {

using testing::GzipMember;
using testing::ReadAll;
using testing::ReadResult;

TEST(SourceOptionsTest, Validate) {
  SourceOptions o;
  EXPECT_TRUE(o.Validate().ok());
  o.max_record_bytes = 0;
  EXPECT_TRUE(o.Validate().IsInvalidArgument());
  o = SourceOptions();
  o.folder_extensions = {"html"};
  EXPECT_TRUE(o.Validate().IsInvalidArgument());
  o.folder_extensions = {".HTML"};
  EXPECT_TRUE(o.Validate().IsInvalidArgument());
  EXPECT_FALSE(OpenDocumentSource({"x"}, o, nullptr, nullptr).ok());
}

TEST(FolderSourceTest, RecursiveSortedWithGz) {
  MemEnv env;
  env.AddFile("crawl/b/page2.html.gz", GzipMember("<p>two</p>"));
  env.AddFile("crawl/a/page1.HTM", "<p>one</p>");
  env.AddFile("crawl/a/notes.txt", "plain notes");
  env.AddFile("crawl/a/image.png", "\x89PNG");
  env.AddFile("crawl/c/deep/er/page3.html", "<p>three</p>");
  env.AddFile("crawl/c/data.json", "{}");
  env.AddFile("crawl/empty.html", "");
  ReadResult r = ReadAll({"crawl/"}, &env);
  ASSERT_EQ(r.docs.size(), 4u) << r.observer.Dump();
  EXPECT_EQ(r.docs[0].url, "crawl/a/notes.txt");
  EXPECT_EQ(r.docs[0].kind, ContentKind::kText);
  EXPECT_EQ(r.docs[0].body, "plain notes");
  EXPECT_EQ(r.docs[1].url, "crawl/a/page1.HTM");
  EXPECT_EQ(r.docs[1].kind, ContentKind::kHtml);
  EXPECT_EQ(r.docs[2].url, "crawl/b/page2.html.gz");
  EXPECT_EQ(r.docs[2].body, "<p>two</p>");
  EXPECT_EQ(r.docs[3].url, "crawl/c/deep/er/page3.html");
  EXPECT_EQ(r.docs[3].source, "crawl/c/deep/er/page3.html");
  EXPECT_EQ(r.docs[3].input_index, 0u);
  ASSERT_EQ(r.observer.warnings.size(), 1u);
  EXPECT_EQ(r.observer.warnings[0].reason_key, "empty-file");
  EXPECT_EQ(r.observer.warnings[0].file, "crawl/empty.html");
  EXPECT_EQ(r.stats.inputs_opened, 5u);
  EXPECT_EQ(r.bytes_consumed, r.bytes_total);
}

TEST(FolderSourceTest, PosixFolderAndDirectFiles) {
  std::string dir = neardup::testing::MakeTempDir("folder-source");
  std::filesystem::create_directories(dir + "/site/sub");
  neardup::testing::WriteFileOrDie(dir + "/site/sub/x.html", "<html>x</html>");
  neardup::testing::WriteFileOrDie(dir + "/site/y.txt.gz", GzipMember("why"));
  neardup::testing::WriteFileOrDie(dir + "/single.html", "<html>single</html>");
  neardup::testing::WriteFileOrDie(dir + "/feed.jsonl", "{\"url\":\"j\",\"text\":\"t\"}\n");
  neardup::testing::WriteFileOrDie(dir + "/notes.bin", "neither");
  ReadResult r = ReadAll({dir + "/site", dir + "/single.html", dir + "/feed.jsonl",
                          dir + "/notes.bin", dir + "/missing"},
                         nullptr);
  ASSERT_EQ(r.docs.size(), 4u) << r.observer.Dump();
  EXPECT_EQ(r.docs[0].url, dir + "/site/sub/x.html");
  EXPECT_EQ(r.docs[1].url, dir + "/site/y.txt.gz");
  EXPECT_EQ(r.docs[1].kind, ContentKind::kText);
  EXPECT_EQ(r.docs[1].body, "why");
  EXPECT_EQ(r.docs[2].url, dir + "/single.html");
  EXPECT_EQ(r.docs[2].input_index, 1u);
  EXPECT_EQ(r.docs[3].url, "j");
  EXPECT_EQ(r.docs[3].input_index, 2u);
  ASSERT_EQ(r.observer.warnings.size(), 2u) << r.observer.Dump();
  EXPECT_EQ(r.observer.warnings[0].reason_key, "unknown-format");
  EXPECT_EQ(r.observer.warnings[1].reason_key, "unreadable-file");
  EXPECT_EQ(r.observer.warnings[1].file, dir + "/missing");
  EXPECT_GT(r.bytes_total, 0u);
  EXPECT_EQ(r.bytes_consumed, r.bytes_total);
  std::filesystem::remove_all(dir);
}

TEST(DocumentSourceTest, MaxRecordBytesAppliesToFiles) {
  MemEnv env;
  env.AddFile("big.html", std::string(5000, 'b'));
  env.AddFile("small.html", "ok");
  SourceOptions o;
  o.max_record_bytes = 1000;
  ReadResult r = ReadAll({"big.html", "small.html"}, &env, o);
  ASSERT_EQ(r.docs.size(), 1u);
  EXPECT_EQ(r.docs[0].url, "small.html");
  EXPECT_EQ(r.skipped("record-too-large"), 1u);
}

TEST(DocumentSourceTest, StdinTotalIsUnknown) {
  MemEnv env;
  env.AddFile("-", "{\"url\":\"s\",\"html\":\"<p>stdin</p>\"}\n");
  env.AddFile("a.html", "<p>a</p>");
  ReadResult r = ReadAll({"a.html", "-"}, &env);
  ASSERT_EQ(r.docs.size(), 2u);
  EXPECT_EQ(r.bytes_total, 0u);
  EXPECT_GT(r.bytes_consumed, 0u);
  EXPECT_EQ(r.stats.payload_bytes, 8u + 12u);
}

}  // namespace
}  // namespace neardup::io
