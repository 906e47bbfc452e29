//===- GpuLoweringTest.cpp - The GPU path's CPU-side pieces ---------------===//
//
// specializeForGpu (dynamic dims bound from input shapes), the group sources
// lowerToCudnn records, and the reference run of one group the autotuner
// compares plans with, all without a GPU.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Conversion/GraphToCudnn.h"
#include "GraphDialect/GraphDialect.h"
#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Reference/Compare.h"
#include "GraphDialect/Reference/Executor.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::graph;
namespace ref = ::graph::ref;
namespace rt = ::graph::rt;

namespace {

constexpr const char *kDynamicMlp = R"mlir(
graph.graph @mlp(%x: tensor<?x64xf16> {graph.name = "x"},
                 %w: tensor<64x32xf16> {graph.name = "w"},
                 %b: tensor<1x32xf16> {graph.name = "b"})
    -> (tensor<?x32xf16> {graph.name = "y"}, tensor<?x1xf32> {graph.name = "s"})
    attributes {compute_data_type = f32} {
  %h = graph.matmul %x, %w : (tensor<?x64xf16>, tensor<64x32xf16>) -> tensor<?x32xf32>
  %hb = graph.pointwise add(%h, %b) : (tensor<?x32xf32>, tensor<1x32xf16>) -> tensor<?x32xf16>
  %s = graph.reduction add %h : (tensor<?x32xf32>) -> tensor<?x1xf32>
  graph.output %hb, %s : tensor<?x32xf16>, tensor<?x1xf32>
}
)mlir";

class GpuLoweringTest : public ::testing::Test {
protected:
  GpuLoweringTest() {
    DialectRegistry registry;
    registry.insert<GraphDialect>();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    context.printOpOnDiagnostic(false);
  }

  GraphOp parse(const char *text) {
    module = parseSourceString<ModuleOp>(text, &context);
    if (!module)
      return nullptr;
    PassManager pm(&context);
    buildGpuPipeline(pm);
    if (failed(pm.run(*module)))
      return nullptr;
    return *module->getOps<GraphOp>().begin();
  }

  /// Seeded values in [-1, 1), rounded to `dtype`.
  static ref::HostTensor random(ref::DType dtype, ref::Shape shape,
                                unsigned seed) {
    ref::HostTensor tensor = ref::HostTensor::zeros(dtype, shape);
    ref::NdArray array(shape);
    for (size_t i = 0; i < array.data.size(); ++i)
      array.data[i] = ((i * 7919 + seed * 104729) % 2000) / 1000.0 - 1.0;
    ref::store(array, dtype, ref::rowMajorStrides(shape), tensor.bytes.data());
    return tensor;
  }

