//===- GraphToExecutable.cpp - graph.graph to exec.program ---------------===//
//
// The graph-lower-to-executable pass: lowers each prepared, fused and
// engine-ranked graph.graph with lowerToCudnn (the lowering graph-run uses)
// and writes the resulting program as an exec.program of the same name,
// which replaces the graph. Groups the codegen engine is to run get their
// kernels compiled here (compilePlan, the codegen engine's plans in rank
// order; codegen_v2's from the group region's graph ops, buildGroupOps) and
// embedded as an exec.kernel_group; the others become an exec.cudnn_group
// holding the group's graph ops. The exec module is the AOT artifact.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Conversion/GraphToCodegen.h"
#include "GraphDialect/Conversion/GraphToCudnn.h"
#include "GraphDialect/Conversion/Passes.h"
#include "GraphDialect/Executable/ExecOps.h"
#include "GraphDialect/GraphOps.h"

#include "GraphDialect/Groups.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"

#include <map>
#include <optional>
#include <set>

namespace mlir::graph {
#define GEN_PASS_DEF_GRAPHLOWERTOEXECUTABLE
#include "GraphDialect/Conversion/Passes.h.inc"
} // namespace mlir::graph

using namespace mlir;
using namespace mlir::graph;
namespace ref = ::graph::ref;
namespace rt = ::graph::rt;

namespace {

Type typeOf(MLIRContext *context, ref::DType dtype) {
  return parseType(ref::dtypeName(dtype), context);
}

exec::TensorAttr tensorAttr(MLIRContext *context, int64_t uid, Type dtype,
                            ArrayRef<int64_t> dims, ArrayRef<int64_t> strides,
                            bool isVirtual = false, FloatAttr byValue = {},
                            StringRef name = "", bool readByValue = false) {
  return exec::TensorAttr::get(
      context, uid, dtype, dims, strides, isVirtual, byValue, readByValue,
      name.empty() ? StringAttr() : StringAttr::get(context, name));
}

/// A graph input or output as the program declares it.
exec::TensorAttr ioAttr(MLIRContext *context, const ref::TensorInfo &info,
                        int64_t uid) {
  ref::Shape strides =
      info.strides.empty() ? ref::rowMajorStrides(info.shape) : info.strides;
  return tensorAttr(context, uid, typeOf(context, info.dtype), info.shape,
                    strides, false, {}, info.name);
}

/// Which groups get generated kernels embedded (the `kernels` option).
enum class KernelPolicy { Auto, Prefer, Never };

/// The codegen plans, in rank order, for the group lowered from `source`:
/// the #graph.engine<codegen> entry graph-select-engines wrote on its
/// graph.group, or all of the engine's plans when the ops are in no group.
std::vector<std::string> codegenPlansOf(const GroupSource &source) {
  if (!source.ops.empty())
    if (auto group = source.ops.front()->getParentOfType<GroupOp>())
      if (std::optional<ArrayAttr> engines = group.getEngines())
        for (auto engine : engines->getAsRange<EngineAttr>())
          if (engine.getName() == "codegen") {
            std::vector<std::string> plans;
            for (auto plan : engine.getPlans().getAsRange<StringAttr>())
              plans.push_back(plan.str());
            return plans;
          }
  return codegenPlanNames();
}

/// Compiles group `spec` with the first of `plans` that compiles into `out`:
/// a codegen_v2 plan from `group`, the group's graph ops (buildGroupOps';
/// `groupError` says why there are none), codegen_v1 from `spec` (it lowers
/// its graph ops in the context it compiles in). Returns "" or why none
/// did, one line per distinct reason.
std::string compileKernels(const rt::GraphSpec &spec, const GroupOps &group,
                           const std::string &groupError,
                           const std::vector<std::string> &plans, bool cubin,
                           rt::CodegenSpec &out) {
  if (plans.empty())
    return "\n  the codegen engine proposes no plan for it";
  std::string reasons;
  std::set<std::string> seen;
  for (const std::string &plan : plans) {
    std::string why =
        plan == kCodegenEngine ? compilePlan(spec, plan, out, cubin)
        : groupError.empty()   ? compilePlan(group, plan, out, cubin)
                               : groupError;
    if (why.empty())
      return "";
    if (seen.insert(why).second)
      reasons += "\n  " + plan + ": " + why;
  }
  return reasons;
}

struct GraphLowerToExecutable
    : mlir::graph::impl::GraphLowerToExecutableBase<GraphLowerToExecutable> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    SmallVector<Attribute> modes;
    for (const std::string &mode : heuristics) {
      std::string lower = StringRef(mode).lower();
      if (lower != "a" && lower != "b" && lower != "fallback") {
        emitError(module.getLoc(),
                  "graph-lower-to-executable: heuristics mode '")
            << mode << "': expected a, b or fallback";
        return signalPassFailure();
      }
      modes.push_back(StringAttr::get(context, lower));
    }
    if (modes.empty())
      modes = {StringAttr::get(context, "a"),
               StringAttr::get(context, "fallback")};
    ArrayAttr heuristicsAttr = ArrayAttr::get(context, modes);
    if (kernels == "auto") {
      policy = KernelPolicy::Auto;
    } else if (kernels == "prefer") {
      policy = KernelPolicy::Prefer;
    } else if (kernels == "never") {
      policy = KernelPolicy::Never;
    } else {
      emitError(module.getLoc(), "graph-lower-to-executable: kernels='")
          << kernels << "': expected auto, prefer or never";
      return signalPassFailure();
    }

