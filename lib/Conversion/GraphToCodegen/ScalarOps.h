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

#include "GraphDialect/Runtime/CudnnGraph.h"

#include "mlir/IR/Builders.h"

#include <string>

namespace mlir::graph {

/// Whether the generated kernels lower pointwise `mode` with emitPointwise.
bool codegenHasPointwise(const std::string &mode);
/// How many tensor operands (in0, in1, in2) pointwise `mode` reads.
unsigned pointwiseArity(const std::string &mode);
/// The f32 result of pointwise `op` on f32 `args` (in0, in1, in2 order);
/// null when the mode is not lowered.
Value emitPointwise(OpBuilder &b, Location loc,
                    const ::graph::rt::OpSpec &op, ArrayRef<Value> args);
/// A float attribute of `op`, or `fallback` when it is absent.
double pointwiseAttr(const ::graph::rt::OpSpec &op, const char *name,
                     double fallback);

} // namespace mlir::graph

#endif // LIB_CONVERSION_GRAPHTOCODEGEN_SCALAROPS_H
