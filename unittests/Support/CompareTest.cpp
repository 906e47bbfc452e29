//===- CompareTest.cpp - Result comparison --------------------------------===//
//
// compare() splits long arrays into blocks compared in parallel: its answer
// (first bad element, largest difference, normwise error) must be the one a
// single pass in index order gives, at any length.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Support/Compare.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstring>
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

// Long arrays of one- and two-byte types are decoded through a table of
// every bit pattern: the sums, the largest difference and the elements named
// are those of decode() element by element (every bit pattern against its
// neighbour's).
TEST(Compare, OneAndTwoByteTypesDecodeAsDecodeDoes) {
  for (DType dtype :
       {DType::BF16, DType::F16, DType::F8E4M3FN, DType::F8E5M2,
        DType::F8E8M0FNU, DType::F4E2M1FN, DType::I8, DType::U8, DType::I1}) {
    size_t width = byteWidth(dtype);
    int64_t patterns = int64_t(1) << (8 * width);
    int64_t n = std::max<int64_t>(patterns, 3 * 65536 + 7);
    auto pattern = [&](int64_t i, bool finiteOnly, uint8_t *out) {
      for (size_t b = 0; b < width; ++b)
        out[b] = static_cast<uint8_t>((i % patterns) >> (8 * b));
      if (finiteOnly && !std::isfinite(decode(dtype, out)))
        std::memset(out, 0, width);
    };
    for (bool finiteOnly : {true, false}) {
      std::vector<uint8_t> want(n * width), got(n * width);
      double diffSquares = 0, wantSquares = 0, maxAbsDiff = -1;
      int64_t worst = -1, firstDifferent = -1;
      for (int64_t i = 0; i < n; ++i) {
        pattern(i, finiteOnly, &want[i * width]);
        pattern(i + 1, finiteOnly, &got[i * width]);
        double w = decode(dtype, &want[i * width]);
        double g = decode(dtype, &got[i * width]);
        bool same = std::isnan(w) || std::isnan(g)
                        ? std::isnan(w) && std::isnan(g)
                        : (std::isinf(w) || std::isinf(g) ? w == g : g == w);
        if (!same && firstDifferent < 0)
          firstDifferent = i;
        if (!std::isfinite(w) || !std::isfinite(g))
          continue;
        double d = std::fabs(g - w);
        diffSquares += d * d;
        wantSquares += w * w;
        if (d > maxAbsDiff) {
          maxAbsDiff = d;
          worst = i;
        }
      }
      const char *name = dtypeName(dtype);
      // Elementwise and exact: the first element that differs.
      Comparison exact = compare(got, want, dtype, n, 0, 0);
      ASSERT_FALSE(exact.ok) << name;
      EXPECT_EQ(exact.firstBad, firstDifferent) << name;
      EXPECT_EQ(exact.maxAbsDiff, maxAbsDiff) << name;
      if (!finiteOnly)
        continue;
      // Normwise: the error of the sums, and the largest difference named
      // when it is over the bound.
      double rel = std::sqrt(diffSquares / wantSquares);
      Comparison loose = compare(got, want, dtype, n, 2 * rel, 2 * rel, true);
      EXPECT_TRUE(loose.ok) << name;
      EXPECT_NEAR(loose.relativeError, rel, 1e-12 * rel) << name;
      Comparison tight = compare(got, want, dtype, n, rel / 2, rel / 2, true);
      ASSERT_FALSE(tight.ok) << name;
      EXPECT_EQ(tight.firstBad, worst) << name;
      EXPECT_EQ(tight.got, decode(dtype, &got[worst * width])) << name;
      EXPECT_EQ(tight.want, decode(dtype, &want[worst * width])) << name;
    }
  }
}

TEST(Compare, NegativeAndZeroCountsCompareNothing) {
  std::vector<uint8_t> bytes = floats({1.0f, 2.0f});
  for (int64_t count : {int64_t(0), int64_t(-1), int64_t(-200000)}) {
    Comparison c = compare(bytes, bytes, DType::F32, count, 0, 0);
    EXPECT_TRUE(c.ok) << count;
    EXPECT_EQ(c.relativeError, 0.0) << count;
  }
}

} // namespace
