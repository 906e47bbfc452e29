//===- GpuExecutor.cpp - Run a graph's cuDNN groups on the GPU -----------===//
//
// Walks each group's ranked plan list the way the frontend does: the first
// plan that builds runs; plans deselected by name or over the workspace
// limit are skipped; a group no plan builds is split (its first op and the
// rest, again until single ops), and
// only an op no plan runs is an error, listing each plan tried and why. The
// list (PlanList.h) holds cuDNN's plans and the codegen engine's.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Engine/GpuExecutor.h"

#include "GraphDialect/Conversion/GraphToCodegen.h"
#include "GraphDialect/Engine/GroupPlans.h"
#include "GraphDialect/Engine/PlanList.h"

#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Reference/Compare.h"
#include "GraphDialect/Support/LegalInputs.h"
#include "GraphDialect/Support/ThreadPool.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

using namespace mlir;
using namespace mlir::graph;
namespace ref = ::graph::ref;
namespace rt = ::graph::rt;
using ::graph::Port;

namespace {

/// The bytes a tensor's dims and strides span (a TensorSpec or a
/// DeviceTensor).
template <typename Tensor> size_t bytesOf(const Tensor &tensor) {
  return static_cast<size_t>(
      ::graph::spanBytes(tensor.dtype, tensor.dims, tensor.strides));
}

/// Device memory of one execute; freed when it goes out of scope.
class Buffers {
public:
  explicit Buffers(rt::Device &device) : device(device) {}
  ~Buffers() {
    for (void *pointer : owned)
      device.free(pointer);
  }
  /// `what` names the buffer in a shortage ("intermediate uid 5").
  void *allocate(size_t bytes, const std::string &what, std::string &error) {
    void *pointer = device.alloc(std::max<size_t>(bytes, 16), what, error);
    if (pointer)
      owned.push_back(pointer);
    return pointer;
  }
  std::map<int64_t, void *> byUid;

private:
  rt::Device &device;
  std::vector<void *> owned;
};

/// A plan of a group's list that built (cuDNN) or compiled and loaded
/// (codegen).
struct Candidate {
  std::string name;
  size_t cudnnPlan = 0; // the plan's index in the cuDNN group's list
  int64_t workspace = 0;
  std::unique_ptr<rt::CodegenKernel> kernels; // set: a codegen plan
  size_t launches = 0;
};

struct ReadyGroup {
  std::unique_ptr<rt::CudnnGroup> group;
  std::unique_ptr<rt::CodegenKernel> kernels; // set: a codegen group
  size_t plan = 0;
  void *workspace = nullptr;
  int64_t workspaceBytes = 0;
  bool keepsOwnWorkspace = false; // constants live in it (see lendGpuWorkspace)
};

// The caller's workspace lent to this thread's executes (lendGpuWorkspace).
thread_local void *lentWorkspace = nullptr;
thread_local int64_t lentWorkspaceBytes = 0;

std::string tuneCandidates(rt::Device &gpu, const GroupSource *source,
                           bool againstFirst, const rt::GraphSpec &spec,
                           rt::CudnnGroup *group,
                           const std::vector<Candidate> &plans, size_t &best,
                           std::vector<std::string> &declined,
                           std::vector<double> *times = nullptr);

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
  std::string executeSlots(const std::vector<void *> &pointers) override;
  const std::vector<int64_t> &ioUids() const override { return ioUidList; }
  const CudnnProgram &program() const override { return lowered; }
  rt::Device &device() override { return gpu; }
  /// After every group is prepared: the uid -> pointer map the groups run
  /// with, and the slots of the inputs and outputs in it.
  void bindSlots();

  CudnnProgram lowered;
  /// Per group of `lowered` when built from a graph: its ops, for checking
  /// autotuned plans against the CPU reference.
  std::vector<GroupSource> sources;
  /// The source of the group `prepare` works on; null: none (an artifact).
  const GroupSource *source = nullptr;

private:
  /// The list of options.plannedGroups that answers `spec` under `request`,
  /// moved out of it; null when none does.
  std::unique_ptr<GroupPlans> takePlanned(const rt::GraphSpec &spec,
                                          const GroupPlanRequest &request);
  std::string split(const rt::GraphSpec &spec, const std::string &why);
  rt::Device &gpu;
  Buffers buffers;
  GpuOptions options;
  std::vector<GpuGroupReport> *report;
  std::vector<ReadyGroup> ready;
  // Execute's bookkeeping, built once: every device tensor's pointer by uid
  // (intermediates fixed, inputs and outputs rebound per execute through
  // ioSlots, parallel to ioUidList), and the scratch of the map overload.
  std::map<int64_t, void *> bound;
  std::vector<int64_t> ioUidList;
  std::vector<void **> ioSlots;
  std::vector<void *> byUidScratch;
  /// Folded views: their slot in `bound`, their source's slot and the byte
  /// offset between them, rebound after the inputs on every execute.
  struct AliasSlot {
    void **slot;
    void **source;
    size_t byteOffset;
  };
  std::vector<AliasSlot> aliasSlots;

  /// Runs every group on the device's stream, each launch queued anew.
  std::string runGroups();
  /// Repeated executes replay a recording of one (a CUDA graph): one
  /// launch instead of a launch per kernel, so the GPU runs the kernels
  /// back to back where the host would queue them one by one. Keyed by the
  /// I/O pointers and the lent workspace, the only inputs of an execute
  /// besides the data (by-value scalars read on the host rule it out).
  std::string replayOrRecord(bool &ran);
  enum class Recording { Unknown, Allowed, Off };
  Recording recording = Recording::Unknown;
  /// Keys run once as they are (newest first): a key seen again is
  /// recorded. At most kRecordings of each, so that buffer sets used in
  /// turn (ping-pong I/O) each keep their recording.
  static constexpr size_t kRecordings = 4;
  std::vector<void *> executeKey;
  std::vector<std::vector<void *>> seenOnce;
  struct RecordedExecute {
    std::vector<void *> key;
    std::unique_ptr<rt::RecordedWork> work;
  };
  // Last: destroyed before the groups and memory their launches use. Most
  // recently used first.
  std::vector<RecordedExecute> recordings;
};

