// Copyright neardup authors. Licensed under Apache-2.0.
//
// ByteBuffer: a growable byte array whose new bytes are left uninitialised
// (std::vector<char> would zero every byte it grows by, which costs as much as
// inflating into it). Internal to src/io.
#ifndef NEARDUP_IO_BYTE_BUFFER_H_
#define NEARDUP_IO_BYTE_BUFFER_H_

#include <cstddef>
#include <cstring>
#include <memory>
#include <utility>

namespace neardup::io {

// Owns a heap block of capacity() bytes. Not thread-safe.
class ByteBuffer {
 public:
  ByteBuffer() = default;
  ByteBuffer(const ByteBuffer&) = delete;
  ByteBuffer& operator=(const ByteBuffer&) = delete;

  char* data() { return data_.get(); }
  const char* data() const { return data_.get(); }
  size_t capacity() const { return capacity_; }

  // Grows the block to at least `n` bytes, keeping the first `keep` bytes
  // (keep <= capacity()). Growth is geometric so repeated calls stay O(n).
  void Reserve(size_t n, size_t keep) {
    if (n <= capacity_) return;
    size_t cap = capacity_ < 4096 ? 4096 : capacity_;
    while (cap < n) cap += cap / 2 + 1;
    std::unique_ptr<char[]> fresh(new char[cap]);
    if (keep > 0) std::memcpy(fresh.get(), data_.get(), keep);
    data_ = std::move(fresh);
    capacity_ = cap;
  }

  void Swap(ByteBuffer& other) {
    data_.swap(other.data_);
    std::swap(capacity_, other.capacity_);
  }

  // Frees the block.
  void Release() {
    data_.reset();
    capacity_ = 0;
  }

 private:
  std::unique_ptr<char[]> data_;
  size_t capacity_ = 0;
};

}  // namespace neardup::io

#endif  // NEARDUP_IO_BYTE_BUFFER_H_
