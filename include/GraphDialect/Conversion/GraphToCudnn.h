//===- GraphToCudnn.h - Lower fused groups to cuDNN and run them -*- C++ -*-===//
//
// Turns a graph whose groups were formed by graph-fuse and ranked by
// graph-select-engines into the runtime's cuDNN group descriptions, and runs
// them on the GPU: one device buffer per graph input, output and tensor that
// crosses groups, one cuDNN plan per group.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_CONVERSION_GRAPHTOCUDNN_H
#define GRAPHDIALECT_CONVERSION_GRAPHTOCUDNN_H

#include "GraphDialect/Reference/Executor.h"
#include "GraphDialect/Runtime/CudnnGraph.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Value.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class OpPassManager;
class Operation;
namespace graph {
class GraphOp;

/// A tensor that lives in device memory for the whole execute.
struct DeviceTensor {
  enum class Role { Input, Output, Intermediate };
  int64_t uid = 0;
  ::graph::ref::DType dtype = ::graph::ref::DType::F32;
  ::graph::ref::Shape dims, strides;
  Role role = Role::Intermediate;
  unsigned index = 0; // position among the graph's inputs or outputs
  /// >= 0: a folded view (reshape, transpose, slice) of the tensor of this
  /// uid, `aliasOffset` elements in, read through `strides`; no memory of
  /// its own.
  int64_t aliasOf = -1;
  int64_t aliasOffset = 0;
};

/// How one group's plan is chosen (an exec.cudnn_group's choice).
struct GroupEngine {
  /// Heuristics modes in order; empty: GpuOptions::heuristics.
  std::vector<::graph::rt::HeurMode> heuristics;
  /// >= 0: build only this engine with `knobs` (a plan chosen ahead).
  int64_t engineId = -1;
  std::vector<std::pair<int64_t, int64_t>> knobs;
};

/// The GPU program of one graph.
struct CudnnProgram {
  std::vector<DeviceTensor> tensors;
  std::vector<::graph::rt::GraphSpec> groups; // in schedule order
  /// Output i is graph input `outputAliasesInput[i]` (-1 when computed);
  /// a computed output lives in the device tensor of uid `outputUids[i]`.
  std::vector<int> outputAliasesInput;
  std::vector<int64_t> outputUids;
  /// Per group (parallel to `groups`), or empty: GpuOptions decides.
  std::vector<GroupEngine> engines;
};

/// The graph ops one lowered group comes from, so its plans can be checked
/// against the CPU reference (ref::executeOps): the ops in schedule order and
/// the value behind each of the group's device tensors.
struct GroupSource {
  std::vector<Operation *> ops;
  std::map<int64_t, Value> values; // uid -> value (every tensor not by value)
  bool tf32 = false;               // the graph computes in tf32
};

/// Builds the program of `graph`, which must have gone through
/// graph-prepare, graph-fuse and graph-select-engines. Returns "" or the
/// error naming the op and the rule. `sources`, when given, gets one entry
/// per group (parallel to program.groups), valid while `graph` lives.
/// `foldViews`: reshape/transpose/slice results whose readers all take
/// strided operands become aliases of their source (DeviceTensor::aliasOf)
/// instead of copy groups, and a transposed intermediate is written in the
/// layout that makes its view packed. Only the executor binds aliases.
std::string lowerToCudnn(GraphOp graph, CudnnProgram &program,
                         std::vector<GroupSource> *sources = nullptr,
                         bool foldViews = false);

/// The pipeline graph-run and the C API use before lowering: graph-prepare,
/// graph-expand-gqa-backward, graph-widen-norm-gradients, graph-fuse,
/// graph-select-engines.
void buildGpuPipeline(OpPassManager &pm);

/// Whether an input of `graph` has a dynamic ('?') dim: the GPU runs it
/// through specializeForGpu with the shapes of each execute's inputs.
bool hasDynamicInputs(GraphOp graph);

/// A copy of `graph`, in a new module put in `holder`, with every dynamic dim
/// bound from `inputShapes` (one per input, in argument order; see
/// graph-specialize-shapes) and run through buildGpuPipeline: ready for
/// GpuExecutable::create. nullptr and `error` naming the input or op and the
/// rule when a shape contradicts the graph or no GPU engine runs the result.
GraphOp specializeForGpu(GraphOp graph,
                         const std::vector<::graph::ref::Shape> &inputShapes,
                         OwningOpRef<ModuleOp> &holder, std::string &error);

/// Plan choice for every group, following the frontend's plan semantics.
struct GpuOptions {
  std::vector<::graph::rt::HeurMode> heuristics = {
      ::graph::rt::HeurMode::A, ::graph::rt::HeurMode::Fallback};
  /// >= 0: only that entry of the group's plan list (strict), which holds
  /// cuDNN's heuristics plans, the codegen plans that apply, then the
  /// explicit plans (PlanList.h); when cuDNN declines the group the codegen
  /// plans start at 0.
  int planIndex = -1;
  /// Plans whose name contains one of these are skipped; "cudnn" skips every
  /// cuDNN plan ("codegen" every codegen one). Indices do not move.
  std::vector<std::string> deselectEngines;
  int64_t workspaceLimit = -1;           // bytes; -1: no limit
  bool verbose = false;                  // print each group's plan choice
  /// Run every plan that builds once on seeded random inputs, drop those
  /// whose outputs differ from the CPU reference (graph-run's normwise
  /// --check-against=cpu bound), time the rest and keep the fastest.
  bool autotune = false;
  /// Generated kernels are assembled with ptxas (MLIR's NVVM target, the
  /// toolkit of CUDA_ROOT) and loaded as cubin instead of PTX.
  bool codegenCubin = false;
  /// Explicit (engine id, knobs) cuDNN plans appended to the ranked list
  /// after the heuristics' and the codegen plans (the frontend's
  /// create_execution_plan replay); planIndex counts them too.
  std::vector<std::pair<int64_t, std::vector<std::pair<int64_t, int64_t>>>>
      addedPlans;
  /// When set, planIndex and addedPlans apply to the group of this name only
  /// (the C API exposes the first group's plan list); the other groups walk
  /// their own lists.
  std::string planGroup;
};

/// What happened per group: the plan run, or why each candidate declined.
struct GpuGroupReport {
  std::string group;
  std::string plan;
  std::vector<std::string> declined;
};

/// A graph ready to run on the GPU: groups lowered, plans chosen and built,
/// intermediates allocated. Execute it many times with the caller's device
/// buffers; nothing is rebuilt.
class GpuExecutable {
public:
  /// `graph` must have gone through buildGpuPipeline.
  static std::unique_ptr<GpuExecutable>
  create(GraphOp graph, const GpuOptions &options, std::string &error,
         std::vector<GpuGroupReport> *report = nullptr);
  /// A program already lowered, e.g. loaded from an exec.program artifact.
  static std::unique_ptr<GpuExecutable>
  create(CudnnProgram program, const GpuOptions &options, std::string &error,
         std::vector<GpuGroupReport> *report = nullptr);
  virtual ~GpuExecutable() = default;

