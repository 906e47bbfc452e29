//===- Program.h - A lowered graph as the GPU runs it ---------*- C++ -*-===//
//
// The GPU program of one graph: its device tensors, its groups in schedule
// order and, per group, how its plan is chosen (cuDNN heuristics modes, an
// engine chosen ahead, or generated kernels compiled ahead). Two producers
// fill it: the lowering of a graph (Conversion/GraphToCudnn.h) and the
// loader of an exec.program artifact (Executable/ExecToRuntime.h); the
// engine layer (Engine/GpuExecutor.h) runs it. Plain structs, no MLIR and
// no CUDA, so both producers share the vocabulary without depending on
// each other.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_RUNTIME_PROGRAM_H
#define GRAPHDIALECT_RUNTIME_PROGRAM_H

#include "GraphDialect/Runtime/CodegenKernel.h"
#include "GraphDialect/Runtime/CudnnGraph.h"

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace graph::rt {

/// A tensor that lives in device memory for the whole execute.
struct DeviceTensor {
  enum class Role { Input, Output, Intermediate };
  int64_t uid = 0;
  DType dtype = DType::F32;
  Shape dims, strides;
  Role role = Role::Intermediate;
  unsigned index = 0; // position among the graph's inputs or outputs
  /// >= 0: a folded view (reshape, transpose, slice) of the tensor of this
  /// uid, `aliasOffset` elements in, read through `strides`; no memory of
  /// its own.
  int64_t aliasOf = -1;
  int64_t aliasOffset = 0;
};

/// How one group's plan is chosen: an exec.cudnn_group's heuristics or
/// engine, or an exec.kernel_group's kernels.
struct GroupEngine {
  /// Heuristics modes in order; empty: GpuOptions::heuristics.
  std::vector<HeurMode> heuristics;
  /// >= 0: build only this engine with `knobs` (a plan chosen ahead).
  int64_t engineId = -1;
  std::vector<std::pair<int64_t, int64_t>> knobs;
  /// Set: the group runs these generated kernels, compiled ahead of time
  /// (PTX or cubin); no plan list is walked and the group's GraphSpec
  /// carries only its name.
  std::optional<CodegenSpec> kernels;
};

/// The GPU program of one graph.
struct Program {
  std::vector<DeviceTensor> tensors;
  std::vector<GraphSpec> groups; // in schedule order
  /// Output i is graph input `outputAliasesInput[i]` (-1 when computed);
  /// a computed output lives in the device tensor of uid `outputUids[i]`.
  std::vector<int> outputAliasesInput;
  std::vector<int64_t> outputUids;
  /// Per group (parallel to `groups`), or empty: GpuOptions decides.
  std::vector<GroupEngine> engines;
};

} // namespace graph::rt

#endif // GRAPHDIALECT_RUNTIME_PROGRAM_H
