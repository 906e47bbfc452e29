//===- GraphOpsMatmulConv.cpp - Matmul, convolution and MoE ops ----------===//
//
// Verifiers and result type inference of the contractions: matmul, the
// three convolutions (fprop, dgrad, wgrad: one rule set over their
// padding, stride and dilation) and the MoE grouped matmul and its
// backward.
//
//===----------------------------------------------------------------------===//

#include "GraphOpsInternal.h"

#include "GraphDialect/Support/CheckedMath.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::graph::detail;

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

/// [batch..., M of A, N of B] for A and B of one rank >= 2, each batch dim
/// the one of A and B that is not 1: the rule's dims, which the parser's
/// type inference uses too.
static SmallVector<int64_t> matmulDims(ArrayRef<int64_t> a,
                                       ArrayRef<int64_t> b) {
  SmallVector<int64_t> dims;
  for (size_t i = 0; i + 2 < a.size(); ++i)
    dims.push_back(a[i] == 1 ? b[i] : a[i]);
  dims.push_back(a[a.size() - 2]);
  dims.push_back(b.back());
  return dims;
}

LogicalResult MatmulOp::inferResultDims(ResultDims &dims) {
  ArrayRef<int64_t> a = shapeOf(getA()), b = shapeOf(getB());
  if (a.size() < 2)
    return emitNodeError(*this) << "A must have rank >= 2 ([..., M, K]) but "
                                << "has dims " << formatDims(a);
  if (b.size() < 2)
    return emitNodeError(*this) << "B must have rank >= 2 ([..., K, N]) but "
                                << "has dims " << formatDims(b);
  if (a.size() != b.size())
    return emitNodeError(*this) << "A has rank " << a.size() << " but B has "
                                << "rank " << b.size() << " (ranks must match)";
  int64_t kA = a[a.size() - 1], kB = b[b.size() - 2];
  if (!dimsCompatible(kA, kB))
    return emitNodeError(*this)
           << "K of A is " << kA << " but K of B is " << kB;
  for (size_t i = 0; i + 2 < a.size(); ++i)
    if (a[i] != b[i] && a[i] != 1 && b[i] != 1 && !dimsCompatible(a[i], b[i]))
      return emitNodeError(*this)
             << "batch dim " << i << " of A is " << a[i] << " but of B is "
             << b[i] << " (batch dims must match or be 1)";
  dims.set(getC(), "C", matmulDims(a, b), "[batch..., M of A, N of B]");
  return success();
}

