// Copyright neardup authors. Licensed under Apache-2.0.
#include "engine/paragraph_stage.h"

#include <cstdio>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <unordered_map>

namespace neardup {
namespace {

using Clock = std::chrono::steady_clock;

// One table entry: a paragraph of a document of S_i with its repeats.
struct Entry {
  uint64_t hash;
  uint32_t doc;
  uint32_t repeats;
};
static_assert(sizeof(Entry) == 16);
constexpr uint64_t kBytesPerParagraph = sizeof(Entry) + 4;  // entry and its share of the index
constexpr uint64_t kBytesPerDocument = 8;  // |S| per document of S_i, and slack

// Reads the spill records in order.
class RecordReader {
 public:
  explicit RecordReader(std::unique_ptr<SequentialFile> file) : file_(std::move(file)) {}
  // Next record into doc and hashes; false at the end.
  Result<bool> Next(uint32_t* doc, std::vector<uint64_t>* hashes) {
    uint32_t head[2];
    NEARDUP_ASSIGN_OR_RETURN(bool got, Read(head, sizeof head, true));
    if (!got) return false;
    *doc = head[0];
    hashes->resize(head[1]);
    NEARDUP_ASSIGN_OR_RETURN(got, Read(hashes->data(), head[1] * sizeof(uint64_t), false));
    return true;
  }

 private:
  // Reads exactly n bytes; at a clean end (nothing read, allowed) false.
  Result<bool> Read(void* dst, size_t n, bool end_allowed) {
    char* out = static_cast<char*>(dst);
    size_t done = 0;
    while (done < n) {
      if (pos_ == len_) {
        size_t got = 0;
        NEARDUP_RETURN_IF_ERROR(file_->Read(buf_.size(), buf_.data(), &got));
        pos_ = 0;
        len_ = got;
        if (got == 0) {
          if (done == 0 && end_allowed) return false;
          return Status::Corruption("paragraph spill file ends inside a record");
        }
      }
      const size_t take = std::min(n - done, len_ - pos_);
      std::memcpy(out + done, buf_.data() + pos_, take);
      pos_ += take;
      done += take;
    }
    return true;
  }
  std::unique_ptr<SequentialFile> file_;
  std::vector<char> buf_ = std::vector<char>(1 << 20);
  size_t pos_ = 0, len_ = 0;
};

// Sizes of the clusters of eligible documents in `uf` (2 or more members).
std::vector<uint32_t> ClusterSizes(UnionFind* uf, const std::vector<uint32_t>& eligible_docs) {
  std::unordered_map<uint32_t, uint32_t> size;
  for (uint32_t d : eligible_docs) ++size[uf->Find(d)];
  std::vector<uint32_t> out;
  for (const auto& [root, s] : size) {
    if (s >= 2) out.push_back(s);
  }
  return out;
}

}  // namespace

void AppendParagraphRecord(uint32_t doc, const std::vector<uint64_t>& sorted_hashes, std::string* out) {
  const uint32_t head[2] = {doc, static_cast<uint32_t>(sorted_hashes.size())};
  out->append(reinterpret_cast<const char*>(head), sizeof head);
  out->append(reinterpret_cast<const char*>(sorted_hashes.data()), sorted_hashes.size() * sizeof(uint64_t));
}

PairDecision ParagraphDecide(uint64_t from_a, uint64_t from_b, uint64_t common, uint32_t size_a, uint32_t size_b,
                             uint32_t min_shared_percent) {
  PairDecision d;
  const uint64_t both = uint64_t{size_a} + size_b;
  d.duplicate = both > 0 && ParagraphsSimilar(from_a, from_b, common, size_a, size_b, min_shared_percent);
  d.similarity = both ? static_cast<double>(from_a + from_b) / static_cast<double>(both) : 0.0;
  char buf[160];
  if (min_shared_percent >= 100) {
    std::snprintf(buf, sizeof buf, "the paragraph multisets are %s (%llu of %u and %u paragraphs in common)",
                  d.duplicate ? "equal" : "not equal", static_cast<unsigned long long>(common), size_a, size_b);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f%% of the shingle paragraphs are shared (%s %u%%)", 100 * d.similarity,
                  d.duplicate ? "at least" : "below", min_shared_percent);
  }
  d.reason = buf;
  return d;
}

double EstimateFinalDuplicates(const std::vector<uint32_t>& cluster_sizes, double loaded) {
  if (loaded >= 1) {
    double d = 0;
    for (uint32_t s : cluster_sizes) d += s - 1;
    return d;
  }
  double estimate = 0;
  for (uint32_t s : cluster_sizes) {
    const double found = 1 - std::pow(1 - loaded, static_cast<double>(s));
    if (found > 0) estimate += (s - 1) / found;
  }
  return estimate;
}

