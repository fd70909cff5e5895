// The batch job behind RunDedup (see include/neardup/engine.h): a
// DocumentSource feeds a Deduper, and the writers turn its clustering into
// clusters.tsv, pairs.tsv, summary.json and warnings.tsv. Nothing here
// knows a method by name: the method's own files (methods/) add their
// columns and sections.
#include <xxhash.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/line_reader.h"
#include "base/path.h"
#include "base/tsv.h"
#include "engine/deduper_impl.h"
#include "output/clusters_file.h"
#include "output/pairs_file.h"
#include "output/summary_file.h"
#include "output/warnings_file.h"
#include "neardup/engine.h"
#include "neardup/env.h"
#include "neardup/executor.h"

#ifndef NEARDUP_VERSION
#define NEARDUP_VERSION "0.0.0"
#endif

namespace neardup {

const char* Version() { return NEARDUP_VERSION; }

Status DedupOptions::Validate() const {
  auto m = NewMethodImpl(*this);  // the method's own checks
  if (!m.ok()) return m.status();
  if ((*m)->batch_only() && memory_bytes < (uint64_t{16} << 20)) {
    return Status::InvalidArgument("memory_bytes must be at least 16 MiB");
  }
  if (broder.max_bucket_pages < 2) return Status::InvalidArgument("max_bucket_pages must be at least 2");
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

double SecondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Counts warnings, records every one in warnings.tsv, and forwards them.
class RecordingObserver final : public ReadObserver {
 public:
  RecordingObserver(ReadObserver* next, WarningsWriter* out) : next_(next), out_(out) {}
  void OnWarning(const ReadWarning& w) override {
    ++count_;
    WarningRecord r;
    r.file = w.file;
    r.offset = w.offset;
    r.in_decompressed_stream = w.in_decompressed_stream;
    r.reason = w.reason_key;
    r.message = w.message;
    if (status_.ok()) status_ = out_->Add(r);
    if (next_) next_->OnWarning(w);
  }
  uint64_t count() const { return count_; }
  const Status& status() const { return status_; }

 private:
  ReadObserver* next_;
  WarningsWriter* out_;
  uint64_t count_ = 0;
  Status status_;
};

nlohmann::ordered_json SummaryJson(const DedupSummary& s, const DedupOptions& o, const DeduperImpl& d) {
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
  if (d.method().batch_only()) j["options"]["memory_bytes"] = o.memory_bytes;
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
  if (d.method().finds_near_duplicates()) {
    nlohmann::ordered_json near = {
        {"kernel", s.kernel},
        {"candidates", s.near_candidates},
        {"pairs", s.near_pairs},
    };
    if (!s.pairs_by_b_similarity.empty()) {
      // Henzinger's Table 1: pairs by B-similarity.
      uint64_t listed = 0;
      for (size_t b = 2; b < s.pairs_by_b_similarity.size(); ++b) listed += s.pairs_by_b_similarity[b];
      nlohmann::ordered_json table1 = nlohmann::ordered_json::array();
      for (size_t b = 2; b < s.pairs_by_b_similarity.size(); ++b) {
        const uint64_t c = s.pairs_by_b_similarity[b];
        table1.push_back({{"b_similarity", b},
                          {"pairs", c},
                          {"percentage", listed ? 100.0 * static_cast<double>(c) / listed : 0.0}});
      }
      near["pairs_by_b_similarity"] = table1;
    }
    near["pages_with_near_duplicate"] = s.pages_with_near_duplicate;
    near["pages_with_near_duplicate_percentage"] =
        s.near_candidates ? 100.0 * static_cast<double>(s.pages_with_near_duplicate) / s.near_candidates : 0.0;
    near["pages_clustered_by_near_method"] = s.near_duplicate_members;
    j["near_duplicates"] = near;
    d.WriteMethodSummary(o, &j);
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
                              const DedupOptions& given, Executor* executor, Env* env,
                              ReadObserver* observer, const DedupProgressCallback& progress,
                              double progress_interval_seconds) {
  NEARDUP_RETURN_IF_ERROR(given.Validate());
  if (inputs.empty()) return Status::InvalidArgument("no inputs given");
  if (out_dir.empty()) return Status::InvalidArgument("no output folder given");
  if (env == nullptr) env = Env::Default();
  const auto t_start = Clock::now();
  DedupOptions options = given;
  options.temp_dir = out_dir;

  const std::string clusters_path = JoinPath(out_dir, "clusters.tsv");
  const std::string summary_path = JoinPath(out_dir, "summary.json");
  const std::string warnings_path = JoinPath(out_dir, "warnings.tsv");
  if (Status s = env->CreateDirs(out_dir); !s.ok()) {
    return Status::IOError("cannot create output folder " + out_dir + ": " + s.message());
  }
  // Per-page strings go to a spill file, not to memory; it is removed when
  // the run ends, whether it succeeded or not.
  const std::string spill_path = JoinPath(out_dir, ".clusters.tsv.spill");
  struct RemoveOnExit {
    Env* env;
    std::string path;
    ~RemoveOnExit() { (void)env->RemoveFile(path); }
  } remove_spill{env, spill_path};
  auto spill_file = env->NewWritableFile(spill_path);
  if (!spill_file.ok()) {
    return Status::IOError("cannot write in output folder " + out_dir + ": " + spill_file.status().message());
  }
  BufferedWriter spill(std::move(spill_file).value());
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<WarningsWriter> warnings_out, WarningsWriter::Create(env, warnings_path));
  RecordingObserver counting(observer, warnings_out.get());
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<DocumentSource> source,
                           OpenDocumentSource(inputs, options.source, env, &counting));
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<MethodImpl> method, NewMethodImpl(options));
  DeduperImpl deduper(options, std::move(method), executor, env);

