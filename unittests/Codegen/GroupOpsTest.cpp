//===- GroupOpsTest.cpp - codegen_v2 on a func of graph ops ---------------===//
//
// The kernel generator reads the group's graph ops (GroupOps). A func of
// graph ops given directly and the same group given as a description
// (rt::GraphSpec, through the spec->graph-ops adapter) generate the same
// kernels, byte for byte; so do a graph's groups built from their regions
// (buildGroupOps, graph-generate-kernels' route) and from their specs.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Conversion/GraphToCodegen.h"
#include "GraphDialect/Conversion/GraphToCudnn.h"
#include "GraphDialect/GraphDialect.h"
#include "GraphDialect/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

#include <thread>

using namespace mlir;
using namespace mlir::graph;
namespace rt = ::graph::rt;
using ::graph::DType;
using ::graph::OpKind;
using ::graph::Port;

namespace {

// x + b (broadcast), then its sum over the last axis: a row stage.
constexpr const char *kGroup = R"mlir(
func.func @group(%x: tensor<1x4x64xf32>, %b: tensor<1x1x64xf32>,
                 %y: tensor<1x4x64xf32>, %s: tensor<1x4x1xf32>)
    -> (tensor<1x4x64xf32>, tensor<1x4x1xf32>) {
  %sum = graph.pointwise add(%x, %b) : (tensor<1x4x64xf32>, tensor<1x1x64xf32>) -> tensor<1x4x64xf32>
  %red = graph.reduction add %sum : (tensor<1x4x64xf32>) -> tensor<1x4x1xf32>
  return %sum, %red : tensor<1x4x64xf32>, tensor<1x4x1xf32>
}
)mlir";

rt::GraphSpec groupSpec() {
  rt::GraphSpec spec;
  spec.name = "g/group0";
  auto tensor = [&](int64_t uid, ::graph::Shape dims) {
    rt::TensorSpec t;
    t.uid = uid;
    t.dtype = DType::F32;
    t.dims = dims;
    t.strides = ::graph::rowMajorStrides(dims);
    spec.tensors.push_back(t);
  };
  tensor(1, {1, 4, 64});
  tensor(2, {1, 1, 64});
  tensor(3, {1, 4, 64});
  tensor(4, {1, 4, 1});
  rt::OpSpec add;
  add.kind = OpKind::Pointwise;
  add.mode = "add";
  add.inputs[::graph::pointwiseInput(0)] = 1;
  add.inputs[::graph::pointwiseInput(1)] = 2;
  add.outputs[Port::output] = 3;
  rt::OpSpec sum;
  sum.kind = OpKind::Reduction;
  sum.mode = "add";
  sum.inputs[Port::input] = 3;
  sum.outputs[Port::output] = 4;
  spec.ops = {add, sum};
  return spec;
}

std::string printed(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>())
    gpuModule.print(os);
  return text;
}

TEST(GroupOps, SameKernelsAsTheDescription) {
  DialectRegistry registry;
  registerCodegenDialects(registry);
  registry.insert<GraphDialect>();
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();

  // Graph node ops verify inside ops that hold graph nodes; the func here
  // only holds them for the generator, as buildSpecGraphOps's does.
  ParserConfig config(&context, /*verifyAfterParse=*/false);
  OwningOpRef<ModuleOp> source = parseSourceString<ModuleOp>(kGroup, config);
  ASSERT_TRUE(source);
  GroupOps group;
  group.name = "g/group0";
  group.func = *source->getOps<func::FuncOp>().begin();
  Block &body = group.func.getBody().front();
  auto ops = body.getOperations().begin();
  Operation &add = *ops++, &sum = *ops;
  // The description's order: x, b, the sum, the reduction.
  group.tensors = {body.getArgument(0), body.getArgument(1), add.getResult(0),
                   sum.getResult(0)};
  for (auto [uid, value] : llvm::enumerate(group.tensors))
    group.uids[value] = static_cast<int64_t>(uid) + 1;
  group.uids[body.getArgument(2)] = 3;
  group.uids[body.getArgument(3)] = 4;
  EXPECT_EQ(codegenV2Declines(group), "");

  for (const char *plan : {"codegen_v2_t256_i2", "codegen_v2_t512_i2_p"}) {
    OwningOpRef<ModuleOp> fromOps = ModuleOp::create(UnknownLoc::get(&context));
    OwningOpRef<ModuleOp> fromSpec =
        ModuleOp::create(UnknownLoc::get(&context));
    rt::CodegenSpec a, b;
    ASSERT_EQ(generateKernels(group, plan, *fromOps, a), "") << plan;
    ASSERT_EQ(generateKernels(groupSpec(), plan, *fromSpec, b), "") << plan;
    EXPECT_FALSE(printed(*fromOps).empty());
    EXPECT_EQ(printed(*fromOps), printed(*fromSpec)) << plan;
    ASSERT_EQ(a.launches.size(), b.launches.size());
    for (size_t i = 0; i < a.launches.size(); ++i) {
      EXPECT_EQ(a.launches[i].entry, b.launches[i].entry);
      EXPECT_EQ(a.launches[i].grid, b.launches[i].grid);
      EXPECT_EQ(a.launches[i].block, b.launches[i].block);
    }
  }
}

