//===- KernelsNorm.cpp - Normalizations and their backwards --*- C++ -*-===//
//
// Every norm is one generic kernel: a set of reduced dims defines the groups
// (elements sharing a statistic), stats have x's shape with the reduced dims
// set to 1, and scale/bias broadcast to x.
//
//===----------------------------------------------------------------------===//

#include "KernelsInternal.h"

#include <cmath>

namespace graph::ref {

using namespace detail;

namespace {

enum class NormKind { Layer, Rms, Instance, Batch, AdaLayer };

const char *normName(NormKind kind) {
  switch (kind) {
  case NormKind::Layer:
    return "layernorm";
  case NormKind::Rms:
    return "rmsnorm";
  case NormKind::Instance:
    return "instancenorm";
  case NormKind::Batch:
    return "batchnorm";
  case NormKind::AdaLayer:
    return "adalayernorm";
  }
  return "norm";
}

/// x's shape with the dims each kind normalizes over set to 1.
std::string statsShapeFor(NormKind kind, const Shape &x, const Shape &scale,
                          Shape &stats) {
  size_t rank = x.size();
  size_t minRank =
      kind == NormKind::Instance || kind == NormKind::Batch ? 2 : 1;
  if (rank < minRank)
    return std::string(normName(kind)) + " input " + shapeString(x) +
           " needs rank >= " + std::to_string(minRank);
  stats = x;
  // cuDNN's rule: normalize over the dims from `first` on where scale is
  // not 1, e.g. x [B, S, D] with scale [1, 1, D] over D (stats [B, S, 1]);
  // a scale that is 1 everywhere normalizes over all dims but 0.
  auto normalizeWhereScaleIsNot1 = [&](size_t first) {
    size_t lead = rank - std::min(rank, scale.size());
    bool any = false;
    for (size_t i = first; i < rank; ++i)
      if ((i >= lead ? scale[i - lead] : 1) != 1) {
        stats[i] = 1;
        any = true;
      }
    if (!any)
      for (size_t i = 1; i < rank; ++i)
        stats[i] = 1;
  };
  switch (kind) {
  case NormKind::Layer:
  case NormKind::Rms: // dim 0 included
    normalizeWhereScaleIsNot1(0);
    break;
  case NormKind::Instance:
    for (size_t i = 2; i < rank; ++i)
      stats[i] = 1;
    break;
  case NormKind::Batch:
    for (size_t i = 0; i < rank; ++i)
      if (i != 1)
        stats[i] = 1;
    break;
  case NormKind::AdaLayer: // past dim 0
    normalizeWhereScaleIsNot1(1);
    break;
  }
  return "";
}

std::string checkBroadcast(const char *op, const char *what, const Shape &s,
                           const Shape &x) {
  if (!broadcastsTo(s, x))
    return std::string(op) + " " + what + " " + shapeString(s) +
           " does not broadcast to the input " + shapeString(x);
  return "";
}

/// The checks every norm of `kind` starts with: x's rank (which yields the
/// `stats` shape), then scale and, when given, bias broadcasting to x.
std::string checkNormOperands(NormKind kind, const NdArray &x,
                              const NdArray &scale, const NdArray *bias,
                              Shape &stats) {
  const char *op = normName(kind);
  std::string err = statsShapeFor(kind, x.shape, scale.shape, stats);
  if (err.empty())
    err = checkBroadcast(op, "scale", scale.shape, x.shape);
  if (err.empty() && bias)
    err = checkBroadcast(op, "bias", bias->shape, x.shape);
  return err;
}

/// How many elements of x share one statistic (0 when there are no groups).
double elementsPerGroup(const NdArray &x, const Shape &stats) {
  int64_t groups = numElements(stats);
  return groups ? static_cast<double>(x.size()) / groups : 0.0;
}

/// Accepts stats given in any shape with the right element count (e.g.
/// [N, 1, 1, 1] or [N]) and views them in `stats` shape.
std::string viewStats(const char *op, const char *what, const NdArray &given,
                      const Shape &stats, NdArray &out) {
  if (given.size() != numElements(stats))
    return std::string(op) + " " + what + " " + shapeString(given.shape) +
           " has " + std::to_string(given.size()) + " elements; expected " +
           shapeString(stats);
  out.shape = stats;
  out.data = given.data;
  return "";
}

/// Mean (when subtractMean) and inv_var = 1/sqrt(var + eps) per group;
/// var is the population variance, or the mean square for rmsnorm.
/// Also returns the population variance itself in `variance`.
void groupStats(const NdArray &x, const Shape &stats, bool subtractMean,
                double epsilon, NdArray &mean, NdArray &invVar,
                NdArray &variance) {
  mean = NdArray(stats);
  variance = NdArray(stats);
  invVar = NdArray(stats);
  int64_t groups = numElements(stats);
  double count = elementsPerGroup(x, stats);
  Shape target = broadcastStrides(stats, x.shape);
  if (subtractMean) {
    walk<1>(x.shape, {&target}, 0, x.size(),
            [&](int64_t i, const std::array<int64_t, 1> &off) {
              mean.data[off[0]] += x.data[i];
            });
    for (double &m : mean.data)
      m /= count;
  }
  // Two passes (mean first) keep the variance accurate.
  walk<1>(x.shape, {&target}, 0, x.size(),
          [&](int64_t i, const std::array<int64_t, 1> &off) {
            double d = x.data[i] - mean.data[off[0]];
            variance.data[off[0]] += d * d;
          });
  for (int64_t g = 0; g < groups; ++g) {
    variance.data[g] /= count;
    invVar.data[g] = 1.0 / std::sqrt(variance.data[g] + epsilon);
  }
}

/// y = scale * (x - mean) * invVar + bias.
void affine(const NdArray &x, const NdArray &mean, const NdArray &invVar,
            const NdArray &scale, const NdArray *bias, NdArray &y) {
  y = NdArray(x.shape);
  Shape ms = broadcastStrides(mean.shape, x.shape);
  Shape is = broadcastStrides(invVar.shape, x.shape);
  Shape ss = broadcastStrides(scale.shape, x.shape);
  Shape bs = bias ? broadcastStrides(bias->shape, x.shape) : ss;
  const double *bd = bias ? bias->data.data() : nullptr;
  walk<4>(x.shape, {&ms, &is, &ss, &bs}, 0, x.size(),
          [&](int64_t i, const std::array<int64_t, 4> &off) {
            double v = (x.data[i] - mean.data[off[0]]) * invVar.data[off[1]] *
                       scale.data[off[2]];
            y.data[i] = bd ? v + bd[off[3]] : v;
          });
}

std::string normForward(NormKind kind, const NdArray &x, const NdArray &scale,
                        const NdArray *bias, double epsilon, bool training,
                        NormForwardResult &out) {
  Shape stats;
  if (std::string err = checkNormOperands(kind, x, scale, bias, stats);
      !err.empty())
    return err;
  bool rms = kind == NormKind::Rms;
  NdArray mean, invVar, variance;
  groupStats(x, stats, !rms, epsilon, mean, invVar, variance);
  NormForwardResult result;
  affine(x, mean, invVar, scale, bias, result.y);
  if (training) {
    if (!rms)
      result.mean = std::move(mean);
    result.invVariance = std::move(invVar);
  }
  out = std::move(result);
  return "";
}

std::string normBackward(NormKind kind, const NdArray &dy, const NdArray &x,
                         const NdArray &scale, const NdArray *meanIn,
                         const NdArray &invIn, bool hasDbias,
                         NormBackwardResult &out) {
  const char *op = normName(kind);
  if (dy.shape != x.shape)
    return std::string(op) + "_backward grad " + shapeString(dy.shape) +
           " differs from the input " + shapeString(x.shape);
  Shape stats;
  std::string err = checkNormOperands(kind, x, scale, /*bias=*/nullptr, stats);
  NdArray mean(stats), inv;
  if (err.empty() && meanIn)
    err = viewStats(op, "mean", *meanIn, stats, mean);
  if (err.empty())
    err = viewStats(op, "inv_variance", invIn, stats, inv);
  if (!err.empty())
    return err;
  double count = elementsPerGroup(x, stats);
  Shape st = broadcastStrides(stats, x.shape);
  Shape ss = broadcastStrides(scale.shape, x.shape);
  NdArray xhat(x.shape), g(x.shape);
  NdArray sumG(stats), sumGX(stats);
  walk<2>(x.shape, {&st, &ss}, 0, x.size(),
          [&](int64_t i, const std::array<int64_t, 2> &off) {
            double xh = (x.data[i] - mean.data[off[0]]) * inv.data[off[0]];
            double gv = dy.data[i] * scale.data[off[1]];
            xhat.data[i] = xh;
            g.data[i] = gv;
            sumG.data[off[0]] += gv;
            sumGX.data[off[0]] += gv * xh;
          });
  bool centered = kind != NormKind::Rms;
  NormBackwardResult result;
  result.dx = NdArray(x.shape);
  walk<1>(x.shape, {&st}, 0, x.size(),
          [&](int64_t i, const std::array<int64_t, 1> &off) {
            double v = g.data[i] - xhat.data[i] * sumGX.data[off[0]] / count;
            if (centered)
              v -= sumG.data[off[0]] / count;
            result.dx.data[i] = inv.data[off[0]] * v;
          });
  NdArray dyXhat(x.shape);
  for (int64_t i = 0; i < x.size(); ++i)
    dyXhat.data[i] = dy.data[i] * xhat.data[i];
  err = sumTo(dyXhat, scale.shape, result.dscale);
  if (err.empty() && hasDbias)
    err = sumTo(dy, scale.shape, result.dbias);
  if (!err.empty())
    return err;
  out = std::move(result);
  return "";
}

/// The backward of a norm that takes its mean and always yields dbias.
std::string centeredNormBackward(NormKind kind, const NdArray &dy,
                                 const NdArray &x, const NdArray &scale,
                                 const NdArray &mean,
                                 const NdArray &invVariance,
                                 NormBackwardResult &out) {
  return normBackward(kind, dy, x, scale, &mean, invVariance,
                      /*hasDbias=*/true, out);
}

} // namespace

std::string layernormForward(const NdArray &x, const NdArray &scale,
                             const NdArray *bias, double epsilon, bool training,
                             NormForwardResult &out) {
  return normForward(NormKind::Layer, x, scale, bias, epsilon, training, out);
}
std::string rmsnormForward(const NdArray &x, const NdArray &scale,
                           const NdArray *bias, double epsilon, bool training,
                           NormForwardResult &out) {
  return normForward(NormKind::Rms, x, scale, bias, epsilon, training, out);
}
std::string instancenormForward(const NdArray &x, const NdArray &scale,
                                const NdArray *bias, double epsilon,
                                bool training, NormForwardResult &out) {
  return normForward(NormKind::Instance, x, scale, bias, epsilon, training,
                     out);
}
std::string adalayernormForward(const NdArray &x, const NdArray &scale,
                                const NdArray *bias, double epsilon,
                                bool training, NormForwardResult &out) {
  return normForward(NormKind::AdaLayer, x, scale, bias, epsilon, training,
                     out);
}

std::string layernormBackward(const NdArray &dy, const NdArray &x,
                              const NdArray &scale, const NdArray &mean,
                              const NdArray &invVariance,
                              NormBackwardResult &out) {
  return centeredNormBackward(NormKind::Layer, dy, x, scale, mean, invVariance,
                              out);
}
std::string rmsnormBackward(const NdArray &dy, const NdArray &x,
                            const NdArray &scale, const NdArray &invVariance,
                            bool hasDbias, NormBackwardResult &out) {
  return normBackward(NormKind::Rms, dy, x, scale, nullptr, invVariance,
                      hasDbias, out);
}
std::string instancenormBackward(const NdArray &dy, const NdArray &x,
                                 const NdArray &scale, const NdArray &mean,
                                 const NdArray &invVariance,
                                 NormBackwardResult &out) {
  return centeredNormBackward(NormKind::Instance, dy, x, scale, mean,
                              invVariance, out);
}
std::string adalayernormBackward(const NdArray &dy, const NdArray &x,
                                 const NdArray &scale, const NdArray &mean,
                                 const NdArray &invVariance,
                                 NormBackwardResult &out) {
  return centeredNormBackward(NormKind::AdaLayer, dy, x, scale, mean,
                              invVariance, out);
}
std::string batchnormBackward(const NdArray &dy, const NdArray &x,
                              const NdArray &scale, const NdArray &mean,
                              const NdArray &invVariance,
                              NormBackwardResult &out) {
  return centeredNormBackward(NormKind::Batch, dy, x, scale, mean, invVariance,
                              out);
}

std::string batchnormForward(const NdArray &x, const NdArray &scale,
                             const NdArray *bias, double epsilon,
                             const NdArray *runningMean,
                             const NdArray *runningVar,
                             std::optional<double> momentum,
                             BatchnormForwardResult &out) {
  const char *op = normName(NormKind::Batch);
  Shape stats;
  std::string err = checkNormOperands(NormKind::Batch, x, scale, bias, stats);
  bool running = runningMean || runningVar || momentum;
  if (err.empty() && running && !(runningMean && runningVar && momentum))
    err = "batchnorm running statistics need in_running_mean, "
          "in_running_var and momentum together";
  NdArray prevMean, prevVar;
  if (err.empty() && running)
    err = viewStats(op, "in_running_mean", *runningMean, stats, prevMean);
  if (err.empty() && running)
    err = viewStats(op, "in_running_var", *runningVar, stats, prevVar);
  if (!err.empty())
    return err;
  BatchnormForwardResult result;
  NdArray variance;
  groupStats(x, stats, true, epsilon, result.mean, result.invVariance,
             variance);
  affine(x, result.mean, result.invVariance, scale, bias, result.y);
  if (running) {
    int64_t channels = numElements(stats);
    double count = elementsPerGroup(x, stats);
    double unbias = count > 1 ? count / (count - 1) : 1.0;
    double m = *momentum;
    result.nextRunningMean = NdArray(runningMean->shape);
    result.nextRunningVar = NdArray(runningVar->shape);
    for (int64_t c = 0; c < channels; ++c) {
      result.nextRunningMean.data[c] =
          (1 - m) * prevMean.data[c] + m * result.mean.data[c];
      result.nextRunningVar.data[c] =
          (1 - m) * prevVar.data[c] + m * variance.data[c] * unbias;
    }
  }
  out = std::move(result);
  return "";
}

std::string batchnormInference(const NdArray &x, const NdArray &mean,
                               const NdArray &invVariance, const NdArray &scale,
                               const NdArray *bias, NdArray &y) {
  const char *op = "batchnorm_inference";
  std::string err = checkBroadcast(op, "mean", mean.shape, x.shape);
  if (err.empty())
    err = checkBroadcast(op, "inv_variance", invVariance.shape, x.shape);
  if (err.empty())
    err = checkBroadcast(op, "scale", scale.shape, x.shape);
  if (err.empty() && bias)
    err = checkBroadcast(op, "bias", bias->shape, x.shape);
  if (!err.empty())
    return err;
  affine(x, mean, invVariance, scale, bias, y);
  return "";
}

} // namespace graph::ref
