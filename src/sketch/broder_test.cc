#include "sketch/broder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <thread>
#include <vector>

namespace neardup {
namespace {

std::vector<uint64_t> RandomTerms(std::mt19937_64& rng, size_t n) {
  std::vector<uint64_t> v(n);
  for (auto& x : v) x = rng();
  return v;
}

// Independent reference for one shingle: RabinFingerprinter::Fingerprint of
// the window's term hashes as 8 big-endian bytes each.
uint64_t DirectShingle(const RabinFingerprinter& fp, const std::vector<uint64_t>& window) {
  std::vector<unsigned char> bytes;
  for (uint64_t h : window) {
    for (int i = 7; i >= 0; --i) bytes.push_back(static_cast<unsigned char>(h >> (8 * i)));
  }
  return fp.Fingerprint(bytes.data(), bytes.size());
}

// The windows the header documents, term by term.
std::vector<std::vector<uint64_t>> ExpectedWindows(const std::vector<uint64_t>& h, size_t k,
                                                   bool wrap) {
  std::vector<std::vector<uint64_t>> w;
  const size_t n = h.size();
  if (n == 0) return w;
  if (!wrap && n < k) return {h};
  const size_t count = wrap ? n : n - k + 1;
  for (size_t s = 0; s < count; ++s) {
    std::vector<uint64_t> win;
    for (size_t t = 0; t < k; ++t) win.push_back(h[(s + t) % n]);
    w.push_back(win);
  }
  return w;
}

BroderOptions Opts(uint32_t k, bool wrap, MinHashFamily family = MinHashFamily::kFast,
                   uint64_t seed = 1234) {
  BroderOptions o;
  o.shingle_size = k;
  o.wrap = wrap;
  o.family = family;
  o.seed = seed;
  return o;
}

TEST(BroderOptionsTest, Validate) {
  EXPECT_TRUE(BroderOptions().Validate().ok());
  EXPECT_EQ(BroderOptions().num_supershingles(), 6u);
  auto bad = [](auto mutate) {
    BroderOptions o;
    mutate(o);
    return o.Validate().IsInvalidArgument();
  };
  EXPECT_TRUE(bad([](BroderOptions& o) { o.shingle_size = 0; }));
  EXPECT_TRUE(bad([](BroderOptions& o) { o.shingle_size = 65; }));
  EXPECT_TRUE(bad([](BroderOptions& o) { o.num_minhashes = 0; }));
  EXPECT_TRUE(bad([](BroderOptions& o) {
    o.num_minhashes = 264;
    o.supershingle_size = 24;
  }));
  EXPECT_TRUE(bad([](BroderOptions& o) { o.supershingle_size = 13; }));  // 84 % 13 != 0
  EXPECT_TRUE(bad([](BroderOptions& o) { o.supershingle_size = 0; }));
  EXPECT_TRUE(bad([](BroderOptions& o) { o.supershingle_size = 168; }));
  EXPECT_TRUE(bad([](BroderOptions& o) {
    o.num_minhashes = 34;
    o.supershingle_size = 2;
  }));
  EXPECT_TRUE(bad([](BroderOptions& o) { o.family = static_cast<MinHashFamily>(7); }));
  BroderOptions edge;
  edge.shingle_size = 64;
  edge.num_minhashes = 256;
  edge.supershingle_size = 16;
  EXPECT_TRUE(edge.Validate().ok());
  edge.num_minhashes = 1;
  edge.supershingle_size = 1;
  EXPECT_TRUE(edge.Validate().ok());
}

TEST(BroderOptionsTest, NameRoundTrips) {
  EXPECT_EQ(BroderOptions().Name(), "broder:k=5,wrap,m=84,l=14,fast,seed=1234");
  BroderOptions h = Opts(8, false, MinHashFamily::kRabin, 99);
  EXPECT_EQ(h.Name(), "broder:k=8,nowrap,m=84,l=14,rabin,seed=99");
  for (const BroderOptions& o : {BroderOptions(), h}) {
    Result<BroderOptions> back = BroderOptions::FromName(o.Name());
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->Name(), o.Name());
  }
  Result<BroderOptions> reordered =
      BroderOptions::FromName("broder:seed=18446744073709551615,rabin,l=7,m=14,nowrap,k=3");
  ASSERT_TRUE(reordered.ok());
  EXPECT_EQ(reordered->seed, UINT64_MAX);
  EXPECT_EQ(reordered->num_supershingles(), 2u);
  for (const char* bad :
       {"", "minhash:k=5", "broder:k=5,wrap,m=84,l=14,fast",
        "broder:k=5,wrap,m=84,l=14,fast,seed=x", "broder:k=5,wrap,m=84,l=13,fast,seed=1",
        "broder:k=5,wrap,m=84,l=14,slow,seed=1",
        "broder:k=99999999999,wrap,m=84,l=14,fast,seed=1"}) {
    EXPECT_TRUE(BroderOptions::FromName(bad).status().IsInvalidArgument()) << bad;
  }
}

TEST(BroderSketcherTest, RollingShinglesMatchDirectFingerprints) {
  std::mt19937_64 rng(1);
  for (MinHashFamily family : {MinHashFamily::kFast}) {
    for (uint32_t k : {1u, 2u, 3u, 5u, 8u, 13u, 64u}) {
      for (bool wrap : {true, false}) {
        BroderSketcher sk(Opts(k, wrap, family, 77 + k));
        std::vector<uint64_t> shingles;
        for (size_t n : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 14, 40, 65, 130, 131, 257, 1003}) {
          const std::vector<uint64_t> terms = RandomTerms(rng, n);
          sk.Shingles(terms, &shingles);
          const auto windows = ExpectedWindows(terms, k, wrap);
          ASSERT_EQ(shingles.size(), windows.size()) << "k=" << k << " n=" << n;
          for (size_t s = 0; s < windows.size(); ++s) {
            ASSERT_EQ(shingles[s], DirectShingle(sk.shingle_fingerprinter(), windows[s]))
                << "k=" << k << " wrap=" << wrap << " n=" << n << " s=" << s;
          }
        }
      }
    }
  }
}

