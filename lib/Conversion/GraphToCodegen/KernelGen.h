//===- KernelGen.h - The kernel generator's pieces --------------*- C++ -*-===//
//
// Internal to lib/Conversion/GraphToCodegen. codegen_v2 in three layers,
// each reading the group's graph ops (GroupOps: op classes, typed accessors
// and attributes; a tensor's buffer by its uid):
//
//  - planning (StagePlanner.cpp): the group's ops become stages (which ops
//    fuse into one kernel, which values go through scratch buffers, how
//    views fold into addressing);
//  - launch geometry (LaunchGeometry.cpp): vector widths, block and grid
//    sizes of each stage from the plan's knobs and the device's limits;
//  - emission: one gpu.func per launch, built by the Emitter from the
//    shared pieces in KernelEmitter.cpp and one file per stage kind:
//    PointwiseStage.cpp (pointwise and copy stages), RowStage.cpp and
//    ColumnSums.cpp (reductions over trailing axes and norms),
//    ReduceStage.cpp, QuantizeStage.cpp. The graph ops in them are lowered
//    by conversion patterns: to the lanes a thread holds in pointwise and
//    row stages (LanePatterns.cpp; the op families in PointwisePatterns.cpp
//    and NormPatterns.cpp), to whole kernels in the stages of one op
//    (KernelPatterns.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_GRAPHTOCODEGEN_KERNELGEN_H
#define LIB_CONVERSION_GRAPHTOCODEGEN_KERNELGEN_H

#include "ByteFloat.h"
#include "GraphDialect/Conversion/GraphToCodegen.h"
#include "GraphDialect/GraphOps.h"
#include "GraphDialect/NodeOps.h"
#include "GraphDialect/Runtime/CodegenKernel.h"
#include "GraphDialect/Runtime/CudnnGraph.h"
#include "GraphDialect/Runtime/DeviceLimits.h"
#include "GraphDialect/Support/DType.h"
#include "GraphDialect/Support/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace mlir::graph::kernelgen {

namespace rt = ::graph::rt;
using ::graph::broadcastsTo;
using ::graph::DType;
using ::graph::OpKind;
using ::graph::pointwiseInput;
using ::graph::Port;
using ::graph::portName;
using ::graph::rowMajorStrides;
using ::graph::Shape;
using ::graph::SpecOpKind;
using ::graph::SpecPort;
using ::graph::variadicElement;


/// The ODS names of the operands (`isResult` false) or results of `kind`,
/// in ODS order (OpPorts.inc, generated from GraphOps.td).
SmallVector<Port> odsPorts(OpKind kind, bool isResult);

/// `op`'s operands or results by the name a group description gives them
/// (the ODS name; a pointwise op's inputs in0, in1, in2, a concatenation's
/// inputs_<k>; rope_backward's dY is `input`), ordered by name as the
/// descriptions' port maps are. Absent optional ones are left out.
SmallVector<std::pair<SpecPort, Value>> namedValues(Operation *op,
                                                    bool isResult);
/// `op`'s operand or result `port` (by the names above); null when absent.
Value namedValue(Operation *op, Port port, bool isResult);

/// The type of group tensor `t` in the graph ops the planner reads: its
/// dims, its dtype's element type and, when `strides`, its strides as
/// #graph.strides (buildSpecGraphOps and buildGroupOps type alike).
RankedTensorType groupTensorType(MLIRContext *ctx, const rt::TensorSpec &t,
                                 bool strides);
/// Whether group tensor `t` is stored row-major (unit dims take any
/// stride): the only layout the linalg route (codegen_v1) takes.
bool rowMajor(const rt::TensorSpec &t);
/// The graph.scalar standing for by-value tensor `t` (its value as f64).
Value createByValueScalar(OpBuilder &b, Location loc, const rt::TensorSpec &t,
                          bool strides);

/// The graph op kind of `op` (a graph node op).
OpKind opKindOf(Operation *op);
/// The mode of a pointwise or reduction op, or the phase of a norm; "".
std::string modeOf(Operation *op);
/// The op's kind and label for messages: `layernorm "ln"`.
std::string labelOf(Operation *op);

//===----------------------------------------------------------------------===//
// Shapes and views
//===----------------------------------------------------------------------===//

inline int64_t numel(const Shape &s) { return ::graph::numElements(s); }

