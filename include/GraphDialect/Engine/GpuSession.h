//===- GpuSession.h - One graph's GPU programs across executes --*- C++ -*-===//
//
// What an embedding front (the C API, and through it Python) keeps per
// parsed graph between calls: the GPU program built at the first execute
// and reused (one per input shape signature for dynamic dims, rebuilt on
// another device), the last execute's variant pack (a repeated pack skips
// every check: new data pointers only), the plan list of the anchor group
// (GroupPlans.h) with the choices later executes replay, and the plan
// options. The session words the C API's messages; the front maps each
// SessionStatus code to its own status codes and keeps its own locking.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_ENGINE_GPUSESSION_H
#define GRAPHDIALECT_ENGINE_GPUSESSION_H

#include "GraphDialect/Engine/GpuExecutor.h"
#include "GraphDialect/Engine/GroupPlans.h"
#include "GraphDialect/Executable/ExecOps.h"
#include "GraphDialect/GraphOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
namespace graph {

/// A session call's outcome, classified for the fronts' status codes.
struct SessionStatus {
  enum class Code { Ok, NoDevice, InvalidArgument, NotSupported, Execution };
  Code code = Code::Ok;
  std::string message;

  SessionStatus() = default;
  SessionStatus(Code code, std::string message)
      : code(code), message(std::move(message)) {}
  bool ok() const { return code == Code::Ok; }
};

/// What the session builds programs from: the selected graph of a module,
/// or the selected exec.program of an artifact.
struct SessionSource {
  std::string name; // the graph's or program's symbol
  bool artifact = false;
  GraphOp graph;           // set unless `artifact`
  exec::ProgramOp program; // set for an artifact
  /// Runs the GPU pipeline on a copy of the module into `holder` and finds
  /// the graph in it; the front reports the pipeline's diagnostics.
  llvm::function_ref<SessionStatus(OwningOpRef<ModuleOp> &holder,
                                   GraphOp &lowered)>
      lower;
};

/// One caller buffer of an execute as given: a repeated pack compares these.
struct PackBuffer {
  int64_t uid = 0;
  int dtype = 0;                   // the front's dtype code, compared only
  ArrayRef<int64_t> dims, strides; // strides as given (may be empty)
  void *data = nullptr;
};

/// A graph input or output bound to its (checked) caller buffer.
struct BoundTensor {
  std::string label; // how messages name it: `input 0 (uid 1 "x")`
  int64_t uid = 0;
  ArrayRef<int64_t> dims;    // the buffer's
  ArrayRef<int64_t> strides; // the buffer's, row-major when not given
  void *data = nullptr;
};

/// "" when a GPU is usable from the calling thread, else why not.
std::string gpuUnavailable();

class GpuSession {
public:
  /// The plan list graphPlanCreate made: the anchor group of the graph
  /// (the first group in PlanList.h's anchorOrder that has plans) with its
  /// ranked plans, and what later executes must replay so their indices
  /// mean the same plans.
  struct PlanList {
    std::string graph;
    CudnnProgram program;
    size_t groupIndex = 0;             // the anchor, in program.groups
    /// The group the plans are of: the anchor's name, or "<name>.0" when
    /// no group had plans and the anchor's first op (splitGroupSpec) does:
    /// execute splits the anchor and pins the plan to that piece.
    std::string anchor;
    std::unique_ptr<GroupPlans> plans; // the anchor's
    /// The lists of the other groups planning asked the engines for (every
    /// single op, to refuse a graph no execute could run): owned here until
    /// the next build's executor takes those that still answer its groups
    /// (GpuOptions::plannedGroups), so it does not ask again.
    std::vector<std::unique_ptr<GroupPlans>> planned;
    std::vector<::graph::rt::HeurMode> modes;
    std::vector<std::pair<int64_t, std::vector<std::pair<int64_t, int64_t>>>>
        added;
    int selected = -1; // graphPlanSelect; -1: walk the list
    int ordinal = 0;   // the device its groups were built on
    /// The plans the last buildPlans declined, with why: the next
    /// buildPlan of each answers that once instead of finalizing it again
    /// (build_plans(ALL) builds all, then asks each for its answer).
    std::map<size_t, std::string> batchDeclines;
  };

  /// Drops every built program (options, plans or the graph changed).
  void reset();

  //===--------------------------------------------------------------------===//
  // Executes
  //===--------------------------------------------------------------------===//

