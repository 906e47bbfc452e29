//===- GraphOps.cpp - Verifiers of the graph dialect's node ops ----------===//
//
// Every rule the cuDNN frontend and cuDNN apply to a node, plus the ones the
// frontend leaves to a late backend failure. Each diagnostic names the op
// kind and label, the port or attribute, the rule and the values involved:
//   matmul "mm1": K of A is 128 but K of B is 64
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/GraphOps.h"

#include "EnumKeyword.h"
#include "GraphDialect/Support/CheckedMath.h"
#include "GraphDialect/Support/Shape.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::graph;
// numpy broadcasting, a '?' dim matching any dim (kDynamicDim is
// ShapedType::kDynamic).
using ::graph::broadcastsTo;
static_assert(::graph::kDynamicDim == ShapedType::kDynamic,
              "Support's dynamic dim must be MLIR's");

//===----------------------------------------------------------------------===//
// Shape helpers
//===----------------------------------------------------------------------===//

namespace {

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}
int64_t rankOf(Value value) { return shapeOf(value).size(); }
Type elementOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

/// "4x16", "?x8", "scalar" for rank 0.
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

bool dimsCompatible(int64_t a, int64_t b) {
  return a == b || ShapedType::isDynamic(a) || ShapedType::isDynamic(b);
}

bool shapesCompatible(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  if (a.size() != b.size())
    return false;
  for (auto [x, y] : llvm::zip(a, b))
    if (!dimsCompatible(x, y))
      return false;
  return true;
}

/// The element count of static `dims`, kDynamic when one is dynamic. The
/// count of a verified tensor fits (verifyCommon checks the byte size first);
/// an overflow saturates at INT64_MAX rather than wrap.
int64_t staticElementCount(ArrayRef<int64_t> dims) {
  if (llvm::any_of(dims, ShapedType::isDynamic))
    return ShapedType::kDynamic;
  return ::graph::checkedElementCount(dims).value_or(::graph::kMaxTensorBytes);
}

bool isFp8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}
bool isNarrowFloat(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type, Float4E2M1FNType>(type);
}
bool isHalfFloat(Type type) { return type.isF16() || type.isBF16(); }

/// Checks shared by every node op: dims are positive (or dynamic), every
/// tensor's byte size fits in 63 bits and the compute type is a float type.
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
  if (auto cdt = op->getAttrOfType<TypeAttr>("compute_data_type"))
    if (!isa<FloatType>(cdt.getValue()))
      return emitNodeError(op) << "compute_data_type must be a float type, got "
                               << cdt.getValue();
  return success();
}

/// `port` must have exactly `rank` dims.
LogicalResult expectRank(Operation *op, StringRef port, Value value,
                         int64_t rank) {
  if (rankOf(value) == rank)
    return success();
  return emitNodeError(op) << port << " must have rank " << rank << " but has "
                           << rankOf(value) << " (dims "
                           << formatDims(shapeOf(value)) << ")";
}

/// `port`'s dims must be `expected`; `why` says where they come from.
LogicalResult expectDims(Operation *op, StringRef port, Value value,
                         ArrayRef<int64_t> expected, const Twine &why) {
  if (shapesCompatible(shapeOf(value), expected))
    return success();
  return emitNodeError(op) << port << " dims are " << formatDims(shapeOf(value))
                           << " but must be " << formatDims(expected) << " ("
                           << why << ")";
}

/// `port` holds exactly one element (a scalar such as epsilon).
LogicalResult expectOneElement(Operation *op, StringRef port, Value value) {
  int64_t count = staticElementCount(shapeOf(value));
  if (count == 1 || ShapedType::isDynamic(count))
    return success();
  return emitNodeError(op) << port << " must hold one element but has dims "
                           << formatDims(shapeOf(value));
}

LogicalResult expectSameElementType(Operation *op, StringRef port, Value value,
                                    StringRef refPort, Value ref) {
  if (elementOf(value) == elementOf(ref))
    return success();
  return emitNodeError(op) << port << " has element type " << elementOf(value)
                           << " but must keep " << refPort << "'s "
                           << elementOf(ref);
}

LogicalResult expectFp8(Operation *op, StringRef port, Value value) {
  if (isFp8(elementOf(value)))
    return success();
  return emitNodeError(op) << port << " must be an fp8 type (f8E4M3FN or "
                           << "f8E5M2) but is " << elementOf(value);
}

/// Runs a per-port rule such as expectFp8 on each (port, value) in order and
/// stops at the first one that fails.
LogicalResult
expectEach(Operation *op, ArrayRef<std::pair<StringRef, Value>> ports,
           function_ref<LogicalResult(Operation *, StringRef, Value)> rule) {
  for (auto [port, value] : ports)
    if (failed(rule(op, port, value)))
      return failure();
  return success();
}

/// An optional result exists exactly when `wanted` (a flag, or the presence
/// of an operand) asks for it; the message says which side is missing.
LogicalResult expectResultExactlyWhen(Operation *op, bool wanted, Value result,
                                      StringRef missingResult,
                                      StringRef unwantedResult) {
  if (wanted == bool(result))
    return success();
  return emitNodeError(op) << (wanted ? missingResult : unwantedResult);
}

/// Reshape, slice and transpose move elements around but never convert them.
LogicalResult verifyCommonKeepingElementType(Operation *op, Value input,
                                             Value output) {
  if (failed(verifyCommon(op)) ||
      failed(expectSameElementType(op, "output", output, "input", input)))
    return failure();
  return success();
}

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

/// `[1, C, 1, ...]`-shaped per-channel tensor of an `input`-ranked tensor.
SmallVector<int64_t> perChannelDims(ArrayRef<int64_t> input) {
  SmallVector<int64_t> dims(input.size(), 1);
  if (input.size() > 1)
    dims[1] = input[1];
  return dims;
}

/// Input dims with every dim but those in `keep` set to 1.
SmallVector<int64_t> keepDims(ArrayRef<int64_t> input,
                              std::initializer_list<unsigned> keep) {
  SmallVector<int64_t> dims(input.size(), 1);
  for (unsigned k : keep)
    if (k < input.size())
      dims[k] = input[k];
  return dims;
}

} // namespace

//===----------------------------------------------------------------------===//
// ScalarOp
//===----------------------------------------------------------------------===//

