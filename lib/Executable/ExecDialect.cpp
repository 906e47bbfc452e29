//===- ExecDialect.cpp - The exec dialect: attributes, ops, verifiers ----===//
//
// All of the exec dialect's TableGen output is compiled in this one file.
// Verifiers: #exec.tensor (dims/strides), #exec.arg and #exec.scratch,
// exec.cudnn_group (its tensors and their values, its body of graph node
// ops, one plan choice), exec.kernel_group (its body,
// scratch), exec.kernel_module (the image), exec.kernel_launch (geometry,
// module and entry, arguments), exec.program (uids unique, every uid a step
// uses declared, schedule order, every output written).
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Executable/ExecOps.h"
#include "GraphDialect/GraphDialect.h"
#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Support/Uid.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::exec;

#include "GraphDialect/Executable/ExecDialect.cpp.inc"

#include "GraphDialect/Executable/ExecEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "GraphDialect/Executable/ExecAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "GraphDialect/Executable/ExecOps.cpp.inc"

void ExecDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "GraphDialect/Executable/ExecAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "GraphDialect/Executable/ExecOps.cpp.inc"
      >();
}

FailureOr<SmallVector<int64_t>> mlir::exec::parseI64List(AsmParser &parser) {
  SmallVector<int64_t> values;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        int64_t value;
        if (parser.parseInteger(value))
          return failure();
        values.push_back(value);
        return success();
      }))
    return failure();
  return values;
}

void mlir::exec::printI64List(AsmPrinter &printer, ArrayRef<int64_t> values) {
  printer << '[';
  llvm::interleaveComma(values, printer);
  printer << ']';
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

LogicalResult TensorAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t uid, Type dtype,
                                 ArrayRef<int64_t> dims,
                                 ArrayRef<int64_t> strides, bool isVirtual,
                                 FloatAttr byValue, bool readByValue,
                                 StringAttr name) {
  if (uid < 0)
    return emitError() << "tensor uid " << uid
                       << " is negative (uids must be >= 0)";
  if (uid > ::graph::kMaxUid)
    return emitError() << "tensor uid " << uid << " is above the largest uid "
                       << ::graph::kMaxUid
                       << " (the two largest int64 values are reserved)";
  if (!dtype.isIntOrFloat())
    return emitError() << "tensor uid " << uid
                       << ": dtype must be an integer or float type";
  if (dims.size() != strides.size())
    return emitError() << "tensor uid " << uid << " has " << dims.size()
                       << " dims but " << strides.size() << " strides";
  for (int64_t d : dims)
    if (d <= 0)
      return emitError() << "tensor uid " << uid
                         << ": dims must be positive (static)";
  for (int64_t s : strides)
    if (s < 0)
      return emitError() << "tensor uid " << uid
                         << ": strides must be non-negative";
  if (isVirtual && byValue)
    return emitError() << "tensor uid " << uid
                       << " cannot be both virtual and by-value";
  if (readByValue && (isVirtual || byValue))
    return emitError() << "tensor uid " << uid
                       << ": read_by_value marks a device buffer, not a "
                       << (isVirtual ? "virtual tensor" : "by-value constant");
  if (readByValue && llvm::any_of(dims, [](int64_t d) { return d != 1; }))
    return emitError() << "tensor uid " << uid
                       << ": read_by_value needs a one-element tensor";
  return success();
}

LogicalResult
KernelArgAttr::verify(function_ref<InFlightDiagnostic()> emitError, int64_t uid,
                      ArgAccess access, int64_t align) {
  if ((uid < 0) != (access == ArgAccess::scratch))
    return emitError() << "kernel argument uid " << uid
                       << (uid < 0 ? ": a negative uid is a scratch buffer "
                                     "(access = scratch)"
                                   : ": access = scratch needs a negative "
                                     "uid (a buffer of the group's scratch)");
  if (align < 0 || (align & (align - 1)))
    return emitError() << "kernel argument uid " << uid << ": align " << align
                       << " must be 0 or a power of two";
  return success();
}

