//===- GpuExecutor.cpp - Run a graph's cuDNN groups on the GPU -----------===//
//
// Walks each group's ranked plan list the way the frontend does: the first
// plan that builds runs; plans deselected by name or over the workspace
// limit are skipped; a group no plan builds is split into single ops, and
// only an op no plan runs is an error, listing each plan tried and why.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Conversion/GraphToCudnn.h"

#include "GraphDialect/Conversion/GraphToCodegen.h"

#include "GraphDialect/GraphOps.h"

#include <algorithm>
#include <map>
#include <set>

using namespace mlir;
using namespace mlir::graph;
namespace ref = ::graph::ref;
namespace rt = ::graph::rt;

namespace {

size_t bytesOf(ref::DType dtype, const ref::Shape &dims,
               const ref::Shape &strides) {
  return static_cast<size_t>(ref::spanElements(dims, strides)) *
         ref::byteWidth(dtype);
}

/// Device memory of one execute; freed when it goes out of scope.
class Buffers {
public:
  explicit Buffers(rt::Device &device) : device(device) {}
  ~Buffers() {
    for (void *pointer : owned)
      device.free(pointer);
  }
  void *allocate(size_t bytes, std::string &error) {
    void *pointer = device.alloc(std::max<size_t>(bytes, 16), error);
    if (pointer)
      owned.push_back(pointer);
    return pointer;
  }
  std::map<int64_t, void *> byUid;

private:
  rt::Device &device;
  std::vector<void *> owned;
};

struct ReadyGroup {
  std::unique_ptr<rt::CudnnGroup> group;
  std::unique_ptr<rt::CodegenKernel> kernels; // set: a codegen group
  size_t plan = 0;
  void *workspace = nullptr;
};

class GpuRun : public GpuExecutable {
public:
  GpuRun(rt::Device &device, const GpuOptions &options,
         std::vector<GpuGroupReport> *report)
      : gpu(device), buffers(device), options(options), report(report) {}

  /// Device memory for the tensors that cross groups.
  std::string allocateIntermediates();
  std::string prepare(const rt::GraphSpec &spec,
                      const GroupEngine *engine = nullptr);
  std::string execute(const std::map<int64_t, void *> &user) override;
  const CudnnProgram &program() const override { return lowered; }
  rt::Device &device() override { return gpu; }