// A description whose op reads a tensor the group does not have is
// refused by the adapter, naming the op and the port.
TEST(GroupOps, AdapterRefusesUnknownTensor) {
  MLIRContext context;
  context.loadDialect<GraphDialect, func::FuncDialect>();
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  rt::GraphSpec spec = groupSpec();
  spec.ops[1].inputs[Port::input] = 99;
  GroupOps group;
  std::string why = buildSpecGraphOps(spec, *module, "g", true, group);
  EXPECT_NE(why.find("reduction: input (uid 99) is not a tensor of the group"),
            std::string::npos)
      << why;
  EXPECT_TRUE(module->getBody()->empty());
}

// Ranks padded with leading unit dims (2-D tensors to 3-D: the transpose's
// permutation, the slice, the concatenation and gen_index axes shift),
// trailing ones (the norm), a by-value scalar, and a norm output read only
// by a bf16 matmul in another group (stored as bf16).
constexpr const char *kGraph = R"mlir(
graph.graph @g(%x: tensor<4x8xf32> {graph.name = "x"},
               %y: tensor<8x4xf32> {graph.name = "y"},
               %g: tensor<1x8xf32> {graph.name = "g"},
               %w: tensor<8x16xbf16> {graph.name = "w"})
    -> (tensor<4x12xf32> {graph.name = "i"}, tensor<4x1xf32> {graph.name = "r"},
        tensor<4x16xf32> {graph.name = "h"})
    attributes {compute_data_type = f32} {
  %c = graph.scalar 2.0 : f32 -> tensor<1x1xf32>
  %eps = graph.scalar 1.0e-5 : f32 -> tensor<1x1xf32>
  %t = graph.transpose %x {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %a = graph.pointwise add(%t, %y) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %m = graph.pointwise mul(%a, %c) : (tensor<8x4xf32>, tensor<1x1xf32>) -> tensor<8x4xf32>
  %s = graph.slice %m {start = array<i64: 1, 0>, limit = array<i64: 8, 4>, step = array<i64: 2, 1>} : (tensor<8x4xf32>) -> tensor<4x4xf32>
  %cat = graph.concatenate %s, %x {axis = 1 : i64} : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x12xf32>
  %i = graph.pointwise gen_index(%cat) {axis = 1 : i64} : (tensor<4x12xf32>) -> tensor<4x12xf32>
  %r = graph.reduction add %i : (tensor<4x12xf32>) -> tensor<4x1xf32>
  %n = graph.rmsnorm inference %x, scale %g, epsilon %eps : (tensor<4x8xf32>, tensor<1x8xf32>, tensor<1x1xf32>) -> tensor<4x8xf32>
  %h = graph.matmul %n, %w : (tensor<4x8xf32>, tensor<8x16xbf16>) -> tensor<4x16xf32>
  graph.output %i, %r, %h : tensor<4x12xf32>, tensor<4x1xf32>, tensor<4x16xf32>
}
)mlir";

