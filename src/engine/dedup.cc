// The dedup pipeline behind RunDedup (see include/neardup/engine.h).
#include <sys/resource.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/line_reader.h"
#include "base/tsv.h"
#include "cluster/union_find.h"
#include "engine/broder_stage.h"
#include "engine/chunk_stage.h"
#include "engine/paragraph_stage.h"
#include "engine/text_units.h"
#include "engine/exact_grouper.h"
#include "engine/keeper.h"
#include "engine/method_options.h"
#include "engine/robust_stage.h"
#include "fingerprint/rabin.h"
#include "neardup/engine.h"
#include "neardup/env.h"
#include "neardup/executor.h"
#include "index/simhash_index.h"
#include "report/site.h"
#include "sketch/broder.h"
#include "sketch/simhash.h"
#include "text/tokenizer.h"
#include "text/url.h"

#ifndef NEARDUP_VERSION
#define NEARDUP_VERSION "0.0.0"
#endif

namespace neardup {

const char* Version() { return NEARDUP_VERSION; }



std::string SimhashMethodOptions::Spec() const {
  return "simhash:b=" + std::to_string(bits) + ",t=" + std::to_string(threshold) +
         ",seed=" + std::to_string(seed);
}

std::string ParagraphMethodOptions::Spec() const {
  return "paragraphs:sentences=" + std::to_string(sentences_per_paragraph) +
         ",min-chars=" + std::to_string(min_text_chars) + ",min-shared=" + std::to_string(min_shared_percent);
}

std::string ChunkMethodOptions::Spec() const {
  std::string s = "chunks:" + chunking + ",T=" + std::to_string(threshold) + "," + algorithm;
  if (algorithm == "coarse") s += ",h=" + std::to_string(coarse_hash_functions) + ",seed=" + std::to_string(seed);
  return s;
}

std::string BroderMethodOptions::Spec() const {
  return "broder:k=" + std::to_string(shingle_size) + (effective_wrap() ? ",wrap" : ",no-wrap") +
         ",m=" + std::to_string(num_minhashes) + ",l=" + std::to_string(supershingle_size) +
         ",family=" + (rabin_family ? "rabin" : "fast") + ",seed=" + std::to_string(seed) +
         ",level=" + (level == NearLevel::kVerySimilar ? "very-similar" : "virtually-identical");
}

Status DedupOptions::Validate() const {
  if (method != "exact" && method != "broder" && method != "simhash" && method != "combined" &&
      method != "robust" && method != "paragraphs" && method != "chunks") {
    return Status::InvalidArgument("unknown method '" + method +
                                   "'; valid methods: exact, broder, simhash, combined, robust, paragraphs, chunks");
  }
  if (method == "paragraphs") {
    if (paragraphs.sentences_per_paragraph < 1 || paragraphs.sentences_per_paragraph > 100) {
      return Status::InvalidArgument("paragraphs: sentences_per_paragraph must be in 1..100");
    }
    if (paragraphs.min_shared_percent < 1 || paragraphs.min_shared_percent > 100) {
      return Status::InvalidArgument("paragraphs: min_shared_percent must be in 1..100");
    }
  }
  if (method == "chunks") {
    if (auto c = Chunking::Parse(chunks.chunking); !c.ok()) return c.status();
    if (chunks.threshold < 1) return Status::InvalidArgument("chunks: threshold T must be at least 1");
    if (chunks.algorithm != "sort" && chunks.algorithm != "coarse") {
      return Status::InvalidArgument("chunks: algorithm must be sort or coarse");
    }
    if (chunks.coarse_hash_functions < 1 || chunks.coarse_hash_functions > 8) {
      return Status::InvalidArgument("chunks: coarse_hash_functions must be in 1..8");
    }
  }
  if ((method == "paragraphs" || method == "chunks") && memory_bytes < (uint64_t{16} << 20)) {
    return Status::InvalidArgument("memory_bytes must be at least 16 MiB");
  }
  if (method == "robust") {
    Status s = RobustSketchOptions(robust).Validate();
    if (!s.ok()) return Status::InvalidArgument("robust: " + s.message());
    if (robust.band_rows < 1 || robust.band_rows > robust.num_minhashes) {
      return Status::InvalidArgument("robust: band_rows must be in 1..num_minhashes");
    }
    if (robust.max_edit_shingles > 40 || robust.max_same_site_edit_shingles > 40) {
      return Status::InvalidArgument("robust: max_edit_shingles and max_same_site_edit_shingles must be at most 40 (what 72 digest cells decode)");
    }
    if (robust.template_min_pages < 2) {
      return Status::InvalidArgument("robust: template_min_pages must be at least 2");
    }
    if (!(robust.min_content_similarity >= 0 && robust.min_content_similarity <= 1) ||
        !(robust.min_similarity_without_template >= 0 && robust.min_similarity_without_template <= 1)) {
      return Status::InvalidArgument("robust: min_content_similarity must be in [0, 1]");
    }
    if (broder.max_bucket_pages < 2) {
      return Status::InvalidArgument("max_bucket_pages must be at least 2");
    }
  }
  if (method == "simhash" || method == "combined") {
    Status s = ToSimhashOptions(simhash).Validate();
    if (!s.ok()) return Status::InvalidArgument("simhash: " + s.message());
    if (simhash.threshold > simhash.bits || simhash.combined_threshold > simhash.bits) {
      return Status::InvalidArgument("simhash: thresholds must be at most the number of bits");
    }
  }
  if (method == "broder" || method == "combined") {
    Status s = ToSketchOptions(broder).Validate();
    if (!s.ok()) return Status::InvalidArgument("broder: " + s.message());
    if (broder.num_minhashes / broder.supershingle_size < 2) {
      return Status::InvalidArgument("broder: m / l must give at least 2 supershingles");
    }
    if (broder.max_bucket_pages < 2) {
      return Status::InvalidArgument("broder: max_bucket_pages must be at least 2");
    }
  }
  if (auto k = KeeperOptions::Parse(keeper); !k.ok()) return k.status();
  if (batch_documents < 1 || batch_documents > 65536) {
    return Status::InvalidArgument("batch_documents must be in 1..65536");
  }
  if (in_flight_per_thread < 1 || in_flight_per_thread > 64) {
    return Status::InvalidArgument("in_flight_per_thread must be in 1..64");
  }
  return source.Validate();
}

namespace {

using Clock = std::chrono::steady_clock;

// Page buffers larger than this are released after their batch is done.
constexpr size_t kKeepBodyCapacity = 256 << 10;

double SecondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Resident memory now (0 when /proc is not there).
uint64_t CurrentRssBytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long long pages_total = 0, pages_resident = 0;
  const int got = std::fscanf(f, "%llu %llu", &pages_total, &pages_resident);
  std::fclose(f);
  return got == 2 ? pages_resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE)) : 0;
}

uint64_t PeakRssBytes() {
  struct rusage ru {};
  if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  return static_cast<uint64_t>(ru.ru_maxrss) * 1024;  // Linux reports KiB
}

// What the exact stage needs of one document, computed on a worker.
struct DocResult {
  uint64_t token_fp = 0;
  uint64_t byte_fp = 0;
  uint32_t terms = 0;
  bool has_signature = false;
  bool has_simhash = false;
  RobustSignature robust;
  uint64_t url_key = 0;      // in-links: key of the page's normalized URL
  uint32_t link_count = 0;   // in-links: distinct link keys in Batch::link_keys
  uint32_t units = 0;        // paragraphs: shingle paragraphs (0: left out); chunks: distinct fingerprints
  uint64_t unit_key = 0;     // paragraphs: hash of the sorted paragraph list
};

// A batch of documents travelling through the pipeline. Slots are reused
// (ring of batches), so Document strings keep their capacity.
struct Batch {
  std::vector<Document> docs;
  std::vector<DocResult> results;
  std::vector<uint64_t> signatures;  // supershingles, m' per document
  std::vector<uint64_t> simhashes;   // b/64 words per document
  std::vector<uint32_t> robust_mins; // m per document (robust)
  std::vector<uint64_t> robust_digests;  // kRobustDigestCells per document (robust)
  std::vector<uint64_t> link_keys;   // in-links: every document's distinct link keys, in order
  std::string unit_records;          // paragraphs / chunks: spill records of the batch, in order
  size_t count = 0;
  double work_seconds = 0;
  std::mutex mu;
  std::condition_variable cv;
  bool done = true;
};

