// Copyright neardup authors. Licensed under Apache-2.0.
//
// The input bytes are a dedup output folder: clusters.tsv, pairs.tsv and
// summary.json, separated by NUL bytes (missing parts are missing files), in
// a MemEnv. Properties: loading never crashes; when clusters.tsv loads, the
// report, its JSON and HTML, and mirrors are computed without a crash, and
// the report counts every valid row once.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "analysis/analysis.h"
#include "neardup/env.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string in(reinterpret_cast<const char*>(data), size);
  neardup::MemEnv env;
  const char* names[] = {"run/clusters.tsv", "run/pairs.tsv", "run/summary.json"};
  size_t start = 0;
  for (int part = 0; part < 3 && start <= in.size(); ++part) {
    size_t end = in.find('\0', start);
    if (end == std::string::npos) end = in.size();
    env.AddFile(names[part], in.substr(start, end - start));
    start = end + 1;
  }
  auto run = neardup::LoadDedupRun("run", &env);
  if (!run.ok()) return 0;
  neardup::ReportOptions options;
  auto report = neardup::ComputeRunReport(run.value(), options);
  if (!report.ok()) return 0;
  if (report.value().documents != run.value().clusters.size()) std::abort();
  (void)neardup::RunReportJson(run.value(), report.value(), options);
  (void)neardup::RunReportHtml(run.value(), report.value(), options);
  neardup::MirrorOptions mirror_options;
  mirror_options.min_host_pages = 1;
  mirror_options.min_common_pages = 1;
  (void)neardup::MirrorsTsv(neardup::FindMirrors(run.value().clusters, mirror_options));
  return 0;
}
