//===- RowStage.cpp - Reductions over trailing axes, norms ----------------===//
//
// Row stages: reductions over a suffix of the axes, norms forward and
// backward, and the pointwise ops around them (softmax, residual add +
// rmsnorm + scale). One block per row (a grid-stride loop over the rows),
// the row held in registers, warp shuffles and shared memory for the block
// reductions. Values are per row (a statistic), per column (a norm's
// scale), row shaped, or scalars (Cls); each thread holds `items` runs of
// `vec` lanes of every row-shaped value. Column sums of backward norms are
// in ColumnSums.cpp.
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::graph::kernelgen;

/// Operand `port` of `op` (null when it has none).
static Value inputAt(Operation *op, Port port) {
  return namedValue(op, port, /*isResult=*/false);
}

/// Per-column row-stage inputs held in registers across rows, in lanes.
static constexpr int64_t kHeldColumnLanes = 16;

/// What every piece of one row kernel shares.
struct Emitter::RowKernel {
  const Stage &s;
  RowLaunch launch;
  Kernel k;
  Value smem, tid, bid;
  /// Per run this thread holds: its first column, and whether it is inside
  /// the row (null: always).
  std::vector<Value> colStart, valid;
  size_t lanesPerRow = 0; // items * vec
  /// Per-column inputs loaded once, before the row loop.
  std::map<int64_t, Val> held;
  /// Row-shaped inputs loaded one row ahead.
  std::vector<int64_t> prefetched;

  const Shape &space() const { return s.space; }
  View viewOf(const Planner &p, int64_t uid) const {
    return overSpace(p.views.at(uid), s.space, s.k);
  }
  Value validLane(size_t i) const { return valid[i / launch.vec]; }
};

/// One trip of the row loop.
struct Emitter::RowIteration {
  Value row, rowBase; // the row, and its first element's linear index
  std::map<int64_t, Val> vals;
  /// Column sums carried across rows (ColumnSum-major, lanesPerRow each).
  SmallVector<Value> accs;
  /// The prefetched inputs' lanes of the next row.
  SmallVector<Value> nextRow;
};

std::string Emitter::emitRow(const Stage &s, size_t index,
                             rt::CodegenSpec &out) {
  std::vector<int64_t> buffers = stageBuffers(planner, s);
  RowKernel r{s, planRowLaunch(planner, s, knobs, limits)};
  const RowLaunch &l = r.launch;
  for (const ColumnSum &c : l.columnSums)
    buffers.push_back(c.partial);

  r.k = begin("stage" + std::to_string(index), buffers, l.block, 32);
  r.k.launch.grid = {static_cast<unsigned>(l.grid), 1, 1};
  if (l.resident)
    r.k.func->setAttr("nvvm.minctasm",
                      b.getI32IntegerAttr(static_cast<int32_t>(l.resident)));
  r.smem = r.k.func.getWorkgroupAttributions()[0];
  r.tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  r.bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  for (int64_t it = 0; it < l.items; ++it) {
    r.colStart.push_back(muli(addi(idx(it * l.block), r.tid), idx(l.vec)));
    r.valid.push_back((it + 1) * l.block * l.vec <= l.cols
                          ? Value()
                          : ult(r.colStart.back(), idx(l.cols)));
  }
  r.lanesPerRow = l.items * l.vec;
  loadHeldColumns(r);
  collectPrefetched(r);

  // Carried across rows: the column sums, then the prefetched next row.
  SmallVector<Value> inits(l.columnSums.size() * r.lanesPerRow, f32(0.0));
  size_t accCount = inits.size();
  for (int64_t uid : r.prefetched) {
    SmallVector<Value> first = loadRow(r, uid, r.bid, Value());
    inits.append(first.begin(), first.end());
  }
  auto loop =
      scf::ForOp::create(b, loc, r.bid, idx(l.rows), idx(l.grid), inits);
  // Without iteration arguments the builder adds a terminator; ours ends
  // the body instead.
  if (inits.empty())
    loop.getBody()->getTerminator()->erase();
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    RowIteration it;
    it.row = loop.getInductionVar();
    it.rowBase = muli(it.row, idx(l.cols));
    it.vals = r.held;
    ValueRange carried = loop.getRegionIterArgs();
    Value next = addi(it.row, idx(l.grid));
    Value hasNext = ult(next, idx(l.rows));
    for (size_t p = 0; p < r.prefetched.size(); ++p) {
      Val v{Cls::Full, {}};
      for (size_t i = 0; i < r.lanesPerRow; ++i)
        v.lanes.push_back(carried[accCount + p * r.lanesPerRow + i]);
      it.vals[r.prefetched[p]] = v;
      SmallVector<Value> lanes = loadRow(r, r.prefetched[p], next, hasNext);
      it.nextRow.append(lanes.begin(), lanes.end());
    }
    it.accs = SmallVector<Value>(carried.take_front(accCount));
    if (std::string e = emitRowBody(r, it); !e.empty())
      return e;
    SmallVector<Value> yielded = it.accs;
    yielded.append(it.nextRow.begin(), it.nextRow.end());
    scf::YieldOp::create(b, loc, yielded);
  }
  storePartialColumnSums(r, loop);
  if (std::string e = finish(r.k, out); !e.empty())
    return e;

  for (size_t c = 0; c < l.columnSums.size(); ++c)
    if (std::string e = emitColumnFinish(
            l.columnSums[c].partial, l.grid, l.cols,
            r.viewOf(planner, l.columnSums[c].uid), s.space,
            "stage" + std::to_string(index) + "_colsum" + std::to_string(c),
            out);
        !e.empty())
      return e;
  if (l.columnPassOp)
    return emitColumnPass(l.columnPassOp, s, index, out);
  return "";
}

