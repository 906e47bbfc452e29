//===- NodeOps.h - Dispatch on the graph dialect's node ops -----*- C++ -*-===//
//
// Header-only helpers shared by the lowerings that walk a group's node ops
// by class (GraphToCudnn's group descriptions, the codegen engine's stage
// planner): a switch over the node op classes and the ODS operand/result
// names of each op kind (Support/OpPorts.inc, generated from GraphOps.td).
// Templates and constants only, so a library includes it without linking
// another's code.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_NODEOPS_H
#define GRAPHDIALECT_NODEOPS_H

#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Support/OpKind.h"
#include "GraphDialect/Support/Port.h"

namespace mlir::graph {

/// Calls `fn` with `op` as its class when it is one of `Ops`; false when
/// it is none of them.
template <typename... Ops, typename Fn> bool withOneOf(Operation *op, Fn &&fn) {
  return ((isa<Ops>(op) ? (fn(cast<Ops>(op)), true) : false) || ...);
}

/// The node ops a group description can hold, each as its class to `fn`;
/// false for others.
template <typename Fn> bool withNodeOp(Operation *op, Fn &&fn) {
  return withOneOf<
      MatmulOp, PointwiseOp, ConvFpropOp, ConvDgradOp, ConvWgradOp, ReductionOp,
      LayernormOp, AdaLayernormOp, InstancenormOp, RmsnormOp, BatchnormOp,
      BatchnormInferenceOp, LayernormBackwardOp, AdaLayernormBackwardOp,
      InstancenormBackwardOp, RmsnormBackwardOp, BatchnormBackwardOp,
      GenstatsOp, SdpaOp, SdpaBackwardOp, TransposeOp, SliceOp, ConcatenateOp,
      ReshapeOp, RopeOp, RopeBackwardOp, BlockScaleQuantizeOp,
      BlockScaleDequantizeOp, MoeGroupedMatmulOp, MoeGatherRowsOp,
      MoeScatterRowsOp, RngOp, SdpaFp8Op, PagedCacheLoadOp>(op, fn);
}

/// One operand or result name of an op kind, from GraphOps.td.
struct OdsPort {
  ::graph::OpKind kind;
  bool isResult;
  ::graph::Port port;
};

/// Every op kind's operands, then results, in ODS order.
inline constexpr OdsPort kOdsPorts[] = {
#define GRAPH_OP_OPERAND(Enum, port)                                           \
  {::graph::OpKind::Enum, false, ::graph::Port::port},
#define GRAPH_OP_RESULT(Enum, port)                                            \
  {::graph::OpKind::Enum, true, ::graph::Port::port},
#include "GraphDialect/Support/OpPorts.inc"
#undef GRAPH_OP_OPERAND
#undef GRAPH_OP_RESULT
};

} // namespace mlir::graph

#endif // GRAPHDIALECT_NODEOPS_H
