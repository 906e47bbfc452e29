//===- PlanListTest.cpp - A group's plan list over both engines -----------===//
//
// The list the GPU executor walks and the C API exposes (PlanList.h):
// cuDNN's heuristics plans, the codegen plans that apply, the explicit
// plans; the walk under planIndex and deselectEngines; codegen engine ids
// and knobs. No GPU: cuDNN's plan names are given.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Engine/PlanList.h"
#include "GraphDialect/Conversion/GraphToCodegen.h"
#include "GraphDialect/Conversion/GraphToCudnn.h"
#include "GraphDialect/Engine/GroupPlans.h"
#include "GraphDialect/GraphDialect.h"
#include "GraphDialect/GraphOps.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace mlir;
using namespace mlir::graph;

namespace {

std::vector<std::string> namesOf(const std::vector<PlanEntry> &list) {
  std::vector<std::string> names;
  for (const PlanEntry &entry : list)
    names.push_back(entry.name);
  return names;
}

TEST(PlanListTest, CudnnHeuristicsThenCodegenThenExplicit) {
  std::vector<PlanEntry> list =
      groupPlanList({"eng0_k2=1", "eng7", "eng3_k1=0"}, 2,
                    {"codegen_v2_t256_i2", "codegen_v1"});
  EXPECT_EQ(namesOf(list),
            (std::vector<std::string>{"eng0_k2=1", "eng7", "codegen_v2_t256_i2",
                                      "codegen_v1", "eng3_k1=0"}));
  // Each entry knows its engine and its index in that engine's own list.
  EXPECT_FALSE(list[1].codegen);
  EXPECT_EQ(list[1].index, 1u);
  EXPECT_TRUE(list[3].codegen);
  EXPECT_EQ(list[3].index, 1u);
  EXPECT_FALSE(list[4].codegen);
  EXPECT_EQ(list[4].index, 2u); // the explicit plan: cuDNN's third
  // cuDNN declined: the codegen plans are indices 0...
  list = groupPlanList({}, 0, {"codegen_v2_t256_i2", "codegen_v1"});
  ASSERT_EQ(list.size(), 2u);
  EXPECT_TRUE(list[0].codegen);
  EXPECT_EQ(list[0].name, "codegen_v2_t256_i2");
  // ... and without codegen the list is cuDNN's.
  EXPECT_EQ(namesOf(groupPlanList({"eng1", "eng2"}, 2, {})),
            (std::vector<std::string>{"eng1", "eng2"}));
}

TEST(PlanListTest, EngineRankingFollowsTheGroupThenTheRegistry) {
  ::graph::rt::GraphSpec spec;
  using Names = std::vector<std::string>;
  // A split piece has no choice of its own: the registry's default.
  EXPECT_EQ(gpuEngineRanking(spec), (Names{"cudnn", "codegen"}));
  // graph-select-engines' order comes first; the engines it did not choose
  // follow in the registry's rank (GroupPlans does not ask them).
  spec.engines = {"codegen"};
  EXPECT_EQ(gpuEngineRanking(spec), (Names{"codegen", "cudnn"}));
  spec.engines = {"codegen", "cudnn"};
  EXPECT_EQ(gpuEngineRanking(spec), (Names{"codegen", "cudnn"}));
  // The reference has no GPU plans; unknown names are not engines.
  spec.engines = {"reference", "bogus", "cudnn"};
  EXPECT_EQ(gpuEngineRanking(spec), (Names{"cudnn", "codegen"}));
}

TEST(PlanListTest, WalkDefaultsToEveryPlanInOrder) {
  std::vector<PlanEntry> list =
      groupPlanList({"eng0", "eng7"}, 2, {"codegen_v2_t256_i2", "codegen_v1"});
  std::vector<size_t> order;
  std::vector<std::string> declined;
  EXPECT_EQ(planWalk(list, -1, {}, order, declined), "");
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_TRUE(declined.empty());
}

TEST(PlanListTest, WalkPinsOnePlanOfEitherEngine) {
  std::vector<PlanEntry> list =
      groupPlanList({"eng0", "eng7"}, 2, {"codegen_v2_t256_i2", "codegen_v1"});
  std::vector<size_t> order;
  std::vector<std::string> declined;
  // Beyond cuDNN's count: a codegen plan, and only it.
  EXPECT_EQ(planWalk(list, 3, {}, order, declined), "");
  EXPECT_EQ(order, (std::vector<size_t>{3}));
  EXPECT_EQ(list[order[0]].name, "codegen_v1");
  EXPECT_EQ(planWalk(list, 1, {}, order, declined), "");
  EXPECT_EQ(order, (std::vector<size_t>{1}));
  EXPECT_EQ(planWalk(list, 4, {}, order, declined),
            "plan index 4 is out of range for 4 plan(s)");
  EXPECT_TRUE(order.empty());
  // A pinned plan the options exclude is an error naming it.
  EXPECT_EQ(planWalk(list, 2, {"codegen"}, order, declined),
            "plan 2 (codegen_v2_t256_i2) is pinned but deselected");
  EXPECT_EQ(planWalk(list, 0, {"cudnn"}, order, declined),
            "plan 0 (eng0) is pinned but deselected");
  // Deselecting cuDNN leaves the codegen plans' indices where they were.
  EXPECT_EQ(planWalk(list, 2, {"cudnn"}, order, declined), "");
  EXPECT_EQ(order, (std::vector<size_t>{2}));
}

TEST(PlanListTest, WalkSkipsDeselectedEnginesAndNames) {
  std::vector<PlanEntry> list =
      groupPlanList({"eng0", "eng7", "eng9"}, 2,
                    {"codegen_v2_t256_i2", "codegen_v2_t512_i1", "codegen_v1"});
  std::vector<size_t> order;
  std::vector<std::string> declined;
  EXPECT_EQ(planWalk(list, -1, {"codegen"}, order, declined), "");
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 5}));
  EXPECT_EQ(declined,
            (std::vector<std::string>{"codegen_v2_t256_i2: deselected",
                                      "codegen_v2_t512_i1: deselected",
                                      "codegen_v1: deselected"}));
  declined.clear();
  // "cudnn" names the whole cuDNN engine (its plans are "eng<id>...").
  EXPECT_EQ(planWalk(list, -1, {"cudnn"}, order, declined), "");
  EXPECT_EQ(order, (std::vector<size_t>{2, 3, 4}));
  EXPECT_EQ(declined.size(), 3u);
  declined.clear();
  // Plain substrings, as the frontend's deselect_engines.
  EXPECT_EQ(planWalk(list, -1, {"eng7", "t512", ""}, order, declined), "");
  EXPECT_EQ(order, (std::vector<size_t>{0, 2, 4, 5}));
  // Both engines off: nothing to try, and no error yet (the caller reports
  // the declined lines).
  declined.clear();
  EXPECT_EQ(planWalk(list, -1, {"cudnn", "codegen"}, order, declined), "");
  EXPECT_TRUE(order.empty());
  EXPECT_EQ(declined.size(), 6u);
}

