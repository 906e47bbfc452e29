//===- KernelsTest.cpp - Matmul, conv, reductions, structural, rope ------===//

#include "GraphDialect/Reference/Kernels.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <random>

using namespace graph;
using namespace graph::ref;

namespace {

NdArray randomArray(const Shape &shape, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  NdArray a(shape);
  for (double &v : a.data)
    v = dist(gen);
  return a;
}

double dot(const NdArray &a, const NdArray &b) {
  EXPECT_EQ(a.shape, b.shape);
  double s = 0;
  for (int64_t i = 0; i < a.size(); ++i)
    s += a.data[i] * b.data[i];
  return s;
}

void expectNear(const NdArray &a, const NdArray &b, double tol) {
  ASSERT_EQ(a.shape, b.shape);
  for (int64_t i = 0; i < a.size(); ++i)
    ASSERT_NEAR(a.data[i], b.data[i], tol) << "at " << i;
}

TEST(Helpers, ParallelForCoversOnce) {
  std::vector<std::atomic<int>> hits(1000);
  parallelFor(1000, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      hits[i]++;
  });
  for (auto &h : hits)
    EXPECT_EQ(h.load(), 1);
  parallelFor(0, [&](int64_t, int64_t) { FAIL(); });
}

TEST(Helpers, BroadcastAndSumTo) {
  Shape out;
  EXPECT_TRUE(broadcastShapes({3, 1, 5}, {4, 1}, out));
  EXPECT_EQ(out, (Shape{3, 4, 5}));
  EXPECT_FALSE(broadcastShapes({3}, {4}, out));
  NdArray a({2, 1});
  a.data = {1, 2};
  NdArray b;
  ASSERT_EQ(broadcastTo(a, {3, 2, 2}, b), "");
  EXPECT_EQ(b.data, (std::vector<double>{1, 1, 2, 2, 1, 1, 2, 2, 1, 1, 2, 2}));
  NdArray s;
  ASSERT_EQ(sumTo(b, {2, 1}, s), "");
  EXPECT_EQ(s.data, (std::vector<double>{6, 12}));
  EXPECT_NE(broadcastTo(a, {3, 3}, b), "");
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

TEST(Matmul, Small) {
  NdArray a({2, 3}), b({3, 2});
  a.data = {1, 2, 3, 4, 5, 6};
  b.data = {7, 8, 9, 10, 11, 12};
  NdArray c;
  ASSERT_EQ(matmul(a, b, c), "");
  EXPECT_EQ(c.shape, (Shape{2, 2}));
  EXPECT_EQ(c.data, (std::vector<double>{58, 64, 139, 154}));
}

TEST(Matmul, BatchBroadcast) {
  NdArray a = randomArray({2, 1, 3, 4}, 1), b = randomArray({5, 4, 6}, 2);
  NdArray c;
  ASSERT_EQ(matmul(a, b, c), "");
  ASSERT_EQ(c.shape, (Shape{2, 5, 3, 6}));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 5; ++j)
      for (int m = 0; m < 3; ++m)
        for (int n = 0; n < 6; ++n) {
          double s = 0;
          for (int k = 0; k < 4; ++k)
            s += a.data[(i * 3 + m) * 4 + k] * b.data[(j * 4 + k) * 6 + n];
          EXPECT_NEAR(c.data[((i * 5 + j) * 3 + m) * 6 + n], s, 1e-14);
        }
  NdArray bad = randomArray({3, 6}, 3);
  EXPECT_NE(matmul(a, bad, c), "");
  NdArray vec = randomArray({4}, 3);
  EXPECT_NE(matmul(vec, b, c), "");
  NdArray b2 = randomArray({3, 4, 6}, 4);
  EXPECT_NE(matmul(randomArray({2, 3, 4}, 5), b2, c), ""); // batch 2 vs 3
}

TEST(Matmul, LargeThreaded) {
  NdArray a = randomArray({3, 64, 70}, 7), b = randomArray({70, 50}, 8);
  NdArray c;
  ASSERT_EQ(matmul(a, b, c), "");
  double s = 0;
  for (int k = 0; k < 70; ++k)
    s += a.data[(2 * 64 + 63) * 70 + k] * b.data[k * 50 + 49];
  EXPECT_NEAR(c.data.back(), s, 1e-12);
}

