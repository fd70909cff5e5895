// Copyright neardup authors. Licensed under Apache-2.0.
//
// ClustersWriter / ClustersReader over the in-memory Env: the exact bytes
// written, round trips, the .tmp-then-rename contract, write and read
// faults, and every kind of malformed header and row.
#include "output/clusters_file.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "neardup/env.h"

namespace neardup {
namespace {

constexpr char kPath[] = "out/clusters.tsv";
constexpr char kHeader[] = "url\tcluster\trole\tmethod\tsimilarity\tsource\toffset\treason\n";

std::vector<ClusterRecord> SampleRecords() {
  ClusterRecord a{"http://a.com/", 0, ClusterRole::kKeep, "broder", 1, "crawl.warc.gz", 0, "shortest_url"};
  ClusterRecord b{"http://b.com/x?q=%41", 0, ClusterRole::kDuplicate, "broder", 0.8333333, "crawl.warc.gz",
                  12345, "shortest_url"};
  ClusterRecord c{"", 2, ClusterRole::kKeep, "single", 1, "dir/page one.html", 0, "single"};
  return {a, b, c};
}

// Reads every row, counting malformed ones; returns the records' urls.
struct ReadBack {
  std::vector<std::string> urls;
  std::vector<ClusterRecord> records;  // string_views cleared
  std::vector<std::string> errors;
};

ReadBack ReadAll(Env* env, const std::string& path) {
  ReadBack out;
  auto reader = ClustersReader::Open(env, path);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return out;
  ClusterRecord r;
  for (;;) {
    Result<bool> got = (*reader)->Next(&r);
    if (!got.ok()) {
      EXPECT_TRUE(got.status().IsCorruption()) << got.status().ToString();
      out.errors.push_back(got.status().message());
      continue;
    }
    if (!*got) break;
    out.urls.emplace_back(r.url);
    r.url = r.method = r.source = r.reason = {};
    out.records.push_back(r);
  }
  return out;
}

TEST(ClustersFileTest, WritesTheDocumentedBytes) {
  MemEnv env;
  auto w = ClustersWriter::Create(&env, kPath);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  for (const ClusterRecord& r : SampleRecords()) ASSERT_TRUE((*w)->Add(r).ok());
  ASSERT_TRUE((*w)->Finish().ok());
  EXPECT_EQ((*w)->rows(), 3u);
  const std::string expected = std::string(kHeader) +
                               "http://a.com/\t0\tkeep\tbroder\t1\tcrawl.warc.gz\t0\tshortest_url\n"
                               "http://b.com/x?q=%41\t0\tduplicate\tbroder\t0.8333\tcrawl.warc.gz\t12345\t"
                               "shortest_url\n"
                               "\t2\tkeep\tsingle\t1\tdir/page one.html\t0\tsingle\n";
  EXPECT_EQ(env.GetContents(kPath).value(), expected);
  EXPECT_EQ((*w)->bytes_written(), expected.size());
  EXPECT_FALSE(env.FileExists(std::string(kPath) + ".tmp"));
}

TEST(ClustersFileTest, RoundTrip) {
  MemEnv env;
  auto w = ClustersWriter::Create(&env, kPath);
  ASSERT_TRUE(w.ok());
  const std::vector<ClusterRecord> in = SampleRecords();
  for (const ClusterRecord& r : in) ASSERT_TRUE((*w)->Add(r).ok());
  ASSERT_TRUE((*w)->Finish().ok());

  auto reader = ClustersReader::Open(&env, kPath);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  for (ClusterColumn c : {ClusterColumn::kUrl, ClusterColumn::kReason, ClusterColumn::kOffset}) {
    EXPECT_TRUE((*reader)->Has(c));
  }
  ClusterRecord r;
  for (size_t i = 0; i < in.size(); ++i) {
    Result<bool> got = (*reader)->Next(&r);
    ASSERT_TRUE(got.ok() && *got) << got.status().ToString();
    EXPECT_EQ((*reader)->line_number(), i + 2);
    EXPECT_EQ(r.url, in[i].url);
    EXPECT_EQ(r.cluster, in[i].cluster);
    EXPECT_EQ(r.role, in[i].role);
    EXPECT_EQ(r.method, in[i].method);
    EXPECT_NEAR(r.similarity, in[i].similarity, 5e-4);  // 4 significant digits
    EXPECT_EQ(r.source, in[i].source);
    EXPECT_EQ(r.offset, in[i].offset);
    EXPECT_EQ(r.reason, in[i].reason);
  }
  Result<bool> end = (*reader)->Next(&r);
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(*end);
}

TEST(ClustersFileTest, ControlBytesAreEscapedNotSplit) {
  MemEnv env;
  auto w = ClustersWriter::Create(&env, kPath);
  ASSERT_TRUE(w.ok());
  ClusterRecord r{"http://a/\tb", 0, ClusterRole::kKeep, "exact", 1, "line\nbreak\r", 0, "r"};
  ASSERT_TRUE((*w)->Add(r).ok());
  ASSERT_TRUE((*w)->Finish().ok());
  ReadBack back = ReadAll(&env, kPath);
  ASSERT_EQ(back.urls.size(), 1u);
  EXPECT_TRUE(back.errors.empty());
  EXPECT_EQ(back.urls[0], "http://a/%09b");  // read back as written
}

TEST(ClustersFileTest, NothingUnderTheFinalNameUntilFinish) {
  MemEnv env;
  const std::string tmp = std::string(kPath) + ".tmp";
  {
    auto w = ClustersWriter::Create(&env, kPath);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Add(SampleRecords()[0]).ok());
    EXPECT_FALSE(env.FileExists(kPath));
    EXPECT_TRUE(env.FileExists(tmp));
  }  // abandoned: the .tmp goes too
  EXPECT_FALSE(env.FileExists(kPath));
  EXPECT_FALSE(env.FileExists(tmp));
}

TEST(ClustersFileTest, WriteErrorsNameTheFileAndStick) {
  MemEnv env;
  const std::string tmp = std::string(kPath) + ".tmp";
  env.FailWritesAfter(tmp, 3 << 20);
  auto w = ClustersWriter::Create(&env, kPath);
  ASSERT_TRUE(w.ok());
  // ~3 MiB of rows: the first 1 MiB blocks are written, then the fault hits.
  const std::string long_url = "http://example.com/" + std::string(1000, 'x');
  ClusterRecord r{long_url, 0, ClusterRole::kKeep, "exact", 1, "s", 0, "r"};
  Status s;
  for (int i = 0; i < 5000 && s.ok(); ++i) s = (*w)->Add(r);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.IsIOError());
  EXPECT_NE(s.message().find(std::string("cannot write ") + kPath), std::string::npos) << s.ToString();
  EXPECT_EQ((*w)->Add(r).message(), s.message());
  EXPECT_EQ((*w)->Finish().message(), s.message());
  EXPECT_FALSE(env.FileExists(kPath));
  w->reset();
  EXPECT_FALSE(env.FileExists(tmp));
}

