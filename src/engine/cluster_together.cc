// Copyright neardup authors. Licensed under Apache-2.0.
//
// DeduperImpl::ClusterTogether: the batch clustering of ClusterLive
// (deduper.cc) divided among the processes of a ProcessGroup, so that no
// process holds every page. Process p holds the pages of ids
// [bounds[p], bounds[p + 1]) of the whole run. Each step sends records to
// the process that owns them, by page id (the holder of that id) or by key
// hash, through the group's all-to-all:
//
//   1. exact identity: token-sequence and byte keys meet at their key's
//      owner, which names each set's earliest page (ExactGrouper's roots);
//   2. near-duplicate pairs, given or found by the method's DividedRun
//      (robust learns its templates and finds its pairs together), meet at
//      the owner of their smaller page (one copy of each pair is kept);
//   3. connected components of the pairs: a distributed union-find in the
//      manner of Shiloach and Vishkin. Every edge between two different
//      trees hooks the root with the larger id onto the smaller one; then
//      pointer jumping flattens every tree to a star. The number of trees
//      with an edge leaving them at least halves each round, so O(log n)
//      rounds; each component ends labelled by its smallest page id;
//   4. a page's cluster is the component of its exact set's root;
//      cluster sizes and in-link counts are summed at their owners;
//   5. keepers: each cluster's members (id, keeper features, in-links)
//      meet at the owner of the cluster label, which runs ChooseKeepers
//      over them in input order, exactly as the single process does;
//   6. verification (Zhu et al. §5.2): each member fetches its kept page's
//      record from that page's holder (kVerifyMembersPerRound members a
//      round, each distinct kept page once) and applies the method's one pair
//      rule (DividedRun::Decide); a member that fails leaves with its exact
//      copies (its DividedRun::SplitRoot's set), whose keeper is chosen
//      again at the owner of that root;
//   7. redirects join the cluster of the page their chain ends at, and
//      revisits that of the capture they name (engine/redirects.h): targets
//      and the pages at those URLs meet at the URL key's owner, and chains
//      are followed a hop a round.
//
// The result equals ClusterLive's over the same pages and pairs: the same
// kept page, role, method, similarity and reason for every page, and the
// same counts. Per process, memory grows with the pages it holds plus the
// records routed to it (a cluster's members meet at one process).
#include <algorithm>
#include <chrono>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "base/flat_set.h"
#include "base/stopwatch.h"
#include "engine/deduper_impl.h"
#include "engine/exchanger.h"
#include "engine/method_impl.h"
#include "engine/redirects.h"
#include "neardup/dedup_job.h"

