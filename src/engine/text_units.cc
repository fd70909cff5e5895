// Copyright neardup authors. Licensed under Apache-2.0.
#include "engine/text_units.h"

#include <xxhash.h>

#include <charconv>

namespace neardup {
namespace {

// Hash of the terms [begin, end): one 64-bit value over their 64-bit hashes.
uint64_t HashTerms(const TokenizedDocument& doc, uint32_t begin, uint32_t end) {
  return XXH3_64bits(doc.term_hashes.data() + begin, static_cast<size_t>(end - begin) * sizeof(uint64_t));
}

// Calls unit(begin, end) for every run of `per_unit` non-empty segments of
// `ends` (exclusive term indices), the last run possibly shorter.
template <typename F>
void GroupSegments(const std::vector<uint32_t>& ends, uint32_t per_unit, F&& unit) {
  uint32_t prev = 0, begin = 0, in_unit = 0;
  for (uint32_t end : ends) {
    if (end <= prev) continue;  // no terms in this segment
    if (in_unit == 0) begin = prev;
    prev = end;
    if (++in_unit == per_unit) {
      unit(begin, end);
      in_unit = 0;
    }
  }
  if (in_unit > 0) unit(begin, prev);
}

}  // namespace

void ShingleParagraphs(const TokenizedDocument& doc, uint32_t sentences_per_paragraph,
                       std::vector<uint64_t>* out) {
  out->clear();
  if (doc.num_terms() == 0 || sentences_per_paragraph == 0) return;
  GroupSegments(doc.sentence_ends, sentences_per_paragraph,
                [&](uint32_t b, uint32_t e) { out->push_back(HashTerms(doc, b, e)); });
}

Result<Chunking> Chunking::Parse(std::string_view text) {
  Chunking c;
  auto with_n = [&](std::string_view prefix, Kind kind) -> bool {
    if (text.substr(0, prefix.size()) != prefix) return false;
    std::string_view num = text.substr(prefix.size());
    uint32_t v = 0;
    auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
    if (ec != std::errc() || p != num.data() + num.size() || v < 1 || v > 100000) return false;
    c.kind = kind;
    c.n = v;
    return true;
  };
  if (text == "whole") {
    c.kind = Kind::kWhole;
    c.n = 1;
    return c;
  }
  if (text == "sentences") {
    c.kind = Kind::kSentences;
    c.n = 1;
    return c;
  }
  if (with_n("lines:", Kind::kLines) || with_n("words:", Kind::kWords)) return c;
  return Status::InvalidArgument("chunking '" + std::string(text) +
                                 "': expected whole, lines:N, words:N or sentences (N in 1..100000)");
}

std::string Chunking::Name() const {
  switch (kind) {
    case Kind::kWhole: return "whole";
    case Kind::kSentences: return "sentences";
    case Kind::kLines: return "lines:" + std::to_string(n);
    case Kind::kWords: return "words:" + std::to_string(n);
  }
  return "?";
}

void ChunkFingerprints(const TokenizedDocument& doc, const Chunking& chunking, std::vector<uint32_t>* out) {
  out->clear();
  const uint32_t terms = static_cast<uint32_t>(doc.num_terms());
  if (terms == 0) return;
  auto emit = [&](uint32_t b, uint32_t e) { out->push_back(static_cast<uint32_t>(HashTerms(doc, b, e))); };
  switch (chunking.kind) {
    case Chunking::Kind::kWhole:
      emit(0, terms);
      break;
    case Chunking::Kind::kWords:
      for (uint32_t b = 0; b < terms; b += chunking.n) emit(b, std::min(terms, b + chunking.n));
      break;
    case Chunking::Kind::kLines:
      GroupSegments(doc.line_ends, chunking.n, emit);
      break;
    case Chunking::Kind::kSentences:
      GroupSegments(doc.sentence_ends, 1, emit);
      break;
  }
}

}  // namespace neardup
