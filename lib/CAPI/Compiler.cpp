//===- Compiler.cpp - C++ embedding API of the graph compiler ---*- C++ -*-===//
//
// graph::Compiler owns an MLIR context; graph::CompiledGraph owns a parsed
// module. Every call captures the diagnostics it causes into the Status it
// returns, and CPU execution goes through the reference executor.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Compiler.h"

#include "GraphDialect/BytecodeNesting.h"

#include "GraphDialect/Executable/ExecDialect.h"
#include "GraphDialect/Executable/ExecOps.h"
#include "GraphDialect/GraphDialect.h"
#include "GraphDialect/GraphOps.h"
#ifdef GRAPH_HAVE_GPU_RUNTIME
#include "GraphDialect/Conversion/GraphToCudnn.h"
#include "GraphDialect/Conversion/Passes.h"
#include "GraphDialect/Engine/GpuSession.h"
#include "GraphDialect/Engine/PlanList.h"
#include "GraphDialect/Runtime/Device.h"
#endif
#include "GraphDialect/Passes.h"
#include "GraphDialect/Reference/Executor.h"
#include "GraphDialect/Support/NestingDepth.h"
#include "GraphDialect/Support/Shape.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <optional>

using namespace mlir;
using ::graph::Buffer;
using ::graph::CompiledGraph;
using ::graph::Compiler;
using ::graph::dimsMessageText;
using ::graph::Status;
using ::graph::TensorDesc;
using mlir::graph::GraphDialect;
using mlir::graph::GraphOp;
using mlir::graph::OutputOp;
namespace ref = ::graph::ref;

//===----------------------------------------------------------------------===//
// Impl structs
//===----------------------------------------------------------------------===//

struct Compiler::Impl {
  MLIRContext context;
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

  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registry.insert<GraphDialect, mlir::exec::ExecDialect>();
    return registry;
  }
};

struct CompiledGraph::Impl {
  std::shared_ptr<Compiler::Impl> compiler;
  OwningOpRef<ModuleOp> module;
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

  GraphOp graph() {
    if (artifact)
      return nullptr;
    for (GraphOp g : module->getOps<GraphOp>())
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
      for (GraphOp g : module->getOps<GraphOp>())
        result.push_back(g.getSymName().str());
    }
    return result;
  }
};

namespace {

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

/// Collects every diagnostic emitted on a context while alive, as
/// `file:line:col: error: message` lines, each followed by the quoted source
/// line and a caret when the location points into `sourceText`, then its
/// notes.
class DiagnosticCapture {
public:
  DiagnosticCapture(MLIRContext *context, std::string_view sourceName = {},
                    std::string_view sourceText = {})
      : sourceName(sourceName), sourceText(sourceText),
        handler(context, [this](Diagnostic &diag) {
          append(diag);
          return success();
        }) {}

  /// The captured text, or `fallback` when nothing was emitted.
  std::string take(const std::string &fallback) {
    if (text.empty())
      return fallback;
    if (text.back() == '\n')
      text.pop_back();
    return std::move(text);
  }

private:
  static const char *severityName(DiagnosticSeverity severity) {
    switch (severity) {
    case DiagnosticSeverity::Error:
      return "error";
    case DiagnosticSeverity::Warning:
      return "warning";
    case DiagnosticSeverity::Remark:
      return "remark";
    case DiagnosticSeverity::Note:
      return "note";
    }
    return "error";
  }

  void appendOne(Location loc, DiagnosticSeverity severity,
                 const std::string &message) {
    FileLineColLoc fileLoc = loc->findInstanceOf<FileLineColLoc>();
    if (fileLoc)
      text += fileLoc.getFilename().str() + ":" +
              std::to_string(fileLoc.getLine()) + ":" +
              std::to_string(fileLoc.getColumn()) + ": ";
    text += severityName(severity);
    text += ": " + message + "\n";
    if (fileLoc && !sourceText.empty() &&
        fileLoc.getFilename().getValue() ==
            llvm::StringRef(sourceName.data(), sourceName.size()))
      quoteLine(fileLoc.getLine(), fileLoc.getColumn());
  }

  /// Appends source line `line` (1-based) and a caret under `column`.
  void quoteLine(unsigned line, unsigned column) {
    size_t begin = 0;
    for (unsigned l = 1; l < line; ++l) {
      begin = sourceText.find('\n', begin);
      if (begin == std::string_view::npos)
        return;
      ++begin;
    }
    size_t end = sourceText.find('\n', begin);
    std::string_view quoted = sourceText.substr(
        begin, end == std::string_view::npos ? std::string_view::npos
                                             : end - begin);
    if (quoted.size() > 200)
      return;
    text += std::string(quoted) + "\n";
    if (column >= 1 && column <= quoted.size() + 1)
      text += std::string(column - 1, ' ') + "^\n";
  }

  void append(Diagnostic &diag) {
    appendOne(diag.getLocation(), diag.getSeverity(), diag.str());
    for (Diagnostic &note : diag.getNotes())
      appendOne(note.getLocation(), note.getSeverity(), note.str());
  }

