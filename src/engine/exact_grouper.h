// Copyright neardup authors. Licensed under Apache-2.0.
//
// ExactGrouper: identity sets of documents, as Shivakumar and Garcia-Molina
// ("Finding near-replicas of documents on the web") and Henzinger both
// remove exact copies before near-duplicate detection.
//
// Two kinds of identity are joined: documents with the same token sequence
// (the fingerprint of their term-hash sequence) and documents with the same
// bytes. Each resulting cluster keeps its earliest document (smallest index
// in input order); later issues replace that rule with a chosen keeper.
//
// Memory: 12 bytes per document for each of the two key lists while
// reading; after Finish() the cluster map (8 bytes); sorting is in place. Keys are
// 64-bit fingerprints, as the papers use: among n documents the chance of
// any false identity is about n^2 / 2^65 (3e-4 at 10^8 documents).
#ifndef NEARDUP_ENGINE_EXACT_GROUPER_H_
#define NEARDUP_ENGINE_EXACT_GROUPER_H_

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "cluster/union_find.h"
#include "neardup/executor.h"

namespace neardup {

// Appends cheaply with no reallocation spikes: fixed-size chunks, moved into
// one exact-size vector (freeing chunks as it copies) when reading is done.
template <typename T>
class ChunkedVector {
 public:
  static constexpr size_t kChunk = 1 << 16;
  ChunkedVector() = default;
  ChunkedVector(ChunkedVector&& o) noexcept : chunks_(std::move(o.chunks_)), size_(std::exchange(o.size_, 0)) {}
  ChunkedVector& operator=(ChunkedVector&& o) noexcept {
    chunks_ = std::move(o.chunks_);
    size_ = std::exchange(o.size_, 0);
    return *this;
  }
  void push_back(const T& v) {
    if (size_ % kChunk == 0) chunks_.push_back(std::make_unique<T[]>(kChunk));
    chunks_.back()[size_ % kChunk] = v;
    ++size_;
  }
  size_t size() const { return size_; }
  size_t bytes() const { return size_ * sizeof(T); }  // of the elements (chunks are allocated whole)
  const T& operator[](size_t i) const { return chunks_[i / kChunk][i % kChunk]; }
  // Calls fn(data, count) for each chunk in order, freeing each after the
  // call; leaves the vector empty. Peak memory: the vector plus nothing.
  template <typename F>
  void Drain(F&& fn) {
    for (size_t c = 0; c < chunks_.size(); ++c) {
      fn(static_cast<const T*>(chunks_[c].get()), std::min(kChunk, size_ - c * kChunk));
      chunks_[c].reset();
    }
    chunks_.clear();
    size_ = 0;
  }
  std::vector<T> MoveToVector() {
    std::vector<T> out;
    out.reserve(size_);
    for (size_t c = 0; c < chunks_.size(); ++c) {
      const size_t n = std::min(kChunk, size_ - c * kChunk);
      out.insert(out.end(), chunks_[c].get(), chunks_[c].get() + n);
      chunks_[c].reset();
    }
    chunks_.clear();
    size_ = 0;
    return out;
  }

 private:
  std::vector<std::unique_ptr<T[]>> chunks_;
  size_t size_ = 0;
};

// The byte key of a page without content of its own (ByteKey in
// engine/method_impl.h): it matches no page, itself included.
constexpr uint64_t kNoByteKey = 0;

struct ExactStats {
  uint64_t token_identity_sets = 0;  // sets of >= 2 with equal token sequences
  uint64_t byte_identity_sets = 0;   // sets of >= 2 with equal bytes
  uint64_t clusters = 0;             // clusters of >= 2 after joining both
  uint64_t documents_in_clusters = 0;
  uint64_t largest_cluster = 0;
};

class ExactGrouper {
 public:
  // Appends document number size(). `token_fp` is ignored when
  // `has_tokens` is false: pages without any term are not taken as copies
  // of each other by their (empty) token sequence, only by their bytes.
  // A page whose `byte_fp` is kNoByteKey (one without content of its own:
  // a redirect, an empty body) has no byte identity either.
  void Add(bool has_tokens, uint64_t token_fp, uint64_t byte_fp);
  uint32_t size() const { return count_; }

  // Computes the clusters, its sorts on the executor's threads (none: on
  // this thread). REQUIRES: called once, after the last Add().
  ExactStats Finish(Executor* executor = nullptr);

  // After Finish(): the kept document of i's cluster (the earliest; i itself
  // when i is in no cluster or is the kept one). Held beside the stages
  // that follow: 4 bytes a document (the sizes are counted in ExactStats
  // and let go).
  uint32_t Root(uint32_t i) const { return map_.keeper[i]; }

 private:
  struct Key {  // 12 bytes, 4-byte aligned
    uint32_t fp_hi, fp_lo, doc;
    bool operator<(const Key& o) const {
      if (fp_hi != o.fp_hi) return fp_hi < o.fp_hi;
      if (fp_lo != o.fp_lo) return fp_lo < o.fp_lo;
      return doc < o.doc;
    }
  };
  // Sorts keys (on the executor's threads) and calls on_run(first, last)
  // for each run of >= 2 equal fingerprints.
  template <typename F>
  static void ForEachRun(std::vector<Key>& keys, Executor* executor, F&& on_run);

  ChunkedVector<Key> token_keys_;
  ChunkedVector<Key> byte_keys_;
  uint32_t count_ = 0;
  ClusterMap map_;
};

}  // namespace neardup

#endif  // NEARDUP_ENGINE_EXACT_GROUPER_H_
