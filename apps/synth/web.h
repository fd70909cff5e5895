// Copyright neardup authors. Licensed under Apache-2.0.
//
// Helpers of the synthetic web builder (BuildSyntheticWeb in
// apps/synth/synth.h; internal to apps/synth).
#ifndef NEARDUP_SYNTH_WEB_H_
#define NEARDUP_SYNTH_WEB_H_

#include <map>
#include <set>
#include <string>
#include <vector>

namespace neardup::synth_internal {

// The URLs reached from `seeds` by following `links` (page URL -> absolute
// URLs it links to) breadth first, seeds included when they are pages of
// `links`. A link to a URL that is not a key of `links` (a page not in the
// crawl) leads nowhere. O(pages + links).
std::set<std::string> ReachableFrom(const std::map<std::string, std::vector<std::string>>& links,
                                    const std::vector<std::string>& seeds);

// "2026-01-05T00:00:00Z" for a Unix time (UTC).
std::string IsoTime(long long unix_seconds);

}  // namespace neardup::synth_internal

#endif  // NEARDUP_SYNTH_WEB_H_
