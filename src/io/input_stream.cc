// Copyright neardup authors. Licensed under Apache-2.0.
#include "io/input_stream.h"

#include <libdeflate.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <string>
#include <utility>

namespace neardup::io {

namespace {

bool IsMemberHeader(const unsigned char* p, size_t n) {
  return n >= 3 && p[0] == 0x1f && p[1] == 0x8b && p[2] == 0x08;
}

}  // namespace

InputStream::InputStream(SequentialFile* file, ReaderContext* ctx, const StreamLimits& limits)
    : file_(file), ctx_(ctx), limits_(limits) {}

InputStream::~InputStream() {
  if (deflate_ != nullptr) libdeflate_free_decompressor(deflate_);
  if (zs_ != nullptr) {
    inflateEnd(zs_);
    delete zs_;
  }
  if (zstd_ != nullptr) ZSTD_freeDCtx(zstd_);
}

void InputStream::Warn(uint64_t offset, bool in_decompressed, std::string_view key,
                       std::string msg) {
  if (ctx_ != nullptr) ctx_->Warn(offset, in_decompressed, key, std::move(msg));
}

size_t InputStream::ReadFile(char* dst, size_t n) {
  size_t total = 0;
  while (total < n && !file_eof_) {
    size_t got = 0;
    Status s = file_->Read(n - total, dst + total, &got);
    if (!s.ok()) {
      Warn(file_bytes_read_, false, reason::kReadError, "read failed: " + s.ToString());
      file_eof_ = true;
      ended_with_error_ = true;
      break;
    }
    if (got == 0) {
      file_eof_ = true;
      break;
    }
    total += got;
    file_bytes_read_ += got;
  }
  return total;
}

void InputStream::RawFill(size_t n) {
  if (raw_avail() >= n || file_eof_) return;
  if (raw_pos_ > 0) {
    std::memmove(raw_.data(), raw_.data() + raw_pos_, raw_avail());
    raw_base_ += raw_pos_;
    raw_end_ -= raw_pos_;
    raw_pos_ = 0;
  }
  raw_.Reserve(std::max(n, limits_.read_chunk), raw_end_);
  while (raw_end_ < n && !file_eof_) {
    raw_end_ += ReadFile(raw_.data() + raw_end_, raw_.capacity() - raw_end_);
  }
}

void InputStream::SetRange(uint64_t start, uint64_t end) {
  range_start_ = start;
  range_end_ = std::max(start, end);
  if (start == 0) return;
  if (Status s = file_->Skip(start); !s.ok()) {
    Warn(start, false, reason::kReadError, "cannot move to offset " + std::to_string(start) + ": " + s.ToString());
    file_eof_ = true;
    ended_with_error_ = true;
  }
  raw_base_ = start;
}

void InputStream::Init() {
  RawFill(limits_.read_chunk);
  const auto* p = reinterpret_cast<const unsigned char*>(raw_.data() + raw_pos_);
  if (raw_avail() >= 2 && p[0] == 0x1f && p[1] == 0x8b) {
    compression_ = Compression::kGzip;
    deflate_ = libdeflate_alloc_decompressor();
    zs_ = new z_stream{};
    NEARDUP_CHECK(deflate_ != nullptr && inflateInit2(zs_, 15 + 16) == Z_OK);
  } else if (raw_avail() >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd) {
    compression_ = Compression::kZstd;
    zstd_ = ZSTD_createDCtx();
    NEARDUP_CHECK(zstd_ != nullptr);
  } else {
    // Uncompressed: the bytes read so far become the decompressed window.
    raw_.Swap(buf_);
    pos_ = raw_pos_;
    end_ = raw_end_;
    base_ = raw_base_;  // the file offset of the first byte (SetRange)
    raw_pos_ = raw_end_ = 0;
    raw_base_ = 0;
    raw_.Release();
    peak_capacity_ = buf_.capacity();
  }
  UpdateLimit();
}

void InputStream::UpdateLimit() {
  limit_ = end_;
  if (!breaks_.empty()) {
    uint64_t b = breaks_.front().at;
    if (b < base_ + end_) limit_ = static_cast<size_t>(b - base_);
  }
}

void InputStream::AddBreak(uint64_t suspect_from) {
  uint64_t at = base_ + end_;
  if (!breaks_.empty() && breaks_.back().at == at) return;
  breaks_.push_back(Break{at, suspect_from});
}

bool InputStream::RangeDamaged(uint64_t from, uint64_t to) const {
  for (const Break& b : breaks_) {
    if (b.suspect_from < to && from < b.at) return true;
  }
  return false;
}

void InputStream::PassBreak() {
  if (AtBreak()) breaks_.pop_front();
  UpdateLimit();
}

void InputStream::ReserveTail(size_t n) {
  if (buf_.capacity() - end_ >= n) return;
  if (pos_ > 0) {
    std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
    base_ += pos_;
    end_ -= pos_;
    limit_ -= pos_;
    pos_ = 0;
    // Member starts before the window are no longer needed by OriginOf.
    while (members_.size() > 1 && members_[1].first <= base_) members_.pop_front();
  }
  if (buf_.capacity() - end_ < n) {
    buf_.Reserve(end_ + n, end_);
    peak_capacity_ = std::max(peak_capacity_, buf_.capacity());
  }
}

size_t InputStream::Ensure(size_t n) {
  while (limit_ - pos_ < n && breaks_.empty() && !stream_eof_) {
    if (!FillOnce(n - (limit_ - pos_))) stream_eof_ = true;
    UpdateLimit();
  }
  return limit_ - pos_;
}

uint64_t InputStream::Skip(uint64_t n) {
  uint64_t done = 0;
  while (done < n) {
    size_t a = available();
    if (a == 0) {
      a = Ensure(static_cast<size_t>(std::min<uint64_t>(n - done, limits_.read_chunk)));
      if (a == 0) break;
    }
    size_t k = static_cast<size_t>(std::min<uint64_t>(a, n - done));
    pos_ += k;
    done += k;
  }
  return done;
}

Origin InputStream::OriginOf(uint64_t position) const {
  switch (compression_) {
    case Compression::kNone:
      return {position, false};
    case Compression::kZstd:
      return {position, true};
    case Compression::kGzip:
      for (auto it = members_.rbegin(); it != members_.rend(); ++it) {
        if (it->first == position) return {it->second, false};
        if (it->first < position) break;
      }
      return {position, true};
  }
  return {position, true};
}

bool InputStream::FillOnce(size_t want) {
  switch (compression_) {
    case Compression::kNone:
      return FillPlain(want);
    case Compression::kGzip:
      return FillGzip();
    case Compression::kZstd:
      return FillZstd();
  }
  return false;
}

bool InputStream::FillPlain(size_t want) {
  if (file_eof_) return false;
  ReserveTail(std::max(want, limits_.read_chunk));
  size_t got = ReadFile(buf_.data() + end_, buf_.capacity() - end_);
  end_ += got;
  return got > 0 || !file_eof_;
}

bool InputStream::FindNextMember() {
  for (;;) {
    const char* start = raw_.data() + raw_pos_;
    size_t n = raw_avail();
    const void* hit = n >= 3 ? std::memchr(start, 0x1f, n - 2) : nullptr;
    while (hit != nullptr) {
      size_t at = static_cast<size_t>(static_cast<const char*>(hit) - start);
      if (IsMemberHeader(reinterpret_cast<const unsigned char*>(start + at), n - at)) {
        raw_pos_ += at;
        return true;
      }
      hit = std::memchr(start + at + 1, 0x1f, n - 2 - (at + 1));
    }
    // Keep the last two bytes: a header may straddle the refill.
    size_t keep = std::min<size_t>(n, 2);
    raw_pos_ += n - keep;
    if (file_eof_) {
      raw_pos_ = raw_end_;
      return false;
    }
    RawFill(limits_.read_chunk);
    if (raw_avail() <= keep && file_eof_) {
      raw_pos_ = raw_end_;
      return false;
    }
  }
}

namespace {
constexpr size_t kSmallestMember = 20;  // gzip header 10, empty deflate 2, trailer 8
}  // namespace

size_t InputStream::NextMemberHeaderInWindow() const {
  const auto* start = reinterpret_cast<const unsigned char*>(raw_.data() + raw_pos_);
  const size_t n = raw_avail();
  if (n < kSmallestMember + 4) return 0;
  for (size_t at = kSmallestMember; at + 4 <= n;) {
    const void* hit = std::memchr(start + at, 0x1f, n - 3 - at);
    if (hit == nullptr) break;
    at = static_cast<size_t>(static_cast<const unsigned char*>(hit) - start);
    if (IsMemberHeader(start + at, n - at) && (start[at + 3] & 0xe0) == 0) return at;
    ++at;
  }
  return 0;
}

uint64_t InputStream::MemberSizeHint() const {
  // The member at raw_pos_ ends where the next begins (the first gzip header
  // after it: 1f 8b 08, reserved flag bits clear), or at the end of the
  // file when the window holds the rest of it; its last 4 bytes are ISIZE,
  // the output size modulo 2^32 (RFC 1952). A header's bytes inside the
  // compressed data give a wrong size now and then: the caller only sizes
  // its next attempt with it.
  const auto* start = reinterpret_cast<const unsigned char*>(raw_.data() + raw_pos_);
  const size_t n = raw_avail();
  if (n < kSmallestMember + 4) return 0;
  size_t member_end = NextMemberHeaderInWindow();
  if (member_end == 0) {
    if (!file_eof_ || raw_offset() + n > range_end_) return 0;  // the member goes on past the window
    member_end = n;
  }
  const unsigned char* isize = start + member_end - 4;
  return uint64_t{isize[0]} | uint64_t{isize[1]} << 8 | uint64_t{isize[2]} << 16 | uint64_t{isize[3]} << 24;
}

bool InputStream::FillGzip() {
  if (zs_active_) return InflateSome();
  if (raw_offset() >= range_end_) return false;  // the next member is another share's
  // The window is a read, or twice the largest member inflated so far (a
  // crawl of long pages), up to MaxMemberInput(); it is filled again when
  // it holds less than a quarter of a read, or than that member, or half
  // the window: what is left is moved to its front, so that no more is
  // moved than is read.
  const size_t window = std::min(std::max(limits_.read_chunk, 2 * largest_member_input_), MaxMemberInput());
  if (raw_avail() < std::max(limits_.read_chunk / 4, std::min(largest_member_input_, window / 2))) RawFill(window);
  if (raw_avail() == 0) return false;

  const auto* p = reinterpret_cast<const unsigned char*>(raw_.data() + raw_pos_);
  if (!IsMemberHeader(p, raw_avail())) {
    // Bytes that do not start a gzip member: skip to the next member header.
    uint64_t off = raw_offset();
    bool all_zero = true;
    for (size_t i = 0; i < raw_avail() && i < 4096 && all_zero; ++i) all_zero = p[i] == 0;
    if (!resyncing_ && !all_zero) {
      if (!had_member_ && off == 0) {
        Warn(off, false, reason::kCorruptGzip, "not a gzip member header (bad magic or method)");
      } else {
        Warn(off, false, reason::kGarbage, "bytes between gzip members that are no gzip member");
      }
      AddBreak(base_ + end_);
      resyncing_ = true;
    }
    if (!FindNextMember()) return false;
    return true;  // state changed; the caller loops
  }

  const uint64_t member_off = raw_offset();
  size_t out_cap = std::min(limits_.first_member_guess, limits_.max_member_output);
  bool size_asked = false;
  for (;;) {
    ReserveTail(out_cap);
    size_t in_used = 0, out_used = 0;
    ++whole_member_attempts_;
    libdeflate_result r = libdeflate_gzip_decompress_ex(
        deflate_, raw_.data() + raw_pos_, raw_avail(), buf_.data() + end_, out_cap, &in_used,
        &out_used);
    if (r == LIBDEFLATE_SUCCESS) {
      largest_member_input_ = std::max(largest_member_input_, in_used);
      members_.emplace_back(base_ + end_, member_off);
      end_ += out_used;
      raw_pos_ += in_used;
      had_member_ = true;
      resyncing_ = false;
      return true;
    }
    if (r == LIBDEFLATE_INSUFFICIENT_SPACE && out_cap < limits_.max_member_output) {
      // A member larger than the guess: inflated again from its start, so
      // ask once for the size its trailer states (each attempt costs the
      // whole output offered; doubling from 4 MiB inflated a 12 MiB page
      // three times), else double.
      size_t next = std::min(out_cap * 2, limits_.max_member_output);
      if (!size_asked) {
        size_asked = true;
        const uint64_t stated = MemberSizeHint();
        if (stated > out_cap && stated <= limits_.max_member_output) next = static_cast<size_t>(stated);
      }
      out_cap = next;
      continue;
    }
    if (r != LIBDEFLATE_INSUFFICIENT_SPACE && !file_eof_ && raw_avail() < limits_.read_chunk) {
      RawFill(limits_.read_chunk);  // the member may continue past the read window
      continue;
    }
    if (r != LIBDEFLATE_INSUFFICIENT_SPACE && !file_eof_ && !resyncing_ && had_member_ &&
        raw_avail() < MaxMemberInput() && NextMemberHeaderInWindow() == 0) {
      // A member longer than the window, after others (a page of megabytes
      // in a per-record gzip file): the window grows until it shows where
      // the member ends (the next member's header, or the end of the file),
      // up to MaxMemberInput(), and the member is inflated again once,
      // rather than streamed through zlib at a third of the speed. The
      // first member of a file (all of it, where gzip is over the whole
      // file), a longer one, and one damaged before a next header go to
      // zlib, which also tells where and why.
      do {
        RawFill(std::min(2 * raw_avail(), MaxMemberInput()));
      } while (!file_eof_ && raw_avail() < MaxMemberInput() && NextMemberHeaderInWindow() == 0);
      continue;
    }
    if (r != LIBDEFLATE_INSUFFICIENT_SPACE && resyncing_ &&
        (file_eof_ || raw_avail() < limits_.read_chunk)) {
      // A false member header while resynchronising: keep scanning silently.
      ++raw_pos_;
      if (!FindNextMember()) return false;
      return true;
    }
    break;
  }
  // Too large for one libdeflate call, or damaged: stream it through zlib,
  // which also tells where and why it fails.
  NEARDUP_CHECK(inflateReset2(zs_, 15 + 16) == Z_OK);
  members_.emplace_back(base_ + end_, member_off);
  zs_active_ = true;
  ++streamed_members_;
  zs_member_offset_ = member_off;
  zs_member_out_ = 0;
  zs_member_start_ = base_ + end_;
  return InflateSome();
}

bool InputStream::InflateSome() {
  ReserveTail(limits_.stream_chunk);
  for (;;) {
    if (raw_avail() == 0) RawFill(limits_.read_chunk);
    if (raw_avail() == 0) {
      zs_active_ = false;
      if (!(resyncing_ && zs_member_out_ == 0)) {
        Warn(zs_member_offset_, false, reason::kTruncatedGzip,
             "gzip member ends before its end marker (file truncated)");
        ended_with_error_ = true;
      }
      return false;
    }
    size_t in_avail = std::min<size_t>(raw_avail(), UINT_MAX);
    size_t out_avail = std::min<size_t>(buf_.capacity() - end_, UINT_MAX);
    zs_->next_in = reinterpret_cast<Bytef*>(raw_.data() + raw_pos_);
    zs_->avail_in = static_cast<uInt>(in_avail);
    zs_->next_out = reinterpret_cast<Bytef*>(buf_.data() + end_);
    zs_->avail_out = static_cast<uInt>(out_avail);
    int ret = inflate(zs_, Z_NO_FLUSH);
    size_t in_used = in_avail - zs_->avail_in;
    size_t out_used = out_avail - zs_->avail_out;
    raw_pos_ += in_used;
    end_ += out_used;
    zs_member_out_ += out_used;
    if (ret == Z_STREAM_END) {
      zs_active_ = false;
      had_member_ = true;
      resyncing_ = false;
      return true;
    }
    if (ret == Z_OK || ret == Z_BUF_ERROR) {
      if (out_used > 0) return true;
      if (in_used == 0 && zs_->avail_in > 0 && out_avail > 0) {
        ret = Z_DATA_ERROR;  // no progress possible
      } else {
        continue;
      }
    }
    // Damaged member: report it, then look for the next member header after
    // the start of this one (zlib may have read past the real member end).
    zs_active_ = false;
    if (!(resyncing_ && zs_member_out_ == 0)) {
      std::string why = zs_->msg != nullptr ? zs_->msg : "inflate error";
      Warn(zs_member_offset_, false, reason::kCorruptGzip, "gzip member does not inflate: " + why);
      constexpr uint64_t kSuspectWindow = 1u << 20;
      uint64_t out_end = base_ + end_;
      AddBreak(std::max(zs_member_start_,
                        out_end > kSuspectWindow ? out_end - kSuspectWindow : uint64_t{0}));
    }
    resyncing_ = true;
    if (zs_member_offset_ + 1 >= raw_base_ && zs_member_offset_ + 1 <= raw_base_ + raw_end_) {
      raw_pos_ = static_cast<size_t>(zs_member_offset_ + 1 - raw_base_);
    }
    return true;
  }
}

bool InputStream::FillZstd() {
  if (zstd_failed_) return false;
  ReserveTail(limits_.stream_chunk);
  for (;;) {
    if (raw_avail() == 0) RawFill(limits_.read_chunk);
    if (raw_avail() == 0) {
      if (zstd_in_frame_) {
        Warn(raw_offset(), false, reason::kTruncatedZstd, "zstd frame ends early (file truncated)");
        ended_with_error_ = true;
      }
      return false;
    }
    ZSTD_inBuffer in{raw_.data() + raw_pos_, raw_avail(), 0};
    ZSTD_outBuffer out{buf_.data() + end_, buf_.capacity() - end_, 0};
    size_t r = ZSTD_decompressStream(zstd_, &out, &in);
    raw_pos_ += in.pos;
    end_ += out.pos;
    if (ZSTD_isError(r)) {
      Warn(raw_offset(), false, reason::kCorruptZstd,
           std::string("zstd stream does not decode: ") + ZSTD_getErrorName(r));
      ended_with_error_ = true;
      zstd_failed_ = true;
      return out.pos > 0;
    }
    zstd_in_frame_ = r != 0;
    if (out.pos > 0) return true;
  }
}

}  // namespace neardup::io
