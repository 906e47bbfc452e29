//===- ArtifactTest.cpp - The C API over compiled artifacts -----*- C++ -*-===//
//
// graphModuleLowerToExecutable and an exec.program module through the C API:
// lower, print, bytecode round trip, parse back, query, prepare, execute.
// No GPU here: GPU execute answers GRAPH_ERROR_NO_DEVICE.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect-c/Graph.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

// A: 1x64x32, B: 1x32x16, bias: 1x1x16 -> relu(A @ B + bias): 1x64x16.
const char *kMatmulBiasRelu = R"mlir(graph.graph @mbr(
    %a: tensor<1x64x32xbf16> {graph.uid = 1 : i64, graph.name = "A"},
    %b: tensor<1x32x16xbf16> {graph.uid = 2 : i64, graph.name = "B"},
    %bias: tensor<1x1x16xbf16> {graph.uid = 3 : i64, graph.name = "bias"})
    -> (tensor<1x64x16xbf16> {graph.uid = 4 : i64, graph.name = "Y"})
    attributes {io_data_type = bf16, intermediate_data_type = f32,
                compute_data_type = f32} {
  %h = graph.matmul %a, %b : (tensor<1x64x32xbf16>, tensor<1x32x16xbf16>) -> tensor<1x64x16xf32>
  %hb = graph.pointwise add(%h, %bias) : (tensor<1x64x16xf32>, tensor<1x1x16xbf16>) -> tensor<1x64x16xf32>
  %y = graph.pointwise relu(%hb) : (tensor<1x64x16xf32>) -> tensor<1x64x16xbf16>
  graph.output %y : tensor<1x64x16xbf16>
}
)mlir";

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

#define EXPECT_CONTAINS(text, part)                                            \
  EXPECT_PRED2(contains, std::string(text), std::string(part))

std::string lastError() { return graphGetLastError(); }

std::string printed(GraphModule module) {
  size_t size = 0;
  char *text = graphModulePrint(module, 0, &size);
  if (!text)
    return "";
  std::string result(text, size);
  graphFree(text);
  return result;
}

GraphBuffer makeBuffer(int64_t uid, void *data, std::vector<int64_t> dims,
                       GraphDType dtype = GRAPH_BF16) {
  GraphBuffer buffer;
  std::memset(&buffer, 0, sizeof(buffer));
  buffer.uid = uid;
  buffer.data = data;
  buffer.dtype = dtype;
  buffer.rank = static_cast<int32_t>(dims.size());
  for (size_t d = 0; d < dims.size(); ++d)
    buffer.dims[d] = dims[d];
  return buffer;
}

class ArtifactTest : public ::testing::Test {
protected:
  void SetUp() override {
    context = graphContextCreate();
    graphModule =
        graphModuleParse(context, kMatmulBiasRelu, std::strlen(kMatmulBiasRelu));
    ASSERT_NE(graphModule, nullptr) << lastError();
    artifact = graphModuleLowerToExecutable(graphModule);
    ASSERT_NE(artifact, nullptr) << lastError();
  }
  void TearDown() override {
    graphModuleDestroy(artifact);
    graphModuleDestroy(graphModule);
    graphContextDestroy(context);
  }

  /// Checks the program's inputs and outputs as the artifact records them.
  static void expectIO(GraphModule module) {
    ASSERT_EQ(graphNumInputs(module), 3) << lastError();
    ASSERT_EQ(graphNumOutputs(module), 1) << lastError();
    const char *names[] = {"A", "B", "bias"};
    std::vector<std::vector<int64_t>> dims = {{1, 64, 32}, {1, 32, 16}, {1, 1, 16}};
    for (int i = 0; i < 3; ++i) {
      GraphTensorInfo info;
      ASSERT_EQ(graphGetInput(module, i, &info), GRAPH_OK) << lastError();
      EXPECT_EQ(info.uid, i + 1);
      EXPECT_STREQ(info.name, names[i]);
      EXPECT_EQ(info.dtype, GRAPH_BF16);
      ASSERT_EQ(info.rank, 3);
      for (int d = 0; d < 3; ++d)
        EXPECT_EQ(info.dims[d], dims[i][d]) << "input " << i << " dim " << d;
      EXPECT_EQ(info.strides[2], 1) << "input " << i;
    }
    GraphTensorInfo out;
    ASSERT_EQ(graphGetOutput(module, 0, &out), GRAPH_OK) << lastError();
    EXPECT_EQ(out.uid, 4);
    EXPECT_STREQ(out.name, "Y");
    EXPECT_EQ(out.dtype, GRAPH_BF16);
    ASSERT_EQ(out.rank, 3);
    EXPECT_EQ(out.dims[0], 1);
    EXPECT_EQ(out.dims[1], 64);
    EXPECT_EQ(out.dims[2], 16);
    EXPECT_EQ(out.strides[0], 64 * 16);
    EXPECT_EQ(out.strides[1], 16);
    EXPECT_EQ(out.strides[2], 1);
    EXPECT_EQ(graphGetInput(module, 3, &out), GRAPH_ERROR_INVALID_ARGUMENT);
  }

