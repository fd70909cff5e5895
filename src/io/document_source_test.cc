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
using testing::MakeResponseRecord;
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

// An empty folder is one warning naming it; the other inputs are read.
TEST(FolderSourceTest, AnEmptyFolderIsAWarningNamingIt) {
  MemEnv env;
  ASSERT_TRUE(env.CreateDirs("crawl/empty").ok());
  env.AddFile("crawl/full/a.html", "<p>page</p>");
  ReadResult r = ReadAll({"crawl/empty", "crawl/full"}, &env);
  ASSERT_EQ(r.docs.size(), 1u) << r.observer.Dump();
  EXPECT_EQ(r.docs[0].url, "crawl/full/a.html");
  ASSERT_EQ(r.observer.warnings.size(), 1u) << r.observer.Dump();
  EXPECT_EQ(r.observer.warnings[0].reason_key, "empty-folder");
  EXPECT_EQ(r.observer.warnings[0].file, "crawl/empty");
  EXPECT_EQ(r.skipped("empty-folder"), 1u);
  // A folder whose files are all of kinds not read is no warning: they are
  // counted as left out.
  env.AddFile("crawl/images/a.png", "\x89PNG");
  ReadResult images = ReadAll({"crawl/images"}, &env);
  EXPECT_TRUE(images.observer.warnings.empty()) << images.observer.Dump();
  EXPECT_EQ(images.skipped("folder-file-left-out"), 1u);
}

