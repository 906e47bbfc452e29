//===- RelabelTest.cpp - Relabeled descriptions of a cuDNN group ----------===//
//
// relabelings(): the equivalent descriptions a group is retried with when
// the heuristics offer no engine config. Here, the matmul graphs whose
// batch dims merge into one (cuDNN 9.19 on the H200 runs no matmul with
// two batch dims) and those that must not merge, and the pointwise graphs
// relabeled in memory order. convAsMatmul(): a 1x1 convolution group
// described as a matmul (ranked by time against the group's own plans),
// and the groups it must leave alone.
//
//===----------------------------------------------------------------------===//

#include "CudnnGroupInternal.h"

#include <algorithm>
#include <functional>

#include <gtest/gtest.h>

using namespace graph::rt;
using namespace graph::rt::cudnn;
using graph::DType;
using graph::Port;
using graph::Shape;

namespace {

TensorSpec tensor(int64_t uid, Shape dims, Shape strides = {}) {
  TensorSpec t;
  t.uid = uid;
  t.dtype = DType::F16;
  t.strides = strides.empty() ? graph::rowMajorStrides(dims) : strides;
  t.dims = std::move(dims);
  return t;
}

/// C (uid 3) = A (uid 1) x B (uid 2); with `bias`, Y (uid 5) = C + bias
/// (uid 4) reading C virtual.
GraphSpec matmul(TensorSpec a, TensorSpec b, TensorSpec c,
                 std::optional<TensorSpec> bias = std::nullopt) {
  GraphSpec s;
  s.name = "test/group0";
  OpSpec mm;
  mm.kind = "matmul";
  mm.inputs[Port::A] = a.uid;
  mm.inputs[Port::B] = b.uid;
  mm.outputs[Port::C] = c.uid;
  s.ops.push_back(mm);
  s.tensors = {a, b, c};
  if (bias) {
    s.tensors[2].isVirtual = true;
    OpSpec add;
    add.kind = "pointwise";
    add.mode = "add";
    add.inputs[graph::pointwiseInput(0)] = c.uid;
    add.inputs[graph::pointwiseInput(1)] = bias->uid;
    add.outputs[Port::output] = 5;
    s.ops.push_back(add);
    s.tensors.push_back(*bias);
    s.tensors.push_back(tensor(5, c.dims, c.strides));
  }
  return s;
}

const TensorSpec &find(const GraphSpec &s, int64_t uid) {
  for (const TensorSpec &t : s.tensors)
    if (t.uid == uid)
      return t;
  ADD_FAILURE() << "no tensor uid " << uid;
  return s.tensors.front();
}

TEST(MatmulRelabel, TwoBatchDimsMergeIntoOne) {
  GraphSpec s = matmul(tensor(1, {2, 4, 64, 32}), tensor(2, {2, 4, 32, 16}),
                       tensor(3, {2, 4, 64, 16}), tensor(4, {1, 1, 1, 16}));
  auto alts = relabelings(s);
  ASSERT_EQ(alts.size(), 1u);
  EXPECT_EQ(alts[0].first, "batch dims merged, A [8,64,32]");
  const GraphSpec &m = alts[0].second;
  EXPECT_EQ(find(m, 1).dims, (Shape{8, 64, 32}));
  EXPECT_EQ(find(m, 1).strides, (Shape{2048, 32, 1}));
  EXPECT_EQ(find(m, 2).dims, (Shape{8, 32, 16}));
  EXPECT_EQ(find(m, 3).dims, (Shape{8, 64, 16}));
  EXPECT_TRUE(find(m, 3).isVirtual);
  EXPECT_EQ(find(m, 4).dims, (Shape{1, 1, 16}));
  EXPECT_EQ(find(m, 5).strides, (Shape{1024, 16, 1}));
  EXPECT_EQ(m.ops.size(), 2u);
}

TEST(MatmulRelabel, RankFiveMergesAllBatchDims) {
  GraphSpec s = matmul(tensor(1, {2, 3, 4, 8, 8}), tensor(2, {1, 1, 1, 8, 8}),
                       tensor(3, {2, 3, 4, 8, 8}));
  auto alts = relabelings(s);
  ASSERT_EQ(alts.size(), 1u);
  EXPECT_EQ(find(alts[0].second, 1).dims, (Shape{24, 8, 8}));
  // The shared weight stays broadcast over the merged batch.
  EXPECT_EQ(find(alts[0].second, 2).dims, (Shape{1, 8, 8}));
}

// Heads read in place from a [b, s, h, d] projection: b steps over s * h * d
// elements, not over the h heads, so [b, h] is no one dim of the buffer.
TEST(MatmulRelabel, InterleavedHeadsDoNotMerge) {
  int64_t b = 2, h = 4, s = 64, d = 32;
  GraphSpec g = matmul(tensor(1, {b, h, s, d}, {s * h * d, d, h * d, 1}),
                       tensor(2, {b, h, d, s}), tensor(3, {b, h, s, s}));
  EXPECT_TRUE(relabelings(g).empty());
}

// B broadcast over the outer batch dim only: [2, 4] against [1, 4] has no
// one-dim equivalent.
TEST(MatmulRelabel, PartialBroadcastDoesNotMerge) {
  GraphSpec g = matmul(tensor(1, {2, 4, 16, 8}), tensor(2, {1, 4, 8, 16}),
                       tensor(3, {2, 4, 16, 16}));
  EXPECT_TRUE(relabelings(g).empty());
}

TEST(MatmulRelabel, OneBatchDimIsKept) {
  GraphSpec g = matmul(tensor(1, {8, 16, 8}), tensor(2, {8, 8, 16}),
                       tensor(3, {8, 16, 16}));
  EXPECT_TRUE(relabelings(g).empty());
}

// A gen_index in the group blocks the merge: with its axis moved along,
// cuDNN 9.19 placed such a mask wrongly on the H200 (measured).
TEST(MatmulRelabel, GenIndexBlocksTheMerge) {
  GraphSpec g = matmul(tensor(1, {2, 4, 16, 8}), tensor(2, {2, 4, 8, 16}),
                       tensor(3, {2, 4, 16, 16}), tensor(4, {1, 1, 1, 16}));
  g.ops[1].mode = "gen_index";
  g.ops[1].intAttrs["axis"] = {3};
  EXPECT_TRUE(relabelings(g).empty());
}

/// Y (uid 2) = identity(X (uid 1)), int8 to f32, both with `strides`.
GraphSpec cast(Shape dims, Shape xStrides, Shape yStrides) {
  GraphSpec s;
  s.name = "test/group0";
  OpSpec op;
  op.kind = "pointwise";
  op.mode = "identity";
  op.inputs[graph::pointwiseInput(0)] = 1;
  op.outputs[Port::output] = 2;
  s.ops.push_back(op);
  TensorSpec x = tensor(1, dims, xStrides), y = tensor(2, dims, yStrides);
  x.dtype = DType::I8;
  y.dtype = DType::F32;
  s.tensors = {x, y};
  return s;
}

// A packed pointwise graph is retried in the runtime-fusion engines' own
// layouts, the graph as it is not among them.
TEST(PointwiseRelabel, PackedGraphTakesTheEnginesLayouts) {
  auto alts = relabelings(cast({2, 3, 5}, {15, 5, 1}, {15, 5, 1}));
  ASSERT_EQ(alts.size(), 3u);
  EXPECT_EQ(alts[0].first, "channels-last [6,5,1,1]");
  EXPECT_EQ(alts[1].first, "packed [1,6,5]");
  EXPECT_EQ(find(alts[1].second, 2).strides, (Shape{30, 5, 1}));
}

// A column-major cast (the matmul fuzzer's int8 B read transposed): input
// and result share one dense layout, so memory order relabels both alike,
// its innermost run the dim of stride 1 (here M = 7).
TEST(PointwiseRelabel, SharedColumnMajorLayoutRelabelsInMemoryOrder) {
  auto alts = relabelings(cast({3, 7, 5}, {35, 1, 7}, {35, 1, 7}));
  ASSERT_EQ(alts.size(), 3u);
  EXPECT_EQ(alts[1].first, "packed [1,15,7]");
  for (int64_t uid : {1, 2}) {
    EXPECT_EQ(find(alts[1].second, uid).dims, (Shape{1, 15, 7}));
    EXPECT_EQ(find(alts[1].second, uid).strides, (Shape{105, 7, 1}));
  }
  EXPECT_EQ(find(alts[1].second, 1).dtype, DType::I8);
}

// Different layouts (a transposing copy) or a layout with gaps: element k of
// memory is not the same element in both, so nothing is relabeled.
TEST(PointwiseRelabel, DifferentOrPaddedLayoutsAreKept) {
  EXPECT_TRUE(relabelings(cast({3, 7, 5}, {35, 1, 7}, {35, 5, 1})).empty());
  EXPECT_TRUE(relabelings(cast({3, 7, 5}, {40, 8, 1}, {40, 8, 1})).empty());
}

/// For every logical element of `s`'s (equal-dims) tensors, the tuple of
/// memory offsets it has in each non-by-value tensor, sorted: two
/// descriptions of a pointwise graph are the same computation exactly when
/// these agree.
std::vector<std::vector<int64_t>> offsetTuples(const GraphSpec &s) {
  std::vector<const TensorSpec *> tensors;
  for (const TensorSpec &t : s.tensors)
    if (!t.isByValue && !t.readByValue)
      tensors.push_back(&t);
  const Shape &dims = tensors.front()->dims;
  std::vector<std::vector<int64_t>> tuples;
  Shape index(dims.size(), 0);
  for (int64_t flat = 0; flat < graph::numElements(dims); ++flat) {
    std::vector<int64_t> tuple;
    for (const TensorSpec *t : tensors) {
      Shape strides =
          t->strides.empty() ? graph::rowMajorStrides(t->dims) : t->strides;
      int64_t offset = 0;
      for (size_t d = 0; d < dims.size(); ++d)
        offset += index[d] * strides[d];
      tuple.push_back(offset);
    }
    tuples.push_back(tuple);
    for (size_t d = dims.size(); d-- > 0;)
      if (++index[d] < dims[d])
        break;
      else
        index[d] = 0;
  }
  std::sort(tuples.begin(), tuples.end());
  return tuples;
}

// Every relabeling of a shared dense layout addresses the same memory per
// element as the graph itself: extent-1 dims with any stride, an empty
// stride list, a by-value scalar and three tensors included.
TEST(PointwiseRelabel, EveryRelabelingAddressesTheSameMemory) {
  std::vector<GraphSpec> graphs = {
      cast({3, 7, 5}, {35, 1, 7}, {35, 1, 7}),
      cast({4, 1, 6}, {6, 99, 1}, {6, 1, 1}),
      cast({2, 3, 1, 4}, {12, 1, 0, 3}, {12, 1, 5, 3}),
      cast({6, 5}, {}, {5, 1}),
  };
  GraphSpec binary = cast({2, 5, 3}, {15, 1, 5}, {15, 1, 5});
  binary.ops[0].mode = "add";
  binary.ops[0].inputs[graph::pointwiseInput(1)] = 3;
  binary.tensors.push_back(tensor(3, {2, 5, 3}, {15, 1, 5}));
  TensorSpec scalar = tensor(4, {1, 1, 1}, {1, 1, 1});
  scalar.isByValue = true;
  binary.tensors.push_back(scalar);
  graphs.push_back(binary);
  for (const GraphSpec &g : graphs) {
    auto alts = relabelings(g);
    EXPECT_FALSE(alts.empty());
    for (const auto &[label, alt] : alts)
      EXPECT_EQ(offsetTuples(alt), offsetTuples(g)) << label;
  }
}

/// Channels-last strides of [N, C, spatial...], written out here rather
/// than taken from the code under test.
Shape channelsLast(const Shape &d) {
  Shape st(d.size(), 1);
  int64_t step = d[1];
  for (size_t i = d.size(); i-- > 2;) {
    st[i] = step;
    step *= d[i];
  }
  st[0] = step;
  return st;
}

/// ResNet's conv1 group at [n, c, h, w] -> k channels: Y (uid 9) = relu(
/// batchnorm_inference(conv(X (1), W (2)))) with per-channel mean, inv_var,
/// scale, bias (3..6); X, W and Y channels-last, the conv result (7) and the
/// batchnorm's (8) virtual.
GraphSpec conv1x1(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k) {
  GraphSpec s;
  s.name = "resnet/group0";
  OpSpec conv;
  conv.kind = "conv_fprop";
  conv.name = "conv1";
  conv.inputs[Port::image] = 1;
  conv.inputs[Port::weight] = 2;
  conv.outputs[Port::Y] = 7;
  conv.intAttrs["pre_padding"] = {0, 0};
  conv.intAttrs["post_padding"] = {0, 0};
  conv.intAttrs["stride"] = {1, 1};
  conv.intAttrs["dilation"] = {1, 1};
  OpSpec bn;
  bn.kind = "batchnorm_inference";
  bn.inputs[Port::input] = 7;
  bn.inputs[Port::mean] = 3;
  bn.inputs[Port::inv_variance] = 4;
  bn.inputs[Port::scale] = 5;
  bn.inputs[Port::bias] = 6;
  bn.outputs[Port::Y] = 8;
  OpSpec relu;
  relu.kind = "pointwise";
  relu.mode = "relu";
  relu.inputs[graph::pointwiseInput(0)] = 8;
  relu.outputs[Port::output] = 9;
  s.ops = {conv, bn, relu};
  s.tensors = {tensor(1, {n, c, h, w}, channelsLast({n, c, h, w})),
               tensor(2, {k, c, 1, 1}, {c, 1, c, c})};
  for (int64_t uid = 3; uid <= 6; ++uid)
    s.tensors.push_back(tensor(uid, {1, k, 1, 1}, {k, 1, 1, 1}));
  for (int64_t uid = 7; uid <= 8; ++uid) {
    TensorSpec t = tensor(uid, {n, k, h, w}, channelsLast({n, k, h, w}));
    t.isVirtual = true;
    s.tensors.push_back(t);
  }
  s.tensors.push_back(tensor(9, {n, k, h, w}, channelsLast({n, k, h, w})));
  return s;
}

int64_t offsetOf(const TensorSpec &t, const Shape &index) {
  int64_t offset = 0;
  for (size_t d = 0; d < index.size(); ++d)
    offset += index[d] * t.strides[d];
  return offset;
}

/// out (uid) = mode(in0, in1), a binary pointwise op.
OpSpec binary(const std::string &mode, int64_t in0, int64_t in1, int64_t out) {
  OpSpec op;
  op.kind = "pointwise";
  op.mode = mode;
  op.inputs[graph::pointwiseInput(0)] = in0;
  op.inputs[graph::pointwiseInput(1)] = in1;
  op.outputs[Port::output] = out;
  return op;
}

TEST(ConvAsMatmul, ResnetConvGroupBecomesAMatmulOverTheSameBytes) {
  const int64_t n = 2, c = 8, h = 3, w = 5, k = 4;
  GraphSpec s = conv1x1(n, c, h, w, k);
  auto alt = convAsMatmul(s);
  ASSERT_TRUE(alt.has_value());
  EXPECT_EQ(alt->first, "1x1 convolution as a matmul");
  const GraphSpec &m = alt->second;
  ASSERT_EQ(m.ops.size(), 3u);
  EXPECT_EQ(m.ops[0].kind, graph::OpKind::Matmul);
  EXPECT_EQ(m.ops[0].inputs.at(Port::A), 1);
  EXPECT_EQ(m.ops[0].inputs.at(Port::B), 2);
  EXPECT_EQ(m.ops[0].outputs.at(Port::C), 7);
  EXPECT_EQ(m.ops[0].name, "conv1");
  EXPECT_EQ(m.ops[1].kind, graph::OpKind::BatchnormInference);
  const int64_t rows = n * h * w;
  EXPECT_EQ(find(m, 1).dims, (Shape{1, rows, c}));
  EXPECT_EQ(find(m, 2).dims, (Shape{1, c, k}));
  EXPECT_EQ(find(m, 2).strides, (Shape{k * c, 1, c}));
  EXPECT_EQ(find(m, 3).dims, (Shape{1, 1, k}));
  EXPECT_EQ(find(m, 7).dims, (Shape{1, rows, k}));
  EXPECT_TRUE(find(m, 7).isVirtual);
  // Position (n, h, w) is row (n * h + h) * w + w of every image, and
  // filter element [k][c] is B's [c][k]: same offsets, element by element.
  for (int64_t uid : {1, 9}) {
    const TensorSpec &before = find(s, uid), &after = find(m, uid);
    int64_t channels = before.dims[1];
    for (int64_t ni = 0; ni < n; ++ni)
      for (int64_t hi = 0; hi < h; ++hi)
        for (int64_t wi = 0; wi < w; ++wi)
          for (int64_t ci = 0; ci < channels; ++ci)
            ASSERT_EQ(offsetOf(before, {ni, ci, hi, wi}),
                      offsetOf(after, {0, (ni * h + hi) * w + wi, ci}))
                << "uid " << uid;
  }
  for (int64_t ki = 0; ki < k; ++ki)
    for (int64_t ci = 0; ci < c; ++ci)
      ASSERT_EQ(offsetOf(find(s, 2), {ki, ci, 0, 0}),
                offsetOf(find(m, 2), {0, ci, ki}));
  for (int64_t ki = 0; ki < k; ++ki)
    ASSERT_EQ(offsetOf(find(s, 5), {0, ki, 0, 0}),
              offsetOf(find(m, 5), {0, 0, ki}));
}

TEST(ConvAsMatmul, ResidualAddAndScalarAreRelabeledToo) {
  GraphSpec s = conv1x1(2, 8, 3, 5, 4);
  // relu(bn + residual * alpha): the residual an image like Y, alpha a
  // by-value scalar.
  s.ops.insert(s.ops.begin() + 2,
               {binary("mul", 10, 11, 12), binary("add", 8, 12, 13)});
  s.ops.back().inputs[graph::pointwiseInput(0)] = 13;
  s.tensors.push_back(tensor(10, {2, 4, 3, 5}, {60, 1, 20, 4}));
  TensorSpec alpha = tensor(11, {1, 1, 1, 1}, {1, 1, 1, 1});
  alpha.isByValue = true;
  s.tensors.push_back(alpha);
  for (int64_t uid : {12, 13}) {
    TensorSpec t = tensor(uid, {2, 4, 3, 5}, {60, 1, 20, 4});
    t.isVirtual = true;
    s.tensors.push_back(t);
  }
  auto alt = convAsMatmul(s);
  ASSERT_TRUE(alt.has_value());
  EXPECT_EQ(find(alt->second, 10).dims, (Shape{1, 30, 4}));
  EXPECT_EQ(find(alt->second, 10).strides, (Shape{120, 4, 1}));
  EXPECT_EQ(find(alt->second, 11).dims, (Shape{1, 1, 1}));
}

TEST(ConvAsMatmul, OtherConvolutionsAndGroupsAreLeftAlone) {
  auto refused = [](const std::string &why,
                    const std::function<void(GraphSpec &)> &change) {
    GraphSpec s = conv1x1(2, 8, 3, 5, 4);
    change(s);
    EXPECT_FALSE(convAsMatmul(s).has_value()) << why;
  };
  auto tensorOf = [](GraphSpec &s, int64_t uid) -> TensorSpec & {
    for (TensorSpec &t : s.tensors)
      if (t.uid == uid)
        return t;
    return s.tensors.front();
  };
  ASSERT_TRUE(convAsMatmul(conv1x1(2, 8, 3, 5, 4)).has_value());
  refused("3x3 filter", [&](GraphSpec &s) {
    tensorOf(s, 2).dims = {4, 8, 3, 3};
    tensorOf(s, 2).strides = {72, 1, 24, 8};
  });
  refused("stride 2", [](GraphSpec &s) { s.ops[0].intAttrs["stride"] = {2, 2}; });
  refused("pre-padding", [](GraphSpec &s) {
    s.ops[0].intAttrs["pre_padding"] = {0, 1};
  });
  refused("post-padding", [](GraphSpec &s) {
    s.ops[0].intAttrs["post_padding"] = {1, 0};
  });
  refused("symmetric padding", [](GraphSpec &s) {
    s.ops[0].intAttrs["padding"] = {1, 1};
  });
  refused("gen_index in the group",
          [](GraphSpec &s) { s.ops[2].mode = "gen_index"; });
  refused("a filter computed in the group", [&](GraphSpec &s) {
    s.ops.insert(s.ops.begin(), binary("mul", 20, 21, 2));
    tensorOf(s, 2).isVirtual = true;
    s.tensors.push_back(tensor(20, {4, 8, 1, 1}, {8, 1, 8, 8}));
    s.tensors.push_back(tensor(21, {1, 1, 1, 1}, {1, 1, 1, 1}));
  });
  refused("the filter read by another op", [](GraphSpec &s) {
    s.ops[2].mode = "add";
    s.ops[2].inputs[graph::pointwiseInput(1)] = 2;
  });
  refused("an f32 image with an f16 filter",
          [&](GraphSpec &s) { tensorOf(s, 1).dtype = DType::F32; });
  refused("grouped", [&](GraphSpec &s) { tensorOf(s, 2).dims = {4, 4, 1, 1}; });
  refused("row-major image", [&](GraphSpec &s) {
    tensorOf(s, 1).strides = graph::rowMajorStrides(tensorOf(s, 1).dims);
  });
  refused("row-major output", [&](GraphSpec &s) {
    tensorOf(s, 9).strides = graph::rowMajorStrides(tensorOf(s, 9).dims);
  });
  refused("per-sample bias", [&](GraphSpec &s) {
    tensorOf(s, 6).dims = {2, 4, 1, 1};
    tensorOf(s, 6).strides = {4, 1, 1, 1};
  });
  refused("a reduction in the group", [](GraphSpec &s) {
    s.ops[2].kind = "reduction";
    s.ops[2].mode = "add";
  });
  refused("a second convolution", [](GraphSpec &s) { s.ops[2].kind = "conv_fprop"; });
}

/// Checks that every element of every tensor of `s` has the same offset in
/// `m` (convAsMatmul's result) at its relabeled index: an image's position
/// p (n and spatial, row-major) and channel c at [0, p, c], a per-channel
/// tensor's c at [0, 0, c], filter [k][c] at [0, c, k].
void expectSameOffsets(const GraphSpec &s, const GraphSpec &m,
                       int64_t filterUid) {
  for (const TensorSpec &before : s.tensors) {
    if (before.isByValue)
      continue;
    const TensorSpec &after = find(m, before.uid);
    Shape strides = before.strides.empty() ? graph::rowMajorStrides(before.dims)
                                           : before.strides;
    Shape index(before.dims.size(), 0);
    int64_t count = graph::numElements(before.dims);
    for (int64_t e = 0; e < count; ++e) {
      int64_t offset = 0;
      for (size_t d = 0; d < index.size(); ++d)
        offset += index[d] * strides[d];
      Shape mapped;
      if (before.uid == filterUid) {
        mapped = {0, index[1], index[0]};
      } else {
        int64_t position = index[0];
        for (size_t d = 2; d < index.size(); ++d)
          position = position * before.dims[d] + index[d];
        mapped = {0, position, index[1]};
      }
      if (!before.isVirtual)
        ASSERT_EQ(offsetOf(after, mapped), offset)
            << "uid " << before.uid << " element " << e;
      for (size_t d = index.size(); d-- > 0;)
        if (++index[d] < before.dims[d])
          break;
        else
          index[d] = 0;
    }
  }
}

/// conv1x1's group over an image of any rank: [n, c, spatial...] -> k
/// channels, per-channel tensors of channel stride `vectorStride`.
GraphSpec conv1x1Ranked(int64_t n, int64_t c, Shape spatial, int64_t k,
                        int64_t vectorStride = 1) {
  GraphSpec s = conv1x1(n, c, 1, 1, k);
  size_t rank = spatial.size() + 2;
  std::vector<int64_t> zeros(spatial.size(), 0), ones(spatial.size(), 1);
  s.ops[0].intAttrs = {{"pre_padding", zeros},
                       {"post_padding", zeros},
                       {"stride", ones},
                       {"dilation", ones}};
  for (TensorSpec &t : s.tensors) {
    int64_t channels = t.dims[1];
    if (t.uid == 2) {
      t.dims = Shape(rank, 1);
      t.dims[0] = k;
      t.dims[1] = c;
      t.strides = Shape(rank, c);
      t.strides[1] = 1;
    } else if (t.uid >= 3 && t.uid <= 6) {
      t.dims = Shape(rank, 1);
      t.dims[1] = k;
      t.strides = Shape(rank, k * vectorStride);
      t.strides[1] = vectorStride;
    } else {
      t.dims = {n, channels};
      t.dims.insert(t.dims.end(), spatial.begin(), spatial.end());
      t.strides = channelsLast(t.dims);
    }
  }
  return s;
}

TEST(ConvAsMatmul, ImagesOfRankThreeAndFiveAndStridedVectors) {
  for (const GraphSpec &s :
       {conv1x1Ranked(2, 6, {7}, 3), conv1x1Ranked(1, 4, {2, 3, 5}, 5),
        conv1x1Ranked(3, 1, {4, 2}, 2, /*vectorStride=*/2),
        conv1x1Ranked(2, 3, {2, 2}, 1)}) {
    auto alt = convAsMatmul(s);
    ASSERT_TRUE(alt.has_value());
    expectSameOffsets(s, alt->second, /*filterUid=*/2);
  }
}

TEST(ConvAsMatmul, EmptyStridesReadRowMajorAndByValueScalarsBecomeRankThree) {
  GraphSpec s = conv1x1(2, 8, 3, 5, 4);
  for (TensorSpec &t : s.tensors)
    if (t.uid == 5)
      t.strides.clear(); // [1, 4, 1, 1] row-major: channel stride 1
  s.ops.insert(s.ops.begin() + 2, binary("mul", 8, 11, 12));
  s.ops.back().inputs[graph::pointwiseInput(0)] = 12;
  TensorSpec alpha = tensor(11, {1}, {1});
  alpha.isByValue = true;
  s.tensors.push_back(alpha);
  TensorSpec scaled = tensor(12, {2, 4, 3, 5}, {60, 1, 20, 4});
  scaled.isVirtual = true;
  s.tensors.push_back(scaled);
  auto alt = convAsMatmul(s);
  ASSERT_TRUE(alt.has_value());
  EXPECT_EQ(find(alt->second, 11).dims, (Shape{1, 1, 1}));
  EXPECT_EQ(find(alt->second, 5).strides, (Shape{4, 4, 1}));
  expectSameOffsets(s, alt->second, /*filterUid=*/2);
}

} // namespace
