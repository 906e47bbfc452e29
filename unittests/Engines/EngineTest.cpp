//===- EngineTest.cpp - The engine registry and each engine's rules -------===//
//
// Every engine answers through one interface: lookup by name, the default
// ranking, the per-op and group-level rules with their reasons, the plans
// each proposes. The codegen engine's per-op list answers the same on ops
// (graph-select-engines) and on op kinds (the kernel generator).
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Engines/Engine.h"
#include "GraphDialect/Engines/Codegen.h"
#include "GraphDialect/GraphOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::graph;

namespace {

TEST(EngineRegistry, LookupAndRanking) {
  std::vector<std::string> names;
  for (const Engine *engine : getEngines())
    names.push_back(engine->name().str());
  EXPECT_EQ(names, (std::vector<std::string>{"cudnn", "codegen", "reference"}));
  for (const std::string &name : names) {
    const Engine *engine = lookupEngine(name);
    ASSERT_NE(engine, nullptr) << name;
    EXPECT_EQ(engine->name(), name);
  }
  EXPECT_EQ(lookupEngine("tensorrt"), nullptr);
  EXPECT_EQ(lookupEngine(""), nullptr);
  ASSERT_EQ(getDefaultEngineRanking().size(), 2u);
  EXPECT_EQ(getDefaultEngineRanking()[0], "cudnn");
  EXPECT_EQ(getDefaultEngineRanking()[1], "codegen");
  EXPECT_EQ(&getCudnnEngine(), lookupEngine("cudnn"));
  EXPECT_EQ(&getCodegenEngine(), lookupEngine("codegen"));
  EXPECT_EQ(&getReferenceEngine(), lookupEngine("reference"));
}

TEST(EngineRegistry, PlanNames) {
  EXPECT_EQ(getCudnnEngine().planNames(),
            (std::vector<std::string>{"heuristics"}));
  EXPECT_EQ(getReferenceEngine().planNames(),
            (std::vector<std::string>{"reference_cpu"}));
  std::vector<std::string> codegen = getCodegenEngine().planNames();
  ASSERT_EQ(codegen.size(), 9u);
  EXPECT_EQ(codegen.front(), "codegen_v2_t128_i4");
  EXPECT_EQ(codegen.back(), "codegen_v1");
  for (const std::string &name : codegen)
    EXPECT_EQ(name.rfind("codegen_v", 0), 0u) << name;
}

/// One graph of representative ops; `opsOf` lists them in program order.
constexpr const char *kGraph = R"mlir(
graph.graph @ops(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>, %c: tensor<4x4xf32>,
                 %d: tensor<4x4xf64>, %x: tensor<2x16x8x8xf16>,
                 %g: tensor<1x16x1x1xf32>, %bb: tensor<1x16x1x1xf32>,
                 %eps: tensor<1x1x1x1xf32>)
    -> (tensor<4x4xf32>, tensor<4x1xf32>, tensor<4x4xf32>, tensor<4x4xf64>,
        tensor<2x16x8x8xf16>, tensor<4x4xf32>) {
  %m = graph.matmul %a, %b {name = "mm"} : (tensor<4x8xf16>, tensor<8x4xf16>) -> tensor<4x4xf32>
  %s = graph.reduction add %c : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %t = graph.transpose %c {permutation = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %e = graph.pointwise exp(%d) : (tensor<4x4xf64>) -> tensor<4x4xf64>
  %y, %mean, %iv = graph.batchnorm %x, scale %g, bias %bb, epsilon %eps : (tensor<2x16x8x8xf16>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x16x8x8xf16>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, none, none)
  %r = graph.pointwise relu(%m) {name = "act"} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  graph.output %m, %s, %t, %e, %y, %r : tensor<4x4xf32>, tensor<4x1xf32>, tensor<4x4xf32>, tensor<4x4xf64>, tensor<2x16x8x8xf16>, tensor<4x4xf32>
}
)mlir";

class EngineRules : public ::testing::Test {
protected:
  void SetUp() override {
    context.loadDialect<GraphDialect>();
    module = parseSourceString<ModuleOp>(kGraph, &context);
    ASSERT_TRUE(module);
    module->walk([&](GraphOp graph) {
      for (Operation &op : graph.getBody().front().without_terminator())
        ops.push_back(&op);
    });
    ASSERT_EQ(ops.size(), 6u);
  }
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::vector<Operation *> ops; // matmul, reduction, transpose, exp, bn, relu
};

TEST_F(EngineRules, PerOpDecisions) {
  auto decisions = [&](const Engine &engine) {
    std::vector<std::string> out;
    for (Operation *op : ops)
      out.push_back(engine.declines(op));
    return out;
  };
  EXPECT_EQ(decisions(getCudnnEngine()),
            (std::vector<std::string>{
                "", "", "no cuDNN lowering for transpose yet",
                "cuDNN's fused engines have no f64 path", "", ""}));
  EXPECT_EQ(decisions(getCodegenEngine()),
            (std::vector<std::string>{
                "generated kernels have no matmul yet", "", "",
                "generated kernels take f32, f16, bf16, fp8, fp4, i1 and i32 "
                "tensors only",
                "generated kernels do not run batchnorm training (statistics "
                "across rows); cuDNN does",
                ""}));
  EXPECT_EQ(decisions(getReferenceEngine()),
            std::vector<std::string>(ops.size(), ""));
  EXPECT_EQ(engineDeclines("nope", ops[0]), "unknown engine 'nope'");
  EXPECT_EQ(engineDeclines("codegen", ops[1]), "");
}

TEST_F(EngineRules, GroupDecisionsNameTheOp) {
  std::vector<Operation *> group = {ops[0], ops[5]}; // matmul + relu
  EXPECT_EQ(getCudnnEngine().declinesGroup(group), "");
  EXPECT_EQ(getCodegenEngine().declinesGroup(group),
            "matmul \"mm\": generated kernels have no matmul yet");
  EXPECT_EQ(getReferenceEngine().declinesGroup(group), "");
  EXPECT_EQ(engineDeclinesGroup("nope", group), "unknown engine 'nope'");
  EXPECT_EQ(getCudnnEngine().proposePlans(group),
            (std::vector<std::string>{"heuristics"}));
  EXPECT_TRUE(getCodegenEngine().proposePlans(group).empty());
  EXPECT_EQ(getCodegenEngine().proposePlans({ops[1], ops[2]}),
            getCodegenEngine().planNames());
  EXPECT_EQ(describeNode(ops[5]), "pointwise \"act\"");
  EXPECT_EQ(describeNode(ops[1]), "reduction");
}

/// cuDNN reads the operands GraphOps.td marks by value (Graph_ByValue: the
/// norms' epsilon, batchnorm's momentum) on the host, so they may be f64;
/// any other f64 operand it declines. Rmsnorm's optional bias before its
/// epsilon and batchnorm's operand segments move the marked operand.
TEST(EngineRegistry, CudnnTakesF64ByValueOperandsOnly) {
  MLIRContext context;
  context.loadDialect<GraphDialect>();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
graph.graph @f64(%x: tensor<4x8x1x1xf32>, %g: tensor<1x8x1x1xf32>,
                 %g64: tensor<1x8x1x1xf64>, %e64: tensor<1x1x1x1xf64>,
                 %e: tensor<1x1x1x1xf32>, %p64: tensor<2x8x1x1xf64>)
    -> (tensor<4x8x1x1xf32>, tensor<4x8x1x1xf32>, tensor<4x8x1x1xf32>,
        tensor<4x8x1x1xf32>, tensor<4x8x1x1xf32>) {
  %a = graph.rmsnorm inference %x, scale %g, epsilon %e64 : (tensor<4x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x1x1x1xf64>) -> tensor<4x8x1x1xf32>
  %b = graph.rmsnorm inference %x, scale %g, bias %g, epsilon %e64 : (tensor<4x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x1x1x1xf64>) -> tensor<4x8x1x1xf32>
  %c = graph.rmsnorm inference %x, scale %g64, epsilon %e : (tensor<4x8x1x1xf32>, tensor<1x8x1x1xf64>, tensor<1x1x1x1xf32>) -> tensor<4x8x1x1xf32>
  %d, %dm, %di, %dr, %dv = graph.batchnorm %x, scale %g, bias %g, epsilon %e running_mean %g running_var %g momentum %e64 : (tensor<4x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x1x1x1xf64>) -> (tensor<4x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>)
  %f, %fm, %fi = graph.batchnorm %x, scale %g, bias %g, epsilon %e peer_stats(%p64) : (tensor<4x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x1x1x1xf32>, tensor<2x8x1x1xf64>) -> (tensor<4x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, none, none)
  graph.output %a, %b, %c, %d, %f : tensor<4x8x1x1xf32>, tensor<4x8x1x1xf32>, tensor<4x8x1x1xf32>, tensor<4x8x1x1xf32>, tensor<4x8x1x1xf32>
}
)mlir",
                                                             &context);
  ASSERT_TRUE(module);
  std::vector<std::string> decisions;
  module->walk([&](GraphOp graph) {
    for (Operation &op : graph.getBody().front().without_terminator())
      decisions.push_back(getCudnnEngine().declines(&op));
  });
  const char *noF64 = "cuDNN's fused engines have no f64 path";
  EXPECT_EQ(decisions, (std::vector<std::string>{"", "", noF64, "", noF64}));
}