namespace neardup {

namespace {

using Clock = std::chrono::steady_clock;

// Members whose kept pages' records a process asks for at a time in the
// verification (each distinct kept page once a round): what it holds of
// other pages' records is a round's, at most this many records (about
// 4.5 MB of robust's), not one a member of its clusters.
constexpr uint64_t kVerifyMembersPerRound = uint64_t{1} << 12;

// A page offered to ChooseKeepers at its group's owner.
struct KeeperCandidate {
  uint64_t group;  // a page id shared by the group's members
  uint64_t id;
  uint64_t root;   // the page's exact-set root
  KeeperFeatures features;
  uint32_t in_links;
  uint32_t unused;
};

// The choice for one page, sent back to its holder.
struct KeeperChoice {
  uint64_t id, keeper, keeper_root;
  uint8_t reason;
  uint8_t unused[7];
};

// Runs ChooseKeepers over the groups of `candidates` (routed to each
// group's owner); returns the choices for this process's pages.
Result<std::vector<KeeperChoice>> ChooseKeepersTogether(Exchanger* x, const std::vector<KeeperCandidate>& candidates,
                                                        const KeeperOptions& options, bool with_in_links) {
  std::vector<std::vector<KeeperCandidate>> out(static_cast<size_t>(x->size()));
  for (const KeeperCandidate& c : candidates) out[x->OwnerOfId(c.group)].push_back(c);
  NEARDUP_ASSIGN_OR_RETURN(std::vector<KeeperCandidate> all, x->ExchangeFlat(out));
  out.clear();
  // Input order within every group, as the single process sees it.
  std::sort(all.begin(), all.end(), [](const KeeperCandidate& a, const KeeperCandidate& b) { return a.id < b.id; });
  const size_t m = all.size();
  std::vector<uint32_t> group(m), keeper(m), in_links(with_in_links ? m : 0);
  std::vector<uint8_t> reason(m, kReasonSingle);
  std::vector<KeeperFeatures> features(m);
  std::unordered_map<uint64_t, uint32_t> first;  // group label -> index of its first member
  for (size_t j = 0; j < m; ++j) {
    group[j] = first.try_emplace(all[j].group, static_cast<uint32_t>(j)).first->second;
    keeper[j] = static_cast<uint32_t>(j);
    features[j] = all[j].features;
    if (with_in_links) in_links[j] = all[j].in_links;
  }
  ChooseKeepers(group, features, options, &keeper, &reason, with_in_links ? &in_links : nullptr);
  std::vector<std::vector<KeeperChoice>> back(static_cast<size_t>(x->size()));
  for (size_t j = 0; j < m; ++j) {
    KeeperChoice c{};
    c.id = all[j].id;
    c.keeper = all[keeper[j]].id;
    c.keeper_root = all[keeper[j]].root;
    c.reason = reason[j];
    back[x->OwnerOfId(c.id)].push_back(c);
  }
  return x->ExchangeFlat(back);
}

}  // namespace

Result<std::vector<DeduperImpl::TogetherRow>> DeduperImpl::ClusterTogether(
    ProcessGroup* group, std::span<const std::pair<uint64_t, uint64_t>> near_pairs, uint64_t* bytes_sent) {
  if (method_->batch_only() || (method_->learns_from_collection() && !method_->finds_pairs_together())) {
    return Status::NotSupported("the " + method_->name() +
                                " method clusters over the whole collection: it cannot cluster divided among processes");
  }
  if (removed_count_ > 0) return Status::FailedPrecondition("ClusterTogether: pages were removed");
  if (finished_) return Status::FailedPrecondition("ClusterTogether after Finish");
  finished_ = true;
  run_.reset();
  Columns& col = *columns_;
  const uint64_t n = count_;
  const size_t w = words_per_doc_;
  const bool near_method = method_->finds_near_duplicates();
  Exchanger x(group);
  NEARDUP_RETURN_IF_ERROR(x.SetCounts(n));
  const uint64_t base = x.base();
  auto local = [&](uint64_t id) { return static_cast<size_t>(id - base); };

  ResetSummary();
  DedupSummary& s = summary_;
  // Every process must agree on failures before the next collective step.
  // The signature words in memory, or in their spill file (SpillSignatures),
  // read from it without making it resident; the keeper features likewise,
  // a block at a time when the keepers are chosen (ReadFeatureBlocks).
  PageWords words(&col.words, w);
  std::unique_ptr<MappedFile> features_file;  // the spilled keeper features, read a block at a time
  Status spill_status;
  if (signatures_spilled()) {
    if (words_spill_) {
      auto mapped = MapSpill(words_path_, &words_spill_, n * w * sizeof(uint64_t), "signature");
      if (mapped.ok()) {
        mapped_words_ = std::move(mapped).value();
      } else {
        spill_status = mapped.status();
      }
    }
    if (spill_status.ok()) words = PageWords(mapped_words_, n, w);
    if (spill_status.ok() && !features_path_.empty()) {
      auto features = n > UINT32_MAX ? Status::ResourceExhausted("a process of a divided run holds at most 2^32 - 1 pages")
                                     : MapSpill(features_path_, &features_spill_, n * sizeof(KeeperFeatures), "features");
      if (features.ok()) {
        features_file = std::move(features).value();
      } else {
        spill_status = features.status();
      }
    }
  }
  NEARDUP_ASSIGN_OR_RETURN(uint64_t spills_failed, x.Sum(spill_status.ok() ? 0 : 1));
  if (spills_failed > 0) {
    return spill_status.ok() ? Status::IOError("another process could not read its spilled signatures") : spill_status;
  }
  bool bad_pair = false;
  for (const auto& [a, b] : near_pairs) bad_pair |= a >= x.total() || b >= x.total();
  NEARDUP_ASSIGN_OR_RETURN(uint64_t bad, x.Sum(bad_pair ? 1 : 0));
  if (bad > 0) return Status::InvalidArgument("a near-duplicate pair names an unknown page");
  const bool finds_own = method_->finds_pairs_together();
  NEARDUP_ASSIGN_OR_RETURN(uint64_t given, x.Sum(finds_own && !near_pairs.empty() ? 1 : 0));
  if (given > 0) {
    return Status::InvalidArgument("the " + method_->name() +
                                   " method finds its own pairs when processes cluster together: none can be given");
  }

  // ---- 1. exact identity sets ----
  // Pages with terms are copies by their token sequence, every page by its
  // bytes (ExactGrouper): each set of two or more is counted and joined
  // at its key's owner; the components' smallest ids are the roots.
  const auto t_exact = Clock::now();
  uint64_t empty = 0, without_content = 0, terms = 0;
  for (uint64_t i = 0; i < n; ++i) {
    empty += col.terms[i] == 0;
    without_content += col.byte_fp[i] == kNoByteKey;
    terms += col.terms[i];
  }
  std::vector<KeyAndId> exact_edges;
  auto identity_sets = [&](bool by_tokens, uint64_t* sets) -> Status {
    std::vector<std::vector<KeyAndId>> out(static_cast<size_t>(x.size()));
    for (uint64_t i = 0; i < n; ++i) {
      if (by_tokens && col.terms[i] == 0) continue;
      if (!by_tokens && col.byte_fp[i] == kNoByteKey) continue;  // no content of its own: no identity
      const uint64_t key = by_tokens ? col.token_fp[i] : col.byte_fp[i];
      out[x.OwnerOfKey(key)].push_back({key, base + i});
    }
    NEARDUP_ASSIGN_OR_RETURN(std::vector<KeyAndId> keys, x.ExchangeFlat(std::move(out)));
    out.clear();
    std::sort(keys.begin(), keys.end(), [](const KeyAndId& a, const KeyAndId& b) {
      return a.key != b.key ? a.key < b.key : a.id < b.id;
    });
    uint64_t count = 0;
    for (size_t j = 0; j < keys.size();) {
      size_t e = j;
      while (e < keys.size() && keys[e].key == keys[j].key) ++e;
      count += e - j >= 2;
      for (size_t t = j + 1; t < e; ++t) exact_edges.push_back({keys[j].id, keys[t].id});
      j = e;
    }
    NEARDUP_ASSIGN_OR_RETURN(*sets, x.Sum(count));
    return Status::OK();
  };
  NEARDUP_RETURN_IF_ERROR(identity_sets(true, &s.token_identity_sets));
  NEARDUP_RETURN_IF_ERROR(identity_sets(false, &s.byte_identity_sets));
  NEARDUP_ASSIGN_OR_RETURN(std::vector<uint64_t> root, x.Components(std::move(exact_edges)));
  NEARDUP_ASSIGN_OR_RETURN(s.documents, x.Sum(n));
  NEARDUP_ASSIGN_OR_RETURN(s.empty_documents, x.Sum(empty));
  NEARDUP_ASSIGN_OR_RETURN(s.documents_without_content, x.Sum(without_content));
  NEARDUP_ASSIGN_OR_RETURN(s.terms, x.Sum(terms));
  s.stages.push_back({"exact", SecondsSince(t_exact), n * 28});

  // ---- 2. near-duplicate pairs: one copy each, at their smaller page's owner ----
  const auto t_near = Clock::now();
  uint64_t representatives = 0;
  for (uint64_t i = 0; i < n; ++i) representatives += root[i] == base + i && col.eligible[i];
  NEARDUP_ASSIGN_OR_RETURN(s.near_candidates, x.Sum(representatives));
  DividedCollection dc;
  dc.n = n;
  dc.base = base;
  dc.words_per_page = w;
  dc.words = std::move(words);
  if (!options_.temp_dir.empty()) {
    dc.env = env_;
    dc.temp_dir = options_.temp_dir;
  }
  dc.eligible = &col.eligible;
  dc.exact_root = root;
  dc.max_bucket_pages = options_.broder.max_bucket_pages;
  dc.executor = executor_;
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<DividedRun> run, method_->NewDividedRun(std::move(dc)));
  std::vector<KeyAndId> edges;  // (a, b), a < b
  std::vector<KeyAndId> joins;  // joined without being counted as pairs
  if (near_method) {
    std::vector<KeyAndId> found;
    NEARDUP_RETURN_IF_ERROR(run->FindPairs(&x, near_pairs, &found, &joins, &s));
    std::vector<std::vector<KeyAndId>> out(static_cast<size_t>(x.size()));
    for (const KeyAndId& e : found) out[x.OwnerOfId(e.key)].push_back(e);
    std::vector<KeyAndId>().swap(found);
    NEARDUP_ASSIGN_OR_RETURN(edges, x.ExchangeFlat(std::move(out)));
    std::sort(edges.begin(), edges.end(),
              [](const KeyAndId& a, const KeyAndId& b) { return a.key != b.key ? a.key < b.key : a.id < b.id; });
    edges.erase(std::unique(edges.begin(), edges.end(),
                            [](const KeyAndId& a, const KeyAndId& b) { return a.key == b.key && a.id == b.id; }),
                edges.end());
    NEARDUP_ASSIGN_OR_RETURN(s.near_pairs, x.Sum(edges.size()));
    std::vector<std::vector<uint64_t>> ends(static_cast<size_t>(x.size()));
    for (const KeyAndId& e : edges) {
      ends[x.OwnerOfId(e.key)].push_back(e.key);
      ends[x.OwnerOfId(e.id)].push_back(e.id);
    }
    NEARDUP_ASSIGN_OR_RETURN(auto mine, x.Exchange(ends));
    std::vector<uint8_t> has_pair(n, 0);
    for (const auto& from : mine) {
      for (uint64_t id : from) has_pair[local(id)] = 1;
    }
    uint64_t with_pair = 0;
    for (uint8_t h : has_pair) with_pair += h;
    NEARDUP_ASSIGN_OR_RETURN(s.pages_with_near_duplicate, x.Sum(with_pair));
    // A pair joins its pages' exact sets: the edge goes between their roots.
    edges.insert(edges.end(), joins.begin(), joins.end());
    std::vector<KeyAndId>().swap(joins);
    std::vector<uint64_t> ends_of_edges;
    for (const KeyAndId& e : edges) {
      ends_of_edges.push_back(e.key);
      ends_of_edges.push_back(e.id);
    }
    NEARDUP_ASSIGN_OR_RETURN(std::vector<uint64_t> roots_of_ends,
                             x.Ask(ends_of_edges, 1, false, [&](uint64_t id, uint64_t* o) { *o = root[local(id)]; }));
    size_t kept = 0;
    for (size_t j = 0; j < edges.size(); ++j) {
      const uint64_t ra = roots_of_ends[2 * j], rb = roots_of_ends[2 * j + 1];
      if (ra != rb) edges[kept++] = {std::min(ra, rb), std::max(ra, rb)};
    }
    edges.resize(kept);
  }
  // ---- 3. components of the pairs over the exact sets' roots ----
  NEARDUP_ASSIGN_OR_RETURN(std::vector<uint64_t> joined, x.Components(std::move(edges)));
  s.stages.push_back({"near", SecondsSince(t_near), s.near_pairs * 16});