TEST(BroderSketcherTest, ShingleCountsAndShortDocuments) {
  BroderSketcher fetterly(Opts(5, true));
  BroderSketcher henzinger(Opts(8, false));
  std::vector<uint64_t> out;
  const std::vector<uint64_t> ten = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  fetterly.Shingles(ten, &out);
  EXPECT_EQ(out.size(), 10u);  // every term starts exactly one shingle
  henzinger.Shingles(ten, &out);
  EXPECT_EQ(out.size(), 3u);  // n - k + 1
  // Fewer than k terms. Wrap: the window wraps repeatedly, one shingle per
  // term: terms {a, b} with k = 5 give windows abab a and baba b.
  const std::vector<uint64_t> two = {0xaaaa, 0xbbbb};
  fetterly.Shingles(two, &out);
  ASSERT_EQ(out.size(), 2u);
  const auto& fp = fetterly.shingle_fingerprinter();
  EXPECT_EQ(out[0], DirectShingle(fp, {0xaaaa, 0xbbbb, 0xaaaa, 0xbbbb, 0xaaaa}));
  EXPECT_EQ(out[1], DirectShingle(fp, {0xbbbb, 0xaaaa, 0xbbbb, 0xaaaa, 0xbbbb}));
  // No wrap: one shingle of all the terms.
  henzinger.Shingles(two, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], DirectShingle(henzinger.shingle_fingerprinter(), two));
  // No terms: no shingles, no sketch.
  henzinger.Shingles({}, &out);
  EXPECT_TRUE(out.empty());
  SketchScratch scratch;
  uint64_t ss[6] = {1, 2, 3, 4, 5, 6};
  uint64_t mh[84] = {};
  EXPECT_FALSE(fetterly.Sketch({}, &scratch, ss, mh));
  EXPECT_EQ(ss[0], 1u);
  EXPECT_EQ(ss[5], 6u);
  EXPECT_FALSE(fetterly.MinHashes({}, mh));
  // A one-term document still has a signature.
  const std::vector<uint64_t> one = {42};
  EXPECT_TRUE(fetterly.Sketch(one, &scratch, ss, mh));
  EXPECT_TRUE(henzinger.Sketch(one, &scratch, ss, mh));
}

TEST(BroderSketcherTest, MinHashesAreTheArgminPreImages) {
  std::mt19937_64 rng(2);
  for (MinHashFamily family : {MinHashFamily::kFast, MinHashFamily::kRabin}) {
    BroderOptions o = Opts(5, true, family);
    o.num_minhashes = 28;
    BroderSketcher sk(o);
    for (size_t n : {1, 2, 7, 100, 600, 1500}) {
      std::vector<uint64_t> set = RandomTerms(rng, n);
      if (n == 7) {
        for (auto& x : set) x &= 0xff;  // small values, many repeats
      }
      std::vector<uint64_t> mh(o.num_minhashes);
      ASSERT_TRUE(sk.MinHashes(set, mh.data()));
      for (uint32_t i = 0; i < o.num_minhashes; ++i) {
        uint64_t best = set[0];
        for (uint64_t x : set) {
          if (sk.TEST_Image(i, x) < sk.TEST_Image(i, best)) best = x;
        }
        ASSERT_EQ(mh[i], best) << "n=" << n << " i=" << i;
      }
      // A set: order and repeats do not matter.
      std::vector<uint64_t> shuffled = set;
      shuffled.insert(shuffled.end(), set.begin(), set.begin() + n / 2);
      std::shuffle(shuffled.begin(), shuffled.end(), rng);
      std::vector<uint64_t> mh2(o.num_minhashes);
      ASSERT_TRUE(sk.MinHashes(shuffled, mh2.data()));
      EXPECT_EQ(mh, mh2);
    }
  }
}

