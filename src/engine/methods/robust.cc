// `robust`, the default method (src/engine/robust_stage.h has the whole
// description): Henzinger's correct near duplicates after volatile terms
// are normalized, and pages of one site compared on what is not the site's
// boilerplate.
#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <unordered_map>

#include "base/path.h"
#include "base/stopwatch.h"
#include "base/word_filter.h"
#include "engine/methods/methods.h"
#include "engine/parallel.h"
#include "engine/robust_stage.h"

namespace neardup {

namespace {

// The spec's switches: `key` sets the field, `no-key` clears it. With
// older_off, a whole spec written before the switch existed (one that
// names neither) means it off, as the text before it did.
struct RobustSwitch {
  std::string_view key;
  bool RobustMethodOptions::*field;
  bool older_off;
};
constexpr RobustSwitch kRobustSwitches[] = {
    {"numbers", &RobustMethodOptions::normalize_numbers, false},
    {"own-url", &RobustMethodOptions::normalize_own_url, false},
    // Before URLs in the text were one class: only the page's own.
    {"text-urls", &RobustMethodOptions::normalize_text_urls, true},
    // Before an image was volatile by its file name alone: by its whole URL.
    {"image-names", &RobustMethodOptions::image_file_names, true},
    // Before titles were compared: none.
    {"titles", &RobustMethodOptions::compare_titles, true},
    // Before a title's numbers were marked: none.
    {"title-numbers", &RobustMethodOptions::title_numbers, true},
    // Before function words were no word in common: every word.
    {"title-function-words", &RobustMethodOptions::title_function_words, true},
    // Before titles decided where the values cannot: the values alone.
    {"titles-decide", &RobustMethodOptions::titles_decide, true},
};

// The switch that `key` or its `no-` form names; nullptr for none.
const RobustSwitch* SwitchNamed(std::string_view key) {
  if (key.starts_with("no-")) key.remove_prefix(3);
  for (const RobustSwitch& w : kRobustSwitches) {
    if (w.key == key) return &w;
  }
  return nullptr;
}

}  // namespace

Status ParseRobustSpec(std::string_view items, RobustMethodOptions* o) {
  // A whole spec, as Spec() writes it into a store's header or a
  // summary.json: it names k, m, r, template, content and the seed, as
  // every version of Spec() has. Keys added since then have defaults that
  // change what such a spec meant when it was written, so a whole spec
  // without them keeps its old meaning; a partial spec ("robust:seed=7",
  // "robust:r=2,content=0.3") takes today's defaults for what it leaves out.
  const std::vector<SpecItem> parsed = SplitSpecItems(items);
  auto names = [&](std::string_view key) {
    return std::any_of(parsed.begin(), parsed.end(), [&](const SpecItem& it) { return it.key == key; });
  };
  const bool whole = names("k") && names("m") && names("r") && names("template") && names("content") && names("seed");
  // Written before main text existed: pages without main-text values ...
  if (whole && !names("main-m")) o->main_minhashes = 0;
  // ... before 32-bit values (no `hash`): 64-bit ones ...
  if (whole && !names("hash")) o->minhash_bits = 64;
  // ... before containment (main text, no `contain`): none ...
  if (whole && !names("contain")) o->min_main_containment = 0;
  // ... and, for each switch added since (kRobustSwitches' `older_off`),
  // without it or its `no-` form: the switch off ...
  for (const RobustSwitch& w : kRobustSwitches) {
    if (whole && w.older_off && !names(w.key) && !names("no-" + std::string(w.key))) o->*w.field = false;
  }
  // ... and before main-text bands of their own (no `main-r`): main text
  // banded as the whole page (r), as its store's keys were made.
  const bool main_rows_as_whole = whole && !names("main-r");
  for (const SpecItem& it : parsed) {
    uint64_t v = 0;
    auto as_u32 = [&](uint64_t lo, uint64_t hi, uint32_t* out) {
      NEARDUP_RETURN_IF_ERROR(ParseSpecUint("robust", it, lo, hi, &v));
      *out = static_cast<uint32_t>(v);
      return Status::OK();
    };
    Status s;
    const RobustSwitch* w = it.has_value ? nullptr : SwitchNamed(it.key);
    if (w != nullptr) {
      o->*w->field = !it.key.starts_with("no-");
    } else if (it.key == "k") {
      s = as_u32(1, 64, &o->shingle_size);
    } else if (it.key == "m") {
      s = as_u32(1, 1024, &o->num_minhashes);
    } else if (it.key == "r") {
      s = as_u32(1, 1024, &o->band_rows);
    } else if (it.key == "template") {
      s = as_u32(2, 1u << 30, &o->template_min_pages);
    } else if (it.key == "content") {
      s = ParseSpecDouble("robust", it, 0, 1, &o->min_content_similarity);
    } else if (it.key == "template-fraction") {
      s = ParseSpecDouble("robust", it, 0, 1, &o->template_site_fraction);
    } else if (it.key == "no-template") {
      s = ParseSpecDouble("robust", it, 0, 1, &o->min_similarity_without_template);
    } else if (it.key == "edit") {
      s = as_u32(0, 40, &o->max_edit_shingles);
    } else if (it.key == "same-site-edit") {
      s = as_u32(0, 40, &o->max_same_site_edit_shingles);
    } else if (it.key == "main-m") {
      s = as_u32(0, 1024, &o->main_minhashes);
    } else if (it.key == "main-r") {
      s = as_u32(1, 1024, &o->main_band_rows);
    } else if (it.key == "main-line") {
      s = as_u32(1, 1u << 20, &o->main_line_terms);
    } else if (it.key == "main-min") {
      s = as_u32(1, 1u << 30, &o->main_min_terms);
    } else if (it.key == "main") {
      s = ParseSpecDouble("robust", it, 0, 1, &o->min_main_similarity);
    } else if (it.key == "contain") {
      s = ParseSpecDouble("robust", it, 0, 1, &o->min_main_containment);
    } else if (it.key == "hash") {
      s = as_u32(32, 64, &o->minhash_bits);  // 32 or 64: ValidateRobust
    } else if (it.key == "seed") {
      s = ParseSpecUint("robust", it, 0, UINT64_MAX, &o->seed);
    } else {
      return UnknownSpecKey("robust", it,
                            "k=N, m=N, r=N, template=N, template-fraction=X, content=X, no-template=X, edit=N, "
                            "same-site-edit=N, main-m=N, main-r=N, main-line=N, main-min=N, main=X, contain=X, numbers, no-numbers, "
                            "own-url, no-own-url, text-urls, no-text-urls, image-names, no-image-names, titles, no-titles, "
                            "title-numbers, no-title-numbers, title-function-words, no-title-function-words, "
                            "titles-decide, no-titles-decide, hash=32|64, seed=N");
    }
    NEARDUP_RETURN_IF_ERROR(s);
  }
  if (main_rows_as_whole) o->main_band_rows = o->band_rows;
  return Status::OK();
}

Result<RobustMethodOptions> RobustMethodOptions::Parse(std::string_view spec) {
  RobustMethodOptions o;
  if (spec == "robust") return o;
  if (!spec.starts_with("robust:")) return Status::InvalidArgument("not a robust spec: " + std::string(spec));
  NEARDUP_RETURN_IF_ERROR(ParseRobustSpec(spec.substr(7), &o));
  NEARDUP_RETURN_IF_ERROR(ValidateRobust(o));
  return o;
}

Status ValidateRobust(const RobustMethodOptions& o) {
  Status s = RobustSketchOptions(o).Validate();
  if (!s.ok()) return Status::InvalidArgument("robust: " + s.message());
  if (o.band_rows < 1 || o.band_rows > o.num_minhashes) {
    return Status::InvalidArgument("robust: band_rows must be in 1..num_minhashes");
  }
  if (o.max_edit_shingles > 40 || o.max_same_site_edit_shingles > 40) {
    return Status::InvalidArgument(
        "robust: max_edit_shingles and max_same_site_edit_shingles must be at most 40 (what 72 digest cells decode)");
  }
  if (o.num_minhashes > 1024 || o.main_minhashes > 1024) {
    return Status::InvalidArgument("robust: num_minhashes and main_minhashes must be at most 1024");
  }
  if (o.main_minhashes > 0 && (o.main_band_rows < 1 || o.main_band_rows > o.main_minhashes)) {
    return Status::InvalidArgument("robust: main_band_rows (main-r) must be in 1..main_minhashes");
  }
  if (o.minhash_bits != 32 && o.minhash_bits != 64) {
    return Status::InvalidArgument("robust: hash (minhash_bits) must be 32 or 64, not " + std::to_string(o.minhash_bits));
  }
  if (o.template_min_pages < 2) return Status::InvalidArgument("robust: template_min_pages must be at least 2");
  if (!(o.min_content_similarity >= 0 && o.min_content_similarity <= 1) ||
      !(o.min_similarity_without_template >= 0 && o.min_similarity_without_template <= 1) ||
      !(o.template_site_fraction >= 0 && o.template_site_fraction <= 1) ||
      !(o.min_main_similarity >= 0 && o.min_main_similarity <= 1) ||
      !(o.min_main_containment >= 0 && o.min_main_containment <= 1)) {
    return Status::InvalidArgument(
        "robust: min_content_similarity, min_similarity_without_template, template_site_fraction, "
        "min_main_similarity and min_main_containment must be in [0, 1]");
  }
  return Status::OK();
}

namespace {

// Signature words: [site][normalized identity][m min-hash values, two per
// word][kRobustDigestCells digest cells, when edits are looked for][the
// main text's distinct shingles in the low 32 bits and the whole page's in
// the high 32 bits, when containment is looked for][kRobustTitleWords
// words of its title (PackRobustTitle), when titles are compared].
struct RobustLayout {
  uint32_t m = 0;
  bool digests = false;
  bool main_shingles = false;
  bool titles = false;
  size_t min_words() const { return (m + 1) / 2; }
  size_t digest_at() const { return 2 + min_words(); }
  size_t main_shingles_at() const { return digest_at() + (digests ? kRobustDigestCells : 0); }
  size_t title_at() const { return main_shingles_at() + (main_shingles ? 1 : 0); }
  size_t words() const { return title_at() + (titles ? kRobustTitleWords : 0); }
  // A record's view for the rule (RobustDecide), its min-hash values at
  // `mins` (the record's own, or a copy of them).
  RobustPageView View(const uint32_t* mins, uint64_t site, const uint64_t* record) const {
    RobustPageView v;
    v.mins = mins;
    v.site = site;
    v.digest = digests ? record + digest_at() : nullptr;
    if (main_shingles) UnpackShingleCounts(record[main_shingles_at()], &v);
    if (titles) v.title = record + title_at();
    return v;
  }
};

// Sites holding pages equal after normalization become one site group
// (mirrors: an original and its copies on other hosts learn one template
// and are judged as one site), but only through a set of such pages on at
// most kMirrorSetSites sites. A page that many sites hold is a common page,
// not a mirror: a server's default or error page, a parking page, a manual
// installed with a web server. Joining every host that shows one would make
// them one site, whose template is learned at 5% of all their pages, so
// that no host's own template is boilerplate any more.
constexpr size_t kMirrorSetSites = 4;

// Two sites are mirrors, one site group, when at least this share of the
// smaller one's pages are equal after normalization to pages of the other
// (Bharat and Broder's mirrors hold copies of most of what they mirror).
// One page equal to one of another site's is a copy, not a mirror: an
// aggregator or a scraper that copies one story from each of many sites
// would otherwise join them all into one site group through itself, whose
// template is learned at 5% of all their pages, so that no source's own
// template is boilerplate any more and two stories of one source read as
// one text. Fixed beforehand ("most of the smaller site"), not tuned.
constexpr double kMirrorShareOfSmallerSite = 0.5;

// The distinct sites of a set's pages, sorted, in `sites`; whether the set
// links them (at most kMirrorSetSites of them).
bool SetLinksItsSites(std::vector<uint64_t>* sites) {
  std::sort(sites->begin(), sites->end());
  sites->erase(std::unique(sites->begin(), sites->end()), sites->end());
  return sites->size() <= kMirrorSetSites;
}

// Calls link(a, b) for each pair a < b of a set's distinct sites
// (SetLinksItsSites): one link a set, the sets two sites share counted
// where the links are judged (AreMirrors).
template <typename LinkFn>
void LinkSites(const std::vector<uint64_t>& sites, const LinkFn& link) {
  for (size_t i = 0; i < sites.size(); ++i) {
    for (size_t k = i + 1; k < sites.size(); ++k) link(sites[i], sites[k]);
  }
}

// Whether two sites of `pages_a` and `pages_b` pages that share `shared`
// sets of pages equal after normalization are mirrors
// (kMirrorShareOfSmallerSite).
bool AreMirrors(uint64_t shared, uint64_t pages_a, uint64_t pages_b) {
  return static_cast<double>(shared) >= kMirrorShareOfSmallerSite * static_cast<double>(std::min(pages_a, pages_b));
}

uint64_t RobustSiteKey(std::string_view url, std::string_view canonical_url) {
  const std::string site = RobustSiteOf(url, canonical_url);
  return XXH3_64bits(site.data(), site.size());
}

const char kEqualAfterNormalization[] =
    "equal after volatile terms and the own URL are normalized (Henzinger's correct near duplicates)";

class RobustScratch final : public SignScratch {
 public:
  SketchScratch sketch;
  std::vector<uint64_t> normalized;
  std::vector<uint32_t> mins;
};

class RobustRun final : public ListedPairsRun<RobustPair> {
 public:
  // Reads the pages' signature words where the collection holds them:
  // mapped from the Deduper's spill file (MethodCollection::mapped_words),
  // or in memory. Only the site keys get a column of their own.
  RobustRun(MethodCollection c, const RobustMethodOptions& o, RobustLayout l) : c_(std::move(c)), o_(o), l_(l) {
    const uint32_t n = c_.n;
    if (c_.mapped_words) {
      base_ = reinterpret_cast<const uint64_t*>(c_.mapped_words->data().data());
    } else {
      c_.Materialize();
      base_ = c_.words.data();
    }
    sites_.resize(n);
    ForEachRecordBlock([&](uint32_t from, uint32_t to, const uint64_t* records) {
      for (uint32_t p = from; p < to; ++p) sites_[p] = records[size_t{p - from} * l_.words()];
    });
  }