  // ---- 4. clusters: the component of each page's exact root, and sizes ----
  const auto t_keep = Clock::now();
  NEARDUP_ASSIGN_OR_RETURN(std::vector<uint64_t> cluster,
                           x.Ask(root, 1, false, [&](uint64_t id, uint64_t* o) { *o = joined[local(id)]; }));
  std::vector<uint64_t>().swap(joined);
  std::vector<uint64_t> size_here(n, 0);
  {
    std::unordered_map<uint64_t, uint64_t> count;
    for (uint64_t c : cluster) ++count[c];
    std::vector<std::vector<KeyAndId>> out(static_cast<size_t>(x.size()));
    for (const auto& [c, k] : count) out[x.OwnerOfId(c)].push_back({c, k});
    NEARDUP_ASSIGN_OR_RETURN(auto in, x.Exchange(out));
    for (const auto& from : in) {
      for (const KeyAndId& c : from) size_here[local(c.key)] += c.id;
    }
  }
  NEARDUP_ASSIGN_OR_RETURN(std::vector<uint64_t> cluster_size,
                           x.Ask(cluster, 1, false, [&](uint64_t id, uint64_t* out) { *out = size_here[local(id)]; }));
  std::vector<uint64_t>().swap(size_here);

  // In-links of the clustered pages: every page's distinct link keys are
  // counted at their key's owner.
  std::vector<uint32_t> in_links(n, 0);
  if (count_in_links_) {
    std::vector<std::vector<uint64_t>> out(static_cast<size_t>(x.size()));
    for (size_t at = 0; at < col.link_keys.size(); ++at) out[x.OwnerOfKey(col.link_keys[at])].push_back(col.link_keys[at]);
    NEARDUP_ASSIGN_OR_RETURN(auto in, x.Exchange(out));
    out.clear();
    std::unordered_map<uint64_t, uint32_t> links;
    for (const auto& from : in) {
      for (uint64_t key : from) ++links[key];
    }
    in.clear();
    std::vector<uint64_t> asked;
    std::vector<size_t> who;
    for (uint64_t i = 0; i < n; ++i) {
      if (cluster_size[i] >= 2) {
        asked.push_back(col.url_keys[i]);
        who.push_back(i);
      }
    }
    NEARDUP_ASSIGN_OR_RETURN(std::vector<uint64_t> counts, x.Ask(asked, 1, true, [&](uint64_t key, uint64_t* o) {
      auto it = links.find(key);
      *o = it == links.end() ? 0 : it->second;
    }));
    for (size_t j = 0; j < who.size(); ++j) in_links[who[j]] = static_cast<uint32_t>(counts[j]);
  }

