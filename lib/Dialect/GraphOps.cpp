//===- GraphOps.cpp - Shared verifier helpers and the single node ops ----===//
//
// Every rule the cuDNN frontend and cuDNN apply to a node, plus the ones the
// frontend leaves to a late backend failure. Each diagnostic names the op
// kind and label, the port or attribute, the rule and the values involved:
//   matmul "mm1": K of A is 128 but K of B is 64
//
// This file holds the helpers the node op files share (declared in
// GraphOpsInternal.h) and the ops that form no family: scalar, pointwise
// (verifier, fold, assembly, inference), reduction and block-scale
// quantization. The families live beside it:
//   GraphOpsNorm.cpp          layer/rms/instance/adaptive/batch norms, genstats
//   GraphOpsAttention.cpp     sdpa variants, rope, linear attention
//   GraphOpsMatmulConv.cpp    matmul, the convolutions, MoE grouped matmul
//   GraphOpsDataMovement.cpp  reshape, slice, transpose, concatenate
// The TableGen'd op definitions are compiled once, in GraphDialect.cpp.
//
//===----------------------------------------------------------------------===//

#include "GraphOpsInternal.h"

#include "EnumKeyword.h"
#include "GraphDialect/Support/CheckedMath.h"

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::graph::detail;

static_assert(::graph::kDynamicDim == ShapedType::kDynamic,
              "Support's dynamic dim must be MLIR's");

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

namespace mlir::graph::detail {

std::string formatDims(ArrayRef<int64_t> dims) {
  if (dims.empty())
    return "[] (rank 0)";
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(
      dims, os,
      [&](int64_t d) {
        if (ShapedType::isDynamic(d))
          os << "?";
        else
          os << d;
      },
      "x");
  return text;
}

int64_t staticElementCount(ArrayRef<int64_t> dims) {
  if (llvm::any_of(dims, ShapedType::isDynamic))
    return ShapedType::kDynamic;
  return ::graph::checkedElementCount(dims).value_or(::graph::kMaxTensorBytes);
}

namespace {
bool shapesCompatible(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  if (a.size() != b.size())
    return false;
  for (auto [x, y] : llvm::zip(a, b))
    if (!dimsCompatible(x, y))
      return false;
  return true;
}
} // namespace

LogicalResult verifyCommon(Operation *op) {
  auto check = [&](Value value, StringRef kind, unsigned index) {
    for (auto [d, extent] : llvm::enumerate(shapeOf(value)))
      if (!ShapedType::isDynamic(extent) && extent <= 0)
        return LogicalResult(emitNodeError(op)
                             << kind << " " << index << " has dim " << d
                             << " = " << extent << " (dims must be positive)");
    if (!fitsTensorByteLimit(cast<RankedTensorType>(value.getType())))
      return LogicalResult(emitNodeError(op)
                           << kind << " " << index << " (" << value.getType()
                           << ") is larger than 2^63 bytes (a tensor's byte "
                           << "size must fit in 63 bits)");
    return LogicalResult(success());
  };
  for (auto [i, value] : llvm::enumerate(op->getOperands()))
    if (failed(check(value, "operand", i)))
      return failure();
  for (auto [i, value] : llvm::enumerate(op->getResults()))
    if (failed(check(value, "result", i)))
      return failure();
  if (auto cdt = op->getAttrOfType<TypeAttr>("compute_data_type")) {
    // Logical ops and comparisons may compute in booleans (cuDNN's BOOLEAN
    // math precision: the frontend's samples pass it to logical_and, its
    // flexible-attention tests to cmp_ge); the modes that are exact on
    // integers in i32 (INT32: the frontend's score_mod masks subtract and
    // compare gen_index results so). Every engine computes these on the
    // values themselves, so the type changes nothing but the name.
    auto pointwise = dyn_cast<PointwiseOp>(op);
    bool boolean = false, integer = false;
    if (pointwise) {
      PointwiseMode mode = pointwise.getMode();
      boolean = PointwiseOp::isLogical(mode) || PointwiseOp::isComparison(mode);
      integer = boolean || PointwiseOp::isIntegerExact(mode);
    }
    Type type = cdt.getValue();
    if ((boolean && type.isInteger(1)) || (integer && type.isInteger(32)))
      return success();
    if (!isa<FloatType>(type))
      return emitNodeError(op)
             << "compute_data_type must be a float type"
             << (boolean   ? " (or i1, i32 for this mode)"
                 : integer ? " (or i32 for this mode)"
                 : pointwise
                     ? " (i1 only for logical and comparison modes, i32 "
                       "only for those and the modes exact on integers)"
                     : "")
             << ", got " << type;
  }
  return success();
}

LogicalResult expectDims(Operation *op, StringRef port, Value value,
                         ArrayRef<int64_t> expected, const Twine &why) {
  if (shapesCompatible(shapeOf(value), expected))
    return success();
  return emitNodeError(op) << port << " dims are " << formatDims(shapeOf(value))
                           << " but must be " << formatDims(expected) << " ("
                           << why << ")";
}

LogicalResult checkResultDims(Operation *op, const ResultDims &dims) {
  for (const ResultDims::Entry &entry : dims.entries())
    if (entry.required && entry.result &&
        failed(
            expectDims(op, entry.port, entry.result, entry.dims, entry.rule)))
      return failure();
  return success();
}

LogicalResult expectOneElement(Operation *op, StringRef port, Value value) {
  int64_t count = staticElementCount(shapeOf(value));
  if (count == 1 || ShapedType::isDynamic(count))
    return success();
  return emitNodeError(op) << port << " must hold one element but has dims "
                           << formatDims(shapeOf(value));
}

LogicalResult expectResultExactlyWhen(Operation *op, bool wanted, Value result,
                                      StringRef missingResult,
                                      StringRef unwantedResult) {
  if (wanted == bool(result))
    return success();
  return emitNodeError(op) << (wanted ? missingResult : unwantedResult);
}

bool keepsOutputs(Value result, Value replacement) {
  auto isOutput = [](Operation *user) { return isa<OutputOp>(user); };
  if (llvm::none_of(result.getUsers(), isOutput))
    return true;
  Operation *def = replacement.getDefiningOp();
  return def && !isa<ScalarOp>(def) &&
         llvm::none_of(replacement.getUsers(), isOutput);
}

void printInferredResultOp(OpAsmPrinter &printer, Operation *op) {
  printer << ' ';
  printer.printOperands(op->getOperands());
  printer.printOptionalAttrDict(op->getAttrDictionary().getValue());
  printer << " : ";
  printer.printFunctionalType(op);
}

} // namespace mlir::graph::detail

