//===- Graph.cpp - C API of the graph compiler ------------------*- C++ -*-===//
//
// The C surface of GraphDialect-c/Graph.h over graph::Compiler and
// graph::CompiledGraph. Handles are checked against a registry of live
// handles, so NULL, destroyed and foreign handles are reported as
// GRAPH_ERROR_INVALID_ARGUMENT rather than dereferenced.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect-c/Graph.h"
#include "GraphDialect/Compiler.h"
#include "GraphDialect/Support/DType.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

struct GraphContextImpl {
  graph::Compiler compiler;
};

struct GraphModuleImpl {
  graph::CompiledGraph graph;
  // Storage behind the `const char *` the API hands out. Rebuilt after
  // parse, select and prepare only, so pointers stay valid until then.
  std::vector<std::string> graphNames;
  bool ioValid = false;
  graph::Status ioStatus;
  std::vector<graph::TensorDesc> inputs;
  std::vector<graph::TensorDesc> outputs;

  // Guards the lazy description below against concurrent queries.
  std::mutex ioMutex;

  // graphExecute's converted buffers, reused so that a repeated execute
  // allocates nothing (their dims and strides keep their capacity).
  std::mutex executeMutex;
  std::vector<graph::Buffer> executeBuffers;

  // Storage behind graphPlanName / graphPlanNotes, keyed by (plan, kind);
  // cleared by graphPlanCreate. Map nodes never move.
  std::mutex planMutex;
  std::map<std::pair<int32_t, int>, std::string> planStrings;
  const char *keepPlanString(int32_t index, int kind, std::string text) {
    std::lock_guard<std::mutex> lock(planMutex);
    std::string &slot = planStrings[{index, kind}];
    if (slot != text)
      slot = std::move(text); // equal text keeps earlier pointers valid
    return slot.c_str();
  }

  /// After parse and prepare: the graph names and the descriptions change.
  void refresh() {
    graphNames = graph.graphNames();
    invalidateIO();
  }

  /// After select: the descriptions change.
  void invalidateIO() {
    std::lock_guard<std::mutex> lock(ioMutex);
    ioValid = false;
  }

  /// Describes the selected graph's inputs and outputs once per change.
  const graph::Status &io() {
    std::lock_guard<std::mutex> lock(ioMutex);
    if (!ioValid) {
      ioStatus = graph.inputs(inputs);
      if (ioStatus.ok())
        ioStatus = graph.outputs(outputs);
      ioValid = true;
    }
    return ioStatus;
  }
};

struct GraphBuilderImpl {
  GraphContext context;
  graph::GraphBuilder builder;
  GraphBuilderImpl(GraphContext context, const char *name, GraphDType io,
                   GraphDType intermediate, GraphDType compute)
      : context(context),
        builder(name ? name : "", io, intermediate, compute) {}
};

namespace {

thread_local std::string lastError;
thread_local GraphStatus lastStatus = GRAPH_OK;

void clearError() {
  lastError.clear();
  lastStatus = GRAPH_OK;
}

/// Live handles. Leaked on purpose: a handle destroyed from a static
/// destructor must still find the registry.
struct Registry {
  std::mutex mutex;
  std::unordered_set<const void *> contexts;
  std::unordered_set<const void *> modules;
  std::unordered_set<const void *> builders;
};
Registry &registry() {
  static Registry *instance = new Registry();
  return *instance;
}

bool isLive(const std::unordered_set<const void *> &set, const void *handle) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  return set.count(handle) != 0;
}

GraphStatus fail(GraphStatus status, std::string message) {
  lastError = std::move(message);
  lastStatus = status;
  return status;
}

/// Adds live handle `handle` to `set` (a registry() set); returns it.
template <typename T>
T *track(std::unordered_set<const void *> &set, T *handle) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  set.insert(handle);
  return handle;
}

/// Takes live handle `handle` out of `set` (a registry() set) before it is
/// deleted: false, with the last error naming `call`, when it is not live
/// (`<call>: <what> is not a live <type> (destroyed twice?)`).
bool untrack(std::unordered_set<const void *> &set, const void *handle,
             const char *call, const char *what, const char *type) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  if (set.erase(handle))
    return true;
  fail(GRAPH_ERROR_INVALID_ARGUMENT, std::string(call) + ": " + what +
                                         " is not a live " + type +
                                         " (destroyed twice?)");
  return false;
}

GraphStatus report(const graph::Status &status) {
  if (!status.ok()) {
    lastError = status.message();
    lastStatus = status.code();
  }
  return status.code();
}

/// Checks a module handle; on failure sets the last error naming `call`.
bool checkModule(GraphModule module, const char *call) {
  if (!module) {
    fail(GRAPH_ERROR_INVALID_ARGUMENT, std::string(call) + ": module is NULL");
    return false;
  }
  if (!isLive(registry().modules, module)) {
    fail(GRAPH_ERROR_INVALID_ARGUMENT,
         std::string(call) + ": module is not a live GraphModule (destroyed, "
                             "or never returned by graphModuleParse)");
    return false;
  }
  return true;
}

