// Copyright neardup authors. Licensed under Apache-2.0.
//
// WARC and ARC record readers over an InputStream.
//
// Tolerated WARC quirks: versions 0.17/0.18/1.0/1.1, a lower-case "warc/"
// version line, LF-only and CR CR LF header lines, folded header lines,
// records followed by a single CRLF (or LF, or nothing) instead of CRLF CRLF,
// blank lines between records.
//
// Damage handling: a record whose header is unusable, whose Content-Length
// is missing or runs into the next record, or that is cut short, is reported
// (file, offset of the record, reason) and the reader resynchronises at the
// next line starting with "WARC/" (or at the next gzip member after
// decompression damage, which InputStream marks with a break). Records longer
// than SourceOptions::max_record_bytes are streamed past with InputStream::Skip.
#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "io/http_response.h"
#include "io/record_reader.h"

namespace neardup::io {

namespace {

constexpr size_t kHeaderProbe = 8192;       // first look for a record header
constexpr size_t kMaxHeaderBytes = 1u << 20;  // longer headers are corrupt
constexpr size_t kResyncWindow = 65536;

inline char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

// memchr that accepts an empty (possibly null) range.
inline const void* FindByte(const char* p, char c, size_t n) {
  return n == 0 ? nullptr : std::memchr(p, c, n);
}

bool StartsWithWarc(const char* p, size_t n) {
  return n >= 5 && StartsWithNoCase(std::string_view(p, 5), "WARC/");
}

// Skips CR/LF (blank lines) before a record. Passes breaks. Returns false at
// the end of the stream.
bool SkipBlankLines(InputStream* in) {
  for (;;) {
    size_t avail = in->Ensure(1);
    if (avail == 0) {
      if (in->AtBreak()) {
        in->PassBreak();
        continue;
      }
      return false;
    }
    const char* p = in->data();
    size_t i = 0;
    while (i < avail && (p[i] == '\r' || p[i] == '\n' || p[i] == ' ' || p[i] == '\t')) ++i;
    in->Consume(i);
    if (i < avail) return true;
  }
}

// Drops bytes until the read position is at the start of a line for which
// `is_start(line_bytes, n, at_end)` holds, at a break (passed, since data
// resumes at a gzip member start), or at the end. The current position is
// not tested unless `test_here`.
template <typename IsStart>
void ResyncTo(InputStream* in, bool test_here, size_t lookahead, IsStart is_start) {
  if (test_here) {
    size_t avail = in->Ensure(lookahead);
    if (avail > 0 && is_start(in->data(), avail, avail < lookahead)) return;
  }
  for (;;) {
    size_t avail = in->Ensure(kResyncWindow);
    if (avail == 0) {
      if (in->AtBreak()) in->PassBreak();
      return;
    }
    const bool short_window = avail < kResyncWindow;  // end or break follows
    const char* p = in->data();
    size_t consumed = avail;
    size_t i = 0;
    while (i < avail) {
      const void* nl = FindByte(p + i, '\n', avail - i);
      if (nl == nullptr) break;
      size_t k = static_cast<size_t>(static_cast<const char*>(nl) - p) + 1;
      if (avail - k >= lookahead || short_window) {
        if (k < avail && is_start(p + k, avail - k, short_window)) {
          in->Consume(k);
          return;
        }
        i = k;
      } else {
        consumed = k - 1;  // keep the LF: decide once more bytes are in
        break;
      }
    }
    in->Consume(consumed);
  }
}

void ResyncWarc(InputStream* in, bool test_here) {
  ResyncTo(in, test_here, 5, [](const char* p, size_t n, bool) { return StartsWithWarc(p, n); });
}

std::string_view StripAngles(std::string_view s) {
  s = TrimWhitespace(s);
  if (s.size() >= 2 && s.front() == '<' && s.back() == '>') s = s.substr(1, s.size() - 2);
  return s;
}

// Whether a revisit record's WARC-Profile says its content is an earlier
// capture's, which the crawler did not store again: "identical-payload-digest"
// and "server-not-modified" (WARC 1.0 and 1.1, "Revisit"), and the
// "uri-agnostic-identical-payload-digest" profile some crawlers write, under
// any version's namespace. A revisit of another or no profile is skipped as
// type:revisit.
bool RevisitOfEarlierCapture(std::string_view profile) {
  profile = StripAngles(profile);
  const size_t slash = profile.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? profile : profile.substr(slash + 1);
  return EqualsNoCase(name, "identical-payload-digest") || EqualsNoCase(name, "server-not-modified") ||
         EqualsNoCase(name, "uri-agnostic-identical-payload-digest");
}

// Reads the HTTP head at the start of `block` into doc: status, media type
// and charset, and a 3xx's Location (a revisit's 304 has none). A status
// other than 2xx is kept only with keep_non_2xx, but a revisit's 304 always:
// the capture it revisits is what the server did not send again. False,
// with a warning or a skip counted, when the record is not kept.
bool TakeHttpHead(ReaderContext* ctx, std::string_view block, const Origin& origin, bool revisit, Document* doc,
                  HttpHead* head) {
  if (!ParseHttpHead(block, head)) {
    ctx->Warn(origin.offset, origin.in_decompressed_stream, reason::kBadHttp,
              revisit ? "revisit block has no HTTP status line" : "response block has no HTTP status line");
    return false;
  }
  doc->http_status = head->status;
  ParseContentType(head->content_type, &doc->content_type, &doc->declared_charset);
  const bool not_modified = revisit && head->status == 304;
  if (head->status >= 300 && head->status < 400 && !not_modified) doc->redirect_target.assign(head->location);
  if ((head->status < 200 || head->status >= 300) && !not_modified && !ctx->options->keep_non_2xx) {
    ctx->CountSkip(reason::kHttpStatus);
    return false;
  }
  return true;
}

// doc->kind from its media type (plain text when `text` or a textual type);
// false, counted as non-text, for media that is not text.
bool TakeTextKind(ReaderContext* ctx, bool text, Document* doc) {
  const MediaClass mc = ClassifyMediaType(doc->content_type);
  if (mc == MediaClass::kNonText) {
    ctx->CountSkip(reason::kNonText);
    return false;
  }
  doc->kind = text || mc == MediaClass::kText ? ContentKind::kText : ContentKind::kHtml;
  return true;
}

// A revisit record as a Document with no body: its HTTP status, Content-Type
// and (for a 3xx) Location from the HTTP head the record keeps, the media
// type from the WARC Content-Type when it keeps none, under the rules of
// BuildDocumentFromBlock (TakeHttpHead, TakeTextKind). The caller sets the
// URL, the date and what it revisits.
bool BuildRevisitDocument(ReaderContext* ctx, std::string_view warc_content_type, std::string_view block,
                          const Origin& origin, Document* doc) {
  doc->source = ctx->file;
  doc->source_offset = origin.offset;
  doc->input_index = ctx->input_index;
  if (StartsWithNoCase(block, "HTTP/")) {
    HttpHead head;
    if (!TakeHttpHead(ctx, block, origin, /*revisit=*/true, doc, &head)) return false;
  } else if (!ContainsNoCase(warc_content_type, "application/http")) {
    ParseContentType(warc_content_type, &doc->content_type, &doc->declared_charset);
  }
  return TakeTextKind(ctx, false, doc);
}

// Record-type names used as stats keys: lower case, [a-z0-9_.-], <= 32 bytes,
// so damaged headers cannot explode the key space.
std::string TypeKey(std::string_view type) {
  std::string key = "type:";
  for (char c : type.substr(0, 32)) {
    c = Lower(c);
    key.push_back((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
                          c == '.'
                      ? c
                      : '_');
  }
  return key;
}

bool ParseDecimal(std::string_view s, uint64_t* out) {
  s = TrimWhitespace(s);
  if (s.empty() || s.size() > 18) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = v;
  return true;
}

// True when `block` has a line (not its first) that starts with "WARC/": the
// block ran into the next record.
bool BlockHasWarcLine(std::string_view block) {
  size_t i = 0;
  while (i < block.size()) {
    const void* nl = FindByte(block.data() + i, '\n', block.size() - i);
    if (nl == nullptr) return false;
    size_t k = static_cast<size_t>(static_cast<const char*>(nl) - block.data()) + 1;
    if (StartsWithWarc(block.data() + k, block.size() - k)) return true;
    i = k;
  }
  return false;
}

// --------------------------------------------------------------------------
// WARC

struct WarcHeader {
  std::string version;
  std::string type;
  std::string target_uri;
  std::string date;
  std::string content_type;
  std::string profile;              // WARC-Profile (revisit records)
  std::string refers_to_target_uri;  // WARC-Refers-To-Target-URI (revisit records)
  std::string refers_to_date;        // WARC-Refers-To-Date (revisit records)
  uint64_t content_length = 0;
  bool has_length = false;
  bool bad_length = false;

  void Clear() {
    version.clear(); type.clear(); target_uri.clear(); date.clear(); content_type.clear();
    profile.clear(); refers_to_target_uri.clear(); refers_to_date.clear();
    content_length = 0; has_length = false; bad_length = false;
  }
};

class WarcReader final : public RecordReader {
 public:
  WarcReader(InputStream* in, ReaderContext* ctx) : in_(in), ctx_(ctx) {}
  bool Next(Document* doc) override;

 private:
  enum class HeaderScan { kFound, kCut, kTooLong };
  HeaderScan FindHeaderEnd(size_t* header_len);
  void ParseHeader(std::string_view text);
  void ReportCut(const Origin& origin, std::string msg) {
    if (!(in_->AtBreak() || in_->ended_with_error())) {
      ctx_->Warn(origin.offset, origin.in_decompressed_stream, reason::kTruncated, std::move(msg));
    }
  }

  InputStream* in_;
  ReaderContext* ctx_;
  WarcHeader h_;
  std::string length_text_;
  bool seen_[8] = {};
  std::string scratch_;
};

WarcReader::HeaderScan WarcReader::FindHeaderEnd(size_t* header_len) {
  size_t want = kHeaderProbe;
  size_t scanned = 0;
  for (;;) {
    size_t avail = in_->Ensure(want);
    const char* p = in_->data();
    while (scanned < avail) {
      const void* nl = FindByte(p + scanned, '\n', avail - scanned);
      if (nl == nullptr) break;
      size_t e = static_cast<size_t>(static_cast<const char*>(nl) - p);
      size_t b = scanned;
      size_t t = e;
      while (t > b && p[t - 1] == '\r') --t;
      scanned = e + 1;
      if (t == b && b > 0) {
        *header_len = scanned;
        return HeaderScan::kFound;
      }
    }
    if (avail < want) return HeaderScan::kCut;
    if (want >= kMaxHeaderBytes) return HeaderScan::kTooLong;
    want *= 2;
  }
}

void WarcReader::ParseHeader(std::string_view text) {
  h_.Clear();
  length_text_.clear();
  std::string* last = nullptr;  // field that a folded line continues
  size_t pos = 0;
  bool first = true;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (first) {
      h_.version.assign(line);
      first = false;
      continue;
    }
    if (line.empty()) break;
    if (line[0] == ' ' || line[0] == '\t') {
      if (last != nullptr) {
        std::string_view more = TrimWhitespace(line);
        if (!last->empty() && !more.empty()) last->push_back(' ');
        last->append(more);
      }
      continue;
    }
    last = nullptr;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view name = TrimWhitespace(line.substr(0, colon));
    std::string_view value = TrimWhitespace(line.substr(colon + 1));
    std::string* slot = nullptr;
    bool* seen = nullptr;
    if (EqualsNoCase(name, "Content-Length")) {
      slot = &length_text_;
      seen = &seen_[0];
    } else if (EqualsNoCase(name, "WARC-Type")) {
      slot = &h_.type;
      seen = &seen_[1];
    } else if (EqualsNoCase(name, "WARC-Target-URI")) {
      slot = &h_.target_uri;
      seen = &seen_[2];
    } else if (EqualsNoCase(name, "WARC-Date")) {
      slot = &h_.date;
      seen = &seen_[3];
    } else if (EqualsNoCase(name, "Content-Type")) {
      slot = &h_.content_type;
      seen = &seen_[4];
    } else if (EqualsNoCase(name, "WARC-Profile")) {
      slot = &h_.profile;
      seen = &seen_[5];
    } else if (EqualsNoCase(name, "WARC-Refers-To-Target-URI")) {
      slot = &h_.refers_to_target_uri;
      seen = &seen_[6];
    } else if (EqualsNoCase(name, "WARC-Refers-To-Date")) {
      slot = &h_.refers_to_date;
      seen = &seen_[7];
    }
    if (slot != nullptr && !*seen) {  // the first occurrence wins
      *seen = true;
      slot->assign(value);
      last = slot;
    }
  }
  for (bool& b : seen_) b = false;
  if (ParseDecimal(length_text_, &h_.content_length)) {
    h_.has_length = true;
  } else {
    h_.bad_length = !length_text_.empty();
  }
}

bool WarcReader::Next(Document* doc) {
  const uint64_t max_record = ctx_->options->max_record_bytes;
  for (;;) {
    if (!SkipBlankLines(in_)) return false;
    const uint64_t start = in_->position();
    const Origin origin = in_->OriginOf(start);

    size_t avail = in_->Ensure(5);
    if (!StartsWithWarc(in_->data(), avail)) {
      ctx_->Warn(origin.offset, origin.in_decompressed_stream, reason::kGarbage,
                 "bytes that are not a WARC record (no \"WARC/\" version line)");
      ResyncWarc(in_, false);
      continue;
    }
    size_t header_len = 0;
    HeaderScan scan = FindHeaderEnd(&header_len);
    if (scan != HeaderScan::kFound) {
      ++ctx_->stats->records;
      if (scan == HeaderScan::kCut) {
        ReportCut(origin, "WARC header cut short by the end of the input");
      } else {
        ctx_->Warn(origin.offset, origin.in_decompressed_stream, reason::kCorruptHeader,
                   "WARC header has no end within 1 MiB");
      }
      ResyncWarc(in_, false);
      continue;
    }
    ParseHeader(std::string_view(in_->data(), header_len));
    in_->Consume(header_len);
    ++ctx_->stats->records;

    if (!h_.has_length) {
      ctx_->Warn(origin.offset, origin.in_decompressed_stream, reason::kBadLength,
                 h_.bad_length ? "WARC Content-Length \"" + length_text_.substr(0, 40) + "\" is not a number"
                               : std::string("WARC record has no Content-Length"));
      ResyncWarc(in_, true);
      continue;
    }
    std::string type;
    for (char c : h_.type) type.push_back(Lower(c));
    // A revisit record is read when its profile says its content is an
    // earlier capture's (RevisitOfEarlierCapture); others are skipped.
    const bool revisit = type == "revisit" && RevisitOfEarlierCapture(h_.profile);
    const bool wanted = type == "response" || type == "resource" || type == "conversion" || revisit;
    const uint64_t len = h_.content_length;

    if (len > max_record) {
      if (wanted) {
        ctx_->Warn(origin.offset, origin.in_decompressed_stream, reason::kRecordTooLarge,
                   "WARC " + type + " record of " + std::to_string(len) +
                       " bytes exceeds max_record_bytes");
      } else {
        ctx_->CountSkip(type.empty() ? "type:none" : TypeKey(type));
      }
      uint64_t skipped = in_->Skip(len);
      if (skipped < len) {
        ReportCut(origin, "record block ends after " + std::to_string(skipped) + " of " +
                              std::to_string(len) + " bytes");
      }
      continue;
    }

    const size_t need = static_cast<size_t>(len) + 9;  // block, CRLF CRLF, "WARC/"
    avail = in_->Ensure(need);
    if (avail < len) {
      ReportCut(origin, "record block ends after " + std::to_string(avail) + " of " +
                            std::to_string(len) + " bytes");
      ResyncWarc(in_, true);
      continue;
    }
    const char* p = in_->data();
    std::string_view block(p, static_cast<size_t>(len));
    size_t t = block.size();
    while (t < avail && (p[t] == '\r' || p[t] == '\n')) ++t;
    if (in_->RangeDamaged(start, in_->position() + t)) {
      in_->Consume(t);  // inflated from a damaged gzip member (already reported)
      continue;
    }
    const bool trailer_ok = t == avail || StartsWithWarc(p + t, avail - t);
    if (!trailer_ok && BlockHasWarcLine(block)) {
      ctx_->Warn(origin.offset, origin.in_decompressed_stream, reason::kBadLength,
                 "WARC Content-Length " + std::to_string(len) + " runs into the next record");
      ResyncWarc(in_, true);
      continue;
    }

    bool emitted = false;
    if (type.empty()) {
      ctx_->Warn(origin.offset, origin.in_decompressed_stream, reason::kCorruptHeader,
                 "WARC record has no WARC-Type");
    } else if (!wanted) {
      ctx_->CountSkip(TypeKey(type));
    } else if (revisit) {
      doc->Clear();
      emitted = BuildRevisitDocument(ctx_, h_.content_type, block, origin, doc);
      if (emitted) {
        doc->url.assign(StripAngles(h_.target_uri));
        doc->fetch_date.assign(h_.date);
        const std::string_view refers_to = StripAngles(h_.refers_to_target_uri);
        doc->revisit_of.assign(refers_to.empty() ? std::string_view(doc->url) : refers_to);
        doc->revisit_of_date.assign(h_.refers_to_date);
      }
    } else {
      doc->Clear();
      BlockKind kind = type == "response"   ? BlockKind::kResponse
                       : type == "resource" ? BlockKind::kResource
                                            : BlockKind::kConversion;
      emitted = BuildDocumentFromBlock(ctx_, kind, h_.content_type, block, origin, doc, &scratch_);
      if (emitted) {
        doc->url.assign(StripAngles(h_.target_uri));
        doc->fetch_date.assign(h_.date);
      }
    }
    in_->Consume(t);
    if (emitted) return true;
  }
}

// --------------------------------------------------------------------------
// ARC

struct ArcHeader {
  std::string_view url, date, mime;
  uint64_t length = 0;
};

// Parses "URL IP DATE MIME LENGTH" (v1) or the 10-field v2 line. Fields are
// taken from the right so URLs containing spaces survive.
bool ParseArcLine(std::string_view line, int version, ArcHeader* h) {
  std::vector<std::pair<size_t, size_t>> tok;  // [begin, end)
  size_t i = 0;
  while (i < line.size() && tok.size() < 64) {
    while (i < line.size() && line[i] == ' ') ++i;
    if (i >= line.size()) break;
    size_t b = i;
    while (i < line.size() && line[i] != ' ') ++i;
    tok.emplace_back(b, i);
  }
  const size_t n = tok.size();
  if (n < 5) return false;
  auto field = [&](size_t k) { return line.substr(tok[k].first, tok[k].second - tok[k].first); };
  if (!ParseDecimal(field(n - 1), &h->length)) return false;
  size_t url_end;  // index of the last URL token + 1
  if (version == 2 && n >= 10) {
    h->mime = field(n - 7);
    h->date = field(n - 8);
    url_end = n - 9;
  } else {
    h->mime = field(n - 2);
    h->date = field(n - 3);
    url_end = n - 4;
  }
  if (url_end == 0) return false;
  if (h->date != "-") {  // "-" stands for an unknown field in some ARC writers
    if (h->date.size() < 8 || h->date.size() > 17) return false;
    for (char c : h->date) {
      if (c < '0' || c > '9') return false;
    }
  }
  h->url = line.substr(tok[0].first, tok[url_end - 1].second - tok[0].first);
  return h->url.find(':') != std::string_view::npos;
}

// "20080430204825" -> "2008-04-30T20:48:25Z" (ISO 8601, like WARC-Date).
std::string ArcDateToIso(std::string_view d) {
  if (d == "-") return std::string();
  if (d.size() < 14) return std::string(d);
  std::string out;
  out.reserve(20);
  out.append(d.substr(0, 4)).push_back('-');
  out.append(d.substr(4, 2)).push_back('-');
  out.append(d.substr(6, 2)).push_back('T');
  out.append(d.substr(8, 2)).push_back(':');
  out.append(d.substr(10, 2)).push_back(':');
  out.append(d.substr(12, 2)).push_back('Z');
  return out;
}

bool IsArcHeaderAt(const char* p, size_t n, bool at_end) {
  const void* nl = FindByte(p, '\n', std::min<size_t>(n, 8192));
  if (nl == nullptr && !at_end) return false;
  size_t e = nl == nullptr ? std::min<size_t>(n, 8192) : static_cast<size_t>(static_cast<const char*>(nl) - p);
  std::string_view line(p, e);
  while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  ArcHeader h;
  return ParseArcLine(line, 1, &h);
}

class ArcReader final : public RecordReader {
 public:
  ArcReader(InputStream* in, ReaderContext* ctx) : in_(in), ctx_(ctx) {}
  bool Next(Document* doc) override;

