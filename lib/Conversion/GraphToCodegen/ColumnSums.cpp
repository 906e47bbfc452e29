//===- ColumnSums.cpp - DScale and DBias of backward norms ----------------===//
//
// Backward norms sum dY * xhat (DScale) and dY (DBias) per column over all
// rows. The row kernel either keeps those sums in registers across the rows
// it visits and writes one partial row per block, or (when that would not
// fit the register file) leaves them to a column pass that reads grad and
// input again (the backward norm's kernel pattern, KernelPatterns.cpp).
// Partial rows are summed per column by a finishing kernel.
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::graph::kernelgen;

std::string Emitter::emitColumnFinish(int64_t partial, int64_t partRows,
                                      int64_t cols, const View &target,
                                      const Shape &space,
                                      const std::string &name,
                                      rt::CodegenSpec &out) {
  // A block sums 32 columns over the partial rows: 8 warps each take every
  // 8th row (coalesced runs of 32), then fold through shared memory.
  constexpr int64_t kColsPerBlock = 32, kSlices = 8;
  const View &pv = planner.views.at(partial);
  Kernel f = begin(name, {partial, target.buffer}, kColsPerBlock * kSlices,
                   kColsPerBlock * kSlices);
  f.launch.grid = {
      static_cast<unsigned>((cols + kColsPerBlock - 1) / kColsPerBlock), 1, 1};
  Value smem = f.func.getWorkgroupAttributions()[0];
  Value t = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value blk = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value lane = arith::RemUIOp::create(b, loc, t, idx(kColsPerBlock));
  Value slice = arith::DivUIOp::create(b, loc, t, idx(kColsPerBlock));
  Value col = addi(muli(blk, idx(kColsPerBlock)), lane);
  Value inside = ult(col, idx(cols));
  // Columns past the end sum nothing (a zero-trip loop).
  Value end = arith::SelectOp::create(b, loc, inside, idx(partRows), idx(0));
  auto sumLoop = scf::ForOp::create(b, loc, slice, end, idx(kSlices),
                                    ValueRange{f32(0.0)});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(sumLoop.getBody());
    Value at = addi(muli(sumLoop.getInductionVar(), idx(cols)), col);
    Value v =
        memref::LoadOp::create(b, loc, f.memrefs.at(pv.buffer), ValueRange{at});
    scf::YieldOp::create(b, loc,
                         ValueRange{addf(sumLoop.getRegionIterArgs()[0], v)});
  }
  memref::StoreOp::create(b, loc, sumLoop.getResult(0), smem, ValueRange{t});
  gpu::BarrierOp::create(b, loc);
  Value firstSlice =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, slice, idx(0));
  guarded(arith::AndIOp::create(b, loc, firstSlice, inside), [&] {
    Value total = memref::LoadOp::create(b, loc, smem, ValueRange{lane});
    for (int64_t k = 1; k < kSlices; ++k)
      total = addf(total, memref::LoadOp::create(
                              b, loc, smem,
                              ValueRange{addi(lane, idx(k * kColsPerBlock))}));
    Value at = offsetOf(target, space, col);
    memref::StoreOp::create(b, loc, fromF32(total, target.dtype),
                            f.memrefs.at(target.buffer), ValueRange{at});
  });
  return finish(f, out);
}

