// Copyright neardup authors. Licensed under Apache-2.0.
#include "neardup/kept_pages.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/warc_writer.h"
#include "neardup/env.h"
#include "neardup/source.h"
#include "output/summary_file.h"

namespace neardup {
namespace {

// The inputs of a run: JSON Lines with fields of the user's own, and a
// WARC of a Latin-1 page, a redirect and a revisit.
constexpr const char* kJsonLines =
    "{\"id\": 7, \"url\": \"http://a.example/1\", \"text\": \"first page\", \"lang\": \"en\"}\n"
    "{\"id\": 8, \"url\": \"http://a.example/2\", \"text\": \"first page\"}\n"
    "\n"
    "{\"id\": 9, \"url\": \"http://a.example/3\", \"html\": \"<p>third \\u00e9</p>\", \"meta\": {\"k\": [1, 2]}}\n";

void WriteInputs(MemEnv* env, const std::string& prefix) {
  env->AddFile(prefix + "a.jsonl", kJsonLines);
  auto file = env->NewWritableFile(prefix + "b.warc.gz");
  ASSERT_TRUE(file.ok());
  io::WarcWriter w(file.value().get(), io::WarcWriterOptions());
  io::WarcResponse latin1;
  latin1.url = "http://b.example/caf";
  latin1.date = "2024-03-01T10:00:00Z";
  latin1.content_type = "text/html; charset=iso-8859-1";
  const std::string body = "<html><body><p>caf\xe9 au lait</p></body></html>";
  latin1.body = body;
  ASSERT_TRUE(w.WriteResponse(latin1).ok());
  io::WarcResponse moved;
  moved.url = "http://b.example/old";
  moved.status = 301;
  moved.headers = {{"Location", "http://b.example/caf"}};
  ASSERT_TRUE(w.WriteResponse(moved).ok());
  ASSERT_TRUE(w.WriteRecord("revisit", "2024-04-01T10:00:00Z",
                            {{"WARC-Target-URI", "http://b.example/caf"},
                             {"WARC-Profile", "http://netpreserve.org/warc/1.1/revisit/server-not-modified"},
                             {"WARC-Refers-To-Target-URI", "http://b.example/caf"},
                             {"WARC-Refers-To-Date", "2024-03-01T10:00:00Z"},
                             {"Content-Type", "application/http; msgtype=response"}},
                            "HTTP/1.1 304 Not Modified\r\nContent-Type: text/html\r\n\r\n")
                  .ok());
  ASSERT_TRUE(w.Close().ok());
}

std::vector<Document> ReadAll(Env* env, const std::vector<std::string>& inputs) {
  std::vector<Document> docs;
  auto source = OpenDocumentSource(inputs, SourceOptions(), env);
  EXPECT_TRUE(source.ok());
  Document d;
  while (source.value()->Next(&d)) docs.push_back(d);
  return docs;
}

// A run over in/a.jsonl and in/b.warc.gz whose clusters.tsv gives page i
// the role roles[i] ('k' keep, 'd' duplicate), as dedup writes it from the
// documents read; `inputs` in summary.json.
std::vector<Document> MakeRun(MemEnv* env, const std::string& roles,
                              std::vector<std::string> inputs = {"in/a.jsonl", "in/b.warc.gz"},
                              const std::vector<int>& clusters = {}) {
  WriteInputs(env, "in/");
  std::vector<Document> docs = ReadAll(env, {"in/a.jsonl", "in/b.warc.gz"});
  EXPECT_EQ(docs.size(), roles.size());
  std::string tsv = "url\tcluster\trole\tmethod\tsimilarity\tsource\toffset\treason\n";
  for (size_t i = 0; i < docs.size() && i < roles.size(); ++i) {
    tsv += docs[i].url + "\t" + std::to_string(clusters.empty() ? 0 : clusters[i]) + "\t" +
           (roles[i] == 'k' ? "keep" : "duplicate") + "\texact\t1\t" + docs[i].source +
           "\t" + std::to_string(docs[i].source_offset) + "\tshorter-url\n";
  }
  env->AddFile("run/clusters.tsv", tsv);
  nlohmann::ordered_json summary;
  summary["neardup_version"] = "9.9.9";
  summary["command"] = "dedup";
  summary["options"] = {{"max_record_bytes", 1 << 20}, {"keep_non_2xx", true}};
  summary["inputs"] = inputs;
  EXPECT_TRUE(WriteSummaryJson(env, "run/summary.json", summary).ok());
  return docs;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t at = 0;
  while (at < text.size()) {
    const size_t nl = text.find('\n', at);
    lines.push_back(text.substr(at, nl - at));
    at = nl == std::string::npos ? text.size() : nl + 1;
  }
  return lines;
}

TEST(KeptPagesTest, JsonLinesKeepTheLinesReadAndConvertOtherPages) {
  MemEnv env;
  const std::vector<Document> docs = MakeRun(&env, "kdkkkd");
  ASSERT_EQ(docs.size(), 6u);
  auto r = WriteKeptPages("run", "kept.jsonl", KeptPagesOptions(), &env);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows, 6u);
  EXPECT_EQ(r->written, 4u);
  EXPECT_EQ(r->from_json_lines, 2u);
  const std::string out = env.GetContents("kept.jsonl").value();
  EXPECT_EQ(r->bytes_written, out.size());
  const std::vector<std::string> lines = Lines(out);
  ASSERT_EQ(lines.size(), 4u);
  // The lines read, byte for byte, the user's fields with them.
  EXPECT_EQ(lines[0], "{\"id\": 7, \"url\": \"http://a.example/1\", \"text\": \"first page\", \"lang\": \"en\"}");
  EXPECT_EQ(lines[1],
            "{\"id\": 9, \"url\": \"http://a.example/3\", \"html\": \"<p>third \\u00e9</p>\", \"meta\": {\"k\": [1, "
            "2]}}");
  // The Latin-1 page in UTF-8, with its date and status; the redirect.
  const nlohmann::json page = nlohmann::json::parse(lines[2]);
  EXPECT_EQ(page["url"], "http://b.example/caf");
  EXPECT_EQ(page["html"], "<html><body><p>caf\xc3\xa9 au lait</p></body></html>");
  EXPECT_EQ(page["date"], "2024-03-01T10:00:00Z");
  EXPECT_EQ(page["status"], 200);
  const nlohmann::json redirect = nlohmann::json::parse(lines[3]);
  EXPECT_EQ(redirect["url"], "http://b.example/old");
  EXPECT_EQ(redirect["status"], 301);
  EXPECT_EQ(redirect["redirect"], "http://b.example/caf");
  // What dedup reads back: the kept pages, in order.
  const std::vector<Document> back = ReadAll(&env, {"kept.jsonl"});
  ASSERT_EQ(back.size(), 4u);
  EXPECT_EQ(back[0].url, docs[0].url);
  EXPECT_EQ(back[1].url, docs[2].url);
  EXPECT_EQ(back[2].url, docs[3].url);
  EXPECT_EQ(back[3].redirect_target, "http://b.example/caf");
  EXPECT_FALSE(env.FileExists("kept.jsonl.tmp"));
}

// Each page written names its cluster and the cluster's size.
TEST(KeptPagesTest, NotesNameEachPagesCluster) {
  MemEnv env;
  MakeRun(&env, "kdkkdd", {"in/a.jsonl", "in/b.warc.gz"}, {0, 0, 2, 3, 3, 3});
  KeptPagesOptions options;
  options.annotate = true;
  auto r = WriteKeptPages("run", "kept.jsonl", options, &env);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::vector<std::string> lines = Lines(env.GetContents("kept.jsonl").value());
  ASSERT_EQ(lines.size(), 3u);
  // A line read is the line with the note at its end.
  EXPECT_EQ(lines[0],
            "{\"id\": 7, \"url\": \"http://a.example/1\", \"text\": \"first page\", \"lang\": \"en\", \"neardup\": "
            "{\"cluster\": 0, \"cluster_size\": 2}}");
  const std::vector<std::pair<int, int>> want = {{0, 2}, {2, 1}, {3, 3}};
  for (size_t i = 0; i < lines.size(); ++i) {
    const nlohmann::json j = nlohmann::json::parse(lines[i]);
    EXPECT_EQ(j["neardup"]["cluster"], want[i].first) << lines[i];
    EXPECT_EQ(j["neardup"]["cluster_size"], want[i].second) << lines[i];
  }
  EXPECT_EQ(ReadAll(&env, {"kept.jsonl"}).size(), 3u);  // still what dedup reads
  options.format = KeptPagesOptions::Format::kWarc;
  options.pages = KeptPagesOptions::Pages::kDuplicates;
  ASSERT_TRUE(WriteKeptPages("run", "dups.warc", options, &env).ok());
  const std::string warc = env.GetContents("dups.warc").value();
  EXPECT_NE(warc.find("WARC-Target-URI: http://a.example/2\r\nWARC-Neardup-Cluster: 0\r\nWARC-Neardup-Cluster-Size: 2\r\n"),
            std::string::npos)
      << warc;
  EXPECT_EQ(ReadAll(&env, {"dups.warc"}).size(), 3u);
  // Without the option, no note.
  ASSERT_TRUE(WriteKeptPages("run", "plain.jsonl", KeptPagesOptions(), &env).ok());
  EXPECT_EQ(env.GetContents("plain.jsonl").value().find("neardup"), std::string::npos);
}

TEST(KeptPagesTest, FormatsByNameAndByWord) {
  EXPECT_EQ(KeptPagesFormatOfName("a/kept.WARC.gz"), KeptPagesOptions::Format::kWarc);
  EXPECT_EQ(KeptPagesFormatOfName("kept.warc.zst"), KeptPagesOptions::Format::kWarc);
  EXPECT_EQ(KeptPagesFormatOfName("kept.jsonl.gz"), KeptPagesOptions::Format::kJsonLines);
  EXPECT_EQ(KeptPagesFormatOfName("warc.data"), KeptPagesOptions::Format::kJsonLines);
  EXPECT_EQ(ParseKeptPagesFormat("warc").value(), KeptPagesOptions::Format::kWarc);
  EXPECT_EQ(ParseKeptPagesFormat("jsonl").value(), KeptPagesOptions::Format::kJsonLines);
  EXPECT_TRUE(ParseKeptPagesFormat("csv").status().IsInvalidArgument());
}

TEST(KeptPagesTest, DuplicatesAreTheOtherRows) {
  MemEnv env;
  const std::vector<Document> docs = MakeRun(&env, "kdkkkd");
  KeptPagesOptions options;
  options.pages = KeptPagesOptions::Pages::kDuplicates;
  // Into a folder not made yet.
  auto r = WriteKeptPages("run", "new/dir/dups.jsonl", options, &env);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->written, 2u);
  const std::vector<Document> back = ReadAll(&env, {"new/dir/dups.jsonl"});
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].url, "http://a.example/2");
  // The revisit, as the capture it repeats.
  EXPECT_EQ(back[1].url, docs[5].url);
  EXPECT_EQ(back[1].revisit_of, "http://b.example/caf");
  EXPECT_EQ(back[1].revisit_of_date, "2024-03-01T10:00:00Z");
}