// The kernel works in tiles of rows and columns and blocks of K; each
// element must still sum its products in K order, exactly as one
// row-at-a-time loop does (partial tiles, several K blocks, broadcast
// batches, a single column).
TEST(Matmul, TiledSumsInKOrder) {
  // Each case: the operands, the output's batch count, and which matrix of
  // A and of B output batch bt reads.
  struct Case {
    Shape a, b;
    int64_t batches;
    int64_t (*aMat)(int64_t), (*bMat)(int64_t);
  };
  auto same = [](int64_t bt) { return bt; };
  auto first = [](int64_t) -> int64_t { return 0; };
  const Case cases[] = {
      // [2, 1] x [3] broadcasts to [2, 3].
      {{2, 1, 45, 300},
       {3, 300, 270},
       6,
       [](int64_t bt) { return bt / 3; },
       [](int64_t bt) { return bt % 3; }},
      // B batched, A not (and the reverse).
      {{45, 300}, {3, 300, 270}, 3, first, same},
      {{5, 257, 7}, {7, 3}, 5, same, first},
      {{1, 33}, {33, 1}, 1, first, first},
      {{70, 129}, {129, 513}, 1, first, first},
  };
  for (const Case &cs : cases) {
    NdArray a = randomArray(cs.a, 11), b = randomArray(cs.b, 12);
    NdArray c;
    ASSERT_EQ(matmul(a, b, c), "");
    int64_t m = cs.a[cs.a.size() - 2], k = cs.a.back(), n = cs.b.back();
    ASSERT_EQ(static_cast<int64_t>(c.data.size()), cs.batches * m * n);
    for (int64_t bt = 0; bt < cs.batches; ++bt) {
      int64_t am = cs.aMat(bt), bm = cs.bMat(bt);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double s = 0;
          for (int64_t p = 0; p < k; ++p)
            s += a.data[(am * m + i) * k + p] * b.data[(bm * k + p) * n + j];
          ASSERT_EQ(c.data[(bt * m + i) * n + j], s)
              << "batch " << bt << " element (" << i << ", " << j << ")";
        }
    }
  }
}

//===----------------------------------------------------------------------===//
// Convolution: checked against im2col + matmul written independently.
//===----------------------------------------------------------------------===//

Shape unflatten(int64_t linear, const Shape &shape) {
  Shape idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = linear % shape[d];
    linear /= shape[d];
  }
  return idx;
}

int64_t flatten(const Shape &idx, const Shape &shape) {
  int64_t l = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    l = l * shape[d] + idx[d];
  return l;
}

/// Reverses every spatial axis of a filter.
NdArray flipFilter(const NdArray &w) {
  NdArray f(w.shape);
  Shape spatial(w.shape.begin() + 2, w.shape.end());
  int64_t sp = numElements(spatial);
  for (int64_t kc = 0; kc < w.shape[0] * w.shape[1]; ++kc)
    for (int64_t r = 0; r < sp; ++r) {
      Shape idx = unflatten(r, spatial);
      for (size_t d = 0; d < idx.size(); ++d)
        idx[d] = spatial[d] - 1 - idx[d];
      f.data[kc * sp + flatten(idx, spatial)] = w.data[kc * sp + r];
    }
  return f;
}

