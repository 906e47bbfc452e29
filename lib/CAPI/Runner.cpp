//===- Runner.cpp - Run a graph file as a tool does (C++ API) ---*- C++ -*-===//
//
// graph::Runner and the tensor helpers of GraphDialect/Runner.h: a thin
// layer over the engine layer's running API (GraphDialect/Engine/RunGraph.h)
// that converts its MLIR-facing types to the public ones. The messages are
// the engine layer's, unchanged.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Runner.h"

#include "GraphDialect/Engine/RunGraph.h"
#include "GraphDialect/Executable/ExecDialect.h"
#include "GraphDialect/Executable/ExecOps.h"
#include "GraphDialect/GraphDialect.h"
#include "GraphDialect/Support/Compare.h"
#include "GraphDialect/Support/Memory.h"
#include "GraphDialect/Support/Npy.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cstring>
#include <optional>

using namespace mlir;
using ::graph::GroupPlanReport;
using ::graph::RunDevice;
using ::graph::RunDiagnostic;
using ::graph::Runner;
using ::graph::Status;
using ::graph::TensorData;
using ::graph::TensorDesc;
namespace ref = ::graph::ref;

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

namespace {

ref::DType toRef(GraphDType dtype) {
  // The same numbering (Support/DType.h, checked in Graph.cpp).
  return static_cast<ref::DType>(dtype);
}

GraphDType fromRef(ref::DType dtype) { return static_cast<GraphDType>(dtype); }

/// -1 (the API's dynamic dim) -> kDynamicDim.
ref::Shape toRefDims(const std::vector<int64_t> &dims) {
  ref::Shape shape(dims.begin(), dims.end());
  for (int64_t &d : shape)
    if (d < 0)
      d = ::graph::kDynamicDim;
  return shape;
}

TensorDesc toDesc(const ref::TensorInfo &info) {
  TensorDesc desc;
  desc.uid = info.uid;
  desc.name = info.name;
  desc.dtype = fromRef(info.dtype);
  for (int64_t d : info.shape)
    desc.dims.push_back(d < 0 ? -1 : d);
  desc.strides.assign(info.strides.begin(), info.strides.end());
  return desc;
}

ref::TensorInfo toInfo(const TensorDesc &desc) {
  ref::TensorInfo info;
  info.uid = desc.uid;
  info.name = desc.name;
  info.dtype = toRef(desc.dtype);
  info.shape = toRefDims(desc.dims);
  info.strides.assign(desc.strides.begin(), desc.strides.end());
  return info;
}

/// Copies a (possibly strided) tensor into dense row-major bytes,
/// bit-exactly.
TensorData denseOf(ref::HostTensor &&tensor) {
  TensorData out;
  out.dtype = fromRef(tensor.dtype);
  out.dims.assign(tensor.shape.begin(), tensor.shape.end());
  size_t width = ref::byteWidth(tensor.dtype);
  int64_t count = tensor.numElements();
  ref::Shape rowMajor = ref::rowMajorStrides(tensor.shape);
  if (tensor.strides.empty() || tensor.strides == rowMajor) {
    tensor.bytes.resize(count * width);
    out.bytes = std::move(tensor.bytes);
    return out;
  }
  out.bytes.resize(count * width);
  size_t rank = tensor.shape.size();
  ref::Shape index(rank, 0);
  int64_t src = 0;
  for (int64_t e = 0; e < count; ++e) {
    std::memcpy(&out.bytes[e * width], &tensor.bytes[src * width], width);
    for (size_t k = rank; k-- > 0;) {
      ++index[k];
      src += tensor.strides[k];
      if (index[k] < tensor.shape[k])
        break;
      src -= tensor.strides[k] * tensor.shape[k];
      index[k] = 0;
    }
  }
  return out;
}

std::vector<TensorData> denseOf(std::vector<ref::HostTensor> &&tensors) {
  std::vector<TensorData> out;
  out.reserve(tensors.size());
  for (ref::HostTensor &tensor : tensors)
    out.push_back(denseOf(std::move(tensor)));
  tensors.clear();
  return out;
}

Status error(GraphStatus code, std::string message) {
  return Status(code, std::move(message));
}

} // namespace

//===----------------------------------------------------------------------===//
// Tensors, text, .npy files, comparisons
//===----------------------------------------------------------------------===//