TEST(KeptPagesTest, WarcKeepsPayloadsStatusesAndCharsets) {
  for (const char* name : {"kept.warc.gz", "kept.warc", "kept.warc.zst"}) {
    SCOPED_TRACE(name);
    MemEnv env;
    const std::vector<Document> docs = MakeRun(&env, "kkdkkk");
    KeptPagesOptions options;
    options.format = KeptPagesFormatOfName(name);
    ASSERT_EQ(options.format, KeptPagesOptions::Format::kWarc);
    auto r = WriteKeptPages("run", name, options, &env);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->written, 5u);
    EXPECT_EQ(r->from_json_lines, 0u);
    const std::vector<Document> back = ReadAll(&env, {name});
    ASSERT_EQ(back.size(), 5u);
    for (size_t i = 0, j = 0; i < docs.size(); ++i) {
      if (i == 2) continue;  // the duplicate
      SCOPED_TRACE(docs[i].url);
      const Document& b = back[j++];
      EXPECT_EQ(b.url, docs[i].url);
      EXPECT_EQ(b.body, docs[i].body);
      EXPECT_EQ(b.kind, docs[i].kind);
      EXPECT_EQ(b.redirect_target, docs[i].redirect_target);
      EXPECT_EQ(b.revisit_of, docs[i].revisit_of);
      EXPECT_EQ(b.revisit_of_date, docs[i].revisit_of_date);
      if (docs[i].http_status != 0) {
        EXPECT_EQ(b.http_status, docs[i].http_status);
      }
    }
    // The Latin-1 page keeps its bytes and its charset; a page read from
    // JSON Lines is UTF-8 text and says so.
    EXPECT_EQ(back[2].declared_charset, "iso-8859-1");
    EXPECT_EQ(back[2].fetch_date, "2024-03-01T10:00:00Z");
    EXPECT_EQ(back[1].declared_charset, "utf-8");
  }
}

