//===- RunGraph.cpp - Run a graph or an artifact, as graph-run does -------===//
//
// What graph-run runs, as a library (RunGraph.h): modules, inputs, the
// device choice and the runs, behind the C++ API's graph::Runner
// (lib/CAPI/Runner.cpp), which graph-run sits on.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Engine/RunGraph.h"

#include "GraphDialect/BytecodeNesting.h"

#include "GraphDialect/Executable/ExecOps.h"
#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Passes.h"
#include "GraphDialect/Reference/Memory.h"
#include "GraphDialect/Reference/Npy.h"
#include "GraphDialect/Support/CheckedMath.h"
#include "GraphDialect/Support/LegalInputs.h"
#include "GraphDialect/Support/NestingDepth.h"
#include "GraphDialect/Support/Shape.h"
#include "GraphDialect/Support/ThreadPool.h"
#ifdef GRAPH_HAVE_GPU_RUNTIME
#include "GraphDialect/Executable/ExecToRuntime.h"
#endif

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <variant>

using namespace mlir;
using namespace mlir::graph;
namespace ref = ::graph::ref;

namespace {

/// A failure: the one-line message.
struct Failure {
  std::string message;
};

template <typename T> using Result = std::variant<T, Failure>;

} // namespace

//===----------------------------------------------------------------------===//
// Names and text
//===----------------------------------------------------------------------===//

std::string mlir::graph::shapeText(const ref::Shape &shape) {
  std::string text = ::graph::dimsText(shape);
  return shape.empty() ? text : text + "x";
}

std::string mlir::graph::typeText(const ref::Shape &shape, ref::DType dtype) {
  return shapeText(shape) + ref::dtypeName(dtype);
}

std::string mlir::graph::uidText(const ref::TensorInfo &info) {
  return info.uid ? std::to_string(*info.uid) : "?";
}

std::string mlir::graph::describeTensor(const ref::TensorInfo &info) {
  std::string text = "uid " + uidText(info);
  if (!info.name.empty())
    text += " \"" + info.name + "\"";
  return text;
}

/// The message of a failed input, prefixed with the input unless it names
/// it already.
std::string mlir::graph::inputFailure(const ref::TensorInfo &info,
                                      const std::string &message) {
  std::string prefix = "input " + describeTensor(info);
  if (llvm::StringRef(message).starts_with(prefix))
    return message;
  return prefix + ": " + message;
}

namespace {

bool isStaticShape(const ref::Shape &shape) {
  return llvm::none_of(shape, ShapedType::isDynamic);
}

/// "" when the host can hold a `shape` x `dtype` buffer for input `info`
/// (on top of what `budget`, when given, already holds; the buffer is then
/// added to it), else the one-line error naming the input, the bytes and
/// what is left.
std::string checkInputMemory(const ref::TensorInfo &info,
                             const ref::Shape &shape, ref::DType dtype,
                             ::graph::HostMemoryBudget *budget) {
  std::optional<int64_t> count = ::graph::checkedElementCount(shape);
  std::optional<int64_t> bytes =
      count ? ::graph::checkedMul(*count,
                                  static_cast<int64_t>(ref::byteWidth(dtype)))
            : std::nullopt;
  std::string what =
      "input " + describeTensor(info) + " (" + typeText(shape, dtype) + ")";
  return budget ? budget->reserve(bytes, what)
                : ref::checkHostAllocation(bytes, what);
}

/// Resolves `key` (all digits: a uid, else a name) among `infos`.
Result<size_t> lookupIndex(const std::vector<ref::TensorInfo> &infos,
                           llvm::StringRef key, llvm::StringRef kind) {
  if (key.empty())
    return Failure{"empty " + kind.str() + " key: give a uid or a name"};
  bool isUid = llvm::all_of(key, llvm::isDigit);
  int64_t uid = -1;
  if (isUid && key.getAsInteger(10, uid))
    uid = -1;
  std::vector<size_t> hits;
  for (size_t i = 0; i < infos.size(); ++i)
    if (isUid ? infos[i].uid == uid : infos[i].name == key)
      hits.push_back(i);
  if (hits.size() == 1)
    return hits[0];
  std::string known;
  for (const ref::TensorInfo &info : infos)
    known += (known.empty() ? "" : ", ") + describeTensor(info);
  if (hits.empty())
    return Failure{
        "no " + kind.str() + " " +
        (isUid ? "with uid " + key.str() : "named \"" + key.str() + "\"") +
        "; the " + kind.str() + "s are: " + (known.empty() ? "none" : known)};
  std::string uids;
  for (size_t i : hits)
    uids += (uids.empty() ? "" : ", ") + uidText(infos[i]);
  return Failure{"the " + kind.str() + " name \"" + key.str() +
                 "\" is shared by uids " + uids + ": use the uid"};
}

} // namespace

