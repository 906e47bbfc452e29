//===- HostTensor.cpp - Host buffers ----------------------------*- C++ -*-===//

#include "GraphDialect/Support/HostTensor.h"

namespace graph {

HostTensor HostTensor::zeros(DType dtype, Shape shape) {
  HostTensor tensor;
  tensor.dtype = dtype;
  tensor.shape = std::move(shape);
  tensor.bytes.assign(graph::numElements(tensor.shape) * byteWidth(dtype), 0);
  return tensor;
}

int64_t HostTensor::numElements() const { return graph::numElements(shape); }

} // namespace graph
