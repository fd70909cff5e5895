// crawlgen: builds .warc.gz crawls from real HTML pages, for the sample crawl
// kept in the repository and for benchmarks.
//
//   crawlgen --list PAGES.tsv --html-dir DIR --out FILE.warc.gz
//     One record per line of PAGES.tsv: `url<TAB>file<TAB>kind[<TAB>arg]`,
//     `file` relative to DIR (.html or .html.gz). Kinds:
//       page        the page's bytes as a 200 text/html response
//       reformat    the same page with its markup re-spaced (same tokens,
//                   other bytes)
//       redirect    a 301 response whose Location is `arg` (file unused)
//       notfound    the page as a 404 response
//       text        the file as a text/plain resource record
//       request     a GET request record for url (skipped by readers)
//       image       a tiny PNG resource (non-text, skipped by readers)
//
//   crawlgen --html-dir DIR --pages N --out FILE.warc.gz [--seed S]
//            [--truth FILE.tsv] [--max-page-bytes B] [--host-tag T]
//     A synthetic crawl of N pages drawn from the real pages under DIR:
//     ~60% fresh pages (a real page with 35% of its words replaced, so fresh
//     pages made from one real page share its template but not its text),
//     ~15% exact copies of an earlier page at another URL (same bytes),
//     ~10% markup-only copies (same tokens), ~15% copies with a timestamp
//     added (near duplicates). Copy sources follow a heavy-tailed popularity.
//     --truth writes `url<TAB>group` (group = the fresh page it copies).
//     --host-tag T puts T in front of every host name, so that crawls made
//     with several seeds have URLs of their own.
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "io/warc_writer.h"
#include "neardup/env.h"

namespace {

namespace fs = std::filesystem;

[[noreturn]] void Die(const std::string& msg) {
  std::fprintf(stderr, "crawlgen: %s\n", msg.c_str());
  std::exit(1);
}

std::string LoadPage(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");  // reads plain files as they are, too
  if (!f) Die("cannot open " + path);
  std::string out;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  gzclose(f);
  return out;
}

// Same tokens, other bytes: every white-space run gets a newline and two
// spaces more. (White space turned into white space never changes terms;
// inserting it next to a tag could split a word around <b> or <span>.)
std::string Reformat(const std::string& html) {
  std::string out;
  out.reserve(html.size() + html.size() / 8);
  for (size_t i = 0; i < html.size(); ++i) {
    const char c = html[i];
    out.push_back(c);
    const bool space = c == ' ' || c == '\n' || c == '\t';
    const bool next_space = i + 1 < html.size() && (html[i + 1] == ' ' || html[i + 1] == '\n' || html[i + 1] == '\t');
    if (space && !next_space) out.append("\n  ");
  }
  return out;
}

// A distinct page from a real one: about `rate` of the words of its text
// (outside tags) replaced by words drawn from `seed`, so that fresh pages made
// from the same real page share its template but not its text (5-term
// shingles survive with probability (1 - rate)^5).
std::string MutateWords(const std::string& html, uint64_t seed, double rate) {
  std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ULL + 1);
  const uint64_t threshold = static_cast<uint64_t>(rate * 18446744073709551615.0);
  std::string out;
  out.reserve(html.size() + html.size() / 8);
  bool in_tag = false;
  size_t i = 0;
  while (i < html.size()) {
    const char c = html[i];
    if (in_tag) {
      out.push_back(c);
      in_tag = c != '>';
      ++i;
      continue;
    }
    if (c == '<') {
      in_tag = true;
      out.push_back(c);
      ++i;
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < html.size() && std::isalpha(static_cast<unsigned char>(html[j]))) ++j;
      if (rng() < threshold) {
        uint64_t r = rng();
        const int len = 3 + static_cast<int>(r % 7);
        for (int t = 0; t < len; ++t, r /= 26) out.push_back(static_cast<char>('a' + r % 26));
      } else {
        out.append(html, i, j - i);
      }
      i = j;
      continue;
    }
    out.push_back(c);
    ++i;
  }
  return out;
}