std::string mlir::graph::lookupTensor(const std::vector<ref::TensorInfo> &infos,
                                      StringRef key, StringRef kind,
                                      size_t &index) {
  Result<size_t> found = lookupIndex(infos, key, kind);
  if (auto *f = std::get_if<Failure>(&found))
    return f->message;
  index = std::get<size_t>(found);
  return "";
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

namespace {

/// Checks the given dims against the declared ones ('?' binds anything).
std::string checkShape(const ref::TensorInfo &info, const ref::Shape &given,
                       ref::DType givenType) {
  bool match = given.size() == info.shape.size();
  for (size_t d = 0; match && d < given.size(); ++d)
    match = ShapedType::isDynamic(info.shape[d]) || info.shape[d] == given[d];
  if (!match || givenType != info.dtype)
    return "expected " + typeText(info.shape, info.dtype) + ", given " +
           typeText(given, givenType);
  return "";
}

Result<ref::HostTensor> loadNpyInput(const ref::TensorInfo &info,
                                     const std::string &path) {
  ref::NpyArray array;
  if (std::string err = ref::readNpyFile(path, array); !err.empty())
    return Failure{err};
  if (std::string err = ref::checkNpyDType(array, info.dtype); !err.empty())
    return Failure{"'" + path + "': " + err};
  if (std::string err = checkShape(info, array.shape, info.dtype); !err.empty())
    return Failure{"'" + path + "': expected dims " + shapeText(info.shape) +
                   " given " + shapeText(array.shape)};
  ref::HostTensor tensor;
  tensor.dtype = info.dtype;
  tensor.shape = array.shape;
  tensor.bytes = std::move(array.data);
  return tensor;
}

Result<ref::HostTensor> randomTensor(const ref::TensorInfo &info,
                                     BlockArgument arg, uint64_t seed,
                                     ::graph::HostMemoryBudget *budget);

/// "2x3xf32=1 2 3 4 5 6" (values separated by spaces or commas; brackets
/// are ignored; "f32=5" for a rank-0 tensor), or "2x3xf32=random": random
/// data of those dims, as `random` draws it (`arg` and `seed`).
Result<ref::HostTensor> parseInlineInput(const ref::TensorInfo &info,
                                         llvm::StringRef text,
                                         BlockArgument arg, uint64_t seed,
                                         ::graph::HostMemoryBudget *budget) {
  auto [typeWord, valuesText] = text.split('=');
  llvm::SmallVector<llvm::StringRef> parts;
  typeWord.trim().split(parts, 'x');
  ref::Shape shape;
  ref::DType dtype;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    int64_t d;
    if (parts[i].getAsInteger(10, d) || d < 0)
      return Failure{"malformed inline value type '" + typeWord.str() +
                     "' (expected e.g. 2x3xf32)"};
    shape.push_back(d);
  }
  if (parts.empty() || !ref::parseDType(parts.back().str(), dtype))
    return Failure{"malformed inline value type '" + typeWord.str() +
                   "' (expected e.g. 2x3xf32)"};
  if (std::string err = checkShape(info, shape, dtype); !err.empty())
    return Failure{err};
  if (valuesText.trim() == "random") {
    ref::TensorInfo bound = info;
    bound.shape = shape;
    return randomTensor(bound, arg, seed, budget);
  }

  std::vector<llvm::StringRef> tokens;
  llvm::StringRef rest = valuesText;
  while (!rest.empty()) {
    size_t end = rest.find_first_of(" \t\n,[]");
    llvm::StringRef token = rest.take_front(end);
    if (!token.empty())
      tokens.push_back(token);
    rest = end == llvm::StringRef::npos ? "" : rest.drop_front(end + 1);
  }
  std::optional<int64_t> checkedCount = ::graph::checkedElementCount(shape);
  if (!checkedCount || static_cast<int64_t>(tokens.size()) != *checkedCount)
    return Failure{typeText(shape, dtype) + " needs " +
                   (checkedCount ? std::to_string(*checkedCount)
                                 : std::string("more than 2^63 - 1")) +
                   " values, given " + std::to_string(tokens.size())};
  int64_t count = *checkedCount;
  ref::HostTensor tensor = ref::HostTensor::zeros(dtype, shape);
  size_t width = ref::byteWidth(dtype);
  for (int64_t i = 0; i < count; ++i) {
    llvm::StringRef token = tokens[i];
    double value;
    if (ref::isFloat(dtype)) {
      std::string s = token.str();
      char *end = nullptr;
      value = std::strtod(s.c_str(), &end);
      if (end == s.c_str() || *end)
        return Failure{"value '" + s + "' is not a number"};
    } else if (dtype == ref::DType::I1 &&
               (token == "true" || token == "false")) {
      value = token == "true";
    } else {
      int64_t v;
      if (token.getAsInteger(10, v))
        return Failure{"value '" + token.str() + "' is not an integer"};
      value = static_cast<double>(v);
      if (ref::roundTo(dtype, value) != value)
        return Failure{"value " + token.str() + " is out of range for " +
                       ref::dtypeName(dtype)};
    }
    ref::encode(dtype, value, &tensor.bytes[i * width]);
  }
  return tensor;
}

/// The values an integer input must hold when a use fixes them, per
/// element (::graph::legalIntegerValues, the rules the GPU executor's
/// autotuning data follows too).
std::optional<std::vector<double>> legalIntegerValues(BlockArgument arg,
                                                      int64_t count) {
  if (!arg) // an artifact's input: no uses to read a legal value from
    return std::nullopt;
  for (OpOperand &use : arg.getUses()) {
    Operation *user = use.getOwner();
    SmallVector<PortValue> ports = getPortValues(user);
    auto typeAt = [&](::graph::Port port) -> RankedTensorType {
      for (const PortValue &entry : ports)
        if (entry.port == port && entry.value)
          return dyn_cast<RankedTensorType>(entry.value.getType());
      return {};
    };
    ::graph::IntegerInputUse rule;
    rule.dims = [&](::graph::Port port) -> std::optional<ref::Shape> {
      if (RankedTensorType type = typeAt(port))
        return ref::Shape(type.getShape().begin(), type.getShape().end());
      return std::nullopt;
    };
    rule.strides = [&](::graph::Port port) -> std::optional<ref::Shape> {
      RankedTensorType type = typeAt(port);
      if (!type)
        return std::nullopt;
      ArrayRef<int64_t> given = getStrides(type);
      SmallVector<int64_t> strides = given.empty()
                                         ? getRowMajorStrides(type.getShape())
                                         : SmallVector<int64_t>(given);
      return ref::Shape(strides.begin(), strides.end());
    };
    if (auto maxSeq =
            user->getAttrOfType<IntegerAttr>("paged_attention_max_seq_len_kv"))
      rule.pagedMaxSeqLenKv = maxSeq.getInt();
    if (auto topK = user->getAttrOfType<IntegerAttr>("top_k"))
      rule.topK = topK.getInt();
    for (const PortValue &entry : ports) {
      if (entry.isResult || entry.value != arg)
        continue;
      rule.port = entry.port;
      if (auto values = ::graph::legalIntegerValues(rule, count))
        return values;
    }
  }
  return std::nullopt;
}

Result<ref::HostTensor> randomTensor(const ref::TensorInfo &info,
                                     BlockArgument arg, uint64_t seed,
                                     ::graph::HostMemoryBudget *budget) {
  if (!isStaticShape(info.shape))
    return Failure{"input " + describeTensor(info) + " has dynamic dims (" +
                   shapeText(info.shape) +
                   "...): random data needs them; "
                   "give the input with --input, e.g. --input=" +
                   uidText(info) + "=\"DIMSx" + ref::dtypeName(info.dtype) +
                   "=random\""};
  if (std::string err = checkInputMemory(info, info.shape, info.dtype, budget);
      !err.empty())
    return Failure{err};
  ref::HostTensor tensor = ref::HostTensor::zeros(info.dtype, info.shape);
  int64_t count = tensor.numElements();
  size_t width = ref::byteWidth(info.dtype);
  uint64_t start = seed;
  ::graph::splitmix64(start);
  start ^= static_cast<uint64_t>(info.uid.value_or(0)) * 0xD1B54A32D192ED03ull;
  std::optional<std::vector<double>> fixed;
  if (!ref::isFloat(info.dtype) && info.dtype != ref::DType::I1)
    fixed = legalIntegerValues(arg, count);
  // Element i takes the (i+1)-th draw of the generator, whose state only
  // counts draws (splitmix64 adds a constant per draw): blocks start at their
  // own draw and fill on the thread pool, giving the values one pass would.
  ::graph::parallelFor(
      count,
      [&](int64_t begin, int64_t end) {
        uint64_t state =
            start + static_cast<uint64_t>(begin) * 0x9E3779B97F4A7C15ull;
        auto uniform = [&] {
          return static_cast<double>(::graph::splitmix64(state) >> 11) *
                 0x1.0p-53;
        };
        for (int64_t i = begin; i < end; ++i) {
          double value;
          if (fixed)
            value = (*fixed)[i];
          else if (info.dtype == ref::DType::F8E8M0FNU)
            value = std::ldexp(1.0, static_cast<int>(uniform() * 5) - 2);
          else if (ref::isFloat(info.dtype))
            value = 2.0 * uniform() - 1.0;
          else if (info.dtype == ref::DType::I1)
            value = uniform() < 0.5 ? 0.0 : 1.0;
          else
            value = std::floor(uniform() * 4);
          ref::encode(info.dtype, value, &tensor.bytes[i * width]);
        }
      },
      /*minChunk=*/1 << 16);
  return tensor;
}

/// The tensor an --input value asks for (@FILE.npy, random or
/// DIMSxTYPE=VALUES); nullopt when the value has none of these forms, which
/// each caller words its own way.
std::optional<Result<ref::HostTensor>>
tensorFromValue(const ref::TensorInfo &info, llvm::StringRef value,
                BlockArgument arg, uint64_t seed,
                ::graph::HostMemoryBudget *budget) {
  if (value == "random")
    return randomTensor(info, arg, seed, budget);
  if (value.contains('=') && !value.starts_with("@"))
    return parseInlineInput(info, value, arg, seed, budget);
  if (!value.starts_with("@"))
    return std::nullopt;
  Result<ref::HostTensor> loaded = loadNpyInput(info, value.drop_front().str());
  // A file is read whole before its size is known: count it once read.
  if (auto *tensor = std::get_if<ref::HostTensor>(&loaded); tensor && budget)
    if (std::string err =
            budget->reserve(static_cast<int64_t>(tensor->bytes.size()),
                            "input " + describeTensor(info) + " (" +
                                typeText(tensor->shape, tensor->dtype) + ")");
        !err.empty())
      return Result<ref::HostTensor>(Failure{err});
  return loaded;
}

} // namespace

