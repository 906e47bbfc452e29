//===- GpuSession.cpp - One graph's GPU programs across executes ----------===//

#include "GraphDialect/Engine/GpuSession.h"

#include "GraphDialect/Conversion/GraphToCudnn.h"
#include "GraphDialect/Engine/PlanList.h"
#include "GraphDialect/Executable/ExecToRuntime.h"
#include "GraphDialect/Runtime/Device.h"
#include "GraphDialect/Support/Shape.h"

#include <cstdlib>
#include <optional>

using namespace mlir;
using namespace mlir::graph;
namespace ref = ::graph::ref;
namespace rt = ::graph::rt;
using ::graph::dimsMessageText;
using Code = SessionStatus::Code;

namespace {

/// Whether strides `a` and `b` address the elements of `dims` alike: the
/// stride of an extent-1 dim is never used, so it is not compared (a
/// [1,16,1,1] buffer with strides [16,1,1,1] is the graph's [16,1,16,16]).
bool sameLayout(ArrayRef<int64_t> dims, ArrayRef<int64_t> a,
                ArrayRef<int64_t> b) {
  if (ref::numElements(dims) <= 1)
    return true;
  if (a.size() != dims.size() || b.size() != dims.size())
    return false;
  for (size_t d = 0; d < dims.size(); ++d)
    if (dims[d] != 1 && a[d] != b[d])
      return false;
  return true;
}

} // namespace

std::string mlir::graph::gpuUnavailable() {
  std::string why;
  return rt::Device::get(why) ? "" : why;
}

void GpuSession::reset() {
  gpu.reset();
  gpuByShape.clear();
  lastPack.gpu = nullptr;
}

GpuOptions GpuSession::buildOptions(const std::string &name) const {
  GpuOptions options = planOptions;
  // GRAPH_AUTOTUNE=1: time every buildable plan and keep the fastest, each
  // checked against the CPU reference; GRAPH_AUTOTUNE=first: each checked
  // against the first plan that ran (full-size models).
  if (const char *tune = std::getenv("GRAPH_AUTOTUNE")) {
    bool first = std::string(tune) == "first";
    options.autotune |= std::string(tune) == "1" || first;
    options.autotuneAgainstFirst |= first;
  }
  // GRAPH_CODEGEN_CUBIN=1: codegen kernels as sm_90 cubin (ptxas at compile
  // time) instead of PTX, as graph-run --codegen-cubin.
  if (const char *cubin = std::getenv("GRAPH_CODEGEN_CUBIN"))
    options.codegenCubin |= std::string(cubin) == "1";
  if (plans && plans->graph == name) {
    options.heuristics = plans->modes;
    options.addedPlans = plans->added;
    options.planIndex = plans->selected;
    options.planGroup = plans->anchor;
    options.plannedGroups = &plans->planned;
  }
  return options;
}

//===----------------------------------------------------------------------===//
// Executes
//===----------------------------------------------------------------------===//

/// Builds the GPU program of `source` with the session's options; for a
/// graph with dynamic dims, of its copy specialized to `shapes`.
SessionStatus GpuSession::build(const SessionSource &source,
                                const std::vector<ref::Shape> &shapes,
                                std::shared_ptr<GpuExecutable> &built) {
  std::string graphName =
      (source.artifact ? "exec.program @" : "graph @") + source.name;
  // A missing GPU is the answer before any lowering question.
  if (std::string why = gpuUnavailable(); !why.empty())
    return {Code::NoDevice,
            "GRAPH_DEVICE_GPU: the GPU device is not available: " + why};
  GpuOptions options = buildOptions(source.name);
  GpuSource from;
  CudnnProgram program;
  if (source.artifact) {
    // The compiled artifact: rebuild its program.
    if (std::string e = exec::loadProgram(source.program, program); !e.empty())
      return {Code::NotSupported, e};
    from.program = &program;
  }
  from.graph = source.graph;
  from.inputShapes = shapes;
  // The front's lowering words its own status; keep it.
  SessionStatus lowering;
  auto lower = [&](OwningOpRef<ModuleOp> &holder, GraphOp &lowered) {
    lowering = source.lower(holder, lowered);
    return lowering.message;
  };
  from.lower = lower;
  std::string error;
  GpuBuildStep failed;
  built = buildGpuExecutable(from, options, error, failed);
  if (built)
    return {};
  if (failed == GpuBuildStep::Lower)
    return lowering.ok() ? SessionStatus(Code::NotSupported,
                                         graphName + ": lowering gave no graph")
                         : lowering;
  if (failed == GpuBuildStep::Specialize)
    return {Code::InvalidArgument, graphName + ": " + error};
  return {error.find("not available") != std::string::npos ? Code::NoDevice
                                                           : Code::NotSupported,
          graphName + ": " + error};
}