std::string GpuRun::allocateIntermediates() {
  // All of them against the free memory first: a shortage names the total
  // and the largest, before anything is allocated.
  std::vector<rt::MemoryNeed> needs;
  for (const DeviceTensor &tensor : lowered.tensors)
    if (tensor.role == DeviceTensor::Role::Intermediate && tensor.aliasOf < 0)
      needs.push_back({"intermediate uid " + std::to_string(tensor.uid),
                       std::max<uint64_t>(bytesOf(tensor), 16)});
  rt::DeviceMemory memory;
  if (!needs.empty() && gpu.memory(memory).empty())
    if (std::string shortage = rt::memoryShortage("the intermediate tensors",
                                                  needs, memory, gpu.ordinal());
        !shortage.empty())
      return shortage;
  for (const DeviceTensor &tensor : lowered.tensors) {
    if (tensor.role != DeviceTensor::Role::Intermediate || tensor.aliasOf >= 0)
      continue;
    std::string error;
    size_t bytes = bytesOf(tensor);
    void *pointer = buffers.allocate(
        bytes, "intermediate uid " + std::to_string(tensor.uid), error);
    if (!pointer)
      return "allocating " + std::to_string(bytes) + " bytes for uid " +
             std::to_string(tensor.uid) + ": " + error;
    buffers.byUid[tensor.uid] = pointer;
  }
  return "";
}

/// Whether `--deselect-engines` names the cuDNN engine as a whole.
bool cudnnDeselected(const GpuOptions &options) {
  return std::find(options.deselectEngines.begin(),
                   options.deselectEngines.end(),
                   "cudnn") != options.deselectEngines.end();
}

std::unique_ptr<GroupPlans>
GpuRun::takePlanned(const rt::GraphSpec &spec,
                    const GroupPlanRequest &request) {
  if (!options.plannedGroups)
    return nullptr;
  std::vector<std::unique_ptr<GroupPlans>> &planned = *options.plannedGroups;
  for (auto it = planned.begin(); it != planned.end(); ++it)
    if (*it && (*it)->answers(gpu, spec, request)) {
      std::unique_ptr<GroupPlans> taken = std::move(*it);
      planned.erase(it);
      return taken;
    }
  return nullptr;
}

std::string GpuRun::prepare(const rt::GraphSpec &spec,
                            const GroupEngine *engine) {
  GpuGroupReport entry;
  entry.group = spec.name;
  std::string error;
  // An artifact's exec.kernel_group: kernels compiled ahead, no plan list.
  if (engine && engine->kernels) {
    ReadyGroup ready;
    ready.kernels = rt::CodegenKernel::create(gpu, *engine->kernels, error);
    if (!ready.kernels)
      return spec.name + ": the artifact's generated kernels: " + error;
    size_t launches = engine->kernels->launches.size();
    entry.plan = engine->kernels->engine + " (" + std::to_string(launches) +
                 " kernel" + (launches == 1 ? "" : "s") + ", ahead of time)";
    this->ready.push_back(std::move(ready));
    if (report)
      report->push_back(entry);
    return "";
  }
  // planIndex and addedPlans belong to one group when planGroup names it.
  bool pinnedGroup =
      options.planGroup.empty() || spec.name == options.planGroup;
  int planIndex = pinnedGroup ? options.planIndex : -1;

  // The ranked list over the engines (GroupPlans.h). A cuDNN deselected as
  // a whole is not asked, unless a pinned index needs its plans counted
  // (indices do not move when engines are deselected).
  GroupPlanRequest request;
  request.heuristics = options.heuristics;
  request.recorded = engine;
  request.askCudnn = !cudnnDeselected(options) || planIndex >= 0;
  std::unique_ptr<GroupPlans> owned = takePlanned(spec, request);
  if (!owned)
    owned = std::make_unique<GroupPlans>(gpu, spec, request);
  GroupPlans &plans = *owned;
  if (pinnedGroup && plans.cudnn())
    for (auto &[addedEngine, addedKnobs] : options.addedPlans)
      if (std::string e = plans.addPlan(addedEngine, addedKnobs); !e.empty())
        return spec.name + ": the explicit plan of engine " +
               std::to_string(addedEngine) + ": " + e;
  switch (plans.cudnnState()) {
  case CudnnPlans::Listed:
    break;
  case CudnnPlans::NotAsked:
    entry.declined.push_back("cudnn: deselected");
    break;
  case CudnnPlans::NotChosen:
    entry.declined.push_back("cudnn: " + plans.cudnnError());
    break;
  case CudnnPlans::Rejected:
    entry.declined.push_back("cudnn: rejects the operation graph: " +
                             plans.cudnnError());
    break;
  case CudnnPlans::NoPlan:
    entry.declined.push_back("cudnn: " +
                             (plans.cudnnError().empty()
                                  ? std::string("the plan list is empty")
                                  : "no plan: " + plans.cudnnError()));
    break;
  }

  // How ranking by time ordered cuDNN's plans (GroupPlans::rankByTime).
  for (const std::string &line : plans.rankingNotes())
    entry.declined.push_back("(" + line + ")");

  // The codegen engine's reasons are reported once its plans are reached.
  std::vector<std::string> codegenDeclined = plans.codegenDeclined();
  if (!plans.codegenChosen())
    codegenDeclined.push_back("codegen: not chosen by graph-select-engines");
  const std::vector<PlanEntry> &list = plans.entries();
  std::vector<size_t> order;
  if (std::string e = planWalk(list, planIndex, options.deselectEngines, order,
                               entry.declined);
      !e.empty())
    return spec.name + ": " + e;
  bool codegenNoted = false; // codegenDeclined is in entry.declined
  auto noteCodegen = [&] {
    if (codegenNoted)
      return;
    codegenNoted = true;
    for (const std::string &line : codegenDeclined)
      entry.declined.push_back(line);
  };

  // Walk the ranked list: the first plan that builds (within the limits)
  // runs, or with autotuning the fastest correct one of all that build.
  std::vector<Candidate> candidates;
  bool codegenReady = false;
  for (size_t k : order) {
    const PlanEntry &plan = list[k];
    Candidate candidate;
    candidate.name = plan.name;
    if (!plan.codegen) {
      if (std::string why = plans.build(k, options.codegenCubin);
          !why.empty()) {
        entry.declined.push_back(plan.name + ": " + why);
        continue;
      }
      int64_t workspace = plans.cudnn()->workspaceBytes(plan.index);
      if (options.workspaceLimit >= 0 && workspace > options.workspaceLimit) {
        entry.declined.push_back(
            plan.name + ": needs " + std::to_string(workspace) +
            " workspace bytes, over the " +
            std::to_string(options.workspaceLimit) + " limit");
        continue;
      }
      candidate.cudnnPlan = plan.index;
      candidate.workspace = workspace;
    } else {
      noteCodegen();
      // The linalg path is the fallback of the generated kernels only.
      if (plan.name == kCodegenEngine && codegenReady && planIndex < 0)
        continue;
      if (std::string why = plans.build(k, options.codegenCubin);
          !why.empty()) {
        // One line per distinct reason keeps the report short.
        std::string line = plan.name + ": " + why;
        if (std::find(entry.declined.begin(), entry.declined.end(), line) ==
            entry.declined.end())
          entry.declined.push_back(line);
        continue;
      }
      candidate.kernels = plans.takeKernels(k, candidate.launches);
      codegenReady = true;
    }
    candidates.push_back(std::move(candidate));
    if (!options.autotune)
      break;
  }

  if (!candidates.empty()) {
    size_t best = 0;
    // Autotuning checks even a single plan against the reference.
    if (options.autotune) {
      if (std::string e =
              tuneCandidates(gpu, source, options.autotuneAgainstFirst, spec,
                             plans.cudnn(), candidates, best, entry.declined);
          !e.empty())
        return e;
    }
    Candidate &chosen = candidates[best];
    ReadyGroup ready;
    if (chosen.kernels) {
      entry.plan = chosen.name + " (" + std::to_string(chosen.launches) +
                   " kernel" + (chosen.launches == 1 ? "" : "s") + ")";
      ready.kernels = std::move(chosen.kernels);
    } else {
      ready.plan = chosen.cudnnPlan;
      if (chosen.workspace > 0) {
        ready.workspace = buffers.allocate(
            chosen.workspace, "the workspace of group '" + spec.name + "'",
            error);
        if (!ready.workspace)
          return spec.name + ": allocating the workspace: " + error;
      }
      entry.plan = chosen.name;
      ready.group = plans.takeCudnn();
      ready.workspaceBytes = chosen.workspace;
      ready.keepsOwnWorkspace = ready.group->workspaceHoldsConstants();
    }
    this->ready.push_back(std::move(ready));
    if (report)
      report->push_back(entry);
    return "";
  }
  if (planIndex < 0)
    noteCodegen();
  std::string tried;
  for (const std::string &line : entry.declined)
    tried += "\n  " + line;
  if (list.empty())
    tried += "\n  (the plan list is empty)";
  if (planIndex >= 0) // strict: no other plan, no split
    return spec.name + ": plan " + std::to_string(planIndex) + " (" +
           list[planIndex].name + ") could not be built:" + tried;
  if (spec.ops.size() > 1)
    return split(spec, "no plan could be built:" + tried);
  return spec.name + ": no plan in the list could be built:" + tried;
}

