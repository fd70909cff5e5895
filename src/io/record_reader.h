// Copyright neardup authors. Licensed under Apache-2.0.
//
// Per-input readers: each turns one InputStream (one file's decompressed
// bytes) into Documents. The DocumentSource picks one by sniffing the first
// bytes and fills Document::source/source_offset/input_index through the
// ReaderContext. Internal to src/io; the public entry point is
// OpenDocumentSource() in neardup/source.h.
#ifndef NEARDUP_IO_RECORD_READER_H_
#define NEARDUP_IO_RECORD_READER_H_

#include <memory>
#include <string>
#include <string_view>

#include "io/input_stream.h"
#include "io/reader_context.h"
#include "neardup/document.h"

namespace neardup::io {

// Not thread-safe. The InputStream and ReaderContext are borrowed and must
// outlive the reader.
class RecordReader {
 public:
  virtual ~RecordReader() = default;
  // Reads the next document of this input into *doc (cleared first).
  // Returns false at the end of the input. Damage goes to the context.
  virtual bool Next(Document* doc) = 0;
};

// WARC 0.17, 0.18, 1.0, 1.1 (see warc_reader.cc for the tolerated quirks).
std::unique_ptr<RecordReader> NewWarcReader(InputStream* in, ReaderContext* ctx);
// ARC v1 and v2 (IA/Alexa), one "URL IP DATE MIME LENGTH" line per record.
std::unique_ptr<RecordReader> NewArcReader(InputStream* in, ReaderContext* ctx);
// JSON Lines: {"url": ..., "html"|"text": ..., "date"|"fetch_date": ..., "status": N}.
std::unique_ptr<RecordReader> NewJsonlReader(InputStream* in, ReaderContext* ctx);

// What kind of record a block came from, for BuildDocumentFromBlock.
enum class BlockKind : unsigned char {
  kResponse,    // WARC response / ARC record: HTTP response if it looks like one
  kResource,    // WARC resource: the block is the payload
  kConversion,  // WARC conversion (WET): plain text
};

// Fills doc->body/kind/content_type/declared_charset/http_status/
// redirect_target from a record block (url, date and source fields are the
// caller's). Returns false when the record is skipped; the reason has then
// been counted (and warned about for damage) in ctx. `scratch` is a reusable
// buffer. `fallback_content_type` is the WARC/ARC header Content-Type.
bool BuildDocumentFromBlock(ReaderContext* ctx, BlockKind kind,
                            std::string_view fallback_content_type, std::string_view block,
                            const Origin& origin, Document* doc, std::string* scratch);

// Looks at the first bytes of a decompressed input and names its format.
enum class InputFormat : unsigned char { kWarc, kArc, kJsonl, kUnknown };
InputFormat SniffFormat(std::string_view head);

}  // namespace neardup::io

#endif  // NEARDUP_IO_RECORD_READER_H_