TEST(PlanListTest, CodegenEngineIdsAndKnobs) {
  std::vector<std::pair<int64_t, int64_t>> knobs;
  EXPECT_EQ(codegenEngineOf("codegen_v2_t256_i4", knobs), kCodegenV2EngineId);
  EXPECT_EQ(knobs, (std::vector<std::pair<int64_t, int64_t>>{
                       {kCodegenKnobThreads, 256},
                       {kCodegenKnobItems, 4},
                       {kCodegenKnobPrefetch, 0}}));
  EXPECT_EQ(codegenEngineOf("codegen_v2_t512_i2_p", knobs), kCodegenV2EngineId);
  EXPECT_EQ(knobs.back(),
            (std::pair<int64_t, int64_t>{kCodegenKnobPrefetch, 1}));
  EXPECT_EQ(codegenEngineOf(kCodegenEngine, knobs), kCodegenV1EngineId);
  EXPECT_TRUE(knobs.empty());
  // Every plan the engine lists has a negative id, apart from cuDNN's.
  for (const std::string &name : codegenPlanNames())
    EXPECT_LT(codegenEngineOf(name, knobs), 0) << name;
}

/// A group of ops of these kinds, for anchorGroup.
::graph::rt::GraphSpec groupOf(const char *name,
                               std::vector<const char *> kinds) {
  ::graph::rt::GraphSpec spec;
  spec.name = name;
  for (const char *kind : kinds) {
    ::graph::rt::OpSpec op;
    op.kind = kind;
    spec.ops.push_back(op);
  }
  return spec;
}

