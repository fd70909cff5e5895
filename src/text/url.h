// Copyright neardup authors. Licensed under Apache-2.0.
//
// URL references by RFC 3986 (Berners-Lee, Fielding, Masinter, "Uniform
// Resource Identifier (URI): Generic Syntax"): splitting (Appendix B),
// reference resolution (§5.2, with remove_dot_segments of §5.2.4) and
// syntax-based normalisation (§6.2.2). Used by the tokenizer for links and the
// IMG-term rule, and by later modules that compare URLs and hosts.
//
// These functions work on bytes: they neither percent-encode non-ASCII nor
// apply IDNA; a URL is what the page wrote, after the caller has trimmed it.
// All are pure functions, thread-safe, linear in the input length.
#ifndef NEARDUP_TEXT_URL_H_
#define NEARDUP_TEXT_URL_H_

#include <string>
#include <string_view>

#include "neardup/status.h"

namespace neardup {

// The five components of RFC 3986 Appendix B. Views point into the parsed
// string; has_* tell an empty component ("http://h/?") from an absent one.
struct UrlParts {
  std::string_view scheme;     // without ':'
  std::string_view authority;  // without "//"
  std::string_view path;
  std::string_view query;      // without '?'
  std::string_view fragment;   // without '#'
  bool has_scheme = false;
  bool has_authority = false;
  bool has_query = false;
  bool has_fragment = false;
};

// Splits `url` into its components. Never fails: every string is a URI
// reference by Appendix B's regular expression. A scheme must start with a
// letter and hold only letters, digits, '+', '-', '.'; otherwise the text
// before ':' is part of the path (so "a:b/c" has a scheme, "1a:b" does not).
UrlParts SplitUrl(std::string_view url);

// RFC 3986 §5.2.4: removes "." and ".." segments from an absolute or relative
// path ("/a/b/c/./../../g" -> "/a/g").
std::string RemoveDotSegments(std::string_view path);

// RFC 3986 §5.2.2 (strict: a reference with a scheme is used as is) with
// §5.3 recomposition. Writes the target URI into *out (replacing its content)
// and returns true; returns false, leaving *out unspecified, when `ref` is
// relative and `base` has no scheme (no absolute URL can be formed).
// REQUIRES: out != nullptr. Reuses out's capacity (no allocation when large
// enough), for the tokenizer's hot path.
bool ResolveUrlTo(std::string_view base, std::string_view ref, std::string* out);

// The same over already split URLs (the tokenizer splits its base once).
// `base` is not read when `ref` has a scheme. REQUIRES: *out does not hold
// the bytes the views point into.
bool ResolveUrlTo(const UrlParts& base, const UrlParts& ref, std::string* out);

// Same as ResolveUrlTo, as a Result: InvalidArgument when no absolute URL can
// be formed.
Result<std::string> ResolveUrl(std::string_view base, std::string_view ref);

// The host of an absolute URL ("http://User@WWW.Example.com:8080/x" ->
// "www.example.com"): lower-cased (ASCII only), without userinfo, port, or
// the brackets of an IPv6 literal, and without one trailing dot. Empty when
// the URL has no authority.
std::string UrlHost(std::string_view url);
// UrlHost(url) == lower_host for parts = SplitUrl(url), without a copy.
bool UrlHostIs(const UrlParts& parts, std::string_view lower_host);

// Syntax-based normalisation, RFC 3986 §6.2.2, plus the scheme-based rules of
// §6.2.3 for http, https and ftp: scheme and host lower-cased; percent-escapes
// upper-cased, and decoded where they encode an unreserved character (a '%'
// that starts no escape becomes "%25", which keeps the function idempotent);
// dot-segments removed; the default port (:80, :443, :21) and an empty port
// dropped; an empty path with an authority becomes "/"; the fragment
// dropped (it names a part of the same resource). Two URLs that differ only
// in these ways normalise to the same string.
std::string NormalizeUrl(std::string_view url);

}  // namespace neardup

#endif  // NEARDUP_TEXT_URL_H_
