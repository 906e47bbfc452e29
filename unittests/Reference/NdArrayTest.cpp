//===- NdArrayTest.cpp - dtype codecs and strided load/store ------------===//

#include "GraphDialect/Reference/NdArray.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

using namespace graph;
using namespace graph::ref;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

uint32_t bitsOf(DType type, double value, bool saturate = false) {
  unsigned char buf[8] = {};
  if (saturate)
    encodeSaturating(type, value, buf);
  else
    encode(type, value, buf);
  uint32_t bits = 0;
  std::memcpy(&bits, buf, byteWidth(type) > 4 ? 4 : byteWidth(type));
  return bits;
}

double valueOf(DType type, uint32_t bits) {
  unsigned char buf[8] = {};
  std::memcpy(buf, &bits, byteWidth(type) > 4 ? 4 : byteWidth(type));
  return decode(type, buf);
}

TEST(DType, NamesRoundTrip) {
  for (DType t : {DType::F32, DType::F16, DType::BF16, DType::F64, DType::I8,
                  DType::U8, DType::I32, DType::I64, DType::I1, DType::F8E4M3FN,
                  DType::F8E5M2, DType::F8E8M0FNU, DType::F4E2M1FN}) {
    DType parsed;
    ASSERT_TRUE(parseDType(dtypeName(t), parsed)) << dtypeName(t);
    EXPECT_EQ(parsed, t);
  }
  DType unused;
  EXPECT_FALSE(parseDType("f7", unused));
  EXPECT_EQ(byteWidth(DType::BF16), 2u);
  EXPECT_EQ(byteWidth(DType::I64), 8u);
  EXPECT_EQ(byteWidth(DType::F4E2M1FN), 1u);
  EXPECT_TRUE(isFloat(DType::F8E8M0FNU));
  EXPECT_FALSE(isFloat(DType::I1));
}

TEST(DType, F32) {
  EXPECT_EQ(roundTo(DType::F32, 1.0 / 3.0), static_cast<float>(1.0 / 3.0));
  EXPECT_EQ(roundTo(DType::F32, 1e39), kInf);
  EXPECT_EQ(roundToSaturating(DType::F32, 1e39),
            std::numeric_limits<float>::max());
  EXPECT_EQ(bitsOf(DType::F32, 1.0), 0x3F800000u);
  // Ties to even: 1 + 2^-24 sits between 1 and 1 + 2^-23.
  EXPECT_EQ(roundTo(DType::F32, 1.0 + std::ldexp(1.0, -24)), 1.0);
}

TEST(DType, F16) {
  EXPECT_EQ(bitsOf(DType::F16, 1.0), 0x3C00u);
  EXPECT_EQ(bitsOf(DType::F16, -2.0), 0xC000u);
  EXPECT_EQ(bitsOf(DType::F16, 65504.0), 0x7BFFu);
  EXPECT_EQ(bitsOf(DType::F16, 65519.0), 0x7BFFu);
  EXPECT_EQ(bitsOf(DType::F16, 65520.0), 0x7C00u); // tie goes to inf (even)
  EXPECT_EQ(bitsOf(DType::F16, -kInf), 0xFC00u);
  EXPECT_EQ(bitsOf(DType::F16, 65520.0, true), 0x7BFFu);
  EXPECT_EQ(bitsOf(DType::F16, kNaN), 0x7E00u);
  EXPECT_EQ(bitsOf(DType::F16, -0.0), 0x8000u);
  // Subnormals: min 2^-24; 2^-25 is a tie with 0 -> 0; 1.5 * 2^-25 -> min.
  EXPECT_EQ(bitsOf(DType::F16, std::ldexp(1.0, -24)), 0x0001u);
  EXPECT_EQ(bitsOf(DType::F16, std::ldexp(1.0, -25)), 0x0000u);
  EXPECT_EQ(bitsOf(DType::F16, std::ldexp(1.5, -25)), 0x0001u);
  EXPECT_EQ(bitsOf(DType::F16, std::ldexp(3.0, -25)), 0x0002u); // tie -> even
  EXPECT_EQ(bitsOf(DType::F16, std::ldexp(1.0, -14)), 0x0400u); // min normal
  // Ties to even in the normal range.
  EXPECT_EQ(bitsOf(DType::F16, 1.0 + std::ldexp(1.0, -11)), 0x3C00u);
  EXPECT_EQ(bitsOf(DType::F16, 1.0 + std::ldexp(3.0, -11)), 0x3C02u);
  EXPECT_EQ(valueOf(DType::F16, 0x3555), 0.333251953125);
  EXPECT_TRUE(std::isnan(valueOf(DType::F16, 0x7C01)));
  EXPECT_EQ(valueOf(DType::F16, 0xFC00), -kInf);
  EXPECT_EQ(dtypeMaxFinite(DType::F16), 65504.0);
}

