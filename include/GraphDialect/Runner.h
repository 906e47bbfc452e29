//===- Runner.h - Run a graph file as a tool does (C++ API) -----*- C++ -*-===//
//
// The tooling part of the C++ API (iree-run-module's tooling library): what
// `graph-run` does, as calls a tool makes and prints around. A Runner reads a
// .mlir file (text or bytecode) holding `graph.graph` ops, or the
// `exec.program` artifact graph-lower-to-executable writes, picks the graph
// or program to run, prepares it, binds its inputs (.npy files, inline
// values, seeded random data), chooses the device (the GPU when it is usable
// and every op has an engine there, else the CPU reference), runs it with
// benchmark timings and the GPU's per-group plan report, and runs the CPU
// reference to compare with. The free functions below read and write .npy
// files, compare tensors and word tensors as graph-run's messages do.
//
// Every message is one line without a tool prefix ("error: ..."), so a tool
// can prefix its own; the MLIR diagnostics of parsing and of the pipelines go
// to the Runner's DiagnosticHandler as they are emitted.
//
// Like Compiler.h, this header includes no MLIR or LLVM header. Execution
// goes through the same engine layer as CompiledGraph::execute; the
// difference is the granularity (whole files, host tensors, tool-worded
// messages) and that a Runner owns its own MLIR context.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_RUNNER_H
#define GRAPHDIALECT_RUNNER_H

#include "GraphDialect/Compiler.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace graph {

//===----------------------------------------------------------------------===//
// Host tensors and their text
//===----------------------------------------------------------------------===//

/// A dense row-major tensor in host memory: an input a Runner binds, an
/// output it returns, the contents of a .npy file.
struct GRAPH_CXX_API TensorData {
  GraphDType dtype = GRAPH_F32;
  std::vector<int64_t> dims;
  std::vector<uint8_t> bytes; // graphDTypeSize(dtype) bytes per element

  int64_t numElements() const;
  /// Element `index` (row-major) as a double, bit-exact for every GraphDType.
  double element(int64_t index) const;
};

/// Whether `dtype` is a floating-point type (f8/f4 included).
GRAPH_CXX_API bool isFloatDType(GraphDType dtype);
/// `uid 7 "y"`, or `uid 7` when unnamed (`uid ?` before uids are assigned):
/// how every message of a Runner names a tensor.
GRAPH_CXX_API std::string tensorLabel(const TensorDesc &desc);
/// The uid as text ("?" when none; 0 is a uid).
GRAPH_CXX_API std::string tensorUidText(const TensorDesc &desc);
/// `2x3xf32` (`?x3xf32` for a dynamic dim, -1 in `dims`; `f32` for rank 0).
GRAPH_CXX_API std::string tensorTypeText(const std::vector<int64_t> &dims,
                                         GraphDType dtype);

//===----------------------------------------------------------------------===//
// .npy files and comparisons
//===----------------------------------------------------------------------===//

/// Reads a .npy file holding `dtype` data (the bf16/fp8/fp4 raw-bits
/// convention of GraphDialect/Support/Npy.h). The error is the reader's
/// ("cannot open 'x.npy': ..."), or `'x.npy': ` and the dtype mismatch.
GRAPH_CXX_API Status readNpy(const std::string &path, GraphDType dtype,
                             TensorData &out);
/// Writes `tensor` as a .npy file.
GRAPH_CXX_API Status writeNpy(const std::string &path,
                              const TensorData &tensor);

/// The outcome of compareTensors.
struct TensorComparison {
  bool ok = true;
  int64_t firstBad = -1; // the first (or, normwise, worst) index off
  double got = 0, want = 0, maxAbsDiff = 0;
  double relativeError = 0; // ||got - want|| / ||want|| (normwise)
};

/// Compares `got` with `want` (same dtype and element count). Elementwise:
/// |got - want| <= atol + rtol |want| at every index. Normwise (a device
/// against the reference): ||got - want||_2 <= rtol ||want||_2. NaN and inf
/// must match either way. The comparison the GPU autotuner checks plans with.
GRAPH_CXX_API TensorComparison compareTensors(const TensorData &got,
                                              const TensorData &want,
                                              double rtol, double atol,
                                              bool normwise);

