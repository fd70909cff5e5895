// Copyright neardup authors. Licensed under Apache-2.0.
//
// The public method options (include/neardup/engine.h) turned into the
// options of the sketch modules.
#ifndef NEARDUP_ENGINE_METHOD_OPTIONS_H_
#define NEARDUP_ENGINE_METHOD_OPTIONS_H_

#include "neardup/engine.h"
#include "sketch/broder.h"
#include "sketch/simhash.h"

namespace neardup {

inline BroderOptions ToSketchOptions(const BroderMethodOptions& b) {
  BroderOptions o;
  o.shingle_size = b.shingle_size;
  o.wrap = b.effective_wrap();
  o.num_minhashes = b.num_minhashes;
  o.supershingle_size = b.supershingle_size;
  o.family = b.rabin_family ? MinHashFamily::kRabin : MinHashFamily::kFast;
  o.seed = b.seed;
  return o;
}

inline SimhashOptions ToSimhashOptions(const SimhashMethodOptions& s) {
  SimhashOptions o;
  o.bits = s.bits;
  o.seed = s.seed;
  return o;
}

}  // namespace neardup

#endif  // NEARDUP_ENGINE_METHOD_OPTIONS_H_
