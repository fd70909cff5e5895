// Copyright neardup authors. Licensed under Apache-2.0.
//
// The units two methods compare documents by, cut from a tokenized page:
//
// - Shingle paragraphs (Pereira, Baeza-Yates and Ziviani, "Where and How
//   Duplicates Occur in the Web", Definition 1): sentences end at a period,
//   or at the 150th character when no period came (the tokenizer's
//   sentence_ends, TokenizeOptions::sentence_max_chars = 150); runs of 3
//   sentences without overlap are the shingle paragraphs. A last run of 1 or
//   2 sentences is a paragraph too, so that the end of a page counts.
// - Chunks (Shivakumar and Garcia-Molina, "Finding near-replicas of
//   documents on the web", §2): the whole document, every n lines, every n
//   words, or every sentence, each hashed to a 32-bit fingerprint.
//
// Units are hashed over the terms' 64-bit hashes (markup, case and white
// space do not matter); sentences and lines without terms are skipped.
#ifndef NEARDUP_ENGINE_TEXT_UNITS_H_
#define NEARDUP_ENGINE_TEXT_UNITS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/status.h"
#include "text/tokenizer.h"

namespace neardup {

// Appends the 64-bit hash of every shingle paragraph of `doc`, in document
// order, to `out` (cleared first).
void ShingleParagraphs(const TokenizedDocument& doc, uint32_t sentences_per_paragraph,
                       std::vector<uint64_t>* out);

// How a document is cut into chunks.
struct Chunking {
  enum class Kind : unsigned char { kWhole, kLines, kWords, kSentences };
  Kind kind = Kind::kLines;
  uint32_t n = 4;  // lines or words per chunk (the paper's "four lines": 4)

  // "whole", "lines:N", "words:N" or "sentences" (N in 1..100000).
  static Result<Chunking> Parse(std::string_view text);
  std::string Name() const;
};

// The 32-bit fingerprint of every chunk of `doc` in document order (repeats
// kept), to `out` (cleared first). A last chunk shorter than n counts.
void ChunkFingerprints(const TokenizedDocument& doc, const Chunking& chunking, std::vector<uint32_t>* out);

}  // namespace neardup

#endif  // NEARDUP_ENGINE_TEXT_UNITS_H_