TEST(KeptPagesTest, CompressedJsonLinesHoldTheSamePages) {
  MemEnv env;
  MakeRun(&env, "kdkkkd");
  ASSERT_TRUE(WriteKeptPages("run", "kept.jsonl", KeptPagesOptions(), &env).ok());
  for (const char* name : {"kept.jsonl.gz", "kept.jsonl.zst"}) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(WriteKeptPages("run", name, KeptPagesOptions(), &env).ok());
    EXPECT_NE(env.GetContents(name).value(), env.GetContents("kept.jsonl").value());
    const std::vector<Document> plain = ReadAll(&env, {"kept.jsonl"});
    const std::vector<Document> packed = ReadAll(&env, {name});
    ASSERT_EQ(packed.size(), plain.size());
    for (size_t i = 0; i < plain.size(); ++i) {
      EXPECT_EQ(packed[i].url, plain[i].url);
      EXPECT_EQ(packed[i].body, plain[i].body);
    }
  }
}

TEST(KeptPagesTest, InputsThatDifferFromTheRunsWriteNothing) {
  const std::string original = kJsonLines;
  const std::vector<std::string> changed = {
      // Another URL in a row's place.
      std::string(original).replace(original.find("a.example/2"), 11, "a.example/X"),
      // A page more, at the end.
      original + "{\"url\": \"http://a.example/4\", \"text\": \"new\"}\n",
      // A page fewer.
      original.substr(0, original.find("{\"id\": 9")),
      // The same pages at other offsets (a line longer).
      "{\"id\": 70, " + original.substr(9)};
  for (const std::string& text : changed) {
    MemEnv env;
    MakeRun(&env, "kdkkkd");
    env.AddFile("in/a.jsonl", text);
    auto r = WriteKeptPages("run", "kept.jsonl", KeptPagesOptions(), &env);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.status().IsFailedPrecondition()) << r.status().ToString();
    EXPECT_NE(r.status().message().find("the inputs differ from the run's"), std::string::npos);
    EXPECT_FALSE(env.FileExists("kept.jsonl"));
    EXPECT_FALSE(env.FileExists("kept.jsonl.tmp"));
  }
}

