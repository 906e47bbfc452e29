//===- RunnerTest.cpp - The C++ API's Runner (GraphDialect/Runner.h) ------===//
//
// graph::Runner and its helpers as a tool uses them: load a file, prepare,
// bind inputs (inline, random, .npy), run on the CPU reference, compare with
// the reference, and the messages of each step. No GPU here: the tests that
// touch the GPU accept either outcome (a GPU is usable or it is not) and
// check the wording of the one they get.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Runner.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

using graph::Runner;
using graph::Status;
using graph::TensorData;
using graph::TensorDesc;

namespace {

// y = x + b (b broadcast over rows); z = x * b. The two inputs share no
// name; the outputs are named.
const char *kAdd = R"mlir(graph.graph @add(
    %x: tensor<2x3xf32> {graph.uid = 1 : i64, graph.name = "x"},
    %b: tensor<1x3xf32> {graph.uid = 2 : i64, graph.name = "b"})
    -> (tensor<2x3xf32> {graph.uid = 3 : i64, graph.name = "y"},
        tensor<2x3xf32> {graph.uid = 4 : i64, graph.name = "z"}) {
  %y = graph.pointwise add(%x, %b) : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %z = graph.pointwise mul(%x, %b) : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  graph.output %y, %z : tensor<2x3xf32>, tensor<2x3xf32>
}
)mlir";

// No uids, no strides, one input name repeated: prepare assigns the uids.
const char *kUnprepared = R"mlir(graph.graph @relu(
    %x: tensor<4xf32> {graph.name = "x"}, %w: tensor<4xf32> {graph.name = "x"})
    -> (tensor<4xf32>) {
  %s = graph.pointwise add(%x, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %y = graph.pointwise relu(%s) : (tensor<4xf32>) -> tensor<4xf32>
  graph.output %y : tensor<4xf32>
}
)mlir";

const char *kTwoGraphs =
    R"mlir(graph.graph @first(%x: tensor<2xf32> {graph.uid = 1 : i64}) -> (tensor<2xf32> {graph.uid = 2 : i64}) {
  %y = graph.pointwise relu(%x) : (tensor<2xf32>) -> tensor<2xf32>
  graph.output %y : tensor<2xf32>
}
graph.graph @second(%x: tensor<2xf32> {graph.uid = 1 : i64}) -> (tensor<2xf32> {graph.uid = 2 : i64}) {
  %y = graph.pointwise abs(%x) : (tensor<2xf32>) -> tensor<2xf32>
  graph.output %y : tensor<2xf32>
}
)mlir";

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

#define EXPECT_CONTAINS(text, part)                                            \
  EXPECT_PRED2(contains, std::string(text), std::string(part))

