// Copyright neardup authors. Licensed under Apache-2.0.
//
// The dedup engine: reads a crawl, turns every page into tokens, groups
// exact and near duplicates, chooses the page each cluster keeps, and writes
// the cluster table and run summary. The CLI, the Python module's
// neardup.dedup(), the service and the MPI driver all call this one entry
// point.
//
// Pipeline (one pass over the input, then in-memory stages):
//   read     -> DocumentSource, on the calling thread (decompression,
//               WARC/HTTP parsing)
//   tokenize -> Henzinger's HTML-to-token rules and the method's signatures
//               (supershingles, simhash), on the executor's threads and on
//               the calling thread whenever it would wait for them (a run
//               on T threads: NewExecutorForThreads(T), T - 1 workers)
//   exact    -> identity sets: documents with the same token sequence, and
//               documents with the same bytes (Shivakumar and Garcia-Molina,
//               Henzinger: exact copies are found first)
//   near     -> with a near-duplicate method, one page per identity set
//               enters the megashingle tables or the simhash piece index;
//               pairs are joined by union-find
//   keepers  -> each cluster's kept page by the keeper rules (Zhu et al.
//               §5); members failing the method's rule against it are split
//               off (Zhu et al. §5.2)
//   write    -> clusters.tsv in input order, summary.json, warnings.tsv,
//               pairs.tsv
//
// Memory per document: 28 bytes for the exact stage, 24 for keeper
// features, the method's signatures (48 bytes each for supershingles and
// simhash-384) and a few bytes of union-find and cluster state; URLs and
// other per-page strings are spilled to a temporary file in the output
// folder, never held in memory. Output depends only on the inputs and
// options, never on the thread count; with the default keeper rules the
// clusters do not depend on the order of the inputs either.
#ifndef NEARDUP_ENGINE_H_
#define NEARDUP_ENGINE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/source.h"
#include "neardup/status.h"

namespace neardup {

class Env;
class Executor;

// The version of neardup, e.g. "0.1.0".
const char* Version();

// How near a pair must be for Broder shingling (Fetterly et al. §2).
enum class NearLevel : unsigned char {
  kVerySimilar,        // at least 2 of the m' supershingles agree
  kVirtuallyIdentical  // all m' supershingles agree
};

// Broder shingling as Fetterly, Manasse and Najork ("On the Evolution of
// Clusters of Near-Duplicate Web Pages") and Henzinger's Algorithm B run it.
struct BroderMethodOptions {
  uint32_t shingle_size = 5;        // k: terms per shingle (Fetterly 5, Henzinger 8)
  // Wrap around at the end so every term starts exactly one shingle:
  // 1 yes, 0 no, -1 automatic (wrap unless k = 8, Henzinger's setting).
  int wrap = -1;
  uint32_t num_minhashes = 84;      // m
  uint32_t supershingle_size = 14;  // l; m' = m / l = 6 supershingles
  bool rabin_family = false;        // min-hash with m Rabin functions (reference, slow)
  uint64_t seed = 1234;             // draws the min-hash functions
  NearLevel level = NearLevel::kVerySimilar;
  // Pages sharing one megashingle are all listed as pairs up to this many;
  // larger buckets are clustered without listing every pair.
  uint32_t max_bucket_pages = 1000;

