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
    auto it = source.values.find(bound.getInputUid(i));
    ASSERT_NE(it, source.values.end());
    EXPECT_EQ(it->second, body.getArgument(i));
    given.emplace_back(it->second,
                       ref::load(inputs[i].bytes.data(), inputs[i].dtype,
                                 inputs[i].shape, inputs[i].strides));
  }
  std::vector<Value> wanted;
  for (unsigned i = 0; i < bound.getNumResults(); ++i)
    wanted.push_back(source.values.at(bound.getOutputUid(i)));
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

} // namespace
