//===- LanePatterns.cpp - Stage ops lowered to lanes by patterns ----------===//
//
// A stage kernel computes its graph ops on the lanes (f32 scalars) each
// thread holds: a run of `vec` elements in a pointwise stage, its share of
// one row in a row stage. For one run (or one trip of the row loop) every
// stage op gets an instance in the kernel: an op of the same name whose
// operands are the instances of what it reads, stage inputs standing as
// operand-less unrealized_conversion_casts. The dialect conversion
// legalizes each instance with one pattern per op (the op families' lane
// functions are in PointwisePatterns.cpp and NormPatterns.cpp): a 1:N
// replacement of each result by its lanes, which the conversion hands to
// the patterns of the instances that read it; a stage input's lanes are
// loaded before the stage (pointwise stages) or at their first reader (row
// stages). An instance holds no attributes and no tensor types: the kernels
// are built in a context of their own, and the patterns read the op's facts
// from the stage op it stands for. The patterns build through the
// emitter's helpers with the builder bound to the rewriter, so the IR (and
// the PTX) is the one the stage emitters built before there were patterns.
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"

#include "GraphDialect/Engines/Engine.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::graph::kernelgen;

/// The shared part of every lane pattern: gives `lower` (the op family's
/// emitter, run with the emitter's builder bound to the rewriter) the
/// lanes of the operands, and replaces each result with the lanes `lower`
/// left for it in the context's values.
template <typename OpT> struct Emitter::LanePattern : OpConversionPattern<OpT> {
  using OneToNOpAdaptor = typename OpConversionPattern<OpT>::OneToNOpAdaptor;
  using Lower = std::string (*)(Emitter &, LaneContext &, Operation *original,
                                function_ref<Val(Value)> get);

  LanePattern(MLIRContext *ctx, LaneContext &c, Lower lower)
      : OpConversionPattern<OpT>(ctx), c(c), lower(lower) {}

  LogicalResult
  matchAndRewrite(OpT op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Operation *original = c.original.lookup(op);
    if (!original || original->getNumOperands() != op->getNumOperands() ||
        original->getNumResults() != op->getNumResults())
      return rewriter.notifyMatchFailure(op, "not a stage op instance");
    Emitter &e = c.emitter;
    // Operand i of the instance stands for operand i of the stage op.
    auto get = [&](Value v) -> Val {
      for (auto [i, operand] : llvm::enumerate(original->getOperands())) {
        if (operand != v)
          continue;
        Value instance = op->getOperand(i);
        Val val;
        if (c.inputs.contains(instance.getDefiningOp())) {
          val = c.input(v);
        } else {
          // The lanes come through the conversion; their class is the one
          // the producing pattern recorded with them.
          auto produced = c.values.find(e.planner.resolve(e.planner.uidOf(v)));
          if (produced != c.values.end())
            val = Val{produced->second.cls,
                      llvm::to_vector(adaptor.getOperands()[i])};
        }
        if (!val.lanes.empty())
          return val;
        break;
      }
      // No lanes (an internal error): a stand-in lets `lower` finish, and
      // the pattern fails with the reason.
      if (c.error.empty())
        c.error = describeNode(original) + ": operand " +
                  std::to_string(e.planner.uidOf(v)) +
                  " has no lanes in this stage";
      return Val{Cls::Scalar, {e.f32(0.0)}};
    };
    OpBuilder saved = e.b;
    e.b = rewriter; // the listener too: the rewriter sees what is built
    std::string error = lower(e, c, original, get);
    e.b = saved;
    if (error.empty() && !c.error.empty())
      error = c.error;
    if (!error.empty()) {
      if (c.error.empty())
        c.error = error;
      return rewriter.notifyMatchFailure(op, error);
    }
    SmallVector<SmallVector<Value>> replacement;
    for (OpResult result : original->getResults()) {
      auto it = c.values.find(e.planner.uidOf(result));
      if (it == c.values.end()) {
        // Not lanes (a column sum, a none result): nothing may read it here.
        if (!op->getResult(result.getResultNumber()).use_empty()) {
          c.error = describeNode(original) + ": result " +
                    std::to_string(result.getResultNumber()) +
                    " is read in the stage but has no lanes";
          return rewriter.notifyMatchFailure(op, c.error);
        }
        replacement.emplace_back();
        continue;
      }
      replacement.push_back(it->second.lanes);
    }
    rewriter.replaceOpWithMultiple(op, std::move(replacement));
    return success();
  }

private:
  LaneContext &c;
  Lower lower;
};

