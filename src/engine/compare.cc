// neardup compare: one pair of pages through every method's eyes.
#include "neardup/compare.h"

#include <xxhash.h>

#include <algorithm>
#include <array>
#include <tuple>
#include <unordered_set>

#include "engine/method_impl.h"
#include "engine/method_options.h"
#include "engine/redirects.h"
#include "engine/robust_stage.h"
#include "neardup/deduper.h"
#include "neardup/source.h"
#include "text/site.h"
#include "text/token_diff.h"
#include "text/tokenizer.h"
#include "text/url.h"

namespace neardup {

namespace {

struct Loaded {
  Document doc;
  TokenizedDocument tokens;
};

struct RobustPage {
  RobustSignature sig;
  std::vector<uint32_t> mins;
  std::vector<uint64_t> digest;    // kRobustDigestCells cells (empty when edits are not looked for)
  std::vector<uint32_t> shingles;  // distinct, sorted (low 32 bits)
  std::array<uint64_t, kRobustTitleWords> title{};  // PackRobustTitle
};

RobustPage RobustOf(const TokenizedDocument& tokens, const std::string& url, const RobustMethodOptions& o,
                    const RobustSketchers& sketchers) {
  const BroderSketcher& sketcher = sketchers.whole;
  RobustPage p;
  p.mins.assign(o.positions(), 0);
  SketchScratch scratch;
  std::vector<uint64_t> normalized;
  if (o.max_edit_shingles > 0 || o.max_same_site_edit_shingles > 0) p.digest.assign(kRobustDigestCells, 0);
  p.sig = ComputeRobustSignature(tokens, url, o, sketcher, sketchers.main_or_null(), &scratch, &normalized,
                                 p.mins.data(),
                                 p.digest.empty() ? nullptr : p.digest.data());
  PackRobustTitle(tokens, o.title_numbers, p.title.data());
  std::vector<uint64_t> sh;
  sketcher.Shingles(normalized, &sh);
  for (uint64_t x : sh) p.shingles.push_back(static_cast<uint32_t>(x));
  std::sort(p.shingles.begin(), p.shingles.end());
  p.shingles.erase(std::unique(p.shingles.begin(), p.shingles.end()), p.shingles.end());
  return p;
}

// A document and its terms (no links: no method's rule reads them).
Loaded Tokenized(Document doc) {
  Loaded l;
  l.doc = std::move(doc);
  TokenizeOptions to;
  to.collect_links = false;
  Tokenizer tokenizer(to);
  TokenizeOwnContent(&tokenizer, l.doc, &l.tokens);
  return l;
}

Result<Loaded> Load(const std::string& input, Env* env) {
  SourceOptions so;
  FirstWarnings warnings;
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<DocumentSource> source,
                           OpenDocumentSource({input}, so, env, &warnings));
  Document doc;
  if (!source->Next(&doc)) return Status::NotFound(NothingReadLine({input}, warnings, source->stats(), so));
  return Tokenized(std::move(doc));
}

// One pass over `inputs`: the first documents with urls a and b, and the
// robust sketches of every page on their sites (for the templates).
struct FromInputs {
  Loaded a, b;
  bool found_a = false, found_b = false;
  std::vector<uint32_t> mins;
  std::vector<uint64_t> sites;
  std::vector<uint8_t> candidate;
  std::vector<uint64_t> titles;  // kRobustTitleWords a page with a sketch
  uint64_t host_pages = 0;
  // What `dedup` with the robust method made of the inputs (ExplainByDedup).
  bool clustered = false;
  PairDecision decision;
  bool same_cluster = false;
  std::string kept_a, kept_b;
  std::optional<PairDecision> a_with_kept_a, b_with_kept_b, a_with_kept_b, b_with_kept_a;
};

// Runs the robust method over every page of the inputs, as `neardup dedup`
// does, and records its decision on the first pages with urls a and b
// (Deduper::Explain) and the clusters they ended in.
Status ExplainByDedup(const std::vector<std::string>& inputs, const std::string& url_a, const std::string& url_b,
                      const DedupOptions& options, Env* env, FromInputs* f) {
  DedupOptions o = options;
  o.method = "robust";
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<Deduper> deduper, Deduper::Create(o, nullptr, env));
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<DocumentSource> source,
                           OpenDocumentSource(inputs, SourceOptions(), env, nullptr));
  std::vector<std::string> urls;
  DocId id_a = 0, id_b = 0;
  bool found_a = false, found_b = false;
  NEARDUP_RETURN_IF_ERROR(deduper->AddFrom(source.get(), [&](DocId id, const Document& doc) {
    urls.push_back(doc.url);
    if (!found_a && doc.url == url_a) {
      id_a = id;
      found_a = true;
    }
    if (!found_b && doc.url == url_b) {
      id_b = id;
      found_b = true;
    }
    return Status::OK();
  }));
  if (!found_a || !found_b) {
    return Status::NotFound("the inputs no longer hold a document with url " + (found_a ? url_b : url_a));
  }
  NEARDUP_ASSIGN_OR_RETURN(const Clustering clustering, deduper->Cluster());
  NEARDUP_ASSIGN_OR_RETURN(f->decision, deduper->Explain(id_a, id_b));
  f->clustered = true;
  f->same_cluster = clustering.cluster_of(id_a) == clustering.cluster_of(id_b);
  const DocId kept_a = clustering.keeper_of(id_a), kept_b = clustering.keeper_of(id_b);
  f->kept_a = urls[kept_a];
  f->kept_b = urls[kept_b];
  // The verification decisions behind the clusters.
  auto against = [&](DocId page, DocId kept, std::optional<PairDecision>* out) -> Status {
    if (page == kept) return Status::OK();
    if (clustering.keeper_of(page) == kept && std::string_view(clustering.method_of(page)) == "redirect") {
      // Joined by its chain of redirects, not by the method's rule.
      *out = PairDecision{true, 1.0,
                          "a redirect whose chain of redirects ends at a page of this cluster: in it without "
                          "verification (Zhu et al.'s redirection-based duplicates)"};
      return Status::OK();
    }
    if (clustering.keeper_of(page) == kept && std::string_view(clustering.method_of(page)) == "revisit") {
      *out = PairDecision{true, 1.0,
                          "a revisit of a capture of this cluster (its content is that capture's, which the crawler "
                          "did not store again): in it without verification"};
      return Status::OK();
    }
    NEARDUP_ASSIGN_OR_RETURN(*out, deduper->Explain(page, kept));
    return Status::OK();
  };
  NEARDUP_RETURN_IF_ERROR(against(id_a, kept_a, &f->a_with_kept_a));
  NEARDUP_RETURN_IF_ERROR(against(id_b, kept_b, &f->b_with_kept_b));
  if (!f->same_cluster) {  // against the other's kept page, unless it is the other page
    if (kept_b != id_b) NEARDUP_RETURN_IF_ERROR(against(id_a, kept_b, &f->a_with_kept_b));
    if (kept_a != id_a) NEARDUP_RETURN_IF_ERROR(against(id_b, kept_a, &f->b_with_kept_a));
  }
  return Status::OK();
}

