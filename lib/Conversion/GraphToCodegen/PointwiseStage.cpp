//===- PointwiseStage.cpp - Pointwise and copy stage kernels --------------===//
//
// Every op of the stage over one iteration space: each thread owns `items`
// runs of `vec` consecutive elements (16-byte vector loads and stores where
// the layout allows, broadcast operands splat, strided operands gathered).
// Copy stages (views the user reads, gathers, concatenation regions) are
// identity ops here. The kernel loads every run's inputs, the lane
// patterns (PointwisePatterns.cpp, run by LanePatterns.cpp) compute the
// stage's ops on them, and the kernel stores the results.
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"
#include "ScalarOps.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::graph::kernelgen;

std::string Emitter::emitPointwise(const Stage &s, size_t index,
                                   rt::CodegenSpec &out) {
  std::vector<int64_t> buffers = stageBuffers(planner, s);
  PointwiseLaunch launch = planPointwiseLaunch(planner, s, knobs);
  int64_t vec = launch.vec, block = launch.block, items = launch.items;
  int64_t runs = launch.runs, perBlock = block * items;
  Kernel k = begin("stage" + std::to_string(index), buffers, block, 0);
  k.launch.grid = {static_cast<unsigned>(launch.grid), 1, 1};
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  bool ragged = runs % perBlock != 0;
  std::vector<Value> starts, valid;
  for (int64_t u = 0; u < items; ++u) {
    Value run = addi(muli(bid, idx(perBlock)), addi(idx(u * block), tid));
    starts.push_back(muli(run, idx(vec)));
    valid.push_back(ragged ? ult(run, idx(runs)) : Value());
  }
  // Loads of every item first (more bytes in flight), then compute, then
  // stores.
  std::vector<std::map<int64_t, Val>> vals(items);
  std::string error;
  for (int64_t u = 0; u < items; ++u) {
    auto get = [&](int64_t uid) -> Val {
      uid = planner.resolve(uid);
      auto it = vals[u].find(uid);
      if (it != vals[u].end())
        return it->second;
      Val v;
      auto t = planner.tensors.find(uid);
      if (t != planner.tensors.end() && t->second->isByValue) {
        v.lanes.push_back(f32(t->second->byValue));
      } else {
        v.cls = Cls::Full;
        const View &view = planner.views.at(uid);
        v.lanes = guardedLoad(valid[u], vec, [&] {
          return loadRun(k, view, s.space, starts[u], vec);
        });
      }
      vals[u][uid] = v;
      return v;
    };
    for (Operation *op : s.ops)
      for (auto &[port, operand] : namedValues(op, /*isResult=*/false)) {
        if (isa<RopeOp, RopeBackwardOp, BlockScaleDequantizeOp,
                PagedCacheLoadOp, MoeGatherRowsOp>(op))
          continue;
        int64_t uid = planner.uidOf(operand);
        if (!s.produced.count(planner.resolve(uid)))
          get(uid);
      }
    // Rope, dequantize, paged loads and row gathers gather their own
    // elements, outside the guarded loads: a thread past the last run reads the
    // first run instead (its stores are guarded), never past the end of a
    // buffer.
    Value gatherStart =
        valid[u] ? arith::SelectOp::create(b, loc, valid[u], starts[u], idx(0))
                       .getResult()
                 : starts[u];
    StageItem item{&k, &s.space, vec, starts[u], gatherStart};
    std::map<int64_t, Val> &run = vals[u];
    LaneContext c(
        *this, run,
        [&](Value v) {
          auto it = run.find(planner.resolve(planner.uidOf(v)));
          return it == run.end() ? Val{} : it->second;
        },
        &item, nullptr, nullptr);
    if (std::string e = lowerToLanes(s.ops, c); !e.empty())
      return e;
  }
  for (int64_t u = 0; u < items; ++u)
    guarded(valid[u], [&] {
      for (int64_t uid : s.stores) {
        Val v = vals[u].at(uid);
        SmallVector<Value> lanes;
        for (int64_t i = 0; i < vec; ++i)
          lanes.push_back(v.lane(i));
        storeRun(k, planner.views.at(uid), s.space, starts[u], lanes);
      }
    });
  return finish(k, out);
}
