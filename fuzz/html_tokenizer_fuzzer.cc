// Copyright neardup authors. Licensed under Apache-2.0.
//
// Bytes -> Tokenizer::Tokenize, with a declared charset, content kind and
// options chosen by the first byte; checks the TokenizedDocument contract:
// term offsets increasing and consistent with term_bytes, every term
// non-empty valid UTF-8 with the XXH3 hash of its bytes, sentence and line
// ends non-decreasing, at most num_terms and ending at num_terms, and the
// same input tokenized twice (by a reused tokenizer) gives the same output.
#include <xxhash.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "text/charset.h"
#include "text/tokenizer.h"

namespace {

void Check(bool cond, const char* what) {
  if (!cond) {
    std::fprintf(stderr, "html_tokenizer_fuzzer: invariant failed: %s\n", what);
    std::abort();
  }
}

void CheckDocument(const neardup::TokenizedDocument& d, bool keep_text) {
  const size_t n = d.num_terms();
  if (keep_text) {
    Check(d.term_offsets.size() == n + 1, "term_offsets size");
    Check(d.term_offsets[0] == 0, "first offset");
    Check(d.term_offsets[n] == d.term_bytes.size(), "last offset");
    for (size_t i = 0; i < n; ++i) {
      Check(d.term_offsets[i] < d.term_offsets[i + 1], "offsets increasing (terms non-empty)");
      std::string_view t = d.term(i);
      Check(d.term_hashes[i] == XXH3_64bits(t.data(), t.size()), "term hash");
    }
    Check(neardup::ScanUtf8(d.term_bytes).valid, "terms are valid UTF-8");
  } else {
    Check(d.term_bytes.empty() && d.term_offsets.empty(), "no term text");
  }
  for (const auto* ends : {&d.sentence_ends, &d.line_ends}) {
    uint32_t prev = 0;
    for (uint32_t e : *ends) {
      Check(e >= prev, "ends non-decreasing");
      Check(e <= n, "ends <= num_terms");
      prev = e;
    }
    Check(n == 0 ? ends->empty() : (!ends->empty() && ends->back() == n), "last end");
  }
  Check(!d.charset.empty(), "charset named");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const char* const kCharsets[] = {"",          "utf-8",     "iso-8859-1", "shift_jis",
                                          "gb2312",    "big5",      "euc-kr",     "koi8-r",
                                          "utf-16le",  "utf-16be",  "euc-jp",     "iso-2022-jp",
                                          "windows-1251", "utf-32", "x-bogus",    "0"};
  const uint8_t sel = size > 0 ? data[0] : 0;
  std::string_view body(reinterpret_cast<const char*>(data), size);
  if (size > 0) body.remove_prefix(1);
  const char* charset = kCharsets[sel & 15];
  const neardup::ContentKind kind =
      (sel & 16) ? neardup::ContentKind::kText : neardup::ContentKind::kHtml;
  neardup::TokenizeOptions options;
  options.keep_term_text = (sel & 32) == 0;
  options.sentence_max_chars = (sel & 64) ? 7 : 150;
  const char* url = (sel & 128) ? "http://www.example.com/a/b/c.html" : "";

  static neardup::Tokenizer* tokenizers[4] = {};
  const int which = (options.keep_term_text ? 1 : 0) + ((sel & 64) ? 2 : 0);
  if (tokenizers[which] == nullptr) tokenizers[which] = new neardup::Tokenizer(options);
  neardup::Tokenizer& tokenizer = *tokenizers[which];

  neardup::TokenizedDocument a, b;
  tokenizer.Tokenize(body, kind, charset, url, &a);
  CheckDocument(a, options.keep_term_text);
  tokenizer.Tokenize(body, kind, charset, url, &b);
  Check(a.term_hashes == b.term_hashes && a.sentence_ends == b.sentence_ends &&
            a.line_ends == b.line_ends && a.links == b.links && a.charset == b.charset &&
            a.text_chars == b.text_chars,
        "deterministic");
  return 0;
}
