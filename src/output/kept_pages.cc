// Copyright neardup authors. Licensed under Apache-2.0.
//
// WriteKeptPages (include/neardup/kept_pages.h): clusters.tsv read row by
// row beside the run's inputs read again, document by document; the pages
// of the role asked for written as JSON Lines or WARC.
#include "neardup/kept_pages.h"

#include <array>
#include <chrono>
#include <ctime>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/path.h"
#include "io/compressed_writer.h"
#include "io/warc_writer.h"
#include "neardup/env.h"
#include "output/clusters_file.h"
#include "output/summary_file.h"
#include "text/charset.h"

namespace neardup {

namespace {

// Bytes of a page's head in which a <meta> charset is looked for: the
// tokenizer's prescan window.
constexpr size_t kCharsetPrescanBytes = 4096;

// Now, as a WARC-Date: "2026-12-05T02:30:00Z".
std::string UtcNow() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// A page's fetch date as a WARC-Date: an ISO 8601 date as it is, an ARC
// date (14 digits, "20240101120000") in ISO form, "" for anything else.
std::string WarcDate(const std::string& date) {
  if (date.size() == 14 && date.find_first_not_of("0123456789") == std::string::npos) {
    return date.substr(0, 4) + "-" + date.substr(4, 2) + "-" + date.substr(6, 2) + "T" + date.substr(8, 2) + ":" +
           date.substr(10, 2) + ":" + date.substr(12, 2) + "Z";
  }
  if (date.size() >= 10 && date[4] == '-' && date[7] == '-') return date;
  return "";
}

// The run's reading options and inputs, from its summary.json.
Status ReadRunInputs(Env* env, const std::string& run_dir, std::vector<std::string>* inputs,
                     SourceOptions* source, std::string* version) {
  const std::string path = JoinPath(run_dir, "summary.json");
  NEARDUP_ASSIGN_OR_RETURN(nlohmann::json summary, ReadSummaryJson(env, path));
  try {
    if (summary.contains("inputs") && summary["inputs"].is_array()) {
      for (const auto& input : summary["inputs"]) inputs->push_back(input.get<std::string>());
    }
    if (summary.contains("options") && summary["options"].is_object()) {
      const nlohmann::json& o = summary["options"];
      if (o.contains("max_record_bytes")) source->max_record_bytes = o["max_record_bytes"].get<uint64_t>();
      if (o.contains("keep_non_2xx")) source->keep_non_2xx = o["keep_non_2xx"].get<bool>();
      if (o.contains("folder_extensions")) {
        source->folder_extensions = o["folder_extensions"].get<std::vector<std::string>>();
      }
    }
    if (summary.contains("neardup_version")) *version = summary["neardup_version"].get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    return Status::Corruption(path + ": " + e.what());
  }
  return Status::OK();
}

// A page's cluster, written with it (KeptPagesOptions::annotate).
struct ClusterNote {
  uint64_t cluster = 0;
  uint32_t size = 0;
};

// Writes pages in one format.
class PageWriter {
 public:
  virtual ~PageWriter() = default;
  // Writes `doc`, with `note` unless it is nullptr; *as_line is set when it
  // went out as its JSON line.
  virtual Status Write(const Document& doc, const ClusterNote* note, bool* as_line) = 0;
  virtual Status Close() = 0;
};

class JsonLinesWriter final : public PageWriter {
 public:
  explicit JsonLinesWriter(std::unique_ptr<WritableFile> file) : file_(std::move(file)) {}

  Status Write(const Document& doc, const ClusterNote* note, bool* as_line) override {
    *as_line = !doc.json_line.empty();
    if (*as_line) {
      line_.assign(doc.json_line);
      // The line is one JSON object with a field at least (the reader took
      // its url and body), its blanks around it trimmed: the note goes
      // before its closing brace.
      if (note != nullptr && !line_.empty() && line_.back() == '}') {
        line_.pop_back();
        line_ += ", \"neardup\": {\"cluster\": " + std::to_string(note->cluster) +
                 ", \"cluster_size\": " + std::to_string(note->size) + "}}";
      }
    } else {
      nlohmann::ordered_json j;
      j["url"] = doc.url;
      if (doc.revisit_of.empty() && (!doc.body.empty() || doc.redirect_target.empty())) {
        CharsetDecision decision;
        bool had_invalid = false;
        const bool html = doc.kind == ContentKind::kHtml;
        j[html ? "html" : "text"] = std::string(
            converter_.ToUtf8(doc.body, doc.declared_charset, html, kCharsetPrescanBytes, &decision, &had_invalid));
      }
      if (!doc.fetch_date.empty()) j["date"] = doc.fetch_date;
      if (doc.http_status != 0) j["status"] = doc.http_status;
      if (!doc.redirect_target.empty()) j["redirect"] = doc.redirect_target;
      if (!doc.revisit_of.empty()) j["revisit_of"] = doc.revisit_of;
      if (!doc.revisit_of_date.empty()) j["revisit_of_date"] = doc.revisit_of_date;
      if (note != nullptr) j["neardup"] = {{"cluster", note->cluster}, {"cluster_size", note->size}};
      // A URL or date of bytes that are not UTF-8 is written with U+FFFD.
      line_ = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    line_.push_back('\n');
    return file_->Append(line_);
  }

  Status Close() override { return file_->Close(); }

 private:
  std::unique_ptr<WritableFile> file_;
  CharsetConverter converter_;
  std::string line_;
};

class WarcPagesWriter final : public PageWriter {
 public:
  WarcPagesWriter(std::unique_ptr<WritableFile> file, bool gzip_records, uint64_t seed)
      : file_(std::move(file)), writer_(file_.get(), Options(gzip_records, seed)) {}