TEST(PlanListTest, AnchorGroupIsThePrincipalOne) {
  using Groups = std::vector<::graph::rt::GraphSpec>;
  EXPECT_EQ(anchorGroup({}), 0u);
  EXPECT_EQ(anchorGroup(Groups{groupOf("g/group0", {"pointwise"})}), 0u);
  // A pointwise prologue before the matmul group: the matmul group, even
  // with fewer ops.
  EXPECT_EQ(anchorGroup(Groups{
                groupOf("g/group0", {"pointwise", "pointwise", "reduction"}),
                groupOf("g/group1", {"matmul", "pointwise"})}),
            1u);
  // Two principal groups: the one with more principal ops, then more ops.
  EXPECT_EQ(anchorGroup(Groups{groupOf("g/group0", {"conv_fprop"}),
                               groupOf("g/group1", {"conv_fprop", "pointwise"}),
                               groupOf("g/group2", {"matmul", "pointwise"})}),
            1u);
  // Views are not principal; ties go to the earliest group.
  EXPECT_EQ(
      anchorGroup(Groups{groupOf("g/group0", {"reshape", "transpose"}),
                         groupOf("g/group1", {"pointwise", "pointwise"})}),
      0u);
  EXPECT_EQ(anchorGroup(Groups{groupOf("g/group0", {"layernorm"}),
                               groupOf("g/group1", {"rmsnorm"})}),
            0u);
}

TEST(PlanListTest, AnchorOrderRanksEveryGroup) {
  using Groups = std::vector<::graph::rt::GraphSpec>;
  EXPECT_TRUE(anchorOrder({}).empty());
  // The order createPlanList walks when the anchor has no plan: principal
  // ops first, then op count, then the earliest; every group once.
  Groups groups{groupOf("g/group0", {"pointwise"}),
                groupOf("g/group1", {"conv_fprop", "pointwise"}),
                groupOf("g/group2", {"pointwise", "pointwise"}),
                groupOf("g/group3", {"conv_fprop", "conv_fprop"}),
                groupOf("g/group4", {"matmul", "pointwise"})};
  EXPECT_EQ(anchorOrder(groups), (std::vector<size_t>{3, 1, 4, 2, 0}));
  EXPECT_EQ(anchorGroup(groups), 3u);
}

class PlanListGraphTest : public ::testing::Test {
protected:
  PlanListGraphTest() {
    DialectRegistry registry;
    registry.insert<GraphDialect>();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    context.printOpOnDiagnostic(false);
  }

