// Copyright neardup authors. Licensed under Apache-2.0.
//
// Reading the real crawl files in shared/data/warc (skipped when absent).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <map>
#include <string>

#include "io/io_test_util.h"
#include "neardup/source.h"
#include "test_util.h"

namespace neardup::io {
namespace {

using testing::ReadAll;
using testing::ReadResult;

// (a) Every file under shared/data/warc is read to its end without a crash
// or hang: each file gets its own time bound.
TEST(SharedDataTest, EveryWarcFileReadsToTheEnd) {
  NEARDUP_REQUIRE_SHARED_DATA(dir);
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir + "/warc")) {
    if (e.is_regular_file()) files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GT(files.size(), 100u);
  uint64_t docs = 0;
  for (const std::string& f : files) {
    auto job = std::async(std::launch::async, [f] { return ReadAll({f}, nullptr); });
    if (job.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
      std::fprintf(stderr, "reading %s did not finish within 60 s\n", f.c_str());
      std::abort();  // a hang: the thread cannot be cancelled
    }
    ReadResult r = job.get();
    EXPECT_EQ(r.stats.inputs_opened, 1u) << f;
    EXPECT_EQ(r.bytes_consumed, r.bytes_total) << f << " not read to its end";
    for (const auto& w : r.observer.warnings) {
      EXPECT_EQ(w.file, f);
      EXPECT_FALSE(w.reason_key.empty());
    }
    docs += r.docs.size();
  }
  EXPECT_GT(docs, 1000u);
}

// (b) Documents and skipped records per type equal counts made without
// neardup: a Python script using only the standard library (gzip module)
// walks each file record by record via Content-Length, counts WARC-Type
// values, and applies the non-text media-type list of http_response.cc to
// the HTTP (or WARC) Content-Type of response/resource/conversion records,
// and of revisit records whose WARC-Profile ends in identical-payload-digest,
// uri-agnostic-identical-payload-digest or server-not-modified (documents
// without a body; other revisits are skipped as type:revisit).
// The type counts agree with `zcat -f FILE | grep -a -c '^WARC-Type: <t>'`
// (e.g. pywb/iana.warc.gz: 48 responses = 39 documents + 9 non-text
// (image/svg+xml, image/png, application/octet-stream); 123 revisits (all
// identical-payload-digest) = 45 documents + 78 non-text; 171 request,
// 1 warcinfo).
TEST(SharedDataTest, CountsMatchIndependentCount) {
  NEARDUP_REQUIRE_SHARED_DATA(dir);
  using Counts = std::map<std::string, uint64_t>;
  struct Expect {
    const char* file;
    uint64_t docs, records;
    Counts skipped;
  };
  const std::vector<Expect> expect = {
      {"warcio/example.warc.gz", 2, 6, {{"type:request", 2}, {"type:warcinfo", 2}}},
      {"warcio-js/redirect.warc", 1, 2, {{"type:request", 1}}},
      {"pywb/iana.warc.gz", 84, 343, {{"non-text", 87}, {"type:request", 171}, {"type:warcinfo", 1}}},
      {"py-wacz/example-iana.warc", 29, 118, {{"non-text", 29}, {"type:request", 58}, {"type:warcinfo", 2}}},
      {"resiliparse/warcfile.warc.gz", 16, 50,
       {{"type:metadata", 16}, {"type:request", 17}, {"type:warcinfo", 1}}},
      {"jwarc/cc.warc.gz", 1, 1, {}},
      {"jwat/warc/IAH-20080430204825-00000-blackbook.warc.gz", 198, 822,
       {{"non-text", 101}, {"type:metadata", 261}, {"type:request", 261}, {"type:warcinfo", 1}}},
      {"webarchive-commons/format_gzip_IAH-urls-wget.warc.gz", 16, 36,
       {{"non-text", 3}, {"type:request", 16}, {"type:warcinfo", 1}}},
      {"ukwa-webarchive-discovery/gov.uk-revisit-warcs_BL-20140325121225068-00000-32090_opera_8443.warc.gz",
       55, 190, {{"non-text", 10}, {"type:metadata", 62}, {"type:request", 62}, {"type:warcinfo", 1}}},
      {"ukwa-webarchive-discovery/wikipedia-mona-lisa_flashfrozen-jwat-recompressed.warc.gz", 20, 82,
       {{"non-text", 22}, {"type:request", 39}, {"type:warcinfo", 1}}},
      {"node-warc/books.toscrape.warc", 9, 60, {{"non-text", 21}, {"type:request", 30}}},
      {"warcat/at.warc.gz", 5, 8, {{"type:request", 2}, {"type:warcinfo", 1}}},
      {"ia-gowarc/good.warc.gz.open", 50, 50, {}},
      {"commoncrawl-whirlwind/whirlwind.warc.gz", 1, 4,
       {{"type:metadata", 1}, {"type:request", 1}, {"type:warcinfo", 1}}},
      {"commoncrawl-whirlwind/whirlwind.warc.wet.gz", 1, 2, {{"type:warcinfo", 1}}},
      {"chatnoir-copycat/clueweb-09-sample/en0000/00.warc.gz", 23, 24, {{"type:warcinfo", 1}}},
      {"aut/example.pdf.warc.gz", 27, 76, {{"non-text", 10}, {"type:request", 37}, {"type:warcinfo", 2}}},
      // ARC: records are "URL IP DATE MIME LENGTH" lines; filedesc is skipped.
      {"jwat/arc/IAH-20080430204825-00000-blackbook.arc.gz", 198, 300,
       {{"non-text", 101}, {"type:filedesc", 1}}},
      {"chatnoir-copycat/cc-arc-sample/small-sample-1213893279526_0.arc", 139, 146,
       {{"non-text", 6}, {"type:filedesc", 1}}},
  };
  for (const auto& e : expect) {
    ReadResult r = ReadAll({dir + "/warc/" + e.file}, nullptr);
    EXPECT_EQ(r.stats.documents, e.docs) << e.file;
    EXPECT_EQ(r.stats.records, e.records) << e.file;
    EXPECT_EQ(r.stats.skipped, e.skipped) << e.file << "\n" << r.observer.Dump();
    EXPECT_TRUE(r.observer.warnings.empty()) << e.file << "\n" << r.observer.Dump();
  }
}

// Real Content-Encoding: br / gzip responses (ukwa wget captures) decode to
// the same page as the uncompressed capture.
TEST(SharedDataTest, RealContentEncodingsDecode) {
  NEARDUP_REQUIRE_SHARED_DATA(dir);
  std::string base = dir + "/warc/ukwa-webarchive-discovery/compression_transfer_compression_";
  std::map<std::string, std::string> bodies;
  for (const char* kind : {"none", "gzip", "brotli"}) {
    ReadResult r = ReadAll({base + kind + ".warc"}, nullptr);
    ASSERT_EQ(r.docs.size(), 2u) << kind << r.observer.Dump();
    for (const auto& d : r.docs) {
      if (d.content_type == "text/html") bodies[kind] = d.body;
    }
    EXPECT_TRUE(r.observer.warnings.empty()) << r.observer.Dump();
  }
  ASSERT_FALSE(bodies["none"].empty());
  EXPECT_NE(bodies["none"].find("<html"), std::string::npos);
  EXPECT_EQ(bodies["gzip"], bodies["none"]);
  EXPECT_EQ(bodies["brotli"], bodies["none"]);
}

// Deliberately damaged upstream fixtures give warnings, not crashes, and
// keep the readable records.
TEST(SharedDataTest, DamagedUpstreamFixtures) {
  NEARDUP_REQUIRE_SHARED_DATA(dir);
  struct Case {
    const char* file;
    const char* reason;
    uint64_t min_docs;
  };
  for (const Case& c : std::vector<Case>{
           {"ia-gowarc/corrupted-trailing-bytes.warc.gz.open", "garbage", 30},
           {"resiliparse/clipped.warc.gz", "truncated-gzip", 0},
           {"warcio/example-trunc.warc", "garbage", 1},
           {"warcio-js/example-bad-length.warc", "garbage", 1},
           {"jwat/warc/invalid-warcfile-record-then-garbage.warc", "garbage", 1},
           {"jwat/warc/invalid-warcfile-fields-invalidformat.warc", "bad-length", 0},
           {"pywb/example-extra.warc", "bad-http", 1},
           {"webarchive-commons/format_gzip_double-single-inflate-error.gz", "corrupt-gzip", 0},
           {"ia-gowarc/empty.warc.gz.open", "empty-file", 0},
       }) {
    ReadResult r = ReadAll({dir + "/warc/" + c.file}, nullptr);
    const ReadWarning* w = r.observer.Find(c.reason);
    ASSERT_NE(w, nullptr) << c.file << "\n" << r.observer.Dump();
    EXPECT_EQ(w->file, dir + "/warc/" + c.file);
    EXPECT_GE(r.docs.size(), c.min_docs) << c.file;
  }
}

}  // namespace
}  // namespace neardup::io
