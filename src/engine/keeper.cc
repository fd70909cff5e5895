#include "engine/keeper.h"

#include <xxhash.h>

#include <algorithm>

namespace neardup {

namespace {

char LowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }

// REQUIRES: needle is lower case. ASCII case only (URLs), not the locale's.
bool ContainsNoCase(std::string_view hay, std::string_view needle) {
  if (needle.empty()) return true;
  if (needle.size() > hay.size()) return false;
  for (size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    if (LowerAscii(hay[i]) != needle[0]) continue;
    size_t j = 1;
    while (j < needle.size() && LowerAscii(hay[i + j]) == needle[j]) ++j;
    if (j == needle.size()) return true;
  }
  return false;
}

// Days from 1970-01-01 to y-m-d (proleptic Gregorian; Howard Hinnant).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

int StatusRank(uint16_t status) {
  if (status == 0 || (status >= 200 && status < 300)) return 0;
  if (status >= 300 && status < 400) return 1;
  return 2;
}

// <0: a is the better keeper; sets *rule to the deciding rule index (or
// kReasonInputOrder when only input order separates them).
int Compare(const KeeperFeatures& a, uint64_t ia, const KeeperFeatures& b, uint64_t ib,
            const KeeperOptions& o, const std::vector<uint32_t>* in_links, uint8_t* rule) {
  for (size_t r = 0; r < o.rules.size(); ++r) {
    int64_t x = 0, y = 0;
    switch (o.rules[r]) {
      case KeeperRule::kStatus: x = StatusRank(a.http_status); y = StatusRank(b.http_status); break;
      case KeeperRule::kStaticUrl: x = a.dynamic_url; y = b.dynamic_url; break;
      case KeeperRule::kShorterUrl: x = a.url_length; y = b.url_length; break;
      case KeeperRule::kEarlierFetch: x = a.fetch_time; y = b.fetch_time; break;
      case KeeperRule::kInLinks:
        if (in_links == nullptr) continue;
        x = -int64_t{(*in_links)[ia]};
        y = -int64_t{(*in_links)[ib]};
        break;
      case KeeperRule::kUrlHash:
        if (a.url_hash != b.url_hash) {
          *rule = static_cast<uint8_t>(r);
          return a.url_hash < b.url_hash ? -1 : 1;
        }
        continue;
      case KeeperRule::kInputOrder: x = static_cast<int64_t>(ia); y = static_cast<int64_t>(ib); break;
    }
    if (x != y) {
      *rule = static_cast<uint8_t>(r);
      return x < y ? -1 : 1;
    }
  }
  *rule = kReasonInputOrder;
  return ia < ib ? -1 : (ia > ib ? 1 : 0);
}

}  // namespace

int CompareKeepers(const KeeperFeatures& a, uint64_t order_a, const KeeperFeatures& b, uint64_t order_b,
                   const KeeperOptions& options, uint8_t* rule) {
  uint8_t unused = 0;
  return Compare(a, order_a, b, order_b, options, nullptr, rule ? rule : &unused);
}

