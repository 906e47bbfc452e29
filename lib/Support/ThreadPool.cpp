//===- ThreadPool.cpp - A persistent pool for parallel loops ----*- C++ -*-===//
//
// A loop is a queue entry with an atomic cursor over its chunks. Workers
// take the oldest pending loop and claim chunks from it; the caller claims
// chunks from its own loop the same way and then waits only for the chunks
// that workers are already running, which finish without help. A loop whose
// chunks are all claimed leaves the queue.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Support/ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>

namespace graph {

struct ThreadPool::Loop {
  const std::function<void(int64_t, int64_t)> *body;
  int64_t count, chunk, chunks;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> finished{0};
  std::mutex mutex;
  std::condition_variable done;
};

ThreadPool::ThreadPool(int concurrency)
    : concurrency_(std::max(concurrency, 1)) {}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread &worker : workers_)
    worker.join();
}

void ThreadPool::startWorkers() {
  workers_.reserve(concurrency_ - 1);
  for (int i = 1; i < concurrency_; ++i)
    workers_.emplace_back([this] { workerMain(); });
}

void ThreadPool::runChunks(Loop &loop) {
  for (;;) {
    int64_t index = loop.next.fetch_add(1);
    if (index >= loop.chunks)
      return;
    int64_t begin = index * loop.chunk;
    int64_t end = std::min(loop.count, begin + loop.chunk);
    (*loop.body)(begin, end);
    if (loop.finished.fetch_add(1) + 1 == loop.chunks) {
      std::lock_guard<std::mutex> lock(loop.mutex);
      loop.done.notify_all();
    }
  }
}

void ThreadPool::workerMain() {
  for (;;) {
    std::shared_ptr<Loop> loop;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !pending_.empty(); });
      if (stopping_)
        return;
      loop = pending_.front();
      // Every chunk is claimed: the loop leaves the queue.
      if (loop->next.load() >= loop->chunks) {
        pending_.pop_front();
        continue;
      }
    }
    runChunks(*loop);
  }
}

void ThreadPool::parallelFor(int64_t count,
                             const std::function<void(int64_t, int64_t)> &body,
                             int64_t minChunk) {
  if (count <= 0)
    return;
  if (minChunk < 1)
    minChunk = 1;
  int64_t parts = std::min<int64_t>(concurrency_, count / minChunk);
  if (parts < 2) {
    body(0, count);
    return;
  }
  std::call_once(started_, [this] { startWorkers(); });
  auto loop = std::make_shared<Loop>();
  loop->body = &body;
  loop->count = count;
  loop->chunk = (count + parts - 1) / parts;
  loop->chunks = (count + loop->chunk - 1) / loop->chunk;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_.push_back(loop);
  }
  wake_.notify_all();
  runChunks(*loop);
  std::unique_lock<std::mutex> lock(loop->mutex);
  loop->done.wait(lock, [&] { return loop->finished.load() == loop->chunks; });
}

ThreadPool &ThreadPool::global() {
  // Never destroyed: workers may still wait on it while the process exits.
  static ThreadPool *pool = [] {
    int count = 0;
    if (const char *env = std::getenv("GRAPH_REF_THREADS"))
      count = std::atoi(env);
    if (count <= 0) {
      unsigned hw = std::thread::hardware_concurrency();
      count = hw ? static_cast<int>(std::min(hw, 64u)) : 1;
    }
    return new ThreadPool(count);
  }();
  return *pool;
}

void parallelFor(int64_t count,
                 const std::function<void(int64_t, int64_t)> &body,
                 int64_t minChunk) {
  ThreadPool::global().parallelFor(count, body, minChunk);
}

} // namespace graph