TEST(GroupOps, RegionsAsTheirSpecs) {
  DialectRegistry registry;
  registerCodegenDialects(registry);
  registry.insert<GraphDialect>();
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kGraph, &context);
  ASSERT_TRUE(module);
  PassManager pm(&context);
  buildGpuPipeline(pm);
  ASSERT_TRUE(succeeded(pm.run(*module)));
  GraphOp graph = *module->getOps<GraphOp>().begin();

  CudnnProgram described, specs;
  std::vector<GroupDescription> groups;
  ASSERT_EQ(describeGroups(graph, described, groups), "");
  ASSERT_EQ(lowerToCudnn(graph, specs), "");
  ASSERT_EQ(groups.size(), specs.groups.size());
  size_t generated = 0;
  for (auto [group, spec] : llvm::zip(groups, specs.groups)) {
    EXPECT_EQ(group.name, spec.name);
    auto holder = [&] { return ModuleOp::create(UnknownLoc::get(&context)); };
    OwningOpRef<ModuleOp> regionOps = holder(), specOps = holder();
    GroupOps fromRegion, fromSpec;
    ASSERT_EQ(buildGroupOps(group, *regionOps, "group", fromRegion), "");
    ASSERT_EQ(
        buildSpecGraphOps(spec, *specOps, "group", /*strides=*/true, fromSpec),
        "");
    // The same tensors: types (padded, stored, strided) and uids, in order.
    EXPECT_EQ(fromRegion.func.getFunctionType(),
              fromSpec.func.getFunctionType())
        << spec.name;
    ASSERT_EQ(fromRegion.tensors.size(), fromSpec.tensors.size());
    for (auto [a, b] : llvm::zip(fromRegion.tensors, fromSpec.tensors)) {
      EXPECT_EQ(a.getType(), b.getType()) << spec.name;
      EXPECT_EQ(fromRegion.uids.lookup(a), fromSpec.uids.lookup(b));
    }
    std::string why = codegenV2Declines(fromRegion);
    EXPECT_EQ(why, codegenV2Declines(fromSpec)) << spec.name;
    if (!why.empty())
      continue;
    ++generated;
    for (const char *plan : {"codegen_v2_t256_i2", "codegen_v2_t512_i2_p"}) {
      OwningOpRef<ModuleOp> a = holder(), b = holder();
      rt::CodegenSpec ka, kb;
      ASSERT_EQ(generateKernels(fromRegion, plan, *a, ka), "") << spec.name;
      ASSERT_EQ(generateKernels(fromSpec, plan, *b, kb), "") << spec.name;
      EXPECT_FALSE(printed(*a).empty());
      EXPECT_EQ(printed(*a), printed(*b)) << spec.name << " " << plan;
    }
  }
  EXPECT_GE(generated, 2u);
}

// Plans compile to PTX on threads of their own at once (the plan ranking
// compiles its generated candidates while cuDNN builds its plans): each
// compile has its own context, and two threads compiling the same plan get
// the same PTX.
TEST(GroupOps, PlansCompileConcurrently) {
  const std::vector<std::string> plans = {
      "codegen_v2_t256_i2", "codegen_v2_t512_i2_p", "codegen_v2_t128_i4",
      "codegen_v2_t256_i1"};
  std::vector<rt::CodegenSpec> out(2 * plans.size());
  std::vector<std::string> errors(out.size());
  prepareCodegenEnvironment(); // before any thread reads the environment
  std::vector<std::thread> threads;
  for (size_t i = 0; i < out.size(); ++i)
    threads.emplace_back([&, i] {
      errors[i] = compilePlan(groupSpec(), plans[i % plans.size()], out[i]);
    });
  for (std::thread &thread : threads)
    thread.join();
  for (size_t i = 0; i < out.size(); ++i) {
    const std::string &plan = plans[i % plans.size()];
    ASSERT_EQ(errors[i], "") << plan;
    ASSERT_FALSE(out[i].launches.empty()) << plan;
    for (const rt::KernelLaunch &launch : out[i].launches) {
      EXPECT_NE(launch.ptx.find(".entry " + launch.entry), std::string::npos)
          << plan;
      EXPECT_FALSE(launch.cubin);
    }
    if (i >= plans.size()) {
      const rt::CodegenSpec &twin = out[i - plans.size()];
      ASSERT_EQ(twin.launches.size(), out[i].launches.size()) << plan;
      for (size_t k = 0; k < twin.launches.size(); ++k)
        EXPECT_EQ(twin.launches[k].ptx, out[i].launches[k].ptx) << plan;
    }
  }
}

} // namespace