  /// An i32 tensor of `values` (row-major).
  static ref::HostTensor ints(ref::Shape shape, std::vector<double> values) {
    ref::HostTensor tensor = ref::HostTensor::zeros(ref::DType::I32, shape);
    ref::NdArray array(shape);
    array.data = std::move(values);
    ref::store(array, ref::DType::I32, ref::rowMajorStrides(shape),
               tensor.bytes.data());
    return tensor;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(GpuLoweringTest, SpecializeBindsEveryDim) {
  GraphOp graph = parse(kDynamicMlp);
  ASSERT_TRUE(graph);
  EXPECT_TRUE(hasDynamicInputs(graph));
  // Unbound dims are the lowering's error, naming what to do.
  CudnnProgram unbound;
  std::string error = lowerToCudnn(graph, unbound);
  EXPECT_NE(error.find("bind them first"), std::string::npos) << error;

  for (int64_t rows : {5, 200}) {
    OwningOpRef<ModuleOp> holder;
    GraphOp bound =
        specializeForGpu(graph, {{rows, 64}, {64, 32}, {1, 32}}, holder, error);
    ASSERT_TRUE(bound) << error;
    EXPECT_FALSE(hasDynamicInputs(bound));
    bool allStatic = true;
    bound.walk([&](Operation *op) {
      for (Type type : op->getResultTypes())
        if (auto ranked = dyn_cast<RankedTensorType>(type))
          allStatic &= ranked.hasStaticShape() && !getStrides(ranked).empty();
    });
    EXPECT_TRUE(allStatic);
    CudnnProgram program;
    std::vector<GroupSource> sources;
    ASSERT_EQ(lowerToCudnn(bound, program, &sources), "");
    ASSERT_EQ(program.groups.size(), 1u);
    ASSERT_EQ(sources.size(), 1u);
    EXPECT_EQ(sources[0].ops.size(), 3u);
    for (const DeviceTensor &tensor : program.tensors)
      if (tensor.role == DeviceTensor::Role::Output && tensor.index == 0)
        EXPECT_EQ(tensor.dims, (ref::Shape{rows, 32}));
    // The original graph is untouched: its next execute binds again.
    EXPECT_TRUE(hasDynamicInputs(graph));
  }
}

TEST_F(GpuLoweringTest, SpecializeRejectsContradictions) {
  GraphOp graph = parse(kDynamicMlp);
  ASSERT_TRUE(graph);
  OwningOpRef<ModuleOp> holder;
  std::string error;
  EXPECT_FALSE(
      specializeForGpu(graph, {{4, 65}, {64, 32}, {1, 32}}, holder, error));
  EXPECT_NE(error.find("input 0 (uid 1 \"x\") is declared ?x64 but the given "
                       "shape is 4x65: dim 1 is fixed at 64"),
            std::string::npos)
      << error;
  EXPECT_FALSE(specializeForGpu(graph, {{4, 64}}, holder, error));
  EXPECT_NE(error.find("1 input shapes given for 3 inputs"), std::string::npos)
      << error;
  EXPECT_FALSE(specializeForGpu(graph, {{4, 64, 1}, {64, 32}, {1, 32}}, holder,
                                error));
  EXPECT_NE(error.find("has rank 3"), std::string::npos) << error;
}

// The autotuner's reference: the group's ops alone, fed the group's inputs,
// compute what the whole graph computes.
TEST_F(GpuLoweringTest, GroupSourceRunsOnTheReference) {
  GraphOp graph = parse(kDynamicMlp);
  ASSERT_TRUE(graph);
  OwningOpRef<ModuleOp> holder;
  std::string error;
  GraphOp bound =
      specializeForGpu(graph, {{6, 64}, {64, 32}, {1, 32}}, holder, error);
  ASSERT_TRUE(bound) << error;
  std::vector<ref::HostTensor> inputs = {
      random(ref::DType::F16, {6, 64}, 1), random(ref::DType::F16, {64, 32}, 2),
      random(ref::DType::F16, {1, 32}, 3)};
  std::vector<ref::HostTensor> whole;
  ASSERT_EQ(ref::execute(bound, inputs, whole), "");

  CudnnProgram program;
  std::vector<GroupSource> sources;
  ASSERT_EQ(lowerToCudnn(bound, program, &sources), "");
  const GroupSource &source = sources[0];
  std::vector<std::pair<Value, ref::NdArray>> given;
  Block &body = bound.getBody().front();
  for (unsigned i = 0; i < inputs.size(); ++i) {
    // Every group tensor has its value, inputs by their uid.
    ASSERT_TRUE(bound.getInputUid(i).has_value());
    auto it = source.values.find(*bound.getInputUid(i));
    ASSERT_NE(it, source.values.end());
    EXPECT_EQ(it->second, body.getArgument(i));
    given.emplace_back(it->second,
                       ref::load(inputs[i].bytes.data(), inputs[i].dtype,
                                 inputs[i].shape, inputs[i].strides));
  }
  std::vector<Value> wanted;
  for (unsigned i = 0; i < bound.getNumResults(); ++i)
    wanted.push_back(source.values.at(bound.getOutputUid(i).value_or(-1)));
  std::vector<ref::NdArray> results;
  ASSERT_EQ(ref::executeOps(source.ops, given, wanted, results), "");
  ASSERT_EQ(results.size(), whole.size());
  for (size_t i = 0; i < results.size(); ++i) {
    ref::NdArray expected = ref::load(whole[i].bytes.data(), whole[i].dtype,
                                      whole[i].shape, whole[i].strides);
    EXPECT_EQ(results[i].shape, expected.shape);
    EXPECT_EQ(results[i].data, expected.data);
  }

  // A missing input is the op's error, not a crash.
  given.pop_back();
  EXPECT_NE(ref::executeOps(source.ops, given, wanted, results)
                .find("is neither given nor computed"),
            std::string::npos);
}

// The bound the autotuner drops plans by is graph-run's --check-against.
TEST(CompareTest, NormwiseBoundFollowsTheNarrowestInput) {
  EXPECT_EQ(ref::deviceTolerance(ref::DType::F32, {ref::DType::F32}, false),
            1e-5);
  EXPECT_EQ(ref::deviceTolerance(ref::DType::F32,
                                 {ref::DType::F16, ref::DType::I32}, false),
            1e-2);
  auto bytes = [](std::vector<float> values) {
    std::vector<uint8_t> out(values.size() * 4);
    std::memcpy(out.data(), values.data(), out.size());
    return out;
  };
  std::vector<uint8_t> want = bytes({1, 2, 3, 4});
  ref::Comparison close =
      ref::compare(bytes({1, 2, 3, 4.001f}), want, ref::DType::F32, 4, 1e-3,
                   1e-3, /*normwise=*/true);
  EXPECT_TRUE(close.ok);
  ref::Comparison off = ref::compare(bytes({1, 2, 3, 5}), want, ref::DType::F32,
                                     4, 1e-2, 1e-2, /*normwise=*/true);
  EXPECT_FALSE(off.ok);
  EXPECT_EQ(off.firstBad, 3);
  EXPECT_NEAR(off.relativeError, 1 / std::sqrt(30.0), 1e-6);
  // A NaN where the reference has a number fails whatever the norm says.
  ref::Comparison nan =
      ref::compare(bytes({1, 2, 3, std::nanf("")}), want, ref::DType::F32, 4,
                   1.0, 1.0, /*normwise=*/true);
  EXPECT_FALSE(nan.ok);
}

// Attention heads as a user writes them: one QKV projection viewed as
// heads (reshape, slice, transpose), sdpa, its output transposed back and
// flattened for the out-projection. With folded views no copy group is
// left, the views read the projection's buffer in place, and sdpa's output
// is written in [b, s, h, d] order so the flattening is free.
constexpr const char *kHeads = R"mlir(
graph.graph @heads(%x: tensor<16x64xbf16> {graph.name = "x"},
                   %wqkv: tensor<64x192xbf16> {graph.name = "wqkv"},
                   %wo: tensor<64x64xbf16> {graph.name = "wo"})
    -> (tensor<16x64xbf16> {graph.name = "y"})
    attributes {io_data_type = bf16, intermediate_data_type = bf16, compute_data_type = f32} {
  %qkv = graph.matmul %x, %wqkv : (tensor<16x64xbf16>, tensor<64x192xbf16>) -> tensor<16x192xbf16>
  %r = graph.reshape %qkv : (tensor<16x192xbf16>) -> tensor<2x8x12x16xbf16>
  %q4 = graph.slice %r {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 8, 4, 16>} : (tensor<2x8x12x16xbf16>) -> tensor<2x8x4x16xbf16>
  %k4 = graph.slice %r {start = array<i64: 0, 0, 4, 0>, limit = array<i64: 2, 8, 8, 16>} : (tensor<2x8x12x16xbf16>) -> tensor<2x8x4x16xbf16>
  %v4 = graph.slice %r {start = array<i64: 0, 0, 8, 0>, limit = array<i64: 2, 8, 12, 16>} : (tensor<2x8x12x16xbf16>) -> tensor<2x8x4x16xbf16>
  %q = graph.transpose %q4 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x8x4x16xbf16>) -> tensor<2x4x8x16xbf16>
  %k = graph.transpose %k4 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x8x4x16xbf16>) -> tensor<2x4x8x16xbf16>
  %v = graph.transpose %v4 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x8x4x16xbf16>) -> tensor<2x4x8x16xbf16>
  %o = graph.sdpa %q, %k, %v {use_causal_mask, attn_scale_value = 0.25 : f64} : (tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>) -> (tensor<2x4x8x16xbf16>, none, none, none)
  %ot = graph.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x4x8x16xbf16>) -> tensor<2x8x4x16xbf16>
  %of = graph.reshape %ot : (tensor<2x8x4x16xbf16>) -> tensor<16x64xbf16>
  %y = graph.matmul %of, %wo : (tensor<16x64xbf16>, tensor<64x64xbf16>) -> tensor<16x64xbf16>
  graph.output %y : tensor<16x64xbf16>
}
)mlir";