// Per-thread work context: tokenizer and scratch, reused across batches.
struct WorkContext {
  WorkContext(bool keep_term_text, bool collect_links)
      : tokenizer(MakeTokenizeOptions(keep_term_text, collect_links)) {}
  SketchScratch sketch_scratch;
  SimhashScratch simhash_scratch;
  std::vector<uint64_t> normalized;  // robust: the normalized term sequence
  std::vector<uint64_t> links;       // in-links: this page's link keys
  std::vector<uint64_t> paragraphs;  // paragraphs: this page's shingle paragraphs
  std::vector<uint32_t> chunks;      // chunks: this page's chunk fingerprints
  static TokenizeOptions MakeTokenizeOptions(bool keep_term_text, bool collect_links) {
    TokenizeOptions o;
    o.collect_links = collect_links;  // only the in-links keeper rule needs links
    o.keep_term_text = keep_term_text;  // robust looks at digits in terms
    return o;
  }
  Tokenizer tokenizer;
  TokenizedDocument tokens;
};

class ContextPool {
 public:
  ContextPool(const BroderSketcher* sketcher, const SimhashSketcher* simhasher,
              const BroderSketcher* robust_sketcher, const RobustMethodOptions* robust,
              bool count_in_links)
      : sketcher_(sketcher), simhasher_(simhasher), robust_sketcher_(robust_sketcher), robust_(robust),
        count_in_links_(count_in_links) {}
  bool count_in_links() const { return count_in_links_; }
  const BroderSketcher* sketcher() const { return sketcher_; }
  const SimhashSketcher* simhasher() const { return simhasher_; }
  const BroderSketcher* robust_sketcher() const { return robust_sketcher_; }
  const RobustMethodOptions& robust() const { return *robust_; }
  // paragraphs / chunks (nullptr when not the method).
  const ParagraphMethodOptions* paragraphs = nullptr;
  const Chunking* chunking = nullptr;
  std::unique_ptr<WorkContext> Acquire() {
    std::lock_guard<std::mutex> lock(mu_);
    if (free_.empty()) return std::make_unique<WorkContext>(robust_sketcher_ != nullptr, count_in_links_);
    auto c = std::move(free_.back());
    free_.pop_back();
    return c;
  }
  void Release(std::unique_ptr<WorkContext> c) {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(std::move(c));
  }

 private:
  const BroderSketcher* sketcher_;
  const SimhashSketcher* simhasher_;
  const BroderSketcher* robust_sketcher_;
  const RobustMethodOptions* robust_;
  bool count_in_links_;
  std::mutex mu_;
  std::vector<std::unique_ptr<WorkContext>> free_;
};

// The token-sequence identity key: a Rabin fingerprint (fixed default
// polynomial) of the sequence of 64-bit term hashes.
const RabinFingerprinter& TokenSequenceFingerprinter() {
  static const RabinFingerprinter fp =
      RabinFingerprinter::FromSeed(RabinFingerprinter::kDefaultSeed);
  return fp;
}

// The key under which links and pages meet for the in-links rule.
uint64_t UrlKey(std::string_view url) {
  const std::string normalized = NormalizeUrl(url);
  return XXH3_64bits(normalized.data(), normalized.size());
}

void ProcessBatch(Batch* batch, ContextPool* pool) {
  const auto t0 = Clock::now();
  auto ctx = pool->Acquire();
  const RabinFingerprinter& rabin = TokenSequenceFingerprinter();
  batch->link_keys.clear();
  batch->unit_records.clear();
  for (size_t i = 0; i < batch->count; ++i) {
    const Document& doc = batch->docs[i];
    ctx->tokenizer.Tokenize(doc, &ctx->tokens);
    DocResult& r = batch->results[i];
    r.terms = static_cast<uint32_t>(ctx->tokens.num_terms());
    r.token_fp = rabin.Fingerprint(ctx->tokens.term_hashes.data(),
                                   ctx->tokens.term_hashes.size() * sizeof(uint64_t));
    r.byte_fp = XXH3_64bits(doc.body.data(), doc.body.size());
    if (const BroderSketcher* sk = pool->sketcher()) {
      const size_t m_prime = sk->options().num_supershingles();
      r.has_signature = sk->Sketch(ctx->tokens.term_hashes, &ctx->sketch_scratch,
                                   batch->signatures.data() + i * m_prime);
    }
    if (const SimhashSketcher* sh = pool->simhasher()) {
      const size_t words = sh->options().words();
      r.has_simhash = sh->Sketch(ctx->tokens.term_hashes, &ctx->simhash_scratch,
                                 batch->simhashes.data() + i * words);
    }
    if (pool->count_in_links()) {
      // Each page counts once per target; links to itself do not count.
      r.url_key = UrlKey(doc.url);
      ctx->links.clear();
      // The tokenizer's links are already normalized (NormalizeUrl).
      for (const std::string& link : ctx->tokens.links) {
        ctx->links.push_back(XXH3_64bits(link.data(), link.size()));
      }
      std::sort(ctx->links.begin(), ctx->links.end());
      ctx->links.erase(std::unique(ctx->links.begin(), ctx->links.end()), ctx->links.end());
      r.link_count = 0;
      for (uint64_t k : ctx->links) {
        if (k == r.url_key) continue;
        batch->link_keys.push_back(k);
        ++r.link_count;
      }
    }
    if (const ParagraphMethodOptions* po = pool->paragraphs) {
      r.units = 0;
      r.unit_key = 0;
      if (ctx->tokens.text_chars > po->min_text_chars) {
        ShingleParagraphs(ctx->tokens, po->sentences_per_paragraph, &ctx->paragraphs);
        std::sort(ctx->paragraphs.begin(), ctx->paragraphs.end());
        r.units = static_cast<uint32_t>(ctx->paragraphs.size());
        r.unit_key = XXH3_64bits(ctx->paragraphs.data(), ctx->paragraphs.size() * sizeof(uint64_t));
        // Record with a placeholder id: the commit step knows the document number.
        if (r.units > 0) AppendParagraphRecord(0, ctx->paragraphs, &batch->unit_records);
      }
    }
    if (const Chunking* ch = pool->chunking) {
      ChunkFingerprints(ctx->tokens, *ch, &ctx->chunks);
      std::sort(ctx->chunks.begin(), ctx->chunks.end());
      ctx->chunks.erase(std::unique(ctx->chunks.begin(), ctx->chunks.end()), ctx->chunks.end());
      r.units = static_cast<uint32_t>(ctx->chunks.size());
      AppendChunkRecords(0, ctx->chunks, &batch->unit_records);
    }
    if (const BroderSketcher* rk = pool->robust_sketcher()) {
      const size_t m = pool->robust().num_minhashes;
      r.robust = ComputeRobustSignature(
          ctx->tokens, doc.url, pool->robust(), *rk, &ctx->sketch_scratch, &ctx->normalized,
          batch->robust_mins.data() + i * m,
          batch->robust_digests.empty() ? nullptr : batch->robust_digests.data() + i * kRobustDigestCells);
    }
  }
  pool->Release(std::move(ctx));
  batch->work_seconds = SecondsSince(t0);
}

// Buffers appends to a WritableFile in large blocks.
class BufferedWriter {
 public:
  explicit BufferedWriter(std::unique_ptr<WritableFile> file) : file_(std::move(file)) {
    buf_.reserve(kBlock + 4096);
  }
  std::string* buffer() { return &buf_; }
  Status MaybeFlush() {
    if (buf_.size() < kBlock) return Status::OK();
    return FlushBuffer();
  }
  Status Close() {
    NEARDUP_RETURN_IF_ERROR(FlushBuffer());
    return file_->Close();
  }
  uint64_t bytes_written() const { return written_ + buf_.size(); }

 private:
  static constexpr size_t kBlock = 1 << 20;
  Status FlushBuffer() {
    if (buf_.empty()) return Status::OK();
    NEARDUP_RETURN_IF_ERROR(file_->Append(buf_.data(), buf_.size()));
    written_ += buf_.size();
    buf_.clear();
    return Status::OK();
  }
  std::unique_ptr<WritableFile> file_;
  std::string buf_;
  uint64_t written_ = 0;
};


