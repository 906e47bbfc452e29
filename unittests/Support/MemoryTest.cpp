//===- MemoryTest.cpp - host memory checks before large allocations -------===//

#include "GraphDialect/Support/Memory.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

using namespace graph;

namespace {

/// Sets GRAPH_HOST_MEMORY_LIMIT for one test and restores it after.
struct LimitGuard {
  std::string saved;
  bool had = false;
  explicit LimitGuard(const char *value) {
    if (const char *old = std::getenv("GRAPH_HOST_MEMORY_LIMIT")) {
      had = true;
      saved = old;
    }
    if (value)
      setenv("GRAPH_HOST_MEMORY_LIMIT", value, 1);
    else
      unsetenv("GRAPH_HOST_MEMORY_LIMIT");
  }
  ~LimitGuard() {
    if (had)
      setenv("GRAPH_HOST_MEMORY_LIMIT", saved.c_str(), 1);
    else
      unsetenv("GRAPH_HOST_MEMORY_LIMIT");
  }
};

TEST(HostMemory, EnvironmentLimit) {
  LimitGuard guard("1000");
  EXPECT_EQ(availableHostMemory(), 1000);
  EXPECT_EQ(hostMemorySource(), "GRAPH_HOST_MEMORY_LIMIT");
  EXPECT_EQ(checkHostAllocation(1000, "x"), "");
  EXPECT_EQ(checkHostAllocation(1001, "input uid 3 \"x\""),
            "input uid 3 \"x\" needs 1001 bytes but only 1000 bytes of host "
            "memory are available (GRAPH_HOST_MEMORY_LIMIT)");
}

TEST(HostMemory, OverflowedSizeIsRefused) {
  LimitGuard guard(nullptr);
  std::string error = checkHostAllocation(std::nullopt, "output 0");
  EXPECT_EQ(error,
            "output 0 needs more than 2^63 bytes (its size overflows 64 bits)");
}

TEST(HostMemory, SystemLimit) {
  LimitGuard guard(nullptr);
  std::optional<int64_t> available = availableHostMemory();
  ASSERT_TRUE(available.has_value()); // Linux: /proc/meminfo or sysconf
  EXPECT_GT(*available, 0);
  // Small buffers are never refused; 2^62 bytes always is.
  EXPECT_EQ(checkHostAllocation(4096, "x"), "");
  std::string error = checkHostAllocation(int64_t(1) << 62, "x");
  EXPECT_NE(error.find("x needs 4611686018427387904 bytes but only"),
            std::string::npos)
      << error;
}

TEST(HostMemory, BudgetCountsTheTotal) {
  LimitGuard guard("1000");
  HostMemoryBudget budget;
  EXPECT_EQ(budget.reserve(600, "a"), "");
  EXPECT_EQ(budget.held(), 600);
  // 600 fits alone, not on top of a.
  EXPECT_EQ(budget.reserve(600, "b"),
            "b needs 600 bytes but only 400 bytes of host memory are "
            "available (GRAPH_HOST_MEMORY_LIMIT: 1000 bytes, 600 of them "
            "already held by this run)");
  EXPECT_EQ(budget.held(), 600); // a refused buffer is not counted
  EXPECT_EQ(budget.reserve(400, "c"), "");
  EXPECT_EQ(budget.held(), 1000);
  EXPECT_EQ(budget.reserve(std::nullopt, "d"),
            "d needs more than 2^63 bytes (its size overflows 64 bits)");
}

TEST(HostMemory, BudgetHeldBuffers) {
  LimitGuard guard("1000");
  HostMemoryBudget budget;
  budget.hold(900); // e.g. the caller's inputs: counted, never refused
  budget.hold(900);
  EXPECT_EQ(budget.held(), 1800);
  EXPECT_EQ(budget.reserve(1, "x"),
            "x needs 1 bytes but only 0 bytes of host memory are available "
            "(GRAPH_HOST_MEMORY_LIMIT: 1000 bytes, 1800 of them already held "
            "by this run)");
}

TEST(HostMemory, BudgetFirstBufferKeepsTheMessage) {
  LimitGuard guard("1000");
  HostMemoryBudget budget;
  EXPECT_EQ(budget.reserve(1001, "x"),
            checkHostAllocation(1001, "x")); // nothing held yet: same words
}

TEST(HostMemory, BudgetWithoutLimitSkipsSmallTotals) {
  LimitGuard guard(nullptr);
  HostMemoryBudget budget;
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(budget.reserve(4096, "x"), "");
  EXPECT_EQ(budget.held(), 409600);
  std::string error = budget.reserve(int64_t(1) << 62, "big");
  EXPECT_NE(error.find("big needs 4611686018427387904 bytes but only"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("409600 of them already held by this run"),
            std::string::npos)
      << error;
}

TEST(HostMemory, MalformedLimitIsIgnored) {
  LimitGuard guard("12abc");
  EXPECT_NE(hostMemorySource(), "GRAPH_HOST_MEMORY_LIMIT");
}

} // namespace
