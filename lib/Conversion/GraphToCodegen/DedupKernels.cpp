//===- DedupKernels.cpp - graph-dedup-kernels -----------------------------===//
//
// Groups of the same shapes and ops generate the same kernels (a stack of
// identical blocks: 1,000 gpu.modules, a handful distinct). This step keeps
// the first gpu.module of each kind, re-points the symbol references to the
// others at it and erases them, so the NVVM pipeline compiles each distinct
// kernel once. graph-generate-kernels runs it at its end; the pass runs it on
// any module.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Conversion/GraphToCodegen.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::graph {
#define GEN_PASS_DEF_GRAPHDEDUPKERNELS
#include "GraphDialect/Conversion/CodegenPasses.h.inc"
} // namespace mlir::graph

using namespace mlir;
using namespace mlir::graph;

namespace {

constexpr StringLiteral kGroupsAttr = "graph.groups";

/// The groups that run `module`: its graph.groups list, else its own name.
SmallVector<Attribute> groupsOf(gpu::GPUModuleOp module) {
  if (auto groups = module->getAttrOfType<ArrayAttr>(kGroupsAttr))
    return SmallVector<Attribute>(groups.getValue());
  return {module.getSymNameAttr()};
}

/// `module` as printed with its symbol name and graph.groups set aside: equal
/// keys mean identical kernels, launch geometry and targets. Printed in the
/// module's own scope, so the cost is the module's size, not the file's.
std::string keyOf(gpu::GPUModuleOp module) {
  StringAttr name = module.getSymNameAttr();
  Attribute groups = module->removeAttr(kGroupsAttr);
  module.setSymName("__kernels__");
  std::string key;
  llvm::raw_string_ostream os(key);
  module->print(os, OpPrintingFlags().useLocalScope());
  module.setSymName(name);
  if (groups)
    module->setAttr(kGroupsAttr, groups);
  return key;
}

struct GraphDedupKernels
    : public mlir::graph::impl::GraphDedupKernelsBase<GraphDedupKernels> {
  void runOnOperation() override { deduplicateKernelModules(getOperation()); }
};

} // namespace

size_t mlir::graph::deduplicateKernelModules(ModuleOp module) {
  llvm::StringMap<gpu::GPUModuleOp> kept;
  DenseMap<StringAttr, StringAttr> renamed;
  SmallVector<gpu::GPUModuleOp> erased;
  DenseMap<Operation *, SmallVector<Attribute>> groups;
  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
    auto [it, inserted] = kept.try_emplace(keyOf(gpuModule), gpuModule);
    if (inserted)
      continue;
    gpu::GPUModuleOp keep = it->second;
    SmallVector<Attribute> &list = groups[keep];
    if (list.empty())
      list = groupsOf(keep);
    llvm::append_range(list, groupsOf(gpuModule));
    renamed[gpuModule.getSymNameAttr()] = keep.getSymNameAttr();
    erased.push_back(gpuModule);
  }
  if (erased.empty())
    return 0;

  // One walk re-points every `@erased` and `@erased::@kernel` (e.g.
  // gpu.launch_func's) at the kept module; kernels do not refer to modules.
  AttrTypeReplacer replacer;
  replacer.addReplacement([&](SymbolRefAttr ref) -> std::optional<Attribute> {
    auto it = renamed.find(ref.getRootReference());
    if (it == renamed.end())
      return std::nullopt;
    return SymbolRefAttr::get(it->second, ref.getNestedReferences());
  });
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<gpu::GPUModuleOp>(op))
      return WalkResult::skip();
    replacer.replaceElementsIn(op);
    return WalkResult::advance();
  });

  Builder b(module.getContext());
  for (auto &[op, list] : groups)
    op->setAttr(kGroupsAttr, b.getArrayAttr(list));
  for (gpu::GPUModuleOp gpuModule : erased)
    gpuModule.erase();
  return erased.size();
}
