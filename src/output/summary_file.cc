// Copyright neardup authors. Licensed under Apache-2.0.
#include "output/summary_file.h"

#include <utility>

namespace neardup {

Status WriteSummaryJson(Env* env, const std::string& path, const nlohmann::ordered_json& summary) {
  NEARDUP_CHECK(env != nullptr);
  const std::string tmp = path + ".tmp";
  const std::string text = summary.dump(2) + "\n";
  auto file = env->NewWritableFile(tmp);
  Status s = file.ok() ? file.value()->Append(text) : file.status();
  if (s.ok()) s = file.value()->Close();
  if (s.ok()) s = env->RenameFile(tmp, path);
  if (!s.ok()) {
    if (file.ok()) (void)env->RemoveFile(tmp);
    return Status::IOError("cannot write " + path + ": " + s.message());
  }
  return Status::OK();
}

Result<nlohmann::json> ReadSummaryJson(Env* env, const std::string& path) {
  NEARDUP_CHECK(env != nullptr);
  auto text = ReadFileToString(env, path);
  if (!text.ok()) {
    const Status& s = text.status();
    const std::string msg = "cannot read " + path + ": " + s.message();
    return s.IsNotFound() ? Status::NotFound(msg) : Status::IOError(msg);
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(*text);
  } catch (const nlohmann::json::exception& e) {
    return Status::Corruption(path + ": not valid JSON: " + e.what());
  }
  if (!j.is_object()) return Status::Corruption(path + ": not a JSON object");
  return j;
}

}  // namespace neardup
