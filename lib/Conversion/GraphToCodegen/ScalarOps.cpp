//===- ScalarOps.cpp - Pointwise modes as scalar f32 MLIR ----------------===//

#include "ScalarOps.h"

#include "GraphDialect/Reference/Kernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::graph;

namespace {

/// The reference's arity of `mode`, or 0 when the kernels do not compute
/// it from scalars (an unknown name, or gen_index, which reads coordinates
/// and is emitted by the kernel generator itself).
unsigned scalarArity(const std::string &mode) {
  ::graph::ref::PointwiseMode parsed;
  if (!::graph::ref::parsePointwiseMode(mode, parsed) ||
      parsed == ::graph::ref::PointwiseMode::gen_index)
    return 0;
  return static_cast<unsigned>(::graph::ref::pointwiseArity(parsed));
}

constexpr double kSqrt2OverPi = 0.79788456080286535587989211986876;
constexpr double kInvSqrt2 = 0.70710678118654752440084436210485;
constexpr double kInvSqrt2Pi = 0.39894228040143267793994605993438;
constexpr double kGeluCubic = 0.044715;

/// `OpT` on the one operand `x`: a pointwise mode that is a single op.
template <typename OpT> Value createUnary(OpBuilder &b, Location loc, Value x) {
  return OpT::create(b, loc, x);
}

} // namespace

bool mlir::graph::codegenHasPointwise(const std::string &mode) {
  return scalarArity(mode) != 0;
}

unsigned mlir::graph::pointwiseArity(const std::string &mode) {
  unsigned arity = scalarArity(mode);
  return arity ? arity : 1;
}