LogicalResult MatmulOp::verify() {
  ResultDims dims;
  if (failed(verifyCommon(*this)) || failed(inferResultDims(dims)))
    return failure();
  return checkResultDims(*this, dims);
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
    // Floor division: a window wider than the padded input leaves no
    // output (C++'s division truncates -1 / 2 to 0, an output of 1).
    out.push_back(llvm::divideFloorSigned(*span, g.stride[i]) + 1);
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
    return emitNodeError(op)
           << wPort << " has rank " << w.size() << " but " << xPort
           << " has rank " << x.size() << " (ranks must match)";
  if (y.size() != x.size())
    return emitNodeError(op)
           << yPort << " has rank " << y.size() << " but " << xPort
           << " has rank " << x.size() << " (ranks must match)";
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
      return emitNodeError(op)
             << "output channels " << w[0] << " are not divisible by the "
             << groups << " groups implied by channels " << x[1] << " / "
             << w[1];
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

/// The operand rules of a convolution (`in` the operand whose spatial dims
/// the output's follow, `other` the filter or the gradient) and its
/// geometry; `spatial` is set to the spatial rank.
template <typename ConvOp>
static FailureOr<ConvGeometry> checkConvOperands(ConvOp op, StringRef inPort,
                                                 Value in, StringRef otherPort,
                                                 Value other) {
  if (failed(verifyConvRank(op, inPort, in)))
    return failure();
  if (rankOf(other) != rankOf(in))
    return emitNodeError(op)
           << otherPort << " has rank " << rankOf(other) << " but " << inPort
           << " has rank " << rankOf(in) << " (ranks must match)";
  return getConvGeometry(op, rankOf(in) - 2);
}

/// One spatial extent of a convolution rule, kDynamic when an input is
/// dynamic or the arithmetic overflows.
static int64_t convExtent(std::initializer_list<int64_t> terms,
                          function_ref<std::optional<int64_t>()> compute) {
  for (int64_t t : terms)
    if (ShapedType::isDynamic(t))
      return ShapedType::kDynamic;
  return compute().value_or(ShapedType::kDynamic);
}

// Y = [N of image, K of weight, (in + pre + post - ((window - 1) * dilation
// + 1)) / stride + 1 per spatial dim]; the channels of image are a multiple
// of weight's channels per group.
LogicalResult ConvFpropOp::inferResultDims(ResultDims &dims) {
  auto geometry =
      checkConvOperands(*this, "image", getImage(), "weight", getWeight());
  if (failed(geometry))
    return failure();
  ArrayRef<int64_t> x = shapeOf(getImage()), w = shapeOf(getWeight());
  if (!ShapedType::isDynamic(x[1]) && !ShapedType::isDynamic(w[1])) {
    if (x[1] % w[1] != 0)
      return emitNodeError(*this)
             << "input channels of image (" << x[1]
             << ") are not a multiple of the channels per group of weight ("
             << w[1] << ")";
    int64_t groups = x[1] / w[1];
    if (!ShapedType::isDynamic(w[0]) && w[0] % groups != 0)
      return emitNodeError(*this)
             << "output channels " << w[0] << " are not divisible by the "
             << groups << " groups implied by channels " << x[1] << " / "
             << w[1];
  }
  bool overflow = false;
  SmallVector<int64_t> spatial = convOutputSpatial(x, w, *geometry, &overflow);
  if (overflow)
    return emitNodeError(*this) << "the output's spatial dims overflow 64-bit "
                                << "arithmetic: (in + pre + post - ((window - "
                                << "1) * dilation + 1)) must fit in 63 bits";
  for (auto [i, o] : llvm::enumerate(spatial))
    if (!ShapedType::isDynamic(o) && o <= 0)
      return emitNodeError(*this) << "spatial dim " << i << " of the output "
                                  << "would be " << o << " (window larger "
                                  << "than the padded input)";
  SmallVector<int64_t> y{x[0], w[0]};
  y.append(spatial);
  dims.set(getY(), "Y", y,
           "[N of image, K of weight, (in + pre + post - ((window - 1) * "
           "dilation + 1)) / stride + 1...]");
  return success();
}

// DX = [N of loss, C of filter, (out - 1) * stride + (window - 1) * dilation
// + 1 - pre - post per spatial dim]: the smallest image of one group whose
// forward gives loss; more groups or a stride remainder are the user's.
LogicalResult ConvDgradOp::inferResultDims(ResultDims &dims) {
  auto g = checkConvOperands(*this, "loss", getLoss(), "filter", getFilter());
  if (failed(g))
    return failure();
  using ::graph::checkedAdd;
  using ::graph::checkedMul;
  ArrayRef<int64_t> dy = shapeOf(getLoss()), w = shapeOf(getFilter());
  SmallVector<int64_t> dx{dy[0], w[1]};
  for (size_t i = 0; i + 2 < dy.size(); ++i) {
    int64_t out = dy[i + 2], window = w[i + 2];
    dx.push_back(convExtent({out, window}, [&]() -> std::optional<int64_t> {
      auto a = checkedMul(out - 1, g->stride[i]);
      auto b = checkedMul(window - 1, g->dilation[i]);
      if (!a || !b)
        return std::nullopt;
      auto sum = checkedAdd(*a, *b);
      if (sum)
        sum = checkedAdd(*sum, 1 - g->pre[i]);
      if (sum)
        sum = checkedAdd(*sum, -g->post[i]);
      return sum && *sum > 0 ? sum : std::nullopt;
    }));
  }
  dims.suggest(getDX(), "DX", dx,
               "[N of loss, C of filter, (out - 1) * stride + (window - 1) * "
               "dilation + 1 - pre - post...]");
  return success();
}

// DW = [K of loss, C of image, (in + pre + post - (out - 1) * stride - 1) /
// dilation + 1 per spatial dim]: one group; more groups are the user's.
LogicalResult ConvWgradOp::inferResultDims(ResultDims &dims) {
  auto g = checkConvOperands(*this, "image", getImage(), "loss", getLoss());
  if (failed(g))
    return failure();
  using ::graph::checkedAdd;
  using ::graph::checkedMul;
  ArrayRef<int64_t> x = shapeOf(getImage()), dy = shapeOf(getLoss());
  SmallVector<int64_t> dw{dy[1], x[1]};
  for (size_t i = 0; i + 2 < x.size(); ++i) {
    int64_t in = x[i + 2], out = dy[i + 2];
    dw.push_back(convExtent({in, out}, [&]() -> std::optional<int64_t> {
      auto span = checkedMul(out - 1, g->stride[i]);
      auto padded = checkedAdd(in, g->pre[i]);
      if (padded)
        padded = checkedAdd(*padded, g->post[i]);
      if (!span || !padded)
        return std::nullopt;
      auto rest = checkedAdd(*padded, -*span - 1);
      if (!rest || *rest < 0)
        return std::nullopt;
      return *rest / g->dilation[i] + 1;
    }));
  }
  dims.suggest(getDW(), "DW", dw,
               "[K of loss, C of image, (in + pre + post - (out - 1) * stride "
               "- 1) / dilation + 1...]");
  return success();
}

// The verifiers keep the three-way check of image, filter and output (its
// messages name whichever of the three disagrees) after the rule.
LogicalResult ConvFpropOp::verify() {
  ResultDims dims;
  if (failed(verifyConv(*this, "image", getImage(), "weight", getWeight(), "Y",
                        getY())) ||
      failed(inferResultDims(dims)))
    return failure();
  return checkResultDims(*this, dims);
}

LogicalResult ConvDgradOp::verify() {
  ResultDims dims;
  if (failed(verifyConv(*this, "DX", getDX(), "filter", getFilter(), "loss",
                        getLoss())))
    return failure();
  return inferResultDims(dims);
}

LogicalResult ConvWgradOp::verify() {
  ResultDims dims;
  if (failed(verifyConv(*this, "image", getImage(), "DW", getDW(), "loss",
                        getLoss())))
    return failure();
  return inferResultDims(dims);
}

//===----------------------------------------------------------------------===//
// MoE
//===----------------------------------------------------------------------===//

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

LogicalResult MoeGroupedMatmulOp::inferResultDims(ResultDims &dims) {
  ArrayRef<int64_t> token = shapeOf(getToken()), weight = shapeOf(getWeight());
  if (token.size() < 2)
    return emitNodeError(*this) << "token must have rank >= 2 ([..., T, H]) "
                                << "but has dims " << formatDims(token);
  if (weight.size() != 3)
    return emitNodeError(*this)
           << "weight must be [E, H, N] but has dims " << formatDims(weight);
  if (!dimsCompatible(token.back(), weight[1]))
    return emitNodeError(*this) << "H of token is " << token.back()
                                << " but H of weight is " << weight[1];
  if (failed(verifyExpertOffsets(*this, getFirstTokenOffset(), "weight",
                                 weight[0])))
    return failure();
  MoeMode mode = getMode().value_or(MoeMode::none);
  StringRef modeName = stringifyMoeMode(mode);
  if (mode != MoeMode::none && !getTokenIndex())
    return emitNodeError(*this)
           << "mode " << modeName << " requires token_index";
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
      return emitNodeError(*this)
             << port << " has " << count << " elements but token has " << rows
             << " rows (scatter routes each row once)";
  }
  if (IntegerAttr topK = getTopKAttr()) {
    if (topK.getInt() < 1)
      return emitNodeError(*this)
             << "top_k " << topK.getInt() << " must be >= 1";
    if (!ShapedType::isDynamic(weight[0]) && topK.getInt() > weight[0])
      return emitNodeError(*this)
             << "top_k " << topK.getInt() << " exceeds the " << weight[0]
             << " experts of weight";
  }
  SmallVector<int64_t> expected(token.drop_back());
  expected.push_back(weight[2]);
  if (mode == MoeMode::gather) {
    // One output row per gathered (routed) row.
    expected[expected.size() - 2] =
        staticElementCount(shapeOf(getTokenIndex()));
    dims.set(getOutput(), "output", expected,
             "token dims with T replaced by the token_index count "
             "and H by N of weight");
  } else if (mode == MoeMode::scatter) {
    // Rows land at token_index * top_k + token_ks: their count is the
    // user's (the verifier checks the other dims); one per routed row by
    // default.
    dims.suggest(getOutput(), "output", expected,
                 "token dims with H replaced by N of weight");
  } else {
    dims.set(getOutput(), "output", expected,
             "token dims with H replaced by N of weight");
  }
  return success();
}

