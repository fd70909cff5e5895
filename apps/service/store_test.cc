// Copyright neardup authors. Licensed under Apache-2.0.
//
// The service's transaction: reads see its own pending writes, scans merge
// them with the database in key order, nothing reaches the database before
// Commit(), and Discard() drops everything.
#include "service/store.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "test_util.h"

namespace neardup {
namespace service {
namespace {

class TxnTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = OpenStoreDb(testing::MakeTempDir("txn") + "/db", StoreOptions{});
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(db).value();
  }
  // The value stored in the database itself, bypassing any transaction.
  std::optional<std::string> Stored(const std::string& key) {
    std::string v;
    rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), key, &v);
    if (s.IsNotFound()) return std::nullopt;
    EXPECT_TRUE(s.ok()) << s.ToString();
    return v;
  }
  std::vector<std::pair<std::string, std::string>> ScanAll(Txn& txn, std::string_view prefix) {
    std::vector<std::pair<std::string, std::string>> out;
    txn.Scan(prefix, [&](std::string_view k, std::string_view v) {
      out.emplace_back(std::string(k), std::string(v));
      return true;
    });
    return out;
  }
  std::unique_ptr<rocksdb::DB> db_;
};

TEST_F(TxnTest, ReadsSeePendingWritesAndTheDatabaseOnlyAfterCommit) {
  Txn txn(db_.get());
  std::string v;
  EXPECT_FALSE(txn.Get("u/a", &v));
  txn.Put("u/a", "1");  // a key first read as absent, then written
  ASSERT_TRUE(txn.Get("u/a", &v));
  EXPECT_EQ(v, "1");
  EXPECT_EQ(Stored("u/a"), std::nullopt);
  ASSERT_TRUE(txn.Commit().ok());
  EXPECT_EQ(Stored("u/a"), "1");

  Txn next(db_.get());
  next.Delete("u/a");
  EXPECT_FALSE(next.Get("u/a", &v));
  EXPECT_EQ(Stored("u/a"), "1");
  next.Put("u/a", "2");
  next.Put("u/a", "3");  // written once, with its last value
  ASSERT_TRUE(next.Commit().ok());
  EXPECT_EQ(Stored("u/a"), "3");
  EXPECT_TRUE(next.empty());
}

TEST_F(TxnTest, DiscardWritesNothing) {
  {
    Txn txn(db_.get());
    txn.Put("k1", "stored");
    ASSERT_TRUE(txn.Commit().ok());
  }
  Txn txn(db_.get());
  txn.Put("k1", "changed");
  txn.Put("k2", "new");
  txn.Put("k3", "grown");
  txn.Discard();
  ASSERT_TRUE(txn.Commit().ok());
  EXPECT_EQ(Stored("k1"), "stored");
  EXPECT_EQ(Stored("k2"), std::nullopt);
  EXPECT_EQ(Stored("k3"), std::nullopt);
  std::string v;
  ASSERT_TRUE(txn.Get("k1", &v));
  EXPECT_EQ(v, "stored");
}

TEST_F(TxnTest, ScanMergesPendingWritesWithTheDatabaseInOrder) {
  {
    Txn txn(db_.get());
    txn.Put("ma1", "db");
    txn.Put("ma3", "db");
    txn.Put("ma5", "db");
    txn.Put("mb1", "other prefix");
    ASSERT_TRUE(txn.Commit().ok());
  }
  Txn txn(db_.get());
  txn.Put("ma2", "new");
  txn.Put("ma3", "changed");
  txn.Delete("ma5");
  txn.Put("ma9", "new");
  txn.Put("mb0", "other prefix");
  using KV = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(ScanAll(txn, "ma"), (KV{{"ma1", "db"}, {"ma2", "new"}, {"ma3", "changed"}, {"ma9", "new"}}));
  // A prefix whose pending keys are not kept in order scans the same way.
  Txn plain(db_.get(), {}, /*scanned_prefixes=*/"");
  plain.Put("ma2", "new");
  plain.Delete("ma1");
  EXPECT_EQ(ScanAll(plain, "ma"), (KV{{"ma2", "new"}, {"ma3", "db"}, {"ma5", "db"}}));
  // fn stops the scan.
  int calls = 0;
  txn.Scan("ma", [&](std::string_view, std::string_view) { return ++calls < 2; });
  EXPECT_EQ(calls, 2);
}