  GraphContext context = nullptr;
  GraphModule graphModule = nullptr;
  GraphModule artifact = nullptr;
};

TEST_F(ArtifactTest, LowerPrintsAnExecProgram) {
  EXPECT_EQ(graphModuleIsExecutable(artifact), 1);
  EXPECT_EQ(graphModuleIsExecutable(graphModule), 0);
  std::string text = printed(artifact);
  EXPECT_CONTAINS(text, "exec.program @mbr");
  EXPECT_CONTAINS(text, "exec.cudnn_group");
  EXPECT_FALSE(contains(text, "graph.graph")) << text;
  // The graph module is unchanged.
  EXPECT_CONTAINS(printed(graphModule), "graph.graph @mbr");
  ASSERT_EQ(graphModuleNumGraphs(artifact), 1);
  EXPECT_STREQ(graphModuleGraphName(artifact, 0), "mbr");
  EXPECT_STREQ(graphModuleSelectedName(artifact), "mbr");
  EXPECT_EQ(graphModuleSelect(artifact, "mbr"), GRAPH_OK);
  EXPECT_EQ(graphModuleSelect(artifact, "nope"), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(), "no exec.program named 'nope'");
  EXPECT_CONTAINS(lastError(), "@mbr");
  expectIO(artifact);
}

TEST_F(ArtifactTest, TextAndBytecodeRoundTrip) {
  std::string text = printed(artifact);
  GraphModule fromText = graphModuleParse(context, text.data(), text.size());
  ASSERT_NE(fromText, nullptr) << lastError();
  EXPECT_EQ(graphModuleIsExecutable(fromText), 1);
  EXPECT_EQ(printed(fromText), text);
  expectIO(fromText);

  size_t size = 0;
  char *bytes = graphModuleWriteBytecode(artifact, &size);
  ASSERT_NE(bytes, nullptr) << lastError();
  ASSERT_GT(size, 4u);
  EXPECT_EQ(std::memcmp(bytes, "ML\xefR", 4), 0);
  GraphModule fromBytes = graphModuleParse(context, bytes, size);
  graphFree(bytes);
  ASSERT_NE(fromBytes, nullptr) << lastError();
  EXPECT_EQ(graphModuleIsExecutable(fromBytes), 1);
  EXPECT_EQ(printed(fromBytes), text);
  expectIO(fromBytes);

  // The generic form parses back too.
  char *generic = graphModulePrint(fromBytes, 1, &size);
  ASSERT_NE(generic, nullptr);
  GraphModule fromGeneric = graphModuleParse(context, generic, size);
  graphFree(generic);
  ASSERT_NE(fromGeneric, nullptr) << lastError();
  EXPECT_EQ(printed(fromGeneric), text);

  graphModuleDestroy(fromGeneric);
  graphModuleDestroy(fromBytes);
  graphModuleDestroy(fromText);
}

TEST_F(ArtifactTest, PrepareIsANoOp) {
  std::string before = printed(artifact);
  EXPECT_EQ(graphModulePrepare(artifact), GRAPH_OK) << lastError();
  EXPECT_EQ(printed(artifact), before);
  expectIO(artifact);
}

