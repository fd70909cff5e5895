// Copyright neardup authors. Licensed under Apache-2.0.
#include "engine/redirects.h"

#include <xxhash.h>

#include <algorithm>
#include <string>

#include "text/url.h"

namespace neardup {

bool IsRedirect(const Document& doc) {
  return doc.http_status >= 300 && doc.http_status < 400 && !doc.redirect_target.empty();
}

std::string RedirectTargetUrl(std::string_view url, std::string_view location) {
  std::string target;
  if (!ResolveUrlTo(url, location, &target)) target.assign(location);
  const UrlParts p = SplitUrl(target);
  if (!p.has_fragment && !(p.has_authority && p.path.empty())) return target;
  std::string out;
  if (p.has_scheme) out.append(p.scheme).push_back(':');
  if (p.has_authority) out.append("//").append(p.authority);
  out.append(p.has_authority && p.path.empty() ? std::string_view("/") : p.path);
  if (p.has_query) out.append("?").append(p.query);
  return out;
}

bool IsRevisit(const Document& doc) { return !doc.revisit_of.empty() && !IsRedirect(doc); }

uint64_t CaptureKey(uint64_t url_key, int64_t fetch_time) {
  const uint64_t words[2] = {url_key, static_cast<uint64_t>(fetch_time)};
  return UrlKeyOfHash(XXH3_64bits(words, sizeof words));
}

uint64_t RedirectKey(const Document& doc) {
  if (IsRedirect(doc)) {
    const std::string target = RedirectTargetUrl(doc.url, doc.redirect_target);
    return UrlKeyOfHash(XXH3_64bits(target.data(), target.size()));
  }
  if (!IsRevisit(doc)) return kNoRedirect;
  const uint64_t url_key = UrlKeyOfHash(XXH3_64bits(doc.revisit_of.data(), doc.revisit_of.size()));
  const int64_t time = ParseFetchTime(doc.revisit_of_date);
  return time == KeeperFeatures().fetch_time ? url_key : CaptureKey(url_key, time);
}

UrlHolder HolderOf(uint64_t id, const KeeperFeatures& features, uint64_t own_redirect_key, uint64_t held_key) {
  UrlHolder h;
  h.url_key = held_key != kNoRedirect ? held_key : UrlKeyOfHash(features.url_hash);
  h.id = id;
  h.redirect_key = own_redirect_key;
  h.ends = own_redirect_key == kNoRedirect && EndsRedirects(features.http_status);
  return h;
}

RedirectChains::RedirectChains(const std::vector<UrlHolder>& holders) {
  for (const UrlHolder& h : holders) {
    auto [it, added] = by_url_.try_emplace(h.url_key, h);
    if (added) continue;
    UrlHolder& held = it->second;
    // The earliest page a chain may end at, else the earliest page.
    if (h.ends != held.ends ? h.ends > held.ends : h.id < held.id) held = h;
  }
}

const UrlHolder* RedirectChains::End(uint64_t key, bool* cycle) const {
  *cycle = false;
  uint64_t seen[kMaxRedirectHops];
  for (int hop = 0; hop < kMaxRedirectHops; ++hop) {
    if (std::find(seen, seen + hop, key) != seen + hop) {
      *cycle = true;
      return nullptr;
    }
    seen[hop] = key;
    const UrlHolder* h = Holder(key);
    if (h == nullptr) return nullptr;
    if (h->ends) return h;
    if (h->redirect_key == kNoRedirect) return nullptr;  // an error page, or a 3xx without Location
    key = h->redirect_key;
  }
  *cycle = true;
  return nullptr;
}

}  // namespace neardup
