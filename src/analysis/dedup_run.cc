// Copyright neardup authors. Licensed under Apache-2.0.
//
// LoadDedupRun: reads a `neardup dedup` output folder (clusters.tsv, and
// summary.json, pairs.tsv, mirrors.tsv when present). Malformed rows are
// counted and skipped; only a missing or headerless clusters.tsv is an error.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/files.h"
#include "base/line_reader.h"
#include "base/tsv.h"
#include "neardup/analysis.h"

namespace neardup {
namespace {

constexpr size_t kMaxWarningsListed = 20;

bool ParseU64(std::string_view s, uint64_t* out) {
  if (s.empty()) return false;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

bool ParseDouble(std::string_view s, double* out) {
  if (s.empty()) return false;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(*out);
}

void Warn(DedupRun* run, std::string message) {
  if (run->warnings.size() < kMaxWarningsListed) run->warnings.push_back(std::move(message));
}

Status ReadClusters(const std::string& path, Env* env, DedupRun* run) {
  if (!env->FileExists(path)) return Status::NotFound(path + ": no such file (not a dedup output folder?)");
  NEARDUP_ASSIGN_OR_RETURN(auto file, env->NewSequentialFile(path));
  LineReader reader(std::move(file));
  std::string_view line;
  std::vector<std::string_view> fields;
  NEARDUP_ASSIGN_OR_RETURN(bool got, reader.Next(&line));
  if (!got) return Status::Corruption(path + ": empty file, no header");
  SplitTsvLine(line, &fields);
  if (fields.size() < 4 || fields[0] != "url" || fields[1] != "cluster" || fields[2] != "role" ||
      fields[3] != "method") {
    return Status::Corruption(path + ": not a clusters.tsv (header must start url, cluster, role, method)");
  }
  uint64_t id = 0;
  for (;;) {
    NEARDUP_ASSIGN_OR_RETURN(got, reader.Next(&line));
    if (!got) break;
    const uint64_t line_number = id + 2;
    const uint64_t this_id = id++;
    SplitTsvLine(line, &fields);
    ClusterRow row;
    row.id = this_id;
    if (fields.size() < 4 || !ParseU64(fields[1], &row.cluster) ||
        (fields[2] != "keep" && fields[2] != "duplicate")) {
      ++run->malformed_cluster_rows;
      Warn(run, path + ": line " + std::to_string(line_number) + ": malformed row skipped");
      continue;
    }
    row.url = std::string(fields[0]);
    row.keep = fields[2] == "keep";
    row.method = std::string(fields[3]);
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
  Result<std::string> text = ReadWholeFile(path, env);
  if (!text.ok()) {
    Warn(run, text.status().ToString());
    return;
  }
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) {
    Warn(run, path + ": not a JSON object; summary ignored");
    return;
  }
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
  auto file = env->NewSequentialFile(path);
  if (!file.ok()) {
    Warn(run, file.status().ToString());
    return;
  }
  LineReader reader(std::move(file.value()));
  std::string_view line;
  std::vector<std::string_view> fields;
  Result<bool> got = reader.Next(&line);
  if (!got.ok() || !*got) {
    Warn(run, path + ": empty or unreadable; pairs ignored");
    return;
  }
  SplitTsvLine(line, &fields);
  if (fields.size() < 2 || fields[0] != "url_a" || fields[1] != "url_b") {
    Warn(run, path + ": header does not start url_a, url_b; pairs ignored");
    return;
  }
  run->has_pairs = true;
  int b_column = -1, c_column = -1, other_column = -1;
  for (size_t i = 2; i < fields.size(); ++i) {
    run->pair_columns.emplace_back(fields[i]);
    if (fields[i] == "supershingles_shared") {
      b_column = static_cast<int>(i);
    } else if (fields[i] == "bits_agreeing") {
      c_column = static_cast<int>(i);
    } else if (other_column < 0) {
      other_column = static_cast<int>(i);
    }
  }
  const size_t columns = fields.size();
  uint64_t line_number = 1;
  for (;;) {
    got = reader.Next(&line);
    if (!got.ok()) {
      Warn(run, got.status().ToString());
      break;
    }
    if (!*got) break;
    ++line_number;
    SplitTsvLine(line, &fields);
    PairRow pair;
    bool ok = fields.size() >= columns && !fields[0].empty() && !fields[1].empty();
    auto number = [&](int column, std::optional<double>* out) {
      if (!ok || column < 0) return;
      double v = 0;
      if (ParseDouble(fields[static_cast<size_t>(column)], &v)) {
        *out = v;
      } else {
        ok = false;
      }
    };
    number(b_column, &pair.b_similarity);
    number(c_column, &pair.c_similarity);
    number(other_column, &pair.other_similarity);
    if (!ok) {
      ++run->malformed_pair_rows;
      Warn(run, path + ": line " + std::to_string(line_number) + ": malformed row skipped");
      continue;
    }
    pair.url_a = std::string(fields[0]);
    pair.url_b = std::string(fields[1]);
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

Result<std::string> ReadWholeFile(const std::string& path, Env* env) {
  NEARDUP_ASSIGN_OR_RETURN(auto file, env->NewSequentialFile(path));
  std::string out;
  char buf[1 << 16];
  for (;;) {
    size_t got = 0;
    NEARDUP_RETURN_IF_ERROR(file->Read(sizeof buf, buf, &got));
    if (got == 0) break;
    out.append(buf, got);
  }
  return out;
}

Status WriteWholeFile(const std::string& path, const std::string& content, Env* env) {
  auto file = env->NewWritableFile(path);
  if (!file.ok()) return Status::IOError("cannot write " + path + ": " + file.status().message());
  Status s = file.value()->Append(content);
  if (s.ok()) s = file.value()->Close();
  if (!s.ok()) return Status::IOError("cannot write " + path + ": " + s.message());
  return Status::OK();
}

std::string JoinDir(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

Result<DedupRun> LoadDedupRun(const std::string& dir, Env* env) {
  if (env == nullptr) return Status::InvalidArgument("no Env given");
  DedupRun run;
  NEARDUP_RETURN_IF_ERROR(ReadClusters(JoinDir(dir, "clusters.tsv"), env, &run));
  ReadSummary(JoinDir(dir, "summary.json"), env, &run);
  ReadPairs(JoinDir(dir, "pairs.tsv"), env, &run);
  ReadMirrors(JoinDir(dir, "mirrors.tsv"), env, &run);
  return run;
}

}  // namespace neardup
