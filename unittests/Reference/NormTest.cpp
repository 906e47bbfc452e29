//===- NormTest.cpp - Normalizations: forward values, backward by FD -----===//

#include "GraphDialect/Reference/Kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace graph::ref;

namespace {

NdArray randomArray(const Shape &shape, unsigned seed, double lo = -1.0,
                    double hi = 1.0) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  NdArray a(shape);
  for (double &v : a.data)
    v = dist(gen);
  return a;
}

double dot(const NdArray &a, const NdArray &b) {
  double s = 0;
  for (int64_t i = 0; i < a.size(); ++i)
    s += a.data[i] * b.data[i];
  return s;
}

enum class Kind { Layer, Rms, Instance, Batch, Ada };

std::string forward(Kind kind, const NdArray &x, const NdArray &scale,
                    const NdArray &bias, double eps, NormForwardResult &out) {
  switch (kind) {
  case Kind::Layer:
    return layernormForward(x, scale, &bias, eps, true, out);
  case Kind::Rms:
    return rmsnormForward(x, scale, &bias, eps, true, out);
  case Kind::Instance:
    return instancenormForward(x, scale, &bias, eps, true, out);
  case Kind::Ada:
    return adalayernormForward(x, scale, &bias, eps, true, out);
  case Kind::Batch: {
    BatchnormForwardResult r;
    std::string err = batchnormForward(x, scale, &bias, eps, nullptr, nullptr,
                                       std::nullopt, r);
    out.y = r.y;
    out.mean = r.mean;
    out.invVariance = r.invVariance;
    return err;
  }
  }
  return "unreachable";
}

std::string backward(Kind kind, const NdArray &dy, const NdArray &x,
                     const NdArray &scale, const NormForwardResult &fwd,
                     NormBackwardResult &out) {
  switch (kind) {
  case Kind::Layer:
    return layernormBackward(dy, x, scale, fwd.mean, fwd.invVariance, out);
  case Kind::Rms:
    return rmsnormBackward(dy, x, scale, fwd.invVariance, true, out);
  case Kind::Instance:
    return instancenormBackward(dy, x, scale, fwd.mean, fwd.invVariance, out);
  case Kind::Ada:
    return adalayernormBackward(dy, x, scale, fwd.mean, fwd.invVariance, out);
  case Kind::Batch:
    return batchnormBackward(dy, x, scale, fwd.mean, fwd.invVariance, out);
  }
  return "unreachable";
}

struct NormCase {
  const char *name;
  Kind kind;
  Shape x, scale, stats;
};

std::vector<NormCase> normCases() {
  return {
      {"layernorm", Kind::Layer, {3, 2, 2, 2}, {1, 2, 2, 2}, {3, 1, 1, 1}},
      {"rmsnorm", Kind::Rms, {3, 4, 1, 2}, {1, 4, 1, 2}, {3, 1, 1, 1}},
      // cuDNN's rule: the dims where scale is not 1 are normalized.
      {"layernorm BSD", Kind::Layer, {2, 3, 4}, {1, 1, 4}, {2, 3, 1}},
      {"rmsnorm BSD", Kind::Rms, {2, 3, 4}, {1, 1, 4}, {2, 3, 1}},
      {"layernorm middle dim", Kind::Layer, {2, 3, 4}, {1, 3, 1}, {2, 1, 4}},
      {"rmsnorm split dims",
       Kind::Rms,
       {2, 3, 2, 4},
       {1, 3, 1, 4},
       {2, 1, 2, 1}},
      {"layernorm whole tensor", Kind::Layer, {2, 3}, {2, 3}, {1, 1}},
      {"instancenorm",
       Kind::Instance,
       {2, 3, 2, 2},
       {1, 3, 1, 1},
       {2, 3, 1, 1}},
      {"batchnorm", Kind::Batch, {3, 2, 2, 2}, {1, 2, 1, 1}, {1, 2, 1, 1}},
      {"adalayernorm BSD", Kind::Ada, {2, 3, 4}, {2, 1, 4}, {2, 3, 1}},
      {"adalayernorm NCHW",
       Kind::Ada,
       {2, 3, 2, 2},
       {2, 3, 2, 2},
       {2, 1, 1, 1}},
  };
}