  CudnnProgram lowered;

private:
  std::string split(const rt::GraphSpec &spec, const std::string &why);
  /// Runs `spec` with generated kernels (codegen_v1) after cuDNN declined
  /// it for `why` (or was deselected); "" when it does, else both reasons.
  std::string codegen(const rt::GraphSpec &spec, const std::string &why,
                      GpuGroupReport entry);
  /// Times every buildable plan of `group` on scratch buffers and sets
  /// `best` to the fastest.
  std::string autotune(const rt::GraphSpec &spec, rt::CudnnGroup &group,
                       const std::vector<std::pair<size_t, int64_t>> &plans,
                       size_t &best, GpuGroupReport &entry);
  rt::Device &gpu;
  Buffers buffers;
  GpuOptions options;
  std::vector<GpuGroupReport> *report;
  std::vector<ReadyGroup> ready;
};

std::string GpuRun::allocateIntermediates() {
  for (const DeviceTensor &tensor : lowered.tensors) {
    if (tensor.role != DeviceTensor::Role::Intermediate)
      continue;
    std::string error;
    size_t bytes = bytesOf(tensor.dtype, tensor.dims, tensor.strides);
    void *pointer = buffers.allocate(bytes, error);
    if (!pointer)
      return "allocating " + std::to_string(bytes) + " bytes for uid " +
             std::to_string(tensor.uid) + ": " + error;
    buffers.byUid[tensor.uid] = pointer;
  }
  return "";
}

bool deselected(const std::string &plan, const GpuOptions &options) {
  for (const std::string &needle : options.deselectEngines)
    if (!needle.empty() && plan.find(needle) != std::string::npos)
      return true;
  return false;
}

std::string GpuRun::codegen(const rt::GraphSpec &spec, const std::string &why,
                            GpuGroupReport entry) {
  entry.group = spec.name;
  entry.declined.push_back("cudnn: " + why);
  std::string name = kCodegenEngine;
  std::string error;
  if (deselected(name, options) ||
      std::find(options.deselectEngines.begin(), options.deselectEngines.end(),
                "codegen") != options.deselectEngines.end())
    error = "deselected";
  else if (std::string declines = codegenDeclines(spec); !declines.empty())
    error = declines;
  rt::CodegenSpec compiled;
  if (error.empty())
    error = compileToPtx(spec, compiled);
  std::unique_ptr<rt::CodegenKernel> kernels;
  if (error.empty())
    kernels = rt::CodegenKernel::create(gpu, compiled, error);
  if (!kernels) {
    entry.declined.push_back(name + ": " + error);
    std::string tried;
    for (const std::string &line : entry.declined)
      tried += "\n  " + line;
    return "no engine could run it:" + tried;
  }
  entry.plan = name + " (" + std::to_string(compiled.launches.size()) +
               " kernel" + (compiled.launches.size() == 1 ? "" : "s") + ")";
  ReadyGroup chosen;
  chosen.kernels = std::move(kernels);
  ready.push_back(std::move(chosen));
  if (report)
    report->push_back(entry);
  return "";
}

/// Whether `--deselect-engines` names the cuDNN engine as a whole.
bool cudnnDeselected(const GpuOptions &options) {
  return std::find(options.deselectEngines.begin(),
                   options.deselectEngines.end(),
                   "cudnn") != options.deselectEngines.end();
}

std::string GpuRun::prepare(const rt::GraphSpec &spec,
                            const GroupEngine *engine) {
  GpuGroupReport entry;
  entry.group = spec.name;
  std::string error;
  // cuDNN first; generated kernels when it declines the group at build time.
  auto declined = [&](const std::string &why,
                      const std::string &single) -> std::string {
    std::string viaCodegen = codegen(spec, why, entry);
    if (viaCodegen.empty())
      return "";
    return spec.ops.size() > 1 ? split(spec, why)
                               : spec.name + ": " + single + "\n(" +
                                     viaCodegen + ")";
  };
  if (cudnnDeselected(options))
    return declined("deselected", "cuDNN is deselected");
  std::unique_ptr<rt::CudnnGroup> group =
      rt::CudnnGroup::create(gpu, spec, error);
  if (!group)
    return declined(error, "cuDNN rejects the operation graph: " + error);
  // planIndex and addedPlans belong to one group when planGroup names it.
  bool pinnedGroup = options.planGroup.empty() || spec.name == options.planGroup;
  int planIndex = pinnedGroup ? options.planIndex : -1;
  std::string why =
      engine && engine->engineId >= 0
          ? group->addPlan(engine->engineId, engine->knobs)
          : group->createPlans(engine && !engine->heuristics.empty()
                                   ? engine->heuristics
                                   : options.heuristics);
  if (pinnedGroup)
    for (auto &[addedEngine, addedKnobs] : options.addedPlans)
      if (std::string e = group->addPlan(addedEngine, addedKnobs); !e.empty())
        return spec.name + ": the explicit plan of engine " +
               std::to_string(addedEngine) + ": " + e;
  if (!why.empty() && group->plans().empty())
    return declined(why, "no cuDNN plan: " + why);

  const std::vector<rt::PlanInfo> &plans = group->plans();
  if (planIndex >= 0 && static_cast<size_t>(planIndex) >= plans.size())
    return spec.name + ": plan index " + std::to_string(planIndex) +
           " is out of range for " + std::to_string(plans.size()) +
           " plan(s)";
  // Walk the ranked list: the first plan that builds (within the limits)
  // runs, or with autotuning the fastest of all that build.
  std::vector<std::pair<size_t, int64_t>> buildable; // plan, workspace
  for (size_t i = 0; i < plans.size(); ++i) {
    if (planIndex >= 0 && static_cast<int>(i) != planIndex)
      continue;
    const std::string name = plans[i].name;
    if (deselected(name, options)) {
      entry.declined.push_back(name + ": deselected");
      continue;
    }
    if (std::string why = group->buildPlan(i); !why.empty()) {
      entry.declined.push_back(name + ": " + why);
      continue;
    }
    int64_t workspace = group->workspaceBytes(i); // plan + internal scratch
    if (options.workspaceLimit >= 0 && workspace > options.workspaceLimit) {
      entry.declined.push_back(name + ": needs " + std::to_string(workspace) +
                               " workspace bytes, over the " +
                               std::to_string(options.workspaceLimit) +
                               " limit");
      continue;
    }
    buildable.emplace_back(i, workspace);
    if (!options.autotune)
      break;
  }
  if (!buildable.empty()) {
    size_t best = 0;
    if (buildable.size() > 1) {
      if (std::string e = autotune(spec, *group, buildable, best, entry);
          !e.empty())
        return e;
    }
    ReadyGroup chosen;
    chosen.plan = buildable[best].first;
    int64_t workspace = buildable[best].second;
    if (workspace > 0) {
      chosen.workspace = buffers.allocate(workspace, error);
      if (!chosen.workspace)
        return spec.name + ": allocating the workspace: " + error;
    }
    entry.plan = plans[chosen.plan].name;
    chosen.group = std::move(group);
    ready.push_back(std::move(chosen));
    if (report)
      report->push_back(entry);
    return "";
  }
  std::string tried;
  for (const std::string &line : entry.declined)
    tried += "\n  " + line;
  if (entry.declined.empty())
    tried = "\n  (the plan list is empty)";
  return declined("no plan could be built:" + tried,
                  "no plan in the list could be built:" + tried);
}

std::string GpuRun::autotune(const rt::GraphSpec &spec, rt::CudnnGroup &group,
                             const std::vector<std::pair<size_t, int64_t>> &plans,
                             size_t &best, GpuGroupReport &entry) {
  // Scratch for the group's graph inputs and outputs (their real buffers
  // come with execute), filled with a nonzero pattern: timing zeros can
  // flatter a kernel.
  Buffers scratch(gpu);
  std::map<int64_t, void *> pointers = buffers.byUid;
  std::string error;
  for (const rt::TensorSpec &tensor : spec.tensors) {
    if (tensor.isVirtual || tensor.isByValue || pointers.count(tensor.uid))
      continue;
    size_t bytes = bytesOf(tensor.dtype, tensor.dims, tensor.strides);
    void *pointer = scratch.allocate(bytes, error);
    if (!pointer)
      return spec.name + ": autotune scratch: " + error;
    if (std::string e = gpu.memset(pointer, 0x3c, bytes); !e.empty())
      return spec.name + ": autotune scratch: " + e;
    pointers[tensor.uid] = pointer;
  }
  int64_t most = 0;
  for (auto &[index, workspace] : plans)
    most = std::max(most, workspace);
  void *workspace = most > 0 ? scratch.allocate(most, error) : nullptr;
  if (most > 0 && !workspace)
    return spec.name + ": autotune workspace: " + error;
  double fastest = -1;
  for (size_t k = 0; k < plans.size(); ++k) {
    size_t index = plans[k].first;
    auto runs = [&]() -> std::string {
      for (int r = 0; r < 5; ++r)
        if (std::string e = group.execute(index, pointers, workspace);
            !e.empty())
          return e;
      return "";
    };
    double ms = 0;
    std::string e = runs(); // warm-up
    if (e.empty())
      e = gpu.time(runs, ms);
    if (!e.empty()) {
      entry.declined.push_back(group.plans()[index].name +
                               ": failed while autotuning: " + e);
      continue;
    }
    entry.declined.push_back(group.plans()[index].name + ": timed " +
                             std::to_string(ms / 5) + " ms");
    if (fastest < 0 || ms < fastest) {
      fastest = ms;
      best = k;
    }
  }
  if (fastest < 0)
    return spec.name + ": every plan failed while autotuning";
  return gpu.synchronize();
}

/// Runs each op of `spec` as its own group; tensors that were virtual inside
/// it get device buffers.
std::string GpuRun::split(const rt::GraphSpec &spec, const std::string &why) {
  if (options.verbose && report) {
    GpuGroupReport note;
    note.group = spec.name;
    note.declined.push_back("split into single ops: " + why);
    report->push_back(note);
  }
  std::map<int64_t, rt::TensorSpec> tensors;
  for (const rt::TensorSpec &tensor : spec.tensors)
    tensors[tensor.uid] = tensor;
  for (size_t i = 0; i < spec.ops.size(); ++i) {
    const rt::OpSpec &op = spec.ops[i];
    rt::GraphSpec single;
    single.name = spec.name + "." + std::to_string(i);
    single.ops.push_back(op);
    std::set<int64_t> uids;
    for (auto &[port, uid] : op.inputs)
      uids.insert(uid);
    for (auto &[port, uid] : op.outputs)
      uids.insert(uid);
    for (int64_t uid : uids) {
      rt::TensorSpec tensor = tensors[uid];
      if (tensor.isVirtual) {
        tensor.isVirtual = false;
        if (!buffers.byUid.count(uid)) {
          std::string error;
          void *pointer = buffers.allocate(
              bytesOf(tensor.dtype, tensor.dims, tensor.strides), error);
          if (!pointer)
            return single.name + ": " + error;
          buffers.byUid[uid] = pointer;
        }
      }
      single.tensors.push_back(tensor);
    }
    if (std::string error = prepare(single); !error.empty())
      return error + "\n(" + spec.name + " was split into single ops because " +
             why + ")";
  }
  return "";
}

std::string GpuRun::execute(const std::map<int64_t, void *> &user) {
  std::map<int64_t, void *> all = buffers.byUid;
  for (const DeviceTensor &tensor : lowered.tensors) {
    if (tensor.role == DeviceTensor::Role::Intermediate)
      continue;
    auto it = user.find(tensor.uid);
    if (it == user.end() || !it->second)
      return "no device buffer for " +
             std::string(tensor.role == DeviceTensor::Role::Input ? "input"
                                                                  : "output") +
             " uid " + std::to_string(tensor.uid);
    all[tensor.uid] = it->second;
  }
  for (ReadyGroup &group : ready)
    if (std::string error =
            group.kernels
                ? group.kernels->execute(all)
                : group.group->execute(group.plan, all, group.workspace);
        !error.empty())
      return error;
  return "";
}

} // namespace

