// Copyright neardup authors. Licensed under Apache-2.0.
//
// The service's store on RocksDB: records, keys and their encoding
// (doc/formats/store.md), and a transaction that reads through its own
// pending writes, so that a batch of pages is applied as one WriteBatch and
// a dry run (POST /v1/check) sees its own changes without writing any.
#ifndef NEARDUP_SERVICE_STORE_H_
#define NEARDUP_SERVICE_STORE_H_

#include <rocksdb/db.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/keeper.h"
#include "neardup/method.h"
#include "neardup/status.h"

namespace neardup {
namespace service {

// Version 2 keeps only the large-bucket marks of the method's postings
// (posting_table.h); version 1 kept every list, and a version-1 store is
// brought to version 2 when it opens.
constexpr uint32_t kStoreFormatVersion = 2;

// Key prefixes (one byte, then fixed-width big-endian numbers or text).
constexpr char kHeaderKey[] = "H";
constexpr char kCountersKey[] = "C";
constexpr char kUrlPrefix = 'u';       // u URL                 -> page id (8 bytes)
constexpr char kPagePrefix = 'p';      // p id                  -> PageRecord
constexpr char kGroupPrefix = 'g';     // g group               -> GroupRecord
constexpr char kMemberPrefix = 'm';    // m group id            -> ""
constexpr char kPostingPrefix = 'k';   // k key                 -> kLargeBucket mark (the method's candidate keys)
constexpr char kExactPrefix = 'x';     // x body-hash           -> (version 1 only) posting list
constexpr char kRedirectPrefix = 'r';  // r target-URL \0 id    -> "" (pages redirecting to target)

enum class PageState : uint8_t { kContent = 0, kRedirect = 1, kRemoved = 2 };

struct PageRecord {
  uint64_t id = 0;
  std::string url;
  PageState state = PageState::kContent;
  uint16_t http_status = 0;
  std::string fetched;
  std::string redirect;     // resolved absolute target of a redirect
  uint64_t body_hash = 0;   // ByteKey of the body (engine/method_impl.h): 0 without content of its own
  uint64_t group = 0;       // 0: none (removed)
  double similarity = 1;    // to the group's winner when it joined or was verified
  KeeperFeatures features;
  Signature signature;          // the method's (content pages; empty otherwise)
  // A removed page: the group and winner it left, for its answer.
  uint64_t former_group = 0;
  std::string former_winner;
};

struct GroupRecord {
  uint64_t id = 0;
  uint64_t winner = 0;      // page id
  uint64_t members = 0;     // live pages, redirects included
  uint64_t failed_verifications = 0;
};

struct Counters {
  uint64_t next_page = 0;   // page ids are 0, 1, 2, ...
  uint64_t next_group = 1;  // group ids start at 1
  uint64_t content_pages = 0, redirect_pages = 0, removed_pages = 0, groups = 0, groups_with_duplicates = 0;
  uint64_t recrawled = 0, tier1_decided = 0, tier2_decided = 0, comparisons = 0;
  uint64_t verifications = 0, verifications_failed = 0, repairs = 0, redirect_cycles = 0;
};

std::string EncodePage(const PageRecord& page);
bool DecodePage(std::string_view data, PageRecord* page);
// Reads only a page record's id, state and group (opening a store reads
// every page's).
bool DecodePageBrief(std::string_view data, uint64_t* id, PageState* state, uint64_t* group);
std::string EncodeGroup(const GroupRecord& group);
bool DecodeGroup(std::string_view data, GroupRecord* group);
std::string EncodeCounters(const Counters& counters);
bool DecodeCounters(std::string_view data, Counters* counters);

std::string PutBigEndian(uint64_t v);
uint64_t GetBigEndian(std::string_view bytes);  // REQUIRES: bytes.size() >= 8
std::string UrlKey(std::string_view url);
std::string PageKey(uint64_t id);
std::string GroupKey(uint64_t id);
std::string MemberKey(uint64_t group, uint64_t page);
// The method's candidate postings live in memory (posting_table.h), rebuilt
// from the page records when a store opens. What the records cannot tell is
// which keys became large buckets: dedup's candidate tables pair no pages of
// a bucket of more than max_bucket_pages pages (boilerplate every page of a
// site shares, say), and a key of the method that was filed under by more
// pages than that gives no candidates from then on, whatever is removed.
// Such a key is stored as `k` key -> the one 8-byte id kLargeBucket.
constexpr uint64_t kLargeBucket = ~uint64_t{0};
std::string PostingKey(char prefix, uint64_t key);
// The value of a large bucket's mark.
std::string LargeBucketMark();
bool IsLargeBucket(std::string_view list);
std::string RedirectKey(std::string_view target, uint64_t page);
std::string RedirectPrefix(std::string_view target);

// A RocksDB database opened for the service, with bounded memory.
struct StoreOptions {
  uint64_t block_cache_bytes = uint64_t{64} << 20;
  uint64_t write_buffer_bytes = uint64_t{32} << 20;
};
Result<std::unique_ptr<rocksdb::DB>> OpenStoreDb(const std::string& dir, const StoreOptions& options);
Status FromRocks(const rocksdb::Status& s, std::string_view what);

// Changes a transaction sealed (Txn::Seal) that may not be in the database
// yet: the transactions opened after see them, so that a batch's changes
// can be written while the next batch is applied. Immutable once sealed.
struct Overlay {
  // Sorted by key, each key once; nullopt: deleted.
  std::vector<std::pair<std::string, std::optional<std::string>>> entries;
  // The entry of `key`, or nullptr.
  const std::optional<std::string>* Find(std::string_view key) const;
};
using Overlays = std::vector<std::shared_ptr<const Overlay>>;  // oldest first
// Writes the overlay's changes as one WriteBatch (WAL on, not synced).
Status WriteOverlay(rocksdb::DB* db, const Overlay& overlay);

// One request's view of the store: reads go to its pending writes first,
// then to what it has already read, then to the overlays it was given
// (newest first), then to the database. Each key written
// is written once at Commit(), however often it changed, as one WriteBatch
// (WAL on, not synced). Discard() drops the pending writes: a dry run (POST
// /v1/check) sees its own changes and writes none. One writer at a time: the
// caller serializes transactions.
class Txn {
 public:
  // `scanned_prefixes`: the first bytes of the prefixes Scan() is asked for
  // (their pending keys are also kept in order).
  explicit Txn(rocksdb::DB* db, Overlays overlays = {}, std::string_view scanned_prefixes = "mr")
      : db_(db), overlays_(std::move(overlays)), scanned_(scanned_prefixes) {}
  // Found: true and *value set; not found: false. Errors abort via *status.
  bool Get(std::string_view key, std::string* value);
  // Whether the transaction has written `key` (a Get would not read the
  // committed value).
  bool IsPending(std::string_view key) const { return pending_.find(key) != pending_.end(); }
  void Put(std::string_view key, std::string_view value);
  void Delete(std::string_view key);
  // Calls fn(key, value) for every key starting with `prefix`, in order,
  // until it returns false. fn must not write to the transaction.
  void Scan(std::string_view prefix, const std::function<bool(std::string_view, std::string_view)>& fn);
  // Writes the pending changes as one WriteBatch (WAL on, not synced).
  Status Commit();
  // Takes the pending changes out as an overlay, which this transaction's
  // reads see from then on, for the caller to write with WriteOverlay (in
  // the order sealed). Null when nothing is pending or after an error.
  std::shared_ptr<const Overlay> Seal();
  void Discard();
  const Status& status() const { return status_; }
  bool empty() const { return pending_.empty(); }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  // key -> value; nullopt: deleted (pending) or absent (read).
  using Map = std::unordered_map<std::string, std::optional<std::string>, Hash, std::equal_to<>>;
  std::optional<std::string>* Pending(std::string_view key);

  // The value of `key` in the overlays (newest first), or nullptr.
  const std::optional<std::string>* InOverlays(std::string_view key) const;

  rocksdb::DB* db_;
  Overlays overlays_;
  std::string scanned_;
  Map pending_;
  Map read_;
  std::set<std::string, std::less<>> ordered_;  // pending keys starting with a byte of scanned_
  Status status_;
};

}  // namespace service
}  // namespace neardup

#endif  // NEARDUP_SERVICE_STORE_H_
