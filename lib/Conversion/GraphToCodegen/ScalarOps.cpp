//===- ScalarOps.cpp - Pointwise modes as scalar f32 MLIR ----------------===//

#include "ScalarOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <limits>
#include <set>

using namespace mlir;
using namespace mlir::graph;
namespace rt = ::graph::rt;

namespace {

const std::set<std::string> kUnary = {
    "abs",  "ceil",    "cos",  "elu",        "erf",     "exp",
    "floor", "gelu",   "gelu_approx_tanh",   "identity", "log",
    "neg",  "reciprocal", "rsqrt", "sigmoid", "sin",    "softplus",
    "sqrt", "tan",     "tanh", "relu",       "leaky_relu", "swish"};
const std::set<std::string> kBinary = {"add", "add_square", "div", "mul",
                                       "sub", "max",        "min", "pow",
                                       "bias", "scale"};


} // namespace

bool mlir::graph::codegenHasPointwise(const std::string &mode) {
  return kUnary.count(mode) || kBinary.count(mode);
}

unsigned mlir::graph::pointwiseArity(const std::string &mode) {
  return kBinary.count(mode) ? 2 : 1;
}

double mlir::graph::pointwiseAttr(const rt::OpSpec &op, const char *name,
                                  double fallback) {
  auto it = op.floatAttrs.find(name);
  return it == op.floatAttrs.end() ? fallback : it->second;
}

Value mlir::graph::emitPointwise(OpBuilder &b, Location loc,
                                const rt::OpSpec &op, ArrayRef<Value> args) {
  auto cst = [&](double v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddFOp::create(b, loc, x, y);
  };
  auto mul = [&](Value x, Value y) -> Value {
    return arith::MulFOp::create(b, loc, x, y);
  };
  auto select = [&](arith::CmpFPredicate p, Value x, Value y, Value t,
                    Value f) -> Value {
    Value c = arith::CmpFOp::create(b, loc, p, x, y);
    return arith::SelectOp::create(b, loc, c, t, f);
  };
  auto sigmoid = [&](Value x) -> Value {
    Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
    return arith::DivFOp::create(b, loc, cst(1.0), add(cst(1.0), e));
  };
  const std::string &m = op.mode;
  Value a = args[0];
  Value c = args.size() > 1 ? args[1] : Value();
  if (m == "add" || m == "bias")
    return add(a, c);
  if (m == "add_square")
    return add(a, mul(c, c));
  if (m == "div")
    return arith::DivFOp::create(b, loc, a, c);
  if (m == "mul" || m == "scale")
    return mul(a, c);
  if (m == "sub")
    return arith::SubFOp::create(b, loc, a, c);
  if (m == "max")
    return arith::MaximumFOp::create(b, loc, a, c);
  if (m == "min")
    return arith::MinimumFOp::create(b, loc, a, c);
  if (m == "pow")
    return math::PowFOp::create(b, loc, a, c);
  if (m == "abs")
    return math::AbsFOp::create(b, loc, a);
  if (m == "ceil")
    return math::CeilOp::create(b, loc, a);
  if (m == "floor")
    return math::FloorOp::create(b, loc, a);
  if (m == "cos")
    return math::CosOp::create(b, loc, a);
  if (m == "sin")
    return math::SinOp::create(b, loc, a);
  if (m == "tan")
    return math::TanOp::create(b, loc, a);
  if (m == "tanh")
    return math::TanhOp::create(b, loc, a);
  if (m == "erf")
    return math::ErfOp::create(b, loc, a);
  if (m == "exp")
    return math::ExpOp::create(b, loc, a);
  if (m == "log")
    return math::LogOp::create(b, loc, a);
  if (m == "sqrt")
    return math::SqrtOp::create(b, loc, a);
  if (m == "rsqrt")
    return math::RsqrtOp::create(b, loc, a);
  if (m == "neg")
    return arith::NegFOp::create(b, loc, a);
  if (m == "identity")
    return a;
  if (m == "reciprocal")
    return arith::DivFOp::create(b, loc, cst(1.0), a);
  if (m == "sigmoid")
    return sigmoid(a);
  if (m == "swish")
    return mul(a, sigmoid(mul(cst(pointwiseAttr(op, "swish_beta", 1.0)), a)));
  if (m == "elu") {
    Value neg = mul(cst(pointwiseAttr(op, "elu_alpha", 1.0)),
                    math::ExpM1Op::create(b, loc, a));
    return select(arith::CmpFPredicate::OGT, a, cst(0.0), a, neg);
  }
  if (m == "gelu") {
    Value e = math::ErfOp::create(b, loc, mul(a, cst(M_SQRT1_2)));
    return mul(mul(cst(0.5), a), add(cst(1.0), e));
  }
  if (m == "gelu_approx_tanh") {
    Value cube = mul(mul(a, a), a);
    Value inner = mul(cst(std::sqrt(2.0 / M_PI)), add(a, mul(cst(0.044715), cube)));
    Value t = math::TanhOp::create(b, loc, inner);
    return mul(mul(cst(0.5), a), add(cst(1.0), t));
  }
  if (m == "softplus") {
    // (max(z, 0) + log1p(exp(-|z|))) / beta with z = beta * a.
    double beta = pointwiseAttr(op, "softplus_beta", 1.0);
    Value z = mul(cst(beta), a);
    Value pos = arith::MaximumFOp::create(b, loc, z, cst(0.0));
    Value negAbs = arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, z));
    Value l = math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, negAbs));
    return arith::DivFOp::create(b, loc, add(pos, l), cst(beta));
  }
  if (m == "relu") {
    double lo = pointwiseAttr(op, "lower_clip", 0.0);
    double hi = pointwiseAttr(op, "upper_clip", std::numeric_limits<double>::infinity());
    double slope = pointwiseAttr(op, "negative_slope", 0.0);
    Value below = add(cst(lo), mul(cst(slope), arith::SubFOp::create(b, loc, a, cst(lo))));
    Value mid = select(arith::CmpFPredicate::OGT, a, cst(lo), a, below);
    return select(arith::CmpFPredicate::OGE, a, cst(hi), cst(hi), mid);
  }
  if (m == "leaky_relu") {
    Value neg = mul(cst(pointwiseAttr(op, "negative_slope", 0.01)), a);
    return select(arith::CmpFPredicate::OGT, a, cst(0.0), a, neg);
  }
  return Value();
}