  std::string_view sourceName;
  std::string_view sourceText;
  std::string text;
  ScopedDiagnosticHandler handler;
};

//===----------------------------------------------------------------------===//
// Tensor descriptions
//===----------------------------------------------------------------------===//

bool toGraphDType(Type type, GraphDType &out) {
  ::graph::DType dtype;
  if (!ref::toDType(type, dtype))
    return false;
  out = static_cast<GraphDType>(dtype); // the same numbering (Graph.cpp)
  return true;
}

bool toRefDType(GraphDType dtype, ::graph::DType &out) {
  return ::graph::dtypeFromInt(dtype, out);
}

std::string dtypeText(GraphDType dtype) {
  const char *name = graphDTypeName(dtype);
  return name ? name : "<dtype " + std::to_string(static_cast<int>(dtype)) +
                           ">";
}

/// `input 0 (uid 1 "x")`: how every message names a tensor.
std::string who(const char *kind, size_t index, const TensorDesc &desc) {
  std::string text = std::string(kind) + " " + std::to_string(index) + " (";
  text += desc.uid ? "uid " + std::to_string(*desc.uid) : "no uid";
  if (!desc.name.empty())
    text += " \"" + desc.name + "\"";
  return text + ")";
}

Status describe(Value value, DictionaryAttr attrs, const char *kind,
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
    return Status(GRAPH_ERROR_NOT_SUPPORTED,
                  who(kind, index, desc) + ": element type " + typeText +
                      " has no GraphDType");
  }
  return Status();
}

