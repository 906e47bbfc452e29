//===- Fuse.cpp - Partition graphs into fused groups ----------------------===//

#include "GraphDialect/Engines/Engine.h"
#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Groups.h"
#include "GraphDialect/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::graph {
#define GEN_PASS_DEF_GRAPHFUSE
#include "GraphDialect/Passes.h.inc"
} // namespace mlir::graph

using namespace mlir;
using namespace mlir::graph;

namespace {

/// What a group is anchored on decides what may join it.
enum class GroupKind { MatmulOrConv, Pointwise, Row, Single };

/// Memory-bound ops over rows: what the generated kernels fuse into one
/// pass over the data (reductions, norms and their pointwise neighbours).
bool isRowOp(Operation *op) {
  return isa<ReductionOp, LayernormOp, RmsnormOp, InstancenormOp,
             AdaLayernormOp, LayernormBackwardOp, RmsnormBackwardOp,
             InstancenormBackwardOp, AdaLayernormBackwardOp,
             BatchnormInferenceOp>(op);
}

struct Group {
  GroupKind kind;
  /// The dims of the op that opened the group.
  SmallVector<int64_t> shape;
  unsigned size = 0;
  bool hasReduction = false;
  bool hasNorm = false;
};

class Partitioner {
public:
  Partitioner(unsigned maxOps, bool rowFusion)
      : maxOps(maxOps), rowFusion(rowFusion) {}

  void run(GraphOp graph) {
    // A graph fused before is partitioned again, from its ops in schedule
    // order.
    for (GroupOp group : getGroups(graph))
      inlineGroup(group);
    SmallVector<SmallVector<Operation *>> members;
    for (Operation &op : graph.getBody().front().without_terminator()) {
      if (isa<ScalarOp>(op))
        continue;
      std::optional<unsigned> joined = tryJoin(&op);
      unsigned id = joined ? *joined : open(&op);
      if (!joined)
        absorbProducers(&op, id, members);
      groupOf[&op] = id;
      Group &group = groups[id];
      ++group.size;
      group.hasReduction |= isa<ReductionOp>(op);
      group.hasNorm |= isRowOp(&op) && !isa<ReductionOp>(op);
      members.resize(groups.size());
      members[id].push_back(&op);
      for (Value operand : op.getOperands())
        if (!producerGroup(operand))
          readers[operand].push_back(id);
    }
    splitWideEpilogues(members);
    sinkInputOnlyPointwise(members);
    mergeInputOnlyGroups(members);
    // Each group becomes a graph.group, in id order after the graph's
    // scalars: the ids are a schedule, so every group reads only inputs,
    // scalars and earlier groups.
    OpBuilder builder(graph.getOutputOp());
    unsigned next = 0;
    for (SmallVector<Operation *> &ops : members)
      if (!ops.empty())
        outlineGroup(builder, ops, next++);
  }

private:
  /// A matmul whose epilogue writes two or more results of the matmul's
  /// size that leave the group (an activation's backward giving two
  /// gradients; a row sum does not count) keeps its
  /// matmul alone: its epilogue becomes the next group, reading the
  /// matmul's result from memory. cuDNN's runtime-fusion engines run such
  /// groups far below the matmul's rate (measured on an H100 with cuDNN
  /// 9.19: Llama's down-projection dgrad with the SwiGLU backward, two
  /// bf16 gradients out, 0.78 ms, where a matmul of the same shape alone
  /// ran 0.26 ms),
  /// while one epilogue result stays fused as before. Later groups read
  /// only earlier ones still: the epilogue group takes the next id.
  void splitWideEpilogues(SmallVector<SmallVector<Operation *>> &members) {
    for (size_t id = 0; id < members.size(); ++id) {
      SmallVector<Operation *> &ops = members[id];
      auto anchor =
          llvm::find_if(ops, [](Operation *op) { return isa<MatmulOp>(op); });
      if (anchor == ops.end() || anchor + 1 == ops.end())
        continue;
      llvm::SmallPtrSet<Operation *, 8> inGroup(ops.begin(), ops.end());
      SmallVector<int64_t> full = resultShape(*anchor);
      unsigned leaving = 0; // results of the matmul's size (not row sums)
      for (Operation *op : llvm::make_range(anchor + 1, ops.end()))
        for (Value result : op->getResults())
          if (resultShape(op) == full &&
              llvm::any_of(result.getUsers(), [&](Operation *user) {
                return !inGroup.contains(user);
              }))
            ++leaving;
      if (leaving < 2)
        continue;
      SmallVector<Operation *> epilogue(anchor + 1, ops.end());
      ops.erase(anchor + 1, ops.end());
      members.insert(members.begin() + id + 1, std::move(epilogue));
      ++id; // the epilogue group is a pointwise group: nothing to split
    }
  }