TEST(DType, BF16) {
  EXPECT_EQ(bitsOf(DType::BF16, 1.0), 0x3F80u);
  EXPECT_EQ(bitsOf(DType::BF16, 1.0 + std::ldexp(1.0, -8)), 0x3F80u); // tie
  EXPECT_EQ(bitsOf(DType::BF16, 1.0 + std::ldexp(3.0, -8)), 0x3F82u);
  // One rounding from double: via float this would tie and go down.
  EXPECT_EQ(
      bitsOf(DType::BF16, 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30)),
      0x3F81u);
  EXPECT_EQ(valueOf(DType::BF16, 0x7F7F), dtypeMaxFinite(DType::BF16));
  EXPECT_EQ(bitsOf(DType::BF16, 1e39), 0x7F80u);
  EXPECT_EQ(bitsOf(DType::BF16, kNaN), 0x7FC0u);
  EXPECT_EQ(bitsOf(DType::BF16, std::ldexp(1.0, -133)), 0x0001u); // subnormal
}

TEST(DType, F8E4M3FN) {
  DType t = DType::F8E4M3FN;
  EXPECT_EQ(dtypeMaxFinite(t), 448.0);
  EXPECT_EQ(bitsOf(t, 1.0), 0x38u);
  EXPECT_EQ(bitsOf(t, 448.0), 0x7Eu);
  EXPECT_EQ(bitsOf(t, 464.0), 0x7Eu); // tie between 448 and (NaN slot) 480
  EXPECT_EQ(bitsOf(t, 465.0), 0x7Fu); // rounds past max: NaN (no inf)
  EXPECT_EQ(bitsOf(t, -500.0), 0xFFu);
  EXPECT_EQ(bitsOf(t, kInf), 0x7Fu);
  EXPECT_EQ(bitsOf(t, kNaN), 0x7Fu);
  EXPECT_EQ(bitsOf(t, 1000.0, true), 0x7Eu);
  EXPECT_EQ(bitsOf(t, -kInf, true), 0xFEu);
  EXPECT_EQ(roundToSaturating(t, 1e9), 448.0);
  EXPECT_EQ(bitsOf(t, std::ldexp(1.0, -9)), 0x01u);  // min subnormal
  EXPECT_EQ(bitsOf(t, std::ldexp(1.0, -10)), 0x00u); // tie -> 0
  EXPECT_EQ(bitsOf(t, std::ldexp(1.5, -10)), 0x01u);
  EXPECT_EQ(bitsOf(t, -0.0), 0x80u);
  EXPECT_EQ(valueOf(t, 0x08), std::ldexp(1.0, -6)); // min normal
  EXPECT_TRUE(std::isnan(valueOf(t, 0x7F)));
  EXPECT_TRUE(std::isnan(valueOf(t, 0xFF)));
  EXPECT_EQ(valueOf(t, 0x77), 240.0); // exponent field 14 is a normal binade
  EXPECT_EQ(roundTo(t, 0.3), 0.3125);
}

TEST(DType, F8E5M2) {
  DType t = DType::F8E5M2;
  EXPECT_EQ(dtypeMaxFinite(t), 57344.0);
  EXPECT_EQ(bitsOf(t, 1.0), 0x3Cu);
  EXPECT_EQ(bitsOf(t, 57344.0), 0x7Bu);
  EXPECT_EQ(bitsOf(t, 61439.0), 0x7Bu);
  EXPECT_EQ(bitsOf(t, 61440.0), 0x7Cu); // tie -> inf
  EXPECT_EQ(bitsOf(t, 61440.0, true), 0x7Bu);
  EXPECT_EQ(bitsOf(t, -kInf), 0xFCu);
  EXPECT_EQ(bitsOf(t, kNaN), 0x7Eu);
  EXPECT_EQ(bitsOf(t, std::ldexp(1.0, -16)), 0x01u);
  EXPECT_EQ(valueOf(t, 0x7C), kInf);
  EXPECT_TRUE(std::isnan(valueOf(t, 0x7D)));
}

