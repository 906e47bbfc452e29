//===- QuantizeStage.cpp - Block-scale quantize kernels -------------------===//
//
// block_scale_quantize: a thread per block of `block_size` elements along
// the axis finds the block's amax, its scale (an e8m0 power of two, OCP
// style, or amax / the output format's largest value rounded to the scale's
// type), and stores the scaled elements narrowed to fp8 or fp4. The kernel
// is the op's lowering by its kernel pattern (KernelPatterns.cpp).
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"

#include "GraphDialect/Reference/QuantKernels.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <limits>

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::graph::kernelgen;

/// Threads per block of a quantize stage (each quantizes one block).
static constexpr int64_t kQuantizeThreads = 256;

std::string Emitter::quantizeKernels(KernelContext &c, Operation *original) {
  auto op = cast<BlockScaleQuantizeOp>(original);
  const View &x = planner.viewOf(planner.uidOf(op.getInput()));
  const View &y = planner.viewOf(planner.uidOf(op.getY()));
  const View &sc = planner.viewOf(planner.uidOf(op.getScale()));
  const Shape &space = x.dims;
  int64_t rank = space.size();
  int64_t axis = intAttrOf(op, "axis", -1);
  if (axis < 0)
    axis += rank;
  int64_t blockSize = op.getBlockSizeAttr().getInt();
  if (axis < 0 || axis >= rank || blockSize <= 0)
    return "block_scale_quantize: axis or block_size out of range";
  if (!isByteFloat(y.dtype) || y.dtype == DType::F8E8M0FNU)
    return "block_scale_quantize: Y must be fp8 e4m3/e5m2 or fp4 e2m1";
  int64_t n = space[axis], blocks = (n + blockSize - 1) / blockSize;
  Shape sspace = space;
  sspace[axis] = blocks;
  if (sc.dims != sspace)
    return "block_scale_quantize: scale dims differ from the input's with "
           "the axis divided by block_size";
  // Element views over [blocks space..., blockSize]: a block's elements are
  // the last (contiguous when the axis is) dim.
  Shape space2 = sspace;
  space2.push_back(blockSize);
  auto elementView = [&](View v) {
    View out = v;
    out.dims = space2;
    out.strides = v.strides;
    out.strides[axis] = v.strides[axis] * blockSize;
    out.strides.push_back(v.strides[axis]);
    return out;
  };
  View x2 = elementView(x), y2 = elementView(y);
  bool ragged = n % blockSize != 0;
  int64_t vec = 16 / std::max(elementBytes(x.dtype), elementBytes(y.dtype));
  while (vec > 1 && (blockSize % vec || ragged))
    vec /= 2;
  int64_t total = numel(sspace), threads = kQuantizeThreads;
  std::vector<int64_t> buffers;
  for (int64_t buffer : {x.buffer, y.buffer, sc.buffer})
    if (!llvm::is_contained(buffers, buffer))
      buffers.push_back(buffer);
  Kernel k = begin("stage" + std::to_string(c.index), buffers, threads, 0);
  k.launch.grid = {static_cast<unsigned>((total + threads - 1) / threads), 1,
                   1};
  Value t = globalThreadIndex(threads);
  double maxVal = ::graph::ref::maxFiniteValue(y.dtype);
  int emax = y.dtype == DType::F8E4M3FN ? 8 : y.dtype == DType::F8E5M2 ? 15 : 2;
  guarded(ult(t, idx(total)), [&] {
    // The block's valid length along the axis.
    int64_t after = 1;
    for (int64_t d = axis + 1; d < rank; ++d)
      after *= sspace[d];
    Value blk = arith::RemUIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, t, idx(after)), idx(blocks));
    Value count = idx(blockSize);
    if (ragged)
      count = arith::MinUIOp::create(
          b, loc, idx(blockSize),
          arith::SubIOp::create(b, loc, idx(n), muli(blk, idx(blockSize))));
    Value base = muli(t, idx(blockSize));
    SmallVector<Value> xs;
    SmallVector<Value> valid;
    for (int64_t r = 0; r < blockSize; r += vec) {
      Value ok = ragged ? ult(idx(r), count) : Value();
      SmallVector<Value> run = guardedLoad(ok, vec, [&] {
        return loadRun(k, x2, space2, addi(base, idx(r)), vec);
      });
      xs.append(run.begin(), run.end());
      for (int64_t l = 0; l < vec; ++l)
        valid.push_back(ok);
    }
    Value amax = f32(0.0);
    for (Value v : xs) {
      Value a = math::AbsFOp::create(b, loc, v);
      Value isNan =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, a, a);
      a = arith::SelectOp::create(b, loc, isNan, f32(0.0), a);
      amax = arith::MaximumFOp::create(b, loc, amax, a);
    }
    Value scale;
    if (sc.dtype == DType::F8E8M0FNU) {
      // OCP: 2^(floor(log2 amax) - emax), clamped to [2^-127, 2^127].
      F32Bits fb{b, loc};
      Value bits = fb.bitsOf(amax);
      Value field = arith::ShRUIOp::create(b, loc, bits, fb.i32c(23));
      Value lz = math::CountLeadingZerosOp::create(b, loc, bits);
      Value subLog = arith::SubIOp::create(
          b, loc, arith::SubIOp::create(b, loc, fb.i32c(31), lz), fb.i32c(149));
      Value log2 = arith::SelectOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, field,
                                fb.i32c(0)),
          subLog, arith::SubIOp::create(b, loc, field, fb.i32c(127)));
      Value e = arith::SubIOp::create(b, loc, log2, fb.i32c(emax));
      e = arith::MaxSIOp::create(b, loc, e, fb.i32c(-127));
      e = arith::MinSIOp::create(b, loc, e, fb.i32c(127));
      Value tiny = fb.floatOf(fb.i32c(0x00400000)); // 2^-127
      Value isTiny = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, e,
                                           fb.i32c(-127));
      scale = arith::SelectOp::create(
          b, loc, isTiny, tiny,
          fb.pow2(arith::MaxSIOp::create(b, loc, e, fb.i32c(-126))));
      Value isZero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                           amax, f32(0.0));
      Value isInf =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, amax,
                                f32(std::numeric_limits<double>::infinity()));
      scale = arith::SelectOp::create(b, loc, isZero, tiny, scale);
      scale =
          arith::SelectOp::create(b, loc, isInf, fb.pow2(fb.i32c(127)), scale);
    } else {
      double scaleMax = ::graph::ref::maxFiniteValue(sc.dtype);
      Value raw = divf(amax, f32(maxVal));
      raw = arith::MinimumFOp::create(b, loc, raw, f32(scaleMax));
      scale = roundTo(raw, sc.dtype);
    }
    Value isZero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                         scale, f32(0.0));
    SmallVector<Value> ys;
    for (Value v : xs) {
      Value q = arith::SelectOp::create(b, loc, isZero, v, divf(v, scale));
      q = arith::MinimumFOp::create(b, loc, q, f32(maxVal));
      q = arith::MaximumFOp::create(b, loc, q, f32(-maxVal));
      ys.push_back(q);
    }
    for (int64_t r = 0; r < blockSize; r += vec)
      guarded(valid[r], [&] {
        storeRun(k, y2, space2, addi(base, idx(r)),
                 ArrayRef<Value>(ys).slice(r, vec));
      });
    memref::StoreOp::create(b, loc, fromF32(scale, sc.dtype),
                            k.memrefs.at(sc.buffer),
                            ValueRange{offsetOf(sc, sspace, t)});
  });
  return finish(k, c.out);
}
