// Copyright neardup authors. Licensed under Apache-2.0.
#include "output/warnings_file.h"

#include <utility>

#include "output/tsv_table.h"

namespace neardup {

using output_internal::ParseUint64Field;
using output_internal::QuoteField;
using output_internal::TsvTableReader;
using output_internal::TsvTableWriter;

// ---- WarningsWriter ----

WarningsWriter::WarningsWriter(std::unique_ptr<TsvTableWriter> table) : table_(std::move(table)) {}
WarningsWriter::~WarningsWriter() = default;

Result<std::unique_ptr<WarningsWriter>> WarningsWriter::Create(Env* env, const std::string& path) {
  NEARDUP_ASSIGN_OR_RETURN(auto table, TsvTableWriter::Create(env, path, kWarningColumnNames));
  return std::unique_ptr<WarningsWriter>(new WarningsWriter(std::move(table)));
}

Status WarningsWriter::Add(const WarningRecord& r) {
  table_->AppendField(r.file);
  table_->AppendRaw((r.in_decompressed_stream ? "u:" : "") + std::to_string(r.offset));
  table_->AppendField(r.reason);
  table_->AppendField(r.message);
  return table_->EndRow();
}

Status WarningsWriter::Finish() { return table_->Finish(); }
uint64_t WarningsWriter::rows() const { return table_->rows(); }

// ---- WarningsReader ----

WarningsReader::WarningsReader(std::unique_ptr<TsvTableReader> table) : table_(std::move(table)) {
  for (size_t c = 0; c < kWarningColumnNames.size(); ++c) index_[c] = *table_->Find(kWarningColumnNames[c]);
}
WarningsReader::~WarningsReader() = default;

Result<std::unique_ptr<WarningsReader>> WarningsReader::Open(Env* env, const std::string& path) {
  NEARDUP_ASSIGN_OR_RETURN(auto table, TsvTableReader::Open(env, path, "warnings.tsv", kWarningColumnNames));
  return std::unique_ptr<WarningsReader>(new WarningsReader(std::move(table)));
}

Result<bool> WarningsReader::Next(WarningRecord* r) {
  NEARDUP_ASSIGN_OR_RETURN(bool got, table_->Next(&fields_));
  if (!got) return false;
  *r = WarningRecord();
  r->file = fields_[index_[0]];
  std::string_view offset = fields_[index_[1]];
  if (offset.starts_with("u:")) {
    r->in_decompressed_stream = true;
    offset.remove_prefix(2);
  }
  if (!ParseUint64Field(offset, &r->offset)) {
    return table_->RowError("offset is neither <n> nor u:<n>: " + QuoteField(fields_[index_[1]]));
  }
  r->reason = fields_[index_[2]];
  r->message = fields_[index_[3]];
  return true;
}

uint64_t WarningsReader::line_number() const { return table_->line_number(); }
const std::string& WarningsReader::path() const { return table_->path(); }

}  // namespace neardup