/// Producers an engine runs in their reader's group (graph-fuse asks):
/// cuDNN's Philox rng of an sdpa's dropout mask, a mixed-precision matmul's
/// casts of graph inputs; not a cast read twice, nor into another op.
TEST(EngineRegistry, RunsFusedInto) {
  MLIRContext context;
  context.loadDialect<GraphDialect>();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
graph.graph @g(%a: tensor<2x8x16xf16>, %b: tensor<2x16x8xi8>,
               %q: tensor<1x2x8x16xbf16>, %seed: tensor<1x1x1x1xi64>,
               %offset: tensor<1x1x1x1xi64>)
    -> (tensor<2x8x8xbf16>, tensor<2x16x8xbf16>, tensor<1x2x8x16xbf16>) {
  %a16 = graph.pointwise identity(%a) : (tensor<2x8x16xf16>) -> tensor<2x8x16xbf16>
  %b16 = graph.pointwise identity(%b) : (tensor<2x16x8xi8>) -> tensor<2x16x8xbf16>
  %y = graph.matmul %a16, %b16 : (tensor<2x8x16xbf16>, tensor<2x16x8xbf16>) -> tensor<2x8x8xbf16>
  %keep = graph.rng %seed, %offset {bernoulli_probability = 0.75 : f64} : (tensor<1x1x1x1xi64>, tensor<1x1x1x1xi64>) -> tensor<1x2x8x8xf32>
  %o, %stats = graph.sdpa %q, %q, %q dropout_mask %keep {generate_stats, dropout_probability = 0.25 : f64}
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x8xf32>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x1xf32>, none, none)
  graph.output %y, %b16, %o : tensor<2x8x8xbf16>, tensor<2x16x8xbf16>, tensor<1x2x8x16xbf16>
}
)mlir",
                                                             &context);
  ASSERT_TRUE(module);
  std::vector<Operation *> ops; // castA, castB, matmul, rng, sdpa
  module->walk([&](GraphOp graph) {
    for (Operation &op : graph.getBody().front().without_terminator())
      ops.push_back(&op);
  });
  ASSERT_EQ(ops.size(), 5u);
  EXPECT_TRUE(getCudnnEngine().runsFusedInto(ops[0], ops[2]));
  EXPECT_FALSE(getCudnnEngine().runsFusedInto(ops[1], ops[2])); // also output
  EXPECT_TRUE(getCudnnEngine().runsFusedInto(ops[3], ops[4]));
  EXPECT_FALSE(getCudnnEngine().runsFusedInto(ops[0], ops[4]));
  EXPECT_FALSE(getCodegenEngine().runsFusedInto(ops[3], ops[4]));
  EXPECT_FALSE(getReferenceEngine().runsFusedInto(ops[0], ops[2]));
  EXPECT_TRUE(anyEngineRunsFusedInto(ops[3], ops[4]));
  EXPECT_FALSE(anyEngineRunsFusedInto(ops[2], ops[4]));
  // Neither engine that cannot reproduce cuDNN's Philox stream takes the
  // rng, and both say why in the same words.
  EXPECT_EQ(getCodegenEngine().declines(ops[3]), philoxStreamDeclined());
  EXPECT_EQ(getReferenceEngine().declines(ops[3]), philoxStreamDeclined());
}

