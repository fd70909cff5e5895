// Copyright neardup authors. Licensed under Apache-2.0.
#include "io/warc_writer.h"

#include <libdeflate.h>
#include <strings.h>

#include <cstdio>
#include <cstring>

#include "base/hash.h"

namespace neardup::io {

const char* HttpReasonPhrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 204: return "No Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 410: return "Gone";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Status";
  }
}

namespace {

// FIPS 180-4 SHA-1, enough for WARC digests (not a security primitive here).
void Sha1(std::string_view data, uint8_t out[20]) {
  uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
  auto rol = [](uint32_t v, int s) { return (v << s) | (v >> (32 - s)); };
  auto block = [&](const uint8_t* p) {
    uint32_t w[80];
    for (int i = 0; i < 16; ++i) {
      w[i] = (uint32_t{p[4 * i]} << 24) | (uint32_t{p[4 * i + 1]} << 16) |
             (uint32_t{p[4 * i + 2]} << 8) | uint32_t{p[4 * i + 3]};
    }
    for (int i = 16; i < 80; ++i) w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int i = 0; i < 80; ++i) {
      uint32_t f, k;
      if (i < 20) { f = (b & c) | (~b & d); k = 0x5A827999; }
      else if (i < 40) { f = b ^ c ^ d; k = 0x6ED9EBA1; }
      else if (i < 60) { f = (b & c) | (b & d) | (c & d); k = 0x8F1BBCDC; }
      else { f = b ^ c ^ d; k = 0xCA62C1D6; }
      uint32_t t = rol(a, 5) + f + e + k + w[i];
      e = d; d = c; c = rol(b, 30); b = a; a = t;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e;
  };
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  size_t n = data.size();
  size_t full = n / 64;
  for (size_t i = 0; i < full; ++i) block(p + 64 * i);
  uint8_t tail[128] = {0};
  size_t rem = n - full * 64;
  std::memcpy(tail, p + full * 64, rem);
  tail[rem] = 0x80;
  size_t tail_len = rem + 1 + 8 <= 64 ? 64 : 128;
  uint64_t bits = static_cast<uint64_t>(n) * 8;
  for (int i = 0; i < 8; ++i) tail[tail_len - 1 - i] = static_cast<uint8_t>(bits >> (8 * i));
  block(tail);
  if (tail_len == 128) block(tail + 64);
  for (int i = 0; i < 5; ++i) {
    out[4 * i] = static_cast<uint8_t>(h[i] >> 24);
    out[4 * i + 1] = static_cast<uint8_t>(h[i] >> 16);
    out[4 * i + 2] = static_cast<uint8_t>(h[i] >> 8);
    out[4 * i + 3] = static_cast<uint8_t>(h[i]);
  }
}

}  // namespace

std::string Sha1Base32(std::string_view data) {
  uint8_t d[20];
  Sha1(data, d);
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  std::string out;
  // 160 bits = 32 base32 characters, no padding.
  for (int i = 0; i < 32; ++i) {
    int bit = i * 5;
    int byte = bit / 8, off = bit % 8;
    unsigned v = (static_cast<unsigned>(d[byte]) << 8) | (byte + 1 < 20 ? d[byte + 1] : 0);
    out.push_back(kAlphabet[(v >> (11 - off)) & 31]);
  }
  return out;
}

Status WarcWriterOptions::Validate() const {
  if (gzip_level < 1 || gzip_level > 12) {
    return Status::InvalidArgument("gzip_level must be in 1..12 (default 6)");
  }
  if (default_date.empty()) return Status::InvalidArgument("default_date must not be empty");
  return Status::OK();
}

std::string WarcWriter::RecordId(uint64_t seed, uint64_t n) {
  uint64_t hi = SplitMix64(seed ^ SplitMix64(n));
  uint64_t lo = SplitMix64(hi ^ (n + 0x632be59bd9b4e019ull));
  // RFC 4122 layout: version 4 nibble and variant bits set.
  hi = (hi & ~0xF000ull) | 0x4000ull;
  lo = (lo & 0x3FFFFFFFFFFFFFFFull) | 0x8000000000000000ull;
  char buf[64];
  std::snprintf(buf, sizeof buf, "<urn:uuid:%08x-%04x-%04x-%04x-%012llx>",
                static_cast<unsigned>(hi >> 32), static_cast<unsigned>((hi >> 16) & 0xFFFF),
                static_cast<unsigned>(hi & 0xFFFF), static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFull));
  return buf;
}