LogicalResult MoeGroupedMatmulOp::verify() {
  ResultDims dims;
  if (failed(verifyCommon(*this)) || failed(inferResultDims(dims)) ||
      failed(checkResultDims(*this, dims)))
    return failure();
  if (getMode() != MoeMode::scatter)
    return success();
  SmallVector<int64_t> expected(shapeOf(getToken()).drop_back());
  expected.back() = ShapedType::kDynamic;
  expected.push_back(shapeOf(getWeight())[2]);
  return expectDims(*this, "output", getOutput(), expected,
                    "token dims with scattered rows and H replaced by N "
                    "of weight");
}

// dweight = [E, H of token, N of doutput], E the experts of
// first_token_offset (one offset per expert; E + 1 boundaries are the
// user's to give as dweight's first dim).
LogicalResult MoeGroupedMatmulBwdOp::inferResultDims(ResultDims &dims) {
  ArrayRef<int64_t> dout = shapeOf(getDoutput()), token = shapeOf(getToken());
  if (token.size() < 2 || dout.size() != token.size())
    return emitNodeError(*this) << "token and doutput must be [..., T, H] and "
                                << "[..., T, N] but are " << formatDims(token)
                                << " and " << formatDims(dout);
  if (!dimsCompatible(dout[dout.size() - 2], token[token.size() - 2]))
    return emitNodeError(*this)
           << "T of doutput is " << dout[dout.size() - 2]
           << " but T of token is " << token[token.size() - 2];
  ArrayRef<int64_t> offsets = shapeOf(getFirstTokenOffset());
  dims.suggest(getDweight(), "dweight",
               {offsets.empty() ? ShapedType::kDynamic : offsets[0],
                token.back(), dout.back()},
               "[E, H of token, N of doutput]");
  return success();
}

