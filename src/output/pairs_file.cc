// Copyright neardup authors. Licensed under Apache-2.0.
#include "output/pairs_file.h"

#include <cstdio>
#include <utility>

#include "output/tsv_table.h"

namespace neardup {

using output_internal::ParseDoubleField;
using output_internal::QuoteField;
using output_internal::TsvTableReader;
using output_internal::TsvTableWriter;

namespace {
constexpr std::string_view kUrlA = "url_a";
constexpr std::string_view kUrlB = "url_b";
}  // namespace

// ---- PairsWriter ----

PairsWriter::PairsWriter(std::unique_ptr<TsvTableWriter> table, std::vector<PairColumn> columns)
    : table_(std::move(table)), columns_(std::move(columns)) {}
PairsWriter::~PairsWriter() = default;

Result<std::unique_ptr<PairsWriter>> PairsWriter::Create(Env* env, const std::string& path,
                                                         std::vector<PairColumn> columns) {
  std::vector<std::string_view> header = {kUrlA, kUrlB};
  for (const PairColumn& c : columns) header.push_back(c.name);
  NEARDUP_ASSIGN_OR_RETURN(auto table, TsvTableWriter::Create(env, path, header));
  return std::unique_ptr<PairsWriter>(new PairsWriter(std::move(table), std::move(columns)));
}

Status PairsWriter::Add(std::string_view url_a, std::string_view url_b, std::span<const double> values) {
  if (values.size() != columns_.size()) {
    return Status::InvalidArgument("cannot write " + table_->path() + ": a row with " +
                                   std::to_string(values.size()) + " values, the header has " +
                                   std::to_string(columns_.size()));
  }
  table_->AppendField(url_a);
  table_->AppendField(url_b);
  for (size_t i = 0; i < values.size(); ++i) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", columns_[i].decimals, values[i]);
    table_->AppendRaw(buf);
  }
  return table_->EndRow();
}

Status PairsWriter::Finish() { return table_->Finish(); }
uint64_t PairsWriter::rows() const { return table_->rows(); }
uint64_t PairsWriter::bytes_written() const { return table_->bytes_written(); }

// ---- PairsReader ----

PairsReader::PairsReader(std::unique_ptr<TsvTableReader> table) : table_(std::move(table)) {
  url_a_ = *table_->Find(kUrlA);
  url_b_ = *table_->Find(kUrlB);
  const auto& columns = table_->columns();
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i == url_a_ || i == url_b_) continue;
    value_fields_.push_back(i);
    value_names_.push_back(columns[i]);
  }
}
PairsReader::~PairsReader() = default;

Result<std::unique_ptr<PairsReader>> PairsReader::Open(Env* env, const std::string& path) {
  const std::string_view required[] = {kUrlA, kUrlB};
  NEARDUP_ASSIGN_OR_RETURN(auto table, TsvTableReader::Open(env, path, "pairs.tsv", required));
  return std::unique_ptr<PairsReader>(new PairsReader(std::move(table)));
}

std::optional<size_t> PairsReader::ValueIndex(std::string_view name) const {
  for (size_t i = 0; i < value_names_.size(); ++i) {
    if (value_names_[i] == name) return i;
  }
  return std::nullopt;
}

Result<bool> PairsReader::Next(PairRecord* r) {
  NEARDUP_ASSIGN_OR_RETURN(bool got, table_->Next(&fields_));
  if (!got) return false;
  r->url_a = fields_[url_a_];
  r->url_b = fields_[url_b_];
  if (r->url_a.empty() || r->url_b.empty()) return table_->RowError("empty url");
  r->values.resize(value_fields_.size());
  for (size_t i = 0; i < value_fields_.size(); ++i) {
    const std::string_view v = fields_[value_fields_[i]];
    if (!ParseDoubleField(v, &r->values[i])) {
      return table_->RowError(value_names_[i] + " is not a number: " + QuoteField(v));
    }
  }
  return true;
}

uint64_t PairsReader::line_number() const { return table_->line_number(); }
const std::string& PairsReader::path() const { return table_->path(); }

}  // namespace neardup
