//===- HostTensor.h - Host buffers and tensor descriptions ------*- C++ -*-===//
//
// A tensor in host memory (element type, dims, strides, bytes) and the
// description of a graph input or output, as the reference, the runtime,
// the engines, the C API and the tools pass them around. Nothing here
// depends on MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_SUPPORT_HOSTTENSOR_H
#define GRAPHDIALECT_SUPPORT_HOSTTENSOR_H

#include "GraphDialect/Support/DType.h"
#include "GraphDialect/Support/Shape.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace graph {

/// A host buffer with its element type, logical dims and strides (elements).
/// `bytes` holds at least the span the strides address.
struct HostTensor {
  DType dtype = DType::F32;
  Shape shape;
  Shape strides; // empty = row-major
  std::vector<uint8_t> bytes;
  /// One flag per element (row-major over `shape`): whether the graph
  /// writes it. Empty: every element. A ragged (packed) output leaves the
  /// gaps between its batches alone, so a caller copying it out skips them.
  std::vector<char> written;

  /// A dense row-major tensor of zeros.
  static HostTensor zeros(DType dtype, Shape shape);
  int64_t numElements() const;
};

/// Bytes a buffer of `dtype` must hold for dims `shape` read through
/// `strides` (empty = row-major): spanElements times the element width,
/// saturating at 2^63 - 1.
int64_t spanBytes(DType dtype, const Shape &shape, const Shape &strides);

/// One graph input or output: what a caller must pass or gets back.
struct TensorInfo {
  std::optional<int64_t> uid; // none before assign-uids (0 is a uid)
  std::string name;           // user label, may be empty or repeat
  DType dtype = DType::F32;
  Shape shape;           // kDynamicDim for '?' dims
  Shape strides;         // empty when not decided
  bool isScalar = false; // a graph.scalar (value baked into the graph)
};

} // namespace graph

#endif // GRAPHDIALECT_SUPPORT_HOSTTENSOR_H
