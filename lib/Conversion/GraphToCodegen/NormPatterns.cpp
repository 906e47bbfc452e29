//===- NormPatterns.cpp - Lane patterns of the row ops --------------------===//
//
// The lane patterns of the ops that reduce along a row (LanePatterns.cpp
// runs them in row stages): reductions over trailing axes, and layer, RMS,
// instance and adaptive layer norms forward and backward. Each reads its
// operands' lanes (the row this thread holds), reduces across the block and
// leaves its results' lanes, per row or row shaped; a backward norm adds
// its DScale/DBias terms to the column sums carried across rows.
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"

#include "GraphDialect/Engines/Engine.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::graph::kernelgen;

/// Operand `port` of `op` (null when it has none).
static Value inputAt(Operation *op, Port port) {
  return namedValue(op, port, /*isResult=*/false);
}

std::string Emitter::rowReductionLanes(Emitter &e, LaneContext &c,
                                       Operation *original,
                                       function_ref<Val(Value)> get) {
  if (!c.row)
    return describeNode(original) + ": reduces in row stages only";
  return e.emitRowReduction(*c.row, *c.iteration, cast<ReductionOp>(original),
                            get);
}

std::string Emitter::normForwardLanes(Emitter &e, LaneContext &c,
                                      Operation *original,
                                      function_ref<Val(Value)> get) {
  if (!c.row)
    return describeNode(original) + ": normalizes in row stages only";
  return e.emitNormForward(*c.row, *c.iteration, original, get);
}

std::string Emitter::normBackwardLanes(Emitter &e, LaneContext &c,
                                       Operation *original,
                                       function_ref<Val(Value)> get) {
  if (!c.row)
    return describeNode(original) + ": normalizes in row stages only";
  return e.emitNormBackward(*c.row, *c.iteration, original, get);
}

Value Emitter::rowReduce(RowKernel &r, const ReduceKind &kind,
                         function_ref<Value(size_t)> value) {
  Value acc = f32(kind.identity);
  for (size_t i = 0; i < r.lanesPerRow; ++i) {
    Value v = kind.pre(b, loc, value(i));
    if (Value ok = r.validLane(i))
      v = arith::SelectOp::create(b, loc, ok, v, f32(kind.identity));
    acc = kind.combine(b, loc, acc, v);
  }
  return blockReduce(acc, kind, r.tid, r.smem, r.launch.block);
}

std::string Emitter::emitRowReduction(RowKernel &r, RowIteration &it,
                                      ReductionOp op,
                                      function_ref<Val(Value)> get) {
  Val x = get(op.getInput());
  std::string mode = modeOf(op);
  if (x.lanes.size() != r.lanesPerRow)
    return "reduction: generated kernels reduce values that vary along "
           "the row";
  ReduceKind rk = reduceKind(mode);
  Value result = rowReduce(r, rk, [&](size_t i) { return x.lanes[i]; });
  if (mode == "avg")
    result = divf(result, f32(static_cast<double>(r.launch.cols)));
  if (mode == "norm2")
    result = math::SqrtOp::create(b, loc, result);
  int64_t o = planner.uidOf(op.getOutput());
  it.vals[o] = Val{Cls::Row, {roundTo(result, planner.tensors.at(o)->dtype)}};
  return "";
}

