// Copyright neardup authors. Licensed under Apache-2.0.
//
// The input bytes are one file given to OpenDocumentSource through a MemEnv
// (format sniffed as in a real run: WARC, ARC, JSON Lines, gzip/zstd of
// them); every document is drained. Properties: no crash, no hang, bounded
// memory, and stats agree with what Next() returned.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "neardup/env.h"
#include "neardup/source.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  neardup::MemEnv env;
  env.AddFile("input.warc", std::string(reinterpret_cast<const char*>(data), size));
  neardup::SourceOptions options;
  options.max_record_bytes = 1 << 20;
  auto src = neardup::OpenDocumentSource({"input.warc"}, options, &env, nullptr);
  if (!src.ok()) std::abort();
  neardup::Document doc;
  uint64_t docs = 0, payload = 0;
  while (src.value()->Next(&doc)) {
    ++docs;
    payload += doc.body.size();
    if (doc.body.size() > options.max_record_bytes) std::abort();
  }
  const neardup::ReadStats& st = src.value()->stats();
  if (st.documents != docs || st.payload_bytes != payload) std::abort();
  if (src.value()->bytes_consumed() > size) std::abort();
  return 0;
}
