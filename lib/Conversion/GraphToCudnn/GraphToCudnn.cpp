//===- GraphToCudnn.cpp - Fused groups as cuDNN group descriptions -------===//
//
// Each graph.group formed by graph-fuse becomes a GraphSpec: its ops with their
// ports (the dialect's operand and result names; a variadic port's members
// are NAME_0, NAME_1, ...), its attributes, and its tensors. A tensor read
// from outside the group, written for a later group or returned by the graph
// is a device buffer with a uid; a tensor used only inside the group is
// virtual; a graph.scalar is passed by value.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Conversion/GraphToCudnn.h"

#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Groups.h"
#include "GraphDialect/NodeOps.h"
#include "GraphDialect/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

#include <map>

using namespace mlir;
using namespace mlir::graph;
namespace ref = ::graph::ref;
namespace rt = ::graph::rt;
using ::graph::OpKind;
using ::graph::Port;
using ::graph::SpecPort;

void mlir::graph::buildGpuPipeline(OpPassManager &pm) {
  buildPreparePipeline(pm, PreparePipelineOptions());
  pm.addPass(createGraphWidenNormGradients());
  pm.addPass(createGraphSplitMoeScatter());
  pm.addPass(createGraphSplitMoeGather());
  pm.addPass(createGraphFuse());
  pm.addPass(createGraphSelectEngines());
}

bool mlir::graph::hasDynamicInputs(GraphOp graph) {
  return llvm::any_of(graph.getArgumentTypes(), [](Type type) {
    auto ranked = dyn_cast<RankedTensorType>(type);
    return ranked && !ranked.hasStaticShape();
  });
}

GraphOp mlir::graph::specializeForGpu(
    GraphOp graph, const std::vector<ref::Shape> &inputShapes,
    OwningOpRef<ModuleOp> &holder, std::string &error) {
  MLIRContext *context = graph.getContext();
  std::string name = graph.getSymName().str();
  error.clear();
  ScopedDiagnosticHandler capture(context, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      error += (error.empty() ? "" : "; ") + diag.str();
    return success();
  });
  OpBuilder builder(context);
  holder = ModuleOp::create(graph.getLoc());
  builder.setInsertionPointToEnd(holder->getBody());
  auto copy = cast<GraphOp>(builder.clone(*graph.getOperation()));
  SmallVector<SmallVector<int64_t>> shapes;
  for (const ref::Shape &shape : inputShapes)
    shapes.emplace_back(shape.begin(), shape.end());
  if (failed(specializeShapes(copy, shapes))) {
    if (error.empty())
      error = "graph @" + name + ": binding the dynamic dims failed";
    return nullptr;
  }
  PassManager pm(context, ModuleOp::getOperationName());
  buildGpuPipeline(pm);
  if (failed(pm.run(*holder))) {
    error = "graph @" + name + " with its dims bound: " +
            (error.empty() ? "the GPU pipeline failed" : error);
    return nullptr;
  }
  for (GraphOp g : holder->getOps<GraphOp>())
    return g;
  error = "graph @" + name + ": lost in the GPU pipeline";
  return nullptr;
}

