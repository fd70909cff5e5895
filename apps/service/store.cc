#include "service/store.h"

#include <rocksdb/cache.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>

#include <algorithm>
#include <cstring>
#include <map>

namespace neardup {
namespace service {

namespace {

// Little helpers of the record encoding: fixed 64-bit little-endian numbers
// and length-prefixed strings (a 32-bit length).
class Writer {
 public:
  void U8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void U64(uint64_t v) {
    char b[8];
    std::memcpy(b, &v, 8);
    out_.append(b, 8);
  }
  void F64(double v) {
    uint64_t u;
    std::memcpy(&u, &v, 8);
    U64(u);
  }
  void Str(std::string_view s) {
    const uint32_t n = static_cast<uint32_t>(s.size());
    char b[4];
    std::memcpy(b, &n, 4);
    out_.append(b, 4);
    out_.append(s);
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool U8(uint8_t* v) {
    if (in_.size() < 1) return ok_ = false;
    *v = static_cast<uint8_t>(in_[0]);
    in_.remove_prefix(1);
    return true;
  }
  bool U64(uint64_t* v) {
    if (in_.size() < 8) return ok_ = false;
    std::memcpy(v, in_.data(), 8);
    in_.remove_prefix(8);
    return true;
  }
  bool F64(double* v) {
    uint64_t u;
    if (!U64(&u)) return false;
    std::memcpy(v, &u, 8);
    return true;
  }
  bool Str(std::string* s) {
    if (in_.size() < 4) return ok_ = false;
    uint32_t n;
    std::memcpy(&n, in_.data(), 4);
    in_.remove_prefix(4);
    if (in_.size() < n) return ok_ = false;
    s->assign(in_.data(), n);
    in_.remove_prefix(n);
    return true;
  }
  bool ok() const { return ok_; }
  bool done() const { return ok_ && in_.empty(); }

 private:
  std::string_view in_;
  bool ok_ = true;
};

constexpr uint8_t kPageVersion = 1;

}  // namespace

std::string EncodePage(const PageRecord& p) {
  Writer w;
  w.U8(kPageVersion);
  w.U64(p.id);
  w.Str(p.url);
  w.U8(static_cast<uint8_t>(p.state));
  w.U64(p.http_status);
  w.Str(p.fetched);
  w.Str(p.redirect);
  w.U64(p.body_hash);
  w.U64(p.group);
  w.F64(p.similarity);
  w.U8(p.signature.eligible ? 1 : 0);
  w.U64(static_cast<uint64_t>(p.features.fetch_time));
  w.U64(p.features.url_hash);
  w.U64(p.features.url_length);
  w.U8(p.features.dynamic_url);
  w.U64(p.former_group);
  w.Str(p.former_winner);
  w.U64(p.signature.words.size());
  for (uint64_t x : p.signature.words) w.U64(x);
  return w.Take();
}

bool DecodePage(std::string_view data, PageRecord* p) {
  Reader r(data);
  uint8_t version = 0, state = 0, eligible = 0;
  uint64_t status = 0, fetch_time = 0, url_length = 0, n = 0;
  r.U8(&version);
  if (!r.ok() || version != kPageVersion) return false;
  r.U64(&p->id);
  r.Str(&p->url);
  r.U8(&state);
  r.U64(&status);
  r.Str(&p->fetched);
  r.Str(&p->redirect);
  r.U64(&p->body_hash);
  r.U64(&p->group);
  r.F64(&p->similarity);
  r.U8(&eligible);
  r.U64(&fetch_time);
  r.U64(&p->features.url_hash);
  r.U64(&url_length);
  r.U8(&p->features.dynamic_url);
  r.U64(&p->former_group);
  r.Str(&p->former_winner);
  r.U64(&n);
  if (!r.ok() || state > 2 || n > (1u << 20)) return false;
  p->signature.words.resize(n);
  for (uint64_t& x : p->signature.words) r.U64(&x);
  p->state = static_cast<PageState>(state);
  p->http_status = static_cast<uint16_t>(status);
  p->signature.eligible = eligible != 0;
  p->features.fetch_time = static_cast<int64_t>(fetch_time);
  p->features.url_length = static_cast<uint32_t>(url_length);
  p->features.http_status = p->http_status;
  return r.done();
}

bool DecodePageBrief(std::string_view data, uint64_t* id, PageState* state, uint64_t* group) {
  Reader r(data);
  uint8_t version = 0, s = 0;
  uint64_t status = 0, body_hash = 0;
  std::string skipped;
  r.U8(&version);
  if (!r.ok() || version != kPageVersion) return false;
  r.U64(id);
  r.Str(&skipped);
  r.U8(&s);
  r.U64(&status);
  r.Str(&skipped);
  r.Str(&skipped);
  r.U64(&body_hash);
  r.U64(group);
  if (!r.ok() || s > 2) return false;
  *state = static_cast<PageState>(s);
  return true;
}

std::string EncodeGroup(const GroupRecord& g) {
  Writer w;
  w.U8(1);
  w.U64(g.id);
  w.U64(g.winner);
  w.U64(g.members);
  w.U64(g.failed_verifications);
  return w.Take();
}

bool DecodeGroup(std::string_view data, GroupRecord* g) {
  Reader r(data);
  uint8_t version = 0;
  r.U8(&version);
  r.U64(&g->id);
  r.U64(&g->winner);
  r.U64(&g->members);
  r.U64(&g->failed_verifications);
  return version == 1 && r.done();
}

namespace {
// Every counter, in the order they are encoded.
template <typename C, typename F>
void ForEachCounter(C& c, F&& f) {
  for (auto* v : {&c.next_page, &c.next_group, &c.content_pages, &c.redirect_pages, &c.removed_pages, &c.groups,
                  &c.groups_with_duplicates, &c.recrawled, &c.tier1_decided, &c.tier2_decided, &c.comparisons,
                  &c.verifications, &c.verifications_failed, &c.repairs, &c.redirect_cycles}) {
    f(v);
  }
}
}  // namespace

std::string EncodeCounters(const Counters& c) {
  Writer w;
  w.U8(1);
  Counters copy = c;
  ForEachCounter(copy, [&](uint64_t* v) { w.U64(*v); });
  return w.Take();
}

bool DecodeCounters(std::string_view data, Counters* c) {
  Reader r(data);
  uint8_t version = 0;
  r.U8(&version);
  ForEachCounter(*c, [&](uint64_t* v) { r.U64(v); });
  return version == 1 && r.done();
}

std::string PutBigEndian(uint64_t v) {
  std::string s(8, '\0');
  for (int i = 7; i >= 0; --i) {
    s[static_cast<size_t>(i)] = static_cast<char>(v & 0xff);
    v >>= 8;
  }
  return s;
}

uint64_t GetBigEndian(std::string_view b) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) v = (v << 8) | static_cast<unsigned char>(b[i]);
  return v;
}

std::string UrlKey(std::string_view url) { return std::string(1, kUrlPrefix).append(url); }
std::string PageKey(uint64_t id) { return std::string(1, kPagePrefix) + PutBigEndian(id); }
std::string GroupKey(uint64_t id) { return std::string(1, kGroupPrefix) + PutBigEndian(id); }
std::string MemberKey(uint64_t group, uint64_t page) {
  return std::string(1, kMemberPrefix) + PutBigEndian(group) + PutBigEndian(page);
}
std::string PostingKey(char prefix, uint64_t key) { return std::string(1, prefix) + PutBigEndian(key); }

bool IsLargeBucket(std::string_view list) {
  if (list.size() != 8) return false;
  uint64_t id;
  std::memcpy(&id, list.data(), 8);
  return id == kLargeBucket;
}

std::string LargeBucketMark() { return std::string(8, '\xff'); }

std::string RedirectPrefix(std::string_view target) {
  std::string k(1, kRedirectPrefix);
  k.append(target);
  k.push_back('\0');
  return k;
}
std::string RedirectKey(std::string_view target, uint64_t page) { return RedirectPrefix(target) + PutBigEndian(page); }

Status FromRocks(const rocksdb::Status& s, std::string_view what) {
  if (s.ok()) return Status::OK();
  const std::string msg = std::string(what) + ": " + s.ToString();
  if (s.IsCorruption()) return Status::Corruption(msg);
  if (s.IsNotFound()) return Status::NotFound(msg);
  if (s.IsInvalidArgument()) return Status::InvalidArgument(msg);
  return Status::IOError(msg);
}

Result<std::unique_ptr<rocksdb::DB>> OpenStoreDb(const std::string& dir, const StoreOptions& o) {
  rocksdb::Options options;
  options.create_if_missing = true;
  options.paranoid_checks = true;
  options.write_buffer_size = std::max<uint64_t>(o.write_buffer_bytes / 2, 1 << 20);
  options.max_write_buffer_number = 2;
  options.db_write_buffer_size = o.write_buffer_bytes;
  // LZ4 at every level. The service is bound by its processors, not its
  // disk: with zstd at the bottom level (even at its fastest level) a
  // million pages were ingested 5% slower, for a store 15% smaller (122
  // against 142 bytes a page, bench/RESULTS.md).
  options.compression = rocksdb::kLZ4Compression;
  options.bottommost_compression = rocksdb::kLZ4Compression;
  // Most lookups are of candidate keys no page has yet: bloom filters
  // answer those without reading a block, in the memtable too.
  options.memtable_whole_key_filtering = true;
  options.memtable_prefix_bloom_size_ratio = 0.05;
  options.max_open_files = 256;
  options.keep_log_file_num = 4;
  options.max_background_jobs = 2;
  // New keys (URLs, members) fall all over the key space, so each
  // compaction of level 0 into level 1 rewrites most of level 1: waiting
  // for eight level-0 files instead of four halves those rewrites. Point
  // reads check the level-0 files' bloom filters, which stay pinned.
  options.level0_file_num_compaction_trigger = 8;
  rocksdb::BlockBasedTableOptions table;
  // Index and filter blocks live in the block cache (so that the cache
  // bounds them), cut into partitions of about 4 KB: a whole-file filter of
  // a large table (a megabyte and more) would not fit in one shard of the
  // cache and be read from disk, checksum and all, at every point read.
  // The top level of each stays pinned, at high priority.
  table.block_cache = rocksdb::NewLRUCache(o.block_cache_bytes, /*num_shard_bits=*/4,
                                           /*strict_capacity_limit=*/false, /*high_pri_pool_ratio=*/0.5);
  table.cache_index_and_filter_blocks = true;
  table.cache_index_and_filter_blocks_with_high_priority = true;
  table.pin_l0_filter_and_index_blocks_in_cache = true;
  table.pin_top_level_index_and_filter = true;
  table.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
  table.partition_filters = true;
  table.metadata_block_size = 4096;
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  table.whole_key_filtering = true;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  rocksdb::DB* db = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(options, dir, &db);
  if (!s.ok()) {
    if (s.IsIOError() && s.ToString().find("lock") != std::string::npos) {
      return Status::IOError("cannot open store " + dir + ": another process holds it open (" + s.ToString() + ")");
    }
    return FromRocks(s, "cannot open store " + dir);
  }
  return std::unique_ptr<rocksdb::DB>(db);
}

std::optional<std::string>* Txn::Pending(std::string_view key) {
  auto it = pending_.find(key);
  return it == pending_.end() ? nullptr : &it->second;
}

const std::optional<std::string>* Overlay::Find(std::string_view key) const {
  auto it = std::lower_bound(entries.begin(), entries.end(), key,
                             [](const auto& entry, std::string_view k) { return entry.first < k; });
  return it != entries.end() && it->first == key ? &it->second : nullptr;
}

Status WriteOverlay(rocksdb::DB* db, const Overlay& overlay) {
  size_t bytes = 0;
  for (const auto& [key, value] : overlay.entries) bytes += key.size() + (value ? value->size() : 0) + 16;
  // In key order: the memtable's skip list inserts a sorted run of keys
  // from where the previous one went instead of from its top.
  rocksdb::WriteBatch batch(bytes);
  for (const auto& [key, value] : overlay.entries) {
    if (value.has_value()) batch.Put(key, *value); else batch.Delete(key);
  }
  rocksdb::WriteOptions wo;
  wo.disableWAL = false;
  return FromRocks(db->Write(wo, &batch), "store write");
}

const std::optional<std::string>* Txn::InOverlays(std::string_view key) const {
  for (auto it = overlays_.rbegin(); it != overlays_.rend(); ++it) {
    if (const std::optional<std::string>* v = (*it)->Find(key)) return v;
  }
  return nullptr;
}

bool Txn::Get(std::string_view key, std::string* value) {
  const std::optional<std::string>* known = Pending(key);
  if (known == nullptr) {
    auto it = read_.find(key);
    if (it != read_.end()) known = &it->second;
  }
  if (known != nullptr) {
    if (!known->has_value()) return false;
    *value = **known;
    return true;
  }
  if (const std::optional<std::string>* sealed = InOverlays(key)) {
    read_.emplace(std::string(key), *sealed);
    if (!sealed->has_value()) return false;
    *value = **sealed;
    return true;
  }
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), rocksdb::Slice(key.data(), key.size()), value);
  if (s.IsNotFound()) {
    read_.emplace(std::string(key), std::nullopt);
    return false;
  }
  if (!s.ok()) {
    if (status_.ok()) status_ = FromRocks(s, "store read");
    return false;
  }
  read_.emplace(std::string(key), *value);
  return true;
}