//===----------------------------------------------------------------------===//
// ScalarOp
//===----------------------------------------------------------------------===//

// A scalar's dims are its own (the value's holder): nothing to infer.
LogicalResult ScalarOp::inferResultDims(ResultDims &) { return success(); }

LogicalResult ScalarOp::verify() {
  if (failed(verifyCommon(*this)))
    return failure();
  auto type = cast<RankedTensorType>(getOutput().getType());
  if (staticElementCount(type.getShape()) != 1)
    return emitNodeError(*this)
           << "a pass-by-value scalar holds one element "
           << "but the result dims are " << formatDims(type.getShape());
  if (!isa<FloatAttr, IntegerAttr>(getValue()))
    return emitNodeError(*this) << "value must be a float or integer "
                                << "attribute, got " << getValue();
  if (getValue().getType() != type.getElementType())
    return emitNodeError(*this)
           << "value has type " << getValue().getType()
           << " but the result holds " << type.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// PointwiseOp
//===----------------------------------------------------------------------===//

namespace {
/// Numpy broadcast of `a` into `out` (right-aligned); false when the two
/// disagree somewhere.
bool broadcastInto(SmallVectorImpl<int64_t> &out, ArrayRef<int64_t> a) {
  if (a.size() > out.size())
    out.insert(out.begin(), a.size() - out.size(), 1);
  size_t offset = out.size() - a.size();
  for (size_t i = 0; i < a.size(); ++i) {
    int64_t &o = out[offset + i];
    int64_t d = a[i];
    if (o == d || d == 1)
      continue;
    if (o == 1) {
      o = d;
      continue;
    }
    if (ShapedType::isDynamic(o) || ShapedType::isDynamic(d)) {
      o = ShapedType::kDynamic;
      continue;
    }
    return false;
  }
  return true;
}

/// Every value of `narrow` is exactly a value of `wide` (both floats).
bool holdsExactly(Type wide, Type narrow) {
  auto w = dyn_cast<FloatType>(wide), n = dyn_cast<FloatType>(narrow);
  return w && n &&
         llvm::APFloatBase::isRepresentableBy(n.getFloatSemantics(),
                                              w.getFloatSemantics());
}
} // namespace

unsigned PointwiseOp::getArity(PointwiseMode mode) {
  unsigned value = static_cast<unsigned>(mode);
  if (value < 30)
    return 1;
  if (value == static_cast<unsigned>(PointwiseMode::binary_select))
    return 3;
  return 2;
}

LogicalResult PointwiseOp::inferResultDims(ResultDims &dims) {
  PointwiseMode mode = getMode();
  StringRef modeName = stringifyPointwiseMode(mode);
  unsigned arity = getArity(mode);
  if (getInputs().size() != arity)
    return emitNodeError(*this)
           << "mode " << modeName << " takes " << arity << " operand"
           << (arity == 1 ? "" : "s") << " but got " << getInputs().size();

  // Each scalar attribute belongs to specific modes.
  using M = PointwiseMode;
  auto inModes = [&](std::initializer_list<M> modes) {
    return llvm::is_contained(modes, mode);
  };
  struct AttrRule {
    StringRef name;
    bool present;
    SmallVector<M, 4> modes;
  };
  AttrRule rules[] = {
      {"negative_slope",
       getNegativeSlopeAttr() != nullptr,
       {M::relu, M::leaky_relu, M::relu_backward, M::leaky_relu_backward}},
      {"lower_clip",
       getLowerClipAttr() != nullptr,
       {M::relu, M::relu_backward}},
      {"upper_clip",
       getUpperClipAttr() != nullptr,
       {M::relu, M::relu_backward}},
      {"swish_beta",
       getSwishBetaAttr() != nullptr,
       {M::swish, M::swish_backward}},
      {"elu_alpha", getEluAlphaAttr() != nullptr, {M::elu, M::elu_backward}},
      {"softplus_beta",
       getSoftplusBetaAttr() != nullptr,
       {M::softplus, M::softplus_backward}},
      {"axis", getAxisAttr() != nullptr, {M::gen_index}},
  };
  for (const AttrRule &rule : rules) {
    if (!rule.present || llvm::is_contained(rule.modes, mode))
      continue;
    InFlightDiagnostic diag = emitNodeError(*this);
    diag << "attribute " << rule.name << " does not apply to mode " << modeName
         << " (only to ";
    llvm::interleaveComma(rule.modes, diag,
                          [&](M m) { diag << stringifyPointwiseMode(m); });
    return diag << ")";
  }
  if (inModes({M::leaky_relu, M::leaky_relu_backward}) &&
      !getNegativeSlopeAttr())
    return emitNodeError(*this)
           << "mode " << modeName << " requires negative_slope";
  if (getLowerClipAttr() && getUpperClipAttr() &&
      getLowerClipAttr().getValueAsDouble() >
          getUpperClipAttr().getValueAsDouble())
    return emitNodeError(*this)
           << "lower_clip " << getLowerClipAttr().getValueAsDouble()
           << " is above upper_clip " << getUpperClipAttr().getValueAsDouble();
  if (getSoftplusBetaAttr() && getSoftplusBetaAttr().getValueAsDouble() == 0)
    return emitNodeError(*this) << "softplus_beta must be nonzero";

  if (mode == M::gen_index && !getAxisAttr())
    return emitNodeError(*this) << "mode gen_index requires axis";

  // Operands broadcast numpy-style; the result is their broadcast.
  SmallVector<int64_t> expected;
  for (auto [i, input] : llvm::enumerate(getInputs())) {
    if (!broadcastInto(expected, shapeOf(input)))
      return emitNodeError(*this)
             << "operand " << i << " dims " << formatDims(shapeOf(input))
             << " do not broadcast with " << formatDims(expected)
             << " (numpy broadcasting: each dim equal or 1)";
  }
  dims.set(getOutput(), "result", expected, "the broadcast of the operands");
  return success();
}

LogicalResult PointwiseOp::verify() {
  ResultDims dims;
  if (failed(verifyCommon(*this)) || failed(inferResultDims(dims)))
    return failure();
  ArrayRef<int64_t> out = shapeOf(getOutput());
  if (getMode() == PointwiseMode::gen_index) {
    int64_t axis = *getAxis();
    if (axis < 0 || axis >= static_cast<int64_t>(out.size()))
      return emitNodeError(*this) << "axis " << axis << " is out of range "
                                  << "for a rank-" << out.size() << " result";
  }
  return checkResultDims(*this, dims);
}

OpFoldResult PointwiseOp::fold(FoldAdaptor) {
  if (getMode() != PointwiseMode::identity)
    return {};
  Value source = getInputs()[0];
  // identity(identity(x)) is x when the middle type holds every value of x
  // exactly (a lossless widening undone): f16 -> f32 -> f16.
  if (source.getType() != getOutput().getType()) {
    auto inner = source.getDefiningOp<PointwiseOp>();
    if (!inner || inner.getMode() != PointwiseMode::identity ||
        inner.getInputs()[0].getType() != getOutput().getType() ||
        !holdsExactly(elementOf(source), elementOf(inner.getInputs()[0])))
      return {};
    source = inner.getInputs()[0];
  }
  // An integer convolution or matmul writes its int32 accumulator through
  // an identity epilogue: cuDNN's int8 engines take the graph with it and
  // offer none for the bare op writing int32 (the frontend's int8 conv).
  if (isa<IntegerType>(elementOf(source)) &&
      isa_and_nonnull<ConvFpropOp, ConvDgradOp, ConvWgradOp, MatmulOp>(
          source.getDefiningOp()))
    return {};
  // identity(x) is x when nothing about the value changes.
  if (!keepsOutputs(getOutput(), source))
    return {};
  return source;
}

// `pointwise MODE(operands) attr-dict : (types) [-> type]`.
ParseResult PointwiseOp::parse(OpAsmParser &parser, OperationState &result) {
  PointwiseModeAttr mode;
  if (parseEnumKeyword(parser, mode))
    return failure();
  result.addAttribute(getModeAttrName(result.name), mode);
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  llvm::SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLParen() || parser.parseOperandList(operands) ||
      parser.parseRParen())
    return failure();
  return parseInferredResultTail<PointwiseOp>(parser, result, operands, loc);
}