Status describeInputs(GraphOp graph, std::vector<TensorDesc> &out) {
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

Status describeOutputs(GraphOp graph, std::vector<TensorDesc> &out) {
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

/// The inputs or outputs of an exec.program, from its #exec.tensor attrs.
Status describeProgram(mlir::exec::ProgramOp program, bool inputs,
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
    desc.strides.assign(tensor.getStrides().begin(),
                        tensor.getStrides().end());
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
// Strided copies
//===----------------------------------------------------------------------===//

/// Copies every element of a `dims` tensor of `width`-byte elements from
/// `src` (strides `srcStrides`) to `dst` (strides `dstStrides`), bit-exactly.
void copyStrided(const uint8_t *src, const std::vector<int64_t> &srcStrides,
                 uint8_t *dst, const std::vector<int64_t> &dstStrides,
                 const std::vector<int64_t> &dims, size_t width) {
  size_t rank = dims.size();
  for (int64_t d : dims)
    if (d == 0)
      return;
  std::vector<int64_t> index(rank, 0);
  int64_t srcOffset = 0, dstOffset = 0;
  while (true) {
    std::memcpy(dst + dstOffset * width, src + srcOffset * width, width);
    size_t k = rank;
    while (k > 0) {
      --k;
      if (++index[k] < dims[k]) {
        srcOffset += srcStrides[k];
        dstOffset += dstStrides[k];
        break;
      }
      srcOffset -= srcStrides[k] * (dims[k] - 1);
      dstOffset -= dstStrides[k] * (dims[k] - 1);
      index[k] = 0;
      if (k == 0)
        return;
    }
    if (rank == 0)
      return;
  }
}

/// Elements of `dims`, or nullopt when the count overflows 2^48.
std::optional<int64_t> checkedElements(const std::vector<int64_t> &dims) {
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0 || __builtin_mul_overflow(count, d, &count) ||
        count > (int64_t(1) << 48))
      return std::nullopt;
  }
  return count;
}

} // namespace

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
      return Status(GRAPH_ERROR_INVALID_GRAPH,
                    "failed to parse text '" + std::string(bufferName) +
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
  DiagnosticCapture capture(&impl->context, result->sourceName,
                            result->sourceText);
  ParserConfig config(&impl->context);
  result->module = parseSourceFile<ModuleOp>(sourceMgr, config);
  if (!result->module)
    return Status(GRAPH_ERROR_INVALID_GRAPH,
                  capture.take(std::string("failed to parse ") +
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
  result->selected = result->artifact
                         ? (*programs.begin()).getSymName().str()
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
  impl.reset();
}
CompiledGraph::CompiledGraph(CompiledGraph &&) noexcept = default;
CompiledGraph &
CompiledGraph::operator=(CompiledGraph &&other) noexcept {
  if (this != &other) {
    CompiledGraph old(std::move(*this));
    impl = std::move(other.impl);
  }
  return *this;
}

static Status emptyGraph(const char *call) {
  return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                std::string(call) + ": the CompiledGraph holds no module "
                                    "(parse one first)");
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
  DiagnosticCapture capture(context, impl->sourceName, impl->sourceText);
  PassManager pm(context, ModuleOp::getOperationName());
  mlir::graph::buildPreparePipeline(pm,
                                    mlir::graph::PreparePipelineOptions());
  if (failed(pm.run(*clone)))
    return Status(GRAPH_ERROR_INVALID_GRAPH,
                  capture.take("the graph-prepare pipeline failed"));
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
  DiagnosticCapture capture(&impl->compiler->context);
  llvm::raw_string_ostream os(out);
  if (failed(writeBytecodeToFile(*impl->module, os))) {
    out.clear();
    return Status(GRAPH_ERROR_INVALID_GRAPH,
                  capture.take("writing bytecode failed"));
  }
  os.flush();
  return Status();
}

bool CompiledGraph::isArtifact() const { return impl && impl->artifact; }

Status CompiledGraph::lowerToExecutable(CompiledGraph &out) const {
  const char *call = "graphModuleLowerToExecutable";
  if (!impl)
    return emptyGraph(call);
  if (impl->artifact)
    return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                  std::string(call) +
                      ": the module already is a compiled artifact "
                      "(exec.program @" + impl->selected + ")");
#ifndef GRAPH_HAVE_GPU_RUNTIME
  return Status(GRAPH_ERROR_NOT_SUPPORTED,
                std::string(call) +
                    ": the GPU lowering is not linked into this build");
#else
  CompiledGraph lowered; // destroyed after the lock is released
  std::unique_lock<std::mutex> lock(impl->compiler->mutex);
  MLIRContext *context = &impl->compiler->context;
  OwningOpRef<ModuleOp> clone = impl->module->clone();
  DiagnosticCapture capture(context, impl->sourceName, impl->sourceText);
  PassManager pm(context, ModuleOp::getOperationName());
  mlir::graph::buildGpuPipeline(pm);
  pm.addPass(mlir::graph::createGraphLowerToExecutable());
  if (failed(pm.run(*clone)))
    return Status(GRAPH_ERROR_NOT_SUPPORTED,
                  capture.take(std::string(call) +
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

//===----------------------------------------------------------------------===//
// Execute
//===----------------------------------------------------------------------===//

namespace {

/// A caller's buffer checked against the tensor it is bound to.
struct Binding {
  const Buffer *buffer = nullptr;
  std::vector<int64_t> strides; // the buffer's, row-major when not given
};

/// Checks `buffer` against `desc` (dtype, rank, static dims) and its own
/// layout. Dynamic dims of `desc` take any size.
Status bindBuffer(const char *kind, size_t index, const TensorDesc &desc,
                  const Buffer &buffer, Binding &binding) {
  std::string name = who(kind, index, desc);
  if (buffer.dtype != desc.dtype)
    return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                  name + ": the graph expects " + dtypeText(desc.dtype) +
                      " but the buffer holds " + dtypeText(buffer.dtype));
  bool match = buffer.dims.size() == desc.dims.size();
  for (size_t d = 0; match && d < desc.dims.size(); ++d)
    match = desc.dims[d] < 0 || desc.dims[d] == buffer.dims[d];
  if (!match)
    return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                  name + ": the graph expects dims " +
                      dimsMessageText(desc.dims) + " but the buffer has " +
                      dimsMessageText(buffer.dims));
  std::optional<int64_t> count = checkedElements(buffer.dims);
  if (!count)
    return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                  name + ": the buffer's dims " + dimsMessageText(buffer.dims) +
                      " are negative or too large");
  if (buffer.strides.empty()) {
    binding.strides = ref::rowMajorStrides(buffer.dims);
  } else {
    if (buffer.strides.size() != buffer.dims.size())
      return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                    name + ": the buffer has " +
                        std::to_string(buffer.dims.size()) + " dims but " +
                        std::to_string(buffer.strides.size()) + " strides");
    for (int64_t s : buffer.strides)
      if (s < 0)
        return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                      name + ": the buffer has a negative stride");
    binding.strides = buffer.strides;
  }
  if (!buffer.data && *count > 0)
    return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                  name + ": the buffer's data pointer is NULL");
  binding.buffer = &buffer;
  return Status();
}

#ifdef GRAPH_HAVE_GPU_RUNTIME
using mlir::graph::SessionStatus;

/// The Status of a session call.
Status fromSession(SessionStatus status) {
  using Code = SessionStatus::Code;
  switch (status.code) {
  case Code::Ok:
    return Status();
  case Code::NoDevice:
    return Status(GRAPH_ERROR_NO_DEVICE, std::move(status.message));
  case Code::InvalidArgument:
    return Status(GRAPH_ERROR_INVALID_ARGUMENT, std::move(status.message));
  case Code::NotSupported:
    return Status(GRAPH_ERROR_NOT_SUPPORTED, std::move(status.message));
  case Code::Execution:
    break;
  }
  return Status(GRAPH_ERROR_EXECUTION, std::move(status.message));
}

