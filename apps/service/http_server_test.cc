// The HTTP API's contracts over a real server on loopback (http_server.cc):
// NDJSON in and out, line by line, malformed lines, size limits, the
// bearer token, every route; and `neardup ingest` + `neardup export`
// against `neardup serve` started as its own process.
#include <httplib.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "neardup/source.h"
#include "service/service.h"
#include "test_util.h"

namespace neardup {
namespace {

std::vector<nlohmann::json> Lines(const std::string& body) {
  std::vector<nlohmann::json> out;
  size_t start = 0;
  while (start < body.size()) {
    size_t end = body.find('\n', start);
    if (end == std::string::npos) end = body.size();
    if (end > start) out.push_back(nlohmann::json::parse(body.substr(start, end - start)));
    start = end + 1;
  }
  return out;
}

std::string PageLine(const std::string& url, const std::string& html, int status = 200) {
  return nlohmann::json{{"url", url}, {"html", html}, {"status", status}}.dump() + "\n";
}

std::string Text(int seed) {
  std::string s = "<p>";
  for (int i = 0; i < 300; ++i) {
    s.push_back('w');
    s.append(std::to_string((i * 7919 + seed * 104729) % 997));
    s.push_back(' ');
  }
  s.append("</p>");
  return s;
}

class HttpTest : public ::testing::Test {
 protected:
  void Start(ServerOptions o) {
    o.store_dir = testing::MakeTempDir("http") + "/store";
    o.listen = "127.0.0.1:0";
    o.threads = 2;
    o.service.sync = false;
    auto s = Server::Start(o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    server_ = std::move(s).value();
    thread_ = std::thread([this] { (void)server_->Serve(); });
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
    for (int i = 0; i < 100 && !client_->Get("/healthz"); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  void TearDown() override {
    if (server_) server_->Stop();
    if (thread_.joinable()) thread_.join();
  }
  std::unique_ptr<Server> server_;
  std::thread thread_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(HttpTest, PagesAreAnsweredLineByLineInOrder) {
  Start(ServerOptions());
  const std::string body = PageLine("https://a.example/p", Text(1)) + "\n" +  // a blank line carries nothing
                           "{not json}\n" + PageLine("https://b.example/longer/p", Text(1)) +
                           R"({"url": "https://c.example/r", "status": 301, "redirect": "https://a.example/p"})" + "\n" +
                           R"({"url": "https://d.example/", "html": 7})" + "\n";
  auto r = client_->Post("/v1/pages", body, "application/x-ndjson");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  auto lines = Lines(r->body);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0]["role"], "keep");
  EXPECT_EQ(lines[0]["tier"], 2);
  EXPECT_EQ(lines[1]["role"], "error");
  EXPECT_NE(lines[1]["error"].get<std::string>().find("line 3"), std::string::npos);
  EXPECT_EQ(lines[2]["role"], "duplicate");
  EXPECT_EQ(lines[2]["winner"], "https://a.example/p");
  EXPECT_EQ(lines[2]["group"], lines[0]["group"]);
  EXPECT_DOUBLE_EQ(lines[2]["similarity"].get<double>(), 1.0);
  EXPECT_EQ(lines[3]["role"], "redirect");
  EXPECT_EQ(lines[3]["group"], lines[0]["group"]);
  EXPECT_EQ(lines[4]["role"], "error");

  auto get = client_->Get("/v1/pages?url=https%3A%2F%2Fb.example%2Flonger%2Fp");
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 200);
  EXPECT_EQ(nlohmann::json::parse(get->body)["role"], "duplicate");
  auto group = client_->Get("/v1/groups/" + lines[0]["group"].dump());
  ASSERT_TRUE(group);
  auto g = nlohmann::json::parse(group->body);
  EXPECT_EQ(g["winner"], "https://a.example/p");
  EXPECT_EQ(g["members"].size(), 3u);
  EXPECT_EQ(client_->Get("/v1/groups/999999")->status, 404);
  EXPECT_EQ(client_->Get("/v1/pages?url=https%3A%2F%2Fnone.example%2F")->status, 404);
  EXPECT_EQ(client_->Get("/v1/pages")->status, 400);
  EXPECT_EQ(client_->Get("/v1/nothing")->status, 404);

  // A revisit of a page's own URL is an unchanged capture: answered as the
  // page stands. One naming a URL the store does not hold, or carrying a
  // body, is an error and changes nothing.
  auto revisit = client_->Post("/v1/pages",
                               std::string(R"({"url": "https://a.example/p", "revisit_of": "https://a.example/p"})") +
                                   "\n" + R"({"url": "https://f.example/", "revisit_of": "https://none.example/"})" +
                                   "\n" +
                                   R"({"url": "https://f.example/", "revisit_of": "https://a.example/p", "html": "x"})",
                               "application/x-ndjson");
  ASSERT_TRUE(revisit);
  const auto revisit_lines = Lines(revisit->body);
  ASSERT_EQ(revisit_lines.size(), 3u) << revisit->body;
  EXPECT_EQ(revisit_lines[0]["role"], "keep");
  EXPECT_EQ(revisit_lines[0]["group"], lines[0]["group"]);
  EXPECT_EQ(revisit_lines[1]["role"], "error");
  EXPECT_NE(revisit_lines[1]["error"].get<std::string>().find("https://none.example/"), std::string::npos);
  EXPECT_EQ(revisit_lines[2]["role"], "error");
  EXPECT_NE(revisit_lines[2]["error"].get<std::string>().find("revisit_of"), std::string::npos);
  EXPECT_EQ(client_->Get("/v1/pages?url=https%3A%2F%2Ff.example%2F")->status, 404);
  auto kept = client_->Get("/v1/pages?url=https%3A%2F%2Fa.example%2Fp");
  ASSERT_TRUE(kept);
  EXPECT_EQ(nlohmann::json::parse(kept->body)["role"], "keep");
  EXPECT_EQ(nlohmann::json::parse(kept->body)["group"], lines[0]["group"]);

  // Check changes nothing; delete removes the winner and elects another.
  auto check = client_->Post("/v1/check", PageLine("https://e.example/longest/path/x", Text(1)), "application/x-ndjson");
  ASSERT_TRUE(check);
  EXPECT_EQ(Lines(check->body)[0]["role"], "duplicate");
  EXPECT_EQ(client_->Get("/v1/pages?url=https%3A%2F%2Fe.example%2Flongest%2Fpath%2Fx")->status, 404);
  auto del = client_->Delete("/v1/pages?url=https%3A%2F%2Fa.example%2Fp");
  ASSERT_TRUE(del);
  EXPECT_EQ(nlohmann::json::parse(del->body)["role"], "removed");
  auto after = client_->Get("/v1/pages?url=https%3A%2F%2Fb.example%2Flonger%2Fp");
  EXPECT_EQ(nlohmann::json::parse(after->body)["role"], "keep");
  auto stats = nlohmann::json::parse(client_->Get("/v1/stats")->body);
  EXPECT_EQ(stats["content_pages"], 1);
  EXPECT_EQ(stats["removed_pages"], 1);
  EXPECT_GT(stats["store_bytes"].get<uint64_t>(), 0u);
  EXPECT_GT(stats["postings_bytes"].get<uint64_t>(), 0u);
}

TEST_F(HttpTest, SizeLimitsAnswer413WithAMessageAndHarmNothing) {
  ServerOptions o;
  o.max_body_bytes = 64 * 1024;
  o.max_line_bytes = 8 * 1024;
  o.max_lines = 10;
  Start(o);
  std::string big = PageLine("https://a.example/big", std::string(100 * 1024, 'x'));
  auto r = client_->Post("/v1/pages", big, "application/x-ndjson");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  EXPECT_NE(r->body.find("larger than the limit"), std::string::npos);
  std::string many;
  for (int i = 0; i < 11; ++i) many += PageLine("https://a.example/" + std::to_string(i), "<p>x</p>");
  r = client_->Post("/v1/pages", many, "application/x-ndjson");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  EXPECT_NE(r->body.find("more than 10 lines"), std::string::npos);
  // A long line is one error line; the others go in.
  std::string mixed = PageLine("https://a.example/long", std::string(10 * 1024, 'y')) + PageLine("https://a.example/ok", Text(2));
  r = client_->Post("/v1/pages", mixed, "application/x-ndjson");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200);
  auto lines = Lines(r->body);
  EXPECT_EQ(lines[0]["role"], "error");
  EXPECT_EQ(lines[1]["role"], "keep");
  EXPECT_EQ(nlohmann::json::parse(client_->Get("/v1/stats")->body)["content_pages"], 1);
}

TEST_F(HttpTest, TokenIsRequiredWhenSetAndForOtherAddresses) {
  const std::string token_file = testing::MakeTempDir("token") + "/token";
  testing::WriteFileOrDie(token_file, "0123456789abcdef0123\n");
  ServerOptions o;
  o.token_file = token_file;
  Start(o);
  EXPECT_EQ(client_->Get("/v1/stats")->status, 401);
  EXPECT_EQ(client_->Get("/healthz")->status, 200);
  client_->set_bearer_token_auth("wrong-token-0000000");
  EXPECT_EQ(client_->Get("/v1/stats")->status, 401);
  client_->set_bearer_token_auth("0123456789abcdef0123");
  EXPECT_EQ(client_->Get("/v1/stats")->status, 200);

  ServerOptions open;
  open.store_dir = testing::MakeTempDir("http-any") + "/store";
  open.listen = "0.0.0.0:0";
  auto s = Server::Start(open);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("token-file"), std::string::npos);
}

// `neardup serve` as its own process, fed by `neardup ingest`, exported by
// `neardup export` after a clean stop: the export is dedup's format, and
// `neardup eval` reads it.
TEST(ServeProcess, IngestThenExportAfterStop) {
  const std::string dir = testing::MakeTempDir("serve-process");
  const std::string store = dir + "/store";
  const std::string log = dir + "/serve.log";
  // Port 0: the server picks a free one and names it on its first line.
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    freopen(log.c_str(), "w", stderr);
    execl(testing::CliPath().c_str(), "neardup", "serve", "--store", store.c_str(), "--listen", "127.0.0.1:0",
          "--threads", "2", static_cast<char*>(nullptr));
    _exit(127);
  }
  int port = 0;
  for (int i = 0; i < 200 && port == 0; ++i) {
    const std::string text = testing::ReadFileOrEmpty(log);
    if (const size_t at = text.find("(port "); at != std::string::npos) port = std::atoi(text.c_str() + at + 6);
    if (port == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_GT(port, 0) << testing::ReadFileOrEmpty(log);
  httplib::Client c("127.0.0.1", port);
  bool up = false;
  for (int i = 0; i < 200 && !up; ++i) {
    auto r = c.Get("/healthz");
    up = r && r->status == 200;
    if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(up) << testing::ReadFileOrEmpty(log);
  std::string out;
  const std::string sample = testing::RepoTestDataDir() + "/sample/sample-crawl.warc.gz";
  const std::string answers = dir + "/answers.ndjson";
  const int rc = testing::RunCommand(testing::Q(testing::CliPath()) + " ingest " + testing::Q(sample) +
                                         " --server http://127.0.0.1:" + std::to_string(port) +
                                         " --batch 7 --answers " + testing::Q(answers),
                                     &out);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("pages in"), std::string::npos) << out;
  // One answer per page read, in input order, though batches are read while
  // the one before is in flight.
  std::vector<std::string> urls;
  {
    auto source = OpenDocumentSource({sample}, SourceOptions(), nullptr, nullptr);
    ASSERT_TRUE(source.ok()) << source.status().ToString();
    Document d;
    while ((*source)->Next(&d)) urls.push_back(d.url);
  }
  std::vector<std::string> answered;
  {
    std::istringstream lines(testing::ReadFileOrEmpty(answers));
    for (std::string line; std::getline(lines, line);) {
      const auto j = nlohmann::json::parse(line);
      answered.push_back(j.at("url").get<std::string>());
      EXPECT_NE(j.at("role").get<std::string>(), "error") << line;
    }
  }
  ASSERT_GT(urls.size(), 14u);
  EXPECT_EQ(answered, urls);
  // warcio's example holds a response and a revisit of it: the revisit is
  // read and not sent, so the page stays as the response made it.
  const std::string revisits = dir + "/revisits.ndjson";
  ASSERT_EQ(testing::RunCommand(testing::Q(testing::CliPath()) + " ingest " +
                                    testing::Q(testing::RepoTestDataDir() + "/warc/example.warc.gz") +
                                    " --server http://127.0.0.1:" + std::to_string(port) + " --answers " +
                                    testing::Q(revisits),
                                &out),
            0)
      << out;
  EXPECT_NE(out.find("1 pages in 1 requests"), std::string::npos) << out;
  EXPECT_NE(out.find("1 revisit records not sent"), std::string::npos) << out;
  EXPECT_EQ(nlohmann::json::parse(testing::ReadFileOrEmpty(revisits)).at("role"), "keep");
  // A revisit of another URL (a URL-agnostic one) is sent, and the service
  // places it with the content of the page it names.
  const std::string agnostic = dir + "/agnostic.jsonl";
  {
    std::ofstream f(agnostic);
    f << R"({"url": "https://g.example/story", "html": "<p>)" << std::string(40, 'w') << R"( one story told once</p>"})"
      << "\n"
      << R"({"url": "https://h.example/elsewhere/story", "revisit_of": "https://g.example/story"})" << "\n";
  }
  const std::string agnostic_answers = dir + "/agnostic.ndjson";
  ASSERT_EQ(testing::RunCommand(testing::Q(testing::CliPath()) + " ingest " + testing::Q(agnostic) +
                                    " --server http://127.0.0.1:" + std::to_string(port) + " --answers " +
                                    testing::Q(agnostic_answers),
                                &out),
            0)
      << out;
  EXPECT_NE(out.find("1 revisits of other URLs sent"), std::string::npos) << out;
  const auto agnostic_lines = Lines(testing::ReadFileOrEmpty(agnostic_answers));
  ASSERT_EQ(agnostic_lines.size(), 2u);
  EXPECT_EQ(agnostic_lines[0].at("role"), "keep");
  EXPECT_EQ(agnostic_lines[1].at("url"), "https://h.example/elsewhere/story");
  EXPECT_EQ(agnostic_lines[1].at("role"), "duplicate");
  EXPECT_EQ(agnostic_lines[1].at("group"), agnostic_lines[0].at("group"));
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << testing::ReadFileOrEmpty(log);
  ASSERT_EQ(testing::RunCommand(testing::Q(testing::CliPath()) + " export --store " + testing::Q(store) + " --out " +
                                    testing::Q(dir + "/export"),
                                &out),
            0)
      << out;
  const auto rows = testing::ReadTsvRows(dir + "/export/clusters.tsv");
  ASSERT_GT(rows.size(), 10u);
  EXPECT_EQ(rows[0].size(), 8u);
  const std::string summary = testing::ReadFileOrEmpty(dir + "/export/summary.json");
  EXPECT_NE(summary.find("\"command\": \"export\""), std::string::npos) << summary;
  // Another method on the same store is refused with the store's method named.
  EXPECT_NE(testing::RunCommand(testing::Q(testing::CliPath()) + " serve --store " + testing::Q(store) +
                                    " --method broder --listen 127.0.0.1:0",
                                &out),
            0);
  EXPECT_NE(out.find("was made with method"), std::string::npos) << out;
}

}  // namespace
}  // namespace neardup