  bool effective_wrap() const { return wrap < 0 ? shingle_size != 8 : wrap != 0; }
  // e.g. "broder:k=5,wrap,m=84,l=14,family=fast,seed=1234,level=very-similar"
  std::string Spec() const;
};

// Charikar's simhash as Henzinger's Algorithm C runs it, and her combined
// algorithm (§3.5).
struct SimhashMethodOptions {
  uint32_t bits = 384;                // b: a multiple of 64 from 64 to 512
  uint32_t threshold = 372;           // t: C-similar at >= t agreeing bits
  uint64_t seed = 1234;               // draws the ±1 projection of every term
  // Combined: B-similar pairs on the same site are kept when their
  // C-similarity is at least this (Henzinger: 355); pairs on different sites
  // are taken from simhash at `threshold`.
  uint32_t combined_threshold = 355;
  // e.g. "simhash:b=384,t=372,seed=1234"
  std::string Spec() const;
};

// The `robust` method (see README "Methods"): Henzinger's correct
// near-duplicates ("Finding Near-Duplicate Web Pages", §3.1) found after
// normalizing the terms in which they may differ, and pages of one site
// compared on what is not the site's boilerplate.
struct RobustMethodOptions {
  uint32_t shingle_size = 5;      // k: terms per shingle (Fetterly et al.)
  uint32_t num_minhashes = 84;    // m: min-hash values per page (Fetterly et al.)
  uint32_t band_rows = 3;         // r: candidates share r consecutive values
  // A min-hash value is a site's boilerplate when at least this many
  // distinct pages of the site hold it at the same position (2: whatever two
  // different pages of one site share is the site's, not either page's).
  uint32_t template_min_pages = 2;
  // ... and at least this fraction of the site's distinct pages: a template
  // is what a good part of a site's pages share, while a page copied a few
  // times on its own large host (an ad block injected, its template
  // replaced, a word edited) is one item among many, whose text must stay
  // content. Chosen on the labelled pairs of stia-near-duplicates under their
  // real URLs (README "Choosing a method").
  double template_site_fraction = 0.05;
  // Similar when at least this fraction of the positions not shared as
  // boilerplate agree (estimated resemblance of the pages' own content; a
  // page with a short main item has few such positions, and one edited word
  // of it changes k shingles, so the bar is low: different items agree on
  // none of them).
  double min_content_similarity = 0.2;
  // The bar when no position was left out as boilerplate (neither page's
  // site shows a template): then the whole pages are compared, and two
  // pages of one template with different items (say two articles of one
  // news site found on two hosts) must not pass.
  double min_similarity_without_template = 0.8;
  // Pages on different sites whose shingle sets differ in at most this many
  // shingles are near duplicates whatever their resemblance: about three
  // words edited on each side (k shingles per word), told exactly by a
  // difference digest (Eppstein et al.) of 72 cells (576 bytes a page; a
  // difference of 30 fails to decode about 3% of the time, and the pair is
  // then judged by the min-hash rule alone).
  // This is what finds an edited copy of a page whose main item is a small
  // part of it. 0 turns it off (and the digests are not kept).
  uint32_t max_edit_shingles = 30;
  // The same for two pages of one site: 20 shingles, an inserted label and
  // value of up to 12 terms ("Last updated ...": w terms inserted change
  // w + 2(k-1) shingles) or two words changed in place, but not the 10-30
  // consecutive tokens in which Henzinger's NIH database pages differ
  // (t consecutive tokens replaced change 2(t + k - 1) shingles).
  uint32_t max_same_site_edit_shingles = 20;
  // Main text. A page's main text is its text blocks (lines: block-level
  // elements) of at least main_line_terms terms of which at most a third
  // are link text: Kohlschuetter, Fankhauser and Nejdl ("Boilerplate
  // Detection using Shallow Text Features", WSDM 2010) tell main text from
  // navigation, headers and footers by these two features, at about 10-15
  // words a block and a link density of 0.33. Its k-term shingles get
  // main_minhashes min-hash values of their own (0 turns main text off),
  // after the m whole-page values. Two pages on different sites, or on one
  // site whose template is known, that each have main_min_terms terms of
  // main text are near duplicates when their main texts agree on at least
  // min_main_similarity of the main-text positions not shared as
  // boilerplate: one article in two templates (a syndicated story, a press
  // release on a reseller's site, a page whose navigation was replaced);
  // and two such pages whose main texts agree on less are not, however
  // alike the rest. 0.5 is Broder's "roughly the same"
  // resemblance ("On the resemblance and containment of documents"), fixed
  // beforehand, not tuned. All of a plain-text page is its main text.
  uint32_t main_minhashes = 42;
  // Main-text candidates share this many consecutive main-text values (the
  // whole page's bands keep band_rows). Broder's S-curve of b bands of r
  // rows rises at about (1/b)^(1/r): 21 bands of 2 put it at 0.22, below the
  // lowest main-text resemblance the rules accept (a main text 80%
  // contained in one 2.5 times its size: about 0.3; min_main_similarity
  // 0.5), where 14 bands of 3 put it at 0.41. A pair at resemblance 0.3 is
  // then a candidate with probability 0.86 (0.32 with r = 3), at 0.5 with
  // 0.998 (0.85). Fixed from the curve, not tuned. Specs written before
  // this field (a whole spec without `main-r`: Parse) band main
  // text as the whole page, band_rows.
  uint32_t main_band_rows = 2;
  uint32_t main_line_terms = 10;
  uint32_t main_min_terms = 50;
  double min_main_similarity = 0.5;
  // Containment (Broder, "On the resemblance and containment of
  // documents": c(A, B) = |S(A) n S(B)| / |S(A)|). Two pages on different
  // sites, or on one site whose template is known, are near duplicates
  // when the smaller main text is at least this much contained in the
  // larger: an excerpt, a wire story shortened, a press release split in
  // parts. Estimated from the main texts' agreement outside the
  // boilerplate both hold and their numbers of distinct shingles (kept
  // beside the signature): the smaller text's own part, not the template
  // the two share, is what must be contained; a pair whose estimate is
  // too uncertain (kMaxContainmentError: the smaller main text a small
  // part of the larger) is left to the other rules. Two pages alone on a
  // site of which one holds the other this way (the smaller main text at
  // most this share of the larger's size, its whole page contained too)
  // are one text, and their site learns no template from them. 0.8 is
  // "largely contains", fixed beforehand. 0 turns it off (and the counts
  // are not kept). Needs main text (main_minhashes > 0).
  double min_main_containment = 0.8;
  bool normalize_numbers = true;  // terms with digits (and dates) -> one class
  bool normalize_own_url = true;  // the page's URL or host in its text -> one class
  // Every URL written in the page's text ("http://" or "https://" up to
  // white space or markup), whoever's it is, -> the own-URL class: a copy
  // on another host that keeps the original's "URL: ..." line then reads
  // as the original, which names its own. Acts only with
  // normalize_own_url (Spec() writes it only then).
  bool normalize_text_urls = true;
  // An image's URL term (Henzinger's IMG term: the whole URL on another
  // host, the file name on the page's own) counts by its file name, and
  // is volatile by a digit in that name only, not in its host or path
  // ("i0.wp.com", "/2024/05/"): a copy on another host that links the
  // original's images by their whole URL then reads as the original,
  // whose relative references give the names alone. Acts only with
  // normalize_numbers (Spec() writes it only then); without it every
  // image term counts by its file name already. Specs written before this
  // field (a whole spec without `image-names`: Parse) judge the whole URL.
  bool image_file_names = true;
  // Two pages alone on a site that are one text by their values (whole
  // pages and main texts alike, or one holding the other) are two items
  // when their titles name two items (TitlesNameTwoItems: past what they
  // share at their ends, a site's name, each title has more words of its
  // own than that, and none in common with the other's): where a site's
  // template holds most of its two pages' text, nothing else tells its
  // items apart. And on a site of three to five pages, two pages alike as
  // two pages alone must be (the boilerplate they share counted) are one
  // item when both are titled and their titles do not name two items: an
  // article and its revision, a headline, a sentence and a correction
  // apart. Keeps 16 terms of each page's first <title> (32 bytes a page;
  // none without main text). Specs written before this field (a whole spec
  // without `titles`: Parse) compare no titles.
  bool compare_titles = true;
  // With compare_titles, a title term of four digits or more
  // (an id, a year) is marked a number, and two titles whose own parts
  // (past what they share at their ends) each name a number, none of one's
  // the other's, name two items: records of a database ("home record
  // 173815", "people record 173816"), bugs, threads, a year's reports.
  // A revision keeps its item's number. Specs written before this field
  // (a whole spec without `title-numbers`: Parse) mark none.
  bool title_numbers = true;
  // With compare_titles, the function words of English and the languages
  // of the web next to it (articles, prepositions, pronouns, auxiliaries:
  // "the", "of", "how", "do", "der", "la") are no word in common: two
  // headlines that share only such words, "I often use the metaphor of a
  // monster" and "How do you get it: the most common way", name two items.
  // Specs written before this field (a whole spec without
  // `title-function-words`: Parse) count every word.
  bool title_function_words = true;
  // With compare_titles, titles decide where the values cannot. Two
  // pages of one known template (boilerplate both hold) whose titles name
  // two items (TitlesNameTwoItems) are two items when their values leave
  // too little to tell (their main texts not judged, and fewer than a
  // quarter of the whole pages' positions outside the boilerplate: a home
  // page and the copy, on another host with a sentence edited, of an
  // article under it agree at 2 of 7 where the edit let a template value
  // the site never saw win), or tell too close to call (every rule that
  // would pass them passes within one standard error of its bar: a block
  // of the template the site did not learn tips the count). And two pages
  // whose titles name two items by their numbers (title_numbers: two
  // records of a database) are not one item edited, however few shingles
  // apart. Specs written before this field (a whole spec without
  // `titles-decide`: Parse) let the values alone decide.
  bool titles_decide = true;
  uint64_t seed = 1234;           // draws the min-hash functions
  // The min-hash values' functions: 32, functions of the shingles' low 32
  // mixed bits, each value the pre-image of the least 32-bit image
  // (BroderSketcher::MinValues32: one 32-bit multiply a function and
  // shingle); 64, the low 32 bits of each function's 64-bit pre-image
  // (BroderSketcher::MinHashes), as specs written before this
  // field (a whole spec without `hash`: Parse) describe. Both agree with
  // probability the resemblance; they give different values, so pages
  // signed with one are never compared with pages signed with the other.
  uint32_t minhash_bits = 32;
  // Min-hash values a page carries: the whole page's, then its main text's.
  uint32_t positions() const { return num_minhashes + main_minhashes; }
  // Whether a page carries its main text's number of distinct shingles.
  bool keeps_main_shingles() const { return main_minhashes > 0 && min_main_containment > 0; }
  // e.g. "robust:k=5,m=84,r=3,template=2,template-fraction=0.05,content=0.2,edit=30,main-m=42,main-r=2,...,numbers,own-url,text-urls,image-names,titles,title-numbers,hash=32,seed=1234"
  std::string Spec() const;
  // Parses a spec as Spec() writes it ("robust" or "robust:KEY=VALUE,...";
  // keys left out keep their defaults). A whole spec (one naming k, m, r,
  // template, content and seed, as every version of Spec() wrote it into
  // stores and summaries) keeps the meaning it had when written: keys added
  // since (main-m, contain, hash, main-r, titles) read as they did before them.
  static Result<RobustMethodOptions> Parse(std::string_view spec);
};

// Shingle paragraphs as Pereira, Baeza-Yates and Ziviani compare documents
// ("Where and How Duplicates Occur in the Web", §2-3): runs of 3 sentences
// (a sentence ends at a period or at its 150th character), compared by the
// m-pass algorithm within DedupOptions::memory_bytes.
struct ParagraphMethodOptions {
  uint32_t sentences_per_paragraph = 3;  // Definition 1
  // Documents with this many characters of text or fewer are left out of
  // the comparison (and counted): §4 keeps only documents over 450
  // characters, so that a whole shingle paragraph represents each.
  uint32_t min_text_chars = 450;
  // Near duplicates share at least this percentage of shingle paragraphs,
  // counted over both documents (Definition 5; the paper reports 90, 70 and
  // 50). 100: only Definition 2's exact clusters (equal paragraph multisets).
  uint32_t min_shared_percent = 90;
  // e.g. "paragraphs:sentences=3,min-chars=450,min-shared=90"
  std::string Spec() const;
};

// Chunk overlap as Shivakumar and Garcia-Molina compute it ("Finding
// near-replicas of documents on the web", §2): every document cut into
// chunks hashed to 32-bit fingerprints (FPrint-DocID records); exact copies
// removed first (the central document of a set is the one with the smallest
// id); pairs sharing at least `threshold` distinct fingerprints are near
// replicas.
struct ChunkMethodOptions {
  std::string chunking = "lines:4";  // whole, lines:N, words:N or sentences
  uint32_t threshold = 15;           // T (the paper: 15 for four lines, 25 for two)
  std::string algorithm = "coarse";  // "sort" (§2.1) or "coarse" (probabilistic coarse counting, §2.2)
  uint32_t coarse_hash_functions = 2;  // coarse: independent counter arrays
  uint64_t seed = 1234;              // coarse: draws the hash functions
  // e.g. "chunks:lines:4,T=15,coarse,h=2"
  std::string Spec() const;
};

struct DedupOptions {
  // ---- behaviour ----
  // The method: a name, or a spec string as Method::Spec() prints it
  // (include/neardup/method.h; a spec's keys override the option structs
  // below). Valid names: "exact" (identity sets of equal token sequences and
  // equal bytes); after exact, on one page per identity set: "broder"
  // (Broder shingling), "simhash" (Charikar's simhash), "combined"
  // (Henzinger's combined algorithm with her proposed refinement: pairs on
  // one site must be B-similar with C-similarity >= combined_threshold,
  // pairs on different sites C-similar), "robust" (RobustMethodOptions:
  // volatile terms normalized, site boilerplate left out of the comparison),
  // "paragraphs" (ParagraphMethodOptions: Pereira et al.'s shared shingle
  // paragraphs, on every document over 450 characters), "chunks"
  // (ChunkMethodOptions: Shivakumar and Garcia-Molina's chunk overlap, on one
  // page per identity set). paragraphs and chunks clusters are the connected
  // components of their pairs, as in their papers (no verification against
  // the kept page).
  // The default is the method with the best F1 at precision >= 0.99 on the
  // `neardup synth` benchmark (README "Choosing a method").
  std::string method = "robust";
  BroderMethodOptions broder;
  SimhashMethodOptions simhash;
  RobustMethodOptions robust;
  ParagraphMethodOptions paragraphs;
  ChunkMethodOptions chunks;
  // Memory budget of the paragraphs and chunks methods (the whole process,
  // as its resident size): their tables get what the rest of the run does
  // not use, and they run in more passes (paragraphs) or spill sorted runs
  // to the output folder (chunks) to stay inside it.
  uint64_t memory_bytes = uint64_t{2} << 30;
  // Write DIR/pairs.tsv (url_a, url_b, supershingles shared) for the
  // near-duplicate pairs found.
  bool write_pairs = false;
  // Rules that choose each cluster's kept page, in order (Zhu et al. §5):
  // any of status (success over redirect over error), static-url (no query
  // string or session id), in-links (more distinct pages of the crawl link
  // to it; costs link extraction and 8 bytes of temporary disk per link),
  // shorter-url, earlier-fetch, url-hash (a fixed
  // pseudo-random order of URLs, so the choice does not depend on input
  // order), input-order; ties always end in input order. The deciding rule
  // is the `reason` column.
  // in-links is not in the default: reading every page's links costs about a
  // third of the default method's speed; add it where the choice matters.
  std::string keeper = "status,static-url,shorter-url,earlier-fetch,url-hash,input-order";
  // Check every near-duplicate member against its cluster's kept page with
  // the method's rule and split off the members that fail (Zhu et al. §5.2).
  bool verify = true;
  // Options of the readers (record size limit, non-2xx responses, folders).
  SourceOptions source;

