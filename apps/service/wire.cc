// The service's JSON: one page per NDJSON line in, one answer per line out
// (README.md, "Running the service").
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <simdjson.h>
#include <sstream>

#include "service/service.h"
#include "service/wire.h"
#include "text/charset.h"

namespace neardup {

namespace {

// The value of each base64 character (both alphabets: '+' and '-' are 62,
// '/' and '_' are 63), -1 for the others.
constexpr std::array<int8_t, 256> kBase64Values = [] {
  std::array<int8_t, 256> t{};
  t.fill(-1);
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = static_cast<int8_t>(c - 'A');
  for (int c = 'a'; c <= 'z'; ++c) t[c] = static_cast<int8_t>(c - 'a' + 26);
  for (int c = '0'; c <= '9'; ++c) t[c] = static_cast<int8_t>(c - '0' + 52);
  t['+'] = t['-'] = 62;
  t['/'] = t['_'] = 63;
  return t;
}();

}  // namespace

bool Base64Decode(std::string_view in, std::string* out) {
  // Up to the first '=' (what follows it is padding, not read); four
  // characters make three bytes, a shorter tail the whole bytes it holds.
  const size_t n = std::min(in.find('='), in.size());
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  out->resize(n / 4 * 3 + 2);
  char* o = out->data();
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const int a = kBase64Values[p[i]], b = kBase64Values[p[i + 1]], c = kBase64Values[p[i + 2]],
              d = kBase64Values[p[i + 3]];
    if ((a | b | c | d) < 0) {
      out->clear();
      return false;
    }
    const uint32_t v = (static_cast<uint32_t>(a) << 18) | (static_cast<uint32_t>(b) << 12) |
                       (static_cast<uint32_t>(c) << 6) | static_cast<uint32_t>(d);
    o[0] = static_cast<char>(v >> 16);
    o[1] = static_cast<char>(v >> 8);
    o[2] = static_cast<char>(v);
    o += 3;
  }
  uint32_t acc = 0;
  int bits = 0;
  for (; i < n; ++i) {
    const int v = kBase64Values[p[i]];
    if (v < 0) {
      out->clear();
      return false;
    }
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      *o++ = static_cast<char>((acc >> bits) & 0xff);
    }
  }
  out->resize(static_cast<size_t>(o - out->data()));
  return true;
}

