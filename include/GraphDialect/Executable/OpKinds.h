//===- OpKinds.h - The op kinds an #exec.op may name ------------*- C++ -*-===//
//
// An #exec.op's `kind` is the mnemonic of a graph-dialect node op (the
// runtime's OpSpec vocabulary). The exec dialect does not depend on the graph
// dialect, so the list comes MLIR-free from Support/OpKinds.inc, which
// scripts/gen_builder_ports.py generates from GraphOps.td (its node ops, the
// GRAPH_NODE_OP_KIND lines; a ctest checks the file is current).
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_EXECUTABLE_OPKINDS_H
#define GRAPHDIALECT_EXECUTABLE_OPKINDS_H

#include <algorithm>
#include <iterator>
#include <string_view>

namespace mlir::exec {

/// Every graph-dialect node op mnemonic, sorted (graph.graph, graph.output,
/// graph.scalar, graph.group and graph.yield are no node kinds: scalars are
/// by-value tensors, groups are formed by graph-fuse).
inline constexpr std::string_view kGraphOpKinds[] = {
#define GRAPH_OP_KIND(Enum, mnemonic)
#define GRAPH_NODE_OP_KIND(Enum, mnemonic) mnemonic,
#include "GraphDialect/Support/OpKinds.inc"
#undef GRAPH_OP_KIND
};

/// Whether `kind` names a graph-dialect node op.
inline bool isGraphOpKind(std::string_view kind) {
  return std::binary_search(std::begin(kGraphOpKinds), std::end(kGraphOpKinds),
                            kind);
}

} // namespace mlir::exec

#endif // GRAPHDIALECT_EXECUTABLE_OPKINDS_H
