//===- Compare.h - Compare a result with a reference ------------*- C++ -*-===//
//
// The tolerances and the comparison graph-run's --expected-output and
// --check-against=cpu use, shared with the GPU autotuner, which checks every
// candidate plan against the CPU reference the same way.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_SUPPORT_COMPARE_H
#define GRAPHDIALECT_SUPPORT_COMPARE_H

#include "GraphDialect/Support/DType.h"
#include "GraphDialect/Support/Shape.h"

#include <cstdint>
#include <vector>

namespace graph {

/// Default relative (and absolute) tolerance of an output of `dtype`; `tf32`
/// when the graph computes in tf32. Integers and bools compare exactly (0).
double defaultTolerance(DType dtype, bool tf32);

/// The bound of a device result checked against the reference: an output is
/// no more exact than the narrowest float the computation reads (an f32
/// gradient of f16 data differs by the f16 accumulation order), so the
/// largest default tolerance of `output` and every float in `inputs`.
double deviceTolerance(DType output, const std::vector<DType> &inputs,
                       bool tf32);

struct Comparison {
  bool ok = true;
  int64_t firstBad = -1;
  double got = 0, want = 0, maxAbsDiff = 0;
  double relativeError = 0; // ||got - want|| / ||want|| (normwise checks)
};

/// Compares `count` elements of `dtype` stored densely in `got` and `want`.
/// Elementwise: |got - want| <= atol + rtol |want| at every index.
/// Normwise (device against the reference, where accumulation order
/// differs): ||got - want||_2 <= rtol ||want||_2; the worst index is shown.
/// NaN and inf must match either way.
Comparison compare(const std::vector<uint8_t> &got,
                   const std::vector<uint8_t> &want, DType dtype, int64_t count,
                   double rtol, double atol, bool normwise = false);

} // namespace graph

#endif // GRAPHDIALECT_SUPPORT_COMPARE_H
