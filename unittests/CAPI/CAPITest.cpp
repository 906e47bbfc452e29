//===- CAPITest.cpp - Tests of the C and C++ embedding APIs ------*- C++ -*-===//
//
// Every function of GraphDialect-c/Graph.h, its success and its error paths,
// and the C++ API of GraphDialect/Compiler.h, through libGraphCAPI.so.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect-c/Graph.h"
#include "GraphDialect/Compiler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

// x: 2x3, w: 3x4, b: 1x4 -> y = relu(x @ w + b): 2x4.
const char *kDense = R"mlir(graph.graph @dense(%x: tensor<2x3xf32> {graph.name = "x"},
                   %w: tensor<3x4xf32> {graph.name = "w"},
                   %b: tensor<1x4xf32> {graph.name = "b"})
    -> (tensor<2x4xf32> {graph.name = "y"})
    attributes {io_data_type = f32, compute_data_type = f32} {
  %h = graph.matmul %x, %w {name = "mm"} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %hb = graph.pointwise add(%h, %b) : (tensor<2x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  %y = graph.pointwise relu(%hb) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  graph.output %y : tensor<2x4xf32>
}
)mlir";

// Two graphs with user uids (executable without prepare).
const char *kTwo = R"mlir(graph.graph @first(%a: tensor<4xf32> {graph.uid = 1 : i64, graph.name = "a"})
    -> (tensor<4xf32> {graph.uid = 2 : i64, graph.name = "r"}) {
  %r = graph.pointwise relu(%a) : (tensor<4xf32>) -> tensor<4xf32>
  graph.output %r : tensor<4xf32>
}
graph.graph @second(%a: tensor<2x2xf32> {graph.uid = 10 : i64, graph.name = "p"},
                    %b: tensor<2x2xf32> {graph.uid = 11 : i64, graph.name = "q"})
    -> (tensor<2x2xf32> {graph.uid = 12 : i64, graph.name = "s"}) {
  %s = graph.pointwise add(%a, %b) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  graph.output %s : tensor<2x2xf32>
}
)mlir";

// The matmul's K does not match: a verifier error on line 3.
const char *kBadK = R"mlir(graph.graph @bad(%a: tensor<4x8xf32>, %b: tensor<7x4xf32>)
    -> (tensor<4x4xf32>) {
  %c = graph.matmul %a, %b : (tensor<4x8xf32>, tensor<7x4xf32>) -> tensor<4x4xf32>
  graph.output %c : tensor<4x4xf32>
}
)mlir";

const char *kBadUid = R"mlir(graph.graph @g(%x: tensor<4xf32> {graph.uid = -1 : i64})
    -> (tensor<4xf32>) {
  %r = graph.pointwise relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
  graph.output %r : tensor<4xf32>
}
)mlir";

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

#define EXPECT_CONTAINS(text, part)                                            \
  EXPECT_PRED2(contains, std::string(text), std::string(part))

std::string lastError() { return graphGetLastError(); }

GraphBuffer makeBuffer(int64_t uid, void *data, std::vector<int64_t> dims,
                       std::vector<int64_t> strides = {},
                       GraphDType dtype = GRAPH_F32) {
  GraphBuffer buffer;
  std::memset(&buffer, 0, sizeof(buffer));
  buffer.uid = uid;
  buffer.data = data;
  buffer.dtype = dtype;
  buffer.rank = static_cast<int32_t>(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    buffer.dims[d] = dims[d];
    buffer.strides[d] = d < strides.size() ? strides[d] : 0;
  }
  return buffer;
}

/// A context with kDense parsed and prepared, and its host data.
class DenseTest : public ::testing::Test {
protected:
  void SetUp() override {
    context = graphContextCreate();
    ASSERT_NE(context, nullptr);
    module = graphModuleParse(context, kDense, std::strlen(kDense));
    ASSERT_NE(module, nullptr) << lastError();
    ASSERT_EQ(graphModulePrepare(module), GRAPH_OK) << lastError();
    for (int i = 0; i < 6; ++i)
      x[i] = 0.5f * (i - 2);
    for (int i = 0; i < 12; ++i)
      w[i] = 0.25f * ((i * 7) % 5 - 2);
    for (int i = 0; i < 4; ++i)
      b[i] = 0.1f * (i - 1);
    for (int m = 0; m < 2; ++m)
      for (int n = 0; n < 4; ++n) {
        double acc = b[n];
        for (int k = 0; k < 3; ++k)
          acc += double(x[m * 3 + k]) * w[k * 4 + n];
        expected[m * 4 + n] = acc > 0 ? float(acc) : 0.0f;
      }
    for (int i = 0; i < 4; ++i) {
      GraphTensorInfo info;
      ASSERT_EQ(i < 3 ? graphGetInput(module, i, &info)
                      : graphGetOutput(module, 0, &info),
                GRAPH_OK);
      uids[i] = info.uid;
    }
  }
  void TearDown() override {
    graphModuleDestroy(module);
    graphContextDestroy(context);
  }

  /// Dense buffers for x, w, b, y.
  std::vector<GraphBuffer> dense() {
    return {makeBuffer(uids[0], x, {2, 3}), makeBuffer(uids[1], w, {3, 4}),
            makeBuffer(uids[2], b, {1, 4}), makeBuffer(uids[3], y, {2, 4})};
  }

  GraphStatus run(const std::vector<GraphBuffer> &buffers) {
    return graphExecute(module, GRAPH_DEVICE_CPU, buffers.data(),
                        static_cast<int32_t>(buffers.size()));
  }

  void expectOutput() {
    for (int i = 0; i < 8; ++i)
      EXPECT_NEAR(y[i], expected[i], 1e-6) << "element " << i;
  }

  GraphContext context = nullptr;
  GraphModule module = nullptr;
  float x[6], w[12], b[4], y[8] = {}, expected[8];
  int64_t uids[4] = {};
};

//===----------------------------------------------------------------------===//
// Names and errors
//===----------------------------------------------------------------------===//

TEST(CAPINames, StatusAndDType) {
  EXPECT_STREQ(graphStatusName(GRAPH_OK), "GRAPH_OK");
  EXPECT_STREQ(graphStatusName(GRAPH_ERROR_INVALID_GRAPH),
               "GRAPH_ERROR_INVALID_GRAPH");
  EXPECT_STREQ(graphStatusName(GRAPH_ERROR_NO_DEVICE), "GRAPH_ERROR_NO_DEVICE");
  EXPECT_EQ(graphStatusName(static_cast<GraphStatus>(99)), nullptr);
  EXPECT_STREQ(graphDTypeName(GRAPH_F32), "f32");
  EXPECT_STREQ(graphDTypeName(GRAPH_BF16), "bf16");
  EXPECT_STREQ(graphDTypeName(GRAPH_U8), "ui8");
  EXPECT_STREQ(graphDTypeName(GRAPH_F8E4M3FN), "f8E4M3FN");
  EXPECT_STREQ(graphDTypeName(GRAPH_F4E2M1FN), "f4E2M1FN");
  EXPECT_EQ(graphDTypeName(static_cast<GraphDType>(-1)), nullptr);
  EXPECT_EQ(graphDTypeSize(GRAPH_F64), 8u);
  EXPECT_EQ(graphDTypeSize(GRAPH_F32), 4u);
  EXPECT_EQ(graphDTypeSize(GRAPH_BF16), 2u);
  EXPECT_EQ(graphDTypeSize(GRAPH_I1), 1u);
  EXPECT_EQ(graphDTypeSize(static_cast<GraphDType>(77)), 0u);
}