/// Runs the GPU pipeline (graph-prepare, graph-fuse, graph-select-engines)
/// on a clone of the module and finds the selected graph in it.
SessionStatus lowerForGpu(CompiledGraph::Impl &impl,
                          OwningOpRef<ModuleOp> &clone, GraphOp &graph) {
  using Code = SessionStatus::Code;
  std::string graphName = "graph @" + impl.selected;
  MLIRContext *context = &impl.compiler->context;
  clone = impl.module->clone();
  DiagnosticCapture capture(context, impl.sourceName, impl.sourceText);
  PassManager pm(context, ModuleOp::getOperationName());
  mlir::graph::buildGpuPipeline(pm);
  if (failed(pm.run(*clone)))
    return {Code::NotSupported,
            capture.take(graphName + ": no GPU engine runs it")};
  graph = nullptr;
  for (GraphOp g : clone->getOps<GraphOp>())
    if (g.getSymName() == llvm::StringRef(impl.selected))
      graph = g;
  if (!graph)
    return {Code::Execution, graphName + ": lost in lowering"};
  return {};
}

/// What the session builds the selected graph or program from. `lower`
/// must outlive the source's use.
mlir::graph::SessionSource sessionSource(
    CompiledGraph::Impl &impl,
    const std::function<SessionStatus(OwningOpRef<ModuleOp> &, GraphOp &)>
        &lower) {
  mlir::graph::SessionSource source;
  source.name = impl.selected;
  source.artifact = impl.artifact;
  source.graph = impl.graph();
  source.program = impl.program();
  source.lower = lower;
  return source;
}

/// The buffers as given, as the session's variant pack sees them.
llvm::SmallVector<mlir::graph::PackBuffer, 8>
packOf(const std::vector<Buffer> &buffers) {
  llvm::SmallVector<mlir::graph::PackBuffer, 8> pack(buffers.size());
  for (size_t j = 0; j < buffers.size(); ++j)
    pack[j] = {buffers[j].uid, static_cast<int>(buffers[j].dtype),
               buffers[j].dims, buffers[j].strides, buffers[j].data};
  return pack;
}

/// Runs the selected graph on the GPU with the caller's device pointers,
/// through the session (GpuSession.h).
Status executeOnDevice(CompiledGraph::Impl &impl,
                       const std::vector<Buffer> &buffers,
                       const std::vector<TensorDesc> &ins,
                       const std::vector<TensorDesc> &outs,
                       const std::vector<Binding> &inBindings,
                       const std::vector<Binding> &outBindings) {
  auto bound = [](const char *kind, const std::vector<TensorDesc> &descs,
                  const std::vector<Binding> &bindings) {
    std::vector<mlir::graph::BoundTensor> tensors(descs.size());
    for (size_t i = 0; i < descs.size(); ++i)
      tensors[i] = {who(kind, i, descs[i]), *descs[i].uid,
                    bindings[i].buffer->dims, bindings[i].strides,
                    bindings[i].buffer->data};
    return tensors;
  };
  std::function<SessionStatus(OwningOpRef<ModuleOp> &, GraphOp &)> lower =
      [&](OwningOpRef<ModuleOp> &clone, GraphOp &graph) {
        return lowerForGpu(impl, clone, graph);
      };
  return fromSession(impl.gpu.execute(
      sessionSource(impl, lower), packOf(buffers),
      bound("input", ins, inBindings), bound("output", outs, outBindings)));
}
#endif

} // namespace

Status CompiledGraph::execute(GraphDevice device,
                                     const std::vector<Buffer> &buffers) {
  if (!impl)
    return emptyGraph("execute");
#ifndef GRAPH_HAVE_GPU_RUNTIME
  if (device == GRAPH_DEVICE_GPU)
    return Status(GRAPH_ERROR_NO_DEVICE,
                  "GRAPH_DEVICE_GPU: the GPU runtime is not linked into this "
                  "build; execute on GRAPH_DEVICE_CPU");
#endif
  if (device != GRAPH_DEVICE_CPU && device != GRAPH_DEVICE_GPU)
    return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                  "execute: unknown device " +
                      std::to_string(static_cast<int>(device)));

  std::lock_guard<std::mutex> lock(impl->compiler->mutex);
#ifdef GRAPH_HAVE_GPU_RUNTIME
  // The caller's current CUDA device is theirs: restored on return.
  std::optional<::graph::rt::CallerContext> keep;
  if (device == GRAPH_DEVICE_GPU)
    keep.emplace();
  // The hot path: the same buffers as last time, other data pointers.
  if (device == GRAPH_DEVICE_GPU) {
    llvm::SmallVector<mlir::graph::PackBuffer, 8> pack = packOf(buffers);
    if (impl->gpu.repeats(impl->selected, pack))
      return fromSession(impl->gpu.runRepeated(pack));
  }
