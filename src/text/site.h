// Copyright neardup authors. Licensed under Apache-2.0.
//
// The *site* of a page as Henzinger defines it in "Finding Near-Duplicate Web
// Pages: A Large-Scale Evaluation of Algorithms" (SIGIR 2006), §1: the host
// name if it has at most one dot (at most two levels); otherwise the host
// minus everything up to and including its first dot. So
// www.cs.berkeley.edu -> cs.berkeley.edu, berkeley.edu -> berkeley.edu. The
// paper calls this "a simplified approach": it ignores public suffixes
// (www.example.co.uk -> example.co.uk, but shop.co.uk -> co.uk).
//
// Henzinger splits every evaluation into pairs on the same site and pairs on
// different sites, because precision differs so much between the two (0.34
// vs 0.86 for Broder et al.'s algorithm); evaluation/evaluation.h does the same.
//
// Pure functions, thread-safe, linear in the input length.
#ifndef NEARDUP_TEXT_SITE_H_
#define NEARDUP_TEXT_SITE_H_

#include <string>
#include <string_view>

namespace neardup {

// The site of `host` by the rule above. The host is ASCII-lower-cased and one
// trailing dot dropped first (as UrlHost does). Exceptions to the dot rule:
//  - "" for an empty host;
//  - an IP address is its own site: a host made only of digits and dots
//    (IPv4, including inet_aton's short forms such as "127.1"), or one that
//    contains ':' (an IPv6 literal, as UrlHost returns it without brackets);
//  - a host without dots ("localhost") is its own site (the rule's first case).
std::string SiteOfHost(std::string_view host);

// SiteOfHost(UrlHost(url)): "" when the URL has no authority (no "//host"),
// e.g. a relative reference or "mailto:x@y".
std::string SiteOfUrl(std::string_view url);

// The registrable domain of `host` (lower-cased, one trailing dot dropped):
// the public suffix it ends in plus one label, by the Public Suffix List
// that libpsl carries (news.com.au, bbc.co.uk, example.blogspot.com), so
// that the hosts of one organisation (blacktown.yourguide.com.au and
// canberra.yourguide.com.au) are one domain while unrelated owners under a
// shared suffix (smh.com.au, news.com.au) are not. The host itself when it
// is an IP address, has no dot, or is a public suffix; "" for "".
std::string RegistrableDomainOfHost(std::string_view host);

}  // namespace neardup

#endif  // NEARDUP_TEXT_SITE_H_
