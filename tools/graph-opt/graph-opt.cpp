//===- graph-opt.cpp - mlir-opt for the graph dialect ---------------------===//
//
// Parses, verifies and transforms graph-dialect IR with the usual mlir-opt
// flags plus the project's passes and named pipelines.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Executable/ExecDialect.h"
#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#ifdef GRAPH_HAVE_EXECUTABLE_LOWERING
#include "GraphDialect/Conversion/Passes.h"
#endif
#ifdef GRAPH_HAVE_CODEGEN
#include "GraphDialect/Conversion/GraphToCodegen.h"
#endif

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  mlir::graph::registerGraphPipelines();
#ifdef GRAPH_HAVE_EXECUTABLE_LOWERING
  mlir::graph::registerGraphConversionPasses();
#endif
#ifdef GRAPH_HAVE_CODEGEN
  mlir::graph::registerCodegenPasses();
#endif

  mlir::DialectRegistry registry;
  registry.insert<mlir::graph::GraphDialect, mlir::exec::ExecDialect,
                  mlir::func::FuncDialect>();
#ifdef GRAPH_HAVE_CODEGEN
  mlir::graph::registerCodegenDialects(registry);
#endif
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Graph dialect optimizer driver\n", registry));
}