TEST(CAPIErrors, LastErrorIsThreadLocalAndCleared) {
  graphClearLastError();
  EXPECT_STREQ(graphGetLastError(), "");
  EXPECT_EQ(graphGetLastStatus(), GRAPH_OK);
  EXPECT_EQ(graphModuleNumGraphs(nullptr), -1);
  EXPECT_CONTAINS(lastError(), "graphModuleNumGraphs: module is NULL");
  EXPECT_EQ(graphGetLastStatus(), GRAPH_ERROR_INVALID_ARGUMENT);
  std::string other = "unset";
  std::thread([&] { other = graphGetLastError(); }).join();
  EXPECT_EQ(other, "");
  // A successful call clears it.
  GraphContext context = graphContextCreate();
  EXPECT_STREQ(graphGetLastError(), "");
  graphContextDestroy(context);
  EXPECT_EQ(graphModuleNumGraphs(nullptr), -1);
  graphClearLastError();
  EXPECT_STREQ(graphGetLastError(), "");
}

//===----------------------------------------------------------------------===//
// Contexts and parsing
//===----------------------------------------------------------------------===//

TEST(CAPIContext, CreateDestroyAndStaleHandles) {
  GraphContext context = graphContextCreate();
  ASSERT_NE(context, nullptr);
  graphContextDestroy(nullptr); // no-op
  graphContextDestroy(context);
  EXPECT_STREQ(graphGetLastError(), "");
  graphContextDestroy(context); // stale: reported, not a crash
  EXPECT_CONTAINS(lastError(), "not a live GraphContext");
  EXPECT_EQ(graphModuleParse(context, kDense, std::strlen(kDense)), nullptr);
  EXPECT_EQ(graphGetLastStatus(), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(), "not a live GraphContext");
}

TEST(CAPIParse, NullArguments) {
  EXPECT_EQ(graphModuleParse(nullptr, kDense, std::strlen(kDense)), nullptr);
  EXPECT_EQ(graphGetLastStatus(), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(), "context is NULL");
  GraphContext context = graphContextCreate();
  EXPECT_EQ(graphModuleParse(context, nullptr, 10), nullptr);
  EXPECT_CONTAINS(lastError(), "data is NULL but size is 10");
  // NULL data of size 0 is an empty module: no graph.
  EXPECT_EQ(graphModuleParse(context, nullptr, 0), nullptr);
  EXPECT_EQ(graphGetLastStatus(), GRAPH_ERROR_INVALID_GRAPH);
  EXPECT_CONTAINS(lastError(), "holds no graph.graph op");
  graphContextDestroy(context);
}

TEST(CAPIParse, VerifierErrorWithLocation) {
  GraphContext context = graphContextCreate();
  EXPECT_EQ(graphModuleParse(context, kBadK, std::strlen(kBadK)), nullptr);
  EXPECT_EQ(graphGetLastStatus(), GRAPH_ERROR_INVALID_GRAPH);
  std::string error = lastError();
  EXPECT_CONTAINS(error,
                  "<graph>:3:8: error: matmul: K of A is 8 but K of B is 7");
  // The quoted source line and its caret.
  EXPECT_CONTAINS(error, "  %c = graph.matmul %a, %b");
  EXPECT_CONTAINS(error, "^");

  EXPECT_EQ(graphModuleParseNamed(context, kBadUid, std::strlen(kBadUid),
                                  "model.mlir"),
            nullptr);
  EXPECT_CONTAINS(lastError(), "model.mlir:1:");
  EXPECT_CONTAINS(lastError(),
                  "input 0: uid -1 is negative (uids must be >= 0)");
  graphContextDestroy(context);
}

TEST(CAPIParse, DiagnosticInAnotherFileIsNotReadFromDisk) {
  // A location naming a file other than the parsed buffer is printed as it
  // is: its line is not read from disk and quoted.
  std::string path = testing::TempDir() + "capi_diag_other_file.mlir";
  {
    std::ofstream file(path);
    file << "first line\nsecret second line on disk\n";
  }
  std::string text =
      "graph.graph @bad(%a: tensor<4x8xf32>, %b: tensor<7x4xf32>)\n"
      "    -> (tensor<4x4xf32>) {\n"
      "  %c = graph.matmul %a, %b : (tensor<4x8xf32>, tensor<7x4xf32>) -> "
      "tensor<4x4xf32> loc(\"" +
      path +
      "\":2:3)\n"
      "  graph.output %c : tensor<4x4xf32>\n"
      "}\n";
  GraphContext context = graphContextCreate();
  EXPECT_EQ(graphModuleParse(context, text.data(), text.size()), nullptr);
  EXPECT_EQ(graphGetLastStatus(), GRAPH_ERROR_INVALID_GRAPH);
  EXPECT_CONTAINS(lastError(), path + ":2:3: error: matmul: K of A is 8");
  EXPECT_EQ(lastError().find("secret"), std::string::npos) << lastError();
  graphContextDestroy(context);
  std::remove(path.c_str());
}

TEST(CAPIParse, SyntaxError) {
  GraphContext context = graphContextCreate();
  const char *text = "graph.graph @g(%x: tensor<4xf32>) {\n  %r = graph.bogus\n}\n";
  EXPECT_EQ(graphModuleParseNamed(context, text, std::strlen(text), "s.mlir"),
            nullptr);
  EXPECT_EQ(graphGetLastStatus(), GRAPH_ERROR_INVALID_GRAPH);
  EXPECT_CONTAINS(lastError(), "s.mlir:2:");
  EXPECT_CONTAINS(lastError(), "graph.bogus");
  // Garbage bytes, embedded NULs, a bytecode magic with nothing after it.
  const char garbage[] = "\x01\x02\0\xff graph.graph";
  EXPECT_EQ(graphModuleParse(context, garbage, sizeof(garbage)), nullptr);
  EXPECT_EQ(graphGetLastStatus(), GRAPH_ERROR_INVALID_GRAPH);
  const char magic[] = "ML\xefR";
  EXPECT_EQ(graphModuleParse(context, magic, 4), nullptr);
  EXPECT_EQ(graphGetLastStatus(), GRAPH_ERROR_INVALID_GRAPH);
  graphContextDestroy(context);
}

