//===- OpKind.h - The graph dialect's ops as an enum ------------*- C++ -*-===//
//
// The graph dialect's ops for the layers that carry a graph without MLIR (the
// runtime's specs, the engines' plans over them). The list is generated from
// GraphOps.td into OpKinds.inc by scripts/gen_builder_ports.py, the route of
// the C API's BuilderPorts.inc (a ctest checks both are current): mnemonics
// are parsed once, where a spec is built from IR, an artifact or the C API,
// and everything after compares OpKinds.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_SUPPORT_OPKIND_H
#define GRAPHDIALECT_SUPPORT_OPKIND_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

namespace graph {

/// One enumerator per graph-dialect op, named after its ODS record
/// (Graph_ConvFpropOp -> ConvFprop), in mnemonic order.
enum class OpKind : uint8_t {
#define GRAPH_OP_KIND(Enum, mnemonic) Enum,
#include "GraphDialect/Support/OpKinds.inc"
#undef GRAPH_OP_KIND
};

inline constexpr size_t kNumOpKinds = 0
#define GRAPH_OP_KIND(Enum, mnemonic) +1
#include "GraphDialect/Support/OpKinds.inc"
#undef GRAPH_OP_KIND
    ;

/// The op's mnemonic without the dialect ("conv_fprop"); static storage.
const char *opKindName(OpKind kind);
/// The OpKind of mnemonic `name` ("conv_fprop"), nullopt for no graph op.
std::optional<OpKind> parseOpKind(std::string_view name);

/// An op kind as a spec stores it: an OpKind, assigned from (parsed) and
/// printed as its mnemonic. Text that names no graph op (a spec built by
/// hand) is kept as given: it equals no OpKind and prints as it came.
class SpecOpKind {
public:
  SpecOpKind() = default;
  SpecOpKind(OpKind kind) : kind(kind) {}
  SpecOpKind &operator=(OpKind k) {
    kind = k;
    text.clear();
    return *this;
  }
  /// Parses mnemonic `name`.
  SpecOpKind &operator=(std::string_view name);

  /// The OpKind; nullopt when the text named no graph op.
  std::optional<OpKind> get() const { return kind; }
  /// Whether this is one of `kinds` (never for text that named no op).
  bool isOneOf(std::initializer_list<OpKind> kinds) const {
    return kind && std::find(kinds.begin(), kinds.end(), *kind) != kinds.end();
  }
  /// The mnemonic (or the text given); lives as long as this.
  const char *name() const { return kind ? opKindName(*kind) : text.c_str(); }

  friend bool operator==(const SpecOpKind &a, OpKind b) { return a.kind == b; }
  friend bool operator!=(const SpecOpKind &a, OpKind b) { return !(a == b); }
  friend bool operator==(OpKind a, const SpecOpKind &b) { return b == a; }
  friend bool operator!=(OpKind a, const SpecOpKind &b) { return !(b == a); }

  /// Reads as text, for messages and for code that still compares
  /// mnemonics (lib/Runtime/CudnnGroup.cpp and CudnnDescriptors.cpp, the
  /// tests): compare with an OpKind instead.
  operator std::string() const { return name(); }
  friend bool operator==(const SpecOpKind &a, std::string_view b) {
    return a.name() == b;
  }
  friend bool operator!=(const SpecOpKind &a, std::string_view b) {
    return !(a == b);
  }
  friend std::string operator+(const std::string &a, const SpecOpKind &b) {
    return a + b.name();
  }
  friend std::string operator+(const char *a, const SpecOpKind &b) {
    return std::string(a) + b.name();
  }
  friend std::string operator+(const SpecOpKind &a, const std::string &b) {
    return a.name() + b;
  }
  friend std::string operator+(const SpecOpKind &a, const char *b) {
    return std::string(a.name()) + b;
  }

private:
  std::optional<OpKind> kind;
  std::string text; // when `kind` is empty: the text given
};

/// Prints the mnemonic (or the text given).
std::ostream &operator<<(std::ostream &os, const SpecOpKind &kind);

} // namespace graph

#endif // GRAPHDIALECT_SUPPORT_OPKIND_H
