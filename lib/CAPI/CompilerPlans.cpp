//===- CompilerPlans.cpp - GPU plan list of the C++ API ---------*- C++ -*-===//
//
// The CompiledGraph calls over the engine layer's plan list of the selected
// graph (graphPlanCreate and friends in GraphDialect-c/Graph.h): create it,
// count, describe, build, pin and add plans, and set the plan options of
// the next GPU executes. Every call answers GRAPH_ERROR_NO_DEVICE without a
// usable GPU or when the GPU runtime is not linked in.
//
//===----------------------------------------------------------------------===//

#include "CompilerInternal.h"

#ifdef GRAPH_HAVE_GPU_RUNTIME
#include "GraphDialect/Engine/PlanList.h"
#include "GraphDialect/Runtime/CudnnGraph.h"
#include "GraphDialect/Runtime/Device.h"
#endif

#include <optional>

using namespace mlir;
using ::graph::CompiledGraph;
using ::graph::Status;
using ::graph::capi::emptyGraph;
using mlir::graph::GraphOp;
namespace capi = ::graph::capi;

namespace {

#ifdef GRAPH_HAVE_GPU_RUNTIME
namespace rt = ::graph::rt;

static_assert(
    GRAPH_CODEGEN_V2_ENGINE_ID == mlir::graph::kCodegenV2EngineId &&
        GRAPH_CODEGEN_V1_ENGINE_ID == mlir::graph::kCodegenV1EngineId &&
        GRAPH_CODEGEN_KNOB_THREADS == mlir::graph::kCodegenKnobThreads &&
        GRAPH_CODEGEN_KNOB_ITEMS == mlir::graph::kCodegenKnobItems &&
        GRAPH_CODEGEN_KNOB_PREFETCH == mlir::graph::kCodegenKnobPrefetch,
    "Graph.h's codegen ids are PlanList.h's");
static_assert(GRAPH_KNOB_ALTERNATE_DESCRIPTION == rt::kAlternateKnob,
              "Graph.h's alternate-description knob is CudnnGraph.h's");

/// The usable device, or NO_DEVICE naming `call` and why.
Status needDevice(const char *call, rt::Device *&device) {
  std::string error;
  device = rt::Device::get(error);
  if (!device)
    return Status(GRAPH_ERROR_NO_DEVICE,
                  std::string(call) +
                      ": the GPU device is not available: " + error);
  return Status();
}
#endif

/// The prologue every plan-list call shares. It checks, in this order, each
/// answer naming `call`:
///  - that the CompiledGraph holds a module (else INVALID_ARGUMENT);
///  - `args`, the call's own argument checks, made by the caller;
///  - that the GPU runtime is linked into this build (else NO_DEVICE);
///  - what `need` asks for: a usable GPU (Device; else NO_DEVICE), or the
///    selected graph's plan list (List; NO_DEVICE without a GPU, else
///    INVALID_ARGUMENT when graphPlanCreate was not called for this graph),
///    and `index` among its plans (Plan; PlanOrNone also takes -1, unpin).
/// When they all hold, `status` is GRAPH_OK and the context's lock is held
/// until the call returns.
struct PlanCall {
  enum class Need { Device, List, Plan, PlanOrNone };

  PlanCall(CompiledGraph::Impl *impl, const char *call, Need need,
           Status args = Status(), int32_t index = -1);
  bool ok() const { return status.ok(); }

