// Copyright neardup authors. Licensed under Apache-2.0.
//
// Document: one page read from a crawl, with the metadata later stages need.
#ifndef NEARDUP_DOCUMENT_H_
#define NEARDUP_DOCUMENT_H_

#include <cstdint>
#include <string>

namespace neardup {

// What the body holds: HTML goes through Henzinger's HTML-to-token rules,
// plain text (.txt files, JSON Lines `text`, WARC `conversion` records,
// text/plain responses) skips the HTML step.
enum class ContentKind : unsigned char { kHtml = 0, kText = 1 };

struct Document {
  // Page URL: WARC-Target-URI (surrounding <> removed), the JSON `url` field,
  // or for HTML/text files the file's path as given (the input argument
  // joined with the path below it, e.g. "crawl/a/page.html.gz"). May be empty
  // when the input gives none.
  std::string url;
  // Fetch date as the input states it (WARC-Date, ISO 8601); empty if unknown.
  std::string fetch_date;
  // HTTP status code of a response record; 0 when the record is not HTTP.
  int http_status = 0;
  // Location header of a 3xx response, as sent (not resolved); else empty.
  std::string redirect_target;
  // A capture whose content is an earlier capture's, which the crawler did
  // not store again (a WARC revisit record of profile identical-payload-
  // digest or server-not-modified; the JSON `revisit_of` field): the URL of
  // that capture (WARC-Refers-To-Target-URI, else the record's own URL) and
  // its date as the input states it (WARC-Refers-To-Date; empty if not
  // given). Empty for every other page. Such a page has no body; dedup puts
  // it in the cluster of the capture it names, when that is in the run.
  std::string revisit_of;
  std::string revisit_of_date;
  // Media type from Content-Type, lower-cased, without parameters; empty if none.
  std::string content_type;
  // charset parameter of the HTTP Content-Type, lower-cased; empty if none.
  std::string declared_charset;
  ContentKind kind = ContentKind::kHtml;
  // Payload bytes after HTTP transfer decoding (chunked) and content decoding
  // (gzip, deflate, br). Raw bytes in their original charset.
  std::string body;
  // Where the record came from: the input path and the byte offset of the
  // record in that file (of the gzip member for per-record gzip, else of the
  // record in the decompressed stream).
  std::string source;
  uint64_t source_offset = 0;
  // Index of the input (0-based, in command-line order) that produced it.
  uint32_t input_index = 0;
  // The JSON Lines record as read (the line, without its end and the blanks
  // around it), with every field the line has, read or not; only when
  // SourceOptions::keep_json_lines is set, else empty. What `neardup keep`
  // writes back for a page read from JSON Lines.
  std::string json_line;

  void Clear() {
    url.clear(); fetch_date.clear(); http_status = 0; redirect_target.clear();
    revisit_of.clear(); revisit_of_date.clear();
    content_type.clear(); declared_charset.clear(); kind = ContentKind::kHtml;
    body.clear(); source.clear(); source_offset = 0; input_index = 0; json_line.clear();
  }
};

}  // namespace neardup

#endif  // NEARDUP_DOCUMENT_H_
