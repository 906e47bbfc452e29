//===- graph-fuzz.cpp - libFuzzer target for the graph dialect ------------===//
//
// Feeds arbitrary bytes to the MLIR parser with the graph dialect
// registered. Inputs that parse are verified, run through the
// `graph-prepare` pipeline and printed; with the codegen engine in the build,
// prepared graphs also run graph-fuse, graph-select-engines (codegen) and
// graph-generate-kernels. Diagnostics are swallowed: rejecting
// an input is the expected outcome; only a crash, a sanitizer report, a
// timeout or a memory blow-up is a finding.
//
// Built with -DGRAPH_ENABLE_FUZZER=ON and clang (see scripts/test.sh).
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Passes.h"
#ifdef GRAPH_FUZZ_CODEGEN
#include "GraphDialect/Conversion/GraphToCodegen.h"
#include "mlir/Pass/PassRegistry.h"
#endif

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace mlir;

// Our code is built with AddressSanitizer, the packaged LLVM/MLIR libraries
// are not. LLVM's allocators (BumpPtrAllocator) poison and unpoison memory by
// hand when they see ASan, so an inline copy compiled into an instrumented
// object and one from an uninstrumented library disagree about what is
// poisoned: false "use-after-poison" reports inside MLIRContext. Manual
// poisoning is therefore turned off; real heap errors are still caught.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

#ifdef GRAPH_FUZZ_CODEGEN
extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  mlir::graph::registerGraphPipelines();
  mlir::graph::registerCodegenPasses();
  return 0;
}
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // The MLIR lexer relies on a NUL after the buffer, which the fuzzer's
  // buffer does not have: copy into a std::string, which does.
  std::string source(reinterpret_cast<const char *>(data), size);

  // A fresh context per input keeps runs independent of each other (no
  // uniqued attributes or types piling up across inputs).
  DialectRegistry registry;
  registry.insert<mlir::graph::GraphDialect>();
#ifdef GRAPH_FUZZ_CODEGEN
  mlir::graph::registerCodegenDialects(registry);
#endif
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  ScopedDiagnosticHandler swallow(&context,
                                  [](Diagnostic &) { return success(); });

  ParserConfig config(&context, /*verifyAfterParse=*/false);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, config, "fuzz-input");
  if (!module)
    return 0;
  if (failed(verify(*module)))
    return 0;

  PassManager pm(&context);
  mlir::graph::PreparePipelineOptions options;
  mlir::graph::buildPreparePipeline(pm, options);
  if (failed(pm.run(*module)))
    return 0;

#ifdef GRAPH_FUZZ_CODEGEN
  // Prepared graphs also go through fusion, engine selection and the kernel
  // generator (codegen only: no cuDNN, no GPU, no PTX), whose planner and
  // emitter must turn down what they cannot lower with a diagnostic.
  {
    OwningOpRef<ModuleOp> copy = module->clone();
    PassManager codegen(&context);
    if (succeeded(parsePassPipeline(
            "builtin.module(graph-fuse,graph-select-engines{engines=codegen},"
            "graph-generate-kernels)",
            codegen)))
      (void)codegen.run(*copy);
  }
#endif

  // Print the result too: the printer runs on IR the passes produced.
  std::string printed;
  llvm::raw_string_ostream os(printed);
  module->print(os);
  return 0;
}