inline int64_t elementBytes(DType t) {
  if (t == DType::F32 || t == DType::I32)
    return 4;
  return t == DType::I1 || isByteFloat(t) ? 1 : 2;
}

/// i1 tensors are one byte per element, 0 or 1.
inline bool supportedType(DType t) {
  return t == DType::F32 || t == DType::F16 || t == DType::BF16 ||
         t == DType::I1 || t == DType::I32 || isByteFloat(t);
}

/// An addressable tensor: `dims` over a buffer `buffer` at element `base`.
struct View {
  int64_t buffer = 0; // uid of the buffer (negative: scratch)
  DType dtype = DType::F32;
  int64_t base = 0;
  Shape dims, strides;
};

/// Strides of `v` read over `space` (numpy broadcasting, trailing
/// alignment); broadcast dims read with stride 0.
inline Shape stridesOver(const View &v, const Shape &space) {
  Shape out(space.size(), 0);
  size_t lead = space.size() - v.dims.size();
  for (size_t j = 0; j < v.dims.size(); ++j)
    if (v.dims[j] != 1)
      out[lead + j] = v.strides[j];
  return out;
}

/// The innermost dim of `space` that is not 1 (runs of consecutive
/// elements move along it), or 0.
inline size_t innerDim(const Shape &space) {
  for (size_t d = space.size(); d > 0; --d)
    if (space[d - 1] != 1)
      return d - 1;
  return 0;
}

/// Whether runs of `vec` elements of a view with `strides` over `space`
/// start `vec`-aligned: every other moving dim's stride and the base are
/// multiples of `vec`.
inline bool runsAligned(const Shape &space, const Shape &strides, int64_t base,
                        int64_t vec) {
  size_t inner = innerDim(space);
  bool aligned = base % vec == 0;
  for (size_t d = 0; d < strides.size(); ++d)
    if (d != inner && space[d] != 1)
      aligned &= strides[d] % vec == 0;
  return aligned;
}

//===----------------------------------------------------------------------===//
// Stages
//===----------------------------------------------------------------------===//

/// Copy stages (a view materialized, a gather into packed scratch, a region
/// of a concatenation) are identity pointwise kernels.
enum class StageKind { Pointwise, Row, Reduce, Copy, Quantize, Scatter };

struct Stage {
  StageKind kind = StageKind::Pointwise;
  Shape space;  // iteration space (row stages: the row-shaped tensor)
  size_t k = 0; // row stages: axes [k, rank) form one row
  std::vector<Operation *> ops; // the group's graph ops, or planner-made
  std::set<int64_t> produced;
  std::vector<int64_t> stores; // produced uids written to their view
};

/// The backward norms (layer, RMS, instance, adaptive layer).
inline bool isBackwardNorm(Operation *op) {
  return isa<LayernormBackwardOp, RmsnormBackwardOp, InstancenormBackwardOp,
             AdaLayernormBackwardOp>(op);
}
/// An integer or float attribute of `op` (an I64Attr or F64Attr it
/// declares) by name, or `fallback` when it is absent.
int64_t intAttrOf(Operation *op, StringRef name, int64_t fallback);
double floatAttrOf(Operation *op, StringRef name, double fallback);

/// The knobs of a codegen_v2 plan name.
struct Knobs {
  int64_t threads = 256; // block size (row stages: the smallest one)
  int64_t items = 2;     // vector runs per thread in pointwise stages
  bool prefetch = false; // row stages: load the next row ahead
};

/// Parses codegen_v2_t<threads>_i<items>[_p]; false when `name` is not one.
bool parsePlan(const std::string &name, Knobs &knobs);

//===----------------------------------------------------------------------===//
// Planning: ops -> stages (StagePlanner.cpp)
//===----------------------------------------------------------------------===//

class Planner {
public:
  explicit Planner(const GroupOps &group);
  ~Planner();