namespace {

/// The ODS names of each op's operands and results, in ODS order, for the
/// ops cuDNN runs.
struct PortNames {
  SmallVector<Port> operands, results;
};

/// Calls `fn` with each port of `op` a spec has, in order: its operands
/// (isResult false), then its results of one value (isResult true), each
/// with the port's name and the value bound to it.
template <typename OpTy>
void forEachPort(
    OpTy op, const PortNames &names,
    llvm::function_ref<void(bool isResult, SpecPort port, Value value)> fn) {
  for (auto [i, name] : llvm::enumerate(names.operands)) {
    auto [start, length] = op.getODSOperandIndexAndLength(i);
    bool variadic = length != 1 || isa<ConcatenateOp>(op);
    for (unsigned j = 0; j < length; ++j) {
      // The runtime names pointwise operands in0, in1, in2.
      SpecPort port = name;
      if (isa<PointwiseOp>(op))
        port = ::graph::pointwiseInput(j);
      else if (variadic)
        port = ::graph::variadicElement(name, j);
      fn(false, port, op->getOperand(start + j));
    }
  }
  for (auto [i, name] : llvm::enumerate(names.results)) {
    auto [start, length] = op.getODSResultIndexAndLength(i);
    if (length == 1)
      fn(true, name, op->getResult(start));
  }
}

template <typename OpTy>
void addPorts(OpTy op, const PortNames &names,
              llvm::function_ref<int64_t(Value)> uidOf, rt::OpSpec &spec) {
  forEachPort(op, names, [&](bool isResult, SpecPort port, Value value) {
    (isResult ? spec.outputs : spec.inputs)[port] = uidOf(value);
  });
}


/// The ODS names of `op`'s operands and results (OpPorts.inc, generated
/// from GraphOps.td), as a spec names its ports: rope_backward's dY is
/// `input`, as rope's operand is (the runtime and the kernel generator read
/// both alike).
PortNames portsOf(Operation *op) {
  PortNames names;
  std::optional<OpKind> kind =
      ::graph::parseOpKind(op->getName().stripDialect());
  for (const OdsPort &entry : kOdsPorts)
    if (kind == entry.kind)
      (entry.isResult ? names.results : names.operands).push_back(entry.port);
  if (isa<RopeBackwardOp>(op))
    names.operands.front() = Port::input;
  return names;
}

/// Attributes as the runtime reads them: integers and arrays in intAttrs
/// (unit and bool as 0/1, enums as their value), floats in floatAttrs; the
/// pointwise/reduction mode and the norm phase in `mode`.
void addAttributes(Operation *op, rt::OpSpec &spec) {
  DictionaryAttr props =
      dyn_cast_or_null<DictionaryAttr>(op->getPropertiesAsAttribute());
  if (!props)
    return;
  for (NamedAttribute attr : props) {
    std::string name = attr.getName().str();
    Attribute value = attr.getValue();
    if (name == "name" || name == "operandSegmentSizes" ||
        name == "resultSegmentSizes")
      continue;
    if (auto mode = dyn_cast<PointwiseModeAttr>(value))
      spec.mode = stringifyPointwiseMode(mode.getValue()).str();
    else if (auto mode = dyn_cast<ReductionModeAttr>(value))
      spec.mode = stringifyReductionMode(mode.getValue()).str();
    else if (auto phase = dyn_cast<NormPhaseAttr>(value))
      spec.mode = stringifyNormPhase(phase.getValue()).str();
    else if (auto conv = dyn_cast<ConvModeAttr>(value))
      spec.mode = stringifyConvMode(conv.getValue()).str();
    else if (auto align = dyn_cast<DiagonalAlignmentAttr>(value))
      spec.intAttrs[name] = {static_cast<int64_t>(align.getValue())};
    else if (auto moe = dyn_cast<MoeModeAttr>(value))
      spec.intAttrs[name] = {static_cast<int64_t>(moe.getValue())};
    else if (auto array = dyn_cast<DenseI64ArrayAttr>(value))
      spec.intAttrs[name] = std::vector<int64_t>(array.asArrayRef().begin(),
                                                 array.asArrayRef().end());
    else if (auto boolean = dyn_cast<BoolAttr>(value))
      spec.intAttrs[name] = {boolean.getValue() ? 1 : 0};
    else if (isa<UnitAttr>(value))
      spec.intAttrs[name] = {1};
    else if (auto integer = dyn_cast<IntegerAttr>(value))
      spec.intAttrs[name] = {integer.getInt()};
    else if (auto real = dyn_cast<FloatAttr>(value))
      spec.floatAttrs[name] = real.getValueAsDouble();
    else if (auto type = dyn_cast<TypeAttr>(value)) {
      if (name == "compute_data_type")
        (void)ref::toDType(type.getValue(), spec.computeType);
    }
  }
  // A comparison in booleans or integer arithmetic in i32 compares or
  // computes the values themselves (the CPU reference and the generated
  // kernels do): cuDNN gets them in f32, exact for integers below 2^24.
  if (auto pointwise = dyn_cast<PointwiseOp>(op))
    if ((PointwiseOp::isComparison(pointwise.getMode()) ||
         PointwiseOp::isIntegerExact(pointwise.getMode())) &&
        (spec.computeType == ::graph::DType::I1 ||
         spec.computeType == ::graph::DType::I32))
      spec.computeType = ::graph::DType::F32;
  // Convolutions get explicit geometry so the runtime need not know the
  // defaults.
  auto geometry = [&](auto conv, unsigned spatial) {
    auto put = [&](StringRef key, SmallVector<int64_t> values) {
      spec.intAttrs[key.str()] =
          std::vector<int64_t>(values.begin(), values.end());
    };
    put("pre_padding", conv.getPrePaddingOrDefault(spatial));
    put("post_padding", conv.getPostPaddingOrDefault(spatial));
    put("stride", conv.getStrideOrDefault(spatial));
    put("dilation", conv.getDilationOrDefault(spatial));
    spec.intAttrs.erase("padding");
  };
  unsigned rank =
      op->getNumOperands()
          ? cast<RankedTensorType>(op->getOperand(0).getType()).getRank()
          : 0;
  if (auto conv = dyn_cast<ConvFpropOp>(op))
    geometry(conv, rank - 2);
  else if (auto conv = dyn_cast<ConvDgradOp>(op))
    geometry(conv, rank - 2);
  else if (auto conv = dyn_cast<ConvWgradOp>(op))
    geometry(conv, rank - 2);
}

/// Pads every tensor of `spec` and shifts its ops' axis attributes to the
/// ranks cuDNN wants (RankPadding).
void padRanks(rt::GraphSpec &spec) {
  SmallVector<OpKind> kinds;
  for (const rt::OpSpec &op : spec.ops)
    if (std::optional<OpKind> kind = op.kind.get())
      kinds.push_back(*kind);
  size_t maxRank = 0;
  for (const rt::TensorSpec &tensor : spec.tensors)
    maxRank = std::max(maxRank, tensor.dims.size());
  RankPadding padding = RankPadding::of(kinds, maxRank);
  std::map<int64_t, int64_t> leadingPad;
  for (rt::TensorSpec &tensor : spec.tensors) {
    leadingPad[tensor.uid] = padding.leading(tensor.dims.size());
    padding.pad(tensor);
  }
  for (rt::OpSpec &op : spec.ops) {
    std::optional<OpKind> kind = op.kind.get();
    if (!kind)
      continue;
    auto firstIn = op.inputs.find(Port::input);
    if (firstIn == op.inputs.end())
      firstIn = op.inputs.find(::graph::variadicElement(Port::inputs, 0));
    auto out = op.outputs.find(Port::output);
    int64_t inputPad =
        firstIn == op.inputs.end() ? 0 : leadingPad[firstIn->second];
    int64_t outputPad = out == op.outputs.end() ? 0 : leadingPad[out->second];
    for (auto &[name, values] : op.intAttrs)
      padAxisAttribute(*kind, name, values, inputPad, outputPad);
  }
}

/// The 16-bit float type of the other operand when `op` is a matmul or
/// convolution whose operand `value` is f32 and whose other operand is f16
/// or bf16; null otherwise.
Type tensorCorePartnerType(Operation *op, Value value) {
  Value lhs, rhs;
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    lhs = resolveGroupValue(matmul.getA());
    rhs = resolveGroupValue(matmul.getB());
  } else if (isa<ConvFpropOp, ConvDgradOp, ConvWgradOp>(op)) {
    lhs = resolveGroupValue(op->getOperand(0));
    rhs = resolveGroupValue(op->getOperand(1));
  } else {
    return nullptr;
  }
  Value other = value == lhs ? rhs : value == rhs ? lhs : Value();
  if (!other || value == other)
    return nullptr;
  Type mine = cast<RankedTensorType>(value.getType()).getElementType();
  Type theirs = cast<RankedTensorType>(other.getType()).getElementType();
  if (!mine.isF32() || !(theirs.isF16() || theirs.isBF16()))
    return nullptr;
  return theirs;
}

