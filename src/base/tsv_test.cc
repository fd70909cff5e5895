#include "base/tsv.h"

#include <gtest/gtest.h>

namespace neardup {
namespace {

TEST(TsvTest, EscapesSeparatorsAndRoundTripsFields) {
  std::string line;
  AppendTsvField("http://a/b\tc\nd\re%41", &line);
  EXPECT_EQ(line, "http://a/b%09c%0Ad%0De%41");
  std::string p;
  AppendTsvField("50%\t", &p, /*escape_percent=*/true);
  EXPECT_EQ(p, "50%25%09");
  line += "\tx\t\t";
  std::vector<std::string_view> f;
  SplitTsvLine(line, &f);
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[1], "x");
  EXPECT_EQ(f[2], "");
  EXPECT_EQ(f[3], "");
}

}  // namespace
}  // namespace neardup
