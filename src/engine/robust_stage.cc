#include "engine/robust_stage.h"

#define XXH_INLINE_ALL  // XXH3 inlined: band keys hash 8 to 56 bytes, a page 55 times
#include <xxhash.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <memory>
#include <mutex>
#include <queue>
#include <string>

#include "base/even_key_sort.h"
#include "base/path.h"
#include "base/shared_keys.h"
#include "base/stopwatch.h"
#include "engine/parallel.h"
#include "sketch/difference_digest.h"
#include "text/site.h"
#include "text/url.h"

namespace neardup {

namespace {

// Thread-local scratch keeps its room from page to page, but not past
// kKeptScratchBytes: a page of megabytes of text (millions of terms) would
// otherwise hold its room on every thread that signed it for the rest of
// the run, and the run's memory budget with it.
constexpr size_t kKeptScratchBytes = size_t{4} << 20;

template <typename T>
void ReleaseIfLarge(std::vector<T>* v) {
  if (v->capacity() * sizeof(T) > kKeptScratchBytes) std::vector<T>().swap(*v);
}

// Holders of a rare value compared with its first holder.
constexpr size_t kCopySamples = 3;
// SiteTemplates: on a site of kCopyHolders pages or more, a value is
// common boilerplate only when at least kCopyHolders pages hold it; a value
// fewer hold (two pages of a small site, where the site's share would
// already make it boilerplate) is boilerplate unless its two holders are
// one item: a page and its own copy teach their site nothing (Henzinger's
// near duplicates on one host). Two pages alone on a site cannot tell
// their template from their item: what they share is the template, unless
// the two are one text (TwoPagesOneText).
constexpr uint32_t kCopyHolders = 3;
// One item in two templates (main texts alike, the rest of the pages less)
// is told only on a site of kMainCopySitePages pages or more: on a smaller
// one no boilerplate is common enough to be set apart, and the main texts
// compared hold the site's long template blocks.
constexpr uint32_t kMainCopySitePages = 6;
// Candidate pairs a task of the rule takes (RunTasks).
constexpr size_t kPairsPerTask = size_t{1} << 12;

// Bytes of mapped pages read in page order between two
// RobustPages::ReleaseResident calls; reads out of order go through
// RobustPages::Fetch and make nothing resident.
constexpr size_t kResidentBytesBetweenReleases = size_t{4} << 20;

// The bytes of a site's column buffer (SiteTemplates): its values at as
// many positions as fit, read in one pass over the site's pages. A site
// with more goes to column files when the stage has a folder for them.
constexpr size_t kSiteColumnBytes = size_t{4} << 20;
// Pages whose values are turned into column slices at a time when a site's
// column files are written (a block of 128 KiB at 126 positions).
constexpr size_t kColumnBlockPages = 256;

// Counts the mapped bytes a stage reads and lets them go from resident
// memory every kResidentBytesBetweenReleases.
class ResidentPages {
 public:
  explicit ResidentPages(const RobustPages& pages) : pages_(pages), record_bytes_(pages.mins_stride * 4) {}
  void Read(uint32_t count = 1) {  // in page order
    if (pages_.file == nullptr) return;
    read_ += count * record_bytes_;
    if (read_ >= kResidentBytesBetweenReleases) {
      pages_.ReleaseResident();
      read_ = 0;
    }
  }

 private:
  const RobustPages& pages_;
  size_t record_bytes_;
  size_t read_ = 0;
};

// Sorts (value, page) pairs by value, stably (LSD radix, 8 bits a pass;
// passes where every value has the same digit are skipped): pairs in page
// order come out in (value, page) order, as std::sort would leave them.
void SortByValue(std::vector<std::pair<uint32_t, uint32_t>>* v, std::vector<std::pair<uint32_t, uint32_t>>* scratch) {
  if (v->size() < 64) {
    std::sort(v->begin(), v->end());
    return;
  }
  scratch->resize(v->size());
  for (int shift = 0; shift < 32; shift += 8) {
    size_t count[256] = {};
    for (const auto& p : *v) ++count[(p.first >> shift) & 0xff];
    if (count[((*v)[0].first >> shift) & 0xff] == v->size()) continue;
    size_t at = 0;
    for (size_t& c : count) {
      const size_t here = c;
      c = at;
      at += here;
    }
    for (const auto& p : *v) (*scratch)[count[(p.first >> shift) & 0xff]++] = p;
    v->swap(*scratch);
  }
}

RobustPages ContiguousPages(std::span<const uint32_t> mins, std::span<const uint64_t> site,
                            std::span<const uint64_t> digests, uint32_t m, std::span<const uint64_t> titles = {}) {
  RobustPages p;
  p.n = static_cast<uint32_t>(site.size());
  p.m = m;
  p.mins = mins.data();
  p.mins_stride = m;
  p.digests = digests.empty() ? nullptr : digests.data();
  p.digest_stride = kRobustDigestCells;
  p.site = site;
  p.titles = titles.empty() ? nullptr : titles.data();
  p.titles_stride = kRobustTitleWords;
  return p;
}

// A candidate table's entry: a band key and a page, 12 bytes.
#pragma pack(push, 4)
struct BandEntry {
  uint64_t key;
  uint32_t page;
  bool operator<(const BandEntry& o) const { return key != o.key ? key < o.key : page < o.page; }
};
#pragma pack(pop)
static_assert(sizeof(BandEntry) == 12);

// Classes of a term's bytes (NormalizeVolatileTerms): a digit, a byte of
// a lower-case hex word (0-9a-f), a slash; kPlainNumber when every byte is
// a digit.
constexpr uint8_t kDigit = 1, kHexWord = 2, kSlash = 4, kPlainNumber = 8;
// A content term with a slash, in NormalizeVolatileTerms' classes (0
// content, 1 volatile, 2 own URL): it counts by its file name.
constexpr uint8_t kSlashContent = 3;
constexpr std::array<uint8_t, 256> kTermByteClass = [] {
  std::array<uint8_t, 256> t{};
  for (int c = '0'; c <= '9'; ++c) t[c] = kDigit | kHexWord | kPlainNumber;
  for (int c = 'a'; c <= 'f'; ++c) t[c] = kHexWord;
  t['/'] = kSlash;
  return t;
}();

// A bit a byte of `bytes` ('/' or a digit: 0x2f-0x39), eight bytes' bits a
// byte of *bits (bit j of (*bits)[k] is byte 8k + j), found 16 bytes a step
// with SSE2; *bits gets 8 bytes more than it needs so that a reader may
// load 8 bytes at any byte of it.
void DigitOrSlashBits(const uint8_t* bytes, size_t total, std::vector<uint8_t>* bits) {
  bits->assign(total / 8 + 9, 0);
  uint8_t* out = bits->data();
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i low = _mm_set1_epi8(0x2f), span = _mm_set1_epi8(0x39 - 0x2f);
  for (; i + 16 <= total; i += 16) {
    const __m128i x = _mm_sub_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + i)), low);
    const unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(x, span), x)));
    out[i / 8] = static_cast<uint8_t>(mask);
    out[i / 8 + 1] = static_cast<uint8_t>(mask >> 8);
  }
#endif
  for (; i < total; ++i) {
    if (bytes[i] >= 0x2f && bytes[i] <= 0x39) out[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
  }
}

// The first i in [from, end) with bytes[i] != 0, or end; bytes may be read
// up to 8 bytes past end.
inline size_t NextNonzero(const uint8_t* bytes, size_t from, size_t end) {
  for (size_t i = from; i < end; i += 8) {
    uint64_t x;
    std::memcpy(&x, bytes + i, sizeof x);
    if (x == 0) continue;
    if constexpr (std::endian::native != std::endian::little) x = __builtin_bswap64(x);
    return std::min(end, i + static_cast<size_t>(std::countr_zero(x)) / 8);
  }
  return end;
}

// Every byte 0-9 or a-f, and at least one byte.
bool IsHexWord(std::string_view t) {
  if (t.empty()) return false;
  for (unsigned char c : t) {
    if (!(kTermByteClass[c] & kHexWord)) return false;
  }
  return true;
}

// Month and weekday names, their abbreviations, and time-zone and clock
// words: volatile only next to a term with a digit ("21 Nov 2026", "Sat, 21",
// "13:45 GMT", "10 am"), so "may" and "march" in prose stay content.
// A term of at most 8 bytes as one integer (bytes in order, zero padded).
constexpr uint64_t PackShortTerm(std::string_view t) {
  uint64_t v = 0;
  for (size_t i = 0; i < t.size(); ++i) v |= uint64_t{static_cast<unsigned char>(t[i])} << (8 * i);
  return v;
}

// The first of the 128 slots IsDateWord's table tries for a packed term.
constexpr size_t DateWordSlot(uint64_t packed) { return static_cast<size_t>((packed * 0x9e3779b97f4a7c15ull) >> 57); }

bool IsDateWord(std::string_view t) {
  static constexpr std::array<std::string_view, 52> kWords = {
      "january", "february", "march", "april", "may", "june", "july", "august", "september",
      "october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug",
      "sep", "sept", "oct", "nov", "dec", "monday", "tuesday", "wednesday", "thursday",
      "friday", "saturday", "sunday", "mon", "tue", "tues", "wed", "thu", "thur", "thurs",
      "fri", "sat", "sun", "am", "pm", "gmt", "utc", "cet", "cest", "est", "edt", "pst",
      "pdt", "z"};
  // The words of at most 8 bytes as integers, in an open-addressing table
  // of 128 slots (0 empty): a lookup is one or two compares.
  static constexpr size_t kSlots = 128;
  static constexpr std::array<uint64_t, kSlots> kTable = [] {
    std::array<uint64_t, kSlots> table{};
    for (std::string_view w : kWords) {
      if (w.size() > 8) continue;
      size_t i = DateWordSlot(PackShortTerm(w));
      while (table[i] != 0) i = (i + 1) % kSlots;
      table[i] = PackShortTerm(w);
    }
    return table;
  }();
  if (t.empty() || t.size() > 9) return false;
  if (t.size() == 9) return t == "september" || t == "wednesday";
  uint64_t v = 0;
  std::memcpy(&v, t.data(), t.size());  // little-endian: PackShortTerm's order
  if constexpr (std::endian::native != std::endian::little) v = PackShortTerm(t);
  for (size_t i = DateWordSlot(v); kTable[i] != 0; i = (i + 1) % kSlots) {
    if (kTable[i] == v) return true;
  }
  return false;
}

uint64_t AsciiTermHash(std::string_view term) { return XXH3_64bits(term.data(), term.size()); }

// Terms of an ASCII string as the tokenizer makes them from a URL in text:
// maximal runs of letters and digits, lower-cased.
void UrlTerms(std::string_view s, std::vector<uint64_t>* out) {
  std::string term;
  for (size_t i = 0; i <= s.size(); ++i) {
    const unsigned char c = i < s.size() ? static_cast<unsigned char>(s[i]) : ' ';
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      term.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c));
    } else if (!term.empty()) {
      out->push_back(AsciiTermHash(term));
      term.clear();
    }
  }
}

bool MatchAt(const std::vector<uint64_t>& hashes, size_t i, const std::vector<uint64_t>& run) {
  if (run.empty() || i + run.size() > hashes.size()) return false;
  return std::equal(run.begin(), run.end(), hashes.begin() + static_cast<std::ptrdiff_t>(i));
}

// Numbers as data (NormalizeVolatileTerms): a table cell that holds plain
// numbers and at most one word beside them (its unit or label: "52 kcal",
// "0.3 g", "1,234 votes"), and nothing else (no date or clock word, no
// second word, no term of letters and digits: not a date, a time, an id, a
// version or a server name), holds a figure of a table (census figures,
// nutrients, election results), which is content, not a volatile field:
// two tables that differ in their figures are different pages. A counter
// in a cell ("Views 1234") is then content too; a recrawl that changes it
// differs in a few shingles, which the difference digests still match.
void KeepTableFigures(const TokenizedDocument& doc, const std::vector<uint8_t>& flags, std::vector<uint8_t>* cls) {
  if (doc.line_is_cell.size() != doc.line_ends.size()) return;
  std::vector<uint8_t>& c = *cls;
  uint32_t begin = 0;
  for (size_t line = 0; line < doc.line_ends.size(); ++line) {
    const uint32_t end = doc.line_ends[line];
    if (doc.line_is_cell[line]) {
      uint32_t numbers = 0, words = 0;
      bool other = false;
      for (uint32_t t = begin; t < end && !other; ++t) {
        if (c[t] == 1 && (flags[t] & kPlainNumber) != 0) {
          ++numbers;
        } else if (c[t] == 0) {
          ++words;
        } else {
          other = true;  // a date or clock word, a hex chunk of an id, a term of letters and digits
        }
      }
      if (!other && numbers > 0 && words <= 1) std::fill(c.begin() + begin, c.begin() + end, 0);
    }
    begin = end;
  }
}

// An image URL term counts by its file name (see NormalizeVolatileTerms).
uint64_t FileTermOf(std::string_view t, uint64_t hash) {
  const size_t slash = t.rfind('/');
  if (slash == std::string_view::npos || slash + 1 >= t.size()) return hash;
  const std::string_view file = t.substr(slash + 1);
  return XXH3_64bits(file.data(), file.size());
}

}  // namespace

// A counting sort by a hash of the value into about as many buckets as
// pairs, then a stable insertion sort by value within each bucket (most
// hold one value or none): a few passes over the pairs where sorting them
// by value (SortByValue) takes four over them and over four 256-entry
// counts, which cost most for the columns of small sites.
void GroupByValue(std::vector<std::pair<uint32_t, uint32_t>>* v, std::vector<std::pair<uint32_t, uint32_t>>* scratch,
                  std::vector<uint32_t>* counts) {
  const size_t n = v->size();
  if (n > (size_t{1} << 16)) {  // a large site's column: its runs sorted by value (fewer cache misses)
    SortByValue(v, scratch);
    return;
  }
  auto insertion_sort = [](std::pair<uint32_t, uint32_t>* first, std::pair<uint32_t, uint32_t>* last) {
    for (auto* i = first + 1; i < last; ++i) {
      const auto x = *i;
      auto* j = i;
      for (; j > first && j[-1].first > x.first; --j) *j = j[-1];
      *j = x;
    }
  };
  if (n < 16) {
    if (n > 1) insertion_sort(v->data(), v->data() + n);
    return;
  }
  const int bits = std::bit_width(n - 1);  // 2^bits buckets, n at most
  const int shift = 32 - bits;
  auto bucket = [&](uint32_t value) { return (value * 0x9E3779B1u) >> shift; };
  counts->assign((size_t{1} << bits) + 1, 0);
  uint32_t* count = counts->data();
  for (const auto& p : *v) ++count[bucket(p.first) + 1];
  for (size_t b = 1; b < counts->size(); ++b) count[b] += count[b - 1];
  scratch->resize(n);
  for (const auto& p : *v) (*scratch)[count[bucket(p.first)]++] = p;  // count[b]: bucket b's end
  for (size_t b = 0, start = 0; b + 1 < counts->size(); start = count[b++]) {
    if (count[b] - start > 1) insertion_sort(scratch->data() + start, scratch->data() + count[b]);
  }
  v->swap(*scratch);
}

bool MainTextLine(uint32_t terms, uint32_t link_terms, const RobustMethodOptions& options) {
  return terms >= options.main_line_terms && uint64_t{link_terms} * 3 <= terms;
}

