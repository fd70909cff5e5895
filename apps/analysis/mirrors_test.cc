// Copyright neardup authors. Licensed under Apache-2.0.
//
// Mirrors on a hand-made set of clusters where the passing host pairs, the
// confirmed ones and the aliases are known by construction.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/analysis.h"

namespace neardup {
namespace {

// 12 clusters k = 0..11, each holding
//   http://a.com/docs/p<k>.html            (the kept page)
//   http://www.a.com/docs/p<k>.html        (alias of a.com, same suffix)
//   http://b.org/mirror/docs/p<k>.html     (3 arcs; last min(4,2,3) = 2 match)
//   http://c.net/x/q<k>.html               (k < 10 only; suffix differs)
//   http://d.com/docs/p<k>.html            (k < 5 only: 5 clustered pages)
// plus one cluster of 12 pages all on e.com (an auto-mirror) and a few
// single pages. Candidate hosts (>= 10 clustered pages): a.com, www.a.com,
// b.org, c.net, e.com; not d.com (5).
// Host pairs, common pages = sum over clusters of min(pages of A, of B):
//   a.com-b.org 12, a.com-www.a.com 12, b.org-www.a.com 12 (confirmed 12),
//   a.com-c.net 10, b.org-c.net 10, c.net-www.a.com 10 (confirmed 0).
std::vector<ClusterRow> HandMadeClusters() {
  std::vector<ClusterRow> rows;
  auto add = [&rows](const std::string& url, uint64_t cluster) {
    ClusterRow r;
    r.id = rows.size();
    r.url = url;
    r.cluster = cluster;
    r.keep = r.id == cluster;
    r.method = "broder";
    rows.push_back(r);
  };
  for (int k = 0; k < 12; ++k) {
    const std::string n = std::to_string(k);
    const uint64_t keep = rows.size();
    add("http://a.com/docs/p" + n + ".html", keep);
    add("http://www.a.com/docs/p" + n + ".html", keep);
    add("http://b.org/mirror/docs/p" + n + ".html?session=" + n, keep);  // query dropped
    if (k < 10) add("http://c.net/x/q" + n + ".html", keep);
    if (k < 5) add("http://d.com/docs/p" + n + ".html", keep);
  }
  const uint64_t e_keep = rows.size();
  for (int k = 0; k < 12; ++k) add("http://e.com/page" + std::to_string(k), e_keep);
  for (int k = 0; k < 3; ++k) add("http://a.com/single" + std::to_string(k), rows.size());
  return rows;
}

TEST(MirrorsTest, HandMadeClustersTenTen) {
  const MirrorResult r = FindMirrors(HandMadeClusters(), MirrorOptions{});
  EXPECT_EQ(r.candidate_hosts, 5u);
  ASSERT_EQ(r.pairs.size(), 6u);
  struct Want {
    const char *a, *b;
    uint64_t common, confirmed;
    bool ok;
    const char* alias;
  };
  const Want want[] = {{"a.com", "b.org", 12, 12, true, ""},     {"a.com", "www.a.com", 12, 12, true, "www"},
                       {"b.org", "www.a.com", 12, 12, true, ""}, {"a.com", "c.net", 10, 0, false, ""},
                       {"b.org", "c.net", 10, 0, false, ""},     {"c.net", "www.a.com", 10, 0, false, ""}};
  for (size_t i = 0; i < 6; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(r.pairs[i].host_a, want[i].a);
    EXPECT_EQ(r.pairs[i].host_b, want[i].b);
    EXPECT_EQ(r.pairs[i].common_pages, want[i].common);
    EXPECT_EQ(r.pairs[i].confirmed_pages, want[i].confirmed);
    EXPECT_EQ(r.pairs[i].confirmed, want[i].ok);
    EXPECT_EQ(r.pairs[i].alias, want[i].alias);
  }
  EXPECT_EQ(r.pairs[0].common_clusters, 12u);
  EXPECT_EQ(r.size_distribution, (std::map<uint64_t, uint64_t>{{10, 3}, {12, 3}}));
  const std::string tsv = MirrorsTsv(r);
  EXPECT_EQ(tsv.substr(0, tsv.find('\n')),
            "host_a\thost_b\tcommon_pages\tconfirmed_pages\tconfirmed\talias\tcommon_clusters");
  EXPECT_NE(tsv.find("a.com\twww.a.com\t12\t12\tyes\twww\t12\n"), std::string::npos);
  EXPECT_NE(tsv.find("a.com\tc.net\t10\t0\tno\t-\t10\n"), std::string::npos);
}

TEST(MirrorsTest, ThresholdsAreOptions) {
  MirrorOptions o;
  o.min_common_pages = 11;  // only the three pairs with 12 common pages
  EXPECT_EQ(FindMirrors(HandMadeClusters(), o).pairs.size(), 3u);
  o.min_common_pages = 5;
  o.min_host_pages = 5;  // d.com (5 clustered pages) joins: pairs with a, www.a, b, c
  const MirrorResult r = FindMirrors(HandMadeClusters(), o);
  EXPECT_EQ(r.candidate_hosts, 6u);
  // d.com shares clusters 0..4 with all four other hosts: 4 more pairs of 5.
  EXPECT_EQ(r.pairs.size(), 10u);
  EXPECT_EQ(r.size_distribution.at(5), 4u);
  for (const auto& p : r.pairs) {
    if (p.host_a == "a.com" && p.host_b == "d.com") {
      EXPECT_EQ(p.confirmed_pages, 5u);  // same suffix
    }
    if (p.host_a == "c.net" && p.host_b == "d.com") {
      EXPECT_EQ(p.confirmed_pages, 0u);
    }
  }
  // Clusters 0..4 span 5 candidate hosts (a, www.a, b, c, d): with at most
  // 4 allowed they are skipped, leaving clusters 5..9 (4 hosts) and 10..11
  // (3 hosts): a-b 7, a-c 5, ... and no d.com pair.
  o.max_cluster_hosts = 4;
  const MirrorResult capped = FindMirrors(HandMadeClusters(), o);
  EXPECT_EQ(capped.clusters_skipped, 5u);
  EXPECT_EQ(capped.pairs.size(), 6u);
  EXPECT_EQ(capped.pairs[0].common_pages, 7u);
  o.max_cluster_hosts = 1000;
  o.confirm_fraction = 2;
  EXPECT_FALSE(o.Validate().ok());
  EXPECT_TRUE(MirrorOptions{}.Validate().ok());
}

TEST(MirrorsTest, CommonPagesCountMatchedPairsNotAllUrls) {
  // One cluster with 3 pages of h1.com and 1 of h2.com: min(3, 1) = 1 common
  // page, not 4 (a host with many copies of one page is not a mirror).
  std::vector<ClusterRow> rows;
  for (int i = 0; i < 4; ++i) {
    ClusterRow r;
    r.id = static_cast<uint64_t>(i);
    r.cluster = 0;
    r.url = i < 3 ? "http://h1.com/a" + std::to_string(i) : "http://h2.com/a0";
    rows.push_back(r);
  }
  MirrorOptions o;
  o.min_host_pages = 1;
  o.min_common_pages = 1;
  const MirrorResult r = FindMirrors(rows, o);
  ASSERT_EQ(r.pairs.size(), 1u);
  EXPECT_EQ(r.pairs[0].common_pages, 1u);
  // h2's a0 matches h1's a0 and vice versa: min(1, 1) = 1 confirmed.
  EXPECT_EQ(r.pairs[0].confirmed_pages, 1u);
  EXPECT_TRUE(FindMirrors({}, o).pairs.empty());
}

}  // namespace
}  // namespace neardup