TEST(CAPIParse, ModuleOutlivesContext) {
  GraphContext context = graphContextCreate();
  GraphModule module = graphModuleParse(context, kTwo, std::strlen(kTwo));
  ASSERT_NE(module, nullptr) << lastError();
  graphContextDestroy(context);
  EXPECT_EQ(graphModuleNumGraphs(module), 2);
  EXPECT_EQ(graphModulePrepare(module), GRAPH_OK) << lastError();
  graphModuleDestroy(module);
}

//===----------------------------------------------------------------------===//
// Modules: graphs, selection, printing, bytecode
//===----------------------------------------------------------------------===//

TEST(CAPIModule, GraphsAndSelectByName) {
  GraphContext context = graphContextCreate();
  GraphModule module = graphModuleParse(context, kTwo, std::strlen(kTwo));
  ASSERT_NE(module, nullptr) << lastError();
  EXPECT_EQ(graphModuleNumGraphs(module), 2);
  EXPECT_STREQ(graphModuleGraphName(module, 0), "first");
  EXPECT_STREQ(graphModuleGraphName(module, 1), "second");
  EXPECT_STREQ(graphModuleSelectedName(module), "first");
  EXPECT_EQ(graphNumInputs(module), 1);

  EXPECT_EQ(graphModuleGraphName(module, 2), nullptr);
  EXPECT_CONTAINS(lastError(), "index 2 is out of range; the module has 2");
  EXPECT_EQ(graphModuleGraphName(module, -1), nullptr);
  EXPECT_EQ(graphGetLastStatus(), GRAPH_ERROR_INVALID_ARGUMENT);

  const char *firstName = graphModuleGraphName(module, 0);
  ASSERT_EQ(graphModuleSelect(module, "second"), GRAPH_OK);
  EXPECT_STREQ(graphModuleSelectedName(module), "second");
  EXPECT_EQ(graphModuleGraphName(module, 0), firstName); // still valid
  EXPECT_EQ(graphNumInputs(module), 2);
  GraphTensorInfo info;
  ASSERT_EQ(graphGetInput(module, 1, &info), GRAPH_OK);
  EXPECT_EQ(info.uid, 11);
  EXPECT_STREQ(info.name, "q");

  EXPECT_EQ(graphModuleSelect(module, "third"), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(), "no graph named 'third'");
  EXPECT_CONTAINS(lastError(), "@first, @second");
  EXPECT_STREQ(graphModuleSelectedName(module), "second"); // unchanged
  EXPECT_EQ(graphModuleSelect(module, nullptr), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(), "name is NULL");

  // The selected graph runs without prepare: its uids are the user's.
  float p[4] = {1, 2, 3, 4}, q[4] = {10, 20, 30, 40}, s[4] = {};
  GraphBuffer buffers[3] = {makeBuffer(10, p, {2, 2}),
                            makeBuffer(11, q, {2, 2}),
                            makeBuffer(12, s, {2, 2})};
  ASSERT_EQ(graphExecute(module, GRAPH_DEVICE_CPU, buffers, 3), GRAPH_OK)
      << lastError();
  EXPECT_EQ(s[0], 11);
  EXPECT_EQ(s[3], 44);
  graphModuleDestroy(module);
  graphContextDestroy(context);
}