// Inserts `snippet` after the opening <body ...> tag (or at the start).
std::string InsertInBody(const std::string& html, const std::string& snippet) {
  size_t pos = 0;
  for (size_t i = html.find('<'); i != std::string::npos; i = html.find('<', i + 1)) {
    if (i + 5 <= html.size() && (html.compare(i, 5, "<body") == 0 || html.compare(i, 5, "<BODY") == 0)) {
      size_t gt = html.find('>', i);
      if (gt != std::string::npos) pos = gt + 1;
      break;
    }
  }
  return html.substr(0, pos) + snippet + html.substr(pos);
}

// A page of about `max_bytes` keeping text: the part of the body from its
// start (head, scripts and styles mostly precede it), cut at a tag boundary.
std::string Shorten(const std::string& html, size_t max_bytes) {
  size_t start = 0;
  for (const char* tag : {"<body", "<BODY"}) {
    const size_t b = html.find(tag);
    if (b != std::string::npos) {
      start = b;
      break;
    }
  }
  size_t end = std::min(html.size(), start + max_bytes);
  const size_t lt = html.rfind('<', end);
  if (lt != std::string::npos && lt > start) end = lt;
  return "<html><head><meta charset=\"utf-8\"></head>" + html.substr(start, end - start) +
         "</body></html>";
}

std::string ContentTypeOf(const std::string& html) {
  // Keep the page's own charset declaration authoritative: send none in
  // HTTP when the page declares one, else say UTF-8.
  std::string head = html.substr(0, 4096);
  std::transform(head.begin(), head.end(), head.begin(), ::tolower);
  return head.find("charset") != std::string::npos ? "text/html" : "text/html; charset=utf-8";
}

struct Args {
  std::string list, html_dir, out, truth;
  uint64_t pages = 0, seed = 1, max_page_bytes = 0;
  std::string host_tag;  // put in front of every host name (--host-tag)
};

void CheckStatus(const neardup::Status& s, const std::string& what) {
  if (!s.ok()) Die(what + ": " + s.ToString());
}

int RunList(const Args& a, neardup::io::WarcWriter* w) {
  std::ifstream in(a.list);
  if (!in) Die("cannot read " + a.list);
  std::string line;
  int records = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string field;
    while (std::getline(ss, field, '\t')) f.push_back(field);
    if (f.size() < 3) Die("bad line in " + a.list + ": " + line);
    const std::string& url = f[0];
    const std::string& kind = f[2];
    neardup::io::WarcResponse r;
    r.url = url;
    std::string body;
    if (kind == "page" || kind == "reformat" || kind == "notfound") {
      body = LoadPage(a.html_dir + "/" + f[1]);
      if (kind == "reformat") body = Reformat(body);
      r.status = kind == "notfound" ? 404 : 200;
      r.content_type = ContentTypeOf(body);
      r.body = body;
      CheckStatus(w->WriteResponse(r), url);
    } else if (kind == "redirect") {
      if (f.size() < 4) Die("redirect needs a target: " + line);
      r.status = 301;
      r.content_type = "text/html";
      r.headers = {{"Location", f[3]}};
      body = "<html><body>Moved to <a href=\"" + f[3] + "\">" + f[3] + "</a></body></html>";
      r.body = body;
      CheckStatus(w->WriteResponse(r), url);
    } else if (kind == "text") {
      body = LoadPage(a.html_dir + "/" + f[1]);
      CheckStatus(w->WriteResource(url, "", "text/plain; charset=utf-8", body), url);
    } else if (kind == "request") {
      const std::string host = url.substr(url.find("//") + 2, url.find('/', url.find("//") + 2) - url.find("//") - 2);
      body = "GET " + url.substr(url.find('/', url.find("//") + 2)) + " HTTP/1.1\r\nHost: " + host +
             "\r\nUser-Agent: crawlgen\r\n\r\n";
      CheckStatus(w->WriteRecord("request", "",
                                 {{"WARC-Target-URI", url},
                                  {"Content-Type", "application/http; msgtype=request"}},
                                 body),
                  url);
    } else if (kind == "image") {
      static const unsigned char kPng[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 0};
      CheckStatus(w->WriteResource(url, "", "image/png",
                                   std::string_view(reinterpret_cast<const char*>(kPng), sizeof kPng)),
                  url);
    } else {
      Die("unknown kind '" + kind + "' in " + a.list);
    }
    ++records;
  }
  return records;
}

