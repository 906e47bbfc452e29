//===- LanePatterns.cpp - Stage ops lowered to lanes by patterns ----------===//
//
// A stage kernel computes its graph ops on the lanes (f32 scalars) each
// thread holds. For one instantiation (one run of `vec` elements) every
// stage op gets an instance in the kernel: an op of the same name whose
// operands are the instances of what it reads, stage inputs standing as
// unrealized_conversion_casts of the lanes loaded for them. The dialect
// conversion legalizes each instance with one pattern per op family: a 1:N
// replacement of its result by its lanes, which the conversion hands to the
// patterns of the instances that read it. An instance holds no attributes
// and no tensor types: the kernels are built in a context of their own,
// and the patterns read the op's facts from the stage op it stands for.
// The patterns build through the emitter's helpers with the builder bound
// to the rewriter, so the IR (and the PTX) is the one the stage emitters
// built before there were patterns.
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::graph::kernelgen;

/// What the lane patterns of one instantiation share.
struct Emitter::LaneContext {
  LaneContext(Emitter &emitter, const StageItem &item)
      : emitter(emitter), item(item) {}

  Emitter &emitter;
  const StageItem &item;
  /// Each instance's stage op (attributes, uids and planner facts).
  DenseMap<Operation *, Operation *> original;
  /// The stage inputs: casts of their loaded lanes.
  DenseSet<Operation *> inputs;
  /// The class of every instance-side value (inputs and results).
  DenseMap<Value, Cls> classes;
  /// The lanes of each result, by its (unresolved) uid, for the stores.
  std::map<int64_t, Val> results;
  /// Why a pattern failed (the first reason).
  std::string error;

  /// The lanes standing for one operand in the conversion: a replaced
  /// result's lanes, or an input cast's operands.
  SmallVector<Value> lanesOf(ValueRange converted) const {
    if (converted.size() == 1)
      if (auto cast =
              converted.front().getDefiningOp<UnrealizedConversionCastOp>())
        if (inputs.contains(cast))
          return llvm::to_vector(cast.getInputs());
    return llvm::to_vector(converted);
  }
};

/// The shared part of every lane pattern: reads the operands' lanes from
/// the adaptor, binds the emitter's builder to the rewriter while `lower`
/// (the op family's emitter) builds the lanes of the result, and replaces
/// the result with them.
template <typename OpT> struct Emitter::LanePattern : OpConversionPattern<OpT> {
  using OneToNOpAdaptor = typename OpConversionPattern<OpT>::OneToNOpAdaptor;
  /// Lanes of the result of stage op `original`; `get` gives the lanes of
  /// its operands.
  using Lower = std::string (*)(Emitter &, LaneContext &, Operation *original,
                                function_ref<Val(Value)> get, Val &result);

  LanePattern(MLIRContext *ctx, LaneContext &c, Lower lower)
      : OpConversionPattern<OpT>(ctx), c(c), lower(lower) {}

  LogicalResult
  matchAndRewrite(OpT op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Operation *original = c.original.lookup(op);
    if (!original || original->getNumResults() != 1 ||
        original->getNumOperands() != op->getNumOperands())
      return rewriter.notifyMatchFailure(op, "not a stage op instance");
    // Operand i of the instance stands for operand i of the stage op.
    auto get = [&](Value v) -> Val {
      for (auto [i, operand] : llvm::enumerate(original->getOperands()))
        if (operand == v)
          return Val{c.classes.lookup(op->getOperand(i)),
                     c.lanesOf(adaptor.getOperands()[i])};
      return Val{};
    };
    Emitter &e = c.emitter;
    OpBuilder saved = e.b;
    e.b = rewriter; // the listener too: the rewriter sees what is built
    Val result;
    std::string error = lower(e, c, original, get, result);
    e.b = saved;
    if (!error.empty()) {
      if (c.error.empty())
        c.error = error;
      return rewriter.notifyMatchFailure(op, error);
    }
    c.classes[op->getResult(0)] = result.cls;
    c.results[e.planner.uidOf(original->getResult(0))] = result;
    SmallVector<SmallVector<Value>> replacement{result.lanes};
    rewriter.replaceOpWithMultiple(op, std::move(replacement));
    return success();
  }

private:
  LaneContext &c;
  Lower lower;
};

