//===- ExecOps.h - Attributes and ops of the exec dialect ---------*- C++ -*-===//

#ifndef GRAPHDIALECT_EXECUTABLE_EXECOPS_H
#define GRAPHDIALECT_EXECUTABLE_EXECOPS_H

#include "GraphDialect/Executable/ExecDialect.h"
#include "GraphDialect/GraphTraits.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::exec {
/// `[1, 2, 3]` (the dims and strides of #exec.tensor).
FailureOr<SmallVector<int64_t>> parseI64List(AsmParser &parser);
void printI64List(AsmPrinter &printer, ArrayRef<int64_t> values);
} // namespace mlir::exec

#include "GraphDialect/Executable/ExecEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "GraphDialect/Executable/ExecAttrs.h.inc"

#define GET_OP_CLASSES
#include "GraphDialect/Executable/ExecOps.h.inc"

#endif // GRAPHDIALECT_EXECUTABLE_EXECOPS_H
