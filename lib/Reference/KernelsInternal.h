//===- KernelsInternal.h - Private helpers of the kernels ----*- C++ -*-===//
//
// Index walking shared by the Kernels*.cpp files (and free for the other
// reference kernels to use). Not installed, not part of the API.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_LIB_REFERENCE_KERNELSINTERNAL_H
#define GRAPHDIALECT_LIB_REFERENCE_KERNELSINTERNAL_H

#include "GraphDialect/Reference/Kernels.h"

#include <array>
#include <functional>

namespace graph::ref::detail {

/// fn(i) for every i in [0, count), on the reference's worker threads
/// (parallelFor's chunks); fn must be safe to call concurrently.
inline void parallelForEach(int64_t count,
                            const std::function<void(int64_t)> &fn) {
  parallelFor(count, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      fn(i);
  });
}

/// Walks `shape` in row-major order from `begin` to `end` (linear indices),
/// keeping K offsets that advance by their own strides. Calls
/// body(linear, offsets) for each element.
template <size_t K, typename Body>
void walk(const Shape &shape, const std::array<const Shape *, K> &strides,
          int64_t begin, int64_t end, Body body) {
  size_t rank = shape.size();
  std::vector<int64_t> index(rank, 0);
  std::array<int64_t, K> offsets{};
  int64_t rest = begin;
  for (size_t d = rank; d-- > 0;) {
    int64_t extent = shape[d];
    index[d] = extent ? rest % extent : 0;
    rest = extent ? rest / extent : 0;
    for (size_t k = 0; k < K; ++k)
      offsets[k] += index[d] * (*strides[k])[d];
  }
  for (int64_t linear = begin; linear < end; ++linear) {
    body(linear, offsets);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < shape[d]) {
        for (size_t k = 0; k < K; ++k)
          offsets[k] += (*strides[k])[d];
        break;
      }
      for (size_t k = 0; k < K; ++k)
        offsets[k] -= (shape[d] - 1) * (*strides[k])[d];
      index[d] = 0;
    }
  }
}

/// Normalizes a possibly negative axis; false when out of range.
bool normalizeAxis(int64_t axis, int64_t rank, int64_t &out);

} // namespace graph::ref::detail

#endif // GRAPHDIALECT_LIB_REFERENCE_KERNELSINTERNAL_H
