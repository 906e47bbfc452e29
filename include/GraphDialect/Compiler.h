//===- Compiler.h - C++ embedding API of the graph compiler -----*- C++ -*-===//
//
// A lean C++ surface for embedding the compiler: parse a module of graphs
// (MLIR text or bytecode), prepare it (uids, layouts, canonicalization),
// query the inputs and outputs of the selected graph, execute it on host
// buffers, and print or serialize it. The header includes no MLIR or LLVM
// header; errors come back as a `graph::Status` holding a code and the full
// diagnostic text. The C API (GraphDialect-c/Graph.h) is a thin layer over
// these classes and shares its enums.
//
// Threading: every call that touches a graph takes the lock of the Compiler
// (the MLIR context) it was parsed in, so calls on graphs of one Compiler are
// serialized. Use one Compiler per thread for parallel work.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_COMPILER_H
#define GRAPHDIALECT_COMPILER_H

#include "GraphDialect-c/Graph.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#define GRAPH_CXX_API __attribute__((visibility("default")))

namespace graph {

/// The outcome of a call: GRAPH_OK, or an error code and its full text (every
/// MLIR diagnostic, with file:line:col, one per line).
class GRAPH_CXX_API Status {
public:
  Status() = default;
  Status(GraphStatus code, std::string message)
      : statusCode(code), text(std::move(message)) {}
  static Status success() { return Status(); }

  bool ok() const { return statusCode == GRAPH_OK; }
  explicit operator bool() const { return ok(); }
  GraphStatus code() const { return statusCode; }
  const std::string &message() const { return text; }

private:
  GraphStatus statusCode = GRAPH_OK;
  std::string text;
};

/// One input or output of a graph. `dims` holds -1 for a dynamic dim;
/// `strides` (elements) is empty until the layout is decided.
struct TensorDesc {
  std::optional<int64_t> uid; // none until uids are assigned (prepare)
  std::string name; // "" when unnamed; names may repeat
  GraphDType dtype = GRAPH_F32;
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;
};

/// A caller's buffer: host memory for GRAPH_DEVICE_CPU. `strides` are in
/// elements; empty means dense row-major.
struct Buffer {
  int64_t uid = 0;
  void *data = nullptr;
  GraphDType dtype = GRAPH_F32;
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;
};

/// One entry of a GPU plan list.
struct PlanDesc {
  std::string name; // "eng<id>_k<type>=<value>..." or "codegen_v2_t256_i2"...
  int64_t engineId = -1; // cuDNN's (>= 0) or GRAPH_CODEGEN_V*_ENGINE_ID
  std::vector<std::pair<int64_t, int64_t>> knobs; // (knob type, value)
  bool built = false;
  int64_t workspace = 0; // bytes execute needs; known once built
  std::string error;     // why building it failed, when it did
  std::vector<std::string> behaviorNotes, numericNotes;
};

class CompiledGraph;

/// Owns an MLIR context with the graph dialect loaded. Graphs parsed by a
/// Compiler share its context and keep it alive: a CompiledGraph may outlive
/// the Compiler object that made it.
class GRAPH_CXX_API Compiler {
public:
  Compiler();
  ~Compiler();
  Compiler(Compiler &&) noexcept;
  Compiler &operator=(Compiler &&) noexcept;
  Compiler(const Compiler &) = delete;
  Compiler &operator=(const Compiler &) = delete;

  /// Parses MLIR text or bytecode (told apart by the bytecode magic) holding
  /// one or more `graph.graph` ops, and verifies it. `bufferName` is the file
  /// name diagnostics show. On success `out` holds the module with its first
  /// graph selected; on failure `out` is left as it was and the status is
  /// GRAPH_ERROR_INVALID_GRAPH with every diagnostic.
  Status parse(std::string_view data, CompiledGraph &out,
               std::string_view bufferName = "<graph>");

  struct Impl;

private:
  friend class GraphBuilder; // its shape-rule probes parse in the context
  std::shared_ptr<Impl> impl;
};

/// A parsed module of graphs, one of them selected. Empty (`!graph`) until a
/// Compiler::parse fills it.
class GRAPH_CXX_API CompiledGraph {
public:
  CompiledGraph();
  ~CompiledGraph();
  CompiledGraph(CompiledGraph &&) noexcept;
  CompiledGraph &operator=(CompiledGraph &&) noexcept;
  CompiledGraph(const CompiledGraph &) = delete;
  CompiledGraph &operator=(const CompiledGraph &) = delete;