TEST_F(ArtifactTest, CpuExecuteIsNotSupported) {
  std::vector<uint16_t> a(64 * 32), b(32 * 16), bias(16), y(64 * 16);
  std::vector<GraphBuffer> buffers = {
      makeBuffer(1, a.data(), {1, 64, 32}), makeBuffer(2, b.data(), {1, 32, 16}),
      makeBuffer(3, bias.data(), {1, 1, 16}), makeBuffer(4, y.data(), {1, 64, 16})};
  EXPECT_EQ(graphExecute(artifact, GRAPH_DEVICE_CPU, buffers.data(), 4),
            GRAPH_ERROR_NOT_SUPPORTED);
  EXPECT_CONTAINS(lastError(), "exec.program @mbr");
  EXPECT_CONTAINS(lastError(), "runs only on the GPU");
  // Even without buffers: the device is the first question.
  EXPECT_EQ(graphExecute(artifact, GRAPH_DEVICE_CPU, nullptr, 0),
            GRAPH_ERROR_NOT_SUPPORTED);
  EXPECT_CONTAINS(lastError(), "runs only on the GPU");
}

TEST_F(ArtifactTest, GpuExecuteWithoutGpuIsNoDevice) {
  // Fake device pointers: never dereferenced without a GPU.
  std::vector<GraphBuffer> buffers = {
      makeBuffer(1, reinterpret_cast<void *>(0x1000), {1, 64, 32}),
      makeBuffer(2, reinterpret_cast<void *>(0x2000), {1, 32, 16}),
      makeBuffer(3, reinterpret_cast<void *>(0x3000), {1, 1, 16}),
      makeBuffer(4, reinterpret_cast<void *>(0x4000), {1, 64, 16})};
  EXPECT_EQ(graphExecute(artifact, GRAPH_DEVICE_GPU, buffers.data(), 4),
            GRAPH_ERROR_NO_DEVICE);
  EXPECT_TRUE(contains(lastError(), "the GPU runtime is not linked into this build") ||
              contains(lastError(), "the GPU device is not available"))
      << lastError();
  // Before any buffer check.
  EXPECT_EQ(graphExecute(artifact, GRAPH_DEVICE_GPU, nullptr, 0),
            GRAPH_ERROR_NO_DEVICE);
}

TEST_F(ArtifactTest, PlanListDoesNotApply) {
  GraphStatus status = graphPlanCreate(artifact, GRAPH_DEVICE_GPU, nullptr, 0);
  // No GPU here answers first; with one, an artifact has no plan list.
  EXPECT_TRUE(status == GRAPH_ERROR_NO_DEVICE ||
              status == GRAPH_ERROR_NOT_SUPPORTED)
      << lastError();
}

TEST_F(ArtifactTest, LowerErrors) {
  EXPECT_EQ(graphModuleLowerToExecutable(nullptr), nullptr);
  EXPECT_EQ(graphGetLastStatus(), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(graphModuleLowerToExecutable(artifact), nullptr);
  EXPECT_EQ(graphGetLastStatus(), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(), "already is a compiled artifact");
  EXPECT_EQ(graphModuleIsExecutable(nullptr), -1);
}

TEST(ArtifactParse, MixedModuleIsRejected) {
  GraphContext context = graphContextCreate();
  GraphModule module =
      graphModuleParse(context, kMatmulBiasRelu, std::strlen(kMatmulBiasRelu));
  ASSERT_NE(module, nullptr) << lastError();
  GraphModule artifact = graphModuleLowerToExecutable(module);
  ASSERT_NE(artifact, nullptr) << lastError();
  std::string text = printed(artifact);
  // Rename the program so the symbols do not clash, then add the graph.
  size_t at = text.find("@mbr");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 4, "@mbr_exec");
  size_t end = text.rfind('}');
  ASSERT_NE(end, std::string::npos);
  std::string graph = kMatmulBiasRelu;
  text.insert(end, graph);
  GraphModule mixed = graphModuleParse(context, text.data(), text.size());
  EXPECT_EQ(mixed, nullptr);
  EXPECT_EQ(graphGetLastStatus(), GRAPH_ERROR_INVALID_GRAPH);
  EXPECT_CONTAINS(lastError(), "both graph.graph and exec.program");
  graphModuleDestroy(mixed);
  graphModuleDestroy(artifact);
  graphModuleDestroy(module);
  graphContextDestroy(context);
}

} // namespace
