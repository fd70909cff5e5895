// neardup: the command-line tool. A thin layer over include/neardup: flag
// parsing, progress and warnings on stderr, exit codes.
//
// Exit codes: 0 done (even when records were skipped), 1 nothing usable
// could be read or an output could not be written, 2 bad usage.
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#ifdef NEARDUP_WITH_JEMALLOC
#include <jemalloc/jemalloc.h>
#include <sys/types.h>
#endif

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <cmath>

#include "neardup/compare.h"
#include "neardup/engine.h"
#include "neardup/env.h"
#include "neardup/evaluation.h"
#include "neardup/executor.h"
#include "neardup/method.h"
#include "synth/synth.h"
#include "cli_util.h"
#include "commands.h"
#include "dedup_command.h"

namespace {

using namespace neardup_cli;  // NOLINT: exit codes and helpers shared by every command

int RunCompareCommand(const std::string& a, const std::string& b, const neardup::DedupOptions& o,
                      uint32_t max_runs, const std::vector<std::string>& inputs) {
  auto r = neardup::ComparePages(a, b, o, neardup::Env::Default(), inputs);
  if (!r.ok()) {
    std::fprintf(stderr, "neardup: error: %s\n", r.status().message().c_str());
    return r.status().IsInvalidArgument() ? kExitUsage : kExitNoData;
  }
  const neardup::Comparison& c = r.value();
  for (const auto* p : {&c.a, &c.b}) {
    std::printf("%s: %s  url %s  %s terms  charset %s\n", p == &c.a ? "A" : "B", p->source.c_str(),
                p->url.empty() ? "-" : p->url.c_str(), WithCommas(p->terms).c_str(), p->charset.c_str());
    if (!p->own_content) {
      if (!p->revisit_of.empty() && p->redirect_target.empty()) {
        std::printf("   no content of its own: a revisit of the capture of %s%s%s (its content is that capture's, "
                    "which the crawler did not store again); no method matches it: dedup puts it in the cluster of "
                    "that capture, when it is read in the same run\n",
                    p->revisit_of.c_str(), p->revisit_of_date.empty() ? "" : " at ", p->revisit_of_date.c_str());
      } else if (p->http_status >= 300 && p->http_status < 400) {
        std::printf("   no content of its own: an HTTP %d redirect%s%s (its content is its target's); no method "
                    "matches it: dedup puts it in the cluster of the page its chain of redirects ends at, when that "
                    "page is read in the same run\n",
                    p->http_status, p->redirect_target.empty() ? "" : " to ", p->redirect_target.c_str());
      } else {
        std::printf("   no content of its own: an empty body; dedup matches it with nothing\n");
      }
    }
  }
  if (c.redirect) {
    const char from = c.redirect == 'a' ? 'A' : 'B', to = c.redirect == 'a' ? 'B' : 'A';
    std::printf("%c redirects to %c: dedup puts them in one cluster, %c kept over the redirect (Zhu et al.'s "
                "redirection-based duplicates)\n",
                from, to, to);
  }
  if (c.revisit) {
    const char from = c.revisit == 'a' ? 'A' : 'B', to = c.revisit == 'a' ? 'B' : 'A';
    std::printf("%c is a revisit of %c: dedup puts them in one cluster, %c kept over the revisit\n", from, to, to);
  }
  std::printf("same bytes: %s   same token sequence: %s   same site: %s\n",
              c.exact_same_bytes ? "yes" : "no", c.exact_same_tokens ? "yes" : "no",
              c.same_site ? "yes" : "no");
  // Fetterly et al.: each supershingle agrees with probability q = J^l; at
  // least 2 of m' agree with 1 - (1-q)^m' - m' q (1-q)^(m'-1).
  const double q = std::pow(c.jaccard, static_cast<double>(o.broder.supershingle_size));
  const double mp = c.num_supershingles;
  const double p2 = 1 - std::pow(1 - q, mp) - mp * q * std::pow(1 - q, mp - 1);
  std::printf("Jaccard resemblance of the %u-term shingle sets: %.4f  (chance of >= 2 agreeing supershingles: %.3f)\n",
              o.broder.shingle_size, c.jaccard, p2);
  std::printf("B-similarity: %d of %u supershingles agree  -> %s\n", c.b_similarity, c.num_supershingles,
              c.b_similar ? "B-similar (broder would pair them)" : "not B-similar");
  std::printf("C-similarity: %d of %u simhash bits agree  -> %s (t = %u; combined keeps same-site B-similar pairs at >= %u)\n",
              c.c_similarity, c.simhash_bits, c.c_similar ? "C-similar" : "not C-similar",
              o.simhash.threshold, o.simhash.combined_threshold);
  const neardup::Comparison::Robust& rb = c.robust;
  std::printf("robust: normalized %u+%u volatile terms and %u+%u own-URL terms; equal after that: %s; "
              "%s shingles differ; main text %s+%s terms; same site (registrable domain): %s",
              rb.volatile_terms_a, rb.volatile_terms_b, rb.own_url_terms_a, rb.own_url_terms_b,
              rb.equal_after_normalization ? "yes" : "no", WithCommas(rb.shingles_differing).c_str(),
              WithCommas(rb.main_terms_a).c_str(), WithCommas(rb.main_terms_b).c_str(), rb.same_host ? "yes" : "no");
  if (!inputs.empty()) {
    std::printf("; %s pages of the sites read, template %s", WithCommas(rb.host_pages).c_str(),
                rb.one_text_site ? "none (the two pages alone on their site are one text: whole pages and main texts "
                                   "alike, or one holding the other, so it learns no template from them)"
                : rb.two_titles_site && rb.titles_name_two_numbers
                    ? "known (the two pages alone on their site are alike, but their titles name two items: past the "
                      "words they share at their ends, each names a number of four digits or more that the other "
                      "does not; so it learns its template from them)"
                : rb.two_titles_site ? "known (the two pages alone on their site are alike, but their titles name two "
                                       "items: past the words they share at their ends, each has more of its own, and "
                                       "none in common; so it learns its template from them)"
                : rb.template_known ? "known"
                                    : "unknown");
  }
  std::printf("\n  -> %s: %s\n", rb.similar ? "near duplicates" : "not near duplicates", rb.why.c_str());
  if (rb.clustered) {
    if (rb.same_cluster) {
      std::printf("  dedup over the inputs: one cluster, kept page %s\n", rb.kept_a.c_str());
    } else {
      std::printf("  dedup over the inputs: two clusters, kept pages %s and %s\n", rb.kept_a.c_str(),
                  rb.kept_b.c_str());
    }
    if (!rb.candidacy.empty()) std::printf("    dedup's candidate tables: %s\n", rb.candidacy.c_str());
    // Verification's decisions behind that.
    auto against = [](const char* what, const std::optional<neardup::PairDecision>& d) {
      if (!d) return;
      std::printf("    %s: %s: %s\n", what, d->duplicate ? "near duplicates" : "not near duplicates",
                  d->reason.c_str());
    };
    against("A against its kept page", rb.a_with_kept_a);
    against("B against its kept page", rb.b_with_kept_b);
    against("A against B's kept page", rb.a_with_kept_b);
    against("B against A's kept page", rb.b_with_kept_a);
  }
  std::printf("each method's rule, as dedup applies it:\n");
  for (const neardup::Comparison::Verdict& v : c.verdicts) {
    std::printf("  %-10s %s: %s\n", v.method.c_str(), v.decision.duplicate ? "near duplicates" : "not near duplicates",
                v.decision.reason.c_str());
  }
  std::printf("term difference (Henzinger: terms a diff of the token sequences returns): %s\n",
              WithCommas(c.term_difference).c_str());
  uint32_t shown = 0;
  for (size_t i = 0; i < c.runs.size() && shown < max_runs; ++i) {
    const neardup::CompareRun& run = c.runs[i];
    if (run.kind == neardup::CompareRun::Kind::kEqual) continue;
    const bool only_a = run.kind == neardup::CompareRun::Kind::kOnlyInA;
    std::printf("  %s A[%u,%u) B[%u,%u): %s\n", only_a ? "- only in A" : "+ only in B", run.a_begin,
                run.a_end, run.b_begin, run.b_end, run.text.c_str());
    ++shown;
  }
  return kExitOk;
}

int RunEvalCommand(const std::string& truth_path, const std::string& dir, bool json) {
  uint64_t not_in_truth = 0;
  auto r = neardup::EvaluateFiles(truth_path, dir, neardup::Env::Default(), &not_in_truth);
  if (!r.ok()) {
    std::fprintf(stderr, "neardup: error: %s\n", r.status().message().c_str());
    return r.status().IsInvalidArgument() ? kExitUsage : kExitNoData;
  }
  const neardup::EvaluationResult& e = r.value();
  if (json) {
    auto pc = [](const neardup::PairCounts& p) {
      return nlohmann::ordered_json{{"true_positive", p.true_positive}, {"false_positive", p.false_positive},
                                    {"false_negative", p.false_negative}, {"precision", p.precision()},
                                    {"recall", p.recall()}, {"f1", p.f1()}};
    };
    auto errors = [](const std::vector<neardup::EvaluationResult::ClusterError>& list, const char* parts) {
      nlohmann::ordered_json out = nlohmann::ordered_json::array();
      for (const auto& x : list) {
        out.push_back({{"label", x.label}, {"size", x.size}, {"pairs", x.pairs}, {parts, x.parts}});
      }
      return out;
    };
    nlohmann::ordered_json kinds = nlohmann::ordered_json::array();
    for (const auto& k : e.kinds) {
      kinds.push_back(
          {{"kind", k.kind}, {"pages", k.pages}, {"bcubed_recall", k.bcubed_recall}, {"pages_alone", k.pages_alone}});
    }
    const nlohmann::ordered_json j = {{"items", e.items},
                                      {"missing_from_prediction", e.missing_from_prediction},
                                      {"urls_not_in_truth", not_in_truth},
                                      {"pairs", pc(e.all)},
                                      {"same_site_pairs", pc(e.same_site)},
                                      {"different_site_pairs", pc(e.different_site)},
                                      {"adjusted_rand_index", e.adjusted_rand_index},
                                      {"bcubed_precision", e.bcubed_precision},
                                      {"bcubed_recall", e.bcubed_recall},
                                      {"bcubed_f1", e.bcubed_f1},
                                      {"wrong_same_site_merges", e.wrong_same_site_merges},
                                      {"kinds", kinds},
                                      {"worst_split_groups", errors(e.worst_split_groups, "clusters")},
                                      {"worst_merged_clusters", errors(e.worst_merged_clusters, "groups")}};
    // Labels and kinds come from the truth file: bytes that are not UTF-8
    // are replaced rather than refused.
    std::printf("%s\n", j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace).c_str());
    return kExitOk;
  }
  std::printf("pages evaluated: %s (truth pages missing from the output: %s; output pages without truth: %s)\n",
              WithCommas(e.items).c_str(), WithCommas(e.missing_from_prediction).c_str(),
              WithCommas(not_in_truth).c_str());
  std::printf("%-16s %10s %10s %10s %9s %9s %9s\n", "pairs", "true+", "false+", "false-", "precision",
              "recall", "F1");
  auto row = [](const char* name, const neardup::PairCounts& p) {
    std::printf("%-16s %10llu %10llu %10llu %9.4f %9.4f %9.4f\n", name,
                static_cast<unsigned long long>(p.true_positive),
                static_cast<unsigned long long>(p.false_positive),
                static_cast<unsigned long long>(p.false_negative), p.precision(), p.recall(), p.f1());
  };
  row("all", e.all);
  row("same site", e.same_site);
  row("different site", e.different_site);
  std::printf("adjusted Rand index %.4f\n", e.adjusted_rand_index);
  std::printf("B-cubed precision %.4f, recall %.4f, F1 %.4f\n", e.bcubed_precision, e.bcubed_recall,
              e.bcubed_f1);
  std::printf("wrongly merged same-site pairs: %s\n", WithCommas(e.wrong_same_site_merges).c_str());
  if (!e.kinds.empty()) {
    std::printf("by kind (pages of truth groups of 2+)   pages  B-cubed recall  left alone\n");
    for (const auto& k : e.kinds) {
      std::printf("  %-36s %7s %15.4f %11s\n", k.kind.c_str(), WithCommas(k.pages).c_str(), k.bcubed_recall,
                  WithCommas(k.pages_alone).c_str());
    }
  }
  if (!e.worst_split_groups.empty()) {
    std::printf("truth groups with the most missed pairs (group: pages, missed pairs, clusters):\n");
    for (const auto& x : e.worst_split_groups) {
      std::printf("  %s: %s, %s, %s\n", x.label.c_str(), WithCommas(x.size).c_str(), WithCommas(x.pairs).c_str(),
                  WithCommas(x.parts).c_str());
    }
  }
  if (!e.worst_merged_clusters.empty()) {
    std::printf("clusters with the most wrongly merged pairs (cluster: pages, wrong pairs, truth groups):\n");
    for (const auto& x : e.worst_merged_clusters) {
      std::printf("  %s: %s, %s, %s\n", x.label.c_str(), WithCommas(x.size).c_str(), WithCommas(x.pairs).c_str(),
                  WithCommas(x.parts).c_str());
    }
  }
  return kExitOk;
}

