// neardup serve, neardup ingest, neardup export: the incremental duplicate
// service of Zhu et al. ("Clustering and Load Balancing Optimization for
// Redundant Content Removal", §5) over HTTP, its client and its exporter.
// README.md, "Running the service", documents the API.
#include <signal.h>

#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cli_util.h"
#include "commands.h"
#include "neardup/engine.h"
#include "neardup/method.h"
#include "service/service.h"

namespace neardup_cli {

namespace {

int ReportServiceError(const neardup::Status& st, const char* command) {
  std::fprintf(stderr, "neardup %s: error: %s\n", command, st.message().c_str());
  return st.IsInvalidArgument() ? kExitUsage : kExitNoData;
}

// Flags that shape a store; a store remembers them.
struct StoreFlags {
  std::string method;
  std::string keeper;
  std::string market;
  void Add(CLI::App* app) {
    app->add_option("--method,-m", method,
                    "Method of a new store: exact, broder, simhash, combined or robust, or a spec string "
                    "(default simhash: robust's site boilerplate is learned from a whole collection, "
                    "which a service does not have); an existing store keeps its own, and another is "
                    "an error");
    app->add_option("--keeper", keeper,
                    "Winner rules of a new store, as `dedup --keeper` (default: dedup's default)");
    app->add_option("--prefer-host-suffix", market,
                    "Market rule (Zhu et al. §5): among pages of equal status, hosts ending with this "
                    "suffix (e.g. .uk) win");
  }
  neardup::ServiceOptions Options() const {
    neardup::ServiceOptions o;
    o.method = method;
    o.keeper = keeper;
    o.prefer_host_suffix = market;
    return o;
  }
};

struct ServeArgs {
  neardup::ServerOptions server;
  StoreFlags store;
  std::string cache = "64M", write_buffer = "32M", max_body = "256M", max_line = "16M";
};

int RunServe(ServeArgs& a) {
  neardup::ServerOptions o = a.server;
  o.service = a.store.Options();
  o.service.signature_cache_pages = a.server.service.signature_cache_pages;
  uint64_t cache = 0, wb = 0, body = 0, line = 0;
  if (!ParseSize(a.cache, &cache) || !ParseSize(a.write_buffer, &wb) || !ParseSize(a.max_body, &body) ||
      !ParseSize(a.max_line, &line)) {
    std::fprintf(stderr, "neardup serve: error: a size must be like 64M or 1G\n");
    return kExitUsage;
  }
  o.service.block_cache_bytes = cache;
  o.service.write_buffer_bytes = wb;
  o.max_body_bytes = body;
  o.max_line_bytes = line;
  o.service.max_page_bytes = line;
  // SIGINT and SIGTERM stop the server cleanly; a thread waits for them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  auto server = neardup::Server::Start(o);
  if (!server.ok()) return ReportServiceError(server.status(), "serve");
  const std::string spec = (*server)->method_spec();
  std::fprintf(stderr, "neardup serve: store %s, method %s, listening on %s (port %d)\n", o.store_dir.c_str(),
               spec.c_str(), o.listen.c_str(), (*server)->port());
  if (auto m = neardup::NewMethod(spec); m.ok() && (*m)->learns_from_collection()) {
    std::fprintf(stderr,
                 "neardup serve: warning: %s learns each site's boilerplate from the whole collection in "
                 "`dedup`; the service decides pairs on their signatures alone, so pages of one site that "
                 "share a template may pair up (simhash or broder have no such gap)\n",
                 (*m)->name().c_str());
  }
  std::fflush(stderr);
  neardup::Server* s = server->get();
  std::thread waiter([s, signals] {
    int sig = 0;
    sigwait(&signals, &sig);
    s->Stop();
  });
  neardup::Status st = s->Serve();
  // Wake the waiter when the server stopped by itself.
  pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
  if (!st.ok()) return ReportServiceError(st, "serve");
  std::fprintf(stderr, "neardup serve: stopped\n");
  return kExitOk;
}

}  // namespace

Command AddServeCommand(CLI::App* app) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* c = app->add_subcommand(
      "serve",
      "Run the incremental duplicate service (Zhu et al.'s two tiers) on a RocksDB store behind HTTP: "
      "POST /v1/pages and /v1/check take NDJSON pages, GET/DELETE /v1/pages?url=U, GET /v1/groups/ID, "
      "GET /v1/stats, GET /healthz (README.md, \"Running the service\")");
  c->add_option("--store", args->server.store_dir, "Store folder (created if missing)")->required();
  c->add_option("--listen", args->server.listen,
                "HOST:PORT to listen on; loopback by default; another address needs --token-file")
      ->capture_default_str();
  c->add_option("--token-file", args->server.token_file,
                "File holding a bearer token (16+ characters) every request but /healthz must send");
  c->add_option("--threads,-t", args->server.threads, "Signing threads (0: one per core)");
  c->add_option("--max-body", args->max_body, "Largest request body; larger is 413")->capture_default_str();
  c->add_option("--max-line", args->max_line, "Largest NDJSON line; larger is an error line")
      ->capture_default_str();
  c->add_option("--max-lines", args->server.max_lines, "Most lines in one request; more is 413")
      ->capture_default_str();
  c->add_option("--cache", args->cache, "RocksDB block cache")->capture_default_str();
  c->add_option("--write-buffer", args->write_buffer, "RocksDB memtable budget")->capture_default_str();
  c->add_option("--signature-cache", args->server.service.signature_cache_pages,
                "Pages whose signatures tier 2 keeps in memory (rounded down to a power of two; 0: none): the "
                "latest pages of a larger store share slots with older ones, read from the store when needed")
      ->capture_default_str();
  args->store.Add(c);
  return {c, [args] { return RunServe(*args); }};
}

