// Copyright neardup authors. Licensed under Apache-2.0.
#include "output/clusters_file.h"

#include <cstdio>
#include <utility>

#include "output/tsv_table.h"

namespace neardup {

using output_internal::ParseDoubleField;
using output_internal::ParseUint64Field;
using output_internal::QuoteField;
using output_internal::TsvTableReader;
using output_internal::TsvTableWriter;

// ---- ClustersWriter ----

ClustersWriter::ClustersWriter(std::unique_ptr<TsvTableWriter> table) : table_(std::move(table)) {}
ClustersWriter::~ClustersWriter() = default;

Result<std::unique_ptr<ClustersWriter>> ClustersWriter::Create(Env* env, const std::string& path) {
  NEARDUP_ASSIGN_OR_RETURN(auto table, TsvTableWriter::Create(env, path, kClusterColumnNames));
  return std::unique_ptr<ClustersWriter>(new ClustersWriter(std::move(table)));
}

Status ClustersWriter::Add(const ClusterRecord& r) {
  char similarity[32] = "1";  // as "%.4g" writes 1, the similarity of most rows
  if (r.similarity != 1.0) std::snprintf(similarity, sizeof similarity, "%.4g", r.similarity);
  table_->AppendField(r.url);
  table_->AppendRaw(std::to_string(r.cluster));
  table_->AppendRaw(r.role == ClusterRole::kKeep ? "keep" : "duplicate");
  table_->AppendField(r.method);
  table_->AppendRaw(similarity);
  table_->AppendField(r.source);
  table_->AppendRaw(std::to_string(r.offset));
  table_->AppendField(r.reason);
  return table_->EndRow();
}

Status ClustersWriter::Finish() { return table_->Finish(); }
uint64_t ClustersWriter::rows() const { return table_->rows(); }
uint64_t ClustersWriter::bytes_written() const { return table_->bytes_written(); }

// ---- ClustersReader ----

ClustersReader::ClustersReader(std::unique_ptr<TsvTableReader> table) : table_(std::move(table)) {
  for (size_t c = 0; c < kClusterColumnNames.size(); ++c) index_[c] = table_->Find(kClusterColumnNames[c]);
}
ClustersReader::~ClustersReader() = default;

Result<std::unique_ptr<ClustersReader>> ClustersReader::Open(Env* env, const std::string& path,
                                                             std::span<const ClusterColumn> also_required) {
  std::vector<std::string_view> required = {kClusterColumnNames[0], kClusterColumnNames[1]};
  for (ClusterColumn c : also_required) required.push_back(kClusterColumnNames[static_cast<size_t>(c)]);
  NEARDUP_ASSIGN_OR_RETURN(auto table, TsvTableReader::Open(env, path, "clusters.tsv", required));
  return std::unique_ptr<ClustersReader>(new ClustersReader(std::move(table)));
}

Result<bool> ClustersReader::Next(ClusterRecord* r) {
  NEARDUP_ASSIGN_OR_RETURN(bool got, table_->Next(&fields_));
  if (!got) return false;
  auto field = [this](ClusterColumn c) -> std::optional<std::string_view> {
    const auto& i = index_[static_cast<size_t>(c)];
    if (!i) return std::nullopt;
    return fields_[*i];
  };
  *r = ClusterRecord();
  r->url = *field(ClusterColumn::kUrl);
  if (!ParseUint64Field(*field(ClusterColumn::kCluster), &r->cluster)) {
    return table_->RowError("cluster is not a document id: " + QuoteField(*field(ClusterColumn::kCluster)));
  }
  if (auto role = field(ClusterColumn::kRole)) {
    if (*role == "keep") {
      r->role = ClusterRole::kKeep;
    } else if (*role == "duplicate") {
      r->role = ClusterRole::kDuplicate;
    } else {
      return table_->RowError("role is neither keep nor duplicate: " + QuoteField(*role));
    }
  }
  if (auto method = field(ClusterColumn::kMethod)) r->method = *method;
  if (auto sim = field(ClusterColumn::kSimilarity); sim && !ParseDoubleField(*sim, &r->similarity)) {
    return table_->RowError("similarity is not a number: " + QuoteField(*sim));
  }
  if (auto source = field(ClusterColumn::kSource)) r->source = *source;
  if (auto offset = field(ClusterColumn::kOffset); offset && !ParseUint64Field(*offset, &r->offset)) {
    return table_->RowError("offset is not a decimal integer: " + QuoteField(*offset));
  }
  if (auto reason = field(ClusterColumn::kReason)) r->reason = *reason;
  return true;
}

uint64_t ClustersReader::line_number() const { return table_->line_number(); }
const std::string& ClustersReader::path() const { return table_->path(); }

}  // namespace neardup
