// Copyright neardup authors. Licensed under Apache-2.0.
#include "io/compressed_writer.h"

#include <gtest/gtest.h>

#include <string>

#include "io/io_test_util.h"
#include "neardup/env.h"

namespace neardup::io {
namespace {

using testing::ReadAll;
using testing::ReadResult;

TEST(CompressedWriterTest, CompressionOfName) {
  EXPECT_EQ(CompressionOfName("kept.jsonl.gz"), OutputCompression::kGzip);
  EXPECT_EQ(CompressionOfName("KEPT.WARC.GZ"), OutputCompression::kGzip);
  EXPECT_EQ(CompressionOfName("kept.jsonl.zst"), OutputCompression::kZstd);
  EXPECT_EQ(CompressionOfName("kept.jsonl"), OutputCompression::kNone);
  EXPECT_EQ(CompressionOfName("gz"), OutputCompression::kNone);
}

// More than three blocks of lines, through the writer and back through the
// project's reader (which reads members and frames one after another).
TEST(CompressedWriterTest, ManyBlocksReadBackWhole) {
  std::string plain;
  for (int i = 0; i < 40000; ++i) {
    plain += "{\"url\": \"http://site.example/" + std::to_string(i) + "\", \"text\": \"page " + std::to_string(i) +
             " of a run of lines long enough to fill several blocks of one mebibyte\"}\n";
  }
  ASSERT_GT(plain.size(), size_t{3} << 20);
  for (const char* name : {"out.jsonl.gz", "out.jsonl.zst", "out.jsonl"}) {
    SCOPED_TRACE(name);
    MemEnv env;
    auto file = env.NewWritableFile(name);
    ASSERT_TRUE(file.ok());
    std::unique_ptr<WritableFile> out = NewCompressedWritableFile(std::move(file.value()), CompressionOfName(name));
    // Appends of odd sizes cross the block boundaries anywhere.
    for (size_t at = 0; at < plain.size(); at += 77777) {
      ASSERT_TRUE(out->Append(plain.data() + at, std::min<size_t>(77777, plain.size() - at)).ok());
    }
    ASSERT_TRUE(out->Close().ok());
    const std::string bytes = env.GetContents(name).value();
    if (CompressionOfName(name) == OutputCompression::kGzip) {
      EXPECT_EQ(static_cast<unsigned char>(bytes[0]), 0x1f);
      EXPECT_EQ(static_cast<unsigned char>(bytes[1]), 0x8b);
      EXPECT_LT(bytes.size(), plain.size() / 4);
    } else if (CompressionOfName(name) == OutputCompression::kZstd) {
      EXPECT_EQ(bytes.substr(0, 4), std::string("\x28\xb5\x2f\xfd", 4));
      EXPECT_LT(bytes.size(), plain.size() / 4);
    } else {
      EXPECT_EQ(bytes, plain);
    }
    ReadResult r = ReadAll({name}, &env);
    ASSERT_EQ(r.docs.size(), 40000u) << r.observer.Dump();
    EXPECT_TRUE(r.observer.warnings.empty()) << r.observer.Dump();
    EXPECT_EQ(r.docs[39999].url, "http://site.example/39999");
    EXPECT_EQ(r.docs[12345].body,
              "page 12345 of a run of lines long enough to fill several blocks of one mebibyte");
  }
}

TEST(CompressedWriterTest, AWriteErrorIsReturned) {
  MemEnv env;
  env.FailWritesAfter("out.gz", 10);
  auto file = env.NewWritableFile("out.gz");
  ASSERT_TRUE(file.ok());
  std::unique_ptr<WritableFile> out = NewCompressedWritableFile(std::move(file.value()), OutputCompression::kGzip);
  ASSERT_TRUE(out->Append(std::string(1000, 'x')).ok());  // buffered
  EXPECT_FALSE(out->Close().ok());
}

}  // namespace
}  // namespace neardup::io
