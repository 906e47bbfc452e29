//===- KernelsPointwise.cpp - Pointwise modes ----------------*- C++ -*-===//

#include "KernelsInternal.h"

#include <cmath>
#include <limits>

namespace graph::ref {

using namespace detail;

namespace {

struct ModeInfo {
  const char *name;
  int arity;
};

// Indexed by PointwiseMode; keep in enum order.
constexpr ModeInfo kModes[] = {
    {"add", 2},
    {"add_square", 2},
    {"div", 2},
    {"logical_and", 2},
    {"logical_or", 2},
    {"mul", 2},
    {"sub", 2},
    {"max", 2},
    {"min", 2},
    {"mod", 2},
    {"pow", 2},
    {"cmp_eq", 2},
    {"cmp_ge", 2},
    {"cmp_gt", 2},
    {"cmp_le", 2},
    {"cmp_lt", 2},
    {"cmp_neq", 2},
    {"bias", 2},
    {"scale", 2},
    {"abs", 1},
    {"ceil", 1},
    {"cos", 1},
    {"elu", 1},
    {"erf", 1},
    {"exp", 1},
    {"floor", 1},
    {"gelu", 1},
    {"gelu_approx_tanh", 1},
    {"identity", 1},
    {"log", 1},
    {"logical_not", 1},
    {"neg", 1},
    {"reciprocal", 1},
    {"rsqrt", 1},
    {"sigmoid", 1},
    {"sin", 1},
    {"softplus", 1},
    {"sqrt", 1},
    {"tan", 1},
    {"tanh", 1},
    {"relu", 1},
    {"leaky_relu", 1},
    {"swish", 1},
    {"gen_index", 1},
    {"relu_backward", 2},
    {"leaky_relu_backward", 2},
    {"swish_backward", 2},
    {"elu_backward", 2},
    {"gelu_approx_tanh_backward", 2},
    {"gelu_backward", 2},
    {"sigmoid_backward", 2},
    {"softplus_backward", 2},
    {"tanh_backward", 2},
    {"binary_select", 3},
};
constexpr int kModeCount = sizeof(kModes) / sizeof(kModes[0]);
static_assert(kModeCount == static_cast<int>(PointwiseMode::binary_select) + 1,
              "kModes must list every PointwiseMode in order");

constexpr double kSqrt2OverPi = 0.79788456080286535587989211986876;
constexpr double kInvSqrt2 = 0.70710678118654752440084436210485;
constexpr double kInvSqrt2Pi = 0.39894228040143267793994605993438;
constexpr double kGeluCubic = 0.044715;

double sigmoid(double x) {
  // Split so neither branch overflows exp.
  if (x >= 0)
    return 1.0 / (1.0 + std::exp(-x));
  double e = std::exp(x);
  return e / (1.0 + e);
}

/// log(1 + exp(z)) without overflow for large z.
double softplusUnit(double z) {
  return z > 0 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z));
}

double truth(double v) { return v != 0.0 ? 1.0 : 0.0; }

struct ReluClips {
  double lo, hi, slope;
};
ReluClips reluClips(const PointwiseParams &p) {
  return {p.lowerClip.value_or(0.0),
          p.upperClip.value_or(std::numeric_limits<double>::infinity()),
          p.negativeSlope.value_or(0.0)};
}

} // namespace

const char *pointwiseModeName(PointwiseMode mode) {
  return kModes[static_cast<int>(mode)].name;
}

bool parsePointwiseMode(const std::string &name, PointwiseMode &out) {
  for (int i = 0; i < kModeCount; ++i) {
    if (name == kModes[i].name) {
      out = static_cast<PointwiseMode>(i);
      return true;
    }
  }
  return false;
}

int pointwiseArity(PointwiseMode mode) {
  return kModes[static_cast<int>(mode)].arity;
}