//===----------------------------------------------------------------------===//
// Runner
//===----------------------------------------------------------------------===//

/// Where a Runner runs: the CPU reference executor, the GPU, or the GPU when
/// it is usable and every op has an engine there, else the CPU.
enum class RunDevice { Cpu, Gpu, Auto };

/// One MLIR diagnostic, as it is emitted. `file` is empty (and `line`,
/// `column` 0) when its location is not a file position.
struct RunDiagnostic {
  enum class Severity { Error, Warning, Note, Remark };
  Severity severity = Severity::Error;
  std::string file;
  unsigned line = 0, column = 0;
  std::string message; // may hold newlines
};
using RunDiagnosticHandler = std::function<void(const RunDiagnostic &)>;

/// GPU plan options of a run.
struct RunOptions {
  /// >= 0: run only that entry of each group's plan list (strict).
  int planIndex = -1;
  /// Skip plans whose name contains one of these.
  std::vector<std::string> deselectEngines;
  /// Skip plans needing more workspace bytes than this (-1: no limit).
  int64_t workspaceLimit = -1;
  /// cuDNN heuristics modes, in order. Empty: {A, FALLBACK} for a graph,
  /// the modes an artifact recorded for an artifact.
  std::vector<GraphHeurMode> heuristics;
  /// Time every plan that builds (checked against the CPU reference first)
  /// and keep the fastest.
  bool autotune = false;
  /// Autotuning checks plans against the first plan that ran instead of
  /// the CPU reference (GpuOptions::autotuneAgainstFirst).
  bool autotuneAgainstFirst = false;
  /// Report every plan each group declined, not only the one it runs.
  bool verbose = false;
  /// Load generated kernels as cubin (ptxas of CUDA_ROOT), not PTX. Read by
  /// exec.program runs only: a graph's run builds PTX whatever it says (as
  /// graph-run's --codegen-cubin always has).
  bool codegenCubin = false;
};

/// Parses a heuristics mode word (a, b, fallback; any case).
GRAPH_CXX_API bool parseHeuristicsMode(std::string_view word,
                                       GraphHeurMode &mode);

/// What a group of a GPU run ran, and the plans it declined (one line each).
struct GroupPlanReport {
  std::string group;
  std::string plan; // "" when none
  std::vector<std::string> declined;
};

/// The fastest, median and slowest of benchmark timings (seconds; all 0
/// when there are none).
struct TimingSummary {
  size_t runs = 0;
  double min = 0, median = 0, max = 0;
};
GRAPH_CXX_API TimingSummary summarizeTimings(std::vector<double> seconds);

/// What Runner::run produced.
struct RunResult {
  bool onGpu = false;
  std::vector<TensorData> outputs;    // in output order, dense row-major
  std::vector<double> seconds;        // per benchmark run, in run order
  std::vector<GroupPlanReport> plans; // the GPU's per-group report
};

/// Runs one graph or program of a file. The calls go in order: load, (for a
/// graph) prepare, inputs, selectDevice, run, then runReference to compare
/// with. Not thread-safe; one Runner per thread.
class GRAPH_CXX_API Runner {
public:
  /// `handler` receives every MLIR diagnostic; without one they are printed
  /// on stderr by MLIR's default handler.
  explicit Runner(RunDiagnosticHandler handler = {});
  ~Runner();
  Runner(Runner &&) noexcept;
  Runner &operator=(Runner &&) noexcept;
  Runner(const Runner &) = delete;
  Runner &operator=(const Runner &) = delete;

  /// OK when `device` can be asked for in this build, else why not (a GPU
  /// request without the GPU runtime: GRAPH_ERROR_NO_DEVICE).
  static Status checkDevice(RunDevice device);
  /// Runs this thread's GPU work on CUDA device `ordinal`. The error is the
  /// runtime's: "GPU device 3 does not exist: ..." when the ordinal is
  /// wrong, anything else when there is no usable GPU or GPU runtime.
  static Status selectGpu(int ordinal);

