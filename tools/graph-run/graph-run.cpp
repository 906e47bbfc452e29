//===- graph-run.cpp - Runs a graph-dialect graph -------------------------===//
//
// Runs one `graph.graph` of a .mlir file on a device (the CPU reference
// executor today; the GPU once the runtime lands), iree-run-module style:
//
//   graph-run mlp.mlir --input=x=@x.npy --input=w=random --random-inputs=1
//             --output-dir=out --expected-output=y=@y_ref.npy --benchmark=10
//
// Inputs (`--input=X=VALUE`, X a uid or a name):
//   @FILE.npy        a .npy file (see GraphDialect/Reference/Npy.h for the
//                    bf16/fp8/fp4 raw-bits convention)
//   DIMSxTYPE=V V..  inline values, exact count: "2x3xf32=1 2 3 4 5 6"
//   random           seeded random data (seed of --random-inputs, else 0)
//   DIMSxTYPE=random random data of those dims, e.g. "16x64xf16=random":
//                    how an input with dynamic dims gets random data
// `--random-inputs=SEED` fills every input not given. Random data is
// deterministic: each input draws from its own generator seeded by
// (SEED, uid), so giving one input explicitly does not change the others.
//   floats            uniform in [-1, 1), rounded to the type
//   f8E8M0FNU         powers of two 2^-2 .. 2^2 (it is a scale type)
//   i1                0 or 1
//   other integers    uniform in [0, 4), except for the inputs whose role
//                     fixes a legal value: sdpa `seq_len_q`/`seq_len_kv` get
//                     the full sequence length (no padding), MoE
//                     `first_token_offset` gets evenly spaced group starts.
//
// A file whose top level holds `exec.program` ops (the artifact
// graph-lower-to-executable writes, text or bytecode) runs on the GPU as it
// is, without the graph pipeline; --device=cpu is an error for it.
//
// Every error is one line on stderr and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Executable/ExecOps.h"
#include "GraphDialect/GraphOps.h"
#ifdef GRAPH_HAVE_GPU_RUNTIME
#include "GraphDialect/Engine/GpuExecutor.h"
#include "GraphDialect/Executable/ExecToRuntime.h"
#endif
#include "GraphDialect/Passes.h"
#include "GraphDialect/Reference/Compare.h"
#include "GraphDialect/Reference/Executor.h"
#include "GraphDialect/Reference/Memory.h"
#include "GraphDialect/Reference/Npy.h"
#include "GraphDialect/Support/CheckedMath.h"
#include "GraphDialect/Support/NestingDepth.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>
#include <variant>

using namespace mlir;
using namespace mlir::graph;
namespace ref = ::graph::ref;
namespace cl = llvm::cl;

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

namespace {

enum class Device { Cpu, Gpu, Auto };

cl::OptionCategory runCategory("graph-run options");

cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<input .mlir>"),
                                   cl::Required, cl::cat(runCategory));
cl::opt<std::string>
    graphName("graph", cl::desc("The graph to run when the file has several"),
              cl::value_desc("name"), cl::cat(runCategory));
cl::opt<Device> device(
    "device", cl::desc("Where to run"), cl::init(Device::Auto),
    cl::values(clEnumValN(Device::Cpu, "cpu", "the CPU reference executor"),
               clEnumValN(Device::Gpu, "gpu", "the GPU runtime"),
               clEnumValN(Device::Auto, "auto",
                          "the GPU when available, else the CPU")),
    cl::cat(runCategory));
cl::list<std::string>
    inputSpecs("input",
               cl::desc("An input: X=@file.npy, X=\"2x3xf32=1 2 3 4 5 6\" or "
                        "X=random (X: a uid or a name)"),
               cl::value_desc("X=VALUE"), cl::cat(runCategory));
cl::opt<uint64_t>
    randomSeed("random-inputs",
               cl::desc("Fill every input not given with seeded random data"),
               cl::value_desc("seed"), cl::cat(runCategory));
cl::opt<int64_t> printMaxElements(
    "print-max-elements",
    cl::desc("Print at most this many elements of each output (0: none)"),
    cl::init(1024), cl::cat(runCategory));
cl::list<std::string> outputSpecs("output",
                                  cl::desc("Write an output: Y=@file.npy"),
                                  cl::value_desc("Y=@file"),
                                  cl::cat(runCategory));
cl::opt<std::string>
    outputDir("output-dir",
              cl::desc("Write every output to DIR/NAME.npy (DIR/uid_N.npy "
                       "when unnamed or when the name repeats)"),
              cl::value_desc("dir"), cl::cat(runCategory));
cl::list<std::string>
    expectedSpecs("expected-output",
                  cl::desc("Compare an output with a .npy file"),
                  cl::value_desc("Y=@file.npy"), cl::cat(runCategory));
cl::opt<double> rtolOpt("rtol",
                        cl::desc("Relative tolerance (default: by dtype)"),
                        cl::cat(runCategory));
cl::opt<double> atolOpt("atol",
                        cl::desc("Absolute tolerance (default: the rtol)"),
                        cl::cat(runCategory));
cl::opt<std::string> checkAgainst(
    "check-against",
    cl::desc("Also run on this device (cpu) and compare every output"),
    cl::value_desc("cpu"), cl::cat(runCategory));
cl::opt<unsigned>
    benchmarkRuns("benchmark",
                  cl::desc("After a warm-up run, time N runs and print "
                           "min/median/max per execute"),
                  cl::value_desc("N"), cl::init(0), cl::cat(runCategory));