double pointwiseScalar(PointwiseMode mode, const double *args,
                       const PointwiseParams &p) {
  using M = PointwiseMode;
  double a = args[0];
  double b = pointwiseArity(mode) >= 2 ? args[1] : 0.0;
  switch (mode) {
  case M::add:
  case M::bias:
    return a + b;
  case M::add_square:
    return a + b * b;
  case M::div:
    return a / b;
  case M::logical_and:
    return truth(a) * truth(b);
  case M::logical_or:
    return (a != 0.0 || b != 0.0) ? 1.0 : 0.0;
  case M::mul:
  case M::scale:
    return a * b;
  case M::sub:
    return a - b;
  case M::max:
    return (std::isnan(a) || std::isnan(b)) ? std::nan("") : std::fmax(a, b);
  case M::min:
    return (std::isnan(a) || std::isnan(b)) ? std::nan("") : std::fmin(a, b);
  case M::mod:
    return std::fmod(a, b);
  case M::pow:
    return std::pow(a, b);
  case M::cmp_eq:
    return a == b ? 1.0 : 0.0;
  case M::cmp_ge:
    return a >= b ? 1.0 : 0.0;
  case M::cmp_gt:
    return a > b ? 1.0 : 0.0;
  case M::cmp_le:
    return a <= b ? 1.0 : 0.0;
  case M::cmp_lt:
    return a < b ? 1.0 : 0.0;
  case M::cmp_neq:
    return a != b ? 1.0 : 0.0;
  case M::abs:
    return std::fabs(a);
  case M::ceil:
    return std::ceil(a);
  case M::cos:
    return std::cos(a);
  case M::elu: {
    double alpha = p.eluAlpha.value_or(1.0);
    return a > 0 ? a : alpha * std::expm1(a);
  }
  case M::erf:
    return std::erf(a);
  case M::exp:
    return std::exp(a);
  case M::floor:
    return std::floor(a);
  case M::gelu:
    return 0.5 * a * (1.0 + std::erf(a * kInvSqrt2));
  case M::gelu_approx_tanh:
    return 0.5 * a *
           (1.0 + std::tanh(kSqrt2OverPi * (a + kGeluCubic * a * a * a)));
  case M::identity:
    return a;
  case M::log:
    return std::log(a);
  case M::logical_not:
    return a == 0.0 ? 1.0 : 0.0;
  case M::neg:
    return -a;
  case M::reciprocal:
    return 1.0 / a;
  case M::rsqrt:
    return 1.0 / std::sqrt(a);
  case M::sigmoid:
    return sigmoid(a);
  case M::sin:
    return std::sin(a);
  case M::softplus: {
    double beta = p.softplusBeta.value_or(1.0);
    return softplusUnit(beta * a) / beta;
  }
  case M::sqrt:
    return std::sqrt(a);
  case M::tan:
    return std::tan(a);
  case M::tanh:
    return std::tanh(a);
  case M::relu: {
    ReluClips c = reluClips(p);
    if (a >= c.hi)
      return c.hi;
    if (a > c.lo)
      return a;
    // With no slope, below is lo itself (relu(-inf) = lo, not 0 * -inf);
    // NaN propagates.
    if (c.slope == 0.0)
      return std::isnan(a) ? a : c.lo;
    return c.lo + c.slope * (a - c.lo);
  }
  case M::leaky_relu: {
    double slope = p.negativeSlope.value_or(0.01);
    return a > 0 ? a : slope * a;
  }
  case M::swish:
    return a * sigmoid(p.swishBeta.value_or(1.0) * a);
  case M::gen_index:
    return std::nan("");
  // Backward modes: args = (dy, x).
  case M::relu_backward: {
    ReluClips c = reluClips(p);
    if (b >= c.hi)
      return 0.0;
    return b > c.lo ? a : a * c.slope;
  }
  case M::leaky_relu_backward: {
    double slope = p.negativeSlope.value_or(0.01);
    return b > 0 ? a : a * slope;
  }
  case M::swish_backward: {
    double beta = p.swishBeta.value_or(1.0);
    double s = sigmoid(beta * b);
    return a * (s + beta * b * s * (1.0 - s));
  }
  case M::elu_backward: {
    double alpha = p.eluAlpha.value_or(1.0);
    return b > 0 ? a : a * alpha * std::exp(b);
  }
  case M::gelu_approx_tanh_backward: {
    double inner = kSqrt2OverPi * (b + kGeluCubic * b * b * b);
    double t = std::tanh(inner);
    double dInner = kSqrt2OverPi * (1.0 + 3.0 * kGeluCubic * b * b);
    return a * (0.5 * (1.0 + t) + 0.5 * b * (1.0 - t * t) * dInner);
  }
  case M::gelu_backward: {
    double cdf = 0.5 * (1.0 + std::erf(b * kInvSqrt2));
    double pdf = kInvSqrt2Pi * std::exp(-0.5 * b * b);
    return a * (cdf + b * pdf);
  }
  case M::sigmoid_backward: {
    double s = sigmoid(b);
    return a * s * (1.0 - s);
  }
  case M::softplus_backward:
    return a * sigmoid(p.softplusBeta.value_or(1.0) * b);
  case M::tanh_backward: {
    double t = std::tanh(b);
    return a * (1.0 - t * t);
  }
  case M::binary_select:
    return args[2] != 0.0 ? args[0] : args[1];
  }
  return std::nan("");
}

