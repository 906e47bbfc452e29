//===- GraphToLinalg.cpp - A func of graph ops as linalg on tensors ------===//
//
// Drives the per-family patterns (populatePointwiseToLinalgPatterns,
// populateReductionToLinalgPatterns) over a func holding one group's graph
// ops in destination-passing form, and writes each result into its output
// argument.
//
//===----------------------------------------------------------------------===//

#include "GraphToLinalg.h"

#include "GraphDialect/Conversion/GraphToCodegen.h"
#include "GraphDialect/GraphDialect.h"
#include "GraphDialect/GraphOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::graph;

GroupTensorTypeConverter::GroupTensorTypeConverter(int64_t rank) : rank(rank) {
  addConversion([this](RankedTensorType type) -> Type {
    Type element = type.getElementType();
    if (!type.hasStaticShape() || type.getRank() > this->rank ||
        !(element.isF32() || element.isF16() || element.isBF16()))
      return nullptr;
    SmallVector<int64_t> shape(this->rank - type.getRank(), 1);
    llvm::append_range(shape, type.getShape());
    return RankedTensorType::get(shape, element);
  });
}

int64_t mlir::graph::groupTensorRank(TypeRange types) {
  int64_t rank = 3;
  for (Type type : types)
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      rank = std::max(rank, tensor.getRank());
  return rank;
}

RankedTensorType mlir::graph::paddedTensorType(const TypeConverter *converter,
                                               Value value) {
  return dyn_cast_or_null<RankedTensorType>(
      converter->convertType(value.getType()));
}

Value mlir::graph::destinationFor(OpBuilder &b, Location loc, Value result,
                                  RankedTensorType type) {
  for (OpOperand &use : result.getUses()) {
    auto ret = dyn_cast<func::ReturnOp>(use.getOwner());
    if (!ret)
      continue;
    auto func = ret->getParentOfType<func::FuncOp>();
    unsigned outputs = ret.getNumOperands();
    return func.getArgument(func.getNumArguments() - outputs +
                            use.getOperandNumber());
  }
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

std::optional<double> mlir::graph::byValueScalar(Value value) {
  auto scalar = value.getDefiningOp<ScalarOp>();
  if (!scalar)
    return std::nullopt;
  if (auto f = dyn_cast<FloatAttr>(scalar.getValue()))
    return f.getValueAsDouble();
  if (auto i = dyn_cast<IntegerAttr>(scalar.getValue()))
    return static_cast<double>(i.getInt());
  return 0.0;
}

Value mlir::graph::widenToF32(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isF32())
    return v;
  return arith::ExtFOp::create(b, loc, b.getF32Type(), v);
}

Value mlir::graph::narrowFromF32(OpBuilder &b, Location loc, Value v, Type to) {
  if (to.isF32())
    return v;
  return arith::TruncFOp::create(b, loc, to, v);
}

std::string mlir::graph::lowerGraphOpsToLinalg(func::FuncOp func) {
  MLIRContext *context = func.getContext();
  SmallVector<Type> types;
  func.walk([&](Operation *op) {
    if (isa<GraphDialect>(op->getDialect()) && !isa<ScalarOp>(op)) {
      llvm::append_range(types, op->getOperandTypes());
      llvm::append_range(types, op->getResultTypes());
    }
  });
  GroupTensorTypeConverter converter(groupTensorRank(types));
  ConversionTarget target(*context);
  target.addLegalDialect<
      arith::ArithDialect, bufferization::BufferizationDialect,
      linalg::LinalgDialect, math::MathDialect, tensor::TensorDialect>();
  target.addIllegalDialect<GraphDialect>();
  // Read in place by the patterns (byValueScalar); erased below.
  target.addLegalOp<ScalarOp>();
  target.addDynamicallyLegalOp<func::ReturnOp>([&](func::ReturnOp op) {
    return converter.isLegal(op.getOperandTypes());
  });
  RewritePatternSet patterns(context);
  populatePointwiseToLinalgPatterns(converter, patterns);
  populateReductionToLinalgPatterns(converter, patterns);
  populateReturnOpTypeConversionPattern(patterns, converter);

  std::string why;
  {
    ScopedDiagnosticHandler capture(context, [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error)
        why += (why.empty() ? "" : "; ") + diag.str();
      return success();
    });
    // No folding: graph ops fold (an identity to its operand), which would
    // drop ops the patterns write into their output arguments.
    ConversionConfig config;
    config.foldingMode = DialectConversionFoldingMode::Never;
    if (failed(
            applyPartialConversion(func, target, std::move(patterns), config)))
      return why.empty() ? "the group's ops do not lower to linalg" : why;
  }

  // The casts between a caller's types and the group's padded ones fold
  // away; then the scalars have no readers left.
  SmallVector<UnrealizedConversionCastOp> casts;
  func.walk([&](UnrealizedConversionCastOp cast) { casts.push_back(cast); });
  SmallVector<UnrealizedConversionCastOp> remaining;
  reconcileUnrealizedCasts(casts, &remaining);
  for (UnrealizedConversionCastOp cast : llvm::reverse(remaining)) {
    if (!cast->use_empty())
      return "the group's tensor types do not convert";
    cast->erase(); // read only by the ops the patterns replaced
  }
  func.walk([&](ScalarOp scalar) {
    if (scalar->use_empty())
      scalar->erase();
  });

  // Each result is written into its output argument: a pointwise generic
  // never reads its init, so canonicalization swaps the argument for a
  // tensor.empty and bufferization would write a temporary instead.
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  unsigned inputs = func.getNumArguments() - ret.getNumOperands();
  OpBuilder b(ret);
  for (unsigned i = 0; i < ret.getNumOperands(); ++i) {
    BlockArgument destination = func.getArgument(inputs + i);
    func.setArgAttr(inputs + i, "bufferization.writable", b.getBoolAttr(true));
    Value value = ret.getOperand(i);
    if (value != destination)
      ret.setOperand(i,
                     bufferization::MaterializeInDestinationOp::create(
                         b, ret.getLoc(), value.getType(), value, destination)
                         .getResult());
  }
  return "";
}
