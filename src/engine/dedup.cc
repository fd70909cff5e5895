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
#include "base/stopwatch.h"
#include "base/tsv.h"
#include "engine/deduper_impl.h"
#include "output/clusters_file.h"
#include "output/pairs_file.h"
#include "output/summary_file.h"
#include "output/warnings_file.h"
#include "neardup/dedup_job.h"
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

// Counts warnings and forwards them; the clustering process (part 0)
// writes each to warnings.tsv, the others keep them for ExportShare.
class RecordingObserver final : public ReadObserver {
 public:
  RecordingObserver(ReadObserver* next, WarningsWriter* out) : next_(next), out_(out) {}
  void OnWarning(const ReadWarning& w) override {
    ++count_;
    if (out_ != nullptr) {
      if (status_.ok()) status_ = out_->Add(Record(w));
    } else {
      kept_.push_back(w);
    }
    if (next_) next_->OnWarning(w);
  }
  // A warning read by another process (ImportShare): recorded and
  // forwarded as if read here.
  void AddImported(const ReadWarning& w) {
    ++count_;
    if (out_ != nullptr && status_.ok()) status_ = out_->Add(Record(w));
    if (next_) next_->OnWarning(w);
  }
  uint64_t count() const { return count_; }
  const Status& status() const { return status_; }
  std::vector<ReadWarning>* kept() { return &kept_; }

 private:
  static WarningRecord Record(const ReadWarning& w) {
    WarningRecord r;
    r.file = w.file;
    r.offset = w.offset;
    r.in_decompressed_stream = w.in_decompressed_stream;
    r.reason = w.reason_key;
    r.message = w.message;
    return r;
  }
  ReadObserver* next_;
  WarningsWriter* out_;
  uint64_t count_ = 0;
  Status status_;
  std::vector<ReadWarning> kept_;
};

std::string MiB(uint64_t bytes) { return std::to_string((bytes + (uint64_t{1} << 20) - 1) >> 20) + " MiB"; }

// The batch job's run within DedupOptions::memory_bytes, for every method
// (the process's resident size as DedupOptions::memory_probe reads it; no
// check without a probe). A run that cannot fit stops as soon as that is
// known, with one line that says how much it needs:
//   - before the first page, when the program and its reading threads
//     already take the budget (InvalidArgument);
//   - while reading, every kCheckEvery pages, when what it holds plus what
//     the clustering will add for the pages read so far
//     (MethodImpl::clustering_bytes) is over the budget; or, once
//     kProjectAfter of the input is read, when the same for the pages the
//     whole input will hold at this rate (pages per input byte) is
//     (ResourceExhausted).
class MemoryCheck {
 public:
  static constexpr uint64_t kCheckEvery = 1024;
  static constexpr double kProjectAfter = 0.05;
  // Reading: the readers' and signers' buffers, measured on pages of 8 to
  // 25 KB (bench/RESULTS.md, "--memory"): a base and a share per thread.
  static constexpr uint64_t kReadingBase = uint64_t{8} << 20, kReadingPerThread = uint64_t{4} << 20;

  MemoryCheck(const DedupOptions& options, const DeduperImpl& deduper, size_t threads)
      : options_(options), deduper_(deduper), threads_(threads) {}

  Status BeforeReading() const {
    if (!options_.memory_probe) return Status::OK();
    const uint64_t resident = Resident();
    const uint64_t need = resident + kReadingBase + kReadingPerThread * threads_;
    if (need <= options_.memory_bytes) return Status::OK();
    return Status::InvalidArgument("the memory budget (--memory, memory_bytes) of " + MiB(options_.memory_bytes) +
                                   " cannot hold this run: the program holds " + MiB(resident) +
                                   " before it reads a page, and reading on " + std::to_string(threads_) +
                                   (threads_ == 1 ? " thread" : " threads") + " takes about " +
                                   MiB(need - resident) + " more; give it " + MiB(need) +
                                   " or more (and more for the pages)");
  }

  Status WhileReading(const DocumentSource& source, const Document& d) {
    if (!options_.memory_probe || ++pages_ % kCheckEvery != 0) return Status::OK();
    const uint64_t resident = Resident();
    const MethodImpl& method = deduper_.method_impl();
    const uint64_t now = resident + method.clustering_bytes(pages_);
    uint64_t projected_pages = pages_;
    const uint64_t total = source.bytes_total(), consumed = source.bytes_consumed();
    if (total > 0 && consumed > 0 && consumed < total && consumed >= kProjectAfter * static_cast<double>(total)) {
      projected_pages = static_cast<uint64_t>(static_cast<double>(pages_) * static_cast<double>(total) /
                                              static_cast<double>(consumed));
    }
    const uint64_t columns_per_page = deduper_.column_bytes() / std::max<uint64_t>(1, pages_);
    const uint64_t projected =
        resident + (projected_pages - pages_) * columns_per_page + method.clustering_bytes(projected_pages);
    if (now <= options_.memory_bytes && projected <= options_.memory_bytes) return Status::OK();
    const bool read_all = projected_pages == pages_;
    std::string line = "the memory budget (--memory, memory_bytes) of " + MiB(options_.memory_bytes) +
                       " cannot hold this run: after " + std::to_string(pages_) + " pages (up to " + d.source +
                       " at offset " + std::to_string(d.source_offset) + ") it holds " + MiB(resident) +
                       ", and the " + method.name() + " method's clustering adds about " +
                       MiB(method.clustering_bytes(pages_)) + " for them";
    if (read_all) {
      line += ": " + MiB(now) + " for the pages read so far";
    } else {
      line += "; at this rate the input holds about " + std::to_string(projected_pages) + " pages, which need about " +
              MiB(projected);
    }
    line += "; give it more, or divide the crawl among processes (neardup-mpi)";
    return Status::ResourceExhausted(line);
  }

