// Copyright neardup authors. Licensed under Apache-2.0.
//
// BuildSyntheticWeb: successive crawls of one small synthetic web (see
// apps/synth/synth.h for what is built and the truth file's columns).
//
// Shares (drawn per article with the seed, before every crawl after the
// first): 5% disappear, 10% change 1-3 words of one paragraph (small), 6%
// get a new text (large: a new truth group; scraped copies keep the old one,
// so the old cluster shrinks), 5% change markup only (tags, attributes,
// white space: the same text with other bytes). Every host gains 0-2
// articles, and 1-2 new scraped copies appear (clusters grow); 5% of the
// scraped copies disappear.
#include "synth/web.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <memory>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "io/warc_writer.h"
#include "neardup/source.h"
#include "synth/synth.h"
#include "synth/html_edit.h"
#include "synth/random.h"

namespace neardup {
namespace synth_internal {

std::set<std::string> ReachableFrom(const std::map<std::string, std::vector<std::string>>& links,
                                    const std::vector<std::string>& seeds) {
  std::set<std::string> seen;
  std::deque<const std::string*> queue;
  for (const std::string& s : seeds) {
    auto it = links.find(s);
    if (it != links.end() && seen.insert(it->first).second) queue.push_back(&it->first);
  }
  while (!queue.empty()) {
    const std::string* url = queue.front();
    queue.pop_front();
    for (const std::string& to : links.at(*url)) {
      auto it = links.find(to);
      if (it != links.end() && seen.insert(it->first).second) queue.push_back(&it->first);
    }
  }
  return seen;
}

std::string IsoTime(long long t) {
  // Howard Hinnant's civil_from_days.
  long long days = t >= 0 ? t / 86400 : (t - 86399) / 86400;
  const long long secs = t - days * 86400;
  days += 719468;
  const long long era = (days >= 0 ? days : days - 146096) / 146097;
  const long long doe = days - era * 146097;
  const long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const long long mp = (5 * doy + 2) / 153;
  const long long d = doy - (153 * mp + 2) / 5 + 1;
  const long long m = mp < 10 ? mp + 3 : mp - 9;
  const long long y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  char buf[128];
  std::snprintf(buf, sizeof buf, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lldZ", y, m, d, secs / 3600,
                secs / 60 % 60, secs % 60);
  return buf;
}

}  // namespace synth_internal

namespace {

using synth_internal::FoldedWords;
using synth_internal::MutateMarkup;
using synth_internal::Random;
using synth_internal::RemoveParagraphs;
using synth_internal::SplitWords;

constexpr long long kWebCrawlStart = 1767571200;  // 2026-01-05T00:00:00Z
constexpr long long kCrawlInterval = 7 * 86400;   // a week, as Fetterly et al.
constexpr size_t kMinParagraphWords = 12;
constexpr size_t kMaxParagraphWords = 400;

// Random streams (Random(seed, stream)).
constexpr uint64_t kStreamPlan = 1;
constexpr uint64_t kStreamText = 2;
constexpr uint64_t kStreamDrift = 100;   // + crawl number
constexpr uint64_t kStreamOrder = 1000;  // + crawl number

enum class Step { kNone, kMarkup, kSmall, kLarge };

// The pool's paragraphs handed out once each, then paragraphs of random pool
// words.
class TextSource {
 public:
  TextSource(std::vector<std::string> paragraphs, std::vector<std::string> vocabulary, uint64_t seed)
      : paragraphs_(std::move(paragraphs)), vocabulary_(std::move(vocabulary)), r_(seed, kStreamText) {}

  std::string NextParagraph() {
    if (next_ < paragraphs_.size()) return paragraphs_[next_++];
    ++generated_;
    std::string p;
    const uint64_t n = r_.Between(30, 60);
    for (uint64_t i = 0; i < n; ++i) {
      if (i) p += ' ';
      p += Word();
    }
    return p + ".";
  }
  std::string Word() { return vocabulary_.empty() ? "word" : r_.Pick(vocabulary_); }
  uint64_t generated() const { return generated_; }

