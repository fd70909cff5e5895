// Copyright neardup authors. Licensed under Apache-2.0.
//
// OpenDocumentSource(): walks the inputs in order, opens one file at a time
// and hands it to the reader its first bytes call for (WARC, ARC, JSON
// Lines, or a single HTML/text document).
#include <zlib.h>

#include <algorithm>
#include <cstring>
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
  if (share.first_file > share.end_file ||
      (share.first_file == share.end_file && share.end_offset != 0 && share.first_offset > share.end_offset)) {
    return Status::InvalidArgument("an input share must not end before it starts");
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
    ctx_->FitBody(avail, doc);
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
  uint64_t left_out = 0;           // folder members of no kind read (images, styles, ...)
  uint64_t first_position = 0;     // of its first file in the run's file list
};

class MultiSource final : public DocumentSource {
 public:
  MultiSource(const std::vector<std::string>& inputs, const SourceOptions& options, Env* env,
              ReadObserver* observer)
      : options_(options), env_(env) {
    ctx_.options = &options_;
    ctx_.stats = &stats_;
    ctx_.observer = observer;
    ctx_.body_buffers = &body_buffers_;
    // The run's file list (ListInputFiles), each file sized once: a folder
    // that cannot be listed, or is empty, holds one place.
    bool unknown_total = false;
    for (const std::string& arg : inputs) {
      InputSpec in;
      in.arg = arg;
      in.first_position = files_.size();
      if (arg == "-") {
        in.is_stdin = true;
        unknown_total |= InSlice(files_.size());
        files_.push_back(InputFile{"-", 0});
      } else if (env_->IsDirectory(arg)) {
        in.is_dir = true;
        ListFolder(&in);
        if (in.files.empty()) files_.push_back(InputFile{arg, 0});
        for (const std::string& f : in.files) files_.push_back(InputFile{f, SizeOf(f)});
      } else {
        files_.push_back(InputFile{arg, SizeOf(arg)});
      }
      inputs_.push_back(std::move(in));
    }
    for (uint64_t position = 0; position < files_.size(); ++position) {
      if (InSlice(position)) total_ += files_[position].size;
    }
    if (unknown_total) total_ = 0;
  }