std::string RobustMethodOptions::Spec() const {
  char content[32];
  std::snprintf(content, sizeof content, "%g", min_content_similarity);
  char fraction[32];
  std::snprintf(fraction, sizeof fraction, "%g", template_site_fraction);
  char no_template[32];
  std::snprintf(no_template, sizeof no_template, "%g", min_similarity_without_template);
  char main_sim[32];
  std::snprintf(main_sim, sizeof main_sim, "%g", min_main_similarity);
  char contain_buf[32];
  std::snprintf(contain_buf, sizeof contain_buf, "%g", min_main_containment);
  const std::string contain = contain_buf;
  return "robust:k=" + std::to_string(shingle_size) + ",m=" + std::to_string(num_minhashes) +
         ",r=" + std::to_string(band_rows) + ",template=" + std::to_string(template_min_pages) +
         ",template-fraction=" + fraction +
         ",content=" + content + ",no-template=" + no_template + ",edit=" + std::to_string(max_edit_shingles) +
         ",same-site-edit=" + std::to_string(max_same_site_edit_shingles) +
         (main_minhashes == 0 ? std::string()
                              : ",main-m=" + std::to_string(main_minhashes) +
                                    // main-r equal to r is what a whole spec without it means.
                                    (main_band_rows == band_rows ? std::string()
                                                                 : ",main-r=" + std::to_string(main_band_rows)) +
                                    ",main-line=" +
                                    std::to_string(main_line_terms) + ",main-min=" + std::to_string(main_min_terms) +
                                    ",main=" + main_sim + (keeps_main_shingles() ? ",contain=" + contain : "")) +
         (normalize_numbers ? ",numbers" : ",no-numbers") +
         (normalize_own_url ? ",own-url" : ",no-own-url") +
         // text-urls acts through own-url: without it the key changes nothing
         // and is not written (a whole spec without it means no-text-urls).
         (normalize_own_url && normalize_text_urls ? ",text-urls" : "") +
         // image-names acts through numbers, as text-urls through own-url
         // (a whole spec without it means no-image-names).
         (normalize_numbers && image_file_names ? ",image-names" : "") +
         // No titles compared is what a whole spec without `titles` means.
         (compare_titles ? ",titles" : "") +
         // title-numbers acts through titles (a whole spec without it
         // means no-title-numbers).
         (compare_titles && title_numbers ? ",title-numbers" : "") +
         // title-function-words acts through titles too.
         (compare_titles && title_function_words ? ",title-function-words" : "") +
         // titles-decide acts through titles too.
         (compare_titles && titles_decide ? ",titles-decide" : "") +
         // 64-bit values are what a whole spec without `hash` means.
         (minhash_bits == 32 ? ",hash=32" : "") + ",seed=" + std::to_string(seed);
}

void NormalizeVolatileTerms(const TokenizedDocument& doc, std::string_view page_url,
                            const RobustMethodOptions& options, std::vector<uint64_t>* out,
                            uint32_t* volatile_terms, uint32_t* own_url_terms, std::vector<uint64_t>* main_out) {
  const size_t n = doc.num_terms();
  const std::vector<uint64_t>& h = doc.term_hashes;
  const bool have_text = doc.term_offsets.size() == n + 1;
  // Per term: kDigit and kSlash when some byte is one, kHexWord when every
  // byte is 0-9a-f, kPlainNumber when every byte is a digit. Most terms
  // hold no digit and no slash (bytes 0x2f-0x39): a bit map of those bytes
  // over all the terms' text finds them (DigitOrSlashBits), and only they
  // get the byte loop. A term without them is a hex word only in `spreads`
  // below, which asks IsHexWord itself. The buffers are the thread's,
  // reused across pages.
  // cls: 0 content, 1 volatile, 2 own URL, kSlashContent content with a slash.
  thread_local std::vector<uint8_t> flags, cls, digit_bits;
  thread_local std::vector<uint32_t> digit_terms, slash_terms;  // the terms with a digit, with a slash, in order
  thread_local std::vector<uint32_t> run_starts;
  flags.assign(n, 0);
  // NextNonzero reads cls 8 bytes a step: 8 bytes of zeros after the end.
  cls.assign(n + 8, 0);
  digit_terms.clear();
  slash_terms.clear();
  if (have_text) {
    const uint8_t* bytes = reinterpret_cast<const uint8_t*>(doc.term_bytes.data());
    DigitOrSlashBits(bytes, doc.term_bytes.size(), &digit_bits);
    // The terms holding a set bit, in order: from each set bit to the term
    // whose bytes hold it (the last term that begins at or before it: an
    // empty term holds none); the search goes on from that term's end.
    const uint32_t* off = doc.term_offsets.data();
    const size_t words = (doc.term_bytes.size() + 63) / 64;
    auto word_at = [&](size_t word) {
      uint64_t x;
      std::memcpy(&x, digit_bits.data() + word * 8, sizeof x);
      if constexpr (std::endian::native != std::endian::little) x = __builtin_bswap64(x);
      return x;
    };
    size_t i = 0;  // the term of the latest set bit
    for (size_t from = 0, word = 0; word < words;) {
      uint64_t x = word_at(word) & (~uint64_t{0} << (from % 64));
      if (x == 0) {
        from = ++word * 64;
        continue;
      }
      const uint32_t bit = static_cast<uint32_t>(word * 64 + static_cast<size_t>(std::countr_zero(x)));
      // The next such term is most often a few terms on: gallop from i
      // (off[i] <= bit), then search the last step's range.
      size_t hi = i + 1;
      for (size_t step = 1; hi <= n && off[hi] <= bit; step *= 2) {
        i = hi;
        hi += step;
      }
      hi = std::min(hi, n + 1);
      i = static_cast<size_t>(std::upper_bound(off + i, off + hi, bit) - off) - 1;
      const uint32_t begin = off[i], end = off[i + 1];
      uint8_t any = 0, all = kHexWord | kPlainNumber;
      uint32_t file = begin;  // where the term's file name starts (after its last slash)
      for (uint32_t b = begin; b < end; ++b) {
        const uint8_t c = kTermByteClass[bytes[b]];
        any |= c;
        all &= c;
        if (c & kSlash) file = b + 1;
      }
      if ((any & kSlash) && file < end && options.image_file_names) {
        // An image's URL counts by its file name (FileTermOf), and so is
        // volatile by it: a digit in its host or path ("i0.wp.com",
        // "img2", "2024/05") is not one in the name, which the copy that
        // links the original's image shares with the original's own
        // relative reference.
        any = kSlash;
        all = kHexWord | kPlainNumber;
        for (uint32_t b = file; b < end; ++b) {
          const uint8_t c = kTermByteClass[bytes[b]];
          any |= c & kDigit;
          all &= c;
        }
      }
      flags[i] = static_cast<uint8_t>((any & (kDigit | kSlash)) | (all & (kHexWord | kPlainNumber)));
      if (any & kDigit) digit_terms.push_back(static_cast<uint32_t>(i));
      if (any & kSlash) slash_terms.push_back(static_cast<uint32_t>(i));
      from = end;
      word = from / 64;
    }
  }
  uint32_t n_volatile = 0, n_own = 0;
  if (options.normalize_numbers && have_text) {
    for (uint32_t d : digit_terms) cls[d] = 1;
    // Volatility spreads from numbers along date words ("Monday, November
    // 9") and along hex chunks of an id ("1d89e540 8ffb bfac"): forward
    // from each term with a digit, then backward from the first term of
    // each run (spreading depends on the terms only, so the order in which
    // runs grow does not change the result).
    auto hex = [&](size_t t) {
      return (flags[t] & kHexWord) || (!(flags[t] & (kDigit | kSlash)) && IsHexWord(doc.term(t)));
    };
    auto spreads = [&](size_t i, size_t from) {
      if (IsDateWord(doc.term(i))) return true;
      return doc.term(i).size() >= 4 && hex(i) && hex(from);
    };
    run_starts.clear();
    for (uint32_t d : digit_terms) {  // forward, in increasing order
      if (d == 0 || cls[d - 1] != 1) run_starts.push_back(d);
      for (size_t i = d; i + 1 < n && cls[i + 1] == 0 && spreads(i + 1, i); ++i) cls[i + 1] = 1;
    }
    for (uint32_t s : run_starts) {  // backward
      for (size_t i = s; i > 0 && cls[i - 1] == 0 && spreads(i - 1, i); --i) cls[i - 1] = 1;
    }
    if (!digit_terms.empty()) {
      KeepTableFigures(doc, flags, &cls);
      for (size_t i = 0; i < n; ++i) n_volatile += cls[i] == 1;
    }
  }
  if (options.normalize_own_url && !page_url.empty()) {
    // The host without a leading "www.", and the whole URL after it (path
    // and query): in text they appear as these runs of terms.
    const std::string host = UrlHost(page_url);
    std::string_view bare = host;
    if (bare.starts_with("www.")) bare.remove_prefix(4);
    std::vector<uint64_t> host_run, url_run;
    UrlTerms(bare, &host_run);
    if (host_run.size() >= 2) {  // a single label ("localhost") is an ordinary word
      const size_t at = page_url.find(host);
      url_run = host_run;
      if (at != std::string_view::npos) UrlTerms(page_url.substr(at + host.size()), &url_run);
      const uint64_t www = AsciiTermHash("www"), http = AsciiTermHash("http"),
                     https = AsciiTermHash("https");
      const uint64_t* const begin = h.data();
      const uint64_t first = host_run[0];
      for (size_t i = 0; i < n;) {
        // Most pages name their host a few times: to the next mention.
        i = static_cast<size_t>(std::find(begin + i, begin + n, first) - begin);
        if (i == n) break;
        size_t len = 0;
        if (url_run.size() > host_run.size() && MatchAt(h, i, url_run)) {
          len = url_run.size();
        } else if (MatchAt(h, i, host_run)) {
          len = host_run.size();
        }
        if (len == 0) {
          ++i;
          continue;
        }
        // "http://www." before the host belongs to the URL too (a mirror
        // without "www." or on https shows the same page).
        size_t start = i;
        while (start > 0 && cls[start - 1] == 0 &&
               (h[start - 1] == www || h[start - 1] == http || h[start - 1] == https)) {
          --start;
          ++n_own;
        }
        for (size_t j = start; j < i + len; ++j) {
          if (cls[j] == 1) --n_volatile;
          cls[j] = 2;
        }
        n_own += static_cast<uint32_t>(len);
        i += len;
      }
    }
  }
  if (options.normalize_own_url && options.normalize_text_urls) {
    // Every URL written in the text is one term, whoever's it is: a copy
    // that keeps the original's URL reads as the original, which names
    // its own.
    for (size_t k = 0; k + 1 < doc.url_spans.size(); k += 2) {
      for (uint32_t j = doc.url_spans[k]; j < doc.url_spans[k + 1] && j < n; ++j) {
        if (cls[j] == 1) --n_volatile;
        if (cls[j] != 2) ++n_own;
        cls[j] = 2;
      }
    }
  }
  // Content terms with a slash count by their file name (below).
  for (uint32_t s : slash_terms) {
    if (cls[s] == 0) cls[s] = kSlashContent;
  }
  out->resize(n);
  uint64_t* o = out->data();
  size_t w = 0;
  // Main text: the terms of the lines MainTextLine takes, normalized alike.
  uint64_t* mo = nullptr;
  size_t mw = 0;
  size_t line = 0, line_end = 0;
  bool in_main = false;
  const bool lines_known = doc.line_ends.size() == doc.line_link_terms.size() && !doc.line_ends.empty();
  if (main_out != nullptr) {
    main_out->resize(n);
    mo = main_out->data();
  }
  // Most terms are content (class 0) and go out as they are: runs of them
  // are copied whole, up to the next term of another class or the end of
  // the line that decides whether they are main text.
  for (size_t i = 0; i < n;) {
    size_t segment_end = n;
    if (mo != nullptr && lines_known) {
      while (i >= line_end && line < doc.line_ends.size()) {
        const size_t start = line_end;
        line_end = doc.line_ends[line];
        // Plain text has no navigation: all of it is main text.
        in_main = !doc.html ||
                  MainTextLine(static_cast<uint32_t>(line_end - start), doc.line_link_terms[line], options);
        ++line;
      }
      if (i < line_end) segment_end = std::min(line_end, n);
    }
    const size_t plain_end = NextNonzero(cls.data(), i, segment_end);
    const size_t run = plain_end - i;
    std::memcpy(o + w, h.data() + i, run * sizeof(uint64_t));
    w += run;
    if (in_main) {
      std::memcpy(mo + mw, h.data() + i, run * sizeof(uint64_t));
      mw += run;
    }
    i = plain_end;
    if (i == segment_end) continue;
    // An image on another host is one whole-URL term (Henzinger §2); as for
    // an image on the page's own host, its file name is what counts, so a
    // copy that links the original's images matches it. A run of class
    // terms is one.
    const bool content = cls[i] == kSlashContent;
    const uint64_t t = content ? FileTermOf(doc.term(i), h[i]) : (cls[i] == 1 ? kVolatileTermHash : kOwnUrlTermHash);
    if (content || w == 0 || o[w - 1] != t) o[w++] = t;
    if (in_main && (content || mw == 0 || mo[mw - 1] != t)) mo[mw++] = t;
    ++i;
  }
  out->resize(w);
  if (main_out != nullptr) main_out->resize(mw);
  if (volatile_terms) *volatile_terms = n_volatile;
  if (own_url_terms) *own_url_terms = n_own;
  ReleaseIfLarge(&flags);
  ReleaseIfLarge(&cls);
  ReleaseIfLarge(&digit_bits);
  ReleaseIfLarge(&digit_terms);
  ReleaseIfLarge(&slash_terms);
  ReleaseIfLarge(&run_starts);
}

std::string RobustSiteOf(std::string_view url, std::string_view canonical_url) {
  std::string host = UrlHost(url);
  if (host.empty() && !canonical_url.empty()) host = UrlHost(canonical_url);
  if (!host.empty()) return RegistrableDomainOfHost(host);
  std::string own(1, '\x01');
  own.append(url);
  return own;
}

BroderOptions RobustSketchOptions(const RobustMethodOptions& options) {
  BroderOptions o;
  o.shingle_size = options.shingle_size;
  o.wrap = true;
  o.num_minhashes = options.num_minhashes;
  o.supershingle_size = options.num_minhashes;  // one supershingle, unused
  o.seed = options.seed;
  return o;
}

RobustSketchers::RobustSketchers(const RobustMethodOptions& options) : whole(RobustSketchOptions(options)) {
  if (options.main_minhashes > 0) main.emplace(RobustMainSketchOptions(options));
}

BroderOptions RobustMainSketchOptions(const RobustMethodOptions& options) {
  BroderOptions o = RobustSketchOptions(options);
  o.num_minhashes = options.main_minhashes;
  o.supershingle_size = options.main_minhashes;
  o.seed = options.seed ^ 0x6d61696e2d746578ULL;  // "main-tex": functions of their own
  return o;
}

namespace {

// The number of distinct shingles (by their low 32 bits), through an
// open-addressing set of the keys (0 an empty slot; key 0 is counted apart)
// cleared over the slots this call uses; with kKeepKeys their low bits in
// first-seen order go to scratch->keys too. The set has four slots a
// shingle or more, so that a key's first slot is nearly always free or its
// own: whether the key is new is then added, not branched on (a page
// repeats a fifth to a half of its shingles, in no order a predictor
// learns).
template <bool kKeepKeys>
size_t DistinctShingleKeys(const std::vector<uint64_t>& shingles, SketchScratch* scratch) {
  std::vector<uint32_t>& keys = scratch->keys;
  std::vector<uint32_t>& set = scratch->key_set;
  int bits = 10;
  while ((size_t{1} << bits) < 4 * shingles.size()) ++bits;
  const size_t capacity = size_t{1} << bits;
  if (set.size() < capacity) set.resize(capacity);
  std::memset(set.data(), 0, capacity * sizeof(uint32_t));
  if (kKeepKeys) keys.resize(shingles.size());
  uint32_t* const out = keys.data();
  const size_t mask = capacity - 1;
  const int shift = 32 - bits;
  size_t distinct = 0;
  bool zero_seen = false;
  for (uint64_t sh : shingles) {
    const uint32_t key = static_cast<uint32_t>(sh);
    if (key == 0) [[unlikely]] {
      if (!zero_seen) {
        zero_seen = true;
        if (kKeepKeys) out[distinct] = 0;
        ++distinct;
      }
      continue;
    }
    size_t slot = (key * 0x9e3779b1u) >> shift;
    uint32_t v = set[slot];
    while (v != 0 && v != key) [[unlikely]] {
      slot = (slot + 1) & mask;
      v = set[slot];
    }
    set[slot] = key;
    if (kKeepKeys) out[distinct] = key;  // kept when new: the count moves past it
    distinct += v == 0;
  }
  if (kKeepKeys) keys.resize(distinct);
  return distinct;
}

}  // namespace