  /// True once a parse filled it.
  explicit operator bool() const { return impl != nullptr; }

  /// Names of the graphs of the module, in order.
  std::vector<std::string> graphNames() const;
  /// Selects the graph named `name`; an unknown name lists the module's
  /// graphs in the error.
  Status select(std::string_view name);
  /// Name of the selected graph.
  std::string selected() const;

  /// Runs the graph-prepare pipeline (verify, assign uids, infer layout,
  /// canonicalize) over every graph of the module. On failure the module is
  /// left as it was before the call.
  Status prepare();

  /// Inputs and outputs of the selected graph. Fails (NOT_SUPPORTED) when a
  /// tensor's element type has no GraphDType.
  Status inputs(std::vector<TensorDesc> &out) const;
  Status outputs(std::vector<TensorDesc> &out) const;

  /// Executes the selected graph. Every input and output needs exactly one
  /// buffer, matched by uid (run prepare first when uids are missing). Input
  /// buffers are read with their strides; outputs are written with theirs.
  /// GRAPH_DEVICE_GPU answers GRAPH_ERROR_NO_DEVICE in this build.
  Status execute(GraphDevice device, const std::vector<Buffer> &buffers);

  /// GPU plan list of the selected graph (see graphPlanCreate in
  /// GraphDialect-c/Graph.h): the ranked plans of its first fused group,
  /// cuDNN's then the codegen engine's then the explicit ones. Every call answers GRAPH_ERROR_NO_DEVICE without a usable GPU.
  Status planCreate(GraphDevice device, const std::vector<int> &heurModes);
  /// Plans in the list and fused groups of the lowered graph.
  Status planCount(int32_t &plans, int32_t &groups) const;
  /// The index (schedule order) of the fused group the plan list is of.
  Status planGroup(int32_t &group) const;
  Status planInfo(int32_t index, PlanDesc &out) const;
  /// Finalizes plan `index`; its decline is the message
  /// (GRAPH_ERROR_NOT_SUPPORTED).
  Status planBuild(int32_t index);
  /// Finalizes plans `indices` (cuDNN's several at once); the status names
  /// the first that declined.
  Status planBuildMany(const std::vector<int32_t> &indices);
  /// Pins plan `index` (strictly) for the next GPU executes; -1 unpins.
  Status planSelect(int32_t index);
  /// Appends the plan of an explicit engine id and knobs; `index` receives
  /// its position.
  Status planAdd(int64_t engineId,
                 const std::vector<std::pair<int64_t, int64_t>> &knobs,
                 int32_t &index);
  /// Plan options of the next GPU executes: plans whose name contains one of
  /// `deselect` are skipped, so are plans needing more than `workspaceLimit`
  /// bytes (-1: no limit); `autotune` times every buildable plan.
  Status setPlanOptions(const std::vector<std::string> &deselect,
                        int64_t workspaceLimit, bool autotune);

  /// The module as MLIR text (generic: the generic op form).
  /// True when the module holds exec.program ops (a compiled artifact) rather
  /// than graph.graph ops: it runs on the GPU only and prepare is a no-op.
  bool isArtifact() const;
  /// Runs the GPU pipeline and graph-lower-to-executable on a clone of the
  /// module and puts the artifact (its exec.programs) into `out`, the
  /// selected graph's program selected. Needs no GPU.
  Status lowerToExecutable(CompiledGraph &out) const;

  Status print(std::string &out, bool generic = false) const;
  /// The module as MLIR bytecode (Compiler::parse reads it back).
  Status serialize(std::string &out) const;

  struct Impl;

private:
  friend class Compiler;
  std::unique_ptr<Impl> impl;
};

/// Builds one graph without MLIR text (see graphBuilderCreate in
/// GraphDialect-c/Graph.h for the rules): tensors are ids > 0, ops name
/// their tensors by ODS port, and finish() emits the graph in the generic op
/// form and parses it through Compiler::parse, so verifier diagnostics come
/// back in its Status. Every misuse is GRAPH_ERROR_INVALID_ARGUMENT.
class GRAPH_CXX_API GraphBuilder {
public:
  GraphBuilder(std::string_view graphName, GraphDType io = GRAPH_F32,
               GraphDType intermediate = GRAPH_F32,
               GraphDType compute = GRAPH_F32);
  ~GraphBuilder();
  GraphBuilder(GraphBuilder &&) noexcept;
  GraphBuilder &operator=(GraphBuilder &&) noexcept;
  GraphBuilder(const GraphBuilder &) = delete;
  GraphBuilder &operator=(const GraphBuilder &) = delete;

