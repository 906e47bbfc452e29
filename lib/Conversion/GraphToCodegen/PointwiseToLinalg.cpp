//===- PointwiseToLinalg.cpp - graph.pointwise -> linalg.generic ---------===//
//
// One linalg.generic per graph.pointwise: it iterates over the output's
// dims and reads a broadcast operand through constant-0 indexing maps; a
// pass-by-value scalar operand is an f32 constant in the body. The body
// computes in f32 (ScalarOps.h), widening f16/bf16 operands and narrowing
// to the stored result type.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Conversion/GraphToCodegen.h"
#include "GraphDialect/GraphOps.h"
#include "GraphToLinalg.h"
#include "ScalarOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;
using namespace mlir::graph;

namespace {

/// The map reading an operand of shape `operand` (aligned to the trailing
/// dims, a unit dim broadcast) in the iteration space `space`.
AffineMap broadcastReadMap(Builder &b, ArrayRef<int64_t> operand,
                           ArrayRef<int64_t> space) {
  SmallVector<AffineExpr> exprs;
  size_t offset = space.size() - operand.size();
  for (size_t j = 0; j < operand.size(); ++j)
    exprs.push_back(operand[j] == space[offset + j] || operand[j] != 1
                        ? b.getAffineDimExpr(offset + j)
                        : b.getAffineConstantExpr(0));
  return AffineMap::get(space.size(), 0, exprs, b.getContext());
}

struct PointwiseToGeneric : OpConversionPattern<PointwiseOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(PointwiseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::string mode = stringifyPointwiseMode(op.getMode()).str();
    if (!codegenHasPointwise(mode))
      return rewriter.notifyMatchFailure(op, "no scalar lowering of the mode");
    RankedTensorType outType =
        paddedTensorType(getTypeConverter(), op.getOutput());
    if (!outType)
      return rewriter.notifyMatchFailure(op, "result type not lowered");
    unsigned arity = pointwiseArity(mode);
    if (op.getInputs().size() < arity)
      return rewriter.notifyMatchFailure(op, "fewer operands than the mode");

    Location loc = op.getLoc();
    SmallVector<Value> ins;
    SmallVector<AffineMap> maps;
    SmallVector<std::optional<double>> byValue; // nullopt: a block argument
    for (unsigned k = 0; k < arity; ++k) {
      Value operand = op.getInputs()[k];
      if (!paddedTensorType(getTypeConverter(), operand))
        return rewriter.notifyMatchFailure(op, "operand type not lowered");
      if (std::optional<double> value = byValueScalar(operand)) {
        byValue.push_back(value);
        continue;
      }
      Value converted = adaptor.getInputs()[k];
      byValue.push_back(std::nullopt);
      ins.push_back(converted);
      maps.push_back(broadcastReadMap(
          rewriter, cast<RankedTensorType>(converted.getType()).getShape(),
          outType.getShape()));
    }
    maps.push_back(rewriter.getMultiDimIdentityMap(outType.getRank()));
    SmallVector<utils::IteratorType> iterators(outType.getRank(),
                                               utils::IteratorType::parallel);
    auto attr = [&](const char *name, double fallback) {
      auto value = dyn_cast_or_null<FloatAttr>(
          op->getInherentAttr(name).value_or(Attribute()));
      return value ? value.getValueAsDouble() : fallback;
    };
    Type outElement = outType.getElementType();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{outType}, ins,
        ValueRange{destinationFor(rewriter, loc, op.getOutput(), outType)},
        maps, iterators,
        [&](OpBuilder &nb, Location nloc, ValueRange blockArgs) {
          SmallVector<Value> f32Args;
          unsigned next = 0;
          for (std::optional<double> v : byValue)
            f32Args.push_back(
                v ? arith::ConstantOp::create(nb, nloc, nb.getF32FloatAttr(*v))
                        .getResult()
                  : widenToF32(nb, nloc, blockArgs[next++]));
          // codegenHasPointwise(mode): emitPointwise lowers it.
          Value r = emitPointwise(nb, nloc, mode, attr, f32Args);
          linalg::YieldOp::create(nb, nloc,
                                  narrowFromF32(nb, nloc, r, outElement));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void mlir::graph::populatePointwiseToLinalgPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<PointwiseToGeneric>(converter, patterns.getContext());
}
