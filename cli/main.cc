// neardup: the command-line tool. A thin layer over include/neardup: flag
// parsing, progress and warnings on stderr, exit codes.
//
// Exit codes: 0 done (even when records were skipped), 1 nothing usable
// could be read or an output could not be written, 2 bad usage.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
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

namespace {

using namespace neardup_cli;  // NOLINT: exit codes and helpers shared by every command

void PrintSummary(const neardup::DedupSummary& s) {
  double pages_mb_s = s.seconds > 0 ? s.read.payload_bytes / 1e6 / s.seconds : 0;
  std::fprintf(stderr, "neardup dedup: %s documents from %zu input%s in %.2f s (%s of pages, %.1f MB/s, %s docs/s)\n",
               WithCommas(s.documents).c_str(), s.inputs.size(), s.inputs.size() == 1 ? "" : "s",
               s.seconds, HumanBytes(static_cast<double>(s.read.payload_bytes)).c_str(), pages_mb_s,
               WithCommas(static_cast<uint64_t>(s.seconds > 0 ? s.documents / s.seconds : 0)).c_str());
  uint64_t skipped = 0;
  std::string reasons;
  for (const auto& [k, v] : s.read.skipped) {
    skipped += v;
    reasons += (reasons.empty() ? "" : ", ") + k + " " + WithCommas(v);
  }
  std::fprintf(stderr, "  records skipped: %s%s%s%s\n", WithCommas(skipped).c_str(),
               reasons.empty() ? "" : " (", reasons.c_str(), reasons.empty() ? "" : ")");
  if (s.warnings) std::fprintf(stderr, "  warnings: %s (see warnings.tsv)\n", WithCommas(s.warnings).c_str());
  std::fprintf(stderr, "  identity sets: %s by token sequence, %s by bytes\n",
               WithCommas(s.token_identity_sets).c_str(), WithCommas(s.byte_identity_sets).c_str());
  if (s.verification_split_off) {
    std::fprintf(stderr, "  verification: %s pages split off their cluster's kept page\n",
                 WithCommas(s.verification_split_off).c_str());
  }
  std::fprintf(stderr, "  clusters: %s holding %s documents; duplicates: %s (%.1f%%); largest cluster: %s\n",
               WithCommas(s.clusters).c_str(), WithCommas(s.documents_in_clusters).c_str(),
               WithCommas(s.duplicates).c_str(), s.duplicate_percentage,
               WithCommas(s.largest_cluster).c_str());
  if (!s.pairs_by_b_similarity.empty()) {
    std::string by_b;
    for (size_t b = 2; b < s.pairs_by_b_similarity.size(); ++b) {
      by_b += (by_b.empty() ? "" : ", ") + std::to_string(b) + ": " + WithCommas(s.pairs_by_b_similarity[b]);
    }
    std::fprintf(stderr, "  near duplicates (%s, %s kernel): %s pairs (by B-similarity %s); %s pages with a near duplicate\n",
                 s.method_spec.c_str(), s.kernel.c_str(), WithCommas(s.near_pairs).c_str(), by_b.c_str(),
                 WithCommas(s.pages_with_near_duplicate).c_str());
  }
  if (!s.paragraph_passes.empty() || s.short_documents) {
    std::fprintf(stderr, "  shingle paragraphs (%s): %s documents compared, %s left out as short; %s pairs\n",
                 s.method_spec.c_str(), WithCommas(s.near_candidates).c_str(),
                 WithCommas(s.short_documents).c_str(), WithCommas(s.near_pairs).c_str());
    std::fprintf(stderr, "  m-pass: %zu pass%s within a %s table budget\n", s.paragraph_passes.size(),
                 s.paragraph_passes.size() == 1 ? "" : "es",
                 HumanBytes(static_cast<double>(s.paragraph_table_budget_bytes)).c_str());
    for (const neardup::ParagraphPass& p : s.paragraph_passes) {
      std::fprintf(stderr, "    pass %u: %s documents loaded, %s clusters, %s duplicates, estimated final %.0f\n",
                   p.pass, WithCommas(p.documents_loaded).c_str(), WithCommas(p.clusters).c_str(),
                   WithCommas(p.duplicates).c_str(), p.estimated_final_duplicates);
    }
  }
  if (!s.chunk_overlap.algorithm.empty()) {
    const neardup::ChunkOverlapStats& c = s.chunk_overlap;
    std::fprintf(stderr,
                 "  chunk overlap (%s): %s records (%s), %s copies removed, %s pairs generated, %s with F >= T; "
                 "sort %.2f s, overlap %.2f s, %s sorted runs spilled, %u pass%s\n",
                 s.method_spec.c_str(), WithCommas(c.records).c_str(),
                 HumanBytes(static_cast<double>(c.fingerprint_bytes)).c_str(), WithCommas(c.copies_removed).c_str(),
                 WithCommas(c.pairs_generated).c_str(), WithCommas(c.result_pairs).c_str(), c.sort_seconds,
                 c.overlap_seconds, WithCommas(c.spill_runs).c_str(), c.passes, c.passes == 1 ? "" : "es");
    for (const neardup::ReplicaHistogram& h : s.replica_histograms) {
      std::string line;
      for (const auto& [label, pages] : h.pages) line += (line.empty() ? "" : ", ") + label + ": " + WithCommas(pages);
      std::fprintf(stderr, "    pages by replicas (%s): %s\n", h.chunking.c_str(), line.c_str());
    }
  }
  std::fprintf(stderr, "  peak memory: %s\n", HumanBytes(static_cast<double>(s.peak_rss_bytes)).c_str());
  std::fprintf(stderr, "  wrote %s, %s, %s%s%s\n", s.clusters_path.c_str(), s.summary_path.c_str(),
               s.warnings_path.c_str(), s.pairs_path.empty() ? "" : ", ", s.pairs_path.c_str());
}

int RunDedupCommand(const std::vector<std::string>& inputs, const std::string& out,
                    neardup::DedupOptions options, int threads, bool quiet, uint64_t warning_limit) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // One thread: everything inline on the main thread (per-core figures).
  std::unique_ptr<neardup::Executor> executor;
  if (threads > 1) executor = neardup::NewThreadPoolExecutor(threads);

