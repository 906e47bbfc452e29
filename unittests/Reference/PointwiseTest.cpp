//===- PointwiseTest.cpp - Every pointwise mode --------------------------===//

#include "GraphDialect/Reference/Kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

using namespace graph::ref;
using M = PointwiseMode;

namespace {

double eval(M mode, std::vector<double> args, PointwiseParams p = {}) {
  EXPECT_EQ(static_cast<int>(args.size()), pointwiseArity(mode))
      << pointwiseModeName(mode);
  return pointwiseScalar(mode, args.data(), p);
}

TEST(Pointwise, NamesRoundTrip) {
  std::set<std::string> names;
  for (int i = 0; i <= static_cast<int>(M::binary_select); ++i) {
    M mode = static_cast<M>(i);
    M parsed;
    ASSERT_TRUE(parsePointwiseMode(pointwiseModeName(mode), parsed));
    EXPECT_EQ(parsed, mode);
    names.insert(pointwiseModeName(mode));
  }
  EXPECT_EQ(names.size(), 54u);
  M unused;
  EXPECT_FALSE(parsePointwiseMode("relu6", unused));
  EXPECT_EQ(pointwiseArity(M::binary_select), 3);
  EXPECT_EQ(pointwiseArity(M::tanh_backward), 2);
  EXPECT_EQ(pointwiseArity(M::gen_index), 1);
}

TEST(Pointwise, Binary) {
  EXPECT_EQ(eval(M::add, {2, 3}), 5);
  EXPECT_EQ(eval(M::add_square, {2, 3}), 11);
  EXPECT_EQ(eval(M::div, {3, 4}), 0.75);
  EXPECT_EQ(eval(M::logical_and, {2, 0}), 0);
  EXPECT_EQ(eval(M::logical_and, {-2, 0.5}), 1);
  EXPECT_EQ(eval(M::logical_or, {0, 0}), 0);
  EXPECT_EQ(eval(M::logical_or, {0, -1}), 1);
  EXPECT_EQ(eval(M::mul, {2, -3}), -6);
  EXPECT_EQ(eval(M::sub, {2, 3}), -1);
  EXPECT_EQ(eval(M::max, {2, 3}), 3);
  EXPECT_EQ(eval(M::min, {2, 3}), 2);
  EXPECT_TRUE(std::isnan(eval(M::max, {NAN, 3})));
  EXPECT_EQ(eval(M::mod, {7, 3}), 1);
  EXPECT_EQ(eval(M::mod, {-7, 3}), -1); // C fmod: sign of the dividend
  EXPECT_EQ(eval(M::mod, {5.5, 2}), 1.5);
  EXPECT_EQ(eval(M::pow, {2, 10}), 1024);
  EXPECT_EQ(eval(M::pow, {4, 0.5}), 2);
  EXPECT_EQ(eval(M::cmp_eq, {2, 2}), 1);
  EXPECT_EQ(eval(M::cmp_eq, {2, 3}), 0);
  EXPECT_EQ(eval(M::cmp_ge, {3, 3}), 1);
  EXPECT_EQ(eval(M::cmp_ge, {2, 3}), 0);
  EXPECT_EQ(eval(M::cmp_gt, {3, 3}), 0);
  EXPECT_EQ(eval(M::cmp_gt, {4, 3}), 1);
  EXPECT_EQ(eval(M::cmp_le, {3, 3}), 1);
  EXPECT_EQ(eval(M::cmp_le, {4, 3}), 0);
  EXPECT_EQ(eval(M::cmp_lt, {2, 3}), 1);
  EXPECT_EQ(eval(M::cmp_lt, {3, 3}), 0);
  EXPECT_EQ(eval(M::cmp_neq, {2, 3}), 1);
  EXPECT_EQ(eval(M::cmp_neq, {3, 3}), 0);
  EXPECT_EQ(eval(M::bias, {2, 0.5}), 2.5);
  EXPECT_EQ(eval(M::scale, {2, 0.5}), 1);
}

TEST(Pointwise, Unary) {
  const double pi = 3.14159265358979323846;
  EXPECT_EQ(eval(M::abs, {-2.5}), 2.5);
  EXPECT_EQ(eval(M::ceil, {-2.5}), -2);
  EXPECT_EQ(eval(M::ceil, {2.1}), 3);
  EXPECT_NEAR(eval(M::cos, {pi}), -1, 1e-15);
  EXPECT_EQ(eval(M::elu, {2}), 2);
  EXPECT_NEAR(eval(M::elu, {-1}), std::exp(-1.0) - 1, 1e-15);
  PointwiseParams alpha;
  alpha.eluAlpha = 0.5;
  EXPECT_NEAR(eval(M::elu, {-1}, alpha), 0.5 * (std::exp(-1.0) - 1), 1e-15);
  EXPECT_NEAR(eval(M::erf, {0.5}), 0.5204998778130465, 1e-15);
  EXPECT_NEAR(eval(M::exp, {1}), 2.718281828459045, 1e-15);
  EXPECT_EQ(eval(M::floor, {-2.5}), -3);
  EXPECT_NEAR(eval(M::gelu, {1}), 0.8413447460685429, 1e-15);
  EXPECT_NEAR(eval(M::gelu, {-1}), -0.15865525393145707, 1e-15);
  EXPECT_NEAR(eval(M::gelu_approx_tanh, {1}), 0.8411919906082768, 1e-15);
  EXPECT_EQ(eval(M::identity, {-4}), -4);
  EXPECT_NEAR(eval(M::log, {std::exp(2.0)}), 2, 1e-15);
  EXPECT_EQ(eval(M::logical_not, {0}), 1);
  EXPECT_EQ(eval(M::logical_not, {-3}), 0);
  EXPECT_EQ(eval(M::neg, {3}), -3);
  EXPECT_EQ(eval(M::reciprocal, {4}), 0.25);
  EXPECT_EQ(eval(M::rsqrt, {4}), 0.5);
  EXPECT_EQ(eval(M::sigmoid, {0}), 0.5);
  EXPECT_NEAR(eval(M::sigmoid, {2}), 0.8807970779778823, 1e-15);
  EXPECT_NEAR(eval(M::sigmoid, {-800}), 0, 1e-300); // no overflow
  EXPECT_NEAR(eval(M::sin, {pi / 2}), 1, 1e-15);
  EXPECT_NEAR(eval(M::softplus, {0}), std::log(2.0), 1e-15);
  EXPECT_NEAR(eval(M::softplus, {1000}), 1000, 1e-12); // no overflow
  PointwiseParams beta;
  beta.softplusBeta = 2;
  EXPECT_NEAR(eval(M::softplus, {1}, beta), std::log1p(std::exp(2.0)) / 2,
              1e-15);
  EXPECT_EQ(eval(M::sqrt, {9}), 3);
  EXPECT_NEAR(eval(M::tan, {pi / 4}), 1, 1e-15);
  EXPECT_NEAR(eval(M::tanh, {1}), 0.7615941559557649, 1e-15);
  EXPECT_NEAR(eval(M::swish, {1}), 0.7310585786300049, 1e-15);
  PointwiseParams swishBeta;
  swishBeta.swishBeta = 2;
  EXPECT_NEAR(eval(M::swish, {1}, swishBeta), 0.8807970779778823, 1e-15);
  EXPECT_EQ(eval(M::leaky_relu, {-2}), -0.02); // default slope 0.01
  PointwiseParams slope;
  slope.negativeSlope = 0.2;
  EXPECT_EQ(eval(M::leaky_relu, {-2}, slope), -0.4);
  EXPECT_EQ(eval(M::leaky_relu, {3}, slope), 3);
}

TEST(Pointwise, ReluClips) {
  EXPECT_EQ(eval(M::relu, {-2}), 0);
  EXPECT_EQ(eval(M::relu, {3}), 3);
  PointwiseParams p;
  p.lowerClip = 1;
  p.upperClip = 6;
  EXPECT_EQ(eval(M::relu, {-2}, p), 1);
  EXPECT_EQ(eval(M::relu, {3}, p), 3);
  EXPECT_EQ(eval(M::relu, {7}, p), 6);
  p.negativeSlope = 0.5; // leaky around the lower clip: 1 + 0.5 (x - 1)
  EXPECT_EQ(eval(M::relu, {-3}, p), -1);
  EXPECT_EQ(eval(M::relu_backward, {2, -3}, p), 1); // dy * slope
  EXPECT_EQ(eval(M::relu_backward, {2, 3}, p), 2);
  EXPECT_EQ(eval(M::relu_backward, {2, 7}, p), 0);
  EXPECT_EQ(eval(M::relu_backward, {2, -1}), 0);
  EXPECT_EQ(eval(M::relu_backward, {2, 1}), 2);
  PointwiseParams s;
  s.negativeSlope = 0.1;
  EXPECT_EQ(eval(M::leaky_relu_backward, {2, -1}, s), 0.2);
  EXPECT_EQ(eval(M::leaky_relu_backward, {2, 1}, s), 2);
}

TEST(Pointwise, Select) {
  EXPECT_EQ(eval(M::binary_select, {1, 2, 1}), 1);
  EXPECT_EQ(eval(M::binary_select, {1, 2, 0}), 2);
  EXPECT_EQ(eval(M::binary_select, {1, 2, -0.5}), 1);
}

/// Each backward mode is dy * f'(x): check against a central difference of
/// its forward mode, at points away from kinks.
TEST(Pointwise, BackwardMatchesFiniteDifference) {
  struct Case {
    M forward, backward;
    PointwiseParams params;
  };
  PointwiseParams clips;
  clips.lowerClip = -0.5;
  clips.upperClip = 1.5;
  clips.negativeSlope = 0.3;
  PointwiseParams leaky;
  leaky.negativeSlope = 0.2;
  PointwiseParams beta;
  beta.swishBeta = 1.7;
  PointwiseParams alpha;
  alpha.eluAlpha = 0.6;
  PointwiseParams sbeta;
  sbeta.softplusBeta = 2.5;
  std::vector<Case> cases = {
      {M::relu, M::relu_backward, {}},
      {M::relu, M::relu_backward, clips},
      {M::leaky_relu, M::leaky_relu_backward, leaky},
      {M::swish, M::swish_backward, {}},
      {M::swish, M::swish_backward, beta},
      {M::elu, M::elu_backward, {}},
      {M::elu, M::elu_backward, alpha},
      {M::gelu_approx_tanh, M::gelu_approx_tanh_backward, {}},
      {M::gelu, M::gelu_backward, {}},
      {M::sigmoid, M::sigmoid_backward, {}},
      {M::softplus, M::softplus_backward, {}},
      {M::softplus, M::softplus_backward, sbeta},
      {M::tanh, M::tanh_backward, {}},
  };
  const double h = 1e-6, dy = 1.3;
  for (const Case &c : cases) {
    for (double x : {-2.3, -1.1, -0.3, 0.4, 1.2, 2.6}) {
      double fd = (pointwiseScalar(c.forward, std::vector<double>{x + h}.data(),
                                   c.params) -
                   pointwiseScalar(c.forward, std::vector<double>{x - h}.data(),
                                   c.params)) /
                  (2 * h);
      double args[2] = {dy, x};
      EXPECT_NEAR(pointwiseScalar(c.backward, args, c.params), dy * fd, 1e-7)
          << pointwiseModeName(c.backward) << " at " << x;
    }
  }
}

TEST(Pointwise, TensorBroadcast) {
  NdArray a({2, 1, 3}), b({4, 1});
  for (int i = 0; i < 6; ++i)
    a.data[i] = i;
  for (int i = 0; i < 4; ++i)
    b.data[i] = 10 * i;
  NdArray out;
  ASSERT_EQ(pointwise(M::add, {&a, &b}, {2, 4, 3}, {}, out), "");
  ASSERT_EQ(out.shape, (Shape{2, 4, 3}));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 3; ++k)
        EXPECT_EQ(out.data[(i * 4 + j) * 3 + k], (i * 3 + k) + 10 * j);
  // Errors: wrong arity, non-broadcasting input.
  EXPECT_NE(pointwise(M::add, {&a}, {2, 4, 3}, {}, out), "");
  EXPECT_NE(pointwise(M::add, {&a, &b}, {2, 5, 3}, {}, out), "");
  // A large input takes the threaded path; spot-check it.
  NdArray big({300, 300}, 2.0), two({1}, 3.0);
  ASSERT_EQ(pointwise(M::pow, {&big, &two}, big.shape, {}, out), "");
  EXPECT_EQ(out.data.front(), 8);
  EXPECT_EQ(out.data.back(), 8);
  // Ternary select with a broadcast mask.
  NdArray x0({2, 2}, 1.0), x1({2, 2}, -1.0), mask({2, 1});
  mask.data = {1, 0};
  ASSERT_EQ(pointwise(M::binary_select, {&x0, &x1, &mask}, {2, 2}, {}, out),
            "");
  EXPECT_EQ(out.data, (std::vector<double>{1, 1, -1, -1}));
}

TEST(Pointwise, GenIndex) {
  NdArray in({2, 3});
  NdArray out;
  PointwiseParams p;
  p.axis = 1;
  ASSERT_EQ(pointwise(M::gen_index, {&in}, {2, 3}, p, out), "");
  EXPECT_EQ(out.data, (std::vector<double>{0, 1, 2, 0, 1, 2}));
  p.axis = -2;
  ASSERT_EQ(pointwise(M::gen_index, {&in}, {2, 3}, p, out), "");
  EXPECT_EQ(out.data, (std::vector<double>{0, 0, 0, 1, 1, 1}));
  p.axis = 2;
  EXPECT_NE(pointwise(M::gen_index, {&in}, {2, 3}, p, out), "");
  p.axis.reset();
  EXPECT_NE(pointwise(M::gen_index, {&in}, {2, 3}, p, out), "");
}

} // namespace
