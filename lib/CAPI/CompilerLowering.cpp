//===- CompilerLowering.cpp - Pipelines of the C++ API ----------*- C++ -*-===//
//
// The pass pipelines a CompiledGraph runs on clones of its module:
// graph-prepare (CompiledGraph::prepare), the GPU pipeline and
// graph-lower-to-executable (CompiledGraph::lowerToExecutable), and the GPU
// pipeline the engine layer's session lowers the selected graph with. Each
// returns the diagnostics of a failing pipeline in its status.
//
//===----------------------------------------------------------------------===//

#include "CompilerInternal.h"

#ifdef GRAPH_HAVE_GPU_RUNTIME
#include "GraphDialect/Conversion/GraphToCudnn.h"
#include "GraphDialect/Conversion/Passes.h"
#endif
#include "GraphDialect/Passes.h"

#include "mlir/Pass/PassManager.h"

using namespace mlir;
using ::graph::CompiledGraph;
using ::graph::Status;
using ::graph::capi::DiagnosticText;
using ::graph::capi::emptyGraph;
using mlir::graph::GraphOp;
namespace capi = ::graph::capi;

Status CompiledGraph::prepare() {
  if (!impl)
    return emptyGraph("prepare");
  std::lock_guard<std::mutex> lock(impl->compiler->mutex);
  // An artifact was prepared before it was compiled: nothing to do.
  if (impl->artifact)
    return Status();
  MLIRContext *context = &impl->compiler->context;
  // Work on a clone so a failing pipeline leaves the module as it was.
  OwningOpRef<ModuleOp> clone = impl->module->clone();
  DiagnosticText diagnostics(context, impl->sourceName, impl->sourceText);
  PassManager pm(context, ModuleOp::getOperationName());
  mlir::graph::buildPreparePipeline(pm, mlir::graph::PreparePipelineOptions());
  if (failed(pm.run(*clone)))
    return Status(GRAPH_ERROR_INVALID_GRAPH,
                  diagnostics.take("the graph-prepare pipeline failed"));
  impl->module = std::move(clone);
  if (!impl->graph()) {
    auto graphs = impl->module->getOps<GraphOp>();
    if (graphs.empty())
      return Status(GRAPH_ERROR_INVALID_GRAPH,
                    "graph-prepare left no graph.graph in the module");
    impl->selected = (*graphs.begin()).getSymName().str();
  }
  return Status();
}

Status CompiledGraph::lowerToExecutable(CompiledGraph &out) const {
  const char *call = "graphModuleLowerToExecutable";
  if (!impl)
    return emptyGraph(call);
  if (impl->artifact)
    return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                  std::string(call) +
                      ": the module already is a compiled artifact "
                      "(exec.program @" +
                      impl->selected + ")");
#ifndef GRAPH_HAVE_GPU_RUNTIME
  return Status(GRAPH_ERROR_NOT_SUPPORTED,
                std::string(call) +
                    ": the GPU lowering is not linked into this build");
#else
  CompiledGraph lowered; // destroyed after the lock is released
  std::unique_lock<std::mutex> lock(impl->compiler->mutex);
  MLIRContext *context = &impl->compiler->context;
  OwningOpRef<ModuleOp> clone = impl->module->clone();
  DiagnosticText diagnostics(context, impl->sourceName, impl->sourceText);
  PassManager pm(context, ModuleOp::getOperationName());
  mlir::graph::buildGpuPipeline(pm);
  pm.addPass(mlir::graph::createGraphLowerToExecutable());
  if (failed(pm.run(*clone)))
    return Status(GRAPH_ERROR_NOT_SUPPORTED,
                  diagnostics.take(std::string(call) +
                                   ": the GPU pipeline or the lowering to "
                                   "exec.program failed"));
  auto programs = clone->getOps<mlir::exec::ProgramOp>();
  if (programs.empty() || !clone->getOps<GraphOp>().empty())
    return Status(GRAPH_ERROR_EXECUTION,
                  std::string(call) +
                      ": the lowering left graph.graph ops or no "
                      "exec.program in the module");
  auto result = std::make_unique<Impl>();
  result->compiler = impl->compiler;
  result->module = std::move(clone);
  result->artifact = true;
  result->sourceName = impl->sourceName;
  result->selected = (*programs.begin()).getSymName().str();
  for (mlir::exec::ProgramOp p : programs)
    if (p.getSymName() == llvm::StringRef(impl->selected))
      result->selected = impl->selected;
  lowered.impl = std::move(result);
  // `out`'s old module (swapped into `lowered`) is destroyed after `lock`
  // is released: its destructor takes the context's lock.
  std::swap(out.impl, lowered.impl);
  return Status();
#endif
}

#ifdef GRAPH_HAVE_GPU_RUNTIME
using mlir::graph::SessionStatus;

SessionStatus capi::lowerForGpu(CompiledGraph::Impl &impl,
                                OwningOpRef<ModuleOp> &clone, GraphOp &graph) {
  using Code = SessionStatus::Code;
  std::string graphName = "graph @" + impl.selected;
  MLIRContext *context = &impl.compiler->context;
  clone = impl.module->clone();
  DiagnosticText diagnostics(context, impl.sourceName, impl.sourceText);
  PassManager pm(context, ModuleOp::getOperationName());
  mlir::graph::buildGpuPipeline(pm);
  if (failed(pm.run(*clone)))
    return {Code::NotSupported,
            diagnostics.take(graphName + ": no GPU engine runs it")};
  graph = nullptr;
  for (GraphOp g : clone->getOps<GraphOp>())
    if (g.getSymName() == llvm::StringRef(impl.selected))
      graph = g;
  if (!graph)
    return {Code::Execution, graphName + ": lost in lowering"};
  return {};
}

mlir::graph::SessionSource capi::sessionSource(CompiledGraph::Impl &impl,
                                               const capi::LowerFn &lower) {
  mlir::graph::SessionSource source;
  source.name = impl.selected;
  source.artifact = impl.artifact;
  source.graph = impl.graph();
  source.program = impl.program();
  source.lower = lower;
  return source;
}
#endif
