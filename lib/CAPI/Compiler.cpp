//===- Compiler.cpp - C++ embedding API of the graph compiler ---*- C++ -*-===//
//
// graph::Compiler owns an MLIR context; graph::CompiledGraph owns a parsed
// module. This file parses modules, captures the diagnostics of every call
// into the Status it returns, describes a module's tensors, and selects,
// prints and serializes. The lowering (prepare, lowerToExecutable) is in
// CompilerLowering.cpp, execution in CompilerExecute.cpp and the GPU plan
// list in CompilerPlans.cpp.
//
//===----------------------------------------------------------------------===//

#include "CompilerInternal.h"

#include "GraphDialect/BytecodeNesting.h"
#include "GraphDialect/Reference/Executor.h"
#ifdef GRAPH_HAVE_GPU_RUNTIME
#include "GraphDialect/Runtime/Device.h"
#endif
#include "GraphDialect/Support/NestingDepth.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/VirtualFileSystem.h"

using namespace mlir;
using ::graph::CompiledGraph;
using ::graph::Compiler;
using ::graph::Status;
using ::graph::TensorDesc;
using ::graph::capi::describeInputs;
using ::graph::capi::describeOutputs;
using ::graph::capi::describeProgram;
using ::graph::capi::DiagnosticText;
using ::graph::capi::emptyGraph;
using ::graph::capi::toGraphDType;
using ::graph::capi::who;
using mlir::graph::GraphDialect;
using mlir::graph::GraphOp;
using mlir::graph::OutputOp;
namespace capi = ::graph::capi;
namespace ref = ::graph::ref;

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

DiagnosticText::DiagnosticText(MLIRContext *context, llvm::StringRef sourceName,
                               llvm::StringRef sourceText)
    : handler(sourceMgr, context, os) {
  // An empty file system: a location in another file than the source is
  // printed without its line, which the handler would otherwise read from
  // disk.
  sourceMgr.setVirtualFileSystem(
      llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>());
  if (!sourceText.empty())
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(sourceText, sourceName,
                                         /*RequiresNullTerminator=*/false),
        llvm::SMLoc());
}

std::string DiagnosticText::take(std::string fallback) {
  if (text.empty())
    return fallback;
  if (text.back() == '\n')
    text.pop_back();
  return std::move(text);
}

//===----------------------------------------------------------------------===//
// Tensor descriptions
//===----------------------------------------------------------------------===//

Status capi::emptyGraph(const char *call) {
  return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                std::string(call) + ": the CompiledGraph holds no module "
                                    "(parse one first)");
}

bool capi::toGraphDType(Type type, GraphDType &out) {
  ::graph::DType dtype;
  if (!ref::toDType(type, dtype))
    return false;
  out = static_cast<GraphDType>(dtype); // the same numbering (Graph.cpp)
  return true;
}

bool capi::toRefDType(GraphDType dtype, ::graph::DType &out) {
  return ::graph::dtypeFromInt(dtype, out);
}

std::string capi::dtypeText(GraphDType dtype) {
  const char *name = graphDTypeName(dtype);
  return name ? name
              : "<dtype " + std::to_string(static_cast<int>(dtype)) + ">";
}

std::string capi::who(const char *kind, size_t index, const TensorDesc &desc) {
  std::string text = std::string(kind) + " " + std::to_string(index) + " (";
  text += desc.uid ? "uid " + std::to_string(*desc.uid) : "no uid";
  if (!desc.name.empty())
    text += " \"" + desc.name + "\"";
  return text + ")";
}

/// The description of one graph input or output.
static Status describe(Value value, DictionaryAttr attrs, const char *kind,
                       size_t index, TensorDesc &desc) {
  auto type = cast<RankedTensorType>(value.getType());
  desc = TensorDesc();
  if (attrs) {
    if (auto uid = attrs.getAs<IntegerAttr>(GraphDialect::kUidAttrName))
      desc.uid = uid.getInt();
    if (auto name = attrs.getAs<StringAttr>(GraphDialect::kNameAttrName))
      desc.name = name.getValue().str();
  }
  for (int64_t d : type.getShape())
    desc.dims.push_back(ShapedType::isDynamic(d) ? -1 : d);
  ArrayRef<int64_t> strides = mlir::graph::getStrides(type);
  desc.strides.assign(strides.begin(), strides.end());
  if (!toGraphDType(type.getElementType(), desc.dtype)) {
    std::string typeText;
    llvm::raw_string_ostream(typeText) << type.getElementType();
    return Status(GRAPH_ERROR_NOT_SUPPORTED, who(kind, index, desc) +
                                                 ": element type " + typeText +
                                                 " has no GraphDType");
  }
  return Status();
}