  /// Runs every group on the stream. `buffers` maps the uid of every graph
  /// input and computed output to a device pointer holding it in the
  /// graph's declared layout.
  virtual std::string execute(const std::map<int64_t, void *> &buffers) = 0;
  /// The uids of the graph inputs and computed outputs, in the order
  /// executeSlots takes their device pointers.
  virtual const std::vector<int64_t> &ioUids() const = 0;
  /// Like execute, with `pointers[i]` holding uid ioUids()[i]: the path of
  /// repeated executes, with no lookup and no allocation. Not reentrant.
  virtual std::string executeSlots(const std::vector<void *> &pointers) = 0;
  virtual const CudnnProgram &program() const = 0;
  virtual ::graph::rt::Device &device() = 0;
};

/// Runs `graph` on the GPU. `inputs` in argument order; `outputs` filled in
/// the declared layouts. `benchmarkRuns` > 0 times that many executes of
/// all groups and fills `milliseconds` (one entry per run).
std::string executeOnGpu(GraphOp graph,
                         const std::vector<::graph::ref::HostTensor> &inputs,
                         std::vector<::graph::ref::HostTensor> &outputs,
                         const GpuOptions &options,
                         std::vector<GpuGroupReport> *report = nullptr,
                         int benchmarkRuns = 0,
                         std::vector<double> *milliseconds = nullptr);

/// Runs a lowered `program` (an exec.program artifact) like executeOnGpu:
/// `inputs` in input order; `outputInfo` gives each output's dtype, dims
/// and strides.
std::string
executeProgramOnGpu(CudnnProgram program,
                    const std::vector<::graph::ref::TensorInfo> &outputInfo,
                    const std::vector<::graph::ref::HostTensor> &inputs,
                    std::vector<::graph::ref::HostTensor> &outputs,
                    const GpuOptions &options,
                    std::vector<GpuGroupReport> *report = nullptr,
                    int benchmarkRuns = 0,
                    std::vector<double> *milliseconds = nullptr);

} // namespace graph
} // namespace mlir

#endif // GRAPHDIALECT_CONVERSION_GRAPHTOCUDNN_H