  Status FindPairs(UnionFind* uf, DedupSummary* summary) override {
    const uint32_t n = c_.n;
    std::vector<uint8_t> candidate(n);
    for (uint32_t i = 0; i < n; ++i) candidate[i] = c_.exact_root[i] == i && c_.eligible[i];
    // Pages equal after normalization are correct near duplicates by
    // Henzinger's definition: joined directly; one page per such set goes
    // on. Each set is walked in input order (its pages sorted by identity,
    // then page), which is what a walk over all pages does to it.
    // Sites holding pages equal after normalization are linked
    // (SetLinksItsSites), and mirrors among them become one site group.
    std::unordered_map<uint64_t, uint32_t> site_index;
    std::vector<uint64_t> site_pages;  // eligible pages a site, by index
    for (uint32_t i = 0; i < n; ++i) {
      const auto [it, added] = site_index.try_emplace(sites_[i], static_cast<uint32_t>(site_index.size()));
      if (added) site_pages.push_back(0);
      site_pages[it->second] += c_.eligible[i];
    }
    UnionFind site_groups(static_cast<uint32_t>(site_index.size()));
    std::vector<uint64_t> site_links;  // (a << 32) | b, a < b site indexes: one a set and pair of its sites
    normalized_root_ = c_.exact_root;
    // (identity, page) of the eligible pages: each block of records fills
    // its own stretch, the eligible pages before it counted first.
    std::vector<size_t> eligible_before((n + kRecordsPerRead - 1) / kRecordsPerRead + 1, 0);
    for (uint32_t i = 0; i < n; ++i) eligible_before[i / kRecordsPerRead + 1] += c_.eligible[i];
    for (size_t b = 1; b < eligible_before.size(); ++b) eligible_before[b] += eligible_before[b - 1];
    std::vector<std::pair<uint64_t, uint32_t>> by_identity(eligible_before.back());
    ForEachRecordBlock([&](uint32_t from, uint32_t to, const uint64_t* records) {
      size_t at = eligible_before[from / kRecordsPerRead];
      for (uint32_t i = from; i < to; ++i) {
        if (c_.eligible[i]) by_identity[at++] = {records[size_t{i - from} * l_.words() + 1], i};
      }
    });
    SortOnThreads(&by_identity, c_.executor);
    std::vector<uint64_t> set_sites;
    for (size_t s = 0; s < by_identity.size();) {
      size_t e = s;
      while (e < by_identity.size() && by_identity[e].first == by_identity[s].first) ++e;
      if (e - s > 1) {  // every page equal to another (exact copies too) links the sites
        set_sites.clear();
        for (size_t k = s; k < e; ++k) set_sites.push_back(site_index[sites_[by_identity[k].second]]);
        if (SetLinksItsSites(&set_sites)) {
          LinkSites(set_sites, [&](uint64_t a, uint64_t b) { site_links.push_back((a << 32) | b); });
        }
      }
      uint32_t first = by_identity[s].second;  // the set's page that goes on
      normalized_root_[first] = first;
      for (size_t k = s + 1; k < e; ++k) {
        const uint32_t i = by_identity[k].second;
        normalized_root_[i] = first;
        if (!candidate[i]) continue;
        if (!candidate[first]) {  // the first page was an exact copy: i goes on
          first = i;
          continue;
        }
        uf->Union(first, i);
        candidate[i] = 0;
        ++summary->normalized_identity_members;
      }
      s = e;
    }
    std::vector<std::pair<uint64_t, uint32_t>>().swap(by_identity);
    // Sites are one group where they are mirrors (AreMirrors), and through
    // such links only.
    std::sort(site_links.begin(), site_links.end());
    for (size_t s = 0; s < site_links.size();) {
      size_t e = s;
      while (e < site_links.size() && site_links[e] == site_links[s]) ++e;
      const uint32_t a = static_cast<uint32_t>(site_links[s] >> 32), b = static_cast<uint32_t>(site_links[s]);
      if (AreMirrors(e - s, site_pages[a], site_pages[b])) site_groups.Union(a, b);
      s = e;
    }
    std::vector<uint64_t>().swap(site_links);
    for (uint32_t i = 0; i < n; ++i) sites_[i] = site_groups.Find(site_index[sites_[i]]);
    RobustStageFiles files;
    if (c_.temp_files) files = RobustStageFiles{c_.env, c_.temp_dir, ""};
    NEARDUP_ASSIGN_OR_RETURN(RobustStageResult found, RunRobustStage(Pages(), candidate, o_, c_.max_bucket_pages,
                                                                     c_.collect_pairs, files, &templates_, uf,
                                                                     c_.executor, c_.MemoryLeft()));
    summary->near_candidates = found.candidates;
    summary->near_candidate_pairs = found.candidate_pairs;
    summary->near_candidate_pairs_already_joined = found.pairs_already_joined;
    summary->near_steps = {{"templates", found.templates_seconds},
                           {"tables", found.tables_seconds},
                           {"pairs", found.pairs_seconds}};
    summary->near_pairs = found.pairs;
    summary->template_values = found.template_values;
    summary->pages_with_near_duplicate = found.pages_with_pair;
    pairs_ = std::move(found.pairs_found);
    return Status::OK();
  }
  uint32_t SplitRoot(uint32_t p) const override { return normalized_root_[p]; }
  // Decide and Similarity read two pages out of order: from a mapped spill
  // each record is copied with one read (Record), so that the pages stay out
  // of resident memory.
  PairDecision Decide(uint32_t a, uint32_t b) const override {
    uint64_t* scratch = Scratch();
    return DecideRecords(a, Record(a, scratch), b, Record(b, scratch + l_.words()), /*with_reason=*/true);
  }
  // The rule over pages a and b whose records are ra and rb: equal after
  // normalization, or RobustDecide.
  PairDecision DecideRecords(uint32_t a, const uint64_t* ra, uint32_t b, const uint64_t* rb, bool with_reason) const {
    if (ra[1] != 0 && ra[1] == rb[1]) return PairDecision{true, 1.0, with_reason ? kEqualAfterNormalization : ""};
    return RobustDecide(templates_, ViewOf(a, ra), ViewOf(b, rb), o_, nullptr, with_reason);
  }
  // Decide for pairs whose records are read together, kDecidePairs pairs'
  // at a time (MappedFile::ReadMany), without the reasons.
  void DecideMany(std::span<const std::pair<uint32_t, uint32_t>> pairs, PairDecision* decisions) const override {
    if (!c_.mapped_words) {
      MethodRun::DecideMany(pairs, decisions);
      return;
    }
    constexpr size_t kDecidePairs = 32;
    const size_t words = l_.words();
    const size_t bytes = words * sizeof(uint64_t);
    thread_local std::vector<uint64_t> records;
    thread_local std::vector<MappedFile::ReadRequest> requests;
    records.resize(2 * kDecidePairs * words);
    for (size_t first = 0; first < pairs.size(); first += kDecidePairs) {
      const size_t count = std::min(kDecidePairs, pairs.size() - first);
      requests.resize(2 * count);
      for (size_t i = 0; i < count; ++i) {
        const auto [a, b] = pairs[first + i];
        requests[2 * i] = {uint64_t{a} * bytes, bytes, reinterpret_cast<char*>(records.data() + 2 * i * words)};
        requests[2 * i + 1] = {uint64_t{b} * bytes, bytes, reinterpret_cast<char*>(records.data() + (2 * i + 1) * words)};
      }
      if (!c_.mapped_words->ReadMany(requests).ok()) {
        for (size_t i = first; i < first + count; ++i) decisions[i] = Decide(pairs[i].first, pairs[i].second);
        continue;
      }
      for (size_t i = 0; i < count; ++i) {
        const auto [a, b] = pairs[first + i];
        const uint64_t* ra = records.data() + 2 * i * words;
        decisions[first + i] = DecideRecords(a, ra, b, ra + words, /*with_reason=*/false);
      }
    }
  }
  // The tables of RunRobustStage, told for one pair: a page stands in them
  // only as the first of its exact and normalized identity sets, and two
  // such pages are a candidate pair when they share a band (RobustBandFirst)
  // of values not all boilerplate, or a whole-page band of
  // kRobustWholeBandRows values. (A bucket of more than max_bucket_pages
  // pages pairs its first page with the others only.)
  std::string Candidacy(uint32_t a, uint32_t b) const override {
    uint64_t* scratch = Scratch();
    const uint64_t* ra = Record(a, scratch);
    const uint64_t* rb = Record(b, scratch + l_.words());
    if (ra[1] != 0 && ra[1] == rb[1]) return "equal after normalization: joined without the tables";
    auto stand_in = [&](uint32_t p, const char* name) -> std::string {
      if (c_.exact_root[p] != p) return std::string(name) + " is an exact copy of another page, which stands for it";
      if (normalized_root_[p] != p) {
        return std::string(name) + " is equal after normalization to another page, which stands for it";
      }
      return {};
    };
    std::string stands = stand_in(a, "A");
    const std::string stands_b = stand_in(b, "B");
    if (!stands.empty() && !stands_b.empty()) stands += "; ";
    stands += stands_b;
    if (!stands.empty()) return "not a candidate pair itself: " + stands + " in the candidate tables";
    const RobustPageView va = ViewOf(a, ra), vb = ViewOf(b, rb);
    const uint32_t bands = RobustBandCount(o_, HasMainText(va.mins, o_) && HasMainText(vb.mins, o_));
    uint32_t shared = 0, boilerplate_only = 0;
    for (uint32_t band = 0; band < bands; ++band) {
      const uint32_t first = RobustBandFirst(o_, band), rows = RobustBandRows(o_, band);
      if (!std::equal(va.mins + first, va.mins + first + rows, vb.mins + first)) continue;
      ++(RobustBandIsBoilerplate(templates_, o_, va.mins, band) ? boilerplate_only : shared);
    }
    uint32_t whole_shared = 0;
    const uint32_t whole_bands = RobustWholeBandCount(o_);
    for (uint32_t w = 0; w < whole_bands; ++w) {
      const uint32_t first = w * kRobustWholeBandRows;
      whole_shared += std::equal(va.mins + first, va.mins + first + kRobustWholeBandRows, vb.mins + first);
    }
    const std::string tables = std::to_string(bands) + " bands (" + std::to_string(o_.band_rows) +
                               " values of the whole page, " + std::to_string(o_.main_band_rows) +
                               " of the main text)";
    if (shared > 0 || whole_shared > 0) {
      return "a candidate pair: they share " + std::to_string(shared) + " of " + tables +
             " outside the boilerplate and " + std::to_string(whole_shared) + " of " + std::to_string(whole_bands) +
             " whole-page bands of " + std::to_string(kRobustWholeBandRows) +
             " values; the rule decided the pair itself (unless other pairs had joined the two before)";
    }
    return "not a candidate pair: they share none of " + tables + " outside the boilerplate (" +
           std::to_string(boilerplate_only) + " made only of boilerplate) and none of " +
           std::to_string(whole_bands) + " whole-page bands of " + std::to_string(kRobustWholeBandRows) +
           " values, so the clustering never decided the pair itself: the two can be in one cluster only through other pages";
  }
  double Similarity(uint32_t page, uint32_t kept) const override {
    uint64_t* scratch = Scratch();
    // The similarity of the rule's decision (the main text's when it decided).
    return DecideRecords(page, Record(page, scratch), kept, Record(kept, scratch + l_.words()), /*with_reason=*/false)
        .similarity;
  }
  // Each call reads its records into the calling thread's scratch; the
  // templates and sites are not written after FindPairs.
  bool decides_concurrently() const override { return true; }
  std::vector<PairColumn> PairColumns() const override {
    return {{"content_similarity", 4}, {"content_positions", 0}};
  }
  void PairValues(const RobustPair& p, double* v) const override {
    v[0] = p.match.positions ? static_cast<double>(p.match.agreeing) / p.match.positions : 1.0;
    v[1] = p.match.positions;
  }
  void WriteSummary(const DedupSummary& s, const DedupOptions&, nlohmann::ordered_json* root) const override {
    nlohmann::ordered_json& near = (*root)["near_duplicates"];
    near["normalized_identity_members"] = s.normalized_identity_members;
    near["template_values"] = s.template_values;
    near["candidate_pairs"] = s.near_candidate_pairs;
    near["candidate_pairs_already_joined"] = s.near_candidate_pairs_already_joined;
    if (!s.near_steps.empty()) {
      nlohmann::ordered_json& seconds = near["seconds"];
      for (const StageStats& step : s.near_steps) seconds[step.name] = step.seconds;
    }
  }

