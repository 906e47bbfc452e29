//===- SpecializeShapes.cpp - Bind dynamic dims to input shapes -----------===//
//
// The GPU lowers only static shapes: at execute time the graph is copied,
// its inputs get the dims of the given buffers, and every '?' of a node
// result is bound in program order from the op's type inference or, for ops
// that declare their results, from the same dim of an operand.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Groups.h"
#include "GraphDialect/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::graph {
#define GEN_PASS_DEF_GRAPHSPECIALIZESHAPES
#include "GraphDialect/Passes.h.inc"
} // namespace mlir::graph

using namespace mlir;
using namespace mlir::graph;

namespace {

std::string dimsText(ArrayRef<int64_t> dims) {
  if (dims.empty())
    return "[]";
  std::string text;
  for (int64_t d : dims)
    text += (text.empty() ? "" : "x") +
            (ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d));
  return text;
}

/// `input 0 (uid 1 "x")` for messages.
std::string inputName(GraphOp graph, unsigned i) {
  std::string text = "input " + std::to_string(i);
  std::optional<int64_t> uid = graph.getInputUid(i);
  auto name = graph.getArgAttrOfType<StringAttr>(i, "graph.name");
  if (uid || name) {
    text += " (";
    if (uid)
      text += "uid " + std::to_string(*uid);
    if (name)
      text += std::string(uid ? " " : "") + "\"" + name.getValue().str() + "\"";
    text += ")";
  }
  return text;
}

/// `type` with `shape`; its strides only when it was static (a dynamic
/// type's layout is decided again by graph-infer-layout).
RankedTensorType withShape(RankedTensorType type, ArrayRef<int64_t> shape) {
  Attribute encoding = type.hasStaticShape() ? type.getEncoding() : Attribute();
  return RankedTensorType::get(shape, type.getElementType(), encoding);
}

LogicalResult bindResults(Operation *op) {
  SmallVector<Type> inferred;
  if (auto infer = dyn_cast<InferTypeOpInterface>(op))
    if (failed(infer.inferReturnTypes(
            op->getContext(), op->getLoc(), op->getOperands(),
            op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
            op->getRegions(), inferred)))
      inferred.clear(); // the verifier below says why
  for (OpResult result : op->getResults()) {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    if (!type || type.hasStaticShape())
      continue;
    SmallVector<int64_t> shape(type.getShape());
    auto inferredType =
        inferred.size() == op->getNumResults()
            ? dyn_cast<RankedTensorType>(inferred[result.getResultNumber()])
            : RankedTensorType();
    for (int64_t d = 0, e = type.getRank(); d < e; ++d) {
      if (!ShapedType::isDynamic(shape[d]))
        continue;
      if (inferredType && inferredType.getRank() == e &&
          !inferredType.isDynamicDim(d)) {
        shape[d] = inferredType.getDimSize(d);
        continue;
      }
      // An op that declares its result: the dim passes through from the
      // first operand of the same rank that has it.
      for (Value operand : op->getOperands()) {
        auto operandType = dyn_cast<RankedTensorType>(operand.getType());
        if (operandType && operandType.getRank() == e &&
            !operandType.isDynamicDim(d)) {
          shape[d] = operandType.getDimSize(d);
          break;
        }
      }
      if (ShapedType::isDynamic(shape[d]))
        return op->emitOpError()
               << "result " << result.getResultNumber() << " dim " << d
               << " of " << dimsText(type.getShape())
               << " stays dynamic after binding the inputs: no operand of "
                  "rank "
               << e << " gives it";
    }
    result.setType(withShape(type, shape));
  }
  return success();
}

} // namespace

LogicalResult
mlir::graph::specializeShapes(GraphOp graph,
                              ArrayRef<SmallVector<int64_t>> inputShapes) {
  Block &body = graph.getBody().front();
  std::string name = "graph @" + graph.getSymName().str();
  if (inputShapes.size() != body.getNumArguments())
    return graph.emitError() << name << ": " << inputShapes.size()
                             << " input shapes given for "
                             << body.getNumArguments() << " inputs";
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    auto type = cast<RankedTensorType>(arg.getType());
    ArrayRef<int64_t> given = inputShapes[i];
    std::string who = name + ": " + inputName(graph, i);
    if (static_cast<int64_t>(given.size()) != type.getRank())
      return graph.emitError()
             << who << " is declared " << dimsText(type.getShape())
             << " (rank " << type.getRank() << ") but the given shape "
             << dimsText(given) << " has rank " << given.size();
    for (int64_t d = 0, e = type.getRank(); d < e; ++d) {
      if (given[d] < 0)
        return graph.emitError() << who << ": given dim " << d << " is "
                                 << given[d] << " (dims are not negative)";
      if (!type.isDynamicDim(d) && type.getDimSize(d) != given[d])
        return graph.emitError()
               << who << " is declared " << dimsText(type.getShape())
               << " but the given shape is " << dimsText(given) << ": dim "
               << d << " is fixed at " << type.getDimSize(d)
               << " (only '?' dims bind)";
    }
    if (!type.hasStaticShape())
      arg.setType(withShape(type, given));
  }
  for (Operation &op : body.without_terminator()) {
    // A fused group binds its block arguments from its operands, its ops
    // in order, then its results from the values it yields.
    if (auto group = dyn_cast<GroupOp>(op)) {
      for (auto [arg, input] : llvm::zip(group.getBody().front().getArguments(),
                                         group.getInputs()))
        arg.setType(input.getType());
      for (Operation &node : group.getNodes())
        if (failed(bindResults(&node)))
          return failure();
      for (auto [result, value] :
           llvm::zip(group.getResults(), group.getYieldOp().getValues()))
        result.setType(value.getType());
      continue;
    }
    if (failed(bindResults(&op)))
      return failure();
  }
  graph.setFunctionTypeAttr(TypeAttr::get(
      FunctionType::get(graph.getContext(), body.getArgumentTypes(),
                        graph.getOutputOp().getOperandTypes())));
  return verify(graph);
}

namespace {

struct GraphSpecializeShapes
    : public mlir::graph::impl::GraphSpecializeShapesBase<
          GraphSpecializeShapes> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<SmallVector<int64_t>> inputShapes;
    for (const std::string &text : shapes) {
      SmallVector<int64_t> dims;
      if (text != "[]") {
        SmallVector<StringRef> parts;
        StringRef(text).split(parts, 'x');
        for (StringRef part : parts) {
          int64_t d;
          if (part.getAsInteger(10, d)) {
            getOperation().emitError()
                << "graph-specialize-shapes: malformed shape '" << text
                << "' (expected e.g. 4x64, or [] for rank 0)";
            return signalPassFailure();
          }
          dims.push_back(d);
        }
      }
      inputShapes.push_back(std::move(dims));
    }
    for (GraphOp graph : getOperation().getOps<GraphOp>())
      if (failed(specializeShapes(graph, inputShapes)))
        return signalPassFailure();
  }
};

} // namespace
