//===- ReductionToLinalg.cpp - graph.reduction -> linalg.generic ---------===//
//
// A last-axis add, max or min reduction into an f32 result: its
// destination filled with the reduction's identity, then one linalg.generic
// over the input's dims with a trailing reduction iterator that
// accumulates in f32. A pass-by-value scalar input is a splat constant.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Conversion/GraphToCodegen.h"
#include "GraphDialect/GraphOps.h"
#include "GraphToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <limits>

using namespace mlir;
using namespace mlir::graph;

namespace {

struct ReductionToGeneric : OpConversionPattern<ReductionOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReductionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ReductionMode mode = op.getMode();
    if (mode != ReductionMode::add && mode != ReductionMode::max &&
        mode != ReductionMode::min)
      return rewriter.notifyMatchFailure(op, "not an add, max or min");
    if (op.getGroupOffset())
      return rewriter.notifyMatchFailure(op, "ragged groups");
    RankedTensorType inType =
        paddedTensorType(getTypeConverter(), op.getInput());
    RankedTensorType outType =
        paddedTensorType(getTypeConverter(), op.getOutput());
    if (!inType || !outType)
      return rewriter.notifyMatchFailure(op, "tensor type not lowered");
    if (!outType.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "accumulates into f32 only");
    int64_t rank = inType.getRank();
    ArrayRef<int64_t> x = inType.getShape(), y = outType.getShape();
    if (outType.getRank() != rank || rank == 0)
      return rewriter.notifyMatchFailure(op, "tensors of two ranks");
    for (int64_t i = 0; i < rank; ++i)
      if ((i + 1 < rank && x[i] != y[i]) || (i + 1 == rank && y[i] != 1))
        return rewriter.notifyMatchFailure(op, "not over the last axis");

    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    if (std::optional<double> value = byValueScalar(op.getInput())) {
      // A by-value scalar has no argument: its value, splat.
      auto floatType = dyn_cast<FloatType>(inType.getElementType());
      if (!floatType)
        return rewriter.notifyMatchFailure(op, "an integer by-value scalar");
      input = arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(inType,
                                 rewriter.getFloatAttr(floatType, *value)));
    }
    double init = mode == ReductionMode::add ? 0.0
                  : mode == ReductionMode::max
                      ? -std::numeric_limits<double>::infinity()
                      : std::numeric_limits<double>::infinity();
    Value identity = arith::ConstantOp::create(rewriter, loc,
                                               rewriter.getF32FloatAttr(init));
    Value destination = destinationFor(rewriter, loc, op.getOutput(), outType);
    Value filled = linalg::FillOp::create(rewriter, loc, ValueRange{identity},
                                          ValueRange{destination})
                       .getResult(0);
    SmallVector<AffineExpr> outExprs;
    for (int64_t j = 0; j + 1 < rank; ++j)
      outExprs.push_back(rewriter.getAffineDimExpr(j));
    outExprs.push_back(rewriter.getAffineConstantExpr(0));
    SmallVector<AffineMap> maps = {
        rewriter.getMultiDimIdentityMap(rank),
        AffineMap::get(rank, 0, outExprs, rewriter.getContext())};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.back() = utils::IteratorType::reduction;
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{filled.getType()}, ValueRange{input},
        ValueRange{filled}, maps, iterators,
        [&](OpBuilder &nb, Location nloc, ValueRange blockArgs) {
          Value x = widenToF32(nb, nloc, blockArgs[0]);
          Value acc = blockArgs[1];
          Value r =
              mode == ReductionMode::add
                  ? arith::AddFOp::create(nb, nloc, acc, x).getResult()
              : mode == ReductionMode::max
                  ? arith::MaximumFOp::create(nb, nloc, acc, x).getResult()
                  : arith::MinimumFOp::create(nb, nloc, acc, x).getResult();
          linalg::YieldOp::create(nb, nloc, r);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void mlir::graph::populateReductionToLinalgPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ReductionToGeneric>(converter, patterns.getContext());
}