std::unique_ptr<GpuExecutable>
GpuExecutable::create(GraphOp graph, const GpuOptions &options,
                      std::string &error, std::vector<GpuGroupReport> *report) {
  rt::Device *device = rt::Device::get(error);
  if (!device) {
    error = "the GPU device is not available: " + error;
    return nullptr;
  }
  auto run = std::make_unique<GpuRun>(*device, options, report);
  if (!(error = lowerToCudnn(graph, run->lowered)).empty() ||
      !(error = run->allocateIntermediates()).empty())
    return nullptr;
  for (const rt::GraphSpec &spec : run->lowered.groups)
    if (!(error = run->prepare(spec)).empty())
      return nullptr;
  return run;
}

std::unique_ptr<GpuExecutable>
GpuExecutable::create(CudnnProgram program, const GpuOptions &options,
                      std::string &error, std::vector<GpuGroupReport> *report) {
  if (!program.engines.empty() &&
      program.engines.size() != program.groups.size()) {
    error = "the program has " + std::to_string(program.groups.size()) +
            " groups but " + std::to_string(program.engines.size()) +
            " engine choices";
    return nullptr;
  }
  rt::Device *device = rt::Device::get(error);
  if (!device) {
    error = "the GPU device is not available: " + error;
    return nullptr;
  }
  auto run = std::make_unique<GpuRun>(*device, options, report);
  run->lowered = std::move(program);
  if (!(error = run->allocateIntermediates()).empty())
    return nullptr;
  for (size_t i = 0; i < run->lowered.groups.size(); ++i) {
    const GroupEngine *engine =
        run->lowered.engines.empty() ? nullptr : &run->lowered.engines[i];
    if (!(error = run->prepare(run->lowered.groups[i], engine)).empty())
      return nullptr;
  }
  return run;
}