const DeviceTensor *tensorOf(const CudnnProgram &program, int64_t uid) {
  for (const DeviceTensor &tensor : program.tensors)
    if (tensor.uid == uid)
      return &tensor;
  return nullptr;
}

TEST_F(GpuLoweringTest, FoldedViewsReadTheirSourceInPlace) {
  GraphOp graph = parse(kHeads);
  ASSERT_TRUE(graph);
  CudnnProgram copies, folded;
  ASSERT_EQ(lowerToCudnn(graph, copies), "");
  ASSERT_EQ(lowerToCudnn(graph, folded, nullptr, /*foldViews=*/true), "");
  // matmul, 2 views + 3 slices + 3 transposes, sdpa, transpose + reshape,
  // matmul: without folding every view is a copy group of its own.
  EXPECT_EQ(copies.groups.size(), 12u);
  ASSERT_EQ(folded.groups.size(), 3u);
  EXPECT_EQ(folded.groups[0].ops.front().kind, "matmul");
  EXPECT_EQ(folded.groups[1].ops.front().kind, "sdpa");
  EXPECT_EQ(folded.groups[2].ops.front().kind, "matmul");

  // sdpa reads k through the projection: [b, h, s, d] over [b*s, 3*h*d]
  // rows, starting 4 heads in.
  const rt::OpSpec &sdpa = folded.groups[1].ops.front();
  const DeviceTensor *k = tensorOf(folded, sdpa.inputs.at("k"));
  ASSERT_TRUE(k);
  const DeviceTensor *qkv = tensorOf(folded, k->aliasOf);
  ASSERT_TRUE(qkv);
  EXPECT_EQ(qkv->dims, (ref::Shape{16, 192}));
  EXPECT_EQ(k->aliasOffset, 4 * 16);
  EXPECT_EQ(k->strides, (ref::Shape{8 * 192, 16, 192, 1}));
  // sdpa's O is written [b, s, h, d]-major, so the out-projection's A is a
  // packed alias of it.
  const DeviceTensor *o = tensorOf(folded, sdpa.outputs.at("O"));
  ASSERT_TRUE(o);
  EXPECT_EQ(o->aliasOf, -1);
  EXPECT_EQ(o->strides, (ref::Shape{8 * 64, 16, 64, 1}));
  const DeviceTensor *a =
      tensorOf(folded, folded.groups[2].ops.front().inputs.at("A"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->aliasOf, o->uid);
  EXPECT_EQ(a->aliasOffset, 0);
  EXPECT_EQ(a->strides, (ref::Shape{64, 1}));
}

// A view a convolution reads is copied: only the readers that take strided
// operands (matmul, sdpa, pointwise, rope) read views in place.
TEST_F(GpuLoweringTest, ViewsOfConvolutionInputsStayCopies) {
  GraphOp graph = parse(R"mlir(
graph.graph @c(%x: tensor<2x8x8x4xf16> {graph.name = "x"}, %w: tensor<4x4x1x1xf16> {graph.name = "w"})
    -> (tensor<2x4x8x8xf32> {graph.name = "y"}) attributes {compute_data_type = f32} {
  %t = graph.transpose %x {permutation = array<i64: 0, 3, 1, 2>} : (tensor<2x8x8x4xf16>) -> tensor<2x4x8x8xf16>
  %y = graph.conv_fprop %t, %w {padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<2x4x8x8xf16>, tensor<4x4x1x1xf16>) -> tensor<2x4x8x8xf32>
  graph.output %y : tensor<2x4x8x8xf32>
})mlir");
  ASSERT_TRUE(graph);
  CudnnProgram program;
  ASSERT_EQ(lowerToCudnn(graph, program, nullptr, /*foldViews=*/true), "");
  ASSERT_EQ(program.groups.size(), 2u);
  EXPECT_EQ(program.groups[0].ops.front().kind, "transpose");
  for (const DeviceTensor &tensor : program.tensors)
    EXPECT_EQ(tensor.aliasOf, -1);
}

// DiT's adaLN gates: a column slice of a [b, 6d] row, unsqueezed to
// [b, 1, d] and broadcast over the tokens by a pointwise op. cuDNN computed
// such a strided broadcast operand wrong on the H200, so that view is a
// packed copy; the same slice read without broadcasting stays a view.
TEST_F(GpuLoweringTest, StridedViewsBroadcastByPointwiseOpsAreCopies) {
  GraphOp graph = parse(R"mlir(
graph.graph @g(%mod: tensor<2x48xf32> {graph.name = "mod"}, %h: tensor<2x4x8xf32> {graph.name = "h"},
               %r: tensor<2x8xf32> {graph.name = "r"})
    -> (tensor<2x4x8xf32> {graph.name = "y"}, tensor<2x8xf32> {graph.name = "z"}) attributes {compute_data_type = f32} {
  %s = graph.slice %mod {start = array<i64: 0, 16>, limit = array<i64: 2, 24>} : (tensor<2x48xf32>) -> tensor<2x8xf32>
  %g = graph.reshape %s : (tensor<2x8xf32>) -> tensor<2x1x8xf32>
  %y = graph.pointwise mul(%g, %h) : (tensor<2x1x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %s2 = graph.slice %mod {start = array<i64: 0, 32>, limit = array<i64: 2, 40>} : (tensor<2x48xf32>) -> tensor<2x8xf32>
  %z = graph.pointwise add(%s2, %r) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  graph.output %y, %z : tensor<2x4x8xf32>, tensor<2x8xf32>
})mlir");
  ASSERT_TRUE(graph);
  CudnnProgram program;
  ASSERT_EQ(lowerToCudnn(graph, program, nullptr, /*foldViews=*/true), "");
  const rt::OpSpec *mul = nullptr, *add = nullptr;
  for (const auto &group : program.groups)
    for (const rt::OpSpec &op : group.ops)
      if (op.kind == "pointwise")
        (op.outputs.at("output") == program.outputUids[0] ? mul : add) = &op;
  ASSERT_TRUE(mul && add);
  // The broadcast gate is a packed [2, 1, 8] of its own (a copy group
  // writes it), not a view of mod.
  const DeviceTensor *gate = tensorOf(program, mul->inputs.at("in0"));
  ASSERT_TRUE(gate);
  EXPECT_EQ(gate->aliasOf, -1);
  EXPECT_EQ(gate->strides, (ref::Shape{8, 8, 1}));
  // The slice the add reads element for element reads mod in place.
  const DeviceTensor *slice = tensorOf(program, add->inputs.at("in0"));
  ASSERT_TRUE(slice);
  EXPECT_NE(slice->aliasOf, -1);
  EXPECT_EQ(slice->aliasOffset, 32);
  EXPECT_EQ(slice->strides, (ref::Shape{48, 1}));
}

// cuDNN 9.19 has no engine config for scatter mode on the H200: the GPU
// pipeline runs the matmul in none mode and the routing as
// moe_scatter_rows, which together compute what scatter mode does, bit for
// bit on the reference; the scatter's group is the generated kernels'.
TEST_F(GpuLoweringTest, ScatterModeMoeRunsAsNoneModeAndARowScatter) {
  const char *text = R"mlir(
graph.graph @down(%act: tensor<1x12x8xbf16> {graph.name = "act"},
                  %w: tensor<3x8x5xbf16> {graph.name = "w"},
                  %off: tensor<3x1x1xi32> {graph.name = "offsets"},
                  %index: tensor<12x1x1xi32> {graph.name = "token_index"},
                  %ks: tensor<12x1x1xi32> {graph.name = "token_ks"})
    -> (tensor<1x12x5xbf16> {graph.name = "down"}) attributes {compute_data_type = f32} {
  %y = graph.moe_grouped_matmul %act, %w, offsets %off token_index %index token_ks %ks
      {mode = #graph.moe_mode<scatter>, top_k = 2 : i64, name = "down"}
      : (tensor<1x12x8xbf16>, tensor<3x8x5xbf16>, tensor<3x1x1xi32>, tensor<12x1x1xi32>, tensor<12x1x1xi32>) -> tensor<1x12x5xbf16>
  graph.output %y : tensor<1x12x5xbf16>
})mlir";
  OwningOpRef<ModuleOp> original = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(original);
  GraphOp before = *original->getOps<GraphOp>().begin();
  GraphOp after = parse(text);
  ASSERT_TRUE(after);
  int scatters = 0, matmuls = 0;
  after.walk([&](MoeScatterRowsOp op) {
    ++scatters;
    EXPECT_EQ(op.getTopK(), 2);
    EXPECT_EQ(getNodeLabel(op), "down");
  });
  after.walk([&](MoeGroupedMatmulOp op) {
    ++matmuls;
    EXPECT_FALSE(op.getTokenIndex());
    EXPECT_NE(op.getMode(), MoeMode::scatter);
  });
  EXPECT_EQ(scatters, 1);
  EXPECT_EQ(matmuls, 1);

  // Six tokens, two slots each: a shuffled permutation of the 12 rows.
  const int64_t destination[12] = {7, 2, 11, 0, 5, 9, 1, 10, 4, 8, 3, 6};
  std::vector<double> index, ks;
  for (int64_t d : destination) {
    index.push_back(static_cast<double>(d / 2));
    ks.push_back(static_cast<double>(d % 2));
  }
  std::vector<ref::HostTensor> inputs = {
      random(ref::DType::BF16, {1, 12, 8}, 4),
      random(ref::DType::BF16, {3, 8, 5}, 5), ints({3, 1, 1}, {0, 5, 5}),
      ints({12, 1, 1}, index), ints({12, 1, 1}, ks)};
  std::vector<ref::HostTensor> want, got;
  ASSERT_EQ(ref::execute(before, inputs, want), "");
  ASSERT_EQ(ref::execute(after, inputs, got), "");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].shape, want[0].shape);
  EXPECT_EQ(got[0].bytes, want[0].bytes);
  ref::NdArray values = ref::load(got[0].bytes.data(), got[0].dtype,
                                  got[0].shape, got[0].strides);
  double sum = 0;
  for (double v : values.data)
    sum += std::fabs(v);
  EXPECT_GT(sum, 1.0); // rows were written, not left zero

  // A repeated destination is the reference's error, naming the row.
  index[3] = index[0];
  ks[3] = ks[0];
  inputs[3] = ints({12, 1, 1}, index);
  inputs[4] = ints({12, 1, 1}, ks);
  std::string error = ref::execute(after, inputs, got);
  EXPECT_NE(error.find("destination row 7 is written twice"), std::string::npos)
      << error;
}

