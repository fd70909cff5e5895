// Copyright neardup authors. Licensed under Apache-2.0.
#include "sketch/broder.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <climits>
#include <cstring>
#include <unordered_set>

#include "base/hash.h"
#include "sketch/minhash_kernels.h"

namespace neardup {

using sketch_internal::kLanePad;
using sketch_internal::kLanePad32;

namespace {

// Limits of BroderOptions::Validate().
constexpr uint32_t kMaxShingleSize = 64;
constexpr uint32_t kMaxMinhashes = 256;
constexpr uint32_t kMaxSupershingles = 16;

// An independent-looking 64-bit seed for each use (`tag`) of options.seed.
// Part of the signature: changing it changes every sketch (see Name()).
uint64_t SubSeed(uint64_t seed, uint64_t tag) {
  uint64_t state = seed ^ (tag * 0xd1b54a32d192ed03ULL);
  return SplitMix64Next(&state);
}
constexpr uint64_t kShingleTag = 1;
constexpr uint64_t kSupershingleTag = 2;
constexpr uint64_t kFastTag = 3;
constexpr uint64_t kRabinTagBase = 0x100;  // + function index

inline uint64_t ToBigEndian(uint64_t v) {
  if constexpr (std::endian::native == std::endian::little) return __builtin_bswap64(v);
  return v;
}

// x^(64 j) mod P (x^64 = p_low mod P).
uint64_t XPow64j(uint32_t j, uint64_t p_low) {
  uint64_t r = 1;
  for (uint32_t i = 0; i < j; ++i) r = gf2::MulMod(r, p_low, p_low);
  return r;
}

}  // namespace

Status BroderOptions::Validate() const {
  if (shingle_size < 1 || shingle_size > kMaxShingleSize) {
    return Status::InvalidArgument("broder: shingle_size (k) must be in 1..64, got " +
                                   std::to_string(shingle_size));
  }
  if (num_minhashes < 1 || num_minhashes > kMaxMinhashes) {
    return Status::InvalidArgument("broder: num_minhashes (m) must be in 1..256, got " +
                                   std::to_string(num_minhashes));
  }
  if (supershingle_size < 1 || supershingle_size > num_minhashes ||
      num_minhashes % supershingle_size != 0) {
    return Status::InvalidArgument(
        "broder: supershingle_size (l) must divide num_minhashes (m): m = " +
        std::to_string(num_minhashes) + ", l = " + std::to_string(supershingle_size));
  }
  if (num_supershingles() > kMaxSupershingles) {
    return Status::InvalidArgument("broder: m / l supershingles must be in 1..16, got " +
                                   std::to_string(num_supershingles()));
  }
  if (family != MinHashFamily::kFast && family != MinHashFamily::kRabin) {
    return Status::InvalidArgument("broder: unknown min-hash family (valid: fast, rabin)");
  }
  if (!kernel.empty() && sketch_internal::MinHashKernels().Find(kernel) == nullptr) {
    std::string valid;
    for (const auto* k : sketch_internal::MinHashKernels().Supported()) valid += std::string(" ") + k->name;
    return Status::NotSupported("broder: min-hash kernel '" + kernel +
                                "' is unknown or unsupported by this CPU (available:" + valid +
                                ")");
  }
  return Status::OK();
}

std::string BroderOptions::Name() const {
  std::string s = "broder:k=" + std::to_string(shingle_size);
  s += wrap ? ",wrap" : ",nowrap";
  s += ",m=" + std::to_string(num_minhashes);
  s += ",l=" + std::to_string(supershingle_size);
  s += family == MinHashFamily::kRabin ? ",rabin" : ",fast";
  s += ",seed=" + std::to_string(seed);
  return s;
}

Result<BroderOptions> BroderOptions::FromName(std::string_view name) {
  constexpr std::string_view kPrefix = "broder:";
  constexpr const char* kValid =
      " (expected broder:k=<1..64>,wrap|nowrap,m=<1..256>,l=<divisor of m>,fast|rabin,"
      "seed=<uint64>)";
  if (name.substr(0, kPrefix.size()) != kPrefix) {
    return Status::InvalidArgument("broder: name must start with 'broder:'" + std::string(kValid));
  }
  BroderOptions o;
  bool have_k = false, have_wrap = false, have_m = false, have_l = false, have_family = false,
       have_seed = false;
  std::string_view rest = name.substr(kPrefix.size());
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string_view field = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    auto number = [&](std::string_view digits, uint64_t* v) {
      const char* end = digits.data() + digits.size();
      auto [ptr, ec] = std::from_chars(digits.data(), end, *v);
      return !digits.empty() && ec == std::errc() && ptr == end;
    };
    uint64_t v = 0;
    auto small = [&](std::string_view digits, uint32_t* out) {
      if (!number(digits, &v) || v > UINT32_MAX) return false;
      *out = static_cast<uint32_t>(v);
      return true;
    };
    bool ok = true;
    if (field.starts_with("k=")) {
      ok = small(field.substr(2), &o.shingle_size);
      have_k = true;
    } else if (field == "wrap" || field == "nowrap") {
      o.wrap = field == "wrap";
      have_wrap = true;
    } else if (field.starts_with("m=")) {
      ok = small(field.substr(2), &o.num_minhashes);
      have_m = true;
    } else if (field.starts_with("l=")) {
      ok = small(field.substr(2), &o.supershingle_size);
      have_l = true;
    } else if (field == "fast" || field == "rabin") {
      o.family = field == "fast" ? MinHashFamily::kFast : MinHashFamily::kRabin;
      have_family = true;
    } else if (field.starts_with("seed=")) {
      ok = number(field.substr(5), &o.seed);
      have_seed = true;
    } else {
      ok = false;
    }
    if (!ok) {
      return Status::InvalidArgument("broder: bad field '" + std::string(field) + "'" + kValid);
    }
  }
  if (!(have_k && have_wrap && have_m && have_l && have_family && have_seed)) {
    return Status::InvalidArgument("broder: missing field in '" + std::string(name) + "'" + kValid);
  }
  NEARDUP_RETURN_IF_ERROR(o.Validate());
  return o;
}

