//===- InferLayout.cpp - Decide undecided tensor strides ------------------===//

#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Groups.h"
#include "GraphDialect/Passes.h"
#include "GraphDialect/Support/CheckedMath.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLExtras.h"

namespace mlir::graph {
#define GEN_PASS_DEF_GRAPHINFERLAYOUT
#include "GraphDialect/Passes.h.inc"
} // namespace mlir::graph

using namespace mlir;
using namespace mlir::graph;

namespace {

bool hasStaticShape(RankedTensorType type) { return type.hasStaticShape(); }

/// Dense strides that order the dims as `order` does (outermost first).
SmallVector<int64_t> denseStridesInOrder(ArrayRef<int64_t> shape,
                                         ArrayRef<unsigned> order) {
  SmallVector<int64_t> strides(shape.size(), 1);
  int64_t step = 1;
  for (unsigned dim : llvm::reverse(order)) {
    strides[dim] = step;
    // Verified tensors fit in 63 bits; saturate rather than wrap regardless.
    step = ::graph::checkedMul(step, std::max<int64_t>(shape[dim], 1))
               .value_or(::graph::kMaxTensorBytes);
  }
  return strides;
}

/// Channels-last: N, spatial..., C from outermost to innermost.
SmallVector<int64_t> channelsLastStrides(ArrayRef<int64_t> shape) {
  SmallVector<unsigned> order{0};
  for (unsigned d = 2; d < shape.size(); ++d)
    order.push_back(d);
  order.push_back(1);
  return denseStridesInOrder(shape, order);
}

/// The outermost-first dim order `strides` imply (ties keep dim order).
SmallVector<unsigned> orderOf(ArrayRef<int64_t> strides) {
  SmallVector<unsigned> order(strides.size());
  for (unsigned i = 0; i < order.size(); ++i)
    order[i] = i;
  llvm::stable_sort(order, [&](unsigned a, unsigned b) {
    return strides[a] > strides[b];
  });
  return order;
}

bool isLowPrecision(Type type) {
  Type element = cast<RankedTensorType>(type).getElementType();
  return element.isF16() || element.isBF16() ||
         isa<Float8E4M3FNType, Float8E5M2Type>(element);
}

/// A convolution or batch norm in f16, bf16 or fp8: cuDNN runs those
/// channels-last (its batch-norm engines find no config for per-channel
/// broadcasts over NCHW), every tensor of the node alike (an f32 filter
/// gradient of an f16 conv_wgrad, f32 statistics of an f16 batchnorm).
bool isChannelsLastConv(Operation *op) {
  return isa<ConvFpropOp, ConvDgradOp, ConvWgradOp, BatchnormOp,
             BatchnormInferenceOp, BatchnormBackwardOp>(op) &&
         (llvm::any_of(op->getOperandTypes(), isLowPrecision) ||
          llvm::any_of(op->getResultTypes(), isLowPrecision));
}

/// The strides the frontend gives each pointwise result, through virtual
/// tensors too: those of its first operand of the same dims, as they are.
using InheritedStrides = DenseMap<Value, SmallVector<int64_t>>;

bool isGraphOutput(Value value) {
  return llvm::any_of(value.getUsers(),
                      [](Operation *user) { return isa<OutputOp>(user); });
}

/// The frontend's rule for a pointwise result: the strides of its last
/// operand of the same dims (not a broadcast one; its operand map iterates
/// IN_2, IN_1, IN_0 and the first match wins). A graph output takes them
/// as they are where they are a legal output layout, so an in-place write
/// into a strided view (rope into a slice of q) lands where the frontend
/// writes it; a virtual tensor is packed in that dim order (scratch holds
/// only its elements), as is an output whose inherited strides overlap.
/// With no such operand, the first operand's dim order, packed.
SmallVector<int64_t> pointwiseStrides(PointwiseOp pw, Value result,
                                      ArrayRef<int64_t> shape,
                                      InheritedStrides &inherited) {
  for (Value input : llvm::reverse(pw.getInputs())) {
    auto inType = cast<RankedTensorType>(input.getType());
    ArrayRef<int64_t> inStrides = getStrides(inType);
    if (inType.getShape() != shape || inStrides.empty())
      continue;
    auto it = inherited.find(input);
    SmallVector<int64_t> strides = it != inherited.end()
                                       ? it->second
                                       : SmallVector<int64_t>(inStrides);
    inherited[result] = strides;
    bool legalOutput =
        llvm::all_of(strides, [](int64_t s) { return s > 0; }) &&
        describeStrideOverlap(shape, strides).empty();
    if (legalOutput && isGraphOutput(result))
      return strides;
    return denseStridesInOrder(shape, orderOf(strides));
  }
  if (pw.getInputs().empty())
    return {};
  ArrayRef<int64_t> first =
      getStrides(cast<RankedTensorType>(pw.getInputs().front().getType()));
  if (first.size() != shape.size())
    return {};
  return denseStridesInOrder(shape, orderOf(first));
}

/// Gives `value` a strides encoding when it has none; returns true if changed.
bool decide(Value value, InheritedStrides &inherited) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getEncoding() || !hasStaticShape(type))
    return false;
  ArrayRef<int64_t> shape = type.getShape();
  SmallVector<int64_t> strides;

  // Channels-last: every convolution result, and every tensor of a
  // low-precision convolution or batch norm.
  Operation *def = value.getDefiningOp();
  bool channelsLast = def && (isa<ConvFpropOp, ConvDgradOp, ConvWgradOp>(def) ||
                              isChannelsLastConv(def));
  for (Operation *user : getResolvedUsers(value))
    channelsLast |= isChannelsLastConv(user);

  if (channelsLast && (type.getRank() == 4 || type.getRank() == 5)) {
    // A convolution's result is channels-last in every dtype, as the
    // frontend infers it whatever the image's layout: with one input
    // channel a channels-last image's strides tie ([N,1,H,W] as
    // [HW,1,W,1]), so following the image's order would write a row-major
    // Y into the caller's channels-last buffer.
    strides = channelsLastStrides(shape);
  } else if (value.getDefiningOp<MoeGroupedMatmulBwdOp>() &&
             shape.size() >= 3) {
    // dWeight [experts, K, N] is column-major per expert (strides
    // [K N, 1, K]), as the frontend infers it.
    SmallVector<unsigned> order;
    for (unsigned d = 0; d + 2 < shape.size(); ++d)
      order.push_back(d);
    order.push_back(shape.size() - 1);
    order.push_back(shape.size() - 2);
    strides = denseStridesInOrder(shape, order);
  } else if (isGraphOutput(value) && value.getDefiningOp<ReductionOp>()) {
    // A reduction's graph output is channels-last from rank 3 on (row-major
    // below), as the frontend infers it whatever the input's layout; a
    // virtual one stays row-major. (The frontend gives backward norms' DX
    // channels-last too; here DX follows X's order, which agrees for the
    // channels-last inputs those engines take and keeps a [B, S, H] DX
    // row-major.)
    strides = shape.size() >= 3 ? channelsLastStrides(shape)
                                : getRowMajorStrides(shape);
  } else if (auto concat = value.getDefiningOp<ConcatenateOp>()) {
    // The first input's dim order, packed.
    ArrayRef<int64_t> first =
        getStrides(cast<RankedTensorType>(concat->getOperand(0).getType()));
    if (first.size() == shape.size())
      strides = denseStridesInOrder(shape, orderOf(first));
  } else if (auto pw = value.getDefiningOp<PointwiseOp>()) {
    strides = pointwiseStrides(pw, value, shape, inherited);
  } else if (def && isa<LayernormOp, RmsnormOp, InstancenormOp, AdaLayernormOp,
                        BatchnormOp, BatchnormInferenceOp, LayernormBackwardOp,
                        RmsnormBackwardOp, InstancenormBackwardOp,
                        AdaLayernormBackwardOp, BatchnormBackwardOp>(def)) {
    // A norm's Y (a backward norm's DX) is laid out like its input: cuDNN's
    // norm engines take x and y of one shape and strides only (an f32
    // channels-last conv output feeding a batch norm, say).
    for (Value operand : def->getOperands()) {
      auto inType = cast<RankedTensorType>(operand.getType());
      ArrayRef<int64_t> inStrides = getStrides(inType);
      if (inType.getShape() == shape && !inStrides.empty()) {
        strides = denseStridesInOrder(shape, orderOf(inStrides));
        break;
      }
    }
  }
  if (strides.empty())
    strides = getRowMajorStrides(shape);
  value.setType(RankedTensorType::get(
      shape, type.getElementType(),
      StridesAttr::get(type.getContext(), strides)));
  return true;
}

