//===- Passes.h - Conversion passes of the graph compiler --------*- C++ -*-===//

#ifndef GRAPHDIALECT_CONVERSION_PASSES_H
#define GRAPHDIALECT_CONVERSION_PASSES_H

#include "GraphDialect/Executable/ExecDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir::graph {

#define GEN_PASS_DECL
#include "GraphDialect/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "GraphDialect/Conversion/Passes.h.inc"

} // namespace mlir::graph

#endif // GRAPHDIALECT_CONVERSION_PASSES_H