 private:
  const uint64_t* Words(uint32_t p) const { return base_ + size_t{p} * l_.words(); }
  // Pages' records a block of kRecordsPerRead at a time.
  static constexpr uint32_t kRecordsPerRead = 256;
  // fn(from, to, records) for every block [from, to) of kRecordsPerRead
  // pages (the last shorter), blocks at once on the collection's executor:
  // page p's words at records + (p - from) * l_.words(). A mapped spill's
  // block is copied with one read, which makes nothing resident (the
  // mapping is read where that read fails); words in memory are read in
  // place. fn is called from several threads, each block once.
  void ForEachRecordBlock(const std::function<void(uint32_t, uint32_t, const uint64_t*)>& fn) const {
    const uint32_t n = c_.n;
    const size_t words = l_.words();
    WorkPool<std::vector<uint64_t>> buffers([&] { return std::make_unique<std::vector<uint64_t>>(); });
    RunTasks(c_.executor, (size_t{n} + kRecordsPerRead - 1) / kRecordsPerRead, [&](size_t b) {
      const uint32_t from = static_cast<uint32_t>(b * kRecordsPerRead);
      const uint32_t to = std::min(n, from + kRecordsPerRead);
      const uint64_t* records = Words(from);
      std::unique_ptr<std::vector<uint64_t>> buffer;
      if (c_.mapped_words) {
        buffer = buffers.Acquire();
        buffer->resize(size_t{to - from} * words);
        if (c_.mapped_words->ReadAt(uint64_t{from} * words * sizeof(uint64_t), buffer->size() * sizeof(uint64_t),
                                    reinterpret_cast<char*>(buffer->data())).ok()) {
          records = buffer->data();
        }
      }
      fn(from, to, records);
      if (buffer) buffers.Release(std::move(buffer));
    });
  }
  // Page p's words: in place, or, from a mapped spill, copied into scratch
  // (l_.words() words) with one read that makes nothing resident.
  const uint64_t* Record(uint32_t p, uint64_t* scratch) const {
    const size_t bytes = l_.words() * sizeof(uint64_t);
    if (!c_.mapped_words || !c_.mapped_words->ReadAt(uint64_t{p} * bytes, bytes, reinterpret_cast<char*>(scratch)).ok()) {
      return Words(p);  // the mapping holds the same bytes
    }
    return scratch;
  }
  RobustPageView ViewOf(uint32_t p, const uint64_t* record) const {
    return l_.View(reinterpret_cast<const uint32_t*>(record + 2), sites_[p], record);
  }
  // Two records' room, the calling thread's.
  uint64_t* Scratch() const {
    thread_local std::vector<uint64_t> scratch;
    if (scratch.size() < 2 * l_.words()) scratch.resize(2 * l_.words());
    return scratch.data();
  }
  RobustPages Pages() const {
    RobustPages p;
    p.n = c_.n;
    p.m = l_.m;
    p.mins = reinterpret_cast<const uint32_t*>(base_ + 2);
    p.mins_stride = l_.words() * 2;
    p.digests = l_.digests ? base_ + l_.digest_at() : nullptr;
    p.digest_stride = l_.words();
    p.site = sites_;
    p.file = c_.mapped_words.get();
    p.record_words = l_.words();
    p.mins_word = 2;
    p.digest_word = l_.digest_at();
    if (l_.main_shingles) {
      p.main_shingles = base_ + l_.main_shingles_at();
      p.main_shingles_word = l_.main_shingles_at();
    }
    if (l_.titles) {
      p.titles = base_ + l_.title_at();
      p.titles_stride = l_.words();
      p.title_word = l_.title_at();
    }
    return p;
  }