int RunSynthetic(const Args& a, neardup::io::WarcWriter* w) {
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(a.html_dir)) {
    if (!e.is_regular_file()) continue;
    const std::string p = e.path().string();
    if (p.find("/gold/") != std::string::npos) continue;
    const bool html = p.ends_with(".html") || p.ends_with(".htm") || p.ends_with(".html.gz") ||
                      p.ends_with(".htm.gz");
    if (html) files.push_back(p);
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) Die("no .html or .html.gz pages under " + a.html_dir);
  std::vector<std::string> pool;
  size_t pool_bytes = 0;
  for (const auto& f : files) {
    std::string page = LoadPage(f);
    if (a.max_page_bytes && page.size() > a.max_page_bytes) page = Shorten(page, a.max_page_bytes);
    pool_bytes += page.size();
    pool.push_back(std::move(page));
    if (pool_bytes > (256u << 20)) break;
  }
  std::mt19937_64 rng(a.seed);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<uint32_t> fresh_source;  // fresh page k -> pool index
  std::ofstream truth;
  if (!a.truth.empty()) truth.open(a.truth);
  // Fresh page k: its real page with 35% of the words replaced (distinct
  // text, same template). Every fresh page is made the same way, so crawls
  // of any size have the same make-up per page.
  auto fresh_page = [&](uint64_t k) {
    return InsertInBody(MutateWords(pool[fresh_source[k]], k, 0.35),
                        "<p>crawlgen page " + std::to_string(k) + "</p>");
  };
  for (uint64_t i = 0; i < a.pages; ++i) {
    const double u = unit(rng);
    neardup::io::WarcResponse r;
    std::string body;
    uint64_t group;
    if (fresh_source.empty() || u < 0.60) {
      group = fresh_source.size();
      fresh_source.push_back(static_cast<uint32_t>(group % pool.size()));
      body = fresh_page(group);
      r.url = "http://" + a.host_tag + "site" + std::to_string(group % 997) + ".example/page/" + std::to_string(group);
    } else {
      // Heavy-tailed popularity: small k far more often.
      const double v = unit(rng);
      group = static_cast<uint64_t>(static_cast<double>(fresh_source.size()) * v * v * v);
      body = fresh_page(group);
      if (u < 0.75) {
        // exact copy
      } else if (u < 0.85) {
        body = Reformat(body);
      } else {
        body = InsertInBody(body, "<p>Generated " + std::to_string(1700000000 + i) + "</p>");
      }
      r.url = "http://" + a.host_tag + "mirror" + std::to_string(i % 101) + ".example/copy/" + std::to_string(i);
    }
    r.content_type = ContentTypeOf(body);
    r.body = body;
    CheckStatus(w->WriteResponse(r), r.url);
    if (truth) truth << r.url << '\t' << group << '\n';
  }
  return static_cast<int>(a.pages);
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Die("missing value for " + k);
      return argv[++i];
    };
    if (k == "--list") a.list = value();
    else if (k == "--html-dir") a.html_dir = value();
    else if (k == "--out") a.out = value();
    else if (k == "--truth") a.truth = value();
    else if (k == "--pages") a.pages = std::stoull(value());
    else if (k == "--seed") a.seed = std::stoull(value());
    else if (k == "--max-page-bytes") a.max_page_bytes = std::stoull(value());
    else if (k == "--host-tag") a.host_tag = value();
    else Die("unknown argument " + k + " (see the comment at the top of bench/crawlgen.cc)");
  }
  if (a.out.empty() || a.html_dir.empty() || (a.list.empty() && a.pages == 0)) {
    Die("usage: crawlgen (--list PAGES.tsv | --pages N) --html-dir DIR --out FILE.warc.gz");
  }
  auto file = neardup::Env::Default()->NewWritableFile(a.out);
  if (!file.ok()) Die("cannot write " + a.out);
  neardup::io::WarcWriterOptions options;
  options.seed = a.seed;
  neardup::io::WarcWriter writer(file.value().get(), options);
  CheckStatus(writer.WriteWarcinfo(fs::path(a.out).filename().string(),
                                   {{"software", "neardup crawlgen"}, {"format", "WARC File Format 1.1"}}),
              "warcinfo");
  const int n = a.list.empty() ? RunSynthetic(a, &writer) : RunList(a, &writer);
  CheckStatus(writer.Close(), a.out);
  std::fprintf(stderr, "crawlgen: wrote %d records to %s (%llu bytes)\n", n, a.out.c_str(),
               static_cast<unsigned long long>(writer.bytes_written()));
  return 0;
}
