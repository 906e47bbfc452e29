//===- CudnnRelabel.cpp - Layouts of layout-free graphs -------------------===//
//
// cuDNN's runtime-fusion engines take pointwise-only and reduction-only
// graphs only in some layouts, and matmul graphs with one batch dim only;
// these relabel every tensor of such a graph alike (same bytes, other
// dims/strides) so the group can retry.
//
//===----------------------------------------------------------------------===//

#include "CudnnGroupInternal.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace graph::rt::cudnn {

namespace {

bool isPacked(const TensorSpec &t) {
  return t.strides.empty() || t.strides == rowMajorStrides(t.dims);
}

/// Whether `t`'s strides lay its elements out densely in some dim order
/// (row-major, channels-last, column-major...): each stride, smallest
/// first, is the product of the extents inside it, so every element has
/// its own offset below numElements(dims).
bool isDense(const TensorSpec &t) {
  if (t.strides.empty())
    return true;
  if (t.strides.size() != t.dims.size())
    return false;
  std::vector<size_t> order;
  for (size_t i = 0; i < t.dims.size(); ++i)
    if (t.dims[i] != 1)
      order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return t.strides[a] < t.strides[b];
  });
  int64_t expected = 1;
  for (size_t i : order) {
    if (t.strides[i] != expected)
      return false;
    expected *= t.dims[i];
  }
  return true;
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

/// `s`, a matmul graph (matmuls with pointwise and reduction ops around
/// them) of rank > 3, with adjacent batch dims merged wherever every tensor
/// allows it: both of its dims are 1, or both are the graph's full extents
/// and the outer one steps over the inner one. Then each tensor addresses
/// the same elements through one dim of their product, and broadcasting
/// (a unit batch dim against a full one) means what it meant. `s` itself
/// when no pair merges. cuDNN 9.19's engines on the H200 offer no config
/// for a matmul with two batch dims ([2,4,256,128] x [2,4,128,256], f16 or
/// bf16, measured) but do for the merged [8,256,128] x [8,128,256].
GraphSpec mergedBatchDims(const GraphSpec &s) {
  GraphSpec out = s;
  bool hasMatmul = false;
  for (const OpSpec &o : s.ops) {
    if (o.kind == OpKind::Matmul) {
      hasMatmul = true;
      continue;
    }
    bool layoutFree = (o.kind == OpKind::Pointwise && o.mode != "gen_index") ||
                      (o.kind == OpKind::Reduction && o.inputs.size() == 1);
    if (!layoutFree)
      return out;
  }
  if (!hasMatmul || s.tensors.empty())
    return out;
  size_t rank = s.tensors.front().dims.size();
  for (const TensorSpec &t : s.tensors)
    if (t.dims.size() != rank || t.strides.size() != rank)
      return out;
  // Axis i merges into axis i + 1; both must be batch axes (the last two
  // are the matrix's), and merging from the inside out keeps the indices
  // of the axes still to visit.
  for (int64_t i = static_cast<int64_t>(rank) - 4; i >= 0; --i) {
    int64_t outer = 1, inner = 1;
    for (const TensorSpec &t : out.tensors) {
      outer = std::max(outer, t.dims[i]);
      inner = std::max(inner, t.dims[i + 1]);
    }
    bool merges = true;
    for (const TensorSpec &t : out.tensors) {
      int64_t d0 = t.dims[i], d1 = t.dims[i + 1];
      bool units = d0 == 1 && d1 == 1;
      bool whole =
          d0 == outer && d1 == inner &&
          (d0 == 1 || d1 == 1 || t.strides[i] == t.strides[i + 1] * d1);
      merges &= units || whole;
    }
    if (!merges)
      continue;
    for (TensorSpec &t : out.tensors) {
      int64_t d1 = t.dims[i + 1];
      int64_t stride = d1 == 1 ? t.strides[i] : t.strides[i + 1];
      t.dims[i + 1] *= t.dims[i];
      t.strides[i + 1] = stride;
      t.dims.erase(t.dims.begin() + i);
      t.strides.erase(t.strides.begin() + i);
    }
  }
  return out;
}

/// Channels-last strides of `dims` ([N, C, spatial...]): C innermost, then
/// the spatial dims from the last, then N.
Shape channelsLastStrides(const Shape &dims) {
  Shape strides(dims.size(), 1);
  int64_t step = dims[1];
  for (size_t i = dims.size(); i-- > 2;) {
    strides[i] = step;
    step *= dims[i];
  }
  strides[0] = step;
  return strides;
}

