// Copyright neardup authors. Licensed under Apache-2.0.
//
// The input bytes are a file read through InputStream (gzip members, zstd or
// plain, sniffed by magic), with stream limits shrunk by the first byte so
// the libdeflate, zlib-streaming and resynchronisation paths all run on
// small inputs. Properties: no crash; positions only grow; the decompressed
// output is bounded; Skip and Ensure agree.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "io/input_stream.h"
#include "neardup/env.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace neardup::io;
  if (size == 0) return 0;
  const uint8_t knob = data[0];
  neardup::MemEnv env;
  env.AddFile("f", std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
  env.SetMaxReadChunk((knob & 7) * 37);
  StreamLimits limits;
  limits.max_member_output = size_t{1024} << (knob >> 5);
  limits.read_chunk = 512;
  limits.first_member_guess = 256;
  limits.stream_chunk = 128;
  neardup::SourceOptions options;
  neardup::ReadStats stats;
  ReaderContext ctx{&options, &stats, nullptr, "f", 0};
  auto file = env.NewSequentialFile("f");
  InputStream in(file.value().get(), &ctx, limits);
  in.Init();
  uint64_t last = 0, total = 0;
  for (int step = 0;; ++step) {
    size_t want = 1 + (step * 131 + knob) % 700;
    size_t n = in.Ensure(want);
    if (n == 0) {
      if (in.AtBreak()) {
        in.PassBreak();
        continue;
      }
      break;
    }
    (void)in.RangeDamaged(in.position(), in.position() + n);
    (void)in.OriginOf(in.position());
    if ((step & 3) == 3) {
      total += in.Skip(want * 2);
    } else {
      in.Consume(n);
      total += n;
    }
    if (in.position() < last) std::abort();
    last = in.position();
    if (total > (uint64_t{64} << 20)) break;  // a decompression bomb: enough
  }
  return 0;
}
