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

  /// The engines of `ranked` whose group-level rules take `ops`.
  static SmallVector<std::string> takersOf(ArrayRef<Operation *> ops,
                                           ArrayRef<std::string> ranked) {
    SmallVector<std::string> taking;
    for (const std::string &engine : ranked)
      if (engineDeclinesGroup(engine, ops).empty())
        taking.push_back(engine);
    return taking;
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
      SmallVector<std::string> taking = takersOf(ops, ranked);
      if (!taking.empty()) {
        if (failed(tag(group, ops, taking)))
          return failure();
        continue;
      }
      // Split into runs of consecutive ops, in program order (each run
      // reads only inputs and earlier runs, so the schedule holds), each
      // the longest from its first op that some engine takes: a conv +
      // batchnorm + swish stays one cuDNN plan when the pool after it is
      // cuDNN's only objection. Longest first, not grown op by op: a run
      // declined may be taken again once it holds its boolean's reader.
      SmallVector<SmallVector<Operation *>> runs;
      SmallVector<SmallVector<std::string>> runEngines;
      for (size_t begin = 0; begin < ops.size();) {
        size_t end = ops.size();
        SmallVector<std::string> takers;
        for (; end > begin; --end) {
          takers = takersOf(ArrayRef(ops).slice(begin, end - begin), ranked);
          if (!takers.empty())
            break;
        }
        if (end == begin) {
          Operation *op = ops[begin];
          std::string why;
          // The op's own rule, else the group rule that declines it alone
          // (cuDNN's rng outside an sdpa, a boolean to memory).
          for (const std::string &engine : ranked) {
            std::string reason = engineDeclines(engine, op);
            why +=
                "\n  " + engine + ": " +
                (reason.empty() ? engineDeclinesGroup(engine, {op}) : reason);
          }
          return emitNodeError(op)
                 << "no engine can run this op; tried:" << why;
        }
        runs.emplace_back(ops.begin() + begin, ops.begin() + end);
        runEngines.push_back(std::move(takers));
        begin = end;
      }
      inlineGroup(group);
      OpBuilder builder(graph.getContext());
      for (auto [run, engines] : llvm::zip(runs, runEngines)) {
        builder.setInsertionPoint(run.back());
        if (failed(tag(outlineGroup(builder, run, next), run, engines)))
          return failure();
      }
    }
    return success();
  }
};

} // namespace
