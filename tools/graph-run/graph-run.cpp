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
// A thin tool: it parses flags and prints; finding, preparing, building the
// inputs, choosing the device and running are the engine layer's
// (GraphDialect/Engine/RunGraph.h), which the C API shares.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Engine/RunGraph.h"
#include "GraphDialect/Executable/ExecDialect.h"
#include "GraphDialect/Executable/ExecOps.h"
#include "GraphDialect/GraphDialect.h"
#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Reference/Compare.h"
#include "GraphDialect/Reference/Npy.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

using namespace mlir;
using namespace mlir::graph;
namespace ref = ::graph::ref;
namespace cl = llvm::cl;

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

namespace {

using Device = RunDevice;

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
cl::opt<int> gpuDevice(
    "gpu-device",
    cl::desc("The CUDA device ordinal to run on (default: the current one, "
             "0)"),
    cl::value_desc("N"), cl::init(-1), cl::cat(runCategory));
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

int fail(const llvm::Twine &message) {
  llvm::errs() << "graph-run: error: " << message << "\n";
  return 1;
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
  std::string text = typeText(shape, dtype) + "=";
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
// Comparing outputs
//===----------------------------------------------------------------------===//

// The tolerances and the comparison are GraphDialect/Reference/Compare.h's,
// shared with the GPU autotuner's check of every plan.
using ref::compare;
using ref::Comparison;

//===----------------------------------------------------------------------===//
// The driver
//===----------------------------------------------------------------------===//

/// `result[I] (uid N "name"): VALUES`, the line every output prints.
void printResult(size_t i, const ref::TensorInfo &info,
                 const ref::HostTensor &tensor,
                 const std::vector<uint8_t> &bytes) {
  llvm::outs() << "result[" << i << "] (" << describeTensor(info) << "): "
               << formatTensor(tensor.shape, tensor.dtype, bytes,
                               printMaxElements)
               << "\n";
}

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
    ::graph::rt::HeurMode parsed;
    if (!parseHeuristicsMode(mode, parsed))
      return "--heuristics=" + mode + ": expected a, b or fallback";
    options.heuristics.push_back(parsed);
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

std::string sanitizeFileName(const std::string &name) {
  if (name.empty() || name == "." || name == "..")
    return "";
  for (char c : name)
    if (!(llvm::isAlnum(c) || c == '_' || c == '-' || c == '.'))
      return "";
  return name;
}

/// The inputs of `io` from --input and --random-inputs, in input order.
/// Returns the exit code when a request is wrong.
std::optional<int> collectInputs(const RunIO &io,
                                 std::vector<ref::HostTensor> &inputs) {
  const std::vector<ref::TensorInfo> &infos = io.inputs;
  // An artifact has no block arguments: random integer data then has no
  // use to read a legal value from.
  auto argOf = [&](size_t i) {
    return i < io.args.size() ? io.args[i] : BlockArgument();
  };
  uint64_t seed = randomSeed.getNumOccurrences() ? randomSeed : 0;
  // All of the inputs are held at once: their total must fit.
  ::graph::HostMemoryBudget budget;
  std::vector<std::optional<ref::HostTensor>> given(infos.size());
  for (const std::string &spec : inputSpecs) {
    auto [key, value] = llvm::StringRef(spec).split('=');
    if (!llvm::StringRef(spec).contains('='))
      return fail("--input=" + spec +
                  ": expected X=@file.npy, X=\"DIMSxTYPE=VALUES\" or X=random");
    size_t i = 0;
    if (std::string err = lookupTensor(infos, key, "input", i); !err.empty())
      return fail("--input=" + spec + ": " + err);
    const ref::TensorInfo &info = infos[i];
    if (given[i])
      return fail("input " + describeTensor(info) + " is given twice");
    ref::HostTensor tensor;
    bool recognized = false;
    std::string err = inputFromValue(info, value, argOf(i), seed, tensor,
                                     recognized, &budget);
    if (!recognized)
      return fail("--input=" + spec +
                  ": the value must be @file.npy, "
                  "DIMSxTYPE=VALUES or random");
    if (!err.empty())
      return fail(inputFailure(info, err));
    given[i] = std::move(tensor);
  }
  for (size_t i = 0; i < infos.size(); ++i) {
    if (!given[i]) {
      if (!randomSeed.getNumOccurrences()) {
        const ref::TensorInfo &info = infos[i];
        std::string more;
        size_t missing = llvm::count_if(given, [](auto &g) { return !g; });
        if (missing > 1)
          more = " (and " + std::to_string(missing - 1) + " more)";
        return fail("missing input " + describeTensor(info) + " (" +
                    typeText(info.shape, info.dtype) + ")" + more +
                    ": give it with --input=" + uidText(info) +
                    "=@FILE.npy or use --random-inputs=SEED");
      }
      ref::HostTensor tensor;
      if (std::string err =
              randomInput(infos[i], argOf(i), seed, tensor, &budget);
          !err.empty())
        return fail(err);
      given[i] = std::move(tensor);
    }
    inputs.push_back(std::move(*given[i]));
  }
  return std::nullopt;
}

/// --output and --expected-output resolved to output indices before
/// anything runs, so that a typo fails fast.
struct OutputRequests {
  std::vector<std::pair<size_t, std::string>> write, expect;
};

std::optional<int> resolveOutputRequests(const RunIO &io,
                                         OutputRequests &requests) {
  auto resolve = [&](const cl::list<std::string> &specs, const char *flag,
                     std::vector<std::pair<size_t, std::string>> &out)
      -> std::optional<int> {
    for (const std::string &spec : specs) {
      auto [key, value] = llvm::StringRef(spec).split('=');
      if (!value.starts_with("@") || value.size() < 2)
        return fail(std::string("--") + flag + "=" + spec +
                    ": expected Y=@file.npy");
      size_t i = 0;
      if (std::string err = lookupTensor(io.outputs, key, "output", i);
          !err.empty())
        return fail(std::string("--") + flag + "=" + spec + ": " + err);
      out.emplace_back(i, value.drop_front().str());
    }
    return std::nullopt;
  };
  if (auto rc = resolve(outputSpecs, "output", requests.write))
    return rc;
  return resolve(expectedSpecs, "expected-output", requests.expect);
}

/// What every run ends with, a graph's or an artifact's: the timings, the
/// printed results, the written files and the comparisons. `graph` is what
/// --check-against runs on the CPU reference (null for an artifact).
int finishRun(const RunIO &io, const std::vector<ref::HostTensor> &inputs,
              RunResult &result, bool onGpu, const OutputRequests &requests,
              GraphOp graph) {
  const std::vector<ref::TensorInfo> &outputInfos = io.outputs;
  std::vector<ref::HostTensor> &outputs = result.outputs;
  std::vector<double> &seconds = result.seconds;

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
  for (auto &[i, path] : requests.write)
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
    for (const ref::TensorInfo &in : io.inputs)
      inputTypes.push_back(in.dtype);
    double rtol = ref::deviceTolerance(out.dtype, inputTypes, io.tf32);
    if (rtolOpt.getNumOccurrences())
      rtol = rtolOpt;
    double atol = atolOpt.getNumOccurrences() ? atolOpt : rtol;
    Comparison c = compare(dense[i], want, out.dtype, out.numElements(), rtol,
                           atol, normwise);
    std::string who = "result[" + std::to_string(i) + "] (" +
                      describeTensor(outputInfos[i]) + ")";
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
                   << formatValue(c.relativeError, ref::DType::F64) << " over "
                   << formatValue(rtol, ref::DType::F64) << "; worst ";
    else
      llvm::outs() << "[FAILED] " << who << " differs from " << against << " ";
    llvm::outs() << "at " << indexString(out.shape, c.firstBad) << ": got "
                 << formatValue(c.got, out.dtype) << ", expected "
                 << formatValue(c.want, out.dtype) << " (atol "
                 << formatValue(atol, ref::DType::F64) << ", rtol "
                 << formatValue(rtol, ref::DType::F64) << ")\n";
  };

  for (auto &[i, path] : requests.expect) {
    ref::NpyArray array;
    if (std::string err = ref::readNpyFile(path, array); !err.empty())
      return fail(err);
    if (std::string err = ref::checkNpyDType(array, outputs[i].dtype);
        !err.empty())
      return fail("'" + path + "': " + err);
    if (array.shape != outputs[i].shape)
      return fail("'" + path + "': result[" + std::to_string(i) + "] (" +
                  describeTensor(outputInfos[i]) + ") is " +
                  typeText(outputs[i].shape, outputs[i].dtype) +
                  ", the file holds " +
                  typeText(array.shape, outputs[i].dtype));
    report(i, array.data, "'" + path + "'", /*normwise=*/false);
  }

  if (graph && !checkAgainst.empty()) {
    // On the CPU device this compares two runs of the reference (a
    // determinism check); on the GPU it is the numeric check.
    std::vector<ref::HostTensor> reference;
    if (std::string err = ref::execute(graph, inputs, reference); !err.empty())
      return fail("graph @" + graph.getSymName() +
                  " on the CPU reference: " + err);
    for (size_t i = 0; i < outputs.size(); ++i)
      report(i, rowMajorBytes(reference[i]), "the CPU reference",
             /*normwise=*/true);
  }
  llvm::outs().flush();
  return status;
}

/// Runs the exec.program artifact of `module` on the GPU.
int runArtifact(ModuleOp module) {
  exec::ProgramOp program;
  if (std::string err = findProgram(module, graphName, inputFilename, program);
      !err.empty())
    return fail(err);
  std::string name = program.getSymName().str();
  if (device == Device::Cpu)
    return fail("'" + inputFilename + "' holds exec.program @" + name +
                ", a compiled artifact that runs only on the GPU: use "
                "--device=gpu (the CPU reference runs graph.graph files)");
  if (!checkAgainst.empty())
    return fail("--check-against=" + checkAgainst + ": exec.program @" + name +
                " is a compiled artifact with no graph for the CPU reference "
                "to run; compare with --expected-output instead");
  LoadedProgram loaded;
  if (std::string err = loadProgramForRun(program, loaded); !err.empty())
    return fail(err);
  const RunIO &io = loaded.io;
  std::vector<ref::HostTensor> inputs;
  if (auto rc = collectInputs(io, inputs))
    return *rc;
  OutputRequests requests;
  if (auto rc = resolveOutputRequests(io, requests))
    return *rc;

  GpuOptions options;
  if (std::string err = applyGpuFlags(options); !err.empty())
    return fail(err);
  options.codegenCubin = codegenCubin;
  RunResult result;
  if (std::string err = runProgram(loaded, inputs, options,
                                   /*keepHeuristics=*/heuristicModes.empty(),
                                   benchmarkRuns, result);
      !err.empty())
    return fail(err);
  if (verbosePlans)
    printPlans(result.plans);
  return finishRun(io, inputs, result, /*onGpu=*/true, requests, GraphOp());
}

int runMain() {
  // Tolerance options must be sane before anything runs.
  if (rtolOpt.getNumOccurrences() && !(rtolOpt >= 0))
    return fail("--rtol must be non-negative");
  if (atolOpt.getNumOccurrences() && !(atolOpt >= 0))
    return fail("--atol must be non-negative");
  if (std::string err = checkDeviceRequest(device); !err.empty())
    return fail(err);
  // A GPU that does not exist is an error; no GPU at all under --device=auto
  // still falls back to the CPU.
  if (gpuDevice.getNumOccurrences() && device != RunDevice::Cpu)
    if (std::string err = selectGpuDevice(gpuDevice);
        !err.empty() &&
        (device == RunDevice::Gpu || err.rfind("GPU device", 0) == 0))
      return fail("--gpu-device=" + std::to_string(gpuDevice) + ": " + err);
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
      llvm::errs() << loc.getFilename().getValue() << ":" << loc.getLine()
                   << ":" << loc.getColumn() << ": ";
    std::string text = diag.str();
    std::replace(text.begin(), text.end(), '\n', ' ');
    llvm::errs() << text << "\n";
    return success();
  });

  std::string error;
  OwningOpRef<ModuleOp> module = parseGraphFile(inputFilename, &context, error);
  if (!module)
    return error.empty() ? 1 : fail(error); // "": the handler printed why
  if (!module->getOps<exec::ProgramOp>().empty())
    return runArtifact(*module);

  GraphOp graph;
  if (std::string err = findGraph(*module, graphName, inputFilename, graph);
      !err.empty())
    return fail(err);
  if (failed(prepareGraph(*module, graph, error)))
    return error.empty() ? 1 : fail(error);
  RunIO io;
  if (std::string err = describeGraphIO(graph, io); !err.empty())
    return fail(err);
  std::vector<ref::HostTensor> inputs;
  if (auto rc = collectInputs(io, inputs))
    return *rc;
  OutputRequests requests;
  if (auto rc = resolveOutputRequests(io, requests))
    return *rc;

  // The device: the GPU when asked (or, for auto, when one is usable and
  // every op has an engine there), else the CPU reference.
  GpuOptions gpuOptions;
  if (std::string err = applyGpuFlags(gpuOptions); !err.empty())
    return fail(err);
  bool onGpu = false;
  std::string why;
  if (std::string err = selectDevice(*module, graph, device, onGpu, why);
      !err.empty())
    return fail(err);
  if (!onGpu && device == Device::Auto)
    llvm::errs() << "graph-run: note: running on the CPU reference executor ("
                 << why << ")\n";

  RunResult result;
  if (std::string err =
          runGraph(graph, inputs, onGpu, gpuOptions, benchmarkRuns, result);
      !err.empty())
    return fail(err);
  if (onGpu && verbosePlans)
    printPlans(result.plans);
  return finishRun(io, inputs, result, onGpu, requests, graph);
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
