// Copyright neardup authors. Licensed under Apache-2.0.
//
// Whole-file helpers over Env shared by the analysis and crawls modules
// (internal).
#ifndef NEARDUP_ANALYSIS_FILES_H_
#define NEARDUP_ANALYSIS_FILES_H_

#include <string>

#include "base/path.h"
#include "neardup/env.h"
#include "neardup/status.h"

namespace neardup {

// Creates or truncates `path` and writes `content` to it; IOError "cannot
// write PATH: reason" on failure.
Status WriteWholeFile(const std::string& path, const std::string& content, Env* env);

}  // namespace neardup

#endif  // NEARDUP_ANALYSIS_FILES_H_
