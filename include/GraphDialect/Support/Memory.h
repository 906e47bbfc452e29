//===- Memory.h - Host memory checks before large allocations ---*- C++ -*-===//
//
// Before the tools or the reference executor allocate a buffer whose size
// comes from the user (an input's dims, a dynamic dim bound at run time, an
// intermediate of the reference), they ask checkHostAllocation whether it can
// fit; a buffer that cannot is a one-line error naming what it is for, the
// bytes it needs and the limit, instead of the allocator's abort. Nothing
// here depends on MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_SUPPORT_MEMORY_H
#define GRAPHDIALECT_SUPPORT_MEMORY_H

#include <cstdint>
#include <optional>
#include <string>

namespace graph {

/// Bytes the process may still allocate on the host: the environment's
/// GRAPH_HOST_MEMORY_LIMIT (bytes) when set, else /proc/meminfo's
/// MemAvailable, else the available physical pages (sysconf). nullopt when
/// none of them is known.
std::optional<int64_t> availableHostMemory();

/// Where the limit availableHostMemory() returned comes from, for messages:
/// "GRAPH_HOST_MEMORY_LIMIT", "MemAvailable" or "available physical pages".
std::string hostMemorySource();

/// "" when `bytes` (nullopt: a size that overflowed 64 bits) can be
/// allocated, else "WHAT needs N bytes but only M bytes of host memory are
/// available (SOURCE)". Without GRAPH_HOST_MEMORY_LIMIT, buffers below
/// 16 MiB are not checked, so the check costs nothing for the common small
/// tensor.
std::string checkHostAllocation(std::optional<int64_t> bytes,
                                const std::string &what);

/// The host memory one run allocates, as a running total (its inputs,
/// intermediates and outputs), checked against what the host had available
/// (availableHostMemory(), read once, when the total first reaches 16 MiB or
/// at the first check when GRAPH_HOST_MEMORY_LIMIT is set). Each buffer may
/// fit on its own while all of them together do not: the one that no longer
/// fits is the error.
class HostMemoryBudget {
public:
  /// "" and `bytes` (nullopt: a size that overflowed 64 bits) added to the
  /// total when they fit in what is left, else "WHAT needs N bytes but only
  /// M bytes of host memory are available (SOURCE)" with M what is left,
  /// followed by how much of the limit the run already holds when it holds
  /// any: "(SOURCE: L bytes, U of them already held by this run)".
  std::string reserve(std::optional<int64_t> bytes, const std::string &what);
  /// Adds `bytes` the run already holds (e.g. the caller's input buffers)
  /// to the total without a check.
  void hold(int64_t bytes);
  /// The running total.
  int64_t held() const { return total; }

private:
  int64_t total = 0;
  bool limitRead = false;
  std::optional<int64_t> limit;
};

} // namespace graph

#endif // GRAPHDIALECT_SUPPORT_MEMORY_H
