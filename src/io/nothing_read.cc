// Copyright neardup authors. Licensed under Apache-2.0.
//
// FirstWarnings and NothingReadLine (include/neardup/source.h): the one
// error line every front end prints when a run reads nothing usable.
#include <algorithm>
#include <string>
#include <vector>

#include "base/digits.h"
#include "neardup/source.h"

namespace neardup {

std::string DescribeWarning(const ReadWarning& w) {
  std::string detail = w.message;
  // Messages of failed opens repeat the file: "NotFound: FILE: reason".
  const std::string with_file = w.file + ": ";
  if (const size_t p = detail.find(with_file); p != std::string::npos && p <= 32) {
    detail = detail.substr(p + with_file.size());
  }
  if (w.reason_key == "unreadable-file") return "cannot open (" + detail + ")";
  return w.reason_key + " (" + detail + ")";
}

void FirstWarnings::OnWarning(const ReadWarning& warning) {
  ++seen_;
  if (first_per_file_.size() < kNamedFiles &&
      std::none_of(first_per_file_.begin(), first_per_file_.end(),
                   [&](const ReadWarning& f) { return f.file == warning.file; })) {
    first_per_file_.push_back(warning);
  }
  if (next_ != nullptr) next_->OnWarning(warning);
}

namespace {

// " a, b, c"
std::string Endings(const std::vector<std::string>& list) {
  std::string text;
  for (const std::string& ext : list) text += (text.empty() ? " " : ", ") + ext;
  return text;
}

}  // namespace

std::string NothingReadLine(const std::vector<std::string>& inputs, const FirstWarnings& warnings,
                            const ReadStats& stats, const SourceOptions& options, std::string_view warnings_where) {
  std::string line = "no usable document could be read";
  const std::vector<ReadWarning>& named = warnings.first_per_file();
  if (!named.empty()) {
    // The files and why (first warning of up to kNamedFiles files), then
    // how many more and where they are.
    for (size_t i = 0; i < named.size(); ++i) {
      line += (i == 0 ? ": " : "; ") + named[i].file + ": " + DescribeWarning(named[i]);
    }
    const uint64_t rest = warnings.seen() - named.size();
    if (rest > 0) {
      line += "; " + WithCommas(rest) + " more warning" + (rest == 1 ? "" : "s");
      if (!warnings_where.empty()) line += ", see " + std::string(warnings_where);
    }
    return line;
  }
  line += " from the " + std::to_string(inputs.size()) + " input" + (inputs.size() == 1 ? "" : "s");
  // Nothing damaged: say what was passed over by design.
  std::string passed;
  for (const auto& [key, count] : stats.skipped) {
    passed += (passed.empty() ? "" : ", ") + WithCommas(count) + " " + key;
  }
  if (stats.skipped.contains("folder-file-left-out")) {
    passed += " (a folder's files are read when named" + Endings(options.folder_extensions) + " (also .gz), or" +
              Endings(CrawlFileEndings()) + " (also .gz or .zst))";
  }
  if (!passed.empty()) return line + ": records and files skipped: " + passed;
  // Nothing passed over either: the inputs hold no record at all.
  std::string names;
  for (size_t i = 0; i < inputs.size() && i < FirstWarnings::kNamedFiles; ++i) {
    names += (i == 0 ? "" : ", ") + (inputs[i] == "-" ? std::string("standard input") : inputs[i]);
  }
  if (inputs.size() > FirstWarnings::kNamedFiles) names += ", ...";
  line += " (" + names + "): ";
  line += stats.records == 0 ? (inputs.size() == 1 ? "it holds no record" : "they hold no record")
                             : WithCommas(stats.records) + " records, none a page";
  return line;
}

}  // namespace neardup