Result<FromInputs> LoadFromInputs(const std::vector<std::string>& inputs, const std::string& url_a,
                                  const std::string& url_b, const RobustMethodOptions& o,
                                  const RobustSketchers& sketcher, Env* env) {
  FirstWarnings warnings;
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<DocumentSource> source,
                           OpenDocumentSource(inputs, SourceOptions(), env, &warnings));
  FromInputs f;
  // A page without a host takes its site from the URL it names for itself
  // (RobustSiteOf), known once it is tokenized: such pages are all read,
  // and pages with a host of another site than A's and B's skipped unread
  // when A and B have hosts. The sites' pages are chosen at the end, in
  // input order, when A's and B's sites are known.
  const bool both_hosted = !UrlHost(url_a).empty() && !UrlHost(url_b).empty();
  const std::string site_of_url_a = RobustSiteOf(url_a), site_of_url_b = RobustSiteOf(url_b);
  std::string site_a, site_b;
  struct SitePage {
    std::string site;
    uint64_t identity;
    size_t mins_at, mins_count;  // none when the page has no sketch
    std::array<uint64_t, kRobustTitleWords> title;
  };
  std::vector<SitePage> read;
  std::vector<uint32_t> mins;
  TokenizeOptions to;
  to.collect_links = false;
  Tokenizer tokenizer(to);
  Document doc;
  TokenizedDocument tokens;
  while (source->Next(&doc)) {
    const bool is_a = !f.found_a && doc.url == url_a, is_b = !f.found_b && doc.url == url_b;
    const bool hosted = !UrlHost(doc.url).empty();
    if (!is_a && !is_b && hosted && both_hosted) {
      const std::string site = RobustSiteOf(doc.url);
      if (site != site_of_url_a && site != site_of_url_b) continue;
    }
    TokenizeOwnContent(&tokenizer, doc, &tokens);
    const std::string site = RobustSiteOf(doc.url, tokens.canonical_url);
    RobustPage p = RobustOf(tokens, doc.url, o, sketcher);
    read.push_back(SitePage{site, p.sig.identity, mins.size(), p.sig.has_sketch ? p.mins.size() : 0, p.title});
    if (p.sig.has_sketch) mins.insert(mins.end(), p.mins.begin(), p.mins.end());
    if (is_a) {
      f.a.doc = doc;
      f.a.tokens = tokens;
      f.found_a = true;
      site_a = site;
    }
    if (is_b) {
      f.b.doc = doc;
      f.b.tokens = tokens;
      f.found_b = true;
      site_b = site;
    }
  }
  std::unordered_set<uint64_t> identities;
  for (const SitePage& page : read) {
    if (page.site != site_a && page.site != site_b) continue;
    ++f.host_pages;
    if (page.mins_count == 0) continue;
    const auto first = mins.begin() + static_cast<std::ptrdiff_t>(page.mins_at);
    f.mins.insert(f.mins.end(), first, first + static_cast<std::ptrdiff_t>(page.mins_count));
    f.sites.push_back(XXH3_64bits(page.site.data(), page.site.size()));
    f.titles.insert(f.titles.end(), page.title.begin(), page.title.end());
    f.candidate.push_back(identities.insert(page.identity).second ? 1 : 0);
  }
  if (source->stats().documents == 0) {
    return Status::NotFound(NothingReadLine(inputs, warnings, source->stats(), SourceOptions()));
  }
  if (!f.found_a) return Status::NotFound("no document with url " + url_a + " in the inputs");
  if (!f.found_b) return Status::NotFound("no document with url " + url_b + " in the inputs");
  return f;
}