 private:
  uint64_t Resident() const {
    uint64_t resident = 0, peak = 0;
    options_.memory_probe(&resident, &peak);
    return resident;
  }

  const DedupOptions& options_;
  const DeduperImpl& deduper_;
  const size_t threads_;
  uint64_t pages_ = 0;
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
  j["options"]["memory_bytes"] = o.memory_bytes;
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
  j["documents_without_content"] = s.documents_without_content;
  j["redirects"] = {{"pages", s.redirects}, {"joined", s.redirects_joined}, {"cycles", s.redirect_cycles}};
  j["revisits"] = {{"pages", s.revisits}, {"joined", s.revisits_joined}};
  j["terms"] = s.terms;
  j["identity_sets"] = {{"token_sequence", s.token_identity_sets},
                        {"bytes", s.byte_identity_sets}};
  j["clusters"] = s.clusters;
  j["documents_in_clusters"] = s.documents_in_clusters;
  j["duplicates"] = s.duplicates;
  j["duplicate_percentage"] = s.duplicate_percentage;
  j["largest_cluster"] = s.largest_cluster;
  j["verification_split_off"] = s.verification_split_off;
  j["verification_recentered"] = s.verification_recentered;
  j["verification_repaired"] = s.verification_repaired;
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

// ---- DedupJob ----

namespace {

// A share's chunk (ExportShare): the magic, the format version, whether it
// is the share's last chunk, the method spec and keeper rules it was
// signed with, its pages' records and spill lines, and in the last chunk
// the share's read warnings and read figures.
constexpr std::string_view kShareMagic = "NDSHARE3";

void PutU64(uint64_t v, std::string* out) { out->append(reinterpret_cast<const char*>(&v), sizeof v); }
void PutString(std::string_view v, std::string* out) {
  PutU64(v.size(), out);
  out->append(v);
}
bool GetU64(std::string_view* in, uint64_t* v) {
  if (in->size() < sizeof *v) return false;
  std::memcpy(v, in->data(), sizeof *v);
  in->remove_prefix(sizeof *v);
  return true;
}
bool GetString(std::string_view* in, std::string_view* v) {
  uint64_t n = 0;
  if (!GetU64(in, &n) || in->size() < n) return false;
  *v = in->substr(0, n);
  in->remove_prefix(n);
  return true;
}

// A page's spill line (`url \t source \t offset`, URL and source escaped
// already by AppendTsvField; escaping them again changes nothing) into the
// record's url, source and offset. False when the line is damaged.
bool SpillLineToRecord(std::string_view line, std::vector<std::string_view>* fields, ClusterRecord* record) {
  SplitTsvLine(line, fields);
  if (fields->size() != 3) return false;
  record->url = (*fields)[0];
  record->source = (*fields)[1];
  record->offset = std::strtoull(std::string((*fields)[2]).c_str(), nullptr, 10);
  return true;
}

std::string ReadStatsJson(const ReadStats& r, double read_seconds, double sign_seconds) {
  nlohmann::ordered_json j;
  j["inputs_opened"] = r.inputs_opened;
  j["documents"] = r.documents;
  j["records"] = r.records;
  j["input_bytes"] = r.input_bytes;
  j["payload_bytes"] = r.payload_bytes;
  j["skipped"] = r.skipped;
  j["read_seconds"] = read_seconds;
  j["sign_seconds"] = sign_seconds;
  return j.dump();
}

class DedupJobImpl final : public DedupJob {
 public:
  DedupJobImpl(const std::vector<std::string>& inputs, const std::string& out_dir, const DedupOptions& options,
               const DedupJobOptions& job, std::unique_ptr<MethodImpl> method, Executor* executor, Env* env,
               ReadObserver* observer)
      : inputs_(inputs),
        out_dir_(out_dir),
        options_(options),
        job_(job),
        executor_(executor),
        env_(env),
        observer_(observer),
        deduper_(options, std::move(method), executor, env) {
    if (job.length_dimensions > 0) deduper_.SetLengthDimensions(job.length_dimensions);
    if (job.part != 0) deduper_.SetSpillSuffix("." + std::to_string(job.part));
  }

  ~DedupJobImpl() override {
    if (spill_) (void)spill_->Close();
    if (!spill_path_.empty()) (void)env_->RemoveFile(spill_path_);
  }

