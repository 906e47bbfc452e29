//===- ReduceStage.cpp - Reductions over any axes, genstats ---------------===//
//
// Reductions that are not over trailing axes (those are row stages), the
// per-channel sums of genstats, and the column sums of backward norms with
// a per-row scale: one block per output element, each thread striding over
// the reduced elements, then a warp-shuffle and shared-memory reduction.
// The kernel is the op's lowering by its kernel pattern (KernelPatterns.cpp).
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::graph::kernelgen;

/// Threads per block of a reduce stage.
static constexpr int64_t kReduceBlock = 256;

std::string Emitter::reduceKernels(KernelContext &c, Operation *op) {
  const Stage &s = c.s;
  std::string kind = op->getName().stripDialect().str();
  const View &x = planner.viewOf(planner.in(op, Port::input));
  // (output uid, reduction kind, post-op)
  struct Part {
    int64_t uid;
    std::string mode;
    bool square;
  };
  std::vector<Part> parts;
  if (auto genstats = dyn_cast<GenstatsOp>(op)) {
    parts.push_back({planner.uidOf(genstats.getSUM()), "add", false});
    parts.push_back({planner.uidOf(genstats.getSQ_SUM()), "add", true});
  } else {
    auto reduction = cast<ReductionOp>(op);
    parts.push_back({planner.uidOf(reduction.getOutput()), modeOf(op), false});
  }
  const Shape &space = x.dims;
  const Shape &outDims = planner.views.at(parts[0].uid).dims;
  if (outDims.size() != space.size())
    return kind + ": generated kernels reduce to the same rank";
  Shape keptDims, reducedDims;
  std::vector<size_t> keptAxes, reducedAxes;
  for (size_t d = 0; d < space.size(); ++d) {
    if (outDims[d] == space[d]) {
      keptAxes.push_back(d);
      keptDims.push_back(space[d]);
    } else if (outDims[d] == 1) {
      reducedAxes.push_back(d);
      reducedDims.push_back(space[d]);
    } else {
      return kind + ": output dim " + std::to_string(d) +
             " is neither kept nor reduced";
    }
  }
  int64_t outputs = numel(keptDims), reduced = numel(reducedDims);
  int64_t block = kReduceBlock;
  std::vector<int64_t> buffers = stageBuffers(planner, s);
  Kernel k = begin("stage" + std::to_string(c.index), buffers, block, 32);
  k.launch.grid = {static_cast<unsigned>(std::max<int64_t>(outputs, 1)), 1, 1};
  Value smem = k.func.getWorkgroupAttributions()[0];
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  // The kept part of the input's offset, from the block's output index.
  Shape kept(space.size(), 1), red(space.size(), 1);
  for (size_t d : keptAxes)
    kept[d] = space[d];
  for (size_t d : reducedAxes)
    red[d] = space[d];
  View keptView = x, redView = x;
  keptView.dims = kept;
  redView.dims = red;
  redView.base = 0;
  for (size_t d = 0; d < space.size(); ++d) {
    if (kept[d] == 1)
      keptView.strides[d] = 0;
    if (red[d] == 1)
      redView.strides[d] = 0;
  }
  Value keptOffset = offsetOf(keptView, kept, bid);
  std::vector<ReduceKind> kinds;
  SmallVector<Value> inits;
  for (const Part &p : parts) {
    kinds.push_back(reduceKind(p.mode));
    inits.push_back(f32(kinds.back().identity));
  }
  auto loop = scf::ForOp::create(b, loc, tid, idx(reduced), idx(block), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value m = loop.getInductionVar();
    Value offset = addi(keptOffset, offsetOf(redView, red, m));
    Value v = toF32(memref::LoadOp::create(b, loc, k.memrefs.at(x.buffer),
                                           ValueRange{offset}),
                    x.dtype);
    SmallVector<Value> next;
    for (size_t i = 0; i < parts.size(); ++i) {
      Value in = parts[i].square ? mulf(v, v) : v;
      next.push_back(kinds[i].combine(b, loc, loop.getRegionIterArgs()[i],
                                      kinds[i].pre(b, loc, in)));
    }
    scf::YieldOp::create(b, loc, next);
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    Value r = blockReduce(loop.getResult(i), kinds[i], tid, smem, block);
    if (parts[i].mode == "avg")
      r = divf(r, f32(static_cast<double>(reduced)));
    if (parts[i].mode == "norm2")
      r = math::SqrtOp::create(b, loc, r);
    Value first =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, idx(0));
    const View &ov = planner.views.at(parts[i].uid);
    guarded(first, [&] {
      // The block's output index walks the kept dims in row-major order.
      View keptOut = ov;
      Shape keptOnly;
      Shape keptStrides;
      for (size_t d : keptAxes) {
        keptOnly.push_back(ov.dims[d]);
        keptStrides.push_back(ov.strides[d]);
      }
      keptOut.dims = keptOnly;
      keptOut.strides = keptStrides;
      Value o =
          keptOnly.empty() ? idx(ov.base) : offsetOf(keptOut, keptOnly, bid);
      memref::StoreOp::create(b, loc, fromF32(r, ov.dtype),
                              k.memrefs.at(ov.buffer), ValueRange{o});
    });
  }
  return finish(k, c.out);
}
