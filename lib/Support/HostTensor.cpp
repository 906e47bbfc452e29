//===- HostTensor.cpp - Host buffers ----------------------------*- C++ -*-===//

#include "GraphDialect/Support/HostTensor.h"
#include "GraphDialect/Support/CheckedMath.h"

#include <limits>

namespace graph {

HostTensor HostTensor::zeros(DType dtype, Shape shape) {
  HostTensor tensor;
  tensor.dtype = dtype;
  tensor.shape = std::move(shape);
  tensor.bytes.assign(graph::numElements(tensor.shape) * byteWidth(dtype), 0);
  return tensor;
}

int64_t HostTensor::numElements() const { return graph::numElements(shape); }

int64_t spanBytes(DType dtype, const Shape &shape, const Shape &strides) {
  return checkedMul(spanElements(shape, strides),
                    static_cast<int64_t>(byteWidth(dtype)))
      .value_or(std::numeric_limits<int64_t>::max());
}

} // namespace graph
