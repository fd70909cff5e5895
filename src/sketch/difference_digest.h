// Copyright neardup authors. Licensed under Apache-2.0.
//
// A difference digest: the invertible Bloom filter of Eppstein, Goodrich,
// Uyeda and Varghese ("What's the Difference? Efficient Set Reconciliation
// without Prior Context", SIGCOMM 2011). Each set of 32-bit keys (here a
// page's distinct shingles) is summarized in a fixed number of cells; the
// cell-wise difference of two digests decodes, by peeling, to the symmetric
// difference of the two sets when it is small (up to about cells / 1.3
// keys), and fails otherwise. It tells exactly how many shingles two pages
// differ in, which a min-hash sketch cannot when the difference is a tiny
// part of a large page.
//
// Cells are split into kHashes equal sub-tables; a key goes to one cell of
// each, so its cells are always distinct. A cell is packed into 64 bits:
// count (16 bits, wrapping), check (16 bits, xor of a second hash of the
// keys) and key (32 bits, xor of the keys).
#ifndef NEARDUP_SKETCH_DIFFERENCE_DIGEST_H_
#define NEARDUP_SKETCH_DIFFERENCE_DIGEST_H_

#include <cstdint>
#include <span>

namespace neardup {

class DifferenceDigest {
 public:
  static constexpr uint32_t kHashes = 3;

  // Writes the digest of `keys` (distinct values; a repeated key cancels
  // out) into cells[0..num_cells). REQUIRES: num_cells is a positive
  // multiple of kHashes.
  static void Build(std::span<const uint32_t> keys, uint32_t num_cells, uint64_t* cells);

  // The number of keys in exactly one of the two sets, when the difference
  // of the digests decodes and holds at most `max_keys` keys; -1 otherwise
  // (the difference is larger, or too large for the cells to decode).
  static int DifferenceSize(const uint64_t* a, const uint64_t* b, uint32_t num_cells, int max_keys);
};

}  // namespace neardup

#endif  // NEARDUP_SKETCH_DIFFERENCE_DIGEST_H_
