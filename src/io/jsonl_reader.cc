// Copyright neardup authors. Licensed under Apache-2.0.
//
// JSON Lines reader: one JSON object per line,
//   {"url": "...", "html": "..."}  -> ContentKind::kHtml
//   {"url": "...", "text": "..."}  -> ContentKind::kText
// with optional "date" or "fetch_date" (string), "status" (integer) and
// "redirect" (string: the Location of a 3xx, as the service takes it; such a
// record needs no body), and "revisit_of" with optional "revisit_of_date"
// (strings: the URL and date of the earlier capture whose content this one
// is, as a WARC revisit record names them; such a record has no body).
// A line that is not such an object is reported as "bad-json" at the line's
// offset and skipped; blank lines are ignored. Lines longer than
// max_record_bytes are streamed past ("record-too-large").
#include <simdjson.h>

#include <cstring>
#include <memory>
#include <string>

#include "io/byte_buffer.h"
#include "io/record_reader.h"

namespace neardup::io {

namespace {

constexpr size_t kLineProbe = 65536;

class JsonlReader final : public RecordReader {
 public:
  JsonlReader(InputStream* in, ReaderContext* ctx) : in_(in), ctx_(ctx) {}
  bool Next(Document* doc) override;

 private:
  // Parses one line into *doc; on failure sets *why and returns false.
  bool ParseLine(std::string_view line, Document* doc, std::string* why);
  // Streams past the rest of an over-long line, through its LF.
  void SkipRestOfLine();