RobustSignature ComputeRobustSignature(const TokenizedDocument& doc, std::string_view page_url,
                                       const RobustMethodOptions& options,
                                       const BroderSketcher& sketcher, const BroderSketcher* main_sketcher,
                                       SketchScratch* scratch, std::vector<uint64_t>* normalized,
                                       uint32_t* mins_out, uint64_t* digest_out) {
  RobustSignature sig;
  thread_local std::vector<uint64_t> main_text;
  struct ReleaseAtReturn {
    std::vector<uint64_t>* v;
    ~ReleaseAtReturn() { ReleaseIfLarge(v); }
  } release_main_text{&main_text};
  const bool with_main = options.main_minhashes > 0 && main_sketcher != nullptr;
  NormalizeVolatileTerms(doc, page_url, options, normalized, &sig.volatile_terms, &sig.own_url_terms,
                         with_main ? &main_text : nullptr);
  bool has_content = false;
  for (uint64_t t : *normalized) {
    if (t != kVolatileTermHash && t != kOwnUrlTermHash) {
      has_content = true;
      break;
    }
  }
  if (!has_content) return sig;
  sig.identity = XXH3_64bits(normalized->data(), normalized->size() * sizeof(uint64_t));
  sketcher.Shingles(*normalized, &scratch->shingles);
  const uint32_t m = options.num_minhashes;
  // The m values (RobustMethodOptions::minhash_bits); false: no shingle.
  auto min_values = [&](const BroderSketcher& sk, uint32_t count, uint32_t* out) {
    if (options.minhash_bits == 32) return sk.MinValues32(scratch->shingles, out);
    scratch->minhashes.resize(count);
    if (!sk.MinHashes(scratch->shingles, scratch->minhashes.data())) return false;
    for (uint32_t j = 0; j < count; ++j) out[j] = static_cast<uint32_t>(scratch->minhashes[j]);
    return true;
  };
  if (!min_values(sketcher, m, mins_out)) return sig;
  if (digest_out) {
    const size_t distinct = DistinctShingleKeys<true>(scratch->shingles, scratch);
    if (options.keeps_main_shingles()) sig.shingles = static_cast<uint32_t>(distinct);
    DifferenceDigest::Build(scratch->keys, kRobustDigestCells, digest_out);
  }
  if (options.main_minhashes > 0) {
    uint32_t* main_out = mins_out + m;
    std::fill(main_out, main_out + options.main_minhashes, kNoMainText);
    if (with_main) sig.main_terms = static_cast<uint32_t>(main_text.size());
    if (with_main && main_text.size() >= options.main_min_terms) {
      main_sketcher->Shingles(main_text, &scratch->shingles);
      if (options.keeps_main_shingles()) {
        sig.main_shingles = static_cast<uint32_t>(DistinctShingleKeys<false>(scratch->shingles, scratch));
      }
      if (min_values(*main_sketcher, options.main_minhashes, main_out)) {
        // A true value equal to the mark would read as no main text.
        if (main_out[0] == kNoMainText) main_out[0] = kNoMainText - 1;
      }
    }
  }
  sig.has_sketch = true;
  return sig;
}

RobustPageView RobustPages::View(uint32_t p) const {
  RobustPageView v;
  v.mins = Mins(p);
  v.site = site[p];
  v.digest = Digest(p);
  if (main_shingles) UnpackShingleCounts(main_shingles[size_t{p} * record_words], &v);
  if (titles) v.title = titles + size_t{p} * titles_stride;
  return v;
}

const uint32_t* RobustPages::FetchMins(uint32_t p, uint64_t* scratch) const {
  const size_t words = (size_t{m} + 1) / 2;  // two values a word
  if (file == nullptr ||
      !file->ReadAt((uint64_t{p} * record_words + mins_word) * sizeof(uint64_t), words * sizeof(uint64_t),
                    reinterpret_cast<char*>(scratch))
           .ok()) {
    return Mins(p);  // the mapping holds the same bytes
  }
  return reinterpret_cast<const uint32_t*>(scratch);
}

void RobustPages::FetchManyMins(std::span<const uint32_t> ps, uint64_t* scratch, const uint32_t** out) const {
  if (file == nullptr) {
    for (size_t i = 0; i < ps.size(); ++i) out[i] = Mins(ps[i]);
    return;
  }
  const size_t words = MinsWords();
  const bool read = ReadRecordWords(ps, mins_word, words, scratch);
  for (size_t i = 0; i < ps.size(); ++i) {
    out[i] = read ? reinterpret_cast<const uint32_t*>(scratch + i * words) : FetchMins(ps[i], scratch + i * words);
  }
}

bool RobustPages::ReadRecordWords(std::span<const uint32_t> ps, size_t first_word, size_t words,
                                  uint64_t* scratch) const {
  thread_local std::vector<MappedFile::ReadRequest> requests;
  requests.resize(ps.size());
  for (size_t i = 0; i < ps.size(); ++i) {
    requests[i] = {(uint64_t{ps[i]} * record_words + first_word) * sizeof(uint64_t), words * sizeof(uint64_t),
                   reinterpret_cast<char*>(scratch + i * words)};
  }
  return file->ReadMany(requests).ok();
}

void RobustPages::FetchShingleCounts(uint32_t p, RobustPageView* v) const {
  v->main_shingles = v->shingles = 0;
  if (main_shingles == nullptr) return;
  uint64_t word = 0;
  if (file == nullptr ||
      !file->ReadAt((uint64_t{p} * record_words + main_shingles_word) * sizeof(uint64_t), sizeof word,
                    reinterpret_cast<char*>(&word))
           .ok()) {
    word = main_shingles[size_t{p} * record_words];  // the mapping holds the same bytes
  }
  UnpackShingleCounts(word, v);
}

const uint64_t* RobustPages::FetchTitle(uint32_t p, uint64_t* scratch) const {
  if (titles == nullptr) return nullptr;
  if (file != nullptr && file->ReadAt((uint64_t{p} * record_words + title_word) * sizeof(uint64_t),
                                      kRobustTitleWords * sizeof(uint64_t), reinterpret_cast<char*>(scratch))
                             .ok()) {
    return scratch;
  }
  return titles + size_t{p} * titles_stride;  // the mapping holds the same bytes
}

void PackRobustTitle(const TokenizedDocument& doc, bool numbers, uint64_t* out) {
  std::fill(out, out + kRobustTitleWords, uint64_t{0});
  const uint32_t end = std::min<uint32_t>(doc.title_end, static_cast<uint32_t>(doc.num_terms()));
  if (end <= doc.title_begin) return;
  const bool have_text = doc.term_offsets.size() == doc.num_terms() + 1;
  auto put = [&](uint32_t slot, uint32_t term) {
    uint64_t v = doc.term_hashes[term] >> 48;
    if (numbers) {
      uint32_t digits = 0;
      if (have_text) {
        for (char c : doc.term(term)) digits += c >= '0' && c <= '9';
      }
      v = (v & ~uint64_t{1}) | (digits >= kTitleNumberDigits ? 1 : 0);
      if (v == 0) v = 2;  // 0 marks the end; bit 0 stays the number's
    }
    if (v == 0) v = 1;  // 0 marks the end
    out[slot / 4] |= v << (16 * (slot % 4));
  };
  const uint32_t n = end - doc.title_begin, half = kRobustTitleTerms / 2;
  if (n <= kRobustTitleTerms) {
    for (uint32_t i = 0; i < n; ++i) put(i, doc.title_begin + i);
  } else {
    for (uint32_t i = 0; i < half; ++i) put(i, doc.title_begin + i);
    for (uint32_t i = 0; i < half; ++i) put(half + i, end - half + i);
  }
}

namespace {

// A packed title's terms into terms; returns how many.
uint32_t UnpackRobustTitle(const uint64_t* title, std::array<uint16_t, kRobustTitleTerms>* terms) {
  uint32_t n = 0;
  for (uint32_t slot = 0; slot < kRobustTitleTerms; ++slot) {
    const auto v = static_cast<uint16_t>(title[slot / 4] >> (16 * (slot % 4)));
    if (v == 0) break;
    (*terms)[n++] = v;
  }
  return n;
}

// Function words of English and of the languages of the web next to it
// (articles, prepositions, pronouns, auxiliaries, conjunctions), as
// Henzinger's tokens: lower case, an apostrophe splits ("it s"). Words
// that are also content words in another of these languages ("war",
// "die", "son", "man") are left out. Two headlines that share only such
// words ("the", "of a", "how do you") share no word of their items.
constexpr std::string_view kTitleFunctionWords[] = {
    // English
    "a", "an", "the", "and", "or", "but", "nor", "of", "in", "on", "at", "to", "for", "from", "by", "with",
    "without", "about", "into", "onto", "over", "under", "as", "is", "are", "was", "were", "be", "been", "being",
    "am", "do", "does", "did", "have", "has", "had", "it", "its", "s", "t", "d", "ll", "re", "ve", "m", "this",
    "that", "these", "those", "there", "here", "what", "which", "who", "whom", "whose", "when", "where", "why",
    "how", "not", "no", "so", "if", "then", "than", "too", "very", "can", "could", "will", "would", "shall",
    "should", "may", "might", "must", "i", "me", "my", "we", "our", "us", "you", "your", "he", "him", "his",
    "she", "her", "they", "them", "their", "all", "any", "some", "most", "such", "only", "just", "also", "up",
    "out", "off",
    // German
    "der", "das", "den", "dem", "des", "ein", "eine", "einer", "eines", "einem", "einen", "und", "oder", "aber",
    "mit", "von", "zu", "zum", "zur", "im", "auf", "aus", "bei", "ist", "sind", "nicht", "auch", "wie", "sie",
    "er", "ich", "wir", "fur", "f\xc3\xbcr",
    // French
    "le", "la", "les", "un", "une", "du", "de", "et", "ou", "mais", "en", "dans", "sur", "pour", "par", "avec",
    "sans", "au", "aux", "ce", "cette", "ces", "est", "sont", "qui", "que", "il", "elle", "ils", "nous", "vous",
    "je", "pas", "ne", "l", "qu",
    // Spanish, Italian, Portuguese (past the words above)
    "el", "los", "las", "una", "y", "del", "al", "por", "para", "es", "se", "su", "sus", "lo", "como", "gli",
    "di", "da", "della", "dei", "che", "non", "per", "o", "os", "um", "uma", "e", "dos", "em", "na", "com", "nao",
    // Dutch
    "het", "een", "van", "op", "voor", "aan", "zijn", "niet", "dat",
};

// Whether a title term (PackRobustTitle's 16 bits) is one of
// kTitleFunctionWords, by its hash with the lowest bit left out (the
// number mark takes that bit).
bool IsTitleFunctionWord(uint16_t term) {
  static const std::vector<uint16_t> slots = [] {
    std::vector<uint16_t> v;
    for (std::string_view w : kTitleFunctionWords) {
      v.push_back(static_cast<uint16_t>((XXH3_64bits(w.data(), w.size()) >> 48) & ~uint64_t{1}));
    }
    std::sort(v.begin(), v.end());
    return v;
  }();
  return std::binary_search(slots.begin(), slots.end(), static_cast<uint16_t>(term & ~1u));
}

// Two unpacked titles' terms past what they share at their start and end:
// ta[prefix, na - suffix) and tb[prefix, nb - suffix).
struct TitleParts {
  std::array<uint16_t, kRobustTitleTerms> ta{}, tb{};
  uint32_t na = 0, nb = 0, prefix = 0, suffix = 0;
  TitleParts(const uint64_t* a, const uint64_t* b) {
    na = UnpackRobustTitle(a, &ta);
    nb = UnpackRobustTitle(b, &tb);
    while (prefix < std::min(na, nb) && ta[prefix] == tb[prefix]) ++prefix;
    while (suffix < std::min(na, nb) - prefix && ta[na - 1 - suffix] == tb[nb - 1 - suffix]) ++suffix;
  }
  // Each own part names a number, and none of one's is the other's.
  bool TwoNumbers() const {
    bool a_number = false, b_number = false, shared_number = false;
    for (uint32_t i = prefix; i < na - suffix; ++i) {
      if (!(ta[i] & 1)) continue;
      a_number = true;
      for (uint32_t j = prefix; j < nb - suffix; ++j) shared_number = shared_number || ta[i] == tb[j];
    }
    for (uint32_t j = prefix; j < nb - suffix; ++j) b_number = b_number || (tb[j] & 1);
    return a_number && b_number && !shared_number;
  }
};

}  // namespace

bool TitlesNameTwoNumbers(const uint64_t* a, const uint64_t* b) {
  const TitleParts t(a, b);
  return t.na > 0 && t.nb > 0 && t.TwoNumbers();
}

bool TitlesNameTwoItems(const uint64_t* a, const uint64_t* b, bool numbers, bool function_words) {
  const TitleParts t(a, b);
  const auto& ta = t.ta;
  const auto& tb = t.tb;
  const uint32_t na = t.na, nb = t.nb, prefix = t.prefix, suffix = t.suffix;
  if (na == 0 || nb == 0) return false;
  if (numbers && t.TwoNumbers()) return true;
  const uint32_t shared = prefix + suffix;
  if (na - shared <= shared || nb - shared <= shared) return false;
  for (uint32_t i = prefix; i < na - suffix; ++i) {
    if (function_words && IsTitleFunctionWord(ta[i])) continue;
    for (uint32_t j = prefix; j < nb - suffix; ++j) {
      if (ta[i] == tb[j]) return false;
    }
  }
  return true;
}

InOrderMins::InOrderMins(const RobustPages& pages, uint32_t end) : pages_(pages), end_(end) {
  if (pages.file != nullptr) per_chunk_ = std::max<size_t>(1, kChunkBytes / (pages.record_words * sizeof(uint64_t)));
}

const uint32_t* InOrderMins::Mins(uint32_t p) {
  if (pages_.file == nullptr) return pages_.Mins(p);
  if (p < first_ || p >= last_) {
    first_ = p;
    last_ = static_cast<uint32_t>(std::min<uint64_t>(end_, uint64_t{p} + per_chunk_));
    const size_t words = size_t{last_ - first_} * pages_.record_words;
    chunk_.resize(words);
    if (!pages_.file->ReadAt(uint64_t{p} * pages_.record_words * sizeof(uint64_t), words * sizeof(uint64_t),
                             reinterpret_cast<char*>(chunk_.data()))
             .ok()) {
      first_ = last_ = 0;
      return pages_.Mins(p);  // the mapping holds the same bytes
    }
  }
  return reinterpret_cast<const uint32_t*>(chunk_.data() + size_t{p - first_} * pages_.record_words +
                                           pages_.mins_word);
}

RobustPageView RobustPages::Fetch(uint32_t p, uint64_t* scratch) const {
  if (file == nullptr ||
      !file->ReadAt(uint64_t{p} * record_words * sizeof(uint64_t), record_words * sizeof(uint64_t),
                    reinterpret_cast<char*>(scratch))
           .ok()) {
    return View(p);  // the mapping holds the same bytes
  }
  return RecordView(p, scratch);
}

RobustPageView RobustPages::RecordView(uint32_t p, const uint64_t* record) const {
  RobustPageView v;
  v.mins = reinterpret_cast<const uint32_t*>(record + mins_word);
  v.site = site[p];
  v.digest = digests ? record + digest_word : nullptr;
  if (main_shingles) UnpackShingleCounts(record[main_shingles_word], &v);
  if (titles) v.title = record + title_word;
  return v;
}

void RobustPages::FetchMany(std::span<const uint32_t> ps, uint64_t* scratch, RobustPageView* views) const {
  if (file == nullptr) {
    for (size_t i = 0; i < ps.size(); ++i) views[i] = View(ps[i]);
    return;
  }
  if (!ReadRecordWords(ps, 0, record_words, scratch)) {
    for (size_t i = 0; i < ps.size(); ++i) views[i] = Fetch(ps[i], scratch + i * record_words);
    return;
  }
  for (size_t i = 0; i < ps.size(); ++i) views[i] = RecordView(ps[i], scratch + i * record_words);
}

SiteTemplates::SiteTemplates(std::span<const uint32_t> mins, std::span<const uint64_t> site,
                             std::span<const uint8_t> candidate, const RobustMethodOptions& options,
                             std::span<const uint64_t> digests, std::span<const uint64_t> titles)
    : SiteTemplates(ContiguousPages(mins, site, digests, options.positions(), titles), candidate, options) {}

namespace {

// What one thread needs to look at a site's positions (SiteTemplates):
// the position's values in site order, its (value, holder) column and the
// column's sort, a block of positions read from the pages when the site's
// column files cannot be read, and what the thread found.
struct SitePositionScratch {
  explicit SitePositionScratch(size_t record_words) : scratch_a(record_words) {}
  std::vector<uint32_t> values;  // one position's values, the site's pages in order
  std::vector<std::pair<uint32_t, uint32_t>> column, sort_scratch;  // (value, holder's index in the site)
  std::vector<uint32_t> bucket_counts;  // GroupByValue
  std::vector<uint32_t> block;  // positions [block_first, block_end), position-major
  uint32_t block_first = 0, block_end = 0;
  std::vector<uint64_t> scratch_a;  // RobustPages::FetchMins
  std::vector<uint64_t> found;  // (position << 32 | value) this thread found
  std::vector<uint64_t> requests;  // copy checks asked for: (first << 32 | holder), site indexes
  std::vector<uint64_t> pair_requests;  // those of values two pages hold (checked last)
  std::vector<uint64_t> recent_requests;  // AskedRecently
  // Values common by the site's share that few pages hold (kMaxItemVersions):
  // (position << 32 | value, holders), and the copy checks of those that
  // may be one item's versions.
  std::vector<std::pair<uint64_t, uint32_t>> few_holders;
  struct VersionCheck {
    uint64_t value;  // position << 32 | value
    uint32_t holders;
    uint32_t count;  // samples
    uint64_t samples[kCopySamples];
  };
  std::vector<VersionCheck> version_checks;
  // The runs pass 1 saw that pass 2 checks (their copy checks), kept while
  // a thread holds at most kCheckedRunsKept of them (1.25 MB); past that,
  // pass 2 groups the positions' values again.
  struct CheckedRun {
    uint64_t value;  // position << 32 | value
    uint64_t samples[kCopySamples];
    uint32_t count;  // samples
    bool one_item_only;
    bool two_holders;  // held by two pages: checked after the values more pages hold
  };
  static constexpr size_t kCheckedRunsKept = size_t{1} << 15;
  std::vector<CheckedRun> checked_runs;
  bool checked_runs_dropped = false;

