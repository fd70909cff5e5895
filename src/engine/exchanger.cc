// Copyright neardup authors. Licensed under Apache-2.0.
#include "engine/exchanger.h"

namespace neardup {

Status Exchanger::SetCounts(uint64_t mine) {
  std::vector<std::vector<uint64_t>> out(static_cast<size_t>(size_), std::vector<uint64_t>{mine});
  NEARDUP_ASSIGN_OR_RETURN(auto in, Exchange(out));
  bounds_.assign(static_cast<size_t>(size_) + 1, 0);
  for (int r = 0; r < size_; ++r) {
    if (in[r].size() != 1) return Status::Corruption("a process sent no page count");
    bounds_[r + 1] = bounds_[r] + in[r][0];
  }
  return Status::OK();
}

Result<uint64_t> Exchanger::Sum(uint64_t value) {
  std::vector<std::vector<uint64_t>> out(static_cast<size_t>(size_), std::vector<uint64_t>{value});
  NEARDUP_ASSIGN_OR_RETURN(auto in, Exchange(out));
  uint64_t sum = 0;
  for (const auto& v : in) sum += v.empty() ? 0 : v[0];
  return sum;
}

Result<uint64_t> Exchanger::Max(uint64_t value) {
  std::vector<std::vector<uint64_t>> out(static_cast<size_t>(size_), std::vector<uint64_t>{value});
  NEARDUP_ASSIGN_OR_RETURN(auto in, Exchange(out));
  uint64_t most = 0;
  for (const auto& v : in) most = std::max(most, v.empty() ? 0 : v[0]);
  return most;
}

Result<std::vector<uint64_t>> Exchanger::Ask(const std::vector<uint64_t>& ids, size_t width, bool by_key,
                                             const std::function<void(uint64_t id, uint64_t* words)>& answer) {
  std::vector<std::vector<uint64_t>> out(static_cast<size_t>(size_));
  std::vector<uint32_t> owner(ids.size());
  std::vector<size_t> position(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    owner[i] = static_cast<uint32_t>(by_key ? OwnerOfKey(ids[i]) : OwnerOfId(ids[i]));
    position[i] = out[owner[i]].size();
    out[owner[i]].push_back(ids[i]);
  }
  NEARDUP_ASSIGN_OR_RETURN(auto asked, Exchange(out));
  std::vector<std::vector<uint64_t>> reply(static_cast<size_t>(size_));
  for (int r = 0; r < size_; ++r) {
    reply[r].resize(asked[r].size() * width);
    for (size_t j = 0; j < asked[r].size(); ++j) answer(asked[r][j], reply[r].data() + j * width);
  }
  NEARDUP_ASSIGN_OR_RETURN(auto answers, Exchange(reply));
  for (int r = 0; r < size_; ++r) {
    if (answers[r].size() != out[r].size() * width) {
      return Status::Corruption("a process answered the wrong number of questions");
    }
  }
  std::vector<uint64_t> result(ids.size() * width);
  for (size_t i = 0; i < ids.size(); ++i) {
    std::copy_n(answers[owner[i]].data() + position[i] * width, width, result.data() + i * width);
  }
  return result;
}

Result<std::vector<uint64_t>> Exchanger::Components(std::vector<KeyAndId> edges) {
  const uint64_t base = this->base(), n = bounds_[rank_ + 1] - base;
  std::vector<uint64_t> parent(n);
  for (uint64_t i = 0; i < n; ++i) parent[i] = base + i;
  auto parent_of = [&](uint64_t id, uint64_t* out) { *out = parent[id - base]; };
  for (;;) {
    std::vector<uint64_t> ends;
    ends.reserve(edges.size() * 2);
    for (const KeyAndId& e : edges) {
      ends.push_back(e.key);
      ends.push_back(e.id);
    }
    NEARDUP_ASSIGN_OR_RETURN(std::vector<uint64_t> roots, Ask(ends, 1, false, parent_of));
    std::vector<std::vector<KeyAndId>> hooks(static_cast<size_t>(size_));  // (root to hook, onto)
    size_t kept = 0;
    for (size_t j = 0; j < edges.size(); ++j) {
      const uint64_t ra = roots[2 * j], rb = roots[2 * j + 1];
      if (ra == rb) continue;  // joined already: the edge is done
      const uint64_t high = std::max(ra, rb), low = std::min(ra, rb);
      hooks[OwnerOfId(high)].push_back({high, low});
      edges[kept++] = edges[j];
    }
    edges.resize(kept);
    NEARDUP_ASSIGN_OR_RETURN(uint64_t open, Sum(kept));
    if (open == 0) break;
    NEARDUP_ASSIGN_OR_RETURN(auto hooked, Exchange(hooks));
    // Each was a root when asked: it hooks onto the smallest root it met.
    for (const auto& from : hooked) {
      for (const KeyAndId& h : from) parent[h.key - base] = std::min(parent[h.key - base], h.id);
    }
    // Pointer jumping until every tree is a star.
    for (;;) {
      std::vector<uint64_t> asked;
      std::vector<size_t> who;
      for (uint64_t i = 0; i < n; ++i) {
        if (parent[i] != base + i) {
          asked.push_back(parent[i]);
          who.push_back(i);
        }
      }
      NEARDUP_ASSIGN_OR_RETURN(std::vector<uint64_t> grand, Ask(asked, 1, false, parent_of));
      uint64_t changed = 0;
      for (size_t j = 0; j < who.size(); ++j) {
        if (grand[j] != parent[who[j]]) {
          parent[who[j]] = grand[j];
          ++changed;
        }
      }
      NEARDUP_ASSIGN_OR_RETURN(uint64_t any, Sum(changed));
      if (any == 0) break;
    }
  }
  return parent;
}

}  // namespace neardup
