//===- Kernels.cpp - Helpers, reductions, structural ops, rope -*- C++ -*-===//
//
// Matmul and convolution live in KernelsConv.cpp, pointwise modes in
// KernelsPointwise.cpp, normalizations in KernelsNorm.cpp.
//
//===----------------------------------------------------------------------===//

#include "KernelsInternal.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace graph::ref {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

namespace detail {

bool normalizeAxis(int64_t axis, int64_t rank, int64_t &out) {
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return false;
  out = axis;
  return true;
}

} // namespace detail

using namespace detail;

std::string broadcastTo(const NdArray &in, const Shape &shape, NdArray &out) {
  if (!broadcastsTo(in.shape, shape))
    return "shape " + shapeString(in.shape) + " does not broadcast to " +
           shapeString(shape);
  NdArray result(shape);
  Shape inStrides = broadcastStrides(in.shape, shape);
  walk<1>(shape, {&inStrides}, 0, result.size(),
          [&](int64_t linear, const std::array<int64_t, 1> &off) {
            result.data[linear] = in.data[off[0]];
          });
  out = std::move(result);
  return "";
}

std::string sumTo(const NdArray &in, const Shape &shape, NdArray &out) {
  if (!broadcastsTo(shape, in.shape))
    return "shape " + shapeString(shape) + " is not a broadcast source of " +
           shapeString(in.shape);
  NdArray result(shape);
  Shape targetStrides = broadcastStrides(shape, in.shape);
  walk<1>(in.shape, {&targetStrides}, 0, in.size(),
          [&](int64_t linear, const std::array<int64_t, 1> &off) {
            result.data[off[0]] += in.data[linear];
          });
  out = std::move(result);
  return "";
}

//===----------------------------------------------------------------------===//
// Genstats and reduction
//===----------------------------------------------------------------------===//

std::string genstats(const NdArray &x, NdArray &sum, NdArray &sqSum) {
  if (x.rank() < 2)
    return "genstats input needs rank >= 2, got " + shapeString(x.shape);
  Shape statsShape(x.shape.size(), 1);
  statsShape[1] = x.shape[1];
  NdArray s(statsShape), sq(statsShape);
  Shape target = rowMajorStrides(statsShape);
  for (size_t i = 0; i < target.size(); ++i)
    if (i != 1)
      target[i] = 0;
  walk<1>(x.shape, {&target}, 0, x.size(),
          [&](int64_t linear, const std::array<int64_t, 1> &off) {
            double v = x.data[linear];
            s.data[off[0]] += v;
            sq.data[off[0]] += v * v;
          });
  sum = std::move(s);
  sqSum = std::move(sq);
  return "";
}

static const char *const kReductionNames[] = {"add",   "mul",   "min",
                                              "max",   "amax",  "avg",
                                              "norm1", "norm2", "mul_no_zeros"};

const char *reductionModeName(ReductionMode mode) {
  return kReductionNames[static_cast<int>(mode)];
}

bool parseReductionMode(const std::string &name, ReductionMode &out) {
  std::string lower;
  for (char c : name)
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (int i = 0; i < 9; ++i) {
    if (lower == kReductionNames[i]) {
      out = static_cast<ReductionMode>(i);
      return true;
    }
  }
  return false;
}

