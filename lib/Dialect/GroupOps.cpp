//===- GroupOps.cpp - graph.group, graph.yield and the group helpers ------===//
//
// The fused-group region op: its custom assembly, verifiers, the engine
// attribute's verifier, and the helpers that outline, inline and look
// through groups (GraphDialect/Groups.h).
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Groups.h"
#include "GraphDialect/Support/ByValuePorts.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::graph;

//===----------------------------------------------------------------------===//
// EngineAttr
//===----------------------------------------------------------------------===//

LogicalResult EngineAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 EngineKind kind, ArrayAttr plans) {
  for (auto [i, plan] : llvm::enumerate(plans)) {
    auto name = dyn_cast<StringAttr>(plan);
    if (!name || name.getValue().empty())
      return emitError() << "engine '" << stringifyEngineKind(kind)
                         << "': plan " << i << " is not a non-empty string";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// GroupOp
//===----------------------------------------------------------------------===//

void GroupOp::build(OpBuilder &builder, OperationState &state,
                    TypeRange resultTypes, ValueRange inputs, int64_t id) {
  state.addOperands(inputs);
  state.addAttribute(getIdAttrName(state.name), builder.getI64IntegerAttr(id));
  state.addTypes(resultTypes);
  Region *body = state.addRegion();
  Block *block = new Block();
  for (Value input : inputs)
    block->addArgument(input.getType(), input.getLoc());
  body->push_back(block);
}

StringRef GroupOp::getDefaultDialect() { return "graph"; }

YieldOp GroupOp::getYieldOp() {
  return cast<YieldOp>(getBody().front().getTerminator());
}

SmallVector<StringRef> GroupOp::getEngineNames() {
  SmallVector<StringRef> names;
  if (ArrayAttr engines = getEnginesAttr())
    for (Attribute engine : engines)
      names.push_back(cast<EngineAttr>(engine).getName());
  return names;
}

// graph.group <id> [engines [...]] (%arg = %operand : type, ...)
//     [-> result types] [attributes {...}] { body }
void GroupOp::print(OpAsmPrinter &printer) {
  printer << ' ' << getId();
  if (ArrayAttr engines = getEnginesAttr()) {
    printer << " engines ";
    printer.printAttribute(engines);
  }
  printer << " (";
  Block &block = getBody().front();
  llvm::interleaveComma(llvm::zip(block.getArguments(), getInputs()), printer,
                        [&](auto pair) {
                          auto [arg, input] = pair;
                          printer.printOperand(arg);
                          printer << " = ";
                          printer.printOperand(input);
                          printer << " : " << input.getType();
                        });
  printer << ")";
  if (getNumResults() != 0)
    printer.printArrowTypeList(getResultTypes());
  printer.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(), {getIdAttrName(), getEnginesAttrName()});
  printer << ' ';
  printer.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                      /*printBlockTerminators=*/true);
}

ParseResult GroupOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  int64_t id = 0;
  if (parser.parseInteger(id))
    return failure();
  result.addAttribute(getIdAttrName(result.name),
                      builder.getI64IntegerAttr(id));
  if (succeeded(parser.parseOptionalKeyword("engines"))) {
    ArrayAttr engines;
    if (parser.parseAttribute(engines))
      return failure();
    result.addAttribute(getEnginesAttrName(result.name), engines);
  }
  SmallVector<OpAsmParser::Argument> args;
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  SmallVector<Type> operandTypes;
  llvm::SMLoc operandsLoc = parser.getCurrentLocation();
  if (parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Paren, [&]() -> ParseResult {
            OpAsmParser::Argument arg;
            OpAsmParser::UnresolvedOperand operand;
            if (parser.parseArgument(arg) || parser.parseEqual() ||
                parser.parseOperand(operand) || parser.parseColonType(arg.type))
              return failure();
            args.push_back(arg);
            operands.push_back(operand);
            operandTypes.push_back(arg.type);
            return success();
          }))
    return failure();
  if (parser.resolveOperands(operands, operandTypes, operandsLoc,
                             result.operands))
    return failure();
  SmallVector<Type> resultTypes;
  if (parser.parseOptionalArrowTypeList(resultTypes))
    return failure();
  result.addTypes(resultTypes);
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, args, /*enableNameShadowing=*/false))
    return failure();
  GroupOp::ensureTerminator(*body, builder, result.location);
  return success();
}

LogicalResult GroupOp::verify() {
  if (ArrayAttr engines = getEnginesAttr()) {
    SmallVector<EngineKind> seen;
    for (Attribute attr : engines) {
      EngineKind kind = cast<EngineAttr>(attr).getKind();
      if (llvm::is_contained(seen, kind))
        return emitOpError()
               << "lists engine '" << stringifyEngineKind(kind) << "' twice";
      seen.push_back(kind);
    }
  }
  for (Operation *prev = (*this)->getPrevNode(); prev;
       prev = prev->getPrevNode()) {
    auto group = dyn_cast<GroupOp>(prev);
    if (!group)
      continue;
    if (group.getId() >= getId())
      return emitOpError() << "has id " << getId() << " after group "
                           << group.getId()
                           << " (ids increase in schedule order)";
    break;
  }
  return success();
}

LogicalResult GroupOp::verifyRegions() {
  Block &block = getBody().front();
  if (block.getNumArguments() != getNumOperands())
    return emitOpError() << "has " << getNumOperands()
                         << " operands but its body takes "
                         << block.getNumArguments() << " arguments";
  for (auto [i, arg, input] :
       llvm::enumerate(block.getArguments(), getInputs()))
    if (arg.getType() != input.getType())
      return emitOpError() << "operand " << i << " is " << input.getType()
                           << " but block argument " << i << " is "
                           << arg.getType();
  if (getNodes().empty())
    return emitOpError() << "holds no node op";
  return success();
}