std::string mlir::graph::executeOnGpu(
    GraphOp graph, const std::vector<ref::HostTensor> &inputs,
    std::vector<ref::HostTensor> &outputs, const GpuOptions &options,
    std::vector<GpuGroupReport> *report, int benchmarkRuns,
    std::vector<double> *milliseconds) {
  std::vector<ref::TensorInfo> inputInfo, outputInfo;
  ref::describeGraph(graph, inputInfo, outputInfo);
  if (inputs.size() != inputInfo.size())
    return "graph @" + graph.getSymName().str() + " has " +
           std::to_string(inputInfo.size()) + " inputs but " +
           std::to_string(inputs.size()) + " buffers were given";
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].dtype != inputInfo[i].dtype ||
        inputs[i].shape != inputInfo[i].shape)
      return "input " + std::to_string(i) + " (uid " +
             std::to_string(inputInfo[i].uid) +
             "): the buffer's dtype or dims differ from the graph's";

  std::string error;
  CudnnProgram lowered;
  if (!(error = lowerToCudnn(graph, lowered)).empty())
    return error;
  return executeProgramOnGpu(std::move(lowered), outputInfo, inputs, outputs,
                             options, report, benchmarkRuns, milliseconds);
}

std::string mlir::graph::executeProgramOnGpu(
    CudnnProgram lowered, const std::vector<ref::TensorInfo> &outputInfo,
    const std::vector<ref::HostTensor> &inputs,
    std::vector<ref::HostTensor> &outputs, const GpuOptions &options,
    std::vector<GpuGroupReport> *report, int benchmarkRuns,
    std::vector<double> *milliseconds) {
  std::string error;
  if (outputInfo.size() != lowered.outputUids.size())
    return "the program has " + std::to_string(lowered.outputUids.size()) +
           " outputs but " + std::to_string(outputInfo.size()) +
           " were described";
  size_t numInputs = 0;
  for (const DeviceTensor &tensor : lowered.tensors)
    if (tensor.role == DeviceTensor::Role::Input)
      numInputs = std::max<size_t>(numInputs, tensor.index + 1);
  if (inputs.size() < numInputs)
    return "the program has " + std::to_string(numInputs) + " inputs but " +
           std::to_string(inputs.size()) + " buffers were given";
  std::unique_ptr<GpuExecutable> executable =
      GpuExecutable::create(std::move(lowered), options, error, report);
  if (!executable)
    return error;
  rt::Device &device = executable->device();
  const CudnnProgram &program = executable->program();

  // Device copies of the inputs and outputs, in the declared layouts.
  Buffers io(device);
  std::map<int64_t, void *> user;
  for (const DeviceTensor &tensor : program.tensors) {
    if (tensor.role == DeviceTensor::Role::Intermediate)
      continue;
    size_t bytes = bytesOf(tensor.dtype, tensor.dims, tensor.strides);
    void *pointer = io.allocate(bytes, error);
    if (!pointer)
      return "allocating " + std::to_string(bytes) + " bytes for uid " +
             std::to_string(tensor.uid) + ": " + error;
    user[tensor.uid] = pointer;
    if (tensor.role != DeviceTensor::Role::Input)
      continue;
    const ref::HostTensor &host = inputs[tensor.index];
    ref::NdArray array =
        ref::load(host.bytes.data(), host.dtype, host.shape, host.strides);
    std::vector<uint8_t> staged(bytes);
    ref::store(array, tensor.dtype, tensor.strides, staged.data());
    if (std::string e = device.copyToDevice(pointer, staged.data(), bytes);
        !e.empty())
      return "uploading input uid " + std::to_string(tensor.uid) + ": " + e;
  }

  if (std::string e = executable->execute(user); !e.empty())
    return e;
  if (std::string e = device.synchronize(); !e.empty())
    return "executing: " + e;
  for (int i = 0; i < benchmarkRuns; ++i) {
    double ms = 0;
    if (std::string e =
            device.time([&] { return executable->execute(user); }, ms);
        !e.empty())
      return "benchmark run: " + e;
    if (milliseconds)
      milliseconds->push_back(ms);
  }

  outputs.clear();
  for (size_t i = 0; i < outputInfo.size(); ++i) {
    const ref::TensorInfo &info = outputInfo[i];
    ref::HostTensor host;
    host.dtype = info.dtype;
    host.shape = info.shape;
    host.strides =
        info.strides.empty() ? ref::rowMajorStrides(info.shape) : info.strides;
    host.bytes.assign(bytesOf(host.dtype, host.shape, host.strides), 0);
    if (int alias = program.outputAliasesInput[i]; alias >= 0) {
      const ref::HostTensor &in = inputs[alias];
      ref::store(ref::load(in.bytes.data(), in.dtype, in.shape, in.strides),
                 host.dtype, host.strides, host.bytes.data());
    } else if (std::string e = device.copyToHost(
                   host.bytes.data(), user[program.outputUids[i]],
                   host.bytes.size());
               !e.empty()) {
      return "downloading output " + std::to_string(i) + ": " + e;
    }
    outputs.push_back(std::move(host));
  }
  return "";
}