  void KeepCheckedRun(const CheckedRun& run) {
    if (checked_runs_dropped) return;
    if (checked_runs.size() >= kCheckedRunsKept) {
      checked_runs = {};
      checked_runs_dropped = true;
      return;
    }
    checked_runs.push_back(run);
  }

  // Lets the buffers of a site's positions go (the next site's are its own).
  void ReleaseColumns() {
    values = {};
    column = {};
    sort_scratch = {};
    bucket_counts = {};
    block = {};
    block_first = block_end = 0;
    checked_runs = {};
    checked_runs_dropped = false;
  }
};

// What a copy check (SiteTemplates) counts over the positions of two
// pages: positions compared, and those agreeing outside the site's common
// boilerplate, of the whole page and of the main text; a quarter of Word
// each, packed so that one addition counts a position. uint32_t holds up
// to 255 positions a page, uint64_t up to 65,535.
template <typename Word>
struct CopyAgreement {
  static constexpr int kBits = static_cast<int>(sizeof(Word)) * 2;
  static constexpr uint32_t kMaxPositions = (uint32_t{1} << kBits) - 1;
  static constexpr Word kAgreeing = 1, kPositions = Word{1} << kBits, kMainAgreeing = Word{1} << (2 * kBits),
                        kMainPositions = Word{1} << (3 * kBits);
  static uint32_t Field(Word c, int k) { return static_cast<uint32_t>((c >> (k * kBits)) & kMaxPositions); }
  static uint32_t agreeing(Word c) { return Field(c, 0); }
  static uint32_t positions(Word c) { return Field(c, 1); }
  static uint32_t main_agreeing(Word c) { return Field(c, 2); }
  static uint32_t main_positions(Word c) { return Field(c, 3); }
};

// Requests remembered to drop repeats before they are stored: a pair of
// copies asks again at most positions, a position's worth of requests
// later. A direct-mapped table (the last pair seen in each slot, all ones
// when none), at most 512 KiB a thread: 64 slots a page of the site, so
// that a small site (most of a crawl's) does not fill 512 KiB. Its size
// changes only which repeats are dropped before they are stored, not the
// requests (CopyRequests makes them unique).
constexpr size_t kRecentRequestSlots = size_t{1} << 16;
size_t RecentRequestSlots(uint32_t site_pages) {
  return std::clamp<size_t>(std::bit_ceil(size_t{site_pages}) * 64, 1024, kRecentRequestSlots);
}

// Whether `pair` was just asked for (its slot holds it); remembers it. An
// empty table gets `slots` slots (a power of two).
inline bool AskedRecently(std::vector<uint64_t>* recent, size_t slots, uint64_t pair) {
  if (recent->empty()) recent->assign(slots, ~uint64_t{0});
  const int shift = 64 - std::countr_zero(recent->size());
  uint64_t& slot = (*recent)[(pair * 0x9E3779B97F4A7C15ull) >> shift];
  if (slot == pair) return true;
  slot = pair;
  return false;
}

// The copy checks a site asks for (SiteTemplates), each pair of pages
// once: threads hand theirs over in batches of kBatch; they are sorted and
// made unique from kUniqueFrom on, and again each time they grow by a
// quarter, so that repeats (a pair of copies asks again at most positions)
// do not fill memory on a site of millions of pages. Thread-safe Add.
class CopyRequests {
 public:
  static constexpr size_t kBatch = size_t{1} << 14;
  static constexpr size_t kUniqueFrom = size_t{1} << 20;

  // Takes *batch (left empty; at most kBatch pairs).
  void Add(std::vector<uint64_t>* batch) {
    Add(std::span<const uint64_t>(*batch));
    batch->clear();
  }
  void Add(std::span<const uint64_t> batch) {
    if (batch.empty()) return;
    std::lock_guard<std::mutex> lock(mu_);
    pairs_.insert(pairs_.end(), batch.begin(), batch.end());
    if (pairs_.size() >= unique_at_) {
      SortUnique();
      unique_at_ = std::max(kUniqueFrom, pairs_.size() + pairs_.size() / 4);
      pairs_.reserve(unique_at_ + kBatch);  // grows to this, not to twice its size
    }
  }
  // The pairs asked for, sorted, once each; none are kept.
  std::vector<uint64_t> Take() {
    SortUnique();
    unique_at_ = kUniqueFrom;
    std::vector<uint64_t> pairs;
    pairs.swap(pairs_);
    return pairs;
  }

 private:
  void SortUnique() {
    std::sort(pairs_.begin(), pairs_.end());
    pairs_.erase(std::unique(pairs_.begin(), pairs_.end()), pairs_.end());
  }
  std::mutex mu_;
  std::vector<uint64_t> pairs_;
  size_t unique_at_ = kUniqueFrom;
};

// A site's positions are looked at on several threads from this many
// values on (pages times positions); below it, on one thread, while other
// threads learn other such sites.
constexpr uint64_t kParallelSiteValues = uint64_t{1} << 20;

// Pages of the smaller sites one task learns (SiteTemplates), and the
// boilerplate values a task gathers before they go into the set.
constexpr size_t kSmallSitesPagesPerTask = 4096;
constexpr size_t kLearnedFlush = size_t{1} << 16;
// A site whose values do not fit one block of columns is large.
static_assert(kSiteColumnBytes == sizeof(uint32_t) * kParallelSiteValues);

// What learning a site needs beside its own locals (SiteTemplates): its
// positions' scratch, one a thread, its common boilerplate, the count of
// mapped bytes read, and the boilerplate found where it is gathered before
// it goes into the set. One a task: small sites are learned several at once.
struct SiteWork {
  explicit SiteWork(const RobustPages& pages)
      : scratch_pool([&pages] { return std::make_unique<SitePositionScratch>(pages.record_words); }),
        resident(pages) {}
  WorkPool<SitePositionScratch> scratch_pool;
  FlatU64Set common;
  ResidentPages resident;
  std::vector<uint64_t> learned;
  std::vector<uint64_t> one_text_sites;     // SiteTemplates::OneTextSite, gathered as `learned`
  std::vector<uint64_t> two_titles_sites;   // SiteTemplates::TwoTitlesSite, the same way
  std::vector<uint64_t> record_a, record_b;  // TwoPagesOneText's two records
  std::array<uint64_t, kRobustTitleWords> title_a{}, title_b{};  // and their titles
  // Moves the sites gathered into the templates' sets.
  void MoveSitesInto(FlatU64Set* one_text, FlatU64Set* two_titles) {
    for (uint64_t site : one_text_sites) one_text->Insert(site);
    for (uint64_t site : two_titles_sites) two_titles->Insert(site);
    one_text_sites.clear();
    two_titles_sites.clear();
  }
};

// Agreement of two pages over some of their min-hash positions:
// `agreeing` of `positions` outside the boilerplate agree, and
// `template_shared` more hold boilerplate both pages hold
// (EstimateContainment's arguments).
struct PositionAgreement {
  uint32_t agreeing = 0;
  uint32_t positions = 0;
  uint32_t template_shared = 0;
};

// Whether the containment rules judge two pages whose whole pages and
// main texts agree as `whole` and `main` do: where the whole pages agree
// no more than the main texts (a sign that the main texts are not a
// template's long blocks), or where the two are of one site whose template
// shows on their whole pages (some positions hold boilerplate both hold)
// and none of it in their main texts: their main texts are then their own
// text, and what their whole pages share beyond them is the item's own (a
// story's headline, byline and links beside its first page on its site).
// Across sites, and on a site too small to have learned its template,
// nothing shows which blocks are template, and the sign is still asked.
// The pair rule (RobustDecideMatched) and the rule of one item on a site
// (SiteTemplates) both ask this.
bool ContainmentJudged(const PositionAgreement& whole, const PositionAgreement& main, bool same_site) {
  return uint64_t{whole.agreeing} * main.positions <= uint64_t{main.agreeing} * whole.positions ||
         (same_site && whole.template_shared > 0 && main.template_shared == 0);
}

// Whether one of two pages holds the other at `bar`
// (RobustMethodOptions::min_main_containment): the smaller main text at
// most `bar` of the larger's size (pages of about one size are told by
// their resemblance), and both the smaller main text and the smaller whole
// page contained in the other's at `bar`, each estimate judged at
// kMaxContainmentError (ContainmentPasses). `a` and `b` need their
// shingle counts only (RobustPages::FetchShingleCounts).
bool OneHoldsOther(const PositionAgreement& whole, const PositionAgreement& main, const RobustPageView& a,
                   const RobustPageView& b, double bar) {
  if (std::min(a.main_shingles, b.main_shingles) > bar * std::max(a.main_shingles, b.main_shingles)) return false;
  return ContainmentPasses(
             EstimateContainment(main.agreeing, main.positions, main.template_shared, a.main_shingles, b.main_shingles),
             bar) &&
         ContainmentPasses(
             EstimateContainment(whole.agreeing, whole.positions, whole.template_shared, a.shingles, b.shingles), bar);
}

// TwoPagesOneText's test of the two pages' values: whole pages and main
// texts alike, or one holding the other.
bool TwoPagesAlike(const RobustPages& pages, uint32_t a, uint32_t b, const RobustMethodOptions& options,
                   SiteWork* w) {
  if (options.main_minhashes == 0) return false;
  w->record_a.resize(pages.record_words);
  w->record_b.resize(pages.record_words);
  const uint32_t* ma = pages.FetchMins(a, w->record_a.data());
  const uint32_t* mb = pages.FetchMins(b, w->record_b.data());
  if (!HasMainText(ma, options) || !HasMainText(mb, options)) return false;
  uint32_t agreeing = 0, main_agreeing = 0;
  for (uint32_t j = 0; j < options.num_minhashes; ++j) agreeing += ma[j] == mb[j];
  for (uint32_t j = options.num_minhashes; j < options.positions(); ++j) main_agreeing += ma[j] == mb[j];
  if (agreeing >= options.min_similarity_without_template * options.num_minhashes &&
      main_agreeing >= options.min_main_similarity * options.main_minhashes) {
    return true;
  }
  if (options.min_main_containment <= 0) return false;
  RobustPageView va, vb;  // the counts only: the resemblance above read the values alone
  pages.FetchShingleCounts(a, &va);
  pages.FetchShingleCounts(b, &vb);
  return OneHoldsOther(PositionAgreement{agreeing, options.num_minhashes, 0},
                       PositionAgreement{main_agreeing, options.main_minhashes, 0}, va, vb,
                       options.min_main_containment);
}

// Whether pages a and b, the only two of their site, are one text twice
// (an article and its revision, a page captured with and without its
// comments): their whole pages agree at min_similarity_without_template of
// the positions, as two pages with no template known must, and their main
// texts (both have one) at min_main_similarity of theirs. Or one holds
// the other (a story and its first or second page, a release and its
// part: OneHoldsOther over all their positions). Their site then
// learns no template from them. A template is learned from what
// distinct items share, never from a near-duplicate pair: what the two
// share would otherwise be boilerplate for every page holding it, and the
// article's copies on other sites would be compared without it. Two items
// of one template differ in their main texts (a site of two product pages
// whose template outweighs the products, both without main text, is left
// to the template rule). Nor are two pages whose titles name two items
// (TitlesNameTwoItems, with compare_titles): the one place where a page
// names its item tells the two items of a template apart where the
// template holds most of their text (*two_titles is then set).
bool TwoPagesOneText(const RobustPages& pages, uint32_t a, uint32_t b, const RobustMethodOptions& options,
                     SiteWork* w, bool* two_titles) {
  *two_titles = false;
  if (!TwoPagesAlike(pages, a, b, options, w)) return false;
  if (!options.compare_titles) return true;
  const uint64_t* ta = pages.FetchTitle(a, w->title_a.data());
  const uint64_t* tb = pages.FetchTitle(b, w->title_b.data());
  *two_titles = ta != nullptr && tb != nullptr &&
                TitlesNameTwoItems(ta, tb, options.title_numbers, options.title_function_words);
  return !*two_titles;
}

}  // namespace

