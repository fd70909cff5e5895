// Copyright neardup authors. Licensed under Apache-2.0.
#include "text/token_diff.h"

#include <optional>
#include <utility>

#include "neardup/status.h"

namespace neardup {

namespace {

using Kind = DiffRun::Kind;

// Edit-script builder: Myers' linear-space recursion over [a0, a1) x [b0, b1)
// (absolute indices), emitting operations in order.
class Differ {
 public:
  struct Op {
    Kind kind;
    int64_t len;
  };

  Differ(std::span<const uint64_t> a, std::span<const uint64_t> b) : a_(a), b_(b) {}

  std::vector<Op>& ops() { return ops_; }
  uint64_t edits() const { return edits_; }

  void Emit(Kind kind, int64_t len) {
    if (len <= 0) return;
    if (!ops_.empty() && ops_.back().kind == kind) {
      ops_.back().len += len;
    } else {
      ops_.push_back({kind, len});
    }
    if (kind != Kind::kEqual) edits_ += static_cast<uint64_t>(len);
  }

  // Lengths of the common prefix and (of what remains) common suffix.
  std::pair<int64_t, int64_t> Trim(int64_t a0, int64_t a1, int64_t b0, int64_t b1) const {
    int64_t p = 0;
    while (a0 + p < a1 && b0 + p < b1 && a_[a0 + p] == b_[b0 + p]) ++p;
    int64_t s = 0;
    while (a1 - s > a0 + p && b1 - s > b0 + p && a_[a1 - s - 1] == b_[b1 - s - 1]) ++s;
    return {p, s};
  }

  // A minimal diff of the ranges.
  void Diff(int64_t a0, int64_t a1, int64_t b0, int64_t b1) {
    auto [p, s] = Trim(a0, a1, b0, b1);
    Emit(Kind::kEqual, p);
    Middle(a0 + p, a1 - s, b0 + p, b1 - s, -1);
    Emit(Kind::kEqual, s);
  }

  // Ranges whose first terms differ and whose last terms differ. With
  // max_iterations >= 0 the middle-snake search gives up after that many
  // rounds and the ranges become one delete + one insert.
  void Middle(int64_t a0, int64_t a1, int64_t b0, int64_t b1, int64_t max_iterations) {
    if (a0 == a1) return Emit(Kind::kInsert, b1 - b0);
    if (b0 == b1) return Emit(Kind::kDelete, a1 - a0);
    const std::optional<std::pair<int64_t, int64_t>> split = Bisect(a0, a1, b0, b1, max_iterations);
    if (!split) {
      Emit(Kind::kDelete, a1 - a0);
      Emit(Kind::kInsert, b1 - b0);
      return;
    }
    const auto [x, y] = *split;
    NEARDUP_CHECK((x > a0 || y > b0) && (x < a1 || y < b1));  // progress
    Diff(a0, x, b0, y);
    Diff(x, a1, y, b1);
  }

 private:
  // Myers §4b: runs the forward and the reverse greedy search at once, d
  // edits each round, until the furthest-reaching paths overlap; returns the
  // end of the forward path there (absolute indices), which lies on a
  // minimal edit path. Returns nothing when the ranges share no term, or
  // when max_iterations (>= 0) rounds pass without an overlap.
  std::optional<std::pair<int64_t, int64_t>> Bisect(int64_t a0, int64_t a1, int64_t b0, int64_t b1,
                                                    int64_t max_iterations) {
    const int64_t n = a1 - a0, m = b1 - b0;
    int64_t max_d = (n + m + 1) / 2;
    if (max_iterations >= 0 && max_iterations < max_d) max_d = max_iterations;
    const int64_t offset = max_d + 1;
    const int64_t length = 2 * offset + 2;
    // v1[offset + k]: furthest x on diagonal k = x - y of the forward search;
    // v2 likewise, measured from the ends, for the reverse search.
    std::vector<int64_t> v1(length, -1), v2(length, -1);
    v1[offset + 1] = 0;
    v2[offset + 1] = 0;
    const int64_t delta = n - m;
    const bool front = (delta % 2) != 0;  // overlap is checked on the forward pass
    int64_t k1start = 0, k1end = 0, k2start = 0, k2end = 0;
    for (int64_t d = 0; d < max_d; ++d) {
      for (int64_t k1 = -d + k1start; k1 <= d - k1end; k1 += 2) {
        const int64_t k1o = offset + k1;
        int64_t x1 = (k1 == -d || (k1 != d && v1[k1o - 1] < v1[k1o + 1])) ? v1[k1o + 1]
                                                                          : v1[k1o - 1] + 1;
        int64_t y1 = x1 - k1;
        while (x1 < n && y1 < m && a_[a0 + x1] == b_[b0 + y1]) {
          ++x1;
          ++y1;
        }
        v1[k1o] = x1;
        if (x1 > n) {
          k1end += 2;  // ran off the right of the grid
        } else if (y1 > m) {
          k1start += 2;  // ran off the bottom
        } else if (front) {
          const int64_t k2o = offset + delta - k1;
          if (k2o >= 0 && k2o < length && v2[k2o] != -1 && x1 >= n - v2[k2o]) {
            return std::make_pair(a0 + x1, b0 + y1);
          }
        }
      }
      for (int64_t k2 = -d + k2start; k2 <= d - k2end; k2 += 2) {
        const int64_t k2o = offset + k2;
        int64_t x2 = (k2 == -d || (k2 != d && v2[k2o - 1] < v2[k2o + 1])) ? v2[k2o + 1]
                                                                          : v2[k2o - 1] + 1;
        int64_t y2 = x2 - k2;
        while (x2 < n && y2 < m && a_[a1 - x2 - 1] == b_[b1 - y2 - 1]) {
          ++x2;
          ++y2;
        }
        v2[k2o] = x2;
        if (x2 > n) {
          k2end += 2;
        } else if (y2 > m) {
          k2start += 2;
        } else if (!front) {
          const int64_t k1o = offset + delta - k2;
          if (k1o >= 0 && k1o < length && v1[k1o] != -1) {
            const int64_t x1 = v1[k1o];
            const int64_t y1 = offset + x1 - k1o;
            if (x1 >= n - x2) return std::make_pair(a0 + x1, b0 + y1);
          }
        }
      }
    }
    return std::nullopt;
  }