  Status Open() {
    t_start_ = Clock::now();
    if (Status s = env_->CreateDirs(out_dir_); !s.ok()) {
      return Status::IOError("cannot create output folder " + out_dir_ + ": " + s.message());
    }
    if (job_.spill_signatures) NEARDUP_RETURN_IF_ERROR(deduper_.SpillSignatures());
    // Per-page strings go to a spill file, not to memory; it is removed when
    // the job ends, whether it succeeded or not.
    spill_path_ = JoinPath(out_dir_, ".clusters.tsv.spill");
    if (job_.part != 0) spill_path_ += "." + std::to_string(job_.part);
    auto spill_file = env_->NewWritableFile(spill_path_);
    if (!spill_file.ok()) {
      const std::string path = spill_path_;
      spill_path_.clear();
      return Status::IOError("cannot write in output folder " + out_dir_ + ": " + spill_file.status().message());
    }
    spill_ = std::make_unique<BufferedWriter>(std::move(spill_file).value());
    if (job_.part == 0) {
      NEARDUP_ASSIGN_OR_RETURN(warnings_out_, WarningsWriter::Create(env_, JoinPath(out_dir_, "warnings.tsv")));
    }
    counting_ = std::make_unique<RecordingObserver>(observer_, warnings_out_.get());
    return Status::OK();
  }

  const Method& method() const override { return deduper_.method(); }
  uint64_t documents() const override { return deduper_.size(); }

  Status Read(const InputShare& share, const DedupProgressCallback& progress,
              double progress_interval_seconds) override {
    if (read_called_) return Status::FailedPrecondition("DedupJob::Read may be called once");
    read_called_ = true;
    MemoryCheck memory(options_, deduper_, executor_ != nullptr ? executor_->num_threads() + 1 : 1);
    NEARDUP_RETURN_IF_ERROR(memory.BeforeReading());
    SourceOptions source_options = options_.source;
    source_options.share = share;
    NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<DocumentSource> source,
                             OpenDocumentSource(inputs_, source_options, env_, counting_.get()));
    Status spill_status;
    auto on_document = [&](DocId, const Document& d) -> Status {
      NEARDUP_RETURN_IF_ERROR(memory.WhileReading(*source, d));
      std::string* out = spill_->buffer();
      AppendTsvField(d.url, out);
      out->push_back('\t');
      AppendTsvField(d.source, out);
      out->push_back('\t');
      out->append(std::to_string(d.source_offset));
      out->push_back('\n');
      spill_status = spill_->MaybeFlush();
      return spill_status;
    };
    Status added = deduper_.AddFrom(source.get(), on_document, progress, progress_interval_seconds);
    read_ = source->stats();
    if (!added.ok()) {
      if (!spill_status.ok()) return Status::IOError("cannot write " + spill_path_ + ": " + spill_status.message());
      return added;
    }
    return counting_->status();
  }

  Status ExportShare(size_t max_chunk_bytes,
                     const std::function<Status(std::string_view chunk)>& send) override {
    if (exported_) return Status::FailedPrecondition("DedupJob::ExportShare may be called once");
    if (deduper_.signatures_spilled()) {
      return Status::FailedPrecondition("DedupJob::ExportShare: the signatures are spilled (spill_signatures)");
    }
    exported_ = true;
    if (deduper_.method().batch_only()) {
      return Status::NotSupported("the " + deduper_.method().name() +
                                  " method is batch-only (its paper's algorithm runs over a whole collection): "
                                  "it runs in one process");
    }
    if (Status s = spill_->Close(); !s.ok()) return Status::IOError("cannot write " + spill_path_ + ": " + s.message());
    spill_.reset();
    auto in = env_->NewSequentialFile(spill_path_);
    if (!in.ok()) return Status::IOError("cannot reopen " + spill_path_ + ": " + in.status().message());
    LineReader lines(std::move(in).value());
    const uint64_t n = deduper_.size();
    uint64_t next = 0;
    std::string chunk, records, urls;
    size_t link_cursor = 0;  // ExportSigned's place in the link keys (in-links keeper rule)
    for (;;) {
      // Pages until the chunk is full; at least one page per chunk.
      records.clear();
      urls.clear();
      const uint64_t first = next;
      while (next < n && (next == first || records.size() + urls.size() < max_chunk_bytes)) {
        NEARDUP_RETURN_IF_ERROR(deduper_.ExportSigned(next, next + 1, &records, &link_cursor));
        std::string_view line;
        NEARDUP_ASSIGN_OR_RETURN(bool got, lines.Next(&line));
        if (!got) return Status::Corruption("spill file ended early: " + spill_path_);
        urls.append(line);
        urls.push_back('\n');
        ++next;
      }
      const bool last = next == n;
      chunk.clear();
      chunk.append(kShareMagic);
      chunk.push_back(last ? 1 : 0);
      PutString(deduper_.summary().method_spec, &chunk);
      PutString(options_.keeper, &chunk);
      PutU64(next - first, &chunk);
      PutString(records, &chunk);
      PutString(urls, &chunk);
      if (last) AppendReadTail(&chunk);
      NEARDUP_RETURN_IF_ERROR(send(chunk));
      if (last) break;
    }
    return Status::OK();
  }

