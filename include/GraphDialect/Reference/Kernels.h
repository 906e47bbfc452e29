//===- Kernels.h - Numeric kernels of the reference executor -*- C++ -*-===//
//
// Pure functions over dense row-major NdArrays of double, accumulating in
// double. They know nothing of MLIR, dtypes or strides: the caller loads
// operands with `load`, calls a kernel, and rounds/stores the results.
//
// Errors: a function that can fail on bad arguments returns std::string,
// empty on success and the reason otherwise; its outputs are then
// unspecified. Nothing here asserts or throws on user-reachable paths.
//
// Layout convention: tensors are logically [N, C, spatial...] (cuDNN's
// NCHW dim order) whatever their memory strides; broadcasting is numpy's
// (shapes aligned at the right, size-1 dims stretch).
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_REFERENCE_KERNELS_H
#define GRAPHDIALECT_REFERENCE_KERNELS_H

#include "GraphDialect/Reference/NdArray.h"
#include "GraphDialect/Support/ThreadPool.h"

#include <functional>
#include <optional>

namespace graph::ref {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Expands `in` to `shape` (numpy rules). Fails when `in` does not broadcast.
std::string broadcastTo(const NdArray &in, const Shape &shape, NdArray &out);
/// Sums `in` down to `shape` (the adjoint of broadcastTo): dims where `shape`
/// is 1 (or missing on the left) are summed.
std::string sumTo(const NdArray &in, const Shape &shape, NdArray &out);

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

/// C[..., M, N] = A[..., M, K] x B[..., K, N]. Batch dims broadcast numpy
/// style (ranks may differ; rank-1 operands are not promoted: rank >= 2).
std::string matmul(const NdArray &a, const NdArray &b, NdArray &out);

//===----------------------------------------------------------------------===//
// Pointwise
//===----------------------------------------------------------------------===//

/// The seed's pointwise builder names, one to one.
enum class PointwiseMode {
  // binary
  add,
  add_square, // a + b * b
  div,
  logical_and,
  logical_or,
  mul,
  sub,
  max,
  min,
  mod, // std::fmod: C semantics, result has the sign of the dividend
  pow,
  cmp_eq,
  cmp_ge,
  cmp_gt,
  cmp_le,
  cmp_lt,
  cmp_neq,
  bias,  // input + bias
  scale, // input * scale
  // unary
  abs,
  ceil,
  cos,
  elu,
  erf,
  exp,
  floor,
  gelu,
  gelu_approx_tanh,
  identity,
  log,
  logical_not,
  neg,
  reciprocal,
  rsqrt,
  sigmoid,
  sin,
  softplus,
  sqrt,
  tan,
  tanh,
  relu,
  leaky_relu,
  swish,
  gen_index,
  // backward: (loss = dy, input = x) -> dy * f'(x)
  relu_backward,
  leaky_relu_backward,
  swish_backward,
  elu_backward,
  gelu_approx_tanh_backward,
  gelu_backward,
  sigmoid_backward,
  softplus_backward,
  tanh_backward,
  // ternary
  binary_select, // (input0, input1, mask) -> mask != 0 ? input0 : input1
};

const char *pointwiseModeName(PointwiseMode mode);
bool parsePointwiseMode(const std::string &name, PointwiseMode &out);
/// Number of tensor inputs the mode takes (1, 2 or 3).
int pointwiseArity(PointwiseMode mode);

/// Scalar attributes. Unset means the default named below.
///
/// relu / relu_backward (cuDNN CUDNN_POINTWISE_RELU_FWD with
/// RELU_LOWER_CLIP, RELU_UPPER_CLIP, RELU_LOWER_CLIP_SLOPE):
///   lo = lowerClip (default 0), hi = upperClip (default +inf),
///   s = negativeSlope (default 0)
///   y = x >= hi ? hi : x > lo ? x : lo + s * (x - lo)
///   dy/dx = x >= hi ? 0 : x > lo ? 1 : s      (upper clip only clamps x
///   above it; the leaky branch is not clamped: with the defaults this is
///   plain max(x, 0), and a slope gives leaky relu around `lo`).
/// leaky_relu: y = x > 0 ? x : negativeSlope * x (slope default 0.01).
/// swish: x * sigmoid(swishBeta * x), beta default 1.
/// elu: x > 0 ? x : eluAlpha * (exp(x) - 1), alpha default 1.
/// softplus: log1p(exp(softplusBeta * x)) / softplusBeta, beta default 1.
/// gelu: 0.5 x (1 + erf(x / sqrt 2)); gelu_approx_tanh:
///   0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
/// gen_index: the output element's index along `axis` (required; negative
///   counts from the end); the input only gives the shape.
struct PointwiseParams {
  std::optional<double> negativeSlope;
  std::optional<double> lowerClip;
  std::optional<double> upperClip;
  std::optional<double> swishBeta;
  std::optional<double> eluAlpha;
  std::optional<double> softplusBeta;
  std::optional<int64_t> axis;
};

/// Applies one mode to scalars: args holds pointwiseArity(mode) values.
/// gen_index is not scalar and returns NaN here.
double pointwiseScalar(PointwiseMode mode, const double *args,
                       const PointwiseParams &params);

/// out = mode(inputs...) over `outShape`; every input broadcasts to it.
std::string pointwise(PointwiseMode mode,
                      const std::vector<const NdArray *> &inputs,
                      const Shape &outShape, const PointwiseParams &params,
                      NdArray &out);

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

/// Spatial attributes, one entry per spatial dim (1, 2 or 3 of them; any rank
/// works). Empty vectors mean padding 0, stride 1, dilation 1.
/// Shapes: x [N, C, D...], w [K, C / groups, R...], y [N, K, O...] with
///   O = (D + pre + post - ((R - 1) * dilation + 1)) / stride + 1.
/// groups = C / w[1] (C must be a multiple; K must be a multiple of groups).
/// crossCorrelation (cuDNN's CROSS_CORRELATION, the DL default) uses the
/// filter as is; convolution mode (CONVOLUTION) flips every spatial axis.
struct ConvParams {
  std::vector<int64_t> prePadding;
  std::vector<int64_t> postPadding;
  std::vector<int64_t> stride;
  std::vector<int64_t> dilation;
  bool crossCorrelation = true;
};

/// Output shape of conv_fprop, or an error.
std::string convOutputShape(const Shape &x, const Shape &w,
                            const ConvParams &params, Shape &y);
std::string convFprop(const NdArray &x, const NdArray &w,
                      const ConvParams &params, NdArray &y);
/// dx (shape `dxShape`, which fixes the ambiguity of strided convs) =
/// adjoint of convFprop with respect to x.
std::string convDgrad(const NdArray &dy, const NdArray &w,
                      const ConvParams &params, const Shape &dxShape,
                      NdArray &dx);
/// dw (shape `dwShape`) = adjoint of convFprop with respect to w.
std::string convWgrad(const NdArray &x, const NdArray &dy,
                      const ConvParams &params, const Shape &dwShape,
                      NdArray &dw);

//===----------------------------------------------------------------------===//
// Normalizations
//===----------------------------------------------------------------------===//
//
// All use population variance and inv_var = 1 / sqrt(var + epsilon).
// Y = scale * (x - mean) * inv_var + bias (rmsnorm: no mean, x * inv_rms).
// scale and bias broadcast to x (numpy rules); bias may be null (0).
//
//  op            normalized over              stats shape      scale/bias
//  layernorm     dims where scale is not 1    x with those     [1, C, H, W]
//  rmsnorm       (cuDNN's node rule)          dims set to 1    by default
//  instancenorm  spatial dims (all but 0, 1)  [N, C, 1, 1]     [1, C, 1, 1]
//  batchnorm     all dims but 1               [1, C, 1, 1]     [1, C, 1, 1]
//  adalayernorm  dims i >= 1 where scale[i]   x with those     [N, C, H, W]
//                is not 1 (cuDNN's node rule) dims set to 1    (per sample)
// e.g. adalayernorm x [B, S, D], scale/bias [B, 1, D]: over D, stats
// [B, S, 1]; with scale [B, S, D] it is over S and D, stats [B, 1, 1].
// Likewise layernorm/rmsnorm x [B, S, D] with scale [1, 1, D] normalizes over
// D (stats [B, S, 1]) and with the default [1, S, D] over S and D (stats
// [B, 1, 1]); the normalized dims need not be contiguous. When the scale
// has no non-1 dim (past 0 for adalayernorm), these norms normalize over all
// dims but 0.
//
// Backward (DX, DScale, DBias) takes the saved mean and inv_var (any shape
// broadcasting to x, e.g. the stats shape above) and treats inv_var as the
// statistic of x itself:
//   xhat = (x - mean) * inv_var, g = dy * scale
//   DX = inv_var * (g - mean_G(g) - xhat * mean_G(g * xhat))   (G = group)
//   rmsnorm: DX = inv_var * (g - xhat * mean_G(g * xhat)), xhat = x * inv_var
//   DScale = sumTo(dy * xhat, scale shape), DBias = sumTo(dy, scale shape).
// This is also the exact gradient of the forward for every norm above.

struct NormForwardResult {
  NdArray y;
  NdArray mean;        // training only; empty for rmsnorm
  NdArray invVariance; // training only
};

struct NormBackwardResult {
  NdArray dx;
  NdArray dscale;
  NdArray dbias; // empty when not asked for
};

/// `training` false (cuDNN INFERENCE phase) computes Y only.
std::string layernormForward(const NdArray &x, const NdArray &scale,
                             const NdArray *bias, double epsilon, bool training,
                             NormForwardResult &out);
std::string rmsnormForward(const NdArray &x, const NdArray &scale,
                           const NdArray *bias, double epsilon, bool training,
                           NormForwardResult &out);
std::string instancenormForward(const NdArray &x, const NdArray &scale,
                                const NdArray *bias, double epsilon,
                                bool training, NormForwardResult &out);
std::string adalayernormForward(const NdArray &x, const NdArray &scale,
                                const NdArray *bias, double epsilon,
                                bool training, NormForwardResult &out);

std::string layernormBackward(const NdArray &dy, const NdArray &x,
                              const NdArray &scale, const NdArray &mean,
                              const NdArray &invVariance,
                              NormBackwardResult &out);
/// DBias only when hasDbias (the seed's has_dbias, default true).
std::string rmsnormBackward(const NdArray &dy, const NdArray &x,
                            const NdArray &scale, const NdArray &invVariance,
                            bool hasDbias, NormBackwardResult &out);
std::string instancenormBackward(const NdArray &dy, const NdArray &x,
                                 const NdArray &scale, const NdArray &mean,
                                 const NdArray &invVariance,
                                 NormBackwardResult &out);
std::string adalayernormBackward(const NdArray &dy, const NdArray &x,
                                 const NdArray &scale, const NdArray &mean,
                                 const NdArray &invVariance,
                                 NormBackwardResult &out);

/// Batchnorm training forward. With running stats (all three non-null):
///   next_running_mean = (1 - momentum) * running_mean + momentum * mean
///   next_running_var  = (1 - momentum) * running_var
///                       + momentum * var * M / (M - 1)
/// with M = N * spatial, the elements per channel: the running variance is
/// the unbiased estimate, as cuDNN's batchnorm (and PyTorch through it) keep
/// it, while inv_var and Y use the population variance. M == 1 uses var.
/// momentum is a [1,1,1,1] tensor in the graph; pass its value.
/// peer_stats (multi-GPU sync) are not modelled.
struct BatchnormForwardResult {
  NdArray y;
  NdArray mean;
  NdArray invVariance;
  NdArray nextRunningMean; // empty without running stats
  NdArray nextRunningVar;
};
std::string batchnormForward(const NdArray &x, const NdArray &scale,
                             const NdArray *bias, double epsilon,
                             const NdArray *runningMean,
                             const NdArray *runningVar,
                             std::optional<double> momentum,
                             BatchnormForwardResult &out);
/// Y = scale * (x - mean) * invVariance + bias, all broadcast to x.
std::string batchnormInference(const NdArray &x, const NdArray &mean,
                               const NdArray &invVariance, const NdArray &scale,
                               const NdArray *bias, NdArray &y);
std::string batchnormBackward(const NdArray &dy, const NdArray &x,
                              const NdArray &scale, const NdArray &mean,
                              const NdArray &invVariance,
                              NormBackwardResult &out);

/// Per-channel SUM and SQ_SUM over every dim but 1: shapes [1, C, 1, ...].
std::string genstats(const NdArray &x, NdArray &sum, NdArray &sqSum);

//===----------------------------------------------------------------------===//
// Reduction
//===----------------------------------------------------------------------===//

/// cuDNN reduction modes. amax = max |x|; avg = add / count; norm1 = sum |x|;
/// norm2 = sqrt(sum x^2); mul_no_zeros = product of the non-zero elements
/// (1 when all are zero). min/max/amax propagate NaN.
enum class ReductionMode {
  add,
  mul,
  min,
  max,
  amax,
  avg,
  norm1,
  norm2,
  mul_no_zeros
};
const char *reductionModeName(ReductionMode mode);
bool parseReductionMode(const std::string &name, ReductionMode &out);

/// Reduces `in` to `outShape`: same rank, each dim equal to the input's or 1
/// (dims of 1 are reduced).
std::string reduce(const NdArray &in, ReductionMode mode, const Shape &outShape,
                   NdArray &out);

//===----------------------------------------------------------------------===//
// Structural
//===----------------------------------------------------------------------===//

/// Row-major reinterpretation: element counts must match.
std::string reshape(const NdArray &in, const Shape &shape, NdArray &out);

/// One dim of a slice, already normalized: elements start, start + step, ...
/// while < limit (step > 0) or > limit (step < 0). step != 0.
struct SliceRange {
  int64_t start = 0;
  int64_t limit = 0;
  int64_t step = 1;
};
/// Python's slice.indices(dim): clamps/normalizes optional bounds (negative
/// counts from the end) into a SliceRange. False when step == 0.
bool normalizeSlice(int64_t dim, std::optional<int64_t> start,
                    std::optional<int64_t> stop, std::optional<int64_t> step,
                    SliceRange &out);
/// Number of elements a normalized range selects.
int64_t sliceExtent(const SliceRange &range);
/// One range per dim (fewer ranges than dims: the rest are taken whole).
std::string slice(const NdArray &in, const std::vector<SliceRange> &ranges,
                  NdArray &out);

/// out dim i = in dim permutation[i].
std::string transpose(const NdArray &in,
                      const std::vector<int64_t> &permutation, NdArray &out);

/// Joins along `axis` (negative counts from the end); other dims must match.
std::string concatenate(const std::vector<const NdArray *> &inputs,
                        int64_t axis, NdArray &out);

//===----------------------------------------------------------------------===//
// Rotary embedding
//===----------------------------------------------------------------------===//
//
// Half-rotation ("rotate_half", GPT-NeoX / Transformer Engine) layout on the
// last dim; `freqs` holds angles in radians. With d = ropeDim (0 = the whole
// last dim; must be even and <= it) and h = d / 2, for j < h:
//   y[j]     = s * (x[j] cos a_j     - x[j + h] sin a_j)
//   y[j + h] = s * (x[j + h] cos a_{j+h} + x[j] sin a_{j+h})
//   y[j]     = s * x[j]  for j >= d (passes through)
// with s = outputScale. freqs' last dim is d (one angle per element,
// a_{j+h} usually equal to a_j) or h (a_{j+h} = a_j); its other dims
// broadcast to x's leading dims (e.g. [1, 1, S, d] for x [B, H, S, D]).
// ropeBackward is the exact transpose: dx[j] = s (dy[j] cos a_j +
// dy[j + h] sin a_{j+h}), dx[j + h] = s (dy[j + h] cos a_{j+h} - dy[j] sin
// a_j), pass-through dims scaled by s.

std::string rope(const NdArray &x, const NdArray &freqs, double outputScale,
                 int64_t ropeDim, NdArray &y);
std::string ropeBackward(const NdArray &dy, const NdArray &freqs,
                         double outputScale, int64_t ropeDim, NdArray &dx);

} // namespace graph::ref

#endif // GRAPHDIALECT_REFERENCE_KERNELS_H
