// Copyright neardup authors. Licensed under Apache-2.0.
#include "synth/html_edit.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "synth/random.h"

namespace neardup::synth_internal {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f'; }
bool IsAlpha(char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

std::string LowerCopy(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = Lower(c);
  return out;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view lower) {
  if (a.size() != lower.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != lower[i]) return false;
  }
  return true;
}

bool In(std::string_view name, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), name) != set.end();
}

template <size_t N>
bool InList(std::string_view name, const char* const (&list)[N]) {
  for (const char* s : list) {
    if (name == s) return true;
  }
  return false;
}

// Elements whose content the scanner returns as one kRawText token.
bool IsRawTextElement(std::string_view name) {
  return In(name, {"script", "style", "noscript", "template", "noembed", "noframes", "iframe",
                   "svg", "textarea", "title", "xmp", "plaintext"});
}

// Start or end tags that end an open <p> element (HTML: the p end tag may
// be omitted before these; the end tags are those of its usual containers).
bool ClosesParagraph(std::string_view name) {
  return In(name,
            {"address",  "article",    "aside",   "blockquote", "body",    "caption", "center",
             "dd",       "details",    "dialog",  "dir",        "div",     "dl",      "dt",
             "fieldset", "figcaption", "figure",  "footer",     "form",    "h1",      "h2",
             "h3",       "h4",         "h5",      "h6",         "header",  "hgroup",  "hr",
             "html",     "li",         "listing", "main",       "menu",    "nav",     "ol",
             "p",        "plaintext",  "pre",     "search",     "section", "table",   "tbody",
             "td",       "tfoot",      "th",      "thead",      "tr",      "ul",      "xmp"});
}

// Position of "</name" followed by white space, '/', '>' or the end, at or
// after `from`; s.size() when absent.
size_t FindEndTag(std::string_view s, size_t from, std::string_view name) {
  if (name == "plaintext") return s.size();
  while (from < s.size()) {
    const size_t lt = s.find("</", from);
    if (lt == std::string_view::npos) return s.size();
    const size_t after = lt + 2 + name.size();
    if (after <= s.size() && EqualsIgnoreCase(s.substr(lt + 2, name.size()), name) &&
        (after == s.size() || IsSpace(s[after]) || s[after] == '/' || s[after] == '>')) {
      return lt;
    }
    from = lt + 2;
  }
  return s.size();
}