  Result<bool> ImportShare(std::string_view chunk) override {
    if (!spill_) return Status::FailedPrecondition("DedupJob::ImportShare after ExportShare or Finish");
    const Status damaged = Status::Corruption("a share's chunk is damaged");
    if (chunk.size() < kShareMagic.size() + 1 || chunk.substr(0, kShareMagic.size()) != kShareMagic) return damaged;
    chunk.remove_prefix(kShareMagic.size());
    const bool last = chunk[0] != 0;
    chunk.remove_prefix(1);
    std::string_view spec, keeper, records, urls;
    uint64_t count = 0;
    if (!GetString(&chunk, &spec) || !GetString(&chunk, &keeper) || !GetU64(&chunk, &count) ||
        !GetString(&chunk, &records) || !GetString(&chunk, &urls)) {
      return damaged;
    }
    if (spec != deduper_.summary().method_spec || keeper != options_.keeper) {
      return Status::InvalidArgument("a share was signed with method " + std::string(spec) + " and keeper rules " +
                                     std::string(keeper) + ", this job uses " + deduper_.summary().method_spec +
                                     " and " + options_.keeper);
    }
    if (deduper_.signatures_spilled() && count > 0) {
      return Status::FailedPrecondition("DedupJob::ImportShare: the signatures are spilled (spill_signatures)");
    }
    NEARDUP_RETURN_IF_ERROR(deduper_.ImportSigned(&records, count));
    if (!records.empty()) return damaged;
    spill_->buffer()->append(urls);
    if (Status s = spill_->MaybeFlush(); !s.ok()) {
      return Status::IOError("cannot write " + spill_path_ + ": " + s.message());
    }
    if (!last) return false;
    uint64_t warnings = 0;
    if (!GetU64(&chunk, &warnings)) return damaged;
    for (uint64_t i = 0; i < warnings; ++i) {
      std::string_view file, reason, message;
      uint64_t offset = 0;
      if (!GetString(&chunk, &file) || !GetU64(&chunk, &offset) || chunk.empty()) return damaged;
      const bool in_stream = chunk[0] != 0;
      chunk.remove_prefix(1);
      if (!GetString(&chunk, &reason) || !GetString(&chunk, &message)) return damaged;
      ReadWarning w;
      w.file = file;
      w.offset = offset;
      w.in_decompressed_stream = in_stream;
      w.reason_key = reason;
      w.message = message;
      counting_->AddImported(w);
    }
    NEARDUP_RETURN_IF_ERROR(counting_->status());
    std::string_view stats_text;
    if (!GetString(&chunk, &stats_text) || !chunk.empty()) return damaged;
    auto stats = nlohmann::json::parse(stats_text, nullptr, /*allow_exceptions=*/false);
    if (stats.is_discarded() || !stats.is_object()) return damaged;
    try {
      read_.inputs_opened += stats["inputs_opened"].get<uint64_t>();
      read_.documents += stats["documents"].get<uint64_t>();
      read_.records += stats["records"].get<uint64_t>();
      read_.input_bytes += stats["input_bytes"].get<uint64_t>();
      read_.payload_bytes += stats["payload_bytes"].get<uint64_t>();
      for (const auto& [reason, n] : stats["skipped"].items()) read_.skipped[reason] += n.get<uint64_t>();
      deduper_.AddSeconds(stats["read_seconds"].get<double>(), stats["sign_seconds"].get<double>());
    } catch (const nlohmann::json::exception&) {
      return damaged;
    }
    return true;
  }

  Status ForEachPage(const std::function<void(uint64_t index, uint64_t identity, const Signature& signature,
                                              std::span<const uint32_t> lengths)>& fn) const override {
    if (!read_called_ || exported_) return Status::FailedPrecondition("DedupJob::ForEachPage: after Read, before ExportShare");
    Signature signature;
    const uint32_t dims = deduper_.length_dimensions();
    const size_t words = deduper_.method().signature_words();
    deduper_.ForEachSigned([&](DocId id, uint64_t identity, bool eligible, const uint64_t* w, const uint32_t* lengths) {
      signature.words.assign(w, w + words);
      signature.eligible = eligible;
      fn(id, identity, signature, std::span<const uint32_t>(lengths, dims));
    });
    return Status::OK();
  }

  Status AddNearPairs(std::span<const std::pair<uint64_t, uint64_t>> pairs) override {
    const Method& m = deduper_.method();
    if (m.batch_only() || m.learns_from_collection()) {
      return Status::NotSupported("the " + m.name() +
                                  " method finds its pairs over the whole collection: they cannot be found elsewhere");
    }
    for (const auto& [a, b] : pairs) {
      if (a >= UINT32_MAX || b >= UINT32_MAX) return Status::InvalidArgument("a near-duplicate pair names an unknown page");
      if (a == b) continue;
      near_pairs_.emplace_back(static_cast<uint32_t>(std::min(a, b)), static_cast<uint32_t>(std::max(a, b)));
    }
    near_pairs_given_ = true;
    return Status::OK();
  }

  Status AddToSummary(std::string_view json_object) override {
    auto j = nlohmann::ordered_json::parse(json_object, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) return Status::InvalidArgument("AddToSummary: not a JSON object");
    for (auto& [key, value] : j.items()) extra_summary_[key] = value;
    return Status::OK();
  }