void inferLayout(GraphOp graph) {
  Block &body = graph.getBody().front();
  InheritedStrides inherited;
  for (BlockArgument arg : body.getArguments())
    decide(arg, inherited);
  // Program order: a pointwise op sees its operands decided. A fused
  // group's block arguments take the types of the operands they are bound
  // to before its ops are decided, and its results the types of the values
  // it yields after.
  auto visit = [&](Operation *op, const WalkStage &stage) {
    if (auto group = dyn_cast<GroupOp>(op)) {
      if (stage.isBeforeAllRegions())
        for (auto [arg, input] :
             llvm::zip(group.getBody().front().getArguments(),
                       group.getInputs()))
          arg.setType(input.getType());
      if (stage.isAfterAllRegions())
        for (auto [result, value] :
             llvm::zip(group.getResults(), group.getYieldOp().getValues()))
          result.setType(value.getType());
      return;
    }
    if (stage.isBeforeAllRegions())
      for (Value result : op->getResults())
        decide(result, inherited);
  };
  for (Operation &op : body)
    op.walk(visit);
  // Keep the signature in step with the body.
  OutputOp output = graph.getOutputOp();
  graph.setFunctionTypeAttr(TypeAttr::get(FunctionType::get(
      graph.getContext(), body.getArgumentTypes(),
      output.getOperandTypes())));
}

struct GraphInferLayout
    : public mlir::graph::impl::GraphInferLayoutBase<GraphInferLayout> {
  void runOnOperation() override {
    getOperation().walk([](GraphOp graph) { inferLayout(graph); });
  }
};

} // namespace