std::string reduce(const NdArray &in, ReductionMode mode, const Shape &outShape,
                   NdArray &out) {
  if (outShape.size() != in.shape.size())
    return "reduction output rank " + std::to_string(outShape.size()) +
           " differs from input rank " + std::to_string(in.shape.size());
  for (size_t i = 0; i < outShape.size(); ++i)
    if (outShape[i] != 1 && outShape[i] != in.shape[i])
      return "reduction output dim " + std::to_string(i) + " is " +
             std::to_string(outShape[i]) + "; it must be 1 or the input's " +
             std::to_string(in.shape[i]);
  double init = 0.0;
  switch (mode) {
  case ReductionMode::mul:
  case ReductionMode::mul_no_zeros:
    init = 1.0;
    break;
  case ReductionMode::min:
    init = std::numeric_limits<double>::infinity();
    break;
  case ReductionMode::max:
    init = -std::numeric_limits<double>::infinity();
    break;
  default:
    break;
  }
  NdArray result(outShape, init);
  Shape target = broadcastStrides(outShape, in.shape);
  walk<1>(in.shape, {&target}, 0, in.size(),
          [&](int64_t linear, const std::array<int64_t, 1> &off) {
            double v = in.data[linear];
            double &acc = result.data[off[0]];
            switch (mode) {
            case ReductionMode::add:
            case ReductionMode::avg:
              acc += v;
              break;
            case ReductionMode::mul:
              acc *= v;
              break;
            case ReductionMode::mul_no_zeros:
              if (v != 0.0)
                acc *= v;
              break;
            case ReductionMode::min:
              if (std::isnan(v) || v < acc)
                acc = v;
              break;
            case ReductionMode::max:
              if (std::isnan(v) || v > acc)
                acc = v;
              break;
            case ReductionMode::amax:
              if (std::isnan(v) || std::fabs(v) > acc)
                acc = std::fabs(v);
              break;
            case ReductionMode::norm1:
              acc += std::fabs(v);
              break;
            case ReductionMode::norm2:
              acc += v * v;
              break;
            }
          });
  // NaN sticks: once acc is NaN, `v < acc` is false, so only an explicit
  // isnan check would overwrite it, and that only writes another NaN.
  if (mode == ReductionMode::avg || mode == ReductionMode::norm2) {
    int64_t group =
        result.size() ? in.size() / std::max<int64_t>(1, result.size()) : 0;
    for (double &v : result.data)
      v = mode == ReductionMode::avg ? v / static_cast<double>(group)
                                     : std::sqrt(v);
  }
  out = std::move(result);
  return "";
}

//===----------------------------------------------------------------------===//
// Structural
//===----------------------------------------------------------------------===//

std::string reshape(const NdArray &in, const Shape &shape, NdArray &out) {
  for (int64_t d : shape)
    if (d < 0)
      return "reshape target " + shapeString(shape) + " has a negative dim";
  if (numElements(shape) != in.size())
    return "reshape from " + shapeString(in.shape) + " (" +
           std::to_string(in.size()) + " elements) to " + shapeString(shape) +
           " (" + std::to_string(numElements(shape)) + ") changes the count";
  NdArray result;
  result.shape = shape;
  result.data = in.data;
  out = std::move(result);
  return "";
}

bool normalizeSlice(int64_t dim, std::optional<int64_t> start,
                    std::optional<int64_t> stop, std::optional<int64_t> step,
                    SliceRange &out) {
  int64_t st = step.value_or(1);
  if (st == 0)
    return false;
  // Python's PySlice_AdjustIndices.
  auto adjust = [&](std::optional<int64_t> v, int64_t dflt) {
    if (!v)
      return dflt;
    int64_t i = *v;
    if (i < 0) {
      i += dim;
      if (i < 0)
        i = st < 0 ? -1 : 0;
    } else if (i >= dim) {
      i = st < 0 ? dim - 1 : dim;
    }
    return i;
  };
  out.step = st;
  out.start = adjust(start, st < 0 ? dim - 1 : 0);
  out.limit = adjust(stop, st < 0 ? -1 : dim);
  return true;
}

int64_t sliceExtent(const SliceRange &r) {
  if (r.step > 0)
    return r.limit > r.start ? (r.limit - r.start + r.step - 1) / r.step : 0;
  if (r.step < 0)
    return r.start > r.limit ? (r.start - r.limit - r.step - 1) / (-r.step) : 0;
  return 0;
}

