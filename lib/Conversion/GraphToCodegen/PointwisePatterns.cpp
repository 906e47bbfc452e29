//===- PointwisePatterns.cpp - Lane patterns of the pointwise ops ---------===//
//
// The pointwise op family's lane patterns (LanePatterns.cpp runs them):
// graph.pointwise and batchnorm_inference lane by lane from their
// operands' lanes; rope (forward and backward), block-scale dequantize,
// paged cache loads and MoE row gathers, which read elements other than
// the one they write from memory. The row
// stages run graph.pointwise and batchnorm_inference through the same
// pattern.
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"
#include "ScalarOps.h"

#include "GraphDialect/Engines/Engine.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::graph::kernelgen;

std::string Emitter::pointwiseLanes(Emitter &e, LaneContext &c,
                                    Operation *original,
                                    function_ref<Val(Value)> get) {
  auto linear = [&](size_t i) -> Value {
    if (!c.item || i >= static_cast<size_t>(c.item->vec))
      return Value();
    return e.addi(c.item->start, e.idx(i));
  };
  int64_t outUid = e.planner.uidOf(original->getResult(0));
  Val result;
  std::string error = e.computePointwise(original, outUid, get, linear, result);
  if (error.empty())
    c.values[outUid] = result;
  return error;
}

template <typename OpT, Emitter::GatherEmit<OpT> emit>
std::string Emitter::gatherLanes(Emitter &e, LaneContext &c,
                                 Operation *original,
                                 function_ref<Val(Value)>) {
  if (!c.item)
    return describeNode(original) + ": " +
           original->getName().stripDialect().str() +
           " runs in pointwise stages only";
  OpT op;
  if constexpr (std::is_same_v<OpT, Operation *>)
    op = original;
  else
    op = cast<OpT>(original);
  Val result;
  std::string error = (e.*emit)(*c.item->kernel, op, *c.item->space,
                                c.item->gatherStart, c.item->vec, result);
  if (error.empty())
    c.values[e.planner.uidOf(original->getResult(0))] = result;
  return error;
}

template std::string Emitter::gatherLanes<Operation *, &Emitter::emitRope>(
    Emitter &, LaneContext &, Operation *, function_ref<Val(Value)>);
template std::string
Emitter::gatherLanes<BlockScaleDequantizeOp, &Emitter::emitDequantize>(
    Emitter &, LaneContext &, Operation *, function_ref<Val(Value)>);
template std::string
Emitter::gatherLanes<PagedCacheLoadOp, &Emitter::emitPagedCacheLoad>(
    Emitter &, LaneContext &, Operation *, function_ref<Val(Value)>);
template std::string
Emitter::gatherLanes<MoeGatherRowsOp, &Emitter::emitMoeGatherRows>(
    Emitter &, LaneContext &, Operation *, function_ref<Val(Value)>);

Val Emitter::emitElements(Operation *op, Value e0, int64_t vec,
                          function_ref<Value(Value e, int64_t i)> element) {
  int64_t outUid = planner.uidOf(op->getResult(0));
  DType outType = planner.tensors.at(outUid)->dtype;
  Val result{Cls::Full, {}};
  for (int64_t i = 0; i < vec; ++i) {
    Value e = i ? addi(e0, idx(i)) : e0;
    result.lanes.push_back(roundTo(element(e, i), outType));
  }
  return result;
}