SiteTemplates::SiteTemplates(const RobustPages& pages, std::span<const uint8_t> candidate,
                             const RobustMethodOptions& options, const RobustStageFiles& files, Executor* executor) {
  if (MainTextOrder::AppliesTo(options)) main_order_ = std::make_shared<const MainTextOrder>(options);
  const uint32_t m = options.positions();
  // The mark of a page without main text is never boilerplate nor shared.
  auto no_main = [&](uint32_t j, uint32_t value) { return j >= options.num_minhashes && value == kNoMainText; };
  // The candidates in (site, page) order: 4 bytes a page.
  std::vector<uint32_t> by_site;
  for (uint32_t i = 0; i < candidate.size(); ++i) {
    if (candidate[i]) by_site.push_back(i);
  }
  std::sort(by_site.begin(), by_site.end(), [&](uint32_t a, uint32_t b) {
    return pages.site[a] != pages.site[b] ? pages.site[a] < pages.site[b] : a < b;
  });
  // Learns the site of candidates by_site[s, e) with w's buffers: its
  // positions on site_threads (a large site alone), or on this thread (a
  // small site, several at once on the caller's threads); the boilerplate
  // found goes into values_ (directly: a large site) or into w->learned.
  auto learn_site = [&](size_t s, size_t e, SiteWork* w, Executor* site_threads, bool into_values) {
    const uint32_t pages_of_site = static_cast<uint32_t>(e - s);
    if (pages_of_site == 2) {
      bool two_titles = false;
      if (TwoPagesOneText(pages, by_site[s], by_site[s + 1], options, w, &two_titles)) {
        w->one_text_sites.push_back(pages.site[by_site[s]]);  // learns nothing
        return;
      }
      if (two_titles) w->two_titles_sites.push_back(pages.site[by_site[s]]);
    }
    WorkPool<SitePositionScratch>& scratch_pool = w->scratch_pool;
    FlatU64Set& common = w->common;  // the site's values held by TemplateHolders pages
    ResidentPages& resident = w->resident;
    auto keep = [&](uint64_t v) {
      if (into_values) {
        values_.Insert(v);
      } else {
        w->learned.push_back(v);
      }
    };
    // Values held by `need` pages or more are the site's common
    // boilerplate; fewer, from template_min_pages on, are boilerplate
    // unless their holders are copies of one item. Two pages holding a
    // value where the site's share alone would make it boilerplate
    // (site_need <= holders < need, on a small site) are checked by the
    // stricter rule of one item (kOneItem below): a page and its revision
    // on one host, or two editions of a newspaper group carrying one
    // story, must not teach their site that their text is its template.
    const uint32_t site_need = TemplateHolders(pages_of_site, options);
    const uint32_t need = pages_of_site >= kCopyHolders ? std::max(site_need, kCopyHolders) : site_need;
    const size_t recent_slots = RecentRequestSlots(pages_of_site);  // AskedRecently's table for this site
    common = FlatU64Set();
    // Positions per block: as many as kSiteColumnBytes holds, one at least.
    const uint32_t per_block = static_cast<uint32_t>(
        std::clamp<size_t>(kSiteColumnBytes / (sizeof(uint32_t) * pages_of_site), 1, m));
    // A site holding at least a quarter of the pages its own span covers
    // is read through the mapping in page order; a sparser one page by
    // page out of it (Fetch), so that reading it makes nothing resident.
    const uint64_t span = uint64_t{by_site[e - 1]} - by_site[s] + 1;
    const bool dense = uint64_t{pages_of_site} * 4 >= span;
    // A site larger than one block: its values, position by position, in
    // column files written in one pass over its pages (an I/O error falls
    // back to blocks: the same values, read again).
    std::unique_ptr<TempTables<uint32_t>> columns;
    if (per_block < m && files.env != nullptr) {
      columns = std::make_unique<TempTables<uint32_t>>(m, files, ".robust.site.");
      Status st = columns->Open();
      // A large site's positions are written by several threads, each
      // its own range of columns in one pass over the site's pages.
      const uint32_t writers = site_threads != nullptr && uint64_t{pages_of_site} * m >= kParallelSiteValues
                                   ? static_cast<uint32_t>(site_threads->num_threads()) + 1
                                   : 1;
      std::vector<Status> written(writers);
      if (st.ok()) {
        RunTasks(writers > 1 ? site_threads : nullptr, writers, [&](size_t w) {
          const uint32_t from = static_cast<uint32_t>(m * w / writers), to = static_cast<uint32_t>(m * (w + 1) / writers);
          ResidentPages read(pages);  // one per thread: each releases what it read
          Status& ws = written[w];
          // kColumnBlockPages pages' values at a time, turned into a
          // slice of each column, each slice one append; read out of
          // order, they are read together (FetchManyMins).
          std::vector<uint32_t> block(size_t{kColumnBlockPages} * (to - from));
          std::vector<uint64_t> scratch(dense ? 0 : size_t{kColumnBlockPages} * pages.MinsWords());
          std::vector<const uint32_t*> fetched(kColumnBlockPages);
          for (size_t q0 = 0; ws.ok() && q0 < pages_of_site; q0 += kColumnBlockPages) {
            const size_t count = std::min<size_t>(kColumnBlockPages, pages_of_site - q0);
            if (!dense) {
              pages.FetchManyMins(std::span<const uint32_t>(by_site.data() + s + q0, count), scratch.data(),
                                  fetched.data());
            }
            for (size_t k = 0; k < count; ++k) {
              const uint32_t page = by_site[s + q0 + k];
              const uint32_t* v = dense ? pages.Mins(page) : fetched[k];
              for (uint32_t t = from; t < to; ++t) block[size_t{t - from} * kColumnBlockPages + k] = v[t];
              if (dense) read.Read();
            }
            for (uint32_t t = from; t < to && ws.ok(); ++t) {
              ws = columns->AddMany(t, block.data() + size_t{t - from} * kColumnBlockPages, count);
            }
          }
        });
      }
      for (const Status& ws : written) {
        if (st.ok()) st = ws;
      }
      if (st.ok()) st = columns->Close();
      if (!st.ok()) columns.reset();
    }
    // Positions are looked at on the executor's threads when the site is
    // large and its columns are in files (each task reads its own);
    // otherwise here, in order. Either way each position's verdicts are
    // the same: a copy check depends only on its two pages and `common`.
    Executor* site_executor =
        columns != nullptr && uint64_t{pages_of_site} * m >= kParallelSiteValues ? site_threads : nullptr;
    // Blocks read from the mapping count toward its release only on the
    // thread learning the site; its position tasks on other threads read
    // pages with Fetch.
    const bool map_blocks = dense && site_executor == nullptr;
    // A block read serves every pass over the site's positions (a site of
    // one block reads each page once); ReleaseColumns lets it go at the
    // site's end, so the next site's blocks are its own.
    auto load = [&](uint32_t j, SitePositionScratch* x) {
      if (j >= x->block_first && j < x->block_end) return;
      x->block_first = j / per_block * per_block;
      x->block_end = std::min(m, x->block_first + per_block);
      x->block.resize(size_t{x->block_end - x->block_first} * pages_of_site);
      // Read out of order, kFetchPages pages' values are read together.
      constexpr size_t kFetchPages = 64;
      std::array<const uint32_t*, kFetchPages> fetched;
      if (!map_blocks) x->scratch_a.resize(kFetchPages * pages.MinsWords());
      for (size_t q0 = 0; q0 < pages_of_site; q0 += kFetchPages) {
        const size_t count = std::min(kFetchPages, pages_of_site - q0);
        if (!map_blocks) {
          pages.FetchManyMins(std::span<const uint32_t>(by_site.data() + s + q0, count), x->scratch_a.data(),
                              fetched.data());
        }
        for (size_t q = q0; q < q0 + count; ++q) {
          const uint32_t* v = map_blocks ? pages.Mins(by_site[s + q]) : fetched[q - q0];
          for (uint32_t t = x->block_first; t < x->block_end; ++t) {
            x->block[size_t{t - x->block_first} * pages_of_site + q] = v[t];
          }
          if (map_blocks) resident.Read();
        }
      }
    };
    // The site's pages' values at position j, in the site's page order:
    // from its column file, or else from a block (pass 2 below).
    auto values_at = [&](uint32_t j, SitePositionScratch* x) -> const uint32_t* {
      if (columns) {
        x->values.clear();
        x->values.reserve(pages_of_site);
        const Status read = columns->ForEachChunk(
            j, [&](const uint32_t* values, size_t count) { x->values.insert(x->values.end(), values, values + count); });
        if (read.ok() && x->values.size() == pages_of_site) return x->values.data();
      }
      load(j, x);
      return x->block.data() + size_t{j - x->block_first} * pages_of_site;
    };
    // The site's pages' values at position j, each value's together
    // (GroupByValue), in x->column as (value, index of the page in the
    // site); fn(value, first, end) for each run of equal values [first,
    // end), its pages ascending, the runs in no particular order (what fn
    // finds goes into sets, or is sorted before it is used).
    auto runs_at = [&](uint32_t j, SitePositionScratch* x, const auto& fn) {
      x->column.clear();
      x->column.reserve(pages_of_site);  // no more: doubling would leave up to twice the room
      if (columns) {  // the column file straight into (value, index) pairs
        uint32_t q = 0;
        const Status read = columns->ForEachChunk(j, [&](const uint32_t* values, size_t count) {
          for (size_t k = 0; k < count; ++k, ++q) {
            if (q < pages_of_site) x->column.emplace_back(values[k], q);
          }
        });
        if (!read.ok() || q != pages_of_site) x->column.clear();
      }
      if (x->column.empty()) {
        load(j, x);
        const uint32_t* values = x->block.data() + size_t{j - x->block_first} * pages_of_site;
        for (uint32_t q = 0; q < pages_of_site; ++q) x->column.emplace_back(values[q], q);
      }
      GroupByValue(&x->column, &x->sort_scratch, &x->bucket_counts);  // pages ascending already
      for (size_t a = 0; a < x->column.size();) {
        size_t b = a;
        while (b < x->column.size() && x->column[b].first == x->column[a].first) ++b;
        fn(x->column[a].first, a, b);
        a = b;
      }
    };
    // fn(j, scratch) for every position.
    auto at_each_position = [&](const auto& fn) {
      RunTasks(site_executor, m, [&](size_t j) {
        auto x = scratch_pool.Acquire();
        fn(static_cast<uint32_t>(j), x.get());
        scratch_pool.Release(std::move(x));
      });
    };
    // Each scratch's `found` handed to `take` (in no particular order:
    // they go into sets).
    auto take_found = [&](const auto& take) {
      for (auto& x : scratch_pool.all()) {
        for (uint64_t v : x->found) take(v);
        x->found = {};
      }
    };
    auto for_each_position = [&](const auto& fn, const auto& take) {
      at_each_position(fn);
      take_found(take);
    };
    // A value fewer than `need` pages hold is boilerplate too (a sidebar,
    // a section's template), unless its holders are copies of one item:
    // the holders sampled agree with the first on kCopyContentSimilarity
    // of the positions not shared as the site's common boilerplate. Only
    // the site's own values count, so a site's template does not depend
    // on the other sites. The first holder against the next, the middle
    // and the last (kCopySamples), in that order until one is not a
    // copy: a sidebar of distinct items shows at the first, and the cost
    // stays linear in the site's pages.
    const bool copy_checks = need > options.template_min_pages;
    auto checked = [&](uint32_t j, uint32_t value, size_t a, size_t b) {
      return b - a < need && b - a >= options.template_min_pages && !no_main(j, value);
    };
    // The copy checks of run [a, b) in x->column, (first << 32 | holder)
    // by the pages' indexes in the site, in order: fills out[], returns
    // how many.
    auto samples_of = [&](const SitePositionScratch& x, size_t a, size_t b, uint64_t* out) {
      const size_t samples[kCopySamples] = {a + 1, a + (b - a) / 2, b - 1};
      size_t n = 0;
      for (size_t t = 0; t < kCopySamples; ++t) {
        const size_t k = samples[t];
        if (k <= a || k >= b || (t > 0 && k == samples[t - 1])) continue;
        out[n++] = (uint64_t{x.column[a].second} << 32) | x.column[k].second;
      }
      return n;
    };
    // Run [a, b) of x.column at position j with its copy checks (count 0:
    // none to make).
    auto checked_run = [&](const SitePositionScratch& x, uint32_t j, uint32_t value, size_t a, size_t b) {
      SitePositionScratch::CheckedRun run{(uint64_t{j} << 32) | value, {}, 0, b - a >= site_need, b - a == 2};
      run.count = static_cast<uint32_t>(samples_of(x, a, b, run.samples));
      return run;
    };
    // Of `pairs` (sorted, once each), those whose pages are copies, with
    // kCopy and kOneItem, sorted; no page is read on its own but the
    // few that pass the agreement where no template is seen.
    // Each pair's CopyAgreement comes from the positions' values at its
    // two pages (a task takes a range of the pairs over every position):
    // the positions compared, and those where the two pages hold one
    // value that is not the site's common boilerplate; main-text
    // positions count only when both pages have main text. One item in
    // two templates, by main text: the main texts agree on
    // min_main_similarity of their positions outside the common
    // boilerplate, most of each main text is outside it (the pages' own,
    // not the template's long text blocks), and the main texts agree
    // more than the rest of the pages does (two items in one template
    // agree less there). One item in one template: the two share the
    // site's common boilerplate at some min-hash position (the site's
    // template is seen on them, so what else they share is theirs: pages
    // of other sites' templates copied to one host share none of its
    // own, and there a template and an item cannot be told apart), at
    // least half of the positions lie outside it (pages that are mostly
    // template are told apart by their few other positions only, too few
    // to call them one), the whole pages agree on
    // min_similarity_without_template of those (the bar of two pages
    // with no template known), and their main texts, where both have
    // one, on min_main_similarity (a sidebar or a section's template that
    // two items share leaves their main texts apart). Such holders are
    // one item (kOneItem), as are two where no template is seen
    // (an_edit_apart below) and two of which one holds the other under
    // the same conditions of the site's template (one_holds_other below:
    // a story and its first page); where a value's holders are too few to be the
    // site's template only by its share (a value only two pages of a
    // small site hold) no others count as copies. Most pairs asked about
    // are not copies.
    constexpr uint8_t kCopy = 1, kOneItem = 2;
    std::vector<uint8_t> has_main;  // HasMainText, by index in the site
    auto copies_counted_in = [&](const std::vector<uint64_t>& pairs, auto word, const auto& is_common) {
      using Word = decltype(word);
      using Agreement = CopyAgreement<Word>;
      std::vector<Word> agreement(pairs.size(), 0);
      const size_t tasks = site_executor != nullptr ? static_cast<size_t>(site_executor->num_threads()) + 1 : 1;
      RunTasks(site_executor, tasks, [&](size_t t) {
        auto x = scratch_pool.Acquire();
        const size_t from = pairs.size() * t / tasks, to = pairs.size() * (t + 1) / tasks;
        for (uint32_t j = 0; j < m && from < to; ++j) {
          const bool main_position = j >= options.num_minhashes;
          const Word compared = Agreement::kPositions | (main_position ? Agreement::kMainPositions : 0);
          const Word agreeing = Agreement::kAgreeing | (main_position ? Agreement::kMainAgreeing : 0);
          const uint32_t* values = values_at(j, x.get());
          for (size_t i = from; i < to; ++i) {
            const uint32_t qa = static_cast<uint32_t>(pairs[i] >> 32), qb = static_cast<uint32_t>(pairs[i]);
            if (main_position && (has_main.empty() || !has_main[qa] || !has_main[qb])) continue;
            const uint32_t va = values[qa];
            if (va == values[qb]) {
              if (is_common((uint64_t{j} << 32) | va)) continue;
              agreement[i] += agreeing;
            }
            agreement[i] += compared;
          }
        }
        x->values = {};  // only this pass reads whole columns
        scratch_pool.Release(std::move(x));
      });
      // One item where no template is seen: pages that share none of the
      // site's common boilerplate but agree at kLargePageAgreement of the
      // whole-page positions (a resemblance of about 0.9 or more) and whose
      // difference digests decode (they differ in an edit's worth of
      // shingles, about 58 at most: kRobustDigestCells): a page and its
      // revision on a small site whose template wins no position. The
      // digests tell them from two items of one template copied to a host
      // (no template of the host's own on them either) that agree at 0.95
      // by chance: 84 positions estimate a resemblance of 0.9 within 0.03.
      // Only pairs that pass the agreement read their two records.
      std::vector<uint64_t> record_a, record_b;
      auto an_edit_apart = [&](uint64_t pair) {
        if (pages.digests == nullptr) return false;
        record_a.resize(pages.record_words);
        record_b.resize(pages.record_words);
        const RobustPageView a = pages.Fetch(by_site[s + (pair >> 32)], record_a.data());
        const RobustPageView b = pages.Fetch(by_site[s + static_cast<uint32_t>(pair)], record_b.data());
        return a.digest != nullptr && b.digest != nullptr &&
               DifferenceDigest::DifferenceSize(a.digest, b.digest, kRobustDigestCells,
                                                static_cast<int>(kRobustDigestCells)) >= 0;
      };
      // One holds the other: an excerpt, a story's first or second page
      // beside the whole story on its site (OneHoldsOther outside the
      // site's common boilerplate, its share of the positions counted as
      // boilerplate both hold), where the pair rule would judge
      // containment (ContainmentJudged). Only pairs whose main texts agree
      // on a fifth of their positions read their two shingle counts.
      auto one_holds_other = [&](uint64_t pair, uint32_t whole_agreeing, uint32_t whole_positions,
                                 uint32_t main_agreeing, uint32_t main_positions) {
        const double bar = options.min_main_containment;
        const PositionAgreement whole{whole_agreeing, whole_positions, options.num_minhashes - whole_positions};
        const PositionAgreement main{main_agreeing, main_positions, options.main_minhashes - main_positions};
        if (bar <= 0 || main_positions * kMainTextMinShare < options.main_minhashes ||
            main_agreeing * 5 < main_positions || !ContainmentJudged(whole, main, /*same_site=*/true)) {
          return false;
        }
        RobustPageView a, b;
        pages.FetchShingleCounts(by_site[s + (pair >> 32)], &a);
        pages.FetchShingleCounts(by_site[s + static_cast<uint32_t>(pair)], &b);
        return OneHoldsOther(whole, main, a, b, bar);
      };
      // Titled as one: both pages have a title and their titles do not
      // name two items (TitlesNameTwoItems); false without compare_titles.
      std::array<uint64_t, kRobustTitleWords> title_a{}, title_b{};
      auto titled_as_one = [&](uint64_t pair) {
        if (!options.compare_titles || pages.titles == nullptr) return false;
        const uint64_t* ta = pages.FetchTitle(by_site[s + (pair >> 32)], title_a.data());
        const uint64_t* tb = pages.FetchTitle(by_site[s + static_cast<uint32_t>(pair)], title_b.data());
        return ta[0] != 0 && tb[0] != 0 &&
               !TitlesNameTwoItems(ta, tb, options.title_numbers, options.title_function_words);
      };
      std::vector<std::pair<uint64_t, uint8_t>> copies;
      for (size_t i = 0; i < pairs.size(); ++i) {
        const Word c = agreement[i];
        const uint32_t positions = Agreement::positions(c), agreeing = Agreement::agreeing(c);
        const uint32_t main_positions = Agreement::main_positions(c);
        const uint32_t main_agreeing = Agreement::main_agreeing(c);
        const uint32_t whole_positions = positions - main_positions, whole_agreeing = agreeing - main_agreeing;
        const bool main_alike =
            main_positions > 0 && static_cast<double>(main_agreeing) / main_positions >= options.min_main_similarity;
        const bool two_templates = main_alike && pages_of_site >= kMainCopySitePages &&
                                   main_positions * 2 >= options.main_minhashes &&
                                   uint64_t{main_agreeing} * whole_positions > uint64_t{whole_agreeing} * main_positions;
        const uint32_t template_shared = options.num_minhashes - whole_positions;
        // One item on a site of fewer than kMainCopySitePages pages, where
        // main texts cannot tell a template's long blocks from an item (no
        // two-template rule there): the test of two pages alone on a site
        // (whole pages alike at min_similarity_without_template, the
        // boilerplate they share counted; main texts at
        // min_main_similarity, most of their positions outside the common
        // boilerplate), the two titled as one (titled_as_one). An article
        // and its revision on a site of three to five pages, which the
        // one-template rule asks to agree at 0.8 outside the site's
        // template, a headline, a sentence and a correction apart.
        const bool small_site = pages_of_site < kMainCopySitePages;
        const bool one_template = template_shared > 0 &&
                                  whole_positions * 2 >= options.num_minhashes &&
                                  static_cast<double>(whole_agreeing) / whole_positions >=
                                      options.min_similarity_without_template &&
                                  (main_positions == 0 || main_alike);
        const bool one_item =
            two_templates || one_template ||
            (template_shared == 0 && whole_agreeing >= kLargePageAgreement * options.num_minhashes &&
             (main_positions == 0 || main_alike) && an_edit_apart(pairs[i])) ||
            (template_shared > 0 && whole_positions * 2 >= options.num_minhashes && main_positions > 0 &&
             one_holds_other(pairs[i], whole_agreeing, whole_positions, main_agreeing, main_positions)) ||
            (small_site && main_alike && main_positions * 2 >= options.main_minhashes &&
             whole_agreeing + template_shared >= options.min_similarity_without_template * options.num_minhashes &&
             titled_as_one(pairs[i]));
        if (one_item || positions == 0 || static_cast<double>(agreeing) / positions >= kCopyContentSimilarity) {
          copies.emplace_back(pairs[i], kCopy | (one_item ? kOneItem : 0));
        }
      }
      return copies;
    };
    // Pages of up to 255 positions count in a 32-bit word a pair, longer
    // ones in 64 bits.
    // is_common(position << 32 | value): what the agreement leaves out
    // (the site's common boilerplate unless said otherwise).
    auto copies_among = [&](const std::vector<uint64_t>& pairs, const auto& is_common) {
      return m <= CopyAgreement<uint32_t>::kMaxPositions ? copies_counted_in(pairs, uint32_t{0}, is_common)
                                                         : copies_counted_in(pairs, uint64_t{0}, is_common);
    };
    auto in_common = [&](uint64_t key) { return common.Contains(key); };
    // Whether `pair` is a copy by copies_among's answer (one item, by the
    // stricter rule, where site_need pages or more hold the value).
    auto copy_of = [&](const std::vector<std::pair<uint64_t, uint8_t>>& copies, uint64_t pair, bool one_item_only) {
      const auto it = std::lower_bound(copies.begin(), copies.end(), std::make_pair(pair, uint8_t{0}));
      return it != copies.end() && it->first == pair && (it->second & (one_item_only ? kOneItem : kCopy)) != 0;
    };
    // Pass 1: the common boilerplate, the first copy check of each rarer
    // value (its run kept for pass 2), and which pages have main text.
    const bool versions_checked = need <= kMaxItemVersions;
    if ((copy_checks || versions_checked) && options.main_minhashes > 0) has_main.assign(pages_of_site, 0);
    CopyRequests requests, pair_requests;
    for_each_position(
        [&](uint32_t j, SitePositionScratch* x) {
          runs_at(j, x, [&](uint32_t value, size_t a, size_t b) {
            if (b - a >= need && !no_main(j, value)) {
              const uint64_t key = (uint64_t{j} << 32) | value;
              x->found.push_back(key);
              if (versions_checked && b - a <= kMaxItemVersions) {
                x->few_holders.emplace_back(key, static_cast<uint32_t>(b - a));
                if (b - a < pages_of_site) {
                  SitePositionScratch::VersionCheck c{key, static_cast<uint32_t>(b - a), 0, {}};
                  c.count = static_cast<uint32_t>(samples_of(*x, a, b, c.samples));
                  x->version_checks.push_back(c);
                }
              }
            } else if (copy_checks && checked(j, value, a, b)) {
              const SitePositionScratch::CheckedRun run = checked_run(*x, j, value, a, b);
              if (run.count > 0) {
                x->KeepCheckedRun(run);
                if (run.two_holders) {
                  x->pair_requests.push_back(run.samples[0]);
                  if (x->pair_requests.size() >= CopyRequests::kBatch) pair_requests.Add(&x->pair_requests);
                } else if (!AskedRecently(&x->recent_requests, recent_slots, run.samples[0])) {
                  x->requests.push_back(run.samples[0]);
                  if (x->requests.size() >= CopyRequests::kBatch) requests.Add(&x->requests);
                }
              }
            }
          });
          if (!has_main.empty() && j == options.num_minhashes) {  // HasMainText: this position only
            for (const auto& [value, q] : x->column) has_main[q] = value != kNoMainText;
          }
        },
        [&](uint64_t v) { common.Insert(v); });
    std::vector<SitePositionScratch::VersionCheck> version_checks;
    std::vector<std::pair<uint64_t, uint32_t>> few_holders;
    for (auto& x : scratch_pool.all()) {
      requests.Add(&x->requests);
      pair_requests.Add(&x->pair_requests);
      x->recent_requests = {};  // the next site's indexes are its own
      version_checks.insert(version_checks.end(), x->version_checks.begin(), x->version_checks.end());
      few_holders.insert(few_holders.end(), x->few_holders.begin(), x->few_holders.end());
      x->version_checks = {};
      x->few_holders = {};
    }
    if (version_checks.empty()) {
      common.ForEach(keep);
    } else {
      // Versions of one item (kMaxItemVersions): a value that h pages hold,
      // not all the site's, is content when its first holder and the next,
      // the middle and the last are one item (kOneItem), their agreement
      // counted outside the common values more than h pages hold (the
      // site's template, not the item's own text). Any other common value
      // is boilerplate.
      FlatU64Set pending;
      for (const auto& c : version_checks) pending.Insert(c.value);
      common.ForEach([&](uint64_t v) {
        if (!pending.Contains(v)) keep(v);
      });
      std::sort(few_holders.begin(), few_holders.end(),
                [](const auto& x, const auto& y) { return x.second < y.second; });
      FlatU64Set held_by_few;  // the common values h pages or fewer hold
      size_t few = 0;
      std::sort(version_checks.begin(), version_checks.end(), [](const auto& x, const auto& y) {
        return x.holders != y.holders ? x.holders < y.holders : x.value < y.value;
      });
      for (size_t g = 0; g < version_checks.size();) {
        const uint32_t h = version_checks[g].holders;
        size_t e = g;
        std::vector<uint64_t> pairs;
        for (; e < version_checks.size() && version_checks[e].holders == h; ++e) {
          pairs.insert(pairs.end(), version_checks[e].samples, version_checks[e].samples + version_checks[e].count);
        }
        std::sort(pairs.begin(), pairs.end());
        pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
        for (; few < few_holders.size() && few_holders[few].second <= h; ++few) {
          held_by_few.Insert(few_holders[few].first);
        }
        const auto held_by_more = [&](uint64_t key) { return common.Contains(key) && !held_by_few.Contains(key); };
        const std::vector<std::pair<uint64_t, uint8_t>> versions = copies_among(pairs, held_by_more);
        for (; g < e; ++g) {
          const auto& c = version_checks[g];
          bool one_item = c.count > 0;
          for (uint32_t t = 0; t < c.count && one_item; ++t) one_item = copy_of(versions, c.samples[t], true);
          if (!one_item) keep(c.value);
        }
      }
    }
    std::vector<std::pair<uint64_t, uint8_t>> copies = copies_among(requests.Take(), in_common);
    // Pass 2: a run whose first sample is not a copy is boilerplate; one
    // whose first is and that has more samples waits for them. The runs
    // are pass 1's as kept, or (too many kept) found again.
    struct Undecided {
      uint64_t value;  // position << 32 | value
      uint64_t samples[kCopySamples - 1];
      uint32_t count;  // samples left
      bool one_item_only;
    };
    std::vector<Undecided> undecided;
    std::mutex undecided_mu;
    auto check_run = [&](const SitePositionScratch::CheckedRun& run, std::vector<uint64_t>* found,
                         std::vector<Undecided>* waiting) {
      if (!copy_of(copies, run.samples[0], run.one_item_only)) {
        found->push_back(run.value);
      } else if (run.count > 1) {
        waiting->push_back(Undecided{run.value, {run.samples[1], run.count > 2 ? run.samples[2] : 0}, run.count - 1,
                                     run.one_item_only});
      }
    };
    bool runs_kept = true;
    for (auto& x : scratch_pool.all()) runs_kept = runs_kept && !x->checked_runs_dropped;
    if (copy_checks && runs_kept) {
      for (auto& x : scratch_pool.all()) {
        for (const auto& run : x->checked_runs) {
          if (!run.two_holders) check_run(run, &x->found, &undecided);
        }
      }
    } else if (copy_checks) {
      at_each_position([&](uint32_t j, SitePositionScratch* x) {
        std::vector<Undecided> waiting;
        runs_at(j, x, [&](uint32_t value, size_t a, size_t b) {
          if (!checked(j, value, a, b) || b - a == 2) return;
          const SitePositionScratch::CheckedRun run = checked_run(*x, j, value, a, b);
          if (run.count > 0) check_run(run, &x->found, &waiting);
        });
        std::lock_guard<std::mutex> lock(undecided_mu);
        undecided.insert(undecided.end(), waiting.begin(), waiting.end());
      });
    }
    // Pass 3: the other samples of the runs waiting, checked together.
    // What passes 2 and 3 find (values three pages or more hold, whose
    // holders are distinct items: a section's sidebar) is left out of the
    // agreement of pass 4.
    FlatU64Set wider;
    if (!undecided.empty()) {
      for (const Undecided& u : undecided) requests.Add({u.samples, u.count});
      copies = copies_among(requests.Take(), in_common);
      for (const Undecided& u : undecided) {
        for (uint32_t t = 0; t < u.count; ++t) {
          if (!copy_of(copies, u.samples[t], u.one_item_only)) {
            keep(u.value);
            wider.Insert(u.value);
            break;
          }
        }
      }
    }
    // Pass 4: values two pages hold, their holders' agreement counted
    // outside the site's common boilerplate and outside the boilerplate
    // that passes 2 and 3 found among values more pages hold. Two distinct
    // items that share a section's sidebar also share values of it that
    // no third page holds (where each one's own text is too short to win
    // the position); counted with the sidebar, such a pair would read as
    // one item, and those values as its content.
    std::vector<uint64_t> pairs_asked = pair_requests.Take();
    if (copy_checks && !pairs_asked.empty()) {
      for (auto& x : scratch_pool.all()) {
        for (uint64_t v : x->found) wider.Insert(v);
      }
      const auto in_common_or_wider = [&](uint64_t key) { return in_common(key) || wider.Contains(key); };
      copies = copies_among(pairs_asked, in_common_or_wider);
      pairs_asked = {};
      if (runs_kept) {
        for (auto& x : scratch_pool.all()) {
          for (const auto& run : x->checked_runs) {
            if (run.two_holders && !copy_of(copies, run.samples[0], run.one_item_only)) x->found.push_back(run.value);
          }
        }
      } else {
        at_each_position([&](uint32_t j, SitePositionScratch* x) {
          runs_at(j, x, [&](uint32_t value, size_t a, size_t b) {
            if (!checked(j, value, a, b) || b - a != 2) return;
            const SitePositionScratch::CheckedRun run = checked_run(*x, j, value, a, b);
            if (run.count > 0 && !copy_of(copies, run.samples[0], run.one_item_only)) x->found.push_back(run.value);
          });
        });
      }
    }
    // The site's buffers go before the boilerplate set grows.
    undecided = {};
    copies = {};
    size_t found = 0;
    for (auto& x : scratch_pool.all()) {
      x->ReleaseColumns();
      found += x->found.size();
    }
    if (into_values) values_.Reserve(values_.size() + found);  // each (position, value) is found once
    take_found(keep);
  };
  // Sites from template_min_pages pages on. One of kParallelSiteValues
  // values or more (its positions looked at on several threads; the only
  // ones whose columns may go to files, whose names a site holds alone) is
  // learned by itself, the others several at once, a run of sites of about
  // kSmallSitesPagesPerTask pages a task: a site's template depends only on
  // its own pages, so the boilerplate is the same in any order.
  const auto make_work = [&] { return std::make_unique<SiteWork>(pages); };
  WorkPool<SiteWork> works(make_work);
  std::vector<std::pair<size_t, size_t>> small_sites;  // [s, e) in by_site
  std::vector<size_t> task_first;  // small_sites' index of each task's first site
  size_t task_pages = 0;
  for (size_t s = 0; s < by_site.size();) {
    size_t e = s;
    const uint64_t site = pages.site[by_site[s]];
    while (e < by_site.size() && pages.site[by_site[e]] == site) ++e;
    if (e - s >= options.template_min_pages) {
      known_sites_.Insert(site);
      if (uint64_t{e - s} * m >= kParallelSiteValues) {
        std::unique_ptr<SiteWork> w = works.Acquire();
        learn_site(s, e, w.get(), executor, /*into_values=*/true);
        w->MoveSitesInto(&one_text_sites_, &two_titles_sites_);
        works.Release(std::move(w));
      } else {
        if (task_first.empty() || task_pages >= kSmallSitesPagesPerTask) {
          task_first.push_back(small_sites.size());
          task_pages = 0;
        }
        small_sites.emplace_back(s, e);
        task_pages += e - s;
      }
    }
    s = e;
  }
  // A task's boilerplate goes into the set under a lock, whenever it holds
  // kLearnedFlush values and at the task's end.
  std::mutex values_mu;
  auto flush = [&](SiteWork* w) {
    std::lock_guard<std::mutex> lock(values_mu);
    values_.Reserve(values_.size() + w->learned.size());
    for (uint64_t v : w->learned) values_.Insert(v);
    w->learned.clear();
    w->MoveSitesInto(&one_text_sites_, &two_titles_sites_);
  };
  RunTasks(executor, task_first.size(), [&](size_t t) {
    std::unique_ptr<SiteWork> w = works.Acquire();
    const size_t end = t + 1 < task_first.size() ? task_first[t + 1] : small_sites.size();
    for (size_t k = task_first[t]; k < end; ++k) {
      learn_site(small_sites[k].first, small_sites[k].second, w.get(), nullptr, /*into_values=*/false);
      if (w->learned.size() >= kLearnedFlush) flush(w.get());
    }
    flush(w.get());
    works.Release(std::move(w));
  });
  pages.ReleaseResident();
  filter_ = WordFilter(values_.size());
  values_.ForEach([&](uint64_t v) { filter_.Add(v); });
}

