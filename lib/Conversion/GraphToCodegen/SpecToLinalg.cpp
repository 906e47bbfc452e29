//===- SpecToLinalg.cpp - A group description as linalg on tensors -------===//
//
// Which group descriptions codegen_v1 runs (codegenDeclines), and the thin
// adapter for the callers that hold only a description (compileToPtx and
// compilePlan, for the runtime and the executable lowering; the kernel
// generator's spec entry): its ops become graph ops on the description's
// (already padded) tensors in a func (buildSpecGraphOps), which the same
// conversion patterns as graph-lower-to-linalg lower (GraphToLinalg.cpp),
// or the kernel generator plans and emits (KernelGen.cpp).
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Conversion/GraphToCodegen.h"
#include "KernelGen.h"
#include "ScalarOps.h"

#include "GraphDialect/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"

#include <map>
#include <set>

using namespace mlir;
using namespace mlir::graph;
namespace rt = ::graph::rt;
using ::graph::DType;
using ::graph::OpKind;
using ::graph::pointwiseInput;
using ::graph::Port;
using ::graph::SpecPort;

namespace {

/// The element type of a group tensor of `dtype` in graph ops.
Type tensorElementType(Builder &b, DType dtype) {
  switch (dtype) {
  case DType::F32:
    return b.getF32Type();
  case DType::F16:
    return b.getF16Type();
  case DType::BF16:
    return b.getBF16Type();
  case DType::F64:
    return b.getF64Type();
  case DType::I8:
    return b.getI8Type();
  case DType::U8:
    return b.getIntegerType(8, /*isSigned=*/false);
  case DType::I32:
    return b.getI32Type();
  case DType::I64:
    return b.getI64Type();
  case DType::I1:
    return b.getI1Type();
  case DType::F8E4M3FN:
    return b.getType<Float8E4M3FNType>();
  case DType::F8E5M2:
    return b.getType<Float8E5M2Type>();
  case DType::F8E8M0FNU:
    return b.getType<Float8E8M0FNUType>();
  case DType::F4E2M1FN:
    return b.getType<Float4E2M1FNType>();
  }
  return nullptr;
}

/// Checks what ODS declares of `op` (operand and result counts, types,
/// required attributes) for the ops the codegen engine plans; why not, or "".
std::string odsInvariants(Operation *op) {
  std::string message;
  ScopedDiagnosticHandler handler(op->getContext(), [&](Diagnostic &diag) {
    if (message.empty())
      message = diag.str();
    return success();
  });
  bool failed = false;
  withNodeOp(op, [&](auto typed) {
    failed = ::mlir::failed(typed.verifyInvariantsImpl());
  });
  return failed ? (message.empty() ? "invalid operands" : message) : "";
}

/// Sets inherent attribute `name` of `op` to the first of `candidates` its
/// property takes; false when none is taken.
bool setInherent(Operation *op, StringRef name,
                 ArrayRef<Attribute> candidates) {
  if (!op->getInherentAttr(name))
    return false; // not one of the op's attributes
  for (Attribute attr : candidates) {
    if (!attr)
      continue;
    op->setInherentAttr(StringAttr::get(op->getContext(), name), attr);
    if (std::optional<Attribute> now = op->getInherentAttr(name); now && *now)
      return true;
  }
  return false;
}

} // namespace

bool kernelgen::rowMajor(const rt::TensorSpec &t) {
  int64_t expect = 1;
  for (int64_t i = static_cast<int64_t>(t.dims.size()) - 1; i >= 0; --i) {
    if (t.dims[i] != 1 && t.strides[i] != expect)
      return false;
    expect *= t.dims[i];
  }
  return true;
}

RankedTensorType kernelgen::groupTensorType(MLIRContext *ctx,
                                            const rt::TensorSpec &t,
                                            bool strides) {
  Builder b(ctx);
  Attribute encoding;
  if (strides && t.strides.size() == t.dims.size() && !t.dims.empty())
    encoding = StridesAttr::get(ctx, t.strides);
  return RankedTensorType::get(t.dims, tensorElementType(b, t.dtype), encoding);
}