std::string Collapse(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool space = false;
  for (char c : text) {
    if (IsSpace(c)) {
      space = true;
      continue;
    }
    if (space && !out.empty()) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace

bool IsInlineTag(std::string_view n) {
  return In(n, {"a",      "abbr", "acronym", "b",    "bdi", "bdo",  "big",   "blink", "cite",
                "code",   "data", "del",     "dfn",  "em",  "font", "i",     "ins",   "kbd",
                "label",  "mark", "nobr",    "q",    "s",   "samp", "small", "span",  "strike",
                "strong", "sub",  "sup",     "time", "tt",  "u",    "var",   "wbr"});
}

bool IsHiddenElement(std::string_view n) {
  return In(n, {"script", "style", "noscript", "template", "noembed", "noframes", "iframe", "svg"});
}

bool IsUrlAttribute(std::string_view n) { return n == "href" || n == "src" || n == "action"; }

bool HtmlScanner::Next(HtmlToken* t) {
  t->attrs.clear();
  t->name.clear();
  t->self_closing = false;
  const size_t n = s_.size();
  if (!raw_until_.empty()) {
    std::string name = std::move(raw_until_);
    raw_until_.clear();
    const size_t e = FindEndTag(s_, pos_, name);
    if (e > pos_) {
      t->type = HtmlToken::Type::kRawText;
      t->begin = pos_;
      t->end = e;
      t->name = std::move(name);
      pos_ = e;
      return true;
    }
  }
  if (pos_ >= n) return false;
  t->begin = pos_;
  if (s_[pos_] == '<' && pos_ + 1 < n) {
    const char c = s_[pos_ + 1];
    if (IsAlpha(c)) {
      ParseTag(t, false);
      return true;
    }
    if (c == '/') {
      if (pos_ + 2 < n && IsAlpha(s_[pos_ + 2])) {
        ParseTag(t, true);
        return true;
      }
      const size_t gt = s_.find('>', pos_ + 2);  // "</>" or a bogus comment
      t->type = HtmlToken::Type::kDeclaration;
      t->end = gt == std::string_view::npos ? n : gt + 1;
      pos_ = t->end;
      return true;
    }
    if (c == '!' && s_.substr(pos_, 4) == "<!--") {
      // "<!-->" and "<!--->" are empty comments; else up to "-->" or "--!>".
      size_t p = pos_ + 4;
      size_t e = n;
      if (p < n && s_[p] == '>') {
        e = p + 1;
      } else if (s_.substr(p, 2) == "->") {
        e = p + 2;
      } else {
        for (size_t gt = s_.find('>', p); gt != std::string_view::npos; gt = s_.find('>', gt + 1)) {
          if ((gt >= p + 2 && s_[gt - 1] == '-' && s_[gt - 2] == '-') ||
              (gt >= p + 3 && s_[gt - 1] == '!' && s_[gt - 2] == '-' && s_[gt - 3] == '-')) {
            e = gt + 1;
            break;
          }
        }
      }
      t->type = HtmlToken::Type::kComment;
      t->end = e;
      pos_ = e;
      return true;
    }
    if (c == '!' && s_.substr(pos_, 9) == "<![CDATA[") {
      const size_t close = s_.find("]]>", pos_ + 9);
      t->type = HtmlToken::Type::kDeclaration;
      t->end = close == std::string_view::npos ? n : close + 3;
      pos_ = t->end;
      return true;
    }
    if (c == '!' || c == '?') {
      const size_t gt = s_.find('>', pos_ + 2);
      t->type = HtmlToken::Type::kDeclaration;
      t->end = gt == std::string_view::npos ? n : gt + 1;
      pos_ = t->end;
      return true;
    }
  }
  const size_t lt = s_.find('<', pos_ + 1);
  t->type = HtmlToken::Type::kText;
  t->end = lt == std::string_view::npos ? n : lt;
  pos_ = t->end;
  return true;
}

// WHATWG tokenizer states "tag name" to "after attribute value (quoted)":
// quotes open a value only after '='; an unterminated tag runs to the end.
void HtmlScanner::ParseTag(HtmlToken* t, bool end_tag) {
  const size_t n = s_.size();
  size_t p = pos_ + (end_tag ? 2 : 1);
  t->name_begin = p;
  while (p < n && !IsSpace(s_[p]) && s_[p] != '/' && s_[p] != '>') ++p;
  t->name_end = p;
  t->name = LowerCopy(s_.substr(t->name_begin, p - t->name_begin));
  while (p < n) {
    const char c = s_[p];
    if (IsSpace(c)) {
      ++p;
      continue;
    }
    if (c == '>') {
      ++p;
      break;
    }
    if (c == '/') {
      ++p;
      if (p < n && s_[p] == '>') {
        t->self_closing = true;
        ++p;
        break;
      }
      continue;
    }
    HtmlAttr attr;
    const size_t name_begin = p++;  // the first character may be '='
    while (p < n && !IsSpace(s_[p]) && s_[p] != '/' && s_[p] != '>' && s_[p] != '=') ++p;
    attr.name = LowerCopy(s_.substr(name_begin, p - name_begin));
    attr.value_begin = attr.value_end = p;
    size_t q = p;
    while (q < n && IsSpace(s_[q])) ++q;
    if (q < n && s_[q] == '=') {
      ++q;
      while (q < n && IsSpace(s_[q])) ++q;
      attr.has_value = true;
      if (q < n && (s_[q] == '"' || s_[q] == '\'')) {
        const size_t close = s_.find(s_[q], q + 1);
        attr.value_begin = q + 1;
        attr.value_end = close == std::string_view::npos ? n : close;
        p = close == std::string_view::npos ? n : close + 1;
      } else {
        attr.value_begin = q;
        while (q < n && !IsSpace(s_[q]) && s_[q] != '>') ++q;
        attr.value_end = q;
        p = q;
      }
    }
    if (!end_tag) t->attrs.push_back(std::move(attr));
  }
  t->type = end_tag ? HtmlToken::Type::kEndTag : HtmlToken::Type::kStartTag;
  t->end = p;
  pos_ = p;
  if (!end_tag && IsRawTextElement(t->name) && !(t->name == "svg" && t->self_closing)) {
    raw_until_ = t->name;
  }
}

// Appends what token `t` of `html` shows to a reader: text, the text of a
// visible raw-text element, a space for a block tag.
static void AppendVisible(std::string_view html, const HtmlToken& t, std::string* text) {
  switch (t.type) {
    case HtmlToken::Type::kText: text->append(html.substr(t.begin, t.end - t.begin)); break;
    case HtmlToken::Type::kRawText:
      if (!IsHiddenElement(t.name)) text->append(html.substr(t.begin, t.end - t.begin));
      text->push_back(' ');
      break;
    case HtmlToken::Type::kStartTag:
    case HtmlToken::Type::kEndTag:
      if (!IsInlineTag(t.name)) text->push_back(' ');
      break;
    default: text->push_back(' ');
  }
}

std::string VisibleText(std::string_view html) {
  std::string text;
  HtmlScanner scanner(html);
  HtmlToken t;
  while (scanner.Next(&t)) {
    AppendVisible(html, t, &text);
  }
  return Collapse(text);
}

ParagraphSplit RemoveParagraphs(std::string_view html) {
  ParagraphSplit out;
  std::vector<Edit> removed;
  HtmlScanner scanner(html);
  HtmlToken t;
  bool in_p = false;
  size_t p_begin = 0;
  std::string text;
  auto finish = [&](size_t end) {
    removed.push_back({p_begin, end, "\n"});  // keeps the block break
    out.paragraphs.push_back(Collapse(text));
    in_p = false;
  };
  while (scanner.Next(&t)) {
    const bool tag = t.type == HtmlToken::Type::kStartTag || t.type == HtmlToken::Type::kEndTag;
    if (in_p) {
      if (tag && ClosesParagraph(t.name)) {
        if (t.type == HtmlToken::Type::kEndTag && t.name == "p") {
          finish(t.end);
          continue;
        }
        finish(t.begin);  // the tag itself is read below, outside the paragraph
      } else {
        AppendVisible(html, t, &text);
        continue;
      }
    }
    if (t.type == HtmlToken::Type::kStartTag && t.name == "p") {
      in_p = true;
      p_begin = t.begin;
      text.clear();
    }
  }
  if (in_p) finish(html.size());
  if (!removed.empty()) out.first_paragraph_pos = removed.front().begin;
  out.without_paragraphs = ApplyEdits(html, std::move(removed));
  return out;
}

std::vector<std::string_view> SplitWords(std::string_view text) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && IsSpace(text[i])) ++i;
    const size_t b = i;
    while (i < text.size() && !IsSpace(text[i])) ++i;
    if (i > b) words.push_back(text.substr(b, i - b));
  }
  return words;
}