LogicalResult ScalarOp::verify() {
  if (failed(verifyCommon(*this)))
    return failure();
  auto type = cast<RankedTensorType>(getOutput().getType());
  if (staticElementCount(type.getShape()) != 1)
    return emitNodeError(*this) << "a pass-by-value scalar holds one element "
                                << "but the result dims are "
                                << formatDims(type.getShape());
  if (!isa<FloatAttr, IntegerAttr>(getValue()))
    return emitNodeError(*this) << "value must be a float or integer "
                                << "attribute, got " << getValue();
  if (getValue().getType() != type.getElementType())
    return emitNodeError(*this) << "value has type " << getValue().getType()
                                << " but the result holds "
                                << type.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::verify() {
  if (failed(verifyCommon(*this)))
    return failure();
  ArrayRef<int64_t> a = shapeOf(getA()), b = shapeOf(getB());
  if (a.size() < 2)
    return emitNodeError(*this) << "A must have rank >= 2 ([..., M, K]) but "
                                << "has dims " << formatDims(a);
  if (b.size() < 2)
    return emitNodeError(*this) << "B must have rank >= 2 ([..., K, N]) but "
                                << "has dims " << formatDims(b);
  if (a.size() != b.size())
    return emitNodeError(*this) << "A has rank " << a.size() << " but B has "
                                << "rank " << b.size()
                                << " (ranks must match)";
  int64_t kA = a[a.size() - 1], kB = b[b.size() - 2];
  if (!dimsCompatible(kA, kB))
    return emitNodeError(*this) << "K of A is " << kA << " but K of B is "
                                << kB;
  SmallVector<int64_t> expected;
  for (size_t i = 0; i + 2 < a.size(); ++i) {
    if (a[i] != b[i] && a[i] != 1 && b[i] != 1 &&
        !dimsCompatible(a[i], b[i]))
      return emitNodeError(*this)
             << "batch dim " << i << " of A is " << a[i] << " but of B is "
             << b[i] << " (batch dims must match or be 1)";
    expected.push_back(a[i] == 1 ? b[i] : a[i]);
  }
  expected.push_back(a[a.size() - 2]);
  expected.push_back(b[b.size() - 1]);
  return expectDims(*this, "C", getC(), expected,
                    "[batch..., M of A, N of B]");
}

//===----------------------------------------------------------------------===//
// PointwiseOp
//===----------------------------------------------------------------------===//

unsigned PointwiseOp::getArity(PointwiseMode mode) {
  unsigned value = static_cast<unsigned>(mode);
  if (value < 30)
    return 1;
  if (value == static_cast<unsigned>(PointwiseMode::binary_select))
    return 3;
  return 2;
}

LogicalResult PointwiseOp::verify() {
  if (failed(verifyCommon(*this)))
    return failure();
  PointwiseMode mode = getMode();
  StringRef modeName = stringifyPointwiseMode(mode);
  unsigned arity = getArity(mode);
  if (getInputs().size() != arity)
    return emitNodeError(*this) << "mode " << modeName << " takes " << arity
                                << " operand" << (arity == 1 ? "" : "s")
                                << " but got " << getInputs().size();

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
      {"negative_slope", getNegativeSlopeAttr() != nullptr,
       {M::relu, M::leaky_relu, M::relu_backward, M::leaky_relu_backward}},
      {"lower_clip", getLowerClipAttr() != nullptr,
       {M::relu, M::relu_backward}},
      {"upper_clip", getUpperClipAttr() != nullptr,
       {M::relu, M::relu_backward}},
      {"swish_beta", getSwishBetaAttr() != nullptr,
       {M::swish, M::swish_backward}},
      {"elu_alpha", getEluAlphaAttr() != nullptr, {M::elu, M::elu_backward}},
      {"softplus_beta", getSoftplusBetaAttr() != nullptr,
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
    return emitNodeError(*this) << "mode " << modeName
                                << " requires negative_slope";
  if (getLowerClipAttr() && getUpperClipAttr() &&
      getLowerClipAttr().getValueAsDouble() >
          getUpperClipAttr().getValueAsDouble())
    return emitNodeError(*this)
           << "lower_clip " << getLowerClipAttr().getValueAsDouble()
           << " is above upper_clip " << getUpperClipAttr().getValueAsDouble();
  if (getSoftplusBetaAttr() && getSoftplusBetaAttr().getValueAsDouble() == 0)
    return emitNodeError(*this) << "softplus_beta must be nonzero";

  ArrayRef<int64_t> out = shapeOf(getOutput());
  if (mode == M::gen_index) {
    if (!getAxisAttr())
      return emitNodeError(*this) << "mode gen_index requires axis";
    int64_t axis = *getAxis();
    if (axis < 0 || axis >= static_cast<int64_t>(out.size()))
      return emitNodeError(*this) << "axis " << axis << " is out of range "
                                  << "for a rank-" << out.size() << " result";
  }

  // Operands broadcast numpy-style; the result is their broadcast.
  SmallVector<int64_t> expected;
  for (auto [i, input] : llvm::enumerate(getInputs())) {
    if (!broadcastInto(expected, shapeOf(input)))
      return emitNodeError(*this)
             << "operand " << i << " dims " << formatDims(shapeOf(input))
             << " do not broadcast with " << formatDims(expected)
             << " (numpy broadcasting: each dim equal or 1)";
  }
  return expectDims(*this, "result", getOutput(), expected,
                    "the broadcast of the operands");
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

namespace {

struct ConvGeometry {
  SmallVector<int64_t> pre, post, stride, dilation;
};

/// Reads and checks the convolution attributes of `op` for `spatial` dims.
template <typename ConvOp>
FailureOr<ConvGeometry> getConvGeometry(ConvOp op, unsigned spatial) {
  Operation *raw = op.getOperation();
  auto checkLength = [&](StringRef name,
                         std::optional<ArrayRef<int64_t>> values,
                         int64_t minValue) -> LogicalResult {
    if (!values)
      return success();
    if (values->size() != spatial)
      return emitNodeError(raw) << name << " has " << values->size()
                                << " entries but the convolution has "
                                << spatial << " spatial dims";
    for (auto [i, v] : llvm::enumerate(*values))
      if (v < minValue)
        return emitNodeError(raw) << name << "[" << i << "] is " << v
                                  << " but must be >= " << minValue;
    return success();
  };
  if (failed(checkLength("padding", op.getPadding(), 0)) ||
      failed(checkLength("pre_padding", op.getPrePadding(), 0)) ||
      failed(checkLength("post_padding", op.getPostPadding(), 0)) ||
      failed(checkLength("stride", op.getStride(), 1)) ||
      failed(checkLength("dilation", op.getDilation(), 1)))
    return failure();
  if (op.getPadding() && (op.getPrePadding() || op.getPostPadding()))
    return emitNodeError(raw) << "padding sets pre and post padding at once; "
                              << "give either padding or pre_padding/"
                              << "post_padding";
  ConvGeometry geometry;
  geometry.pre = op.getPrePaddingOrDefault(spatial);
  geometry.post = op.getPostPaddingOrDefault(spatial);
  geometry.stride = op.getStrideOrDefault(spatial);
  geometry.dilation = op.getDilationOrDefault(spatial);
  return geometry;
}

/// Output extents of a forward convolution of `image` by `filter`. A dim
/// whose arithmetic overflows 64 bits is kDynamic and sets `*overflow`.
SmallVector<int64_t> convOutputSpatial(ArrayRef<int64_t> image,
                                       ArrayRef<int64_t> filter,
                                       const ConvGeometry &g,
                                       bool *overflow = nullptr) {
  using ::graph::checkedAdd;
  using ::graph::checkedMul;
  SmallVector<int64_t> out;
  for (size_t i = 0; i + 2 < image.size(); ++i) {
    int64_t in = image[i + 2], window = filter[i + 2];
    if (ShapedType::isDynamic(in) || ShapedType::isDynamic(window)) {
      out.push_back(ShapedType::kDynamic);
      continue;
    }
    // (in + pre + post - ((window - 1) * dilation + 1)) / stride + 1
    std::optional<int64_t> effective = checkedMul(window - 1, g.dilation[i]);
    if (effective)
      effective = checkedAdd(*effective, 1);
    std::optional<int64_t> padded = checkedAdd(in, g.pre[i]);
    if (padded)
      padded = checkedAdd(*padded, g.post[i]);
    std::optional<int64_t> span;
    if (effective && padded)
      span = checkedAdd(*padded, -*effective);
    if (!span || g.stride[i] < 1) {
      if (overflow && !span)
        *overflow = true;
      out.push_back(ShapedType::kDynamic);
      continue;
    }
    out.push_back(*span / g.stride[i] + 1);
  }
  return out;
}

/// Checks ranks, channels and groups shared by the three convolutions, given
/// the image-side dims `x` ([N, C, i...]), filter `w` ([K, C/g, r...]) and
/// the output-side dims `y` ([N, K, o...]) with their port names.
LogicalResult verifyConvShapes(Operation *op, StringRef xPort,
                               ArrayRef<int64_t> x, StringRef wPort,
                               ArrayRef<int64_t> w, StringRef yPort,
                               ArrayRef<int64_t> y, const ConvGeometry &g) {
  if (x.size() != 4 && x.size() != 5)
    return emitNodeError(op) << xPort << " must have rank 4 or 5 (2-D or 3-D "
                             << "convolution) but has dims " << formatDims(x);
  if (w.size() != x.size())
    return emitNodeError(op) << wPort << " has rank " << w.size() << " but "
                             << xPort << " has rank " << x.size()
                             << " (ranks must match)";
  if (y.size() != x.size())
    return emitNodeError(op) << yPort << " has rank " << y.size() << " but "
                             << xPort << " has rank " << x.size()
                             << " (ranks must match)";
  if (!dimsCompatible(x[0], y[0]))
    return emitNodeError(op) << "batch of " << xPort << " is " << x[0]
                             << " but batch of " << yPort << " is " << y[0];
  if (!dimsCompatible(w[0], y[1]))
    return emitNodeError(op) << "output channels of " << wPort << " are "
                             << w[0] << " but " << yPort << " has " << y[1];
  if (!ShapedType::isDynamic(x[1]) && !ShapedType::isDynamic(w[1])) {
    if (x[1] % w[1] != 0)
      return emitNodeError(op)
             << "input channels of " << xPort << " (" << x[1]
             << ") are not a multiple of the channels per group of " << wPort
             << " (" << w[1] << ")";
    int64_t groups = x[1] / w[1];
    if (!ShapedType::isDynamic(w[0]) && w[0] % groups != 0)
      return emitNodeError(op) << "output channels " << w[0]
                               << " are not divisible by the " << groups
                               << " groups implied by channels " << x[1]
                               << " / " << w[1];
  }
  bool overflow = false;
  SmallVector<int64_t> spatial = convOutputSpatial(x, w, g, &overflow);
  if (overflow)
    return emitNodeError(op) << "the output's spatial dims overflow 64-bit "
                             << "arithmetic: (in + pre + post - ((window - 1) "
                             << "* dilation + 1)) must fit in 63 bits";
  for (auto [i, o] : llvm::enumerate(spatial)) {
    if (!ShapedType::isDynamic(o) && o <= 0)
      return emitNodeError(op) << "spatial dim " << i << " of the output "
                               << "would be " << o << " (window larger than "
                               << "the padded input)";
    if (!dimsCompatible(o, y[i + 2]))
      return emitNodeError(op)
             << "spatial dim " << i << " of " << yPort << " is " << y[i + 2]
             << " but (in + pre + post - ((window - 1) * dilation + 1)) / "
             << "stride + 1 gives " << o;
  }
  return success();
}

template <typename ConvOp>
SmallVector<int64_t> orDefault(std::optional<ArrayRef<int64_t>> values,
                               std::optional<ArrayRef<int64_t>> fallback,
                               unsigned n, int64_t dflt) {
  if (values)
    return SmallVector<int64_t>(*values);
  if (fallback)
    return SmallVector<int64_t>(*fallback);
  return SmallVector<int64_t>(n, dflt);
}

/// The rank rule comes first: the attribute lengths are checked against the
/// spatial dims it implies.
LogicalResult verifyConvRank(Operation *op, StringRef port, Value value) {
  if (rankOf(value) == 4 || rankOf(value) == 5)
    return success();
  return emitNodeError(op) << port << " must have rank 4 or 5 (2-D or 3-D "
                           << "convolution) but has dims "
                           << formatDims(shapeOf(value));
}

} // namespace

#define DEFINE_CONV_ACCESSORS(OP)                                              \
  SmallVector<int64_t> OP::getPrePaddingOrDefault(unsigned n) {                \
    return orDefault<OP>(getPrePadding(), getPadding(), n, 0);                 \
  }                                                                            \
  SmallVector<int64_t> OP::getPostPaddingOrDefault(unsigned n) {               \
    return orDefault<OP>(getPostPadding(), getPadding(), n, 0);                \
  }                                                                            \
  SmallVector<int64_t> OP::getStrideOrDefault(unsigned n) {                    \
    return orDefault<OP>(getStride(), std::nullopt, n, 1);                     \
  }                                                                            \
  SmallVector<int64_t> OP::getDilationOrDefault(unsigned n) {                  \
    return orDefault<OP>(getDilation(), std::nullopt, n, 1);                   \
  }
DEFINE_CONV_ACCESSORS(ConvFpropOp)
DEFINE_CONV_ACCESSORS(ConvDgradOp)
DEFINE_CONV_ACCESSORS(ConvWgradOp)
#undef DEFINE_CONV_ACCESSORS

/// The three convolutions share one rule set; they differ in which port
/// holds the image-side tensor, the filter and the output-side tensor.
template <typename ConvOp>
static LogicalResult verifyConv(ConvOp op, StringRef xPort, Value x,
                                StringRef wPort, Value w, StringRef yPort,
                                Value y) {
  if (failed(verifyCommon(op)) || failed(verifyConvRank(op, xPort, x)))
    return failure();
  unsigned rank = rankOf(x);
  auto geometry = getConvGeometry(op, rank > 2 ? rank - 2 : 0);
  if (failed(geometry))
    return failure();
  return verifyConvShapes(op, xPort, shapeOf(x), wPort, shapeOf(w), yPort,
                          shapeOf(y), *geometry);
}

LogicalResult ConvFpropOp::verify() {
  return verifyConv(*this, "image", getImage(), "weight", getWeight(), "Y",
                    getY());
}

LogicalResult ConvDgradOp::verify() {
  return verifyConv(*this, "DX", getDX(), "filter", getFilter(), "loss",
                    getLoss());
}

LogicalResult ConvWgradOp::verify() {
  return verifyConv(*this, "image", getImage(), "DW", getDW(), "loss",
                    getLoss());
}

//===----------------------------------------------------------------------===//
// Norms
//===----------------------------------------------------------------------===//

namespace {

/// Which dims a norm's statistics keep.
enum class NormKind { Layer, AdaLayer, Instance, Batch, Rms };

SmallVector<int64_t> statsDims(NormKind kind, ArrayRef<int64_t> input) {
  switch (kind) {
  case NormKind::Layer:
  case NormKind::AdaLayer:
  case NormKind::Rms:
    return keepDims(input, {0});
  case NormKind::Instance:
    return keepDims(input, {0, 1});
  case NormKind::Batch:
    return perChannelDims(input);
  }
  return {};
}

/// Dims of scale and bias for each kind of norm.
SmallVector<int64_t> affineDims(NormKind kind, ArrayRef<int64_t> input) {
  SmallVector<int64_t> dims(input);
  switch (kind) {
  case NormKind::Layer:
  case NormKind::Rms:
    dims[0] = 1;
    return dims;
  case NormKind::AdaLayer:
    return dims;
  case NormKind::Instance:
  case NormKind::Batch:
    return perChannelDims(input);
  }
  return dims;
}

StringRef affineRule(NormKind kind) {
  switch (kind) {
  case NormKind::Layer:
  case NormKind::Rms: // verifyLayerScale checks these
    return "[1, input dims 1...] by default";
  case NormKind::AdaLayer:
    return "input dims: one value per sample and element";
  case NormKind::Instance:
  case NormKind::Batch:
    return "[1, C, 1, ...]: one value per channel";
  }
  return "";
}

StringRef statsRule(NormKind kind) {
  switch (kind) {
  case NormKind::Layer:
  case NormKind::AdaLayer:
  case NormKind::Rms:
    return "[N, 1, ...]: one value per sample";
  case NormKind::Instance:
    return "[N, C, 1, ...]: one value per sample and channel";
  case NormKind::Batch:
    return "[1, C, 1, ...]: one value per channel";
  }
  return "";
}

LogicalResult verifyNormInput(Operation *op, Value input) {
  if (rankOf(input) < 2)
    return emitNodeError(op) << "input must have rank >= 2 ([N, C, ...]) but "
                             << "has dims " << formatDims(shapeOf(input));
  return success();
}

/// Layer and RMS norm take the cuDNN frontend's rule: scale has the
/// input's rank, each of its dims is 1 or the input's extent, and the dims
/// where it is not 1 are the normalized ones (the others, dim 0 by default,
/// each index a statistic). x [16, 128, 768] with scale [1, 1, 768]
/// normalizes over the last dim; with scale [1, 128, 768] over the last two.
LogicalResult verifyLayerScale(Operation *op, Value scale, Value input) {
  ArrayRef<int64_t> x = shapeOf(input), s = shapeOf(scale);
  StringRef rule = "each dim 1 or the input's; the dims where scale is not 1 "
                   "are the normalized ones";
  if (s.size() != x.size())
    return emitNodeError(op)
           << "scale dims are " << formatDims(s) << " but must have the "
           << "input's rank " << x.size() << " (input dims " << formatDims(x)
           << "; " << rule << ")";
  for (size_t d = 0; d < x.size(); ++d)
    if (s[d] != 1 && !dimsCompatible(s[d], x[d]))
      return emitNodeError(op)
             << "scale dims are " << formatDims(s) << " but dim " << d << " is "
             << s[d] << ", neither 1 nor the input's " << x[d]
             << " (input dims " << formatDims(x) << "; " << rule << ")";
  bool normalizes = llvm::any_of(s, [](int64_t d) { return d != 1; });
  bool inputHasSpan =
      llvm::any_of(x.drop_front(), [](int64_t d) { return d != 1; });
  if (!normalizes && inputHasSpan)
    return emitNodeError(op)
           << "scale dims are " << formatDims(s) << " but at least one dim "
           << "must be the input's (input dims " << formatDims(x) << "; "
           << "the dims where scale is not 1 are the normalized ones, and "
           << "this scale normalizes none)";
  return success();
}

/// Statistics of a layer or RMS norm: the input's dims with each
/// normalized dim (scale's extent not 1) set to 1.
SmallVector<int64_t> layerStatsDims(ArrayRef<int64_t> input,
                                    ArrayRef<int64_t> scale) {
  SmallVector<int64_t> dims(input);
  for (size_t d = 0; d < dims.size() && d < scale.size(); ++d) {
    if (ShapedType::isDynamic(scale[d]))
      dims[d] = ShapedType::kDynamic; // either way
    else if (scale[d] != 1)
      dims[d] = 1;
  }
  return dims;
}

/// scale/bias shaped per `kind`. AdaLayer also accepts a batch of 1. A
/// layer or RMS norm's bias has its scale's dims.
LogicalResult verifyAffine(Operation *op, NormKind kind, StringRef port,
                           Value value, Value input, Value scale) {
  if (kind == NormKind::Layer || kind == NormKind::Rms) {
    if (value == scale)
      return verifyLayerScale(op, scale, input);
    return expectDims(op, port, value, shapeOf(scale),
                      "like scale: one value per normalized element");
  }
  SmallVector<int64_t> expected = affineDims(kind, shapeOf(input));
  if (kind == NormKind::AdaLayer && rankOf(value) == rankOf(input) &&
      broadcastsTo(shapeOf(value), expected))
    return success();
  return expectDims(op, port, value, expected, affineRule(kind));
}

/// Adaptive layer norm normalizes over the non-batch dims its scale varies
/// along: x [B, S, D] with scale [B, 1, D] has statistics [B, S, 1].
SmallVector<int64_t> adaLayerStatsDims(ArrayRef<int64_t> input,
                                       ArrayRef<int64_t> scale) {
  SmallVector<int64_t> dims(input);
  for (size_t d = 1; d < dims.size(); ++d)
    if (d < scale.size() && scale[d] != 1)
      dims[d] = 1;
  return dims;
}

/// The scale operand of a layer, RMS or adaptive layer norm (forward or
/// backward), null for other ops.
Value layerScaleOf(Operation *op) {
  return TypeSwitch<Operation *, Value>(op)
      .Case<LayernormOp, RmsnormOp, AdaLayernormOp, LayernormBackwardOp,
            RmsnormBackwardOp, AdaLayernormBackwardOp>(
          [](auto norm) { return norm.getScale(); })
      .Default([](Operation *) { return Value(); });
}

LogicalResult verifyStats(Operation *op, NormKind kind, StringRef port,
                          Value value, Value input) {
  if (kind == NormKind::AdaLayer)
    if (Value scale = layerScaleOf(op))
      return expectDims(op, port, value,
                        adaLayerStatsDims(shapeOf(input), shapeOf(scale)),
                        "input dims with the dims scale varies along "
                        "(beyond the batch) set to 1");
  if (kind == NormKind::Layer || kind == NormKind::Rms)
    if (Value scale = layerScaleOf(op))
      return expectDims(op, port, value,
                        layerStatsDims(shapeOf(input), shapeOf(scale)),
                        "input dims with the normalized dims, where scale "
                        "is not 1, set to 1");
  return expectDims(op, port, value, statsDims(kind, shapeOf(input)),
                    statsRule(kind));
}

/// Forward phase rule: statistics exist in training and only there.
LogicalResult verifyPhaseOutputs(Operation *op, NormPhase phase,
                                 ArrayRef<std::pair<StringRef, Value>> stats) {
  for (auto [port, value] : stats) {
    if (phase == NormPhase::training && !value)
      return emitNodeError(op) << "the training phase produces " << port
                               << " but the op has no such result";
    if (phase == NormPhase::inference && value)
      return emitNodeError(op) << "the inference phase produces no " << port
                               << " (statistics exist only in training)";
  }
  return success();
}

template <typename NormOp>
LogicalResult verifyNormForward(NormOp op, NormKind kind) {
  Operation *raw = op.getOperation();
  if (failed(verifyCommon(raw)) || failed(verifyNormInput(raw, op.getInput())))
    return failure();
  if (failed(verifyAffine(raw, kind, "scale", op.getScale(), op.getInput(),
                          op.getScale())))
    return failure();
  if (Value bias = op.getBias())
    if (failed(verifyAffine(raw, kind, "bias", bias, op.getInput(),
                            op.getScale())))
      return failure();
  if (failed(expectOneElement(raw, "epsilon", op.getEpsilon())))
    return failure();
  return expectDims(raw, "Y", op.getY(), shapeOf(op.getInput()),
                    "like input");
}

/// The phase rule for all of `stats` first, then the dims of those present.
LogicalResult verifyPhaseStats(Operation *op, NormKind kind, NormPhase phase,
                               Value input,
                               ArrayRef<std::pair<StringRef, Value>> stats) {
  if (failed(verifyPhaseOutputs(op, phase, stats)))
    return failure();
  for (auto [port, value] : stats)
    if (value && failed(verifyStats(op, kind, port, value, input)))
      return failure();
  return success();
}

/// Layer, adaptive layer and instance norm: the forward rules, then the
/// training statistics mean and inv_var.
template <typename NormOp>
LogicalResult verifyNormWithMeanInvVar(NormOp op, NormKind kind) {
  if (failed(verifyNormForward(op, kind)))
    return failure();
  return verifyPhaseStats(
      op, kind, op.getPhase(), op.getInput(),
      {{"mean", op.getMean()}, {"inv_var", op.getInvVar()}});
}

template <typename NormBwdOp>
LogicalResult verifyNormBackward(NormBwdOp op, NormKind kind) {
  Operation *raw = op.getOperation();
  if (failed(verifyCommon(raw)) || failed(verifyNormInput(raw, op.getInput())))
    return failure();
  ArrayRef<int64_t> input = shapeOf(op.getInput());
  if (failed(expectDims(raw, "grad", op.getGrad(), input, "like input")) ||
      failed(verifyAffine(raw, kind, "scale", op.getScale(), op.getInput(),
                          op.getScale())) ||
      failed(expectDims(raw, "DX", op.getDX(), input, "like input")) ||
      failed(expectDims(raw, "DScale", op.getDScale(), shapeOf(op.getScale()),
                        "like scale")))
    return failure();
  if (Value dbias = op.getDBias())
    if (failed(expectDims(raw, "DBias", dbias, shapeOf(op.getScale()),
                          "like scale")))
      return failure();
  return verifyStats(raw, kind, "inv_variance", op.getInvVariance(),
                     op.getInput());
}

/// Every backward norm but rms also takes the saved mean, checked last.
template <typename NormBwdOp>
LogicalResult verifyNormBackwardWithMean(NormBwdOp op, NormKind kind) {
  if (failed(verifyNormBackward(op, kind)))
    return failure();
  return verifyStats(op, kind, "mean", op.getMean(), op.getInput());
}

} // namespace

LogicalResult LayernormOp::verify() {
  return verifyNormWithMeanInvVar(*this, NormKind::Layer);
}

LogicalResult AdaLayernormOp::verify() {
  return verifyNormWithMeanInvVar(*this, NormKind::AdaLayer);
}

LogicalResult InstancenormOp::verify() {
  return verifyNormWithMeanInvVar(*this, NormKind::Instance);
}

LogicalResult RmsnormOp::verify() {
  if (failed(verifyNormForward(*this, NormKind::Rms)))
    return failure();
  return verifyPhaseStats(*this, NormKind::Rms, getPhase(), getInput(),
                          {{"inv_var", getInvVar()}});
}

LogicalResult BatchnormOp::verify() {
  if (failed(verifyNormForward(*this, NormKind::Batch)))
    return failure();
  for (auto [port, value] :
       {std::pair<StringRef, Value>{"mean", getMean()},
        {"inv_var", getInvVar()},
        {"in_running_mean", getInRunningMean()},
        {"in_running_var", getInRunningVar()},
        {"next_running_mean", getNextRunningMean()},
        {"next_running_var", getNextRunningVar()}})
    if (value && failed(verifyStats(*this, NormKind::Batch, port, value,
                                    getInput())))
      return failure();
  if (bool(getInRunningMean()) != bool(getInRunningVar()))
    return emitNodeError(*this) << "in_running_mean and in_running_var come "
                                << "together (running statistics are updated "
                                << "as a pair)";
  bool running = bool(getInRunningMean());
  if (running != bool(getNextRunningMean()) ||
      running != bool(getNextRunningVar()))
    return emitNodeError(*this)
           << "next_running_mean/next_running_var are produced exactly when "
           << "in_running_mean/in_running_var are given";
  if (running && !getMomentum())
    return emitNodeError(*this) << "updating running statistics requires "
                                << "momentum";
  if (!running && getMomentum())
    return emitNodeError(*this) << "momentum is given without in_running_mean/"
                                << "in_running_var (it only weighs the "
                                << "running statistics update)";
  if (Value momentum = getMomentum())
    if (failed(expectOneElement(*this, "momentum", momentum)))
      return failure();
  return success();
}

LogicalResult BatchnormInferenceOp::verify() {
  if (failed(verifyCommon(*this)) || failed(verifyNormInput(*this, getInput())))
    return failure();
  for (auto [port, value] : {std::pair<StringRef, Value>{"mean", getMean()},
                             {"inv_variance", getInvVariance()},
                             {"scale", getScale()},
                             {"bias", getBias()}})
    if (failed(verifyStats(*this, NormKind::Batch, port, value, getInput())))
      return failure();
  return expectDims(*this, "Y", getY(), shapeOf(getInput()), "like input");
}

LogicalResult LayernormBackwardOp::verify() {
  return verifyNormBackwardWithMean(*this, NormKind::Layer);
}

LogicalResult AdaLayernormBackwardOp::verify() {
  return verifyNormBackwardWithMean(*this, NormKind::AdaLayer);
}

LogicalResult InstancenormBackwardOp::verify() {
  return verifyNormBackwardWithMean(*this, NormKind::Instance);
}

LogicalResult RmsnormBackwardOp::verify() {
  if (failed(verifyNormBackward(*this, NormKind::Rms)))
    return failure();
  return expectResultExactlyWhen(
      *this, getHasDbias(), getDBias(),
      "has_dbias is true but there is no DBias result",
      "has_dbias is false but there is a DBias result");
}

LogicalResult BatchnormBackwardOp::verify() {
  return verifyNormBackwardWithMean(*this, NormKind::Batch);
}

LogicalResult GenstatsOp::verify() {
  if (failed(verifyCommon(*this)) || failed(verifyNormInput(*this, getInput())))
    return failure();
  if (failed(verifyStats(*this, NormKind::Batch, "SUM", getSUM(), getInput())))
    return failure();
  return verifyStats(*this, NormKind::Batch, "SQ_SUM", getSQ_SUM(), getInput());
}

//===----------------------------------------------------------------------===//
// Reduction and structural ops
//===----------------------------------------------------------------------===//

LogicalResult ReductionOp::verify() {
  if (failed(verifyCommon(*this)))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput()), out = shapeOf(getOutput());
  if (in.size() != out.size())
    return emitNodeError(*this) << "output has rank " << out.size()
                                << " but input has rank " << in.size()
                                << " (reduced dims are kept as 1)";
  for (auto [i, pair] : llvm::enumerate(llvm::zip(in, out))) {
    auto [a, b] = pair;
    if (b != 1 && !dimsCompatible(a, b))
      return emitNodeError(*this) << "output dim " << i << " is " << b
                                  << " but input dim " << i << " is " << a
                                  << " (each output dim equals the input's "
                                  << "or is 1)";
  }
  if (Value offsets = getGroupOffset())
    if (!elementOf(offsets).isInteger())
      return emitNodeError(*this) << "group_offset must hold integers (group "
                                  << "boundaries along dim 0) but is "
                                  << elementOf(offsets);
  return success();
}

LogicalResult ReshapeOp::verify() {
  if (failed(verifyCommonKeepingElementType(*this, getInput(), getOutput())))
    return failure();
  int64_t in = staticElementCount(shapeOf(getInput()));
  int64_t out = staticElementCount(shapeOf(getOutput()));
  if (!ShapedType::isDynamic(in) && !ShapedType::isDynamic(out) && in != out)
    return emitNodeError(*this) << "input has " << in << " elements ("
                                << formatDims(shapeOf(getInput()))
                                << ") but output has " << out << " ("
                                << formatDims(shapeOf(getOutput()))
                                << "); a reshape keeps the element count";
  return success();
}

LogicalResult SliceOp::verify() {
  if (failed(verifyCommonKeepingElementType(*this, getInput(), getOutput())))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput());
  size_t rank = in.size();
  SmallVector<int64_t> step =
      getStep() ? SmallVector<int64_t>(*getStep())
                : SmallVector<int64_t>(rank, 1);
  for (auto [name, size] : {std::pair<StringRef, size_t>{"start", getStart().size()},
                            {"limit", getLimit().size()},
                            {"step", step.size()}})
    if (size != rank)
      return emitNodeError(*this) << name << " has " << size
                                  << " entries but input has rank " << rank;
  SmallVector<int64_t> expected;
  for (size_t i = 0; i < rank; ++i) {
    int64_t start = getStart()[i], limit = getLimit()[i];
    if (step[i] < 1)
      return emitNodeError(*this) << "step[" << i << "] is " << step[i]
                                  << " but must be >= 1";
    if (start < 0 || start > limit ||
        (!ShapedType::isDynamic(in[i]) && limit > in[i]))
      return emitNodeError(*this) << "dim " << i << ": slice [" << start
                                  << ", " << limit << ") is out of bounds "
                                  << "for extent " << formatDims(in[i])
                                  << " (need 0 <= start <= limit <= extent)";
    expected.push_back((limit - start + step[i] - 1) / step[i]);
  }
  return expectDims(*this, "output", getOutput(), expected,
                    "ceil((limit - start) / step) per dim");
}

LogicalResult TransposeOp::verify() {
  if (failed(verifyCommonKeepingElementType(*this, getInput(), getOutput())))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput());
  ArrayRef<int64_t> perm = getPermutation();
  if (perm.size() != in.size())
    return emitNodeError(*this) << "permutation has " << perm.size()
                                << " entries but input has rank " << in.size();
  SmallVector<bool> seen(in.size(), false);
  SmallVector<int64_t> expected;
  for (auto [i, p] : llvm::enumerate(perm)) {
    if (p < 0 || p >= static_cast<int64_t>(in.size()) || seen[p])
      return emitNodeError(*this) << "permutation entry " << i << " is " << p
                                  << " (a permutation holds each of 0.."
                                  << in.size() - 1 << " once)";
    seen[p] = true;
    expected.push_back(in[p]);
  }
  return expectDims(*this, "output", getOutput(), expected,
                    "output dim i is input dim permutation[i]");
}