 private:
  std::vector<std::string> paragraphs_;
  std::vector<std::string> vocabulary_;
  Random r_;
  size_t next_ = 0;
  uint64_t generated_ = 0;
};

struct Content {
  std::string title;
  std::vector<std::string> paragraphs;
  uint64_t group = 0;
};

struct Article {
  uint32_t host = 0, section = 0, number = 0;
  Content content;
  bool alive = true;
  bool orphan = false;  // no page links it
  bool print = false;   // has a printable copy /print/...
  uint64_t markup_seed = 0;  // != 0: served through MutateMarkup
  Step step = Step::kNone;   // change before the current crawl
  std::string Path() const {
    return "/s" + std::to_string(section + 1) + "/p" + std::to_string(number) + ".html";
  }
};

struct Host {
  std::string www, bare;
  bool orphan = false;  // no other host links it
  bool alias = false;   // `bare` serves the same pages
  std::string mirror;   // non-empty: a mirror host serves its pages
  bool mirror_linked = false;
  std::vector<std::string> sections;  // names
  std::vector<std::string> section_intro;
  std::string home_intro;
  std::vector<uint32_t> external;  // hosts its home page links
  uint32_t next_article = 1;
};

struct Scraped {
  uint32_t article = 0;
  uint32_t scraper = 0;
  std::string path;
  Content content;  // frozen at scrape time, 1-3 words edited
  bool alive = true;
};

struct Rendered {
  std::string url, html, group, kind;
  std::vector<std::string> links;  // absolute
  Step step = Step::kNone;
};

std::string Title(const std::string& paragraph) {
  std::string t;
  const auto words = SplitWords(paragraph);
  for (size_t i = 0; i < words.size() && i < 6; ++i) {
    if (i) t += ' ';
    t += words[i];
  }
  if (!t.empty() && t[0] >= 'a' && t[0] <= 'z') t[0] = static_cast<char>(t[0] - 32);
  return t;
}

Content NewContent(TextSource* text, Random* r, uint64_t* next_group) {
  Content c;
  const uint64_t n = r->Between(2, 3);
  for (uint64_t i = 0; i < n; ++i) c.paragraphs.push_back(text->NextParagraph());
  c.title = Title(c.paragraphs[0]);
  c.group = (*next_group)++;
  return c;
}

// Replaces 1-3 words of one paragraph.
void EditWords(Content* c, TextSource* text, Random* r) {
  std::string& p = c->paragraphs[r->Below(c->paragraphs.size())];
  std::vector<std::string> words;
  for (std::string_view w : SplitWords(p)) words.emplace_back(w);
  if (words.empty()) return;
  const uint64_t n = r->Between(1, 3);
  for (uint64_t i = 0; i < n; ++i) words[r->Below(words.size())] = text->Word();
  p.clear();
  for (size_t i = 0; i < words.size(); ++i) {
    if (i) p += ' ';
    p += words[i];
  }
}

class Web {
 public:
  Web(const SynthWebOptions& options, TextSource* text)
      : options_(options), text_(text), r_(options.seed, kStreamPlan) {}

  void Plan(SynthWebSummary* summary) {
    const uint32_t n = options_.hosts;
    hosts_.resize(n);
    for (uint32_t h = 0; h < n; ++h) {
      Host& host = hosts_[h];
      host.bare = "site" + std::to_string(h) + ".example";
      host.www = "www." + host.bare;
      // Host 0 is the hub; about one host in five is an orphan (host 1 always
      // when there are at least 3 hosts, so every web has one).
      host.orphan = h > 0 && ((h == 1 && n >= 3) || (h > 1 && r_.Chance(0.2)));
      host.alias = h == 1 || r_.Chance(0.3);
      if (h > 0 && (h == n - 1 || r_.Chance(0.2))) {
        host.mirror = "mirror" + std::to_string(h) + ".example";
        host.mirror_linked = r_.Chance(0.5);
        ++summary->mirror_hosts;
      }
      summary->alias_hosts += host.alias;
      summary->orphan_hosts += host.orphan;
      host.home_intro = text_->NextParagraph();
      const uint64_t sections = r_.Between(2, 3);
      for (uint64_t s = 0; s < sections; ++s) {
        host.section_intro.push_back(text_->NextParagraph());
        host.sections.push_back(Title(host.section_intro.back()));
        const uint64_t articles = r_.Between(2, 4);
        for (uint64_t a = 0; a < articles; ++a) AddArticle(h, static_cast<uint32_t>(s), false);
      }
    }
    // The last article of host 1 (or 0) is always an orphan page.
    for (size_t i = articles_.size(); i-- > 0;) {
      if (articles_[i].host == (n > 1 ? 1u : 0u)) {
        articles_[i].orphan = true;
        break;
      }
    }
    for (uint32_t h = 1; h < n; ++h) {
      hosts_[h].external.push_back(0);
      const uint32_t other = static_cast<uint32_t>(r_.Below(n));
      if (other != h && other != 0 && !hosts_[other].orphan) hosts_[h].external.push_back(other);
      if (!hosts_[h].orphan) hosts_[0].external.push_back(h);
    }
    scrapers_ = std::max<uint32_t>(1, n / 4);
    summary->scraper_hosts = scrapers_;
    summary->hosts = n;
    for (uint32_t i = 0; i < n / 2 + 1; ++i) Scrape();
  }

