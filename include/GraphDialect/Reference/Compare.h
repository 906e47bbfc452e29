//===- Compare.h - Forwards to GraphDialect/Support/Compare.h -------------*-
//C++ -*-===//
//
// Transitional: Compare moved to lib/Support (namespace graph). Include
// GraphDialect/Support/Compare.h instead; this header goes once no caller is
// left.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_REFERENCE_COMPARE_H
#define GRAPHDIALECT_REFERENCE_COMPARE_H

#include "GraphDialect/Reference/NdArray.h"
#include "GraphDialect/Support/Compare.h"

namespace graph::ref {
using ::graph::compare;
using ::graph::Comparison;
using ::graph::defaultTolerance;
using ::graph::deviceTolerance;
} // namespace graph::ref

#endif // GRAPHDIALECT_REFERENCE_COMPARE_H
