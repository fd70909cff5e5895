// Copyright neardup authors. Licensed under Apache-2.0.
//
// Paths as the Env sees them: plain strings joined with '/'.
#ifndef NEARDUP_BASE_PATH_H_
#define NEARDUP_BASE_PATH_H_

#include <string>

namespace neardup {

// `dir`/`name`; `name` alone when dir is empty; no doubled '/'.
inline std::string JoinPath(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

}  // namespace neardup

#endif  // NEARDUP_BASE_PATH_H_
