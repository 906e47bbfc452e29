//===- GraphToLinalg.h - Shared pieces of the linalg patterns ---*- C++ -*-===//
//
// What the per-family conversion patterns (PointwiseToLinalg.cpp,
// ReductionToLinalg.cpp) share: the group's tensor types as the codegen
// engine computes on them, where a result is written, and the f32
// widening/narrowing of stored values.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_GRAPHTOCODEGEN_GRAPHTOLINALG_H
#define LIB_CONVERSION_GRAPHTOCODEGEN_GRAPHTOLINALG_H

#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

#include <optional>

namespace mlir::graph {

/// The tensor types of one lowered group: static tensors of f32, f16 or
/// bf16 become the same tensor padded with leading unit dims to the group's
/// rank (as the group descriptions pad pointwise and reduction tensors), with
/// no encoding; any other type has no conversion (the op reading or writing
/// it is not lowered).
class GroupTensorTypeConverter : public TypeConverter {
public:
  explicit GroupTensorTypeConverter(int64_t rank);
  int64_t getRank() const { return rank; }

private:
  int64_t rank;
};

/// The rank a group's tensors are padded to: 3, or the largest rank among
/// `types` (the tensors its ops read and write).
int64_t groupTensorRank(TypeRange types);

/// The tensor type a pattern computes `value` on: its type padded to the
/// group's rank by `converter` (a GroupTensorTypeConverter); null when that
/// type has no conversion (the op reading or writing it is not lowered).
RankedTensorType paddedTensorType(const TypeConverter *converter, Value value);

/// Where the op producing `result` writes its value of type `type`: the
/// output argument of the enclosing func when the func returns `result`
/// (results are returned in the order of the output arguments, which follow
/// the inputs), a fresh tensor.empty otherwise.
Value destinationFor(OpBuilder &b, Location loc, Value result,
                     RankedTensorType type);

/// The value of the pass-by-value scalar `value` is (a graph.scalar's
/// result), or nullopt.
std::optional<double> byValueScalar(Value value);

/// `v` widened to f32 (f16, bf16), or `v` itself.
Value widenToF32(OpBuilder &b, Location loc, Value v);
/// The f32 `v` narrowed to `to`, or `v` itself when `to` is f32.
Value narrowFromF32(OpBuilder &b, Location loc, Value v, Type to);

} // namespace mlir::graph

#endif // LIB_CONVERSION_GRAPHTOCODEGEN_GRAPHTOLINALG_H
