// Copyright neardup authors. Licensed under Apache-2.0.
//
// The input bytes are JSON Lines read from "-" (standard input stand-in in a
// MemEnv, so non-'{' data still goes to the JSONL reader). Properties: no
// crash; every returned document has a body field's kind; bad lines are
// counted as "bad-json" or "record-too-large".
#include <cstdint>
#include <cstdlib>
#include <string>

#include "neardup/env.h"
#include "neardup/source.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  neardup::MemEnv env;
  env.AddFile("-", std::string(reinterpret_cast<const char*>(data), size));
  neardup::SourceOptions options;
  options.max_record_bytes = 1 << 16;
  auto src = neardup::OpenDocumentSource({"-"}, options, &env, nullptr);
  if (!src.ok()) std::abort();
  neardup::Document doc;
  uint64_t docs = 0;
  while (src.value()->Next(&doc)) {
    ++docs;
    if (doc.source != "-") std::abort();
  }
  if (src.value()->stats().documents != docs) std::abort();
  return 0;
}
