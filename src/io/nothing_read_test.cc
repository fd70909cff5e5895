// Copyright neardup authors. Licensed under Apache-2.0.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "neardup/source.h"

namespace neardup {
namespace {

ReadWarning Warning(const std::string& file, const std::string& key, const std::string& message) {
  ReadWarning w;
  w.file = file;
  w.reason_key = key;
  w.message = message;
  return w;
}

// Counts what it is passed: FirstWarnings hands every warning on.
struct CountingObserver : ReadObserver {
  int count = 0;
  void OnWarning(const ReadWarning&) override { ++count; }
};

TEST(NothingReadLineTest, NamesTheFirstThreeFilesWithWhyAndCountsTheRest) {
  CountingObserver next;
  FirstWarnings first(&next);
  first.OnWarning(Warning("a.warc", "unreadable-file", "NotFound: a.warc: No such file or directory"));
  first.OnWarning(Warning("b.warc.gz", "corrupt-gzip", "invalid block type"));
  first.OnWarning(Warning("b.warc.gz", "truncated", "record cut by end of input"));
  first.OnWarning(Warning("c.jsonl", "empty-file", "file is empty"));
  first.OnWarning(Warning("d.warc", "empty-file", "file is empty"));
  EXPECT_EQ(next.count, 5);
  EXPECT_EQ(first.seen(), 5u);
  ASSERT_EQ(first.first_per_file().size(), 3u);
  const std::string line = NothingReadLine({"a.warc", "b.warc.gz", "c.jsonl", "d.warc"}, first, ReadStats(),
                                           SourceOptions(), "out/warnings.tsv");
  EXPECT_EQ(line,
            "no usable document could be read: a.warc: cannot open (No such file or directory); b.warc.gz: "
            "corrupt-gzip (invalid block type); c.jsonl: empty-file (file is empty); 2 more warnings, see "
            "out/warnings.tsv");
  // Without a place for the rest, the count alone.
  EXPECT_EQ(NothingReadLine({"a.warc"}, first, ReadStats(), SourceOptions()).find("see"), std::string::npos);
}

TEST(NothingReadLineTest, WithoutDamageSaysWhatWasPassedOverByDesign) {
  FirstWarnings none;
  ReadStats stats;
  stats.skipped["type:warcinfo"] = 1;
  stats.skipped["folder-file-left-out"] = 1234;
  const std::string line = NothingReadLine({"crawl"}, none, stats, SourceOptions());
  EXPECT_EQ(line.rfind("no usable document could be read from the 1 input: records and files skipped: "
                       "1,234 folder-file-left-out, 1 type:warcinfo (a folder's files are read when named .html, "
                       ".htm, .txt (also .gz), or .warc",
                       0),
            0u)
      << line;
}

TEST(NothingReadLineTest, InputsHoldingNoRecordAreNamed) {
  FirstWarnings none;
  EXPECT_EQ(NothingReadLine({"-"}, none, ReadStats(), SourceOptions()),
            "no usable document could be read from the 1 input (standard input): it holds no record");
  EXPECT_EQ(NothingReadLine({"a", "b", "c", "d"}, none, ReadStats(), SourceOptions()),
            "no usable document could be read from the 4 inputs (a, b, c, ...): they hold no record");
}

}  // namespace
}  // namespace neardup
