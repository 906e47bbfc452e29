//===- GraphToCudnn.h - Lower fused groups to cuDNN and run them -*- C++ -*-===//
//
// Turns a graph whose groups were formed by graph-fuse and ranked by
// graph-select-engines into the runtime's group descriptions (CudnnProgram):
// one device tensor per graph input, output and tensor that crosses groups,
// one group description per fused group. Pure lowering: nothing here runs
// or links the runtime; the engine layer (GraphDialect/Engine/GpuExecutor.h)
// builds the plans and executes.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_CONVERSION_GRAPHTOCUDNN_H
#define GRAPHDIALECT_CONVERSION_GRAPHTOCUDNN_H

#include "GraphDialect/Reference/Executor.h"
#include "GraphDialect/Runtime/CudnnGraph.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Value.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class OpPassManager;
class Operation;
namespace graph {
class GraphOp;

/// A tensor that lives in device memory for the whole execute.
struct DeviceTensor {
  enum class Role { Input, Output, Intermediate };
  int64_t uid = 0;
  ::graph::ref::DType dtype = ::graph::ref::DType::F32;
  ::graph::ref::Shape dims, strides;
  Role role = Role::Intermediate;
  unsigned index = 0; // position among the graph's inputs or outputs
  /// >= 0: a folded view (reshape, transpose, slice) of the tensor of this
  /// uid, `aliasOffset` elements in, read through `strides`; no memory of
  /// its own.
  int64_t aliasOf = -1;
  int64_t aliasOffset = 0;
};

/// How one group's plan is chosen (an exec.cudnn_group's choice).
struct GroupEngine {
  /// Heuristics modes in order; empty: GpuOptions::heuristics.
  std::vector<::graph::rt::HeurMode> heuristics;
  /// >= 0: build only this engine with `knobs` (a plan chosen ahead).
  int64_t engineId = -1;
  std::vector<std::pair<int64_t, int64_t>> knobs;
};

/// The GPU program of one graph.
struct CudnnProgram {
  std::vector<DeviceTensor> tensors;
  std::vector<::graph::rt::GraphSpec> groups; // in schedule order
  /// Output i is graph input `outputAliasesInput[i]` (-1 when computed);
  /// a computed output lives in the device tensor of uid `outputUids[i]`.
  std::vector<int> outputAliasesInput;
  std::vector<int64_t> outputUids;
  /// Per group (parallel to `groups`), or empty: GpuOptions decides.
  std::vector<GroupEngine> engines;
};

/// The graph ops one lowered group comes from, so its plans can be checked
/// against the CPU reference (ref::executeOps): the ops in schedule order and
/// the value behind each of the group's device tensors.
struct GroupSource {
  std::vector<Operation *> ops;
  std::map<int64_t, Value> values; // uid -> value (every tensor not by value)
  bool tf32 = false;               // the graph computes in tf32
};

/// Builds the program of `graph`, which must have gone through
/// graph-prepare, graph-fuse and graph-select-engines. Returns "" or the
/// error naming the op and the rule. `sources`, when given, gets one entry
/// per group (parallel to program.groups), valid while `graph` lives.
/// `foldViews`: reshape/transpose/slice results whose readers all take
/// strided operands become aliases of their source (DeviceTensor::aliasOf)
/// instead of copy groups, and a transposed intermediate is written in the
/// layout that makes its view packed. Only the executor binds aliases.
std::string lowerToCudnn(GraphOp graph, CudnnProgram &program,
                         std::vector<GroupSource> *sources = nullptr,
                         bool foldViews = false);

/// The pipeline graph-run and the C API use before lowering: graph-prepare,
/// graph-expand-gqa-backward, graph-widen-norm-gradients, graph-fuse,
/// graph-select-engines.
void buildGpuPipeline(OpPassManager &pm);

/// Whether an input of `graph` has a dynamic ('?') dim: the GPU runs it
/// through specializeForGpu with the shapes of each execute's inputs.
bool hasDynamicInputs(GraphOp graph);

/// A copy of `graph`, in a new module put in `holder`, with every dynamic dim
/// bound from `inputShapes` (one per input, in argument order; see
/// graph-specialize-shapes) and run through buildGpuPipeline: ready for
/// GpuExecutable::create. nullptr and `error` naming the input or op and the
/// rule when a shape contradicts the graph or no GPU engine runs the result.
GraphOp specializeForGpu(GraphOp graph,
                         const std::vector<::graph::ref::Shape> &inputShapes,
                         OwningOpRef<ModuleOp> &holder, std::string &error);

} // namespace graph
} // namespace mlir

#endif // GRAPHDIALECT_CONVERSION_GRAPHTOCUDNN_H
