// DedupJob (include/neardup/dedup_job.h): a run divided into shares read by
// separate jobs, handed to one job in order, writes what RunDedup writes.
#include <gtest/gtest.h>

#include <barrier>
#include <filesystem>
#include <functional>
#include <random>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <span>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "neardup/dedup_job.h"
#include "neardup/engine.h"
#include "neardup/executor.h"
#include "neardup/source.h"
#include "synth/synth.h"
#include "test_util.h"

namespace neardup {
namespace {

using testing::MakeTempDir;
using testing::ReadFileOrEmpty;

// Summary figures that depend on the run (time, memory, paths) left out.
nlohmann::json Figures(const std::string& dir) {
  nlohmann::json j = nlohmann::json::parse(ReadFileOrEmpty(dir + "/summary.json"));
  for (const char* key : {"stages", "seconds", "peak_rss_bytes", "outputs"}) j.erase(key);
  if (j.contains("near_duplicates")) j["near_duplicates"].erase("seconds");  // the steps' wall seconds
  return j;
}

// Reads the inputs in 2 and 3 shares by separate jobs, hands them to the
// first in small chunks, and expects RunDedup's outputs.
// Every pair of pages the method's rule accepts, found by comparing all
// representatives (the first page of each token sequence, through
// ForEachPage): what any partitioning that loses nothing hands over. With
// `chains`, every 9th representative is also paired with the 5th after it,
// pairs the rule does not back.
std::vector<std::pair<uint64_t, uint64_t>> RepresentativePairs(const DedupJob& job, bool chains) {
  std::vector<std::pair<uint64_t, Signature>> firsts;
  std::set<uint64_t> seen;
  EXPECT_TRUE(job.ForEachPage([&](uint64_t id, uint64_t identity, const Signature& s, std::span<const uint32_t>) {
    if (s.eligible && seen.insert(identity).second) firsts.emplace_back(id, s);
  }).ok());
  std::vector<std::pair<uint64_t, uint64_t>> pairs;
  for (size_t a = 0; a < firsts.size(); ++a) {
    for (size_t b = a + 1; b < firsts.size(); ++b) {
      if (job.method().Compare(firsts[a].second, firsts[b].second).duplicate || (chains && a % 9 == 0 && b == a + 5)) {
        pairs.emplace_back(firsts[a].first, firsts[b].first);
      }
    }
  }
  return pairs;
}

void ExpectSharesGiveRunDedupsOutputs(const DedupOptions& options) {
  const std::string data = testing::RepoTestDataDir();
  const std::vector<std::string> inputs = {data + "/html", data + "/sample/sample-crawl.warc.gz",
                                           data + "/warc/example.warc.gz", data + "/warc/redirect.warc"};
  const std::string single = MakeTempDir("job-single");
  ASSERT_TRUE(RunDedup(inputs, single, options).ok());

  for (int parts : {2, 3}) {
    const std::string out = MakeTempDir("job-shares");
    const std::vector<InputShare> shares = PlanInputShares(ListInputFiles(inputs), parts);
    ASSERT_EQ(shares.size(), static_cast<size_t>(parts));
    std::vector<std::unique_ptr<DedupJob>> jobs;
    uint64_t documents = 0;
    for (int p = 0; p < parts; ++p) {
      DedupJobOptions job_options;
      job_options.part = p;
      auto job = DedupJob::Create(inputs, out, options, job_options);
      ASSERT_TRUE(job.ok()) << job.status().ToString();
      ASSERT_TRUE((*job)->Read(shares[p]).ok());
      documents += (*job)->documents();
      jobs.push_back(std::move(job).value());
    }
    for (int p = 1; p < parts; ++p) {
      // Small chunks: a share crosses in many.
      std::vector<std::string> chunks;
      ASSERT_TRUE(jobs[p]->ExportShare(300, [&](std::string_view c) {
        chunks.emplace_back(c);
        return Status::OK();
      }).ok());
      EXPECT_GT(chunks.size(), 1u);
      for (size_t c = 0; c < chunks.size(); ++c) {
        auto last = jobs[0]->ImportShare(chunks[c]);
        ASSERT_TRUE(last.ok()) << last.status().ToString();
        EXPECT_EQ(*last, c + 1 == chunks.size());
      }
    }
    EXPECT_EQ(jobs[0]->documents(), documents);
    auto summary = jobs[0]->Finish();
    ASSERT_TRUE(summary.ok()) << summary.status().ToString();
    for (const char* name : {"clusters.tsv", "pairs.tsv", "warnings.tsv"}) {
      EXPECT_EQ(ReadFileOrEmpty(out + "/" + name), ReadFileOrEmpty(single + "/" + name)) << name << " parts " << parts;
    }
    EXPECT_EQ(Figures(out), Figures(single)) << "parts " << parts;
  }
}

class DedupJobTest : public ::testing::TestWithParam<const char*> {};

TEST_P(DedupJobTest, SharesHandedOverInOrderGiveRunDedupsOutputs) {
  DedupOptions options;
  options.method = GetParam();
  options.write_pairs = std::string(GetParam()) != "exact";
  ExpectSharesGiveRunDedupsOutputs(options);
}

// The in-links keeper rule: each page's link keys travel with its record.
TEST(DedupJobInLinksTest, LinkKeysTravelWithTheirPages) {
  DedupOptions options;
  options.method = "broder";
  options.keeper = "status,in-links,shorter-url,earlier-fetch,url-hash,input-order";
  ExpectSharesGiveRunDedupsOutputs(options);
}

// Pairs handed in from outside are joined as the method's own would be:
// the pairs broder's candidate stage finds, given back, give its clusters.
TEST(DedupJobPairsTest, PairsFoundElsewhereAreClusteredAsTheMethodsOwn) {
  const std::string data = testing::RepoTestDataDir();
  const std::vector<std::string> inputs = {data + "/sample/sample-crawl.warc.gz", data + "/html"};
  DedupOptions options;
  options.method = "simhash";
  const std::string single = MakeTempDir("job-own");
  ASSERT_TRUE(RunDedup(inputs, single, options).ok());
  const std::string out = MakeTempDir("job-outside");
  auto job = DedupJob::Create(inputs, out, options);
  ASSERT_TRUE(job.ok());
  ASSERT_TRUE((*job)->Read(InputShare()).ok());
  const std::vector<std::pair<uint64_t, uint64_t>> pairs = RepresentativePairs(**job, false);
  ASSERT_FALSE(pairs.empty());
  ASSERT_TRUE((*job)->AddNearPairs(pairs).ok());
  ASSERT_TRUE((*job)->Finish().ok());
  EXPECT_EQ(ReadFileOrEmpty(out + "/clusters.tsv"), ReadFileOrEmpty(single + "/clusters.tsv"));
}

INSTANTIATE_TEST_SUITE_P(Methods, DedupJobTest, ::testing::Values("exact", "broder", "simhash", "combined", "robust"));

TEST(DedupJobErrorsTest, ChunksOfAnotherMethodOrDamagedAreRefused) {
  const std::string data = testing::RepoTestDataDir();
  const std::vector<std::string> inputs = {data + "/sample/sample-crawl.warc.gz"};
  const std::string out = MakeTempDir("job-errors");
  DedupOptions broder;
  broder.method = "broder";
  DedupOptions simhash;
  simhash.method = "simhash";
  auto a = DedupJob::Create(inputs, out, broder);
  auto b = DedupJob::Create(inputs, out, simhash, DedupJobOptions{1});
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE((*b)->Read(InputShare()).ok());
  std::vector<std::string> chunks;
  ASSERT_TRUE((*b)->ExportShare(1 << 20, [&](std::string_view c) {
    chunks.emplace_back(c);
    return Status::OK();
  }).ok());
  ASSERT_EQ(chunks.size(), 1u);
  auto refused = (*a)->ImportShare(chunks[0]);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(refused.status().IsInvalidArgument());
  EXPECT_NE(refused.status().message().find("simhash"), std::string::npos);
  std::string cut = chunks[0].substr(0, chunks[0].size() / 2);
  auto damaged = (*a)->ImportShare(cut);
  ASSERT_FALSE(damaged.ok());
  EXPECT_TRUE(damaged.status().IsCorruption());
  EXPECT_TRUE((*a)->ImportShare("not a chunk").status().IsCorruption());
  EXPECT_TRUE((*a)->AddToSummary("[1]").IsInvalidArgument());

  // Pairs found elsewhere: not for robust (its pairs need every site's
  // template); with them pairs.tsv cannot be written.
  DedupOptions robust;
  auto r = DedupJob::Create(inputs, out, robust, DedupJobOptions{3});
  ASSERT_TRUE(r.ok());
  const std::pair<uint64_t, uint64_t> pair{0, 1};
  EXPECT_EQ((*r)->AddNearPairs({&pair, 1}).code(), Status::Code::kNotSupported);
  DedupOptions listed;
  listed.method = "broder";
  listed.write_pairs = true;
  auto l = DedupJob::Create(inputs, MakeTempDir("job-pairs"), listed);
  ASSERT_TRUE(l.ok());
  ASSERT_TRUE((*l)->Read(InputShare()).ok());
  ASSERT_TRUE((*l)->AddNearPairs({&pair, 1}).ok());
  EXPECT_TRUE((*l)->Finish().status().IsInvalidArgument());

  DedupOptions paragraphs;
  paragraphs.method = "paragraphs";
  auto p = DedupJob::Create(inputs, out, paragraphs, DedupJobOptions{2});
  ASSERT_TRUE(p.ok());
  ASSERT_TRUE((*p)->Read(InputShare()).ok());
  EXPECT_EQ((*p)->ExportShare(1 << 20, [](std::string_view) { return Status::OK(); }).code(),
            Status::Code::kNotSupported);
}

// The processes of a divided run as threads of this test: AllToAll meets
// at a barrier, each thread leaving its out[r] in a mailbox for r.
class ThreadGroup {
 public:
  explicit ThreadGroup(int size)
      : size_(size), sync_(size), mail_(static_cast<size_t>(size), std::vector<std::string>(static_cast<size_t>(size))) {}
  class Member final : public ProcessGroup {
   public:
    Member(ThreadGroup* g, int rank) : g_(g), rank_(rank) {}
    int rank() const override { return rank_; }
    int size() const override { return g_->size_; }
    Result<std::vector<std::string>> AllToAll(std::vector<std::string> out) override {
      if (out.size() != static_cast<size_t>(g_->size_)) return Status::InvalidArgument("one buffer per process");
      for (int r = 0; r < g_->size_; ++r) g_->mail_[r][rank_] = std::move(out[r]);
      g_->sync_.arrive_and_wait();
      std::vector<std::string> in = std::move(g_->mail_[rank_]);
      g_->mail_[rank_].assign(static_cast<size_t>(g_->size_), std::string());
      g_->sync_.arrive_and_wait();
      return in;
    }

