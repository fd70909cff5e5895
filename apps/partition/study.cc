// Copyright neardup authors. Licensed under Apache-2.0.
//
// The study behind `neardup partition-plan`: Figures 4 and 5 of Zhu,
// Potapova, Alabduljalil, Liu and Yang, "Clustering and Load Balancing
// Optimization for Redundant Content Removal" (§6.1), and the recall lost
// for the interval enlarging factor ρ (§4.2), on a real crawl.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <utility>

#include "base/hash.h"
#include "partition/partition.h"
#include "text/tokenizer.h"

namespace neardup {

namespace {

struct SampledPage {
  uint64_t key = 0;
  uint32_t index = 0;
  std::vector<uint64_t> shingles;
};

// Keeps the `limit` pages with the smallest key (bottom-k), pruning in
// batches so that memory stays within twice the limit.
void PruneSample(std::vector<SampledPage>* sample, uint64_t limit) {
  if (sample->size() <= limit) return;
  std::nth_element(sample->begin(), sample->begin() + static_cast<std::ptrdiff_t>(limit), sample->end(),
                   [](const SampledPage& a, const SampledPage& b) { return a.key < b.key; });
  sample->resize(limit);
}

}  // namespace

Status PartitionStudyOptions::Validate() const {
  if (inputs.empty()) return Status::InvalidArgument("no input given");
  NEARDUP_RETURN_IF_ERROR(source.Validate());
  if (dims.empty()) return Status::InvalidArgument("--dims: give at least one dimension count");
  if (machines.empty()) return Status::InvalidArgument("--machines: give at least one machine count");
  for (uint32_t d : dims) {
    if (d < 1 || d > 8) return Status::InvalidArgument("--dims: each N must be in 1..8");
  }
  for (uint32_t m : machines) {
    if (m < 1 || m > 65536) return Status::InvalidArgument("--machines: each count must be in 1..65536");
  }
  if (!(tau > 0 && tau < 1)) return Status::InvalidArgument("--tau: τ must be in (0, 1)");
  if (!(rho >= 1)) return Status::InvalidArgument("--rho: ρ must be at least 1");
  for (double r : recall_rhos) {
    if (!(r >= 1)) return Status::InvalidArgument("recall ρ values must be at least 1");
  }
  if (shingle_k < 1 || shingle_k > 64) return Status::InvalidArgument("--shingle: k must be in 1..64");
  for (uint32_t m : machines) {
    PartitionOptions p;
    p.tau = tau;
    p.machines = m;
    p.partitions_per_machine = partitions_per_machine;
    NEARDUP_RETURN_IF_ERROR(p.Validate());
  }
  return Status::OK();
}

Result<PartitionStudy> RunPartitionStudy(const PartitionStudyOptions& options, Env* env,
                                         ReadObserver* observer) {
  NEARDUP_RETURN_IF_ERROR(options.Validate());
  const auto start = std::chrono::steady_clock::now();
  PartitionStudy study;
  study.options = options;

  // ---- every page's length vector for each N; the sample's shingles ----
  FirstWarnings warnings(observer);
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<DocumentSource> source,
                           OpenDocumentSource(options.inputs, options.source, env, &warnings));
  TokenizeOptions tokenize_options;
  tokenize_options.collect_links = false;
  tokenize_options.keep_term_text = false;
  Tokenizer tokenizer(tokenize_options);
  TokenizedDocument tokens;
  Document doc;
  std::vector<std::vector<std::vector<uint32_t>>> vectors(options.dims.size());
  std::vector<SampledPage> sample;
  uint32_t index = 0;
  uint64_t kept_below = UINT64_MAX;
  while (source->Next(&doc)) {
    tokenizer.Tokenize(doc, &tokens);
    if (tokens.term_hashes.empty()) ++study.empty_documents;
    for (size_t d = 0; d < options.dims.size(); ++d) {
      vectors[d].push_back(LengthVector(tokens.term_hashes, options.dims[d]));
    }
    if (options.sample > 0) {
      SampledPage page;
      page.key = SplitMix64(options.sample_seed + index);
      page.index = index;
      // Pages above the largest key kept at the last pruning can never be
      // among the smallest `sample` keys: their shingles are not computed.
      if (page.key < kept_below) {
        page.shingles = ShingleSet(tokens.term_hashes, options.shingle_k);
        sample.push_back(std::move(page));
        if (sample.size() >= 2 * options.sample) {
          PruneSample(&sample, options.sample);
          kept_below = 0;
          for (const SampledPage& p : sample) kept_below = std::max(kept_below, p.key);
        }
      }
    }
    ++index;
  }
  study.read = source->stats();
  study.documents = index;
  if (study.documents == 0) {
    return Status::NotFound(NothingReadLine(options.inputs, warnings, study.read, options.source));
  }
  PruneSample(&sample, options.sample);
  std::sort(sample.begin(), sample.end(),
            [](const SampledPage& a, const SampledPage& b) { return a.index < b.index; });
  study.sampled = sample.size();