TEST(DType, F8E8M0FNU) {
  DType t = DType::F8E8M0FNU;
  EXPECT_EQ(bitsOf(t, 1.0), 0x7Fu);
  EXPECT_EQ(bitsOf(t, 2.0), 0x80u);
  EXPECT_EQ(bitsOf(t, 1.4), 0x7Fu);
  EXPECT_EQ(bitsOf(t, 1.6), 0x80u);
  // Ties go to the even biased exponent: 1.5 -> 2 (127 -> 128), 3 -> 2
  // (128 stays), 6 -> 8 (129 -> 130).
  EXPECT_EQ(bitsOf(t, 1.5), 0x80u);
  EXPECT_EQ(bitsOf(t, 3.0), 0x80u);
  EXPECT_EQ(bitsOf(t, 6.0), 0x82u);
  EXPECT_EQ(bitsOf(t, 0.0), 0x00u); // no zero: smallest
  EXPECT_EQ(bitsOf(t, -1.0), 0xFFu);
  EXPECT_EQ(bitsOf(t, kNaN), 0xFFu);
  EXPECT_EQ(bitsOf(t, kInf), 0xFFu);
  EXPECT_EQ(bitsOf(t, std::ldexp(1.0, 127)), 0xFEu);
  EXPECT_EQ(bitsOf(t, std::ldexp(1.0, 128)), 0xFFu);
  EXPECT_EQ(bitsOf(t, std::ldexp(1.0, 128), true), 0xFEu);
  EXPECT_EQ(bitsOf(t, std::ldexp(1.0, -130)), 0x00u);
  EXPECT_EQ(valueOf(t, 0x00), std::ldexp(1.0, -127));
  EXPECT_EQ(valueOf(t, 0x85), 64.0);
  EXPECT_TRUE(std::isnan(valueOf(t, 0xFF)));
}