// Offsets that end the experts' rows before the last token row (E + 1
// entries): rows past the end are padding, their routing unread (here it
// repeats an earlier destination), and the output rows nothing lands on
// are zero, as in scatter mode.
TEST_F(GpuLoweringTest, ScatterModeSplitLeavesPaddingRowsUnrouted) {
  const char *text = R"mlir(
graph.graph @padded(%act: tensor<1x8x4xf32> {graph.name = "act"},
                    %w: tensor<2x4x3xf32> {graph.name = "w"},
                    %off: tensor<3x1x1xi32> {graph.name = "offsets"},
                    %index: tensor<8x1x1xi32> {graph.name = "token_index"},
                    %ks: tensor<8x1x1xi32> {graph.name = "token_ks"})
    -> (tensor<1x8x3xf32> {graph.name = "down"}) attributes {compute_data_type = f32} {
  %y = graph.moe_grouped_matmul %act, %w, offsets %off token_index %index token_ks %ks
      {mode = #graph.moe_mode<scatter>, top_k = 2 : i64}
      : (tensor<1x8x4xf32>, tensor<2x4x3xf32>, tensor<3x1x1xi32>, tensor<8x1x1xi32>, tensor<8x1x1xi32>) -> tensor<1x8x3xf32>
  graph.output %y : tensor<1x8x3xf32>
})mlir";
  OwningOpRef<ModuleOp> original = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(original);
  GraphOp before = *original->getOps<GraphOp>().begin();
  GraphOp after = parse(text);
  ASSERT_TRUE(after);
  bool bounded = false;
  after.walk([&](MoeScatterRowsOp op) { bounded = op.getBounded(); });
  EXPECT_TRUE(bounded);
  // Rows 0..5 go to rows 5, 0, 3, 1, 4, 2; rows 6 and 7 are padding.
  std::vector<ref::HostTensor> inputs = {
      random(ref::DType::F32, {1, 8, 4}, 6),
      random(ref::DType::F32, {2, 4, 3}, 7), ints({3, 1, 1}, {0, 3, 6}),
      ints({8, 1, 1}, {2, 0, 1, 0, 2, 1, 2, 2}),
      ints({8, 1, 1}, {1, 0, 1, 1, 0, 0, 1, 1})};
  std::vector<ref::HostTensor> want, got;
  ASSERT_EQ(ref::execute(before, inputs, want), "");
  ASSERT_EQ(ref::execute(after, inputs, got), "");
  EXPECT_EQ(got[0].bytes, want[0].bytes);
  ref::NdArray values = ref::load(got[0].bytes.data(), got[0].dtype,
                                  got[0].shape, got[0].strides);
  for (int64_t r = 6; r < 8; ++r)
    for (int64_t c = 0; c < 3; ++c)
      EXPECT_EQ(values.data[r * 3 + c], 0.0) << "row " << r;
  double routed = 0;
  for (int64_t i = 0; i < 18; ++i)
    routed += std::fabs(values.data[i]);
  EXPECT_GT(routed, 0.1);
}

