//===- Groups.h - Fused groups (graph.group) and values across them -*- C++
//-*-===//
//
// graph-fuse outlines each fused group into a graph.group region op;
// graph-select-engines ranks its engines. Consumers that think in the
// graph's data flow (the lowering to cuDNN group descriptions, the CPU
// reference) look through the group boundaries with these helpers: a
// group's block argument stands for the operand it is bound to, and a
// group's result for the value its graph.yield lists.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_GROUPS_H
#define GRAPHDIALECT_GROUPS_H

#include "GraphDialect/GraphOps.h"

namespace mlir::graph {

/// The value `value` stands for in the graph's data flow: a group's block
/// argument resolves to the group's operand, a group's result to the value
/// its yield lists, recursively. A resolved value is a graph input, the
/// result of an op directly in the graph (a scalar) or the result of a node
/// op inside a group.
Value resolveGroupValue(Value value);

/// Whether `value` resolves (resolveGroupValue) to a graph input marked
/// graph.by_value.
bool isByValueInput(Value value);

/// Whether node op `op` reads `value` (both followed through group
/// boundaries) through a port cuDNN reads by value on the host: GraphOps.td's
/// Graph_ByValue mark, Support/ByValuePorts.h (a norm's epsilon).
bool readsThroughByValuePort(Operation *op, Value value);

/// Whether cuDNN takes `value`, read by the group of `ops`, by value: a
/// graph.scalar, or a graph.by_value input whose every reader among `ops`
/// is a pointwise op or reads it through a by-value port (a norm's
/// epsilon); cuDNN takes by-value tensors nowhere else, so one a matmul
/// also reads stays device memory. Empty `ops`: every reader counts.
bool isTakenByValue(Value value, ArrayRef<Operation *> ops);

/// The readers of `value` as they would be in the same graph without group
/// boundaries, one entry per use: node ops (inside any group) and the
/// graph.output. A use as a group operand or by a graph.yield is followed
/// to the block argument's or the group result's own readers.
SmallVector<Operation *> getResolvedUsers(Value value);

/// The groups of `graph` in schedule (body) order.
SmallVector<GroupOp> getGroups(GraphOp graph);

/// Moves `ops` (in program order, all in the body of one graph, none a
/// graph.group) into a new graph.group with id `id`, created at
/// `builder`'s insertion point. Operands from outside `ops` become the
/// group's operands (in first-use order), results read outside `ops` (or
/// returned) become its results (in program order), and every outside use
/// is rewired to the group. The caller keeps the schedule valid.
GroupOp outlineGroup(OpBuilder &builder, ArrayRef<Operation *> ops, int64_t id);

/// Moves the ops of `group` in front of it, rewires its block arguments to
/// its operands and its results to the yielded values, and erases it.
/// Returns the moved ops in program order.
SmallVector<Operation *> inlineGroup(GroupOp group);

} // namespace mlir::graph

#endif // GRAPHDIALECT_GROUPS_H
