#include "test_util.h"

#include <zlib.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <vector>
#include <sys/wait.h>
#include <unistd.h>

#include "neardup/env.h"

namespace neardup::testing {

namespace fs = std::filesystem;

std::string RepoTestDataDir() { return std::string(NEARDUP_SOURCE_DIR) + "/tests/data"; }

std::string SharedDataDir() {
  if (const char* env = std::getenv("NEARDUP_SHARED_DATA"); env && *env) {
    return fs::is_directory(env) ? std::string(env) : std::string();
  }
  fs::path p = fs::path(NEARDUP_SOURCE_DIR).parent_path() / "shared" / "data";
  return fs::is_directory(p) ? p.string() : std::string();
}

const char* SharedDataSkipMessage() {
  return "shared real-data folder not found (expected `shared/data` beside the "
         "repository, or set NEARDUP_SHARED_DATA); skipping this real-data test";
}

namespace {
// The folders MakeTempDir made in this process.
std::vector<std::string>& MadeTempDirs() {
  static std::vector<std::string> dirs;
  return dirs;
}
std::mutex& MadeTempDirsMutex() {
  static std::mutex mu;
  return mu;
}
// At exit: the folders go when every test passed, unless
// NEARDUP_KEEP_TEST_DIRS is set; a failed run keeps them for inspection.
void RemoveMadeTempDirs() {
  if (std::getenv("NEARDUP_KEEP_TEST_DIRS") != nullptr || !::testing::UnitTest::GetInstance()->Passed()) return;
  std::lock_guard<std::mutex> lock(MadeTempDirsMutex());
  for (const std::string& dir : MadeTempDirs()) {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
}
}  // namespace

std::string MakeTempDir(const std::string& prefix) {
  static std::atomic<int> counter{0};
  fs::path base = fs::temp_directory_path() /
                  ("neardup-" + prefix + "-" + std::to_string(::getpid()) + "-" +
                   std::to_string(counter++));
  fs::remove_all(base);
  fs::create_directories(base);
  {
    std::lock_guard<std::mutex> lock(MadeTempDirsMutex());
    std::vector<std::string>& dirs = MadeTempDirs();
    // Registered after the list exists, so that it runs before the list is
    // destroyed (exit runs them in the reverse order).
    static const bool registered = (std::atexit(RemoveMadeTempDirs), true);
    (void)registered;
    dirs.push_back(base.string());
  }
  return base.string();
}

std::string ReadFileOrEmpty(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFileOrDie(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::abort();
  }
}

size_t CountFilesBelow(Env* env, const std::string& dir) {
  auto files = env->ListFilesRecursive(dir);
  return files.ok() ? files->size() : 0;
}

std::string GunzipFileOrDie(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) {
    std::fprintf(stderr, "cannot open %s\n", path.c_str());
    std::abort();
  }
  std::string out;
  char buf[65536];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  gzclose(f);
  return out;
}

std::string JsonLine(const std::string& url, const std::string& field, const std::string& body) {
  nlohmann::json j;
  j["url"] = url;
  j[field] = body;
  return j.dump() + "\n";
}

std::vector<std::vector<std::string>> ReadTsvRows(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(ReadFileOrEmpty(path));
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    size_t start = 0;
    for (;;) {
      const size_t tab = line.find('\t', start);
      fields.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
    rows.push_back(std::move(fields));
  }
  return rows;
}

std::string CliPath() { return NEARDUP_CLI_PATH; }

int RunCommand(const std::string& command, std::string* output) {
  std::string full = command + " 2>&1";
  FILE* p = popen(full.c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  size_t n;
  if (output) output->clear();
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) {
    if (output) output->append(buf, n);
  }
  int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace neardup::testing