std::string Emitter::emitNormForward(RowKernel &r, RowIteration &it,
                                     Operation *op,
                                     function_ref<Val(Value)> get) {
  auto dtypeOf = [&](int64_t uid) { return planner.tensors.at(uid)->dtype; };
  ReduceKind sum = reduceKind("add");
  double n = static_cast<double>(r.launch.cols);
  size_t lanesPerRow = r.lanesPerRow;
  bool centered = !isa<RmsnormOp>(op);
  Val x = get(inputAt(op, Port::input));
  Val eps = get(inputAt(op, Port::epsilon));
  if (x.lanes.size() != lanesPerRow)
    return op->getName().stripDialect().str() +
           ": the input must vary along the row";
  Value mean = f32(0.0);
  if (centered)
    mean =
        divf(rowReduce(r, sum, [&](size_t i) { return x.lanes[i]; }), f32(n));
  SmallVector<Value> centeredX;
  for (size_t i = 0; i < lanesPerRow; ++i)
    centeredX.push_back(centered ? subf(x.lanes[i], mean) : x.lanes[i]);
  Value var = divf(
      rowReduce(r, sum,
                [&](size_t i) { return mulf(centeredX[i], centeredX[i]); }),
      f32(n));
  Value inv =
      divf(f32(1.0), math::SqrtOp::create(b, loc, addf(var, eps.lane(0))));
  // Loaded after the reductions: not live across them.
  Val scale = get(inputAt(op, Port::scale));
  std::optional<Val> bias;
  if (Value biasOperand = inputAt(op, Port::bias))
    bias = get(biasOperand);
  int64_t yUid = planner.out(op, Port::Y);
  Val y{Cls::Full, {}};
  for (size_t i = 0; i < lanesPerRow; ++i) {
    Value v = mulf(mulf(centeredX[i], inv), scale.lane(i));
    if (bias)
      v = addf(v, bias->lane(i));
    y.lanes.push_back(roundTo(v, dtypeOf(yUid)));
  }
  it.vals[yUid] = y;
  if (std::optional<int64_t> out =
          planner.uidAt(op, Port::mean, /*isResult=*/true))
    it.vals[*out] = Val{Cls::Row, {roundTo(mean, dtypeOf(*out))}};
  if (std::optional<int64_t> out =
          planner.uidAt(op, Port::inv_var, /*isResult=*/true))
    it.vals[*out] = Val{Cls::Row, {roundTo(inv, dtypeOf(*out))}};
  return "";
}

std::string Emitter::emitNormBackward(RowKernel &r, RowIteration &it,
                                      Operation *op,
                                      function_ref<Val(Value)> get) {
  auto dtypeOf = [&](int64_t uid) { return planner.tensors.at(uid)->dtype; };
  ReduceKind sum = reduceKind("add");
  double n = static_cast<double>(r.launch.cols);
  size_t lanesPerRow = r.lanesPerRow;
  bool centered = !isa<RmsnormBackwardOp>(op);
  Val scale = get(inputAt(op, Port::scale));
  Val dy = get(inputAt(op, Port::grad));
  Val x = get(inputAt(op, Port::input));
  Val inv = get(inputAt(op, Port::inv_variance));
  Value mean = f32(0.0);
  if (centered)
    mean = get(inputAt(op, Port::mean)).lane(0);
  Value invV = inv.lane(0);
  SmallVector<Value> xhat, g;
  for (size_t i = 0; i < lanesPerRow; ++i) {
    xhat.push_back(mulf(subf(x.lane(i), mean), invV));
    g.push_back(mulf(dy.lane(i), scale.lane(i)));
  }
  Value sumG =
      centered ? rowReduce(r, sum, [&](size_t i) { return g[i]; }) : f32(0.0);
  Value sumGX =
      rowReduce(r, sum, [&](size_t i) { return mulf(g[i], xhat[i]); });
  Value meanG = divf(sumG, f32(n)), meanGX = divf(sumGX, f32(n));
  int64_t dxUid = planner.out(op, Port::DX);
  Val dx{Cls::Full, {}};
  for (size_t i = 0; i < lanesPerRow; ++i) {
    Value v = subf(g[i], mulf(xhat[i], meanGX));
    if (centered)
      v = subf(v, meanG);
    dx.lanes.push_back(roundTo(mulf(invV, v), dtypeOf(dxUid)));
  }
  it.vals[dxUid] = dx;
  if (auto product = planner.productOf.find(op);
      product != planner.productOf.end()) {
    Val p{Cls::Full, {}};
    for (size_t i = 0; i < lanesPerRow; ++i)
      p.lanes.push_back(mulf(dy.lane(i), xhat[i]));
    it.vals[product->second] = p;
  }
  const std::vector<ColumnSum> &colSums = r.launch.columnSums;
  for (size_t c = 0; c < colSums.size(); ++c) {
    bool isScale =
        planner.uidAt(op, Port::DScale, /*isResult=*/true) == colSums[c].uid;
    bool isBias =
        planner.uidAt(op, Port::DBias, /*isResult=*/true) == colSums[c].uid;
    if (!isScale && !isBias)
      continue;
    for (size_t i = 0; i < lanesPerRow; ++i) {
      Value term = isScale ? mulf(dy.lane(i), xhat[i]) : dy.lane(i);
      if (Value ok = r.validLane(i))
        term = arith::SelectOp::create(b, loc, ok, term, f32(0.0));
      Value &acc = it.accs[c * lanesPerRow + i];
      acc = addf(acc, term);
    }
  }
  return "";
}