WarcWriter::WarcWriter(WritableFile* file, WarcWriterOptions options)
    : file_(file), options_(std::move(options)) {
  if (options_.gzip) {
    int level = options_.gzip_level < 1 ? 1 : (options_.gzip_level > 12 ? 12 : options_.gzip_level);
    compressor_ = libdeflate_alloc_compressor(level);
    NEARDUP_CHECK(compressor_ != nullptr);
  }
}

WarcWriter::~WarcWriter() {
  if (compressor_ != nullptr) libdeflate_free_compressor(compressor_);
}

Status WarcWriter::Emit(std::string_view type, std::string_view date, const HeaderList& extra,
                        std::string_view block_head, std::string_view payload, bool digest) {
  if (closed_) return Status::InvalidArgument("WarcWriter: write after Close()");
  record_.clear();
  record_.append("WARC/1.1\r\nWARC-Type: ").append(type).append("\r\n");
  record_.append("WARC-Record-ID: ").append(RecordId(options_.seed, counter_)).append("\r\n");
  record_.append("WARC-Date: ")
      .append(date.empty() ? std::string_view(options_.default_date) : date)
      .append("\r\n");
  for (const auto& [name, value] : extra) {
    record_.append(name).append(": ").append(value).append("\r\n");
  }
  if (digest && options_.payload_digest) {
    record_.append("WARC-Payload-Digest: sha1:").append(Sha1Base32(payload)).append("\r\n");
  }
  record_.append("Content-Length: ")
      .append(std::to_string(block_head.size() + payload.size()))
      .append("\r\n\r\n");
  record_.append(block_head).append(payload).append("\r\n\r\n");
  ++counter_;
  if (!options_.gzip) {
    bytes_written_ += record_.size();
    return file_->Append(record_);
  }
  size_t bound = libdeflate_gzip_compress_bound(compressor_, record_.size());
  if (packed_.size() < bound) packed_.resize(bound);
  size_t n = libdeflate_gzip_compress(compressor_, record_.data(), record_.size(), packed_.data(),
                                      packed_.size());
  if (n == 0) return Status::ResourceExhausted("WarcWriter: gzip output exceeds its bound");
  bytes_written_ += n;
  return file_->Append(packed_.data(), n);
}

Status WarcWriter::WriteWarcinfo(std::string_view filename, const HeaderList& fields) {
  std::string block;
  for (const auto& [name, value] : fields) block.append(name).append(": ").append(value).append("\r\n");
  HeaderList extra;
  if (!filename.empty()) extra.emplace_back("WARC-Filename", std::string(filename));
  extra.emplace_back("Content-Type", "application/warc-fields");
  return Emit("warcinfo", "", extra, {}, block, false);
}

Status WarcWriter::WriteResponse(const WarcResponse& r) {
  std::string head = "HTTP/1.1 " + std::to_string(r.status) + " " +
                     (r.reason.empty() ? std::string(HttpReasonPhrase(r.status)) : r.reason) + "\r\n";
  if (!r.content_type.empty()) head.append("Content-Type: ").append(r.content_type).append("\r\n");
  bool has_length = false;
  for (const auto& [name, value] : r.headers) {
    if (name.size() == 14 && strncasecmp(name.c_str(), "content-length", 14) == 0) has_length = true;
    head.append(name).append(": ").append(value).append("\r\n");
  }
  if (!has_length) head.append("Content-Length: ").append(std::to_string(r.body.size())).append("\r\n");
  head.append("\r\n");
  HeaderList extra = {{"WARC-Target-URI", r.url}};
  extra.insert(extra.end(), r.warc_headers.begin(), r.warc_headers.end());
  extra.emplace_back("Content-Type", "application/http; msgtype=response");
  return Emit("response", r.date, extra, head, r.body, true);
}

Status WarcWriter::WriteResource(std::string_view url, std::string_view date,
                                 std::string_view content_type, std::string_view body) {
  HeaderList extra = {{"WARC-Target-URI", std::string(url)}};
  if (!content_type.empty()) extra.emplace_back("Content-Type", std::string(content_type));
  return Emit("resource", date, extra, {}, body, true);
}

Status WarcWriter::WriteRecord(std::string_view type, std::string_view date, const HeaderList& extra,
                               std::string_view block) {
  return Emit(type, date, extra, {}, block, false);
}

Status WarcWriter::Close() {
  if (closed_) return Status::OK();
  closed_ = true;
  return file_->Close();
}

}  // namespace neardup::io