/// Whether dims/strides lay a tensor out channels-last: each dim of extent
/// above one has the stride channelsLastStrides gives it.
bool isChannelsLast(const Shape &dims, const Shape &strides) {
  Shape expected = channelsLastStrides(dims);
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] != 1 && strides[i] != expected[i])
      return false;
  return true;
}

/// `t`'s strides, row-major when it gives none (as lowering reads them).
Shape stridesOf(const TensorSpec &t) {
  return t.strides.empty() ? rowMajorStrides(t.dims) : t.strides;
}

} // namespace

std::optional<std::pair<std::string, GraphSpec>>
convAsMatmul(const GraphSpec &s) {
  const OpSpec *conv = nullptr;
  for (const OpSpec &o : s.ops) {
    if (o.kind == OpKind::ConvFprop && !conv) {
      conv = &o;
      continue;
    }
    bool perElement = (o.kind == OpKind::Pointwise && o.mode != "gen_index") ||
                      o.kind == OpKind::BatchnormInference;
    if (!perElement)
      return std::nullopt;
  }
  if (!conv || !conv->inputs.count(Port::image) ||
      !conv->inputs.count(Port::weight) || !conv->outputs.count(Port::Y))
    return std::nullopt;
  int64_t imageUid = conv->inputs.at(Port::image);
  int64_t filterUid = conv->inputs.at(Port::weight);
  // The filter is relabeled by its addresses (B[c][k] is W[k][c]): it must
  // be memory the caller gives, read by the convolution alone. The image,
  // too, is read from the caller's memory.
  for (const OpSpec &o : s.ops) {
    for (auto &[port, uid] : o.outputs)
      if (uid == imageUid || uid == filterUid)
        return std::nullopt;
    if (&o != conv)
      for (auto &[port, uid] : o.inputs)
        if (uid == filterUid)
          return std::nullopt;
  }
  auto lookup = [&](int64_t uid) -> const TensorSpec * {
    for (const TensorSpec &t : s.tensors)
      if (t.uid == uid)
        return &t;
    return nullptr;
  };
  const TensorSpec *x = lookup(imageUid);
  const TensorSpec *w = lookup(filterUid);
  // One operand type: a matmul rounds an f32 operand beside a 16-bit one
  // to 16 bits, which the convolution does not.
  if (!x || !w || x->isVirtual || w->isVirtual || x->isByValue ||
      w->isByValue || x->dtype != w->dtype || x->dims.size() < 3 ||
      w->dims.size() != x->dims.size() || w->dims[1] != x->dims[1] ||
      stridesOf(*x).size() != x->dims.size() ||
      stridesOf(*w).size() != w->dims.size() ||
      !isChannelsLast(x->dims, stridesOf(*x)))
    return std::nullopt;
  const Shape filterStrides = stridesOf(*w);
  size_t rank = x->dims.size();
  // A 1x1 filter read at every position: no padding, stride 1 (dilation
  // then moves nothing).
  for (size_t i = 2; i < rank; ++i)
    if (w->dims[i] != 1)
      return std::nullopt;
  auto all = [&](const char *attr, int64_t value) {
    auto it = conv->intAttrs.find(attr);
    if (it == conv->intAttrs.end())
      return true;
    return std::all_of(it->second.begin(), it->second.end(),
                       [&](int64_t v) { return v == value; });
  };
  if (!all("padding", 0) || !all("pre_padding", 0) ||
      !all("post_padding", 0) || !all("stride", 1))
    return std::nullopt;
  int64_t rows = x->dims[0];
  for (size_t i = 2; i < rank; ++i)
    rows *= x->dims[i];
  // Every tensor is an image of the same positions (channels-last, or
  // virtual), a per-channel [1, C, 1...] vector or a scalar: as rows x
  // channels, position p's channel c is element (p, c) in each.
  GraphSpec out = s;
  for (TensorSpec &t : out.tensors) {
    if (t.isByValue || t.readByValue) {
      t.dims = Shape(3, 1);
      t.strides = Shape(3, 1);
      continue;
    }
    Shape strides = stridesOf(t);
    if (t.dims.size() != rank || strides.size() != rank)
      return std::nullopt;
    if (t.uid == filterUid) {
      // B[c][k] = W[k][c].
      t.dims = {1, w->dims[1], w->dims[0]};
      t.strides = {w->dims[0] * w->dims[1], filterStrides[1], filterStrides[0]};
      continue;
    }
    bool image = t.dims[0] == x->dims[0];
    bool unit = true;
    for (size_t i = 2; i < rank; ++i) {
      image &= t.dims[i] == x->dims[i];
      unit &= t.dims[i] == 1;
    }
    int64_t channels = t.dims[1];
    if (image && (t.isVirtual || isChannelsLast(t.dims, strides))) {
      t.dims = {1, rows, channels};
      t.strides = {rows * channels, channels, 1};
    } else if (unit && t.dims[0] == 1) {
      t.dims = {1, 1, channels};
      t.strides = {channels, channels, channels == 1 ? 1 : strides[1]};
    } else {
      return std::nullopt;
    }
  }
  for (OpSpec &o : out.ops) {
    if (o.kind != OpKind::ConvFprop)
      continue;
    OpSpec matmul;
    matmul.kind = OpKind::Matmul;
    matmul.name = o.name;
    matmul.computeType = o.computeType;
    matmul.inputs[Port::A] = o.inputs.at(Port::image);
    matmul.inputs[Port::B] = o.inputs.at(Port::weight);
    matmul.outputs[Port::C] = o.outputs.at(Port::Y);
    o = std::move(matmul);
  }
  return std::make_pair(std::string("1x1 convolution as a matmul"),
                        std::move(out));
}