uint32_t SiteTemplates::TemplateHolders(uint32_t site_pages, const RobustMethodOptions& options) {
  const double share = std::ceil(options.template_site_fraction * site_pages - 1e-9);
  return std::max(options.template_min_pages, static_cast<uint32_t>(share));
}

namespace {

// SiteTemplates::Compare with is_template(j, value, from_a) telling
// boilerplate (from_a: the value is page a's) and main_order (null: no
// main-text position is left out).
template <typename IsTemplateFn>
SiteTemplates::Match CompareWith(const uint32_t* a, const uint32_t* b, const RobustMethodOptions& options,
                                 const MainTextOrder* main_order, const IsTemplateFn& is_template) {
  SiteTemplates::Match r;
  const uint32_t m = options.num_minhashes;
  for (uint32_t j = 0; j < m; ++j) {
    if (a[j] == b[j]) {
      if (is_template(j, a[j], true)) {
        ++r.template_shared;
        continue;
      }
      ++r.agreeing;
    }
    ++r.positions;
  }
  if (!HasMainText(a, options) || !HasMainText(b, options)) return r;
  for (uint32_t j = m; j < options.positions(); ++j) {
    if (a[j] == b[j]) {
      if (is_template(j, a[j], true)) {
        ++r.main_template_shared;
        continue;
      }
      ++r.main_agreeing;
    } else if (main_order != nullptr) {
      const uint32_t least = main_order->Least(j - m, a[j], b[j]);
      r.main_boilerplate_alone += is_template(j, least, least == a[j]);
    }
    ++r.main_positions;
  }
  return r;
}

}  // namespace

SiteTemplates::Match SiteTemplates::Compare(const uint32_t* a, const uint32_t* b,
                                            const RobustMethodOptions& options) const {
  // Without boilerplate no position is left out: the order is not needed.
  const MainTextOrder* order = values_.empty() ? nullptr : main_order_.get();
  return CompareWith(a, b, options, order, [&](uint32_t j, uint32_t value, bool) {
    return !values_.empty() && IsTemplate(j, value);
  });
}