std::string pointwise(PointwiseMode mode,
                      const std::vector<const NdArray *> &inputs,
                      const Shape &outShape, const PointwiseParams &params,
                      NdArray &out) {
  int arity = pointwiseArity(mode);
  if (static_cast<int>(inputs.size()) != arity)
    return std::string("pointwise ") + pointwiseModeName(mode) + " takes " +
           std::to_string(arity) + " inputs, got " +
           std::to_string(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i])
      return "pointwise input " + std::to_string(i) + " is null";
    if (!broadcastsTo(inputs[i]->shape, outShape))
      return "pointwise input " + std::to_string(i) + " of shape " +
             shapeString(inputs[i]->shape) +
             " does not broadcast to the output shape " + shapeString(outShape);
  }
  NdArray result(outShape);
  if (mode == PointwiseMode::gen_index) {
    int64_t axis;
    if (!params.axis)
      return "gen_index needs an axis";
    if (!normalizeAxis(*params.axis, static_cast<int64_t>(outShape.size()),
                       axis))
      return "gen_index axis " + std::to_string(*params.axis) +
             " is out of range for rank " + std::to_string(outShape.size());
    Shape axisStride(outShape.size(), 0);
    axisStride[axis] = 1;
    walk<1>(outShape, {&axisStride}, 0, result.size(),
            [&](int64_t linear, const std::array<int64_t, 1> &off) {
              result.data[linear] = static_cast<double>(off[0]);
            });
    out = std::move(result);
    return "";
  }
  Shape s0 = broadcastStrides(inputs[0]->shape, outShape);
  Shape s1 = arity > 1 ? broadcastStrides(inputs[1]->shape, outShape) : s0;
  Shape s2 = arity > 2 ? broadcastStrides(inputs[2]->shape, outShape) : s0;
  const double *d0 = inputs[0]->data.data();
  const double *d1 = arity > 1 ? inputs[1]->data.data() : d0;
  const double *d2 = arity > 2 ? inputs[2]->data.data() : d0;
  parallelFor(
      result.size(),
      [&](int64_t begin, int64_t end) {
        walk<3>(outShape, {&s0, &s1, &s2}, begin, end,
                [&](int64_t linear, const std::array<int64_t, 3> &off) {
                  double args[3] = {d0[off[0]], d1[off[1]], d2[off[2]]};
                  result.data[linear] = pointwiseScalar(mode, args, params);
                });
      },
      /*minChunk=*/1 << 15);
  out = std::move(result);
  return "";
}

} // namespace graph::ref
