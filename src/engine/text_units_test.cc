// Copyright neardup authors. Licensed under Apache-2.0.
#include "engine/text_units.h"

#include <gtest/gtest.h>

#include <string>

namespace neardup {
namespace {

TokenizedDocument Tok(const std::string& body, ContentKind kind = ContentKind::kText) {
  Tokenizer tokenizer;
  TokenizedDocument doc;
  tokenizer.Tokenize(body, kind, "utf-8", "", &doc);
  return doc;
}

// Non-empty sentences of a tokenized page.
size_t Sentences(const TokenizedDocument& d) {
  size_t n = 0;
  uint32_t prev = 0;
  for (uint32_t e : d.sentence_ends) {
    if (e > prev) ++n;
    prev = std::max(prev, e);
  }
  return n;
}

TEST(ShingleParagraphsTest, RunsOfThreeSentencesWithoutOverlap) {
  // Seven sentences: paragraphs s1-s3, s4-s6 and the last one alone.
  const TokenizedDocument d = Tok("One a. Two b. Three c. Four d. Five e. Six f. Seven g.");
  ASSERT_EQ(Sentences(d), 7u);
  std::vector<uint64_t> p;
  ShingleParagraphs(d, 3, &p);
  ASSERT_EQ(p.size(), 3u);
  // The first paragraph is the same in a page that only holds s1-s3, written differently.
  std::vector<uint64_t> q;
  ShingleParagraphs(Tok("<p>ONE a.</p> <b>Two</b> b. Three   c.", ContentKind::kHtml), 3, &q);
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0], p[0]);
  EXPECT_NE(p[0], p[1]);
  // Sentences 4-6 moved to the front: same paragraph values, other order.
  std::vector<uint64_t> r;
  ShingleParagraphs(Tok("Four d. Five e. Six f. One a. Two b. Three c. Seven g."), 3, &r);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0], p[1]);
  EXPECT_EQ(r[1], p[0]);
}

TEST(ShingleParagraphsTest, SentenceEndsAtThe150thCharacterWithoutAPeriod) {
  // 60 five-letter words, no period: 360 characters; cut every 150
  // characters, so at least 3 sentences and one paragraph.
  std::string text;
  for (int i = 0; i < 60; ++i) text += "words ";
  const TokenizedDocument d = Tok(text);
  EXPECT_GE(Sentences(d), 3u);
  std::vector<uint64_t> p;
  ShingleParagraphs(d, 3, &p);
  EXPECT_EQ(p.size(), (Sentences(d) + 2) / 3);
}

TEST(ShingleParagraphsTest, EmptyPageHasNone) {
  std::vector<uint64_t> p{1, 2};
  ShingleParagraphs(Tok(""), 3, &p);
  EXPECT_TRUE(p.empty());
}

TEST(ChunkingTest, ParseAndName) {
  EXPECT_EQ(Chunking::Parse("whole").value().Name(), "whole");
  EXPECT_EQ(Chunking::Parse("lines:4").value().n, 4u);
  EXPECT_EQ(Chunking::Parse("words:50").value().Name(), "words:50");
  EXPECT_EQ(Chunking::Parse("sentences").value().kind, Chunking::Kind::kSentences);
  for (const char* bad : {"", "lines", "lines:0", "lines:x", "words:-1", "paragraphs", "lines:4x"}) {
    EXPECT_FALSE(Chunking::Parse(bad).ok()) << bad;
  }
}

TEST(ChunkingTest, WordsLinesSentencesAndWhole) {
  const TokenizedDocument d = Tok("a b c\nd e\n\nf\ng h. i j.\n");
  std::vector<uint32_t> fp;
  ChunkFingerprints(d, Chunking::Parse("words:2").value(), &fp);
  EXPECT_EQ(fp.size(), 5u);  // ab cd ef gh ij
  ChunkFingerprints(d, Chunking::Parse("whole").value(), &fp);
  EXPECT_EQ(fp.size(), 1u);
  // Lines with terms: "a b c", "d e", "f", "g h. i j." -> two chunks of 2 lines.
  ChunkFingerprints(d, Chunking::Parse("lines:2").value(), &fp);
  EXPECT_EQ(fp.size(), 2u);
  ChunkFingerprints(d, Chunking::Parse("lines:3").value(), &fp);
  EXPECT_EQ(fp.size(), 2u);  // 3 lines, then the last one
  // The same words chunked alike in another page give the same fingerprints.
  std::vector<uint32_t> a, b;
  ChunkFingerprints(Tok("x y z w"), Chunking::Parse("words:2").value(), &a);
  ChunkFingerprints(Tok("X  Y q r"), Chunking::Parse("words:2").value(), &b);
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(a[0], b[0]);
  EXPECT_NE(a[1], b[1]);
}

}  // namespace
}  // namespace neardup