std::string RunText(const TokenizedDocument& t, uint32_t begin, uint32_t end) {
  std::string s;
  for (uint32_t i = begin; i < end && s.size() < 300; ++i) {
    if (!s.empty()) s.push_back(' ');
    s.append(t.term(i));
  }
  if (s.size() > 300) {
    // Cut at a character boundary: the text stays UTF-8 (terms are).
    size_t n = 300;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
    s.resize(n);
  }
  return s;
}

// Everything ComparePages and CompareDocuments report, on two loaded pages.
// `from` holds the pages of the two hosts read from the inputs (empty
// without inputs); `source_a`, `source_b` become ComparedPage::source.
// REQUIRES: options valid.
Result<Comparison> CompareLoaded(const Loaded& a, const Loaded& b, const std::string& source_a,
                                 const std::string& source_b, const DedupOptions& options, const FromInputs& from,
                                 bool with_inputs) {
  const RobustMethodOptions& ro = options.robust;
  const RobustSketchers robust_sketcher(ro);
  Comparison c;
  for (auto [page, l, in] : {std::tuple{&c.a, &a, &source_a}, std::tuple{&c.b, &b, &source_b}}) {
    page->source = *in;
    page->url = l->doc.url;
    page->terms = l->tokens.num_terms();
    page->charset = l->tokens.charset;
    page->own_content = HasOwnContent(l->doc);
    page->http_status = l->doc.http_status;
    page->redirect_target = l->doc.redirect_target;
    page->revisit_of = l->doc.revisit_of;
    page->revisit_of_date = l->doc.revisit_of_date;
  }
  // As dedup's identity sets: pages without a term are not copies by their
  // (empty) token sequence.
  c.exact_same_tokens = a.tokens.num_terms() > 0 && a.tokens.term_hashes == b.tokens.term_hashes;
  c.exact_same_bytes = HasOwnContent(a.doc) && HasOwnContent(b.doc) && a.doc.body == b.doc.body;
  c.same_site = SiteOfUrl(a.doc.url) == SiteOfUrl(b.doc.url);
  // As dedup's chains match: `to` as the holder of a key it is named by
  // (EachNameOf, HolderOf, from the keeper features dedup reads), one a
  // chain may end at; a revisit holds nothing.
  auto leads_to = [](const Document& from, const Document& to) {
    const uint64_t key = RedirectKey(from);
    if (key == kNoRedirect || IsRevisit(to)) return false;
    const KeeperFeatures features = KeeperFeatures::Of(to);
    bool named = false;
    EachNameOf(features, true, [&](uint64_t k) { named |= k == key; });
    return named && HolderOf(0, features, RedirectKey(to)).ends;
  };
  const char leads = leads_to(a.doc, b.doc) ? 'a' : leads_to(b.doc, a.doc) ? 'b' : 0;
  const bool revisit = leads != 0 && IsRevisit(leads == 'a' ? a.doc : b.doc);
  c.redirect = revisit ? 0 : leads;
  c.revisit = revisit ? leads : 0;

  // Broder: supershingles and the shingle sets' resemblance.
  const BroderSketcher broder(ToSketchOptions(options.broder));
  c.num_supershingles = broder.options().num_supershingles();
  std::vector<uint64_t> sa(c.num_supershingles), sb(c.num_supershingles);
  SketchScratch scratch;
  const bool ha = broder.Sketch(a.tokens.term_hashes, &scratch, sa.data());
  const bool hb = broder.Sketch(b.tokens.term_hashes, &scratch, sb.data());
  if (ha && hb) c.b_similarity = BSimilarity(sa.data(), sb.data(), c.num_supershingles);
  c.b_similar = c.b_similarity >= 2;  // Henzinger's B-similar (the rule at level very-similar)
  std::vector<uint64_t> shingles_a, shingles_b;
  broder.Shingles(a.tokens.term_hashes, &shingles_a);
  broder.Shingles(b.tokens.term_hashes, &shingles_b);
  const std::unordered_set<uint64_t> set_a(shingles_a.begin(), shingles_a.end());
  const std::unordered_set<uint64_t> set_b(shingles_b.begin(), shingles_b.end());
  size_t common = 0;
  for (uint64_t s : set_a) common += set_b.count(s);
  const size_t uni = set_a.size() + set_b.size() - common;
  c.jaccard = uni ? static_cast<double>(common) / uni : 1.0;

  // Simhash.
  const SimhashSketcher simhash(ToSimhashOptions(options.simhash));
  c.simhash_bits = simhash.options().bits;
  std::vector<uint64_t> ka(simhash.options().words()), kb(simhash.options().words());
  SimhashScratch sscratch;
  if (simhash.Sketch(a.tokens.term_hashes, &sscratch, ka.data()) &&
      simhash.Sketch(b.tokens.term_hashes, &sscratch, kb.data())) {
    c.c_similarity = CSimilarity(ka.data(), kb.data(), c.simhash_bits);
  }
  // Henzinger's C-similar: the simhash method's rule, as dedup applies it.
  DedupOptions simhash_options = options;
  simhash_options.method = "simhash";
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<MethodImpl> simhash_method, NewMethodImpl(simhash_options));
  c.c_similar = simhash_method->Compare(simhash_method->Sign(a.doc), simhash_method->Sign(b.doc)).duplicate;

  // Henzinger's term difference: a diff of the token sequences.
  const TokenDiff diff = DiffTerms(a.tokens.term_hashes, b.tokens.term_hashes);
  c.term_difference = diff.term_difference;
  for (const DiffRun& r : diff.runs) {
    CompareRun run;
    run.a_begin = r.a_begin;
    run.a_end = r.a_end;
    run.b_begin = r.b_begin;
    run.b_end = r.b_end;
    switch (r.kind) {
      case DiffRun::Kind::kEqual:
        run.kind = CompareRun::Kind::kEqual;
        run.text = RunText(a.tokens, r.a_begin, r.a_end);
        break;
      case DiffRun::Kind::kDelete:
        run.kind = CompareRun::Kind::kOnlyInA;
        run.text = RunText(a.tokens, r.a_begin, r.a_end);
        break;
      case DiffRun::Kind::kInsert:
        run.kind = CompareRun::Kind::kOnlyInB;
        run.text = RunText(b.tokens, r.b_begin, r.b_end);
        break;
    }
    c.runs.push_back(std::move(run));
  }

  // The robust method, as dedup's rule decides (site templates learned from
  // the inputs' pages of the two hosts; hosts joined as mirrors are not).
  Comparison::Robust& r = c.robust;
  const RobustPage pa = RobustOf(a.tokens, a.doc.url, ro, robust_sketcher);
  const RobustPage pb = RobustOf(b.tokens, b.doc.url, ro, robust_sketcher);
  r.main_terms_a = pa.sig.main_terms;
  r.main_terms_b = pb.sig.main_terms;
  r.volatile_terms_a = pa.sig.volatile_terms;
  r.volatile_terms_b = pb.sig.volatile_terms;
  r.own_url_terms_a = pa.sig.own_url_terms;
  r.own_url_terms_b = pb.sig.own_url_terms;
  const std::string site_a = RobustSiteOf(a.doc.url, a.tokens.canonical_url),
                    site_b = RobustSiteOf(b.doc.url, b.tokens.canonical_url);
  r.same_host = site_a == site_b;
  r.equal_after_normalization = pa.sig.has_sketch && pa.sig.identity == pb.sig.identity;
  std::vector<uint32_t> only;
  std::set_symmetric_difference(pa.shingles.begin(), pa.shingles.end(), pb.shingles.begin(), pb.shingles.end(),
                                std::back_inserter(only));
  r.shingles_differing = only.size();
  r.edit_limit = r.same_host ? ro.max_same_site_edit_shingles : ro.max_edit_shingles;
  r.host_pages = from.host_pages;
  const SiteTemplates templates(from.mins, from.sites, from.candidate, ro, {},
                                ro.compare_titles ? std::span<const uint64_t>(from.titles)
                                                  : std::span<const uint64_t>());
  const uint64_t key_a = XXH3_64bits(site_a.data(), site_a.size());
  r.template_known = templates.KnowsTemplateOf(key_a) ||
                     templates.KnowsTemplateOf(XXH3_64bits(site_b.data(), site_b.size()));
  r.one_text_site = r.same_host && templates.OneTextSite(key_a);
  r.two_titles_site = r.same_host && templates.TwoTitlesSite(key_a);
  r.titles_name_two_items = TitlesNameTwoItems(pa.title.data(), pb.title.data(), ro.title_numbers, ro.title_function_words);
  r.titles_name_two_numbers = ro.title_numbers && TitlesNameTwoNumbers(pa.title.data(), pb.title.data());
  if (!pa.sig.has_sketch || !pb.sig.has_sketch) {
    r.why = "a page has no term but volatile ones: only exact copies are matched";
  } else if (r.equal_after_normalization) {
    r.similar = true;
    r.why = "equal after volatile terms and the own URL are normalized (Henzinger's correct near duplicates)";
  } else {
    // The method's one rule (RobustDecide), as dedup applies it.
    RobustPageView va{pa.mins.data(), key_a, pa.digest.empty() ? nullptr : pa.digest.data(), pa.sig.main_shingles,
                      pa.sig.shingles};
    RobustPageView vb{pb.mins.data(), XXH3_64bits(site_b.data(), site_b.size()),
                      pb.digest.empty() ? nullptr : pb.digest.data(), pb.sig.main_shingles,
                      pb.sig.shingles};
    if (ro.compare_titles) {
      va.title = pa.title.data();
      vb.title = pb.title.data();
    }
    SiteTemplates::Match m;
    const PairDecision d = RobustDecide(templates, va, vb, ro, &m);
    r.content_agreeing = m.agreeing;
    r.content_positions = m.positions;
    r.template_shared = m.template_shared;
    r.main_agreeing = m.main_agreeing;
    r.main_positions = m.main_positions;
    r.main_boilerplate_alone = m.main_boilerplate_alone;
    r.similarity = d.similarity;
    r.similar = d.duplicate;
    r.why = d.reason;
    if (!d.duplicate && r.same_host && !templates.KnowsTemplateOf(key_a) && !with_inputs) {
      r.why += "; give the crawl with --input to learn the template";
    }
  }
  if (from.clustered) {
    // The decision `dedup` takes, with what it learned from every page.
    r.similar = from.decision.duplicate;
    r.similarity = from.decision.similarity;
    r.why = from.decision.reason;
    r.candidacy = from.decision.candidacy;
    r.clustered = true;
    r.same_cluster = from.same_cluster;
    r.kept_a = from.kept_a;
    r.kept_b = from.kept_b;
    r.a_with_kept_a = from.a_with_kept_a;
    r.b_with_kept_b = from.b_with_kept_b;
    r.a_with_kept_b = from.a_with_kept_b;
    r.b_with_kept_a = from.b_with_kept_a;
  }
  // Every method's rule, through the factory: the verdicts dedup would reach.
  for (const std::string& name : MethodNames()) {
    if (name == "robust") {
      const double similarity = r.equal_after_normalization ? 1.0 : r.similarity;
      c.verdicts.push_back({name, PairDecision{r.similar, similarity, r.why}});
      continue;
    }
    DedupOptions mo = options;
    mo.method = name;
    NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<MethodImpl> m, NewMethodImpl(mo));
    c.verdicts.push_back({name, m->Compare(m->Sign(a.doc), m->Sign(b.doc))});
  }
  return c;
}

}  // namespace