std::string mlir::graph::inputFromValue(const ref::TensorInfo &info,
                                        StringRef value, BlockArgument arg,
                                        uint64_t seed, ref::HostTensor &tensor,
                                        bool &recognized,
                                        ::graph::HostMemoryBudget *budget) {
  std::optional<Result<ref::HostTensor>> made =
      tensorFromValue(info, value, arg, seed, budget);
  recognized = made.has_value();
  if (!made)
    return "";
  if (auto *f = std::get_if<Failure>(&*made))
    return f->message;
  tensor = std::move(std::get<ref::HostTensor>(*made));
  return "";
}

std::string mlir::graph::randomInput(const ref::TensorInfo &info,
                                     BlockArgument arg, uint64_t seed,
                                     ref::HostTensor &tensor,
                                     ::graph::HostMemoryBudget *budget) {
  Result<ref::HostTensor> made = randomTensor(info, arg, seed, budget);
  if (auto *f = std::get_if<Failure>(&made))
    return f->message;
  tensor = std::move(std::get<ref::HostTensor>(made));
  return "";
}

//===----------------------------------------------------------------------===//
// Modules and graphs
//===----------------------------------------------------------------------===//

/// Whether the graph still needs graph-prepare: a missing uid or stride.
bool mlir::graph::graphNeedsPrepare(GraphOp graph) {
  for (unsigned i = 0, e = graph.getNumArguments(); i < e; ++i)
    if (!graph.getInputUid(i))
      return true;
  for (unsigned i = 0, e = graph.getNumResults(); i < e; ++i)
    if (!graph.getOutputUid(i))
      return true;
  bool missing = false;
  auto check = [&](Type type) {
    if (auto ranked = dyn_cast<RankedTensorType>(type))
      if (getStrides(ranked).empty() && ranked.getRank() > 0)
        missing = true;
  };
  for (BlockArgument arg : graph.getBody().front().getArguments())
    check(arg.getType());
  graph.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      check(t);
  });
  return missing;
}