  // Calls fn(i, features of page i) for every local page in order, from the
  // spill a block at a time or from the column; every process learns
  // whether any could not read its spill.
  auto each_features = [&](const std::function<void(uint64_t, const KeeperFeatures&)>& fn) -> Status {
    Status read;
    if (features_file) {
      read = ReadFeatureBlocks(*features_file, static_cast<uint32_t>(n),
                               [&](uint32_t from, uint32_t to, const KeeperFeatures* features) {
                                 for (uint32_t i = from; i < to; ++i) fn(i, features[i - from]);
                               });
    } else {
      for (uint64_t i = 0; i < n; ++i) fn(i, col.features[i]);
    }
    NEARDUP_ASSIGN_OR_RETURN(uint64_t reads_failed, x.Sum(read.ok() ? 0 : 1));
    if (reads_failed > 0) {
      return read.ok() ? Status::IOError("another process could not read its spilled keeper features") : read;
    }
    return Status::OK();
  };

  // ---- 5. keepers ----
  std::vector<uint64_t> keeper(n), keeper_root(n);
  std::vector<uint8_t> reason(n, kReasonSingle);
  for (uint64_t i = 0; i < n; ++i) {
    keeper[i] = base + i;
    keeper_root[i] = root[i];
  }
  auto choose = [&](const std::vector<uint64_t>& label, const std::vector<uint8_t>& take) -> Status {
    std::vector<KeeperCandidate> candidates;
    auto add = [&](uint64_t i, const KeeperFeatures& features) {
      if (!take[i]) return;
      KeeperCandidate c{};
      c.group = label[i];
      c.id = base + i;
      c.root = root[i];
      c.features = features;
      c.in_links = in_links[i];
      candidates.push_back(c);
    };
    NEARDUP_RETURN_IF_ERROR(each_features(add));
    NEARDUP_ASSIGN_OR_RETURN(std::vector<KeeperChoice> choices,
                             ChooseKeepersTogether(&x, candidates, keeper_options_, count_in_links_));
    for (const KeeperChoice& c : choices) {
      keeper[local(c.id)] = c.keeper;
      keeper_root[local(c.id)] = c.keeper_root;
      reason[local(c.id)] = c.reason;
    }
    return Status::OK();
  };
  {
    std::vector<uint8_t> clustered(n);
    for (uint64_t i = 0; i < n; ++i) clustered[i] = cluster_size[i] >= 2;
    NEARDUP_RETURN_IF_ERROR(choose(cluster, clustered));
  }
  std::vector<uint64_t>().swap(cluster);
  std::vector<uint64_t>().swap(cluster_size);

  s.stages.push_back({"keepers", SecondsSince(t_keep), n * sizeof(KeeperCandidate)});