  /// A pointwise op that reads only graph inputs (and scalars) and whose
  /// every reader sits in one other group of pointwise ops moves into that
  /// group, before its first reader there: the value is then computed where
  /// it is read instead of written to memory and read back (the Llama
  /// backward's swish(gate) recompute joined the forward's swish as a
  /// sibling and was written out as an f32 tensor for the SwiGLU backward).
  /// Only into a group that reads each of the op's inputs already: a group
  /// between the two that writes an output over one of those inputs (the
  /// frontend's in-place idiom) affects that group's reads anyway, so the
  /// move adds no new read of overwritten memory.
  void sinkInputOnlyPointwise(SmallVector<SmallVector<Operation *>> &members) {
    // Which group each op is in now (the split moved some since groupOf).
    llvm::DenseMap<Operation *, size_t> memberOf;
    for (size_t id = 0; id < members.size(); ++id)
      for (Operation *op : members[id])
        memberOf[op] = id;
    for (size_t from = 0; from < members.size(); ++from) {
      for (size_t i = 0; i < members[from].size();) {
        Operation *op = members[from][i];
        std::optional<size_t> to = sinkTarget(op, members, memberOf);
        if (!to || *to == from) {
          ++i;
          continue;
        }
        members[from].erase(members[from].begin() + i);
        SmallVector<Operation *> &target = members[*to];
        auto firstReader = llvm::find_if(target, [&](Operation *member) {
          return llvm::is_contained(member->getOperands(), op->getResult(0));
        });
        target.insert(firstReader, op);
        memberOf[op] = *to;
      }
    }
  }

  /// A group of pointwise ops that read only graph inputs and scalars (an
  /// activation recomputed for a weight gradient: the Llama backward's
  /// swish(gate) * up for down's wgrad) merges into the front of a later
  /// pointwise group that reads each of those inputs already (the SwiGLU
  /// backward): the inputs are read once and one kernel is saved. The
  /// groups between the two that depend on the merged one (the wgrad) move
  /// after the merged group; the others keep their order. Only when no
  /// group depends on such a moved group before the target (no cycle) and
  /// the groups they move past write no graph output: a moved group reads
  /// graph memory later than before, so nothing it now runs after may
  /// write memory a caller could bind to one of its inputs.
  void mergeInputOnlyGroups(SmallVector<SmallVector<Operation *>> &members) {
    for (size_t from = 0; from < members.size();)
      if (!mergeForward(members, from))
        ++from; // else the next group now sits at `from`
  }

