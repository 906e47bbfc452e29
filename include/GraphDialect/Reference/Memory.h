//===- Memory.h - Forwards to GraphDialect/Support/Memory.h -------------*- C++
//-*-===//
//
// Transitional: Memory moved to lib/Support (namespace graph). Include
// GraphDialect/Support/Memory.h instead; this header goes once no caller is
// left.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_REFERENCE_MEMORY_H
#define GRAPHDIALECT_REFERENCE_MEMORY_H

#include "GraphDialect/Reference/NdArray.h"
#include "GraphDialect/Support/Memory.h"

namespace graph::ref {
using ::graph::availableHostMemory;
using ::graph::checkHostAllocation;
using ::graph::hostMemorySource;
} // namespace graph::ref

#endif // GRAPHDIALECT_REFERENCE_MEMORY_H
