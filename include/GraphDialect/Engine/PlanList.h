//===- PlanList.h - One group's ranked plan list over both engines -*- C++ -*-//
//
// A fused group's plan list holds the plans of both GPU engines, in rank
// order: cuDNN's heuristics plans (or an artifact's recorded engine), then
// the codegen engine's plans that apply to the group (codegenPlanNames()
// filtered by codegenV2Declines / codegenDeclines), then the explicit cuDNN
// plans (graphPlanAdd), so an explicit plan is always the last index. The
// GPU executor walks it (GpuOptions::planIndex indexes it) and the C API
// lists it (graphPlanCount / graphPlanName ...). Pure functions: no GPU.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_ENGINE_PLANLIST_H
#define GRAPHDIALECT_ENGINE_PLANLIST_H

#include "GraphDialect/Runtime/CudnnGraph.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mlir {
namespace graph {

/// Engine ids of the codegen plans (cuDNN's are >= 0): codegen_v2_* (the
/// direct kernel generator) and codegen_v1 (the linalg path).
constexpr int64_t kCodegenV2EngineId = -2;
constexpr int64_t kCodegenV1EngineId = -3;
/// Knob types of codegen_v2 plans: threads per block, 16-byte items per
/// thread, and prefetch (1: row loads pipelined one row ahead, "_p").
constexpr int64_t kCodegenKnobThreads = 1000;
constexpr int64_t kCodegenKnobItems = 1001;
constexpr int64_t kCodegenKnobPrefetch = 1002;

/// One entry of a group's plan list.
struct PlanEntry {
  bool codegen = false; // a codegen plan, else a cuDNN plan
  /// Position in cuDNN's own plan list (heuristics then explicit), or in
  /// the codegen names the list was built from.
  size_t index = 0;
  std::string name;
};

/// The list of a group: the first `numHeuristic` of `cudnnNames` (cuDNN's
/// heuristics plans), then `codegenNames`, then the rest of `cudnnNames`
/// (explicit plans).
std::vector<PlanEntry>
groupPlanList(const std::vector<std::string> &cudnnNames, size_t numHeuristic,
              const std::vector<std::string> &codegenNames);

/// The codegen plans (codegenPlanNames(), in rank order) that can run
/// `spec`; `declined`, when given, gets a line per engine version that
/// cannot ("codegen_v2: <why>", "codegen_v1: <why>").
std::vector<std::string>
codegenPlansFor(const ::graph::rt::GraphSpec &spec,
                std::vector<std::string> *declined = nullptr);

/// Engine id and knobs of codegen plan `name` (kCodegenV2EngineId with
/// threads/items/prefetch knobs, or kCodegenV1EngineId without).
int64_t codegenEngineOf(const std::string &name,
                        std::vector<std::pair<int64_t, int64_t>> &knobs);

/// Whether `deselect` (GpuOptions::deselectEngines) excludes `entry`: its
/// name contains one of the strings, or the string "cudnn" names the whole
/// cuDNN engine (cuDNN plan names are "eng<id>...").
bool planDeselected(const PlanEntry &entry,
                    const std::vector<std::string> &deselect);

/// The entries of `list` to try, in order, into `order`: every entry, or
/// only `planIndex` when >= 0 (strict). Deselected entries are left out
/// with a line "<name>: deselected" in `declined`. Returns "" or the error:
/// `planIndex` out of range, or the pinned plan deselected.
std::string planWalk(const std::vector<PlanEntry> &list, int planIndex,
                     const std::vector<std::string> &deselect,
                     std::vector<size_t> &order,
                     std::vector<std::string> &declined);

/// The anchor of a graph's fused groups: the group whose plan list stands
/// for the graph's (the frontend indexes one plan list per graph; a graph
/// may lower to several groups here). It is the group with the most
/// principal ops (every kind but pointwise, reduction and the views
/// reshape/transpose/slice/concatenate), then with the most ops, the
/// earliest on a tie; 0 for an empty list. The other groups keep their own
/// lists and walk them (the first plan that builds).
size_t anchorGroup(const std::vector<::graph::rt::GraphSpec> &groups);

/// Every group index in anchor order: anchorGroup's ranking (most principal
/// ops, then most ops, then earliest). When the anchor has no plan (the
/// heuristics offer none, no codegen plan applies), the next group in this
/// order stands for the graph instead; execute splits the planless group.
std::vector<size_t>
anchorOrder(const std::vector<::graph::rt::GraphSpec> &groups);

} // namespace graph
} // namespace mlir

#endif // GRAPHDIALECT_ENGINE_PLANLIST_H
