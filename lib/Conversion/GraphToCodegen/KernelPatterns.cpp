//===- KernelPatterns.cpp - Single-op stages lowered by patterns ----------===//
//
// Some stages are one op whose kernels are that op's own: a reduction over
// axes that are not a suffix or a genstats (ReduceStage.cpp), a block-scale
// quantize (QuantizeStage.cpp), and the column pass of a backward norm
// whose DScale/DBias do not fit the row kernel's registers (ColumnSums.cpp).
// The op gets an instance in the kernel module (same op name, operands
// standing as operand-less unrealized_conversion_casts), and the dialect
// conversion legalizes it with one pattern per op: the pattern builds the
// op's kernels next to it through the emitter (its builder bound to the
// rewriter) and erases the instance. As with the lane patterns, the
// instance holds no attributes; the pattern reads the stage op.
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"

#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::graph::kernelgen;

template <typename OpT>
struct Emitter::KernelPattern : OpConversionPattern<OpT> {
  KernelPattern(MLIRContext *ctx, Emitter &e, KernelContext &c,
                KernelFamily lower)
      : OpConversionPattern<OpT>(ctx), e(e), c(c), lower(lower) {}

  LogicalResult
  matchAndRewrite(OpT op, typename OpConversionPattern<OpT>::OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getOperation() != c.instance)
      return rewriter.notifyMatchFailure(op, "not the stage op's instance");
    OpBuilder saved = e.b;
    e.b = rewriter; // the listener too: the rewriter sees what is built
    std::string error = (e.*lower)(c, c.original);
    e.b = saved;
    if (!error.empty()) {
      c.error = error;
      return rewriter.notifyMatchFailure(op, error);
    }
    rewriter.eraseOp(op);
    return success();
  }

private:
  Emitter &e;
  KernelContext &c;
  KernelFamily lower;
};

std::string Emitter::lowerToKernels(Operation *op, KernelContext &c) {
  MLIRContext *ctx = b.getContext();
  b.setInsertionPointToEnd(gpuModule.getBody());
  Type none = b.getNoneType();
  DenseSet<Operation *> inputs;
  OperationState state(loc, op->getName().getStringRef());
  for (size_t i = 0; i < op->getNumOperands(); ++i) {
    auto input = UnrealizedConversionCastOp::create(b, loc, none, ValueRange());
    inputs.insert(input);
    state.operands.push_back(input.getResult(0));
  }
  state.types.assign(op->getNumResults(), none);
  c.original = op;
  c.instance = b.create(state);

  RewritePatternSet patterns(ctx);
  patterns.add<KernelPattern<ReductionOp>, KernelPattern<GenstatsOp>>(
      ctx, *this, c, &Emitter::reduceKernels);
  patterns.add<KernelPattern<BlockScaleQuantizeOp>>(ctx, *this, c,
                                                    &Emitter::quantizeKernels);
  patterns.add<KernelPattern<MoeScatterRowsOp>>(ctx, *this, c,
                                                &Emitter::scatterRowsKernels);
  patterns
      .add<KernelPattern<LayernormBackwardOp>, KernelPattern<RmsnormBackwardOp>,
           KernelPattern<InstancenormBackwardOp>,
           KernelPattern<AdaLayernormBackwardOp>>(ctx, *this, c,
                                                  &Emitter::columnPassKernels);
  return convertInstances(c.instance, inputs, std::move(patterns), c.error);
}