/// Cross-correlation via im2col: cols[(c, r), o] then W_group x cols.
NdArray convIm2col(const NdArray &x, const NdArray &w, const ConvParams &p) {
  size_t rank = x.shape.size() - 2;
  int64_t N = x.shape[0], C = x.shape[1], K = w.shape[0], Cg = w.shape[1];
  int64_t G = C / Cg, Kg = K / G;
  Shape in(x.shape.begin() + 2, x.shape.end());
  Shape flt(w.shape.begin() + 2, w.shape.end());
  Shape out(rank);
  for (size_t d = 0; d < rank; ++d)
    out[d] = (in[d] + p.prePadding[d] + p.postPadding[d] -
              (flt[d] - 1) * p.dilation[d] - 1) /
                 p.stride[d] +
             1;
  int64_t I = numElements(in), R = numElements(flt), O = numElements(out);
  Shape yShape = {N, K};
  yShape.insert(yShape.end(), out.begin(), out.end());
  NdArray y(yShape);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t g = 0; g < G; ++g) {
      std::vector<double> cols(Cg * R * O, 0.0);
      for (int64_t c = 0; c < Cg; ++c)
        for (int64_t r = 0; r < R; ++r)
          for (int64_t o = 0; o < O; ++o) {
            Shape oi = unflatten(o, out), ri = unflatten(r, flt), xi(rank);
            bool inside = true;
            for (size_t d = 0; d < rank; ++d) {
              xi[d] =
                  oi[d] * p.stride[d] - p.prePadding[d] + ri[d] * p.dilation[d];
              inside = inside && xi[d] >= 0 && xi[d] < in[d];
            }
            if (inside)
              cols[(c * R + r) * O + o] =
                  x.data[(n * C + g * Cg + c) * I + flatten(xi, in)];
          }
      for (int64_t kl = 0; kl < Kg; ++kl) {
        int64_t k = g * Kg + kl;
        for (int64_t o = 0; o < O; ++o) {
          double s = 0;
          for (int64_t cr = 0; cr < Cg * R; ++cr)
            s += w.data[k * Cg * R + cr] * cols[cr * O + o];
          y.data[(n * K + k) * O + o] = s;
        }
      }
    }
  return y;
}

struct ConvCase {
  Shape x, w;
  ConvParams p;
};

std::vector<ConvCase> convCases() {
  std::vector<ConvCase> cases;
  cases.push_back(
      {{2, 3, 5, 6}, {4, 3, 3, 3}, {{0, 0}, {0, 0}, {1, 1}, {1, 1}, true}});
  cases.push_back(
      {{1, 4, 7, 6}, {6, 2, 3, 2}, {{1, 2}, {2, 0}, {2, 1}, {1, 2}, true}});
  cases.push_back(
      {{2, 6, 6, 5}, {6, 1, 3, 3}, {{1, 1}, {1, 1}, {1, 2}, {2, 1}, false}});
  cases.push_back({{1, 2, 4, 5, 4},
                   {2, 2, 2, 3, 2},
                   {{1, 0, 1}, {0, 1, 1}, {1, 2, 1}, {2, 1, 1}, true}});
  cases.push_back({{2, 4, 5, 4, 3},
                   {4, 2, 2, 2, 2},
                   {{0, 1, 0}, {1, 0, 1}, {2, 1, 1}, {1, 1, 2}, false}});
  cases.push_back({{1, 2, 9}, {3, 2, 3}, {{2}, {1}, {2}, {1}, true}}); // 1-D
  return cases;
}

TEST(Conv, FpropMatchesIm2col) {
  unsigned seed = 10;
  for (const ConvCase &c : convCases()) {
    NdArray x = randomArray(c.x, seed++), w = randomArray(c.w, seed++);
    NdArray y;
    ASSERT_EQ(convFprop(x, w, c.p, y), "");
    NdArray ref = convIm2col(x, c.p.crossCorrelation ? w : flipFilter(w), c.p);
    expectNear(y, ref, 1e-12);
    Shape shape;
    ASSERT_EQ(convOutputShape(c.x, c.w, c.p, shape), "");
    EXPECT_EQ(shape, ref.shape);
  }
}

TEST(Conv, HandComputed1D) {
  // x = [1 2 3 4], w = [1 10], pad 1 both sides, stride 2:
  // padded [0 1 2 3 4 0] -> windows at 0, 2, 4: [10, 32, 4].
  NdArray x({1, 1, 4}), w({1, 1, 2}), y;
  x.data = {1, 2, 3, 4};
  w.data = {1, 10};
  ConvParams p{{1}, {1}, {2}, {1}, true};
  ASSERT_EQ(convFprop(x, w, p, y), "");
  EXPECT_EQ(y.data, (std::vector<double>{10, 32, 4}));
  p.crossCorrelation = false; // flipped filter [10 1]
  ASSERT_EQ(convFprop(x, w, p, y), "");
  EXPECT_EQ(y.data, (std::vector<double>{1, 23, 40}));
}