TEST(BroderSketcherTest, FastImagesAreOneToOne) {
  // TEST_Image is a bijection: distinct inputs, distinct images (and the
  // extremes of the signed order map where the inversion says).
  BroderSketcher sk(BroderOptions{});
  std::mt19937_64 rng(3);
  std::set<uint64_t> images;
  for (int t = 0; t < 20000; ++t) images.insert(sk.TEST_Image(5, t));
  EXPECT_EQ(images.size(), 20000u);
  // The pre-image of a singleton set is its element, for any value.
  for (uint64_t x : {uint64_t{0}, UINT64_MAX, uint64_t{1} << 63, rng(), rng()}) {
    uint64_t mh[84];
    ASSERT_TRUE(sk.MinHashes(std::span<const uint64_t>(&x, 1), mh));
    for (uint64_t v : mh) ASSERT_EQ(v, x);
  }
}

TEST(BroderSketcherTest, SupershinglesFingerprintRunsOfL) {
  for (uint32_t l : {7u, 14u, 21u, 42u, 84u}) {
    BroderOptions o;
    o.supershingle_size = l;
    BroderSketcher sk(o);
    const uint32_t m = o.num_minhashes, mp = o.num_supershingles();
    std::mt19937_64 rng(l);
    std::vector<uint64_t> mh = RandomTerms(rng, m);
    std::vector<uint64_t> ss(mp);
    sk.Supershingles(mh.data(), ss.data());
    for (uint32_t j = 0; j < mp; ++j) {
      std::vector<uint64_t> run(mh.begin() + j * l, mh.begin() + (j + 1) * l);
      EXPECT_EQ(ss[j], DirectShingle(sk.supershingle_fingerprinter(), run));
    }
    // Changing pre-image t changes exactly supershingle t / l.
    for (uint32_t t = 0; t < m; ++t) {
      std::vector<uint64_t> edited = mh;
      edited[t] ^= 1;
      std::vector<uint64_t> ss2(mp);
      sk.Supershingles(edited.data(), ss2.data());
      for (uint32_t j = 0; j < mp; ++j) EXPECT_EQ(ss[j] == ss2[j], j != t / l) << t << " " << j;
    }
  }
}

TEST(BroderSketcherTest, SketchEqualsThePipelineAndIsDeterministic) {
  std::mt19937_64 rng(4);
  for (MinHashFamily family : {MinHashFamily::kFast, MinHashFamily::kRabin}) {
    for (bool wrap : {true, false}) {
      BroderOptions o = Opts(wrap ? 5 : 8, wrap, family);
      BroderSketcher a(o), b(o);
      SketchScratch scratch;
      for (size_t n : {1, 3, 9, 300, 2000}) {
        const std::vector<uint64_t> terms = RandomTerms(rng, n);
        std::vector<uint64_t> shingles, mh(84), ss(6), mh_s(84), ss_s(6), ss_b(6);
        a.Shingles(terms, &shingles);
        ASSERT_TRUE(a.MinHashes(shingles, mh.data()));
        a.Supershingles(mh.data(), ss.data());
        ASSERT_TRUE(a.Sketch(terms, &scratch, ss_s.data(), mh_s.data()));
        EXPECT_EQ(mh, mh_s);
        EXPECT_EQ(ss, ss_s);
        ASSERT_TRUE(b.Sketch(terms, &scratch, ss_b.data()));  // minhashes in scratch
        EXPECT_EQ(ss, ss_b);
      }
    }
  }
}