  /// A tensor (empty strides: not decided); `id` receives its handle.
  Status tensor(GraphDType dtype, const std::vector<int64_t> &dims,
                const std::vector<int64_t> &strides, std::string_view name,
                int64_t &id);
  /// A pass-by-value scalar (a graph.scalar of dims {1}).
  Status scalar(GraphDType dtype, double value, std::string_view name,
                int64_t &id);
  /// An integer (or i1) pass-by-value scalar given exactly.
  Status scalarInt(GraphDType dtype, int64_t value, std::string_view name,
                   int64_t &id);

  Status setUid(int64_t tensor, int64_t uid);
  Status setName(int64_t tensor, std::string_view name);
  Status setDims(int64_t tensor, const std::vector<int64_t> &dims);
  Status setStrides(int64_t tensor, const std::vector<int64_t> &strides);
  Status setDType(int64_t tensor, GraphDType dtype);
  Status setOutput(int64_t tensor, bool output);
  Status setVirtual(int64_t tensor, bool isVirtual);
  /// Marks a graph input graph.by_value: a one-element input cuDNN takes by
  /// value, read from its buffer at each execute (the frontend's
  /// is_pass_by_value input). finish() refuses it on a tensor an op
  /// produces.
  Status setByValue(int64_t tensor, bool byValue);

  /// One tensor of an op: `port` is the ODS operand or result name
  /// ("<name>_<i>" for the i-th tensor of a variadic one).
  struct Port {
    std::string port;
    int64_t tensor = 0;
  };
  /// Appends an op of the graph dialect (`kind`: its mnemonic); `mode` is
  /// the pointwise / reduction / MoE mode or the norm phase keyword ("" when
  /// none); `attributes` an MLIR attribute dictionary ("" when none).
  Status op(std::string_view kind, std::string_view mode,
            std::string_view name, const std::vector<Port> &inputs,
            const std::vector<Port> &outputs, std::string_view attributes);
  /// As above, and fills in the dims of the result tensors that have none
  /// (rank 0) from the op's shape rule, run in `compiler`'s context when
  /// every operand has dims. A rule the operands break is
  /// GRAPH_ERROR_INVALID_GRAPH with its diagnostic, and the op is not added.
  Status op(Compiler &compiler, std::string_view kind, std::string_view mode,
            std::string_view name, const std::vector<Port> &inputs,
            const std::vector<Port> &outputs, std::string_view attributes);
  /// The dims and strides `tensor` has now (empty: none yet).
  Status shape(int64_t tensor, std::vector<int64_t> &dims,
               std::vector<int64_t> &strides) const;

  /// The graph as MLIR text (generic op form).
  Status text(std::string &out) const;
  /// Emits the graph and parses it with `compiler` into `out`.
  Status finish(Compiler &compiler, CompiledGraph &out) const;

  struct Impl;

private:
  Status addOp(Compiler *compiler, std::string_view kind, std::string_view mode,
               std::string_view name, const std::vector<Port> &inputs,
               const std::vector<Port> &outputs, std::string_view attributes);
  std::unique_ptr<Impl> impl;
};

/// Queues GPU work on the caller's CUDA stream (nullptr: the runtime's own
/// stream); see graphSetStream.
GRAPH_CXX_API Status setGpuStream(void *stream);

/// Lends this thread's GPU executes the caller's device memory as workspace
/// (nullptr: the executables' own again); see graphSetWorkspace.
GRAPH_CXX_API Status setGpuWorkspace(void *memory, int64_t bytes);

/// Selects the GPU (CUDA ordinal) this thread's GPU calls run on; -1 goes
/// back to the device of the thread's current CUDA context (device 0 when
/// none); see graphSetDevice.
GRAPH_CXX_API Status setGpuDevice(int ordinal);
/// The GPU this thread's GPU calls run on now; see graphGetDevice.
GRAPH_CXX_API Status gpuDevice(int &ordinal);
/// The number of GPUs the driver sees; see graphGetDeviceCount.
GRAPH_CXX_API Status gpuDeviceCount(int &count);

} // namespace graph

#endif // GRAPHDIALECT_COMPILER_H