/// Deterministic data for autotuning input `tensor` of `spec`, seeded by its
/// uid: floats uniform in [-1, 1), f8E8M0FNU powers of two, i1 0 or 1, other
/// integers in [0, 4) except where an op's use fixes them
/// (::graph::legalIntegerValues: sequence lengths, ragged offsets, page
/// tables, MoE offsets and routing), so cuDNN reads inside the buffers.
ref::NdArray autotuneData(const rt::GraphSpec &spec,
                          const rt::TensorSpec &tensor) {
  ref::NdArray data(tensor.dims);
  std::map<int64_t, const rt::TensorSpec *> byUid;
  for (const rt::TensorSpec &t : spec.tensors)
    byUid[t.uid] = &t;
  for (const rt::OpSpec &op : spec.ops) {
    if (ref::isFloat(tensor.dtype) || tensor.dtype == ref::DType::I1)
      break;
    // The op's tensor at `port` (an input or an output).
    auto tensorAt = [&](Port port) -> const rt::TensorSpec * {
      auto it = op.inputs.find(port);
      if (it == op.inputs.end())
        it = op.outputs.find(port);
      if (it == op.outputs.end() || !byUid.count(it->second))
        return nullptr;
      return byUid[it->second];
    };
    for (auto &[port, uid] : op.inputs) {
      if (uid != tensor.uid || !port.get())
        continue;
      ::graph::IntegerInputUse use;
      use.port = *port.get();
      use.dims = [&](Port p) -> std::optional<ref::Shape> {
        if (const rt::TensorSpec *t = tensorAt(p))
          return t->dims;
        return std::nullopt;
      };
      use.strides = [&](Port p) -> std::optional<ref::Shape> {
        const rt::TensorSpec *t = tensorAt(p);
        if (!t)
          return std::nullopt;
        return t->strides.empty() ? ref::rowMajorStrides(t->dims) : t->strides;
      };
      auto maxSeq = op.intAttrs.find("paged_attention_max_seq_len_kv");
      if (maxSeq != op.intAttrs.end() && !maxSeq->second.empty())
        use.pagedMaxSeqLenKv = maxSeq->second.front();
      auto topK = op.intAttrs.find("top_k");
      if (topK != op.intAttrs.end() && !topK->second.empty())
        use.topK = topK->second.front();
      if (auto values = ::graph::legalIntegerValues(
              use, static_cast<int64_t>(data.data.size()))) {
        data.data = std::move(*values);
        return data;
      }
    }
  }
  uint64_t state = 0x6175746f74756e65ull; // "autotune"
  ::graph::splitmix64(state);
  state ^= static_cast<uint64_t>(tensor.uid) * 0xD1B54A32D192ED03ull;
  for (double &value : data.data) {
    double uniform =
        static_cast<double>(::graph::splitmix64(state) >> 11) * 0x1.0p-53;
    if (tensor.dtype == ref::DType::F8E8M0FNU)
      value = std::ldexp(1.0, static_cast<int>(uniform * 5) - 2);
    else if (ref::isFloat(tensor.dtype))
      value = 2.0 * uniform - 1.0;
    else if (tensor.dtype == ref::DType::I1)
      value = uniform < 0.5 ? 0.0 : 1.0;
    else
      value = std::floor(uniform * 4);
  }
  return data;
}

