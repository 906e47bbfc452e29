//===- AssignUids.cpp - Deterministic uids for graph tensors -------------===//

#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::graph {
#define GEN_PASS_DEF_GRAPHASSIGNUIDS
#include "GraphDialect/Passes.h.inc"
} // namespace mlir::graph

using namespace mlir;
using namespace mlir::graph;

namespace {

/// Hands out the smallest positive uid nobody reserved (0 is a valid uid a
/// user may give, but never handed out, so graphs keep their 1-based uids).
class UidAllocator {
public:
  void reserve(int64_t uid) { taken.insert(uid); }
  int64_t next() {
    while (taken.contains(cursor))
      ++cursor;
    taken.insert(cursor);
    return cursor++;
  }

private:
  llvm::DenseSet<int64_t> taken;
  int64_t cursor = 1;
};

void assignUids(GraphOp graph) {
  MLIRContext *ctx = graph.getContext();
  auto uidAttr = [&](int64_t uid) {
    return IntegerAttr::get(IntegerType::get(ctx, 64), uid);
  };
  OutputOp output = graph.getOutputOp();
  Block &body = graph.getBody().front();

  // Reserve every uid the user gave before handing out any.
  UidAllocator uids;
  llvm::DenseMap<Value, int64_t> uidOfValue;
  for (unsigned i = 0, e = graph.getNumArguments(); i < e; ++i)
    if (std::optional<int64_t> uid = graph.getInputUid(i)) {
      uids.reserve(*uid);
      uidOfValue.try_emplace(body.getArgument(i), *uid);
    }
  graph.walk([&](ScalarOp scalar) {
    if (auto uid = scalar.getUid()) {
      uids.reserve(*uid);
      uidOfValue.try_emplace(scalar.getOutput(), *uid);
    }
  });
  for (unsigned i = 0, e = graph.getNumResults(); i < e; ++i)
    if (std::optional<int64_t> uid = graph.getOutputUid(i)) {
      uids.reserve(*uid);
      uidOfValue.try_emplace(output.getOperand(i), *uid);
    }

  // Then fill the gaps in program order: inputs, scalars, outputs. The
  // argument and result attributes are rebuilt once: setArgAttr and
  // setResultAttr copy the whole attribute array on each call, which is
  // quadratic in the number of inputs.
  auto withUid = [&](DictionaryAttr attrs, int64_t uid) {
    NamedAttrList list(attrs);
    list.set(GraphDialect::kUidAttrName, uidAttr(uid));
    return list.getDictionary(ctx);
  };
  SmallVector<DictionaryAttr> argAttrs;
  graph.getAllArgAttrs(argAttrs);
  bool argsChanged = false;
  // A tensor the user named through one of its roles (an input or a scalar
  // that is also an output with a uid) keeps that uid in every role.
  auto uidFor = [&](Value value) {
    auto it = uidOfValue.find(value);
    return it != uidOfValue.end() ? it->second : uids.next();
  };
  for (unsigned i = 0, e = graph.getNumArguments(); i < e; ++i) {
    if (graph.getInputUid(i))
      continue;
    int64_t uid = uidFor(body.getArgument(i));
    argAttrs[i] = withUid(argAttrs[i], uid);
    argsChanged = true;
    uidOfValue.try_emplace(body.getArgument(i), uid);
  }
  if (argsChanged)
    graph.setAllArgAttrs(argAttrs);
  graph.walk([&](ScalarOp scalar) {
    if (scalar.getUid())
      return;
    int64_t uid = uidFor(scalar.getOutput());
    scalar.setUid(uid);
    uidOfValue.try_emplace(scalar.getOutput(), uid);
  });
  SmallVector<DictionaryAttr> resultAttrs;
  graph.getAllResultAttrs(resultAttrs);
  bool resultsChanged = false;
  for (unsigned i = 0, e = graph.getNumResults(); i < e; ++i) {
    if (graph.getOutputUid(i))
      continue;
    // An output that is already a uid-carrying tensor keeps that uid.
    Value value = output.getOperand(i);
    auto it = uidOfValue.find(value);
    int64_t uid = it != uidOfValue.end() ? it->second : uids.next();
    uidOfValue.try_emplace(value, uid);
    resultAttrs[i] = withUid(resultAttrs[i], uid);
    resultsChanged = true;
  }
  if (resultsChanged)
    graph.setAllResultAttrs(resultAttrs);
}

struct GraphAssignUids
    : public mlir::graph::impl::GraphAssignUidsBase<GraphAssignUids> {
  void runOnOperation() override {
    getOperation().walk([](GraphOp graph) { assignUids(graph); });
  }
};

} // namespace