/// dgrad and wgrad are the adjoints of fprop: <fprop(x, w), dy> =
/// <x, dgrad(dy, w)> = <w, wgrad(x, dy)>.
TEST(Conv, DgradWgradAreAdjoints) {
  unsigned seed = 100;
  for (const ConvCase &c : convCases()) {
    NdArray x = randomArray(c.x, seed++), w = randomArray(c.w, seed++);
    NdArray y, dx, dw;
    ASSERT_EQ(convFprop(x, w, c.p, y), "");
    NdArray dy = randomArray(y.shape, seed++);
    ASSERT_EQ(convDgrad(dy, w, c.p, c.x, dx), "");
    ASSERT_EQ(convWgrad(x, dy, c.p, c.w, dw), "");
    double lhs = dot(y, dy);
    EXPECT_NEAR(dot(x, dx), lhs, 1e-10);
    EXPECT_NEAR(dot(w, dw), lhs, 1e-10);
    // And per element, against the im2col fprop's linearity in x.
    NdArray e(c.x);
    e.data[c.x.size() > 3 ? 5 : 1] = 1.0;
    NdArray ye;
    ASSERT_EQ(convFprop(e, w, c.p, ye), "");
    EXPECT_NEAR(dot(ye, dy), dx.data[c.x.size() > 3 ? 5 : 1], 1e-12);
  }
}

TEST(Conv, Errors) {
  NdArray x({1, 3, 4, 4}), w({2, 2, 3, 3}), y;
  EXPECT_NE(convFprop(x, w, {}, y), ""); // 3 channels, filter takes 2
  NdArray w2({3, 1, 5, 5});
  EXPECT_NE(convFprop(x, w2, {}, y), ""); // filter larger than image
  NdArray w3({3, 3, 3});
  EXPECT_NE(convFprop(x, w3, {}, y), ""); // rank mismatch
  ConvParams p;
  p.stride = {1};
  EXPECT_NE(convFprop(x, NdArray({3, 3, 3, 3}), p, y), ""); // attr arity
  p.stride = {0, 1};
  EXPECT_NE(convFprop(x, NdArray({3, 3, 3, 3}), p, y), "");
  NdArray dy({1, 3, 3, 3}), dx;
  EXPECT_NE(convDgrad(dy, NdArray({3, 3, 3, 3}), {}, {1, 3, 4, 4}, dx), "");
}

//===----------------------------------------------------------------------===//
// Genstats and reduction
//===----------------------------------------------------------------------===//

TEST(Reduction, Genstats) {
  NdArray x({2, 2, 2});
  x.data = {1, 2, 3, 4, 5, 6, 7, 8};
  NdArray sum, sq;
  ASSERT_EQ(genstats(x, sum, sq), "");
  EXPECT_EQ(sum.shape, (Shape{1, 2, 1}));
  EXPECT_EQ(sum.data, (std::vector<double>{1 + 2 + 5 + 6, 3 + 4 + 7 + 8}));
  EXPECT_EQ(sq.data, (std::vector<double>{1 + 4 + 25 + 36, 9 + 16 + 49 + 64}));
}