LogicalResult ConcatenateOp::verify() {
  if (failed(verifyCommon(*this)))
    return failure();
  if (getInputs().empty())
    return emitNodeError(*this) << "needs at least one input";
  ArrayRef<int64_t> out = shapeOf(getOutput());
  int64_t axis = getAxis();
  if (axis < 0 || axis >= static_cast<int64_t>(out.size()))
    return emitNodeError(*this) << "axis " << axis << " is out of range for "
                                << "rank " << out.size();
  int64_t total = 0;
  for (auto [i, input] : llvm::enumerate(getInputs())) {
    ArrayRef<int64_t> dims = shapeOf(input);
    std::string port = "inputs[" + std::to_string(i) + "]";
    if (dims.size() != out.size())
      return emitNodeError(*this) << port << " has rank " << dims.size()
                                  << " but the output has rank " << out.size();
    if (failed(expectSameElementType(*this, port, input, "output",
                                     getOutput())))
      return failure();
    for (size_t d = 0; d < dims.size(); ++d)
      if (static_cast<int64_t>(d) != axis && !dimsCompatible(dims[d], out[d]))
        return emitNodeError(*this)
               << port << " dim " << d << " is " << dims[d]
               << " but the output's is " << out[d]
               << " (only the axis dim may differ)";
    if (ShapedType::isDynamic(dims[axis]) || ShapedType::isDynamic(total)) {
      total = ShapedType::kDynamic;
      continue;
    }
    std::optional<int64_t> sum = ::graph::checkedAdd(total, dims[axis]);
    if (!sum)
      return emitNodeError(*this)
             << "the inputs' extents along axis " << axis
             << " add up to more than 2^63 - 1 (up to " << port << ")";
    total = *sum;
  }
  if (!dimsCompatible(total, out[axis]))
    return emitNodeError(*this) << "output dim " << axis << " is " << out[axis]
                                << " but the inputs' extents along the axis "
                                << "add up to " << total;
  if (IntegerAttr indexAttr = getInPlaceIndexAttr()) {
    int64_t index = indexAttr.getInt();
    if (index < 0 || index >= static_cast<int64_t>(getInputs().size()))
      return emitNodeError(*this) << "in_place_index " << index
                                  << " is not an input index (0.."
                                  << getInputs().size() - 1 << ")";
  }
  return success();
}