/// Runs `gpu` with `pointers` and waits unless the caller set a stream.
SessionStatus GpuSession::run(const std::shared_ptr<GpuExecutable> &gpu,
                              const std::vector<void *> &pointers) {
  rt::Device &device = gpu->device();
  // Recorded into a CUDA graph: the program lives as long as that graph.
  if (device.isCapturing())
    if (std::string error = device.keepWhileCaptured(gpu); !error.empty())
      return {Code::Execution, gpuLabel + ": " + error};
  if (std::string error = gpu->executeSlots(pointers); !error.empty())
    return {Code::Execution, gpuLabel + ": " + error};
  // On the caller's stream the work stays queued in order; on our own we
  // wait, so the caller may read the outputs right away.
  if (!device.hasCallerStream())
    if (std::string error = device.synchronize(); !error.empty())
      return {Code::Execution, gpuLabel + ": " + error};
  return {};
}

bool GpuSession::repeats(const std::string &name,
                         ArrayRef<PackBuffer> pack) const {
  if (!lastPack.gpu || gpuGraph != name || pack.size() != lastPack.uids.size())
    return false;
  std::string error;
  if (rt::Device::current(error) != gpuOrdinal)
    return false;
  for (size_t j = 0; j < pack.size(); ++j) {
    const PackBuffer &b = pack[j];
    if (b.uid != lastPack.uids[j] || b.dtype != lastPack.dtypes[j] ||
        b.dims != ArrayRef<int64_t>(lastPack.dims[j]) ||
        b.strides != ArrayRef<int64_t>(lastPack.strides[j]) || !b.data)
      return false;
  }
  return true;
}

SessionStatus GpuSession::runRepeated(ArrayRef<PackBuffer> pack) {
  for (size_t j = 0; j < pack.size(); ++j)
    if (lastPack.slots[j] != kNoSlot)
      lastPack.pointers[lastPack.slots[j]] = pack[j].data;
  return run(lastPack.gpu, lastPack.pointers);
}