  /// Whether `pack` is the variant pack of the last GPU execute of graph
  /// `name` on the current device (same uids, dtypes, dims and strides, in
  /// the same order, no NULL data): every check it passed holds again.
  /// Allocates nothing.
  bool repeats(const std::string &name, ArrayRef<PackBuffer> pack) const;
  /// The execute of a repeated pack (see repeats): new data pointers only.
  SessionStatus runRepeated(ArrayRef<PackBuffer> pack);
  /// Runs `source` on the current GPU with the caller's device pointers,
  /// which must hold each tensor in the graph's layout. The first call
  /// builds the program (for dynamic dims, per input shape signature);
  /// later calls only execute. `pack` is the buffers as given, `inputs` and
  /// `outputs` the graph's tensors bound to them.
  SessionStatus execute(const SessionSource &source, ArrayRef<PackBuffer> pack,
                        ArrayRef<BoundTensor> inputs,
                        ArrayRef<BoundTensor> outputs);

  //===--------------------------------------------------------------------===//
  // Plan list and options
  //===--------------------------------------------------------------------===//

  /// Builds the plan list of `source` (a graph) on `device` with the
  /// heuristics `modes` (empty: the default) and makes it the session's.
  SessionStatus createPlanList(const SessionSource &source,
                               ::graph::rt::Device &device,
                               std::vector<::graph::rt::HeurMode> modes);
  /// The plan list of graph `name`, or null when graphPlanCreate did not
  /// make one for it.
  PlanList *planList(const std::string &name);
  /// Pins entry `index` (-1: walk the list) for the next executes.
  void selectPlan(int index);
  /// Appends the explicit cuDNN plan (`engineId`, `knobs`) to `list`;
  /// `index` gets its entry. Messages name `call`.
  SessionStatus addPlan(PlanList &list, const char *call, int64_t engineId,
                        const std::vector<std::pair<int64_t, int64_t>> &knobs,
                        int32_t &index);
  /// Builds entry `index` of `list` as the next execute would: "" or why
  /// it declined.
  std::string buildPlan(PlanList &list, size_t index);
  /// Builds entries `indices` of `list` as buildPlan would, cuDNN's plans
  /// several at once; each one's answer, in the order of `indices`.
  std::vector<std::string> buildPlans(PlanList &list,
                                      const std::vector<size_t> &indices);
  /// graphSetPlanOptions: drops the built programs when they change.
  void setPlanOptions(const std::vector<std::string> &deselect,
                      int64_t workspaceLimit, bool autotune);

  /// The options of the next build of graph `name`: the plan options, the
  /// environment's (GRAPH_AUTOTUNE=1, GRAPH_CODEGEN_CUBIN=1) and the plan
  /// list's heuristics, explicit plans and pinned plan.
  GpuOptions buildOptions(const std::string &name) const;

private:
  SessionStatus build(const SessionSource &source,
                      const std::vector<::graph::ref::Shape> &shapes,
                      std::shared_ptr<GpuExecutable> &built);
  SessionStatus run(const std::shared_ptr<GpuExecutable> &gpu,
                    const std::vector<void *> &pointers);

  // The GPU program of `gpuGraph`, built at the first execute and kept.
  // Shared: a CUDA graph that captured an execute holds it too (the
  // device's keepWhileCaptured), so a session dropped before the captured
  // graph does not free what the graph's kernels use.
  std::shared_ptr<GpuExecutable> gpu;
  std::string gpuGraph;
  std::string gpuLabel; // "graph @name" or "exec.program @name"
  /// The device the programs were built on; an execute on another device
  /// (the thread's current one) rebuilds them.
  int gpuOrdinal = -1;
  /// A graph with dynamic dims: one program per input shape signature (each
  /// input's rank then dims).
  std::map<std::vector<int64_t>, std::shared_ptr<GpuExecutable>> gpuByShape;
  /// The last successful execute's variant pack: per buffer its uid, dtype,
  /// dims, strides as given and slot among the program's ioUids.
  struct VariantPack {
    std::shared_ptr<GpuExecutable> gpu; // null: none recorded
    std::vector<int64_t> uids;
    std::vector<int> dtypes;
    std::vector<std::vector<int64_t>> dims, strides;
    std::vector<size_t> slots; // kNoSlot: an output the program aliases
    std::vector<void *> pointers;
  };
  static constexpr size_t kNoSlot = ~size_t(0);
  VariantPack lastPack;
  std::unique_ptr<PlanList> plans;
  GpuOptions planOptions; // graphSetPlanOptions'
};

} // namespace graph
} // namespace mlir

#endif // GRAPHDIALECT_ENGINE_GPUSESSION_H
