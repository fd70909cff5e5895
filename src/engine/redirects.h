// Copyright neardup authors. Licensed under Apache-2.0.
//
// Redirection-based duplicates (Zhu et al., "Clustering and Load Balancing
// Optimization for Redundant Content Removal", §2 and §5.1 case 3): an HTTP
// redirect has no content of its own (HasOwnContent); its content is its
// target's. The batch clustering (ClusterLive, and ClusterTogether divided
// among processes) puts a redirect in the cluster of the page its chain of
// redirects ends at, when that page is in the same run, as the service does
// for pages it holds. The redirect never becomes the kept page ("content
// over redirect").
//
// Pages are matched by URL: the redirect's Location resolved against its
// own URL (RFC 3986 §5.2, ResolveUrlTo) names the page whose URL is that
// string exactly, as KeeperFeatures::url_hash hashes it. ClusterLive
// follows chains with RedirectChains::End; ClusterTogether takes each URL's
// page by the same rule (RedirectChains at the URL key's owner) and follows
// chains a hop a round, so the two make the same choices.
//
// A revisit (a WARC revisit record whose content is an earlier capture's,
// Document::revisit_of) is followed the same way, one hop: it names the
// capture of its URL at its date (CaptureKey) when it gives a date, else
// its URL, and joins that capture's cluster. A revisit holds no URL itself:
// a chain never ends at, or passes through, a page without a body.
#ifndef NEARDUP_ENGINE_REDIRECTS_H_
#define NEARDUP_ENGINE_REDIRECTS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/keeper.h"
#include "neardup/document.h"

namespace neardup {

// The key of no redirect target.
constexpr uint64_t kNoRedirect = 0;

// Hops followed before a chain counts as a cycle (the service's bound too).
constexpr int kMaxRedirectHops = 32;

// Whether `doc` is a redirect: an HTTP 3xx status with a Location.
bool IsRedirect(const Document& doc);

// The URL a redirect from `url` with Location `location` names: the
// Location resolved against the URL (RFC 3986 §5.2; used as sent when no
// absolute URL can be formed), without its fragment (it names a part of the
// same page), and with "/" for an empty path after an authority (RFC 3986
// §6.2.3: "https://example.org" is "https://example.org/", the form a
// crawl records). Nothing else is normalized: the page is matched by the
// URL its record holds.
std::string RedirectTargetUrl(std::string_view url, std::string_view location);

// Whether `doc` is a revisit: it names an earlier capture (revisit_of) and
// is not a redirect (a revisit of a 3xx response is read as that redirect).
bool IsRevisit(const Document& doc);

// The key of what doc's content is: for a redirect, the key of its
// RedirectTargetUrl, which equals the url_hash of a page whose URL is that
// string (UrlKeyOfHash); for a revisit, the CaptureKey of its revisit_of
// URL and date when the date reads as a time (ParseFetchTime), else that
// URL's key; kNoRedirect for every other page.
uint64_t RedirectKey(const Document& doc);

// The key of a page's URL from its KeeperFeatures::url_hash (XXH3-64 of
// the URL's bytes), never kNoRedirect.
inline uint64_t UrlKeyOfHash(uint64_t url_hash) { return url_hash == kNoRedirect ? kNoRedirect + 1 : url_hash; }

// The key of the capture of the URL of key `url_key` fetched at
// `fetch_time` (KeeperFeatures::fetch_time), never kNoRedirect.
uint64_t CaptureKey(uint64_t url_key, int64_t fetch_time);

// Whether a redirect chain may end at a page served with this status: a
// success (2xx) or a page not read over HTTP (0). An error page (a 404, a
// 500) ends the chain at nothing, as a removed page does in the service.
inline bool EndsRedirects(int http_status) {
  return http_status == 0 || (http_status >= 200 && http_status < 300);
}

// A redirect or revisit of a Deduper: its page id, RedirectKey and which
// of the two it is.
struct PageRedirect {
  uint64_t id = 0;
  uint64_t key = kNoRedirect;
  uint8_t revisit = 0;
};

// A page whose URL some redirect of the run names.
struct UrlHolder {
  uint64_t url_key = 0;                // UrlKeyOfHash of its url_hash
  uint64_t id = 0;                     // the page's id in the run
  uint64_t redirect_key = kNoRedirect;  // its own redirect's key, when it is one
  uint64_t keeper = 0;                 // the page its cluster keeps
  uint8_t ends = 0;                    // EndsRedirects of its status, and not a redirect
  uint8_t reason = 0;                  // its cluster's keeper reason
  uint8_t unused[6] = {};
};

// The holder record of page `id` at the URL its keeper features hash (or
// at `held_key`, its CaptureKey, when given), with its own redirect's key
// (kNoRedirect when it is none); its keeper and reason are left for the
// caller. A revisit is no holder: callers offer none for it.
UrlHolder HolderOf(uint64_t id, const KeeperFeatures& features, uint64_t own_redirect_key,
                   uint64_t held_key = kNoRedirect);

// The keys a page of these keeper features may be named by: its URL's key,
// and its CaptureKey when `captures` (some revisit of the run gives a date).
// Calls fn(key) for each.
template <typename Fn>
void EachNameOf(const KeeperFeatures& features, bool captures, Fn&& fn) {
  const uint64_t url_key = UrlKeyOfHash(features.url_hash);
  fn(url_key);
  if (captures) fn(CaptureKey(url_key, features.fetch_time));
}

// The place of page `id` among `redirects` (any random-access sequence of
// PageRedirect, ordered by id), or redirects.size() when it is none of them.
template <typename Redirects>
size_t RedirectPlace(const Redirects& redirects, uint64_t id) {
  size_t lo = 0, hi = redirects.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (redirects[mid].id < id) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo < redirects.size() && redirects[lo].id == id ? lo : redirects.size();
}

// The RedirectKey of page `id` among `redirects` (ordered by id), or
// kNoRedirect.
template <typename Redirects>
uint64_t RedirectKeyIn(const Redirects& redirects, uint64_t id) {
  const size_t at = RedirectPlace(redirects, id);
  return at < redirects.size() ? redirects[at].key : kNoRedirect;
}

// Whether page `id` is a revisit among `redirects` (ordered by id).
template <typename Redirects>
bool RevisitIn(const Redirects& redirects, uint64_t id) {
  const size_t at = RedirectPlace(redirects, id);
  return at < redirects.size() && redirects[at].revisit != 0;
}

// The end of every chain, over the holders of the URLs redirects name. Where
// several pages hold one URL (it was fetched more than once), the earliest
// one a chain may end at is taken, else the earliest.
class RedirectChains {
 public:
  explicit RedirectChains(const std::vector<UrlHolder>& holders);

  // The page a chain that starts at target key `key` ends at, or nullptr:
  // no page of the run has that URL, the chain reaches a page it may not
  // end at, or it loops or runs past kMaxRedirectHops (*cycle is then set).
  const UrlHolder* End(uint64_t key, bool* cycle) const;

  // The page taken for the URL of key `key`, or nullptr when none holds it.
  const UrlHolder* Holder(uint64_t key) const {
    const auto it = by_url_.find(key);
    return it == by_url_.end() ? nullptr : &it->second;
  }

 private:
  std::unordered_map<uint64_t, UrlHolder> by_url_;
};

}  // namespace neardup

#endif  // NEARDUP_ENGINE_REDIRECTS_H_