cl::opt<int> planIndex(
    "plan-index",
    cl::desc("GPU: build and run only this entry of each group's plan list "
             "(cuDNN's plans, then the codegen plans that apply; strict: no "
             "fallback)"),
    cl::init(-1), cl::cat(runCategory));
cl::list<std::string> deselectEngines(
    "deselect-engines",
    cl::desc("GPU: skip plans whose name contains one of these strings"),
    cl::CommaSeparated, cl::cat(runCategory));
cl::opt<int64_t> workspaceLimit(
    "workspace-limit",
    cl::desc("GPU: skip plans needing more workspace bytes than this"),
    cl::init(-1), cl::cat(runCategory));
cl::list<std::string> heuristicModes(
    "heuristics",
    cl::desc("GPU: cuDNN heuristics modes to query, in order (a, b, "
             "fallback; default a,fallback)"),
    cl::CommaSeparated, cl::cat(runCategory));
cl::opt<bool> autotunePlans(
    "autotune",
    cl::desc("GPU: run every plan of each group that builds once on seeded "
             "inputs, drop those whose result differs from the CPU "
             "reference, time the rest and keep the fastest"),
    cl::init(false), cl::cat(runCategory));
cl::opt<bool> codegenCubin(
    "codegen-cubin",
    cl::desc("GPU: assemble generated kernels with ptxas and load cubin "
             "instead of PTX (needs a CUDA toolkit: CUDA_ROOT)"),
    cl::init(false), cl::cat(runCategory));
cl::opt<bool> verbosePlans(
    "verbose-plans",
    cl::desc("GPU: print the plan each group runs and every plan declined"),
    cl::init(false), cl::cat(runCategory));

//===----------------------------------------------------------------------===//
// Small helpers
//===----------------------------------------------------------------------===//

/// A failure: the one-line message (without the "graph-run: error: ").
struct Failure {
  std::string message;
};

template <typename T> using Result = std::variant<T, Failure>;

int fail(const llvm::Twine &message) {
  llvm::errs() << "graph-run: error: " << message << "\n";
  return 1;
}

std::string shapeString(const ref::Shape &shape) {
  std::string text;
  for (int64_t d : shape)
    text +=
        (ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d)) + "x";
  return text;
}

std::string typeString(const ref::Shape &shape, ref::DType dtype) {
  return shapeString(shape) + ref::dtypeName(dtype);
}

/// The tensor's uid as text ("?" before assign-uids; 0 is a uid).
std::string uidText(const ref::TensorInfo &info) {
  return info.uid ? std::to_string(*info.uid) : "?";
}

/// `uid 7 "y"`, or `uid 7` when unnamed.
std::string describe(const ref::TensorInfo &info) {
  std::string text = "uid " + uidText(info);
  if (!info.name.empty())
    text += " \"" + info.name + "\"";
  return text;
}

bool isStaticShape(const ref::Shape &shape) {
  return llvm::none_of(shape, ShapedType::isDynamic);
}

/// "" when the host can hold a `shape` x `dtype` buffer for input `info`,
/// else the one-line error naming the input, the bytes and the limit.
std::string checkInputMemory(const ref::TensorInfo &info,
                             const ref::Shape &shape, ref::DType dtype) {
  std::optional<int64_t> count = ::graph::checkedElementCount(shape);
  std::optional<int64_t> bytes =
      count ? ::graph::checkedMul(*count,
                                  static_cast<int64_t>(ref::byteWidth(dtype)))
            : std::nullopt;
  return ref::checkHostAllocation(bytes, "input " + describe(info) + " (" +
                                             typeString(shape, dtype) + ")");
}

/// The message of a failed input, prefixed with the input unless it names
/// it already.
std::string inputFailure(const ref::TensorInfo &info,
                         const std::string &message) {
  std::string prefix = "input " + describe(info);
  if (llvm::StringRef(message).starts_with(prefix))
    return message;
  return prefix + ": " + message;
}

