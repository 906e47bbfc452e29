//===- TensorTypes.h - Element-type tests the engines' rules share -*- C++ -*-//

#ifndef LIB_ENGINES_TENSORTYPES_H
#define LIB_ENGINES_TENSORTYPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

namespace mlir::graph::engines {

/// Whether an operand or result of `op` has an element type `pred` holds
/// for (every graph-dialect value is a ranked tensor).
inline bool anyTensorOf(Operation *op, function_ref<bool(Type)> pred) {
  auto test = [&](Value v) {
    return pred(cast<RankedTensorType>(v.getType()).getElementType());
  };
  return llvm::any_of(op->getOperands(), test) ||
         llvm::any_of(op->getResults(), test);
}

} // namespace mlir::graph::engines

#endif // LIB_ENGINES_TENSORTYPES_H