std::string Base64Encode(std::string_view in) {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const uint32_t v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8) |
                       static_cast<unsigned char>(in[i + 2]);
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
    out.push_back(kAlphabet[v & 63]);
  }
  if (i < in.size()) {
    uint32_t v = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(i + 1 < in.size() ? kAlphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

void ParsePageLine(std::string_view line, uint64_t line_number, uint64_t max_page_bytes, PageInput* page) {
  *page = PageInput();
  auto fail = [&](const std::string& what) { page->error = "line " + std::to_string(line_number) + ": " + what; };
  if (line.size() > max_page_bytes) {
    fail("longer than the limit of " + std::to_string(max_page_bytes) + " bytes");
    return;
  }
  // simdjson reads SIMDJSON_PADDING bytes past the end: parse a padded copy.
  thread_local simdjson::dom::parser parser;
  thread_local std::string padded;
  padded.assign(line);
  padded.append(simdjson::SIMDJSON_PADDING, '\0');
  simdjson::dom::element root;
  if (auto err = parser.parse(padded.data(), line.size(), /*realloc_if_needed=*/false).get(root); err) {
    fail(std::string("not valid JSON (") + simdjson::error_message(err) + ")");
    return;
  }
  simdjson::dom::object object;
  if (root.get(object) != simdjson::SUCCESS) {
    fail("not a JSON object");
    return;
  }
  // The field `name`, when present and not null.
  auto field = [&](const char* name, simdjson::dom::element* value) {
    return object.at_key(name).get(*value) == simdjson::SUCCESS && !value->is_null();
  };
  auto text_field = [&](const char* name, std::string* out) -> bool {
    simdjson::dom::element value;
    if (!field(name, &value)) return true;
    std::string_view text;
    if (value.get(text) != simdjson::SUCCESS) {
      fail(std::string("\"") + name + "\" must be a string");
      return false;
    }
    out->assign(text);
    return true;
  };
  if (!text_field("url", &page->url)) return;
  if (page->url.empty()) {
    fail("\"url\" is missing or empty");
    return;
  }
  if (simdjson::dom::element value; field("status", &value)) {
    int64_t status = 0;
    if (value.get(status) != simdjson::SUCCESS || status < 100 || status > 999) {
      fail("\"status\" must be an HTTP status code (100-999)");
      return;
    }
    page->status = static_cast<int>(status);
  }
  if (!text_field("redirect", &page->redirect) || !text_field("fetched", &page->fetched)) return;
  // A revisit: a capture whose content is that of the page the service
  // holds at `revisit_of` (a WARC revisit record; one naming another URL is
  // a URL-agnostic revisit). It has no body of its own.
  if (!text_field("revisit_of", &page->revisit_of)) return;
  // The body: html or text, or their base64 forms (html_b64, text_b64) for
  // bytes that are not UTF-8 (`neardup ingest` sends those as they are).
  int bodies = 0;
  for (const char* name : {"html", "text", "html_b64", "text_b64"}) {
    simdjson::dom::element value;
    if (!field(name, &value)) continue;
    ++bodies;
    std::string_view body;
    if (value.get(body) != simdjson::SUCCESS) {
      fail(std::string("\"") + name + "\" must be a string");
      return;
    }
    const std::string_view n = name;
    page->kind = n.starts_with("text") ? ContentKind::kText : ContentKind::kHtml;
    if (n.ends_with("_b64")) {
      if (!Base64Decode(body, &page->body)) {
        fail(std::string("\"") + name + "\" is not valid base64");
        return;
      }
    } else {
      page->body.assign(body);
    }
  }
  if (bodies > 1) {
    fail("give one of \"html\", \"text\", \"html_b64\", \"text_b64\", not several");
    return;
  }
  const bool redirect = page->status >= 300 && page->status < 400 && !page->redirect.empty();
  const bool removal = page->status == 404 || page->status == 410;
  if (!page->revisit_of.empty()) {
    if (bodies > 0 || redirect || removal) {
      fail("\"revisit_of\" names the page whose content this capture repeats: give no body, \"redirect\" or "
           "404/410 status with it");
    }
    return;
  }
  if (bodies == 0 && !redirect && !removal) {
    fail("\"html\" or \"text\" is missing (only a 3xx with \"redirect\" or a 404/410 may have no body)");
    return;
  }
  if (page->status >= 300 && page->status < 400 && page->redirect.empty() && bodies == 0) {
    fail("a " + std::to_string(page->status) + " needs \"redirect\" (its Location)");
  }
}

std::string PageAnswerJson(const PageAnswer& a) {
  nlohmann::ordered_json j;
  j["url"] = a.url;
  j["role"] = a.role;
  if (a.role == "error") {
    j["error"] = a.error;
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  if (a.group != 0) j["group"] = a.group; else j["group"] = nullptr;
  j["winner"] = a.winner;
  j["similarity"] = a.similarity;
  j["tier"] = a.tier;
  j["moved"] = a.moved;
  if (a.redirect_cycle) j["redirect_cycle"] = true;
  if (a.verification_failed) j["verification_failed"] = true;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string ServiceStatsJson(const ServiceStats& s, const std::string& method_spec) {
  nlohmann::ordered_json j = {{"method_spec", method_spec},
                              {"pages", s.pages},
                              {"content_pages", s.content_pages},
                              {"redirect_pages", s.redirect_pages},
                              {"removed_pages", s.removed_pages},
                              {"groups", s.groups},
                              {"groups_with_duplicates", s.groups_with_duplicates},
                              {"recrawled", s.recrawled},
                              {"tier1_decided", s.tier1_decided},
                              {"tier1_share", s.tier1_share()},
                              {"tier2_decided", s.tier2_decided},
                              {"comparisons", s.comparisons},
                              {"verifications", s.verifications},
                              {"verifications_failed", s.verifications_failed},
                              {"repairs", s.repairs},
                              {"redirect_cycles", s.redirect_cycles},
                              {"store_bytes", s.store_bytes},
                              {"postings_bytes", s.postings_bytes}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace neardup

namespace neardup {

bool IsValidUtf8(std::string_view s) { return ScanUtf8(s).valid; }

}  // namespace neardup

namespace neardup {

// The bytes of a JSON string that need an escape: control characters,
// quotes and backslashes.
namespace {

bool NeedsEscape(unsigned char c) { return c < 0x20 || c == '"' || c == '\\'; }

// The index of the first byte of the 8 at `p` that needs an escape, or 8.
// In each mask the lowest flagged byte is exact (a borrow only flags bytes
// above a true one).
size_t FirstEscapeIn8(const char* p) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  uint64_t v;
  std::memcpy(&v, p, 8);
  auto zero_byte = [&](uint64_t x) { return (x - kOnes) & ~x & kHigh; };
  const uint64_t control = (v - kOnes * 0x20) & ~v & kHigh;
  const uint64_t mask = control | zero_byte(v ^ (kOnes * '"')) | zero_byte(v ^ (kOnes * '\\'));
  if (mask == 0) return 8;
  if constexpr (std::endian::native == std::endian::little) return static_cast<size_t>(std::countr_zero(mask)) / 8;
  for (size_t i = 0; i < 8; ++i) {
    if (NeedsEscape(static_cast<unsigned char>(p[i]))) return i;
  }
  return 8;
}

}  // namespace

// Appends `s` (valid UTF-8) as a JSON string: quotes, backslashes and
// control characters escaped, every other byte as it is. Eight bytes are
// tested at a time: HTML has long runs without an escape.
void AppendJsonString(std::string_view s, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  out->reserve(out->size() + s.size() + s.size() / 16 + 2);
  out->push_back('"');
  const char* const begin = s.data();
  const size_t n = s.size();
  size_t run = 0;  // start of the bytes not yet copied
  size_t i = 0;
  while (i < n) {
    if (i + 8 <= n) {
      const size_t k = FirstEscapeIn8(begin + i);
      if (k == 8) {
        i += 8;
        continue;
      }
      i += k;
    } else if (!NeedsEscape(static_cast<unsigned char>(begin[i]))) {
      ++i;
      continue;
    }
    const unsigned char c = static_cast<unsigned char>(begin[i]);
    out->append(begin + run, i - run);
    switch (c) {
      case '"': out->append("\\\"", 2); break;
      case '\\': out->append("\\\\", 2); break;
      case '\n': out->append("\\n", 2); break;
      case '\r': out->append("\\r", 2); break;
      case '\t': out->append("\\t", 2); break;
      default: {
        const char escaped[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
        out->append(escaped, 6);
      }
    }
    run = ++i;
  }
  out->append(begin + run, n - run);
  out->push_back('"');
}

Result<std::string> ReadTokenFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::IOError("cannot read token file " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string token = ss.str();
  const size_t first = token.find_first_not_of(" \t\r\n");
  const size_t last = token.find_last_not_of(" \t\r\n");
  token = first == std::string::npos ? std::string() : token.substr(first, last - first + 1);
  if (token.size() < 16) {
    return Status::InvalidArgument("token file " + path + " must hold a token of 16 characters or more");
  }
  return token;
}

}  // namespace neardup
