//===- RunGraph.h - Run a graph or an artifact, as graph-run does -*- C++
//-*-===//
//
// The engine layer's running API for tools (iree-run-module's tooling
// library): find the graph or exec.program of a module, prepare it, build
// its inputs (.npy files, inline values, seeded random data), choose the
// device (the GPU when it is usable and every op has an engine there, else
// the CPU reference), run it with benchmark timings and the plan report.
// The C++ API's graph::Runner (GraphDialect/Runner.h) wraps it in public
// types, and graph-run sits on that Runner. Every error is one line,
// without the tool's "error:" prefix.
//
// The GPU functions answer "this build has no GPU runtime" when the engine
// layer was built without the runtime (no cuda.h / cudnn_backend.h).
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_ENGINE_RUNGRAPH_H
#define GRAPHDIALECT_ENGINE_RUNGRAPH_H

#include "GraphDialect/Engine/GpuExecutor.h"
#include "GraphDialect/Reference/Executor.h"
#include "GraphDialect/Support/Memory.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
namespace exec {
class ProgramOp;
} // namespace exec
namespace graph {

/// Where a graph runs.
enum class RunDevice { Cpu, Gpu, Auto };

/// Whether the GPU runtime is linked into this build.
bool gpuRuntimeLinked();

/// "" when `device` can be asked for in this build, else the error (a GPU
/// request without the GPU runtime).
std::string checkDeviceRequest(RunDevice device);

/// Runs this thread's GPU work on CUDA device `ordinal` (graph-run
/// --gpu-device); "" or why not ("GPU device 3 does not exist: this machine
/// has 2 CUDA devices (ordinals 0-1)", or no GPU runtime).
std::string selectGpuDevice(int ordinal);

//===----------------------------------------------------------------------===//
// Modules, graphs and their tensors
//===----------------------------------------------------------------------===//

/// Reads and parses `fileName` (text or bytecode). Null with `error` set on
/// failure; `error` stays "" when the context's diagnostic handler was told
/// why (a parse error).
OwningOpRef<ModuleOp> parseGraphFile(StringRef fileName, MLIRContext *context,
                                     std::string &error);

/// The graph of `module` to run: the one named `name`, or the only one.
/// `fileName` is how errors name the file.
std::string findGraph(ModuleOp module, StringRef name, StringRef fileName,
                      GraphOp &graph);

/// Whether `graph` still needs graph-prepare (a missing uid or stride).
bool graphNeedsPrepare(GraphOp graph);

/// Runs graph-prepare on `module` when `graph` needs it and finds `graph`
/// again. failure(): the diagnostics were emitted, or `error` says why.
LogicalResult prepareGraph(ModuleOp module, GraphOp &graph, std::string &error);

/// The inputs and outputs of a graph or of an exec.program.
struct RunIO {
  std::vector<::graph::ref::TensorInfo> inputs, outputs;
  /// The block argument of each input (null for an artifact): the random
  /// data of an integer input reads a legal value from its use.
  std::vector<BlockArgument> args;
  bool tf32 = false; // the graph computes in tf32
};

/// The tensors of `graph`; an error names an input whose element type has
/// no host representation.
std::string describeGraphIO(GraphOp graph, RunIO &io);

/// `uid 7 "y"`, or `uid 7` when unnamed ("?" before assign-uids).
std::string describeTensor(const ::graph::ref::TensorInfo &info);
/// The tensor's uid as text ("?" before assign-uids; 0 is a uid).
std::string uidText(const ::graph::ref::TensorInfo &info);
/// `2x3x`: the dims ('?' when dynamic), each followed by 'x'.
std::string shapeText(const ::graph::ref::Shape &shape);
/// `2x3xf32`.
std::string typeText(const ::graph::ref::Shape &shape,
                     ::graph::ref::DType dtype);

/// Resolves `key` (all digits: a uid, else a name) among `infos` into
/// `index`; `kind` ("input", "output") words the error: an unknown key lists
/// the tensors, a name shared by several asks for the uid.
std::string lookupTensor(const std::vector<::graph::ref::TensorInfo> &infos,
                         StringRef key, StringRef kind, size_t &index);

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

/// The tensor an input value asks for: `@FILE.npy`, `random` (seeded random
/// data), `DIMSxTYPE=V V..` (inline values) or `DIMSxTYPE=random`. `arg`
/// is the input's block argument (or null). `recognized` is false, and
/// nothing else is set, when `value` has none of these forms. `budget`:
/// the running total of the inputs made so far, which the tensor joins (an
/// input that fits alone but not with the others is the error).
std::string inputFromValue(const ::graph::ref::TensorInfo &info,
                           StringRef value, BlockArgument arg, uint64_t seed,
                           ::graph::ref::HostTensor &tensor, bool &recognized,
                           ::graph::HostMemoryBudget *budget = nullptr);

/// Seeded random data for input `info` (static dims only): each input draws
/// from its own generator seeded by (`seed`, uid). Floats uniform in
/// [-1, 1), f8E8M0FNU powers of two 2^-2..2^2, i1 0 or 1, other integers in
/// [0, 4) except where the input's use (`arg`) fixes a legal value: sdpa
/// sequence lengths get the full length, MoE token offsets evenly spaced
/// group starts. `budget` as for inputFromValue; the check comes before
/// the allocation.
std::string randomInput(const ::graph::ref::TensorInfo &info, BlockArgument arg,
                        uint64_t seed, ::graph::ref::HostTensor &tensor,
                        ::graph::HostMemoryBudget *budget = nullptr);

/// The message of a failed input, prefixed with the input unless it names
/// it already.
std::string inputFailure(const ::graph::ref::TensorInfo &info,
                         const std::string &message);

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

/// Parses a cuDNN heuristics mode word (a, b, fallback; any case).
bool parseHeuristicsMode(StringRef word, ::graph::rt::HeurMode &mode);

/// Chooses where graph `graph` (prepared, in `module`) runs. For the GPU
/// (asked, or `Auto` with a usable GPU) the GPU pipeline's passes run on
/// `module` and `graph` is found again. Sets `onGpu`; when `device` is
/// `Auto` and the GPU is not used, `why` says why (graph-run's note).
/// Returns the error of a GPU request that cannot be met.
std::string selectDevice(ModuleOp module, GraphOp &graph, RunDevice device,
                         bool &onGpu, std::string &why);

/// What one run produced.
struct RunResult {
  std::vector<::graph::ref::HostTensor> outputs;
  /// Seconds per benchmark run, in run order.
  std::vector<double> seconds;
  /// The GPU's per-group plan report.
  std::vector<GpuGroupReport> plans;
};

/// Runs `graph` with `inputs` (argument order) on the GPU (`onGpu`, with
/// `options`) or the CPU reference, then times `benchmarkRuns` more runs.
/// The error names the graph and the device.
std::string runGraph(GraphOp graph,
                     const std::vector<::graph::ref::HostTensor> &inputs,
                     bool onGpu, const GpuOptions &options,
                     unsigned benchmarkRuns, RunResult &result);

/// An exec.program ready to run: its tensors and lowered groups.
struct LoadedProgram {
  std::string name;
  RunIO io;
  CudnnProgram program;
};

/// The program of `module` to run: the one named `name`, or the only one.
std::string findProgram(ModuleOp module, StringRef name, StringRef fileName,
                        exec::ProgramOp &program);

/// Loads `program` for the GPU: errors when this build has no GPU runtime,
/// when the artifact does not load, or when no GPU is usable.
std::string loadProgramForRun(exec::ProgramOp program, LoadedProgram &loaded);

/// Runs a loaded program on the GPU (like runGraph). `keepHeuristics`:
/// false drops the artifact's recorded heuristics modes for `options`'.
std::string runProgram(LoadedProgram &loaded,
                       const std::vector<::graph::ref::HostTensor> &inputs,
                       const GpuOptions &options, bool keepHeuristics,
                       unsigned benchmarkRuns, RunResult &result);

} // namespace graph
} // namespace mlir

#endif // GRAPHDIALECT_ENGINE_RUNGRAPH_H
