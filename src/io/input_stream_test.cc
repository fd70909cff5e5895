// Copyright neardup authors. Licensed under Apache-2.0.
#include "io/input_stream.h"

#include <gtest/gtest.h>
#include <zstd.h>

#include <random>
#include <string>

#include "io/io_test_util.h"
#include "neardup/env.h"

namespace neardup::io {
namespace {

using testing::CollectingObserver;
using testing::GzipMember;

struct Harness {
  MemEnv env;
  SourceOptions options;
  ReadStats stats;
  CollectingObserver observer;
  ReaderContext ctx;
  std::unique_ptr<SequentialFile> file;
  std::unique_ptr<InputStream> in;

  explicit Harness(std::string data, const StreamLimits& limits = StreamLimits(),
                   size_t max_read_chunk = 0) {
    env.AddFile("f", std::move(data));
    env.SetMaxReadChunk(max_read_chunk);
    ctx.options = &options;
    ctx.stats = &stats;
    ctx.observer = &observer;
    ctx.file = "f";
    file = std::move(env.NewSequentialFile("f").value());
    in = std::make_unique<InputStream>(file.get(), &ctx, limits);
    in->Init();
  }
  // Drains the stream; segments between breaks are joined with '|'.
  std::string Drain() {
    std::string out;
    for (;;) {
      size_t n = in->Ensure(1000);
      if (n == 0) {
        if (in->AtBreak()) {
          in->PassBreak();
          out.push_back('|');
          continue;
        }
        return out;
      }
      out.append(in->data(), n);
      in->Consume(n);
    }
  }
};

TEST(InputStreamTest, PlainWithShortReads) {
  std::string data;
  for (int i = 0; i < 5000; ++i) data += "line " + std::to_string(i) + "\n";
  Harness h(data, StreamLimits(), 7);
  EXPECT_EQ(h.in->compression(), Compression::kNone);
  EXPECT_EQ(h.in->OriginOf(10).offset, 10u);
  EXPECT_FALSE(h.in->OriginOf(10).in_decompressed_stream);
  EXPECT_EQ(h.Drain(), data);
  EXPECT_EQ(h.in->compressed_consumed(), data.size());
  EXPECT_TRUE(h.observer.warnings.empty());
}

TEST(InputStreamTest, GzipMembersKnowTheirCompressedOffsets) {
  std::string a = GzipMember("first member\n"), b = GzipMember("second member\n"),
              c = GzipMember(std::string(100000, 'z'));
  Harness h(a + b + c);
  EXPECT_EQ(h.in->compression(), Compression::kGzip);
  ASSERT_EQ(h.in->Ensure(13), 13u);
  EXPECT_EQ(std::string(h.in->data(), 13), "first member\n");
  Origin o = h.in->OriginOf(h.in->position());
  EXPECT_EQ(o.offset, 0u);
  EXPECT_FALSE(o.in_decompressed_stream);
  h.in->Consume(13);
  ASSERT_GE(h.in->Ensure(14), 14u);
  o = h.in->OriginOf(h.in->position());
  EXPECT_EQ(o.offset, a.size());
  EXPECT_FALSE(o.in_decompressed_stream);
  // A position inside a member is reported in the decompressed stream.
  o = h.in->OriginOf(h.in->position() + 3);
  EXPECT_TRUE(o.in_decompressed_stream);
  h.in->Consume(14);
  ASSERT_GE(h.in->Ensure(1), 1u);
  EXPECT_EQ(h.in->OriginOf(h.in->position()).offset, a.size() + b.size());
  EXPECT_EQ(h.Drain(), std::string(100000, 'z'));
  EXPECT_TRUE(h.observer.warnings.empty()) << h.observer.Dump();
}

TEST(InputStreamTest, LargeMembersStreamThroughZlib) {
  // Limits shrunk so a 300 KB member exceeds the libdeflate output bound
  // (and its compressed bytes the read window, which grows to no more than
  // a quarter of that bound): it streams through zlib.
  StreamLimits small;
  small.max_member_output = 64 << 10;
  small.read_chunk = 16 << 10;
  small.first_member_guess = 16 << 10;
  small.stream_chunk = 8 << 10;
  std::string big;
  for (int i = 0; big.size() < 300000; ++i) big += "row " + std::to_string(i * 7919 % 100003) + ";";
  std::string data = GzipMember("head\n") + GzipMember(big) + GzipMember("tail\n");
  Harness h(data, small, 1000);
  EXPECT_EQ(h.Drain(), "head\n" + big + "tail\n");
  EXPECT_TRUE(h.observer.warnings.empty()) << h.observer.Dump();
  EXPECT_LT(h.in->peak_buffer_capacity(), 512u << 10);
  EXPECT_EQ(h.in->streamed_members(), 1u);
}

// Members whose compressed bytes outgrow the read window (pages of
// megabytes in a per-record gzip file) are inflated whole by libdeflate:
// the window grows to hold the first, and starts each later one at twice
// the largest seen, so that they are inflated once each; none streams
// through zlib. A file's first member (gzip over the whole file) does.
TEST(InputStreamTest, MembersLongerThanTheReadWindowAreInflatedWhole) {
  StreamLimits limits;
  limits.read_chunk = 16 << 10;
  limits.max_member_output = 4 << 20;
  std::mt19937_64 rng(5);
  auto noisy = [&](size_t bytes) {  // compresses to about 60% of its size
    std::string s;
    while (s.size() < bytes) s += std::to_string(rng() % 1000000) + (rng() % 8 == 0 ? "\n" : " ");
    return s;
  };
  const std::string a = noisy(150000), b = noisy(150000), c = noisy(150000);
  std::string data = GzipMember("head\n") + GzipMember(a) + GzipMember(b) + GzipMember(c);
  std::string small_pages;  // many small members after the long ones, in the grown window
  for (int i = 0; i < 200; ++i) {
    const std::string page = "page " + std::to_string(i) + " " + noisy(rng() % 3000) + "\n";
    data += GzipMember(page);
    small_pages += page;
  }
  data += GzipMember("tail\n");
  ASSERT_GT(GzipMember(a).size(), 4 * limits.read_chunk);
  Harness h(data, limits);
  EXPECT_EQ(h.Drain(), "head\n" + a + b + c + small_pages + "tail\n");
  EXPECT_TRUE(h.observer.warnings.empty()) << h.observer.Dump();
  EXPECT_EQ(h.in->streamed_members(), 0u);
  // a's first attempt ran out of input; the window grew until it showed
  // b's header, and a was inflated again once.
  EXPECT_EQ(h.in->whole_member_attempts(), 206u);

  // A file's first member (gzip over the whole file) is not waited for:
  // it streams through zlib, the window as it was.
  Harness whole(GzipMember(a + b), limits);
  EXPECT_EQ(whole.Drain(), a + b);
  EXPECT_TRUE(whole.observer.warnings.empty()) << whole.observer.Dump();
  EXPECT_EQ(whole.in->streamed_members(), 1u);
  EXPECT_EQ(whole.in->whole_member_attempts(), 1u);
}

TEST(InputStreamTest, LargeMemberIsInflatedAgainOnceAtTheSizeItsTrailerStates) {
  // Output of just over 1 MiB against a first guess of 16 KiB: doubling
  // alone would inflate it 8 times; the trailer's ISIZE (seen before the next member,
  // or at the end of the file) sizes the second attempt.
  StreamLimits limits;
  limits.first_member_guess = 16 << 10;
  limits.max_member_output = 4 << 20;
  std::string big;
  for (int i = 0; big.size() < (1u << 20); ++i) big += "cell " + std::to_string(i * 7919 % 100003) + ";";
  const std::string tail = "tail\n";
  {
    Harness h(GzipMember("head\n") + GzipMember(big) + GzipMember(tail), limits);
    EXPECT_EQ(h.Drain(), "head\n" + big + tail);
    EXPECT_EQ(h.in->whole_member_attempts(), 4u);
    EXPECT_TRUE(h.observer.warnings.empty()) << h.observer.Dump();
  }
  {  // the last member of the file
    Harness h(GzipMember("head\n") + GzipMember(big), limits);
    EXPECT_EQ(h.Drain(), "head\n" + big);
    EXPECT_EQ(h.in->whole_member_attempts(), 3u);
  }
  {  // zeros after it: no size can be read there, doubling still gets it whole
    Harness h(GzipMember(big) + std::string(64, '\0'), limits);
    EXPECT_EQ(h.Drain(), big);
    EXPECT_EQ(h.in->whole_member_attempts(), 8u);  // 16 KiB doubled to 2 MiB
    EXPECT_TRUE(h.observer.warnings.empty()) << h.observer.Dump();
  }
  {  // a member stating a size too small for its output (a damaged trailer
     // or a header's bytes inside the data): doubling takes over, and the
     // member's check value still fails it
    std::string lying = GzipMember(big);
    lying[lying.size() - 3] ^= 0x01;  // ISIZE 256 bytes off
    Harness h(lying + GzipMember(tail), limits);
    const std::string out = h.Drain();
    EXPECT_EQ(out.substr(out.size() - tail.size()), tail);
    ASSERT_FALSE(h.observer.warnings.empty());
    EXPECT_EQ(h.observer.warnings[0].reason_key, "corrupt-gzip") << h.observer.Dump();
  }
}

TEST(InputStreamTest, CorruptMemberIsReportedAndSkipped) {
  std::string m1 = GzipMember("one " + std::string(2000, 'a'));
  std::string m2 = GzipMember("two " + std::string(2000, 'b'));
  std::string m3 = GzipMember("three");
  std::string bad = m2;
  bad[bad.size() / 2] ^= 0x55;
  bad[bad.size() / 2 + 1] ^= 0x55;
  Harness h(m1 + bad + m3);
  std::string out = h.Drain();
  EXPECT_EQ(out.substr(0, 4), "one ");
  EXPECT_EQ(out.substr(out.size() - 6), "|three");
  ASSERT_EQ(h.observer.warnings.size(), 1u) << h.observer.Dump();
  EXPECT_EQ(h.observer.warnings[0].reason_key, "corrupt-gzip");
  EXPECT_EQ(h.observer.warnings[0].offset, m1.size());
  EXPECT_EQ(h.observer.warnings[0].file, "f");
  EXPECT_EQ(h.stats.skipped["corrupt-gzip"], 1u);
}

TEST(InputStreamTest, GarbageBetweenMembersAndTrailingZeros) {
  std::string m1 = GzipMember("one\n"), m2 = GzipMember("two\n");
  Harness h(m1 + "JUNKJUNK" + m2 + std::string(64, '\0'));
  EXPECT_EQ(h.Drain(), "one\n|two\n");
  ASSERT_EQ(h.observer.warnings.size(), 1u) << h.observer.Dump();
  EXPECT_EQ(h.observer.warnings[0].reason_key, "garbage");
  EXPECT_EQ(h.observer.warnings[0].offset, m1.size());
}

TEST(InputStreamTest, TruncatedMember) {
  std::string m1 = GzipMember("complete\n");
  std::string m2 = GzipMember(std::string(50000, 'x') + "end");
  Harness h(m1 + m2.substr(0, m2.size() - 20));
  std::string out = h.Drain();
  EXPECT_EQ(out.substr(0, 9), "complete\n");
  EXPECT_TRUE(h.in->ended_with_error());
  ASSERT_EQ(h.observer.warnings.size(), 1u) << h.observer.Dump();
  EXPECT_EQ(h.observer.warnings[0].reason_key, "truncated-gzip");
  EXPECT_EQ(h.observer.warnings[0].offset, m1.size());
}

TEST(InputStreamTest, Zstd) {
  std::string data;
  for (int i = 0; i < 20000; ++i) data += "zstd line " + std::to_string(i) + "\n";
  std::string z(ZSTD_compressBound(data.size()), '\0');
  z.resize(ZSTD_compress(z.data(), z.size(), data.data(), data.size(), 3));
  {
    Harness h(z, StreamLimits(), 100);
    EXPECT_EQ(h.in->compression(), Compression::kZstd);
    EXPECT_EQ(h.Drain(), data);
    EXPECT_TRUE(h.observer.warnings.empty());
    EXPECT_TRUE(h.in->OriginOf(5).in_decompressed_stream);
  }
  {
    Harness h(z.substr(0, z.size() / 2));
    h.Drain();
    ASSERT_FALSE(h.observer.warnings.empty());
    EXPECT_EQ(h.observer.warnings[0].reason_key, "truncated-zstd");
  }
}

TEST(InputStreamTest, ReadErrorIsAWarning) {
  MemEnv env;
  SourceOptions options;
  ReadStats stats;
  CollectingObserver observer;
  ReaderContext ctx{&options, &stats, &observer, "f", 0};
  env.AddFile("f", std::string(10000, 'r'));
  env.FailReadsAfter("f", 4000);
  auto file = env.NewSequentialFile("f");
  InputStream in(file.value().get(), &ctx);
  in.Init();
  uint64_t n = in.Skip(1 << 20);
  EXPECT_EQ(n, 4000u);
  EXPECT_TRUE(in.ended_with_error());
  ASSERT_EQ(observer.warnings.size(), 1u);
  EXPECT_EQ(observer.warnings[0].reason_key, "read-error");
  EXPECT_EQ(observer.warnings[0].offset, 4000u);
}

TEST(InputStreamTest, SkipDoesNotBufferWhatItSkips) {
  std::string data(30u << 20, 'k');
  Harness h(data);
  EXPECT_EQ(h.in->Skip(data.size() - 5), data.size() - 5);
  EXPECT_EQ(h.Drain(), "kkkkk");
  EXPECT_LE(h.in->peak_buffer_capacity(), 12u << 20);
}

}  // namespace
}  // namespace neardup::io
