// Copyright neardup authors. Licensed under Apache-2.0.
#include "io/http_response.h"

#include <brotli/decode.h>
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstring>

namespace neardup::io {

namespace {

inline char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

// Returns the line starting at *pos (without trailing CRs and LF) and moves
// *pos past its LF. `found_lf` tells whether a LF ended it.
std::string_view NextLine(std::string_view s, size_t* pos, bool* found_lf) {
  size_t start = *pos;
  const void* nl = start < s.size() ? std::memchr(s.data() + start, '\n', s.size() - start) : nullptr;
  size_t end;
  if (nl == nullptr) {
    end = s.size();
    *pos = s.size();
    *found_lf = false;
  } else {
    end = static_cast<size_t>(static_cast<const char*>(nl) - s.data());
    *pos = end + 1;
    *found_lf = true;
  }
  while (end > start && s[end - 1] == '\r') --end;
  return s.substr(start, end - start);
}

DecodeResult Inflate(std::string_view in, std::string* out, size_t max_out, int window_bits,
                     bool* no_progress) {
  z_stream zs{};
  *no_progress = true;
  if (inflateInit2(&zs, window_bits) != Z_OK) return DecodeResult::kFailed;
  out->clear();
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  size_t in_left = in.size();
  DecodeResult result = DecodeResult::kTruncated;
  char chunk[65536];
  for (;;) {
    if (zs.avail_in == 0 && in_left > 0) {
      uInt take = static_cast<uInt>(std::min<size_t>(in_left, UINT_MAX));
      zs.avail_in = take;
      in_left -= take;
    }
    zs.next_out = reinterpret_cast<Bytef*>(chunk);
    zs.avail_out = sizeof chunk;
    int ret = inflate(&zs, Z_NO_FLUSH);
    size_t produced = sizeof chunk - zs.avail_out;
    if (produced > 0) {
      *no_progress = false;
      if (out->size() + produced > max_out) {
        result = DecodeResult::kTooLarge;
        break;
      }
      out->append(chunk, produced);
    }
    if (ret == Z_STREAM_END) {
      result = DecodeResult::kOk;
      break;
    }
    if (ret == Z_BUF_ERROR && zs.avail_in == 0 && in_left == 0) {
      result = DecodeResult::kTruncated;
      break;
    }
    if (ret != Z_OK && ret != Z_BUF_ERROR) {
      result = DecodeResult::kFailed;
      break;
    }
  }
  inflateEnd(&zs);
  return result;
}

DecodeResult Unbrotli(std::string_view in, std::string* out, size_t max_out) {
  BrotliDecoderState* st = BrotliDecoderCreateInstance(nullptr, nullptr, nullptr);
  if (st == nullptr) return DecodeResult::kFailed;
  out->clear();
  const uint8_t* next_in = reinterpret_cast<const uint8_t*>(in.data());
  size_t avail_in = in.size();
  DecodeResult result = DecodeResult::kFailed;
  uint8_t chunk[65536];
  for (;;) {
    uint8_t* next_out = chunk;
    size_t avail_out = sizeof chunk;
    BrotliDecoderResult r =
        BrotliDecoderDecompressStream(st, &avail_in, &next_in, &avail_out, &next_out, nullptr);
    size_t produced = sizeof chunk - avail_out;
    if (out->size() + produced > max_out) {
      result = DecodeResult::kTooLarge;
      break;
    }
    out->append(reinterpret_cast<char*>(chunk), produced);
    if (r == BROTLI_DECODER_RESULT_SUCCESS) {
      result = DecodeResult::kOk;
      break;
    }
    if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT) {
      result = out->empty() ? DecodeResult::kFailed : DecodeResult::kTruncated;
      break;
    }
    if (r == BROTLI_DECODER_RESULT_ERROR) {
      result = DecodeResult::kFailed;
      break;
    }
  }
  BrotliDecoderDestroyInstance(st);
  return result;
}

}  // namespace

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (Lower(s[i]) != Lower(prefix[i])) return false;
  }
  return true;
}

bool EqualsNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && StartsWithNoCase(a, b);
}

