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

} // namespace graph

#endif // GRAPHDIALECT_SUPPORT_MEMORY_H