TEST(BroderSketcherTest, SeedsAndFamiliesGiveDifferentSketches) {
  std::mt19937_64 rng(5);
  const std::vector<uint64_t> terms = RandomTerms(rng, 500);
  SketchScratch scratch;
  auto sketch = [&](const BroderOptions& o) {
    BroderSketcher sk(o);
    std::vector<uint64_t> ss(o.num_supershingles()), mh(o.num_minhashes);
    EXPECT_TRUE(sk.Sketch(terms, &scratch, ss.data(), mh.data()));
    return std::make_pair(ss, mh);
  };
  const auto base = sketch(Opts(5, true));
  EXPECT_EQ(base, sketch(Opts(5, true)));
  // Same seed without wrap: only the 4 wrapped shingles of 500 are missing
  // (resemblance 0.992), so nearly every pre-image agrees.
  const auto nowrap = sketch(Opts(5, false));
  int agree = 0;
  for (int i = 0; i < 84; ++i) agree += base.second[i] == nowrap.second[i];
  EXPECT_GE(agree, 75);
  for (const BroderOptions& o : {Opts(5, true, MinHashFamily::kFast, 1235),
                                 Opts(5, true, MinHashFamily::kRabin), Opts(6, true)}) {
    const auto other = sketch(o);
    EXPECT_EQ(BSimilarity(base.first.data(), other.first.data(), 6), 0) << o.Name();
    int same_minhashes = 0;
    for (int i = 0; i < 84; ++i) same_minhashes += base.second[i] == other.second[i];
    EXPECT_LT(same_minhashes, 10) << o.Name();
  }
}

TEST(BroderSketcherTest, BSimilarityOfEditedCopies) {
  std::mt19937_64 rng(6);
  for (MinHashFamily family : {MinHashFamily::kFast, MinHashFamily::kRabin}) {
    BroderSketcher sk(Opts(5, true, family));
    SketchScratch scratch;
    uint64_t a[6], b[6];
    const std::vector<uint64_t> doc = RandomTerms(rng, 3000);
    ASSERT_TRUE(sk.Sketch(doc, &scratch, a));
    ASSERT_TRUE(sk.Sketch(doc, &scratch, b));
    EXPECT_EQ(BSimilarity(a, b, 6), 6);
    // One changed term changes 5 of 3000 shingles: resemblance ~0.997, every
    // supershingle agrees with probability ~0.95^... (p^14 ~ 0.955).
    std::vector<uint64_t> edited = doc;
    edited[1234] = rng();
    ASSERT_TRUE(sk.Sketch(edited, &scratch, b));
    EXPECT_GE(BSimilarity(a, b, 6), 4);
    // An unrelated document shares nothing.
    ASSERT_TRUE(sk.Sketch(RandomTerms(rng, 3000), &scratch, b));
    EXPECT_EQ(BSimilarity(a, b, 6), 0);
    // Half the document replaced: resemblance ~1/3, q = p^14 ~ 2e-7.
    for (size_t i = 0; i < 1500; ++i) edited[i] = rng();
    ASSERT_TRUE(sk.Sketch(edited, &scratch, b));
    EXPECT_LT(BSimilarity(a, b, 6), 2);
  }
}

TEST(BroderSketcherTest, MegashinglesAreOrderedPairFingerprints) {
  EXPECT_EQ(Megashingle(1, 2), Megashingle(1, 2));
  EXPECT_NE(Megashingle(1, 2), Megashingle(2, 1));
  EXPECT_NE(Megashingle(0, 0), Megashingle(0, 1));
  RabinFingerprinter fp = RabinFingerprinter::FromSeed(kMegashingleSeed);
  const unsigned char be[16] = {0, 0, 0, 0, 0, 0, 0, 1, 0x80, 0, 0, 0, 0, 0, 0, 2};
  EXPECT_EQ(Megashingle(1, 0x8000000000000002ULL), fp.Fingerprint(be, 16));
  // Documents with two equal supershingles share the megashingle of that pair.
  const uint64_t x[6] = {10, 11, 12, 13, 14, 15}, y[6] = {20, 11, 22, 13, 24, 25};
  int shared = 0;
  for (int i = 0; i < 6; ++i) {
    for (int j = i + 1; j < 6; ++j) shared += Megashingle(x[i], x[j]) == Megashingle(y[i], y[j]);
  }
  EXPECT_EQ(shared, 1);
  EXPECT_EQ(BSimilarity(x, y, 6), 2);
}

TEST(BroderSketcherTest, SharedBetweenThreads) {
  BroderSketcher sk(BroderOptions{});
  std::mt19937_64 rng(7);
  std::vector<std::vector<uint64_t>> docs;
  for (int d = 0; d < 16; ++d) docs.push_back(RandomTerms(rng, 100 + 50 * d));
  std::vector<std::vector<uint64_t>> expected(docs.size(), std::vector<uint64_t>(6));
  SketchScratch scratch;
  for (size_t d = 0; d < docs.size(); ++d)
    ASSERT_TRUE(sk.Sketch(docs[d], &scratch, expected[d].data()));
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      SketchScratch own;
      for (int rep = 0; rep < 20; ++rep) {
        for (size_t d = 0; d < docs.size(); ++d) {
          uint64_t ss[6];
          if (!sk.Sketch(docs[d], &own, ss) || !std::equal(ss, ss + 6, expected[d].begin())) {
            ++mismatches[t];
          }
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(mismatches[t], 0);
}

}  // namespace
}  // namespace neardup
