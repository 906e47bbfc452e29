//===- Compare.cpp - Compare a result with a reference --------------------===//
//
// Tolerances by dtype and the elementwise and normwise comparisons.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Support/Compare.h"

#include <algorithm>
#include <cmath>

namespace graph {

double defaultTolerance(DType dtype, bool tf32) {
  switch (dtype) {
  case DType::F32:
    return tf32 ? 1e-3 : 1e-5;
  case DType::F64:
    return 1e-9;
  case DType::F16:
  case DType::BF16:
    return 1e-2;
  case DType::F8E4M3FN:
    return 1.25e-1;
  case DType::F8E5M2:
    return 2.5e-1;
  case DType::F8E8M0FNU:
  case DType::F4E2M1FN:
    return 5e-1;
  default:
    return 0.0; // integers and bools compare exactly
  }
}

double deviceTolerance(DType output, const std::vector<DType> &inputs,
                       bool tf32) {
  double rtol = defaultTolerance(output, tf32);
  for (DType input : inputs)
    if (isFloat(input))
      rtol = std::max(rtol, defaultTolerance(input, tf32));
  return rtol;
}

Comparison compare(const std::vector<uint8_t> &got,
                   const std::vector<uint8_t> &want, DType dtype, int64_t count,
                   double rtol, double atol, bool normwise) {
  size_t width = byteWidth(dtype);
  auto elementAt = [&](const std::vector<uint8_t> &bytes, int64_t i) {
    return decode(dtype, &bytes[i * width]);
  };
  Comparison c;
  double diffSquares = 0, wantSquares = 0;
  int64_t worst = -1;
  for (int64_t i = 0; i < count; ++i) {
    double a = elementAt(got, i), b = elementAt(want, i);
    bool same;
    if (std::isnan(a) || std::isnan(b))
      same = std::isnan(a) && std::isnan(b);
    else if (std::isinf(a) || std::isinf(b))
      same = a == b;
    else {
      double diff = std::fabs(a - b);
      if (diff > c.maxAbsDiff || worst < 0) {
        c.maxAbsDiff = std::max(c.maxAbsDiff, diff);
        worst = i;
      }
      diffSquares += diff * diff;
      wantSquares += b * b;
      same = normwise || diff <= atol + rtol * std::fabs(b);
    }
    if (!same && c.ok) {
      c.ok = false;
      c.firstBad = i;
      c.got = a;
      c.want = b;
    }
  }
  c.relativeError = wantSquares > 0 ? std::sqrt(diffSquares / wantSquares)
                                    : std::sqrt(diffSquares);
  if (normwise && c.ok && c.relativeError > rtol && worst >= 0) {
    c.ok = false;
    c.firstBad = worst;
    c.got = elementAt(got, worst);
    c.want = elementAt(want, worst);
  }
  return c;
}

} // namespace graph
