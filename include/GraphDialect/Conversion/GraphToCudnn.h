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

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class OpPassManager;
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

/// Builds the program of `graph`, which must have gone through
/// graph-prepare, graph-fuse and graph-select-engines. Returns "" or the
/// error naming the op and the rule.
std::string lowerToCudnn(GraphOp graph, CudnnProgram &program);

/// The pipeline graph-run and the C API use before lowering: graph-prepare,
/// graph-fuse, graph-select-engines.
void buildGpuPipeline(OpPassManager &pm);

/// Plan choice for every group, following the frontend's plan semantics.
struct GpuOptions {
  std::vector<::graph::rt::HeurMode> heuristics = {
      ::graph::rt::HeurMode::A, ::graph::rt::HeurMode::Fallback};
  int planIndex = -1;                    // >= 0: that plan only (strict)
  std::vector<std::string> deselectEngines; // plan names containing these
  int64_t workspaceLimit = -1;           // bytes; -1: no limit
  bool verbose = false;                  // print each group's plan choice
  bool autotune = false; // time every plan that builds, keep the fastest
  /// Explicit (engine id, knobs) plans appended to the ranked list after the
  /// heuristics' (the frontend's create_execution_plan replay); planIndex
  /// counts them too.
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