Status capi::describeInputs(GraphOp graph, std::vector<TensorDesc> &out) {
  out.clear();
  Block &body = graph.getBody().front();
  out.resize(graph.getNumArguments());
  for (unsigned i = 0, e = graph.getNumArguments(); i < e; ++i)
    if (Status s = describe(body.getArgument(i), graph.getArgAttrDict(i),
                            "input", i, out[i]);
        !s)
      return s;
  return Status();
}

Status capi::describeOutputs(GraphOp graph, std::vector<TensorDesc> &out) {
  out.clear();
  OutputOp output = graph.getOutputOp();
  out.resize(output.getNumOperands());
  for (unsigned i = 0, e = output.getNumOperands(); i < e; ++i)
    if (Status s = describe(output.getOperand(i), graph.getResultAttrDict(i),
                            "output", i, out[i]);
        !s)
      return s;
  return Status();
}

Status capi::describeProgram(mlir::exec::ProgramOp program, bool inputs,
                             std::vector<TensorDesc> &out) {
  out.clear();
  const char *kind = inputs ? "input" : "output";
  ArrayAttr tensors = inputs ? program.getInputs() : program.getOutputs();
  for (auto [i, tensor] :
       llvm::enumerate(tensors.getAsRange<mlir::exec::TensorAttr>())) {
    TensorDesc desc;
    desc.uid = tensor.getUid();
    if (tensor.getName())
      desc.name = tensor.getName().getValue().str();
    desc.dims.assign(tensor.getDims().begin(), tensor.getDims().end());
    desc.strides.assign(tensor.getStrides().begin(), tensor.getStrides().end());
    if (!toGraphDType(tensor.getDtype(), desc.dtype)) {
      std::string typeText;
      llvm::raw_string_ostream(typeText) << tensor.getDtype();
      return Status(GRAPH_ERROR_NOT_SUPPORTED,
                    who(kind, i, desc) + " of exec.program @" +
                        program.getSymName().str() + ": element type " +
                        typeText + " has no GraphDType");
    }
    out.push_back(std::move(desc));
  }
  return Status();
}

//===----------------------------------------------------------------------===//
// Compiler
//===----------------------------------------------------------------------===//

Compiler::Compiler() : impl(std::make_shared<Impl>()) {}
Compiler::~Compiler() = default;
Compiler::Compiler(Compiler &&) noexcept = default;
Compiler &Compiler::operator=(Compiler &&) noexcept = default;

Status Compiler::parse(std::string_view data, CompiledGraph &out,
                       std::string_view bufferName) {
  if (!impl)
    return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                  "parse: the Compiler was moved from");
  std::lock_guard<std::mutex> lock(impl->mutex);
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(data.data(), data.size()),
          llvm::StringRef(bufferName.data(), bufferName.size()));
  bool bytecode = isBytecode(buffer->getMemBufferRef());
  if (!bytecode)
    if (std::optional<::graph::ExcessiveNesting> deep =
            ::graph::findExcessiveNesting(data))
      return Status(GRAPH_ERROR_INVALID_GRAPH, "failed to parse text '" +
                                                   std::string(bufferName) +
                                                   "': " + deep->message());
  if (bytecode)
    if (std::optional<std::string> deep = ::graph::findExcessiveBytecodeNesting(
            buffer->getMemBufferRef(), &impl->context))
      return Status(GRAPH_ERROR_INVALID_GRAPH, "failed to parse bytecode '" +
                                                   std::string(bufferName) +
                                                   "': " + *deep);

  auto result = std::make_unique<CompiledGraph::Impl>();
  result->compiler = impl;
  result->sourceName = std::string(bufferName);
  if (!bytecode)
    result->sourceText = std::string(data);

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  DiagnosticText diagnostics(&impl->context, result->sourceName,
                             result->sourceText);
  ParserConfig config(&impl->context);
  result->module = parseSourceFile<ModuleOp>(sourceMgr, config);
  if (!result->module)
    return Status(GRAPH_ERROR_INVALID_GRAPH,
                  diagnostics.take(std::string("failed to parse ") +
                                   (bytecode ? "bytecode" : "text") + " '" +
                                   result->sourceName + "'"));
  auto graphs = result->module->getOps<GraphOp>();
  auto programs = result->module->getOps<mlir::exec::ProgramOp>();
  if (!graphs.empty() && !programs.empty())
    return Status(GRAPH_ERROR_INVALID_GRAPH,
                  "'" + result->sourceName +
                      "' holds both graph.graph and exec.program ops; a "
                      "module is either graphs or a compiled artifact");
  if (graphs.empty() && programs.empty())
    return Status(GRAPH_ERROR_INVALID_GRAPH,
                  "'" + result->sourceName +
                      "' holds no graph.graph op (nor exec.program)");
  result->artifact = graphs.empty();
  result->selected = result->artifact ? (*programs.begin()).getSymName().str()
                                      : (*graphs.begin()).getSymName().str();
  out.impl = std::move(result);
  return Status();
}