TEST(CAPIModule, NullAndStaleModule) {
  GraphTensorInfo info;
  GraphBuffer buffer = makeBuffer(1, nullptr, {1});
  size_t size = 7;
  EXPECT_EQ(graphModuleNumGraphs(nullptr), -1);
  EXPECT_EQ(graphModuleGraphName(nullptr, 0), nullptr);
  EXPECT_EQ(graphModuleSelectedName(nullptr), nullptr);
  EXPECT_EQ(graphModuleSelect(nullptr, "g"), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(graphModulePrepare(nullptr), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(graphModulePrint(nullptr, 0, &size), nullptr);
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(graphModuleWriteBytecode(nullptr, &size), nullptr);
  EXPECT_EQ(graphNumInputs(nullptr), -1);
  EXPECT_EQ(graphNumOutputs(nullptr), -1);
  EXPECT_EQ(graphGetInput(nullptr, 0, &info), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(graphGetOutput(nullptr, 0, &info), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(graphExecute(nullptr, GRAPH_DEVICE_CPU, &buffer, 1),
            GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(), "graphExecute: module is NULL");
  graphModuleDestroy(nullptr); // no-op
  graphFree(nullptr);          // no-op

  GraphContext context = graphContextCreate();
  GraphModule module = graphModuleParse(context, kTwo, std::strlen(kTwo));
  ASSERT_NE(module, nullptr);
  graphModuleDestroy(module);
  EXPECT_EQ(graphModuleNumGraphs(module), -1);
  EXPECT_CONTAINS(lastError(), "not a live GraphModule");
  EXPECT_EQ(graphModulePrepare(module), GRAPH_ERROR_INVALID_ARGUMENT);
  graphModuleDestroy(module); // double destroy: reported, not a crash
  EXPECT_CONTAINS(lastError(), "graphModuleDestroy");
  // A pointer that never was a module.
  int notAModule = 0;
  EXPECT_EQ(graphNumInputs(reinterpret_cast<GraphModule>(&notAModule)), -1);
  EXPECT_CONTAINS(lastError(), "not a live GraphModule");
  graphContextDestroy(context);
}

TEST(CAPIModule, PrintTextAndGeneric) {
  GraphContext context = graphContextCreate();
  GraphModule module = graphModuleParse(context, kTwo, std::strlen(kTwo));
  ASSERT_NE(module, nullptr);
  size_t size = 0;
  char *text = graphModulePrint(module, 0, &size);
  ASSERT_NE(text, nullptr) << lastError();
  EXPECT_EQ(size, std::strlen(text));
  EXPECT_CONTAINS(text, "graph.graph @first");
  EXPECT_CONTAINS(text, "pointwise relu");

  char *generic = graphModulePrint(module, 1, nullptr); // size may be NULL
  ASSERT_NE(generic, nullptr);
  EXPECT_CONTAINS(generic, "\"graph.graph\"()");
  EXPECT_CONTAINS(generic, "\"graph.pointwise\"");

  // The generic form parses back to the same module.
  GraphModule again = graphModuleParse(context, generic, std::strlen(generic));
  ASSERT_NE(again, nullptr) << lastError();
  char *text2 = graphModulePrint(again, 0, &size);
  EXPECT_STREQ(text, text2);
  graphFree(text);
  graphFree(text2);
  graphFree(generic);
  graphModuleDestroy(again);
  graphModuleDestroy(module);
  graphContextDestroy(context);
}

TEST(CAPIModule, BytecodeRoundTrip) {
  GraphContext context = graphContextCreate();
  GraphModule module = graphModuleParse(context, kDense, std::strlen(kDense));
  ASSERT_NE(module, nullptr);
  ASSERT_EQ(graphModulePrepare(module), GRAPH_OK);
  EXPECT_EQ(graphModuleWriteBytecode(module, nullptr), nullptr);
  EXPECT_CONTAINS(lastError(), "size is NULL");

  size_t size = 0;
  char *bytes = graphModuleWriteBytecode(module, &size);
  ASSERT_NE(bytes, nullptr) << lastError();
  ASSERT_GT(size, 4u);
  EXPECT_EQ(std::memcmp(bytes, "ML\xefR", 4), 0);

  // Parsed back in another context, it prints the same text.
  GraphContext other = graphContextCreate();
  GraphModule loaded = graphModuleParse(other, bytes, size);
  ASSERT_NE(loaded, nullptr) << lastError();
  char *a = graphModulePrint(module, 0, nullptr);
  char *b = graphModulePrint(loaded, 0, nullptr);
  EXPECT_STREQ(a, b);
  EXPECT_EQ(graphNumInputs(loaded), 3);

  // A truncated artifact is an error, not a crash.
  EXPECT_EQ(graphModuleParse(other, bytes, size / 2), nullptr);
  EXPECT_EQ(graphGetLastStatus(), GRAPH_ERROR_INVALID_GRAPH);
  EXPECT_NE(lastError(), "");
  graphFree(a);
  graphFree(b);
  graphFree(bytes);
  graphModuleDestroy(loaded);
  graphModuleDestroy(module);
  graphContextDestroy(other);
  graphContextDestroy(context);
}

//===----------------------------------------------------------------------===//
// Prepare and tensor queries
//===----------------------------------------------------------------------===//

TEST(CAPIQuery, InputsOutputsBeforeAndAfterPrepare) {
  GraphContext context = graphContextCreate();
  GraphModule module = graphModuleParse(context, kDense, std::strlen(kDense));
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(graphNumInputs(module), 3);
  EXPECT_EQ(graphNumOutputs(module), 1);
  GraphTensorInfo info;
  ASSERT_EQ(graphGetInput(module, 0, &info), GRAPH_OK);
  EXPECT_EQ(info.hasUid, 0); // not assigned yet
  EXPECT_EQ(info.uid, 0);
  EXPECT_STREQ(info.name, "x");
  EXPECT_EQ(info.dtype, GRAPH_F32);
  EXPECT_EQ(info.rank, 2);
  EXPECT_EQ(info.dims[0], 2);
  EXPECT_EQ(info.dims[1], 3);
  EXPECT_EQ(info.strides[0], 0); // not decided

  ASSERT_EQ(graphModulePrepare(module), GRAPH_OK) << lastError();
  std::vector<int64_t> seen;
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(graphGetInput(module, i, &info), GRAPH_OK);
    EXPECT_EQ(info.hasUid, 1);
    EXPECT_GT(info.uid, 0);
    seen.push_back(info.uid);
  }
  ASSERT_EQ(graphGetInput(module, 1, &info), GRAPH_OK);
  EXPECT_STREQ(info.name, "w");
  EXPECT_EQ(info.strides[0], 4); // row-major after infer-layout
  EXPECT_EQ(info.strides[1], 1);
  ASSERT_EQ(graphGetOutput(module, 0, &info), GRAPH_OK);
  EXPECT_STREQ(info.name, "y");
  EXPECT_GT(info.uid, 0);
  for (int64_t uid : seen)
    EXPECT_NE(uid, info.uid);
  EXPECT_EQ(info.dims[1], 4);

  // Bad indices and NULL info.
  EXPECT_EQ(graphGetInput(module, 3, &info), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(), "index 3 is out of range; graph @dense has 3 inputs");
  EXPECT_EQ(graphGetInput(module, -1, &info), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(graphGetOutput(module, 1, &info), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(), "has 1 outputs");
  EXPECT_EQ(graphGetInput(module, 0, nullptr), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(), "info is NULL");
  EXPECT_EQ(graphGetOutput(module, 0, nullptr), GRAPH_ERROR_INVALID_ARGUMENT);
  graphModuleDestroy(module);
  graphContextDestroy(context);
}

// uid 0 is a uid (the frontend accepts it): kept by prepare, reported with
// hasUid, and the buffer of uid 0 binds on execute.
TEST(CAPIQuery, UidZeroIsAUid) {
  const char *text = R"mlir(graph.graph @g(%x: tensor<4xf32> {graph.uid = 0 : i64, graph.name = "x"})
    -> (tensor<4xf32> {graph.name = "y"}) {
  %r = graph.pointwise neg(%x) : (tensor<4xf32>) -> tensor<4xf32>
  graph.output %r : tensor<4xf32>
}
)mlir";
  GraphContext context = graphContextCreate();
  GraphModule module = graphModuleParse(context, text, std::strlen(text));
  ASSERT_NE(module, nullptr) << lastError();
  GraphTensorInfo in, out;
  ASSERT_EQ(graphGetInput(module, 0, &in), GRAPH_OK);
  EXPECT_EQ(in.hasUid, 1);
  EXPECT_EQ(in.uid, 0);
  ASSERT_EQ(graphGetOutput(module, 0, &out), GRAPH_OK);
  EXPECT_EQ(out.hasUid, 0);
  ASSERT_EQ(graphModulePrepare(module), GRAPH_OK) << lastError();
  ASSERT_EQ(graphGetInput(module, 0, &in), GRAPH_OK);
  EXPECT_EQ(in.hasUid, 1);
  EXPECT_EQ(in.uid, 0); // kept, not replaced by a fresh uid
  ASSERT_EQ(graphGetOutput(module, 0, &out), GRAPH_OK);
  EXPECT_EQ(out.hasUid, 1);
  EXPECT_EQ(out.uid, 1); // assign-uids hands out 1 up, 0 being taken

  float x[4] = {1, -2, 3, -4}, y[4] = {0, 0, 0, 0};
  std::vector<GraphBuffer> buffers = {makeBuffer(0, x, {4}),
                                      makeBuffer(1, y, {4})};
  ASSERT_EQ(graphExecute(module, GRAPH_DEVICE_CPU, buffers.data(), 2), GRAPH_OK)
      << lastError();
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(y[i], -x[i]);

  // Without the buffer of uid 0 the message names uid 0, not "no uid".
  EXPECT_EQ(graphExecute(module, GRAPH_DEVICE_CPU, buffers.data() + 1, 1),
            GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(), "input 0 (uid 0 \"x\")");
  graphModuleDestroy(module);
  graphContextDestroy(context);
}

TEST(CAPIQuery, RankAboveMaxAndUnsupportedElementType) {
  GraphContext context = graphContextCreate();
  const char *rank9 = R"mlir(graph.graph @g(%x: tensor<1x1x1x1x1x1x1x1x2xf32> {graph.uid = 1 : i64})
    -> (tensor<1x1x1x1x1x1x1x1x2xf32> {graph.uid = 2 : i64}) {
  %r = graph.pointwise relu(%x) : (tensor<1x1x1x1x1x1x1x1x2xf32>) -> tensor<1x1x1x1x1x1x1x1x2xf32>
  graph.output %r : tensor<1x1x1x1x1x1x1x1x2xf32>
}
)mlir";
  GraphModule module = graphModuleParse(context, rank9, std::strlen(rank9));
  ASSERT_NE(module, nullptr) << lastError();
  GraphTensorInfo info;
  EXPECT_EQ(graphGetInput(module, 0, &info), GRAPH_ERROR_NOT_SUPPORTED);
  EXPECT_CONTAINS(lastError(), "rank 9, more than GRAPH_MAX_RANK (8)");
  GraphBuffer buffer = makeBuffer(1, &info, {1});
  buffer.rank = 9;
  EXPECT_EQ(graphExecute(module, GRAPH_DEVICE_CPU, &buffer, 1),
            GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(), "has rank 9; ranks go from 0 to 8");
  graphModuleDestroy(module);

  const char *i16 = R"mlir(graph.graph @g(%x: tensor<4xi16> {graph.uid = 1 : i64})
    -> (tensor<4xi16> {graph.uid = 2 : i64}) {
  %r = graph.pointwise identity(%x) : (tensor<4xi16>) -> tensor<4xi16>
  graph.output %r : tensor<4xi16>
}
)mlir";
  module = graphModuleParse(context, i16, std::strlen(i16));
  if (module) { // only if the dialect accepts i16 tensors
    EXPECT_EQ(graphNumInputs(module), -1);
    EXPECT_EQ(graphGetLastStatus(), GRAPH_ERROR_NOT_SUPPORTED);
    EXPECT_CONTAINS(lastError(), "element type i16 has no GraphDType");
    graphModuleDestroy(module);
  }
  graphContextDestroy(context);
}

//===----------------------------------------------------------------------===//
// Execute
//===----------------------------------------------------------------------===//

TEST_F(DenseTest, ExecuteDense) {
  ASSERT_EQ(run(dense()), GRAPH_OK) << lastError();
  expectOutput();
}

TEST_F(DenseTest, ExecuteBuffersInAnyOrder) {
  std::vector<GraphBuffer> buffers = dense();
  std::reverse(buffers.begin(), buffers.end());
  ASSERT_EQ(run(buffers), GRAPH_OK) << lastError();
  expectOutput();
}

TEST_F(DenseTest, ExecuteStridedInputAndOutput) {
  // x given column-major (strides 1, 2); y written with a padded row of 6.
  float xt[6];
  for (int m = 0; m < 2; ++m)
    for (int k = 0; k < 3; ++k)
      xt[k * 2 + m] = x[m * 3 + k];
  // b broadcast from one element per column with stride 0 on the row dim.
  float padded[12];
  for (float &v : padded)
    v = -99.0f;
  std::vector<GraphBuffer> buffers = dense();
  buffers[0] = makeBuffer(uids[0], xt, {2, 3}, {1, 2});
  buffers[3] = makeBuffer(uids[3], padded, {2, 4}, {6, 1});
  ASSERT_EQ(run(buffers), GRAPH_OK) << lastError();
  for (int m = 0; m < 2; ++m) {
    for (int n = 0; n < 4; ++n)
      EXPECT_NEAR(padded[m * 6 + n], expected[m * 4 + n], 1e-6);
    EXPECT_EQ(padded[m * 6 + 4], -99.0f); // padding untouched
    EXPECT_EQ(padded[m * 6 + 5], -99.0f);
  }
}

TEST_F(DenseTest, ExecuteOnGpuIsNoDevice) {
  std::vector<GraphBuffer> buffers = dense();
  EXPECT_EQ(graphExecute(module, GRAPH_DEVICE_GPU, buffers.data(), 4),
            GRAPH_ERROR_NO_DEVICE);
  // Either the runtime is not linked in, or it is and finds no GPU here.
  EXPECT_TRUE(contains(lastError(), "the GPU runtime is not linked into this build") ||
              contains(lastError(), "the GPU device is not available"))
      << lastError();
  EXPECT_EQ(graphExecute(module, static_cast<GraphDevice>(7), buffers.data(),
                         4),
            GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(), "unknown device 7");
}

//===----------------------------------------------------------------------===//
// GPU plan list (this machine has no usable GPU)
//===----------------------------------------------------------------------===//

/// The last call failed for want of a GPU, naming `call`.
void expectNoDevice(const char *call) {
  EXPECT_EQ(graphGetLastStatus(), GRAPH_ERROR_NO_DEVICE) << lastError();
  EXPECT_CONTAINS(lastError(), call);
  EXPECT_TRUE(contains(lastError(), "the GPU runtime is not linked into this build") ||
              contains(lastError(), "the GPU device is not available"))
      << lastError();
}

TEST_F(DenseTest, PlanCallsWithoutGpuAreNoDevice) {
  int modes[] = {GRAPH_HEUR_MODE_A, GRAPH_HEUR_MODE_FALLBACK};
  EXPECT_EQ(graphPlanCreate(module, GRAPH_DEVICE_GPU, modes, 2),
            GRAPH_ERROR_NO_DEVICE);
  expectNoDevice("graphPlanCreate");
  EXPECT_EQ(graphPlanCreate(module, GRAPH_DEVICE_GPU, nullptr, 0),
            GRAPH_ERROR_NO_DEVICE);
  expectNoDevice("graphPlanCreate");

  int32_t groups = 7;
  EXPECT_EQ(graphPlanCount(module, &groups), -1);
  EXPECT_EQ(groups, -1);
  expectNoDevice("graphPlanCount");
  EXPECT_EQ(graphPlanCount(module, nullptr), -1);
  expectNoDevice("graphPlanCount");
  EXPECT_EQ(graphPlanGroup(module), -1);
  expectNoDevice("graphPlanGroup");
  EXPECT_EQ(graphPlanName(module, 0), nullptr);
  expectNoDevice("graphPlanName");
  int64_t engine = 0, knobs[8];
  int32_t numKnobs = 4;
  EXPECT_EQ(graphPlanEngine(module, 0, &engine, knobs, &numKnobs),
            GRAPH_ERROR_NO_DEVICE);
  expectNoDevice("graphPlanEngine");
  EXPECT_EQ(graphPlanWorkspace(module, 0), -1);
  expectNoDevice("graphPlanWorkspace");
  EXPECT_EQ(graphPlanNotes(module, 0, 0), nullptr);
  expectNoDevice("graphPlanNotes");
  EXPECT_EQ(graphPlanNotes(module, 0, 1), nullptr);
  expectNoDevice("graphPlanNotes");
  EXPECT_EQ(graphPlanBuild(module, 0), GRAPH_ERROR_NO_DEVICE);
  expectNoDevice("graphPlanBuild");
  int32_t both[] = {0, 1};
  EXPECT_EQ(graphPlanBuildMany(module, both, 2), GRAPH_ERROR_NO_DEVICE);
  expectNoDevice("graphPlanBuildMany");
  EXPECT_EQ(graphPlanSelect(module, 0), GRAPH_ERROR_NO_DEVICE);
  expectNoDevice("graphPlanSelect");
  EXPECT_EQ(graphPlanSelect(module, -1), GRAPH_ERROR_NO_DEVICE);
  expectNoDevice("graphPlanSelect");
  int64_t pair[] = {2, 1};
  EXPECT_EQ(graphPlanAdd(module, 0, pair, 1), GRAPH_ERROR_NO_DEVICE);
  expectNoDevice("graphPlanAdd");
  const char *names[] = {"eng0"};
  EXPECT_EQ(graphSetPlanOptions(module, names, 1, 0, 1),
            GRAPH_ERROR_NO_DEVICE);
  expectNoDevice("graphSetPlanOptions");

  // The CPU reference still runs after all of that.
  ASSERT_EQ(run(dense()), GRAPH_OK) << lastError();
  expectOutput();
  graphClearLastError();
}

TEST_F(DenseTest, PlanCallsArgumentErrors) {
  int modes[] = {GRAPH_HEUR_MODE_A};
  auto expectInvalid = [](GraphStatus status, const char *part) {
    EXPECT_EQ(status, GRAPH_ERROR_INVALID_ARGUMENT) << lastError();
    EXPECT_EQ(graphGetLastStatus(), GRAPH_ERROR_INVALID_ARGUMENT);
    EXPECT_CONTAINS(lastError(), part);
  };
  // NULL modules, named by the call.
  expectInvalid(graphPlanCreate(nullptr, GRAPH_DEVICE_GPU, modes, 1),
                "graphPlanCreate: module is NULL");
  EXPECT_EQ(graphPlanCount(nullptr, nullptr), -1);
  EXPECT_CONTAINS(lastError(), "graphPlanCount: module is NULL");
  EXPECT_EQ(graphPlanGroup(nullptr), -1);
  EXPECT_CONTAINS(lastError(), "graphPlanGroup: module is NULL");
  EXPECT_EQ(graphPlanName(nullptr, 0), nullptr);
  EXPECT_CONTAINS(lastError(), "graphPlanName: module is NULL");
  EXPECT_EQ(graphPlanWorkspace(nullptr, 0), -1);
  EXPECT_CONTAINS(lastError(), "graphPlanWorkspace: module is NULL");
  EXPECT_EQ(graphPlanNotes(nullptr, 0, 1), nullptr);
  EXPECT_CONTAINS(lastError(), "graphPlanNotes: module is NULL");
  expectInvalid(graphPlanBuild(nullptr, 0), "graphPlanBuild: module is NULL");
  expectInvalid(graphPlanBuildMany(nullptr, nullptr, 0),
                "graphPlanBuildMany: module is NULL");
  expectInvalid(graphPlanSelect(nullptr, 0), "graphPlanSelect: module is NULL");
  expectInvalid(graphPlanAdd(nullptr, 0, nullptr, 0),
                "graphPlanAdd: module is NULL");
  expectInvalid(graphSetPlanOptions(nullptr, nullptr, 0, -1, 0),
                "graphSetPlanOptions: module is NULL");
  int32_t numKnobs = 0;
  expectInvalid(graphPlanEngine(nullptr, 0, nullptr, nullptr, &numKnobs),
                "graphPlanEngine: module is NULL");

  // Bad arguments are reported before the device is looked for.
  expectInvalid(graphPlanCreate(module, GRAPH_DEVICE_CPU, modes, 1),
                "only GRAPH_DEVICE_GPU has one");
  expectInvalid(graphPlanCreate(module, static_cast<GraphDevice>(9), modes, 1),
                "device 9 has no plan list");
  int bad[] = {GRAPH_HEUR_MODE_A, 7};
  expectInvalid(graphPlanCreate(module, GRAPH_DEVICE_GPU, bad, 2),
                "unknown heuristics mode 7");
  expectInvalid(graphPlanCreate(module, GRAPH_DEVICE_GPU, modes, -1),
                "numModes is -1");
  expectInvalid(graphPlanCreate(module, GRAPH_DEVICE_GPU, nullptr, 2),
                "numModes is 2 but heurModes is NULL");
  expectInvalid(graphPlanEngine(module, 0, nullptr, nullptr, nullptr),
                "graphPlanEngine: numKnobs is NULL");
  expectInvalid(graphPlanBuildMany(module, nullptr, 2),
                "graphPlanBuildMany: count is 2 but indices is NULL");
  expectInvalid(graphPlanBuildMany(module, nullptr, -1),
                "graphPlanBuildMany: count is -1");
  numKnobs = 3;
  expectInvalid(graphPlanEngine(module, 0, nullptr, nullptr, &numKnobs),
                "capacity *numKnobs is 3 but knobs is NULL");
  numKnobs = -1;
  expectInvalid(graphPlanEngine(module, 0, nullptr, nullptr, &numKnobs),
                "capacity *numKnobs is -1");
  expectInvalid(graphPlanAdd(module, 3, nullptr, 2),
                "numKnobs is 2 but knobs is NULL");
  expectInvalid(graphPlanAdd(module, 3, nullptr, -4), "numKnobs is -4");
  expectInvalid(graphSetPlanOptions(module, nullptr, 1, -1, 0),
                "numNames is 1 but deselectNames is NULL");
  const char *names[] = {"eng1", nullptr};
  expectInvalid(graphSetPlanOptions(module, names, 2, -1, 0),
                "deselectNames[1] is NULL");
  expectInvalid(graphSetPlanOptions(module, names, 1, -5, 0),
                "workspace limit -5 is negative");

  // A destroyed module is not dereferenced.
  GraphModule stale = graphModuleParse(context, kDense, std::strlen(kDense));
  ASSERT_NE(stale, nullptr);
  graphModuleDestroy(stale);
  expectInvalid(graphPlanCreate(stale, GRAPH_DEVICE_GPU, modes, 1),
                "graphPlanCreate: module is not a live GraphModule");
  expectInvalid(graphPlanSelect(stale, 0),
                "graphPlanSelect: module is not a live GraphModule");
}

TEST(CompilerAPI, PlanCallsOnAnEmptyGraph) {
  graph::CompiledGraph empty;
  graph::Status s = empty.planCreate(GRAPH_DEVICE_GPU, {});
  EXPECT_EQ(s.code(), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(s.message(), "holds no module");
  int32_t plans = 0, groups = 0;
  EXPECT_EQ(empty.planCount(plans, groups).code(),
            GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(plans, -1);
  graph::PlanDesc desc;
  EXPECT_EQ(empty.planInfo(0, desc).code(), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(empty.planBuild(0).code(), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(empty.planSelect(0).code(), GRAPH_ERROR_INVALID_ARGUMENT);
  int32_t index = 0;
  EXPECT_EQ(empty.planAdd(0, {}, index).code(), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(index, -1);
  EXPECT_EQ(empty.setPlanOptions({}, -1, false).code(),
            GRAPH_ERROR_INVALID_ARGUMENT);
}

TEST(CompilerAPI, PlanCallsCheckTheModuleFirstAndNameTheCall) {
  // An empty graph is the answer before the call's own bad arguments, and
  // every answer names the C call it stands for.
  graph::CompiledGraph empty;
  auto expectEmpty = [](const graph::Status &s, const std::string &call) {
    EXPECT_EQ(s.code(), GRAPH_ERROR_INVALID_ARGUMENT);
    EXPECT_CONTAINS(s.message(), call + ": the CompiledGraph holds no module");
  };
  expectEmpty(empty.planCreate(GRAPH_DEVICE_CPU, {7}), "graphPlanCreate");
  int32_t plans = 0, groups = 0;
  expectEmpty(empty.planCount(plans, groups), "graphPlanCount");
  graph::PlanDesc desc;
  expectEmpty(empty.planInfo(-3, desc), "graphPlanInfo");
  expectEmpty(empty.planBuild(-3), "graphPlanBuild");
  expectEmpty(empty.planBuildMany({0}), "graphPlanBuildMany");
  expectEmpty(empty.planSelect(-3), "graphPlanSelect");
  int32_t index = 0;
  expectEmpty(empty.planAdd(-1, {}, index), "graphPlanAdd");
  expectEmpty(empty.setPlanOptions({}, -5, false), "graphSetPlanOptions");
}

TEST_F(DenseTest, WrongDims) {
  std::vector<GraphBuffer> buffers = dense();
  buffers[0].dims[1] = 5;
  EXPECT_EQ(run(buffers), GRAPH_ERROR_INVALID_ARGUMENT);
  std::string error = lastError();
  EXPECT_CONTAINS(error, "input 0 (uid " + std::to_string(uids[0]) + " \"x\")");
  EXPECT_CONTAINS(error, "the graph expects dims 2x3 but the buffer has 2x5");
  for (float v : y)
    EXPECT_EQ(v, 0.0f); // nothing written

  buffers = dense();
  buffers[3].dims[0] = 3;
  EXPECT_EQ(run(buffers), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(), "output 0 (uid " + std::to_string(uids[3]) +
                                   " \"y\"): the graph expects dims 2x4 but "
                                   "the buffer has 3x4");
}

TEST_F(DenseTest, WrongRankAndDType) {
  std::vector<GraphBuffer> buffers = dense();
  buffers[1].rank = 3;
  buffers[1].dims[2] = 1;
  EXPECT_EQ(run(buffers), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(), "the graph expects dims 3x4 but the buffer has 3x4x1");

  buffers = dense();
  buffers[2].dtype = GRAPH_F16;
  EXPECT_EQ(run(buffers), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(), "input 2 (uid " + std::to_string(uids[2]) +
                                   " \"b\"): the graph expects f32 but the "
                                   "buffer holds f16");

  buffers = dense();
  buffers[2].dtype = static_cast<GraphDType>(42);
  EXPECT_EQ(run(buffers), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(), "unknown dtype 42");
}

TEST_F(DenseTest, MissingBuffer) {
  std::vector<GraphBuffer> buffers = dense();
  buffers.erase(buffers.begin() + 1);
  EXPECT_EQ(run(buffers), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(), "input 1 (uid " + std::to_string(uids[1]) +
                                   " \"w\") of graph @dense has no buffer; "
                                   "the graph expects f32 3x4");
  buffers = dense();
  buffers.pop_back();
  EXPECT_EQ(run(buffers), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(), "output 0");
  EXPECT_CONTAINS(lastError(), "has no buffer");
  EXPECT_EQ(graphExecute(module, GRAPH_DEVICE_CPU, nullptr, 0),
            GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(), "has no buffer");
}

TEST_F(DenseTest, DuplicateAndUnknownBuffers) {
  std::vector<GraphBuffer> buffers = dense();
  buffers.push_back(buffers[0]);
  EXPECT_EQ(run(buffers), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(), "buffers 0 and 4 both have uid " +
                                   std::to_string(uids[0]));

  buffers = dense();
  buffers.push_back(makeBuffer(999, x, {2, 3}));
  EXPECT_EQ(run(buffers), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(),
                  "buffer 4: no input or output of graph @dense has uid 999");
  EXPECT_CONTAINS(lastError(), "\"x\"");
}

TEST_F(DenseTest, BadBufferArguments) {
  std::vector<GraphBuffer> buffers = dense();
  EXPECT_EQ(graphExecute(module, GRAPH_DEVICE_CPU, nullptr, 4),
            GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(), "buffers is NULL but numBuffers is 4");
  EXPECT_EQ(graphExecute(module, GRAPH_DEVICE_CPU, buffers.data(), -1),
            GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(), "numBuffers is -1");

  buffers[1].data = nullptr;
  EXPECT_EQ(run(buffers), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(), "\"w\"): the buffer's data pointer is NULL");

  buffers = dense();
  buffers[0].strides[0] = -3;
  buffers[0].strides[1] = 1;
  EXPECT_EQ(run(buffers), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(), "negative stride");

  buffers = dense();
  buffers[0].rank = -1;
  EXPECT_EQ(run(buffers), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(), "has rank -1");
}

TEST(CAPIExecute, NeedsUids) {
  GraphContext context = graphContextCreate();
  GraphModule module = graphModuleParse(context, kDense, std::strlen(kDense));
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(graphExecute(module, GRAPH_DEVICE_CPU, nullptr, 0),
            GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError(), "input 0 (no uid \"x\") of graph @dense has no "
                               "uid: run prepare (graphModulePrepare)");
  graphModuleDestroy(module);
  graphContextDestroy(context);
}

TEST(CAPIExecute, OutputAliasesInput) {
  GraphContext context = graphContextCreate();
  GraphModule module = graphModuleParse(context, kTwo, std::strlen(kTwo));
  ASSERT_NE(module, nullptr);
  float a[4] = {-1, 2, -3, 4};
  GraphBuffer buffers[2] = {makeBuffer(1, a, {4}), makeBuffer(2, a, {4})};
  ASSERT_EQ(graphExecute(module, GRAPH_DEVICE_CPU, buffers, 2), GRAPH_OK)
      << lastError();
  EXPECT_EQ(a[0], 0.0f);
  EXPECT_EQ(a[1], 2.0f);
  EXPECT_EQ(a[2], 0.0f);
  graphModuleDestroy(module);
  graphContextDestroy(context);
}

TEST(CAPIExecute, DynamicDims) {
  const char *text = R"mlir(graph.graph @g(%x: tensor<?x3xf32> {graph.uid = 1 : i64})
    -> (tensor<?x3xf32> {graph.uid = 2 : i64}) {
  %r = graph.pointwise relu(%x) : (tensor<?x3xf32>) -> tensor<?x3xf32>
  graph.output %r : tensor<?x3xf32>
}
)mlir";
  GraphContext context = graphContextCreate();
  GraphModule module = graphModuleParse(context, text, std::strlen(text));
  if (!module) {
    graphContextDestroy(context);
    GTEST_SKIP() << "the dialect rejects dynamic dims here: " << lastError();
  }
  GraphTensorInfo info;
  ASSERT_EQ(graphGetInput(module, 0, &info), GRAPH_OK);
  EXPECT_EQ(info.dims[0], -1);
  EXPECT_EQ(info.dims[1], 3);
  float x[6] = {-1, 1, -2, 2, -3, 3}, y[6] = {};
  GraphBuffer buffers[2] = {makeBuffer(1, x, {2, 3}), makeBuffer(2, y, {2, 3})};
  GraphStatus status = graphExecute(module, GRAPH_DEVICE_CPU, buffers, 2);
  if (status == GRAPH_OK) {
    EXPECT_EQ(y[0], 0.0f);
    EXPECT_EQ(y[5], 3.0f);
    // An output buffer whose dynamic dim disagrees with what was computed.
    buffers[1].dims[0] = 1;
    EXPECT_EQ(graphExecute(module, GRAPH_DEVICE_CPU, buffers, 2),
              GRAPH_ERROR_INVALID_ARGUMENT);
    EXPECT_CONTAINS(lastError(), "the graph computed dims 2x3 but the buffer has 1x3");
  } else {
    ADD_FAILURE() << graphStatusName(status) << ": " << lastError();
  }
  graphModuleDestroy(module);
  graphContextDestroy(context);
}

TEST(CAPIExecute, ParallelContexts) {
  // One context per thread: independent parse, prepare, execute.
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t, &ok] {
      GraphContext context = graphContextCreate();
      GraphModule module = graphModuleParse(context, kTwo, std::strlen(kTwo));
      if (!module)
        return;
      float a[4] = {float(-t), float(t), 1, -1}, r[4] = {};
      GraphBuffer buffers[2] = {makeBuffer(1, a, {4}), makeBuffer(2, r, {4})};
      ok[t] = graphModulePrepare(module) == GRAPH_OK &&
              graphExecute(module, GRAPH_DEVICE_CPU, buffers, 2) == GRAPH_OK &&
              r[1] == float(t) && r[3] == 0.0f;
      graphModuleDestroy(module);
      graphContextDestroy(context);
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int t = 0; t < 4; ++t)
    EXPECT_TRUE(ok[t]) << "thread " << t;
}

TEST_F(DenseTest, ConcurrentExecuteOnOneModule) {
  // Calls on one context are serialized; each thread has its own output.
  std::vector<std::thread> threads;
  std::vector<std::vector<float>> outs(4, std::vector<float>(8, -1.0f));
  std::vector<GraphStatus> status(4, GRAPH_ERROR_EXECUTION);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      std::vector<GraphBuffer> buffers = dense();
      buffers[3].data = outs[t].data();
      GraphTensorInfo info;
      if (graphGetInput(module, t % 3, &info) != GRAPH_OK)
        return;
      status[t] = run(buffers);
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int t = 0; t < 4; ++t) {
    ASSERT_EQ(status[t], GRAPH_OK) << "thread " << t;
    for (int i = 0; i < 8; ++i)
      EXPECT_NEAR(outs[t][i], expected[i], 1e-6);
  }
}

//===----------------------------------------------------------------------===//
// C++ API
//===----------------------------------------------------------------------===//

TEST(CompilerAPI, ParsePrepareExecuteSerialize) {
  graph::CompiledGraph compiled;
  EXPECT_FALSE(compiled);
  {
    graph::Compiler compiler;
    graph::Status status = compiler.parse(kDense, compiled, "dense.mlir");
    ASSERT_TRUE(status.ok()) << status.message();
  } // the graph keeps the compiler's context alive
  ASSERT_TRUE(compiled);
  EXPECT_EQ(compiled.graphNames(), std::vector<std::string>{"dense"});
  EXPECT_EQ(compiled.selected(), "dense");
  ASSERT_TRUE(compiled.prepare().ok());

  std::vector<graph::TensorDesc> ins, outs;
  ASSERT_TRUE(compiled.inputs(ins).ok());
  ASSERT_TRUE(compiled.outputs(outs).ok());
  ASSERT_EQ(ins.size(), 3u);
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(ins[0].name, "x");
  EXPECT_EQ(ins[0].dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(outs[0].strides, (std::vector<int64_t>{4, 1}));

  std::vector<float> x(6, 1.0f), w(12, 0.5f), b(4, -1.0f), y(8, 7.0f);
  std::vector<graph::Buffer> buffers(4);
  float *data[4] = {x.data(), w.data(), b.data(), y.data()};
  for (int i = 0; i < 4; ++i) {
    const graph::TensorDesc &d = i < 3 ? ins[i] : outs[0];
    ASSERT_TRUE(d.uid.has_value());
    buffers[i].uid = *d.uid;
    buffers[i].data = data[i];
    buffers[i].dtype = d.dtype;
    buffers[i].dims = d.dims;
  }
  graph::Status status = compiled.execute(GRAPH_DEVICE_CPU, buffers);
  ASSERT_TRUE(status.ok()) << status.message();
  for (float v : y)
    EXPECT_FLOAT_EQ(v, 0.5f); // relu(3 * 0.5 - 1)

  buffers[0].strides = {3}; // one stride for two dims
  status = compiled.execute(GRAPH_DEVICE_CPU, buffers);
  EXPECT_EQ(status.code(), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(status.message(), "the buffer has 2 dims but 1 strides");

  std::string bytecode, text;
  ASSERT_TRUE(compiled.serialize(bytecode).ok());
  ASSERT_TRUE(compiled.print(text).ok());
  graph::Compiler other;
  graph::CompiledGraph loaded;
  ASSERT_TRUE(other.parse(bytecode, loaded).ok());
  std::string text2;
  ASSERT_TRUE(loaded.print(text2).ok());
  EXPECT_EQ(text, text2);

  graph::CompiledGraph moved(std::move(loaded));
  EXPECT_FALSE(loaded);
  EXPECT_TRUE(moved);
}

TEST(CompilerAPI, ErrorsAndEmptyGraph) {
  graph::Compiler compiler;
  graph::CompiledGraph compiled;
  graph::Status status = compiler.parse(kBadK, compiled, "bad.mlir");
  EXPECT_EQ(status.code(), GRAPH_ERROR_INVALID_GRAPH);
  EXPECT_FALSE(status);
  EXPECT_CONTAINS(status.message(), "bad.mlir:3:");
  EXPECT_FALSE(compiled); // left as it was

  std::vector<graph::TensorDesc> descs;
  std::string text;
  EXPECT_EQ(compiled.prepare().code(), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(compiled.prepare().message(), "holds no module");
  EXPECT_EQ(compiled.select("g").code(), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(compiled.inputs(descs).code(), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(compiled.outputs(descs).code(), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(compiled.print(text).code(), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(compiled.serialize(text).code(), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(compiled.execute(GRAPH_DEVICE_CPU, {}).code(),
            GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(compiled.graphNames().empty());
  EXPECT_EQ(compiled.selected(), "");

  graph::Compiler moved(std::move(compiler));
  EXPECT_EQ(compiler.parse(kDense, compiled).code(),
            GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(moved.parse(kDense, compiled).ok());
}

} // namespace
