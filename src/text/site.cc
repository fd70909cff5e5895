// Copyright neardup authors. Licensed under Apache-2.0.
#include "text/site.h"

#include <libpsl.h>
#include <xxhash.h>

#include <vector>

#include "text/url.h"

namespace neardup {

namespace {

bool IsIpAddress(std::string_view host) {
  if (host.find(':') != std::string_view::npos) return true;  // IPv6 literal
  for (char c : host) {
    if (c != '.' && (c < '0' || c > '9')) return false;
  }
  return true;
}

// ASCII-lower-cased, one trailing dot dropped (as UrlHost does).
std::string LowerHost(std::string_view host) {
  if (!host.empty() && host.back() == '.') host.remove_suffix(1);
  std::string h(host);
  for (char& c : h) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return h;
}

}  // namespace

std::string SiteOfHost(std::string_view host) {
  const std::string h = LowerHost(host);
  if (h.empty() || IsIpAddress(h)) return h;
  const size_t first_dot = h.find('.');
  // At most one dot: the host itself. Otherwise drop the first label and its dot.
  if (first_dot == std::string::npos || h.find('.', first_dot + 1) == std::string::npos) return h;
  return h.substr(first_dot + 1);
}

std::string SiteOfUrl(std::string_view url) { return SiteOfHost(UrlHost(url)); }

std::string RegistrableDomainOfHost(std::string_view host) {
  const std::string h = LowerHost(host);
  if (h.empty() || IsIpAddress(h) || h.find('.') == std::string::npos) return h;
  // The list compiled into libpsl: the same answer on every machine with the
  // same library, whatever list file is installed. Read-only, thread-safe.
  static const psl_ctx_t* const list = [] {
    const psl_ctx_t* builtin = psl_builtin();
    return builtin ? builtin : psl_latest(nullptr);
  }();
  if (list == nullptr) return h;
  // A crawl visits its hosts again and again, a few thousand of them in
  // turn: the thread's latest answers, one slot a hash of the host (256 KB),
  // spare most pages the list's lookup (a few hundred nanoseconds).
  struct Known {
    std::string host, domain;
  };
  static constexpr size_t kSlots = 4096;
  thread_local std::vector<Known> known(kSlots);
  Known& slot = known[XXH3_64bits(h.data(), h.size()) % kSlots];
  if (slot.host == h) return slot.domain;  // h is not empty (above)
  const char* domain = psl_registrable_domain(list, h.c_str());
  slot.host = h;
  slot.domain = domain ? std::string(domain) : h;
  return slot.domain;
}

}  // namespace neardup