namespace graph {

int64_t TensorData::numElements() const { return ref::numElements(dims); }

double TensorData::element(int64_t index) const {
  ref::DType type = toRef(dtype);
  return ref::decode(type, &bytes[index * ref::byteWidth(type)]);
}

bool isFloatDType(GraphDType dtype) {
  ref::DType type;
  return ::graph::dtypeFromInt(dtype, type) && ref::isFloat(type);
}

std::string tensorLabel(const TensorDesc &desc) {
  return mlir::graph::describeTensor(toInfo(desc));
}

std::string tensorUidText(const TensorDesc &desc) {
  return mlir::graph::uidText(toInfo(desc));
}

std::string tensorTypeText(const std::vector<int64_t> &dims, GraphDType dtype) {
  return mlir::graph::typeText(toRefDims(dims), toRef(dtype));
}

Status readNpy(const std::string &path, GraphDType dtype, TensorData &out) {
  ::graph::NpyArray array;
  if (std::string err = ::graph::readNpyFile(path, array); !err.empty())
    return error(GRAPH_ERROR_INVALID_ARGUMENT, err);
  if (std::string err = ::graph::checkNpyDType(array, toRef(dtype));
      !err.empty())
    return error(GRAPH_ERROR_INVALID_ARGUMENT, "'" + path + "': " + err);
  out.dtype = dtype;
  out.dims.assign(array.shape.begin(), array.shape.end());
  out.bytes = std::move(array.data);
  return Status();
}

Status writeNpy(const std::string &path, const TensorData &tensor) {
  if (std::string err = ::graph::writeNpyFile(path, toRef(tensor.dtype),
                                              tensor.dims, tensor.bytes.data());
      !err.empty())
    return error(GRAPH_ERROR_EXECUTION, err);
  return Status();
}

TensorComparison compareTensors(const TensorData &got, const TensorData &want,
                                double rtol, double atol, bool normwise) {
  ::graph::Comparison c =
      ::graph::compare(got.bytes, want.bytes, toRef(got.dtype),
                       got.numElements(), rtol, atol, normwise);
  TensorComparison out;
  out.ok = c.ok;
  out.firstBad = c.firstBad;
  out.got = c.got;
  out.want = c.want;
  out.maxAbsDiff = c.maxAbsDiff;
  out.relativeError = c.relativeError;
  return out;
}

TimingSummary summarizeTimings(std::vector<double> seconds) {
  TimingSummary summary;
  if (seconds.empty())
    return summary;
  std::sort(seconds.begin(), seconds.end());
  size_t n = seconds.size();
  summary.runs = n;
  summary.min = seconds.front();
  summary.max = seconds.back();
  summary.median =
      n % 2 ? seconds[n / 2] : 0.5 * (seconds[n / 2 - 1] + seconds[n / 2]);
  return summary;
}

bool parseHeuristicsMode(std::string_view word, GraphHeurMode &mode) {
  ::graph::rt::HeurMode parsed;
  if (!mlir::graph::parseHeuristicsMode(
          llvm::StringRef(word.data(), word.size()), parsed))
    return false;
  switch (parsed) {
  case ::graph::rt::HeurMode::A:
    mode = GRAPH_HEUR_MODE_A;
    return true;
  case ::graph::rt::HeurMode::B:
    mode = GRAPH_HEUR_MODE_B;
    return true;
  case ::graph::rt::HeurMode::Fallback:
    mode = GRAPH_HEUR_MODE_FALLBACK;
    return true;
  }
  return false;
}

} // namespace graph

//===----------------------------------------------------------------------===//
// Runner
//===----------------------------------------------------------------------===//

struct Runner::Impl {
  MLIRContext context;
  std::optional<DiagnosticEngine::HandlerID> handlerId;
  std::string fileName;
  OwningOpRef<ModuleOp> module;
  mlir::graph::GraphOp graph;
  // The prepared graph as written, before the GPU pipeline's rewrites
  // (fusion, MoE routing splits): what the CPU reference checks a GPU run
  // against. Null while the graph has not been sent to the GPU.
  OwningOpRef<ModuleOp> referenceModule;
  mlir::graph::GraphOp referenceGraph;
  exec::ProgramOp program;
  bool artifact = false;
  bool prepared = false;
  bool onGpu = false;
  mlir::graph::RunIO io;
  mlir::graph::LoadedProgram loaded;
  std::vector<TensorDesc> inputs, outputs;
  // All of the inputs are held at once: their total must fit.
  ::graph::HostMemoryBudget budget;
  std::vector<std::optional<ref::HostTensor>> given;
  // The bound inputs in input order, once a run took them from `given`.
  std::vector<ref::HostTensor> bound;
  bool inputsTaken = false;

