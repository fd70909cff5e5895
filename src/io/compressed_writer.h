// Copyright neardup authors. Licensed under Apache-2.0.
//
// A WritableFile that compresses what is appended to it: gzip (RFC 1952) or
// zstd (RFC 8878), in blocks of about 1 MiB, each block its own gzip member
// or zstd frame. A file of several members or frames is one valid stream
// for gzip -d, zstd -d and every reader of this project, and memory stays
// at one block whatever the file's size. Plain files pass through.
//
// Not thread-safe; one writer per file.
#ifndef NEARDUP_IO_COMPRESSED_WRITER_H_
#define NEARDUP_IO_COMPRESSED_WRITER_H_

#include <memory>
#include <string_view>

#include "neardup/env.h"

namespace neardup::io {

enum class OutputCompression { kNone, kGzip, kZstd };

// kGzip for a name ending in ".gz", kZstd for ".zst", else kNone (case aside).
OutputCompression CompressionOfName(std::string_view path);

// Wraps `file`: Append compresses, Flush writes the block buffered so far as
// a member or frame of its own, Close writes the last one and closes `file`.
// With kNone, `file` itself is returned.
std::unique_ptr<WritableFile> NewCompressedWritableFile(std::unique_ptr<WritableFile> file,
                                                        OutputCompression compression);

}  // namespace neardup::io

#endif  // NEARDUP_IO_COMPRESSED_WRITER_H_
