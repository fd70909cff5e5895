// Tests of the `neardup` command line: exit codes, messages, outputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "test_util.h"

namespace neardup {
namespace {

namespace fs = std::filesystem;
using testing::CliPath;
using testing::MakeTempDir;
using testing::ReadFileOrEmpty;
using testing::RunCommand;
using testing::WriteFileOrDie;

using testing::Q;

TEST(CliTest, HelpListsCommandAndOptions) {
  std::string out;
  EXPECT_EQ(RunCommand(Q(CliPath()) + " dedup --help", &out), 0);
  for (const char* flag : {"--out", "--threads", "--quiet", "--method", "--max-record-size"}) {
    EXPECT_NE(out.find(flag), std::string::npos) << flag;
  }
  // The description names the default method and lists the others.
  EXPECT_NE(out.find("robust (the default)"), std::string::npos) << out;
  EXPECT_EQ(out.find("with --method broder"), std::string::npos) << out;
  for (const char* method : {"broder", "simhash", "combined", "paragraphs", "chunks", "exact"}) {
    EXPECT_NE(out.find(method), std::string::npos) << method;
  }
  EXPECT_EQ(RunCommand(Q(CliPath()) + " --version", &out), 0);
  EXPECT_NE(out.find("neardup "), std::string::npos);
}

TEST(CliTest, BadUsageExitsTwo) {
  std::string out;
  EXPECT_EQ(RunCommand(Q(CliPath()), &out), 2);
  EXPECT_EQ(RunCommand(Q(CliPath()) + " dedup", &out), 2);
  EXPECT_NE(out.find("required"), std::string::npos) << out;  // names what is missing
  EXPECT_EQ(RunCommand(Q(CliPath()) + " dedup x --out y --threads -3", &out), 2);
  EXPECT_EQ(RunCommand(Q(CliPath()) + " dedup x --out y --method nope", &out), 2);
  EXPECT_EQ(RunCommand(Q(CliPath()) + " dedup x --out y --max-record-size lots", &out), 2);
  EXPECT_NE(out.find("--max-record-size"), std::string::npos) << out;
  EXPECT_EQ(RunCommand(Q(CliPath()) + " frobnicate", &out), 2);
}

// --memory bounds the whole run for every method: a budget below what the
// program holds before it reads a page is refused before reading, in one
// line that says how much it needs; the sample fits in 256M.
TEST(CliTest, AMemoryBudgetTooSmallIsRefusedBeforeReading) {
  const std::string dir = MakeTempDir("cli-memory");
  const std::string sample = testing::RepoTestDataDir() + "/sample/sample-crawl.warc.gz";
  for (const char* method : {"robust", "broder", "exact"}) {
    std::string out;
    EXPECT_EQ(RunCommand(Q(CliPath()) + " dedup " + Q(sample) + " --out " + Q(dir + "/small") + " --method " +
                             method + " --memory 8M --quiet",
                         &out),
              2)
        << out;
    EXPECT_NE(out.find("of 8 MiB cannot hold this run: the program holds "), std::string::npos) << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
    EXPECT_FALSE(fs::exists(dir + "/small/clusters.tsv"));
    EXPECT_EQ(RunCommand(Q(CliPath()) + " dedup " + Q(sample) + " --out " + Q(dir + "/fits") + " --method " +
                             method + " --memory 256M --quiet",
                         &out),
              0)
        << out;
  }
  fs::remove_all(dir);
}

TEST(CliTest, NothingUsableExitsOneWithOneLine) {
  const std::string dir = MakeTempDir("cli-nothing");
  std::string out;
  EXPECT_EQ(RunCommand(Q(CliPath()) + " dedup " + Q(dir + "/missing.warc.gz") + " --out " +
                           Q(dir + "/out") + " --quiet",
                       &out),
            1);
  EXPECT_NE(out.find("no usable document"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  // The one line names the file and why it gave nothing, even with --quiet.
  EXPECT_NE(out.find(dir + "/missing.warc.gz: cannot open (No such file or directory)"),
            std::string::npos)
      << out;
  fs::remove_all(dir);
}

// A folder whose files are of no kind read, or a crawl of records that are
// no pages: nothing damaged, so the one line says what was passed over.
TEST(CliTest, NothingUsableSaysWhatWasPassedOver) {
  const std::string dir = MakeTempDir("cli-nothing-passed");
  fs::create_directories(dir + "/site");
  WriteFileOrDie(dir + "/site/logo.png", "\x89PNG");
  WriteFileOrDie(dir + "/site/style.css", "p {}");
  std::string out;
  EXPECT_EQ(RunCommand(Q(CliPath()) + " dedup " + Q(dir + "/site") + " --out " + Q(dir + "/out") + " --quiet", &out),
            1);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_NE(out.find("2 folder-file-left-out"), std::string::npos) << out;
  EXPECT_NE(out.find(".htm, .txt (also .gz), or .warc"), std::string::npos) << out;
  WriteFileOrDie(dir + "/info.warc", "WARC/1.0\r\nWARC-Type: warcinfo\r\nContent-Length: 0\r\n\r\n\r\n\r\n");
  EXPECT_EQ(RunCommand(Q(CliPath()) + " dedup " + Q(dir + "/info.warc") + " --out " + Q(dir + "/out2") + " --quiet",
                       &out),
            1);
  EXPECT_NE(out.find("1 type:warcinfo"), std::string::npos) << out;
  // A folder with no file at all: the line names it and says so.
  fs::create_directories(dir + "/nothing");
  EXPECT_EQ(RunCommand(Q(CliPath()) + " dedup " + Q(dir + "/nothing") + " --out " + Q(dir + "/out3") + " --quiet",
                       &out),
            1);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_NE(out.find(dir + "/nothing: empty-folder (folder holds no files)"), std::string::npos) << out;
  fs::remove_all(dir);
}

// Every command that reads crawls says why nothing was read the way dedup
// does: the file and the reason, on one line.
TEST(CliTest, EveryReadingCommandNamesTheUnreadableInputAndWhy) {
  const std::string dir = MakeTempDir("cli-nothing-commands");
  const std::string missing = dir + "/missing.warc";
  const std::string why = missing + ": cannot open (No such file or directory)";
  const std::vector<std::string> commands = {
      "dedup " + Q(missing) + " --out " + Q(dir + "/d"),
      "overlap " + Q(missing) + " --out " + Q(dir + "/o.tsv"),
      "compare " + Q(missing) + " " + Q(missing),
      "connected " + Q(missing) + " --out " + Q(dir + "/c"),
      "partition-plan " + Q(missing),
  };
  for (const std::string& command : commands) {
    std::string out;
    const bool quiet = command.rfind("compare", 0) != 0;  // compare prints no progress
    EXPECT_EQ(RunCommand(Q(CliPath()) + " " + command + (quiet ? " --quiet" : ""), &out), 1)
        << command << "\n" << out;
    EXPECT_NE(out.find("no usable document could be read: " + why), std::string::npos) << command << "\n" << out;
  }
  fs::remove_all(dir);
}

TEST(CliTest, NothingUsableNamesUpToThreeFilesWithReasons) {
  const std::string dir = MakeTempDir("cli-nothing-many");
  WriteFileOrDie(dir + "/empty.jsonl", "");
  WriteFileOrDie(dir + "/notes.md", "# not a crawl\n");
  std::string out;
  EXPECT_EQ(RunCommand(Q(CliPath()) + " dedup " + Q(dir + "/missing.warc") + " " +
                           Q(dir + "/empty.jsonl") + " " + Q(dir + "/notes.md") + " " +
                           Q(dir + "/gone1.warc") + " " + Q(dir + "/gone2.warc") + " --out " +
                           Q(dir + "/out") + " --quiet",
                       &out),
            1);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_NE(out.find(dir + "/missing.warc: cannot open (No such file or directory)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find(dir + "/empty.jsonl: empty-file"), std::string::npos) << out;
  EXPECT_NE(out.find(dir + "/notes.md: unknown-format"), std::string::npos) << out;
  // The fourth and fifth files are left to warnings.tsv.
  EXPECT_EQ(out.find("gone1.warc"), std::string::npos) << out;
  EXPECT_NE(out.find("2 more warnings, see " + dir + "/out/warnings.tsv"), std::string::npos)
      << out;
  const std::string warnings = ReadFileOrEmpty(dir + "/out/warnings.tsv");
  EXPECT_NE(warnings.find("gone2.warc"), std::string::npos) << warnings;
  fs::remove_all(dir);
}

TEST(CliTest, RunsOnJsonLinesWithProgressAndSummary) {
  const std::string dir = MakeTempDir("cli-run");
  WriteFileOrDie(dir + "/in.jsonl",
                 "{\"url\":\"http://a/1\",\"html\":\"<p>one two three</p>\"}\n"
                 "{\"url\":\"http://a/2\",\"html\":\"<p>one <i>two</i> three</p>\"}\n"
                 "{\"url\":\"http://a/3\",\"text\":\"four five\"}\n");
  std::string out;
  ASSERT_EQ(RunCommand(Q(CliPath()) + " dedup " + Q(dir + "/in.jsonl") + " --out " +
                           Q(dir + "/out") + " --threads 2 --keeper input-order",
                       &out),
            0)
      << out;
  EXPECT_NE(out.find("3 documents"), std::string::npos) << out;
  EXPECT_NE(out.find("clusters: 1"), std::string::npos) << out;
  const std::string tsv = ReadFileOrEmpty(dir + "/out/clusters.tsv");
  EXPECT_NE(tsv.find("http://a/2\t0\tduplicate\texact\t1"), std::string::npos) << tsv;
  EXPECT_TRUE(fs::exists(dir + "/out/summary.json"));
  // --quiet: nothing on stderr/stdout.
  ASSERT_EQ(RunCommand(Q(CliPath()) + " dedup " + Q(dir + "/in.jsonl") + " --out " +
                           Q(dir + "/out2") + " -q --keeper input-order",
                       &out),
            0);
  EXPECT_EQ(out, "");
  EXPECT_EQ(ReadFileOrEmpty(dir + "/out2/clusters.tsv"), tsv);
  fs::remove_all(dir);
}

TEST(CliTest, StandardInputAsJsonLines) {
  const std::string dir = MakeTempDir("cli-stdin");
  std::string out;
  ASSERT_EQ(RunCommand("printf '%s\\n' '{\"url\":\"u1\",\"text\":\"same words\"}' "
                       "'{\"url\":\"u2\",\"text\":\"Same words\"}' | " +
                           Q(CliPath()) + " dedup - --out " + Q(dir + "/out") + " -q --keeper input-order",
                       &out),
            0)
      << out;
  const std::string tsv = ReadFileOrEmpty(dir + "/out/clusters.tsv");
  EXPECT_NE(tsv.find("u2\t0\tduplicate"), std::string::npos) << tsv;
  fs::remove_all(dir);
}

TEST(CliTest, WarningsNameFileOffsetAndReason) {
  const std::string dir = MakeTempDir("cli-warn");
  WriteFileOrDie(dir + "/in.jsonl",
                 "{\"url\":\"http://a/1\",\"text\":\"fine\"}\n{broken\n");
  std::string out;
  ASSERT_EQ(RunCommand(Q(CliPath()) + " dedup " + Q(dir + "/in.jsonl") + " " +
                           Q(dir + "/absent") + " --out " + Q(dir + "/out"),
                       &out),
            0)
      << out;
  EXPECT_NE(out.find("warning: " + dir + "/in.jsonl: offset 35"), std::string::npos) << out;
  EXPECT_NE(out.find(dir + "/absent"), std::string::npos) << out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace neardup

namespace neardup {
namespace {

TEST(CliTest, BroderFlags) {
  const std::string dir = testing::MakeTempDir("cli-broder");
  std::string words;
  for (int i = 0; i < 400; ++i) words += "w" + std::to_string(i * 7919 % 1000) + " ";
  testing::WriteFileOrDie(dir + "/in.jsonl", testing::JsonLine("http://a/1", "text", words) +
                                                  testing::JsonLine("http://b/2", "text", words + "tail") +
                                                  testing::JsonLine("http://c/3", "text", "other page"));
  const std::string cli = "'" + testing::CliPath() + "'";
  const std::string in = " '" + dir + "/in.jsonl'";
  std::string out;
  ASSERT_EQ(testing::RunCommand(cli + " dedup" + in + " --out '" + dir + "/o' --method broder --pairs "
                                "--shingle 8 --no-wrap --minhash rabin --seed 7 -q", &out),
            0)
      << out;
  auto pairs = testing::ReadTsvRows(dir + "/o/pairs.tsv");
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[1][0], "http://a/1");
  EXPECT_EQ(pairs[1][1], "http://b/2");
  const std::string summary = testing::ReadFileOrEmpty(dir + "/o/summary.json");
  EXPECT_NE(summary.find("broder:k=8,no-wrap,m=84,l=14,family=rabin,seed=7"), std::string::npos)
      << summary;
  EXPECT_EQ(testing::RunCommand(cli + " dedup" + in + " --out '" + dir + "/p' --method exact --pairs", &out), 2);
  EXPECT_NE(out.find("--pairs"), std::string::npos) << out;
  EXPECT_EQ(testing::RunCommand(cli + " dedup" + in + " --out '" + dir + "/p' --method broder --wrap --no-wrap", &out), 2);
  EXPECT_EQ(testing::RunCommand(cli + " dedup" + in + " --out '" + dir + "/p' --method broder --level some", &out), 2);
  std::filesystem::remove_all(dir);
}

// robust reads titles by default (`titles` in its spec); --ignore-titles
// leaves them out of the spec, as a spec written before them reads.
TEST(CliTest, RobustIgnoreTitles) {
  const std::string dir = testing::MakeTempDir("cli-titles");
  testing::WriteFileOrDie(dir + "/in.jsonl", testing::JsonLine("http://a.example/1", "html",
                                                               "<title>One page</title><p>some words of a page</p>"));
  const std::string cli = "'" + testing::CliPath() + "'";
  const std::string in = " '" + dir + "/in.jsonl'";
  std::string out;
  ASSERT_EQ(testing::RunCommand(cli + " dedup" + in + " --out '" + dir + "/with' -q", &out), 0) << out;
  ASSERT_EQ(testing::RunCommand(cli + " dedup" + in + " --out '" + dir + "/without' --ignore-titles -q", &out), 0)
      << out;
  EXPECT_NE(testing::ReadFileOrEmpty(dir + "/with/summary.json").find(",titles,"), std::string::npos);
  const std::string without = testing::ReadFileOrEmpty(dir + "/without/summary.json");
  EXPECT_NE(without.find("\"robust:k=5"), std::string::npos) << without;
  EXPECT_EQ(without.find(",titles,"), std::string::npos) << without;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace neardup

namespace neardup {
namespace {

// `neardup eval` on a hand-checked case: truth {a1, a2} and {b3, c4}; exact
// dedup finds {a1, a2} only. Pairs: 1 true positive, 0 false positives, 1
// false negative (b3-c4, on different sites). B-cubed recall: (1 + 1 + 1/2 +
// 1/2) / 4 = 0.75.
TEST(CliTest, EvalScoresAgainstTruth) {
  const std::string dir = testing::MakeTempDir("cli-eval");
  testing::WriteFileOrDie(dir + "/in.jsonl", testing::JsonLine("http://a/1", "text", "alpha beta gamma") +
                                                  testing::JsonLine("http://a/2", "text", "alpha beta gamma") +
                                                  testing::JsonLine("http://b/3", "text", "delta epsilon") +
                                                  testing::JsonLine("http://c/4", "text", "delta epsilon zeta"));
  testing::WriteFileOrDie(dir + "/truth.tsv",
                          "url\tgroup\nhttp://a/1\tg1\nhttp://a/2\tg1\nhttp://b/3\tg2\nhttp://c/4\tg2\n");
  const std::string cli = "'" + testing::CliPath() + "'";
  std::string out;
  ASSERT_EQ(testing::RunCommand(cli + " dedup '" + dir + "/in.jsonl' --out '" + dir + "/out' -q", &out), 0);
  ASSERT_EQ(testing::RunCommand(cli + " eval --truth '" + dir + "/truth.tsv' '" + dir + "/out' --json", &out), 0)
      << out;
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["items"], 4);
  EXPECT_EQ(j["pairs"]["true_positive"], 1);
  EXPECT_EQ(j["pairs"]["false_positive"], 0);
  EXPECT_EQ(j["pairs"]["false_negative"], 1);
  EXPECT_DOUBLE_EQ(j["pairs"]["recall"].get<double>(), 0.5);
  EXPECT_EQ(j["different_site_pairs"]["false_negative"], 1);
  EXPECT_NEAR(j["bcubed_recall"].get<double>(), 0.75, 1e-6);
  EXPECT_EQ(j["wrong_same_site_merges"], 0);
  ASSERT_EQ(testing::RunCommand(cli + " eval --truth '" + dir + "/truth.tsv' '" + dir + "/out'", &out), 0);
  EXPECT_NE(out.find("adjusted Rand index"), std::string::npos) << out;
  EXPECT_EQ(testing::RunCommand(cli + " eval --truth '" + dir + "/missing.tsv' '" + dir + "/out'", &out), 1);
  EXPECT_EQ(testing::RunCommand(cli + " eval '" + dir + "/out'", &out), 2);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace neardup

namespace neardup {
namespace {

TEST(CliTest, CompareExplainsAPair) {
  const std::string dir = testing::MakeTempDir("cli-compare");
  std::string words;
  for (int i = 0; i < 300; ++i) words += "w" + std::to_string(i) + " ";
  testing::WriteFileOrDie(dir + "/a.html", "<html><body><p>" + words + "alpha omega</p></body></html>");
  testing::WriteFileOrDie(dir + "/b.html", "<html><body><p>" + words + "beta omega</p></body></html>");
  const std::string cli = "'" + testing::CliPath() + "'";
  std::string out;
  ASSERT_EQ(testing::RunCommand(cli + " compare '" + dir + "/a.html' '" + dir + "/b.html'", &out), 0) << out;
  EXPECT_NE(out.find("302 terms"), std::string::npos) << out;
  EXPECT_NE(out.find("same token sequence: no"), std::string::npos) << out;
  // One term replaced: one deleted plus one inserted (Henzinger's term difference).
  EXPECT_NE(out.find("term difference (Henzinger: terms a diff of the token sequences returns): 2"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("- only in A A[300,301) B[300,300): alpha"), std::string::npos) << out;
  EXPECT_NE(out.find("+ only in B A[301,301) B[300,301): beta"), std::string::npos) << out;
  EXPECT_NE(out.find("B-similar (broder would pair them)"), std::string::npos) << out;
  ASSERT_EQ(testing::RunCommand(cli + " compare '" + dir + "/a.html' '" + dir + "/a.html'", &out), 0);
  EXPECT_NE(out.find("same bytes: yes"), std::string::npos) << out;
  EXPECT_NE(out.find("6 of 6 supershingles"), std::string::npos) << out;
  EXPECT_NE(out.find("384 of 384 simhash bits"), std::string::npos) << out;
  EXPECT_EQ(testing::RunCommand(cli + " compare '" + dir + "/a.html' '" + dir + "/missing.html'", &out), 1);
  std::filesystem::remove_all(dir);
}

// A redirect has no content of its own: compare says so, and that dedup
// matches it with nothing, not even with itself.
TEST(CliTest, ARevisitRecordJoinsTheCaptureItNames) {
  // warcio's example: a response of http://example.com/ and a revisit of it
  // (uri-agnostic identical payload) naming its URL and date.
  const std::string warc = testing::RepoTestDataDir() + "/warc/example.warc.gz";
  const std::string cli = "'" + testing::CliPath() + "'";
  const std::string dir = testing::MakeTempDir("cli-revisit");
  std::string out;
  ASSERT_EQ(testing::RunCommand(cli + " dedup '" + warc + "' --out '" + dir + "/out'", &out), 0) << out;
  EXPECT_NE(out.find("revisits: 1, 1 in the cluster of the capture they name\n"), std::string::npos) << out;
  std::ifstream clusters(dir + "/out/clusters.tsv");
  std::string line;
  std::vector<std::string> rows;
  while (std::getline(clusters, line)) {
    if (line.starts_with("http://example.com/\t")) rows.push_back(line);
  }
  ASSERT_EQ(rows.size(), 2u);
  auto field = [](const std::string& row, int k) {
    size_t at = 0;
    for (int i = 0; i < k; ++i) at = row.find('\t', at) + 1;
    return row.substr(at, row.find('\t', at) - at);
  };
  EXPECT_EQ(field(rows[0], 1), field(rows[1], 1));  // one cluster
  EXPECT_EQ(field(rows[0], 2), "keep");
  EXPECT_EQ(field(rows[1], 2), "duplicate");
  EXPECT_EQ(field(rows[0], 3), "revisit");
  EXPECT_EQ(field(rows[1], 3), "revisit");
  EXPECT_EQ(field(rows[0], 7), "revisited");
  std::ifstream summary(dir + "/out/summary.json");
  const nlohmann::json json = nlohmann::json::parse(summary);
  EXPECT_EQ(json["revisits"]["pages"], 1) << json.dump();
  EXPECT_EQ(json["revisits"]["joined"], 1) << json.dump();
}

TEST(CliTest, CompareSaysARedirectHasNoContentOfItsOwn) {
  const std::string redirect = testing::RepoTestDataDir() + "/warc/redirect.warc";
  const std::string cli = "'" + testing::CliPath() + "'";
  std::string out;
  ASSERT_EQ(testing::RunCommand(cli + " compare '" + redirect + "' '" + redirect + "'", &out), 0) << out;
  EXPECT_NE(out.find("no content of its own: an HTTP 301 redirect to https://www.iana.org/domains/reserved"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("same bytes: no   same token sequence: no"), std::string::npos) << out;
  EXPECT_NE(out.find(" 0 terms"), std::string::npos) << out;
  // dedup counts it in its summary.
  const std::string dir = testing::MakeTempDir("cli-redirect");
  ASSERT_EQ(testing::RunCommand(cli + " dedup '" + redirect + "' --out '" + dir + "/out'", &out), 0) << out;
  EXPECT_NE(out.find("without content of their own (redirects, revisits, empty bodies; matched by no method): 1\n"),
            std::string::npos)
      << out;
  // Its target is not in the run: it stays alone.
  EXPECT_NE(out.find("redirects: 1, 0 in the cluster of the page their chain ends at\n"), std::string::npos) << out;
  // In the sample crawl a redirect's target is read too: compare says dedup
  // joins them, and dedup does.
  const std::string sample = testing::RepoTestDataDir() + "/sample/sample-crawl.warc.gz";
  ASSERT_EQ(testing::RunCommand(cli + " compare --input '" + sample +
                                    "' http://coolhunting.com/old-path https://coolhunting.com/design/1",
                                &out),
            0)
      << out;
  EXPECT_NE(out.find("A redirects to B: dedup puts them in one cluster, B kept over the redirect"), std::string::npos)
      << out;
  EXPECT_NE(out.find("A against its kept page: near duplicates: a redirect whose chain of redirects ends at a page of "
                     "this cluster"),
            std::string::npos)
      << out;
  ASSERT_EQ(testing::RunCommand(cli + " dedup '" + sample + "' --out '" + dir + "/sample'", &out), 0) << out;
  EXPECT_NE(out.find("redirects: 1, 1 in the cluster of the page their chain ends at\n"), std::string::npos) << out;
  std::ifstream clusters(dir + "/sample/clusters.tsv");
  std::string line, redirect_row, target_row;
  while (std::getline(clusters, line)) {
    if (line.starts_with("http://coolhunting.com/old-path\t")) redirect_row = line;
    if (line.starts_with("https://coolhunting.com/design/1\t")) target_row = line;
  }
  ASSERT_FALSE(redirect_row.empty());
  ASSERT_FALSE(target_row.empty());
  auto field = [](const std::string& row, int k) {
    size_t at = 0;
    for (int i = 0; i < k; ++i) at = row.find('\t', at) + 1;
    return row.substr(at, row.find('\t', at) - at);
  };
  EXPECT_EQ(field(redirect_row, 1), field(target_row, 1));  // one cluster
  EXPECT_EQ(field(redirect_row, 2), "duplicate");
  EXPECT_EQ(field(redirect_row, 3), "redirect");
  // Redirects given as JSON Lines, two in a loop: counted apart.
  {
    std::ofstream jsonl(dir + "/loop.jsonl");
    jsonl << "{\"url\": \"http://a.example/x\", \"status\": 301, \"redirect\": \"/y\"}\n"
          << "{\"url\": \"http://a.example/y\", \"status\": 302, \"redirect\": \"/x\"}\n"
          << "{\"url\": \"http://a.example/z\", \"status\": 301, \"redirect\": \"/page\"}\n"
          << "{\"url\": \"http://a.example/page\", \"html\": \"<p>the page the others lead to</p>\"}\n";
  }
  ASSERT_EQ(testing::RunCommand(cli + " dedup '" + dir + "/loop.jsonl' --out '" + dir + "/loop'", &out), 0) << out;
  EXPECT_NE(out.find("redirects: 3, 1 in the cluster of the page their chain ends at (2 in loops or past 32 hops)\n"),
            std::string::npos)
      << out;
  std::filesystem::remove_all(dir);
}

// Words without digits (digits are volatile to the robust method).
std::string Words(int from, int n) {
  std::string out;
  for (int i = from; i < from + n; ++i) {
    std::string w;
    for (int v = i + 26; v > 0; v /= 26) w.push_back(static_cast<char>('a' + v % 26));
    out += w + " ";
  }
  return out;
}

TEST(CliTest, CompareWithInputExplainsTheRobustDecision) {
  const std::string dir = testing::MakeTempDir("cli-compare-robust");
  const std::string nav = "<div class=nav>" + Words(0, 300) + "</div>";
  std::string jsonl;
  for (int p = 0; p < 4; ++p) {
    std::string page_url = "http://shop.example.com/item" + Words(5000 + p, 1);
    page_url.pop_back();  // the word's trailing space
    jsonl += testing::JsonLine(page_url, "html",
                               "<html><body>" + nav + "<p>" + Words(1000 + 40 * p, 40) + "</p></body></html>");
  }
  // Page 0 copied to another site, a line with a timestamp added.
  jsonl += testing::JsonLine("http://copy.example.org/x", "html",
                             "<html><body>" + nav + "<p>" + Words(1000, 40) +
                                 "</p><p>Updated 2026-11-21 10:00</p></body></html>");
  testing::WriteFileOrDie(dir + "/crawl.jsonl", jsonl);
  const std::string cli = "'" + testing::CliPath() + "'";
  const std::string in = " -i '" + dir + "/crawl.jsonl'";
  const std::string p0 = "http://shop.example.com/item" + Words(5000, 1);
  const std::string p1 = "http://shop.example.com/item" + Words(5001, 1);
  auto url = [](std::string u) { return "'" + u.substr(0, u.size() - 1) + "'"; };
  std::string out;
  // Two items of one template: B-similar and C-similar, but robust sees the
  // template (4 pages of the host) and that the items share nothing.
  ASSERT_EQ(testing::RunCommand(cli + " compare " + url(p0) + " " + url(p1) + in, &out), 0) << out;
  EXPECT_NE(out.find("template known"), std::string::npos) << out;
  EXPECT_NE(out.find("-> not near duplicates"), std::string::npos) << out;
  // The copy on another site: an inserted line, a few shingles.
  ASSERT_EQ(testing::RunCommand(cli + " compare " + url(p0) + " 'http://copy.example.org/x'" + in, &out), 0)
      << out;
  EXPECT_NE(out.find("-> near duplicates: the pages differ in"), std::string::npos) << out;
  // Without the crawl the template is unknown.
  EXPECT_EQ(testing::RunCommand(cli + " compare " + url(p0) + " 'http://nowhere.example/'" + in, &out), 1);
  // --robust: the parameters of the dedup run. Five pages must hold a
  // value before it is the host's template: with four, none is known.
  ASSERT_EQ(testing::RunCommand(cli + " compare " + url(p0) + " " + url(p1) + in + " --robust robust:template=5", &out),
            0)
      << out;
  EXPECT_NE(out.find("template unknown"), std::string::npos) << out;
  EXPECT_EQ(testing::RunCommand(cli + " compare " + url(p0) + " " + url(p1) + in + " --robust robust:bogus=1", &out),
            2);
  EXPECT_NE(out.find("unknown key 'bogus'"), std::string::npos) << out;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace neardup
