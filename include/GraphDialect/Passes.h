//===- Passes.h - Passes of the graph dialect --------------------*- C++ -*-===//

#ifndef GRAPHDIALECT_PASSES_H
#define GRAPHDIALECT_PASSES_H

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::graph {

#define GEN_PASS_DECL
#include "GraphDialect/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "GraphDialect/Passes.h.inc"

/// Options of the `graph-prepare` pipeline.
struct PreparePipelineOptions
    : public PassPipelineOptions<PreparePipelineOptions> {
  Option<bool> canonicalize{*this, "canonicalize",
                            llvm::cl::desc("Run the canonicalizer"),
                            llvm::cl::init(true)};
};

/// verify -> assign uids -> infer layout -> canonicalize.
void buildPreparePipeline(OpPassManager &pm,
                          const PreparePipelineOptions &options);

class GraphOp;

/// Binds every dynamic dim of `graph` from `inputShapes` (one per input, in
/// argument order) as graph-specialize-shapes does, then verifies the graph.
/// Emits the error (naming the input or op and the rule) and fails when a
/// shape contradicts the graph.
LogicalResult specializeShapes(GraphOp graph,
                               ArrayRef<SmallVector<int64_t>> inputShapes);

/// Registers every pass and named pipeline of the project.
void registerGraphPipelines();

} // namespace mlir::graph

#endif // GRAPHDIALECT_PASSES_H