  void Drift(uint32_t crawl) {
    Random r(options_.seed, kStreamDrift + crawl);
    for (Article& a : articles_) {
      a.step = Step::kNone;
      if (!a.alive) continue;
      const double u = r.Unit();
      if (u < 0.05) {
        a.alive = false;
      } else if (u < 0.15) {
        EditWords(&a.content, text_, &r);
        a.step = Step::kSmall;
      } else if (u < 0.21) {
        a.content = NewContent(text_, &r, &next_group_);
        a.step = Step::kLarge;
      } else if (u < 0.26) {
        a.markup_seed = r.Next() | 1;
        a.step = Step::kMarkup;
      }
    }
    for (Scraped& s : scraped_) {
      if (s.alive && r.Chance(0.05)) s.alive = false;
    }
    for (uint32_t h = 0; h < hosts_.size(); ++h) {
      const uint64_t added = r.Below(3);
      for (uint64_t i = 0; i < added; ++i) {
        AddArticle(h, static_cast<uint32_t>(r.Below(hosts_[h].sections.size())), true);
      }
    }
    const uint64_t copies = r.Between(1, 2);
    for (uint64_t i = 0; i < copies; ++i) Scrape();
  }

  // Every page of the current state.
  std::vector<Rendered> Render() const {
    std::vector<Rendered> out;
    for (uint32_t h = 0; h < hosts_.size(); ++h) {
      const Host& host = hosts_[h];
      std::vector<std::pair<std::string, std::string>> names = {{host.www, "www"}};
      if (host.alias) names.push_back({host.bare, "alias"});
      if (!host.mirror.empty()) names.push_back({host.mirror, "mirror"});
      for (const auto& name_role : names) {
        const std::string& name = name_role.first;
        const std::string& role = name_role.second;  // a reference a lambda may capture (clang 14)
        const std::string footer =
            role == "mirror" ? "Mirror of " + host.www + " kept by " + host.mirror + "."
                             : "Copyright " + host.bare + ". All rights reserved.";
        const auto kind = [&](const char* own) { return role == "www" ? std::string(own) : role; };
        out.push_back(Home(h, name, footer, kind("home")));
        for (uint32_t s = 0; s < host.sections.size(); ++s) {
          out.push_back(SectionPage(h, s, name, footer, kind("section")));
        }
        for (const Article& a : articles_) {
          if (a.host != h || !a.alive) continue;
          out.push_back(ArticlePage(a, name, footer, kind(a.orphan ? "orphan" : "article")));
          if (a.print) out.push_back(PrintPage(a, name, kind("print")));
        }
      }
    }
    for (uint32_t s = 0; s < scrapers_; ++s) out.push_back(ScraperHome(s));
    for (const Scraped& c : scraped_) {
      if (c.alive) out.push_back(ScrapedPage(c));
    }
    return out;
  }

  std::string SeedUrl() const { return "http://" + hosts_[0].www + "/"; }

 private:
  void AddArticle(uint32_t h, uint32_t section, bool later) {
    Article a;
    a.host = h;
    a.section = section;
    a.number = hosts_[h].next_article++;
    a.content = NewContent(text_, &r_, &next_group_);
    a.orphan = r_.Chance(later ? 0.15 : 0.1);
    a.print = r_.Chance(0.2);
    if (later) a.step = Step::kLarge;  // new URL anyway
    articles_.push_back(std::move(a));
  }

  void Scrape() {
    std::vector<uint32_t> candidates;
    for (uint32_t i = 0; i < articles_.size(); ++i) {
      if (articles_[i].alive && !articles_[i].orphan) candidates.push_back(i);
    }
    if (candidates.empty()) return;
    Scraped c;
    c.article = r_.Pick(candidates);
    c.scraper = static_cast<uint32_t>(r_.Below(scrapers_));
    c.path = "/copy/" + std::to_string(scraped_.size() + 1) + ".html";
    c.content = articles_[c.article].content;
    EditWords(&c.content, text_, &r_);
    scraped_.push_back(std::move(c));
  }