LogicalResult ScratchAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  int64_t uid, int64_t bytes) {
  if (uid >= 0)
    return emitError() << "scratch uid " << uid
                       << " must be negative (scratch uids are local to "
                          "their group)";
  if (bytes <= 0)
    return emitError() << "scratch uid " << uid
                       << " needs a positive size, not " << bytes << " bytes";
  return success();
}

//===----------------------------------------------------------------------===//
// exec.cudnn_group
//===----------------------------------------------------------------------===//

YieldOp CudnnGroupOp::getYield() {
  return dyn_cast<YieldOp>(getBody().front().getTerminator());
}

/// `[2, 3]`, for messages.
static std::string listOf(ArrayRef<int64_t> values) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(values, os);
  os << ']';
  return text;
}

/// Whether `tensor` describes a value of type `type`: its dims are the
/// type's shape (the dtype is the buffer's and may be narrower).
static bool describes(TensorAttr tensor, Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  return ranked && ranked.getShape() == tensor.getDims();
}

LogicalResult CudnnGroupOp::verify() {
  llvm::DenseSet<int64_t> uids;
  for (TensorAttr tensor : getInputs().getAsRange<TensorAttr>()) {
    if (tensor.getIsVirtual())
      return emitOpError("input uid ")
             << tensor.getUid()
             << " is virtual; a group's virtual tensors are its ops' "
                "results";
    if (!uids.insert(tensor.getUid()).second)
      return emitOpError("tensor uid ")
             << tensor.getUid() << " appears twice in the group";
  }
  for (TensorAttr tensor : getOutputs().getAsRange<TensorAttr>()) {
    if (tensor.getIsVirtual() || tensor.getByValue() || tensor.getReadByValue())
      return emitOpError("output uid ")
             << tensor.getUid()
             << " must be a device buffer (not virtual or by-value)";
    if (!uids.insert(tensor.getUid()).second)
      return emitOpError("tensor uid ")
             << tensor.getUid() << " appears twice in the group";
  }
  bool hasEngine = getEngine().has_value();
  if (getHeuristics() && hasEngine)
    return emitOpError("gives both heuristics and an engine: choose one");
  if (!getHeuristics() && !hasEngine)
    return emitOpError("needs heuristics = [...] or engine = N");
  if (getKnobs() && !hasEngine)
    return emitOpError("knobs need an engine");
  if (hasEngine && getEngineAttr().getInt() < 0)
    return emitOpError("engine id must be non-negative");
  if (getKnobs() && getKnobs()->size() % 2)
    return emitOpError("knobs must be (knob, value) pairs: an even count");
  if (auto modes = getHeuristics()) {
    if (modes->empty())
      return emitOpError("heuristics must not be empty");
    for (StringAttr mode : modes->getAsRange<StringAttr>())
      if (mode.getValue() != "a" && mode.getValue() != "b" &&
          mode.getValue() != "fallback")
        return emitOpError("heuristics mode '")
               << mode.getValue() << "': expected a, b or fallback";
  }
  return success();
}

