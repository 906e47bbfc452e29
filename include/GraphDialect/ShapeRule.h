//===- ShapeRule.h - Result dims of a node's shape rule ---------*- C++ -*-===//
//
// ResultDims: what ShapeRuleOpInterface::inferResultDims derives, and the
// generated interface (GraphInterfaces.td) that every node op implements;
// GraphOps.h includes it.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_SHAPERULE_H
#define GRAPHDIALECT_SHAPERULE_H

#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::graph {

/// The dims a node's shape rule gives its results, one entry per result it
/// determines (kDynamic for a dim the rule leaves open).
class ResultDims {
public:
  struct Entry {
    /// The result, or null for an optional result the op does not have.
    Value result;
    /// The result's name as the diagnostics give it ("Y", "output").
    std::string port;
    SmallVector<int64_t> dims;
    /// Where the dims come from ("like input", "[B, Hq, Sq, Dv]").
    std::string rule;
    /// False for a default that the verifier does not require.
    bool required;
  };

  /// `result` must have `dims`.
  void set(Value result, StringRef port, ArrayRef<int64_t> dims,
           const Twine &rule) {
    add(result, port, dims, rule, /*required=*/true);
  }
  /// `dims` are `result`'s default; the user may give others the verifier
  /// accepts.
  void suggest(Value result, StringRef port, ArrayRef<int64_t> dims,
               const Twine &rule) {
    add(result, port, dims, rule, /*required=*/false);
  }

  ArrayRef<Entry> entries() const { return list; }
  /// The entry of `result`, or null when the rule leaves it to the user.
  const Entry *lookup(Value result) const {
    for (const Entry &entry : list)
      if (entry.result && entry.result == result)
        return &entry;
    return nullptr;
  }

private:
  void add(Value result, StringRef port, ArrayRef<int64_t> dims,
           const Twine &rule, bool required) {
    list.push_back(
        {result, port.str(), SmallVector<int64_t>(dims), rule.str(), required});
  }
  SmallVector<Entry, 4> list;
};

} // namespace mlir::graph

#include "GraphDialect/GraphInterfaces.h.inc"

#endif // GRAPHDIALECT_SHAPERULE_H
