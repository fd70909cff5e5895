// Copyright neardup authors. Licensed under Apache-2.0.
//
// PairsWriter / PairsReader: every method's header and number formats, value
// columns kept by name, and malformed headers and rows.
#include "output/pairs_file.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "neardup/env.h"

namespace neardup {
namespace {

constexpr char kPath[] = "out/pairs.tsv";

TEST(PairsFileTest, WritesEachMethodsColumns) {
  struct Case {
    std::vector<PairColumn> columns;
    std::vector<double> values;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {{{"supershingles_shared"}}, {3}, "url_a\turl_b\tsupershingles_shared\nhttp://a/\thttp://b/\t3\n"},
      {{{"supershingles_shared"}, {"bits_agreeing"}},
       {2, 380},
       "url_a\turl_b\tsupershingles_shared\tbits_agreeing\nhttp://a/\thttp://b/\t2\t380\n"},
      {{{"content_similarity", 4}, {"content_positions"}},
       {0.875, 64},
       "url_a\turl_b\tcontent_similarity\tcontent_positions\nhttp://a/\thttp://b/\t0.8750\t64\n"},
      {{{"shared_percentage", 2}, {"paragraphs_of_both"}},
       {100.0 * 2 / 3, 3},
       "url_a\turl_b\tshared_percentage\tparagraphs_of_both\nhttp://a/\thttp://b/\t66.67\t3\n"},
      {{{"F"}}, {4294967296.0}, "url_a\turl_b\tF\nhttp://a/\thttp://b/\t4294967296\n"},
  };
  for (const Case& c : cases) {
    MemEnv env;
    auto w = PairsWriter::Create(&env, kPath, c.columns);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    ASSERT_TRUE((*w)->Add("http://a/", "http://b/", c.values).ok());
    EXPECT_FALSE(env.FileExists(kPath));
    ASSERT_TRUE((*w)->Finish().ok());
    EXPECT_EQ(env.GetContents(kPath).value(), c.expected);
    EXPECT_EQ((*w)->bytes_written(), c.expected.size());

    // Round trip: the reader finds the same columns and values.
    auto r = PairsReader::Open(&env, kPath);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ((*r)->value_columns().size(), c.columns.size());
    for (size_t i = 0; i < c.columns.size(); ++i) {
      EXPECT_EQ((*r)->value_columns()[i], c.columns[i].name);
      EXPECT_EQ((*r)->ValueIndex(c.columns[i].name), i);
    }
    PairRecord rec;
    Result<bool> got = (*r)->Next(&rec);
    ASSERT_TRUE(got.ok() && *got) << got.status().ToString();
    EXPECT_EQ(rec.url_a, "http://a/");
    EXPECT_EQ(rec.url_b, "http://b/");
    ASSERT_EQ(rec.values.size(), c.values.size());
    for (size_t i = 0; i < c.values.size(); ++i) {
      EXPECT_NEAR(rec.values[i], c.values[i], 0.006) << c.columns[i].name;
    }
    got = (*r)->Next(&rec);
    ASSERT_TRUE(got.ok());
    EXPECT_FALSE(*got);
  }
}

TEST(PairsFileTest, WrongNumberOfValuesIsRefused) {
  MemEnv env;
  auto w = PairsWriter::Create(&env, kPath, {{"bits_agreeing"}});
  ASSERT_TRUE(w.ok());
  const double two[] = {1, 2};
  Status s = (*w)->Add("a", "b", two);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find(kPath), std::string::npos);
  ASSERT_TRUE((*w)->Finish().ok());
  EXPECT_EQ(env.GetContents(kPath).value(), "url_a\turl_b\tbits_agreeing\n");
  EXPECT_EQ((*w)->rows(), 0u);
}

TEST(PairsFileTest, AbandonedWriterLeavesNothing) {
  MemEnv env;
  {
    auto w = PairsWriter::Create(&env, kPath, {});
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Add("a", "b", {}).ok());
  }
  EXPECT_FALSE(env.FileExists(kPath));
  EXPECT_FALSE(env.FileExists(std::string(kPath) + ".tmp"));
}

TEST(PairsFileTest, UnknownValueColumnsAreKeptByName) {
  MemEnv env;
  env.AddFile(kPath, "score\turl_b\turl_a\tnew_measure\n0.5\thttp://b/\thttp://a/\t7\n");
  auto r = PairsReader::Open(&env, kPath);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->value_columns(), (std::vector<std::string>{"score", "new_measure"}));
  EXPECT_EQ((*r)->ValueIndex("new_measure"), 1u);
  EXPECT_FALSE((*r)->ValueIndex("bits_agreeing").has_value());
  PairRecord rec;
  ASSERT_TRUE((*r)->Next(&rec).value());
  EXPECT_EQ(rec.url_a, "http://a/");
  EXPECT_EQ(rec.url_b, "http://b/");
  EXPECT_EQ(rec.values, (std::vector<double>{0.5, 7}));
}

TEST(PairsFileTest, HeaderErrors) {
  MemEnv env;
  EXPECT_TRUE(PairsReader::Open(&env, kPath).status().IsNotFound());
  env.AddFile(kPath, "");
  EXPECT_TRUE(PairsReader::Open(&env, kPath).status().IsCorruption());
  env.AddFile(kPath, "url_a\tsupershingles_shared\n");
  Status s = PairsReader::Open(&env, kPath).status();
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_EQ(s.message(), std::string(kPath) + ": line 1: not a pairs.tsv header: no column 'url_b'");
}

TEST(PairsFileTest, MalformedRowsNameTheLineAndAreSkipped) {
  MemEnv env;
  env.AddFile(kPath,
              "url_a\turl_b\tsupershingles_shared\tbits_agreeing\n"
              "http://a/\thttp://b/\t3\t380\n"  // line 2
              "\n"                               // 3
              "\t\t1\t2\n"                       // 4
              "http://a/\thttp://b/\tfoo\t380\n"  // 5
              "http://a/\thttp://b/\t1\n"        // 6
              "http://c/\thttp://d/\t1e0\t375\textra\n");  // 7
  auto r = PairsReader::Open(&env, kPath);
  ASSERT_TRUE(r.ok());
  std::vector<std::string> urls, errors;
  PairRecord rec;
  for (;;) {
    Result<bool> got = (*r)->Next(&rec);
    if (!got.ok()) {
      EXPECT_TRUE(got.status().IsCorruption());
      errors.push_back(got.status().message());
      continue;
    }
    if (!*got) break;
    urls.emplace_back(rec.url_a);
  }
  EXPECT_EQ(urls, (std::vector<std::string>{"http://a/", "http://c/"}));
  const std::string p = std::string(kPath) + ": line ";
  EXPECT_EQ(errors, (std::vector<std::string>{p + "3: has 1 fields, the header has 4", p + "4: empty url",
                                              p + "5: supershingles_shared is not a number: 'foo'",
                                              p + "6: has 3 fields, the header has 4"}));
}

}  // namespace
}  // namespace neardup