void Txn::Put(std::string_view key, std::string_view value) {
  std::optional<std::string>* pending = Pending(key);
  if (pending != nullptr) {
    pending->emplace(value);
    return;
  }
  pending_.emplace(std::string(key), std::string(value));
  if (!key.empty() && scanned_.find(key[0]) != std::string::npos) ordered_.emplace(key);
}

void Txn::Delete(std::string_view key) {
  std::optional<std::string>* pending = Pending(key);
  if (pending != nullptr) {
    pending->reset();
    return;
  }
  pending_.emplace(std::string(key), std::nullopt);
  if (!key.empty() && scanned_.find(key[0]) != std::string::npos) ordered_.emplace(key);
}

void Txn::Scan(std::string_view prefix, const std::function<bool(std::string_view, std::string_view)>& fn) {
  // The pending keys with the prefix, in order.
  std::vector<std::pair<std::string_view, const std::optional<std::string>*>> mine;
  if (!prefix.empty() && scanned_.find(prefix[0]) != std::string::npos) {
    for (auto it = ordered_.lower_bound(prefix); it != ordered_.end() && it->starts_with(prefix); ++it) {
      mine.emplace_back(*it, Pending(*it));
    }
  } else {
    for (const auto& [k, v] : pending_) {
      if (k.starts_with(prefix)) mine.emplace_back(k, &v);
    }
    std::sort(mine.begin(), mine.end());
  }
  // And the overlays' keys with the prefix, where no newer change has them.
  if (!overlays_.empty()) {
    std::map<std::string_view, const std::optional<std::string>*> merged(mine.begin(), mine.end());
    for (auto o = overlays_.rbegin(); o != overlays_.rend(); ++o) {
      const auto& entries = (*o)->entries;
      auto it = std::lower_bound(entries.begin(), entries.end(), prefix,
                                 [](const auto& entry, std::string_view k) { return entry.first < k; });
      for (; it != entries.end() && std::string_view(it->first).starts_with(prefix); ++it) {
        merged.emplace(it->first, &it->second);  // kept when a newer change has the key
      }
    }
    mine.assign(merged.begin(), merged.end());
  }
  rocksdb::ReadOptions ro;
  std::string upper(prefix);
  // The smallest key greater than every key with the prefix.
  while (!upper.empty() && static_cast<unsigned char>(upper.back()) == 0xff) upper.pop_back();
  rocksdb::Slice upper_slice;
  if (!upper.empty()) {
    upper.back() = static_cast<char>(static_cast<unsigned char>(upper.back()) + 1);
    upper_slice = rocksdb::Slice(upper);
    ro.iterate_upper_bound = &upper_slice;
  }
  size_t j = 0;
  // The pending entries before `limit` (all when limit is empty); false
  // when fn asked to stop.
  auto pending_before = [&](const std::string_view* limit) {
    for (; j < mine.size() && (limit == nullptr || mine[j].first < *limit); ++j) {
      if (mine[j].second->has_value() && !fn(mine[j].first, **mine[j].second)) return false;
    }
    return true;
  };
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro));
  for (it->Seek(rocksdb::Slice(prefix.data(), prefix.size())); it->Valid(); it->Next()) {
    const std::string_view k(it->key().data(), it->key().size());
    if (!k.starts_with(prefix)) break;
    if (!pending_before(&k)) return;
    if (j < mine.size() && mine[j].first == k) {
      const bool go_on = !mine[j].second->has_value() || fn(k, **mine[j].second);
      ++j;
      if (!go_on) return;
      continue;
    }
    if (!fn(k, std::string_view(it->value().data(), it->value().size()))) return;
  }
  if (!it->status().ok() && status_.ok()) {
    status_ = FromRocks(it->status(), "store scan");
    return;
  }
  pending_before(nullptr);
}

Status Txn::Commit() {
  if (!status_.ok()) return status_;
  std::shared_ptr<const Overlay> sealed = Seal();
  if (sealed == nullptr) return status_;
  // Written now: the overlay need not stay.
  overlays_.pop_back();
  return WriteOverlay(db_, *sealed);
}

std::shared_ptr<const Overlay> Txn::Seal() {
  if (!status_.ok()) return nullptr;
  read_.clear();
  if (pending_.empty()) return nullptr;
  auto overlay = std::make_shared<Overlay>();
  overlay->entries.reserve(pending_.size());
  while (!pending_.empty()) {
    auto node = pending_.extract(pending_.begin());
    overlay->entries.emplace_back(std::move(node.key()), std::move(node.mapped()));
  }
  std::sort(overlay->entries.begin(), overlay->entries.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  ordered_.clear();
  overlays_.push_back(overlay);
  return overlay;
}

void Txn::Discard() {
  pending_.clear();
  ordered_.clear();
  read_.clear();
}

}  // namespace service
}  // namespace neardup
