//===- graph-opt.cpp - mlir-opt for the graph dialect ---------------------===//
//
// Parses, verifies and transforms graph-dialect IR with the usual mlir-opt
// flags plus the project's passes and named pipelines. The input is checked
// for excessive bracket nesting before the parser sees it (see
// GraphDialect/Support/NestingDepth.h), and bytecode input for excessive
// IR nesting (GraphDialect/BytecodeNesting.h).
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/BytecodeNesting.h"
#include "GraphDialect/Executable/ExecDialect.h"
#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Passes.h"
#include "GraphDialect/Support/NestingDepth.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#ifdef GRAPH_HAVE_EXECUTABLE_LOWERING
#include "GraphDialect/Conversion/Passes.h"
#endif
#ifdef GRAPH_HAVE_CODEGEN
#include "GraphDialect/Conversion/GraphToCodegen.h"
#endif

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
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
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "Graph dialect optimizer driver\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  // --show-dialects and --list-passes read no input.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(mlir::MlirOptMain(
        argc, argv, inputFilename, outputFilename, registry));

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  if (std::optional<graph::ExcessiveNesting> deep =
          graph::findExcessiveNesting(file->getBuffer())) {
    llvm::errs() << inputFilename << ":" << deep->line << ":" << deep->column
                 << ": error: " << deep->message() << "\n";
    return 1;
  }
  if (mlir::isBytecode(file->getMemBufferRef())) {
    mlir::MLIRContext probe(registry);
    probe.allowUnregisteredDialects(config.shouldAllowUnregisteredDialects());
    if (std::optional<std::string> deep = graph::findExcessiveBytecodeNesting(
            file->getMemBufferRef(), &probe)) {
      llvm::errs() << inputFilename << ": error: " << *deep << "\n";
      return 1;
    }
  }
  // A pass that emits an error but does not fail (MLIR's NVVM target on a
  // missing CUDA_ROOT, with ptxas still found on PATH) must not exit 0:
  // record every error diagnostic and fail on one. -verify-diagnostics
  // checks the errors itself.
  static bool sawError = false;
  if (!config.shouldVerifyDiagnostics()) {
    mlir::MlirOptMainConfig base = config;
    config.setPassPipelineSetupFn([base](mlir::PassManager &pm) {
      pm.getContext()->getDiagEngine().registerHandler(
          [](mlir::Diagnostic &diag) {
            if (diag.getSeverity() == mlir::DiagnosticSeverity::Error)
              sawError = true;
            return mlir::failure(); // still printed by the usual handler
          });
      return base.setupPassPipeline(pm);
    });
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  if (mlir::failed(mlir::MlirOptMain(output->os(), std::move(file), registry,
                                     config)) ||
      sawError)
    return 1;
  output->keep();
  return 0;
}