std::string Emitter::computePointwise(Operation *op, int64_t outUid,
                                      function_ref<Val(Value)> get,
                                      function_ref<Value(size_t)> linear,
                                      Val &result) {
  std::vector<Val> args;
  auto batchnorm = dyn_cast<BatchnormInferenceOp>(op);
  auto pointwise = dyn_cast<PointwiseOp>(op);
  std::string mode = pointwise ? modeOf(op) : "";
  if (batchnorm) {
    for (Value operand :
         {batchnorm.getInput(), batchnorm.getMean(), batchnorm.getInvVariance(),
          batchnorm.getScale(), batchnorm.getBias()})
      args.push_back(get(operand));
  } else {
    unsigned arity = mode == "gen_index" ? 0 : pointwiseArity(mode);
    for (unsigned i = 0; i < arity; ++i) {
      if (i >= pointwise.getInputs().size())
        return "pointwise " + mode + " lacks in" + std::to_string(i);
      args.push_back(get(pointwise.getInputs()[i]));
    }
  }
  DType outType = planner.tensors.count(outUid)
                      ? planner.tensors.at(outUid)->dtype
                      : planner.views.at(outUid).dtype;
  result = Val{};
  result.cls = Cls::Scalar;
  size_t lanes = 1;
  for (const Val &a : args) {
    result.cls = join(result.cls, a.cls);
    lanes = std::max(lanes, a.lanes.size());
  }
  if (mode == "gen_index") {
    result.cls = Cls::Full;
    lanes = 0;
  }
  if (mode == "gen_index") {
    const Shape &dims = planner.tensors.at(outUid)->dims;
    int64_t axis = intAttrOf(op, "axis", 0);
    if (axis < 0)
      axis += dims.size();
    Shape rm = rowMajorStrides(dims);
    for (size_t i = 0;; ++i) {
      Value e = linear(i);
      if (!e)
        break;
      Value c = arith::DivUIOp::create(b, loc, e, idx(rm.at(axis)));
      c = arith::RemUIOp::create(b, loc, c, idx(dims.at(axis)));
      Value asInt = arith::IndexCastOp::create(b, loc, b.getI64Type(), c);
      Value f = arith::UIToFPOp::create(b, loc, b.getF32Type(), asInt);
      result.lanes.push_back(roundTo(f, outType));
    }
    return "";
  }
  // Results rounded to bf16 (8 significant bits) or fp8 cannot tell an
  // error of a few f32 ulps from an exact one; there, a divisor shared by
  // every lane becomes one reciprocal and tanh becomes the hardware's
  // tanh.approx.f32 (relative error < 2^-10.9, an eighth of a bf16 ulp).
  bool coarse = outType == DType::BF16 || outType == DType::F8E4M3FN ||
                outType == DType::F8E5M2;
  if (coarse && pointwise && mode == "div" && lanes > 1 && args.size() == 2 &&
      args[1].lanes.size() == 1) {
    // Below 2^-125 the reciprocal would overflow: divide there.
    Value y = args[1].lanes[0];
    Value normal = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UGE,
                                         math::AbsFOp::create(b, loc, y),
                                         f32(std::ldexp(1.0, -125)));
    SmallVector<Type> types(lanes, b.getF32Type());
    auto branch = scf::IfOp::create(b, loc, types, normal, true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(branch.thenBlock());
      Value r = divf(f32(1.0), y);
      SmallVector<Value> q;
      for (size_t i = 0; i < lanes; ++i)
        q.push_back(mulf(args[0].lane(i), r));
      scf::YieldOp::create(b, loc, q);
      b.setInsertionPointToStart(branch.elseBlock());
      q.clear();
      for (size_t i = 0; i < lanes; ++i)
        q.push_back(divf(args[0].lane(i), y));
      scf::YieldOp::create(b, loc, q);
    }
    for (Value q : branch.getResults())
      result.lanes.push_back(roundTo(q, outType));
    return "";
  }
  for (size_t i = 0; i < lanes; ++i) {
    SmallVector<Value> scalars;
    for (const Val &a : args)
      scalars.push_back(a.lane(i));
    Value r;
    if (coarse && pointwise && mode == "tanh") {
      r = NVVM::InlinePtxOp::create(b, loc, TypeRange{b.getF32Type()},
                                    ValueRange{scalars[0]}, ValueRange{},
                                    "tanh.approx.f32 $0, $1;", Value())
              .getResult(0);
    } else if (batchnorm) {
      r = mulf(mulf(subf(scalars[0], scalars[1]), scalars[2]), scalars[3]);
      r = addf(r, scalars[4]);
    } else {
      r = mlir::graph::emitPointwise(
          b, loc, mode,
          [&](const char *name, double fallback) {
            return floatAttrOf(op, name, fallback);
          },
          scalars);
    }
    if (!r)
      return "pointwise " + mode + " has no generated lowering";
    result.lanes.push_back(roundTo(r, outType));
  }
  return "";
}