#endif
  GraphOp graph = impl->graph();
  std::string graphName = "graph @" + impl->selected;
  std::vector<TensorDesc> ins, outs;
  if (impl->artifact) {
    graphName = "exec.program @" + impl->selected;
    if (device == GRAPH_DEVICE_CPU)
      return Status(GRAPH_ERROR_NOT_SUPPORTED,
                    "GRAPH_DEVICE_CPU: " + graphName +
                        " is a compiled artifact that runs only on the GPU "
                        "(GRAPH_DEVICE_GPU); the CPU reference runs graph.graph "
                        "modules");
#ifdef GRAPH_HAVE_GPU_RUNTIME
    // A missing GPU is the answer before any buffer question.
    std::string why;
    if (!::graph::rt::Device::get(why))
      return Status(GRAPH_ERROR_NO_DEVICE,
                    "GRAPH_DEVICE_GPU: " + graphName +
                        " runs only on the GPU and the GPU device is not "
                        "available: " + why);
#endif
    if (Status s = describeProgram(impl->program(), true, ins); !s)
      return s;
    if (Status s = describeProgram(impl->program(), false, outs); !s)
      return s;
  } else {
    if (Status s = describeInputs(graph, ins); !s)
      return s;
    if (Status s = describeOutputs(graph, outs); !s)
      return s;
  }

  auto uidList = [&]() {
    std::string text;
    auto add = [&](const char *kind, const std::vector<TensorDesc> &descs) {
      text += text.empty() ? "" : "; ";
      text += kind;
      for (size_t i = 0; i < descs.size(); ++i) {
        text += (i ? ", " : " ") +
                (descs[i].uid ? std::to_string(*descs[i].uid) : "none");
        if (!descs[i].name.empty())
          text += " \"" + descs[i].name + "\"";
      }
      if (descs.empty())
        text += " none";
    };
    add("inputs", ins);
    add("outputs", outs);
    return text;
  };

  // Every tensor needs a uid to be bound.
  for (size_t i = 0; i < ins.size(); ++i)
    if (!ins[i].uid)
      return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                    who("input", i, ins[i]) + " of " + graphName +
                        " has no uid: run prepare (graphModulePrepare) "
                        "before execute");
  for (size_t i = 0; i < outs.size(); ++i)
    if (!outs[i].uid)
      return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                    who("output", i, outs[i]) + " of " + graphName +
                        " has no uid: run prepare (graphModulePrepare) "
                        "before execute");

  // Match buffers to tensors by uid: no unknown uid, no duplicate.
  std::map<int64_t, size_t> byUid;
  for (size_t j = 0; j < buffers.size(); ++j) {
    const Buffer &b = buffers[j];
    ref::DType unused;
    if (!toRefDType(b.dtype, unused))
      return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                    "buffer " + std::to_string(j) + " (uid " +
                        std::to_string(b.uid) + ") has an unknown dtype " +
                        std::to_string(static_cast<int>(b.dtype)));
    auto known = [&](const std::vector<TensorDesc> &descs) {
      for (const TensorDesc &d : descs)
        if (d.uid == b.uid)
          return true;
      return false;
    };
    if (!known(ins) && !known(outs))
      return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                    "buffer " + std::to_string(j) + ": no input or output of " +
                        graphName + " has uid " + std::to_string(b.uid) +
                        " (its uids: " + uidList() + ")");
    auto [it, inserted] = byUid.emplace(b.uid, j);
    if (!inserted)
      return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                    "buffers " + std::to_string(it->second) + " and " +
                        std::to_string(j) + " both have uid " +
                        std::to_string(b.uid) +
                        ": every input and output takes exactly one buffer");
  }

  auto bindAll = [&](const char *kind, const std::vector<TensorDesc> &descs,
                     std::vector<Binding> &bindings) -> Status {
    bindings.resize(descs.size());
    for (size_t i = 0; i < descs.size(); ++i) {
      auto it = byUid.find(*descs[i].uid);
      if (it == byUid.end())
        return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                      who(kind, i, descs[i]) + " of " + graphName +
                          " has no buffer; the graph expects " +
                          dtypeText(descs[i].dtype) + " " +
                          dimsMessageText(descs[i].dims));
      if (Status s =
              bindBuffer(kind, i, descs[i], buffers[it->second], bindings[i]);
          !s)
        return s;
    }
    return Status();
  };
  std::vector<Binding> inBindings, outBindings;
  if (Status s = bindAll("input", ins, inBindings); !s)
    return s;
  if (Status s = bindAll("output", outs, outBindings); !s)
    return s;

#ifdef GRAPH_HAVE_GPU_RUNTIME
  if (device == GRAPH_DEVICE_GPU)
    return executeOnDevice(*impl, buffers, ins, outs, inBindings, outBindings);