  Impl() : context(makeRegistry()) { context.loadAllAvailableDialects(); }

  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registry.insert<mlir::graph::GraphDialect, exec::ExecDialect>();
    return registry;
  }

  /// The input's block argument (null for an artifact): random integer
  /// data reads a legal value from its use.
  BlockArgument argOf(size_t i) const {
    return i < io.args.size() ? io.args[i] : BlockArgument();
  }

  std::string label() const {
    return (artifact ? "exec.program @" : "graph @") + name();
  }

  std::string name() const {
    if (artifact && program)
      return exec::ProgramOp(program).getSymName().str();
    if (graph)
      return mlir::graph::GraphOp(graph).getSymName().str();
    return "";
  }

  /// Every input in input order; "" or the first one missing.
  std::string takeInputs() {
    if (inputsTaken)
      return "";
    for (size_t i = 0; i < given.size(); ++i)
      if (!given[i])
        return "input " + mlir::graph::describeTensor(io.inputs[i]) + " of " +
               label() + " is not bound";
    bound.clear();
    for (std::optional<ref::HostTensor> &tensor : given)
      bound.push_back(std::move(*tensor));
    given.clear();
    inputsTaken = true;
    return "";
  }
};

Runner::Runner(RunDiagnosticHandler handler) : impl(std::make_unique<Impl>()) {
  if (!handler)
    return;
  impl->handlerId = impl->context.getDiagEngine().registerHandler(
      [handler = std::move(handler)](Diagnostic &diag) {
        RunDiagnostic out;
        switch (diag.getSeverity()) {
        case DiagnosticSeverity::Error:
          out.severity = RunDiagnostic::Severity::Error;
          break;
        case DiagnosticSeverity::Warning:
          out.severity = RunDiagnostic::Severity::Warning;
          break;
        case DiagnosticSeverity::Note:
          out.severity = RunDiagnostic::Severity::Note;
          break;
        case DiagnosticSeverity::Remark:
          out.severity = RunDiagnostic::Severity::Remark;
          break;
        }
        if (auto loc = dyn_cast<FileLineColLoc>(diag.getLocation())) {
          out.file = loc.getFilename().getValue().str();
          out.line = loc.getLine();
          out.column = loc.getColumn();
        }
        out.message = diag.str();
        handler(out);
        return success();
      });
}

Runner::~Runner() = default;
Runner::Runner(Runner &&) noexcept = default;
Runner &Runner::operator=(Runner &&) noexcept = default;

Status Runner::checkDevice(RunDevice device) {
  auto engineDevice = static_cast<mlir::graph::RunDevice>(device);
  if (std::string err = mlir::graph::checkDeviceRequest(engineDevice);
      !err.empty())
    return error(GRAPH_ERROR_NO_DEVICE, err);
  return Status();
}

Status Runner::selectGpu(int ordinal) {
  if (std::string err = mlir::graph::selectGpuDevice(ordinal); !err.empty())
    return error(err.rfind("GPU device", 0) == 0 ? GRAPH_ERROR_INVALID_ARGUMENT
                                                 : GRAPH_ERROR_NO_DEVICE,
                 err);
  return Status();
}

Status Runner::load(const std::string &fileName, const std::string &name) {
  Impl &state = *impl;
  // A new file: nothing of the last one stays.
  state.graph = state.referenceGraph = nullptr;
  state.referenceModule = nullptr;
  state.program = nullptr;
  state.artifact = state.prepared = state.onGpu = false;
  state.fileName = fileName;
  std::string err;
  state.module = mlir::graph::parseGraphFile(fileName, &state.context, err);
  if (!state.module) // "": the diagnostic handler was told why
    return error(GRAPH_ERROR_INVALID_GRAPH, err);
  state.artifact = !state.module->getOps<exec::ProgramOp>().empty();
  if (state.artifact) {
    if (std::string err = mlir::graph::findProgram(*state.module, name,
                                                   fileName, state.program);
        !err.empty())
      return error(GRAPH_ERROR_INVALID_ARGUMENT, err);
    return Status();
  }
  if (std::string err =
          mlir::graph::findGraph(*state.module, name, fileName, state.graph);
      !err.empty())
    return error(GRAPH_ERROR_INVALID_ARGUMENT, err);
  return Status();
}