TEST(ClustersFileTest, CreateErrorNamesTheFile) {
  // The POSIX Env cannot create a file below a missing folder.
  const std::string path = "/nonexistent-neardup-folder/clusters.tsv";
  auto w = ClustersWriter::Create(Env::Default(), path);
  ASSERT_FALSE(w.ok());
  EXPECT_TRUE(w.status().IsIOError());
  EXPECT_NE(w.status().message().find("cannot write " + path), std::string::npos) << w.status().ToString();
}

TEST(ClustersFileTest, HeaderErrors) {
  MemEnv env;
  auto missing = ClustersReader::Open(&env, "nowhere/clusters.tsv");
  EXPECT_TRUE(missing.status().IsNotFound());
  EXPECT_NE(missing.status().message().find("nowhere/clusters.tsv"), std::string::npos);

  env.AddFile(kPath, "");
  auto empty = ClustersReader::Open(&env, kPath);
  EXPECT_TRUE(empty.status().IsCorruption());
  EXPECT_NE(empty.status().message().find(std::string(kPath) + ": line 1: empty file"), std::string::npos)
      << empty.status().ToString();

  env.AddFile(kPath, "a\tb\n1\t2\n");
  auto other = ClustersReader::Open(&env, kPath);
  EXPECT_TRUE(other.status().IsCorruption());
  EXPECT_NE(other.status().message().find("line 1: not a clusters.tsv header: no column 'url'"),
            std::string::npos)
      << other.status().ToString();

  env.AddFile(kPath, "url\tcluster\trole\n");
  EXPECT_TRUE(ClustersReader::Open(&env, kPath).ok());
  const ClusterColumn need_method[] = {ClusterColumn::kRole, ClusterColumn::kMethod};
  auto no_method = ClustersReader::Open(&env, kPath, need_method);
  EXPECT_TRUE(no_method.status().IsCorruption());
  EXPECT_NE(no_method.status().message().find("no column 'method'"), std::string::npos);
}