Command AddIngestCommand(CLI::App* app) {
  struct Args {
    std::vector<std::string> inputs;
    neardup::IngestOptions options;
    std::string answers;
  };
  auto args = std::make_shared<Args>();
  CLI::App* c = app->add_subcommand(
      "ingest",
      "Stream inputs (anything `dedup` reads: WARC with its 3xx records and Location headers, JSON "
      "Lines, folders) to a running `neardup serve` in batches, with a progress line");
  c->add_option("INPUT", args->inputs, "Inputs, as for `neardup dedup`")->required();
  c->add_option("--server", args->options.server, "The service's address")->capture_default_str();
  c->add_option("--token-file", args->options.token_file, "Bearer token file of the service");
  c->add_option("--batch", args->options.batch_pages, "Pages per request")->check(CLI::Range(1, 100000))
      ->capture_default_str();
  c->add_option("--answers", args->answers, "Write every answer line (NDJSON) to this file");
  c->add_option("--ndjson-out", args->options.ndjson_out,
                "Write the request lines (NDJSON, one page a line, as POST /v1/pages takes them) to this "
                "file ('-': stdout) instead of sending them; no server is contacted");
  c->add_flag("--quiet,-q", args->options.quiet, "No progress or warnings on stderr");
  return {c, [args] {
            FILE* out = nullptr;
            if (!args->answers.empty()) {
              out = std::fopen(args->answers.c_str(), "w");
              if (!out) {
                std::fprintf(stderr, "neardup ingest: error: cannot write %s\n", args->answers.c_str());
                return kExitNoData;
              }
            }
            auto r = neardup::RunIngest(args->inputs, args->options, [out](const std::string& line) {
              if (out) std::fprintf(out, "%s\n", line.c_str());
            });
            if (out) std::fclose(out);
            if (!r.ok()) return ReportServiceError(r.status(), "ingest");
            if (!args->options.quiet) {
              std::fprintf(stderr,
                           "neardup ingest: %s pages in %s requests, %s duplicates, %s redirects, %s removed, "
                           "%s errors, %s read warnings, %s revisit records not sent (unchanged captures), "
                           "%s revisits of other URLs sent (placed with the content of the page they name), "
                           "%.1f s (%.0f pages/s)\n",
                           WithCommas(r->pages).c_str(), WithCommas(r->batches).c_str(),
                           WithCommas(r->duplicates).c_str(), WithCommas(r->redirects).c_str(),
                           WithCommas(r->removed).c_str(), WithCommas(r->errors).c_str(),
                           WithCommas(r->warnings).c_str(), WithCommas(r->revisits).c_str(),
                           WithCommas(r->revisits_of_other_urls).c_str(), r->seconds,
                           r->seconds > 0 ? r->pages / r->seconds : 0.0);
            }
            return r->errors ? kExitNoData : kExitOk;
          }};
}

Command AddExportCommand(CLI::App* app) {
  struct Args {
    std::string store, out;
    StoreFlags flags;
  };
  auto args = std::make_shared<Args>();
  CLI::App* c = app->add_subcommand(
      "export",
      "Write a service store's groups as DIR/clusters.tsv and DIR/summary.json in `dedup`'s format, "
      "so that eval, report and mirrors read them (stop the server first: a store is opened by one "
      "process at a time)");
  c->add_option("--store", args->store, "Store folder")->required()->check(CLI::ExistingDirectory);
  c->add_option("--out,-o", args->out, "Output folder (created if missing)")->required();
  return {c, [args] {
            neardup::ServiceOptions o;  // the store's own method and rules
            auto service = neardup::DuplicateService::Open(args->store, o);
            if (!service.ok()) return ReportServiceError(service.status(), "export");
            neardup::Status s = (*service)->Export(args->out);
            if (!s.ok()) return ReportServiceError(s, "export");
            std::fprintf(stderr, "neardup export: wrote clusters.tsv and summary.json in %s\n", args->out.c_str());
            return kExitOk;
          }};
}

}  // namespace neardup_cli