  // ---- read + sign ----
  Status spill_status;
  auto on_document = [&](DocId, const Document& d) -> Status {
    std::string* out = spill.buffer();
    AppendTsvField(d.url, out);
    out->push_back('\t');
    AppendTsvField(d.source, out);
    out->push_back('\t');
    out->append(std::to_string(d.source_offset));
    out->push_back('\n');
    spill_status = spill.MaybeFlush();
    return spill_status;
  };
  Status added = deduper.AddFrom(source.get(), on_document, progress, progress_interval_seconds);
  if (!added.ok()) {
    (void)spill.Close();
    (void)env->RemoveFile(spill_path);
    if (!spill_status.ok()) return Status::IOError("cannot write " + spill_path + ": " + spill_status.message());
    return added;
  }
  if (Status s = spill.Close(); !s.ok()) {
    (void)env->RemoveFile(spill_path);
    return Status::IOError("cannot write " + spill_path + ": " + s.message());
  }
  NEARDUP_RETURN_IF_ERROR(counting.status());
  NEARDUP_RETURN_IF_ERROR(warnings_out->Finish());

  // ---- exact, near, keepers, verification ----
  NEARDUP_ASSIGN_OR_RETURN(Clustering clustering, deduper.Finish());
  DedupSummary summary = deduper.summary();
  summary.inputs = inputs;
  summary.threads = executor ? executor->num_threads() : 1;
  summary.clusters_path = clusters_path;
  summary.summary_path = summary_path;
  summary.warnings_path = warnings_path;
  summary.read = source->stats();
  summary.warnings = counting.count();
  std::vector<StageStats> stages = {{"read", deduper.read_seconds(), summary.read.input_bytes},
                                    {"tokenize", deduper.sign_seconds(), summary.read.payload_bytes}};
  stages.insert(stages.end(), summary.stages.begin(), summary.stages.end());
  summary.stages = std::move(stages);
  const uint32_t n = static_cast<uint32_t>(summary.documents);

  // ---- write clusters.tsv in input order ----
  const auto t_write = Clock::now();
  {
    auto in = env->NewSequentialFile(spill_path);
    if (!in.ok()) return Status::IOError("cannot reopen " + spill_path + ": " + in.status().message());
    LineReader lines(std::move(in).value());
    NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<ClustersWriter> out, ClustersWriter::Create(env, clusters_path));
    std::vector<std::string_view> fields;
    // URLs of pages that appear in listed pairs, gathered on this pass for
    // pairs.tsv (only those pages' URLs are held in memory).
    const bool want_pair_urls = options.write_pairs && deduper.method().finds_near_duplicates();
    std::vector<uint8_t> pair_member;
    if (want_pair_urls) deduper.MarkPairMembers(&pair_member);
    std::unordered_map<uint32_t, size_t> pair_url_offset;
    std::string pair_urls;
    for (uint32_t doc = 0; doc < n; ++doc) {
      std::string_view line;
      NEARDUP_ASSIGN_OR_RETURN(bool got, lines.Next(&line));
      if (!got) return Status::Corruption("spill file ended early: " + spill_path);
      SplitTsvLine(line, &fields);
      if (fields.size() != 3) return Status::Corruption("bad spill line in " + spill_path);
      if (want_pair_urls && pair_member[doc]) {
        pair_url_offset[doc] = pair_urls.size();
        pair_urls.append(fields[0]);
        pair_urls.push_back('\0');
      }
      // The spill holds the URL and source escaped already (AppendTsvField;
      // escaping again changes nothing).
      ClusterRecord r;
      r.url = fields[0];
      r.cluster = clustering.keeper_of(doc);
      r.role = clustering.role_of(doc) == DocRole::kDuplicate ? ClusterRole::kDuplicate : ClusterRole::kKeep;
      r.method = clustering.method_of(doc);
      r.similarity = clustering.similarity_of(doc);
      r.source = fields[1];
      r.offset = std::strtoull(std::string(fields[2]).c_str(), nullptr, 10);
      r.reason = clustering.keeper_reason_of(doc);
      NEARDUP_RETURN_IF_ERROR(out->Add(r));
    }
    NEARDUP_RETURN_IF_ERROR(out->Finish());
    uint64_t written = out->bytes_written();
    if (want_pair_urls) {
      summary.pairs_path = JoinPath(out_dir, "pairs.tsv");
      NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<PairsWriter> pw,
                               PairsWriter::Create(env, summary.pairs_path, deduper.PairColumns()));
      const bool by_url = deduper.pairs_ordered_by_url();
      NEARDUP_RETURN_IF_ERROR(deduper.ForEachPair([&](DocId a, DocId b, std::span<const double> values) {
        std::string_view url_a = pair_urls.c_str() + pair_url_offset[static_cast<uint32_t>(a)];
        std::string_view url_b = pair_urls.c_str() + pair_url_offset[static_cast<uint32_t>(b)];
        if (by_url && url_a > url_b) std::swap(url_a, url_b);
        return pw->Add(url_a, url_b, values);
      }));
      NEARDUP_RETURN_IF_ERROR(pw->Finish());
      written += pw->bytes_written();
    }
    summary.stages.push_back({"write", SecondsSince(t_write), written});
  }
  (void)env->RemoveFile(spill_path);

  summary.seconds = SecondsSince(t_start);
  if (options.memory_probe) {
    uint64_t resident = 0;
    options.memory_probe(&resident, &summary.peak_rss_bytes);
  }
  NEARDUP_RETURN_IF_ERROR(WriteSummaryJson(env, summary.summary_path, SummaryJson(summary, options, deduper)));
  return summary;
}

}  // namespace neardup