GraphStatus fillInfo(const graph::TensorDesc &desc, const char *kind,
                     int32_t index, GraphTensorInfo *info) {
  if (desc.dims.size() > GRAPH_MAX_RANK)
    return fail(GRAPH_ERROR_NOT_SUPPORTED,
                std::string(kind) + " " + std::to_string(index) + " has rank " +
                    std::to_string(desc.dims.size()) +
                    ", more than GRAPH_MAX_RANK (" +
                    std::to_string(GRAPH_MAX_RANK) + ")");
  std::memset(info, 0, sizeof(*info));
  info->uid = desc.uid.value_or(0);
  info->hasUid = desc.uid.has_value();
  info->name = desc.name.c_str();
  info->dtype = desc.dtype;
  info->rank = static_cast<int32_t>(desc.dims.size());
  for (size_t d = 0; d < desc.dims.size(); ++d) {
    info->dims[d] = desc.dims[d];
    info->strides[d] = d < desc.strides.size() ? desc.strides[d] : 0;
  }
  return GRAPH_OK;
}

GraphStatus getInfo(GraphModule module, int32_t index, GraphTensorInfo *info,
                    bool input) {
  const char *call = input ? "graphGetInput" : "graphGetOutput";
  clearError();
  if (!checkModule(module, call))
    return GRAPH_ERROR_INVALID_ARGUMENT;
  if (!info)
    return fail(GRAPH_ERROR_INVALID_ARGUMENT,
                std::string(call) + ": info is NULL");
  if (GraphStatus s = report(module->io()); s != GRAPH_OK)
    return s;
  const std::vector<graph::TensorDesc> &descs =
      input ? module->inputs : module->outputs;
  if (index < 0 || static_cast<size_t>(index) >= descs.size())
    return fail(GRAPH_ERROR_INVALID_ARGUMENT,
                std::string(call) + ": index " + std::to_string(index) +
                    " is out of range; graph @" + module->graph.selected() +
                    " has " + std::to_string(descs.size()) +
                    (input ? " inputs" : " outputs"));
  return fillInfo(descs[index], input ? "input" : "output", index, info);
}

/// Copies `text` into a malloc'ed buffer for graphFree.
char *toMalloced(const std::string &text, size_t *size, const char *call) {
  char *result = static_cast<char *>(std::malloc(text.size() + 1));
  if (!result) {
    fail(GRAPH_ERROR_EXECUTION, std::string(call) + ": out of memory");
    return nullptr;
  }
  std::memcpy(result, text.data(), text.size());
  result[text.size()] = '\0';
  if (size)
    *size = text.size();
  return result;
}

} // namespace

//===----------------------------------------------------------------------===//
// Errors and names
//===----------------------------------------------------------------------===//

const char *graphGetLastError(void) { return lastError.c_str(); }

GraphStatus graphGetLastStatus(void) { return lastStatus; }

void graphClearLastError(void) { clearError(); }

const char *graphStatusName(GraphStatus status) {
  switch (status) {
  case GRAPH_OK:
    return "GRAPH_OK";
  case GRAPH_ERROR_INVALID_ARGUMENT:
    return "GRAPH_ERROR_INVALID_ARGUMENT";
  case GRAPH_ERROR_INVALID_GRAPH:
    return "GRAPH_ERROR_INVALID_GRAPH";
  case GRAPH_ERROR_NOT_SUPPORTED:
    return "GRAPH_ERROR_NOT_SUPPORTED";
  case GRAPH_ERROR_EXECUTION:
    return "GRAPH_ERROR_EXECUTION";
  case GRAPH_ERROR_NO_DEVICE:
    return "GRAPH_ERROR_NO_DEVICE";
  }
  return nullptr;
}

// GraphDType's values are Support's DType values
// (GraphDialect/Support/DType.h), so the element type table is Support's.
static_assert(GRAPH_F32 == int(::graph::DType::F32) &&
                  GRAPH_F16 == int(::graph::DType::F16) &&
                  GRAPH_BF16 == int(::graph::DType::BF16) &&
                  GRAPH_F64 == int(::graph::DType::F64) &&
                  GRAPH_I8 == int(::graph::DType::I8) &&
                  GRAPH_U8 == int(::graph::DType::U8) &&
                  GRAPH_I32 == int(::graph::DType::I32) &&
                  GRAPH_I64 == int(::graph::DType::I64) &&
                  GRAPH_I1 == int(::graph::DType::I1) &&
                  GRAPH_F8E4M3FN == int(::graph::DType::F8E4M3FN) &&
                  GRAPH_F8E5M2 == int(::graph::DType::F8E5M2) &&
                  GRAPH_F8E8M0FNU == int(::graph::DType::F8E8M0FNU) &&
                  GRAPH_F4E2M1FN == int(::graph::DType::F4E2M1FN) &&
                  GRAPH_F4E2M1FN + 1 == ::graph::kNumDTypes,
              "GraphDType must number the element types as DType does");

const char *graphDTypeName(GraphDType dtype) {
  ::graph::DType type;
  return ::graph::dtypeFromInt(dtype, type) ? ::graph::dtypeName(type)
                                            : nullptr;
}

size_t graphDTypeSize(GraphDType dtype) {
  ::graph::DType type;
  return ::graph::dtypeFromInt(dtype, type) ? ::graph::byteWidth(type) : 0;
}

//===----------------------------------------------------------------------===//
// Contexts and modules
//===----------------------------------------------------------------------===//

