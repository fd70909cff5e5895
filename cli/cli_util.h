// Helpers shared by the CLI's commands: exit codes, number and size
// formatting, size parsing, warnings on stderr.
#ifndef NEARDUP_CLI_CLI_UTIL_H_
#define NEARDUP_CLI_CLI_UTIL_H_

#include <algorithm>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "neardup/source.h"

namespace neardup_cli {

constexpr int kExitOk = 0;
constexpr int kExitNoData = 1;
constexpr int kExitUsage = 2;

// 1234567 -> "1,234,567" (built forward: GCC 12 gives a false -Wrestrict
// warning on std::string::insert here).
// The process's resident memory now and at its peak, in bytes (0 where
// /proc or getrusage cannot tell): DedupOptions::memory_probe. The library
// reads no process state; the CLI measures and passes it.
inline void ProcessMemory(uint64_t* resident_bytes, uint64_t* peak_resident_bytes) {
  *resident_bytes = 0;
  *peak_resident_bytes = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    unsigned long long pages_total = 0, pages_resident = 0;
    if (std::fscanf(f, "%llu %llu", &pages_total, &pages_resident) == 2) {
      *resident_bytes = pages_resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    }
    std::fclose(f);
  }
  struct rusage ru {};
  if (getrusage(RUSAGE_SELF, &ru) == 0) *peak_resident_bytes = static_cast<uint64_t>(ru.ru_maxrss) * 1024;
}

inline std::string WithCommas(uint64_t v) {
  const std::string digits = std::to_string(v);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

inline std::string HumanBytes(double b) {
  char buf[32];
  if (b >= 1e9) {
    std::snprintf(buf, sizeof buf, "%.2f GB", b / 1e9);
  } else if (b >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.1f MB", b / 1e6);
  } else if (b >= 1e3) {
    std::snprintf(buf, sizeof buf, "%.1f kB", b / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f B", b);
  }
  return buf;
}

// Parses sizes such as 64M, 2G, 512k, 1000 (bytes).
inline bool ParseSize(const std::string& text, uint64_t* out) {
  if (text.empty()) return false;
  size_t pos = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(text, &pos);
  } catch (...) {
    return false;
  }
  std::string suffix = text.substr(pos);
  uint64_t mult = 1;
  if (suffix.empty() || suffix == "B") {
    mult = 1;
  } else if (suffix == "k" || suffix == "K" || suffix == "KiB" || suffix == "KB") {
    mult = 1ull << 10;
  } else if (suffix == "M" || suffix == "MiB" || suffix == "MB") {
    mult = 1ull << 20;
  } else if (suffix == "G" || suffix == "GiB" || suffix == "GB") {
    mult = 1ull << 30;
  } else {
    return false;
  }
  *out = v * mult;
  return true;
}

// Prints warnings on stderr (up to `limit`, none when quiet) and keeps the
// first warning of each of the first kNamedFiles files that had one, for the
// error line when nothing usable was read.
class StderrObserver final : public neardup::ReadObserver {
 public:
  // `rest` says where the warnings not printed are (after "neardup: more
  // warnings follow; they are not shown but ").
  StderrObserver(bool quiet, uint64_t limit,
                 std::string rest = "are all in warnings.tsv and counted in summary.json")
      : quiet_(quiet), limit_(limit), rest_(std::move(rest)) {}
  void OnWarning(const neardup::ReadWarning& w) override {
    first_.OnWarning(w);
    if (quiet_) return;
    if (first_.seen() <= limit_) {
      std::fprintf(stderr, "%sneardup: warning: %s: %s %llu: %s: %s\n", progress_line_ ? "\n" : "",
                   w.file.c_str(),
                   w.in_decompressed_stream ? "decompressed offset" : "offset",
                   static_cast<unsigned long long>(w.offset), w.reason_key.c_str(),
                   w.message.c_str());
      progress_line_ = false;
    } else if (first_.seen() == limit_ + 1) {
      std::fprintf(stderr, "neardup: more warnings follow; they are not shown but %s\n", rest_.c_str());
    }
  }
  void set_progress_line(bool v) { progress_line_ = v; }
  uint64_t seen() const { return first_.seen(); }
  // What the error line of a run that read nothing usable names
  // (neardup::NothingReadLine).
  const neardup::FirstWarnings& first_warnings() const { return first_; }

 private:
  bool quiet_;
  uint64_t limit_;
  std::string rest_;
  neardup::FirstWarnings first_;
  bool progress_line_ = false;
};

}  // namespace neardup_cli

#endif  // NEARDUP_CLI_CLI_UTIL_H_