int RunSynthCommand(const neardup::SynthOptions& options) {
  auto r = neardup::BuildSyntheticCrawl(options, neardup::Env::Default());
  if (!r.ok()) {
    std::fprintf(stderr, "neardup: error: %s\n", r.status().message().c_str());
    return r.status().IsInvalidArgument() ? kExitUsage : kExitNoData;
  }
  const neardup::SynthSummary& s = r.value();
  std::string kinds;
  for (const auto& [kind, n] : s.pages_by_kind) {
    kinds += (kinds.empty() ? "" : ", ") + kind + " " + WithCommas(n);
  }
  std::string short_pool;
  if (s.sites_not_built || s.pages_not_built) {
    short_pool = "; the pool was short: " + WithCommas(s.sites_not_built) + " sites and " +
                 WithCommas(s.pages_not_built) + " planned pages not built";
  }
  std::fprintf(stderr,
               "neardup synth: wrote %s pages (%s of HTML) in %s truth groups to %s and %s. Pool: %s "
               "HTML pages of %s documents read, %s templates, %s paragraphs (%s used, none twice). "
               "Sites: %s (%s dynamic, %s database, %s mirrored on %s hosts) with %s distinct pages, "
               "%s of them hard negatives (sharing a template with pages of other groups); %s "
               "scraper hosts; %s parked domains of %s registrars. Pages by kind: %s%s.\n",
               WithCommas(s.pages).c_str(), HumanBytes(static_cast<double>(s.bytes)).c_str(),
               WithCommas(s.groups).c_str(), options.out_warc.c_str(), options.out_truth.c_str(),
               WithCommas(s.pool_pages).c_str(), WithCommas(s.documents_read).c_str(),
               WithCommas(s.pool_templates).c_str(), WithCommas(s.pool_paragraphs).c_str(),
               WithCommas(s.paragraphs_used).c_str(), WithCommas(s.sites).c_str(),
               WithCommas(s.dynamic_sites).c_str(), WithCommas(s.database_sites).c_str(),
               WithCommas(s.mirrored_sites).c_str(), WithCommas(s.mirror_hosts).c_str(),
               WithCommas(s.distinct_pages).c_str(), WithCommas(s.hard_negative_pages).c_str(),
               WithCommas(s.scraper_hosts).c_str(), WithCommas(s.parked_domains).c_str(),
               WithCommas(s.parked_registrars).c_str(), kinds.c_str(), short_pool.c_str());
  return kExitOk;
}

