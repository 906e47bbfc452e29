//===- GraphTraits.h - Where graph node ops may live -------------*- C++
//-*-===//
//
// A graph node op (graph.matmul, graph.pointwise...) lives in a graph.graph,
// in a graph.group, or in the region of an op of another dialect that holds
// graph nodes (HoldsGraphNodes: exec.cudnn_group, a group of the AOT
// artifact, keeps its ops as graph ops). The trait pair lets such an op hold
// them without the graph dialect knowing its class.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_GRAPHTRAITS_H
#define GRAPHDIALECT_GRAPHTRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace mlir::OpTrait::graph {

namespace impl {
/// Succeeds when `op`'s parent is a graph.graph, a graph.group or an op
/// with HoldsGraphNodes; emits the error otherwise.
LogicalResult verifyGraphNodeParent(Operation *op);
/// Fails when a floating-point attribute of `op` is NaN (a fill value, the
/// `padding` of a matmul or the `value` of a graph.scalar, may be anything).
LogicalResult verifyGraphNodeAttributes(Operation *op);
} // namespace impl

/// An op whose region holds graph node ops (beside graph.graph and
/// graph.group).
template <typename ConcreteType>
class HoldsGraphNodes : public TraitBase<ConcreteType, HoldsGraphNodes> {};

/// A graph node op: its parent is a graph.graph, a graph.group or an op that
/// HoldsGraphNodes, and no attribute of it is a NaN.
template <typename ConcreteType>
class GraphNode : public TraitBase<ConcreteType, GraphNode> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    if (failed(impl::verifyGraphNodeParent(op)))
      return failure();
    return impl::verifyGraphNodeAttributes(op);
  }
};

} // namespace mlir::OpTrait::graph

#endif // GRAPHDIALECT_GRAPHTRAITS_H
