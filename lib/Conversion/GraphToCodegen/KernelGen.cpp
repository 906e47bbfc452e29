//===- KernelGen.cpp - Vectorized kernels for memory-bound groups --------===//
//
// codegen_v2: a group description becomes a sequence of stages, each one
// gpu.func built directly from scf/arith/math/vector/gpu ops and lowered
// through MLIR's NVVM pipeline to sm_90 PTX:
//
//  - pointwise stages: every op over one iteration space; each thread owns
//    `items` runs of `vec` consecutive elements (16-byte vector loads and
//    stores where the layout allows, broadcast operands splat, strided
//    operands gathered);
//  - row stages: reductions over a suffix of the axes, norms forward and
//    backward, and the pointwise ops around them (softmax, residual add +
//    rmsnorm + scale). One block per row (a grid-stride loop over rows),
//    the row held in registers, warp shuffles and shared memory for the
//    block reduction; per-column sums of backward norms (DScale, DBias)
//    go through per-block partials and a finishing kernel;
//  - reduce stages: reductions over any other axes and genstats, one block
//    per output element.
//
// Views (transpose, slice, reshape) fold into the addressing of the tensor
// they read; concatenate copies each input into its region of the output.
// Values that cross stages and live only inside the group are materialized
// in scratch buffers the runtime allocates once per loaded group.
//
// The generator reads the group's graph ops (GroupOps); a group description
// goes through the same adapter as codegen_v1's (buildSpecGraphOps). This
// file holds the entry points and how the planner names the ops' operands;
// KernelGen.h says where the planner, the launch geometry and each stage
// kind's emitter are.
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"

#include "GraphDialect/Conversion/GraphToCodegen.h"
#include "GraphDialect/Engines/Codegen.h"
#include "GraphDialect/Engines/Engine.h"

#include <cstdio>

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::graph::kernelgen;

bool kernelgen::parsePlan(const std::string &name, Knobs &knobs) {
  long t = 0, i = 0;
  int used = 0;
  if (std::sscanf(name.c_str(), "codegen_v2_t%ld_i%ld%n", &t, &i, &used) != 2 ||
      t < 32 || t > 1024 || t % 32 || i < 1 || i > 16)
    return false;
  std::string rest = name.substr(used);
  if (!rest.empty() && rest != "_p")
    return false;
  knobs.threads = t;
  knobs.items = i;
  knobs.prefetch = rest == "_p";
  return true;
}


SmallVector<Port> kernelgen::odsPorts(OpKind kind, bool isResult) {
  SmallVector<Port> ports;
  for (const OdsPort &entry : kOdsPorts)
    if (entry.kind == kind && entry.isResult == isResult)
      ports.push_back(entry.port);
  return ports;
}

OpKind kernelgen::opKindOf(Operation *op) {
  return *::graph::parseOpKind(op->getName().stripDialect());
}

std::string kernelgen::modeOf(Operation *op) {
  if (auto pointwise = dyn_cast<PointwiseOp>(op))
    return stringifyPointwiseMode(pointwise.getMode()).str();
  if (auto reduction = dyn_cast<ReductionOp>(op))
    return stringifyReductionMode(reduction.getMode()).str();
  if (auto phase = op->getInherentAttr("phase"))
    if (auto attr = dyn_cast_or_null<NormPhaseAttr>(*phase))
      return stringifyNormPhase(attr.getValue()).str();
  return "";
}

std::string kernelgen::labelOf(Operation *op) {
  std::string label = op->getName().stripDialect().str();
  StringRef name = getNodeLabel(op);
  return name.empty() ? label : label + " \"" + name.str() + "\"";
}

SmallVector<std::pair<SpecPort, Value>> kernelgen::namedValues(Operation *op,
                                                               bool isResult) {
  OpKind kind = opKindOf(op);
  SmallVector<Port> names = odsPorts(kind, isResult);
  SmallVector<std::pair<SpecPort, Value>> named;
  withNodeOp(op, [&](auto typed) {
    for (auto [g, name] : llvm::enumerate(names)) {
      auto [start, length] = isResult ? typed.getODSResultIndexAndLength(g)
                                      : typed.getODSOperandIndexAndLength(g);
      for (unsigned j = 0; j < length; ++j) {
        SpecPort port = name;
        if (kind == OpKind::Pointwise && !isResult)
          port = ::graph::pointwiseInput(j);
        else if (kind == OpKind::Concatenate && !isResult)
          port = ::graph::variadicElement(name, j);
        else if (kind == OpKind::RopeBackward && !isResult && name == Port::dY)
          port = Port::input;
        named.push_back({port, isResult ? op->getResult(start + j)
                                        : op->getOperand(start + j)});
      }
    }
  });
  llvm::stable_sort(named, [](auto &a, auto &b) { return a.first < b.first; });
  return named;
}

