// Copyright neardup authors. Licensed under Apache-2.0.
//
// Quality of a predicted clustering against a labelled truth, as a dedup run
// is judged: every item (page) has a predicted cluster label, a true group
// label and a site (text/site.h). Three families of measures:
//
//  - Pairwise precision/recall/F1 over unordered pairs of items, the measure
//    Henzinger reports ("Finding Near-Duplicate Web Pages", SIGIR 2006, §3),
//    also split into pairs on the same site and pairs on different sites.
//    A pair is *predicted* when both items share a cluster label and *true*
//    when they share a group label.
//  - The adjusted Rand index of Hubert and Arabie ("Comparing partitions",
//    J. Classification 2, 1985): the Rand index corrected for chance.
//  - B-cubed precision/recall of Bagga and Baldwin ("Entity-based
//    cross-document coreferencing using the vector space model", 1998):
//    per item i, precision_i = |C(i) ∩ G(i)| / |C(i)| and
//    recall_i = |C(i) ∩ G(i)| / |G(i)| (C(i), G(i): i's cluster and group,
//    each including i), averaged over items with equal weights; F1 is the
//    harmonic mean of the two averages (Amigó et al. 2009).
//
// Nothing enumerates pairs: every count comes from contingency-table cell
// sizes n, as sums of C(n,2) = n(n-1)/2, in 64-bit integers (exact for any
// input below the 2^32-item limit that Evaluate checks); ratios are taken in
// long double. Time O(n) expected (hash tables), memory O(n).
//
// Conventions for empty denominators ("nothing to get wrong"):
//  - precision is 1 when no pair is predicted (e.g. an all-singletons
//    prediction), recall is 1 when no pair is true; F1 is 0 when precision +
//    recall is 0, else their harmonic mean. So an all-singletons prediction
//    against a truth with pairs scores precision 1, recall 0, F1 0, and
//    against an all-singletons truth scores 1, 1, 1.
//  - the adjusted Rand index is 1 when its denominator is 0, which happens
//    exactly when the two partitions are identical and trivial (n < 2, both
//    all singletons, or both one cluster).
//  - B-cubed precision, recall and F1 are 1 for empty input.
//
// Thread-safe (no shared state).
#ifndef NEARDUP_EVALUATION_EVALUATION_H_
#define NEARDUP_EVALUATION_EVALUATION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "neardup/env.h"
#include "neardup/evaluation.h"
#include "neardup/status.h"

namespace neardup {

// Pair counts of one slice (all pairs, same-site pairs or different-site
// pairs). true_positive: predicted and true; false_positive: predicted, not
// true; false_negative: true, not predicted.


// Evaluates item i with predicted cluster label predicted[i], true group label
// truth[i] and site site[i]. Labels are arbitrary strings compared byte for
// byte (equal string = same cluster/group/site); a label's value means
// nothing else, so a singleton needs a label of its own.
// `kind` (may be null, or empty: no kinds) gives item i's kind for
// EvaluationResult::kinds.
// REQUIRES: the vectors have the same size, below 2^32 (aborts otherwise).
EvaluationResult Evaluate(const std::vector<std::string>& predicted,
                          const std::vector<std::string>& truth,
                          const std::vector<std::string>& site,
                          const std::vector<std::string>* kind = nullptr);

// Evaluates a dedup output folder against a truth file, both read through
// `env` (REQUIRES: env != nullptr; use Env::Default() for the file system).
//
// Truth file: one `url<TAB>group` per line (further columns ignored); a first
// line exactly `url<TAB>group` is a header and skipped; blank lines and lines
// starting with '#' are skipped; a trailing CR is dropped. A url listed twice
// with the same group is fine; with two different groups it is an error
// (InvalidArgument).
//
// `dedup_dir`/clusters.tsv, as `neardup dedup` writes it, read with
// ClustersReader (output/clusters_file.h): a header line naming the columns
// (it must have `url` and `cluster`, in any order), then one row per page.
// Rows are joined to the truth by url, compared byte for byte as written
// (both files are TSV with the same escaping of tab/CR/LF, which URLs never
// contain raw). A url repeated in clusters.tsv: its first row wins. Urls of
// clusters.tsv absent from the truth are ignored; their number (distinct
// urls) goes to *urls_not_in_truth when that is not null. Truth urls absent
// from clusters.tsv are counted in missing_from_prediction. Items are
// evaluated in clusters.tsv order with sites from SiteOfUrl.
//
// Errors: NotFound/IOError when a file cannot be read; Corruption for a
// truth line with too few columns, a clusters.tsv without its header, or a
// malformed clusters.tsv row (ClustersReader::Next), naming file and line.
// (Declared in neardup/evaluation.h.)

}  // namespace neardup

#endif  // NEARDUP_EVALUATION_EVALUATION_H_
