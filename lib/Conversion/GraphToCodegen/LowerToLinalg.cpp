//===- LowerToLinalg.cpp - graph-lower-to-linalg -------------------------===//

#include "GraphDialect/Conversion/GraphToCodegen.h"
#include "GraphDialect/Conversion/GraphToCudnn.h"
#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Groups.h"
#include "GraphToLinalg.h"

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
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/MapVector.h"
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
/// `lower`, in id order, with its label ("<graph>/group<id>") and, when
/// `describe`, its group description (describeGroups'; null otherwise),
/// then erases the graph. The graph must be one the GPU path takes
/// (verifyGpuLowerable, which describeGroups runs too); that error, or one
/// `lower` returns after the group's label, is reported on the graph.
LogicalResult
lowerEachGroup(ModuleOp module, bool describe,
               function_ref<std::string(GraphOp, GroupOp, StringRef label,
                                        const GroupDescription *)>
                   lower) {
  SmallVector<GraphOp> graphs(module.getOps<GraphOp>());
  for (GraphOp graph : graphs) {
    CudnnProgram program;
    std::vector<GroupDescription> descriptions;
    std::string error = describe ? describeGroups(graph, program, descriptions)
                                 : verifyGpuLowerable(graph);
    if (!error.empty())
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
      if (llvm::all_of(group.getNodes(),
                       [](Operation &op) { return isa<ScalarOp>(op); }) ||
          (describe && !description))
        continue;
      if (std::string error = lower(graph, group, label, description);
          !error.empty())
        return graph.emitOpError() << label << ": " << error;
    }
    graph.erase();
  }
  return success();
}

/// Whether `type` is stored row-major (the codegen engine's only layout):
/// no strides given, or the packed ones (unit dims take any stride).
bool rowMajor(RankedTensorType type) {
  ArrayRef<int64_t> strides = getStrides(type);
  if (strides.empty())
    return true;
  int64_t expect = 1;
  for (int64_t i = type.getRank() - 1; i >= 0; --i) {
    if (type.getDimSize(i) != 1 && strides[i] != expect)
      return false;
    expect *= type.getDimSize(i);
  }
  return true;
}

/// Whether the group writes `result` to a buffer: a graph output, or read
/// by another group.
bool storedResult(Value result, GroupOp group) {
  return llvm::any_of(getResolvedUsers(result), [&](Operation *user) {
    return isa<OutputOp>(user) || user->getParentOp() != group.getOperation();
  });
}

/// The element type the group descriptions store `result` (an f32 value
/// crossing into other groups) in: the 16-bit type of the tensor-core
/// operands it feeds when those are its only readers and agree on it
/// (tensorCoreStoredType, the rule lowerToCudnn follows), else its own.
Type storedElementType(Value result, GroupOp group) {
  if (Type stored = tensorCoreStoredType(result, [&](Operation *user) {
        return user->getParentOp() == group.getOperation();
      }))
    return stored;
  return cast<RankedTensorType>(result.getType()).getElementType();
}

