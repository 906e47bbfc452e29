//===- CudnnRelabel.cpp - Layouts of layout-free graphs -------------------===//
//
// cuDNN's runtime-fusion engines take pointwise-only and reduction-only
// graphs only in some layouts; these relabel every tensor of such a graph
// alike (same bytes, other dims/strides) so the group can retry.
//
//===----------------------------------------------------------------------===//

#include "CudnnGroupInternal.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace graph::rt::cudnn {

namespace {

bool isPacked(const TensorSpec &t) {
  return t.strides.empty() || t.strides == rowMajorStrides(t.dims);
}

/// `s` with every tensor described by other dims/strides over the same
/// bytes: `map(dims of a non-by-value tensor)` gives its new dims and
/// strides; by-value scalars become all-ones of rank `rank`.
GraphSpec
relabeled(const GraphSpec &s, size_t rank,
          const std::function<std::pair<Shape, Shape>(const Shape &)> &map) {
  GraphSpec out = s;
  for (TensorSpec &t : out.tensors) {
    if (t.isByValue || t.readByValue) {
      t.dims = Shape(rank, 1);
      t.strides = Shape(rank, 1);
      continue;
    }
    auto [dims, strides] = map(t.dims);
    t.dims = dims;
    t.strides = strides;
  }
  return out;
}

} // namespace

/// Equivalent descriptions of a pointwise-only graph whose tensors all
/// share one packed shape (every element maps to itself, so any relabeling
/// applied to all tensors alike keeps the result), or of a one-op reduction
/// of a packed tensor that keeps or reduces whole runs of axes.
std::vector<std::pair<std::string, GraphSpec>> relabelings(const GraphSpec &s) {
  std::vector<std::pair<std::string, GraphSpec>> out;
  bool pointwiseOnly = !s.ops.empty();
  for (const OpSpec &o : s.ops)
    pointwiseOnly &= o.kind == OpKind::Pointwise && o.mode != "gen_index";
  auto dimsText = [](const Shape &d) {
    std::string t = "[";
    for (size_t i = 0; i < d.size(); ++i)
      t += (i ? "," : "") + std::to_string(d[i]);
    return t + "]";
  };
  if (pointwiseOnly) {
    const Shape *shape = nullptr;
    for (const TensorSpec &t : s.tensors) {
      if (t.isByValue || t.readByValue)
        continue;
      if (!isPacked(t) || (shape && t.dims != *shape))
        return out;
      shape = &t.dims;
    }
    if (!shape || shape->empty())
      return out;
    int64_t n = numElements(*shape), l = shape->back();
    if (l <= 0 || n <= 0)
      return out;
    int64_t rows = n / l;
    auto add = [&](const std::string &what, const Shape &d, const Shape &st) {
      if (d == *shape)
        return;
      out.push_back(
          {what + " " + dimsText(d), relabeled(s, d.size(), [&](const Shape &) {
             return std::make_pair(d, st);
           })});
    };
    add("channels-last", {rows, l, 1, 1}, {l, 1, l, l});
    add("packed", {1, rows, l}, {n, l, 1});
    add("channels-last", {1, l, rows, 1}, {n, 1, l, l});
    return out;
  }
  if (s.ops.size() != 1 || s.ops[0].kind != OpKind::Reduction)
    return out;
  const OpSpec &op = s.ops[0];
  auto xi = op.inputs.find(Port::input), yi = op.outputs.find(Port::output);
  if (xi == op.inputs.end() || yi == op.outputs.end())
    return out;
  const TensorSpec *x = nullptr, *y = nullptr;
  for (const TensorSpec &t : s.tensors) {
    if (t.uid == xi->second)
      x = &t;
    if (t.uid == yi->second)
      y = &t;
  }
  if (!x || !y || s.tensors.size() != 2 || !isPacked(*x) || !isPacked(*y) ||
      x->dims.size() != y->dims.size())
    return out;
  // Runs of kept (K) and reduced (R) axes, unit axes dropped.
  std::vector<std::pair<bool, int64_t>> runs; // (reduced, size)
  for (size_t i = 0; i < x->dims.size(); ++i) {
    int64_t dx = x->dims[i], dy = y->dims[i];
    if (dx == 1)
      continue;
    if (dy != dx && dy != 1)
      return out;
    bool reduced = dy == 1;
    if (!runs.empty() && runs.back().first == reduced)
      runs.back().second *= dx;
    else
      runs.push_back({reduced, dx});
  }
  auto add = [&](const std::string &what, const Shape &xd, const Shape &xs,
                 const Shape &yd, const Shape &ys) {
    if (xd == x->dims && yd == y->dims)
      return;
    GraphSpec alt = s;
    for (TensorSpec &t : alt.tensors) {
      bool isX = t.uid == x->uid;
      t.dims = isX ? xd : yd;
      t.strides = isX ? xs : ys;
    }
    out.push_back({what + " " + dimsText(xd) + "->" + dimsText(yd), alt});
  };
  if (runs.size() == 1 && runs[0].first) { // everything reduced
    int64_t n = runs[0].second;
    add("channels-last", {1, n, 1, 1}, {n, 1, n, n}, {1, 1, 1, 1},
        {1, 1, 1, 1});
    add("packed", {1, 1, n}, {n, n, 1}, {1, 1, 1}, {1, 1, 1});
  } else if (runs.size() == 2 && runs[0].first) { // [R, K] -> [1, K]
    int64_t r = runs[0].second, k = runs[1].second;
    add("channels-last", {1, k, r, 1}, {r * k, 1, k, k}, {1, k, 1, 1},
        {k, 1, k, k});
    add("channels-last", {r, k, 1, 1}, {k, 1, k, k}, {1, k, 1, 1},
        {k, 1, k, k});
    add("packed", {1, r, k}, {r * k, k, 1}, {1, 1, k}, {k, k, 1});
  } else if (runs.size() == 2 && !runs[0].first) { // [K, R] -> [K, 1]
    int64_t k = runs[0].second, r = runs[1].second;
    add("packed", {1, k, r}, {k * r, r, 1}, {1, k, 1}, {k, 1, 1});
    add("channels-last", {k, r, 1, 1}, {r, 1, r, r}, {k, 1, 1, 1},
        {1, 1, 1, 1});
  }
  return out;
}

} // namespace graph::rt::cudnn