// Counts warnings, records every one in warnings.tsv, and forwards them.
class RecordingObserver final : public ReadObserver {
 public:
  RecordingObserver(ReadObserver* next, BufferedWriter* out) : next_(next), out_(out) {
    out_->buffer()->append("file\toffset\treason\tmessage\n");
  }
  void OnWarning(const ReadWarning& w) override {
    ++count_;
    std::string* o = out_->buffer();
    AppendTsvField(w.file, o);
    o->push_back('\t');
    if (w.in_decompressed_stream) o->append("u:");  // offset in the decompressed stream
    o->append(std::to_string(w.offset));
    o->push_back('\t');
    AppendTsvField(w.reason_key, o);
    o->push_back('\t');
    AppendTsvField(w.message, o);
    o->push_back('\n');
    if (status_.ok()) status_ = out_->MaybeFlush();
    if (next_) next_->OnWarning(w);
  }
  uint64_t count() const { return count_; }
  const Status& status() const { return status_; }

 private:
  ReadObserver* next_;
  BufferedWriter* out_;
  uint64_t count_ = 0;
  Status status_;
};

std::string JoinPath(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  if (dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

nlohmann::ordered_json SummaryJson(const DedupSummary& s, const DedupOptions& o) {
  nlohmann::ordered_json j;
  j["neardup_version"] = Version();
  j["command"] = "dedup";
  j["options"] = {
      {"method", o.method},
      {"method_spec", s.method_spec},
      {"write_pairs", o.write_pairs},
      {"keeper", o.keeper},
      {"verify", o.verify},
      {"threads", s.threads},
      {"max_record_bytes", o.source.max_record_bytes},
      {"keep_non_2xx", o.source.keep_non_2xx},
      {"folder_extensions", o.source.folder_extensions},
      {"batch_documents", o.batch_documents},
      {"in_flight_per_thread", o.in_flight_per_thread},
  };
  if (o.method == "paragraphs" || o.method == "chunks") j["options"]["memory_bytes"] = o.memory_bytes;
  j["inputs"] = s.inputs;
  j["inputs_opened"] = s.read.inputs_opened;
  j["documents_read"] = s.documents;
  uint64_t skipped_total = 0;
  nlohmann::ordered_json by_reason = nlohmann::ordered_json::object();
  for (const auto& [reason, n] : s.read.skipped) {
    by_reason[reason] = n;
    skipped_total += n;
  }
  j["records_seen"] = s.read.records;
  j["records_skipped"] = {{"total", skipped_total}, {"by_reason", by_reason}};
  j["warnings"] = s.warnings;
  j["empty_documents"] = s.empty_documents;
  j["terms"] = s.terms;
  j["identity_sets"] = {{"token_sequence", s.token_identity_sets},
                        {"bytes", s.byte_identity_sets}};
  j["clusters"] = s.clusters;
  j["documents_in_clusters"] = s.documents_in_clusters;
  j["duplicates"] = s.duplicates;
  j["duplicate_percentage"] = s.duplicate_percentage;
  j["largest_cluster"] = s.largest_cluster;
  j["verification_split_off"] = s.verification_split_off;
  j["method_spec"] = s.method_spec;
  if (o.method != "exact") {
    nlohmann::ordered_json by_b = nlohmann::ordered_json::object();
    uint64_t listed = 0;
    for (size_t b = 2; b < s.pairs_by_b_similarity.size(); ++b) listed += s.pairs_by_b_similarity[b];
    nlohmann::ordered_json table1 = nlohmann::ordered_json::array();
    for (size_t b = 2; b < s.pairs_by_b_similarity.size(); ++b) {
      const uint64_t c = s.pairs_by_b_similarity[b];
      table1.push_back({{"b_similarity", b},
                        {"pairs", c},
                        {"percentage", listed ? 100.0 * static_cast<double>(c) / listed : 0.0}});
    }
    j["near_duplicates"] = {
        {"kernel", s.kernel},
        {"candidates", s.near_candidates},
        {"pairs", s.near_pairs},
        {"pairs_not_listed_upper_bound", s.near_pairs_not_listed},
        {"pairs_by_b_similarity", table1},
        {"pages_with_near_duplicate", s.pages_with_near_duplicate},
        {"pages_with_near_duplicate_percentage",
         s.near_candidates ? 100.0 * static_cast<double>(s.pages_with_near_duplicate) / s.near_candidates : 0.0},
        {"pages_clustered_by_near_method", s.near_duplicate_members},
        {"megashingle_collisions", s.megashingle_collisions},
        {"simhash_index_complete", s.simhash_complete},
    };
    if (o.method == "robust") {
      j["near_duplicates"]["normalized_identity_members"] = s.normalized_identity_members;
      j["near_duplicates"]["template_values"] = s.template_values;
      j["near_duplicates"]["candidate_pairs"] = s.near_candidate_pairs;
      j["near_duplicates"].erase("megashingle_collisions");
      j["near_duplicates"].erase("simhash_index_complete");
      j["near_duplicates"].erase("pairs_not_listed_upper_bound");
    }
    if (s.pairs_by_b_similarity.empty()) j["near_duplicates"].erase("pairs_by_b_similarity");
    if (o.method == "paragraphs" || o.method == "chunks") {
      j["near_duplicates"]["comparisons"] = s.near_candidate_pairs;
      for (const char* k : {"megashingle_collisions", "simhash_index_complete", "pairs_not_listed_upper_bound"}) {
        j["near_duplicates"].erase(k);
      }
    }
    if (o.method == "paragraphs") {
      nlohmann::ordered_json passes = nlohmann::ordered_json::array();
      for (const ParagraphPass& p : s.paragraph_passes) {
        passes.push_back({{"pass", p.pass},
                          {"first_document", p.first_document},
                          {"end_document", p.end_document},
                          {"documents_loaded", p.documents_loaded},
                          {"paragraphs_loaded", p.paragraphs_loaded},
                          {"clusters", p.clusters},
                          {"duplicates", p.duplicates},
                          {"estimated_final_duplicates", p.estimated_final_duplicates},
                          {"seconds", p.seconds}});
      }
      const uint64_t final_dups = s.paragraph_passes.empty() ? 0 : s.paragraph_passes.back().duplicates;
      j["paragraphs"] = {
          {"min_text_chars", o.paragraphs.min_text_chars},
          {"short_documents", s.short_documents},
          {"eligible_documents", s.near_candidates},
          {"min_shared_percent", o.paragraphs.min_shared_percent},
          {"memory_bytes", o.memory_bytes},
          {"table_budget_bytes", s.paragraph_table_budget_bytes},
          {"passes", passes},
          {"final_duplicates", final_dups},
          {"estimate", {{"method", "Horvitz-Thompson over the clusters found: (s - 1) / (1 - (1 - loaded)^s)"},
                        {"at_20_percent_of_passes", s.estimate_at_20_percent},
                        {"relative_error_at_20_percent", s.estimate_error_at_20_percent},
                        {"at_50_percent_of_passes", s.estimate_at_50_percent},
                        {"relative_error_at_50_percent", s.estimate_error_at_50_percent}}},
      };
    }
    if (o.method == "chunks") {
      const ChunkOverlapStats& c = s.chunk_overlap;
      nlohmann::ordered_json hist = nlohmann::ordered_json::object();
      for (const ReplicaHistogram& h : s.replica_histograms) {
        nlohmann::ordered_json buckets = nlohmann::ordered_json::object();
        for (const auto& [label, pages] : h.pages) buckets[label] = pages;
        hist[h.chunking] = buckets;
      }
      j["chunks"] = {
          {"chunking", o.chunks.chunking},
          {"threshold", o.chunks.threshold},
          {"algorithm", c.algorithm},
          {"memory_bytes", o.memory_bytes},
          {"buffer_budget_bytes", c.buffer_budget_bytes},
          {"peak_buffer_bytes", c.peak_buffer_bytes},
          {"records", c.records},
          {"fingerprint_bytes", c.fingerprint_bytes},
          {"copies_removed", c.copies_removed},
          {"pairs_generated", c.pairs_generated},
          {"candidate_pairs", c.candidate_pairs},
          {"false_candidates", c.false_candidates},
          {"result_pairs", c.result_pairs},
          {"spill_runs", c.spill_runs},
          {"spill_bytes", c.spill_bytes},
          {"passes", c.passes},
          {"sort_seconds", c.sort_seconds},
          {"overlap_seconds", c.overlap_seconds},
          {"replica_histogram", hist},
      };
    }
  }
  j["input_bytes"] = s.read.input_bytes;
  j["payload_bytes"] = s.read.payload_bytes;
  nlohmann::ordered_json stages = nlohmann::ordered_json::array();
  for (const auto& st : s.stages) {
    stages.push_back({{"name", st.name},
                      {"seconds", st.seconds},
                      {"bytes", st.bytes},
                      {"mb_per_second", st.seconds > 0 ? st.bytes / 1e6 / st.seconds : 0.0}});
  }
  j["stages"] = stages;
  j["seconds"] = s.seconds;
  j["peak_rss_bytes"] = s.peak_rss_bytes;
  j["outputs"] = {{"clusters", s.clusters_path},
                  {"summary", s.summary_path},
                  {"warnings", s.warnings_path}};
  if (!s.pairs_path.empty()) j["outputs"]["pairs"] = s.pairs_path;
  return j;
}

}  // namespace

Result<DedupSummary> RunDedup(const std::vector<std::string>& inputs, const std::string& out_dir,
                              const DedupOptions& options, Executor* executor, Env* env,
                              ReadObserver* observer, const DedupProgressCallback& progress,
                              double progress_interval_seconds) {
  NEARDUP_RETURN_IF_ERROR(options.Validate());
  if (inputs.empty()) return Status::InvalidArgument("no inputs given");
  if (out_dir.empty()) return Status::InvalidArgument("no output folder given");
  if (env == nullptr) env = Env::Default();
  const auto t_start = Clock::now();

  DedupSummary summary;
  summary.inputs = inputs;
  summary.threads = executor ? executor->num_threads() : 1;
  summary.clusters_path = JoinPath(out_dir, "clusters.tsv");
  summary.summary_path = JoinPath(out_dir, "summary.json");

  if (Status s = env->CreateDirs(out_dir); !s.ok()) {
    return Status::IOError("cannot create output folder " + out_dir + ": " + s.message());
  }
  // Per-page strings go to a spill file, not to memory.
  const std::string spill_path = JoinPath(out_dir, ".clusters.tsv.spill");
  const std::string clusters_tmp = summary.clusters_path + ".tmp";
  auto spill_file = env->NewWritableFile(spill_path);
  if (!spill_file.ok()) {
    return Status::IOError("cannot write in output folder " + out_dir + ": " +
                           spill_file.status().message());
  }
  BufferedWriter spill(std::move(spill_file).value());

  summary.warnings_path = JoinPath(out_dir, "warnings.tsv");
  auto warnings_file = env->NewWritableFile(summary.warnings_path);
  if (!warnings_file.ok()) {
    return Status::IOError("cannot write " + summary.warnings_path + ": " +
                           warnings_file.status().message());
  }
  BufferedWriter warnings_out(std::move(warnings_file).value());
  RecordingObserver counting(observer, &warnings_out);
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<DocumentSource> source,
                           OpenDocumentSource(inputs, options.source, env, &counting));

  // ---- read + tokenize ----
  const size_t num_slots =
      executor ? static_cast<size_t>(executor->num_threads()) * options.in_flight_per_thread + 1 : 1;
  std::vector<std::unique_ptr<Batch>> ring(num_slots);
  for (auto& b : ring) {
    b = std::make_unique<Batch>();
    b->docs.resize(options.batch_documents);
    b->results.resize(options.batch_documents);
  }
  // `broder`: supershingles are computed (broder, combined); `simhash`:
  // simhash sketches are (simhash, combined); `near`: any near method.
  const bool combined = options.method == "combined";
  const bool broder = options.method == "broder" || combined;
  const bool simhash = options.method == "simhash" || combined;
  const bool robust = options.method == "robust";
  const bool paragraphs = options.method == "paragraphs";
  const bool chunks = options.method == "chunks";
  // paragraphs and chunks: clusters are the connected components of their
  // pairs, as in their papers; no verification against the kept page.
  const bool pair_method = paragraphs || chunks;
  const bool near_method = broder || simhash || robust || pair_method;
  std::unique_ptr<BroderSketcher> sketcher;
  std::unique_ptr<SimhashSketcher> simhasher;
  uint32_t m_prime = 0, sim_words = 0;
  summary.method_spec = "exact";
  if (broder) {
    sketcher = std::make_unique<BroderSketcher>(ToSketchOptions(options.broder));
    m_prime = sketcher->options().num_supershingles();
    summary.method_spec = options.broder.Spec();
    summary.kernel = BroderSketcher::KernelName();
    for (auto& b : ring) b->signatures.resize(static_cast<size_t>(options.batch_documents) * m_prime);
  }
  if (simhash) {
    simhasher = std::make_unique<SimhashSketcher>(ToSimhashOptions(options.simhash));
    sim_words = simhasher->options().words();
    summary.method_spec = combined ? "combined:" + options.broder.Spec() + ";" + options.simhash.Spec() +
                                         ",same-site-t=" + std::to_string(options.simhash.combined_threshold)
                                   : options.simhash.Spec();
    summary.kernel = combined ? summary.kernel + "+" + SimhashSketcher::KernelName()
                              : SimhashSketcher::KernelName();
    for (auto& b : ring) b->simhashes.resize(static_cast<size_t>(options.batch_documents) * sim_words);
  }
  std::unique_ptr<BroderSketcher> robust_sketcher;
  const uint32_t robust_m = options.robust.num_minhashes;
  if (robust) {
    robust_sketcher = std::make_unique<BroderSketcher>(RobustSketchOptions(options.robust));
    summary.method_spec = options.robust.Spec();
    summary.kernel = BroderSketcher::KernelName();
    for (auto& b : ring) {
      b->robust_mins.resize(static_cast<size_t>(options.batch_documents) * robust_m);
      if (options.robust.max_edit_shingles > 0 || options.robust.max_same_site_edit_shingles > 0) {
        b->robust_digests.resize(static_cast<size_t>(options.batch_documents) * kRobustDigestCells);
      }
    }
  }
  const KeeperOptions keeper_options = KeeperOptions::Parse(options.keeper).value();
  const bool count_in_links = keeper_options.uses(KeeperRule::kInLinks);
  ContextPool contexts(sketcher.get(), simhasher.get(), robust_sketcher.get(), &options.robust,
                       count_in_links);
  // paragraphs / chunks: every document's units go to a spill file (the
  // m-pass algorithm reads it once per pass; the overlap algorithms sort it).
  Chunking chunking;
  if (paragraphs) {
    contexts.paragraphs = &options.paragraphs;
    summary.method_spec = options.paragraphs.Spec();
  }
  if (chunks) {
    chunking = Chunking::Parse(options.chunks.chunking).value();
    contexts.chunking = &chunking;
    summary.method_spec = options.chunks.Spec();
  }
  const std::string units_spill_path = JoinPath(out_dir, paragraphs ? ".paragraphs.spill" : ".chunks.spill");
  std::unique_ptr<BufferedWriter> units_spill;
  if (pair_method) {
    auto f = env->NewWritableFile(units_spill_path);
    if (!f.ok()) return Status::IOError("cannot write " + units_spill_path + ": " + f.status().message());
    units_spill = std::make_unique<BufferedWriter>(std::move(f).value());
  }
  ChunkedVector<uint32_t> unit_counts;  // paragraphs, chunks: per document
  ChunkedVector<uint64_t> unit_keys;    // paragraphs: per document
  // in-links: every page's distinct link keys go to a spill file (8 bytes a
  // link), read back once when the keepers are chosen.
  const std::string links_spill_path = JoinPath(out_dir, ".links.spill");
  std::unique_ptr<BufferedWriter> links_spill;
  if (count_in_links) {
    auto f = env->NewWritableFile(links_spill_path);
    if (!f.ok()) return Status::IOError("cannot write " + links_spill_path + ": " + f.status().message());
    links_spill = std::make_unique<BufferedWriter>(std::move(f).value());
  }
  ChunkedVector<uint64_t> page_url_keys;  // in-links
  ExactGrouper grouper;
  ChunkedVector<uint64_t> signatures;   // m' per document (broder)
  ChunkedVector<uint8_t> has_signature;
  ChunkedVector<KeeperFeatures> keeper_features;  // 24 bytes per document
  ChunkedVector<uint64_t> simhash_sketches;       // b/64 words per document
  ChunkedVector<uint8_t> has_simhash;
  ChunkedVector<uint64_t> site_hashes;            // combined: Henzinger's site; robust: host; hashed
  ChunkedVector<uint32_t> robust_mins;            // robust: m per document
  ChunkedVector<uint64_t> robust_identity;        // robust: normalized sequence key
  ChunkedVector<uint8_t> has_robust;
  ChunkedVector<uint64_t> robust_digests;         // robust: kRobustDigestCells per document
  double read_seconds = 0, work_seconds = 0;
  uint64_t empty_docs = 0, terms = 0;
  bool cancelled = false;
  Status spill_status;
  auto last_progress = Clock::now();

  auto report = [&](bool force) {
    if (!progress) return true;
    if (!force && SecondsSince(last_progress) < progress_interval_seconds) return true;
    last_progress = Clock::now();
    DedupProgress p;
    p.documents = grouper.size();
    p.input_bytes_consumed = source->bytes_consumed();
    p.input_bytes_total = source->bytes_total();
    p.payload_bytes = source->stats().payload_bytes;
    p.seconds = SecondsSince(t_start);
    return progress(p);
  };

  // Takes a finished batch into the exact stage and the spill, in order.
  auto commit = [&](Batch* b) {
    {
      std::unique_lock<std::mutex> lock(b->mu);
      b->cv.wait(lock, [b] { return b->done; });
    }
    work_seconds += b->work_seconds;
    if (links_spill) {
      links_spill->buffer()->append(reinterpret_cast<const char*>(b->link_keys.data()),
                                    b->link_keys.size() * sizeof(uint64_t));
      for (size_t i = 0; i < b->count; ++i) page_url_keys.push_back(b->results[i].url_key);
      if (spill_status.ok()) spill_status = links_spill->MaybeFlush();
    }
    if (units_spill) {
      // Patch the document numbers into the batch's records, then append.
      uint32_t doc = grouper.size();
      size_t pos = 0;
      std::string& rec = b->unit_records;
      for (size_t i = 0; i < b->count; ++i, ++doc) {
        const DocResult& r = b->results[i];
        unit_counts.push_back(r.units);
        if (paragraphs) unit_keys.push_back(r.unit_key);
        if (r.units == 0) continue;
        if (paragraphs) {  // doc, count, hashes
          std::memcpy(&rec[pos], &doc, sizeof doc);
          pos += 8 + size_t{r.units} * 8;
        } else {  // (fingerprint, doc) per distinct chunk
          for (uint32_t k = 0; k < r.units; ++k, pos += 8) std::memcpy(&rec[pos + 4], &doc, sizeof doc);
        }
      }
      units_spill->buffer()->append(rec);
      if (spill_status.ok()) spill_status = units_spill->MaybeFlush();
    }
    std::string* out = spill.buffer();
    for (size_t i = 0; i < b->count; ++i) {
      const DocResult& r = b->results[i];
      const Document& d = b->docs[i];
      grouper.Add(r.terms > 0, r.token_fp, r.byte_fp);
      keeper_features.push_back(KeeperFeatures::Of(d));
      if (simhash) {
        has_simhash.push_back(r.has_simhash ? 1 : 0);
        const uint64_t* sk = b->simhashes.data() + i * sim_words;
        for (uint32_t t = 0; t < sim_words; ++t) simhash_sketches.push_back(r.has_simhash ? sk[t] : 0);
      }
      if (robust) {
        has_robust.push_back(r.robust.has_sketch ? 1 : 0);
        robust_identity.push_back(r.robust.identity);
        const uint32_t* mv = b->robust_mins.data() + i * robust_m;
        for (uint32_t t = 0; t < robust_m; ++t) robust_mins.push_back(r.robust.has_sketch ? mv[t] : 0);
        if (!b->robust_digests.empty()) {
          const uint64_t* dv = b->robust_digests.data() + i * kRobustDigestCells;
          for (uint32_t t = 0; t < kRobustDigestCells; ++t) robust_digests.push_back(r.robust.has_sketch ? dv[t] : 0);
        }
      }
      if (combined || robust) {
        // combined: Henzinger's site; robust: the host, the unit a template
        // belongs to (blogs on one hosting domain each have their own).
        // A page without a host (a file, a JSON Lines record without a URL)
        // is a site of its own for robust: files do not share a template.
        std::string site = robust ? UrlHost(d.url) : SiteOfUrl(d.url);
        if (robust && site.empty()) site = "\x01" + d.url;
        site_hashes.push_back(XXH3_64bits(site.data(), site.size()));
      }
      if (broder) {
        has_signature.push_back(r.has_signature ? 1 : 0);
        const uint64_t* sig = b->signatures.data() + i * m_prime;
        for (uint32_t t = 0; t < m_prime; ++t) signatures.push_back(r.has_signature ? sig[t] : 0);
      }
      if (r.terms == 0) ++empty_docs;
      terms += r.terms;
      AppendTsvField(d.url, out);
      out->push_back('\t');
      AppendTsvField(d.source, out);
      out->push_back('\t');
      out->append(std::to_string(d.source_offset));
      out->push_back('\n');
    }
    // A slot keeps its buffers between batches, but not those grown by an
    // unusually large page: memory stays bounded by the batch, not by the
    // largest pages ever seen.
    for (size_t i = 0; i < b->count; ++i) {
      if (b->docs[i].body.capacity() > kKeepBodyCapacity) std::string().swap(b->docs[i].body);
    }
    b->count = 0;
    if (spill_status.ok()) spill_status = spill.MaybeFlush();
  };

  size_t next_slot = 0;
  bool end_of_input = false;
  while (!end_of_input && !cancelled && spill_status.ok()) {
    Batch* b = ring[next_slot].get();
    if (b->count > 0 || !b->done) commit(b);  // slot still holds an older batch
    const auto t_read = Clock::now();
    while (b->count < options.batch_documents) {
      Document& d = b->docs[b->count];
      if (!source->Next(&d)) {
        end_of_input = true;
        break;
      }
      ++b->count;
    }
    read_seconds += SecondsSince(t_read);
    if (b->count == 0) break;
    if (executor) {
      {
        std::lock_guard<std::mutex> lock(b->mu);
        b->done = false;
      }
      executor->Schedule([b, &contexts] {
        ProcessBatch(b, &contexts);
        {
          std::lock_guard<std::mutex> lock(b->mu);
          b->done = true;
        }
        b->cv.notify_all();
      });
    } else {
      ProcessBatch(b, &contexts);
    }
    next_slot = (next_slot + 1) % num_slots;
    if (!executor) commit(b);
    if (!report(false)) cancelled = true;
  }
  // Drain the ring in order.
  for (size_t k = 0; k < num_slots; ++k) {
    Batch* b = ring[(next_slot + k) % num_slots].get();
    if (b->count > 0 || !b->done) commit(b);
  }
  ring.clear();
  if (cancelled || !spill_status.ok()) {
    (void)env->RemoveFile(links_spill_path);
    if (units_spill) {
      (void)units_spill->Close();
      (void)env->RemoveFile(units_spill_path);
    }
  }
  if (cancelled) {
    (void)spill.Close();
    (void)env->RemoveFile(spill_path);
    return Status::Cancelled("cancelled");
  }
  if (spill_status.ok()) spill_status = spill.Close();
  if (spill_status.ok() && links_spill) spill_status = links_spill->Close();
  if (spill_status.ok() && units_spill) spill_status = units_spill->Close();
  if (!spill_status.ok()) {
    (void)env->RemoveFile(spill_path);
    return Status::IOError("cannot write " + spill_path + ": " + spill_status.message());
  }
  (void)report(true);
  if (Status s = counting.status(); !s.ok() || !(s = warnings_out.Close()).ok()) {
    return Status::IOError("cannot write " + summary.warnings_path + ": " + s.message());
  }

  summary.read = source->stats();
  summary.warnings = counting.count();
  summary.documents = grouper.size();
  summary.empty_documents = empty_docs;
  summary.terms = terms;
  summary.stages.push_back({"read", read_seconds, summary.read.input_bytes});
  summary.stages.push_back({"tokenize", work_seconds, summary.read.payload_bytes});

  // ---- exact identity sets ----
  const auto t_exact = Clock::now();
  const ExactStats exact = grouper.Finish();
  summary.token_identity_sets = exact.token_identity_sets;
  summary.byte_identity_sets = exact.byte_identity_sets;
  summary.stages.push_back({"exact", SecondsSince(t_exact), uint64_t{summary.documents} * 28});

  // ---- near duplicates (one page per identity set enters the tables) ----
  const uint32_t n = static_cast<uint32_t>(summary.documents);
  UnionFind uf(n);
  std::vector<uint64_t> sigs, sims, sites, robust_ids;
  std::vector<uint32_t> rmins;
  std::vector<uint64_t> rdigests;
  std::vector<uint32_t> normalized_root;  // robust: first page equal after normalization
  SiteTemplates templates;
  std::vector<NearPair> listed_pairs;  // for pairs.tsv, sorted by (a, b)
  std::vector<float> unit_share;       // paragraphs, chunks: best pair share per page
  // chunks with write_pairs: the pairs are on disk (ChunkStageResult::pairs_path).
  std::string chunk_pairs_path;
  std::vector<uint8_t> chunk_pair_member;
  const uint32_t sim_bits = options.simhash.bits;
  auto csim = [&](uint32_t a, uint32_t b) {
    return static_cast<uint32_t>(CSimilarity(sims.data() + static_cast<size_t>(a) * sim_words,
                                             sims.data() + static_cast<size_t>(b) * sim_words, sim_bits));
  };
  for (uint32_t i = 0; i < n; ++i) uf.Union(i, grouper.Root(i));
  if (near_method) {
    const auto t_near = Clock::now();
    std::vector<uint8_t> candidate(n, 1);
    for (uint32_t i = 0; i < n; ++i) candidate[i] = grouper.Root(i) == i;
    if (broder) {
      sigs = signatures.MoveToVector();
      const std::vector<uint8_t> has = has_signature.MoveToVector();
      for (uint32_t i = 0; i < n; ++i) candidate[i] &= has[i];
    }
    if (simhash) {
      sims = simhash_sketches.MoveToVector();
      const std::vector<uint8_t> has = has_simhash.MoveToVector();
      for (uint32_t i = 0; i < n; ++i) candidate[i] &= has[i];
    }
    if (combined || robust) sites = site_hashes.MoveToVector();
    if (robust) {
      rmins = robust_mins.MoveToVector();
      rdigests = robust_digests.MoveToVector();
      robust_ids = robust_identity.MoveToVector();
      const std::vector<uint8_t> has = has_robust.MoveToVector();
      for (uint32_t i = 0; i < n; ++i) candidate[i] &= has[i];
      // Pages equal after normalization are correct near duplicates by
      // Henzinger's definition: joined directly; one page per such set goes on.
      std::unordered_map<uint64_t, uint32_t> first_with_identity;
      // Sites holding pages equal after normalization become one site.
      std::unordered_map<uint64_t, uint32_t> site_index;
      for (uint32_t i = 0; i < n; ++i) site_index.try_emplace(sites[i], static_cast<uint32_t>(site_index.size()));
      UnionFind site_groups(static_cast<uint32_t>(site_index.size()));
      normalized_root.resize(n);
      for (uint32_t i = 0; i < n; ++i) {
        normalized_root[i] = grouper.Root(i);
        if (!has[i]) continue;
        auto [it, inserted] = first_with_identity.try_emplace(robust_ids[i], i);
        normalized_root[i] = it->second;
        if (inserted) continue;
        // Every page equal to another (exact copies too) links the sites.
        site_groups.Union(site_index[sites[it->second]], site_index[sites[i]]);
        if (!candidate[i]) continue;
        if (!candidate[it->second]) {  // the first page was an exact copy: i goes on
          it->second = i;
          continue;
        }
        uf.Union(it->second, i);
        candidate[i] = 0;
        ++summary.normalized_identity_members;
      }
      for (uint32_t i = 0; i < n; ++i) sites[i] = site_groups.Find(site_index[sites[i]]);
      RobustStageResult found =
          RunRobustStage(rmins, sites, rdigests, candidate, options.robust, options.broder.max_bucket_pages,
                         options.write_pairs, &templates, &uf);
      summary.near_candidates = found.candidates;
      summary.near_candidate_pairs = found.candidate_pairs;
      summary.near_pairs = found.pairs;
      summary.template_values = found.template_values;
      summary.pages_with_near_duplicate = found.pages_with_pair;
      for (const RobustPair& p : found.pairs_found) {
        NearPair np{p.a, p.b, 0, 0};
        np.content_agreeing = p.match.agreeing;
        np.content_positions = p.match.positions;
        listed_pairs.push_back(np);
      }
    }
    if (pair_method) {
      const std::vector<uint32_t> counts = unit_counts.MoveToVector();
      // The stage's tables get what the budget leaves beside the memory the
      // run already holds.
      const uint64_t rss = CurrentRssBytes();
      const uint64_t floor = uint64_t{4} << 20;
      const uint64_t budget = options.memory_bytes > rss + floor ? options.memory_bytes - rss : floor;
      if (paragraphs) {
        const std::vector<uint64_t> keys = unit_keys.MoveToVector();
        for (uint32_t i = 0; i < n; ++i) summary.short_documents += counts[i] == 0;
        ParagraphStageOptions po;
        po.min_shared_percent = options.paragraphs.min_shared_percent;
        po.table_budget_bytes = budget;
        po.collect_pairs = options.write_pairs;
        summary.paragraph_table_budget_bytes = budget;
        auto found = RunParagraphStage(env, units_spill_path, counts, keys, po, &uf);
        (void)env->RemoveFile(units_spill_path);
        if (!found.ok()) return found.status();
        ParagraphStageResult& r = found.value();
        summary.near_candidates = r.eligible_documents;
        summary.near_pairs = r.pairs;
        summary.near_candidate_pairs = r.comparisons;
        summary.paragraph_passes = r.passes;
        if (!r.passes.empty()) {
          const size_t m = r.passes.size();
          const double final_dups = static_cast<double>(r.passes.back().duplicates);
          auto at = [&](double share, double* estimate, double* error) {
            const size_t k = std::max<size_t>(1, static_cast<size_t>(std::ceil(share * m))) - 1;
            *estimate = r.passes[k].estimated_final_duplicates;
            *error = final_dups > 0 ? (*estimate - final_dups) / final_dups : 0.0;
          };
          at(0.2, &summary.estimate_at_20_percent, &summary.estimate_error_at_20_percent);
          at(0.5, &summary.estimate_at_50_percent, &summary.estimate_error_at_50_percent);
        }
        listed_pairs = std::move(r.pairs_found);
        unit_share = std::move(r.best_share);
      } else {
        std::vector<uint32_t> central(n);
        for (uint32_t i = 0; i < n; ++i) central[i] = grouper.Root(i);
        auto found = RunChunkStage(env, units_spill_path, out_dir, central, counts, options.chunks, budget,
                                   options.write_pairs, &uf);
        (void)env->RemoveFile(units_spill_path);
        if (!found.ok()) return found.status();
        ChunkStageResult& r = found.value();
        summary.chunk_overlap = r.stats;
        summary.replica_histograms = std::move(r.histograms);
        summary.near_pairs = r.stats.result_pairs;
        uint64_t c = 0;
        for (uint32_t i = 0; i < n; ++i) c += central[i] == i && counts[i] > 0;
        summary.near_candidates = c;
        chunk_pairs_path = r.pairs_path;
        chunk_pair_member = std::move(r.pair_member);
        unit_share = std::move(r.best_share);
      }
      uint64_t with_pair = 0;
      for (float v : unit_share) with_pair += v > 0;
      summary.pages_with_near_duplicate = with_pair;
    }
    std::vector<uint8_t> has_pair(n, 0);
    if (broder) {
      BroderStageOptions so;
      so.num_supershingles = m_prime;
      so.virtually_identical = options.broder.level == NearLevel::kVirtuallyIdentical;
      so.max_bucket_pages = options.broder.max_bucket_pages;
      so.collect_pairs = options.write_pairs || combined;
      if (combined) {
        // Henzinger §3.5: B-similar pairs kept where C-similarity is high
        // enough; by her proposed refinement only pairs on one site.
        so.accept = [&](uint32_t a, uint32_t b) {
          return sites[a] == sites[b] && csim(a, b) >= options.simhash.combined_threshold;
        };
      }
      BroderStageResult near = RunBroderStage(sigs, candidate, so, &uf);
      summary.near_candidates = near.candidates;
      summary.near_pairs = near.pairs;
      summary.near_pairs_not_listed = near.pairs_not_listed;
      summary.pages_with_near_duplicate = near.pages_with_near_duplicate;
      summary.megashingle_collisions = near.megashingle_collisions;
      summary.pairs_by_b_similarity.assign(near.pairs_by_b_similarity.begin(),
                                           near.pairs_by_b_similarity.begin() + m_prime + 1);
      for (NearPair& p : near.pairs_found) {
        if (simhash) p.c_similarity = csim(p.a, p.b);
        has_pair[p.a] = has_pair[p.b] = 1;
      }
      if (options.write_pairs) listed_pairs = std::move(near.pairs_found);
    }
    if (simhash) {
      // Candidate pairs without comparing all pairs: pages that share a piece
      // of their sketch (Henzinger §3.3), then the exact C-similarity.
      SimhashIndexOptions io;
      io.bits = sim_bits;
      io.min_agreeing = options.simhash.threshold;
      io.max_bucket_pages = options.broder.max_bucket_pages;
      SimhashIndexResult found = FindSimhashPairs(sims, candidate, io);
      summary.simhash_complete = found.complete;
      uint64_t taken = 0;
      for (const SimhashPair& p : found.pairs) {
        if (combined && sites[p.a] == sites[p.b]) continue;  // same site: the combined rule
        uf.Union(p.a, p.b);
        has_pair[p.a] = has_pair[p.b] = 1;
        ++taken;
        if (options.write_pairs) {
          uint32_t b_sim = 0;
          if (broder) {
            b_sim = static_cast<uint32_t>(BSimilarity(sigs.data() + static_cast<size_t>(p.a) * m_prime,
                                                      sigs.data() + static_cast<size_t>(p.b) * m_prime, m_prime));
          }
          listed_pairs.push_back(NearPair{p.a, p.b, b_sim, p.c_similarity});
        }
      }
      if (!broder) {
        uint64_t c = 0;
        for (uint32_t i = 0; i < n; ++i) c += candidate[i];
        summary.near_candidates = c;
      }
      summary.near_pairs += taken;
      uint64_t with_pair = 0;
      for (uint32_t i = 0; i < n; ++i) with_pair += has_pair[i];
      summary.pages_with_near_duplicate = with_pair;
      std::sort(listed_pairs.begin(), listed_pairs.end(), [](const NearPair& x, const NearPair& y) {
        return x.a != y.a ? x.a < y.a : x.b < y.b;
      });
    }
    summary.stages.push_back({"near", SecondsSince(t_near),
                              uint64_t{summary.near_candidates} * ((m_prime + sim_words) * 8 + robust_m * (robust ? 4 : 0))});
  }
  ClusterMap components = ClusterMap::Build(&uf);
  uf.Reset(0);

  // ---- keepers, and verification against them ----
  // Each cluster keeps the page its rules prefer (Zhu et al. §5). With a
  // near-duplicate method every member is then checked against the kept page
  // with the method's own rule (Zhu et al. §5.2): a member that fails leaves
  // the cluster, together with its exact copies, so that chains of pairwise
  // matches cannot pull unrelated pages into one cluster.
  std::vector<KeeperFeatures> features = keeper_features.MoveToVector();
  std::vector<uint32_t> group(n), keeper(n);
  std::vector<uint8_t> reason(n, kReasonSingle);
  for (uint32_t i = 0; i < n; ++i) {
    group[i] = components.size[i] >= 2 ? components.keeper[i] : kNoGroup;
    keeper[i] = i;
  }
  components = ClusterMap();
  std::vector<uint32_t> in_links;
  if (count_in_links) {
    // Count, for the pages in clusters only, the distinct pages linking to them.
    const std::vector<uint64_t> url_keys = page_url_keys.MoveToVector();
    std::unordered_map<uint64_t, uint32_t> count;
    for (uint32_t i = 0; i < n; ++i) {
      if (group[i] != kNoGroup) count.emplace(url_keys[i], 0);
    }
    auto in = env->NewSequentialFile(links_spill_path);
    if (!in.ok()) return Status::IOError("cannot reopen " + links_spill_path + ": " + in.status().message());
    std::string buf(1 << 20, '\0');
    std::string carry;
    for (;;) {
      size_t got = 0;
      if (Status st = in.value()->Read(buf.size(), &buf[0], &got); !st.ok()) {
        return Status::IOError("cannot read " + links_spill_path + ": " + st.message());
      }
      if (got == 0) break;
      carry.append(buf.data(), got);
      const size_t whole = carry.size() / sizeof(uint64_t);
      for (size_t k = 0; k < whole; ++k) {
        uint64_t key;
        std::memcpy(&key, carry.data() + k * sizeof(uint64_t), sizeof key);
        if (auto it = count.find(key); it != count.end()) ++it->second;
      }
      carry.erase(0, whole * sizeof(uint64_t));
    }
    in.value().reset();
    (void)env->RemoveFile(links_spill_path);
    in_links.assign(n, 0);
    for (uint32_t i = 0; i < n; ++i) {
      if (group[i] != kNoGroup) in_links[i] = count[url_keys[i]];
    }
  }
  const std::vector<uint32_t>* in_links_ptr = count_in_links ? &in_links : nullptr;
  ChooseKeepers(group, features, keeper_options, &keeper, &reason, in_links_ptr);
  // The method's own rule for a member `i` and its kept page `k`.
  const uint32_t need = options.broder.level == NearLevel::kVirtuallyIdentical ? m_prime : 2;
  auto bsim = [&](uint32_t a, uint32_t b) {
    return static_cast<uint32_t>(BSimilarity(sigs.data() + static_cast<size_t>(a) * m_prime,
                                             sigs.data() + static_cast<size_t>(b) * m_prime, m_prime));
  };
  auto robust_match = [&](uint32_t a, uint32_t b) {
    return templates.Compare(rmins.data() + static_cast<size_t>(a) * robust_m,
                             rmins.data() + static_cast<size_t>(b) * robust_m, robust_m);
  };
  auto passes = [&](uint32_t i, uint32_t k) {
    if (robust) {
      if (robust_ids[i] != 0 && robust_ids[i] == robust_ids[k]) return true;  // equal after normalization
      return RobustSimilar(templates, rmins, sites, rdigests, i, k, options.robust);
    }
    if (combined) {
      return sites[i] == sites[k]
                 ? bsim(i, k) >= need && csim(i, k) >= options.simhash.combined_threshold
                 : csim(i, k) >= options.simhash.threshold;
    }
    if (simhash) return csim(i, k) >= options.simhash.threshold;
    return bsim(i, k) >= need;
  };
  if (near_method && !pair_method && options.verify) {
    bool any_failed = false;
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t k = keeper[i];
      group[i] = kNoGroup;
      if (k == i || grouper.Root(i) == grouper.Root(k)) continue;
      if (passes(i, k)) continue;
      // Leaves with its exact copies (robust: with the pages equal to it
      // after normalization).
      group[i] = robust ? normalized_root[i] : grouper.Root(i);
      keeper[i] = i;
      reason[i] = kReasonSingle;
      ++summary.verification_split_off;
      any_failed = true;
    }
    if (any_failed) ChooseKeepers(group, features, keeper_options, &keeper, &reason, in_links_ptr);
  }
  // Final cluster sizes; a cluster is "near" when one of its pages is not an
  // exact copy of its kept page.
  std::vector<uint32_t> cluster_size(n, 0);
  for (uint32_t i = 0; i < n; ++i) ++cluster_size[keeper[i]];
  std::vector<uint8_t> near_cluster(near_method ? n : 0, 0);
  summary.clusters = summary.documents_in_clusters = summary.largest_cluster = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t k = keeper[i];
    if (cluster_size[k] < 2) {
      reason[i] = kReasonSingle;
      continue;
    }
    if (near_method && grouper.Root(i) != grouper.Root(k)) {
      near_cluster[k] = 1;
      ++summary.near_duplicate_members;
    }
    ++summary.documents_in_clusters;
    if (k == i) {
      ++summary.clusters;
      summary.largest_cluster = std::max<uint64_t>(summary.largest_cluster, cluster_size[i]);
    }
  }
  summary.duplicates = summary.documents_in_clusters - summary.clusters;
  summary.duplicate_percentage =
      n ? 100.0 * static_cast<double>(summary.duplicates) / n : 0.0;

  // ---- write clusters.tsv in input order ----
  const auto t_write = Clock::now();
  {
    auto in = env->NewSequentialFile(spill_path);
    if (!in.ok()) return Status::IOError("cannot reopen " + spill_path + ": " + in.status().message());
    LineReader lines(std::move(in).value());
    auto out_file = env->NewWritableFile(clusters_tmp);
    if (!out_file.ok()) {
      return Status::IOError("cannot write " + clusters_tmp + ": " + out_file.status().message());
    }
    BufferedWriter out(std::move(out_file).value());
    out.buffer()->append("url\tcluster\trole\tmethod\tsimilarity\tsource\toffset\treason\n");
    std::vector<std::string_view> fields;
    // URLs of pages that appear in listed pairs, gathered on this pass for
    // pairs.tsv (only those pages' URLs are held in memory).
    const bool want_pair_urls = options.write_pairs && near_method;
    std::vector<uint8_t> pair_member(want_pair_urls ? n : 0, 0);
    for (const NearPair& p : listed_pairs) pair_member[p.a] = pair_member[p.b] = 1;
    if (want_pair_urls && !chunk_pair_member.empty()) pair_member = std::move(chunk_pair_member);
    std::unordered_map<uint32_t, size_t> pair_url_offset;
    std::string pair_urls;
    for (uint32_t doc = 0; doc < summary.documents; ++doc) {
      std::string_view line;
      NEARDUP_ASSIGN_OR_RETURN(bool got, lines.Next(&line));
      if (!got) return Status::Corruption("spill file ended early: " + spill_path);
      SplitTsvLine(line, &fields);
      if (fields.size() != 3) return Status::Corruption("bad spill line in " + spill_path);
      const uint32_t kept = keeper[doc];
      const bool clustered = cluster_size[kept] >= 2;
      // method: what put the page in its cluster; similarity: to the kept page.
      const char* method = "single";
      std::string similarity = "1";
      if (clustered) {
        const bool exact_copy_of_keeper = grouper.Root(doc) == grouper.Root(kept);
        if (doc == kept) {
          method = near_method && near_cluster[kept] ? options.method.c_str() : "exact";
        } else if (exact_copy_of_keeper) {
          method = "exact";
        } else {
          method = options.method.c_str();
          // broder: share of supershingles; simhash, combined: share of bits;
          // robust: share of content positions agreeing (1 when equal after
          // normalization).
          const double sim = pair_method ? unit_share[doc] : robust ? (robust_ids[doc] == robust_ids[kept] ? 1.0 : robust_match(doc, kept).similarity())
                             : simhash ? static_cast<double>(csim(doc, kept)) / sim_bits
                                       : static_cast<double>(bsim(doc, kept)) / m_prime;
          char buf[32];
          std::snprintf(buf, sizeof buf, "%.4g", sim);
          similarity = buf;
        }
      }
      if (want_pair_urls && pair_member[doc]) {
        pair_url_offset[doc] = pair_urls.size();
        pair_urls.append(fields[0]);
        pair_urls.push_back('\0');
      }
      std::string* o = out.buffer();
      o->append(fields[0]);
      o->push_back('\t');
      o->append(std::to_string(kept));
      o->append(kept == doc ? "\tkeep\t" : "\tduplicate\t");
      o->append(method);
      o->push_back('\t');
      o->append(similarity);
      o->push_back('\t');
      o->append(fields[1]);
      o->push_back('\t');
      o->append(fields[2]);
      o->push_back('\t');
      o->append(ReasonName(reason[doc], keeper_options));
      o->push_back('\n');
      if (Status s = out.MaybeFlush(); !s.ok()) {
        return Status::IOError("cannot write " + clusters_tmp + ": " + s.message());
      }
    }
    if (Status s = out.Close(); !s.ok()) {
      return Status::IOError("cannot write " + clusters_tmp + ": " + s.message());
    }
    uint64_t written = out.bytes_written();
    if (want_pair_urls) {
      summary.pairs_path = JoinPath(out_dir, "pairs.tsv");
      const std::string tmp = summary.pairs_path + ".tmp";
      auto pf = env->NewWritableFile(tmp);
      if (!pf.ok()) return Status::IOError("cannot write " + tmp + ": " + pf.status().message());
      BufferedWriter pw(std::move(pf).value());
      // broder: supershingles_shared; simhash: bits_agreeing; combined: both.
      // robust: content_similarity, content_positions (see RobustMethodOptions).
      pw.buffer()->append(chunks        ? "url_a\turl_b\tF\n"
                          : paragraphs  ? "url_a\turl_b\tshared_percentage\tparagraphs_of_both\n"
                          : robust      ? "url_a\turl_b\tcontent_similarity\tcontent_positions\n"
                          : combined  ? "url_a\turl_b\tsupershingles_shared\tbits_agreeing\n"
                          : simhash ? "url_a\turl_b\tbits_agreeing\n"
                                    : "url_a\turl_b\tsupershingles_shared\n");
      auto write_pair = [&](const NearPair& p) -> Status {
        std::string* o = pw.buffer();
        const char* url_a = pair_urls.c_str() + pair_url_offset[p.a];
        const char* url_b = pair_urls.c_str() + pair_url_offset[p.b];
        // chunks: the Overlap table, url_a < url_b.
        if (chunks && std::strcmp(url_a, url_b) > 0) std::swap(url_a, url_b);
        o->append(url_a);
        o->push_back('\t');
        o->append(url_b);
        if (chunks) o->append("\t" + std::to_string(p.b_similarity));
        if (paragraphs) {
          char buf[64];
          std::snprintf(buf, sizeof buf, "\t%.2f\t%u",
                        p.content_positions ? 100.0 * p.content_agreeing / p.content_positions : 100.0,
                        p.content_positions);
          o->append(buf);
        }
        if (broder) {
          o->push_back('\t');
          o->append(std::to_string(p.b_similarity));
        }
        if (simhash) {
          o->push_back('\t');
          o->append(std::to_string(p.c_similarity));
        }
        if (robust) {
          char buf[64];
          std::snprintf(buf, sizeof buf, "\t%.4f\t%u",
                        p.content_positions ? static_cast<double>(p.content_agreeing) / p.content_positions : 1.0,
                        p.content_positions);
          o->append(buf);
        }
        o->push_back('\n');
        if (Status s = pw.MaybeFlush(); !s.ok()) return Status::IOError("cannot write " + tmp + ": " + s.message());
        return Status::OK();
      };
      for (const NearPair& p : listed_pairs) NEARDUP_RETURN_IF_ERROR(write_pair(p));
      if (!chunk_pairs_path.empty()) {
        // chunks: the Overlap table streamed from the stage's pairs file.
        NEARDUP_RETURN_IF_ERROR(ReadChunkPairs(env, chunk_pairs_path, write_pair));
        (void)env->RemoveFile(chunk_pairs_path);
      }
      if (Status s = pw.Close(); !s.ok()) return Status::IOError("cannot write " + tmp + ": " + s.message());
      if (Status s = env->RenameFile(tmp, summary.pairs_path); !s.ok()) {
        return Status::IOError("cannot write " + summary.pairs_path + ": " + s.message());
      }
      written += pw.bytes_written();
    }
    summary.stages.push_back({"write", SecondsSince(t_write), written});
  }
  (void)env->RemoveFile(spill_path);
  if (Status s = env->RenameFile(clusters_tmp, summary.clusters_path); !s.ok()) {
    return Status::IOError("cannot write " + summary.clusters_path + ": " + s.message());
  }

  summary.seconds = SecondsSince(t_start);
  summary.peak_rss_bytes = PeakRssBytes();
  {
    const std::string json = SummaryJson(summary, options).dump(2) + "\n";
    const std::string tmp = summary.summary_path + ".tmp";
    auto f = env->NewWritableFile(tmp);
    Status s = f.ok() ? f.value()->Append(json) : f.status();
    if (s.ok()) s = f.value()->Close();
    if (s.ok()) s = env->RenameFile(tmp, summary.summary_path);
    if (!s.ok()) return Status::IOError("cannot write " + summary.summary_path + ": " + s.message());
  }
  return summary;
}

}  // namespace neardup