namespace {
template <typename RopeOp>
LogicalResult verifyRope(RopeOp op, Value input, StringRef inputPort) {
  Operation *raw = op.getOperation();
  if (failed(verifyCommon(raw)))
    return failure();
  ArrayRef<int64_t> in = shapeOf(input);
  if (in.size() < 2)
    return emitNodeError(raw) << inputPort << " must have rank >= 2 "
                              << "([..., S, D]) but has dims "
                              << formatDims(in);
  int64_t d = in.back();
  int64_t ropeDim = op.getRopeDim().value_or(d);
  if (!ShapedType::isDynamic(ropeDim) &&
      (ropeDim <= 0 || ropeDim % 2 ||
       (!ShapedType::isDynamic(d) && ropeDim > d)))
    return emitNodeError(raw) << "rope_dim " << ropeDim << " must be even "
                              << "and in (0, " << formatDims(d) << "] (the "
                              << "last dim of " << inputPort << ")";
  int64_t half = ShapedType::isDynamic(ropeDim) ? ropeDim : ropeDim / 2;
  ArrayRef<int64_t> freqs = shapeOf(op.getFreqs());
  if (freqs.empty() || !dimsCompatible(freqs.back(), half))
    return emitNodeError(raw) << "freqs last dim must be rope_dim / 2 = "
                              << formatDims(half) << " but freqs dims are "
                              << formatDims(freqs);
  SmallVector<int64_t> angles(in.drop_back());
  angles.push_back(half);
  if (!broadcastsTo(freqs, angles))
    return emitNodeError(raw) << "freqs dims " << formatDims(freqs)
                              << " do not broadcast to "
                              << formatDims(angles);
  return expectDims(raw, "output", op.getOutput(), in,
                    ("like " + inputPort).str());
}
} // namespace

LogicalResult RopeOp::verify() { return verifyRope(*this, getInput(), "input"); }
LogicalResult RopeBackwardOp::verify() {
  return verifyRope(*this, getDY(), "dY");
}

//===----------------------------------------------------------------------===//
// Block-scale quantization and MoE
//===----------------------------------------------------------------------===//

