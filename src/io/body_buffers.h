// Copyright neardup authors. Licensed under Apache-2.0.
//
// BodyBuffers: large page buffers that a DocumentSource's consumer hands
// back (DocumentSource::Recycle), kept to read later large pages into. A
// large block that is freed goes back to the system, and the next one is
// faulted in anew, a page fault every 4 KiB: on crawls of long pages
// (manuals, API references, threads of a megabyte or more) that cost more
// than decompressing them. Internal to src/io; not thread-safe (one per
// DocumentSource, used on the thread that reads).
#ifndef NEARDUP_IO_BODY_BUFFERS_H_
#define NEARDUP_IO_BODY_BUFFERS_H_

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace neardup::io {

class BodyBuffers {
 public:
  // Buffers of fewer bytes are not kept: a consumer keeps those itself.
  static constexpr size_t kMinBytes = size_t{256} << 10;
  // The buffers kept hold at most this many bytes in all (a buffer larger
  // than this alone is not kept).
  static constexpr size_t kMaxBytes = size_t{32} << 20;

  // Gives *body room for `size` bytes when it has less (its contents are
  // then unspecified). A page of kMinBytes or more gets the smallest kept
  // buffer with room, if one has it; *body's own buffer is kept when large,
  // or else held to go back with the large one (Take), so that the
  // consumer's buffer for small pages is not lost. A smaller page grows
  // *body's own buffer, doubling it but to kMinBytes at most: a consumer
  // keeps buffers up to that size, and doubling past it would make a buffer
  // it hands back.
  void Fit(size_t size, std::string* body) {
    if (size <= body->capacity()) return;
    if (size < kMinBytes) {
      std::string grown;  // reserve on an empty string takes the room asked for
      grown.reserve(std::min(std::max(size, 2 * body->capacity()), kMinBytes));
      body->swap(grown);
      return;
    }
    auto it = FirstWithRoom(size);
    if (it == kept_.end()) return;
    std::string own;
    own.swap(*body);
    body->swap(*it);
    bytes_ -= body->capacity();
    kept_.erase(it);
    if (own.capacity() >= kMinBytes) {
      Keep(std::move(own));
    } else if (replaced_.size() < kMaxReplaced) {
      replaced_.push_back(std::move(own));
    }
  }

  // Keeps *body's buffer when it is large (the smallest buffers kept go
  // when they would hold more than kMaxBytes); *body then gets back a
  // buffer that a large one replaced (Fit), or is empty.
  void Take(std::string* body) {
    const size_t room = body->capacity();
    if (room < kMinBytes || room > kMaxBytes) return;
    std::string buffer;
    buffer.swap(*body);
    Keep(std::move(buffer));
    if (!replaced_.empty()) {
      body->swap(replaced_.back());
      replaced_.pop_back();
    }
  }

  size_t buffers() const { return kept_.size(); }
  size_t bytes() const { return bytes_; }

 private:
  // Buffers of small pages that large ones replaced (Fit), at most this
  // many (each under kMinBytes).
  static constexpr size_t kMaxReplaced = 64;

  // The first kept buffer of `bytes` capacity or more (kept_ is ascending).
  std::vector<std::string>::iterator FirstWithRoom(size_t bytes) {
    return std::lower_bound(kept_.begin(), kept_.end(), bytes,
                            [](const std::string& b, size_t n) { return b.capacity() < n; });
  }

  void Keep(std::string&& buffer) {
    const size_t room = buffer.capacity();
    kept_.insert(FirstWithRoom(room), std::move(buffer));
    bytes_ += room;
    while (bytes_ > kMaxBytes) {
      bytes_ -= kept_.front().capacity();
      kept_.erase(kept_.begin());
    }
  }

  std::vector<std::string> kept_;      // by capacity, ascending
  size_t bytes_ = 0;                   // their capacities in all
  std::vector<std::string> replaced_;  // see Fit
};

}  // namespace neardup::io

#endif  // NEARDUP_IO_BODY_BUFFERS_H_