/// Appends `func.func @name` to `module`: the node ops of `group` cloned
/// into it in destination-passing form (arguments: the buffers it reads in
/// first-use order, then the ones it writes in program order; it returns
/// the latter), then lowered by the conversion patterns. Returns "" or why
/// the linalg route leaves the group to another engine.
std::string lowerGroup(GroupOp group, ModuleOp module, StringRef name) {
  SmallVector<Operation *> nodes;
  for (Operation &op : group.getNodes())
    if (!isa<ScalarOp>(op))
      nodes.push_back(&op);

  // The group's buffers. A graph.scalar (in the group or bound to one of its
  // arguments) is passed by value: it is cloned, not an argument.
  llvm::MapVector<Value, Value> inputs; // resolved value -> group's operand
  SmallVector<Value> outputs;
  SmallVector<Type> types;
  for (Operation *op : nodes) {
    llvm::append_range(types, op->getOperandTypes());
    llvm::append_range(types, op->getResultTypes());
    for (Value operand : op->getOperands()) {
      Value resolved = resolveGroupValue(operand);
      if (isa<BlockArgument>(operand) && !resolved.getDefiningOp<ScalarOp>())
        inputs.insert({resolved, operand});
    }
    for (Value result : op->getResults())
      if (storedResult(result, group))
        outputs.push_back(result);
  }
  auto storedType = [&](Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    return RankedTensorType::get(
        type.getShape(), storedElementType(value, group), type.getEncoding());
  };

  // Arguments of the padded types the patterns compute on.
  GroupTensorTypeConverter converter(groupTensorRank(types));
  SmallVector<Type> argTypes, resultTypes;
  for (Value value :
       llvm::concat<Value>(llvm::make_second_range(inputs), outputs)) {
    RankedTensorType type = storedType(value);
    if (!rowMajor(type))
      return "generated kernels take row-major tensors only";
    Type converted = converter.convertType(type);
    if (!converted)
      return "generated kernels take static f32, f16 and bf16 tensors only";
    argTypes.push_back(converted);
  }
  resultTypes.assign(argTypes.begin() + inputs.size(), argTypes.end());

  OpBuilder b(module.getContext());
  b.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(b, group.getLoc(), name,
                                   b.getFunctionType(argTypes, resultTypes));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  // A block argument reads its input's argument (through a cast from the
  // padded type the patterns resolve) or a clone of its scalar.
  llvm::DenseMap<Value, Value> argumentOf;
  for (auto [index, input] : llvm::enumerate(inputs)) {
    Value operand = input.second;
    argumentOf[input.first] =
        UnrealizedConversionCastOp::create(b, group.getLoc(), operand.getType(),
                                           entry->getArgument(index))
            .getResult(0);
  }
  IRMapping mapping;
  for (BlockArgument arg : group.getBody().getArguments()) {
    Value resolved = resolveGroupValue(arg);
    if (auto scalar = resolved.getDefiningOp<ScalarOp>())
      mapping.map(arg, b.clone(*scalar)->getResult(0));
    else if (Value argument = argumentOf.lookup(resolved))
      mapping.map(arg, argument);
  }
  for (Operation &op : group.getNodes()) {
    Operation *clone = b.clone(op, mapping);
    for (auto [result, cloned] :
         llvm::zip(op.getResults(), clone->getResults()))
      if (llvm::is_contained(outputs, result))
        cloned.setType(storedType(result));
  }
  SmallVector<Value> returned;
  for (Value output : outputs)
    returned.push_back(mapping.lookup(output));
  func::ReturnOp::create(b, group.getLoc(), returned);
  if (std::string why = lowerGraphOpsToLinalg(func); !why.empty()) {
    func.erase();
    return why;
  }
  return "";
}

struct GraphLowerToLinalg
    : public mlir::graph::impl::GraphLowerToLinalgBase<GraphLowerToLinalg> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The graph must be one the GPU path takes (uids, static shapes, every
    // node op in a group, ...): verifyGpuLowerable's checks and errors. No
    // group descriptions are built.
    auto lower = [&](GraphOp graph, GroupOp group, StringRef label,
                     const GroupDescription *) -> std::string {
      std::string name =
          graph.getSymName().str() + "_group" + std::to_string(group.getId());
      // At the group's location, not on an op: a diagnostic on an op
      // prints the op.
      if (std::string why = lowerGroup(group, module, name); !why.empty())
        emitRemark(group.getLoc())
            << label << " is left to another engine: " << why;
      return "";
    };
    if (failed(lowerEachGroup(module, /*describe=*/false, lower)))
      return signalPassFailure();
  }
};

struct GraphGenerateKernels
    : public mlir::graph::impl::GraphGenerateKernelsBase<GraphGenerateKernels> {
  using GraphGenerateKernelsBase::GraphGenerateKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto lower = [&](GraphOp graph, GroupOp, StringRef label,
                     const GroupDescription *description) -> std::string {
      std::string name = label.str();
      std::replace(name.begin(), name.end(), '/', '_');
      // The group's graph ops in a module of their own: only the kernels
      // land in `module`.
      OwningOpRef<ModuleOp> holder = ModuleOp::create(module.getLoc());
      GroupOps group;
      std::string why = buildGroupOps(*description, *holder, "group", group);
      if (why.empty())
        why = codegenV2Declines(group);
      if (!why.empty()) {
        // At the graph's location, not on the graph op: a diagnostic on an
        // op prints the whole op (mlir-print-op-on-diagnostic), so one remark
        // per declined group made the pass quadratic in the graph's size
        // (2,000 ops: 257 MB of remarks, 7.8 s).
        emitRemark(graph.getLoc())
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
    if (failed(lowerEachGroup(module, /*describe=*/true, lower)))
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
