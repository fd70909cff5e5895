// The service's JSON: one page per NDJSON line in, one answer per line out
// (README.md, "Running the service").
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "service/service.h"
#include "service/wire.h"

namespace neardup {

namespace {

int Base64Value(unsigned char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

}  // namespace

bool Base64Decode(std::string_view in, std::string* out) {
  out->clear();
  out->reserve(in.size() / 4 * 3);
  uint32_t acc = 0;
  int bits = 0;
  for (unsigned char c : in) {
    if (c == '=') break;
    const int v = Base64Value(c);
    if (v < 0) return false;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
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
  const std::string where = "line " + std::to_string(line_number) + ": ";
  if (line.size() > max_page_bytes) {
    page->error = where + "longer than the limit of " + std::to_string(max_page_bytes) + " bytes";
    return;
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(line);
  } catch (const nlohmann::json::parse_error& e) {
    page->error = where + "not valid JSON (" + e.what() + ")";
    return;
  }
  if (!j.is_object()) {
    page->error = where + "not a JSON object";
    return;
  }
  auto text_field = [&](const char* name, std::string* out) -> bool {
    auto it = j.find(name);
    if (it == j.end() || it->is_null()) return true;
    if (!it->is_string()) {
      page->error = where + "\"" + name + "\" must be a string";
      return false;
    }
    *out = it->get<std::string>();
    return true;
  };
  if (!text_field("url", &page->url)) return;
  if (page->url.empty()) {
    page->error = where + "\"url\" is missing or empty";
    return;
  }
  if (auto it = j.find("status"); it != j.end() && !it->is_null()) {
    if (!it->is_number_integer() || it->get<int64_t>() < 100 || it->get<int64_t>() > 999) {
      page->error = where + "\"status\" must be an HTTP status code (100-999)";
      return;
    }
    page->status = it->get<int>();
  }
  if (!text_field("redirect", &page->redirect) || !text_field("fetched", &page->fetched)) return;
  // The body: html or text, or their base64 forms (html_b64, text_b64) for
  // bytes that are not UTF-8 (`neardup ingest` sends those as they are).
  int bodies = 0;
  for (const char* name : {"html", "text", "html_b64", "text_b64"}) {
    auto it = j.find(name);
    if (it == j.end() || it->is_null()) continue;
    ++bodies;
    if (!it->is_string()) {
      page->error = where + "\"" + name + "\" must be a string";
      return;
    }
    const std::string_view n = name;
    page->kind = n.starts_with("text") ? ContentKind::kText : ContentKind::kHtml;
    if (n.ends_with("_b64")) {
      if (!Base64Decode(it->get_ref<const std::string&>(), &page->body)) {
        page->error = where + "\"" + name + "\" is not valid base64";
        return;
      }
    } else {
      page->body = it->get<std::string>();
    }
  }
  if (bodies > 1) {
    page->error = where + "give one of \"html\", \"text\", \"html_b64\", \"text_b64\", not several";
    return;
  }
  const bool redirect = page->status >= 300 && page->status < 400 && !page->redirect.empty();
  const bool removal = page->status == 404 || page->status == 410;
  if (bodies == 0 && !redirect && !removal) {
    page->error = where + "\"html\" or \"text\" is missing (only a 3xx with \"redirect\" or a 404/410 may have no body)";
    return;
  }
  if (page->status >= 300 && page->status < 400 && page->redirect.empty() && bodies == 0) {
    page->error = where + "a " + std::to_string(page->status) + " needs \"redirect\" (its Location)";
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
                              {"store_bytes", s.store_bytes}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace neardup

namespace neardup {

bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    uint32_t cp;
    if ((c & 0xe0) == 0xc0) { len = 2; cp = c & 0x1f; }
    else if ((c & 0xf0) == 0xe0) { len = 3; cp = c & 0x0f; }
    else if ((c & 0xf8) == 0xf0) { len = 4; cp = c & 0x07; }
    else return false;
    if (i + len > n) return false;
    for (size_t k = 1; k < len; ++k) {
      const unsigned char d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3f);
    }
    // Overlong forms, surrogates and code points past U+10FFFF.
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
        (cp >= 0xd800 && cp <= 0xdfff)) {
      return false;
    }
    i += len;
  }
  return true;
}

}  // namespace neardup

namespace neardup {

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
