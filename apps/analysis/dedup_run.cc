// Copyright neardup authors. Licensed under Apache-2.0.
//
// LoadDedupRun: reads a `neardup dedup` output folder (clusters.tsv, and
// summary.json, pairs.tsv, mirrors.tsv when present) with the readers of
// src/output. Malformed rows are counted and skipped; only a missing or
// headerless clusters.tsv is an error.
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/files.h"
#include "base/line_reader.h"
#include "base/tsv.h"
#include "analysis/analysis.h"
#include "output/clusters_file.h"
#include "output/pairs_file.h"
#include "output/summary_file.h"

namespace neardup {
namespace {

constexpr size_t kMaxWarningsListed = 20;

void Warn(DedupRun* run, std::string message) {
  if (run->warnings.size() < kMaxWarningsListed) run->warnings.push_back(std::move(message));
}

Status ReadClusters(const std::string& path, Env* env, DedupRun* run) {
  if (!env->FileExists(path)) return Status::NotFound(path + ": no such file (not a dedup output folder?)");
  static constexpr ClusterColumn kNeeded[] = {ClusterColumn::kRole, ClusterColumn::kMethod};
  NEARDUP_ASSIGN_OR_RETURN(auto reader, ClustersReader::Open(env, path, kNeeded));
  ClusterRecord record;
  uint64_t id = 0;  // rows read, malformed ones included
  for (;;) {
    Result<bool> got = reader->Next(&record);
    if (!got.ok()) {
      if (!got.status().IsCorruption()) return got.status();
      ++id;
      ++run->malformed_cluster_rows;
      Warn(run, got.status().message() + "; row skipped");
      continue;
    }
    if (!*got) break;
    ClusterRow row;
    row.id = id++;
    row.url = std::string(record.url);
    row.cluster = record.cluster;
    row.keep = record.role == ClusterRole::kKeep;
    row.method = std::string(record.method);
    run->clusters.push_back(std::move(row));
  }
  // A cluster id must name a row; a row pointing nowhere is its own cluster.
  std::vector<bool> seen(id, false);
  for (const auto& row : run->clusters) seen[row.id] = true;
  for (auto& row : run->clusters) {
    if (row.cluster >= id || !seen[row.cluster]) {
      ++run->malformed_cluster_rows;
      Warn(run, path + ": document " + std::to_string(row.id) + ": cluster " +
                    std::to_string(row.cluster) + " names no valid row; taken as its own cluster");
      row.cluster = row.id;
      row.keep = true;
    }
  }
  return Status::OK();
}

void ReadSummary(const std::string& path, Env* env, DedupRun* run) {
  if (!env->FileExists(path)) return;
  Result<nlohmann::json> summary = ReadSummaryJson(env, path);
  if (!summary.ok()) {
    Warn(run, summary.status().message() + "; summary ignored");
    return;
  }
  const nlohmann::json& j = *summary;
  run->has_summary = true;
  auto get_u64 = [&j](const char* key) -> uint64_t {
    auto it = j.find(key);
    return it != j.end() && it->is_number_unsigned() ? it->get<uint64_t>() : 0;
  };
  auto get_string = [](const nlohmann::json& o, const char* key) -> std::string {
    auto it = o.find(key);
    return it != o.end() && it->is_string() ? it->get<std::string>() : "";
  };
  run->summary_documents = get_u64("documents_read");
  run->summary_clusters = get_u64("clusters");
  run->summary_duplicates = get_u64("duplicates");
  run->method_spec = get_string(j, "method_spec");
  auto u64_of = [](const nlohmann::json& o, const char* key) -> uint64_t {
    auto it = o.find(key);
    return it != o.end() && it->is_number_unsigned() ? it->get<uint64_t>() : 0;
  };
  if (auto p = j.find("paragraphs"); p != j.end() && p->is_object()) {
    if (auto passes = p->find("passes"); passes != p->end() && passes->is_array()) {
      for (const auto& row : *passes) {
        if (!row.is_object()) continue;
        DedupRun::PassRow r;
        r.pass = u64_of(row, "pass");
        r.documents_loaded = u64_of(row, "documents_loaded");
        r.clusters = u64_of(row, "clusters");
        r.duplicates = u64_of(row, "duplicates");
        auto est = row.find("estimated_final_duplicates");
        r.estimated_final_duplicates = est != row.end() && est->is_number() ? est->get<double>() : 0;
        run->paragraph_passes.push_back(r);
      }
    }
  }
  if (auto c = j.find("chunks"); c != j.end() && c->is_object()) {
    if (auto h = c->find("replica_histogram"); h != c->end() && h->is_object()) {
      for (const auto& [chunking, buckets] : h->items()) {
        if (!buckets.is_object()) continue;
        std::vector<std::pair<std::string, uint64_t>> rows;
        for (const auto& [label, pages] : buckets.items()) {
          rows.emplace_back(label, pages.is_number_unsigned() ? pages.get<uint64_t>() : 0);
        }
        // Buckets in increasing order ("1", "2", "3-10", ..., "1001+"): by
        // the number they start with (JSON objects here are not ordered).
        auto start = [](const std::string& label) {
          uint64_t v = 0;
          for (char ch : label) {
            if (ch < '0' || ch > '9' || v > UINT64_MAX / 10 - 9) break;
            v = v * 10 + static_cast<uint64_t>(ch - '0');
          }
          return v;
        };
        std::stable_sort(rows.begin(), rows.end(),
                         [&](const auto& x, const auto& y) { return start(x.first) < start(y.first); });
        run->replica_histograms.emplace_back(chunking, std::move(rows));
      }
      // Exact copies ("whole") first, as in the paper's figure.
      std::stable_partition(run->replica_histograms.begin(), run->replica_histograms.end(),
                            [](const auto& h) { return h.first == "whole"; });
    }
  }
  auto options = j.find("options");
  if (options != j.end() && options->is_object()) {
    run->method = get_string(*options, "method");
    if (run->method_spec.empty()) run->method_spec = get_string(*options, "method_spec");
  }
}

void ReadPairs(const std::string& path, Env* env, DedupRun* run) {
  if (!env->FileExists(path)) return;
  auto reader = PairsReader::Open(env, path);
  if (!reader.ok()) {
    Warn(run, reader.status().message() + "; pairs ignored");
    return;
  }
  PairsReader& pairs = **reader;
  run->has_pairs = true;
  run->pair_columns = pairs.value_columns();
  // broder, combined: supershingles_shared; simhash, combined: bits_agreeing;
  // other methods: their first value column.
  const std::optional<size_t> b_column = pairs.ValueIndex("supershingles_shared");
  const std::optional<size_t> c_column = pairs.ValueIndex("bits_agreeing");
  std::optional<size_t> other_column;
  for (size_t i = 0; i < run->pair_columns.size() && !other_column; ++i) {
    if (i != b_column && i != c_column) other_column = i;
  }
  PairRecord record;
  for (;;) {
    Result<bool> got = pairs.Next(&record);
    if (!got.ok()) {
      if (!got.status().IsCorruption()) {
        Warn(run, got.status().message());
        break;
      }
      ++run->malformed_pair_rows;
      Warn(run, got.status().message() + "; row skipped");
      continue;
    }
    if (!*got) break;
    PairRow pair;
    pair.url_a = std::string(record.url_a);
    pair.url_b = std::string(record.url_b);
    if (b_column) pair.b_similarity = record.values[*b_column];
    if (c_column) pair.c_similarity = record.values[*c_column];
    if (other_column) pair.other_similarity = record.values[*other_column];
    run->pairs.push_back(std::move(pair));
  }
}

void ReadMirrors(const std::string& path, Env* env, DedupRun* run) {
  if (!env->FileExists(path)) return;
  auto file = env->NewSequentialFile(path);
  if (!file.ok()) {
    Warn(run, file.status().ToString());
    return;
  }
  LineReader reader(std::move(file.value()));
  std::string_view line;
  std::vector<std::string_view> fields;
  for (;;) {
    Result<bool> got = reader.Next(&line);
    if (!got.ok() || !*got) break;
    SplitTsvLine(line, &fields);
    if (run->mirror_rows.empty() && (fields.size() < 3 || fields[0] != "host_a")) {
      Warn(run, path + ": not a mirrors.tsv; ignored");
      return;
    }
    run->mirror_rows.emplace_back(fields.begin(), fields.end());
  }
  run->has_mirrors = !run->mirror_rows.empty();
}

}  // namespace

Status WriteWholeFile(const std::string& path, const std::string& content, Env* env) {
  auto file = env->NewWritableFile(path);
  if (!file.ok()) return Status::IOError("cannot write " + path + ": " + file.status().message());
  Status s = file.value()->Append(content);
  if (s.ok()) s = file.value()->Close();
  if (!s.ok()) return Status::IOError("cannot write " + path + ": " + s.message());
  return Status::OK();
}

Result<DedupRun> LoadDedupRun(const std::string& dir, Env* env) {
  if (env == nullptr) env = Env::Default();
  DedupRun run;
  NEARDUP_RETURN_IF_ERROR(ReadClusters(JoinPath(dir, "clusters.tsv"), env, &run));
  ReadSummary(JoinPath(dir, "summary.json"), env, &run);
  ReadPairs(JoinPath(dir, "pairs.tsv"), env, &run);
  ReadMirrors(JoinPath(dir, "mirrors.tsv"), env, &run);
  return run;
}

}  // namespace neardup
