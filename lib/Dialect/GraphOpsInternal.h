//===- GraphOpsInternal.h - Helpers shared by the node op files -*- C++ -*-===//
//
// The shape and diagnostic helpers that the verifiers, folds and parsers of
// the node ops (GraphOps.cpp, GraphOpsNorm.cpp, GraphOpsAttention.cpp,
// GraphOpsMatmulConv.cpp, GraphOpsDataMovement.cpp) share, and the assembly
// of the ops whose result type may be left out. Private to lib/Dialect: not
// installed, not part of the API. Helpers that one file alone uses stay in
// that file.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_LIB_DIALECT_GRAPHOPSINTERNAL_H
#define GRAPHDIALECT_LIB_DIALECT_GRAPHOPSINTERNAL_H

#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Support/Shape.h"

#include <string>

namespace mlir::graph::detail {

// numpy broadcasting, a '?' dim matching any dim (kDynamicDim is
// ShapedType::kDynamic).
using ::graph::broadcastsTo;

//===----------------------------------------------------------------------===//
// Shape helpers
//===----------------------------------------------------------------------===//

inline ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}
inline int64_t rankOf(Value value) { return shapeOf(value).size(); }
inline Type elementOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

inline bool dimsCompatible(int64_t a, int64_t b) {
  return a == b || ShapedType::isDynamic(a) || ShapedType::isDynamic(b);
}

/// "4x16", "?x8", "[] (rank 0)" for rank 0.
std::string formatDims(ArrayRef<int64_t> dims);

/// The element count of static `dims`, kDynamic when one is dynamic. The
/// count of a verified tensor fits (verifyCommon checks the byte size first);
/// an overflow saturates at INT64_MAX rather than wrap.
int64_t staticElementCount(ArrayRef<int64_t> dims);

//===----------------------------------------------------------------------===//
// Verifier rules
//===----------------------------------------------------------------------===//

/// Checks shared by every node op: dims are positive (or dynamic), every
/// tensor's byte size fits in 63 bits and the compute type is a float type.
LogicalResult verifyCommon(Operation *op);

/// `port`'s dims must be `expected`; `why` says where they come from.
LogicalResult expectDims(Operation *op, StringRef port, Value value,
                         ArrayRef<int64_t> expected, const Twine &why);

/// Each result the shape rule requires dims of (ResultDims::set) has them:
/// the verifier's half of the rule, after inferResultDims checked the
/// operands.
LogicalResult checkResultDims(Operation *op, const ResultDims &dims);

/// The verifier of an op whose rule covers every result: the common checks,
/// the shape rule on the operands, then checkResultDims.
template <typename OpTy> LogicalResult verifyByRule(OpTy op) {
  ResultDims dims;
  if (failed(verifyCommon(op)) || failed(op.inferResultDims(dims)))
    return failure();
  return checkResultDims(op, dims);
}

/// `port` holds exactly one element (a scalar such as epsilon).
LogicalResult expectOneElement(Operation *op, StringRef port, Value value);

/// An optional result exists exactly when `wanted` (a flag, or the presence
/// of an operand) asks for it; the message says which side is missing.
LogicalResult expectResultExactlyWhen(Operation *op, bool wanted, Value result,
                                      StringRef missingResult,
                                      StringRef unwantedResult);

//===----------------------------------------------------------------------===//
// Folds
//===----------------------------------------------------------------------===//

/// Folding `result` into `replacement` must not change what a graph output
/// holds: an output buffer is written by the node that produces it, so an
/// output only folds into a value a node computes that is no output yet (not
/// a graph input, a scalar or another output, whose buffers are distinct).
bool keepsOutputs(Value result, Value replacement);

//===----------------------------------------------------------------------===//
// Result type inference and the assembly that may omit the result type
//===----------------------------------------------------------------------===//

// Inference never fails on inconsistent operands: it returns its best guess
// and leaves the diagnosis to the verifier, whose messages name the rule.

/// A ranked tensor of `shape` with `like`'s element type and no encoding.
inline Type inferredTensor(ArrayRef<int64_t> shape, Value like) {
  return RankedTensorType::get(shape, elementOf(like));
}

