//===- ExecDialect.cpp - The exec dialect: attributes, ops, verifiers ----===//
//
// All of the exec dialect's TableGen output is compiled in this one file.
// Verifiers: #exec.tensor (dims/strides), #exec.op (port maps and
// attributes), #exec.arg and #exec.scratch, exec.cudnn_group (uids unique,
// ports name its tensors, one plan choice), exec.kernel_group (its body,
// scratch), exec.kernel_module (the image), exec.kernel_launch (geometry,
// module and entry, arguments), exec.program (uids unique, every uid a step
// uses declared, schedule order, every output written).
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Executable/ExecOps.h"
#include "GraphDialect/Executable/OpKinds.h"

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
                                 FloatAttr byValue, StringAttr name) {
  if (uid < 0)
    return emitError() << "tensor uid " << uid
                       << " is negative (uids must be >= 0)";
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
  return success();
}

LogicalResult OpAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                             StringAttr kind, StringAttr mode, StringAttr name,
                             DictionaryAttr inputs, DictionaryAttr outputs,
                             DictionaryAttr ints, DictionaryAttr floats,
                             Type compute) {
  if (!kind || kind.getValue().empty())
    return emitError() << "op kind must not be empty";
  auto ports = [&](DictionaryAttr dict, StringRef what) -> LogicalResult {
    for (NamedAttribute port : dict) {
      auto uid = dyn_cast<IntegerAttr>(port.getValue());
      if (!uid || uid.getInt() < 0)
        return emitError() << "op " << kind << ": " << what << " port '"
                           << port.getName().getValue()
                           << "' must map to an integer uid >= 0";
    }
    return success();
  };
  if (failed(ports(inputs, "input")) || failed(ports(outputs, "output")))
    return failure();
  if (outputs.empty())
    return emitError() << "op " << kind << " has no output port";
  if (ints)
    for (NamedAttribute attr : ints)
      if (!isa<DenseI64ArrayAttr>(attr.getValue()))
        return emitError() << "op " << kind << ": ints entry '"
                           << attr.getName().getValue()
                           << "' must be an array<i64: ...>";
  if (floats)
    for (NamedAttribute attr : floats)
      if (!isa<FloatAttr>(attr.getValue()))
        return emitError() << "op " << kind << ": floats entry '"
                           << attr.getName().getValue() << "' must be a float";
  if (!compute.isIntOrFloat())
    return emitError() << "op " << kind << ": compute must be a scalar type";
  if (!isGraphOpKind(
          std::string_view(kind.getValue().data(), kind.getValue().size())))
    return emitError() << "op kind " << kind
                       << " is not a graph-dialect op (an #exec.op kind is "
                       << "the mnemonic of a graph op, e.g. \"matmul\")";
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

/// The uids an op reads and writes, in port order.
static void forEachPort(OpAttr op,
                        function_ref<void(StringRef, int64_t, bool)> fn) {
  for (NamedAttribute port : op.getInputs())
    fn(port.getName().getValue(), cast<IntegerAttr>(port.getValue()).getInt(),
       /*isOutput=*/false);
  for (NamedAttribute port : op.getOutputs())
    fn(port.getName().getValue(), cast<IntegerAttr>(port.getValue()).getInt(),
       /*isOutput=*/true);
}

LogicalResult CudnnGroupOp::verify() {
  if (getOps().empty())
    return emitOpError("has no ops");
  llvm::DenseMap<int64_t, TensorAttr> tensors;
  for (TensorAttr tensor : getTensors().getAsRange<TensorAttr>())
    if (!tensors.try_emplace(tensor.getUid(), tensor).second)
      return emitOpError("tensor uid ")
             << tensor.getUid() << " appears twice in the group";
  llvm::DenseSet<int64_t> used, written;
  for (OpAttr op : getOps().getAsRange<OpAttr>()) {
    LogicalResult result = success();
    forEachPort(op, [&](StringRef port, int64_t uid, bool isOutput) {
      if (failed(result))
        return;
      auto it = tensors.find(uid);
      if (it == tensors.end()) {
        result = emitOpError("op ")
                 << op.getKind() << " port '" << port << "' names uid " << uid
                 << ", which is not a tensor of the group";
        return;
      }
      if (isOutput && it->second.getByValue()) {
        result = emitOpError("op ")
                 << op.getKind() << " writes by-value uid " << uid;
        return;
      }
      if (isOutput && !written.insert(uid).second)
        result = emitOpError("uid ") << uid << " is written by two ops";
      used.insert(uid);
    });
    if (failed(result))
      return result;
  }
  for (auto &[uid, tensor] : tensors)
    if (!used.count(uid))
      return emitOpError("tensor uid ") << uid << " is used by no op";
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
    llvm::DenseMap<int64_t, TensorAttr> local;
    for (TensorAttr tensor : group.getTensors().getAsRange<TensorAttr>()) {
      local[tensor.getUid()] = tensor;
      bool own = tensor.getIsVirtual() || tensor.getByValue();
      if (own && declared.count(tensor.getUid()))
        return group.emitOpError("uid ")
               << tensor.getUid()
               << " is a program buffer; a virtual or by-value tensor needs "
                  "a uid of its own";
      if (!own && !declared.count(tensor.getUid()))
        return group.emitOpError("uid ")
               << tensor.getUid()
               << " is neither a program input, output or buffer nor "
                  "virtual or by-value";
    }
    // Schedule order: reads of device tensors come after their writes.
    llvm::DenseSet<int64_t> writesHere;
    for (OpAttr op : group.getOps().getAsRange<OpAttr>())
      for (NamedAttribute port : op.getOutputs())
        writesHere.insert(cast<IntegerAttr>(port.getValue()).getInt());
    for (OpAttr op : group.getOps().getAsRange<OpAttr>())
      for (NamedAttribute port : op.getInputs()) {
        int64_t uid = cast<IntegerAttr>(port.getValue()).getInt();
        TensorAttr tensor = local.lookup(uid);
        if (!tensor || tensor.getIsVirtual() || tensor.getByValue() ||
            inputs.count(uid) || written.count(uid) || writesHere.count(uid))
          continue;
        return group.emitOpError("reads uid ")
               << uid << " before any step writes it (schedule order)";
      }
    for (int64_t uid : writesHere) {
      if (inputs.count(uid))
        return group.emitOpError("writes program input uid ") << uid;
      written.insert(uid);
    }
  }
  for (int64_t uid : computedOutputs)
    if (!written.count(uid))
      return emitOpError("output uid ") << uid << " is written by no step";
  return success();
}