  MethodCollection c_;
  RobustMethodOptions o_;
  RobustLayout l_;
  const uint64_t* base_ = nullptr;  // page p's words at base_ + p * l_.words()
  std::vector<uint64_t> sites_;     // site keys, then (FindPairs) site groups
  std::vector<uint32_t> normalized_root_;
  SiteTemplates templates_;
};

// Pages per round of the exchanges whose records grow with m per page
// (a site group's pages on their way to its owner). Pages per round of the
// template masks: a round's table of distinct values (512 * 126 of them at
// most, 1.5 MB with their slots) stays within a core's caches (a million
// pages on one rank: 7.0 s at 2,048 pages a round, 5.6 s at 512; 250,000:
// 1.63 / 1.45 / 1.20 / 1.02 s at 2,048 / 1,024 / 512 / 256). Rounds of
// 256 were faster still on one machine, but every round is a collective
// exchange, whose latency across machines counts twice as often. Pairs
// per round of the candidate comparison: a few tens of MiB of records.
constexpr uint64_t kPagesPerRound = uint64_t{1} << 11;
constexpr uint64_t kMaskPagesPerRound = uint64_t{1} << 9;
constexpr uint64_t kPairsPerRound = uint64_t{1} << 12;
// Band tables exchanged at a time (16 bytes a page a table, and as much
// again while they travel): as the single process holds a few tables at a
// time, not all 48. Two keep a round's keys at 64 bytes a page held (a
// million pages on two processes: 184 MB resident on the first during
// this step at 8 tables a round, 155 MB at 2; the same pairs).
constexpr uint32_t kTablesPerRound = 2;

// Keys below 2^63 to slots 0, 1, 2, ... in the order they were first
// inserted: open addressing, linear probing, a power-of-two table at most
// half full. Keys are (position << 32 | value), so far below 2^63.
class KeySlots {
 public:
  explicit KeySlots(size_t expected) {
    size_t capacity = 64;
    while (capacity < 2 * expected) capacity *= 2;
    table_.assign(capacity, kEmpty);
    slots_.resize(capacity);
  }
  // Empties the table, keeping its memory (no new pages to fault in).
  void Clear() {
    std::fill(table_.begin(), table_.end(), kEmpty);
    keys_.clear();
  }
  // The key's slot, inserting it when new.
  uint32_t Insert(uint64_t key) {
    const size_t mask = table_.size() - 1;
    for (size_t at = MixKey(key) & mask;; at = (at + 1) & mask) {
      if (table_[at] == key) return slots_[at];
      if (table_[at] == kEmpty) {
        table_[at] = key;
        slots_[at] = static_cast<uint32_t>(keys_.size());
        keys_.push_back(key);
        return slots_[at];
      }
    }
  }
  bool Contains(uint64_t key) const {
    const size_t mask = table_.size() - 1;
    for (size_t at = MixKey(key) & mask;; at = (at + 1) & mask) {
      if (table_[at] == key) return true;
      if (table_[at] == kEmpty) return false;
    }
  }
  const std::vector<uint64_t>& keys() const { return keys_; }  // in slot order

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  std::vector<uint64_t> table_;
  std::vector<uint32_t> slots_;
  std::vector<uint64_t> keys_;
};

// Rounds every process takes part in: as many as the process with the most
// items needs.
Result<uint64_t> RoundsFor(Exchanger* x, uint64_t items, uint64_t per_round) {
  return x->Max((items + per_round - 1) / per_round);
}

// The robust method over one process's pages of a divided run: steps 2-5
// of robust_stage.h learned by the processes together, with the result of
// RobustRun over every page:
//   a. sites: each site's representative is its smallest page id (site
//      keys meet at their owner);
//   b. pages equal after normalization: identity keys meet at their owner,
//      which walks each set in input order exactly as RobustRun::FindPairs
//      does (the joins, the candidates that go on, each page's split root)
//      and links the sites of the set's pages (SetLinksItsSites);
//   c. site groups: each link's sets are counted at the link's owner, which
//      asks the two sites' eligible pages (counted at their
//      representatives' owners) and keeps the links of mirrors
//      (AreMirrors); the groups are the connected components of those
//      over the sites' representatives (Exchanger::Components);
//   d. templates: the candidates of each site group with a known template
//      (template_min_pages candidates or more, counted at the owner of the
//      group's label as an id) meet with their min-hash values at the owner
//      of the label as a key (spread by hash), which finds
//      the values held by template_min_pages of them at one position; the
//      values meet at their own owners, which answer every page's question
//      "is my value at position j boilerplate" as a mask of m bits;
//   e. candidates: band keys (bands not all boilerplate, and whole-page
//      bands) meet at their owner, whose buckets give the pairs (the same
//      caps as RunRobustStage); pairs meet at the owner of their smaller
//      page, which fetches the other page's record and applies the rule.
// A page's record is its signature words with the site group's label in
// place of its site key, then its template mask, then whether its site
// group's template is known.
class RobustDividedRun final : public DividedRun {
 public:
  RobustDividedRun(DividedCollection c, const RobustMethodOptions& o, RobustLayout l)
      : c_(std::move(c)), o_(o), l_(l), mask_words_((l.m + 63) / 64) {
    if (MainTextOrder::AppliesTo(o)) main_order_ = std::make_unique<const MainTextOrder>(o);
  }