  /// Merges group `from`, when it is input-only, into the first later group
  /// that may take it (mergeTarget), reordering as mergeInputOnlyGroups
  /// says; true when merged.
  bool mergeForward(SmallVector<SmallVector<Operation *>> &members,
                    size_t from) {
    if (!isInputOnlyPointwise(members[from]))
      return false;
    llvm::DenseMap<Operation *, size_t> memberOf;
    for (size_t id = from; id < members.size(); ++id)
      for (Operation *op : members[id])
        memberOf[op] = id;
    for (size_t to = from + 1; to < members.size(); ++to) {
      std::optional<SmallVector<size_t>> moved =
          mergeTarget(members, memberOf, from, to);
      if (!moved)
        continue;
      SmallVector<Operation *> merged = std::move(members[from]);
      merged.append(members[to].begin(), members[to].end());
      SmallVector<SmallVector<Operation *>> order;
      for (size_t id = 0; id < members.size(); ++id) {
        if (id == from || llvm::is_contained(*moved, id))
          continue;
        if (id != to) {
          order.push_back(std::move(members[id]));
          continue;
        }
        order.push_back(std::move(merged));
        for (size_t m : *moved)
          order.push_back(std::move(members[m]));
      }
      members = std::move(order);
      return true;
    }
    return false;
  }

  static bool isInputOnlyPointwise(ArrayRef<Operation *> ops) {
    if (ops.empty())
      return false;
    llvm::SmallPtrSet<Operation *, 8> inGroup(ops.begin(), ops.end());
    return llvm::all_of(ops, [&](Operation *op) {
      return isa<PointwiseOp>(op) &&
             llvm::all_of(op->getOperands(), [&](Value v) {
               Operation *def = v.getDefiningOp();
               return !def || isa<ScalarOp>(def) || inGroup.contains(def);
             });
    });
  }

  /// Whether an op of `target` other than `except` reads `value`.
  static bool readBy(ArrayRef<Operation *> target, Value value,
                     Operation *except = nullptr) {
    return llvm::any_of(target, [&](Operation *m) {
      return m != except && llvm::is_contained(m->getOperands(), value);
    });
  }

  /// The groups that move after `to` when input-only group `from` merges
  /// into it (mergeInputOnlyGroups), or none when it may not. `memberOf`
  /// gives the group of every op from `from` on.
  std::optional<SmallVector<size_t>>
  mergeTarget(ArrayRef<SmallVector<Operation *>> members,
              const llvm::DenseMap<Operation *, size_t> &memberOf, size_t from,
              size_t to) {
    ArrayRef<Operation *> source = members[from], target = members[to];
    if (target.empty() || source.size() + target.size() > maxOps ||
        !llvm::all_of(target, [](Operation *m) { return isa<PointwiseOp>(m); }))
      return std::nullopt;
    SmallVector<int64_t> shape = resultShape(target.front());
    for (Operation *op : source) {
      if (resultShape(op) != shape)
        return std::nullopt;
      for (Value input : op->getOperands())
        if (!input.getDefiningOp() && !readBy(target, input))
          return std::nullopt;
    }
    // The groups between that depend on `from`, and whether `to` does.
    auto reads = [&](size_t reader,
                     const llvm::SmallDenseSet<size_t> &written) {
      for (Operation *op : members[reader])
        for (Value v : op->getOperands())
          if (Operation *def = v.getDefiningOp())
            if (auto it = memberOf.find(def);
                it != memberOf.end() && written.contains(it->second))
              return true;
      return false;
    };
    SmallVector<size_t> moved;
    llvm::SmallDenseSet<size_t> dependsOn = {from};
    for (size_t id = from + 1; id < to; ++id)
      if (reads(id, dependsOn)) {
        moved.push_back(id);
        dependsOn.insert(id);
      }
    if (reads(to, llvm::SmallDenseSet<size_t>(moved.begin(), moved.end())))
      return std::nullopt;
    for (size_t id = moved.empty() ? to + 1 : moved.front() + 1; id <= to; ++id)
      if (!llvm::is_contained(moved, id) && writesGraphOutput(members[id]))
        return std::nullopt;
    return moved;
  }

  static bool writesGraphOutput(ArrayRef<Operation *> ops) {
    return llvm::any_of(ops, [](Operation *op) {
      return llvm::any_of(op->getUsers(),
                          [](Operation *user) { return isa<OutputOp>(user); });
    });
  }

