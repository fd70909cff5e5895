#include "neardup/status.h"

#include <gtest/gtest.h>

namespace neardup {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0) return Status::InvalidArgument("odd");
  return x / 2;
}

Result<int> Quarter(int x) {
  NEARDUP_ASSIGN_OR_RETURN(int h, Half(x));
  NEARDUP_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

Status CheckPositive(int x) {
  if (x <= 0) return Status::InvalidArgument("not positive: " + std::to_string(x));
  return Status::OK();
}

Status Both(int a, int b) {
  NEARDUP_RETURN_IF_ERROR(CheckPositive(a));
  NEARDUP_RETURN_IF_ERROR(CheckPositive(b));
  return Status::OK();
}

TEST(StatusTest, CodesAndMessages) {
  EXPECT_TRUE(Status::OK().ok());
  EXPECT_EQ(Status::OK().ToString(), "OK");
  Status s = Status::Corruption("bad gzip member");
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_EQ(s.message(), "bad gzip member");
  EXPECT_EQ(s.ToString(), "Corruption: bad gzip member");
  const Status c = Status::Cancelled("cancelled");
  EXPECT_TRUE(c.IsCancelled());
  EXPECT_FALSE(c.IsIOError());
  EXPECT_EQ(c.code(), Status::Code::kCancelled);
  EXPECT_EQ(c.ToString(), "Cancelled: cancelled");
}

TEST(StatusTest, MacrosPropagate) {
  EXPECT_EQ(Quarter(8).value(), 2);
  EXPECT_TRUE(Quarter(6).status().IsInvalidArgument());
  EXPECT_TRUE(Both(1, 2).ok());
  Status s = Both(1, -3);
  EXPECT_EQ(s.message(), "not positive: -3");
}

TEST(StatusDeathTest, ValueOfErrorAborts) {
  Result<int> r = Status::NotFound("x");
  EXPECT_DEATH({ (void)r.value(); }, "failed Result");
}

}  // namespace
}  // namespace neardup