  size_t record_words() const override { return l_.words() + mask_words_ + 1; }
  void Record(uint64_t p, uint64_t* out) const override {
    const size_t w = c_.words_per_page;
    c_.words.Read(p, out);
    out[0] = site_label_[p];
    std::copy_n(masks_.data() + p * mask_words_, mask_words_, out + w);
    out[w + mask_words_] = known_[p];
  }
  PairDecision Decide(const uint64_t* page, const uint64_t* kept) const override {
    if (page[1] != 0 && page[1] == kept[1]) return PairDecision{true, 1.0, kEqualAfterNormalization};
    RobustPageView a, b;
    const SiteTemplates::Match r = Match(page, kept, &a, &b);
    return RobustDecideMatched(r, a, b, page[l_.words() + mask_words_] != 0, o_);
  }
  double Similarity(const uint64_t* page, const uint64_t* kept) const override {
    if (page[1] != 0 && page[1] == kept[1]) return 1.0;  // as Decide
    RobustPageView a, b;
    const SiteTemplates::Match r = Match(page, kept, &a, &b);
    return RobustDecideMatched(r, a, b, page[l_.words() + mask_words_] != 0, o_, /*with_reason=*/false).similarity;
  }
  uint64_t SplitRoot(uint64_t p) const override { return normalized_root_[p]; }