  static std::string Head(const std::string& title) {
    return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + title +
           "</title></head>\n<body>\n";
  }

  std::string Nav(const Host& host, const std::string& name, Rendered* page) const {
    std::string nav = "<div class=\"nav\"><a href=\"/\">Home</a>";
    page->links.push_back("http://" + name + "/");
    for (uint32_t s = 0; s < host.sections.size(); ++s) {
      const std::string path = "/s" + std::to_string(s + 1) + "/";
      nav += " | <a href=\"" + path + "\">" + host.sections[s] + "</a>";
      page->links.push_back("http://" + name + path);
    }
    return nav + "</div>\n";
  }

  static std::string Paragraphs(const Content& c) {
    std::string s;
    for (const std::string& p : c.paragraphs) s += "<p>" + p + "</p>\n";
    return s;
  }

  Rendered Home(uint32_t h, const std::string& name, const std::string& footer,
                const std::string& kind) const {
    const Host& host = hosts_[h];
    Rendered page;
    page.url = "http://" + name + "/";
    page.kind = kind;
    page.group = "h" + std::to_string(h) + ":/";
    std::string html = Head(host.bare + " home") + Nav(host, name, &page);
    html += "<h1>Welcome to " + host.bare + "</h1>\n<p>" + host.home_intro + "</p>\n<ul>\n";
    auto external = [&](const std::string& to_host, const std::string& label) {
      html += "<li><a href=\"http://" + to_host + "/\">" + label + "</a></li>\n";
      page.links.push_back("http://" + to_host + "/");
    };
    for (uint32_t to : host.external) external(hosts_[to].www, "Visit " + hosts_[to].bare);
    if (h == 0) {
      for (const Host& other : hosts_) {
        if (!other.mirror.empty() && other.mirror_linked) external(other.mirror, "Mirror of " + other.bare);
      }
      external("copies0.example", "Copies");
    }
    html += "</ul>\n<div class=\"footer\">" + footer + "</div>\n</body></html>\n";
    page.html = std::move(html);
    return page;
  }

  Rendered SectionPage(uint32_t h, uint32_t s, const std::string& name, const std::string& footer,
                       const std::string& kind) const {
    const Host& host = hosts_[h];
    Rendered page;
    page.url = "http://" + name + "/s" + std::to_string(s + 1) + "/";
    page.kind = kind;
    page.group = "h" + std::to_string(h) + ":/s" + std::to_string(s + 1) + "/";
    std::string html = Head(host.sections[s]) + Nav(host, name, &page);
    html += "<h1>" + host.sections[s] + "</h1>\n<p>" + host.section_intro[s] + "</p>\n<ul>\n";
    for (const Article& a : articles_) {
      if (a.host != h || a.section != s || !a.alive || a.orphan) continue;
      html += "<li><a href=\"" + a.Path() + "\">" + a.content.title + "</a></li>\n";
      page.links.push_back("http://" + name + a.Path());
    }
    html += "</ul>\n<div class=\"footer\">" + footer + "</div>\n</body></html>\n";
    page.html = std::move(html);
    return page;
  }

  Rendered ArticlePage(const Article& a, const std::string& name, const std::string& footer,
                       const std::string& kind) const {
    const Host& host = hosts_[a.host];
    Rendered page;
    page.url = "http://" + name + a.Path();
    page.kind = kind;
    page.group = "g" + std::to_string(a.content.group);
    page.step = a.step;
    std::string html = Head(a.content.title) + Nav(host, name, &page);
    html += "<h1>" + a.content.title + "</h1>\n" + Paragraphs(a.content);
    if (a.print) {
      html += "<p class=\"tools\"><a href=\"/print" + a.Path() + "\">Printable version</a></p>\n";
      page.links.push_back("http://" + name + "/print" + a.Path());
    }
    html += "<div class=\"footer\">" + footer + "</div>\n</body></html>\n";
    page.html = a.markup_seed ? MutateMarkup(html, a.markup_seed) : std::move(html);
    return page;
  }