  // ---- 6. verification against the kept page, and similarities ----
  const auto t_verify = Clock::now();
  std::vector<double> similarity(n, 1.0);
  if (near_method) {
    // Group repair (as ClusterLive): the members that fail both their kept
    // page and its center are verified as a cluster of their own, labelled
    // by the kept page they failed, for at most kVerificationRounds rounds;
    // every process runs the same rounds (the count of repaired members is
    // summed).
    std::vector<uint8_t> in_play(n, 1), failed(n, 0), repaired(n, 0);
    std::vector<uint64_t> repair_label(n, 0);
    uint64_t split = 0, repaired_members = 0;
    const size_t rounds = options_.verify ? kVerificationRounds : 1;
    for (size_t round = 0; round < rounds; ++round) {
      const bool last_round = round + 1 == rounds;
      std::vector<uint64_t> asked;
      std::vector<size_t> who;
      for (uint64_t i = 0; i < n; ++i) {
        if (round > 0 && in_play[i] && keeper[i] != base + i && keeper_root[i] == root[i]) ++repaired_members;
        if (in_play[i] && keeper[i] != base + i && keeper_root[i] != root[i]) {
          asked.push_back(keeper[i]);
          who.push_back(i);
        }
      }
      // The kept page's record (its signature, and what the run learned of
      // it), kVerifyMembersPerRound members a round.
      const size_t rw = run->record_words();
      std::vector<uint64_t> page(rw);
      std::vector<uint8_t> passes_kept(n, 1);
      NEARDUP_ASSIGN_OR_RETURN(const uint64_t kept_rounds,
                               x.Max((asked.size() + kVerifyMembersPerRound - 1) / kVerifyMembersPerRound));
      for (uint64_t kept_round = 0; kept_round < kept_rounds; ++kept_round) {
        const size_t from = std::min<uint64_t>(who.size(), kept_round * kVerifyMembersPerRound);
        const size_t to = std::min<uint64_t>(who.size(), from + kVerifyMembersPerRound);
        const PageRecords kept(&x, *run, rw, std::vector<uint64_t>(asked.begin() + from, asked.begin() + to));
        NEARDUP_RETURN_IF_ERROR(kept.status());
        for (size_t j = from; j < to; ++j) {
          const size_t i = who[j];
          run->Record(i, page.data());
          const uint64_t* kept_page = kept.Of(asked[j]);
          if (options_.verify) {  // the decision's similarity is the column's (DividedRun::Similarity)
            const PairDecision decision = run->Decide(page.data(), kept_page);
            if (!decision.duplicate) {
              passes_kept[i] = 0;
              continue;
            }
            similarity[i] = decision.similarity;
          } else {
            similarity[i] = run->Similarity(page.data(), kept_page);
          }
          repaired_members += round > 0;
        }
      }
      if (options_.verify) {
        // Clusters where some member failed against the kept page are
        // verified against a center too (VerificationCandidates), as
        // ClusterLive does: the holder of each such cluster's kept page
        // gathers its members' exact roots (with each root's own verdict)
        // and names the candidates; members decide against each; the holder
        // counts and names the center.
        std::vector<std::vector<KeyAndId>> out(static_cast<size_t>(x.size()));
        for (uint64_t i = 0; i < n; ++i) {
          if (!passes_kept[i]) out[x.OwnerOfId(keeper[i])].push_back({keeper[i], 0});
        }
        NEARDUP_ASSIGN_OR_RETURN(std::vector<KeyAndId> failing_in, x.ExchangeFlat(out));
        std::vector<uint8_t> failing(n, 0);  // per local kept page
        for (const KeyAndId& f : failing_in) failing[local(f.key)] = 1;
        NEARDUP_ASSIGN_OR_RETURN(std::vector<uint64_t> in_failing,
                                 x.Ask(keeper, 1, false, [&](uint64_t id, uint64_t* o) { *o = failing[local(id)]; }));
        for (auto& o : out) o.clear();
        std::vector<size_t> flagged;  // local pages of such clusters
        for (uint64_t i = 0; i < n; ++i) {
          if (!in_play[i] || !in_failing[i]) continue;
          flagged.push_back(i);
          constexpr uint64_t kVerified = uint64_t{1} << 63;  // ids are below 2^63
          const bool verified_root = root[i] == base + i && passes_kept[i];
          out[x.OwnerOfId(keeper[i])].push_back({keeper[i], root[i] | (verified_root ? kVerified : 0)});
        }
        NEARDUP_ASSIGN_OR_RETURN(std::vector<KeyAndId> member_roots, x.ExchangeFlat(out));
        std::unordered_map<uint64_t, std::vector<uint64_t>> roots_of;  // kept page -> members' roots
        std::unordered_set<uint64_t> verified;                         // roots that passed their kept page
        for (const KeyAndId& r : member_roots) {
          const uint64_t member_root = r.id & ~(uint64_t{1} << 63);
          roots_of[r.key].push_back(member_root);
          if (r.id >> 63) verified.insert(member_root);
        }
        std::vector<KeyAndId>().swap(member_roots);
        std::unordered_map<uint64_t, std::vector<uint64_t>> candidates_of;
        for (auto& [k, roots] : roots_of) {
          std::vector<uint64_t> c = VerificationCandidates(k, root[local(k)], roots);
          // A candidate is a center only when it is a verified member itself.
          for (size_t t = 1; t < c.size(); ++t) {
            if (!verified.count(c[t])) c[t] = UINT64_MAX;
          }
          c.resize(kVerificationCenters, UINT64_MAX);
          candidates_of[k] = std::move(c);
        }
        roots_of.clear();
        std::vector<uint64_t> flagged_keepers;
        for (size_t i : flagged) flagged_keepers.push_back(keeper[i]);
        NEARDUP_ASSIGN_OR_RETURN(std::vector<uint64_t> candidates,
                                 x.Ask(flagged_keepers, kVerificationCenters, false, [&](uint64_t id, uint64_t* o) {
                                   const std::vector<uint64_t>& c = candidates_of.at(id);
                                   std::copy(c.begin(), c.end(), o);
                                 }));
        // The candidates' records, each asked once.
        std::vector<uint64_t> wanted;
        for (uint64_t c : candidates) {
          if (c != UINT64_MAX) wanted.push_back(c);
        }
        const PageRecords centers(&x, *run, rw, std::move(wanted));
        NEARDUP_RETURN_IF_ERROR(centers.status());
        // Each member's verdict on each candidate, as a bit mask.
        std::vector<uint64_t> verdicts(flagged.size(), 0);
        for (auto& o : out) o.clear();
        for (size_t f = 0; f < flagged.size(); ++f) {
          const size_t i = flagged[f];
          run->Record(i, page.data());
          for (size_t t = 0; t < kVerificationCenters; ++t) {
            const uint64_t c = candidates[f * kVerificationCenters + t];
            if (c == UINT64_MAX) continue;
            // Members that passed the kept page stay whatever the center.
            bool pass = keeper_root[i] == root[i] || passes_kept[i];
            if (t > 0 && !pass) pass = root[i] == c || run->Decide(page.data(), centers.Of(c)).duplicate;
            if (pass) verdicts[f] |= uint64_t{1} << t;
          }
          out[x.OwnerOfId(keeper[i])].push_back({keeper[i], verdicts[f]});
        }
        NEARDUP_ASSIGN_OR_RETURN(std::vector<KeyAndId> votes, x.ExchangeFlat(out));
        // Per kept page: passes per candidate, then the members (one vote each).
        std::unordered_map<uint64_t, std::vector<uint64_t>> counts;
        for (const KeyAndId& v : votes) {
          std::vector<uint64_t>& c = counts.try_emplace(v.key, kVerificationCenters + 1, 0).first->second;
          for (size_t t = 0; t < kVerificationCenters; ++t) c[t] += (v.id >> t) & 1;
          ++c[kVerificationCenters];
        }
        std::vector<KeyAndId>().swap(votes);
        uint64_t moved_here = 0;
        std::unordered_map<uint64_t, uint64_t> center_index;
        for (const auto& [k, c] : counts) {
          size_t best = 0;
          for (size_t t = 1; t < kVerificationCenters; ++t) {
            if (c[t] > c[best]) best = t;
          }
          if (!CenterGathers(c[kVerificationCenters], c[0], c[best])) best = 0;
          center_index[k] = best;
          moved_here += best != 0;
        }
        NEARDUP_ASSIGN_OR_RETURN(const uint64_t recentered, x.Sum(moved_here));
        s.verification_recentered += recentered;
        NEARDUP_ASSIGN_OR_RETURN(std::vector<uint64_t> chosen,
                                 x.Ask(flagged_keepers, 1, false, [&](uint64_t id, uint64_t* o) {
                                   *o = center_index.at(id);
                                 }));
        std::vector<size_t> through_center;  // failed the kept page, stay by the center
        for (size_t f = 0; f < flagged.size(); ++f) {
          const size_t i = flagged[f];
          const size_t t = chosen[f];
          if ((verdicts[f] >> t) & 1) {
            if (!passes_kept[i]) {
              repaired_members += round > 0;
              through_center.push_back(i);
            }
            continue;
          }
          split += round == 0;
          if (!last_round) {  // a cluster of the failed members, kept apart
            repaired[i] = 1;
            repair_label[i] = keeper[i];
          } else {
            // Leaves with its exact copies (they fail alike; robust: with the
            // pages equal to it after normalization).
            failed[i] = 1;
          }
          keeper[i] = base + i;
          keeper_root[i] = root[i];
          reason[i] = kReasonSingle;
        }
        // Their similarity to the kept page, whose record is asked again.
        std::vector<uint64_t> kept_of;
        for (size_t i : through_center) kept_of.push_back(keeper[i]);
        const PageRecords kept(&x, *run, rw, std::move(kept_of));
        NEARDUP_RETURN_IF_ERROR(kept.status());
        for (size_t i : through_center) {
          run->Record(i, page.data());
          similarity[i] = run->Similarity(page.data(), kept.Of(keeper[i]));
        }
      }
      if (last_round) break;
      uint64_t repaired_here = 0;
      for (uint8_t r : repaired) repaired_here += r;
      NEARDUP_ASSIGN_OR_RETURN(const uint64_t repaired_all, x.Sum(repaired_here));
      if (repaired_all == 0) break;
      NEARDUP_RETURN_IF_ERROR(choose(repair_label, repaired));
      in_play.swap(repaired);
      std::fill(repaired.begin(), repaired.end(), 0);
    }
    NEARDUP_ASSIGN_OR_RETURN(s.verification_split_off, x.Sum(split));
    NEARDUP_ASSIGN_OR_RETURN(s.verification_repaired, x.Sum(repaired_members));
    std::vector<uint64_t> split_root(n);
    for (uint64_t i = 0; i < n; ++i) split_root[i] = run->SplitRoot(i);
    if (s.verification_split_off > 0) NEARDUP_RETURN_IF_ERROR(choose(split_root, failed));
  }

