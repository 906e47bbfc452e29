//===- GraphDialect.cpp - Graph dialect registration and container op ----===//
//
// Holds the TableGen-generated definitions (one translation unit for all of
// them keeps the build fast), the strides encoding and the graph container.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Groups.h"
#include "GraphDialect/NodeOps.h"
#include "GraphDialect/Support/CheckedMath.h"
#include "GraphDialect/Support/Uid.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::graph;

#include "GraphDialect/GraphDialect.cpp.inc"
#include "GraphDialect/GraphEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "GraphDialect/GraphAttrs.cpp.inc"

//===----------------------------------------------------------------------===//
// Custom assembly directives
//===----------------------------------------------------------------------===//

/// Optional results print their type, or `none` when the op does not produce
/// them, so the position of every result stays explicit:
///   -> (tensor<4x8xf32>, none, none)
template <typename... Types>
static ParseResult parseOptionalTypes(OpAsmParser &parser, Types &...types) {
  bool first = true;
  auto parseOne = [&](Type &type) -> ParseResult {
    if (!first && parser.parseComma())
      return failure();
    first = false;
    if (parser.parseType(type))
      return failure();
    if (isa<NoneType>(type))
      type = Type();
    return success();
  };
  return success((succeeded(parseOne(types)) && ...));
}

template <typename... Types>
static void printOptionalTypes(OpAsmPrinter &printer, Operation *,
                               Types... types) {
  bool first = true;
  auto printOne = [&](Type type) {
    if (!first)
      printer << ", ";
    first = false;
    if (type)
      printer << type;
    else
      printer << "none";
  };
  (printOne(types), ...);
}

/// sdpa_backward's results: dQ, dK, dV, then dBias when given, then
/// dSink_token exactly when the op reads a sink_token (so a fourth type is
/// dSink_token's with a sink, dBias's without).
static ParseResult parseSinkGradientResults(
    OpAsmParser &parser,
    const std::optional<OpAsmParser::UnresolvedOperand> &sinkToken, Type &dQ,
    Type &dK, Type &dV, Type &dBias, Type &dSinkToken) {
  SmallVector<Type, 5> types;
  if (parser.parseTypeList(types))
    return failure();
  size_t required = 3 + (sinkToken ? 1 : 0);
  if (types.size() != required && types.size() != required + 1)
    return parser.emitError(parser.getCurrentLocation())
           << "sdpa_backward has " << required << " or " << required + 1
           << " results (dQ, dK, dV, [dBias]"
           << (sinkToken ? ", dSink_token" : "") << "), got " << types.size();
  dQ = types[0];
  dK = types[1];
  dV = types[2];
  if (types.size() == required + 1)
    dBias = types[3];
  if (sinkToken)
    dSinkToken = types.back();
  return success();
}

static void printSinkGradientResults(OpAsmPrinter &printer, Operation *, Value,
                                     Type dQ, Type dK, Type dV, Type dBias,
                                     Type dSinkToken) {
  printer << dQ << ", " << dK << ", " << dV;
  if (dBias)
    printer << ", " << dBias;
  if (dSinkToken)
    printer << ", " << dSinkToken;
}

#include "EnumKeyword.h"

#include "GraphDialect/GraphInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "GraphDialect/GraphOps.cpp.inc"

void GraphDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "GraphDialect/GraphOps.cpp.inc"
      >();
  registerAttributes();
}

/// getPortValues for `op` of class OpTy: the ODS tables of its kind name
/// the groups getODSOperandIndexAndLength / ...ResultIndexAndLength count.
template <typename OpTy>
static void collectPortValues(OpTy op, SmallVectorImpl<PortValue> &out) {
  std::optional<::graph::OpKind> kind =
      ::graph::parseOpKind(op->getName().stripDialect());
  if (!kind)
    return;
  unsigned operand = 0, result = 0;
  for (const OdsPort &entry : kOdsPorts) {
    if (entry.kind != *kind)
      continue;
    auto [start, length] = entry.isResult
                               ? op.getODSResultIndexAndLength(result++)
                               : op.getODSOperandIndexAndLength(operand++);
    if (length == 0)
      out.push_back({entry.port, entry.isResult, Value()});
    for (unsigned j = 0; j < length; ++j)
      out.push_back({entry.port, entry.isResult,
                     entry.isResult ? Value(op->getResult(start + j))
                                    : op->getOperand(start + j)});
  }
}