bool ContainsNoCase(std::string_view haystack, std::string_view needle) {
  if (needle.empty()) return true;
  for (size_t i = 0; i + needle.size() <= haystack.size(); ++i) {
    if (StartsWithNoCase(haystack.substr(i), needle)) return true;
  }
  return false;
}

std::string_view TrimWhitespace(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r' || s[b] == '\n')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r' || s[e - 1] == '\n')) --e;
  return s.substr(b, e - b);
}

bool ParseHttpHead(std::string_view block, HttpHead* head) {
  *head = HttpHead{};
  size_t pos = 0;
  bool lf = false;
  std::string_view status_line = NextLine(block, &pos, &lf);
  if (!StartsWithNoCase(status_line, "HTTP/")) return false;
  size_t sp = status_line.find(' ');
  if (sp == std::string_view::npos) return false;
  size_t d = sp;
  while (d < status_line.size() && status_line[d] == ' ') ++d;
  if (d + 3 > status_line.size()) return false;
  int status = 0;
  for (size_t i = 0; i < 3; ++i) {
    char c = status_line[d + i];
    if (c < '0' || c > '9') return false;
    status = status * 10 + (c - '0');
  }
  if (d + 3 < status_line.size() && status_line[d + 3] != ' ' && status_line[d + 3] != '\t') {
    return false;
  }
  if (status < 100) return false;
  head->status = status;
  head->body_offset = block.size();
  while (lf && pos < block.size()) {
    std::string_view line = NextLine(block, &pos, &lf);
    if (line.empty()) {
      head->body_offset = pos;
      return true;
    }
    if (line[0] == ' ' || line[0] == '\t') continue;  // folded value: not needed
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view name = TrimWhitespace(line.substr(0, colon));
    std::string_view value = TrimWhitespace(line.substr(colon + 1));
    std::string_view* slot = nullptr;
    if (EqualsNoCase(name, "content-type")) {
      slot = &head->content_type;
    } else if (EqualsNoCase(name, "transfer-encoding")) {
      slot = &head->transfer_encoding;
    } else if (EqualsNoCase(name, "content-encoding")) {
      slot = &head->content_encoding;
    } else if (EqualsNoCase(name, "location")) {
      slot = &head->location;
    }
    if (slot != nullptr && slot->empty()) *slot = value;
  }
  head->body_offset = block.size();
  return true;
}

void ParseContentType(std::string_view value, std::string* media_type, std::string* charset) {
  media_type->clear();
  charset->clear();
  size_t semi = value.find(';');
  std::string_view mt = TrimWhitespace(value.substr(0, semi));
  for (char c : mt) {
    if (c != ' ' && c != '"') media_type->push_back(Lower(c));
  }
  while (semi != std::string_view::npos) {
    size_t next = value.find(';', semi + 1);
    std::string_view param = TrimWhitespace(value.substr(semi + 1, next - semi - 1));
    semi = next;
    size_t eq = param.find('=');
    if (eq == std::string_view::npos) continue;
    if (!EqualsNoCase(TrimWhitespace(param.substr(0, eq)), "charset")) continue;
    std::string_view v = TrimWhitespace(param.substr(eq + 1));
    charset->clear();
    for (char c : v) {
      if (c != '"' && c != '\'' && c != ' ') charset->push_back(Lower(c));
    }
    break;
  }
}