//===----------------------------------------------------------------------===//
// CompiledGraph
//===----------------------------------------------------------------------===//

CompiledGraph::CompiledGraph() = default;
CompiledGraph::~CompiledGraph() {
  if (!impl)
    return;
  // The module's IR lives in the context: destroy it under the context's
  // lock, before the last reference to the context goes.
  std::shared_ptr<Compiler::Impl> compiler = impl->compiler;
  std::lock_guard<std::mutex> lock(compiler->mutex);
#ifdef GRAPH_HAVE_GPU_RUNTIME
  // Freeing device memory and unloading modules: allowed while some stream
  // captures (a graph garbage-collected during another's capture).
  ::graph::rt::RelaxedCaptureMode relaxed;
  ::graph::rt::releaseCapturedOwners();
#endif
  impl.reset();
}
CompiledGraph::CompiledGraph(CompiledGraph &&) noexcept = default;
CompiledGraph &CompiledGraph::operator=(CompiledGraph &&other) noexcept {
  if (this != &other) {
    CompiledGraph old(std::move(*this));
    impl = std::move(other.impl);
  }
  return *this;
}

std::vector<std::string> CompiledGraph::graphNames() const {
  std::vector<std::string> names;
  if (!impl)
    return names;
  std::lock_guard<std::mutex> lock(impl->compiler->mutex);
  return impl->names();
}

Status CompiledGraph::select(std::string_view name) {
  if (!impl)
    return emptyGraph("select");
  std::lock_guard<std::mutex> lock(impl->compiler->mutex);
  std::string names;
  for (const std::string &g : impl->names()) {
    if (g == name) {
      impl->selected = std::string(name);
      return Status();
    }
    names += (names.empty() ? "@" : ", @") + g;
  }
  return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                std::string(impl->artifact ? "no exec.program named '"
                                           : "no graph named '") +
                    std::string(name) + "' in the module; its " +
                    (impl->artifact ? "programs" : "graphs") +
                    " are: " + names);
}

std::string CompiledGraph::selected() const {
  return impl ? impl->selected : std::string();
}

Status CompiledGraph::inputs(std::vector<TensorDesc> &out) const {
  out.clear();
  if (!impl)
    return emptyGraph("inputs");
  std::lock_guard<std::mutex> lock(impl->compiler->mutex);
  if (impl->artifact)
    return describeProgram(impl->program(), /*inputs=*/true, out);
  return describeInputs(impl->graph(), out);
}

Status CompiledGraph::outputs(std::vector<TensorDesc> &out) const {
  out.clear();
  if (!impl)
    return emptyGraph("outputs");
  std::lock_guard<std::mutex> lock(impl->compiler->mutex);
  if (impl->artifact)
    return describeProgram(impl->program(), /*inputs=*/false, out);
  return describeOutputs(impl->graph(), out);
}

Status CompiledGraph::print(std::string &out, bool generic) const {
  out.clear();
  if (!impl)
    return emptyGraph("print");
  std::lock_guard<std::mutex> lock(impl->compiler->mutex);
  OpPrintingFlags flags;
  if (generic)
    flags.printGenericOpForm();
  llvm::raw_string_ostream os(out);
  impl->module->print(os, flags);
  os.flush();
  return Status();
}

Status CompiledGraph::serialize(std::string &out) const {
  out.clear();
  if (!impl)
    return emptyGraph("serialize");
  std::lock_guard<std::mutex> lock(impl->compiler->mutex);
  DiagnosticText diagnostics(&impl->compiler->context);
  llvm::raw_string_ostream os(out);
  if (failed(writeBytecodeToFile(*impl->module, os))) {
    out.clear();
    return Status(GRAPH_ERROR_INVALID_GRAPH,
                  diagnostics.take("writing bytecode failed"));
  }
  os.flush();
  return Status();
}

bool CompiledGraph::isArtifact() const { return impl && impl->artifact; }