// Batches sealed and not yet written (overlays): a transaction opened after
// them reads them, newest first, before the database, and its own pending
// changes before them; nothing reaches the database before WriteOverlay.
TEST_F(TxnTest, SealedBatchesAreReadUntilWrittenInOrder) {
  {
    Txn txn(db_.get());
    txn.Put("ma1", "db");
    txn.Put("ma2", "db");
    ASSERT_TRUE(txn.Commit().ok());
  }
  Txn first(db_.get());
  first.Put("ma2", "first");
  first.Put("ma3", "first");
  std::shared_ptr<const Overlay> one = first.Seal();
  ASSERT_NE(one, nullptr);
  EXPECT_EQ(first.Seal(), nullptr);  // nothing pending any more
  std::string v;
  ASSERT_TRUE(first.Get("ma3", &v));  // its own sealed change
  EXPECT_EQ(v, "first");
  Txn second(db_.get(), {one});
  second.Delete("ma1");
  second.Put("ma4", "second");
  std::shared_ptr<const Overlay> two = second.Seal();
  ASSERT_NE(two, nullptr);
  Txn third(db_.get(), {one, two});
  third.Put("ma3", "third");
  using KV = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(ScanAll(third, "ma"), (KV{{"ma2", "first"}, {"ma3", "third"}, {"ma4", "second"}}));
  EXPECT_FALSE(third.Get("ma1", &v));
  ASSERT_TRUE(third.Get("ma2", &v));
  EXPECT_EQ(v, "first");
  EXPECT_EQ(Stored("ma2"), "db");
  EXPECT_EQ(Stored("ma3"), std::nullopt);
  ASSERT_TRUE(WriteOverlay(db_.get(), *one).ok());
  ASSERT_TRUE(WriteOverlay(db_.get(), *two).ok());
  EXPECT_EQ(Stored("ma1"), std::nullopt);
  EXPECT_EQ(Stored("ma2"), "first");
  EXPECT_EQ(Stored("ma3"), "first");
  EXPECT_EQ(Stored("ma4"), "second");
}

// Random puts, deletes and reads checked against a std::map model, across
// commits, discards and batches sealed and written later (as requests
// seal them and write them after the next one has started): reads and
// scans see what is sealed, the database holds what is written, in order.
TEST_F(TxnTest, AgreesWithAModelUnderRandomChanges) {
  std::mt19937_64 rng(7);
  std::map<std::string, std::string> committed, written, model;
  Overlays inflight;
  for (int round = 0; round < 60; ++round) {
    Txn txn(db_.get(), inflight);
    model = committed;
    for (int op = 0; op < 60; ++op) {
      const std::string key = std::string(1, "mrx"[rng() % 3]) + std::to_string(rng() % 30);
      const int kind = static_cast<int>(rng() % 3);
      if (kind == 0) {
        txn.Delete(key);
        model.erase(key);
      } else if (kind == 1) {
        std::string v;
        const bool found = txn.Get(key, &v);
        EXPECT_EQ(found, model.count(key) == 1) << key;
        if (found) {
          EXPECT_EQ(v, model[key]);
        }
      } else {
        const std::string v = std::to_string(rng() % 1000);
        txn.Put(key, v);
        model[key] = v;
      }
    }
    for (const char* prefix : {"m", "r", "x"}) {
      std::vector<std::pair<std::string, std::string>> want;
      for (const auto& [k, v] : model) {
        if (k.starts_with(prefix)) want.emplace_back(k, v);
      }
      EXPECT_EQ(ScanAll(txn, prefix), want) << prefix << " round " << round;
    }
    const int end = static_cast<int>(rng() % 4);
    if (end == 0) {
      txn.Discard();
    } else if (end == 1 && inflight.empty()) {
      ASSERT_TRUE(txn.Commit().ok());
      committed = written = model;
    } else if (std::shared_ptr<const Overlay> sealed = txn.Seal()) {
      inflight.push_back(sealed);
      committed = model;
    }
    // The oldest sealed batches are written, in order, some rounds later.
    while (!inflight.empty() && rng() % 2 == 0) {
      ASSERT_TRUE(WriteOverlay(db_.get(), *inflight.front()).ok());
      for (const auto& [k, v] : inflight.front()->entries) {
        if (v.has_value()) written[k] = *v; else written.erase(k);
      }
      inflight.erase(inflight.begin());
    }
    for (const auto& [k, v] : written) EXPECT_EQ(Stored(k), v);
    if (inflight.empty()) { EXPECT_EQ(written, committed); }
  }
}

TEST(PostingList, TheLargeBucketMarkIsOneAllOnesId) {
  EXPECT_TRUE(IsLargeBucket(LargeBucketMark()));
  EXPECT_FALSE(IsLargeBucket(std::string(8, '\0')));
  EXPECT_FALSE(IsLargeBucket(LargeBucketMark() + LargeBucketMark()));  // a version-1 list of two ids
}

}  // namespace
}  // namespace service
}  // namespace neardup
