//===- LowerToLinalg.cpp - graph-lower-to-linalg -------------------------===//

#include "GraphDialect/Conversion/GraphToCodegen.h"
#include "GraphDialect/Conversion/GraphToCudnn.h"
#include "GraphDialect/GraphOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassRegistry.h"

#include <algorithm>
#include <mutex>

namespace mlir::graph {
#define GEN_PASS_DEF_GRAPHLOWERTOLINALG
#define GEN_PASS_DEF_GRAPHGENERATEKERNELS
#include "GraphDialect/Conversion/CodegenPasses.h.inc"
#define GEN_PASS_REGISTRATION
#include "GraphDialect/Conversion/CodegenPasses.h.inc"
} // namespace mlir::graph

using namespace mlir;
using namespace mlir::graph;

namespace {

/// Splits every graph of `module` into its fused groups (the group
/// descriptions the executor builds), hands each to `lower` with a symbol
/// name for it, then erases the graph. A failure is reported on the graph.
LogicalResult
lowerEachGroup(ModuleOp module,
               function_ref<std::string(GraphOp, const ::graph::rt::GraphSpec &,
                                        const std::string &name)>
                   lower) {
  SmallVector<GraphOp> graphs(module.getOps<GraphOp>());
  for (GraphOp graph : graphs) {
    CudnnProgram program;
    if (std::string error = lowerToCudnn(graph, program); !error.empty())
      return graph.emitOpError() << error;
    for (const ::graph::rt::GraphSpec &spec : program.groups) {
      std::string name = spec.name;
      std::replace(name.begin(), name.end(), '/', '_');
      if (std::string error = lower(graph, spec, name); !error.empty())
        return graph.emitOpError() << spec.name << ": " << error;
    }
    graph.erase();
  }
  return success();
}

struct GraphLowerToLinalg
    : public mlir::graph::impl::GraphLowerToLinalgBase<GraphLowerToLinalg> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto lower = [&](GraphOp, const ::graph::rt::GraphSpec &spec,
                     const std::string &name) -> std::string {
      if (!codegenDeclines(spec).empty())
        return ""; // another engine's group
      std::vector<int64_t> argUids;
      return lowerSpecToLinalg(spec, module, name, argUids);
    };
    if (failed(lowerEachGroup(module, lower)))
      signalPassFailure();
  }
};

struct GraphGenerateKernels
    : public mlir::graph::impl::GraphGenerateKernelsBase<GraphGenerateKernels> {
  using GraphGenerateKernelsBase::GraphGenerateKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto lower = [&](GraphOp graph, const ::graph::rt::GraphSpec &spec,
                     const std::string &name) -> std::string {
      if (std::string why = codegenV2Declines(spec); !why.empty()) {
        // At the graph's location, not on the graph op: a diagnostic on an
        // op prints the whole op (mlir-print-op-on-diagnostic), so one remark
        // per declined group made the pass quadratic in the graph's size
        // (2,000 ops: 257 MB of remarks, 7.8 s).
        emitRemark(graph.getLoc())
            << spec.name << " is left to another engine: " << why;
        return "";
      }
      ::graph::rt::CodegenSpec kernels;
      if (std::string error = generateKernels(spec, plan, module, kernels);
          !error.empty())
        return error;
      // The generator appends one gpu.module named "kernels".
      auto generated = module.lookupSymbol<gpu::GPUModuleOp>("kernels");
      generated.setSymName(name);
      Builder b(&getContext());
      SmallVector<Attribute> launches;
      for (const ::graph::rt::KernelLaunch &launch : kernels.launches)
        launches.push_back(b.getStringAttr(
            launch.entry + " grid " + std::to_string(launch.grid[0]) +
            " block " + std::to_string(launch.block[0])));
      generated->setAttr("graph.launches", b.getArrayAttr(launches));
      return "";
    };
    if (failed(lowerEachGroup(module, lower)))
      return signalPassFailure();
    if (dedup)
      deduplicateKernelModules(module);
  }
};

} // namespace

void mlir::graph::registerCodegenPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerGraphCodegenPasses();
    PassPipelineRegistration<>(
        "graph-codegen-to-ptx",
        "Generated kernels: linalg on tensors (graph-lower-to-linalg's "
        "funcs) -> bufferized parallel loops -> gpu kernels -> sm_90 PTX",
        [](OpPassManager &pm) { buildCodegenToPtxPipeline(pm); });
    PassPipelineRegistration<>(
        "graph-kernels-to-ptx",
        "Generated gpu kernels (graph-generate-kernels) -> NVVM -> sm_90 PTX "
        "in gpu.binary ops",
        [](OpPassManager &pm) { buildKernelsToPtxPipeline(pm); });
    PassPipelineRegistration<>(
        "graph-kernels-to-cubin",
        "Generated gpu kernels (graph-generate-kernels) -> NVVM -> PTX -> "
        "sm_90 cubin through ptxas (the toolkit of CUDA_ROOT)",
        [](OpPassManager &pm) { buildKernelsToPtxPipeline(pm, true); });
  });
}