  Rendered PrintPage(const Article& a, const std::string& name, const std::string& kind) const {
    Rendered page;
    page.url = "http://" + name + "/print" + a.Path();
    page.kind = kind;
    page.group = "g" + std::to_string(a.content.group);
    page.step = a.step == Step::kMarkup ? Step::kNone : a.step;
    page.html = Head(a.content.title) + "<p class=\"print\">Printer-friendly page</p>\n<h1>" +
                a.content.title + "</h1>\n" + Paragraphs(a.content) + "</body></html>\n";
    return page;
  }

  Rendered ScraperHome(uint32_t s) const {
    Rendered page;
    const std::string name = "copies" + std::to_string(s) + ".example";
    page.url = "http://" + name + "/";
    page.kind = "scraped";
    page.group = "c" + std::to_string(s) + ":/";
    std::string html = Head("Best articles from " + name) + "<h1>Articles found for you by " + name +
                       "</h1>\n<ul>\n";
    for (const Scraped& c : scraped_) {
      if (c.scraper != s || !c.alive) continue;
      html += "<li><a href=\"" + c.path + "\">" + c.content.title + "</a></li>\n";
      page.links.push_back("http://" + name + c.path);
    }
    page.html = html + "</ul>\n</body></html>\n";
    return page;
  }

  Rendered ScrapedPage(const Scraped& c) const {
    Rendered page;
    const std::string name = "copies" + std::to_string(c.scraper) + ".example";
    page.url = "http://" + name + c.path;
    page.kind = "scraped";
    page.group = "g" + std::to_string(c.content.group);
    page.html = Head(c.content.title) + "<div class=\"ad\">Sponsored links</div>\n<h1>" +
                c.content.title + "</h1>\n" + Paragraphs(c.content) +
                "<p><a href=\"/\">More articles</a></p>\n</body></html>\n";
    page.links.push_back("http://" + name + "/");
    return page;
  }

  const SynthWebOptions& options_;
  TextSource* text_;
  Random r_;
  std::vector<Host> hosts_;
  std::vector<Article> articles_;
  std::vector<Scraped> scraped_;
  uint32_t scrapers_ = 1;
  uint64_t next_group_ = 1;
};

Status ReadPool(const SynthWebOptions& options, Env* env, SynthWebSummary* summary,
                std::vector<std::string>* paragraphs, std::vector<std::string>* vocabulary) {
  SourceOptions source_options;
  source_options.keep_non_2xx = false;
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<DocumentSource> source,
                           OpenDocumentSource(options.inputs, source_options, env, nullptr));
  std::unordered_set<std::string> seen_paragraphs, seen_words;
  Document doc;
  while (source->Next(&doc)) {
    ++summary->documents_read;
    if (doc.kind != ContentKind::kHtml || doc.body.empty()) continue;
    for (std::string& p : RemoveParagraphs(doc.body).paragraphs) {
      const size_t words = SplitWords(p).size();
      if (words < kMinParagraphWords || words > kMaxParagraphWords) continue;
      // Markup characters would change the page's structure: keep plain text.
      if (p.find_first_of("<>") != std::string::npos) continue;
      std::string key;
      for (const std::string& w : FoldedWords(p)) key += w + " ";
      if (!seen_paragraphs.insert(key).second) continue;
      for (const std::string& w : FoldedWords(p)) {
        const bool letters = std::all_of(w.begin(), w.end(), [](char c) { return c >= 'a' && c <= 'z'; });
        if (letters && w.size() >= 3 && seen_words.insert(w).second) vocabulary->push_back(w);
      }
      paragraphs->push_back(std::move(p));
    }
  }
  summary->pool_paragraphs = paragraphs->size();
  if (paragraphs->empty()) {
    return Status::NotFound("no usable pool page: the inputs hold no <p> paragraph of at least " +
                            std::to_string(kMinParagraphWords) + " words");
  }
  return Status::OK();
}

const char* StepName(Step s) {
  switch (s) {
    case Step::kMarkup: return "markup";
    case Step::kSmall: return "small";
    case Step::kLarge: return "large";
    case Step::kNone: break;
  }
  return "small";  // bytes differ though the page itself did not change: its link list did
}

}  // namespace

Status SynthWebOptions::Validate() const {
  if (inputs.empty())
    return Status::InvalidArgument("SynthWebOptions.inputs: give at least one input of pool pages");
  if (out_dir.empty()) return Status::InvalidArgument("SynthWebOptions.out_dir: the output folder is empty");
  if (crawls < 1 || crawls > 100) return Status::InvalidArgument("SynthWebOptions.crawls: must be in 1..100");
  if (hosts < 2 || hosts > 10000) return Status::InvalidArgument("SynthWebOptions.hosts: must be in 2..10000");
  return Status::OK();
}