/// Dense bytes of `array` (row-major) as `dtype`.
std::vector<uint8_t> denseBytes(const ref::NdArray &array, ref::DType dtype) {
  std::vector<uint8_t> bytes(array.data.size() * ref::byteWidth(dtype));
  ref::store(array, dtype, ref::rowMajorStrides(array.shape), bytes.data());
  return bytes;
}

/// Element types whose stored bytes the autotuner against the first plan
/// fills and compares in place, without the reference's arrays.
bool rawComparable(ref::DType dtype) {
  return dtype == ref::DType::F32 || dtype == ref::DType::F16 ||
         dtype == ref::DType::BF16;
}

std::string formatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

/// Checks every candidate of `spec` (cuDNN plans of `group`, codegen
/// kernels) on scratch buffers against the CPU reference run on `source`'s
/// ops (`againstFirst`: against the first candidate that ran), times the
/// correct ones and sets `best` to the fastest. One line per candidate goes
/// to `declined` (its time or why it lost); `times`, when given, gets each
/// candidate's milliseconds per run (-1: it lost).
std::string tuneCandidates(rt::Device &gpu, const GroupSource *source,
                           bool againstFirst, const rt::GraphSpec &spec,
                           rt::CudnnGroup *group,
                           const std::vector<Candidate> &plans, size_t &best,
                           std::vector<std::string> &declined,
                           std::vector<double> *times) {
  // Timing waits for the stream, which a capture forbids in every mode, and
  // the candidates' launches would be recorded into the caller's graph.
  if (gpu.isCapturing())
    return spec.name +
           ": autotuning cannot run while the stream is captured into a "
           "CUDA graph; execute the graph once before the capture";
  // Scratch for every device tensor of the group (not the intermediates of
  // the program: earlier groups have not written them yet). Inputs get
  // seeded random data, which the CPU reference runs on too; outputs are
  // filled with NaN before each plan, so one that skips elements fails.
  Buffers scratch(gpu);
  std::map<int64_t, void *> pointers;
  std::set<int64_t> written;
  for (const rt::OpSpec &op : spec.ops)
    for (auto &[port, uid] : op.outputs)
      written.insert(uid);
  struct Output {
    const rt::TensorSpec *tensor;
    void *pointer;
    size_t bytes;
    std::vector<uint8_t> want; // the reference, dense
  };
  std::vector<Output> outputs;
  std::vector<std::pair<Value, ref::NdArray>> given;
  std::vector<Value> wanted;
  std::vector<ref::DType> inputTypes;
  // Why the plans cannot be checked; empty: they are.
  std::string unchecked =
      source || againstFirst
          ? ""
          : "no graph to run on the CPU reference (a loaded program)";
  auto valueOf = [&](int64_t uid) -> Value {
    if (!source || againstFirst)
      return nullptr;
    auto it = source->values.find(uid);
    if (it == source->values.end()) {
      if (unchecked.empty())
        unchecked = "uid " + std::to_string(uid) + " has no graph value";
      return nullptr;
    }
    return it->second;
  };
  std::string error;
  for (const rt::TensorSpec &tensor : spec.tensors) {
    if (tensor.isVirtual || tensor.isByValue)
      continue;
    size_t bytes = bytesOf(tensor);
    void *pointer = scratch.allocate(
        bytes, "autotune scratch for uid " + std::to_string(tensor.uid), error);
    if (!pointer)
      return spec.name + ": autotune scratch for uid " +
             std::to_string(tensor.uid) + ": " + error;
    pointers[tensor.uid] = pointer;
    Value value = valueOf(tensor.uid);
    if (written.count(tensor.uid)) {
      outputs.push_back({&tensor, pointer, bytes, {}});
      wanted.push_back(value);
      continue;
    }
    std::vector<uint8_t> staged(bytes);
    if (againstFirst && rawComparable(tensor.dtype)) {
      // Nothing on the CPU reads these: seeded values go straight into
      // every slot of the span (the reference's array round trip took
      // seconds per full-size tensor). 65536 values are encoded once, the
      // slow part, and each slot draws one of them.
      uint64_t state = 0x6669727374ull ^ static_cast<uint64_t>(tensor.uid);
      size_t width = ref::byteWidth(tensor.dtype);
      std::vector<uint8_t> pool(65536 * width);
      for (size_t at = 0; at < pool.size(); at += width) {
        double uniform =
            static_cast<double>(::graph::splitmix64(state) >> 11) * 0x1.0p-53;
        ref::encode(tensor.dtype, 2.0 * uniform - 1.0, &pool[at]);
      }
      // Blocks of slots draw from streams of their own, in parallel.
      constexpr size_t kSlotsPerBlock = size_t(1) << 16;
      size_t slots = bytes / width;
      ::graph::parallelFor(
          static_cast<int64_t>((slots + kSlotsPerBlock - 1) / kSlotsPerBlock),
          [&](int64_t firstBlock, int64_t endBlock) {
            for (int64_t block = firstBlock; block < endBlock; ++block) {
              uint64_t stream = state ^ (static_cast<uint64_t>(block) *
                                         0x9e3779b97f4a7c15ull);
              size_t end = std::min(slots, (block + 1) * kSlotsPerBlock);
              for (size_t slot = block * kSlotsPerBlock; slot < end; ++slot)
                std::memcpy(&staged[slot * width],
                            &pool[(::graph::splitmix64(stream) >> 48) * width],
                            width);
            }
          });
      if (std::string e = gpu.copyToDevice(pointer, staged.data(), bytes);
          !e.empty())
        return spec.name + ": autotune input uid " +
               std::to_string(tensor.uid) + ": " + e;
      inputTypes.push_back(tensor.dtype);
      continue;
    }
    ref::NdArray data = autotuneData(spec, tensor);
    ref::store(data, tensor.dtype, tensor.strides, staged.data());
    if (std::string e = gpu.copyToDevice(pointer, staged.data(), bytes);
        !e.empty())
      return spec.name + ": autotune input uid " + std::to_string(tensor.uid) +
             ": " + e;
    inputTypes.push_back(tensor.dtype);
    if (!value)
      continue;
    // The group's dims may carry the unit dims cuDNN needs; the graph's
    // value has the same elements in the same order.
    ArrayRef<int64_t> shape =
        cast<RankedTensorType>(value.getType()).getShape();
    data.shape.assign(shape.begin(), shape.end());
    if (ref::numElements(data.shape) != data.size()) {
      unchecked = "uid " + std::to_string(tensor.uid) +
                  " has other dims in the graph than in the group";
      continue;
    }
    given.emplace_back(value, std::move(data));
  }
  if (againstFirst)
    declined.push_back("(plans checked against the first plan that "
                       "ran, not the CPU reference)");
  else if (unchecked.empty()) {
    std::vector<ref::NdArray> results;
    if (std::string e = ref::executeOps(source->ops, given, wanted, results);
        !e.empty())
      unchecked = "the CPU reference: " + e;
    for (size_t i = 0; unchecked.empty() && i < outputs.size(); ++i)
      outputs[i].want = denseBytes(results[i], outputs[i].tensor->dtype);
  }
  if (!unchecked.empty())
    declined.push_back(
        "(plans not checked against the CPU reference: " + unchecked + ")");

  int64_t most = 0;
  for (const Candidate &plan : plans)
    most = std::max(most, plan.workspace);
  void *workspace = most > 0
                        ? scratch.allocate(most,
                                           "the autotune workspace of group '" +
                                               spec.name + "'",
                                           error)
                        : nullptr;
  if (most > 0 && !workspace)
    return spec.name + ": autotune workspace: " + error;

  // Why each plan lost, for the error when none is left.
  std::vector<std::string> rejected;
  if (times)
    times->assign(plans.size(), -1.0);
  auto reject = [&](const std::string &line) {
    declined.push_back(line);
    rejected.push_back(line);
  };
  // One execute of candidate `k`.
  auto run = [&](size_t k) -> std::string {
    const Candidate &plan = plans[k];
    return plan.kernels ? plan.kernels->execute(pointers)
                        : group->execute(plan.cudnnPlan, pointers, workspace);
  };
  // "" when candidate `k` computes what the reference does, once.
  auto check = [&](size_t k) -> std::string {
    for (const Output &out : outputs)
      if (std::string e = gpu.memset(out.pointer, 0xff, out.bytes); !e.empty())
        return "failed while autotuning: " + e;
    if (std::string e = run(k); !e.empty())
      return "failed while autotuning: " + e;
    if (std::string e = gpu.synchronize(); !e.empty())
      return "failed while autotuning: " + e;
    if (!unchecked.empty())
      return "";
    // The first plan that ran is the baseline (all its outputs at once).
    const bool baseline =
        againstFirst && !outputs.empty() && outputs.front().want.empty();
    std::vector<std::vector<uint8_t>> firstResults;
    for (Output &out : outputs) {
      const rt::TensorSpec &tensor = *out.tensor;
      std::vector<uint8_t> host(out.bytes);
      if (std::string e = gpu.copyToHost(host.data(), out.pointer, out.bytes);
          !e.empty())
        return "failed while autotuning: " + e;
      // Against the first plan the two spans compare as they lie (slots
      // outside the tensor hold the NaN fill in both).
      const bool raw = againstFirst && rawComparable(tensor.dtype);
      std::vector<uint8_t> got =
          raw ? std::move(host)
              : denseBytes(ref::load(host.data(), tensor.dtype, tensor.dims,
                                     tensor.strides),
                           tensor.dtype);
      if (baseline) {
        firstResults.push_back(std::move(got));
        continue;
      }
      double limit = ref::deviceTolerance(tensor.dtype, inputTypes,
                                          source && source->tf32);
      // Two GPU results, each within the bound of the exact one.
      if (againstFirst)
        limit *= 2;
      int64_t count =
          raw ? static_cast<int64_t>(got.size() / ref::byteWidth(tensor.dtype))
              : ref::numElements(tensor.dims);
      ref::Comparison c = ref::compare(got, out.want, tensor.dtype, count,
                                       limit, limit, /*normwise=*/true);
      if (c.ok)
        continue;
      std::string where = " (output uid " + std::to_string(tensor.uid) + ")";
      if (c.relativeError > limit)
        return "wrong result: relative error " + formatNumber(c.relativeError) +
               " over bound " + formatNumber(limit) + where;
      return std::string("wrong result: ") +
             (raw ? "the element at offset " : "element ") +
             std::to_string(c.firstBad) + " is " + formatNumber(c.got) +
             " where " + (againstFirst ? "the first plan" : "the reference") +
             " has " + formatNumber(c.want) + " (NaN and inf must match)" +
             where;
    }
    for (size_t i = 0; i < firstResults.size(); ++i)
      outputs[i].want = std::move(firstResults[i]);
    return "";
  };

  double fastest = -1;
  for (size_t k = 0; k < plans.size(); ++k) {
    const std::string &name = plans[k].name;
    if (std::string e = check(k); !e.empty()) {
      reject(name + ": " + e);
      continue;
    }
    auto runs = [&]() -> std::string {
      for (int r = 0; r < 5; ++r)
        if (std::string e = run(k); !e.empty())
          return e;
      return "";
    };
    double ms = 0;
    if (std::string e = gpu.time(runs, ms); !e.empty()) {
      reject(name + ": failed while autotuning: " + e);
      continue;
    }
    declined.push_back(name + ": timed " + std::to_string(ms / 5) + " ms");
    if (times)
      (*times)[k] = ms / 5;
    if (fastest < 0 || ms < fastest) {
      fastest = ms;
      best = k;
    }
  }
  if (fastest < 0) {
    std::string why;
    for (const std::string &line : rejected)
      why += "\n  " + line;
    return spec.name + ": autotuning found no correct plan among " +
           std::to_string(plans.size()) + " that built:" + why;
  }
  return gpu.synchronize();
}

