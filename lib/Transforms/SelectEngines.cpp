//===- SelectEngines.cpp - Rank the engines of each fused group -----------===//
//
// Asks the engine registry (GraphDialect/Engines/Engine.h) only: an engine
// takes a group when its group-level rule accepts it, and a single op when
// its per-op rule does. No rule of any engine lives here.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Engines/Engine.h"
#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Groups.h"
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

  /// The ranked engine list of `ops`: each engine of `taking` with the
  /// plans it proposes for them.
  static FailureOr<ArrayAttr> engineList(Operation *at,
                                         ArrayRef<Operation *> ops,
                                         ArrayRef<std::string> taking) {
    MLIRContext *context = at->getContext();
    SmallVector<Attribute> list;
    for (const std::string &name : taking) {
      std::optional<EngineKind> kind = symbolizeEngineKind(name);
      if (!kind)
        return at->emitOpError()
               << "engine '" << name << "' has no #graph.engine kind";
      SmallVector<Attribute> plans;
      for (const std::string &plan : lookupEngine(name)->proposePlans(ops))
        plans.push_back(StringAttr::get(context, plan));
      list.push_back(
          EngineAttr::get(context, *kind, ArrayAttr::get(context, plans)));
    }
    return ArrayAttr::get(context, list);
  }

  LogicalResult select(GraphOp graph, ArrayRef<std::string> ranked) {
    SmallVector<GroupOp> groups = getGroups(graph);
    if (groups.empty() &&
        llvm::any_of(graph.getBody().front().without_terminator(),
                     [](Operation &op) { return !isa<ScalarOp>(op); }))
      return graph.emitOpError()
             << "has no fused groups; run graph-fuse before "
                "graph-select-engines";

    // Groups are renumbered in schedule order, split ones included.
    int64_t next = 0;
    auto tag = [&](GroupOp group, ArrayRef<Operation *> ops,
                   ArrayRef<std::string> taking) -> LogicalResult {
      FailureOr<ArrayAttr> list = engineList(group, ops, taking);
      if (failed(list))
        return failure();
      group.setId(next++);
      group.setEnginesAttr(*list);
      return success();
    };
    for (GroupOp group : groups) {
      SmallVector<Operation *> ops;
      for (Operation &op : group.getNodes())
        if (!isa<ScalarOp>(op))
          ops.push_back(&op);
      SmallVector<std::string> taking;
      for (const std::string &engine : ranked)
        if (engineDeclinesGroup(engine, ops).empty())
          taking.push_back(engine);
      if (!taking.empty()) {
        if (failed(tag(group, ops, taking)))
          return failure();
        continue;
      }
      // Split: each op alone, in program order, keeps the schedule valid.
      SmallVector<SmallVector<std::string>> alone(ops.size());
      for (auto [op, engines] : llvm::zip(ops, alone)) {
        std::string why;
        for (const std::string &engine : ranked) {
          std::string reason = engineDeclines(engine, op);
          if (reason.empty())
            engines.push_back(engine);
          else
            why += "\n  " + engine + ": " + reason;
        }
        if (engines.empty())
          return emitNodeError(op)
                 << "no engine can run this op; tried:" << why;
      }
      inlineGroup(group);
      OpBuilder builder(graph.getContext());
      for (auto [op, engines] : llvm::zip(ops, alone)) {
        builder.setInsertionPoint(op);
        if (failed(tag(outlineGroup(builder, {op}, next), {op}, engines)))
          return failure();
      }
    }
    return success();
  }
};

} // namespace