LogicalResult MoeGroupedMatmulBwdOp::verify() {
  ResultDims dims;
  if (failed(verifyCommon(*this)) || failed(inferResultDims(dims)))
    return failure();
  // The experts are dweight's own first dim: the rule's H and N hold.
  ArrayRef<int64_t> dout = shapeOf(getDoutput()), token = shapeOf(getToken());
  ArrayRef<int64_t> dweight = shapeOf(getDweight());
  if (failed(expectDims(*this, "dweight", getDweight(),
                        {dweight.empty() ? ShapedType::kDynamic : dweight[0],
                         token.back(), dout.back()},
                        "[E, H of token, N of doutput]")))
    return failure();
  return verifyExpertOffsets(*this, getFirstTokenOffset(), "dweight",
                             dweight[0]);
}

/// The MoE row routings (moe_scatter_rows, moe_gather_rows): the shape
/// rule, and the rows copied, not converted.
template <typename OpT> static LogicalResult verifyRowCopy(OpT op) {
  ResultDims dims;
  if (failed(verifyCommon(op)) || failed(op.inferResultDims(dims)))
    return failure();
  if (elementOf(op.getOutput()) != elementOf(op.getInput()))
    return emitNodeError(op)
           << "output must have the input's element type "
           << elementOf(op.getInput()) << " but is "
           << elementOf(op.getOutput()) << " (the rows are copied, not "
           << "converted)";
  return checkResultDims(op, dims);
}