  /// Plans every op into stages; why not, or "".
  std::string plan();
  /// The uid of a tensor value of the group or of a planner-made op.
  int64_t uidOf(Value value) const { return value ? uids.lookup(value) : 0; }
  /// The uid of `op`'s operand or result `port` (by the group
  /// descriptions' names, namedValue); nullopt when it has none.
  std::optional<int64_t> uidAt(Operation *op, Port port, bool isResult) const {
    Value v = namedValue(op, port, isResult);
    return v ? std::optional<int64_t>(uidOf(v)) : std::nullopt;
  }
  /// The uid of operand `port` of `op`, which has it.
  int64_t in(Operation *op, Port port) const {
    return *uidAt(op, port, /*isResult=*/false);
  }
  /// The uid of result `port` of `op`, which has it.
  int64_t out(Operation *op, Port port) const {
    return *uidAt(op, port, /*isResult=*/true);
  }
  /// The uid of backward norm `op`'s DScale or DBias (`port`) when it is
  /// stored or read later (it has a view); nullopt when unused.
  std::optional<int64_t> liveColumnSum(Operation *op, Port port) const {
    std::optional<int64_t> uid = uidAt(op, port, /*isResult=*/true);
    return uid && views.count(resolve(*uid)) ? uid : std::nullopt;
  }
  /// Whether `uid` is the DScale or DBias of backward norm `op`.
  bool isColumnSum(Operation *op, int64_t uid) const {
    for (Port port : {Port::DScale, Port::DBias})
      if (uidAt(op, port, /*isResult=*/true) == uid)
        return true;
    return false;
  }
  int64_t newScratch(DType dtype, const Shape &dims);
  /// The tensor a uid stands for: a view op's result reads its view.
  int64_t resolve(int64_t uid) const {
    auto it = alias.find(uid);
    return it == alias.end() ? uid : it->second;
  }
  /// The addressable view of `uid` (resolved).
  const View &viewOf(int64_t uid) const { return views.at(resolve(uid)); }

  const GroupOps &group;
  func::FuncOp func;
  std::vector<Operation *> ops;           // the group's node ops, in order
  std::deque<rt::TensorSpec> tensorFacts; // dtype, dims, ... of each value
  std::map<int64_t, const rt::TensorSpec *> tensors;
  std::map<int64_t, View> views;    // addressable tensors by uid
  std::map<int64_t, int64_t> alias; // view op results -> their view uid
  std::vector<Stage> stages;
  std::vector<std::pair<int64_t, int64_t>> scratch;     // buffer, bytes
  std::map<int64_t, std::pair<DType, int64_t>> buffers; // uid -> type, span
  /// Backward norms with a per-row scale: the scratch view of dY * xhat.
  std::map<Operation *, int64_t> productOf;

private:
  const rt::TensorSpec &tensor(int64_t uid) const { return *tensors.at(uid); }
  /// Dims of `uid` (resolved): its view's (a view op's result) or its
  /// tensor's; null when the group has neither.
  const Shape *dimsOf(int64_t uid) const {
    if (auto v = views.find(uid); v != views.end())
      return &v->second.dims;
    if (auto t = tensors.find(uid); t != tensors.end())
      return &t->second->dims;
    return nullptr;
  }
  /// Views of the group's tensors that live in buffers, and the buffers'
  /// spans; why not, or "".
  std::string addTensorViews();
  void close(size_t nextOp);
  void writeUnread(Operation *op);
  /// The value standing for planner-made tensor `uid` (a view, a scratch
  /// region) in the ops the planner makes.
  Value placeholder(int64_t uid, DType dtype, const Shape &dims);
  /// An op the planner adds for `like` (a copy of a view: a pointwise
  /// identity; a column sum: an add reduction) reading `from`, writing
  /// `to`, with `like`'s label.
  Operation *synthesize(Operation *like, bool reduction, int64_t from,
                        int64_t to);
  /// `op` (the `index`th op or a copy standing for it) as a stage of its
  /// own over `space`: the open stage closes before it, its own after it.
  void addAlone(Operation *op, StageKind kind, const Shape &space,
                size_t index);
  std::string addPointwiseLike(Operation *op, const Shape &out);
  std::string addRowOp(Operation *op, const Shape &space, size_t k);
  std::string needAddressable(int64_t uid, size_t index);

  // One planning step per op family; `op` is spec.ops[index].
  struct OpContext;
  std::string planPointwise(OpContext &c);
  std::string planQuantize(OpContext &c);
  std::string planScatterRows(OpContext &c);
  std::string planGatheringPointwise(OpContext &c);
  std::string planBatchnormInference(OpContext &c);
  std::string planView(OpContext &c);
  std::string planConcatenate(OpContext &c);
  std::string planReduction(OpContext &c);
  std::string planGenstats(OpContext &c);
  std::string planNorm(OpContext &c, bool forward);

