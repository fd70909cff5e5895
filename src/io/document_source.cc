// Copyright neardup authors. Licensed under Apache-2.0.
//
// OpenDocumentSource(): walks the inputs in order, opens one file at a time
// and hands it to the reader its first bytes call for (WARC, ARC, JSON
// Lines, or a single HTML/text document).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "io/input_stream.h"
#include "io/reader_context.h"
#include "io/record_reader.h"
#include "neardup/env.h"
#include "neardup/source.h"

namespace neardup {

Status SourceOptions::Validate() const {
  if (max_record_bytes == 0) {
    return Status::InvalidArgument("max_record_bytes must be > 0 (default 64 MiB)");
  }
  if (max_record_bytes > (uint64_t{4} << 30)) {
    return Status::InvalidArgument("max_record_bytes must be <= 4 GiB (default 64 MiB)");
  }
  for (const std::string& e : folder_extensions) {
    if (e.size() < 2 || e[0] != '.') {
      return Status::InvalidArgument("folder_extensions entries must start with '.', got \"" + e +
                                     "\"");
    }
    for (char c : e) {
      if (c >= 'A' && c <= 'Z') {
        return Status::InvalidArgument("folder_extensions must be lower case, got \"" + e + "\"");
      }
    }
  }
  return Status::OK();
}

namespace io {
namespace {

std::string LowerAscii(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  return s;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The file name without a trailing compression suffix, lower-cased.
std::string BaseNameForType(const std::string& path) {
  std::string lower = LowerAscii(path);
  for (const char* z : {".gz", ".zst"}) {
    if (EndsWith(lower, z)) return lower.substr(0, lower.size() - std::char_traits<char>::length(z));
  }
  return lower;
}

bool IsTextFileName(const std::string& path) {
  std::string b = BaseNameForType(path);
  return EndsWith(b, ".txt");
}

// One whole file as one document (folder inputs, or .html/.txt given directly).
class SingleDocumentReader final : public RecordReader {
 public:
  SingleDocumentReader(InputStream* in, ReaderContext* ctx, std::string path)
      : in_(in), ctx_(ctx), path_(std::move(path)) {}
  bool Next(Document* doc) override {
    if (done_) return false;
    done_ = true;
    const uint64_t max_record = ctx_->options->max_record_bytes;
    size_t want = 1 << 16;
    size_t avail = in_->Ensure(want);
    while (avail >= want && avail <= max_record) {
      want = static_cast<size_t>(std::min<uint64_t>(uint64_t{want} * 4, max_record + 1));
      avail = in_->Ensure(want);
      if (want == max_record + 1) break;
    }
    ++ctx_->stats->records;
    if (avail > max_record) {
      ctx_->Warn(0, false, reason::kRecordTooLarge, "file larger than max_record_bytes");
      return false;
    }
    doc->Clear();
    const bool text = IsTextFileName(path_);
    doc->kind = text ? ContentKind::kText : ContentKind::kHtml;
    doc->content_type = text ? "text/plain" : "text/html";
    doc->url = path_;
    doc->source = path_;
    doc->source_offset = 0;
    doc->input_index = ctx_->input_index;
    doc->body.assign(in_->data(), avail);
    in_->Consume(avail);
    return true;
  }

 private:
  InputStream* in_;
  ReaderContext* ctx_;
  std::string path_;
  bool done_ = false;
};

struct InputSpec {
  std::string arg;
  bool is_stdin = false;
  bool is_dir = false;
  bool listed = false;             // folder listing attempted
  Status list_status;              // folder listing failure, reported on reach
  std::vector<std::string> files;  // folder members, sorted
};

class MultiSource final : public DocumentSource {
 public:
  MultiSource(const std::vector<std::string>& inputs, const SourceOptions& options, Env* env,
              ReadObserver* observer)
      : options_(options), env_(env) {
    ctx_.options = &options_;
    ctx_.stats = &stats_;
    ctx_.observer = observer;
    bool unknown_total = false;
    for (const std::string& arg : inputs) {
      InputSpec in;
      in.arg = arg;
      if (arg == "-") {
        in.is_stdin = true;
        unknown_total = true;
      } else if (env_->IsDirectory(arg)) {
        in.is_dir = true;
        ListFolder(&in);
        for (const std::string& f : in.files) {
          auto size = env_->GetFileSize(f);
          if (size.ok()) total_ += size.value();
        }
      } else {
        auto size = env_->GetFileSize(arg);
        if (size.ok()) total_ += size.value();
      }
      inputs_.push_back(std::move(in));
    }
    if (unknown_total) total_ = 0;
  }

  bool Next(Document* doc) override {
    for (;;) {
      if (reader_ != nullptr) {
        if (reader_->Next(doc)) {
          ++stats_.documents;
          stats_.payload_bytes += doc->body.size();
          stats_.input_bytes = done_bytes_ + stream_->compressed_consumed();
          return true;
        }
        CloseFile();
      }
      if (!OpenNextFile()) return false;
    }
  }

  const ReadStats& stats() const override { return stats_; }
  uint64_t bytes_consumed() const override {
    return done_bytes_ + (stream_ != nullptr ? stream_->compressed_consumed() : 0);
  }
  uint64_t bytes_total() const override { return total_; }

 private:
  void ListFolder(InputSpec* in) {
    in->listed = true;
    auto listing = env_->ListFilesRecursive(in->arg);
    if (!listing.ok()) {
      in->list_status = listing.status();
      return;
    }
    for (std::string& f : listing.value()) {
      std::string lower = LowerAscii(f);
      for (const std::string& ext : options_.folder_extensions) {
        if (EndsWith(lower, ext) || EndsWith(lower, ext + ".gz")) {
          in->files.push_back(std::move(f));
          break;
        }
      }
    }
  }

  void CloseFile() {
    if (stream_ != nullptr) done_bytes_ += stream_->compressed_consumed();
    stats_.input_bytes = done_bytes_;
    reader_.reset();
    stream_.reset();
    file_.reset();
  }

  // Advances to the next file that yields a reader. False when all inputs
  // are done.
  bool OpenNextFile() {
    for (;;) {
      if (input_ >= inputs_.size()) return false;
      InputSpec& in = inputs_[input_];
      ctx_.input_index = static_cast<uint32_t>(input_);
      if (in.is_dir) {
        if (file_in_dir_ == 0 && !in.list_status.ok()) {
          ctx_.file = in.arg;
          ctx_.Warn(0, false, reason::kUnreadableFile,
                    "cannot list folder: " + in.list_status.ToString());
        }
        if (file_in_dir_ >= in.files.size()) {
          ++input_;
          file_in_dir_ = 0;
          continue;
        }
        const std::string path = in.files[file_in_dir_++];
        if (OpenFile(path, /*in_folder=*/true)) return true;
        continue;
      }
      ++input_;
      file_in_dir_ = 0;
      if (OpenFile(in.is_stdin ? std::string("-") : in.arg, false)) return true;
    }
  }

  bool OpenFile(const std::string& path, bool in_folder) {
    ctx_.file = path;
    auto file = env_->NewSequentialFile(path);
    if (!file.ok()) {
      ctx_.Warn(0, false, reason::kUnreadableFile, file.status().ToString());
      return false;
    }
    ++stats_.inputs_opened;
    file_ = std::move(file).value();
    stream_ = std::make_unique<InputStream>(file_.get(), &ctx_);
    stream_->Init();
    size_t avail = stream_->Ensure(4096);
    while (avail == 0 && stream_->AtBreak()) {  // damage before any data
      stream_->PassBreak();
      avail = stream_->Ensure(4096);
    }
    if (avail == 0) {
      if (!stream_->ended_with_error()) {
        ctx_.Warn(0, false, reason::kEmptyFile,
                  stream_->compressed_consumed() == 0 ? "file is empty"
                                                      : "file decompresses to nothing");
      }
      CloseFile();
      return false;
    }
    const bool is_stdin = path == "-";
    if (in_folder) {
      reader_ = std::make_unique<SingleDocumentReader>(stream_.get(), &ctx_, path);
      return true;
    }
    switch (SniffFormat(std::string_view(stream_->data(), avail))) {
      case InputFormat::kWarc:
        reader_ = NewWarcReader(stream_.get(), &ctx_);
        return true;
      case InputFormat::kArc:
        reader_ = NewArcReader(stream_.get(), &ctx_);
        return true;
      case InputFormat::kJsonl:
        reader_ = NewJsonlReader(stream_.get(), &ctx_);
        return true;
      case InputFormat::kUnknown:
        break;
    }
    if (is_stdin) {
      reader_ = NewJsonlReader(stream_.get(), &ctx_);
      return true;
    }
    std::string base = BaseNameForType(path);
    if (EndsWith(base, ".html") || EndsWith(base, ".htm") || EndsWith(base, ".txt")) {
      reader_ = std::make_unique<SingleDocumentReader>(stream_.get(), &ctx_, path);
      return true;
    }
    ctx_.Warn(0, false, reason::kUnknownFormat,
              "not WARC, ARC or JSON Lines, and not named .html/.htm/.txt");
    CloseFile();
    return false;
  }

  SourceOptions options_;
  Env* env_;
  ReadStats stats_;
  ReaderContext ctx_;
  std::vector<InputSpec> inputs_;
  size_t input_ = 0;
  size_t file_in_dir_ = 0;
  uint64_t total_ = 0;
  uint64_t done_bytes_ = 0;
  // Destruction order: reader, then stream, then file.
  std::unique_ptr<SequentialFile> file_;
  std::unique_ptr<InputStream> stream_;
  std::unique_ptr<RecordReader> reader_;
};

}  // namespace
}  // namespace io

Result<std::unique_ptr<DocumentSource>> OpenDocumentSource(const std::vector<std::string>& inputs,
                                                           const SourceOptions& options, Env* env,
                                                           ReadObserver* observer) {
  NEARDUP_RETURN_IF_ERROR(options.Validate());
  if (env == nullptr) env = Env::Default();
  return std::unique_ptr<DocumentSource>(new io::MultiSource(inputs, options, env, observer));
}

}  // namespace neardup
