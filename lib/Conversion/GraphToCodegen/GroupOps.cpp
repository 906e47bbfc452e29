//===- GroupOps.cpp - A group's graph ops as the kernel generator reads --===//
//
// graph-generate-kernels' adapter: one group of the graph, as describeGroups
// gives it, becomes the func of graph ops the kernel generator plans and
// emits (GroupOps) by cloning the group's node ops onto its tensors as the
// group descriptions type them: the cuDNN ranks (RankPadding, the axis
// attributes shifted with them), the stored element types and layouts
// (#graph.strides). That is the func buildSpecGraphOps builds from the
// group's GraphSpec, so the kernels are the same, with no GraphSpec written.
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"

#include "GraphDialect/Conversion/GraphToCodegen.h"
#include "GraphDialect/Conversion/GraphToCudnn.h"
#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Groups.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::graph::kernelgen;

/// Shifts the axis attributes of `clone` (a copy of `op`) as
/// padAxisAttribute does those of a group description: by the leading unit
/// dims `padding` gives `op`'s first input (`input` or `inputs_0`) and its
/// `output`.
static void padAxes(Operation *op, Operation *clone,
                    const RankPadding &padding) {
  auto leadingOf = [&](Value value) -> int64_t {
    return value ? padding.leading(
                       cast<RankedTensorType>(value.getType()).getRank())
                 : 0;
  };
  Value first;
  for (auto &[port, value] : namedValues(op, /*isResult=*/false))
    if (port == Port::input || port == variadicElement(Port::inputs, 0)) {
      first = value;
      break;
    }
  int64_t inputPad = leadingOf(first);
  int64_t outputPad = leadingOf(namedValue(op, Port::output, true));
  auto props = dyn_cast_or_null<DictionaryAttr>(op->getPropertiesAsAttribute());
  if (!props)
    return;
  Builder b(op->getContext());
  for (NamedAttribute attr : props) {
    std::vector<int64_t> values;
    auto integer = dyn_cast<IntegerAttr>(attr.getValue());
    auto array = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (integer && !isa<BoolAttr>(attr.getValue()))
      values = {integer.getInt()};
    else if (array)
      values.assign(array.asArrayRef().begin(), array.asArrayRef().end());
    else
      continue;
    std::vector<int64_t> padded = values;
    padAxisAttribute(opKindOf(op), attr.getName(), padded, inputPad, outputPad);
    if (padded == values)
      continue;
    Attribute shifted = array ? Attribute(b.getDenseI64ArrayAttr(padded))
                              : b.getIntegerAttr(integer.getType(), padded[0]);
    clone->setInherentAttr(attr.getName(), shifted);
  }
}

std::string mlir::graph::buildGroupOps(const GroupDescription &group,
                                       ModuleOp module, StringRef name,
                                       GroupOps &out, bool strides) {
  MLIRContext *ctx = module.getContext();
  const GroupSource &source = group.source;
  out = GroupOps();
  out.name = group.name;
  if (source.ops.empty())
    return "the group has no ops";

  // The tensors as the group's description has them: ranks padded.
  SmallVector<OpKind> kinds;
  for (Operation *op : source.ops)
    kinds.push_back(opKindOf(op));
  size_t maxRank = 0;
  for (const auto &[value, tensor] : source.tensors)
    maxRank = std::max(maxRank, tensor.dims.size());
  RankPadding padding = RankPadding::of(kinds, maxRank);
  llvm::MapVector<Value, rt::TensorSpec> tensors;
  for (const auto &[value, tensor] : source.tensors) {
    rt::TensorSpec padded = tensor;
    padding.pad(padded);
    tensors.insert({value, padded});
  }
  auto typeOf = [&](const rt::TensorSpec &t) {
    return groupTensorType(ctx, t, strides);
  };

  // Arguments: the buffers read, then the ones written (returned), each in
  // description order.
  llvm::DenseSet<Value> produced;
  for (Operation *op : source.ops)
    produced.insert(op->result_begin(), op->result_end());
  SmallVector<Value> inputs, outputs;
  for (const auto &[value, tensor] : tensors)
    if (!tensor.isVirtual && !tensor.isByValue)
      (produced.contains(value) ? outputs : inputs).push_back(value);
  SmallVector<Type> argTypes, resultTypes;
  for (Value value : llvm::concat<Value>(inputs, outputs))
    argTypes.push_back(typeOf(tensors.lookup(value)));
  for (Value value : outputs)
    resultTypes.push_back(typeOf(tensors.lookup(value)));
  Location loc = source.ops.front()->getLoc();
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(b, loc, name,
                                   b.getFunctionType(argTypes, resultTypes));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  llvm::DenseMap<Value, Value> valueOf; // the group's value -> the func's
  for (auto [index, input] : llvm::enumerate(inputs))
    valueOf[input] = entry->getArgument(index);

  // The ops, reading their operands as the values they stand for (a
  // group's argument is its operand); a by-value tensor is a graph.scalar
  // made where it is first read.
  for (Operation *op : source.ops) {
    IRMapping mapping;
    for (Value operand : op->getOperands()) {
      Value value = resolveGroupValue(operand);
      Value mapped = valueOf.lookup(value);
      if (!mapped) {
        auto it = tensors.find(value);
        if (it == tensors.end() || !it->second.isByValue) {
          func.erase();
          out = GroupOps();
          return labelOf(op) +
                 ": an operand is neither read from a buffer, computed "
                 "before it nor a by-value scalar";
        }
        mapped = valueOf[value] =
            createByValueScalar(b, op->getLoc(), it->second, strides);
      }
      mapping.map(operand, mapped);
    }
    Operation *clone = b.clone(*op, mapping);
    for (auto [result, cloned] :
         llvm::zip(op->getResults(), clone->getResults())) {
      if (auto it = tensors.find(result); it != tensors.end())
        cloned.setType(typeOf(it->second));
      valueOf[result] = cloned;
    }
    padAxes(op, clone, padding);
  }
  SmallVector<Value> results;
  for (Value output : outputs)
    results.push_back(valueOf.lookup(output));
  func::ReturnOp::create(b, loc, results);

  out.func = func;
  for (auto [index, output] : llvm::enumerate(outputs))
    out.uids[entry->getArgument(inputs.size() + index)] =
        tensors.lookup(output).uid;
  for (const auto &[value, tensor] : tensors) {
    Value mapped = valueOf.lookup(value);
    if (!mapped) // a tensor no op reads or writes here
      continue;
    out.tensors.push_back(mapped);
    out.uids[mapped] = tensor.uid;
  }
  return "";
}