Status Runner::tap(const std::vector<std::string> &opNames) {
  Impl &state = *impl;
  if (!state.graph)
    return error(GRAPH_ERROR_INVALID_ARGUMENT,
                 state.artifact ? "tap: an exec.program is compiled; only a "
                                  "graph.graph's ops can be tapped"
                                : "tap: the Runner has loaded no graph");
  if (state.prepared)
    return error(GRAPH_ERROR_INVALID_ARGUMENT,
                 "tap: the graph is prepared already; tap before prepare()");
  mlir::graph::GraphOp graph = state.graph;
  auto output =
      cast<mlir::graph::OutputOp>(graph.getBody().front().getTerminator());
  SmallVector<Value> values(output.getOperands());
  SmallVector<Type> types(graph.getFunctionType().getResults());
  SmallVector<Attribute> attrs;
  if (ArrayAttr given = graph.getResAttrsAttr())
    attrs.assign(given.begin(), given.end());
  attrs.resize(types.size(), DictionaryAttr::get(&state.context));
  Builder b(&state.context);
  // The labelled ops in order, found once for every name asked.
  SmallVector<std::pair<StringRef, Operation *>> labelled;
  graph.walk([&](Operation *op) {
    if (auto label = op->getAttrOfType<StringAttr>("name"))
      labelled.push_back({label.getValue(), op});
  });
  for (const std::string &want : opNames) {
    SmallVector<Operation *> found;
    for (auto &[label, op] : labelled)
      if (label == want)
        found.push_back(op);
    if (found.size() != 1) {
      std::string known;
      if (found.empty()) {
        for (auto &[label, op] : labelled)
          if (known.size() < 400)
            known += (known.empty() ? "" : ", ") + label.str();
        return error(GRAPH_ERROR_INVALID_ARGUMENT,
                     "tap: no op of graph @" + state.name() + " is named '" +
                         want + "' (the named ops: " + known + ")");
      }
      return error(GRAPH_ERROR_INVALID_ARGUMENT,
                   "tap: " + std::to_string(found.size()) + " ops of graph @" +
                       state.name() + " are named '" + want +
                       "'; name them apart to tap one");
    }
    for (OpResult result : found.front()->getResults()) {
      if (!isa<RankedTensorType>(result.getType()))
        continue; // an absent optional result (none)
      unsigned i = result.getResultNumber();
      values.push_back(result);
      types.push_back(result.getType());
      std::string label = "tap:" + want + (i ? "#" + std::to_string(i) : "");
      attrs.push_back(b.getDictionaryAttr(
          b.getNamedAttr("graph.name", b.getStringAttr(label))));
    }
  }
  output->setOperands(values);
  graph.setFunctionTypeAttr(TypeAttr::get(
      b.getFunctionType(graph.getFunctionType().getInputs(), types)));
  graph.setResAttrsAttr(b.getArrayAttr(attrs));
  return Status();
}

bool Runner::isArtifact() const { return impl->artifact; }

std::string Runner::name() const { return impl->name(); }

Status Runner::prepare() {
  Impl &state = *impl;
  if (!state.module)
    return error(GRAPH_ERROR_INVALID_ARGUMENT,
                 "prepare: the Runner has loaded no file");
  if (state.artifact) {
    if (std::string err =
            mlir::graph::loadProgramForRun(state.program, state.loaded);
        !err.empty())
      return error(GRAPH_ERROR_NO_DEVICE, err);
    state.io = state.loaded.io;
  } else {
    std::string err;
    if (failed(mlir::graph::prepareGraph(*state.module, state.graph, err)))
      return error(GRAPH_ERROR_INVALID_GRAPH, err);
    if (std::string err = mlir::graph::describeGraphIO(state.graph, state.io);
        !err.empty())
      return error(GRAPH_ERROR_NOT_SUPPORTED, err);
  }
  state.inputs.clear();
  state.outputs.clear();
  for (const ref::TensorInfo &info : state.io.inputs)
    state.inputs.push_back(toDesc(info));
  for (const ref::TensorInfo &info : state.io.outputs)
    state.outputs.push_back(toDesc(info));
  state.given.assign(state.inputs.size(), std::nullopt);
  state.bound.clear();
  state.inputsTaken = false;
  state.budget = ::graph::HostMemoryBudget();
  state.prepared = true;
  return Status();
}