/// Forward statistics match a direct per-group computation.
TEST(Norm, ForwardStatistics) {
  unsigned seed = 1;
  for (const NormCase &c : normCases()) {
    NdArray x = randomArray(c.x, seed++), scale = randomArray(c.scale, seed++),
            bias = randomArray(c.scale, seed++);
    NormForwardResult fwd;
    ASSERT_EQ(forward(c.kind, x, scale, bias, 1e-5, fwd), "") << c.name;
    ASSERT_EQ(fwd.invVariance.shape, c.stats) << c.name;
    if (c.kind != Kind::Rms) {
      ASSERT_EQ(fwd.mean.shape, c.stats) << c.name;
    } else {
      EXPECT_EQ(fwd.mean.size(), 0) << c.name;
    }
    // Recompute each group's stats by scanning for elements mapped to it.
    int64_t groups = numElements(c.stats);
    std::vector<double> sum(groups, 0), sq(groups, 0), cnt(groups, 0);
    Shape xs = rowMajorStrides(c.x);
    Shape ss = rowMajorStrides(c.stats);
    for (int64_t i = 0; i < x.size(); ++i) {
      int64_t g = 0, rem = i;
      for (size_t d = 0; d < c.x.size(); ++d) {
        int64_t idx = rem / xs[d];
        rem %= xs[d];
        if (c.stats[d] != 1)
          g += idx * ss[d];
      }
      sum[g] += x.data[i];
      sq[g] += x.data[i] * x.data[i];
      cnt[g] += 1;
    }
    for (int64_t g = 0; g < groups; ++g) {
      double mean = c.kind == Kind::Rms ? 0.0 : sum[g] / cnt[g];
      double var = sq[g] / cnt[g] - mean * mean;
      if (c.kind != Kind::Rms) {
        EXPECT_NEAR(fwd.mean.data[g], mean, 1e-14) << c.name;
      }
      EXPECT_NEAR(fwd.invVariance.data[g], 1.0 / std::sqrt(var + 1e-5), 1e-10)
          << c.name;
    }
  }
}

TEST(Norm, LayernormHandComputed) {
  NdArray x({1, 4}), scale({1, 4}, 2.0), bias({1, 4}, 1.0);
  x.data = {1, 2, 3, 4};
  NormForwardResult out;
  ASSERT_EQ(layernormForward(x, scale, &bias, 0.0, true, out), "");
  double inv = 1.0 / std::sqrt(1.25);
  EXPECT_DOUBLE_EQ(out.mean.data[0], 2.5);
  EXPECT_DOUBLE_EQ(out.invVariance.data[0], inv);
  EXPECT_DOUBLE_EQ(out.y.data[0], 2 * (-1.5 * inv) + 1);
  EXPECT_DOUBLE_EQ(out.y.data[3], 2 * (1.5 * inv) + 1);
  // Inference: Y only.
  ASSERT_EQ(layernormForward(x, scale, nullptr, 0.0, false, out), "");
  EXPECT_EQ(out.mean.size(), 0);
  EXPECT_EQ(out.invVariance.size(), 0);
  EXPECT_DOUBLE_EQ(out.y.data[3], 2 * (1.5 * inv));
  // rmsnorm: 1 / sqrt(mean square) = 1 / sqrt(7.5).
  ASSERT_EQ(rmsnormForward(x, scale, nullptr, 0.0, true, out), "");
  EXPECT_DOUBLE_EQ(out.invVariance.data[0], 1.0 / std::sqrt(7.5));
  EXPECT_DOUBLE_EQ(out.y.data[1], 2 * 2 / std::sqrt(7.5));
}

/// DX, DScale, DBias against central differences of L = sum(Y * dy).
TEST(Norm, BackwardMatchesFiniteDifference) {
  unsigned seed = 50;
  const double eps = 1e-3, h = 1e-5;
  for (const NormCase &c : normCases()) {
    NdArray x = randomArray(c.x, seed++), scale = randomArray(c.scale, seed++),
            bias = randomArray(c.scale, seed++);
    NormForwardResult fwd;
    ASSERT_EQ(forward(c.kind, x, scale, bias, eps, fwd), "");
    NdArray dy = randomArray(fwd.y.shape, seed++);
    NormBackwardResult grads;
    ASSERT_EQ(backward(c.kind, dy, x, scale, fwd, grads), "") << c.name;
    ASSERT_EQ(grads.dx.shape, c.x);
    ASSERT_EQ(grads.dscale.shape, c.scale);
    ASSERT_EQ(grads.dbias.shape, c.scale);
    auto loss = [&](const NdArray &xx, const NdArray &s, const NdArray &b) {
      NormForwardResult r;
      EXPECT_EQ(forward(c.kind, xx, s, b, eps, r), "");
      return dot(r.y, dy);
    };
    auto check = [&](NdArray &param, const NdArray &grad, const char *what) {
      for (int64_t i = 0; i < param.size(); ++i) {
        double keep = param.data[i];
        param.data[i] = keep + h;
        double up = loss(x, scale, bias);
        param.data[i] = keep - h;
        double down = loss(x, scale, bias);
        param.data[i] = keep;
        EXPECT_NEAR(grad.data[i], (up - down) / (2 * h), 1e-6)
            << c.name << " " << what << "[" << i << "]";
      }
    };
    check(x, grads.dx, "dx");
    check(scale, grads.dscale, "dscale");
    check(bias, grads.dbias, "dbias");
  }
}

