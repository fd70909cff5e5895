// Copyright neardup authors. Licensed under Apache-2.0.
//
// RunTasks: tasks 0 .. count - 1 run on an executor's threads and on the
// calling thread, which returns when every task has run. The calling thread
// takes tasks too, so that a call made from one of the executor's own
// workers (or while they are busy) still finishes: helpers that start late
// find no task left and return without touching the caller's state.
// SortOnThreads: std::sort's order, parts sorted as such tasks, then merged.
// WorkPool: the per-thread work objects of such tasks, reused.
#ifndef NEARDUP_ENGINE_PARALLEL_H_
#define NEARDUP_ENGINE_PARALLEL_H_

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "neardup/executor.h"

namespace neardup {

// fn(task) for every task in [0, count), each once, in no particular order
// across threads. Without an executor (or with one task) they run here, in
// order. fn must not throw.
inline void RunTasks(Executor* executor, size_t count, const std::function<void(size_t)>& fn) {
  if (executor == nullptr || count < 2) {
    for (size_t t = 0; t < count; ++t) fn(t);
    return;
  }
  struct State {
    std::atomic<size_t> next{0};
    size_t count = 0;
    const std::function<void(size_t)>* fn = nullptr;  // valid while a task is unfinished
    std::mutex mu;
    std::condition_variable cv;
    size_t done = 0;
  };
  auto state = std::make_shared<State>();
  state->count = count;
  state->fn = &fn;
  auto work = [](State* s) {
    for (size_t t = s->next.fetch_add(1); t < s->count; t = s->next.fetch_add(1)) {
      (*s->fn)(t);
      std::lock_guard<std::mutex> lock(s->mu);
      if (++s->done == s->count) s->cv.notify_all();
    }
  };
  const int helpers = static_cast<int>(std::min<size_t>(static_cast<size_t>(executor->num_threads()), count - 1));  // and this thread
  for (int h = 0; h < helpers; ++h) executor->Schedule([state, work] { work(state.get()); });
  work(state.get());
  std::unique_lock<std::mutex> lock(state->mu);
  state->cv.wait(lock, [&] { return state->done == state->count; });
}

// Sorts *v by operator< into the order std::sort leaves (equal elements are
// indistinguishable to it), on the executor's threads and the calling
// thread: a power of two of parts at least the threads sorted at once, then
// merged two by two, a round's merges at once. It holds a second vector of
// v's size while it merges. Without an executor, or below kSortOnThreadsFrom
// elements, std::sort here.
inline constexpr size_t kSortOnThreadsFrom = size_t{1} << 14;
template <typename T>
void SortOnThreads(std::vector<T>* v, Executor* executor) {
  const size_t n = v->size();
  const size_t threads = executor != nullptr ? static_cast<size_t>(executor->num_threads()) + 1 : 1;
  if (threads < 2 || n < kSortOnThreadsFrom) {
    std::sort(v->begin(), v->end());
    return;
  }
  size_t parts = 2;
  while (parts < threads) parts *= 2;
  std::vector<size_t> bound(parts + 1);
  for (size_t k = 0; k <= parts; ++k) bound[k] = n * k / parts;
  RunTasks(executor, parts, [&](size_t k) { std::sort(v->begin() + bound[k], v->begin() + bound[k + 1]); });
  std::vector<T> merged(n);
  for (size_t width = 1; width < parts; width *= 2) {
    RunTasks(executor, parts / (2 * width), [&](size_t k) {
      const size_t a = bound[2 * width * k], mid = bound[2 * width * k + width], e = bound[2 * width * (k + 1)];
      std::merge(v->begin() + a, v->begin() + mid, v->begin() + mid, v->begin() + e, merged.begin() + a);
    });
    v->swap(merged);
  }
}

// A free list of work objects (a tokenizer, scratch buffers) for tasks on
// several threads: Acquire() hands out a free one, or one made by `make`;
// Release() keeps it for the next task. Thread-safe.
template <typename T>
class WorkPool {
 public:
  explicit WorkPool(std::function<std::unique_ptr<T>()> make) : make_(std::move(make)) {}
  std::unique_ptr<T> Acquire() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!free_.empty()) {
        auto t = std::move(free_.back());
        free_.pop_back();
        return t;
      }
    }
    return make_();
  }
  void Release(std::unique_ptr<T> t) {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(std::move(t));
  }
  // Every object made so far; none may be in use (not thread-safe).
  std::vector<std::unique_ptr<T>>& all() { return free_; }

 private:
  std::function<std::unique_ptr<T>()> make_;
  std::mutex mu_;
  std::vector<std::unique_ptr<T>> free_;
};

}  // namespace neardup

#endif  // NEARDUP_ENGINE_PARALLEL_H_