/// The stored types tensorCoreStoredType gives the results of `nodes` that
/// `crossesGroups` (and are not graph outputs).
llvm::DenseMap<Value, Type> tensorCoreOperandTypes(
    ArrayRef<Operation *> nodes, llvm::function_ref<bool(Value)> crossesGroups,
    llvm::function_ref<bool(Operation *, Operation *)> sameGroup) {
  llvm::DenseMap<Value, Type> narrowed;
  for (Operation *node : nodes) {
    Operation &op = *node;
    for (Value value : op.getResults()) {
      if (!isa<RankedTensorType>(value.getType()) || !crossesGroups(value))
        continue;
      if (Type stored = tensorCoreStoredType(
              value, [&](Operation *user) { return sameGroup(user, &op); }))
        narrowed[value] = stored;
    }
  }
  return narrowed;
}

bool isViewOp(Operation *op) {
  return isa<ReshapeOp, TransposeOp, SliceOp>(op);
}

SmallVector<int64_t> packedStrides(ArrayRef<int64_t> dims) {
  SmallVector<int64_t> strides(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * std::max<int64_t>(dims[i + 1], 1);
  return strides;
}

/// A view result read in place: the buffer it aliases, where it starts in
/// it (elements) and the strides it is read through.
struct ViewAlias {
  Value root;
  int64_t offset = 0;
  SmallVector<int64_t> strides;
};

/// Whether the batch dims of a matmul operand (all but the last two) step
/// through memory as one dim of their product would: cuDNN runs a matmul
/// with more than one batch dim only with them merged (CudnnRelabel.cpp).
bool batchDimsMerge(ArrayRef<int64_t> dims, ArrayRef<int64_t> strides) {
  SmallVector<size_t> batch; // the non-unit batch dims
  for (size_t i = 0; i + 2 < dims.size(); ++i)
    if (dims[i] != 1)
      batch.push_back(i);
  for (size_t k = 0; k + 1 < batch.size(); ++k)
    if (strides[batch[k]] != strides[batch[k + 1]] * dims[batch[k + 1]])
      return false;
  return true;
}

/// Whether every engine that may run `user` reads a view operand of `dims`
/// through `strides` correctly: cuDNN matmuls want a unit stride in one of
/// the two matrix dims and batch dims that merge into one, sdpa and the
/// memory-bound ops a unit innermost stride. Other readers (convolutions,
/// norms, concatenation) get a packed copy.
bool readsStrided(Operation *user, ArrayRef<int64_t> dims,
                  ArrayRef<int64_t> strides) {
  size_t rank = strides.size();
  if (isViewOp(user))
    return true; // that view is judged by its own readers
  if (isa<MatmulOp>(user))
    return rank >= 2 && (strides[rank - 1] == 1 || strides[rank - 2] == 1) &&
           batchDimsMerge(dims, strides);
  if (auto pointwise = dyn_cast<PointwiseOp>(user)) {
    // Measured on the H200 (cuDNN 9.19, runtime fusion): an operand the op
    // broadcasts ([b, 1, d] over [b, s, d]) read through a strided view (a
    // slice of a wider row) computes wrong numbers; packed, it is right.
    auto result = cast<RankedTensorType>(pointwise.getOutput().getType());
    if (result.getShape() != dims) {
      SmallVector<int64_t> packed = packedStrides(dims);
      for (size_t i = 0; i < rank; ++i)
        if (dims[i] != 1 && strides[i] != packed[i])
          return false;
    }
    return rank >= 1 && strides[rank - 1] == 1;
  }
  if (isa<SdpaOp, SdpaBackwardOp, RopeOp, RopeBackwardOp>(user))
    return rank >= 1 && strides[rank - 1] == 1;
  return false;
}

/// Decides which views fold (`aliases`) and the layouts chosen for
/// intermediates so that a transpose of them is packed (`chosen`). `nodes`:
/// the graph's node ops in schedule order; values are followed across
/// group boundaries (Groups.h).
void planViews(ArrayRef<Operation *> nodes,
               const llvm::DenseMap<Value, unsigned> &outputs,
               llvm::DenseMap<Value, ViewAlias> &aliases,
               llvm::DenseMap<Value, SmallVector<int64_t>> &chosen) {
  auto dimsOf = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  };
  auto stridesOf = [&](Value v) -> SmallVector<int64_t> {
    if (auto it = chosen.find(v); it != chosen.end())
      return it->second;
    ArrayRef<int64_t> given = getStrides(cast<RankedTensorType>(v.getType()));
    if (!given.empty())
      return SmallVector<int64_t>(given);
    return packedStrides(dimsOf(v));
  };
  // An intermediate read only by one transpose that keeps the innermost
  // axis is written in the transpose's order: the transposed view is then
  // packed (sdpa's O in [b, s, h, d] order for the out-projection).
  for (Operation *node : nodes) {
    auto transpose = dyn_cast<TransposeOp>(node);
    if (!transpose)
      continue;
    Value source = resolveGroupValue(transpose.getInput());
    Operation *def = source.getDefiningOp();
    ArrayRef<int64_t> perm = transpose.getPermutation();
    auto sourceType = cast<RankedTensorType>(source.getType());
    if (!def || !isa<SdpaOp, MatmulOp, PointwiseOp>(def) ||
        outputs.count(source) || getResolvedUsers(source).size() != 1 ||
        perm.empty() || perm.back() != static_cast<int64_t>(perm.size()) - 1 ||
        !sourceType.hasStaticShape())
      continue;
    // Strides a user gave the intermediate (anything but the packed
    // default graph-infer-layout writes) are kept.
    ArrayRef<int64_t> given = getStrides(sourceType);
    if (!given.empty() &&
        given != ArrayRef<int64_t>(packedStrides(sourceType.getShape())))
      continue;
    SmallVector<int64_t> packed = packedStrides(dimsOf(transpose.getOutput()));
    SmallVector<int64_t> strides(perm.size());
    for (size_t i = 0; i < perm.size(); ++i)
      strides[perm[i]] = packed[i];
    if (isa<MatmulOp>(def) && !batchDimsMerge(sourceType.getShape(), strides))
      continue; // a matmul's C must keep its batch dims mergeable
    chosen[source] = strides;
  }
  for (Operation *node : nodes) {
    Operation &op = *node;
    if (!isViewOp(&op))
      continue;
    Value in = resolveGroupValue(op.getOperand(0)), out = op.getResult(0);
    auto inType = cast<RankedTensorType>(in.getType());
    auto outType = cast<RankedTensorType>(out.getType());
    if (outputs.count(out) || !inType.hasStaticShape() ||
        !outType.hasStaticShape() ||
        (in.getDefiningOp() && isa<ScalarOp>(in.getDefiningOp())))
      continue;
    ViewAlias base;
    if (auto it = aliases.find(in); it != aliases.end()) {
      base = it->second;
    } else {
      base.root = in;
      base.strides = stridesOf(in);
    }
    ViewAlias view;
    view.root = base.root;
    view.offset = base.offset;
    bool ok = true;
    if (auto transpose = dyn_cast<TransposeOp>(op)) {
      for (int64_t axis : transpose.getPermutation())
        view.strides.push_back(base.strides[axis]);
    } else if (auto slice = dyn_cast<SliceOp>(op)) {
      ArrayRef<int64_t> start = slice.getStart();
      std::optional<ArrayRef<int64_t>> step = slice.getStep();
      for (size_t i = 0; i < base.strides.size(); ++i) {
        int64_t by = step && i < step->size() ? (*step)[i] : 1;
        int64_t from = i < start.size() ? start[i] : 0;
        ok &= by > 0 && from >= 0;
        view.offset += from * base.strides[i];
        view.strides.push_back(base.strides[i] * by);
      }
    } else {
      ref::Shape strides;
      ok = ref::reshapeViewStrides(
          ref::Shape(inType.getShape().begin(), inType.getShape().end()),
          ref::Shape(base.strides.begin(), base.strides.end()),
          ref::Shape(outType.getShape().begin(), outType.getShape().end()),
          strides);
      view.strides.assign(strides.begin(), strides.end());
    }
    if (!ok || view.strides.size() != static_cast<size_t>(outType.getRank()))
      continue;
    // Readers load 16-byte vectors and cuDNN wants aligned operands: a view
    // that starts inside a 16-byte line (a slice from column 1) is copied.
    unsigned bits = outType.getElementType().getIntOrFloatBitWidth();
    if ((view.offset * bits) % (16 * 8) != 0)
      continue;
    // Unit dims: any stride addresses them; cuDNN wants it positive.
    for (int64_t &stride : view.strides)
      stride = std::max<int64_t>(stride, 1);
    if (llvm::all_of(getResolvedUsers(out), [&](Operation *user) {
          return readsStrided(user, outType.getShape(), view.strides);
        }))
      aliases[out] = std::move(view);
  }
}