TEST(Norm, RmsnormWithoutDbias) {
  NdArray x = randomArray({2, 3}, 7), scale = randomArray({1, 3}, 8);
  NormForwardResult fwd;
  ASSERT_EQ(rmsnormForward(x, scale, nullptr, 1e-5, true, fwd), "");
  NormBackwardResult g;
  ASSERT_EQ(rmsnormBackward(x, x, scale, fwd.invVariance, false, g), "");
  EXPECT_EQ(g.dbias.size(), 0);
  EXPECT_EQ(g.dscale.shape, (Shape{1, 3}));
}

TEST(Norm, StatsMayComeFlat) {
  // Saved stats as [N] instead of [N, 1] are accepted (same element count).
  NdArray x = randomArray({2, 3}, 9), scale({1, 3}, 1.0), dy({2, 3}, 1.0);
  NormForwardResult fwd;
  ASSERT_EQ(layernormForward(x, scale, nullptr, 1e-5, true, fwd), "");
  NdArray mean({2}), inv({2});
  mean.data = fwd.mean.data;
  inv.data = fwd.invVariance.data;
  NormBackwardResult g;
  EXPECT_EQ(layernormBackward(dy, x, scale, mean, inv, g), "");
  NdArray wrong({3});
  EXPECT_NE(layernormBackward(dy, x, scale, wrong, inv, g), "");
}

TEST(Norm, BatchnormRunningStats) {
  NdArray x({2, 1, 2}), scale({1, 1, 1}, 1.0), bias({1, 1, 1}, 0.0);
  x.data = {1, 2, 3, 4};
  NdArray runMean({1, 1, 1}, 0.0), runVar({1, 1, 1}, 1.0);
  BatchnormForwardResult r;
  ASSERT_EQ(batchnormForward(x, scale, &bias, 0.0, &runMean, &runVar, 0.1, r),
            "");
  EXPECT_DOUBLE_EQ(r.mean.data[0], 2.5);
  EXPECT_DOUBLE_EQ(r.invVariance.data[0], 1.0 / std::sqrt(1.25)); // biased
  EXPECT_DOUBLE_EQ(r.nextRunningMean.data[0], 0.25);
  EXPECT_DOUBLE_EQ(r.nextRunningVar.data[0], 0.9 + 0.1 * 5.0 / 3.0); // unbiased
  EXPECT_EQ(r.nextRunningVar.shape, (Shape{1, 1, 1}));
  // Running stats need all three of mean, var and momentum.
  EXPECT_NE(batchnormForward(x, scale, &bias, 0.0, &runMean, nullptr, 0.1, r),
            "");
  // Without them, no next_running outputs.
  ASSERT_EQ(
      batchnormForward(x, scale, &bias, 0.0, nullptr, nullptr, std::nullopt, r),
      "");
  EXPECT_EQ(r.nextRunningMean.size(), 0);
}

TEST(Norm, BatchnormInferenceMatchesTraining) {
  NdArray x = randomArray({3, 4, 2, 2}, 11),
          scale = randomArray({1, 4, 1, 1}, 12),
          bias = randomArray({1, 4, 1, 1}, 13);
  BatchnormForwardResult r;
  ASSERT_EQ(batchnormForward(x, scale, &bias, 1e-5, nullptr, nullptr,
                             std::nullopt, r),
            "");
  NdArray y;
  ASSERT_EQ(batchnormInference(x, r.mean, r.invVariance, scale, &bias, y), "");
  for (int64_t i = 0; i < y.size(); ++i)
    EXPECT_NEAR(y.data[i], r.y.data[i], 1e-14);
  NdArray badScale({1, 3, 1, 1});
  EXPECT_NE(batchnormInference(x, r.mean, r.invVariance, badScale, &bias, y),
            "");
}

TEST(Norm, Errors) {
  NdArray x({2, 3}), scale({1, 4}), out;
  NormForwardResult fwd;
  EXPECT_NE(layernormForward(x, scale, nullptr, 1e-5, true, fwd), "");
  NdArray rank1({4});
  EXPECT_NE(instancenormForward(rank1, NdArray({4}), nullptr, 1e-5, true, fwd),
            "");
  NormBackwardResult g;
  EXPECT_NE(layernormBackward(NdArray({2, 2}), x, NdArray({1, 3}),
                              NdArray({2, 1}), NdArray({2, 1}), g),
            "");
}

} // namespace
