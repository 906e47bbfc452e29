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
//                     `first_token_offset` gets evenly spaced group starts
//                     and `token_index`/`token_ks` a routing that stays in
//                     the tokens and scatters each row once (Support/
//                     LegalInputs.h lists every rule).
//
// A file whose top level holds `exec.program` ops (the artifact
// graph-lower-to-executable writes, text or bytecode) runs on the GPU as it
// is, without the graph pipeline; --device=cpu is an error for it.
//
// Every error is one line on stderr and exit code 1.
//
// A thin tool over the C++ API's Runner (GraphDialect/Runner.h), as
// iree-run-module is over iree/tooling: it parses flags, words their errors
// and prints; loading, preparing, building the inputs, choosing the device,
// running, the CPU reference, .npy files and comparisons are the API's.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Runner.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <optional>

using ::graph::RunDevice;
using ::graph::Runner;
using ::graph::Status;
using ::graph::TensorData;
using ::graph::TensorDesc;
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
    tapOps("tap",
           cl::desc("Also return the results of the op labelled NAME (its "
                    "name attribute) as output tap:NAME, to compare "
                    "intermediates with --check-against (repeatable)"),
           cl::value_desc("NAME"), cl::cat(runCategory));
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
cl::opt<bool> autotuneAgainstFirst(
    "autotune-against-first",
    cl::desc("GPU: autotune as --autotune does, checking each plan against "
             "the first plan that ran instead of the CPU reference (groups "
             "too large for the reference)"),
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

/// A failed API call: its one-line message, or nothing when the diagnostic
/// handler printed why (an empty message).
int fail(const Status &status) {
  return status.message().empty() ? 1 : fail(status.message());
}

std::string formatValue(double v, bool isFloat) {
  char buf[64];
  if (!isFloat && std::isfinite(v))
    std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(v));
  else if (std::isnan(v))
    return "nan";
  else if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  else
    std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

std::string formatValue(double v, GraphDType dtype) {
  return formatValue(v, ::graph::isFloatDType(dtype));
}

/// A tolerance or a difference.
std::string formatDouble(double v) { return formatValue(v, /*isFloat=*/true); }

/// `[1, 2]` for an error message.
std::string indexString(const std::vector<int64_t> &shape, int64_t flat) {
  std::vector<int64_t> index(shape.size());
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
std::string formatTensor(const TensorData &tensor, int64_t maxElements) {
  const std::vector<int64_t> &shape = tensor.dims;
  std::string text = ::graph::tensorTypeText(shape, tensor.dtype) + "=";
  int64_t count = tensor.numElements();
  if (shape.empty())
    return text + formatValue(tensor.element(0), tensor.dtype);
  if (maxElements <= 0)
    return text + "...";
  size_t rank = shape.size();
  if (count == 0)
    return text + std::string(rank, '[') + std::string(rank, ']');
  std::vector<int64_t> index(rank, 0);
  int64_t limit = std::min(count, maxElements);
  for (int64_t e = 0; e < limit; ++e) {
    size_t opened = 0; // trailing dims starting a new row here
    for (size_t k = rank; k-- > 0 && index[k] == 0;)
      ++opened;
    if (e > 0)
      text += " ";
    text += std::string(opened, '[');
    text += formatValue(tensor.element(e), tensor.dtype);
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
// The driver
//===----------------------------------------------------------------------===//

/// Fills `options` from the GPU flags; the error names a bad --heuristics
/// mode. Without --heuristics the options keep the default modes.
std::string applyGpuFlags(::graph::RunOptions &options) {
  options.planIndex = planIndex;
  options.workspaceLimit = workspaceLimit;
  options.verbose = verbosePlans;
  options.autotune = autotunePlans;
  options.autotuneAgainstFirst = autotuneAgainstFirst;
  options.codegenCubin = codegenCubin;
  options.deselectEngines.assign(deselectEngines.begin(),
                                 deselectEngines.end());
  for (const std::string &mode : heuristicModes) {
    GraphHeurMode parsed;
    if (!::graph::parseHeuristicsMode(mode, parsed))
      return "--heuristics=" + mode + ": expected a, b or fallback";
    options.heuristics.push_back(parsed);
  }
  return "";
}

/// --verbose-plans: the plan each group runs and the plans it declined.
void printPlans(const std::vector<::graph::GroupPlanReport> &plans) {
  for (const ::graph::GroupPlanReport &entry : plans) {
    llvm::outs() << "plan: " << entry.group << ": "
                 << (entry.plan.empty() ? "(none)" : entry.plan) << "\n";
    for (const std::string &line : entry.declined)
      llvm::outs() << "  declined " << line << "\n";
  }
}

/// Binds the inputs of `runner` from --input and --random-inputs. Returns
/// the exit code when a request is wrong.
std::optional<int> collectInputs(Runner &runner) {
  const std::vector<TensorDesc> &infos = runner.inputs();
  uint64_t seed = randomSeed.getNumOccurrences() ? randomSeed : 0;
  for (const std::string &spec : inputSpecs) {
    auto [key, value] = llvm::StringRef(spec).split('=');
    if (!llvm::StringRef(spec).contains('='))
      return fail("--input=" + spec +
                  ": expected X=@file.npy, X=\"DIMSxTYPE=VALUES\" or X=random");
    size_t i = 0;
    if (Status s =
            runner.findInput(std::string_view(key.data(), key.size()), i);
        !s)
      return fail("--input=" + spec + ": " + s.message());
    if (runner.hasInput(i))
      return fail("input " + ::graph::tensorLabel(infos[i]) +
                  " is given twice");
    bool recognized = false;
    Status s = runner.setInput(i, std::string_view(value.data(), value.size()),
                               seed, recognized);
    if (!recognized)
      return fail("--input=" + spec +
                  ": the value must be @file.npy, "
                  "DIMSxTYPE=VALUES or random");
    if (!s)
      return fail(s);
  }
  for (size_t i = 0; i < infos.size(); ++i) {
    if (runner.hasInput(i))
      continue;
    if (!randomSeed.getNumOccurrences()) {
      const TensorDesc &info = infos[i];
      std::string more;
      size_t missing = 0;
      for (size_t j = 0; j < infos.size(); ++j)
        missing += !runner.hasInput(j);
      if (missing > 1)
        more = " (and " + std::to_string(missing - 1) + " more)";
      return fail("missing input " + ::graph::tensorLabel(info) + " (" +
                  ::graph::tensorTypeText(info.dims, info.dtype) + ")" + more +
                  ": give it with --input=" + ::graph::tensorUidText(info) +
                  "=@FILE.npy or use --random-inputs=SEED");
    }
    if (Status s = runner.setRandomInput(i, seed); !s)
      return fail(s);
  }
  return std::nullopt;
}

/// --output and --expected-output resolved to output indices before
/// anything runs, so that a typo fails fast.
struct OutputRequests {
  std::vector<std::pair<size_t, std::string>> write, expect;
};

std::optional<int> resolveOutputRequests(const Runner &runner,
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
      if (Status s =
              runner.findOutput(std::string_view(key.data(), key.size()), i);
          !s)
        return fail(std::string("--") + flag + "=" + spec + ": " + s.message());
      out.emplace_back(i, value.drop_front().str());
    }
    return std::nullopt;
  };
  if (auto rc = resolve(outputSpecs, "output", requests.write))
    return rc;
  return resolve(expectedSpecs, "expected-output", requests.expect);
}

/// What every run ends with, a graph's or an artifact's: the timings, the
/// printed results, the written files and the comparisons (with the CPU
/// reference for --check-against, a graph's only).
int finishRun(Runner &runner, ::graph::RunResult &result,
              const OutputRequests &requests) {
  const std::vector<TensorDesc> &outputInfos = runner.outputs();
  const std::vector<TensorData> &outputs = result.outputs;

  if (!result.seconds.empty()) {
    ::graph::TimingSummary t = ::graph::summarizeTimings(result.seconds);
    llvm::outs() << llvm::format("benchmark: %u runs on the %s: "
                                 "min %.6f s, median %.6f s, max %.6f s per "
                                 "execute\n",
                                 static_cast<unsigned>(t.runs),
                                 result.onGpu ? "GPU" : "CPU reference", t.min,
                                 t.median, t.max);
  }

  // Print: `result[I] (uid N "name"): VALUES`.
  for (size_t i = 0; i < outputs.size(); ++i)
    llvm::outs() << "result[" << i << "] ("
                 << ::graph::tensorLabel(outputInfos[i])
                 << "): " << formatTensor(outputs[i], printMaxElements) << "\n";
  llvm::outs().flush();

  // Write.
  for (auto &[i, path] : requests.write)
    if (Status s = ::graph::writeNpy(path, outputs[i]); !s)
      return fail(s);
  if (!outputDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
      return fail("cannot create '" + outputDir + "': " + ec.message());
    for (size_t i = 0; i < outputs.size(); ++i) {
      llvm::SmallString<256> path(outputDir);
      llvm::sys::path::append(path, runner.outputFileName(i));
      if (Status s = ::graph::writeNpy(path.str().str(), outputs[i]); !s)
        return fail(s);
    }
  }

  int status = 0;
  auto report = [&](size_t i, const TensorData &want,
                    const std::string &against, bool normwise) {
    const TensorData &out = outputs[i];
    double rtol = rtolOpt.getNumOccurrences()
                      ? rtolOpt
                      : runner.defaultTolerance(out.dtype);
    double atol = atolOpt.getNumOccurrences() ? atolOpt : rtol;
    ::graph::TensorComparison c =
        ::graph::compareTensors(out, want, rtol, atol, normwise);
    std::string who = "result[" + std::to_string(i) + "] (" +
                      ::graph::tensorLabel(outputInfos[i]) + ")";
    if (c.ok) {
      llvm::outs() << "[SUCCESS] " << who << " matches " << against
                   << " (max abs diff " << formatDouble(c.maxAbsDiff);
      if (normwise)
        llvm::outs() << ", relative error " << formatDouble(c.relativeError);
      llvm::outs() << ")\n";
      return;
    }
    status = 1;
    if (normwise)
      llvm::outs() << "[FAILED] " << who << " differs from " << against
                   << ": relative error " << formatDouble(c.relativeError)
                   << " over " << formatDouble(rtol) << "; worst ";
    else
      llvm::outs() << "[FAILED] " << who << " differs from " << against << " ";
    llvm::outs() << "at " << indexString(out.dims, c.firstBad) << ": got "
                 << formatValue(c.got, out.dtype) << ", expected "
                 << formatValue(c.want, out.dtype) << " (atol "
                 << formatDouble(atol) << ", rtol " << formatDouble(rtol)
                 << ")\n";
  };

  for (auto &[i, path] : requests.expect) {
    TensorData expected;
    if (Status s = ::graph::readNpy(path, outputs[i].dtype, expected); !s)
      return fail(s);
    if (expected.dims != outputs[i].dims)
      return fail("'" + path + "': result[" + std::to_string(i) + "] (" +
                  ::graph::tensorLabel(outputInfos[i]) + ") is " +
                  ::graph::tensorTypeText(outputs[i].dims, outputs[i].dtype) +
                  ", the file holds " +
                  ::graph::tensorTypeText(expected.dims, outputs[i].dtype));
    report(i, expected, "'" + path + "'", /*normwise=*/false);
  }

  if (!runner.isArtifact() && !checkAgainst.empty()) {
    // On the CPU device this compares two runs of the reference (a
    // determinism check); on the GPU it is the numeric check.
    std::vector<TensorData> reference;
    if (Status s = runner.runReference(reference); !s)
      return fail(s);
    for (size_t i = 0; i < outputs.size(); ++i)
      report(i, reference[i], "the CPU reference", /*normwise=*/true);
  }
  llvm::outs().flush();
  return status;
}

int runMain() {
  // Tolerance options must be sane before anything runs.
  if (rtolOpt.getNumOccurrences() && !(rtolOpt >= 0))
    return fail("--rtol must be non-negative");
  if (atolOpt.getNumOccurrences() && !(atolOpt >= 0))
    return fail("--atol must be non-negative");
  if (Status s = Runner::checkDevice(device); !s)
    return fail(s);
  // A GPU that does not exist is an error; no GPU at all under --device=auto
  // still falls back to the CPU.
  if (gpuDevice.getNumOccurrences() && device != RunDevice::Cpu)
    if (Status s = Runner::selectGpu(gpuDevice);
        !s &&
        (device == RunDevice::Gpu || s.code() == GRAPH_ERROR_INVALID_ARGUMENT))
      return fail("--gpu-device=" + std::to_string(gpuDevice) + ": " +
                  s.message());
  if (!checkAgainst.empty() && checkAgainst != "cpu")
    return fail("--check-against=" + checkAgainst +
                ": only 'cpu' (the reference executor) can be compared with");

  // One line per diagnostic: "graph-run: error: FILE:L:C: message".
  Runner runner([](const ::graph::RunDiagnostic &diag) {
    using Severity = ::graph::RunDiagnostic::Severity;
    llvm::errs() << "graph-run: "
                 << (diag.severity == Severity::Error     ? "error"
                     : diag.severity == Severity::Warning ? "warning"
                                                          : "note")
                 << ": ";
    if (!diag.file.empty())
      llvm::errs() << diag.file << ":" << diag.line << ":" << diag.column
                   << ": ";
    std::string text = diag.message;
    std::replace(text.begin(), text.end(), '\n', ' ');
    llvm::errs() << text << "\n";
  });
  if (Status s = runner.load(inputFilename, graphName); !s)
    return fail(s);
  if (runner.isArtifact()) {
    // An exec.program runs on the GPU as it is.
    std::string name = runner.name();
    if (device == RunDevice::Cpu)
      return fail("'" + inputFilename + "' holds exec.program @" + name +
                  ", a compiled artifact that runs only on the GPU: use "
                  "--device=gpu (the CPU reference runs graph.graph files)");
    if (!checkAgainst.empty())
      return fail("--check-against=" + checkAgainst + ": exec.program @" +
                  name +
                  " is a compiled artifact with no graph for the CPU "
                  "reference to run; compare with --expected-output instead");
  }
  if (!tapOps.empty())
    if (Status s = runner.tap({tapOps.begin(), tapOps.end()}); !s)
      return fail(s);
  if (Status s = runner.prepare(); !s)
    return fail(s);
  if (auto rc = collectInputs(runner))
    return *rc;
  OutputRequests requests;
  if (auto rc = resolveOutputRequests(runner, requests))
    return *rc;
  ::graph::RunOptions options;
  if (std::string err = applyGpuFlags(options); !err.empty())
    return fail(err);

  // The device: the GPU when asked (or, for auto, when one is usable and
  // every op has an engine there), else the CPU reference.
  bool onGpu = false;
  std::string why;
  if (Status s = runner.selectDevice(device, onGpu, why); !s)
    return fail(s);
  if (!onGpu && device == RunDevice::Auto)
    llvm::errs() << "graph-run: note: running on the CPU reference executor ("
                 << why << ")\n";

  ::graph::RunResult result;
  if (Status s = runner.run(options, benchmarkRuns, result); !s)
    return fail(s);
  if (result.onGpu && verbosePlans)
    printPlans(result.plans);
  return finishRun(runner, result, requests);
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