  Status status;
#ifdef GRAPH_HAVE_GPU_RUNTIME
  std::unique_lock<std::mutex> lock;
  std::optional<rt::CallerContext> keep; // the caller's current device
  std::optional<rt::RelaxedCaptureMode> relaxed; // builds may allocate
  rt::Device *device = nullptr;          // Need::Device
  mlir::graph::GpuSession::PlanList *list = nullptr; // Need::List and later
#endif
};

PlanCall::PlanCall(CompiledGraph::Impl *impl, const char *call, Need need,
                   Status args, int32_t index) {
  if (!impl) {
    status = emptyGraph(call);
    return;
  }
  if (!args.ok()) {
    status = std::move(args);
    return;
  }
#ifndef GRAPH_HAVE_GPU_RUNTIME
  status = Status(GRAPH_ERROR_NO_DEVICE,
                  std::string(call) +
                      ": the GPU runtime is not linked into this build; plan "
                      "lists are GPU only (the CPU reference is one plan)");
#else
  lock = std::unique_lock<std::mutex>(impl->compiler->mutex);
  keep.emplace();
  relaxed.emplace();
  rt::releaseCapturedOwners();
  if (need == Need::Device) {
    status = needDevice(call, device);
    return;
  }
  list = impl->gpu.planList(impl->selected);
  if (!list) {
    status = needDevice(call, device);
    if (status.ok())
      status = Status(GRAPH_ERROR_INVALID_ARGUMENT,
                      std::string(call) + ": graph @" + impl->selected +
                          " has no plan list; call graphPlanCreate first");
    return;
  }
  // The list's groups run on the device they were built on.
  std::string error;
  if (!rt::Device::get(list->ordinal, error)) {
    status = Status(GRAPH_ERROR_NO_DEVICE,
                    std::string(call) +
                        ": the GPU device is not available: " + error);
    return;
  }
  if (need == Need::List)
    return;
  bool allowNone = need == Need::PlanOrNone;
  size_t count = list->plans->entries().size();
  if ((allowNone && index == -1) ||
      (index >= 0 && static_cast<size_t>(index) < count))
    return;
  status = Status(GRAPH_ERROR_INVALID_ARGUMENT,
                  std::string(call) + ": plan index " + std::to_string(index) +
                      " is out of range for " + std::to_string(count) +
                      " plan(s)" + (allowNone ? " (-1 unpins)" : ""));
#endif
}

/// graphPlanCreate's own argument checks (both builds make them).
Status checkPlanCreateArgs(const char *call, GraphDevice device,
                           const std::vector<int> &heurModes) {
  if (device != GRAPH_DEVICE_GPU)
    return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                  std::string(call) + ": device " +
                      std::to_string(static_cast<int>(device)) +
                      " has no plan list; only GRAPH_DEVICE_GPU has one (the "
                      "CPU reference is a single plan)");
  for (int mode : heurModes)
    if (mode < GRAPH_HEUR_MODE_A || mode > GRAPH_HEUR_MODE_FALLBACK)
      return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                    std::string(call) + ": unknown heuristics mode " +
                        std::to_string(mode) +
                        " (GRAPH_HEUR_MODE_A, _B or _FALLBACK)");
  return Status();
}

/// graphSetPlanOptions' own argument checks (both builds make them).
Status checkPlanOptionsArgs(const char *call, int64_t workspaceLimit) {
  if (workspaceLimit < -1)
    return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                  std::string(call) + ": workspace limit " +
                      std::to_string(workspaceLimit) +
                      " is negative (-1: no limit)");
  return Status();
}

using Need = PlanCall::Need;

} // namespace

Status CompiledGraph::planCreate(GraphDevice device,
                                 const std::vector<int> &heurModes) {
  const char *call = "graphPlanCreate";
  PlanCall plan(impl.get(), call, Need::Device,
                checkPlanCreateArgs(call, device, heurModes));
  if (!plan.ok())
    return plan.status;
#ifdef GRAPH_HAVE_GPU_RUNTIME
  if (impl->artifact)
    return Status(GRAPH_ERROR_NOT_SUPPORTED,
                  std::string(call) + ": exec.program @" + impl->selected +
                      " is a compiled artifact: its groups' heuristics are "
                      "recorded in it and it has no plan list (graphSet"
                      "PlanOptions still applies)");
  std::vector<rt::HeurMode> modes;
  for (int mode : heurModes)
    modes.push_back(mode == GRAPH_HEUR_MODE_A   ? rt::HeurMode::A
                    : mode == GRAPH_HEUR_MODE_B ? rt::HeurMode::B
                                                : rt::HeurMode::Fallback);
  capi::LowerFn lower = [&](OwningOpRef<ModuleOp> &clone, GraphOp &graph) {
    return capi::lowerForGpu(*impl, clone, graph);
  };
  return capi::fromSession(impl->gpu.createPlanList(
      capi::sessionSource(*impl, lower), *plan.device, std::move(modes)));
#endif
  return Status();
}

Status CompiledGraph::planCount(int32_t &plans, int32_t &groups) const {
  plans = groups = -1;
  PlanCall plan(impl.get(), "graphPlanCount", Need::List);
  if (!plan.ok())
    return plan.status;
#ifdef GRAPH_HAVE_GPU_RUNTIME
  plans = static_cast<int32_t>(plan.list->plans->entries().size());
  groups = static_cast<int32_t>(plan.list->program.groups.size());
#endif
  return Status();
}