#endif

  // Copy the inputs into dense host tensors.
  std::vector<ref::HostTensor> hostInputs;
  hostInputs.reserve(ins.size());
  for (size_t i = 0; i < ins.size(); ++i) {
    const Buffer &b = *inBindings[i].buffer;
    ref::DType dtype;
    (void)toRefDType(b.dtype, dtype);
    ref::HostTensor tensor = ref::HostTensor::zeros(dtype, b.dims);
    tensor.strides = ref::rowMajorStrides(b.dims);
    copyStrided(static_cast<const uint8_t *>(b.data), inBindings[i].strides,
                tensor.bytes.data(), tensor.strides, b.dims,
                ref::byteWidth(dtype));
    hostInputs.push_back(std::move(tensor));
  }

  std::vector<ref::HostTensor> results;
  std::string error = ref::execute(graph, hostInputs, results);
  if (!error.empty()) {
    bool unsupported =
        error.find("has no CPU reference implementation") != std::string::npos;
    return Status(unsupported ? GRAPH_ERROR_NOT_SUPPORTED
                              : GRAPH_ERROR_EXECUTION,
                  graphName + ": " + error);
  }
  if (results.size() != outs.size())
    return Status(GRAPH_ERROR_EXECUTION,
                  graphName + ": the reference executor returned " +
                      std::to_string(results.size()) + " outputs for " +
                      std::to_string(outs.size()));

  // Check every output's computed dims before writing any.
  for (size_t i = 0; i < outs.size(); ++i) {
    const Buffer &b = *outBindings[i].buffer;
    if (results[i].shape != b.dims)
      return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                    who("output", i, outs[i]) + ": the graph computed dims " +
                        dimsMessageText(results[i].shape) +
                        " but the buffer has " + dimsMessageText(b.dims));
  }
  for (size_t i = 0; i < outs.size(); ++i) {
    const Buffer &b = *outBindings[i].buffer;
    const ref::HostTensor &result = results[i];
    std::vector<int64_t> srcStrides = result.strides.empty()
                                          ? ref::rowMajorStrides(result.shape)
                                          : result.strides;
    copyStrided(result.bytes.data(), srcStrides, static_cast<uint8_t *>(b.data),
                outBindings[i].strides, b.dims, ref::byteWidth(result.dtype));
  }
  return Status();
}

::graph::Status (::graph::setGpuStream)(void *stream) {
#ifdef GRAPH_HAVE_GPU_RUNTIME
  std::string error;
  ::graph::rt::CallerContext keep;
  ::graph::rt::Device *device = ::graph::rt::Device::get(error);
  if (!device)
    return Status(GRAPH_ERROR_NO_DEVICE,
                  "setting the stream: the GPU device is not available: " +
                      error);
  if (std::string e = device->setStream(stream); !e.empty())
    return Status(GRAPH_ERROR_EXECUTION, "setting the stream: " + e);
  return Status();
#else
  (void)stream;
  return Status(GRAPH_ERROR_NO_DEVICE,
                "setting the stream: the GPU runtime is not linked into this "
                "build");
#endif
}

::graph::Status(::graph::setGpuDevice)(int ordinal) {
#ifdef GRAPH_HAVE_GPU_RUNTIME
  if (std::string error = ::graph::rt::Device::select(ordinal); !error.empty())
    return Status(error.find("does not exist") != std::string::npos ||
                          error.find("is not valid") != std::string::npos
                      ? GRAPH_ERROR_INVALID_ARGUMENT
                      : GRAPH_ERROR_NO_DEVICE,
                  "selecting the GPU: " + error);
  return Status();
#else
  if (ordinal == -1)
    return Status();
  return Status(GRAPH_ERROR_NO_DEVICE,
                "selecting GPU " + std::to_string(ordinal) +
                    ": the GPU runtime is not linked into this build");
#endif
}

::graph::Status(::graph::gpuDevice)(int &ordinal) {
#ifdef GRAPH_HAVE_GPU_RUNTIME
  std::string error;
  ordinal = ::graph::rt::Device::current(error);
  if (ordinal < 0)
    return Status(GRAPH_ERROR_NO_DEVICE,
                  "the current GPU: the GPU device is not available: " + error);
  return Status();
#else
  ordinal = -1;
  return Status(GRAPH_ERROR_NO_DEVICE,
                "the current GPU: the GPU runtime is not linked into this "
                "build");
#endif
}

::graph::Status(::graph::gpuDeviceCount)(int &count) {
#ifdef GRAPH_HAVE_GPU_RUNTIME
  std::string error;
  count = ::graph::rt::Device::count(error);
  if (count < 0) {
    count = 0;
    return Status(GRAPH_ERROR_NO_DEVICE,
                  "counting the GPUs: the GPU runtime is not available: " +
                      error);
  }
  return Status();
#else
  count = 0;
  return Status(GRAPH_ERROR_NO_DEVICE,
                "counting the GPUs: the GPU runtime is not linked into this "
                "build");
#endif
}

//===----------------------------------------------------------------------===//
// GPU plan list
//===----------------------------------------------------------------------===//

