// Copyright neardup authors. Licensed under Apache-2.0.
//
// The input bytes are a WARC response block (HTTP head + body). Exercises
// ParseHttpHead, Content-Type parsing, chunked decoding and every content
// coding, then the full block-to-Document rules. Properties: no crash,
// decoded sizes stay within the bound, body_offset within the block.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "io/http_response.h"
#include "io/record_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace neardup::io;
  std::string_view block(reinterpret_cast<const char*>(data), size);
  constexpr size_t kMax = 1 << 20;
  HttpHead head;
  if (ParseHttpHead(block, &head)) {
    if (head.body_offset > block.size() || head.status < 100 || head.status > 999) std::abort();
    std::string mt, cs;
    ParseContentType(head.content_type, &mt, &cs);
    (void)ClassifyMediaType(mt);
  }
  std::string out;
  if (DecodeChunked(block, &out, kMax) != DecodeResult::kTooLarge && out.size() > kMax) std::abort();
  for (const char* enc : {"gzip", "deflate", "br", "identity"}) {
    DecodeResult r = DecodeContent(enc, block, &out, kMax);
    if (r != DecodeResult::kTooLarge && r != DecodeResult::kFailed && out.size() > kMax) std::abort();
  }
  (void)LooksLikeText(block);

  neardup::SourceOptions options;
  options.max_record_bytes = kMax;
  neardup::ReadStats stats;
  ReaderContext ctx{&options, &stats, nullptr, "fuzz", 0};
  neardup::Document doc;
  std::string scratch;
  for (BlockKind kind : {BlockKind::kResponse, BlockKind::kResource}) {
    doc.Clear();
    if (BuildDocumentFromBlock(&ctx, kind, "application/http; msgtype=response", block, Origin{},
                               &doc, &scratch)) {
      if (doc.body.size() > kMax + size) std::abort();
    }
  }
  return 0;
}