namespace {
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

LogicalResult BlockScaleQuantizeOp::verify() {
  if (failed(verifyCommon(*this)))
    return failure();
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
    return emitNodeError(*this) << "block_size " << block << " does not "
                                << "divide dim " << axis << " of input ("
                                << in[axis] << ")";
  if (!isNarrowFloat(elementOf(getY())))
    return emitNodeError(*this) << "Y must be an fp8 or fp4 type (f8E4M3FN, "
                                << "f8E5M2 or f4E2M1FN) but is "
                                << elementOf(getY());
  if (failed(expectDims(*this, "Y", getY(), in, "like input")))
    return failure();
  // `transpose` only changes the strides cuDNN picks, never the dims.
  return expectDims(*this, "scale", getScale(), perBlockDims(in, axis, block),
                    "input dims with the block axis divided by block_size");
}

LogicalResult BlockScaleDequantizeOp::verify() {
  if (failed(verifyCommon(*this)))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput());
  int64_t block = getBlockSize();
  if (failed(expectBlockedInput(*this, in)) ||
      failed(expectPositiveBlockSize(*this, block)))
    return failure();
  if (!ShapedType::isDynamic(in.back()) && in.back() % block)
    return emitNodeError(*this) << "block_size " << block << " does not "
                                << "divide the last dim of input ("
                                << in.back() << ")";
  if (failed(expectDims(*this, "descale", getDescale(),
                        perBlockDims(in, in.size() - 1, block),
                        "input dims with the last divided by block_size")))
    return failure();
  return expectDims(*this, "output", getOutput(), in, "like input");
}

namespace {
/// first_token_offset: integers, one start per expert (or E + 1 boundaries).
LogicalResult verifyExpertOffsets(Operation *op, Value offsets,
                                  StringRef expertPort, int64_t experts) {
  int64_t count = staticElementCount(shapeOf(offsets));
  if (!ShapedType::isDynamic(count) && !ShapedType::isDynamic(experts) &&
      count != experts && count != experts + 1)
    return emitNodeError(op) << "first_token_offset has " << count
                             << " elements but " << expertPort << " has "
                             << experts << " experts (one offset per expert, "
                             << "or E + 1 boundaries)";
  if (!elementOf(offsets).isInteger())
    return emitNodeError(op) << "first_token_offset must hold integers but is "
                             << elementOf(offsets);
  return success();
}
} // namespace

LogicalResult MoeGroupedMatmulOp::verify() {
  if (failed(verifyCommon(*this)))
    return failure();
  ArrayRef<int64_t> token = shapeOf(getToken()), weight = shapeOf(getWeight());
  if (token.size() < 2)
    return emitNodeError(*this) << "token must have rank >= 2 ([..., T, H]) "
                                << "but has dims " << formatDims(token);
  if (weight.size() != 3)
    return emitNodeError(*this) << "weight must be [E, H, N] but has dims "
                                << formatDims(weight);
  if (!dimsCompatible(token.back(), weight[1]))
    return emitNodeError(*this) << "H of token is " << token.back()
                                << " but H of weight is " << weight[1];
  if (failed(verifyExpertOffsets(*this, getFirstTokenOffset(), "weight",
                                 weight[0])))
    return failure();
  MoeMode mode = getMode().value_or(MoeMode::none);
  StringRef modeName = stringifyMoeMode(mode);
  if (mode != MoeMode::none && !getTokenIndex())
    return emitNodeError(*this) << "mode " << modeName
                                << " requires token_index";
  if (mode == MoeMode::scatter && !getTokenKs())
    return emitNodeError(*this) << "mode scatter requires token_ks (each "
                                << "routed row's slot among its token's "
                                << "top_k)";
  if (mode == MoeMode::scatter && !getTopKAttr())
    return emitNodeError(*this) << "mode scatter requires top_k";
  int64_t rows = token[token.size() - 2];
  for (auto [port, value] :
       {std::pair<StringRef, Value>{"token_index", getTokenIndex()},
        {"token_ks", getTokenKs()}}) {
    if (!value)
      continue;
    if (mode == MoeMode::none ||
        (port == "token_ks" && mode != MoeMode::scatter))
      return emitNodeError(*this) << port << " does not apply to mode "
                                  << modeName << " (token_index routes rows "
                                  << "in gather and scatter, token_ks in "
                                  << "scatter)";
    int64_t count = staticElementCount(shapeOf(value));
    if (mode == MoeMode::scatter && !dimsCompatible(count, rows))
      return emitNodeError(*this) << port << " has " << count
                                  << " elements but token has " << rows
                                  << " rows (scatter routes each row once)";
  }
  if (IntegerAttr topK = getTopKAttr()) {
    if (topK.getInt() < 1)
      return emitNodeError(*this) << "top_k " << topK.getInt()
                                  << " must be >= 1";
    if (!ShapedType::isDynamic(weight[0]) && topK.getInt() > weight[0])
      return emitNodeError(*this) << "top_k " << topK.getInt()
                                  << " exceeds the " << weight[0]
                                  << " experts of weight";
  }
  SmallVector<int64_t> expected(token.drop_back());
  expected.push_back(weight[2]);
  if (mode == MoeMode::gather) {
    // One output row per gathered (routed) row.
    expected[expected.size() - 2] =
        staticElementCount(shapeOf(getTokenIndex()));
    return expectDims(*this, "output", getOutput(), expected,
                      "token dims with T replaced by the token_index count "
                      "and H by N of weight");
  }
  if (mode == MoeMode::scatter) {
    // Rows land at token_index * top_k + token_ks: their count is free.
    expected[expected.size() - 2] = ShapedType::kDynamic;
    return expectDims(*this, "output", getOutput(), expected,
                      "token dims with scattered rows and H replaced by N "
                      "of weight");
  }
  return expectDims(*this, "output", getOutput(), expected,
                    "token dims with H replaced by N of weight");
}

