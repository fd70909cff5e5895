// `neardup ingest`: streams any input `dedup` reads to a running service,
// in batches of NDJSON lines (POST /v1/pages).
#include <httplib.h>

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "neardup/source.h"
#include "service/service.h"
#include "service/wire.h"

namespace neardup {

namespace {

class WarningPrinter final : public ReadObserver {
 public:
  explicit WarningPrinter(bool quiet) : quiet_(quiet) {}
  void OnWarning(const ReadWarning& w) override {
    ++count_;
    if (!quiet_ && count_ <= 100) {
      std::fprintf(stderr, "neardup ingest: warning: %s at byte %llu: %s (%s)\n", w.file.c_str(),
                   static_cast<unsigned long long>(w.offset), w.message.c_str(), w.reason_key.c_str());
    }
  }
  uint64_t count() const { return count_; }

 private:
  bool quiet_;
  uint64_t count_ = 0;
};

// One document as a line of POST /v1/pages. Bodies that are not UTF-8 go as
// base64 (html_b64 / text_b64), so the service signs the very bytes `dedup`
// would.
std::string PageLine(const Document& d) {
  nlohmann::ordered_json j;
  j["url"] = d.url;
  const bool text = d.kind == ContentKind::kText;
  if (IsValidUtf8(d.body)) {
    j[text ? "text" : "html"] = d.body;
  } else {
    j[text ? "text_b64" : "html_b64"] = Base64Encode(d.body);
  }
  j["status"] = d.http_status == 0 ? 200 : d.http_status;
  if (!d.redirect_target.empty()) j["redirect"] = d.redirect_target;
  if (!d.fetch_date.empty()) j["fetched"] = d.fetch_date;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

Result<IngestSummary> RunIngest(const std::vector<std::string>& inputs, const IngestOptions& o,
                                const std::function<void(const std::string& line)>& on_answer) {
  if (inputs.empty()) return Status::InvalidArgument("no inputs given");
  if (o.batch_pages < 1) return Status::InvalidArgument("--batch must be at least 1");
  std::string token;
  if (!o.token_file.empty()) {
    NEARDUP_ASSIGN_OR_RETURN(token, ReadTokenFile(o.token_file));
  }
  httplib::Client client(o.server);
  if (!client.is_valid()) return Status::InvalidArgument("--server " + o.server + " is not an http://HOST:PORT address");
  client.set_read_timeout(600, 0);
  client.set_write_timeout(600, 0);
  client.set_keep_alive(true);
  if (!token.empty()) client.set_bearer_token_auth(token);

  WarningPrinter warnings(o.quiet);
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<DocumentSource> source, OpenDocumentSource(inputs, o.source, nullptr, &warnings));
  IngestSummary summary;
  const auto t0 = std::chrono::steady_clock::now();
  auto last_progress = t0;
  std::string body;
  uint32_t in_batch = 0;
  // Where each page of the batch came from: its answer line names it.
  std::vector<std::pair<std::string, uint64_t>> origin;
  auto send = [&]() -> Status {
    if (in_batch == 0) return Status::OK();
    httplib::Result r = client.Post("/v1/pages", body, "application/x-ndjson");
    if (!r) {
      return Status::IOError("cannot reach the service at " + o.server + ": " + httplib::to_string(r.error()));
    }
    if (r->status != 200) {
      return Status::IOError("the service answered " + std::to_string(r->status) + ": " + r->body);
    }
    size_t start = 0, k = 0;
    while (start < r->body.size()) {
      size_t end = r->body.find('\n', start);
      if (end == std::string::npos) end = r->body.size();
      const std::string line = r->body.substr(start, end - start);
      start = end + 1;
      if (line.empty()) continue;
      const size_t index = k++;
      const nlohmann::json answer = nlohmann::json::parse(line, nullptr, false);
      const std::string role = answer.is_object() ? answer.value("role", std::string()) : std::string();
      if (role == "error") {
        // The service names what was wrong; say which record it was.
        ++summary.errors;
        if (!o.quiet && summary.errors <= 100 && index < origin.size()) {
          std::fprintf(stderr, "neardup ingest: warning: %s at byte %llu: the service refused it: %s\n",
                       origin[index].first.c_str(), static_cast<unsigned long long>(origin[index].second),
                       answer.value("error", std::string()).c_str());
        }
      } else if (role == "duplicate") {
        ++summary.duplicates;
      } else if (role == "redirect") {
        ++summary.redirects;
      } else if (role == "removed") {
        ++summary.removed;
      }
      if (on_answer) on_answer(line);
    }
    ++summary.batches;
    body.clear();
    origin.clear();
    in_batch = 0;
    return Status::OK();
  };
  Document doc;
  while (source->Next(&doc)) {
    body += PageLine(doc);
    body.push_back('\n');
    origin.emplace_back(doc.source, doc.source_offset);
    ++summary.pages;
    if (++in_batch >= o.batch_pages) {
      NEARDUP_RETURN_IF_ERROR(send());
      const auto now = std::chrono::steady_clock::now();
      if (!o.quiet && std::chrono::duration<double>(now - last_progress).count() >= 1.0) {
        last_progress = now;
        const double s = std::chrono::duration<double>(now - t0).count();
        const uint64_t total = source->bytes_total();
        std::fprintf(stderr, "\rneardup ingest: %llu pages, %llu duplicates, %.0f pages/s%s", 
                     static_cast<unsigned long long>(summary.pages),
                     static_cast<unsigned long long>(summary.duplicates), s > 0 ? summary.pages / s : 0.0,
                     total ? (", " + std::to_string(100 * source->bytes_consumed() / total) + "%").c_str() : "");
      }
    }
  }
  NEARDUP_RETURN_IF_ERROR(send());
  summary.warnings = warnings.count();
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!o.quiet && summary.pages >= o.batch_pages) std::fprintf(stderr, "\n");
  if (summary.pages == 0) {
    std::string names;
    for (const std::string& in : inputs) names += (names.empty() ? "" : ", ") + in;
    return Status::InvalidArgument("no document could be read from " + names);
  }
  return summary;
}

}  // namespace neardup
