// Copyright neardup authors. Licensed under Apache-2.0.
//
// Executor: the library never spawns threads of its own; callers hand it an
// executor (usearch's style). NewThreadPoolExecutor() gives a fixed pool.
#ifndef NEARDUP_EXECUTOR_H_
#define NEARDUP_EXECUTOR_H_

#include <functional>
#include <memory>

namespace neardup {

class Executor {
 public:
  virtual ~Executor() = default;
  // Runs `task` on some worker thread, eventually. Thread-safe. Tasks must
  // not throw.
  virtual void Schedule(std::function<void()> task) = 0;
  // Number of worker threads (>= 1).
  virtual int num_threads() const = 0;
};

// A pool of `num_threads` workers (>= 1) with a FIFO queue. The destructor
// finishes queued tasks and joins the workers.
std::unique_ptr<Executor> NewThreadPoolExecutor(int num_threads);

// The executor for work on `threads` threads in all, where the calling
// thread works too (Deduper::Add and AddFrom sign batches on it while they
// would wait; the stages after reading run tasks on it): a pool of
// threads - 1 workers, or nullptr for one thread (everything inline).
std::unique_ptr<Executor> NewExecutorForThreads(int threads);

// The CPUs this process may run on (>= 1): its affinity mask where the
// system has one (taskset, a container's cpuset, mpirun binding each rank
// to a core), else std::thread::hardware_concurrency(). The default
// thread count of every command.
int UsableCpus();

}  // namespace neardup

#endif  // NEARDUP_EXECUTOR_H_