  s.stages.push_back({"verify", SecondsSince(t_verify), n * (w + 1) * 8});

  // ---- 7. redirects join the cluster of the page their chain ends at ----
  // and revisits that of the capture they name (engine/redirects.h, as
  // ClusterLive), met at the owner of each key: the targets go there; each
  // page asks it whether its URL (and, when the run holds revisits, its
  // capture: EachNameOf) is one, and those that are offer their records,
  // of which the owner takes one per key as RedirectChains does; then every
  // redirect or revisit follows its chain a hop a round, asking the owner
  // of the next key, for at most kMaxRedirectHops rounds (a chain still
  // open then loops or is too long: a cycle, as ClusterLive counts it). Per
  // process: the targets and offers it owns, and a word to four per page
  // it holds.
  enum : uint8_t { kJoinedRedirect = 1, kJoinedRevisit = 2 };
  std::vector<uint8_t> joined_page;  // local pages, when the run holds redirects or revisits
  {
    const ChunkedVector<PageRedirect>& redirects = col.redirects;  // local ids, in order
    uint64_t revisits_here = 0;
    for (size_t j = 0; j < redirects.size(); ++j) revisits_here += redirects[j].revisit;
    NEARDUP_ASSIGN_OR_RETURN(s.redirects, x.Sum(redirects.size() - revisits_here));
    NEARDUP_ASSIGN_OR_RETURN(s.revisits, x.Sum(revisits_here));
    const bool captures = s.revisits > 0;  // as ClusterLive: pages are named by capture too
    if (s.redirects + s.revisits > 0) {
      std::vector<std::vector<uint64_t>> to_owner(static_cast<size_t>(x.size()));
      for (size_t j = 0; j < redirects.size(); ++j) to_owner[x.OwnerOfKey(redirects[j].key)].push_back(redirects[j].key);
      NEARDUP_ASSIGN_OR_RETURN(std::vector<uint64_t> owned_targets, x.ExchangeFlat(std::move(to_owner)));
      FlatU64Set targets;
      targets.Reserve(owned_targets.size());
      for (uint64_t key : owned_targets) targets.Insert(key);
      std::vector<uint64_t>().swap(owned_targets);
      std::vector<uint64_t> url_keys;
      url_keys.reserve(captures ? 2 * n : n);
      NEARDUP_RETURN_IF_ERROR(each_features([&](uint64_t, const KeeperFeatures& f) {
        EachNameOf(f, captures, [&](uint64_t key) { url_keys.push_back(key); });
      }));
      NEARDUP_ASSIGN_OR_RETURN(std::vector<uint64_t> named, x.Ask(url_keys, 1, true, [&](uint64_t key, uint64_t* o) {
        *o = targets.Contains(key) ? 1 : 0;
      }));
      std::vector<uint64_t>().swap(url_keys);
      std::vector<std::vector<UrlHolder>> offers(static_cast<size_t>(x.size()));
      size_t asked_at = 0;
      NEARDUP_RETURN_IF_ERROR(each_features([&](uint64_t i, const KeeperFeatures& f) {
        EachNameOf(f, captures, [&](uint64_t key) {
          if (!named[asked_at++] || RevisitIn(redirects, i)) return;
          UrlHolder h = HolderOf(base + i, f, RedirectKeyIn(redirects, i), key);
          h.keeper = keeper[i];
          h.reason = reason[i];
          offers[x.OwnerOfKey(key)].push_back(h);
        });
      }));
      std::vector<uint64_t>().swap(named);
      NEARDUP_ASSIGN_OR_RETURN(std::vector<UrlHolder> held, x.ExchangeFlat(std::move(offers)));
      const RedirectChains holders(held);
      std::vector<UrlHolder>().swap(held);
      // The chains, a hop a round: the owner answers what holds the URL.
      enum : uint64_t { kNothing = 0, kEnds = 1, kGoesOn = 2 };
      std::vector<uint64_t> at(redirects.size());
      std::vector<size_t> open(redirects.size());
      for (size_t j = 0; j < redirects.size(); ++j) {
        at[j] = redirects[j].key;
        open[j] = j;
      }
      joined_page.assign(n, 0);
      uint64_t joined_here = 0, revisits_joined_here = 0, cycles_here = 0;
      for (int hop = 0;; ++hop) {
        NEARDUP_ASSIGN_OR_RETURN(const uint64_t still_open, x.Sum(open.size()));
        if (still_open == 0) break;
        if (hop == kMaxRedirectHops) {
          cycles_here = open.size();
          break;
        }
        std::vector<uint64_t> asked(open.size());
        for (size_t t = 0; t < open.size(); ++t) asked[t] = at[open[t]];
        NEARDUP_ASSIGN_OR_RETURN(std::vector<uint64_t> answers, x.Ask(asked, 3, true, [&](uint64_t key, uint64_t* o) {
          const UrlHolder* h = holders.Holder(key);
          o[0] = h == nullptr ? kNothing : h->ends ? kEnds : h->redirect_key != kNoRedirect ? kGoesOn : kNothing;
          o[1] = h == nullptr ? 0 : h->ends ? h->keeper : h->redirect_key;
          o[2] = h == nullptr ? 0 : h->reason;
        }));
        size_t still = 0;
        for (size_t t = 0; t < open.size(); ++t) {
          const size_t j = open[t];
          const uint64_t* o = answers.data() + 3 * t;
          if (o[0] == kGoesOn) {
            at[j] = o[1];
            open[still++] = j;
          } else if (o[0] == kEnds) {
            const uint64_t i = redirects[j].id;
            keeper[i] = o[1];
            reason[i] = static_cast<uint8_t>(o[2]);
            joined_page[i] = redirects[j].revisit ? kJoinedRevisit : kJoinedRedirect;
            ++(redirects[j].revisit ? revisits_joined_here : joined_here);
          }
        }
        open.resize(still);
      }
      NEARDUP_ASSIGN_OR_RETURN(s.redirects_joined, x.Sum(joined_here));
      NEARDUP_ASSIGN_OR_RETURN(s.revisits_joined, x.Sum(revisits_joined_here));
      NEARDUP_ASSIGN_OR_RETURN(s.redirect_cycles, x.Sum(cycles_here));
    }
  }
  auto is_joined = [&](uint64_t i) { return !joined_page.empty() && joined_page[i] != 0; };