namespace {

// t[j][b] = (b(x) * x^(8j)) * c(x) mod P, from the 64 products x^i * c.
template <typename Table>
void BuildMulTable(uint64_t c, uint64_t p_low, Table* table) {
  uint64_t basis[64];
  basis[0] = c;
  for (int i = 1; i < 64; ++i) {
    const uint64_t prev = basis[i - 1];
    basis[i] = (prev << 1) ^ ((prev >> 63) ? p_low : 0);
  }
  for (int j = 0; j < 8; ++j) {
    table->t[j][0] = 0;
    for (unsigned b = 1; b < 256; ++b) {
      table->t[j][b] = table->t[j][b & (b - 1)] ^ basis[8 * j + std::countr_zero(b)];
    }
  }
}

}  // namespace

BroderSketcher::BroderSketcher(const BroderOptions& options)
    : options_(options),
      kernel_(options.kernel.empty() ? &sketch_internal::MinHashKernels().Active()
                                     : sketch_internal::MinHashKernels().Find(options.kernel)),
      shingle_fp_(DrawIrreduciblePolynomial(SubSeed(options.seed, kShingleTag))),
      super_fp_(DrawIrreduciblePolynomial(SubSeed(options.seed, kSupershingleTag))),
      in_(std::make_unique<MulTable>()),
      out_(std::make_unique<MulTable>()),
      shingle_kernel_(&sketch_internal::ShingleKernels().Active()) {
  NEARDUP_CHECK(options_.Validate().ok());
  NEARDUP_CHECK(kernel_ != nullptr);
  const uint64_t p = shingle_fp_.polynomial();
  const uint32_t k = options_.shingle_size;
  BuildMulTable(XPow64j(1, p), p, in_.get());
  BuildMulTable(XPow64j(k + 1, p), p, out_.get());
  roll_const_ = XPow64j(k + 2, p) ^ XPow64j(k + 1, p);
  rolling_.k = k;
  rolling_.wrap = options_.wrap;
  rolling_.p_low = p;
  rolling_.out_c = XPow64j(k + 1, p);
  rolling_.roll_const = roll_const_;
  rolling_.mu_low = sketch_internal::BarrettMuLow(p);
  rolling_.in_table = in_->t;
  rolling_.out_table = out_->t;

  const uint32_t m = options_.num_minhashes;
  if (options_.family == MinHashFamily::kFast) {
    const size_t padded = (m + kLanePad - 1) / kLanePad * kLanePad;
    // Padding lanes compute the identity; their minima are never read.
    mul_.assign(padded, 1);
    xor_.assign(padded, 0);
    mul_inv_.assign(padded, 1);
    uint64_t state = SubSeed(options_.seed, kFastTag);
    for (uint32_t i = 0; i < m; ++i) {
      mul_[i] = SplitMix64Next(&state) | 1;
      xor_[i] = SplitMix64Next(&state);
      mul_inv_[i] = InverseMod64(mul_[i]);
    }
    const size_t padded32 = (m + kLanePad32 - 1) / kLanePad32 * kLanePad32;
    mul32_.assign(padded32, 1);
    xor32_.assign(padded32, 0);
    for (uint32_t i = 0; i < m; ++i) {
      mul32_[i] = static_cast<uint32_t>(mul_[i]);
      xor32_[i] = static_cast<uint32_t>(xor_[i]);
    }
  } else {
    std::unordered_set<uint64_t> seen;
    rabin_.reserve(m);
    for (uint64_t tag = kRabinTagBase; rabin_.size() < m; ++tag) {
      const uint64_t poly = DrawIrreduciblePolynomial(SubSeed(options_.seed, tag));
      if (seen.insert(poly).second) rabin_.emplace_back(poly);  // m distinct P_i
    }
  }
}