  std::span<const uint64_t> a_, b_;
  std::vector<Op> ops_;
  uint64_t edits_ = 0;
};

}  // namespace

TokenDiff DiffTerms(std::span<const uint64_t> a, std::span<const uint64_t> b,
                    uint32_t max_edit_distance) {
  NEARDUP_CHECK(a.size() < (uint64_t{1} << 31) && b.size() < (uint64_t{1} << 31));
  const int64_t n = static_cast<int64_t>(a.size()), m = static_cast<int64_t>(b.size());
  Differ differ(a, b);
  auto [p, s] = differ.Trim(0, n, 0, m);
  differ.Emit(Kind::kEqual, p);

  // The middle, under the cap. Each search round adds at most two edits, so
  // cap/2 + 2 rounds find every split of a middle with D <= cap; a middle
  // found with D > cap anyway is replaced by the fallback as well.
  const size_t saved_size = differ.ops().size();
  const std::optional<Differ::Op> saved_back =
      saved_size ? std::optional<Differ::Op>(differ.ops().back()) : std::nullopt;
  const uint64_t saved_edits = differ.edits();
  differ.Middle(p, n - s, p, m - s, static_cast<int64_t>(max_edit_distance / 2) + 2);
  if (differ.edits() - saved_edits > max_edit_distance) {
    differ.ops().resize(saved_size);
    if (saved_back) differ.ops().back() = *saved_back;
    differ.Emit(Kind::kDelete, n - s - p);
    differ.Emit(Kind::kInsert, m - s - p);
  }
  differ.Emit(Kind::kEqual, s);

  // Canonical runs: between equal runs, deletes first, then inserts.
  TokenDiff out;
  uint32_t ai = 0, bi = 0;
  int64_t pending_delete = 0, pending_insert = 0;
  auto flush = [&] {
    if (pending_delete > 0) {
      const uint32_t end = ai + static_cast<uint32_t>(pending_delete);
      out.runs.push_back({Kind::kDelete, ai, end, bi, bi});
      ai = end;
    }
    if (pending_insert > 0) {
      const uint32_t end = bi + static_cast<uint32_t>(pending_insert);
      out.runs.push_back({Kind::kInsert, ai, ai, bi, end});
      bi = end;
    }
    out.term_difference += static_cast<uint64_t>(pending_delete + pending_insert);
    pending_delete = pending_insert = 0;
  };
  for (const Differ::Op& op : differ.ops()) {
    if (op.kind == Kind::kDelete) {
      pending_delete += op.len;
    } else if (op.kind == Kind::kInsert) {
      pending_insert += op.len;
    } else {
      flush();
      const uint32_t len = static_cast<uint32_t>(op.len);
      if (!out.runs.empty() && out.runs.back().kind == Kind::kEqual) {
        out.runs.back().a_end += len;
        out.runs.back().b_end += len;
      } else {
        out.runs.push_back({Kind::kEqual, ai, ai + len, bi, bi + len});
      }
      ai += len;
      bi += len;
    }
  }
  flush();
  NEARDUP_CHECK(ai == a.size() && bi == b.size());
  return out;
}

}  // namespace neardup
