//===- OpKind.cpp - Op kind names and parsing -------------------*- C++ -*-===//
//
// The tables behind OpKind.h, from the generated OpKinds.inc.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Support/OpKind.h"

#include <algorithm>
#include <iterator>
#include <ostream>

using namespace graph;

namespace {

struct Entry {
  const char *name;
  OpKind kind;
};

/// In OpKind order, which is mnemonic order (OpKinds.inc is sorted).
constexpr Entry kEntries[] = {
#define GRAPH_OP_KIND(Enum, mnemonic) {mnemonic, OpKind::Enum},
#include "GraphDialect/Support/OpKinds.inc"
#undef GRAPH_OP_KIND
};
static_assert(std::size(kEntries) == kNumOpKinds);

} // namespace

const char *graph::opKindName(OpKind kind) {
  return kEntries[static_cast<size_t>(kind)].name;
}

std::optional<OpKind> graph::parseOpKind(std::string_view name) {
  const Entry *it = std::lower_bound(
      std::begin(kEntries), std::end(kEntries), name,
      [](const Entry &e, std::string_view n) { return e.name < n; });
  if (it == std::end(kEntries) || it->name != name)
    return std::nullopt;
  return it->kind;
}

SpecOpKind &SpecOpKind::operator=(std::string_view name) {
  kind = parseOpKind(name);
  text = kind ? std::string() : std::string(name);
  return *this;
}

std::ostream &graph::operator<<(std::ostream &os, const SpecOpKind &kind) {
  return os << kind.name();
}
