//===- Npy.h - Forwards to GraphDialect/Support/Npy.h -------------*- C++
//-*-===//
//
// Transitional: Npy moved to lib/Support (namespace graph). Include
// GraphDialect/Support/Npy.h instead; this header goes once no caller is left.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_REFERENCE_NPY_H
#define GRAPHDIALECT_REFERENCE_NPY_H

#include "GraphDialect/Reference/NdArray.h"
#include "GraphDialect/Support/Npy.h"

namespace graph::ref {
using ::graph::checkNpyDType;
using ::graph::NpyArray;
using ::graph::npyDescr;
using ::graph::parseNpy;
using ::graph::readNpyFile;
using ::graph::serializeNpy;
using ::graph::writeNpyFile;
} // namespace graph::ref

#endif // GRAPHDIALECT_REFERENCE_NPY_H