TEST(Reduction, EveryMode) {
  NdArray x({2, 3});
  x.data = {1, -2, 0, 3, 4, -5};
  auto run = [&](ReductionMode mode, const Shape &shape) {
    NdArray out;
    EXPECT_EQ(reduce(x, mode, shape, out), "");
    return out.data;
  };
  using R = ReductionMode;
  EXPECT_EQ(run(R::add, {2, 1}), (std::vector<double>{-1, 2}));
  EXPECT_EQ(run(R::add, {1, 3}), (std::vector<double>{4, 2, -5}));
  EXPECT_EQ(run(R::add, {1, 1}), (std::vector<double>{1}));
  EXPECT_EQ(run(R::add, {2, 3}), x.data);
  EXPECT_EQ(run(R::mul, {2, 1}), (std::vector<double>{0, -60}));
  EXPECT_EQ(run(R::mul_no_zeros, {2, 1}), (std::vector<double>{-2, -60}));
  EXPECT_EQ(run(R::min, {2, 1}), (std::vector<double>{-2, -5}));
  EXPECT_EQ(run(R::max, {2, 1}), (std::vector<double>{1, 4}));
  EXPECT_EQ(run(R::amax, {2, 1}), (std::vector<double>{2, 5}));
  EXPECT_EQ(run(R::avg, {1, 3}), (std::vector<double>{2, 1, -2.5}));
  EXPECT_EQ(run(R::norm1, {2, 1}), (std::vector<double>{3, 12}));
  std::vector<double> n2 = run(R::norm2, {2, 1});
  EXPECT_DOUBLE_EQ(n2[0], std::sqrt(5.0));
  EXPECT_DOUBLE_EQ(n2[1], std::sqrt(50.0));
  NdArray zeros({1, 2}, 0.0), out;
  ASSERT_EQ(reduce(zeros, R::mul_no_zeros, {1, 1}, out), "");
  EXPECT_EQ(out.data[0], 1);
  NdArray withNaN({3});
  withNaN.data = {1, NAN, 2};
  ASSERT_EQ(reduce(withNaN, R::max, {1}, out), "");
  EXPECT_TRUE(std::isnan(out.data[0]));
  ASSERT_EQ(reduce(withNaN, R::min, {1}, out), "");
  EXPECT_TRUE(std::isnan(out.data[0]));
  EXPECT_NE(reduce(x, R::add, {2}, out), "");
  EXPECT_NE(reduce(x, R::add, {2, 2}, out), "");
  ReductionMode m;
  ASSERT_TRUE(parseReductionMode("MUL_NO_ZEROS", m));
  EXPECT_EQ(m, R::mul_no_zeros);
  EXPECT_STREQ(reductionModeName(R::norm2), "norm2");
  EXPECT_FALSE(parseReductionMode("sum", m));
}

//===----------------------------------------------------------------------===//
// Structural
//===----------------------------------------------------------------------===//

NdArray iota(const Shape &shape) {
  NdArray a(shape);
  for (int64_t i = 0; i < a.size(); ++i)
    a.data[i] = static_cast<double>(i);
  return a;
}

TEST(Structural, Reshape) {
  NdArray a = iota({2, 3}), b;
  ASSERT_EQ(reshape(a, {3, 1, 2}, b), "");
  EXPECT_EQ(b.shape, (Shape{3, 1, 2}));
  EXPECT_EQ(b.data, a.data);
  EXPECT_NE(reshape(a, {4, 2}, b), "");
}

TEST(Structural, Slice) {
  NdArray a = iota({4, 5}), b;
  ASSERT_EQ(slice(a, {{1, 3, 1}, {0, 5, 2}}, b), "");
  EXPECT_EQ(b.shape, (Shape{2, 3}));
  EXPECT_EQ(b.data, (std::vector<double>{5, 7, 9, 10, 12, 14}));
  ASSERT_EQ(slice(a, {{3, -1, -2}}, b), ""); // rows 3, 1; all columns
  EXPECT_EQ(b.shape, (Shape{2, 5}));
  EXPECT_EQ(b.data[0], 15);
  EXPECT_EQ(b.data[5], 5);
  EXPECT_NE(slice(a, {{0, 6, 1}}, b), "");
  EXPECT_NE(slice(a, {{0, 2, 0}}, b), "");
  SliceRange r;
  ASSERT_TRUE(normalizeSlice(5, -2, std::nullopt, std::nullopt, r));
  EXPECT_EQ(sliceExtent(r), 2);
  EXPECT_EQ(r.start, 3);
  ASSERT_TRUE(normalizeSlice(5, std::nullopt, std::nullopt, -1, r));
  EXPECT_EQ(sliceExtent(r), 5);
  EXPECT_EQ(r.start, 4);
  ASSERT_TRUE(normalizeSlice(5, 1, 100, 3, r));
  EXPECT_EQ(sliceExtent(r), 2);
  EXPECT_FALSE(normalizeSlice(5, 0, 1, 0, r));
  ASSERT_TRUE(normalizeSlice(5, 4, 1, 1, r));
  EXPECT_EQ(sliceExtent(r), 0);
  ASSERT_EQ(slice(a, {r}, b), "");
  EXPECT_EQ(b.shape, (Shape{0, 5}));
}