int64_t kernelgen::intAttrOf(Operation *op, StringRef name, int64_t fallback) {
  if (std::optional<Attribute> attr = op->getInherentAttr(name))
    if (auto integer = dyn_cast_or_null<IntegerAttr>(*attr))
      return integer.getInt();
  return fallback;
}

double kernelgen::floatAttrOf(Operation *op, StringRef name, double fallback) {
  if (std::optional<Attribute> attr = op->getInherentAttr(name))
    if (auto real = dyn_cast_or_null<FloatAttr>(*attr))
      return real.getValueAsDouble();
  return fallback;
}

Value kernelgen::namedValue(Operation *op, Port port, bool isResult) {
  for (auto &[name, value] : namedValues(op, isResult))
    if (name == port)
      return value;
  return Value();
}

std::vector<std::string> mlir::graph::codegenPlanNames() {
  // The codegen engine's ranked plans (lib/Engines/Codegen).
  return getCodegenEngine().planNames();
}

std::string mlir::graph::codegenV2Declines(const GroupOps &group) {
  Planner planner(group);
  return planner.plan();
}

/// Builds `spec`'s ops as graph ops (buildSpecGraphOps) in a module of
/// `context` when it has the graph and func dialects loaded, else in a
/// context of its own (`own`), and calls `fn` with them.
static std::string
withSpecGroup(const rt::GraphSpec &spec, MLIRContext *context,
              function_ref<std::string(const GroupOps &)> fn) {
  if (!context || !context->getLoadedDialect<GraphDialect>() ||
      !context->getLoadedDialect<func::FuncDialect>()) {
    // One per thread, kept: a context per group would load the dialects
    // for every group.
    static thread_local std::unique_ptr<MLIRContext> own;
    if (!own) {
      own = std::make_unique<MLIRContext>(MLIRContext::Threading::DISABLED);
      own->loadDialect<GraphDialect, func::FuncDialect>();
    }
    context = own.get();
  }
  OwningOpRef<ModuleOp> holder = ModuleOp::create(UnknownLoc::get(context));
  GroupOps group;
  if (std::string why = buildSpecGraphOps(spec, *holder, "group",
                                          /*strides=*/true, group);
      !why.empty())
    return why;
  return fn(group);
}

std::string mlir::graph::codegenV2Declines(const rt::GraphSpec &spec) {
  return withSpecGroup(spec, nullptr, [](const GroupOps &group) {
    return codegenV2Declines(group);
  });
}

std::string mlir::graph::generateKernels(const rt::GraphSpec &spec,
                                         const std::string &plan,
                                         ModuleOp module, rt::CodegenSpec &out,
                                         const rt::DeviceLimits &limits) {
  return withSpecGroup(spec, module.getContext(), [&](const GroupOps &group) {
    return generateKernels(group, plan, module, out, limits);
  });
}

std::string mlir::graph::generateKernels(const GroupOps &group,
                                         const std::string &plan,
                                         ModuleOp module, rt::CodegenSpec &out,
                                         const rt::DeviceLimits &limits) {
  Knobs knobs;
  if (!parsePlan(plan, knobs))
    return "unknown codegen plan '" + plan + "'";
  if (knobs.threads > limits.maxThreadsPerBlock)
    return plan + ": " + std::to_string(knobs.threads) +
           " threads per block, over the device's " +
           std::to_string(limits.maxThreadsPerBlock);
  Planner planner(group);
  if (std::string why = planner.plan(); !why.empty())
    return why;
  out = rt::CodegenSpec();
  out.name = group.name;
  out.engine = plan;
  Emitter emitter(module.getContext(), planner, knobs, limits);
  if (std::string why = emitter.emit(module, out); !why.empty())
    return why;
  for (auto &[buffer, bytes] : planner.scratch)
    out.scratch.push_back({buffer, bytes});
  if (out.launches.empty())
    return "the group lowered to no kernel";
  return "";
}
