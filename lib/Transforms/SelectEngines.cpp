//===- SelectEngines.cpp - Rank the engines of each fused group -----------===//

#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::graph {
#define GEN_PASS_DEF_GRAPHSELECTENGINES
#include "GraphDialect/Passes.h.inc"
} // namespace mlir::graph

using namespace mlir;
using namespace mlir::graph;

namespace {

constexpr llvm::StringLiteral kGroupAttr = "graph.group";
constexpr llvm::StringLiteral kEnginesAttr = "graph.engines";

bool anyTensorOf(Operation *op, llvm::function_ref<bool(Type)> pred) {
  auto test = [&](Value v) {
    return pred(cast<RankedTensorType>(v.getType()).getElementType());
  };
  return llvm::any_of(op->getOperands(), test) ||
         llvm::any_of(op->getResults(), test);
}

/// Why cuDNN's engines cannot take `op` (as our lowering emits it), or ""
/// when they can.
std::string cudnnDeclines(Operation *op) {
  if (anyTensorOf(op, [](Type t) { return t.isF64(); }))
    return "cuDNN's fused engines have no f64 path";
  if (isa<PointwiseOp, MatmulOp, ConvFpropOp, ConvDgradOp, ConvWgradOp,
          ReductionOp, LayernormOp, RmsnormOp, BatchnormOp,
          BatchnormInferenceOp, InstancenormOp, AdaLayernormOp,
          LayernormBackwardOp, RmsnormBackwardOp, BatchnormBackwardOp,
          InstancenormBackwardOp, AdaLayernormBackwardOp, GenstatsOp, SdpaOp,
          SdpaBackwardOp>(op))
    return "";
  return ("no cuDNN lowering for " + op->getName().stripDialect() + " yet")
      .str();
}

/// Why the generated-kernel engine (memory-bound groups) cannot take `op`,
/// or "" when it can: pointwise ops, reductions over any axes, layer/rms/
/// instance/adaptive layer norms forward and backward, batchnorm inference,
/// genstats and the data movement ops, on f32, f16 and bf16 tensors of any
/// strides (compute in f32). Whether a whole group fits is decided when its
/// kernels are generated; a group it declines there is split.
std::string codegenDeclines(Operation *op) {
  bool badType = anyTensorOf(op, [](Type t) {
    return !(t.isF32() || t.isF16() || t.isBF16() || t.isInteger(1) ||
             t.isInteger(32) || isa<Float8E4M3FNType, Float8E5M2Type,
                                     Float8E8M0FNUType, Float4E2M1FNType>(t));
  });
  if (badType)
    return "generated kernels take f32, f16, bf16, fp8, fp4, i1 and i32 "
           "tensors only";
  if (auto pointwise = dyn_cast<PointwiseOp>(op)) {
    switch (pointwise.getMode()) {
    case PointwiseMode::gen_index:
    case PointwiseMode::abs: case PointwiseMode::ceil: case PointwiseMode::cos:
    case PointwiseMode::elu: case PointwiseMode::erf: case PointwiseMode::exp:
    case PointwiseMode::floor: case PointwiseMode::gelu:
    case PointwiseMode::gelu_approx_tanh: case PointwiseMode::identity:
    case PointwiseMode::log: case PointwiseMode::logical_not:
    case PointwiseMode::neg: case PointwiseMode::reciprocal:
    case PointwiseMode::rsqrt: case PointwiseMode::sigmoid:
    case PointwiseMode::sin: case PointwiseMode::softplus:
    case PointwiseMode::sqrt: case PointwiseMode::tan: case PointwiseMode::tanh:
    case PointwiseMode::relu: case PointwiseMode::leaky_relu:
    case PointwiseMode::swish: case PointwiseMode::add:
    case PointwiseMode::add_square: case PointwiseMode::div:
    case PointwiseMode::logical_and: case PointwiseMode::logical_or:
    case PointwiseMode::mul: case PointwiseMode::sub: case PointwiseMode::max:
    case PointwiseMode::min: case PointwiseMode::mod: case PointwiseMode::pow:
    case PointwiseMode::cmp_eq: case PointwiseMode::cmp_ge:
    case PointwiseMode::cmp_gt: case PointwiseMode::cmp_le:
    case PointwiseMode::cmp_lt: case PointwiseMode::cmp_neq:
    case PointwiseMode::bias: case PointwiseMode::scale:
    case PointwiseMode::relu_backward: case PointwiseMode::leaky_relu_backward:
    case PointwiseMode::swish_backward: case PointwiseMode::elu_backward:
    case PointwiseMode::gelu_approx_tanh_backward:
    case PointwiseMode::gelu_backward: case PointwiseMode::sigmoid_backward:
    case PointwiseMode::softplus_backward: case PointwiseMode::tanh_backward:
    case PointwiseMode::binary_select:
      return "";
    }
    llvm_unreachable("unknown pointwise mode");
  }
  if (auto reduction = dyn_cast<ReductionOp>(op)) {
    if (reduction.getGroupOffset())
      return "generated kernels have no ragged (group_offset) reduction";
    auto in = cast<RankedTensorType>(reduction.getInput().getType());
    auto out = cast<RankedTensorType>(reduction.getOutput().getType());
    if (in.getRank() != out.getRank())
      return "generated kernels reduce to a result of the input's rank";
    return "";
  }
  if (isa<LayernormOp, RmsnormOp, InstancenormOp, AdaLayernormOp,
          LayernormBackwardOp, RmsnormBackwardOp, InstancenormBackwardOp,
          AdaLayernormBackwardOp, BatchnormInferenceOp, GenstatsOp,
          TransposeOp, SliceOp, ConcatenateOp, ReshapeOp, RopeOp,
          RopeBackwardOp, BlockScaleDequantizeOp>(op))
    return "";
  if (auto quantize = dyn_cast<BlockScaleQuantizeOp>(op))
    return quantize.getGroupOffset()
               ? "generated kernels have no ragged (group_offset) quantize"
               : "";
  return ("generated kernels have no " + op->getName().stripDialect() +
          " yet")
      .str();
}

/// Why an engine declines `op`, or "" when it accepts it.
std::string declines(StringRef engine, Operation *op) {
  if (engine == "cudnn")
    return cudnnDeclines(op);
  if (engine == "codegen")
    return codegenDeclines(op);
  return ("unknown engine '" + engine + "'").str();
}

struct GraphSelectEngines
    : public mlir::graph::impl::GraphSelectEnginesBase<GraphSelectEngines> {
  using GraphSelectEnginesBase::GraphSelectEnginesBase;

  void runOnOperation() override {
    SmallVector<std::string> ranked(engines.begin(), engines.end());
    if (ranked.empty())
      ranked = {"cudnn", "codegen"};
    WalkResult result = getOperation().walk([&](GraphOp graph) {
      return succeeded(select(graph, ranked)) ? WalkResult::advance()
                                              : WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

  LogicalResult select(GraphOp graph, ArrayRef<std::string> ranked) {
    // Groups in id order with their ops in program order.
    llvm::MapVector<int64_t, SmallVector<Operation *>> groups;
    for (Operation &op : graph.getBody().front().without_terminator())
      if (auto id = op.getAttrOfType<IntegerAttr>(kGroupAttr))
        groups[id.getInt()].push_back(&op);
    if (groups.empty() && !graph.getBody().front().without_terminator().empty() &&
        llvm::any_of(graph.getBody().front().without_terminator(),
                     [](Operation &op) { return !isa<ScalarOp>(op); }))
      return graph.emitOpError()
             << "has no fused groups; run graph-fuse before "
                "graph-select-engines";

    Builder b(graph.getContext());
    int64_t next = 0;
    auto tag = [&](ArrayRef<Operation *> ops, ArrayRef<std::string> taking) {
      SmallVector<Attribute> names;
      for (const std::string &engine : taking)
        names.push_back(b.getStringAttr(engine));
      for (Operation *op : ops) {
        op->setAttr(kGroupAttr, b.getI64IntegerAttr(next));
        op->setAttr(kEnginesAttr, b.getArrayAttr(names));
      }
      ++next;
    };
    SmallVector<std::pair<int64_t, SmallVector<Operation *>>> ordered(
        groups.begin(), groups.end());
    llvm::sort(ordered, [](auto &x, auto &y) { return x.first < y.first; });
    for (auto &[id, ops] : ordered) {
      SmallVector<std::string> taking;
      for (const std::string &engine : ranked)
        if (llvm::all_of(ops, [&](Operation *op) {
              return declines(engine, op).empty();
            }))
          taking.push_back(engine);
      if (!taking.empty()) {
        tag(ops, taking);
        continue;
      }
      // Split: each op alone, in program order, keeps the schedule valid.
      for (Operation *op : ops) {
        SmallVector<std::string> alone;
        std::string why;
        for (const std::string &engine : ranked) {
          std::string reason = declines(engine, op);
          if (reason.empty())
            alone.push_back(engine);
          else
            why += "\n  " + engine + ": " + reason;
        }
        if (alone.empty())
          return emitNodeError(op) << "no engine can run this op; tried:"
                                   << why;
        tag({op}, alone);
      }
    }
    return success();
  }
};

} // namespace
