// Helpers shared by tests: where test data lives, temp dirs.
#ifndef NEARDUP_TESTS_TEST_UTIL_H_
#define NEARDUP_TESTS_TEST_UTIL_H_

#include <string>
#include <vector>

namespace neardup {
class Env;
}  // namespace neardup

namespace neardup::testing {

// The repository's own test data folder (tests/data), always present.
std::string RepoTestDataDir();

// The shared real-data folder (`shared/data` beside the repository, or
// $NEARDUP_SHARED_DATA). Empty when absent: callers GTEST_SKIP() with
// SharedDataSkipMessage().
std::string SharedDataDir();
const char* SharedDataSkipMessage();

// A fresh empty directory under the system temp dir; unique per call. Every
// such directory is removed when the process exits after all its tests
// passed (kept after a failure, or with NEARDUP_KEEP_TEST_DIRS set).
std::string MakeTempDir(const std::string& prefix);

// Reads a whole file ("" when missing); writes one (aborts on failure).
std::string ReadFileOrEmpty(const std::string& path);
void WriteFileOrDie(const std::string& path, const std::string& data);

// Files below `dir` in `env`, recursively (0 when `dir` does not exist).
size_t CountFilesBelow(Env* env, const std::string& dir);

// Gunzips a .gz file in memory (the shared data stores pages gzipped).
std::string GunzipFileOrDie(const std::string& path);

// One JSON Lines record {"url": url, field: body} with its newline.
std::string JsonLine(const std::string& url, const std::string& field, const std::string& body);

// The rows of a TSV file (header included), each split at tabs.
std::vector<std::vector<std::string>> ReadTsvRows(const std::string& path);

// Path of the built `neardup` CLI binary.
std::string CliPath();

// `s` in single quotes, for a shell command line (paths of the tests hold no
// single quote).
inline std::string Q(const std::string& s) { return "'" + s + "'"; }

// Runs a shell command; returns its exit status and captures stdout+stderr.
int RunCommand(const std::string& command, std::string* output);

}  // namespace neardup::testing

#define NEARDUP_REQUIRE_SHARED_DATA(var)                          \
  std::string var = ::neardup::testing::SharedDataDir();         \
  if (var.empty()) GTEST_SKIP() << ::neardup::testing::SharedDataSkipMessage()

#endif  // NEARDUP_TESTS_TEST_UTIL_H_
