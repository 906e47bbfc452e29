//===- GpuExecutor.h - Run a graph's fused groups on the GPU ---*- C++ -*-===//
//
// The engine layer's executor: walks each lowered group's ranked plan list
// (PlanList.h) the way the frontend does, autotunes, splits the groups no
// plan builds, allocates the intermediates and executes. graph-run, the C
// API and Python all run through it.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_ENGINE_GPUEXECUTOR_H
#define GRAPHDIALECT_ENGINE_GPUEXECUTOR_H

#include "GraphDialect/Conversion/GraphToCudnn.h"
#include "GraphDialect/GraphOps.h"

#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mlir {
namespace graph {

class GroupPlans;

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
  /// Autotuning checks each plan against the first plan that ran (its
  /// outputs on the same inputs, within twice the bound) instead of the
  /// CPU reference, which groups of full-size models make too slow.
  bool autotuneAgainstFirst = false;
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
  /// Plan lists the caller asked the engines for ahead (GpuSession's
  /// graphPlanCreate), owned by the caller and read only while
  /// GpuExecutable::create runs: a group whose list one of them answers
  /// (GroupPlans::answers) takes it, moved out of here, instead of asking
  /// the engines again. Null: none.
  std::vector<std::unique_ptr<GroupPlans>> *plannedGroups = nullptr;
};

/// What happened per group: the plan run, or why each candidate declined.
struct GpuGroupReport {
  std::string group;
  std::string plan;
  std::vector<std::string> declined;
};

/// Lends the calling thread's GPU executes `bytes` of the caller's device
/// memory at `memory` as their groups' workspace (the frontend's
/// execute(workspace=)) until lent again; null returns to each executable's
/// own workspace. A group that needs more than `bytes`, or whose workspace
/// holds constants uploaded once, keeps its own.
void lendGpuWorkspace(void *memory, int64_t bytes);

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

/// What a GPU program is built from. buildGpuExecutable makes the engine's
/// one choice among the three ways: an artifact's lowered `program` is built
/// as it is; a `graph` with dynamic inputs is specialized to `inputShapes`
/// and lowered anew; a static `graph` is built once `lower` (when set) has
/// put it through buildGpuPipeline.
struct GpuSource {
  CudnnProgram *program = nullptr; // an artifact's, moved from; else null
  GraphOp graph;
  /// This execute's input dims, read for a graph with dynamic inputs.
  std::vector<::graph::ref::Shape> inputShapes;
  /// Lowers a copy of the static `graph` into `holder` and sets `lowered`;
  /// "" or why not. Null when `graph` went through buildGpuPipeline.
  llvm::function_ref<std::string(OwningOpRef<ModuleOp> &holder,
                                 GraphOp &lowered)>
      lower;
};

/// The step of buildGpuExecutable that failed.
enum class GpuBuildStep { Specialize, Lower, Create };

/// Builds `source` with `options` (GpuExecutable::create); null with
/// `error` and `failed` on failure. For a graph, `graphOutputs` gets the
/// outputs of the graph built (its specialized copy for dynamic inputs).
std::unique_ptr<GpuExecutable> buildGpuExecutable(
    const GpuSource &source, const GpuOptions &options, std::string &error,
    GpuBuildStep &failed, std::vector<GpuGroupReport> *report = nullptr,
    std::vector<::graph::ref::TensorInfo> *graphOutputs = nullptr);

/// One run from host tensors (executeOnGpu, executeProgramOnGpu): the inputs
/// and plan options in, the outputs, plan report and timings out.
struct GpuHostRun {
  const std::vector<::graph::ref::HostTensor> &inputs; // in input order
  const GpuOptions &options;
  /// > 0: times that many more executes of all groups.
  int benchmarkRuns = 0;

  std::vector<::graph::ref::HostTensor> outputs; // in the declared layouts
  std::vector<GpuGroupReport> report;
  std::vector<double> milliseconds; // one per benchmark run
};

/// Runs `graph` (through buildGpuPipeline) on the GPU with `run`'s inputs in
/// argument order.
std::string executeOnGpu(GraphOp graph, GpuHostRun &run);

/// Runs a lowered `program` (an exec.program artifact) like executeOnGpu;
/// `outputInfo` gives each output's dtype, dims and strides.
std::string
executeProgramOnGpu(CudnnProgram program,
                    const std::vector<::graph::ref::TensorInfo> &outputInfo,
                    GpuHostRun &run);

} // namespace graph
} // namespace mlir

#endif // GRAPHDIALECT_ENGINE_GPUEXECUTOR_H
