// The two tiers of Zhu et al. §5 over the store (service.h, store.h).
//
// Invariants kept by every change (one page's change is one transaction):
//   - every live page is in exactly one group; a group's `members` counts
//     its live pages and its winner is one of them, the best by the winner
//     rules (content over redirect, the market rule, the keeper rules);
//   - a content page is filed under its candidate keys and its body hash;
//     redirect and removed pages are filed under nothing;
//   - a content member was verified against its group's winner (the
//     method's rule) when it joined, when the winner changed and when a
//     repair recomputed the group;
//   - a redirect page is in its final target's group, or, when the chain
//     ends nowhere (an unknown or removed page, a loop), in a group of the
//     redirects that lead into that end.
#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_set>

#include "base/path.h"
#include "engine/keeper.h"
#include "engine/redirects.h"
#include "engine/method_impl.h"
#include "neardup/method.h"
#include "neardup/env.h"
#include "output/clusters_file.h"
#include "output/summary_file.h"
#include "service/posting_table.h"
#include "service/service.h"
#include "service/store.h"
#include "text/url.h"

namespace neardup {

using service::Counters;
using service::GroupRecord;
using service::PageRecord;
using service::PageState;
using service::Txn;

namespace {

// kMaxRedirectHops (engine/redirects.h) bounds a redirect chain, as in dedup.
// Pages whose changes are written to the store as one WriteBatch (a request
// of more pages is written in several; its answer comes after the last).
constexpr size_t kPagesPerWrite = 1000;

// A page's signed content, made before the request's pages are applied.
struct Signed {
  Signature signature;
  uint64_t body_hash = 0;
};

// A store error with what it was doing in front.
Status Prefixed(const Status& s, const std::string& prefix) {
  return s.IsCorruption() ? Status::Corruption(prefix + s.message()) : Status::IOError(prefix + s.message());
}

bool IsRemovalStatus(int status) { return status == 404 || status == 410; }
// A failed fetch that says nothing of the page (403, 429, 5xx, ...): what is
// stored stays as it is.
bool IsFailedFetch(int status) { return status >= 400 && !IsRemovalStatus(status); }
bool IsRedirect(const PageInput& p) { return p.status >= 300 && p.status < 400 && !p.redirect.empty(); }

int StatusRank(uint16_t status) {
  if (status == 0 || (status >= 200 && status < 300)) return 0;
  if (status >= 300 && status < 400) return 1;
  return 2;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A page's group and state packed in one word (state in the top two bits):
// what tier 2 needs to pass over a candidate without reading its record.
constexpr int kBriefStateShift = 62;
uint64_t PackBrief(uint64_t group, PageState state) {
  return group | (static_cast<uint64_t>(state) << kBriefStateShift);
}

// A group record as the service holds every group in memory, by id
// (GroupRecord without its id): groups are read at every placement, and
// never from the store once it is open.
struct GroupSlot {
  static constexpr uint64_t kNone = ~uint64_t{0};
  uint64_t winner = kNone;  // kNone: no such group
  uint32_t members = 0;
  uint32_t failed_verifications = 0;
};

// What comparing with a page needs (Decide): its body hash and signature;
// and its similarity to its group's winner, so that a verification that
// leaves it unchanged writes nothing.
// It also holds what choosing a winner needs (WinnerKey), so that a page
// joining a group is ranked against the winner without reading its record.
struct Comparable {
  uint64_t body_hash = 0;
  double similarity = 1;
  Signature signature;
  KeeperFeatures features;
  bool market = false;  // the host ends with the store's market suffix
};

// What choosing a group's winner needs of a page (CompareWinners).
struct WinnerKey {
  uint64_t id = 0;
  bool content = false;
  bool market = false;
  KeeperFeatures features;
};

// Values by page id, direct-mapped: slot id & (size - 1) holds the latest
// id written there. Its slots grow in powers of two, up to `capacity`.
// Not thread-safe (the service's mutex). Two of them: the Comparables of
// committed content pages (the signature cache), and the decoded records
// read lately (the records tier 2 reads again and again, groups' winners,
// are not read from the store and decoded each time). A committed change of
// a page erases or replaces its slot.
template <typename T>
class DirectMappedCache {
 public:
  // `capacity` is rounded down to a power of two.
  explicit DirectMappedCache(uint64_t capacity = 0) : capacity_(std::bit_floor(capacity)) {}
  const T* Find(uint64_t id) const {
    if (slots_.empty()) return nullptr;
    const Slot& s = slots_[id & (slots_.size() - 1)];
    return s.id == id ? &s.value : nullptr;
  }
  void Put(uint64_t id, T value) {
    if (slots_.empty()) return;
    Slot& s = slots_[id & (slots_.size() - 1)];
    s.id = id;
    s.value = std::move(value);
  }
  void Erase(uint64_t id) {
    if (slots_.empty()) return;
    Slot& s = slots_[id & (slots_.size() - 1)];
    if (s.id == id) s = Slot();
  }
  uint64_t slots() const { return slots_.size(); }
  // Room for ids below `pages` where the capacity allows.
  void Grow(uint64_t pages) {
    if (capacity_ == 0) return;
    uint64_t size = slots_.empty() ? std::min<uint64_t>(1024, capacity_) : slots_.size();
    while (size < pages && size * 2 <= capacity_) size *= 2;
    if (size == slots_.size()) return;
    std::vector<Slot> slots(size);
    for (Slot& s : slots_) {
      if (s.id != kEmpty) slots[s.id & (size - 1)] = std::move(s);
    }
    slots_ = std::move(slots);
  }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  struct Slot {
    uint64_t id = kEmpty;
    T value;
  };
  uint64_t capacity_;
  std::vector<Slot> slots_;
};
using SignatureCache = DirectMappedCache<Comparable>;
// Slots of the records cache.
constexpr uint64_t kRecordCacheSlots = uint64_t{1} << 16;
// Slots of the cache of winners' URLs: 40 bytes a slot and the URL's own allocation
// (about 30 MB when full, for URLs of 80 bytes).
constexpr uint64_t kUrlCacheSlots = uint64_t{1} << 18;

// A batch of changes sealed from a transaction, and its place in the order
// in which batches are written to the store.
struct Sealed {
  uint64_t seq;
  std::shared_ptr<const service::Overlay> overlay;
};

// One request's view of the store: the open transaction, the counters as
// they will be after it, and the briefs and Comparables of the pages it
// saved (content pages only in `comparables`).
struct Ctx {
  // `briefs`: the service's briefs by page id, which the request changes in
  // place; what it has not committed when it ends is undone.
  // `sealed` (nullptr for a request that changes nothing) receives the
  // batches CommitCtx seals, for the caller to write once it has let go of
  // the service's mutex.
  Ctx(Txn* t, const Counters& c, std::vector<uint64_t>* b, std::vector<GroupSlot>* g,
      std::vector<Sealed>* s = nullptr)
      : txn(t), counters(c), briefs(b), groups(g), sealed(s) {}
  ~Ctx() {
    UndoPostings();
    UndoBriefs();
    UndoGroups();
  }
  Ctx(const Ctx&) = delete;
  Ctx& operator=(const Ctx&) = delete;

  void SetBrief(uint64_t id, uint64_t brief) {
    if (id >= briefs->size()) {
      briefs->resize(std::max<size_t>(id + 1, briefs->size() * 3 / 2), PackBrief(0, PageState::kRemoved));
    }
    brief_undo.emplace_back(id, (*briefs)[id]);
    (*briefs)[id] = brief;
  }
  void UndoBriefs() {
    for (auto it = brief_undo.rbegin(); it != brief_undo.rend(); ++it) (*briefs)[it->first] = it->second;
    brief_undo.clear();
  }
  // The service's groups by id, changed in place like the briefs.
  void SetGroup(uint64_t id, const GroupSlot& slot) {
    if (id >= groups->size()) groups->resize(std::max<size_t>(id + 1, groups->size() * 3 / 2));
    group_undo.emplace_back(id, (*groups)[id]);
    (*groups)[id] = slot;
  }
  void UndoGroups() {
    for (auto it = group_undo.rbegin(); it != group_undo.rend(); ++it) (*groups)[it->first] = it->second;
    group_undo.clear();
  }

  // A change the request made to the postings in memory, to undo when it
  // is not committed.
  struct PostingChange {
    service::PostingTable* table;
    uint64_t key, id;
    enum Kind { kAdded, kRemoved, kBecameLarge } kind;
    std::vector<uint64_t> dropped;  // kBecameLarge: the list it held
  };
  void UndoPostings() {
    for (auto it = posting_undo.rbegin(); it != posting_undo.rend(); ++it) {
      switch (it->kind) {
        case PostingChange::kAdded: it->table->Remove(it->key, it->id); break;
        case PostingChange::kRemoved: it->table->Add(it->key, it->id); break;
        case PostingChange::kBecameLarge: it->table->Restore(it->key, it->dropped); break;
      }
    }
    posting_undo.clear();
  }

  Txn* txn;
  Counters counters;
  std::vector<uint64_t>* briefs;
  std::vector<std::pair<uint64_t, uint64_t>> brief_undo;  // (id, brief before), in order of change
  std::vector<GroupSlot>* groups;
  std::vector<std::pair<uint64_t, GroupSlot>> group_undo;  // (id, slot before), in order of change
  std::vector<PostingChange> posting_undo;                // in order of change
  std::vector<Sealed>* sealed;
  std::unordered_map<uint64_t, std::optional<Comparable>> comparables;
};

// Signs a request's pages on the executor, in chunks taken in order, so
// that the serial apply of the first chunks overlaps the signing of the
// later ones. Wait(i) returns once page i is signed; the destructor waits
// for every task (they read the pages and write the signatures).
class Signer {
 public:
  Signer(const Method& method, Executor* executor, const std::vector<PageInput>& pages)
      : method_(method), pages_(pages), out_(pages.size()), chunks_((pages.size() + kChunk - 1) / kChunk) {
    for (std::atomic<uint8_t>& c : chunks_) c.store(0, std::memory_order_relaxed);
    const size_t threads = executor != nullptr ? static_cast<size_t>(executor->num_threads()) : 1;
    if (threads <= 1 || pages.size() < 2 * kChunk) {
      for (size_t c = 0; c < chunks_.size(); ++c) SignChunk(c);
      return;
    }
    tasks_ = std::min(threads, chunks_.size());
    for (size_t t = 0; t < tasks_; ++t) {
      executor->Schedule([this] {
        for (size_t c; (c = next_.fetch_add(1)) < chunks_.size();) SignChunk(c);
        finished_.fetch_add(1);
        finished_.notify_all();
      });
    }
  }
  ~Signer() {
    for (size_t f; (f = finished_.load()) < tasks_;) finished_.wait(f);
  }
  Signed* Wait(size_t i) {
    std::atomic<uint8_t>& done = chunks_[i / kChunk];
    done.wait(0);
    return &out_[i];
  }

 private:
  static constexpr size_t kChunk = 32;
  void SignChunk(size_t c) {
    for (size_t i = c * kChunk; i < std::min(pages_.size(), (c + 1) * kChunk); ++i) {
      const PageInput& p = pages_[i];
      if (!p.error.empty() || IsRedirect(p) || IsRemovalStatus(p.status) || IsFailedFetch(p.status) ||
          !p.revisit_of.empty()) {
        continue;  // no content of its own (a revisit takes its page's when applied)
      }
      Document d;
      d.url = p.url;
      d.body = p.body;
      d.kind = p.kind;
      d.http_status = p.status;
      d.fetch_date = p.fetched;
      out_[i].signature = method_.Sign(d);
      out_[i].body_hash = ByteKey(d);  // kNoByteKey: no content of its own, matched by nothing
    }
    chunks_[c].store(1);
    chunks_[c].notify_all();
  }

  const Method& method_;
  const std::vector<PageInput>& pages_;
  std::vector<Signed> out_;
  std::vector<std::atomic<uint8_t>> chunks_;  // 1: the chunk is signed
  std::atomic<size_t> next_{0};
  size_t tasks_ = 0;
  std::atomic<size_t> finished_{0};
};

class ServiceImpl final : public DuplicateService {
 public:
  ServiceImpl(std::string dir, ServiceOptions options, Executor* executor)
      : dir_(std::move(dir)), o_(std::move(options)), executor_(executor) {}

  Status Init() {
    service::StoreOptions so;
    so.block_cache_bytes = o_.block_cache_bytes;
    so.write_buffer_bytes = o_.write_buffer_bytes;
    NEARDUP_ASSIGN_OR_RETURN(db_, service::OpenStoreDb(dir_, so));
    // The header: format version, method spec, keeper rules, market rule.
    std::string header;
    uint32_t format_version = service::kStoreFormatVersion;
    rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), service::kHeaderKey, &header);
    if (!s.ok() && !s.IsNotFound()) return service::FromRocks(s, "cannot read the store header");
    if (s.IsNotFound()) {
      if (o_.method.empty()) o_.method = kDefaultServiceMethod;
      if (o_.keeper.empty()) o_.keeper = DedupOptions().keeper;
    } else {
      nlohmann::json h = nlohmann::json::parse(header, nullptr, false);
      if (h.is_discarded() || !h.is_object() || !h.contains("format_version") || !h.contains("method_spec")) {
        return Status::Corruption("store " + dir_ + ": the header is not valid");
      }
      format_version = h["format_version"].is_number_unsigned() ? h["format_version"].get<uint32_t>() : 0;
      if (format_version != service::kStoreFormatVersion && format_version != 1) {
        return Status::NotSupported("store " + dir_ + " has format version " + h["format_version"].dump() +
                                    "; this neardup reads version " +
                                    std::to_string(service::kStoreFormatVersion));
      }
      const std::string stored_spec = h["method_spec"].get<std::string>();
      if (o_.method.empty()) o_.method = stored_spec;
      const std::string stored_keeper = h.value("keeper", DedupOptions().keeper);
      const std::string stored_market = h.value("prefer_host_suffix", std::string());
      if (o_.keeper.empty()) o_.keeper = stored_keeper;
      if (o_.prefer_host_suffix.empty()) o_.prefer_host_suffix = stored_market;
      NEARDUP_ASSIGN_OR_RETURN(auto given, NewMethod(o_.method));
      if (given->Spec() != stored_spec) {
        return Status::InvalidArgument("store " + dir_ + " was made with method '" + stored_spec +
                                       "', not '" + given->Spec() + "'; open it with that method or use another store");
      }
      if (stored_keeper != o_.keeper || stored_market != o_.prefer_host_suffix) {
        return Status::InvalidArgument("store " + dir_ + " was made with keeper rules '" + stored_keeper +
                                       "' and market suffix '" + stored_market + "'; open it with those");
      }
      std::string counters;
      s = db_->Get(rocksdb::ReadOptions(), service::kCountersKey, &counters);
      if (!s.ok() || !service::DecodeCounters(counters, &counters_)) {
        return Status::Corruption("store " + dir_ + ": the counters record is missing or not valid");
      }
    }
    NEARDUP_ASSIGN_OR_RETURN(method_, NewMethod(o_.method));
    if (method_->batch_only()) {
      return Status::InvalidArgument("method '" + method_->name() +
                                     "' is batch-only (it has no candidate index); the service needs "
                                     "exact, broder, simhash, combined or robust");
    }
    if (!s.IsNotFound() && format_version == 1) NEARDUP_RETURN_IF_ERROR(UpgradeFromVersion1(header));
    NEARDUP_RETURN_IF_ERROR(LoadMemoryTables());
    NEARDUP_ASSIGN_OR_RETURN(keeper_, KeeperOptions::Parse(o_.keeper));
    market_ = Lower(o_.prefer_host_suffix);
    if (s.IsNotFound()) {
      nlohmann::ordered_json h = {{"format", "neardup-service-store"},
                                  {"format_version", service::kStoreFormatVersion},
                                  {"method_spec", method_->Spec()},
                                  {"keeper", o_.keeper},
                                  {"prefer_host_suffix", o_.prefer_host_suffix},
                                  {"created_by", std::string("neardup ") + Version()}};
      rocksdb::WriteBatch batch;
      batch.Put(service::kHeaderKey, h.dump());
      batch.Put(service::kCountersKey, service::EncodeCounters(counters_));
      rocksdb::WriteOptions wo;
      wo.sync = true;
      NEARDUP_RETURN_IF_ERROR(service::FromRocks(db_->Write(wo, &batch), "cannot write the store header"));
    }
    return Status::OK();
  }