namespace {

#ifdef GRAPH_HAVE_GPU_RUNTIME
namespace rt = ::graph::rt;

static_assert(GRAPH_CODEGEN_V2_ENGINE_ID == mlir::graph::kCodegenV2EngineId &&
                  GRAPH_CODEGEN_V1_ENGINE_ID ==
                      mlir::graph::kCodegenV1EngineId &&
                  GRAPH_CODEGEN_KNOB_THREADS ==
                      mlir::graph::kCodegenKnobThreads &&
                  GRAPH_CODEGEN_KNOB_ITEMS == mlir::graph::kCodegenKnobItems &&
                  GRAPH_CODEGEN_KNOB_PREFETCH ==
                      mlir::graph::kCodegenKnobPrefetch,
              "Graph.h's codegen ids are PlanList.h's");

/// The usable device, or NO_DEVICE naming `call` and why.
Status needDevice(const char *call, rt::Device *&device) {
  std::string error;
  device = rt::Device::get(error);
  if (!device)
    return Status(GRAPH_ERROR_NO_DEVICE,
                  std::string(call) +
                      ": the GPU device is not available: " + error);
  return Status();
}
#endif

/// The prologue every plan-list call shares. It checks, in this order, each
/// answer naming `call`:
///  - that the CompiledGraph holds a module (else INVALID_ARGUMENT);
///  - `args`, the call's own argument checks, made by the caller;
///  - that the GPU runtime is linked into this build (else NO_DEVICE);
///  - what `need` asks for: a usable GPU (Device; else NO_DEVICE), or the
///    selected graph's plan list (List; NO_DEVICE without a GPU, else
///    INVALID_ARGUMENT when graphPlanCreate was not called for this graph),
///    and `index` among its plans (Plan; PlanOrNone also takes -1, unpin).
/// When they all hold, `status` is GRAPH_OK and the context's lock is held
/// until the call returns.
struct PlanCall {
  enum class Need { Device, List, Plan, PlanOrNone };

  PlanCall(CompiledGraph::Impl *impl, const char *call, Need need,
           Status args = Status(), int32_t index = -1);
  bool ok() const { return status.ok(); }

  Status status;
#ifdef GRAPH_HAVE_GPU_RUNTIME
  std::unique_lock<std::mutex> lock;
  std::optional<rt::CallerContext> keep; // the caller's current device
  rt::Device *device = nullptr;          // Need::Device
  mlir::graph::GpuSession::PlanList *list = nullptr; // Need::List and later
#endif
};

PlanCall::PlanCall(CompiledGraph::Impl *impl, const char *call, Need need,
                   Status args, int32_t index) {
  if (!impl) {
    status = emptyGraph(call);
    return;
  }
  if (!args.ok()) {
    status = std::move(args);
    return;
  }
#ifndef GRAPH_HAVE_GPU_RUNTIME
  status = Status(GRAPH_ERROR_NO_DEVICE,
                  std::string(call) +
                      ": the GPU runtime is not linked into this build; plan "
                      "lists are GPU only (the CPU reference is one plan)");
#else
  lock = std::unique_lock<std::mutex>(impl->compiler->mutex);
  keep.emplace();
  if (need == Need::Device) {
    status = needDevice(call, device);
    return;
  }
  list = impl->gpu.planList(impl->selected);
  if (!list) {
    status = needDevice(call, device);
    if (status.ok())
      status = Status(GRAPH_ERROR_INVALID_ARGUMENT,
                      std::string(call) + ": graph @" + impl->selected +
                          " has no plan list; call graphPlanCreate first");
    return;
  }
  // The list's groups run on the device they were built on.
  std::string error;
  if (!rt::Device::get(list->ordinal, error)) {
    status = Status(GRAPH_ERROR_NO_DEVICE,
                    std::string(call) +
                        ": the GPU device is not available: " + error);
    return;
  }
  if (need == Need::List)
    return;
  bool allowNone = need == Need::PlanOrNone;
  size_t count = list->plans->entries().size();
  if ((allowNone && index == -1) ||
      (index >= 0 && static_cast<size_t>(index) < count))
    return;
  status = Status(GRAPH_ERROR_INVALID_ARGUMENT,
                  std::string(call) + ": plan index " + std::to_string(index) +
                      " is out of range for " + std::to_string(count) +
                      " plan(s)" + (allowNone ? " (-1 unpins)" : ""));
#endif
}

/// graphPlanCreate's own argument checks (both builds make them).
Status checkPlanCreateArgs(const char *call, GraphDevice device,
                           const std::vector<int> &heurModes) {
  if (device != GRAPH_DEVICE_GPU)
    return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                  std::string(call) + ": device " +
                      std::to_string(static_cast<int>(device)) +
                      " has no plan list; only GRAPH_DEVICE_GPU has one (the "
                      "CPU reference is a single plan)");
  for (int mode : heurModes)
    if (mode < GRAPH_HEUR_MODE_A || mode > GRAPH_HEUR_MODE_FALLBACK)
      return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                    std::string(call) + ": unknown heuristics mode " +
                        std::to_string(mode) +
                        " (GRAPH_HEUR_MODE_A, _B or _FALLBACK)");
  return Status();
}

/// graphSetPlanOptions' own argument checks (both builds make them).
Status checkPlanOptionsArgs(const char *call, int64_t workspaceLimit) {
  if (workspaceLimit < -1)
    return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                  std::string(call) + ": workspace limit " +
                      std::to_string(workspaceLimit) +
                      " is negative (-1: no limit)");
  return Status();
}

using Need = PlanCall::Need;

} // namespace

