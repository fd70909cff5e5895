// Copyright neardup authors. Licensed under Apache-2.0.
#include "text/url.h"

#include <bit>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace neardup {
namespace {

// The first i in [from, n) with url[i] one of a, b, c, or n; SSE2 (in every
// x86-64) tests 16 bytes a step, elsewhere a byte a step.
size_t FindAnyOf3(std::string_view url, size_t from, char a, char b, char c) {
  size_t i = from;
  const size_t n = url.size();
#if defined(__SSE2__)
  const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b), vc = _mm_set1_epi8(c);
  for (; n - i >= 16; i += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(url.data() + i));
    const __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(x, vb)), _mm_cmpeq_epi8(x, vc));
    const unsigned bits = static_cast<unsigned>(_mm_movemask_epi8(hit));
    if (bits != 0) return i + static_cast<size_t>(std::countr_zero(bits));
  }
#endif
  while (i < n && url[i] != a && url[i] != b && url[i] != c) ++i;
  return i;
}

bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
char LowerAscii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }
int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
bool IsUnreserved(unsigned char c) {
  return IsAlpha(static_cast<char>(c)) || IsDigit(static_cast<char>(c)) || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

// Appends remove_dot_segments(path) (RFC 3986 §5.2.4) to *out.
void AppendWithoutDotSegments(std::string_view in, std::string* out) {
  const size_t out_base = out->size();
  auto remove_last_segment = [&]() {
    size_t slash = out->rfind('/');
    if (slash == std::string::npos || slash < out_base) {
      out->resize(out_base);
    } else {
      out->resize(slash);
    }
  };
  size_t i = 0;
  const size_t n = in.size();
  while (i < n) {
    std::string_view rest = in.substr(i);
    if (rest.starts_with("../")) {          // A
      i += 3;
    } else if (rest.starts_with("./")) {    // A
      i += 2;
    } else if (rest.starts_with("/./")) {   // B: "/./" -> "/"
      i += 2;
    } else if (rest == "/.") {              // B: "/." -> "/"
      out->push_back('/');
      i = n;
    } else if (rest.starts_with("/../")) {  // C: "/../" -> "/", drop last
      i += 3;
      remove_last_segment();
    } else if (rest == "/..") {             // C
      remove_last_segment();
      out->push_back('/');
      i = n;
    } else if (rest == "." || rest == "..") {  // D
      i = n;
    } else {                                // E: move the first segment
      size_t end = in.find('/', i + (in[i] == '/' ? 1 : 0));
      if (end == std::string_view::npos) end = n;
      out->append(in.data() + i, end - i);
      i = end;
    }
  }
}

// Appends remove_dot_segments(path); without an authority a result starting
// with "//" would read back as one, so it is written "/.//..." (as WHATWG).
void AppendPath(std::string_view path, bool has_authority, std::string* out) {
  const size_t start = out->size();
  AppendWithoutDotSegments(path, out);
  if (!has_authority && out->size() - start >= 2 && (*out)[start] == '/' &&
      (*out)[start + 1] == '/') {
    out->insert(start, "/.");
  }
}

void AppendPercentNormalized(std::string_view s, std::string* out) {
  static const char kHex[] = "0123456789ABCDEF";
  for (size_t i = 0; i < s.size(); ++i) {
    // The bytes up to the next '%' are copied as they are, in one append.
    const void* pct = std::memchr(s.data() + i, '%', s.size() - i);
    const size_t next = pct == nullptr ? s.size() : static_cast<size_t>(static_cast<const char*>(pct) - s.data());
    out->append(s.data() + i, next - i);
    i = next;
    if (i == s.size()) break;
    if (i + 2 < s.size()) {  // s[i] is '%'
      int hi = HexValue(s[i + 1]);
      int lo = HexValue(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        unsigned char v = static_cast<unsigned char>(hi * 16 + lo);
        if (IsUnreserved(v)) {
          out->push_back(static_cast<char>(v));
        } else {
          out->push_back('%');
          out->push_back(kHex[hi]);
          out->push_back(kHex[lo]);
        }
        i += 2;
        continue;
      }
    }
    out->append("%25");  // a stray '%' would otherwise pair with decoded bytes next time
  }
}

// Splits an authority into host and port views (userinfo dropped).
void SplitAuthority(std::string_view authority, std::string_view* userinfo,
                    std::string_view* host, std::string_view* port, bool* has_port) {
  size_t at = authority.rfind('@');
  *userinfo = std::string_view();
  if (at != std::string_view::npos) {
    *userinfo = authority.substr(0, at);
    authority = authority.substr(at + 1);
  }
  *has_port = false;
  *port = std::string_view();
  if (!authority.empty() && authority[0] == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) {
      *host = authority;
      return;
    }
    *host = authority.substr(0, close + 1);
    std::string_view rest = authority.substr(close + 1);
    if (!rest.empty() && rest[0] == ':') {
      *has_port = true;
      *port = rest.substr(1);
    }
    return;
  }
  size_t colon = authority.find(':');
  if (colon == std::string_view::npos) {
    *host = authority;
  } else {
    *host = authority.substr(0, colon);
    *has_port = true;
    *port = authority.substr(colon + 1);
  }
}

}  // namespace

