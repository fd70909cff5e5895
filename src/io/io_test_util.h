// Copyright neardup authors. Licensed under Apache-2.0.
//
// Helpers for the io tests (test-only; not part of neardup_io).
#ifndef NEARDUP_IO_IO_TEST_UTIL_H_
#define NEARDUP_IO_IO_TEST_UTIL_H_

#include <zlib.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/document.h"
#include "neardup/env.h"
#include "neardup/source.h"

namespace neardup::io::testing {

class CollectingObserver : public ReadObserver {
 public:
  void OnWarning(const ReadWarning& w) override { warnings.push_back(w); }
  // The first warning with this reason key, or nullptr.
  const ReadWarning* Find(std::string_view key) const {
    for (const auto& w : warnings) {
      if (w.reason_key == key) return &w;
    }
    return nullptr;
  }
  std::string Dump() const {
    std::string s;
    for (const auto& w : warnings) {
      s += w.file + " @" + std::to_string(w.offset) + (w.in_decompressed_stream ? "(d) " : " ") +
           w.reason_key + ": " + w.message + "\n";
    }
    return s;
  }
  std::vector<ReadWarning> warnings;
};

struct ReadResult {
  std::vector<Document> docs;
  ReadStats stats;
  CollectingObserver observer;
  uint64_t bytes_consumed = 0;
  uint64_t bytes_total = 0;

  uint64_t skipped(const std::string& key) const {
    auto it = stats.skipped.find(key);
    return it == stats.skipped.end() ? 0 : it->second;
  }
  bool HasUrl(std::string_view url) const {
    for (const auto& d : docs) {
      if (d.url == url) return true;
    }
    return false;
  }
};

// Reads every document of `inputs` (documents are kept; use for small data).
inline ReadResult ReadAll(const std::vector<std::string>& inputs, Env* env,
                          const SourceOptions& options = SourceOptions()) {
  ReadResult r;
  auto src = OpenDocumentSource(inputs, options, env, &r.observer);
  if (!src.ok()) return r;
  Document d;
  while (src.value()->Next(&d)) r.docs.push_back(d);
  r.stats = src.value()->stats();
  r.bytes_consumed = src.value()->bytes_consumed();
  r.bytes_total = src.value()->bytes_total();
  return r;
}

// `data` compressed with zlib's deflate and the given window bits (15 + 16:
// one gzip member; 15: zlib-wrapped; -15: raw). zlib, so tests do not share
// the reader's libdeflate code path.
inline std::string ZlibCompress(std::string_view data, int window_bits, int level = 6) {
  z_stream zs{};
  deflateInit2(&zs, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, static_cast<uLong>(data.size())) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// One gzip member holding `data`.
inline std::string GzipMember(std::string_view data, int level = 6) {
  return ZlibCompress(data, 15 + 16, level);
}

// zlib-wrapped (raw = false) or raw deflate of `data`.
inline std::string Deflate(std::string_view data, bool raw) { return ZlibCompress(data, raw ? -15 : 15); }

// Splits an uncompressed WARC into its records: each piece starts at a line
// "WARC/1." at the beginning of the data or after "\r\n\r\n". Test data only.
inline std::vector<std::string> SplitWarcRecords(const std::string& warc) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t next = warc.find("\r\n\r\nWARC/1.", start + 1);
    if (next == std::string::npos) {
      out.push_back(warc.substr(start));
      return out;
    }
    out.push_back(warc.substr(start, next + 4 - start));
    start = next + 4;
  }
}

// An HTTP response record (WARC/1.0) with the given HTTP head lines and body.
inline std::string MakeResponseRecord(const std::string& url, const std::string& http_head,
                                      const std::string& body) {
  std::string block = http_head + "\r\n" + body;
  return "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: " + url +
         "\r\nWARC-Date: 2024-05-01T00:00:00Z\r\nContent-Type: application/http; "
         "msgtype=response\r\nContent-Length: " +
         std::to_string(block.size()) + "\r\n\r\n" + block + "\r\n\r\n";
}

}  // namespace neardup::io::testing

#endif  // NEARDUP_IO_IO_TEST_UTIL_H_
