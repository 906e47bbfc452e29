//===- KernelEmitter.cpp - What every generated kernel is built from ------===//
//
// The Emitter's shared pieces: kernels as gpu.func with flat memref
// arguments, f32 conversions of every element type, strided and vectorized
// loads and stores of views, guarded regions and block reductions; and the
// loop over the planned stages that hands each to its stage emitter.
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::graph::kernelgen;

Type kernelgen::elementType(Builder &b, DType t) {
  switch (t) {
  case DType::F16:
    return b.getF16Type();
  case DType::BF16:
    return b.getBF16Type();
  case DType::I1:
  case DType::F8E4M3FN:
  case DType::F8E5M2:
  case DType::F8E8M0FNU:
  case DType::F4E2M1FN:
    return b.getI8Type();
  case DType::I32:
    return b.getI32Type();
  default:
    return b.getF32Type();
  }
}

ReduceKind kernelgen::reduceKind(const std::string &mode) {
  auto idPre = [](OpBuilder &, Location, Value x) { return x; };
  auto absPre = [](OpBuilder &b, Location l, Value x) -> Value {
    return math::AbsFOp::create(b, l, x);
  };
  auto add = [](OpBuilder &b, Location l, Value x, Value y) -> Value {
    return arith::AddFOp::create(b, l, x, y);
  };
  auto mul = [](OpBuilder &b, Location l, Value x, Value y) -> Value {
    return arith::MulFOp::create(b, l, x, y);
  };
  auto max = [](OpBuilder &b, Location l, Value x, Value y) -> Value {
    return arith::MaximumFOp::create(b, l, x, y);
  };
  auto min = [](OpBuilder &b, Location l, Value x, Value y) -> Value {
    return arith::MinimumFOp::create(b, l, x, y);
  };
  double inf = std::numeric_limits<double>::infinity();
  if (mode == "mul")
    return {1.0, idPre, mul};
  if (mode == "mul_no_zeros")
    return {1.0,
            [](OpBuilder &b, Location l, Value x) -> Value {
              Value zero =
                  arith::ConstantOp::create(b, l, b.getF32FloatAttr(0));
              Value one = arith::ConstantOp::create(b, l, b.getF32FloatAttr(1));
              Value isZero = arith::CmpFOp::create(
                  b, l, arith::CmpFPredicate::OEQ, x, zero);
              return arith::SelectOp::create(b, l, isZero, one, x);
            },
            mul};
  if (mode == "max")
    return {-inf, idPre, max};
  if (mode == "min")
    return {inf, idPre, min};
  if (mode == "amax")
    return {0.0, absPre, max};
  if (mode == "norm1")
    return {0.0, absPre, add};
  if (mode == "norm2")
    return {0.0,
            [](OpBuilder &b, Location l, Value x) -> Value {
              return arith::MulFOp::create(b, l, x, x);
            },
            add};
  return {0.0, idPre, add}; // add, avg
}

Emitter::Emitter(MLIRContext *ctx, Planner &planner, Knobs knobs,
                 const rt::DeviceLimits &limits)
    : b(ctx), loc(UnknownLoc::get(ctx)), planner(planner), knobs(knobs),
      limits(limits) {
  ctx->getOrLoadDialect<NVVM::NVVMDialect>(); // inline PTX (tanh.approx)
}

std::string Emitter::emit(ModuleOp m, rt::CodegenSpec &out) {
  module = m;
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  b.getUnitAttr());
  b.setInsertionPointToEnd(module.getBody());
  gpuModule = gpu::GPUModuleOp::create(b, loc, "kernels");
  for (size_t i = 0; i < planner.stages.size(); ++i) {
    const Stage &s = planner.stages[i];
    std::string error;
    if (s.stores.empty())
      continue;
    switch (s.kind) {
    case StageKind::Pointwise:
    case StageKind::Copy: // an identity pointwise op
      error = emitPointwise(s, i, out);
      break;
    case StageKind::Row:
      error = emitRow(s, i, out);
      break;
    case StageKind::Reduce:
    case StageKind::Quantize:
    case StageKind::Scatter: { // the kernels of the stage's one op
      KernelContext c(s, i, out);
      error = lowerToKernels(s.ops.front(), c);
      break;
    }
    }
    if (!error.empty())
      return error;
  }
  return "";
}

Value Emitter::rowInvariantZero() {
  Value zero =
      NVVM::InlinePtxOp::create(b, loc, TypeRange{b.getI32Type()}, ValueRange{},
                                ValueRange{}, "mov.b32 $0, 0;", Value())
          .getResult(0);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), zero);
}