  /// The group `op` may sink into (sinkInputOnlyPointwise), if any.
  std::optional<size_t>
  sinkTarget(Operation *op, ArrayRef<SmallVector<Operation *>> members,
             const llvm::DenseMap<Operation *, size_t> &memberOf) {
    if (!isa<PointwiseOp>(op) || op->getNumResults() != 1 ||
        llvm::any_of(op->getOperands(),
                     [&](Value v) { return producerGroup(v).has_value(); }))
      return std::nullopt;
    std::optional<size_t> to;
    for (Operation *user : op->getResult(0).getUsers()) {
      auto id = memberOf.find(user);
      if (id == memberOf.end() || (to && *to != id->second))
        return std::nullopt; // the graph's output, or two reading groups
      to = id->second;
    }
    if (!to)
      return std::nullopt;
    ArrayRef<Operation *> target = members[*to];
    if (target.size() >= maxOps ||
        !llvm::all_of(target, [](Operation *m) { return isa<PointwiseOp>(m); }))
      return std::nullopt;
    for (Value input : op->getOperands())
      if (!isa_and_nonnull<ScalarOp>(input.getDefiningOp()) &&
          !readBy(target, input, /*except=*/op))
        return std::nullopt;
    return to;
  }

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
    else if (rowFusion && isRowOp(op))
      kind = GroupKind::Row;
    groups.push_back(Group{kind, resultShape(op)});
    return groups.size() - 1;
  }

  static SmallVector<int64_t> resultShape(Operation *op) {
    if (op->getNumResults() == 0)
      return {};
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    return type ? SmallVector<int64_t>(type.getShape())
                : SmallVector<int64_t>();
  }

  /// A pointwise op that reads only graph inputs joins the latest pointwise
  /// group over the same dims that reads one of those inputs too (siblings:
  /// rope's four products of x1, x2, cos and sin). One group is one kernel
  /// or one cuDNN graph, which reads every input before it writes: an
  /// output written in place over an input (a frontend idiom) is then not
  /// read back by a later group.
  std::optional<unsigned> siblingGroup(Operation *op) {
    SmallVector<int64_t> shape = resultShape(op);
    std::optional<unsigned> best;
    for (Value operand : op->getOperands())
      for (unsigned id : readers.lookup(operand)) {
        const Group &group = groups[id];
        if (group.kind == GroupKind::Pointwise && !group.hasReduction &&
            group.size < maxOps && group.shape == shape &&
            (!best || id > *best))
          best = id;
      }
    return best;
  }

  /// The producers of `consumer`'s operands that an engine runs in the
  /// group `consumer` opens (Engine::runsFusedInto: cuDNN's Philox rng of an
  /// sdpa's dropout mask, a mixed-precision matmul's operand casts) move
  /// there, each alone in its group before, in operand order at the front.
  /// Nothing but the group reads them, so the schedule holds.
  void absorbProducers(Operation *consumer, unsigned id,
                       SmallVector<SmallVector<Operation *>> &members) {
    unsigned absorbed = 0;
    for (Value operand : consumer->getOperands())
      if (Operation *producer = operand.getDefiningOp();
          producer && anyEngineRunsFusedInto(producer, consumer))
        absorbed += absorb(producer, id, absorbed, members);
  }

  /// Moves `producer`, alone in its group, to the front (position `at`) of
  /// group `id`, which reads it; true when moved. Nothing but group `id`
  /// reads it, so the schedule holds.
  bool absorb(Operation *producer, unsigned id, unsigned at,
              SmallVector<SmallVector<Operation *>> &members) {
    std::optional<unsigned> from = producerGroup(producer->getResult(0));
    if (!from || *from == id || groups[*from].size != 1)
      return false;
    members.resize(groups.size());
    members[*from].clear();
    groups[*from].size = 0;
    groups[*from].kind = GroupKind::Single; // nothing joins it now
    groupOf[producer] = id;
    members[id].insert(members[id].begin() + at, producer);
    ++groups[id].size;
    return true;
  }