// output = input's dims; token_index and token_ks one i32 per row; the
// offsets i32, at least one (two when bounded).
LogicalResult MoeScatterRowsOp::inferResultDims(ResultDims &dims) {
  ArrayRef<int64_t> input = shapeOf(getInput());
  if (input.size() != 3 || !dimsCompatible(input[0], 1))
    return emitNodeError(*this)
           << "input must be [1, M, N] (the rows of a "
           << "moe_grouped_matmul) but has dims " << formatDims(input);
  for (auto [port, value] :
       {std::pair<StringRef, Value>{"token_index", getTokenIndex()},
        {"token_ks", getTokenKs()}}) {
    if (!elementOf(value).isInteger(32))
      return emitNodeError(*this)
             << port << " must hold i32 but holds " << elementOf(value);
    int64_t count = staticElementCount(shapeOf(value));
    if (!dimsCompatible(count, input[1]))
      return emitNodeError(*this)
             << port << " has " << count << " elements but input has "
             << input[1] << " rows (one destination per row)";
  }
  if (getTopK() < 1)
    return emitNodeError(*this) << "top_k " << getTopK() << " must be >= 1";
  Value offsets = getFirstTokenOffset();
  if (!elementOf(offsets).isInteger(32))
    return emitNodeError(*this) << "first_token_offset must hold i32 but "
                                << "holds " << elementOf(offsets);
  int64_t count = staticElementCount(shapeOf(offsets));
  if (!ShapedType::isDynamic(count) && count < (getBounded() ? 2 : 1))
    return emitNodeError(*this)
           << "first_token_offset has " << count << " elements but needs "
           << (getBounded() ? "a start and an end (bounded)" : "a start");
  dims.set(getOutput(), "output", input, "input's dims");
  return success();
}

LogicalResult MoeScatterRowsOp::verify() { return verifyRowCopy(*this); }

// output = [1, rows of token_index, K of input]; token_index i32.
LogicalResult MoeGatherRowsOp::inferResultDims(ResultDims &dims) {
  ArrayRef<int64_t> input = shapeOf(getInput());
  if (input.size() != 3 || !dimsCompatible(input[0], 1))
    return emitNodeError(*this)
           << "input must be [1, T, K] (the tokens of a moe_grouped_matmul) "
           << "but has dims " << formatDims(input);
  Value index = getTokenIndex();
  if (!elementOf(index).isInteger(32))
    return emitNodeError(*this)
           << "token_index must hold i32 but holds " << elementOf(index);
  int64_t rows = staticElementCount(shapeOf(index));
  dims.set(getOutput(), "output", {1, rows, input[2]},
           "[1, entries of token_index, K of input]");
  return success();
}

LogicalResult MoeGatherRowsOp::verify() { return verifyRowCopy(*this); }

//===----------------------------------------------------------------------===//
// Result type inference and assembly
//===----------------------------------------------------------------------===//

GRAPH_INFERRED_RESULT_ASSEMBLY(MatmulOp)
GRAPH_INFERRED_RESULT_ASSEMBLY(ConvFpropOp)

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  ArrayRef<int64_t> a = shapeOf(adaptor.getA()), b = shapeOf(adaptor.getB());
  SmallVector<int64_t> shape(a);
  if (a.size() >= 2 && b.size() >= 2 && a.size() == b.size())
    shape = matmulDims(a, b);
  results.push_back(inferredTensor(shape, adaptor.getA()));
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
