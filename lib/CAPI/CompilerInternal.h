//===- CompilerInternal.h - Private state of the C++ API --------*- C++ -*-===//
//
// The Impl structs of graph::Compiler and graph::CompiledGraph and the
// helpers that Compiler.cpp, CompilerLowering.cpp, CompilerExecute.cpp and
// CompilerPlans.cpp share. Not installed, not part of the API.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_LIB_CAPI_COMPILERINTERNAL_H
#define GRAPHDIALECT_LIB_CAPI_COMPILERINTERNAL_H

#include "GraphDialect/Compiler.h"

#include "GraphDialect/Executable/ExecDialect.h"
#include "GraphDialect/Executable/ExecOps.h"
#include "GraphDialect/GraphDialect.h"
#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Support/DType.h"
#ifdef GRAPH_HAVE_GPU_RUNTIME
#include "GraphDialect/Engine/GpuSession.h"
#endif

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace graph {

struct Compiler::Impl {
  mlir::MLIRContext context;
  // Serializes every call that uses the context: diagnostics handlers are
  // per context, and so is the IR the calls read and rewrite.
  std::mutex mutex;

  Impl() : context(makeRegistry()) {
    context.loadAllAvailableDialects();
    // Verifier and pass diagnostics should not print op dumps or stack
    // traces into the returned text.
    context.printOpOnDiagnostic(false);
    context.printStackTraceOnDiagnostic(false);
  }

  static mlir::DialectRegistry makeRegistry() {
    mlir::DialectRegistry registry;
    registry.insert<mlir::graph::GraphDialect, mlir::exec::ExecDialect>();
    return registry;
  }
};

struct CompiledGraph::Impl {
  std::shared_ptr<Compiler::Impl> compiler;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::string selected;
  // The module holds exec.program ops (a compiled artifact), not graphs:
  // `selected` names a program, which runs on the GPU only.
  bool artifact = false;
#ifdef GRAPH_HAVE_GPU_RUNTIME
  /// The GPU programs, variant pack, plan list and plan options of the
  /// selected graph (the engine layer's session).
  mlir::graph::GpuSession gpu;
#endif
  // The text the module was parsed from (empty for bytecode) and its buffer
  // name, so diagnostics can quote the source line.
  std::string sourceName;
  std::string sourceText;

  mlir::graph::GraphOp graph() {
    if (artifact)
      return nullptr;
    for (mlir::graph::GraphOp g : module->getOps<mlir::graph::GraphOp>())
      if (g.getSymName() == llvm::StringRef(selected))
        return g;
    return nullptr;
  }

  mlir::exec::ProgramOp program() {
    if (!artifact)
      return nullptr;
    for (mlir::exec::ProgramOp p : module->getOps<mlir::exec::ProgramOp>())
      if (p.getSymName() == llvm::StringRef(selected))
        return p;
    return nullptr;
  }

  /// The names of the module's graphs, or of its programs for an artifact.
  std::vector<std::string> names() {
    std::vector<std::string> result;
    if (artifact) {
      for (mlir::exec::ProgramOp p : module->getOps<mlir::exec::ProgramOp>())
        result.push_back(p.getSymName().str());
    } else {
      for (mlir::graph::GraphOp g : module->getOps<mlir::graph::GraphOp>())
        result.push_back(g.getSymName().str());
    }
    return result;
  }
};

namespace capi {

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

/// While alive, prints every diagnostic emitted on `context` into a string
/// with MLIR's SourceMgrDiagnosticHandler: `file:line:col: error: message`,
/// then the quoted source line and a caret when the location points into
/// `sourceText` (the buffer `sourceName`), then the notes. A location in any
/// other file is printed as it is, never read from disk.
class DiagnosticText {
public:
  explicit DiagnosticText(mlir::MLIRContext *context,
                          llvm::StringRef sourceName = {},
                          llvm::StringRef sourceText = {});

  /// The printed diagnostics without the last newline, or `fallback` when
  /// none was emitted.
  std::string take(std::string fallback);

private:
  std::string text;
  llvm::raw_string_ostream os{text};
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler;
};

//===----------------------------------------------------------------------===//
// Tensor descriptions
//===----------------------------------------------------------------------===//

/// INVALID_ARGUMENT: `call` on a CompiledGraph that holds no module.
Status emptyGraph(const char *call);

bool toGraphDType(mlir::Type type, GraphDType &out);
bool toRefDType(GraphDType dtype, DType &out);
/// The dtype's name, or `<dtype N>` for an unknown one.
std::string dtypeText(GraphDType dtype);
/// `input 0 (uid 1 "x")`: how every message names a tensor.
std::string who(const char *kind, size_t index, const TensorDesc &desc);

/// The inputs or outputs of a graph.graph, from its types and arg/result
/// attributes.
Status describeInputs(mlir::graph::GraphOp graph, std::vector<TensorDesc> &out);
Status describeOutputs(mlir::graph::GraphOp graph,
                       std::vector<TensorDesc> &out);
/// The inputs or outputs of an exec.program, from its #exec.tensor attrs.
Status describeProgram(mlir::exec::ProgramOp program, bool inputs,
                       std::vector<TensorDesc> &out);

#ifdef GRAPH_HAVE_GPU_RUNTIME
//===----------------------------------------------------------------------===//
// GPU session
//===----------------------------------------------------------------------===//

/// How the session lowers a graph: a clone of the module through the GPU
/// pipeline, and the selected graph in it.
using LowerFn = std::function<mlir::graph::SessionStatus(
    mlir::OwningOpRef<mlir::ModuleOp> &, mlir::graph::GraphOp &)>;

/// The Status of a session call.
Status fromSession(mlir::graph::SessionStatus status);

/// Runs the GPU pipeline (graph-prepare, graph-fuse, graph-select-engines)
/// on a clone of the module and finds the selected graph in it.
mlir::graph::SessionStatus lowerForGpu(CompiledGraph::Impl &impl,
                                       mlir::OwningOpRef<mlir::ModuleOp> &clone,
                                       mlir::graph::GraphOp &graph);

/// What the session builds the selected graph or program from. `lower`
/// must outlive the source's use.
mlir::graph::SessionSource sessionSource(CompiledGraph::Impl &impl,
                                         const LowerFn &lower);
#endif

} // namespace capi
} // namespace graph

#endif // GRAPHDIALECT_LIB_CAPI_COMPILERINTERNAL_H