  Result<DedupSummary> Finish() override {
    if (!spill_) return Status::FailedPrecondition("DedupJob::Finish after ExportShare or Finish");
    if (Status s = spill_->Close(); !s.ok()) return Status::IOError("cannot write " + spill_path_ + ": " + s.message());
    spill_.reset();
    NEARDUP_RETURN_IF_ERROR(counting_->status());
    if (warnings_out_) NEARDUP_RETURN_IF_ERROR(warnings_out_->Finish());
    if (near_pairs_given_) {
      if (options_.write_pairs) {
        return Status::InvalidArgument("pairs.tsv lists the method's own pairs: it cannot be written from pairs found elsewhere");
      }
      std::sort(near_pairs_.begin(), near_pairs_.end());
      near_pairs_.erase(std::unique(near_pairs_.begin(), near_pairs_.end()), near_pairs_.end());
      NEARDUP_RETURN_IF_ERROR(deduper_.SetExternalPairs(std::move(near_pairs_)));
    }
    return Write();
  }

  Result<DedupSummary> FinishTogether(ProcessGroup* group,
                                      std::span<const std::pair<uint64_t, uint64_t>> near_pairs) override;

 private:
  Result<DedupSummary> Write();
  // A share's last chunk ends with its read warnings and read figures.
  void AppendReadTail(std::string* chunk) const {
    const std::vector<ReadWarning>& kept = *counting_->kept();
    PutU64(kept.size(), chunk);
    for (const ReadWarning& w : kept) {
      PutString(w.file, chunk);
      PutU64(w.offset, chunk);
      chunk->push_back(w.in_decompressed_stream ? 1 : 0);
      PutString(w.reason_key, chunk);
      PutString(w.message, chunk);
    }
    PutString(ReadStatsJson(read_, deduper_.read_seconds(), deduper_.sign_seconds()), chunk);
  }
  // A share of no pages holding only the read tail (FinishTogether).
  std::string ReadTailChunk() const {
    std::string chunk(kShareMagic);
    chunk.push_back(1);
    PutString(deduper_.summary().method_spec, &chunk);
    PutString(options_.keeper, &chunk);
    PutU64(0, &chunk);
    PutString("", &chunk);
    PutString("", &chunk);
    AppendReadTail(&chunk);
    return chunk;
  }
  // Whether any process of `group` failed (a collective): every process
  // returns an error then, the failing one its own.
  static Status Agree(ProcessGroup* group, const Status& mine);
  DedupSummary CompleteSummary(const std::string& clusters_path, const std::string& summary_path,
                               const std::string& warnings_path);