void PointwiseOp::print(OpAsmPrinter &printer) {
  printer << ' ' << stringifyPointwiseMode(getMode()) << '(';
  printer.printOperands(getInputs());
  printer << ')';
  printer.printOptionalAttrDict(getOperation()->getAttrDictionary().getValue(),
                                {getModeAttrName()});
  printer << " : ";
  printer.printFunctionalType(getOperation());
}

bool PointwiseOp::isCompatibleReturnTypes(TypeRange l, TypeRange r) {
  return l.size() == r.size(); // the verifier checks the broadcast dims
}

LogicalResult PointwiseOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location>,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  if (adaptor.getInputs().empty())
    return failure(); // nothing to infer from: the text must give the type
  SmallVector<int64_t> shape;
  bool broadcasts = true;
  for (Value input : adaptor.getInputs())
    broadcasts &= broadcastInto(shape, shapeOf(input));
  if (!broadcasts)
    shape.assign(shapeOf(adaptor.getInputs().front()).begin(),
                 shapeOf(adaptor.getInputs().front()).end());
  results.push_back(inferredTensor(shape, adaptor.getInputs().front()));
  return success();
}

//===----------------------------------------------------------------------===//
// ReductionOp
//===----------------------------------------------------------------------===//

// The reduced dims are the user's choice (the frontend's set_dim): not
// inferable.
LogicalResult ReductionOp::inferResultDims(ResultDims &) {
  if (Value offsets = getGroupOffset())
    if (!elementOf(offsets).isInteger())
      return emitNodeError(*this)
             << "group_offset must hold integers (group "
             << "boundaries along dim 0) but is " << elementOf(offsets);
  return success();
}

