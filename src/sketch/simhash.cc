// Copyright neardup authors. Licensed under Apache-2.0.
#include "sketch/simhash.h"

#include <algorithm>
#include <bit>

#include "base/hash.h"
#include "sketch/simhash_kernels.h"

namespace neardup {

namespace {

// key_w: an independent-looking 64-bit value per projection word, drawn from
// options.seed. Part of the signature (see Name()).
uint64_t ProjectionKey(uint64_t seed, uint32_t w) {
  constexpr uint64_t kSimhashTag = 0x73696d68;  // "simh"
  uint64_t state = seed ^ ((kSimhashTag + w) * 0xd1b54a32d192ed03ULL);
  return SplitMix64Next(&state);
}

}  // namespace

Status SimhashOptions::Validate() const {
  if (bits < 64 || bits > 64 * sketch_internal::kMaxSimhashWords || bits % 64 != 0) {
    return Status::InvalidArgument(
        "simhash: bits (b) must be a multiple of 64 from 64 to 512, got " + std::to_string(bits));
  }
  if (!kernel.empty() && sketch_internal::SimhashKernels().Find(kernel) == nullptr) {
    std::string valid;
    for (const auto* k : sketch_internal::SimhashKernels().Supported()) valid += std::string(" ") + k->name;
    return Status::NotSupported("simhash: kernel '" + kernel +
                                "' is unknown or unsupported by this CPU (available:" + valid +
                                ")");
  }
  return Status::OK();
}

std::string SimhashOptions::Name() const {
  return "simhash:b=" + std::to_string(bits) + ",seed=" + std::to_string(seed);
}

SimhashSketcher::SimhashSketcher(const SimhashOptions& options)
    : options_(options),
      kernel_(options.kernel.empty() ? &sketch_internal::SimhashKernels().Active()
                                     : sketch_internal::SimhashKernels().Find(options.kernel)) {
  NEARDUP_CHECK(options_.Validate().ok());
  NEARDUP_CHECK(kernel_ != nullptr);
  keys_.resize(options_.words());
  for (uint32_t w = 0; w < options_.words(); ++w) keys_[w] = ProjectionKey(options_.seed, w);
}

bool SimhashSketcher::Sketch(std::span<const uint64_t> term_hashes, SimhashScratch* scratch,
                             uint64_t* out) const {
  const size_t n = term_hashes.size();
  if (n == 0) return false;
  NEARDUP_CHECK(n < (uint64_t{1} << 32));
  const uint32_t words = options_.words();
  scratch->counts.assign(64 * size_t{words}, 0);
  uint32_t* counts = scratch->counts.data();
  kernel_->count(term_hashes.data(), n, keys_.data(), words, counts);
  // S_i = counts_i - (n - counts_i) > 0  <=>  2 * counts_i > n.
  for (uint32_t w = 0; w < words; ++w) {
    uint64_t word = 0;
    for (uint32_t j = 0; j < 64; ++j) {
      word |= static_cast<uint64_t>(2 * uint64_t{counts[64 * w + j]} > n) << j;
    }
    out[w] = word;
  }
  return true;
}

const char* SimhashSketcher::KernelName() { return sketch_internal::SimhashKernels().Active().name; }

const char* SimhashSketcher::kernel_name() const { return kernel_->name; }

uint64_t SimhashSketcher::TEST_ProjectionWord(uint64_t term_hash, uint32_t w) const {
  NEARDUP_CHECK(w < options_.words());
  return sketch_internal::ProjectionWord(term_hash, keys_[w]);
}

int CSimilarity(const uint64_t* a, const uint64_t* b, uint32_t bits) {
  int differing = 0;
  for (uint32_t w = 0; w < bits / 64; ++w) differing += std::popcount(a[w] ^ b[w]);
  return static_cast<int>(bits) - differing;
}

}  // namespace neardup