Value Emitter::toF32(Value v, DType t) {
  if (v.getType().isF32())
    return v;
  if (v.getType().isInteger(8) && isByteFloat(t))
    return decodeByteFloat(b, loc, v, t);
  if (v.getType().isInteger(8)) { // an i1 tensor's byte: true is != 0
    Value zero = arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(0));
    Value set =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
    return arith::SelectOp::create(b, loc, set, f32(1.0), f32(0.0));
  }
  if (v.getType().isInteger(32))
    return arith::SIToFPOp::create(b, loc, b.getF32Type(), v);
  return arith::ExtFOp::create(b, loc, b.getF32Type(), v);
}

Value Emitter::fromF32(Value v, DType t) {
  Type type = elementType(b, t);
  if (type.isF32())
    return v;
  if (isByteFloat(t))
    return encodeByteFloat(b, loc, v, t);
  if (t == DType::I1) { // NaN counts as true, as in the reference
    Value set =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, f32(0.0));
    return arith::ExtUIOp::create(b, loc, b.getI8Type(), set);
  }
  if (t == DType::I32) { // nearest even, saturating, NaN -> 0 (cvt.rni)
    Value r = math::RoundEvenOp::create(b, loc, v);
    return arith::FPToSIOp::create(b, loc, b.getI32Type(), r);
  }
  return arith::TruncFOp::create(b, loc, type, v);
}

Emitter::Kernel Emitter::begin(const std::string &name,
                               const std::vector<int64_t> &buffers,
                               int64_t block, int64_t sharedFloats) {
  Kernel k;
  k.args = buffers;
  SmallVector<Type> types;
  for (int64_t uid : buffers) {
    auto [dtype, span] = planner.buffers.at(uid);
    types.push_back(
        MemRefType::get({std::max<int64_t>(span, 1)}, elementType(b, dtype)));
  }
  b.setInsertionPointToEnd(gpuModule.getBody());
  SmallVector<Type> workgroup;
  if (sharedFloats)
    workgroup.push_back(MemRefType::get(
        {sharedFloats}, b.getF32Type(), MemRefLayoutAttrInterface(),
        gpu::AddressSpaceAttr::get(b.getContext(),
                                   gpu::AddressSpace::Workgroup)));
  k.func = gpu::GPUFuncOp::create(b, loc, name, b.getFunctionType(types, {}),
                                  workgroup);
  k.func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  k.func.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(block), 1, 1}));
  for (size_t i = 0; i < buffers.size(); ++i)
    k.memrefs[buffers[i]] = k.func.getArgument(i);
  b.setInsertionPointToStart(&k.func.getBody().front());
  k.launch.entry = name;
  k.launch.block = {static_cast<unsigned>(block), 1, 1};
  k.launch.argUids = buffers;
  return k;
}

std::string Emitter::finish(Kernel &k, rt::CodegenSpec &out) {
  gpu::ReturnOp::create(b, loc);
  for (int64_t uid : k.args) {
    auto it = k.align.find(uid);
    k.launch.argAlign.push_back(it == k.align.end() ? 0 : it->second);
  }
  out.launches.push_back(k.launch);
  return "";
}

/// The alignment a run of `vec` elements of `dtype` is loaded or stored
/// with: the run's bytes, at most 16. A thread moves at most 16 bytes per
/// access (wider runs become several), and 16 is what the frontend's
/// tensors promise cuDNN, so a caller's buffer needs no more.
static int64_t vectorAlignment(int64_t vec, DType dtype) {
  return std::min<int64_t>(vec * elementBytes(dtype), 16);
}

Value Emitter::offsetOf(const View &v, const Shape &space, Value e) {
  Shape strides = stridesOver(v, space);
  if (strides == rowMajorStrides(space)) {
    bool dense = true; // broadcast-free and row-major
    for (size_t d = 0; d < space.size(); ++d)
      dense &= space[d] == 1 || strides[d] != 0;
    if (dense)
      return v.base ? addi(e, idx(v.base)) : e;
  }
  Value offset = idx(v.base);
  Value rest = e;
  // Outer dims the view does not move along need no coordinates.
  int64_t outer = 0;
  while (outer < static_cast<int64_t>(space.size()) && strides[outer] == 0)
    ++outer;
  for (int64_t d = static_cast<int64_t>(space.size()) - 1; d >= outer; --d) {
    if (space[d] == 1)
      continue;
    bool outermost = true;
    for (int64_t j = d - 1; j >= 0; --j)
      outermost &= space[j] == 1;
    Value coord =
        outermost
            ? rest
            : arith::RemUIOp::create(b, loc, rest, idx(space[d])).getResult();
    if (strides[d] != 0)
      offset = addi(offset, muli(coord, idx(strides[d])));
    if (!outermost)
      rest = arith::DivUIOp::create(b, loc, rest, idx(space[d]));
  }
  return offset;
}