SiteTemplates::Match SiteTemplates::CompareMasked(const uint32_t* a, const uint32_t* b, const uint64_t* a_mask,
                                                   const uint64_t* b_mask, const MainTextOrder* main_order,
                                                   const RobustMethodOptions& options) {
  return CompareWith(a, b, options, main_order, [&](uint32_t j, uint32_t, bool from_a) {
    const uint64_t* mask = from_a ? a_mask : b_mask;
    return ((mask[j / 64] >> (j % 64)) & 1) != 0;
  });
}

MainTextOrder::MainTextOrder(const RobustMethodOptions& options) : sketcher_(RobustMainSketchOptions(options)) {
  NEARDUP_CHECK(AppliesTo(options));
}

MainContainment EstimateMainContainment(const SiteTemplates::Match& r, uint32_t a_shingles, uint32_t b_shingles) {
  return EstimateContainment(r.main_agreeing, r.main_positions, r.main_template_shared, a_shingles, b_shingles);
}

MainContainment EstimateContainment(uint32_t agreeing, uint32_t positions, uint32_t template_shared,
                                    uint32_t a_shingles, uint32_t b_shingles) {
  MainContainment c;
  if (positions == 0 || a_shingles == 0 || b_shingles == 0) return c;
  const double n = static_cast<double>(positions) + template_shared;
  const double k = agreeing / n, t = template_shared / n;
  const double s = std::min(a_shingles, b_shingles), l = std::max(a_shingles, b_shingles);
  // The smaller text's own part (s less the boilerplate both hold,
  // t |A u B|), times (1 + k + t) = (s + l) / |A u B|.
  const double own = s + k * s - t * l;
  if (own <= 0) return c;
  // c = k (s + l) / own. Its error through dc/dk = (s + l)(s - t l) / own^2
  // and dc/dt = k (s + l) l / own^2 from the multinomial errors of k and t
  // over the n positions (variances k (1 - k) / n and t (1 - t) / n,
  // covariance -k t / n); at t = 0 this is Broder's estimate's error through
  // dC/dJ = (s + l) / (s (1 + J)^2).
  c.value = std::min(1.0, k * (s + l) / own);
  const double dk = (s + l) * (s - t * l) / (own * own);
  const double dt = k * (s + l) * l / (own * own);
  const double variance = dk * dk * k * (1 - k) + dt * dt * t * (1 - t) - 2 * dk * dt * k * t;
  c.error = std::sqrt(std::max(0.0, variance) / n);
  return c;
}

PairDecision RobustDecide(const SiteTemplates& templates, const RobustPageView& a, const RobustPageView& b,
                          const RobustMethodOptions& options, SiteTemplates::Match* match, bool with_reason) {
  const SiteTemplates::Match r = templates.Compare(a.mins, b.mins, options);
  if (match) *match = r;
  return RobustDecideMatched(r, a, b, templates.KnowsTemplateOf(a.site), options, with_reason);
}

PairDecision RobustDecideMatched(const SiteTemplates::Match& r, const RobustPageView& a, const RobustPageView& b,
                                 bool site_template_known, const RobustMethodOptions& options, bool with_reason) {
  PairDecision d;
  d.similarity = r.similarity();
  const bool same_site = a.site == b.site;
  char buf[256];
  // Main text (RobustMethodOptions::main_minhashes): one article in two
  // templates, across sites, or on one site whose template is known (two
  // editions of a newspaper group; its boilerplate is then left out of
  // the main texts too). Only when enough of the main-text positions are
  // not boilerplate (a short item in a long site text is left to the rules
  // below). Main texts that differ show two items: on different sites, and
  // on one site whose template is known, where the whole pages' positions
  // outside the learned boilerplate still hold what the template's values
  // did not win (its long blocks on a short page) and agree at the low
  // `content` bar.
  const bool main_known = options.main_minhashes > 0 && r.main_positions * kMainTextMinShare >= options.main_minhashes;
  const bool main_rule = main_known && (!same_site || site_template_known);
  const bool main_differs = main_rule && r.main_similarity() < options.min_main_similarity;
  // With digests, pages whose shingle sets differ in an edit's worth are
  // similar whatever else.
  uint32_t limit = same_site ? options.max_same_site_edit_shingles : options.max_edit_shingles;
  const uint32_t fixed_limit = limit;
  if (limit > 0) limit = std::max(limit, std::min(a.shingles, b.shingles) / kEditShareOfPage);
  const bool with_digests = a.digest != nullptr && b.digest != nullptr && limit > 0;
  // Why the digests' edit did not decide where it would have: titles that
  // name two items by their numbers (TitlesNameTwoNumbers: two records of
  // a database, two bugs) are not one item edited, however few shingles
  // apart (titles_decide): a record's template holds nearly all its text,
  // and a copy on another host keeps its item's number.
  std::string numbers_note;
  if (with_digests) {
    const int differing =
        DifferenceDigest::DifferenceSize(a.digest, b.digest, kRobustDigestCells, static_cast<int>(limit));
    // Past the fixed limit (the page's share), not where the main texts
    // show two items: two sister sites' long template around short items.
    if (differing >= 0 && (static_cast<uint32_t>(differing) <= fixed_limit || !main_differs)) {
      const bool titles_name_numbers = options.compare_titles && options.titles_decide && options.title_numbers &&
                                       a.title != nullptr && b.title != nullptr &&
                                       TitlesNameTwoNumbers(a.title, b.title);
      if (!titles_name_numbers) {
        d.duplicate = true;
        if (with_reason) {
          std::snprintf(buf, sizeof buf, "the pages differ in %d shingles, an edit (at most %u %s)", differing,
                        limit, same_site ? "on one site" : "across sites");
          d.reason = buf;
        }
        return d;
      }
      if (with_reason) {
        numbers_note = "; " + std::to_string(differing) +
                       " shingles apart, an edit's worth, but their titles name two items by their numbers";
      }
    }
  }
  const bool main_passes =
      main_known && (!same_site || site_template_known) && r.main_similarity() >= options.min_main_similarity;
  // Containment of the smaller main text in the larger
  // (RobustMethodOptions::min_main_containment).
  const MainContainment contained =
      main_known && (!same_site || site_template_known) && options.min_main_containment > 0
          ? EstimateMainContainment(r, a.main_shingles, b.main_shingles)
          : MainContainment();
  // A page that excerpts another shares its text, not its template: pages
  // whose whole pages agree more than their main texts share what is
  // around their items (a template whose long blocks read as main text),
  // and containment is not judged, unless they are of one site whose
  // template shows only around their main texts (ContainmentJudged).
  const bool containment_passes =
      ContainmentPasses(contained, options.min_main_containment) &&
      ContainmentJudged(PositionAgreement{r.agreeing, r.positions, r.template_shared},
                        PositionAgreement{r.main_agreeing, r.main_positions, r.main_template_shared}, same_site);
  auto main_text_note = [&](bool decided) {
    if (!main_known) return std::string();
    char note[256];
    std::snprintf(note, sizeof note, "%s%u of %u main-text positions outside the boilerplate agree (%.2f %s %.2f)",
                  decided ? "" : "; main text: ", r.main_agreeing, r.main_positions - r.main_boilerplate_alone,
                  r.main_similarity(), r.main_similarity() >= options.min_main_similarity ? ">=" : "<",
                  options.min_main_similarity);
    std::string out(note);
    if (r.main_boilerplate_alone > 0) {
      std::snprintf(note, sizeof note, " (%u more won by one page's boilerplate, left out)", r.main_boilerplate_alone);
      out += note;
    }
    return out;
  };
  // Why containment did not decide a pair it was asked about.
  auto containment_note = [&]() {
    if (!contained.known()) return std::string();
    char note[400];
    std::snprintf(note, sizeof note,
                  "; the smaller main text contained in the larger: %.2f (+/- %.2f; %.2f needed at +/- %.2f or less)",
                  contained.value, contained.error, options.min_main_containment, kMaxContainmentError);
    std::string out(note);
    if (ContainmentPasses(contained, options.min_main_containment) && !containment_passes) {
      const std::string why =
          same_site ? "their site's template does not show only around the main texts (positions of its "
                      "boilerplate both hold: whole pages " + std::to_string(r.template_shared) + ", main texts " +
                          std::to_string(r.main_template_shared) + ")"
                    : std::string("the pages are of different sites");
      std::snprintf(note, sizeof note, ", not judged: the whole pages agree more than the main texts (%.2f > %.2f) and %s",
                    r.similarity(), r.main_similarity(), why.c_str());
      out += note;
    }
    return out;
  };
  auto decide_by_containment = [&]() {
    d.duplicate = true;
    d.similarity = contained.value;
    if (with_reason) {
      char note[256];
      std::snprintf(note, sizeof note,
                    ", the smaller main text contained in the larger: %.2f of its shingles (+/- %.2f; %.2f needed), "
                    "from %u of %u main-text positions agreeing and %u and %u distinct main-text shingles",
                    contained.value, contained.error, options.min_main_containment, r.main_agreeing,
                    r.main_positions, a.main_shingles, b.main_shingles);
      d.reason = std::string(same_site ? "one site, its template known" : "different sites") + note;
    }
    return d;
  };
  auto decide_by_main_text = [&]() {
    d.duplicate = true;
    d.similarity = r.main_similarity();
    if (with_reason) {
      d.reason = std::string(same_site ? "one site, its template known" : "different sites") + ", the same main text: " +
                 main_text_note(true);
    }
    return d;
  };
  if (same_site && !site_template_known) {
    if (with_reason) {
      std::snprintf(buf, sizeof buf,
                    "same site, %s, and the site's template is unknown (fewer than %u distinct pages)",
                    numbers_note.empty() ? ("more than " + std::to_string(limit) + " shingles apart").c_str()
                                         : "no edit",
                    options.template_min_pages);
      d.reason = buf;
      d.reason += numbers_note;
    }
    return d;
  }
  // Large pages alike at nearly every position (kLargePageShingles), unless
  // on different sites their main texts differ.
  if (std::min(a.shingles, b.shingles) >= kLargePageShingles && !main_differs &&
      r.agreeing + r.template_shared >= kLargePageAgreement * options.num_minhashes) {
    d.duplicate = true;
    d.similarity = static_cast<double>(r.agreeing + r.template_shared) / options.num_minhashes;
    if (with_reason) {
      std::snprintf(buf, sizeof buf,
                    "large pages (%u and %u distinct shingles, %u or more each) agree at %u of %u min-hash "
                    "positions, boilerplate or not (%.2f >= %.2f)",
                    a.shingles, b.shingles, kLargePageShingles, r.agreeing + r.template_shared,
                    options.num_minhashes, d.similarity, kLargePageAgreement);
      d.reason = buf;
    }
    return d;
  }
  // Sketches that agree only on boilerplate: without digests the pages are
  // taken as both being the template; with them, the digests said the pages
  // differ in more than an edit (a main item too small to win a min-hash
  // position), so they are not near duplicates.
  if (r.positions == 0) {
    if (with_digests && main_passes) return decide_by_main_text();
    d.duplicate = !with_digests;
    if (with_reason) {
      d.reason = !with_digests ? "both pages are their site's boilerplate only"
                 : numbers_note.empty()
                     ? "they agree only on boilerplate and differ in more than an edit: different main items"
                     : "they agree only on boilerplate and are no edit: different main items";
      d.reason += numbers_note;
      d.reason += main_text_note(false);
      if (contained.known()) d.reason += "; containment is not judged where the pages agree only on boilerplate";
    }
    return d;
  }
  // Titles decide where the values cannot (titles_decide):
  // pages of one known template (boilerplate both hold) whose titles name
  // two items (TitlesNameTwoItems) are two items when their values leave
  // too little to tell, or tell too close to call. Too little: their own
  // parts are too small for their main texts to be judged (fewer than 1 /
  // kMainTextMinShare of the main-text positions outside the boilerplate)
  // and hold fewer than that share of the whole pages' positions, a
  // handful of values where one page's edit lets a template value its site
  // never saw win (a home page and the copy of an article under it agree
  // at 2 of 7). Too close: every rule that would pass them passes within
  // one standard error of its bar (a binomial estimate's over its
  // positions; containment's own), where a block of the template that the
  // site did not learn tips the count. The title is the one place where a
  // page names its item.
  auto titles_name_two = [&]() {
    return options.compare_titles && options.titles_decide && a.title != nullptr && b.title != nullptr &&
           r.template_shared > 0 &&
           TitlesNameTwoItems(a.title, b.title, options.title_numbers, options.title_function_words);
  };
  auto two_items_by_titles = [&](const char* why) {
    d.duplicate = false;
    if (with_reason) {
      std::snprintf(buf, sizeof buf,
                    "their titles name two items, and %s: %u of %u min-hash positions outside the boilerplate agree",
                    why, r.agreeing, r.positions);
      d.reason = buf;
      d.reason += numbers_note;
      d.reason += main_text_note(false);
      d.reason += containment_note();
    }
    return d;
  };
  if (!main_known && r.positions * kMainTextMinShare < options.num_minhashes && titles_name_two()) {
    char why[160];
    std::snprintf(why, sizeof why,
                  "the pages are one template with too little of their own to tell (fewer than 1/%u of the %u "
                  "positions are outside its boilerplate)",
                  kMainTextMinShare, options.num_minhashes);
    return two_items_by_titles(why);
  }
  // No boilerplate known on either page: the whole pages are compared, and
  // two pages of one template with different items must not pass.
  // Pages that agree while their main texts do not are one template around
  // different items (Henzinger's false positives: two papers of one group,
  // a scraper's copies of two items, two pages of one site): the main text
  // decides.
  const double need = r.template_shared > 0 ? options.min_content_similarity : options.min_similarity_without_template;
  const bool whole_pages = r.template_shared == 0;
  d.duplicate = r.similarity() >= need && !main_differs;
  if ((d.duplicate || main_passes || containment_passes) && titles_name_two()) {
    // Over the bar by less than its standard error there (n positions).
    auto close = [](double estimate, double bar, uint32_t n) {
      return n == 0 || estimate - bar < std::sqrt(bar * (1 - bar) / n);
    };
    const bool content_clear = d.duplicate && !close(r.similarity(), need, r.positions);
    const bool main_clear = main_passes && !close(r.main_similarity(), options.min_main_similarity,
                                                  r.main_positions - r.main_boilerplate_alone);
    const bool containment_clear =
        containment_passes && contained.value - contained.error >= options.min_main_containment;
    if (!content_clear && !main_clear && !containment_clear) {
      return two_items_by_titles("every rule that passes them passes within one standard error of its bar");
    }
  }
  if (!d.duplicate && main_passes) return decide_by_main_text();
  if (!d.duplicate && containment_passes) return decide_by_containment();
  if (!with_reason) return d;
  std::snprintf(buf, sizeof buf, "%u of %u min-hash positions outside the boilerplate agree (%.2f %s %.2f%s)",
                r.agreeing, r.positions, r.similarity(), r.similarity() >= need ? ">=" : "<", need,
                whole_pages ? "; no boilerplate known, whole pages compared" : "");
  d.reason = buf;
  if (r.similarity() >= need && main_differs) {
    d.reason += ", but their main texts differ: " + main_text_note(true);
  } else {
    d.reason += main_text_note(false);
  }
  d.reason += containment_note();
  d.reason += numbers_note;
  return d;
}