Result<ParagraphStageResult> RunParagraphStage(Env* env, const std::string& spill_path,
                                               const std::vector<uint32_t>& paragraph_count,
                                               const std::vector<uint64_t>& multiset_key,
                                               const ParagraphStageOptions& options, UnionFind* uf) {
  ParagraphStageResult result;
  const uint32_t n = static_cast<uint32_t>(paragraph_count.size());
  result.best_share.assign(n, 0.0f);

  // Group documents with equal paragraph multisets; the first of each group
  // is its representative, the others follow it in `next_in_group`.
  std::vector<uint32_t> eligible_docs;
  std::vector<uint32_t> next_in_group(n, UINT32_MAX);
  std::vector<uint8_t> representative(n, 0);
  {
    std::unordered_map<uint64_t, std::pair<uint32_t, uint32_t>> first_last;  // key -> (first, last)
    for (uint32_t d = 0; d < n; ++d) {
      if (paragraph_count[d] == 0) continue;
      eligible_docs.push_back(d);
      auto [it, inserted] = first_last.try_emplace(multiset_key[d], d, d);
      if (inserted) {
        representative[d] = 1;
      } else {
        if (it->second.first == it->second.second) ++result.multiset_groups;
        next_in_group[it->second.second] = d;
        it->second.second = d;
      }
    }
  }
  result.eligible_documents = eligible_docs.size();
  if (eligible_docs.empty()) return result;

  // Subcollections: consecutive representatives, as many as the table fits.
  std::vector<std::pair<uint32_t, uint32_t>> bounds;  // [first, end) documents
  {
    uint64_t used = 0;
    uint32_t first = eligible_docs.front();
    for (uint32_t d : eligible_docs) {
      if (!representative[d]) continue;
      const uint64_t need = paragraph_count[d] * kBytesPerParagraph + kBytesPerDocument;
      if (used > 0 && used + need > options.table_budget_bytes) {
        bounds.emplace_back(first, d);
        first = d;
        used = 0;
      }
      used += need;
    }
    bounds.emplace_back(first, n);
  }

  // A private union-find of what the algorithm itself found, for the
  // per-pass figures (the caller's `uf` also holds identity sets).
  UnionFind found(n);
  std::vector<Entry> table;
  std::vector<uint32_t> index;             // bucket b: entries [index[b], index[b+1])
  std::vector<uint32_t> count_in_s;        // |S| of documents of S_i
  std::vector<uint64_t> hashes;
  struct Hit {
    uint32_t s, s_repeats, d_repeats;
  };
  std::vector<Hit> hits;
  uint64_t eligible_loaded = 0;
  size_t eligible_pos = 0;

  for (uint32_t pass = 0; pass < bounds.size(); ++pass) {
    const auto t0 = Clock::now();
    const auto [lo, hi] = bounds[pass];
    // ---- load S_i ----
    table.clear();
    {
      uint64_t expected = 0;  // entries of S_i (at most): reserved so the table never doubles past the budget
      for (uint32_t d = lo; d < hi; ++d) expected += representative[d] ? paragraph_count[d] : 0;
      table.reserve(expected);
    }
    count_in_s.assign(hi - lo, 0);
    uint64_t paragraphs = 0;
    {
      auto in = env->NewSequentialFile(spill_path);
      if (!in.ok()) return Status::IOError("cannot read " + spill_path + ": " + in.status().message());
      RecordReader reader(std::move(in).value());
      uint32_t doc = 0;
      for (;;) {
        NEARDUP_ASSIGN_OR_RETURN(bool got, reader.Next(&doc, &hashes));
        if (!got || doc >= hi) break;
        if (doc < lo || !representative[doc]) continue;
        count_in_s[doc - lo] = static_cast<uint32_t>(hashes.size());
        for (size_t k = 0; k < hashes.size();) {
          size_t e = k + 1;
          while (e < hashes.size() && hashes[e] == hashes[k]) ++e;
          table.push_back(Entry{hashes[k], doc, static_cast<uint32_t>(e - k)});
          k = e;
        }
        paragraphs += hashes.size();
      }
    }
    std::sort(table.begin(), table.end(), [](const Entry& a, const Entry& b) {
      return a.hash != b.hash ? a.hash < b.hash : a.doc < b.doc;
    });
    int bits = 1;
    while ((uint64_t{1} << bits) < table.size() / 2 + 1 && bits < 30) ++bits;
    index.assign((size_t{1} << bits) + 1, 0);
    for (const Entry& e : table) ++index[(e.hash >> (64 - bits)) + 1];
    for (size_t b = 1; b < index.size(); ++b) index[b] += index[b - 1];
    result.table_peak_bytes = std::max<uint64_t>(
        result.table_peak_bytes, table.capacity() * sizeof(Entry) + index.capacity() * 4 + count_in_s.capacity() * 4);

    // The groups of S_i's representatives are found in this pass.
    for (uint32_t d = lo; d < hi; ++d) {
      if (!representative[d] || paragraph_count[d] == 0) continue;
      for (uint32_t m = next_in_group[d]; m != UINT32_MAX; m = next_in_group[m]) {
        found.Union(d, m);
        uf->Union(d, m);
        result.best_share[d] = result.best_share[m] = 1.0f;
      }
    }

    // ---- search C (documents from lo on) ----
    {
      auto in = env->NewSequentialFile(spill_path);
      if (!in.ok()) return Status::IOError("cannot read " + spill_path + ": " + in.status().message());
      RecordReader reader(std::move(in).value());
      uint32_t d = 0;
      for (;;) {
        NEARDUP_ASSIGN_OR_RETURN(bool got, reader.Next(&d, &hashes));
        if (!got) break;
        if (d < lo || !representative[d]) continue;
        hits.clear();
        for (size_t k = 0; k < hashes.size();) {
          size_t e = k + 1;
          while (e < hashes.size() && hashes[e] == hashes[k]) ++e;
          const uint64_t h = hashes[k];
          const size_t bucket = h >> (64 - bits);
          auto it = std::lower_bound(table.begin() + index[bucket], table.begin() + index[bucket + 1], h,
                                     [](const Entry& x, uint64_t v) { return x.hash < v; });
          for (; it != table.begin() + index[bucket + 1] && it->hash == h; ++it) {
            if (it->doc >= d) break;  // S_i documents meet only earlier ones
            hits.push_back(Hit{it->doc, it->repeats, static_cast<uint32_t>(e - k)});
          }
          k = e;
        }
        if (hits.empty()) continue;
        std::sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) { return a.s < b.s; });
        const uint32_t size_d = static_cast<uint32_t>(hashes.size());
        for (size_t k = 0; k < hits.size();) {
          const uint32_t s = hits[k].s;
          uint64_t from_d = 0, from_s = 0, common = 0;
          for (; k < hits.size() && hits[k].s == s; ++k) {
            from_d += hits[k].d_repeats;
            from_s += hits[k].s_repeats;
            common += std::min(hits[k].d_repeats, hits[k].s_repeats);
          }
          ++result.comparisons;
          const uint32_t size_s = count_in_s[s - lo];
          const uint64_t both = uint64_t{size_d} + size_s;
          if (!ParagraphsSimilar(from_d, from_s, common, size_d, size_s, options.min_shared_percent)) continue;
          ++result.pairs;
          found.Union(s, d);
          uf->Union(s, d);
          const float share = static_cast<float>(from_d + from_s) / static_cast<float>(both);
          result.best_share[s] = std::max(result.best_share[s], share);
          result.best_share[d] = std::max(result.best_share[d], share);
          if (options.collect_pairs) {
            NearPair p{s, d, 0, 0};
            p.content_agreeing = static_cast<uint32_t>(from_d + from_s);
            p.content_positions = static_cast<uint32_t>(both);
            result.pairs_found.push_back(p);
          }
        }
      }
    }

    // ---- figures after the pass ----
    while (eligible_pos < eligible_docs.size() && eligible_docs[eligible_pos] < hi) {
      ++eligible_pos;
      ++eligible_loaded;
    }
    const std::vector<uint32_t> sizes = ClusterSizes(&found, eligible_docs);
    ParagraphPass p;
    p.pass = pass + 1;
    p.first_document = lo;
    p.end_document = hi;
    p.documents_loaded = eligible_loaded;
    p.paragraphs_loaded = paragraphs;
    p.clusters = sizes.size();
    for (uint32_t s : sizes) p.duplicates += s - 1;
    p.estimated_final_duplicates =
        EstimateFinalDuplicates(sizes, static_cast<double>(eligible_loaded) / eligible_docs.size());
    p.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    result.passes.push_back(p);
  }
  std::sort(result.pairs_found.begin(), result.pairs_found.end(),
            [](const NearPair& x, const NearPair& y) { return x.a != y.a ? x.a < y.a : x.b < y.b; });
  return result;
}

}  // namespace neardup