  std::optional<Stage> open;
  std::map<int64_t, std::vector<size_t>> consumers;
  llvm::DenseMap<Value, int64_t> uids;
  /// Holds the planner-made ops and their placeholder operands.
  std::unique_ptr<Block> scratchOps;
  int64_t nextScratch = -1;
  int64_t nextSynthetic = -1000000;
};

//===----------------------------------------------------------------------===//
// Launch geometry (LaunchGeometry.cpp)
//===----------------------------------------------------------------------===//

/// Buffers a stage touches, in a fixed order.
std::vector<int64_t> stageBuffers(const Planner &p, const Stage &s);

/// The largest run length that keeps every vector access within 16 bytes
/// (16-byte vectors of the widest tensor read or written along the
/// innermost dim; per-row or broadcast tensors do not count) and divides
/// the innermost dim of `space`.
int64_t runLength(const Planner &p, const Stage &s);

/// A pointwise (or copy) stage: each thread of a block owns `items` runs of
/// `vec` consecutive elements.
struct PointwiseLaunch {
  int64_t vec = 1;   // elements per run
  int64_t runs = 0;  // runs in the iteration space
  int64_t block = 0; // threads per block
  int64_t items = 0; // runs per thread
  int64_t grid = 1;
};
PointwiseLaunch planPointwiseLaunch(const Planner &p, const Stage &s,
                                    const Knobs &knobs);

/// A backward norm's per-column sum (DScale or DBias) accumulated across
/// the rows a block visits, then written as one partial row per block.
struct ColumnSum {
  int64_t uid;     // DScale or DBias
  int64_t partial; // scratch [grid, cols] f32
};

/// A row stage: one block per row, a grid-stride loop over the rows.
struct RowLaunch {
  int64_t rows = 1, cols = 1; // rows, and elements per row
  int64_t vec = 1;            // elements per run
  int64_t runs = 0;           // runs per row
  int64_t fullInputs = 1;     // row-shaped inputs held in registers
  int64_t block = 0;          // threads per block
  int64_t items = 0;          // runs per thread per row
  int64_t grid = 1;
  /// Blocks per SM the kernel asks ptxas for (nvvm.minctasm); 0: no bound.
  int64_t resident = 0;
  /// Per-column sums kept in registers across rows, through partials.
  std::vector<ColumnSum> columnSums;
  /// A backward norm whose column sums a separate kernel computes.
  Operation *columnPassOp = nullptr;
};
/// The row stage's launch; partial sums of backward norms get scratch
/// buffers (in `p`).
RowLaunch planRowLaunch(Planner &p, const Stage &s, const Knobs &knobs,
                        const rt::DeviceLimits &limits);

/// The column pass of a backward norm: a thread sums `vec` adjacent columns
/// over every kSlices-th row of its block's chunk of rows; blocks along x
/// take kLanes * vec columns, along y (`chunks`) row chunks.
struct ColumnPassLaunch {
  static constexpr int64_t kLanes = 32, kSlices = 8;
  int64_t vec = 1;
  int64_t colBlocks = 1;
  int64_t chunks = 1;
  int64_t rowsPerChunk = 1;
};
ColumnPassLaunch planColumnPassLaunch(DType gradType, DType inputType,
                                      const Shape &space, int64_t rows,
                                      int64_t cols,
                                      const rt::DeviceLimits &limits);

//===----------------------------------------------------------------------===//
// Emission (KernelEmitter.cpp and the stage files)
//===----------------------------------------------------------------------===//

/// The value classes inside a row stage.
enum class Cls { Scalar, Row, Col, Full };

inline Cls join(Cls a, Cls b) {
  if (a == b)
    return a;
  if (a == Cls::Scalar)
    return b;
  if (b == Cls::Scalar)
    return a;
  return Cls::Full; // Row x Col, or anything with Full
}

struct Val {
  Cls cls = Cls::Scalar;
  SmallVector<Value> lanes; // 1 for Scalar/Row; items * vec for Col/Full
  /// Lane `i`; the one lane of a value that does not vary along it.
  Value lane(size_t i) const { return lanes.size() == 1 ? lanes[0] : lanes[i]; }
};

/// The element type a tensor of `t` has in the kernels.
Type elementType(Builder &b, DType t);

struct ReduceKind {
  double identity;
  std::function<Value(OpBuilder &, Location, Value)> pre;
  std::function<Value(OpBuilder &, Location, Value, Value)> combine;
};
ReduceKind reduceKind(const std::string &mode);