  Status FindPairs(Exchanger* x, std::span<const std::pair<uint64_t, uint64_t>>, std::vector<KeyAndId>* pairs,
                   std::vector<KeyAndId>* joins, DedupSummary* summary) override {
    const uint64_t n = c_.n, base = c_.base;
    const int processes = x->size();
    auto word = [&](uint64_t p, size_t t) { return c_.words.Word(p, t); };
    auto eligible = [&](uint64_t p) { return (*c_.eligible)[p] != 0; };
    using Outbox = std::vector<std::vector<KeyAndId>>;
    Stopwatch watch;  // the steps' seconds (summary's near_steps)
    double sites_seconds = 0, templates_seconds = 0, masks_seconds = 0, tables_seconds = 0;

    // ---- a. each site's representative: its smallest page id ----
    std::vector<uint64_t> site_rep(n);
    {
      std::unordered_map<uint64_t, uint64_t> first;  // site key -> smallest id here
      for (uint64_t p = 0; p < n; ++p) first.try_emplace(word(p, 0), base + p);
      Outbox out(processes);
      std::vector<uint64_t> keys;
      for (const auto& [site, id] : first) {
        out[x->OwnerOfKey(site)].push_back({site, id});
        keys.push_back(site);
      }
      NEARDUP_ASSIGN_OR_RETURN(std::vector<KeyAndId> in, x->ExchangeFlat(out));
      std::unordered_map<uint64_t, uint64_t> rep;
      for (const KeyAndId& r : in) {
        auto [it, inserted] = rep.try_emplace(r.key, r.id);
        if (!inserted) it->second = std::min(it->second, r.id);
      }
      NEARDUP_ASSIGN_OR_RETURN(std::vector<uint64_t> answer, x->Ask(keys, 1, true, [&](uint64_t site, uint64_t* o) {
        *o = rep.at(site);
      }));
      for (size_t k = 0; k < keys.size(); ++k) first[keys[k]] = answer[k];
      for (uint64_t p = 0; p < n; ++p) site_rep[p] = first[word(p, 0)];
    }

    // ---- b. pages equal after normalization ----
    candidate_.assign(n, 0);
    for (uint64_t p = 0; p < n; ++p) candidate_[p] = c_.exact_root[p] == base + p && eligible(p);
    normalized_root_ = std::move(c_.exact_root);  // not read again: 8 bytes a page held once
    std::vector<KeyAndId> site_links;  // between sites' representatives
    uint64_t members = 0;
    {
      struct Entry {
        uint64_t identity, id, site_rep, candidate;
      };
      std::vector<std::vector<Entry>> out(processes);
      for (uint64_t p = 0; p < n; ++p) {
        if (eligible(p)) out[x->OwnerOfKey(word(p, 1))].push_back({word(p, 1), base + p, site_rep[p], candidate_[p]});
      }
      NEARDUP_ASSIGN_OR_RETURN(std::vector<Entry> in, x->ExchangeFlat(std::move(out)));
      out.clear();
      std::sort(in.begin(), in.end(), [](const Entry& a, const Entry& b) {
        return a.identity != b.identity ? a.identity < b.identity : a.id < b.id;
      });
      struct Outcome {
        uint64_t id, normalized_root, candidate;
      };
      std::vector<std::vector<Outcome>> back(processes);
      std::vector<uint64_t> set_sites;
      for (size_t s = 0; s < in.size();) {
        size_t e = s;
        while (e < in.size() && in[e].identity == in[s].identity) ++e;
        // RobustRun::FindPairs's walk: `current` is the page the set's
        // later pages are joined to.
        uint64_t current = in[s].id;
        bool current_candidate = in[s].candidate != 0;
        back[x->OwnerOfId(in[s].id)].push_back({in[s].id, in[s].id, in[s].candidate});
        if (e - s > 1) {
          set_sites.clear();
          for (size_t j = s; j < e; ++j) set_sites.push_back(in[j].site_rep);
          if (SetLinksItsSites(&set_sites)) {
            LinkSites(set_sites, [&](uint64_t a, uint64_t b) { site_links.push_back({a, b}); });
          }
        }
        for (size_t j = s + 1; j < e; ++j) {
          const Entry& page = in[j];
          Outcome o{page.id, current, page.candidate};
          if (page.candidate) {
            if (!current_candidate) {
              current = page.id;
              current_candidate = true;
            } else {
              joins->push_back({current, page.id});
              o.candidate = 0;
              ++members;
            }
          }
          back[x->OwnerOfId(page.id)].push_back(o);
        }
        s = e;
      }
      NEARDUP_ASSIGN_OR_RETURN(std::vector<Outcome> mine, x->ExchangeFlat(back));
      for (const Outcome& o : mine) {
        normalized_root_[o.id - base] = o.normalized_root;
        candidate_[o.id - base] = static_cast<uint8_t>(o.candidate);
      }
    }
    NEARDUP_ASSIGN_OR_RETURN(summary->normalized_identity_members, x->Sum(members));

    // ---- c. site groups: mirrors (AreMirrors) joined, labelled by their smallest representative ----
    site_label_.resize(n);
    {
      // Each site's eligible pages, at the owner of its representative.
      std::vector<uint64_t> site_pages(n, 0);  // by local id: pages of the site it represents
      {
        std::unordered_map<uint64_t, uint64_t> here;
        for (uint64_t p = 0; p < n; ++p) {
          if (eligible(p)) ++here[site_rep[p]];
        }
        Outbox out(processes);
        for (const auto& [rep, k] : here) out[x->OwnerOfId(rep)].push_back({rep, k});
        NEARDUP_ASSIGN_OR_RETURN(std::vector<KeyAndId> in, x->ExchangeFlat(out));
        for (const KeyAndId& r : in) site_pages[r.key - base] += r.id;
      }
      // Each link's sets counted at the link's owner, where the two sites'
      // pages are asked of their representatives' owners.
      Outbox out(processes);
      for (const KeyAndId& l : site_links) out[x->OwnerOfKey(MixKey(l.key) ^ l.id)].push_back(l);
      std::vector<KeyAndId>().swap(site_links);
      NEARDUP_ASSIGN_OR_RETURN(std::vector<KeyAndId> links, x->ExchangeFlat(std::move(out)));
      std::sort(links.begin(), links.end(),
                [](const KeyAndId& a, const KeyAndId& b) { return a.key != b.key ? a.key < b.key : a.id < b.id; });
      std::vector<KeyAndId> distinct;
      std::vector<uint64_t> shared, ends;
      for (size_t s = 0; s < links.size();) {
        size_t e = s;
        while (e < links.size() && links[e].key == links[s].key && links[e].id == links[s].id) ++e;
        distinct.push_back(links[s]);
        shared.push_back(e - s);
        ends.push_back(links[s].key);
        ends.push_back(links[s].id);
        s = e;
      }
      std::vector<KeyAndId>().swap(links);
      NEARDUP_ASSIGN_OR_RETURN(std::vector<uint64_t> pages_of_end,
                               x->Ask(ends, 1, false, [&](uint64_t id, uint64_t* o) { *o = site_pages[id - base]; }));
      for (size_t k = 0; k < distinct.size(); ++k) {
        if (AreMirrors(shared[k], pages_of_end[2 * k], pages_of_end[2 * k + 1])) site_links.push_back(distinct[k]);
      }
      NEARDUP_ASSIGN_OR_RETURN(std::vector<uint64_t> label, x->Components(std::move(site_links)));
      NEARDUP_ASSIGN_OR_RETURN(std::vector<uint64_t> of_rep,
                               x->Ask(site_rep, 1, false, [&](uint64_t id, uint64_t* o) { *o = label[id - base]; }));
      site_label_ = std::move(of_rep);
    }
    std::vector<uint64_t>().swap(site_rep);  // steps a-c only

    sites_seconds = watch.Lap();

    // ---- d. templates ----
    // Candidates per site group, at the group's owner.
    known_.assign(n, 0);
    uint64_t candidates = 0;
    {
      std::unordered_map<uint64_t, uint64_t> count;
      for (uint64_t p = 0; p < n; ++p) {
        if (candidate_[p]) {
          ++count[site_label_[p]];
          ++candidates;
        }
      }
      Outbox out(processes);
      for (const auto& [label, k] : count) out[x->OwnerOfId(label)].push_back({label, k});
      NEARDUP_ASSIGN_OR_RETURN(std::vector<KeyAndId> in, x->ExchangeFlat(out));
      std::vector<uint64_t> total(n, 0);
      for (const KeyAndId& c : in) total[c.key - base] += c.id;
      NEARDUP_ASSIGN_OR_RETURN(std::vector<uint64_t> known, x->Ask(site_label_, 1, false, [&](uint64_t id, uint64_t* o) {
        *o = total[id - base] >= o_.template_min_pages;
      }));
      for (uint64_t p = 0; p < n; ++p) known_[p] = static_cast<uint8_t>(known[p]);
    }
    NEARDUP_ASSIGN_OR_RETURN(summary->near_candidates, x->Sum(candidates));
    // The candidates of known sites meet with their values at the owner
    // of the group's label taken as a key (spread by hash: the label is
    // the group's smallest page id, and by id the first process would own
    // most groups, as sites show up early in a crawl), which finds each
    // group's boilerplate as one process does (SiteTemplates): (label, m
    // values) per page. Digests go too: the rule
    // of one item where no template is seen reads the two pages' digests;
    // and the two shingle counts, which tell two pages alone on a site of
    // which one holds the other (TwoPagesOneText).
    // They travel sender by sender, kPagesPerRound pages a round, so that
    // each owner receives its pages in page-id order and holds a round at a
    // time in flight; it appends them to a file of its own (with a folder
    // for temporary files; else to memory) and learns from the file as
    // `neardup dedup` learns from its spill.
    const uint32_t m = l_.m;
    const size_t digest_words = l_.digests ? kRobustDigestCells : 0;
    const size_t counts_word = 1 + (m + 1) / 2 + digest_words;  // when l_.main_shingles
    const size_t title_word = counts_word + (l_.main_shingles ? 1 : 0);  // when l_.titles
    const size_t page_record = title_word + (l_.titles ? kRobustTitleWords : 0);
    std::vector<uint64_t> owned_values;  // the boilerplate (position << 32 | value) this process owns
    {
      std::vector<std::vector<uint64_t>> to_owner(processes);  // local pages, by the owner of their group's key
      uint64_t most = 0;
      for (uint64_t p = 0; p < n; ++p) {
        if (candidate_[p] && known_[p]) to_owner[x->OwnerOfKey(site_label_[p])].push_back(p);
      }
      for (const auto& pages : to_owner) most = std::max<uint64_t>(most, pages.size());
      NEARDUP_ASSIGN_OR_RETURN(auto rounds_of, x->Exchange(std::vector<std::vector<uint64_t>>(
                                                   processes, {(most + kPagesPerRound - 1) / kPagesPerRound})));
      const std::string path = c_.env != nullptr ? JoinPath(c_.temp_dir, ".robust.group.rank" + std::to_string(x->rank()))
                                                 : std::string();
      // A file that cannot be written or read is an error every process
      // returns, agreed on after the rounds (which every process takes part
      // in to the end).
      Status file_status;
      std::unique_ptr<WritableFile> file;
      if (!path.empty()) {
        auto opened = c_.env->NewWritableFile(path);
        if (opened.ok()) {
          file = std::move(opened).value();
        } else {
          file_status = Status::IOError("cannot write " + path + ": " + opened.status().message());
        }
      }
      struct RemoveAtEnd {
        Env* env;
        std::string path;
        ~RemoveAtEnd() {
          if (!path.empty()) (void)env->RemoveFile(path);
        }
      } remove_at_end{c_.env, path};
      std::vector<uint64_t> in_memory, sites;
      for (int sender = 0; sender < processes; ++sender) {
        for (uint64_t round = 0; round < rounds_of[sender][0]; ++round) {
          std::vector<std::vector<uint64_t>> out(processes);
          for (int r = 0; sender == x->rank() && r < processes; ++r) {
            const std::vector<uint64_t>& pages = to_owner[r];
            const uint64_t from = std::min<uint64_t>(pages.size(), round * kPagesPerRound);
            const uint64_t to = std::min<uint64_t>(pages.size(), from + kPagesPerRound);
            for (uint64_t k = from; k < to; ++k) {
              const uint64_t p = pages[k];
              const uint64_t* page = c_.words.Page(p);
              out[r].push_back(site_label_[p]);
              out[r].insert(out[r].end(), page + 2, page + 2 + (m + 1) / 2);
              out[r].insert(out[r].end(), page + l_.digest_at(), page + l_.digest_at() + digest_words);
              if (l_.main_shingles) out[r].push_back(page[l_.main_shingles_at()]);
              if (l_.titles) out[r].insert(out[r].end(), page + l_.title_at(), page + l_.title_at() + kRobustTitleWords);
            }
          }
          NEARDUP_ASSIGN_OR_RETURN(std::vector<uint64_t> in, x->ExchangeFlat(std::move(out)));
          for (size_t k = 0; k < in.size(); k += page_record) sites.push_back(in[k]);
          if (file && file_status.ok()) {
            if (Status st = file->Append(reinterpret_cast<const char*>(in.data()), in.size() * sizeof(uint64_t));
                !st.ok()) {
              file_status = Status::IOError("cannot write " + path + ": " + st.message());
            }
          } else if (path.empty()) {
            in_memory.insert(in_memory.end(), in.begin(), in.end());
          }
        }
      }
      const size_t pages_here = sites.size();
      std::unique_ptr<MappedFile> mapped;
      const uint64_t* records = in_memory.data();
      if (file && file_status.ok()) {
        if (Status st = file->Close(); !st.ok()) file_status = Status::IOError("cannot write " + path + ": " + st.message());
      }
      if (file && file_status.ok()) {
        auto opened = c_.env->MapFile(path);
        if (!opened.ok()) {
          file_status = Status::IOError("cannot read " + path + ": " + opened.status().message());
        } else if ((*opened)->data().size() != pages_here * page_record * sizeof(uint64_t)) {
          file_status = Status::Corruption(path + ": the site groups' pages were not all written");
        } else {
          mapped = std::move(opened).value();
          records = reinterpret_cast<const uint64_t*>(mapped->data().data());
        }
      }
      NEARDUP_ASSIGN_OR_RETURN(uint64_t files_failed, x->Sum(file_status.ok() ? 0 : 1));
      if (files_failed > 0) {
        return file_status.ok() ? Status::IOError("another process could not keep its site groups' pages") : file_status;
      }
      // The pages are read where they are (values and digests at a stride
      // of page_record words), not copied into columns.
      RobustPages arrived;
      arrived.n = static_cast<uint32_t>(pages_here);
      arrived.m = m;
      arrived.mins = reinterpret_cast<const uint32_t*>(records + 1);
      arrived.mins_stride = page_record * 2;
      arrived.digests = digest_words > 0 ? records + 1 + (m + 1) / 2 : nullptr;
      arrived.digest_stride = page_record;
      arrived.site = sites;
      arrived.file = mapped.get();
      arrived.record_words = page_record;
      arrived.mins_word = 1;
      arrived.digest_word = 1 + (m + 1) / 2;
      if (l_.main_shingles) {
        arrived.main_shingles = records + counts_word;
        arrived.main_shingles_word = counts_word;
      }
      if (l_.titles) {
        arrived.titles = records + title_word;
        arrived.titles_stride = page_record;
        arrived.title_word = title_word;
      }
      RobustStageFiles files;  // a large site's columns, in files of this process's own
      if (c_.env != nullptr) files = RobustStageFiles{c_.env, c_.temp_dir, ".rank" + std::to_string(x->rank())};
      const SiteTemplates here(arrived, std::vector<uint8_t>(pages_here, 1), o_, files, c_.executor);
      std::vector<std::vector<uint64_t>> found(processes);
      here.values().ForEach([&](uint64_t key) { found[x->OwnerOfKey(key)].push_back(key); });
      NEARDUP_ASSIGN_OR_RETURN(owned_values, x->ExchangeFlat(std::move(found)));
    }
    // Most values a page asks about are not boilerplate: a filter of a
    // byte a value (as SiteTemplates keeps) answers most of them without
    // a look into the set, which is too large for the caches.
    KeySlots template_values(owned_values.size());
    WordFilter template_filter(owned_values.size());
    for (uint64_t v : owned_values) {
      template_values.Insert(v);
      template_filter.Add(v);
    }
    std::vector<uint64_t>().swap(owned_values);
    NEARDUP_ASSIGN_OR_RETURN(summary->template_values, x->Sum(template_values.keys().size()));
    templates_seconds = watch.Lap();
    // Every page's template mask, asked a round of pages at a time.
    masks_.assign(n * mask_words_, 0);
    {
      NEARDUP_ASSIGN_OR_RETURN(uint64_t rounds, RoundsFor(x, n, kMaskPagesPerRound));
      std::vector<uint32_t> mins(m);
      KeySlots distinct(std::min(n, kMaskPagesPerRound) * m);  // each distinct value of a round is asked once
      std::vector<uint32_t> slot(std::min(n, kMaskPagesPerRound) * m);
      for (uint64_t round = 0; round < rounds; ++round) {
        const uint64_t from = std::min(n, round * kMaskPagesPerRound), to = std::min(n, from + kMaskPagesPerRound);
        distinct.Clear();
        for (uint64_t p = from; p < to; ++p) {
          Mins(p, mins.data());
          for (uint32_t j = 0; j < m; ++j) slot[(p - from) * m + j] = distinct.Insert((uint64_t{j} << 32) | mins[j]);
        }
        NEARDUP_ASSIGN_OR_RETURN(std::vector<uint64_t> is_template,
                                 x->Ask(distinct.keys(), 1, true, [&](uint64_t key, uint64_t* o) {
                                   *o = template_filter.MayContain(key) && template_values.Contains(key);
                                 }));
        for (uint64_t p = from; p < to; ++p) {
          for (uint32_t j = 0; j < m; ++j) {
            if (is_template[slot[(p - from) * m + j]]) masks_[p * mask_words_ + j / 64] |= uint64_t{1} << (j % 64);
          }
        }
      }
    }

    masks_seconds = watch.Lap();

    // ---- e. candidates: band keys and whole-page bands at their owners ----
    std::vector<uint64_t> candidate_pairs;  // (a, b) whole-run ids, this process owning a
    {
      const uint32_t max_bands = RobustBandCount(o_, true);
      const uint32_t whole_count = RobustWholeBandCount(o_);
      const uint32_t all_tables = max_bands + whole_count;
      Outbox pair_out(processes);
      // Pages sharing a key are paired: all pairs in a bucket of at most
      // `cap` pages; in a larger one, every page with the bucket's first.
      auto pair_buckets = [&](std::vector<KeyAndId> keyed, size_t cap) {
        std::sort(keyed.begin(), keyed.end(),
                  [](const KeyAndId& a, const KeyAndId& b) { return a.key != b.key ? a.key < b.key : a.id < b.id; });
        for (size_t s = 0; s < keyed.size();) {
          size_t e = s;
          while (e < keyed.size() && keyed[e].key == keyed[s].key) ++e;
          for (size_t a = s; a < (e - s <= cap ? e : s + 1); ++a) {
            for (size_t b = a + 1; b < e; ++b) {
              pair_out[x->OwnerOfId(keyed[a].id)].push_back({keyed[a].id, keyed[b].id});
            }
          }
          s = e;
        }
      };
      // This process's pairs, sorted, once each: a round's pairs are sent
      // to their owners at its end (each once), which merge them in, so
      // that a pair many bands find is held once, not once a band.
      auto by_pair = [](const KeyAndId& a, const KeyAndId& b) { return a.key != b.key ? a.key < b.key : a.id < b.id; };
      auto same_pair = [](const KeyAndId& a, const KeyAndId& b) { return a.key == b.key && a.id == b.id; };
      auto sort_once = [&](std::vector<KeyAndId>* v) {
        std::sort(v->begin(), v->end(), by_pair);
        v->erase(std::unique(v->begin(), v->end(), same_pair), v->end());
      };
      std::vector<KeyAndId> mine, merged;
      // Page p's keys, to fn(table, key): bands of values not all
      // boilerplate, then the whole-page bands.
      std::vector<uint32_t> v(m);
      auto page_keys = [&](uint64_t p, const auto& fn) {
        Mins(p, v.data());
        const uint64_t* mask = masks_.data() + p * mask_words_;
        const uint32_t bands = RobustBandCount(o_, HasMainText(v.data(), o_));
        for (uint32_t band = 0; band < bands; ++band) {
          const uint32_t at = RobustBandFirst(o_, band);
          const uint32_t r = RobustBandRows(o_, band);
          bool all_template = true;
          for (uint32_t k = 0; k < r && all_template; ++k) {
            const uint32_t j = at + k;
            all_template = (mask[j / 64] >> (j % 64)) & 1;
          }
          if (all_template) continue;
          fn(band, XXH3_64bits_withSeed(v.data() + at, r * sizeof(uint32_t), band + 1));
        }
        for (uint32_t t = max_bands; t < all_tables; ++t) {
          const uint32_t band = (t - max_bands) * kRobustWholeBandRows;
          fn(t, XXH3_64bits_withSeed(v.data() + band, kRobustWholeBandRows * sizeof(uint32_t), 1000 + band));
        }
      };
      // Every page's keys are filed in one pass, a table at a time
      // (TempTables: a file a table in the folder for temporary files, as
      // neardup-mpi's runs have; else in memory), and each round reads its
      // tables back: a page's record is read from the spill once, not once
      // a round (a round holds kTablesPerRound of about 50 tables). A file
      // that cannot be written or read is an error every process returns,
      // agreed on after the rounds (which every process takes part in to
      // the end). A filed key: the band key and the local page (below
      // 2^32, as SiteTemplates counts a process's pages), 12 bytes.
#pragma pack(push, 4)
      struct FiledKey {
        uint64_t key;
        uint32_t page;
      };
#pragma pack(pop)
      static_assert(sizeof(FiledKey) == 12);
      TempTables<FiledKey> filed(all_tables, TempTableFiles{c_.env, c_.temp_dir, ".rank" + std::to_string(x->rank())},
                                 ".robust.band-keys.");
      Status filed_status = c_.env != nullptr ? filed.Open() : Status::OK();
      for (uint64_t p = 0; p < n && filed_status.ok(); ++p) {
        if (!candidate_[p]) continue;
        page_keys(p, [&](uint32_t t, uint64_t key) {
          if (filed_status.ok()) filed_status = filed.Add(t, FiledKey{key, static_cast<uint32_t>(p)});
        });
      }
      if (filed_status.ok()) filed_status = filed.Close();
      for (uint32_t first = 0; first < all_tables; first += kTablesPerRound) {
        const uint32_t last = std::min(all_tables, first + kTablesPerRound);
        Outbox band_out(processes), whole_out(processes);
        for (uint32_t t = first; t < last && filed_status.ok(); ++t) {
          Outbox& out = t < max_bands ? band_out : whole_out;
          filed_status = filed.ForEachChunk(t, [&](const FiledKey* keys, size_t count) {
            for (size_t k = 0; k < count; ++k) out[x->OwnerOfKey(keys[k].key)].push_back({keys[k].key, base + keys[k].page});
          });
          filed.Drop(t);
        }
        NEARDUP_ASSIGN_OR_RETURN(std::vector<KeyAndId> whole, x->ExchangeFlat(std::move(whole_out)));
        whole_out.clear();
        pair_buckets(std::move(whole), kRobustWholeBandBucket);
        NEARDUP_ASSIGN_OR_RETURN(std::vector<KeyAndId> banded, x->ExchangeFlat(std::move(band_out)));
        band_out.clear();
        pair_buckets(std::move(banded), c_.max_bucket_pages);
        for (std::vector<KeyAndId>& to : pair_out) sort_once(&to);
        NEARDUP_ASSIGN_OR_RETURN(std::vector<KeyAndId> arrived, x->ExchangeFlat(std::move(pair_out)));
        pair_out.assign(processes, {});
        sort_once(&arrived);
        merged.clear();
        std::set_union(mine.begin(), mine.end(), arrived.begin(), arrived.end(), std::back_inserter(merged), by_pair);
        mine.swap(merged);
      }
      std::vector<KeyAndId>().swap(merged);
      NEARDUP_ASSIGN_OR_RETURN(uint64_t tables_failed, x->Sum(filed_status.ok() ? 0 : 1));
      if (tables_failed > 0) {
        return filed_status.ok() ? Status::IOError("another process could not keep its band keys") : filed_status;
      }
      candidate_pairs.reserve(2 * mine.size());
      for (const KeyAndId& pair : mine) {
        candidate_pairs.push_back(pair.key);
        candidate_pairs.push_back(pair.id);
      }
    }
    tables_seconds = watch.Lap();
    const uint64_t listed = candidate_pairs.size() / 2;
    NEARDUP_ASSIGN_OR_RETURN(summary->near_candidate_pairs, x->Sum(listed));
    // The rule over each pair: the smaller page is here, the other's record
    // is fetched from its holder, a round of pairs at a time.
    {
      NEARDUP_ASSIGN_OR_RETURN(uint64_t rounds, RoundsFor(x, listed, kPairsPerRound));
      const size_t rw = record_words();
      std::vector<uint64_t> a_record(rw);
      for (uint64_t round = 0; round < rounds; ++round) {
        const uint64_t from = std::min(listed, round * kPairsPerRound), to = std::min(listed, from + kPairsPerRound);
        std::vector<uint64_t> others;
        for (uint64_t k = from; k < to; ++k) others.push_back(candidate_pairs[2 * k + 1]);
        const PageRecords records(x, *this, rw, std::move(others));
        NEARDUP_RETURN_IF_ERROR(records.status());
        for (uint64_t k = from; k < to; ++k) {
          const uint64_t a = candidate_pairs[2 * k], b = candidate_pairs[2 * k + 1];
          Record(a - base, a_record.data());
          if (Decide(a_record.data(), records.Of(b)).duplicate) pairs->push_back({a, b});
        }
      }
    }
    summary->near_steps = {{"sites", sites_seconds},
                           {"templates", templates_seconds},
                           {"masks", masks_seconds},
                           {"tables", tables_seconds},
                           {"pairs", watch.Lap()}};
    return Status::OK();
  }

