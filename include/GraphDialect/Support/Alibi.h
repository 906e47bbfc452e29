//===- Alibi.h - ALiBi attention slopes -------------------------*- C++ -*-===//
//
// The per-head slopes of ALiBi attention (Press et al.), as cuDNN and its
// frontend define them: with n the largest power of two <= H, head h < n
// gets 2^(-8/n)^(h+1); the remaining heads interleave 2^(-4/n)^(1+2(h-n)).
// Shared by the CPU reference and the cuDNN lowering so both use one formula.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_SUPPORT_ALIBI_H
#define GRAPHDIALECT_SUPPORT_ALIBI_H

#include <cmath>
#include <cstdint>

namespace graph {

inline double alibiSlope(int64_t head, int64_t numHeads) {
  int64_t n = 1;
  while (n * 2 <= numHeads)
    n *= 2;
  if (head < n)
    return std::pow(std::pow(2.0, -8.0 / n), static_cast<double>(head + 1));
  return std::pow(std::pow(2.0, -4.0 / n),
                  static_cast<double>(1 + 2 * (head - n)));
}

} // namespace graph

#endif // GRAPHDIALECT_SUPPORT_ALIBI_H
