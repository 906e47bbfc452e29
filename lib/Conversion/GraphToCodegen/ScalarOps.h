//===- ScalarOps.h - Pointwise modes as scalar f32 MLIR ---------*- C++ -*-===//
//
// The generated kernels compute every pointwise mode on f32 scalars (f16 and
// bf16 are widened on load and narrowed on store). These builders are shared
// by the linalg path (codegen_v1) and the direct kernel generator, and match
// the CPU reference's semantics (lib/Reference/KernelsPointwise.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_GRAPHTOCODEGEN_SCALAROPS_H
#define LIB_CONVERSION_GRAPHTOCODEGEN_SCALAROPS_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>

namespace mlir::graph {

/// Whether the generated kernels lower pointwise `mode` with emitPointwise.
bool codegenHasPointwise(const std::string &mode);
/// How many tensor operands (in0, in1, in2) pointwise `mode` reads.
unsigned pointwiseArity(const std::string &mode);
/// A pointwise op's float attribute by name (negative_slope, lower_clip,
/// ...), or the fallback it is given when the op has none.
using PointwiseAttrFn =
    llvm::function_ref<double(const char *name, double fallback)>;
/// The f32 result of pointwise `mode` with attributes `attr` on f32 `args`
/// (in0, in1, in2 order); null when the mode is not lowered.
Value emitPointwise(OpBuilder &b, Location loc, const std::string &mode,
                    PointwiseAttrFn attr, ArrayRef<Value> args);

} // namespace mlir::graph

#endif // LIB_CONVERSION_GRAPHTOCODEGEN_SCALAROPS_H