/// Equivalent descriptions of a matmul graph whose batch dims merge
/// (mergedBatchDims), of a pointwise-only graph whose tensors all share one
/// shape and one dense layout (every element maps to itself, so any
/// relabeling of memory order applied to all tensors alike keeps the
/// result), or of a one-op reduction of a packed
/// tensor that keeps or reduces whole runs of axes.
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
  GraphSpec merged = mergedBatchDims(s);
  if (!s.tensors.empty() &&
      merged.tensors.front().dims.size() < s.tensors.front().dims.size()) {
    const OpSpec *matmul = nullptr;
    for (const OpSpec &o : s.ops)
      if (o.kind == OpKind::Matmul && !matmul)
        matmul = &o;
    Shape a;
    for (const TensorSpec &t : merged.tensors)
      if (matmul->inputs.count(Port::A) && t.uid == matmul->inputs.at(Port::A))
        a = t.dims;
    out.push_back({"batch dims merged, A " + dimsText(a), std::move(merged)});
    return out;
  }
  if (pointwiseOnly) {
    // Every tensor with the same dims and the same dense layout (in any dim
    // order: a column-major int8 cast and its result, say): element k of
    // memory is the same logical element in each, so the memory order
    // relabels them all alike. Its innermost run is the dim of stride 1.
    // Strides of extent-1 dims address nothing, so only the others count.
    auto layoutOf = [](const TensorSpec &t) {
      Shape strides = t.strides.empty() ? rowMajorStrides(t.dims) : t.strides;
      for (size_t i = 0; i < t.dims.size() && i < strides.size(); ++i)
        if (t.dims[i] == 1)
          strides[i] = 0;
      return strides;
    };
    const TensorSpec *first = nullptr;
    for (const TensorSpec &t : s.tensors) {
      if (t.isByValue || t.readByValue)
        continue;
      if (!isDense(t) ||
          (first && (t.dims != first->dims || layoutOf(t) != layoutOf(*first))))
        return out;
      if (!first)
        first = &t;
    }
    if (!first || first->dims.empty())
      return out;
    const Shape *shape = &first->dims;
    Shape firstLayout = layoutOf(*first);
    // The innermost run: the last dim of a packed graph (the layouts
    // measured on the H200), else the extent of the dim of stride 1.
    int64_t l = shape->back();
    if (!isPacked(*first))
      for (size_t i = 0; i < shape->size(); ++i)
        if ((*shape)[i] != 1 && firstLayout[i] == 1)
          l = (*shape)[i];
    int64_t n = numElements(*shape);
    if (l <= 0 || n <= 0)
      return out;
    int64_t rows = n / l;
    auto add = [&](const std::string &what, const Shape &d, const Shape &st) {
      TensorSpec candidate;
      candidate.dims = d;
      candidate.strides = st;
      if (d == *shape && layoutOf(candidate) == firstLayout)
        return; // the graph as it is
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