std::vector<std::string> FoldedWords(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view w : SplitWords(text)) {
    std::string f;
    for (char c : w) {
      const auto u = static_cast<unsigned char>(c);
      if (u >= 0x80 || (c >= '0' && c <= '9')) {
        f.push_back(c);
      } else if (IsAlpha(c)) {
        f.push_back(Lower(c));
      }
    }
    if (!f.empty()) out.push_back(std::move(f));
  }
  return out;
}

std::string ApplyEdits(std::string_view s, std::vector<Edit> edits) {
  std::stable_sort(edits.begin(), edits.end(),
                   [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
  std::string out;
  size_t extra = 0;
  for (const Edit& e : edits) extra += e.text.size();
  out.reserve(s.size() + extra);
  size_t cursor = 0;
  for (const Edit& e : edits) {
    if (e.begin < cursor) continue;  // overlapping: REQUIRES says it does not happen
    out.append(s.substr(cursor, e.begin - cursor));
    out.append(e.text);
    cursor = e.end;
  }
  out.append(s.substr(cursor));
  return out;
}

RawUrl ParseRawUrl(std::string_view v) {
  RawUrl u;
  size_t b = 0, e = v.size();
  while (b < e && static_cast<unsigned char>(v[b]) <= 0x20) ++b;
  while (e > b && static_cast<unsigned char>(v[e - 1]) <= 0x20) --e;
  u.trim_begin = b;
  u.trim_end = e;
  u.host_begin = u.host_end = b;
  size_t p = b;
  // Scheme: a letter, then letters, digits, '+', '-', '.', then ':'.
  if (p < e && IsAlpha(v[p])) {
    size_t q = p + 1;
    while (q < e && (IsAlpha(v[q]) || (v[q] >= '0' && v[q] <= '9') || v[q] == '+' || v[q] == '-' ||
                     v[q] == '.')) {
      ++q;
    }
    if (q < e && v[q] == ':') {
      u.has_scheme = true;
      const std::string scheme = LowerCopy(v.substr(p, q - p));
      u.web_scheme = scheme == "http" || scheme == "https";
      p = q + 1;
    }
  }
  if (e - p >= 2 && (v[p] == '/' || v[p] == '\\') && (v[p + 1] == '/' || v[p + 1] == '\\')) {
    u.has_authority = true;
    size_t a = p + 2;
    size_t ae = a;
    while (ae < e && v[ae] != '/' && v[ae] != '\\' && v[ae] != '?' && v[ae] != '#') ++ae;
    std::string_view authority = v.substr(a, ae - a);
    const size_t at = authority.rfind('@');
    if (at != std::string_view::npos) authority.remove_prefix(at + 1);
    if (!authority.empty() && authority.front() == '[') {
      const size_t close = authority.find(']');
      authority =
          authority.substr(1, close == std::string_view::npos ? authority.size() - 1 : close - 1);
    } else {
      const size_t colon = authority.find(':');
      if (colon != std::string_view::npos) authority = authority.substr(0, colon);
    }
    u.host = LowerCopy(authority);
    if (!u.host.empty() && u.host.back() == '.') u.host.pop_back();
    u.host_end = ae;
    p = ae;
  } else {
    u.host_end = u.host_begin;
  }
  const size_t q = v.find_first_of("?#", p);
  u.path_end = q == std::string_view::npos || q > e ? e : q;
  const size_t hash = v.find('#', p);
  u.fragment_begin = hash == std::string_view::npos || hash > e ? e : hash;
  u.has_query = u.path_end < u.fragment_begin;
  return u;
}

std::string AddSessionToLinks(std::string_view html, std::string_view host, std::string_view name,
                              std::string_view id, bool path_parameter) {
  std::vector<Edit> edits;
  HtmlScanner scanner(html);
  HtmlToken t;
  while (scanner.Next(&t)) {
    if (t.type != HtmlToken::Type::kStartTag) continue;
    std::string_view want;
    if (t.name == "a" || t.name == "area") {
      want = "href";
    } else if (t.name == "frame" || t.name == "iframe") {
      want = "src";
    } else if (t.name == "form") {
      want = "action";
    } else {
      continue;
    }
    for (const HtmlAttr& a : t.attrs) {
      if (a.name != want || !a.has_value) continue;
      const std::string_view value = html.substr(a.value_begin, a.value_end - a.value_begin);
      const RawUrl u = ParseRawUrl(value);
      if (u.trim_begin == u.trim_end || value[u.trim_begin] == '#') break;
      // "http:x" without "//" is relative when the page is http(s) too.
      const bool relative = (!u.has_scheme || u.web_scheme) && !u.has_authority;
      const bool same =
          relative || ((u.web_scheme || !u.has_scheme) && u.has_authority && u.host == host);
      if (!same) break;
      std::string text = path_parameter ? ";" : u.has_query ? "&amp;" : "?";
      text.append(name);
      text.push_back('=');
      text.append(id);
      const size_t at =
          a.value_begin + (!path_parameter && u.has_query ? u.fragment_begin : u.path_end);
      edits.push_back({at, at, std::move(text)});
      break;  // the first such attribute is the one readers use
    }
  }
  return ApplyEdits(html, std::move(edits));
}

std::string RewriteHosts(std::string_view html, const std::function<bool(std::string_view)>& match,
                         std::string_view scheme, std::string_view new_host) {
  std::vector<Edit> edits;
  HtmlScanner scanner(html);
  HtmlToken t;
  while (scanner.Next(&t)) {
    if (t.type != HtmlToken::Type::kStartTag) continue;
    for (const HtmlAttr& a : t.attrs) {
      if (!a.has_value || !IsUrlAttribute(a.name)) continue;
      const RawUrl u = ParseRawUrl(html.substr(a.value_begin, a.value_end - a.value_begin));
      if (!u.has_authority || (u.has_scheme && !u.web_scheme) || !match(u.host)) continue;
      std::string prefix = u.has_scheme ? std::string(scheme) + "://" : "//";
      prefix += new_host;
      edits.push_back(
          {a.value_begin + u.host_begin, a.value_begin + u.host_end, std::move(prefix)});
    }
  }
  return ApplyEdits(html, std::move(edits));
}

std::string MutateMarkup(std::string_view html, uint64_t seed) {
  Random rng(seed, 0x6d61726b7570ull);
  static const char* const kWords[] = {"v2",  "grid", "main", "box", "wrap", "ui",  "col",
                                       "row", "item", "flex", "alt", "new",  "sec", "blk"};
  static const char* const kSpaces[] = {"\n", "\n  ", "\n    ", " ", "\n\n", "\t", "\r\n"};
  static const char* const kUpper[] = {"div",   "span", "a",  "li",     "ul",      "td",  "tr",
                                       "table", "b",    "i",  "strong", "em",      "h1",  "h2",
                                       "h3",    "p",    "br", "img",    "section", "nav", "form"};
  static const char* const kAttr[] = {"div",     "span",    "li",  "ul", "td",
                                      "section", "article", "a",   "p",  "table",
                                      "header",  "footer",  "nav", "h2"};
  // Which changes this copy makes (at least one).
  bool upper = rng.Chance(0.5), attrs = rng.Chance(0.5), classes = rng.Chance(0.4),
       comments = rng.Chance(0.4), spaces = rng.Chance(0.6);
  if (!(upper || attrs || classes || comments || spaces)) spaces = true;
  std::array<bool, std::size(kUpper)> upper_names{};
  for (bool& b : upper_names) b = upper && rng.Chance(0.5);
  const std::string attr_name = std::string("data-") + rng.Pick(kWords);
  const std::string class_word =
      std::string(rng.Pick(kWords)) + "-" + std::to_string(rng.Below(100));
  const double attr_rate = 0.1 + 0.4 * rng.Unit(), class_rate = 0.3 + 0.7 * rng.Unit(),
               comment_rate = 0.05 + 0.2 * rng.Unit(), space_rate = 0.3 + 0.7 * rng.Unit();

  std::vector<Edit> edits;
  HtmlScanner scanner(html);
  HtmlToken t;
  int pre_depth = 0;
  size_t first_start_tag_name_end = std::string::npos;
  while (scanner.Next(&t)) {
    const bool start = t.type == HtmlToken::Type::kStartTag;
    const bool end = t.type == HtmlToken::Type::kEndTag;
    if (start && first_start_tag_name_end == std::string::npos)
      first_start_tag_name_end = t.name_end;
    if (start || end) {
      if (t.name == "pre" || t.name == "listing") pre_depth += start ? 1 : (pre_depth > 0 ? -1 : 0);
      for (size_t i = 0; i < std::size(kUpper); ++i) {
        if (upper_names[i] && t.name == kUpper[i]) {
          std::string up(html.substr(t.name_begin, t.name_end - t.name_begin));
          for (char& c : up) c = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c;
          edits.push_back({t.name_begin, t.name_end, std::move(up)});
          break;
        }
      }
    }
    if (start && attrs && InList(t.name, kAttr) && rng.Chance(attr_rate)) {
      char hex[16];
      std::snprintf(hex, sizeof hex, "%06llx",
                    static_cast<unsigned long long>(rng.Below(1u << 24)));
      edits.push_back({t.name_end, t.name_end, " " + attr_name + "=\"" + hex + "\""});
    }
    if (start && classes) {
      for (const HtmlAttr& a : t.attrs) {
        if (a.name != "class" || !a.has_value || a.value_begin == 0) continue;
        const char q = html[a.value_begin - 1];
        if ((q == '"' || q == '\'') && a.value_end < html.size() && html[a.value_end] == q &&
            rng.Chance(class_rate)) {
          edits.push_back({a.value_end, a.value_end, " " + class_word});
        }
        break;
      }
    }
    if ((start || end) && comments && !IsInlineTag(t.name) && !IsRawTextElement(t.name) &&
        ClosesParagraph(t.name) && rng.Chance(comment_rate)) {
      edits.push_back({t.end, t.end, std::string("<!-- ") + rng.Pick(kWords) + " -->"});
    }
    if (t.type == HtmlToken::Type::kText && spaces && pre_depth == 0) {
      const std::string_view s = html.substr(t.begin, t.end - t.begin);
      bool blank = true;
      for (char c : s) blank = blank && IsSpace(c);
      if (blank && rng.Chance(space_rate)) {
        std::string w = rng.Pick(kSpaces);
        if (w == s) w += " ";
        edits.push_back({t.begin, t.end, std::move(w)});
      }
    }
  }
  if (edits.empty() && first_start_tag_name_end != std::string::npos) {
    edits.push_back(
        {first_start_tag_name_end, first_start_tag_name_end, " " + attr_name + "=\"1\""});
  }
  return ApplyEdits(html, std::move(edits));
}

}  // namespace neardup::synth_internal