UrlParts SplitUrl(std::string_view url) {
  // ^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?
  UrlParts parts;
  size_t i = 0;
  const size_t n = url.size();
  // Scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":".
  if (n > 0 && IsAlpha(url[0])) {
    size_t j = 1;
    while (j < n && (IsAlpha(url[j]) || IsDigit(url[j]) || url[j] == '+' || url[j] == '-' ||
                     url[j] == '.')) {
      ++j;
    }
    if (j < n && url[j] == ':') {
      parts.scheme = url.substr(0, j);
      parts.has_scheme = true;
      i = j + 1;
    }
  }
  // Hand-written scans (string_view::find_first_of is a memchr per byte).
  if (n - i >= 2 && url[i] == '/' && url[i + 1] == '/') {
    size_t start = i + 2;
    size_t end = FindAnyOf3(url, start, '/', '?', '#');
    parts.authority = url.substr(start, end - start);
    parts.has_authority = true;
    i = end;
  }
  size_t path_end = FindAnyOf3(url, i, '?', '#', '#');
  parts.path = url.substr(i, path_end - i);
  i = path_end;
  if (i < n && url[i] == '?') {
    size_t end = i + 1;
    while (end < n && url[end] != '#') ++end;
    parts.query = url.substr(i + 1, end - i - 1);
    parts.has_query = true;
    i = end;
  }
  if (i < n && url[i] == '#') {
    parts.fragment = url.substr(i + 1);
    parts.has_fragment = true;
  }
  return parts;
}

std::string RemoveDotSegments(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  AppendWithoutDotSegments(path, &out);
  return out;
}

bool ResolveUrlTo(std::string_view base, std::string_view ref, std::string* out) {
  const UrlParts r = SplitUrl(ref);
  if (r.has_scheme) return ResolveUrlTo(UrlParts(), r, out);  // base unused
  return ResolveUrlTo(SplitUrl(base), r, out);
}