//===----------------------------------------------------------------------===//
// YieldOp
//===----------------------------------------------------------------------===//

LogicalResult YieldOp::verify() {
  auto group = cast<GroupOp>((*this)->getParentOp());
  if (getNumOperands() != group.getNumResults())
    return emitOpError() << "yields " << getNumOperands()
                         << " values but the group has "
                         << group.getNumResults() << " results";
  for (auto [i, value] : llvm::enumerate(getValues())) {
    if (value.getType() != group.getResult(i).getType())
      return emitOpError() << "value " << i << " is " << value.getType()
                           << " but group result " << i << " is "
                           << group.getResult(i).getType();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Helpers (Groups.h)
//===----------------------------------------------------------------------===//

Value mlir::graph::resolveGroupValue(Value value) {
  while (true) {
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      auto group = dyn_cast_or_null<GroupOp>(arg.getOwner()->getParentOp());
      if (!group)
        return value;
      value = group.getOperand(arg.getArgNumber());
      continue;
    }
    auto group = value.getDefiningOp<GroupOp>();
    if (!group)
      return value;
    value =
        group.getYieldOp().getOperand(cast<OpResult>(value).getResultNumber());
  }
}

bool mlir::graph::isByValueInput(Value value) {
  auto arg = dyn_cast<BlockArgument>(resolveGroupValue(value));
  if (!arg)
    return false;
  auto graph = dyn_cast_or_null<GraphOp>(arg.getOwner()->getParentOp());
  return graph && graph.isInputByValue(arg.getArgNumber());
}

bool mlir::graph::readsThroughByValuePort(Operation *op, Value value) {
  value = resolveGroupValue(value);
  std::optional<::graph::OpKind> kind =
      ::graph::parseOpKind(op->getName().stripDialect());
  if (!kind)
    return false;
  return llvm::any_of(getPortValues(op), [&](const PortValue &entry) {
    return !entry.isResult && entry.value &&
           resolveGroupValue(entry.value) == value &&
           ::graph::isByValuePort(*kind, entry.port);
  });
}

bool mlir::graph::isTakenByValue(Value value, ArrayRef<Operation *> ops) {
  value = resolveGroupValue(value);
  if (value.getDefiningOp<ScalarOp>())
    return true;
  if (!isByValueInput(value))
    return false;
  return llvm::all_of(getResolvedUsers(value), [&](Operation *user) {
    if (!ops.empty() && !llvm::is_contained(ops, user))
      return true;
    return isa<PointwiseOp, OutputOp>(user) ||
           readsThroughByValuePort(user, value);
  });
}

SmallVector<Operation *> mlir::graph::getResolvedUsers(Value value) {
  SmallVector<Operation *> users;
  SmallVector<Value> pending{value};
  while (!pending.empty()) {
    Value next = pending.pop_back_val();
    for (OpOperand &use : next.getUses()) {
      Operation *owner = use.getOwner();
      if (auto group = dyn_cast<GroupOp>(owner))
        pending.push_back(
            group.getBody().front().getArgument(use.getOperandNumber()));
      else if (isa<YieldOp>(owner))
        pending.push_back(
            owner->getParentOp()->getResult(use.getOperandNumber()));
      else
        users.push_back(owner);
    }
  }
  return users;
}

SmallVector<GroupOp> mlir::graph::getGroups(GraphOp graph) {
  return llvm::to_vector(graph.getBody().front().getOps<GroupOp>());
}

GroupOp mlir::graph::outlineGroup(OpBuilder &builder, ArrayRef<Operation *> ops,
                                  int64_t id) {
  assert(!ops.empty() && "a group holds at least one op");
  llvm::SmallPtrSet<Operation *, 16> members(ops.begin(), ops.end());
  auto inside = [&](OpOperand &use) {
    return members.contains(use.getOwner());
  };
  SmallVector<Value> inputs;
  llvm::SmallPtrSet<Value, 16> seen;
  SmallVector<Value> outputs;
  SmallVector<Type> outputTypes;
  for (Operation *op : ops) {
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if ((!def || !members.contains(def)) && seen.insert(operand).second)
        inputs.push_back(operand);
    }
    for (Value result : op->getResults())
      if (!llvm::all_of(result.getUses(), inside)) {
        outputs.push_back(result);
        outputTypes.push_back(result.getType());
      }
  }
  auto group =
      GroupOp::create(builder, ops.front()->getLoc(), outputTypes, inputs, id);
  Block &block = group.getBody().front();
  for (Operation *op : ops)
    op->moveBefore(&block, block.end());
  for (auto [input, arg] : llvm::zip(inputs, block.getArguments()))
    input.replaceUsesWithIf(arg, inside);
  OpBuilder inner = OpBuilder::atBlockEnd(&block);
  auto yield = YieldOp::create(inner, group.getLoc(), outputs);
  for (auto [output, result] : llvm::zip(outputs, group.getResults()))
    output.replaceUsesWithIf(result, [&](OpOperand &use) {
      return use.getOwner() != yield && !inside(use);
    });
  return group;
}

SmallVector<Operation *> mlir::graph::inlineGroup(GroupOp group) {
  Block &block = group.getBody().front();
  YieldOp yield = group.getYieldOp();
  for (auto [arg, input] : llvm::zip(block.getArguments(), group.getInputs()))
    arg.replaceAllUsesWith(input);
  for (auto [result, value] : llvm::zip(group.getResults(), yield.getValues()))
    result.replaceAllUsesWith(value);
  SmallVector<Operation *> moved;
  for (Operation &op : llvm::make_early_inc_range(block.without_terminator())) {
    op.moveBefore(group);
    moved.push_back(&op);
  }
  group.erase();
  return moved;
}
