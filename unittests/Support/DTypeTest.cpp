//===- DTypeTest.cpp - The element type table -----------------------------===//

#include "GraphDialect/Support/DType.h"
#include "GraphDialect/Support/Npy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include <set>
#include <string>

using namespace graph;

namespace {

TEST(DType, TableCoversEveryValueOnce) {
  std::set<std::string> names;
  for (int i = 0; i < kNumDTypes; ++i) {
    DType type;
    ASSERT_TRUE(dtypeFromInt(i, type));
    EXPECT_EQ(static_cast<int>(type), i);
    EXPECT_EQ(dtypeInfo(type).type, type);
    EXPECT_TRUE(names.insert(dtypeName(type)).second) << dtypeName(type);
    DType parsed;
    ASSERT_TRUE(parseDType(dtypeName(type), parsed)) << dtypeName(type);
    EXPECT_EQ(parsed, type);
  }
  DType unused;
  EXPECT_FALSE(dtypeFromInt(-1, unused));
  EXPECT_FALSE(dtypeFromInt(kNumDTypes, unused));
  EXPECT_FALSE(dtypeFromInt(99, unused));
}

TEST(DType, NamesSizesAndClasses) {
  EXPECT_STREQ(dtypeName(DType::U8), "ui8");
  EXPECT_STREQ(dtypeName(DType::F8E4M3FN), "f8E4M3FN");
  DType parsed;
  ASSERT_TRUE(parseDType("u8", parsed));
  EXPECT_EQ(parsed, DType::U8);
  EXPECT_FALSE(parseDType("f128", parsed));
  EXPECT_EQ(byteWidth(DType::F64), 8u);
  EXPECT_EQ(byteWidth(DType::BF16), 2u);
  EXPECT_EQ(byteWidth(DType::I32), 4u);
  EXPECT_EQ(byteWidth(DType::F4E2M1FN), 1u);
  EXPECT_TRUE(isFloat(DType::F8E8M0FNU));
  EXPECT_FALSE(isFloat(DType::I1));
  EXPECT_FALSE(isFloat(DType::U8));
  EXPECT_STREQ(npyDescr(DType::BF16), "<u2");
  EXPECT_STREQ(npyDescr(DType::I1), "|b1");
  EXPECT_STREQ(npyDescr(DType::F4E2M1FN), "|u1");
}

TEST(DType, RoundTripThroughBytes) {
  unsigned char bytes[8] = {};
  encode(DType::BF16, 1.0, bytes);
  EXPECT_EQ(bytes[0], 0x80);
  EXPECT_EQ(bytes[1], 0x3F);
  EXPECT_EQ(decode(DType::BF16, bytes), 1.0);
  EXPECT_EQ(roundTo(DType::F8E4M3FN, 1000.0) !=
                roundTo(DType::F8E4M3FN, 1000.0),
            true); // NaN: e4m3fn has no inf
  EXPECT_EQ(roundToSaturating(DType::F8E4M3FN, 1000.0), 448.0);
  EXPECT_EQ(dtypeMaxFinite(DType::F4E2M1FN), 6.0);
}

// decode() of every f16 and bf16 pattern against the compiler's own
// conversions (bf16 is the top half of an f32); NaNs keep their sign.
TEST(DType, SixteenBitDecodeMatchesHardwareConversions) {
  auto same = [](double got, double want) {
    if (std::isnan(want))
      return std::isnan(got) && std::signbit(got) == std::signbit(want);
    return got == want && std::signbit(got) == std::signbit(want);
  };
  for (uint32_t bits = 0; bits < 65536; ++bits) {
    uint8_t bytes[2] = {static_cast<uint8_t>(bits),
                        static_cast<uint8_t>(bits >> 8)};
    uint32_t wide = bits << 16;
    float asF32;
    std::memcpy(&asF32, &wide, sizeof(asF32));
    ASSERT_TRUE(same(decode(DType::BF16, bytes), asF32)) << "bf16 " << bits;
#ifdef __FLT16_MAX__
    uint16_t narrow = static_cast<uint16_t>(bits);
    _Float16 half;
    std::memcpy(&half, &narrow, sizeof(half));
    ASSERT_TRUE(same(decode(DType::F16, bytes), static_cast<double>(half)))
        << "f16 " << bits;
#endif
  }
  EXPECT_EQ(decodeTable(DType::F32), nullptr);
  EXPECT_EQ(decodeTable(DType::F16)[0x3C00], 1.0);
#ifndef __FLT16_MAX__
  GTEST_SKIP() << "f16 unchecked: this compiler has no _Float16";
#endif
}

// encode() rounds to nearest, ties to even, from the double's bits in the
// normal range: between every two neighbouring positive values of each
// float format, the exact midpoint goes to the one with the even last bit
// and the doubles just around it to the nearer one; f16 also against the
// compiler's own double -> _Float16 conversion.
TEST(DType, EncodeRoundsToNearestEvenBetweenNeighbours) {
  for (DType type : {DType::F16, DType::BF16, DType::F8E4M3FN, DType::F8E5M2,
                     DType::F4E2M1FN}) {
    size_t width = byteWidth(type);
    uint32_t positives =
        width == 2 ? 0x7FFF : (type == DType::F4E2M1FN ? 7 : 0x7F);
    auto bitsOf = [&](double value) {
      uint8_t bytes[2] = {0, 0};
      encode(type, value, bytes);
      return uint32_t(bytes[0]) | uint32_t(bytes[1]) << 8;
    };
    auto valueOf = [&](uint32_t bits) {
      uint8_t bytes[2] = {static_cast<uint8_t>(bits),
                          static_cast<uint8_t>(bits >> 8)};
      return decode(type, bytes);
    };
    for (uint32_t low = 0; low < positives; ++low) {
      double a = valueOf(low), b = valueOf(low + 1);
      if (!std::isfinite(a) || !std::isfinite(b))
        continue;
      double mid = (a + b) / 2; // exact: a few significant bits each
      uint32_t even = (low & 1) ? low + 1 : low;
      ASSERT_EQ(bitsOf(mid), even) << dtypeName(type) << " " << mid;
      ASSERT_EQ(bitsOf(-mid),
                even | (width == 2 ? 0x8000u
                                   : (type == DType::F4E2M1FN ? 0x8u : 0x80u)))
          << dtypeName(type) << " " << -mid;
      ASSERT_EQ(bitsOf(std::nextafter(mid, 0.0)), low) << dtypeName(type);
      ASSERT_EQ(bitsOf(std::nextafter(mid, 1e300)), low + 1) << dtypeName(type);
      ASSERT_EQ(bitsOf(a), low) << dtypeName(type);
    }
  }
#ifdef __FLT16_MAX__
  uint64_t state = 12345;
  for (int i = 0; i < 200000; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    double value = std::ldexp(static_cast<double>(state >> 11) * 0x1.0p-53,
                              static_cast<int>(state % 48) - 30);
    if (state & 1)
      value = -value;
    _Float16 half = static_cast<_Float16>(value);
    uint16_t want;
    std::memcpy(&want, &half, sizeof(want));
    uint8_t bytes[2];
    encode(DType::F16, value, bytes);
    ASSERT_EQ(uint16_t(bytes[0] | bytes[1] << 8), want) << value;
  }
#endif
}

} // namespace