Value kernelgen::createByValueScalar(OpBuilder &b, Location loc,
                                     const rt::TensorSpec &t, bool strides) {
  return ScalarOp::create(
      b, loc, TypeRange{groupTensorType(b.getContext(), t, strides)},
      ValueRange(),
      {b.getNamedAttr("value", b.getF64FloatAttr(t.byValue)),
       b.getNamedAttr("uid", b.getI64IntegerAttr(t.uid))});
}

std::string mlir::graph::codegenDeclines(const rt::GraphSpec &spec) {
  std::map<int64_t, const rt::TensorSpec *> tensors;
  for (const rt::TensorSpec &t : spec.tensors) {
    tensors[t.uid] = &t;
    if (t.dtype != DType::F32 && t.dtype != DType::F16 &&
        t.dtype != DType::BF16)
      return "generated kernels take f32, f16 and bf16 tensors only";
    if (!t.isVirtual && !t.isByValue && !kernelgen::rowMajor(t))
      return "generated kernels take row-major tensors only";
  }
  if (spec.ops.empty())
    return "the group has no ops";
  for (const rt::OpSpec &op : spec.ops) {
    if (op.kind == OpKind::Pointwise) {
      if (!codegenHasPointwise(op.mode))
        return "generated kernels have no pointwise " + op.mode + " yet";
      continue;
    }
    if (op.kind != OpKind::Reduction)
      return "generated kernels have no " + op.kind + " yet";
    if (op.mode != "add" && op.mode != "max" && op.mode != "min")
      return "generated kernels have no " + op.mode + " reduction yet";
    auto in = op.inputs.find(Port::input), out = op.outputs.find(Port::output);
    if (in == op.inputs.end() || out == op.outputs.end() ||
        op.inputs.count(Port::group_offset))
      return "generated kernels reduce one input to one output";
    const rt::TensorSpec &x = *tensors[in->second], &y = *tensors[out->second];
    if (y.dtype != DType::F32)
      return "generated reductions accumulate into f32 outputs only";
    size_t rank = x.dims.size();
    if (y.dims.size() != rank || rank == 0)
      return "generated kernels reduce tensors of one rank";
    for (size_t i = 0; i < rank; ++i)
      if ((i + 1 < rank && x.dims[i] != y.dims[i]) ||
          (i + 1 == rank && y.dims[i] != 1))
        return "generated kernels reduce over the last axis only";
  }
  return "";
}