  /// Whether `op` is a pointwise op reading the results of two matmuls
  /// directly (a sum of two gradients, say), which then opens a group of its
  /// own instead of joining the second matmul's epilogue (it still joins a
  /// later memory-bound group that one of its other operands comes from):
  /// cuDNN's runtime-fusion engine ran such a matmul far below a plain matmul's
  /// rate (measured on an H100 with cuDNN 9.19: the Llama backward's gate.dgrad
  /// + up.dgrad, [8192, 5632] x [5632, 2048] each, with the rmsnorm_backward
  /// that reads the sum: 0.62 ms fused, 0.57 ms as two plain matmuls and one
  /// row-fused add + norm group).
  bool sumsTwoMatmuls(Operation *op) {
    if (!isa<PointwiseOp>(op))
      return false;
    llvm::SmallPtrSet<Operation *, 2> matmuls;
    for (Value operand : op->getOperands())
      if (auto matmul = operand.getDefiningOp<MatmulOp>())
        matmuls.insert(matmul);
    return matmuls.size() >= 2;
  }

  /// A pointwise op or a reduction joins the group of its latest grouped
  /// operand (one that reads a matmul's result joins that matmul's
  /// epilogue):
  /// every edge then points from a lower group id to a higher one (or
  /// inside the group), so the ids are a schedule.
  std::optional<unsigned> tryJoin(Operation *op) {
    bool rowJoin = rowFusion && (isa<PointwiseOp>(op) || isRowOp(op));
    if (!isa<PointwiseOp, ReductionOp, BatchnormInferenceOp>(op) && !rowJoin)
      return std::nullopt;
    std::optional<unsigned> target;
    for (Value operand : op->getOperands())
      if (std::optional<unsigned> from = producerGroup(operand))
        if (!target || *from > *target)
          target = from;
    if (!target)
      return isa<PointwiseOp>(op) ? siblingGroup(op) : std::nullopt;
    Group &group = groups[*target];
    if (group.kind == GroupKind::MatmulOrConv && sumsTwoMatmuls(op))
      return std::nullopt;
    if (group.size >= maxOps)
      return std::nullopt;
    // Row fusion: pointwise ops, reductions and norms chain on in groups
    // without a matmul or convolution (cuDNN declines such groups; the
    // generated kernels run them as one pass). Otherwise a group ends at
    // its reduction, as cuDNN's fusion engines want.
    // One norm per group keeps a forward norm and its backward (and two
    // unrelated norms) apart.
    bool memoryBound =
        (group.kind == GroupKind::Pointwise || group.kind == GroupKind::Row) &&
        !(group.hasNorm && isRowOp(op) && !isa<ReductionOp>(op));
    // Batchnorm inference is a per-channel scale and shift: an epilogue of
    // a convolution like a pointwise op (conv + bn + relu is one plan).
    bool epilogue = isa<PointwiseOp, ReductionOp>(op) ||
                    (isa<BatchnormInferenceOp>(op) &&
                     group.kind == GroupKind::MatmulOrConv);
    if (!(rowJoin && memoryBound) &&
        (group.kind == GroupKind::Single || group.kind == GroupKind::Row ||
         group.hasReduction || !epilogue))
      return std::nullopt;
    for (Value operand : op->getOperands()) {
      std::optional<unsigned> from = producerGroup(operand);
      if (from && *from > *target)
        return std::nullopt;
    }
    return target;
  }

  unsigned maxOps;
  bool rowFusion;
  llvm::DenseMap<Operation *, unsigned> groupOf;
  /// The groups that read each graph input (and scalar), in id order.
  llvm::DenseMap<Value, SmallVector<unsigned>> readers;
  SmallVector<Group> groups;
};

struct GraphFuse : public mlir::graph::impl::GraphFuseBase<GraphFuse> {
  using GraphFuseBase::GraphFuseBase;
  void runOnOperation() override {
    getOperation().walk([&](GraphOp graph) {
      Partitioner(std::max(1u, unsigned(maxGroupOps)), rowFusion).run(graph);
    });
  }
};

} // namespace