// A folder of a crawl holds its WARC, ARC and JSON Lines files beside pages:
// they are read record by record, as on the command line; files of no kind
// read are counted (folder-file-left-out), without a warning each.
TEST(FolderSourceTest, CrawlFilesInAFolderAreReadRecordByRecord) {
  MemEnv env;
  std::string warc;
  for (int i = 0; i < 40; ++i) {
    warc += GzipMember(MakeResponseRecord("http://a.example/" + std::to_string(i),
                                          "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n",
                                          "<p>page " + std::to_string(i) + " " + std::string(300, 'x') + "</p>"));
  }
  env.AddFile("crawl/a.warc.gz", warc);
  env.AddFile("crawl/b/feed.JSONL", "{\"url\":\"http://j.example/\",\"text\":\"jsonl page\"}\n");
  env.AddFile("crawl/c/x.html", "<p>file page</p>");
  env.AddFile("crawl/img.png", "\x89PNG");
  env.AddFile("crawl/style.css", "p {}");
  ReadResult r = ReadAll({"crawl"}, &env);
  ASSERT_EQ(r.docs.size(), 42u) << r.observer.Dump();
  EXPECT_EQ(r.docs[0].url, "http://a.example/0");
  EXPECT_EQ(r.docs[0].source, "crawl/a.warc.gz");
  EXPECT_EQ(r.docs[0].body.substr(0, 9), "<p>page 0");
  EXPECT_EQ(r.docs[39].url, "http://a.example/39");
  EXPECT_GT(r.docs[39].source_offset, 0u);
  EXPECT_EQ(r.docs[40].url, "http://j.example/");
  EXPECT_EQ(r.docs[41].url, "crawl/c/x.html");
  EXPECT_TRUE(r.observer.warnings.empty()) << r.observer.Dump();
  EXPECT_EQ(r.skipped("folder-file-left-out"), 2u);
  EXPECT_EQ(r.stats.inputs_opened, 3u);

  // A run divided among processes cuts inside the folder's WARC at a
  // record's member; the shares read every page once and count the files
  // left out once.
  const std::vector<InputShare> shares = PlanInputShares(ListInputFiles({"crawl"}, SourceOptions(), &env), 3, &env);
  ASSERT_EQ(shares.size(), 3u);
  EXPECT_GT(shares[1].first_offset + shares[2].first_offset, 0u);
  std::vector<std::string> urls;
  uint64_t left_out = 0;
  for (const InputShare& share : shares) {
    SourceOptions o;
    o.share = share;
    ReadResult part = ReadAll({"crawl"}, &env, o);
    for (const Document& d : part.docs) urls.push_back(d.url);
    left_out += part.skipped("folder-file-left-out");
    EXPECT_TRUE(part.observer.warnings.empty()) << part.observer.Dump();
  }
  ASSERT_EQ(urls.size(), r.docs.size());
  for (size_t i = 0; i < urls.size(); ++i) EXPECT_EQ(urls[i], r.docs[i].url);
  EXPECT_EQ(left_out, 2u);
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

namespace neardup::io::testing {
namespace {

// A per-record-gzip WARC file cut into shares at record members
// (NextRecordMember), plus files around it: reading the shares one after
// the other gives exactly what reading everything gives (documents, their
// offsets, warnings, counts, bytes).
TEST(InputShareTest, SharesOfALargeFileReadAsTheWhole) {
  MemEnv env;
  std::string warc;
  for (int i = 0; i < 40; ++i) {
    const std::string body = "<p>page " + std::to_string(i) + " " + std::string(200 + 37 * i, 'x') + "</p>";
    if (i == 17) warc += "garbage between members";  // a warning inside a share
    warc += GzipMember(MakeResponseRecord("http://h/" + std::to_string(i),
                                          "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n", body));
  }
  env.AddFile("big.warc.gz", warc);
  env.AddFile("pages/a.html", "<p>a</p>");
  env.AddFile("pages/b.html", "");
  env.AddFile("tail.warc.gz", GzipMember(MakeResponseRecord("http://t/", "HTTP/1.1 200 OK\r\n", "tail")));
  const std::vector<std::string> inputs = {"pages", "big.warc.gz", "tail.warc.gz"};
  const std::vector<InputFile> files = ListInputFiles(inputs, SourceOptions(), &env);
  ASSERT_EQ(files.size(), 4u);
  EXPECT_EQ(files[2].path, "big.warc.gz");
  EXPECT_EQ(files[2].size, warc.size());
  const ReadResult whole = ReadAll(inputs, &env);
  ASSERT_EQ(whole.docs.size(), 42u) << whole.observer.Dump();
  ASSERT_FALSE(whole.observer.warnings.empty());

  for (int parts : {2, 3, 5}) {
    // Cuts inside big.warc.gz (file 2), moved to the next record member.
    std::vector<InputShare> shares;
    InputShare current;  // starts at file 0
    for (int p = 1; p < parts; ++p) {
      auto member = NextRecordMember("big.warc.gz", warc.size() * p / parts, &env);
      ASSERT_TRUE(member.ok());
      ASSERT_LT(*member, warc.size());
      EXPECT_EQ(warc.compare(*member, 2, "\x1f\x8b"), 0);
      current.end_file = 2;
      current.end_offset = *member;
      shares.push_back(current);
      current = InputShare{2, *member, UINT64_MAX, 0};
    }
    shares.push_back(current);
    std::vector<Document> docs;
    std::vector<ReadWarning> warnings;
    ReadStats sum;
    uint64_t bytes = 0;
    for (const InputShare& share : shares) {
      SourceOptions o;
      o.share = share;
      const ReadResult r = ReadAll(inputs, &env, o);
      docs.insert(docs.end(), r.docs.begin(), r.docs.end());
      warnings.insert(warnings.end(), r.observer.warnings.begin(), r.observer.warnings.end());
      sum.inputs_opened += r.stats.inputs_opened;
      sum.records += r.stats.records;
      bytes += r.stats.input_bytes;
    }
    ASSERT_EQ(docs.size(), whole.docs.size()) << parts;
    for (size_t i = 0; i < docs.size(); ++i) {
      EXPECT_EQ(docs[i].url, whole.docs[i].url);
      EXPECT_EQ(docs[i].source_offset, whole.docs[i].source_offset) << docs[i].url;
      EXPECT_EQ(docs[i].body, whole.docs[i].body);
    }
    ASSERT_EQ(warnings.size(), whole.observer.warnings.size()) << parts;
    for (size_t i = 0; i < warnings.size(); ++i) {
      EXPECT_EQ(warnings[i].file, whole.observer.warnings[i].file);
      EXPECT_EQ(warnings[i].offset, whole.observer.warnings[i].offset);
      EXPECT_EQ(warnings[i].reason_key, whole.observer.warnings[i].reason_key);
    }
    EXPECT_EQ(sum.inputs_opened, whole.stats.inputs_opened);
    EXPECT_EQ(sum.records, whole.stats.records);
    EXPECT_EQ(bytes, whole.stats.input_bytes);
  }
}

TEST(InputShareTest, OnlyPerRecordGzipFilesHaveRecordMembers) {
  MemEnv env;
  const std::string record = MakeResponseRecord("http://h/", "HTTP/1.1 200 OK\r\n", std::string(5000, 'y'));
  env.AddFile("plain.warc", record + record);
  env.AddFile("whole.warc.gz", GzipMember(record + record + record));
  EXPECT_EQ(NextRecordMember("plain.warc", 10, &env).value(), 2 * record.size());
  const uint64_t whole_size = env.GetFileSize("whole.warc.gz").value();
  EXPECT_EQ(NextRecordMember("whole.warc.gz", 10, &env).value(), whole_size);
  EXPECT_FALSE(NextRecordMember("missing.warc.gz", 0, &env).ok());
  // An empty share reads nothing and reports nothing.
  SourceOptions o;
  o.share = InputShare{1, 0, 1, 0};
  const ReadResult r = ReadAll({"plain.warc", "whole.warc.gz"}, &env, o);
  EXPECT_TRUE(r.docs.empty());
  EXPECT_TRUE(r.observer.warnings.empty());
  o.share = InputShare{1, 0, 0, 0};
  EXPECT_TRUE(o.Validate().IsInvalidArgument());
}

}  // namespace
}  // namespace neardup::io::testing