GraphContext graphContextCreate(void) {
  clearError();
  return track(registry().contexts, new GraphContextImpl());
}

void graphContextDestroy(GraphContext context) {
  // Modules parsed in the context keep its MLIR context alive.
  if (context && untrack(registry().contexts, context, "graphContextDestroy",
                         "context", "GraphContext"))
    delete context;
}

GraphModule graphModuleParse(GraphContext context, const char *data,
                             size_t size) {
  return graphModuleParseNamed(context, data, size, nullptr);
}

GraphModule graphModuleParseNamed(GraphContext context, const char *data,
                                  size_t size, const char *bufferName) {
  clearError();
  if (!context) {
    fail(GRAPH_ERROR_INVALID_ARGUMENT, "graphModuleParse: context is NULL");
    return nullptr;
  }
  if (!isLive(registry().contexts, context)) {
    fail(GRAPH_ERROR_INVALID_ARGUMENT,
         "graphModuleParse: context is not a live GraphContext");
    return nullptr;
  }
  if (!data && size) {
    fail(GRAPH_ERROR_INVALID_ARGUMENT,
         "graphModuleParse: data is NULL but size is " + std::to_string(size));
    return nullptr;
  }
  auto module = std::make_unique<GraphModuleImpl>();
  graph::Status status = context->compiler.parse(
      std::string_view(data ? data : "", data ? size : 0), module->graph,
      bufferName && *bufferName ? bufferName : "<graph>");
  if (!status.ok()) {
    report(status);
    return nullptr;
  }
  module->refresh();
  return track(registry().modules, module.release());
}

GraphModule graphModuleLowerToExecutable(GraphModule module) {
  clearError();
  if (!checkModule(module, "graphModuleLowerToExecutable"))
    return nullptr;
  auto result = std::make_unique<GraphModuleImpl>();
  if (report(module->graph.lowerToExecutable(result->graph)) != GRAPH_OK)
    return nullptr;
  result->refresh();
  return track(registry().modules, result.release());
}

int graphModuleIsExecutable(GraphModule module) {
  clearError();
  if (!checkModule(module, "graphModuleIsExecutable"))
    return -1;
  return module->graph.isArtifact() ? 1 : 0;
}

void graphModuleDestroy(GraphModule module) {
  if (module && untrack(registry().modules, module, "graphModuleDestroy",
                        "module", "GraphModule"))
    delete module;
}

int32_t graphModuleNumGraphs(GraphModule module) {
  clearError();
  if (!checkModule(module, "graphModuleNumGraphs"))
    return -1;
  return static_cast<int32_t>(module->graphNames.size());
}

const char *graphModuleGraphName(GraphModule module, int32_t index) {
  clearError();
  if (!checkModule(module, "graphModuleGraphName"))
    return nullptr;
  if (index < 0 || static_cast<size_t>(index) >= module->graphNames.size()) {
    fail(GRAPH_ERROR_INVALID_ARGUMENT,
         "graphModuleGraphName: index " + std::to_string(index) +
             " is out of range; the module has " +
             std::to_string(module->graphNames.size()) + " graphs");
    return nullptr;
  }
  return module->graphNames[index].c_str();
}

const char *graphModuleSelectedName(GraphModule module) {
  clearError();
  if (!checkModule(module, "graphModuleSelectedName"))
    return nullptr;
  for (const std::string &name : module->graphNames)
    if (name == module->graph.selected())
      return name.c_str();
  return "";
}

GraphStatus graphModuleSelect(GraphModule module, const char *name) {
  clearError();
  if (!checkModule(module, "graphModuleSelect"))
    return GRAPH_ERROR_INVALID_ARGUMENT;
  if (!name)
    return fail(GRAPH_ERROR_INVALID_ARGUMENT, "graphModuleSelect: name is NULL");
  GraphStatus status = report(module->graph.select(name));
  if (status == GRAPH_OK)
    module->invalidateIO();
  return status;
}

GraphStatus graphModulePrepare(GraphModule module) {
  clearError();
  if (!checkModule(module, "graphModulePrepare"))
    return GRAPH_ERROR_INVALID_ARGUMENT;
  GraphStatus status = report(module->graph.prepare());
  if (status == GRAPH_OK)
    module->refresh();
  return status;
}

char *graphModulePrint(GraphModule module, int generic, size_t *size) {
  clearError();
  if (size)
    *size = 0;
  if (!checkModule(module, "graphModulePrint"))
    return nullptr;
  std::string text;
  if (report(module->graph.print(text, generic != 0)) != GRAPH_OK)
    return nullptr;
  return toMalloced(text, size, "graphModulePrint");
}

char *graphModuleWriteBytecode(GraphModule module, size_t *size) {
  clearError();
  if (size)
    *size = 0;
  if (!checkModule(module, "graphModuleWriteBytecode"))
    return nullptr;
  if (!size) {
    fail(GRAPH_ERROR_INVALID_ARGUMENT,
         "graphModuleWriteBytecode: size is NULL (bytecode holds NUL bytes)");
    return nullptr;
  }
  std::string bytes;
  if (report(module->graph.serialize(bytes)) != GRAPH_OK)
    return nullptr;
  return toMalloced(bytes, size, "graphModuleWriteBytecode");
}