std::string slice(const NdArray &in, const std::vector<SliceRange> &ranges,
                  NdArray &out) {
  if (ranges.size() > in.shape.size())
    return "slice has " + std::to_string(ranges.size()) +
           " ranges for a rank-" + std::to_string(in.shape.size()) + " input";
  size_t rank = in.shape.size();
  Shape outShape(rank), start(rank), step(rank);
  for (size_t i = 0; i < rank; ++i) {
    SliceRange r =
        i < ranges.size() ? ranges[i] : SliceRange{0, in.shape[i], 1};
    if (r.step == 0)
      return "slice step of dim " + std::to_string(i) + " is 0";
    int64_t n = sliceExtent(r);
    if (n > 0) {
      int64_t last = r.start + (n - 1) * r.step;
      if (r.start < 0 || r.start >= in.shape[i] || last < 0 ||
          last >= in.shape[i])
        return "slice of dim " + std::to_string(i) + " (start " +
               std::to_string(r.start) + ", limit " + std::to_string(r.limit) +
               ", step " + std::to_string(r.step) + ") leaves [0, " +
               std::to_string(in.shape[i]) + ")";
    }
    outShape[i] = n;
    start[i] = r.start;
    step[i] = r.step;
  }
  NdArray result(outShape);
  Shape inStrides = rowMajorStrides(in.shape);
  int64_t base = 0;
  Shape walkStrides(rank);
  for (size_t i = 0; i < rank; ++i) {
    base += start[i] * inStrides[i];
    walkStrides[i] = step[i] * inStrides[i];
  }
  walk<1>(outShape, {&walkStrides}, 0, result.size(),
          [&](int64_t linear, const std::array<int64_t, 1> &off) {
            result.data[linear] = in.data[base + off[0]];
          });
  out = std::move(result);
  return "";
}

std::string transpose(const NdArray &in,
                      const std::vector<int64_t> &permutation, NdArray &out) {
  size_t rank = in.shape.size();
  if (permutation.size() != rank)
    return "permutation has " + std::to_string(permutation.size()) +
           " entries for a rank-" + std::to_string(rank) + " input";
  std::vector<bool> seen(rank, false);
  for (int64_t p : permutation) {
    if (p < 0 || p >= static_cast<int64_t>(rank) || seen[p])
      return "permutation is not a permutation of 0.." +
             std::to_string(rank - 1);
    seen[p] = true;
  }
  Shape outShape(rank), walkStrides(rank);
  Shape inStrides = rowMajorStrides(in.shape);
  for (size_t i = 0; i < rank; ++i) {
    outShape[i] = in.shape[permutation[i]];
    walkStrides[i] = inStrides[permutation[i]];
  }
  NdArray result(outShape);
  walk<1>(outShape, {&walkStrides}, 0, result.size(),
          [&](int64_t linear, const std::array<int64_t, 1> &off) {
            result.data[linear] = in.data[off[0]];
          });
  out = std::move(result);
  return "";
}

std::string concatenate(const std::vector<const NdArray *> &inputs,
                        int64_t axis, NdArray &out) {
  if (inputs.empty())
    return "concatenate needs at least one input";
  const Shape &first = inputs[0]->shape;
  int64_t ax;
  if (!normalizeAxis(axis, static_cast<int64_t>(first.size()), ax))
    return "concatenate axis " + std::to_string(axis) +
           " is out of range for rank " + std::to_string(first.size());
  Shape outShape = first;
  outShape[ax] = 0;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Shape &s = inputs[k]->shape;
    if (s.size() != first.size())
      return "concatenate input " + std::to_string(k) + " has rank " +
             std::to_string(s.size()) + ", input 0 has " +
             std::to_string(first.size());
    for (size_t i = 0; i < s.size(); ++i)
      if (static_cast<int64_t>(i) != ax && s[i] != first[i])
        return "concatenate input " + std::to_string(k) + " has shape " +
               shapeString(s) + ", which differs from " + shapeString(first) +
               " outside axis " + std::to_string(ax);
    outShape[ax] += s[ax];
  }
  NdArray result(outShape);
  // outer = product of dims before axis; each input contributes a contiguous
  // block of s[ax] * inner elements per outer index.
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < ax; ++i)
    outer *= outShape[i];
  for (size_t i = ax + 1; i < outShape.size(); ++i)
    inner *= outShape[i];
  int64_t rowOut = outShape[ax] * inner;
  int64_t offset = 0;
  for (const NdArray *in : inputs) {
    int64_t block = in->shape[ax] * inner;
    for (int64_t o = 0; o < outer; ++o)
      std::copy_n(in->data.begin() + o * block, block,
                  result.data.begin() + o * rowOut + offset);
    offset += block;
  }
  out = std::move(result);
  return "";
}