bool mlir::graph::gpuRuntimeLinked() {
#ifdef GRAPH_HAVE_GPU_RUNTIME
  return true;
#else
  return false;
#endif
}

std::string mlir::graph::selectGpuDevice(int ordinal) {
#ifdef GRAPH_HAVE_GPU_RUNTIME
  return ::graph::rt::Device::select(ordinal);
#else
  return "--gpu-device=" + std::to_string(ordinal) +
         ": this build has no GPU runtime";
#endif
}

std::string mlir::graph::checkDeviceRequest(RunDevice device) {
  if (device == RunDevice::Gpu && !gpuRuntimeLinked())
    return "the GPU device is not available: this build has no GPU runtime";
  return "";
}

OwningOpRef<ModuleOp> mlir::graph::parseGraphFile(StringRef fileName,
                                                  MLIRContext *context,
                                                  std::string &error) {
  error.clear();
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(fileName, &error);
  if (!file)
    return nullptr;
  if (std::optional<::graph::ExcessiveNesting> deep =
          ::graph::findExcessiveNesting(file->getBuffer())) {
    error = fileName.str() + ":" + std::to_string(deep->line) + ":" +
            std::to_string(deep->column) + ": " + deep->message();
    return nullptr;
  }
  if (std::optional<std::string> deep = ::graph::findExcessiveBytecodeNesting(
          file->getMemBufferRef(), context)) {
    error = fileName.str() + ": " + *deep;
    return nullptr;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  // Null: the context's diagnostic handler was told why.
  return parseSourceFile<ModuleOp>(sourceMgr, context);
}

std::string mlir::graph::findGraph(ModuleOp module, StringRef name,
                                   StringRef fileName, GraphOp &graph) {
  std::vector<GraphOp> graphs(module.getOps<GraphOp>().begin(),
                              module.getOps<GraphOp>().end());
  std::string names;
  for (GraphOp g : graphs)
    names += (names.empty() ? "" : ", ") + g.getSymName().str();
  if (graphs.empty())
    return "'" + fileName.str() + "' holds no graph.graph";
  if (!name.empty()) {
    for (GraphOp g : graphs)
      if (g.getSymName() == name) {
        graph = g;
        return "";
      }
    return "no graph named '" + name.str() + "' in '" + fileName.str() +
           "'; its graphs are: " + names;
  }
  if (graphs.size() > 1)
    return "'" + fileName.str() + "' holds " + std::to_string(graphs.size()) +
           " graphs (" + names + "): pick one with --graph=NAME";
  graph = graphs.front();
  return "";
}

/// `name` in `module` after a pipeline rewrote it, or null.
static GraphOp findAgain(ModuleOp module, const std::string &name) {
  return dyn_cast_or_null<GraphOp>(SymbolTable::lookupSymbolIn(
      module, StringAttr::get(module.getContext(), name)));
}

LogicalResult mlir::graph::prepareGraph(ModuleOp module, GraphOp &graph,
                                        std::string &error) {
  error.clear();
  if (!graphNeedsPrepare(graph))
    return success();
  std::string name = graph.getSymName().str();
  PassManager pm(module.getContext());
  buildPreparePipeline(pm, PreparePipelineOptions());
  if (failed(pm.run(module)))
    return failure(); // the diagnostic handler was told why
  graph = findAgain(module, name);
  if (!graph) {
    error = "graph-prepare removed graph @" + name;
    return failure();
  }
  return success();
}

std::string mlir::graph::describeGraphIO(GraphOp graph, RunIO &io) {
  io = RunIO();
  ref::describeGraph(graph, io.inputs, io.outputs);
  Block &body = graph.getBody().front();
  for (size_t i = 0; i < io.inputs.size(); ++i) {
    io.args.push_back(body.getArgument(i));
    Type elt =
        cast<RankedTensorType>(body.getArgument(i).getType()).getElementType();
    ref::DType dtype;
    if (!ref::toDType(elt, dtype)) {
      std::string t;
      llvm::raw_string_ostream(t) << elt;
      return "input " + describeTensor(io.inputs[i]) + ": element type " + t +
             " has no host representation";
    }
  }
  if (auto compute = graph.getComputeDataType())
    io.tf32 = compute->isTF32();
  return "";
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

bool mlir::graph::parseHeuristicsMode(StringRef word,
                                      ::graph::rt::HeurMode &mode) {
  std::string lower = word.lower();
  if (lower == "a")
    mode = ::graph::rt::HeurMode::A;
  else if (lower == "b")
    mode = ::graph::rt::HeurMode::B;
  else if (lower == "fallback")
    mode = ::graph::rt::HeurMode::Fallback;
  else
    return false;
  return true;
}

std::string mlir::graph::selectDevice(ModuleOp module, GraphOp &graph,
                                      RunDevice device, bool &onGpu,
                                      std::string &why) {
  onGpu = false;
  why.clear();
  if (device == RunDevice::Cpu)
    return "";
#ifndef GRAPH_HAVE_GPU_RUNTIME
  why = "the GPU device is not available: this build has no GPU runtime";
  return device == RunDevice::Gpu ? why : "";
#else
  std::string name = graph.getSymName().str();
  bool usable = ::graph::rt::Device::get(why) != nullptr;
  if (!usable)
    why = "the GPU device is not available: " + why;
  if (usable) {
    // Engine selection diagnoses ops nothing runs; for auto they go to the
    // CPU instead.
    MLIRContext *context = module.getContext();
    PassManager pm(context);
    pm.addPass(createGraphWidenNormGradients());
    pm.addPass(createGraphSplitMoeScatter());
    pm.addPass(createGraphSplitMoeGather());
    pm.addPass(createGraphFuse());
    pm.addPass(createGraphSelectEngines());
    ScopedDiagnosticHandler quiet(context, [&](Diagnostic &diag) {
      why = "the GPU cannot run graph @" + name + ": " + diag.str();
      return success(device == RunDevice::Auto);
    });
    usable = succeeded(pm.run(module));
    graph = findAgain(module, name);
  }
  if (!usable && device == RunDevice::Gpu)
    return why;
  onGpu = usable;
  if (onGpu)
    why.clear();
  return "";
#endif
}

#ifdef GRAPH_HAVE_GPU_RUNTIME
/// Moves what GPU run `run` produced into `result` (seconds only when `err`
/// is ""); the error, if any, names `what` on the GPU.
static std::string takeGpuRun(GpuHostRun &run, const std::string &err,
                              const std::string &what, RunResult &result) {
  result.outputs = std::move(run.outputs);
  result.plans = std::move(run.report);
  if (!err.empty())
    return what + " on the GPU: " + err;
  for (double ms : run.milliseconds)
    result.seconds.push_back(ms / 1000.0);
  return "";
}
#endif

std::string mlir::graph::runGraph(GraphOp graph,
                                  const std::vector<ref::HostTensor> &inputs,
                                  bool onGpu, const GpuOptions &options,
                                  unsigned benchmarkRuns, RunResult &result) {
  result = RunResult();
  std::string name = graph.getSymName().str();
  if (onGpu) {
#ifdef GRAPH_HAVE_GPU_RUNTIME
    GpuHostRun run{inputs, options, static_cast<int>(benchmarkRuns)};
    std::string err = executeOnGpu(graph, run);
    return takeGpuRun(run, err, "graph @" + name, result);
#else
    return "graph @" + name + " on the GPU: this build has no GPU runtime";
#endif
  }
  if (std::string err = ref::execute(graph, inputs, result.outputs);
      !err.empty())
    return "graph @" + name + ": " + err;
  // The run above was the warm-up.
  for (unsigned r = 0; r < benchmarkRuns; ++r) {
    std::vector<ref::HostTensor> scratch;
    auto start = std::chrono::steady_clock::now();
    std::string err = ref::execute(graph, inputs, scratch);
    auto stop = std::chrono::steady_clock::now();
    if (!err.empty())
      return "graph @" + name + ": " + err;
    result.seconds.push_back(
        std::chrono::duration<double>(stop - start).count());
  }
  return "";
}

//===----------------------------------------------------------------------===//
// Artifacts
//===----------------------------------------------------------------------===//

std::string mlir::graph::findProgram(ModuleOp module, StringRef name,
                                     StringRef fileName,
                                     exec::ProgramOp &program) {
  std::vector<exec::ProgramOp> programs(
      module.getOps<exec::ProgramOp>().begin(),
      module.getOps<exec::ProgramOp>().end());
  std::string names;
  for (exec::ProgramOp p : programs)
    names += (names.empty() ? "" : ", ") + p.getSymName().str();
  program = nullptr;
  for (exec::ProgramOp p : programs)
    if (name.empty() ? programs.size() == 1 : p.getSymName() == name)
      program = p;
  if (program)
    return "";
  return name.empty()
             ? "'" + fileName.str() + "' holds " +
                   std::to_string(programs.size()) + " exec.programs (" +
                   names + "): pick one with --graph=NAME"
             : "no exec.program named '" + name.str() + "' in '" +
                   fileName.str() + "'; its programs are: " + names;
}

std::string mlir::graph::loadProgramForRun(exec::ProgramOp program,
                                           LoadedProgram &loaded) {
  loaded = LoadedProgram();
  loaded.name = program.getSymName().str();
#ifndef GRAPH_HAVE_GPU_RUNTIME
  return "exec.program @" + loaded.name +
         " runs only on the GPU, and this build has no GPU runtime";
#else
  exec::ProgramIO io;
  if (std::string err = exec::loadProgram(program, loaded.program, &io);
      !err.empty())
    return err;
  loaded.io.inputs = std::move(io.inputs);
  loaded.io.outputs = std::move(io.outputs);
  loaded.io.args.assign(loaded.io.inputs.size(), BlockArgument());
  std::string why;
  if (!::graph::rt::Device::get(why))
    return "exec.program @" + loaded.name +
           " runs only on the GPU: the GPU device is not available: " + why;
  return "";
#endif
}

std::string mlir::graph::runProgram(LoadedProgram &loaded,
                                    const std::vector<ref::HostTensor> &inputs,
                                    const GpuOptions &options,
                                    bool keepHeuristics, unsigned benchmarkRuns,
                                    RunResult &result) {
  result = RunResult();
#ifndef GRAPH_HAVE_GPU_RUNTIME
  (void)inputs;
  (void)options;
  (void)keepHeuristics;
  (void)benchmarkRuns;
  return "exec.program @" + loaded.name +
         " runs only on the GPU, and this build has no GPU runtime";
#else
  if (!keepHeuristics) // the caller's modes override the artifact's
    for (GroupEngine &engine : loaded.program.engines)
      engine.heuristics.clear();
  GpuHostRun run{inputs, options, static_cast<int>(benchmarkRuns)};
  std::string err =
      executeProgramOnGpu(std::move(loaded.program), loaded.io.outputs, run);
  return takeGpuRun(run, err, "exec.program @" + loaded.name, result);
#endif
}