void Emitter::loadHeldColumns(RowKernel &r) {
  // Per-column inputs do not change from row to row: short ones are loaded
  // once and held in registers; longer ones (a norm's scale and bias over
  // 4096 columns would hold 64 registers per thread and halve the blocks an
  // SM runs) are reloaded per row, from L1/L2.
  const Stage &s = r.s;
  std::vector<int64_t> colUids;
  for (Operation *op : s.ops)
    for (auto &[port, operand] : namedValues(op, /*isResult=*/false)) {
      int64_t uid = planner.resolve(planner.uidOf(operand));
      if (!llvm::is_contained(colUids, uid) && !s.produced.count(uid) &&
          planner.views.count(uid) &&
          classOf(r.viewOf(planner, uid), s.space, s.k) == Cls::Col)
        colUids.push_back(uid);
    }
  int64_t items = r.launch.items, vec = r.launch.vec;
  bool holdColumns =
      static_cast<int64_t>(colUids.size()) * items * vec <= kHeldColumnLanes;
  if (!holdColumns)
    colUids.clear();
  for (int64_t uid : colUids) {
    View v = r.viewOf(planner, uid);
    Val val;
    val.cls = Cls::Col;
    for (int64_t it = 0; it < items; ++it) {
      SmallVector<Value> lanes = guardedLoad(r.valid[it], vec, [&] {
        return loadRun(r.k, v, s.space, r.colStart[it], vec);
      });
      val.lanes.append(lanes.begin(), lanes.end());
    }
    r.held[uid] = val;
  }
}

void Emitter::collectPrefetched(RowKernel &r) {
  // Row-shaped inputs are software-pipelined: the loads of a block's next
  // row are issued before this row's reductions and stores, so a row's
  // memory latency hides behind the previous row's work.
  if (!knobs.prefetch)
    return;
  const Stage &s = r.s;
  for (Operation *op : s.ops)
    for (auto &[port, operand] : namedValues(op, /*isResult=*/false)) {
      int64_t uid = planner.resolve(planner.uidOf(operand));
      if (s.produced.count(uid) || !planner.views.count(uid) ||
          llvm::is_contained(r.prefetched, uid) ||
          (planner.tensors.count(uid) && planner.tensors.at(uid)->isByValue))
        continue;
      if (classOf(r.viewOf(planner, uid), s.space, s.k) == Cls::Full)
        r.prefetched.push_back(uid);
    }
}

SmallVector<Value> Emitter::loadRow(RowKernel &r, int64_t uid, Value rowIndex,
                                    Value cond) {
  View view = r.viewOf(planner, uid);
  int64_t vec = r.launch.vec;
  Value base = muli(rowIndex, idx(r.launch.cols));
  SmallVector<Value> lanes;
  for (int64_t i = 0; i < r.launch.items; ++i) {
    Value ok = r.valid[i];
    if (cond)
      ok = ok ? arith::AndIOp::create(b, loc, ok, cond).getResult() : cond;
    SmallVector<Value> run = guardedLoad(ok, vec, [&] {
      return loadRun(r.k, view, r.space(), addi(base, r.colStart[i]), vec);
    });
    lanes.append(run.begin(), run.end());
  }
  return lanes;
}

std::string Emitter::emitRowBody(RowKernel &r, RowIteration &it) {
  // The stage's ops, lowered by the lane patterns; an input is loaded (or
  // found held or prefetched) at its first reader.
  LaneContext c{*this,
                it.vals,
                [&](Value v) { return rowValue(r, it, planner.uidOf(v)); },
                nullptr,
                &r,
                &it};
  if (std::string e = lowerToLanes(r.s.ops, c); !e.empty())
    return e;
  return emitRowStores(r, it);
}