void graphFree(void *pointer) { std::free(pointer); }

//===----------------------------------------------------------------------===//
// Inputs, outputs, execute
//===----------------------------------------------------------------------===//

int32_t graphNumInputs(GraphModule module) {
  clearError();
  if (!checkModule(module, "graphNumInputs"))
    return -1;
  if (report(module->io()) != GRAPH_OK)
    return -1;
  return static_cast<int32_t>(module->inputs.size());
}

int32_t graphNumOutputs(GraphModule module) {
  clearError();
  if (!checkModule(module, "graphNumOutputs"))
    return -1;
  if (report(module->io()) != GRAPH_OK)
    return -1;
  return static_cast<int32_t>(module->outputs.size());
}

GraphStatus graphGetInput(GraphModule module, int32_t index,
                          GraphTensorInfo *info) {
  return getInfo(module, index, info, /*input=*/true);
}

GraphStatus graphGetOutput(GraphModule module, int32_t index,
                           GraphTensorInfo *info) {
  return getInfo(module, index, info, /*input=*/false);
}

GraphStatus graphExecute(GraphModule module, GraphDevice device,
                         const GraphBuffer *buffers, int32_t numBuffers) {
  clearError();
  if (!checkModule(module, "graphExecute"))
    return GRAPH_ERROR_INVALID_ARGUMENT;
  if (numBuffers < 0)
    return fail(GRAPH_ERROR_INVALID_ARGUMENT,
                "graphExecute: numBuffers is " + std::to_string(numBuffers));
  if (!buffers && numBuffers > 0)
    return fail(GRAPH_ERROR_INVALID_ARGUMENT,
                "graphExecute: buffers is NULL but numBuffers is " +
                    std::to_string(numBuffers));
  std::lock_guard<std::mutex> lock(module->executeMutex);
  std::vector<graph::Buffer> &converted = module->executeBuffers;
  converted.resize(numBuffers);
  for (int32_t j = 0; j < numBuffers; ++j) {
    const GraphBuffer &b = buffers[j];
    if (b.rank < 0 || b.rank > GRAPH_MAX_RANK)
      return fail(GRAPH_ERROR_INVALID_ARGUMENT,
                  "buffer " + std::to_string(j) + " (uid " +
                      std::to_string(b.uid) + ") has rank " +
                      std::to_string(b.rank) + "; ranks go from 0 to " +
                      std::to_string(GRAPH_MAX_RANK));
    graph::Buffer &c = converted[j];
    c.uid = b.uid;
    c.data = b.data;
    c.dtype = b.dtype;
    c.dims.assign(b.dims, b.dims + b.rank);
    // All-zero strides mean dense row-major.
    bool anyStride = false;
    for (int32_t d = 0; d < b.rank; ++d)
      anyStride |= b.strides[d] != 0;
    c.strides.clear();
    if (anyStride)
      c.strides.assign(b.strides, b.strides + b.rank);
  }
  return report(module->graph.execute(device, converted));
}

GraphStatus graphSetStream(void *stream) {
  clearError();
  return report(graph::setGpuStream(stream));
}

GraphStatus graphSetWorkspace(void *memory, int64_t bytes) {
  clearError();
  return report(graph::setGpuWorkspace(memory, bytes));
}

GraphStatus graphSetDevice(int32_t ordinal) {
  clearError();
  return report(graph::setGpuDevice(ordinal));
}

GraphStatus graphGetDevice(int32_t *ordinal) {
  clearError();
  if (!ordinal)
    return fail(GRAPH_ERROR_INVALID_ARGUMENT,
                "graphGetDevice: ordinal is NULL");
  int value = -1;
  GraphStatus status = report(graph::gpuDevice(value));
  *ordinal = value;
  return status;
}

GraphStatus graphGetDeviceCount(int32_t *count) {
  clearError();
  if (!count)
    return fail(GRAPH_ERROR_INVALID_ARGUMENT,
                "graphGetDeviceCount: count is NULL");
  int value = 0;
  GraphStatus status = report(graph::gpuDeviceCount(value));
  *count = value;
  return status;
}

//===----------------------------------------------------------------------===//
// GPU plan list
//===----------------------------------------------------------------------===//

/// "" when `count` items can be read at `items` (none needs no array);
/// else the call's error naming both arguments.
static std::string arrayArgument(const char *call, const char *countName,
                                 int32_t count, const char *itemsName,
                                 const void *items) {
  if (count >= 0 && (count == 0 || items))
    return "";
  return std::string(call) + ": " + countName + " is " + std::to_string(count) +
         (count > 0 ? std::string(" but ") + itemsName + " is NULL" : "");
}

GraphStatus graphPlanCreate(GraphModule module, GraphDevice device,
                            const int *heurModes, int32_t numModes) {
  clearError();
  if (!checkModule(module, "graphPlanCreate"))
    return GRAPH_ERROR_INVALID_ARGUMENT;
  if (std::string why = arrayArgument("graphPlanCreate", "numModes", numModes,
                                      "heurModes", heurModes);
      !why.empty())
    return fail(GRAPH_ERROR_INVALID_ARGUMENT, why);
  std::vector<int> modes(heurModes, heurModes + numModes);
  GraphStatus status = report(module->graph.planCreate(device, modes));
  if (status == GRAPH_OK) {
    std::lock_guard<std::mutex> lock(module->planMutex);
    module->planStrings.clear();
  }
  return status;
}