  std::vector<std::string> inputs_;
  std::string out_dir_;
  DedupOptions options_;
  DedupJobOptions job_;
  Executor* executor_;
  Env* env_;
  ReadObserver* observer_;
  DeduperImpl deduper_;
  Clock::time_point t_start_;
  std::string spill_path_;
  std::unique_ptr<BufferedWriter> spill_;
  std::unique_ptr<WarningsWriter> warnings_out_;
  std::unique_ptr<RecordingObserver> counting_;
  ReadStats read_;
  bool read_called_ = false, exported_ = false;
  bool near_pairs_given_ = false;
  std::vector<std::pair<uint32_t, uint32_t>> near_pairs_;
  nlohmann::ordered_json extra_summary_ = nlohmann::ordered_json::object();
};

DedupSummary DedupJobImpl::CompleteSummary(const std::string& clusters_path, const std::string& summary_path,
                                           const std::string& warnings_path) {
  DedupSummary summary = deduper_.summary();
  summary.inputs = inputs_;
  summary.threads = executor_ ? executor_->num_threads() + 1 : 1;  // and the calling thread
  summary.clusters_path = clusters_path;
  summary.summary_path = summary_path;
  summary.warnings_path = warnings_path;
  summary.read = read_;
  summary.warnings = counting_->count();
  std::vector<StageStats> stages = {{"read", deduper_.read_seconds(), summary.read.input_bytes},
                                    {"tokenize", deduper_.sign_seconds(), summary.read.payload_bytes}};
  stages.insert(stages.end(), summary.stages.begin(), summary.stages.end());
  summary.stages = std::move(stages);
  return summary;
}

Result<DedupSummary> DedupJobImpl::Write() {
  const std::string clusters_path = JoinPath(out_dir_, "clusters.tsv");
  const std::string summary_path = JoinPath(out_dir_, "summary.json");
  const std::string warnings_path = JoinPath(out_dir_, "warnings.tsv");
  const std::string& spill_path = spill_path_;
  const DedupOptions& options = options_;
  DeduperImpl& deduper = deduper_;
  Env* env = env_;

  // ---- exact, near, keepers, verification ----
  NEARDUP_ASSIGN_OR_RETURN(Clustering clustering, deduper.Finish());
  DedupSummary summary = CompleteSummary(clusters_path, summary_path, warnings_path);
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
      ClusterRecord r;
      if (!SpillLineToRecord(line, &fields, &r)) return Status::Corruption("bad spill line in " + spill_path);
      if (want_pair_urls && pair_member[doc]) {
        pair_url_offset[doc] = pair_urls.size();
        pair_urls.append(r.url);
        pair_urls.push_back('\0');
      }
      r.cluster = clustering.keeper_of(doc);
      r.role = clustering.role_of(doc) == DocRole::kDuplicate ? ClusterRole::kDuplicate : ClusterRole::kKeep;
      r.method = clustering.method_of(doc);
      r.similarity = clustering.similarity_of(doc);
      r.reason = clustering.keeper_reason_of(doc);
      NEARDUP_RETURN_IF_ERROR(out->Add(r));
    }
    NEARDUP_RETURN_IF_ERROR(out->Finish());
    uint64_t written = out->bytes_written();
    if (want_pair_urls) {
      summary.pairs_path = JoinPath(out_dir_, "pairs.tsv");
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
  spill_path_.clear();

  summary.seconds = SecondsSince(t_start_);
  if (options.memory_probe) {
    uint64_t resident = 0;
    options.memory_probe(&resident, &summary.peak_rss_bytes);
  }
  nlohmann::ordered_json json = SummaryJson(summary, options, deduper);
  for (auto& [key, value] : extra_summary_.items()) json[key] = value;
  NEARDUP_RETURN_IF_ERROR(WriteSummaryJson(env, summary.summary_path, json));
  return summary;
}

Status DedupJobImpl::Agree(ProcessGroup* group, const Status& mine) {
  std::vector<std::string> out(static_cast<size_t>(group->size()), std::string(1, mine.ok() ? '\0' : '\1'));
  NEARDUP_ASSIGN_OR_RETURN(std::vector<std::string> in, group->AllToAll(std::move(out)));
  if (!mine.ok()) return mine;
  for (size_t r = 0; r < in.size(); ++r) {
    if (in[r].empty() || in[r][0] != '\0') {
      return Status::IOError("process " + std::to_string(r) + " of the run failed");
    }
  }
  return Status::OK();
}


// One row of clusters.tsv travelling to process 0: the spill line (URL,
// source and offset, escaped), then the clustering's fields.
void AppendRow(std::string_view line, const DeduperImpl::TogetherRow& r, std::string* out) {
  PutString(line, out);
  PutU64(r.keeper, out);
  out->append(reinterpret_cast<const char*>(&r.similarity), sizeof r.similarity);
  out->push_back(static_cast<char>(r.role));
  out->push_back(static_cast<char>(r.method));
  out->push_back(static_cast<char>(r.reason));
}

bool GetRow(std::string_view* in, std::string_view* line, DeduperImpl::TogetherRow* r) {
  if (!GetString(in, line) || !GetU64(in, &r->keeper) || in->size() < sizeof r->similarity + 3) return false;
  std::memcpy(&r->similarity, in->data(), sizeof r->similarity);
  in->remove_prefix(sizeof r->similarity);
  r->role = static_cast<DocRole>((*in)[0]);
  r->method = static_cast<uint8_t>((*in)[1]);
  r->reason = static_cast<uint8_t>((*in)[2]);
  in->remove_prefix(3);
  return true;
}

// Pages per chunk of rows sent to process 0 (a few MiB).
constexpr uint64_t kRowsPerChunk = uint64_t{1} << 15;

Result<DedupSummary> DedupJobImpl::FinishTogether(ProcessGroup* group,
                                                 std::span<const std::pair<uint64_t, uint64_t>> near_pairs) {
  // Refusals every process makes alike (the same options everywhere).
  const Method& m = deduper_.method();
  if (m.batch_only() || (m.learns_from_collection() && !m.finds_pairs_together())) {
    return Status::NotSupported("the " + m.name() +
                                " method clusters over the whole collection: it cannot cluster divided among processes");
  }
  if (options_.write_pairs && m.finds_near_duplicates()) {
    return Status::InvalidArgument("pairs.tsv lists the method's own pairs: it cannot be written from pairs found elsewhere");
  }
  if (!spill_ || !read_called_ || exported_) {
    return Status::FailedPrecondition("DedupJob::FinishTogether: once, after Read, instead of ExportShare and Finish");
  }
  const auto t0 = Clock::now();
  const int rank = group->rank(), processes = group->size();
  const bool root = rank == 0;
  const std::string clusters_path = JoinPath(out_dir_, "clusters.tsv");
  const std::string summary_path = JoinPath(out_dir_, "summary.json");
  const std::string warnings_path = JoinPath(out_dir_, "warnings.tsv");

  // ---- every process's read warnings and figures, to process 0 in rank order ----
  Status status;
  uint64_t rows_sent = 0;  // bytes this process sends process 0 (besides the clustering's)
  {
    std::vector<std::string> out(static_cast<size_t>(processes));
    if (!root) out[0] = ReadTailChunk();
    uint64_t tail_bytes = out[0].size();
    NEARDUP_ASSIGN_OR_RETURN(std::vector<std::string> in, group->AllToAll(std::move(out)));
    rows_sent += tail_bytes;
    for (int r = 1; root && r < processes && status.ok(); ++r) {
      auto imported = ImportShare(in[r]);
      if (!imported.ok()) status = imported.status();
    }
  }
  if (status.ok()) {
    if (Status s = spill_->Close(); !s.ok()) status = Status::IOError("cannot write " + spill_path_ + ": " + s.message());
    spill_.reset();
  }
  if (status.ok()) status = counting_->status();
  if (status.ok() && warnings_out_) status = warnings_out_->Finish();
  NEARDUP_RETURN_IF_ERROR(Agree(group, status));

  // ---- the clustering, divided ----
  uint64_t bytes_sent = 0;
  NEARDUP_ASSIGN_OR_RETURN(std::vector<DeduperImpl::TogetherRow> rows,
                           deduper_.ClusterTogether(group, near_pairs, &bytes_sent));
  const double cluster_seconds = SecondsSince(t0);

  // ---- clusters.tsv: process 0's rows, then each other process's, a chunk at a time ----
  const auto t_write = Clock::now();
  std::vector<uint64_t> pages(static_cast<size_t>(processes), 0);
  {
    std::vector<std::string> out(static_cast<size_t>(processes));
    for (std::string& o : out) PutU64(rows.size(), &o);
    NEARDUP_ASSIGN_OR_RETURN(std::vector<std::string> in, group->AllToAll(std::move(out)));
    for (int r = 0; r < processes; ++r) {
      std::string_view v = in[r];
      if (!GetU64(&v, &pages[r])) return Status::Corruption("a process sent no page count");
    }
  }
  std::vector<std::string> reason_names(256);
  for (int code = 0; code < 256; ++code) {
    reason_names[code] = ReasonName(static_cast<uint8_t>(code), deduper_.keeper_options());
  }
  auto in_spill = env_->NewSequentialFile(spill_path_);
  if (!in_spill.ok()) status = Status::IOError("cannot reopen " + spill_path_ + ": " + in_spill.status().message());
  std::unique_ptr<LineReader> lines;
  if (status.ok()) lines = std::make_unique<LineReader>(std::move(in_spill).value());
  std::unique_ptr<ClustersWriter> writer;
  uint64_t written = 0;
  if (root && status.ok()) {
    auto created = ClustersWriter::Create(env_, clusters_path);
    if (created.ok()) writer = std::move(created).value();
    else status = created.status();
  }
  const std::string method_name = m.name();
  std::vector<std::string_view> fields;
  auto write_row = [&](std::string_view line, const DeduperImpl::TogetherRow& r) -> Status {
    ClusterRecord record;
    if (!SpillLineToRecord(line, &fields, &record)) return Status::Corruption("bad spill line in " + spill_path_);
    record.cluster = r.keeper;
    record.role = r.role == DocRole::kDuplicate ? ClusterRole::kDuplicate : ClusterRole::kKeep;
    record.method = r.method == 4   ? std::string_view("revisit")
                    : r.method == 3 ? std::string_view("redirect")
                    : r.method == 2 ? std::string_view(method_name)
                    : r.method == 1 ? "exact"
                                    : "single";
    record.similarity = r.similarity;
    record.reason = reason_names[r.reason];
    return writer->Add(record);
  };
  // This process's rows [first, end) with their spill lines, appended to *out.
  uint64_t next_row = 0;
  auto own_rows = [&](uint64_t end, const std::function<Status(std::string_view, const DeduperImpl::TogetherRow&)>& fn) {
    for (; next_row < end; ++next_row) {
      std::string_view line;
      NEARDUP_ASSIGN_OR_RETURN(bool got, lines->Next(&line));
      if (!got) return Status::Corruption("spill file ended early: " + spill_path_);
      NEARDUP_RETURN_IF_ERROR(fn(line, rows[next_row]));
    }
    return Status::OK();
  };
  if (root && status.ok()) status = own_rows(rows.size(), write_row);
  for (int r = 1; r < processes; ++r) {
    const uint64_t chunks = (pages[r] + kRowsPerChunk - 1) / kRowsPerChunk;
    for (uint64_t c = 0; c < chunks; ++c) {
      std::vector<std::string> out(static_cast<size_t>(processes));
      if (rank == r) {
        // A chunk begins with whether this process could read its rows.
        std::string chunk(1, '\0');
        if (status.ok()) {
          status = own_rows(std::min<uint64_t>(rows.size(), (c + 1) * kRowsPerChunk),
                            [&](std::string_view line, const DeduperImpl::TogetherRow& row) {
                              AppendRow(line, row, &chunk);
                              return Status::OK();
                            });
        }
        if (!status.ok()) chunk = std::string(1, '\1') + status.message();
        rows_sent += chunk.size();
        out[0] = std::move(chunk);
      }
      NEARDUP_ASSIGN_OR_RETURN(std::vector<std::string> in, group->AllToAll(std::move(out)));
      if (!root || !status.ok()) continue;
      std::string_view v = in[r];
      if (v.empty() || v[0] != '\0') {
        status = Status::IOError("process " + std::to_string(r) + ": " + std::string(v.empty() ? v : v.substr(1)));
        continue;
      }
      v.remove_prefix(1);
      std::string_view line;
      DeduperImpl::TogetherRow row;
      while (!v.empty() && status.ok()) {
        if (!GetRow(&v, &line, &row)) status = Status::Corruption("a chunk of rows from process " + std::to_string(r) + " is damaged");
        else status = write_row(line, row);
      }
    }
  }
  lines.reset();
  if (root && status.ok()) {
    status = writer->Finish();
    written = writer->bytes_written();
  }
  (void)env_->RemoveFile(spill_path_);
  spill_path_.clear();
  NEARDUP_RETURN_IF_ERROR(Agree(group, status));

  // ---- summary.json, with every process's figures ----
  DedupSummary summary = CompleteSummary(clusters_path, summary_path, warnings_path);
  summary.stages.push_back({"write", SecondsSince(t_write), written});
  uint64_t peak = 0;
  if (options_.memory_probe) {
    uint64_t resident = 0;
    options_.memory_probe(&resident, &peak);
  }
  {
    // This process's seconds in each clustering stage (ClusterTogether's),
    // then in writing, by name.
    static constexpr const char* kStages[] = {"exact", "near", "keepers", "verify", "clusters", "write"};
    struct Figures {
      double pages, bytes_sent, seconds, peak_rss_bytes;
      double stage_seconds[std::size(kStages)];
    } mine{static_cast<double>(rows.size()), static_cast<double>(bytes_sent + rows_sent), cluster_seconds,
           static_cast<double>(peak), {}};
    for (const StageStats& st : summary.stages) {
      for (size_t k = 0; k < std::size(kStages); ++k) {
        if (st.name == kStages[k]) mine.stage_seconds[k] += st.seconds;
      }
    }
    std::vector<std::string> out(static_cast<size_t>(processes));
    out[0].assign(reinterpret_cast<const char*>(&mine), sizeof mine);
    NEARDUP_ASSIGN_OR_RETURN(std::vector<std::string> in, group->AllToAll(std::move(out)));
    if (root) {
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (int r = 0; r < processes; ++r) {
        Figures f{};
        if (in[r].size() == sizeof f) std::memcpy(&f, in[r].data(), sizeof f);
        summary.peak_rss_bytes = std::max<uint64_t>(summary.peak_rss_bytes, static_cast<uint64_t>(f.peak_rss_bytes));
        list.push_back({{"process", r},
                        {"pages_held", f.pages},
                        {"bytes_sent", f.bytes_sent},
                        {"bytes_sent_per_page", f.pages > 0 ? f.bytes_sent / f.pages : 0.0},
                        {"cluster_seconds", f.seconds},
                        {"peak_rss_bytes", f.peak_rss_bytes}});
        nlohmann::ordered_json& stages = list.back()["stage_seconds"];
        for (size_t k = 0; k < std::size(kStages); ++k) stages[kStages[k]] = f.stage_seconds[k];
      }
      extra_summary_["clustered_together"] = {
          {"processes", processes},
          {"rule", "each process holds its own pages; keys, pairs, labels and keeper candidates meet at their "
                   "owners; process 0 writes the rows in order"},
          {"per_process", list}};
    }
  }
  summary.seconds = SecondsSince(t_start_);
  if (root) {
    nlohmann::ordered_json json = SummaryJson(summary, options_, deduper_);
    for (auto& [key, value] : extra_summary_.items()) json[key] = value;
    status = WriteSummaryJson(env_, summary.summary_path, json);
  }
  NEARDUP_RETURN_IF_ERROR(Agree(group, status));
  return summary;
}

}  // namespace

