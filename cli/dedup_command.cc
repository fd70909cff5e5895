// The `dedup` command (dedup_command.h).
#include "dedup_command.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>

#include "neardup/executor.h"
#include "neardup/method.h"

namespace neardup_cli {

void DedupFlags::Register(CLI::App* dedup) {
  dedup->add_option("INPUT", inputs,
                    "WARC/ARC files (.warc, .warc.gz, .arc.gz, whole-file gzip or zstd), folders "
                    "of .html/.htm/.txt files (recursive, also .gz) and of crawl files (named .warc, .arc, "
                    ".wet, .jsonl or .ndjson, also .gz or .zst; other files are counted as "
                    "folder-file-left-out), JSON Lines files with url "
                    "and html or text fields, optional status, date and redirect (a 3xx's Location; a "
                    "redirect is in the cluster of the page its chain of redirects ends at), or revisit_of "
                    "and revisit_of_date for a capture whose content is an earlier one's (a WARC revisit "
                    "record; in the cluster of that capture) (plain, gzip or "
                    "zstd), or - for JSON Lines on standard input")
      ->required();
  dedup->add_option("--out,-o", out_dir, "Output folder (created if missing)")->required();
  dedup->add_option("--threads,-t", threads,
                    "Threads in all: the main thread reads and signs beside N-1 workers; 0 = every CPU this process may run on (its affinity mask: taskset, a cpuset, mpirun binding; default). "
                    "Output is identical for any value")
      ->check(CLI::Range(0, 1024));
  dedup->add_flag("--quiet,-q", quiet, "No progress, warnings or summary on stderr; errors only");
  dedup->add_option("--method,-m", method,
                    "exact: identity sets only; after exact, on one page per identity set: broder "
                    "(Broder shingling: min-hash, supershingles, megashingles), simhash "
                    "(Charikar's simhash, Henzinger's Algorithm C), combined (Henzinger's combined "
                    "algorithm: same-site pairs B-similar with C-similarity >= 355, pairs on "
                    "different sites C-similar), robust (Henzinger's correct near duplicates: "
                    "volatile terms and the page's own URL normalized, each site's boilerplate "
                    "learned and left out of the comparison, main texts compared across templates; "
                    "the default: the best F1 of the methods on every labelled set of README "
                    "'Choosing a method'), paragraphs (Pereira et al.'s "
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
                    "memory budget of the whole run (its resident size), every method, e.g. 512M "
                    "or 2G. A run that cannot fit stops with one line that says what it needs: "
                    "before reading when the program and its threads take it, while reading as "
                    "soon as the pages read (or, after 5% of the input, the pages it will hold) "
                    "would not fit with their clustering. robust sorts as many candidate tables "
                    "at once as it leaves room for; paragraphs and chunks give their tables what "
                    "the rest does not use, in more passes or sorted runs spilled to DIR")
      ->capture_default_str();
  dedup->add_option("--edit-shingles", edit_shingles,
                    "robust: pages on different sites whose shingle sets differ in at most this many "
                    "shingles (about three edited words) are near duplicates; 0 turns it off")
      ->check(CLI::Range(0, 40));
  dedup->add_option("--same-site-edit-shingles", same_site_edit_shingles,
                    "robust: the same for two pages of one site (an inserted label and value, or "
                    "two words changed); 0 turns it off. Both limits grow to half a percent of the "
                    "smaller page's distinct shingles on long pages")
      ->check(CLI::Range(0, 40));
  dedup->add_option("--main-minhashes", main_minhashes,
                    "robust: min-hash values of a page's main text (its text blocks of 10 terms or more, "
                    "at most a third of them link text); 0 turns main text off")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  dedup->add_option("--min-main", min_main,
                    "robust: pages on different sites (or on one site whose template is known) whose "
                    "main texts agree on at least this fraction of their main-text positions are near "
                    "duplicates (one article in two templates); such pages whose main texts agree on "
                    "less are not, however alike their templates")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  dedup->add_option("--min-containment", min_containment,
                    "robust: pages on different sites (or on one site whose template is known) are near "
                    "duplicates when the smaller main text is at least this much contained in the larger "
                    "(an excerpt, a shortened wire story), where the estimate is sure enough and the whole pages "
                    "agree no more than the main texts (or, on one site, its template shows around the main texts "
                    "and not in them); 0 turns it off")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  dedup->add_option("--min-content", min_content,
                    "robust: similar when at least this fraction of the min-hash positions not "
                    "shared as site boilerplate agree")
      ->check(CLI::Range(0.0, 1.0));
  dedup->add_option("--template-pages", template_pages,
                    "robust: a min-hash value held by this many distinct pages of one site (the hosts "
                    "of one registrable domain) at the same position is the site's boilerplate")
      ->check(CLI::Range(2, 1000000));
  dedup->add_option("--template-fraction", template_fraction,
                    "robust: ... and by at least this fraction of the site's distinct pages (a page "
                    "copied a few times on its own large host keeps its text as content)")
      ->check(CLI::Range(0.0, 1.0));
  dedup->add_flag("--keep-numbers", keep_numbers,
                  "robust: compare terms with digits as they are (by default they and the dates "
                  "around them are one volatile class, as Henzinger's timestamps, counters and ids; an "
                  "image's URL by a digit in its file name only, which --method robust:no-image-names undoes)");
  dedup->add_flag("--keep-own-url", keep_own_url,
                  "robust: compare the page's own URL or host shown in its text as it is");
  dedup->add_flag("--keep-text-urls", keep_text_urls,
                  "robust: only the page's own URL in its text is one class, not every URL written there "
                  "(http:// or https:// up to white space or markup)");
  dedup->add_flag("--ignore-titles", ignore_titles,
                  "robust: read no page's <title> (by default two pages alone on a site, or two of a site of "
                  "3 to 5 pages, alike as one text are two items when their titles name two items, by their "
                  "words (function words such as 'the' or 'of' shared are none in common: "
                  "robust:no-title-function-words counts them) or by numbers of four digits or more, which "
                  "--method robust:no-title-numbers leaves out, and one item on the small site only when titled "
                  "as one; and titles decide where the values cannot: pages of one template with too little of "
                  "their own to tell, or passing every rule within one standard error of its bar, are two items "
                  "when their titles name two, and titles naming two numbers are no edit: robust:no-titles-decide "
                  "lets the values alone decide)");
  dedup->add_option("--bits", sim_bits, "simhash, combined: sketch bits b (multiple of 64, 64..512)")
      ->check(CLI::Range(64, 512));
  threshold_option = dedup->add_option(
      "--threshold", sim_threshold,
      "simhash, combined: C-similar at this many agreeing bits (Henzinger t = 372); chunks: "
      "the overlap threshold T, distinct chunk fingerprints shared (default 15)");
  dedup->add_option("--combined-threshold", combined_threshold,
                    "combined: a B-similar pair on one site is kept at this C-similarity "
                    "(Henzinger: 355)");
  dedup->add_option("--level", level,
                    "broder: very-similar (>= 2 of 6 supershingles agree) or virtually-identical "
                    "(all 6 agree)")
      ->check(CLI::IsMember({"very-similar", "virtually-identical"}));
  dedup->add_option("--shingle", shingle,
                    "broder: terms per shingle, 5 (Fetterly et al., wraps by default) or 8 "
                    "(Henzinger, no wrap by default)")
      ->check(CLI::Range(1, 64));
  CLI::Option* wrap_flag = dedup->add_flag("--wrap", wrap, "broder: wrap shingles around the end of the page");
  dedup->add_flag("--no-wrap", no_wrap, "broder: do not wrap shingles around")->excludes(wrap_flag);
  dedup->add_flag("--pairs", pairs,
                  "broder: write DIR/pairs.tsv (url_a, url_b, supershingles_shared) for the "
                  "near-duplicate pairs found");
  dedup->add_option("--minhash", family,
                    "broder: min-hash functions: fast (vectorized bijections, default) or rabin "
                    "(84 Rabin fingerprint functions as Fetterly et al. used; slower)")
      ->check(CLI::IsMember({"fast", "rabin"}));
  dedup->add_option("--seed", seed, "broder: seed of the min-hash functions");
  dedup->add_option("--keeper", keeper,
                    "Rules that choose each cluster's kept page, in order: status, static-url, "
                    "in-links (more distinct pages of the crawl link to it; not in the default, it "
                    "costs link extraction), shorter-url, earlier-fetch, url-hash, input-order (the "
                    "deciding rule is the reason column; a page kept because the cluster's other "
                    "pages redirect to it says redirect-target)");
  dedup->add_flag("--no-verify", no_verify,
                  "Keep near-duplicate members that fail the method's rule against their "
                  "cluster's kept page (by default they are split off, unless they pass a "
                  "center of the cluster, and verified again as a cluster of their own)");
  dedup->add_option("--max-record-size", max_record,
                    "Skip records larger than this after decompression (e.g. 64M, 1G)");
  dedup->add_flag("--skip-non-2xx", skip_non_2xx,
                  "Skip HTTP responses whose status is not 2xx (kept by default)");
  dedup->add_option("--max-warnings", warning_limit,
                    "Warnings printed to stderr before the rest are only counted (all go to "
                    "warnings.tsv)");
}

int DedupFlags::ToOptions(neardup::DedupOptions* options) const {
  options->method = method;
  options->broder.level = level == "virtually-identical" ? neardup::NearLevel::kVirtuallyIdentical
                                                        : neardup::NearLevel::kVerySimilar;
  options->broder.shingle_size = shingle;
  options->broder.wrap = wrap ? 1 : no_wrap ? 0 : -1;
  options->broder.rabin_family = family == "rabin";
  options->broder.seed = seed;
  options->write_pairs = pairs;
  options->simhash.bits = sim_bits;
  options->simhash.threshold = sim_threshold;
  options->simhash.combined_threshold = combined_threshold;
  options->robust.min_content_similarity = min_content;
  options->robust.template_min_pages = template_pages;
  options->robust.template_site_fraction = template_fraction;
  options->robust.max_edit_shingles = edit_shingles;
  options->robust.max_same_site_edit_shingles = same_site_edit_shingles;
  options->robust.main_minhashes = main_minhashes;
  options->robust.min_main_similarity = min_main;
  options->robust.min_main_containment = min_containment;
  options->robust.normalize_numbers = !keep_numbers;
  options->robust.normalize_own_url = !keep_own_url;
  options->robust.normalize_text_urls = !keep_text_urls;
  options->robust.compare_titles = !ignore_titles;
  options->robust.seed = seed;
  options->keeper = keeper;
  options->verify = !no_verify;
  options->paragraphs.min_shared_percent = min_shared;
  options->paragraphs.min_text_chars = min_chars;
  options->chunks.chunking = chunk_spec;
  options->chunks.algorithm = chunk_algorithm;
  options->chunks.coarse_hash_functions = coarse_hashes;
  options->chunks.seed = seed;
  // A spec string (doc/spec.md) sets its method's parameters over the flags.
  const std::string method_name = method.substr(0, method.find(':'));
  if (method_name == "chunks" && threshold_option->count() > 0) {
    options->chunks.threshold = sim_threshold;
    options->simhash.threshold = neardup::SimhashMethodOptions().threshold;
  }
  if (!ParseSize(memory, &options->memory_bytes)) {
    std::fprintf(stderr, "neardup: error: --memory: cannot read '%s' as a size (e.g. 2G)\n", memory.c_str());
    return kExitUsage;
  }
  if (pairs && method_name == "exact") {
    std::fprintf(stderr, "neardup: error: --pairs needs a near-duplicate method (any --method but exact)\n");
    return kExitUsage;
  }
  options->source.keep_non_2xx = !skip_non_2xx;
  if (!ParseSize(max_record, &options->source.max_record_bytes)) {
    std::fprintf(stderr, "neardup: error: --max-record-size: cannot read '%s' as a size (e.g. 64M)\n",
                 max_record.c_str());
    return kExitUsage;
  }
  return kExitOk;
}

void PrintDedupSummary(const neardup::DedupSummary& s) {
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
  std::fprintf(stderr, "  records and files skipped: %s%s%s%s\n", WithCommas(skipped).c_str(),
               reasons.empty() ? "" : " (", reasons.c_str(), reasons.empty() ? "" : ")");
  if (s.warnings) std::fprintf(stderr, "  warnings: %s (see warnings.tsv)\n", WithCommas(s.warnings).c_str());
  if (s.documents_without_content) {
    std::fprintf(stderr, "  without content of their own (redirects, revisits, empty bodies; matched by no method): %s\n",
                 WithCommas(s.documents_without_content).c_str());
  }
  if (s.redirects) {
    const std::string cycles =
        s.redirect_cycles ? " (" + WithCommas(s.redirect_cycles) + " in loops or past 32 hops)" : std::string();
    std::fprintf(stderr, "  redirects: %s, %s in the cluster of the page their chain ends at%s\n",
                 WithCommas(s.redirects).c_str(), WithCommas(s.redirects_joined).c_str(), cycles.c_str());
  }
  if (s.revisits) {
    std::fprintf(stderr, "  revisits: %s, %s in the cluster of the capture they name\n", WithCommas(s.revisits).c_str(),
                 WithCommas(s.revisits_joined).c_str());
  }
  std::fprintf(stderr, "  identity sets: %s by token sequence, %s by bytes\n",
               WithCommas(s.token_identity_sets).c_str(), WithCommas(s.byte_identity_sets).c_str());
  if (s.verification_split_off) {
    std::fprintf(stderr, "  verification: %s pages split off their cluster's kept page, %s of them regrouped\n",
                 WithCommas(s.verification_split_off).c_str(), WithCommas(s.verification_repaired).c_str());
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

neardup::DedupProgressCallback DedupProgressPrinter(bool quiet, StderrObserver* observer) {
  const bool tty = isatty(STDERR_FILENO);
  auto last_line = std::make_shared<double>(-1e9);
  return [=](const neardup::DedupProgress& p) {
    if (quiet) return true;
    if (!tty && p.seconds - *last_line < 5) return true;  // logs: a line per 5 s
    *last_line = p.seconds;
    char pct[32] = "";
    if (p.input_bytes_total > 0) {
      std::snprintf(pct, sizeof pct, ", %.0f%% of input",
                    100.0 * static_cast<double>(p.input_bytes_consumed) / p.input_bytes_total);
    }
    const double secs = p.seconds > 0 ? p.seconds : 1e-9;
    std::fprintf(stderr, "%sneardup: %s docs, %s docs/s, %.1f MB/s%s%s", tty ? "\r" : "",
                 WithCommas(p.documents).c_str(), WithCommas(static_cast<uint64_t>(p.documents / secs)).c_str(),
                 p.payload_bytes / 1e6 / secs, pct, tty ? "   " : "\n");
    observer->set_progress_line(tty);
    return true;
  };
}

int RunDedupCommand(const std::vector<std::string>& inputs, const std::string& out,
                    neardup::DedupOptions options, int threads, bool quiet, uint64_t warning_limit,
                    const AllocatorPhases& allocator) {
  if (threads <= 0) threads = neardup::UsableCpus();
  // The main thread reads and signs beside threads - 1 workers; one thread:
  // everything inline on it (per-core figures).
  std::unique_ptr<neardup::Executor> executor = neardup::NewExecutorForThreads(threads);

  StderrObserver observer(quiet, warning_limit);
  auto progress = DedupProgressPrinter(quiet, &observer);
  options.memory_probe = ProcessMemory;
  auto result = neardup::RunDedup(inputs, out, options, executor.get(), nullptr, &observer, progress, 0.5,
                                  [&](neardup::DedupPhase phase) {
                                    const auto& hook = phase == neardup::DedupPhase::kReading
                                                           ? allocator.reading
                                                           : allocator.clustering;
                                    if (hook) hook();
                                  });
  if (!quiet && isatty(STDERR_FILENO)) std::fprintf(stderr, "\n");
  if (!result.ok()) {
    const auto& st = result.status();
    std::fprintf(stderr, "neardup: error: %s\n", st.message().c_str());
    return st.IsInvalidArgument() ? kExitUsage : kExitNoData;
  }
  const neardup::DedupSummary& s = result.value();
  if (s.documents == 0) {
    // One line, printed even with --quiet.
    const std::string line =
        neardup::NothingReadLine(s.inputs, observer.first_warnings(), s.read, options.source, s.warnings_path);
    std::fprintf(stderr, "neardup: error: %s\n", line.c_str());
    return kExitNoData;
  }
  if (!quiet) PrintDedupSummary(s);
  return kExitOk;
}


}  // namespace neardup_cli