Val Emitter::rowValue(RowKernel &r, RowIteration &it, int64_t raw) {
  int64_t uid = planner.resolve(raw);
  auto found = it.vals.find(uid);
  if (found != it.vals.end())
    return found->second;
  const Shape &space = r.space();
  Val v;
  auto t = planner.tensors.find(uid);
  if (t != planner.tensors.end() && t->second->isByValue) {
    v.lanes.push_back(f32(t->second->byValue));
  } else {
    View view = r.viewOf(planner, uid);
    v.cls = classOf(view, space, r.s.k);
    Value runBase = v.cls == Cls::Col ? rowInvariantZero() : it.rowBase;
    if (v.cls == Cls::Scalar || v.cls == Cls::Row) {
      Value at = offsetOf(view, space, v.cls == Cls::Row ? it.rowBase : idx(0));
      v.lanes.push_back(
          toF32(memref::LoadOp::create(b, loc, r.k.memrefs.at(view.buffer),
                                       ValueRange{at}),
                view.dtype));
    } else {
      int64_t vec = r.launch.vec;
      for (int64_t i = 0; i < r.launch.items; ++i) {
        SmallVector<Value> lanes = guardedLoad(r.valid[i], vec, [&] {
          return loadRun(r.k, view, space, addi(runBase, r.colStart[i]), vec);
        });
        v.lanes.append(lanes.begin(), lanes.end());
      }
    }
  }
  it.vals[uid] = v;
  return v;
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

std::string Emitter::emitRowStores(RowKernel &r, RowIteration &it) {
  const Shape &space = r.space();
  const RowLaunch &l = r.launch;
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, r.tid, idx(0));
  for (int64_t uid : r.s.stores) {
    if (llvm::any_of(l.columnSums,
                     [&](const ColumnSum &c) { return c.uid == uid; }))
      continue; // written by the finishing kernel
    if (l.columnPassOp && planner.isColumnSum(l.columnPassOp, uid))
      continue; // written by the column pass
    if (llvm::any_of(planner.productOf, [&](auto &entry) {
          return planner.isColumnSum(entry.first, uid);
        }))
      continue; // summed by the reduce stages that follow
    auto found = it.vals.find(uid);
    if (found == it.vals.end())
      return "uid " + std::to_string(uid) + " is not computed by the stage";
    const Val &v = found->second;
    View view = r.viewOf(planner, uid);
    if (v.cls == Cls::Row || v.cls == Cls::Scalar) {
      Value cond = first;
      if (v.cls == Cls::Scalar)
        cond = arith::AndIOp::create(
            b, loc, cond,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, it.row,
                                  idx(0)));
      guarded(cond, [&] {
        Value at =
            offsetOf(view, space, v.cls == Cls::Row ? it.rowBase : idx(0));
        memref::StoreOp::create(b, loc, fromF32(v.lanes[0], view.dtype),
                                r.k.memrefs.at(view.buffer), ValueRange{at});
      });
      continue;
    }
    for (int64_t i = 0; i < l.items; ++i) {
      Value cond = r.valid[i];
      Value e = addi(it.rowBase, r.colStart[i]);
      if (v.cls == Cls::Col) {
        Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                              it.row, idx(0));
        cond = cond ? arith::AndIOp::create(b, loc, cond, isFirst).getResult()
                    : isFirst;
        e = r.colStart[i];
      }
      guarded(cond, [&] {
        SmallVector<Value> lanes(v.lanes.begin() + i * l.vec,
                                 v.lanes.begin() + (i + 1) * l.vec);
        storeRun(r.k, view, space, e, lanes);
      });
    }
  }
  return "";
}

void Emitter::storePartialColumnSums(RowKernel &r, scf::ForOp loop) {
  const RowLaunch &l = r.launch;
  for (size_t c = 0; c < l.columnSums.size(); ++c) {
    const View &pv = planner.views.at(l.columnSums[c].partial);
    for (int64_t i = 0; i < l.items; ++i)
      guarded(r.valid[i], [&] {
        SmallVector<Value> lanes;
        for (int64_t lane = 0; lane < l.vec; ++lane)
          lanes.push_back(loop.getResult(c * r.lanesPerRow + i * l.vec + lane));
        storeRun(r.k, pv, pv.dims,
                 addi(muli(r.bid, idx(l.cols)), r.colStart[i]), lanes);
      });
  }
}