/// The part after the operands: `attr-dict : (types) [-> types]`. Without
/// the arrow, the result types come from the op's InferTypeOpInterface.
template <typename OpTy>
ParseResult
parseInferredResultTail(OpAsmParser &parser, OperationState &result,
                        ArrayRef<OpAsmParser::UnresolvedOperand> operands,
                        llvm::SMLoc loc) {
  MLIRContext *context = parser.getContext();
  SmallVector<Type> operandTypes, resultTypes;
  NamedAttrList attrs;
  if (parser.parseOptionalAttrDict(attrs) || parser.parseColon() ||
      parser.parseLParen())
    return failure();
  if (failed(parser.parseOptionalRParen()) &&
      (parser.parseTypeList(operandTypes) || parser.parseRParen()))
    return failure();
  bool explicitResults = succeeded(parser.parseOptionalArrow());
  if (explicitResults) {
    // `-> type` or `-> (type, ...)`.
    if (succeeded(parser.parseOptionalLParen())) {
      if (parser.parseTypeList(resultTypes) || parser.parseRParen())
        return failure();
    } else if (parser.parseTypeList(resultTypes)) {
      return failure();
    }
  }
  if (parser.resolveOperands(operands, operandTypes, loc, result.operands))
    return failure();
  // As the declarative parsers do: attributes stay in the list (inherent
  // ones move to the properties when the op is created) after the same
  // constraint checks and messages.
  result.attributes.append(attrs);
  if (failed(OpTy::verifyInherentAttrs(result.name, result.attributes, [&]() {
        return parser.emitError(loc)
               << "'" << result.name.getStringRef() << "' op ";
      })))
    return failure();
  typename OpTy::Properties properties;
  NamedAttrList inherent;
  for (NamedAttribute attr : result.attributes)
    if (llvm::is_contained(OpTy::getAttributeNames(),
                           attr.getName().getValue()))
      inherent.push_back(attr);
  if (failed(OpTy::setPropertiesFromAttr(
          properties, inherent.getDictionary(context),
          [&]() { return parser.emitError(loc); })))
    return failure();
  if (!explicitResults) {
    typename OpTy::Adaptor adaptor(
        result.operands, result.attributes.getDictionary(context), properties);
    if (failed(OpTy::inferReturnTypes(context, result.location, adaptor,
                                      resultTypes)))
      return parser.emitError(loc, "cannot infer the result type of ")
             << OpTy::getOperationName() << "; write it after '->'";
  }
  result.addTypes(resultTypes);
  return success();
}

/// `operands attr-dict : (operand types) [-> result types]`.
template <typename OpTy>
ParseResult parseInferredResultOp(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  llvm::SMLoc loc = parser.getCurrentLocation();
  if (parser.parseOperandList(operands))
    return failure();
  return parseInferredResultTail<OpTy>(parser, result, operands, loc);
}

/// Prints the explicit form always, so text round-trips exactly.
void printInferredResultOp(OpAsmPrinter &printer, Operation *op);

} // namespace mlir::graph::detail

/// parse, print and isCompatibleReturnTypes of an op whose assembly is
/// `operands attr-dict : (operand types) [-> result types]`.
#define GRAPH_INFERRED_RESULT_ASSEMBLY(OP)                                     \
  ParseResult OP::parse(OpAsmParser &parser, OperationState &result) {         \
    return ::mlir::graph::detail::parseInferredResultOp<OP>(parser, result);   \
  }                                                                            \
  void OP::print(OpAsmPrinter &printer) {                                      \
    ::mlir::graph::detail::printInferredResultOp(printer, getOperation());     \
  }                                                                            \
  bool OP::isCompatibleReturnTypes(TypeRange l, TypeRange r) {                 \
    /* The verifier checks dims with a precise message; element types and  */  \
    /* encodings of results are the user's choice. */                          \
    return l.size() == r.size();                                               \
  }

#endif // GRAPHDIALECT_LIB_DIALECT_GRAPHOPSINTERNAL_H
