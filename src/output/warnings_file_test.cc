// Copyright neardup authors. Licensed under Apache-2.0.
//
// WarningsWriter / WarningsReader: bytes, round trip (plain and
// decompressed-stream offsets), malformed headers and rows.
#include "output/warnings_file.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "neardup/env.h"

namespace neardup {
namespace {

constexpr char kPath[] = "out/warnings.tsv";

TEST(WarningsFileTest, RoundTrip) {
  MemEnv env;
  auto w = WarningsWriter::Create(&env, kPath);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const std::vector<WarningRecord> in = {
      {"crawl.warc.gz", 1234, true, "bad_record", "WARC header without\tContent-Length"},
      {"pages/a.html", 0, false, "not_utf8", "50% of bytes invalid"},
  };
  for (const WarningRecord& r : in) ASSERT_TRUE((*w)->Add(r).ok());
  EXPECT_FALSE(env.FileExists(kPath));
  ASSERT_TRUE((*w)->Finish().ok());
  EXPECT_EQ((*w)->rows(), 2u);
  EXPECT_EQ(env.GetContents(kPath).value(),
            "file\toffset\treason\tmessage\n"
            "crawl.warc.gz\tu:1234\tbad_record\tWARC header without%09Content-Length\n"
            "pages/a.html\t0\tnot_utf8\t50% of bytes invalid\n");

  auto r = WarningsReader::Open(&env, kPath);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  WarningRecord rec;
  for (size_t i = 0; i < in.size(); ++i) {
    Result<bool> got = (*r)->Next(&rec);
    ASSERT_TRUE(got.ok() && *got) << got.status().ToString();
    EXPECT_EQ(rec.file, in[i].file);
    EXPECT_EQ(rec.offset, in[i].offset);
    EXPECT_EQ(rec.in_decompressed_stream, in[i].in_decompressed_stream);
    EXPECT_EQ(rec.reason, in[i].reason);
  }
  EXPECT_EQ(rec.message, "50% of bytes invalid");
  EXPECT_FALSE((*r)->Next(&rec).value());
}

TEST(WarningsFileTest, Errors) {
  MemEnv env;
  EXPECT_TRUE(WarningsReader::Open(&env, kPath).status().IsNotFound());
  env.AddFile(kPath, "file\toffset\treason\n");
  Status s = WarningsReader::Open(&env, kPath).status();
  EXPECT_EQ(s.message(), std::string(kPath) + ": line 1: not a warnings.tsv header: no column 'message'");

  env.AddFile(kPath,
              "file\toffset\treason\tmessage\n"
              "f\tx:12\tr\tm\n"   // line 2
              "f\t12\tr\n"        // 3
              "f\tu:\tr\tm\n"     // 4
              "f\tu:7\tr\tm\n");  // 5
  auto r = WarningsReader::Open(&env, kPath);
  ASSERT_TRUE(r.ok());
  WarningRecord rec;
  std::vector<std::string> errors;
  uint64_t good = 0;
  for (;;) {
    Result<bool> got = (*r)->Next(&rec);
    if (!got.ok()) {
      errors.push_back(got.status().message());
      continue;
    }
    if (!*got) break;
    ++good;
    EXPECT_EQ(rec.offset, 7u);
    EXPECT_TRUE(rec.in_decompressed_stream);
  }
  EXPECT_EQ(good, 1u);
  const std::string p = std::string(kPath) + ": line ";
  EXPECT_EQ(errors, (std::vector<std::string>{p + "2: offset is neither <n> nor u:<n>: 'x:12'",
                                              p + "3: has 3 fields, the header has 4",
                                              p + "4: offset is neither <n> nor u:<n>: 'u:'"}));
}

}  // namespace
}  // namespace neardup