std::string Emitter::columnPassKernels(KernelContext &c, Operation *op) {
  const Stage &s = c.s;
  size_t index = c.index;
  rt::CodegenSpec &out = c.out;
  const Shape &space = s.space;
  int64_t rows = 1, cols = 1;
  for (size_t d = 0; d < space.size(); ++d)
    (d < s.k ? rows : cols) *= space[d];
  auto viewOf = [&](Port port) {
    return overSpace(planner.viewOf(planner.in(op, port)), space, s.k);
  };
  bool centered = !isa<RmsnormBackwardOp>(op);
  View dy = viewOf(Port::grad), x = viewOf(Port::input),
       inv = viewOf(Port::inv_variance);
  std::optional<View> mean;
  if (centered)
    mean = viewOf(Port::mean);
  std::vector<std::pair<int64_t, bool>> targets; // uid, is DScale
  if (std::optional<int64_t> uid = planner.liveColumnSum(op, Port::DScale))
    targets.push_back({*uid, true});
  if (std::optional<int64_t> uid = planner.liveColumnSum(op, Port::DBias))
    targets.push_back({*uid, false});
  int64_t sums = targets.size();
  // Each thread sums `vec` adjacent columns (16-byte loads) over every 8th
  // row of its block's row chunk; 32 lanes x 8 slices per block. Row chunks
  // (grid y) give every SM work; their partial sums go through scratch and
  // one finishing kernel per output.
  constexpr int64_t kLanes = ColumnPassLaunch::kLanes,
                    kSlices = ColumnPassLaunch::kSlices;
  ColumnPassLaunch launch =
      planColumnPassLaunch(dy.dtype, x.dtype, space, rows, cols, limits);
  int64_t vec = launch.vec, colBlocks = launch.colBlocks;
  int64_t chunks = launch.chunks, rowsPerChunk = launch.rowsPerChunk;
  std::vector<int64_t> partials;
  std::vector<View> targetViews;
  for (auto &[uid, isScale] : targets) {
    targetViews.push_back(overSpace(planner.views.at(uid), space, s.k));
    if (chunks > 1) {
      int64_t partial = planner.newScratch(DType::F32, {chunks, cols});
      planner.views[partial] =
          View{partial, DType::F32, 0, {chunks, cols}, {cols, 1}};
      partials.push_back(partial);
    }
  }
  std::vector<int64_t> buffers;
  auto addBuffer = [&](int64_t buffer) {
    if (!llvm::is_contained(buffers, buffer))
      buffers.push_back(buffer);
  };
  for (const View *v : {&dy, &x, &inv})
    addBuffer(v->buffer);
  if (mean)
    addBuffer(mean->buffer);
  for (size_t j = 0; j < targets.size(); ++j)
    addBuffer(chunks > 1 ? partials[j] : targetViews[j].buffer);
  Kernel k = begin("stage" + std::to_string(index) + "_columns", buffers,
                   kLanes * kSlices, kLanes * kSlices * vec * sums);
  k.launch.grid = {static_cast<unsigned>(colBlocks),
                   static_cast<unsigned>(chunks), 1};
  Value smem = k.func.getWorkgroupAttributions()[0];
  Value t = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value blk = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value chunk = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  Value lane = arith::RemUIOp::create(b, loc, t, idx(kLanes));
  Value slice = arith::DivUIOp::create(b, loc, t, idx(kLanes));
  Value col0 = muli(addi(muli(blk, idx(kLanes)), lane), idx(vec));
  Value inside = ult(col0, idx(cols));
  Value first = addi(muli(chunk, idx(rowsPerChunk)), slice);
  Value last = arith::MinUIOp::create(
      b, loc, muli(addi(chunk, idx(1)), idx(rowsPerChunk)), idx(rows));
  last = arith::SelectOp::create(b, loc, inside, last, idx(0));
  SmallVector<Value> inits(sums * vec, f32(0.0));
  auto loop = scf::ForOp::create(b, loc, first, last, idx(kSlices), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value r = loop.getInductionVar();
    Value rowE = muli(r, idx(cols));
    Value e = addi(rowE, col0);
    auto scalar = [&](const View &v) {
      return toF32(memref::LoadOp::create(b, loc, k.memrefs.at(v.buffer),
                                          ValueRange{offsetOf(v, space, rowE)}),
                   v.dtype);
    };
    SmallVector<Value> g = loadRun(k, dy, space, e, vec);
    SmallVector<Value> xv = loadRun(k, x, space, e, vec);
    Value m = mean ? scalar(*mean) : f32(0.0);
    Value iv = scalar(inv);
    SmallVector<Value> next;
    for (int64_t j = 0; j < sums; ++j)
      for (int64_t l = 0; l < vec; ++l) {
        Value term =
            targets[j].second ? mulf(g[l], mulf(subf(xv[l], m), iv)) : g[l];
        next.push_back(addf(loop.getRegionIterArgs()[j * vec + l], term));
      }
    scf::YieldOp::create(b, loc, next);
  }
  // Shared layout: [sum][slice][lane][vec]; slice 0 folds the slices.
  int64_t perSum = kLanes * kSlices * vec;
  for (int64_t j = 0; j < sums; ++j)
    for (int64_t l = 0; l < vec; ++l)
      memref::StoreOp::create(
          b, loc, loop.getResult(j * vec + l), smem,
          ValueRange{addi(muli(t, idx(vec)), idx(j * perSum + l))});
  gpu::BarrierOp::create(b, loc);
  Value firstSlice =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, slice, idx(0));
  guarded(arith::AndIOp::create(b, loc, firstSlice, inside), [&] {
    for (int64_t j = 0; j < sums; ++j)
      for (int64_t l = 0; l < vec; ++l) {
        Value total;
        for (int64_t q = 0; q < kSlices; ++q) {
          Value at = addi(muli(lane, idx(vec)),
                          idx(j * perSum + q * kLanes * vec + l));
          Value v = memref::LoadOp::create(b, loc, smem, ValueRange{at});
          total = total ? addf(total, v) : v;
        }
        Value col = addi(col0, idx(l));
        if (chunks > 1) {
          const View &pv = planner.views.at(partials[j]);
          memref::StoreOp::create(
              b, loc, total, k.memrefs.at(pv.buffer),
              ValueRange{addi(muli(chunk, idx(cols)), col)});
        } else {
          const View &tv = targetViews[j];
          memref::StoreOp::create(b, loc, fromF32(total, tv.dtype),
                                  k.memrefs.at(tv.buffer),
                                  ValueRange{offsetOf(tv, space, col)});
        }
      }
  });
  if (std::string e = finish(k, out); !e.empty())
    return e;
  if (chunks > 1)
    for (size_t j = 0; j < targets.size(); ++j)
      if (std::string e =
              emitColumnFinish(partials[j], chunks, cols, targetViews[j], space,
                               "stage" + std::to_string(index) +
                                   "_columns_sum" + std::to_string(j),
                               out);
          !e.empty())
        return e;
  return "";
}