std::string mlir::graph::buildSpecGraphOps(const rt::GraphSpec &spec,
                                           ModuleOp module, StringRef name,
                                           bool strides, GroupOps &group) {
  MLIRContext *ctx = module.getContext();
  OpBuilder b(ctx);
  Location loc = module.getLoc();
  group = GroupOps();
  group.name = spec.name;
  std::map<int64_t, const rt::TensorSpec *> tensors;
  for (const rt::TensorSpec &t : spec.tensors)
    tensors[t.uid] = &t;
  auto tensorType = [&](const rt::TensorSpec &t) {
    return kernelgen::groupTensorType(ctx, t, strides);
  };

  // Inputs: buffers read and not produced here; outputs: produced buffers.
  std::set<int64_t> produced;
  for (const rt::OpSpec &op : spec.ops)
    for (auto &[port, uid] : op.outputs)
      produced.insert(uid);
  std::vector<int64_t> inputs, outputs;
  for (const rt::TensorSpec &t : spec.tensors) {
    if (t.isVirtual || t.isByValue)
      continue;
    (produced.count(t.uid) ? outputs : inputs).push_back(t.uid);
  }
  SmallVector<Type> argTypes, resultTypes;
  for (int64_t uid : inputs)
    argTypes.push_back(tensorType(*tensors[uid]));
  for (int64_t uid : outputs) {
    argTypes.push_back(tensorType(*tensors[uid]));
    resultTypes.push_back(tensorType(*tensors[uid]));
  }
  b.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(b, loc, name,
                                   b.getFunctionType(argTypes, resultTypes));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  std::map<int64_t, Value> values;
  for (size_t i = 0; i < inputs.size(); ++i)
    values[inputs[i]] = entry->getArgument(i);
  auto fail = [&](std::string why) {
    func.erase();
    group = GroupOps();
    return why;
  };

  // The spec's ops as graph ops; a by-value tensor is a graph.scalar, made
  // where it is first read.
  auto valueOf = [&](int64_t uid) -> Value {
    if (auto it = values.find(uid); it != values.end())
      return it->second;
    auto t = tensors.find(uid);
    if (t == tensors.end() || !t->second->isByValue)
      return Value();
    return values[uid] =
               kernelgen::createByValueScalar(b, loc, *t->second, strides);
  };
  for (const rt::OpSpec &op : spec.ops) {
    std::string label =
        op.kind + (op.name.empty() ? "" : " \"" + op.name + "\"");
    std::optional<OpKind> kind = op.kind.get();
    if (!kind)
      return fail(label + ": no graph op of that kind");
    // Every tensor the op names is one of the group's.
    for (const auto *ports : {&op.inputs, &op.outputs})
      for (auto &[port, uid] : *ports)
        if (!tensors.count(uid))
          return fail(label + ": " + port + " (uid " + std::to_string(uid) +
                      ") is not a tensor of the group");
    OperationState state(loc, std::string("graph.") + op.kind.name());
    SmallVector<int32_t> operandSegments, resultSegments;
    SmallVector<int64_t> resultUids;
    SmallVector<std::pair<Port, bool>> ports;
    for (Port port : kernelgen::odsPorts(*kind, /*isResult=*/false))
      ports.push_back({port, false});
    for (Port port : kernelgen::odsPorts(*kind, /*isResult=*/true))
      ports.push_back({port, true});
    for (auto [odsPort, isResult] : ports) {
      struct {
        Port port;
        bool isResult;
      } entry{odsPort, isResult};
      if (entry.isResult) {
        auto it = op.outputs.find(entry.port);
        resultSegments.push_back(it != op.outputs.end());
        if (it != op.outputs.end()) {
          state.types.push_back(tensorType(*tensors[it->second]));
          resultUids.push_back(it->second);
        }
        continue;
      }
      // The spec's names for the elements of a variadic operand: in0,
      // in1, in2 of a pointwise op, inputs_<k> of a concatenation;
      // rope_backward's dY is `input`, as rope's operand is.
      SmallVector<SpecPort> ports;
      if (*kind == OpKind::Pointwise && entry.port == Port::inputs) {
        for (size_t k = 0; op.inputs.count(pointwiseInput(k)); ++k)
          ports.push_back(pointwiseInput(k));
      } else if (*kind == OpKind::Concatenate && entry.port == Port::inputs) {
        for (size_t k = 0;
             op.inputs.count(::graph::variadicElement(Port::inputs, k)); ++k)
          ports.push_back(::graph::variadicElement(Port::inputs, k));
      } else {
        Port port = *kind == OpKind::RopeBackward && entry.port == Port::dY
                        ? Port::input
                        : entry.port;
        if (op.inputs.count(port))
          ports.push_back(port);
      }
      for (const SpecPort &port : ports) {
        Value operand = valueOf(op.inputs.at(port));
        if (!operand)
          return fail(label + ": " + port + " (uid " +
                      std::to_string(op.inputs.at(port)) +
                      ") is neither read from a buffer, computed before it "
                      "nor a by-value scalar");
        state.operands.push_back(operand);
      }
      operandSegments.push_back(static_cast<int32_t>(ports.size()));
    }
    if (resultUids.size() != op.outputs.size())
      return fail(label + ": has an output its op does not have");
    Operation *created = b.create(state);
    setInherent(created, "operandSegmentSizes",
                {b.getDenseI32ArrayAttr(operandSegments)});
    setInherent(created, "resultSegmentSizes",
                {b.getDenseI32ArrayAttr(resultSegments)});
    // Attributes as the op declares them (addAttributes' reading, in
    // reverse): the mode or phase, integers, arrays and flags, floats.
    if (!op.name.empty())
      setInherent(created, "name", {b.getStringAttr(op.name)});
    if (!op.mode.empty()) {
      bool set = false;
      if (auto mode = symbolizePointwiseMode(op.mode))
        set |=
            setInherent(created, "mode", {PointwiseModeAttr::get(ctx, *mode)});
      if (auto mode = symbolizeReductionMode(op.mode); mode && !set)
        set |=
            setInherent(created, "mode", {ReductionModeAttr::get(ctx, *mode)});
      if (auto phase = symbolizeNormPhase(op.mode); phase && !set)
        set |= setInherent(created, "phase", {NormPhaseAttr::get(ctx, *phase)});
      if (auto conv = symbolizeConvMode(op.mode); conv && !set)
        set |= setInherent(created, "mode", {ConvModeAttr::get(ctx, *conv)});
      if (!set) {
        created->erase();
        return fail(label + ": mode '" + op.mode + "' is not one of its op's");
      }
    }
    for (auto &[attr, values] : op.intAttrs) {
      SmallVector<Attribute> candidates;
      if (values.size() == 1)
        candidates.push_back(b.getI64IntegerAttr(values[0]));
      candidates.push_back(b.getDenseI64ArrayAttr(values));
      if (values.size() == 1) {
        candidates.push_back(b.getBoolAttr(values[0] != 0));
        if (values[0])
          candidates.push_back(b.getUnitAttr());
      }
      if (!setInherent(created, attr, candidates) &&
          !(values.size() == 1 && values[0] == 0)) {
        created->erase();
        return fail(label + ": has no attribute " + attr + " of that form");
      }
    }
    for (auto &[attr, value] : op.floatAttrs)
      if (!setInherent(created, attr,
                       {b.getF64FloatAttr(value), b.getF32FloatAttr(value)})) {
        created->erase();
        return fail(label + ": has no float attribute " + attr);
      }
    if (std::string why = odsInvariants(created); !why.empty()) {
      created->erase();
      return fail(label + ": " + why);
    }
    for (auto [uid, result] : llvm::zip(resultUids, created->getResults()))
      values[uid] = result;
  }
  SmallVector<Value> results;
  for (int64_t uid : outputs) {
    auto it = values.find(uid);
    if (it == values.end())
      return fail("output uid " + std::to_string(uid) +
                  " is computed by no op");
    results.push_back(it->second);
  }
  func::ReturnOp::create(b, loc, results);

  group.func = func;
  for (size_t i = 0; i < outputs.size(); ++i)
    group.uids[entry->getArgument(inputs.size() + i)] = outputs[i];
  for (const rt::TensorSpec &t : spec.tensors) {
    auto it = values.find(t.uid);
    if (it == values.end()) // a by-value tensor no op reads
      continue;
    group.tensors.push_back(it->second);
    group.uids[it->second] = t.uid;
  }
  return "";
}

std::string mlir::graph::lowerSpecToLinalg(const rt::GraphSpec &spec,
                                           ModuleOp module, StringRef name,
                                           std::vector<int64_t> &argUids) {
  if (std::string why = codegenDeclines(spec); !why.empty())
    return why;
  GroupOps group;
  if (std::string why =
          buildSpecGraphOps(spec, module, name, /*strides=*/false, group);
      !why.empty())
    return why;
  argUids.clear();
  for (BlockArgument arg : group.func.getArguments())
    argUids.push_back(group.uids.lookup(arg));
  if (std::string why = lowerGraphOpsToLinalg(group.func); !why.empty()) {
    group.func.erase();
    return why;
  }
  return "";
}
