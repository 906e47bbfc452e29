//===- SelectEngines.cpp - Rank the engines of each fused group -----------===//
//
// Asks the engine registry (GraphDialect/Engines/Engine.h) only: an engine
// takes a group when its group-level rule accepts it, and a single op when
// its per-op rule does. No rule of any engine lives here.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Engines/Engine.h"
#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::graph {
#define GEN_PASS_DEF_GRAPHSELECTENGINES
#include "GraphDialect/Passes.h.inc"
} // namespace mlir::graph

using namespace mlir;
using namespace mlir::graph;

namespace {

constexpr llvm::StringLiteral kGroupAttr = "graph.group";
constexpr llvm::StringLiteral kEnginesAttr = "graph.engines";

struct GraphSelectEngines
    : public mlir::graph::impl::GraphSelectEnginesBase<GraphSelectEngines> {
  using GraphSelectEnginesBase::GraphSelectEnginesBase;

  void runOnOperation() override {
    SmallVector<std::string> ranked(engines.begin(), engines.end());
    if (ranked.empty())
      for (StringRef engine : getDefaultEngineRanking())
        ranked.push_back(engine.str());
    WalkResult result = getOperation().walk([&](GraphOp graph) {
      return succeeded(select(graph, ranked)) ? WalkResult::advance()
                                              : WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

  LogicalResult select(GraphOp graph, ArrayRef<std::string> ranked) {
    // Groups in id order with their ops in program order.
    llvm::MapVector<int64_t, SmallVector<Operation *>> groups;
    for (Operation &op : graph.getBody().front().without_terminator())
      if (auto id = op.getAttrOfType<IntegerAttr>(kGroupAttr))
        groups[id.getInt()].push_back(&op);
    if (groups.empty() && !graph.getBody().front().without_terminator().empty() &&
        llvm::any_of(graph.getBody().front().without_terminator(),
                     [](Operation &op) { return !isa<ScalarOp>(op); }))
      return graph.emitOpError()
             << "has no fused groups; run graph-fuse before "
                "graph-select-engines";

    Builder b(graph.getContext());
    int64_t next = 0;
    auto tag = [&](ArrayRef<Operation *> ops, ArrayRef<std::string> taking) {
      SmallVector<Attribute> names;
      for (const std::string &engine : taking)
        names.push_back(b.getStringAttr(engine));
      for (Operation *op : ops) {
        op->setAttr(kGroupAttr, b.getI64IntegerAttr(next));
        op->setAttr(kEnginesAttr, b.getArrayAttr(names));
      }
      ++next;
    };
    SmallVector<std::pair<int64_t, SmallVector<Operation *>>> ordered(
        groups.begin(), groups.end());
    llvm::sort(ordered, [](auto &x, auto &y) { return x.first < y.first; });
    for (auto &[id, ops] : ordered) {
      SmallVector<std::string> taking;
      for (const std::string &engine : ranked)
        if (engineDeclinesGroup(engine, ops).empty())
          taking.push_back(engine);
      if (!taking.empty()) {
        tag(ops, taking);
        continue;
      }
      // Split: each op alone, in program order, keeps the schedule valid.
      for (Operation *op : ops) {
        SmallVector<std::string> alone;
        std::string why;
        for (const std::string &engine : ranked) {
          std::string reason = engineDeclines(engine, op);
          if (reason.empty())
            alone.push_back(engine);
          else
            why += "\n  " + engine + ": " + reason;
        }
        if (alone.empty())
          return emitNodeError(op) << "no engine can run this op; tried:"
                                   << why;
        tag({op}, alone);
      }
    }
    return success();
  }
};

} // namespace
