//===- SpecToLinalg.cpp - A group description as linalg on tensors -------===//
//
// Which group descriptions codegen_v1 runs (codegenDeclines), and the thin
// adapter for the callers that hold only a description (compileToPtx, for
// the runtime and the executable lowering): its ops become graph ops on
// the description's (already padded) tensors in a func, which the same
// conversion patterns as graph-lower-to-linalg lower (GraphToLinalg.cpp).
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Conversion/GraphToCodegen.h"
#include "ScalarOps.h"

#include "GraphDialect/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <map>
#include <set>

using namespace mlir;
using namespace mlir::graph;
namespace rt = ::graph::rt;
using ::graph::DType;
using ::graph::OpKind;
using ::graph::pointwiseInput;
using ::graph::Port;

namespace {

Type elementType(Builder &b, DType dtype) {
  switch (dtype) {
  case DType::F32:
    return b.getF32Type();
  case DType::F16:
    return b.getF16Type();
  case DType::BF16:
    return b.getBF16Type();
  default:
    return nullptr;
  }
}

bool rowMajor(const rt::TensorSpec &t) {
  int64_t expect = 1;
  for (int64_t i = static_cast<int64_t>(t.dims.size()) - 1; i >= 0; --i) {
    if (t.dims[i] != 1 && t.strides[i] != expect)
      return false;
    expect *= t.dims[i];
  }
  return true;
}

} // namespace

std::string mlir::graph::codegenDeclines(const rt::GraphSpec &spec) {
  std::map<int64_t, const rt::TensorSpec *> tensors;
  for (const rt::TensorSpec &t : spec.tensors) {
    tensors[t.uid] = &t;
    if (t.dtype != DType::F32 && t.dtype != DType::F16 &&
        t.dtype != DType::BF16)
      return "generated kernels take f32, f16 and bf16 tensors only";
    if (!t.isVirtual && !t.isByValue && !rowMajor(t))
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

std::string mlir::graph::lowerSpecToLinalg(const rt::GraphSpec &spec,
                                           ModuleOp module, StringRef name,
                                           std::vector<int64_t> &argUids) {
  if (std::string why = codegenDeclines(spec); !why.empty())
    return why;
  OpBuilder b(module.getContext());
  Location loc = module.getLoc();
  std::map<int64_t, const rt::TensorSpec *> tensors;
  for (const rt::TensorSpec &t : spec.tensors)
    tensors[t.uid] = &t;
  auto tensorType = [&](const rt::TensorSpec &t) {
    return RankedTensorType::get(t.dims, elementType(b, t.dtype));
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
  argUids.clear();
  for (size_t i = 0; i < inputs.size(); ++i) {
    values[inputs[i]] = entry->getArgument(i);
    argUids.push_back(inputs[i]);
  }
  for (int64_t uid : outputs)
    argUids.push_back(uid);

  // The spec's ops as graph ops; a by-value tensor is a graph.scalar.
  auto valueOf = [&](int64_t uid) -> Value {
    if (auto it = values.find(uid); it != values.end())
      return it->second;
    const rt::TensorSpec &t = *tensors[uid];
    if (!t.isByValue)
      return Value();
    return values[uid] = ScalarOp::create(
               b, loc, TypeRange{tensorType(t)}, ValueRange(),
               {b.getNamedAttr("value", b.getF64FloatAttr(t.byValue))});
  };
  for (const rt::OpSpec &op : spec.ops) {
    const rt::TensorSpec &out = *tensors[op.outputs.at(Port::output)];
    SmallVector<Value> operands;
    SmallVector<NamedAttribute> attrs;
    Operation *created;
    if (op.kind == OpKind::Pointwise) {
      unsigned arity = pointwiseArity(op.mode);
      for (unsigned k = 0; k < arity; ++k) {
        auto port = op.inputs.find(pointwiseInput(k));
        Value operand =
            port == op.inputs.end() ? Value() : valueOf(port->second);
        if (!operand) {
          func.erase();
          return "pointwise " + op.mode + " lacks in" + std::to_string(k);
        }
        operands.push_back(operand);
      }
      attrs.push_back(b.getNamedAttr(
          "mode", PointwiseModeAttr::get(b.getContext(),
                                         *symbolizePointwiseMode(op.mode))));
      for (auto &[attr, value] : op.floatAttrs)
        attrs.push_back(b.getNamedAttr(attr, b.getF64FloatAttr(value)));
      created = PointwiseOp::create(b, loc, TypeRange{tensorType(out)},
                                    operands, attrs);
    } else {
      Value input = valueOf(op.inputs.at(Port::input));
      if (!input) {
        func.erase();
        return "reduction: input uid " +
               std::to_string(op.inputs.at(Port::input)) +
               " is neither an argument nor a by-value scalar";
      }
      attrs.push_back(b.getNamedAttr(
          "mode", ReductionModeAttr::get(b.getContext(),
                                         *symbolizeReductionMode(op.mode))));
      created = ReductionOp::create(b, loc, TypeRange{tensorType(out)},
                                    ValueRange{input}, attrs);
    }
    values[out.uid] = created->getResult(0);
  }
  SmallVector<Value> results;
  for (int64_t uid : outputs)
    results.push_back(values.at(uid));
  func::ReturnOp::create(b, loc, results);
  if (std::string why = lowerGraphOpsToLinalg(func); !why.empty()) {
    func.erase();
    return why;
  }
  return "";
}
