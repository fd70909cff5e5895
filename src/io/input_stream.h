// Copyright neardup authors. Licensed under Apache-2.0.
//
// InputStream: the decompressed bytes of one input file, handed out as a
// contiguous window so parsers can work on pointers instead of per-byte
// virtual calls. Compression is sniffed from magic bytes (gzip 1f 8b,
// zstd 28 b5 2f fd), never from the file name.
//
// gzip: each member is inflated whole with libdeflate when it fits the
// bounds (by default output <= 64 MiB, compressed <= 16 MiB: after a
// file's first member the read window grows to hold a longer member, and
// starts later members at twice the largest inflated), else streamed
// through zlib. A member whose output exceeds the first space offered is
// inflated again once, at the size its trailer states when the window
// shows the trailer (else the space doubles). A corrupt or truncated member is reported to the
// ReaderContext ("corrupt-gzip", "truncated-gzip", with the member's
// compressed offset) and the stream resynchronises at the next gzip member
// header (1f 8b 08). The point where data resumes is a *break*: Ensure() does
// not hand out bytes across it until the caller calls PassBreak(), so a parser
// never glues the head of a damaged record to the next one.
//
// Offsets: position() is the absolute offset in the decompressed stream.
// OriginOf() turns it into what warnings and Document::source_offset report:
// the compressed offset of the gzip member when the position is the first
// byte of a member, the file offset for uncompressed files, else the
// decompressed offset (in_decompressed_stream = true).
//
// Memory is bounded by the window the caller asks for with Ensure() plus one
// decompressed gzip member (<= StreamLimits::max_member_output) and the
// read window (a read, or twice the largest member inflated, up to
// max_member_output / 4), never by the file size. Not thread-safe.
#ifndef NEARDUP_IO_INPUT_STREAM_H_
#define NEARDUP_IO_INPUT_STREAM_H_

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>

#include "io/byte_buffer.h"
#include "io/reader_context.h"
#include "neardup/env.h"

struct libdeflate_decompressor;
struct z_stream_s;
struct ZSTD_DCtx_s;

namespace neardup::io {

enum class Compression : unsigned char { kNone, kGzip, kZstd };

// Where a position of the decompressed stream came from (see file comment).
struct Origin {
  uint64_t offset = 0;
  bool in_decompressed_stream = false;
};

// Buffer bounds of an InputStream (performance knobs; tests shrink them to
// reach the fallback paths with small inputs).
struct StreamLimits {
  // Largest gzip member output inflated in one libdeflate call; larger
  // members (or whole-file gzip) stream through zlib.
  size_t max_member_output = 64u << 20;
  // Bytes read from the file per read call, and the read window's first
  // size (it grows for a longer member, up to max_member_output / 4).
  // 1 MiB: a web page's member fits many times over, and the window's
  // bytes stay few (4 MiB held 4.6 MB more at the peak of a 62,500-page
  // crawl, no faster).
  size_t read_chunk = 1u << 20;
  // First output space offered to libdeflate for a member (then the size
  // its trailer states, else doubled): a record of Common Crawl's 1 MiB of
  // payload and its headers fits.
  size_t first_member_guess = 2u << 20;
  // Output produced per zlib/zstd streaming step.
  size_t stream_chunk = 1u << 20;
};

class InputStream {
 public:
  // `file` and `ctx` are borrowed and must outlive the stream; ctx receives
  // decompression warnings and may be null (warnings are then dropped).
  explicit InputStream(SequentialFile* file, ReaderContext* ctx,
                       const StreamLimits& limits = StreamLimits());
  ~InputStream();
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;

  // Reads the first bytes and picks the compression. Call once, first.
  void Init();
  // Reads only the gzip members that start in [start, end) of the file
  // (call before Init(); `start` must be a member's first byte): a share of
  // a large per-record-gzip file read by one of several processes. Offsets
  // stay those of the whole file. A file that is not gzip is read from
  // `start` to its end.
  void SetRange(uint64_t start, uint64_t end);
  Compression compression() const { return compression_; }

  // Makes at least n bytes available at the read position unless the stream
  // ends or a break comes first. Returns available() (may be < n).
  size_t Ensure(size_t n);
  const char* data() const { return buf_.data() + pos_; }
  size_t available() const { return limit_ - pos_; }
  // Consumes n <= available() bytes.
  void Consume(size_t n) { pos_ += n; }
  // Consumes n bytes, reading and discarding what is not buffered yet (no
  // more than one member/read chunk is held at a time). Stops early at the
  // end of the stream or at a break; returns the bytes skipped.
  uint64_t Skip(uint64_t n);

  // Absolute decompressed offset of the read position.
  uint64_t position() const { return base_ + pos_; }
  Origin OriginOf(uint64_t position) const;

  // True when the read position sits on a break (see file comment).
  bool AtBreak() const { return !breaks_.empty() && breaks_.front().at == position(); }
  // True when decompressed bytes in [from, to) came from a gzip member that
  // failed to inflate (already reported): they may be wrong, and a parser
  // should drop a record that overlaps them. Covers the whole damaged member,
  // or for members larger than 1 MiB the last 1 MiB before the failure.
  bool RangeDamaged(uint64_t from, uint64_t to) const;
  void PassBreak();
  // True when no byte follows and no break is pending: the stream is over.
  bool AtEnd() { return Ensure(1) == 0 && !AtBreak(); }
  // True when the stream ended early because of damage or an I/O error that
  // was already reported (callers then do not report the cut record again).
  bool ended_with_error() const { return ended_with_error_; }

