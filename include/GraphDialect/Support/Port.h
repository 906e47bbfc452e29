//===- Port.h - The graph dialect's operand and result names ----*- C++ -*-===//
//
// The ports of a runtime spec's ops as an enum: one enumerator per distinct
// operand or result name of the graph dialect's node ops (Port::A,
// Port::inv_variance, ...), spelled as in GraphOps.td (which tells `dBias`
// from `DBias` and `Stats` from `stats`). The list is generated from
// GraphOps.td into Ports.inc by scripts/gen_builder_ports.py, the route of
// OpKinds.inc (a ctest checks it is current): port names are parsed once,
// where a spec is built, and the engines compare Ports.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_SUPPORT_PORT_H
#define GRAPHDIALECT_SUPPORT_PORT_H

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace graph {

/// One enumerator per port name, in name (byte) order, so that a map keyed
/// by Port iterates as one keyed by the names.
enum class Port : uint8_t {
#define GRAPH_PORT(name) name,
#include "GraphDialect/Support/Ports.inc"
#undef GRAPH_PORT
};

inline constexpr size_t kNumPorts = 0
#define GRAPH_PORT(name) +1
#include "GraphDialect/Support/Ports.inc"
#undef GRAPH_PORT
    ;

/// The ports a ragged (packed) layout applies to, each with the port of its
/// `[B + 1, 1, 1, 1]` offsets: every port some op pairs with a
/// ragged_offset_<port> operand in GraphOps.td (RaggedPorts.inc; today
/// graph.sdpa's and sdpa_backward's tensors and sdpa's page tables).
inline constexpr std::pair<Port, Port> kRaggedPorts[] = {
#define GRAPH_RAGGED_PORT(port, offsets) {Port::port, Port::offsets},
#include "GraphDialect/Support/RaggedPorts.inc"
#undef GRAPH_RAGGED_PORT
};

/// The port's name ("inv_variance"); static storage.
const char *portName(Port port);
/// The Port named `name`, nullopt for no port of the dialect.
std::optional<Port> parsePort(std::string_view name);

/// A port as a spec stores it: a Port, assigned from (parsed) and printed
/// as its name. Text that names no Port (the elements of a concatenate's
/// variadic input, "inputs_0", "inputs_1", ...; a spec built by hand) is
/// kept as given: it equals no Port and prints as it came. Ordered by name,
/// as the spec's maps were when they were keyed by strings.
class SpecPort {
public:
  SpecPort(Port port) : port(port) {}
  SpecPort(std::string_view name);
  SpecPort(const std::string &name) : SpecPort(std::string_view(name)) {}
  SpecPort(const char *name) : SpecPort(std::string_view(name)) {}

  /// The Port; nullopt when the text named none.
  std::optional<Port> get() const { return port; }
  /// The name (or the text given); lives as long as this.
  const char *name() const { return port ? portName(*port) : text.c_str(); }
  operator std::string() const { return name(); }

  friend bool operator<(const SpecPort &a, const SpecPort &b) {
    if (a.port && b.port)
      return *a.port < *b.port; // Port order is name order
    return std::string_view(a.name()) < std::string_view(b.name());
  }
  friend bool operator==(const SpecPort &a, const SpecPort &b) {
    return a.port == b.port && a.text == b.text;
  }
  friend bool operator!=(const SpecPort &a, const SpecPort &b) {
    return !(a == b);
  }
  friend bool operator==(const SpecPort &a, Port b) { return a.port == b; }
  friend bool operator!=(const SpecPort &a, Port b) { return !(a == b); }
  friend bool operator==(const SpecPort &a, const char *b) {
    return std::string_view(a.name()) == b;
  }
  friend bool operator!=(const SpecPort &a, const char *b) { return !(a == b); }
  friend std::string operator+(const std::string &a, const SpecPort &b) {
    return a + b.name();
  }
  friend std::string operator+(const char *a, const SpecPort &b) {
    return std::string(a) + b.name();
  }
  friend std::string operator+(const SpecPort &a, const char *b) {
    return std::string(a.name()) + b;
  }

private:
  std::optional<Port> port;
  std::string text; // when `port` is empty: the text given
};

/// The port of a pointwise op's input `index` in a spec (Port::in0, in1,
/// in2; "in<index>" as text past them).
SpecPort pointwiseInput(size_t index);

/// The port of element `index` of a variadic operand `port` in a spec other
/// than a pointwise op's ("inputs_0", "inputs_1", ... of a concatenate).
SpecPort variadicElement(Port port, size_t index);

/// Prints the name (or the text given).
std::ostream &operator<<(std::ostream &os, const SpecPort &port);
std::ostream &operator<<(std::ostream &os, Port port);

} // namespace graph

#endif // GRAPHDIALECT_SUPPORT_PORT_H