  /// The first group of `text` after the GPU pipeline and lowering.
  ::graph::rt::GraphSpec firstGroup(const char *text) {
    module = parseSourceString<ModuleOp>(text, &context);
    EXPECT_TRUE(module);
    PassManager pm(&context);
    buildGpuPipeline(pm);
    EXPECT_TRUE(succeeded(pm.run(*module)));
    GraphOp graph = *module->getOps<GraphOp>().begin();
    CudnnProgram program;
    EXPECT_EQ(lowerToCudnn(graph, program), "");
    EXPECT_FALSE(program.groups.empty());
    return program.groups.empty() ? ::graph::rt::GraphSpec()
                                  : program.groups.front();
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(PlanListGraphTest, PointwiseChainListsEveryCodegenPlan) {
  ::graph::rt::GraphSpec spec = firstGroup(R"mlir(
graph.graph @chain(%x: tensor<8x64xf32> {graph.name = "x"},
                   %b: tensor<1x64xf32> {graph.name = "b"})
    -> (tensor<8x64xf32> {graph.name = "y"}) attributes {compute_data_type = f32} {
  %h = graph.pointwise add(%x, %b) : (tensor<8x64xf32>, tensor<1x64xf32>) -> tensor<8x64xf32>
  %y = graph.pointwise relu(%h) : (tensor<8x64xf32>) -> tensor<8x64xf32>
  graph.output %y : tensor<8x64xf32>
}
)mlir");
  std::vector<std::string> declined;
  std::vector<std::string> names = codegenPlansFor(spec, &declined);
  EXPECT_EQ(names, codegenPlanNames());
  EXPECT_TRUE(declined.empty());
  // In the group's list after cuDNN's plans.
  std::vector<PlanEntry> list = groupPlanList({"eng0"}, 1, names);
  ASSERT_EQ(list.size(), names.size() + 1);
  EXPECT_EQ(list[1].name, names.front());
}

TEST_F(PlanListGraphTest, MatmulHasNoCodegenPlan) {
  ::graph::rt::GraphSpec spec = firstGroup(R"mlir(
graph.graph @mm(%a: tensor<1x4x8xf32> {graph.name = "a"},
                %b: tensor<1x8x6xf32> {graph.name = "b"})
    -> (tensor<1x4x6xf32> {graph.name = "y"}) attributes {compute_data_type = f32} {
  %y = graph.matmul %a, %b : (tensor<1x4x8xf32>, tensor<1x8x6xf32>) -> tensor<1x4x6xf32>
  graph.output %y : tensor<1x4x6xf32>
}
)mlir");
  std::vector<std::string> declined;
  EXPECT_TRUE(codegenPlansFor(spec, &declined).empty());
  // One line per engine version, with its reason.
  ASSERT_EQ(declined.size(), 2u);
  EXPECT_EQ(declined.front().rfind("codegen_v2: ", 0), 0u) << declined.front();
  EXPECT_EQ(declined.back().rfind("codegen_v1: ", 0), 0u) << declined.back();
  std::vector<PlanEntry> list = groupPlanList({"eng0", "eng1"}, 2, {});
  EXPECT_EQ(list.size(), 2u);
}

/// What decides whether a plan list planning made serves an execute's group
/// (GroupPlans::answers; the lists themselves need a GPU): the same graph
/// lowered twice gives the same group, and any difference the engines see
/// (a tensor, an attribute, the engine choice, the name, an op label) makes
/// it another.
TEST_F(PlanListGraphTest, SameGroupSpecComparesWhatTheEnginesSee) {
  const char *text = R"mlir(
graph.graph @ln(%x: tensor<4x64xf32> {graph.name = "x"},
                %g: tensor<1x64xf32> {graph.name = "g"},
                %b: tensor<1x64xf32> {graph.name = "b"})
    -> (tensor<4x64xf32> {graph.name = "y"}) attributes {compute_data_type = f32} {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1xf32>
  %y = graph.layernorm inference %x, scale %g, bias %b, epsilon %eps {name = "ln"}
      : (tensor<4x64xf32>, tensor<1x64xf32>, tensor<1x64xf32>, tensor<1x1xf32>) -> (tensor<4x64xf32>, none, none)
  graph.output %y : tensor<4x64xf32>
}
)mlir";
  ::graph::rt::GraphSpec planned = firstGroup(text);
  ::graph::rt::GraphSpec executed = firstGroup(text);
  ASSERT_FALSE(planned.ops.empty());
  EXPECT_TRUE(sameGroupSpec(planned, executed));

  auto differs = [&](auto change) {
    ::graph::rt::GraphSpec other = planned;
    change(other);
    return !sameGroupSpec(planned, other) && !sameGroupSpec(other, planned);
  };
  EXPECT_TRUE(differs([](auto &s) { s.name += "x"; }));
  EXPECT_TRUE(differs([](auto &s) { s.engines = {"codegen"}; }));
  EXPECT_TRUE(differs([](auto &s) { s.ops.front().name = "other"; }));
  EXPECT_TRUE(differs([](auto &s) { s.ops.front().mode = "training"; }));
  EXPECT_TRUE(differs([](auto &s) { s.ops.front().floatAttrs["f"] = 1.0; }));
  EXPECT_TRUE(differs([](auto &s) { s.tensors.front().dims.front() += 1; }));
  // The epsilon, passed by value.
  ASSERT_TRUE(std::any_of(planned.tensors.begin(), planned.tensors.end(),
                          [](auto &t) { return t.isByValue; }));
  EXPECT_TRUE(differs([](auto &s) {
    for (auto &t : s.tensors)
      if (t.isByValue)
        t.byValue += 1e-12;
  }));
  EXPECT_TRUE(differs([](auto &s) { s.ops.push_back(s.ops.front()); }));
}

} // namespace