std::string Emitter::emitDequantize(Kernel &k, BlockScaleDequantizeOp op,
                                    const Shape &space, Value e0, int64_t vec,
                                    Val &result) {
  const View &x = planner.viewOf(planner.uidOf(op.getInput()));
  const View &d = planner.viewOf(planner.uidOf(op.getDescale()));
  if (d.dims.size() != space.size())
    return "block_scale_dequantize: descale rank " +
           std::to_string(d.dims.size()) + " differs from the input rank " +
           std::to_string(space.size());
  Shape block(space.size(), 1);
  if (space.empty())
    return "block_scale_dequantize: needs 1 to rank block sizes";
  block.back() = op.getBlockSizeAttr().getInt();
  double sign = op.getIsNegativeScale() ? -1.0 : 1.0;
  SmallVector<Value> xs = loadRun(k, x, space, e0, vec);
  result = emitElements(op, e0, vec, [&](Value e, int64_t i) {
    // descale offset: each coordinate divided by its block size.
    Value offset = idx(d.base), rest = e;
    for (int64_t dim = static_cast<int64_t>(space.size()) - 1; dim >= 0;
         --dim) {
      if (space[dim] == 1)
        continue;
      Value c = arith::RemUIOp::create(b, loc, rest, idx(space[dim]));
      rest = arith::DivUIOp::create(b, loc, rest, idx(space[dim]));
      if (d.dims[dim] != 1)
        offset = addi(offset,
                      muli(arith::DivUIOp::create(b, loc, c, idx(block[dim])),
                           idx(d.strides[dim])));
    }
    Value scale = toF32(memref::LoadOp::create(b, loc, k.memrefs.at(d.buffer),
                                               ValueRange{offset}),
                        d.dtype);
    return mulf(mulf(xs[i], f32(sign)), scale);
  });
  return "";
}

std::string Emitter::emitPagedCacheLoad(Kernel &k, PagedCacheLoadOp op,
                                        const Shape &space, Value e0,
                                        int64_t vec, Val &result) {
  const View &cache = planner.viewOf(planner.uidOf(op.getContainer()));
  const View &table = planner.viewOf(planner.uidOf(op.getPageTable()));
  const View *seqLen =
      op.getSeqLen() ? &planner.viewOf(planner.uidOf(op.getSeqLen())) : nullptr;
  if (space.size() != 4 || cache.dims.size() != 4 || table.dims.size() != 4 ||
      (seqLen && seqLen->dims.size() != 4))
    return "paged_cache_load: needs a rank-4 container, page table, "
           "seq_len and result";
  if (table.dtype != DType::I32 || (seqLen && seqLen->dtype != DType::I32))
    return "paged_cache_load: generated kernels read i32 page tables and "
           "seq_len only";
  if (cache.dtype == DType::I1 || cache.dtype == DType::I32 ||
      cache.dtype == DType::F4E2M1FN || cache.dtype == DType::F8E8M0FNU)
    return "paged_cache_load: generated kernels gather f32, f16, bf16 and "
           "fp8 (e4m3, e5m2) containers only";
  int64_t heads = space[1], seq = space[2], width = space[3];
  int64_t pageSize = cache.dims[2], pages = cache.dims[0];
  auto loadAt = [&](const View &v, Value offset) {
    return memref::LoadOp::create(b, loc, k.memrefs.at(v.buffer),
                                  ValueRange{offset})
        .getResult();
  };
  auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y).getResult();
  };
  auto i32 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 32).getResult();
  };
  // Where element `e` of the result lies: whether it is read, and the
  // offset of its row (batch, head, position) in the container.
  auto rowOf = [&](Value e) -> std::pair<Value, Value> {
    Value row = arith::DivUIOp::create(b, loc, e, idx(width));
    Value pos = arith::RemUIOp::create(b, loc, row, idx(seq));
    Value bh = arith::DivUIOp::create(b, loc, row, idx(seq));
    Value head = arith::RemUIOp::create(b, loc, bh, idx(heads));
    Value batch = arith::DivUIOp::create(b, loc, bh, idx(heads));
    Value slot = arith::DivUIOp::create(b, loc, pos, idx(pageSize));
    Value page = loadAt(
        table, addi(idx(table.base), addi(muli(batch, idx(table.strides[0])),
                                          muli(slot, idx(table.strides[2])))));
    // A page number outside [0, pages) reads zeros rather than another
    // allocation (the reference rejects it; the kernel cannot).
    Value ok = arith::AndIOp::create(
        b, loc, cmp(arith::CmpIPredicate::sge, page, i32(0)),
        cmp(arith::CmpIPredicate::slt, page, i32(pages)));
    if (seqLen) {
      Value len = loadAt(*seqLen, addi(idx(seqLen->base),
                                       muli(batch, idx(seqLen->strides[0]))));
      Value posI32 = arith::IndexCastOp::create(b, loc, b.getI32Type(), pos);
      ok = arith::AndIOp::create(b, loc, ok,
                                 cmp(arith::CmpIPredicate::slt, posI32, len));
    }
    Value pageIndex = arith::IndexCastOp::create(
        b, loc, b.getIndexType(),
        arith::SelectOp::create(b, loc, ok, page, i32(0)));
    Value base =
        addi(idx(cache.base),
             addi(muli(pageIndex, idx(cache.strides[0])),
                  addi(muli(head, idx(cache.strides[1])),
                       muli(arith::RemUIOp::create(b, loc, pos, idx(pageSize)),
                            idx(cache.strides[2])))));
    return {ok, base};
  };
  // A run within one row (vec divides the head dim) reads the page table
  // and seq_len once.
  if (width % vec == 0) {
    auto [ok, base] = rowOf(e0);
    result = loadRowRun(k, op, cache,
                        {cache.strides[0], cache.strides[1], cache.strides[2]},
                        ok, base, e0, width, vec);
    return "";
  }
  result = emitElements(op, e0, vec, [&](Value e, int64_t) {
    auto [ok, base] = rowOf(e);
    return loadRowElement(k, cache, ok, base,
                          arith::RemUIOp::create(b, loc, e, idx(width)));
  });
  return "";
}