  // Reads every page's brief and every redirect target into memory, and
  // the signatures of the latest content pages into the signature cache.
  Status LoadMemoryTables() {
    candidates_ = std::make_unique<service::PostingTable>(o_.max_bucket_pages, /*mark_large=*/true);
    identical_ = std::make_unique<service::PostingTable>(o_.max_bucket_pages, /*mark_large=*/false);
    rocksdb::ReadOptions scan;
    scan.fill_cache = false;  // one pass over every record: keep the block cache for what tier 2 reads
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(scan));
    // The large buckets first: a page filed under one adds nothing to it.
    const std::string marks(1, service::kPostingPrefix);
    for (it->Seek(marks); it->Valid() && it->key().starts_with(marks); it->Next()) {
      if (it->key().size() != 9 || !service::IsLargeBucket(std::string_view(it->value().data(), it->value().size()))) {
        return Status::Corruption("store " + dir_ + ": a large-bucket mark is not valid");
      }
      candidates_->SetLarge(service::GetBigEndian(std::string_view(it->key().data() + 1, 8)));
    }
    signatures_ = SignatureCache(o_.signature_cache_pages);
    signatures_.Grow(counters_.next_page);
    records_.Grow(kRecordCacheSlots);
    urls_.Grow(kUrlCacheSlots);
    // Ids below this share no cache slot with a later id.
    const uint64_t cached_from = counters_.next_page - std::min(counters_.next_page, signatures_.slots());
    const std::string pages(1, service::kPagePrefix);
    PageRecord record;
    for (it->Seek(pages); it->Valid() && it->key().starts_with(pages); it->Next()) {
      const std::string_view value(it->value().data(), it->value().size());
      uint64_t id = 0, group = 0;
      PageState state;
      if (!service::DecodePageBrief(value, &id, &state, &group)) {
        return Status::Corruption("store " + dir_ + ": a page record is not valid");
      }
      if (id >= briefs_.size()) briefs_.resize(id + 1, PackBrief(0, PageState::kRemoved));
      briefs_[id] = PackBrief(group, state);
      if (state != PageState::kContent) continue;
      if (!service::DecodePage(value, &record)) {
        return Status::Corruption("store " + dir_ + ": page record " + std::to_string(id) + " is not valid");
      }
      // Page ids increase with the keys: each list is built in order.
      File(nullptr, record, /*insert=*/true);
      if (id >= cached_from) {
        signatures_.Put(id, ComparableOf(std::move(record)));
      }
    }
    const std::string groups(1, service::kGroupPrefix);
    groups_.assign(counters_.next_group, GroupSlot());
    GroupRecord g;
    for (it->Seek(groups); it->Valid() && it->key().starts_with(groups); it->Next()) {
      if (!service::DecodeGroup(std::string_view(it->value().data(), it->value().size()), &g) ||
          g.id >= counters_.next_group) {
        return Status::Corruption("store " + dir_ + ": a group record is not valid");
      }
      groups_[g.id] = SlotOf(g);
    }
    const std::string redirects(1, service::kRedirectPrefix);
    for (it->Seek(redirects); it->Valid() && it->key().starts_with(redirects); it->Next()) {
      const std::string_view k(it->key().data(), it->key().size());
      const size_t end = k.size() >= 9 ? k.size() - 9 : 0;  // the target ends with '\0' and an 8-byte id
      redirect_targets_.insert(TargetHash(k.substr(1, end > 0 ? end - 1 : 0)));
    }
    return service::FromRocks(it->status(), "cannot read the store");
  }