TEST(Structural, Transpose) {
  NdArray a = iota({2, 3, 4}), b;
  ASSERT_EQ(transpose(a, {2, 0, 1}, b), "");
  EXPECT_EQ(b.shape, (Shape{4, 2, 3}));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k)
        EXPECT_EQ(b.data[(k * 2 + i) * 3 + j], a.data[(i * 3 + j) * 4 + k]);
  EXPECT_NE(transpose(a, {0, 0, 1}, b), "");
  EXPECT_NE(transpose(a, {0, 1}, b), "");
}

TEST(Structural, Concatenate) {
  NdArray a = iota({2, 2}), b = iota({2, 1}), c;
  ASSERT_EQ(concatenate({&a, &b}, 1, c), "");
  EXPECT_EQ(c.shape, (Shape{2, 3}));
  EXPECT_EQ(c.data, (std::vector<double>{0, 1, 0, 2, 3, 1}));
  NdArray d = iota({1, 2});
  ASSERT_EQ(concatenate({&a, &d}, -2, c), "");
  EXPECT_EQ(c.data, (std::vector<double>{0, 1, 2, 3, 0, 1}));
  EXPECT_NE(concatenate({&a, &b}, 0, c), "");
  EXPECT_NE(concatenate({&a, &b}, 2, c), "");
  EXPECT_NE(concatenate({}, 0, c), "");
}

//===----------------------------------------------------------------------===//
// Rope
//===----------------------------------------------------------------------===//

TEST(Rope, HandComputed) {
  // head dim 6, rope_dim 4 (half 2), angles per pair [pi/2, pi].
  const double pi = 3.14159265358979323846;
  NdArray x({1, 6}), f({1, 2}), y;
  x.data = {1, 2, 3, 4, 5, 6};
  f.data = {pi / 2, pi};
  ASSERT_EQ(rope(x, f, 2.0, 4, y), "");
  // y0 = 2 (1 cos - 3 sin)(pi/2) = -6; y2 = 2 (3 cos + 1 sin)(pi/2) = 2;
  // y1 = 2 (2 cos pi - 4 sin pi) = -4; y3 = 2 (4 cos pi + 2 sin pi) = -8.
  std::vector<double> expect = {-6, -4, 2, -8, 10, 12};
  for (int i = 0; i < 6; ++i)
    EXPECT_NEAR(y.data[i], expect[i], 1e-14) << i;
  EXPECT_NE(rope(x, f, 1.0, 3, y), ""); // odd rope_dim
  EXPECT_NE(rope(x, f, 1.0, 8, y), ""); // beyond head dim
  EXPECT_NE(rope(x, NdArray({1, 3}), 1.0, 4, y), "");
}

TEST(Rope, BackwardIsTranspose) {
  // x [B, H, S, D] with freqs [1, 1, S, d] (one angle per element, halves
  // differing) and [S, d/2]; full and partial rotation.
  for (int64_t ropeDim : {0, 4}) {
    for (bool halfFreqs : {false, true}) {
      int64_t d = ropeDim ? ropeDim : 6;
      NdArray x = randomArray({2, 3, 5, 6}, 40);
      NdArray f = halfFreqs ? randomArray({5, d / 2}, 41)
                            : randomArray({1, 1, 5, d}, 42);
      NdArray dy = randomArray(x.shape, 43), y, dx;
      ASSERT_EQ(rope(x, f, 0.7, ropeDim, y), "");
      ASSERT_EQ(ropeBackward(dy, f, 0.7, ropeDim, dx), "");
      EXPECT_NEAR(dot(y, dy), dot(x, dx), 1e-12);
      if (halfFreqs) {
        // A pure rotation (scale 1) preserves the norm.
        ASSERT_EQ(rope(x, f, 1.0, ropeDim, y), "");
        EXPECT_NEAR(dot(y, y), dot(x, x), 1e-12);
      }
    }
  }
}

} // namespace