Result<SynthWebSummary> BuildSyntheticWeb(const SynthWebOptions& options, Env* env) {
  NEARDUP_RETURN_IF_ERROR(options.Validate());
  if (env == nullptr) env = Env::Default();
  SynthWebSummary summary;
  std::vector<std::string> paragraphs, vocabulary;
  NEARDUP_RETURN_IF_ERROR(ReadPool(options, env, &summary, &paragraphs, &vocabulary));
  // Pool order is the inputs' order; shuffle so articles of one host do not
  // all come from one pool page.
  Random(options.seed, kStreamText + 1).Shuffle(&paragraphs);
  TextSource text(std::move(paragraphs), std::move(vocabulary), options.seed);
  Web web(options, &text);
  web.Plan(&summary);
  summary.seed_url = web.SeedUrl();

  if (Status s = env->CreateDirs(options.out_dir); !s.ok()) {
    return Status::IOError("cannot create " + options.out_dir + ": " + s.message());
  }
  summary.truth_path = options.out_dir + "/truth.tsv";
  std::string truth = "crawl\turl\tgroup\treachable\tchange\tkind\n";
  std::map<std::string, std::string> previous;  // url -> bytes in the previous crawl
  for (uint32_t crawl = 1; crawl <= options.crawls; ++crawl) {
    if (crawl > 1) web.Drift(crawl);
    std::vector<Rendered> pages = web.Render();
    std::map<std::string, std::vector<std::string>> links;
    for (const Rendered& p : pages) links[p.url] = p.links;
    const std::set<std::string> reachable =
        synth_internal::ReachableFrom(links, {summary.seed_url});
    Random(options.seed, kStreamOrder + crawl).Shuffle(&pages);

    const std::string name = "crawl-" + std::to_string(crawl) + ".warc.gz";
    const std::string path = options.out_dir + "/" + name;
    NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, env->NewWritableFile(path));
    io::WarcWriterOptions warc_options;
    warc_options.seed = options.seed * 1000 + crawl;
    const long long start = kWebCrawlStart + (crawl - 1) * kCrawlInterval;
    warc_options.default_date = synth_internal::IsoTime(start);
    io::WarcWriter writer(file.get(), warc_options);
    NEARDUP_RETURN_IF_ERROR(writer.WriteWarcinfo(
        name, {{"software", "neardup synth-web"},
               {"format", "WARC File Format 1.1"},
               {"description", "Crawl " + std::to_string(crawl) + " of " +
                                   std::to_string(options.crawls) +
                                   " of a synthetic web; truth in truth.tsv"},
               {"neardup-seed", std::to_string(options.seed)}}));
    std::map<std::string, std::string> current;
    uint64_t reached = 0;
    for (size_t i = 0; i < pages.size(); ++i) {
      const Rendered& p = pages[i];
      io::WarcResponse response;
      response.url = p.url;
      response.date = synth_internal::IsoTime(start + static_cast<long long>(i));
      response.content_type = "text/html; charset=utf-8";
      response.body = p.html;
      NEARDUP_RETURN_IF_ERROR(writer.WriteResponse(response));
      summary.bytes += p.html.size();
      auto prev = previous.find(p.url);
      const char* change = prev == previous.end() ? "new"
                           : prev->second == p.html ? "unchanged"
                                                    : StepName(p.step);
      ++summary.changes[change];
      const bool is_reachable = reachable.count(p.url) > 0;
      reached += is_reachable;
      truth += std::to_string(crawl) + "\t" + p.url + "\t" + p.group + "\t" +
               (is_reachable ? "1" : "0") + "\t" + change + "\t" + p.kind + "\n";
      current[p.url] = p.html;
    }
    NEARDUP_RETURN_IF_ERROR(writer.Close());
    summary.crawl_paths.push_back(path);
    summary.pages.push_back(pages.size());
    summary.reachable.push_back(reached);
    previous = std::move(current);
  }
  summary.generated_paragraphs = text.generated();
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> truth_file,
                           env->NewWritableFile(summary.truth_path));
  NEARDUP_RETURN_IF_ERROR(truth_file->Append(truth.data(), truth.size()));
  NEARDUP_RETURN_IF_ERROR(truth_file->Close());
  return summary;
}

}  // namespace neardup