bool ResolveUrlTo(const UrlParts& b, const UrlParts& r, std::string* out) {
  out->clear();
  auto append_query_fragment = [&](bool has_query, std::string_view query) {
    if (has_query) {
      out->push_back('?');
      out->append(query);
    }
    if (r.has_fragment) {
      out->push_back('#');
      out->append(r.fragment);
    }
  };
  if (r.has_scheme) {
    out->append(r.scheme);
    out->push_back(':');
    if (r.has_authority) {
      out->append("//");
      out->append(r.authority);
    }
    AppendPath(r.path, r.has_authority, out);
    append_query_fragment(r.has_query, r.query);
    return true;
  }
  if (!b.has_scheme) return false;
  out->append(b.scheme);
  out->push_back(':');
  if (r.has_authority) {
    out->append("//");
    out->append(r.authority);
    AppendPath(r.path, true, out);
    append_query_fragment(r.has_query, r.query);
    return true;
  }
  if (b.has_authority) {
    out->append("//");
    out->append(b.authority);
  }
  if (r.path.empty()) {
    out->append(b.path);
    if (r.has_query) {
      append_query_fragment(true, r.query);
    } else {
      append_query_fragment(b.has_query, b.query);
    }
    return true;
  }
  if (r.path[0] == '/') {
    AppendPath(r.path, b.has_authority, out);
  } else {
    // §5.2.3 merge, then remove_dot_segments over the merged path.
    thread_local std::string merged;  // reused: no allocation per call
    merged.clear();
    if (b.has_authority && b.path.empty()) {
      merged.push_back('/');
    } else {
      size_t slash = b.path.rfind('/');
      if (slash != std::string_view::npos) merged.assign(b.path.substr(0, slash + 1));
    }
    merged.append(r.path);
    AppendPath(merged, b.has_authority, out);
  }
  append_query_fragment(r.has_query, r.query);
  return true;
}

Result<std::string> ResolveUrl(std::string_view base, std::string_view ref) {
  std::string out;
  if (!ResolveUrlTo(base, ref, &out)) {
    return Status::InvalidArgument("relative URL reference without an absolute base URL");
  }
  return out;
}

namespace {

// The host of a split URL as written: no userinfo, port, IPv6 brackets or
// trailing dot; empty without an authority.
std::string_view HostAsWritten(const UrlParts& p) {
  if (!p.has_authority) return {};
  std::string_view userinfo, host, port;
  bool has_port = false;
  SplitAuthority(p.authority, &userinfo, &host, &port, &has_port);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (!host.empty() && host.back() == '.') host.remove_suffix(1);
  return host;
}

}  // namespace

std::string UrlHost(std::string_view url) {
  std::string out(HostAsWritten(SplitUrl(url)));
  for (char& c : out) c = LowerAscii(c);
  return out;
}

bool UrlHostIs(const UrlParts& parts, std::string_view lower_host) {
  const std::string_view host = HostAsWritten(parts);
  if (host.size() != lower_host.size()) return false;
  for (size_t i = 0; i < host.size(); ++i) {
    if (LowerAscii(host[i]) != lower_host[i]) return false;
  }
  return true;
}

std::string NormalizeUrl(std::string_view url) {
  UrlParts p = SplitUrl(url);
  std::string out;
  out.reserve(url.size() + 1);
  std::string scheme(p.scheme);
  for (char& c : scheme) c = LowerAscii(c);
  if (p.has_scheme) {
    out.append(scheme);
    out.push_back(':');
  }
  if (p.has_authority) {
    out.append("//");
    std::string_view userinfo, host, port;
    bool has_port = false;
    SplitAuthority(p.authority, &userinfo, &host, &port, &has_port);
    if (p.authority.find('@') != std::string_view::npos) {
      AppendPercentNormalized(userinfo, &out);
      out.push_back('@');
    }
    size_t host_start = out.size();
    AppendPercentNormalized(host, &out);
    for (size_t i = host_start; i < out.size(); ++i) out[i] = LowerAscii(out[i]);
    bool default_port = (scheme == "http" && port == "80") ||
                        (scheme == "https" && port == "443") || (scheme == "ftp" && port == "21");
    if (has_port && !port.empty() && !default_port) {
      out.push_back(':');
      out.append(port);
    }
  }
  std::string path;
  path.reserve(p.path.size());
  AppendPercentNormalized(p.path, &path);
  if (p.has_scheme || p.has_authority || (!path.empty() && path[0] == '/')) {
    AppendPath(path, p.has_authority, &out);
  } else {
    out.append(path);  // a relative-path reference keeps its leading dots
  }
  if (p.has_authority && p.path.empty()) out.push_back('/');
  if (p.has_query) {
    out.push_back('?');
    AppendPercentNormalized(p.query, &out);
  }
  return out;
}

}  // namespace neardup
