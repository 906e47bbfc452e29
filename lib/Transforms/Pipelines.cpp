//===- Pipelines.cpp - Named pass pipelines -------------------------------===//

#include "GraphDialect/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::graph::buildPreparePipeline(OpPassManager &pm,
                                       const PreparePipelineOptions &options) {
  pm.addPass(createGraphAssignUids());
  pm.addPass(createGraphInferLayout());
  if (options.canonicalize)
    pm.addPass(createCanonicalizerPass());
}

void mlir::graph::registerGraphPipelines() {
  registerGraphPasses();
  PassPipelineRegistration<PreparePipelineOptions>(
      "graph-prepare",
      "Verify, assign uids, infer layouts and canonicalize a graph",
      buildPreparePipeline);
}