LogicalResult MoeGroupedMatmulBwdOp::verify() {
  if (failed(verifyCommon(*this)))
    return failure();
  ArrayRef<int64_t> dout = shapeOf(getDoutput()), token = shapeOf(getToken());
  if (token.size() < 2 || dout.size() != token.size())
    return emitNodeError(*this) << "token and doutput must be [..., T, H] and "
                                << "[..., T, N] but are " << formatDims(token)
                                << " and " << formatDims(dout);
  if (!dimsCompatible(dout[dout.size() - 2], token[token.size() - 2]))
    return emitNodeError(*this) << "T of doutput is " << dout[dout.size() - 2]
                                << " but T of token is "
                                << token[token.size() - 2];
  ArrayRef<int64_t> dweight = shapeOf(getDweight());
  if (failed(expectDims(*this, "dweight", getDweight(),
                        {dweight.empty() ? ShapedType::kDynamic : dweight[0],
                         token.back(), dout.back()},
                        "[E, H of token, N of doutput]")))
    return failure();
  return verifyExpertOffsets(*this, getFirstTokenOffset(), "dweight",
                             dweight[0]);
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

namespace {

/// Largest head dim cuDNN's fused attention engines take.
constexpr int64_t kMaxHeadDim = 256;

struct SdpaShapes {
  int64_t b, hq, hk, hv, sq, skv, d, dv;
};

/// Checks Q, K, V: rank 4, batch, GQA heads, head dims and sequence lengths.
FailureOr<SdpaShapes> verifyQkv(Operation *op, Value q, Value k, Value v) {
  for (auto [port, value] :
       {std::pair<StringRef, Value>{"q", q}, {"k", k}, {"v", v}})
    if (failed(expectRank(op, port, value, 4)))
      return failure();
  ArrayRef<int64_t> qd = shapeOf(q), kd = shapeOf(k), vd = shapeOf(v);
  SdpaShapes s{qd[0], qd[1], kd[1], vd[1], qd[2], kd[2], qd[3], vd[3]};
  // Pairwise: a dynamic q batch must not hide a k/v mismatch.
  if (!dimsCompatible(kd[0], s.b) || !dimsCompatible(vd[0], s.b) ||
      !dimsCompatible(kd[0], vd[0]))
    return emitNodeError(op) << "batch of q, k, v are " << formatDims(s.b)
                             << ", " << formatDims(kd[0]) << ", "
                             << formatDims(vd[0]) << " (must match)";
  for (auto [port, heads] :
       {std::pair<StringRef, int64_t>{"k", s.hk}, {"v", s.hv}})
    if (!ShapedType::isDynamic(heads) && !ShapedType::isDynamic(s.hq) &&
        s.hq % heads)
      return emitNodeError(op) << "heads of q (" << s.hq << ") are not a "
                               << "multiple of heads of " << port << " ("
                               << heads << ") (GQA/MQA share each kv head "
                               << "among a whole group of q heads)";
  if (!dimsCompatible(kd[3], s.d))
    return emitNodeError(op) << "head dim of q is " << s.d
                             << " but head dim of k is " << kd[3];
  if (!dimsCompatible(vd[2], s.skv))
    return emitNodeError(op) << "sequence length of k is " << s.skv
                             << " but of v is " << vd[2];
  for (auto [port, dim] :
       {std::pair<StringRef, int64_t>{"q/k", s.d}, {"v", s.dv}})
    if (!ShapedType::isDynamic(dim) && dim > kMaxHeadDim)
      return emitNodeError(op) << "head dim of " << port << " is " << dim
                               << " but the limit is " << kMaxHeadDim;
  return s;
}

/// The last stride of each attention tensor is 1 when strides are set.
LogicalResult verifyUnitLastStride(Operation *op,
                                   ArrayRef<std::pair<StringRef, Value>> ports) {
  for (auto [port, value] : ports) {
    ArrayRef<int64_t> strides =
        getStrides(cast<RankedTensorType>(value.getType()));
    if (!strides.empty() && strides.back() != 1)
      return emitNodeError(op) << port << " must have unit stride in its last "
                               << "(head) dim but has " << strides.back();
  }
  return success();
}

/// Scale, masks and dropout, shared by every sdpa variant.
template <typename SdpaOp>
LogicalResult verifySdpaOptions(SdpaOp op, const SdpaShapes &s) {
  Operation *raw = op.getOperation();
  if (op.getAttnScale() && op.getAttnScaleValueAttr())
    return emitNodeError(raw) << "the attention scale is given twice (as the "
                              << "attn_scale tensor and as attn_scale_value); "
                              << "give it once";
  if (Value scale = op.getAttnScale())
    if (failed(expectOneElement(raw, "attn_scale", scale)))
      return failure();
  if (op.getUseCausalMask() && op.getUseCausalMaskBottomRight())
    return emitNodeError(raw) << "use_causal_mask and "
                              << "use_causal_mask_bottom_right exclude each "
                              << "other";
  if (op.getUsePaddingMask() && !(op.getSeqLenQ() && op.getSeqLenKv()))
    return emitNodeError(raw)
           << "use_padding_mask requires seq_len_q and seq_len_kv but "
           << (op.getSeqLenQ() ? "seq_len_kv" : "seq_len_q")
           << " is missing";
  if (!op.getUsePaddingMask() && (op.getSeqLenQ() || op.getSeqLenKv()))
    return emitNodeError(raw)
           << (op.getSeqLenQ() ? "seq_len_q" : "seq_len_kv")
           << " is given without use_padding_mask";
  for (auto [port, value] :
       {std::pair<StringRef, Value>{"seq_len_q", op.getSeqLenQ()},
        {"seq_len_kv", op.getSeqLenKv()}}) {
    if (!value)
      continue;
    if (failed(expectDims(raw, port, value, {s.b, 1, 1, 1},
                          "[B, 1, 1, 1]: one length per batch")))
      return failure();
    if (!elementOf(value).isInteger())
      return emitNodeError(raw) << port << " must hold integers but is "
                                << elementOf(value);
  }
  SmallVector<int64_t> scores{s.b, s.hq, s.sq, s.skv};
  if (Value bias = op.getBias())
    if (rankOf(bias) != 4 || !broadcastsTo(shapeOf(bias), scores))
      return emitNodeError(raw) << "bias dims " << formatDims(shapeOf(bias))
                                << " do not broadcast to the scores "
                                << formatDims(scores) << " ([B, H, Sq, Skv])";
  for (auto [name, bound] :
       {std::pair<StringRef, std::optional<int64_t>>{
            "diagonal_band_left_bound", op.getDiagonalBandLeftBound()},
        {"diagonal_band_right_bound", op.getDiagonalBandRightBound()},
        {"sliding_window_length", op.getSlidingWindowLength()}})
    if (bound && *bound < 0)
      return emitNodeError(raw) << name << " is " << *bound
                                << " but must be >= 0";
  if (op.getSlidingWindowLength() && op.getDiagonalBandLeftBound())
    return emitNodeError(raw) << "sliding_window_length and "
                              << "diagonal_band_left_bound set the same bound; "
                              << "give one";
  if (auto p = op.getDropoutProbability()) {
    if (p->convertToDouble() < 0.0 || p->convertToDouble() >= 1.0)
      return emitNodeError(raw) << "dropout_probability " << p->convertToDouble()
                                << " must be in [0, 1)";
  }
  if (Value mask = op.getDropoutMask()) {
    if (!op.getDropoutProbability())
      return emitNodeError(raw) << "dropout_mask needs dropout_probability "
                                << "(the kept values are scaled by 1/(1-p))";
    if (failed(expectDims(raw, "dropout_mask", mask, scores,
                          "[B, H, Sq, Skv]")))
      return failure();
  }
  return success();
}

/// What every sdpa variant checks first: the common rules, Q/K/V and the
/// options; gives the shapes the variant's own checks use.
template <typename SdpaOp>
FailureOr<SdpaShapes> verifySdpaCommon(SdpaOp op) {
  Operation *raw = op.getOperation();
  if (failed(verifyCommon(raw)))
    return failure();
  auto s = verifyQkv(raw, op.getQ(), op.getK(), op.getV());
  if (failed(s) || failed(verifySdpaOptions(op, *s)))
    return failure();
  return s;
}

LogicalResult verifyStatsLike(Operation *op, StringRef port, Value value,
                              const SdpaShapes &s) {
  return expectDims(op, port, value, {s.b, s.hq, s.sq, 1}, "[B, Hq, Sq, 1]");
}

LogicalResult verifyAmax(Operation *op, StringRef port, Value value) {
  if (failed(expectDims(op, port, value, {1, 1, 1, 1}, "[1, 1, 1, 1]")))
    return failure();
  if (!elementOf(value).isF32())
    return emitNodeError(op) << port << " must be f32 but is "
                             << elementOf(value);
  return success();
}

LogicalResult verifyHalfInputs(Operation *op,
                               ArrayRef<std::pair<StringRef, Value>> ports) {
  for (auto [port, value] : ports)
    if (!isHalfFloat(elementOf(value)))
      return emitNodeError(op) << port << " must be f16 or bf16 (cuDNN's "
                               << "fused attention) but is " << elementOf(value);
  return success();
}

template <typename SdpaOp>
LogicalResult verifySdpaForwardOutputs(SdpaOp op, const SdpaShapes &s) {
  Operation *raw = op.getOperation();
  if (failed(expectDims(raw, "O", op.getO(), {s.b, s.hq, s.sq, s.dv},
                        "[B, Hq, Sq, Dv]")))
    return failure();
  if (failed(expectResultExactlyWhen(
          raw, op.getGenerateStats(), op.getStats(),
          "generate_stats is set but there is no Stats result",
          "a Stats result needs generate_stats")))
    return failure();
  if (Value stats = op.getStats())
    return verifyStatsLike(raw, "Stats", stats, s);
  return success();
}

/// The forward output and its gradient `[B, Hq, Sq, Dv]`, the stats, and
/// dQ, dK, dV like q, k, v. `outputs` starts with the forward output the
/// others are "like" (o, or mxfp8's o_f16 followed by dO_f16 and dO).
template <typename SdpaBwdOp>
LogicalResult
verifySdpaBackwardShapes(SdpaBwdOp op, const SdpaShapes &s,
                         ArrayRef<std::pair<StringRef, Value>> outputs) {
  Operation *raw = op.getOperation();
  SmallVector<int64_t> o{s.b, s.hq, s.sq, s.dv};
  auto [oPort, oValue] = outputs.front();
  if (failed(expectDims(raw, oPort, oValue, o, "[B, Hq, Sq, Dv]")))
    return failure();
  for (auto [port, value] : outputs.drop_front())
    if (failed(expectDims(raw, port, value, o, "like " + oPort)))
      return failure();
  if (failed(verifyStatsLike(raw, "stats", op.getStats(), s)) ||
      failed(expectDims(raw, "dQ", op.getDQ(), shapeOf(op.getQ()), "like q")) ||
      failed(expectDims(raw, "dK", op.getDK(), shapeOf(op.getK()), "like k")) ||
      failed(expectDims(raw, "dV", op.getDV(), shapeOf(op.getV()), "like v")))
    return failure();
  return success();
}

} // namespace

LogicalResult SdpaOp::verify() {
  auto s = verifySdpaCommon(*this);
  if (failed(s) ||
      failed(verifyHalfInputs(*this, {{"q", getQ()}, {"k", getK()},
                                      {"v", getV()}})) ||
      failed(verifySdpaForwardOutputs(*this, *s)) ||
      failed(verifyUnitLastStride(*this, {{"q", getQ()}, {"k", getK()},
                                          {"v", getV()}, {"O", getO()}})))
    return failure();
  for (auto [port, value] :
       {std::pair<StringRef, Value>{"score_max", getScoreMax()},
        {"score_sum_exp", getScoreSumExp()}})
    if (value && failed(verifyStatsLike(*this, port, value, *s)))
      return failure();
  return success();
}

LogicalResult SdpaBackwardOp::verify() {
  auto s = verifySdpaCommon(*this);
  if (failed(s) ||
      failed(verifyHalfInputs(*this, {{"q", getQ()}, {"k", getK()},
                                      {"v", getV()}})) ||
      failed(verifySdpaBackwardShapes(*this, *s,
                                      {{"o", getO()}, {"dO", getDO()}})) ||
      failed(verifyUnitLastStride(*this, {{"q", getQ()}, {"k", getK()},
                                          {"v", getV()}, {"o", getO()},
                                          {"dO", getDO()}})))
    return failure();
  if (Value dbias = getDBias()) {
    if (!getBias())
      return emitNodeError(*this) << "dBias needs a bias operand";
    return expectDims(*this, "dBias", dbias, shapeOf(getBias()), "like bias");
  }
  return success();
}

LogicalResult SdpaFp8Op::verify() {
  auto s = verifySdpaCommon(*this);
  if (failed(s) || failed(verifySdpaForwardOutputs(*this, *s)) ||
      failed(expectEach(
          *this, {{"q", getQ()}, {"k", getK()}, {"v", getV()}, {"O", getO()}},
          expectFp8)) ||
      failed(expectEach(*this,
                        {{"descale_q", getDescaleQ()},
                         {"descale_k", getDescaleK()},
                         {"descale_v", getDescaleV()},
                         {"descale_s", getDescaleS()}, {"scale_s", getScaleS()},
                         {"scale_o", getScaleO()}},
                        expectOneElement)) ||
      failed(expectEach(*this,
                        {{"Amax_S", getAmax_S()}, {"Amax_O", getAmax_O()}},
                        verifyAmax)))
    return failure();
  return success();
}

LogicalResult SdpaFp8BackwardOp::verify() {
  auto s = verifySdpaCommon(*this);
  if (failed(s) ||
      failed(verifySdpaBackwardShapes(*this, *s,
                                      {{"o", getO()}, {"dO", getDO()}})) ||
      failed(expectEach(*this,
                        {{"q", getQ()}, {"k", getK()}, {"v", getV()},
                         {"o", getO()}, {"dO", getDO()}},
                        expectFp8)) ||
      failed(expectEach(*this,
                        {{"descale_q", getDescaleQ()},
                         {"descale_k", getDescaleK()},
                         {"descale_v", getDescaleV()},
                         {"descale_o", getDescaleO()},
                         {"descale_dO", getDescaleDO()},
                         {"descale_s", getDescaleS()},
                         {"descale_dP", getDescaleDP()},
                         {"scale_s", getScaleS()}, {"scale_dQ", getScaleDQ()},
                         {"scale_dK", getScaleDK()}, {"scale_dV", getScaleDV()},
                         {"scale_dP", getScaleDP()}},
                        expectOneElement)) ||
      failed(expectEach(*this,
                        {{"amax_dQ", getAmaxDQ()}, {"amax_dK", getAmaxDK()},
                         {"amax_dV", getAmaxDV()}, {"amax_dP", getAmaxDP()}},
                        verifyAmax)))
    return failure();
  return success();
}

namespace {
/// MX block scales: one e8m0 scale per 32 elements along the contracted
/// dim of `data`: the head dim (3) for q, k, dO, the sequence dim (2) for v
/// and the transposed copies q_T, k_T, dO_T.
LogicalResult verifyMxScale(Operation *op, StringRef port, Value scale,
                            StringRef dataPort, Value data, unsigned axis) {
  SmallVector<int64_t> dims(shapeOf(data));
  if (!ShapedType::isDynamic(dims[axis]))
    dims[axis] = (dims[axis] + 31) / 32;
  return expectDims(op, port, scale, dims,
                    ("one scale per block of 32 along the " +
                     Twine(axis == 3 ? "head" : "sequence") + " dim of " +
                     dataPort)
                        .str());
}
} // namespace

LogicalResult SdpaMxfp8Op::verify() {
  auto s = verifySdpaCommon(*this);
  if (failed(s) || failed(verifySdpaForwardOutputs(*this, *s)) ||
      failed(expectEach(*this, {{"q", getQ()}, {"k", getK()}, {"v", getV()}},
                        expectFp8)) ||
      failed(verifyMxScale(*this, "descale_q", getDescaleQ(), "q", getQ(), 3)) ||
      failed(verifyMxScale(*this, "descale_k", getDescaleK(), "k", getK(), 3)) ||
      failed(verifyMxScale(*this, "descale_v", getDescaleV(), "v", getV(), 2)))
    return failure();
  return verifyAmax(*this, "Amax_O", getAmax_O());
}

LogicalResult SdpaMxfp8BackwardOp::verify() {
  auto s = verifySdpaCommon(*this);
  if (failed(s) ||
      failed(verifySdpaBackwardShapes(
          *this, *s,
          {{"o_f16", getOF16()}, {"dO_f16", getDOF16()}, {"dO", getDO()}})))
    return failure();
  // The transposed copies hold the same values, quantized along the sequence
  // dim instead of the head dim.
  for (auto [port, value, dataPort, data] :
       {std::tuple<StringRef, Value, StringRef, Value>{
            "q_T", getQ_T(), "q", getQ()},
        {"k_T", getK_T(), "k", getK()},
        {"dO_T", getDO_T(), "dO", getDO()}})
    if (failed(expectDims(*this, port, value, shapeOf(data),
                          "like " + dataPort +
                              ": the same values quantized along the "
                              "sequence dim")))
      return failure();
  if (failed(expectEach(*this,
                        {{"q", getQ()}, {"q_T", getQ_T()}, {"k", getK()},
                         {"k_T", getK_T()}, {"v", getV()}, {"dO", getDO()},
                         {"dO_T", getDO_T()}},
                        expectFp8)))
    return failure();
  for (auto [port, scale, dataPort, data, axis] :
       {std::tuple<StringRef, Value, StringRef, Value, unsigned>{
            "descale_q", getDescaleQ(), "q", getQ(), 3},
        {"descale_q_T", getDescaleQ_T(), "q_T", getQ_T(), 2},
        {"descale_k", getDescaleK(), "k", getK(), 3},
        {"descale_k_T", getDescaleK_T(), "k_T", getK_T(), 2},
        {"descale_v", getDescaleV(), "v", getV(), 2},
        {"descale_dO", getDescaleDO(), "dO", getDO(), 3},
        {"descale_dO_T", getDescaleDO_T(), "dO_T", getDO_T(), 2}})
    if (failed(verifyMxScale(*this, port, scale, dataPort, data, axis)))
      return failure();
  return expectEach(*this,
                    {{"amax_dQ", getAmaxDQ()}, {"amax_dK", getAmaxDK()},
                     {"amax_dV", getAmaxDV()}},
                    verifyAmax);
}

//===----------------------------------------------------------------------===//
// Linear attention
//===----------------------------------------------------------------------===//

namespace {

struct LinearShapes {
  int64_t t, hqk, hv, h, dk, dv;
};

LogicalResult expectHeadsDivide(Operation *op, StringRef port, int64_t heads,
                                int64_t stateHeads) {
  if (ShapedType::isDynamic(heads) || ShapedType::isDynamic(stateHeads) ||
      (heads > 0 && stateHeads % heads == 0))
    return success();
  return emitNodeError(op) << "heads of " << port << " (" << heads
                           << ") do not divide the state's " << stateHeads
                           << " heads (the max of q and v heads)";
}

/// q `[T, Hq, K]`, k `[T, Hk, K]`, v `[T, Hv, V]`; the state lives at
/// `H = max(Hq, Hv)` heads and every head count divides H.
FailureOr<LinearShapes> verifyLinearQkv(Operation *op, Value q, Value k,
                                        Value v) {
  for (auto [port, value] :
       {std::pair<StringRef, Value>{"q", q}, {"k", k}, {"v", v}})
    if (failed(expectRank(op, port, value, 3)))
      return failure();
  ArrayRef<int64_t> qd = shapeOf(q), kd = shapeOf(k), vd = shapeOf(v);
  LinearShapes s{qd[0], qd[1], vd[1], std::max(qd[1], vd[1]), qd[2], vd[2]};
  for (auto [port, dims] :
       {std::pair<StringRef, ArrayRef<int64_t>>{"k", kd}, {"v", vd}})
    if (!dimsCompatible(dims[0], s.t))
      return emitNodeError(op) << "tokens of q (" << s.t << ") and " << port
                               << " (" << dims[0] << ") differ";
  if (!dimsCompatible(kd[0], vd[0]))
    return emitNodeError(op) << "tokens of k (" << kd[0] << ") and v ("
                             << vd[0] << ") differ";
  if (!dimsCompatible(kd[2], s.dk))
    return emitNodeError(op) << "key dim of q is " << s.dk
                             << " but key dim of k is " << kd[2];
  for (auto [port, heads] : {std::pair<StringRef, int64_t>{"q", qd[1]},
                             {"k", kd[1]}, {"v", vd[1]}})
    if (failed(expectHeadsDivide(op, port, heads, s.h)))
      return failure();
  return s;
}

/// A per-token, per-head tensor `[T, Hx]` or `[T, Hx, last]` whose head
/// count divides the state's.
LogicalResult verifyPerHead(Operation *op, StringRef port, Value value,
                            const LinearShapes &s,
                            std::optional<int64_t> last) {
  ArrayRef<int64_t> dims = shapeOf(value);
  size_t rank = last ? 3 : 2;
  if (dims.size() != rank || !dimsCompatible(dims[0], s.t) ||
      (last && !dimsCompatible(dims[2], *last)))
    return emitNodeError(op)
           << port << " dims are " << formatDims(dims) << " but must be "
           << (last ? "[T, heads, " + formatDims(*last) + "]"
                    : std::string("[T, heads]"))
           << " with T = " << formatDims(s.t);
  return expectHeadsDivide(op, port, dims[1], s.h);
}

/// gdn: g and beta `[T, Hg]`; kda: g `[T, Hg, K]`, beta `[T, Hb]`; gdn2: g
/// and beta per key channel `[T, Hx, K]` and the write gate w `[T, Hw, V]`.
template <typename Op>
LogicalResult verifyGates(Op op, const LinearShapes &s) {
  Operation *raw = op.getOperation();
  constexpr bool isGdn =
      std::is_same_v<Op, GdnOp> || std::is_same_v<Op, GdnBwdOp>;
  constexpr bool isGdn2 =
      std::is_same_v<Op, Gdn2Op> || std::is_same_v<Op, Gdn2BwdOp>;
  std::optional<int64_t> gateLast, betaLast;
  if (!isGdn)
    gateLast = s.dk;
  if (isGdn2)
    betaLast = s.dk;
  if (failed(verifyPerHead(raw, "g", op.getG(), s, gateLast)) ||
      failed(verifyPerHead(raw, "beta", op.getBeta(), s, betaLast)))
    return failure();
  if constexpr (isGdn2)
    return verifyPerHead(raw, "w", op.getW(), s, s.dv);
  return success();
}

FailureOr<int64_t> sequenceCount(Operation *op, Value cuSeqlens) {
  if (!cuSeqlens)
    return 1;
  if (rankOf(cuSeqlens) != 1 || !elementOf(cuSeqlens).isInteger())
    return emitNodeError(op) << "cu_seqlens must be a rank-1 integer tensor "
                             << "([N + 1] boundaries) but is "
                             << cuSeqlens.getType();
  int64_t n = shapeOf(cuSeqlens)[0];
  if (!ShapedType::isDynamic(n) && n < 2)
    return emitNodeError(op) << "cu_seqlens has " << n << " entries; it needs "
                             << "N + 1 >= 2 sequence boundaries";
  return ShapedType::isDynamic(n) ? n : n - 1;
}

/// The dims the forward and backward checks share: the state `[N, H, K, V]`
/// and O (or its gradient dO) `[T, H, V]`.
struct LinearDims {
  SmallVector<int64_t> state, output;
};

/// What the forward and backward ops check alike: the common rules, q/k/v,
/// the gates and cu_seqlens; gives the state and output dims.
template <typename Op>
FailureOr<LinearDims> verifyLinearCommon(Op op) {
  Operation *raw = op.getOperation();
  if (failed(verifyCommon(raw)))
    return failure();
  auto s = verifyLinearQkv(raw, op.getQ(), op.getK(), op.getV());
  if (failed(s) || failed(verifyGates(op, *s)))
    return failure();
  auto n = sequenceCount(raw, op.getCuSeqlens());
  if (failed(n))
    return failure();
  return LinearDims{{*n, s->h, s->dk, s->dv}, {s->t, s->h, s->dv}};
}

template <typename FwdOp>
LogicalResult verifyLinearForward(FwdOp op) {
  Operation *raw = op.getOperation();
  auto dims = verifyLinearCommon(op);
  if (failed(dims))
    return failure();
  if (Value init = op.getInitialState())
    if (failed(expectDims(raw, "initial_state", init, dims->state,
                          "[N, H, K, V]")))
      return failure();
  if (failed(expectDims(raw, "O", op.getO(), dims->output, "[T, H, V]")) ||
      failed(expectResultExactlyWhen(
          raw, op.getOutputFinalState(), op.getFinalState(),
          "output_final_state is set but there is no final_state result",
          "a final_state result needs output_final_state")))
    return failure();
  if (Value final = op.getFinalState())
    if (failed(expectDims(raw, "final_state", final, dims->state,
                          "[N, H, K, V]")))
      return failure();
  int64_t every = op.getCheckpointEveryNTokens().value_or(0);
  if (every < 0)
    return emitNodeError(raw) << "checkpoint_every_n_tokens " << every
                              << " must be >= 0";
  if (every > 0 && !op.getStateCheckpoints())
    return emitNodeError(raw) << "checkpoint_every_n_tokens is " << every
                              << " but there is no state_checkpoints result";
  if (every == 0 && op.getStateCheckpoints())
    return emitNodeError(raw) << "a state_checkpoints result needs "
                              << "checkpoint_every_n_tokens > 0";
  return success();
}

template <typename BwdOp>
LogicalResult verifyLinearBackward(BwdOp op) {
  Operation *raw = op.getOperation();
  auto dims = verifyLinearCommon(op);
  if (failed(dims) ||
      failed(expectDims(raw, "dO", op.getDO(), dims->output, "[T, H, V]")))
    return failure();
  for (auto [port, value] :
       {std::pair<StringRef, Value>{"initial_state", op.getInitialState()},
        {"d_final_state", op.getDFinalState()}})
    if (value &&
        failed(expectDims(raw, port, value, dims->state, "[N, H, K, V]")))
      return failure();
  for (auto [port, grad, value] :
       {std::tuple<StringRef, Value, Value>{"dQ", op.getDQ(), op.getQ()},
        {"dK", op.getDK(), op.getK()},
        {"dV", op.getDV(), op.getV()},
        {"dG", op.getDG(), op.getG()},
        {"dBeta", op.getDBeta(), op.getBeta()}})
    if (failed(expectDims(raw, port, grad, shapeOf(value), "like its input")))
      return failure();
  if (failed(expectResultExactlyWhen(
          raw, bool(op.getInitialState()), op.getDInitialState(),
          "initial_state is given but there is no d_initial_state result",
          "a d_initial_state result needs an initial_state operand")))
    return failure();
  if (Value d = op.getDInitialState())
    if (failed(expectDims(raw, "d_initial_state", d,
                          shapeOf(op.getInitialState()),
                          "like initial_state")))
      return failure();
  return success();
}

} // namespace

LogicalResult GdnOp::verify() { return verifyLinearForward(*this); }
LogicalResult KdaOp::verify() { return verifyLinearForward(*this); }
LogicalResult Gdn2Op::verify() { return verifyLinearForward(*this); }
LogicalResult GdnBwdOp::verify() { return verifyLinearBackward(*this); }
LogicalResult KdaBwdOp::verify() { return verifyLinearBackward(*this); }
LogicalResult Gdn2BwdOp::verify() {
  if (failed(verifyLinearBackward(*this)))
    return failure();
  return expectDims(*this, "dW", getDW(), shapeOf(getW()), "like w");
}

//===----------------------------------------------------------------------===//
// Folders and canonicalization patterns
//===----------------------------------------------------------------------===//

namespace {
/// Folding `result` into `replacement` must not change what a graph output
/// holds: an output buffer is written by the node that produces it, so an
/// output only folds into a value a node computes that is no output yet (not
/// a graph input, a scalar or another output, whose buffers are distinct).
bool keepsOutputs(Value result, Value replacement) {
  auto isOutput = [](Operation *user) { return isa<OutputOp>(user); };
  if (llvm::none_of(result.getUsers(), isOutput))
    return true;
  Operation *def = replacement.getDefiningOp();
  return def && !isa<ScalarOp>(def) &&
         llvm::none_of(replacement.getUsers(), isOutput);
}

/// Every value of `narrow` is exactly a value of `wide` (both floats).
bool holdsExactly(Type wide, Type narrow) {
  auto w = dyn_cast<FloatType>(wide), n = dyn_cast<FloatType>(narrow);
  return w && n &&
         llvm::APFloatBase::isRepresentableBy(n.getFloatSemantics(),
                                              w.getFloatSemantics());
}
} // namespace

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

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getOutput().getType() &&
      keepsOutputs(getOutput(), getInput()))
    return getInput();
  return {};
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  ArrayRef<int64_t> perm = getPermutation();
  bool identity = llvm::all_of(llvm::enumerate(perm), [](auto pair) {
    return static_cast<int64_t>(pair.index()) == pair.value();
  });
  if (identity && getInput().getType() == getOutput().getType() &&
      keepsOutputs(getOutput(), getInput()))
    return getInput();
  return {};
}