/// Splits `spec` in two, its first op (the matmul, convolution, norm or
/// attention a group is anchored on) and the rest, and prepares each piece;
/// a piece no plan builds is split again, down to single ops. Tensors that
/// were virtual inside the group and cross the cut get device buffers.
std::string GpuRun::split(const rt::GraphSpec &spec, const std::string &why) {
  if (options.verbose && report) {
    GpuGroupReport note;
    note.group = spec.name;
    note.declined.push_back("split into " + spec.ops.front().kind +
                            " and the rest: " + why);
    report->push_back(note);
  }
  std::set<int64_t> virtualUids;
  for (const rt::TensorSpec &tensor : spec.tensors)
    if (tensor.isVirtual)
      virtualUids.insert(tensor.uid);
  auto [head, tail] = splitGroupSpec(spec);
  const size_t cut = 1, end = spec.ops.size();
  const std::pair<size_t, size_t> ranges[] = {{0, cut}, {cut, end}};
  rt::GraphSpec *pieces[] = {&head, &tail};
  for (size_t p = 0; p < 2; ++p) {
    auto [from, to] = ranges[p];
    rt::GraphSpec &piece = *pieces[p];
    for (const rt::TensorSpec &tensor : piece.tensors) {
      if (tensor.isVirtual || !virtualUids.count(tensor.uid) ||
          buffers.byUid.count(tensor.uid))
        continue;
      std::string error;
      void *pointer = buffers.allocate(
          bytesOf(tensor), "the split point uid " + std::to_string(tensor.uid),
          error);
      if (!pointer)
        return piece.name + ": " + error;
      buffers.byUid[tensor.uid] = pointer;
    }
    // The piece's own ops, so its plans are checked like the group's.
    const GroupSource *groupSource = source;
    GroupSource pieceSource;
    if (groupSource && groupSource->ops.size() == spec.ops.size()) {
      pieceSource.ops.assign(groupSource->ops.begin() + from,
                             groupSource->ops.begin() + to);
      pieceSource.values = groupSource->values;
      pieceSource.tf32 = groupSource->tf32;
    }
    source = groupSource ? &pieceSource : nullptr;
    std::string error = prepare(piece);
    source = groupSource;
    if (!error.empty())
      return error + "\n(" + spec.name + " was split because " + why + ")";
  }
  return "";
}