const std::vector<TensorDesc> &Runner::inputs() const { return impl->inputs; }
const std::vector<TensorDesc> &Runner::outputs() const { return impl->outputs; }
bool Runner::computesInTf32() const { return impl->io.tf32; }

Status Runner::findInput(std::string_view key, size_t &index) const {
  if (std::string err = mlir::graph::lookupTensor(
          impl->io.inputs, llvm::StringRef(key.data(), key.size()), "input",
          index);
      !err.empty())
    return error(GRAPH_ERROR_INVALID_ARGUMENT, err);
  return Status();
}

Status Runner::findOutput(std::string_view key, size_t &index) const {
  if (std::string err = mlir::graph::lookupTensor(
          impl->io.outputs, llvm::StringRef(key.data(), key.size()), "output",
          index);
      !err.empty())
    return error(GRAPH_ERROR_INVALID_ARGUMENT, err);
  return Status();
}

std::string Runner::outputFileName(size_t index) const {
  const std::vector<TensorDesc> &outputs = impl->outputs;
  if (index >= outputs.size())
    return "";
  const std::string &name = outputs[index].name;
  bool plain = !name.empty() && name != "." && name != "..";
  for (char c : name)
    plain = plain && (llvm::isAlnum(c) || c == '_' || c == '-' || c == '.');
  size_t sameName = llvm::count_if(
      outputs, [&](const TensorDesc &desc) { return desc.name == name; });
  if (!plain || sameName > 1)
    return "uid_" + ::graph::tensorUidText(outputs[index]) + ".npy";
  return name + ".npy";
}

Status Runner::setInput(size_t index, std::string_view value, uint64_t seed,
                        bool &recognized) {
  Impl &state = *impl;
  recognized = false;
  if (state.inputsTaken || index >= state.given.size())
    return error(GRAPH_ERROR_INVALID_ARGUMENT,
                 "setInput: no input " + std::to_string(index) +
                     " to bind (prepare first; bind before running)");
  const ref::TensorInfo &info = state.io.inputs[index];
  ref::HostTensor tensor;
  std::string err = mlir::graph::inputFromValue(
      info, llvm::StringRef(value.data(), value.size()), state.argOf(index),
      seed, tensor, recognized, &state.budget);
  if (!recognized)
    return Status();
  if (!err.empty())
    return error(GRAPH_ERROR_INVALID_ARGUMENT,
                 mlir::graph::inputFailure(info, err));
  state.given[index] = std::move(tensor);
  return Status();
}

Status Runner::setRandomInput(size_t index, uint64_t seed) {
  Impl &state = *impl;
  if (state.inputsTaken || index >= state.given.size())
    return error(GRAPH_ERROR_INVALID_ARGUMENT,
                 "setRandomInput: no input " + std::to_string(index) +
                     " to bind (prepare first; bind before running)");
  ref::HostTensor tensor;
  if (std::string err =
          mlir::graph::randomInput(state.io.inputs[index], state.argOf(index),
                                   seed, tensor, &state.budget);
      !err.empty())
    return error(GRAPH_ERROR_INVALID_ARGUMENT, err);
  state.given[index] = std::move(tensor);
  return Status();
}

bool Runner::hasInput(size_t index) const {
  if (impl->inputsTaken)
    return index < impl->bound.size();
  return index < impl->given.size() && impl->given[index].has_value();
}