/// buildGroupSpec's error for an op with no cuDNN lowering.
std::string noLoweringError(const rt::OpSpec &opSpec) {
  return opSpec.kind + (opSpec.name.empty() ? "" : " \"" + opSpec.name + "\"") +
         ": no cuDNN lowering for this op";
}

/// "" or the first error buildGroupSpec gives for node op `op`: it has no
/// cuDNN lowering, or a tensor bound to one of its ports (a group's block
/// argument as the value it stands for) cannot be described.
std::string checkSpecOp(Operation *op) {
  rt::OpSpec opSpec;
  opSpec.kind = op->getName().stripDialect(); // parses the mnemonic
  opSpec.name = getNodeLabel(op).str();
  if (!withNodeOp(op, [](auto) {}))
    return noLoweringError(opSpec);
  std::string error;
  withNodeOp(op, [&](auto typed) {
    forEachPort(typed, portsOf(op), [&](bool, SpecPort, Value value) {
      rt::TensorSpec tensor;
      if (error.empty())
        error = describeTensor(resolveGroupValue(value), tensor);
    });
  });
  return error.empty() ? "" : opSpec.kind + ": " + error;
}

} // namespace

Type mlir::graph::tensorCoreStoredType(
    Value value, llvm::function_ref<bool(Operation *)> inItsGroup) {
  if (!isa<RankedTensorType>(value.getType()))
    return nullptr;
  // Batchnorm training's Y leaving its group is written in X's 16-bit type:
  // cuDNN 9.19's heuristics offer no engine config for an f16 X with an f32
  // Y (the frontend's BN + relu + mask, its Y a virtual of the f32
  // intermediate type, fused apart from the relu). A framework's half
  // batchnorm writes half too.
  if (auto norm = value.getDefiningOp<BatchnormOp>();
      norm && value == norm.getY()) {
    Type x = cast<RankedTensorType>(norm.getInput().getType()).getElementType();
    Type y = cast<RankedTensorType>(value.getType()).getElementType();
    if (!y.isF32() || !(x.isF16() || x.isBF16()))
      return nullptr;
    for (Operation *user : getResolvedUsers(value))
      if (inItsGroup(user))
        return nullptr; // a reader in its group would see the rounded value
    return x;
  }
  Type common;
  for (Operation *user : getResolvedUsers(value)) {
    // A reader in its group would see the rounded value; keep it exact.
    if (inItsGroup(user))
      return nullptr;
    Type partner = tensorCorePartnerType(user, value);
    if (!partner || (common && common != partner))
      return nullptr;
    common = partner;
  }
  return common;
}