  static uint64_t TargetHash(std::string_view url) { return XXH3_64bits(url.data(), url.size()); }

  // A version-1 store kept every posting list in the store; version 2 keeps
  // only the large-bucket marks (store.h). One synced batch drops the lists
  // and writes the new header, so that a store is wholly one or the other.
  Status UpgradeFromVersion1(const std::string& header) {
    rocksdb::WriteBatch batch;
    const std::string k(1, service::kPostingPrefix), x(1, service::kExactPrefix);
    std::vector<std::string> marks;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
    for (it->Seek(k); it->Valid() && it->key().starts_with(k); it->Next()) {
      if (service::IsLargeBucket(std::string_view(it->value().data(), it->value().size()))) {
        marks.push_back(it->key().ToString());
      }
    }
    NEARDUP_RETURN_IF_ERROR(service::FromRocks(it->status(), "cannot read the store"));
    it.reset();
    batch.DeleteRange(k, std::string(1, service::kPostingPrefix + 1));
    batch.DeleteRange(x, std::string(1, service::kExactPrefix + 1));
    for (const std::string& m : marks) batch.Put(m, service::LargeBucketMark());
    nlohmann::ordered_json h = nlohmann::ordered_json::parse(header);
    h["format_version"] = service::kStoreFormatVersion;
    batch.Put(service::kHeaderKey, h.dump());
    rocksdb::WriteOptions wo;
    wo.sync = true;
    return service::FromRocks(db_->Write(wo, &batch), "cannot bring the store to format version 2");
  }

  // Commits the request's pending changes, its briefs and its signatures:
  // the changes are sealed (later requests read them) and handed to
  // ctx->sealed, to be written by WriteSealed.
  Status CommitCtx(Ctx* ctx) {
    ctx->txn->Put(service::kCountersKey, service::EncodeCounters(ctx->counters));
    std::shared_ptr<const service::Overlay> overlay = ctx->txn->Seal();
    NEARDUP_RETURN_IF_ERROR(ctx->txn->status());
    if (overlay != nullptr) {
      std::lock_guard<std::mutex> lock(flight_mu_);
      NEARDUP_RETURN_IF_ERROR(write_error_);
      inflight_.push_back(overlay);
      ctx->sealed->push_back(Sealed{++sealed_seq_, std::move(overlay)});
    }
    counters_ = ctx->counters;
    ctx->brief_undo.clear();  // the briefs, postings and groups changed in place are now committed
    ctx->posting_undo.clear();
    ctx->group_undo.clear();
    for (auto& [id, comparable] : ctx->comparables) {
      records_.Erase(id);
      if (comparable) signatures_.Put(id, std::move(*comparable)); else signatures_.Erase(id);
    }
    ctx->comparables.clear();
    signatures_.Grow(counters_.next_page);
    return Status::OK();
  }

  // The page's group and state as the request sees them; false when the
  // page is not known.
  bool BriefOf(const Ctx* ctx, uint64_t id, uint64_t* group, PageState* state) const {
    if (id >= briefs_.size() || id >= ctx->counters.next_page) return false;
    const uint64_t b = briefs_[id];
    *group = b & ((uint64_t{1} << kBriefStateShift) - 1);
    *state = static_cast<PageState>(b >> kBriefStateShift);
    return true;
  }

  std::string method_spec() const override { return method_->Spec(); }

  // ---- writing ----
  // A request applies its pages under mu_ and seals its changes there
  // (CommitCtx); it writes them after letting go of mu_, so that the next
  // request is applied while this one's batches go to RocksDB and its log
  // is synced. Batches are written in the order sealed; until written, the
  // transactions opened after read them from their overlays.
  // The batches sealed and not yet written; *seen (when given) receives
  // the last sealed batch's place in the order, which an answer read from
  // them waits for (WaitWritten) so that it says nothing not yet durable.
  service::Overlays InflightOverlays(uint64_t* seen = nullptr) {
    std::lock_guard<std::mutex> lock(flight_mu_);
    if (seen != nullptr) *seen = sealed_seq_;
    return service::Overlays(inflight_.begin(), inflight_.end());
  }
  // Waits until the batches up to `seq` are written. Must not hold mu_.
  Status WaitWritten(uint64_t seq) {
    std::unique_lock<std::mutex> lock(flight_mu_);
    flight_cv_.wait(lock, [&] { return written_seq_ >= seq || !write_error_.ok(); });
    return write_error_;
  }
  Status WriteError() {
    std::lock_guard<std::mutex> lock(flight_mu_);
    return write_error_;
  }
  // Writes the batches (sealed by one request, in order) after those sealed
  // before them, then syncs the log when `sync`. A failed write stops every
  // later one: the service's memory is then ahead of its store, and it
  // answers every request with the error until it is restarted.
  Status WriteSealed(const std::vector<Sealed>& sealed, bool sync) {
    for (const Sealed& batch : sealed) {
      {
        std::unique_lock<std::mutex> lock(flight_mu_);
        flight_cv_.wait(lock, [&] { return written_seq_ + 1 == batch.seq || !write_error_.ok(); });
        NEARDUP_RETURN_IF_ERROR(write_error_);
      }
      const Status s = service::WriteOverlay(db_.get(), *batch.overlay);
      {
        std::lock_guard<std::mutex> lock(flight_mu_);
        if (s.ok()) {
          written_seq_ = batch.seq;
          inflight_.pop_front();  // the oldest: batches are written in the order sealed
        } else {
          write_error_ = Status::IOError("the store could not be written (" + s.message() +
                                         "); restart the server: what was answered before is in the store");
        }
      }
      flight_cv_.notify_all();
      NEARDUP_RETURN_IF_ERROR(s);
    }
    if (sync && !sealed.empty()) return service::FromRocks(db_->SyncWAL(), "cannot sync the store's log");
    return Status::OK();
  }
  // What a request does once it has let go of mu_: writes the batches it
  // sealed (WriteSealed), then waits for those it read (up to `seen`), so
  // that its answer tells nothing not yet durable.
  Status FinishWrites(const std::vector<Sealed>& sealed, bool sync, uint64_t seen) {
    NEARDUP_RETURN_IF_ERROR(WriteSealed(sealed, sync));
    return WaitWritten(seen);
  }
  // Waits until every sealed batch is written. REQUIRES: mu_ held (nothing
  // is sealed meanwhile).
  Status WaitForWrites() {
    std::unique_lock<std::mutex> lock(flight_mu_);
    flight_cv_.wait(lock, [&] { return written_seq_ == sealed_seq_ || !write_error_.ok(); });
    return write_error_;
  }

  Result<std::vector<PageAnswer>> Apply(std::vector<PageInput> pages, bool dry_run) override {
    Signer signer(*method_, executor_, pages);
    std::vector<Sealed> sealed;
    uint64_t seen = 0;
    Result<std::vector<PageAnswer>> answers = ApplyLocked(pages, dry_run, &signer, &sealed, &seen);
    // What was sealed is written even when the request failed later on: the
    // service's memory already holds it.
    const Status written = FinishWrites(sealed, o_.sync && !dry_run && !pages.empty(), seen);
    if (!answers.ok()) return answers;
    NEARDUP_RETURN_IF_ERROR(written);
    return answers;
  }

  Result<std::vector<PageAnswer>> ApplyLocked(std::vector<PageInput>& pages, bool dry_run, Signer* signer,
                                              std::vector<Sealed>* sealed, uint64_t* seen) {
    std::lock_guard<std::mutex> lock(mu_);
    NEARDUP_RETURN_IF_ERROR(WriteError());
    Txn txn(db_.get(), InflightOverlays(seen));
    Ctx ctx(&txn, counters_, &briefs_, &groups_, sealed);
    std::vector<PageAnswer> answers;
    answers.reserve(pages.size());
    for (size_t i = 0; i < pages.size(); ++i) {
      PageInput& page = pages[i];
      if (!page.error.empty()) {
        PageAnswer a;
        a.url = page.url;
        a.role = "error";
        a.error = page.error;
        answers.push_back(std::move(a));
        continue;
      }
      answers.push_back(ApplyOne(&ctx, page, signer->Wait(i)));
      if (!corruption_.ok()) return std::exchange(corruption_, Status::OK());
      if (!txn.status().ok()) return Prefixed(txn.status(), "page " + page.url + ": ");
      // Up to kPagesPerWrite pages' changes go to the store as one
      // WriteBatch: atomic, and a record that several of them touch (a
      // group, a winner) is written once.
      if (!dry_run && ((i + 1) % kPagesPerWrite == 0 || i + 1 == pages.size())) {
        Status s = CommitCtx(&ctx);
        if (!s.ok()) return Prefixed(s, "page " + page.url + ": ");
      }
    }
    if (!dry_run && !txn.empty()) NEARDUP_RETURN_IF_ERROR(CommitCtx(&ctx));
    return answers;
  }

  Result<PageAnswer> Lookup(const std::string& url) override {
    return OnStoredPage(url, [&](Ctx* ctx, PageRecord* p) { return LookupPage(ctx, p); });
  }

  Result<PageAnswer> Remove(const std::string& url) override {
    return OnStoredPage(url, [&](Ctx* ctx, PageRecord* p) { return RemovePage(ctx, p); });
  }

  // Runs `on_page(ctx, page)` on the stored page with this URL under the
  // lock, in one transaction committed (synced) before the answer returns;
  // NotFound when no page has the URL.
  template <typename OnPage>
  Result<PageAnswer> OnStoredPage(const std::string& url, const OnPage& on_page) {
    std::vector<Sealed> sealed;
    uint64_t seen = 0;
    Result<PageAnswer> a = [&]() -> Result<PageAnswer> {
      std::lock_guard<std::mutex> lock(mu_);
      NEARDUP_RETURN_IF_ERROR(WriteError());
      Txn txn(db_.get(), InflightOverlays(&seen));
      Ctx ctx(&txn, counters_, &briefs_, &groups_, &sealed);
      PageRecord p;
      if (!LoadByUrl(&ctx, url, &p)) {
        NEARDUP_RETURN_IF_ERROR(txn.status());
        return Status::NotFound("no page with url " + url);
      }
      PageAnswer answer = on_page(&ctx, &p);
      NEARDUP_RETURN_IF_ERROR(CommitSynced(&ctx));
      return answer;
    }();
    NEARDUP_RETURN_IF_ERROR(FinishWrites(sealed, o_.sync, seen));
    return a;
  }