Value Emitter::loadRowElement(Kernel &k, const View &src, Value ok, Value base,
                              Value d) {
  Value x = toF32(memref::LoadOp::create(
                      b, loc, k.memrefs.at(src.buffer),
                      ValueRange{addi(base, muli(d, idx(src.strides.back())))}),
                  src.dtype);
  return arith::SelectOp::create(b, loc, ok, x, f32(0.0)).getResult();
}

Val Emitter::loadRowRun(Kernel &k, Operation *op, const View &src,
                        ArrayRef<int64_t> rowStrides, Value ok, Value base,
                        Value e0, int64_t width, int64_t vec) {
  Value d0 = arith::RemUIOp::create(b, loc, e0, idx(width));
  // Rows whose every start is a multiple of the run load it as vectors of
  // at most 16 bytes (the run may be wider: the stage's widest tensor
  // decides it, and the source is not one of those).
  int64_t bytes = elementBytes(src.dtype);
  int64_t piece = std::min<int64_t>(vec, std::max<int64_t>(1, 16 / bytes));
  bool aligned = piece > 1 && src.strides.back() == 1 && src.base % piece == 0;
  for (int64_t stride : rowStrides)
    aligned &= stride % piece == 0;
  if (!aligned)
    return emitElements(op, e0, vec, [&](Value, int64_t i) {
      return loadRowElement(k, src, ok, base, i ? addi(d0, idx(i)) : d0);
    });
  auto type = VectorType::get({piece}, elementType(b, src.dtype));
  SmallVector<Value> lanes;
  for (int64_t at = 0; at < vec; at += piece) {
    Value loaded = vector::LoadOp::create(
        b, loc, type, k.memrefs.at(src.buffer),
        ValueRange{addi(base, at ? addi(d0, idx(at)) : d0)}, false,
        llvm::MaybeAlign(piece * bytes));
    for (int64_t i = 0; i < piece; ++i)
      lanes.push_back(
          toF32(vector::ExtractOp::create(b, loc, loaded, i), src.dtype));
  }
  k.align[src.buffer] = std::max(k.align[src.buffer], piece * bytes);
  return emitElements(op, e0, vec, [&](Value, int64_t i) {
    return arith::SelectOp::create(b, loc, ok, lanes[i], f32(0.0)).getResult();
  });
}

