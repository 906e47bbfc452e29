//===- EnumKeyword.h - Enum keywords in the graph ops' assembly -*- C++ -*-===//
//
// Shared by the generated (declarative) and hand-written parsers of the
// dialect's two translation units.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_LIB_DIALECT_ENUMKEYWORD_H
#define GRAPHDIALECT_LIB_DIALECT_ENUMKEYWORD_H

#include "GraphDialect/GraphOps.h"

namespace mlir::graph {

/// Enum keywords of the node ops (`pointwise add(...)`, `layernorm training`,
/// `reduction amax`). The attribute's own printer puts a space after its
/// mnemonic, which doubled the one the op printer already emits.
template <typename EnumAttrT>
inline ParseResult parseEnumKeyword(OpAsmParser &parser, EnumAttrT &attr) {
  using EnumT = decltype(std::declval<EnumAttrT>().getValue());
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  bool present = succeeded(parser.parseOptionalKeyword(&keyword));
  if (present)
    if (std::optional<EnumT> value = symbolizeEnum<EnumT>(keyword)) {
      attr = EnumAttrT::get(parser.getContext(), *value);
      return success();
    }
  // Enum values are small and sparse; list every one that has a name.
  std::string choices;
  for (uint32_t i = 0; i < 256; ++i) {
    StringRef name = stringifyEnum(static_cast<EnumT>(i));
    if (name.empty())
      continue;
    if (!choices.empty())
      choices += ", ";
    choices += name.str();
  }
  InFlightDiagnostic diag = parser.emitError(loc);
  if (present)
    diag << "unknown " << EnumAttrT::getMnemonic() << " '" << keyword
         << "'; expected one of: " << choices;
  else
    diag << "expected a " << EnumAttrT::getMnemonic()
         << " keyword; one of: " << choices;
  return diag;
}

template <typename EnumAttrT>
inline void printEnumKeyword(OpAsmPrinter &printer, Operation *,
                             EnumAttrT attr) {
  printer << stringifyEnum(attr.getValue());
}

} // namespace mlir::graph

#endif // GRAPHDIALECT_LIB_DIALECT_ENUMKEYWORD_H
