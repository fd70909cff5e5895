// Copyright neardup authors. Licensed under Apache-2.0.
//
// HTTP/1.x response parsing for WARC/ARC record blocks, body decoding
// (chunked transfer coding; gzip, x-gzip, deflate, br content codings) and
// the media-type rules that decide which payloads become documents.
// Pure functions over byte ranges; thread-safe. Internal to src/io.
#ifndef NEARDUP_IO_HTTP_RESPONSE_H_
#define NEARDUP_IO_HTTP_RESPONSE_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace neardup::io {

// The parts of a response head that neardup uses. Views point into the block
// passed to ParseHttpHead and live as long as it.
struct HttpHead {
  int status = 0;                       // 100..999
  std::string_view content_type;        // raw header values, trimmed; empty if absent
  std::string_view transfer_encoding;
  std::string_view content_encoding;
  std::string_view location;
  size_t body_offset = 0;               // offset of the body in the block
};

// Parses the status line and headers at the start of `block`. Tolerates a
// missing reason phrase, LF-only and CR CR LF line endings, folded header
// lines, and a head with no blank line (then the body is empty). Returns false
// when the block does not start with "HTTP/<version> <3-digit status>".
bool ParseHttpHead(std::string_view block, HttpHead* head);

// Splits a Content-Type value into its media type and charset parameter,
// both lower-cased, quotes and spaces removed; either may come back empty.
void ParseContentType(std::string_view value, std::string* media_type, std::string* charset);

enum class MediaClass : unsigned char {
  kHtml,     // markup: text/html, xhtml, xml types, and a missing type
  kText,     // text/plain and other textual types
  kNonText,  // images, audio, video, fonts, PDF, archives, octet-stream, ...
};
// `media_type` as returned by ParseContentType (lower case, no parameters).
MediaClass ClassifyMediaType(std::string_view media_type);

enum class DecodeResult : unsigned char {
  kOk,         // fully decoded
  kTruncated,  // input ended early; *out holds what was decoded
  kFailed,     // malformed; *out unspecified
  kTooLarge,   // output would exceed max_out
};

// Removes chunked transfer coding from `in` into *out (replaced).
DecodeResult DecodeChunked(std::string_view in, std::string* out, size_t max_out);

// Undoes one Content-Encoding value (case-insensitive: gzip, x-gzip, deflate
// with or without zlib wrapper, br) from `in` into *out (replaced). A stream
// cut short yields kTruncated with the bytes decoded so far. Unknown codings
// give kFailed.
DecodeResult DecodeContent(std::string_view encoding, std::string_view in, std::string* out,
                           size_t max_out);

// Heuristic: true when the first bytes of `s` look like text (few control
// bytes), so a body whose declared coding failed can still be used as is.
bool LooksLikeText(std::string_view s);

// ASCII case-insensitive helpers shared by the readers.
bool StartsWithNoCase(std::string_view s, std::string_view prefix);
bool EqualsNoCase(std::string_view a, std::string_view b);
bool ContainsNoCase(std::string_view haystack, std::string_view needle);
std::string_view TrimWhitespace(std::string_view s);

}  // namespace neardup::io

#endif  // NEARDUP_IO_HTTP_RESPONSE_H_