std::string Emitter::emitMoeGatherRows(Kernel &k, MoeGatherRowsOp op,
                                       const Shape &space, Value e0,
                                       int64_t vec, Val &result) {
  const View &x = planner.viewOf(planner.uidOf(op.getInput()));
  const View &index = planner.viewOf(planner.uidOf(op.getTokenIndex()));
  if (space.size() != 3 || x.dims.size() != 3 || x.dims[2] != space[2])
    return "moe_gather_rows: needs [1, T, K] tokens and a [1, S, K] result";
  if (index.dtype != DType::I32)
    return "moe_gather_rows: generated kernels read an i32 token_index only";
  if (x.dtype == DType::I1 || x.dtype == DType::I32 ||
      x.dtype == DType::F4E2M1FN || x.dtype == DType::F8E8M0FNU)
    return "moe_gather_rows: generated kernels gather f32, f16, bf16 and fp8 "
           "(e4m3, e5m2) rows only";
  int64_t width = space[2], tokens = x.dims[1];
  auto loadAt = [&](const View &v, Value offset) {
    return memref::LoadOp::create(b, loc, k.memrefs.at(v.buffer),
                                  ValueRange{offset})
        .getResult();
  };
  // Where element `e` of the result comes from: whether its source row is
  // a token (an index outside [0, T) reads zeros, never another
  // allocation) and the offset of that row in the tokens.
  auto rowOf = [&](Value e) -> std::pair<Value, Value> {
    Value row = arith::DivUIOp::create(b, loc, e, idx(width));
    Value source = loadAt(index, offsetOf(index, index.dims, row));
    Value zero = arith::ConstantIntOp::create(b, loc, 0, 32);
    Value count = arith::ConstantIntOp::create(b, loc, tokens, 32);
    Value notNegative =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, source, zero);
    Value belowCount =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, source, count);
    Value ok = arith::AndIOp::create(b, loc, notNegative, belowCount);
    Value token = arith::IndexCastOp::create(
        b, loc, b.getIndexType(),
        arith::SelectOp::create(b, loc, ok, source, zero));
    return {ok, addi(idx(x.base), muli(token, idx(x.strides[1])))};
  };
  // A run within one row (vec divides K) reads its index once.
  if (width % vec == 0) {
    auto [ok, base] = rowOf(e0);
    result = loadRowRun(k, op, x, {x.strides[1]}, ok, base, e0, width, vec);
    return "";
  }
  result = emitElements(op, e0, vec, [&](Value e, int64_t) {
    auto [ok, base] = rowOf(e);
    return loadRowElement(k, x, ok, base,
                          arith::RemUIOp::create(b, loc, e, idx(width)));
  });
  return "";
}