namespace {

/// transpose(transpose(x, p1), p2) -> transpose(x, p1 o p2).
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<TransposeOp>();
    if (!inner)
      return failure();
    SmallVector<int64_t> composed;
    for (int64_t p : op.getPermutation())
      composed.push_back(inner.getPermutation()[p]);
    rewriter.modifyOpInPlace(op, [&] {
      op.getInputMutable().assign(inner.getInput());
      op.setPermutation(composed);
    });
    return success();
  }
};

/// reshape(reshape(x)) -> reshape(x).
struct ComposeReshapes : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<ReshapeOp>();
    if (!inner)
      return failure();
    rewriter.modifyOpInPlace(
        op, [&] { op.getInputMutable().assign(inner.getInput()); });
    return success();
  }
};

} // namespace

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeTransposes>(context);
}

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ComposeReshapes>(context);
}

//===----------------------------------------------------------------------===//
// Result type inference and the assembly that may omit the result type
//===----------------------------------------------------------------------===//

namespace {

/// A ranked tensor of `shape` with `like`'s element type and no encoding.
Type inferredTensor(ArrayRef<int64_t> shape, Value like) {
  return RankedTensorType::get(shape, elementOf(like));
}

/// `operands attr-dict : (operand types) [-> result types]`: without the
/// arrow, the result types come from the op's InferTypeOpInterface.
/// The part after the operands: `attr-dict : (types) [-> types]`.
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
    if (llvm::is_contained(OpTy::getAttributeNames(), attr.getName().getValue()))
      inherent.push_back(attr);
  if (failed(OpTy::setPropertiesFromAttr(
          properties, inherent.getDictionary(context),
          [&]() { return parser.emitError(loc); })))
    return failure();
  if (!explicitResults) {
    typename OpTy::Adaptor adaptor(result.operands,
                                   result.attributes.getDictionary(context),
                                   properties);
    if (failed(OpTy::inferReturnTypes(context, result.location, adaptor,
                                      resultTypes)))
      return parser.emitError(loc, "cannot infer the result type of ")
             << OpTy::getOperationName() << "; write it after '->'";
  }
  result.addTypes(resultTypes);
  return success();
}

