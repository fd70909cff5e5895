// Copyright neardup authors. Licensed under Apache-2.0.
//
// WarcWriter: writes WARC/1.1 records (warcinfo, response, resource) to an
// Env WritableFile, each record as its own gzip member (the usual .warc.gz
// layout, readable record by record) or uncompressed. Output is a pure
// function of the calls and WarcWriterOptions::seed: record ids are
// urn:uuid values derived from (seed, record counter), and dates are what the
// caller passes (or a fixed default), so builds of sample and benchmark
// crawls are byte-for-byte reproducible.
//
// Not thread-safe; one writer per file. The WritableFile is borrowed and must
// outlive the writer; Close() closes it.
#ifndef NEARDUP_IO_WARC_WRITER_H_
#define NEARDUP_IO_WARC_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "neardup/env.h"
#include "neardup/status.h"

struct libdeflate_compressor;

namespace neardup::io {

struct WarcWriterOptions {
  // Behaviour.
  bool gzip = true;              // one gzip member per record; false: plain WARC
  uint64_t seed = 1234;          // seeds the WARC-Record-ID sequence
  bool payload_digest = false;   // add WARC-Payload-Digest: sha1:<base32> of the payload
  // Used when a record is written with an empty date.
  std::string default_date = "2024-01-01T00:00:00Z";
  // Performance.
  int gzip_level = 6;            // libdeflate level, 1..12

  Status Validate() const;
};

// The reason phrase of an HTTP status ("OK", "Not Modified", ...; "Status"
// for one without a standard phrase here).
const char* HttpReasonPhrase(int status);

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// An HTTP response to store as a WARC `response` record.
struct WarcResponse {
  std::string url;           // WARC-Target-URI
  std::string date;          // WARC-Date (ISO 8601); empty: options.default_date
  int status = 200;
  std::string reason;        // reason phrase; empty: a standard one for `status`
  std::string content_type;  // HTTP Content-Type, e.g. "text/html; charset=utf-8"; may be empty
  // Further HTTP headers, written in order after Content-Type. A
  // Content-Length header is added when not given here.
  HeaderList headers;
  // The HTTP body exactly as it goes on the wire (already chunked or
  // compressed if the headers say so).
  std::string_view body;
  // Further WARC headers of the record, written after its WARC-Target-URI.
  HeaderList warc_headers;
};

class WarcWriter {
 public:
  WarcWriter(WritableFile* file, WarcWriterOptions options);
  ~WarcWriter();
  WarcWriter(const WarcWriter&) = delete;
  WarcWriter& operator=(const WarcWriter&) = delete;

  // A `warcinfo` record whose block is "name: value" lines
  // (application/warc-fields).
  Status WriteWarcinfo(std::string_view filename, const HeaderList& fields);
  // A `response` record with an HTTP/1.1 response block.
  Status WriteResponse(const WarcResponse& response);
  // A `resource` record: the block is `body` with WARC Content-Type
  // `content_type`.
  Status WriteResource(std::string_view url, std::string_view date, std::string_view content_type,
                       std::string_view body);
  // Any record: `extra` WARC headers follow WARC-Type, WARC-Record-ID and
  // WARC-Date; Content-Length is added.
  Status WriteRecord(std::string_view type, std::string_view date, const HeaderList& extra,
                     std::string_view block);

  // Flushes and closes the file. Further writes fail.
  Status Close();

  uint64_t records_written() const { return counter_; }
  uint64_t bytes_written() const { return bytes_written_; }

  // The record id the writer gives to record number `n` (0-based) for `seed`.
  static std::string RecordId(uint64_t seed, uint64_t n);

 private:
  Status Emit(std::string_view type, std::string_view date, const HeaderList& extra,
              std::string_view block_head, std::string_view payload, bool digest);

  WritableFile* file_;
  WarcWriterOptions options_;
  libdeflate_compressor* compressor_ = nullptr;
  uint64_t counter_ = 0;
  uint64_t bytes_written_ = 0;
  bool closed_ = false;
  std::string record_;   // reused: the uncompressed record
  std::string packed_;   // reused: its gzip member
};

// SHA-1 of `data` in the base32 form WARC digests use ("sha1:" not included).
std::string Sha1Base32(std::string_view data);

}  // namespace neardup::io

#endif  // NEARDUP_IO_WARC_WRITER_H_