Result<Comparison> ComparePages(const std::string& input_a, const std::string& input_b,
                                const DedupOptions& options, Env* env, const std::vector<std::string>& inputs) {
  NEARDUP_RETURN_IF_ERROR(options.Validate());
  if (env == nullptr) env = Env::Default();
  Loaded a, b;
  FromInputs from;
  if (inputs.empty()) {
    NEARDUP_ASSIGN_OR_RETURN(a, Load(input_a, env));
    NEARDUP_ASSIGN_OR_RETURN(b, Load(input_b, env));
  } else {
    const RobustSketchers robust_sketcher(options.robust);
    NEARDUP_ASSIGN_OR_RETURN(from, LoadFromInputs(inputs, input_a, input_b, options.robust, robust_sketcher, env));
    NEARDUP_RETURN_IF_ERROR(ExplainByDedup(inputs, input_a, input_b, options, env, &from));
    a = std::move(from.a);
    b = std::move(from.b);
  }
  return CompareLoaded(a, b, input_a, input_b, options, from, !inputs.empty());
}

Result<Comparison> CompareDocuments(const Document& a, const Document& b, const DedupOptions& options) {
  NEARDUP_RETURN_IF_ERROR(options.Validate());
  return CompareLoaded(Tokenized(a), Tokenized(b), a.source, b.source, options, FromInputs(), false);
}

}  // namespace neardup