  // The answer for a stored page (tier 1). §5.2: a duplicate answer is
  // verified against the group's winner; one that fails is not reported
  // as a duplicate of it.
  PageAnswer LookupPage(Ctx* ctx, PageRecord* page) {
    PageRecord& p = *page;
    bool failed = false;
    if (p.state == PageState::kContent && p.group != 0) {
      GroupRecord g;
      if (LoadGroup(ctx, p.group, &g) && g.winner != p.id) {
        PageRecord w;
        if (LoadPage(ctx, g.winner, &w) && w.state == PageState::kContent) {
          PairDecision d = Decide(ctx, p, w);
          ++ctx->counters.verifications;
          if (!d.duplicate) {
            ++ctx->counters.verifications_failed;
            ++g.failed_verifications;
            SaveGroup(ctx, g);
            MaybeRepair(ctx, g.id);
            LoadPage(ctx, p.id, &p);
            failed = true;
          }
        }
      }
    }
    PageAnswer a = AnswerFor(ctx, p);
    a.tier = 1;
    if (failed && a.role == "duplicate") {  // the group was not repaired yet
      a.role = "keep";
      a.winner = p.url;
      a.similarity = 1;
      a.verification_failed = true;
    }
    return a;
  }

  Result<GroupInfo> Group(uint64_t id) override {
    uint64_t seen = 0;
    Result<GroupInfo> info = GroupLocked(id, &seen);
    NEARDUP_RETURN_IF_ERROR(WaitWritten(seen));
    return info;
  }
  Result<GroupInfo> GroupLocked(uint64_t id, uint64_t* seen) {
    std::lock_guard<std::mutex> lock(mu_);
    Txn txn(db_.get(), InflightOverlays(seen));
    Ctx ctx(&txn, counters_, &briefs_, &groups_);
    GroupRecord g;
    if (!LoadGroup(&ctx, id, &g)) {
      NEARDUP_RETURN_IF_ERROR(txn.status());
      return Status::NotFound("no group " + std::to_string(id));
    }
    GroupInfo info;
    info.id = id;
    info.failed_verifications = g.failed_verifications;
    PageRecord w;
    if (LoadPage(&ctx, g.winner, &w)) info.winner = w.url;
    info.members.push_back(info.winner);
    for (uint64_t m : Members(&ctx, id)) {
      if (m == g.winner) continue;
      PageRecord p;
      if (LoadPage(&ctx, m, &p)) info.members.push_back(p.url);
    }
    NEARDUP_RETURN_IF_ERROR(txn.status());
    return info;
  }

  Result<ServiceStats> Stats() override {
    std::lock_guard<std::mutex> lock(mu_);
    return StatsLocked();
  }