SessionStatus GpuSession::execute(const SessionSource &source,
                                  ArrayRef<PackBuffer> pack,
                                  ArrayRef<BoundTensor> inputs,
                                  ArrayRef<BoundTensor> outputs) {
  std::string why;
  int ordinal = rt::Device::current(why);
  if (ordinal < 0)
    return {Code::NoDevice,
            "GRAPH_DEVICE_GPU: the GPU device is not available: " + why};
  if (gpuGraph != source.name || gpuOrdinal != ordinal) {
    reset();
    gpuGraph = source.name;
    gpuOrdinal = ordinal;
  }
  gpuLabel = (source.artifact ? "exec.program @" : "graph @") + source.name;
  bool dynamic = !source.artifact && hasDynamicInputs(source.graph);
  std::shared_ptr<GpuExecutable> program = gpu;
  if (dynamic) {
    std::vector<ref::Shape> shapes;
    std::vector<int64_t> signature;
    for (const BoundTensor &input : inputs) {
      shapes.emplace_back(input.dims.begin(), input.dims.end());
      signature.push_back(static_cast<int64_t>(input.dims.size()));
      signature.insert(signature.end(), input.dims.begin(), input.dims.end());
    }
    std::shared_ptr<GpuExecutable> &slot = gpuByShape[signature];
    if (!slot) {
      if (SessionStatus s = build(source, shapes, slot); !s.ok()) {
        gpuByShape.erase(signature);
        return s;
      }
    }
    program = slot;
  } else if (!program) {
    if (SessionStatus s = build(source, {}, gpu); !s.ok())
      return s;
    program = gpu;
  }

  // Device pointers cannot be re-laid out here: they must match, and with
  // dynamic dims an output's computed dims must be the buffer's.
  const CudnnProgram &lowered = program->program();
  std::map<int64_t, void *> pointers;
  auto bind = [&](ArrayRef<BoundTensor> tensors) -> SessionStatus {
    for (const BoundTensor &b : tensors) {
      for (const DeviceTensor &t : lowered.tensors) {
        if (t.uid != b.uid)
          continue;
        if (ArrayRef<int64_t>(t.dims) != b.dims)
          return {Code::InvalidArgument,
                  b.label + ": the graph computed dims " +
                      dimsMessageText(t.dims) + " but the buffer has " +
                      dimsMessageText(b.dims)};
        if (!sameLayout(b.dims, t.strides, b.strides))
          return {Code::InvalidArgument,
                  b.label +
                      ": on the GPU the buffer must have the graph's "
                      "strides " +
                      dimsMessageText(t.strides) + " but has " +
                      dimsMessageText(b.strides)};
      }
      // A buffer of another GPU would fault in the kernels: say so.
      rt::Device &device = program->device();
      int owner = device.pointerOrdinal(b.data);
      if (owner >= 0 && owner != device.ordinal())
        return {Code::InvalidArgument,
                b.label + ": the buffer is on GPU " + std::to_string(owner) +
                    " but the graph runs on GPU " +
                    std::to_string(device.ordinal()) + " (execute with GPU " +
                    std::to_string(owner) +
                    " selected: graphSetDevice, or the handle's device)"};
      pointers[b.uid] = b.data;
    }
    return {};
  };
  if (SessionStatus s = bind(inputs); !s.ok())
    return s;
  if (SessionStatus s = bind(outputs); !s.ok())
    return s;

  // Record the variant pack: buffer j -> slot among the program's ioUids.
  lastPack.gpu = nullptr;
  const std::vector<int64_t> &ioUids = program->ioUids();
  lastPack.pointers.assign(ioUids.size(), nullptr);
  lastPack.slots.assign(pack.size(), kNoSlot);
  for (size_t k = 0; k < ioUids.size(); ++k) {
    auto it = pointers.find(ioUids[k]);
    if (it == pointers.end())
      return {Code::Execution, gpuLabel + ": no buffer for the program's uid " +
                                   std::to_string(ioUids[k])};
    lastPack.pointers[k] = it->second;
    for (size_t j = 0; j < pack.size(); ++j)
      if (pack[j].uid == ioUids[k])
        lastPack.slots[j] = k;
  }
  if (SessionStatus s = run(program, lastPack.pointers); !s.ok())
    return s;
  lastPack.uids.resize(pack.size());
  lastPack.dtypes.resize(pack.size());
  lastPack.dims.resize(pack.size());
  lastPack.strides.resize(pack.size());
  for (size_t j = 0; j < pack.size(); ++j) {
    lastPack.uids[j] = pack[j].uid;
    lastPack.dtypes[j] = pack[j].dtype;
    lastPack.dims[j].assign(pack[j].dims.begin(), pack[j].dims.end());
    lastPack.strides[j].assign(pack[j].strides.begin(), pack[j].strides.end());
  }
  lastPack.gpu = program;
  return {};
}

//===----------------------------------------------------------------------===//
// Plan list and options
//===----------------------------------------------------------------------===//

SessionStatus GpuSession::createPlanList(const SessionSource &source,
                                         rt::Device &device,
                                         std::vector<rt::HeurMode> modes) {
  std::string graphName = "graph @" + source.name;
  auto list = std::make_unique<PlanList>();
  list->graph = source.name;
  list->ordinal = device.ordinal();
  list->modes = modes.empty() ? GpuOptions().heuristics : std::move(modes);
  OwningOpRef<ModuleOp> clone;
  GraphOp graph;
  if (SessionStatus s = source.lower(clone, graph); !s.ok())
    return s;
  if (std::string e =
          lowerToCudnn(graph, list->program, nullptr, /*foldViews=*/true);
      !e.empty())
    return {Code::NotSupported, graphName + ": " + e};
  if (list->program.groups.empty())
    return {Code::NotSupported, graphName + ": no fused group to plan (every "
                                            "output is an input)"};
  // The graph's plan list is its anchor group's; the other groups walk
  // their own lists when executed. An anchor without plans is split by
  // execute; the next group in anchor order stands for the graph then. A
  // single op without plans cannot be split: no execute could run the
  // graph, so planning says so now (the frontend's answer, which its
  // programs skip on).
  GroupPlanRequest request;
  request.heuristics = list->modes;
  std::string firstRefusal;
  std::optional<size_t> firstRefused;
  for (size_t index : anchorOrder(list->program.groups)) {
    const rt::GraphSpec &group = list->program.groups[index];
    if (list->plans && group.ops.size() > 1)
      continue; // the anchor is chosen; execute splits this one if need be
    // The engines' plans, ranked (GroupPlans.h, as GpuExecutor walks them).
    auto plans = std::make_unique<GroupPlans>(device, group, request);
    if (!plans->entries().empty()) {
      if (!list->plans) {
        list->groupIndex = index;
        list->anchor = group.name;
        list->plans = std::move(plans);
      } else {
        list->planned.push_back(std::move(plans)); // the executor's
      }
      continue;
    }
    std::string cudnnWhy;
    if (plans->cudnnState() == CudnnPlans::NoPlan)
      cudnnWhy = "the heuristics offered no plan" +
                 (plans->cudnnError().empty() ? std::string()
                                              : ": " + plans->cudnnError());
    else
      cudnnWhy = "cuDNN rejects the operation graph: " + plans->cudnnError();
    std::string why;
    for (const std::string &line : plans->codegenDeclined())
      why += "; " + line;
    std::string refusal = graphName + ": group '" + group.name +
                          "': " + cudnnWhy + ", and no codegen plan applies" +
                          why;
    if (group.ops.size() <= 1)
      return {Code::NotSupported, refusal};
    if (firstRefusal.empty()) {
      firstRefusal = refusal;
      firstRefused = index;
    }
    list->planned.push_back(std::move(plans)); // the executor's, to split
  }
  // No group has plans, but execute splits a multi-op group: the plans of
  // the first refused group's first op (the piece execute prepares first)
  // stand for the graph. E.g. batchnorm + relu + a compare, which cuDNN's
  // heuristics offer nothing for fused (H200, cuDNN 9.19).
  if (!list->plans && firstRefused) {
    const rt::GraphSpec &group = list->program.groups[*firstRefused];
    rt::GraphSpec head = splitGroupSpec(group).first;
    auto plans = std::make_unique<GroupPlans>(device, head, request);
    if (plans->entries().empty())
      return {Code::NotSupported, firstRefusal + "; split, its first op '" +
                                      head.ops.front().name +
                                      "' has no plan either"};
    list->groupIndex = *firstRefused;
    list->anchor = head.name;
    list->plans = std::move(plans);
  }
  if (!list->plans)
    return {Code::NotSupported, firstRefusal};
  this->plans = std::move(list);
  reset();
  return {};
}