int32_t graphPlanCount(GraphModule module, int32_t *numGroups) {
  clearError();
  if (numGroups)
    *numGroups = -1;
  if (!checkModule(module, "graphPlanCount"))
    return -1;
  int32_t plans = -1, groups = -1;
  if (report(module->graph.planCount(plans, groups)) != GRAPH_OK)
    return -1;
  if (numGroups)
    *numGroups = groups;
  return plans;
}

int32_t graphPlanGroup(GraphModule module) {
  clearError();
  if (!checkModule(module, "graphPlanGroup"))
    return -1;
  int32_t group = -1;
  if (report(module->graph.planGroup(group)) != GRAPH_OK)
    return -1;
  return group;
}

namespace {
GraphStatus planInfo(GraphModule module, int32_t index, const char *call,
                     graph::PlanDesc &desc) {
  clearError();
  if (!checkModule(module, call))
    return GRAPH_ERROR_INVALID_ARGUMENT;
  graph::Status status = module->graph.planInfo(index, desc);
  if (!status.ok()) {
    std::string text = status.message();
    // The C++ layer names its own call; name the C one.
    if (text.rfind("graphPlanInfo", 0) == 0)
      text = call + text.substr(std::strlen("graphPlanInfo"));
    return fail(status.code(), text);
  }
  return report(status);
}

std::string joined(const std::vector<std::string> &names) {
  std::string text;
  for (const std::string &name : names)
    text += (text.empty() ? "" : ",") + name;
  return text;
}
} // namespace

const char *graphPlanName(GraphModule module, int32_t index) {
  graph::PlanDesc desc;
  if (planInfo(module, index, "graphPlanName", desc) != GRAPH_OK)
    return nullptr;
  return module->keepPlanString(index, 0, desc.name);
}

GraphStatus graphPlanEngine(GraphModule module, int32_t index,
                            int64_t *engineId, int64_t *knobs,
                            int32_t *numKnobs) {
  if (!numKnobs) {
    clearError();
    if (!checkModule(module, "graphPlanEngine"))
      return GRAPH_ERROR_INVALID_ARGUMENT;
    return fail(GRAPH_ERROR_INVALID_ARGUMENT,
                "graphPlanEngine: numKnobs is NULL");
  }
  int32_t capacity = *numKnobs;
  if (capacity < 0 || (capacity > 0 && !knobs)) {
    clearError();
    if (!checkModule(module, "graphPlanEngine"))
      return GRAPH_ERROR_INVALID_ARGUMENT;
    return fail(GRAPH_ERROR_INVALID_ARGUMENT,
                "graphPlanEngine: capacity *numKnobs is " +
                    std::to_string(capacity) +
                    (capacity > 0 ? " but knobs is NULL" : ""));
  }
  graph::PlanDesc desc;
  if (GraphStatus s = planInfo(module, index, "graphPlanEngine", desc);
      s != GRAPH_OK)
    return s;
  int32_t count = static_cast<int32_t>(desc.knobs.size());
  *numKnobs = count;
  if (engineId)
    *engineId = desc.engineId;
  if (count > capacity)
    return fail(GRAPH_ERROR_INVALID_ARGUMENT,
                "graphPlanEngine: plan " + std::to_string(index) + " (" +
                    desc.name + ") has " + std::to_string(count) +
                    " knobs but the array holds " + std::to_string(capacity) +
                    " (*numKnobs now says how many)");
  for (int32_t k = 0; k < count; ++k) {
    knobs[2 * k] = desc.knobs[k].first;
    knobs[2 * k + 1] = desc.knobs[k].second;
  }
  return GRAPH_OK;
}

int64_t graphPlanWorkspace(GraphModule module, int32_t index) {
  graph::PlanDesc desc;
  if (planInfo(module, index, "graphPlanWorkspace", desc) != GRAPH_OK)
    return -1;
  if (!desc.built) {
    if (report(module->graph.planBuild(index)) != GRAPH_OK)
      return -1;
    if (report(module->graph.planInfo(index, desc)) != GRAPH_OK)
      return -1;
  }
  return desc.workspace;
}

const char *graphPlanNotes(GraphModule module, int32_t index, int numeric) {
  graph::PlanDesc desc;
  if (planInfo(module, index, "graphPlanNotes", desc) != GRAPH_OK)
    return nullptr;
  return module->keepPlanString(
      index, numeric ? 2 : 1,
      joined(numeric ? desc.numericNotes : desc.behaviorNotes));
}

GraphStatus graphPlanBuild(GraphModule module, int32_t index) {
  clearError();
  if (!checkModule(module, "graphPlanBuild"))
    return GRAPH_ERROR_INVALID_ARGUMENT;
  return report(module->graph.planBuild(index));
}

GraphStatus graphPlanBuildMany(GraphModule module, const int32_t *indices,
                               int32_t count) {
  clearError();
  if (!checkModule(module, "graphPlanBuildMany"))
    return GRAPH_ERROR_INVALID_ARGUMENT;
  if (std::string why = arrayArgument("graphPlanBuildMany", "count", count,
                                      "indices", indices);
      !why.empty())
    return fail(GRAPH_ERROR_INVALID_ARGUMENT, why);
  return report(module->graph.planBuildMany(
      std::vector<int32_t>(indices, indices + count)));
}

