//===- ShapeTest.cpp - Strides, spans and broadcasting --------------------===//

#include "GraphDialect/Support/Shape.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

using namespace graph;

namespace {

TEST(Shape, CountsAndPackedStrides) {
  EXPECT_EQ(numElements({2, 3, 4}), 24);
  EXPECT_EQ(numElements({}), 1);
  EXPECT_EQ(numElements({2, 0, 4}), 0);
  EXPECT_EQ(rowMajorStrides({2, 3, 4}), (Shape{12, 4, 1}));
  EXPECT_EQ(spanElements({2, 3}, {1, 2}), 6);
  EXPECT_EQ(spanElements({2, 0}, {}), 0);
}

TEST(Shape, BroadcastsTo) {
  EXPECT_TRUE(broadcastsTo(Shape{1, 5}, Shape{4, 5}));
  EXPECT_TRUE(broadcastsTo(Shape{5}, Shape{3, 4, 5}));
  EXPECT_TRUE(broadcastsTo(Shape{}, Shape{3}));
  EXPECT_FALSE(broadcastsTo(Shape{4, 5}, Shape{5}));
  EXPECT_FALSE(broadcastsTo(Shape{2, 5}, Shape{4, 5}));
  // Broadcasting goes one way: the target's 1 does not stretch.
  EXPECT_FALSE(broadcastsTo(Shape{4, 5}, Shape{1, 5}));
  // A dynamic dim on either side matches.
  EXPECT_TRUE(broadcastsTo(Shape{kDynamicDim, 5}, Shape{4, 5}));
  EXPECT_TRUE(broadcastsTo(Shape{3, 5}, Shape{kDynamicDim, 5}));
  // Any container with data() and size().
  std::vector<int64_t> from = {1, 3}, to = {2, 3};
  EXPECT_TRUE(broadcastsTo(from, to));
  EXPECT_TRUE(broadcastsTo(DimsRef(from.data(), 1), DimsRef(to.data(), 1)));
}

TEST(Shape, BroadcastShapesAndStrides) {
  Shape out;
  ASSERT_TRUE(broadcastShapes({3, 1, 5}, {4, 1}, out));
  EXPECT_EQ(out, (Shape{3, 4, 5}));
  EXPECT_FALSE(broadcastShapes({3}, {4}, out));
  EXPECT_EQ(broadcastStrides({4, 1}, {3, 4, 5}), (Shape{0, 1, 0}));
}

TEST(Shape, Text) {
  EXPECT_EQ(shapeString({2, 3}), "[2, 3]");
  EXPECT_EQ(shapeString({}), "[]");
  EXPECT_EQ(dimsText({2, kDynamicDim, 4}), "2x?x4");
  EXPECT_EQ(dimsText({}), "");
}

} // namespace
