//===- SplitMoeRouting.cpp - Routed MoE matmuls as none mode + routing ----===//
//
// cuDNN 9.19 on the H200 has no engine for moe_grouped_matmul's scatter
// mode, and its gather-mode engine faults: the matmul runs in none mode
// (rows in expert order) and the row routing runs on the generated kernels,
// moe_scatter_rows after it or moe_gather_rows before it.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::graph {
#define GEN_PASS_DEF_GRAPHSPLITMOEGATHER
#define GEN_PASS_DEF_GRAPHSPLITMOESCATTER
#include "GraphDialect/Passes.h.inc"
} // namespace mlir::graph

using namespace mlir;
using namespace mlir::graph;

namespace {

/// The op's label, or its kind when it has none: the base of its parts'.
std::string baseLabel(Operation *op) {
  StringRef label = getNodeLabel(op);
  return label.empty() ? op->getName().stripDialect().str() : label.str();
}

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
  std::string base = baseLabel(op);
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

/// The rows `op` reads, gathered once per tokens and routing: an MoE
/// layer's gate and up projections route the same tokens alike.
using GatheredRows = llvm::DenseMap<std::pair<Value, Value>, Value>;

/// Splits a gather-mode `op` whose tokens are [1, T, K] (K static) of a
/// type the generated gather copies and whose routing is i32 (what
/// moe_gather_rows reads); false otherwise.
bool splitGather(MoeGroupedMatmulOp op, GatheredRows &gathered) {
  Value token = op.getToken(), index = op.getTokenIndex();
  auto tokenType = cast<RankedTensorType>(token.getType());
  if (!index || !holdsI32(index) || tokenType.getRank() != 3 ||
      tokenType.getDimSize(0) != 1)
    return false;
  auto indexType = cast<RankedTensorType>(index.getType());
  if (!indexType.hasStaticShape() || tokenType.isDynamicDim(2))
    return false;
  // The element types the generated gather copies; other tokens stay with
  // the gather-mode matmul, which engine selection then refuses (cuDNN's
  // gather plans fault; CudnnEngine::declines names these types).
  Type element = tokenType.getElementType();
  if (!isa<Float32Type, Float16Type, BFloat16Type, Float8E4M3FNType,
           Float8E5M2Type>(element))
    return false;
  OpBuilder b(op);
  Value &rows = gathered[{token, index}];
  if (!rows) {
    // The rows are a packed intermediate of the tokens' element type.
    SmallVector<int64_t> shape = {1, indexType.getNumElements(),
                                  tokenType.getDimSize(2)};
    auto rowsType = RankedTensorType::get(
        shape, tokenType.getElementType(),
        StridesAttr::get(op.getContext(), getRowMajorStrides(shape)));
    rows = MoeGatherRowsOp::create(b, op.getLoc(), rowsType, token, index,
                                   b.getStringAttr(baseLabel(op) + ".gather"),
                                   nullptr)
               .getOutput();
  }
  auto matmul = MoeGroupedMatmulOp::create(
      b, op.getLoc(), op.getOutput().getType(), rows, op.getWeight(),
      op.getFirstTokenOffset(), Value(), Value(), nullptr, nullptr,
      op.getNameAttr(), op.getComputeDataTypeAttr());
  op.getOutput().replaceAllUsesWith(matmul.getOutput());
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

struct GraphSplitMoeGather
    : public mlir::graph::impl::GraphSplitMoeGatherBase<GraphSplitMoeGather> {
  void runOnOperation() override {
    SmallVector<MoeGroupedMatmulOp> ops;
    getOperation().walk([&](MoeGroupedMatmulOp op) {
      if (op.getMode() == MoeMode::gather)
        ops.push_back(op);
    });
    // One gather per tokens and routing within a graph body: the first
    // matmul that reads them dominates the later ones of its block.
    llvm::DenseMap<Block *, GatheredRows> gathered;
    for (MoeGroupedMatmulOp op : ops)
      (void)splitGather(op, gathered[op->getBlock()]);
  }
};

} // namespace