#ifdef NEARDUP_WITH_JEMALLOC
// How long jemalloc keeps freed pages for reuse before it gives them back to
// the system (its dirty_decay_ms), for the arenas there are and those to
// come. At 0 the pages held now go back too.
void KeepFreedPagesFor(ssize_t decay_ms) {
  mallctl("arenas.dirty_decay_ms", nullptr, nullptr, &decay_ms, sizeof(decay_ms));
  // Arena by arena: "arena.<MALLCTL_ARENAS_ALL>" takes no decay time (those
  // not initialized yet refuse it too, and get the default above).
  unsigned arenas = 0;
  size_t size = sizeof(arenas);
  if (mallctl("arenas.narenas", &arenas, &size, nullptr, 0) != 0) arenas = 0;
  for (unsigned i = 0; i < arenas; ++i) {
    const std::string name = "arena." + std::to_string(i) + ".dirty_decay_ms";
    mallctl(name.c_str(), nullptr, nullptr, &decay_ms, sizeof(decay_ms));
  }
  if (decay_ms == 0) {
    const std::string purge = "arena." + std::to_string(MALLCTL_ARENAS_ALL) + ".purge";
    mallctl(purge.c_str(), nullptr, nullptr, nullptr, 0);
  }
}

// The server allocates and frees each request's pages, parsed lines and
// transaction again and again: jemalloc's default of keeping freed pages 10
// seconds (instead of returning them at once, as the batch commands do;
// `malloc_conf` below) saves faulting them in anew for every request.
void KeepFreedPagesForReuse() { KeepFreedPagesFor(10000); }