Result<RobustStageResult> RunRobustStage(const RobustPages& pages, std::span<const uint8_t> candidate,
                                         const RobustMethodOptions& options, uint32_t max_bucket_pages,
                                         bool collect_pairs, const RobustStageFiles& files, SiteTemplates* templates,
                                         UnionFind* uf, Executor* executor, uint64_t tables_memory_bytes) {
  RobustStageResult result;
  Stopwatch watch;
  const uint32_t bands = RobustBandCount(options, true);
  *templates = SiteTemplates(pages, candidate, options, files, executor);
  result.template_values = templates->size();
  result.templates_seconds = watch.Lap();

  // Tables 0 .. bands - 1: (band key, page) for every band holding a
  // non-boilerplate value. Then the whole-page bands: pages almost equal
  // everywhere (an inserted line, a word changed) share one of
  // m / kRobustWholeBandRows bands of consecutive values even where every
  // value is boilerplate (as happens when a few near copies of a page are
  // all a site holds of it). Big buckets of those (a template-heavy site
  // whose items are tiny) are checked against their first page only.
  const uint32_t whole_count = RobustWholeBandCount(options);
  // The candidates are cut into one range of pages a thread, each written
  // to tables of its own; table t is then the ranges' tables t together.
  const uint32_t parts = executor != nullptr ? static_cast<uint32_t>(executor->num_threads()) + 1 : 1;
  std::vector<std::unique_ptr<TempTables<BandEntry>>> part_tables(parts);
  for (uint32_t c = 0; c < parts; ++c) {
    part_tables[c] = std::make_unique<TempTables<BandEntry>>(
        bands + whole_count, files, ".robust.table." + (parts > 1 ? std::to_string(c) + "." : std::string()));
    NEARDUP_RETURN_IF_ERROR(part_tables[c]->Open());
  }
  std::vector<Status> part_status(parts);
  std::vector<uint64_t> part_candidates(parts, 0), part_skipped(parts, 0);
  const size_t n = candidate.size();
  RunTasks(executor, parts, [&](size_t c) {
    TempTables<BandEntry>& tables = *part_tables[c];
    const size_t begin = n * c / parts, end = n * (c + 1) / parts;
    InOrderMins in_order(pages, static_cast<uint32_t>(end));
    auto add_page = [&](uint32_t i) -> Status {
      const uint32_t* v = in_order.Mins(i);
      const uint32_t usable_bands = RobustBandCount(options, HasMainText(v, options));
      for (uint32_t band = 0; band < usable_bands; ++band) {
        if (RobustBandIsBoilerplate(*templates, options, v, band)) {
          ++part_skipped[c];
          continue;
        }
        const uint64_t key = XXH3_64bits_withSeed(v + RobustBandFirst(options, band),
                                                  RobustBandRows(options, band) * sizeof(uint32_t), band + 1);
        NEARDUP_RETURN_IF_ERROR(tables.Add(band, BandEntry{key, i}));
      }
      for (uint32_t w = 0; w < whole_count; ++w) {
        const uint32_t first = w * kRobustWholeBandRows;
        const uint64_t key = XXH3_64bits_withSeed(v + first, kRobustWholeBandRows * sizeof(uint32_t), 1000 + first);
        NEARDUP_RETURN_IF_ERROR(tables.Add(bands + w, BandEntry{key, i}));
      }
      return Status::OK();
    };
    for (size_t i = begin; i < end && part_status[c].ok(); ++i) {
      if (!candidate[i]) continue;
      ++part_candidates[c];
      part_status[c] = add_page(static_cast<uint32_t>(i));
    }
    if (part_status[c].ok()) part_status[c] = tables.Close();
  });
  pages.ReleaseResident();
  for (uint32_t c = 0; c < parts; ++c) {
    NEARDUP_RETURN_IF_ERROR(part_status[c]);
    result.candidates += part_candidates[c];
    result.template_bands_skipped += part_skipped[c];
  }
  // Table t of every range, in page order.
  auto take_table = [&](uint32_t t, std::vector<BandEntry>* keyed) -> Status {
    keyed->clear();
    uint64_t records = 0;
    for (uint32_t c = 0; c < parts; ++c) records += part_tables[c]->Records(t);
    keyed->reserve(records);
    for (uint32_t c = 0; c < parts; ++c) NEARDUP_RETURN_IF_ERROR(part_tables[c]->TakeAppend(t, keyed));
    return Status::OK();
  };
  // Pages sharing a key are paired: all pairs in a bucket of at most `cap`
  // pages; in a larger one, every page with the bucket's first page. The
  // tables are read, sorted and paired a round at a time, one table a
  // thread (so the stage holds a round of tables, not all of them); their
  // pairs, sorted and distinct, are merged in memory and filed as runs
  // (below). The runs are then merged, and the distinct pairs go to the
  // rule a batch at a time: the stage never holds all candidate pairs (19
  // million pairs, 150 MB, at five million pages, twice that while a
  // vector of them grew).
  const uint32_t all_tables = bands + whole_count;
  constexpr size_t kBatchPairs = kPairsPerTask * 16;  // the rule's batch: 512 KB of pairs; 16 tasks
  // (a << 32) | b, a < b; at most one run a table.
  TempTables<uint64_t> runs(all_tables, files, ".robust.pairs.");
  NEARDUP_RETURN_IF_ERROR(runs.Open());
  // A round takes one table a thread, as many as the memory left to the
  // tables holds (the largest table's candidates at kRobustTableSlotBytes).
  uint64_t largest_table = 0;
  for (uint32_t t = 0; t < all_tables; ++t) {
    uint64_t records = 0;
    for (uint32_t c = 0; c < parts; ++c) records += part_tables[c]->Records(t);
    largest_table = std::max(largest_table, records);
  }
  const uint64_t slot_bytes = std::max<uint64_t>(1, largest_table * kRobustTableSlotBytes);
  if (slot_bytes > tables_memory_bytes) {
    // In MiB, the need rounded up: a need under a MiB reads as 1, not 0.
    return Status::ResourceExhausted(
        "the candidate tables of " + std::to_string(result.candidates) + " pages need " +
        std::to_string((slot_bytes + (uint64_t{1} << 20) - 1) >> 20) +
        " MiB at a time (the largest table), and the memory budget (--memory, memory_bytes) leaves them " +
        std::to_string(tables_memory_bytes >> 20) +
        " MiB beside what the run holds already; give it more, or divide the crawl among processes (neardup-mpi)");
  }
  const uint32_t threads = executor != nullptr ? static_cast<uint32_t>(executor->num_threads()) + 1 : 1;
  // One slot's bytes go to the merged pairs (below) when the budget holds
  // two slots or more.
  const uint64_t slots_fit = tables_memory_bytes / slot_bytes;
  const uint32_t round = static_cast<uint32_t>(std::clamp<uint64_t>(slots_fit > 1 ? slots_fit - 1 : 1, 1, threads));
  result.tables_at_once = round;
  // A round's slot keeps its buffers from one table to the next (tables are
  // of about one size): freeing and growing them again for every table gave
  // their pages back to the system and faulted them in anew each time.
  struct TableSlot {
    std::vector<BandEntry> keyed;
    std::vector<uint64_t> bits;   // KeepSharedKeys
    std::vector<uint64_t> pairs;  // the table's pairs, sorted, once each
  };
  std::vector<TableSlot> slots(round);
  std::vector<Status> round_status(round);
  // Pages are below 2^page_bits: the sort key of a pair is 2 * page_bits.
  const int page_bits = std::max(4, static_cast<int>(std::bit_width(n)));
  const int pair_key_bits = 2 * page_bits;
  // Near copies share most of their bands, so a pair comes out of many
  // tables (on crawlgen's crawls each distinct pair 22 to 27 times). The
  // distinct pairs of the tables so far are kept merged, and filed as one
  // run when they outgrow half of what the budget leaves them (at most a
  // slot: the merged pairs and the vector they are merged into). A million
  // pages of crawlgen file 1 run of 859,053 pairs where each table filed a
  // run of its own, 19 million pairs in 55 runs, to be merged again below.
  // The merged pairs are cut into one range a thread, and each range takes
  // its part of a round's tables on a thread of its own (a merge on one
  // thread while the others waited grew with the crawl); the ranges in
  // order are the pairs in order. The ranges' bounds are quantiles of the
  // first table's pairs that has any (a pair's first page is the smaller:
  // three in four random pairs begin in the first half of the pages).
  const uint64_t merge_bytes = std::min(slot_bytes, tables_memory_bytes - std::min(tables_memory_bytes, round * slot_bytes));
  const size_t merged_limit = std::max<uint64_t>(kBatchPairs, merge_bytes / 2 / sizeof(uint64_t));
  struct MergedRange {
    uint64_t first = 0;  // the range's pairs are (a << 32) | b with first <= that < the next range's first
    std::vector<uint64_t> pairs, next;
  };
  std::vector<MergedRange> merged(threads);
  bool ranges_cut = false;
  auto merged_pairs = [&] {
    size_t pairs = 0;
    for (const MergedRange& range : merged) pairs += range.pairs.size();
    return pairs;
  };
  uint32_t runs_filed = 0;
  auto file_merged = [&]() -> Status {
    if (merged_pairs() == 0) return Status::OK();
    for (MergedRange& range : merged) {
      if (!range.pairs.empty()) NEARDUP_RETURN_IF_ERROR(runs.AddMany(runs_filed, range.pairs.data(), range.pairs.size()));
      range.pairs.clear();
    }
    ++runs_filed;
    return Status::OK();
  };
  for (uint32_t first = 0; first < all_tables; first += round) {
    const uint32_t count = std::min(round, all_tables - first);
    RunTasks(executor, count, [&](size_t k) {
      const uint32_t t = first + static_cast<uint32_t>(k);
      std::vector<BandEntry>& keyed = slots[k].keyed;
      round_status[k] = take_table(t, &keyed);
      std::vector<uint64_t>& out = slots[k].pairs;
      out.clear();
      if (!round_status[k].ok()) return;
      KeepSharedKeys(&keyed, [](const BandEntry& e) { return e.key; }, &slots[k].bits);  // a lone key pairs nothing
      SortByEvenKey(&keyed, 64, [](const BandEntry& e) { return e.key; });
      const size_t cap = t < bands ? max_bucket_pages : kRobustWholeBandBucket;
      for (size_t s = 0; s < keyed.size();) {
        size_t e = s;
        while (e < keyed.size() && keyed[e].key == keyed[s].key) ++e;
        for (size_t x = s; x < (e - s <= cap ? e : s + 1); ++x) {
          for (size_t y = x + 1; y < e; ++y) out.push_back((uint64_t{keyed[x].page} << 32) | keyed[y].page);
        }
        s = e;
      }
      // (a << 32) | b ordered as (a << page_bits) | b, whose bits are even
      // enough for the radix sort (a table holds a pair once).
      SortByEvenKey(&out, pair_key_bits, [&](uint64_t pair) { return (pair >> 32 << page_bits) | (pair & 0xffffffffu); });
      out.erase(std::unique(out.begin(), out.end()), out.end());
    });
    for (uint32_t k = 0; k < count; ++k) NEARDUP_RETURN_IF_ERROR(round_status[k]);
    for (uint32_t k = 0; k < count && !ranges_cut; ++k) {  // nothing is merged before
      const std::vector<uint64_t>& sample = slots[k].pairs;
      if (sample.empty()) continue;
      for (uint32_t r = 1; r < threads; ++r) merged[r].first = sample[sample.size() * r / threads];
      ranges_cut = true;
    }
    RunTasks(executor, threads, [&](size_t r) {
      MergedRange& range = merged[r];
      for (uint32_t k = 0; k < count; ++k) {
        const std::vector<uint64_t>& pairs = slots[k].pairs;
        const auto from = std::lower_bound(pairs.begin(), pairs.end(), range.first);
        const auto to = r + 1 < threads ? std::lower_bound(from, pairs.end(), merged[r + 1].first) : pairs.end();
        if (from == to) continue;
        range.next.clear();
        range.next.reserve(range.pairs.size() + static_cast<size_t>(to - from));
        std::set_union(range.pairs.begin(), range.pairs.end(), from, to, std::back_inserter(range.next));
        range.pairs.swap(range.next);
      }
    });
    if (merged_pairs() > merged_limit) NEARDUP_RETURN_IF_ERROR(file_merged());
  }
  NEARDUP_RETURN_IF_ERROR(file_merged());
  slots = {};  // the rule's step below holds none of them
  merged = {};
  NEARDUP_RETURN_IF_ERROR(runs.Close());
  result.tables_seconds = watch.Lap();
  // The rule over a batch of the distinct pairs, in tasks of consecutive
  // pairs on the executor's threads (each reads its pages with its own
  // scratch); the verdicts are then joined in pair order, as one thread
  // would. A pair the rule rejects is overwritten with kRejectedPair in
  // place (a pair is (a << 32) | b with a < b, never all ones).
  constexpr uint64_t kRejectedPair = ~uint64_t{0};
  const SiteTemplates& learned = *templates;
  std::vector<uint8_t> has_pair(candidate.size(), 0);
  std::vector<uint64_t> batch;
  batch.reserve(kBatchPairs);
  std::vector<SiteTemplates::Match> matches;
  auto decide_batch = [&] {
    if (collect_pairs) matches.assign(batch.size(), SiteTemplates::Match());
    const size_t tasks = (batch.size() + kPairsPerTask - 1) / kPairsPerTask;
    RunTasks(executor, tasks, [&](size_t task) {
      // kFetchPairs pairs' pages are read together (FetchMany): the pairs
      // are in (a, b) order, so page a is read once for its run of pairs in
      // a group.
      constexpr size_t kFetchPairs = 32;
      std::vector<uint64_t> records(2 * kFetchPairs * pages.record_words);
      std::vector<uint32_t> fetch;
      fetch.reserve(2 * kFetchPairs);
      std::array<RobustPageView, 2 * kFetchPairs> views;
      std::array<uint8_t, kFetchPairs> slot_a, slot_b;
      const size_t end = std::min(batch.size(), (task + 1) * kPairsPerTask);
      for (size_t first = task * kPairsPerTask; first < end; first += kFetchPairs) {
        const size_t last = std::min(end, first + kFetchPairs);
        fetch.clear();
        uint8_t current_a = 0;
        for (size_t k = first; k < last; ++k) {
          const uint32_t a = static_cast<uint32_t>(batch[k] >> 32), b = static_cast<uint32_t>(batch[k]);
          if (k == first || a != fetch[current_a]) {
            current_a = static_cast<uint8_t>(fetch.size());
            fetch.push_back(a);
          }
          slot_a[k - first] = current_a;
          fetch.push_back(b);
          slot_b[k - first] = static_cast<uint8_t>(fetch.size() - 1);
        }
        pages.FetchMany(fetch, records.data(), views.data());
        for (size_t k = first; k < last; ++k) {
          SiteTemplates::Match match;
          const bool duplicate = RobustDecide(learned, views[slot_a[k - first]], views[slot_b[k - first]], options,
                                              &match, /*with_reason=*/false)
                                     .duplicate;
          if (!duplicate) batch[k] = kRejectedPair;  // each task writes its own pairs only
          if (collect_pairs) matches[k] = match;
        }
      }
    });
    for (size_t k = 0; k < batch.size(); ++k) {
      if (batch[k] == kRejectedPair) continue;
      const uint32_t a = static_cast<uint32_t>(batch[k] >> 32), b = static_cast<uint32_t>(batch[k]);
      uf->Union(a, b);
      ++result.pairs;
      has_pair[a] = has_pair[b] = 1;
      if (collect_pairs) result.pairs_found.push_back(RobustPair{a, b, matches[k]});
    }
    batch.clear();
  };
  // The runs merged in pair order (a heap of each run's next pair), equal
  // pairs of several runs once.
  std::vector<std::unique_ptr<TempTables<uint64_t>::Cursor>> cursors;
  using Head = std::pair<uint64_t, uint32_t>;  // (pair, run)
  std::priority_queue<Head, std::vector<Head>, std::greater<Head>> heads;
  for (uint32_t t = 0; t < runs_filed; ++t) {
    cursors.push_back(std::make_unique<TempTables<uint64_t>::Cursor>(runs, t));
    uint64_t pair;
    if (cursors[t]->Next(&pair)) heads.emplace(pair, t);
    NEARDUP_RETURN_IF_ERROR(cursors[t]->status());
  }
  uint64_t last = kRejectedPair;
  while (!heads.empty()) {
    const auto [pair, t] = heads.top();
    heads.pop();
    if (pair != last) {
      last = pair;
      ++result.candidate_pairs;
      // A pair whose pages both passed the rule with others and are in one
      // cluster by the batches before changes neither the clusters nor
      // pages_with_pair: it is counted, not checked (unless pairs are
      // listed). In a group of k copies this checks about k pairs, not k²/2.
      const uint32_t a = static_cast<uint32_t>(pair >> 32), b = static_cast<uint32_t>(pair);
      if (!collect_pairs && has_pair[a] && has_pair[b] && uf->Find(a) == uf->Find(b)) {
        ++result.pairs_already_joined;
      } else {
        batch.push_back(pair);
        if (batch.size() == kBatchPairs) decide_batch();
      }
    }
    uint64_t next;
    if (cursors[t]->Next(&next)) heads.emplace(next, t);
    NEARDUP_RETURN_IF_ERROR(cursors[t]->status());
  }
  decide_batch();
  pages.ReleaseResident();
  for (uint8_t h : has_pair) result.pages_with_pair += h;
  result.pairs_seconds = watch.Lap();
  return result;
}

RobustStageResult RunRobustStage(std::span<const uint32_t> mins, std::span<const uint64_t> site,
                                 std::span<const uint64_t> digests, std::span<const uint8_t> candidate,
                                 const RobustMethodOptions& options, uint32_t max_bucket_pages,
                                 bool collect_pairs, SiteTemplates* templates, UnionFind* uf) {
  Result<RobustStageResult> r =
      RunRobustStage(ContiguousPages(mins, site, digests, options.positions()), candidate, options,
                     max_bucket_pages, collect_pairs, RobustStageFiles(), templates, uf);
  return std::move(r).value();  // tables in memory: no error
}

}  // namespace neardup