// cuDNN 9.19's gather-mode engine faults on the H200: the GPU pipeline
// gathers the routed rows as moe_gather_rows (once for the gate and up
// projections, which route alike) and runs the matmuls in none mode, which
// together compute what gather mode does, bit for bit on the reference.
// Padding rows past the experts' end hold indices outside the tokens: the
// gather reads zeros for them and the matmul leaves them zero.
TEST_F(GpuLoweringTest, GatherModeMoeRunsAsARowGatherAndNoneMode) {
  const char *text = R"mlir(
graph.graph @gate_up(%t: tensor<1x6x8xbf16> {graph.name = "tokens"},
                     %wg: tensor<3x8x5xbf16> {graph.name = "w_gate"},
                     %wu: tensor<3x8x5xbf16> {graph.name = "w_up"},
                     %off: tensor<4x1x1xi32> {graph.name = "offsets"},
                     %index: tensor<14x1x1xi32> {graph.name = "token_index"})
    -> (tensor<1x14x5xbf16> {graph.name = "gate"}, tensor<1x14x5xbf16> {graph.name = "up"})
    attributes {compute_data_type = f32} {
  %g = graph.moe_grouped_matmul %t, %wg, offsets %off token_index %index
      {mode = #graph.moe_mode<gather>, name = "gate"}
      : (tensor<1x6x8xbf16>, tensor<3x8x5xbf16>, tensor<4x1x1xi32>, tensor<14x1x1xi32>) -> tensor<1x14x5xbf16>
  %u = graph.moe_grouped_matmul %t, %wu, offsets %off token_index %index
      {mode = #graph.moe_mode<gather>, name = "up"}
      : (tensor<1x6x8xbf16>, tensor<3x8x5xbf16>, tensor<4x1x1xi32>, tensor<14x1x1xi32>) -> tensor<1x14x5xbf16>
  graph.output %g, %u : tensor<1x14x5xbf16>, tensor<1x14x5xbf16>
})mlir";
  OwningOpRef<ModuleOp> original = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(original);
  GraphOp before = *original->getOps<GraphOp>().begin();
  GraphOp after = parse(text);
  ASSERT_TRUE(after);
  int gathers = 0, matmuls = 0;
  after.walk([&](MoeGatherRowsOp op) {
    ++gathers;
    EXPECT_EQ(getNodeLabel(op), "gate.gather");
  });
  after.walk([&](MoeGroupedMatmulOp op) {
    ++matmuls;
    EXPECT_FALSE(op.getTokenIndex());
    EXPECT_NE(op.getMode(), MoeMode::gather);
  });
  EXPECT_EQ(gathers, 1);
  EXPECT_EQ(matmuls, 2);

  // Six tokens, top 2: twelve routed rows over three experts (rows 0-4,
  // 5-8, 9-11), then two padding rows whose indices lie outside.
  std::vector<ref::HostTensor> inputs = {
      random(ref::DType::BF16, {1, 6, 8}, 8),
      random(ref::DType::BF16, {3, 8, 5}, 9),
      random(ref::DType::BF16, {3, 8, 5}, 10), ints({4, 1, 1}, {0, 5, 9, 12}),
      ints({14, 1, 1}, {0, 2, 3, 5, 1, 4, 0, 2, 3, 1, 5, 4, -1, 99})};
  std::vector<ref::HostTensor> want, got;
  ASSERT_EQ(ref::execute(before, inputs, want), "");
  ASSERT_EQ(ref::execute(after, inputs, got), "");
  ASSERT_EQ(got.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(got[i].shape, want[i].shape);
    EXPECT_EQ(got[i].bytes, want[i].bytes) << "output " << i;
    ref::NdArray values = ref::load(got[i].bytes.data(), got[i].dtype,
                                    got[i].shape, got[i].strides);
    double routed = 0;
    for (int64_t e = 0; e < 12 * 5; ++e)
      routed += std::fabs(values.data[e]);
    EXPECT_GT(routed, 1.0); // routed rows were written, not left zero
    for (int64_t e = 12 * 5; e < 14 * 5; ++e)
      EXPECT_EQ(values.data[e], 0.0) << "padding element " << e;
  }

  // A routed row's index outside the tokens is the reference's error on
  // the original graph, naming the entry.
  inputs[4] = ints({14, 1, 1}, {0, 2, 3, 5, 1, 4, 0, 6, 3, 1, 5, 4, -1, 99});
  std::string error = ref::execute(before, inputs, want);
  EXPECT_NE(error.find("entry 7 = 6 is outside [0, 6)"), std::string::npos)
      << error;
}

// An f32 intermediate crossing into a bf16 matmul is stored in bf16 (what
// the matmul rounds it to): cuDNN has no f32 x bf16 matmul.
TEST_F(GpuLoweringTest, TensorCoreOperandsCrossGroupsIn16Bit) {
  GraphOp graph = parse(R"mlir(
graph.graph @n(%x: tensor<8x32xbf16> {graph.name = "x"}, %g: tensor<1x32xf32> {graph.name = "g"},
               %w: tensor<32x16xbf16> {graph.name = "w"})
    -> (tensor<8x16xbf16> {graph.name = "y"}) attributes {io_data_type = bf16, intermediate_data_type = f32, compute_data_type = f32} {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1xf32>
  %n = graph.rmsnorm inference %x, scale %g, epsilon %eps : (tensor<8x32xbf16>, tensor<1x32xf32>, tensor<1x1xf32>) -> tensor<8x32xf32>
  %y = graph.matmul %n, %w : (tensor<8x32xf32>, tensor<32x16xbf16>) -> tensor<8x16xbf16>
  graph.output %y : tensor<8x16xbf16>
})mlir");
  ASSERT_TRUE(graph);
  CudnnProgram program;
  ASSERT_EQ(lowerToCudnn(graph, program), "");
  ASSERT_EQ(program.groups.size(), 2u);
  const rt::OpSpec &matmul = program.groups[1].ops.front();
  const DeviceTensor *a = tensorOf(program, matmul.inputs.at("A"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->dtype, ref::DType::BF16);
  for (const rt::TensorSpec &t : program.groups[0].tensors)
    if (t.uid == a->uid)
      EXPECT_EQ(t.dtype, ref::DType::BF16);
}

// A view starting inside a 16-byte line (a slice from column 1 of f32 rows)
// is copied: generated kernels load 16-byte vectors, cuDNN wants aligned
// operands. One starting 4 floats in is read in place.
TEST_F(GpuLoweringTest, MisalignedViewsStayCopies) {
  GraphOp graph = parse(R"mlir(
graph.graph @s(%x: tensor<8x16xf32> {graph.name = "x"})
    -> (tensor<8x8xf32> {graph.name = "a"}, tensor<8x8xf32> {graph.name = "b"}) attributes {compute_data_type = f32} {
  %s1 = graph.slice %x {start = array<i64: 0, 1>, limit = array<i64: 8, 9>} : (tensor<8x16xf32>) -> tensor<8x8xf32>
  %s4 = graph.slice %x {start = array<i64: 0, 4>, limit = array<i64: 8, 12>} : (tensor<8x16xf32>) -> tensor<8x8xf32>
  %a = graph.pointwise relu(%s1) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %b = graph.pointwise relu(%s4) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  graph.output %a, %b : tensor<8x8xf32>, tensor<8x8xf32>
})mlir");
  ASSERT_TRUE(graph);
  CudnnProgram program;
  ASSERT_EQ(lowerToCudnn(graph, program, nullptr, /*foldViews=*/true), "");
  std::vector<std::string> kinds;
  for (const rt::GraphSpec &group : program.groups)
    kinds.push_back(group.ops.front().kind);
  EXPECT_EQ(kinds, (std::vector<std::string>{"slice", "pointwise", "pointwise"}));
  int aliases = 0;
  for (const DeviceTensor &tensor : program.tensors)
    if (tensor.aliasOf >= 0) {
      ++aliases;
      EXPECT_EQ(tensor.aliasOffset, 4);
    }
  EXPECT_EQ(aliases, 1);
}

// Strides the user gave an intermediate are kept: sdpa's O declared
// with padded rows is not rewritten for the transpose after it.
TEST_F(GpuLoweringTest, UserStridesOfIntermediatesAreKept) {
  GraphOp graph = parse(R"mlir(
graph.graph @o(%q: tensor<1x2x8x16xbf16> {graph.name = "q"})
    -> (tensor<1x8x2x16xbf16> {graph.name = "y"}) attributes {compute_data_type = f32} {
  %o = graph.sdpa %q, %q, %q {attn_scale_value = 0.25 : f64} : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>) -> (tensor<1x2x8x16xbf16, #graph.strides<[512, 256, 32, 1]>>, none, none, none)
  %t = graph.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x2x8x16xbf16, #graph.strides<[512, 256, 32, 1]>>) -> tensor<1x8x2x16xbf16>
  %y = graph.pointwise identity(%t) : (tensor<1x8x2x16xbf16>) -> tensor<1x8x2x16xbf16>
  graph.output %y : tensor<1x8x2x16xbf16>
})mlir");
  ASSERT_TRUE(graph);
  CudnnProgram program;
  ASSERT_EQ(lowerToCudnn(graph, program, nullptr, /*foldViews=*/true), "");
  const DeviceTensor *o =
      tensorOf(program, program.groups.front().ops.front().outputs.at("O"));
  ASSERT_TRUE(o);
  EXPECT_EQ(o->strides, (ref::Shape{512, 256, 32, 1}));
}

// A matmul reads a view in place only when its batch dims merge into one
// (cuDNN runs no matmul with two batch dims): K^T over [b, h, s, d] folds,
// heads taken from a [b, s, h, d] tensor are copied packed first, and a C
// read through [b, h] -> [b, s, h] keeps its packed layout.
TEST_F(GpuLoweringTest, MatmulViewsKeepBatchDimsMergeable) {
  GraphOp graph = parse(R"mlir(
graph.graph @qk(%q: tensor<2x64x4x32xf16> {graph.name = "q"}, %k: tensor<2x4x64x32xf16> {graph.name = "k"})
    -> (tensor<2x64x4x64xf32> {graph.name = "s"}) attributes {compute_data_type = f32} {
  %qh = graph.transpose %q {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x64x4x32xf16>) -> tensor<2x4x64x32xf16>
  %kt = graph.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : (tensor<2x4x64x32xf16>) -> tensor<2x4x32x64xf16>
  %s = graph.matmul %qh, %kt : (tensor<2x4x64x32xf16>, tensor<2x4x32x64xf16>) -> tensor<2x4x64x64xf32>
  %st = graph.transpose %s {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x4x64x64xf32>) -> tensor<2x64x4x64xf32>
  %y = graph.pointwise relu(%st) : (tensor<2x64x4x64xf32>) -> tensor<2x64x4x64xf32>
  graph.output %y : tensor<2x64x4x64xf32>
})mlir");
  ASSERT_TRUE(graph);
  CudnnProgram program;
  ASSERT_EQ(lowerToCudnn(graph, program, nullptr, /*foldViews=*/true), "");
  const rt::OpSpec *matmul = nullptr;
  for (const rt::GraphSpec &group : program.groups)
    for (const rt::OpSpec &op : group.ops)
      if (op.kind == ::graph::OpKind::Matmul)
        matmul = &op;
  ASSERT_TRUE(matmul);
  const DeviceTensor *a = tensorOf(program, matmul->inputs.at("A"));
  // q's heads are copied packed: a transpose group writes the matmul's A
  bool copied = false;
  for (const rt::GraphSpec &group : program.groups)
    for (const rt::OpSpec &op : group.ops)
      if (op.kind == ::graph::OpKind::Transpose)
        for (const auto &[port, uid] : op.outputs)
          copied |= uid == matmul->inputs.at("A");
  EXPECT_TRUE(copied);
  const DeviceTensor *b = tensorOf(program, matmul->inputs.at("B"));
  const DeviceTensor *c = tensorOf(program, matmul->outputs.at("C"));
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(a->aliasOf, -1);
  EXPECT_EQ(a->strides, (ref::Shape{8192, 2048, 32, 1}));
  EXPECT_GE(b->aliasOf, 0); // K^T read in place
  EXPECT_EQ(b->strides, (ref::Shape{8192, 2048, 1, 32}));
  EXPECT_EQ(c->strides, (ref::Shape{16384, 4096, 64, 1}));
}

} // namespace
