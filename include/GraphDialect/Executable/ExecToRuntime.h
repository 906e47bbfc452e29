//===- ExecToRuntime.h - Load an exec.program into the runtime -*- C++ -*-===//
//
// Rebuilds the runtime's Program (one rt::GraphSpec per cuDNN group, the
// generated kernels of each kernel group as an rt::CodegenSpec, the device
// tensors and the output aliases) from an exec.program, without the graph
// dialect or any conversion, so a compiled artifact runs on the GPU as it
// is. Depends on the exec dialect, the runtime's plain structs
// (Runtime/Program.h) and lib/Support only.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_EXECUTABLE_EXECTORUNTIME_H
#define GRAPHDIALECT_EXECUTABLE_EXECTORUNTIME_H

#include "GraphDialect/Runtime/Program.h"
#include "GraphDialect/Support/HostTensor.h"

#include <string>
#include <vector>

namespace mlir::exec {
class ProgramOp;

/// One graph input or output of a program, as graph-run and the C API see
/// it: uid, name, dtype, dims and strides.
struct ProgramIO {
  std::vector<::graph::TensorInfo> inputs, outputs;
};

/// Fills `program` from `op` (groups in schedule order, each with its plan
/// choice in program.engines: heuristics or an engine for an
/// exec.cudnn_group, the kernels for an exec.kernel_group) and `io` with the
/// inputs and outputs. Returns "" or why the program cannot run (a dtype
/// with no runtime equivalent).
std::string loadProgram(ProgramOp op, ::graph::rt::Program &program,
                        ProgramIO *io = nullptr);

} // namespace mlir::exec

#endif // GRAPHDIALECT_EXECUTABLE_EXECTORUNTIME_H