 private:
  void Resync(bool test_here) { ResyncTo(in_, test_here, 8192, IsArcHeaderAt); }

  InputStream* in_;
  ReaderContext* ctx_;
  int version_ = 1;
  std::string scratch_;
};

bool ArcReader::Next(Document* doc) {
  const uint64_t max_record = ctx_->options->max_record_bytes;
  for (;;) {
    if (!SkipBlankLines(in_)) return false;
    const uint64_t start = in_->position();
    const Origin origin = in_->OriginOf(start);
    size_t avail = in_->Ensure(8192);
    const char* p = in_->data();
    const void* nl = FindByte(p, '\n', std::min<size_t>(avail, 8192));
    ArcHeader h;
    std::string_view line;
    if (nl != nullptr) {
      line = std::string_view(p, static_cast<size_t>(static_cast<const char*>(nl) - p));
      while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    }
    if (nl == nullptr || !ParseArcLine(line, version_, &h)) {
      if (nl == nullptr && avail < 8192) {
        ++ctx_->stats->records;
        if (!(in_->AtBreak() || in_->ended_with_error())) {
          ctx_->Warn(origin.offset, origin.in_decompressed_stream, reason::kTruncated,
                     "ARC header line cut short by the end of the input");
        }
      } else {
        ctx_->Warn(origin.offset, origin.in_decompressed_stream, reason::kGarbage,
                   "bytes that are not an ARC record header line");
      }
      Resync(false);
      continue;
    }
    const std::string url(h.url);
    const std::string date(h.date);
    const std::string mime(h.mime);
    const uint64_t len = h.length;
    in_->Consume(static_cast<size_t>(static_cast<const char*>(nl) - p) + 1);
    ++ctx_->stats->records;
    const bool filedesc = StartsWithNoCase(url, "filedesc:");

    if (len > max_record) {
      if (filedesc) {
        ctx_->CountSkip("type:filedesc");
      } else {
        ctx_->Warn(origin.offset, origin.in_decompressed_stream, reason::kRecordTooLarge,
                   "ARC record of " + std::to_string(len) + " bytes exceeds max_record_bytes");
      }
      uint64_t skipped = in_->Skip(len);
      if (skipped < len && !(in_->AtBreak() || in_->ended_with_error())) {
        ctx_->Warn(origin.offset, origin.in_decompressed_stream, reason::kTruncated,
                   "ARC record cut short by the end of the input");
      }
      continue;
    }
    avail = in_->Ensure(static_cast<size_t>(len) + 1);
    if (avail < len) {
      if (!(in_->AtBreak() || in_->ended_with_error())) {
        ctx_->Warn(origin.offset, origin.in_decompressed_stream, reason::kTruncated,
                   "ARC record ends after " + std::to_string(avail) + " of " +
                       std::to_string(len) + " bytes");
      }
      Resync(true);
      continue;
    }
    if (in_->RangeDamaged(start, in_->position() + len)) {
      in_->Consume(static_cast<size_t>(len));  // from a damaged gzip member (reported)
      continue;
    }
    std::string_view block(in_->data(), static_cast<size_t>(len));
    bool emitted = false;
    if (filedesc) {
      // The version block's first line is "<major> <minor> <origin>".
      if (!block.empty() && block[0] == '2') version_ = 2;
      ctx_->CountSkip("type:filedesc");
    } else {
      doc->Clear();
      emitted = BuildDocumentFromBlock(ctx_, BlockKind::kResponse, mime, block, origin, doc,
                                       &scratch_);
      if (emitted) {
        doc->url = url;
        doc->fetch_date = ArcDateToIso(date);
      }
    }
    in_->Consume(static_cast<size_t>(len));
    if (emitted) return true;
  }
}

}  // namespace

// --------------------------------------------------------------------------
// Shared block -> Document rules.

bool BuildDocumentFromBlock(ReaderContext* ctx, BlockKind kind,
                            std::string_view fallback_content_type, std::string_view block,
                            const Origin& origin, Document* doc, std::string* scratch) {
  const SourceOptions& opts = *ctx->options;
  doc->source = ctx->file;
  doc->source_offset = origin.offset;
  doc->input_index = ctx->input_index;

  const bool http = kind == BlockKind::kResponse &&
                    (StartsWithNoCase(block, "HTTP/") ||
                     ContainsNoCase(fallback_content_type, "application/http"));
  if (!http) {
    ParseContentType(fallback_content_type, &doc->content_type, &doc->declared_charset);
    if (!TakeTextKind(ctx, kind == BlockKind::kConversion, doc)) return false;
    ctx->FitBody(block.size(), doc);
    doc->body.assign(block.data(), block.size());
    return true;
  }

  HttpHead head;
  if (!TakeHttpHead(ctx, block, origin, /*revisit=*/false, doc, &head) || !TakeTextKind(ctx, false, doc)) {
    return false;
  }

  std::string_view body = block.substr(head.body_offset);
  const size_t max_out = static_cast<size_t>(opts.max_record_bytes);
  if (ContainsNoCase(head.transfer_encoding, "chunked")) {
    DecodeResult r = DecodeChunked(body, scratch, max_out);
    if (r == DecodeResult::kOk || r == DecodeResult::kTruncated) {
      body = *scratch;
    } else if (r == DecodeResult::kTooLarge) {
      ctx->Warn(origin.offset, origin.in_decompressed_stream, reason::kRecordTooLarge,
                "chunked body exceeds max_record_bytes");
      return false;
    }
    // kFailed: many crawlers store the body already de-chunked; use it raw.
  }
  std::string_view ce = TrimWhitespace(head.content_encoding);
  if (!ce.empty() && !EqualsNoCase(ce, "identity") && !EqualsNoCase(ce, "none")) {
    DecodeResult r = DecodeContent(ce, body, &doc->body, max_out);
    if (r == DecodeResult::kTooLarge) {
      ctx->Warn(origin.offset, origin.in_decompressed_stream, reason::kRecordTooLarge,
                "decoded body exceeds max_record_bytes");
      return false;
    }
    if (r == DecodeResult::kFailed) {
      if (!LooksLikeText(body) && !body.empty()) {
        ctx->Warn(origin.offset, origin.in_decompressed_stream, reason::kBadHttp,
                  "Content-Encoding " + std::string(ce) + " does not decode");
        return false;
      }
      doc->body.assign(body.data(), body.size());  // stored decoded already
    }
    return true;
  }
  ctx->FitBody(body.size(), doc);
  doc->body.assign(body.data(), body.size());
  return true;
}

InputFormat SniffFormat(std::string_view head) {
  if (head.size() >= 3 && static_cast<unsigned char>(head[0]) == 0xEF &&
      static_cast<unsigned char>(head[1]) == 0xBB && static_cast<unsigned char>(head[2]) == 0xBF) {
    head.remove_prefix(3);
  }
  size_t i = 0;
  while (i < head.size() && (head[i] == '\r' || head[i] == '\n' || head[i] == ' ' || head[i] == '\t')) {
    ++i;
  }
  head.remove_prefix(i);
  if (StartsWithWarc(head.data(), head.size())) return InputFormat::kWarc;
  if (StartsWithNoCase(head, "filedesc:")) return InputFormat::kArc;
  if (!head.empty() && head[0] == '{') return InputFormat::kJsonl;
  if (IsArcHeaderAt(head.data(), head.size(), true)) return InputFormat::kArc;
  return InputFormat::kUnknown;
}

std::unique_ptr<RecordReader> NewWarcReader(InputStream* in, ReaderContext* ctx) {
  return std::make_unique<WarcReader>(in, ctx);
}

std::unique_ptr<RecordReader> NewArcReader(InputStream* in, ReaderContext* ctx) {
  return std::make_unique<ArcReader>(in, ctx);
}

}  // namespace neardup::io
