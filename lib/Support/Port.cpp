//===- Port.cpp - Port names and parsing ------------------------*- C++ -*-===//
//
// The tables behind Port.h, from the generated Ports.inc.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Support/Port.h"

#include <algorithm>
#include <iterator>
#include <ostream>

using namespace graph;

namespace {

/// In Port order, which is name order (Ports.inc is sorted).
constexpr std::string_view kNames[] = {
#define GRAPH_PORT(name) #name,
#include "GraphDialect/Support/Ports.inc"
#undef GRAPH_PORT
};
static_assert(std::size(kNames) == kNumPorts);

constexpr bool sortedByName() {
  for (size_t i = 1; i < std::size(kNames); ++i)
    if (!(kNames[i - 1] < kNames[i]))
      return false;
  return true;
}
static_assert(sortedByName(), "Ports.inc must be sorted by name: a map keyed "
                              "by Port iterates in name order");

} // namespace

const char *graph::portName(Port port) {
  return kNames[static_cast<size_t>(port)].data();
}

std::optional<Port> graph::parsePort(std::string_view name) {
  const std::string_view *it =
      std::lower_bound(std::begin(kNames), std::end(kNames), name);
  if (it == std::end(kNames) || *it != name)
    return std::nullopt;
  return static_cast<Port>(it - std::begin(kNames));
}

SpecPort::SpecPort(std::string_view name) : port(parsePort(name)) {
  if (!port)
    text = std::string(name);
}

SpecPort graph::pointwiseInput(size_t index) {
  static constexpr Port kInputs[] = {Port::in0, Port::in1, Port::in2};
  if (index < std::size(kInputs))
    return kInputs[index];
  return "in" + std::to_string(index);
}

SpecPort graph::variadicElement(Port port, size_t index) {
  return std::string(portName(port)) + "_" + std::to_string(index);
}

std::ostream &graph::operator<<(std::ostream &os, const SpecPort &port) {
  return os << port.name();
}

std::ostream &graph::operator<<(std::ostream &os, Port port) {
  return os << portName(port);
}
