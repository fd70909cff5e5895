// Copyright neardup authors. Licensed under Apache-2.0.
//
// Paths as the Env sees them: plain strings joined with '/'.
#ifndef NEARDUP_BASE_PATH_H_
#define NEARDUP_BASE_PATH_H_

#include <string>
#include <string_view>

namespace neardup {

// `dir`/`name`; `name` alone when dir is empty; no doubled '/'.
inline std::string JoinPath(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

// The last component of `path` (after its last '/'); `path` when it has none.
inline std::string Basename(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Whether the name `path` ends in `lower_suffix` (lower case, e.g.
// ".warc.gz"), ASCII letter case aside.
inline bool NameEndsWith(std::string_view path, std::string_view lower_suffix) {
  if (path.size() < lower_suffix.size()) return false;
  const std::string_view tail = path.substr(path.size() - lower_suffix.size());
  for (size_t i = 0; i < tail.size(); ++i) {
    const char c = tail[i] >= 'A' && tail[i] <= 'Z' ? static_cast<char>(tail[i] - 'A' + 'a') : tail[i];
    if (c != lower_suffix[i]) return false;
  }
  return true;
}

}  // namespace neardup

#endif  // NEARDUP_BASE_PATH_H_