LogicalResult ReductionOp::verify() {
  if (failed(verifyCommon(*this)))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput()), out = shapeOf(getOutput());
  if (in.size() != out.size())
    return emitNodeError(*this)
           << "output has rank " << out.size() << " but input has rank "
           << in.size() << " (reduced dims are kept as 1)";
  for (auto [i, pair] : llvm::enumerate(llvm::zip(in, out))) {
    auto [a, b] = pair;
    if (b != 1 && !dimsCompatible(a, b))
      return emitNodeError(*this)
             << "output dim " << i << " is " << b << " but input dim " << i
             << " is " << a << " (each output dim equals the input's "
             << "or is 1)";
  }
  ResultDims dims;
  return inferResultDims(dims);
}

//===----------------------------------------------------------------------===//
// Block-scale quantization
//===----------------------------------------------------------------------===//

namespace {
bool isNarrowFloat(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type, Float4E2M1FNType>(type);
}

/// Blocks run along a dim of the input, so it needs one.
LogicalResult expectBlockedInput(Operation *op, ArrayRef<int64_t> in) {
  if (!in.empty())
    return success();
  return emitNodeError(op) << "input must have rank >= 1 (blocks run "
                           << "along a dim) but has rank 0";
}

LogicalResult expectPositiveBlockSize(Operation *op, int64_t block) {
  if (block > 0)
    return success();
  return emitNodeError(op) << "block_size " << block << " must be positive";
}

/// `in` with the (static) extent along `axis` divided by `block`: one scale
/// per block.
SmallVector<int64_t> perBlockDims(ArrayRef<int64_t> in, size_t axis,
                                  int64_t block) {
  SmallVector<int64_t> dims(in);
  if (!ShapedType::isDynamic(dims[axis]))
    dims[axis] /= block;
  return dims;
}
} // namespace