SmallVector<Value> Emitter::loadRun(Kernel &k, const View &v,
                                    const Shape &space, Value e, int64_t vec) {
  Value memref = k.memrefs.at(v.buffer);
  Shape strides = stridesOver(v, space);
  int64_t inner = space.empty() ? 0 : strides[innerDim(space)];
  Value base = offsetOf(v, space, e);
  SmallVector<Value> lanes;
  if (vec == 1 || inner == 0) {
    Value x = toF32(memref::LoadOp::create(b, loc, memref, ValueRange{base}),
                    v.dtype);
    lanes.assign(vec, x);
    return lanes;
  }
  bool aligned = inner == 1 && runsAligned(space, strides, v.base, vec);
  if (aligned) {
    int64_t bytes = vectorAlignment(vec, v.dtype);
    auto type = VectorType::get({vec}, elementType(b, v.dtype));
    Value loaded = vector::LoadOp::create(
        b, loc, type, memref, ValueRange{base}, false, llvm::MaybeAlign(bytes));
    k.align[v.buffer] = std::max(k.align[v.buffer], bytes);
    for (int64_t i = 0; i < vec; ++i)
      lanes.push_back(
          toF32(vector::ExtractOp::create(b, loc, loaded, i), v.dtype));
    return lanes;
  }
  for (int64_t i = 0; i < vec; ++i) {
    Value at = i ? addi(base, idx(i * inner)) : base;
    lanes.push_back(
        toF32(memref::LoadOp::create(b, loc, memref, ValueRange{at}), v.dtype));
  }
  return lanes;
}

void Emitter::storeRun(Kernel &k, const View &v, const Shape &space, Value e,
                       ArrayRef<Value> lanes) {
  Value memref = k.memrefs.at(v.buffer);
  Shape strides = stridesOver(v, space);
  int64_t vec = lanes.size();
  int64_t inner = space.empty() ? 1 : strides[innerDim(space)];
  Value base = offsetOf(v, space, e);
  bool aligned =
      vec > 1 && inner == 1 && runsAligned(space, strides, v.base, vec);
  if (aligned) {
    SmallVector<Value> narrow;
    for (Value x : lanes)
      narrow.push_back(fromF32(x, v.dtype));
    auto type = VectorType::get({vec}, elementType(b, v.dtype));
    Value packed = vector::FromElementsOp::create(b, loc, type, narrow);
    int64_t bytes = vectorAlignment(vec, v.dtype);
    vector::StoreOp::create(b, loc, packed, memref, ValueRange{base}, false,
                            llvm::MaybeAlign(bytes));
    k.align[v.buffer] = std::max(k.align[v.buffer], bytes);
    return;
  }
  for (int64_t i = 0; i < vec; ++i) {
    Value at = i ? addi(base, idx(i * inner)) : base;
    memref::StoreOp::create(b, loc, fromF32(lanes[i], v.dtype), memref,
                            ValueRange{at});
  }
}

void Emitter::guarded(Value cond, function_ref<void()> body) {
  if (!cond) {
    body();
    return;
  }
  auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  body();
}

SmallVector<Value>
Emitter::guardedLoad(Value cond, size_t count,
                     function_ref<SmallVector<Value>()> body) {
  if (!cond)
    return body();
  SmallVector<Type> types(count, b.getF32Type());
  auto ifOp = scf::IfOp::create(b, loc, types, cond, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    scf::YieldOp::create(b, loc, body());
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    SmallVector<Value> zeros(count, f32(0.0));
    scf::YieldOp::create(b, loc, zeros);
  }
  return SmallVector<Value>(ifOp.getResults());
}

Value Emitter::blockReduce(Value v, const ReduceKind &kind, Value tid,
                           Value smem, int64_t block) {
  int width = static_cast<int>(std::min<int64_t>(block, 32));
  for (int offset = width / 2; offset >= 1; offset /= 2) {
    Value other =
        gpu::ShuffleOp::create(b, loc, v, offset, width, gpu::ShuffleMode::XOR)
            .getShuffleResult();
    v = kind.combine(b, loc, v, other);
  }
  if (block <= 32)
    return v;
  int64_t warps = (block + 31) / 32;
  Value lane = arith::RemUIOp::create(b, loc, tid, idx(32));
  Value warp = arith::DivUIOp::create(b, loc, tid, idx(32));
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, idx(0));
  guarded(first,
          [&] { memref::StoreOp::create(b, loc, v, smem, ValueRange{warp}); });
  gpu::BarrierOp::create(b, loc);
  Value r = memref::LoadOp::create(b, loc, smem, ValueRange{idx(0)});
  for (int64_t w = 1; w < warps; ++w)
    r = kind.combine(b, loc, r,
                     memref::LoadOp::create(b, loc, smem, ValueRange{idx(w)}));
  // The next reduction reuses the shared slots.
  gpu::BarrierOp::create(b, loc);
  return r;
}
