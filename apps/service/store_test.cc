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
  txn.Update("k3", [](std::string* v, bool) {
    v->append("grown");
    return Txn::Change::kPut;
  });
  txn.Discard();
  ASSERT_TRUE(txn.Commit().ok());
  EXPECT_EQ(Stored("k1"), "stored");
  EXPECT_EQ(Stored("k2"), std::nullopt);
  EXPECT_EQ(Stored("k3"), std::nullopt);
  std::string v;
  ASSERT_TRUE(txn.Get("k1", &v));
  EXPECT_EQ(v, "stored");
}

TEST_F(TxnTest, UpdateWritesOnlyWhatChanged) {
  {
    Txn txn(db_.get());
    txn.Put("k", "ab");
    txn.Put("same", "x");
    txn.Put("gone", "x");
    ASSERT_TRUE(txn.Commit().ok());
  }
  using Change = Txn::Change;
  Txn txn(db_.get());
  auto append = [](const char* tail) {
    return [tail](std::string* v, bool) {
      v->append(tail);
      return Change::kPut;
    };
  };
  bool saw_found = false;
  txn.Update("k", [&](std::string* v, bool found) {
    saw_found = found;
    EXPECT_EQ(*v, "ab");
    v->append("c");
    return Change::kPut;
  });
  EXPECT_TRUE(saw_found);
  txn.Update("k", append("d"));  // the pending value
  txn.Update("fresh", [&](std::string* v, bool found) {
    EXPECT_FALSE(found);
    EXPECT_TRUE(v->empty());
    v->assign("new");
    return Change::kPut;
  });
  // Read and left alone: nothing pending, the value still readable.
  EXPECT_EQ(txn.Update("same", [](std::string* v, bool) { return v->empty() ? Change::kPut : Change::kNone; }),
            Change::kNone);
  EXPECT_TRUE(txn.Update("absent", [](std::string*, bool) { return Change::kNone; }) == Change::kNone);
  std::string v;
  ASSERT_TRUE(txn.Get("same", &v));
  EXPECT_EQ(v, "x");
  txn.Update("gone", [](std::string*, bool) { return Change::kDelete; });
  EXPECT_FALSE(txn.Get("gone", &v));
  txn.Update("gone", [](std::string* value, bool found) {
    EXPECT_FALSE(found);  // deleted in this transaction
    value->assign("back");
    return Change::kPut;
  });
  // The database is written behind the transaction's back: a key it left
  // alone is not written over at Commit.
  ASSERT_TRUE(db_->Put(rocksdb::WriteOptions(), "same", "outside").ok());
  ASSERT_TRUE(txn.Commit().ok());
  EXPECT_EQ(Stored("k"), "abcd");
  EXPECT_EQ(Stored("fresh"), "new");
  EXPECT_EQ(Stored("gone"), "back");
  EXPECT_EQ(Stored("same"), "outside");
  EXPECT_EQ(Stored("absent"), std::nullopt);
}

TEST_F(TxnTest, PrefetchedKeysReadTheSameAsSingleReads) {
  {
    Txn txn(db_.get());
    for (int i = 0; i < 50; i += 2) txn.Put("p" + std::to_string(i), "v" + std::to_string(i));
    ASSERT_TRUE(txn.Commit().ok());
  }
  Txn txn(db_.get());
  txn.Put("p4", "pending");  // a pending write wins over the prefetched value
  std::vector<std::string> keys;
  for (int i = 49; i >= 0; --i) keys.push_back(std::string(1, 'p').append(std::to_string(i)));
  keys.push_back("p6");  // duplicates are fine
  txn.Prefetch(keys);
  ASSERT_TRUE(txn.status().ok());
  // Once read, the transaction answers from what it read: a write made to
  // the database behind its back is not seen (one writer at a time).
  ASSERT_TRUE(db_->Put(rocksdb::WriteOptions(), "p8", "behind").ok());
  for (int i = 0; i < 50; ++i) {
    std::string v;
    const bool found = txn.Get("p" + std::to_string(i), &v);
    if (i == 4) {
      EXPECT_EQ(v, "pending");
    } else if (i % 2 == 0) {
      ASSERT_TRUE(found) << i;
      EXPECT_EQ(v, "v" + std::to_string(i));
    } else {
      EXPECT_FALSE(found) << i;
    }
  }
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

// Random puts, deletes, updates and reads checked against a std::map model, across
// commits and discards.
TEST_F(TxnTest, AgreesWithAModelUnderRandomChanges) {
  std::mt19937_64 rng(7);
  std::map<std::string, std::string> committed, model;
  Txn txn(db_.get());
  for (int round = 0; round < 40; ++round) {
    model = committed;
    for (int op = 0; op < 60; ++op) {
      const std::string key = std::string(1, "mrx"[rng() % 3]) + std::to_string(rng() % 30);
      const int kind = static_cast<int>(rng() % 4);
      if (kind == 0) {
        txn.Delete(key);
        model.erase(key);
      } else if (kind == 1) {
        const bool grow = rng() % 2 == 0;
        txn.Update(key, [&](std::string* v, bool found) {
          EXPECT_EQ(found, model.count(key) == 1) << key;
          if (!grow) return Txn::Change::kNone;
          v->push_back('+');
          return Txn::Change::kPut;
        });
        if (grow) model[key].push_back('+');
      } else if (kind == 2) {
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
    if (rng() % 3 == 0) {
      txn.Discard();
    } else {
      ASSERT_TRUE(txn.Commit().ok());
      committed = model;
    }
    for (const auto& [k, v] : committed) EXPECT_EQ(Stored(k), v);
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