Status CompiledGraph::planGroup(int32_t &group) const {
  group = -1;
  PlanCall plan(impl.get(), "graphPlanGroup", Need::List);
  if (!plan.ok())
    return plan.status;
#ifdef GRAPH_HAVE_GPU_RUNTIME
  group = static_cast<int32_t>(plan.list->groupIndex);
#endif
  return Status();
}

Status CompiledGraph::planInfo(int32_t index, PlanDesc &out) const {
  out = PlanDesc();
  PlanCall plan(impl.get(), "graphPlanInfo", Need::Plan, Status(), index);
  if (!plan.ok())
    return plan.status;
#ifdef GRAPH_HAVE_GPU_RUNTIME
  mlir::graph::PlanDetails details = plan.list->plans->details(index);
  out.name = std::move(details.name);
  out.engineId = details.engineId;
  out.knobs = std::move(details.knobs);
  out.built = details.built;
  out.workspace = details.workspace;
  out.error = std::move(details.error);
  out.behaviorNotes = std::move(details.behaviorNotes);
  out.numericNotes = std::move(details.numericNotes);
#endif
  return Status();
}

Status CompiledGraph::planBuild(int32_t index) {
  const char *call = "graphPlanBuild";
  PlanCall plan(impl.get(), call, Need::Plan, Status(), index);
  if (!plan.ok())
    return plan.status;
#ifdef GRAPH_HAVE_GPU_RUNTIME
  const mlir::graph::PlanEntry &entry = plan.list->plans->entries()[index];
  std::string why = impl->gpu.buildPlan(*plan.list, index);
  if (!why.empty())
    return Status(GRAPH_ERROR_NOT_SUPPORTED, "plan " + std::to_string(index) +
                                                 " (" + entry.name +
                                                 ") declined: " + why);
#endif
  return Status();
}

Status CompiledGraph::planBuildMany(const std::vector<int32_t> &indices) {
  const char *call = "graphPlanBuildMany";
  PlanCall plan(impl.get(), call, Need::List);
  if (!plan.ok())
    return plan.status;
#ifdef GRAPH_HAVE_GPU_RUNTIME
  size_t count = plan.list->plans->entries().size();
  std::vector<size_t> entries;
  for (int32_t index : indices) {
    if (index < 0 || static_cast<size_t>(index) >= count)
      return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                    std::string(call) + ": plan index " +
                        std::to_string(index) +
                        " is out of range (the list has " +
                        std::to_string(count) + " plans)");
    entries.push_back(static_cast<size_t>(index));
  }
  std::vector<std::string> why = impl->gpu.buildPlans(*plan.list, entries);
  Status first;
  for (size_t k = 0; k < entries.size(); ++k) {
    if (!why[k].empty() && first.ok())
      first = Status(GRAPH_ERROR_NOT_SUPPORTED,
                     "plan " + std::to_string(indices[k]) + " (" +
                         plan.list->plans->entries()[entries[k]].name +
                         ") declined: " + why[k]);
  }
  return first;
#else
  return Status();
#endif
}

Status CompiledGraph::planSelect(int32_t index) {
  PlanCall plan(impl.get(), "graphPlanSelect", Need::PlanOrNone, Status(),
                index);
  if (!plan.ok())
    return plan.status;
#ifdef GRAPH_HAVE_GPU_RUNTIME
  impl->gpu.selectPlan(index);
#endif
  return Status();
}

Status
CompiledGraph::planAdd(int64_t engineId,
                       const std::vector<std::pair<int64_t, int64_t>> &knobs,
                       int32_t &index) {
  const char *call = "graphPlanAdd";
  index = -1;
  PlanCall plan(impl.get(), call, Need::List);
  if (!plan.ok())
    return plan.status;
#ifdef GRAPH_HAVE_GPU_RUNTIME
  return capi::fromSession(
      impl->gpu.addPlan(*plan.list, call, engineId, knobs, index));
#endif
  return Status();
}

Status CompiledGraph::setPlanOptions(const std::vector<std::string> &deselect,
                                     int64_t workspaceLimit, bool autotune) {
  const char *call = "graphSetPlanOptions";
  PlanCall plan(impl.get(), call, Need::Device,
                checkPlanOptionsArgs(call, workspaceLimit));
  if (!plan.ok())
    return plan.status;
#ifdef GRAPH_HAVE_GPU_RUNTIME
  impl->gpu.setPlanOptions(deselect, workspaceLimit, autotune);
#endif
  return Status();
}