  // ---- the exact reference: every pair with Sim ≥ τ in the sample ----
  std::vector<std::vector<uint64_t>> sets;
  sets.reserve(sample.size());
  for (SampledPage& p : sample) sets.push_back(std::move(p.shingles));
  const std::vector<std::pair<uint32_t, uint32_t>> reference = ExactSimilarPairs(sets, options.tau);
  sets.clear();
  study.reference_pairs = reference.size();

  // ---- the grid ----
  for (size_t d = 0; d < options.dims.size(); ++d) {
    std::vector<std::vector<uint32_t>> sampled_vectors;
    sampled_vectors.reserve(sample.size());
    for (const SampledPage& p : sample) sampled_vectors.push_back(vectors[d][p.index]);
    for (uint32_t m : options.machines) {
      PartitionOptions plan_options;
      plan_options.tau = options.tau;
      plan_options.dims = options.dims[d];
      plan_options.machines = m;
      plan_options.partitions_per_machine = options.partitions_per_machine;
      const PartitionPlan plan = BuildPartitionPlan(vectors[d], plan_options);
      PartitionCell cell;
      cell.dims = options.dims[d];
      cell.machines = m;
      cell.partitions = plan.partitions();
      cell.load = EvaluatePlanLoad(plan, vectors[d], options.rho);
      for (double rho : options.recall_rhos) {
        RecallLost r;
        r.rho = rho;
        r.lost_pairs = CountLostPairs(plan, sampled_vectors, reference, rho);
        r.lost = reference.empty() ? 0.0 : static_cast<double>(r.lost_pairs) / reference.size();
        cell.recall.push_back(r);
      }
      study.cells.push_back(std::move(cell));
    }
  }
  study.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return study;
}

std::string PartitionStudyJson(const PartitionStudy& study) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const PartitionCell& c : study.cells) {
    nlohmann::ordered_json recall = nlohmann::ordered_json::array();
    for (const RecallLost& r : c.recall) {
      recall.push_back({{"rho", r.rho},
                        {"lost_pairs", r.lost_pairs},
                        {"lost", r.lost},
                        {"reference_pairs", study.reference_pairs},
                        {"sampled", study.sampled}});
    }
    out.push_back({{"dims", c.dims},
                   {"machines", c.machines},
                   {"imbalance", c.load.imbalance},
                   {"transfers_saved", c.load.transfers_saved},
                   {"partitions", c.partitions},
                   {"pages", c.load.pages},
                   {"pages_hosted_max", c.load.pages_hosted_max},
                   {"pages_hosted_mean", c.load.pages_hosted_mean},
                   {"comparison_imbalance", c.load.comparison_imbalance},
                   {"transfers", c.load.transfers},
                   {"transfers_all", c.load.transfers_all},
                   {"rho", study.options.rho},
                   {"tau", study.options.tau},
                   {"recall_lost", std::move(recall)}});
  }
  return out.dump(2) + "\n";
}

Status WritePartitionStudyJson(const PartitionStudy& study, const std::string& path, Env* env) {
  if (env == nullptr) env = Env::Default();
  const std::string text = PartitionStudyJson(study);
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, env->NewWritableFile(path));
  NEARDUP_RETURN_IF_ERROR(file->Append(text.data(), text.size()));
  return file->Close();
}

}  // namespace neardup
