//===- Uid.h - The range of tensor uids -------------------------*- C++ -*-===//
//
// Tensor uids are int64 values >= 0, as in the frontend, except the two
// largest: LLVM's hash maps, which the verifiers and lowerings key by uid,
// reserve them (their empty and tombstone keys). Header-only, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_SUPPORT_UID_H
#define GRAPHDIALECT_SUPPORT_UID_H

#include <cstdint>
#include <limits>

namespace graph {

/// The largest tensor uid: 2^63 - 3.
constexpr int64_t kMaxUid = std::numeric_limits<int64_t>::max() - 2;

} // namespace graph

#endif // GRAPHDIALECT_SUPPORT_UID_H