std::string mlir::graph::describeTensor(Value value, rt::TensorSpec &tensor) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!ref::toDType(type.getElementType(), tensor.dtype))
    return "a tensor of element type with no GPU path";
  if (!type.hasStaticShape())
    return "a tensor with dynamic dims: bind them first (specializeForGpu "
           "binds them from the inputs at execute time)";
  tensor.dims.assign(type.getShape().begin(), type.getShape().end());
  ArrayRef<int64_t> strides = getStrides(type);
  if (strides.empty())
    tensor.strides = ref::rowMajorStrides(tensor.dims);
  else
    tensor.strides.assign(strides.begin(), strides.end());
  return "";
}

RankPadding RankPadding::of(ArrayRef<OpKind> kinds, size_t maxRank) {
  auto isOneOf = [&](std::initializer_list<OpKind> set) {
    return llvm::any_of(kinds,
                        [&](OpKind k) { return llvm::is_contained(set, k); });
  };
  if (isOneOf({OpKind::ConvFprop, OpKind::ConvDgrad, OpKind::ConvWgrad,
               OpKind::Sdpa, OpKind::SdpaBackward, OpKind::SdpaFp8,
               OpKind::SdpaFp8Backward, OpKind::SdpaMxfp8,
               OpKind::SdpaMxfp8Backward}))
    return RankPadding();
  RankPadding padding;
  padding.trailing =
      isOneOf({OpKind::Layernorm, OpKind::LayernormBackward, OpKind::Rmsnorm,
               OpKind::RmsnormBackward, OpKind::Instancenorm,
               OpKind::InstancenormBackward, OpKind::AdaLayernorm,
               OpKind::AdaLayernormBackward, OpKind::Batchnorm,
               OpKind::BatchnormBackward, OpKind::BatchnormInference,
               OpKind::Genstats});
  padding.rank = std::max<size_t>(padding.trailing ? 4 : 3, maxRank);
  return padding;
}

