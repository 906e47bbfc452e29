//===- GroupPlans.h - Build one group's ranked plans on the GPU -*- C++ -*-===//
//
// The one builder of a fused group's plan list on a device: it asks each GPU
// engine, in the rank the engine registry gives (the group's own ranking
// from graph-select-engines, else getDefaultEngineRanking()), for its plans:
// cuDNN's heuristics plans (or an artifact's recorded engine), the codegen
// plans that apply; the explicit cuDNN plans come last so their indices
// never move (PlanList.h's order). A large group's heuristics plans may be
// reordered once by measured time (rankByTime; the same order for every
// list of the group in the process). An engine graph-select-engines did not
// choose for the group (rt::GraphSpec::allows) is not asked. It builds the
// plans it lists and remembers what happened; the GPU executor walks it and
// the C API's plan calls list it, each wording its own messages from the
// states recorded here.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_ENGINE_GROUPPLANS_H
#define GRAPHDIALECT_ENGINE_GROUPPLANS_H

#include "GraphDialect/Engine/PlanList.h"
#include "GraphDialect/Runtime/CodegenKernel.h"
#include "GraphDialect/Runtime/CudnnGraph.h"
#include "GraphDialect/Runtime/Program.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir {
namespace graph {

/// The GPU engines of `spec`'s plan list in rank order: the group's own
/// ranking (graph-select-engines' choice) when it has one, else the
/// registry's default ranking; names the registry does not know or that
/// have no GPU plans (the reference) are left out.
std::vector<std::string> gpuEngineRanking(const ::graph::rt::GraphSpec &spec);

/// Whether `a` and `b` describe the same group to the engines: the same
/// name, engine choice, op labels, and tensors and ops
/// (::graph::rt::canonicalKey), so a plan list built for one is the other's.
bool sameGroupSpec(const ::graph::rt::GraphSpec &a,
                   const ::graph::rt::GraphSpec &b);

/// `spec` cut after its first op (the matmul, convolution, norm or
/// attention a group is anchored on): the piece of that op ("<name>.0") and
/// the piece of the rest ("<name>.1"), each with the tensors its ops use.
/// Tensors virtual inside `spec` that cross the cut are not virtual in
/// either piece (the caller gives them memory). The pieces name no engine
/// (any engine may try them). `spec` needs two ops.
std::pair<::graph::rt::GraphSpec, ::graph::rt::GraphSpec>
splitGroupSpec(const ::graph::rt::GraphSpec &spec);

/// Times built cuDNN plans `indices` of `group` (made for `spec`) on
/// scratch buffers with seeded inputs, each checked against the first that
/// ran (within twice the device bound): `ms[i]` is plan `indices[i]`'s
/// milliseconds per run, -1 where it failed or disagreed (`notes` says
/// why, one line per plan). Fails when none is correct or no scratch fits.
std::string timeCudnnPlans(::graph::rt::Device &device,
                           const ::graph::rt::GraphSpec &spec,
                           ::graph::rt::CudnnGroup &group,
                           const std::vector<size_t> &indices,
                           std::vector<double> &ms,
                           std::vector<std::string> &notes);

/// timeCudnnPlans with generated plans too: `generated` (name and loaded
/// kernels) are timed after cuDNN's, `ms` holds the cuDNN plans' times
/// then theirs.
std::string timeGroupPlans(
    ::graph::rt::Device &device, const ::graph::rt::GraphSpec &spec,
    ::graph::rt::CudnnGroup &group, const std::vector<size_t> &indices,
    std::vector<
        std::pair<std::string, std::unique_ptr<::graph::rt::CodegenKernel>>>
        &generated,
    std::vector<double> &ms, std::vector<std::string> &notes);

/// How a group's list is asked for.
struct GroupPlanRequest {
  /// cuDNN's heuristics modes.
  std::vector<::graph::rt::HeurMode> heuristics = {
      ::graph::rt::HeurMode::A, ::graph::rt::HeurMode::Fallback};
  /// An artifact's recorded choice for the group: its engine id (>= 0)
  /// stands where the heuristics' plans do, its heuristics modes (when
  /// given) replace `heuristics`. Null: none.
  const ::graph::rt::GroupEngine *recorded = nullptr;
  /// false: cuDNN is not asked (the caller deselected it as a whole).
  bool askCudnn = true;
};

/// Why cuDNN has plans in the list or not.
enum class CudnnPlans {
  Listed,    // its plans are in the list
  NotAsked,  // GroupPlanRequest::askCudnn was false
  NotChosen, // graph-select-engines did not choose it for the group
  Rejected,  // it rejects the operation graph (cudnnError says why)
  NoPlan,    // the heuristics offered none (cudnnError: their reason or "")
};

/// What the C API's plan queries show of one entry.
struct PlanDetails {
  std::string name;
  int64_t engineId = -1; // cuDNN's (>= 0) or kCodegenV*EngineId
  std::vector<std::pair<int64_t, int64_t>> knobs;
  bool built = false;
  int64_t workspace = 0;
  std::string error; // why building it failed, when it did
  std::vector<std::string> behaviorNotes, numericNotes;
};

class GroupPlans {
public:
  /// Asks the engines for the plans of `spec` on `device` (which must
  /// outlive this list).
  GroupPlans(::graph::rt::Device &device, const ::graph::rt::GraphSpec &spec,
             const GroupPlanRequest &request);

