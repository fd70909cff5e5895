// `neardup ingest`: streams any input `dedup` reads to a running service,
// in batches of NDJSON lines (POST /v1/pages).
#include <httplib.h>

#include <bit>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "neardup/source.h"
#include "service/service.h"
#include "service/wire.h"
#include "text/charset.h"

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

// Appends one document as a line of POST /v1/pages. Bodies that are not
// UTF-8 go as base64 (html_b64 / text_b64), so the service signs the very
// bytes `dedup` would; a URL, Location or date that is not UTF-8 has its bad
// bytes replaced.
void AppendPageLine(const Document& d, std::string* out) {
  auto text = [](const std::string& s) {
    std::string clean;
    if (IsValidUtf8(s)) return s;
    SanitizeUtf8(s, &clean);
    return clean;
  };
  out->append("{\"url\":");
  AppendJsonString(text(d.url), out);
  const bool is_text = d.kind == ContentKind::kText;
  if (!d.revisit_of.empty()) {
    // A revisit of another URL: the service gives it that page's content.
    out->append(",\"revisit_of\":");
    AppendJsonString(text(d.revisit_of), out);
  } else if (IsValidUtf8(d.body)) {
    out->append(is_text ? ",\"text\":" : ",\"html\":");
    AppendJsonString(d.body, out);
  } else {
    out->append(is_text ? ",\"text_b64\":\"" : ",\"html_b64\":\"");
    out->append(Base64Encode(d.body));
    out->push_back('"');
  }
  out->append(",\"status\":");
  out->append(std::to_string(d.http_status == 0 ? 200 : d.http_status));
  if (!d.redirect_target.empty()) {
    out->append(",\"redirect\":");
    AppendJsonString(text(d.redirect_target), out);
  }
  if (!d.fetch_date.empty()) {
    out->append(",\"fetched\":");
    AppendJsonString(text(d.fetch_date), out);
  }
  out->append("}\n");
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
  if (o.ndjson_out.empty() && !client.is_valid()) {
    return Status::InvalidArgument("--server " + o.server + " is not an http://HOST:PORT address");
  }
  client.set_read_timeout(600, 0);
  client.set_write_timeout(600, 0);
  client.set_keep_alive(true);
  if (!token.empty()) client.set_bearer_token_auth(token);

  WarningPrinter warnings(o.quiet);
  FirstWarnings first_warnings(&warnings);
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<DocumentSource> source,
                           OpenDocumentSource(inputs, o.source, nullptr, &first_warnings));
  // Opened after the inputs: no return below leaves it open.
  FILE* ndjson = nullptr;
  if (!o.ndjson_out.empty()) {
    ndjson = o.ndjson_out == "-" ? stdout : std::fopen(o.ndjson_out.c_str(), "wb");
    if (ndjson == nullptr) return Status::IOError("cannot write " + o.ndjson_out);
  }
  // Closes the NDJSON file when it is not stdout; a failed close is a
  // failed write.
  auto close_ndjson = [&]() -> Status {
    if (ndjson == nullptr) return Status::OK();
    const bool ok = ndjson == stdout ? std::fflush(ndjson) == 0 : std::fclose(ndjson) == 0;
    ndjson = nullptr;
    return ok ? Status::OK() : Status::IOError("cannot write " + o.ndjson_out);
  };
  IngestSummary summary;
  const auto t0 = std::chrono::steady_clock::now();
  auto last_progress = t0;
  const uint64_t bytes_total = source->bytes_total();
  // One batch of NDJSON lines and where each page came from (its answer
  // line names it).
  struct Batch {
    std::string body;
    std::vector<std::pair<std::string, uint64_t>> origin;
    uint64_t bytes_consumed = 0;  // of the input, when the batch was full
  };
  // Sends a batch and reads its answers (on the sender thread).
  auto send = [&](const Batch& batch) -> Status {
    if (ndjson != nullptr) {
      if (std::fwrite(batch.body.data(), 1, batch.body.size(), ndjson) != batch.body.size()) {
        return Status::IOError("cannot write " + o.ndjson_out);
      }
      ++summary.batches;
      summary.pages += batch.origin.size();
      return Status::OK();
    }
    httplib::Result r = client.Post("/v1/pages", batch.body, "application/x-ndjson");
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
        if (!o.quiet && summary.errors <= 100 && index < batch.origin.size()) {
          std::fprintf(stderr, "neardup ingest: warning: %s at byte %llu: the service refused it: %s\n",
                       batch.origin[index].first.c_str(), static_cast<unsigned long long>(batch.origin[index].second),
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
    summary.pages += batch.origin.size();
    const auto now = std::chrono::steady_clock::now();
    if (!o.quiet && std::chrono::duration<double>(now - last_progress).count() >= 1.0) {
      last_progress = now;
      const double s = std::chrono::duration<double>(now - t0).count();
      const uint64_t total = bytes_total;
      std::fprintf(stderr, "\rneardup ingest: %llu pages, %llu duplicates, %.0f pages/s%s",
                   static_cast<unsigned long long>(summary.pages), static_cast<unsigned long long>(summary.duplicates),
                   s > 0 ? summary.pages / s : 0.0,
                   total ? (", " + std::to_string(100 * batch.bytes_consumed / total) + "%").c_str() : "");
    }
    return Status::OK();
  };

  // The reader fills the next batch while the sender's is in flight: the
  // service signs and files one batch as this process reads the next.
  // Batches go out one at a time, in order, so the answers are in input
  // order. Only the sender touches `summary` and `client` until it is
  // joined.
  std::mutex mu;
  std::condition_variable cv;
  std::optional<Batch> ready;
  bool closed = false;
  Status failed;
  std::thread sender([&] {
    for (;;) {
      Batch batch;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return ready.has_value() || closed; });
        if (!ready) return;
        batch = std::move(*ready);
        ready.reset();
      }
      cv.notify_all();
      Status s = send(batch);
      if (!s.ok()) {
        std::lock_guard<std::mutex> lock(mu);
        failed = std::move(s);
        closed = true;
        cv.notify_all();
        return;
      }
    }
  });
  // Hands a batch to the sender; false once the sender has failed.
  auto hand_over = [&](Batch* batch) {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return !ready.has_value() || !failed.ok(); });
    if (!failed.ok()) return false;
    ready = std::move(*batch);
    *batch = Batch();
    cv.notify_all();
    return true;
  };
  Batch batch;
  Document doc;
  bool sending = true;
  while (sending && source->Next(&doc)) {
    if (!doc.revisit_of.empty() && !doc.redirect_target.empty()) {
      doc.revisit_of.clear();  // a redirect is sent as one (dedup reads it as one too)
    } else if (!doc.revisit_of.empty()) {
      if (doc.revisit_of == doc.url) {
        ++summary.revisits;  // an unchanged capture: nothing for the service to change (IngestSummary)
        continue;
      }
      ++summary.revisits_of_other_urls;
    }
    AppendPageLine(doc, &batch.body);
    batch.origin.emplace_back(doc.source, doc.source_offset);
    if (batch.origin.size() >= o.batch_pages) {
      batch.bytes_consumed = source->bytes_consumed();
      // The next batch is about this one's size: its body is not grown
      // (and copied) step by step.
      const size_t body_bytes = batch.body.size();
      sending = hand_over(&batch);
      batch.body.reserve(body_bytes + body_bytes / 8);
      batch.origin.reserve(o.batch_pages);
    }
  }
  if (sending && !batch.origin.empty()) hand_over(&batch);
  {
    std::lock_guard<std::mutex> lock(mu);
    closed = true;
  }
  cv.notify_all();
  sender.join();
  const Status closed_ndjson = close_ndjson();
  NEARDUP_RETURN_IF_ERROR(failed);
  NEARDUP_RETURN_IF_ERROR(closed_ndjson);
  summary.warnings = warnings.count();
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!o.quiet && summary.pages >= o.batch_pages) std::fprintf(stderr, "\n");
  if (summary.pages == 0 && summary.revisits == 0) {
    return Status::InvalidArgument(NothingReadLine(inputs, first_warnings, source->stats(), o.source));
  }
  return summary;
}

}  // namespace neardup