void GpuRun::bindSlots() {
  bound = buffers.byUid;
  ioUidList.clear();
  ioSlots.clear();
  for (const DeviceTensor &tensor : lowered.tensors) {
    if (tensor.role == DeviceTensor::Role::Intermediate)
      continue;
    ioUidList.push_back(tensor.uid);
    ioSlots.push_back(&bound[tensor.uid]); // map nodes never move
  }
  byUidScratch.assign(ioUidList.size(), nullptr);
  aliasSlots.clear();
  for (const DeviceTensor &tensor : lowered.tensors)
    if (tensor.aliasOf >= 0)
      aliasSlots.push_back({&bound[tensor.uid], &bound[tensor.aliasOf],
                            static_cast<size_t>(tensor.aliasOffset) *
                                ref::byteWidth(tensor.dtype)});
}

std::string GpuRun::execute(const std::map<int64_t, void *> &user) {
  for (size_t i = 0; i < ioUidList.size(); ++i) {
    auto it = user.find(ioUidList[i]);
    byUidScratch[i] = it == user.end() ? nullptr : it->second;
  }
  return executeSlots(byUidScratch);
}

/// The workspace `group` runs with: the caller's lent one when it is large
/// enough and no constants live in the group's own.
void *workspaceOf(const ReadyGroup &group) {
  if (lentWorkspace && group.workspaceBytes > 0 && !group.keepsOwnWorkspace &&
      group.workspaceBytes <= lentWorkspaceBytes)
    return lentWorkspace;
  return group.workspace;
}

std::string GpuRun::executeSlots(const std::vector<void *> &pointers) {
  // cuDNN and the kernels run in the current context: this device's.
  if (std::string error = gpu.activate(); !error.empty())
    return error;
  // The device's stream and cuDNN handle are this execute's until it ends.
  rt::DeviceUse use(gpu);
  if (pointers.size() != ioSlots.size())
    return "executing: " + std::to_string(pointers.size()) +
           " device pointers given for " + std::to_string(ioSlots.size()) +
           " inputs and outputs";
  for (size_t i = 0; i < pointers.size(); ++i) {
    if (!pointers[i]) {
      bool input = false;
      for (const DeviceTensor &tensor : lowered.tensors)
        if (tensor.uid == ioUidList[i])
          input = tensor.role == DeviceTensor::Role::Input;
      return "no device buffer for " + std::string(input ? "input" : "output") +
             " uid " + std::to_string(ioUidList[i]);
    }
    *ioSlots[i] = pointers[i];
  }
  for (const AliasSlot &alias : aliasSlots)
    *alias.slot = static_cast<char *>(*alias.source) + alias.byteOffset;
  bool ran = false;
  if (std::string error = replayOrRecord(ran); !error.empty() || ran)
    return error;
  return runGroups();
}

std::string GpuRun::runGroups() {
  for (ReadyGroup &group : ready)
    if (std::string error =
            group.kernels
                ? group.kernels->execute(bound)
                : group.group->execute(group.plan, bound,
                                       workspaceOf(group));
        !error.empty())
      return error;
  return "";
}