  Status Begin(const std::string& out_name, const std::string& run_dir, const std::string& version,
               bool duplicates) {
    return writer_.WriteWarcinfo(
        out_name, {{"software", "neardup " + version + " (neardup keep)"},
                   {"format", "WARC File Format 1.1"},
                   {"description", std::string(duplicates ? "The pages set aside as duplicates"
                                                          : "The pages kept, one for each cluster and every page in none,") +
                                       " by the neardup dedup run whose output is " + run_dir}});
  }

  Status Write(const Document& doc, const ClusterNote* note, bool* as_line) override {
    *as_line = false;
    io::HeaderList note_headers;
    if (note != nullptr) {
      note_headers = {{"WARC-Neardup-Cluster", std::to_string(note->cluster)},
                      {"WARC-Neardup-Cluster-Size", std::to_string(note->size)}};
    }
    const std::string date = WarcDate(doc.fetch_date);
    const int status = doc.http_status != 0 ? doc.http_status : 200;
    std::string content_type =
        !doc.content_type.empty() ? doc.content_type : doc.kind == ContentKind::kHtml ? "text/html" : "text/plain";
    // A page read from JSON Lines holds UTF-8 text.
    const std::string charset = !doc.declared_charset.empty() ? doc.declared_charset
                                : doc.json_line.empty()       ? std::string()
                                                              : std::string("utf-8");
    if (!charset.empty()) content_type += "; charset=" + charset;
    if (!doc.revisit_of.empty()) {
      io::HeaderList extra = {
          {"WARC-Target-URI", doc.url},
          {"WARC-Profile", status == 304 ? "http://netpreserve.org/warc/1.1/revisit/server-not-modified"
                                         : "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"},
          {"WARC-Refers-To-Target-URI", doc.revisit_of}};
      if (!doc.revisit_of_date.empty()) extra.emplace_back("WARC-Refers-To-Date", doc.revisit_of_date);
      extra.insert(extra.end(), note_headers.begin(), note_headers.end());
      extra.emplace_back("Content-Type", "application/http; msgtype=response");
      const std::string block = "HTTP/1.1 " + std::to_string(status) + " " + io::HttpReasonPhrase(status) +
                                "\r\nContent-Type: " + content_type + "\r\n\r\n";
      return writer_.WriteRecord("revisit", date, extra, block);
    }
    io::WarcResponse response;
    response.url = doc.url;
    response.date = date;
    response.status = status;
    response.content_type = content_type;
    if (!doc.redirect_target.empty()) response.headers.emplace_back("Location", doc.redirect_target);
    response.body = doc.body;
    response.warc_headers = std::move(note_headers);
    return writer_.WriteResponse(response);
  }

  Status Close() override { return writer_.Close(); }

 private:
  static io::WarcWriterOptions Options(bool gzip_records, uint64_t seed) {
    io::WarcWriterOptions o;
    o.gzip = gzip_records;
    o.seed = seed;
    o.payload_digest = true;
    o.default_date = UtcNow();
    return o;
  }

