//===- GraphOps.h - Operations and attributes of the graph dialect -*- C++ -*-===//

#ifndef GRAPHDIALECT_GRAPHOPS_H
#define GRAPHDIALECT_GRAPHOPS_H

#include "GraphDialect/GraphDialect.h"
#include "GraphDialect/GraphTraits.h"
#include "GraphDialect/ShapeRule.h"
#include "GraphDialect/Support/Port.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "GraphDialect/GraphEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "GraphDialect/GraphAttrs.h.inc"

#define GET_OP_CLASSES
#include "GraphDialect/GraphOps.h.inc"

namespace mlir::graph {

/// The strides of `type` when its encoding fixes them, else an empty array.
ArrayRef<int64_t> getStrides(RankedTensorType type);

/// Row-major (C order) strides of `shape`. A verified type never overflows
/// (see fitsTensorByteLimit); a stride that would saturates at INT64_MAX.
SmallVector<int64_t> getRowMajorStrides(ArrayRef<int64_t> shape);

/// Why `strides` make two elements of `shape` share an address, or "" when
/// they do not (dynamic and unit dims are not checked). What a graph writes
/// must not overlap; inputs may be read through overlapping strides.
std::string describeStrideOverlap(ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> strides);

/// Whether the bytes `type` addresses fit in 63 bits, the rule every tensor of
/// a graph obeys: the product of its static dims (a dynamic dim counts as 1),
/// or with strides its span, times the element's byte width.
bool fitsTensorByteLimit(RankedTensorType type);

/// The user label of a node op (its `name` attribute), or "" when unnamed.
StringRef getNodeLabel(Operation *op);

/// One ODS operand or result group of a node op, by its port name (the
/// generated OpPorts.inc names them): an absent optional group gives one
/// entry with a null value, a variadic group one entry per value.
struct PortValue {
  ::graph::Port port;
  bool isResult;
  Value value;
};

/// Every operand group, then every result group, of graph node op `op`, in
/// ODS order; empty for an op that is no node (graph.graph, graph.group).
SmallVector<PortValue> getPortValues(Operation *op);

/// A tensor of an attention op that may be ragged (packed THD), with the
/// offsets operand that makes it so (null: padded).
struct RaggedPort {
  StringRef port;
  Value tensor, offsets;
};

/// Each port of the op with a ragged_offset_<port> operand (graph.sdpa's q,
/// k, v, O, Stats and page tables; sdpa_fp8's q, k, v, O, Stats;
/// sdpa_backward's q, k, v, o, dO, stats, dQ, dK, dV), read from the ODS tables
/// generated from GraphOps.td, in ODS order.
SmallVector<RaggedPort> getRaggedPorts(SdpaOp op);
SmallVector<RaggedPort> getRaggedPorts(SdpaBackwardOp op);
SmallVector<RaggedPort> getRaggedPorts(SdpaFp8Op op);

/// Emits an error at `op` prefixed with the op kind and its label, e.g.
/// `matmul "mm1": `, the form every graph diagnostic takes.
InFlightDiagnostic emitNodeError(Operation *op);

} // namespace mlir::graph

#endif // GRAPHDIALECT_GRAPHOPS_H