TEST(DType, F4E2M1FN) {
  DType t = DType::F4E2M1FN;
  const double grid[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  for (uint32_t b = 0; b < 8; ++b) {
    EXPECT_EQ(valueOf(t, b), grid[b]);
    EXPECT_EQ(valueOf(t, b | 8), -grid[b]);
    EXPECT_EQ(bitsOf(t, grid[b]), b);
  }
  EXPECT_EQ(valueOf(t, 0xF3), 1.5); // high nibble ignored
  EXPECT_EQ(bitsOf(t, 0.25), 0x0u); // ties to even mantissa
  EXPECT_EQ(bitsOf(t, 0.75), 0x2u);
  EXPECT_EQ(bitsOf(t, 1.25), 0x2u);
  EXPECT_EQ(bitsOf(t, 1.75), 0x4u);
  EXPECT_EQ(bitsOf(t, 2.5), 0x4u);
  EXPECT_EQ(bitsOf(t, 3.5), 0x6u);
  EXPECT_EQ(bitsOf(t, 5.0), 0x6u);
  EXPECT_EQ(bitsOf(t, 5.5), 0x7u);
  EXPECT_EQ(bitsOf(t, 100.0), 0x7u); // saturates
  EXPECT_EQ(bitsOf(t, -kInf), 0xFu);
  EXPECT_EQ(bitsOf(t, kNaN), 0x7u);
  EXPECT_EQ(bitsOf(t, -0.25), 0x8u);
  EXPECT_EQ(dtypeMaxFinite(t), 6.0);
}

TEST(DType, Integers) {
  EXPECT_EQ(roundTo(DType::I8, 2.5), 2.0);
  EXPECT_EQ(roundTo(DType::I8, 3.5), 4.0);
  EXPECT_EQ(roundTo(DType::I8, -2.5), -2.0);
  EXPECT_EQ(roundTo(DType::I8, 127.5), 127.0);
  EXPECT_EQ(roundTo(DType::I8, -200.0), -128.0);
  EXPECT_EQ(roundTo(DType::I8, kNaN), 0.0);
  EXPECT_EQ(roundTo(DType::U8, -1.0), 0.0);
  EXPECT_EQ(roundTo(DType::U8, 255.4), 255.0);
  EXPECT_EQ(roundTo(DType::U8, 300.0), 255.0);
  EXPECT_EQ(roundTo(DType::I32, 3e9), 2147483647.0);
  EXPECT_EQ(roundTo(DType::I32, -3e9), -2147483648.0);
  EXPECT_EQ(roundTo(DType::I64, 1e19), 9223372036854775807.0);
  EXPECT_EQ(roundTo(DType::I64, -1e19), -9223372036854775808.0);
  int64_t big = 0;
  encode(DType::I64, 1e19, &big);
  EXPECT_EQ(big, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(roundTo(DType::I1, 0.5), 1.0);
  EXPECT_EQ(roundTo(DType::I1, 0.0), 0.0);
  EXPECT_EQ(roundTo(DType::I1, -3.0), 1.0);
  EXPECT_EQ(roundTo(DType::F64, 0.1), 0.1);
}

/// Every code of the small formats decodes and re-encodes to itself (NaN
/// codes to the canonical NaN).
TEST(DType, ExhaustiveRoundTrip) {
  for (DType t : {DType::F8E4M3FN, DType::F8E5M2, DType::F8E8M0FNU,
                  DType::F4E2M1FN, DType::F16, DType::BF16}) {
    uint32_t codes = t == DType::F4E2M1FN ? 16
                     : byteWidth(t) == 2  ? 65536
                                          : 256;
    for (uint32_t b = 0; b < codes; ++b) {
      double v = valueOf(t, b);
      if (std::isnan(v)) {
        EXPECT_TRUE(std::isnan(valueOf(t, bitsOf(t, v)))) << dtypeName(t);
        continue;
      }
      ASSERT_EQ(bitsOf(t, v), b) << dtypeName(t) << " code " << b;
      EXPECT_EQ(roundTo(t, v), v);
    }
  }
}

TEST(Layout, RowMajorStrides) {
  EXPECT_EQ(rowMajorStrides({2, 3, 4}), (Shape{12, 4, 1}));
  EXPECT_EQ(rowMajorStrides({}), Shape{});
  EXPECT_EQ(numElements({2, 0, 3}), 0);
  EXPECT_EQ(numElements({}), 1);
  EXPECT_EQ(spanElements({2, 3}, {1, 2}), 6);
  EXPECT_EQ(spanElements({2, 3}, {}), 6);
  EXPECT_EQ(spanElements({2, 0}, {}), 0);
  std::string error;
  EXPECT_FALSE(checkLayout({2, 3}, {1}, &error));
  EXPECT_NE(error.find("rank"), std::string::npos);
  EXPECT_FALSE(checkLayout({2, 3}, {1, -1}, &error));
  EXPECT_TRUE(checkLayout({2, 3}, {0, 7}, &error));
}

TEST(Layout, StridedLoadStore) {
  // A column-major [2, 3] float buffer: element (i, j) at i + 2 j.
  float colMajor[6] = {0, 10, 1, 11, 2, 12};
  NdArray a = load(colMajor, DType::F32, {2, 3}, {1, 2});
  EXPECT_EQ(a.data, (std::vector<double>{0, 1, 2, 10, 11, 12}));
  // Stride 0 broadcasts; size-1 dims may have any stride.
  float one[1] = {7};
  NdArray b = load(one, DType::F32, {3, 1}, {0, 12345});
  EXPECT_EQ(b.data, (std::vector<double>{7, 7, 7}));
  // Store into a padded, transposed f16 buffer and read it back.
  NdArray src({2, 3});
  for (int i = 0; i < 6; ++i)
    src.data[i] = i + 0.25;
  uint16_t buffer[16];
  std::fill(std::begin(buffer), std::end(buffer), 0xFFFF);
  store(src, DType::F16, {1, 5}, buffer); // (i, j) at i + 5 j
  EXPECT_EQ(buffer[2], 0xFFFF);           // gap untouched
  NdArray back = load(buffer, DType::F16, {2, 3}, {1, 5});
  EXPECT_EQ(back.data, src.data);
  // Empty strides mean row-major; e8m0 and fp4 go through the same path.
  uint8_t scales[4];
  NdArray pow2({4});
  pow2.data = {1, 0.5, 1024, 3};
  store(pow2, DType::F8E8M0FNU, {}, scales);
  EXPECT_EQ(load(scales, DType::F8E8M0FNU, {4}, {}).data,
            (std::vector<double>{1, 0.5, 1024, 2}));
  // Rank 0: one element.
  double scalar = 3.5;
  EXPECT_EQ(load(&scalar, DType::F64, {}, {}).data, (std::vector<double>{3.5}));
}

TEST(Layout, RoundInPlace) {
  NdArray a({3});
  a.data = {1.0 / 3.0, 1000.0, -0.1};
  roundInPlace(a, DType::F8E4M3FN);
  EXPECT_EQ(a.data[0], 0.34375);
  EXPECT_TRUE(std::isnan(a.data[1]));
  EXPECT_EQ(a.data[2], -0.1015625);
}

} // namespace
