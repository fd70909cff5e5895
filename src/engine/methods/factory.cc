// The one factory of methods: NewMethod(spec) and NewMethod(DedupOptions).
// Adding a method means adding its file under methods/ and one entry in
// kMethods below.
#include <charconv>
#include <cstdlib>

#include "engine/methods/methods.h"
#include "neardup/method.h"

namespace neardup {

std::vector<SpecItem> SplitSpecItems(std::string_view items) {
  std::vector<SpecItem> out;
  size_t pos = 0;
  while (pos <= items.size() && !items.empty()) {
    size_t comma = items.find(',', pos);
    if (comma == std::string_view::npos) comma = items.size();
    std::string_view item = items.substr(pos, comma - pos);
    if (!item.empty()) {
      SpecItem s;
      const size_t eq = item.find('=');
      s.key = std::string(item.substr(0, eq));
      if (eq != std::string_view::npos) {
        s.value = std::string(item.substr(eq + 1));
        s.has_value = true;
      }
      out.push_back(std::move(s));
    }
    pos = comma + 1;
  }
  return out;
}

Status ParseSpecUint(std::string_view method, const SpecItem& item, uint64_t lo, uint64_t hi, uint64_t* out) {
  uint64_t v = 0;
  const char* b = item.value.data();
  const char* e = b + item.value.size();
  auto [p, ec] = std::from_chars(b, e, v);
  if (!item.has_value || ec != std::errc() || p != e || v < lo || v > hi) {
    return Status::InvalidArgument(std::string(method) + ": " + item.key + " must be an integer in " +
                                   std::to_string(lo) + ".." + std::to_string(hi) + " (got '" + item.value + "')");
  }
  *out = v;
  return Status::OK();
}

Status ParseSpecDouble(std::string_view method, const SpecItem& item, double lo, double hi, double* out) {
  char* end = nullptr;
  const double v = item.has_value ? std::strtod(item.value.c_str(), &end) : 0;
  if (!item.has_value || item.value.empty() || end != item.value.c_str() + item.value.size() || !(v >= lo) ||
      !(v <= hi)) {
    return Status::InvalidArgument(std::string(method) + ": " + item.key + " must be a number in [" +
                                   std::to_string(lo) + ", " + std::to_string(hi) + "] (got '" + item.value + "')");
  }
  *out = v;
  return Status::OK();
}

Status UnknownSpecKey(std::string_view method, const SpecItem& item, std::string_view valid) {
  return Status::InvalidArgument(std::string(method) + ": unknown key '" + item.key + "'; valid keys: " +
                                 std::string(valid));
}

namespace {

// One factory entry: parses the spec's items over `options` and checks it.
struct MethodEntry {
  const char* name;
  Status (*parse)(std::string_view items, DedupOptions* options);
  Result<std::unique_ptr<MethodImpl>> (*make)(const DedupOptions& options);
};

template <typename T>
Result<std::unique_ptr<MethodImpl>> Checked(Status s, T make) {
  if (!s.ok()) return s;
  return make();
}

const MethodEntry kMethods[] = {
    {"exact",
     [](std::string_view items, DedupOptions*) {
       return items.empty() ? Status::OK() : Status::InvalidArgument("exact: takes no parameters");
     },
     [](const DedupOptions&) -> Result<std::unique_ptr<MethodImpl>> { return NewExactMethod(); }},
    {"broder", [](std::string_view items, DedupOptions* o) { return ParseBroderSpec(items, &o->broder); },
     [](const DedupOptions& o) {
       return Checked(ValidateBroder(o.broder), [&] { return NewBroderMethod(o.broder); });
     }},
    {"simhash", [](std::string_view items, DedupOptions* o) { return ParseSimhashSpec(items, &o->simhash); },
     [](const DedupOptions& o) {
       return Checked(ValidateSimhash(o.simhash, false), [&] { return NewSimhashMethod(o.simhash); });
     }},
    {"combined",
     [](std::string_view items, DedupOptions* o) { return ParseCombinedSpec(items, &o->broder, &o->simhash); },
     [](const DedupOptions& o) {
       Status s = ValidateBroder(o.broder);
       if (s.ok()) s = ValidateSimhash(o.simhash, true);
       return Checked(s, [&] { return NewCombinedMethod(o.broder, o.simhash); });
     }},
    {"robust", [](std::string_view items, DedupOptions* o) { return ParseRobustSpec(items, &o->robust); },
     [](const DedupOptions& o) {
       return Checked(ValidateRobust(o.robust), [&] { return NewRobustMethod(o.robust); });
     }},
    {"paragraphs",
     [](std::string_view items, DedupOptions* o) { return ParseParagraphSpec(items, &o->paragraphs); },
     [](const DedupOptions& o) {
       return Checked(ValidateParagraphs(o.paragraphs), [&] { return NewParagraphMethod(o.paragraphs); });
     }},
    {"chunks", [](std::string_view items, DedupOptions* o) { return ParseChunkSpec(items, &o->chunks); },
     [](const DedupOptions& o) {
       return Checked(ValidateChunks(o.chunks), [&] { return NewChunkMethod(o.chunks); });
     }},
};

std::string ValidNames() {
  std::string s;
  for (const MethodEntry& e : kMethods) s += (s.empty() ? "" : ", ") + std::string(e.name);
  return s;
}

}  // namespace

std::vector<std::string> MethodNames() {
  std::vector<std::string> names;
  for (const MethodEntry& e : kMethods) names.emplace_back(e.name);
  return names;
}

Result<std::unique_ptr<MethodImpl>> NewMethodImpl(const DedupOptions& given) {
  std::string_view spec = given.method;
  const size_t colon = spec.find(':');
  const std::string_view name = spec.substr(0, colon);
  const std::string_view items = colon == std::string_view::npos ? std::string_view() : spec.substr(colon + 1);
  for (const MethodEntry& e : kMethods) {
    if (name != e.name) continue;
    DedupOptions options = given;
    NEARDUP_RETURN_IF_ERROR(e.parse(items, &options));
    return e.make(options);
  }
  return Status::InvalidArgument("unknown method '" + std::string(name) + "'; valid methods: " + ValidNames());
}

Result<std::unique_ptr<Method>> NewMethod(const DedupOptions& options) {
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<MethodImpl> m, NewMethodImpl(options));
  return std::unique_ptr<Method>(std::move(m));
}

Result<std::unique_ptr<Method>> NewMethod(std::string_view spec) {
  DedupOptions options;
  options.method = std::string(spec);
  return NewMethod(options);
}

}  // namespace neardup
