// Copyright neardup authors. Licensed under Apache-2.0.
#include "overlap/record_file.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "neardup/env.h"

namespace neardup {
namespace {

class RecordFileTest : public ::testing::Test {
 protected:
  const std::string dir_ = "overlap_records";
  MemEnv env_;
};

TEST_F(RecordFileTest, LittleEndianLayoutWithoutHeader) {
  const std::string path = dir_ + "/r.bin";
  const std::vector<FprintDocId> records = {{0x04030201u, 0x08070605u}};
  ASSERT_TRUE(WriteFprintDocIdFile(&env_, path, records).ok());
  // fprint then doc, each least significant byte first: 01 02 .. 08.
  EXPECT_EQ(env_.GetContents(path).value(), std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8));
}

TEST_F(RecordFileTest, RoundTripThroughSmallBlocks) {
  const std::string path = dir_ + "/r.bin";
  std::vector<FprintDocId> records;
  for (uint32_t i = 0; i < 1000; ++i) records.push_back({i * 2654435761u, 0xFFFFFFFFu - i});
  {
    Result<std::unique_ptr<FprintDocIdWriter>> w = FprintDocIdWriter::Open(&env_, path, 24);
    ASSERT_TRUE(w.ok());
    for (size_t i = 0; i < 10; ++i) ASSERT_TRUE((*w)->Append(records[i]).ok());
    ASSERT_TRUE((*w)->Append(std::span(records).subspan(10)).ok());
    EXPECT_EQ((*w)->records(), 1000u);
    ASSERT_TRUE((*w)->Close().ok());
    EXPECT_FALSE((*w)->Append(records[0]).ok());  // closed
  }
  EXPECT_EQ(env_.GetFileSize(path).value(), 8000u);
  Result<std::vector<FprintDocId>> back = ReadFprintDocIdFile(&env_, path);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, records);
}

TEST_F(RecordFileTest, SizeNotMultipleOfEightIsCorruption) {
  const std::string path = dir_ + "/bad.bin";
  env_.AddFile(path, std::string(9, 'x'));
  Result<std::unique_ptr<FprintDocIdReader>> r = FprintDocIdReader::Open(&env_, path);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption());
  EXPECT_NE(r.status().message().find(path), std::string::npos);
  EXPECT_NE(r.status().message().find("size 9"), std::string::npos);
}

TEST_F(RecordFileTest, MissingFileIsNotFound) {
  Result<std::vector<FprintDocId>> r = ReadFprintDocIdFile(&env_, dir_ + "/none.bin");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNotFound());
}

TEST_F(RecordFileTest, EmptyFileHasNoRecords) {
  const std::string path = dir_ + "/empty.bin";
  ASSERT_TRUE(WriteFprintDocIdFile(&env_, path, {}).ok());
  Result<std::vector<FprintDocId>> r = ReadFprintDocIdFile(&env_, path);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->empty());
}

}  // namespace
}  // namespace neardup
