//===- BytecodeNesting.h - Nesting guard for MLIR bytecode -----*- C++ -*-===//
//
// Support/NestingDepth.h guards text before the parser sees it. MLIR bytecode
// is not text: its reader takes deeply nested attributes and regions from a
// heap worklist, but the verifier, the printer, the passes' walks and the
// destruction of the IR then recurse once per level, so a 200 KB bytecode
// file holding 20,000 nested modules or an array attribute nested 200,000
// deep overflows the stack of graph-opt, graph-run, or a Python process that
// embeds the C API.
//
// findExcessiveBytecodeNesting parses bytecode once, without verifying,
// measures the nesting with explicit stacks (regions, then the attributes
// and types every op, block argument and location holds, memoized over the
// uniqued attribute DAG) and takes the IR apart innermost first, so nothing
// recurses. Callers run it before their real parse, as they run
// findExcessiveNesting on text.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_BYTECODENESTING_H
#define GRAPHDIALECT_BYTECODENESTING_H

#include "GraphDialect/Support/NestingDepth.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MemoryBuffer.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace graph {

namespace detail {

/// Nesting depths of attributes and types (an attribute or type with no
/// sub-elements is 1 deep), memoized: attributes and types are uniqued, so
/// a shared sub-element is measured once.
class AttrTypeDepth {
public:
  unsigned of(mlir::Attribute attr) {
    return attr ? measure(Node(attr.getAsOpaquePointer(), false)) : 0;
  }
  unsigned of(mlir::Type type) {
    return type ? measure(Node(type.getAsOpaquePointer(), true)) : 0;
  }

private:
  using Node = std::pair<const void *, bool>; // (opaque pointer, is a type)

  static void children(Node node, std::vector<Node> &out) {
    out.clear();
    auto attrFn = [&](mlir::Attribute a) {
      out.emplace_back(a.getAsOpaquePointer(), false);
    };
    auto typeFn = [&](mlir::Type t) {
      out.emplace_back(t.getAsOpaquePointer(), true);
    };
    if (node.second)
      mlir::Type::getFromOpaquePointer(node.first)
          .walkImmediateSubElements(attrFn, typeFn);
    else
      mlir::Attribute::getFromOpaquePointer(node.first)
          .walkImmediateSubElements(attrFn, typeFn);
  }

  unsigned measure(Node root) {
    if (auto it = depth.find(root.first); it != depth.end())
      return it->second;
    // Post-order with an explicit stack: a node is finished once all its
    // children are. A node met again while open (a recursive type) counts
    // as a leaf there.
    std::vector<std::pair<Node, bool>> stack = {{root, false}};
    std::vector<Node> kids;
    while (!stack.empty()) {
      auto [node, expanded] = stack.back();
      if (depth.count(node.first)) {
        stack.pop_back();
        continue;
      }
      children(node, kids);
      if (!expanded) {
        stack.back().second = true;
        open.insert(node.first);
        for (Node kid : kids)
          if (!depth.count(kid.first) && !open.count(kid.first))
            stack.emplace_back(kid, false);
        continue;
      }
      unsigned deepest = 0;
      for (Node kid : kids)
        if (auto it = depth.find(kid.first); it != depth.end())
          deepest = std::max(deepest, it->second);
      depth[node.first] = deepest + 1;
      open.erase(node.first);
      stack.pop_back();
    }
    return depth[root.first];
  }

  llvm::DenseMap<const void *, unsigned> depth;
  llvm::DenseSet<const void *> open;
};

} // namespace detail

/// For MLIR bytecode in `buffer`: a message when its IR nests deeper than
/// `limit` (regions inside regions plus the attribute and type nesting at
/// the deepest op), naming the op and the depth; nullopt when it does not,
/// for text (findExcessiveNesting's job) and for bytecode that does not
/// parse (the caller's real parse reports that). Uses `context` (with the
/// caller's dialects) and emits no diagnostics.
inline std::optional<std::string>
findExcessiveBytecodeNesting(llvm::MemoryBufferRef buffer,
                             mlir::MLIRContext *context,
                             unsigned limit = kMaxNestingDepth) {
  if (!mlir::isBytecode(buffer))
    return std::nullopt;
  mlir::Block block;
  {
    mlir::ScopedDiagnosticHandler quiet(
        context, [](mlir::Diagnostic &) { return mlir::success(); });
    mlir::ParserConfig config(context, /*verifyAfterParse=*/false);
    if (mlir::failed(mlir::readBytecodeFile(buffer, &block, config)))
      return std::nullopt;
  }

  // Every op, parents before children, with its region depth.
  std::vector<std::pair<mlir::Operation *, unsigned>> order;
  std::vector<std::pair<mlir::Operation *, unsigned>> work;
  for (mlir::Operation &op : llvm::reverse(block))
    work.emplace_back(&op, 0);
  while (!work.empty()) {
    auto [op, level] = work.back();
    work.pop_back();
    order.emplace_back(op, level);
    for (mlir::Region &region : llvm::reverse(op->getRegions()))
      for (mlir::Block &inner : llvm::reverse(region))
        for (mlir::Operation &child : llvm::reverse(inner))
          work.emplace_back(&child, level + 1);
  }

  std::optional<std::string> found;
  detail::AttrTypeDepth measure;
  for (auto [op, level] : order) {
    unsigned deepest = level;
    auto consider = [&](unsigned inner) {
      deepest = std::max(deepest, level + inner);
    };
    consider(measure.of(op->getRawDictionaryAttrs()));
    consider(measure.of(op->getPropertiesAsAttribute()));
    consider(measure.of(mlir::Attribute(op->getLoc())));
    for (mlir::Type type : op->getResultTypes())
      consider(measure.of(type));
    for (mlir::Region &region : op->getRegions())
      for (mlir::Block &inner : region)
        for (mlir::BlockArgument arg : inner.getArguments()) {
          consider(measure.of(arg.getType()));
          consider(measure.of(mlir::Attribute(arg.getLoc())));
        }
    if (deepest > limit) {
      found = "bytecode nesting deeper than " + std::to_string(limit) +
              " levels (" + std::to_string(level) +
              " nested regions, then attributes and types, at a '" +
              op->getName().getStringRef().str() +
              "' op): the parser, verifier and passes would overflow their "
              "stack on it";
      break;
    }
  }

  // Take the IR apart innermost first: no destructor recurses.
  for (auto [op, level] : order) {
    for (mlir::OpOperand &operand : op->getOpOperands())
      operand.drop();
    for (mlir::BlockOperand &successor : op->getBlockOperands())
      successor.drop();
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    it->first->erase();
  return found;
}

} // namespace graph

#endif // GRAPHDIALECT_BYTECODENESTING_H