  std::unique_ptr<WritableFile> file_;
  io::WarcWriter writer_;
};

Status InputsDiffer(const std::string& what) {
  return Status::FailedPrecondition("the inputs differ from the run's: " + what +
                                    "; give the run's inputs as they were (--input) or run dedup again");
}

// The URL the run gave `doc`: a file of a folder is named by its path
// under the input as given (Document::url), so a page of an input given in
// place of the run's (run_inputs[i], where the run had one of the same
// place) has that input's path in place of the run's.
std::string UrlInRun(const Document& doc, const std::vector<std::string>& inputs,
                     const std::vector<std::string>& run_inputs) {
  const size_t i = doc.input_index;
  if (inputs.size() != run_inputs.size() || i >= inputs.size() || inputs[i] == run_inputs[i] ||
      doc.url.compare(0, inputs[i].size(), inputs[i]) != 0 || doc.source != doc.url) {
    return doc.url;
  }
  return run_inputs[i] + doc.url.substr(inputs[i].size());
}

// The next row of `rows` into *row: false at the end. A malformed row
// (Corruption) comes back with *malformed set, as it still stands for its
// document; any other error is returned.
Result<bool> NextRow(ClustersReader* rows, ClusterRecord* row, bool* malformed) {
  Result<bool> next = rows->Next(row);
  *malformed = !next.ok() && next.status().IsCorruption();
  if (*malformed) return true;
  return next;
}

// Reads the run and its inputs in step and writes the pages asked for
// through *writer. *result counts.
Status CopyPages(Env* env, const std::string& run_dir, const std::vector<std::string>& inputs,
                 const std::vector<std::string>& run_inputs,
                 const SourceOptions& source_options, const KeptPagesOptions& options, ReadObserver* observer,
                 const std::string& out_path, PageWriter* writer, KeptPagesResult* result) {
  const std::string clusters_path = JoinPath(run_dir, "clusters.tsv");
  const std::array<ClusterColumn, 1> required = {ClusterColumn::kRole};
  // With notes, the size of each cluster first: 4 bytes a row (a
  // cluster's id is the row number of its kept page).
  std::vector<uint32_t> sizes;
  if (options.annotate) {
    NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<ClustersReader> rows, ClustersReader::Open(env, clusters_path, required));
    ClusterRecord row;
    bool malformed = false;
    for (;;) {
      NEARDUP_ASSIGN_OR_RETURN(const bool more, NextRow(rows.get(), &row, &malformed));
      if (!more) break;
      if (malformed) continue;
      if (row.cluster >= sizes.size()) sizes.resize(row.cluster + 1, 0);
      ++sizes[row.cluster];
    }
  }
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<ClustersReader> rows, ClustersReader::Open(env, clusters_path, required));
  const bool has_offset = rows->Has(ClusterColumn::kOffset);
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<DocumentSource> source,
                           OpenDocumentSource(inputs, source_options, env, observer));
  const ClusterRole wanted =
      options.pages == KeptPagesOptions::Pages::kKept ? ClusterRole::kKeep : ClusterRole::kDuplicate;
  Document doc;
  ClusterRecord row;
  bool malformed = false;
  for (;;) {
    NEARDUP_ASSIGN_OR_RETURN(const bool more, NextRow(rows.get(), &row, &malformed));
    if (!more) break;
    const bool row_ok = !malformed;
    ++result->rows;
    if (!source->Next(&doc)) {
      return InputsDiffer("they hold " + std::to_string(result->rows - 1) + " pages where clusters.tsv has a row " +
                          std::to_string(result->rows) + (row_ok ? " (" + std::string(row.url) + ")" : std::string()));
    }
    // A malformed row still stands for its document: its page is read past.
    if (!row_ok) continue;
    if (UrlInRun(doc, inputs, run_inputs) != row.url || (has_offset && doc.source_offset != row.offset)) {
      return InputsDiffer("clusters.tsv row " + std::to_string(result->rows) + " is " + std::string(row.url) +
                          (has_offset ? " at offset " + std::to_string(row.offset) : std::string()) + ", they give " +
                          doc.url + " at offset " + std::to_string(doc.source_offset) + " of " + doc.source);
    }
    if (row.role == wanted) {
      bool as_line = false;
      ClusterNote note;
      if (options.annotate) note = {row.cluster, row.cluster < sizes.size() ? sizes[row.cluster] : 0};
      if (Status s = writer->Write(doc, options.annotate ? &note : nullptr, &as_line); !s.ok()) {
        return Status::IOError("cannot write " + out_path + ": " + s.message());
      }
      ++result->written;
      result->from_json_lines += as_line ? 1 : 0;
    }
    source->Recycle(&doc.body);
  }
  if (source->Next(&doc)) {
    return InputsDiffer("they hold more pages than the " + std::to_string(result->rows) +
                        " rows of clusters.tsv (the first left over: " + doc.url + ")");
  }
  result->read = source->stats();
  return Status::OK();
}

}  // namespace

