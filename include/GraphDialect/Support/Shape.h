//===- Shape.h - Dims, strides and broadcasting -----------------*- C++ -*-===//
//
// Shapes and strides as plain vectors of int64_t, with the helpers every
// layer needs: element counts and packed strides by CheckedMath.h (a count or
// stride past 2^63 - 1 saturates there instead of wrapping), layout checks,
// spans, reshape views and numpy broadcasting. Nothing here depends on MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_SUPPORT_SHAPE_H
#define GRAPHDIALECT_SUPPORT_SHAPE_H

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace graph {

using Shape = std::vector<int64_t>;

/// A dim not known before execution: MLIR's ShapedType::kDynamic, so shapes
/// taken from MLIR types keep their '?' dims.
constexpr int64_t kDynamicDim = std::numeric_limits<int64_t>::min();

/// A read-only view of dims: a Shape, an llvm::ArrayRef<int64_t>, or any
/// container with data() and size().
class DimsRef {
public:
  DimsRef(const Shape &dims) : ptr(dims.data()), count(dims.size()) {}
  template <typename Container>
  DimsRef(const Container &dims) : ptr(dims.data()), count(dims.size()) {}
  DimsRef(const int64_t *data, size_t size) : ptr(data), count(size) {}

  size_t size() const { return count; }
  int64_t operator[](size_t i) const { return ptr[i]; }

private:
  const int64_t *ptr;
  size_t count;
};

/// The element count (0 when a dim is not positive) and row-major (packed)
/// strides of `shape`, saturating at 2^63 - 1. checkLayout rejects such
/// shapes; check a user-given shape with it before allocating.
int64_t numElements(const Shape &shape);
Shape rowMajorStrides(const Shape &shape);

/// Checks that `strides` (empty = row-major) fit `shape`: same rank, no
/// negative dim or stride, an element count and span below 2^63. Returns
/// false and fills `error` otherwise. Call this first on user-given layouts.
bool checkLayout(const Shape &shape, const Shape &strides,
                 std::string *error = nullptr);
/// Elements a strided buffer must hold: 1 + max offset (0 when empty),
/// saturating at 2^63 - 1.
int64_t spanElements(const Shape &shape, const Shape &strides);
/// The strides through which a (shape, strides) tensor reads as `newShape`
/// without a copy, or false when its layout does not allow it (numpy's
/// reshape rule: dims merged or split must be contiguous among themselves).
/// Unit dims get stride 1.
bool reshapeViewStrides(const Shape &shape, const Shape &strides,
                        const Shape &newShape, Shape &newStrides);

/// True when `in` broadcasts to exactly `out` (numpy rules: shapes aligned at
/// the right, a dim of 1 stretches). A kDynamicDim on either side matches
/// any dim.
bool broadcastsTo(DimsRef in, DimsRef out);
/// numpy broadcast of two shapes; false when a dim pair is neither equal
/// nor 1.
bool broadcastShapes(const Shape &a, const Shape &b, Shape &out);
/// Row-major strides of `in` laid against `out` (right-aligned, rank of
/// `out`), 0 where `in` broadcasts. Call only when `in` broadcasts to `out`.
Shape broadcastStrides(const Shape &in, const Shape &out);

/// "[2, 3, 4]".
std::string shapeString(const Shape &shape);
/// "2x?x4" ("" for rank 0): '?' for kDynamicDim, or for every negative dim
/// when `negativeIsDynamic` (the C API writes a dynamic dim as -1).
std::string dimsText(const Shape &shape, bool negativeIsDynamic = false);
/// dimsText for messages about dims or strides a caller gave: '?' for every
/// negative dim, and "[] (rank 0)" for rank 0 so that it still reads as dims.
std::string dimsMessageText(DimsRef dims);

} // namespace graph

#endif // GRAPHDIALECT_SUPPORT_SHAPE_H
