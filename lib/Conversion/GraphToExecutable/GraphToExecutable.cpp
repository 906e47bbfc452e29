//===- GraphToExecutable.cpp - graph.graph to exec.program ---------------===//
//
// The graph-lower-to-executable pass: lowers each prepared, fused and
// engine-ranked graph.graph with lowerToCudnn (the lowering graph-run uses)
// and writes the resulting CudnnProgram as an exec.program of the same
// name, which replaces the graph. The exec module is the AOT artifact.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Conversion/GraphToCudnn.h"
#include "GraphDialect/Conversion/Passes.h"
#include "GraphDialect/Executable/ExecOps.h"
#include "GraphDialect/GraphOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::graph {
#define GEN_PASS_DEF_GRAPHLOWERTOEXECUTABLE
#include "GraphDialect/Conversion/Passes.h.inc"
} // namespace mlir::graph

using namespace mlir;
using namespace mlir::graph;
namespace ref = ::graph::ref;
namespace rt = ::graph::rt;

namespace {

Type typeOf(MLIRContext *context, ref::DType dtype) {
  return parseType(ref::dtypeName(dtype), context);
}

exec::TensorAttr tensorAttr(MLIRContext *context, int64_t uid, Type dtype,
                            ArrayRef<int64_t> dims, ArrayRef<int64_t> strides,
                            bool isVirtual = false, FloatAttr byValue = {},
                            StringRef name = "") {
  return exec::TensorAttr::get(context, uid, dtype, dims, strides, isVirtual,
                               byValue,
                               name.empty() ? StringAttr()
                                            : StringAttr::get(context, name));
}

/// A graph input or output as the program declares it.
exec::TensorAttr ioAttr(MLIRContext *context, const ref::TensorInfo &info,
                        int64_t uid) {
  ref::Shape strides =
      info.strides.empty() ? ref::rowMajorStrides(info.shape) : info.strides;
  return tensorAttr(context, uid, typeOf(context, info.dtype), info.shape,
                    strides, false, {}, info.name);
}

exec::OpAttr opAttr(MLIRContext *context, const rt::OpSpec &op) {
  Builder b(context);
  auto ports = [&](const std::map<std::string, int64_t> &map) {
    SmallVector<NamedAttribute> entries;
    for (auto &[port, uid] : map)
      entries.emplace_back(b.getStringAttr(port), b.getI64IntegerAttr(uid));
    return b.getDictionaryAttr(entries);
  };
  SmallVector<NamedAttribute> ints, floats;
  for (auto &[name, values] : op.intAttrs)
    ints.emplace_back(b.getStringAttr(name), b.getDenseI64ArrayAttr(values));
  for (auto &[name, value] : op.floatAttrs)
    floats.emplace_back(b.getStringAttr(name), b.getF64FloatAttr(value));
  auto optional = [&](const std::string &text) {
    return text.empty() ? StringAttr() : b.getStringAttr(text);
  };
  return exec::OpAttr::get(
      context, b.getStringAttr(op.kind), optional(op.mode), optional(op.name),
      ports(op.inputs), ports(op.outputs),
      ints.empty() ? DictionaryAttr() : b.getDictionaryAttr(ints),
      floats.empty() ? DictionaryAttr() : b.getDictionaryAttr(floats),
      typeOf(context, op.computeType));
}

struct GraphLowerToExecutable
    : mlir::graph::impl::GraphLowerToExecutableBase<GraphLowerToExecutable> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    SmallVector<Attribute> modes;
    for (const std::string &mode : heuristics) {
      std::string lower = StringRef(mode).lower();
      if (lower != "a" && lower != "b" && lower != "fallback") {
        module.emitError("graph-lower-to-executable: heuristics mode '")
            << mode << "': expected a, b or fallback";
        return signalPassFailure();
      }
      modes.push_back(StringAttr::get(context, lower));
    }
    if (modes.empty())
      modes = {StringAttr::get(context, "a"),
               StringAttr::get(context, "fallback")};
    ArrayAttr heuristicsAttr = ArrayAttr::get(context, modes);

    for (GraphOp graph : llvm::make_early_inc_range(module.getOps<GraphOp>()))
      if (failed(lower(graph, heuristicsAttr)))
        return signalPassFailure();
  }

  LogicalResult lower(GraphOp graph, ArrayAttr heuristicsAttr) {
    MLIRContext *context = &getContext();
    CudnnProgram program;
    if (std::string error = lowerToCudnn(graph, program); !error.empty())
      return graph.emitError("cannot lower graph @")
             << graph.getSymName() << " to an exec.program: " << error;
    std::vector<ref::TensorInfo> inputInfo, outputInfo;
    ref::describeGraph(graph, inputInfo, outputInfo);

    SmallVector<Attribute> inputs, outputs, buffers;
    SmallVector<int64_t> aliases;
    for (const ref::TensorInfo &info : inputInfo)
      inputs.push_back(ioAttr(context, info, *info.uid)); // lowered: has one
    for (auto [i, info] : llvm::enumerate(outputInfo)) {
      int alias = program.outputAliasesInput[i];
      aliases.push_back(alias);
      outputs.push_back(ioAttr(context, info,
                               alias >= 0 ? *info.uid : program.outputUids[i]));
    }
    for (const DeviceTensor &tensor : program.tensors)
      if (tensor.role == DeviceTensor::Role::Intermediate)
        buffers.push_back(tensorAttr(context, tensor.uid,
                                     typeOf(context, tensor.dtype),
                                     tensor.dims, tensor.strides));

    OpBuilder b(graph);
    auto programOp = exec::ProgramOp::create(
        b, graph.getLoc(), graph.getSymName(), b.getArrayAttr(inputs),
        b.getArrayAttr(outputs), b.getArrayAttr(buffers),
        llvm::any_of(aliases, [](int64_t a) { return a >= 0; })
            ? b.getDenseI64ArrayAttr(aliases)
            : DenseI64ArrayAttr());
    Block *body = new Block();
    programOp.getBody().push_back(body);
    b.setInsertionPointToEnd(body);
    for (const rt::GraphSpec &spec : program.groups) {
      SmallVector<Attribute> tensors, ops;
      for (const rt::TensorSpec &tensor : spec.tensors)
        tensors.push_back(tensorAttr(
            context, tensor.uid, typeOf(context, tensor.dtype), tensor.dims,
            tensor.strides, tensor.isVirtual,
            tensor.isByValue ? b.getF64FloatAttr(tensor.byValue)
                             : FloatAttr()));
      for (const rt::OpSpec &op : spec.ops)
        ops.push_back(opAttr(context, op));
      exec::CudnnGroupOp::create(b, graph.getLoc(), spec.name,
                                 b.getArrayAttr(tensors), b.getArrayAttr(ops),
                                 heuristicsAttr, IntegerAttr(),
                                 DenseI64ArrayAttr());
    }
    graph.erase();
    return success();
  }
};

} // namespace