GraphStatus graphPlanSelect(GraphModule module, int32_t index) {
  clearError();
  if (!checkModule(module, "graphPlanSelect"))
    return GRAPH_ERROR_INVALID_ARGUMENT;
  return report(module->graph.planSelect(index));
}

GraphStatus graphPlanAdd(GraphModule module, int64_t engineId,
                         const int64_t *knobs, int32_t numKnobs) {
  clearError();
  if (!checkModule(module, "graphPlanAdd"))
    return GRAPH_ERROR_INVALID_ARGUMENT;
  if (std::string why =
          arrayArgument("graphPlanAdd", "numKnobs", numKnobs, "knobs", knobs);
      !why.empty())
    return fail(GRAPH_ERROR_INVALID_ARGUMENT, why);
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (int32_t k = 0; k < numKnobs; ++k)
    pairs.emplace_back(knobs[2 * k], knobs[2 * k + 1]);
  int32_t index = -1;
  return report(module->graph.planAdd(engineId, pairs, index));
}

GraphStatus graphSetPlanOptions(GraphModule module,
                                const char *const *deselectNames,
                                int32_t numNames, int64_t workspaceLimit,
                                int autotune) {
  clearError();
  if (!checkModule(module, "graphSetPlanOptions"))
    return GRAPH_ERROR_INVALID_ARGUMENT;
  if (std::string why = arrayArgument("graphSetPlanOptions", "numNames",
                                      numNames, "deselectNames", deselectNames);
      !why.empty())
    return fail(GRAPH_ERROR_INVALID_ARGUMENT, why);
  std::vector<std::string> names;
  for (int32_t i = 0; i < numNames; ++i) {
    if (!deselectNames[i])
      return fail(GRAPH_ERROR_INVALID_ARGUMENT,
                  "graphSetPlanOptions: deselectNames[" + std::to_string(i) +
                      "] is NULL");
    names.emplace_back(deselectNames[i]);
  }
  return report(
      module->graph.setPlanOptions(names, workspaceLimit, autotune != 0));
}

//===----------------------------------------------------------------------===//
// Graph builder
//===----------------------------------------------------------------------===//

namespace {

bool checkBuilder(GraphBuilder builder, const char *call) {
  if (!builder) {
    fail(GRAPH_ERROR_INVALID_ARGUMENT, std::string(call) + ": builder is NULL");
    return false;
  }
  if (!isLive(registry().builders, builder)) {
    fail(GRAPH_ERROR_INVALID_ARGUMENT,
         std::string(call) + ": builder is not a live GraphBuilder (destroyed, "
                             "or never returned by graphBuilderCreate)");
    return false;
  }
  return true;
}

/// Reports a builder Status, prefixing the C function's name.
GraphStatus reportBuilder(const graph::Status &status, const char *call) {
  if (status.ok())
    return GRAPH_OK;
  return fail(status.code(), std::string(call) + ": " + status.message());
}

bool readDims(int32_t rank, const int64_t *dims, std::vector<int64_t> &out,
              const char *call, const char *what) {
  if (rank < 0 || rank > GRAPH_MAX_RANK) {
    fail(GRAPH_ERROR_INVALID_ARGUMENT,
         std::string(call) + ": rank " + std::to_string(rank) +
             " is outside 0.." + std::to_string(GRAPH_MAX_RANK));
    return false;
  }
  if (rank > 0 && !dims) {
    fail(GRAPH_ERROR_INVALID_ARGUMENT,
         std::string(call) + ": " + what + " is NULL for rank " +
             std::to_string(rank));
    return false;
  }
  out.assign(dims, dims + rank);
  return true;
}

} // namespace

GraphBuilder graphBuilderCreate(GraphContext context, const char *graphName,
                                GraphDType io, GraphDType intermediate,
                                GraphDType compute) {
  clearError();
  if (!context || !isLive(registry().contexts, context)) {
    fail(GRAPH_ERROR_INVALID_ARGUMENT,
         std::string("graphBuilderCreate: context is ") +
             (context ? "not a live GraphContext" : "NULL"));
    return nullptr;
  }
  if (!graphDTypeName(io) && static_cast<int>(io) != -1) {
    fail(GRAPH_ERROR_INVALID_ARGUMENT,
         "graphBuilderCreate: unknown dtype " +
             std::to_string(static_cast<int>(io)));
    return nullptr;
  }
  for (GraphDType dtype : {intermediate, compute})
    if (!graphDTypeName(dtype)) {
      fail(GRAPH_ERROR_INVALID_ARGUMENT,
           "graphBuilderCreate: unknown dtype " +
               std::to_string(static_cast<int>(dtype)));
      return nullptr;
    }
  return track(
      registry().builders,
      new GraphBuilderImpl(context, graphName, io, intermediate, compute));
}

void graphBuilderDestroy(GraphBuilder builder) {
  if (builder && untrack(registry().builders, builder, "graphBuilderDestroy",
                         "builder", "GraphBuilder"))
    delete builder;
}

