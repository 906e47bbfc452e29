//===- CheckedMathTest.cpp - overflow-checked size arithmetic -------------===//
//
// Dims near 2^62 must never wrap: the helpers of CheckedMath.h say nullopt,
// and the reference's size functions saturate and reject such layouts.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Support/CheckedMath.h"
#include "GraphDialect/Support/Shape.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace {

constexpr int64_t k62 = int64_t(1) << 62;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST(CheckedMath, MulAndAdd) {
  EXPECT_EQ(graph::checkedMul(3, 4), 12);
  EXPECT_EQ(graph::checkedMul(k62, 1), k62);
  EXPECT_FALSE(graph::checkedMul(k62, 2).has_value());
  EXPECT_FALSE(graph::checkedMul(k62 + 16, 4).has_value()); // wrapped to 64
  EXPECT_EQ(graph::checkedAdd(kMax - 1, 1), kMax);
  EXPECT_FALSE(graph::checkedAdd(k62, k62).has_value()); // was INT64_MIN
}

TEST(CheckedMath, ElementCount) {
  EXPECT_EQ(graph::checkedElementCount(std::vector<int64_t>{}), 1);
  EXPECT_EQ(graph::checkedElementCount(std::vector<int64_t>{4, 16}), 64);
  EXPECT_FALSE(graph::checkedElementCount(std::vector<int64_t>{k62 + 16, 4})
                   .has_value());
  EXPECT_FALSE(graph::checkedElementCount(
                   std::vector<int64_t>{int64_t(1) << 32, int64_t(1) << 32})
                   .has_value());
  // A zero dim makes the count 0 however large the others are.
  EXPECT_EQ(graph::checkedElementCount(std::vector<int64_t>{k62, 0, k62}), 0);
  // A negative (dynamic) dim has no count.
  EXPECT_FALSE(graph::checkedElementCount(std::vector<int64_t>{-1, 4}));
}

TEST(CheckedMath, ByteSize) {
  EXPECT_EQ(graph::checkedByteSize(10, 32), 40);
  EXPECT_EQ(graph::checkedByteSize(10, 4), 10); // f4 unpacked, one per byte
  EXPECT_EQ(graph::checkedByteSize(10, 1), 10); // i1 as one byte
  EXPECT_FALSE(graph::checkedByteSize(k62, 32).has_value());
  EXPECT_EQ(graph::checkedByteSize(k62, 8), k62);
}

TEST(CheckedMath, StridesAndSpan) {
  auto strides = graph::checkedRowMajorStrides(std::vector<int64_t>{2, 3, 4});
  ASSERT_TRUE(strides.has_value());
  EXPECT_EQ(*strides, (std::vector<int64_t>{12, 4, 1}));
  // 4 x 2^62 x 4: the outer stride 2^64 wrapped to 0.
  EXPECT_FALSE(graph::checkedRowMajorStrides(std::vector<int64_t>{4, k62, 4})
                   .has_value());
  // The outermost dim is never multiplied in.
  EXPECT_TRUE(
      graph::checkedRowMajorStrides(std::vector<int64_t>{k62, 1}).has_value());
  EXPECT_EQ(graph::checkedSpan(std::vector<int64_t>{2, 3},
                               std::vector<int64_t>{8, 1}),
            11);
  EXPECT_EQ(graph::checkedSpan(std::vector<int64_t>{0, 3},
                               std::vector<int64_t>{k62, 1}),
            0);
  EXPECT_FALSE(graph::checkedSpan(std::vector<int64_t>{4, 4},
                                  std::vector<int64_t>{k62, 1})
                   .has_value());
}

TEST(CheckedMath, ShapeSizesSaturate) {
  using namespace graph;
  EXPECT_EQ(numElements({4, k62, 4}), kMax);
  EXPECT_EQ(numElements({4, 0, k62}), 0);
  EXPECT_EQ(rowMajorStrides({4, k62, 4}).front(), kMax);
  EXPECT_EQ(spanElements({4, 4}, {k62, 1}), kMax);
  std::string error;
  EXPECT_FALSE(checkLayout({int64_t(1) << 32, int64_t(1) << 32}, {}, &error));
  EXPECT_NE(error.find("more than 2^63 - 1 elements"), std::string::npos)
      << error;
  EXPECT_FALSE(checkLayout({4, 4}, {k62, 1}, &error));
  EXPECT_TRUE(checkLayout({4, 4}, {8, 1}, &error));
}

} // namespace
