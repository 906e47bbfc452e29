//===- SplitMoeScatter.cpp - Scatter-mode MoE matmul as none + scatter ----===//
//
// cuDNN 9.19 has no engine for moe_grouped_matmul's scatter mode on the
// H200: the matmul runs in none mode (rows in expert order) and the row
// routing runs as moe_scatter_rows on the generated kernels.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::graph {
#define GEN_PASS_DEF_GRAPHSPLITMOESCATTER
#include "GraphDialect/Passes.h.inc"
} // namespace mlir::graph

using namespace mlir;
using namespace mlir::graph;

namespace {

bool holdsI32(Value value) {
  return value &&
         cast<RankedTensorType>(value.getType()).getElementType().isInteger(32);
}

/// Splits `op` when its output has as many rows as its tokens and its
/// routing and offsets are i32 (what moe_scatter_rows reads); false
/// otherwise.
bool split(MoeGroupedMatmulOp op) {
  auto outType = cast<RankedTensorType>(op.getOutput().getType());
  auto tokenType = cast<RankedTensorType>(op.getToken().getType());
  auto weightType = cast<RankedTensorType>(op.getWeight().getType());
  auto offsetType = cast<RankedTensorType>(op.getFirstTokenOffset().getType());
  if (outType.getRank() != 3 || tokenType.getRank() != 3 ||
      !outType.hasStaticShape() || !weightType.hasStaticShape() ||
      !offsetType.hasStaticShape() ||
      outType.getDimSize(1) != tokenType.getDimSize(1) ||
      !holdsI32(op.getTokenIndex()) || !holdsI32(op.getTokenKs()) ||
      !holdsI32(op.getFirstTokenOffset()) || !op.getTopK())
    return false;
  // The offsets' format, as the matmul reads them: one start per group
  // (the last group runs to the last token row), or the starts and the
  // last group's end (E + 1 entries per E experts; a single expert always
  // gives both).
  int64_t experts = weightType.getDimSize(0);
  int64_t count = offsetType.getNumElements();
  if (experts < 1 || count < 1 || count % experts > 1)
    return false;
  bool bounded = experts == 1 || count % experts == 1;
  if (bounded && count < 2)
    return false; // no end to bound the rows by: the matmul's error stands
  OpBuilder b(op);
  StringRef label = getNodeLabel(op);
  std::string base =
      label.empty() ? op->getName().stripDialect().str() : label.str();
  // The rows in expert order: the output's type (dims, element type and
  // layout), written by none mode.
  auto rows = MoeGroupedMatmulOp::create(
      b, op.getLoc(), outType, op.getToken(), op.getWeight(),
      op.getFirstTokenOffset(), Value(), Value(), nullptr, nullptr,
      b.getStringAttr(base + ".rows"), op.getComputeDataTypeAttr());
  auto scatter = MoeScatterRowsOp::create(
      b, op.getLoc(), outType, rows.getOutput(), op.getTokenIndex(),
      op.getTokenKs(), op.getFirstTokenOffset(), *op.getTopK(), bounded,
      op.getNameAttr(), nullptr);
  op.getOutput().replaceAllUsesWith(scatter.getOutput());
  op.erase();
  return true;
}

struct GraphSplitMoeScatter
    : public mlir::graph::impl::GraphSplitMoeScatterBase<GraphSplitMoeScatter> {
  void runOnOperation() override {
    SmallVector<MoeGroupedMatmulOp> ops;
    getOperation().walk([&](MoeGroupedMatmulOp op) {
      if (op.getMode() == MoeMode::scatter)
        ops.push_back(op);
    });
    for (MoeGroupedMatmulOp op : ops)
      (void)split(op);
  }
};

} // namespace