  /// Reads and parses `fileName` and picks the graph (or, for an artifact,
  /// the exec.program) named `name`, or the only one. A parse error goes to
  /// the diagnostic handler and answers GRAPH_ERROR_INVALID_GRAPH with an
  /// empty message.
  Status load(const std::string &fileName, const std::string &name = "");
  /// Also returns the results of the ops labelled `opNames` (their `name`
  /// attribute) as outputs named "tap:NAME" ("tap:NAME#i" for an op's
  /// result i > 0), after the graph's own: a graph's intermediates to
  /// compare with the CPU reference one by one. Before prepare(); a graph
  /// only. A name no op or several ops carry is an error listing them.
  Status tap(const std::vector<std::string> &opNames);
  /// True when the file holds exec.program ops (a compiled artifact, which
  /// runs on the GPU only and has no graph for the CPU reference).
  bool isArtifact() const;
  /// The name of the graph or program picked.
  std::string name() const;

  /// A graph: runs graph-prepare when a uid or stride is missing (its
  /// diagnostics go to the handler; the status message is then empty) and
  /// describes its tensors. An artifact: loads it for the GPU (an error
  /// without a usable GPU).
  Status prepare();
  /// The inputs and outputs, once prepared.
  const std::vector<TensorDesc> &inputs() const;
  const std::vector<TensorDesc> &outputs() const;
  /// Whether the graph computes in tf32.
  bool computesInTf32() const;

  /// The index of the input or output `key` names: all digits is a uid,
  /// anything else a name. An unknown key lists the tensors; a name several
  /// share asks for the uid.
  Status findInput(std::string_view key, size_t &index) const;
  Status findOutput(std::string_view key, size_t &index) const;

  /// The file name output `index` is written to in an output directory:
  /// `NAME.npy`, or `uid_N.npy` when the output is unnamed, its name is not
  /// a plain file name ([A-Za-z0-9_.-], not `.` or `..`) or another output
  /// has the same name.
  std::string outputFileName(size_t index) const;

  /// Binds input `index` from `value`: `@FILE.npy`, `random` (seeded random
  /// data), `DIMSxTYPE=V V..` (inline values) or `DIMSxTYPE=random` (random
  /// data of those dims: how a dynamic input gets random data). Random data
  /// is deterministic: each input draws from a generator seeded by (`seed`,
  /// uid); integers whose use fixes a legal value (sdpa sequence lengths,
  /// MoE token offsets) get it. `recognized` is false, and nothing is bound,
  /// when `value` has none of these forms. The error names the input. The
  /// inputs bound together must fit in host memory.
  Status setInput(size_t index, std::string_view value, uint64_t seed,
                  bool &recognized);
  /// Binds seeded random data to input `index` (static dims only).
  Status setRandomInput(size_t index, uint64_t seed);
  /// Whether input `index` is bound.
  bool hasInput(size_t index) const;

  /// Chooses where a graph runs (an artifact: the GPU). For the GPU (asked,
  /// or Auto with a usable GPU) the GPU pipeline runs on the graph. `onGpu`
  /// says the choice; under Auto, `why` says why the GPU is not used. The
  /// error: a GPU request that cannot be met.
  Status selectDevice(RunDevice device, bool &onGpu, std::string &why);
  /// Runs with the bound inputs (every input bound) on the chosen device,
  /// then times `benchmarkRuns` more runs. The error names the graph or
  /// program and the device.
  Status run(const RunOptions &options, unsigned benchmarkRuns,
             RunResult &result);
  /// Runs the graph on the CPU reference with the same inputs (not for an
  /// artifact): what a GPU result is compared with.
  Status runReference(std::vector<TensorData> &outputs);
  /// The default tolerance of a device result of `dtype` against the
  /// reference: no tighter than the narrowest float input of the graph.
  double defaultTolerance(GraphDType dtype) const;

  struct Impl;

private:
  std::unique_ptr<Impl> impl;
};

} // namespace graph

#endif // GRAPHDIALECT_RUNNER_H
