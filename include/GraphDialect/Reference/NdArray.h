//===- NdArray.h - Dense double arrays of the reference executor -*- C++
//-*-===//
//
// The CPU reference executor computes every op on dense, row-major arrays of
// double. Element types and strides only matter at the boundaries: loading a
// user buffer (any dtype, any strides) and storing a result (rounded to the
// tensor's dtype). The element types and shapes are Support's (DType.h,
// Shape.h). Nothing here depends on MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_REFERENCE_NDARRAY_H
#define GRAPHDIALECT_REFERENCE_NDARRAY_H

#include "GraphDialect/Support/DType.h"
#include "GraphDialect/Support/Shape.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace graph::ref {

// Transitional: Support's names under their old graph::ref spelling, for the
// callers not yet moved to graph::. Remove once none is left.
using ::graph::byteWidth;
using ::graph::checkLayout;
using ::graph::decode;
using ::graph::DType;
using ::graph::dtypeMaxFinite;
using ::graph::dtypeName;
using ::graph::encode;
using ::graph::encodeSaturating;
using ::graph::isFloat;
using ::graph::numElements;
using ::graph::parseDType;
using ::graph::reshapeViewStrides;
using ::graph::roundTo;
using ::graph::roundToSaturating;
using ::graph::rowMajorStrides;
using ::graph::Shape;
using ::graph::spanElements;

/// A dense row-major array of doubles.
struct NdArray {
  Shape shape;
  std::vector<double> data;

  NdArray() = default;
  explicit NdArray(Shape s, double fill = 0.0)
      : shape(std::move(s)), data(numElements(shape), fill) {}
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  int64_t size() const { return static_cast<int64_t>(data.size()); }
};

/// Reads a strided buffer of `type` (strides in elements, any non-negative
/// value, size-1 dims arbitrary; empty = row-major) into an NdArray. The
/// layout is not checked: call checkLayout first on user-given layouts.
NdArray load(const void *bytes, DType type, const Shape &shape,
             const Shape &strides);
/// Writes `array` into a strided buffer of `type`, rounding each element.
void store(const NdArray &array, DType type, const Shape &strides, void *bytes);
/// Rounds every element in place (what a virtual tensor of `type` holds).
void roundInPlace(NdArray &array, DType type);

} // namespace graph::ref

#endif // GRAPHDIALECT_REFERENCE_NDARRAY_H
