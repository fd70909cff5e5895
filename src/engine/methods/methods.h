// Copyright neardup authors. Licensed under Apache-2.0.
//
// The methods' entries for the factory (factory.cc): for each, a parser of
// its spec's keys (over the option struct's current values) and a maker.
// Spec keys: "key=value" or a bare flag; the factory has split the spec
// after the method name at commas.
#ifndef NEARDUP_ENGINE_METHODS_METHODS_H_
#define NEARDUP_ENGINE_METHODS_METHODS_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/method_impl.h"
#include "neardup/engine.h"

namespace neardup {

// One "key=value" or "flag" item of a spec.
struct SpecItem {
  std::string key, value;
  bool has_value = false;
};
std::vector<SpecItem> SplitSpecItems(std::string_view items);
// Parsers of values, InvalidArgument naming the method and key.
Status ParseSpecUint(std::string_view method, const SpecItem& item, uint64_t lo, uint64_t hi, uint64_t* out);
Status ParseSpecDouble(std::string_view method, const SpecItem& item, double lo, double hi, double* out);
Status UnknownSpecKey(std::string_view method, const SpecItem& item, std::string_view valid);

std::unique_ptr<MethodImpl> NewExactMethod();

Status ParseBroderSpec(std::string_view items, BroderMethodOptions* options);
Status ValidateBroder(const BroderMethodOptions& options);
std::unique_ptr<MethodImpl> NewBroderMethod(const BroderMethodOptions& options);

Status ParseSimhashSpec(std::string_view items, SimhashMethodOptions* options);
// `combined`: same-site-t is checked too (the simhash method ignores it).
Status ValidateSimhash(const SimhashMethodOptions& options, bool combined);
std::unique_ptr<MethodImpl> NewSimhashMethod(const SimhashMethodOptions& options);

// combined: "broder:...;simhash:...,same-site-t=N".
Status ParseCombinedSpec(std::string_view items, BroderMethodOptions* broder, SimhashMethodOptions* simhash);
std::unique_ptr<MethodImpl> NewCombinedMethod(const BroderMethodOptions& broder, const SimhashMethodOptions& simhash);

Status ParseRobustSpec(std::string_view items, RobustMethodOptions* options);
Status ValidateRobust(const RobustMethodOptions& options);
std::unique_ptr<MethodImpl> NewRobustMethod(const RobustMethodOptions& options);

Status ParseParagraphSpec(std::string_view items, ParagraphMethodOptions* options);
Status ValidateParagraphs(const ParagraphMethodOptions& options);
std::unique_ptr<MethodImpl> NewParagraphMethod(const ParagraphMethodOptions& options);

Status ParseChunkSpec(std::string_view items, ChunkMethodOptions* options);
Status ValidateChunks(const ChunkMethodOptions& options);
std::unique_ptr<MethodImpl> NewChunkMethod(const ChunkMethodOptions& options);

}  // namespace neardup

#endif  // NEARDUP_ENGINE_METHODS_METHODS_H_
