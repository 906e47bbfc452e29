//===- ByValuePorts.h - The op ports cuDNN reads by value -------*- C++ -*-===//
//
// The operands of the graph dialect's node ops that cuDNN reads by value on
// the host rather than from a device buffer (a norm's epsilon and momentum):
// those whose ODS type carries the Graph_ByValue mark in GraphOps.td. The
// list is generated into ByValuePorts.inc by scripts/gen_builder_ports.py (a
// ctest checks it is current). The cuDNN engine reads it (an f64 one is
// fine: the runtime narrows it on the host) and so does the runtime (it
// hands the value to the descriptor).
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_SUPPORT_BYVALUEPORTS_H
#define GRAPHDIALECT_SUPPORT_BYVALUEPORTS_H

#include "GraphDialect/Support/OpKind.h"
#include "GraphDialect/Support/Port.h"

namespace graph {

/// One operand port of one op kind.
struct OpKindPort {
  OpKind kind;
  Port port;
};

/// Every by-value operand, sorted by mnemonic, in ODS order per op.
inline constexpr OpKindPort kByValuePorts[] = {
#define GRAPH_BY_VALUE_PORT(Enum, port) {OpKind::Enum, Port::port},
#include "GraphDialect/Support/ByValuePorts.inc"
#undef GRAPH_BY_VALUE_PORT
};

/// Whether cuDNN reads operand `port` of an op of kind `kind` by value.
constexpr bool isByValuePort(OpKind kind, Port port) {
  for (const OpKindPort &entry : kByValuePorts)
    if (entry.kind == kind && entry.port == port)
      return true;
  return false;
}

} // namespace graph

#endif // GRAPHDIALECT_SUPPORT_BYVALUEPORTS_H
