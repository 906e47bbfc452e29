//===- ThreadPoolTest.cpp - The persistent pool ---------------------------===//

#include "GraphDialect/Support/ThreadPool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

using namespace graph;

namespace {

TEST(ThreadPool, CoversEveryIndexOnce) {
  ThreadPool pool(4);
  for (int64_t count : {1, 2, 3, 7, 1000}) {
    std::vector<std::atomic<int>> hits(count);
    pool.parallelFor(count, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        hits[i]++;
    });
    for (int64_t i = 0; i < count; ++i)
      EXPECT_EQ(hits[i].load(), 1) << "count " << count << " index " << i;
  }
  pool.parallelFor(0, [&](int64_t, int64_t) { FAIL(); });
  pool.parallelFor(-5, [&](int64_t, int64_t) { FAIL(); });
}

TEST(ThreadPool, ChunksAreEqualAndOrdered) {
  ThreadPool pool(4);
  std::mutex mutex;
  std::set<std::pair<int64_t, int64_t>> ranges;
  pool.parallelFor(10, [&](int64_t b, int64_t e) {
    std::lock_guard<std::mutex> lock(mutex);
    ranges.insert({b, e});
  });
  // ceil(10 / 4) = 3: [0,3) [3,6) [6,9) [9,10).
  EXPECT_EQ(ranges, (std::set<std::pair<int64_t, int64_t>>{
                        {0, 3}, {3, 6}, {6, 9}, {9, 10}}));
  // minChunk bounds the number of chunks: 10 / 5 = 2.
  ranges.clear();
  pool.parallelFor(
      10,
      [&](int64_t b, int64_t e) {
        std::lock_guard<std::mutex> lock(mutex);
        ranges.insert({b, e});
      },
      5);
  EXPECT_EQ(ranges, (std::set<std::pair<int64_t, int64_t>>{{0, 5}, {5, 10}}));
}

TEST(ThreadPool, InlineWhenSingleThreaded) {
  ThreadPool pool(1);
  EXPECT_EQ(pool.concurrency(), 1);
  std::thread::id caller = std::this_thread::get_id();
  int calls = 0;
  pool.parallelFor(100, [&](int64_t b, int64_t e) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    EXPECT_EQ(b, 0);
    EXPECT_EQ(e, 100);
    ++calls;
  });
  EXPECT_EQ(calls, 1);
}

TEST(ThreadPool, WorkersPersistAcrossLoops) {
  ThreadPool pool(3);
  std::mutex mutex;
  std::set<std::thread::id> first, later;
  // Enough loops that every worker has run a chunk at least once.
  for (int round = 0; round < 200; ++round)
    pool.parallelFor(3, [&](int64_t, int64_t) {
      std::lock_guard<std::mutex> lock(mutex);
      (round < 100 ? first : later).insert(std::this_thread::get_id());
    });
  // Caller plus at most two workers, the same threads every time.
  std::set<std::thread::id> all = first;
  all.insert(later.begin(), later.end());
  EXPECT_LE(all.size(), 3u);
}

TEST(ThreadPool, NestedAndConcurrentCallsFinish) {
  ThreadPool pool(3);
  std::atomic<int64_t> sum{0};
  auto work = [&] {
    pool.parallelFor(8, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        pool.parallelFor(16, [&](int64_t ib, int64_t ie) { sum += ie - ib; });
    });
  };
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t)
    callers.emplace_back(work);
  for (std::thread &t : callers)
    t.join();
  EXPECT_EQ(sum.load(), 4 * 8 * 16);
}

TEST(ThreadPool, GlobalPoolRuns) {
  EXPECT_GE(ThreadPool::global().concurrency(), 1);
  std::atomic<int64_t> sum{0};
  parallelFor(1000, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      sum += i;
  });
  EXPECT_EQ(sum.load(), 999 * 1000 / 2);
}

} // namespace