int64_t graphBuilderTensor(GraphBuilder builder, GraphDType dtype,
                           int32_t rank, const int64_t *dims,
                           const int64_t *stridesOrNull,
                           const char *nameOrNull) {
  const char *call = "graphBuilderTensor";
  clearError();
  if (!checkBuilder(builder, call))
    return -1;
  std::vector<int64_t> d, s;
  if (!readDims(rank, dims, d, call, "dims"))
    return -1;
  if (stridesOrNull)
    s.assign(stridesOrNull, stridesOrNull + rank);
  int64_t id = -1;
  if (reportBuilder(builder->builder.tensor(dtype, d, s,
                                            nameOrNull ? nameOrNull : "", id),
                    call) != GRAPH_OK)
    return -1;
  return id;
}

namespace {
/// A builder call that adds a scalar: its handle, or -1 with the error.
template <typename Add>
int64_t addScalar(GraphBuilder builder, const char *call, Add add) {
  clearError();
  if (!checkBuilder(builder, call))
    return -1;
  int64_t id = -1;
  if (reportBuilder(add(id), call) != GRAPH_OK)
    return -1;
  return id;
}
} // namespace

int64_t graphBuilderScalar(GraphBuilder builder, GraphDType dtype,
                           double value, const char *nameOrNull) {
  return addScalar(builder, "graphBuilderScalar", [&](int64_t &id) {
    return builder->builder.scalar(dtype, value, nameOrNull ? nameOrNull : "",
                                   id);
  });
}

int64_t graphBuilderScalarInt(GraphBuilder builder, GraphDType dtype,
                              int64_t value, const char *nameOrNull) {
  return addScalar(builder, "graphBuilderScalarInt", [&](int64_t &id) {
    return builder->builder.scalarInt(dtype, value,
                                      nameOrNull ? nameOrNull : "", id);
  });
}

GraphStatus graphTensorSetUid(GraphBuilder builder, int64_t tensor,
                              int64_t uid) {
  clearError();
  if (!checkBuilder(builder, "graphTensorSetUid"))
    return GRAPH_ERROR_INVALID_ARGUMENT;
  return reportBuilder(builder->builder.setUid(tensor, uid),
                       "graphTensorSetUid");
}

GraphStatus graphTensorSetName(GraphBuilder builder, int64_t tensor,
                               const char *name) {
  clearError();
  if (!checkBuilder(builder, "graphTensorSetName"))
    return GRAPH_ERROR_INVALID_ARGUMENT;
  return reportBuilder(builder->builder.setName(tensor, name ? name : ""),
                       "graphTensorSetName");
}

GraphStatus graphTensorSetDims(GraphBuilder builder, int64_t tensor,
                               int32_t rank, const int64_t *dims) {
  const char *call = "graphTensorSetDims";
  clearError();
  if (!checkBuilder(builder, call))
    return GRAPH_ERROR_INVALID_ARGUMENT;
  std::vector<int64_t> d;
  if (!readDims(rank, dims, d, call, "dims"))
    return GRAPH_ERROR_INVALID_ARGUMENT;
  return reportBuilder(builder->builder.setDims(tensor, d), call);
}

GraphStatus graphTensorSetStrides(GraphBuilder builder, int64_t tensor,
                                  int32_t rank, const int64_t *strides) {
  const char *call = "graphTensorSetStrides";
  clearError();
  if (!checkBuilder(builder, call))
    return GRAPH_ERROR_INVALID_ARGUMENT;
  std::vector<int64_t> s;
  if (!readDims(rank, strides, s, call, "strides"))
    return GRAPH_ERROR_INVALID_ARGUMENT;
  return reportBuilder(builder->builder.setStrides(tensor, s), call);
}

GraphStatus graphTensorSetDType(GraphBuilder builder, int64_t tensor,
                                GraphDType dtype) {
  clearError();
  if (!checkBuilder(builder, "graphTensorSetDType"))
    return GRAPH_ERROR_INVALID_ARGUMENT;
  return reportBuilder(builder->builder.setDType(tensor, dtype),
                       "graphTensorSetDType");
}

GraphStatus graphTensorSetOutput(GraphBuilder builder, int64_t tensor,
                                 int output) {
  clearError();
  if (!checkBuilder(builder, "graphTensorSetOutput"))
    return GRAPH_ERROR_INVALID_ARGUMENT;
  return reportBuilder(builder->builder.setOutput(tensor, output != 0),
                       "graphTensorSetOutput");
}

GraphStatus graphTensorSetVirtual(GraphBuilder builder, int64_t tensor,
                                  int isVirtual) {
  clearError();
  if (!checkBuilder(builder, "graphTensorSetVirtual"))
    return GRAPH_ERROR_INVALID_ARGUMENT;
  return reportBuilder(builder->builder.setVirtual(tensor, isVirtual != 0),
                       "graphTensorSetVirtual");
}

GraphStatus graphTensorSetByValue(GraphBuilder builder, int64_t tensor,
                                  int byValue) {
  clearError();
  if (!checkBuilder(builder, "graphTensorSetByValue"))
    return GRAPH_ERROR_INVALID_ARGUMENT;
  return reportBuilder(builder->builder.setByValue(tensor, byValue != 0),
                       "graphTensorSetByValue");
}

