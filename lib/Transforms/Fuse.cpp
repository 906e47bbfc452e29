//===- Fuse.cpp - Partition graphs into fused groups ----------------------===//

#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::graph {
#define GEN_PASS_DEF_GRAPHFUSE
#include "GraphDialect/Passes.h.inc"
} // namespace mlir::graph

using namespace mlir;
using namespace mlir::graph;

namespace {

constexpr llvm::StringLiteral kGroupAttr = "graph.group";

/// What a group is anchored on decides what may join it.
enum class GroupKind { MatmulOrConv, Pointwise, Single };

struct Group {
  GroupKind kind;
  unsigned size = 0;
  bool hasReduction = false;
};

class Partitioner {
public:
  explicit Partitioner(unsigned maxOps) : maxOps(maxOps) {}

  void run(GraphOp graph) {
    for (Operation &op : graph.getBody().front().without_terminator()) {
      if (isa<ScalarOp>(op))
        continue;
      std::optional<unsigned> joined = tryJoin(&op);
      unsigned id = joined ? *joined : open(&op);
      groupOf[&op] = id;
      Group &group = groups[id];
      ++group.size;
      group.hasReduction |= isa<ReductionOp>(op);
      op.setAttr(kGroupAttr,
                 IntegerAttr::get(IntegerType::get(op.getContext(), 64), id));
    }
  }

private:
  /// The group that produced `value`, or none for inputs and scalars.
  std::optional<unsigned> producerGroup(Value value) {
    Operation *def = value.getDefiningOp();
    if (!def || isa<ScalarOp>(def))
      return std::nullopt;
    return groupOf.lookup(def);
  }

  unsigned open(Operation *op) {
    GroupKind kind = GroupKind::Single;
    if (isa<MatmulOp, ConvFpropOp, ConvDgradOp, ConvWgradOp>(op))
      kind = GroupKind::MatmulOrConv;
    else if (isa<PointwiseOp>(op))
      kind = GroupKind::Pointwise;
    groups.push_back(Group{kind});
    return groups.size() - 1;
  }

  /// A pointwise op or a reduction joins the group of its first grouped
  /// operand when that keeps every edge pointing from a lower group id to a
  /// higher one (or inside the group): the ids then are a schedule.
  std::optional<unsigned> tryJoin(Operation *op) {
    if (!isa<PointwiseOp, ReductionOp>(op))
      return std::nullopt;
    std::optional<unsigned> target;
    for (Value operand : op->getOperands())
      if ((target = producerGroup(operand)))
        break;
    if (!target)
      return std::nullopt;
    Group &group = groups[*target];
    if (group.kind == GroupKind::Single || group.hasReduction ||
        group.size >= maxOps)
      return std::nullopt;
    for (Value operand : op->getOperands()) {
      std::optional<unsigned> from = producerGroup(operand);
      if (from && *from > *target)
        return std::nullopt;
    }
    return target;
  }

  unsigned maxOps;
  llvm::DenseMap<Operation *, unsigned> groupOf;
  SmallVector<Group> groups;
};

struct GraphFuse : public mlir::graph::impl::GraphFuseBase<GraphFuse> {
  using GraphFuseBase::GraphFuseBase;
  void runOnOperation() override {
    getOperation().walk([&](GraphOp graph) {
      Partitioner(std::max(1u, unsigned(maxGroupOps))).run(graph);
    });
  }
};

} // namespace