/// `v` as a view that broadcasts over `space`: per-row statistics given in
/// another shape with one element per row (e.g. [R] for [R, N]) are read
/// as the row-major [rows..., 1...] they hold.
View overSpace(const View &v, const Shape &space, size_t k);
/// The class of the values of `v` in a row stage over `space`.
Cls classOf(const View &v, const Shape &space, size_t k);

/// Builds one gpu.module with one kernel per stage launch.
class Emitter {
public:
  Emitter(MLIRContext *ctx, Planner &planner, Knobs knobs,
          const rt::DeviceLimits &limits);

  std::string emit(ModuleOp module, rt::CodegenSpec &out);

private:
  struct Kernel {
    gpu::GPUFuncOp func;
    std::vector<int64_t> args; // buffer uids
    std::map<int64_t, Value> memrefs;
    rt::KernelLaunch launch;
    std::map<int64_t, int64_t> align; // buffer -> bytes its vectors need
  };

  // Constants and index math.
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value f32(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  /// 0, opaque to LLVM: loads addressed from it stay in the row loop
  /// instead of being hoisted and held in registers across rows.
  Value rowInvariantZero();
  Value addi(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value muli(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  /// The thread's index over a 1-D grid of `threadsPerBlock`-thread blocks.
  Value globalThreadIndex(int64_t threadsPerBlock) {
    Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value base = muli(bid, idx(threadsPerBlock));
    return addi(base, tid);
  }
  Value addf(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value subf(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mulf(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value divf(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value ult(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  /// `v` as f32; `t` says what an i8 holds (i1 or a one-byte float).
  Value toF32(Value v, DType t = DType::F32);
  Value fromF32(Value v, DType t);
  /// Rounds an f32 value to what a tensor of dtype `t` holds.
  Value roundTo(Value v, DType t) {
    return t == DType::F32 ? v : toF32(fromF32(v, t), t);
  }

  /// A kernel with `sharedFloats` f32 of workgroup memory (0: none).
  Kernel begin(const std::string &name, const std::vector<int64_t> &buffers,
               int64_t block, int64_t sharedFloats);
  std::string finish(Kernel &k, rt::CodegenSpec &out);

  /// Element offset of linear index `e` of `space` in view `v`.
  Value offsetOf(const View &v, const Shape &space, Value e);
  /// `vec` consecutive elements (a run inside the innermost dim) of view
  /// `v` at linear index `e` of `space`, as f32 lanes.
  SmallVector<Value> loadRun(Kernel &k, const View &v, const Shape &space,
                             Value e, int64_t vec);
  void storeRun(Kernel &k, const View &v, const Shape &space, Value e,
                ArrayRef<Value> lanes);
  /// A guarded region: `body` runs when `cond` holds (no guard when null).
  void guarded(Value cond, function_ref<void()> body);
  /// Like guarded, but yields f32 lanes (zeros when `cond` is false).
  SmallVector<Value> guardedLoad(Value cond, size_t count,
                                 function_ref<SmallVector<Value>()> body);
  Value blockReduce(Value v, const ReduceKind &kind, Value tid, Value smem,
                    int64_t block);

  // Pointwise and copy stages (PointwiseStage.cpp).
  std::string emitPointwise(const Stage &s, size_t index, rt::CodegenSpec &out);
  /// `vec` elements of `op`'s output from linear index `e0`, element(e, i)
  /// each, rounded to the output's dtype.
  Val emitElements(Operation *op, Value e0, int64_t vec,
                   function_ref<Value(Value e, int64_t i)> element);
  /// Block-scale dequantize of the run at `e`: input * descale of its block.
  std::string emitDequantize(Kernel &k, BlockScaleDequantizeOp op,
                             const Shape &space, Value e, int64_t vec,
                             Val &result);
  /// A paged cache's elements at the run at `e` (zero past a batch's
  /// seq_len or for a page number outside the container).
  std::string emitPagedCacheLoad(Kernel &k, PagedCacheLoadOp op,
                                 const Shape &space, Value e, int64_t vec,
                                 Val &result);
  /// The token rows a moe_gather_rows routes to the run at `e` (zero for
  /// an index outside the tokens).
  std::string emitMoeGatherRows(Kernel &k, MoeGatherRowsOp op,
                                const Shape &space, Value e, int64_t vec,
                                Val &result);
  /// Element `d` of the row at `base` of `src` (along its last dim) as
  /// f32, zero where `ok` is false.
  Value loadRowElement(Kernel &k, const View &src, Value ok, Value base,
                       Value d);
  /// The run of `vec` elements at `e0` (within one row of `width`) of
  /// `op`'s result, read from the row at `base` of `src`, zero where `ok`
  /// is false: as vectors of at most 16 bytes when the last dim is
  /// contiguous and `src`'s base and `rowStrides` (the strides a row start
  /// is made of) are multiples of the vector, else element by element.
  Val loadRowRun(Kernel &k, Operation *op, const View &src,
                 ArrayRef<int64_t> rowStrides, Value ok, Value base, Value e0,
                 int64_t width, int64_t vec);
  /// Rotary embedding (forward or backward) of the run at `e`.
  std::string emitRope(Kernel &k, Operation *op, const Shape &space, Value e,
                       int64_t vec, Val &result);
  /// Pointwise op `op` (graph.pointwise, batchnorm_inference) lane by lane
  /// from its operands' lanes (`get`); `outUid` is its result's tensor and
  /// `linear(i)` lane i's linear index (gen_index; null: none).
  std::string computePointwise(Operation *op, int64_t outUid,
                               function_ref<Val(Value)> get,
                               function_ref<Value(size_t)> linear, Val &result);

  // Row stages (RowStage.cpp): one block per row.
  struct RowKernel;
  struct RowIteration;
  std::string emitRow(const Stage &s, size_t index, rt::CodegenSpec &out);
  /// Short per-column inputs, loaded once before the row loop.
  void loadHeldColumns(RowKernel &r);
  /// Row-shaped inputs loaded one row ahead (the `_p` plans).
  void collectPrefetched(RowKernel &r);
  /// The runs of row `rowIndex` of `uid` this thread holds; `cond` (null:
  /// none) guards every load.
  SmallVector<Value> loadRow(RowKernel &r, int64_t uid, Value rowIndex,
                             Value cond);
  /// The row loop's body: the ops of the stage on one row, then its stores.
  std::string emitRowBody(RowKernel &r, RowIteration &it);
  /// The value of `raw` in this row: computed, held, or loaded now.
  Val rowValue(RowKernel &r, RowIteration &it, int64_t raw);
  /// A reduction over the row of per-lane values, across the block.
  Value rowReduce(RowKernel &r, const ReduceKind &kind,
                  function_ref<Value(size_t)> value);
  std::string emitRowReduction(RowKernel &r, RowIteration &it, ReductionOp op,
                               function_ref<Val(Value)> get);
  std::string emitNormForward(RowKernel &r, RowIteration &it, Operation *op,
                              function_ref<Val(Value)> get);
  std::string emitNormBackward(RowKernel &r, RowIteration &it, Operation *op,
                               function_ref<Val(Value)> get);
  /// Stores of the row's values (per-row ones by thread 0, per-column ones
  /// in row 0).
  std::string emitRowStores(RowKernel &r, RowIteration &it);
  /// Each block's partial column sums, after the row loop.
  void storePartialColumnSums(RowKernel &r, scf::ForOp loop);

  // Stage ops lowered to lanes by conversion patterns (LanePatterns.cpp).
  /// One run of a pointwise stage: `vec` elements.
  struct StageItem {
    Kernel *kernel;
    const Shape *space;
    int64_t vec;
    Value start;       // linear index of the run's first element
    Value gatherStart; // where rope, dequantize and paged loads read: start,
                       // or a valid
                       // run's for a thread past the last run
  };
  /// What the lane patterns of one run (pointwise stages) or one trip of
  /// the row loop (row stages) share.
  struct LaneContext {
    LaneContext(Emitter &emitter, std::map<int64_t, Val> &values,
                std::function<Val(Value)> input, const StageItem *item,
                RowKernel *row, RowIteration *iteration)
        : emitter(emitter), values(values), input(std::move(input)), item(item),
          row(row), iteration(iteration) {}

    Emitter &emitter;
    /// Lanes by uid: the stage inputs as loaded, each result as its pattern
    /// computed it; the stores read them.
    std::map<int64_t, Val> &values;
    /// The lanes of stage input `v` (an operand the stage does not make).
    std::function<Val(Value)> input;
    const StageItem *item; // pointwise stages
    RowKernel *row;        // row stages
    RowIteration *iteration;
    /// Each instance's stage op (attributes, uids and planner facts).
    DenseMap<Operation *, Operation *> original;
    /// The operand-less casts standing for the stage inputs.
    DenseSet<Operation *> inputs;
    /// Why a pattern failed (the first reason).
    std::string error;
  };
  template <typename OpT> struct LanePattern;
  /// Runs the conversion of stage-op `instances` with `patterns`, then
  /// erases what it left of them and of their input casts `inputs`. Why
  /// not (`patternError` first, then the conversion's diagnostic), or "".
  std::string convertInstances(ArrayRef<Operation *> instances,
                               const DenseSet<Operation *> &inputs,
                               RewritePatternSet &&patterns,
                               const std::string &patternError);
  /// Instantiates `ops` at the builder and legalizes the instances to lanes
  /// (their results in `c.values`). Why not, or "".
  std::string lowerToLanes(ArrayRef<Operation *> ops, LaneContext &c);
  // The lane patterns' op families: the lanes of `original`'s results from
  // its operands' (`get`), into `c.values`.
  using LaneFamily = std::string(Emitter &e, LaneContext &c,
                                 Operation *original,
                                 function_ref<Val(Value)> get);
  static LaneFamily pointwiseLanes, rowReductionLanes, normForwardLanes,
      normBackwardLanes;
  /// The pointwise-stage gathers (rope, dequantize, paged_cache_load): an
  /// op whose item's run `emit` loads itself from its own operands.
  template <typename OpT>
  using GatherEmit = std::string (Emitter::*)(Kernel &, OpT, const Shape &,
                                              Value, int64_t, Val &);
  template <typename OpT, GatherEmit<OpT> emit>
  static std::string gatherLanes(Emitter &e, LaneContext &c,
                                 Operation *original,
                                 function_ref<Val(Value)> get);

  // Stages whose kernels are one op's lowering, by conversion patterns
  // (KernelPatterns.cpp): reductions over any axes and genstats (reduce
  // stages), block-scale quantize, a backward norm's column pass.
  /// What the kernel pattern of stage `index` needs.
  struct KernelContext {
    KernelContext(const Stage &s, size_t index, rt::CodegenSpec &out)
        : s(s), index(index), out(out) {}

    const Stage &s;
    size_t index;
    rt::CodegenSpec &out;
    /// The instance's stage op (attributes, uids and planner facts).
    Operation *original = nullptr;
    Operation *instance = nullptr;
    /// Why the pattern failed.
    std::string error;
  };
  template <typename OpT> struct KernelPattern;
  /// Instantiates `op` in the kernel module and legalizes the instance to
  /// the kernels its pattern builds. Why not, or "".
  std::string lowerToKernels(Operation *op, KernelContext &c);
  // The kernel patterns' op families: `original`'s kernels, into `c.out`.
  using KernelFamily = std::string (Emitter::*)(KernelContext &c,
                                                Operation *original);
  /// Reductions over any axes and genstats: one block per output element
  /// (ReduceStage.cpp).
  std::string reduceKernels(KernelContext &c, Operation *original);
  /// Block-scale quantize: a thread per block (amax, scale, narrow stores;
  /// QuantizeStage.cpp).
  std::string quantizeKernels(KernelContext &c, Operation *original);
  /// moe_scatter_rows: a thread per element copies it to its routed row
  /// (ScatterStage.cpp).
  std::string scatterRowsKernels(KernelContext &c, Operation *original);
  /// DScale/DBias of a backward norm summed over the rows from its inputs
  /// (32 columns per block, 8 warps over the rows; ColumnSums.cpp).
  std::string columnPassKernels(KernelContext &c, Operation *original);

  // Column sums of backward norms (ColumnSums.cpp).
  /// Sums `partRows` rows of f32 partials [partRows, cols] per column into
  /// `target` (read over `space`).
  std::string emitColumnFinish(int64_t partial, int64_t partRows, int64_t cols,
                               const View &target, const Shape &space,
                               const std::string &name, rt::CodegenSpec &out);

  OpBuilder b;
  Location loc;
  Planner &planner;
  Knobs knobs;
  rt::DeviceLimits limits;
  ModuleOp module;
  gpu::GPUModuleOp gpuModule;
};

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

} // namespace mlir::graph::kernelgen

#endif // LIB_CONVERSION_GRAPHTOCODEGEN_KERNELGEN_H
