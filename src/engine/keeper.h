// Copyright neardup authors. Licensed under Apache-2.0.
//
// Choosing the page each cluster keeps, by rules in the spirit of Zhu et al.
// ("Clustering and Load Balancing Optimization for Redundant Content
// Removal", §5: winner selection): a page served with a success status over
// an error or redirect page, a static URL over a dynamic one (query string or
// session id), a page more pages of the crawl link to over one fewer link
// to, a shorter URL over a longer one, an earlier fetch over a later one, and
// at last the earlier page in input order. The rules are applied in
// a configurable order; the rule that decided is reported with the cluster.
// Before input order, a fixed pseudo-random order of URLs (url-hash) breaks
// ties, so the kept page, and the clusters verified against it, are the same
// whatever order the inputs come in.
//
// Features are 24 bytes per page, computed from the Document when it is read.
#ifndef NEARDUP_ENGINE_KEEPER_H_
#define NEARDUP_ENGINE_KEEPER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/document.h"
#include "neardup/status.h"

namespace neardup {

struct KeeperFeatures {
  int64_t fetch_time = INT64_MAX;  // seconds since 1970 (WARC-Date); unknown sorts last
  uint64_t url_hash = 0;           // XXH3 of the URL: an order independent of input order
  uint32_t url_length = 0;
  uint16_t http_status = 0;        // 0: not HTTP (files, JSON Lines): counts as success
  uint8_t dynamic_url = 0;         // query string or session id in the URL
  uint8_t unused = 0;
  static KeeperFeatures Of(const Document& doc);
};

enum class KeeperRule : uint8_t {
  kStatus,
  kStaticUrl,
  kShorterUrl,
  kEarlierFetch,
  kInLinks,  // more distinct pages of the crawl link to it (self-links not counted)
  kUrlHash,  // a fixed pseudo-random order of URLs: the same choice whatever the input order
  kInputOrder
};

// Names used in specs and in the `reason` column.
const char* KeeperRuleName(KeeperRule rule);

struct KeeperOptions {
  std::vector<KeeperRule> rules = {KeeperRule::kStatus,       KeeperRule::kStaticUrl,
                                   KeeperRule::kShorterUrl,   KeeperRule::kEarlierFetch,
                                   KeeperRule::kUrlHash,      KeeperRule::kInputOrder};
  // "status,static-url,shorter-url,earlier-fetch,url-hash,input-order" (any
  // order and subset of those and in-links; input order always breaks the
  // last ties). The default ends in url-hash so that clusters do not depend
  // on the order of inputs; in-links is left out of it for speed (reading
  // links costs about a third of the default method's throughput).
  static Result<KeeperOptions> Parse(std::string_view spec);
  bool uses(KeeperRule rule) const;
  std::string Spec() const;
};

// Reason codes stored per page: a rule index into KeeperOptions::rules, or:
constexpr uint8_t kReasonSingle = 0xff;   // the page is alone
constexpr uint8_t kReasonInputOrder = 0xfe;  // every rule tied
constexpr uint8_t kReasonRedirectTarget = 0xfd;  // its cluster's other pages redirect to it (engine/redirects.h)
constexpr uint8_t kReasonRevisited = 0xfc;  // its cluster's other pages are revisits of it (engine/redirects.h)

// Chooses a keeper for every group. `group[i]` is any id shared by the
// members of i's group (an element index < n); pages with `group[i] ==
// kNoGroup` are left alone. On return keeper[i] is the chosen page of i's
// group and reason[i] the rule that set it apart from the runner-up.
// `in_links[i]` is page i's in-link count for the in-links rule (nullptr:
// every page counts 0).
constexpr uint32_t kNoGroup = UINT32_MAX;
void ChooseKeepers(const std::vector<uint32_t>& group, const std::vector<KeeperFeatures>& features,
                   const KeeperOptions& options, std::vector<uint32_t>* keeper,
                   std::vector<uint8_t>* reason, const std::vector<uint32_t>* in_links = nullptr);

// The pages' features in input order, a block at a time: calls
// fn(from, to, features of pages [from, to)) for consecutive blocks that
// cover pages 0 to group.size() - 1; an error stops the choice.
using KeeperFeatureVisitor = std::function<void(uint32_t from, uint32_t to, const KeeperFeatures* features)>;
using KeeperFeatureBlocks = std::function<Status(const KeeperFeatureVisitor& fn)>;

// As above, with the features read a block at a time (a run whose features
// are spilled need not hold them: 24 bytes a page). What it holds beside
// `group`, `keeper` and `reason` grows with the groups: a slot a group
// holding its best and runner-up pages' features, and a slot number a
// page. The same choices as the whole-vector form.
Status ChooseKeepers(const std::vector<uint32_t>& group, const KeeperFeatureBlocks& features,
                     const KeeperOptions& options, std::vector<uint32_t>* keeper, std::vector<uint8_t>* reason,
                     const std::vector<uint32_t>* in_links = nullptr);

// Compares two pages by the rules (in-links counts as a tie): < 0 when a
// is the better keeper, > 0 when b is, 0 only when both the features and
// the input orders are equal. Sets *rule (may be nullptr) to the deciding
// rule's index or kReasonInputOrder. For keepers chosen one pair at a
// time, as the incremental service elects its group winners.
int CompareKeepers(const KeeperFeatures& a, uint64_t order_a, const KeeperFeatures& b, uint64_t order_b,
                   const KeeperOptions& options, uint8_t* rule = nullptr);

// Verification (Zhu et al. §5.2) checks every member of a cluster against
// one page with the method's pair rule, so that chains of pairwise matches
// cannot pull unrelated pages together. The kept page, chosen by URL and
// fetch rules, is often a peripheral copy: of many copies of one page that
// each carry a small difference of their own, two differ about twice as
// much as each differs from the common original. So when some members fail
// against the kept page, a center is chosen among these candidates: the
// kept page, then the roots of the cluster's other exact-copy sets, the
// largest sets first, then by smaller id, at most kVerificationCenters in
// all. A candidate other than the kept page must have passed the kept page
// itself; the center is the candidate that the most members pass (the
// first on ties), used when CenterGathers. A member stays when it passes
// the kept page or the center: within two steps of the kept page through
// one verified member, so chains of matches still cannot run away.
// `member_roots` lists the exact-set root of every member; ids are any page
// ids of one numbering.
inline constexpr size_t kVerificationCenters = 8;
// Rounds of group repair: the members that fail a cluster's kept page and
// center are verified as a cluster of their own, at most this many times.
inline constexpr size_t kVerificationRounds = 4;
// Whether a center that `with_center` of a cluster's `members` pass (those
// that pass the kept page, `with_kept`, among them) is used: when it brings
// back at least half of the members that failed the kept page. A center
// that brings back a stray page or two is a link of a chain, not the middle
// of a group of copies.
inline bool CenterGathers(uint64_t members, uint64_t with_kept, uint64_t with_center) {
  return with_center > with_kept && 2 * (with_center - with_kept) >= members - with_kept;
}
std::vector<uint64_t> VerificationCandidates(uint64_t kept, uint64_t kept_root,
                                             const std::vector<uint64_t>& member_roots);

// The reason code's text for the `reason` column.
std::string ReasonName(uint8_t reason, const KeeperOptions& options);

// Parses "YYYY-MM-DDThh:mm:ss[.fff][Z]" (and date-only or 14-digit ARC
// dates); INT64_MAX when it cannot.
int64_t ParseFetchTime(std::string_view date);

}  // namespace neardup

#endif  // NEARDUP_ENGINE_KEEPER_H_
