//===- Compare.cpp - Compare a result with a reference --------------------===//
//
// Tolerances by dtype and the elementwise and normwise comparisons.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Support/Compare.h"
#include "GraphDialect/Support/ThreadPool.h"

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

namespace {
/// What one block of elements contributes to a comparison.
struct Partial {
  double diffSquares = 0, wantSquares = 0, maxAbsDiff = 0;
  int64_t worst = -1, firstBad = -1;
};
// Elements per block: blocks are compared in parallel and merged in index
// order, so the sums (and the result) do not depend on the thread count.
constexpr int64_t kCompareBlock = int64_t(1) << 16;

} // namespace

Comparison compare(const std::vector<uint8_t> &got,
                   const std::vector<uint8_t> &want, DType dtype, int64_t count,
                   double rtol, double atol, bool normwise) {
  size_t width = byteWidth(dtype);
  // One- and two-byte types: a lookup without decode()'s dispatch.
  const double *table = decodeTable(dtype);
  auto elementAt = [&](const std::vector<uint8_t> &bytes, int64_t i) {
    if (!table)
      return decode(dtype, &bytes[i * width]);
    size_t bits = bytes[i * width];
    if (width == 2)
      bits |= size_t(bytes[i * width + 1]) << 8;
    return table[bits];
  };
  int64_t blocks = count > 0 ? (count + kCompareBlock - 1) / kCompareBlock : 0;
  std::vector<Partial> partials(blocks);
  parallelFor(blocks, [&](int64_t firstBlock, int64_t endBlock) {
    for (int64_t block = firstBlock; block < endBlock; ++block) {
      Partial &p = partials[block];
      int64_t end = std::min(count, (block + 1) * kCompareBlock);
      for (int64_t i = block * kCompareBlock; i < end; ++i) {
        double a = elementAt(got, i), b = elementAt(want, i);
        bool same;
        if (std::isnan(a) || std::isnan(b))
          same = std::isnan(a) && std::isnan(b);
        else if (std::isinf(a) || std::isinf(b))
          same = a == b;
        else {
          double diff = std::fabs(a - b);
          if (diff > p.maxAbsDiff || p.worst < 0) {
            p.maxAbsDiff = std::max(p.maxAbsDiff, diff);
            p.worst = i;
          }
          p.diffSquares += diff * diff;
          p.wantSquares += b * b;
          same = normwise || diff <= atol + rtol * std::fabs(b);
        }
        if (!same && p.firstBad < 0)
          p.firstBad = i;
      }
    }
  });
  Comparison c;
  double diffSquares = 0, wantSquares = 0;
  int64_t worst = -1;
  for (const Partial &p : partials) {
    diffSquares += p.diffSquares;
    wantSquares += p.wantSquares;
    // The first element of the largest difference, as one pass finds it.
    if (p.worst >= 0 && (worst < 0 || p.maxAbsDiff > c.maxAbsDiff)) {
      c.maxAbsDiff = p.maxAbsDiff;
      worst = p.worst;
    }
    if (p.firstBad >= 0 && c.ok) {
      c.ok = false;
      c.firstBad = p.firstBad;
      c.got = elementAt(got, p.firstBad);
      c.want = elementAt(want, p.firstBad);
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