int64_t RankPadding::leading(size_t tensorRank) const {
  return rank && !trailing ? static_cast<int64_t>(rank - tensorRank) : 0;
}

void RankPadding::pad(rt::TensorSpec &tensor) const {
  while (tensor.dims.size() < rank) {
    if (trailing) {
      tensor.dims.push_back(1);
      tensor.strides.push_back(1);
      continue;
    }
    int64_t span =
        tensor.dims.empty() ? 1 : tensor.dims.front() * tensor.strides.front();
    tensor.dims.insert(tensor.dims.begin(), 1);
    tensor.strides.insert(tensor.strides.begin(), std::max<int64_t>(span, 1));
  }
}

void mlir::graph::padAxisAttribute(OpKind kind, StringRef name,
                                   std::vector<int64_t> &values,
                                   int64_t inputPad, int64_t outputPad) {
  switch (kind) {
  case OpKind::Concatenate:
    if (name == "axis")
      for (int64_t &axis : values)
        axis += inputPad;
    break;
  case OpKind::BlockScaleQuantize:
    if (name == "axis")
      for (int64_t &axis : values)
        if (axis >= 0) // negative: the default, the last dim
          axis += inputPad;
    break;
  case OpKind::Transpose:
    if (name == "permutation") {
      for (int64_t &p : values)
        p += inputPad;
      for (int64_t i = inputPad - 1; i >= 0; --i)
        values.insert(values.begin(), i);
    }
    break;
  case OpKind::Slice:
    if (name == "start" || name == "limit" || name == "step")
      values.insert(values.begin(), inputPad, name == "start" ? 0 : 1);
    break;
  case OpKind::Pointwise:
    // gen_index counts along an axis of its output.
    if (name == "axis" && !values.empty())
      values[0] += outputPad;
    break;
  default:
    break;
  }
}

std::string mlir::graph::buildGroupSpec(ArrayRef<Operation *> ops, Type compute,
                                        GroupTensorFn tensorOf,
                                        rt::GraphSpec &spec) {
  for (Operation *op : ops) {
    rt::OpSpec opSpec;
    opSpec.kind = op->getName().stripDialect(); // parses the mnemonic
    opSpec.name = getNodeLabel(op).str();
    if (compute)
      (void)ref::toDType(compute, opSpec.computeType);
    addAttributes(op, opSpec);
    if (!withNodeOp(op, [](auto) {}))
      return noLoweringError(opSpec);
    std::string error;
    auto uidFn = [&](Value v) {
      return error.empty() ? tensorOf(v, error) : int64_t(0);
    };
    withNodeOp(
        op, [&](auto typed) { addPorts(typed, portsOf(op), uidFn, opSpec); });
    if (!error.empty())
      return opSpec.kind + ": " + error;
    spec.ops.push_back(std::move(opSpec));
  }
  padRanks(spec);
  return "";
}

std::string mlir::graph::verifyGpuLowerable(GraphOp graph) {
  Block &body = graph.getBody().front();
  OutputOp output = graph.getOutputOp();
  // uids the graph gave: every graph input and output needs one.
  for (unsigned i = 0; i < graph.getNumArguments(); ++i)
    if (!graph.getInputUid(i))
      return "input " + std::to_string(i) +
             " has no uid (run graph-assign-uids first)";
  for (unsigned i = 0; i < graph.getNumResults(); ++i) {
    if (!graph.getOutputUid(i))
      return "output " + std::to_string(i) +
             " has no uid (run graph-assign-uids first)";
    if (resolveGroupValue(output.getOperand(i)).getDefiningOp<ScalarOp>())
      return "output " + std::to_string(i) +
             " is a pass-by-value scalar; the GPU path returns only computed "
             "tensors";
  }
  // Every node op in a graph.group (ids increase in schedule order).
  SmallVector<GroupOp> groups;
  for (Operation &op : body.without_terminator()) {
    if (isa<ScalarOp>(op))
      continue;
    auto group = dyn_cast<GroupOp>(op);
    if (!group)
      return "graph @" + graph.getSymName().str() + ": " +
             op.getName().getStringRef().str() +
             " is in no graph.group; run graph-fuse and graph-select-engines "
             "first";
    groups.push_back(group);
  }
  // Every input (even an unused one) and every tensor a group's op reads
  // or writes has a GPU description, and every node op a cuDNN lowering.
  for (BlockArgument arg : body.getArguments()) {
    rt::TensorSpec tensor;
    if (std::string error = describeTensor(arg, tensor); !error.empty())
      return "input " + std::to_string(arg.getArgNumber()) + ": " + error;
  }
  for (GroupOp group : groups)
    for (Operation &node : group.getNodes())
      if (!isa<ScalarOp>(node))
        if (std::string error = checkSpecOp(&node); !error.empty())
          return error;
  return "";
}