Value mlir::graph::emitPointwise(OpBuilder &b, Location loc,
                                 const std::string &m, PointwiseAttrFn attr,
                                 ArrayRef<Value> args) {
  unsigned arity = scalarArity(m);
  if (arity == 0 || args.size() < arity)
    return Value();
  using P = arith::CmpFPredicate;
  auto cst = [&](double v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddFOp::create(b, loc, x, y);
  };
  auto sub = [&](Value x, Value y) -> Value {
    return arith::SubFOp::create(b, loc, x, y);
  };
  auto mul = [&](Value x, Value y) -> Value {
    return arith::MulFOp::create(b, loc, x, y);
  };
  auto div = [&](Value x, Value y) -> Value {
    return arith::DivFOp::create(b, loc, x, y);
  };
  auto cmp = [&](P p, Value x, Value y) -> Value {
    return arith::CmpFOp::create(b, loc, p, x, y);
  };
  auto pick = [&](Value c, Value t, Value f) -> Value {
    return arith::SelectOp::create(b, loc, c, t, f);
  };
  auto select = [&](P p, Value x, Value y, Value t, Value f) -> Value {
    return pick(cmp(p, x, y), t, f);
  };
  // 1.0 where `c` holds, else 0.0 (comparisons and logical modes).
  auto flag = [&](Value c) -> Value { return pick(c, cst(1.0), cst(0.0)); };
  // The reference's truthiness, v != 0 (NaN counts as true).
  auto truth = [&](Value v) -> Value { return cmp(P::UNE, v, cst(0.0)); };
  auto sigmoid = [&](Value x) -> Value {
    // Split on the sign so exp never overflows: e = exp(-|x|) <= 1.
    Value e = math::ExpOp::create(
        b, loc, arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x)));
    Value onePlus = add(cst(1.0), e);
    return select(P::OGE, x, cst(0.0), div(cst(1.0), onePlus), div(e, onePlus));
  };
  // sigmoid'(x) = s (1 - s) = e / (1 + e)^2 with e = exp(-|x|): no
  // cancellation in 1 - s where s is near 1.
  auto sigmoidSlope = [&](Value x) -> Value {
    Value e = math::ExpOp::create(
        b, loc, arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x)));
    Value onePlus = add(cst(1.0), e);
    return div(e, mul(onePlus, onePlus));
  };
  // 1 - tanh(x)^2 = 4 sigmoid'(2x), accurate where tanh(x) is near +-1.
  auto sech2 = [&](Value x) -> Value {
    return mul(cst(4.0), sigmoidSlope(mul(cst(2.0), x)));
  };
  // The gelu tanh approximation's argument, k (x + c x^3).
  auto geluInner = [&](Value x) -> Value {
    Value cube = mul(mul(x, x), x);
    return mul(cst(kSqrt2OverPi), add(x, mul(cst(kGeluCubic), cube)));
  };
  double lo = attr("lower_clip", 0.0);
  double hi = attr("upper_clip", std::numeric_limits<double>::infinity());
  Value a = args[0];
  Value c = arity > 1 ? args[1] : Value();

  // Binary and unary forward modes.
  if (m == "add" || m == "bias")
    return add(a, c);
  if (m == "add_square")
    return add(a, mul(c, c));
  if (m == "div")
    return div(a, c);
  if (m == "mul" || m == "scale")
    return mul(a, c);
  if (m == "sub")
    return sub(a, c);
  if (m == "max") // NaN in, NaN out, like the reference
    return arith::MaximumFOp::create(b, loc, a, c);
  if (m == "min")
    return arith::MinimumFOp::create(b, loc, a, c);
  if (m == "mod") // fmod: the result takes the dividend's sign
    return arith::RemFOp::create(b, loc, a, c);
  if (m == "pow")
    return math::PowFOp::create(b, loc, a, c);
  if (m == "logical_and")
    return flag(arith::AndIOp::create(b, loc, truth(a), truth(c)));
  if (m == "logical_or")
    return flag(arith::OrIOp::create(b, loc, truth(a), truth(c)));
  if (m == "logical_not")
    return flag(cmp(P::OEQ, a, cst(0.0)));
  // The comparisons: 1.0 where `a <predicate> c` holds. cmp_neq is
  // unordered: a != b is true when either is NaN.
  if (std::optional<P> p = llvm::StringSwitch<std::optional<P>>(m)
                               .Case("cmp_eq", P::OEQ)
                               .Case("cmp_ge", P::OGE)
                               .Case("cmp_gt", P::OGT)
                               .Case("cmp_le", P::OLE)
                               .Case("cmp_lt", P::OLT)
                               .Case("cmp_neq", P::UNE)
                               .Default(std::nullopt))
    return flag(cmp(*p, a, c));
  // The modes that are one math or arith op on `a`.
  using UnaryFn = Value (*)(OpBuilder &, Location, Value);
  if (UnaryFn unary = llvm::StringSwitch<UnaryFn>(m)
                          .Case("abs", createUnary<math::AbsFOp>)
                          .Case("ceil", createUnary<math::CeilOp>)
                          .Case("floor", createUnary<math::FloorOp>)
                          .Case("cos", createUnary<math::CosOp>)
                          .Case("sin", createUnary<math::SinOp>)
                          .Case("tan", createUnary<math::TanOp>)
                          .Case("tanh", createUnary<math::TanhOp>)
                          .Case("erf", createUnary<math::ErfOp>)
                          .Case("exp", createUnary<math::ExpOp>)
                          .Case("log", createUnary<math::LogOp>)
                          .Case("sqrt", createUnary<math::SqrtOp>)
                          .Case("rsqrt", createUnary<math::RsqrtOp>)
                          .Case("neg", createUnary<arith::NegFOp>)
                          .Default(nullptr))
    return unary(b, loc, a);
  if (m == "identity")
    return a;
  if (m == "reciprocal")
    return div(cst(1.0), a);
  if (m == "sigmoid")
    return sigmoid(a);
  if (m == "swish")
    return mul(a, sigmoid(mul(cst(attr("swish_beta", 1.0)), a)));
  if (m == "elu") {
    Value neg =
        mul(cst(attr("elu_alpha", 1.0)), math::ExpM1Op::create(b, loc, a));
    return select(P::OGT, a, cst(0.0), a, neg);
  }
  if (m == "gelu") {
    Value e = math::ErfOp::create(b, loc, mul(a, cst(kInvSqrt2)));
    return mul(mul(cst(0.5), a), add(cst(1.0), e));
  }
  if (m == "gelu_approx_tanh") // 0.5 a (1 + tanh(u)) = a sigmoid(2u)
    return mul(a, sigmoid(mul(cst(2.0), geluInner(a))));
  if (m == "softplus") {
    // log(1 + exp(z)) / beta with z = beta * a, as max(z, 0) +
    // log1p(exp(-|z|)) so exp never overflows.
    double beta = attr("softplus_beta", 1.0);
    Value z = mul(cst(beta), a);
    Value pos = arith::MaximumFOp::create(b, loc, z, cst(0.0));
    Value negAbs =
        arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, z));
    Value l =
        math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, negAbs));
    return div(add(pos, l), cst(beta));
  }
  if (m == "relu") {
    // a >= hi ? hi : (a > lo ? a : lo + slope * (a - lo)).
    // With no slope, below is lo itself: 0 * (-inf - lo) would make
    // relu(-inf) NaN. NaN still propagates.
    double slope = attr("negative_slope", 0.0);
    Value below = slope == 0.0 ? select(P::UNO, a, a, a, cst(lo))
                               : add(cst(lo), mul(cst(slope), sub(a, cst(lo))));
    Value mid = select(P::OGT, a, cst(lo), a, below);
    return select(P::OGE, a, cst(hi), cst(hi), mid);
  }
  if (m == "leaky_relu") {
    Value neg = mul(cst(attr("negative_slope", 0.01)), a);
    return select(P::OGT, a, cst(0.0), a, neg);
  }

  // Backward modes: dy = in0 (loss), x = in1 (input); the result is dx.
  Value dy = a, x = c;
  if (m == "relu_backward") {
    // x >= hi ? 0 : (x > lo ? dy : dy * slope).
    double slope = attr("negative_slope", 0.0);
    Value mid = select(P::OGT, x, cst(lo), dy, mul(dy, cst(slope)));
    return select(P::OGE, x, cst(hi), cst(0.0), mid);
  }
  if (m == "leaky_relu_backward") {
    double slope = attr("negative_slope", 0.01);
    return select(P::OGT, x, cst(0.0), dy, mul(dy, cst(slope)));
  }
  if (m == "swish_backward") {
    // dy * (s + beta x s (1 - s)) with s = sigmoid(beta x).
    Value beta = cst(attr("swish_beta", 1.0));
    Value bx = mul(beta, x);
    return mul(dy, add(sigmoid(bx), mul(bx, sigmoidSlope(bx))));
  }
  if (m == "elu_backward") {
    Value alpha = cst(attr("elu_alpha", 1.0));
    Value neg = mul(mul(dy, alpha), math::ExpOp::create(b, loc, x));
    return select(P::OGT, x, cst(0.0), dy, neg);
  }
  if (m == "gelu_approx_tanh_backward") {
    // dy * (0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2)) with
    // t = tanh(u), u = k (x + c x^3); 0.5 (1 + t) = sigmoid(2u). Where
    // 1 - t^2 is 0 so is the second term: the select keeps 0 * inf (x^2
    // overflowing f32) from making it NaN.
    Value u = geluInner(x);
    Value s2 = sech2(u);
    Value dInner = mul(cst(kSqrt2OverPi),
                       add(cst(1.0), mul(cst(3.0 * kGeluCubic), mul(x, x))));
    Value second = mul(mul(mul(cst(0.5), x), s2), dInner);
    second = select(P::OEQ, s2, cst(0.0), cst(0.0), second);
    return mul(dy, add(sigmoid(mul(cst(2.0), u)), second));
  }
  if (m == "gelu_backward") {
    // dy * (cdf(x) + x pdf(x)).
    Value cdf =
        mul(cst(0.5),
            add(cst(1.0), math::ErfOp::create(b, loc, mul(x, cst(kInvSqrt2)))));
    Value pdf = mul(cst(kInvSqrt2Pi),
                    math::ExpOp::create(b, loc, mul(cst(-0.5), mul(x, x))));
    return mul(dy, add(cdf, mul(x, pdf)));
  }
  if (m == "sigmoid_backward")
    return mul(dy, sigmoidSlope(x));
  if (m == "softplus_backward")
    return mul(dy, sigmoid(mul(cst(attr("softplus_beta", 1.0)), x)));
  if (m == "tanh_backward")
    return mul(dy, sech2(x));
  if (m == "binary_select") // in2 is the mask: in2 != 0 ? in0 : in1
    return pick(truth(args[2]), args[0], args[1]);
  return Value();
}
