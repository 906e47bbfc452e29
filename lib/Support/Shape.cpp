//===- Shape.cpp - Dims, strides and broadcasting ---------------*- C++ -*-===//

#include "GraphDialect/Support/Shape.h"
#include "GraphDialect/Support/CheckedMath.h"

#include <algorithm>

namespace graph {

int64_t numElements(const Shape &shape) {
  for (int64_t d : shape)
    if (d <= 0)
      return 0;
  return checkedElementCount(shape).value_or(kMaxTensorBytes);
}

Shape rowMajorStrides(const Shape &shape) {
  Shape strides(shape.size(), 1);
  int64_t running = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = running;
    running = checkedMul(running, shape[i] > 1 ? shape[i] : 1)
                  .value_or(kMaxTensorBytes);
  }
  return strides;
}

bool checkLayout(const Shape &shape, const Shape &strides, std::string *error) {
  auto fail = [&](const std::string &msg) {
    if (error)
      *error = msg;
    return false;
  };
  if (!strides.empty() && strides.size() != shape.size())
    return fail("strides have rank " + std::to_string(strides.size()) +
                " but the shape has rank " + std::to_string(shape.size()));
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0)
      return fail("dim " + std::to_string(i) + " is negative");
    if (!strides.empty() && strides[i] < 0)
      return fail("stride " + std::to_string(i) + " is negative");
  }
  if (!checkedElementCount(shape) ||
      (!strides.empty() && !checkedSpan(shape, strides)))
    return fail("dims and strides address more than 2^63 - 1 elements");
  return true;
}

int64_t spanElements(const Shape &shape, const Shape &strides) {
  if (numElements(shape) == 0)
    return 0;
  const Shape &s = strides.empty() ? rowMajorStrides(shape) : strides;
  return checkedSpan(shape, s).value_or(kMaxTensorBytes);
}

bool reshapeViewStrides(const Shape &shape, const Shape &strides,
                        const Shape &newShape, Shape &newStrides) {
  Shape oldDims, oldStrides;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] <= 0 || i >= strides.size())
      return false;
    if (shape[i] != 1) {
      oldDims.push_back(shape[i]);
      oldStrides.push_back(strides[i]);
    }
  }
  for (int64_t d : newShape)
    if (d <= 0)
      return false;
  size_t newRank = newShape.size(), oldRank = oldDims.size();
  newStrides.assign(newRank, 1);
  // Walk runs of old and new dims with equal products; each old run must
  // be contiguous, and the new run's strides follow from its last dim.
  size_t oi = 0, oj = 1, ni = 0, nj = 1;
  while (ni < newRank && oi < oldRank) {
    int64_t np = newShape[ni], op = oldDims[oi];
    while (np != op) {
      if (np < op) {
        if (nj >= newRank)
          return false;
        np *= newShape[nj++];
      } else {
        if (oj >= oldRank)
          return false;
        op *= oldDims[oj++];
      }
    }
    for (size_t ok = oi; ok + 1 < oj; ++ok)
      if (oldStrides[ok] != oldDims[ok + 1] * oldStrides[ok + 1])
        return false;
    newStrides[nj - 1] = oldStrides[oj - 1];
    for (size_t nk = nj - 1; nk > ni; --nk)
      newStrides[nk - 1] = newStrides[nk] * newShape[nk];
    ni = nj++;
    oi = oj++;
  }
  for (size_t nk = ni; nk < newRank; ++nk)
    newStrides[nk] = 1;
  for (int64_t &stride : newStrides)
    stride = std::max<int64_t>(stride, 1);
  return oi >= oldRank;
}

bool broadcastsTo(DimsRef in, DimsRef out) {
  if (in.size() > out.size())
    return false;
  size_t lead = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i) {
    int64_t from = in[i], to = out[lead + i];
    if (from != 1 && from != to && from != kDynamicDim && to != kDynamicDim)
      return false;
  }
  return true;
}

bool broadcastShapes(const Shape &a, const Shape &b, Shape &out) {
  size_t rank = std::max(a.size(), b.size());
  Shape result(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return false;
    result[i] = da == 1 ? db : da;
  }
  out = std::move(result);
  return true;
}

Shape broadcastStrides(const Shape &in, const Shape &out) {
  Shape inStrides = rowMajorStrides(in);
  Shape result(out.size(), 0);
  size_t lead = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i)
    result[lead + i] = in[i] == 1 ? 0 : inStrides[i];
  return result;
}

std::string shapeString(const Shape &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

static std::string joinDims(DimsRef dims, bool negativeIsDynamic) {
  std::string text;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i)
      text += "x";
    bool dynamic = negativeIsDynamic ? dims[i] < 0 : dims[i] == kDynamicDim;
    text += dynamic ? "?" : std::to_string(dims[i]);
  }
  return text;
}

std::string dimsText(const Shape &shape, bool negativeIsDynamic) {
  return joinDims(shape, negativeIsDynamic);
}

std::string dimsMessageText(DimsRef dims) {
  if (dims.size() == 0)
    return "[] (rank 0)";
  return joinDims(dims, /*negativeIsDynamic=*/true);
}

} // namespace graph