GpuSession::PlanList *GpuSession::planList(const std::string &name) {
  return plans && plans->graph == name ? plans.get() : nullptr;
}

void GpuSession::selectPlan(int index) {
  if (plans && plans->selected != index) {
    plans->selected = index;
    reset(); // the next execute builds the pinned plan
  }
}

SessionStatus
GpuSession::addPlan(PlanList &list, const char *call, int64_t engineId,
                    const std::vector<std::pair<int64_t, int64_t>> &knobs,
                    int32_t &index) {
  if (engineId < 0)
    return {Code::InvalidArgument,
            std::string(call) + ": engine id " + std::to_string(engineId) +
                " is negative (the codegen plans are in the list already; "
                "only cuDNN engines are added)"};
  if (!list.plans->cudnn())
    return {Code::NotSupported,
            std::string(call) + ": engine " + std::to_string(engineId) +
                ": cuDNN has no plan list for this group (its list is the "
                "codegen plans)"};
  if (std::string e = list.plans->addPlan(engineId, knobs); !e.empty())
    return {Code::NotSupported, std::string(call) + ": engine " +
                                    std::to_string(engineId) + ": " + e};
  list.added.emplace_back(engineId, knobs);
  // Explicit plans come last: earlier indices stay.
  index = static_cast<int32_t>(list.plans->entries().size()) - 1;
  return {};
}

std::string GpuSession::buildPlan(PlanList &list, size_t index) {
  if (auto it = list.batchDeclines.find(index);
      it != list.batchDeclines.end()) {
    std::string why = std::move(it->second);
    list.batchDeclines.erase(it);
    return why;
  }
  // Codegen plans compile and load once, the way the next execute's build
  // compiles them (PTX, or cubin under the codegenCubin option); executes
  // compile their own.
  return list.plans->build(index, buildOptions(list.graph).codegenCubin,
                           /*keepKernels=*/false);
}

std::vector<std::string>
GpuSession::buildPlans(PlanList &list, const std::vector<size_t> &indices) {
  std::vector<std::string> why = list.plans->buildMany(
      indices, buildOptions(list.graph).codegenCubin, /*keepKernels=*/false);
  list.batchDeclines.clear();
  for (size_t k = 0; k < indices.size(); ++k)
    if (!why[k].empty())
      list.batchDeclines[indices[k]] = why[k];
  return why;
}

void GpuSession::setPlanOptions(const std::vector<std::string> &deselect,
                                int64_t workspaceLimit, bool autotune) {
  if (planOptions.deselectEngines == deselect &&
      planOptions.workspaceLimit == workspaceLimit &&
      planOptions.autotune == autotune)
    return; // the built program stays
  planOptions.deselectEngines = deselect;
  planOptions.workspaceLimit = workspaceLimit;
  planOptions.autotune = autotune;
  reset();
}