  // The files of the run, as ListInputFiles lists them.
  const std::vector<InputFile>& Files() const { return files_; }

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
  void Recycle(std::string* body) override { body_buffers_.Take(body); }

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
      bool taken = IsCrawlFileName(f);
      for (const std::string& ext : options_.folder_extensions) {
        if (taken) break;
        taken = EndsWith(lower, ext) || EndsWith(lower, ext + ".gz");
      }
      if (taken) {
        in->files.push_back(std::move(f));
      } else {
        ++in->left_out;
      }
    }
  }

  // Whether file `position` of the run's list has bytes in this share.
  uint64_t SizeOf(const std::string& path) const {
    auto size = env_->GetFileSize(path);
    return size.ok() ? size.value() : 0;
  }

  bool InSlice(uint64_t position) const {
    const InputShare& share = options_.share;
    return position >= share.first_file &&
           (position < share.end_file || (position == share.end_file && share.end_offset > 0)) &&
           RangeStart(position) < RangeEnd(position);
  }
  // The bytes of file `position` in this share.
  uint64_t RangeStart(uint64_t position) const {
    return position == options_.share.first_file ? options_.share.first_offset : 0;
  }
  uint64_t RangeEnd(uint64_t position) const {
    return position == options_.share.end_file ? options_.share.end_offset : UINT64_MAX;
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
        if (file_in_dir_ == 0 && !in.list_status.ok() && InSlice(in.first_position)) {
          ctx_.file = in.arg;
          ctx_.Warn(0, false, reason::kUnreadableFile,
                    "cannot list folder: " + in.list_status.ToString());
        }
        // A folder with no file in it, of any kind, says so: nothing of it
        // is left out by design, so nothing else would.
        if (file_in_dir_ == 0 && in.list_status.ok() && in.files.empty() && in.left_out == 0 &&
            InSlice(in.first_position) && RangeStart(in.first_position) == 0) {
          ctx_.file = in.arg;
          ctx_.Warn(0, false, reason::kEmptyFolder, "folder holds no files");
        }
        // Files of no kind read are counted, without a warning each, by the
        // share holding the first byte of the folder's first place.
        if (file_in_dir_ == 0 && in.left_out > 0 && InSlice(in.first_position) &&
            RangeStart(in.first_position) == 0) {
          stats_.skipped[std::string(reason::kFolderFileLeftOut)] += in.left_out;
          in.left_out = 0;
        }
        if (file_in_dir_ >= in.files.size()) {
          ++input_;
          file_in_dir_ = 0;
          continue;
        }
        const uint64_t position = in.first_position + file_in_dir_;
        const std::string path = in.files[file_in_dir_++];
        if (!InSlice(position)) continue;
        if (OpenFile(path, /*in_folder=*/true, position)) return true;
        continue;
      }
      ++input_;
      file_in_dir_ = 0;
      if (!InSlice(in.first_position)) continue;
      if (OpenFile(in.is_stdin ? std::string("-") : in.arg, false, in.first_position)) return true;
    }
  }

  bool OpenFile(const std::string& path, bool in_folder, uint64_t position) {
    ctx_.file = path;
    const uint64_t start = RangeStart(position), end = RangeEnd(position);
    auto file = env_->NewSequentialFile(path);
    if (!file.ok()) {
      // Reported once, by the share holding the file's first byte.
      if (start == 0) ctx_.Warn(0, false, reason::kUnreadableFile, file.status().ToString());
      return false;
    }
    if (start == 0) ++stats_.inputs_opened;
    file_ = std::move(file).value();
    stream_ = std::make_unique<InputStream>(file_.get(), &ctx_);
    if (start != 0 || end != UINT64_MAX) stream_->SetRange(start, end);
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
    if (in_folder && !IsCrawlFileName(path)) {
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
  BodyBuffers body_buffers_;  // large page buffers the consumer handed back (Recycle)
  std::vector<InputSpec> inputs_;
  std::vector<InputFile> files_;  // the run's file list (ListInputFiles)
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

const std::vector<std::string>& CrawlFileEndings() {
  static const std::vector<std::string> kEndings = {".warc", ".arc", ".wet", ".jsonl", ".ndjson"};
  return kEndings;
}

bool IsCrawlFileName(const std::string& path) {
  const std::string base = io::BaseNameForType(path);
  for (const std::string& ending : CrawlFileEndings()) {
    if (io::EndsWith(base, ending)) return true;
  }
  return false;
}

Result<uint64_t> NextRecordMember(const std::string& path, uint64_t offset, Env* env, uint64_t max_scan) {
  if (env == nullptr) env = Env::Default();
  NEARDUP_ASSIGN_OR_RETURN(uint64_t size, env->GetFileSize(path));
  if (offset >= size) return size;
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<SequentialFile> file, env->NewSequentialFile(path));
  // Only per-record-gzip files are divided: the file must start with a member.
  unsigned char magic[2] = {0, 0};
  size_t got = 0;
  NEARDUP_RETURN_IF_ERROR(file->Read(2, reinterpret_cast<char*>(magic), &got));
  if (got < 2 || magic[0] != 0x1f || magic[1] != 0x8b) return size;
  NEARDUP_RETURN_IF_ERROR(file->Skip(offset - 2));
  std::string window(static_cast<size_t>(std::min<uint64_t>(max_scan, size - offset)), '\0');
  size_t filled = 0;
  while (filled < window.size()) {
    NEARDUP_RETURN_IF_ERROR(file->Read(window.size() - filled, window.data() + filled, &got));
    if (got == 0) break;
    filled += got;
  }
  window.resize(filled);
  const auto* bytes = reinterpret_cast<const unsigned char*>(window.data());
  for (size_t at = 0; at + 3 <= window.size(); ++at) {
    if (bytes[at] != 0x1f || bytes[at + 1] != 0x8b || bytes[at + 2] != 0x08) continue;
    // A member header: does it inflate to the start of a WARC record?
    z_stream zs{};
    if (inflateInit2(&zs, 15 + 16) != Z_OK) return Status::IOError("zlib: inflateInit2 failed");
    char out[8];
    zs.next_in = const_cast<Bytef*>(bytes + at);
    zs.avail_in = static_cast<uInt>(std::min<size_t>(window.size() - at, 1 << 16));
    zs.next_out = reinterpret_cast<Bytef*>(out);
    zs.avail_out = sizeof out;
    int rc = Z_OK;
    while (zs.avail_out > 0 && rc == Z_OK) rc = inflate(&zs, Z_NO_FLUSH);
    const size_t produced = sizeof out - zs.avail_out;
    inflateEnd(&zs);
    if (produced >= 5 && std::memcmp(out, "WARC/", 5) == 0) return offset + at;
  }
  return size;
}

std::vector<InputShare> PlanInputShares(const std::vector<InputFile>& files, uint32_t parts, Env* env) {
  struct Cut {
    uint64_t file = 0, offset = 0;
    bool operator<(const Cut& o) const { return file != o.file ? file < o.file : offset < o.offset; }
  };
  parts = std::max<uint32_t>(parts, 1);
  uint64_t total = 0;
  for (const InputFile& f : files) total += f.size;
  std::vector<Cut> cuts(size_t{parts} + 1);
  cuts.back() = Cut{UINT64_MAX, 0};  // the last share also takes what was not listed
  uint64_t before = 0;               // bytes of the files before file i
  size_t i = 0;
  for (uint32_t r = 1; r < parts; ++r) {
    const uint64_t target = total * r / parts;
    while (i < files.size() && before + files[i].size <= target) before += files[i++].size;
    Cut cut{i, 0};
    if (i < files.size() && target > before) {
      auto member = NextRecordMember(files[i].path, target - before, env);
      if (member.ok() && *member < files[i].size) {
        cut.offset = *member;
      } else {
        cut.file = i + 1;
      }
    }
    cuts[r] = std::max(cut, cuts[r - 1]);
  }
  std::vector<InputShare> shares(parts);
  for (uint32_t r = 0; r < parts; ++r) shares[r] = InputShare{cuts[r].file, cuts[r].offset, cuts[r + 1].file, cuts[r + 1].offset};
  return shares;
}

std::vector<InputFile> ListInputFiles(const std::vector<std::string>& inputs, const SourceOptions& options,
                                      Env* env) {
  if (env == nullptr) env = Env::Default();
  return io::MultiSource(inputs, options, env, nullptr).Files();
}

Result<std::unique_ptr<DocumentSource>> OpenDocumentSource(const std::vector<std::string>& inputs,
                                                           const SourceOptions& options, Env* env,
                                                           ReadObserver* observer) {
  NEARDUP_RETURN_IF_ERROR(options.Validate());
  if (env == nullptr) env = Env::Default();
  return std::unique_ptr<DocumentSource>(new io::MultiSource(inputs, options, env, observer));
}

}  // namespace neardup
