//===- CompareTest.cpp - Result comparison --------------------------------===//
//
// compare() splits long arrays into blocks compared in parallel: its answer
// (first bad element, largest difference, normwise error) must be the one a
// single pass in index order gives, at any length.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Support/Compare.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace graph;

namespace {

std::vector<uint8_t> floats(const std::vector<float> &values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  for (size_t i = 0; i < values.size(); ++i)
    encode(DType::F32, values[i], &bytes[i * sizeof(float)]);
  return bytes;
}

// Lengths across the block size (65536 elements): one block, a block and a
// tail, several blocks.
const int64_t kLengths[] = {5, 65536, 65537, 300001};

TEST(Compare, EqualArraysPass) {
  for (int64_t n : kLengths) {
    std::vector<float> v(n);
    for (int64_t i = 0; i < n; ++i)
      v[i] = std::sin(0.001f * i);
    Comparison c = compare(floats(v), floats(v), DType::F32, n, 1e-5, 1e-5);
    EXPECT_TRUE(c.ok) << n;
    EXPECT_EQ(c.firstBad, -1) << n;
    EXPECT_EQ(c.maxAbsDiff, 0.0) << n;
    EXPECT_EQ(c.relativeError, 0.0) << n;
  }
}

TEST(Compare, FirstBadElementIsTheLowestIndex) {
  for (int64_t n : kLengths) {
    std::vector<float> want(n, 1.0f), got(n, 1.0f);
    // Bad elements late in the array and in a later block than the first.
    int64_t first = n / 2, later = n - 1;
    got[later] = 3.0f;
    got[first] = 2.0f;
    Comparison c = compare(floats(got), floats(want), DType::F32, n, 1e-5, 0);
    ASSERT_FALSE(c.ok) << n;
    EXPECT_EQ(c.firstBad, first == later ? later : first) << n;
    EXPECT_EQ(c.got, first == later ? 3.0 : 2.0) << n;
    EXPECT_EQ(c.want, 1.0) << n;
    EXPECT_EQ(c.maxAbsDiff, 2.0) << n;
  }
}

TEST(Compare, NormwiseNamesTheFirstLargestDifference) {
  const int64_t n = 300001;
  std::vector<float> want(n), got(n);
  double diffSquares = 0, wantSquares = 0;
  for (int64_t i = 0; i < n; ++i) {
    want[i] = 1.0f + 0.5f * std::cos(0.01f * i);
    got[i] = want[i] + (i % 7 == 0 ? 1e-3f : 0.0f);
  }
  // The largest difference twice, in different blocks: the first is named.
  got[70000] = want[70000] + 0.25f;
  got[250000] = want[250000] + 0.25f;
  for (int64_t i = 0; i < n; ++i) {
    double d = double(got[i]) - double(want[i]);
    diffSquares += d * d;
    wantSquares += double(want[i]) * want[i];
  }
  Comparison loose =
      compare(floats(got), floats(want), DType::F32, n, 1e-2, 1e-2, true);
  EXPECT_TRUE(loose.ok);
  EXPECT_NEAR(loose.relativeError, std::sqrt(diffSquares / wantSquares),
              1e-9 * std::sqrt(diffSquares / wantSquares));
  Comparison tight =
      compare(floats(got), floats(want), DType::F32, n, 1e-5, 1e-5, true);
  ASSERT_FALSE(tight.ok);
  EXPECT_EQ(tight.firstBad, 70000);
  EXPECT_NEAR(tight.maxAbsDiff, 0.25, 1e-6);
}

TEST(Compare, NanMatchesOnlyNan) {
  const int64_t n = 200000;
  std::vector<float> want(n, 0.5f), got(n, 0.5f);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  want[10] = got[10] = nan; // both NaN: the same
  got[150000] = nan;        // one NaN: bad
  Comparison c = compare(floats(got), floats(want), DType::F32, n, 1e-5, 0);
  ASSERT_FALSE(c.ok);
  EXPECT_EQ(c.firstBad, 150000);
  EXPECT_TRUE(std::isnan(c.got));
}

} // namespace