BroderSketcher::~BroderSketcher() = default;

namespace {

template <typename Table>
inline uint64_t MulBy(const Table& table, uint64_t v) {
  return table.t[0][v & 0xff] ^ table.t[1][(v >> 8) & 0xff] ^ table.t[2][(v >> 16) & 0xff] ^
         table.t[3][(v >> 24) & 0xff] ^ table.t[4][(v >> 32) & 0xff] ^
         table.t[5][(v >> 40) & 0xff] ^ table.t[6][(v >> 48) & 0xff] ^ table.t[7][v >> 56];
}

}  // namespace

void BroderSketcher::Shingles(std::span<const uint64_t> term_hashes,
                              std::vector<uint64_t>* out) const {
  ShinglesWith(*shingle_kernel_, term_hashes, out);
}

void BroderSketcher::ShinglesWith(const sketch_internal::ShingleKernel& kernel,
                                       std::span<const uint64_t> term_hashes, std::vector<uint64_t>* out) const {
  // Fingerprint() of a window h_0 .. h_{k-1} (8 big-endian bytes each) is the
  // chain f <- (f ^ h) * x^64 mod P from f = x^64 mod P = p_low
  // (shingle_kernels.h rolls the windows).
  const uint64_t* h = term_hashes.data();
  const size_t n = term_hashes.size();
  const size_t k = options_.shingle_size;
  if (n == 0) {
    out->clear();
    return;
  }
  if (!options_.wrap && n < k) {
    uint64_t f = shingle_fp_.polynomial();
    for (size_t t = 0; t < n; ++t) f = MulBy(*in_, f ^ h[t]);
    out->assign(1, f);
    return;
  }
  out->resize(options_.wrap ? n : n - k + 1);  // written over: only growth is filled
  kernel.roll(h, n, rolling_, out->data());
}

bool BroderSketcher::MinHashes(std::span<const uint64_t> shingles, uint64_t* out) const {
  if (shingles.empty()) return false;
  if (options_.family == MinHashFamily::kFast) {
    MinHashesFast(shingles, out);
  } else {
    MinHashesRabin(shingles, out);
  }
  return true;
}

namespace {

// Mixes the shingles (Fmix64) a block at a time and folds each block into
// the running minima with a kernel of either width (minhash_kernels.h).
template <typename Word, typename Min, typename UpdateFn>
void FoldMixedShingles(std::span<const uint64_t> shingles, UpdateFn update, const std::vector<Word>& mul,
                       const std::vector<Word>& xr, Min* mins) {
  constexpr size_t kBlock = 512;  // mixed shingles per kernel call (4 KiB)
  alignas(64) uint64_t ys[kBlock];
  for (size_t start = 0; start < shingles.size(); start += kBlock) {
    const size_t nb = std::min(kBlock, shingles.size() - start);
    for (size_t j = 0; j < nb; ++j) ys[j] = Fmix64(shingles[start + j]);
    update(ys, nb, mul.data(), xr.data(), mul.size(), mins);
  }
}

}  // namespace