   private:
    ThreadGroup* g_;
    int rank_;
  };

 private:
  int size_;
  std::barrier<> sync_;
  std::vector<std::vector<std::string>> mail_;  // [to][from]
};

// A `neardup synth` crawl of the repository's pages (template sites with
// hard negatives, Henzinger's kinds of near duplicates, mirrors, parked
// domains): where robust finds pairs, learns templates and splits members
// off in verification. Built once.
const std::string& SynthCrawl() {
  static const std::string path = [] {
    const std::string dir = MakeTempDir("together-synth");
    SynthOptions so;
    so.inputs = {testing::RepoTestDataDir() + "/sample/sample-crawl.warc.gz", testing::RepoTestDataDir() + "/html"};
    so.out_warc = dir + "/crawl.warc.gz";
    so.out_truth = dir + "/truth.tsv";
    so.sites = 40;
    so.seed = 7;
    auto built = BuildSyntheticCrawl(so, nullptr);
    EXPECT_TRUE(built.ok()) << built.status().ToString();
    return so.out_warc;
  }();
  return path;
}

// A chain robust joins and verification breaks, as JSON Lines: pages A, B,
// C and D of 90 words on four hosts, B with four words of A replaced (16
// shingles apart: an edit), C with four more of B's replaced, D with four
// more of C's. A and C differ in 32 shingles, more than an edit across
// sites, and agree on about two thirds of their min-hash values, below the
// 0.8 asked where no template is known: C fails against the kept page A
// but passes B, a verified member, and stays (VerificationCandidates); D
// is two edits from B and three from A, and leaves.
std::string ChainPages() {
  static const std::string path = [] {
    const std::string file = MakeTempDir("together-chain") + "/chain.jsonl";
    std::vector<std::string> words;
    uint64_t state = 7;
    const char* syllables[] = {"ka", "lo", "mi", "ne", "ru", "sa", "te", "vo", "zu", "pe"};
    for (int i = 0; i < 130; ++i) {
      std::string word;
      for (int k = 0; k < 3; ++k) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        word += syllables[(state >> 33) % 10];
      }
      words.push_back(word);
    }
    // Page e of the chain: 90 words with the first e of ten 4-word windows
    // replaced. Each page is an edit (16 shingles) from the last; pages five
    // edits apart agree on about a third of their shingles, under
    // RobustMethodOptions::min_main_similarity, so verification splits the
    // chain's far end off, even against its center.
    const int windows[] = {20, 60, 40, 0, 80, 9, 30, 50, 70, 85};
    auto page = [&](int edits) {
      std::vector<std::string> text(words.begin(), words.begin() + 90);
      int spare = 90;
      for (int e = 0; e < edits; ++e) {
        for (int k = 0; k < 4; ++k) text[windows[e] + k] = words[spare++];
      }
      std::string joined;
      for (const std::string& w : text) joined += w + " ";
      return joined;
    };
    std::string lines;
    std::string path = "/x";
    for (int e = 0; e <= 10; ++e) {
      const std::string host = e == 0 ? "a.example" : "copies-" + std::string(1, static_cast<char>('a' + e)) + ".example";
      lines += "{\"url\": \"https://" + host + path + "\", \"text\": \"" + page(e) + "\"}\n";
      path = "/archive" + path;  // later copies have longer URLs: the first page is kept
    }
    std::FILE* f = std::fopen(file.c_str(), "wb");
    EXPECT_NE(f, nullptr);
    if (f) {
      std::fwrite(lines.data(), 1, lines.size(), f);
      std::fclose(f);
    }
    return file;
  }();
  return path;
}

// A manual on one page beside its six chapters, on its site and on a
// mirror whose copy of the manual carries a banner, a sentence and a server
// line: every value of the one-page manual is one of a chapter's, so all
// read as boilerplate, and only the large-page rule joins the manual with
// its copy (kLargePageShingles; verification applies it too).
std::string ManualPages() {
  static const std::string path = [] {
    const std::string file = MakeTempDir("together-manual") + "/manual.jsonl";
    uint64_t state = 11;
    auto words = [&](int n) {
      std::string text;
      for (int i = 0; i < n; ++i) {
        for (int k = 0; k < 4; ++k) {
          state = state * 6364136223846793005ULL + 1442695040888963407ULL;
          text.push_back(static_cast<char>('a' + (state >> 33) % 26));
        }
        text += i % 12 == 11 ? "</p><p>" : " ";
      }
      return "<p>" + text + "</p>";
    };
    std::vector<std::string> chapters;
    for (int c = 0; c < 6; ++c) chapters.push_back(words(9000));
    std::string manual;
    for (const std::string& c : chapters) manual += c;
    const std::string copy = "<div>" + words(18) + "</div>" + manual + words(20) + "<address>" + words(12) + "</address>";
    std::string lines;
    auto add = [&](const std::string& url, const std::string& body) {
      lines += "{\"url\": \"" + url + "\", \"html\": \"<html><body>" + body + "</body></html>\"}\n";
    };
    for (int c = 0; c < 6; ++c) {
      add("https://docs.manual.example/ch" + std::to_string(c), chapters[c]);
      add("https://mirror.other.example/ch" + std::to_string(c), chapters[c]);
    }
    add("https://docs.manual.example/all", manual);
    add("https://mirror.other.example/all", copy);
    testing::WriteFileOrDie(file, lines);
    return file;
  }();
  return path;
}

// Runs `process(p, member)` for p in 0 .. parts - 1, each on a thread of
// its own in one ThreadGroup (as neardup-mpi's ranks), and returns their
// statuses in process order.
std::vector<Status> RunProcesses(int parts, const std::function<Status(int, ThreadGroup::Member*)>& process) {
  ThreadGroup group(parts);
  std::vector<Status> status(static_cast<size_t>(parts));
  std::vector<std::thread> threads;
  for (int p = 0; p < parts; ++p) {
    threads.emplace_back([&, p] {
      ThreadGroup::Member member(&group, p);
      status[p] = process(p, &member);
    });
  }
  for (std::thread& t : threads) t.join();
  return status;
}

// Clustering together (FinishTogether), the pairs divided among the
// processes (some given twice), gives what one job gives with every pair
// (AddNearPairs + Finish): the same clusters.tsv and warnings.tsv, the
// same counts. Pairs the rule rejects are added on purpose, so that
// verification splits members off and keepers are chosen again.
// `inputs`: none for a mix of folders and crawl files that every process
// holds a part of.
// `process_threads`: the threads each process runs on (an executor of its
// own when more than 1).
void ExpectTogetherGivesOneJobsOutputs(const DedupOptions& options, std::vector<std::string> inputs = {},
                                       int process_threads = 1) {
  const std::string data = testing::RepoTestDataDir();
  const bool mix = inputs.empty();
  auto method = NewMethod(options);
  ASSERT_TRUE(method.ok()) << method.status().ToString();
  // Pairs are handed in (as --partition finds them), unless the processes
  // find the method's own pairs together (robust): then the single job
  // runs the method's own stage.
  const bool near = (*method)->finds_near_duplicates() && !(*method)->finds_pairs_together();
  const bool own_pairs = (*method)->finds_pairs_together();
  if (mix) {
    inputs = {data + "/html", data + "/sample/sample-crawl.warc.gz", data + "/warc/example.warc.gz",
              data + "/warc/redirect.warc"};
    if (own_pairs) {
      inputs.push_back(SynthCrawl());
      inputs.push_back(ChainPages());
      inputs.push_back(ManualPages());
    }
  }
  const std::string single = MakeTempDir("together-single");
  std::vector<std::pair<uint64_t, uint64_t>> pairs;
  uint64_t split_off = 0, repaired = 0;
  {
    // On as many threads as each process (the summaries name them).
    std::unique_ptr<Executor> executor = process_threads > 1 ? NewExecutorForThreads(process_threads) : nullptr;
    auto job = DedupJob::Create(inputs, single, options, DedupJobOptions(), executor.get());
    ASSERT_TRUE(job.ok()) << job.status().ToString();
    ASSERT_TRUE((*job)->Read(InputShare()).ok());
    pairs = RepresentativePairs(**job, true);
    if (near) {
      ASSERT_TRUE((*job)->AddNearPairs(pairs).ok());
    }
    auto summary = (*job)->Finish();
    ASSERT_TRUE(summary.ok()) << summary.status().ToString();
    split_off = summary->verification_split_off;
    repaired = summary->verification_repaired;
  }
  if (mix && near && options.verify) {
    EXPECT_GT(split_off, 0u) << "the test's chains should fail verification";
  }
  if (mix && own_pairs) {
    const nlohmann::json figures = Figures(single);
    EXPECT_GT(figures["near_duplicates"]["pairs"].get<uint64_t>(), 0u) << "the crawl should hold near duplicates";
    // The chain's edits are looked for unless the spec turns them off.
    // The one-page manual and its mirrored copy share a cluster (the
    // large-page rule, in the stage and in verification).
    if (options.method == "robust") {
      std::map<std::string, std::string> cluster_of;
      std::istringstream rows(ReadFileOrEmpty(single + "/clusters.tsv"));
      for (std::string row; std::getline(rows, row);) {
        const size_t tab = row.find('\t');
        if (tab != std::string::npos) cluster_of[row.substr(0, tab)] = row.substr(tab + 1, row.find('\t', tab + 1) - tab - 1);
      }
      EXPECT_EQ(cluster_of["https://docs.manual.example/all"], cluster_of["https://mirror.other.example/all"]);
      EXPECT_FALSE(cluster_of["https://docs.manual.example/all"].empty());
    }
    if (options.verify && options.method.find("edit=0") == std::string::npos) {
      EXPECT_GT(split_off, 0u) << "verification should split the chain's far end off";
      EXPECT_GT(repaired, 0u) << "the chain's far end should be verified again as a cluster of its own";
    }
  }

  for (int parts : {1, 2, 3, 4}) {
    const std::string out = MakeTempDir("together");
    const std::vector<InputShare> shares = PlanInputShares(ListInputFiles(inputs), parts);
    std::vector<uint64_t> documents(static_cast<size_t>(parts), 0);
    const std::vector<Status> status = RunProcesses(parts, [&](int p, ThreadGroup::Member* member) -> Status {
      DedupJobOptions job_options;
      job_options.part = p;
      // Methods that find their pairs together read the pages' words from
      // a spill file of each process's own (as neardup-mpi runs them) with
      // 2 and 4 processes, from memory with 1 and 3.
      job_options.spill_signatures = own_pairs && parts % 2 == 0;
      std::unique_ptr<Executor> executor = process_threads > 1 ? NewExecutorForThreads(process_threads) : nullptr;
      auto job = DedupJob::Create(inputs, out, options, job_options, executor.get());
      // Every process fails alike there; none waits at the barrier.
      if (!job.ok()) return job.status();
      if (Status read = (*job)->Read(shares[p]); !read.ok()) return read;
      documents[p] = (*job)->documents();
      std::vector<std::pair<uint64_t, uint64_t>> mine;
      for (size_t j = 0; near && j < pairs.size(); ++j) {
        if (j % parts == static_cast<size_t>(p) || (j + 1) % parts == static_cast<size_t>(p)) {
          mine.emplace_back(j % 2 ? pairs[j] : std::make_pair(pairs[j].second, pairs[j].first));
        }
      }
      return (*job)->FinishTogether(member, mine).status();
    });
    for (int p = 0; p < parts; ++p) ASSERT_TRUE(status[p].ok()) << "process " << p << ": " << status[p].ToString();
    if (mix && parts > 1) {
      EXPECT_GT(*std::min_element(documents.begin(), documents.end()), 0u) << "every process holds pages";
    }
    if (!mix && parts == 4) {
      EXPECT_EQ(*std::min_element(documents.begin(), documents.end()), 0u) << "a process holds no page";
    }
    for (const char* name : {"clusters.tsv", "warnings.tsv"}) {
      EXPECT_EQ(ReadFileOrEmpty(out + "/" + name), ReadFileOrEmpty(single + "/" + name)) << name << " parts " << parts;
    }
    for (const auto& entry : std::filesystem::directory_iterator(out)) {  // every spill file removed
      EXPECT_NE(entry.path().filename().string()[0], '.') << entry.path() << " parts " << parts;
    }
    nlohmann::json figures = Figures(out);
    ASSERT_TRUE(figures.contains("clustered_together"));
    EXPECT_EQ(figures["clustered_together"]["per_process"].size(), static_cast<size_t>(parts));
    for (const auto& process : figures["clustered_together"]["per_process"]) {
      for (const char* stage : {"exact", "near", "keepers", "verify", "clusters", "write"}) {
        EXPECT_TRUE(process["stage_seconds"].contains(stage)) << stage;
      }
    }
    if (own_pairs) {  // the divided run's steps (process 0's seconds)
      const nlohmann::json all = nlohmann::json::parse(ReadFileOrEmpty(out + "/summary.json"));
      for (const char* step : {"sites", "templates", "masks", "tables", "pairs"}) {
        EXPECT_TRUE(all["near_duplicates"]["seconds"].contains(step)) << step << " parts " << parts;
      }
    }
    figures.erase("clustered_together");
    EXPECT_EQ(figures, Figures(single)) << "parts " << parts;
  }
}

class DedupTogetherTest : public ::testing::TestWithParam<const char*> {};

TEST_P(DedupTogetherTest, ClusteringTogetherGivesOneJobsOutputs) {
  DedupOptions options;
  options.method = GetParam();
  ExpectTogetherGivesOneJobsOutputs(options);
}

INSTANTIATE_TEST_SUITE_P(Methods, DedupTogetherTest,
                         ::testing::Values("exact", "broder", "simhash", "combined", "robust"));

// robust learns each site's template together: with the template learned
// from three pages of a site (template=3), with the whole-page bands and
// digests off (edit=0), and with tiny buckets that pair only their first
// page (max_bucket_pages), the processes find the single job's clusters.
TEST(DedupTogetherOptionsTest, RobustLearnsTogether) {
  DedupOptions options;
  options.method = "robust:template=3";
  ExpectTogetherGivesOneJobsOutputs(options);
  options.method = "robust:edit=0,same-site-edit=0";
  ExpectTogetherGivesOneJobsOutputs(options);
  options.method = "robust";
  options.broder.max_bucket_pages = 2;
  ExpectTogetherGivesOneJobsOutputs(options);
  options.broder.max_bucket_pages = DedupOptions().broder.max_bucket_pages;
  options.keeper = "status,in-links,shorter-url,earlier-fetch,url-hash,input-order";
  ExpectTogetherGivesOneJobsOutputs(options);
}

// Each process's own threads learn the templates of its site groups
// (DividedCollection::executor): the same clusters as one job.
TEST(DedupTogetherOptionsTest, RobustOnEveryProcessThreads) {
  DedupOptions options;
  options.method = "robust";
  ExpectTogetherGivesOneJobsOutputs(options, {}, /*process_threads=*/3);
}

// In-links are counted where the link keys meet; without verification the
// chains stay.
TEST(DedupTogetherOptionsTest, InLinksAndNoVerification) {
  DedupOptions options;
  options.method = "broder";
  options.keeper = "status,in-links,shorter-url,earlier-fetch,url-hash,input-order";
  ExpectTogetherGivesOneJobsOutputs(options);
  options.keeper = DedupOptions().keeper;
  options.verify = false;
  ExpectTogetherGivesOneJobsOutputs(options);
}

// Two small files that cannot be cut: with 3 and 4 processes some hold no
// page at all, and still take part in every exchange.
TEST(DedupTogetherOptionsTest, ProcessesWithoutPages) {
  const std::string data = testing::RepoTestDataDir();
  for (const char* method : {"exact", "simhash", "robust"}) {
    DedupOptions options;
    options.method = method;
    ExpectTogetherGivesOneJobsOutputs(options, {data + "/warc/redirect.warc", data + "/warc/example.warc.gz"});
  }
}

// Batch-only methods are refused alike by every process, before any exchange;
// robust is given no pairs; pairs.tsv and unknown pages are refused too.
TEST(DedupTogetherErrorsTest, RefusedAlike) {
  const std::string data = testing::RepoTestDataDir();
  const std::vector<std::string> inputs = {data + "/sample/sample-crawl.warc.gz"};
  ThreadGroup group(1);
  ThreadGroup::Member member(&group, 0);
  DedupOptions paragraphs;
  paragraphs.method = "paragraphs";
  auto b = DedupJob::Create(inputs, MakeTempDir("together-paragraphs"), paragraphs);
  ASSERT_TRUE(b.ok());
  ASSERT_TRUE((*b)->Read(InputShare()).ok());
  EXPECT_EQ((*b)->FinishTogether(&member, {}).status().code(), Status::Code::kNotSupported);
  // robust finds its own pairs: none may be handed in.
  DedupOptions robust;
  auto r = DedupJob::Create(inputs, MakeTempDir("together-robust"), robust);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE((*r)->Read(InputShare()).ok());
  const std::pair<uint64_t, uint64_t> given{0, 1};
  EXPECT_TRUE((*r)->FinishTogether(&member, {&given, 1}).status().IsInvalidArgument());
  DedupOptions listed;
  listed.method = "simhash";
  listed.write_pairs = true;
  auto l = DedupJob::Create(inputs, MakeTempDir("together-pairs"), listed);
  ASSERT_TRUE(l.ok());
  ASSERT_TRUE((*l)->Read(InputShare()).ok());
  EXPECT_TRUE((*l)->FinishTogether(&member, {}).status().IsInvalidArgument());
  DedupOptions simhash;
  simhash.method = "simhash";
  auto u = DedupJob::Create(inputs, MakeTempDir("together-unknown"), simhash);
  ASSERT_TRUE(u.ok());
  ASSERT_TRUE((*u)->Read(InputShare()).ok());
  const std::pair<uint64_t, uint64_t> unknown{0, (*u)->documents()};
  EXPECT_TRUE((*u)->FinishTogether(&member, {&unknown, 1}).status().IsInvalidArgument());
}

// A process of a divided robust run that cannot write the file its site
// groups' pages wait in fails, and so does every other (no process waits
// on an exchange the failing one left): each with one line, the failing
// one naming the file.
TEST(DedupTogetherErrorsTest, AFileOneProcessCannotWriteFailsEveryProcess) {
  MemEnv env;
  env.AddFile("/in/sample.warc.gz", ReadFileOrEmpty(testing::RepoTestDataDir() + "/sample/sample-crawl.warc.gz"));
  const std::vector<std::string> inputs = {"/in/sample.warc.gz"};
  env.InjectFault({FileOp::kOpenWrite, "/out/.robust.group.rank1", 0, 0});
  constexpr int kParts = 3;
  const std::vector<InputShare> shares = PlanInputShares(ListInputFiles(inputs, SourceOptions(), &env), kParts, &env);
  const std::vector<Status> status = RunProcesses(kParts, [&](int p, ThreadGroup::Member* member) -> Status {
    DedupJobOptions job_options;
    job_options.part = p;
    job_options.spill_signatures = true;
    auto job = DedupJob::Create(inputs, "/out", DedupOptions(), job_options, nullptr, &env);
    if (!job.ok()) return job.status();
    if (Status read = (*job)->Read(shares[p]); !read.ok()) return read;
    return (*job)->FinishTogether(member, {}).status();
  });
  for (int p = 0; p < kParts; ++p) {
    EXPECT_TRUE(status[p].IsIOError()) << "process " << p << ": " << status[p].ToString();
    EXPECT_EQ(status[p].message().find('\n'), std::string::npos);
  }
  EXPECT_NE(status[1].message().find("/out/.robust.group.rank1"), std::string::npos) << status[1].ToString();
  EXPECT_NE(status[0].message().find("another process"), std::string::npos) << status[0].ToString();
  EXPECT_FALSE(env.FileExists("/out/clusters.tsv"));
}

// A crawl of `pages` pages of `words` random words (16 MB for 16,000 pages
// of 150 or 40,000 of 60: more than the readers read ahead, so that the
// bytes read tell about the share of the input read), as JSON Lines in a
// folder of its own.
std::string PagesOfRandomWords(int pages, int words) {
  const std::string dir = MakeTempDir("job-memory-input");
  std::mt19937 rng(7);
  std::string jsonl;
  for (int i = 0; i < pages; ++i) {
    std::string text = "page " + std::to_string(i);
    for (int w = 0; w < words; ++w) text += " w" + std::to_string(rng() % 10000);
    jsonl += testing::JsonLine("http://s" + std::to_string(i % 50) + ".example/" + std::to_string(i), "text", text);
  }
  testing::WriteFileOrDie(dir + "/pages.jsonl", jsonl);
  return dir + "/pages.jsonl";
}

// The run within DedupOptions::memory_bytes, for every method: the
// resident size is what the caller's probe says (here a fixed figure, or
// one that grows with each reading), and a run that cannot fit stops with
// one line that says why, writing no clusters.
TEST(DedupJobMemoryTest, ARunThatCannotFitSaysSo) {
  const std::string crawl = PagesOfRandomWords(16000, 150);
  constexpr uint64_t kMiB = uint64_t{1} << 20;
  for (const char* method : {"robust", "broder", "exact"}) {
    SCOPED_TRACE(method);
    DedupOptions options;
    options.method = method;
    uint64_t resident = 30 * kMiB, calls = 0, growth = 0;
    options.memory_probe = [&](uint64_t* r, uint64_t* peak) {
      *r = resident + growth * calls++;
      *peak = *r;
    };
    // Before the first page: the program and one reading thread (8 + 4 MiB).
    options.memory_bytes = 40 * kMiB;
    std::string out = MakeTempDir("job-memory");
    auto before = RunDedup({crawl}, out, options);
    ASSERT_FALSE(before.ok());
    EXPECT_TRUE(before.status().IsInvalidArgument()) << before.status().ToString();
    EXPECT_NE(before.status().message().find("before it reads a page"), std::string::npos);
    EXPECT_EQ(calls, 1u);  // nothing read
    EXPECT_FALSE(std::filesystem::exists(out + "/clusters.tsv"));
    // The same budget with room for the pages: the run ends and says what
    // its budget was.
    options.memory_bytes = 64 * kMiB;
    calls = 0;
    out = MakeTempDir("job-memory");
    auto fits = RunDedup({crawl}, out, options);
    ASSERT_TRUE(fits.ok()) << fits.status().ToString();
    EXPECT_EQ(fits->documents, 16000u);
    EXPECT_GE(calls, 16000u / 1024);  // checked while reading
    EXPECT_EQ(nlohmann::json::parse(ReadFileOrEmpty(out + "/summary.json"))["options"]["memory_bytes"], 64 * kMiB);
    // Resident memory that grows 16 MiB between checks passes the budget
    // at the second (30 + 32 MiB held, and 4 to 10 MiB for clustering).
    growth = 16 * kMiB;
    options.memory_bytes = 66 * kMiB;
    calls = 0;
    out = MakeTempDir("job-memory");
    auto grows = RunDedup({crawl}, out, options);
    ASSERT_FALSE(grows.ok());
    EXPECT_TRUE(grows.status().IsResourceExhausted()) << grows.status().ToString();
    const std::string line = grows.status().message();
    EXPECT_NE(line.find("after 2048 pages (up to " + crawl + " at offset "), std::string::npos) << line;
    EXPECT_EQ(line.find('\n'), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(out + "/clusters.tsv"));
    growth = 0;
  }
}

// Once a twentieth of the input is read, the pages the whole input will
// hold at that rate are counted too: a crawl too large for the budget is
// stopped early, not at its end.
TEST(DedupJobMemoryTest, ACrawlTooLargeIsStoppedEarly) {
  const std::string crawl = PagesOfRandomWords(40000, 60);
  constexpr uint64_t kMiB = uint64_t{1} << 20;
  DedupOptions options;  // robust: 10 MiB and 70 bytes a page of clustering, and about 21 of columns
  uint64_t calls = 0;
  options.memory_probe = [&](uint64_t* r, uint64_t* peak) {
    ++calls;
    *r = *peak = 20 * kMiB;
  };
  // The pages read pass the budget after about 30,000 (20 + 10 MiB and 70
  // bytes a page); the 40,000 of the input need about 33.5 MiB.
  options.memory_bytes = 32 * kMiB;
  const std::string out = MakeTempDir("job-memory");
  auto r = RunDedup({crawl}, out, options);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsResourceExhausted()) << r.status().ToString();
  const std::string line = r.status().message();
  EXPECT_NE(line.find("at this rate the input holds about "), std::string::npos) << line;
  const size_t after = line.find("after ");
  ASSERT_NE(after, std::string::npos) << line;
  EXPECT_LT(std::stoul(line.substr(after + 6)), 28000u) << line;  // the projection stopped it
  // With room for them all it runs.
  options.memory_bytes = 36 * kMiB;
  auto fits = RunDedup({crawl}, MakeTempDir("job-memory"), options);
  ASSERT_TRUE(fits.ok()) << fits.status().ToString();
  EXPECT_EQ(fits->documents, 40000u);
}

