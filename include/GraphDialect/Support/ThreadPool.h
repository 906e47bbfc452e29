//===- ThreadPool.h - A persistent pool for parallel loops ------*- C++ -*-===//
//
// The CPU reference's kernels split their outer loops over worker threads.
// The workers are started once, on the first loop that needs them, and wait
// for the next loop; the thread that calls parallelFor works on its own loop
// too, taking chunks until none is left, so a loop always finishes even when
// every worker is busy (a nested call, or several threads calling at once).
// Nothing here depends on MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_SUPPORT_THREADPOOL_H
#define GRAPHDIALECT_SUPPORT_THREADPOOL_H

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace graph {

class ThreadPool {
public:
  /// A pool whose loops run on `concurrency` threads: the caller and
  /// `concurrency - 1` workers (none when concurrency <= 1), started on
  /// first use.
  explicit ThreadPool(int concurrency);
  /// Stops and joins the workers. No loop may be running.
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  /// Threads a loop may run on, the caller included.
  int concurrency() const { return concurrency_; }

  /// Runs body(begin, end) over [0, count) split into min(concurrency,
  /// count / minChunk) contiguous chunks of equal size (the last one
  /// shorter), and returns when all have run. Runs inline when that is fewer
  /// than two chunks. `body` must be safe to call concurrently on disjoint
  /// ranges; it may call parallelFor itself.
  void parallelFor(int64_t count,
                   const std::function<void(int64_t, int64_t)> &body,
                   int64_t minChunk = 1);

  /// The process's pool: hardware concurrency (at most 64), or
  /// GRAPH_REF_THREADS when set to a positive number.
  static ThreadPool &global();

private:
  struct Loop;

  void startWorkers();
  void workerMain();
  /// Runs chunks of `loop` until none is left to take.
  static void runChunks(Loop &loop);

  int concurrency_;
  std::once_flag started_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Loop>> pending_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

/// ThreadPool::global().parallelFor(count, body, minChunk).
void parallelFor(int64_t count,
                 const std::function<void(int64_t, int64_t)> &body,
                 int64_t minChunk = 1);

} // namespace graph

#endif // GRAPHDIALECT_SUPPORT_THREADPOOL_H