  StderrObserver observer(quiet, warning_limit);
  const bool tty = isatty(STDERR_FILENO);
  double last_line = -1e9;
  auto progress = [&](const neardup::DedupProgress& p) {
    if (quiet) return true;
    if (!tty && p.seconds - last_line < 5) return true;  // logs: a line per 5 s
    last_line = p.seconds;
    char pct[32] = "";
    if (p.input_bytes_total > 0) {
      std::snprintf(pct, sizeof pct, ", %.0f%% of input",
                    100.0 * static_cast<double>(p.input_bytes_consumed) / p.input_bytes_total);
    }
    const double secs = p.seconds > 0 ? p.seconds : 1e-9;
    std::fprintf(stderr, "%sneardup: %s docs, %s docs/s, %.1f MB/s%s%s", tty ? "\r" : "",
                 WithCommas(p.documents).c_str(), WithCommas(static_cast<uint64_t>(p.documents / secs)).c_str(),
                 p.payload_bytes / 1e6 / secs, pct, tty ? "   " : "\n");
    observer.set_progress_line(tty);
    return true;
  };
  options.memory_probe = ProcessMemory;
  auto result = neardup::RunDedup(inputs, out, options, executor.get(), nullptr, &observer, progress, 0.5);
  if (!quiet && tty) std::fprintf(stderr, "\n");
  if (!result.ok()) {
    const auto& st = result.status();
    std::fprintf(stderr, "neardup: error: %s\n", st.message().c_str());
    return st.IsInvalidArgument() ? kExitUsage : kExitNoData;
  }
  const neardup::DedupSummary& s = result.value();
  if (s.documents == 0) {
    // One line, printed even with --quiet: the files and why (first warning
    // of up to kNamedFiles files), then where the rest is.
    const std::vector<neardup::ReadWarning>& named = observer.first_per_file();
    std::string line = "no usable document could be read";
    if (named.empty()) {
      line += " from the " + std::to_string(s.inputs.size()) + " input" +
              (s.inputs.size() == 1 ? "" : "s") + " (see " + s.warnings_path + ")";
    } else {
      for (size_t i = 0; i < named.size(); ++i) {
        line += (i == 0 ? ": " : "; ") + named[i].file + ": " + DescribeWarning(named[i]);
      }
      const uint64_t rest = observer.seen() - named.size();
      if (rest > 0) {
        line += "; " + WithCommas(rest) + " more warning" + (rest == 1 ? "" : "s") + ", see " +
                s.warnings_path;
      }
    }
    std::fprintf(stderr, "neardup: error: %s\n", line.c_str());
    return kExitNoData;
  }
  if (!quiet) PrintSummary(s);
  return kExitOk;
}

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
              "%s shingles differ; same host: %s",
              rb.volatile_terms_a, rb.volatile_terms_b, rb.own_url_terms_a, rb.own_url_terms_b,
              rb.equal_after_normalization ? "yes" : "no", WithCommas(rb.shingles_differing).c_str(),
              rb.same_host ? "yes" : "no");
  if (!inputs.empty()) {
    std::printf("; %s pages of the hosts read, template %s", WithCommas(rb.host_pages).c_str(),
                rb.template_known ? "known" : "unknown");
  }
  std::printf("\n  -> %s: %s\n", rb.similar ? "near duplicates" : "not near duplicates", rb.why.c_str());
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
      char buf[256];
      std::snprintf(buf, sizeof buf,
                    "{\"true_positive\": %llu, \"false_positive\": %llu, \"false_negative\": %llu, "
                    "\"precision\": %.6f, \"recall\": %.6f, \"f1\": %.6f}",
                    static_cast<unsigned long long>(p.true_positive),
                    static_cast<unsigned long long>(p.false_positive),
                    static_cast<unsigned long long>(p.false_negative), p.precision(), p.recall(), p.f1());
      return std::string(buf);
    };
    std::printf("{\"items\": %llu, \"missing_from_prediction\": %llu, \"urls_not_in_truth\": %llu, "
                "\"pairs\": %s, \"same_site_pairs\": %s, \"different_site_pairs\": %s, "
                "\"adjusted_rand_index\": %.6f, \"bcubed_precision\": %.6f, \"bcubed_recall\": %.6f, "
                "\"bcubed_f1\": %.6f, \"wrong_same_site_merges\": %llu}\n",
                static_cast<unsigned long long>(e.items),
                static_cast<unsigned long long>(e.missing_from_prediction),
                static_cast<unsigned long long>(not_in_truth), pc(e.all).c_str(), pc(e.same_site).c_str(),
                pc(e.different_site).c_str(), e.adjusted_rand_index, e.bcubed_precision,
                e.bcubed_recall, e.bcubed_f1, static_cast<unsigned long long>(e.wrong_same_site_merges));
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

}  // namespace