/// Writes `text` to a fresh file under the test's temp dir.
std::string writeFile(const std::string &name, const std::string &text) {
  std::string path = testing::TempDir() + "runner_" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::vector<double> values(const TensorData &tensor) {
  std::vector<double> out;
  for (int64_t i = 0; i < tensor.numElements(); ++i)
    out.push_back(tensor.element(i));
  return out;
}

/// A Runner with `text` loaded and prepared.
void loadPrepared(Runner &runner, const std::string &name,
                  const std::string &text) {
  ASSERT_TRUE(runner.load(writeFile(name, text)).ok());
  ASSERT_TRUE(runner.prepare().ok());
}

TEST(Runner, RunsOnTheCpuReference) {
  Runner runner;
  loadPrepared(runner, "add.mlir", kAdd);
  EXPECT_FALSE(runner.isArtifact());
  EXPECT_EQ(runner.name(), "add");
  ASSERT_EQ(runner.inputs().size(), 2u);
  ASSERT_EQ(runner.outputs().size(), 2u);
  EXPECT_EQ(runner.inputs()[1].name, "b");
  EXPECT_EQ(runner.outputs()[0].uid, 3);
  EXPECT_EQ(runner.outputs()[1].dims, (std::vector<int64_t>{2, 3}));

  bool recognized = false;
  ASSERT_TRUE(runner.setInput(0, "2x3xf32=1 2 3 4 5 6", 0, recognized).ok());
  EXPECT_TRUE(recognized);
  size_t b = 99;
  ASSERT_TRUE(runner.findInput("2", b).ok());
  EXPECT_EQ(b, 1u);
  ASSERT_TRUE(runner.setInput(b, "1x3xf32=[[10, 20, 30]]", 0, recognized).ok());
  EXPECT_TRUE(runner.hasInput(0) && runner.hasInput(1));

  bool onGpu = true;
  std::string why;
  ASSERT_TRUE(runner.selectDevice(graph::RunDevice::Cpu, onGpu, why).ok());
  EXPECT_FALSE(onGpu);
  graph::RunResult result;
  ASSERT_TRUE(runner.run(graph::RunOptions(), 2, result).ok());
  EXPECT_FALSE(result.onGpu);
  EXPECT_EQ(result.seconds.size(), 2u);
  EXPECT_TRUE(result.plans.empty());
  ASSERT_EQ(result.outputs.size(), 2u);
  EXPECT_EQ(values(result.outputs[0]),
            (std::vector<double>{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(values(result.outputs[1]),
            (std::vector<double>{10, 40, 90, 40, 100, 180}));
  EXPECT_EQ(result.outputs[0].bytes.size(), 6 * sizeof(float));

  // The reference runs the same inputs again.
  std::vector<TensorData> reference;
  ASSERT_TRUE(runner.runReference(reference).ok());
  ASSERT_EQ(reference.size(), 2u);
  graph::TensorComparison c = graph::compareTensors(
      result.outputs[1], reference[1], 0, 0, /*normwise=*/true);
  EXPECT_TRUE(c.ok);
  EXPECT_EQ(c.maxAbsDiff, 0);
  EXPECT_EQ(runner.defaultTolerance(GRAPH_F32), 1e-5);
  EXPECT_FALSE(runner.computesInTf32());
}

TEST(Runner, PrepareAssignsUidsAndNamesAreAmbiguous) {
  Runner runner;
  loadPrepared(runner, "unprepared.mlir", kUnprepared);
  ASSERT_EQ(runner.inputs().size(), 2u);
  EXPECT_EQ(runner.inputs()[0].uid, 1);
  EXPECT_EQ(runner.inputs()[1].uid, 2);
  EXPECT_EQ(runner.outputs()[0].uid, 3);
  size_t index = 0;
  Status s = runner.findInput("x", index);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "the input name \"x\" is shared by uids 1, 2: use the uid");
  s = runner.findInput("9", index);
  EXPECT_EQ(s.message(), "no input with uid 9; the inputs are: uid 1 \"x\", "
                         "uid 2 \"x\"");
  s = runner.findOutput("y", index);
  EXPECT_EQ(s.message(), "no output named \"y\"; the outputs are: uid 3");
  ASSERT_TRUE(runner.findOutput("3", index).ok());
  EXPECT_EQ(index, 0u);
}

TEST(Runner, InputValues) {
  Runner runner;
  loadPrepared(runner, "inputs.mlir", kAdd);
  bool recognized = true;
  // Not a value form: nothing is bound, no error.
  EXPECT_TRUE(runner.setInput(0, "banana", 0, recognized).ok());
  EXPECT_FALSE(recognized);
  EXPECT_FALSE(runner.hasInput(0));

  Status s = runner.setInput(0, "2x3xf32=1 2 3", 0, recognized);
  EXPECT_TRUE(recognized);
  EXPECT_EQ(s.message(), "input uid 1 \"x\": 2x3xf32 needs 6 values, given 3");
  s = runner.setInput(0, "3x2xf32=1 2 3 4 5 6", 0, recognized);
  EXPECT_EQ(s.message(), "input uid 1 \"x\": expected 2x3xf32, given 3x2xf32");
  s = runner.setInput(0, "@/nonexistent/x.npy", 0, recognized);
  EXPECT_CONTAINS(s.message(), "input uid 1 \"x\": cannot open");

  // Random data depends on (seed, uid) only.
  ASSERT_TRUE(runner.setRandomInput(0, 7).ok());
  ASSERT_TRUE(runner.setInput(1, "random", 7, recognized).ok());
  graph::RunResult first;
  ASSERT_TRUE(runner.run(graph::RunOptions(), 0, first).ok());
  for (double v : values(first.outputs[0]))
    EXPECT_TRUE(v >= -2 && v < 2);

  Runner again;
  loadPrepared(again, "inputs.mlir", kAdd);
  ASSERT_TRUE(again.setInput(1, "1x3xf32=random", 7, recognized).ok());
  ASSERT_TRUE(again.setInput(0, "random", 7, recognized).ok());
  graph::RunResult second;
  ASSERT_TRUE(again.run(graph::RunOptions(), 0, second).ok());
  EXPECT_EQ(first.outputs[0].bytes, second.outputs[0].bytes);
  EXPECT_EQ(first.outputs[1].bytes, second.outputs[1].bytes);
}

TEST(Runner, RunNeedsEveryInput) {
  Runner runner;
  loadPrepared(runner, "missing.mlir", kAdd);
  ASSERT_TRUE(runner.setRandomInput(0, 1).ok());
  graph::RunResult result;
  Status s = runner.run(graph::RunOptions(), 0, result);
  EXPECT_EQ(s.code(), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(s.message(), "input uid 2 \"b\" of graph @add is not bound");
}

TEST(Runner, LoadErrors) {
  Runner runner;
  Status s = runner.load(testing::TempDir() + "runner_does_not_exist.mlir");
  EXPECT_FALSE(s.ok());
  EXPECT_CONTAINS(s.message(), "cannot open input file");

  std::string two = writeFile("two.mlir", kTwoGraphs);
  s = runner.load(two);
  EXPECT_EQ(s.message(), "'" + two +
                             "' holds 2 graphs (first, second): pick one "
                             "with --graph=NAME");
  s = runner.load(two, "third");
  EXPECT_EQ(s.message(), "no graph named 'third' in '" + two +
                             "'; its graphs are: first, second");
  ASSERT_TRUE(runner.load(two, "second").ok());
  EXPECT_EQ(runner.name(), "second");
}

TEST(Runner, DiagnosticsGoToTheHandler) {
  std::vector<graph::RunDiagnostic> seen;
  Runner runner([&](const graph::RunDiagnostic &d) { seen.push_back(d); });
  std::string path = writeFile("syntax.mlir", "graph.graph @g() -> () {\n"
                                              "  graph.frobnicate\n}\n");
  Status s = runner.load(path);
  EXPECT_EQ(s.code(), GRAPH_ERROR_INVALID_GRAPH);
  EXPECT_EQ(s.message(), ""); // the handler was told why
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen[0].severity, graph::RunDiagnostic::Severity::Error);
  EXPECT_EQ(seen[0].file, path);
  EXPECT_EQ(seen[0].line, 2u);
  EXPECT_CONTAINS(seen[0].message, "frobnicate");
}

TEST(Runner, DeviceChoice) {
  EXPECT_TRUE(Runner::checkDevice(graph::RunDevice::Cpu).ok());
  EXPECT_TRUE(Runner::checkDevice(graph::RunDevice::Auto).ok());
  Runner runner;
  loadPrepared(runner, "device.mlir", kAdd);
  bool onGpu = false;
  std::string why;
  ASSERT_TRUE(runner.selectDevice(graph::RunDevice::Auto, onGpu, why).ok());
  // Either a GPU runs it, or `why` says why not.
  EXPECT_TRUE(onGpu || !why.empty());
  if (!onGpu) {
    EXPECT_CONTAINS(why, "the GPU");
  }
}

TEST(Runner, AnArtifactRunsOnlyOnTheGpu) {
  // The artifact of kAdd, lowered through the embedding API.
  graph::Compiler compiler;
  graph::CompiledGraph module, artifact;
  ASSERT_TRUE(compiler.parse(kAdd, module).ok());
  Status lowered = module.lowerToExecutable(artifact);
  if (!lowered.ok())
    GTEST_SKIP() << "no GPU lowering in this build: " << lowered.message();
  std::string text;
  ASSERT_TRUE(artifact.print(text).ok());

  Runner runner;
  ASSERT_TRUE(runner.load(writeFile("artifact.mlir", text)).ok());
  EXPECT_TRUE(runner.isArtifact());
  EXPECT_EQ(runner.name(), "add");
  std::vector<TensorData> reference;
  Status s = runner.runReference(reference);
  EXPECT_EQ(s.code(), GRAPH_ERROR_NOT_SUPPORTED);
  s = runner.prepare();
  if (!s.ok()) { // no usable GPU here
    EXPECT_CONTAINS(s.message(), "exec.program @add runs only on the GPU");
  } else {
    EXPECT_EQ(runner.inputs().size(), 2u);
  }
}

TEST(Runner, OutputFileNames) {
  // Outputs: "y" twice, "a/b" (not a plain file name), unnamed, "ok".
  const char *text = R"mlir(graph.graph @names(
      %x: tensor<2xf32> {graph.uid = 1 : i64})
      -> (tensor<2xf32> {graph.uid = 2 : i64, graph.name = "y"},
          tensor<2xf32> {graph.uid = 3 : i64, graph.name = "y"},
          tensor<2xf32> {graph.uid = 4 : i64, graph.name = "a/b"},
          tensor<2xf32> {graph.uid = 0 : i64},
          tensor<2xf32> {graph.uid = 6 : i64, graph.name = "ok.v1"}) {
    %a = graph.pointwise relu(%x) : (tensor<2xf32>) -> tensor<2xf32>
    %b = graph.pointwise abs(%x) : (tensor<2xf32>) -> tensor<2xf32>
    %c = graph.pointwise neg(%x) : (tensor<2xf32>) -> tensor<2xf32>
    %d = graph.pointwise exp(%x) : (tensor<2xf32>) -> tensor<2xf32>
    %e = graph.pointwise sqrt(%x) : (tensor<2xf32>) -> tensor<2xf32>
    graph.output %a, %b, %c, %d, %e : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  }
  )mlir";
  Runner runner;
  loadPrepared(runner, "names.mlir", text);
  EXPECT_EQ(runner.outputFileName(0), "uid_2.npy");
  EXPECT_EQ(runner.outputFileName(1), "uid_3.npy");
  EXPECT_EQ(runner.outputFileName(2), "uid_4.npy");
  EXPECT_EQ(runner.outputFileName(3), "uid_0.npy");
  EXPECT_EQ(runner.outputFileName(4), "ok.v1.npy");
  EXPECT_EQ(runner.outputFileName(5), "");
}

TEST(RunnerHelpers, TimingSummary) {
  graph::TimingSummary none = graph::summarizeTimings({});
  EXPECT_EQ(none.runs, 0u);
  EXPECT_EQ(none.median, 0);
  graph::TimingSummary odd = graph::summarizeTimings({3, 1, 2});
  EXPECT_EQ(odd.runs, 3u);
  EXPECT_EQ(odd.min, 1);
  EXPECT_EQ(odd.median, 2);
  EXPECT_EQ(odd.max, 3);
  graph::TimingSummary even = graph::summarizeTimings({4, 1, 2, 8});
  EXPECT_EQ(even.median, 3);
  EXPECT_EQ(even.max, 8);
}

TEST(RunnerHelpers, TensorText) {
  TensorDesc desc;
  desc.name = "y";
  EXPECT_EQ(graph::tensorLabel(desc), "uid ? \"y\"");
  EXPECT_EQ(graph::tensorUidText(desc), "?");
  desc.uid = 0;
  desc.name = "";
  EXPECT_EQ(graph::tensorLabel(desc), "uid 0");
  EXPECT_EQ(graph::tensorTypeText({2, -1, 4}, GRAPH_BF16), "2x?x4xbf16");
  EXPECT_EQ(graph::tensorTypeText({}, GRAPH_F32), "f32");
  EXPECT_TRUE(graph::isFloatDType(GRAPH_F8E4M3FN));
  EXPECT_FALSE(graph::isFloatDType(GRAPH_I32));
  GraphHeurMode mode = GRAPH_HEUR_MODE_A;
  EXPECT_TRUE(graph::parseHeuristicsMode("Fallback", mode));
  EXPECT_EQ(mode, GRAPH_HEUR_MODE_FALLBACK);
  EXPECT_FALSE(graph::parseHeuristicsMode("c", mode));
}

TEST(RunnerHelpers, NpyRoundTripAndCompare) {
  TensorData tensor;
  tensor.dtype = GRAPH_F16;
  tensor.dims = {2, 2};
  tensor.bytes = {0x00, 0x3c, 0x00, 0x40, 0x00, 0x42, 0x00, 0xc4}; // 1 2 3 -4
  EXPECT_EQ(values(tensor), (std::vector<double>{1, 2, 3, -4}));
  std::string path = testing::TempDir() + "runner_f16.npy";
  ASSERT_TRUE(graph::writeNpy(path, tensor).ok());
  TensorData back;
  ASSERT_TRUE(graph::readNpy(path, GRAPH_F16, back).ok());
  EXPECT_EQ(back.dims, tensor.dims);
  EXPECT_EQ(back.bytes, tensor.bytes);
  Status s = graph::readNpy(path, GRAPH_F32, back);
  EXPECT_EQ(s.message().rfind("'" + path + "': ", 0), 0u) << s.message();
  s = graph::readNpy(path + ".missing", GRAPH_F16, back);
  EXPECT_CONTAINS(s.message(), "cannot open");

  TensorData other = tensor;
  other.bytes[7] = 0x44; // -4 -> 4
  graph::TensorComparison c =
      graph::compareTensors(other, tensor, 1e-2, 1e-2, false);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.firstBad, 3);
  EXPECT_EQ(c.got, 4);
  EXPECT_EQ(c.want, -4);
  EXPECT_TRUE(graph::compareTensors(tensor, tensor, 0, 0, false).ok);
}

} // namespace