/// Copies a (possibly strided) tensor into dense row-major bytes, bit-exactly.
std::vector<uint8_t> rowMajorBytes(const ref::HostTensor &tensor) {
  size_t width = ref::byteWidth(tensor.dtype);
  int64_t count = tensor.numElements();
  ref::Shape rowMajor = ref::rowMajorStrides(tensor.shape);
  if (tensor.strides.empty() || tensor.strides == rowMajor)
    return std::vector<uint8_t>(tensor.bytes.begin(),
                                tensor.bytes.begin() + count * width);
  std::vector<uint8_t> out(count * width);
  size_t rank = tensor.shape.size();
  ref::Shape index(rank, 0);
  int64_t src = 0;
  for (int64_t e = 0; e < count; ++e) {
    std::memcpy(&out[e * width], &tensor.bytes[src * width], width);
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

double elementAt(const std::vector<uint8_t> &bytes, ref::DType dtype,
                 int64_t i) {
  return ref::decode(dtype, &bytes[i * ref::byteWidth(dtype)]);
}

std::string formatValue(double v, ref::DType dtype) {
  char buf[64];
  if (!ref::isFloat(dtype) && std::isfinite(v))
    std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(v));
  else if (std::isnan(v))
    return "nan";
  else if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  else
    std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

/// `[1, 2]` for an error message.
std::string indexString(const ref::Shape &shape, int64_t flat) {
  ref::Shape index(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    index[k] = shape[k] ? flat % shape[k] : 0;
    flat = shape[k] ? flat / shape[k] : 0;
  }
  std::string text = "[";
  for (size_t k = 0; k < index.size(); ++k)
    text += (k ? ", " : "") + std::to_string(index[k]);
  return text + "]";
}

/// `2x3xf32=[[1 2 3] [4 5 6]]`, at most `maxElements` values then `...`.
std::string formatTensor(const ref::Shape &shape, ref::DType dtype,
                         const std::vector<uint8_t> &bytes,
                         int64_t maxElements) {
  std::string text = typeString(shape, dtype) + "=";
  int64_t count = ref::numElements(shape);
  if (shape.empty())
    return text + formatValue(elementAt(bytes, dtype, 0), dtype);
  if (maxElements <= 0)
    return text + "...";
  size_t rank = shape.size();
  if (count == 0)
    return text + std::string(rank, '[') + std::string(rank, ']');
  ref::Shape index(rank, 0);
  int64_t limit = std::min(count, maxElements);
  for (int64_t e = 0; e < limit; ++e) {
    size_t opened = 0; // trailing dims starting a new row here
    for (size_t k = rank; k-- > 0 && index[k] == 0;)
      ++opened;
    if (e > 0)
      text += " ";
    text += std::string(opened, '[');
    text += formatValue(elementAt(bytes, dtype, e), dtype);
    size_t closed = 0;
    for (size_t k = rank; k-- > 0 && index[k] == shape[k] - 1;)
      ++closed;
    text += std::string(closed, ']');
    for (size_t k = rank; k-- > 0;) {
      if (++index[k] < shape[k])
        break;
      index[k] = 0;
    }
  }
  if (limit < count) {
    // Close the rows left open.
    size_t open = 0;
    for (size_t k = rank; k-- > 0 && index[k] == 0;)
      ++open;
    text += " ..." + std::string(rank - open, ']');
  }
  return text;
}

//===----------------------------------------------------------------------===//
// Looking tensors up by uid or name
//===----------------------------------------------------------------------===//

/// Resolves `key` (all digits: a uid, else a name) among `infos`.
Result<size_t> lookup(const std::vector<ref::TensorInfo> &infos,
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
    known += (known.empty() ? "" : ", ") + describe(info);
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

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

/// Checks the given dims against the declared ones ('?' binds anything).
std::string checkShape(const ref::TensorInfo &info, const ref::Shape &given,
                       ref::DType givenType) {
  bool match = given.size() == info.shape.size();
  for (size_t d = 0; match && d < given.size(); ++d)
    match = ShapedType::isDynamic(info.shape[d]) || info.shape[d] == given[d];
  if (!match || givenType != info.dtype)
    return "expected " + typeString(info.shape, info.dtype) + ", given " +
           typeString(given, givenType);
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
    return Failure{"'" + path + "': expected dims " + shapeString(info.shape) +
                   " given " + shapeString(array.shape)};
  ref::HostTensor tensor;
  tensor.dtype = info.dtype;
  tensor.shape = array.shape;
  tensor.bytes = std::move(array.data);
  return tensor;
}

Result<ref::HostTensor> randomInput(const ref::TensorInfo &info,
                                    BlockArgument arg, uint64_t seed);

/// "2x3xf32=1 2 3 4 5 6" (values separated by spaces or commas; brackets
/// are ignored; "f32=5" for a rank-0 tensor), or "2x3xf32=random": random
/// data of those dims, as `random` draws it (`arg` and `seed`).
Result<ref::HostTensor> parseInlineInput(const ref::TensorInfo &info,
                                         llvm::StringRef text,
                                         BlockArgument arg, uint64_t seed) {
  auto [typeText, valuesText] = text.split('=');
  llvm::SmallVector<llvm::StringRef> parts;
  typeText.trim().split(parts, 'x');
  ref::Shape shape;
  ref::DType dtype;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    int64_t d;
    if (parts[i].getAsInteger(10, d) || d < 0)
      return Failure{"malformed inline value type '" + typeText.str() +
                     "' (expected e.g. 2x3xf32)"};
    shape.push_back(d);
  }
  if (parts.empty() || !ref::parseDType(parts.back().str(), dtype))
    return Failure{"malformed inline value type '" + typeText.str() +
                   "' (expected e.g. 2x3xf32)"};
  if (std::string err = checkShape(info, shape, dtype); !err.empty())
    return Failure{err};
  if (valuesText.trim() == "random") {
    ref::TensorInfo bound = info;
    bound.shape = shape;
    return randomInput(bound, arg, seed);
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
  if (!checkedCount ||
      static_cast<int64_t>(tokens.size()) != *checkedCount)
    return Failure{typeString(shape, dtype) + " needs " +
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

/// A splitmix64 step: decorrelates (seed, uid) into a generator state.
uint64_t splitmix64(uint64_t &state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// The value an integer input must hold when its use fixes it, per element.
std::optional<std::vector<double>> legalIntegerValues(BlockArgument arg,
                                                      int64_t count) {
  if (!arg) // an artifact's input: no uses to read a legal value from
    return std::nullopt;
  for (OpOperand &use : arg.getUses()) {
    Operation *user = use.getOwner();
    std::optional<int64_t> length;
    auto seqLen = [&](auto op) {
      auto dimOf = [](Value v) {
        auto type = cast<RankedTensorType>(v.getType());
        return type.getRank() >= 2 ? type.getDimSize(type.getRank() - 2)
                                   : ShapedType::kDynamic;
      };
      if (op.getSeqLenQ() == arg)
        length = dimOf(op.getQ());
      else if (op.getSeqLenKv() == arg)
        length = dimOf(op.getK());
    };
    if (auto op = dyn_cast<SdpaOp>(user))
      seqLen(op);
    else if (auto op = dyn_cast<SdpaBackwardOp>(user))
      seqLen(op);
    else if (auto op = dyn_cast<SdpaFp8Op>(user))
      seqLen(op);
    else if (auto op = dyn_cast<SdpaFp8BackwardOp>(user))
      seqLen(op);
    else if (auto op = dyn_cast<SdpaMxfp8Op>(user))
      seqLen(op);
    else if (auto op = dyn_cast<SdpaMxfp8BackwardOp>(user))
      seqLen(op);
    if (length && !ShapedType::isDynamic(*length))
      return std::vector<double>(count, static_cast<double>(*length));

    // MoE group offsets: evenly spaced, explicit boundaries (count % E == 1)
    // or implicit starts.
    Value token, weight;
    if (auto op = dyn_cast<MoeGroupedMatmulOp>(user);
        op && op.getFirstTokenOffset() == arg) {
      token = op.getToken();
      weight = op.getWeight();
    } else if (auto op = dyn_cast<MoeGroupedMatmulBwdOp>(user);
               op && op.getFirstTokenOffset() == arg) {
      token = op.getToken();
      weight = op.getDweight();
    }
    if (token) {
      auto tokenType = cast<RankedTensorType>(token.getType());
      auto weightType = cast<RankedTensorType>(weight.getType());
      int64_t rows = tokenType.getRank() >= 2
                         ? tokenType.getDimSize(tokenType.getRank() - 2)
                         : ShapedType::kDynamic;
      int64_t experts = weightType.getRank() >= 1 ? weightType.getDimSize(0)
                                                  : ShapedType::kDynamic;
      if (ShapedType::isDynamic(rows) || ShapedType::isDynamic(experts) ||
          experts <= 0 || count == 0)
        continue;
      bool explicitBounds = experts == 1 || count % experts == 1;
      int64_t groups = explicitBounds ? count - 1 : count;
      std::vector<double> values(count);
      for (int64_t i = 0; i < count; ++i)
        values[i] = groups > 0 ? static_cast<double>(i * rows / groups) : 0.0;
      return values;
    }
  }
  return std::nullopt;
}

Result<ref::HostTensor> randomInput(const ref::TensorInfo &info,
                                    BlockArgument arg, uint64_t seed) {
  if (!isStaticShape(info.shape))
    return Failure{"input " + describe(info) + " has dynamic dims (" +
                   shapeString(info.shape) +
                   "...): random data needs them; "
                   "give the input with --input, e.g. --input=" +
                   uidText(info) + "=\"DIMSx" + ref::dtypeName(info.dtype) +
                   "=random\""};
  if (std::string err = checkInputMemory(info, info.shape, info.dtype);
      !err.empty())
    return Failure{err};
  ref::HostTensor tensor = ref::HostTensor::zeros(info.dtype, info.shape);
  int64_t count = tensor.numElements();
  size_t width = ref::byteWidth(info.dtype);
  uint64_t state = seed;
  splitmix64(state);
  state ^= static_cast<uint64_t>(info.uid.value_or(0)) * 0xD1B54A32D192ED03ull;
  auto uniform = [&] {
    return static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53;
  };
  std::optional<std::vector<double>> fixed;
  if (!ref::isFloat(info.dtype) && info.dtype != ref::DType::I1)
    fixed = legalIntegerValues(arg, count);
  for (int64_t i = 0; i < count; ++i) {
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
  return tensor;
}

/// The tensor an --input value asks for (@FILE.npy, random or
/// DIMSxTYPE=VALUES); nullopt when the value has none of these forms, which
/// each caller words its own way.
std::optional<Result<ref::HostTensor>>
inputFromValue(const ref::TensorInfo &info, llvm::StringRef value,
               BlockArgument arg, uint64_t seed) {
  if (value.starts_with("@"))
    return loadNpyInput(info, value.drop_front().str());
  if (value == "random")
    return randomInput(info, arg, seed);
  if (value.contains('='))
    return parseInlineInput(info, value, arg, seed);
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Comparing outputs
//===----------------------------------------------------------------------===//

// The tolerances and the comparison are GraphDialect/Reference/Compare.h's,
// shared with the GPU autotuner's check of every plan.
using ref::Comparison;
using ref::compare;

//===----------------------------------------------------------------------===//
// The driver
//===----------------------------------------------------------------------===//

/// `result[I] (uid N "name"): VALUES`, the line every output prints.
void printResult(size_t i, const ref::TensorInfo &info,
                 const ref::HostTensor &tensor,
                 const std::vector<uint8_t> &bytes) {
  llvm::outs() << "result[" << i << "] (" << describe(info) << "): "
               << formatTensor(tensor.shape, tensor.dtype, bytes,
                               printMaxElements)
               << "\n";
}

#ifdef GRAPH_HAVE_GPU_RUNTIME
/// Fills `options` from the GPU flags; the error names a bad --heuristics
/// mode. Without --heuristics the options keep their default modes.
std::string applyGpuFlags(GpuOptions &options) {
  options.planIndex = planIndex;
  options.workspaceLimit = workspaceLimit;
  options.verbose = verbosePlans;
  options.autotune = autotunePlans;
  options.deselectEngines.assign(deselectEngines.begin(),
                                 deselectEngines.end());
  if (heuristicModes.empty())
    return "";
  options.heuristics.clear();
  for (const std::string &mode : heuristicModes) {
    std::string lower = llvm::StringRef(mode).lower();
    if (lower == "a")
      options.heuristics.push_back(::graph::rt::HeurMode::A);
    else if (lower == "b")
      options.heuristics.push_back(::graph::rt::HeurMode::B);
    else if (lower == "fallback")
      options.heuristics.push_back(::graph::rt::HeurMode::Fallback);
    else
      return "--heuristics=" + mode + ": expected a, b or fallback";
  }
  return "";
}

/// --verbose-plans: the plan each group runs and the plans it declined.
void printPlans(const std::vector<GpuGroupReport> &plans) {
  for (const GpuGroupReport &entry : plans) {
    llvm::outs() << "plan: " << entry.group << ": "
                 << (entry.plan.empty() ? "(none)" : entry.plan) << "\n";
    for (const std::string &line : entry.declined)
      llvm::outs() << "  declined " << line << "\n";
  }
}
#endif

/// Whether the graph still needs graph-prepare: a missing uid or stride.
bool needsPrepare(GraphOp graph) {
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

std::string sanitizeFileName(const std::string &name) {
  if (name.empty() || name == "." || name == "..")
    return "";
  for (char c : name)
    if (!(llvm::isAlnum(c) || c == '_' || c == '-' || c == '.'))
      return "";
  return name;
}

/// Runs the exec.program artifact of `module` on the GPU.
int runArtifact(ModuleOp module) {
  std::vector<exec::ProgramOp> programs(module.getOps<exec::ProgramOp>().begin(),
                                        module.getOps<exec::ProgramOp>().end());
  std::string names;
  for (exec::ProgramOp p : programs)
    names += (names.empty() ? "" : ", ") + p.getSymName().str();
  exec::ProgramOp program;
  for (exec::ProgramOp p : programs)
    if (graphName.empty() ? programs.size() == 1 : p.getSymName() == graphName)
      program = p;
  if (!program)
    return fail(graphName.empty()
                    ? "'" + inputFilename + "' holds " +
                          std::to_string(programs.size()) +
                          " exec.programs (" + names +
                          "): pick one with --graph=NAME"
                    : "no exec.program named '" + graphName + "' in '" +
                          inputFilename + "'; its programs are: " + names);
  std::string name = program.getSymName().str();
  if (device == Device::Cpu)
    return fail("'" + inputFilename + "' holds exec.program @" + name +
                ", a compiled artifact that runs only on the GPU: use "
                "--device=gpu (the CPU reference runs graph.graph files)");
  if (!checkAgainst.empty())
    return fail("--check-against=" + checkAgainst + ": exec.program @" + name +
                " is a compiled artifact with no graph for the CPU reference "
                "to run; compare with --expected-output instead");
#ifndef GRAPH_HAVE_GPU_RUNTIME
  return fail("exec.program @" + name + " runs only on the GPU, and this "
              "build has no GPU runtime");
#else
  CudnnProgram lowered;
  exec::ProgramIO io;
  if (std::string err = exec::loadProgram(program, lowered, &io); !err.empty())
    return fail(err);
  std::string why;
  if (!::graph::rt::Device::get(why))
    return fail("exec.program @" + name + " runs only on the GPU: the GPU "
                "device is not available: " + why);

  // Inputs: the same --input / --random-inputs forms as for a graph.
  std::vector<std::optional<ref::HostTensor>> given(io.inputs.size());
  uint64_t seed = randomSeed.getNumOccurrences() ? randomSeed : 0;
  for (const std::string &spec : inputSpecs) {
    auto [key, value] = llvm::StringRef(spec).split('=');
    Result<size_t> index = lookup(io.inputs, key, "input");
    if (auto *f = std::get_if<Failure>(&index))
      return fail("--input=" + spec + ": " + f->message);
    size_t i = std::get<size_t>(index);
    Result<ref::HostTensor> tensor =
        inputFromValue(io.inputs[i], value, BlockArgument(), seed)
            .value_or(Failure{"unknown input form"});
    if (auto *f = std::get_if<Failure>(&tensor))
      return fail(inputFailure(io.inputs[i], f->message));
    given[i] = std::move(std::get<ref::HostTensor>(tensor));
  }
  std::vector<ref::HostTensor> inputs;
  for (size_t i = 0; i < io.inputs.size(); ++i) {
    if (!given[i]) {
      if (!randomSeed.getNumOccurrences())
        return fail("missing input " + describe(io.inputs[i]) +
                    ": give it with --input or use --random-inputs=SEED");
      Result<ref::HostTensor> tensor =
          randomInput(io.inputs[i], BlockArgument(), seed);
      if (auto *f = std::get_if<Failure>(&tensor))
        return fail(f->message);
      given[i] = std::move(std::get<ref::HostTensor>(tensor));
    }
    inputs.push_back(std::move(*given[i]));
  }

  GpuOptions options;
  if (std::string err = applyGpuFlags(options); !err.empty())
    return fail(err);
  options.codegenCubin = codegenCubin;
  if (!heuristicModes.empty()) // the command line overrides the artifact
    for (GroupEngine &engine : lowered.engines)
      engine.heuristics.clear();
  std::vector<ref::HostTensor> outputs;
  std::vector<GpuGroupReport> plans;
  std::vector<double> milliseconds;
  if (std::string err = executeProgramOnGpu(
          std::move(lowered), io.outputs, inputs, outputs, options, &plans,
          benchmarkRuns, &milliseconds);
      !err.empty())
    return fail("exec.program @" + name + " on the GPU: " + err);
  if (verbosePlans)
    printPlans(plans);
  if (!milliseconds.empty()) {
    std::sort(milliseconds.begin(), milliseconds.end());
    llvm::outs() << llvm::format(
        "benchmark: %u runs on the GPU: min %.6f s, max %.6f s per execute\n",
        static_cast<unsigned>(milliseconds.size()),
        milliseconds.front() / 1000.0, milliseconds.back() / 1000.0);
  }
  for (size_t i = 0; i < outputs.size(); ++i)
    printResult(i, io.outputs[i], outputs[i], rowMajorBytes(outputs[i]));
  for (const std::string &spec : outputSpecs) {
    auto [key, value] = llvm::StringRef(spec).split('=');
    Result<size_t> index = lookup(io.outputs, key, "output");
    if (auto *f = std::get_if<Failure>(&index))
      return fail("--output=" + spec + ": " + f->message);
    if (!value.starts_with("@"))
      return fail("--output=" + spec + ": expected Y=@file.npy");
    size_t i = std::get<size_t>(index);
    if (std::string err = ref::writeNpyFile(
            value.drop_front().str(), outputs[i].dtype, outputs[i].shape,
            rowMajorBytes(outputs[i]).data());
        !err.empty())
      return fail(err);
  }
  llvm::outs().flush();
  return 0;
#endif
}

int runMain() {
  // Tolerance options must be sane before anything runs.
  if (rtolOpt.getNumOccurrences() && !(rtolOpt >= 0))
    return fail("--rtol must be non-negative");
  if (atolOpt.getNumOccurrences() && !(atolOpt >= 0))
    return fail("--atol must be non-negative");
#ifndef GRAPH_HAVE_GPU_RUNTIME
  if (device == Device::Gpu)
    return fail("the GPU device is not available: this build has no GPU "
                "runtime");
#endif
  if (!checkAgainst.empty() && checkAgainst != "cpu")
    return fail("--check-against=" + checkAgainst +
                ": only 'cpu' (the reference executor) can be compared with");

  DialectRegistry registry;
  registry.insert<GraphDialect, exec::ExecDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // One line per diagnostic: "graph-run: error: FILE:L:C: message".
  context.getDiagEngine().registerHandler([](Diagnostic &diag) {
    llvm::errs() << "graph-run: "
                 << (diag.getSeverity() == DiagnosticSeverity::Error ? "error"
                     : diag.getSeverity() == DiagnosticSeverity::Warning
                         ? "warning"
                         : "note")
                 << ": ";
    if (auto loc = dyn_cast<FileLineColLoc>(diag.getLocation()))
      llvm::errs() << loc.getFilename().getValue() << ":" << loc.getLine() << ":"
                   << loc.getColumn() << ": ";
    std::string text = diag.str();
    std::replace(text.begin(), text.end(), '\n', ' ');
    llvm::errs() << text << "\n";
    return success();
  });

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFilename, &errorMessage);
  if (!file)
    return fail(errorMessage);
  if (std::optional<::graph::ExcessiveNesting> deep =
          ::graph::findExcessiveNesting(file->getBuffer()))
    return fail(inputFilename + ":" + std::to_string(deep->line) + ":" +
                std::to_string(deep->column) + ": " + deep->message());
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1; // the diagnostic handler printed why
  if (!module->getOps<exec::ProgramOp>().empty())
    return runArtifact(*module);

  // Pick the graph.
  auto findGraph = [&]() -> Result<GraphOp> {
    std::vector<GraphOp> graphs(module->getOps<GraphOp>().begin(),
                                module->getOps<GraphOp>().end());
    std::string names;
    for (GraphOp g : graphs)
      names += (names.empty() ? "" : ", ") + g.getSymName().str();
    if (graphs.empty())
      return Failure{"'" + inputFilename + "' holds no graph.graph"};
    if (!graphName.empty()) {
      for (GraphOp g : graphs)
        if (g.getSymName() == graphName)
          return g;
      return Failure{"no graph named '" + graphName + "' in '" + inputFilename +
                     "'; its graphs are: " + names};
    }
    if (graphs.size() > 1)
      return Failure{"'" + inputFilename + "' holds " +
                     std::to_string(graphs.size()) + " graphs (" + names +
                     "): pick one with --graph=NAME"};
    return graphs.front();
  };
  Result<GraphOp> picked = findGraph();
  if (auto *f = std::get_if<Failure>(&picked))
    return fail(f->message);
  GraphOp graph = std::get<GraphOp>(picked);
  std::string name = graph.getSymName().str();

  if (needsPrepare(graph)) {
    PassManager pm(&context);
    buildPreparePipeline(pm, PreparePipelineOptions());
    if (failed(pm.run(*module)))
      return 1; // the diagnostic handler printed why
    graph = dyn_cast_or_null<GraphOp>(
        SymbolTable::lookupSymbolIn(*module, StringAttr::get(&context, name)));
    if (!graph)
      return fail("graph-prepare removed graph @" + name);
  }

  std::vector<ref::TensorInfo> inputInfos, outputInfos;
  ref::describeGraph(graph, inputInfos, outputInfos);
  Block &body = graph.getBody().front();
  for (size_t i = 0; i < inputInfos.size(); ++i) {
    Type elt =
        cast<RankedTensorType>(body.getArgument(i).getType()).getElementType();
    ref::DType dtype;
    if (!ref::toDType(elt, dtype)) {
      std::string t;
      llvm::raw_string_ostream(t) << elt;
      return fail("input " + describe(inputInfos[i]) + ": element type " + t +
                  " has no host representation");
    }
  }
  bool tf32 = false;
  if (auto compute = graph.getComputeDataType())
    tf32 = compute->isTF32();

  // Inputs.
  std::vector<std::optional<ref::HostTensor>> given(inputInfos.size());
  for (const std::string &spec : inputSpecs) {
    auto [key, value] = llvm::StringRef(spec).split('=');
    if (!llvm::StringRef(spec).contains('='))
      return fail("--input=" + spec +
                  ": expected X=@file.npy, X=\"DIMSxTYPE=VALUES\" or X=random");
    Result<size_t> index = lookup(inputInfos, key, "input");
    if (auto *f = std::get_if<Failure>(&index))
      return fail("--input=" + spec + ": " + f->message);
    size_t i = std::get<size_t>(index);
    const ref::TensorInfo &info = inputInfos[i];
    if (given[i])
      return fail("input " + describe(info) + " is given twice");
    std::optional<Result<ref::HostTensor>> tensor =
        inputFromValue(info, value, body.getArgument(i),
                       randomSeed.getNumOccurrences() ? randomSeed : 0);
    if (!tensor)
      return fail("--input=" + spec +
                  ": the value must be @file.npy, "
                  "DIMSxTYPE=VALUES or random");
    if (auto *f = std::get_if<Failure>(&*tensor))
      return fail(inputFailure(info, f->message));
    given[i] = std::move(std::get<ref::HostTensor>(*tensor));
  }
  std::vector<ref::HostTensor> inputs;
  for (size_t i = 0; i < inputInfos.size(); ++i) {
    if (!given[i]) {
      if (!randomSeed.getNumOccurrences()) {
        const ref::TensorInfo &info = inputInfos[i];
        std::string more;
        size_t missing = llvm::count_if(given, [](auto &g) { return !g; });
        if (missing > 1)
          more = " (and " + std::to_string(missing - 1) + " more)";
        return fail("missing input " + describe(info) + " (" +
                    typeString(info.shape, info.dtype) + ")" + more +
                    ": give it with --input=" + uidText(info) +
                    "=@FILE.npy or use --random-inputs=SEED");
      }
      Result<ref::HostTensor> tensor =
          randomInput(inputInfos[i], body.getArgument(i), randomSeed);
      if (auto *f = std::get_if<Failure>(&tensor))
        return fail(f->message);
      given[i] = std::move(std::get<ref::HostTensor>(tensor));
    }
    inputs.push_back(std::move(*given[i]));
  }

  // Output requests, resolved before running so that typos fail fast.
  std::vector<std::pair<size_t, std::string>> outputFiles, expectedFiles;
  auto resolveOutputs = [&](const cl::list<std::string> &specs,
                            const char *flag,
                            std::vector<std::pair<size_t, std::string>> &out)
      -> std::optional<int> {
    for (const std::string &spec : specs) {
      auto [key, value] = llvm::StringRef(spec).split('=');
      if (!value.starts_with("@") || value.size() < 2)
        return fail(std::string("--") + flag + "=" + spec +
                    ": expected Y=@file.npy");
      Result<size_t> index = lookup(outputInfos, key, "output");
      if (auto *f = std::get_if<Failure>(&index))
        return fail(std::string("--") + flag + "=" + spec + ": " + f->message);
      out.emplace_back(std::get<size_t>(index), value.drop_front().str());
    }
    return std::nullopt;
  };
  if (auto rc = resolveOutputs(outputSpecs, "output", outputFiles))
    return *rc;
  if (auto rc = resolveOutputs(expectedSpecs, "expected-output", expectedFiles))
    return *rc;

  // The device: the GPU when asked (or, for auto, when one is usable and
  // every op has an engine there), else the CPU reference.
  bool onGpu = false;
#ifdef GRAPH_HAVE_GPU_RUNTIME
  GpuOptions gpuOptions;
  if (std::string err = applyGpuFlags(gpuOptions); !err.empty())
    return fail(err);
  if (device != Device::Cpu) {
    std::string why;
    bool usable = ::graph::rt::Device::get(why) != nullptr;
    if (!usable)
      why = "the GPU device is not available: " + why;
    if (usable) {
      // Engine selection diagnoses ops nothing runs; for auto they go to the
      // CPU instead.
      PassManager pm(&context);
      pm.addPass(createGraphExpandGqaBackward());
      pm.addPass(createGraphWidenNormGradients());
      pm.addPass(createGraphFuse());
      pm.addPass(createGraphSelectEngines());
      ScopedDiagnosticHandler quiet(&context, [&](Diagnostic &diag) {
        why = "the GPU cannot run graph @" + name + ": " + diag.str();
        return success(device == Device::Auto);
      });
      usable = succeeded(pm.run(*module));
      graph = dyn_cast_or_null<GraphOp>(
          SymbolTable::lookupSymbolIn(*module, StringAttr::get(&context, name)));
    }
    if (!usable && device == Device::Gpu)
      return fail(why);
    if (!usable)
      llvm::errs() << "graph-run: note: running on the CPU reference "
                      "executor ("
                   << why << ")\n";
    onGpu = usable;
  }
#else
  if (device == Device::Auto)
    llvm::errs() << "graph-run: note: running on the CPU reference executor "
                    "(the GPU device is not available: this build has no GPU "
                    "runtime)\n";
#endif

  std::vector<ref::HostTensor> outputs;
  std::vector<double> seconds;
  if (onGpu) {
#ifdef GRAPH_HAVE_GPU_RUNTIME
    std::vector<GpuGroupReport> plans;
    std::vector<double> milliseconds;
    if (std::string err =
            executeOnGpu(graph, inputs, outputs, gpuOptions, &plans,
                         benchmarkRuns, &milliseconds);
        !err.empty())
      return fail("graph @" + name + " on the GPU: " + err);
    if (verbosePlans)
      printPlans(plans);
    for (double ms : milliseconds)
      seconds.push_back(ms / 1000.0);
#endif
  } else {
    if (std::string err = ref::execute(graph, inputs, outputs); !err.empty())
      return fail("graph @" + name + ": " + err);
    // The run above was the warm-up.
    for (unsigned r = 0; r < benchmarkRuns; ++r) {
      std::vector<ref::HostTensor> scratch;
      auto start = std::chrono::steady_clock::now();
      std::string err = ref::execute(graph, inputs, scratch);
      auto stop = std::chrono::steady_clock::now();
      if (!err.empty())
        return fail("graph @" + name + ": " + err);
      seconds.push_back(std::chrono::duration<double>(stop - start).count());
    }
  }

  if (!seconds.empty()) {
    std::sort(seconds.begin(), seconds.end());
    size_t n = seconds.size();
    double median =
        n % 2 ? seconds[n / 2] : 0.5 * (seconds[n / 2 - 1] + seconds[n / 2]);
    llvm::outs() << llvm::format("benchmark: %u runs on the %s: "
                                 "min %.6f s, median %.6f s, max %.6f s per "
                                 "execute\n",
                                 static_cast<unsigned>(n),
                                 onGpu ? "GPU" : "CPU reference",
                                 seconds.front(), median, seconds.back());
  }

  // Print.
  std::vector<std::vector<uint8_t>> dense;
  for (size_t i = 0; i < outputs.size(); ++i) {
    dense.push_back(rowMajorBytes(outputs[i]));
    printResult(i, outputInfos[i], outputs[i], dense[i]);
  }
  llvm::outs().flush();

  // Write.
  for (auto &[i, path] : outputFiles)
    if (std::string err = ref::writeNpyFile(path, outputs[i].dtype,
                                            outputs[i].shape, dense[i].data());
        !err.empty())
      return fail(err);
  if (!outputDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
      return fail("cannot create '" + outputDir + "': " + ec.message());
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::string base = sanitizeFileName(outputInfos[i].name);
      size_t sameName =
          llvm::count_if(outputInfos, [&](const ref::TensorInfo &info) {
            return info.name == outputInfos[i].name;
          });
      if (base.empty() || sameName > 1)
        base = "uid_" + uidText(outputInfos[i]);
      llvm::SmallString<256> path(outputDir);
      llvm::sys::path::append(path, base + ".npy");
      if (std::string err =
              ref::writeNpyFile(path.str().str(), outputs[i].dtype,
                                outputs[i].shape, dense[i].data());
          !err.empty())
        return fail(err);
    }
  }

  int status = 0;
  auto report = [&](size_t i, const std::vector<uint8_t> &want,
                    const std::string &against, bool normwise) {
    const ref::HostTensor &out = outputs[i];
    // An output is no more exact than the narrowest float the graph reads:
    // an f32 gradient of f16 data differs by the f16 accumulation order.
    std::vector<ref::DType> inputTypes;
    for (const ref::TensorInfo &in : inputInfos)
      inputTypes.push_back(in.dtype);
    double rtol = ref::deviceTolerance(out.dtype, inputTypes, tf32);
    if (rtolOpt.getNumOccurrences())
      rtol = rtolOpt;
    double atol = atolOpt.getNumOccurrences() ? atolOpt : rtol;
    Comparison c = compare(dense[i], want, out.dtype, out.numElements(), rtol,
                           atol, normwise);
    std::string who =
        "result[" + std::to_string(i) + "] (" + describe(outputInfos[i]) + ")";
    if (c.ok) {
      llvm::outs() << "[SUCCESS] " << who << " matches " << against
                   << " (max abs diff "
                   << formatValue(c.maxAbsDiff, ref::DType::F64);
      if (normwise)
        llvm::outs() << ", relative error "
                     << formatValue(c.relativeError, ref::DType::F64);
      llvm::outs() << ")\n";
      return;
    }
    status = 1;
    if (normwise)
      llvm::outs() << "[FAILED] " << who << " differs from " << against
                   << ": relative error "
                   << formatValue(c.relativeError, ref::DType::F64)
                   << " over " << formatValue(rtol, ref::DType::F64)
                   << "; worst ";
    else
      llvm::outs() << "[FAILED] " << who << " differs from " << against << " ";
    llvm::outs() << "at "
                 << indexString(out.shape, c.firstBad) << ": got "
                 << formatValue(c.got, out.dtype) << ", expected "
                 << formatValue(c.want, out.dtype) << " (atol "
                 << formatValue(atol, ref::DType::F64) << ", rtol "
                 << formatValue(rtol, ref::DType::F64) << ")\n";
  };

  for (auto &[i, path] : expectedFiles) {
    ref::NpyArray array;
    if (std::string err = ref::readNpyFile(path, array); !err.empty())
      return fail(err);
    if (std::string err = ref::checkNpyDType(array, outputs[i].dtype);
        !err.empty())
      return fail("'" + path + "': " + err);
    if (array.shape != outputs[i].shape)
      return fail("'" + path + "': result[" + std::to_string(i) + "] (" +
                  describe(outputInfos[i]) + ") is " +
                  typeString(outputs[i].shape, outputs[i].dtype) +
                  ", the file holds " +
                  typeString(array.shape, outputs[i].dtype));
    report(i, array.data, "'" + path + "'", /*normwise=*/false);
  }

  if (!checkAgainst.empty()) {
    // On the CPU device this compares two runs of the reference (a
    // determinism check); on the GPU it is the numeric check.
    std::vector<ref::HostTensor> reference;
    if (std::string err = ref::execute(graph, inputs, reference); !err.empty())
      return fail("graph @" + name + " on the CPU reference: " + err);
    for (size_t i = 0; i < outputs.size(); ++i)
      report(i, rowMajorBytes(reference[i]), "the CPU reference",
             /*normwise=*/true);
  }
  llvm::outs().flush();
  return status;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  cl::HideUnrelatedOptions(runCategory);
  cl::ParseCommandLineOptions(argc, argv,
                              "graph-run: runs a graph-dialect graph on the "
                              "CPU reference or the GPU\n");
  return runMain();
}