LogicalResult CudnnGroupOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("has ")
           << getInputs().size() << " inputs but its body takes "
           << body.getNumArguments() << " arguments";
  for (auto [i, tensor] :
       llvm::enumerate(getInputs().getAsRange<TensorAttr>())) {
    BlockArgument arg = body.getArgument(i);
    if (!describes(tensor, arg.getType()))
      return emitOpError("input uid ")
             << tensor.getUid() << " has dims " << listOf(tensor.getDims())
             << " but argument " << i << " is " << arg.getType();
    if (arg.use_empty())
      return emitOpError("input uid ")
             << tensor.getUid() << " is used by no op";
  }
  unsigned ops = 0;
  for (Operation &op : body.without_terminator()) {
    ++ops;
    if (!isa<graph::GraphDialect>(op.getDialect()) || op.getNumRegions() ||
        isa<graph::ScalarOp>(op))
      return op.emitOpError("cannot be in an exec.cudnn_group (its body holds "
                            "graph-dialect node ops and exec.yield; scalars "
                            "are by-value inputs)");
  }
  if (ops == 0)
    return emitOpError("has no ops");
  YieldOp yield = getYield();
  if (!yield)
    return emitOpError("body must end with exec.yield");
  if (yield.getNumOperands() != getOutputs().size())
    return yield.emitOpError("yields ")
           << yield.getNumOperands() << " values for the "
           << getOutputs().size() << " outputs of its group";
  llvm::DenseSet<Value> yielded;
  for (auto [i, tensor] :
       llvm::enumerate(getOutputs().getAsRange<TensorAttr>())) {
    Value value = yield.getOperand(i);
    if (isa<BlockArgument>(value))
      return yield.emitOpError("value ")
             << i << " (output uid " << tensor.getUid()
             << ") is an input of the group, not a result of its ops";
    if (!yielded.insert(value).second)
      return yield.emitOpError("value ")
             << i << " (output uid " << tensor.getUid() << ") is yielded twice";
    if (!describes(tensor, value.getType()))
      return emitOpError("output uid ")
             << tensor.getUid() << " has dims " << listOf(tensor.getDims())
             << " but yielded value " << i << " is " << value.getType();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// exec.kernel_group, exec.kernel_module, exec.kernel_launch
//===----------------------------------------------------------------------===//

LogicalResult KernelGroupOp::verify() {
  if (getEngine().empty())
    return emitOpError("engine must name the codegen plan (e.g. "
                       "\"codegen_v2_t256_i2\")");
  llvm::DenseSet<int64_t> scratch;
  for (ScratchAttr buffer : getScratch().getAsRange<ScratchAttr>())
    if (!scratch.insert(buffer.getUid()).second)
      return emitOpError("scratch uid ")
             << buffer.getUid() << " is declared twice";
  return success();
}

LogicalResult KernelGroupOp::verifyRegions() {
  llvm::DenseSet<StringRef> launched;
  unsigned launches = 0;
  for (Operation &op : getBody().front()) {
    if (auto launch = dyn_cast<KernelLaunchOp>(op)) {
      ++launches;
      launched.insert(launch.getModule());
      continue;
    }
    if (!isa<KernelModuleOp>(op))
      return op.emitOpError("cannot be in an exec.kernel_group (only "
                            "exec.kernel_module and exec.kernel_launch)");
  }
  if (launches == 0)
    return emitOpError("has no exec.kernel_launch");
  for (auto module : getBody().getOps<KernelModuleOp>())
    if (!launched.count(module.getSymName()))
      return module.emitOpError("is launched by no exec.kernel_launch of "
                                "its group");
  return success();
}

/// Whether PTX text `ptx` declares kernel `entry` (`.entry <entry>(`).
static bool declaresEntry(StringRef ptx, StringRef entry) {
  for (size_t at = ptx.find(".entry"); at != StringRef::npos;
       at = ptx.find(".entry", at + 6)) {
    StringRef rest = ptx.drop_front(at + 6).ltrim();
    if (rest.consume_front(entry) && rest.ltrim().starts_with("("))
      return true;
  }
  return false;
}

LogicalResult KernelModuleOp::verify() {
  StringRef binary = getBinary();
  if (binary.empty())
    return emitOpError("binary must not be empty");
  if (getFormat() == BinaryFormat::ptx && !binary.contains(".entry"))
    return emitOpError("binary is not PTX text with .entry functions");
  if (getFormat() == BinaryFormat::cubin && !binary.starts_with("\x7f"
                                                                "ELF"))
    return emitOpError("binary is not a cubin (an ELF image)");
  return success();
}

LogicalResult KernelLaunchOp::verify() {
  if (getEntry().empty())
    return emitOpError("entry must not be empty");
  for (auto [what, sizes] :
       {std::pair<StringRef, ArrayRef<int64_t>>{"grid", getGrid()},
        {"block", getBlock()}}) {
    if (sizes.size() != 3)
      return emitOpError() << what << " must have 3 values, not "
                           << sizes.size();
    if (llvm::any_of(sizes, [](int64_t v) { return v <= 0; }))
      return emitOpError() << what << " sizes must be positive";
  }
  ArrayRef<int64_t> grid = getGrid(), block = getBlock();
  if (block[0] * block[1] * block[2] > 1024)
    return emitOpError("block has ") << block[0] * block[1] * block[2]
                                     << " threads; a block holds at most 1024";
  if (grid[0] > 2147483647 || grid[1] > 65535 || grid[2] > 65535)
    return emitOpError("grid exceeds the launch limits (x < 2^31, y and z "
                       "at most 65535)");
  auto group = cast<KernelGroupOp>((*this)->getParentOp());
  auto module = dyn_cast_or_null<KernelModuleOp>(
      SymbolTable::lookupSymbolIn(group, getModuleAttr()));
  if (!module)
    return emitOpError("module ")
           << getModuleAttr() << " is not an exec.kernel_module of its group";
  if (module.getFormat() == BinaryFormat::ptx &&
      !declaresEntry(module.getBinary(), getEntry()))
    return emitOpError("entry '")
           << getEntry() << "' is not an .entry of PTX module "
           << getModuleAttr();
  llvm::DenseSet<int64_t> scratch;
  for (ScratchAttr buffer : group.getScratch().getAsRange<ScratchAttr>())
    scratch.insert(buffer.getUid());
  for (KernelArgAttr arg : getArgs().getAsRange<KernelArgAttr>())
    if (arg.getAccess() == ArgAccess::scratch && !scratch.count(arg.getUid()))
      return emitOpError("scratch uid ")
             << arg.getUid() << " is not in its group's scratch list";
  return success();
}

//===----------------------------------------------------------------------===//
// exec.program
//===----------------------------------------------------------------------===//

LogicalResult ProgramOp::verify() {
  // Device uids: inputs and buffers unique; an output reuses an input's uid
  // only as its alias, and another output's uid only for the same tensor.
  llvm::DenseMap<int64_t, StringRef> owner;
  auto claim = [&](TensorAttr tensor, StringRef what) -> LogicalResult {
    if (tensor.getIsVirtual() || tensor.getByValue())
      return emitOpError() << what << " uid " << tensor.getUid()
                           << " must be a device buffer (not virtual or "
                              "by-value)";
    auto [it, inserted] = owner.try_emplace(tensor.getUid(), what);
    if (!inserted)
      return emitOpError("uid ") << tensor.getUid() << " is declared twice ("
                                 << it->second << " and " << what << ")";
    return success();
  };
  for (TensorAttr tensor : getInputs().getAsRange<TensorAttr>())
    if (failed(claim(tensor, "input")))
      return failure();
  for (TensorAttr tensor : getBuffers().getAsRange<TensorAttr>())
    if (failed(claim(tensor, "buffer")))
      return failure();
  size_t numOutputs = getOutputs().size();
  std::optional<ArrayRef<int64_t>> aliases = getOutputAliases();
  if (aliases && aliases->size() != numOutputs)
    return emitOpError("output_aliases has ")
           << aliases->size() << " entries for " << numOutputs << " outputs";
  llvm::DenseMap<int64_t, TensorAttr> computed;
  for (auto [i, tensor] :
       llvm::enumerate(getOutputs().getAsRange<TensorAttr>())) {
    int64_t alias = aliases ? (*aliases)[i] : -1;
    if (alias >= static_cast<int64_t>(getInputs().size()) || alias < -1)
      return emitOpError("output ")
             << i << " aliases input " << alias << ", which does not exist";
    if (alias >= 0)
      continue;
    if (tensor.getIsVirtual() || tensor.getByValue())
      return emitOpError("output uid ")
             << tensor.getUid() << " must be a device buffer";
    if (auto it = computed.find(tensor.getUid()); it != computed.end()) {
      if (it->second != tensor)
        return emitOpError("outputs share uid ")
               << tensor.getUid() << " but differ in dtype, dims or strides";
      continue;
    }
    if (failed(claim(tensor, "output")))
      return failure();
    computed[tensor.getUid()] = tensor;
  }
  return success();
}

LogicalResult ProgramOp::verifyRegions() {
  llvm::DenseSet<int64_t> inputs, written, declared;
  for (TensorAttr tensor : getInputs().getAsRange<TensorAttr>())
    inputs.insert(tensor.getUid());
  std::optional<ArrayRef<int64_t>> aliases = getOutputAliases();
  llvm::DenseSet<int64_t> computedOutputs;
  for (auto [i, tensor] :
       llvm::enumerate(getOutputs().getAsRange<TensorAttr>()))
    if (!aliases || (*aliases)[i] < 0)
      computedOutputs.insert(tensor.getUid());
  declared.insert(inputs.begin(), inputs.end());
  declared.insert(computedOutputs.begin(), computedOutputs.end());
  for (TensorAttr tensor : getBuffers().getAsRange<TensorAttr>())
    declared.insert(tensor.getUid());

  for (Operation &step : getBody().front()) {
    if (auto kernels = dyn_cast<KernelGroupOp>(step)) {
      // Launches run in order: a read needs an earlier write (of an earlier
      // step or launch); what a launch writes counts from the next one on.
      for (auto launch : kernels.getBody().getOps<KernelLaunchOp>()) {
        llvm::SmallVector<int64_t> writes;
        for (KernelArgAttr arg : launch.getArgs().getAsRange<KernelArgAttr>()) {
          int64_t uid = arg.getUid();
          if (arg.getAccess() == ArgAccess::scratch)
            continue;
          if (!declared.count(uid))
            return launch.emitOpError("argument uid ")
                   << uid << " is not a program input, output or buffer";
          if (arg.getAccess() == ArgAccess::write) {
            if (inputs.count(uid))
              return launch.emitOpError("writes program input uid ") << uid;
            writes.push_back(uid);
          } else if (!inputs.count(uid) && !written.count(uid)) {
            return launch.emitOpError("reads uid ")
                   << uid << " before any step writes it (schedule order)";
          }
        }
        written.insert(writes.begin(), writes.end());
      }
      continue;
    }
    auto group = dyn_cast<CudnnGroupOp>(step);
    if (!group)
      return step.emitOpError("is not a step of an exec.program (an "
                              "exec.cudnn_group or exec.kernel_group)");
    for (TensorAttr tensor : group.getInputs().getAsRange<TensorAttr>()) {
      int64_t uid = tensor.getUid();
      if (tensor.getByValue()) {
        if (declared.count(uid))
          return group.emitOpError("uid ")
                 << uid
                 << " is a program buffer; a by-value tensor needs a uid of "
                    "its own";
        continue;
      }
      if (!declared.count(uid))
        return group.emitOpError("input uid ")
               << uid
               << " is neither a program input, output or buffer nor "
                  "by-value";
      // Schedule order: reads of device tensors come after their writes.
      if (!inputs.count(uid) && !written.count(uid))
        return group.emitOpError("reads uid ")
               << uid << " before any step writes it (schedule order)";
    }
    for (TensorAttr tensor : group.getOutputs().getAsRange<TensorAttr>()) {
      int64_t uid = tensor.getUid();
      if (!declared.count(uid))
        return group.emitOpError("output uid ")
               << uid << " is not a program output or buffer";
      if (inputs.count(uid))
        return group.emitOpError("writes program input uid ") << uid;
    }
    for (TensorAttr tensor : group.getOutputs().getAsRange<TensorAttr>())
      written.insert(tensor.getUid());
  }
  for (int64_t uid : computedOutputs)
    if (!written.count(uid))
      return emitOpError("output uid ") << uid << " is written by no step";
  return success();
}
