// Copyright neardup authors. Licensed under Apache-2.0.
//
// summary.json of `neardup dedup`: one JSON object (options, counts, stage
// timings, method-specific tables), written indented by two spaces with a
// final newline. Thread-safe (no state).
#ifndef NEARDUP_OUTPUT_SUMMARY_FILE_H_
#define NEARDUP_OUTPUT_SUMMARY_FILE_H_

#include <string>

#include <nlohmann/json.hpp>

#include "neardup/env.h"
#include "neardup/status.h"

namespace neardup {

// Writes `summary` to PATH.tmp and renames it to `path`, so the file exists
// under its name only when complete. Errors: IOError "cannot write PATH:
// reason" (PATH.tmp is removed). REQUIRES: env != nullptr.
Status WriteSummaryJson(Env* env, const std::string& path, const nlohmann::ordered_json& summary);

// The object in `path`. Errors: NotFound / IOError "cannot read PATH:
// reason"; Corruption "PATH: not valid JSON: <parser's message>" or "PATH:
// not a JSON object". REQUIRES: env != nullptr.
Result<nlohmann::json> ReadSummaryJson(Env* env, const std::string& path);

}  // namespace neardup

#endif  // NEARDUP_OUTPUT_SUMMARY_FILE_H_
