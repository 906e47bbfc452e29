//===- CheckedMath.h - Overflow-checked size arithmetic ---------*- C++ -*-===//
//
// Every element count, byte size, stride and span of a tensor is computed
// here, so that dims near 2^63 never wrap around: a product or sum that does
// not fit in int64_t is std::nullopt, and the caller reports it. Used by the
// verifiers, the passes, the reference executor and the runtime. Header-only
// and free of MLIR and LLVM, so every library can include it.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_SUPPORT_CHECKEDMATH_H
#define GRAPHDIALECT_SUPPORT_CHECKEDMATH_H

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <vector>

namespace graph {

/// The largest byte size a tensor may have: 2^63 - 1, what int64_t holds.
constexpr int64_t kMaxTensorBytes = std::numeric_limits<int64_t>::max();

/// a * b, or nullopt when the product does not fit in int64_t.
inline std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_mul_overflow(a, b, &out))
    return std::nullopt;
  return out;
}

/// a + b, or nullopt when the sum does not fit in int64_t.
inline std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_add_overflow(a, b, &out))
    return std::nullopt;
  return out;
}

/// The product of `dims` (1 for none), or nullopt on overflow. A negative
/// dim (a dynamic one) makes the product nullopt too: ask only of static
/// shapes, or check for dynamic dims first.
template <typename Range>
std::optional<int64_t> checkedElementCount(const Range &dims) {
  int64_t count = 1;
  bool zero = false;
  for (int64_t d : dims) {
    if (d < 0)
      return std::nullopt;
    zero |= d == 0;
    if (zero)
      continue; // 0 x anything is 0, however large the rest
    std::optional<int64_t> next = checkedMul(count, d);
    if (!next)
      return std::nullopt;
    count = *next;
  }
  return zero ? 0 : count;
}

/// Bytes of `elements` elements of `bitWidth` bits each, rounded up to whole
/// bytes per element (an f4 or i1 element takes one byte unpacked), or
/// nullopt on overflow.
inline std::optional<int64_t> checkedByteSize(int64_t elements,
                                              int64_t bitWidth) {
  if (elements < 0 || bitWidth < 0)
    return std::nullopt;
  return checkedMul(elements, (bitWidth + 7) / 8);
}

/// Row-major strides (in elements) of static `dims`, size-0 and size-1 dims
/// stepping as 1, or nullopt when a stride overflows.
template <typename Range>
std::optional<std::vector<int64_t>> checkedRowMajorStrides(const Range &dims) {
  std::vector<int64_t> in(std::begin(dims), std::end(dims));
  std::vector<int64_t> strides(in.size(), 1);
  int64_t running = 1;
  for (size_t i = in.size(); i-- > 0;) {
    strides[i] = running;
    if (i == 0)
      break;
    std::optional<int64_t> next = checkedMul(running, in[i] > 1 ? in[i] : 1);
    if (!next)
      return std::nullopt;
    running = *next;
  }
  return strides;
}

/// Elements a strided buffer must hold, 1 + sum((dim - 1) * stride) (0 when
/// a dim is 0), or nullopt on overflow or a negative dim or stride.
template <typename DimRange, typename StrideRange>
std::optional<int64_t> checkedSpan(const DimRange &dims,
                                   const StrideRange &strides) {
  std::vector<int64_t> d(std::begin(dims), std::end(dims));
  std::vector<int64_t> s(std::begin(strides), std::end(strides));
  if (d.size() != s.size())
    return std::nullopt;
  for (size_t i = 0; i < d.size(); ++i) {
    if (d[i] < 0 || s[i] < 0)
      return std::nullopt;
    if (d[i] == 0)
      return 0;
  }
  int64_t last = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    std::optional<int64_t> step = checkedMul(d[i] - 1, s[i]);
    if (!step)
      return std::nullopt;
    std::optional<int64_t> sum = checkedAdd(last, *step);
    if (!sum)
      return std::nullopt;
    last = *sum;
  }
  return checkedAdd(last, 1);
}

} // namespace graph

#endif // GRAPHDIALECT_SUPPORT_CHECKEDMATH_H