std::string Emitter::lowerToLanes(ArrayRef<Operation *> ops, LaneContext &c) {
  MLIRContext *ctx = b.getContext();
  // Instance-side values by resolved uid: a view op's result reads its view.
  std::map<int64_t, Value> byUid;
  SmallVector<Operation *> instances;
  Type none = b.getNoneType();
  auto operandFor = [&](Value v) -> Value {
    int64_t uid = planner.resolve(planner.uidOf(v));
    if (auto it = byUid.find(uid); it != byUid.end())
      return it->second;
    auto input = UnrealizedConversionCastOp::create(b, loc, none, ValueRange());
    c.inputs.insert(input);
    return byUid[uid] = input.getResult(0);
  };
  for (Operation *op : ops) {
    OperationState state(loc, op->getName().getStringRef());
    for (Value operand : op->getOperands())
      state.operands.push_back(operandFor(operand));
    state.types.assign(op->getNumResults(), none);
    Operation *instance = b.create(state);
    c.original[instance] = op;
    instances.push_back(instance);
    for (OpResult r : op->getResults())
      byUid[planner.resolve(planner.uidOf(r))] =
          instance->getResult(r.getResultNumber());
  }

  RewritePatternSet patterns(ctx);
  patterns.add<LanePattern<PointwiseOp>, LanePattern<BatchnormInferenceOp>>(
      ctx, c, &Emitter::pointwiseLanes);
  patterns.add<LanePattern<RopeOp>, LanePattern<RopeBackwardOp>>(
      ctx, c, &Emitter::gatherLanes<Operation *, &Emitter::emitRope>);
  patterns.add<LanePattern<BlockScaleDequantizeOp>>(
      ctx, c,
      &Emitter::gatherLanes<BlockScaleDequantizeOp, &Emitter::emitDequantize>);
  patterns.add<LanePattern<PagedCacheLoadOp>>(
      ctx, c,
      &Emitter::gatherLanes<PagedCacheLoadOp, &Emitter::emitPagedCacheLoad>);
  patterns.add<LanePattern<MoeGatherRowsOp>>(
      ctx, c,
      &Emitter::gatherLanes<MoeGatherRowsOp, &Emitter::emitMoeGatherRows>);
  patterns.add<LanePattern<ReductionOp>>(ctx, c, &Emitter::rowReductionLanes);
  patterns.add<LanePattern<LayernormOp>, LanePattern<RmsnormOp>,
               LanePattern<InstancenormOp>, LanePattern<AdaLayernormOp>>(
      ctx, c, &Emitter::normForwardLanes);
  patterns.add<LanePattern<LayernormBackwardOp>, LanePattern<RmsnormBackwardOp>,
               LanePattern<InstancenormBackwardOp>,
               LanePattern<AdaLayernormBackwardOp>>(
      ctx, c, &Emitter::normBackwardLanes);
  return convertInstances(instances, c.inputs, std::move(patterns), c.error);
}

std::string Emitter::convertInstances(ArrayRef<Operation *> instances,
                                      const DenseSet<Operation *> &inputs,
                                      RewritePatternSet &&patterns,
                                      const std::string &patternError) {
  MLIRContext *ctx = b.getContext();
  ConversionTarget target(*ctx);
  target.addIllegalDialect<GraphDialect>();
  // What the patterns build (arith, math, scf, memref, nvvm, gpu) is the
  // kernel.
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  // The instances the conversion erased (all of them when it succeeds):
  // a failure after its rewrites were applied must not erase them again.
  struct ErasedInstances : RewriterBase::Listener {
    DenseSet<Operation *> erased;
    void notifyOperationErased(Operation *op) override { erased.insert(op); }
  } erasedInstances;
  ConversionConfig config;
  config.foldingMode = DialectConversionFoldingMode::Never;
  config.listener = &erasedInstances;
  std::string diagnostic;
  LogicalResult converted = success();
  {
    // An op without a pattern is a reason to decline, not an error.
    ScopedDiagnosticHandler capture(ctx, [&](Diagnostic &d) {
      if (diagnostic.empty())
        diagnostic = d.str();
      return success();
    });
    converted =
        applyPartialConversion(instances, target, std::move(patterns), config);
  }
  // The instances are gone when the conversion succeeded; the input casts
  // go either way.
  if (failed(converted))
    for (Operation *instance : llvm::reverse(instances))
      if (!erasedInstances.erased.contains(instance))
        instance->erase();
  for (Operation *input : inputs)
    if (!erasedInstances.erased.contains(input) && input->use_empty())
      input->erase();
  if (failed(converted))
    return !patternError.empty() ? patternError
           : diagnostic.empty()
               ? std::string("stage ops did not lower to kernels")
               : "generated kernels: " + diagnostic;
  return "";
}