int main(int argc, char** argv) {
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
  std::vector<std::string> inputs;
  std::string out_dir;
  int threads = 0;
  bool quiet = false;
  std::string method = neardup::DedupOptions().method;
  std::string max_record = "64M";
  bool skip_non_2xx = false;
  uint64_t warning_limit = 100;
  dedup->add_option("INPUT", inputs,
                    "WARC/ARC files (.warc, .warc.gz, .arc.gz, whole-file gzip or zstd), folders "
                    "of .html/.htm/.txt files (recursive, also .gz), JSON Lines files with url "
                    "and html or text fields (plain, gzip or zstd), or - for JSON Lines on "
                    "standard input")
      ->required();
  dedup->add_option("--out,-o", out_dir, "Output folder (created if missing)")->required();
  dedup->add_option("--threads,-t", threads,
                    "Worker threads; 0 = all cores (default). Output is identical for any value")
      ->check(CLI::Range(0, 1024));
  dedup->add_flag("--quiet,-q", quiet, "No progress, warnings or summary on stderr; errors only");
  dedup->add_option("--method,-m", method,
                    "exact: identity sets only; after exact, on one page per identity set: broder "
                    "(Broder shingling: min-hash, supershingles, megashingles), simhash "
                    "(Charikar's simhash, Henzinger's Algorithm C), combined (Henzinger's combined "
                    "algorithm: same-site pairs B-similar with C-similarity >= 355, pairs on "
                    "different sites C-similar), robust (Henzinger's correct near duplicates: "
                    "volatile terms and the page's own URL normalized, each site's boilerplate "
                    "learned and left out of the comparison; the default: the best F1 at "
                    "precision >= 0.99 on the synth benchmark), paragraphs (Pereira et al.'s "
                    "shingle paragraphs: runs of 3 sentences, documents sharing --min-shared "
                    "percent of them, m-pass algorithm within --memory), chunks (Shivakumar and "
                    "Garcia-Molina's chunk overlap: documents sharing --threshold T chunk "
                    "fingerprints of --chunk, --algorithm sort or coarse within --memory). Also a "
                    "spec string as summary.json's method_spec shows it, e.g. "
                    "'broder:k=8,no-wrap,level=virtually-identical' (keys left out keep the flags' "
                    "values; see doc/spec.md)")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            auto m = neardup::NewMethod(value);
            return m.ok() ? std::string() : m.status().message();
          },
          "NAME|SPEC", "method"));
  neardup::ParagraphMethodOptions paragraph_defaults;
  neardup::ChunkMethodOptions chunk_defaults;
  uint32_t min_shared = paragraph_defaults.min_shared_percent;
  uint32_t min_chars = paragraph_defaults.min_text_chars;
  std::string chunk_spec = chunk_defaults.chunking, chunk_algorithm = chunk_defaults.algorithm;
  uint32_t coarse_hashes = chunk_defaults.coarse_hash_functions;
  std::string memory = "2G";
  dedup->add_option("--min-shared", min_shared,
                    "paragraphs: near duplicates share at least this percentage of shingle "
                    "paragraphs, over both documents (Pereira et al.: 90, 70, 50); 100: exact "
                    "clusters only (equal paragraph multisets)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  dedup->add_option("--min-chars", min_chars,
                    "paragraphs: documents with this many characters of text or fewer are left "
                    "out and counted (Pereira et al.: 450)")
      ->capture_default_str();
  dedup->add_option("--chunk", chunk_spec,
                    "chunks: whole, lines:N, words:N or sentences (Shivakumar and Garcia-Molina: "
                    "lines:4 with T = 15, lines:2 with T = 25)")
      ->capture_default_str();
  dedup->add_option("--algorithm", chunk_algorithm,
                    "chunks: sort (sort-based) or coarse (probabilistic coarse counting)")
      ->check(CLI::IsMember({"sort", "coarse"}))
      ->capture_default_str();
  dedup->add_option("--coarse-hashes", coarse_hashes, "chunks, coarse: hash functions (counter arrays)")
      ->check(CLI::Range(1, 8))
      ->capture_default_str();
  dedup->add_option("--memory", memory,
                    "paragraphs, chunks: memory budget of the whole run, e.g. 512M or 2G; the "
                    "tables get what the rest does not use, in more passes or sorted runs "
                    "spilled to DIR")
      ->capture_default_str();
  neardup::RobustMethodOptions robust_defaults;
  double min_content = robust_defaults.min_content_similarity;
  uint32_t template_pages = robust_defaults.template_min_pages;
  bool keep_numbers = false, keep_own_url = false;
  uint32_t edit_shingles = robust_defaults.max_edit_shingles;
  dedup->add_option("--edit-shingles", edit_shingles,
                    "robust: pages on different sites whose shingle sets differ in at most this many "
                    "shingles (about three edited words) are near duplicates; 0 turns it off")
      ->check(CLI::Range(0, 40));
  uint32_t same_site_edit_shingles = robust_defaults.max_same_site_edit_shingles;
  dedup->add_option("--same-site-edit-shingles", same_site_edit_shingles,
                    "robust: the same for two pages of one site (an inserted label and value, or "
                    "two words changed); 0 turns it off")
      ->check(CLI::Range(0, 40));
  dedup->add_option("--min-content", min_content,
                    "robust: similar when at least this fraction of the min-hash positions not "
                    "shared as site boilerplate agree")
      ->check(CLI::Range(0.0, 1.0));
  dedup->add_option("--template-pages", template_pages,
                    "robust: a min-hash value held by this many distinct pages of one site at the "
                    "same position is the site's boilerplate")
      ->check(CLI::Range(2, 1000000));
  dedup->add_flag("--keep-numbers", keep_numbers,
                  "robust: compare terms with digits as they are (by default they and the dates "
                  "around them are one volatile class, as Henzinger's timestamps, counters and ids)");
  dedup->add_flag("--keep-own-url", keep_own_url,
                  "robust: compare the page's own URL or host shown in its text as it is");
  uint32_t sim_bits = 384, sim_threshold = 372, combined_threshold = 355;
  dedup->add_option("--bits", sim_bits, "simhash, combined: sketch bits b (multiple of 64, 64..512)")
      ->check(CLI::Range(64, 512));
  CLI::Option* threshold_option = dedup->add_option(
      "--threshold", sim_threshold,
      "simhash, combined: C-similar at this many agreeing bits (Henzinger t = 372); chunks: "
      "the overlap threshold T, distinct chunk fingerprints shared (default 15)");
  dedup->add_option("--combined-threshold", combined_threshold,
                    "combined: a B-similar pair on one site is kept at this C-similarity "
                    "(Henzinger: 355)");
  std::string level = "very-similar";
  uint32_t shingle = 5;
  bool wrap = false, no_wrap = false, pairs = false;
  std::string family = "fast";
  uint64_t seed = 1234;
  dedup->add_option("--level", level,
                    "broder: very-similar (>= 2 of 6 supershingles agree) or virtually-identical "
                    "(all 6 agree)")
      ->check(CLI::IsMember({"very-similar", "virtually-identical"}));
  dedup->add_option("--shingle", shingle,
                    "broder: terms per shingle, 5 (Fetterly et al., wraps by default) or 8 "
                    "(Henzinger, no wrap by default)")
      ->check(CLI::Range(1, 64));
  auto* wrap_flag = dedup->add_flag("--wrap", wrap, "broder: wrap shingles around the end of the page");
  dedup->add_flag("--no-wrap", no_wrap, "broder: do not wrap shingles around")->excludes(wrap_flag);
  dedup->add_flag("--pairs", pairs,
                  "broder: write DIR/pairs.tsv (url_a, url_b, supershingles_shared) for the "
                  "near-duplicate pairs found");
  dedup->add_option("--minhash", family,
                    "broder: min-hash functions: fast (vectorized bijections, default) or rabin "
                    "(84 Rabin fingerprint functions as Fetterly et al. used; slower)")
      ->check(CLI::IsMember({"fast", "rabin"}));
  dedup->add_option("--seed", seed, "broder: seed of the min-hash functions");
  std::string keeper = neardup::DedupOptions().keeper;
  bool no_verify = false;
  dedup->add_option("--keeper", keeper,
                    "Rules that choose each cluster's kept page, in order: status, static-url, "
                    "in-links (more distinct pages of the crawl link to it; not in the default, it "
                    "costs link extraction), shorter-url, earlier-fetch, url-hash, input-order (the "
                    "deciding rule is the reason column)");
  dedup->add_flag("--no-verify", no_verify,
                  "Keep near-duplicate members that fail the method's rule against their "
                  "cluster's kept page (by default they are split off)");
  dedup->add_option("--max-record-size", max_record,
                    "Skip records larger than this after decompression (e.g. 64M, 1G)");
  dedup->add_flag("--skip-non-2xx", skip_non_2xx,
                  "Skip HTTP responses whose status is not 2xx (kept by default)");
  dedup->add_option("--max-warnings", warning_limit,
                    "Warnings printed to stderr before the rest are only counted (all go to "
                    "warnings.tsv)");

  // ---- compare ----
  CLI::App* compare = app.add_subcommand(
      "compare",
      "Explain one pair: terms of each page, B-similarity (supershingles shared), C-similarity "
      "(simhash bits agreeing), Jaccard resemblance of the shingle sets, and the term "
      "difference with the differing runs of a diff of the two token sequences; and the robust "
      "method's decision with its reason. With --input, A and B are URLs of pages in those "
      "crawls, and the robust view learns their sites' templates from them.");
  std::string cmp_a, cmp_b;
  std::vector<std::string> cmp_inputs;
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
                      "Crawls (any input dedup reads) in which A and B are URLs; their sites' other "
                      "pages teach the robust method the templates");

  // ---- eval ----
  CLI::App* eval = app.add_subcommand(
      "eval",
      "Score a dedup output folder against a truth file (url<TAB>group): pairwise precision, "
      "recall and F1 (all pairs, same-site and different-site pairs), adjusted Rand index, "
      "B-cubed precision and recall, wrongly merged same-site pairs.");
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
      neardup_cli::AddOverlapCommand(&app), neardup_cli::AddReportCommand(&app),
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
    options.method = method;
    options.broder.level = level == "virtually-identical" ? neardup::NearLevel::kVirtuallyIdentical
                                                          : neardup::NearLevel::kVerySimilar;
    options.broder.shingle_size = shingle;
    options.broder.wrap = wrap ? 1 : no_wrap ? 0 : -1;
    options.broder.rabin_family = family == "rabin";
    options.broder.seed = seed;
    options.write_pairs = pairs;
    options.simhash.bits = sim_bits;
    options.simhash.threshold = sim_threshold;
    options.simhash.combined_threshold = combined_threshold;
    options.robust.min_content_similarity = min_content;
    options.robust.template_min_pages = template_pages;
    options.robust.max_edit_shingles = edit_shingles;
    options.robust.max_same_site_edit_shingles = same_site_edit_shingles;
    options.robust.normalize_numbers = !keep_numbers;
    options.robust.normalize_own_url = !keep_own_url;
    options.robust.seed = seed;
    options.keeper = keeper;
    options.verify = !no_verify;
    options.paragraphs.min_shared_percent = min_shared;
    options.paragraphs.min_text_chars = min_chars;
    options.chunks.chunking = chunk_spec;
    options.chunks.algorithm = chunk_algorithm;
    options.chunks.coarse_hash_functions = coarse_hashes;
    options.chunks.seed = seed;
    // A spec string (doc/spec.md) sets its method's parameters over the flags.
    const std::string method_name = method.substr(0, method.find(':'));
    if (method_name == "chunks" && threshold_option->count() > 0) {
      options.chunks.threshold = sim_threshold;
      options.simhash.threshold = neardup::SimhashMethodOptions().threshold;
    }
    if (!ParseSize(memory, &options.memory_bytes)) {
      std::fprintf(stderr, "neardup: error: --memory: cannot read '%s' as a size (e.g. 2G)\n", memory.c_str());
      return kExitUsage;
    }
    if (pairs && method_name == "exact") {
      std::fprintf(stderr, "neardup: error: --pairs needs a near-duplicate method (any --method but exact)\n");
      return kExitUsage;
    }
    options.source.keep_non_2xx = !skip_non_2xx;
    if (!ParseSize(max_record, &options.source.max_record_bytes)) {
      std::fprintf(stderr, "neardup: error: --max-record-size: cannot read '%s' as a size (e.g. 64M)\n",
                   max_record.c_str());
      return kExitUsage;
    }
    return RunDedupCommand(inputs, out_dir, options, threads, quiet, warning_limit);
  }
  for (const neardup_cli::Command& c : commands) {
    if (c.app->parsed()) return c.run();
  }
  if (eval->parsed()) return RunEvalCommand(truth_path, eval_dir, eval_json);
  if (synth->parsed()) return RunSynthCommand(synth_options);
  if (compare->parsed()) {
    neardup::DedupOptions o;
    o.broder.shingle_size = cmp_shingle;
    o.simhash.bits = cmp_bits;
    o.simhash.threshold = cmp_threshold;
    return RunCompareCommand(cmp_a, cmp_b, o, cmp_runs, cmp_inputs);
  }
  return kExitUsage;
}
