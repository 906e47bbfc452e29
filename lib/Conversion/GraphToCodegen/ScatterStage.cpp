//===- ScatterStage.cpp - Routed rows to their destination rows -----------===//
//
// moe_scatter_rows: a thread per element of the input's rows reads its
// row's token_index and token_ks, and copies the element to row
// token_index * top_k + token_ks of the output. A destination outside the
// output's rows is skipped (the reference rejects such routing; the kernel
// cannot raise). The kernel is the op's lowering by its kernel pattern
// (KernelPatterns.cpp).
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::graph::kernelgen;

/// Threads per block of a scatter stage (each copies one element).
static constexpr int64_t kScatterThreads = 256;

std::string Emitter::scatterRowsKernels(KernelContext &c, Operation *original) {
  auto op = cast<MoeScatterRowsOp>(original);
  const View &x = planner.viewOf(planner.uidOf(op.getInput()));
  const View &y = planner.viewOf(planner.uidOf(op.getOutput()));
  const View &index = planner.viewOf(planner.uidOf(op.getTokenIndex()));
  const View &ks = planner.viewOf(planner.uidOf(op.getTokenKs()));
  if (x.dims != y.dims || x.dims.size() < 2)
    return "moe_scatter_rows: input and output must be [.., M, N] alike";
  if (index.dtype != DType::I32 || ks.dtype != DType::I32)
    return "moe_scatter_rows: generated kernels read i32 token_index and "
           "token_ks only";
  int64_t width = x.dims.back(),
          rows = numel(x.dims) / std::max<int64_t>(width, 1);
  if (numel(index.dims) != rows || numel(ks.dims) != rows)
    return "moe_scatter_rows: token_index and token_ks need one entry per row";
  int64_t total = numel(x.dims), topK = op.getTopK();
  std::vector<int64_t> buffers;
  for (int64_t buffer : {x.buffer, y.buffer, index.buffer, ks.buffer})
    if (!llvm::is_contained(buffers, buffer))
      buffers.push_back(buffer);
  Kernel k =
      begin("stage" + std::to_string(c.index), buffers, kScatterThreads, 0);
  k.launch.grid = {
      static_cast<unsigned>((total + kScatterThreads - 1) / kScatterThreads), 1,
      1};
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value t = addi(muli(bid, idx(kScatterThreads)), tid);
  auto loadIndex = [&](const View &v, Value row) -> Value {
    Value at = offsetOf(v, v.dims, row);
    Value raw =
        memref::LoadOp::create(b, loc, k.memrefs.at(v.buffer), ValueRange{at});
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), raw);
  };
  guarded(ult(t, idx(total)), [&] {
    Value row = arith::DivUIOp::create(b, loc, t, idx(width));
    Value col = arith::RemUIOp::create(b, loc, t, idx(width));
    // dst = token_index * top_k + token_ks, compared unsigned: a negative
    // index or slot wraps to a huge row and is skipped with the rest.
    Value dst =
        addi(muli(loadIndex(index, row), idx(topK)), loadIndex(ks, row));
    guarded(ult(dst, idx(rows)), [&] {
      SmallVector<Value> element = loadRun(k, x, x.dims, t, 1);
      storeRun(k, y, y.dims, addi(muli(dst, idx(width)), col), element);
    });
  });
  return finish(k, c.out);
}
