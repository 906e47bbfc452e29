//===- QuantKernelsTest.cpp - block-scale quantization and MoE tests ------===//

#include "GraphDialect/Reference/QuantKernels.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>

using namespace graph::ref;

namespace {

NdArray randomArray(Shape shape, unsigned seed, double lo = -1.0,
                    double hi = 1.0) {
  NdArray a(std::move(shape));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  for (double &x : a.data)
    x = dist(gen);
  return a;
}

TEST(BlockScaleQuantize, MxScaleRule) {
  NdArray x({2, 32}, 0.0);
  x.data[3] = 3.0; // block 0: amax 3 -> 2^(1-8)
  x.data[5] = -1.0;
  x.data[32] = 480.0; // block 1: amax 480 -> 2^(8-8) = 1
  BlockScaleQuantizeOptions o;
  NdArray y, s;
  ASSERT_EQ(blockScaleQuantize(x, o, y, s), "");
  ASSERT_EQ(s.shape, (Shape{2, 1}));
  EXPECT_EQ(s.data[0], std::ldexp(1.0, -7));
  EXPECT_EQ(s.data[1], 1.0);
  EXPECT_EQ(y.data[3], 384.0);
  EXPECT_EQ(y.data[5], -128.0);
  EXPECT_EQ(y.data[32], 448.0); // OCP floor rule saturates
  // RoundUp: 2^ceil(log2(480/448)) = 2, no saturation.
  o.rounding = ScaleRounding::RoundUp;
  ASSERT_EQ(blockScaleQuantize(x, o, y, s), "");
  EXPECT_EQ(s.data[1], 2.0);
  EXPECT_EQ(y.data[32], 240.0);
  // All-zero block: scale 2^-127, values 0.
  NdArray z({1, 32}, 0.0);
  ASSERT_EQ(blockScaleQuantize(z, BlockScaleQuantizeOptions(), y, s), "");
  EXPECT_EQ(s.data[0], std::ldexp(1.0, -127));
  EXPECT_EQ(y.data[0], 0.0);
}

void roundTrip(DType value, DType scaleType, int64_t block, int64_t axis,
               double relTol,
               ScaleRounding rounding = ScaleRounding::OcpFloor) {
  SCOPED_TRACE(dtypeName(value));
  NdArray x = randomArray({3, 40, 5}, 7, -10, 10);
  BlockScaleQuantizeOptions o;
  o.valueType = value;
  o.scaleType = scaleType;
  o.blockSize = block;
  o.axis = axis;
  o.rounding = rounding;
  NdArray y, s;
  ASSERT_EQ(blockScaleQuantize(x, o, y, s), "");
  int64_t ax = axis < 0 ? axis + 3 : axis;
  EXPECT_EQ(s.shape[ax], (x.shape[ax] + block - 1) / block);
  for (double v : y.data)
    EXPECT_EQ(v, roundTo(value, v)); // representable values
  std::vector<int64_t> bs(3 - ax, 1);
  bs[0] = block;
  NdArray back;
  ASSERT_EQ(blockScaleDequantize(y, s, bs, false, back), "");
  // Error bound relative to the amax (10): half an ulp at the top binade,
  // or the saturation loss of the OCP floor rule (amax up to 2^(e+1) mapped
  // onto maxFinite: 12.5% for e4m3/e5m2, 25% for e2m1).
  for (int64_t i = 0; i < x.size(); ++i)
    EXPECT_NEAR(back.data[i], x.data[i], relTol * 10.0) << i;
}

TEST(BlockScaleQuantize, RoundTripWithinFormatError) {
  roundTrip(DType::F8E4M3FN, DType::F8E8M0FNU, 32, -1, 1.0 / 8);
  roundTrip(DType::F8E4M3FN, DType::F8E8M0FNU, 32, -1, 1.0 / 16,
            ScaleRounding::RoundUp); // no saturation: half an ulp only
  roundTrip(DType::F8E5M2, DType::F8E8M0FNU, 32, 1, 1.0 / 8);
  roundTrip(DType::F4E2M1FN, DType::F8E8M0FNU, 32, -1, 0.25);
  roundTrip(DType::F4E2M1FN, DType::F8E4M3FN, 16, -1, 0.25); // NVFP4
}

TEST(BlockScaleQuantize, AxisAndPartialBlocks) {
  NdArray x = randomArray({40, 3}, 8);
  BlockScaleQuantizeOptions o;
  o.axis = 0;
  NdArray y, s;
  ASSERT_EQ(blockScaleQuantize(x, o, y, s), "");
  EXPECT_EQ(s.shape, (Shape{2, 3}));
  // The partial block 1 (rows 32..39) of column 2 uses its own amax.
  double amax = 0;
  for (int64_t r = 32; r < 40; ++r)
    amax = std::max(amax, std::fabs(x.data[r * 3 + 2]));
  EXPECT_EQ(s.data[1 * 3 + 2], std::ldexp(1.0, std::ilogb(amax) - 8));
  o.axis = 2;
  EXPECT_NE(blockScaleQuantize(x, o, y, s).find("axis"), std::string::npos);
  o.axis = -1;
  o.valueType = DType::I32;
  EXPECT_NE(blockScaleQuantize(x, o, y, s).find("Y:"), std::string::npos);
}

TEST(BlockScaleDequantize, BlocksAndNegativeScale) {
  NdArray x({2, 64}, 1.0), d({2, 2});
  d.data = {1, 2, 4, 8};
  NdArray out;
  ASSERT_EQ(blockScaleDequantize(x, d, {1, 32}, false, out), "");
  EXPECT_EQ(out.data[31], 1.0);
  EXPECT_EQ(out.data[32], 2.0);
  EXPECT_EQ(out.data[64 + 40], 8.0);
  ASSERT_EQ(blockScaleDequantize(x, d, {32}, true, out), "");
  EXPECT_EQ(out.data[64], -4.0);
  NdArray small({2, 1});
  EXPECT_NE(blockScaleDequantize(x, small, {32}, false, out).find("descale"),
            std::string::npos);
}

NdArray ints(std::vector<double> v) {
  NdArray a({static_cast<int64_t>(v.size()), 1, 1});
  a.data = std::move(v);
  return a;
}

TEST(MoeGroupedMatmul, NoneModeExplicitAndImplicitOffsets) {
  NdArray tok = randomArray({1, 5, 3}, 9), w = randomArray({2, 3, 4}, 10);
  NdArray explicitOff = ints({0, 2, 5}), implicitOff = ints({0, 2});
  MoeGroupedMatmulInputs in;
  in.token = &tok;
  in.weight = &w;
  in.firstTokenOffset = &explicitOff;
  NdArray a, b;
  ASSERT_EQ(moeGroupedMatmul(in, MoeMode::None, 1, a), "");
  in.firstTokenOffset = &implicitOff;
  ASSERT_EQ(moeGroupedMatmul(in, MoeMode::None, 1, b), "");
  EXPECT_EQ(a.data, b.data);
  ASSERT_EQ(a.shape, (Shape{1, 5, 4}));
  // Row 3 belongs to expert 1.
  for (int64_t n = 0; n < 4; ++n) {
    double want = 0;
    for (int64_t c = 0; c < 3; ++c)
      want += tok.data[3 * 3 + c] * w.data[(1 * 3 + c) * 4 + n];
    EXPECT_NEAR(a.data[3 * 4 + n], want, 1e-14);
  }
  // B*E groups: group g uses expert g % E; rows past the final boundary
  // stay zero.
  NdArray batched = ints({0, 1, 2, 3, 4});
  in.firstTokenOffset = &batched;
  NdArray c;
  ASSERT_EQ(moeGroupedMatmul(in, MoeMode::None, 1, c), "");
  for (int64_t n = 0; n < 4; ++n) {
    double want = 0;
    for (int64_t k = 0; k < 3; ++k)
      want += tok.data[2 * 3 + k] * w.data[(0 * 3 + k) * 4 + n];
    EXPECT_NEAR(c.data[2 * 4 + n], want, 1e-14);
    EXPECT_EQ(c.data[4 * 4 + n], 0.0);
  }
  NdArray odd = ints({1, 2, 5});
  in.firstTokenOffset = &odd;
  EXPECT_NE(
      moeGroupedMatmul(in, MoeMode::None, 1, c).find("first_token_offset"),
      std::string::npos);
}

TEST(MoeGroupedMatmul, GatherAndScatter) {
  // S = 3 tokens, top_k = 2 -> R = 6 routed rows, E = 2.
  NdArray tok = randomArray({1, 3, 2}, 11), w = randomArray({2, 2, 3}, 12);
  NdArray index = ints({0, 2, 1, 0, 1, 2}), off = ints({0, 3, 6});
  MoeGroupedMatmulInputs in;
  in.token = &tok;
  in.weight = &w;
  in.firstTokenOffset = &off;
  in.tokenIndex = &index;
  NdArray g;
  ASSERT_EQ(moeGroupedMatmul(in, MoeMode::Gather, 1, g), "");
  ASSERT_EQ(g.shape, (Shape{1, 6, 3}));
  auto rowTimes = [&](int64_t src, int64_t expert, int64_t n) {
    double s = 0;
    for (int64_t k = 0; k < 2; ++k)
      s += tok.data[src * 2 + k] * w.data[(expert * 2 + k) * 3 + n];
    return s;
  };
  for (int64_t r = 0; r < 6; ++r)
    for (int64_t n = 0; n < 3; ++n)
      EXPECT_NEAR(g.data[r * 3 + n], rowTimes(index.data[r], r / 3, n), 1e-14);
  // Scatter the gathered rows back: destination token_index * top_k + ks.
  NdArray ks = ints({0, 0, 0, 1, 1, 1});
  NdArray routed({1, 6, 2});
  for (int64_t r = 0; r < 6; ++r)
    for (int64_t k = 0; k < 2; ++k)
      routed.data[r * 2 + k] = tok.data[int64_t(index.data[r]) * 2 + k];
  MoeGroupedMatmulInputs sc = in;
  sc.token = &routed;
  sc.tokenKs = &ks;
  NdArray s;
  ASSERT_EQ(moeGroupedMatmul(sc, MoeMode::Scatter, 2, s), "");
  for (int64_t r = 0; r < 6; ++r) {
    int64_t dst = int64_t(index.data[r]) * 2 + int64_t(ks.data[r]);
    for (int64_t n = 0; n < 3; ++n)
      EXPECT_NEAR(s.data[dst * 3 + n], g.data[r * 3 + n], 1e-14);
  }
  NdArray dupKs = ints({0, 0, 0, 0, 1, 1}); // row 3 collides with row 0
  sc.tokenKs = &dupKs;
  EXPECT_NE(moeGroupedMatmul(sc, MoeMode::Scatter, 2, s).find("twice"),
            std::string::npos);
  NdArray badIndex = ints({0, 2, 7, 0, 1, 2});
  in.tokenIndex = &badIndex;
  EXPECT_NE(moeGroupedMatmul(in, MoeMode::Gather, 1, g).find("token_index"),
            std::string::npos);
}

TEST(MoeGroupedMatmulBwd, AdjointOfForward) {
  // <moe(token, W), dO> == <W, dW> for every W (the forward is linear in W).
  NdArray tok = randomArray({1, 7, 3}, 13), w = randomArray({3, 3, 2}, 14);
  NdArray off = ints({0, 2, 2, 5, 6, 6, 7}); // B = 2, E = 3
  MoeGroupedMatmulInputs in;
  in.token = &tok;
  in.weight = &w;
  in.firstTokenOffset = &off;
  NdArray out;
  ASSERT_EQ(moeGroupedMatmul(in, MoeMode::None, 1, out), "");
  NdArray dO = randomArray(out.shape, 15), dW;
  ASSERT_EQ(moeGroupedMatmulBwd(dO, tok, off, 3, dW), "");
  ASSERT_EQ(dW.shape, (Shape{3, 3, 2}));
  double lhs = 0, rhs = 0;
  for (int64_t i = 0; i < out.size(); ++i)
    lhs += out.data[i] * dO.data[i];
  for (int64_t i = 0; i < w.size(); ++i)
    rhs += w.data[i] * dW.data[i];
  EXPECT_NEAR(lhs, rhs, 1e-12);
  NdArray dOBad({1, 6, 2});
  EXPECT_NE(moeGroupedMatmulBwd(dOBad, tok, off, 3, dW).find("doutput"),
            std::string::npos);
}

} // namespace
