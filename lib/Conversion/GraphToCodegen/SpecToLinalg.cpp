//===- SpecToLinalg.cpp - A group description as linalg on tensors -------===//
//
// One linalg.generic per op: pointwise ops iterate over their output's dims
// and read broadcast operands through constant-0 indexing maps; last-axis
// reductions iterate over their input's dims with a trailing reduction
// iterator. Scalars passed by value become f32 constants. Everything is
// computed in f32; bodies extend from and truncate to the stored types.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Conversion/GraphToCodegen.h"
#include "ScalarOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <cmath>
#include <limits>
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

Value toF32(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isF32())
    return v;
  return arith::ExtFOp::create(b, loc, b.getF32Type(), v);
}

Value fromF32(OpBuilder &b, Location loc, Value v, Type to) {
  if (to.isF32())
    return v;
  return arith::TruncFOp::create(b, loc, to, v);
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
  std::map<int64_t, Value> values, destinations;
  argUids.clear();
  for (size_t i = 0; i < inputs.size(); ++i) {
    values[inputs[i]] = entry->getArgument(i);
    argUids.push_back(inputs[i]);
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    unsigned index = inputs.size() + i;
    destinations[outputs[i]] = entry->getArgument(index);
    func.setArgAttr(index, "bufferization.writable", b.getBoolAttr(true));
    argUids.push_back(outputs[i]);
  }

  // The result's destination: its output argument, or a fresh tensor.
  auto destination = [&](const rt::TensorSpec &t) -> Value {
    auto it = destinations.find(t.uid);
    if (it != destinations.end())
      return it->second;
    return tensor::EmptyOp::create(b, loc, t.dims, elementType(b, t.dtype));
  };
  /// The map reading `t` (aligned to the trailing dims) in a `rank`-d space.
  auto readMap = [&](const rt::TensorSpec &t, ArrayRef<int64_t> space) {
    SmallVector<AffineExpr> exprs;
    size_t offset = space.size() - t.dims.size();
    for (size_t j = 0; j < t.dims.size(); ++j)
      exprs.push_back(t.dims[j] == space[offset + j] || t.dims[j] != 1
                          ? b.getAffineDimExpr(offset + j)
                          : b.getAffineConstantExpr(0));
    return AffineMap::get(space.size(), 0, exprs, b.getContext());
  };

  for (const rt::OpSpec &op : spec.ops) {
    const rt::TensorSpec &out = *tensors[op.outputs.at(Port::output)];
    Type outType = elementType(b, out.dtype);
    if (op.kind == OpKind::Pointwise) {
      SmallVector<Value> ins;
      SmallVector<AffineMap> maps;
      SmallVector<double> byValue; // NaN: read from an operand
      unsigned arity = pointwiseArity(op.mode);
      for (unsigned k = 0; k < arity; ++k) {
        auto port = op.inputs.find(pointwiseInput(k));
        if (port == op.inputs.end())
          return "pointwise " + op.mode + " lacks in" + std::to_string(k);
        const rt::TensorSpec &t = *tensors[port->second];
        if (t.isByValue) {
          byValue.push_back(t.byValue);
          continue;
        }
        if (t.dims.size() > out.dims.size())
          return "pointwise " + op.mode +
                 ": an operand of higher rank than "
                 "its output";
        byValue.push_back(std::nan(""));
        ins.push_back(values.at(t.uid));
        maps.push_back(readMap(t, out.dims));
      }
      maps.push_back(b.getMultiDimIdentityMap(out.dims.size()));
      SmallVector<utils::IteratorType> iterators(out.dims.size(),
                                                 utils::IteratorType::parallel);
      auto generic = linalg::GenericOp::create(
          b, loc, TypeRange{RankedTensorType::get(out.dims, outType)}, ins,
          ValueRange{destination(out)}, maps, iterators,
          [&](OpBuilder &nb, Location nloc, ValueRange blockArgs) {
            SmallVector<Value> f32Args;
            unsigned next = 0;
            for (double v : byValue)
              f32Args.push_back(std::isnan(v)
                                    ? toF32(nb, nloc, blockArgs[next++])
                                    : arith::ConstantOp::create(
                                          nb, nloc, nb.getF32FloatAttr(v))
                                          .getResult());
            Value r = emitPointwise(nb, nloc, op, f32Args);
            linalg::YieldOp::create(nb, nloc, fromF32(nb, nloc, r, outType));
          });
      values[out.uid] = generic.getResult(0);
      continue;
    }
    // A last-axis reduction into an f32 destination.
    const rt::TensorSpec &in = *tensors[op.inputs.at(Port::input)];
    if (!values.count(in.uid)) {
      // A by-value scalar has no argument: its value, splat.
      auto type = RankedTensorType::get(in.dims, elementType(b, in.dtype));
      auto floatType = dyn_cast<FloatType>(type.getElementType());
      if (!in.isByValue || !floatType)
        return "reduction: input uid " + std::to_string(in.uid) +
               " is neither an argument nor a float by-value scalar";
      values[in.uid] = arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(type, b.getFloatAttr(floatType, in.byValue)));
    }
    double init = op.mode == "add"   ? 0.0
                  : op.mode == "max" ? -std::numeric_limits<double>::infinity()
                                     : std::numeric_limits<double>::infinity();
    Value identity = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(init));
    Value filled = linalg::FillOp::create(b, loc, ValueRange{identity},
                                          ValueRange{destination(out)})
                       .getResult(0);
    size_t rank = in.dims.size();
    SmallVector<AffineExpr> outExprs;
    for (size_t j = 0; j + 1 < rank; ++j)
      outExprs.push_back(b.getAffineDimExpr(j));
    outExprs.push_back(b.getAffineConstantExpr(0));
    SmallVector<AffineMap> maps = {
        b.getMultiDimIdentityMap(rank),
        AffineMap::get(rank, 0, outExprs, b.getContext())};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.back() = utils::IteratorType::reduction;
    std::string mode = op.mode;
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{filled.getType()}, ValueRange{values.at(in.uid)},
        ValueRange{filled}, maps, iterators,
        [&](OpBuilder &nb, Location nloc, ValueRange blockArgs) {
          Value x = toF32(nb, nloc, blockArgs[0]);
          Value acc = blockArgs[1];
          Value r =
              mode == "add"
                  ? arith::AddFOp::create(nb, nloc, acc, x).getResult()
              : mode == "max"
                  ? arith::MaximumFOp::create(nb, nloc, acc, x).getResult()
                  : arith::MinimumFOp::create(nb, nloc, acc, x).getResult();
          linalg::YieldOp::create(nb, nloc, r);
        });
    values[out.uid] = generic.getResult(0);
  }
  // Each result is written into its output argument: a pointwise generic
  // never reads its init, so canonicalization swaps the argument for a
  // tensor.empty and bufferization would write a temporary instead.
  SmallVector<Value> results;
  for (int64_t uid : outputs) {
    Value value = values.at(uid);
    auto dest = destinations.find(uid);
    if (dest != destinations.end() && value != dest->second)
      value = bufferization::MaterializeInDestinationOp::create(
                  b, loc, value.getType(), value, dest->second)
                  .getResult();
    results.push_back(value);
  }
  func::ReturnOp::create(b, loc, results);
  return "";
}
