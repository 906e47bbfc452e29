//===- ExecToRuntimeTest.cpp - exec.program -> the runtime's Program ------===//
//
// loadProgram on artifacts with generated kernels: the rt::CodegenSpec of an
// exec.kernel_group (images, entries, geometry, arguments, alignment,
// scratch) next to a cuDNN group's GraphSpec, the runtime's own check of the
// result (checkCodegenSpec), and an artifact lowered from a graph by
// graph-lower-to-executable. Nothing is launched: no GPU needed.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Executable/ExecToRuntime.h"
#include "GraphDialect/Conversion/GraphToCudnn.h"
#include "GraphDialect/Conversion/Passes.h"
#include "GraphDialect/Executable/ExecDialect.h"
#include "GraphDialect/Executable/ExecOps.h"
#include "GraphDialect/GraphDialect.h"
#include "GraphDialect/Runtime/CodegenKernel.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

using namespace mlir;
namespace rt = ::graph::rt;

namespace {

constexpr const char *kArtifact = R"mlir(
exec.program @p
    inputs = [#exec.tensor<uid = 1, dtype = f16, dims = [4, 8], strides = [8, 1], name = "x">,
              #exec.tensor<uid = 2, dtype = f16, dims = [8, 16], strides = [16, 1]>]
    outputs = [#exec.tensor<uid = 3, dtype = bf16, dims = [4, 16], strides = [16, 1], name = "y">]
    buffers = [#exec.tensor<uid = 10, dtype = f32, dims = [4, 16], strides = [16, 1]>] {
  exec.cudnn_group "p/group0"
      tensors = [#exec.tensor<uid = 1, dtype = f16, dims = [1, 4, 8], strides = [32, 8, 1]>,
                 #exec.tensor<uid = 2, dtype = f16, dims = [1, 8, 16], strides = [128, 16, 1]>,
                 #exec.tensor<uid = 10, dtype = f32, dims = [1, 4, 16], strides = [64, 16, 1]>]
      ops = [#exec.op<kind = "matmul", inputs = {A = 1 : i64, B = 2 : i64}, outputs = {C = 10 : i64}, compute = f32>]
      heuristics = ["b"]
  exec.kernel_group "p/group1" engine = "codegen_v2_t256_i2"
      scratch = [#exec.scratch<uid = -1, bytes = 256>] {
    exec.kernel_module @kernels format = ptx
        binary = ".version 8.0\0A.visible .entry k0(\0A)\0A.visible .entry k1(\0A)"
    exec.kernel_module @image format = cubin binary = "\7FELF\00\01"
    exec.kernel_launch @kernels entry = "k0" grid = [4, 1, 1] block = [128, 1, 1]
        args = [#exec.arg<uid = 10, access = read, align = 16>,
                #exec.arg<uid = -1, access = scratch>]
    exec.kernel_launch @image entry = "k1" grid = [2, 3, 1] block = [32, 4, 1]
        args = [#exec.arg<uid = -1, access = scratch>,
                #exec.arg<uid = 3, access = write, align = 8>]
  }
}
)mlir";

class ExecToRuntimeTest : public ::testing::Test {
protected:
  ExecToRuntimeTest() {
    DialectRegistry registry;
    registry.insert<mlir::graph::GraphDialect, exec::ExecDialect>();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    context.printOpOnDiagnostic(false);
  }

  exec::ProgramOp parse(const char *text) {
    module = parseSourceString<ModuleOp>(text, &context);
    if (!module)
      return nullptr;
    auto programs = module->getOps<exec::ProgramOp>();
    return programs.empty() ? nullptr : *programs.begin();
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(ExecToRuntimeTest, KernelGroupBecomesCodegenSpec) {
  exec::ProgramOp op = parse(kArtifact);
  ASSERT_TRUE(op);
  rt::Program program;
  exec::ProgramIO io;
  ASSERT_EQ(exec::loadProgram(op, program, &io), "");

  // Device tensors: the inputs, the output and the buffer, by role.
  ASSERT_EQ(program.tensors.size(), 4u);
  EXPECT_EQ(program.tensors[2].uid, 3);
  EXPECT_EQ(program.tensors[2].role, rt::DeviceTensor::Role::Output);
  EXPECT_EQ(program.tensors[2].dtype, ::graph::DType::BF16);
  EXPECT_EQ(program.tensors[3].uid, 10);
  EXPECT_EQ(program.tensors[3].role, rt::DeviceTensor::Role::Intermediate);
  ASSERT_EQ(io.inputs.size(), 2u);
  EXPECT_EQ(io.inputs[0].name, "x");
  EXPECT_EQ(io.outputs[0].dtype, ::graph::DType::BF16);

  // Two groups in schedule order, one plan choice each.
  ASSERT_EQ(program.groups.size(), 2u);
  ASSERT_EQ(program.engines.size(), 2u);
  EXPECT_EQ(program.groups[0].name, "p/group0");
  ASSERT_EQ(program.groups[0].ops.size(), 1u);
  EXPECT_EQ(program.groups[0].ops[0].kind, "matmul");
  EXPECT_FALSE(program.engines[0].kernels.has_value());
  ASSERT_EQ(program.engines[0].heuristics.size(), 1u);
  EXPECT_EQ(program.engines[0].heuristics[0], rt::HeurMode::B);

  // The kernel group: only codegen runs it, with these kernels.
  const rt::GraphSpec &spec = program.groups[1];
  EXPECT_EQ(spec.name, "p/group1");
  EXPECT_TRUE(spec.ops.empty());
  EXPECT_TRUE(spec.allows("codegen"));
  EXPECT_FALSE(spec.allows("cudnn"));
  ASSERT_TRUE(program.engines[1].kernels.has_value());
  const rt::CodegenSpec &kernels = *program.engines[1].kernels;
  EXPECT_EQ(kernels.name, "p/group1");
  EXPECT_EQ(kernels.engine, "codegen_v2_t256_i2");
  ASSERT_EQ(kernels.scratch.size(), 1u);
  EXPECT_EQ(kernels.scratch[0], std::make_pair(int64_t(-1), int64_t(256)));
  ASSERT_EQ(kernels.launches.size(), 2u);

  const rt::KernelLaunch &k0 = kernels.launches[0];
  EXPECT_EQ(k0.entry, "k0");
  EXPECT_FALSE(k0.cubin);
  EXPECT_EQ(k0.ptx,
            ".version 8.0\n.visible .entry k0(\n)\n.visible .entry k1(\n)");
  EXPECT_EQ(k0.grid, (std::array<unsigned, 3>{4, 1, 1}));
  EXPECT_EQ(k0.block, (std::array<unsigned, 3>{128, 1, 1}));
  EXPECT_EQ(k0.argUids, (std::vector<int64_t>{10, -1}));
  EXPECT_EQ(k0.argAlign, (std::vector<int64_t>{16, 0}));

  // A cubin image keeps its bytes, NULs included.
  const rt::KernelLaunch &k1 = kernels.launches[1];
  EXPECT_EQ(k1.entry, "k1");
  EXPECT_TRUE(k1.cubin);
  EXPECT_EQ(k1.ptx, std::string("\x7f"
                                "ELF\0\x01",
                                6));
  EXPECT_EQ(k1.grid, (std::array<unsigned, 3>{2, 3, 1}));
  EXPECT_EQ(k1.block, (std::array<unsigned, 3>{32, 4, 1}));
  EXPECT_EQ(k1.argUids, (std::vector<int64_t>{-1, 3}));
  EXPECT_EQ(k1.argAlign, (std::vector<int64_t>{0, 8}));

  // What the loader builds is what the runtime's loader accepts.
  EXPECT_EQ(rt::checkCodegenSpec(kernels), "");
}

TEST_F(ExecToRuntimeTest, UnknownElementTypeIsAnError) {
  exec::ProgramOp op = parse(R"mlir(
exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f80, dims = [4], strides = [1]>]
    outputs = [] buffers = [] {
}
)mlir");
  ASSERT_TRUE(op);
  rt::Program program;
  EXPECT_EQ(exec::loadProgram(op, program),
            "exec.program @p: input uid 1: element type f80 has no runtime "
            "equivalent");
}

TEST(CheckCodegenSpec, NamesTheBrokenField) {
  rt::CodegenSpec spec;
  spec.name = "g";
  EXPECT_EQ(rt::checkCodegenSpec(spec), "g: no kernel to launch");
  rt::KernelLaunch launch;
  launch.entry = "k";
  launch.ptx = ".visible .entry k(";
  launch.argUids = {1, -2};
  spec.launches.push_back(launch);
  EXPECT_EQ(rt::checkCodegenSpec(spec),
            "g: kernel k takes scratch uid -2, which the group does not "
            "allocate");
  spec.scratch = {{-2, 64}};
  EXPECT_EQ(rt::checkCodegenSpec(spec), "");
  spec.scratch.push_back({-2, 8});
  EXPECT_EQ(rt::checkCodegenSpec(spec), "g: scratch uid -2 is listed twice");
  spec.scratch = {{-2, 64}};
  spec.launches[0].argAlign = {16, 0, 4};
  EXPECT_EQ(rt::checkCodegenSpec(spec),
            "g: kernel k has 3 alignments for 2 arguments");
  spec.launches[0].argAlign = {};
  spec.launches[0].block = {0, 1, 1};
  EXPECT_EQ(rt::checkCodegenSpec(spec),
            "g: kernel k has an empty grid or block");
  spec.launches[0].block = {1, 1, 1};
  spec.launches[0].ptx.clear();
  EXPECT_EQ(rt::checkCodegenSpec(spec), "g: kernel k has no PTX image");
}

// A graph cuDNN declines (a norm backward with a fused add), lowered by the
// pass the C API and graph-opt use, loads into kernels for the runtime.
TEST_F(ExecToRuntimeTest, LoweredArtifactLoadsGeneratedKernels) {
  module = parseSourceString<ModuleOp>(R"mlir(
graph.graph @lnb(%x: tensor<64x256xbf16>, %g: tensor<1x256xf32>, %dy: tensor<64x256xbf16>,
                 %m: tensor<64x1xf32>, %iv: tensor<64x1xf32>, %r: tensor<64x256xbf16>)
    -> (tensor<64x256xbf16>, tensor<1x256xf32>, tensor<1x256xf32>)
    attributes {compute_data_type = f32} {
  %dx, %ds, %db = graph.layernorm_backward %dy, %x, scale %g, mean %m, inv_variance %iv : (tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<1x256xf32>, tensor<64x1xf32>, tensor<64x1xf32>) -> (tensor<64x256xf32>, tensor<1x256xf32>, tensor<1x256xf32>)
  %s = graph.pointwise add(%dx, %r) : (tensor<64x256xf32>, tensor<64x256xbf16>) -> tensor<64x256xbf16>
  graph.output %s, %ds, %db : tensor<64x256xbf16>, tensor<1x256xf32>, tensor<1x256xf32>
}
)mlir",
                                       &context);
  ASSERT_TRUE(module);
  PassManager pm(&context);
  mlir::graph::buildGpuPipeline(pm);
  pm.addPass(mlir::graph::createGraphLowerToExecutable());
  ASSERT_TRUE(succeeded(pm.run(*module)));
  auto programs = module->getOps<exec::ProgramOp>();
  ASSERT_FALSE(programs.empty());

  rt::Program program;
  ASSERT_EQ(exec::loadProgram(*programs.begin(), program), "");
  ASSERT_EQ(program.groups.size(), 1u);
  ASSERT_TRUE(program.engines[0].kernels.has_value());
  const rt::CodegenSpec &kernels = *program.engines[0].kernels;
  EXPECT_EQ(rt::checkCodegenSpec(kernels), "");
  EXPECT_EQ(kernels.name, "lnb/group0");
  EXPECT_EQ(kernels.engine.rfind("codegen_v2_", 0), 0u);
  ASSERT_FALSE(kernels.launches.empty());
  for (const rt::KernelLaunch &launch : kernels.launches) {
    EXPECT_FALSE(launch.cubin);
    EXPECT_NE(launch.ptx.find(".entry " + launch.entry + "("),
              std::string::npos)
        << launch.entry;
    EXPECT_EQ(launch.argAlign.size(), launch.argUids.size());
    for (int64_t uid : launch.argUids) {
      if (uid < 0)
        continue;
      bool onDevice = false;
      for (const rt::DeviceTensor &tensor : program.tensors)
        onDevice |= tensor.uid == uid;
      EXPECT_TRUE(onDevice) << "uid " << uid;
    }
  }
  // The group computes the three outputs: some launch writes each.
  for (int64_t out : program.outputUids) {
    bool passed = false;
    for (const rt::KernelLaunch &launch : kernels.launches)
      for (int64_t uid : launch.argUids)
        passed |= uid == out;
    EXPECT_TRUE(passed) << "output uid " << out;
  }
}

} // namespace