// cuDNN takes a matmul's operand cast into its group only while M, N and K
// are multiples of 8 (or dynamic): its runtime-fusion engine misreads cast
// operands at other sizes.
TEST(EngineRegistry, CastJoinsMatmulOnlyAtAlignedSizes) {
  MLIRContext context;
  context.loadDialect<GraphDialect>();
  auto castFuses = [&](StringRef a, StringRef b, StringRef c) {
    std::string text = ("graph.graph @g(%a: tensor<" + a +
                        "xbf16>, %b: tensor<" + b + "xf32>) -> tensor<" + c +
                        "xf32> {\n"
                        "  %a32 = graph.pointwise identity(%a) : (tensor<" +
                        a + "xbf16>) -> tensor<" + a +
                        "xf32>\n"
                        "  %y = graph.matmul %a32, %b : (tensor<" +
                        a + "xf32>, tensor<" + b + "xf32>) -> tensor<" + c +
                        "xf32>\n"
                        "  graph.output %y : tensor<" +
                        c + "xf32>\n}\n")
                           .str();
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    EXPECT_TRUE(module) << text;
    if (!module)
      return false;
    std::vector<Operation *> ops;
    module->walk([&](GraphOp graph) {
      for (Operation &op : graph.getBody().front().without_terminator())
        ops.push_back(&op);
    });
    return ops.size() == 2 && getCudnnEngine().runsFusedInto(ops[0], ops[1]);
  };
  EXPECT_TRUE(castFuses("2x8x16", "2x16x24", "2x8x24"));
  EXPECT_FALSE(castFuses("2x8x9", "2x9x24", "2x8x24"));   // K = 9
  EXPECT_FALSE(castFuses("2x8x16", "2x16x25", "2x8x25")); // N = 25
  EXPECT_FALSE(castFuses("2x7x16", "2x16x24", "2x7x24")); // M = 7
  EXPECT_TRUE(castFuses("2x?x16", "2x16x24", "2x?x24"));  // M dynamic
  EXPECT_TRUE(castFuses("8x16", "16x24", "8x24"));        // rank 2
  EXPECT_FALSE(castFuses("8x16", "16x25", "8x25"));
  EXPECT_FALSE(castFuses("2x8x?", "2x9x24", "2x8x24")); // K known from B
}