Status CompiledGraph::planCreate(GraphDevice device,
                                 const std::vector<int> &heurModes) {
  const char *call = "graphPlanCreate";
  PlanCall plan(impl.get(), call, Need::Device,
                checkPlanCreateArgs(call, device, heurModes));
  if (!plan.ok())
    return plan.status;
#ifdef GRAPH_HAVE_GPU_RUNTIME
  if (impl->artifact)
    return Status(GRAPH_ERROR_NOT_SUPPORTED,
                  std::string(call) + ": exec.program @" + impl->selected +
                      " is a compiled artifact: its groups' heuristics are "
                      "recorded in it and it has no plan list (graphSet"
                      "PlanOptions still applies)");
  std::vector<rt::HeurMode> modes;
  for (int mode : heurModes)
    modes.push_back(mode == GRAPH_HEUR_MODE_A   ? rt::HeurMode::A
                    : mode == GRAPH_HEUR_MODE_B ? rt::HeurMode::B
                                                : rt::HeurMode::Fallback);
  std::function<SessionStatus(OwningOpRef<ModuleOp> &, GraphOp &)> lower =
      [&](OwningOpRef<ModuleOp> &clone, GraphOp &graph) {
        return lowerForGpu(*impl, clone, graph);
      };
  return fromSession(impl->gpu.createPlanList(sessionSource(*impl, lower),
                                              *plan.device, std::move(modes)));
#endif
  return Status();
}

Status CompiledGraph::planCount(int32_t &plans, int32_t &groups) const {
  plans = groups = -1;
  PlanCall plan(impl.get(), "graphPlanCount", Need::List);
  if (!plan.ok())
    return plan.status;
#ifdef GRAPH_HAVE_GPU_RUNTIME
  plans = static_cast<int32_t>(plan.list->plans->entries().size());
  groups = static_cast<int32_t>(plan.list->program.groups.size());
#endif
  return Status();
}

Status CompiledGraph::planGroup(int32_t &group) const {
  group = -1;
  PlanCall plan(impl.get(), "graphPlanGroup", Need::List);
  if (!plan.ok())
    return plan.status;
#ifdef GRAPH_HAVE_GPU_RUNTIME
  group = static_cast<int32_t>(plan.list->groupIndex);
#endif
  return Status();
}

Status CompiledGraph::planInfo(int32_t index, PlanDesc &out) const {
  out = PlanDesc();
  PlanCall plan(impl.get(), "graphPlanInfo", Need::Plan, Status(), index);
  if (!plan.ok())
    return plan.status;
#ifdef GRAPH_HAVE_GPU_RUNTIME
  mlir::graph::PlanDetails details = plan.list->plans->details(index);
  out.name = std::move(details.name);
  out.engineId = details.engineId;
  out.knobs = std::move(details.knobs);
  out.built = details.built;
  out.workspace = details.workspace;
  out.error = std::move(details.error);
  out.behaviorNotes = std::move(details.behaviorNotes);
  out.numericNotes = std::move(details.numericNotes);
#endif
  return Status();
}

Status CompiledGraph::planBuild(int32_t index) {
  const char *call = "graphPlanBuild";
  PlanCall plan(impl.get(), call, Need::Plan, Status(), index);
  if (!plan.ok())
    return plan.status;
#ifdef GRAPH_HAVE_GPU_RUNTIME
  const mlir::graph::PlanEntry &entry = plan.list->plans->entries()[index];
  std::string why = impl->gpu.buildPlan(*plan.list, index);
  if (!why.empty())
    return Status(GRAPH_ERROR_NOT_SUPPORTED, "plan " + std::to_string(index) +
                                                 " (" + entry.name +
                                                 ") declined: " + why);
#endif
  return Status();
}

Status CompiledGraph::planSelect(int32_t index) {
  PlanCall plan(impl.get(), "graphPlanSelect", Need::PlanOrNone, Status(),
                index);
  if (!plan.ok())
    return plan.status;
#ifdef GRAPH_HAVE_GPU_RUNTIME
  impl->gpu.selectPlan(index);
#endif
  return Status();
}

Status
CompiledGraph::planAdd(int64_t engineId,
                       const std::vector<std::pair<int64_t, int64_t>> &knobs,
                       int32_t &index) {
  const char *call = "graphPlanAdd";
  index = -1;
  PlanCall plan(impl.get(), call, Need::List);
  if (!plan.ok())
    return plan.status;
#ifdef GRAPH_HAVE_GPU_RUNTIME
  return fromSession(
      impl->gpu.addPlan(*plan.list, call, engineId, knobs, index));
#endif
  return Status();
}

Status CompiledGraph::setPlanOptions(const std::vector<std::string> &deselect,
                                     int64_t workspaceLimit, bool autotune) {
  const char *call = "graphSetPlanOptions";
  PlanCall plan(impl.get(), call, Need::Device,
                checkPlanOptionsArgs(call, workspaceLimit));
  if (!plan.ok())
    return plan.status;
#ifdef GRAPH_HAVE_GPU_RUNTIME
  impl->gpu.setPlanOptions(deselect, workspaceLimit, autotune);
#endif
  return Status();
}