Result<std::unique_ptr<DedupJob>> DedupJob::Create(const std::vector<std::string>& inputs,
                                                   const std::string& out_dir, const DedupOptions& given,
                                                   const DedupJobOptions& job_options, Executor* executor, Env* env,
                                                   ReadObserver* observer) {
  NEARDUP_RETURN_IF_ERROR(given.Validate());
  if (inputs.empty()) return Status::InvalidArgument("no inputs given");
  if (out_dir.empty()) return Status::InvalidArgument("no output folder given");
  if (env == nullptr) env = Env::Default();
  DedupOptions options = given;
  options.temp_dir = out_dir;
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<MethodImpl> method, NewMethodImpl(options));
  auto job = std::make_unique<DedupJobImpl>(inputs, out_dir, options, job_options, std::move(method), executor, env,
                                            observer);
  NEARDUP_RETURN_IF_ERROR(job->Open());
  return std::unique_ptr<DedupJob>(std::move(job));
}

Result<DedupSummary> RunDedup(const std::vector<std::string>& inputs, const std::string& out_dir,
                              const DedupOptions& options, Executor* executor, Env* env,
                              ReadObserver* observer, const DedupProgressCallback& progress,
                              double progress_interval_seconds, const DedupPhaseCallback& on_phase) {
  DedupJobOptions job_options;
  job_options.spill_signatures = true;  // one process, Finish() alone
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<DedupJob> job,
                           DedupJob::Create(inputs, out_dir, options, job_options, executor, env, observer));
  if (on_phase) on_phase(DedupPhase::kReading);
  const Status read = job->Read(InputShare(), progress, progress_interval_seconds);
  if (on_phase) on_phase(DedupPhase::kClustering);
  NEARDUP_RETURN_IF_ERROR(read);
  return job->Finish();
}

}  // namespace neardup