std::string Emitter::lowerToLanes(const Stage &s, const StageItem &item,
                                  std::map<int64_t, Val> &vals) {
  MLIRContext *ctx = b.getContext();
  LaneContext c(*this, item);
  // Instance-side values by resolved uid: a view op's result reads its view.
  std::map<int64_t, Value> byUid;
  SmallVector<Operation *> instances;
  Type none = b.getNoneType();
  auto operandFor = [&](Value v) -> Value {
    int64_t uid = planner.resolve(planner.uidOf(v));
    if (auto it = byUid.find(uid); it != byUid.end())
      return it->second;
    // A stage input: the lanes loaded for it (none for what rope and
    // dequantize gather from memory themselves).
    Val in;
    if (auto it = vals.find(uid); it != vals.end())
      in = it->second;
    auto cast =
        UnrealizedConversionCastOp::create(b, loc, none, ValueRange(in.lanes));
    c.inputs.insert(cast);
    c.classes[cast.getResult(0)] = in.cls;
    return byUid[uid] = cast.getResult(0);
  };
  for (Operation *op : s.ops) {
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

  ConversionTarget target(*ctx);
  target.addIllegalDialect<GraphDialect>();
  // What the patterns build (arith, math, scf, memref, nvvm) is the kernel.
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  RewritePatternSet patterns(ctx);
  patterns.add<LanePattern<PointwiseOp>>(ctx, c, &Emitter::pointwiseLanes);
  patterns.add<LanePattern<BatchnormInferenceOp>>(ctx, c,
                                                  &Emitter::pointwiseLanes);
  patterns.add<LanePattern<RopeOp>>(ctx, c, &Emitter::ropeLanes);
  patterns.add<LanePattern<RopeBackwardOp>>(ctx, c, &Emitter::ropeLanes);
  patterns.add<LanePattern<BlockScaleDequantizeOp>>(ctx, c,
                                                    &Emitter::dequantizeLanes);
  ConversionConfig config;
  config.foldingMode = DialectConversionFoldingMode::Never;
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
  // The instances are gone when the conversion succeeded; their inputs go
  // either way.
  if (failed(converted))
    for (Operation *clone : llvm::reverse(instances))
      clone->erase();
  for (Operation *input : c.inputs)
    if (input->use_empty())
      input->erase();
  if (failed(converted))
    return !c.error.empty() ? c.error
           : diagnostic.empty()
               ? std::string("stage ops did not lower to lanes")
               : "generated kernels: " + diagnostic;
  for (auto &[uid, v] : c.results)
    vals[uid] = v;
  return "";
}

std::string Emitter::pointwiseLanes(Emitter &e, LaneContext &c,
                                    Operation *original,
                                    function_ref<Val(Value)> get, Val &result) {
  const StageItem &item = c.item;
  auto linear = [&](size_t i) -> Value {
    return i < static_cast<size_t>(item.vec) ? e.addi(item.start, e.idx(i))
                                             : Value();
  };
  return e.computePointwise(original, e.planner.uidOf(original->getResult(0)),
                            get, linear, result);
}

std::string Emitter::ropeLanes(Emitter &e, LaneContext &c, Operation *original,
                               function_ref<Val(Value)>, Val &result) {
  const StageItem &item = c.item;
  return e.emitRope(*item.kernel, original, *item.space, item.gatherStart,
                    item.vec, result);
}

std::string Emitter::dequantizeLanes(Emitter &e, LaneContext &c,
                                     Operation *original,
                                     function_ref<Val(Value)>, Val &result) {
  const StageItem &item = c.item;
  return e.emitDequantize(*item.kernel, cast<BlockScaleDequantizeOp>(original),
                          *item.space, item.gatherStart, item.vec, result);
}