std::string GpuRun::replayOrRecord(bool &ran) {
  ran = false;
  if (recording == Recording::Unknown) {
    const char *env = std::getenv("GRAPH_CUDA_GRAPHS");
    bool off = env && std::string(env) == "0";
    for (const ReadyGroup &group : ready)
      off = off || (group.group && group.group->readsValuesOnHost());
    recording = off ? Recording::Off : Recording::Allowed;
  }
  // Inside the caller's own capture the launches are recorded as they are.
  if (recording == Recording::Off || gpu.isCapturing())
    return "";
  executeKey.clear();
  for (void **slot : ioSlots)
    executeKey.push_back(*slot);
  executeKey.push_back(lentWorkspace);
  executeKey.push_back(reinterpret_cast<void *>(lentWorkspaceBytes));
  auto hit = llvm::find_if(recordings, [&](const RecordedExecute &r) {
    return r.key == executeKey;
  });
  if (hit != recordings.end()) {
    std::rotate(recordings.begin(), hit, hit + 1);
    ran = true;
    return gpu.replay(*recordings.front().work);
  }
  // A key's first execute runs as it is (it uploads what later executes
  // keep, and a key used once is not worth a recording); its second
  // records.
  auto seen = llvm::find(seenOnce, executeKey);
  if (seen == seenOnce.end()) {
    seenOnce.insert(seenOnce.begin(), executeKey);
    if (seenOnce.size() > kRecordings)
      seenOnce.pop_back();
    return "";
  }
  seenOnce.erase(seen);
  // Full: the least recently used recording's graph is updated instead.
  std::unique_ptr<rt::RecordedWork> work;
  if (recordings.size() == kRecordings) {
    work = std::move(recordings.back().work);
    recordings.pop_back();
  }
  std::string error = gpu.record([&] { return runGroups(); }, work);
  if (!error.empty()) {
    // Nothing ran: the execute runs as it is, and so do all later ones.
    recording = Recording::Off;
    recordings.clear();
    if (rt::tracingRuntime())
      std::fprintf(stderr,
                   "[graph runtime] executes are not recorded as a CUDA "
                   "graph: %s\n",
                   error.c_str());
    return "";
  }
  recordings.insert(recordings.begin(), {executeKey, std::move(work)});
  if (rt::tracingRuntime())
    std::fprintf(stderr,
                 "[graph runtime] execute recorded as a CUDA graph (%zu "
                 "groups); repeated executes replay it\n",
                 ready.size());
  ran = true;
  return gpu.replay(*recordings.front().work);
}

} // namespace

std::string mlir::graph::timeCudnnPlans(rt::Device &device,
                                        const rt::GraphSpec &spec,
                                        rt::CudnnGroup &group,
                                        const std::vector<size_t> &indices,
                                        std::vector<double> &ms,
                                        std::vector<std::string> &notes) {
  std::vector<std::pair<std::string, std::unique_ptr<rt::CodegenKernel>>> none;
  return timeGroupPlans(device, spec, group, indices, none, ms, notes);
}

std::string mlir::graph::timeGroupPlans(
    rt::Device &device, const rt::GraphSpec &spec, rt::CudnnGroup &group,
    const std::vector<size_t> &indices,
    std::vector<std::pair<std::string, std::unique_ptr<rt::CodegenKernel>>>
        &generated,
    std::vector<double> &ms, std::vector<std::string> &notes) {
  std::vector<Candidate> candidates(indices.size());
  for (size_t i = 0; i < indices.size(); ++i) {
    candidates[i].name = group.plans()[indices[i]].name;
    candidates[i].cudnnPlan = indices[i];
    candidates[i].workspace = group.workspaceBytes(indices[i]);
  }
  for (auto &[name, kernels] : generated) {
    Candidate c;
    c.name = name;
    c.kernels = std::move(kernels);
    candidates.push_back(std::move(c));
  }
  size_t best = 0;
  std::string error =
      tuneCandidates(device, /*source=*/nullptr, /*againstFirst=*/true, spec,
                     &group, candidates, best, notes, &ms);
  for (size_t i = 0; i < generated.size(); ++i)
    generated[i].second = std::move(candidates[indices.size() + i].kernels);
  return error;
}

void mlir::graph::lendGpuWorkspace(void *memory, int64_t bytes) {
  lentWorkspace = memory;
  lentWorkspaceBytes = memory ? bytes : 0;
}

std::unique_ptr<GpuExecutable>
GpuExecutable::create(GraphOp graph, const GpuOptions &options,
                      std::string &error, std::vector<GpuGroupReport> *report) {
  rt::Device *device = rt::Device::get(error);
  if (!device) {
    error = "the GPU device is not available: " + error;
    return nullptr;
  }
  auto run = std::make_unique<GpuRun>(*device, options, report);
  if (!(error = lowerToCudnn(graph, run->lowered, &run->sources,
                             /*foldViews=*/true))
           .empty() ||
      !(error = run->allocateIntermediates()).empty())
    return nullptr;
  for (size_t i = 0; i < run->lowered.groups.size(); ++i) {
    run->source = &run->sources[i];
    if (!(error = run->prepare(run->lowered.groups[i])).empty())
      return nullptr;
  }
  // The graph's ops are the caller's: nothing may point at them later.
  run->source = nullptr;
  run->sources.clear();
  run->bindSlots();
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
  run->bindSlots();
  return run;
}

std::unique_ptr<GpuExecutable> mlir::graph::buildGpuExecutable(
    const GpuSource &source, const GpuOptions &options, std::string &error,
    GpuBuildStep &failed, std::vector<GpuGroupReport> *report,
    std::vector<ref::TensorInfo> *graphOutputs) {
  failed = GpuBuildStep::Create;
  if (source.program) // an artifact: its lowered groups, no lowering
    return GpuExecutable::create(std::move(*source.program), options, error,
                                 report);
  GraphOp graph = source.graph;
  OwningOpRef<ModuleOp> holder;
  if (hasDynamicInputs(graph)) {
    // Dims bound from this execute's inputs; the copy goes through the
    // whole GPU pipeline.
    graph = specializeForGpu(graph, source.inputShapes, holder, error);
    if (!graph) {
      failed = GpuBuildStep::Specialize;
      return nullptr;
    }
  } else if (source.lower) {
    GraphOp lowered;
    error = source.lower(holder, lowered);
    if (!error.empty() || !lowered) {
      failed = GpuBuildStep::Lower;
      return nullptr;
    }
    graph = lowered;
  }
  if (graphOutputs) {
    std::vector<ref::TensorInfo> inputInfo;
    ref::describeGraph(graph, inputInfo, *graphOutputs);
  }
  return GpuExecutable::create(graph, options, error, report);
}

namespace {
std::string runOnGpu(GpuExecutable &executable,
                     const std::vector<ref::TensorInfo> &outputInfo,
                     GpuHostRun &run);
} // namespace

