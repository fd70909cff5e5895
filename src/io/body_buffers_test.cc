// Copyright neardup authors. Licensed under Apache-2.0.
#include "io/body_buffers.h"

#include <gtest/gtest.h>

#include <string>

#include "io/io_test_util.h"
#include "neardup/env.h"
#include "neardup/source.h"

namespace neardup::io {
namespace {

std::string WithRoom(size_t bytes) {
  std::string s;
  s.reserve(bytes);
  return s;
}

TEST(BodyBuffersTest, FitSwapsInTheSmallestBufferWithRoom) {
  BodyBuffers pool;
  const size_t mib = size_t{1} << 20;
  for (size_t room : {4 * mib, 1 * mib, 2 * mib}) {
    std::string b = WithRoom(room);
    pool.Take(&b);
    EXPECT_EQ(b.capacity(), std::string().capacity());  // taken: the caller's string is empty
  }
  ASSERT_EQ(pool.buffers(), 3u);
  std::string body = WithRoom(64 << 10);
  const char* own = body.data();
  pool.Fit(mib + 1, &body);  // 2 MiB is the smallest with room
  EXPECT_GE(body.capacity(), mib + 1);
  EXPECT_LT(body.capacity(), 4 * mib);
  EXPECT_EQ(pool.buffers(), 2u);  // the small own buffer is not among the large ones
  const char* data = body.data();
  pool.Fit(mib + 1, &body);  // room already: nothing moves
  EXPECT_EQ(body.data(), data);
  pool.Take(&body);  // the large buffer goes back, the small one returns
  EXPECT_EQ(body.data(), own);
  EXPECT_GE(body.capacity(), size_t{64} << 10);
  EXPECT_EQ(pool.buffers(), 3u);
  pool.Fit(mib + 1, &body);
  EXPECT_EQ(pool.buffers(), 2u);
  std::string huge;
  pool.Fit(16 * mib, &huge);  // none has room: nothing moves
  EXPECT_EQ(huge.capacity(), std::string().capacity());
  EXPECT_EQ(pool.buffers(), 2u);
  std::string page;
  pool.Fit(BodyBuffers::kMinBytes - 1, &page);  // a small page grows its own buffer
  EXPECT_EQ(pool.buffers(), 2u);
}

// A small page grows the caller's buffer by doubling, but not past
// kMinBytes, so that the caller keeps it (it hands back only larger ones).
TEST(BodyBuffersTest, SmallPagesGrowTheirBufferToKMinBytesAtMost) {
  BodyBuffers pool;
  std::string body = WithRoom(200 << 10);
  pool.Fit(210 << 10, &body);
  EXPECT_EQ(body.capacity(), BodyBuffers::kMinBytes);  // not 400 KiB
  std::string small = WithRoom(1000);
  pool.Fit(1500, &small);
  EXPECT_GE(small.capacity(), 2000u);  // doubled
  EXPECT_LT(small.capacity(), 4000u);
  EXPECT_EQ(pool.buffers(), 0u);
}

TEST(BodyBuffersTest, KeepsLargeBuffersWithinItsBytes) {
  BodyBuffers pool;
  std::string small = WithRoom(BodyBuffers::kMinBytes / 2);
  pool.Take(&small);
  EXPECT_EQ(pool.buffers(), 0u);
  EXPECT_GE(small.capacity(), BodyBuffers::kMinBytes / 2);  // left with the caller
  std::string too_large = WithRoom(BodyBuffers::kMaxBytes + 1);
  pool.Take(&too_large);
  EXPECT_EQ(pool.buffers(), 0u);
  const size_t room = BodyBuffers::kMaxBytes / 4;
  for (int i = 0; i < 6; ++i) {
    std::string b = WithRoom(room + static_cast<size_t>(i) * 4096);
    pool.Take(&b);
    EXPECT_LE(pool.bytes(), BodyBuffers::kMaxBytes);
  }
  EXPECT_EQ(pool.buffers(), 3u);  // the smallest went first
  std::string body;
  pool.Fit(room + 5 * 4096, &body);
  EXPECT_GE(body.capacity(), room + 5 * 4096);
}

// A page's buffer handed back to the source (DocumentSource::Recycle) is
// the one a later large page is read into, and the page reads whole.
TEST(BodyBuffersTest, SourceReadsALaterLargePageIntoARecycledBuffer) {
  MemEnv env;
  const std::string big_a(BodyBuffers::kMinBytes * 2, 'a');
  const std::string small = "<p>small</p>";
  const std::string big_b(BodyBuffers::kMinBytes * 2 - 100, 'b');
  env.AddFile("crawl.warc",
              testing::MakeResponseRecord("http://a.example/", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n", big_a) +
                  testing::MakeResponseRecord("http://s.example/", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n", small) +
                  testing::MakeResponseRecord("http://b.example/", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n", big_b));
  auto source = OpenDocumentSource({"crawl.warc"}, SourceOptions(), &env, nullptr);
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  DocumentSource& s = **source;
  Document first, second, third;
  ASSERT_TRUE(s.Next(&first));
  EXPECT_EQ(first.body, big_a);
  const char* recycled = first.body.data();
  s.Recycle(&first.body);
  EXPECT_EQ(first.body.capacity(), std::string().capacity());  // nothing to give back yet
  ASSERT_TRUE(s.Next(&second));
  EXPECT_EQ(second.body, small);  // a small page keeps its own buffer
  EXPECT_NE(second.body.data(), recycled);
  ASSERT_TRUE(s.Next(&third));
  EXPECT_EQ(third.body, big_b);
  EXPECT_EQ(third.body.data(), recycled);
  EXPECT_FALSE(s.Next(&first));
}

}  // namespace
}  // namespace neardup::io