  const ::graph::rt::GraphSpec &spec() const { return groupSpec; }
  /// The ranked list (PlanList.h's PlanEntry: the cuDNN index is in the
  /// CudnnGroup's list, the codegen one in codegenNames()).
  const std::vector<PlanEntry> &entries() const { return list; }

  /// cuDNN's state, its operation graph (null unless it accepted the
  /// group) and how many of its plans came from the heuristics (or the
  /// recorded engine).
  CudnnPlans cudnnState() const { return state; }
  /// Rejected: cuDNN's error; NoPlan: the heuristics' reason (may be "");
  /// NotChosen: the reason in words.
  const std::string &cudnnError() const { return cudnnWhy; }
  ::graph::rt::CudnnGroup *cudnn() const { return group.get(); }
  std::unique_ptr<::graph::rt::CudnnGroup> takeCudnn() {
    used = true;
    return std::move(group);
  }
  size_t numHeuristic() const { return heuristicCount; }

  /// Whether graph-select-engines chose the codegen engine, its plans that
  /// apply and one line per engine version that declines
  /// ("codegen_v2: <why>", "codegen_v1: <why>").
  bool codegenChosen() const { return codegenAsked; }
  const std::vector<std::string> &codegenNames() const { return codegen; }
  const std::vector<std::string> &codegenDeclined() const { return codegenWhy; }

  /// Appends an explicit cuDNN plan (the list's last index): "" or cuDNN's
  /// error. Needs cudnn().
  std::string addPlan(int64_t engineId,
                      const std::vector<std::pair<int64_t, int64_t>> &knobs);

  /// Builds entry `index`: finalizes the cuDNN plan, or compiles the
  /// codegen plan's kernels (cubin or PTX) and loads them, once (a second
  /// call answers the first's result; a plan the ranking compiled and timed
  /// is already built as PTX, and a cubin build compiles it again);
  /// `keepKernels` false unloads them again (a listing only asks whether
  /// they load). "" or why it declined.
  std::string build(size_t index, bool cubin, bool keepKernels = true);
  /// Builds entries `indices` as build() would, cuDNN's plans on up to 8
  /// threads at once (GRAPH_PLAN_BUILD_THREADS; build_plans with the ALL
  /// policy); each one's answer, in the order of `indices`.
  std::vector<std::string> buildMany(const std::vector<size_t> &indices,
                                     bool cubin, bool keepKernels = true);
  /// The kernels build() loaded for codegen entry `index` (then gone from
  /// here) and their launch count; null when it has none.
  std::unique_ptr<::graph::rt::CodegenKernel> takeKernels(size_t index,
                                                          size_t &launches);

  /// Entry `index` as the plan queries show it.
  PlanDetails details(size_t index) const;
  /// What ranking cuDNN's plans by time did (rankByTime): one line per plan
  /// timed and the outcome; empty when the group was not ranked.
  const std::vector<std::string> &rankingNotes() const { return ranked; }

  /// Whether this list is the one GroupPlans(device, spec, request) would
  /// make now: asked on `device` for the same group (sameGroupSpec) with
  /// the same heuristics and cuDNN choice, no recorded engine in either
  /// request, and nothing added, built or taken from it since.
  bool answers(const ::graph::rt::Device &device,
               const ::graph::rt::GraphSpec &spec,
               const GroupPlanRequest &request) const;

private:
  void rebuildEntries();
  /// For a large group: builds the heuristics' first plan of each of their
  /// first engines (of the group's own graph and of an alternate
  /// description), the first engine's next knob variants and, where cuDNN
  /// ranks before codegen, the first generated plans, times them, and
  /// lists the fastest first when it beats the heuristics' first plan
  /// clearly (a choice kept per process, so every list made for the group
  /// agrees on its indices).
  void rankByTime();

  ::graph::rt::Device &device;
  GroupPlanRequest asked; // the request it was made for (`recorded`: is it
                          // null, only)
  bool used = false;      // addPlan, build, takeCudnn or takeKernels ran
  ::graph::rt::GraphSpec groupSpec;
  std::vector<std::string> ranking;
  CudnnPlans state = CudnnPlans::Listed;
  std::string cudnnWhy;
  std::unique_ptr<::graph::rt::CudnnGroup> group;
  size_t heuristicCount = 0;
  /// The order of cuDNN's heuristics plans in the list (indices into the
  /// CudnnGroup's plans); rankByTime may move one to the front.
  std::vector<size_t> heuristicOrder;
  std::vector<std::string> ranked;
  bool codegenAsked = false;
  std::vector<std::string> codegen, codegenWhy;
  /// Per codegen plan: whether build() was asked (or the ranking compiled
  /// it, then `ptx`), its kernels and why they did not build.
  struct CodegenBuild {
    bool tried = false;
    bool ptx = false;
    std::string error;
    std::unique_ptr<::graph::rt::CodegenKernel> kernels;
    size_t launches = 0;
  };
  std::vector<CodegenBuild> builds;
  /// A generated plan the ranking found fastest (index into `codegen`):
  /// listed before every other plan.
  std::optional<size_t> leadingCodegen;
  std::vector<PlanEntry> list;
};

} // namespace graph
} // namespace mlir

#endif // GRAPHDIALECT_ENGINE_GROUPPLANS_H