std::string
mlir::graph::describeGroups(GraphOp graph, CudnnProgram &program,
                            std::vector<GroupDescription> &described,
                            bool foldViews) {
  program = CudnnProgram();
  described.clear();
  if (std::string error = verifyGpuLowerable(graph); !error.empty())
    return error;
  bool tf32 = false;
  if (auto compute = graph.getComputeDataType())
    tf32 = compute->isTF32();
  Block &body = graph.getBody().front();
  OutputOp output = graph.getOutputOp();

  // uids the graph gave: inputs, outputs, scalars (0 is a uid; every graph
  // input and output has one, verifyGpuLowerable checked). Fresh ones go
  // above.
  llvm::DenseMap<Value, int64_t> uidOf;
  int64_t maxUid = 0;
  for (unsigned i = 0; i < graph.getNumArguments(); ++i) {
    int64_t uid = *graph.getInputUid(i);
    uidOf[body.getArgument(i)] = uid;
    maxUid = std::max(maxUid, uid);
  }
  graph.walk([&](ScalarOp scalar) {
    if (auto uid = scalar.getUid()) {
      uidOf[scalar.getOutput()] = static_cast<int64_t>(*uid);
      maxUid = std::max(maxUid, static_cast<int64_t>(*uid));
    }
  });
  llvm::DenseMap<Value, unsigned> outputIndex;
  program.outputAliasesInput.assign(graph.getNumResults(), -1);
  program.outputUids.assign(graph.getNumResults(), 0);
  for (unsigned i = 0; i < graph.getNumResults(); ++i) {
    Value value = resolveGroupValue(output.getOperand(i));
    int64_t outUid = *graph.getOutputUid(i);
    maxUid = std::max(maxUid, outUid);
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      program.outputAliasesInput[i] = arg.getArgNumber();
      continue;
    }
    if (!outputIndex.count(value)) { // a tensor returned twice is computed once
      outputIndex[value] = i;
      uidOf[value] = outUid;
    }
    program.outputUids[i] = uidOf[value];
  }
  auto fresh = [&](Value value) {
    auto [it, inserted] = uidOf.try_emplace(value, maxUid + 1);
    if (inserted)
      ++maxUid;
    return it->second;
  };

  // The graph.group ops in schedule order, and every node op in them
  // (every op but a scalar is in one: verifyGpuLowerable checked).
  llvm::MapVector<int64_t, SmallVector<Operation *>> groups;
  llvm::DenseMap<int64_t, GroupOp> groupOps;
  SmallVector<Operation *> nodes;
  for (Operation &op : body.without_terminator()) {
    if (isa<ScalarOp>(op))
      continue;
    auto group = cast<GroupOp>(op);
    groupOps[group.getId()] = group;
    for (Operation &node : group.getNodes()) {
      if (isa<ScalarOp>(node))
        continue; // passed by value, like a scalar of the graph
      groups[group.getId()].push_back(&node);
      nodes.push_back(&node);
    }
  }
  SmallVector<int64_t> order;
  for (auto &entry : groups)
    order.push_back(entry.first);
  llvm::sort(order);

  llvm::DenseMap<Operation *, int64_t> groupOfOp;
  for (auto &[id, ops] : groups)
    for (Operation *op : ops)
      groupOfOp[op] = id;

  // Which values need a device buffer: read by another group or returned.
  auto needsBuffer = [&](Value value) {
    if (outputIndex.count(value))
      return true;
    Operation *def = value.getDefiningOp();
    for (Operation *user : getResolvedUsers(value))
      if (!isa<OutputOp>(user) &&
          groupOfOp.lookup(user) != groupOfOp.lookup(def))
        return true;
    return false;
  };
  llvm::DenseMap<Value, Type> narrowed = tensorCoreOperandTypes(
      nodes,
      [&](Value value) {
        return needsBuffer(value) && !outputIndex.count(value);
      },
      [&](Operation *a, Operation *b) {
        return groupOfOp.lookup(a) == groupOfOp.lookup(b);
      });
  llvm::DenseMap<Value, ViewAlias> aliases;
  llvm::DenseMap<Value, SmallVector<int64_t>> chosen;
  if (foldViews)
    planViews(nodes, outputIndex, aliases, chosen);
  llvm::DenseMap<Value, bool> registered;
  auto describe = [&](Value value, rt::TensorSpec &tensor) -> std::string {
    if (std::string error = describeTensor(value, tensor); !error.empty())
      return error;
    if (Type element = narrowed.lookup(value))
      (void)ref::toDType(element, tensor.dtype);
    ArrayRef<int64_t> strides;
    if (auto alias = aliases.find(value); alias != aliases.end())
      strides = alias->second.strides;
    else if (auto layout = chosen.find(value); layout != chosen.end())
      strides = layout->second;
    if (!strides.empty())
      tensor.strides.assign(strides.begin(), strides.end());
    return "";
  };
  auto registerBuffer = [&](Value value, const rt::TensorSpec &tensor) {
    if (registered.lookup(value))
      return;
    registered[value] = true;
    DeviceTensor device;
    device.uid = tensor.uid;
    device.dtype = tensor.dtype;
    device.dims = tensor.dims;
    device.strides = tensor.strides;
    if (auto alias = aliases.find(value); alias != aliases.end()) {
      device.aliasOf = fresh(alias->second.root);
      device.aliasOffset = alias->second.offset;
    }
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      device.role = DeviceTensor::Role::Input;
      device.index = arg.getArgNumber();
    } else if (outputIndex.count(value)) {
      device.role = DeviceTensor::Role::Output;
      device.index = outputIndex[value];
    }
    program.tensors.push_back(device);
  };

  // Inputs always get a buffer (even unused ones keep their uid; each has
  // a description: verifyGpuLowerable checked).
  for (BlockArgument arg : body.getArguments()) {
    rt::TensorSpec tensor;
    tensor.uid = uidOf[arg];
    (void)describe(arg, tensor);
    registerBuffer(arg, tensor);
  }

  for (int64_t id : order) {
    ArrayRef<Operation *> ops = groups[id];
    GroupDescription group;
    group.name = graph.getSymName().str() + "/group" + std::to_string(id);
    if (GroupOp groupOp = groupOps.lookup(id))
      if (std::optional<ArrayAttr> engines = groupOp.getEngines())
        for (auto engine : engines->getAsRange<EngineAttr>())
          group.engines.push_back(engine.getName().str());
    GroupSource &source = group.source;
    for (Operation *op : ops)
      if (!(isViewOp(op) && aliases.count(op->getResult(0))))
        source.ops.push_back(op);
    if (source.ops.empty())
      continue; // only folded views: nothing to run
    source.tf32 = tf32;
    llvm::DenseMap<Value, bool> inGroup;
    auto addTensor = [&](Value value) -> std::string {
      value = resolveGroupValue(value); // a group's argument is its operand
      int64_t uid = uidOf.count(value) ? uidOf[value] : fresh(value);
      if (inGroup.lookup(value))
        return "";
      inGroup[value] = true;
      rt::TensorSpec tensor;
      tensor.uid = uid;
      if (std::string why = describe(value, tensor); !why.empty())
        return why;
      if (auto scalar = value.getDefiningOp<ScalarOp>()) {
        tensor.isByValue = true;
        if (auto f = dyn_cast<FloatAttr>(scalar.getValue()))
          tensor.byValue = f.getValueAsDouble();
        else if (auto i = dyn_cast<IntegerAttr>(scalar.getValue()))
          tensor.byValue = static_cast<double>(i.getInt());
      } else if (isa<BlockArgument>(value) || needsBuffer(value)) {
        tensor.readByValue = isTakenByValue(value, source.ops); // not a scalar
        registerBuffer(value, tensor);
        source.values[uid] = value;
      } else {
        tensor.isVirtual = true;
        source.values[uid] = value; // a buffer once the group is split
      }
      source.tensors.emplace_back(value, tensor);
      return "";
    };
    // The tensors in the order the ops' ports bind them (buildGroupSpec's).
    for (Operation *op : source.ops) {
      std::string error;
      withNodeOp(op, [&](auto typed) {
        forEachPort(typed, portsOf(op), [&](bool, SpecPort, Value value) {
          if (error.empty())
            error = addTensor(value);
        });
      });
      if (!error.empty())
        return op->getName().stripDialect().str() + ": " + error;
    }
    described.push_back(std::move(group));
  }
  return "";
}