  // The counters as GET /v1/stats shows them. REQUIRES: mu_ held.
  ServiceStats StatsLocked() const {
    ServiceStats s;
    const Counters& c = counters_;
    s.content_pages = c.content_pages;
    s.redirect_pages = c.redirect_pages;
    s.pages = c.content_pages + c.redirect_pages;
    s.removed_pages = c.removed_pages;
    s.groups = c.groups;
    s.groups_with_duplicates = c.groups_with_duplicates;
    s.recrawled = c.recrawled;
    s.tier1_decided = c.tier1_decided;
    s.tier2_decided = c.tier2_decided;
    s.comparisons = c.comparisons;
    s.verifications = c.verifications;
    s.verifications_failed = c.verifications_failed;
    s.repairs = c.repairs;
    s.redirect_cycles = c.redirect_cycles;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
      if (entry.is_regular_file(ec)) s.store_bytes += entry.file_size(ec);
    }
    if (candidates_ != nullptr) s.postings_bytes = candidates_->memory_bytes() + identical_->memory_bytes();
    return s;
  }

  Status Export(const std::string& out_dir) override {
    std::lock_guard<std::mutex> lock(mu_);
    NEARDUP_RETURN_IF_ERROR(WaitForWrites());
    const auto t0 = std::chrono::steady_clock::now();
    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    if (ec) return Status::IOError("cannot create " + out_dir + ": " + ec.message());
    // One consistent view, whatever the server does meanwhile.
    const rocksdb::Snapshot* snapshot = db_->GetSnapshot();
    struct SnapshotRelease {
      rocksdb::DB* db;
      const rocksdb::Snapshot* s;
      ~SnapshotRelease() { db->ReleaseSnapshot(s); }
    } release{db_.get(), snapshot};
    rocksdb::ReadOptions ro;
    ro.snapshot = snapshot;
    std::vector<PageRecord> rows;
    std::unordered_map<uint64_t, uint32_t> row_of;
    {
      std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro));
      const std::string prefix(1, service::kPagePrefix);
      for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
        PageRecord p;
        if (!service::DecodePage(std::string_view(it->value().data(), it->value().size()), &p)) {
          return Status::Corruption("store " + dir_ + ": a page record is not valid");
        }
        if (p.state == PageState::kRemoved) continue;
        p.signature = Signature();
        row_of.emplace(p.id, static_cast<uint32_t>(rows.size()));
        rows.push_back(std::move(p));
      }
      NEARDUP_RETURN_IF_ERROR(service::FromRocks(it->status(), "cannot read the store"));
    }
    // Each group's rows, its kept row and the rule that set it apart. A
    // redirect is in the group of its chain's final target (as dedup puts
    // it in that page's cluster); one whose chain ends at nothing is a
    // cluster of its own, as in dedup.
    std::unordered_map<uint64_t, std::vector<uint32_t>> members;
    std::unordered_map<uint64_t, uint32_t> content_members;
    for (uint32_t r = 0; r < rows.size(); ++r) {
      members[rows[r].group].push_back(r);
      content_members[rows[r].group] += rows[r].state == PageState::kContent;
    }
    auto alone = [&](const PageRecord& p) { return content_members[p.group] == 0 || members[p.group].size() == 1; };
    struct Kept {
      uint32_t row = 0;
      std::string reason;
      bool exact_only = true;
      bool redirects_only = false;  // its other members all redirect to it
    };
    std::unordered_map<uint64_t, Kept> kept;
    uint64_t clusters = 0, in_clusters = 0, largest = 1;
    for (auto& [gid, list] : members) {
      if (content_members[gid] == 0) continue;  // redirects alone: each a cluster of its own
      uint32_t best = list[0];
      for (uint32_t r : list) {
        if (CompareWinners(rows[r], rows[best]) < 0) best = r;  // content over redirect
      }
      Kept k;
      k.row = best;
      if (list.size() == 1) {
        k.reason = "single";
      } else {
        ++clusters;
        in_clusters += list.size();
        largest = std::max<uint64_t>(largest, list.size());
        // The runner-up among the pages with content, as dedup chooses the
        // kept page before redirects join.
        std::optional<uint32_t> second;
        for (uint32_t r : list) {
          if (r == best || rows[r].state != PageState::kContent) continue;
          if (!second || CompareWinners(rows[r], rows[*second]) < 0) second = r;
          if (rows[r].body_hash != rows[best].body_hash) k.exact_only = false;
        }
        k.redirects_only = !second;
        k.reason = second ? ReasonBetween(rows[best], rows[*second]) : ReasonName(kReasonRedirectTarget, keeper_);
      }
      kept.emplace(gid, std::move(k));
    }
    Env* env = Env::Default();
    const std::string clusters_path = JoinPath(out_dir, "clusters.tsv");
    const std::string summary_path = JoinPath(out_dir, "summary.json");
    NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<ClustersWriter> out, ClustersWriter::Create(env, clusters_path));
    const std::string method_name = method_->name();
    for (uint32_t r = 0; r < rows.size(); ++r) {
      const PageRecord& p = rows[r];
      ClusterRecord c;
      c.url = p.url;
      c.source = "";
      c.offset = 0;
      if (alone(p)) {
        c.cluster = r;
        c.role = ClusterRole::kKeep;
        c.method = "single";
        c.similarity = 1;
        c.reason = "single";
        NEARDUP_RETURN_IF_ERROR(out->Add(c));
        continue;
      }
      const Kept& k = kept[p.group];
      c.cluster = k.row;
      c.role = k.row == r ? ClusterRole::kKeep : ClusterRole::kDuplicate;
      if (k.row == r) {
        c.method = k.redirects_only ? std::string_view("redirect")
                   : k.exact_only   ? std::string_view("exact")
                                    : std::string_view(method_name);
        c.similarity = 1;
      } else if (p.state == PageState::kRedirect) {
        c.method = "redirect";
        c.similarity = 1;
      } else {
        const bool exact = p.body_hash == rows[k.row].body_hash;
        c.method = exact ? std::string_view("exact") : std::string_view(method_name);
        c.similarity = exact ? 1.0 : p.similarity;
      }
      c.source = "";
      c.offset = 0;
      c.reason = k.reason;
      NEARDUP_RETURN_IF_ERROR(out->Add(c));
    }
    NEARDUP_RETURN_IF_ERROR(out->Finish());
    const uint64_t n = rows.size();
    nlohmann::ordered_json j;
    j["neardup_version"] = Version();
    j["command"] = "export";
    j["options"] = {{"method", method_name},
                    {"method_spec", method_->Spec()},
                    {"keeper", o_.keeper},
                    {"prefer_host_suffix", o_.prefer_host_suffix},
                    {"verify", true}};
    j["inputs"] = {dir_};
    j["documents_read"] = n;
    j["clusters"] = clusters;
    j["documents_in_clusters"] = in_clusters;
    j["duplicates"] = in_clusters - clusters;
    j["duplicate_percentage"] = n ? 100.0 * static_cast<double>(in_clusters - clusters) / static_cast<double>(n) : 0.0;
    j["largest_cluster"] = largest;
    j["method_spec"] = method_->Spec();
    // The store's counters, as GET /v1/stats shows them.
    j["service"] = nlohmann::ordered_json::parse(ServiceStatsJson(StatsLocked(), method_->Spec()));
    j["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    j["outputs"] = {{"clusters", clusters_path}, {"summary", summary_path}};
    return WriteSummaryJson(env, summary_path, j);
  }

  // The rule that set winner a apart from runner-up b, as clusters.tsv's
  // reason column names it.
  std::string ReasonBetween(const PageRecord& a, const PageRecord& b) const {
    if (!market_.empty() && StatusRank(a.http_status) == StatusRank(b.http_status)) {
      const bool ma = EndsWith(Lower(UrlHost(a.url)), market_), mb = EndsWith(Lower(UrlHost(b.url)), market_);
      if (ma != mb) return "market";
    }
    uint8_t rule = kReasonInputOrder;
    CompareKeepers(a.features, a.id, b.features, b.id, keeper_, &rule);
    return ReasonName(rule, keeper_);
  }

 private:
  // ---- reading and writing records ----
  bool LoadPage(Ctx* ctx, uint64_t id, PageRecord* p) {
    const std::string key = service::PageKey(id);
    const bool committed = !ctx->txn->IsPending(key);
    if (committed) {
      if (const PageRecord* cached = records_.Find(id)) {
        *p = *cached;
        return true;
      }
    }
    std::string v;
    if (!ctx->txn->Get(key, &v)) return false;
    if (!service::DecodePage(v, p)) {
      Corrupt(ctx, "page record " + std::to_string(id));
      return false;
    }
    if (committed) records_.Put(id, *p);
    return true;
  }
  // The URL of page `id`. A committed page keeps its id and URL for good
  // (ids are not reused), so the URLs of the winners answers name are
  // cached apart from the records.
  bool UrlOf(Ctx* ctx, uint64_t id, std::string* url) {
    if (const std::string* cached = urls_.Find(id)) {
      *url = *cached;
      return true;
    }
    PageRecord p;
    if (!LoadPage(ctx, id, &p)) return false;
    if (!ctx->txn->IsPending(service::PageKey(id))) urls_.Put(id, p.url);
    *url = std::move(p.url);
    return true;
  }
  bool LoadByUrl(Ctx* ctx, std::string_view url, PageRecord* p) {
    std::string v;
    if (!ctx->txn->Get(service::UrlKey(url), &v)) return false;
    if (v.size() != 8) {
      Corrupt(ctx, "url record of " + std::string(url));
      return false;
    }
    return LoadPage(ctx, service::GetBigEndian(v), p);
  }
  void SavePage(Ctx* ctx, const PageRecord& p) {
    ctx->txn->Put(service::PageKey(p.id), service::EncodePage(p));
    ctx->SetBrief(p.id, PackBrief(p.group, p.state));
    std::optional<Comparable>& c = ctx->comparables[p.id];
    if (p.state == PageState::kContent) {
      c.emplace(Comparable{p.body_hash, p.similarity, p.signature, p.features, InMarket(p.url)});
    } else {
      c.reset();
    }
  }
  // What comparing with page `id` needs, as the request sees it: from the
  // request's own saves, the cache of committed pages, or the store (then
  // cached). Null when the page cannot be read.
  const Comparable* ComparableOf(Ctx* ctx, uint64_t id, Comparable* scratch) {
    if (auto it = ctx->comparables.find(id); it != ctx->comparables.end()) {
      return it->second ? &*it->second : nullptr;
    }
    if (const Comparable* c = signatures_.Find(id)) return c;
    PageRecord q;
    if (!LoadPage(ctx, id, &q) || q.state != PageState::kContent) return nullptr;
    *scratch = ComparableOf(std::move(q));
    // Not saved by this request: the record read is the committed one.
    signatures_.Put(id, *scratch);
    return scratch;
  }
  bool LoadGroup(Ctx* ctx, uint64_t id, GroupRecord* g) const {
    if (id >= ctx->groups->size()) return false;
    const GroupSlot& slot = (*ctx->groups)[id];
    if (slot.winner == GroupSlot::kNone) return false;
    g->id = id;
    g->winner = slot.winner;
    g->members = slot.members;
    g->failed_verifications = slot.failed_verifications;
    return true;
  }
  void SaveGroup(Ctx* ctx, const GroupRecord& g) {
    ctx->txn->Put(service::GroupKey(g.id), service::EncodeGroup(g));
    ctx->SetGroup(g.id, SlotOf(g));
  }
  void DeleteGroup(Ctx* ctx, uint64_t id) {
    ctx->txn->Delete(service::GroupKey(id));
    ctx->SetGroup(id, GroupSlot());
  }
  static GroupSlot SlotOf(const GroupRecord& g) {
    constexpr uint64_t kMax = ~uint32_t{0};
    return GroupSlot{g.winner, static_cast<uint32_t>(std::min(g.members, kMax)),
                     static_cast<uint32_t>(std::min(g.failed_verifications, kMax))};
  }
  // A record that cannot be decoded: the request stops with Corruption
  // before anything of it is committed.
  void Corrupt(Ctx*, const std::string& what) {
    if (corruption_.ok()) corruption_ = Status::Corruption("store " + dir_ + ": " + what + " is not valid");
  }
  std::vector<uint64_t> Members(Ctx* ctx, uint64_t group) {
    std::vector<uint64_t> ids;
    const std::string prefix = std::string(1, service::kMemberPrefix) + service::PutBigEndian(group);
    ctx->txn->Scan(prefix, [&](std::string_view k, std::string_view) {
      ids.push_back(service::GetBigEndian(k.substr(9)));
      return true;
    });
    return ids;
  }

  Status CommitSynced(Ctx* ctx) {
    if (!corruption_.ok()) return std::exchange(corruption_, Status::OK());
    if (ctx->txn->empty()) {
      // Only counters moved (a verification that passed): they are written
      // with the next change.
      counters_ = ctx->counters;
      return Status::OK();
    }
    // Written, and the log synced, by the caller (WriteSealed).
    return CommitCtx(ctx);
  }

  // ---- deciding ----
  // The method's rule between two stored content pages (byte-identical
  // bodies are duplicates with similarity 1, as dedup's identity sets; a
  // page without content of its own, kNoByteKey, is matched by nothing).
  PairDecision Decide(Ctx* ctx, const PageRecord& a, const PageRecord& b) {
    return Decide(ctx, a.body_hash, a.signature, b.body_hash, b.signature);
  }
  PairDecision Decide(Ctx* ctx, uint64_t a_body_hash, const Signature& a_signature, uint64_t b_body_hash,
                      const Signature& b_signature) {
    if (a_body_hash == b_body_hash && a_body_hash != kNoByteKey) return PairDecision{true, 1.0, "identical bytes"};
    ++ctx->counters.comparisons;
    if (!a_signature.eligible || !b_signature.eligible) return PairDecision{false, 0, "nothing to compare"};
    return method_->Compare(a_signature, b_signature);
  }

  // ---- winners ----
  // < 0 when a is the better winner: a content page over a redirect, then
  // HTTP status, then the market rule, then the keeper rules.
  int CompareWinners(const WinnerKey& a, const WinnerKey& b) const {
    if (a.content != b.content) return a.content ? -1 : 1;
    if (!market_.empty()) {
      const int sa = StatusRank(a.features.http_status), sb = StatusRank(b.features.http_status);
      if (sa != sb) return sa < sb ? -1 : 1;
      if (a.market != b.market) return a.market ? -1 : 1;
    }
    return CompareKeepers(a.features, a.id, b.features, b.id, keeper_);
  }
  int CompareWinners(const PageRecord& a, const PageRecord& b) const { return CompareWinners(KeyOf(a), KeyOf(b)); }
  bool InMarket(std::string_view url) const { return !market_.empty() && EndsWith(Lower(UrlHost(url)), market_); }
  WinnerKey KeyOf(const PageRecord& p) const {
    return WinnerKey{p.id, p.state == PageState::kContent, InMarket(p.url), p.features};
  }
  Comparable ComparableOf(PageRecord&& p) const {
    return Comparable{p.body_hash, p.similarity, std::move(p.signature), p.features, InMarket(p.url)};
  }

  void SetGroupSize(Ctx* ctx, GroupRecord* g, int64_t delta) {
    const uint64_t before = g->members;
    g->members = static_cast<uint64_t>(static_cast<int64_t>(g->members) + delta);
    if (before < 2 && g->members >= 2) ++ctx->counters.groups_with_duplicates;
    if (before >= 2 && g->members < 2) --ctx->counters.groups_with_duplicates;
  }

  uint64_t NewGroup(Ctx* ctx, PageRecord* p) {
    GroupRecord g;
    g.id = ctx->counters.next_group++;
    g.winner = p->id;
    g.members = 1;
    ++ctx->counters.groups;
    p->group = g.id;
    p->similarity = 1;
    SaveGroup(ctx, g);
    ctx->txn->Put(service::MemberKey(g.id, p->id), "");
    SavePage(ctx, *p);
    return g.id;
  }

  // Adds *p (saved) to group `gid`; elects it winner when it is better, and
  // then verifies the other members against it. Returns false when the
  // group is gone.
  bool AddMember(Ctx* ctx, uint64_t gid, PageRecord* p, double similarity) {
    GroupRecord g;
    if (!LoadGroup(ctx, gid, &g)) return false;
    ctx->txn->Put(service::MemberKey(gid, p->id), "");
    SetGroupSize(ctx, &g, +1);
    p->group = gid;
    p->similarity = similarity;
    // The winner as a content page is known from its Comparable; another
    // (a redirect) from its record.
    WinnerKey w;
    const Signature* w_signature = nullptr;
    Comparable scratch;
    PageRecord w_record;
    uint64_t w_group = 0;
    PageState w_state = PageState::kRemoved;
    bool has_winner = false;
    if (BriefOf(ctx, g.winner, &w_group, &w_state) && w_state == PageState::kContent) {
      if (const Comparable* c = ComparableOf(ctx, g.winner, &scratch)) {
        w = WinnerKey{g.winner, true, c->market, c->features};
        w_signature = &c->signature;
        has_winner = true;
      }
    }
    if (!has_winner && LoadPage(ctx, g.winner, &w_record)) {
      w = KeyOf(w_record);
      if (w_record.state == PageState::kContent) w_signature = &w_record.signature;
      has_winner = true;
    }
    if (!has_winner || CompareWinners(KeyOf(*p), w) < 0) {
      // A winner whose signature equals the last one's decides every pair
      // as it did: the members stay verified.
      const bool same = has_winner && p->state == PageState::kContent && w_signature != nullptr &&
                        p->signature.eligible == w_signature->eligible && p->signature.words == w_signature->words;
      g.winner = p->id;
      p->similarity = 1;
      SaveGroup(ctx, g);
      SavePage(ctx, *p);
      if (!same) VerifyMembers(ctx, gid);
    } else {
      SaveGroup(ctx, g);
      SavePage(ctx, *p);
    }
    return true;
  }

  // Takes *p out of its group (saving the group, or deleting it when it is
  // left empty); elects a new winner when p was it. p->group becomes 0; *p
  // is not saved. `as_was` (may be nullptr) is p as the group knew it: when
  // the new winner's signature equals that one's, the members stay verified.
  void LeaveGroup(Ctx* ctx, PageRecord* p, const PageRecord* as_was = nullptr) {
    const uint64_t gid = p->group;
    if (gid == 0) return;
    p->group = 0;
    ctx->txn->Delete(service::MemberKey(gid, p->id));
    GroupRecord g;
    if (!LoadGroup(ctx, gid, &g)) return;
    SetGroupSize(ctx, &g, -1);
    if (g.members == 0) {
      DeleteGroup(ctx, gid);
      --ctx->counters.groups;
      return;
    }
    SaveGroup(ctx, g);
    if (g.winner == p->id) {
      // The page it was is written as left before the election reads it.
      ElectWinner(ctx, gid);
      GroupRecord after;
      PageRecord w;
      if (as_was != nullptr && LoadGroup(ctx, gid, &after) && LoadPage(ctx, after.winner, &w) &&
          SameSignature(w, *as_was)) {
        return;
      }
      VerifyMembers(ctx, gid);
    }
  }

  static bool SameSignature(const PageRecord& a, const PageRecord& b) {
    return a.state == PageState::kContent && b.state == PageState::kContent && a.signature.eligible == b.signature.eligible &&
           a.signature.words == b.signature.words;
  }

  // Chooses the group's winner among its members.
  void ElectWinner(Ctx* ctx, uint64_t gid) {
    GroupRecord g;
    if (!LoadGroup(ctx, gid, &g)) return;
    PageRecord best;
    bool any = false;
    for (uint64_t m : Members(ctx, gid)) {
      PageRecord p;
      if (!LoadPage(ctx, m, &p)) continue;
      if (!any || CompareWinners(p, best) < 0) {
        best = std::move(p);
        any = true;
      }
    }
    if (!any) return;
    g.winner = best.id;
    SaveGroup(ctx, g);
    best.similarity = 1;
    SavePage(ctx, best);
  }

  // Verifies every content member against the winner (Zhu et al. §5.2);
  // members that fail leave and are placed again by tier 2, without merging.
  // Redirect members whose final target left follow it.
  // With `only`, just those members are verified (the others were verified
  // against the same winner).
  void VerifyMembers(Ctx* ctx, uint64_t gid, const std::vector<uint64_t>* only = nullptr) {
    GroupRecord g;
    if (!LoadGroup(ctx, gid, &g)) return;
    PageRecord w;
    if (!LoadPage(ctx, g.winner, &w) || w.state != PageState::kContent) return;
    std::vector<uint64_t> failed;
    Comparable scratch;
    for (uint64_t m : only != nullptr ? *only : Members(ctx, gid)) {
      // Members are compared from their briefs and cached signatures; a
      // record is read and written only when its similarity changes.
      uint64_t group = 0;
      PageState state;
      if (m == w.id || !BriefOf(ctx, m, &group, &state) || state != PageState::kContent || group != gid) continue;
      const Comparable* c = ComparableOf(ctx, m, &scratch);
      if (c == nullptr) continue;
      PairDecision d = Decide(ctx, c->body_hash, c->signature, w.body_hash, w.signature);
      ++ctx->counters.verifications;
      if (d.duplicate) {
        if (c->similarity == d.similarity) continue;
        PageRecord p;
        if (!LoadPage(ctx, m, &p)) continue;
        p.similarity = d.similarity;
        SavePage(ctx, p);
      } else {
        ++ctx->counters.verifications_failed;
        failed.push_back(m);
      }
    }
    for (uint64_t m : failed) {
      PageRecord p;
      if (!LoadPage(ctx, m, &p) || p.group != gid) continue;
      LeaveGroup(ctx, &p);
      SavePage(ctx, p);
      PlaceByTier2(ctx, &p, /*merge=*/false);
      FollowRedirects(ctx, p);
    }
  }

  // ---- postings ----
  // The method's candidate keys of a page, each once.
  std::vector<uint64_t> CandidateKeysOf(const PageRecord& p) const {
    std::vector<uint64_t> keys;
    if (p.signature.eligible) method_->CandidateKeys(p.signature, &keys);
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    return keys;
  }

  // Files content page p under its candidate keys and body hash (insert),
  // or takes it off them. With a request (ctx, else nullptr), each change is logged to be
  // undone unless committed, and a key that becomes a large bucket is marked
  // in the store.
  void File(Ctx* ctx, const PageRecord& p, bool insert) {
    using Change = Ctx::PostingChange;
    auto file = [&](service::PostingTable* table, uint64_t key) {
      if (!insert) {
        if (table->Remove(key, p.id) && ctx != nullptr) ctx->posting_undo.push_back({table, key, p.id, Change::kRemoved, {}});
        return;
      }
      std::vector<uint64_t> dropped;
      const service::PostingTable::Added added = table->Add(key, p.id, &dropped);
      if (ctx == nullptr) return;
      if (added == service::PostingTable::Added::kAdded) {
        ctx->posting_undo.push_back({table, key, p.id, Change::kAdded, {}});
      } else if (added == service::PostingTable::Added::kBecameLarge) {
        ctx->posting_undo.push_back({table, key, p.id, Change::kBecameLarge, std::move(dropped)});
        ctx->txn->Put(service::PostingKey(service::kPostingPrefix, key), service::LargeBucketMark());
      }
    };
    const std::vector<uint64_t> keys = CandidateKeysOf(p);
    for (uint64_t key : keys) candidates_->Prefetch(key);
    if (p.body_hash != kNoByteKey) identical_->Prefetch(p.body_hash);
    for (uint64_t key : keys) file(candidates_.get(), key);
    if (p.body_hash != kNoByteKey) file(identical_.get(), p.body_hash);
  }

  // Ids filed under the signature's keys or its body hash (p excluded).
  std::vector<uint64_t> Candidates(Ctx*, const PageRecord& p) {
    std::vector<uint64_t> listed;
    if (p.signature.eligible) method_->CandidateKeys(p.signature, &keys_scratch_);
    for (uint64_t key : keys_scratch_) candidates_->Prefetch(key);
    if (p.body_hash != kNoByteKey) identical_->Prefetch(p.body_hash);
    for (uint64_t key : keys_scratch_) candidates_->Append(key, &listed);
    keys_scratch_.clear();
    if (p.body_hash != kNoByteKey) identical_->Append(p.body_hash, &listed);
    // The lists of similar pages hold mostly the same ids: each is kept
    // once (a mark per page id, by call) before the sort.
    if (++seen_epoch_ == 0) {
      std::fill(seen_.begin(), seen_.end(), 0);
      seen_epoch_ = 1;
    }
    const uint64_t max_id = listed.empty() ? 0 : *std::max_element(listed.begin(), listed.end());
    if (max_id >= seen_.size()) seen_.resize(std::max<size_t>(max_id + 1, seen_.size() * 3 / 2), 0);
    // Marks and briefs are fetched for every id first (the ids fall all
    // over both tables), then read.
    for (uint64_t id : listed) {
      __builtin_prefetch(&seen_[id]);
      if (id < briefs_.size()) __builtin_prefetch(&briefs_[id]);
    }
    std::vector<uint64_t> ids;
    for (uint64_t id : listed) {
      if (seen_[id] == seen_epoch_ || id == p.id) continue;
      seen_[id] = seen_epoch_;
      ids.push_back(id);
    }
    // In the order of the keys and of each list: the same store gives the
    // same order.
    return ids;
  }

  // ---- tier 2 ----
  // Marks of groups, cleared for each placement by NextGroupMark().
  void NextGroupMark() {
    if (++group_epoch_ == 0) {
      std::fill(group_seen_.begin(), group_seen_.end(), 0);
      group_epoch_ = 1;
    }
  }
  // Marks the group; false when it was marked already.
  bool MarkGroup(uint64_t gid) {
    if (gid >= group_seen_.size()) group_seen_.resize(std::max<size_t>(gid + 1, group_seen_.size() * 3 / 2), 0);
    if (group_seen_[gid] == group_epoch_) return false;
    group_seen_[gid] = group_epoch_;
    return true;
  }

  // Places content page *p (in no group, filed, saved) by many-to-all
  // comparison through the postings: each group holding a candidate is
  // compared once, through its winner (the group's representative, Zhu et
  // al. §5.1; every member was verified against it, §5.2). Without `merge`
  // p joins the group whose winner it matches best. With `merge`, p joins
  // the largest group whose winner it matches, and each other such group
  // whose winner matches that group's winner is merged into it (transitive
  // clustering, §5); a group whose winner does not stays apart: its
  // members would fail against the merged group's winner and be placed
  // again, for every new copy of the page that bridges the two.
  void PlaceByTier2(Ctx* ctx, PageRecord* p, bool merge) {
    ++ctx->counters.tier2_decided;
    const std::vector<uint64_t> candidates = Candidates(ctx, *p);
    NextGroupMark();
    Comparable scratch;
    // (group, p's similarity to its winner) for every group whose winner p
    // matches, in the order the candidates list them.
    std::vector<std::pair<uint64_t, double>> found;
    for (uint64_t c : candidates) {
      // The brief passes over pages that are not content and groups seen
      // already; a winner's signature is usually cached, and the winners
      // of large groups are compared again and again (they stay in the
      // processor's cache).
      uint64_t gid = 0;
      PageState state;
      if (!BriefOf(ctx, c, &gid, &state) || state != PageState::kContent || gid == 0 || !MarkGroup(gid)) continue;
      GroupRecord g;
      if (!LoadGroup(ctx, gid, &g)) continue;
      const Comparable* w = ComparableOf(ctx, g.winner, &scratch);
      if (w == nullptr) continue;  // a winner that is not a content page
      PairDecision d = Decide(ctx, p->body_hash, p->signature, w->body_hash, w->signature);
      if (d.duplicate) found.emplace_back(gid, d.similarity);
    }
    if (found.empty()) {
      NewGroup(ctx, p);
      return;
    }
    if (!merge) {
      size_t best = 0;
      for (size_t i = 1; i < found.size(); ++i) {
        if (found[i].second > found[best].second) best = i;
      }
      ++ctx->counters.verifications;
      if (!AddMember(ctx, found[best].first, p, found[best].second)) NewGroup(ctx, p);
      return;
    }
    std::sort(found.begin(), found.end());
    const std::map<uint64_t, double> groups(found.begin(), found.end());
    // Merge into the largest group; the best of the winners and p wins.
    uint64_t target = 0, target_size = 0;
    for (const auto& [gid, unused] : groups) {
      GroupRecord g;
      if (LoadGroup(ctx, gid, &g) && (target == 0 || g.members > target_size)) {
        target = gid;
        target_size = g.members;
      }
    }
    if (target == 0) {
      NewGroup(ctx, p);
      return;
    }
    GroupRecord tg;
    LoadGroup(ctx, target, &tg);
    const uint64_t old_winner = tg.winner;
    std::vector<uint64_t> moved;
    for (const auto& [gid, unused] : groups) {
      if (gid == target) continue;
      GroupRecord g;
      if (!LoadGroup(ctx, gid, &g)) continue;
      Comparable g_scratch, t_scratch;
      const Comparable* gwc = ComparableOf(ctx, g.winner, &g_scratch);
      const Comparable* twc = ComparableOf(ctx, tg.winner, &t_scratch);
      if (gwc == nullptr || twc == nullptr ||
          !Decide(ctx, gwc->body_hash, gwc->signature, twc->body_hash, twc->signature).duplicate) {
        continue;
      }
      PageRecord gw, tw;
      LoadPage(ctx, tg.winner, &tw);
      LoadPage(ctx, g.winner, &gw);
      for (uint64_t m : Members(ctx, gid)) {
        PageRecord q;
        if (!LoadPage(ctx, m, &q)) continue;
        ctx->txn->Delete(service::MemberKey(gid, m));
        ctx->txn->Put(service::MemberKey(target, m), "");
        q.group = target;
        SavePage(ctx, q);
        moved.push_back(m);
      }
      SetGroupSize(ctx, &tg, static_cast<int64_t>(g.members));
      SetGroupSize(ctx, &g, -static_cast<int64_t>(g.members));
      DeleteGroup(ctx, gid);
      --ctx->counters.groups;
      if (CompareWinners(gw, tw) < 0) tg.winner = gw.id;
    }
    SaveGroup(ctx, tg);
    if (tg.winner != old_winner) {
      PageRecord w;
      if (LoadPage(ctx, tg.winner, &w)) {
        w.similarity = 1;
        SavePage(ctx, w);
      }
    }
    // p joins; AddMember elects p when it is better and then verifies every
    // member against it. p matched the target's first winner.
    ++ctx->counters.verifications;
    AddMember(ctx, target, p, groups.at(target));
    LoadGroup(ctx, target, &tg);
    if (tg.winner != p->id) {
      if (tg.winner != old_winner) {
        VerifyMembers(ctx, target);  // p among them
      } else if (!moved.empty()) {
        // The target's own members, and p, were verified against this
        // winner: those moved in are verified now.
        VerifyMembers(ctx, target, &moved);
      }
    }
    LoadPage(ctx, p->id, p);
  }

  // ---- repair (§5.2) ----
  void MaybeRepair(Ctx* ctx, uint64_t gid) {
    GroupRecord g;
    if (!LoadGroup(ctx, gid, &g)) return;
    if (g.failed_verifications < o_.repair_min_failures ||
        static_cast<double>(g.failed_verifications) < o_.repair_failure_share * static_cast<double>(g.members)) {
      return;
    }
    ++ctx->counters.repairs;
    g.failed_verifications = 0;
    SaveGroup(ctx, g);
    ElectWinner(ctx, gid);
    VerifyMembers(ctx, gid);
  }

  // ---- redirects ----
  // The page a redirect chain from `target` ends at: a live content page
  // (true), or nothing (false; *cycle when the chain loops or is too long).
  bool FinalTarget(Ctx* ctx, const std::string& start_url, std::string target, PageRecord* out, bool* cycle) {
    std::unordered_set<std::string> seen = {start_url};
    *cycle = false;
    for (int hop = 0; hop < kMaxRedirectHops; ++hop) {
      if (!seen.insert(target).second) {
        *cycle = true;
        return false;
      }
      PageRecord t;
      if (!LoadByUrl(ctx, target, &t)) return false;
      if (t.state == PageState::kRemoved) return false;
      if (t.state == PageState::kContent) {
        *out = std::move(t);
        return true;
      }
      target = t.redirect;
    }
    *cycle = true;
    return false;
  }

  // The pages redirecting (directly or through a chain) to page `to` move
  // to its group; when `to` is no longer live, they move together to a new
  // group of their own.
  void FollowRedirects(Ctx* ctx, const PageRecord& to) {
    const bool live = to.state != PageState::kRemoved && to.group != 0;
    uint64_t gid = live ? to.group : 0;
    std::vector<std::string> frontier = {to.url};
    std::unordered_set<uint64_t> seen = {to.id};
    while (!frontier.empty()) {
      const std::string url = std::move(frontier.back());
      frontier.pop_back();
      std::vector<uint64_t> sources;
      // Most pages have no redirect to them: the filter (no false
      // negatives) spares their scan.
      if (!redirect_targets_.contains(TargetHash(url))) continue;
      ctx->txn->Scan(service::RedirectPrefix(url), [&](std::string_view k, std::string_view) {
        sources.push_back(service::GetBigEndian(k.substr(k.size() - 8)));
        return true;
      });
      for (uint64_t s : sources) {
        if (!seen.insert(s).second) continue;
        PageRecord r;
        if (!LoadPage(ctx, s, &r) || r.state != PageState::kRedirect || r.redirect != url) continue;
        if (gid == 0) {
          LeaveGroup(ctx, &r);
          gid = NewGroup(ctx, &r);
        } else if (r.group != gid) {
          LeaveGroup(ctx, &r);
          SavePage(ctx, r);
          AddMember(ctx, gid, &r, to.similarity);
        }
        frontier.push_back(r.url);
      }
    }
  }

  // ---- one page ----
  PageAnswer AnswerFor(Ctx* ctx, const PageRecord& p) {
    PageAnswer a;
    a.url = p.url;
    if (p.state == PageState::kRemoved) {
      a.role = "removed";
      a.winner = p.former_winner;
      a.similarity = 0;
      return a;
    }
    a.group = p.group;
    GroupRecord g;
    if (LoadGroup(ctx, p.group, &g)) {
      if (g.winner == p.id) {
        a.winner = p.url;
      } else {
        UrlOf(ctx, g.winner, &a.winner);
      }
    }
    if (p.state == PageState::kRedirect) {
      a.role = "redirect";
      a.similarity = p.similarity;
    } else if (g.winner == p.id) {
      a.role = "keep";
      a.similarity = 1;
    } else {
      a.role = "duplicate";
      a.similarity = p.similarity;
    }
    return a;
  }

  PageAnswer RemovePage(Ctx* ctx, PageRecord* p) {
    if (p->state == PageState::kRemoved) return AnswerFor(ctx, *p);
    std::string winner;
    GroupRecord g;
    PageRecord w;
    if (LoadGroup(ctx, p->group, &g) && LoadPage(ctx, g.winner, &w)) winner = w.url;
    p->former_group = p->group;
    p->former_winner = winner;
    if (p->state == PageState::kContent) {
      File(ctx, *p, false);
      --ctx->counters.content_pages;
    } else {
      ctx->txn->Delete(service::RedirectKey(p->redirect, p->id));
      --ctx->counters.redirect_pages;
    }
    ++ctx->counters.removed_pages;
    const PageRecord as_was = *p;
    LeaveGroup(ctx, p, &as_was);
    p->state = PageState::kRemoved;
    p->signature = Signature();
    SavePage(ctx, *p);
    FollowRedirects(ctx, *p);
    PageAnswer a = AnswerFor(ctx, *p);
    a.moved = true;
    return a;
  }

  PageAnswer ApplyOne(Ctx* ctx, const PageInput& in, Signed* s) {
    if (!in.revisit_of.empty()) return ApplyRevisit(ctx, in, s);
    PageRecord p;
    const bool known = LoadByUrl(ctx, in.url, &p);
    if (IsRemovalStatus(in.status)) {
      if (!known) {
        PageAnswer a;
        a.url = in.url;
        a.role = "removed";
        return a;
      }
      return RemovePage(ctx, &p);
    }
    if (IsFailedFetch(in.status)) {
      PageAnswer a;
      if (known) {
        a = AnswerFor(ctx, p);  // unchanged; neither tier ran
      } else {
        a.url = in.url;
        a.role = "error";
        a.error = "a " + std::to_string(in.status) + " fetch of a page the store does not hold: nothing to place";
      }
      return a;
    }
    const uint64_t old_group = known && p.state != PageState::kRemoved ? p.group : 0;
    const PageState old_state = known ? p.state : PageState::kRemoved;
    if (!known) {
      p.id = ctx->counters.next_page++;
      p.url = in.url;
      ctx->txn->Put(service::UrlKey(in.url), service::PutBigEndian(p.id));
    }
    // The fetch's metadata.
    Document meta;
    meta.url = in.url;
    meta.http_status = in.status;
    meta.fetch_date = in.fetched;
    p.features = KeeperFeatures::Of(meta);
    p.http_status = p.features.http_status;
    p.fetched = in.fetched;
    p.former_group = 0;
    p.former_winner.clear();

    PageAnswer a;
    if (IsRedirect(in)) {
      const std::string target = RedirectTargetUrl(in.url, in.redirect);
      // Leave what the page was.
      if (old_state == PageState::kContent) {
        File(ctx, p, false);
        --ctx->counters.content_pages;
      } else if (old_state == PageState::kRedirect) {
        ctx->txn->Delete(service::RedirectKey(p.redirect, p.id));
        --ctx->counters.redirect_pages;
      } else if (known) {
        --ctx->counters.removed_pages;
      }
      ++ctx->counters.redirect_pages;
      p.state = PageState::kRedirect;
      p.redirect = target;
      p.signature = Signature();
      p.body_hash = 0;
      ctx->txn->Put(service::RedirectKey(target, p.id), "");
      redirect_targets_.insert(TargetHash(target));
      PageRecord final_page;
      bool cycle = false;
      const bool found = FinalTarget(ctx, in.url, target, &final_page, &cycle);
      if (cycle) ++ctx->counters.redirect_cycles;
      if (found && final_page.group == p.group && p.group != 0) {
        p.similarity = final_page.similarity;
        SavePage(ctx, p);
      } else if (found) {
        LeaveGroup(ctx, &p);
        SavePage(ctx, p);
        AddMember(ctx, final_page.group, &p, final_page.similarity);
      } else if (p.group == 0 || !AloneIn(ctx, p)) {
        LeaveGroup(ctx, &p);
        NewGroup(ctx, &p);
      } else {
        SavePage(ctx, p);
      }
      LoadPage(ctx, p.id, &p);
      FollowRedirects(ctx, p);
      LoadPage(ctx, p.id, &p);
      a = AnswerFor(ctx, p);
      a.tier = found ? 1 : 0;
      a.redirect_cycle = cycle;
      a.moved = old_group != 0 && p.group != old_group;
      return a;
    }

    // A content page.
    const bool recrawl = old_state == PageState::kContent && old_group != 0;
    if (recrawl) {
      ++ctx->counters.recrawled;
      const PageRecord old = p;
      GroupRecord g;
      bool stays = false;
      double similarity = 1;
      if (s->body_hash == old.body_hash) {
        stays = true;  // unchanged bytes: nothing to compare
        similarity = old.similarity;
      } else if (LoadGroup(ctx, old_group, &g)) {
        // Tier 1: the group's representative signature is its winner's (the
        // page's own former signature when it is the winner).
        PageRecord rep;
        if (g.winner == p.id) {
          rep = old;
        } else if (!LoadPage(ctx, g.winner, &rep)) {
          rep = old;
        }
        PageRecord now = old;
        now.signature = s->signature;
        now.body_hash = s->body_hash;
        PairDecision d = Decide(ctx, now, rep);
        stays = d.duplicate;
        similarity = g.winner == p.id ? 1.0 : d.similarity;
      }
      File(ctx, old, false);
      p.signature = std::move(s->signature);
      p.body_hash = s->body_hash;
      File(ctx, p, true);
      if (stays) {
        ++ctx->counters.tier1_decided;
        p.similarity = similarity;
        if (g.id != 0 && g.winner == p.id) p.similarity = 1;
        SavePage(ctx, p);
        // A winner's new fetch may now rank it lower.
        if (LoadGroup(ctx, old_group, &g) && g.winner == p.id) {
          ElectWinner(ctx, old_group);
          LoadGroup(ctx, old_group, &g);
          if (g.winner != p.id) VerifyMembers(ctx, old_group);
        }
        LoadPage(ctx, p.id, &p);
        a = AnswerFor(ctx, p);
        a.tier = 1;
        return a;
      }
      // Case 1: the page leaves its group, and the pages redirecting to it
      // go along.
      LeaveGroup(ctx, &p, &old);
      SavePage(ctx, p);
      PlaceByTier2(ctx, &p, /*merge=*/true);
      LoadPage(ctx, p.id, &p);
      FollowRedirects(ctx, p);
      LoadPage(ctx, p.id, &p);
      a = AnswerFor(ctx, p);
      a.tier = 2;
      a.moved = p.group != old_group;
      return a;
    }
    // Case 2: a new page (or one that was a redirect or removed).
    if (old_state == PageState::kRedirect) {
      ctx->txn->Delete(service::RedirectKey(p.redirect, p.id));
      --ctx->counters.redirect_pages;
      LeaveGroup(ctx, &p);
    } else if (old_state == PageState::kRemoved && known) {
      --ctx->counters.removed_pages;
    }
    ++ctx->counters.content_pages;
    p.state = PageState::kContent;
    p.redirect.clear();
    p.group = 0;
    p.signature = std::move(s->signature);
    p.body_hash = s->body_hash;
    File(ctx, p, true);
    SavePage(ctx, p);
    PlaceByTier2(ctx, &p, /*merge=*/true);
    LoadPage(ctx, p.id, &p);
    FollowRedirects(ctx, p);
    LoadPage(ctx, p.id, &p);
    a = AnswerFor(ctx, p);
    a.tier = 2;
    a.moved = old_group != 0 && p.group != old_group;
    return a;
  }

  // A revisit (PageInput::revisit_of): the page takes the stored content of
  // the page it names and is applied as a capture with that content (a
  // redirect when that page is one), so it is placed as a page with the
  // same bytes sent again would be. Nothing changes when the named page is
  // not held, or is the page itself.
  PageAnswer ApplyRevisit(Ctx* ctx, const PageInput& in, Signed* s) {
    PageAnswer error;
    error.url = in.url;
    error.role = "error";
    PageRecord of;
    if (!LoadByUrl(ctx, in.revisit_of, &of) || of.state == PageState::kRemoved) {
      error.error = "\"revisit_of\": the store holds no page at " + in.revisit_of +
                    " whose content this capture repeats (send that page first)";
      return error;
    }
    if (in.revisit_of == in.url) return AnswerFor(ctx, of);  // an unchanged capture; neither tier ran
    PageInput capture = in;
    capture.revisit_of.clear();
    capture.status = of.http_status != 0 ? of.http_status : 200;
    if (of.state == PageState::kRedirect) {
      capture.redirect = of.redirect;  // absolute: resolved when it was stored
      if (!IsRedirect(capture)) capture.status = 302;
    } else {
      capture.redirect.clear();
      s->signature = of.signature;
      s->body_hash = of.body_hash;
    }
    return ApplyOne(ctx, capture, s);
  }

  bool AloneIn(Ctx* ctx, const PageRecord& p) {
    GroupRecord g;
    return LoadGroup(ctx, p.group, &g) && g.members == 1;
  }

  const std::string dir_;
  ServiceOptions o_;
  Executor* executor_;
  std::unique_ptr<rocksdb::DB> db_;
  std::unique_ptr<Method> method_;
  KeeperOptions keeper_;
  std::string market_;
  std::mutex mu_;
  // Batches sealed and not yet written, oldest first, and the order of
  // writes (WriteSealed); guarded by flight_mu_, which is taken after mu_
  // when both are.
  std::mutex flight_mu_;
  std::condition_variable flight_cv_;
  std::deque<std::shared_ptr<const service::Overlay>> inflight_;
  uint64_t sealed_seq_ = 0, written_seq_ = 0;
  Status write_error_;
  Counters counters_;
  Status corruption_;
  // Committed briefs (PackBrief) by page id: a page's group and state.
  std::vector<uint64_t> briefs_;
  // Committed page records read lately (LoadPage).
  DirectMappedCache<PageRecord> records_{kRecordCacheSlots};
  DirectMappedCache<std::string> urls_{kUrlCacheSlots};  // UrlOf
  // Committed groups by id (kNone where there is none).
  std::vector<GroupSlot> groups_;
  // The method's candidate postings and the lists of identical bodies
  // (posting_table.h), rebuilt from the page records when the store opens.
  std::unique_ptr<service::PostingTable> candidates_, identical_;
  std::vector<uint64_t> keys_scratch_;
  // PlaceByTier2(): group_seen_[id] == group_epoch_ when the call has
  // marked group id.
  std::vector<uint32_t> group_seen_;
  uint32_t group_epoch_ = 0;
  // Candidates(): seen_[id] == seen_epoch_ when the call has listed id.
  std::vector<uint32_t> seen_;
  uint32_t seen_epoch_ = 0;
  // Committed content pages' body hashes and signatures (tier 2's
  // comparisons); updated at each commit.
  SignatureCache signatures_;
  // Hashes of the URLs some page redirects to (TargetHash); grows only, so
  // a hash may outlive its redirects (a needless scan, never a missed one).
  std::unordered_set<uint64_t> redirect_targets_;
};

}  // namespace

Result<std::unique_ptr<DuplicateService>> DuplicateService::Open(const std::string& dir,
                                                                 const ServiceOptions& options, Executor* executor) {
  if (dir.empty()) return Status::InvalidArgument("no store folder given");
  if (options.repair_failure_share < 0 || options.repair_failure_share > 1) {
    return Status::InvalidArgument("repair_failure_share must be in [0, 1]");
  }
  if (options.max_bucket_pages < 2) return Status::InvalidArgument("max_bucket_pages must be at least 2");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError("cannot create store folder " + dir + ": " + ec.message());
  auto impl = std::make_unique<ServiceImpl>(dir, options, executor);
  NEARDUP_RETURN_IF_ERROR(impl->Init());
  return std::unique_ptr<DuplicateService>(std::move(impl));
}

}  // namespace neardup