template <typename... Ops>
static void collectPortValuesOf(Operation *op,
                                SmallVectorImpl<PortValue> &out) {
  (void)((isa<Ops>(op) ? (collectPortValues(cast<Ops>(op), out), true)
                       : false) ||
         ...);
}

SmallVector<PortValue> mlir::graph::getPortValues(Operation *op) {
  SmallVector<PortValue> out;
  collectPortValuesOf<
#define GET_OP_LIST
#include "GraphDialect/GraphOps.cpp.inc"
      >(op, out);
  return out;
}

void GraphDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "GraphDialect/GraphAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Helpers shared by the verifiers
//===----------------------------------------------------------------------===//

ArrayRef<int64_t> mlir::graph::getStrides(RankedTensorType type) {
  if (auto strides = dyn_cast_or_null<StridesAttr>(type.getEncoding()))
    return strides.getStrides();
  return {};
}

SmallVector<int64_t> mlir::graph::getRowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = ::graph::checkedMul(strides[i + 1],
                                     std::max<int64_t>(shape[i + 1], 1))
                     .value_or(::graph::kMaxTensorBytes);
  return strides;
}

bool mlir::graph::fitsTensorByteLimit(RankedTensorType type) {
  SmallVector<int64_t> dims;
  for (int64_t d : type.getShape())
    dims.push_back(ShapedType::isDynamic(d) || d < 1 ? 1 : d);
  ArrayRef<int64_t> strides = getStrides(type);
  std::optional<int64_t> elements =
      strides.size() == dims.size() && !dims.empty()
          ? ::graph::checkedSpan(dims, strides)
          : ::graph::checkedElementCount(dims);
  Type element = type.getElementType();
  int64_t bits = element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 64;
  return elements && ::graph::checkedByteSize(*elements, bits).has_value();
}

StringRef mlir::graph::getNodeLabel(Operation *op) {
  if (auto name = op->getAttrOfType<StringAttr>("name"))
    return name.getValue();
  return "";
}

InFlightDiagnostic mlir::graph::emitNodeError(Operation *op) {
  InFlightDiagnostic diag = op->emitError();
  diag << op->getName().stripDialect();
  StringRef label = getNodeLabel(op);
  if (!label.empty())
    diag << " \"" << label << "\"";
  diag << ": ";
  return diag;
}

//===----------------------------------------------------------------------===//
// StridesAttr
//===----------------------------------------------------------------------===//

LogicalResult StridesAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  ArrayRef<int64_t> strides = getStrides();
  if (strides.size() != shape.size())
    return emitError() << "tensor has " << shape.size() << " dims but "
                       << strides.size() << " strides (rank of strides must "
                       << "equal rank of dims)";
  for (auto [i, stride] : llvm::enumerate(strides))
    if (stride <= 0)
      return emitError() << "stride of dim " << i << " is " << stride
                         << " (strides must be positive)";
  // Overlapping strides are legal here: an input may be read through them
  // (a broadcast or a transposed view of a smaller buffer). What is written
  // must not overlap; GraphOp::verifyRegions checks the values ops produce.
  return success();
}

// Walking dims from the smallest stride up, each stride must step over
// everything the smaller ones span.
std::string mlir::graph::describeStrideOverlap(ArrayRef<int64_t> shape,
                                               ArrayRef<int64_t> strides) {
  if (strides.size() != shape.size())
    return "";
  SmallVector<unsigned> order;
  for (unsigned i = 0; i < shape.size(); ++i)
    if (shape[i] != 1 && !ShapedType::isDynamic(shape[i]))
      order.push_back(i);
  llvm::stable_sort(
      order, [&](unsigned a, unsigned b) { return strides[a] < strides[b]; });
  int64_t span = 1;
  for (unsigned i = 0; i < order.size(); ++i) {
    unsigned dim = order[i];
    if (i > 0 && strides[dim] < span)
      return ("strides overlap: dim " + Twine(dim) + " has stride " +
              Twine(strides[dim]) + " but the dims with smaller strides " +
              "span " + Twine(span) + " elements")
          .str();
    span = strides[dim] * shape[dim];
  }
  return "";
}

//===----------------------------------------------------------------------===//
// GraphOp
//===----------------------------------------------------------------------===//

void GraphOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                    FunctionType type) {
  state.addAttribute(SymbolTable::getSymbolAttrName(),
                     builder.getStringAttr(name));
  state.addAttribute(getFunctionTypeAttrName(state.name), TypeAttr::get(type));
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (Type input : type.getInputs())
    block->addArgument(input, state.location);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(block);
  OutputOp::create(builder, state.location);
}