std::string Emitter::emitRope(Kernel &k, Operation *op, const Shape &space,
                              Value e0, int64_t vec, Val &result) {
  std::string kind = op->getName().stripDialect().str();
  // rope's input and rope_backward's dY, then freqs.
  const View &x = planner.viewOf(planner.uidOf(op->getOperand(0)));
  const View &f = planner.viewOf(planner.uidOf(op->getOperand(1)));
  if (space.empty() || f.dims.empty())
    return kind + ": needs an input and freqs of rank >= 1";
  int64_t head = space.back();
  int64_t d = intAttrOf(op, "rope_dim", 0);
  if (d == 0)
    d = head;
  int64_t half = d / 2, freqLast = f.dims.back();
  if (d % 2 || d > head || (freqLast != d && freqLast != half))
    return kind + ": rope_dim " + std::to_string(d) + " and freqs last dim " +
           std::to_string(freqLast) + " do not fit a last dim of " +
           std::to_string(head);
  double scale = floatAttrOf(op, "output_scale", 1.0);
  bool backward = isa<RopeBackwardOp>(op);
  Shape fspace = space;
  fspace.back() = freqLast;
  auto load = [&](const View &v, const Shape &sp, Value at) {
    return toF32(memref::LoadOp::create(b, loc, k.memrefs.at(v.buffer),
                                        ValueRange{offsetOf(v, sp, at)}),
                 v.dtype);
  };
  auto lt = [&](Value a, int64_t c) { return ult(a, idx(c)); };
  auto select = [&](Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, loc, cond, x, y).getResult();
  };
  // A run inside one half of a row (runs start at multiples of `vec`):
  // its row, half and partner run are the same for every lane, so each
  // operand is one run load (vectors where the view allows) instead of a
  // coordinate computation per element and load, and the element and its
  // partner share an angle (half-width freqs: freqs[j mod half]).
  if (half % vec == 0 && head % vec == 0 && freqLast == half) {
    Value row = arith::DivUIOp::create(b, loc, e0, idx(head));
    Value j0 = arith::RemUIOp::create(b, loc, e0, idx(head));
    Value first = lt(j0, half), inRope = lt(j0, d);
    // The partner run: half a rope width on, or back; in the same row, so
    // read in bounds even where the run passes through unrotated.
    Value partner = select(first, addi(e0, idx(half)),
                           arith::SubIOp::create(b, loc, e0, idx(half)));
    Value angle =
        select(first, j0, arith::SubIOp::create(b, loc, j0, idx(half)));
    angle = addi(muli(row, idx(freqLast)), select(inRope, angle, idx(0)));
    SmallVector<Value> xs = loadRun(k, x, space, e0, vec);
    SmallVector<Value> ps = loadRun(k, x, space, partner, vec);
    SmallVector<Value> angles = loadRun(k, f, fspace, angle, vec);
    result = emitElements(op, e0, vec, [&](Value, int64_t i) {
      auto trig = math::SincosOp::create(b, loc, angles[i]);
      Value straight = mulf(xs[i], trig.getCos());
      Value turned = mulf(ps[i], trig.getSin());
      // Forward: x*cos - partner*sin in the first half, x*cos +
      // partner*sin in the second; backward the other way round.
      Value minus = subf(straight, turned), plus = addf(straight, turned);
      Value rotated =
          backward ? select(first, plus, minus) : select(first, minus, plus);
      return mulf(f32(scale), select(inRope, rotated, xs[i]));
    });
    return "";
  }
  result = emitElements(op, e0, vec, [&](Value e, int64_t) {
    Value j = arith::RemUIOp::create(b, loc, e, idx(head));
    Value row = arith::DivUIOp::create(b, loc, e, idx(head));
    Value first = lt(j, half), inRope = lt(j, d);
    Value lo = arith::SelectOp::create(
        b, loc, first, j, arith::SubIOp::create(b, loc, j, idx(half)));
    lo = arith::SelectOp::create(b, loc, inRope, lo, idx(0));
    Value rowBase = muli(row, idx(head));
    Value xlo = load(x, space, addi(rowBase, lo));
    Value xhi = load(x, space, addi(rowBase, addi(lo, idx(half))));
    Value fBase = muli(row, idx(freqLast));
    Value a0 = load(f, fspace, addi(fBase, lo));
    Value a1 =
        freqLast == d ? load(f, fspace, addi(fBase, addi(lo, idx(half)))) : a0;
    Value c0 = math::CosOp::create(b, loc, a0),
          s0 = math::SinOp::create(b, loc, a0);
    Value c1 = math::CosOp::create(b, loc, a1),
          s1 = math::SinOp::create(b, loc, a1);
    Value lower = backward ? addf(mulf(xlo, c0), mulf(xhi, s1))
                           : subf(mulf(xlo, c0), mulf(xhi, s0));
    Value upper = backward ? subf(mulf(xhi, c1), mulf(xlo, s0))
                           : addf(mulf(xhi, c1), mulf(xlo, s1));
    Value rotated = arith::SelectOp::create(b, loc, first, lower, upper);
    Value r =
        arith::SelectOp::create(b, loc, inRope, rotated, load(x, space, e));
    return mulf(f32(scale), r);
  });
  return "";
}