//===----------------------------------------------------------------------===//
// Rope
//===----------------------------------------------------------------------===//

namespace {

std::string ropeImpl(const NdArray &x, const NdArray &freqs, double scale,
                     int64_t ropeDim, bool backward, NdArray &y) {
  if (x.rank() < 1)
    return "rope input needs rank >= 1";
  int64_t headDim = x.shape.back();
  int64_t d = ropeDim == 0 ? headDim : ropeDim;
  if (d < 0 || d > headDim || d % 2)
    return "rope_dim " + std::to_string(ropeDim) +
           " must be even and at most the last dim " + std::to_string(headDim);
  int64_t half = d / 2;
  if (freqs.rank() < 1)
    return "rope freqs needs rank >= 1";
  int64_t freqLast = freqs.shape.back();
  if (freqLast != d && freqLast != half)
    return "rope freqs last dim is " + std::to_string(freqLast) +
           "; it must be rope_dim (" + std::to_string(d) + ") or half of it";
  // Rows: every leading index of x; freqs' leading dims broadcast to them.
  Shape lead(x.shape.begin(), x.shape.end() - 1);
  Shape freqLead(freqs.shape.begin(), freqs.shape.end() - 1);
  if (!broadcastsTo(freqLead, lead))
    return "rope freqs " + shapeString(freqs.shape) +
           " does not broadcast to input " + shapeString(x.shape);
  Shape freqRowStrides = broadcastStrides(freqLead, lead);
  for (int64_t &s : freqRowStrides)
    s *= freqLast;
  NdArray out(x.shape);
  int64_t rows = numElements(lead);
  walk<1>(lead, {&freqRowStrides}, 0, rows,
          [&](int64_t row, const std::array<int64_t, 1> &off) {
            const double *in = x.data.data() + row * headDim;
            const double *f = freqs.data.data() + off[0];
            double *o = out.data.data() + row * headDim;
            for (int64_t j = 0; j < half; ++j) {
              double a0 = f[j], a1 = freqLast == d ? f[j + half] : f[j];
              double c0 = std::cos(a0), s0 = std::sin(a0);
              double c1 = std::cos(a1), s1 = std::sin(a1);
              double lo = in[j], hi = in[j + half];
              if (!backward) {
                o[j] = scale * (lo * c0 - hi * s0);
                o[j + half] = scale * (hi * c1 + lo * s1);
              } else {
                o[j] = scale * (lo * c0 + hi * s1);
                o[j + half] = scale * (hi * c1 - lo * s0);
              }
            }
            for (int64_t j = d; j < headDim; ++j)
              o[j] = scale * in[j];
          });
  y = std::move(out);
  return "";
}

} // namespace

std::string rope(const NdArray &x, const NdArray &freqs, double outputScale,
                 int64_t ropeDim, NdArray &y) {
  return ropeImpl(x, freqs, outputScale, ropeDim, /*backward=*/false, y);
}

std::string ropeBackward(const NdArray &dy, const NdArray &freqs,
                         double outputScale, int64_t ropeDim, NdArray &dx) {
  return ropeImpl(dy, freqs, outputScale, ropeDim, /*backward=*/true, dx);
}

} // namespace graph::ref
