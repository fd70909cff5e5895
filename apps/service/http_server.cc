// `neardup serve`: the service's HTTP API (README.md, "Running the service")
// on cpp-httplib.
//
//   POST   /v1/pages        NDJSON pages in, one NDJSON answer per line out
//   POST   /v1/check        the same, answered as if applied; changes nothing
//   GET    /v1/pages?url=U  the page's answer now (404 when unknown)
//   DELETE /v1/pages?url=U  removes the page (404 when unknown)
//   GET    /v1/groups/ID    the group's winner and members
//   GET    /v1/stats        counters of the store
//   GET    /healthz         {"status": "ok"}
//
// Every error answer is a JSON object {"error": "..."} with a 4xx or 5xx
// status. No request names a file: the store folder is fixed at start.
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <latch>
#include <nlohmann/json.hpp>
#include <thread>

#include "neardup/executor.h"
#include "service/service.h"
#include "service/wire.h"

namespace neardup {

namespace {

std::string ErrorJson(std::string_view message) {
  return nlohmann::json{{"error", message}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void SetError(httplib::Response& res, int status, std::string_view message) {
  res.status = status;
  res.set_content(ErrorJson(message), "application/json");
}

int HttpStatusOf(const Status& s) {
  switch (s.code()) {
    case Status::Code::kNotFound: return 404;
    case Status::Code::kInvalidArgument: return 400;
    case Status::Code::kResourceExhausted: return 413;
    default: return 500;
  }
}

bool IsLoopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

// "host:port" or "[v6]:port".
Status SplitListen(const std::string& listen, std::string* host, int* port) {
  size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon + 1 == listen.size()) {
    return Status::InvalidArgument("--listen must be HOST:PORT, e.g. 127.0.0.1:8080 (got '" + listen + "')");
  }
  *host = listen.substr(0, colon);
  if (host->size() >= 2 && host->front() == '[' && host->back() == ']') *host = host->substr(1, host->size() - 2);
  const std::string p = listen.substr(colon + 1);
  if (p.find_first_not_of("0123456789") != std::string::npos || p.size() > 5 || std::stoi(p) > 65535) {
    return Status::InvalidArgument("--listen: bad port '" + p + "'");
  }
  *port = std::stoi(p);
  if (host->empty()) return Status::InvalidArgument("--listen: no host in '" + listen + "'");
  return Status::OK();
}

bool SameToken(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

class ServerImpl final : public Server {
 public:
  Status Init(const ServerOptions& o) {
    o_ = o;
    std::string host;
    int port = 0;
    NEARDUP_RETURN_IF_ERROR(SplitListen(o.listen, &host, &port));
    if (!IsLoopback(host) && o.token_file.empty()) {
      return Status::InvalidArgument("--listen " + o.listen +
                                     " is not a loopback address: give --token-file with a bearer token");
    }
    if (!o.token_file.empty()) {
      NEARDUP_ASSIGN_OR_RETURN(token_, ReadTokenFile(o.token_file));
    }
    const int threads = o.threads > 0 ? o.threads : UsableCpus();
    executor_ = NewThreadPoolExecutor(threads);
    NEARDUP_ASSIGN_OR_RETURN(service_, DuplicateService::Open(o.store_dir, o.service, executor_.get()));
    Routes();
    svr_.set_payload_max_length(o.max_body_bytes);
    svr_.set_read_timeout(60, 0);
    svr_.set_write_timeout(60, 0);
    svr_.new_task_queue = [] { return new httplib::ThreadPool(4); };
    port_ = port == 0 ? svr_.bind_to_any_port(host) : (svr_.bind_to_port(host, port) ? port : -1);
    if (port_ <= 0) return Status::IOError("cannot listen on " + o.listen + " (in use, or not an address of this machine)");
    return Status::OK();
  }

  int port() const override { return port_; }
  std::string method_spec() const override { return service_->method_spec(); }
  Status Serve() override {
    if (!svr_.listen_after_bind()) return Status::IOError("the server stopped listening on " + o_.listen);
    return Status::OK();
  }
  void Stop() override { svr_.stop(); }

 private:
  void Routes() {
    svr_.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      if (token_.empty() || req.path == "/healthz") return httplib::Server::HandlerResponse::Unhandled;
      const std::string auth = req.get_header_value("Authorization");
      if (auth.rfind("Bearer ", 0) != 0 || !SameToken(std::string_view(auth).substr(7), token_)) {
        SetError(res, 401, "missing or wrong bearer token (Authorization: Bearer TOKEN)");
        res.set_header("WWW-Authenticate", "Bearer");
        return httplib::Server::HandlerResponse::Handled;
      }
      return httplib::Server::HandlerResponse::Unhandled;
    });
    svr_.set_error_handler([this](const httplib::Request&, httplib::Response& res) {
      if (!res.body.empty()) return;
      if (res.status == 413) {
        SetError(res, 413, "request body larger than the limit of " + std::to_string(o_.max_body_bytes) + " bytes");
      } else if (res.status == 404) {
        SetError(res, 404, "no such route; see README.md, \"Running the service\"");
      } else {
        SetError(res, res.status, "request failed");
      }
    });
    svr_.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
      std::string what = "internal error";
      try {
        if (ep) std::rethrow_exception(ep);
      } catch (const std::exception& e) {
        what = std::string("internal error: ") + e.what();
      } catch (...) {
      }
      SetError(res, 500, what);
    });
    // The body is read through a content reader, whatever its Content-Type:
    // cpp-httplib would parse an application/x-www-form-urlencoded body (what
    // `curl --data-binary` sends by default) as a form and refuse it past
    // 8 KiB.
    svr_.Post("/v1/pages", [this](const httplib::Request& req, httplib::Response& res,
                                  const httplib::ContentReader& reader) { Pages(req, res, reader, false); });
    svr_.Post("/v1/check", [this](const httplib::Request& req, httplib::Response& res,
                                  const httplib::ContentReader& reader) { Pages(req, res, reader, true); });
    svr_.Get("/v1/pages", [this](const httplib::Request& req, httplib::Response& res) {
      if (!req.has_param("url")) return SetError(res, 400, "give the page as ?url=URL");
      Result<PageAnswer> a = service_->Lookup(req.get_param_value("url"));
      if (!a.ok()) return SetError(res, HttpStatusOf(a.status()), a.status().message());
      res.set_content(PageAnswerJson(*a), "application/json");
    });
    svr_.Delete("/v1/pages", [this](const httplib::Request& req, httplib::Response& res) {
      if (!req.has_param("url")) return SetError(res, 400, "give the page as ?url=URL");
      Result<PageAnswer> a = service_->Remove(req.get_param_value("url"));
      if (!a.ok()) return SetError(res, HttpStatusOf(a.status()), a.status().message());
      res.set_content(PageAnswerJson(*a), "application/json");
    });
    svr_.Get(R"(/v1/groups/(\d{1,19}))", [this](const httplib::Request& req, httplib::Response& res) {
      Result<GroupInfo> g = service_->Group(std::stoull(req.matches[1].str()));
      if (!g.ok()) return SetError(res, HttpStatusOf(g.status()), g.status().message());
      nlohmann::ordered_json j = {{"id", g->id},
                                  {"winner", g->winner},
                                  {"members", g->members},
                                  {"failed_verifications", g->failed_verifications}};
      res.set_content(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), "application/json");
    });
    svr_.Get("/v1/stats", [this](const httplib::Request&, httplib::Response& res) {
      Result<ServiceStats> s = service_->Stats();
      if (!s.ok()) return SetError(res, 500, s.status().message());
      res.set_content(ServiceStatsJson(*s, service_->method_spec()), "application/json");
    });
    svr_.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"status":"ok"})", "application/json");
    });
  }

  void Pages(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader, bool dry_run) {
    if (req.is_multipart_form_data()) return SetError(res, 415, "send NDJSON (one page per line), not a multipart form");
    // The body is read into a buffer the thread keeps between requests (its
    // pages are not faulted in again for every batch), sized from
    // Content-Length when the client sends it; a buffer grown past
    // kKeptBodyBytes is freed when the request is done, whatever its end.
    thread_local std::string received;
    received.clear();
    struct FreeLarge {
      ~FreeLarge() {
        if (received.capacity() > kKeptBodyBytes) std::string().swap(received);
      }
    } free_large;
    const uint64_t length = req.get_header_value<uint64_t>("Content-Length");
    if (length > 0) received.reserve(std::min<uint64_t>({length, o_.max_body_bytes, kKeptBodyBytes}));
    bool too_big = false;
    reader([&](const char* data, size_t n) {
      if (received.size() + n > o_.max_body_bytes) {
        too_big = true;
        return false;
      }
      received.append(data, n);
      return true;
    });
    if (too_big) {
      return SetError(res, 413, "request body larger than the limit of " + std::to_string(o_.max_body_bytes) + " bytes");
    }
    std::vector<std::pair<std::string_view, uint64_t>> lines;  // (line, its number)
    std::string_view body = received;
    uint64_t line_number = 0;
    size_t start = 0;
    while (start < body.size()) {
      size_t end = body.find('\n', start);
      if (end == std::string_view::npos) end = body.size();
      std::string_view line = body.substr(start, end - start);
      start = end + 1;
      ++line_number;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.find_first_not_of(" \t") == std::string_view::npos) continue;  // blank lines carry nothing
      if (lines.size() >= o_.max_lines) {
        return SetError(res, 413, "more than " + std::to_string(o_.max_lines) +
                                      " lines in one request; send them in smaller batches");
      }
      lines.emplace_back(line, line_number);
    }
    std::vector<PageInput> pages(lines.size());
    ParallelFor(lines.size(), [&](size_t i) { ParsePageLine(lines[i].first, lines[i].second, o_.max_line_bytes, &pages[i]); });
    Result<std::vector<PageAnswer>> answers = service_->Apply(std::move(pages), dry_run);
    if (!answers.ok()) return SetError(res, 500, answers.status().message());
    std::string out;
    for (const PageAnswer& a : *answers) {
      out += PageAnswerJson(a);
      out.push_back('\n');
    }
    res.set_content(std::move(out), "application/x-ndjson");
  }

  // A read buffer larger than this is freed after its request.
  static constexpr size_t kKeptBodyBytes = size_t{64} << 20;

  // Calls fn(i) for i in [0, n) on the executor's threads; returns when all
  // are done.
  void ParallelFor(size_t n, const std::function<void(size_t)>& fn) {
    const size_t tasks = std::min<size_t>(static_cast<size_t>(executor_->num_threads()), n / 16);
    if (tasks <= 1) {
      for (size_t i = 0; i < n; ++i) fn(i);
      return;
    }
    std::atomic<size_t> next{0};
    std::latch done(static_cast<std::ptrdiff_t>(tasks));
    for (size_t t = 0; t < tasks; ++t) {
      executor_->Schedule([&] {
        for (size_t i; (i = next.fetch_add(16)) < n;) {
          for (size_t j = i; j < std::min(n, i + 16); ++j) fn(j);
        }
        done.count_down();
      });
    }
    done.wait();
  }

  ServerOptions o_;
  std::string token_;
  std::unique_ptr<Executor> executor_;
  std::unique_ptr<DuplicateService> service_;
  httplib::Server svr_;
  int port_ = -1;
};

}  // namespace

Result<std::unique_ptr<Server>> Server::Start(const ServerOptions& options) {
  auto s = std::make_unique<ServerImpl>();
  NEARDUP_RETURN_IF_ERROR(s->Init(options));
  return std::unique_ptr<Server>(std::move(s));
}

}  // namespace neardup