template <typename OpTy>
ParseResult parseInferredResultOp(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  llvm::SMLoc loc = parser.getCurrentLocation();
  if (parser.parseOperandList(operands))
    return failure();
  return parseInferredResultTail<OpTy>(parser, result, operands, loc);
}

/// Prints the explicit form always, so text round-trips exactly.
void printInferredResultOp(OpAsmPrinter &printer, Operation *op) {
  printer << ' ';
  printer.printOperands(op->getOperands());
  printer.printOptionalAttrDict(op->getAttrDictionary().getValue());
  printer << " : ";
  printer.printFunctionalType(op);
}

} // namespace

#define GRAPH_INFERRED_RESULT_ASSEMBLY(OP)                                     \
  ParseResult OP::parse(OpAsmParser &parser, OperationState &result) {         \
    return parseInferredResultOp<OP>(parser, result);                          \
  }                                                                            \
  void OP::print(OpAsmPrinter &printer) {                                      \
    printInferredResultOp(printer, getOperation());                            \
  }                                                                            \
  bool OP::isCompatibleReturnTypes(TypeRange l, TypeRange r) {                 \
    /* The verifier checks dims with a precise message; element types and  */ \
    /* encodings of results are the user's choice. */                         \
    return l.size() == r.size();                                               \
  }
GRAPH_INFERRED_RESULT_ASSEMBLY(MatmulOp)
GRAPH_INFERRED_RESULT_ASSEMBLY(TransposeOp)
GRAPH_INFERRED_RESULT_ASSEMBLY(SliceOp)
GRAPH_INFERRED_RESULT_ASSEMBLY(ConcatenateOp)
GRAPH_INFERRED_RESULT_ASSEMBLY(ConvFpropOp)
#undef GRAPH_INFERRED_RESULT_ASSEMBLY

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

// Inference never fails on inconsistent operands: it returns its best guess
// and leaves the diagnosis to the verifier, whose messages name the rule.

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  ArrayRef<int64_t> a = shapeOf(adaptor.getA()), b = shapeOf(adaptor.getB());
  SmallVector<int64_t> shape;
  if (a.size() >= 2 && b.size() >= 2 && a.size() == b.size()) {
    for (size_t i = 0; i + 2 < a.size(); ++i)
      shape.push_back(a[i] == 1 ? b[i] : a[i]);
    shape.push_back(a[a.size() - 2]);
    shape.push_back(b.back());
  } else {
    shape.assign(a.begin(), a.end());
  }
  results.push_back(inferredTensor(shape, adaptor.getA()));
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location>,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  ArrayRef<int64_t> in = shapeOf(adaptor.getInput());
  ArrayRef<int64_t> perm =
      adaptor.getPermutationAttr() ? adaptor.getPermutation() : ArrayRef<int64_t>();
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(p >= 0 && p < static_cast<int64_t>(in.size())
                        ? in[p]
                        : ShapedType::kDynamic);
  if (perm.size() != in.size())
    shape.assign(in.begin(), in.end());
  results.push_back(inferredTensor(shape, adaptor.getInput()));
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  ArrayRef<int64_t> in = shapeOf(adaptor.getInput());
  SmallVector<int64_t> shape(in);
  if (adaptor.getStartAttr() && adaptor.getLimitAttr() &&
      adaptor.getStart().size() == in.size() &&
      adaptor.getLimit().size() == in.size()) {
    std::optional<ArrayRef<int64_t>> steps = adaptor.getStep();
    for (size_t d = 0; d < in.size(); ++d) {
      int64_t step = steps && steps->size() == in.size() ? (*steps)[d] : 1;
      int64_t span = adaptor.getLimit()[d] - adaptor.getStart()[d];
      shape[d] = step >= 1 && span >= 0 ? (span + step - 1) / step : in[d];
    }
  }
  results.push_back(inferredTensor(shape, adaptor.getInput()));
  return success();
}

LogicalResult ConcatenateOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location>,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &results) {
  if (adaptor.getInputs().empty())
    return failure(); // nothing to infer from: the text must give the type
  Value first = adaptor.getInputs().front();
  SmallVector<int64_t> shape(shapeOf(first));
  int64_t axis = adaptor.getAxisAttr() ? adaptor.getAxis() : -1;
  if (axis >= 0 && axis < static_cast<int64_t>(shape.size())) {
    int64_t total = 0;
    for (Value input : adaptor.getInputs()) {
      ArrayRef<int64_t> dims = shapeOf(input);
      int64_t extent = axis < static_cast<int64_t>(dims.size())
                           ? dims[axis]
                           : ShapedType::kDynamic;
      std::optional<int64_t> sum = ::graph::checkedAdd(total, extent);
      // An overflowing sum is left to the verifier to diagnose.
      total = ShapedType::isDynamic(extent) || ShapedType::isDynamic(total) ||
                      !sum
                  ? ShapedType::kDynamic
                  : *sum;
    }
    shape[axis] = total;
  }
  results.push_back(inferredTensor(shape, first));
  return success();
}

LogicalResult ConvFpropOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location>,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  ArrayRef<int64_t> x = shapeOf(adaptor.getImage()),
                    w = shapeOf(adaptor.getWeight());
  SmallVector<int64_t> shape(x);
  unsigned spatial = x.size() >= 2 ? x.size() - 2 : 0;
  auto pick = [&](std::optional<ArrayRef<int64_t>> values,
                  std::optional<ArrayRef<int64_t>> fallback, int64_t dflt) {
    if (values && values->size() == spatial)
      return SmallVector<int64_t>(*values);
    if (fallback && fallback->size() == spatial)
      return SmallVector<int64_t>(*fallback);
    return SmallVector<int64_t>(spatial, dflt);
  };
  ConvGeometry g;
  g.pre = pick(adaptor.getPrePadding(), adaptor.getPadding(), 0);
  g.post = pick(adaptor.getPostPadding(), adaptor.getPadding(), 0);
  g.stride = pick(adaptor.getStride(), std::nullopt, 1);
  g.dilation = pick(adaptor.getDilation(), std::nullopt, 1);
  if (x.size() >= 3 && w.size() == x.size() &&
      llvm::all_of(g.stride, [](int64_t s) { return s >= 1; })) {
    shape[1] = w[0];
    SmallVector<int64_t> out = convOutputSpatial(x, w, g);
    for (unsigned i = 0; i < out.size(); ++i)
      shape[i + 2] = out[i];
  }
  results.push_back(inferredTensor(shape, adaptor.getImage()));
  return success();
}
