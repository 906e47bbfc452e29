//===- OpKindsTest.cpp - #exec.op kinds match the graph dialect's ops -----===//
//
// The exec dialect checks an #exec.op's kind against the MLIR-free list of
// GraphDialect/Executable/OpKinds.h, derived from the GRAPH_NODE_OP_KIND
// lines scripts/gen_builder_ports.py generates from GraphOps.td. This checks
// that list equals the graph dialect's registered node ops (the generator's
// split of node ops from the container, terminator, scalar and group ops),
// rather than finding out as a verifier error on a valid artifact.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Executable/OpKinds.h"
#include "GraphDialect/GraphOps.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace {

TEST(ExecOpKinds, EqualTheGraphDialectsNodeOps) {
  mlir::MLIRContext context;
  context.loadDialect<mlir::graph::GraphDialect>();
  std::set<std::string> registered;
  for (mlir::RegisteredOperationName name :
       context.getRegisteredOperationsByDialect("graph")) {
    llvm::StringRef kind = name.stripDialect();
    if (kind == "graph" || kind == "output" || kind == "scalar" ||
        kind == "group" || kind == "yield")
      continue; // the container, its terminator, by-value scalars and the
                // fused-group region op with its terminator
    registered.insert(kind.str());
  }
  std::set<std::string> listed;
  for (std::string_view kind : mlir::exec::kGraphOpKinds)
    listed.insert(std::string(kind));
  for (const std::string &kind : registered)
    EXPECT_TRUE(listed.count(kind))
        << "graph." << kind << " is missing from kGraphOpKinds";
  for (const std::string &kind : listed)
    EXPECT_TRUE(registered.count(kind))
        << kind << " in kGraphOpKinds is no graph-dialect op";
  EXPECT_TRUE(mlir::exec::isGraphOpKind("matmul"));
  EXPECT_FALSE(mlir::exec::isGraphOpKind("relu"));
  EXPECT_FALSE(mlir::exec::isGraphOpKind(""));
}

} // namespace