// `dedup` while it reads: every page's body, tokens and signature scratch
// are freed and allocated again page after page, and returned at once they
// are faulted in anew (a fault about every 4 KiB). A quarter second's worth
// of them is kept: on long documentation pages (95 KB each) that cut the
// faults from 58,800 to 36,200 on one thread (105,000 to 66,000 on two)
// and the run by 6% (10%), for 14 MB (35 MB) more at the peak; on short
// pages (8 KB) the faults and the peak stay as they were
// (bench/RESULTS.md). Reading holds a bounded
// number of batches, so what is kept is bounded too. Clustering then
// returns freed pages at once again (AllocatorPhases).
constexpr ssize_t kReadingDecayMs = 250;
#endif

}  // namespace

#ifdef NEARDUP_WITH_JEMALLOC
// jemalloc's options, read when it starts: freed pages go back to the system
// at once, so that a batch run's resident memory is what its stages hold
// (the bytes a page that bench/RESULTS.md reports).
const char* malloc_conf = "dirty_decay_ms:0,muzzy_decay_ms:0";
#endif

int main(int argc, char** argv) {
#ifdef __GLIBC__
  // Blocks of 1 MiB and more always come from their own mappings, returned to
  // the system when freed: glibc's default raises that threshold as large
  // blocks are freed, after which the stages' big temporary tables stay in
  // the heap and in the resident set for the rest of the run.
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
  // NEARDUP_SIMD=portable|avx2|avx512 caps the SIMD kernels (benchmarks,
  // checks on a lesser CPU); the library itself reads no environment.
  if (const char* simd = std::getenv("NEARDUP_SIMD"); simd != nullptr && *simd != '\0') {
    if (neardup::Status s = neardup::SetSimdKernel(simd); !s.ok()) {
      std::fprintf(stderr, "neardup: warning: NEARDUP_SIMD ignored: %s\n", s.message().c_str());
    }
  }
  CLI::App app{
      "neardup: find exact and near-duplicate documents in web crawls (WARC, ARC, folders of "
      "HTML/text files, JSON Lines), cluster them, and keep one page per cluster."};
  app.set_version_flag("--version", std::string("neardup ") + neardup::Version());
  app.require_subcommand(1);

  // ---- dedup ----
  CLI::App* dedup = app.add_subcommand(
      "dedup",
      "Read crawls, group exact duplicates (same token sequence or same bytes) and near "
      "duplicates by the --method chosen: robust (the default), broder, simhash, combined, "
      "paragraphs or chunks; exact finds exact duplicates only. Write DIR/clusters.tsv (url, "
      "cluster, role, method, similarity, source, offset, reason), DIR/summary.json, "
      "DIR/warnings.tsv and with --pairs DIR/pairs.tsv.");
  DedupFlags dedup_flags;
  dedup_flags.Register(dedup);

  // ---- keep (keep_command.cc) ----
  const neardup_cli::Command keep = neardup_cli::AddKeepCommand(&app);

  // ---- compare ----
  CLI::App* compare = app.add_subcommand(
      "compare",
      "Explain one pair: terms of each page, B-similarity (supershingles shared), C-similarity "
      "(simhash bits agreeing), Jaccard resemblance of the shingle sets, and the term "
      "difference with the differing runs of a diff of the two token sequences; and the robust "
      "method's decision with its reason. With --input, A and B are URLs of pages in those "
      "crawls, the robust method runs over every page of them as dedup does, and the decision "
      "shown is the one dedup takes on the pair (templates learned from the whole crawl), with "
      "whether dedup put the two in one cluster and their kept pages, and whether its candidate "
      "tables made the two a candidate pair (a pair that is none was never decided itself).");
  std::string cmp_a, cmp_b;
  std::vector<std::string> cmp_inputs;
  std::string cmp_robust;
  uint32_t cmp_shingle = 5, cmp_bits = 384, cmp_threshold = 372, cmp_runs = 20;
  compare->add_option("A", cmp_a, "First page: an HTML/text file, or any input dedup reads (its first document)")
      ->required();
  compare->add_option("B", cmp_b, "Second page")->required();
  compare->add_option("--shingle", cmp_shingle, "Terms per shingle (5 wraps, 8 does not)")
      ->check(CLI::Range(1, 64));
  compare->add_option("--bits", cmp_bits, "Simhash bits")->check(CLI::Range(64, 512));
  compare->add_option("--threshold", cmp_threshold, "C-similar at this many agreeing bits");
  compare->add_option("--runs", cmp_runs, "Differing runs to show");
  compare->add_option("--input,-i", cmp_inputs,
                      "Crawls (any input dedup reads) in which A and B are URLs; the robust method "
                      "runs over all their pages, as dedup does, to give dedup's decision on the pair");
  compare->add_option("--robust", cmp_robust,
                      "The robust method's parameters as dedup ran it, a spec such as "
                      "robust:template-fraction=0.1,content=0.3 (summary.json's method_spec is one)");

  // ---- eval ----
  CLI::App* eval = app.add_subcommand(
      "eval",
      "Score a dedup output folder against a truth file (url<TAB>group): pairwise precision, "
      "recall and F1 (all pairs, same-site and different-site pairs), adjusted Rand index, "
      "B-cubed precision and recall, wrongly merged same-site pairs; B-cubed recall per kind of page (when the "
      "truth has a `kind` column, as neardup synth writes it); the truth groups with the most missed pairs and the "
      "clusters with the most wrongly merged ones.");
  std::string truth_path, eval_dir;
  bool eval_json = false;
  eval->add_option("--truth", truth_path, "Truth file: url<TAB>group per line")->required();
  eval->add_option("DIR", eval_dir, "Output folder of `neardup dedup` (reads DIR/clusters.tsv)")
      ->required();
  eval->add_flag("--json", eval_json, "Print the figures as one JSON object");

  // ---- synth ----
  CLI::App* synth = app.add_subcommand(
      "synth",
      "Build a labelled near-duplicate benchmark from real HTML pages: template sites whose "
      "distinct pages share boilerplate but not their main item (hard negatives, Henzinger's "
      "incorrect near duplicates), copies of pages that differ only as Henzinger's correct near "
      "duplicates do (session ids, other URLs, invisible markup, timestamps, counters, execution "
      "times, server names, message ids, the page's own URL; whole mirrored subtrees; scraped "
      "copies with 1-3 words of one sentence edited), and parked domains (one group per "
      "registrar). Writes CRAWL.warc.gz and TRUTH.tsv (url, group, kind: original, session-id, "
      "alias, markup, mirror, sentence-edit or parked). Same inputs and seed: same bytes.");
  neardup::SynthOptions synth_options;
  synth->add_option("INPUT", synth_options.inputs,
                    "Pool of real pages: anything dedup reads (WARC/ARC files, folders of "
                    ".html/.html.gz files, JSON Lines); HTML pages with a 2xx status are used")
      ->required();
  synth->add_option("--out,-o", synth_options.out_warc, "The crawl to write (.warc.gz)")->required();
  synth->add_option("--truth", synth_options.out_truth, "The truth file to write (.tsv)")->required();
  synth->add_option("--sites", synth_options.sites,
                    "Template sites to build (pages per site heavy-tailed: half have 1, a few 100+)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  synth->add_option("--parked-registrars", synth_options.parked_registrars,
                    "Organizations selling parked domains (2-100 domains each); 0 for none")
      ->check(CLI::Range(0, 49))
      ->capture_default_str();
  synth->add_option("--seed", synth_options.seed, "Seed of every random choice")->capture_default_str();
  synth->add_option("--max-copies", synth_options.max_copies,
                    "Cap of the heavy-tailed number of copies of one page (0: no copies)")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();

  // ---- commands defined in their own files (commands.h) ----
  std::vector<neardup_cli::Command> commands = {
      keep, neardup_cli::AddOverlapCommand(&app), neardup_cli::AddReportCommand(&app),
      neardup_cli::AddMirrorsCommand(&app), neardup_cli::AddEvolveCommand(&app),
      neardup_cli::AddConnectedCommand(&app), neardup_cli::AddSynthWebCommand(&app),
      neardup_cli::AddPartitionPlanCommand(&app)};
#ifdef NEARDUP_WITH_SERVICE
  commands.push_back(neardup_cli::AddServeCommand(&app));
  commands.push_back(neardup_cli::AddIngestCommand(&app));
  commands.push_back(neardup_cli::AddExportCommand(&app));
#endif

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }

  if (dedup->parsed()) {
    neardup::DedupOptions options;
    if (int rc = dedup_flags.ToOptions(&options); rc != kExitOk) return rc;
    neardup_cli::AllocatorPhases allocator;
#ifdef NEARDUP_WITH_JEMALLOC
    allocator.reading = [] { KeepFreedPagesFor(kReadingDecayMs); };
    allocator.clustering = [] { KeepFreedPagesFor(0); };
#endif
    return RunDedupCommand(dedup_flags.inputs, dedup_flags.out_dir, options, dedup_flags.threads, dedup_flags.quiet,
                           dedup_flags.warning_limit, allocator);
  }
  for (const neardup_cli::Command& c : commands) {
    if (!c.app->parsed()) continue;
#ifdef NEARDUP_WITH_JEMALLOC
    if (c.app->get_name() == "serve") KeepFreedPagesForReuse();
#endif
    return c.run();
  }
  if (eval->parsed()) return RunEvalCommand(truth_path, eval_dir, eval_json);
  if (synth->parsed()) return RunSynthCommand(synth_options);
  if (compare->parsed()) {
    neardup::DedupOptions o;
    o.broder.shingle_size = cmp_shingle;
    o.simhash.bits = cmp_bits;
    o.simhash.threshold = cmp_threshold;
    if (!cmp_robust.empty()) {
      auto robust = neardup::RobustMethodOptions::Parse(cmp_robust);
      if (!robust.ok()) {
        std::fprintf(stderr, "neardup: error: %s\n", robust.status().message().c_str());
        return kExitUsage;
      }
      o.robust = *robust;
    }
    return RunCompareCommand(cmp_a, cmp_b, o, cmp_runs, cmp_inputs);
  }
  return kExitUsage;
}
