//===- LowerToLinalg.cpp - graph-lower-to-linalg -------------------------===//

#include "GraphDialect/Conversion/GraphToCodegen.h"
#include "GraphDialect/Conversion/GraphToCudnn.h"
#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Groups.h"
#include "KernelGen.h"

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
#include "llvm/ADT/StringMap.h"

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

/// Hands each fused group of each graph of `module` that has node ops to
/// `lower`, in id order, with its label ("<graph>/group<id>") and its group
/// description (describeGroups'), then erases the graph. The graph must be
/// one the GPU path takes (verifyGpuLowerable, which describeGroups runs);
/// that error, or one `lower` returns after the group's label, is reported
/// on the graph.
LogicalResult
lowerEachGroup(ModuleOp module,
               function_ref<std::string(GraphOp, GroupOp, StringRef label,
                                        const GroupDescription &)>
                   lower) {
  SmallVector<GraphOp> graphs(module.getOps<GraphOp>());
  for (GraphOp graph : graphs) {
    CudnnProgram program;
    std::vector<GroupDescription> descriptions;
    if (std::string error = describeGroups(graph, program, descriptions);
        !error.empty())
      return graph.emitOpError() << error;
    llvm::StringMap<const GroupDescription *> descriptionOf;
    for (const GroupDescription &description : descriptions)
      descriptionOf[description.name] = &description;
    SmallVector<GroupOp> groups = getGroups(graph);
    llvm::stable_sort(
        groups, [](GroupOp a, GroupOp b) { return a.getId() < b.getId(); });
    for (GroupOp group : groups) {
      std::string label =
          graph.getSymName().str() + "/group" + std::to_string(group.getId());
      const GroupDescription *description = descriptionOf.lookup(label);
      // Only scalars (describeGroups describes no such group): nothing to
      // run.
      if (!description)
        continue;
      if (std::string error = lower(graph, group, label, *description);
          !error.empty())
        return graph.emitOpError() << label << ": " << error;
    }
    graph.erase();
  }
  return success();
}

/// Appends `func.func @name` to `module`: the node ops of `group` as
/// buildGroupOps builds them from its description (the buffers it reads,
/// then the ones it writes and returns, in their stored types), with no
/// strides (the route takes row-major tensors only), then lowered by the
/// conversion patterns. Returns "" or why the linalg route leaves the group
/// to another engine.
std::string lowerGroup(const GroupDescription &group, ModuleOp module,
                       StringRef name) {
  GroupOps ops;
  if (std::string why =
          buildGroupOps(group, module, name, ops, /*strides=*/false);
      !why.empty())
    return why;
  llvm::DenseMap<int64_t, const ::graph::rt::TensorSpec *> tensorOf;
  for (const auto &[value, tensor] : group.source.tensors)
    tensorOf[tensor.uid] = &tensor;
  auto declines = [&]() -> std::string {
    for (BlockArgument arg : ops.func.getArguments()) {
      const ::graph::rt::TensorSpec *tensor =
          tensorOf.lookup(ops.uids.lookup(arg));
      if (!tensor || !kernelgen::rowMajor(*tensor))
        return "generated kernels take row-major tensors only";
      if (!llvm::is_contained(
              {::graph::DType::F32, ::graph::DType::F16, ::graph::DType::BF16},
              tensor->dtype))
        return "generated kernels take static f32, f16 and bf16 tensors only";
    }
    return lowerGraphOpsToLinalg(ops.func);
  };
  if (std::string why = declines(); !why.empty()) {
    ops.func.erase();
    return why;
  }
  return "";
}

struct GraphLowerToLinalg
    : public mlir::graph::impl::GraphLowerToLinalgBase<GraphLowerToLinalg> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The groups as lowerToCudnn describes them (describeGroups: which
    // tensors are buffers, in which stored type), so the kernels read and
    // write what the other engines' groups do.
    auto lower = [&](GraphOp graph, GroupOp group, StringRef label,
                     const GroupDescription &description) -> std::string {
      std::string name =
          graph.getSymName().str() + "_group" + std::to_string(group.getId());
      // At the group's location, not on an op: a diagnostic on an op
      // prints the op.
      if (std::string why = lowerGroup(description, module, name); !why.empty())
        emitRemark(group.getLoc())
            << label << " is left to another engine: " << why;
      return "";
    };
    if (failed(lowerEachGroup(module, lower)))
      return signalPassFailure();
  }
};

struct GraphGenerateKernels
    : public mlir::graph::impl::GraphGenerateKernelsBase<GraphGenerateKernels> {
  using GraphGenerateKernelsBase::GraphGenerateKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto lower = [&](GraphOp, GroupOp groupOp, StringRef label,
                     const GroupDescription &description) -> std::string {
      std::string name = label.str();
      std::replace(name.begin(), name.end(), '/', '_');
      // The group's graph ops in a module of their own: only the kernels
      // land in `module`.
      OwningOpRef<ModuleOp> holder = ModuleOp::create(module.getLoc());
      GroupOps group;
      std::string why = buildGroupOps(description, *holder, "group", group);
      if (why.empty())
        why = codegenV2Declines(group);
      if (!why.empty()) {
        // At the group's location (its first op's), not on an op: a
        // diagnostic on an op prints the whole op
        // (mlir-print-op-on-diagnostic), so one remark per declined group made
        // the pass quadratic in the graph's size (2,000 ops: 257 MB of
        // remarks, 7.8 s). Nor at the graph's: its source line (every argument)
        // was echoed per remark.
        emitRemark(groupOp.getLoc())
            << label << " is left to another engine: " << why;
        return "";
      }
      ::graph::rt::CodegenSpec kernels;
      if (std::string error = generateKernels(group, plan, module, kernels);
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