KeptPagesOptions::Format KeptPagesFormatOfName(const std::string& path) {
  for (const char* ending : {".warc", ".warc.gz", ".warc.zst"}) {
    if (NameEndsWith(path, ending)) return KeptPagesOptions::Format::kWarc;
  }
  return KeptPagesOptions::Format::kJsonLines;
}

Result<KeptPagesOptions::Format> ParseKeptPagesFormat(const std::string& name) {
  if (name == "jsonl") return KeptPagesOptions::Format::kJsonLines;
  if (name == "warc") return KeptPagesOptions::Format::kWarc;
  return Status::InvalidArgument("the format must be \"jsonl\" or \"warc\", got \"" + name + "\"");
}

Result<KeptPagesResult> WriteKeptPages(const std::string& run_dir, const std::string& out_path,
                                       const KeptPagesOptions& options, Env* env, ReadObserver* observer) {
  if (env == nullptr) env = Env::Default();
  if (out_path.empty() || out_path == "-") {
    return Status::InvalidArgument("the output must be a file (standard output is not supported)");
  }
  std::vector<std::string> run_inputs;
  SourceOptions source_options;
  std::string version = "unknown";
  NEARDUP_RETURN_IF_ERROR(ReadRunInputs(env, run_dir, &run_inputs, &source_options, &version));
  const std::vector<std::string> inputs = options.inputs.empty() ? run_inputs : options.inputs;
  if (inputs.empty()) {
    return Status::InvalidArgument(JoinPath(run_dir, "summary.json") +
                                   " names no inputs (a store's export?): give the run's inputs");
  }
  for (const std::string& input : inputs) {
    if (input == "-") {
      return Status::InvalidArgument(
          "the run read standard input, which cannot be read again: give the file it came from");
    }
    if (!env->FileExists(input) && !env->IsDirectory(input)) {
      return Status::NotFound("input " + input + " not found" +
                              (options.inputs.empty() ? " (summary.json names it as dedup was given it: run keep "
                                                        "from the folder dedup ran in, or give the inputs with --input)"
                                                      : std::string()));
    }
  }
  // JSON Lines write a line read as it is; WARC tells UTF-8 text by it.
  source_options.keep_json_lines = true;
  NEARDUP_RETURN_IF_ERROR(source_options.Validate());

  // The output's folder is created when missing, as dedup creates its own.
  if (const size_t slash = out_path.find_last_of('/'); slash != std::string::npos && slash > 0) {
    const std::string parent = out_path.substr(0, slash);
    if (!env->IsDirectory(parent)) {
      if (Status s = env->CreateDirs(parent); !s.ok()) {
        return Status::IOError("cannot write " + out_path + ": " + s.message());
      }
    }
  }
  const std::string tmp = out_path + ".tmp";
  const io::OutputCompression compression = io::CompressionOfName(out_path);
  KeptPagesResult result;
  Status status;
  {
    Result<std::unique_ptr<WritableFile>> file = env->NewWritableFile(tmp);
    if (!file.ok()) return Status::IOError("cannot write " + out_path + ": " + file.status().message());
    std::unique_ptr<PageWriter> writer;
    if (options.format == KeptPagesOptions::Format::kWarc) {
      // A .warc.gz holds one gzip member a record (WarcWriter's own).
      const bool gzip_records = compression == io::OutputCompression::kGzip;
      auto warc = std::make_unique<WarcPagesWriter>(
          gzip_records ? std::move(file.value()) : io::NewCompressedWritableFile(std::move(file.value()), compression),
          gzip_records, static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()));
      status = warc->Begin(Basename(out_path), run_dir, version, options.pages == KeptPagesOptions::Pages::kDuplicates);
      if (!status.ok()) status = Status::IOError("cannot write " + out_path + ": " + status.message());
      writer = std::move(warc);
    } else {
      writer = std::make_unique<JsonLinesWriter>(io::NewCompressedWritableFile(std::move(file.value()), compression));
    }
    if (status.ok()) {
      status = CopyPages(env, run_dir, inputs, run_inputs, source_options, options, observer, out_path, writer.get(),
                         &result);
    }
    const Status closed = writer->Close();
    if (status.ok() && !closed.ok()) status = Status::IOError("cannot write " + out_path + ": " + closed.message());
  }
  if (status.ok()) {
    status = env->RenameFile(tmp, out_path);
    if (!status.ok()) status = Status::IOError("cannot write " + out_path + ": " + status.message());
  }
  if (!status.ok()) {
    (void)env->RemoveFile(tmp);
    return status;
  }
  Result<uint64_t> size = env->GetFileSize(out_path);
  result.bytes_written = size.ok() ? size.value() : 0;
  return result;
}

}  // namespace neardup