  // Folder for temporary files (the batch-only methods' spills and sorted
  // runs); empty: the current folder. RunDedup uses its output folder.
  std::string temp_dir;

  // ---- performance ----
  // How much memory the process holds now and at its peak, in bytes, as the
  // caller measures it (the CLI reads the resident set size); the library
  // itself reads no process state. Unset: both 0, and the batch-only
  // methods' tables get the whole memory_bytes.
  std::function<void(uint64_t* resident_bytes, uint64_t* peak_resident_bytes)> memory_probe;
  // Documents handed to a worker at a time.
  uint32_t batch_documents = 32;
  // Batches in flight at once per thread, the calling thread counted (bounds
  // memory: about batch_documents * (in_flight_per_thread * threads + 1)
  // pages are held, and one batch more for each worker while a worker signs
  // a long page of the oldest batch and the calling thread reads on).
  uint32_t in_flight_per_thread = 2;

  // Returns InvalidArgument naming the field and its valid range/choices.
  Status Validate() const;
};

// Progress reported during the read/tokenize pass (and once at the end).
struct DedupProgress {
  uint64_t documents = 0;
  uint64_t input_bytes_consumed = 0;  // of the input files (compressed)
  uint64_t input_bytes_total = 0;     // 0 when unknown (standard input)
  uint64_t payload_bytes = 0;         // uncompressed page bytes so far
  double seconds = 0;
};

// Called from the thread that calls RunDedup, at most every
// `progress_interval_seconds`. Returning false cancels the run: RunDedup
// then returns Status::Cancelled("cancelled").
using DedupProgressCallback = std::function<bool(const DedupProgress&)>;

// Where a run of RunDedup stands: kReading before the first page is read,
// kClustering when reading has ended (whether or not it failed) and the
// job turns to what it read. A caller tunes what suits each phase there;
// the CLI keeps freed memory a while for the next page while reading and
// returns it at once from clustering on, so that the run's peak is what
// its stages hold.
enum class DedupPhase { kReading, kClustering };

// Called from the thread that calls RunDedup, once as each phase begins.
using DedupPhaseCallback = std::function<void(DedupPhase)>;

struct StageStats {
  // "read", "tokenize", "exact", "near" (a near-duplicate method),
  // "keepers" (the clusters' kept pages chosen), "verify" (members checked
  // against them, where the method verifies), "clusters" (the result's
  // columns), "write"; in that order.
  std::string name;
  double seconds = 0;    // wall seconds (tokenize: summed over workers)
  uint64_t bytes = 0;    // bytes the stage consumed
};

// One pass of the paragraphs method's m-pass algorithm (Pereira et al.
// §4.2, Figure 5), with the figures after it.
struct ParagraphPass {
  uint32_t pass = 0;                  // 1-based
  uint32_t first_document = 0;        // S_i: documents [first, end) of the input
  uint32_t end_document = 0;
  uint64_t documents_loaded = 0;      // eligible documents in S_0..S_i
  uint64_t paragraphs_loaded = 0;     // paragraphs in S_i's table
  uint64_t clusters = 0;              // clusters of eligible documents found so far
  uint64_t duplicates = 0;            // their documents minus one per cluster
  double estimated_final_duplicates = 0;  // EstimateFinalDuplicates after this pass
  double seconds = 0;
};

// Pages by number of replicas (themselves included), Shivakumar and
// Garcia-Molina's Figure 1: buckets 1, 2, 3-10, 11-100, 101-1000, 1001+.
struct ReplicaHistogram {
  std::string chunking;               // "whole" (exact copies) or the chunking used
  std::vector<std::pair<std::string, uint64_t>> pages;  // bucket label -> pages
};

// The chunks method's overlap computation (the paper's Table 1 figures).
struct ChunkOverlapStats {
  std::string algorithm;
  uint64_t records = 0;               // FPrint-DocID records of central documents
  uint64_t fingerprint_bytes = 0;     // their file
  uint64_t copies_removed = 0;        // documents that were exact copies of a central one
  uint64_t pairs_generated = 0;       // document pairs sharing a fingerprint, with repeats
  uint64_t candidate_pairs = 0;       // coarse: pairs passing every bitmap
  uint64_t false_candidates = 0;      // coarse: candidates below T
  uint64_t result_pairs = 0;          // F >= T
  uint64_t spill_runs = 0;
  uint64_t spill_bytes = 0;
  uint32_t passes = 0;
  uint64_t buffer_budget_bytes = 0;   // what the algorithm was given
  uint64_t peak_buffer_bytes = 0;
  double sort_seconds = 0;
  double overlap_seconds = 0;
};

struct DedupSummary {
  std::vector<std::string> inputs;
  ReadStats read;                     // documents, skipped records by reason
  uint64_t warnings = 0;              // warnings reported to the observer
  uint64_t documents = 0;             // documents read (rows of clusters.tsv)
  uint64_t empty_documents = 0;       // pages with no terms (see README)
  // Pages without content of their own (HTTP redirects, empty bodies: see
  // README), matched by no method; counted in empty_documents too.
  uint64_t documents_without_content = 0;
  // HTTP redirects (3xx with a Location); those whose chain of redirects
  // ends at a page of the run, and so are in that page's cluster (Zhu et
  // al. §2: redirection-based duplicates); chains that loop or run past 32
  // hops.
  uint64_t redirects = 0;
  uint64_t redirects_joined = 0;
  uint64_t redirect_cycles = 0;
  // Revisits (Document::revisit_of: WARC revisit records whose content is
  // an earlier capture's); those whose capture is in the run, and so are in
  // its cluster.
  uint64_t revisits = 0;
  uint64_t revisits_joined = 0;
  uint64_t terms = 0;                 // terms over all documents
  // Identity sets with two or more members.
  uint64_t token_identity_sets = 0;   // same token sequence
  uint64_t byte_identity_sets = 0;    // same bytes
  // Clusters (two or more members) after joining both kinds of identity.
  uint64_t clusters = 0;
  uint64_t documents_in_clusters = 0;
  uint64_t duplicates = 0;            // documents_in_clusters - clusters
  double duplicate_percentage = 0;    // 100 * duplicates / documents
  uint64_t largest_cluster = 0;
  // Members that failed their cluster's kept page and its center: they
  // left that cluster (Zhu et al. §5.2).
  uint64_t verification_split_off = 0;
  // Of those, members that passed the page kept by their cluster's failed
  // members, verified again as a cluster of their own (group repair), or
  // its center.
  uint64_t verification_repaired = 0;
  // Clusters where members that failed against the kept page stayed
  // because they passed a verified member at the cluster's center.
  uint64_t verification_recentered = 0;
  // Near-duplicate method results (method != "exact").
  std::string method_spec;            // e.g. BroderMethodOptions::Spec()
  std::string kernel;                 // SIMD kernel used for min-hash
  uint64_t near_candidates = 0;       // pages that entered the tables
  uint64_t near_pairs = 0;            // pairs listed
  uint64_t near_pairs_not_listed = 0; // pairs inside buckets too large to list (upper bound)
  std::vector<uint64_t> pairs_by_b_similarity;  // index = B-similarity (Henzinger Table 1)
  uint64_t pages_with_near_duplicate = 0;       // candidates with at least one pair
  uint64_t megashingle_collisions = 0;
  bool simhash_complete = true;       // the simhash index provably found every pair
  uint64_t near_duplicate_members = 0;          // pages clustered by the near method only
  // robust: pages joined because they equal another page after volatile
  // terms are normalized; boilerplate (position, value) pairs learned;
  // distinct candidate pairs; those of them not checked because both pages
  // already had near duplicates in one cluster (near_pairs counts only the
  // pairs checked that passed; with pairs listed, every pair is checked).
  uint64_t normalized_identity_members = 0;
  uint64_t template_values = 0;
  uint64_t near_candidate_pairs = 0;
  uint64_t near_candidate_pairs_already_joined = 0;
  // robust: wall seconds of the near stage's steps ("templates", "tables",
  // "pairs"), within the stage "near"; processes clustering together
  // report theirs ("sites", "templates", "masks", "tables", "pairs").
  std::vector<StageStats> near_steps;
  // paragraphs: documents left out as too short, the m-pass passes, the
  // estimate of the final duplicates from the first 20% and 50% of the
  // passes and its relative error against the final count.
  uint64_t short_documents = 0;
  uint64_t paragraph_table_budget_bytes = 0;
  std::vector<ParagraphPass> paragraph_passes;
  double estimate_at_20_percent = 0, estimate_at_50_percent = 0;
  double estimate_error_at_20_percent = 0, estimate_error_at_50_percent = 0;
  // chunks: the overlap computation and the replica histograms.
  ChunkOverlapStats chunk_overlap;
  std::vector<ReplicaHistogram> replica_histograms;
  std::vector<StageStats> stages;
  double seconds = 0;
  uint64_t peak_rss_bytes = 0;
  int threads = 1;
  std::string clusters_path;
  std::string summary_path;
  std::string warnings_path;  // every ReadWarning: file, offset, reason, message
  std::string pairs_path;     // empty unless write_pairs
};

// Runs the whole dedup job over `inputs` and writes `out_dir`/clusters.tsv,
// `out_dir`/summary.json and `out_dir`/warnings.tsv (folder created if
// missing). Warnings go both to `observer` and to warnings.tsv. Work runs on `executor`
// (nullptr: everything on the calling thread). `env` nullptr: Env::Default().
// Returns the summary even when no document could be read (documents == 0;
// the caller decides how to report that). Errors: InvalidArgument for bad
// options, IOError when the output cannot be written, Cancelled
// when the progress callback returned false. `on_phase` (may be empty) is
// told as each phase begins.
Result<DedupSummary> RunDedup(const std::vector<std::string>& inputs, const std::string& out_dir,
                              const DedupOptions& options = DedupOptions(), Executor* executor = nullptr,
                              Env* env = nullptr, ReadObserver* observer = nullptr,
                              const DedupProgressCallback& progress = {},
                              double progress_interval_seconds = 0.5,
                              const DedupPhaseCallback& on_phase = {});

}  // namespace neardup

#endif  // NEARDUP_ENGINE_H_