  // Bytes read from the file so far (compressed).
  uint64_t compressed_consumed() const { return std::min(file_bytes_read_, range_end_ - range_start_); }
  // Current size of the decompressed window buffer (for tests of bounds).
  size_t buffer_capacity() const { return buf_.capacity(); }
  size_t peak_buffer_capacity() const { return peak_capacity_; }
  // libdeflate calls made so far (each inflates a member from its start):
  // for tests of how often a large member is inflated again.
  uint64_t whole_member_attempts() const { return whole_member_attempts_; }
  // Members streamed through zlib (too large for libdeflate, or damaged).
  uint64_t streamed_members() const { return streamed_members_; }

 private:
  // Appends more decompressed bytes at end_. Returns false at end of stream.
  bool FillOnce(size_t want);
  bool FillPlain(size_t want);
  bool FillGzip();
  bool FillZstd();
  bool InflateSome();
  // Makes room for n bytes after end_ (compacting or growing buf_).
  void ReserveTail(size_t n);
  // Reads raw input until raw_avail() >= n or end of file.
  void RawFill(size_t n);
  size_t raw_avail() const { return raw_end_ - raw_pos_; }
  uint64_t raw_offset() const { return raw_base_ + raw_pos_; }
  // The output size the trailer of the gzip member at raw_pos_ states, when
  // the window shows where the member ends; 0 when it does not (a hint: see
  // FillGzip).
  uint64_t MemberSizeHint() const;
  // Where the gzip member at raw_pos_ ends in the window: the offset from
  // raw_pos_ of the first member header after it (reserved flag bits
  // clear), or 0 when the window shows none (the member goes on past it).
  size_t NextMemberHeaderInWindow() const;
  // The most compressed bytes a member inflated whole may have: a quarter
  // of max_member_output (text shrinks to a quarter or less; a longer
  // member would mostly outgrow the output bound, found only after
  // inflating that much), and a read at least.
  size_t MaxMemberInput() const { return std::max(limits_.read_chunk, limits_.max_member_output / 4); }
  // Scans for the next gzip member header; false when none is left.
  bool FindNextMember();
  // Adds a break at the current output end; [suspect_from, end) is damaged.
  void AddBreak(uint64_t suspect_from);
  void UpdateLimit();
  void Warn(uint64_t offset, bool in_decompressed, std::string_view key, std::string msg);
  size_t ReadFile(char* dst, size_t n);

  SequentialFile* file_;
  ReaderContext* ctx_;
  const StreamLimits limits_;
  Compression compression_ = Compression::kNone;
  bool file_eof_ = false;
  bool ended_with_error_ = false;
  uint64_t file_bytes_read_ = 0;

  // Decompressed window: bytes [pos_, end_) are buffered, [pos_, limit_)
  // visible (limit_ stops at the first break). buf_[0] is at offset base_.
  ByteBuffer buf_;
  size_t pos_ = 0, end_ = 0, limit_ = 0;
  uint64_t base_ = 0;
  size_t peak_capacity_ = 0;
  uint64_t whole_member_attempts_ = 0;
  uint64_t streamed_members_ = 0;
  // Compressed bytes of the largest member inflated whole so far: the read
  // window is kept at twice that (up to MaxMemberInput()), so that the
  // members of a crawl of long pages start with all their bytes in it.
  size_t largest_member_input_ = 0;
  bool stream_eof_ = false;

  // Raw (compressed) window for gzip/zstd: raw_[0] is at file offset raw_base_.
  ByteBuffer raw_;
  size_t raw_pos_ = 0, raw_end_ = 0;
  uint64_t raw_base_ = 0;
  uint64_t range_start_ = 0, range_end_ = UINT64_MAX;  // SetRange

  // Member starts: (decompressed offset, compressed offset), oldest first.
  std::deque<std::pair<uint64_t, uint64_t>> members_;
  // Breaks not yet passed, ascending: `at` is the decompressed offset where
  // data resumes, [suspect_from, at) the output of a damaged member.
  struct Break {
    uint64_t at;
    uint64_t suspect_from;
  };
  std::deque<Break> breaks_;

  libdeflate_decompressor* deflate_ = nullptr;
  z_stream_s* zs_ = nullptr;
  bool zs_active_ = false;       // a member is being streamed through zlib
  uint64_t zs_member_offset_ = 0;
  uint64_t zs_member_out_ = 0;   // bytes inflated from the current zlib member
  uint64_t zs_member_start_ = 0; // decompressed offset where that member began
  bool resyncing_ = false;       // looking for a good member after damage
  bool had_member_ = false;      // at least one member decoded fine
  ZSTD_DCtx_s* zstd_ = nullptr;
  bool zstd_in_frame_ = false;
  bool zstd_failed_ = false;
};

}  // namespace neardup::io

#endif  // NEARDUP_IO_INPUT_STREAM_H_
