//===- ExecToRuntime.h - Load an exec.program into the runtime ---*- C++ -*-===//
//
// Rebuilds the CudnnProgram (one rt::GraphSpec per cuDNN group, the device
// tensors and the output aliases) from an exec.program, without the graph
// dialect, so a compiled artifact runs on the GPU as it is.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_EXECUTABLE_EXECTORUNTIME_H
#define GRAPHDIALECT_EXECUTABLE_EXECTORUNTIME_H

#include "GraphDialect/Conversion/GraphToCudnn.h"

#include <string>
#include <vector>

namespace mlir::exec {
class ProgramOp;

/// One graph input or output of a program, as graph-run and the C API see
/// it: uid, name, dtype, dims and strides.
struct ProgramIO {
  std::vector<::graph::ref::TensorInfo> inputs, outputs;
};

/// Fills `program` from `op` (groups in schedule order, each with its plan
/// choice in program.engines) and `io` with the inputs and outputs. Returns
/// "" or why the program cannot run (e.g. an exec.kernel_launch, which the
/// runtime cannot load yet, or a dtype with no runtime equivalent).
std::string loadProgram(ProgramOp op, graph::CudnnProgram &program,
                        ProgramIO *io = nullptr);

} // namespace mlir::exec

#endif // GRAPHDIALECT_EXECUTABLE_EXECTORUNTIME_H
