//===- RowStage.cpp - Reductions over trailing axes, norms ----------------===//
//
// Row stages: reductions over a suffix of the axes, norms forward and
// backward, and the pointwise ops around them (softmax, residual add +
// rmsnorm + scale). One block per row (a grid-stride loop over the rows),
// the row held in registers, warp shuffles and shared memory for the block
// reductions. Values are per row (a statistic), per column (a norm's
// scale), row shaped, or scalars (Cls); each thread holds `items` runs of
// `vec` lanes of every row-shaped value. The row loop's body is the stage's
// ops lowered by the lane patterns (NormPatterns.cpp, PointwisePatterns.cpp);
// this file builds the kernel, its loads and stores. Column sums of backward
// norms are in ColumnSums.cpp.
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::graph::kernelgen;

/// Per-column row-stage inputs held in registers across rows, in lanes.
static constexpr int64_t kHeldColumnLanes = 16;

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
  if (l.columnPassOp) {
    KernelContext c(s, index, out);
    return lowerToKernels(l.columnPassOp, c);
  }
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
  LaneContext c(
      *this, it.vals,
      [&](Value v) { return rowValue(r, it, planner.uidOf(v)); }, nullptr, &r,
      &it);
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
