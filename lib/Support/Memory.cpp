//===- Memory.cpp - Host memory checks before large allocations -----------===//
//
// See Memory.h.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Support/Memory.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace graph {

namespace {

constexpr const char *kLimitVariable = "GRAPH_HOST_MEMORY_LIMIT";
/// Buffers below this are not checked unless the limit is set explicitly.
constexpr int64_t kUncheckedBytes = int64_t(16) << 20;

/// The environment's limit, when it is set to a plain non-negative integer.
std::optional<int64_t> limitFromEnvironment() {
  const char *text = std::getenv(kLimitVariable);
  if (!text || !*text)
    return std::nullopt;
  char *end = nullptr;
  errno = 0;
  long long value = std::strtoll(text, &end, 10);
  if (errno || *end || value < 0)
    return std::nullopt;
  return static_cast<int64_t>(value);
}

/// MemAvailable of /proc/meminfo in bytes (Linux 3.14+).
std::optional<int64_t> memAvailable() {
  std::FILE *file = std::fopen("/proc/meminfo", "r");
  if (!file)
    return std::nullopt;
  char line[256];
  std::optional<int64_t> result;
  while (std::fgets(line, sizeof(line), file)) {
    long long kib;
    if (std::sscanf(line, "MemAvailable: %lld kB", &kib) == 1 && kib >= 0) {
      result = static_cast<int64_t>(kib) * 1024;
      break;
    }
  }
  std::fclose(file);
  return result;
}

std::optional<int64_t> availablePhysicalPages() {
#ifdef _SC_AVPHYS_PAGES
  long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  if (pages > 0 && size > 0)
    return static_cast<int64_t>(pages) * size;
#endif
  return std::nullopt;
}

} // namespace

std::optional<int64_t> availableHostMemory() {
  if (std::optional<int64_t> limit = limitFromEnvironment())
    return limit;
  if (std::optional<int64_t> available = memAvailable())
    return available;
  return availablePhysicalPages();
}

std::string hostMemorySource() {
  if (limitFromEnvironment())
    return kLimitVariable;
  if (memAvailable())
    return "MemAvailable";
  return "available physical pages";
}

std::string checkHostAllocation(std::optional<int64_t> bytes,
                                const std::string &what) {
  if (!bytes)
    return what + " needs more than 2^63 bytes (its size overflows 64 bits)";
  bool explicitLimit = limitFromEnvironment().has_value();
  if (*bytes < kUncheckedBytes && !explicitLimit)
    return "";
  std::optional<int64_t> available = availableHostMemory();
  if (!available || *bytes <= *available)
    return "";
  return what + " needs " + std::to_string(*bytes) + " bytes but only " +
         std::to_string(*available) + " bytes of host memory are available (" +
         hostMemorySource() + ")";
}

std::string HostMemoryBudget::reserve(std::optional<int64_t> bytes,
                                      const std::string &what) {
  if (!bytes)
    return what + " needs more than 2^63 bytes (its size overflows 64 bits)";
  int64_t after = *bytes > INT64_MAX - total ? INT64_MAX : total + *bytes;
  if (!limitRead) {
    if (after < kUncheckedBytes && !limitFromEnvironment()) {
      total = after;
      return "";
    }
    limit = availableHostMemory();
    limitRead = true;
  }
  if (!limit || after <= *limit) {
    total = after;
    return "";
  }
  int64_t left = total < *limit ? *limit - total : 0;
  std::string source = hostMemorySource();
  if (total > 0)
    source += ": " + std::to_string(*limit) + " bytes, " +
              std::to_string(total) + " of them already held by this run";
  return what + " needs " + std::to_string(*bytes) + " bytes but only " +
         std::to_string(left) + " bytes of host memory are available (" +
         source + ")";
}

void HostMemoryBudget::hold(int64_t bytes) {
  total = bytes > INT64_MAX - total ? INT64_MAX : total + bytes;
}

} // namespace graph