    for (GraphOp graph : llvm::make_early_inc_range(module.getOps<GraphOp>()))
      if (failed(lower(graph, heuristicsAttr)))
        return signalPassFailure();
  }

  /// Whether group `spec` is to get generated kernels.
  bool wantsKernels(const rt::GraphSpec &spec) const {
    switch (policy) {
    case KernelPolicy::Never:
      return false;
    case KernelPolicy::Prefer:
      return spec.allows("codegen");
    case KernelPolicy::Auto:
      return !spec.engines.empty() && spec.engines.front() == "codegen";
    }
    return false;
  }

  /// Appends the exec.kernel_group of group `spec` compiled to `kernels`;
  /// `device` holds the uids of the program's device tensors.
  LogicalResult emitKernelGroup(OpBuilder &b, GraphOp graph,
                                const rt::GraphSpec &spec,
                                const rt::CodegenSpec &kernels,
                                const std::set<int64_t> &device) {
    MLIRContext *context = b.getContext();
    Location loc = graph.getLoc();
    std::set<int64_t> writes, scratch;
    for (const rt::OpSpec &op : spec.ops)
      for (auto &[port, uid] : op.outputs)
        writes.insert(uid);
    SmallVector<Attribute> scratchAttrs;
    for (auto &[uid, bytes] : kernels.scratch) {
      scratch.insert(uid);
      scratchAttrs.push_back(exec::ScratchAttr::get(context, uid, bytes));
    }
    auto group = exec::KernelGroupOp::create(b, loc, b.getStringAttr(spec.name),
                                             b.getStringAttr(kernels.engine),
                                             b.getArrayAttr(scratchAttrs));
    Block *body = new Block();
    group.getBody().push_back(body);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(body);

    // One module per distinct image (a group's kernels usually share one).
    std::map<std::string, FlatSymbolRefAttr> modules;
    for (const rt::KernelLaunch &launch : kernels.launches) {
      if (modules.count(launch.ptx))
        continue;
      std::string name = modules.empty()
                             ? std::string("kernels")
                             : "kernels_" + std::to_string(modules.size());
      exec::KernelModuleOp::create(b, loc, b.getStringAttr(name),
                                   launch.cubin ? exec::BinaryFormat::cubin
                                                : exec::BinaryFormat::ptx,
                                   b.getStringAttr(launch.ptx));
      modules[launch.ptx] = FlatSymbolRefAttr::get(context, name);
    }
    for (const rt::KernelLaunch &launch : kernels.launches) {
      SmallVector<Attribute> args;
      for (auto [i, uid] : llvm::enumerate(launch.argUids)) {
        exec::ArgAccess access = exec::ArgAccess::read;
        if (uid < 0) {
          if (!scratch.count(uid))
            return graph.emitError("group ")
                   << spec.name << ": kernel " << launch.entry
                   << " takes scratch uid " << uid
                   << ", which the group does not allocate";
          access = exec::ArgAccess::scratch;
        } else if (!device.count(uid)) {
          return graph.emitError("group ")
                 << spec.name << ": kernel " << launch.entry << " takes uid "
                 << uid << ", which is no device tensor of the program";
        } else if (writes.count(uid)) {
          access = exec::ArgAccess::write;
        }
        int64_t align = i < launch.argAlign.size() ? launch.argAlign[i] : 0;
        args.push_back(exec::KernelArgAttr::get(context, uid, access, align));
      }
      auto sizes = [&](const std::array<unsigned, 3> &dims) {
        return b.getDenseI64ArrayAttr({dims[0], dims[1], dims[2]});
      };
      exec::KernelLaunchOp::create(
          b, loc, modules[launch.ptx], b.getStringAttr(launch.entry),
          sizes(launch.grid), sizes(launch.block), b.getArrayAttr(args));
    }
    return success();
  }

  /// Appends the exec.cudnn_group of group `spec`: its graph ops (those of
  /// `source`, cloned) in its body, whose arguments are the tensors it reads
  /// and whose exec.yield the tensors it writes to device memory.
  LogicalResult emitCudnnGroup(OpBuilder &b, GraphOp graph,
                               const rt::GraphSpec &spec,
                               const GroupSource &source,
                               ArrayAttr heuristicsAttr) {
    MLIRContext *context = b.getContext();
    Location loc = graph.getLoc();
    llvm::DenseSet<Operation *> ops(source.ops.begin(), source.ops.end());
    auto tensorAttrOf = [&](const rt::TensorSpec &tensor) {
      return tensorAttr(context, tensor.uid, typeOf(context, tensor.dtype),
                        tensor.dims, tensor.strides, /*isVirtual=*/false,
                        tensor.isByValue ? b.getF64FloatAttr(tensor.byValue)
                                         : FloatAttr(),
                        /*name=*/"", tensor.readByValue);
    };
    SmallVector<Attribute> inputs, outputs;
    SmallVector<Value> read, written;
    for (auto &[value, tensor] : source.tensors) {
      Operation *def = value.getDefiningOp();
      if (!def || !ops.contains(def)) {
        read.push_back(value);
        inputs.push_back(tensorAttrOf(tensor));
      } else if (!tensor.isVirtual) {
        written.push_back(value);
        outputs.push_back(tensorAttrOf(tensor));
      }
    }
    std::optional<Type> compute = graph.getComputeDataType();
    auto group = exec::CudnnGroupOp::create(
        b, loc, b.getStringAttr(spec.name), b.getArrayAttr(inputs),
        b.getArrayAttr(outputs), compute ? TypeAttr::get(*compute) : TypeAttr(),
        heuristicsAttr, IntegerAttr(), DenseI64ArrayAttr());
    Block *body = new Block();
    group.getBody().push_back(body);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(body);
    IRMapping mapping;
    for (Value value : read)
      mapping.map(value, body->addArgument(value.getType(), value.getLoc()));
    for (Operation *op : source.ops) {
      // An operand that is a graph.group's argument is its operand outside.
      for (Value operand : op->getOperands())
        if (!mapping.contains(operand))
          if (Value outer = mapping.lookupOrNull(resolveGroupValue(operand)))
            mapping.map(operand, outer);
      for (Value operand : op->getOperands())
        if (!mapping.contains(operand))
          return op->emitError("group ")
                 << spec.name << ": an operand of this op is no tensor of "
                 << "the group";
      b.clone(*op, mapping);
    }
    SmallVector<Value> yielded;
    for (Value value : written)
      yielded.push_back(mapping.lookup(value));
    exec::YieldOp::create(b, loc, yielded);
    return success();
  }

  LogicalResult lower(GraphOp graph, ArrayAttr heuristicsAttr) {
    MLIRContext *context = &getContext();
    CudnnProgram program;
    std::vector<GroupSource> sources;
    if (std::string error = lowerToCudnn(graph, program, &sources);
        !error.empty())
      return graph.emitError("cannot lower graph @")
             << graph.getSymName() << " to an exec.program: " << error;
    std::vector<ref::TensorInfo> inputInfo, outputInfo;
    ref::describeGraph(graph, inputInfo, outputInfo);

    // The generated kernels first: a group none compiles for is an error
    // before anything is built.
    std::vector<std::optional<rt::CodegenSpec>> compiled(program.groups.size());
    for (auto [g, spec] : llvm::enumerate(program.groups)) {
      if (!wantsKernels(spec))
        continue;
      // The group's graph ops come from its region, as
      // graph-generate-kernels builds them: no GraphSpec in between.
      OwningOpRef<ModuleOp> holder = ModuleOp::create(graph.getLoc());
      GroupOps group;
      std::string groupError =
          g < sources.size()
              ? buildGroupOps(
                    GroupDescription{spec.name, spec.engines, sources[g]},
                    *holder, "group", group)
              : "the group has no source ops";
      rt::CodegenSpec kernels;
      std::string why = compileKernels(
          spec, group, groupError,
          g < sources.size() ? codegenPlansOf(sources[g]) : codegenPlanNames(),
          cubin, kernels);
      if (why.empty()) {
        compiled[g] = std::move(kernels);
        continue;
      }
      if (!spec.allows("cudnn"))
        return graph.emitError("cannot lower graph @")
               << graph.getSymName() << " to an exec.program: group "
               << spec.name
               << " runs only on generated kernels and no codegen plan "
                  "compiled:"
               << why;
      graph.emitWarning("group ")
          << spec.name
          << " stays a cuDNN group: no codegen plan compiled:" << why;
    }

    SmallVector<Attribute> inputs, outputs, buffers;
    SmallVector<int64_t> aliases;
    for (const ref::TensorInfo &info : inputInfo)
      inputs.push_back(ioAttr(context, info, *info.uid)); // lowered: has one
    for (auto [i, info] : llvm::enumerate(outputInfo)) {
      int alias = program.outputAliasesInput[i];
      aliases.push_back(alias);
      outputs.push_back(ioAttr(context, info,
                               alias >= 0 ? *info.uid : program.outputUids[i]));
    }
    std::set<int64_t> device;
    for (const DeviceTensor &tensor : program.tensors) {
      device.insert(tensor.uid);
      if (tensor.role == DeviceTensor::Role::Intermediate)
        buffers.push_back(tensorAttr(context, tensor.uid,
                                     typeOf(context, tensor.dtype), tensor.dims,
                                     tensor.strides));
    }

    OpBuilder b(graph);
    auto programOp = exec::ProgramOp::create(
        b, graph.getLoc(), graph.getSymName(), b.getArrayAttr(inputs),
        b.getArrayAttr(outputs), b.getArrayAttr(buffers),
        llvm::any_of(aliases, [](int64_t a) { return a >= 0; })
            ? b.getDenseI64ArrayAttr(aliases)
            : DenseI64ArrayAttr());
    Block *body = new Block();
    programOp.getBody().push_back(body);
    b.setInsertionPointToEnd(body);
    for (auto [g, spec] : llvm::enumerate(program.groups)) {
      if (compiled[g]) {
        if (failed(emitKernelGroup(b, graph, spec, *compiled[g], device))) {
          programOp.erase();
          return failure();
        }
        continue;
      }
      if (g >= sources.size() ||
          failed(emitCudnnGroup(b, graph, spec, sources[g], heuristicsAttr))) {
        programOp.erase();
        return failure();
      }
    }
    graph.erase();
    return success();
  }

  KernelPolicy policy = KernelPolicy::Auto;
};

} // namespace