TEST(KeptPagesTest, InputsGivenInPlaceOfSummarys) {
  MemEnv env;
  MakeRun(&env, "kdkkkd", {"gone/a.jsonl", "gone/b.warc.gz"});
  auto missing = WriteKeptPages("run", "kept.jsonl", KeptPagesOptions(), &env);
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.status().IsNotFound()) << missing.status().ToString();
  EXPECT_NE(missing.status().message().find("input gone/a.jsonl not found"), std::string::npos);
  EXPECT_FALSE(env.FileExists("kept.jsonl"));
  KeptPagesOptions options;
  options.inputs = {"in/a.jsonl", "in/b.warc.gz"};
  auto r = WriteKeptPages("run", "kept.jsonl", options, &env);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->written, 4u);
}

// A folder's pages are named by their paths under the input as given: the
// folder given in place of the run's reads as the run's.
TEST(KeptPagesTest, AFolderGivenInPlaceOfTheRuns) {
  MemEnv env;
  for (const char* prefix : {"site/", "moved/site/"}) {
    env.AddFile(std::string(prefix) + "a.html", "<p>one page</p>");
    env.AddFile(std::string(prefix) + "b/c.html", "<p>another page</p>");
  }
  const std::vector<Document> docs = ReadAll(&env, {"site"});
  ASSERT_EQ(docs.size(), 2u);
  ASSERT_EQ(docs[1].url, "site/b/c.html");
  std::string tsv = "url\tcluster\trole\tmethod\tsimilarity\tsource\toffset\treason\n";
  for (const Document& d : docs) tsv += d.url + "\t0\tkeep\tsingle\t1\t" + d.source + "\t0\tsingle\n";
  env.AddFile("run/clusters.tsv", tsv);
  nlohmann::ordered_json summary;
  summary["inputs"] = {"site"};
  ASSERT_TRUE(WriteSummaryJson(&env, "run/summary.json", summary).ok());
  KeptPagesOptions options;
  options.inputs = {"moved/site"};
  auto r = WriteKeptPages("run", "kept.jsonl", options, &env);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->written, 2u);
  const std::vector<Document> back = ReadAll(&env, {"kept.jsonl"});
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].url, "moved/site/b/c.html");
  EXPECT_EQ(back[1].body, "<p>another page</p>");
  // Another folder's pages are not the run's.
  env.AddFile("other/a.html", "<p>one page</p>");
  env.AddFile("other/b/d.html", "<p>another page</p>");
  options.inputs = {"other"};
  auto wrong = WriteKeptPages("run", "kept2.jsonl", options, &env);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("row 2 is site/b/c.html"), std::string::npos) << wrong.status().ToString();
}