TEST(CodegenSupportList, ByKind) {
  auto declines = [](StringRef kind, StringRef mode = "") {
    CodegenOpInfo info;
    info.kind = kind;
    info.mode = mode;
    return codegenDeclinesOp(info);
  };
  EXPECT_EQ(declines("pointwise", "swish_backward"), "");
  EXPECT_EQ(declines("pointwise", "gen_index"), "");
  EXPECT_EQ(declines("pointwise", "frobnicate"),
            "generated kernels have no pointwise frobnicate");
  for (StringRef kind :
       {"reduction", "layernorm", "rmsnorm_backward", "instancenorm",
        "adalayernorm_backward", "batchnorm_inference", "genstats", "transpose",
        "slice", "concatenate", "reshape", "rope", "rope_backward",
        "block_scale_quantize", "block_scale_dequantize"})
    EXPECT_EQ(declines(kind), "") << kind.str();
  EXPECT_EQ(declines("matmul"), "generated kernels have no matmul yet");
  EXPECT_EQ(declines("sdpa"), "generated kernels have no sdpa yet");
  EXPECT_EQ(declines("graph"), "generated kernels have no graph yet");
  EXPECT_NE(declines("batchnorm").find("batchnorm training"),
            std::string::npos);

  CodegenOpInfo ragged;
  ragged.kind = "reduction";
  ragged.ragged = true;
  EXPECT_EQ(codegenDeclinesOp(ragged),
            "generated kernels have no ragged (group_offset) reduction");
  ragged.kind = "block_scale_quantize";
  EXPECT_EQ(codegenDeclinesOp(ragged),
            "generated kernels have no ragged (group_offset) quantize");
  CodegenOpInfo ranks;
  ranks.kind = "reduction";
  ranks.inputRank = 3;
  ranks.outputRank = 2;
  EXPECT_EQ(codegenDeclinesOp(ranks),
            "generated kernels reduce to a result of the input's rank");
  ranks.outputRank = 3;
  EXPECT_EQ(codegenDeclinesOp(ranks), "");
}

} // namespace