/// The cut execute makes in a group no plan builds, and planning's stand-in
/// anchor when no group has plans (GpuSession::createPlanList): the first op
/// alone, then the rest; the tensor crossing the cut leaves the group
/// (not virtual in either piece), the one inside a piece stays virtual, and
/// the pieces name no engine.
TEST_F(PlanListGraphTest, SplitGroupSpecCutsAfterTheFirstOp) {
  ::graph::rt::GraphSpec spec = firstGroup(R"mlir(
graph.graph @chain(%a: tensor<1x4x8xf32> {graph.name = "a"},
                   %b: tensor<1x8x6xf32> {graph.name = "b"},
                   %c: tensor<1x4x6xf32> {graph.name = "c"})
    -> (tensor<1x4x6xf32> {graph.name = "y"}) attributes {compute_data_type = f32} {
  %m = graph.matmul %a, %b : (tensor<1x4x8xf32>, tensor<1x8x6xf32>) -> tensor<1x4x6xf32>
  %h = graph.pointwise add(%m, %c) : (tensor<1x4x6xf32>, tensor<1x4x6xf32>) -> tensor<1x4x6xf32>
  %y = graph.pointwise relu(%h) : (tensor<1x4x6xf32>) -> tensor<1x4x6xf32>
  graph.output %y : tensor<1x4x6xf32>
}
)mlir");
  ASSERT_EQ(spec.ops.size(), 3u);
  spec.engines = {"cudnn"};
  auto [head, tail] = splitGroupSpec(spec);
  EXPECT_EQ(head.name, spec.name + ".0");
  EXPECT_EQ(tail.name, spec.name + ".1");
  ASSERT_EQ(head.ops.size(), 1u);
  ASSERT_EQ(tail.ops.size(), 2u);
  EXPECT_EQ(head.ops.front().kind, "matmul");
  EXPECT_EQ(tail.ops.front().name, spec.ops[1].name);
  EXPECT_EQ(tail.ops.back().name, spec.ops[2].name);
  EXPECT_TRUE(head.engines.empty());
  EXPECT_TRUE(tail.engines.empty());

  auto find = [](const ::graph::rt::GraphSpec &s, int64_t uid) {
    for (const ::graph::rt::TensorSpec &t : s.tensors)
      if (t.uid == uid)
        return &t;
    return static_cast<const ::graph::rt::TensorSpec *>(nullptr);
  };
  int64_t crossing = head.ops.front().outputs.begin()->second;
  const ::graph::rt::TensorSpec *inGroup = find(spec, crossing);
  ASSERT_TRUE(inGroup);
  EXPECT_TRUE(inGroup->isVirtual);
  ASSERT_TRUE(find(head, crossing));
  ASSERT_TRUE(find(tail, crossing));
  EXPECT_FALSE(find(head, crossing)->isVirtual);
  EXPECT_FALSE(find(tail, crossing)->isVirtual);
  EXPECT_EQ(find(tail, crossing)->dims, inGroup->dims);
  // add -> relu stays inside the tail.
  int64_t inner = tail.ops.front().outputs.begin()->second;
  ASSERT_TRUE(find(tail, inner));
  EXPECT_TRUE(find(tail, inner)->isVirtual);
  EXPECT_FALSE(find(head, inner));
  // Every tensor is in a piece; only the crossing one is in both.
  EXPECT_EQ(head.tensors.size() + tail.tensors.size(), spec.tensors.size() + 1);
}
