//===- GroupOpsTest.cpp - codegen_v2 on a func of graph ops ---------------===//
//
// The kernel generator reads the group's graph ops (GroupOps). A func of
// graph ops given directly and the same group given as a description
// (rt::GraphSpec, through the spec->graph-ops adapter) generate the same
// kernels, byte for byte.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Conversion/GraphToCodegen.h"
#include "GraphDialect/GraphDialect.h"
#include "GraphDialect/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

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

} // namespace
