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
#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Runtime/CodegenKernel.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <map>

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
      inputs = [#exec.tensor<uid = 1, dtype = f16, dims = [4, 8], strides = [8, 1]>,
                #exec.tensor<uid = 2, dtype = f16, dims = [8, 16], strides = [16, 1]>]
      outputs = [#exec.tensor<uid = 10, dtype = f32, dims = [4, 16], strides = [16, 1]>]
      compute = f32 heuristics = ["b"] {
  ^bb0(%x: tensor<4x8xf16>, %w: tensor<8x16xf16>):
    %mm = graph.matmul %x, %w : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf32>
    exec.yield %mm : tensor<4x16xf32>
  }
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
  // Built from the graph op: ports by name, ranks padded for cuDNN.
  const rt::OpSpec &mm = program.groups[0].ops[0];
  EXPECT_EQ(mm.inputs.at(::graph::Port::A), 1);
  EXPECT_EQ(mm.inputs.at(::graph::Port::B), 2);
  EXPECT_EQ(mm.outputs.at(::graph::Port::C), 10);
  ASSERT_EQ(program.groups[0].tensors.size(), 3u);
  EXPECT_EQ(program.groups[0].tensors[0].dims, (::graph::Shape{1, 4, 8}));
  EXPECT_EQ(program.groups[0].tensors[2].dtype, ::graph::DType::F32);
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

// The spec the loader builds from an exec.cudnn_group's ops is the one
// lowerToCudnn builds for the live graph (buildGroupSpec for both): same
// ops, ports, modes, attributes and tensors; only the uids of virtual
// tensors, which the artifact does not record, may differ.
TEST_F(ExecToRuntimeTest, LoadedCudnnGroupsMatchTheLiveLowering) {
  const char *source = R"mlir(
graph.graph @g(%x: tensor<8x32x1x1xbf16>, %gm: tensor<1x32x1x1xf32>, %b: tensor<1x32x1x1xf32>,
               %dy: tensor<8x32x1x1xbf16>, %w: tensor<32x16xbf16>, %c: tensor<2x8x6x6xf16>,
               %f: tensor<16x8x3x3xf16>, %s: tensor<1x1xf32> {graph.by_value})
    -> (tensor<8x32x1x1xbf16>, tensor<8x32x1x1xbf16>, tensor<1x32x1x1xf32>,
        tensor<1x32x1x1xf32>, tensor<8x16xf32>, tensor<2x16x6x6xf16>, tensor<32x8xbf16>)
    attributes {compute_data_type = f32} {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1x1x1xf32>
  %y, %m, %iv = graph.layernorm training %x, scale %gm, bias %b, epsilon %eps : (tensor<8x32x1x1xbf16>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<8x32x1x1xbf16>, tensor<8x1x1x1xf32>, tensor<8x1x1x1xf32>)
  %dx, %ds, %db = graph.layernorm_backward %dy, %x, scale %gm, mean %m, inv_variance %iv : (tensor<8x32x1x1xbf16>, tensor<8x32x1x1xbf16>, tensor<1x32x1x1xf32>, tensor<8x1x1x1xf32>, tensor<8x1x1x1xf32>) -> (tensor<8x32x1x1xbf16>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>)
  %r = graph.reshape %y : (tensor<8x32x1x1xbf16>) -> tensor<8x32xbf16>
  %t = graph.transpose %r {permutation = array<i64: 1, 0>} : (tensor<8x32xbf16>) -> tensor<32x8xbf16>
  %mm = graph.matmul %r, %w : (tensor<8x32xbf16>, tensor<32x16xbf16>) -> tensor<8x16xf32>
  %l0 = graph.pointwise leaky_relu(%mm) {negative_slope = 0.25 : f64} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %l = graph.pointwise mul(%l0, %s) : (tensor<8x16xf32>, tensor<1x1xf32>) -> tensor<8x16xf32>
  %cv = graph.conv_fprop %c, %f {padding = array<i64: 1, 1>} : (tensor<2x8x6x6xf16>, tensor<16x8x3x3xf16>) -> tensor<2x16x6x6xf32>
  %cr = graph.pointwise relu(%cv) : (tensor<2x16x6x6xf32>) -> tensor<2x16x6x6xf16>
  graph.output %y, %dx, %ds, %db, %l, %cr, %t : tensor<8x32x1x1xbf16>, tensor<8x32x1x1xbf16>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>, tensor<8x16xf32>, tensor<2x16x6x6xf16>, tensor<32x8xbf16>
}
)mlir";
  // The live lowering.
  module = parseSourceString<ModuleOp>(source, &context);
  ASSERT_TRUE(module);
  PassManager live(&context);
  mlir::graph::buildGpuPipeline(live);
  ASSERT_TRUE(succeeded(live.run(*module)));
  auto graphs = module->getOps<mlir::graph::GraphOp>();
  ASSERT_FALSE(graphs.empty());
  rt::Program expected;
  ASSERT_EQ(mlir::graph::lowerToCudnn(*graphs.begin(), expected), "");

  // The artifact, printed, parsed back and loaded.
  OwningOpRef<ModuleOp> lowered = parseSourceString<ModuleOp>(source, &context);
  ASSERT_TRUE(lowered);
  PassManager pm(&context);
  mlir::graph::buildGpuPipeline(pm);
  mlir::graph::GraphLowerToExecutableOptions options;
  options.kernels = "never"; // every group a cuDNN group
  pm.addPass(mlir::graph::createGraphLowerToExecutable(options));
  ASSERT_TRUE(succeeded(pm.run(*lowered)));
  std::string text;
  llvm::raw_string_ostream(text) << *lowered;
  exec::ProgramOp op = parse(text.c_str());
  ASSERT_TRUE(op);
  rt::Program loaded;
  ASSERT_EQ(exec::loadProgram(op, loaded), "");

  // norm, norm backward, reshape, transpose, matmul + epilogue, conv + relu.
  ASSERT_EQ(expected.groups.size(), 6u);
  ASSERT_EQ(loaded.groups.size(), expected.groups.size());
  int readByValue = 0; // the matmul epilogue's graph.by_value input
  for (size_t g = 0; g < expected.groups.size(); ++g) {
    const rt::GraphSpec &want = expected.groups[g], &got = loaded.groups[g];
    SCOPED_TRACE(want.name);
    EXPECT_EQ(got.name, want.name);
    // Virtual uids: renamed to the live ones by position.
    ASSERT_EQ(got.tensors.size(), want.tensors.size());
    std::map<int64_t, int64_t> rename;
    for (size_t i = 0; i < want.tensors.size(); ++i) {
      const rt::TensorSpec &a = want.tensors[i], &b = got.tensors[i];
      EXPECT_EQ(b.isVirtual, a.isVirtual) << "tensor " << i;
      EXPECT_TRUE(a.isVirtual || b.uid == a.uid) << "tensor " << i;
      rename[b.uid] = a.uid;
      EXPECT_EQ(b.dtype, a.dtype) << "uid " << a.uid;
      EXPECT_EQ(b.dims, a.dims) << "uid " << a.uid;
      EXPECT_EQ(b.strides, a.strides) << "uid " << a.uid;
      EXPECT_EQ(b.isByValue, a.isByValue) << "uid " << a.uid;
      EXPECT_EQ(b.byValue, a.byValue) << "uid " << a.uid;
      EXPECT_EQ(b.readByValue, a.readByValue) << "uid " << a.uid;
      readByValue += b.readByValue;
    }
    ASSERT_EQ(got.ops.size(), want.ops.size());
    for (size_t i = 0; i < want.ops.size(); ++i) {
      const rt::OpSpec &a = want.ops[i], &b = got.ops[i];
      EXPECT_STREQ(b.kind.name(), a.kind.name());
      EXPECT_EQ(b.mode, a.mode);
      EXPECT_EQ(b.name, a.name);
      EXPECT_EQ(b.intAttrs, a.intAttrs) << a.kind.name();
      EXPECT_EQ(b.floatAttrs, a.floatAttrs) << a.kind.name();
      EXPECT_EQ(b.computeType, a.computeType);
      auto renamed = [&](std::map<::graph::SpecPort, int64_t> ports) {
        for (auto &entry : ports)
          entry.second = rename[entry.second];
        return ports;
      };
      EXPECT_EQ(renamed(b.inputs), a.inputs) << a.kind.name();
      EXPECT_EQ(renamed(b.outputs), a.outputs) << a.kind.name();
    }
  }
  EXPECT_EQ(readByValue, 1);
}

} // namespace
