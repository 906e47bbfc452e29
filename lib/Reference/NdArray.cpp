//===- NdArray.cpp - Strided load and store of dense arrays -----*- C++ -*-===//
//
// The element codecs are Support/DType.h's; this file walks strides.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Reference/NdArray.h"

namespace graph::ref {

namespace {

/// Calls body(linearIndex, elementOffset) for every element in row-major
/// order, walking the strides with an odometer (no division per element).
template <typename Body>
void forEachStrided(const Shape &shape, const Shape &strides, Body body) {
  int64_t total = numElements(shape);
  if (total == 0)
    return;
  Shape s = strides.size() == shape.size() ? strides : rowMajorStrides(shape);
  size_t rank = shape.size();
  std::vector<int64_t> index(rank, 0);
  int64_t offset = 0;
  for (int64_t linear = 0; linear < total; ++linear) {
    body(linear, offset);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < shape[d]) {
        offset += s[d];
        break;
      }
      offset -= (shape[d] - 1) * s[d];
      index[d] = 0;
    }
  }
}

} // namespace

NdArray load(const void *bytes, DType type, const Shape &shape,
             const Shape &strides) {
  NdArray out(shape);
  auto *base = static_cast<const unsigned char *>(bytes);
  size_t width = byteWidth(type);
  forEachStrided(shape, strides, [&](int64_t linear, int64_t offset) {
    out.data[linear] = decode(type, base + offset * width);
  });
  return out;
}

void store(const NdArray &array, DType type, const Shape &strides,
           void *bytes) {
  auto *base = static_cast<unsigned char *>(bytes);
  size_t width = byteWidth(type);
  forEachStrided(array.shape, strides, [&](int64_t linear, int64_t offset) {
    encode(type, array.data[linear], base + offset * width);
  });
}

void roundInPlace(NdArray &array, DType type) {
  if (type == DType::F64)
    return;
  for (double &v : array.data)
    v = roundTo(type, v);
}

} // namespace graph::ref