// DedupJobOptions::spill_signatures: the signature words kept in a mapped
// spill file (and the keeper rules' features in one of their own) give
// exactly the outputs of words in memory, the spills and the candidate
// tables' temporary files are gone afterwards, and moving pages between
// processes is refused.
TEST(DedupJobSpillTest, SpilledSignaturesGiveTheOutputsOfSignaturesInMemory) {
  const std::string data = testing::RepoTestDataDir();
  const std::vector<std::string> inputs = {data + "/html", data + "/sample/sample-crawl.warc.gz",
                                           data + "/warc/example.warc.gz", SynthCrawl()};
  DedupOptions options;
  options.method = "robust";
  options.write_pairs = true;
  std::string outs[2];
  for (int spill = 0; spill < 2; ++spill) {
    outs[spill] = MakeTempDir(spill ? "job-spilled" : "job-in-memory");
    DedupJobOptions job_options;
    job_options.spill_signatures = spill == 1;
    auto job = DedupJob::Create(inputs, outs[spill], options, job_options);
    ASSERT_TRUE(job.ok()) << job.status().ToString();
    ASSERT_TRUE((*job)->Read(InputShare()).ok());
    if (spill) {
      const Status moved = (*job)->ExportShare(1 << 20, [](std::string_view) { return Status::OK(); });
      EXPECT_TRUE(moved.IsFailedPrecondition()) << moved.ToString();
    }
    auto summary = (*job)->Finish();
    ASSERT_TRUE(summary.ok()) << summary.status().ToString();
    EXPECT_GT(summary->near_pairs, 0u);
  }
  for (const char* name : {"clusters.tsv", "pairs.tsv", "warnings.tsv"}) {
    EXPECT_EQ(ReadFileOrEmpty(outs[1] + "/" + name), ReadFileOrEmpty(outs[0] + "/" + name)) << name;
  }
  EXPECT_EQ(Figures(outs[1]), Figures(outs[0]));
  auto left = Env::Default()->ListFilesRecursive(outs[1]);
  ASSERT_TRUE(left.ok());
  for (const std::string& f : *left) {
    EXPECT_EQ(f.find("/."), std::string::npos) << "temporary file left: " << f;
  }
}

}  // namespace
}  // namespace neardup