LogicalResult BlockScaleQuantizeOp::inferResultDims(ResultDims &dims) {
  ArrayRef<int64_t> in = shapeOf(getInput());
  if (failed(expectBlockedInput(*this, in)))
    return failure();
  int64_t axis = getAxis().value_or(static_cast<int64_t>(in.size()) - 1);
  if (axis < 0)
    axis += in.size();
  if (axis < 0 || axis >= static_cast<int64_t>(in.size()))
    return emitNodeError(*this) << "axis " << getAxisAttr().getInt()
                                << " is out of range for rank " << in.size();
  int64_t block = getBlockSize();
  if (failed(expectPositiveBlockSize(*this, block)))
    return failure();
  if (!ShapedType::isDynamic(in[axis]) && in[axis] % block)
    return emitNodeError(*this)
           << "block_size " << block << " does not "
           << "divide dim " << axis << " of input (" << in[axis] << ")";
  dims.set(getY(), "Y", in, "like input");
  // `transpose` only changes the strides cuDNN picks, never the dims.
  dims.set(getScale(), "scale", perBlockDims(in, axis, block),
           "input dims with the block axis divided by block_size");
  return success();
}

LogicalResult BlockScaleQuantizeOp::verify() {
  ResultDims dims;
  if (failed(verifyCommon(*this)) || failed(inferResultDims(dims)))
    return failure();
  if (!isNarrowFloat(elementOf(getY())))
    return emitNodeError(*this)
           << "Y must be an fp8 or fp4 type (f8E4M3FN, "
           << "f8E5M2 or f4E2M1FN) but is " << elementOf(getY());
  return checkResultDims(*this, dims);
}

LogicalResult BlockScaleDequantizeOp::inferResultDims(ResultDims &dims) {
  ArrayRef<int64_t> in = shapeOf(getInput());
  int64_t block = getBlockSize();
  if (failed(expectBlockedInput(*this, in)) ||
      failed(expectPositiveBlockSize(*this, block)))
    return failure();
  if (!ShapedType::isDynamic(in.back()) && in.back() % block)
    return emitNodeError(*this)
           << "block_size " << block << " does not "
           << "divide the last dim of input (" << in.back() << ")";
  if (failed(expectDims(*this, "descale", getDescale(),
                        perBlockDims(in, in.size() - 1, block),
                        "input dims with the last divided by block_size")))
    return failure();
  dims.set(getOutput(), "output", in, "like input");
  return success();
}

LogicalResult BlockScaleDequantizeOp::verify() {
  ResultDims dims;
  if (failed(verifyCommon(*this)) || failed(inferResultDims(dims)))
    return failure();
  return checkResultDims(*this, dims);
}