Status Runner::selectDevice(RunDevice device, bool &onGpu, std::string &why) {
  Impl &state = *impl;
  why.clear();
  if (state.artifact) {
    onGpu = state.onGpu = true;
    return Status();
  }
  if (!state.graph)
    return error(GRAPH_ERROR_INVALID_ARGUMENT,
                 "selectDevice: the Runner has loaded no graph");
  // The GPU passes rewrite the module in place: the reference keeps the
  // graph as written, so a rewrite that changed the results would show.
  if (device != RunDevice::Cpu && !state.referenceModule) {
    state.referenceModule = state.module->clone();
    state.referenceGraph =
        state.referenceModule->lookupSymbol<mlir::graph::GraphOp>(
            state.graph.getSymName());
  }
  if (std::string err = mlir::graph::selectDevice(
          *state.module, state.graph,
          static_cast<mlir::graph::RunDevice>(device), onGpu, why);
      !err.empty())
    return error(GRAPH_ERROR_NO_DEVICE, err);
  state.onGpu = onGpu;
  return Status();
}

Status Runner::run(const RunOptions &options, unsigned benchmarkRuns,
                   RunResult &result) {
  Impl &state = *impl;
  result = RunResult();
  if (!state.prepared)
    return error(GRAPH_ERROR_INVALID_ARGUMENT,
                 "run: the Runner has prepared no graph");
  if (std::string err = state.takeInputs(); !err.empty())
    return error(GRAPH_ERROR_INVALID_ARGUMENT, err);

  mlir::graph::GpuOptions gpu;
  gpu.planIndex = options.planIndex;
  gpu.workspaceLimit = options.workspaceLimit;
  gpu.verbose = options.verbose;
  gpu.autotune = options.autotune || options.autotuneAgainstFirst;
  gpu.autotuneAgainstFirst = options.autotuneAgainstFirst;
  gpu.deselectEngines = options.deselectEngines;
  if (!options.heuristics.empty()) {
    gpu.heuristics.clear();
    for (GraphHeurMode mode : options.heuristics)
      gpu.heuristics.push_back(
          mode == GRAPH_HEUR_MODE_B          ? ::graph::rt::HeurMode::B
          : mode == GRAPH_HEUR_MODE_FALLBACK ? ::graph::rt::HeurMode::Fallback
                                             : ::graph::rt::HeurMode::A);
  }

  mlir::graph::RunResult run;
  std::string err;
  if (state.artifact) {
    gpu.codegenCubin = options.codegenCubin;
    err = mlir::graph::runProgram(state.loaded, state.bound, gpu,
                                  /*keepHeuristics=*/options.heuristics.empty(),
                                  benchmarkRuns, run);
    result.onGpu = true;
  } else {
    err = mlir::graph::runGraph(state.graph, state.bound, state.onGpu, gpu,
                                benchmarkRuns, run);
    result.onGpu = state.onGpu;
  }
  if (!err.empty())
    return error(GRAPH_ERROR_EXECUTION, err);
  result.outputs = denseOf(std::move(run.outputs));
  result.seconds = std::move(run.seconds);
  for (mlir::graph::GpuGroupReport &entry : run.plans)
    result.plans.push_back(GroupPlanReport{std::move(entry.group),
                                           std::move(entry.plan),
                                           std::move(entry.declined)});
  return Status();
}

Status Runner::runReference(std::vector<TensorData> &outputs) {
  Impl &state = *impl;
  outputs.clear();
  if (state.artifact || !state.graph)
    return error(GRAPH_ERROR_NOT_SUPPORTED,
                 state.label() + " is a compiled artifact with no graph for "
                                 "the CPU reference to run");
  if (std::string err = state.takeInputs(); !err.empty())
    return error(GRAPH_ERROR_INVALID_ARGUMENT, err);
  std::vector<ref::HostTensor> reference;
  mlir::graph::GraphOp graph =
      state.referenceGraph ? state.referenceGraph : state.graph;
  if (std::string err = ref::execute(graph, state.bound, reference);
      !err.empty())
    return error(GRAPH_ERROR_EXECUTION, "graph @" +
                                            state.graph.getSymName().str() +
                                            " on the CPU reference: " + err);
  outputs = denseOf(std::move(reference));
  return Status();
}

double Runner::defaultTolerance(GraphDType dtype) const {
  std::vector<ref::DType> inputTypes;
  for (const ref::TensorInfo &in : impl->io.inputs)
    inputTypes.push_back(in.dtype);
  return ::graph::deviceTolerance(toRef(dtype), inputTypes, impl->io.tf32);
}