MediaClass ClassifyMediaType(std::string_view mt) {
  if (mt.empty()) return MediaClass::kHtml;
  static constexpr std::string_view kNonTextPrefixes[] = {
      "image/", "video/", "audio/", "font/", "model/",
      "application/pdf", "application/octet-stream", "application/zip",
      "application/gzip", "application/x-gzip", "application/x-tar", "application/x-bzip",
      "application/x-xz", "application/zstd", "application/x-7z", "application/x-rar",
      "application/vnd.rar", "application/java-archive", "application/x-shockwave-flash",
      "application/font", "application/x-font", "application/vnd.ms-fontobject",
      "application/wasm", "application/x-msdownload", "application/x-dosexec",
      "application/msword", "application/vnd.ms-", "application/vnd.openxmlformats",
      "application/vnd.oasis.opendocument", "application/ogg", "application/x-protobuf",
      "application/vnd.android.package-archive", "application/x-iso9660-image",
      "text/dns",
  };
  for (std::string_view p : kNonTextPrefixes) {
    if (mt.substr(0, p.size()) == p) return MediaClass::kNonText;
  }
  // Checked after the non-text list so image/svg+xml stays non-text.
  if (mt == "text/html" || mt == "application/xhtml+xml" || mt == "text/xml" ||
      mt == "application/xml" || (mt.size() > 4 && mt.substr(mt.size() - 4) == "+xml")) {
    return MediaClass::kHtml;
  }
  return MediaClass::kText;
}

DecodeResult DecodeChunked(std::string_view in, std::string* out, size_t max_out) {
  out->clear();
  size_t pos = 0;
  while (pos < in.size()) {
    bool lf = false;
    std::string_view line = NextLine(in, &pos, &lf);
    // Chunk size: hex digits, then optional extensions after ';' or spaces.
    size_t i = 0;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    uint64_t size = 0;
    size_t digits = 0;
    for (; i < line.size(); ++i, ++digits) {
      char c = line[i];
      int v;
      if (c >= '0' && c <= '9') v = c - '0';
      else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
      else break;
      if (size > (UINT64_MAX >> 4)) return DecodeResult::kFailed;
      size = size * 16 + static_cast<uint64_t>(v);
    }
    if (digits == 0) {
      return (line.empty() && !lf) ? DecodeResult::kTruncated : DecodeResult::kFailed;
    }
    if (i < line.size() && line[i] != ';' && line[i] != ' ' && line[i] != '\t') {
      return DecodeResult::kFailed;
    }
    if (!lf) return DecodeResult::kTruncated;
    if (size == 0) return DecodeResult::kOk;  // trailers, if any, are ignored
    if (out->size() + size > max_out) return DecodeResult::kTooLarge;
    if (size > in.size() - pos) {
      out->append(in.data() + pos, in.size() - pos);
      return DecodeResult::kTruncated;
    }
    out->append(in.data() + pos, static_cast<size_t>(size));
    pos += static_cast<size_t>(size);
    // Chunk data ends with CRLF (LF tolerated).
    if (pos < in.size() && in[pos] == '\r') ++pos;
    if (pos < in.size()) {
      if (in[pos] != '\n') return DecodeResult::kFailed;
      ++pos;
    }
  }
  return DecodeResult::kTruncated;  // no last-chunk
}

DecodeResult DecodeContent(std::string_view encoding, std::string_view in, std::string* out,
                           size_t max_out) {
  std::string_view enc = TrimWhitespace(encoding);
  bool no_progress = true;
  if (EqualsNoCase(enc, "gzip") || EqualsNoCase(enc, "x-gzip")) {
    DecodeResult r = Inflate(in, out, max_out, 15 + 32, &no_progress);
    if (r == DecodeResult::kTruncated && no_progress) return DecodeResult::kFailed;
    return r;
  }
  if (EqualsNoCase(enc, "deflate")) {
    // RFC 9110 says zlib-wrapped; many servers send raw deflate.
    DecodeResult r = Inflate(in, out, max_out, 15, &no_progress);
    if ((r == DecodeResult::kFailed || r == DecodeResult::kTruncated) && no_progress) {
      r = Inflate(in, out, max_out, -15, &no_progress);
      if (r == DecodeResult::kTruncated && no_progress) return DecodeResult::kFailed;
    }
    return r;
  }
  if (EqualsNoCase(enc, "br")) return Unbrotli(in, out, max_out);
  return DecodeResult::kFailed;
}

bool LooksLikeText(std::string_view s) {
  if (s.empty()) return false;
  size_t n = std::min<size_t>(s.size(), 1024);
  size_t control = 0;
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == 0 || (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != 0x1b)) {
      ++control;
    }
  }
  return control * 20 <= n;  // at most 5% control bytes
}

}  // namespace neardup::io