TEST(KeptPagesTest, RunsThatCannotBeReadAgain) {
  {
    MemEnv env;
    MakeRun(&env, "kdkkkd", {});
    auto r = WriteKeptPages("run", "kept.jsonl", KeptPagesOptions(), &env);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
    EXPECT_NE(r.status().message().find("names no inputs"), std::string::npos);
  }
  {
    MemEnv env;
    MakeRun(&env, "kdkkkd", {"-"});
    auto r = WriteKeptPages("run", "kept.jsonl", KeptPagesOptions(), &env);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
    EXPECT_NE(r.status().message().find("standard input"), std::string::npos);
  }
  {
    MemEnv env;
    auto r = WriteKeptPages("nothing", "kept.jsonl", KeptPagesOptions(), &env);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.status().IsNotFound()) << r.status().ToString();
  }
}

TEST(KeptPagesTest, AMalformedRowStillStandsForItsPage) {
  MemEnv env;
  const std::vector<Document> docs = MakeRun(&env, "kkkkkk");
  std::string tsv = env.GetContents("run/clusters.tsv").value();
  // Row 2's cluster is no number: its page is read past, the rest match.
  const size_t row2 = tsv.find("http://a.example/2\t0");
  ASSERT_NE(row2, std::string::npos);
  tsv.replace(row2 + std::string("http://a.example/2\t").size(), 1, "x");
  env.AddFile("run/clusters.tsv", tsv);
  auto r = WriteKeptPages("run", "kept.jsonl", KeptPagesOptions(), &env);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows, 6u);
  EXPECT_EQ(r->written, 5u);
  const std::vector<Document> back = ReadAll(&env, {"kept.jsonl"});
  ASSERT_EQ(back.size(), 5u);
  EXPECT_EQ(back[1].url, docs[2].url);
}

TEST(KeptPagesTest, AWriteErrorLeavesNoFile) {
  MemEnv env;
  MakeRun(&env, "kkkkkk");
  env.FailWritesAfter("kept.jsonl.tmp", 100);
  auto r = WriteKeptPages("run", "kept.jsonl", KeptPagesOptions(), &env);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsIOError()) << r.status().ToString();
  EXPECT_FALSE(env.FileExists("kept.jsonl"));
  EXPECT_FALSE(env.FileExists("kept.jsonl.tmp"));
}

}  // namespace
}  // namespace neardup