std::string mlir::graph::lowerToCudnn(GraphOp graph, CudnnProgram &program,
                                      std::vector<GroupSource> *sources,
                                      bool foldViews) {
  if (sources)
    sources->clear();
  std::vector<GroupDescription> groups;
  if (std::string error = describeGroups(graph, program, groups, foldViews);
      !error.empty())
    return error;
  Type compute;
  if (auto cdt = graph.getComputeDataType())
    compute = *cdt;
  for (GroupDescription &group : groups) {
    rt::GraphSpec spec;
    spec.name = group.name;
    spec.engines = group.engines;
    llvm::DenseMap<Value, const rt::TensorSpec *> described;
    for (auto &[value, tensor] : group.source.tensors)
      described[value] = &tensor;
    llvm::DenseSet<Value> added;
    auto tensorOf = [&](Value value, std::string &error) -> int64_t {
      value = resolveGroupValue(value);
      const rt::TensorSpec *tensor = described.lookup(value);
      if (!tensor) {
        error = "a tensor its group's description lacks";
        return 0;
      }
      if (added.insert(value).second)
        spec.tensors.push_back(*tensor);
      return tensor->uid;
    };
    if (std::string error =
            buildGroupSpec(group.source.ops, compute, tensorOf, spec);
        !error.empty())
      return error;
    program.groups.push_back(std::move(spec));
    if (sources)
      sources->push_back(std::move(group.source));
  }
  return "";
}