  InputStream* in_;
  ReaderContext* ctx_;
  simdjson::dom::parser parser_;
  ByteBuffer padded_;  // line copy with SIMDJSON_PADDING bytes after it
};

void JsonlReader::SkipRestOfLine() {
  for (;;) {
    size_t avail = in_->Ensure(kLineProbe);
    if (avail == 0) return;
    const void* nl = std::memchr(in_->data(), '\n', avail);
    if (nl != nullptr) {
      in_->Consume(static_cast<size_t>(static_cast<const char*>(nl) - in_->data()) + 1);
      return;
    }
    in_->Consume(avail);
  }
}

bool JsonlReader::ParseLine(std::string_view line, Document* doc, std::string* why) {
  padded_.Reserve(line.size() + simdjson::SIMDJSON_PADDING, 0);
  std::memcpy(padded_.data(), line.data(), line.size());
  std::memset(padded_.data() + line.size(), 0, simdjson::SIMDJSON_PADDING);
  simdjson::dom::element root;
  auto err = parser_.parse(reinterpret_cast<const uint8_t*>(padded_.data()), line.size(), false)
                 .get(root);
  if (err) {
    *why = std::string("not valid JSON: ") + simdjson::error_message(err);
    return false;
  }
  simdjson::dom::object obj;
  if (root.get(obj)) {
    *why = "line is not a JSON object";
    return false;
  }
  bool have_body = false;
  for (simdjson::dom::key_value_pair field : obj) {
    std::string_view key = field.key;
    std::string_view s;
    if (key == "url" || key == "html" || key == "text" || key == "date" || key == "fetch_date" ||
        key == "redirect" || key == "revisit_of" || key == "revisit_of_date") {
      if (field.value.get(s)) {
        *why = "field \"" + std::string(key) + "\" is not a string";
        return false;
      }
      if (key == "url") {
        doc->url.assign(s);
      } else if (key == "redirect") {
        doc->redirect_target.assign(s);
      } else if (key == "revisit_of") {
        doc->revisit_of.assign(s);
      } else if (key == "revisit_of_date") {
        doc->revisit_of_date.assign(s);
      } else if (key == "html" || key == "text") {
        if (have_body) {
          *why = "both \"html\" and \"text\" given";
          return false;
        }
        have_body = true;
        doc->kind = key == "html" ? ContentKind::kHtml : ContentKind::kText;
        doc->content_type = key == "html" ? "text/html" : "text/plain";
        ctx_->FitBody(s.size(), doc);
        doc->body.assign(s);
      } else if (doc->fetch_date.empty() || key == "fetch_date") {
        doc->fetch_date.assign(s);
      }
    } else if (key == "status") {
      int64_t v = 0;
      if (field.value.get(v) || v < 0 || v > 999) {
        *why = "field \"status\" is not an HTTP status number";
        return false;
      }
      doc->http_status = static_cast<int>(v);
    }
  }
  if (!doc->redirect_target.empty() && (doc->http_status < 300 || doc->http_status >= 400)) {
    *why = "field \"redirect\" needs a \"status\" of 3xx";
    return false;
  }
  if (!doc->revisit_of_date.empty() && doc->revisit_of.empty()) {
    *why = "field \"revisit_of_date\" needs \"revisit_of\"";
    return false;
  }
  if (!doc->revisit_of.empty()) {
    if (have_body) {
      *why = "a revisit (\"revisit_of\") has no \"html\" or \"text\" of its own";
      return false;
    }
    doc->kind = ContentKind::kHtml;
    doc->content_type = "text/html";
    return true;
  }
  if (!have_body && !doc->redirect_target.empty()) {
    doc->kind = ContentKind::kHtml;  // a redirect's body is its notice, often not kept
    doc->content_type = "text/html";
    return true;
  }
  if (!have_body) {
    *why = "object has neither \"html\" nor \"text\"";
    return false;
  }
  return true;
}

bool JsonlReader::Next(Document* doc) {
  const uint64_t max_record = ctx_->options->max_record_bytes;
  for (;;) {
    size_t avail = in_->Ensure(1);
    if (avail == 0) {
      if (in_->AtBreak()) {
        in_->PassBreak();
        continue;
      }
      return false;
    }
    const uint64_t start = in_->position();
    const Origin origin = in_->OriginOf(start);
    // Find the end of the line, growing the window as needed.
    size_t want = kLineProbe, scanned = 0, line_len = 0;
    bool has_nl = false, too_long = false;
    for (;;) {
      avail = in_->Ensure(want);
      const void* nl =
          avail > scanned ? std::memchr(in_->data() + scanned, '\n', avail - scanned) : nullptr;
      if (nl != nullptr) {
        line_len = static_cast<size_t>(static_cast<const char*>(nl) - in_->data());
        has_nl = true;
        break;
      }
      scanned = avail;
      if (avail > max_record) {
        too_long = true;
        break;
      }
      if (avail < want) {
        line_len = avail;
        break;
      }
      want *= 2;
    }
    if (line_len > max_record) too_long = true;
    if (too_long) {
      ++ctx_->stats->records;
      ctx_->Warn(origin.offset, origin.in_decompressed_stream, reason::kRecordTooLarge,
                 "JSON line longer than max_record_bytes");
      if (has_nl) {
        in_->Consume(line_len + 1);
      } else {
        SkipRestOfLine();
      }
      continue;
    }
    std::string_view line(in_->data(), line_len);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
      line.remove_suffix(1);
    }
    size_t lead = 0;
    while (lead < line.size() && (line[lead] == ' ' || line[lead] == '\t')) ++lead;
    line.remove_prefix(lead);
    if (line.empty()) {
      in_->Consume(line_len + (has_nl ? 1 : 0));
      continue;
    }
    if (in_->RangeDamaged(start, start + line_len + 1)) {
      in_->Consume(line_len + (has_nl ? 1 : 0));  // from a damaged gzip member (reported)
      continue;
    }
    ++ctx_->stats->records;
    doc->Clear();
    std::string why;
    bool ok;
    if (!has_nl && (in_->AtBreak() || in_->ended_with_error())) {
      ok = false;
      why = "line cut short by damage in the input";
    } else {
      ok = ParseLine(line, doc, &why);
      if (ok && ctx_->options->keep_json_lines) doc->json_line.assign(line);
    }
    in_->Consume(line_len + (has_nl ? 1 : 0));
    if (ok) {
      doc->source = ctx_->file;
      doc->source_offset = origin.offset;
      doc->input_index = ctx_->input_index;
      return true;
    }
    ctx_->Warn(origin.offset, origin.in_decompressed_stream, reason::kBadJson, why);
  }
}

}  // namespace

std::unique_ptr<RecordReader> NewJsonlReader(InputStream* in, ReaderContext* ctx) {
  return std::make_unique<JsonlReader>(in, ctx);
}

}  // namespace neardup::io
