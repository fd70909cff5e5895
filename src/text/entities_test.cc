// Copyright neardup authors. Licensed under Apache-2.0.
#include "text/entities.h"

#include <gtest/gtest.h>

#include <string>

namespace neardup::text_internal {
namespace {

struct Row {
  const char* name;
  uint32_t cp1;
  uint32_t cp2;
};

constexpr Row kRows[] = {
#include "text/entities_table.inc"
};

// Every name of the WHATWG list decodes to its code points: with ';' as
// written, and a legacy name without ';' before a space.
TEST(EntitiesTest, EveryNamedReferenceDecodes) {
  size_t with_semicolon = 0, legacy = 0;
  for (const Row& row : kRows) {
    const std::string ref = std::string("&") + row.name + " ";
    uint32_t cps[2] = {0, 0};
    int n = 0;
    const size_t used = DecodeCharRef(ref.data(), ref.data() + ref.size(), /*in_attribute=*/false, cps, &n);
    ASSERT_EQ(used, ref.size() - 1) << row.name;
    ASSERT_EQ(n, row.cp2 != 0 ? 2 : 1) << row.name;
    EXPECT_EQ(cps[0], row.cp1) << row.name;
    if (row.cp2 != 0) {
      EXPECT_EQ(cps[1], row.cp2) << row.name;
    }
    (ref[ref.size() - 2] == ';' ? with_semicolon : legacy) += 1;
  }
  EXPECT_EQ(with_semicolon, 2125u);
  EXPECT_EQ(legacy, 106u);
}

TEST(EntitiesTest, UnknownNamesAndPrefixes) {
  uint32_t cps[2];
  int n = 0;
  for (const std::string ref : {"&unknown;", "&amp", "&ampx;", "&CounterClockwiseContourIntegralX;", "&;"}) {
    const size_t used = DecodeCharRef(ref.data(), ref.data() + ref.size(), false, cps, &n);
    if (ref == "&amp" || ref == "&ampx;") {
      EXPECT_EQ(used, 4u) << ref;  // the legacy "&amp" prefix
      EXPECT_EQ(cps[0], uint32_t{'&'});
    } else {
      EXPECT_EQ(used, 0u) << ref;
    }
  }
}

}  // namespace
}  // namespace neardup::text_internal
