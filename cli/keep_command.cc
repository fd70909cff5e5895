// neardup keep DIR --out FILE: the pages a dedup run kept (one for each
// cluster and every page in none), or with --duplicates the pages it set
// aside, written out as JSON Lines or WARC (WriteKeptPages,
// include/neardup/kept_pages.h).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli_util.h"
#include "commands.h"
#include "neardup/kept_pages.h"

namespace neardup_cli {

namespace {

struct KeepArgs {
  std::string dir, out, format;
  std::vector<std::string> inputs;
  bool duplicates = false, annotate = false, quiet = false;
  uint64_t warning_limit = 100;
};

int RunKeep(const KeepArgs& a) {
  neardup::KeptPagesOptions options;
  options.pages = a.duplicates ? neardup::KeptPagesOptions::Pages::kDuplicates : neardup::KeptPagesOptions::Pages::kKept;
  if (a.format.empty()) {
    options.format = neardup::KeptPagesFormatOfName(a.out);
  } else {
    auto format = neardup::ParseKeptPagesFormat(a.format);  // CLI::IsMember checked the name
    if (!format.ok()) {
      std::fprintf(stderr, "neardup keep: error: %s\n", format.status().message().c_str());
      return kExitUsage;
    }
    options.format = *format;
  }
  options.inputs = a.inputs;
  options.annotate = a.annotate;
  StderrObserver observer(a.quiet, a.warning_limit,
                          "are counted below (the run's warnings.tsv lists them: the run met them too)");
  auto result = neardup::WriteKeptPages(a.dir, a.out, options, nullptr, &observer);
  if (!result.ok()) {
    std::fprintf(stderr, "neardup keep: error: %s\n", result.status().message().c_str());
    return result.status().IsInvalidArgument() ? kExitUsage : kExitNoData;
  }
  if (!a.quiet) {
    const neardup::KeptPagesResult& r = result.value();
    std::string lines;
    if (r.from_json_lines > 0) lines = " (" + WithCommas(r.from_json_lines) + " as their JSON lines read)";
    std::fprintf(stderr, "neardup keep: wrote %s %s of %s%s to %s (%s)%s\n", WithCommas(r.written).c_str(),
                 a.duplicates ? "duplicates" : "kept pages", WithCommas(r.rows).c_str(),
                 r.rows == 1 ? " page" : " pages", a.out.c_str(), HumanBytes(static_cast<double>(r.bytes_written)).c_str(),
                 lines.c_str());
    if (observer.seen() > 0) {
      std::fprintf(stderr, "neardup keep: %s warnings reading the inputs (records the run skipped too, not written)\n",
                   WithCommas(observer.seen()).c_str());
    }
  }
  return kExitOk;
}

}  // namespace

Command AddKeepCommand(CLI::App* app) {
  auto args = std::make_shared<KeepArgs>();
  CLI::App* keep = app->add_subcommand(
      "keep",
      "Write the pages a dedup run kept (one for each cluster and every page in none: the "
      "deduplicated collection), or with --duplicates the pages it set aside, as JSON Lines or "
      "WARC. The run's inputs (as summary.json names them, or --input) are read again and must "
      "give clusters.tsv's pages row for row. A page read from JSON Lines is written as its line, "
      "every field kept; any other as {url, html or text (UTF-8), date, status} or, to a .warc "
      "file, as a response record with its payload. An --out ending in .gz or .zst is compressed.");
  keep->add_option("DIR", args->dir, "Output folder of `neardup dedup` (clusters.tsv, summary.json)")->required();
  keep->add_option("-o,--out", args->out,
                   "The file to write: .jsonl (also .gz or .zst) or .warc (.warc.gz: one gzip member a record)")
      ->required();
  keep->add_option("--format", args->format, "jsonl or warc (default: by the name of --out)")
      ->check(CLI::IsMember({"jsonl", "warc"}));
  keep->add_flag("--duplicates", args->duplicates,
                 "Write the pages set aside as duplicates instead of the kept ones");
  keep->add_flag("--annotate", args->annotate,
                 "Each page names its cluster: JSON Lines end each object with \"neardup\": {\"cluster\": ID, "
                 "\"cluster_size\": N} (after the fields of a line read), WARC records carry WARC-Neardup-Cluster "
                 "and WARC-Neardup-Cluster-Size (ID: clusters.tsv's cluster column)");
  keep->add_option("--input,-i", args->inputs,
                   "The run's inputs, in its order, where summary.json's paths do not reach them (another "
                   "folder, moved files)");
  keep->add_flag("--quiet,-q", args->quiet, "Nothing on stderr but errors");
  keep->add_option("--max-warnings", args->warning_limit, "Warnings printed before the rest are only counted")
      ->capture_default_str();
  return {keep, [args] { return RunKeep(*args); }};
}

}  // namespace neardup_cli