TEST(ClustersFileTest, ColumnsByNameInAnyOrder) {
  MemEnv env;
  env.AddFile(kPath, "cluster\textra\turl\n7\tx\thttp://h/1\n");
  auto reader = ClustersReader::Open(&env, kPath);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_FALSE((*reader)->Has(ClusterColumn::kRole));
  ClusterRecord r;
  Result<bool> got = (*reader)->Next(&r);
  ASSERT_TRUE(got.ok() && *got);
  EXPECT_EQ(r.url, "http://h/1");
  EXPECT_EQ(r.cluster, 7u);
  EXPECT_EQ(r.role, ClusterRole::kKeep);  // absent columns read as the defaults
  EXPECT_EQ(r.similarity, 1.0);
}

TEST(ClustersFileTest, MalformedRowsNameTheLineAndAreSkipped) {
  MemEnv env;
  env.AddFile(kPath, std::string(kHeader) +
                         "http://ok/1\t0\tkeep\texact\t1\ts\t0\tr\n"  // line 2
                         "too\tfew\n"                                  // 3
                         "\n"                                          // 4
                         "http://x/\tseven\tkeep\texact\t1\ts\t0\tr\n"  // 5
                         "http://x/\t0\tmaybe\texact\t1\ts\t0\tr\n"     // 6
                         "http://x/\t0\tkeep\texact\tnan\ts\t0\tr\n"    // 7
                         "http://x/\t0\tkeep\texact\t1\ts\t-4\tr\n"     // 8
                         "http://ok/2\t0\tduplicate\texact\t0.5\ts\t9\tr\textra\n");  // 9
  ReadBack back = ReadAll(&env, kPath);
  EXPECT_EQ(back.urls, (std::vector<std::string>{"http://ok/1", "http://ok/2"}));
  ASSERT_EQ(back.errors.size(), 6u);
  const std::string p = std::string(kPath) + ": line ";
  EXPECT_EQ(back.errors[0], p + "3: has 2 fields, the header has 8");
  EXPECT_EQ(back.errors[1], p + "4: has 1 fields, the header has 8");
  EXPECT_EQ(back.errors[2], p + "5: cluster is not a document id: 'seven'");
  EXPECT_EQ(back.errors[3], p + "6: role is neither keep nor duplicate: 'maybe'");
  EXPECT_EQ(back.errors[4], p + "7: similarity is not a number: 'nan'");
  EXPECT_EQ(back.errors[5], p + "8: offset is not a decimal integer: '-4'");
}

TEST(ClustersFileTest, ReadErrorsAreReturned) {
  MemEnv env;
  env.AddFile(kPath, std::string(kHeader) + "http://ok/1\t0\tkeep\texact\t1\ts\t0\tr\n");
  env.FailReadsAfter(kPath, 10);
  auto reader = ClustersReader::Open(&env, kPath);
  EXPECT_TRUE(reader.status().IsIOError()) << reader.status().ToString();
  EXPECT_NE(reader.status().message().find(std::string("cannot read ") + kPath), std::string::npos);
  env.ClearFaults();
  env.SetMaxReadChunk(3);  // short reads are fine
  ReadBack back = ReadAll(&env, kPath);
  EXPECT_EQ(back.urls.size(), 1u);
}

}  // namespace
}  // namespace neardup