void BroderSketcher::MinHashesFast(std::span<const uint64_t> shingles, uint64_t* out) const {
  // f_i(x) = g_i(Fmix64(x)), g_i(y) = (y ^ b_i) * a_i, signed order. The
  // kernel keeps the minimum images; inverting f_i gives the pre-images.
  alignas(64) int64_t mins[kMaxMinhashes];
  std::fill(mins, mins + mul_.size(), INT64_MAX);
  FoldMixedShingles(shingles, kernel_->update_mins, mul_, xor_, mins);
  for (uint32_t i = 0; i < options_.num_minhashes; ++i) {
    out[i] = Fmix64Inverse((static_cast<uint64_t>(mins[i]) * mul_inv_[i]) ^ xor_[i]);
  }
}

bool BroderSketcher::MinValues32(std::span<const uint64_t> shingles, uint32_t* out) const {
  NEARDUP_CHECK(options_.family == MinHashFamily::kFast);
  if (shingles.empty()) return false;
  alignas(64) uint32_t mins[kMaxMinhashes];
  std::fill(mins, mins + mul32_.size(), UINT32_MAX);
  FoldMixedShingles(shingles, kernel_->update_mins32, mul32_, xor32_, mins);
  // The least image is about 2^32 / n: few of its bits vary. Its pre-image,
  // lo32(M(x)), is uniform, so values of different shingles collide with
  // probability 2^-32 (a site's template counts equal values).
  for (uint32_t i = 0; i < options_.num_minhashes; ++i) {
    out[i] = (mins[i] * static_cast<uint32_t>(mul_inv_[i])) ^ xor32_[i];
  }
  return true;
}

void BroderSketcher::MinHashesRabin(std::span<const uint64_t> shingles, uint64_t* out) const {
  // Fetterly's reference: the argmin of R_{P_i} under the unsigned order.
  for (uint32_t i = 0; i < options_.num_minhashes; ++i) {
    const RabinFingerprinter& fp = rabin_[i];
    uint64_t best_image = fp.MapU64(shingles[0]);
    uint64_t best = shingles[0];
    for (size_t s = 1; s < shingles.size(); ++s) {
      const uint64_t image = fp.MapU64(shingles[s]);
      if (image < best_image) {
        best_image = image;
        best = shingles[s];
      }
    }
    out[i] = best;
  }
}

void BroderSketcher::Supershingles(const uint64_t* minhashes, uint64_t* out) const {
  const uint32_t l = options_.supershingle_size;
  uint64_t be[kMaxMinhashes];
  for (uint32_t j = 0; j < options_.num_supershingles(); ++j) {
    for (uint32_t t = 0; t < l; ++t) be[t] = ToBigEndian(minhashes[j * l + t]);
    out[j] = super_fp_.Fingerprint(be, sizeof(uint64_t) * l);
  }
}

bool BroderSketcher::Sketch(std::span<const uint64_t> term_hashes, SketchScratch* scratch,
                            uint64_t* supershingles_out, uint64_t* minhashes_out) const {
  if (term_hashes.empty()) return false;
  Shingles(term_hashes, &scratch->shingles);
  uint64_t* minhashes = minhashes_out;
  if (minhashes == nullptr) {
    scratch->minhashes.resize(options_.num_minhashes);
    minhashes = scratch->minhashes.data();
  }
  MinHashes(scratch->shingles, minhashes);
  Supershingles(minhashes, supershingles_out);
  return true;
}

const char* BroderSketcher::KernelName() { return sketch_internal::MinHashKernels().Active().name; }

const char* BroderSketcher::kernel_name() const { return kernel_->name; }

uint64_t BroderSketcher::TEST_Image(uint32_t i, uint64_t x) const {
  NEARDUP_CHECK(i < options_.num_minhashes);
  if (options_.family == MinHashFamily::kRabin) return rabin_[i].MapU64(x);
  return ((Fmix64(x) ^ xor_[i]) * mul_[i]) ^ (uint64_t{1} << 63);
}

uint64_t Megashingle(uint64_t supershingle_i, uint64_t supershingle_j) {
  static const RabinFingerprinter fp = RabinFingerprinter::FromSeed(kMegashingleSeed);
  const uint64_t be[2] = {ToBigEndian(supershingle_i), ToBigEndian(supershingle_j)};
  return fp.Fingerprint(be, sizeof(be));
}

int BSimilarity(const uint64_t* a, const uint64_t* b, uint32_t num_supershingles) {
  int same = 0;
  for (uint32_t j = 0; j < num_supershingles; ++j) same += a[j] == b[j];
  return same;
}

}  // namespace neardup