ParseResult GraphOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType =
      [](Builder &builder, ArrayRef<Type> argTypes, ArrayRef<Type> results,
         function_interface_impl::VariadicFlag,
         std::string &) { return builder.getFunctionType(argTypes, results); };
  SMLoc loc = parser.getCurrentLocation();
  if (function_interface_impl::parseFunctionOp(
          parser, result, /*allowVariadic=*/false,
          getFunctionTypeAttrName(result.name), buildFuncType,
          getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name)))
    return failure();
  // The data types are TypeAttr properties; anything else (a string such as
  // "f32") would be dropped silently when the op is created.
  for (StringAttr name : {getIoDataTypeAttrName(result.name),
                          getIntermediateDataTypeAttrName(result.name),
                          getComputeDataTypeAttrName(result.name)})
    if (Attribute attr = result.attributes.get(name);
        attr && !isa<TypeAttr>(attr))
      return parser.emitError(loc)
             << "'graph.graph' op " << name.getValue()
             << " must be an element type such as f16 (written without "
             << "quotes), got " << attr;
  return success();
}

void GraphOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(
      p, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

OutputOp GraphOp::getOutputOp() {
  return cast<OutputOp>(getBody().front().getTerminator());
}

static std::optional<int64_t> uidOf(DictionaryAttr attrs) {
  if (!attrs)
    return std::nullopt;
  if (auto uid = attrs.getAs<IntegerAttr>(GraphDialect::kUidAttrName))
    return uid.getInt();
  return std::nullopt;
}

std::optional<int64_t> GraphOp::getInputUid(unsigned i) {
  return uidOf(getArgAttrDict(i));
}
std::optional<int64_t> GraphOp::getOutputUid(unsigned i) {
  return uidOf(getResultAttrDict(i));
}
bool GraphOp::isInputByValue(unsigned i) {
  DictionaryAttr attrs = getArgAttrDict(i);
  return attrs && attrs.get(GraphDialect::kByValueAttrName);
}

/// Diagnostics of the container name it: 'graph.graph' op @mlp: ...
static InFlightDiagnostic emitGraphError(GraphOp graph) {
  InFlightDiagnostic diag = graph.emitOpError();
  diag << "@" << graph.getSymName() << ": ";
  return diag;
}

LogicalResult GraphOp::verify() {
  // Graph-level data types must be element types a tensor can hold.
  for (auto [attrName, attr] :
       {std::pair<StringRef, TypeAttr>{"io_data_type", getIoDataTypeAttr()},
        {"intermediate_data_type", getIntermediateDataTypeAttr()},
        {"compute_data_type", getComputeDataTypeAttr()}}) {
    if (attr && !isa<FloatType, IntegerType>(attr.getValue()))
      return emitGraphError(*this)
             << attrName << " must be a float or integer type, "
             << "got " << attr.getValue();
  }
  auto checkIoAttrs = [&](DictionaryAttr attrs, StringRef what,
                          unsigned index) -> LogicalResult {
    if (!attrs)
      return success();
    for (NamedAttribute attr : attrs) {
      StringRef name = attr.getName().getValue();
      if (name == GraphDialect::kUidAttrName) {
        auto uid = dyn_cast<IntegerAttr>(attr.getValue());
        if (!uid || !uid.getType().isSignlessInteger(64))
          return emitGraphError(*this)
                 << what << " " << index
                 << ": graph.uid must be an i64 integer, got "
                 << attr.getValue();
        if (uid.getInt() < 0)
          return emitGraphError(*this)
                 << what << " " << index << ": uid " << uid.getInt()
                 << " is negative (uids must be >= 0)";
        if (uid.getInt() > ::graph::kMaxUid)
          return emitGraphError(*this)
                 << what << " " << index << ": uid " << uid.getInt()
                 << " is above the largest uid " << ::graph::kMaxUid
                 << " (the two largest int64 values are reserved)";
      } else if (name == GraphDialect::kNameAttrName) {
        if (!isa<StringAttr>(attr.getValue()))
          return emitGraphError(*this)
                 << what << " " << index
                 << ": graph.name must be a string, got " << attr.getValue();
      } else if (name == GraphDialect::kByValueAttrName) {
        if (!isa<UnitAttr>(attr.getValue()))
          return emitGraphError(*this)
                 << what << " " << index
                 << ": graph.by_value is a unit attribute, got "
                 << attr.getValue();
        if (what != "input")
          return emitGraphError(*this)
                 << what << " " << index
                 << ": graph.by_value marks inputs only (an output is "
                    "written to device memory)";
        auto type = dyn_cast<RankedTensorType>(getArgumentTypes()[index]);
        auto label = attrs.getAs<StringAttr>(GraphDialect::kNameAttrName);
        if (type && (!type.hasStaticShape() || type.getNumElements() != 1))
          return emitGraphError(*this)
                 << what << " " << index
                 << (label ? " \"" + label.getValue().str() + "\"" : "") << " ("
                 << type
                 << "): graph.by_value needs a one-element tensor (cuDNN "
                    "takes it as a scalar)";
      }
    }
    return success();
  };
  for (unsigned i = 0, e = getNumArguments(); i < e; ++i)
    if (failed(checkIoAttrs(getArgAttrDict(i), "input", i)))
      return failure();
  for (unsigned i = 0, e = getNumResults(); i < e; ++i)
    if (failed(checkIoAttrs(getResultAttrDict(i), "output", i)))
      return failure();
  for (Type type : getFunctionType().getInputs())
    if (!isa<RankedTensorType>(type))
      return emitGraphError(*this)
             << "graph inputs must be ranked tensors, got " << type;
  for (Type type : getFunctionType().getResults())
    if (!isa<RankedTensorType>(type))
      return emitGraphError(*this)
             << "graph outputs must be ranked tensors, got " << type;
  for (auto [kind, types] :
       {std::pair<StringRef, ArrayRef<Type>>{"input",
                                             getFunctionType().getInputs()},
        {"output", getFunctionType().getResults()}})
    for (auto [i, type] : llvm::enumerate(types))
      if (!fitsTensorByteLimit(cast<RankedTensorType>(type)))
        return emitGraphError(*this)
               << kind << " " << i << " (" << type
               << ") is larger than 2^63 bytes (a tensor's byte size must "
               << "fit in 63 bits)";
  return success();
}

/// Describes the tensor holding `uid` for a diagnostic.
static std::string describeIo(StringRef kind, unsigned index, StringRef name) {
  std::string text = (kind + " " + Twine(index)).str();
  if (!name.empty())
    text += (" \"" + name + "\"").str();
  return text;
}

LogicalResult GraphOp::verifyRegions() {
  // FunctionOpInterface has already checked the entry block against the
  // signature.
  Block &body = getBody().front();

  // uids are unique among inputs, outputs and scalars, except that an output
  // that is the same value as an input (or as another output) is one tensor.
  llvm::DenseMap<int64_t, std::pair<std::string, Value>> owners;
  auto claim = [&](std::optional<int64_t> uid, Value value,
                   const std::string &who) -> LogicalResult {
    if (!uid || *uid < 0)
      return success();
    auto [it, inserted] = owners.try_emplace(*uid, who, value);
    if (inserted || it->second.second == value)
      return success();
    return emitGraphError(*this)
           << "uid " << *uid << " is used by both " << it->second.first
           << " and " << who << " (uids must be unique in a graph)";
  };
  auto nameOf = [](DictionaryAttr attrs) -> StringRef {
    if (attrs)
      if (auto name = attrs.getAs<StringAttr>(GraphDialect::kNameAttrName))
        return name.getValue();
    return "";
  };
  for (unsigned i = 0, e = getNumArguments(); i < e; ++i)
    if (failed(claim(getInputUid(i), body.getArgument(i),
                     describeIo("input", i, nameOf(getArgAttrDict(i))))))
      return failure();
  WalkResult walk = getBody().walk([&](ScalarOp scalar) {
    std::optional<int64_t> uid;
    if (scalar.getUidAttr())
      uid = static_cast<int64_t>(*scalar.getUid());
    if (uid && *uid < 0) {
      emitNodeError(scalar)
          << "uid " << *uid << " is negative (uids must be >= 0)";
      return WalkResult::interrupt();
    }
    if (uid && *uid > ::graph::kMaxUid) {
      emitNodeError(scalar)
          << "uid " << *uid << " is above the largest uid " << ::graph::kMaxUid
          << " (the two largest int64 values are reserved)";
      return WalkResult::interrupt();
    }
    std::string who = "scalar";
    if (!getNodeLabel(scalar).empty())
      who += (" \"" + getNodeLabel(scalar) + "\"").str();
    if (failed(claim(uid, scalar.getOutput(), who)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  OutputOp output = getOutputOp();
  for (unsigned i = 0, e = getNumResults();
       i < e && i < output.getNumOperands(); ++i)
    if (failed(claim(getOutputUid(i), output.getOperand(i),
                     describeIo("output", i, nameOf(getResultAttrDict(i))))))
      return failure();

  // What the graph writes must not overlap itself (two elements at one
  // address); inputs may be read through overlapping strides. A ragged
  // (packed THD) tensor finds each batch at its ragged offset, so its batch
  // stride addresses nothing (the frontend's programs give it as H*D).
  // Values are compared as the data flow sees them, through groups.
  llvm::SmallDenseSet<Value, 4> ragged;
  getBody().walk([&](Operation *op) {
    SmallVector<RaggedPort> ports;
    if (auto sdpa = dyn_cast<SdpaOp>(op))
      ports = getRaggedPorts(sdpa);
    else if (auto sdpaBackward = dyn_cast<SdpaBackwardOp>(op))
      ports = getRaggedPorts(sdpaBackward);
    else if (auto sdpaFp8 = dyn_cast<SdpaFp8Op>(op))
      ports = getRaggedPorts(sdpaFp8);
    for (const RaggedPort &port : ports)
      if (port.offsets)
        ragged.insert(resolveGroupValue(port.tensor));
  });
  auto overlapOf = [&](Value value) -> std::string {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type)
      return "";
    ArrayRef<int64_t> shape = type.getShape();
    ArrayRef<int64_t> strides = getStrides(type);
    if (strides.size() != shape.size())
      return "";
    if (ragged.contains(resolveGroupValue(value)) && !shape.empty())
      return describeStrideOverlap(shape.drop_front(), strides.drop_front());
    return describeStrideOverlap(shape, strides);
  };
  for (unsigned i = 0, e = getNumResults();
       i < e && i < output.getNumOperands(); ++i) {
    std::string why = overlapOf(output.getOperand(i));
    if (why.empty())
      continue;
    InFlightDiagnostic diag = emitGraphError(*this);
    diag << describeIo("output", i, nameOf(getResultAttrDict(i)));
    if (std::optional<int64_t> uid = getOutputUid(i))
      diag << " (uid " << *uid << ")";
    return diag << " is written through overlapping strides: " << why
                << " (only inputs may overlap)";
  }
  WalkResult written = getBody().walk([&](Operation *op) {
    for (OpResult result : op->getResults()) {
      std::string why = overlapOf(result);
      if (why.empty())
        continue;
      emitNodeError(op) << "result " << result.getResultNumber()
                        << " is written through overlapping strides: " << why
                        << " (only inputs may overlap)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(written.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// GraphNode trait
//===----------------------------------------------------------------------===//

LogicalResult mlir::OpTrait::graph::impl::verifyGraphNodeParent(Operation *op) {
  Operation *parent = op->getParentOp();
  if (parent && (isa<GraphOp, GroupOp>(parent) ||
                 parent->hasTrait<OpTrait::graph::HoldsGraphNodes>()))
    return success();
  return op->emitOpError("expects parent op to be one of 'graph.graph, "
                         "graph.group' or an op that holds graph nodes "
                         "(exec.cudnn_group)");
}

LogicalResult
mlir::OpTrait::graph::impl::verifyGraphNodeAttributes(Operation *op) {
  for (NamedAttribute attr : op->getAttrs()) {
    auto number = dyn_cast<FloatAttr>(attr.getValue());
    if (!number || !number.getValue().isNaN() || attr.getName() == "padding" ||
        isa<ScalarOp>(op))
      continue;
    // A NaN slope, scale or probability makes every output NaN, and range
    // checks written as comparisons would let it through.
    return emitNodeError(op)
           << "attribute '" << attr.getName().strref() << "' is NaN";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// OutputOp
//===----------------------------------------------------------------------===//

LogicalResult OutputOp::verify() {
  auto graph = (*this)->getParentOfType<GraphOp>();
  ArrayRef<Type> results = graph.getResultTypes();
  if (getNumOperands() != results.size())
    return emitOpError() << "returns " << getNumOperands()
                         << " values but graph @" << graph.getSymName()
                         << " declares " << results.size() << " outputs";
  for (auto [i, value] : llvm::enumerate(getOperands()))
    if (value.getType() != results[i])
      return emitOpError() << "output " << i << " is " << value.getType()
                           << " but graph @" << graph.getSymName()
                           << " declares " << results[i];
  return success();
}