GraphStatus graphBuilderOp(GraphBuilder builder, const char *kind,
                           const char *modeOrNull, const char *nameOrNull,
                           const char *const *inPorts,
                           const int64_t *inTensors, int32_t numIn,
                           const char *const *outPorts,
                           const int64_t *outTensors, int32_t numOut,
                           const char *attributesOrNull) {
  const char *call = "graphBuilderOp";
  clearError();
  if (!checkBuilder(builder, call))
    return GRAPH_ERROR_INVALID_ARGUMENT;
  if (!kind)
    return fail(GRAPH_ERROR_INVALID_ARGUMENT,
                std::string(call) + ": kind is NULL");
  auto ports = [&](const char *const *names, const int64_t *tensors,
                   int32_t count, const char *what,
                   std::vector<graph::GraphBuilder::Port> &out) {
    if (count < 0 || (count > 0 && (!names || !tensors))) {
      fail(GRAPH_ERROR_INVALID_ARGUMENT,
           std::string(call) + ": " + what + " ports: count " +
               std::to_string(count) + (count < 0 ? " is negative"
                                                  : " with NULL arrays"));
      return false;
    }
    for (int32_t i = 0; i < count; ++i) {
      if (!names[i]) {
        fail(GRAPH_ERROR_INVALID_ARGUMENT, std::string(call) + ": " + what +
                                               " port name " +
                                               std::to_string(i) + " is NULL");
        return false;
      }
      out.push_back({names[i], tensors[i]});
    }
    return true;
  };
  std::vector<graph::GraphBuilder::Port> ins, outs;
  if (!ports(inPorts, inTensors, numIn, "input", ins) ||
      !ports(outPorts, outTensors, numOut, "output", outs))
    return GRAPH_ERROR_INVALID_ARGUMENT;
  if (!isLive(registry().contexts, builder->context))
    return fail(GRAPH_ERROR_INVALID_ARGUMENT,
                std::string(call) + ": the builder's context was destroyed");
  return reportBuilder(
      builder->builder.op(builder->context->compiler, kind,
                          modeOrNull ? modeOrNull : "",
                          nameOrNull ? nameOrNull : "", ins, outs,
                          attributesOrNull ? attributesOrNull : ""),
      call);
}

namespace {
/// graphTensorGetDims / graphTensorGetStrides: copies `values` out with the
/// capacity protocol of graphPlanEngine.
GraphStatus copyShape(const std::vector<int64_t> &values, int32_t *rank,
                      int64_t *out, const char *call) {
  if (!rank)
    return fail(GRAPH_ERROR_INVALID_ARGUMENT,
                std::string(call) + ": rank is NULL");
  int32_t capacity = *rank;
  *rank = static_cast<int32_t>(values.size());
  if (capacity < *rank || (*rank > 0 && !out))
    return fail(GRAPH_ERROR_INVALID_ARGUMENT,
                std::string(call) + ": room for " + std::to_string(capacity) +
                    " values but the tensor has " + std::to_string(*rank) +
                    " (*rank now says how many)");
  if (!values.empty())
    std::copy(values.begin(), values.end(), out);
  return GRAPH_OK;
}

GraphStatus getShape(GraphBuilder builder, int64_t tensor, int32_t *rank,
                     int64_t *out, bool strides, const char *call) {
  clearError();
  if (!checkBuilder(builder, call))
    return GRAPH_ERROR_INVALID_ARGUMENT;
  std::vector<int64_t> dims, strideValues;
  if (GraphStatus status = reportBuilder(
          builder->builder.shape(tensor, dims, strideValues), call);
      status != GRAPH_OK)
    return status;
  return copyShape(strides ? strideValues : dims, rank, out, call);
}
} // namespace

GraphStatus graphTensorGetDims(GraphBuilder builder, int64_t tensor,
                               int32_t *rank, int64_t *dims) {
  return getShape(builder, tensor, rank, dims, false, "graphTensorGetDims");
}

GraphStatus graphTensorGetStrides(GraphBuilder builder, int64_t tensor,
                                  int32_t *rank, int64_t *strides) {
  return getShape(builder, tensor, rank, strides, true,
                  "graphTensorGetStrides");
}

char *graphBuilderPrint(GraphBuilder builder, size_t *size) {
  clearError();
  if (!checkBuilder(builder, "graphBuilderPrint"))
    return nullptr;
  std::string text;
  if (reportBuilder(builder->builder.text(text), "graphBuilderPrint") !=
      GRAPH_OK)
    return nullptr;
  return toMalloced(text, size, "graphBuilderPrint");
}

GraphModule graphBuilderFinish(GraphBuilder builder) {
  clearError();
  if (!checkBuilder(builder, "graphBuilderFinish"))
    return nullptr;
  if (!isLive(registry().contexts, builder->context)) {
    fail(GRAPH_ERROR_INVALID_ARGUMENT,
         "graphBuilderFinish: the builder's context was destroyed");
    return nullptr;
  }
  auto module = std::make_unique<GraphModuleImpl>();
  graph::Status status =
      builder->builder.finish(builder->context->compiler, module->graph);
  if (!status.ok()) {
    report(status);
    return nullptr;
  }
  module->refresh();
  return track(registry().modules, module.release());
}
