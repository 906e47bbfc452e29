//===- ScatterStage.cpp - Routed rows to their destination rows -----------===//
//
// moe_scatter_rows: two kernels. The first zeroes the output (rows no
// routed row lands on stay zero: padding past the experts' rows). The
// second gives a thread to each element of the input's rows: a routed row
// (inside the offsets' range) reads its token_index and token_ks and
// copies the element to row token_index * top_k + token_ks of the output.
// A slot outside [0, top_k) or a destination outside the output's rows is
// skipped (the reference rejects such routing; a kernel cannot raise). The
// kernels are the op's lowering by its kernel pattern (KernelPatterns.cpp).
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::graph::kernelgen;

/// Threads per block of a scatter stage's kernels (each writes one element).
static constexpr int64_t kScatterThreads = 256;

std::string Emitter::scatterRowsKernels(KernelContext &c, Operation *original) {
  auto op = cast<MoeScatterRowsOp>(original);
  const View &x = planner.viewOf(planner.uidOf(op.getInput()));
  const View &y = planner.viewOf(planner.uidOf(op.getOutput()));
  const View &index = planner.viewOf(planner.uidOf(op.getTokenIndex()));
  const View &ks = planner.viewOf(planner.uidOf(op.getTokenKs()));
  const View &offsets = planner.viewOf(planner.uidOf(op.getFirstTokenOffset()));
  if (x.dims != y.dims || x.dims.size() < 2)
    return "moe_scatter_rows: input and output must be [.., M, N] alike";
  if (index.dtype != DType::I32 || ks.dtype != DType::I32 ||
      offsets.dtype != DType::I32)
    return "moe_scatter_rows: generated kernels read i32 token_index, "
           "token_ks and first_token_offset only";
  int64_t width = std::max<int64_t>(x.dims.back(), 1);
  int64_t rows = numel(x.dims) / width;
  int64_t offsetCount = numel(offsets.dims);
  if (numel(index.dims) != rows || numel(ks.dims) != rows)
    return "moe_scatter_rows: token_index and token_ks need one entry per row";
  if (offsetCount < (op.getBounded() ? 2 : 1))
    return "moe_scatter_rows: first_token_offset lacks its start or end";
  int64_t total = numel(x.dims), topK = op.getTopK();
  unsigned blocks =
      static_cast<unsigned>((total + kScatterThreads - 1) / kScatterThreads);
  std::string name = "stage" + std::to_string(c.index);

  // Zeros first: the rows no routed row lands on.
  Kernel zero = begin(name + "_zero", {y.buffer}, kScatterThreads, 0);
  zero.launch.grid = {blocks, 1, 1};
  Value t0 = globalThreadIndex(kScatterThreads);
  guarded(ult(t0, idx(total)),
          [&] { storeRun(zero, y, y.dims, t0, {f32(0.0)}); });
  if (std::string e = finish(zero, c.out); !e.empty())
    return e;

  std::vector<int64_t> buffers;
  for (int64_t buffer :
       {x.buffer, y.buffer, index.buffer, ks.buffer, offsets.buffer})
    if (!llvm::is_contained(buffers, buffer))
      buffers.push_back(buffer);
  Kernel k = begin(name, buffers, kScatterThreads, 0);
  k.launch.grid = {blocks, 1, 1};
  Value t = globalThreadIndex(kScatterThreads);
  // Signed i32 values as index: a negative one wraps to a huge unsigned
  // value, which the unsigned range checks below reject. (Each value is
  // built in its own statement: the kernels' IR does not depend on the
  // host compiler's argument order.)
  auto loadInt = [&](const View &v, Value element) -> Value {
    Value at = offsetOf(v, v.dims, element);
    Value raw =
        memref::LoadOp::create(b, loc, k.memrefs.at(v.buffer), ValueRange{at});
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), raw);
  };
  guarded(ult(t, idx(total)), [&] {
    Value row = arith::DivUIOp::create(b, loc, t, idx(width));
    Value col = arith::RemUIOp::create(b, loc, t, idx(width));
    // Routed rows: [offsets[0], offsets[last] when bounded, else rows).
    Value first = loadInt(offsets, idx(0));
    Value end = idx(rows);
    if (op.getBounded()) {
      // As the reference: the end clamped to [first, rows] (signed).
      Value last = loadInt(offsets, idx(offsetCount - 1));
      Value notBeforeFirst = arith::MaxSIOp::create(b, loc, last, first);
      end = arith::MinSIOp::create(b, loc, notBeforeFirst, end);
    }
    Value afterFirst =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, first, row);
    Value beforeEnd = ult(row, end);
    Value routed = arith::AndIOp::create(b, loc, afterFirst, beforeEnd);
    guarded(routed, [&] {
      Value token = loadInt(index, row);
      Value slot = loadInt(ks, row);
      Value base = muli(token, idx(topK));
      Value dst = addi(base, slot);
      Value slotOk = ult(slot, idx(topK));
      Value rowOk = ult(dst, idx(rows));
      Value ok = arith::AndIOp::create(b, loc, slotOk, rowOk);
      guarded(ok, [&] {
        SmallVector<Value> element = loadRun(k, x, x.dims, t, 1);
        Value at = addi(muli(dst, idx(width)), col);
        storeRun(k, y, y.dims, at, element);
      });
    });
  });
  return finish(k, c.out);
}
