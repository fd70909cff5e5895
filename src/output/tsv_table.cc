// Copyright neardup authors. Licensed under Apache-2.0.
#include "output/tsv_table.h"

#include <charconv>
#include <cmath>
#include <system_error>
#include <utility>

#include "base/tsv.h"

namespace neardup::output_internal {

// ---- TsvTableWriter ----

TsvTableWriter::TsvTableWriter(Env* env, std::string path, std::unique_ptr<WritableFile> file)
    : env_(env), path_(std::move(path)), tmp_path_(path_ + ".tmp"), file_(std::move(file)) {}

Result<std::unique_ptr<TsvTableWriter>> TsvTableWriter::Create(Env* env, std::string path,
                                                               std::span<const std::string_view> header) {
  NEARDUP_CHECK(env != nullptr);
  auto file = env->NewWritableFile(path + ".tmp");
  if (!file.ok()) return Status::IOError("cannot write " + path + ": " + file.status().message());
  std::unique_ptr<TsvTableWriter> w(new TsvTableWriter(env, std::move(path), std::move(file).value()));
  for (std::string_view name : header) w->AppendRaw(name);
  NEARDUP_RETURN_IF_ERROR(w->EndRow());
  w->rows_ = 0;  // the header is not a row
  return w;
}

TsvTableWriter::~TsvTableWriter() {
  if (finished_) return;
  // Abandoned (or failed): leave nothing behind, under either name.
  if (file_) (void)file_->Close();
  (void)env_->RemoveFile(tmp_path_);
}

Status TsvTableWriter::Fail(const Status& s) {
  if (error_.ok()) error_ = Status::IOError("cannot write " + path_ + ": " + s.message());
  return error_;
}

void TsvTableWriter::AppendField(std::string_view field) {
  if (row_started_) buf_.push_back('\t');
  row_started_ = true;
  AppendTsvField(field, &buf_);
}

void TsvTableWriter::AppendRaw(std::string_view text) {
  if (row_started_) buf_.push_back('\t');
  row_started_ = true;
  buf_.append(text);
}

Status TsvTableWriter::FlushBuffer() {
  if (buf_.empty()) return Status::OK();
  if (Status s = file_->Append(buf_.data(), buf_.size()); !s.ok()) return Fail(s);
  written_ += buf_.size();
  buf_.clear();
  return Status::OK();
}

Status TsvTableWriter::EndRow() {
  if (!error_.ok()) return error_;
  if (finished_) return Status::IOError("cannot write " + path_ + ": row added after Finish");
  buf_.push_back('\n');
  row_started_ = false;
  ++rows_;
  return buf_.size() >= kBlock ? FlushBuffer() : Status::OK();
}

Status TsvTableWriter::Finish() {
  if (!error_.ok()) return error_;
  if (finished_) return Status::OK();
  if (row_started_) return Fail(Status::InvalidArgument("a row was not ended"));
  NEARDUP_RETURN_IF_ERROR(FlushBuffer());
  if (Status s = file_->Close(); !s.ok()) return Fail(s);
  file_.reset();
  if (Status s = env_->RenameFile(tmp_path_, path_); !s.ok()) return Fail(s);
  finished_ = true;
  return Status::OK();
}

// ---- TsvTableReader ----

Result<std::unique_ptr<TsvTableReader>> TsvTableReader::Open(Env* env, const std::string& path,
                                                             std::string_view what,
                                                             std::span<const std::string_view> required) {
  NEARDUP_CHECK(env != nullptr);
  auto file = env->NewSequentialFile(path);
  if (!file.ok()) {
    const Status& s = file.status();
    const std::string msg = "cannot read " + path + ": " + s.message();
    return s.IsNotFound() ? Status::NotFound(msg) : Status::IOError(msg);
  }
  std::unique_ptr<TsvTableReader> r(new TsvTableReader(path, std::move(file).value()));
  std::string_view line;
  NEARDUP_ASSIGN_OR_RETURN(bool got, r->NextLine(&line));
  r->line_ = 1;
  if (!got) return r->RowError("empty file, expected a " + std::string(what) + " header");
  std::vector<std::string_view> fields;
  SplitTsvLine(line, &fields);
  r->columns_.assign(fields.begin(), fields.end());
  for (std::string_view name : required) {
    if (!r->Find(name)) {
      return r->RowError("not a " + std::string(what) + " header: no column '" + std::string(name) + "'");
    }
  }
  return r;
}

std::optional<size_t> TsvTableReader::Find(std::string_view name) const {
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (columns_[i] == name) return i;
  }
  return std::nullopt;
}

Result<bool> TsvTableReader::NextLine(std::string_view* line) {
  Result<bool> got = lines_.Next(line);
  if (!got.ok()) return Status::IOError("cannot read " + path_ + ": " + got.status().message());
  return got;
}

Result<bool> TsvTableReader::Next(std::vector<std::string_view>* fields) {
  std::string_view line;
  NEARDUP_ASSIGN_OR_RETURN(bool got, NextLine(&line));
  if (!got) return false;
  ++line_;
  SplitTsvLine(line, fields);
  if (fields->size() < columns_.size()) {
    return RowError("has " + std::to_string(fields->size()) + " fields, the header has " +
                    std::to_string(columns_.size()));
  }
  return true;
}

Status TsvTableReader::RowError(std::string_view what) const {
  return Status::Corruption(path_ + ": line " + std::to_string(line_) + ": " + std::string(what));
}

// ---- fields ----

std::string QuoteField(std::string_view field) {
  constexpr size_t kMax = 40;
  std::string out;
  out.reserve(kMax + 5);
  out.push_back('\'');
  out.append(field.substr(0, kMax));
  if (field.size() > kMax) out.append("...");
  out.push_back('\'');
  return out;
}

bool ParseUint64Field(std::string_view s, uint64_t* out) {
  if (s.empty()) return false;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

bool ParseDoubleField(std::string_view s, double* out) {
  if (s.empty()) return false;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(*out);
}

}  // namespace neardup::output_internal