int64_t ParseFetchTime(std::string_view s) {
  auto digits = [&](size_t pos, size_t n, int64_t* out) {
    if (pos + n > s.size()) return false;
    int64_t v = 0;
    for (size_t i = 0; i < n; ++i) {
      const char c = s[pos + i];
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    *out = v;
    return true;
  };
  int64_t y, mo, d, h = 0, mi = 0, se = 0;
  if (s.size() >= 14 && s.find('-') == std::string_view::npos) {  // ARC: YYYYMMDDhhmmss
    if (!digits(0, 4, &y) || !digits(4, 2, &mo) || !digits(6, 2, &d) || !digits(8, 2, &h) ||
        !digits(10, 2, &mi) || !digits(12, 2, &se)) {
      return INT64_MAX;
    }
  } else {
    if (!digits(0, 4, &y) || s.size() < 10 || s[4] != '-' || !digits(5, 2, &mo) || s[7] != '-' ||
        !digits(8, 2, &d)) {
      return INT64_MAX;
    }
    if (s.size() >= 19 && (s[10] == 'T' || s[10] == ' ')) {
      if (!digits(11, 2, &h) || !digits(14, 2, &mi) || !digits(17, 2, &se)) return INT64_MAX;
    }
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return INT64_MAX;
  return DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 + h * 3600 +
         mi * 60 + se;
}

KeeperFeatures KeeperFeatures::Of(const Document& doc) {
  KeeperFeatures f;
  f.fetch_time = ParseFetchTime(doc.fetch_date);
  f.url_hash = XXH3_64bits(doc.url.data(), doc.url.size());
  f.url_length = static_cast<uint32_t>(std::min<size_t>(doc.url.size(), UINT32_MAX));
  f.http_status = static_cast<uint16_t>(doc.http_status < 0 || doc.http_status > 999 ? 999 : doc.http_status);
  const std::string_view url = doc.url;
  f.dynamic_url = url.find('?') != std::string_view::npos || ContainsNoCase(url, ";jsessionid=") ||
                  ContainsNoCase(url, "phpsessid=") || ContainsNoCase(url, "sessionid=") ||
                  ContainsNoCase(url, ";sid=");
  return f;
}

const char* KeeperRuleName(KeeperRule rule) {
  switch (rule) {
    case KeeperRule::kStatus: return "status";
    case KeeperRule::kStaticUrl: return "static-url";
    case KeeperRule::kShorterUrl: return "shorter-url";
    case KeeperRule::kEarlierFetch: return "earlier-fetch";
    case KeeperRule::kInLinks: return "in-links";
    case KeeperRule::kUrlHash: return "url-hash";
    case KeeperRule::kInputOrder: return "input-order";
  }
  return "?";
}

Result<KeeperOptions> KeeperOptions::Parse(std::string_view spec) {
  KeeperOptions o;
  o.rules.clear();
  size_t start = 0;
  while (start <= spec.size()) {
    size_t comma = spec.find(',', start);
    if (comma == std::string_view::npos) comma = spec.size();
    const std::string_view name = spec.substr(start, comma - start);
    bool found = false;
    for (KeeperRule r : {KeeperRule::kStatus, KeeperRule::kStaticUrl, KeeperRule::kShorterUrl,
                         KeeperRule::kEarlierFetch, KeeperRule::kInLinks, KeeperRule::kUrlHash,
                         KeeperRule::kInputOrder}) {
      if (name == KeeperRuleName(r)) {
        if (std::find(o.rules.begin(), o.rules.end(), r) != o.rules.end()) {
          return Status::InvalidArgument("keeper rule '" + std::string(name) + "' given twice");
        }
        o.rules.push_back(r);
        found = true;
      }
    }
    if (!found) {
      return Status::InvalidArgument("unknown keeper rule '" + std::string(name) +
                                     "'; valid rules: status, static-url, in-links, "
                                     "shorter-url, earlier-fetch, url-hash, input-order");
    }
    start = comma + 1;
  }
  return o;
}

bool KeeperOptions::uses(KeeperRule rule) const {
  return std::find(rules.begin(), rules.end(), rule) != rules.end();
}

std::string KeeperOptions::Spec() const {
  std::string s;
  for (KeeperRule r : rules) s += (s.empty() ? "" : ",") + std::string(KeeperRuleName(r));
  return s;
}

std::string ReasonName(uint8_t reason, const KeeperOptions& options) {
  if (reason == kReasonSingle) return "single";
  if (reason == kReasonRedirectTarget) return "redirect-target";
  if (reason == kReasonRevisited) return "revisited";
  if (reason == kReasonInputOrder || reason >= options.rules.size()) return "input-order";
  return KeeperRuleName(options.rules[reason]);
}

void ChooseKeepers(const std::vector<uint32_t>& group, const std::vector<KeeperFeatures>& features,
                   const KeeperOptions& options, std::vector<uint32_t>* keeper,
                   std::vector<uint8_t>* reason, const std::vector<uint32_t>* in_links) {
  const uint32_t n = static_cast<uint32_t>(group.size());
  Status st = ChooseKeepers(
      group,
      [&](const KeeperFeatureVisitor& fn) {
        if (n > 0) fn(0, n, features.data());
        return Status::OK();
      },
      options, keeper, reason, in_links);
  (void)st;  // the one block never fails
}

Status ChooseKeepers(const std::vector<uint32_t>& group, const KeeperFeatureBlocks& features,
                     const KeeperOptions& options, std::vector<uint32_t>* keeper, std::vector<uint8_t>* reason,
                     const std::vector<uint32_t>* in_links) {
  const uint32_t n = static_cast<uint32_t>(group.size());
  // A slot per group (numbered as groups first appear), with its best and
  // runner-up pages and their features, filled in one pass.
  struct Slot {
    uint32_t best = kNoGroup, second = kNoGroup;
    KeeperFeatures best_features, second_features;
  };
  std::vector<uint32_t> slot_of(n, kNoGroup);  // by group id
  uint32_t groups = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t g = group[i];
    if (g != kNoGroup && slot_of[g] == kNoGroup) slot_of[g] = groups++;
  }
  std::vector<Slot> slots(groups);
  uint8_t unused;
  NEARDUP_RETURN_IF_ERROR(features([&](uint32_t from, uint32_t to, const KeeperFeatures* block) {
    for (uint32_t i = from; i < to; ++i) {
      const uint32_t g = group[i];
      if (g == kNoGroup) continue;
      Slot& s = slots[slot_of[g]];
      const KeeperFeatures& f = block[i - from];
      if (s.best == kNoGroup) {
        s.best = i;
        s.best_features = f;
      } else if (Compare(f, i, s.best_features, s.best, options, in_links, &unused) < 0) {
        s.second = s.best;
        s.second_features = s.best_features;
        s.best = i;
        s.best_features = f;
      } else if (s.second == kNoGroup || Compare(f, i, s.second_features, s.second, options, in_links, &unused) < 0) {
        s.second = i;
        s.second_features = f;
      }
    }
  }));
  // The rule that set each group's best apart from its runner-up.
  std::vector<uint8_t> slot_reason(slots.size(), kReasonSingle);
  for (size_t k = 0; k < slots.size(); ++k) {
    const Slot& s = slots[k];
    if (s.second == kNoGroup) continue;
    uint8_t rule = kReasonInputOrder;
    Compare(s.best_features, s.best, s.second_features, s.second, options, in_links, &rule);
    slot_reason[k] = rule;
  }
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t g = group[i];
    if (g == kNoGroup) continue;
    const uint32_t k = slot_of[g];
    (*keeper)[i] = slots[k].best;
    (*reason)[i] = slot_reason[k];
  }
  return Status::OK();
}

std::vector<uint64_t> VerificationCandidates(uint64_t kept, uint64_t kept_root,
                                             const std::vector<uint64_t>& member_roots) {
  std::vector<uint64_t> roots = member_roots;
  std::sort(roots.begin(), roots.end());
  std::vector<std::pair<uint64_t, uint64_t>> sets;  // (members, root)
  for (size_t a = 0; a < roots.size();) {
    size_t b = a;
    while (b < roots.size() && roots[b] == roots[a]) ++b;
    if (roots[a] != kept_root) sets.emplace_back(b - a, roots[a]);
    a = b;
  }
  std::sort(sets.begin(), sets.end(), [](const auto& x, const auto& y) {
    return x.first != y.first ? x.first > y.first : x.second < y.second;
  });
  std::vector<uint64_t> candidates = {kept};
  for (const auto& set : sets) {
    if (candidates.size() >= kVerificationCenters) break;
    candidates.push_back(set.second);
  }
  return candidates;
}

}  // namespace neardup