std::string mlir::graph::executeOnGpu(GraphOp graph, GpuHostRun &run) {
  const std::vector<ref::HostTensor> &inputs = run.inputs;
  std::vector<ref::TensorInfo> inputInfo, outputInfo;
  ref::describeGraph(graph, inputInfo, outputInfo);
  if (inputs.size() != inputInfo.size())
    return "graph @" + graph.getSymName().str() + " has " +
           std::to_string(inputInfo.size()) + " inputs but " +
           std::to_string(inputs.size()) + " buffers were given";
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ref::Shape &want = inputInfo[i].shape;
    bool match = inputs[i].dtype == inputInfo[i].dtype &&
                 inputs[i].shape.size() == want.size();
    for (size_t d = 0; match && d < want.size(); ++d)
      match = ShapedType::isDynamic(want[d]) || want[d] == inputs[i].shape[d];
    if (!match)
      return "input " + std::to_string(i) + " (uid " +
             std::to_string(inputInfo[i].uid.value_or(-1)) +
             "): the buffer's dtype or dims differ from the graph's";
  }

  GpuSource source;
  source.graph = graph;
  for (const ref::HostTensor &input : inputs)
    source.inputShapes.push_back(input.shape);
  std::string error;
  GpuBuildStep failed;
  std::unique_ptr<GpuExecutable> executable = buildGpuExecutable(
      source, run.options, error, failed, &run.report, &outputInfo);
  if (!executable)
    return error;
  return runOnGpu(*executable, outputInfo, run);
}

std::string
mlir::graph::executeProgramOnGpu(CudnnProgram lowered,
                                 const std::vector<ref::TensorInfo> &outputInfo,
                                 GpuHostRun &run) {
  if (outputInfo.size() != lowered.outputUids.size())
    return "the program has " + std::to_string(lowered.outputUids.size()) +
           " outputs but " + std::to_string(outputInfo.size()) +
           " were described";
  size_t numInputs = 0;
  for (const DeviceTensor &tensor : lowered.tensors)
    if (tensor.role == DeviceTensor::Role::Input)
      numInputs = std::max<size_t>(numInputs, tensor.index + 1);
  if (run.inputs.size() < numInputs)
    return "the program has " + std::to_string(numInputs) + " inputs but " +
           std::to_string(run.inputs.size()) + " buffers were given";
  GpuSource source;
  source.program = &lowered;
  std::string error;
  GpuBuildStep failed;
  std::unique_ptr<GpuExecutable> executable =
      buildGpuExecutable(source, run.options, error, failed, &run.report);
  if (!executable)
    return error;
  return runOnGpu(*executable, outputInfo, run);
}

namespace {

/// Uploads `inputs`, executes, times `benchmarkRuns` more executes and
/// downloads the outputs of `executable` (see executeProgramOnGpu).
std::string runOnGpu(GpuExecutable &executable,
                     const std::vector<ref::TensorInfo> &outputInfo,
                     GpuHostRun &run) {
  const std::vector<ref::HostTensor> &inputs = run.inputs;
  std::vector<ref::HostTensor> &outputs = run.outputs;
  std::string error;
  rt::Device &device = executable.device();
  const CudnnProgram &program = executable.program();

  // Device copies of the inputs and outputs, in the declared layouts.
  Buffers io(device);
  std::map<int64_t, void *> user;
  for (const DeviceTensor &tensor : program.tensors) {
    if (tensor.role == DeviceTensor::Role::Intermediate)
      continue;
    size_t bytes = bytesOf(tensor);
    void *pointer = io.allocate(
        bytes,
        std::string(tensor.role == DeviceTensor::Role::Input ? "input"
                                                             : "output") +
            " uid " + std::to_string(tensor.uid),
        error);
    if (!pointer)
      return "allocating " + std::to_string(bytes) + " bytes for uid " +
             std::to_string(tensor.uid) + ": " + error;
    user[tensor.uid] = pointer;
    if (tensor.role != DeviceTensor::Role::Input) {
      // Zero, as the reference holds what no op writes (a ragged output's
      // positions past each batch's length).
      if (std::string e = device.memset(pointer, 0, bytes); !e.empty())
        return "clearing output uid " + std::to_string(tensor.uid) + ": " + e;
      continue;
    }
    const ref::HostTensor &host = inputs[tensor.index];
    ref::NdArray array =
        ref::load(host.bytes.data(), host.dtype, host.shape, host.strides);
    std::vector<uint8_t> staged(bytes);
    ref::store(array, tensor.dtype, tensor.strides, staged.data());
    if (std::string e = device.copyToDevice(pointer, staged.data(), bytes);
        !e.empty())
      return "uploading input uid " + std::to_string(tensor.uid) + ": " + e;
  }

  if (std::string e = executable.execute(user); !e.empty())
    return e;
  if (std::string e = device.synchronize(); !e.empty())
    return "executing: " + e;
  for (int i = 0; i < run.benchmarkRuns; ++i) {
    double ms = 0;
    if (std::string e =
            device.time([&] { return executable.execute(user); }, ms);
        !e.empty())
      return "benchmark run: " + e;
    run.milliseconds.push_back(ms);
  }

  outputs.clear();
  for (size_t i = 0; i < outputInfo.size(); ++i) {
    const ref::TensorInfo &info = outputInfo[i];
    ref::HostTensor host;
    host.dtype = info.dtype;
    host.shape = info.shape;
    host.strides =
        info.strides.empty() ? ref::rowMajorStrides(info.shape) : info.strides;
    host.bytes.assign(::graph::spanBytes(host.dtype, host.shape, host.strides),
                      0);
    if (int alias = program.outputAliasesInput[i]; alias >= 0) {
      const ref::HostTensor &in = inputs[alias];
      ref::store(ref::load(in.bytes.data(), in.dtype, in.shape, in.strides),
                 host.dtype, host.strides, host.bytes.data());
    } else if (std::string e = device.copyToHost(host.bytes.data(),
                                                 user[program.outputUids[i]],
                                                 host.bytes.size());
               !e.empty()) {
      return "downloading output " + std::to_string(i) + ": " + e;
    }
    outputs.push_back(std::move(host));
  }
  return "";
}

} // namespace
