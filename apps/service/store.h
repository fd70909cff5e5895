// Copyright neardup authors. Licensed under Apache-2.0.
//
// The service's store on RocksDB: records, keys and their encoding
// (doc/formats/store.md), and a transaction that reads through its own
// pending writes (RocksDB's WriteBatchWithIndex), so that one page's change
// is applied as one WriteBatch and a dry run (POST /v1/check) sees its own
// changes without writing any.
#ifndef NEARDUP_SERVICE_STORE_H_
#define NEARDUP_SERVICE_STORE_H_

#include <rocksdb/db.h>
#include <rocksdb/utilities/write_batch_with_index.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/keeper.h"
#include "neardup/method.h"
#include "neardup/status.h"

namespace neardup {
namespace service {

constexpr uint32_t kStoreFormatVersion = 1;

// Key prefixes (one byte, then fixed-width big-endian numbers or text).
constexpr char kHeaderKey[] = "H";
constexpr char kCountersKey[] = "C";
constexpr char kUrlPrefix = 'u';       // u URL                 -> page id (8 bytes)
constexpr char kPagePrefix = 'p';      // p id                  -> PageRecord
constexpr char kGroupPrefix = 'g';     // g group               -> GroupRecord
constexpr char kMemberPrefix = 'm';    // m group id            -> ""
constexpr char kPostingPrefix = 'k';   // k key                 -> posting list (the method's candidate keys)
constexpr char kExactPrefix = 'x';     // x body-hash           -> posting list (byte-identical bodies)
constexpr char kRedirectPrefix = 'r';  // r target-URL \0 id    -> "" (pages redirecting to target)

enum class PageState : uint8_t { kContent = 0, kRedirect = 1, kRemoved = 2 };

struct PageRecord {
  uint64_t id = 0;
  std::string url;
  PageState state = PageState::kContent;
  uint16_t http_status = 0;
  std::string fetched;
  std::string redirect;     // resolved absolute target of a redirect
  uint64_t body_hash = 0;   // XXH3-64 of the body
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
// A posting list: the ids filed under one key, increasing, 8 bytes each
// (little-endian), at most ServiceOptions::max_bucket_pages of them (pages
// past that are not filed under the key, as dedup leaves buckets that large
// unlisted). One key per list, read with one Get: a page's candidates are a
// few dozen point reads, not iterator seeks.
std::string PostingKey(char prefix, uint64_t key);
void DecodePostings(std::string_view list, std::vector<uint64_t>* ids);
// Adds `id` to the list (false when the list is full); removes it.
bool AddPosting(std::string* list, uint64_t id, size_t max_ids);
void RemovePosting(std::string* list, uint64_t id);
std::string RedirectKey(std::string_view target, uint64_t page);
std::string RedirectPrefix(std::string_view target);

// A RocksDB database opened for the service, with bounded memory.
struct StoreOptions {
  uint64_t block_cache_bytes = uint64_t{64} << 20;
  uint64_t write_buffer_bytes = uint64_t{32} << 20;
};
Result<std::unique_ptr<rocksdb::DB>> OpenStoreDb(const std::string& dir, const StoreOptions& options);
Status FromRocks(const rocksdb::Status& s, std::string_view what);

// Reads go to the pending writes first, then to the database.
class Txn {
 public:
  explicit Txn(rocksdb::DB* db) : db_(db), batch_(rocksdb::BytewiseComparator(), 0, true) {}
  // Found: true and *value set; not found: false. Errors abort via *status.
  bool Get(std::string_view key, std::string* value);
  void Put(std::string_view key, std::string_view value);
  void Delete(std::string_view key);
  // Calls fn(key, value) for every key starting with `prefix`, in order,
  // until it returns false.
  void Scan(std::string_view prefix, const std::function<bool(std::string_view, std::string_view)>& fn);
  // Writes the pending changes as one WriteBatch (WAL on, not synced).
  Status Commit();
  void Discard() { batch_.Clear(); }
  const Status& status() const { return status_; }
  bool empty() { return batch_.GetWriteBatch()->Count() == 0; }

 private:
  rocksdb::DB* db_;
  rocksdb::WriteBatchWithIndex batch_;
  Status status_;
};

}  // namespace service
}  // namespace neardup

#endif  // NEARDUP_SERVICE_STORE_H_
