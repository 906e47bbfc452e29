//===- Executor.h - CPU reference executor of the graph dialect -*- C++ -*-===//
//
// Runs a `graph.graph` on the CPU: every op through the double-precision
// kernels of GraphReferenceCore, every intermediate rounded to its tensor's
// element type, every output stored in its declared layout. It is the oracle
// of the numeric tests and graph-run's CPU device.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_REFERENCE_EXECUTOR_H
#define GRAPHDIALECT_REFERENCE_EXECUTOR_H

#include "GraphDialect/Reference/NdArray.h"
#include "GraphDialect/Support/HostTensor.h"

#include "mlir/IR/Value.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class Operation;
class Type;
namespace graph {
class GraphOp;
}
} // namespace mlir

namespace graph::ref {

// Transitional: Support's names under their old graph::ref spelling, for the
// callers not yet moved to graph::. Remove once none is left.
using ::graph::HostTensor;
using ::graph::TensorInfo;

/// Maps an MLIR element type to a reference dtype; false when unsupported.
bool toDType(mlir::Type type, DType &out);

/// The inputs (block arguments) and outputs (graph.output operands) of
/// `graph`, in order.
void describeGraph(mlir::graph::GraphOp graph, std::vector<TensorInfo> &inputs,
                   std::vector<TensorInfo> &outputs);

/// Runs `graph` with `inputs` (one per graph input, in argument order).
/// On success fills `outputs` (one per graph output, in the declared
/// layout when strides are decided, else row-major) and returns "". On
/// failure returns a message naming the op, the input or the rule.
std::string execute(mlir::graph::GraphOp graph,
                    const std::vector<HostTensor> &inputs,
                    std::vector<HostTensor> &outputs);

/// Runs `ops`, node ops of one graph.graph in program order (e.g. one fused
/// group), with `given` binding every value they read that none of them
/// defines; graph.scalar operands are evaluated on their own. Fills
/// `results` with each value of `wanted` (dense, rounded to its element
/// type). Returns "" or a message naming the op, the value or the rule.
std::string executeOps(const std::vector<mlir::Operation *> &ops,
                       const std::vector<std::pair<mlir::Value, NdArray>> &given,
                       const std::vector<mlir::Value> &wanted,
                       std::vector<NdArray> &results);

} // namespace graph::ref

#endif // GRAPHDIALECT_REFERENCE_EXECUTOR_H
