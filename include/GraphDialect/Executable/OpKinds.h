//===- OpKinds.h - The op kinds an #exec.op may name ------------*- C++ -*-===//
//
// An #exec.op's `kind` is the mnemonic of a graph-dialect node op (the
// runtime's OpSpec vocabulary). The exec dialect does not depend on the graph
// dialect, so the list lives here, MLIR-free; unittests/Conversion's
// OpKindsTest checks it against the graph dialect's registered ops, so an op
// added there without its kind here fails the unit tests.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_EXECUTABLE_OPKINDS_H
#define GRAPHDIALECT_EXECUTABLE_OPKINDS_H

#include <algorithm>
#include <iterator>
#include <string_view>

namespace mlir::exec {

/// Every graph-dialect node op mnemonic (graph.graph, graph.output and
/// graph.scalar are no node kinds: scalars are by-value tensors).
inline constexpr std::string_view kGraphOpKinds[] = {
    "adalayernorm",
    "adalayernorm_backward",
    "batchnorm",
    "batchnorm_backward",
    "batchnorm_inference",
    "block_scale_dequantize",
    "block_scale_quantize",
    "concatenate",
    "conv_dgrad",
    "conv_fprop",
    "conv_wgrad",
    "gdn",
    "gdn2",
    "gdn2_bwd",
    "gdn_bwd",
    "genstats",
    "instancenorm",
    "instancenorm_backward",
    "kda",
    "kda_bwd",
    "layernorm",
    "layernorm_backward",
    "matmul",
    "moe_grouped_matmul",
    "moe_grouped_matmul_bwd",
    "pointwise",
    "reduction",
    "reshape",
    "rmsnorm",
    "rmsnorm_backward",
    "rng",
    "rope",
    "rope_backward",
    "sdpa",
    "sdpa_backward",
    "sdpa_fp8",
    "sdpa_fp8_backward",
    "sdpa_mxfp8",
    "sdpa_mxfp8_backward",
    "slice",
    "transpose",
};

/// Whether `kind` names a graph-dialect node op.
inline bool isGraphOpKind(std::string_view kind) {
  return std::find(std::begin(kGraphOpKinds), std::end(kGraphOpKinds),
                   kind) != std::end(kGraphOpKinds);
}

} // namespace mlir::exec

#endif // GRAPHDIALECT_EXECUTABLE_OPKINDS_H
