//===- WidenNormGradients.cpp - Backward norms write DX in x's type -------===//
//
// cuDNN's norm backward engines take DX in the input's type only (an f32 x
// with an f16 DX builds and computes NaN on cuDNN 9.19): the op writes DX
// in x's type and an identity op rounds it to the graph's type after it.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::graph {
#define GEN_PASS_DEF_GRAPHWIDENNORMGRADIENTS
#include "GraphDialect/Passes.h.inc"
} // namespace mlir::graph

using namespace mlir;
using namespace mlir::graph;

namespace {

/// Rewrites `op` (a backward norm with operand `input` and result `dx`);
/// false when the types already agree.
bool widen(Operation *op, Value input, Value dx) {
  auto inType = cast<RankedTensorType>(input.getType());
  auto dxType = cast<RankedTensorType>(dx.getType());
  Type want = inType.getElementType(), have = dxType.getElementType();
  if (want == have || !isa<FloatType>(want) || !isa<FloatType>(have))
    return false;
  OpBuilder b(op->getContext());
  b.setInsertionPointAfter(op);
  dx.setType(
      RankedTensorType::get(dxType.getShape(), want, dxType.getEncoding()));
  StringRef label = getNodeLabel(op);
  auto cast = PointwiseOp::create(
      b, op->getLoc(), dxType, PointwiseMode::identity, ValueRange{dx}, nullptr,
      nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
      b.getStringAttr((label.empty() ? op->getName().stripDialect() : label) +
                      ".dx_cast"),
      nullptr);
  dx.replaceAllUsesExcept(cast.getResult(), cast);
  return true;
}

struct GraphWidenNormGradients
    : public mlir::graph::impl::GraphWidenNormGradientsBase<
          GraphWidenNormGradients> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<LayernormBackwardOp, RmsnormBackwardOp, InstancenormBackwardOp,
              AdaLayernormBackwardOp, BatchnormBackwardOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops)
      llvm::TypeSwitch<Operation *>(op)
          .Case<LayernormBackwardOp, RmsnormBackwardOp, InstancenormBackwardOp,
                AdaLayernormBackwardOp, BatchnormBackwardOp>(
              [](auto norm) { widen(norm, norm.getInput(), norm.getDX()); });
  }
};

} // namespace
