// Copyright neardup authors. Licensed under Apache-2.0.
//
// Bytes -> (base, reference) split at the first '\n' -> ResolveUrlTo,
// UrlHost, NormalizeUrl. Checks: resolution against an absolute base always
// succeeds and yields a URL with the base's scheme (or the reference's);
// the result has no "." or ".." path segments left (when the reference
// has a path); NormalizeUrl is
// idempotent.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "text/url.h"

namespace {

void Check(bool cond, const char* what) {
  if (!cond) {
    std::fprintf(stderr, "url_resolve_fuzzer: invariant failed: %s\n", what);
    std::abort();
  }
}

bool HasDotSegment(std::string_view path) {
  if (path.starts_with("/.//")) path.remove_prefix(2);  // the "//" guard of AppendPath
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view seg = path.substr(start, end - start);
    if (seg == "." || seg == "..") return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  size_t nl = in.find('\n');
  std::string_view base = nl == std::string_view::npos ? std::string_view("http://a/b/c/d;p?q")
                                                        : in.substr(0, nl);
  std::string_view ref = nl == std::string_view::npos ? in : in.substr(nl + 1);
  std::string out;
  const bool base_absolute = neardup::SplitUrl(base).has_scheme;
  const bool ok = neardup::ResolveUrlTo(base, ref, &out);
  Check(ok || !base_absolute, "resolution against an absolute base succeeds");
  if (ok) {
    neardup::UrlParts parts = neardup::SplitUrl(out);
    Check(parts.has_scheme, "result is absolute");
    // (An empty reference path keeps the base's path as it is.)
    const bool ref_has_path = !neardup::SplitUrl(ref).path.empty();
    if (ref_has_path && (parts.has_authority || (!parts.path.empty() && parts.path[0] == '/'))) {
      Check(!HasDotSegment(parts.path), "no dot segments left");
    }
    (void)neardup::UrlHost(out);
    std::string n1 = neardup::NormalizeUrl(out);
    std::string n2 = neardup::NormalizeUrl(n1);
    Check(n1 == n2, "NormalizeUrl idempotent");
  }
  return 0;
}