 private:
  // The m min-hash values of local page p.
  void Mins(uint64_t p, uint32_t* out) const {
    std::memcpy(out, c_.words.Page(p) + 2, l_.m * sizeof(uint32_t));
  }
  // The min-hash comparison of two records, and their views for the rule.
  SiteTemplates::Match Match(const uint64_t* page, const uint64_t* kept, RobustPageView* a, RobustPageView* b) const {
    const uint32_t m = l_.m;
    a_mins_.resize(m);
    b_mins_.resize(m);
    std::memcpy(a_mins_.data(), page + 2, m * sizeof(uint32_t));
    std::memcpy(b_mins_.data(), kept + 2, m * sizeof(uint32_t));
    *a = l_.View(a_mins_.data(), page[0], page);
    *b = l_.View(b_mins_.data(), kept[0], kept);
    return SiteTemplates::CompareMasked(a_mins_.data(), b_mins_.data(), page + l_.words(), kept + l_.words(),
                                        main_order_.get(), o_);
  }

  DividedCollection c_;
  RobustMethodOptions o_;
  RobustLayout l_;
  size_t mask_words_;
  std::vector<uint64_t> normalized_root_, site_label_, masks_;
  std::vector<uint8_t> candidate_, known_;
  mutable std::vector<uint32_t> a_mins_, b_mins_;  // Match's buffers (one caller at a time)
  std::unique_ptr<const MainTextOrder> main_order_;  // Match's (SiteTemplates::CompareMasked)
};

class RobustMethod final : public MethodImpl {
 public:
  explicit RobustMethod(const RobustMethodOptions& o) : o_(o), sketchers_(o) {
    l_.m = o.positions();
    l_.digests = o.max_edit_shingles > 0 || o.max_same_site_edit_shingles > 0;
    l_.main_shingles = o.keeps_main_shingles();
    l_.titles = o.compare_titles && o.main_minhashes > 0;  // TwoPagesOneText's, which needs main text
  }
  std::string name() const override { return "robust"; }
  uint64_t clustering_bytes(uint64_t pages) const override { return (uint64_t{12} << 20) + 70 * pages; }
  std::string Spec() const override { return o_.Spec(); }
  size_t signature_words() const override { return l_.words(); }
  std::string kernel() const override { return BroderSketcher::KernelName(); }
  bool learns_from_collection() const override { return true; }
  bool finds_pairs_together() const override { return true; }
  bool needs_term_text() const override { return true; }
  bool reads_mapped_words() const override { return true; }
  std::unique_ptr<SignScratch> NewScratch() const override { return std::make_unique<RobustScratch>(); }
  void SignTokens(const Document& doc, const TokenizedDocument& tokens, SignScratch* scratch, uint64_t* words,
                  bool* eligible, std::string*) const override {
    auto* s = static_cast<RobustScratch*>(scratch);
    s->mins.assign(l_.m, 0);
    std::fill(words, words + l_.words(), 0);
    const RobustSignature sig =
        ComputeRobustSignature(tokens, doc.url, o_, sketchers_.whole, sketchers_.main_or_null(),
                               &s->sketch, &s->normalized, s->mins.data(),
                               l_.digests ? words + l_.digest_at() : nullptr);
    *eligible = sig.has_sketch;
    words[0] = RobustSiteKey(doc.url, tokens.canonical_url);
    words[1] = sig.identity;
    if (sig.has_sketch) {
      std::memcpy(words + 2, s->mins.data(), l_.m * sizeof(uint32_t));
      if (l_.main_shingles) words[l_.main_shingles_at()] = PackShingleCounts(sig);
      if (l_.titles) PackRobustTitle(tokens, o_.title_numbers, words + l_.title_at());
    } else if (l_.digests) {
      std::fill(words + l_.digest_at(), words + l_.words(), 0);
    }
  }
  PairDecision Compare(const Signature& a, const Signature& b) const override {
    if (!a.eligible || !b.eligible) {
      return PairDecision{false, 0, "a page has no term but volatile ones: only exact copies are matched"};
    }
    if (a.words[1] == b.words[1]) return PairDecision{true, 1.0, kEqualAfterNormalization};
    std::vector<uint32_t> ma(l_.m), mb(l_.m);
    std::memcpy(ma.data(), a.words.data() + 2, l_.m * sizeof(uint32_t));
    std::memcpy(mb.data(), b.words.data() + 2, l_.m * sizeof(uint32_t));
    return RobustDecide(SiteTemplates(), l_.View(ma.data(), a.words[0], a.words.data()),
                        l_.View(mb.data(), b.words[0], b.words.data()), o_);
  }
  // Bands of consecutive min-hash values (RobustBandRows; no boilerplate is known to the
  // incremental index, so every band is a key), and the normalized identity.
  void TableKeys(const Signature& s, std::vector<uint64_t>* keys) const override {
    keys->clear();
    keys->push_back(s.words[1]);
    std::vector<uint32_t> mins(l_.m);
    std::memcpy(mins.data(), s.words.data() + 2, l_.m * sizeof(uint32_t));
    const uint32_t bands = RobustBandCount(o_, HasMainText(mins.data(), o_));
    for (uint32_t band = 0; band < bands; ++band) {
      // Seeded with the band's first position + 1, as stores of format 2 hold them.
      const uint32_t first = RobustBandFirst(o_, band);
      keys->push_back(XXH3_64bits_withSeed(mins.data() + first, RobustBandRows(o_, band) * sizeof(uint32_t), first + 1));
    }
  }
  std::unique_ptr<MethodRun> NewRun(MethodCollection c) const override {
    return std::make_unique<RobustRun>(std::move(c), o_, l_);
  }
  Result<std::unique_ptr<DividedRun>> NewDividedRun(DividedCollection c) const override {
    return std::unique_ptr<DividedRun>(std::make_unique<RobustDividedRun>(std::move(c), o_, l_));
  }

 private:
  RobustMethodOptions o_;
  RobustSketchers sketchers_;
  RobustLayout l_;
};

}  // namespace

std::unique_ptr<MethodImpl> NewRobustMethod(const RobustMethodOptions& options) {
  return std::make_unique<RobustMethod>(options);
}

}  // namespace neardup