  // ---- 8. the clustering: sizes of the final clusters at their kept page ----
  const auto t_final = Clock::now();
  constexpr uint64_t kNearBit = uint64_t{1} << 63;
  // Per kept page: its members | kNearBit, then the redirects and revisits
  // joined to it, then of those the revisits.
  std::vector<uint64_t> final_here(3 * n, 0);
  {
    std::unordered_map<uint64_t, uint64_t> count, redirects_to, revisits_to;
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t& c = count[keeper[i]];
      ++c;
      if (is_joined(i)) {
        ++redirects_to[keeper[i]];
        if (joined_page[i] == kJoinedRevisit) ++revisits_to[keeper[i]];
      } else if (near_method && keeper_root[i] != root[i]) {
        c |= kNearBit;
      }
    }
    std::vector<std::vector<KeyAndId>> out(static_cast<size_t>(x.size()));
    for (const auto& [k, c] : count) out[x.OwnerOfId(k)].push_back({k, c});
    NEARDUP_ASSIGN_OR_RETURN(auto in, x.Exchange(out));
    for (const auto& from : in) {
      for (const KeyAndId& c : from) {
        uint64_t& f = final_here[3 * local(c.key)];
        f += c.id & ~kNearBit;  // counts stay far below bit 63
        f |= c.id & kNearBit;
      }
    }
    for (int slot : {1, 2}) {
      if (slot == 2 && s.revisits == 0) break;  // the same on every process
      for (auto& o : out) o.clear();
      for (const auto& [k, r] : slot == 1 ? redirects_to : revisits_to) out[x.OwnerOfId(k)].push_back({k, r});
      NEARDUP_ASSIGN_OR_RETURN(auto joined_in, x.Exchange(out));
      for (const auto& from : joined_in) {
        for (const KeyAndId& r : from) final_here[3 * local(r.key) + slot] += r.id;
      }
    }
  }
  NEARDUP_ASSIGN_OR_RETURN(std::vector<uint64_t> final_size,
                           x.Ask(keeper, 3, false, [&](uint64_t id, uint64_t* o) {
                             for (int t = 0; t < 3; ++t) o[t] = final_here[3 * local(id) + t];
                           }));
  std::vector<TogetherRow> rows(n);
  uint64_t in_clusters = 0, clusters = 0, largest = 0, near_members = 0;
  for (uint64_t i = 0; i < n; ++i) {
    TogetherRow& r = rows[i];
    const uint64_t members = final_size[3 * i] & ~kNearBit;
    const uint64_t redirects_in = final_size[3 * i + 1], revisits_in = final_size[3 * i + 2];
    // The cluster's other members all redirect to its kept page, or revisit it.
    const bool only_redirects = redirects_in > 0 && redirects_in + 1 == members;
    const bool only_revisits = only_redirects && revisits_in == redirects_in;
    const bool self = keeper[i] == base + i;
    r.keeper = keeper[i];
    if (members < 2) {
      r.role = DocRole::kSingle;
      r.reason = kReasonSingle;
      continue;
    }
    r.reason = only_revisits ? kReasonRevisited : only_redirects ? kReasonRedirectTarget : reason[i];
    ++in_clusters;
    if (self) {
      ++clusters;
      largest = std::max(largest, members);
      r.role = DocRole::kKeep;
      r.method = near_method && (final_size[3 * i] & kNearBit) ? 2 : only_revisits ? 4 : only_redirects ? 3 : 1;
    } else if (is_joined(i)) {
      r.role = DocRole::kDuplicate;
      r.method = joined_page[i] == kJoinedRevisit ? 4 : 3;
    } else if (keeper_root[i] == root[i]) {
      r.role = DocRole::kDuplicate;
      r.method = 1;
    } else {
      r.role = DocRole::kDuplicate;
      r.method = 2;
      r.similarity = similarity[i];
      ++near_members;
    }
  }
  NEARDUP_ASSIGN_OR_RETURN(s.documents_in_clusters, x.Sum(in_clusters));
  NEARDUP_ASSIGN_OR_RETURN(s.clusters, x.Sum(clusters));
  NEARDUP_ASSIGN_OR_RETURN(s.largest_cluster, x.Max(largest));
  NEARDUP_ASSIGN_OR_RETURN(s.near_duplicate_members, x.Sum(near_members));
  s.duplicates = s.documents_in_clusters - s.clusters;
  s.duplicate_percentage = s.documents ? 100.0 * static_cast<double>(s.duplicates) / s.documents : 0.0;
  s.stages.push_back({"clusters", SecondsSince(t_final), n * 24});

  // The method's sections of summary.json come from a run over no pages:
  // every figure they hold is in the summary.
  MethodCollection empty_collection;
  empty_collection.env = env_;
  empty_collection.temp_dir = options_.temp_dir.empty() ? "." : options_.temp_dir;
  run_ = method_->NewRun(std::move(empty_collection));
  if (bytes_sent) *bytes_sent = x.sent();
  return rows;
}

}  // namespace neardup
